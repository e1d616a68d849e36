//! The Rally Phase (series 15), with the morale check of 13.5, the leader in
//! command (14.1, 14.23) and the Savannah exceptions (4.11 Naval Bombardment
//! Zone, 4.19 rallying behind fieldworks). Needs no orders.
//!
//! Every number comes from the module: the die and the pass mark from
//! `charts/morale-check.yaml`, the modifiers from its `modifiers` whose
//! `applies_to` names `rally`, the army morale level's unit morale modifier
//! from `charts/army-morale.yaml` (15.32, 16.2).

use std::collections::BTreeSet;

use crate::base::dice::Die;
use crate::base::error::{Error, Result};
use crate::base::hex::{neighbours, HexId};
use crate::system::{Dice, Event};
use crate::systems::gboar::board::state::Resolution;
use crate::systems::gboar::board::state::{Condition, State};
use crate::systems::gboar::board::units::{hex_of, leader_in_command, modified_morale};
use crate::systems::gboar::board::Rules;

/// Combat units of other players in the hexes next to `hex` (15.1: "enemy
/// combat units"; leaders are not combat units).
fn enemy_adjacent(rules: &Rules, state: &State, hex: HexId, player: &str) -> Vec<String> {
    let around: BTreeSet<HexId> = neighbours(hex, rules.module.map.layout).into_iter().collect();
    state
        .units
        .keys()
        .filter(|id| {
            let Some(c) = rules.counter(id) else { return false };
            !c.is_leader()
                && rules.player_of_army(&c.army) != Some(player)
                && hex_of(state, id).is_some_and(|h| around.contains(&h))
        })
        .cloned()
        .collect()
}

/// Savannah 4.19: a unit behind an unbreached fieldwork (a fieldwork hexside
/// of its hex that protects it): "units do not benefit while rallying
/// behind a fieldwork if a hexside is breached, nor do they benefit if
/// enemy units are adjacent and within the same fieldwork". 15.1 lets no
/// unit next to an enemy combat unit rally at all, so the enemy units the
/// second half can find are leaders (3.2: not combat units). One is
/// "within the same fieldwork" when its hex is behind a fieldwork too and
/// no fieldwork hexside lies between the two hexes: it is inside the
/// works, not outside them (docs/rules-readings.md).
fn behind_fieldwork(rules: &Rules, state: &State, hex: HexId, player: &str) -> bool {
    let terrain = crate::systems::gboar::board::terrain::Terrain::of(rules, state);
    let works = terrain.fieldworks_of(hex);
    if works.is_empty() || works.iter().any(|(_, breached)| *breached) {
        return false;
    }
    let inside_with = |n: HexId| {
        let divides = terrain.crossing(n, hex).iter().any(|c| c.fieldwork);
        !divides && !terrain.fieldworks_of(n).is_empty()
    };
    !neighbours(hex, rules.module.map.layout).into_iter().any(|n| {
        inside_with(n)
            && state.units.iter().any(|(id, u)| {
                u.hex == Some(n) && rules.counter(id).is_some_and(|c| rules.player_of_army(&c.army) != Some(player))
            })
    })
}

/// Series 15: the phasing player's Rally Phase.
pub fn resolve(rules: &Rules, state: &State, player: &str, dice: &mut dyn Dice) -> Result<Resolution> {
    let check = &rules.charts.morale_check;
    let die = match check.die {
        crate::systems::gboar::data::charts::Die::D10 => Die::D10,
    };
    let mut next = state.clone();
    let mut events = Vec::new();
    // 12.4 REMOVAL: Cavalry Withdrawal markers come off the owning player's
    // units in its Rally Phase.
    let withdrawn: Vec<String> = state
        .units
        .iter()
        .filter(|(id, u)| u.cavalry_withdrawn && rules.player_of_unit(id) == Some(player))
        .map(|(id, _)| id.clone())
        .collect();
    for id in &withdrawn {
        if let Some(u) = next.units.get_mut(id) {
            u.cavalry_withdrawn = false;
        }
    }
    if !withdrawn.is_empty() {
        events.push(
            Event::new(
                "12.4",
                "withdrawal-markers-removed",
                format!("Cavalry Withdrawal markers removed: {}", withdrawn.join(", ")),
            )
            .with("units", &withdrawn),
        );
    }
    // Units rally in the order of their ids: fixed before any die is rolled.
    for (id, unit) in &state.units {
        let Some(counter) = rules.counter(id) else {
            return Err(Error::refused(format!("the state names unit {id}, which is not a counter of the module")));
        };
        if counter.is_leader() || unit.condition == Condition::ParadeOrder {
            continue;
        }
        if rules.player_of_army(&counter.army) != Some(player) {
            continue;
        }
        let Some(hex) = hex_of(state, id) else { continue };
        // 15.1: not adjacent to enemy combat units.
        let enemies = enemy_adjacent(rules, state, hex, player);
        if !enemies.is_empty() {
            events.push(
                Event::new(
                    "15.1",
                    "rally-not-allowed",
                    format!("{} in {hex} may not rally: adjacent to {}", counter.name, enemies.join(", ")),
                )
                .with("unit", id)
                .with("adjacent", &enemies),
            );
            continue;
        }
        let (base, level_modifier, level) = modified_morale(rules, state, counter)?;
        let mut drms: Vec<(String, i32)> = Vec::new();
        for m in check.modifiers.iter().filter(|m| m.applies_to.iter().any(|a| a == "rally")) {
            let value = match m.id.as_str() {
                // 14.23: the leader in command adds his Leadership DRM.
                "leadership" => leader_in_command(rules, state, hex, counter)
                    .map(|l| (format!("leadership ({})", l.name), l.leadership_drm.unwrap_or(0))),
                // Savannah 4.19: behind an unbreached fieldwork.
                "fieldworks-rally" => behind_fieldwork(rules, state, hex, player)
                    .then(|| ("behind fieldworks".to_string(), m.value.unwrap_or(0))),
                // Savannah 4.11: Allied units in the British Naval Bombardment Zone.
                "naval-bombardment-zone" => {
                    let side_ok = m.sides.is_empty()
                        || rules.sequence.data.armies.iter().any(|a| a.id == counter.army && m.sides.contains(&a.side));
                    let in_zone =
                        rules.module.map.zone("naval-bombardment-zone").is_some_and(|z| z.hexes.contains(&hex));
                    (side_ok && in_zone).then(|| ("Naval Bombardment Zone".to_string(), m.value.unwrap_or(0)))
                }
                other => {
                    return Err(Error::refused(format!(
                        "charts/morale-check.yaml: the engine does not know the rally modifier '{other}'"
                    )))
                }
            };
            if let Some((name, v)) = value {
                drms.push((name, v));
            }
        }
        let purpose = format!("rally, {} in {hex}", counter.name);
        let roll = dice.roll(die, &purpose)? as i32;
        let drm_total: i32 = drms.iter().map(|(_, v)| v).sum();
        let total = roll + base + level_modifier + drm_total;
        let passed = total >= check.pass_at_least;
        // 15.2: disrupted to Parade Order, shattered to disrupted.
        let after = match (passed, unit.condition) {
            (true, Condition::Shattered) => Condition::Disrupted,
            (true, _) => Condition::ParadeOrder,
            (false, c) => c,
        };
        if let Some(u) = next.units.get_mut(id) {
            u.condition = after;
        }
        let drm_text: Vec<String> = drms.iter().map(|(n, v)| format!("{v:+} {n}")).collect();
        let text = format!(
            "{} in {hex} ({:?}) rolls {roll}, morale {base} {level_modifier:+} ({level}){}{} = {total}: {} (needs {}), now {:?}",
            counter.name,
            unit.condition,
            if drm_text.is_empty() { "" } else { ", " },
            drm_text.join(", "),
            if passed { "passes" } else { "fails" },
            check.pass_at_least,
            after
        );
        events.push(
            Event::new("15.2", "rally", text)
                .with("unit", id)
                .with("hex", hex.to_string())
                .with("roll", roll)
                .with("morale", base)
                .with("army_morale_modifier", level_modifier)
                .with("drms", drms.iter().map(|(n, v)| (n.clone(), *v)).collect::<std::collections::BTreeMap<_, _>>())
                .with("total", total)
                .with("passed", passed)
                .with("condition", after),
        );
        // 16.1: a unit that rallies raises its army's morale.
        if passed {
            let why = format!("{} rallied", counter.name);
            events.extend(crate::systems::gboar::effects::morale::apply(
                rules,
                &mut next,
                "unit-rallied",
                &counter.army,
                &[],
                1,
                ("16.1", &why),
            )?);
        }
    }
    Ok(Resolution { state: next, events })
}
