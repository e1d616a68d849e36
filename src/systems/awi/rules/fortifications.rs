//! FORTIFICATIONS, FORTIFICATIONS IN COMBAT and ENTRENCHMENTS (the
//! article): forts and entrenchments built by a side's orders, a fort's
//! garrison minimum and the town it stands in, and a fort's sections on
//! the battle sheet with the bombardment the table fires at them.
//!
//! "Fortifications are constructed as given in 1776 except that the
//! artillery and the infantry units used in the construction are not
//! eliminated. The supply unit is still eliminated. The fort must always
//! contain a garrison of four fighting infantry stands plus an artillery
//! contingent. The artillery contingent must consist of at least one six
//! pounder (or larger) or two smaller guns. If the garrison is ever reduced
//! to less than these levels, the fortification is immediately
//! eliminated."
//!
//! "The required garrison of a fort does not count toward control of a
//! strategic town when that fort happens to be located in such a town.
//! Forces garrisoning the town can be placed in the fort without negating
//! their ability to garrison the town."
//!
//! "Each 4 inch section of a linear fortification has D10+3 strength points
//! (giving a range of 4 to 14). Artillery of twelve pounds and larger and
//! howitzers of 8 inches and larger can inflict damage directly upon a
//! section of fortification with the intent of knocking it down. Guns
//! shooting at the fortification must be within 12" of the section
//! targeted. The number of damage points inflicted upon the section is
//! determined with a D100 roll ... A section reduced to 0 strength points
//! is destroyed. Destroyed sections no longer count for cover but still
//! count as a linear terrain feature subject to the 70% rule."
//!
//! "Entrenchments may be constructed as given in 1776. In PLM, they are
//! linear features counting as cover against all attacks directed
//! exclusively across them."
//!
//! 1776's construction rules are not in our texts: the builders and what
//! they spend are charts/battle.yaml `fort_construction` and
//! `entrenchment_construction` (stand-in, the supply unit spent the
//! article's); the builders build for the whole of their side's
//! operations (they do not move that month) and the works stand at its
//! end. The bombardment is fired at the table after the sheet is mailed,
//! so the sheet carries each breaching gun's D100 damage rolls, one per
//! shot it can fire; the referee's entry says which section each of its
//! shots at the fort struck (`bombardment`), and adjutant applies the
//! sheet's rolls (docs/awi-southern.md).

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use crate::base::dice::Die;
use crate::base::error::{echo, Error, Result};
use crate::base::hex::HexId;
use crate::system::{Dice, Event};
use crate::systems::awi::board::{enemy_of, Siege, State};
use crate::systems::awi::data::{FortAt, Kind, Module, WATER};
use crate::systems::awi::rules::movement::{Checked, Problem};

pub const FORTS: &str = "AWI Fortifications";
pub const COMBAT: &str = "AWI Fortifications in Combat";
pub const ENTRENCHMENTS: &str = "AWI Entrenchments";

/// Works a side's orders build (`build:`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "a fortification built, a map with hex, works (fort or entrenchment) and units")]
pub struct Build {
    /// The hex built in.
    pub hex: String,
    /// `fort` or `entrenchment`.
    pub works: Works,
    /// The builders: infantry, artillery, and for a fort the supply unit
    /// spent.
    pub units: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Works {
    Fort,
    Entrenchment,
}

fn problem(field: String, message: String, code: &'static str, rule: &'static str) -> Problem {
    Problem { field, message, code, rule }
}

/// Infantry stands count for a garrison and for builders: infantry and
/// militia (foot); not cavalry, mounted infantry or guns.
fn is_foot(kind: Kind) -> bool {
    matches!(kind, Kind::Infantry | Kind::Militia)
}

fn stands(s: &State, id: &str) -> u32 {
    s.pieces.get(id).map(|p| p.stands).unwrap_or(0)
}

/// Whether an artillery unit counts as "a six pounder (or larger)": a gun
/// of the chart's pounds or more, or a howitzer (a reading: a howitzer
/// throws a heavier shell than a six pounder).
fn large_gun(m: &Module, id: &str) -> bool {
    m.gun_size(id).is_some_and(|g| {
        g.howitzer_inches.is_some() || g.pounds.is_some_and(|p| p >= m.charts.battle.fort_garrison.large_gun_pounds)
    })
}

/// What a garrison holds: fighting infantry stands, large guns, smaller
/// guns (guns with a stand left).
fn holdings(m: &Module, s: &State, garrison: &[String]) -> (u32, u32, u32) {
    let (mut foot, mut large, mut small) = (0, 0, 0);
    for id in garrison {
        let Some(u) = m.unit(id) else { continue };
        if is_foot(u.kind) {
            foot += stands(s, id);
        } else if u.kind == Kind::Artillery && stands(s, id) > 0 {
            if large_gun(m, id) {
                large += 1;
            } else {
                small += 1;
            }
        }
    }
    (foot, large, small)
}

/// Why a garrison is below the article's minimum, or none.
pub fn shortfall(m: &Module, s: &State, garrison: &[String]) -> Option<String> {
    let g = &m.charts.battle.fort_garrison;
    let (foot, large, small) = holdings(m, s, garrison);
    if foot >= g.infantry_stands && (large >= 1 || small >= g.smaller_guns) {
        return None;
    }
    Some(format!(
        "a fort's garrison is {} fighting infantry stands plus one gun of {} pounds or larger (or a howitzer) or {} smaller guns; it has {foot} infantry stand{}, {large} gun{} of {} pounds or larger and {small} smaller",
        g.infantry_stands,
        g.large_gun_pounds,
        g.smaller_guns,
        if foot == 1 { "" } else { "s" },
        if large == 1 { "" } else { "s" },
        g.large_gun_pounds,
    ))
}

/// The fighting stands of `side` at a town's hex that count toward its
/// control: a fort's required garrison does not, in a strategic town;
/// the rest of the garrison and the units outside the fort do.
pub fn stands_holding_town(m: &Module, s: &State, side: &str, hex: HexId, strategic: bool) -> u32 {
    let ids: Vec<&str> =
        s.at(hex).into_iter().filter(|id| m.unit(id).is_some_and(|u| u.side == side && !u.is_supply())).collect();
    let all: u32 = ids.iter().map(|id| stands(s, id)).sum();
    if !strategic {
        return all;
    }
    let Some(fort) = s.forts.iter().find(|f| f.side == side && f.hex.parse::<HexId>().ok() == Some(hex)) else {
        return all;
    };
    let g = &m.charts.battle.fort_garrison;
    let (foot, large, small) = holdings(m, s, &fort.garrison);
    // Each gun is one fighting stand: the contingent required is one large
    // gun, or the smaller guns when there is none.
    let guns = if large >= 1 { 1 } else { small.min(g.smaller_guns) };
    all.saturating_sub(foot.min(g.infantry_stands) + guns)
}

/// The garrison of a fort as it stands in `s`: each unit and its stands.
fn signature(s: &State, f: &FortAt) -> Vec<(String, u32)> {
    f.garrison.iter().map(|id| (id.clone(), stands(s, id))).collect()
}

/// "If the garrison is ever reduced to less than these levels, the
/// fortification is immediately eliminated": each fort whose garrison
/// changed from `before` (a unit in or out, a stand lost) is checked, and
/// eliminated below the minimum. A fort new in `after` was checked when
/// it was built.
pub fn enforce(m: &Module, before: &State, after: &mut State) -> Vec<Event> {
    let mut events = Vec::new();
    let mut kept = Vec::new();
    for f in std::mem::take(&mut after.forts) {
        let was = before.forts.iter().find(|x| x.hex == f.hex && x.side == f.side);
        let changed = was.is_some_and(|w| signature(before, w) != signature(after, &f));
        match (changed, shortfall(m, after, &f.garrison)) {
            (true, Some(why)) => {
                events.push(eliminated(&f, &format!("its garrison is reduced below the minimum: {why}"), after))
            }
            _ => kept.push(f),
        }
    }
    after.forts = kept;
    events
}

fn eliminated(f: &FortAt, why: &str, s: &State) -> Event {
    let inside: Vec<String> = f.garrison.iter().map(|id| format!("{id} ({})", stands(s, id))).collect();
    Event::new(
        FORTS,
        "fort-eliminated",
        format!(
            "The {} fort at {} is eliminated: {why} (inside: {})",
            f.side,
            f.hex,
            if inside.is_empty() { "nobody".to_string() } else { inside.join(", ") }
        ),
    )
    .with("hex", &f.hex)
    .with("side", &f.side)
    .with("garrison", &f.garrison)
}

/// Every problem of the orders' `build:` entries, against the state before
/// the moves (`s`) and the moves checked.
pub fn check_builds(m: &Module, s: &State, side: &str, builds: &[Build], moves: &[Checked]) -> Vec<Problem> {
    let mut problems = Vec::new();
    let moved: BTreeSet<&str> = moves.iter().map(|mv| mv.unit.as_str()).collect();
    let mut used: BTreeSet<&str> = BTreeSet::new();
    let mut places: BTreeSet<(String, Works)> = BTreeSet::new();
    let enemy = enemy_of(m, side);
    for (i, b) in builds.iter().enumerate() {
        let field = format!("build[{i}]");
        let known = problems.len();
        let rule = if b.works == Works::Fort { FORTS } else { ENTRENCHMENTS };
        let hex = match b.hex.parse::<HexId>() {
            Ok(h) if m.map.contains(h) && m.map.terrain.get(&h).is_some_and(|t| t != WATER) => h,
            Ok(h) if m.map.contains(h) => {
                problems.push(problem(
                    format!("{field}.hex"),
                    format!("{h} is a sea lane: works are built on land"),
                    "bad-hex",
                    rule,
                ));
                continue;
            }
            _ => {
                problems.push(problem(
                    format!("{field}.hex"),
                    format!("'{}' is not a land hex of the map (four digits, CCRR)", echo(&b.hex)),
                    "bad-hex",
                    rule,
                ));
                continue;
            }
        };
        if !places.insert((hex.to_string(), b.works)) {
            problems.push(problem(format!("{field}.hex"), format!("{hex} is built in twice"), "twice", rule));
            continue;
        }
        match b.works {
            Works::Fort => {
                if let Some(f) = s.forts.iter().find(|f| f.hex == hex.to_string()) {
                    problems.push(problem(
                        format!("{field}.hex"),
                        format!("{hex} has a fort already (the {}'s)", f.side),
                        "fort-exists",
                        rule,
                    ));
                }
            }
            Works::Entrenchment => {
                if let Some(side) = s.entrenchments.get(&hex.to_string()) {
                    problems.push(problem(
                        format!("{field}.hex"),
                        format!("{hex} is entrenched already (by the {side})"),
                        "entrenchment-exists",
                        rule,
                    ));
                }
            }
        }
        if s.at(hex).iter().any(|id| m.unit(id).is_some_and(|u| u.side == enemy)) {
            problems.push(problem(
                format!("{field}.hex"),
                format!("{hex} holds the enemy's land units"),
                "enemy-in-hex",
                rule,
            ));
        }
        let mut foot = 0;
        let mut guns = 0;
        let mut supply = Vec::new();
        let mut garrison = Vec::new();
        for (j, id) in b.units.iter().enumerate() {
            let f = format!("{field}.units[{j}]");
            let Some(u) = m.unit(id).filter(|u| u.side == side) else {
                problems.push(problem(f, format!("'{}' is not a unit of yours", echo(id)), "not-yours", rule));
                continue;
            };
            if !used.insert(id.as_str()) {
                problems.push(problem(
                    f,
                    format!("{id} is named twice: a unit builds one work a month"),
                    "twice",
                    rule,
                ));
                continue;
            }
            if s.hex_of(id) != Some(hex) {
                problems.push(problem(
                    f,
                    format!(
                        "{id} is at {}, not {hex}: the builders are in the hex when their side's operations begin (stand-in)",
                        s.hex_of(id).map(|h| h.to_string()).unwrap_or_else(|| "no hex".into())
                    ),
                    "builder-not-there",
                    rule,
                ));
                continue;
            }
            if moved.contains(id.as_str()) {
                problems.push(problem(
                    f,
                    format!("{id} moves this month: builders spend their side's operations building (stand-in)"),
                    "builder-moves",
                    rule,
                ));
                continue;
            }
            match u.kind {
                Kind::Supply => supply.push(id.clone()),
                Kind::Artillery => {
                    guns += 1;
                    garrison.push(id.clone());
                }
                k if is_foot(k) => {
                    foot += stands(s, id);
                    garrison.push(id.clone());
                }
                _ => problems.push(problem(
                    f,
                    format!("{id} is {}: works are built by infantry and artillery", u.kind.id()),
                    "not-a-builder",
                    rule,
                )),
            }
        }
        if problems.len() > known {
            continue;
        }
        match b.works {
            Works::Fort => {
                let c = &m.charts.battle.fort_construction;
                let mut short = Vec::new();
                if foot < c.infantry_stands {
                    short.push(format!("{} fighting infantry stands (these have {foot})", c.infantry_stands));
                }
                if guns < c.artillery_units {
                    short.push(format!(
                        "{} artillery unit{} (these have {guns})",
                        c.artillery_units,
                        if c.artillery_units == 1 { "" } else { "s" }
                    ));
                }
                if supply.len() as u32 != c.supply_units.value {
                    short.push(format!(
                        "{} supply unit{}, spent (these have {})",
                        c.supply_units.value,
                        if c.supply_units.value == 1 { "" } else { "s" },
                        supply.len()
                    ));
                }
                if !short.is_empty() {
                    problems.push(problem(
                        format!("{field}.units"),
                        format!(
                            "a fort is built by {} (stand-in; \"The supply unit is still eliminated\")",
                            short.join(", ")
                        ),
                        "builders",
                        rule,
                    ));
                } else if let Some(why) = shortfall(m, s, &garrison) {
                    problems.push(problem(
                        format!("{field}.units"),
                        format!("the builders are the fort's first garrison and would not hold it: {why}"),
                        "garrison-minimum",
                        rule,
                    ));
                }
            }
            Works::Entrenchment => {
                let c = &m.charts.battle.entrenchment_construction;
                if !supply.is_empty() {
                    problems.push(problem(
                        format!("{field}.units"),
                        format!("{}: an entrenchment spends no supply unit (stand-in)", supply.join(", ")),
                        "builders",
                        rule,
                    ));
                } else if foot < c.infantry_stands {
                    problems.push(problem(
                        format!("{field}.units"),
                        format!(
                            "an entrenchment is dug by {} fighting infantry stands (stand-in): these have {foot}",
                            c.infantry_stands
                        ),
                        "builders",
                        rule,
                    ));
                }
            }
        }
    }
    problems
}

/// The works built (checked): a fort garrisoned by its builders, its supply
/// unit eliminated; an entrenchment.
pub fn apply_builds(m: &Module, s: &mut State, side: &str, builds: &[Build]) -> Vec<Event> {
    let mut events = Vec::new();
    for b in builds {
        match b.works {
            Works::Fort => {
                let (spent, garrison): (Vec<String>, Vec<String>) =
                    b.units.iter().cloned().partition(|id| m.unit(id).is_some_and(|u| u.is_supply()));
                for id in &spent {
                    if let Some(p) = s.pieces.get_mut(id) {
                        p.hex = None;
                        p.eliminated = true;
                    }
                }
                s.forts.push(FortAt {
                    hex: b.hex.clone(),
                    side: side.to_string(),
                    garrison: garrison.clone(),
                    destroyed: Vec::new(),
                });
                events.push(
                    Event::new(
                        FORTS,
                        "fort-built",
                        format!(
                            "The {side} build a fort at {}: {} build it and stay inside as its garrison; {} is spent (eliminated)",
                            b.hex,
                            garrison.join(", "),
                            spent.join(", ")
                        ),
                    )
                    .with("hex", &b.hex)
                    .with("side", side)
                    .with("garrison", &garrison)
                    .with("supply_spent", &spent),
                );
            }
            Works::Entrenchment => {
                s.entrenchments.insert(b.hex.clone(), side.to_string());
                events.push(
                    Event::new(
                        ENTRENCHMENTS,
                        "entrenchment-built",
                        format!("The {side} entrench {}: {} dig", b.hex, b.units.join(", ")),
                    )
                    .with("hex", &b.hex)
                    .with("side", side)
                    .with("units", &b.units),
                );
            }
        }
    }
    events
}

/// An entrenchment is levelled when none of its side's land units is left
/// in its hex (stand-in: 1776's rule is not in our texts).
pub fn prune_entrenchments(m: &Module, s: &mut State) -> Vec<Event> {
    let mut events = Vec::new();
    let held: Vec<(String, String)> = s.entrenchments.iter().map(|(h, side)| (h.clone(), side.clone())).collect();
    for (hex, side) in held {
        let Ok(at) = hex.parse::<HexId>() else { continue };
        if s.at(at).iter().any(|id| m.unit(id).is_some_and(|u| u.side == side && !u.is_supply())) {
            continue;
        }
        s.entrenchments.remove(&hex);
        events.push(
            Event::new(
                ENTRENCHMENTS,
                "entrenchment-levelled",
                format!("The {side} entrenchments at {hex} are left and levelled"),
            )
            .with("hex", &hex)
            .with("side", &side),
        );
    }
    events
}

/// The damage column of a gun that can breach: `twelve_pounders` or
/// `howitzers`, none for a smaller piece.
fn column(m: &Module, id: &str) -> Option<bool> {
    let g = m.gun_size(id)?;
    let d = &m.charts.battle.fortification_damage;
    if g.howitzer_inches.is_some_and(|i| i >= d.howitzers_from_inches) {
        return Some(true);
    }
    if g.pounds.is_some_and(|p| p >= d.twelve_pounders_from_pounds) {
        return Some(false);
    }
    None
}

fn damage(m: &Module, howitzer: bool, roll: u32) -> u32 {
    m.charts
        .battle
        .fortification_damage
        .rows
        .iter()
        .find(|r| r.from <= roll && roll <= r.to)
        .map(|r| if howitzer { r.howitzers } else { r.twelve_pounders })
        .unwrap_or(0)
}

/// The battle sheet's fortification part for a battle at `hex`: the fort's
/// sections with their strengths (D10+3; a section destroyed before is
/// 0), each breaching gun of the fort's enemy with one D100 damage roll
/// per shot the sheet's ammunition gives it (`ammunition`: its events),
/// and the entrenchments. The siege is what the referee's entry is checked
/// against.
pub fn sheet(
    m: &Module,
    s: &State,
    hex: HexId,
    units: &BTreeMap<String, Vec<String>>,
    ammunition: &[Event],
    dice: &mut dyn Dice,
) -> Result<(Vec<Event>, Option<Siege>)> {
    let chart = &m.charts.battle.fort_section;
    let die: Die = chart.die.parse().map_err(Error::refused)?;
    let mut events = Vec::new();
    let mut siege = None;
    if let Some(fort) = s.forts.iter().find(|f| f.hex.parse::<HexId>().ok() == Some(hex)) {
        let mut strengths = Vec::new();
        for i in 1..=m.charts.battle.fort_sections.value {
            if fort.destroyed.contains(&i) {
                strengths.push(0);
                continue;
            }
            let roll = dice.roll(die, &format!("fort section {i} at {hex}"))?;
            let face = if die == Die::D10 && roll == 0 { 10 } else { u32::from(roll) };
            strengths.push(face + chart.plus);
        }
        events.push(
            Event::new(
                COMBAT,
                "fort-sections",
                format!(
                    "The {} fort at {hex}: {} sections of {}\" with {} strength points ({}+{} each){}. Its garrison has \"hard\" cover",
                    fort.side,
                    strengths.len(),
                    chart.inches,
                    strengths.iter().map(u32::to_string).collect::<Vec<_>>().join(", "),
                    chart.die,
                    chart.plus,
                    if fort.destroyed.is_empty() {
                        String::new()
                    } else {
                        format!(
                            "; section{} {} destroyed before (0: no cover, a linear terrain feature still)",
                            if fort.destroyed.len() == 1 { "" } else { "s" },
                            fort.destroyed.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
                        )
                    }
                ),
            )
            .with("hex", hex.to_string())
            .with("side", &fort.side)
            .with("strengths", &strengths)
            .with("destroyed", &fort.destroyed),
        );
        // Each gun's shots by round, from the sheet's ammunition events
        // (round 0 the first roll, then the resupply rounds in order).
        let mut rounds: BTreeMap<String, Vec<u32>> = BTreeMap::new();
        for e in ammunition.iter().filter(|e| e.kind == "ammunition") {
            let (Some(unit), Some(n)) =
                (e.fields.get("unit").and_then(|v| v.as_str()), e.fields.get("shots").and_then(|v| v.as_u64()))
            else {
                continue;
            };
            rounds.entry(unit.to_string()).or_default().push(u32::try_from(n).unwrap_or(0));
        }
        let enemy = enemy_of(m, &fort.side);
        let d = &m.charts.battle.fortification_damage;
        let mut damage_rolls = BTreeMap::new();
        for id in units.get(&enemy).into_iter().flatten() {
            let Some(howitzer) = column(m, id) else { continue };
            let n: u32 = rounds.get(id).map(|r| r.iter().sum()).unwrap_or(0);
            let mut rolls = Vec::new();
            for k in 1..=n {
                rolls.push(u32::from(dice.roll(Die::D100, &format!("fort damage, {id} shot {k}"))?));
            }
            let points: Vec<u32> = rolls.iter().map(|r| damage(m, howitzer, *r)).collect();
            events.push(
                Event::new(
                    COMBAT,
                    "bombardment-rolls",
                    format!(
                        "{id} ({}) can batter the fort's sections within {}\": its shots at the fort, in order, do {} damage points (D100 {})",
                        m.unit(id).map(|u| u.weapon.as_str()).unwrap_or(""),
                        d.range_inches,
                        if points.is_empty() { "none (no shots)".to_string() } else { points.iter().map(u32::to_string).collect::<Vec<_>>().join(", ") },
                        rolls.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
                    ),
                )
                .with("hex", hex.to_string())
                .with("unit", id)
                .with("rolls", &rolls)
                .with("damage", &points),
            );
            damage_rolls.insert(id.clone(), rolls);
        }
        rounds.retain(|id, _| damage_rolls.contains_key(id));
        siege =
            Some(Siege { hex: hex.to_string(), side: fort.side.clone(), sections: strengths, damage_rolls, rounds });
    }
    if let Some(side) = s.entrenchments.get(&hex.to_string()) {
        events.push(
            Event::new(
                ENTRENCHMENTS,
                "entrenchments",
                format!(
                    "The {side} entrenchments at {hex}: linear features on the table, cover for the {side} against all attacks directed exclusively across them"
                ),
            )
            .with("hex", hex.to_string())
            .with("side", side),
        );
    }
    Ok((events, siege))
}

/// The referee's `bombardment` (each breaching gun: the section each of its
/// shots at the fort struck, in order) against the battle sheet: a gun
/// fires at most the shots of its first ammunition roll and of the
/// resupply rounds its side's supply units spent (`supply_spent`) gave it.
pub fn check_bombardment(
    m: &Module,
    s: &State,
    hex: HexId,
    bombardment: &BTreeMap<String, Vec<u32>>,
    supply_spent: &BTreeMap<String, u32>,
) -> Vec<Problem> {
    let mut problems = Vec::new();
    if bombardment.is_empty() {
        return problems;
    }
    let Some(siege) = s.siege.as_ref().filter(|x| x.hex == hex.to_string()) else {
        problems.push(problem(
            "table.bombardment".into(),
            format!("there is no fort at {hex} to bombard"),
            "no-fort",
            COMBAT,
        ));
        return problems;
    };
    let guns: Vec<&str> = siege.damage_rolls.keys().map(String::as_str).collect();
    for (id, shots) in bombardment {
        let field = format!("table.bombardment.{}", echo(id));
        let Some(rolls) = siege.damage_rolls.get(id) else {
            problems.push(problem(
                field,
                format!(
                    "'{}' has no damage rolls on the battle sheet: \"Artillery of twelve pounds and larger and howitzers of 8 inches and larger can inflict damage directly upon a section\", the fort's enemy's at this battle: {}",
                    echo(id),
                    if guns.is_empty() { "none".to_string() } else { guns.join(", ") }
                ),
                "cannot-breach",
                COMBAT,
            ));
            continue;
        };
        let spent = m.unit(id).and_then(|u| supply_spent.get(&u.side)).copied().unwrap_or(0) as usize;
        let (allowed, why) = match siege.rounds.get(id) {
            Some(r) if !r.is_empty() => {
                let total: u32 = r[..r.len().min(spent + 1)].iter().sum();
                let words = if r.len() == 1 {
                    format!("its ammunition roll gives it {}", r[0])
                } else {
                    format!(
                        "its ammunition roll gives it {} and, with {spent} supply unit{} spent, resupply {} more",
                        r[0],
                        if spent == 1 { "" } else { "s" },
                        total - r[0]
                    )
                };
                (total as usize, words)
            }
            _ => (rolls.len(), format!("the battle sheet gives it {}", rolls.len())),
        };
        let allowed = allowed.min(rolls.len());
        if shots.len() > allowed {
            problems.push(problem(
                field.clone(),
                format!(
                    "{id} fires {} shots at the fort; {why} (a damage roll on the sheet for each): 0 to {allowed}",
                    shots.len()
                ),
                "too-many-shots",
                COMBAT,
            ));
        }
        for (k, section) in shots.iter().enumerate() {
            let n = siege.sections.len();
            if *section == 0 || *section as usize > n {
                problems.push(problem(
                    format!("{field}[{k}]"),
                    format!("{section} is not a section of the fort: 1 to {n}"),
                    "bad-section",
                    COMBAT,
                ));
            } else if siege.sections[*section as usize - 1] == 0 {
                problems.push(problem(
                    format!("{field}[{k}]"),
                    format!(
                        "section {section} was destroyed before this battle: it has no strength left to knock down"
                    ),
                    "bad-section",
                    COMBAT,
                ));
            }
        }
    }
    problems
}

/// The bombardment applied (checked): each shot's damage from the sheet's
/// rolls; a section reduced to 0 is destroyed; a fort whose sections are
/// all destroyed is eliminated (a reading: no section stands to shelter
/// anyone). The siege is over either way.
pub fn bombard(m: &Module, s: &mut State, bombardment: &BTreeMap<String, Vec<u32>>) -> Vec<Event> {
    let Some(siege) = s.siege.take() else { return Vec::new() };
    let mut events = Vec::new();
    if bombardment.is_empty() {
        return events;
    }
    let mut left = siege.sections.clone();
    for (id, shots) in bombardment {
        let howitzer = column(m, id).unwrap_or(false);
        let rolls = siege.damage_rolls.get(id).cloned().unwrap_or_default();
        let mut words = Vec::new();
        for (k, section) in shots.iter().enumerate() {
            let roll = rolls.get(k).copied().unwrap_or(0);
            let points = damage(m, howitzer, roll);
            if let Some(x) = (*section as usize).checked_sub(1).and_then(|i| left.get_mut(i)) {
                *x = x.saturating_sub(points);
            }
            words.push(format!("section {section} {points} (D100 {roll})"));
        }
        events.push(
            Event::new(
                COMBAT,
                "bombardment",
                format!(
                    "{id} fired {} shot{} at the fort at {}: {}",
                    shots.len(),
                    if shots.len() == 1 { "" } else { "s" },
                    siege.hex,
                    words.join(", ")
                ),
            )
            .with("hex", &siege.hex)
            .with("unit", id)
            .with("sections", shots),
        );
    }
    let newly: Vec<u32> =
        (1..=left.len() as u32).filter(|i| siege.sections[*i as usize - 1] > 0 && left[*i as usize - 1] == 0).collect();
    let Some(i) = s.forts.iter().position(|f| f.hex == siege.hex && f.side == siege.side) else { return events };
    s.forts[i].destroyed.extend(newly.iter().copied());
    s.forts[i].destroyed.sort_unstable();
    events.push(
        Event::new(
            COMBAT,
            "fort-damage",
            format!(
                "The fort at {}: sections at {} strength points after the bombardment; {}",
                siege.hex,
                left.iter().map(u32::to_string).collect::<Vec<_>>().join(", "),
                if newly.is_empty() {
                    "none destroyed".to_string()
                } else {
                    format!(
                        "section{} {} destroyed: no cover, a linear terrain feature still",
                        if newly.len() == 1 { "" } else { "s" },
                        newly.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
                    )
                }
            ),
        )
        .with("hex", &siege.hex)
        .with("side", &siege.side)
        .with("strengths", &left)
        .with("destroyed", &newly),
    );
    if s.forts[i].destroyed.len() as u32 >= m.charts.battle.fort_sections.value {
        let f = s.forts.remove(i);
        events.push(eliminated(&f, "every section is destroyed", s));
    }
    events
}
