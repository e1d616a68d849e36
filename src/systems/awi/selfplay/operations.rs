//! A side's operations orders drawn at random, every list of them
//! (docs/awi-southern.md; the orders format: docs/orders.md): replacements
//! given (REPLACEMENTS), militia formed (MILITIA UNITS), fleets sailing and
//! a troop fleet's passengers (stand-ins, 1776's naval movement), land
//! moves, works built (FORTIFICATIONS, ENTRENCHMENTS) and the garrisons of
//! the side's forts (SUPPLY: who is inside a fort).
//!
//! Each is drawn where the state allows it, not checked: `validate` decides,
//! and the caller drops what it refuses.

use std::collections::{BTreeMap, BTreeSet};

use crate::base::hex::{neighbours, HexId};
use crate::base::yaml::{mapping, strings, text, Mapping, Value};
use crate::systems::awi::board::{land_neighbours, State};
use crate::systems::awi::data::{Class, FleetKind, Kind};
use crate::systems::awi::rules::{fleets, militia};
use crate::systems::awi::system::Rules;

use super::{number, Draw};

/// The lists of an operations body, in the order they are drawn and
/// written. `moves` is always written (the empty orders are `moves: []`).
pub const LISTS: [&str; 5] = ["replacements", "militia", "moves", "build", "forts"];
const REPLACEMENTS: usize = 0;
const MILITIA: usize = 1;
const MOVES: usize = 2;
const BUILD: usize = 3;
const FORTS: usize = 4;

/// One drawn order: its list (an index of [`LISTS`]) and its value.
pub type Item = (usize, Value);

/// The body of the items, each list in the items' order.
pub fn body_of(items: &[Item]) -> Mapping {
    let mut body = Mapping::new();
    for (l, name) in LISTS.iter().enumerate() {
        let list: Vec<Value> = items.iter().filter(|(k, _)| *k == l).map(|(_, v)| v.clone()).collect();
        if l == MOVES || !list.is_empty() {
            body.insert(text(name), Value::Sequence(list));
        }
    }
    body
}

/// The order a problem's field names: its list and its index in the list
/// (`moves[3].path[1]`, `build[0].units`).
pub fn named(field: &str) -> Option<(usize, usize)> {
    LISTS.iter().enumerate().find_map(|(l, name)| {
        let i = field.strip_prefix(name)?.strip_prefix('[')?.split(']').next()?.parse().ok()?;
        Some((l, i))
    })
}

/// The items less those named.
pub fn without(items: Vec<Item>, named: &BTreeSet<(usize, usize)>) -> Vec<Item> {
    let mut index = [0usize; 5];
    items
        .into_iter()
        .filter(|(l, _)| {
            let i = index[*l];
            index[*l] += 1;
            !named.contains(&(*l, i))
        })
        .collect()
}

/// 1 to `n` (1 when n is 0).
fn one_to(draw: &mut Draw, n: u32) -> u32 {
    1 + draw.below(n.max(1) as usize) as u32
}

/// Every order drawn for `side`'s operations.
pub fn draw(rules: &Rules, state: &State, side: &str, draw: &mut Draw) -> Vec<Item> {
    let mut items = Vec::new();
    items.extend(replacements(rules, state, side, draw).into_iter().map(|v| (REPLACEMENTS, v)));
    items.extend(militia_orders(rules, state, side, draw).into_iter().map(|v| (MILITIA, v)));
    // Where each of the side's pieces ends, as drawn; who moves.
    let mut ends: BTreeMap<String, HexId> = BTreeMap::new();
    let mut moving: BTreeSet<String> = BTreeSet::new();
    let (fleet_moves, carried) = fleet_moves(rules, state, side, draw, &mut ends);
    moving.extend(carried.iter().cloned());
    items.extend(fleet_moves.into_iter().map(|v| (MOVES, v)));
    // The builders first: they do not move this month.
    let (built, builders) = builds(rules, state, side, &moving, draw);
    moving.extend(builders);
    for (id, path) in land_moves(rules, state, side, &moving, draw) {
        if let Some(end) = path.last().and_then(|h| h.parse().ok()) {
            ends.insert(id.clone(), end);
        }
        items.push((MOVES, mapping(vec![("unit", text(&id)), ("path", strings(&path))])));
    }
    for (id, p) in &state.pieces {
        if let Some(h) = p.hex.as_deref().and_then(|h| h.parse().ok()) {
            ends.entry(id.clone()).or_insert(h);
        }
    }
    items.extend(built.into_iter().map(|v| (BUILD, v)));
    items.extend(garrisons(rules, state, side, &ends, draw).into_iter().map(|v| (FORTS, v)));
    items
}

/// A random walk from a piece's hex: 1 to `allowance` distinct land hexes,
/// each next to the one before (fewer where the walk runs out of hexes).
fn walk(rules: &Rules, from: HexId, allowance: u32, draw: &mut Draw) -> Vec<String> {
    let m = &rules.module;
    let length = 1 + draw.below(allowance.max(1) as usize);
    let mut seen = BTreeSet::from([from]);
    let mut path = Vec::new();
    let mut at = from;
    for _ in 0..length {
        let open: Vec<HexId> = land_neighbours(m, at).into_iter().filter(|h| !seen.contains(h)).collect();
        if open.is_empty() {
            break;
        }
        at = open[draw.below(open.len())];
        seen.insert(at);
        path.push(at.to_string());
    }
    path
}

/// Each land unit and general of the side on the map, not carried by a
/// fleet nor building, one time in two (a unit inside a fort one time in
/// eight, so that forts last long enough to be attacked), with a random
/// walk within its full allowance.
fn land_moves(
    rules: &Rules,
    state: &State,
    side: &str,
    staying: &BTreeSet<String>,
    draw: &mut Draw,
) -> Vec<(String, Vec<String>)> {
    let m = &rules.module;
    let mut out = Vec::new();
    for (id, p) in &state.pieces {
        let Some(from) = p.hex.as_deref().and_then(|h| h.parse::<HexId>().ok()) else { continue };
        if staying.contains(id) {
            continue;
        }
        let allowance = match (m.unit(id), m.general(id)) {
            (Some(u), _) if u.side == side => m.allowance_of(u),
            (_, Some(g)) if g.side == side => m.general_allowance(g),
            _ => None,
        };
        let Some(allowance) = allowance else { continue };
        let inside = state.forts.iter().any(|f| f.garrison.contains(id));
        if !draw.chance(1, if inside { 8 } else { 2 }) {
            continue;
        }
        let path = walk(rules, from, allowance, draw);
        if !path.is_empty() {
            out.push((id.clone(), path));
        }
    }
    out
}

/// Each fleet of the side on the map, one time in two, sails a random walk
/// of 1 to its allowance distinct sea lanes and ports; a troop fleet in a
/// port takes each land unit and general of the side there one time in
/// two, and its walk then ends at the last port it reaches (none reached:
/// it carries nobody). The moves, and the pieces carried.
fn fleet_moves(
    rules: &Rules,
    state: &State,
    side: &str,
    draw: &mut Draw,
    ends: &mut BTreeMap<String, HexId>,
) -> (Vec<Value>, BTreeSet<String>) {
    let m = &rules.module;
    let port = |h: HexId| m.town_at(h).is_some_and(|t| t.port);
    let mut out = Vec::new();
    let mut carried = BTreeSet::new();
    for f in m.fleets.iter().filter(|f| f.side == side) {
        let Some(from) = state.hex_of(&f.id) else { continue };
        let Some(allowance) = m.fleet_allowance(f) else { continue };
        if !draw.chance(1, 2) {
            continue;
        }
        let length = 1 + draw.below(allowance.max(1) as usize);
        let mut seen = BTreeSet::from([from]);
        let mut path: Vec<HexId> = Vec::new();
        let mut at = from;
        for _ in 0..length {
            let open: Vec<HexId> = neighbours(at, m.map.layout)
                .into_iter()
                .filter(|h| m.map.contains(*h) && fleets::navigable(m, *h) && !seen.contains(h))
                .collect();
            if open.is_empty() {
                break;
            }
            at = open[draw.below(open.len())];
            seen.insert(at);
            path.push(at);
        }
        let mut carry: Vec<String> = Vec::new();
        if f.kind == FleetKind::Tf && port(from) {
            for id in state.at(from) {
                let ours = m.unit(id).is_some_and(|u| u.side == side) || m.general(id).is_some_and(|g| g.side == side);
                if ours && !carried.contains(id) && draw.chance(1, 2) {
                    carry.push(id.to_string());
                }
            }
            if !carry.is_empty() {
                match path.iter().rposition(|h| port(*h)) {
                    Some(last) => path.truncate(last + 1),
                    None => carry.clear(),
                }
            }
        }
        let Some(end) = path.last().copied() else { continue };
        ends.insert(f.id.clone(), end);
        for id in &carry {
            ends.insert(id.clone(), end);
            carried.insert(id.clone());
        }
        let hexes: Vec<String> = path.iter().map(HexId::to_string).collect();
        let mut pairs = vec![("unit", text(&f.id)), ("path", strings(&hexes))];
        if !carry.is_empty() {
            pairs.push(("carry", strings(&carry)));
        }
        out.push(mapping(pairs));
    }
    (out, carried)
}

/// For each town holding the side's replacement stands of a nationality,
/// one time in two: a unit of that nationality, regular or legion, on the
/// map short of its original stands (or an artillery unit whose crew was
/// eliminated), given 1 to what it lacks and the town holds.
fn replacements(rules: &Rules, state: &State, side: &str, draw: &mut Draw) -> Vec<Value> {
    let m = &rules.module;
    let mut out = Vec::new();
    let Some(pools) = state.replacements.get(side) else { return out };
    for (town, pool) in pools {
        for (nationality, held) in pool {
            if *held == 0 || !draw.chance(1, 2) {
                continue;
            }
            let short: Vec<(&str, u32)> = m
                .units
                .iter()
                .filter(|u| u.side == side && u.nationality == *nationality)
                .filter(|u| u.class != Class::Militia && !u.is_supply())
                .filter_map(|u| {
                    let p = state.pieces.get(&u.id)?;
                    let lacks = u.fighting_stands.saturating_sub(p.stands);
                    let open = (p.hex.is_some() && !p.eliminated) || (p.eliminated && u.kind == Kind::Artillery);
                    (open && lacks > 0).then_some((u.id.as_str(), lacks))
                })
                .collect();
            if short.is_empty() {
                continue;
            }
            let (unit, lacks) = short[draw.below(short.len())];
            let stands = one_to(draw, lacks.min(*held));
            out.push(mapping(vec![("unit", text(unit)), ("town", text(town)), ("stands", number(stands))]));
        }
    }
    out
}

/// For each town holding the side's militia stands not yet formed, one
/// time in two: a militia unit of the side in the town or a militia
/// counter at hand, formed of 1 to the stands there.
fn militia_orders(rules: &Rules, state: &State, side: &str, draw: &mut Draw) -> Vec<Value> {
    let m = &rules.module;
    let mut out = Vec::new();
    let Some(levies) = state.militia.get(side) else { return out };
    let Ok(sc) = m.scenario(&rules.scenario) else { return out };
    let at_hand = militia::counters_at_hand(m, sc, state, side);
    for (town, levy) in levies {
        if levy.stands == 0 || !draw.chance(1, 2) {
            continue;
        }
        let Some(hex) = m.town(town).and_then(|t| t.hex.parse::<HexId>().ok()) else { continue };
        let mut units: Vec<String> = state
            .at(hex)
            .into_iter()
            .filter(|id| m.unit(id).is_some_and(|u| u.side == side && u.class == Class::Militia))
            .map(str::to_string)
            .collect();
        units.extend(at_hand.iter().cloned());
        if units.is_empty() {
            continue;
        }
        let unit = units[draw.below(units.len())].clone();
        let stands = one_to(draw, levy.stands);
        out.push(mapping(vec![("town", text(town)), ("unit", text(&unit)), ("stands", number(stands))]));
    }
    out
}

/// For each hex holding land units of the side not carried by a fleet,
/// one time in six: a fort (where none stands and a supply unit and a gun
/// are, two times in three) of its foot and guns, each three times in
/// four, and one of its supply units; or an entrenchment of its foot, each
/// three times in four. The works, and their builders (who do not move).
fn builds(
    rules: &Rules,
    state: &State,
    side: &str,
    moving: &BTreeSet<String>,
    draw: &mut Draw,
) -> (Vec<Value>, BTreeSet<String>) {
    let m = &rules.module;
    let mut by_hex: BTreeMap<HexId, Vec<&str>> = BTreeMap::new();
    for (id, p) in &state.pieces {
        let Some(hex) = p.hex.as_deref().and_then(|h| h.parse().ok()) else { continue };
        if m.unit(id).is_some_and(|u| u.side == side) && !moving.contains(id) {
            by_hex.entry(hex).or_default().push(id);
        }
    }
    let mut out = Vec::new();
    let mut all = BTreeSet::new();
    for (hex, units) in by_hex {
        if !draw.chance(1, 6) {
            continue;
        }
        let kind = |id: &str| m.unit(id).map(|u| u.kind);
        let has = |k: Kind| units.iter().any(|id| kind(id) == Some(k));
        let fort = !state.forts.iter().any(|f| f.hex == hex.to_string())
            && has(Kind::Supply)
            && has(Kind::Artillery)
            && draw.chance(2, 3);
        let mut builders: Vec<String> = Vec::new();
        for id in &units {
            let k = kind(id);
            let wanted = matches!(k, Some(Kind::Infantry | Kind::Militia)) || (fort && k == Some(Kind::Artillery));
            if wanted && draw.chance(3, 4) {
                builders.push(id.to_string());
            }
        }
        if fort {
            let supply: Vec<&&str> = units.iter().filter(|id| kind(id) == Some(Kind::Supply)).collect();
            if !supply.is_empty() {
                builders.push(supply[draw.below(supply.len())].to_string());
            }
        }
        if builders.is_empty() {
            continue;
        }
        all.extend(builders.iter().cloned());
        out.push(mapping(vec![
            ("hex", text(&hex.to_string())),
            ("works", text(if fort { "fort" } else { "entrenchment" })),
            ("units", strings(&builders)),
        ]));
    }
    (out, all)
}

/// For each fort of the side, one time in three: its garrison, each of the
/// side's units (not supply) that ends the moves in its hex four times in
/// five.
fn garrisons(rules: &Rules, state: &State, side: &str, ends: &BTreeMap<String, HexId>, draw: &mut Draw) -> Vec<Value> {
    let m = &rules.module;
    let mut out = Vec::new();
    for f in state.forts.iter().filter(|f| f.side == side) {
        if !draw.chance(1, 3) {
            continue;
        }
        let Ok(hex) = f.hex.parse::<HexId>() else { continue };
        let inside: Vec<String> = ends
            .iter()
            .filter(|(id, h)| **h == hex && m.unit(id).is_some_and(|u| u.side == side && !u.is_supply()))
            .map(|(id, _)| id.clone())
            .filter(|_| draw.chance(4, 5))
            .collect();
        out.push(mapping(vec![("hex", text(&f.hex)), ("garrison", strings(&inside))]));
    }
    out
}
