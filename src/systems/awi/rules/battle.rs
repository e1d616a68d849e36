//! Battles (the article): TRANSFERRING TO THE MINIATURES GAME, BREAKING
//! OFF FROM A BATTLE, TRIVIAL COMBATS, PURSUIT PENALTY, POST BATTLE
//! RECOVERY, and COMMUNICATION EFFECTS ON ... COMBAT.
//!
//! "Whenever combat would be called for in a 1776 game, the battle should
//! be transferred to a PLM game." A move that enters a hex the enemy's land
//! units hold ends there; when a side's operations leave both sides' land
//! units in a hex, each such hex is a battle step: the battle sheet is
//! sent with the reports, the battle is fought on the table, and the
//! referee enters its result (an [`Entry`]: `table:`), or, both players
//! agreeing, has it resolved by 1776's combat table (`trivial:`).
//! Then come the pursuit penalty, post-battle recovery, the loser's
//! retreat (stand-in: to the hex the entry names) and the units lost.
//!
//! Breaking off is decided in the middle of the battle, after a pass
//! through the PLM action deck, and its roll must be one nobody could
//! foresee when the decision was written down (docs/design DICE.md: a
//! decision taken after seeing rolls is orders for a new step). So an
//! attempt is its own entry (`break_off:`), resolved in its own step: the
//! referee enters the pass and each side's attempt with the points its
//! general spends, adjutant rolls the D100s with that step's dice and
//! reports them, and the battle step awaits the referee again (the table
//! fights on after a failure; after a success the battle is over and the
//! next entry is its result). The attempts are kept in the state with the
//! battle and the result is checked against them.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::base::dice::Die;
use crate::base::error::{echo, Error, Result};
use crate::base::hex::{are_adjacent, neighbours, HexId};
use crate::system::{Dice, Event};
use crate::systems::awi::board::{enemy_of, land_neighbours, Attempt, Siege, State};
use crate::systems::awi::data::{Class, Kind, Module, WATER};
use crate::systems::awi::rules::command::{break_off_base, commanding_general, commands, manipulation_points};
use crate::systems::awi::rules::comms::{traced, BRITISH};
use crate::systems::awi::rules::movement::Problem;
use crate::systems::awi::rules::{fortifications, supply};

pub const TRANSFER: &str = "AWI Transferring to the Miniatures Game";
pub const TRIVIAL: &str = "AWI Trivial Combats";
const PURSUIT: &str = "AWI Pursuit Penalty";
const RECOVERY: &str = "AWI Post Battle Recovery";
const EFFECTS: &str = "AWI Communication Effects";
pub const DECLINES: &str = "AWI Cavalry Withdrawal Before Combat";
pub const BREAKING: &str = "AWI Breaking Off";

/// The sides whose units that fight (not supply units) stand in each hex.
fn fighting_sides<'a>(m: &'a Module, s: &State) -> BTreeMap<HexId, BTreeSet<&'a str>> {
    let mut sides: BTreeMap<HexId, BTreeSet<&str>> = BTreeMap::new();
    for (id, p) in &s.pieces {
        let (Some(u), Some(hex)) = (m.unit(id), p.hex.as_deref().and_then(|h| h.parse::<HexId>().ok())) else {
            continue;
        };
        if !u.is_supply() {
            sides.entry(hex).or_default().insert(u.side.as_str());
        }
    }
    sides
}

/// The hexes where both sides' units that fight stand: a battle each, in
/// hex order. (Supply units do not fight: [`capture_unescorted`] takes
/// those the enemy reaches alone before any battle is joined.)
pub fn hexes(m: &Module, s: &State) -> Vec<HexId> {
    fighting_sides(m, s).into_iter().filter(|(_, s)| s.len() > 1).map(|(h, _)| h).collect()
}

/// Where reinforcements due at `hex` appear: "The arrival of
/// reinforcements on the map is governed by the rules in 1776", whose
/// reinforcements, when the entry hex is held by the enemy, land next to
/// it (docs/design 1776-FACTS.md). A stand-in: the first hex next to it in
/// hex order, on the map and land, where none of the enemy's units that
/// fight stand; the entry hex itself when it is free, or when every hex
/// next to it is held too (they then fight for it after their side's
/// operations, as units that moved in would). With it, whether the entry
/// hex is held.
pub fn arrival_hex(m: &Module, s: &State, hex: HexId, side: &str) -> (HexId, bool) {
    let fighting = fighting_sides(m, s);
    let enemy = enemy_of(m, side);
    let held = |h: &HexId| fighting.get(h).is_some_and(|x| x.contains(enemy.as_str()));
    if !held(&hex) {
        return (hex, false);
    }
    let mut next = land_neighbours(m, hex);
    next.sort();
    (next.into_iter().find(|h| !held(h)).unwrap_or(hex), true)
}

/// A stand-in for 1776's rule, which our texts do not give ("Supply units
/// are used as given in 1776 for all purposes except combat"; a supply
/// unit has no fighting stands and never fights): the supply units and
/// generals of a side in a hex where the enemy's units that fight stand
/// and none of its own do are captured, with no battle (there is no force
/// to fight one): the supply units eliminated, the generals lost. In hex
/// order, then id order.
pub fn capture_unescorted(m: &Module, s: &mut State) -> Vec<Event> {
    let fighting = fighting_sides(m, s);
    // By hex: the side whose pieces are taken there (one side a hex: the
    // other's units that fight are there), and those pieces.
    let mut taken: BTreeMap<HexId, (String, Vec<String>)> = BTreeMap::new();
    for (id, p) in &s.pieces {
        let Some(hex) = p.hex.as_deref().and_then(|h| h.parse::<HexId>().ok()) else { continue };
        let side = match (m.unit(id), m.general(id)) {
            (Some(u), _) if u.is_supply() => u.side.as_str(),
            (None, Some(g)) => g.side.as_str(),
            _ => continue,
        };
        if fighting.get(&hex).is_some_and(|x| !x.contains(side) && x.contains(enemy_of(m, side).as_str())) {
            taken.entry(hex).or_insert_with(|| (side.to_string(), Vec::new())).1.push(id.clone());
        }
    }
    let mut events = Vec::new();
    for (hex, (side, ids)) in taken {
        for id in &ids {
            let supply = m.unit(id).is_some();
            if let Some(p) = s.pieces.get_mut(id) {
                p.hex = None;
                p.eliminated |= supply;
            }
        }
        events.push(
            Event::new(
                TRANSFER,
                "captured",
                format!(
                    "{side}'s {} captured at {hex}: no unit of {side}'s that fights is with {}, so no battle is fought (stand-in ruling: supply units and generals alone are taken by the enemy's units that reach them)",
                    ids.join(", "),
                    if ids.len() == 1 { "it" } else { "them" }
                ),
            )
            .with("side", &side)
            .with("hex", hex.to_string())
            .with("pieces", &ids),
        );
    }
    events
}

/// Who fights a battle: each side's land units and generals in the hex,
/// and the supply units of each force (part of it, not fighting: SUPPLY).
#[derive(Debug, Clone)]
pub struct Forces {
    pub hex: HexId,
    pub attacker: String,
    pub defender: String,
    pub units: BTreeMap<String, Vec<String>>,
    pub generals: BTreeMap<String, Vec<String>>,
    pub supply: BTreeMap<String, Vec<String>>,
}

impl Forces {
    pub fn of(m: &Module, s: &State, hex: HexId, attacker: &str) -> Forces {
        let defender = enemy_of(m, attacker);
        let mut units: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut generals: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut supply: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for side in [attacker, defender.as_str()] {
            units.insert(side.to_string(), Vec::new());
            generals.insert(side.to_string(), Vec::new());
            supply.insert(side.to_string(), Vec::new());
        }
        for id in s.at(hex) {
            if let Some(u) = m.unit(id).filter(|u| u.is_supply()) {
                supply.entry(u.side.clone()).or_default().push(id.to_string());
            } else if let Some(u) = m.unit(id) {
                units.entry(u.side.clone()).or_default().push(id.to_string());
            } else if let Some(g) = m.general(id) {
                generals.entry(g.side.clone()).or_default().push(id.to_string());
            }
        }
        Forces { hex, attacker: attacker.to_string(), defender, units, generals, supply }
    }

    fn side_of(&self, unit: &str) -> Option<&str> {
        self.units.iter().find(|(_, u)| u.iter().any(|x| x == unit)).map(|(s, _)| s.as_str())
    }

    fn all_units(&self) -> impl Iterator<Item = (&str, &str)> {
        self.units.iter().flat_map(|(s, u)| u.iter().map(move |x| (s.as_str(), x.as_str())))
    }
}

/// British regular units (legion units are not "regular" here) out of
/// communication when the battle is fought: "A British regular unit which
/// enters a combat while out of communication does not recover any hits
/// received during that battle regardless of its outcome."
fn out_of_communication(m: &Module, s: &State, f: &Forces) -> BTreeSet<String> {
    let statuses = traced(m, s);
    f.units
        .get(BRITISH)
        .into_iter()
        .flatten()
        .filter(|id| m.unit(id).is_some_and(|u| u.class == Class::Regular))
        .filter(|id| statuses.get(*id).is_some_and(|st| !st.is_in()))
        .cloned()
        .collect()
}

/// The battle sheet, mailed to both commanders with the reports: the
/// forces, each unit's command status and the out-of-command list, the
/// British units out of communication, the deployment distances and who
/// draws first (the article's steps, in order), the ammunition (SUPPLY)
/// and the fort's sections (FORTIFICATIONS IN COMBAT), with what the
/// referee's entry is checked against for the fort.
pub fn sheet(
    m: &Module,
    s: &State,
    hex: HexId,
    attacker: &str,
    dice: &mut dyn Dice,
) -> Result<(Vec<Event>, Option<Siege>)> {
    let f = Forces::of(m, s, hex, attacker);
    let cmds = commands(m, s);
    let d = &m.charts.battle.deployment;
    let mut events = Vec::new();
    let mut out = Vec::new();
    let mut forces = serde_json::Map::new();
    for (side, ids) in &f.units {
        let mut list = Vec::new();
        for id in ids {
            let Some(u) = m.unit(id) else { continue };
            let general = cmds.of_unit.get(id).cloned().flatten();
            if general.is_none() {
                out.push(id.clone());
            }
            list.push(serde_json::json!({
                "unit": id, "stands": s.pieces.get(id).map(|p| p.stands).unwrap_or(0),
                "weapon": u.weapon, "morale": u.morale, "kind": u.kind.id(), "general": general,
            }));
        }
        forces.insert(
            side.clone(),
            serde_json::json!({"units": list, "generals": f.generals.get(side), "supply_units": f.supply.get(side)}),
        );
    }
    out.sort();
    let isolated: Vec<String> = out_of_communication(m, s, &f).into_iter().collect();
    let words = |side: &str| {
        f.units[side]
            .iter()
            .map(|id| format!("{id} ({})", s.pieces.get(id).map(|p| p.stands).unwrap_or(0)))
            .chain(f.supply[side].iter().map(|id| format!("{id} (supply)")))
            .chain(f.generals[side].iter().cloned())
            .collect::<Vec<_>>()
            .join(", ")
    };
    events.push(
        Event::new(
            TRANSFER,
            "battle",
            format!(
                "Battle at {hex}, handed to the table: {} attacks ({}) against {} ({}). Out of command (10% on every morale check): {}. The defender deploys at least {}\" from the attacker's entry edges, the attacker within {}\" of an entry edge; the attacker draws the first card. Both commanders enter the result, the same in each one's file (`adjutant template --side SIDE`), or the referee in their place (`--side referee`).",
                f.attacker,
                words(&f.attacker),
                f.defender,
                words(&f.defender),
                if out.is_empty() { "none".to_string() } else { out.join(", ") },
                d.defender_inches_from_entry,
                d.attacker_inches_from_edge,
            ),
        )
        .with("hex", hex.to_string())
        .with("attacker", &f.attacker)
        .with("defender", &f.defender)
        .with("forces", serde_json::Value::Object(forces))
        .with("out_of_command", &out)
        .with("out_of_command_penalty_percent", m.charts.command.out_of_command_battle_penalty_percent.value)
        .with("british_out_of_communication", &isolated)
        .with("defender_inches_from_entry", d.defender_inches_from_entry)
        .with("attacker_inches_from_edge", d.attacker_inches_from_edge)
        .with("draws_first", &f.attacker),
    );
    for side in [&f.attacker, &f.defender] {
        events.push(commander_event(m, s, hex, side));
    }
    for (side, ids) in &f.units {
        events.extend(supply::ammunition(m, s, hex, side, ids, &f.supply[side], dice)?);
    }
    // FORTIFICATIONS IN COMBAT: the fort's sections and the breaching guns'
    // damage rolls (one per shot the ammunition above gives), entrenchments.
    let (works, siege) = fortifications::sheet(m, s, hex, &f.units, &events, dice)?;
    events.extend(works);
    Ok((events, siege))
}

/// BREAKING OFF on the battle sheet: who commands the side's force, his
/// base chance and his army manipulation points (rolls none: each attempt
/// is rolled when the referee enters it).
fn commander_event(m: &Module, s: &State, hex: HexId, side: &str) -> Event {
    let per = m.charts.command.break_off_points_per_percent.value;
    match commanding_general(m, s, hex, side) {
        None => Event::new(
            BREAKING,
            "break-off-chance",
            format!("{side} has no general at {hex}: it cannot break off (\"Only the commanding general of the force can make the attempt\")"),
        )
        .with("hex", hex.to_string())
        .with("side", side),
        Some(g) => {
            let base = break_off_base(m, g);
            let points = manipulation_points(m, g);
            Event::new(
                BREAKING,
                "break-off-chance",
                format!(
                    "{side} is commanded by {}: a base {base}% chance to break off, plus 1% for each {per} army manipulation points he spends (stand-in; he has {points}). After any pass through the action deck (the first fought), each commander writes down his attempt or none (`break_off:`, revealed together) and adjutant rolls it",
                    g.name
                ),
            )
            .with("hex", hex.to_string())
            .with("side", side)
            .with("general", &g.id)
            .with("base_percent", base)
            .with("points_per_percent", per)
            .with("army_manipulation_points", points)
        }
    }
}

// ---------------------------------------------------------------------------
// The referee's entry
// ---------------------------------------------------------------------------

/// The body of a battle step's orders file: one of `table:` (the battle
/// fought on the table) or `trivial:` (1776's combat table, both players
/// agreeing).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "a battle's entry, a map with table, trivial, cavalry_declines or break_off")]
pub struct Entry {
    #[serde(default)]
    pub table: Option<Table>,
    #[serde(default)]
    pub trivial: Option<Trivial>,
    /// CAVALRY WITHDRAWAL BEFORE COMBAT: the all-cavalry defender declines
    /// battle and leaves the hex.
    #[serde(default)]
    pub cavalry_declines: Option<Declines>,
    /// BREAKING OFF FROM A BATTLE: the attempts made after a pass through
    /// the action deck, rolled in this step; the battle awaits the referee
    /// again.
    #[serde(default)]
    pub break_off: Option<BreakOff>,
    /// Joined from both commanders' entries (rules/agreement.rs), not the
    /// referee's: at a pass, neither attempting is their decision revealed.
    #[serde(skip)]
    pub by_commanders: bool,
}

/// Attempts to break off after one pass through the PLM action deck: both
/// sides' decisions, written down and revealed together, in one entry.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "a break-off, a map with pass and attempts")]
pub struct BreakOff {
    /// The pass just exhausted (1 the first).
    pub pass: u32,
    /// Each side attempting: the army manipulation points its commanding
    /// general spends on the attempt (0 for none). A commander's own file
    /// names his side or none (he does not attempt at this pass).
    #[serde(default)]
    pub attempts: BTreeMap<String, u32>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "the cavalry's declining, a map with retreat_to")]
pub struct Declines {
    /// The hex next to the battle the cavalry goes to.
    pub retreat_to: String,
}

/// How a side's army ended the battle on the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// Still on the field, short of its army morale level.
    Held,
    /// Still on the field, at or past its army morale level but not broken
    /// ("If it has reached this level but has not yet broken, it still
    /// cannot pursue").
    HeldAtArmyMorale,
    /// Every formation broke.
    Broke,
    /// Broke off successfully: withdrew in good order.
    BrokeOff,
}

impl Outcome {
    fn left(self) -> bool {
        matches!(self, Outcome::Broke | Outcome::BrokeOff)
    }
}

/// The result fought on the table.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
#[serde(
    expecting = "the battle's result, a map with holds_field, outcome, units, generals_lost, retreat_to, pursuit, supply_spent and bombardment"
)]
pub struct Table {
    /// The side which retains control of the battlefield.
    pub holds_field: String,
    /// Each side's army's end.
    pub outcome: BTreeMap<String, Outcome>,
    /// Every unit that fought: its casualty markers at the battle's end,
    /// and whether its formation broke.
    pub units: BTreeMap<String, UnitResult>,
    /// Generals killed or captured.
    #[serde(default)]
    pub generals_lost: Vec<String>,
    /// Where the side that does not hold the field goes (an adjacent hex).
    #[serde(default)]
    pub retreat_to: Option<String>,
    /// The pursuit, when the side holding the field pursues.
    #[serde(default)]
    pub pursuit: Option<PursuitEntry>,
    /// Supply units each side expended to resupply its artillery (SUPPLY:
    /// "This immediately eliminates one supply unit").
    #[serde(default)]
    pub supply_spent: BTreeMap<String, u32>,
    /// FORTIFICATIONS IN COMBAT: each breaching gun's shots at the fort,
    /// in order, as the sections they struck (1 first); each uses the
    /// gun's next damage roll on the battle sheet.
    #[serde(default)]
    pub bombardment: BTreeMap<String, Vec<u32>>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "a unit's result, a map with markers and broke")]
pub struct UnitResult {
    pub markers: u32,
    /// Its formation broke (implied for every unit of an army that broke).
    #[serde(default)]
    pub broke: bool,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "a pursuit, a map with actions and caught")]
pub struct PursuitEntry {
    /// The pursuing player's D10 of actions, rolled at the table.
    pub actions: u32,
    /// The withdrawing units within the pursuit distance of a pursuer.
    pub caught: Vec<String>,
}

/// A trivial combat: each side's order of distributing its casualty
/// markers, and where each side goes should it lose.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "a trivial combat, a map with distribute and retreat_to")]
pub struct Trivial {
    pub distribute: BTreeMap<String, Vec<String>>,
    /// Each side's retreat hex; a side with none to go to names none (no
    /// line of retreat), so a file may leave the whole map out.
    #[serde(default)]
    pub retreat_to: BTreeMap<String, String>,
}

fn problem(field: impl Into<String>, message: impl Into<String>, code: &'static str, rule: &'static str) -> Problem {
    Problem { field: field.into(), message: message.into(), code, rule }
}

/// Whether `hex` is a hex the side may retreat to from `from`: on the map,
/// land, next to it, holding none of the enemy's land units or generals.
fn retreat_problem(m: &Module, s: &State, from: HexId, side: &str, text: &str) -> Option<String> {
    let Ok(hex) = text.parse::<HexId>() else {
        return Some(format!("'{}' is not a hex id (four digits, CCRR)", echo(text)));
    };
    if !m.map.contains(hex) {
        return Some(format!("{hex} is not on the map"));
    }
    if m.map.terrain[&hex] == WATER {
        return Some(format!("{hex} is a sea lane"));
    }
    if !are_adjacent(from, hex, m.map.layout) {
        return Some(format!("{hex} is not next to the battle's hex {from}"));
    }
    let enemy = enemy_of(m, side);
    if s.at(hex).iter().any(|id| m.unit(id).is_some_and(|u| u.side == enemy)) {
        return Some(format!("{hex} holds the enemy's land units"));
    }
    // As a move cannot enter it (no battle can be fought there).
    if s.at(hex).iter().any(|id| m.general(id).is_some_and(|g| g.side == enemy)) {
        return Some(format!("{hex} holds enemy generals"));
    }
    None
}

/// The hexes the side may retreat to from `from`, in hex order: none when
/// every hex next to it is off the map, a sea lane or holds the enemy.
pub fn retreat_hexes(m: &Module, s: &State, from: HexId, side: &str) -> Vec<HexId> {
    let mut out: Vec<HexId> = neighbours(from, m.map.layout)
        .into_iter()
        .filter(|h| retreat_problem(m, s, from, side, &h.to_string()).is_none())
        .collect();
    out.sort();
    out
}

/// The problem of a retreat hex left out: none when the side has nowhere
/// to go (its survivors are then captured, see [`recover`]), else the
/// hexes it may name.
fn retreat_missing(m: &Module, s: &State, from: HexId, side: &str, what: &str) -> Option<String> {
    let legal = retreat_hexes(m, s, from, side);
    (!legal.is_empty()).then(|| {
        format!(
            "{what}: {} (a hex next to {from}, on the map, not a sea lane, holding none of the enemy's land units or generals)",
            legal.iter().map(HexId::to_string).collect::<Vec<_>>().join(", ")
        )
    })
}

/// Every problem of an entry for the battle at `hex`: the referee's (`by`
/// none), which gives both sides' parts, or one commander's (`by` his
/// side), which gives his own side's decisions only: in a trivial combat
/// the order his markers go and where he retreats ("distributed to the
/// units in the force in any fashion the controlling player sees fit"),
/// at a pass his own attempt to break off or none ("both should write down
/// their decision"). rules/agreement.rs joins the two commanders' entries.
pub fn check(m: &Module, s: &State, hex: HexId, attacker: &str, by: Option<&str>, entry: &Entry) -> Vec<Problem> {
    let f = Forces::of(m, s, hex, attacker);
    let sides = [f.attacker.clone(), f.defender.clone()];
    let own: Vec<String> = match by {
        Some(side) => vec![side.to_string()],
        None => sides.to_vec(),
    };
    let mut problems = Vec::new();
    let attempted = s.break_off.iter().map(|a| a.pass).max();
    match (&entry.table, &entry.trivial, &entry.cavalry_declines, &entry.break_off) {
        (Some(t), None, None, None) => check_table(m, s, &f, &sides, t, &mut problems),
        (None, Some(_), None, None) | (None, None, Some(_), None) if attempted.is_some() => {
            let trivial = entry.trivial.is_some();
            problems.push(problem(
                if trivial { "trivial" } else { "cavalry_declines" },
                format!(
                    "this battle is being fought on the table: an attempt to break off was made after pass {}; enter its result (`table:`){}",
                    attempted.unwrap_or(0),
                    if trivial { ": a trivial combat is 1776's combat table instead of the table, and in it \"Neither side may break off\"" } else { ": cavalry declines battle before combat, not during it" }
                ),
                "battle-on-the-table",
                if trivial { TRIVIAL } else { DECLINES },
            ))
        }
        (None, Some(t), None, None) => check_trivial(m, s, &f, &sides, &own, t, &mut problems),
        (None, None, Some(d), None) => check_declines(m, s, &f, d, &mut problems),
        (None, None, None, Some(b)) => {
            // The referee enters attempts made; the commanders each write
            // down a decision, and both may be none.
            let may_be_empty = by.is_some() || entry.by_commanders;
            check_break_off(m, s, &f, &own, may_be_empty, b, &mut problems)
        }
        (_, Some(_), _, Some(_)) => problems.push(problem(
            "break_off",
            "a trivial combat: \"Neither side may break off\" (TRIVIAL COMBATS); an attempt to break off is entered alone, after a pass through the action deck of a battle fought on the table",
            "trivial-break-off",
            TRIVIAL,
        )),
        _ => problems.push(problem(
            "",
            "a battle's entry gives `table:` (the result fought on the table), `trivial:` (1776's combat table, both players agreeing), `cavalry_declines:` (an all-cavalry defender declines battle) or `break_off:` (attempts to break off after a pass through the action deck), one of them",
            "battle-entry",
            TRANSFER,
        )),
    }
    problems
}

/// An attempt's chance, in percent: the general's base and the points he
/// spends, converted (rounded down), at most 100.
fn chance(m: &Module, base: u32, points: u32) -> u32 {
    let per = m.charts.command.break_off_points_per_percent.value.max(1);
    (base + points / per).min(100)
}

/// BREAKING OFF FROM A BATTLE: "The attempt can be made after any turn
/// which exhausts the PLM action deck. (A force must fight for at least
/// one pass through the action deck.) ... Any general can expend any
/// number of his army manipulation points to modify this chance. Like any
/// other use of these points, once used they may not be recovered nor
/// reused for any purpose. Only one attempt to withdraw may be made per
/// pass through the action deck. Only the commanding general of the force
/// can make the attempt. ... If the attempt fails, the battle continues
/// for at least one more pass through the action deck. The attempt can be
/// repeated if the general has a non-zero chance of breaking off. If both
/// sides are considering a break off, both should write down their
/// decision to do so and then reveal them simultaneously before either
/// attempt is resolved."
fn check_break_off(
    m: &Module,
    s: &State,
    f: &Forces,
    own: &[String],
    may_be_empty: bool,
    b: &BreakOff,
    problems: &mut Vec<Problem>,
) {
    let sides = &[f.attacker.clone(), f.defender.clone()];
    if let Some(a) = s.break_off.iter().find(|a| a.succeeded) {
        problems.push(problem(
            "break_off",
            format!(
                "{} broke off after pass {} (D100 {} against {}%): \"If the force successfully breaks off, the battle immediately ends\"; enter its result (`table:`, {}: broke-off)",
                a.side, a.pass, a.roll, a.chance, a.side
            ),
            "battle-ended",
            BREAKING,
        ));
        return;
    }
    if b.pass == 0 {
        problems.push(problem(
            "break_off.pass",
            "0: the attempt is made after a pass through the action deck: \"A force must fight for at least one pass through the action deck\": 1 or later",
            "break-off-first-pass",
            BREAKING,
        ));
    }
    // The passes entered: those of attempts rolled, and the one the step
    // follows (at which neither commander may have attempted).
    let entered = s.break_off.iter().map(|a| a.pass).chain(s.next.as_ref().and_then(|n| n.after_pass));
    if let Some(last) = entered.max().filter(|last| b.pass <= *last) {
        problems.push(problem(
            "break_off.pass",
            format!(
                "{}: an attempt was entered after pass {last}: \"Only one attempt to withdraw may be made per pass through the action deck\", after a failure \"the battle continues for at least one more pass\", and both sides' decisions at a pass are revealed together (one entry): {} or later",
                b.pass,
                last + 1
            ),
            "break-off-pass",
            BREAKING,
        ));
    }
    // One commander's file may attempt nothing this pass (his decision,
    // written down); the two together must attempt something.
    if b.attempts.is_empty() && !may_be_empty {
        problems.push(problem(
            "break_off.attempts",
            format!(
                "no side attempts: name each side attempting and the army manipulation points its general spends ({})",
                sides.join(", ")
            ),
            "break-off-empty",
            BREAKING,
        ));
    }
    let per = m.charts.command.break_off_points_per_percent.value;
    for (side, points) in &b.attempts {
        let field = format!("break_off.attempts.{}", echo(side));
        if !sides.contains(side) {
            problems.push(problem(
                field,
                format!("'{}' is not a side of this battle ({})", echo(side), sides.join(", ")),
                "battle-side",
                BREAKING,
            ));
            continue;
        }
        if !own.contains(side) {
            problems.push(problem(
                field,
                format!(
                    "{side}'s attempt is {side}'s to write down, in its own file: \"both should write down their decision to do so and then reveal them simultaneously before either attempt is resolved\"; give {}'s only (or none)",
                    own.join(", ")
                ),
                "not-own-side",
                BREAKING,
            ));
            continue;
        }
        let Some(g) = commanding_general(m, s, f.hex, side) else {
            problems.push(problem(
                field,
                format!("{side} had no general at the battle: \"Only the commanding general of the force can make the attempt\" to break off"),
                "break-off-without-general",
                BREAKING,
            ));
            continue;
        };
        let base = break_off_base(m, g);
        if chance(m, base, *points) == 0 {
            problems.push(problem(
                field.clone(),
                format!(
                    "{} has a {base}% base chance and spends {points} army manipulation points ({per} a percent, stand-in): a 0% chance (\"The attempt can be repeated if the general has a non-zero chance of breaking off\"): spend {per} or more",
                    g.name
                ),
                "break-off-no-chance",
                BREAKING,
            ));
        }
        let before: u32 = s.break_off.iter().filter(|a| a.general == g.id).map(|a| a.points).sum();
        let has = manipulation_points(m, g);
        if before.saturating_add(*points) > has {
            problems.push(problem(
                field,
                format!(
                    "{} has {has} army manipulation points and spent {before} on attempts before (\"once used they may not be recovered nor reused\"): 0 to {}",
                    g.name,
                    has.saturating_sub(before)
                ),
                "break-off-points",
                BREAKING,
            ));
        }
    }
}

/// "A force consisting entirely of cavalry may decline to participate in a
/// battle if and when attacked by an enemy force lacking any cavalry."
fn check_declines(m: &Module, s: &State, f: &Forces, d: &Declines, problems: &mut Vec<Problem>) {
    let cavalry = |id: &String| m.unit(id).is_some_and(|u| u.kind == Kind::Cavalry);
    let defenders = &f.units[&f.defender];
    if defenders.is_empty() || !defenders.iter().all(cavalry) {
        let others: Vec<&str> = defenders.iter().filter(|u| !cavalry(u)).map(String::as_str).collect();
        problems.push(problem(
            "cavalry_declines",
            format!("{}'s force at {} is not all cavalry ({}): only \"a force consisting entirely of cavalry may decline to participate in a battle\"", f.defender, f.hex, others.join(", ")),
            "not-all-cavalry",
            DECLINES,
        ));
    }
    let attacking: Vec<&str> = f.units[&f.attacker].iter().filter(|u| cavalry(u)).map(String::as_str).collect();
    if !attacking.is_empty() {
        problems.push(problem(
            "cavalry_declines",
            format!("the attacker has cavalry ({}): cavalry declines battle only \"when attacked by an enemy force lacking any cavalry\"", attacking.join(", ")),
            "attacker-has-cavalry",
            DECLINES,
        ));
    }
    if let Some(why) = retreat_problem(m, s, f.hex, &f.defender, &d.retreat_to) {
        problems.push(problem("cavalry_declines.retreat_to", why, "bad-retreat", DECLINES));
    }
}

fn check_table(m: &Module, s: &State, f: &Forces, sides: &[String; 2], t: &Table, problems: &mut Vec<Problem>) {
    let known = sides.join(", ");
    if !sides.contains(&t.holds_field) {
        problems.push(problem(
            "table.holds_field",
            format!("'{}' is not a side of this battle ({known})", echo(&t.holds_field)),
            "battle-side",
            RECOVERY,
        ));
    }
    for side in t.outcome.keys() {
        if !sides.contains(side) {
            problems.push(problem(
                format!("table.outcome.{}", echo(side)),
                format!("'{}' is not a side of this battle ({known})", echo(side)),
                "battle-side",
                TRANSFER,
            ));
        }
    }
    for side in sides {
        if !t.outcome.contains_key(side) {
            problems.push(problem(
                "table.outcome",
                format!("the outcome of {side} is missing: held, held-at-army-morale, broke or broke-off"),
                "battle-outcome",
                TRANSFER,
            ));
        }
    }
    let outcome = |side: &str| t.outcome.get(side).copied();
    if sides.iter().all(|side| outcome(side).is_some_and(|o| !o.left())) {
        problems.push(problem(
            "table.outcome",
            "neither side broke nor broke off: \"The battle ends whenever all of the formations ... on one side have broken or when one or both sides sccessfully break off\"",
            "battle-not-ended",
            TRANSFER,
        ));
    }
    if outcome(&t.holds_field).is_some_and(Outcome::left)
        && sides.iter().any(|side| side != &t.holds_field && outcome(side).is_some_and(|o| !o.left()))
    {
        problems.push(problem(
            "table.holds_field",
            format!("{} left the table and the other side stayed: the side that stays holds the field", t.holds_field),
            "battle-field",
            RECOVERY,
        ));
    }
    for side in sides {
        let won = s.break_off.iter().find(|a| &a.side == side && a.succeeded);
        let made: Vec<String> = s
            .break_off
            .iter()
            .filter(|a| &a.side == side)
            .map(|a| format!("after pass {}, D100 {} against {}%: failed", a.pass, a.roll, a.chance))
            .collect();
        match (outcome(side), won) {
            (Some(Outcome::BrokeOff), None) if f.generals.get(side).is_some_and(|g| !g.is_empty()) => {
                problems.push(problem(
                    format!("table.outcome.{side}"),
                    format!(
                        "{side} broke off, but no attempt of its succeeded ({}): enter the attempt after its pass first (`break_off: {{pass: N, attempts: {{{side}: POINTS}}}}`), adjutant rolls it",
                        if made.is_empty() { "none was entered".to_string() } else { made.join("; ") }
                    ),
                    "break-off-not-rolled",
                    BREAKING,
                ))
            }
            (Some(o), Some(a)) if o != Outcome::BrokeOff => problems.push(problem(
                format!("table.outcome.{side}"),
                format!(
                    "{side} broke off after pass {} (D100 {} against {}%): \"Forces which successfully break off are said to have withdrawn in good order\": its outcome is broke-off",
                    a.pass, a.roll, a.chance
                ),
                "break-off-succeeded",
                BREAKING,
            )),
            _ => {}
        }
        if outcome(side) == Some(Outcome::BrokeOff) && f.generals.get(side).is_none_or(|g| g.is_empty()) {
            problems.push(problem(
                format!("table.outcome.{side}"),
                format!("{side} had no general at the battle: \"Only the commanding general of the force can make the attempt\" to break off"),
                "break-off-without-general",
                BREAKING,
            ));
        }
    }
    for (id, r) in &t.units {
        let field = format!("table.units.{id}");
        let Some(side) = f.side_of(id) else {
            let fought: Vec<&str> = f.all_units().map(|(_, u)| u).collect();
            problems.push(problem(
                field,
                format!(
                    "'{}' did not fight at {}: the units of this battle are {}",
                    echo(id),
                    f.hex,
                    fought.join(", ")
                ),
                "not-in-battle",
                TRANSFER,
            ));
            continue;
        };
        let stands = s.pieces.get(id).map(|p| p.stands).unwrap_or(0);
        if r.markers > stands {
            problems.push(problem(
                format!("{field}.markers"),
                format!("{id} has {stands} stands: it takes 0 to {stands} casualty markers on the table ({stands}: it is eliminated)"),
                "too-many-markers",
                RECOVERY,
            ));
        }
        let _ = side;
    }
    for (side, id) in f.all_units() {
        if !t.units.contains_key(id) {
            problems.push(problem(
                "table.units",
                format!(
                    "{id} ({side}) fought at {}: give its casualty markers (`{id}: {{markers: 0}}` for none)",
                    f.hex
                ),
                "unit-missing",
                TRANSFER,
            ));
        }
    }
    for (i, g) in t.generals_lost.iter().enumerate() {
        if !f.generals.values().flatten().any(|x| x == g) {
            problems.push(problem(
                format!("table.generals_lost[{i}]"),
                format!("'{}' is not a general at this battle", echo(g)),
                "not-in-battle",
                TRANSFER,
            ));
        }
    }
    let loser = sides.iter().find(|x| **x != t.holds_field).cloned().unwrap_or_default();
    let loser_stays = f.units.get(&loser).into_iter().flatten().any(|id| {
        let stands = s.pieces.get(id).map(|p| p.stands).unwrap_or(0);
        t.units.get(id).is_none_or(|r| r.markers < stands)
    }) || f.generals.get(&loser).into_iter().flatten().any(|g| !t.generals_lost.contains(g))
        || f.supply.get(&loser).map(Vec::len).unwrap_or(0) > t.supply_spent.get(&loser).copied().unwrap_or(0) as usize;
    check_supply_spent(m, s, f, sides, t, problems);
    problems.extend(fortifications::check_bombardment(m, s, f.hex, &t.bombardment, &t.supply_spent));
    match (&t.retreat_to, loser_stays && sides.contains(&t.holds_field)) {
        (Some(h), true) => {
            if let Some(why) = retreat_problem(m, s, f.hex, &loser, h) {
                problems.push(problem("table.retreat_to", why, "bad-retreat", TRANSFER));
            }
        }
        (None, true) => {
            let what = format!("{loser} does not hold the field: name the hex its survivors retreat to");
            if let Some(why) = retreat_missing(m, s, f.hex, &loser, &what) {
                problems.push(problem("table.retreat_to", why, "bad-retreat", TRANSFER));
            }
        }
        (Some(_), false) => problems.push(problem(
            "table.retreat_to",
            format!("{loser} has nothing left at {} to retreat", f.hex),
            "bad-retreat",
            TRANSFER,
        )),
        (None, false) => {}
    }
    if let Some(p) = &t.pursuit {
        let pursuer = &t.holds_field;
        match outcome(pursuer) {
            Some(Outcome::Held) => {}
            Some(o) => problems.push(problem(
                "table.pursuit",
                format!(
                    "{pursuer} {}: \"If the opposing side has not yet reached its army morale level and has not voluntarily broken off, its units can pursue\"",
                    match o {
                        Outcome::HeldAtArmyMorale => "reached its army morale level",
                        Outcome::BrokeOff => "broke off",
                        _ => "broke",
                    }
                ),
                "no-pursuit",
                PURSUIT,
            )),
            None => {}
        }
        if !outcome(&loser).is_some_and(Outcome::left) {
            problems.push(problem(
                "table.pursuit",
                format!("{loser} did not leave the table (it neither broke nor broke off): nobody is pursued"),
                "no-pursuit",
                PURSUIT,
            ));
        }
        let die = m.charts.battle.pursuit.actions_die;
        if p.actions == 0 || p.actions > die {
            problems.push(problem(
                "table.pursuit.actions",
                format!("the pursuing player's D{die} of actions: 1 to {die}"),
                "bad-actions",
                PURSUIT,
            ));
        }
        let mut seen = BTreeSet::new();
        for (i, id) in p.caught.iter().enumerate() {
            let field = format!("table.pursuit.caught[{i}]");
            if f.side_of(id) != Some(loser.as_str()) {
                problems.push(problem(
                    field,
                    format!("'{}' is not a unit of the withdrawing army ({loser}) at this battle", echo(id)),
                    "not-in-battle",
                    PURSUIT,
                ));
                continue;
            }
            if !seen.insert(id) {
                problems.push(problem(field, format!("{id} is named twice"), "twice", PURSUIT));
                continue;
            }
            let stands = s.pieces.get(id).map(|p| p.stands).unwrap_or(0);
            if t.units.get(id).is_some_and(|r| r.markers >= stands) {
                problems.push(problem(
                    field,
                    format!(
                        "{id} was eliminated on the table: \"Eliminated units are not subject to pursuit casualties\""
                    ),
                    "eliminated",
                    PURSUIT,
                ));
            }
        }
    }
}

/// SUPPLY: "A force can resupply its artillery as many times as it has
/// supply units to expend." Forts and magazines cannot resupply.
fn check_supply_spent(m: &Module, s: &State, f: &Forces, sides: &[String; 2], t: &Table, problems: &mut Vec<Problem>) {
    for (side, n) in &t.supply_spent {
        let field = format!("table.supply_spent.{}", echo(side));
        if !sides.contains(side) {
            problems.push(problem(
                field,
                format!("'{}' is not a side of this battle ({})", echo(side), sides.join(", ")),
                "battle-side",
                supply::RULE,
            ));
            continue;
        }
        let have = &f.supply[side];
        if *n as usize > have.len() {
            problems.push(problem(
                field,
                format!(
                    "{side} expends {n} supply unit{}; its force at {} has {}{}: 0 to {} (\"A force can resupply its artillery as many times as it has supply units to expend\"; forts and magazines cannot resupply)",
                    if *n == 1 { "" } else { "s" },
                    f.hex,
                    have.len(),
                    if have.is_empty() { String::new() } else { format!(" ({})", have.join(", ")) },
                    have.len()
                ),
                "supply-spent",
                supply::RULE,
            ));
            continue;
        }
        let inside = |id: &str| {
            s.forts.iter().any(|x| x.side == *side && x.hex == f.hex.to_string() && x.garrison.iter().any(|g| g == id))
        };
        let guns = f.units[side].iter().any(|id| m.unit(id).is_some_and(|u| u.kind == Kind::Artillery) && !inside(id));
        if *n > 0 && !guns {
            problems.push(problem(
                field,
                format!("{side}'s force at {} has no artillery outside a fort to resupply: 0", f.hex),
                "supply-spent",
                supply::RULE,
            ));
        }
    }
}

fn check_trivial(
    m: &Module,
    s: &State,
    f: &Forces,
    sides: &[String; 2],
    own: &[String],
    t: &Trivial,
    problems: &mut Vec<Problem>,
) {
    let known = sides.join(", ");
    for side in t.distribute.keys().chain(t.retreat_to.keys()) {
        let field = format!(
            "trivial.{}.{}",
            if t.distribute.contains_key(side) { "distribute" } else { "retreat_to" },
            echo(side)
        );
        if !sides.contains(side) {
            problems.push(problem(
                field,
                format!("'{}' is not a side of this battle ({known})", echo(side)),
                "battle-side",
                TRIVIAL,
            ));
        } else if !own.contains(side) {
            problems.push(problem(
                field,
                format!(
                    "{side}'s markers and retreat are {side}'s to give, in its own file: \"Each strength point lost represents six casualty markers which must be distributed to the units in the force in any fashion the controlling player sees fit\"; give {}'s only",
                    own.join(", ")
                ),
                "not-own-side",
                TRIVIAL,
            ));
        }
    }
    for side in own {
        let units = &f.units[side];
        match t.distribute.get(side) {
            None => problems.push(problem(
                "trivial.distribute",
                format!(
                    "{side}'s order of distributing its casualty markers is missing: its units are {}",
                    units.join(", ")
                ),
                "distribute-missing",
                TRIVIAL,
            )),
            Some(order) => {
                let mut seen = BTreeSet::new();
                for (i, id) in order.iter().enumerate() {
                    let field = format!("trivial.distribute.{side}[{i}]");
                    if !units.contains(id) {
                        problems.push(problem(
                            field,
                            format!(
                                "'{}' is not {side}'s at this battle: its units are {}",
                                echo(id),
                                units.join(", ")
                            ),
                            "not-in-battle",
                            TRIVIAL,
                        ));
                    } else if !seen.insert(id) {
                        problems.push(problem(field, format!("{id} is named twice"), "twice", TRIVIAL));
                    }
                }
                for id in units.iter().filter(|u| !order.contains(u)) {
                    problems.push(problem(
                        format!("trivial.distribute.{side}"),
                        format!("{id} fought: name each of {side}'s units once, in the order its markers go to them"),
                        "distribute-missing",
                        TRIVIAL,
                    ));
                }
            }
        }
        match t.retreat_to.get(side) {
            None => {
                let what = format!("where {side} retreats should it lose is missing");
                if let Some(why) = retreat_missing(m, s, f.hex, side, &what) {
                    problems.push(problem("trivial.retreat_to", why, "bad-retreat", TRIVIAL));
                }
            }
            Some(h) => {
                if let Some(why) = retreat_problem(m, s, f.hex, side, h) {
                    problems.push(problem(format!("trivial.retreat_to.{side}"), why, "bad-retreat", TRIVIAL));
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Resolving
// ---------------------------------------------------------------------------

/// What a battle left, before post-battle recovery.
struct Fought {
    holds_field: String,
    /// Casualty markers by unit.
    markers: BTreeMap<String, u32>,
    /// Units whose formation broke.
    broke: BTreeSet<String>,
    generals_lost: Vec<String>,
    retreat_to: Option<HexId>,
    /// Supply units expended, by side (the first of each force's, in id
    /// order: they are alike).
    supply_spent: BTreeMap<String, Vec<String>>,
}

/// Resolve the battle at `hex` with its entry (checked): the referee's, or
/// both commanders' joined.
pub fn resolve(
    m: &Module,
    s: &State,
    hex: HexId,
    attacker: &str,
    entry: &Entry,
    dice: &mut dyn Dice,
) -> Result<(State, Vec<Event>)> {
    if let Some(p) = check(m, s, hex, attacker, None, entry).first() {
        return Err(Error::refused(format!("{}: {} [{}, {}]", p.field, p.message, p.code, p.rule)));
    }
    let f = Forces::of(m, s, hex, attacker);
    let mut events = Vec::new();
    if let Some(b) = &entry.break_off {
        return attempt(m, s, &f, b, dice);
    }
    if let Some(d) = &entry.cavalry_declines {
        // "If the all cavalry force declines battle, it must vacate the hex
        // at the next opportunity": at once (docs/rules-readings.md).
        let mut after = s.clone();
        let ids: Vec<&String> = f.units[&f.defender]
            .iter()
            .chain(f.generals[&f.defender].iter())
            .chain(f.supply[&f.defender].iter())
            .collect();
        for id in &ids {
            if let Some(p) = after.pieces.get_mut(*id) {
                p.hex = Some(d.retreat_to.clone());
            }
        }
        events.push(
            Event::new(
                DECLINES,
                "cavalry-declines",
                format!(
                    "{}'s cavalry at {} declines battle against a force lacking any cavalry and leaves for {}",
                    f.defender, f.hex, d.retreat_to
                ),
            )
            .with("hex", f.hex.to_string())
            .with("side", &f.defender)
            .with("units", &ids)
            .with("to", &d.retreat_to),
        );
        return Ok((after, events));
    }
    let fought = match (&entry.table, &entry.trivial) {
        (Some(t), _) => table(m, s, &f, t, entry.by_commanders, dice, &mut events)?,
        (_, Some(t)) => trivial(m, s, &f, t, dice, &mut events)?,
        _ => return Err(Error::refused("a battle's entry gives `table:` or `trivial:`")),
    };
    let mut after = s.clone();
    events.extend(recover(m, s, &mut after, &f, &fought));
    Ok((after, events))
}

/// The attempts to break off after a pass (checked), both sides' together
/// ("reveal them simultaneously before either attempt is resolved"): a
/// D100 each, in side order, against the general's chance; the roll the
/// chance or less succeeds. The battle stays awaiting the referee: its
/// result after a success, the table fighting on after failures.
fn attempt(m: &Module, s: &State, f: &Forces, b: &BreakOff, dice: &mut dyn Dice) -> Result<(State, Vec<Event>)> {
    let per = m.charts.command.break_off_points_per_percent.value;
    let mut after = s.clone();
    let mut events = Vec::new();
    for (side, points) in &b.attempts {
        let g = commanding_general(m, s, f.hex, side)
            .ok_or_else(|| Error::refused(format!("{side} has no general at {}", f.hex)))?;
        let base = break_off_base(m, g);
        let c = chance(m, base, *points);
        let roll = u32::from(dice.roll(Die::D100, &format!("break off, {side} ({}) after pass {}", g.id, b.pass))?);
        let succeeded = roll <= c;
        events.push(
            Event::new(
                BREAKING,
                "break-off",
                format!(
                    "{side}: {} attempts to break off after pass {} through the action deck: base {base}% + {points} army manipulation points ({} at {per} a percent) = {c}%; D100 {roll}: {}",
                    g.name,
                    b.pass,
                    points / per.max(1),
                    if succeeded { "it succeeds, the force withdraws in good order" } else { "it fails, the battle continues for at least one more pass" }
                ),
            )
            .with("hex", f.hex.to_string())
            .with("side", side)
            .with("general", &g.id)
            .with("pass", b.pass)
            .with("base_percent", base)
            .with("points", *points)
            .with("chance", c)
            .with("roll", roll)
            .with("succeeded", succeeded),
        );
        after.break_off.push(Attempt {
            side: side.clone(),
            general: g.id.clone(),
            pass: b.pass,
            points: *points,
            chance: c,
            roll,
            succeeded,
        });
    }
    let won: Vec<&str> = after.break_off.iter().filter(|a| a.succeeded).map(|a| a.side.as_str()).collect();
    events.push(
        Event::new(
            BREAKING,
            "break-off-result",
            if won.is_empty() {
                format!("Battle at {}: the battle continues after pass {}; its result is entered when it ends, or the next attempts after a later pass", f.hex, b.pass)
            } else {
                format!(
                    "Battle at {}: {} broke off after pass {}: the battle immediately ends and both sides undergo post-battle recovery; its result is entered next ({})",
                    f.hex,
                    won.join(" and "),
                    b.pass,
                    won.iter().map(|x| format!("{x}: broke-off")).collect::<Vec<_>>().join(", ")
                )
            },
        )
        .with("hex", f.hex.to_string())
        .with("pass", b.pass)
        .with("broke_off", &won),
    );
    Ok((after, events))
}

fn table(
    m: &Module,
    s: &State,
    f: &Forces,
    t: &Table,
    by_commanders: bool,
    dice: &mut dyn Dice,
    events: &mut Vec<Event>,
) -> Result<Fought> {
    let mut markers: BTreeMap<String, u32> = t.units.iter().map(|(id, r)| (id.clone(), r.markers)).collect();
    let mut broke: BTreeSet<String> = t.units.iter().filter(|(_, r)| r.broke).map(|(id, _)| id.clone()).collect();
    for (side, o) in &t.outcome {
        if *o == Outcome::Broke {
            broke.extend(f.units.get(side).into_iter().flatten().cloned());
        }
    }
    let words = |o: Outcome| match o {
        Outcome::Held => "held",
        Outcome::HeldAtArmyMorale => "held at its army morale level",
        Outcome::Broke => "broke",
        Outcome::BrokeOff => "broke off (withdrew in good order)",
    };
    events.push(
        Event::new(
            TRANSFER,
            "battle-result",
            format!(
                "Battle at {}: {} the table's result. {}; {} holds the field",
                f.hex,
                if by_commanders { "both commanders enter" } else { "the referee enters" },
                t.outcome.iter().map(|(side, o)| format!("{side} {}", words(*o))).collect::<Vec<_>>().join(", "),
                t.holds_field
            ),
        )
        .with("hex", f.hex.to_string())
        .with("holds_field", &t.holds_field)
        .with("markers", &markers)
        .with("broke", &broke)
        .with("generals_lost", &t.generals_lost)
        .with("supply_spent", &t.supply_spent),
    );
    if let Some(p) = &t.pursuit {
        let chart = &m.charts.battle.pursuit;
        let cmds = commands(m, s);
        let penalty = m.charts.command.out_of_command_battle_penalty_percent.value;
        for id in &p.caught {
            let Some(u) = m.unit(id) else { continue };
            let grade = m.morale_percent(&u.morale);
            let out = cmds.of_unit.get(id).is_some_and(|g| g.is_none());
            let target = if out { grade.saturating_sub(penalty) } else { grade };
            let roll = dice.roll(Die::D100, &format!("pursuit morale check, {id}"))?;
            let passed = u32::from(roll) <= target;
            let casualties = chart.caught_casualties + if passed { 0 } else { chart.failed_check_casualties };
            *markers.entry(id.clone()).or_default() += casualties;
            events.push(
                Event::new(
                    PURSUIT,
                    "pursuit",
                    format!(
                        "{} is caught by the pursuit ({} actions): a penalty casualty; its morale check, D100 {roll} against {target}%{}, {}",
                        u.name,
                        p.actions,
                        if out { format!(" (morale {grade}% -{penalty}% out of command)") } else { String::new() },
                        if passed { "passes".to_string() } else { "fails: a second penalty casualty".to_string() }
                    ),
                )
                .with("unit", id)
                .with("actions", p.actions)
                .with("roll", roll)
                .with("target", target)
                .with("passed", passed)
                .with("casualties", casualties)
                .with("markers", markers[id]),
            );
        }
    }
    Ok(Fought {
        holds_field: t.holds_field.clone(),
        markers,
        broke,
        generals_lost: t.generals_lost.clone(),
        retreat_to: t.retreat_to.as_deref().and_then(|h| h.parse().ok()),
        supply_spent: t
            .supply_spent
            .iter()
            .map(|(side, n)| (side.clone(), f.supply[side].iter().take(*n as usize).cloned().collect()))
            .collect(),
    })
}

/// Strength in fighting stands still without a marker.
/// "Proceed with the 1776 combat resolution" (TRIVIAL COMBATS): how a
/// side's stands count for the odds of 1776's table, in quarters of a
/// stand each, and the halvings that made it less than four
/// (charts/battle.yaml `trivial_combat.strength`; none when the chart
/// gives none). 1776's militia "fight at half strength against regulars
/// unless friendly regulars are with them", and troops "with a supply unit,
/// or in a magazine, fight at full strength, otherwise at half". Read at the
/// battle's start, from the units with fighting stands then
/// (docs/rules-readings.md): a side with a regular has no militia to
/// halve, and one with none has only militia, so each halving falls on a
/// side's every stand alike and the odds need not know whose stands the
/// markers took.
pub fn quarters_per_stand(
    m: &Module,
    own: &[&crate::systems::awi::data::Unit],
    enemy: &[&crate::systems::awi::data::Unit],
    supplied: bool,
) -> (u64, Vec<&'static str>) {
    use crate::systems::awi::data::Halving;
    let halved = m.charts.battle.trivial_combat.strength.as_ref().map(|x| x.halved.as_slice()).unwrap_or_default();
    let regular = |u: &&crate::systems::awi::data::Unit| u.class != Class::Militia && !u.is_supply();
    let (mut quarters, mut why) = (4, Vec::new());
    if halved.contains(&Halving::MilitiaAgainstRegulars)
        && own.iter().any(|u| u.class == Class::Militia)
        && !own.iter().any(regular)
        && enemy.iter().any(regular)
    {
        quarters /= 2;
        why.push("militia against regulars, with no regulars of their own");
    }
    if halved.contains(&Halving::WithoutSupply) && !supplied {
        quarters /= 2;
        why.push("without a supply unit or a magazine");
    }
    (quarters, why)
}

/// Whether `side` fights a trivial combat at `hexes` "with a supply unit,
/// or in a magazine": a supply unit of its in one of them, or a magazine
/// in a town there that it controls.
pub fn supplied_at(m: &Module, s: &State, side: &str, hexes: &BTreeSet<HexId>) -> bool {
    let supply_unit =
        hexes.iter().flat_map(|h| s.at(*h)).any(|id| m.unit(id).is_some_and(|u| u.is_supply() && u.side == side));
    let magazine = s.magazines.iter().any(|town| {
        s.control.get(town).map(String::as_str) == Some(side)
            && m.town(town).and_then(|t| t.hex.parse::<HexId>().ok()).is_some_and(|h| hexes.contains(&h))
    });
    supply_unit || magazine
}

/// A strength in quarters of a stand, as the events write it: `6`, `6.5`.
pub fn stands_text(quarters: u64) -> String {
    match quarters % 4 {
        0 => format!("{}", quarters / 4),
        1 => format!("{}.25", quarters / 4),
        2 => format!("{}.5", quarters / 4),
        _ => format!("{}.75", quarters / 4),
    }
}

fn strength(s: &State, units: &[String], markers: &BTreeMap<String, u32>) -> u64 {
    units.iter().map(|id| u64::from(s.pieces.get(id).map(|p| p.stands).unwrap_or(0).saturating_sub(markers[id]))).sum()
}

/// TRIVIAL COMBATS: "Determine the army morale for each side. Proceed with
/// the 1776 combat resolution and determine the strength point loses for
/// each side. Each strength point lost represents six casualty markers
/// which must be distributed to the units in the force in any fashion the
/// controlling player sees fit. Repeat the 1776 combat resolution procedure
/// until one or both sides break. A side breaks when its cumulative total
/// of casualty markers reaches its army morale. Markers in excess of this
/// level are not distributed. ... Neither side may break off."
fn trivial(
    m: &Module,
    s: &State,
    f: &Forces,
    t: &Trivial,
    dice: &mut dyn Dice,
    events: &mut Vec<Event>,
) -> Result<Fought> {
    let chart = &m.charts.battle.trivial_combat;
    let per_sp = m.charts.communications.stands_per_strength_point.value;
    let mut markers: BTreeMap<String, u32> = f.all_units().map(|(_, id)| (id.to_string(), 0)).collect();
    let sides = [f.attacker.clone(), f.defender.clone()];
    let morale: BTreeMap<String, u32> = sides
        .iter()
        .map(|side| {
            let stands = strength(s, &f.units[side], &markers) as u32;
            (side.clone(), (stands * chart.army_morale_percent.value / 100).max(1))
        })
        .collect();
    let mut total: BTreeMap<String, u32> = sides.iter().map(|x| (x.clone(), 0)).collect();
    // 1776's halvings, by side, from the forces at the battle's start.
    let fighting = |side: &str| -> Vec<&crate::systems::awi::data::Unit> {
        f.units[side]
            .iter()
            .filter(|id| s.pieces.get(*id).is_some_and(|p| p.stands > 0))
            .filter_map(|id| m.unit(id))
            .collect()
    };
    let hexes = BTreeSet::from([f.hex]);
    let mut quarters: BTreeMap<String, u64> = BTreeMap::new();
    let mut halved: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for (side, enemy) in [(&f.attacker, &f.defender), (&f.defender, &f.attacker)] {
        let (q, why) = quarters_per_stand(m, &fighting(side), &fighting(enemy), supplied_at(m, s, side, &hexes));
        quarters.insert(side.clone(), q);
        if !why.is_empty() {
            halved.insert(side.clone(), why);
        }
    }
    let halvings: Vec<String> =
        halved.iter().map(|(side, why)| format!("{side} at half ({})", why.join("; "))).collect();
    events.push(
        Event::new(
            TRIVIAL,
            "trivial-combat",
            format!(
                "Battle at {}, both players agreeing, resolved by 1776's combat table: army morale {} {} markers, {} {} markers{}",
                f.hex,
                f.attacker,
                morale[&f.attacker],
                f.defender,
                morale[&f.defender],
                if halvings.is_empty() { String::new() } else { format!("; 1776's strength: {}", halvings.join(", ")) }
            ),
        )
        .with("hex", f.hex.to_string())
        .with("army_morale", &morale)
        .with("halved", &halved),
    );
    let mut round = 0u32;
    // Every result costs a side a strength point (check-game), so each
    // round brings a side nearer its army morale: the loop ends.
    while sides.iter().all(|x| total[x] < morale[x]) {
        round += 1;
        let (a_stands, d_stands) =
            (strength(s, &f.units[&f.attacker], &markers), strength(s, &f.units[&f.defender], &markers));
        let a = a_stands * quarters[&f.attacker];
        let d_fought = d_stands * quarters[&f.defender];
        let d = d_fought.max(1);
        let as_fought = |stands: u64, side: &String| {
            if quarters[side] == 4 {
                format!("{stands} stands")
            } else {
                format!("{stands} stands (fighting as {})", stands_text(stands * quarters[side]))
            }
        };
        let column = chart
            .columns
            .iter()
            .rev()
            .find(|c| a * u64::from(c.defender) >= d * u64::from(c.attacker))
            .or(chart.columns.first())
            .ok_or_else(|| Error::refused("charts/battle.yaml has no combat table"))?;
        let roll = dice.roll(Die::D6, &format!("trivial combat at {}, round {round}", f.hex))?;
        let result = column
            .results
            .get(usize::from(roll).saturating_sub(1))
            .ok_or_else(|| Error::refused("charts/battle.yaml: a column without six results"))?;
        let mut given = BTreeMap::new();
        for (side, sp) in [(&f.attacker, result.attacker), (&f.defender, result.defender)] {
            let room = morale[side] - total[side];
            let n = (sp * per_sp).min(room);
            *total.get_mut(side).unwrap_or(&mut 0) += n;
            let placed = distribute(s, &t.distribute[side], &mut markers, n);
            given.insert(side.clone(), placed);
        }
        events.push(
            Event::new(
                TRIVIAL,
                "trivial-round",
                format!(
                    "Round {round}: {} against {}, column {}, D6 {roll}: {} loses {} SP, {} loses {} SP; markers so far {} {} of {}, {} {} of {}",
                    as_fought(a_stands, &f.attacker),
                    as_fought(d_stands, &f.defender),
                    column.odds,
                    f.attacker,
                    result.attacker,
                    f.defender,
                    result.defender,
                    f.attacker,
                    total[&f.attacker],
                    morale[&f.attacker],
                    f.defender,
                    total[&f.defender],
                    morale[&f.defender]
                ),
            )
            .with("round", round)
            .with("strength", BTreeMap::from([(&f.attacker, stands_text(a)), (&f.defender, stands_text(d_fought))]))
            .with("column", &column.odds)
            .with("roll", roll)
            .with("attacker_sp", result.attacker)
            .with("defender_sp", result.defender)
            .with("placed", &given)
            .with("totals", &total),
        );
    }
    let broken: Vec<&String> = sides.iter().filter(|x| total[*x] >= morale[*x]).collect();
    // Both broke in the same round: the defender keeps the field (a
    // reading, docs/rules-readings.md).
    let holds_field =
        if broken.len() == 1 && broken[0] == &f.defender { f.attacker.clone() } else { f.defender.clone() };
    let loser = if holds_field == f.attacker { &f.defender } else { &f.attacker };
    let broke: BTreeSet<String> = broken.iter().flat_map(|side| f.units[*side].iter().cloned()).collect();
    events.push(
        Event::new(
            TRIVIAL,
            "battle-result",
            format!(
                "Battle at {}: {} broke; {} holds the field",
                f.hex,
                broken.iter().map(|x| x.as_str()).collect::<Vec<_>>().join(" and "),
                holds_field
            ),
        )
        .with("hex", f.hex.to_string())
        .with("holds_field", &holds_field)
        .with("markers", &markers)
        .with("broke", &broke)
        .with("rounds", round),
    );
    Ok(Fought {
        holds_field,
        markers,
        broke,
        generals_lost: Vec::new(),
        retreat_to: t.retreat_to.get(loser).and_then(|h| h.parse().ok()),
        supply_spent: BTreeMap::new(),
    })
}

/// `n` markers to the units in `order`, one at a time in turn, never more
/// on a unit than its stands: the markers placed.
fn distribute(s: &State, order: &[String], markers: &mut BTreeMap<String, u32>, n: u32) -> u32 {
    let mut placed = 0;
    while placed < n {
        let mut any = false;
        for id in order {
            if placed == n {
                break;
            }
            let stands = s.pieces.get(id).map(|p| p.stands).unwrap_or(0);
            let m = markers.entry(id.clone()).or_default();
            if *m < stands {
                *m += 1;
                placed += 1;
                any = true;
            }
        }
        if !any {
            break;
        }
    }
    placed
}

/// POST BATTLE RECOVERY, the out-of-communication effects, the markers
/// turned into stands lost, the generals lost, and the loser's retreat.
fn recover(m: &Module, s: &State, after: &mut State, f: &Forces, fought: &Fought) -> Vec<Event> {
    let chart = &m.charts.battle.recovery;
    let isolated = out_of_communication(m, s, f);
    let british_lost = fought.holds_field != BRITISH;
    let mut events = Vec::new();
    let loser = if fought.holds_field == f.attacker { f.defender.clone() } else { f.attacker.clone() };
    // A stand-in ruling (the article and 1776's texts are silent): the
    // side that leaves the field with no hex to retreat to (every hex next
    // to the battle off the map, a sea lane or held by the enemy; the
    // entry's check lets it name none only then) is captured whole: its
    // surviving units are eliminated for good, its generals lost, its
    // supply units taken. Left on the field, it would fight again at once.
    let captured = fought.retreat_to.is_none();
    let no_way = || format!("{loser} has no hex to retreat to from {}", f.hex);
    let mut taken_all: Vec<String> = Vec::new();
    // The pieces that leave the field with the loser, for the retreat's event.
    let mut retreated: Vec<String> = Vec::new();
    for (side, id) in f.all_units() {
        let Some(u) = m.unit(id) else { continue };
        let stands = s.pieces.get(id).map(|p| p.stands).unwrap_or(0);
        let mut markers = fought.markers.get(id).copied().unwrap_or(0);
        let survived = markers < stands;
        let broke = fought.broke.contains(id);
        let mut why = Vec::new();
        let removed = if !survived {
            why.push("eliminated in the battle".to_string());
            0
        } else if isolated.contains(id) {
            why.push("a British regular out of communication: no recovery".to_string());
            if british_lost {
                markers += chart.out_of_communication_penalty;
                why.push(format!(
                    "the British lost while it was out of communication: {} penalty casualty",
                    chart.out_of_communication_penalty
                ));
            }
            0
        } else if broke {
            why.push("its formation broke: no recovery".to_string());
            0
        } else {
            let mut r = chart.not_broken;
            why.push(format!("its formation did not break: {}", chart.not_broken));
            if side == fought.holds_field {
                r += chart.holds_field;
                why.push(format!("its side holds the field: {} more", chart.holds_field));
            }
            r.min(chart.most).min(markers)
        };
        let left = markers - removed;
        let taken = captured && side == loser && left < stands;
        if taken {
            why.push(format!("captured: {}", no_way()));
            taken_all.push(id.to_string());
        }
        let eliminated = left >= stands || taken;
        let p = after.pieces.entry(id.to_string()).or_default();
        if eliminated {
            p.stands = 0;
            p.hex = None;
            p.eliminated = true;
        } else {
            p.stands = stands - left;
            if side == loser {
                if let Some(h) = fought.retreat_to {
                    p.hex = Some(h.to_string());
                    retreated.push(id.to_string());
                }
            }
        }
        let text = if eliminated {
            format!(
                "{}: {markers} casualty markers, {removed} removed ({}); eliminated from the campaign for good",
                u.name,
                why.join("; ")
            )
        } else {
            format!(
                "{}: {markers} casualty markers, {removed} removed ({}); {left} stands lost, {} left",
                u.name,
                why.join("; "),
                stands - left
            )
        };
        let rule = if isolated.contains(id) { EFFECTS } else { RECOVERY };
        events.push(
            Event::new(rule, "recovery", text)
                .with("unit", id)
                .with("markers", markers)
                .with("removed", removed)
                .with("stands_lost", left.min(stands))
                .with("stands", if eliminated { 0 } else { stands - left })
                .with("eliminated", eliminated)
                .with("captured", taken),
        );
    }
    for g in f.generals.values().flatten() {
        let p = after.pieces.entry(g.clone()).or_default();
        let taken = captured && m.general(g).is_some_and(|x| x.side == loser) && !fought.generals_lost.contains(g);
        if taken {
            taken_all.push(g.clone());
        }
        if fought.generals_lost.contains(g) || taken {
            p.hex = None;
            events.push(
                Event::new(
                    TRANSFER,
                    "general-lost",
                    format!(
                        "{} is lost at the battle of {}{}",
                        m.piece(g).map(|x| x.name().to_string()).unwrap_or_default(),
                        f.hex,
                        if taken { format!(": captured, {}", no_way()) } else { String::new() }
                    ),
                )
                .with("general", g),
            );
        } else if m.general(g).is_some_and(|x| x.side == loser) {
            if let Some(h) = fought.retreat_to {
                p.hex = Some(h.to_string());
                retreated.push(g.clone());
            }
        }
    }
    for (side, ids) in &f.supply {
        let spent = fought.supply_spent.get(side).cloned().unwrap_or_default();
        for id in ids {
            let p = after.pieces.entry(id.clone()).or_default();
            if spent.contains(id) {
                p.hex = None;
                p.eliminated = true;
            } else if *side == loser && captured {
                p.hex = None;
                p.eliminated = true;
                taken_all.push(id.clone());
            } else if *side == loser {
                if let Some(h) = fought.retreat_to {
                    p.hex = Some(h.to_string());
                    retreated.push(id.clone());
                }
            }
        }
        if spent.is_empty() {
            continue;
        }
        let left: Vec<&String> = ids.iter().filter(|id| !spent.contains(id)).collect();
        events.push(
            Event::new(
                supply::RULE,
                "supply-spent",
                format!(
                    "{side} expended {} supply unit{} at the battle of {} to resupply its artillery ({}; the battle sheet's resupply rolls 1 to {}): eliminated; {} left{}",
                    spent.len(),
                    if spent.len() == 1 { "" } else { "s" },
                    f.hex,
                    spent.join(", "),
                    spent.len(),
                    left.len(),
                    if left.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", left.iter().map(|x| x.as_str()).collect::<Vec<_>>().join(", "))
                    }
                ),
            )
            .with("hex", f.hex.to_string())
            .with("side", side)
            .with("units", &spent)
            .with("left", &left),
        );
    }
    if !taken_all.is_empty() {
        events.push(
            Event::new(
                TRANSFER,
                "surrendered",
                format!(
                    "{} surrenders at {} ({}): {} (stand-in ruling: a beaten force with no line of retreat is captured)",
                    loser,
                    f.hex,
                    taken_all.join(", "),
                    no_way()
                ),
            )
            .with("side", &loser)
            .with("hex", f.hex.to_string())
            .with("pieces", &taken_all),
        );
    }
    if let Some(h) = fought.retreat_to {
        events.push(
            Event::new(TRANSFER, "retreat", format!("{loser} leaves the field of {} for {h}", f.hex))
                .with("side", &loser)
                .with("from", f.hex.to_string())
                .with("to", h.to_string())
                .with("pieces", &retreated),
        );
    }
    events
}
