//! The least a side must order for a step: the orders body that does
//! nothing voluntary and everything the rules require — disrupted units
//! next to the enemy move away (13.3), every unit that must attack does and
//! every enemy unit that must be attacked is (12.12, 12.13), and no fire
//! (11.1, 10.1). It is what a player who sends nothing would be held to,
//! and the skeleton an orders template starts from.
//!
//! Attacks are built one defending hex at a time, in hex order: each takes
//! every unit of the side next to it that must attack and is not yet
//! committed (12.15 allows several attacking hexes against one defending
//! hex); a hex whose neighbours are all committed joins an attack from a
//! single attacking hex next to it (one attacking hex against several
//! defending hexes).

use std::collections::{BTreeMap, BTreeSet};

use serde_yaml::{Mapping, Value};

use super::sequence::Step;
use super::state::State;
use super::Rules;
use crate::hex::{are_adjacent, HexId};

fn hex_of(state: &State, id: &str) -> Option<HexId> {
    state.units.get(id).and_then(|u| u.hex.as_deref()).and_then(|h| h.parse().ok())
}

fn player_of(rules: &Rules, id: &str) -> String {
    rules.army_of(id).and_then(|a| rules.player_of_army(a)).unwrap_or_default().to_string()
}

fn key(k: &str) -> Value {
    Value::String(k.to_string())
}

/// The least `side` must order for `step` in `state`.
pub fn minimal(rules: &Rules, state: &State, step: &Step, side: &str) -> Value {
    let mut body = Mapping::new();
    let Step::PlayerTurn { player, phase, .. } = step else { return Value::Mapping(body) };
    match phase.as_str() {
        "movement" => body.insert(key("moves"), Value::Sequence(disrupted_moves(rules, state, player, side))),
        "defensive-artillery-fire" => body.insert(key("fire"), Value::Sequence(Vec::new())),
        "rifle-fire" => body.insert(key("rifle_fire"), Value::Sequence(Vec::new())),
        "close-combat" if rules.sequence.sides_of(player).iter().any(|s| s == side) => {
            body.insert(key("attacks"), Value::Sequence(attacks(rules, state, player, side)))
        }
        _ => None,
    };
    Value::Mapping(body)
}

/// 13.3: a disrupted unit next to the enemy moves to the first hex its
/// rule allows (the movement checker lists them; here, the first
/// neighbour that takes it furthest from the enemy).
fn disrupted_moves(rules: &Rules, state: &State, player: &str, side: &str) -> Vec<Value> {
    let mut moves = Vec::new();
    for (id, u) in &state.units {
        let Some(c) = rules.counter(id) else { continue };
        if c.is_leader()
            || u.condition != super::state::Condition::Disrupted
            || super::close_combat::side_of(rules, id) != side
            || player_of(rules, id) != player
        {
            continue;
        }
        let Some(hex) = hex_of(state, id) else { continue };
        let enemy_next = |h: HexId| {
            state.units.keys().any(|e| {
                player_of(rules, e) != player
                    && rules.counter(e).is_some_and(|x| !x.is_leader())
                    && hex_of(state, e).is_some_and(|eh| are_adjacent(h, eh, rules.module.map.layout))
            })
        };
        if !enemy_next(hex) {
            continue;
        }
        for n in crate::hex::neighbours(hex, rules.module.map.layout) {
            let mut one = Mapping::new();
            one.insert(key("unit"), key(id));
            one.insert(key("path"), Value::Sequence(vec![key(&n.to_string())]));
            let mut trial = moves.clone();
            trial.push(Value::Mapping(one.clone()));
            let mut b = Mapping::new();
            b.insert(key("moves"), Value::Sequence(trial));
            let problems = super::movement::validate(rules, state, player, side, &Value::Mapping(b));
            if problems
                .iter()
                .all(|p| !p.message.contains(id.as_str()) && !p.field.starts_with(&format!("moves[{}]", moves.len())))
            {
                moves.push(Value::Mapping(one));
                break;
            }
        }
    }
    moves
}

/// 12.12, 12.13, 12.15: the attacks the side's units must make.
fn attacks(rules: &Rules, state: &State, player: &str, side: &str) -> Vec<Value> {
    let layout = rules.module.map.layout;
    let must: Vec<String> = state
        .units
        .keys()
        .filter(|u| super::close_combat::side_of(rules, u) == side && super::close_combat::must_attack(rules, state, u))
        .cloned()
        .collect();
    let mut defending: BTreeSet<HexId> = BTreeSet::new();
    for u in &must {
        let Some(h) = hex_of(state, u) else { continue };
        for e in state.units.keys() {
            if player_of(rules, e) != player && rules.counter(e).is_some_and(|c| !c.is_leader()) {
                if let Some(eh) = hex_of(state, e).filter(|eh| are_adjacent(h, *eh, layout)) {
                    defending.insert(eh);
                }
            }
        }
    }
    let mut used: BTreeSet<String> = BTreeSet::new();
    let mut list: Vec<(Vec<String>, Vec<HexId>)> = Vec::new();
    let mut orphans: Vec<HexId> = Vec::new();
    for d in &defending {
        let attackers: Vec<String> = must
            .iter()
            .filter(|u| !used.contains(*u) && hex_of(state, u).is_some_and(|h| are_adjacent(h, *d, layout)))
            .cloned()
            .collect();
        if attackers.is_empty() {
            orphans.push(*d);
            continue;
        }
        used.extend(attackers.iter().cloned());
        list.push((attackers, vec![*d]));
    }
    // Units that must attack but whose neighbours are all taken join one.
    for u in &must {
        if used.contains(u) {
            continue;
        }
        let Some(h) = hex_of(state, u) else { continue };
        if let Some(a) = list.iter_mut().find(|(_, ds)| ds.len() == 1 && ds.iter().all(|d| are_adjacent(h, *d, layout)))
        {
            a.0.push(u.clone());
            used.insert(u.clone());
        }
    }
    // Defending hexes left: joined to an attack from a single hex next to them.
    for d in orphans {
        if let Some(a) = list.iter_mut().find(|(atts, _)| {
            let hexes: BTreeSet<HexId> = atts.iter().filter_map(|u| hex_of(state, u)).collect();
            hexes.len() == 1 && hexes.iter().all(|h| are_adjacent(*h, d, layout))
        }) {
            a.1.push(d);
        }
    }
    list.into_iter()
        .map(|(atts, ds)| {
            let mut m = Mapping::new();
            m.insert(key("attackers"), Value::Sequence(atts.iter().map(|a| key(a)).collect()));
            m.insert(key("defenders"), Value::Sequence(ds.iter().map(|d| key(&d.to_string())).collect()));
            Value::Mapping(m)
        })
        .collect()
}

/// Every side's least orders for a step, keyed by side (for tests and the demo).
pub fn minimal_all(rules: &Rules, state: &State, step: &Step) -> BTreeMap<String, Value> {
    super::awaited(rules, state, step).into_iter().map(|s| (s.clone(), minimal(rules, state, step, &s))).collect()
}
