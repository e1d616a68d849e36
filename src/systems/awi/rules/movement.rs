//! Campaign map movement, and COMMUNICATION EFFECTS ON MOVEMENT (the
//! article): the orders of a side's monthly operations checked, then
//! carried out.
//!
//! "All regular British units except cavalry units cannot voluntarily end
//! their movement in a hex which is out of communication. A British unit
//! which begins a British turn out of communication is not required to
//! move, however, if it elects to move, it must end its move in
//! communication or as close as possible to a hex which is in
//! communications."

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use crate::base::error::echo;
use crate::base::hex::{are_adjacent, distance, HexId};
use crate::system::Event;
use crate::systems::awi::board::{enemy_of, land_units_of, reach, step_cost, State};
use crate::systems::awi::data::{Class, Kind, Module, WATER};
use crate::systems::awi::rules::command::{commands, limited};
use crate::systems::awi::rules::comms::{always, status_at, BRITISH};
use crate::systems::awi::rules::fleets;

/// The body of a side's operations orders.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "operations orders, a map with moves, forts, build, replacements and militia")]
pub struct Body {
    #[serde(default)]
    pub moves: Vec<Move>,
    /// Who is inside each of the side's forts after the moves (SUPPLY:
    /// "Artillery pieces in forts ... Those in the same hex with a friendly
    /// fort (but not inside it)"); a fort not named keeps its garrison.
    #[serde(default)]
    pub forts: Vec<Garrison>,
    /// Forts and entrenchments built this month (FORTIFICATIONS,
    /// ENTRENCHMENTS).
    #[serde(default)]
    pub build: Vec<crate::systems::awi::rules::fortifications::Build>,
    /// Replacement stands given to units, before the moves (REPLACEMENTS).
    #[serde(default)]
    pub replacements: Vec<crate::systems::awi::rules::replacements::Replacement>,
    /// Militia stands formed into units, before the moves (MILITIA UNITS).
    #[serde(default)]
    pub militia: Vec<crate::systems::awi::rules::militia::Raise>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "a fort garrison, a map with hex and garrison (a list of unit ids)")]
pub struct Garrison {
    /// The fort's hex.
    pub hex: String,
    /// The units inside it, all of them.
    pub garrison: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "a move, a map with unit, path (a list of hexes) and carry")]
pub struct Move {
    pub unit: String,
    /// The hexes entered, in order (not the hex it starts in).
    pub path: Vec<String>,
    /// A troop fleet's passengers: land units (and generals) of its port
    /// of departure, landed at the port where it ends (1776: "troop
    /// fleets carry troops port to port").
    #[serde(default)]
    pub carry: Vec<String>,
}

/// A problem with orders: the field (`moves[0].path[2]`), what is wrong,
/// and the refusal code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub field: String,
    pub message: String,
    pub code: &'static str,
    pub rule: &'static str,
}

fn problem(field: String, message: String, code: &'static str, rule: &'static str) -> Problem {
    Problem { field, message, code, rule }
}

/// A move checked: the piece, its path from its start, the points spent.
#[derive(Debug, Clone)]
pub struct Checked {
    pub unit: String,
    pub path: Vec<HexId>,
    pub spent: u32,
    pub allowance: u32,
    pub in_command: Option<Option<String>>,
    /// The troop fleet that carried the piece (its path: from the port of
    /// departure to the port of landing).
    pub carried_by: Option<String>,
}

/// A piece's allowance this step, and its command status (units only).
fn allowance(
    m: &Module,
    s: &State,
    id: &str,
    of_unit: &BTreeMap<String, Option<String>>,
) -> Option<(u32, Option<Option<String>>)> {
    if let Some(u) = m.unit(id) {
        let full = m.allowance_of(u)?;
        if u.is_supply() {
            // No general commands a supply unit: it moves its full allowance.
            return Some((full, None));
        }
        let general = of_unit.get(id).cloned().flatten();
        let a = if general.is_some() { full } else { limited(m, full) };
        return Some((a, Some(general)));
    }
    if let Some(g) = m.general(id) {
        let _ = s;
        return Some((m.general_allowance(g)?, None));
    }
    None
}

/// Check `side`'s orders against the state: every problem. The moves that
/// pass, when none fails.
pub fn check(m: &Module, s: &State, side: &str, body: &Body) -> (Vec<Checked>, Vec<Problem>) {
    let mut problems = Vec::new();
    let mut checked = Vec::new();
    let cmds = commands(m, s);
    let enemy = enemy_of(m, side);
    // Land units call for a battle; a hex holding enemy generals alone
    // cannot be entered.
    let enemy_units: BTreeSet<HexId> = land_units_of(m, s, &enemy);
    let enemy_hexes: BTreeSet<HexId> = s
        .pieces
        .iter()
        .filter(|(id, _)| m.unit(id).is_some_and(|u| u.side == enemy) || m.general(id).is_some_and(|g| g.side == enemy))
        .filter_map(|(_, p)| p.hex.as_deref()?.parse().ok())
        .collect();
    let mut seen = BTreeSet::new();
    for (i, mv) in body.moves.iter().enumerate() {
        let field = format!("moves[{i}]");
        let Some(piece) = m.piece(&mv.unit) else {
            problems.push(problem(
                format!("{field}.unit"),
                format!("'{}' is not a unit or general of the order of battle", echo(&mv.unit)),
                "unknown-unit",
                "AWI Unit",
            ));
            continue;
        };
        if piece.side() != side {
            problems.push(problem(
                format!("{field}.unit"),
                format!("{} is not yours: it is {}'s", piece.name(), piece.side()),
                "not-yours",
                "AWI Unit",
            ));
            continue;
        }
        if m.fleet(&mv.unit).is_some() {
            match fleets::check(m, s, side, i, mv, &enemy_units, &mut seen) {
                Ok(moves) => checked.extend(moves),
                Err(p) => problems.extend(p),
            }
            continue;
        }
        if !mv.carry.is_empty() {
            problems.push(problem(
                format!("{field}.carry"),
                format!("{} is not a troop fleet: only a troop fleet carries units", piece.name()),
                "not-a-troop-fleet",
                fleets::RULE,
            ));
            continue;
        }
        let Some(start) = s.hex_of(&mv.unit) else {
            problems.push(problem(
                format!("{field}.unit"),
                format!("{} is not on the map", piece.name()),
                "not-on-map",
                "AWI Reinforcements",
            ));
            continue;
        };
        if !seen.insert(mv.unit.clone()) {
            problems.push(problem(
                format!("{field}.unit"),
                format!("{} is moved twice; one move per unit", piece.name()),
                "moved-twice",
                "AWI Unit",
            ));
            continue;
        }
        let Some((allowed, in_command)) = allowance(m, s, &mv.unit, &cmds.of_unit) else {
            problems.push(problem(
                format!("{field}.unit"),
                format!("charts/movement.yaml gives {} no allowance", piece.name()),
                "no-allowance",
                "AWI Artillery Units",
            ));
            continue;
        };
        if mv.path.is_empty() {
            problems.push(problem(
                format!("{field}.path"),
                "a move enters at least one hex; leave a unit that stays out of `moves`".to_string(),
                "empty-path",
                "AWI Unit",
            ));
            continue;
        }
        let mut path = vec![start];
        let mut spent = 0;
        let mut bad = false;
        for (j, text) in mv.path.iter().enumerate() {
            let f = format!("{field}.path[{j}]");
            let Ok(hex) = text.parse::<HexId>() else {
                problems.push(problem(
                    f,
                    format!("'{}' is not a hex id (four digits, CCRR)", echo(text)),
                    "bad-hex",
                    "AWI Unit",
                ));
                bad = true;
                break;
            };
            let here = *path.last().unwrap_or(&start);
            if !m.map.contains(hex) {
                problems.push(problem(f, format!("{hex} is not on the map"), "off-map", "AWI Unit"));
                bad = true;
                break;
            }
            if m.map.terrain[&hex] == WATER {
                problems.push(problem(
                    f,
                    format!("{hex} is a sea lane: land units move on land (a troop fleet carries them: `carry:` in its move)"),
                    "sea-lane",
                    "AWI Unit",
                ));
                bad = true;
                break;
            }
            if !are_adjacent(here, hex, m.map.layout) {
                problems.push(problem(f, format!("{hex} is not next to {here}"), "not-adjacent", "AWI Unit"));
                bad = true;
                break;
            }
            if enemy_units.contains(&hex) && j + 1 < mv.path.len() {
                problems.push(problem(
                    f,
                    format!("{hex} holds the enemy's land units: a move that enters it ends there, and the battle is transferred to the table (the article, TRANSFERRING TO THE MINIATURES GAME)"),
                    "move-through-enemy",
                    "AWI Transferring to the Miniatures Game",
                ));
                bad = true;
                break;
            }
            if enemy_hexes.contains(&hex) && !enemy_units.contains(&hex) {
                problems.push(problem(
                    f,
                    format!("{hex} holds enemy generals without land units: no battle can be fought there, so it cannot be entered"),
                    "generals-alone",
                    "AWI Transferring to the Miniatures Game",
                ));
                bad = true;
                break;
            }
            spent += step_cost(m, here, hex).unwrap_or(0);
            path.push(hex);
        }
        if bad {
            continue;
        }
        if spent > allowed {
            let why = match &in_command {
                Some(None) => format!(
                    " (out of command: {} of {})",
                    allowed,
                    m.unit(&mv.unit).and_then(|u| m.allowance_of(u)).unwrap_or(0)
                ),
                _ => String::new(),
            };
            let rule = if in_command == Some(None) { "AWI Command Control" } else { "AWI Unit" };
            problems.push(problem(
                format!("{field}.path"),
                format!("the path costs {spent} MP; {} may spend {allowed}{why}", piece.name()),
                "over-allowance",
                rule,
            ));
            continue;
        }
        checked.push(Checked { unit: mv.unit.clone(), path, spent, allowance: allowed, in_command, carried_by: None });
    }
    if problems.is_empty() {
        problems.extend(supply_alone(m, s, body, &checked, &enemy_units));
        problems.extend(garrison_problems(m, s, side, body, &checked));
        problems.extend(crate::systems::awi::rules::fortifications::check_builds(m, s, side, &body.build, &checked));
    }
    if problems.is_empty() && side == BRITISH {
        problems.extend(communication_limits(m, s, body, &checked, &cmds.of_unit));
    }
    (checked, problems)
}

/// The field of the orders that moved `unit`: its move's path, or the
/// `carry` entry of the troop fleet that carried it.
fn field_of(body: &Body, unit: &str) -> String {
    for (i, mv) in body.moves.iter().enumerate() {
        if mv.unit == unit {
            return format!("moves[{i}].path");
        }
        if let Some(k) = mv.carry.iter().position(|c| c == unit) {
            return format!("moves[{i}].carry[{k}]");
        }
    }
    "moves".into()
}

/// A supply unit or a general has no fighting stands: it enters a hex the
/// enemy's land units hold only beside a unit of its side that fights,
/// ending its move there (a stand-in: 1776's rule for supply units is not
/// in our texts, "Supply units are used as given in 1776 for all purposes
/// except combat"; a general is no force to fight a battle). Alone there
/// it would be captured at once (battle::capture_unescorted).
fn supply_alone(m: &Module, s: &State, body: &Body, moves: &[Checked], enemy: &BTreeSet<HexId>) -> Vec<Problem> {
    let after = apply(s, moves);
    let mut problems = Vec::new();
    for mv in moves {
        let (side, what, code, rule) = match (m.unit(&mv.unit), m.general(&mv.unit)) {
            (Some(u), _) if u.is_supply() => {
                (&u.side, format!("{} is a supply unit", u.name), "supply-alone", "AWI Supply")
            }
            (None, Some(g)) => (
                &g.side,
                format!("{} is a general", g.name),
                "general-alone",
                "AWI Transferring to the Miniatures Game",
            ),
            _ => continue,
        };
        let Some(end) = mv.path.last().copied() else { continue };
        if !enemy.contains(&end) {
            continue;
        }
        let escorted = after.at(end).iter().any(|id| m.unit(id).is_some_and(|x| &x.side == side && !x.is_supply()));
        if !escorted {
            problems.push(problem(
                field_of(body, &mv.unit),
                format!("{what}: it has no fighting stands and enters {end}, held by the enemy's land units, only with a unit of its side that fights and ends its move there"),
                code,
                rule,
            ));
        }
    }
    problems
}

/// Each `forts` entry names a fort of the side's, once, and units of the
/// side's (not supply units) that are in its hex after the moves.
fn garrison_problems(m: &Module, s: &State, side: &str, body: &Body, moves: &[Checked]) -> Vec<Problem> {
    let after = apply(s, moves);
    let mut problems = Vec::new();
    let mut named = BTreeSet::new();
    let ours: Vec<&str> = s.forts.iter().filter(|f| f.side == side).map(|f| f.hex.as_str()).collect();
    for (i, g) in body.forts.iter().enumerate() {
        let field = format!("forts[{i}]");
        if !ours.contains(&g.hex.as_str()) {
            problems.push(problem(
                format!("{field}.hex"),
                format!(
                    "'{}' is not the hex of a fort of yours: {}",
                    echo(&g.hex),
                    if ours.is_empty() { "you have none".to_string() } else { ours.join(", ") }
                ),
                "not-a-fort",
                "AWI Supply",
            ));
            continue;
        }
        if !named.insert(g.hex.as_str()) {
            problems.push(problem(
                format!("{field}.hex"),
                format!("the fort at {} is named twice", echo(&g.hex)),
                "twice",
                "AWI Supply",
            ));
            continue;
        }
        let mut seen = BTreeSet::new();
        for (j, id) in g.garrison.iter().enumerate() {
            let f = format!("{field}.garrison[{j}]");
            let ok = m.unit(id).is_some_and(|u| u.side == side && !u.is_supply());
            let there = after.pieces.get(id).and_then(|p| p.hex.as_deref()) == Some(g.hex.as_str());
            if !ok {
                problems.push(problem(
                    f,
                    format!(
                        "'{}' is not a unit of yours that fights: a fort shelters your regiments and guns",
                        echo(id)
                    ),
                    "not-yours",
                    "AWI Supply",
                ));
            } else if !there {
                problems.push(problem(
                    f,
                    format!("{id} is not at {} after the moves: only units in the fort's hex can be inside it", g.hex),
                    "not-in-fort-hex",
                    "AWI Supply",
                ));
            } else if !seen.insert(id) {
                problems.push(problem(f, format!("{} is named twice", echo(id)), "twice", "AWI Supply"));
            }
        }
    }
    problems
}

/// The garrisons the orders give, after the moves (checked).
pub fn apply_garrisons(s: &mut State, side: &str, body: &Body) {
    for g in &body.forts {
        if let Some(f) = s.forts.iter_mut().find(|f| f.side == side && f.hex == g.hex) {
            f.garrison = g.garrison.clone();
        }
    }
}

/// The state after the moves.
pub fn apply(s: &State, moves: &[Checked]) -> State {
    let mut after = s.clone();
    for mv in moves {
        if let (Some(p), Some(last)) = (after.pieces.get_mut(&mv.unit), mv.path.last()) {
            p.hex = Some(last.to_string());
        }
    }
    after
}

/// Whether a unit is held by communications when it moves: a British
/// regular, not cavalry ("British regular cavalry units can voluntarily
/// move out of communication"), not always in communication.
fn held(m: &Module, unit: &str) -> bool {
    m.unit(unit).is_some_and(|u| u.side == BRITISH && u.class == Class::Regular && u.kind != Kind::Cavalry)
        && always(m, unit).is_none()
}

fn communication_limits(
    m: &Module,
    s: &State,
    body: &Body,
    moves: &[Checked],
    of_unit: &BTreeMap<String, Option<String>>,
) -> Vec<Problem> {
    let after = apply(s, moves);
    let mut problems = Vec::new();
    for mv in moves {
        if !held(m, &mv.unit) {
            continue;
        }
        let Some(end) = mv.path.last().copied() else { continue };
        if status_at(m, &after, end).is_in() {
            continue;
        }
        let field = field_of(body, &mv.unit);
        let name = m.unit(&mv.unit).map(|u| u.name.clone()).unwrap_or_default();
        let start = mv.path[0];
        if status_at(m, s, start).is_in() {
            problems.push(problem(
                field.clone(),
                format!("{name} would end its move at {end}, out of communication: British regular units (except cavalry) cannot voluntarily end their movement in a hex which is out of communication"),
                "ends-out-of-communication",
                "AWI Communication Effects",
            ));
            continue;
        }
        // Began out of communication: it must end in communication or as
        // close as possible to a hex in communication.
        let allowed = allowance(m, s, &mv.unit, of_unit).map(|a| a.0).unwrap_or(0);
        let enemy = enemy_of(m, BRITISH);
        let enemy_hexes = land_units_of(m, s, &enemy);
        let reachable = reach(m, start, allowed, &|h| enemy_hexes.contains(&h));
        let in_comm: Vec<HexId> = m
            .map
            .terrain
            .keys()
            .copied()
            .filter(|h| m.map.terrain[h] != WATER && status_at(m, &after, *h).is_in())
            .collect();
        let gap = |h: HexId| in_comm.iter().map(|c| distance(*c, h, m.map.layout)).min().unwrap_or(u32::MAX);
        let best = reachable.keys().map(|h| gap(*h)).min().unwrap_or(u32::MAX);
        if gap(end) > best {
            let closest: Vec<String> = reachable.keys().filter(|h| gap(**h) == best).map(|h| h.to_string()).collect();
            problems.push(problem(
                field.clone(),
                format!(
                    "{name} began out of communication and moves: it must end in communication or as close as possible to a hex in communication; {end} is {} hexes from one, {} is {best}",
                    gap(end),
                    closest.join(", ")
                ),
                "not-closer-to-communication",
                "AWI Communication Effects",
            ));
        }
    }
    problems
}

/// The move events.
pub fn events(m: &Module, moves: &[Checked]) -> Vec<Event> {
    moves
        .iter()
        .map(|mv| {
            let name = m.piece(&mv.unit).map(|p| p.name().to_string()).unwrap_or_default();
            let path: Vec<String> = mv.path.iter().map(|h| h.to_string()).collect();
            if let Some(fleet) = &mv.carried_by {
                let by = m.piece(fleet).map(|p| p.name().to_string()).unwrap_or_default();
                return Event::new(
                    fleets::RULE,
                    "carried",
                    format!("{name} sails with the {by} from {} and lands at {}", path[0], path[path.len() - 1]),
                )
                .with("unit", &mv.unit)
                .with("fleet", fleet)
                .with("path", &path);
            }
            let mut e = Event::new(
                "AWI Unit",
                "move",
                format!("{name} moves {} ({} of {} MP)", path.join("-"), mv.spent, mv.allowance),
            )
            .with("unit", &mv.unit)
            .with("path", &path)
            .with("movement_points", mv.spent)
            .with("allowance", mv.allowance);
            if let Some(general) = &mv.in_command {
                e = e.with("general", general);
            }
            e
        })
        .collect()
}
