//! REPLACEMENTS (the article): replacement stands received in a town,
//! held there by nationality, given by a side's orders to its regular
//! units, and lost with the town.
//!
//! "Replacements are used in the campaign to rebuild existing "regular"
//! units. Militia units cannot be rebuilt with replacements. The utility of
//! a replacement strength point carries according to its nationality. Each
//! replacement strength point represents a single stand of troops. Any
//! existing regular unit can be repaired with replacement points provided
//! it is not besieged and has a valid line of communications to the port or
//! town in which the replacements arrive. No unit can be built up to a
//! strength greater than its original strength in the campaign. Replacement
//! stands can be used to recreate eliminated artillery crews. However,
//! these will need to be assigned a gun. Unused replacements can be saved
//! for later use and are considered to remain in the town of their initial
//! placement. All replacements accumulated in a particular town are lost if
//! that town becomes occupied by the enemy."

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::base::error::echo;
use crate::base::hex::HexId;
use crate::system::Event;
use crate::systems::awi::board::{enemy_of, land_neighbours, land_units_of, State, Step};
use crate::systems::awi::data::{Class, Kind, Module, Scenario, Town};
use crate::systems::awi::rules::comms::{land_links_of, sea_link, BRITISH};
use crate::systems::awi::rules::movement::Problem;

pub const RULE: &str = "AWI Replacements";

/// An order: `stands` replacement stands held in `town` go to `unit`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "a replacement, a map with unit, town and stands")]
pub struct Replacement {
    pub unit: String,
    pub town: String,
    pub stands: u32,
}

fn problem(field: String, message: String, code: &'static str) -> Problem {
    Problem { field, message, code, rule: RULE }
}

/// Whether `side`'s town at `hex` is occupied by the enemy: the enemy's
/// land units that fight are in it, and none of the side's (a battle still
/// to fight there occupies nothing yet; supply units alone occupy nothing).
pub fn occupied_by_enemy(m: &Module, s: &State, side: &str, hex: HexId) -> bool {
    let enemy = enemy_of(m, side);
    let fighting = |who: &str| s.at(hex).iter().any(|id| m.unit(id).is_some_and(|u| u.side == who && !u.is_supply()));
    fighting(&enemy) && !fighting(side)
}

/// Why `side` cannot receive replacements or militia in `town` now, if it
/// cannot: the enemy occupies or controls it.
pub fn closed(m: &Module, s: &State, side: &str, town: &str) -> Option<String> {
    let t = m.town(town)?;
    let hex: HexId = t.hex.parse().ok()?;
    let enemy = enemy_of(m, side);
    if occupied_by_enemy(m, s, side, hex) {
        return Some(format!("{} ({}) is occupied by the {enemy}", t.name, t.hex));
    }
    if s.control.get(town) == Some(&enemy) {
        return Some(format!("{} ({}) is controlled by the {enemy}", t.name, t.hex));
    }
    None
}

/// The replacement points of `step`'s side for its month, placed in their
/// towns before its operations (a stand-in schedule, scenario
/// `replacements`); those for a town the enemy occupies or controls are
/// lost.
pub fn arrive(m: &Module, sc: &Scenario, s: &mut State, step: &Step) -> Vec<Event> {
    let mut events = Vec::new();
    let per_point = m.charts.replacements.stands_per_replacement_point.value;
    for r in sc.replacements.iter().filter(|r| r.turn == step.turn && r.side == step.side) {
        let name = m.town(&r.town).map(|t| t.name.clone()).unwrap_or_default();
        let stands = r.points * per_point;
        if let Some(why) = closed(m, s, &r.side, &r.town) {
            events.push(
                Event::new(
                    RULE,
                    "replacements-lost",
                    format!("{stands} {} replacement stands for {name} are lost: {why}", r.nationality),
                )
                .with("side", &r.side)
                .with("town", &r.town)
                .with("stands", BTreeMap::from([(r.nationality.clone(), stands)])),
            );
            continue;
        }
        let held = s
            .replacements
            .entry(r.side.clone())
            .or_default()
            .entry(r.town.clone())
            .or_default()
            .entry(r.nationality.clone())
            .or_default();
        *held += stands;
        events.push(
            Event::new(
                RULE,
                "replacements",
                format!("{stands} {} replacement stands arrive at {name} ({} held there)", r.nationality, *held),
            )
            .with("side", &r.side)
            .with("town", &r.town)
            .with("nationality", &r.nationality)
            .with("stands", stands)
            .with("held", *held),
        );
    }
    events
}

/// "All replacements accumulated in a particular town are lost if that
/// town becomes occupied by the enemy."
pub fn losses(m: &Module, s: &mut State) -> Vec<Event> {
    let mut pools = std::mem::take(&mut s.replacements);
    let lost = take_occupied(m, s, &mut pools);
    s.replacements = pools;
    lost.into_iter()
        .map(|(side, town, held)| {
            let name = m.town(&town).map(|t| t.name.clone()).unwrap_or_default();
            let list: Vec<String> = held.iter().map(|(n, k)| format!("{k} {n}")).collect();
            Event::new(
                RULE,
                "replacements-lost",
                format!(
                    "The {side} replacements at {name} are lost: the {} occupy it ({})",
                    enemy_of(m, &side),
                    list.join(", ")
                ),
            )
            .with("side", &side)
            .with("town", &town)
            .with("stands", &held)
        })
        .collect()
}

/// Besieged (a stand-in: 1776's siege rules are not in our texts): every
/// land hex next to the unit's holds the enemy's land units.
pub fn besieged(m: &Module, s: &State, side: &str, hex: HexId) -> bool {
    let enemy = land_units_of(m, s, &enemy_of(m, side));
    let around = land_neighbours(m, hex);
    !around.is_empty() && around.iter().all(|h| enemy.contains(h))
}

/// The line of communications from `from` to the town at `to`: the town
/// itself, a land link (COMMUNICATIONS: at most 9 MP, blocked as the
/// article says) traced by the side, or, for the British, sea links from
/// both when each is a British controlled port.
pub fn line(m: &Module, s: &State, side: &str, from: HexId, to: HexId) -> Option<String> {
    if from == to {
        return Some("in the town".into());
    }
    if let Some((mp, _)) = land_links_of(m, s, side, from).get(&to) {
        return Some(format!("a land link of {mp} MP"));
    }
    let british_port = |h: HexId| {
        m.town_at(h).is_some_and(|t| t.port && s.control.get(&t.id).map(String::as_str) == Some(BRITISH))
            && sea_link(m, s, h).is_some()
    };
    if side == BRITISH && british_port(from) && british_port(to) {
        return Some("sea links from both ports".into());
    }
    None
}

/// The town an order names and the side's pool there (the unused
/// replacements, or the militia not yet formed), or the order's problem:
/// not a town, or nothing of the side's held there (`none_there` says it,
/// `{town}` the town's name, then where the side `verb`s some).
pub struct PoolWords {
    pub none_there: &'static str,
    pub verb: &'static str,
    pub code: &'static str,
    pub rule: &'static str,
}

pub fn town_pool<'a, T>(
    m: &'a Module,
    field: &str,
    town: &str,
    pools: Option<&'a BTreeMap<String, T>>,
    w: &PoolWords,
) -> Result<(&'a Town, &'a T), Problem> {
    let (code, rule, verb) = (w.code, w.rule, w.verb);
    let Some(t) = m.town(town) else {
        return Err(Problem {
            field: format!("{field}.town"),
            message: format!("'{}' is not a town of the map", echo(town)),
            code: "not-a-town",
            rule,
        });
    };
    let Some(pool) = pools.and_then(|p| p.get(town)) else {
        let held: Vec<String> = pools.map(|p| p.keys().cloned().collect()).unwrap_or_default();
        return Err(Problem {
            field: format!("{field}.town"),
            message: format!(
                "{}; {}",
                w.none_there.replace("{town}", &t.name),
                if held.is_empty() {
                    format!("you {verb} none")
                } else {
                    format!("you {verb} some at {}", held.join(", "))
                }
            ),
            code,
            rule,
        });
    };
    Ok((t, pool))
}

/// The side's pools (of `pools`, taken out of the state for the while)
/// whose town the enemy occupies: removed, each with its side, town and
/// what it held ("All replacements accumulated in a particular town are
/// lost if that town becomes occupied by the enemy").
pub fn take_occupied<T>(
    m: &Module,
    s: &State,
    pools: &mut BTreeMap<String, BTreeMap<String, T>>,
) -> Vec<(String, String, T)> {
    let mut lost = Vec::new();
    for (side, towns) in pools.iter_mut() {
        let occupied: Vec<String> = towns
            .keys()
            .filter(|town| {
                m.town(town)
                    .and_then(|t| t.hex.parse::<HexId>().ok())
                    .is_some_and(|hex| occupied_by_enemy(m, s, side, hex))
            })
            .cloned()
            .collect();
        for town in occupied {
            if let Some(held) = towns.remove(&town) {
                lost.push((side.clone(), town, held));
            }
        }
    }
    pools.retain(|_, towns| !towns.is_empty());
    lost
}

/// Every problem with `side`'s replacement orders.
pub fn check(m: &Module, s: &State, side: &str, orders: &[Replacement]) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut given: BTreeMap<&str, u32> = BTreeMap::new();
    let mut drawn: BTreeMap<(&str, &str), u32> = BTreeMap::new();
    let pools = s.replacements.get(side);
    for (i, r) in orders.iter().enumerate() {
        let field = format!("replacements[{i}]");
        let Some(u) = m.unit(&r.unit).filter(|u| u.side == side) else {
            problems.push(problem(
                format!("{field}.unit"),
                format!("'{}' is not a unit of yours", echo(&r.unit)),
                "not-yours",
            ));
            continue;
        };
        if u.is_supply() {
            problems.push(problem(
                format!("{field}.unit"),
                format!("{} is a supply unit: replacements rebuild regular units' stands", u.name),
                "not-regular",
            ));
            continue;
        }
        if u.class == Class::Militia {
            problems.push(problem(
                format!("{field}.unit"),
                format!("{} is militia: Militia units cannot be rebuilt with replacements", u.name),
                "militia",
            ));
            continue;
        }
        if r.stands == 0 {
            problems.push(problem(format!("{field}.stands"), "stands from 1".into(), "no-stands"));
            continue;
        }
        let words = PoolWords {
            none_there: "{town} holds none of your replacements",
            verb: "hold",
            code: "no-replacements",
            rule: RULE,
        };
        let (town, pool) = match town_pool(m, &field, &r.town, pools, &words) {
            Ok(x) => x,
            Err(p) => {
                problems.push(p);
                continue;
            }
        };
        let there = pool.get(&u.nationality).copied().unwrap_or(0);
        let used = drawn.entry((r.town.as_str(), u.nationality.as_str())).or_default();
        *used += r.stands;
        if *used > there {
            let held: Vec<String> = pool.iter().map(|(n, k)| format!("{k} {n}")).collect();
            problems.push(problem(
                format!("{field}.stands"),
                format!(
                    "{} is {}: the utility of a replacement strength point carries according to its nationality; {} holds {there} {} stands of yours ({}), these orders draw {}",
                    u.name,
                    u.nationality,
                    town.name,
                    u.nationality,
                    held.join(", "),
                    *used
                ),
                "not-enough",
            ));
            continue;
        }
        let Some(p) = s.pieces.get(&r.unit) else { continue };
        let total = given.entry(r.unit.as_str()).or_default();
        *total += r.stands;
        if p.eliminated {
            if u.kind != Kind::Artillery {
                problems.push(problem(
                    format!("{field}.unit"),
                    format!("{} was eliminated for good: They cannot be rebuilt from replacement stands", u.name),
                    "eliminated-for-good",
                ));
            } else if *total > u.fighting_stands {
                problems.push(problem(
                    format!("{field}.stands"),
                    format!(
                        "{}'s crew was eliminated: recreating it takes {} stand(s), these orders give {}",
                        u.name, u.fighting_stands, *total
                    ),
                    "above-original",
                ));
            }
            continue;
        }
        let Some(hex) = s.hex_of(&r.unit) else {
            problems.push(problem(
                format!("{field}.unit"),
                format!("{} is not on the map: replacements repair existing units", u.name),
                "not-on-map",
            ));
            continue;
        };
        if p.stands + *total > u.fighting_stands {
            problems.push(problem(
                format!("{field}.stands"),
                format!(
                    "{} has {} of its original {} fighting stands: No unit can be built up to a strength greater than its original strength; at most {} more",
                    u.name,
                    p.stands,
                    u.fighting_stands,
                    u.fighting_stands - p.stands.min(u.fighting_stands)
                ),
                "above-original",
            ));
            continue;
        }
        if besieged(m, s, side, hex) {
            problems.push(problem(
                format!("{field}.unit"),
                format!("{} at {hex} is besieged (every land hex next to it holds the enemy's land units): a unit can be repaired provided it is not besieged", u.name),
                "besieged",
            ));
            continue;
        }
        let Ok(to) = town.hex.parse::<HexId>() else { continue };
        if line(m, s, side, hex, to).is_none() {
            problems.push(problem(
                format!("{field}.unit"),
                format!(
                    "{} at {hex} has no valid line of communications to {} ({}): a land link of at most {} MP not blocked by the enemy{}",
                    u.name,
                    town.name,
                    town.hex,
                    m.charts.communications.land_link_movement_points.value,
                    if side == BRITISH { ", or sea links from both, each a British controlled port" } else { "" }
                ),
                "no-line-of-communications",
            ));
        }
    }
    problems
}

/// The orders carried out (checked): the stands leave the town's pool and
/// join their units; an eliminated artillery unit's crew is recreated in
/// the town, manning its counter's gun.
pub fn apply(m: &Module, s: &mut State, side: &str, orders: &[Replacement]) -> Vec<Event> {
    let mut events = Vec::new();
    for r in orders {
        let (Some(u), Some(t)) = (m.unit(&r.unit), m.town(&r.town)) else { continue };
        let Some(pool) = s.replacements.get_mut(side).and_then(|p| p.get_mut(&r.town)) else { continue };
        if let Some(k) = pool.get_mut(&u.nationality) {
            *k = k.saturating_sub(r.stands);
            if *k == 0 {
                pool.remove(&u.nationality);
            }
        }
        let Some(p) = s.pieces.get_mut(&r.unit) else { continue };
        let recreated = p.eliminated;
        if recreated {
            p.eliminated = false;
            p.hex = Some(t.hex.clone());
            p.stands = 0;
            p.in_communication = true;
            p.attrition_passes = 0;
        }
        p.stands += r.stands;
        let text = if recreated {
            format!(
                "{}'s crew is recreated at {} from {} {} replacement stand(s) and assigned its gun ({})",
                u.name, t.name, r.stands, u.nationality, u.weapon
            )
        } else {
            format!(
                "{} takes {} {} replacement stand(s) from {}: {} of {} fighting stands",
                u.name, r.stands, u.nationality, t.name, p.stands, u.fighting_stands
            )
        };
        events.push(
            Event::new(RULE, "replaced", text)
                .with("unit", &r.unit)
                .with("town", &r.town)
                .with("nationality", &u.nationality)
                .with("stands_given", r.stands)
                .with("stands", p.stands)
                .with("recreated", recreated),
        );
    }
    if let Some(towns) = s.replacements.get_mut(side) {
        towns.retain(|_, pool| !pool.is_empty());
        if towns.is_empty() {
            s.replacements.remove(side);
        }
    }
    events
}

/// The side's ledger lines for its replacements (RECORD KEEPING: "The
/// number and location of all unused replacements").
pub fn ledger(m: &Module, s: &State, side: &str) -> Vec<String> {
    s.replacements
        .get(side)
        .into_iter()
        .flatten()
        .map(|(town, held)| {
            let t = m.town(town);
            let list: Vec<String> = held.iter().map(|(n, k)| format!("{k} {n}")).collect();
            format!(
                "unused replacements at {} ({}): {} stands",
                t.map(|t| t.name.as_str()).unwrap_or(town),
                t.map(|t| t.hex.as_str()).unwrap_or(""),
                list.join(", ")
            )
        })
        .collect()
}
