//! Reinforcements (series 9.6; Savannah 4.7 and the Campaign Game
//! Reinforcement Schedule): which units arrive this player turn, where, and
//! with what on the turn of arrival. The Reinforcement Phase (Savannah 3,
//! VI) decides it with no orders; where a scenario has no such phase the
//! Movement Phase does it when it begins (9.61). Placement itself, the
//! voluntary delay and the choice among several hexes are the Movement
//! Phase's (src/systems/gboar/phases/movement/), from the player's movement orders.
//!
//! - Due this turn: the schedule's groups for this turn, and units whose
//!   arrival was put off to this turn (voluntary delay, blocked entry,
//!   unable to conform to stacking). Units put off for stacking come first.
//! - The entry: the letter's hexes on the map (`entry_hexes`), or an army's
//!   HQ (`headquarters_of`). A variable entry (Savannah 4.7 French Variable
//!   Reinforcements) rolls once per army per turn on its chart, which gives
//!   the letter and the turn-of-arrival bonuses.
//! - Savannah 4.7 blocked entry (the scenario's `allied_blocked_entry`, for
//!   its armies): if every hex of the entry holds an enemy combat unit or is
//!   in an enemy ZOC, the arrival is put off `delay_turns`; then the units
//!   may enter at the nearest hexes (by hex distance from the entry) that
//!   hold no enemy unit, are in no enemy ZOC and are not prohibited
//!   terrain, paying that hex's terrain cost.
//! - Savannah 4.7 British reinforcements (`if_enemy_occupied` of the HQ
//!   entry): with enemy units in the HQ they may enter in any hex of the
//!   zone that holds no enemy unit and is not destroyed (Savannah 4.6's
//!   Table II); with none, the units are lost
//!   (removed, no VPs) and the army morale adjustment the entry names is
//!   applied once.
//! - Series 9.2 (a stand-in ruling for the entries the texts say nothing
//!   of): a hex of the entry that holds an enemy unit is not offered; an
//!   entry whose every hex does puts the arrival off a turn.

use std::collections::{BTreeMap, BTreeSet};

use crate::base::error::{Error, Result};
use crate::base::hex::HexId;
use crate::system::{Dice, Event};
use crate::systems::gboar::board::state::Resolution;
use crate::systems::gboar::board::state::{Arrival, OffMap, State};
use crate::systems::gboar::board::Rules;
use crate::systems::gboar::data::charts::MovementCost;
use crate::systems::gboar::data::scenario::EntryDef;

/// The hexes of an entry letter, or of an army's HQ.
fn entry_hexes(rules: &Rules, def: Option<&EntryDef>, letter: &str) -> Vec<HexId> {
    let map = &rules.module.map;
    if let Some(army) = def.and_then(|d| d.headquarters_of.as_deref()) {
        return map.headquarters.get(army).copied().into_iter().collect();
    }
    map.entry_hexes.get(letter).cloned().unwrap_or_default()
}

/// Enemy units (of any kind) by hex, and the hexes in enemy ZOCs, for `player`.
fn enemy_presence(rules: &Rules, state: &State, player: &str) -> (BTreeSet<HexId>, BTreeSet<HexId>) {
    let terrain = crate::systems::gboar::board::terrain::Terrain::of(rules, state);
    let player_of_army = rules.players_of_armies();
    let zoc = crate::systems::gboar::board::zoc::enemy_zoc(rules, &terrain, state, &player_of_army, player);
    let mut occupied = BTreeSet::new();
    for (id, unit) in &state.units {
        let Some(c) = rules.counter(id) else { continue };
        if player_of_army.get(&c.army).map(String::as_str) == Some(player) {
            continue;
        }
        if let Some(h) = unit.hex {
            occupied.insert(h);
        }
    }
    let in_zoc = rules.module.map.terrain.keys().copied().filter(|h| zoc.contains(*h)).collect();
    (occupied, in_zoc)
}

/// Savannah 4.7: the nearest hexes to `from` that hold no enemy unit, are
/// in no enemy ZOC and may be entered.
fn nearest_free(rules: &Rules, from: &[HexId], occupied: &BTreeSet<HexId>, in_zoc: &BTreeSet<HexId>) -> Vec<HexId> {
    let layout = rules.module.map.layout;
    let tec: BTreeMap<&str, &crate::systems::gboar::data::charts::HexTerrain> =
        rules.charts.terrain.hexes.iter().map(|t| (t.id.as_str(), t)).collect();
    let mut best: Option<u32> = None;
    let mut found = Vec::new();
    for (hex, terrain) in &rules.module.map.terrain {
        if occupied.contains(hex) || in_zoc.contains(hex) {
            continue;
        }
        if tec.get(terrain.as_str()).is_none_or(|t| t.movement_cost == MovementCost::Prohibited) {
            continue;
        }
        let Some(d) = from.iter().map(|f| crate::base::hex::distance(*f, *hex, layout)).min() else { continue };
        match best {
            Some(b) if d > b => {}
            Some(b) if d == b => found.push(*hex),
            _ => {
                best = Some(d);
                found = vec![*hex];
            }
        }
    }
    found
}

/// A group of units arriving together.
struct Group {
    army: String,
    letter: String,
    units: Vec<String>,
    previous: Option<Arrival>,
    max_hexes: Option<u32>,
}

/// Whether any unit waits off the map as a reinforcement: only such a
/// unit can arrive (9.61), so without one [`resolve`] places none, rolls
/// no die and gives the state back unchanged with no event.
pub fn any_waiting(state: &State) -> bool {
    state.units.values().any(|u| u.off_map == Some(OffMap::Reinforcement))
}

/// The Reinforcement Phase of `player` (Savannah 3, VI), or the beginning
/// of its Movement Phase (series 9.61): set the arrivals due this turn.
pub fn resolve(rules: &Rules, state: &State, player: &str, dice: &mut dyn Dice) -> Result<Resolution> {
    let mut next = state.clone();
    let mut events = Vec::new();
    let Some(data) = &rules.reinforcements else {
        return Ok(Resolution { state: next, events });
    };
    let turn = state.turn;
    let armies: Vec<String> = rules
        .sequence
        .data
        .alliances
        .iter()
        .filter(|a| a.id == player)
        .flat_map(|a| a.armies.iter().cloned())
        .collect();
    let waiting = |id: &str| state.units.get(id).is_some_and(|u| u.off_map == Some(OffMap::Reinforcement));
    // Arrivals put off to this turn first (stacking priority ahead), then the schedule's.
    let mut groups: Vec<Group> = Vec::new();
    let mut put_off: BTreeMap<(bool, String, String, bool), Vec<String>> = BTreeMap::new();
    for (id, unit) in &state.units {
        let Some(a) = unit.arriving.as_ref().filter(|a| a.turn == turn) else { continue };
        let Some(army) = rules.army_of(id) else { continue };
        if !armies.iter().any(|x| x == army) || !waiting(id) {
            continue;
        }
        put_off.entry((!a.priority, army.to_string(), a.entry.clone(), a.blocked)).or_default().push(id.clone());
    }
    for ((_, army, letter, _), units) in put_off {
        let previous = units.first().and_then(|u| state.units.get(u)).and_then(|u| u.arriving.clone());
        let max_hexes = previous.as_ref().and_then(|p| p.max_hexes);
        groups.push(Group { army, letter, units, previous, max_hexes });
    }
    for s in data.schedule.iter().filter(|s| s.turn == turn && armies.contains(&s.army)) {
        let units: Vec<String> = s
            .units
            .iter()
            .filter(|u| waiting(u) && state.units.get(u).is_some_and(|x| x.arriving.is_none()))
            .cloned()
            .collect();
        if !units.is_empty() {
            groups.push(Group {
                army: s.army.clone(),
                letter: s.entry.clone(),
                units,
                previous: None,
                max_hexes: s.arrival.as_ref().and_then(|a| a.max_hexes),
            });
        }
    }
    if groups.is_empty() {
        return Ok(Resolution { state: next, events });
    }
    let (occupied, in_zoc) = enemy_presence(rules, state, player);
    let mut variable_rolls: BTreeMap<String, crate::systems::gboar::data::charts::EntryOutcome> = BTreeMap::new();
    for group in groups {
        let def = rules.entries.iter().find(|d| d.letter == group.letter);
        let names: Vec<String> = group.units.iter().map(|u| unit_name(rules, u)).collect();
        let mut letter = group.letter.clone();
        let mut arrival = Arrival {
            turn,
            entry: group.letter.clone(),
            hexes: Vec::new(),
            mp_bonus: 0,
            artillery_mp_multiplier: 1,
            strategic_movement: def.is_none_or(|d| d.strategic_movement_on_arrival),
            max_hexes: group.max_hexes,
            pays_entry_cost: false,
            blocked: false,
            priority: false,
        };
        // Savannah 4.7 French Variable Reinforcements: one roll per army per turn.
        if def.is_some_and(|d| d.variable.is_some()) {
            let outcome = match variable_rolls.get(&group.army) {
                Some(o) => o.clone(),
                None => {
                    let chart = &rules.charts.french_variable_entry;
                    let die = match chart.die {
                        crate::systems::gboar::data::charts::Die::D10 => crate::base::dice::Die::D10,
                    };
                    let roll =
                        i32::from(dice.roll(die, &format!("variable entry of the {} reinforcements", group.army))?);
                    let table = &chart.french_variable_entry;
                    let outcome = table
                        .outcomes
                        .iter()
                        .find(|o| o.min.is_none_or(|m| roll >= m) && o.max.is_none_or(|m| roll <= m))
                        .cloned()
                        .ok_or_else(|| {
                            Error::refused(format!(
                                "charts/french-variable-entry.yaml: no outcome for a roll of {roll}"
                            ))
                        })?;
                    events.push(
                        Event::new(
                            "Savannah 4.7",
                            "variable-entry",
                            format!(
                                "the {} reinforcements' variable entry roll: {roll}, entry {}{}{}",
                                group.army,
                                outcome.entry,
                                if outcome.mp_bonus != 0 {
                                    format!(", {:+} MP", outcome.mp_bonus)
                                } else {
                                    String::new()
                                },
                                if outcome.artillery_mp_multiplier != 1 {
                                    format!(", artillery MPs x{}", outcome.artillery_mp_multiplier)
                                } else {
                                    String::new()
                                }
                            ),
                        )
                        .with("army", &group.army)
                        .with("roll", roll)
                        .with("entry", &outcome.entry),
                    );
                    variable_rolls.insert(group.army.clone(), outcome.clone());
                    outcome
                }
            };
            letter = outcome.entry.clone();
            arrival.entry = letter.clone();
            arrival.mp_bonus = outcome.mp_bonus;
            arrival.artillery_mp_multiplier = outcome.artillery_mp_multiplier;
            let letter_def = rules.entries.iter().find(|d| d.letter == letter);
            arrival.strategic_movement =
                outcome.strategic_movement && letter_def.is_none_or(|d| d.strategic_movement_on_arrival);
        } else if let Some(p) = &group.previous {
            arrival.mp_bonus = p.mp_bonus;
            arrival.artillery_mp_multiplier = p.artillery_mp_multiplier;
            arrival.strategic_movement = p.strategic_movement;
        }
        let def = rules.entries.iter().find(|d| d.letter == letter);
        let hexes = entry_hexes(rules, def, &letter);
        if hexes.is_empty() {
            return Err(Error::refused(format!(
                "reinforcements of turn {turn} ({}) enter at '{letter}', which names no hex of the map",
                group.units.join(", ")
            )));
        }
        let blocked_rule = data.allied_blocked_entry.as_ref().filter(|b| b.armies.contains(&group.army));
        let was_blocked = group.previous.as_ref().is_some_and(|p| p.blocked);
        let mut offered = hexes.clone();
        if let (Some(rule), true) = (blocked_rule, was_blocked) {
            offered = nearest_free(rules, &hexes, &occupied, &in_zoc);
            arrival.pays_entry_cost = rule.pays_terrain_cost;
            events.push(
                Event::new(
                    "Savannah 4.7",
                    "entry-moved",
                    format!(
                        "{} enter a turn late at the nearest hex{} free of enemy units and their ZOCs: {}{}",
                        names.join(", "),
                        if offered.len() == 1 { "" } else { "es" },
                        hex_list(&offered),
                        if arrival.pays_entry_cost { ", paying its terrain cost" } else { "" }
                    ),
                )
                .with("units", &group.units)
                .with("hexes", offered.iter().map(HexId::to_string).collect::<Vec<_>>()),
            );
        } else if let Some(rule) = blocked_rule {
            if hexes.iter().all(|h| occupied.contains(h) || in_zoc.contains(h)) {
                let later = turn.saturating_add(rule.delay_turns);
                for id in &group.units {
                    if let Some(u) = next.units.get_mut(id) {
                        u.arriving = Some(Arrival { turn: later, blocked: true, hexes: Vec::new(), ..arrival.clone() });
                    }
                }
                events.push(
                    Event::new(
                        "Savannah 4.7",
                        "entry-blocked",
                        format!(
                            "{} cannot enter at {letter} ({}): enemy units or their ZOCs hold it; delayed to turn {later}",
                            names.join(", "),
                            hex_list(&hexes)
                        ),
                    )
                    .with("units", &group.units)
                    .with("entry", &letter)
                    .with("turn", later),
                );
                continue;
            }
        }
        if let Some(occ) = def.and_then(|d| d.if_enemy_occupied.as_ref()) {
            if hexes.iter().any(|h| occupied.contains(h)) {
                let zone: Vec<HexId> = rules
                    .module
                    .map
                    .zones
                    .iter()
                    .chain(&rules.module.map.places)
                    .find(|z| z.id == occ.enter_in_zone)
                    .map(|z| {
                        z.hexes
                            .iter()
                            .copied()
                            .filter(|h| !occupied.contains(h))
                            // Savannah 4.7: "any Savannah city hex that is neither destroyed, nor occupied".
                            .filter(|h| !state.destroyed_hexes.contains(&h.to_string()))
                            .collect()
                    })
                    .unwrap_or_default();
                if zone.is_empty() {
                    for id in &group.units {
                        if let Some(u) = next.units.get_mut(id) {
                            u.off_map = Some(OffMap::Removed);
                            u.arriving = None;
                        }
                    }
                    events.push(
                        Event::new(
                            "Savannah 4.7",
                            "reinforcements-lost",
                            format!(
                                "{} cannot enter: enemy units hold the HQ and every hex of {}; they are lost (no VPs)",
                                names.join(", "),
                                occ.enter_in_zone
                            ),
                        )
                        .with("units", &group.units),
                    );
                    if let Some(id) = &occ.army_morale_adjustment {
                        let why = format!("the {} reinforcements were lost", group.army);
                        events.extend(crate::systems::gboar::effects::morale::apply(
                            rules,
                            &mut next,
                            id,
                            &group.army,
                            &[],
                            1,
                            ("Savannah 4.7", &why),
                        )?);
                    }
                    continue;
                }
                offered = zone;
                events.push(
                    Event::new(
                        "Savannah 4.7",
                        "entry-moved",
                        format!("enemy units hold the HQ: {} may enter in {}", names.join(", "), hex_list(&offered)),
                    )
                    .with("units", &group.units)
                    .with("hexes", offered.iter().map(HexId::to_string).collect::<Vec<_>>()),
                );
            }
        }
        // 9.2: "a unit may never enter an enemy-occupied hex", nor is a
        // reinforcement placed in one. The hexes of the entry that enemy
        // units hold are not offered; where they hold every one (a stand-in
        // ruling: our texts give a rule only for the Allies' entries and the
        // British HQ), the arrival waits a turn and is offered the entry
        // again. Self-play, Campaign, seed 283, game 205: the Chatham County
        // Militia, brought in by its card, was placed at B-1 (1723), where
        // the Guadaloupe Flank Companies had advanced after a Close Combat.
        let free: Vec<HexId> = offered.iter().copied().filter(|h| !occupied.contains(h)).collect();
        if free.is_empty() {
            let later = turn.saturating_add(1);
            for id in &group.units {
                if let Some(u) = next.units.get_mut(id) {
                    u.arriving = Some(Arrival { turn: later, hexes: Vec::new(), ..arrival.clone() });
                }
            }
            events.push(
                Event::new(
                    "9.2",
                    "entry-held",
                    format!(
                        "{} cannot be placed at {letter} ({}): enemy units hold it, and no unit enters an enemy-occupied hex (9.2); delayed to turn {later}",
                        names.join(", "),
                        hex_list(&offered)
                    ),
                )
                .with("units", &group.units)
                .with("entry", &letter)
                .with("turn", later),
            );
            continue;
        }
        offered = free;
        arrival.hexes = offered.iter().map(HexId::to_string).collect();
        for id in &group.units {
            if let Some(u) = next.units.get_mut(id) {
                u.arriving = Some(arrival.clone());
            }
        }
        let mut extras = Vec::new();
        if arrival.mp_bonus != 0 {
            extras.push(format!("{:+} MP", arrival.mp_bonus));
        }
        if arrival.artillery_mp_multiplier != 1 {
            extras.push(format!("artillery MPs x{}", arrival.artillery_mp_multiplier));
        }
        if !arrival.strategic_movement {
            extras.push("no strategic movement".into());
        }
        if let Some(n) = arrival.max_hexes {
            extras.push(format!("at most {n} hex{} of movement", if n == 1 { "" } else { "es" }));
        }
        events.push(
            Event::new(
                "9.61",
                "arrival",
                format!(
                    "{} arrive at {letter} ({}) at the beginning of the {player} Movement Phase{}",
                    names.join(", "),
                    hex_list(&offered),
                    if extras.is_empty() { String::new() } else { format!("; on this turn: {}", extras.join(", ")) }
                ),
            )
            .with("units", &group.units)
            .with("entry", &letter)
            .with("hexes", &arrival.hexes),
        );
    }
    Ok(Resolution { state: next, events })
}

/// Savannah 1.6: once play shifts to the Tactical Turn Track (`turn` its
/// first turn), "future reinforcements ... never arrive and are removed
/// from play with no VP or Army Morale consequences": each unit still to
/// arrive is removed, and one event names them all (none when none is
/// left to arrive), so the turn's report says which never came.
pub fn remove_future(rules: &Rules, state: &mut State, turn: u32) -> Option<Event> {
    let ids: Vec<String> = state
        .units
        .iter()
        .filter(|(_, u)| u.off_map == Some(OffMap::Reinforcement))
        .map(|(id, _)| id.clone())
        .collect();
    if ids.is_empty() {
        return None;
    }
    for id in &ids {
        if let Some(u) = state.units.get_mut(id) {
            u.off_map = Some(OffMap::Removed);
            u.arriving = None;
        }
    }
    let names: Vec<String> = ids.iter().map(|u| unit_name(rules, u)).collect();
    Some(
        Event::new(
            "Savannah 1.6",
            "reinforcements-removed",
            format!(
                "play moves to the Tactical Turn Track on turn {turn}: the reinforcements not yet arrived never \
                 will, and are removed from play with no VP or army morale consequences: {}",
                names.join(", ")
            ),
        )
        .with("units", &ids)
        .with("turn", turn),
    )
}

fn unit_name(rules: &Rules, id: &str) -> String {
    rules.counter(id).map(|c| c.name.clone()).unwrap_or_else(|| id.to_string())
}

fn hex_list(hexes: &[HexId]) -> String {
    hexes.iter().map(HexId::to_string).collect::<Vec<_>>().join(" or ")
}
