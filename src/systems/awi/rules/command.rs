//! GENERALS and COMMAND CONTROL (the article): which units are in command.
//!
//! "A unit which is under the control of a general is said to be 'in
//! command'. All others are said to be 'out of command'." A general
//! controls units in his hex, up to his command span in fighting stands:
//! "Cavalry and non-fighting stands do not count against a general's
//! command span." "Each infantry regiment (or regimental sized infantry
//! formation) can control a single battalion gun (or eight pounders) at no
//! cost in command span to its commanding general." "Militia brigadier
//! generals have the standard command span of 18 fighting stands but no
//! more than 6 of these can be regular."
//!
//! Which general takes which unit ("Command Pressures", not in our texts)
//! is a stand-in: in each hex the generals with the largest spans choose
//! first (then in order-of-battle order) and take the units in
//! order-of-battle order, guns last, each unit that fits whole.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::base::hex::HexId;
use crate::systems::awi::board::State;
use crate::systems::awi::data::{Class, General, Gun, Kind, Module};

/// One general's command: what he controls and what it costs his span.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Command {
    pub general: String,
    pub span: u32,
    pub counted: u32,
    pub regular_counted: u32,
    pub regular_at_most: Option<u32>,
    pub units: Vec<String>,
    pub free_guns: Vec<String>,
}

/// Every general's command in a state, and each unit's general (`None`:
/// out of command).
#[derive(Debug, Clone, Default)]
pub struct Commands {
    pub commands: Vec<Command>,
    pub of_unit: BTreeMap<String, Option<String>>,
}

/// What a unit costs a span: its fighting stands, but nothing for cavalry.
pub fn cost(m: &Module, s: &State, unit: &str) -> u32 {
    let Some(u) = m.unit(unit) else { return 0 };
    if u.kind == Kind::Cavalry {
        return 0;
    }
    s.pieces.get(unit).map(|p| p.stands).unwrap_or(u.fighting_stands)
}

/// Whether a gun is a battalion gun an infantry regiment may control free.
fn battalion_gun(m: &Module, unit: &str) -> bool {
    m.unit(unit).is_some_and(|u| matches!(u.gun, Some(Gun::Light | Gun::EightPounder)))
}

pub fn commands(m: &Module, s: &State) -> Commands {
    let mut out = Commands::default();
    let mut by_hex: BTreeMap<HexId, Vec<&str>> = BTreeMap::new();
    for (id, p) in &s.pieces {
        if let Some(h) = p.hex.as_deref().and_then(|h| h.parse().ok()) {
            by_hex.entry(h).or_default().push(id);
        }
    }
    for (_, ids) in by_hex {
        for side in m.info.sides.iter().map(|x| x.id.as_str()) {
            let mut generals: Vec<_> =
                m.generals.iter().filter(|g| g.side == side && ids.contains(&g.id.as_str())).collect();
            generals.sort_by_key(|g| std::cmp::Reverse(m.span_of(g).map(|r| r.stands).unwrap_or(0)));
            // Supply units are not regiments: no general commands them,
            // and they are never out of command.
            let mut units: Vec<_> =
                m.units.iter().filter(|u| u.side == side && !u.is_supply() && ids.contains(&u.id.as_str())).collect();
            // Guns last: a battalion gun is free only beside an infantry regiment.
            units.sort_by_key(|u| u.kind == Kind::Artillery);
            let mut cmds: Vec<Command> = generals
                .iter()
                .map(|g| {
                    let row = m.span_of(g);
                    Command {
                        general: g.id.clone(),
                        span: row.map(|r| r.stands).unwrap_or(0),
                        counted: 0,
                        regular_counted: 0,
                        regular_at_most: row.and_then(|r| r.regular_at_most),
                        units: Vec::new(),
                        free_guns: Vec::new(),
                    }
                })
                .collect();
            let free_per = m.charts.command.free_guns_per_infantry_regiment.value;
            for u in units {
                let c = cost(m, s, &u.id);
                let regular = u.class != Class::Militia;
                let mut placed = None;
                for cmd in cmds.iter_mut() {
                    let regiments =
                        cmd.units.iter().filter(|x| m.unit(x).is_some_and(|x| x.kind == Kind::Infantry)).count() as u32;
                    if battalion_gun(m, &u.id) && (cmd.free_guns.len() as u32) < regiments * free_per {
                        cmd.free_guns.push(u.id.clone());
                        placed = Some(cmd.general.clone());
                        break;
                    }
                    let regular_ok = !regular || cmd.regular_at_most.is_none_or(|most| cmd.regular_counted + c <= most);
                    if cmd.counted + c <= cmd.span && regular_ok {
                        cmd.counted += c;
                        if regular {
                            cmd.regular_counted += c;
                        }
                        cmd.units.push(u.id.clone());
                        placed = Some(cmd.general.clone());
                        break;
                    }
                }
                out.of_unit.insert(u.id.clone(), placed);
            }
            out.commands.extend(cmds);
        }
    }
    out
}

/// An out-of-command unit's allowance: "Those out of command are restricted
/// during campaign (or map) movement as given in the 'Command Pressures'
/// article" (stand-in: charts/command.yaml's share, rounded down).
pub fn limited(m: &Module, allowance: u32) -> u32 {
    allowance * m.charts.command.out_of_command_movement_percent.value / 100
}

/// BREAKING OFF FROM A BATTLE: "Only the commanding general of the force
/// can make the attempt." Who commands a force is not in our texts
/// (stand-in, as the command stand-in above): of the side's generals in
/// the hex, the one with the largest command span, ties by the order of
/// battle. The battle sheet, the referee's break-off entry and `adjutant
/// odds` all ask this one function.
pub fn commanding_general<'m>(m: &'m Module, s: &State, hex: HexId, side: &str) -> Option<&'m General> {
    let here = s.at(hex);
    m.generals
        .iter()
        .enumerate()
        .filter(|(_, g)| g.side == side && here.contains(&g.id.as_str()))
        .max_by_key(|(i, g)| (m.span_of(g).map(|x| x.stands).unwrap_or(0), std::cmp::Reverse(*i)))
        .map(|(_, g)| g)
}

/// A general's base chance to break off, in percent: "All generals except
/// for Washington, Green and Marion have a 0% base chance to break off
/// from a battle. Washington, Green, and Marion all have a base 10% chance
/// to break off" (charts/command.yaml `break_off`).
pub fn break_off_base(m: &Module, g: &General) -> u32 {
    m.charts.command.break_off.rows.iter().find(|r| r.general == g.id).map_or(0, |r| r.percent)
}

/// A general's army manipulation points (charts/command.yaml
/// `combat_ratings`, by his rating).
pub fn manipulation_points(m: &Module, g: &General) -> u32 {
    m.charts.command.combat_ratings.rows.iter().find(|r| r.rating == g.rating).map_or(0, |r| r.army_manipulation_points)
}
