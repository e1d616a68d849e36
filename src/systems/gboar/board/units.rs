//! Units on the board: where a unit is, whose it is (its army's side and
//! player), who is in a hex and next to it, the leader in command, a
//! unit's modified morale, who must attack (12.12) and who may fire. The
//! one place each of these is asked; every phase and effect reads them here.

use crate::base::error::{Error, Result};
use crate::base::hex::HexId;
use crate::systems::gboar::board::state::{Condition, State};
use crate::systems::gboar::board::Rules;
use crate::systems::gboar::data::counters::Counter;
use crate::systems::gboar::data::scenario::{StrategicRestriction, TrackSwitch};

/// The side (orders side) of an army.
pub fn side_of_army(rules: &Rules, army: &str) -> Option<String> {
    army_side(rules, army).map(str::to_string)
}

/// [`side_of_army`] as the module holds it, not copied.
fn army_side<'r>(rules: &'r Rules, army: &str) -> Option<&'r str> {
    rules.sequence.data.armies.iter().find(|a| a.id == army).map(|a| a.side.as_str())
}

/// A counter that is on the map, with its hex.
pub fn hex_of(state: &State, id: &str) -> Option<HexId> {
    state.units.get(id).and_then(unit_hex)
}

/// [`hex_of`] for a unit already in hand: the loops over `state.units`
/// read each unit's hex here rather than looking its id up again.
pub fn unit_hex(unit: &crate::systems::gboar::board::state::UnitState) -> Option<HexId> {
    unit.hex
}

/// The side (orders side) of a unit's army; empty if it has none.
pub fn side_of<'r>(rules: &'r Rules, id: &str) -> &'r str {
    rules.side_of_unit(id).unwrap_or_default()
}

/// The player (alliance) of a unit's army; empty if none.
pub fn player_of<'r>(rules: &'r Rules, id: &str) -> &'r str {
    rules.player_of_unit(id).unwrap_or_default()
}

/// The combat units (not leaders) in a hex.
pub fn combat_units_at(rules: &Rules, state: &State, hex: HexId) -> Vec<String> {
    state
        .units
        .iter()
        .filter(|(u, unit)| unit_hex(unit) == Some(hex) && rules.counter(u).is_some_and(|c| !c.is_leader()))
        .map(|(u, _)| u.clone())
        .collect()
}

/// The enemy combat units next to `hex` for `player`.
pub fn enemies_next_to(rules: &Rules, state: &State, hex: HexId, player: &str) -> Vec<String> {
    let layout = rules.module.map.layout;
    // The cheap test first: most units are nowhere near.
    state
        .units
        .iter()
        .filter(|(u, unit)| {
            unit_hex(unit).is_some_and(|h| crate::base::hex::are_adjacent(hex, h, layout))
                && rules.counter(u).is_some_and(|c| !c.is_leader())
                && player_of(rules, u) != player
        })
        .map(|(u, _)| u.clone())
        .collect()
}

/// 12.12: a unit of the phasing player that must attack: a combat unit,
/// not artillery, not a rifle unit (12.12 exception), in condition to
/// attack (13.3, 13.4), next to an enemy combat unit, and not held back by
/// a scenario restriction.
pub fn must_attack(rules: &Rules, state: &State, id: &str) -> bool {
    must_attack_in(rules, state, id, None)
}

/// [`must_attack`], with the state's [`Occupancy`] when the caller asks
/// for many units of one state.
pub fn must_attack_in(rules: &Rules, state: &State, id: &str, occupancy: Option<&Occupancy>) -> bool {
    let (Some((c, player)), Some(u)) = (rules.counter_and_player(id), state.units.get(id)) else { return false };
    if c.is_leader() || c.is_artillery() || rifle_armed(c) || u.condition != Condition::ParadeOrder {
        return false;
    }
    if may_not_attack(rules, state, id) || defence_only_alone(rules, state, id) {
        return false;
    }
    let Some(hex) = unit_hex(u) else { return false };
    let player = player.unwrap_or_default();
    let next_to = match occupancy {
        Some(o) => o.enemy_next_to(hex, player),
        None => !enemies_next_to(rules, state, hex, player).is_empty(),
    };
    // Savannah 1.6: not an enemy it may not attack on the Strategic Turn
    // Track ([`perimeter_closed`]); only a unit the restriction binds looks.
    if next_to && strategic_restriction(rules, state.turn, &c.army).is_some() {
        let layout = rules.module.map.layout;
        return state.units.iter().any(|(e, s)| {
            s.hex.is_some_and(|eh| {
                crate::base::hex::are_adjacent(hex, eh, layout)
                    && player_of(rules, e) != player
                    && rules.counter(e).is_some_and(|c| !c.is_leader())
                    && perimeter_closed(rules, state, id, eh).is_none()
            })
        });
    }
    next_to
}

/// Savannah 1.6: on the Strategic Turn Track, Close Combat "that is not
/// directed against the Savannah Defensive Perimeter" may apply ("the
/// assault itself can only commence once the Game Turn Marker has been
/// placed on turn 16", 1.6's Clarification): a unit of an army the track
/// switch's restriction names (`track_switch.strategic_restriction`, the
/// Allies) may not attack a hex of the zone it names (the perimeter)
/// while the turn is on the Strategic track. The zone and the rule, when
/// unit `id` may not attack `hex` now.
pub fn perimeter_closed(rules: &Rules, state: &State, id: &str, hex: HexId) -> Option<(String, String)> {
    let (_, r) = strategic_restriction(rules, state.turn, rules.army_of(id)?)?;
    let zone = rules.module.map.zone(&r.may_not_move_adjacent_to)?;
    zone.hexes.contains(&hex).then(|| (zone.id.clone(), "Savannah 1.6, 1.7".to_string()))
}

/// Savannah 1.6, 1.7: the Strategic Turn Track's restriction on the Allies
/// (`track_switch.strategic_restriction`) when it binds a unit of `army` on
/// `turn`: the turn on the Strategic track and the army one it names. The
/// one reading of it for moves, attacks and advances.
pub fn strategic_restriction<'a>(
    rules: &'a Rules,
    turn: u32,
    army: &str,
) -> Option<(&'a TrackSwitch, &'a StrategicRestriction)> {
    let ts = rules.scenario_movement.track_switch.as_ref().filter(|t| t.strategic.contains(turn))?;
    let r = ts.strategic_restriction.as_ref().filter(|r| r.armies.iter().any(|a| a == army))?;
    Some((ts, r))
}

/// Savannah 4.8: "Their combat value is in parenthesis, which denotes
/// DEFENSE ONLY when alone": a unit tagged `defense-only-when-alone` with
/// no other friendly combat unit in its hex may not attack (and so never
/// must, 12.12); stacked with one, it attacks like the others.
pub fn defence_only_alone(rules: &Rules, state: &State, id: &str) -> bool {
    // The tag first: most units have none, and need no hex looked up.
    if !rules.counter(id).is_some_and(|c| c.tags.iter().any(|t| t == DEFENCE_ONLY_ALONE)) {
        return false;
    }
    let Some(hex) = hex_of(state, id) else { return false };
    let player = player_of(rules, id);
    !state.units.iter().any(|(u, unit)| {
        u != id
            && unit_hex(unit) == Some(hex)
            && player_of(rules, u) == player
            && rules.counter(u).is_some_and(|c| !c.is_leader())
    })
}

/// counters.yaml's tag for Savannah 4.8's combat value in parenthesis.
pub const DEFENCE_ONLY_ALONE: &str = "defense-only-when-alone";

/// The scenario's turn restrictions for close combat (Savannah Hist. Turn 16).
pub fn turn_restriction<'a>(rules: &'a Rules, turn: u32, id: &str) -> Option<&'a crate::base::yaml::Value> {
    rules
        .scenario_movement
        .turn_restrictions
        .iter()
        .filter(|t| t.turn == turn)
        .flat_map(|t| t.restrictions.iter())
        .find(|r| r.get("id").and_then(|v| v.as_str()) == Some(id))
}

pub fn may_not_attack(rules: &Rules, state: &State, id: &str) -> bool {
    let Some(r) = turn_restriction(rules, state.turn, "no-close-combat-attack") else { return false };
    // The armies as a list of strings, or none at all (as reading the list
    // whole as strings would find): read in place, not copied, since it
    // is asked of every unit that might attack.
    let armies: Vec<&str> = r
        .get("armies")
        .and_then(crate::base::yaml::Value::as_sequence)
        .and_then(|list| list.iter().map(crate::base::yaml::Value::as_str).collect())
        .unwrap_or_default();
    rules.army_of(id).is_some_and(|a| armies.contains(&a))
}

/// Each hex's units (those with a counter) in one state: what is next to
/// a hex, without going through every unit of the game.
pub struct Occupancy<'s> {
    layout: crate::base::hex::Layout,
    /// The combat units on the map (leaders are not: 3.2), each with its
    /// player (as [`player_of`] finds it, once here, not per unit for
    /// every hex asked about): sorted by hex, each hex's in id order. One
    /// list, not a map of lists: built with a few allocations.
    units: Vec<(HexId, &'s str, &'s str)>,
    /// The hexes holding a combat unit: most hexes next to a unit hold
    /// none, and are passed over without a search of `units`.
    combat: crate::base::hex::HexBits,
}

impl<'s> Occupancy<'s> {
    pub fn new(rules: &'s Rules, state: &'s State) -> Occupancy<'s> {
        let mut read: Vec<(HexId, &str, &str)> = Vec::with_capacity(state.units.len());
        let mut combat = crate::base::hex::HexBits::new();
        for (id, unit) in &state.units {
            if let (Some(h), Some((c, player))) = (unit_hex(unit), rules.counter_and_player(id)) {
                if !c.is_leader() {
                    combat.insert(h);
                    read.push((h, id, player.unwrap_or_default()));
                }
            }
        }
        let units = crate::base::hex::order_by_hex(&read, |e| e.0).into_iter().map(|i| read[i]).collect();
        Occupancy { layout: rules.module.map.layout, units, combat }
    }

    /// The combat units in `hex`, in id order, with their players.
    fn in_hex(&self, hex: HexId) -> &[(HexId, &'s str, &'s str)] {
        let from = self.units.partition_point(|e| e.0 < hex);
        let to = from + self.units[from..].partition_point(|e| e.0 == hex);
        &self.units[from..to]
    }

    /// The combat units of a player other than `player` in the hexes next
    /// to `hex`, hex by hex.
    fn enemies_around<'q>(&'q self, hex: HexId, player: &'q str) -> impl Iterator<Item = &'s str> + 'q {
        crate::base::hex::around(hex, self.layout)
            .filter(|n| self.combat.contains(*n))
            .flat_map(|n| self.in_hex(n))
            .filter(move |(_, _, p)| *p != player)
            .map(|(_, u, _)| *u)
    }

    /// [`enemies_next_to`] from this index: the same units, in id order.
    pub fn enemies_next_to(&self, hex: HexId, player: &str) -> Vec<String> {
        let mut found: Vec<String> = self.enemies_around(hex, player).map(str::to_string).collect();
        found.sort();
        found.dedup();
        found
    }

    /// Whether [`enemies_next_to`] would find any.
    fn enemy_next_to(&self, hex: HexId, player: &str) -> bool {
        self.enemies_around(hex, player).next().is_some()
    }
}

/// 14.1: the leader in command of `unit` in its hex: the highest ranking
/// friendly leader of the unit's army who may command it (Savannah 4.18:
/// Huger commands only militia and artillery); between equal ranks the
/// senior (Savannah 4.18), then the lower id so the choice is always the
/// same.
pub fn leader_in_command<'a>(rules: &'a Rules, state: &State, hex: HexId, unit: &Counter) -> Option<&'a Counter> {
    senior_leader_where(rules, state, &[hex], &unit.army, |l| rules.may_command(l, unit))
}

/// The leader who commands in any of `hexes`: the one [`leader_in_command`]
/// would choose among all the army's leaders there (the highest ranking
/// is in command in his own hex too). 14.21's matrix: a leader's Close
/// Combat DRM "applies to all CCs fought by units in the leader's hex".
pub fn senior_leader_in<'a>(rules: &'a Rules, state: &State, hexes: &[HexId], army: &str) -> Option<&'a Counter> {
    senior_leader_where(rules, state, hexes, army, |_| true)
}

/// [`senior_leader_in`] among the leaders `may` admits.
pub fn senior_leader_where<'a>(
    rules: &'a Rules,
    state: &State,
    hexes: &[HexId],
    army: &str,
    may: impl Fn(&Counter) -> bool,
) -> Option<&'a Counter> {
    let mut leaders: Vec<&Counter> = state
        .units
        .iter()
        .filter(|(_, unit)| unit_hex(unit).is_some_and(|h| hexes.contains(&h)))
        .filter_map(|(id, _)| rules.counter(id))
        .filter(|c| c.is_leader() && c.army == army)
        .filter(|c| may(c))
        .collect();
    leaders.sort_by(|a, b| {
        let rank = b.rank.unwrap_or(0).cmp(&a.rank.unwrap_or(0));
        let senior = |x: &Counter, y: &Counter| rules.seniority.iter().any(|s| s.senior == x.id && s.junior == y.id);
        rank.then_with(|| {
            if senior(a, b) {
                std::cmp::Ordering::Less
            } else if senior(b, a) {
                std::cmp::Ordering::Greater
            } else {
                a.id.cmp(&b.id)
            }
        })
    });
    leaders.first().copied()
}

/// 15.32, 16.2: base morale (reduced side when the unit has lost a step)
/// plus its army's morale level modifier.
pub fn modified_morale(rules: &Rules, state: &State, counter: &Counter) -> Result<(i32, i32, String)> {
    let steps = state.units.get(&counter.id).map(|u| u.steps).unwrap_or(1);
    let morale = counter.morale.ok_or_else(|| Error::refused(format!("{} has no morale", counter.id)))?;
    let full = counter.steps.unwrap_or(1);
    let base = if steps < full { morale.reduced.unwrap_or(morale.full) } else { morale.full };
    let level_value = state.army_morale.get(&counter.army).copied().unwrap_or(0);
    let level = rules
        .charts
        .army_morale
        .levels
        .iter()
        .find(|l| (l.range.min..=l.range.max).contains(&level_value))
        .ok_or_else(|| {
            Error::refused(format!("army morale {level_value} of {} is on no level of the track", counter.army))
        })?;
    // Savannah 4.10: a unit out on a sortie has its printed morale reduced.
    let sortie = rules
        .scenario_movement
        .sortie_restriction
        .as_ref()
        .filter(|r| r.turns.contains(state.turn))
        .filter(|_| state.units.get(&counter.id).is_some_and(|u| u.sortie_with.is_some()))
        .map_or(0, |r| r.unit_morale_while_sortieing);
    Ok((base.saturating_add(sortie), level.unit_morale_modifier.unwrap_or(0), level.name.clone()))
}

/// The hexes the units of `ids` stand in, sorted, each once: a combat's
/// defending hexes from its defenders.
pub fn hexes_of(state: &State, ids: &[String]) -> Vec<HexId> {
    let mut hexes: Vec<HexId> = ids.iter().filter_map(|id| hex_of(state, id)).collect();
    hexes.sort_unstable();
    hexes.dedup();
    hexes
}

/// The scenario's zone ban (`zone_bans`: Savannah 4.8, "Creeks may never
/// enter the Savannah Defensive Perimeter") that closes one of `hexes` to
/// unit `id`: the first such hex, and the ban. Read by retreats (13.22),
/// advances after combat and the lead unit they ask for (12.23 steps 2
/// and 9); the Movement Phase reads the same bans through its own zone
/// index.
pub fn zone_ban_at<'r>(
    rules: &'r Rules,
    id: &str,
    hexes: &[HexId],
) -> Option<(HexId, &'r crate::systems::gboar::data::scenario::ZoneBan)> {
    let c = rules.counter(id)?;
    rules.scenario_movement.zone_bans.iter().filter(|b| c.tags.contains(&b.tag)).find_map(|b| {
        let zone = rules.module.map.zone(&b.zone)?;
        hexes.iter().copied().find(|h| zone.hexes.contains(h)).map(|h| (h, b))
    })
}

/// Savannah 4.10: the sortie restriction that binds unit `id` now, if
/// any: on its turns, a unit of its armies, not a leader, and not exempt
/// (the restriction's tag) unless it has been inside the zone.
pub fn sortie_bound<'r>(
    rules: &'r Rules,
    state: &State,
    id: &str,
) -> Option<&'r crate::systems::gboar::data::scenario::SortieRestriction> {
    let rule = rules.scenario_movement.sortie_restriction.as_ref().filter(|r| r.turns.contains(state.turn))?;
    let c = rules.counter(id)?;
    if c.is_leader() || !rule.armies.contains(&c.army) {
        return None;
    }
    let exempt = c.tags.contains(&rule.exempt_tag) && !state.units.get(id).is_some_and(|u| u.been_inside);
    (!exempt).then_some(rule)
}

/// Savannah 4.10 after every step: a unit of the restriction's armies
/// that stands inside its zone sorties no longer ("as long as they
/// continue to sortie": its -1 ends, and its leader may return), and an
/// exempt unit there has entered it ("Once these units enter the Savannah
/// Defensive Perimeter, however, they too are restricted"), however it
/// came in: a move (which marks it as it goes), a retreat or an advance
/// after combat. Only marks that change are written.
pub fn sortie_marks_follow(rules: &Rules, state: &mut State) {
    let Some(rule) = rules.scenario_movement.sortie_restriction.as_ref().filter(|r| r.turns.contains(state.turn))
    else {
        return;
    };
    let Some(zone) = rules.module.map.zone(&rule.zone) else { return };
    for (id, u) in state.units.iter_mut() {
        if !u.hex.is_some_and(|h| zone.hexes.contains(&h)) {
            continue;
        }
        let Some(c) = rules.counter(id).filter(|c| rule.armies.contains(&c.army)) else { continue };
        if u.sortie_with.is_some() {
            u.sortie_with = None;
        }
        if !u.been_inside && c.tags.contains(&rule.exempt_tag) {
            u.been_inside = true;
        }
    }
}

/// A rifle unit (10.1): a unit with a rifle mark, or of a rifle type. The
/// one test of the Rifle Fire Phase (10.1), 10.5's first fire (lost in a
/// close combat too) and 8.31's rifle ZOC.
pub fn is_rifle(c: &Counter) -> bool {
    c.rifle_mark.is_some() || c.kind == "rifle" || c.kind == "musket-rifle"
}

/// 12.12's exception, "Rifle units are never required to attack": series
/// 3.2's Rifle Unit, armed with rifles (type `rifle`, or an infantry, light
/// infantry or militia counter carrying a rifle mark), not a musket/rifle
/// formation, which 3.2 calls "effective in Close Combat" and which
/// attacks as any infantry must (docs/rules-readings.md, Close Combat).
pub fn rifle_armed(c: &Counter) -> bool {
    c.kind == "rifle" || (c.rifle_mark.is_some() && c.kind != "musket-rifle")
}

/// Who may fire: a gun or mortar in condition to fire (13.3, 13.4).
pub fn may_fire(state: &State, id: &str) -> bool {
    state.units.get(id).is_some_and(|u| u.hex.is_some() && u.condition == Condition::ParadeOrder)
}

/// Savannah 4.12: on the tactical turns a mortar that moved this turn may
/// not fire.
pub fn mortar_moved(rules: &Rules, state: &State, id: &str) -> bool {
    rules.charts.mortar.rules_summary.tactical_turns_move_or_fire
        && rules.sequence.track(state.turn) == Some("tactical")
        && state.units.get(id).and_then(|u| u.mortar_moved_turn) == Some(state.turn)
}
