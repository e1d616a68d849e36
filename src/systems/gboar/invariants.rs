//! What must hold after every step of any game, whatever the orders and
//! the dice: the checks `adjutant selfplay` makes after each step it
//! resolves (and that a test can call on any two states). Each returns the
//! broken invariants in words; none is a rule applied again, only what a
//! rule's result must look like:
//!
//! - every unit is in one place: on a hex of the map, or off it (not yet
//!   arrived, captured, eliminated, removed), never both or neither; a unit
//!   captured or eliminated never comes back; a unit on the map has 1 to
//!   its counter's steps; a leader is never disrupted or shattered (14.31);
//!   a unit joins the game only as an event names it (`unit-added`,
//!   `counter-replaced`: Savannah 4.8's Random Events units);
//! - no hex holds units of two players (9.2: a unit never enters an enemy
//!   hex; 13.22: nor retreats into one);
//! - stacking within 7.1's limits after every step (7.2: "at all times";
//!   9.61 and Savannah 4.7: arrivals placed over the limit move or are put
//!   off within their Movement Phase, so after it); a pair the exclusive
//!   rules keep apart (Savannah 4.1) ends a Movement Phase stacked only if
//!   it began the phase stacked there (after a retreat), or one of the two
//!   got lost there on the Covered Way (Savannah 4.9: it stops where the
//!   roll leaves it);
//! - army morale on the chart's track, and every change of it an
//!   `army-morale` event whose before and after chain from the old value to
//!   the new (16.1);
//! - victory points change only by the events that name their source
//!   (`victory-points`, and at the game's end `hex-controlled`, Savannah
//!   2.8, 2.9);
//! - momentum chits held within the pool (12.61);
//! - a Movement Phase: shattered units do not move (13.4), a disrupted unit
//!   moves at most one hex and not next to the enemy, unless it began next
//!   to it and ends next to fewer enemy units (13.3), a pinned unit
//!   that moved ends next to no enemy unit unless lost on the Covered Way
//!   on its way (Savannah 4.9), and no pin is left on a unit
//!   next to no enemy unit (9.3); the other player's units stay put, but
//!   for a retreat an event names (a failed morale check that a Random
//!   Events card or a breach calls for, Savannah 4.3, 4.19; a leader going
//!   with the unit, 13.26);
//! - the end of a Close Combat Phase: no shattered unit next to an enemy
//!   combat unit without a friendly Parade Order unit in its hex (13.4);
//! - phases that move no unit (initiative, weather, rally, victory
//!   determination) move none, but for a retreat an event names (a card's
//!   morale check, Savannah 4.3), or a unit an event names taking it off
//!   the map (captured when it cannot retreat, 13.23);
//! - every unit whose state changed in any way (place, steps, condition,
//!   pin, markers, arrival) is named in the fields of one of the step's
//!   events, so the turn report leaves no change out; and so of a
//!   player's momentum chits, the cards in a hand, the siege works, the
//!   breaches, the destroyed hexes and the weather;
//! - the sequence advances: the next step is another, never in an earlier
//!   turn, within the scenario's turns, and the game ends only with a
//!   result or after the last turn.

use std::collections::{BTreeMap, BTreeSet};

use crate::base::hex::{are_adjacent, distance, HexId};
use crate::system::Event;
use crate::systems::gboar::board::state::{Condition, OffMap, State};
use crate::systems::gboar::board::units::hex_of;
use crate::systems::gboar::board::Rules;
use crate::systems::gboar::data::sequence::Step;
use crate::systems::gboar::effects::intel;

/// The invariants of one module and scenario, with what they read of the
/// module computed once.
pub struct Invariants<'a> {
    rules: &'a Rules,
    /// Series 12.61: the chits in the pool.
    pool: u32,
}

impl<'a> Invariants<'a> {
    pub fn new(rules: &'a Rules) -> Invariants<'a> {
        Invariants { rules, pool: crate::systems::gboar::phases::close_combat::momentum_pool_size(rules) }
    }

    fn player_of(&self, id: &str) -> Option<&'a str> {
        self.rules.player_of_unit(id)
    }

    fn is_leader(&self, id: &str) -> bool {
        self.rules.counter(id).is_some_and(|c| c.is_leader())
    }

    /// Every invariant of the state after `step`, given the state before it
    /// and the step's events; empty when all hold.
    pub fn check(&self, before: &State, step: &Step, after: &State, events: &[Event]) -> Vec<String> {
        let mut broken = self.state(after);
        broken.extend(self.transition(before, step, after, events));
        broken
    }

    /// What must hold of any state.
    pub fn state(&self, state: &State) -> Vec<String> {
        let mut broken = Vec::new();
        let map = &self.rules.module.map;
        // The units on the map, in the state's order; then by hex, each
        // hex's in that order (one list sorted, not a map of lists).
        let mut on: Vec<(HexId, &str)> = Vec::new();
        for (id, u) in &state.units {
            let Some(c) = self.rules.counter(id) else {
                broken.push(format!("{id} is in the state but is no counter of the module"));
                continue;
            };
            match (&u.hex, u.off_map) {
                (Some(hex), None) if map.contains(*hex) => on.push((*hex, id)),
                (Some(h), None) => broken.push(format!("{id} is at '{h}', which is not a hex of the map")),
                (Some(h), Some(off)) => broken.push(format!("{id} is both at {h} and off the map ({off:?})")),
                (None, None) => broken.push(format!("{id} is neither on the map nor off it")),
                (None, Some(_)) => {}
            }
            let full = if c.is_leader() { 1 } else { c.steps.unwrap_or(1) };
            if u.hex.is_some() && !(1..=full).contains(&u.steps) {
                broken.push(format!("{id} is on the map with {} steps; its counter has {full} (2.2)", u.steps));
            }
            if c.is_leader() && u.condition != Condition::ParadeOrder {
                broken.push(format!("leader {id} is {:?}; leaders are never disrupted (14.31)", u.condition));
            }
            if u.pinned && u.hex.is_none() {
                broken.push(format!("{id} is pinned but not on the map"));
            }
        }
        let order = crate::base::hex::order_by_hex(&on, |e| e.0);
        let mut by_hex: Vec<(HexId, Vec<&str>)> = Vec::new();
        for (hex, id) in order.into_iter().map(|k| on[k]) {
            match by_hex.last_mut() {
                Some((h, ids)) if *h == hex => ids.push(id),
                _ => by_hex.push((hex, vec![id])),
            }
        }
        for (hex, ids) in &by_hex {
            // A hex of one unit holds one player's.
            if ids.len() < 2 {
                continue;
            }
            let players: BTreeSet<&str> = ids.iter().filter_map(|id| self.player_of(id)).collect();
            if players.len() > 1 {
                broken.push(format!(
                    "{hex} holds units of {} ({}): no unit enters or retreats into an enemy hex (9.2, 13.22)",
                    players.into_iter().collect::<Vec<_>>().join(" and "),
                    ids.join(", ")
                ));
            }
        }
        broken.extend(self.stacking(state, &by_hex));
        let track = &self.rules.charts.army_morale.track;
        for (army, value) in &state.army_morale {
            if !(track.min..=track.max).contains(value) {
                broken.push(format!("{army} army morale {value} is off the track ({} to {})", track.min, track.max));
            }
        }
        let held: u32 = state.momentum.values().sum();
        if held > self.pool {
            broken.push(format!(
                "the players hold {held} momentum chits ({:?}); the pool has {} (12.61)",
                state.momentum, self.pool
            ));
        }
        broken
    }

    /// 7.1: each player's units in a hex within the limits.
    fn stacking(&self, state: &State, by_hex: &[(HexId, Vec<&str>)]) -> Vec<String> {
        let Some(limits) = self.rules.stacking.as_ref() else { return Vec::new() };
        let mut broken = Vec::new();
        // Each player's weight in a hex, in player order (few players).
        let mut per_player: Vec<(&str, (i32, i32))> = Vec::new();
        for (hex, ids) in by_hex {
            per_player.clear();
            for id in ids {
                let (sps, guns) = crate::systems::gboar::effects::losses::stacking_weight(self.rules, state, id);
                let player = self.player_of(id).unwrap_or("");
                let at = match per_player.binary_search_by(|e| e.0.cmp(player)) {
                    Ok(at) => at,
                    Err(at) => {
                        per_player.insert(at, (player, (0, 0)));
                        at
                    }
                };
                let total = &mut per_player[at].1;
                total.0 += sps;
                total.1 += guns;
            }
            for &(player, (sps, guns)) in &per_player {
                if !limits.holds(sps, guns) {
                    broken.push(format!(
                        "{hex} holds {sps} SPs and {guns} artillery units of {player} ({}); the limit is {} SPs \
                         and {} artillery units (7.1)",
                        ids.join(", "),
                        limits.max_strength_points,
                        limits.max_artillery_units
                    ));
                }
            }
        }
        broken
    }

    /// What must hold between the state before a step and after it.
    pub fn transition(&self, before: &State, step: &Step, after: &State, events: &[Event]) -> Vec<String> {
        let mut broken = Vec::new();
        for (id, was, now) in before.units.beside(&after.units) {
            let Some(now) = now else {
                broken.push(format!("{id} has left the game's state"));
                continue;
            };
            let gone = |u: &crate::systems::gboar::board::state::UnitState| {
                matches!(u.off_map, Some(OffMap::Captured | OffMap::Eliminated))
            };
            if gone(was) && now.off_map != was.off_map {
                broken.push(format!("{id} was {:?} and is now {:?} at {:?}", was.off_map, now.off_map, now.hex));
            }
        }
        // Savannah 4.8: a unit joins only as a Random Events card brings
        // it in (`unit-added`) or puts it in another's place
        // (`counter-replaced`), and the event names it.
        let named = |id: &str, kind: &str, field: &str| {
            events.iter().any(|e| e.kind == kind && e.fields.get(field).and_then(|v| v.as_str()) == Some(id))
        };
        for id in after.units.keys().filter(|id| !before.units.contains_key(id)) {
            if !named(id, "unit-added", "unit") && !named(id, "counter-replaced", "replacement") {
                broken.push(format!("{id} has joined the game's state"));
            }
        }
        broken.extend(self.ledger(before, after, events));
        broken.extend(reported(before, after, events));
        broken.extend(board_reported(before, after, events));
        broken.extend(self.sequence(before, step, after));
        match step.phase() {
            "movement" => broken.extend(self.movement(before, step, after, events)),
            "close-combat" => broken.extend(self.end_of_close_combat(after)),
            "initiative" | "weather" | "rally" | "victory-determination" => {
                for (id, was, after_unit) in before.units.beside(&after.units) {
                    let now = after_unit.and_then(|u| u.hex.as_ref());
                    // But for a retreat an event names: a card played with
                    // these orders calls for a morale check (Savannah 4.3).
                    // Or off the map (captured, eliminated, removed,
                    // replaced) with an event naming the unit: a unit that
                    // fails such a check and cannot retreat is captured
                    // (13.23; campaign self-play, seed 73, game 717).
                    let left = now.is_none()
                        && after_unit.is_some_and(|u| u.off_map.is_some())
                        && events.iter().any(|e| e.fields.get("unit").and_then(|v| v.as_str()) == Some(id.as_str()));
                    if was.hex.is_some() && was.hex.as_ref() != now && !retreated(events, id) && !left {
                        broken.push(format!("{id} moved from {:?} to {now:?} in a {} step", was.hex, step.phase()));
                    }
                }
            }
            _ => {}
        }
        broken
    }

    /// 16.1, Savannah 2.9: army morale and VPs change only by the events
    /// that say so, each from the value the one before left.
    fn ledger(&self, before: &State, after: &State, events: &[Event]) -> Vec<String> {
        // 7.4: a copy of an event for the sides that may not see its units
        // repeats it; it changes nothing.
        let events: Vec<&Event> = events.iter().filter(|e| !intel::is_copy(e)).collect();
        let mut broken = Vec::new();
        let int = |e: &Event, k: &str| e.fields.get(k).and_then(|v| v.as_i64());
        let text = |e: &Event, k: &str| e.fields.get(k).and_then(|v| v.as_str()).map(str::to_string);
        // Army morale: the events chain before → after per army.
        let mut morale: BTreeMap<String, i64> =
            before.army_morale.iter().map(|(a, v)| (a.clone(), i64::from(*v))).collect();
        for e in events.iter().copied().filter(|e| e.kind == "army-morale") {
            let (Some(army), Some(from), Some(to)) = (text(e, "army"), int(e, "before"), int(e, "after")) else {
                broken.push(format!("army-morale event without army, before and after: {}", e.text));
                continue;
            };
            let was = morale.get(&army).copied().unwrap_or(0);
            if from != was {
                broken
                    .push(format!("{army} army morale event starts at {from} but the army stood at {was}: {}", e.text));
            }
            morale.insert(army, to);
        }
        for (army, value) in &after.army_morale {
            let explained = morale.get(army).copied().unwrap_or(0);
            if i64::from(*value) != explained {
                broken.push(format!(
                    "{army} army morale went from {} to {value}, but its events account for {explained} (16.1)",
                    before.army_morale.get(army).copied().unwrap_or(0)
                ));
            }
        }
        // VPs: each victory-points event scores its halves for its army;
        // hex control counts when the game ends with a result (Savannah 2.8).
        let mut vps: BTreeMap<String, i64> = before.vp_halves.iter().map(|(a, v)| (a.clone(), i64::from(*v))).collect();
        for e in events.iter().copied() {
            let counts = e.kind == "victory-points" || (e.kind == "hex-controlled" && after.result.is_some());
            if !counts {
                continue;
            }
            let (Some(army), Some(halves)) = (text(e, "army"), int(e, "halves")) else {
                if int(e, "halves") != Some(0) {
                    broken.push(format!("{} event without army and halves: {}", e.kind, e.text));
                }
                continue;
            };
            *vps.entry(army).or_default() += halves;
        }
        for (army, value) in &after.vp_halves {
            let explained = vps.get(army).copied().unwrap_or(0);
            if i64::from(*value) != explained {
                broken.push(format!(
                    "{army} VPs went from {} to {value} halves, but the step's events score {explained} (Savannah 2.9)",
                    before.vp_halves.get(army).copied().unwrap_or(0)
                ));
            }
        }
        broken
    }

    /// Series 5: the next step is a later one, within the scenario.
    fn sequence(&self, before: &State, step: &Step, after: &State) -> Vec<String> {
        let mut broken = Vec::new();
        let turns = &self.rules.sequence.scenario.turns;
        if before.next.as_ref() != Some(step) {
            broken.push(format!("the step resolved, {}, is not the state's next step", step.name()));
        }
        if before.result.is_some() {
            broken.push(format!("step {} was resolved after the game ended", step.name()));
        }
        match &after.next {
            Some(next) => {
                if next == step {
                    broken.push(format!("the game is at step {} again", step.name()));
                }
                if next.turn() < step.turn() || next.turn() > turns.last || after.turn != next.turn() {
                    broken.push(format!(
                        "after {} the game is at step {} on turn {} (the scenario runs turns {} to {})",
                        step.name(),
                        next.name(),
                        after.turn,
                        turns.first,
                        turns.last
                    ));
                }
                if after.result.is_some() {
                    broken.push(format!("the game has a result but goes on to {}", next.name()));
                }
            }
            None if after.result.is_none() && step.turn() < turns.last => {
                broken.push(format!("the game stops after {} on turn {} with no result", step.name(), step.turn()));
            }
            None => {}
        }
        broken
    }

    /// Series 9.2, 9.3, 13.3, 13.4, Savannah 4.1 after a Movement Phase.
    fn movement(&self, before: &State, step: &Step, after: &State, events: &[Event]) -> Vec<String> {
        let mut broken = Vec::new();
        let Step::PlayerTurn { player, .. } = step else { return broken };
        let layout = self.rules.module.map.layout;
        let enemy_next_to = |state: &State, hex: HexId, own: &str| {
            state.units.keys().any(|e| {
                self.player_of(e).is_some_and(|p| p != own)
                    && !self.is_leader(e)
                    && hex_of(state, e).is_some_and(|eh| are_adjacent(hex, eh, layout))
            })
        };
        let enemies_next_to = |state: &State, hex: HexId, own: &str| {
            state
                .units
                .keys()
                .filter(|e| {
                    self.player_of(e).is_some_and(|p| p != own)
                        && !self.is_leader(e)
                        && hex_of(state, e).is_some_and(|eh| are_adjacent(hex, eh, layout))
                })
                .count()
        };
        for (id, was, now) in before.units.beside(&after.units) {
            let Some(now) = now else { continue };
            let Some(owner) = self.player_of(id) else { continue };
            let (from, to) = (hex_of(before, id), hex_of(after, id));
            let moved = from.is_some() && to.is_some() && from != to;
            if owner != player {
                // The other player's units move only when captured (14.32)
                // or retreated (13.2) by an event that says so: a failed
                // morale check a Random Events card or a breach (Savannah
                // 4.3, 4.19) calls for.
                if moved && !retreated(events, id) {
                    broken.push(format!("{id} of {owner} moved from {from:?} to {to:?} in {player}'s Movement Phase"));
                }
                continue;
            }
            if self.is_leader(id) {
                continue;
            }
            if let (true, Some(f), Some(t)) = (moved, from, to) {
                match was.condition {
                    Condition::Shattered => broken.push(format!("{id} is shattered and moved from {f} to {t} (13.4)")),
                    Condition::Disrupted if distance(f, t, layout) > 1 => {
                        broken.push(format!("{id} is disrupted and moved from {f} to {t}, more than one hex (13.3)"))
                    }
                    // 13.3: next to the enemy only when it began next to
                    // it and moved away from as many as it could.
                    Condition::Disrupted
                        if enemies_next_to(after, t, owner) > 0
                            && enemies_next_to(after, t, owner) >= enemies_next_to(before, f, owner) =>
                    {
                        broken.push(format!(
                            "{id} is disrupted and moved next to the enemy, from {f} to {t}, and not away from \
                             any enemy unit (13.3)"
                        ))
                    }
                    _ => {}
                }
                // Savannah 4.9: a stack lost on the Covered Way stops where
                // the roll left it, next to the enemy or not.
                if was.pinned && enemy_next_to(after, t, owner) && !now.lost {
                    broken.push(format!("{id} was pinned, moved, and ends next to the enemy in {t} (9.2, 9.3)"));
                }
            }
            let _ = now;
        }
        // 9.3: after all movement, no pin on a unit next to no enemy unit.
        for id in after.units.iter().filter(|(_, u)| u.pinned).map(|(id, _)| id) {
            let (Some(hex), Some(owner)) = (hex_of(after, id), self.player_of(id)) else { continue };
            if !enemy_next_to(after, hex, owner) {
                broken.push(format!("{id} in {hex} is still pinned after movement, next to no enemy unit (9.3)"));
            }
        }
        // Savannah 4.1: a restricted pair ends a Movement Phase stacked only
        // if it began it stacked in that hex.
        if let Some(stacking) = self.rules.stacking.as_ref() {
            let mut by_hex: BTreeMap<HexId, Vec<&String>> = BTreeMap::new();
            for id in after.units.keys() {
                if let Some(h) = hex_of(after, id) {
                    by_hex.entry(h).or_default().push(id);
                }
            }
            for r in stacking.restrictions.iter().filter(|r| !r.may_end_movement_phase_stacked) {
                for (hex, ids) in &by_hex {
                    for (n, a) in ids.iter().enumerate() {
                        for b in &ids[n + 1..] {
                            let (Some(ca), Some(cb)) = (self.rules.counter(a), self.rules.counter(b)) else { continue };
                            // Savannah 4.9: a stack lost on the Covered Way
                            // stops where the roll left it, with whom it may.
                            let lost_here =
                                |u: &str| after.units.get(u).is_some_and(|s| s.lost) && hex_of(before, u) != Some(*hex);
                            let began_here = hex_of(before, a) == Some(*hex) && hex_of(before, b) == Some(*hex);
                            let lost = lost_here(a) || lost_here(b);
                            if r.applies(ca, cb) && !began_here && !lost {
                                broken.push(format!(
                                    "{a} and {b} end the Movement Phase stacked in {hex} ({})",
                                    r.rule_name()
                                ));
                            }
                        }
                    }
                }
            }
        }
        broken
    }

    /// Series 13.4: at the end of any Close Combat Phase, a shattered unit
    /// next to an enemy combat unit and not stacked with a friendly Parade
    /// Order unit has been captured.
    fn end_of_close_combat(&self, after: &State) -> Vec<String> {
        let mut broken = Vec::new();
        if after.result.is_some() {
            return broken;
        }
        let layout = self.rules.module.map.layout;
        for (id, u) in after.units.iter().filter(|(_, u)| u.condition == Condition::Shattered) {
            let (Some(hex), Some(owner)) = (hex_of(after, id), self.player_of(id)) else { continue };
            let enemy = after.units.keys().any(|e| {
                self.player_of(e).is_some_and(|p| p != owner)
                    && !self.is_leader(e)
                    && hex_of(after, e).is_some_and(|eh| are_adjacent(hex, eh, layout))
            });
            let covered = after.units.iter().any(|(f, fu)| {
                f != id
                    && !self.is_leader(f)
                    && fu.condition == Condition::ParadeOrder
                    && hex_of(after, f) == Some(hex)
                    && self.player_of(f) == Some(owner)
            });
            if enemy && !covered {
                broken.push(format!(
                    "{id} ends the Close Combat Phase shattered in {hex}, next to the enemy and with no friendly \
                     Parade Order unit (13.4: captured){}",
                    if u.pinned { "; it is pinned" } else { "" }
                ));
            }
        }
        broken
    }
}

/// What the turn report must say: every unit whose state changed in any
/// way in a step (its place on the map or off it, steps, condition, pin,
/// markers, arrival) is named in the fields of one of the step's events
/// (its id a value, an item of a list, or a key), so no change reaches the
/// board unreported.
fn reported(before: &State, after: &State, events: &[Event]) -> Vec<String> {
    let mut broken = Vec::new();
    for (id, was, now) in before.units.beside(&after.units) {
        let Some(now) = now else { continue };
        if was == now || events.iter().any(|e| e.names(id)) {
            continue;
        }
        // What changed, by the unit's fields as state.yaml writes them.
        let fields = |u| match serde_json::to_value(u) {
            Ok(serde_json::Value::Object(m)) => m,
            _ => serde_json::Map::new(),
        };
        let (a, b) = (fields(was), fields(now));
        let changed: Vec<String> = a
            .keys()
            .chain(b.keys().filter(|k| !a.contains_key(*k)))
            .filter(|k| a.get(*k) != b.get(*k))
            .map(|k| {
                let show = |v: Option<&serde_json::Value>| v.map_or("none".to_string(), |v| v.to_string());
                format!("{k} {} to {}", show(a.get(k)), show(b.get(k)))
            })
            .collect();
        broken.push(format!("{id} changed ({}) and no event of the step names it", changed.join(", ")));
    }
    broken
}

/// The same of the board's other pieces of play: a player's momentum
/// chits change only with a `momentum...` event naming the player (12.61);
/// a Random Events card enters or leaves a hand only as an event names it
/// (Savannah 4.3); a siege work placed, flipped or breached, a hexside
/// breached or a hex destroyed (Savannah 4.4-4.6), and a new weather
/// (4.2), is named by an event.
fn board_reported(before: &State, after: &State, events: &[Event]) -> Vec<String> {
    let named = |id: &str| events.iter().any(|e| e.names(id));
    let mut broken = Vec::new();
    let players: BTreeSet<&String> = before.momentum.keys().chain(after.momentum.keys()).collect();
    for p in players {
        let (was, now) = (before.momentum.get(p).copied().unwrap_or(0), after.momentum.get(p).copied().unwrap_or(0));
        if was != now && !events.iter().any(|e| e.kind.starts_with("momentum") && e.names(p)) {
            broken.push(format!("{p}'s momentum chits went from {was} to {now} and no momentum event names {p}"));
        }
    }
    let players: BTreeSet<&String> = before.cards.keys().chain(after.cards.keys()).collect();
    for p in players {
        let (was, now) = (before.cards.get(p), after.cards.get(p));
        let held = |hand: Option<&Vec<String>>, c: &String| hand.is_some_and(|h| h.contains(c));
        for c in now.into_iter().flatten().filter(|c| !held(was, c)) {
            if !named(c) {
                broken.push(format!("card {c} came into {p}'s hand and no event names it"));
            }
        }
        for c in was.into_iter().flatten().filter(|c| !held(now, c)) {
            if !named(c) {
                broken.push(format!("card {c} left {p}'s hand and no event names it"));
            }
        }
    }
    // A work is named by its hex, or by one of its hexsides (`HEX/TOWARD`,
    // as a breach of it is, Savannah 4.5).
    for w in after.siege_works.iter().filter(|w| !before.siege_works.contains(w)) {
        if !named(&w.hex) && !w.toward.iter().any(|t| named(&format!("{}/{t}", w.hex))) {
            broken.push(format!("the siege work in {} changed and no event names its hex", w.hex));
        }
    }
    for w in before.siege_works.iter().filter(|w| !after.siege_works.iter().any(|a| a.hex == w.hex)) {
        if !named(&w.hex) {
            broken.push(format!("the siege work in {} was removed and no event names its hex", w.hex));
        }
    }
    if let Some(w) = after.weather.as_deref().filter(|w| before.weather.as_deref() != Some(*w)) {
        if !named(w) {
            broken.push(format!("the weather became {w} and no event names it"));
        }
    }
    let new = |a: &[String], b: &[String]| -> Vec<String> { b.iter().filter(|h| !a.contains(h)).cloned().collect() };
    for (what, added) in [
        ("breached", new(&before.breaches, &after.breaches)),
        ("destroyed", new(&before.destroyed_hexes, &after.destroyed_hexes)),
    ] {
        for h in added.iter().filter(|h| !named(h)) {
            broken.push(format!("{h} was {what} and no event names it"));
        }
    }
    broken
}

/// Whether an event names `id` retreating: a combat unit's `retreat`
/// (13.2), or a leader's `leader-retreats` with the unit he goes with
/// (13.26: campaign self-play, seed 47, game 971, where von Porbeck went
/// with the 2nd Bn. South Carolina Royalists, retreated by a breach's
/// morale check in the Allies' Movement Phase, Savannah 4.5).
fn retreated(events: &[Event], id: &str) -> bool {
    let names = |e: &Event, field: &str| e.fields.get(field).and_then(|v| v.as_str()) == Some(id);
    events
        .iter()
        .any(|e| (e.kind == "retreat" && names(e, "unit")) || (e.kind == "leader-retreats" && names(e, "leader")))
}

#[cfg(test)]
mod tests {
    //! Each invariant catches what it is there to catch: a checker that
    //! could not fail would let selfplay pass anything.
    use super::*;
    use crate::systems::gboar::data::Source;

    fn historical() -> (Rules, State) {
        let rules = Rules::load(&Source::Embedded("savannah-1779".into()), "historical").unwrap();
        let state = State::setup(&rules.module, "historical").unwrap();
        (rules, state)
    }

    /// The first unit on the map of `army` with a counter of `kind`.
    fn unit(rules: &Rules, state: &State, army: &str, kind: &str) -> String {
        state
            .units
            .iter()
            .find(|(id, u)| u.hex.is_some() && rules.counter(id).is_some_and(|c| c.army == army && c.kind == kind))
            .map(|(id, _)| id.clone())
            .unwrap()
    }

    fn holds(broken: &[String], text: &str) -> bool {
        broken.iter().any(|b| b.contains(text))
    }

    #[test]
    fn the_set_up_keeps_every_invariant() {
        let (rules, state) = historical();
        assert_eq!(Invariants::new(&rules).state(&state), Vec::<String>::new());
    }

    #[test]
    fn a_unit_in_two_places_or_none_is_caught() {
        let (rules, state) = historical();
        let checks = Invariants::new(&rules);
        let id = unit(&rules, &state, "french", "infantry");
        let mut both = state.clone();
        both.units.get_mut(&id).unwrap().off_map = Some(OffMap::Eliminated);
        assert!(holds(&checks.state(&both), &format!("{id} is both at")));
        let mut nowhere = state.clone();
        nowhere.units.get_mut(&id).unwrap().hex = None;
        assert!(holds(&checks.state(&nowhere), &format!("{id} is neither on the map nor off it")));
        let mut off = state.clone();
        off.units.get_mut(&id).unwrap().hex = Some("9999".parse().unwrap());
        assert!(holds(&checks.state(&off), "not a hex of the map"));
    }

    #[test]
    fn two_players_in_a_hex_and_overstacking_are_caught() {
        let (rules, state) = historical();
        let checks = Invariants::new(&rules);
        let french = unit(&rules, &state, "french", "infantry");
        let british = unit(&rules, &state, "british", "infantry");
        let mut mixed = state.clone();
        let hex = mixed.units[&french].hex;
        mixed.units.get_mut(&british).unwrap().hex = hex;
        assert!(holds(&checks.state(&mixed), "holds units of"));
        // Every French infantry unit in one hex: over 7.1's limit.
        let mut crowded = state.clone();
        let hex = crowded.units[&french].hex;
        for (id, u) in crowded.units.iter_mut() {
            if u.hex.is_some() && rules.counter(id).is_some_and(|c| c.army == "french" && c.kind == "infantry") {
                u.hex = hex;
            }
        }
        assert!(holds(&checks.state(&crowded), "(7.1)"));
    }

    #[test]
    fn army_morale_off_the_track_and_too_many_chits_are_caught() {
        let (rules, state) = historical();
        let checks = Invariants::new(&rules);
        let mut s = state.clone();
        s.army_morale.insert("french".into(), rules.charts.army_morale.track.max + 1);
        assert!(holds(&checks.state(&s), "is off the track"));
        let mut s = state.clone();
        s.momentum.insert("british".into(), checks.pool + 1);
        assert!(holds(&checks.state(&s), "(12.61)"));
    }

    #[test]
    fn morale_and_vps_change_only_by_their_events() {
        let (rules, before) = historical();
        let checks = Invariants::new(&rules);
        let step = before.next.clone().unwrap();
        let mut after = before.clone();
        after.next = None;
        after.result = Some(crate::system::GameResult {
            winner: "british".into(),
            level: "marginal".into(),
            condition: "test".into(),
            individual_winners: Vec::new(),
        });
        let was = before.vp_halves.get("british").copied().unwrap_or(0);
        after.vp_halves.insert("british".into(), was + 2);
        let unexplained = checks.transition(&before, &step, &after, &[]);
        assert!(holds(&unexplained, "british VPs went from"), "{unexplained:?}");
        let scored = Event::new("Savannah 2.9", "victory-points", "british scores 1 VP")
            .with("army", "british")
            .with("halves", 2);
        assert!(!holds(&checks.transition(&before, &step, &after, &[scored]), "VPs went from"));
        let mut after = before.clone();
        after.next = None;
        let morale = before.army_morale.get("french").copied().unwrap_or(0);
        after.army_morale.insert("french".into(), morale - 1);
        assert!(holds(&checks.transition(&before, &step, &after, &[]), "french army morale went from"));
        let told = Event::new("16.1", "army-morale", "french army morale -1")
            .with("army", "french")
            .with("before", morale)
            .with("after", morale - 1);
        assert!(!holds(&checks.transition(&before, &step, &after, &[told]), "army morale"));
    }

    #[test]
    fn a_shattered_unit_that_moves_and_a_step_that_does_not_advance_are_caught() {
        let (rules, before) = historical();
        let checks = Invariants::new(&rules);
        let step = Step::PlayerTurn { turn: before.turn, player: "allies".into(), phase: "movement".into() };
        let id = unit(&rules, &before, "french", "infantry");
        let mut start = before.clone();
        start.next = Some(step.clone());
        start.units.get_mut(&id).unwrap().condition = Condition::Shattered;
        let mut after = start.clone();
        let from: HexId = start.units[&id].hex.unwrap();
        let to = crate::base::hex::neighbours(from, rules.module.map.layout)
            .into_iter()
            .find(|h| rules.module.map.contains(*h))
            .unwrap();
        after.units.get_mut(&id).unwrap().hex = Some(to);
        let broken = checks.transition(&start, &step, &after, &[]);
        assert!(holds(&broken, "is shattered and moved"), "{broken:?}");
        assert!(holds(&broken, &format!("the game is at step {} again", step.name())), "{broken:?}");
    }

    /// 9.3: a pinned unit that moved ends next to no enemy unit, unless it
    /// got lost on the Covered Way on its way (Savannah 4.9: it stops
    /// where the roll left it).
    #[test]
    fn a_pinned_unit_moved_next_to_the_enemy_is_caught_unless_lost_on_the_way() {
        let (rules, before) = historical();
        let checks = Invariants::new(&rules);
        let layout = rules.module.map.layout;
        let step = Step::PlayerTurn { turn: before.turn, player: "allies".into(), phase: "movement".into() };
        let id = unit(&rules, &before, "french", "infantry");
        let enemy = unit(&rules, &before, "british", "infantry");
        let mut start = before.clone();
        start.next = Some(step.clone());
        let from: HexId = start.units[&id].hex.unwrap();
        let on_map = |h: &HexId| rules.module.map.contains(*h);
        let to = crate::base::hex::neighbours(from, layout).into_iter().find(on_map).unwrap();
        let beside = crate::base::hex::neighbours(to, layout)
            .into_iter()
            .find(|h| on_map(h) && *h != from && !crate::base::hex::are_adjacent(*h, from, layout))
            .unwrap();
        start.units.get_mut(&enemy).unwrap().hex = Some(beside);
        start.units.get_mut(&id).unwrap().pinned = true;
        let mut after = start.clone();
        after.units.get_mut(&id).unwrap().hex = Some(to);
        let caught = format!("{id} was pinned, moved, and ends next to the enemy");
        assert!(holds(&checks.transition(&start, &step, &after, &[]), &caught));
        after.units.get_mut(&id).unwrap().lost = true;
        assert!(!holds(&checks.transition(&start, &step, &after, &[]), &caught));
    }

    /// A phase that moves no unit (Initiative) may see one leave the map
    /// only as an event names it: a card's failed morale check with no
    /// retreat open captures it (13.23; campaign self-play, seed 73, game
    /// 717).
    #[test]
    fn a_unit_leaves_the_map_in_a_phase_that_moves_none_only_as_an_event_says() {
        use crate::systems::gboar::board::state::OffMap;
        let (rules, before) = historical();
        let checks = Invariants::new(&rules);
        let step = Step::GameTurn { turn: before.turn, phase: "initiative".into() };
        let mut start = before.clone();
        start.next = Some(step.clone());
        let id = unit(&rules, &start, "british", "infantry");
        let mut after = start.clone();
        let u = after.units.get_mut(&id).unwrap();
        u.hex = None;
        u.off_map = Some(OffMap::Captured);
        let moved = format!("{id} moved from");
        assert!(holds(&checks.transition(&start, &step, &after, &[]), &moved));
        let other = Event::new("13.23", "captured", "another is captured").with("unit", "someone-else");
        assert!(holds(&checks.transition(&start, &step, &after, &[other]), &moved));
        let captured = Event::new("13.23", "captured", "it is captured").with("unit", &id);
        assert!(!holds(&checks.transition(&start, &step, &after, &[captured]), &moved));
    }

    /// Savannah 4.8 and 4.3: a unit joins only as a card's event names it;
    /// an enemy unit moves in a Movement Phase only by a retreat an event
    /// names (campaign self-play, seed 1, games 3 and 6, once cards were
    /// played).
    #[test]
    fn units_join_and_enemies_move_only_as_events_say() {
        let (rules, before) = historical();
        let checks = Invariants::new(&rules);
        let step = Step::PlayerTurn { turn: before.turn, player: "allies".into(), phase: "movement".into() };
        let mut start = before.clone();
        start.next = Some(step.clone());
        let mut after = start.clone();
        let newcomer = start.units.keys().next().unwrap().clone();
        start.units.remove(&newcomer);
        let broken = checks.transition(&start, &step, &after, &[]);
        assert!(holds(&broken, &format!("{newcomer} has joined")), "{broken:?}");
        let added = Event::new("Savannah 4.8", "unit-added", "it comes into play").with("unit", &newcomer);
        assert!(!holds(&checks.transition(&start, &step, &after, &[added]), "has joined"));
        let replaced = Event::new("Savannah 4.8", "counter-replaced", "replaced").with("replacement", &newcomer);
        assert!(!holds(&checks.transition(&start, &step, &after, &[replaced]), "has joined"));
        let mut start = before.clone();
        start.next = Some(step.clone());
        // `start` with unit `id` moved to a hex next to its own.
        let moved_one_hex = |id: &str| {
            let from: HexId = start.units[id].hex.unwrap();
            let to = crate::base::hex::neighbours(from, rules.module.map.layout)
                .into_iter()
                .find(|h| rules.module.map.contains(*h))
                .unwrap();
            let mut after = start.clone();
            after.units.get_mut(id).unwrap().hex = Some(to);
            after
        };
        let id = unit(&rules, &start, "british", "infantry");
        after = moved_one_hex(&id);
        let moved = format!("{id} of british moved");
        assert!(holds(&checks.transition(&start, &step, &after, &[]), &moved));
        let retreat = Event::new("13.2", "retreat", "it retreats").with("unit", &id);
        assert!(!holds(&checks.transition(&start, &step, &after, &[retreat]), &moved));
        // 13.26: a leader that goes with a retreating unit (campaign, seed
        // 47, game 971); a `leader-retreats` naming him as the unit does not.
        let leader = unit(&rules, &start, "british", "leader");
        let after = moved_one_hex(&leader);
        let moved = format!("{leader} of british moved");
        assert!(holds(&checks.transition(&start, &step, &after, &[]), &moved));
        let with = Event::new("13.26", "leader-retreats", "he goes with it").with("leader", &leader).with("unit", &id);
        assert!(!holds(&checks.transition(&start, &step, &after, &[with]), &moved));
        let wrong = Event::new("13.26", "leader-retreats", "another goes").with("leader", &id).with("unit", &leader);
        assert!(holds(&checks.transition(&start, &step, &after, &[wrong]), &moved));
    }

    /// Every change of a unit is named by an event: Savannah 1.6's
    /// reinforcements removed at the switch to the Tactical Turn Track
    /// changed the state with no event (self-play, Campaign, seed 3).
    #[test]
    fn a_unit_changed_with_no_event_naming_it_is_caught() {
        let (rules, before) = historical();
        let id = unit(&rules, &before, "french", "infantry");
        let changed = |f: &dyn Fn(&mut crate::systems::gboar::board::state::UnitState)| {
            let mut after = before.clone();
            f(after.units.get_mut(&id).unwrap());
            after
        };
        let unreported = format!("{id} changed (");
        let cases: [(&str, State); 6] = [
            ("off_map none to \"removed\"", changed(&|u| u.leave_map(OffMap::Removed))),
            ("steps 2 to 1", changed(&|u| u.steps = 1)),
            ("condition \"parade-order\" to \"disrupted\"", changed(&|u| u.condition = Condition::Disrupted)),
            ("pinned none to true", changed(&|u| u.pinned = true)),
            ("lost none to true", changed(&|u| u.lost = true)),
            ("no_fire_until none to 9", changed(&|u| u.no_fire_until = Some(9))),
        ];
        for (what, after) in &cases {
            let broken = reported(&before, after, &[]);
            assert!(holds(&broken, &unreported) && holds(&broken, what), "{what}: {broken:?}");
            // Named as a value, in a list, or as a key of an event's fields.
            let named = [
                Event::new("x", "x", "").with("unit", &id),
                Event::new("x", "x", "").with("units", [&id]),
                Event::new("x", "x", "").with("by_unit", BTreeMap::from([(id.clone(), 1)])),
            ];
            for e in named {
                assert!(reported(&before, after, std::slice::from_ref(&e)).is_empty(), "{what}: {e:?}");
            }
            let other = Event::new("x", "x", &id).with("unit", "someone-else");
            assert!(holds(&reported(&before, after, &[other]), &unreported), "{what}: only the text names it");
        }
        assert!(reported(&before, &before, &[]).is_empty());
    }

    /// The board's other pieces of play: momentum chits, cards in a hand,
    /// siege works, breaches and destroyed hexes change only as an event
    /// names them.
    #[test]
    fn the_boards_markers_changed_with_no_event_naming_them_are_caught() {
        let (_, before) = historical();
        let mut after = before.clone();
        let player = before.momentum.keys().next().expect("a player with momentum chits").clone();
        *after.momentum.get_mut(&player).unwrap() += 1;
        after.cards.insert(player.clone(), vec!["a-card".into()]);
        let work = crate::systems::gboar::board::state::SiegeWork {
            hex: "1809".into(),
            toward: vec!["1808".into()],
            placed: 9,
            completed: true,
            breached: vec!["1808".into()],
        };
        after.siege_works.push(work);
        after.breaches.push("1505/1506".into());
        after.destroyed_hexes.push("1603".into());
        after.weather = Some("squall".into());
        let broken = board_reported(&before, &after, &[]);
        for text in [
            format!("{player}'s momentum chits went from"),
            format!("card a-card came into {player}'s hand"),
            "the siege work in 1809 changed".to_string(),
            "1505/1506 was breached".to_string(),
            "1603 was destroyed".to_string(),
            "the weather became squall".to_string(),
        ] {
            assert!(holds(&broken, &text), "{text}: {broken:?}");
        }
        // A momentum event must name the player: another kind does not do.
        let other = Event::new("x", "drm", "").with("player", &player);
        assert!(holds(&board_reported(&before, &after, &[other]), "momentum chits"));
        let events = [
            Event::new("12.63", "momentum-gained", "").with("player", &player),
            Event::new("Savannah 4.3", "card-drawn", "").with("card", "a-card"),
            Event::new("Savannah 4.5", "breach", "").with("hexside", "1809/1808"),
            Event::new("Savannah 4.5", "breach", "").with("hexside", "1505/1506"),
            Event::new("Savannah 4.6", "city-hex-destroyed", "").with("hex", "1603"),
            Event::new("Savannah 4.2", "weather", "").with("weather", "squall"),
        ];
        assert_eq!(board_reported(&before, &after, &events), Vec::<String>::new());
        // And back: the card leaves the hand, the work is removed.
        let broken = board_reported(&after, &before, &[]);
        assert!(holds(&broken, &format!("card a-card left {player}'s hand")), "{broken:?}");
        assert!(holds(&broken, "the siege work in 1809 was removed"), "{broken:?}");
    }
}
