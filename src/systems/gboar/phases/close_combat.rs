//! Close Combat (series 12): the arithmetic of one combat — strengths and
//! odds (12.23 step 1, 12.3), lead units (step 2), every DRM of the Close
//! Combat DRM Chart (step 3, with 12.7, 14.21, 15.32 and the exclusive
//! rules), tactics chits (step 4, 12.5), the table (step 5) and momentum
//! (steps 6 and 8, 12.6). Every value comes from the charts
//! (`close-combat.yaml`, `close-combat-drms.yaml`, `tactics.yaml`,
//! `terrain.yaml`, `weather.yaml`); the DRM entries are known to the engine
//! by their ids, and an id it does not know is refused, never ignored.
//!
//! # Readings of the rules
//!
//! - SPs (12.23 step 1): artillery counts 0 (12.3); a disrupted unit half
//!   its SPs rounded up (13.3), a shattered one 1 (13.4), a Lost one half
//!   rounded up (Savannah 4.9).
//! - The leader in command whose Close Combat DRM counts (14.21) is the one
//!   in command in the lead unit's hex.
//! - Terrain (step 3): the hex terrain of the Defender's lead unit's hex; of
//!   the hexsides between attacking and defending hexes, the one most
//!   favourable to the Attacker, its features added (9.4's cumulative
//!   reading). A shattered Defender's lead unit takes no terrain DRM (13.4).
//! - Surrounded (12.7): every hex next to each defending hex (or each
//!   attacking hex, for the converse) holds an enemy unit, is in an enemy
//!   ZOC that no friendly unit there negates, or is prohibited; a hex off
//!   the map does not count as surrounding.
//! - The exclusive rules' DRM entries say what they apply to in their own
//!   fields: `sides` (the attacking sides), `scenarios`, `applies_to`
//!   (stacking restriction ids of module.yaml for the mixed-stack DRMs,
//!   hexside feature ids for Savannah 4.14, terrain ids for 4.8), and
//!   counter tags name the units (`irish-ferocity`, `militia-drm-exception`,
//!   `forest-defence-drm`).
//! - Savannah 4.1, "Units within a French/American stack may not attack
//!   voluntarily, either as a stack or individually" (module.yaml
//!   `stacking.restrictions[].stacked_may_attack_voluntarily: false`): a
//!   unit in a hex holding a pair that the restriction binds may be an
//!   attacker only if it must attack (12.12: next to the enemy, in Parade
//!   Order, not artillery or a rifle unit, not held back by the scenario).
//!   Its own choice of which adjacent hexes it attacks (12.15) stays free.

use std::collections::{BTreeMap, BTreeSet};

use crate::base::error::{Error, Result};
use crate::base::hex::{neighbours, HexId};
use crate::system::Event;
use crate::systems::gboar::board::state::{Condition, State};
use crate::systems::gboar::board::units::{
    combat_units_at, enemies_next_to, hex_of, may_not_attack, must_attack_in, occupants, player_of, side_of,
    turn_restriction, Occupancy,
};
use crate::systems::gboar::board::Rules;
use crate::systems::gboar::data::charts::{Drm, TacticsCell};
use crate::systems::gboar::data::counters::Counter;

/// One close combat as designated (12.21) with its choices made.
#[derive(Debug, Clone)]
pub struct Engagement {
    pub attackers: Vec<String>,
    pub defenders: Vec<String>,
    pub attacker_lead: String,
    pub defender_lead: String,
    pub attacker_chit: String,
    pub defender_chit: String,
    /// 12.14: attacking units next to a diversion shift the odds left.
    pub diversion_shift: u32,
}

/// Step 1: a column of the Close Combat Table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Odds {
    pub attacker_sp: i32,
    pub defender_sp: i32,
    pub column: String,
    pub text: String,
}

/// One DRM that applies, with why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Modifier {
    pub id: String,
    pub value: i32,
    pub text: String,
}

/// Step 4: the tactics matrix's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tactics {
    Drm(i32, String),
    /// NC: no combat (12.23 step 4); which sides played Withdraw.
    NoCombat {
        attacker_withdraws: bool,
        defender_withdraws: bool,
        text: String,
    },
}

fn half_up(n: i32) -> i32 {
    (n + 1) / 2
}

/// 12.23 step 1: a unit's Close Combat SPs.
pub fn strength(rules: &Rules, state: &State, id: &str) -> i32 {
    let (Some(c), Some(u)) = (rules.counter(id), state.units.get(id)) else { return 0 };
    if c.is_leader() || c.is_artillery() {
        return 0;
    }
    let (sps, _) = c.stacking_weight(u.steps, false);
    let sps = match u.condition {
        Condition::Shattered => 1,
        Condition::Disrupted => half_up(sps),
        Condition::ParadeOrder => sps,
    };
    if u.lost {
        half_up(sps)
    } else {
        sps
    }
}

/// 12.23 step 1: the column, rounded in the Defender's favour, shifted left
/// for a diversion (12.14).
pub fn odds(rules: &Rules, attacker_sp: i32, defender_sp: i32, shift: u32) -> Odds {
    let table = &rules.charts.close_combat.close_combat_table;
    let (a, d) = (i64::from(attacker_sp.max(0)), i64::from(defender_sp.max(0)));
    let mut index: Option<usize> = None;
    for (i, col) in table.columns.iter().enumerate() {
        if a * i64::from(col.odds[1]) >= d * i64::from(col.odds[0]) {
            index = Some(i);
        }
    }
    let base = match index {
        Some(i) => table.columns.get(i).map(|c| c.id.clone()).unwrap_or_default(),
        None => table.below_lowest.clone(),
    };
    let position = table.columns.iter().position(|c| c.id == base).unwrap_or(0);
    let shifted = position.saturating_sub(shift as usize);
    let column = table.columns.get(shifted).map(|c| c.id.clone()).unwrap_or(base.clone());
    let text = if shift > 0 && column != base {
        format!(
            "{attacker_sp} SPs against {defender_sp}: {base}, shifted {shift} left for the diversion (12.14): {column}"
        )
    } else {
        format!("{attacker_sp} SPs against {defender_sp}: {column} (rounded for the Defender, 12.23)")
    };
    Odds { attacker_sp, defender_sp, column, text }
}

/// Step 5: the cell of the table for a modified roll (rolls beyond the
/// table's rows read its first or last row).
pub fn cell(rules: &Rules, column: &str, roll: i32) -> Result<(Vec<String>, Vec<String>)> {
    let table = &rules.charts.close_combat.close_combat_table;
    let roll = roll.clamp(table.rolls.min, table.rolls.max);
    let row = table
        .rows
        .iter()
        .find(|r| r.roll == roll)
        .ok_or_else(|| Error::refused(format!("charts/close-combat.yaml: no row for a modified roll of {roll}")))?;
    let cell = row
        .results
        .get(column)
        .ok_or_else(|| Error::refused(format!("charts/close-combat.yaml: row {roll} has no column {column}")))?;
    Ok((cell.attacker.clone(), cell.defender.clone()))
}

/// 14.1, 14.21: the leader in command in a unit's hex, for its army.
fn leader_for<'a>(rules: &'a Rules, state: &State, id: &str) -> Option<&'a Counter> {
    let hex = hex_of(state, id)?;
    let army = rules.army_of(id)?;
    crate::systems::gboar::board::units::leader_in_command(rules, state, hex, army)
}

/// 12.52, 12.53: a leader stacked with or next to one of the units.
fn leader_near(rules: &Rules, state: &State, units: &[String]) -> bool {
    let layout = rules.module.map.layout;
    let player = units.first().map(|u| player_of(rules, u)).unwrap_or_default();
    let hexes: BTreeSet<HexId> = units.iter().filter_map(|u| hex_of(state, u)).collect();
    state.units.keys().any(|id| {
        rules.counter(id).is_some_and(|c| c.is_leader())
            && player_of(rules, id) == player
            && hex_of(state, id)
                .is_some_and(|h| hexes.iter().any(|x| *x == h || crate::base::hex::are_adjacent(*x, h, layout)))
    })
}

/// 12.52: an empty hex next to both a defending and an attacking hex, that
/// is not prohibited terrain (the note on flanks).
fn open_flank(rules: &Rules, state: &State, e: &Engagement) -> bool {
    let layout = rules.module.map.layout;
    let terrain = crate::systems::gboar::board::terrain::Terrain::new(rules);
    let occupied = occupants(rules, state);
    let att: BTreeSet<HexId> = e.attackers.iter().filter_map(|u| hex_of(state, u)).collect();
    let def: BTreeSet<HexId> = e.defenders.iter().filter_map(|u| hex_of(state, u)).collect();
    rules.module.map.terrain.keys().any(|h| {
        !occupied.contains_key(h)
            && terrain
                .hex(*h)
                .is_some_and(|i| i.movement_cost != crate::systems::gboar::data::charts::MovementCost::Prohibited)
            && att.iter().any(|a| crate::base::hex::are_adjacent(*a, *h, layout))
            && def.iter().any(|d| crate::base::hex::are_adjacent(*d, *h, layout))
    })
}

/// 12.52: why a side may not choose `chit` in this combat, if it may not.
pub fn chit_illegal(rules: &Rules, state: &State, e: &Engagement, attacker: bool, chit: &str) -> Option<String> {
    let tactics = &rules.charts.tactics;
    let Some(def) = tactics.chits.iter().find(|c| c.id == chit) else {
        let known: Vec<&str> = tactics.chits.iter().map(|c| c.id.as_str()).collect();
        return Some(format!(
            "'{}' is not a tactics chit; the chits are {}",
            crate::base::error::echo(chit),
            known.join(", ")
        ));
    };
    let (own, other) = if attacker { (&e.attackers, &e.defenders) } else { (&e.defenders, &e.attackers) };
    for need in &def.requires {
        let ok = match need.as_str() {
            "leader" => leader_near(rules, state, own),
            "open-flank" => open_flank(rules, state, e),
            other => return Some(format!("charts/tactics.yaml: the engine does not know the requirement '{other}'")),
        };
        if !ok {
            let why = if need == "leader" {
                "no leader is stacked with or next to a unit in this combat (12.52, 12.53)"
            } else {
                "there is no empty hex next to both sides' units (12.52)"
            };
            return Some(format!("{} needs {need}: {why}", def.name));
        }
    }
    for f in &def.forbidden_when {
        if !f.sides.is_empty() && !own.iter().any(|u| f.sides.contains(&side_of(rules, u))) {
            continue;
        }
        let holds = match f.id.as_str() {
            "infantry-in-open-vs-mounted" => {
                let all_infantry = own
                    .iter()
                    .filter_map(|u| rules.counter(u))
                    .filter(|c| !c.is_leader() && !c.is_artillery())
                    .all(|c| {
                        matches!(c.kind.as_str(), "infantry" | "light-infantry" | "militia" | "rifle" | "musket-rifle")
                    });
                let open =
                    own.iter().filter_map(|u| hex_of(state, u)).all(|h| rules.terrain_at(h).is_some_and(|t| t.open));
                let mounted = other.iter().filter_map(|u| rules.counter(u)).any(|c| c.kind == "cavalry");
                all_infantry && open && mounted
            }
            "british-inside-perimeter" => {
                let zone = perimeter_zone(rules);
                let inside = |u: &String| hex_of(state, u).is_some_and(|h| zone.contains(&h));
                own.iter().any(inside) && other.iter().all(|u| !inside(u))
            }
            x => return Some(format!("charts/tactics.yaml: the engine does not know the condition '{x}'")),
        };
        if holds {
            return Some(format!("{} may not be chosen: {} ({})", def.name, f.text, f.source));
        }
    }
    None
}

/// The zone Savannah 4.15 speaks of: the scenario's sortie zone, or the
/// module's zone named by the strategic restriction.
fn perimeter_zone(rules: &Rules) -> BTreeSet<HexId> {
    let id = rules
        .scenario_movement
        .sortie_restriction
        .as_ref()
        .map(|s| s.zone.clone())
        .or_else(|| {
            rules
                .scenario_movement
                .track_switch
                .as_ref()
                .and_then(|t| t.strategic_restriction.as_ref().map(|r| r.may_not_move_adjacent_to.clone()))
        })
        .unwrap_or_else(|| "savannah-defensive-perimeter".into());
    rules.module.map.zone(&id).map(|z| z.hexes.iter().copied().collect()).unwrap_or_default()
}

/// Step 4: the tactics outcome, with 12.54 for illegal chits.
pub fn tactics(rules: &Rules, state: &State, e: &Engagement) -> Result<Tactics> {
    let t = &rules.charts.tactics;
    let bad_a = chit_illegal(rules, state, e, true, &e.attacker_chit);
    let bad_d = chit_illegal(rules, state, e, false, &e.defender_chit);
    let illegal = &t.illegal_chit;
    match (&bad_a, &bad_d) {
        (Some(a), Some(d)) => {
            return Ok(Tactics::Drm(illegal.both_illegal, format!("both chits are illegal ({a}; {d}): 0 (12.54)")))
        }
        (Some(a), None) => {
            return Ok(Tactics::Drm(
                illegal.attacker_illegal,
                format!("the Attacker's chit is illegal ({a}): {:+} (12.54)", illegal.attacker_illegal),
            ))
        }
        (None, Some(d)) => {
            return Ok(Tactics::Drm(
                illegal.defender_illegal,
                format!("the Defender's chit is illegal ({d}): {:+} (12.54)", illegal.defender_illegal),
            ))
        }
        (None, None) => {}
    }
    let cell = t.matrix.rows.get(&e.attacker_chit).and_then(|r| r.get(&e.defender_chit)).ok_or_else(|| {
        Error::refused(format!(
            "charts/tactics.yaml: the matrix has no cell for {} against {}",
            e.attacker_chit, e.defender_chit
        ))
    })?;
    Ok(match cell {
        TacticsCell::Drm(n) => {
            Tactics::Drm(*n, format!("{} against {}: {n:+} (12.23 step 4)", e.attacker_chit, e.defender_chit))
        }
        TacticsCell::Result(word) if word == "nc" => Tactics::NoCombat {
            attacker_withdraws: e.attacker_chit == "withdraw",
            defender_withdraws: e.defender_chit == "withdraw",
            text: format!("{} against {}: no combat (12.23 step 4)", e.attacker_chit, e.defender_chit),
        },
        TacticsCell::Result(word) => {
            return Err(Error::refused(format!(
                "charts/tactics.yaml: the engine does not know the matrix result '{word}'"
            )))
        }
    })
}

/// 12.7: every hex next to each of `hexes` holds a unit of `enemy`'s
/// player, is in its ZOC (not negated by a unit of the other player there)
/// or is prohibited.
fn surrounded(rules: &Rules, state: &State, hexes: &BTreeSet<HexId>, own_player: &str) -> bool {
    if hexes.is_empty() {
        return false;
    }
    let layout = rules.module.map.layout;
    let terrain = crate::systems::gboar::board::terrain::Terrain::new(rules);
    let counters: BTreeMap<&str, &Counter> = rules.module.counters.iter().map(|c| (c.id.as_str(), c)).collect();
    let player_of_army = rules.players_of_armies();
    let zoc = crate::systems::gboar::board::zoc::enemy_zoc(&terrain, state, &counters, &player_of_army, own_player);
    let occupied = occupants(rules, state);
    hexes.iter().all(|h| {
        let around = neighbours(*h, layout);
        around.len() == 6
            && around.iter().all(|n| {
                let here = occupied.get(n).cloned().unwrap_or_default();
                let enemy = here.iter().any(|u| player_of(rules, u) != own_player);
                let friendly = here.iter().any(|u| player_of(rules, u) == own_player);
                let prohibited = terrain
                    .hex(*n)
                    .is_none_or(|i| i.movement_cost == crate::systems::gboar::data::charts::MovementCost::Prohibited);
                enemy || prohibited || (zoc.contains(*n) && !friendly)
            })
    })
}

fn all_militia(rules: &Rules, units: &[String]) -> bool {
    let fighting: Vec<&Counter> =
        units.iter().filter_map(|u| rules.counter(u)).filter(|c| !c.is_leader() && !c.is_artillery()).collect();
    !fighting.is_empty()
        && fighting.iter().all(|c| c.kind == "militia")
        && !fighting.iter().any(|c| c.tags.iter().any(|t| t == "militia-drm-exception"))
}

fn has_regulars(rules: &Rules, units: &[String], groups: &[String]) -> bool {
    units
        .iter()
        .filter_map(|u| rules.counter(u))
        .any(|c| !c.is_leader() && !c.is_artillery() && c.colour_group.as_ref().is_some_and(|g| groups.contains(g)))
}

/// A stacking restriction (module.yaml) pairing two of `units` in one hex.
fn restricted_pair(rules: &Rules, state: &State, units: &[String], restriction: &str) -> bool {
    let Some(r) = rules.stacking.as_ref().and_then(|s| s.restrictions.iter().find(|r| r.id == restriction)) else {
        return false;
    };
    units.iter().enumerate().any(|(i, a)| {
        units.iter().skip(i + 1).any(|b| {
            hex_of(state, a) == hex_of(state, b)
                && match (rules.counter(a), rules.counter(b)) {
                    (Some(x), Some(y)) => r.applies(x, y),
                    _ => false,
                }
        })
    })
}

/// The value of an entry on this turn (a `schedule` by turn, or `value`).
fn entry_value(d: &Drm, turn: u32) -> Option<i32> {
    if let Some(schedule) = &d.schedule {
        return schedule.iter().find(|s| s.turns.contains(i32::try_from(turn).unwrap_or(i32::MAX))).map(|s| s.value);
    }
    d.value
}

/// Step 3: every DRM of the Close Combat DRM Chart that applies, positive
/// for the Attacker. The tactics DRM is not included (see [`tactics`]).
pub fn modifiers(rules: &Rules, state: &State, e: &Engagement) -> Result<Vec<Modifier>> {
    let chart = &rules.charts.close_combat_drms.close_combat_drms;
    let layout = rules.module.map.layout;
    let terrain = crate::systems::gboar::board::terrain::Terrain::new(rules);
    let name = |id: &str| rules.counter(id).map(|c| c.name.clone()).unwrap_or_else(|| id.to_string());
    let att_hexes: BTreeSet<HexId> = e.attackers.iter().filter_map(|u| hex_of(state, u)).collect();
    let def_hexes: BTreeSet<HexId> = e.defenders.iter().filter_map(|u| hex_of(state, u)).collect();
    let attacker_player = e.attackers.first().map(|u| player_of(rules, u)).unwrap_or_default();
    let defender_player = e.defenders.first().map(|u| player_of(rules, u)).unwrap_or_default();
    let lead_hex = hex_of(state, &e.defender_lead);
    let shattered_lead = state.units.get(&e.defender_lead).is_some_and(|u| u.condition == Condition::Shattered);
    // Hexside features between the attacking and defending hexes: the
    // crossing most favourable to the Attacker.
    let mut best_side: Option<(i32, Vec<String>, Vec<String>)> = None;
    for a in &att_hexes {
        for d in &def_hexes {
            if !crate::base::hex::are_adjacent(*a, *d, layout) {
                continue;
            }
            let crossing = terrain.crossing(*a, *d);
            let total: i32 = crossing.iter().map(|c| c.close_combat_drm).sum();
            let names: Vec<String> = crossing
                .iter()
                .filter(|c| c.close_combat_drm != 0)
                .map(|c| format!("{} {:+}", c.name, c.close_combat_drm))
                .collect();
            let ids: Vec<String> = crossing.iter().map(|c| c.id.clone()).collect();
            if best_side.as_ref().is_none_or(|(v, _, _)| total > *v) {
                best_side = Some((total, names, ids));
            }
        }
    }
    let mut out = Vec::new();
    let mut groups_used: BTreeSet<String> = BTreeSet::new();
    for d in &chart.entries {
        if !d.scenarios.is_empty() && !d.scenarios.contains(&state.scenario) {
            continue;
        }
        if !d.sides.is_empty() && !e.attackers.iter().any(|u| d.sides.contains(&side_of(rules, u))) {
            continue;
        }
        let applies: Option<(i32, String)> = match d.id.as_str() {
            "attacker-lead-unit-morale" | "defender-lead-unit-morale" => {
                let lead = if d.id.starts_with("attacker") { &e.attacker_lead } else { &e.defender_lead };
                let c = rules.counter(lead).ok_or_else(|| Error::refused(format!("no counter {lead}")))?;
                let (base, level, level_name) = crate::systems::gboar::board::units::modified_morale(rules, state, c)?;
                let v = d.sign.unwrap_or(1) * (base + level);
                Some((v, format!("lead unit {} morale {base} {level:+} ({level_name})", c.name)))
            }
            "attacker-leader" | "defender-leader" => {
                let lead = if d.id.starts_with("attacker") { &e.attacker_lead } else { &e.defender_lead };
                leader_for(rules, state, lead).map(|l| {
                    let v = d.sign.unwrap_or(1) * l.close_combat_drm.unwrap_or(0);
                    (v, format!("{} in command (14.21)", l.name))
                })
            }
            "tactics" => None,
            "defender-surrounded" => surrounded(rules, state, &def_hexes, &defender_player)
                .then(|| (d.value.unwrap_or(0), "the defenders are surrounded (12.7)".into())),
            "attacker-surrounded" => surrounded(rules, state, &att_hexes, &attacker_player)
                .then(|| (d.value.unwrap_or(0), "the attackers are surrounded (12.7)".into())),
            "defender-hex-terrain" => {
                if shattered_lead {
                    None
                } else {
                    lead_hex
                        .and_then(|h| rules.terrain_at(h))
                        .filter(|t| t.close_combat_drm != 0)
                        .map(|t| (t.close_combat_drm, format!("the defenders' {} hex", t.name)))
                }
            }
            "attack-across-hexside" => {
                if shattered_lead {
                    None
                } else {
                    best_side
                        .as_ref()
                        .filter(|(v, _, _)| *v != 0)
                        .map(|(v, names, _)| (*v, format!("across {}", names.join(", "))))
                }
            }
            "covered-way-defender" => {
                if shattered_lead {
                    None
                } else {
                    lead_hex
                        .and_then(|h| terrain.hex(h))
                        .and_then(|i| i.feature)
                        .and_then(|f| f.close_combat_drm)
                        .filter(|v| *v != 0)
                        .map(|v| (v, "the defenders are on the Covered Way (Savannah 4.9)".into()))
                }
            }
            "weather" => state
                .weather
                .as_deref()
                .and_then(|w| rules.charts.weather.conditions.iter().find(|c| c.id == w))
                .filter(|c| c.close_combat_drm != 0)
                .map(|c| (c.close_combat_drm, format!("{} (Savannah 4.2)", c.name))),
            "attacker-militia-vs-regulars" => (all_militia(rules, &e.attackers)
                && has_regulars(rules, &e.defenders, &chart.regulars.groups))
            .then(|| (d.value.unwrap_or(0), "all-militia attackers against Regulars".into())),
            "defender-militia-vs-regulars" => (all_militia(rules, &e.defenders)
                && has_regulars(rules, &e.attackers, &chart.regulars.groups))
            .then(|| (d.value.unwrap_or(0), "all-militia defenders against Regulars".into())),
            "attacker-rifle-lead-unit" | "defender-rifle-lead-unit" => {
                let lead = if d.id.starts_with("attacker") { &e.attacker_lead } else { &e.defender_lead };
                rules
                    .counter(lead)
                    .filter(|c| c.rifle_mark.as_deref() == Some("white"))
                    .map(|c| (d.value.unwrap_or(0), format!("lead unit {} is a white-R rifle unit", c.name)))
            }
            "cavalry-charge" => {
                let charging = e.attackers.iter().any(|u| {
                    rules.counter(u).is_some_and(|c| c.kind == "cavalry")
                        && state.units.get(u).is_some_and(|s| s.condition == Condition::ParadeOrder)
                });
                let none = !e.defenders.iter().any(|u| rules.counter(u).is_some_and(|c| c.kind == "cavalry"));
                let open = lead_hex.and_then(|h| rules.terrain_at(h)).is_some_and(|t| t.open);
                (charging && none && open).then(|| (d.value.unwrap_or(0), "cavalry charge into open ground".into()))
            }
            "defender-mixed-french-american-stack" => {
                d.applies_to.iter().any(|r| restricted_pair(rules, state, &e.defenders, r)).then(|| {
                    (
                        d.value.unwrap_or(0),
                        format!("the defenders are a stack of {} (Savannah 4.1)", d.applies_to.join(", ")),
                    )
                })
            }
            "attacker-mixed-french-american-stack" | "attacker-french-regulars-with-colonial-militia" => {
                d.applies_to.iter().any(|r| restricted_pair(rules, state, &e.attackers, r)).then(|| {
                    (
                        d.value.unwrap_or(0),
                        format!(
                            "the attackers are a stack of {} forced to attack (Savannah 4.1)",
                            d.applies_to.join(", ")
                        ),
                    )
                })
            }
            "creeks-in-forest" => {
                let alone: Vec<&String> =
                    e.defenders.iter().filter(|u| rules.counter(u).is_some_and(|c| !c.is_leader())).collect();
                let tagged = alone.len() == 1
                    && alone
                        .iter()
                        .all(|u| rules.counter(u).is_some_and(|c| c.tags.iter().any(|t| t == "forest-defence-drm")));
                let forest =
                    lead_hex.and_then(|h| rules.module.map.terrain.get(&h)).is_some_and(|t| d.applies_to.contains(t));
                (tagged && forest)
                    .then(|| (d.value.unwrap_or(0), "the Creeks defend alone in forest (Savannah 4.8)".into()))
            }
            "incomplete-british-defences" => {
                let value = entry_value(d, state.turn).unwrap_or(0);
                let crosses =
                    best_side.as_ref().is_some_and(|(_, _, ids)| ids.iter().any(|i| d.applies_to.contains(i)));
                (value != 0 && crosses).then(|| {
                    (value, format!("the British works are not complete on turn {} (Savannah 4.14)", state.turn))
                })
            }
            "irish-ferocity" => {
                let tagged =
                    rules.counter(&e.attacker_lead).is_some_and(|c| c.tags.iter().any(|t| t == "irish-ferocity"));
                let regulars = has_regulars(rules, &e.defenders, &chart.regulars.british_regulars);
                (tagged && regulars).then(|| {
                    (
                        d.value.unwrap_or(0),
                        format!("{} leads against British Regulars (Savannah 4.16)", name(&e.attacker_lead)),
                    )
                })
            }
            "historical-french-attack" => {
                Some((d.value.unwrap_or(0), "a French attack in the Historical Scenario".into()))
            }
            other => {
                return Err(Error::refused(format!(
                    "charts/close-combat-drms.yaml: the engine does not know the DRM '{other}'"
                )))
            }
        };
        if let Some((value, text)) = applies {
            if value == 0 {
                continue;
            }
            if let Some(g) = &d.group {
                if !groups_used.insert(g.clone()) {
                    continue;
                }
            }
            out.push(Modifier { id: d.id.clone(), value, text });
        }
    }
    Ok(out)
}

/// 12.23 step 2: the lead unit a side must (or may) take: a Parade Order
/// non-artillery unit if there is one; `wanted` if legal; else the
/// default, the best modified morale, then the most SPs, then the lowest id.
pub fn lead_unit(
    rules: &Rules,
    state: &State,
    units: &[String],
    wanted: Option<&str>,
) -> std::result::Result<String, String> {
    let candidates: Vec<&String> =
        units.iter().filter(|u| rules.counter(u).is_some_and(|c| !c.is_leader() && !c.is_artillery())).collect();
    if candidates.is_empty() {
        return Err("no unit but artillery and leaders: there is no lead unit (12.23 step 2)".into());
    }
    let parade: Vec<&String> = candidates
        .iter()
        .copied()
        .filter(|u| state.units.get(*u).is_some_and(|s| s.condition == Condition::ParadeOrder))
        .collect();
    let pool = if parade.is_empty() { candidates.clone() } else { parade };
    if let Some(w) = wanted {
        if pool.iter().any(|u| u.as_str() == w) {
            return Ok(w.to_string());
        }
        return Err(format!(
            "{w} may not lead: the lead unit must be a Parade Order unit when there is one, never artillery (12.23 step 2); it may be {}",
            pool.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
        ));
    }
    let score = |u: &String| {
        let m = rules
            .counter(u)
            .and_then(|c| crate::systems::gboar::board::units::modified_morale(rules, state, c).ok())
            .map(|(b, l, _)| b + l)
            .unwrap_or(i32::MIN);
        (m, strength(rules, state, u))
    };
    let mut best: Vec<&String> = pool;
    best.sort_by(|a, b| score(b).cmp(&score(a)).then_with(|| a.cmp(b)));
    Ok(best.first().map(|s| s.to_string()).unwrap_or_default())
}

/// The events that explain one combat's arithmetic.
pub fn explain(odds: &Odds, mods: &[Modifier], tactics: &Tactics) -> Vec<Event> {
    let mut events = vec![Event::new("12.23", "odds", odds.text.clone())
        .with("attacker_sp", odds.attacker_sp)
        .with("defender_sp", odds.defender_sp)
        .with("column", &odds.column)];
    for m in mods {
        events.push(
            Event::new("12.23", "drm", format!("{:+} {}", m.value, m.text)).with("id", &m.id).with("value", m.value),
        );
    }
    match tactics {
        Tactics::Drm(v, text) => events.push(Event::new("12.23", "tactics", text.clone()).with("value", *v)),
        Tactics::NoCombat { text, .. } => {
            events.push(Event::new("12.23", "tactics", text.clone()).with("no_combat", true))
        }
    }
    events
}

// ---------------------------------------------------------------------------
// The Close Combat Phase: orders and designation (12.12-12.15, 12.21)

use serde::Deserialize;

/// When a side spends a momentum chit to re-roll (12.23 step 6).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct MomentumPolicy {
    /// Re-roll when the side's own results include any of these result ids
    /// (charts/codes.yaml), e.g. `[captured-dc, captured-ac, two-step-loss]`.
    #[serde(default)]
    pub reroll_if: Vec<String>,
    /// At most this many chits in one combat.
    #[serde(default)]
    pub at_most: u32,
}

impl MomentumPolicy {
    pub fn wants(&self, own: &[String]) -> bool {
        own.iter().any(|r| self.reroll_if.contains(r))
    }
}

/// The phasing sides' orders: the attacks, in the order they are resolved
/// (12.23: "in any order that the Attacker chooses").
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttackOrders {
    #[serde(default)]
    pub attacks: Vec<crate::base::yaml::Value>,
    /// 12.14: the defending hex that receives a diversion.
    #[serde(default)]
    pub diversion: Option<String>,
    /// 12.23 step 6: when to spend momentum, for every attack.
    #[serde(default)]
    pub momentum: Option<MomentumPolicy>,
}

/// One attack.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttackOrder {
    /// The attacking units (leaders stacked with them may be listed too).
    pub attackers: Vec<String>,
    /// The defending hexes: every unit in them is attacked (12.15).
    pub defenders: Vec<String>,
    /// 12.23 step 2 (default: the best modified morale, then the most SPs).
    #[serde(default)]
    pub lead: Option<String>,
    /// 12.23 step 4 (default: the first chit of the chart this side may play).
    #[serde(default)]
    pub tactics: Option<String>,
    /// 12.23 step 9: units that advance with the lead unit if the hex is vacated.
    #[serde(default)]
    pub advance: Vec<String>,
    #[serde(default)]
    pub momentum: Option<MomentumPolicy>,
    /// Choices for the results that fall on the attackers: retreat paths,
    /// the unit that takes a 2's second step, the leader of a *, our unit
    /// captured on an AC result (13.1: the Attacker's choice).
    #[serde(default)]
    pub choices: crate::systems::gboar::effects::results::Choices,
    /// 13.1 AC on the defenders: the defending unit we capture.
    #[serde(default)]
    pub capture: Option<String>,
}

/// The non-phasing sides' standing instructions for the other player's
/// Close Combat Phase.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DefenceOrders {
    #[serde(default)]
    pub defence: Defence,
    #[serde(default)]
    pub momentum: Option<MomentumPolicy>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Defence {
    /// The chit for every defending hex without its own.
    #[serde(default)]
    pub tactics: Option<String>,
    #[serde(default)]
    pub hexes: BTreeMap<String, HexDefence>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HexDefence {
    #[serde(default)]
    pub tactics: Option<String>,
    #[serde(default)]
    pub lead: Option<String>,
    /// 12.4: withdraw Parade Order cavalry instead of fighting, when allowed.
    #[serde(default)]
    pub cavalry_withdrawal: bool,
    /// Choices for the results that fall on this hex's defenders (our unit
    /// captured on a DC result is ours to choose, 13.1).
    #[serde(default)]
    pub choices: crate::systems::gboar::effects::results::Choices,
    /// 13.1 DC on the attackers: the attacking unit we capture.
    #[serde(default)]
    pub capture: Option<String>,
}

/// A problem in close combat orders: the side, the field, what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub side: String,
    pub field: String,
    pub message: String,
}

/// A designated attack, checked.
#[derive(Debug, Clone)]
pub struct Designated {
    pub side: String,
    pub field: String,
    pub attackers: Vec<String>,
    pub defenders: Vec<String>,
    pub defending_hexes: Vec<HexId>,
    pub lead: Option<String>,
    pub tactics: Option<String>,
    pub advance: Vec<String>,
    pub momentum: MomentumPolicy,
    pub choices: crate::systems::gboar::effects::results::Choices,
    pub capture: Option<String>,
}

/// The phase's designation, checked: the attacks and the diversion.
#[derive(Debug, Clone, Default)]
pub struct Designation {
    pub attacks: Vec<Designated>,
    pub diversion: Option<HexId>,
    pub defence: BTreeMap<String, DefenceOrders>,
}

/// Why `id` may not be one of the phasing `player`'s attackers in a Close
/// Combat this phase, if it may not: not a unit of the game or of the
/// player, off the map, disrupted or shattered (13.3, 13.4), held back by
/// the scenario's turn restrictions, or carrying a Cavalry Withdrawal
/// marker (12.4). Leaders may be listed with their units.
pub fn attacker_refused(rules: &Rules, state: &State, player: &str, id: &str) -> Option<String> {
    let Some(c) = rules.counter(id).filter(|_| state.units.contains_key(id)) else {
        return Some(format!("there is no unit '{}' in this game", crate::base::error::echo(id)));
    };
    // An alliance's sides may designate attacks together (a combined
    // attack, where 4.13 allows it): any unit of the phasing player, never
    // the enemy's.
    if player_of(rules, id) != player {
        return Some(format!("{id} is an enemy unit: the {player} player attacks with its own units"));
    }
    let Some(u) = state.units.get(id).filter(|u| u.hex.is_some()) else {
        return Some(format!("{id} is not on the map"));
    };
    if !c.is_leader() && u.condition != Condition::ParadeOrder {
        return Some(
            format!("{id} is {:?}: disrupted and shattered units may not attack (13.3, 13.4)", u.condition)
                .to_lowercase(),
        );
    }
    if !c.is_leader() && may_not_attack(rules, state, id) {
        return Some(format!("{id} may not attack in Close Combat this turn (the scenario's turn restrictions)"));
    }
    if u.cavalry_withdrawn {
        return Some(format!("{id} carries a Cavalry Withdrawal marker: it may not attack (12.4)"));
    }
    None
}

/// Savannah 4.13 (module.yaml `close_combat.cooperation`): whether two
/// units may take part in one attack.
fn cooperate(rules: &Rules, x: &str, y: &str) -> bool {
    let (Some(cx), Some(cy)) = (rules.counter(x), rules.counter(y)) else { return false };
    rules.close_combat.cooperation.iter().all(|r| !r.applies(cx, cy))
}

/// 12.12-12.15, 12.21, Savannah 4.13 and the scenario's turn restrictions:
/// check the attacks of every phasing side (and read the defence orders of
/// the others). Every problem is reported.
pub fn designate(
    rules: &Rules,
    state: &State,
    player: &str,
    orders: &BTreeMap<String, crate::base::yaml::Value>,
    whole_phase: bool,
) -> (Designation, Vec<Problem>) {
    let layout = rules.module.map.layout;
    let mut d = Designation::default();
    let occupancy = Occupancy::new(rules, state);
    let mut problems = Vec::new();
    let mut bad =
        |side: &str, field: String, message: String| problems.push(Problem { side: side.into(), field, message });
    let phasing = rules.sequence.sides_of(player);
    let mut used: BTreeMap<String, String> = BTreeMap::new();
    let mut attacked_hexes: BTreeMap<HexId, String> = BTreeMap::new();
    for (side, body) in orders {
        if !phasing.contains(side) {
            match serde_path_to_error::deserialize::<_, DefenceOrders>(body.clone()) {
                Ok(o) => {
                    for (hex, h) in &o.defence.hexes {
                        if hex.parse::<HexId>().is_err() {
                            bad(
                                side,
                                format!("defence.hexes.{hex}"),
                                format!(
                                    "'{}' is not a hex id; write hex ids as quoted strings of four digits",
                                    crate::base::error::echo(hex)
                                ),
                            );
                        }
                        if let Some(t) = &h.tactics {
                            if rules.charts.tactics.chits.iter().all(|c| &c.id != t) {
                                bad(
                                    side,
                                    format!("defence.hexes.{hex}.tactics"),
                                    format!("'{}' is not a tactics chit", crate::base::error::echo(t)),
                                );
                            }
                        }
                    }
                    d.defence.insert(side.clone(), o);
                }
                Err(e) => bad(
                    side,
                    e.path().to_string(),
                    format!(
                        "{} (defence orders are `defence:` and `momentum:`)",
                        crate::base::error::echo_serde(e.inner())
                    ),
                ),
            }
            continue;
        }
        let parsed: AttackOrders = match serde_path_to_error::deserialize(body.clone()) {
            Ok(o) => o,
            Err(e) => {
                bad(
                    side,
                    e.path().to_string(),
                    format!(
                        "{} (close combat orders are `attacks:`, `diversion:` and `momentum:`)",
                        crate::base::error::echo_serde(e.inner())
                    ),
                );
                continue;
            }
        };
        if let Some(h) = &parsed.diversion {
            match h.parse::<HexId>() {
                Ok(hex) if d.diversion.is_some() && d.diversion != Some(hex) => {
                    bad(side, "diversion".into(), "only one stack receives a diversion in a phase (12.14)".into())
                }
                Ok(hex) => d.diversion = Some(hex),
                Err(e) => bad(side, "diversion".into(), e.to_string()),
            }
        }
        for (i, value) in parsed.attacks.iter().enumerate() {
            let field = format!("attacks[{i}]");
            let a: AttackOrder = match serde_path_to_error::deserialize(value.clone()) {
                Ok(a) => a,
                Err(e) => {
                    bad(
                        side,
                        format!("{field}.{}", e.path()),
                        format!(
                            "{} (an attack has attackers, defenders, and may have lead, tactics, advance, momentum)",
                            crate::base::error::echo_serde(e.inner())
                        ),
                    );
                    continue;
                }
            };
            let mut ok = true;
            let mut attackers = Vec::new();
            for (k, id) in a.attackers.iter().enumerate() {
                let at = format!("{field}.attackers[{k}]");
                if let Some(message) = attacker_refused(rules, state, player, id) {
                    bad(side, at, message);
                    ok = false;
                    continue;
                }
                if let Some(other) = used.insert(id.clone(), field.clone()) {
                    bad(
                        side,
                        at,
                        format!("{id} is already in {other}: each unit is in one Close Combat per player turn (12.15)"),
                    );
                    ok = false;
                    continue;
                }
                attackers.push(id.clone());
            }
            let mut hexes = Vec::new();
            for (k, h) in a.defenders.iter().enumerate() {
                let at = format!("{field}.defenders[{k}]");
                let Ok(hex) = h.parse::<HexId>() else {
                    bad(side, at, format!("'{}' is not a hex id: defenders are the hexes attacked, as quoted strings of four digits (all units in a hex are attacked together, 12.15)", crate::base::error::echo(h)));
                    ok = false;
                    continue;
                };
                let units = combat_units_at(rules, state, hex);
                if units.is_empty() || units.iter().any(|u| player_of(rules, u) == player) {
                    bad(side, at, format!("{hex} holds no enemy combat unit"));
                    ok = false;
                    continue;
                }
                if let Some(other) = attacked_hexes.insert(hex, field.clone()) {
                    bad(side, at, format!("{hex} is already attacked in {other}: all the units of a hex are attacked in one Close Combat (12.15)"));
                    ok = false;
                    continue;
                }
                if d.diversion == Some(hex) {
                    bad(side, at, format!("{hex} receives the diversion: its units are not attacked (12.14)"));
                    ok = false;
                    continue;
                }
                hexes.push(hex);
            }
            if !ok || attackers.is_empty() || hexes.is_empty() {
                if ok {
                    bad(side, field.clone(), "an attack needs attackers and defending hexes (12.21)".into());
                }
                continue;
            }
            // 12.23 step 2, 12.3: artillery SPs never count and artillery
            // may not lead, so an attack needs a unit that is neither.
            if attackers.iter().all(|u| rules.counter(u).is_none_or(|c| c.is_leader() || c.is_artillery())) {
                bad(
                    side,
                    format!("{field}.attackers"),
                    "an attack needs a combat unit that is not artillery: artillery SPs never count in Close Combat \
                     and artillery may not be the lead unit (12.3, 12.23 step 2)"
                        .into(),
                );
                continue;
            }
            let attacking_hexes: BTreeSet<HexId> = attackers.iter().filter_map(|u| hex_of(state, u)).collect();
            if attacking_hexes.len() > 1 && hexes.len() > 1 {
                bad(
                    side,
                    field.clone(),
                    "each Close Combat involves one attacking hex or one defending hex (12.15)".into(),
                );
                continue;
            }
            for id in &attackers {
                let Some(h) = hex_of(state, id) else { continue };
                if rules.counter(id).is_some_and(|c| c.is_leader()) {
                    continue;
                }
                if !hexes.iter().any(|d| crate::base::hex::are_adjacent(h, *d, layout)) {
                    bad(side, field.clone(), format!("{id} in {h} is next to none of the defending hexes"));
                }
            }
            for d in &hexes {
                if !attacking_hexes.iter().any(|h| crate::base::hex::are_adjacent(*h, *d, layout)) {
                    bad(side, field.clone(), format!("{d} is next to none of the attackers"));
                }
            }
            // Savannah 4.13 (module.yaml close_combat.cooperation).
            for r in &rules.close_combat.cooperation {
                let fighting: Vec<&String> =
                    attackers.iter().filter(|u| rules.counter(u).is_some_and(|c| !c.is_leader())).collect();
                for (n, x) in fighting.iter().enumerate() {
                    for y in fighting.iter().skip(n + 1) {
                        if let (Some(cx), Some(cy)) = (rules.counter(x), rules.counter(y)) {
                            if r.applies(cx, cy) {
                                bad(
                                    side,
                                    field.clone(),
                                    format!(
                                        "{x} and {y} may not combine in one attack ({}, {})",
                                        r.id,
                                        r.rule.clone().unwrap_or_default()
                                    ),
                                );
                            }
                        }
                    }
                }
            }
            // Savannah 4.1 (module.yaml stacking.restrictions
            // `stacked_may_attack_voluntarily: false`): the units of such a
            // stack attack only where 12.12 requires them to.
            for id in &attackers {
                if rules.counter(id).is_none_or(|c| c.is_leader()) || must_attack_in(rules, state, id, Some(&occupancy))
                {
                    continue;
                }
                let Some(h) = hex_of(state, id) else { continue };
                if let Some((r, x, y)) =
                    crate::systems::gboar::board::stacking::restricted_stack(rules, state, h, |r| {
                        !r.stacked_may_attack_voluntarily
                    })
                {
                    bad(
                        side,
                        field.clone(),
                        format!(
                            "{id} in {h} is in a stack of {x} and {y}, which {} restricts: its units may not attack voluntarily until they are separated, only where they must attack (12.12) ({})",
                            r.id,
                            r.rule_name()
                        ),
                    );
                }
            }
            let defenders: Vec<String> = hexes
                .iter()
                .flat_map(|h| state.units.keys().filter(|u| hex_of(state, u) == Some(*h)).cloned().collect::<Vec<_>>())
                .collect();
            if let Some(l) = &a.lead {
                if let Err(e) = lead_unit(rules, state, &attackers, Some(l)) {
                    bad(side, format!("{field}.lead"), e);
                }
            }
            if let Some(t) = &a.tactics {
                if rules.charts.tactics.chits.iter().all(|c| &c.id != t) {
                    let known: Vec<&str> = rules.charts.tactics.chits.iter().map(|c| c.id.as_str()).collect();
                    bad(
                        side,
                        format!("{field}.tactics"),
                        format!(
                            "'{}' is not a tactics chit; the chits are {}",
                            crate::base::error::echo(t),
                            known.join(", ")
                        ),
                    );
                }
            }
            for (k, id) in a.advance.iter().enumerate() {
                if !attackers.contains(id) {
                    bad(
                        side,
                        format!("{field}.advance[{k}]"),
                        format!(
                            "{} is not one of this attack's attackers (12.23 step 9)",
                            crate::base::error::echo(id)
                        ),
                    );
                }
            }
            d.attacks.push(Designated {
                side: side.clone(),
                field,
                attackers,
                defenders,
                defending_hexes: hexes,
                lead: a.lead,
                tactics: a.tactics,
                advance: a.advance,
                momentum: a.momentum.or_else(|| parsed.momentum.clone()).unwrap_or_default(),
                choices: a.choices,
                capture: a.capture,
            });
        }
    }
    // 12.12, 12.13: who must attack and who must be attacked; checked for
    // the sides whose orders are here (all of them when resolving).
    let sides_here: BTreeSet<&String> = orders.keys().filter(|s| phasing.contains(s)).collect();
    // The player's units whose side's orders are not here (none when
    // resolving) and that could attack: 12.12 and 12.13 bind the player,
    // not each of its sides, so what such a unit's side could do in its
    // own orders (attack a hex, take a unit into a combined attack) is left
    // to the check of every side's orders together (`validate_step`).
    let elsewhere: Vec<&String> = state
        .units
        .keys()
        .filter(|u| {
            !whole_phase
                && player_of(rules, u) == player
                && !sides_here.contains(&side_of(rules, u))
                && rules.counter(u).is_some_and(|c| !c.is_leader() && !c.is_artillery())
                && attacker_refused(rules, state, player, u).is_none()
        })
        .collect();
    let elsewhere_next_to = |hex: HexId| {
        elsewhere.iter().any(|u| hex_of(state, u).is_some_and(|h| crate::base::hex::are_adjacent(h, hex, layout)))
    };
    let mut ids: Vec<&String> = state.units.keys().collect();
    ids.sort();
    for id in ids {
        let side = side_of(rules, id);
        if player_of(rules, id) != player || !(whole_phase || sides_here.contains(&side)) {
            continue;
        }
        // A unit that may combine with a unit of a side whose orders are
        // not here, next to an enemy hex that unit is next to too, may be
        // in that side's attack (Savannah 4.13's exceptions).
        let combined_elsewhere = || {
            let Some(h) = hex_of(state, id) else { return false };
            enemies_next_to(rules, state, h, player).iter().filter_map(|e| hex_of(state, e)).any(|eh| {
                elsewhere.iter().any(|u| {
                    hex_of(state, u).is_some_and(|uh| crate::base::hex::are_adjacent(uh, eh, layout))
                        && cooperate(rules, id, u)
                })
            })
        };
        // Savannah 4.13, one of the exclusive rules' exceptions 12.12
        // names: a unit every enemy hex next to which is attacked by units
        // it may not combine with (or, while a side's orders are checked
        // alone, is next to such a unit of a side whose orders are not
        // here) has no attack left to join, since 12.15 attacks a hex once.
        let barred = || {
            let Some(h) = hex_of(state, id) else { return false };
            let hexes: BTreeSet<HexId> =
                enemies_next_to(rules, state, h, player).iter().filter_map(|e| hex_of(state, e)).collect();
            !hexes.is_empty()
                && hexes.iter().all(|eh| {
                    d.attacks
                        .iter()
                        .any(|a| a.defending_hexes.contains(eh) && a.attackers.iter().any(|u| !cooperate(rules, id, u)))
                        || elsewhere.iter().any(|u| {
                            hex_of(state, u).is_some_and(|uh| crate::base::hex::are_adjacent(uh, *eh, layout))
                                && !cooperate(rules, id, u)
                        })
                })
        };
        if must_attack_in(rules, state, id, Some(&occupancy))
            && !used.contains_key(id)
            && !combined_elsewhere()
            && !barred()
        {
            let hex = hex_of(state, id).map(|h| h.to_string()).unwrap_or_default();
            let enemies = hex_of(state, id).map(|h| enemies_next_to(rules, state, h, player)).unwrap_or_default();
            bad(
                &side,
                "attacks".into(),
                format!("{id} in {hex} is next to {} and must attack (12.12)", enemies.join(", ")),
            );
        }
    }
    let mut must_be_attacked: BTreeMap<HexId, Vec<String>> = BTreeMap::new();
    for id in state.units.keys() {
        if player_of(rules, id) != player || !must_attack_in(rules, state, id, Some(&occupancy)) {
            continue;
        }
        if !(whole_phase || sides_here.contains(&side_of(rules, id))) {
            continue;
        }
        let Some(h) = hex_of(state, id) else { continue };
        for e in enemies_next_to(rules, state, h, player) {
            if let Some(eh) = hex_of(state, &e) {
                // Once per unit, however many enemy units share the hex.
                let by = must_be_attacked.entry(eh).or_default();
                if !by.contains(id) {
                    by.push(id.clone());
                }
            }
        }
    }
    for (hex, by) in must_be_attacked {
        if attacked_hexes.contains_key(&hex) || d.diversion == Some(hex) || elsewhere_next_to(hex) {
            continue;
        }
        let side = by.first().map(|u| side_of(rules, u)).unwrap_or_default();
        bad(
            &side,
            "attacks".into(),
            format!("{hex} is next to {} and must be attacked, or receive the diversion (12.13, 12.14)", by.join(", ")),
        );
    }
    if let Some(hex) = d.diversion {
        let pinned = combat_units_at(rules, state, hex).iter().any(|u| state.units.get(u).is_some_and(|s| s.pinned));
        if pinned {
            let side = orders.keys().find(|s| phasing.contains(s)).cloned().unwrap_or_default();
            bad(
                &side,
                "diversion".into(),
                format!("{hex} holds pinned units, which may not receive a diversion (13.1 PIN, 12.14)"),
            );
        }
    }
    // Savannah Hist. Turn 16: the named leader must take part in an attack.
    if let Some(r) = turn_restriction(rules, state.turn, "must-attack-with-leader") {
        let leader = r.get("leader").and_then(|v| v.as_str()).unwrap_or_default().to_string();
        if let Some(hex) = hex_of(state, &leader) {
            let side = side_of(rules, &leader);
            let attacking = d.attacks.iter().any(|a| a.attackers.iter().any(|u| hex_of(state, u) == Some(hex)));
            // A unit there that may attack (12.3: not artillery alone; not
            // disrupted, shattered or held back by the turn's restrictions).
            let could = !enemies_next_to(rules, state, hex, player).is_empty()
                && combat_units_at(rules, state, hex).iter().any(|u| {
                    player_of(rules, u) == player
                        && rules.counter(u).is_some_and(|c| !c.is_artillery())
                        && attacker_refused(rules, state, player, u).is_none()
                });
            if (whole_phase || sides_here.contains(&side)) && could && !attacking {
                bad(&side, "attacks".into(), format!("{leader} must take part in a Close Combat attack this turn: the units in his hex {hex} must attack (the scenario's turn restrictions)"));
            }
        }
    }
    (d, problems)
}

// ---------------------------------------------------------------------------
// Steps 5, 6 and 8 with the dice; step 9

/// Steps 5 and 6 with the step's dice: roll, then re-roll while a side's
/// policy spends a chit (the side holding fewer chits decides first, the
/// Defender on a tie). Chits spent go back to the pool (12.62). Returns the
/// final modified roll and the results.
#[allow(clippy::too_many_arguments)]
pub fn roll_with_momentum(
    rules: &Rules,
    state: &mut State,
    column: &str,
    drm: i32,
    players: (&str, &str),
    policies: (&MomentumPolicy, &MomentumPolicy),
    dice: &mut dyn crate::system::Dice,
    events: &mut Vec<Event>,
) -> Result<(i32, Vec<String>, Vec<String>)> {
    let (attacker, defender) = players;
    let die = match rules.charts.close_combat.die {
        crate::systems::gboar::data::charts::Die::D10 => crate::base::dice::Die::D10,
    };
    let (mut a_budget, mut d_budget) = (policies.0.at_most, policies.1.at_most);
    let mut rolls = 0u32;
    loop {
        rolls += 1;
        let roll = i32::from(dice.roll(die, &format!("close combat, {attacker} attacking {defender}"))?);
        let modified = roll.saturating_add(drm);
        let (att, def) = cell(rules, column, modified)?;
        events.push(
            Event::new(
                "12.23",
                "close-combat-roll",
                format!(
                    "{}roll {roll} {drm:+} = {modified} on {column}: attacker {}, defender {}",
                    if rolls > 1 { "re-" } else { "" },
                    att.join(" + "),
                    def.join(" + ")
                ),
            )
            .with("roll", roll)
            .with("modified", modified)
            .with("column", column)
            .with("attacker", &att)
            .with("defender", &def),
        );
        let a_chits = state.momentum.get(attacker).copied().unwrap_or(0);
        let d_chits = state.momentum.get(defender).copied().unwrap_or(0);
        let a_wants = a_chits > 0 && a_budget > 0 && att.iter().any(|r| policies.0.reroll_if.contains(r));
        let d_wants = d_chits > 0 && d_budget > 0 && def.iter().any(|r| policies.1.reroll_if.contains(r));
        let defender_first = d_chits <= a_chits;
        let spender = match (defender_first, d_wants, a_wants) {
            (true, true, _) | (false, true, false) => Some(defender),
            (true, false, true) | (false, _, true) => Some(attacker),
            _ => None,
        };
        let Some(who) = spender else { return Ok((modified, att, def)) };
        if who == attacker {
            a_budget -= 1;
        } else {
            d_budget -= 1;
        }
        if let Some(n) = state.momentum.get_mut(who) {
            *n = n.saturating_sub(1);
        }
        events.push(
            Event::new("12.62", "momentum-spent", format!("{who} spends a momentum chit to re-roll (12.23 step 6)"))
                .with("player", who),
        );
    }
}

/// Step 8 (12.63, 12.65): a chit for the Defender on a final roll at or
/// below the chart's number, for the Attacker at or above its other one;
/// from the pool, or else the opponent returns one.
pub fn gain_momentum(rules: &Rules, state: &mut State, final_roll: i32, players: (&str, &str)) -> Vec<Event> {
    let table = &rules.charts.close_combat.close_combat_table.momentum;
    let (gainer, other) = if final_roll <= table.defender_gains_at_most {
        (players.1, players.0)
    } else if final_roll >= table.attacker_gains_at_least {
        (players.0, players.1)
    } else {
        return Vec::new();
    };
    let pool = momentum_pool_size(rules);
    if state.momentum_pool(pool) > 0 {
        *state.momentum.entry(gainer.to_string()).or_default() += 1;
        vec![Event::new(
            "12.63",
            "momentum-gained",
            format!("{gainer} gains a momentum chit (final roll {final_roll}, 12.63)"),
        )
        .with("player", gainer)]
    } else if state.momentum.get(other).copied().unwrap_or(0) > 0 {
        if let Some(n) = state.momentum.get_mut(other) {
            *n -= 1;
        }
        vec![Event::new(
            "12.65",
            "momentum-returned",
            format!("the pool is empty: {other} returns a momentum chit instead of {gainer} gaining one (12.65)"),
        )
        .with("player", other)]
    } else {
        vec![Event::new(
            "12.65",
            "momentum-none",
            format!("the pool is empty and {other} holds none: no effect (12.65)"),
        )]
    }
}

/// module.yaml `momentum.pool` (series 12.61).
pub fn momentum_pool_size(rules: &Rules) -> u32 {
    #[derive(Debug, Deserialize)]
    struct M {
        #[serde(default)]
        momentum: Option<P>,
    }
    #[derive(Debug, Deserialize)]
    struct P {
        #[serde(default)]
        pool: u32,
    }
    rules.module.source.parse::<M>("module.yaml").ok().and_then(|(m, _)| m.momentum).map(|p| p.pool).unwrap_or(0)
}

/// Step 9: the Attacker advances into a vacated defending hex: the lead
/// unit must (unless it retreated, cannot enter the hex, or an exclusive
/// rule makes it optional and the orders do not list it), the other units
/// listed in `advance` may, within the stacking limit; artillery never
/// does; a lone enemy leader there is captured (14.32).
pub fn advance(
    rules: &Rules,
    state: &mut State,
    a: &Designated,
    lead: &str,
    start: &BTreeMap<String, Option<HexId>>,
) -> Vec<Event> {
    let layout = rules.module.map.layout;
    let terrain = crate::systems::gboar::board::terrain::Terrain::new(rules);
    let mut events = Vec::new();
    let vacated: Vec<HexId> =
        a.defending_hexes.iter().copied().filter(|h| combat_units_at(rules, state, *h).is_empty()).collect();
    if vacated.is_empty() {
        return events;
    }
    let stayed = |state: &State, u: &str| {
        let now = hex_of(state, u);
        now.is_some() && start.get(u).copied().flatten() == now
    };
    let lead_hex = hex_of(state, lead);
    let Some(target) =
        lead_hex.and_then(|lh| vacated.iter().copied().find(|v| crate::base::hex::are_adjacent(lh, *v, layout)))
    else {
        return events;
    };
    let optional = rules.close_combat.optional_advance.iter().find(|o| {
        rules.army_of(lead).is_some_and(|army| o.armies.iter().any(|x| x == army))
            && lead_hex.is_some_and(|h| rules.module.map.zone(&o.when_leaving).is_some_and(|z| z.hexes.contains(&h)))
            && rules.module.map.zone(&o.when_leaving).is_some_and(|z| !z.hexes.contains(&target))
    });
    let mut movers: Vec<String> = Vec::new();
    let prohibited = terrain
        .hex(target)
        .is_none_or(|i| i.movement_cost == crate::systems::gboar::data::charts::MovementCost::Prohibited);
    if stayed(state, lead) && !prohibited {
        match optional {
            Some(o) if !a.advance.iter().any(|u| u == lead) => events.push(Event::new(
                "12.23",
                "no-advance",
                format!(
                    "{lead} need not advance out of the {} ({}), and its orders do not say to",
                    o.when_leaving, o.rule
                ),
            )),
            _ => movers.push(lead.to_string()),
        }
    }
    let limits = rules.stacking.clone();
    for u in &a.advance {
        if u == lead || movers.contains(u) {
            continue;
        }
        let Some(c) = rules.counter(u) else { continue };
        if c.is_artillery() {
            events.push(Event::new("12.23", "no-advance", format!("{u}: artillery never advances (12.23 step 9)")));
            continue;
        }
        if !stayed(state, u) || !hex_of(state, u).is_some_and(|h| crate::base::hex::are_adjacent(h, target, layout)) {
            continue;
        }
        if let Some(l) = &limits {
            let (mut sps, mut guns) = (0, 0);
            for m in movers.iter().chain(std::iter::once(u)) {
                let (s, g) = rules
                    .counter(m)
                    .map(|c| c.stacking_weight(state.units.get(m).map(|x| x.steps).unwrap_or(1), l.leaders_count))
                    .unwrap_or((0, 0));
                sps += s;
                guns += g;
            }
            if sps > l.max_strength_points || guns > l.max_artillery_units {
                events.push(Event::new(
                    "12.23",
                    "no-advance",
                    format!("{u} stays: advancing would exceed the stacking limit in {target} (12.23 step 9, 7.1)"),
                ));
                continue;
            }
        }
        movers.push(u.clone());
    }
    if movers.is_empty() {
        return events;
    }
    // 14.32: lone enemy leaders in the hex are captured.
    let captured: Vec<String> = state
        .units
        .keys()
        .filter(|x| {
            hex_of(state, x) == Some(target)
                && rules.counter(x).is_some_and(|c| c.is_leader())
                && player_of(rules, x) != player_of(rules, lead)
        })
        .cloned()
        .collect();
    for l in &captured {
        if let Some(s) = state.units.get_mut(l) {
            s.hex = None;
            s.off_map = Some(crate::systems::gboar::board::state::OffMap::Captured);
            s.pinned = false;
            s.pin_result = None;
        }
        events.push(
            Event::new(
                "14.32",
                "leader-captured",
                format!("{l}, alone in {target}, is captured by the advance (14.32)"),
            )
            .with("leader", l)
            .with("hex", target.to_string()),
        );
    }
    // Where each mover stood, for the map's advance arrows.
    let from: BTreeMap<String, String> =
        movers.iter().filter_map(|m| Some((m.clone(), hex_of(state, m)?.to_string()))).collect();
    for m in &movers {
        if let Some(s) = state.units.get_mut(m) {
            s.hex = Some(target.to_string());
        }
    }
    events.push(
        Event::new("12.23", "advance", format!("{} advance into {target} (12.23 step 9)", movers.join(", ")))
            .with("units", &movers)
            .with("hex", target.to_string())
            .with("from", &from),
    );
    events
}

// ---------------------------------------------------------------------------
// The phase

/// 12.4: whether `defenders` may choose Cavalry Withdrawal against
/// `attackers`: all Parade Order cavalry not withdrawn already, and no
/// cavalry among the attackers.
pub fn cavalry_may_withdraw(rules: &Rules, state: &State, defenders: &[String], attackers: &[String]) -> bool {
    let all_cavalry = defenders.iter().all(|u| {
        rules.counter(u).is_some_and(|c| c.kind == "cavalry")
            && state.units.get(u).is_some_and(|s| s.condition == Condition::ParadeOrder && !s.cavalry_withdrawn)
    });
    let attacking_cavalry = attackers.iter().any(|u| rules.counter(u).is_some_and(|c| c.kind == "cavalry"));
    all_cavalry && !attacking_cavalry
}

/// The first chit of the chart a side may legally play (the default).
fn default_chit(rules: &Rules, state: &State, e: &Engagement, attacker: bool) -> String {
    let chits = &rules.charts.tactics.chits;
    chits
        .iter()
        .find(|c| chit_illegal(rules, state, e, attacker, &c.id).is_none())
        .or(chits.first())
        .map(|c| c.id.clone())
        .unwrap_or_default()
}

/// The defence orders for a defending hex: its own, then the side's default.
fn hex_defence<'a>(d: &'a Designation, side: &str, hex: HexId) -> (Option<&'a HexDefence>, Option<&'a DefenceOrders>) {
    let orders = d.defence.get(side);
    let own =
        orders.and_then(|o| o.defence.hexes.iter().find(|(h, _)| h.parse::<HexId>().ok() == Some(hex)).map(|(_, v)| v));
    (own, orders)
}

/// Series 12: the phasing `player`'s Close Combat Phase. Orders are checked
/// whole first (nothing happens if any is wrong); then 12.22 removes every
/// pin, the attacks are resolved in the order given (12.23), and 13.3, 13.4
/// end the phase.
pub fn resolve_phase(
    rules: &Rules,
    state: &State,
    player: &str,
    orders: &BTreeMap<String, crate::base::yaml::Value>,
    dice: &mut dyn crate::system::Dice,
) -> Result<crate::systems::gboar::board::state::Resolution> {
    let (d, problems) = designate(rules, state, player, orders, true);
    if !problems.is_empty() {
        let lines: Vec<String> = problems.iter().map(|p| format!("  {}: {}: {}", p.side, p.field, p.message)).collect();
        return Err(Error::refused(format!(
            "close combat orders refused ({} problem{}), nothing happened:\n{}",
            lines.len(),
            if lines.len() == 1 { "" } else { "s" },
            lines.join("\n")
        )));
    }
    let mut next = state.clone();
    let mut events = Vec::new();
    // 12.22: pins come off every unit once the attacks are announced.
    let pinned: Vec<String> = next.units.iter().filter(|(_, u)| u.pinned).map(|(id, _)| id.clone()).collect();
    for id in &pinned {
        if let Some(u) = next.units.get_mut(id) {
            u.pinned = false;
            u.pin_result = None;
        }
    }
    if !pinned.is_empty() {
        events.push(
            Event::new(
                "12.22",
                "pins-removed",
                format!("pins removed after the attacks are announced: {}", pinned.join(", ")),
            )
            .with("units", &pinned),
        );
    }
    if let Some(h) = d.diversion {
        events.push(
            Event::new("12.14", "diversion", format!("{h} receives the diversion: its units are not attacked"))
                .with("hex", h.to_string()),
        );
    }
    let layout = rules.module.map.layout;
    let start: BTreeMap<String, Option<HexId>> = next.units.keys().map(|u| (u.clone(), hex_of(&next, u))).collect();
    for (n, a) in d.attacks.iter().enumerate() {
        let id = format!("{}-{}-close-combat-{}", state.turn, player, n + 1);
        let here = |s: &State, u: &str| hex_of(s, u).is_some() && hex_of(s, u) == start.get(u).copied().flatten();
        let attackers: Vec<String> = a.attackers.iter().filter(|u| here(&next, u)).cloned().collect();
        // Defenders now in the hexes: those that began there, and 13.25's.
        let mut defenders = Vec::new();
        let mut previously = Vec::new();
        for h in &a.defending_hexes {
            for u in next.units.keys() {
                if hex_of(&next, u) != Some(*h) {
                    continue;
                }
                if start.get(u).copied().flatten() == Some(*h) {
                    defenders.push(u.clone());
                } else {
                    previously.push(u.clone());
                }
            }
        }
        let fighting_attackers: Vec<String> =
            attackers.iter().filter(|u| rules.counter(u).is_some_and(|c| !c.is_leader())).cloned().collect();
        let fighting_defenders: Vec<String> =
            defenders.iter().filter(|u| rules.counter(u).is_some_and(|c| !c.is_leader())).cloned().collect();
        if fighting_attackers.is_empty() || fighting_defenders.is_empty() {
            events.push(Event::new(
                "12.23",
                "combat-lapses",
                format!("{}: no attacker or no defender is left in place; the combat does not take place", a.field),
            ));
            continue;
        }
        let attacker_player = player.to_string();
        let defender_player = player_of(rules, &fighting_defenders[0]);
        let defender_side = side_of(rules, &fighting_defenders[0]);
        let by_attacker = rules.army_of(&fighting_attackers[0]).unwrap_or_default().to_string();
        let by_defender = rules.army_of(&fighting_defenders[0]).unwrap_or_default().to_string();
        events.push(
            Event::new(
                "12.23",
                "close-combat",
                format!("{}: {} attack {}", a.field, attackers.join(", "), defenders.join(", ")),
            )
            .with("id", &id)
            .with("attackers", &attackers)
            .with("defenders", &defenders)
            .with("defending_hexes", a.defending_hexes.iter().map(|h| h.to_string()).collect::<Vec<_>>()),
        );
        // 12.3: defenders that are all artillery are captured.
        if fighting_defenders.iter().all(|u| rules.counter(u).is_some_and(|c| c.is_artillery())) {
            let data = crate::systems::gboar::effects::retreat::Data::load(rules)?;
            for u in &fighting_defenders {
                events.extend(crate::systems::gboar::effects::results::capture(
                    rules,
                    &data,
                    &mut next,
                    u,
                    "12.3",
                    &by_attacker,
                )?);
            }
            if let Ok(lead) = lead_unit(rules, &next, &fighting_attackers, a.lead.as_deref()) {
                events.extend(advance(rules, &mut next, a, &lead, &start));
            }
            continue;
        }
        let lead_hex = a.defending_hexes.first().copied();
        let (hex_orders, side_orders) =
            lead_hex.map(|h| hex_defence(&d, &defender_side, h)).unwrap_or((None, d.defence.get(&defender_side)));
        // 12.4: Cavalry Withdrawal.
        let withdraw = hex_orders.is_some_and(|h| h.cavalry_withdrawal);
        let open = withdraw && cavalry_may_withdraw(rules, &next, &fighting_defenders, &fighting_attackers);
        // 12.4, 13.24: each withdrawing unit needs a retreat of three hexes
        // to a hex next to no enemy unit; a withdrawal that cannot be made
        // is not made, and the combat is fought.
        let cut_off: Vec<String> = if open {
            fighting_defenders
                .iter()
                .filter(|u| {
                    crate::systems::gboar::effects::retreat::legal_retreats(
                        rules,
                        &next,
                        u,
                        crate::systems::gboar::effects::retreat::Distance::CavalryWithdrawal,
                    )
                    .map_or(true, |routes| routes.is_empty())
                })
                .cloned()
                .collect()
        } else {
            Vec::new()
        };
        if open && cut_off.is_empty() {
            for u in &fighting_defenders {
                if next.units.get(u).is_some_and(|s| s.pinned) {
                    let why = format!("{u}, pinned, chooses Cavalry Withdrawal");
                    let army = rules.army_of(u).unwrap_or_default().to_string();
                    events.extend(crate::systems::gboar::effects::morale::apply(
                        rules,
                        &mut next,
                        "pinned-cavalry-withdrawal",
                        &army,
                        &[],
                        1,
                        ("12.4", &why),
                    )?);
                }
                let order = crate::systems::gboar::effects::retreat::Order {
                    unit: u,
                    distance: crate::systems::gboar::effects::retreat::Distance::CavalryWithdrawal,
                    rule: "12.4",
                    why: "Cavalry Withdrawal",
                    by: &by_attacker,
                    close_combat: None,
                    army_morale: false,
                };
                let choice = hex_orders.and_then(|h| h.choices.retreats.get(u));
                let (_, ev) = crate::systems::gboar::effects::retreat::retreat(rules, &mut next, &order, choice)?;
                events.extend(ev);
                if let Some(s) = next.units.get_mut(u) {
                    if s.hex.is_some() {
                        s.cavalry_withdrawn = true;
                    }
                }
            }
            if let Ok(lead) = lead_unit(rules, &next, &fighting_attackers, a.lead.as_deref()) {
                events.extend(advance(rules, &mut next, a, &lead, &start));
            }
            continue;
        }
        if open {
            events.push(
                Event::new(
                    "12.4",
                    "no-withdrawal",
                    format!(
                        "Cavalry Withdrawal is not possible: {} has no open retreat of three hexes to a hex next to \
                         no enemy unit (12.4, 13.24); the combat is fought",
                        cut_off.join(", ")
                    ),
                )
                .with("units", &cut_off),
            );
        } else if withdraw {
            events.push(Event::new("12.4", "no-withdrawal", "Cavalry Withdrawal is not open to these defenders (all Parade Order cavalry, no attacking cavalry, not already withdrawn)".to_string()));
        }
        // Steps 1-4.
        let attacker_lead = lead_unit(rules, &next, &fighting_attackers, a.lead.as_deref()).map_err(Error::refused)?;
        let defender_lead = lead_unit(rules, &next, &fighting_defenders, hex_orders.and_then(|h| h.lead.as_deref()))
            .unwrap_or_else(|_| fighting_defenders[0].clone());
        let diversion_shift = d.diversion.map_or(0, |h| {
            u32::from(
                attackers
                    .iter()
                    .any(|u| hex_of(&next, u).is_some_and(|x| crate::base::hex::are_adjacent(x, h, layout))),
            )
        });
        let mut e = Engagement {
            attackers: attackers.clone(),
            defenders: defenders.clone(),
            attacker_lead: attacker_lead.clone(),
            defender_lead: defender_lead.clone(),
            attacker_chit: String::new(),
            defender_chit: String::new(),
            diversion_shift,
        };
        e.attacker_chit = a.tactics.clone().unwrap_or_else(|| default_chit(rules, &next, &e, true));
        e.defender_chit = hex_orders
            .and_then(|h| h.tactics.clone())
            .or_else(|| side_orders.and_then(|o| o.defence.tactics.clone()))
            .unwrap_or_else(|| default_chit(rules, &next, &e, false));
        let a_sp: i32 = fighting_attackers.iter().map(|u| strength(rules, &next, u)).sum();
        let d_sp: i32 = fighting_defenders.iter().map(|u| strength(rules, &next, u)).sum();
        let odds = odds(rules, a_sp, d_sp, diversion_shift);
        let mods = modifiers(rules, &next, &e)?;
        let tactics_outcome = tactics(rules, &next, &e)?;
        events.push(
            Event::new(
                "12.23",
                "lead-units",
                format!(
                    "lead units: {attacker_lead} and {defender_lead}; tactics: {} against {}",
                    e.attacker_chit, e.defender_chit
                ),
            )
            .with("attacker_lead", &attacker_lead)
            .with("defender_lead", &defender_lead)
            .with("attacker_chit", &e.attacker_chit)
            .with("defender_chit", &e.defender_chit),
        );
        events.extend(explain(&odds, &mods, &tactics_outcome));
        let morale_at_start = next.army_morale.clone();
        let side_of_units =
            |units: &[String], affected: &str, defender: bool| crate::systems::gboar::effects::results::Side {
                affected: affected.to_string(),
                others: units
                    .iter()
                    .filter(|u| *u != affected && rules.counter(u).is_some_and(|c| !c.is_leader() && !c.is_artillery()))
                    .cloned()
                    .collect(),
                artillery: if defender {
                    units.iter().filter(|u| rules.counter(u).is_some_and(|c| c.is_artillery())).cloned().collect()
                } else {
                    Vec::new()
                },
                previously_retreated: if defender { previously.clone() } else { Vec::new() },
            };
        let combat = crate::systems::gboar::effects::results::Combat {
            id: id.clone(),
            kind: crate::systems::gboar::effects::results::CombatKind::Close,
            attacker: side_of_units(&attackers, &attacker_lead, false),
            defender: side_of_units(&defenders, &defender_lead, true),
            morale_at_start,
        };
        let drm_total: i32 = match &tactics_outcome {
            Tactics::NoCombat { attacker_withdraws, defender_withdraws, .. } => {
                // 12.23 step 4: the side that played Withdraw retreats all its
                // units one hex (never the Attacker's artillery); the Defender first.
                let mut movers: Vec<(String, &str)> = Vec::new();
                if *defender_withdraws {
                    movers.extend(
                        defenders
                            .iter()
                            .filter(|u| rules.counter(u).is_some_and(|c| !c.is_leader()))
                            .map(|u| (u.clone(), by_attacker.as_str())),
                    );
                }
                if *attacker_withdraws {
                    movers.extend(
                        attackers
                            .iter()
                            .filter(|u| rules.counter(u).is_some_and(|c| !c.is_leader() && !c.is_artillery()))
                            .map(|u| (u.clone(), by_defender.as_str())),
                    );
                }
                for (u, by) in movers {
                    let order = crate::systems::gboar::effects::retreat::Order {
                        unit: &u,
                        distance: crate::systems::gboar::effects::retreat::Distance::One,
                        rule: "12.23",
                        why: "Withdraw, no combat",
                        by,
                        close_combat: None,
                        army_morale: false,
                    };
                    let choice =
                        a.choices.retreats.get(&u).or_else(|| hex_orders.and_then(|h| h.choices.retreats.get(&u)));
                    let (_, ev) = crate::systems::gboar::effects::retreat::retreat(rules, &mut next, &order, choice)?;
                    events.extend(ev);
                }
                events.extend(advance(rules, &mut next, a, &attacker_lead, &start));
                continue;
            }
            Tactics::Drm(v, _) => mods.iter().map(|m| m.value).sum::<i32>() + v,
        };
        // Steps 5-6.
        let defence_policy = side_orders.and_then(|o| o.momentum.clone()).unwrap_or_default();
        let (final_roll, att_codes, def_codes) = roll_with_momentum(
            rules,
            &mut next,
            &odds.column,
            drm_total,
            (&attacker_player, &defender_player),
            (&a.momentum, &defence_policy),
            dice,
            &mut events,
        )?;
        // Step 7: the Attacker's choices fall on its own half, the hex's on the Defender's.
        // 13.1: DC is the Defender's choice and AC the Attacker's, on
        // whichever side the result falls.
        let mut attacker_choices = a.choices.clone();
        let mut defender_choices = hex_orders.map(|h| h.choices.clone()).unwrap_or_default();
        if def_codes.iter().any(|c| c == crate::systems::gboar::effects::results::CAPTURED_AC) {
            defender_choices.captured = a.capture.clone();
        }
        if att_codes.iter().any(|c| c == crate::systems::gboar::effects::results::CAPTURED_DC) {
            attacker_choices.captured = hex_orders.and_then(|h| h.capture.clone());
        }
        events.extend(crate::systems::gboar::effects::results::apply_close_combat(
            rules,
            &mut next,
            &combat,
            &att_codes,
            &attacker_choices,
            &def_codes,
            &defender_choices,
            dice,
        )?);
        // Step 8.
        events.extend(gain_momentum(rules, &mut next, final_roll, (&attacker_player, &defender_player)));
        // 10.5: rifle units in a close combat lose their first fire.
        for u in attackers.iter().chain(&defenders) {
            if rules.counter(u).is_some_and(|c| c.kind == "rifle" || c.kind == "musket-rifle") {
                if let Some(s) = next.units.get_mut(u) {
                    s.first_fire_used = true;
                }
            }
        }
        // Step 9.
        events.extend(advance(rules, &mut next, a, &attacker_lead, &start));
    }
    events.extend(crate::systems::gboar::effects::results::end_of_close_combat_phase(rules, &mut next, player, dice)?);
    Ok(crate::systems::gboar::board::state::Resolution { state: next, events })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(section: &str) -> Vec<String> {
        let doc = include_str!("../../../../docs/orders.md");
        let part = doc.split(section).nth(1).unwrap().split("\n## ").next().unwrap();
        part.split("```yaml").skip(1).map(|b| b.split("```").next().unwrap().to_string()).collect()
    }

    /// docs/orders.md's close combat examples use the fields the
    /// engine reads, spelled as it reads them.
    #[test]
    fn the_documented_orders_parse() {
        let cc = blocks("## Close Combat");
        let attack: AttackOrders = crate::base::yaml::from_str(&cc[0]).unwrap();
        let one: AttackOrder = crate::base::yaml::from_value(attack.attacks[0].clone()).unwrap();
        assert_eq!(one.lead.as_deref(), Some("dillon-irish"));
        assert_eq!(one.choices.second_step.as_deref(), Some("armagnac"));
        assert_eq!(attack.diversion.as_deref(), Some("1505"));
        let defence: DefenceOrders = crate::base::yaml::from_str(&cc[1]).unwrap();
        assert_eq!(defence.defence.hexes["1404"].lead.as_deref(), Some("2-bn-fraser"));
        assert_eq!(defence.momentum.unwrap().at_most, 2);
    }
}
