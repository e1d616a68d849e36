//! Fire combat: Defensive Artillery Fire (series 11) and Savannah's French
//! mortars (4.12). The arithmetic of one fire: the firing SPs and the range
//! (11.2: combined guns use the farthest one's range), line of sight
//! (11.4, [`super::los`]), the To Hit number (10.3 step 1), the Fire Combat
//! DRMs (step 2), the hit and the unmodified damage roll (step 3); for
//! mortars, the scatter and drift, the owner's choice of the unit hit, and
//! the Mortar Disable roll. Every value is read from `charts/fire.yaml` and
//! `charts/mortar.yaml`; a DRM id the engine does not know is refused.
//!
//! # Readings
//!
//! - A gun's fire SPs are its printed strength (the reduced side's once it
//!   has lost a step); artillery SPs count for fire though never in close
//!   combat (12.3).
//! - `across-hexside`: the features of the side of the target's hex that a
//!   firing unit's line enters through (at a corner, of the two sides the
//!   one least favourable to the target). With several guns the modifier
//!   counts only if every line crosses such a hexside (the chart's note):
//!   the largest (least negative) value among the guns is used.
//! - The range of a mortar shot is from the mortar to the hex it aims at.

use std::collections::BTreeMap;

use super::state::{Condition, State};
use super::{Dice, Event, Rules};
use crate::error::{Error, Result};
use crate::hex::{distance, HexId};
use crate::module::charts::{Drm, ToHitTable};

fn hex_of(state: &State, id: &str) -> Option<HexId> {
    state.units.get(id).and_then(|u| u.hex.as_deref()).and_then(|h| h.parse().ok())
}

/// A unit's fire SPs (printed, reduced side once a step is lost).
pub fn fire_strength(rules: &Rules, state: &State, id: &str) -> i32 {
    let (Some(c), Some(u)) = (rules.counter(id), state.units.get(id)) else { return 0 };
    match c.strength {
        Some(s) if u.steps < c.steps.unwrap_or(1) => s.reduced.unwrap_or(s.full),
        Some(s) => s.full,
        None => 0,
    }
}

/// 10.3 step 1, 11.3 step 1: the To Hit number for SPs at a range.
pub fn to_hit(table: &ToHitTable, sps: i32, range: u32) -> Result<i32> {
    let row = table
        .rows
        .iter()
        .find(|r| r.sp.contains(sps))
        .ok_or_else(|| Error::refused(format!("{}: no row for {sps} SPs", table.name)))?;
    row.to_hit
        .get(&range)
        .copied()
        .ok_or_else(|| Error::refused(format!("{}: no column for a range of {range}", table.name)))
}

fn hex_terrain<'a>(rules: &'a Rules, hex: HexId) -> Option<&'a crate::module::charts::HexTerrain> {
    let id = rules.module.map.terrain.get(&hex)?;
    rules.charts.terrain.hexes.iter().find(|t| &t.id == id)
}

/// The fire DRM of the target hex's side(s) a line from `from` enters by.
fn entering_side_drm(rules: &Rules, from: HexId, target: HexId) -> (i32, Vec<String>) {
    let layout = rules.module.map.layout;
    let terrain = super::movement::Terrain::new(rules);
    let mut worst: Option<(i32, Vec<String>)> = None;
    for side in crate::hex::entering_hexside(from, target, layout).hexsides(target, layout) {
        let (a, b) = side.hexes();
        let outside = if a == target { b } else { a };
        let crossing = terrain.crossing(outside, target);
        let total: i32 = crossing.iter().map(|c| c.fire_drm).sum();
        let names: Vec<String> = crossing.iter().filter(|c| c.fire_drm != 0).map(|c| c.name.clone()).collect();
        // At a corner, the side least favourable to the target counts.
        if worst.as_ref().is_none_or(|(v, _)| total > *v) {
            worst = Some((total, names));
        }
    }
    worst.unwrap_or((0, Vec::new()))
}

/// 10.3 step 2, 11.3 step 2: the Fire Combat DRMs that apply, positive for
/// the firer. `kind` is `artillery`, `mortar` or `rifle`; `ignored` lists
/// DRM ids this kind of fire ignores (mortar.yaml).
pub fn modifiers(
    rules: &Rules,
    state: &State,
    kind: &str,
    firers: &[String],
    target_hex: HexId,
    range: u32,
    ignored: &[String],
) -> Result<Vec<(String, i32, String)>> {
    let terrain = super::movement::Terrain::new(rules);
    let mut out = Vec::new();
    let entries: &Vec<Drm> = &rules.charts.fire.fire_drms.entries;
    for d in entries {
        if !d.applies_to.is_empty() && !d.applies_to.iter().any(|a| a == kind) {
            continue;
        }
        if ignored.contains(&d.id) {
            continue;
        }
        let found: Option<(i32, String)> = match d.id.as_str() {
            "first-fire" => firers
                .iter()
                .all(|f| state.units.get(f).is_some_and(|u| !u.first_fire_used))
                .then(|| (d.value.unwrap_or(0), "every firing unit makes its first fire (10.5)".into())),
            "target-hex-terrain" => hex_terrain(rules, target_hex)
                .filter(|t| t.fire_drm != 0)
                .map(|t| (t.fire_drm, format!("the target is in {}", t.name))),
            "across-hexside" => {
                let mut value: Option<(i32, Vec<String>)> = None;
                for f in firers {
                    let Some(from) = hex_of(state, f) else { continue };
                    let (v, names) = entering_side_drm(rules, from, target_hex);
                    if value.as_ref().is_none_or(|(x, _)| v > *x) {
                        value = Some((v, names));
                    }
                }
                value.filter(|(v, _)| *v != 0).map(|(v, names)| (v, format!("across {}", names.join(", "))))
            }
            "covered-way-defender" => terrain
                .hex(target_hex)
                .and_then(|i| i.feature)
                .and_then(|f| f.fire_drm)
                .filter(|v| *v != 0)
                .map(|v| (v, "the target is on the Covered Way (Savannah 4.9)".into())),
            "weather" => state
                .weather
                .as_deref()
                .and_then(|w| rules.charts.weather.conditions.iter().find(|c| c.id == w))
                .filter(|c| c.fire_drm != 0)
                .map(|c| (c.fire_drm, format!("{} (Savannah 4.2)", c.name))),
            "canister" => (range == 1).then(|| (d.value.unwrap_or(0), "an adjacent target".into())),
            other => {
                return Err(Error::refused(format!(
                    "charts/fire.yaml: the engine does not know the fire DRM '{other}'"
                )))
            }
        };
        if let Some((v, text)) = found {
            if v != 0 {
                out.push((d.id.clone(), v, text));
            }
        }
    }
    Ok(out)
}

/// A die of the fire charts.
fn die(rules: &Rules) -> crate::dice::Die {
    match rules.charts.fire.die {
        crate::module::charts::Die::D10 => crate::dice::Die::D10,
    }
}

/// The result of one fire's dice: hit or not, and the damage results.
#[derive(Debug, Clone)]
pub struct Shot {
    pub hit: bool,
    pub results: Vec<String>,
}

/// 11.3: guns (combined) fire at a target unit: To Hit, DRMs, the roll, the
/// damage roll. The orders are already checked (range, LOS, one fire each).
pub fn gun_fire(
    rules: &Rules,
    state: &State,
    guns: &[String],
    target: &str,
    dice: &mut dyn Dice,
    events: &mut Vec<Event>,
) -> Result<Shot> {
    let layout = rules.module.map.layout;
    let target_hex = hex_of(state, target).ok_or_else(|| Error::refused(format!("{target} is not on the map")))?;
    let sps: i32 = guns.iter().map(|g| fire_strength(rules, state, g)).sum();
    let range =
        guns.iter().filter_map(|g| hex_of(state, g)).map(|h| distance(h, target_hex, layout)).max().unwrap_or(1);
    let number = to_hit(&rules.charts.fire.fire_table, sps, range)?;
    let mods = modifiers(rules, state, "artillery", guns, target_hex, range, &[])?;
    let total: i32 = mods.iter().map(|(_, v, _)| v).sum();
    let roll = i32::from(dice.roll(die(rules), &format!("artillery fire at {target}: to hit"))?);
    let modified = roll + total;
    let hit = modified >= number;
    let drm_text: Vec<String> = mods.iter().map(|(_, v, t)| format!("{v:+} {t}")).collect();
    events.push(
        Event::new(
            "11.3",
            "to-hit",
            format!(
                "{} ({sps} SPs, range {range}) fire at {target} in {target_hex}: needs {number}, rolls {roll}{}{} = {modified}: {}",
                guns.join(", "),
                if drm_text.is_empty() { "" } else { ", " },
                drm_text.join(", "),
                if hit { "hit" } else { "miss" }
            ),
        )
        .with("firers", guns)
        .with("target", target)
        .with("sps", sps)
        .with("range", range)
        .with("to_hit", number)
        .with("roll", roll)
        .with("drms", mods.iter().map(|(id, v, _)| (id.clone(), *v)).collect::<BTreeMap<String, i32>>())
        .with("modified", modified)
        .with("hit", hit),
    );
    if !hit {
        return Ok(Shot { hit, results: Vec::new() });
    }
    let damage = i32::from(dice.roll(die(rules), &format!("artillery fire at {target}: damage"))?);
    let row = rules
        .charts
        .fire
        .artillery_fire_damage
        .rows
        .iter()
        .find(|r| r.roll == damage)
        .ok_or_else(|| Error::refused(format!("charts/fire.yaml: no damage row for a roll of {damage}")))?;
    events.push(
        Event::new("11.3", "damage", format!("damage roll {damage}: {}", row.result.join(" + ")))
            .with("target", target)
            .with("roll", damage)
            .with("results", &row.result),
    );
    Ok(Shot { hit, results: row.result.clone() })
}

/// Where a mortar's shells land (Savannah 4.12, Scatter & Drift Table):
/// the hex, or none off the map.
pub fn scatter(
    rules: &Rules,
    mortar: &str,
    aim: HexId,
    dice: &mut dyn Dice,
    events: &mut Vec<Event>,
) -> Result<Option<HexId>> {
    let layout = rules.module.map.layout;
    let table = &rules.charts.mortar.scatter_and_drift;
    let die = match rules.charts.mortar.die {
        crate::module::charts::Die::D10 => crate::dice::Die::D10,
    };
    let roll = i32::from(dice.roll(die, &format!("mortar {mortar} at {aim}: scatter and drift"))?);
    let outcome = table
        .outcomes
        .iter()
        .find(|o| o.min.is_none_or(|m| roll >= m) && o.max.is_none_or(|m| roll <= m))
        .ok_or_else(|| Error::refused(format!("charts/mortar.yaml: no scatter outcome for {roll}")))?;
    let mut at = Some(aim);
    if outcome.lands == crate::module::charts::Landing::Drift {
        let dir: crate::hex::Direction = outcome
            .direction
            .as_deref()
            .unwrap_or("n")
            .parse()
            .map_err(|_| Error::refused("charts/mortar.yaml: a drift direction is not a direction".to_string()))?;
        for _ in 0..outcome.distance.unwrap_or(1) {
            at = at
                .and_then(|h| crate::hex::neighbour(h, dir, layout))
                .filter(|h| rules.module.map.terrain.contains_key(h));
        }
    }
    let text = match at {
        Some(h) if h == aim => format!("scatter roll {roll}: the shells land on {aim}"),
        Some(h) => format!("scatter roll {roll}: the shells drift to {h}"),
        None => format!("scatter roll {roll}: the shells drift off the map"),
    };
    events.push(
        Event::new("Savannah 4.12", "scatter", text)
            .with("mortar", mortar)
            .with("aim", aim.to_string())
            .with("roll", roll)
            .with("lands", at.map(|h| h.to_string())),
    );
    Ok(at)
}

/// Savannah 4.12: a mortar's shot at the unit the owner chose in the hex
/// the shells landed on: To Hit on the Mortar To Hit Table at the range to
/// the aimed hex, the fire DRMs mortars take, the damage roll.
#[allow(clippy::too_many_arguments)]
pub fn mortar_fire(
    rules: &Rules,
    state: &State,
    mortar: &str,
    aim: HexId,
    target: &str,
    dice: &mut dyn Dice,
    events: &mut Vec<Event>,
) -> Result<Shot> {
    let layout = rules.module.map.layout;
    let summary = &rules.charts.mortar.rules_summary;
    let from = hex_of(state, mortar).ok_or_else(|| Error::refused(format!("{mortar} is not on the map")))?;
    let target_hex = hex_of(state, target).ok_or_else(|| Error::refused(format!("{target} is not on the map")))?;
    let range = distance(from, aim, layout);
    let sps = fire_strength(rules, state, mortar);
    let number = to_hit(&rules.charts.mortar.mortar_to_hit, sps, range)?;
    let mods = modifiers(rules, state, "mortar", &[mortar.to_string()], target_hex, range, &summary.ignores_fire_drms)?;
    let total: i32 = mods.iter().map(|(_, v, _)| v).sum();
    let die_kind = die(rules);
    let roll = i32::from(dice.roll(die_kind, &format!("mortar {mortar} at {target}: to hit"))?);
    let modified = roll + total;
    let hit = modified >= number;
    let drm_text: Vec<String> = mods.iter().map(|(_, v, t)| format!("{v:+} {t}")).collect();
    events.push(
        Event::new(
            "Savannah 4.12",
            "to-hit",
            format!(
                "{mortar} ({sps} SPs, range {range}) at {target} in {target_hex}: needs {number}, rolls {roll}{}{} = {modified}: {}",
                if drm_text.is_empty() { "" } else { ", " },
                drm_text.join(", "),
                if hit { "hit" } else { "miss" }
            ),
        )
        .with("firers", [mortar])
        .with("target", target)
        .with("to_hit", number)
        .with("roll", roll)
        .with("modified", modified)
        .with("hit", hit),
    );
    if !hit {
        return Ok(Shot { hit, results: Vec::new() });
    }
    let damage = i32::from(dice.roll(die_kind, &format!("mortar {mortar} at {target}: damage"))?);
    let row = rules
        .charts
        .fire
        .artillery_fire_damage
        .rows
        .iter()
        .find(|r| r.roll == damage)
        .ok_or_else(|| Error::refused(format!("charts/fire.yaml: no damage row for a roll of {damage}")))?;
    events.push(
        Event::new("Savannah 4.12", "damage", format!("damage roll {damage}: {}", row.result.join(" + ")))
            .with("target", target)
            .with("roll", damage)
            .with("results", &row.result),
    );
    Ok(Shot { hit, results: row.result.clone() })
}

/// Savannah 4.12: after its own D or step loss result, the mortar rolls on
/// the Mortar Disable Table; the result id (`intact`, `disabled`, `burst`).
pub fn mortar_disable(rules: &Rules, mortar: &str, dice: &mut dyn Dice, events: &mut Vec<Event>) -> Result<String> {
    let table = &rules.charts.mortar.mortar_disable;
    let die = match rules.charts.mortar.die {
        crate::module::charts::Die::D10 => crate::dice::Die::D10,
    };
    let roll = i32::from(dice.roll(die, &format!("mortar {mortar}: disable"))?);
    let outcome = table
        .outcomes
        .iter()
        .find(|o| o.min.is_none_or(|m| roll >= m) && o.max.is_none_or(|m| roll <= m))
        .ok_or_else(|| Error::refused(format!("charts/mortar.yaml: no disable outcome for {roll}")))?;
    let text = table.results.iter().find(|r| r.id == outcome.result).map(|r| r.text.clone()).unwrap_or_default();
    events.push(
        Event::new(
            "Savannah 4.12",
            "mortar-disable",
            format!("{mortar} rolls {roll} for disablement: {} — {text}", outcome.result),
        )
        .with("mortar", mortar)
        .with("roll", roll)
        .with("result", &outcome.result),
    );
    Ok(outcome.result.clone())
}

/// Who may fire: a gun or mortar in condition to fire (13.3, 13.4).
pub fn may_fire(state: &State, id: &str) -> bool {
    state.units.get(id).is_some_and(|u| u.hex.is_some() && u.condition == Condition::ParadeOrder)
}
