//! MILITIA UNITS (the article): militia strength points raised in a town
//! as stands, formed by the owner into militia counters, a quarter of them
//! rifle armed at most, mounted infantry at a stand each.
//!
//! "The total strength of militia forces for both sides fluctuates as given
//! in the 1776 rules. Each strength point of militia converts directly into
//! 6 stands of militia infantry. Up to one quarter of these stands can be
//! rifle armed if the owning player so desires. Militia can be converted to
//! mounted infantry at a cost of one militia stand eliminated for each
//! stand so converted. (A non- rifle armed militia stand can be eliminated
//! to convert a rifle armed militia stand into mounted infantry.) The
//! owning player is free to combine his militia stands into units in any
//! fashion he sees fit."
//!
//! The counters: "Each individual unit must be represented by its own
//! counter." A side forms its raised stands into its militia counters of
//! the order of battle (`class: militia`): one in the town (its stands
//! grow), or one not on the map, never placed and not a reinforcement (it
//! is placed in the town). A counter's kind and weapon say what its stands
//! are: `mounted-infantry` stands cost one stand more each, `rifle` stands
//! count against the quarter.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::base::error::echo;
use crate::system::Event;
use crate::systems::awi::board::{enemy_of, Levy, State, Step};
use crate::systems::awi::data::{Class, Kind, Module, Scenario, Unit};
use crate::systems::awi::rules::movement::Problem;
use crate::systems::awi::rules::replacements::{closed, take_occupied, town_pool, PoolWords};

pub const RULE: &str = "AWI Militia Units";

/// The weapon whose stands count against the quarter.
pub const RIFLE: &str = "rifle";

/// An order: `stands` of the militia raised in `town` form (or join)
/// `unit`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "militia raised, a map with town, unit and stands")]
pub struct Raise {
    pub town: String,
    pub unit: String,
    pub stands: u32,
}

fn problem(field: String, message: String, code: &'static str) -> Problem {
    Problem { field, message, code, rule: RULE }
}

/// The militia stands of `step`'s side for its month, raised in their
/// towns before its operations (a stand-in schedule, scenario `militia`):
/// 6 stands per strength point, a quarter of them (rounded down) that may
/// be rifle armed. None are raised in a town the enemy occupies or
/// controls.
pub fn arrive(m: &Module, sc: &Scenario, s: &mut State, step: &Step) -> Vec<Event> {
    let mut events = Vec::new();
    let per_sp = m.charts.communications.stands_per_strength_point.value;
    let percent = m.charts.replacements.militia_rifles_percent.value;
    for r in sc.militia.iter().filter(|r| r.turn == step.turn && r.side == step.side) {
        let name = m.town(&r.town).map(|t| t.name.clone()).unwrap_or_default();
        let stands = r.strength_points * per_sp;
        if let Some(why) = closed(m, s, &r.side, &r.town) {
            events.push(
                Event::new(
                    RULE,
                    "militia-lost",
                    format!("{} militia strength points are not raised at {name}: {why}", r.strength_points),
                )
                .with("side", &r.side)
                .with("town", &r.town)
                .with("stands", stands),
            );
            continue;
        }
        let rifles = stands * percent / 100;
        let levy = s.militia.entry(r.side.clone()).or_default().entry(r.town.clone()).or_default();
        levy.stands += stands;
        levy.rifles += rifles;
        events.push(
            Event::new(
                RULE,
                "militia-raised",
                format!(
                    "{} militia strength points are raised at {name}: {stands} stands, up to {rifles} of them rifle armed ({} stands to form there)",
                    r.strength_points, levy.stands
                ),
            )
            .with("side", &r.side)
            .with("town", &r.town)
            .with("strength_points", r.strength_points)
            .with("stands", stands)
            .with("rifles", rifles)
            .with("held", levy.stands),
        );
    }
    events
}

/// Stands raised in a town the enemy comes to occupy before they are
/// formed are lost with it (as REPLACEMENTS' are: a decision, the article
/// is silent).
pub fn losses(m: &Module, s: &mut State) -> Vec<Event> {
    let mut pools = std::mem::take(&mut s.militia);
    let lost = take_occupied(m, s, &mut pools);
    s.militia = pools;
    lost.into_iter()
        .map(|(side, town, levy)| {
            let name = m.town(&town).map(|t| t.name.clone()).unwrap_or_default();
            Event::new(
                RULE,
                "militia-lost",
                format!(
                    "The {} {side} militia stands not yet formed at {name} are lost: the {} occupy it",
                    levy.stands,
                    enemy_of(m, &side)
                ),
            )
            .with("side", &side)
            .with("town", &town)
            .with("stands", levy.stands)
        })
        .collect()
}

/// A militia counter of the side's no one has placed: off the map, not
/// eliminated, not a reinforcement of the scenario.
fn at_hand(sc: &Scenario, s: &State, u: &Unit) -> bool {
    let p = s.pieces.get(&u.id);
    p.is_some_and(|p| p.hex.is_none() && !p.eliminated) && !sc.reinforcements.iter().any(|a| a.units.contains(&u.id))
}

fn is_militia(u: &Unit) -> bool {
    u.class == Class::Militia && matches!(u.kind, Kind::Militia | Kind::MountedInfantry)
}

/// The stands of the town's levy a formation costs: its stands, and one
/// more for each converted to mounted infantry.
fn cost(m: &Module, u: &Unit, stands: u32) -> u32 {
    if u.kind == Kind::MountedInfantry {
        stands + stands * m.charts.replacements.mounted_conversion_stands.value
    } else {
        stands
    }
}

/// The side's militia counters at hand, for messages and the template.
pub fn counters_at_hand(m: &Module, sc: &Scenario, s: &State, side: &str) -> Vec<String> {
    m.units.iter().filter(|u| u.side == side && is_militia(u) && at_hand(sc, s, u)).map(|u| u.id.clone()).collect()
}

/// Every problem with `side`'s militia orders.
pub fn check(m: &Module, sc: &Scenario, s: &State, side: &str, orders: &[Raise]) -> Vec<Problem> {
    let mut problems = Vec::new();
    let mut used: BTreeMap<&str, Levy> = BTreeMap::new();
    let levies = s.militia.get(side);
    for (i, r) in orders.iter().enumerate() {
        let field = format!("militia[{i}]");
        let words = PoolWords {
            none_there: "no militia of yours is raised at {town} and not yet formed",
            verb: "have",
            code: "no-militia",
            rule: RULE,
        };
        let (town, levy) = match town_pool(m, &field, &r.town, levies, &words) {
            Ok(x) => x,
            Err(p) => {
                problems.push(p);
                continue;
            }
        };
        let Some(u) = m.unit(&r.unit).filter(|u| u.side == side && is_militia(u)) else {
            problems.push(problem(
                format!("{field}.unit"),
                format!(
                    "'{}' is not a militia counter of yours (militia stands form units of militia or mounted infantry, `class: militia`); at hand: {}",
                    echo(&r.unit),
                    counters_at_hand(m, sc, s, side).join(", ")
                ),
                "not-militia",
            ));
            continue;
        };
        if r.stands == 0 {
            problems.push(problem(format!("{field}.stands"), "stands from 1".into(), "no-stands"));
            continue;
        }
        let here = s.pieces.get(&u.id).and_then(|p| p.hex.clone());
        if here.as_deref() != Some(town.hex.as_str()) && !at_hand(sc, s, u) {
            let where_ = match (&here, s.pieces.get(&u.id).is_some_and(|p| p.eliminated)) {
                (_, true) => "was eliminated for good".to_string(),
                (Some(h), _) => format!("is at {h}"),
                (None, _) => "is a reinforcement of the scenario".to_string(),
            };
            problems.push(problem(
                format!("{field}.unit"),
                format!(
                    "{} {where_}: stands raised at {} ({}) join a militia unit there or form a counter not yet on the map (at hand: {})",
                    u.name,
                    town.name,
                    town.hex,
                    counters_at_hand(m, sc, s, side).join(", ")
                ),
                "not-at-hand",
            ));
            continue;
        }
        let spent = used.entry(r.town.as_str()).or_default();
        spent.stands += cost(m, u, r.stands);
        if u.weapon == RIFLE {
            spent.rifles += r.stands;
        }
        if spent.stands > levy.stands {
            problems.push(problem(
                format!("{field}.stands"),
                format!(
                    "{} has {} militia stands raised and not yet formed; these orders use {}{}",
                    town.name,
                    levy.stands,
                    spent.stands,
                    if u.kind == Kind::MountedInfantry {
                        format!(
                            " ({} is mounted infantry: one militia stand eliminated for each stand so converted)",
                            u.name
                        )
                    } else {
                        String::new()
                    }
                ),
                "not-enough-militia",
            ));
            continue;
        }
        if spent.rifles > levy.rifles {
            problems.push(problem(
                format!("{field}.stands"),
                format!(
                    "{} is rifle armed: Up to one quarter of these stands can be rifle armed; {} may arm {} more, these orders arm {}",
                    u.name, town.name, levy.rifles, spent.rifles
                ),
                "rifles",
            ));
        }
    }
    problems
}

/// The orders carried out (checked): the counters placed in (or grown in)
/// their towns, the stands taken from the levy.
pub fn apply(m: &Module, s: &mut State, side: &str, orders: &[Raise]) -> Vec<Event> {
    let mut events = Vec::new();
    for r in orders {
        let (Some(u), Some(t)) = (m.unit(&r.unit), m.town(&r.town)) else { continue };
        let Some(levy) = s.militia.get_mut(side).and_then(|l| l.get_mut(&r.town)) else { continue };
        let c = cost(m, u, r.stands);
        levy.stands = levy.stands.saturating_sub(c);
        if u.weapon == RIFLE {
            levy.rifles = levy.rifles.saturating_sub(r.stands);
        }
        levy.rifles = levy.rifles.min(levy.stands);
        let left = levy.stands;
        let Some(p) = s.pieces.get_mut(&r.unit) else { continue };
        let formed = p.hex.is_none();
        if formed {
            p.hex = Some(t.hex.clone());
            p.stands = 0;
            p.in_communication = true;
            p.attrition_passes = 0;
        }
        p.stands += r.stands;
        let mounted = u.kind == Kind::MountedInfantry;
        events.push(
            Event::new(
                RULE,
                "militia-formed",
                format!(
                    "{} {} at {} with {} {} stand(s){}{}: {} stands ({left} left to form there)",
                    u.name,
                    if formed { "is formed" } else { "grows" },
                    t.name,
                    r.stands,
                    u.weapon,
                    if mounted { " of mounted infantry" } else { "" },
                    if mounted {
                        format!(", {} stand(s) eliminated to convert them", c - r.stands)
                    } else {
                        String::new()
                    },
                    p.stands
                ),
            )
            .with("unit", &r.unit)
            .with("town", &r.town)
            .with("stands_given", r.stands)
            .with("cost", c)
            .with("weapon", &u.weapon)
            .with("mounted", mounted)
            .with("stands", p.stands)
            .with("left", left),
        );
    }
    if let Some(towns) = s.militia.get_mut(side) {
        towns.retain(|_, l| l.stands > 0);
        if towns.is_empty() {
            s.militia.remove(side);
        }
    }
    events
}

/// The side's ledger lines for its militia raised and not yet formed.
pub fn ledger(m: &Module, s: &State, side: &str) -> Vec<String> {
    s.militia
        .get(side)
        .into_iter()
        .flatten()
        .map(|(town, l)| {
            let t = m.town(town);
            format!(
                "militia raised at {} ({}) not yet formed: {} stands, up to {} of them rifle armed",
                t.map(|t| t.name.as_str()).unwrap_or(town),
                t.map(|t| t.hex.as_str()).unwrap_or(""),
                l.stands,
                l.rifles
            )
        })
        .collect()
}
