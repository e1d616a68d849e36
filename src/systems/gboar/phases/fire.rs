//! Fire combat: Defensive Artillery Fire (series 11) and Savannah's French
//! mortars (4.12). The arithmetic of one fire: the firing SPs and the range
//! (11.2: combined guns use the farthest one's range), line of sight
//! (11.4, [`crate::systems::gboar::board::los`]), the To Hit number (10.3 step 1), the Fire Combat
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

use crate::base::error::{Error, Result};
use crate::base::hex::{distance, HexId};
use crate::system::{Dice, Event};
use crate::systems::gboar::board::refusals::{self, Code};
use crate::systems::gboar::board::state::State;
use crate::systems::gboar::board::units::{hex_of, is_rifle, may_fire, mortar_moved, player_of, unit_hex};
use crate::systems::gboar::board::Rules;
use crate::systems::gboar::data::charts::{Drm, ToHitTable};

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

/// The fire DRM of the target hex's side(s) a line from `from` enters by.
fn entering_side_drm(rules: &Rules, state: &State, from: HexId, target: HexId) -> (i32, Vec<String>) {
    let layout = rules.module.map.layout;
    let terrain = crate::systems::gboar::board::terrain::Terrain::of(rules, state);
    let mut worst: Option<(i32, Vec<String>)> = None;
    for side in crate::base::hex::entering_hexside(from, target, layout).hexsides(target, layout) {
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
    let terrain = crate::systems::gboar::board::terrain::Terrain::of(rules, state);
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
            "target-hex-terrain" => rules
                .terrain_at(target_hex)
                .filter(|t| t.fire_drm != 0)
                .map(|t| (t.fire_drm, format!("the target is in {}", t.name))),
            "across-hexside" => {
                let mut value: Option<(i32, Vec<String>)> = None;
                for f in firers {
                    let Some(from) = hex_of(state, f) else { continue };
                    let (v, names) = entering_side_drm(rules, state, from, target_hex);
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
    // Savannah 4.3: the DRMs of Random Events cards played for this roll.
    if let Some(firer) = firers.first() {
        let player = crate::systems::gboar::board::units::player_of(rules, firer);
        for c in crate::systems::gboar::effects::card_effects::fire(rules, state, player) {
            if c.value != 0 {
                out.push((crate::systems::gboar::effects::card_effects::drm_id(&c), c.value, c.text));
            }
        }
    }
    Ok(out)
}

/// A die of the fire charts.
fn die(rules: &Rules) -> crate::base::dice::Die {
    match rules.charts.fire.die {
        crate::systems::gboar::data::charts::Die::D10 => crate::base::dice::Die::D10,
    }
}

/// The result of one fire's dice: hit or not, and the damage results.
#[derive(Debug, Clone)]
pub struct Shot {
    pub hit: bool,
    pub results: Vec<String>,
}

/// What a fire needs (10.3, 11.3 steps 1 and 2): the firing SPs, the
/// range, the To Hit number and the Fire Combat DRMs that apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Aim {
    pub sps: i32,
    pub range: u32,
    pub to_hit: i32,
    /// (id, value, why), positive for the firer.
    pub drms: Vec<(String, i32, String)>,
}

/// 11.2, 11.3: guns firing together at a unit in `target_hex`: their SPs
/// added, the farthest gun's range, the Fire Table's To Hit number, the DRMs.
pub fn gun_aim(rules: &Rules, state: &State, guns: &[String], target_hex: HexId) -> Result<Aim> {
    let layout = rules.module.map.layout;
    let sps: i32 = guns.iter().map(|g| fire_strength(rules, state, g)).sum();
    let range =
        guns.iter().filter_map(|g| hex_of(state, g)).map(|h| distance(h, target_hex, layout)).max().unwrap_or(1);
    let to_hit = to_hit(&rules.charts.fire.fire_table, sps, range)?;
    let drms = modifiers(rules, state, "artillery", guns, target_hex, range, &[])?;
    Ok(Aim { sps, range, to_hit, drms })
}

/// Savannah 4.12: a mortar aimed at `aim`, its shot falling on a unit in
/// `target_hex`: the range to the aimed hex on the Mortar To Hit Table, the
/// fire DRMs mortars take.
pub fn mortar_aim(rules: &Rules, state: &State, mortar: &str, aim: HexId, target_hex: HexId) -> Result<Aim> {
    let layout = rules.module.map.layout;
    let summary = &rules.charts.mortar.rules_summary;
    let from = hex_of(state, mortar).ok_or_else(|| Error::refused(format!("{mortar} is not on the map")))?;
    let range = distance(from, aim, layout);
    let sps = fire_strength(rules, state, mortar);
    let to_hit = to_hit(&rules.charts.mortar.mortar_to_hit, sps, range)?;
    let drms = modifiers(rules, state, "mortar", &[mortar.to_string()], target_hex, range, &summary.ignores_fire_drms)?;
    Ok(Aim { sps, range, to_hit, drms })
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
    let target_hex = hex_of(state, target).ok_or_else(|| Error::refused(format!("{target} is not on the map")))?;
    let Aim { sps, range, to_hit: number, drms: mods } = gun_aim(rules, state, guns, target_hex)?;
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
        .with("hex", target_hex.to_string())
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
    let results = damage(rules, "11.3", target, &format!("artillery fire at {target}: damage"), dice, events)?;
    Ok(Shot { hit, results })
}

/// 11.3 step 3 (and Savannah 4.12): the unmodified roll on the Artillery
/// Fire Damage Table.
fn damage(
    rules: &Rules,
    rule: &str,
    target: &str,
    purpose: &str,
    dice: &mut dyn Dice,
    events: &mut Vec<Event>,
) -> Result<Vec<String>> {
    let roll = i32::from(dice.roll(die(rules), purpose)?);
    let row = rules
        .charts
        .fire
        .artillery_fire_damage
        .rows
        .iter()
        .find(|r| r.roll == roll)
        .ok_or_else(|| Error::refused(format!("charts/fire.yaml: no damage row for a roll of {roll}")))?;
    events.push(
        Event::new(rule, "damage", format!("damage roll {roll}: {}", row.result.join(" + ")))
            .with("target", target)
            .with("roll", roll)
            .with("results", &row.result),
    );
    Ok(row.result.clone())
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
        crate::systems::gboar::data::charts::Die::D10 => crate::base::dice::Die::D10,
    };
    let roll = i32::from(dice.roll(die, &format!("mortar {mortar} at {aim}: scatter and drift"))?);
    let outcome = table
        .outcomes
        .iter()
        .find(|o| o.min.is_none_or(|m| roll >= m) && o.max.is_none_or(|m| roll <= m))
        .ok_or_else(|| Error::refused(format!("charts/mortar.yaml: no scatter outcome for {roll}")))?;
    let mut at = Some(aim);
    if outcome.lands == crate::systems::gboar::data::charts::Landing::Drift {
        let dir: crate::base::hex::Direction = outcome
            .direction
            .as_deref()
            .unwrap_or("n")
            .parse()
            .map_err(|_| Error::refused("charts/mortar.yaml: a drift direction is not a direction".to_string()))?;
        for _ in 0..outcome.distance.unwrap_or(1) {
            at = at
                .and_then(|h| crate::base::hex::neighbour(h, dir, layout))
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
    let target_hex = hex_of(state, target).ok_or_else(|| Error::refused(format!("{target} is not on the map")))?;
    let Aim { sps, range, to_hit: number, drms: mods } = mortar_aim(rules, state, mortar, aim, target_hex)?;
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
        .with("hex", target_hex.to_string())
        .with("to_hit", number)
        .with("roll", roll)
        .with("modified", modified)
        .with("hit", hit),
    );
    if !hit {
        return Ok(Shot { hit, results: Vec::new() });
    }
    let results =
        damage(rules, "Savannah 4.12", target, &format!("mortar {mortar} at {target}: damage"), dice, events)?;
    Ok(Shot { hit, results })
}

/// Savannah 4.12: after its own D or step loss result, the mortar rolls on
/// the Mortar Disable Table; the result id (`intact`, `disabled`, `burst`).
pub fn mortar_disable(rules: &Rules, mortar: &str, dice: &mut dyn Dice, events: &mut Vec<Event>) -> Result<String> {
    let table = &rules.charts.mortar.mortar_disable;
    let die = match rules.charts.mortar.die {
        crate::systems::gboar::data::charts::Die::D10 => crate::base::dice::Die::D10,
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

// ---------------------------------------------------------------------------
// The Defensive Artillery Fire Phase

/// Orders for the Defensive Artillery Fire Phase: the non-phasing side's
/// guns (11), the phasing side's mortars (Savannah 3 IX, 4.12), and the
/// owner's choice of the unit a mortar hit falls on in its hexes. `fire:
/// []` and no mortars decline to fire (11.1).
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "fire orders (a map)")]
pub struct FireOrders {
    #[serde(default)]
    pub fire: Vec<GunOrder>,
    #[serde(default)]
    pub mortars: Vec<MortarOrder>,
    /// Savannah 4.12: "the owning player selects the unit": hex to unit.
    #[serde(default)]
    pub mortar_targets: BTreeMap<String, String>,
    /// Choices for results that fall on this side's units (retreat paths...).
    #[serde(default)]
    pub choices: crate::systems::gboar::effects::results::Choices,
}

#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "a fire, a map with guns (a list of unit ids) and target")]
pub struct GunOrder {
    /// Artillery firing together at one target (11.2).
    pub guns: Vec<String>,
    pub target: String,
}

#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "a mortar fire, a map with unit and hex")]
pub struct MortarOrder {
    pub unit: String,
    /// The hex aimed at (Savannah 4.12: mortars fire into a hex).
    pub hex: String,
}

/// A problem: why (docs/refusals.md), its field and what is wrong.
pub type Problem = (Code, String, String);

/// Check one side's fire orders against 11.1, 11.2, 11.4 and 4.12.
pub fn check(rules: &Rules, state: &State, player: &str, side: &str, body: &crate::base::yaml::Value) -> Vec<Problem> {
    let layout = rules.module.map.layout;
    let orders: FireOrders = match crate::base::yaml::deserialize_at(body) {
        Ok(o) => o,
        Err(e) => {
            return vec![(Code::OrdersShape,
                e.path().to_string(),
                format!("{} (fire orders are `fire: [{{guns: [...], target: ...}}]`, `mortars: [{{unit, hex}}]`, `mortar_targets`, `choices`)", crate::base::error::echo_serde(e.inner())),
            )]
        }
    };
    let mut problems = Vec::new();
    let mut fired: BTreeMap<String, String> = BTreeMap::new();
    let mut targets: BTreeMap<String, String> = BTreeMap::new();
    let (reach, cap) = artillery_reach(rules, state);
    let own = |id: &str| crate::systems::gboar::board::units::side_of(rules, id) == side;
    for (i, f) in orders.fire.iter().enumerate() {
        let field = format!("fire[{i}]");
        let Some(target_hex) =
            hex_of(state, &f.target).filter(|_| rules.counter(&f.target).is_some_and(|c| !c.is_leader()))
        else {
            problems.push((
                Code::NotEnemyTarget,
                format!("{field}.target"),
                format!("'{}' is not a combat unit on the map", crate::base::error::echo(&f.target)),
            ));
            continue;
        };
        if player_of(rules, &f.target) == player_of(rules, f.guns.first().map(String::as_str).unwrap_or("")) {
            problems.push((
                Code::NotEnemyTarget,
                format!("{field}.target"),
                format!("{} is not an enemy unit", f.target),
            ));
        }
        if let Some(other) = targets.insert(f.target.clone(), field.clone()) {
            problems.push((
                Code::TargetedTwice,
                format!("{field}.target"),
                format!(
                    "{} is already the target of {other}: no unit is the target of more than one fire per phase (11.2)",
                    f.target
                ),
            ));
        }
        if f.guns.is_empty() {
            problems.push((Code::OrdersShape, format!("{field}.guns"), "name the guns that fire".into()));
        }
        for (k, g) in f.guns.iter().enumerate() {
            let at = format!("{field}.guns[{k}]");
            let Some(c) = rules.counter(g).filter(|_| state.units.contains_key(g)) else {
                problems.push((
                    Code::UnknownUnit,
                    at,
                    format!("there is no unit '{}' in this game", crate::base::error::echo(g)),
                ));
                continue;
            };
            if !own(g) {
                problems.push((Code::NotOwnFirer, at, format!("{g} is not a unit of the {side} side")));
                continue;
            }
            if !c.is_artillery() || c.kind == "mortar" {
                problems.push((Code::NotOwnFirer, at, format!("{g} is not a gun: mortars fire under `mortars` and never combine with other artillery (Savannah 4.12)")));
                continue;
            }
            if player_of(rules, g) == player {
                problems.push((
                    Code::GunOfPhasingPlayer,
                    at,
                    format!("{g} belongs to the phasing player: Defensive Artillery Fire is the other player's (11.1)"),
                ));
                continue;
            }
            if !may_fire(state, g) {
                problems.push((
                    Code::MayNotFire,
                    at,
                    format!("{g} may not fire: it is not on the map in Parade Order (13.3, 13.4)"),
                ));
                continue;
            }
            if let Some(other) = fired.insert(g.clone(), field.clone()) {
                problems.push((
                    Code::FiresTwice,
                    at,
                    format!("{g} already fires in {other}: no unit fires more than once per phase (11.1)"),
                ));
                continue;
            }
            let Some(from) = hex_of(state, g) else { continue };
            let range = distance(from, target_hex, layout);
            if range > reach || range == 0 {
                problems.push((
                    Code::OutOfRange,
                    at,
                    format!(
                        "{} is {range} hexes from {g}: the range is at most {reach} (11.2{})",
                        f.target,
                        if cap.is_some() { "; the weather, Savannah 4.2" } else { "" }
                    ),
                ));
                continue;
            }
            if range > 1 {
                let sight = crate::systems::gboar::board::los::line_of_sight(rules, state, from, target_hex);
                if !sight.clear {
                    problems.push((Code::NoLineOfSight, at, format!("{g} cannot see {}: {} ", f.target, sight.reason)));
                }
            }
        }
    }
    let mortar = &rules.charts.mortar.rules_summary;
    for (i, m) in orders.mortars.iter().enumerate() {
        let field = format!("mortars[{i}]");
        let Some(c) = rules.counter(&m.unit).filter(|_| state.units.contains_key(&m.unit)) else {
            problems.push((
                Code::UnknownUnit,
                format!("{field}.unit"),
                format!("there is no unit '{}' in this game", crate::base::error::echo(&m.unit)),
            ));
            continue;
        };
        if !own(&m.unit) || c.kind != "mortar" {
            problems.push((
                Code::NotOwnFirer,
                format!("{field}.unit"),
                format!("{} is not a mortar of the {side} side", m.unit),
            ));
            continue;
        }
        if player_of(rules, &m.unit) != player {
            problems.push((
                Code::MortarOwnTurn,
                format!("{field}.unit"),
                format!("{} fires in its own player's turn (Savannah 3 IX)", m.unit),
            ));
            continue;
        }
        if mortar_moved(rules, state, &m.unit) {
            problems.push((
                Code::MortarMoved,
                format!("{field}.unit"),
                format!(
                    "{} moved this turn: on the tactical turns a mortar moves or fires, not both (Savannah 4.12)",
                    m.unit
                ),
            ));
            continue;
        }
        if !may_fire(state, &m.unit)
            || state.units.get(&m.unit).and_then(|u| u.no_fire_until).is_some_and(|t| state.turn < t)
        {
            problems.push((
                Code::MayNotFire,
                format!("{field}.unit"),
                format!("{} may not fire this phase (13.3, 13.4; a disabled mortar, Savannah 4.12)", m.unit),
            ));
            continue;
        }
        if let Some(other) = fired.insert(m.unit.clone(), field.clone()) {
            problems.push((
                Code::FiresTwice,
                format!("{field}.unit"),
                format!("{} already fires in {other} (11.1)", m.unit),
            ));
            continue;
        }
        let Ok(aim) = m.hex.parse::<HexId>() else {
            problems.push((
                Code::NotAHexId,
                format!("{field}.hex"),
                format!("'{}' is not a hex id", crate::base::error::echo(&m.hex)),
            ));
            continue;
        };
        let Some(from) = hex_of(state, &m.unit) else { continue };
        let (range, in_range) = mortar_range(rules, from, aim);
        if !in_range {
            problems.push((
                Code::OutOfRange,
                format!("{field}.hex"),
                format!(
                    "{aim} is {range} hexes away: mortars fire {} to {} hexes (Savannah 4.12)",
                    mortar.range.min, mortar.range.max
                ),
            ));
        }
    }
    for (h, u) in &orders.mortar_targets {
        if h.parse::<HexId>().is_err() || !own(u) {
            problems.push((
                Code::MortarTargetChoice,
                format!("mortar_targets.{h}"),
                format!("name a hex and one of the {side} side's units in it"),
            ));
        }
    }
    problems
}

/// The enemy combat units `gun` of `side` could fire at alone this phase,
/// by id, as [`check`] accepts the fire (11.1, 11.2, 11.4, the weather).
pub fn gun_targets(rules: &Rules, state: &State, player: &str, side: &str, gun: &str) -> Vec<String> {
    // A target out of range is one [`check`] refuses: only the others are
    // tried as orders.
    let (reach, _) = artillery_reach(rules, state);
    let from = hex_of(state, gun);
    let in_range = |t: &str| match (from, hex_of(state, t)) {
        (Some(from), Some(to)) => (1..=reach).contains(&distance(from, to, rules.module.map.layout)),
        _ => true,
    };
    // Out of range is asked first, before any orders are written for the
    // target: most enemy units are (11.2's ranges are a few hexes).
    single_shot_targets(rules, state, gun, "fire", "guns", in_range, |body| {
        check(rules, state, player, side, body).is_empty()
    })
}

/// 11.2, Savannah 4.2: the longest artillery range this turn, and the
/// weather's cap on it when there is one.
fn artillery_reach(rules: &Rules, state: &State) -> (u32, Option<u32>) {
    let longest = rules.charts.fire.fire_table.ranges.iter().copied().max().unwrap_or(0);
    let cap = state
        .weather
        .as_deref()
        .and_then(|w| rules.charts.weather.conditions.iter().find(|c| c.id == w))
        .and_then(|c| u32::try_from(c.artillery_max_range).ok());
    (cap.map_or(longest, |c| longest.min(c)), cap)
}

/// The enemy combat units on the map that `shooter` alone could fire at,
/// each tried as the one-item orders `{section: [{list: [shooter], target}]}`
/// that `accepts` (the phase's own orders check) takes, once `near` (a
/// test the check makes too, and refuses) has not ruled the target out.
fn single_shot_targets(
    rules: &Rules,
    state: &State,
    shooter: &str,
    section: &str,
    list: &str,
    near: impl Fn(&str) -> bool,
    accepts: impl Fn(&crate::base::yaml::Value) -> bool,
) -> Vec<String> {
    let own = player_of(rules, shooter);
    state
        .units
        .iter()
        .filter(|(t, u)| {
            // The cheap tests first (`player_of` writes a string); the
            // unit's hex read from the unit in hand, not looked up again.
            rules.counter(t).is_some_and(|c| !c.is_leader())
                && unit_hex(u).is_some()
                && near(t)
                && player_of(rules, t) != own
        })
        .map(|(t, _)| t)
        .filter(|t| {
            let mut one = crate::base::yaml::Mapping::new();
            one.insert(list.into(), crate::base::yaml::Value::Sequence(vec![shooter.into()]));
            one.insert("target".into(), t.as_str().into());
            let mut body = crate::base::yaml::Mapping::new();
            body.insert(
                section.into(),
                crate::base::yaml::Value::Sequence(vec![crate::base::yaml::Value::Mapping(one)]),
            );
            accepts(&crate::base::yaml::Value::Mapping(body))
        })
        .cloned()
        .collect()
}

/// The hexes holding enemy combat units that `mortar` of `side` could aim
/// at this phase, in hex order, as [`check`] accepts the shot (Savannah
/// 4.12: its range, whether it moved or is disabled).
pub fn mortar_aims(rules: &Rules, state: &State, player: &str, side: &str, mortar: &str) -> Vec<HexId> {
    let own = player_of(rules, mortar);
    // A hex out of range (Savannah 4.12) is one [`check`] refuses, by the
    // same test: only the others are tried as orders (most enemy hexes are
    // out of a mortar's few hexes).
    let from = hex_of(state, mortar);
    let in_range = |h: &HexId| from.is_none_or(|from| mortar_range(rules, from, *h).1);
    let hexes: std::collections::BTreeSet<HexId> = state
        .units
        .keys()
        .filter(|t| player_of(rules, t) != own && rules.counter(t).is_some_and(|c| !c.is_leader()))
        .filter_map(|t| hex_of(state, t))
        .filter(in_range)
        .collect();
    hexes
        .into_iter()
        .filter(|h| {
            let mut one = crate::base::yaml::Mapping::new();
            one.insert("unit".into(), mortar.into());
            one.insert("hex".into(), h.to_string().into());
            let mut body = crate::base::yaml::Mapping::new();
            body.insert(
                "mortars".into(),
                crate::base::yaml::Value::Sequence(vec![crate::base::yaml::Value::Mapping(one)]),
            );
            check(rules, state, player, side, &crate::base::yaml::Value::Mapping(body)).is_empty()
        })
        .collect()
}

/// Savannah 4.12: the range of a mortar in `from` aiming at `aim`, and
/// whether mortars fire that far (charts/mortar.yaml's range).
fn mortar_range(rules: &Rules, from: HexId, aim: HexId) -> (i32, bool) {
    let allowed = &rules.charts.mortar.rules_summary.range;
    let range = i32::try_from(distance(from, aim, rules.module.map.layout)).unwrap_or(i32::MAX);
    (range, range >= allowed.min && range <= allowed.max)
}

/// The unit a mortar hit falls on in `hex`: the owner's choice, else the
/// default: the unit with the most steps left, then the best printed
/// morale, then the lowest id.
pub fn mortar_victim(
    rules: &Rules,
    state: &State,
    hex: HexId,
    orders: &BTreeMap<String, crate::base::yaml::Value>,
) -> Option<(String, bool)> {
    let here: Vec<String> = state
        .units
        .keys()
        .filter(|u| hex_of(state, u) == Some(hex) && rules.counter(u).is_some_and(|c| !c.is_leader()))
        .cloned()
        .collect();
    let owner_side = here.first().map(|u| crate::systems::gboar::board::units::side_of(rules, u))?;
    let chosen = orders
        .get(owner_side)
        .and_then(|b| crate::base::yaml::from_value_ref::<FireOrders>(b).ok())
        .and_then(|o| {
            o.mortar_targets.iter().find(|(h, _)| h.parse::<HexId>().ok() == Some(hex)).map(|(_, u)| u.clone())
        })
        .filter(|u| here.contains(u));
    if let Some(u) = chosen {
        return Some((u, true));
    }
    let mut list = here;
    list.sort_by(|a, b| {
        let key = |u: &String| {
            let steps = state.units.get(u).map(|s| s.steps).unwrap_or(0);
            let morale = rules.counter(u).and_then(|c| c.morale).map(|m| m.full).unwrap_or(i32::MIN);
            (steps, morale)
        };
        key(b).cmp(&key(a)).then_with(|| a.cmp(b))
    });
    list.into_iter().next().map(|u| (u, false))
}

/// 11.2 across a player's sides: "No unit may be the target of more than
/// one Defensive Artillery Fire per phase", so two sides of one player (the
/// French and the Americans) may not each fire at the same unit: the later
/// side (in side order) is refused. As `(side, code, field, message)`.
pub fn check_sides(orders: &BTreeMap<String, crate::base::yaml::Value>) -> Vec<(String, Code, String, String)> {
    targeted_across_sides(orders, "fire", "Defensive Artillery Fire per phase (11.2)", |body| {
        crate::base::yaml::from_value::<FireOrders>(body.clone())
            .map(|o| o.fire.into_iter().map(|f| f.target).collect())
            .unwrap_or_default()
    })
}

/// 10.2 across a player's sides, as 11.2 ([`check_sides`]): "No unit may
/// be the target of more than one Rifle Fire per phase". Each side's
/// orders are one Rifle Fire per target; two sides of one player (the
/// French and the Americans) each firing at one unit would be two: the
/// later side (in side order) is refused. (10.2's combined SPs are the
/// units of one fire, of one side's orders.)
pub fn check_rifle_sides(orders: &BTreeMap<String, crate::base::yaml::Value>) -> Vec<(String, Code, String, String)> {
    targeted_across_sides(orders, "rifle_fire", "Rifle Fire per phase (10.2)", |body| {
        crate::base::yaml::from_value::<RifleOrders>(body.clone())
            .map(|o| o.rifle_fire.into_iter().map(|f| f.target).collect())
            .unwrap_or_default()
    })
}

/// The targets of each side's fires (`field`'s list, read by `targets`)
/// that an earlier side (in side order) already fires at, refused: "no
/// unit is the target of more than one `what`". One side's own fires are
/// its own check's (`check`, [`check_rifles`]).
fn targeted_across_sides(
    orders: &BTreeMap<String, crate::base::yaml::Value>,
    field: &str,
    what: &str,
    targets: impl Fn(&crate::base::yaml::Value) -> Vec<String>,
) -> Vec<(String, Code, String, String)> {
    let mut fired_at: BTreeMap<String, String> = BTreeMap::new();
    let mut problems = Vec::new();
    for (side, body) in orders {
        let mut own: Vec<String> = Vec::new();
        for (n, target) in targets(body).into_iter().enumerate() {
            match fired_at.get(&target) {
                Some(other) if other != side => problems.push((
                    side.clone(),
                    Code::TargetedTwice,
                    format!("{field}[{n}].target"),
                    format!(
                        "{} is already the target of the {other} side's fire: no unit is the target of more than one {what}",
                        crate::base::error::echo(&target)
                    ),
                )),
                _ => own.push(target),
            }
        }
        for t in own {
            fired_at.entry(t).or_insert_with(|| side.clone());
        }
    }
    problems
}

/// Series 11, Savannah 4.12: the Defensive Artillery Fire Phase of the
/// phasing `player`: the orders are checked whole (nothing happens if any
/// is wrong), then each side's fires are resolved in the order given, the
/// results applied as they come (13.1).
///
/// `announced` is the board the fires were chosen on (11.2), `state` the
/// board they are made on: the same, unless Random Events cards were
/// played in the step (Savannah 4.3, played before the phase). The orders
/// are checked against `announced`, as `validate` checked them; a fire
/// whose target, or a gun or mortar of which, a card's result moved out of
/// its hex (a failed morale check's retreat) is not made (`fire-lapses`):
/// the target was selected "within range and LOS" where it stood (11.2),
/// as a unit a card moves takes no part in the Close Combat it was
/// announced in (12.23; docs/rules-readings.md).
pub fn resolve_phase(
    rules: &Rules,
    announced: &State,
    state: &State,
    player: &str,
    orders: &BTreeMap<String, crate::base::yaml::Value>,
    dice: &mut dyn Dice,
) -> Result<crate::systems::gboar::board::state::Resolution> {
    let mut problems = check_sides(orders);
    for (side, body) in orders {
        problems
            .extend(check(rules, announced, player, side, body).into_iter().map(|(c, f, m)| (side.clone(), c, f, m)));
    }
    // Savannah 4.3: a unit a card moved since the orders were written.
    let moved = |u: &str| hex_of(announced, u) != hex_of(state, u);
    if !problems.is_empty() {
        return Err(refusals::refuse_all(
            "fire",
            "nothing happened",
            problems
                .iter()
                .map(|(side, code, field, message)| (side.as_str(), field.as_str(), message.as_str(), *code)),
        ));
    }
    let mut next = state.clone();
    let mut events = Vec::new();
    let mut count = 0;
    for (side, body) in orders {
        let o: FireOrders = crate::base::yaml::from_value_ref(body).unwrap_or_default();
        if o.fire.is_empty() && o.mortars.is_empty() {
            events.push(
                Event::new("11.1", "fire-declined", format!("the {side} side declines to fire")).with("side", side),
            );
        }
        for f in &o.fire {
            count += 1;
            if moved(&f.target) || f.guns.iter().any(|g| moved(g)) {
                events.push(
                    Event::new(
                        "Savannah 4.3",
                        "fire-lapses",
                        format!(
                            "{} at {}: a Random Events card of this step has moved {} out of its hex since the fire \
                             was chosen (11.2); the fire is not made",
                            f.guns.join(", "),
                            f.target,
                            if moved(&f.target) { "the target" } else { "a gun" }
                        ),
                    )
                    .with("target", &f.target),
                );
                continue;
            }
            let guns: Vec<String> = f.guns.iter().filter(|g| may_fire(&next, g)).cloned().collect();
            if guns.is_empty() || hex_of(&next, &f.target).is_none() {
                events.push(Event::new(
                    "11.1",
                    "fire-lapses",
                    format!("{} at {}: the guns or the target are gone", f.guns.join(", "), f.target),
                ));
                continue;
            }
            let cards = crate::systems::gboar::effects::card_effects::fire(
                rules,
                &next,
                crate::systems::gboar::board::units::player_of(rules, &guns[0]),
            );
            let shot = gun_fire(rules, &next, &guns, &f.target, dice, &mut events)?;
            // Savannah 4.3: a card's one-roll DRM is spent by this fire.
            crate::systems::gboar::effects::card_effects::spend(&mut next, &cards);
            if shot.hit {
                let owner_side = crate::systems::gboar::board::units::side_of(rules, &f.target);
                let choices = orders
                    .get(owner_side)
                    .and_then(|b| crate::base::yaml::from_value_ref::<FireOrders>(b).ok())
                    .map(|o| o.choices)
                    .unwrap_or_default();
                events.extend(apply_fire(rules, &mut next, count, &guns[0], &f.target, &shot.results, &choices, dice)?);
            }
        }
        for m in &o.mortars {
            count += 1;
            if moved(&m.unit) {
                events.push(
                    Event::new(
                        "Savannah 4.3",
                        "fire-lapses",
                        format!(
                            "{} at {}: a Random Events card of this step has moved the mortar out of its hex since \
                             the fire was chosen; the fire is not made",
                            m.unit, m.hex
                        ),
                    )
                    .with("unit", &m.unit),
                );
                continue;
            }
            let Ok(aim) = m.hex.parse::<HexId>() else { continue };
            let Some(lands) = scatter(rules, &m.unit, aim, dice, &mut events)? else { continue };
            let Some((victim, chosen)) = mortar_victim(rules, &next, lands, orders) else {
                events.push(Event::new(
                    "Savannah 4.12",
                    "mortar-empty-hex",
                    format!("the shells fall on {lands}, where there is no combat unit"),
                ));
                continue;
            };
            events.push(
                Event::new(
                    "Savannah 4.12",
                    "mortar-target",
                    format!(
                        "{victim} is the unit the shells may hurt in {lands} ({})",
                        if chosen {
                            "its owner's choice"
                        } else {
                            "default: the most steps, then the best morale, then the lowest id"
                        }
                    ),
                )
                .with("unit", &victim),
            );
            let cards = crate::systems::gboar::effects::card_effects::fire(
                rules,
                &next,
                crate::systems::gboar::board::units::player_of(rules, &m.unit),
            );
            let shot = mortar_fire(rules, &next, &m.unit, aim, &victim, dice, &mut events)?;
            crate::systems::gboar::effects::card_effects::spend(&mut next, &cards);
            if shot.hit {
                let owner_side = crate::systems::gboar::board::units::side_of(rules, &victim);
                let choices = orders
                    .get(owner_side)
                    .and_then(|b| crate::base::yaml::from_value_ref::<FireOrders>(b).ok())
                    .map(|o| o.choices)
                    .unwrap_or_default();
                events.extend(apply_fire(rules, &mut next, count, &m.unit, &victim, &shot.results, &choices, dice)?);
                let summary = &rules.charts.mortar.rules_summary;
                if shot.results.iter().any(|r| summary.disable_on_results.contains(r)) {
                    match mortar_disable(rules, &m.unit, dice, &mut events)?.as_str() {
                        "disabled" => {
                            if let Some(u) = next.units.get_mut(&m.unit) {
                                u.no_fire_until = Some(next.turn.saturating_add(2));
                            }
                        }
                        "burst" => {
                            // Counted as a step lost in combat, to the target's
                            // army; to the other player's first army when the
                            // shells fell on the firing player's own unit.
                            let target_army = rules.army_of(&victim).unwrap_or_default().to_string();
                            let rule = "Savannah 4.12".to_string();
                            let cause = if player_of(rules, &victim) == player_of(rules, &m.unit) {
                                let by = crate::systems::gboar::effects::losses::other_armies(
                                    rules,
                                    player_of(rules, &m.unit),
                                )
                                .into_iter()
                                .next()
                                .unwrap_or_default();
                                crate::systems::gboar::effects::losses::Cause::FriendlyFire { rule, by }
                            } else {
                                crate::systems::gboar::effects::losses::Cause::Combat { rule, by: target_army }
                            };
                            events.extend(crate::systems::gboar::effects::losses::lose_steps(
                                rules, &mut next, &m.unit, 1, cause,
                            )?);
                        }
                        "intact" => {}
                        other => {
                            return Err(Error::refused(format!(
                                "charts/mortar.yaml: the engine does not know the disable result '{other}'"
                            )))
                        }
                    }
                }
            }
        }
    }
    Ok(crate::systems::gboar::board::state::Resolution { state: next, events })
}

/// Savannah Hist. Special Rules: a held gun hit by Defensive Artillery Fire
/// with one of the scenario's results must go back to its at-start hex.
fn send_back(rules: &Rules, state: &mut State, target: &str, results: &[String]) -> Option<Event> {
    let fixed = rules.scenario_movement.fixed_artillery.as_ref()?;
    let back = fixed.on_defensive_artillery_fire_result.as_ref()?;
    let c = rules.counter(target)?;
    let held = fixed.types.contains(&c.kind)
        && (fixed.armies.is_empty() || fixed.armies.contains(&c.army))
        && !fixed.except_units.iter().any(|u| u == target);
    let symbols: Vec<&str> = results
        .iter()
        .filter_map(|r| rules.charts.codes.combat_results.iter().find(|x| &x.id == r).map(|x| x.symbol.as_str()))
        .collect();
    let u = state.units.get_mut(target)?;
    if !held || u.released || u.hex.is_none() || !symbols.iter().any(|s| back.results.iter().any(|b| b == s)) {
        return None;
    }
    let home = c.setup.as_ref().map(|s| s.hex.clone())?;
    if u.hex.is_some_and(|h| h.is(&home)) {
        return None;
    }
    u.must_return = true;
    Some(
        Event::new(
            &fixed.rule,
            "must-return",
            format!("{target} must move back to its at-start hex {home} as quickly as it can"),
        )
        .with("unit", target)
        .with("hex", home),
    )
}

/// 11.3 step 3, 13.1: a fire's results fall on the target alone (and a
/// leader in its hex on "*").
#[allow(clippy::too_many_arguments)]
fn apply_fire(
    rules: &Rules,
    state: &mut State,
    n: usize,
    firer: &str,
    target: &str,
    results: &[String],
    choices: &crate::systems::gboar::effects::results::Choices,
    dice: &mut dyn Dice,
) -> Result<Vec<Event>> {
    let side = |affected: &str| crate::systems::gboar::effects::results::Side {
        affected: affected.to_string(),
        others: Vec::new(),
        artillery: Vec::new(),
        previously_retreated: Vec::new(),
    };
    let combat = crate::systems::gboar::effects::results::Combat {
        id: format!("{}-fire-{n}", state.turn),
        kind: crate::systems::gboar::effects::results::CombatKind::Fire,
        attacker: side(firer),
        defender: side(target),
        morale_at_start: state.army_morale.clone(),
    };
    let mut events = crate::systems::gboar::effects::results::apply(
        rules,
        state,
        &combat,
        crate::systems::gboar::effects::results::Role::Defender,
        results,
        choices,
        dice,
    )?;
    events.extend(send_back(rules, state, target, results));
    Ok(events)
}

// ---------------------------------------------------------------------------
// The Rifle Fire Phase (series 10)

/// A unit's rifle SPs: its rifle strength where the counter prints one
/// (musket/rifle units), else its strength; the reduced side's once a step
/// is lost.
pub fn rifle_strength(rules: &Rules, state: &State, id: &str) -> i32 {
    let (Some(c), Some(u)) = (rules.counter(id), state.units.get(id)) else { return 0 };
    let sides = c.rifle_strength.or(c.strength);
    match sides {
        Some(s) if u.steps < c.steps.unwrap_or(1) => s.reduced.unwrap_or(s.full),
        Some(s) => s.full,
        None => 0,
    }
}

/// Both players' orders for the Rifle Fire Phase.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "rifle fire orders (a map)")]
pub struct RifleOrders {
    #[serde(default)]
    pub rifle_fire: Vec<RifleOrder>,
    #[serde(default)]
    pub choices: crate::systems::gboar::effects::results::Choices,
}

#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "a rifle fire, a map with rifles (a list of unit ids) and target")]
pub struct RifleOrder {
    /// Rifle units firing together at one adjacent target (10.2).
    pub rifles: Vec<String>,
    pub target: String,
}

/// The enemy combat units rifle unit `rifle` of `side` could fire at alone
/// this phase, by id, as [`check_rifles`] accepts the fire (10.1, 10.2).
pub fn rifle_targets(rules: &Rules, state: &State, side: &str, rifle: &str) -> Vec<String> {
    single_shot_targets(
        rules,
        state,
        rifle,
        "rifle_fire",
        "rifles",
        |_| true,
        |body| check_rifles(rules, state, side, body).is_empty(),
    )
}

/// Check one side's rifle fire orders (10.1, 10.2, 13.3, 13.4).
pub fn check_rifles(rules: &Rules, state: &State, side: &str, body: &crate::base::yaml::Value) -> Vec<Problem> {
    let layout = rules.module.map.layout;
    let orders: RifleOrders = match crate::base::yaml::deserialize_at(body) {
        Ok(o) => o,
        Err(e) => {
            return vec![(
                Code::OrdersShape,
                e.path().to_string(),
                format!(
                    "{} (rifle fire orders are `rifle_fire: [{{rifles: [...], target: ...}}]` and `choices`)",
                    crate::base::error::echo_serde(e.inner())
                ),
            )]
        }
    };
    let mut problems = Vec::new();
    let mut fired: BTreeMap<String, String> = BTreeMap::new();
    let mut targets: BTreeMap<String, String> = BTreeMap::new();
    for (i, f) in orders.rifle_fire.iter().enumerate() {
        let field = format!("rifle_fire[{i}]");
        let Some(target_hex) =
            hex_of(state, &f.target).filter(|_| rules.counter(&f.target).is_some_and(|c| !c.is_leader()))
        else {
            problems.push((
                Code::NotEnemyTarget,
                format!("{field}.target"),
                format!("'{}' is not a combat unit on the map", crate::base::error::echo(&f.target)),
            ));
            continue;
        };
        if crate::systems::gboar::board::units::side_of(rules, &f.target) == side
            || player_of(rules, &f.target) == f.rifles.first().map(|r| player_of(rules, r)).unwrap_or_default()
        {
            problems.push((
                Code::NotEnemyTarget,
                format!("{field}.target"),
                format!("{} is not an enemy unit", f.target),
            ));
        }
        if let Some(other) = targets.insert(f.target.clone(), field.clone()) {
            problems.push((Code::TargetedTwice, format!("{field}.target"), format!("{} is already the target of {other}: no unit is the target of more than one Rifle Fire per phase (10.2)", f.target)));
        }
        for (k, r) in f.rifles.iter().enumerate() {
            let at = format!("{field}.rifles[{k}]");
            let Some(c) = rules.counter(r).filter(|_| state.units.contains_key(r)) else {
                problems.push((
                    Code::UnknownUnit,
                    at,
                    format!("there is no unit '{}' in this game", crate::base::error::echo(r)),
                ));
                continue;
            };
            if crate::systems::gboar::board::units::side_of(rules, r) != side || !is_rifle(c) {
                problems.push((Code::NotOwnFirer, at, format!("{r} is not a rifle unit of the {side} side (10.1)")));
                continue;
            }
            if !may_fire(state, r) {
                problems.push((
                    Code::MayNotFire,
                    at,
                    format!("{r} may not fire: only Parade Order rifle units fire (13.3, 13.4)"),
                ));
                continue;
            }
            if let Some(other) = fired.insert(r.clone(), field.clone()) {
                problems.push((
                    Code::FiresTwice,
                    at,
                    format!("{r} already fires in {other}: no unit fires more than once per phase (10.1)"),
                ));
                continue;
            }
            if hex_of(state, r).is_none_or(|h| distance(h, target_hex, layout) != 1) {
                problems.push((
                    Code::RifleFireNotAdjacent,
                    at,
                    format!("{r} is not next to {}: rifle fire is at an adjacent target (10.2)", f.target),
                ));
            }
        }
    }
    problems
}

/// Series 10: the Rifle Fire Phase. Both players fire; the results are
/// applied together after every fire (10.4), the non-phasing player's units
/// first (its retreats before the phasing player's).
/// Why a Rifle Fire written on the board `announced` is not made on the
/// board `state` a Random Events card of the step left (Savannah 4.3): a
/// rifle or the target the card moved out of its hex (the target was
/// selected where it stood, 10.2, as at Defensive Artillery Fire), or the
/// fire alone refused there (a rifle no longer in Parade Order, say).
/// `None` when the fire is made.
fn rifle_fire_lapses(rules: &Rules, announced: &State, state: &State, side: &str, f: &RifleOrder) -> Option<String> {
    if std::ptr::eq(announced, state) {
        return None;
    }
    let moved = |u: &str| hex_of(announced, u) != hex_of(state, u);
    if moved(&f.target) || f.rifles.iter().any(|r| moved(r)) {
        return Some(format!(
            "{} at {}: a Random Events card of this step has moved {} out of its hex since the fire was chosen \
             (10.2); the fire is not made",
            f.rifles.join(", "),
            f.target,
            if moved(&f.target) { "the target" } else { "a rifle" }
        ));
    }
    use crate::base::yaml::{Mapping, Value};
    let text = |t: &str| Value::String(t.to_string());
    let mut fire = Mapping::new();
    fire.insert(text("rifles"), Value::Sequence(f.rifles.iter().map(|r| text(r)).collect()));
    fire.insert(text("target"), text(&f.target));
    let mut one = Mapping::new();
    one.insert(text("rifle_fire"), Value::Sequence(vec![Value::Mapping(fire)]));
    let (_, _, message) = check_rifles(rules, state, side, &Value::Mapping(one)).into_iter().next()?;
    Some(format!(
        "{} at {}: not made on the board a Random Events card of this step left (the fire was chosen before it): \
         {message}",
        f.rifles.join(", "),
        f.target
    ))
}

pub fn resolve_rifle_phase(
    rules: &Rules,
    announced: &State,
    state: &State,
    player: &str,
    orders: &BTreeMap<String, crate::base::yaml::Value>,
    dice: &mut dyn Dice,
) -> Result<crate::systems::gboar::board::state::Resolution> {
    // The orders are checked on the board they were written on (Savannah
    // 4.3: a card played in the step has changed it since), as `validate`
    // checked them; a fire the card's board refuses lapses below.
    let mut problems = check_rifle_sides(orders);
    for (side, body) in orders {
        problems
            .extend(check_rifles(rules, announced, side, body).into_iter().map(|(c, f, m)| (side.clone(), c, f, m)));
    }
    if !problems.is_empty() {
        return Err(refusals::refuse_all(
            "rifle fire",
            "nothing happened",
            problems
                .iter()
                .map(|(side, code, field, message)| (side.as_str(), field.as_str(), message.as_str(), *code)),
        ));
    }
    let layout = rules.module.map.layout;
    let mut events = Vec::new();
    let mut pending: Vec<(bool, String, String, Vec<String>, crate::systems::gboar::effects::results::Choices)> =
        Vec::new();
    let mut used_first: Vec<String> = Vec::new();
    // Savannah 4.3: the cards' one-roll DRMs already used by a fire of
    // this (simultaneous) phase.
    let mut spent_cards: Vec<String> = Vec::new();
    // The phasing player's fires first (10.2), then the other's.
    let mut sides: Vec<&String> = orders.keys().collect();
    sides.sort_by_key(|s| (rules.player_of_side(s) != player, (*s).clone()));
    for side in sides {
        let o: RifleOrders = crate::base::yaml::from_value(orders[side].clone()).unwrap_or_default();
        for f in &o.rifle_fire {
            if let Some(why) = rifle_fire_lapses(rules, announced, state, side, f) {
                events.push(Event::new("Savannah 4.3", "fire-lapses", why).with("target", &f.target));
                continue;
            }
            let target_hex =
                hex_of(state, &f.target).ok_or_else(|| Error::refused(format!("{} is not on the map", f.target)))?;
            let sps: i32 = f.rifles.iter().map(|r| rifle_strength(rules, state, r)).sum();
            let number = to_hit(&rules.charts.fire.fire_table, sps, 1)?;
            let mods: Vec<(String, i32, String)> = modifiers(rules, state, "rifle", &f.rifles, target_hex, 1, &[])?
                .into_iter()
                .filter(|(id, _, _)| !spent_cards.contains(id))
                .collect();
            for (id, _, _) in &mods {
                if crate::systems::gboar::effects::card_effects::one_roll(state, id) {
                    spent_cards.push(id.clone());
                }
            }
            let total: i32 = mods.iter().map(|(_, v, _)| v).sum();
            // 10.6: Jaegers (tag `jaeger`) off clear or crops ground, with an
            // open flank, roll twice; one hit at most.
            let jaeger = f
                .rifles
                .iter()
                .all(|r| rules.counter(r).is_some_and(|c| c.tags.iter().any(|t| t == "jaeger")))
                && f.rifles.iter().filter_map(|r| hex_of(state, r)).all(|h| {
                    rules
                        .module
                        .map
                        .terrain
                        .get(&h)
                        .and_then(|t| rules.charts.terrain.hexes.iter().find(|x| &x.id == t))
                        .is_some_and(|t| !t.open)
                })
                && {
                    let occupied: std::collections::BTreeSet<HexId> =
                        state.units.keys().filter_map(|u| hex_of(state, u)).collect();
                    rules.module.map.terrain.keys().any(|h| {
                        !occupied.contains(h)
                            && distance(*h, target_hex, layout) == 1
                            && f.rifles.iter().filter_map(|r| hex_of(state, r)).any(|rh| distance(rh, *h, layout) == 1)
                    })
                };
            let tries = if jaeger { 2 } else { 1 };
            let mut hit = false;
            for t in 0..tries {
                let roll = i32::from(dice.roll(
                    die(rules),
                    &format!(
                        "rifle fire at {}: to hit{}",
                        f.target,
                        if t > 0 { " (second Jaeger roll, 10.6)" } else { "" }
                    ),
                )?);
                let modified = roll + total;
                let this = modified >= number;
                let drm_text: Vec<String> = mods.iter().map(|(_, v, t)| format!("{v:+} {t}")).collect();
                events.push(
                    Event::new(
                        if t > 0 { "10.6" } else { "10.3" },
                        "to-hit",
                        format!(
                            "{} ({sps} SPs) fire at {} in {target_hex}: needs {number}, rolls {roll}{}{} = {modified}: {}",
                            f.rifles.join(", "),
                            f.target,
                            if drm_text.is_empty() { "" } else { ", " },
                            drm_text.join(", "),
                            if this { "hit" } else { "miss" }
                        ),
                    )
                    .with("firers", &f.rifles)
                    .with("target", &f.target)
                    .with("hex", target_hex.to_string())
                    .with("sps", sps)
                    .with("to_hit", number)
                    .with("roll", roll)
                    .with("drms", mods.iter().map(|(id, v, _)| (id.clone(), *v)).collect::<BTreeMap<String, i32>>())
                    .with("modified", modified)
                    .with("hit", this),
                );
                hit |= this;
                if hit {
                    break;
                }
            }
            used_first.extend(f.rifles.iter().cloned());
            if hit {
                let damage = i32::from(dice.roll(die(rules), &format!("rifle fire at {}: damage", f.target))?);
                let row = rules
                    .charts
                    .fire
                    .rifle_fire_damage
                    .rows
                    .iter()
                    .find(|r| r.roll == damage)
                    .ok_or_else(|| Error::refused(format!("charts/fire.yaml: no rifle damage row for {damage}")))?;
                events.push(
                    Event::new("10.3", "damage", format!("damage roll {damage}: {}", row.result.join(" + ")))
                        .with("target", &f.target)
                        .with("roll", damage)
                        .with("results", &row.result),
                );
                let owner = crate::systems::gboar::board::units::side_of(rules, &f.target);
                let choices = orders
                    .get(owner)
                    .and_then(|b| crate::base::yaml::from_value_ref::<RifleOrders>(b).ok())
                    .map(|o| o.choices)
                    .unwrap_or_default();
                let phasing_target = player_of(rules, &f.target) == player;
                pending.push((phasing_target, f.rifles[0].clone(), f.target.clone(), row.result.clone(), choices));
            }
        }
    }
    let mut next = state.clone();
    crate::systems::gboar::effects::card_effects::spend_ids(rules, &mut next, spent_cards.iter().map(String::as_str));
    // 10.5: every firing unit loses its first fire, hit or not.
    for r in &used_first {
        if let Some(u) = next.units.get_mut(r) {
            u.first_fire_used = true;
        }
    }
    // 10.4: all together, the non-phasing player's units first.
    pending.sort_by_key(|p| p.0);
    for (n, (_, firer, target, results, choices)) in pending.iter().enumerate() {
        if hex_of(&next, target).is_none() {
            continue;
        }
        let combat = crate::systems::gboar::effects::results::Combat {
            id: format!("{}-{player}-rifle-fire-{}", state.turn, n + 1),
            kind: crate::systems::gboar::effects::results::CombatKind::Fire,
            attacker: crate::systems::gboar::effects::results::Side {
                affected: firer.clone(),
                others: Vec::new(),
                artillery: Vec::new(),
                previously_retreated: Vec::new(),
            },
            defender: crate::systems::gboar::effects::results::Side {
                affected: target.clone(),
                others: Vec::new(),
                artillery: Vec::new(),
                previously_retreated: Vec::new(),
            },
            morale_at_start: state.army_morale.clone(),
        };
        events.extend(crate::systems::gboar::effects::results::apply(
            rules,
            &mut next,
            &combat,
            crate::systems::gboar::effects::results::Role::Defender,
            results,
            choices,
            dice,
        )?);
    }
    Ok(crate::systems::gboar::board::state::Resolution { state: next, events })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/orders.md's fire example uses the fields the engine reads,
    /// spelled as it reads them.
    #[test]
    fn the_documented_orders_parse() {
        let doc = include_str!("../../../../docs/orders.md");
        let part = doc.split("## Defensive Artillery Fire").nth(1).unwrap().split("\n## ").next().unwrap();
        let fire: Vec<&str> = part.split("```yaml").skip(1).map(|b| b.split("```").next().unwrap()).collect();
        let f: FireOrders = crate::base::yaml::from_str(fire[0]).unwrap();
        assert_eq!(f.fire[0].guns.len(), 2);
        assert_eq!(f.mortars[0].hex, "1404");
        assert_eq!(f.mortar_targets["1404"], "2-bn-fraser");
    }

    /// Savannah 4.3 with 10.2: a Rifle Fire written on the board before
    /// the step's cards is checked there; when a card has moved its target
    /// out of its hex since (Confusion in the Ranks' retreat, say), the
    /// fire is not made (`fire-lapses`), as at Defensive Artillery Fire.
    /// Savannah's own counters have no rifle marks, so the combat test
    /// module's Blue Rifles fire, the cards' board made by hand.
    #[test]
    fn a_rifle_fire_whose_target_a_card_moved_lapses() {
        use crate::systems::gboar::case::ScriptedDice;
        use crate::systems::gboar::effects::retreat::tests::{combat, place};
        let (rules, mut announced) = combat();
        announced.turn = 1;
        place(&mut announced, "0505", &["red-foot"]);
        place(&mut announced, "0506", &["blue-rifles"]);
        let body: crate::base::yaml::Value =
            crate::base::yaml::from_str("rifle_fire: [{rifles: [blue-rifles], target: red-foot}]").unwrap();
        let orders = BTreeMap::from([("blue".to_string(), body)]);
        let mut carded = announced.clone();
        place(&mut carded, "0503", &["red-foot"]);
        let done =
            resolve_rifle_phase(&rules, &announced, &carded, "red", &orders, &mut ScriptedDice::new(vec![])).unwrap();
        let kinds: Vec<&str> = done.events.iter().map(|e| e.kind.as_str()).collect();
        assert_eq!(kinds, ["fire-lapses"], "{:?}", done.events);
        assert_eq!(done.events[0].rule, "Savannah 4.3");
        assert_eq!(done.events[0].fields["target"], "red-foot");
        assert_eq!(done.state.units["red-foot"].hex, carded.units["red-foot"].hex);
        // No card: the fire is made (a miss on 0); on the cards' board
        // alone (no card: the orders written there) it is refused.
        let made = resolve_rifle_phase(&rules, &announced, &announced, "red", &orders, &mut ScriptedDice::new(vec![0]))
            .unwrap();
        assert!(made.events.iter().any(|e| e.kind == "to-hit"), "{:?}", made.events);
        assert!(resolve_rifle_phase(&rules, &carded, &carded, "red", &orders, &mut ScriptedDice::new(vec![0])).is_err());
        // A card that disrupts the rifle where it stands: the fire, refused
        // on that board (13.3: only Parade Order rifle units fire), lapses.
        let mut shaken = announced.clone();
        shaken.units.get_mut("blue-rifles").unwrap().condition =
            crate::systems::gboar::board::state::Condition::Disrupted;
        let done =
            resolve_rifle_phase(&rules, &announced, &shaken, "red", &orders, &mut ScriptedDice::new(vec![])).unwrap();
        let kinds: Vec<&str> = done.events.iter().map(|e| e.kind.as_str()).collect();
        assert_eq!(kinds, ["fire-lapses"], "{:?}", done.events);
        assert!(done.events[0].text.contains("only Parade Order rifle units fire"), "{}", done.events[0].text);
    }
}
