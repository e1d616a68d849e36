//! SUPPLY (the article): artillery ammunition in a battle, rolled for the
//! battle sheet, and the supply units a force expends to resupply it.
//!
//! "Supply units are used as given in 1776 for all purposes except combat.
//! Supply units effect combat only as follows. At the beginning of any
//! table-top battle, a force containing a supply unit roll for artillery
//! ammunition normally as given in the PLM rules. Forces lacking a supply
//! unit still roll for artillery ammunition, but instead of six, eight, or
//! ten shots they would receive according to the PLM rules, they receive
//! only two, three or four shots (respectively)."
//!
//! "A force containing one or more supply units can expend a supply unit
//! during a battle to resupply its artillery pieces. Resupplying a force's
//! artillery pieces allows every artillery unit in the force to roll a
//! second time for artillery ammunition. This immediately eliminates one
//! supply unit." The battle is fought at the table after the sheet is
//! mailed, so the sheet carries, for each supply unit the force has, one
//! resupply roll for each of its guns, rolled with the first: the table
//! uses them in order as it expends supply units, and the referee's entry
//! says how many it expended (`supply_spent`, checked in `battle`).
//!
//! "Artillery pieces in forts are assumed to always be in supply and have
//! unlimited ammunition. Those in the same hex with a friendly fort (but
//! not inside it) can draw upon the fort as if it were a normal supply
//! unit. Forts cannot be used to resupply artillery pieces during a
//! battle." "Artillery pieces within two hexes of a friendly magazine can
//! draw upon that magazine as if it were a standard supply unit provided
//! there is a valid line of communications to the magazine. Magazines
//! cannot be used to resupply artillery pieces during a battle."

use serde::Serialize;

use crate::base::dice::Die;
use crate::base::error::{Error, Result};
use crate::base::hex::{distance, HexId};
use crate::system::{Dice, Event};
use crate::systems::awi::board::State;
use crate::systems::awi::data::{Kind, Module};
use crate::systems::awi::rules::comms::land_links_of;

pub const RULE: &str = "AWI Supply";

/// What a force's artillery (outside a fort) draws its ammunition from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "from")]
pub enum Source {
    /// "a force containing a supply unit": its supply units, in id order.
    SupplyUnit { units: Vec<String> },
    /// A friendly fort in the battle's hex, the guns outside it.
    Fort { hex: String },
    /// A friendly magazine within two hexes with a line of communications.
    Magazine { town: String, hex: String, movement_points: u32 },
    /// "Forces lacking a supply unit".
    None,
}

impl Source {
    pub fn supplied(&self) -> bool {
        !matches!(self, Source::None)
    }

    fn words(&self, m: &Module) -> String {
        match self {
            Source::SupplyUnit { units } => format!("with a supply unit ({})", units.join(", ")),
            Source::Fort { hex } => format!("drawing on the friendly fort at {hex} as on a supply unit"),
            Source::Magazine { town, movement_points, .. } => format!(
                "drawing on the magazine at {} as on a supply unit (line of communications of {movement_points} MP)",
                m.town(town).map(|t| t.name.as_str()).unwrap_or(town)
            ),
            Source::None => "lacking a supply unit".to_string(),
        }
    }
}

/// Where `side`'s artillery at `hex` (outside a fort) draws its ammunition:
/// its supply units, else a friendly fort in the hex, else a friendly
/// magazine (a town the side controls) within the chart's hexes to which
/// a land link runs (traced as COMMUNICATIONS traces the British one: at
/// most 9 MP, not through hexes the enemy holds or is next to unless the
/// side is there too); the nearest, then the first by town id.
pub fn source(m: &Module, s: &State, side: &str, hex: HexId, supply_units: &[String]) -> Source {
    if !supply_units.is_empty() {
        return Source::SupplyUnit { units: supply_units.to_vec() };
    }
    if s.forts.iter().any(|f| f.side == side && f.hex.parse::<HexId>().ok() == Some(hex)) {
        return Source::Fort { hex: hex.to_string() };
    }
    let within = m.charts.battle.magazine_supply.hexes;
    let links = land_links_of(m, s, side, hex);
    let mut best: Option<(u32, Source)> = None;
    for town in &s.magazines {
        let Some(t) = m.town(town) else { continue };
        if s.control.get(town).map(String::as_str) != Some(side) {
            continue;
        }
        let Ok(at) = t.hex.parse::<HexId>() else { continue };
        if distance(hex, at, m.map.layout) > within {
            continue;
        }
        let Some((cost, _)) = links.get(&at) else { continue };
        if best.as_ref().is_none_or(|(c, _)| cost < c) {
            best = Some((*cost, Source::Magazine { town: town.clone(), hex: at.to_string(), movement_points: *cost }));
        }
    }
    best.map(|(_, x)| x).unwrap_or(Source::None)
}

/// One ammunition roll: the die's face (a D10's 0 counts 10) and the shots
/// it gives, supplied or not.
fn roll(m: &Module, supplied: bool, dice: &mut dyn Dice, purpose: &str) -> Result<(u32, u32)> {
    let chart = &m.charts.battle;
    let die: Die = chart.ammunition_roll.die.parse().map_err(Error::refused)?;
    let value = dice.roll(die, purpose)?;
    let face = if die == Die::D10 && value == 0 { 10 } else { u32::from(value) };
    let with = chart
        .ammunition_roll
        .rows
        .iter()
        .find(|r| r.from <= face && face <= r.to)
        .map(|r| r.with_supply)
        .ok_or_else(|| Error::refused(format!("charts/battle.yaml: no ammunition_roll row for {face}")))?;
    if supplied {
        return Ok((face, with));
    }
    let without = chart
        .ammunition
        .rows
        .iter()
        .find(|r| r.with_supply == with)
        .map(|r| r.without_supply)
        .ok_or_else(|| Error::refused(format!("charts/battle.yaml: no ammunition row for {with} shots")))?;
    Ok((face, without))
}

/// The ammunition part of the battle sheet for one side's force at `hex`:
/// each gun's roll at the battle's start (none for a gun inside a friendly
/// fort: unlimited), and one resupply roll per gun for each supply unit
/// the force could expend.
pub fn ammunition(
    m: &Module,
    s: &State,
    hex: HexId,
    side: &str,
    units: &[String],
    supply_units: &[String],
    dice: &mut dyn Dice,
) -> Result<Vec<Event>> {
    let guns: Vec<&String> = units.iter().filter(|id| m.unit(id).is_some_and(|u| u.kind == Kind::Artillery)).collect();
    if guns.is_empty() {
        return Ok(Vec::new());
    }
    let fort = s.forts.iter().find(|f| f.side == side && f.hex.parse::<HexId>().ok() == Some(hex));
    let inside = |id: &str| fort.is_some_and(|f| f.garrison.iter().any(|g| g == id));
    let from = source(m, s, side, hex, supply_units);
    let mut events = Vec::new();
    let mut lines = Vec::new();
    let outside: Vec<&String> = guns.iter().copied().filter(|id| !inside(id)).collect();
    for id in guns.iter().filter(|id| inside(id)) {
        lines.push(format!("{id} in the fort: always in supply, unlimited ammunition"));
        events.push(
            Event::new(
                RULE,
                "ammunition",
                format!("{id} is in the fort at {hex}: always in supply, unlimited ammunition"),
            )
            .with("hex", hex.to_string())
            .with("side", side)
            .with("unit", id.as_str())
            .with("round", 0)
            .with("in_fort", true)
            .with("unlimited", true),
        );
    }
    for id in &outside {
        let (face, shots) = roll(m, from.supplied(), dice, &format!("artillery ammunition, {id}"))?;
        lines.push(format!("{id} {} {face}: {shots} shots", m.charts.battle.ammunition_roll.die.to_uppercase()));
        events.push(
            Event::new(
                RULE,
                "ammunition",
                format!(
                    "{id} rolls for artillery ammunition {}: {} {face}, {shots} shots",
                    from.words(m),
                    m.charts.battle.ammunition_roll.die.to_uppercase()
                ),
            )
            .with("hex", hex.to_string())
            .with("side", side)
            .with("unit", id.as_str())
            .with("round", 0)
            .with("roll", face)
            .with("supplied", from.supplied())
            .with("shots", shots),
        );
    }
    // "A force can resupply its artillery as many times as it has supply
    // units to expend": a round of rolls per supply unit, with supply.
    for round in 1..=supply_units.len() {
        if outside.is_empty() {
            break;
        }
        let mut got = Vec::new();
        for id in &outside {
            let (face, shots) = roll(m, true, dice, &format!("artillery resupply {round}, {id}"))?;
            got.push(format!("{id} {face}: {shots} shots"));
            events.push(
                Event::new(
                    RULE,
                    "ammunition",
                    format!(
                        "{id}, resupply {round} (should the force expend a supply unit): {} {face}, {shots} shots",
                        m.charts.battle.ammunition_roll.die.to_uppercase()
                    ),
                )
                .with("hex", hex.to_string())
                .with("side", side)
                .with("unit", id.as_str())
                .with("round", round)
                .with("roll", face)
                .with("supplied", true)
                .with("shots", shots),
            );
        }
        lines.push(format!("resupply {round} (expending a supply unit): {}", got.join(", ")));
    }
    let mut summary = Event::new(
        RULE,
        "ammunition-supply",
        format!(
            "{side}'s artillery at {hex}, {}: {}{}",
            from.words(m),
            lines.join("; "),
            if supply_units.is_empty() || outside.is_empty() {
                String::new()
            } else {
                format!(
                    ". It may expend up to {} supply unit{} to resupply (the battle's entry: `supply_spent`)",
                    supply_units.len(),
                    if supply_units.len() == 1 { "" } else { "s" }
                )
            }
        ),
    )
    .with("hex", hex.to_string())
    .with("side", side)
    .with("source", &from)
    .with("supply_units", supply_units);
    if let Some(f) = fort {
        summary = summary.with("fort_garrison", &f.garrison);
    }
    events.insert(0, summary);
    Ok(events)
}
