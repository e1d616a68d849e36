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
//!   its SPs rounded up (13.3), a shattered one 1 (13.4), a Lost one as
//!   charts/covered-way.yaml `lost_effects.strength` says (Savannah 4.9:
//!   half, rounded up).
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
//!
//! This file holds the arithmetic of one combat (steps 1 to 4);
//! `designate.rs` the phase's orders and their designation, `momentum.rs`
//! the dice of steps 5, 6 and 8 and the advance (step 9), `resolve.rs` the
//! phase resolved.

mod designate;
mod momentum;
mod resolve;

pub use designate::*;
pub use momentum::*;
pub use resolve::*;

use std::collections::{BTreeMap, BTreeSet};

use crate::base::error::{Error, Result};
use crate::base::hex::{neighbours, HexId};
use crate::system::Event;
use crate::systems::gboar::board::refusals::{self, Code, Refusal};
use crate::systems::gboar::board::state::{Condition, State};
use crate::systems::gboar::board::units::{
    combat_units_at, enemies_next_to, hex_of, may_not_attack, must_attack_in, perimeter_closed, player_of, side_of,
    turn_restriction, unit_hex, Occupancy,
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
    /// 12.54: a chit played without meeting its requirements; the
    /// modifier replaces the matrix's.
    Illegal(i32, String),
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
    // Savannah 4.9: "They attack and defend at half strength (round up
    // fractions)" (charts/covered-way.yaml `lost_effects.strength`).
    if u.lost {
        rules.charts.covered_way.lost_effects.strength.apply(sps)
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

/// 14.21 and the Leader Function matrix (14.2): the Close Combat DRM of a
/// leader in command "applies to all CCs fought by units in the leader's
/// hex" — adjacent "No, unless the leader's hex is involved in the same
/// CC". So the leader is sought in every hex of the side's combat units in
/// this combat, not only the lead unit's; where several hexes have one, the
/// one 14.1 would put in command of them all (highest rank, then
/// seniority) gives the DRM, for the lead unit's army. Savannah 4.18: a
/// leader who may command only some units (Huger: militia and artillery)
/// is in command in this combat only if a unit of it in his hex is one of
/// them.
fn leader_for<'a>(rules: &'a Rules, state: &State, units: &[String], lead: &str) -> Option<&'a Counter> {
    let army = rules.army_of(lead)?;
    let fighting: Vec<(HexId, &Counter)> = units
        .iter()
        .chain(std::iter::once(&lead.to_string()))
        .filter_map(|u| Some((hex_of(state, u)?, rules.counter(u)?)))
        .filter(|(_, c)| !c.is_leader())
        .collect();
    let hexes: BTreeSet<HexId> = fighting.iter().map(|(h, _)| *h).collect();
    let hexes: Vec<HexId> = hexes.into_iter().collect();
    crate::systems::gboar::board::units::senior_leader_where(rules, state, &hexes, army, |l| {
        let at = hex_of(state, &l.id);
        fighting.iter().any(|(h, c)| Some(*h) == at && rules.may_command(l, c))
    })
}

/// 12.52, 12.53: a leader stacked with or next to one of the units, who may
/// command it (12.52: "See Exclusive Rules for leader restrictions";
/// Savannah 4.18 "Leader Stacking": a leader commands his own army's units,
/// Huger only militia and artillery).
fn leader_near(rules: &Rules, state: &State, units: &[String]) -> bool {
    let layout = rules.module.map.layout;
    let near: Vec<(HexId, &Counter)> =
        units.iter().filter_map(|u| Some((hex_of(state, u)?, rules.counter(u)?))).collect();
    state.units.keys().filter_map(|id| rules.counter(id)).filter(|l| l.is_leader()).any(|l| {
        hex_of(state, &l.id).is_some_and(|h| {
            near.iter()
                .any(|(x, c)| (*x == h || crate::base::hex::are_adjacent(*x, h, layout)) && rules.may_command(l, c))
        })
    })
}

/// Savannah 4.18: a demi-leader (counter `demi_leader`) counts as a leader
/// for the play of tactics chits "for himself and" the units stacked with
/// him that `applies_to` names (`stacked-own-army-cavalry`: "any American
/// cavalry with whom he is stacked" for Pulaski; `stacked-friendly-units`
/// for Tawes), only in `only_in_hex` when it gives one; `lost_when`
/// `stacked-with-other-units`: not when any other combat unit is stacked
/// with him; `multi-hex-attack`: not when his side attacks from more than
/// one hex. Unlike a leader he reaches no adjacent unit.
fn demi_leader_near(rules: &Rules, state: &State, units: &[String], attacker: bool) -> bool {
    let attacking_hexes: BTreeSet<HexId> = units.iter().filter_map(|u| hex_of(state, u)).collect();
    let player = units.first().map(|u| player_of(rules, u)).unwrap_or_default();
    state.units.keys().filter_map(|id| rules.counter(id)).any(|d| {
        let Some(demi) = &d.demi_leader else { return false };
        let Some(hex) = hex_of(state, &d.id) else { return false };
        if player_of(rules, &d.id) != player || state.units.get(&d.id).is_some_and(|u| u.steps == 0) {
            return false;
        }
        if demi.only_in_hex.as_deref().is_some_and(|h| h.parse::<HexId>().ok() != Some(hex)) {
            return false;
        }
        let lost = |why: &str| demi.lost_when.iter().any(|w| w == why);
        if lost("multi-hex-attack") && attacker && attacking_hexes.len() > 1 {
            return false;
        }
        let applies = |c: &Counter| {
            demi.applies_to.iter().any(|a| match a.as_str() {
                "self" => c.id == d.id,
                "stacked-own-army-cavalry" => c.army == d.army && c.kind == "cavalry",
                "stacked-friendly-units" => player_of(rules, &c.id) == player,
                _ => false,
            })
        };
        let stacked: Vec<&Counter> = combat_units_at(rules, state, hex)
            .iter()
            .filter_map(|u| rules.counter(u))
            .filter(|c| c.id != d.id && player_of(rules, &c.id) == player)
            .collect();
        if lost("stacked-with-other-units") && stacked.iter().any(|c| !applies(c)) {
            return false;
        }
        units
            .iter()
            .filter_map(|u| rules.counter(u))
            .any(|c| (c.id == d.id && applies(c)) || (c.id != d.id && hex_of(state, &c.id) == Some(hex) && applies(c)))
    })
}

/// 12.52: an empty hex next to both a defending and an attacking hex, that
/// is not prohibited terrain (the note on flanks).
fn open_flank(rules: &Rules, state: &State, e: &Engagement) -> bool {
    let layout = rules.module.map.layout;
    let att: BTreeSet<HexId> = e.attackers.iter().filter_map(|u| hex_of(state, u)).collect();
    let def: BTreeSet<HexId> = e.defenders.iter().filter_map(|u| hex_of(state, u)).collect();
    // The hexes next to both sides: among the six around each attacking
    // hex (a hex next to one is one of its six), not the whole map's.
    let mut both: BTreeSet<HexId> = BTreeSet::new();
    for a in &att {
        for h in crate::base::hex::around(*a, layout) {
            if def.iter().any(|d| crate::base::hex::are_adjacent(*d, h, layout)) {
                both.insert(h);
            }
        }
    }
    // Of those, a hex of the map, holding no unit, not prohibited terrain.
    both.retain(|h| rules.module.map.terrain.contains_key(h));
    if both.is_empty() {
        return false;
    }
    for (id, unit) in &state.units {
        if let (Some(h), Some(_)) = (unit_hex(unit), rules.counter(id)) {
            both.remove(&h);
        }
    }
    let terrain = crate::systems::gboar::board::terrain::Terrain::of(rules, state);
    both.iter().any(|h| {
        terrain
            .hex(*h)
            .is_some_and(|i| i.movement_cost != crate::systems::gboar::data::charts::MovementCost::Prohibited)
    })
}

/// 12.52: why a side may not choose `chit` in this combat, if it may not.
pub fn chit_illegal(rules: &Rules, state: &State, e: &Engagement, attacker: bool, chit: &str) -> Option<String> {
    ChitChecks::new(rules, state, e, attacker).illegal(chit)
}

/// 12.52's checks of the chits one side of one combat may choose: what
/// the chits' requirements and conditions ask of the board (a leader near,
/// an open flank, the perimeter's hexes) worked out once for every chit
/// asked of, not once a chit (the eight of `adjutant template`'s list).
pub struct ChitChecks<'a> {
    rules: &'a Rules,
    state: &'a State,
    e: &'a Engagement,
    attacker: bool,
    leader: std::cell::OnceCell<bool>,
    open_flank: std::cell::OnceCell<bool>,
    perimeter: std::cell::OnceCell<BTreeSet<HexId>>,
}

impl<'a> ChitChecks<'a> {
    pub fn new(rules: &'a Rules, state: &'a State, e: &'a Engagement, attacker: bool) -> ChitChecks<'a> {
        ChitChecks {
            rules,
            state,
            e,
            attacker,
            leader: Default::default(),
            open_flank: Default::default(),
            perimeter: Default::default(),
        }
    }

    /// [`chit_illegal`] of `chit`.
    pub fn illegal(&self, chit: &str) -> Option<String> {
        let (rules, state, e, attacker) = (self.rules, self.state, self.e, self.attacker);
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
                "leader" => *self
                    .leader
                    .get_or_init(|| leader_near(rules, state, own) || demi_leader_near(rules, state, own, attacker)),
                "open-flank" => *self.open_flank.get_or_init(|| open_flank(rules, state, e)),
                other => {
                    return Some(format!("charts/tactics.yaml: the engine does not know the requirement '{other}'"))
                }
            };
            if !ok {
                let why = if need == "leader" {
                    "no leader who may command one of its units is stacked with or next to it (12.52, 12.53; Savannah 4.18)"
                } else {
                    "there is no empty hex next to both sides' units (12.52)"
                };
                return Some(format!("{} needs {need}: {why}", def.name));
            }
        }
        for f in &def.forbidden_when {
            if !f.sides.is_empty() && !own.iter().any(|u| f.sides.iter().any(|s| s == side_of(rules, u))) {
                continue;
            }
            let holds = match f.id.as_str() {
                "infantry-in-open-vs-mounted" => {
                    let all_infantry = own
                        .iter()
                        .filter_map(|u| rules.counter(u))
                        .filter(|c| !c.is_leader() && !c.is_artillery())
                        .all(|c| {
                            matches!(
                                c.kind.as_str(),
                                "infantry" | "light-infantry" | "militia" | "rifle" | "musket-rifle"
                            )
                        });
                    let open = own
                        .iter()
                        .filter_map(|u| hex_of(state, u))
                        .all(|h| rules.terrain_at(h).is_some_and(|t| t.open));
                    let mounted = other.iter().filter_map(|u| rules.counter(u)).any(|c| c.kind == "cavalry");
                    all_infantry && open && mounted
                }
                "british-inside-perimeter" => {
                    let zone = self.perimeter.get_or_init(|| perimeter_zone(rules));
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
}

/// Savannah 1.7: "Attacking the Savannah Defensive Perimeter is defined as
/// moving Allied combat units adjacent to any hexside constituting the
/// Savannah Defensive Perimeter": on the Strategic Turn Track, whether an
/// advance after combat (12.23 step 9) of unit `id` into `hex` would so
/// attack it (the hex in or next to the zone, as a move's check reads
/// it); the zone if so.
pub fn advance_attacks_perimeter(rules: &Rules, state: &State, id: &str, hex: HexId) -> Option<String> {
    let c = rules.counter(id).filter(|c| !c.is_leader())?;
    let (_, r) = crate::systems::gboar::board::units::strategic_restriction(rules, state.turn, &c.army)?;
    let zone = rules.module.map.zone(&r.may_not_move_adjacent_to)?;
    let layout = rules.module.map.layout;
    let next_to = zone.hexes.contains(&hex) || neighbours(hex, layout).into_iter().any(|n| zone.hexes.contains(&n));
    next_to.then(|| zone.id.clone())
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
            return Ok(Tactics::Illegal(illegal.both_illegal, format!("both chits are illegal ({a}; {d}): 0 (12.54)")))
        }
        (Some(a), None) => {
            return Ok(Tactics::Illegal(
                illegal.attacker_illegal,
                format!("the Attacker's chit is illegal ({a}): {:+} (12.54)", illegal.attacker_illegal),
            ))
        }
        (None, Some(d)) => {
            return Ok(Tactics::Illegal(
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
/// player, is in its ZOC (not negated by a combat unit of the other player
/// there: 8.2; a lone leader negates nothing) or is prohibited.
fn surrounded(rules: &Rules, state: &State, hexes: &BTreeSet<HexId>, own_player: &str) -> bool {
    if hexes.is_empty() {
        return false;
    }
    let layout = rules.module.map.layout;
    let terrain = crate::systems::gboar::board::terrain::Terrain::of(rules, state);
    let player_of_army = rules.players_of_armies();
    // The ZOC is asked about in the hexes around `hexes` only.
    let around: BTreeSet<HexId> = hexes.iter().flat_map(|h| neighbours(*h, layout)).collect();
    let zoc =
        crate::systems::gboar::board::zoc::enemy_zoc_in(rules, &terrain, state, &player_of_army, own_player, |n| {
            around.contains(&n)
        });
    // The units (those with a counter) in those hexes alone.
    let mut occupied: BTreeMap<HexId, Vec<&str>> = BTreeMap::new();
    for (id, unit) in &state.units {
        if let Some(h) = unit_hex(unit) {
            if around.contains(&h) && rules.counter(id).is_some() {
                occupied.entry(h).or_default().push(id.as_str());
            }
        }
    }
    hexes.iter().all(|h| {
        let around = neighbours(*h, layout);
        around.len() == 6
            && around.iter().all(|n| {
                let here: &[&str] = occupied.get(n).map_or(&[], Vec::as_slice);
                let enemy = here.iter().any(|u| player_of(rules, u) != own_player);
                // 8.2: "A combat unit negates an enemy ZOC in its hex" for
                // 12.7; a leader is not a combat unit (3.2).
                let friendly = here
                    .iter()
                    .any(|u| player_of(rules, u) == own_player && rules.counter(u).is_some_and(|c| !c.is_leader()));
                let prohibited = terrain
                    .hex(*n)
                    .is_none_or(|i| i.movement_cost == crate::systems::gboar::data::charts::MovementCost::Prohibited);
                enemy || prohibited || (zoc.contains(*n) && !friendly)
            })
    })
}

/// 12.23 step 3: an all-militia force. Leaders are not combat units; the
/// Attacker's artillery takes no part in his attack (13.1), but "Militia
/// defending with non-militia artillery would not be considered an
/// all-militia force even though the artillery does not participate in
/// Close Combat nor serve as the lead unit" (12.23 step 3, NOTE): the
/// Defender's artillery counts unless it is militia artillery (tag
/// `militia-artillery`, docs/module-format/counters.md).
fn all_militia(rules: &Rules, units: &[String], defending: bool) -> bool {
    let combat: Vec<&Counter> = units.iter().filter_map(|u| rules.counter(u)).filter(|c| !c.is_leader()).collect();
    let fighting: Vec<&&Counter> = combat.iter().filter(|c| !c.is_artillery()).collect();
    let artillery_is_militia = !defending
        || combat.iter().filter(|c| c.is_artillery()).all(|c| c.tags.iter().any(|t| t == "militia-artillery"));
    !fighting.is_empty()
        && artillery_is_militia
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
    let terrain = crate::systems::gboar::board::terrain::Terrain::of(rules, state);
    let name = |id: &str| rules.counter(id).map(|c| c.name.clone()).unwrap_or_else(|| id.to_string());
    let att_hexes: BTreeSet<HexId> = e.attackers.iter().filter_map(|u| hex_of(state, u)).collect();
    let def_hexes: BTreeSet<HexId> = e.defenders.iter().filter_map(|u| hex_of(state, u)).collect();
    let attacker_player = e.attackers.first().map(|u| player_of(rules, u)).unwrap_or_default();
    let defender_player = e.defenders.first().map(|u| player_of(rules, u)).unwrap_or_default();
    let lead_hex = hex_of(state, &e.defender_lead);
    let shattered_lead = state.units.get(&e.defender_lead).is_some_and(|u| u.condition == Condition::Shattered);
    // Hexside features between the attacking and defending hexes: the
    // crossing most favourable to the Attacker.
    // Its total DRM and words, with the ids of its features, and of those
    // not breached (Savannah 4.14 reads only these).
    type Crossing = (i32, Vec<String>, Vec<String>, Vec<String>);
    let mut best_side: Option<Crossing> = None;
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
            let intact: Vec<String> = crossing.iter().filter(|c| !c.breached).map(|c| c.id.clone()).collect();
            if best_side.as_ref().is_none_or(|(v, _, _, _)| total > *v) {
                best_side = Some((total, names, ids, intact));
            }
        }
    }
    let mut out = Vec::new();
    let mut groups_used: BTreeSet<String> = BTreeSet::new();
    for d in &chart.entries {
        if !d.scenarios.is_empty() && !d.scenarios.contains(&state.scenario) {
            continue;
        }
        if !d.sides.is_empty() && !e.attackers.iter().any(|u| d.sides.iter().any(|s| s == side_of(rules, u))) {
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
                let (lead, units) = if d.id.starts_with("attacker") {
                    (&e.attacker_lead, &e.attackers)
                } else {
                    (&e.defender_lead, &e.defenders)
                };
                leader_for(rules, state, units, lead).map(|l| {
                    let v = d.sign.unwrap_or(1) * l.close_combat_drm.unwrap_or(0);
                    (v, format!("{} in command (14.21)", l.name))
                })
            }
            "tactics" => None,
            "defender-surrounded" => surrounded(rules, state, &def_hexes, defender_player)
                .then(|| (d.value.unwrap_or(0), "the defenders are surrounded (12.7)".into())),
            "attacker-surrounded" => surrounded(rules, state, &att_hexes, attacker_player)
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
                        .filter(|(v, _, _, _)| *v != 0)
                        .map(|(v, names, _, _)| (*v, format!("across {}", names.join(", "))))
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
            "attacker-militia-vs-regulars" => (all_militia(rules, &e.attackers, false)
                && has_regulars(rules, &e.defenders, &chart.regulars.groups))
            .then(|| (d.value.unwrap_or(0), "all-militia attackers against Regulars".into())),
            "defender-militia-vs-regulars" => (all_militia(rules, &e.defenders, true)
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
                // Decision (docs/rules-readings.md): a charge needs Parade
                // Order mounted cavalry next to a defending hex across a
                // hexside without fieldworks: none is made into a redoubt.
                let charging = e.attackers.iter().filter(|u| {
                    rules.counter(u).is_some_and(|c| c.kind == "cavalry")
                        && state.units.get(u).is_some_and(|s| s.condition == Condition::ParadeOrder)
                });
                let clear_front = charging.filter_map(|u| hex_of(state, u)).any(|a| {
                    def_hexes.iter().any(|d| {
                        crate::base::hex::are_adjacent(a, *d, layout)
                            && !terrain.crossing(a, *d).iter().any(|c| c.fieldwork)
                    })
                });
                let none = !e.defenders.iter().any(|u| rules.counter(u).is_some_and(|c| c.kind == "cavalry"));
                let open = lead_hex.and_then(|h| rules.terrain_at(h)).is_some_and(|t| t.open);
                (clear_front && none && open).then(|| (d.value.unwrap_or(0), "cavalry charge into open ground".into()))
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
                // Savannah 4.14: "Any modifiers in effect when the game
                // switches from the Strategic to the Tactical Turn Track are
                // carried over": after the switch, the last strategic turn's.
                let turn = state.strategic_turn_last.unwrap_or(state.turn);
                // 4.14 NOTE: "The defenses may be completed ahead of
                // schedule on turns 10 or 11 as a result of the play of
                // Random Events" (cards.yaml complete-british-works).
                let value = if state.british_works_complete { 0 } else { entry_value(d, turn).unwrap_or(0) };
                // Against an abatis, redoubt or revetment that still has
                // its fieldwork's modifier: a breached one has the TEC's
                // breached effects instead (Savannah 4.5, 4.6), and 4.14's
                // DRM, "cumulative with the normal fieldwork's modifiers",
                // has nothing left to lessen (docs/rules-readings.md).
                let crosses =
                    best_side.as_ref().is_some_and(|(_, _, _, intact)| intact.iter().any(|i| d.applies_to.contains(i)));
                (value != 0 && crosses).then(|| {
                    let when = if turn == state.turn {
                        format!("on turn {turn}")
                    } else {
                        format!(
                            "on turn {turn}, when play left the Strategic Turn Track, and so still on turn {}",
                            state.turn
                        )
                    };
                    (value, format!("the British works are not complete {when} (Savannah 4.14)"))
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
    // Savannah 4.3: the DRMs of Random Events cards played for this roll.
    let fieldworks: BTreeSet<&str> =
        rules.charts.terrain.hexsides.iter().filter(|h| h.fieldwork).map(|h| h.id.as_str()).collect();
    let across_fieldworks =
        best_side.as_ref().is_some_and(|(_, _, ids, _)| ids.iter().any(|i| fieldworks.contains(i.as_str())));
    for c in crate::systems::gboar::effects::card_effects::close_combat(
        rules,
        state,
        attacker_player,
        defender_player,
        across_fieldworks,
    ) {
        if c.value != 0 {
            out.push(Modifier {
                id: crate::systems::gboar::effects::card_effects::drm_id(&c),
                value: c.value,
                text: c.text,
            });
        }
    }
    Ok(out)
}

/// 12.23 step 2: the lead unit a side must (or may) take: a Parade Order
/// non-artillery unit if there is one; of those, one that may advance into
/// each hex of `into` (the Attacker's: the defending hexes; the Defender
/// never advances) if there is one ("LEAD UNITS AND PROHIBITED TERRAIN":
/// a zone the unit may never enter, Savannah 4.8); `wanted` if legal; else
/// the default, the best modified morale, then the most SPs, then the
/// lowest id.
pub fn lead_unit(
    rules: &Rules,
    state: &State,
    units: &[String],
    wanted: Option<&str>,
    into: &[HexId],
) -> std::result::Result<String, Refusal> {
    let candidates: Vec<&String> =
        units.iter().filter(|u| rules.counter(u).is_some_and(|c| !c.is_leader() && !c.is_artillery())).collect();
    if candidates.is_empty() {
        return Err(Refusal::new(
            Code::NoLeadUnit,
            "no unit but artillery and leaders: there is no lead unit (12.23 step 2)",
        ));
    }
    let parade: Vec<&String> = candidates
        .iter()
        .copied()
        .filter(|u| state.units.get(u).is_some_and(|s| s.condition == Condition::ParadeOrder))
        .collect();
    let pool = if parade.is_empty() { candidates.clone() } else { parade };
    // "Units cannot be chosen as lead units if they would be required to
    // advance after combat into prohibited terrain. If only this kind of
    // unit is available, it can be selected as the lead unit, but will
    // not be allowed to advance after combat" ([`momentum::advance`]).
    let barred = |u: &str| crate::systems::gboar::board::units::zone_ban_at(rules, u, into);
    let free: Vec<&String> = pool.iter().copied().filter(|u| barred(u).is_none()).collect();
    let eligible = |w: &str| pool.iter().any(|u| u.as_str() == w);
    let pool = if free.is_empty() { pool.clone() } else { free };
    if let Some(w) = wanted {
        if pool.iter().any(|u| u.as_str() == w) {
            return Ok(w.to_string());
        }
        // Passed over for the zone alone, not for 12.23 step 2's others.
        if let Some((h, ban)) = barred(w).filter(|_| eligible(w)) {
            return Err(Refusal::new(
                Code::LeadUnitMayNotLead,
                format!(
                    "{w} may not lead: it would have to advance after combat into {h}, in the {}, which it may never enter ({}), and another unit may lead (12.23 step 2, lead units and prohibited terrain); it may be {}",
                    ban.zone,
                    ban.rule,
                    pool.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
                ),
            ));
        }
        return Err(Refusal::new(Code::LeadUnitMayNotLead, format!(
            "{w} may not lead: the lead unit must be a Parade Order unit when there is one, never artillery (12.23 step 2); it may be {}",
            pool.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
        )));
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
        Tactics::Illegal(v, text) => events.push(Event::new("12.54", "tactics", text.clone()).with("value", *v)),
        Tactics::NoCombat { text, .. } => {
            events.push(Event::new("12.23", "tactics", text.clone()).with("no_combat", true))
        }
    }
    events
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(section: &str) -> Vec<String> {
        let doc = include_str!("../../../../../docs/orders.md");
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
