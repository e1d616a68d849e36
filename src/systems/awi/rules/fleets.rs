//! Fleets on the campaign map: 1776's naval movement, which our texts do
//! not hold (1776-FACTS.md section 3: "British troop fleets (TF) carry
//! troops port to port; battle fleets (BF) for both Britain and France";
//! section 2: "Sea lanes are special sea hexes"). The article needs fleets
//! where they are (COMMUNICATIONS: "It is in a hex containing a British TF
//! or BF which can in turn trace a sea link to the east map edge"; "A
//! French BF blocks the sea link if it passes through or adjacent to the
//! hex containing the French BF"), so they move, by these stand-ins:
//!
//! - a fleet moves hex to hex through sea lanes and ports (a town with
//!   `port: true`), each hex one point of its allowance (charts/movement.yaml
//!   `tf` and `bf` rows, stand-in); never up a river;
//! - it enters no hex holding an enemy fleet (1776's naval combat is not in
//!   our texts) nor a port holding the enemy's land units;
//! - a troop fleet carries (`carry:`) land units and generals of its side
//!   from the port it starts in to the port where it ends; they make no
//!   move of their own that month, and land there (a battle if the enemy
//!   is there is not possible: the fleet cannot enter that port), but not
//!   in a port holding enemy generals without land units, which no land
//!   move may enter either (no battle can be fought there).

use std::collections::BTreeSet;

use crate::base::error::echo;
use crate::base::hex::{are_adjacent, HexId};
use crate::systems::awi::board::{enemy_of, State};
use crate::systems::awi::data::{FleetKind, Module, WATER};
use crate::systems::awi::rules::movement::{Checked, Move, Problem};

pub const RULE: &str = "AWI Fleets";

fn problem(field: String, message: String, code: &'static str) -> Problem {
    Problem { field, message, code, rule: RULE }
}

/// Whether a fleet may be in `hex`: a sea lane or a port.
pub fn navigable(m: &Module, hex: HexId) -> bool {
    m.map.terrain.get(&hex).is_some_and(|t| t == WATER) || m.town_at(hex).is_some_and(|t| t.port)
}

/// The `i`th move of `side`'s orders, of a fleet: the fleet's checked move
/// and its passengers', or every problem. `seen` holds the pieces already
/// moved by the orders (a passenger is one of them).
pub fn check(
    m: &Module,
    s: &State,
    side: &str,
    i: usize,
    mv: &Move,
    enemy_land: &BTreeSet<HexId>,
    seen: &mut BTreeSet<String>,
) -> Result<Vec<Checked>, Vec<Problem>> {
    let field = format!("moves[{i}]");
    let Some(fleet) = m.fleet(&mv.unit) else { return Ok(Vec::new()) };
    let fail = |f: String, message: String, code| Err(vec![problem(f, message, code)]);
    let Some(start) = s.hex_of(&mv.unit) else {
        return fail(format!("{field}.unit"), format!("{} is not on the map", fleet.name), "not-on-map");
    };
    if !seen.insert(mv.unit.clone()) {
        return fail(
            format!("{field}.unit"),
            format!("{} is moved twice; one move per fleet", fleet.name),
            "moved-twice",
        );
    }
    let Some(allowance) = m.fleet_allowance(fleet) else {
        return fail(
            format!("{field}.unit"),
            format!("charts/movement.yaml gives {} no allowance", fleet.name),
            "no-allowance",
        );
    };
    if mv.path.is_empty() {
        return fail(
            format!("{field}.path"),
            "a move enters at least one hex; leave a fleet that stays out of `moves`".into(),
            "empty-path",
        );
    }
    let enemy = enemy_of(m, side);
    let hexes_of = |whose: &dyn Fn(&str) -> bool| -> BTreeSet<HexId> {
        s.pieces.iter().filter(|(id, _)| whose(id)).filter_map(|(_, p)| p.hex.as_deref()?.parse().ok()).collect()
    };
    let enemy_fleets = hexes_of(&|id| m.fleet(id).is_some_and(|f| f.side == enemy));
    let enemy_generals = hexes_of(&|id| m.general(id).is_some_and(|g| g.side == enemy));
    let mut path = vec![start];
    for (j, text) in mv.path.iter().enumerate() {
        let f = format!("{field}.path[{j}]");
        let Ok(hex) = text.parse::<HexId>() else {
            return fail(f, format!("'{}' is not a hex id (four digits, CCRR)", echo(text)), "bad-hex");
        };
        let here = path[path.len() - 1];
        if !m.map.contains(hex) {
            return fail(f, format!("{hex} is not on the map"), "off-map");
        }
        if !navigable(m, hex) {
            return fail(f, format!("{hex} is land: a fleet sails through sea lanes and ports"), "not-navigable");
        }
        if !are_adjacent(here, hex, m.map.layout) {
            return fail(f, format!("{hex} is not next to {here}"), "not-adjacent");
        }
        if enemy_fleets.contains(&hex) {
            return fail(
                f,
                format!("{hex} holds an enemy fleet: naval combat (1776's) is not in this version, so a fleet does not enter it"),
                "enemy-fleet",
            );
        }
        if enemy_land.contains(&hex) {
            return fail(
                f,
                format!("{hex} is a port the enemy's land units hold: a fleet does not enter it (a landing against the enemy is not in this version)"),
                "enemy-port",
            );
        }
        path.push(hex);
    }
    let spent = (path.len() - 1) as u32;
    if spent > allowance {
        return fail(
            format!("{field}.path"),
            format!("the path enters {spent} hexes; {} may sail {allowance}", fleet.name),
            "over-allowance",
        );
    }
    let end = path[path.len() - 1];
    let mut moves = vec![Checked {
        unit: mv.unit.clone(),
        path: path.clone(),
        spent,
        allowance,
        in_command: None,
        carried_by: None,
    }];
    let mut problems = Vec::new();
    if !mv.carry.is_empty() {
        if fleet.kind != FleetKind::Tf {
            return fail(
                format!("{field}.carry"),
                format!("{} is a battle fleet: only a troop fleet carries units", fleet.name),
                "not-a-troop-fleet",
            );
        }
        let port = |h: HexId| m.town_at(h).filter(|t| t.port);
        if port(start).is_none() || port(end).is_none() {
            return fail(
                format!("{field}.carry"),
                format!(
                    "a troop fleet carries units port to port: {} starts at {start}{} and ends at {end}{}",
                    fleet.name,
                    if port(start).is_some() { "" } else { " (not a port)" },
                    if port(end).is_some() { "" } else { " (not a port)" }
                ),
                "not-port-to-port",
            );
        }
        // A landing is a land move into the port: like one (movement.rs,
        // `generals-alone`), never where enemy generals stand without land
        // units. Self-play, seed 24, game 342: the Royal Navy transports
        // landed the Charleston supply unit on Marion, alone at 1108, and
        // the two stood there with no battle to fight and nothing taken.
        if enemy_generals.contains(&end) {
            return fail(
                format!("{field}.carry"),
                format!(
                    "{end} holds enemy generals without land units: no battle can be fought there, and no one lands there from {}",
                    fleet.name
                ),
                "generals-alone",
            );
        }
        for (k, id) in mv.carry.iter().enumerate() {
            let f = format!("{field}.carry[{k}]");
            let Some(piece) = m.piece(id).filter(|p| m.fleet(id).is_none() && p.side() == side) else {
                problems.push(problem(
                    f,
                    format!("'{}' is not a land unit or general of yours", echo(id)),
                    "not-yours",
                ));
                continue;
            };
            if s.hex_of(id) != Some(start) {
                problems.push(problem(
                    f,
                    format!("{} is not at {start}, where {} sails from", piece.name(), fleet.name),
                    "not-aboard",
                ));
                continue;
            }
            if !seen.insert(id.clone()) {
                problems.push(problem(
                    f,
                    format!("{} moves this month already: a unit carried makes no move of its own", piece.name()),
                    "moved-twice",
                ));
                continue;
            }
            moves.push(Checked {
                unit: id.clone(),
                path: vec![start, end],
                spent: 0,
                allowance: 0,
                in_command: None,
                carried_by: Some(mv.unit.clone()),
            });
        }
    }
    if problems.is_empty() {
        Ok(moves)
    } else {
        Err(problems)
    }
}
