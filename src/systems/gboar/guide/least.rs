//! The least a side must order for a step: the orders body that does
//! nothing voluntary and everything the rules require — disrupted units
//! next to the enemy move away (13.3), every unit that must attack does and
//! every enemy unit that must be attacked is (12.12, 12.13), and no fire
//! (11.1, 10.1). It is what a player who sends nothing would be held to,
//! and the skeleton an orders template starts from.
//!
//! Attacks group hexes as 12.15 allows (one attacking hex against several
//! defending hexes, or several against one): first an attacking hex takes
//! the defending hexes no other attacking hex faces; then each defending
//! hex left, the one with the fewest free attacking hexes first, takes the
//! free hexes facing it (keeping back one that is another hex's last);
//! a defending hex left over joins an attack from a single hex facing it,
//! and an attacking hex left over joins an attack on one hex it faces.
//!
//! The guide of `adjutant template` built on them is [`super::template`].

use std::collections::{BTreeMap, BTreeSet};

use crate::base::yaml::{Mapping, Value};

use crate::base::hex::{are_adjacent, HexId};
use crate::systems::gboar::board::refusals::Code;
use crate::systems::gboar::board::state::State;
use crate::systems::gboar::board::units::{hex_of, player_of};
use crate::systems::gboar::board::Rules;
use crate::systems::gboar::data::sequence::Step;
use crate::systems::gboar::phases::movement::ForcedRetreat;

pub(super) fn key(k: &str) -> Value {
    Value::String(k.to_string())
}

/// The least `side` must order for `step` in `state`.
pub fn minimal(rules: &Rules, state: &State, step: &Step, side: &str) -> Value {
    minimal_of(rules, state, step, &[side.to_string()]).remove(side).unwrap_or_default()
}

/// The least orders of each of `sides` for `step`: the phasing player's
/// moves and attacks are found once, for all its sides together.
pub fn minimal_of(rules: &Rules, state: &State, step: &Step, sides: &[String]) -> BTreeMap<String, Value> {
    let mut moves: Option<(BTreeMap<String, Vec<Value>>, Delays)> = None;
    let mut attacks_of_player = None;
    let mut all = BTreeMap::new();
    for side in sides {
        let mut body = Mapping::new();
        // The set-up step: each unit the side deploys, at its printed hex
        // (what no orders would do too), to be changed.
        if matches!(step, Step::GameTurn { phase, .. } if phase == "set-up") {
            let mut deploy = Mapping::new();
            for choice in crate::systems::gboar::phases::set_up::choices(rules, side) {
                if let Some(hex) = state.units.get(&choice.unit).and_then(|u| u.hex) {
                    deploy.insert(key(&choice.unit), Value::String(hex.to_string()));
                }
            }
            if !deploy.is_empty() {
                body.insert(key("deploy"), Value::Mapping(deploy));
            }
        }
        if let Step::PlayerTurn { player, phase, .. } = step {
            match phase.as_str() {
                "movement" => {
                    let (all, delays) = moves.get_or_insert_with(|| least_moves(rules, state, player));
                    body.insert(key("moves"), Value::Sequence(all.remove(side).unwrap_or_default()));
                    if let Some(list) = delays.remove(side).filter(|l| !l.is_empty()) {
                        body.insert(key("delay"), Value::Sequence(list.iter().map(|u| key(u)).collect()));
                    }
                }
                "defensive-artillery-fire" => {
                    body.insert(key("fire"), Value::Sequence(Vec::new()));
                }
                "rifle-fire" => {
                    body.insert(key("rifle_fire"), Value::Sequence(Vec::new()));
                }
                "close-combat" if rules.sequence.sides_of(player).iter().any(|s| s == side) => {
                    let list = attacks_of_player.get_or_insert_with(|| attacks(rules, state, player)).remove(side);
                    body.insert(key("attacks"), Value::Sequence(list.unwrap_or_default()));
                }
                _ => {}
            }
        }
        all.insert(side.clone(), Value::Mapping(body));
    }
    all
}

/// The arrivals each side delays (`delay:`, 9.61), by side.
type Delays = BTreeMap<String, Vec<String>>;

/// The least moves of every side of the phasing player, made side after
/// side so that they validate together, as the phase checks them: two
/// sides' units moving away from the enemy do not end the phase stacked
/// where Savannah 4.1 forbids it; and the arrivals delayed where no move
/// settles a restriction at their entry hex ([`arrival_delays`]).
fn least_moves(rules: &Rules, state: &State, player: &str) -> (BTreeMap<String, Vec<Value>>, Delays) {
    let mut all: BTreeMap<String, Vec<Value>> =
        rules.sequence.sides_of(player).into_iter().map(|s| (s, Vec::new())).collect();
    let sides: Vec<String> = all.keys().cloned().collect();
    for side in &sides {
        disrupted_moves(rules, state, player, side, &mut all);
    }
    retreat_moves(rules, state, player, &sides, &mut all);
    // 13.3 again: a retreat may have emptied the only hex a disrupted unit
    // could move away to.
    for side in &sides {
        disrupted_moves(rules, state, player, side, &mut all);
    }
    // A held gun sent back before 4.1's unstacking: its way home may be
    // the one hex the unit it is stacked with would move to, and its own
    // move unstacks them (self-play, Historical, seed 839, game 1154: the
    // Naval Bombardiers and Horry's S.C. Horse in 1810, 1809 the gun's
    // home).
    for side in &sides {
        return_moves(rules, state, player, side, &mut all);
    }
    unstack_moves(rules, state, player, &mut all);
    arrival_moves(rules, state, player, &mut all);
    for side in &sides {
        return_moves(rules, state, player, side, &mut all);
    }
    let delays = arrival_delays(rules, state, player, &all);
    (all, delays)
}

/// 9.61 with Savannah 4.1: arrivals still placed where a restriction keeps
/// them from ending the phase, when no move settles it (the arrival and
/// the unit it may not end the phase with both hemmed in at the entry
/// hex), are delayed a turn (`delay:`), one at a time while each helps
/// (self-play, Campaign seed 139 game 25: the Negro Volunteers arriving at
/// the British HQ, 1702, on the Royal North Carolinians, neither with a hex
/// in reach).
fn arrival_delays(
    rules: &Rules,
    state: &State,
    player: &str,
    all: &BTreeMap<String, Vec<Value>>,
) -> BTreeMap<String, Vec<String>> {
    let mut delays: BTreeMap<String, Vec<String>> = BTreeMap::new();
    if rules.reinforcements.is_none() || !crate::systems::gboar::effects::arrivals::any_waiting(state) {
        return delays;
    }
    let stuck = |found: &[Found]| found.iter().any(|f| f.code == Code::RestrictedStackEnds);
    let mut before = check_with(rules, state, player, all, &delays);
    while stuck(&before) {
        let mut helped = None;
        'side: for side in all.keys() {
            let mut body = Mapping::new();
            body.insert(key("moves"), Value::Sequence(all[side].clone()));
            let Ok(moves) =
                crate::systems::gboar::phases::movement::unit_moves(rules, state, player, side, &Value::Mapping(body))
            else {
                continue;
            };
            for m in moves.iter().filter(|m| m.arrived.is_some() && m.ordered.is_none()) {
                if delays.get(side).is_some_and(|l| l.contains(&m.unit)) {
                    continue;
                }
                let mut trial = delays.clone();
                trial.entry(side.clone()).or_default().push(m.unit.clone());
                let after = check_with(rules, state, player, all, &trial);
                if improves(&before, &after) {
                    helped = Some((trial, after));
                    break 'side;
                }
            }
        }
        match helped {
            Some((trial, after)) => (delays, before) = (trial, after),
            None => break,
        }
    }
    delays
}

/// Savannah Hist. Special Rules: a held gun that Defensive Artillery Fire
/// sent back (`must_return`) moves toward its at-start hex as quickly as it
/// can: to the hex of its reach nearest that hex (the first, in order, that
/// adds no problem to the orders).
fn return_moves(rules: &Rules, state: &State, player: &str, side: &str, all: &mut BTreeMap<String, Vec<Value>>) {
    let layout = rules.module.map.layout;
    let sent_back: Vec<(&String, HexId, HexId)> = state
        .units
        .iter()
        .filter(|(id, u)| u.must_return && crate::systems::gboar::board::units::side_of(rules, id) == side)
        .filter_map(|(id, _)| {
            let home = rules.counter(id)?.setup.as_ref()?.hex.parse::<HexId>().ok()?;
            Some((id, hex_of(state, id)?, home))
        })
        .filter(|(_, at, home)| at != home)
        .collect();
    for (id, at, home) in sent_back {
        let body = |moves: &[Value]| {
            let mut b = Mapping::new();
            b.insert(key("moves"), Value::Sequence(moves.to_vec()));
            Value::Mapping(b)
        };
        let mine = all.get(side).cloned().unwrap_or_default();
        let Ok(moves) =
            crate::systems::gboar::phases::movement::unit_moves_of(rules, state, player, side, &body(&mine), |u| {
                u == id.as_str()
            })
        else {
            continue;
        };
        let Some(m) = moves.into_iter().find(|m| &m.unit == id && m.ordered.is_none()) else { continue };
        let mut to: Vec<HexId> = m
            .reach
            .into_iter()
            .filter(|h| crate::base::hex::distance(*h, home, layout) < crate::base::hex::distance(at, home, layout))
            .collect();
        to.sort_by_key(|h| (crate::base::hex::distance(*h, home, layout), *h));
        let before = check_moves(rules, state, player, all);
        for h in to {
            let mut one = Mapping::new();
            one.insert(key("unit"), key(id));
            one.insert(key("to"), key(&h.to_string()));
            let mut trial = all.clone();
            trial.entry(side.to_string()).or_default().push(Value::Mapping(one));
            if improves(&before, &check_moves(rules, state, player, &trial)) {
                *all = trial;
                break;
            }
        }
    }
}

/// Savannah 4.1: units a retreat left stacked where a restriction forbids
/// it to end a Movement Phase (`after_retreat.unstack_next_friendly_movement:
/// always`) unstack: one of them moves, to the first hex next to it (else
/// of its reach) that takes away a problem of the orders and adds none.
fn unstack_moves(rules: &Rules, state: &State, player: &str, all: &mut BTreeMap<String, Vec<Value>>) {
    let always = |r: &crate::systems::gboar::data::stacking::Restriction| {
        !r.may_end_movement_phase_stacked
            && r.after_retreat.as_ref().and_then(|a| a.unstack_next_friendly_movement.as_deref()) == Some("always")
    };
    let hexes: BTreeSet<HexId> =
        state.units.keys().filter(|u| player_of(rules, u) == player).filter_map(|u| hex_of(state, u)).collect();
    for hex in hexes {
        // A hex whose units hold no such pair holds none once some move.
        if crate::systems::gboar::board::stacking::restricted_stack(rules, state, hex, always).is_none() {
            continue;
        }
        // While the units the moves so far leave in the hex hold a pair
        // the restriction keeps apart, and a move of one of them helps
        // (any unit of any pair: the first pair may be two that cannot
        // move, a shattered unit and a fixed gun, while a third can;
        // self-play, seed 1, games 920, 4394, 7624, 8996).
        loop {
            let mut staying = state.clone();
            staying.units.retain(|id, _| !moved(all, id));
            let units = crate::systems::gboar::board::stacking::restricted_units(rules, &staying, hex, always);
            if units.is_empty() {
                break;
            }
            let before = check_moves(rules, state, player, all);
            // The trial, or the trial with the 13.3 moves it makes required:
            // a unit leaving may open the one hex away of a disrupted unit
            // of the player's other side, which must then take it
            // (self-play, Historical, seed 827, game 995: Dillon's Irish
            // leaving Skirving in 2108 left it to Reed).
            let helps = |trial: BTreeMap<String, Vec<Value>>| -> Option<BTreeMap<String, Vec<Value>>> {
                let after = check_moves(rules, state, player, &trial);
                if improves(&before, &after) {
                    return Some(trial);
                }
                let opened = |p: &Found| {
                    p.code == Code::DisruptedNextToEnemy && !before.iter().any(|b| b.side == p.side && b.code == p.code)
                };
                if !after.iter().any(opened) {
                    return None;
                }
                let mut more = trial.clone();
                for side in trial.keys() {
                    disrupted_moves(rules, state, player, side, &mut more);
                }
                (more != trial && improves(&before, &check_moves(rules, state, player, &more))).then_some(more)
            };
            let mut helped = None;
            'unit: for id in &units {
                let side = crate::systems::gboar::board::units::side_of(rules, id).to_string();
                if !all.contains_key(&side) {
                    continue;
                }
                let mut to: Vec<HexId> = crate::base::hex::neighbours(hex, rules.module.map.layout);
                let mut body = Mapping::new();
                body.insert(key("moves"), Value::Sequence(all[&side].clone()));
                if let Ok(moves) = crate::systems::gboar::phases::movement::unit_moves_of(
                    rules,
                    state,
                    player,
                    &side,
                    &Value::Mapping(body),
                    |u| u == id.as_str(),
                ) {
                    to.extend(moves.iter().filter(|m| &m.unit == id).flat_map(|m| m.reach.iter().copied()));
                }
                for h in to {
                    let mut one = Mapping::new();
                    one.insert(key("unit"), key(id));
                    one.insert(key("to"), key(&h.to_string()));
                    let mut trial = all.clone();
                    trial.entry(side.clone()).or_default().push(Value::Mapping(one));
                    if let Some(trial) = helps(trial) {
                        helped = Some(trial);
                        break 'unit;
                    }
                }
            }
            match helped {
                Some(trial) => *all = trial,
                None => break,
            }
        }
    }
}

/// Savannah 4.1 with 9.61: a reinforcement placed in its entry hex with a
/// unit a restriction keeps apart from it at the end of a Movement Phase
/// (self-play, campaign, seed 2, game 16: a French regular arriving at F
/// where a colonial unit stayed) moves away, or else a unit standing there
/// that it may not end the phase with: to the hex of its reach nearest the
/// entry hex that takes away a problem of the orders and adds none. Only
/// when the orders have such a problem (the reach is costly).
fn arrival_moves(rules: &Rules, state: &State, player: &str, all: &mut BTreeMap<String, Vec<Value>>) {
    let stuck = |all: &BTreeMap<String, Vec<Value>>| {
        let bodies: BTreeMap<String, Value> = all
            .iter()
            .map(|(side, moves)| {
                let mut b = Mapping::new();
                b.insert(key("moves"), Value::Sequence(moves.clone()));
                (side.clone(), Value::Mapping(b))
            })
            .collect();
        crate::systems::gboar::phases::movement::validate_sides(rules, state, player, &bodies)
            .iter()
            .any(|(_, p)| p.code == crate::systems::gboar::board::refusals::Code::RestrictedStackEnds)
    };
    // Only a unit waiting off the map as a reinforcement can arrive (9.61):
    // without one no move below is an arrival's, and the check of every
    // side's orders that `stuck` makes would be made for nothing.
    if rules.reinforcements.is_none() || !crate::systems::gboar::effects::arrivals::any_waiting(state) {
        return;
    }
    let layout = rules.module.map.layout;
    let sides: Vec<String> = all.keys().cloned().collect();
    let keep = |r: &crate::systems::gboar::data::stacking::Restriction| !r.may_end_movement_phase_stacked;
    for side in &sides {
        while stuck(all) {
            // What each side's units may do after the moves so far.
            let mut of_side: BTreeMap<&String, Vec<crate::systems::gboar::phases::movement::UnitMoves>> =
                BTreeMap::new();
            for s in &sides {
                let mut body = Mapping::new();
                body.insert(key("moves"), Value::Sequence(all[s].clone()));
                if let Ok(moves) =
                    crate::systems::gboar::phases::movement::unit_moves(rules, state, player, s, &Value::Mapping(body))
                {
                    of_side.insert(s, moves);
                }
            }
            let Some(moves) = of_side.get(side) else { break };
            // The units in their hexes as the phase begins (every side's
            // arrivals placed), less those the moves so far take away.
            let mut staying = state.clone();
            for m in of_side.values().flatten().filter(|m| m.arrived.is_some()) {
                if let Some(u) = staying.units.get_mut(&m.unit) {
                    u.hex = Some(m.hex);
                    u.off_map = None;
                }
            }
            staying.units.retain(|id, _| !moved(all, id));
            // The entry hexes where an arrival no order moves stands.
            let entries: BTreeSet<HexId> = of_side
                .values()
                .flatten()
                .filter(|m| m.arrived.is_some() && m.ordered.is_none())
                .map(|m| m.hex)
                .collect();
            let before = check_moves(rules, state, player, all);
            let mut helped = None;
            // The arrivals first; then the units that stand in an entry hex
            // with one. Moving an arrival away may not help when others
            // arrived with it: those the stacking limit held over (Savannah
            // 4.7) then stay in its place, while the unit they all may not
            // end the phase with can leave (self-play, Campaign, seed 31,
            // game 658: three French regulars arriving at F, 3123, where
            // the Grenadiers de San Domingue stood).
            let arrivals = moves.iter().filter(|m| m.arrived.is_some());
            let standing = moves.iter().filter(|m| m.arrived.is_none() && entries.contains(&m.hex));
            'unit: for m in arrivals.chain(standing).filter(|m| m.ordered.is_none()) {
                if !crate::systems::gboar::board::stacking::restricted_units(rules, &staying, m.hex, keep)
                    .contains(&m.unit)
                {
                    continue;
                }
                let mut to = m.reach.clone();
                to.sort_by_key(|h| (crate::base::hex::distance(*h, m.hex, layout), *h));
                for h in to {
                    let mut one = Mapping::new();
                    one.insert(key("unit"), key(&m.unit));
                    one.insert(key("to"), key(&h.to_string()));
                    let mut trial = all.clone();
                    trial.entry(side.clone()).or_default().push(Value::Mapping(one));
                    if improves(&before, &check_moves(rules, state, player, &trial)) {
                        helped = Some(trial);
                        break 'unit;
                    }
                }
            }
            match helped {
                Some(trial) => *all = trial,
                None => break,
            }
        }
    }
}

/// Whether the moves so far move unit `id`.
fn moved(all: &BTreeMap<String, Vec<Value>>, id: &str) -> bool {
    all.values().flatten().any(|m| m.get("unit").and_then(Value::as_str) == Some(id))
}

/// A problem of every side's moves checked together ([`check_moves`]).
#[derive(Debug, Clone)]
struct Found {
    side: String,
    field: String,
    code: Code,
    message: String,
}

/// Every side's moves checked together, as the phase checks them before
/// moving anything, and each side's alone, as `validate` and `submit`
/// check a side's file: each problem with its side. The two differ: a
/// side's file alone lets the other sides' units leave first (their
/// hexes count as open for its moves), and holds a disrupted unit only to
/// hexes no other side's unit could take (self-play, Historical, seed
/// 569, game 568), while the whole phase knows who moves where.
fn check_moves(rules: &Rules, state: &State, player: &str, all: &BTreeMap<String, Vec<Value>>) -> Vec<Found> {
    check_with(rules, state, player, all, &BTreeMap::new())
}

/// [`check_moves`] with arrivals delayed (`delay:`, 9.61).
fn check_with(
    rules: &Rules,
    state: &State,
    player: &str,
    all: &BTreeMap<String, Vec<Value>>,
    delays: &BTreeMap<String, Vec<String>>,
) -> Vec<Found> {
    let bodies: BTreeMap<String, Value> = all
        .iter()
        .map(|(side, moves)| {
            let mut b = Mapping::new();
            b.insert(key("moves"), Value::Sequence(moves.clone()));
            if let Some(list) = delays.get(side).filter(|l| !l.is_empty()) {
                b.insert(key("delay"), Value::Sequence(list.iter().map(|u| key(u)).collect()));
            }
            (side.clone(), Value::Mapping(b))
        })
        .collect();
    let mut found: Vec<Found> = crate::systems::gboar::phases::movement::validate_sides(rules, state, player, &bodies)
        .into_iter()
        .map(|(side, p)| Found { side, field: p.field, code: p.code, message: p.message })
        .collect();
    for (side, body) in &bodies {
        for p in crate::systems::gboar::phases::movement::validate(rules, state, player, side, body) {
            if !found.iter().any(|f| &f.side == side && f.field == p.field && f.code == p.code) {
                found.push(Found { side: side.clone(), field: p.field, code: p.code, message: p.message });
            }
        }
    }
    found
}

/// Whether a trial move's problems (`after`) improve on those of the
/// orders without it (`before`): fewer, and none that `before` has not. A
/// problem is the same problem when its side, field and code are: its
/// words may list hexes that the trial move changes without adding a
/// problem. 13.3's "it can move to 1308, 1309, 1409" for a disrupted
/// French unit loses 1409 once a disrupted American unit of its stack
/// moves there (Savannah 4.1 keeps them apart), and comparing the words
/// refused every move of either (self-play, seed 23, game 1344).
fn improves(before: &[Found], after: &[Found]) -> bool {
    if after.len() >= before.len() {
        return false;
    }
    let mut open: BTreeMap<(&str, &str, Code), usize> = BTreeMap::new();
    for p in before {
        *open.entry((p.side.as_str(), p.field.as_str(), p.code)).or_default() += 1;
    }
    after.iter().all(|p| match open.get_mut(&(p.side.as_str(), p.field.as_str(), p.code)) {
        Some(n) if *n > 0 => {
            *n -= 1;
            true
        }
        _ => false,
    })
}

/// 13.3: a disrupted unit next to the enemy moves to the first hex its
/// rule allows (the movement checker lists them; here, the first
/// neighbour that takes it furthest from the enemy), with the moves of the
/// player's other sides.
fn disrupted_moves(rules: &Rules, state: &State, player: &str, side: &str, all: &mut BTreeMap<String, Vec<Value>>) {
    for (id, u) in &state.units {
        let Some(c) = rules.counter(id) else { continue };
        if c.is_leader()
            || u.condition != crate::systems::gboar::board::state::Condition::Disrupted
            || crate::systems::gboar::board::units::side_of(rules, id) != side
            || player_of(rules, id) != player
        {
            continue;
        }
        let Some(hex) = hex_of(state, id) else { continue };
        // Moved already (by an earlier pass).
        if moved(all, id) {
            continue;
        }
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
        let before = check_moves(rules, state, player, all);
        for n in crate::base::hex::neighbours(hex, rules.module.map.layout) {
            let mut one = Mapping::new();
            one.insert(key("unit"), key(id));
            one.insert(key("path"), Value::Sequence(vec![key(&n.to_string())]));
            let mut trial = all.clone();
            let moves = trial.entry(side.to_string()).or_default();
            let at = format!("moves[{}]", moves.len());
            moves.push(Value::Mapping(one));
            // The move takes away the unit's problem and adds none (another
            // problem may name it: a stack it leaves, say).
            let after = check_moves(rules, state, player, &trial);
            let at_move =
                |f: &str| f.strip_prefix(&at).is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']));
            if improves(&before, &after) && !after.iter().any(|p| p.side == side && at_move(&p.field)) {
                *all = trial;
                break;
            }
        }
    }
}

/// Savannah 4.1: a unit of a restricted stack next to the enemy that must
/// retreat instead of attacking moves to the cheapest hex next to no enemy
/// unit that adds no problem to the orders of the player's sides (the
/// movement checker lists the hexes; a stack's units end apart, as 4.1
/// wants them). The retreats of every side are chosen together, the first
/// hexes that let every one be made ([`retreat_search`]): one unit's
/// retreat may take the only way out of another's (self-play, seed 37,
/// game 1684: the 3rd South Carolina, retreating first to 1509, where the
/// 5th stood, left the Avant-Garde no path that 1509's stacking limit did
/// not bar, 7.1). Where no choice lets every one be made, each side's are
/// made in turn, each to the first hex that helps.
fn retreat_moves(rules: &Rules, state: &State, player: &str, sides: &[String], all: &mut BTreeMap<String, Vec<Value>>) {
    let forced: Vec<(&String, ForcedRetreat)> =
        crate::systems::gboar::phases::movement::forced_retreats(rules, state, player, sides);
    if forced.is_empty() {
        return;
    }
    // Checks of every side's orders the search may make: a few units with
    // a few hexes each settle in far fewer.
    let mut budget = 200u32;
    if let Some(found) = retreat_search(rules, state, player, &forced, all.clone(), &mut budget) {
        *all = found;
        return;
    }
    for (side, f) in &forced {
        let before = check_moves(rules, state, player, all);
        for to in &f.options {
            let trial = with_retreat(all, side, f, *to);
            if retreat_helps(rules, state, player, f, &before, &trial) {
                *all = trial;
                break;
            }
        }
    }
}

/// The forced retreats `forced`, in order, each to the first of its hexes
/// that helps ([`retreat_helps`]) and lets every later one be made too;
/// `None` when no choice does, or the search spends its `budget`.
fn retreat_search(
    rules: &Rules,
    state: &State,
    player: &str,
    forced: &[(&String, ForcedRetreat)],
    all: BTreeMap<String, Vec<Value>>,
    budget: &mut u32,
) -> Option<BTreeMap<String, Vec<Value>>> {
    let Some(((side, f), rest)) = forced.split_first() else { return Some(all) };
    let before = check_moves(rules, state, player, &all);
    for to in &f.options {
        if *budget == 0 {
            return None;
        }
        *budget -= 1;
        let trial = with_retreat(&all, side, f, *to);
        if retreat_helps(rules, state, player, f, &before, &trial) {
            if let Some(done) = retreat_search(rules, state, player, rest, trial, budget) {
                return Some(done);
            }
        }
    }
    None
}

/// `all` with `f`'s unit retreating to `to` in `side`'s moves.
fn with_retreat(
    all: &BTreeMap<String, Vec<Value>>,
    side: &str,
    f: &ForcedRetreat,
    to: HexId,
) -> BTreeMap<String, Vec<Value>> {
    let mut one = Mapping::new();
    one.insert(key("unit"), key(&f.unit));
    one.insert(key("to"), key(&to.to_string()));
    let mut trial = all.clone();
    trial.entry(side.to_string()).or_default().push(Value::Mapping(one));
    trial
}

/// Whether `trial` takes away `f`'s own problem (it must retreat) and
/// improves on `before` ([`improves`]).
fn retreat_helps(
    rules: &Rules,
    state: &State,
    player: &str,
    f: &ForcedRetreat,
    before: &[Found],
    trial: &BTreeMap<String, Vec<Value>>,
) -> bool {
    let own = format!("{} begins the Movement Phase", f.unit);
    let after = check_moves(rules, state, player, trial);
    // 13.3's problems aside: a retreat may leave a disrupted unit's only
    // hex away from the enemy open, which the disrupted units' moves made
    // again after the retreats take (self-play, seed 71, game 1861: Harden
    // could leave only to 1908, which the Champagne Chasseurs' retreat
    // emptied).
    let settled = |list: &[Found]| -> Vec<Found> {
        list.iter().filter(|p| p.code != Code::DisruptedNextToEnemy).cloned().collect()
    };
    improves(&settled(before), &settled(&after)) && !after.iter().any(|p| p.message.starts_with(&own))
}

/// Savannah 4.13 (module.yaml `close_combat.cooperation`): whether the
/// units may all take part in one attack.
fn may_combine(rules: &Rules, units: &[String]) -> bool {
    let fighting: Vec<&crate::systems::gboar::data::counters::Counter> =
        units.iter().filter_map(|u| rules.counter(u)).filter(|c| !c.is_leader()).collect();
    rules
        .close_combat
        .cooperation
        .iter()
        .all(|r| fighting.iter().enumerate().all(|(n, x)| fighting.iter().skip(n + 1).all(|y| !r.applies(x, y))))
}

/// 12.12, 12.13, 12.15, Savannah 4.13: the attacks the phasing player's
/// units must make, every side's together (so that no two sides attack one
/// hex, and units that may not cooperate never combine), each attack in
/// the orders of the side most of its attackers belong to.
fn attacks(rules: &Rules, state: &State, player: &str) -> BTreeMap<String, Vec<Value>> {
    let layout = rules.module.map.layout;
    // 12.12 asked of every unit of the player: on one index of the board.
    let occupancy = crate::systems::gboar::board::units::Occupancy::new(rules, state);
    let must: Vec<String> = state
        .units
        .keys()
        .filter(|u| {
            player_of(rules, u) == player
                && crate::systems::gboar::board::units::must_attack_in(rules, state, u, Some(&occupancy))
        })
        .cloned()
        .collect();
    let mut defending: BTreeSet<HexId> = BTreeSet::new();
    for u in &must {
        let Some(h) = hex_of(state, u) else { continue };
        for e in state.units.keys() {
            if player_of(rules, e) != player && rules.counter(e).is_some_and(|c| !c.is_leader()) {
                // Savannah 1.6: not a hex of the perimeter on the
                // Strategic Turn Track.
                let open = |eh: &HexId| {
                    are_adjacent(h, *eh, layout)
                        && crate::systems::gboar::board::units::perimeter_closed(rules, state, u, *eh).is_none()
                };
                if let Some(eh) = hex_of(state, e).filter(open) {
                    defending.insert(eh);
                }
            }
        }
    }
    // The units that must attack, by hex, and which hexes face which.
    let mut units_at: BTreeMap<HexId, Vec<String>> = BTreeMap::new();
    for u in &must {
        if let Some(h) = hex_of(state, u) {
            units_at.entry(h).or_default().push(u.clone());
        }
    }
    let faces = |a: HexId, d: HexId| are_adjacent(a, d, layout);
    // Savannah 4.13: attacking hexes whose units may combine in one attack.
    let combine =
        |hexes: &[HexId]| may_combine(rules, &hexes.iter().flat_map(|h| units_at[h].clone()).collect::<Vec<_>>());
    let mut free: BTreeSet<HexId> = units_at.keys().copied().collect();
    let mut left: BTreeSet<HexId> = defending.clone();
    let mut list: Vec<(Vec<HexId>, Vec<HexId>)> = Vec::new();
    // 1. An attacking hex with defending hexes no other attacking hex faces
    //    takes them all: one hex against several (12.15).
    for &a in units_at.keys() {
        let own: Vec<HexId> =
            left.iter().copied().filter(|&d| faces(a, d) && units_at.keys().all(|&o| o == a || !faces(o, d))).collect();
        if !own.is_empty() {
            left.retain(|d| !own.contains(d));
            free.remove(&a);
            list.push((vec![a], own));
        }
    }
    // 2. Each defending hex left, the one with the fewest free attacking
    //    hexes first: several hexes against it (12.15) that may combine
    //    (Savannah 4.13), keeping back a hex that is another defending
    //    hex's last free attacker.
    loop {
        let options = |d: HexId, free: &BTreeSet<HexId>| free.iter().filter(|&&a| faces(a, d)).count();
        let Some(d) = left.iter().copied().filter(|&d| options(d, &free) > 0).min_by_key(|&d| (options(d, &free), d))
        else {
            break;
        };
        let others: Vec<HexId> = left.iter().copied().filter(|&o| o != d).collect();
        let mut take: Vec<HexId> = Vec::new();
        for a in free
            .iter()
            .copied()
            .filter(|&a| faces(a, d) && !others.iter().any(|&o| faces(a, o) && options(o, &free) == 1))
        {
            if combine(&[take.clone(), vec![a]].concat()) {
                take.push(a);
            }
        }
        if take.is_empty() {
            take = free.iter().copied().filter(|&a| faces(a, d)).take(1).collect();
        }
        for a in &take {
            free.remove(a);
        }
        left.remove(&d);
        list.push((take, vec![d]));
    }
    // 3. Defending hexes no free hex faces join an attack from a single
    //    hex that faces them.
    for d in left {
        if let Some(attack) = list.iter_mut().find(|(atts, _)| atts.len() == 1 && faces(atts[0], d)) {
            attack.1.push(d);
        }
    }
    // 4. Attacking hexes still free (every hex they face is attacked) join
    //    an attack on one hex they face, when they may combine with its
    //    attackers; from an attack on several hexes, that hex is taken out
    //    into an attack of its own.
    for a in free {
        if let Some(attack) = list
            .iter_mut()
            .find(|(atts, ds)| ds.len() == 1 && faces(a, ds[0]) && combine(&[atts.clone(), vec![a]].concat()))
        {
            attack.0.push(a);
            continue;
        }
        if let Some(i) = list.iter().position(|(_, ds)| ds.iter().any(|&d| faces(a, d))) {
            let d = list[i].1.iter().copied().find(|&d| faces(a, d)).unwrap_or(list[i].1[0]);
            list[i].1.retain(|&x| x != d);
            let (atts, _) = list[i].clone();
            if list[i].1.is_empty() && combine(&[atts.clone(), vec![a]].concat()) {
                list.remove(i);
                list.push(([atts, vec![a]].concat(), vec![d]));
            } else if list[i].1.is_empty() {
                // The hex it took out was that attack's only one: it stays there.
                list[i].1.push(d);
            } else {
                list.push((vec![a], vec![d]));
            }
        }
    }
    list.sort();
    let greedy: Vec<(Vec<String>, Vec<HexId>)> = list
        .into_iter()
        .map(|(hexes, ds)| (hexes.iter().flat_map(|h| units_at[h].iter().cloned()).collect(), ds))
        .collect();
    let bodies = attack_bodies(rules, &greedy);
    if designation_refused(rules, state, player, &bodies) {
        let built = attack_bodies(rules, &built_attacks(rules, state, &must, &defending));
        return built.into_iter().map(|(side, body)| (side, attacks_of(&body))).collect();
    }
    bodies.into_iter().map(|(side, body)| (side, attacks_of(&body))).collect()
}

fn attacks_of(body: &Value) -> Vec<Value> {
    body.get("attacks").and_then(Value::as_sequence).cloned().unwrap_or_default()
}

/// Each side's attack orders: the attacks (attackers, defending hexes) in
/// their order, each in the orders of the side most of its attackers
/// belong to (the first such side on a tie).
fn attack_bodies(rules: &Rules, list: &[(Vec<String>, Vec<HexId>)]) -> BTreeMap<String, Value> {
    let list: Vec<(Vec<String>, Vec<HexId>)> = list
        .iter()
        .map(|(a, d)| {
            let (mut a, mut d) = (a.clone(), d.clone());
            a.sort();
            d.sort();
            (a, d)
        })
        .collect();
    let mut by_side: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for (atts, ds) in list {
        let mut count: BTreeMap<String, usize> = BTreeMap::new();
        for a in &atts {
            *count.entry(crate::systems::gboar::board::units::side_of(rules, a).to_string()).or_default() += 1;
        }
        let most = count.values().copied().max().unwrap_or(0);
        let side = count.into_iter().find(|(_, n)| *n == most).map(|(s, _)| s).unwrap_or_default();
        let mut m = Mapping::new();
        m.insert(key("attackers"), Value::Sequence(atts.iter().map(|a| key(a)).collect()));
        m.insert(key("defenders"), Value::Sequence(ds.iter().map(|d| key(&d.to_string())).collect()));
        by_side.entry(side).or_default().push(Value::Mapping(m));
    }
    by_side
        .into_iter()
        .map(|(side, list)| {
            let mut b = Mapping::new();
            b.insert(key("attacks"), Value::Sequence(list));
            (side, Value::Mapping(b))
        })
        .collect()
}

/// Whether the designation's own check (12.12-12.15, Savannah 4.13, ...)
/// refuses these orders of the player's sides, taken together.
fn designation_refused(rules: &Rules, state: &State, player: &str, bodies: &BTreeMap<String, Value>) -> bool {
    let mut all: BTreeMap<String, Value> =
        rules.sequence.sides_of(player).into_iter().map(|s| (s, Value::Mapping(Mapping::new()))).collect();
    all.extend(bodies.iter().map(|(s, b)| (s.clone(), b.clone())));
    !crate::systems::gboar::phases::close_combat::designate(rules, state, player, &all, true).1.is_empty()
}

/// When the grouping above leaves the designation refused (Savannah
/// 4.13 forbids a combination it made, or it leaves a hex or a unit out):
/// a designation built unit by unit, which the designation's check always
/// accepts. Each defending hex, in order, is taken by the first unit that
/// must attack next to it: one unit against the hexes it takes (12.15).
/// Each unit left then, in order, joins the attack on a hex next to it
/// that has one defending hex and attackers it may combine with (several
/// hexes against one, 12.15); else it takes out of an attack on several
/// hexes one next to it and attacks that alone; else every hex next to it
/// is attacked, alone, by units it may not combine with, and Savannah 4.13
/// leaves it no attack (the designation's check excuses it from 12.12).
fn built_attacks(
    rules: &Rules,
    state: &State,
    must: &[String],
    defending: &BTreeSet<HexId>,
) -> Vec<(Vec<String>, Vec<HexId>)> {
    let layout = rules.module.map.layout;
    let next_to = |u: &str, d: HexId| hex_of(state, u).is_some_and(|h| are_adjacent(h, d, layout));
    let mut list: Vec<(Vec<String>, Vec<HexId>)> = Vec::new();
    for &d in defending {
        let Some(u) = must.iter().find(|u| next_to(u, d)) else { continue };
        match list.iter_mut().find(|(atts, _)| atts.len() == 1 && &atts[0] == u) {
            Some(attack) => attack.1.push(d),
            None => list.push((vec![u.clone()], vec![d])),
        }
    }
    for u in must {
        if list.iter().any(|(atts, _)| atts.contains(u)) {
            continue;
        }
        let mine: Vec<HexId> = defending.iter().copied().filter(|&d| next_to(u, d)).collect();
        let joins = list.iter().position(|(atts, ds)| {
            ds.len() == 1 && mine.contains(&ds[0]) && may_combine(rules, &[atts.clone(), vec![u.clone()]].concat())
        });
        if let Some(i) = joins {
            list[i].0.push(u.clone());
            continue;
        }
        let split = list.iter().position(|(_, ds)| ds.len() > 1 && ds.iter().any(|d| mine.contains(d)));
        if let Some(i) = split {
            let Some(d) = list[i].1.iter().copied().find(|d| mine.contains(d)) else { continue };
            list[i].1.retain(|&x| x != d);
            list.push((vec![u.clone()], vec![d]));
        }
    }
    list
}

/// Every side's least orders for a step, keyed by side (for tests and the demo).
pub fn minimal_all(rules: &Rules, state: &State, step: &Step) -> BTreeMap<String, Value> {
    minimal_of(rules, state, step, &crate::systems::gboar::phases::awaited(rules, state, step))
}
