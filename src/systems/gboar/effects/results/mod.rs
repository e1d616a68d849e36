//! Applying combat results (series 13.1) with their retreats (13.2,
//! [`crate::systems::gboar::effects::retreat`]), morale checks (13.5, 16.24), captures (12.64,
//! 12.65), leader casualties (Savannah 4.18), and the end of a Close Combat
//! Phase (13.3, 13.4): the back end shared by fire and close combat, which
//! read the result codes from their charts and call [`apply`] (one side of
//! one combat) or [`apply_close_combat`] (both halves of a close combat
//! cell, the Defender first).
//!
//! # Result codes
//!
//! A side's result is a list of ids of `charts/codes.yaml`
//! `combat_results`; an id the module does not list, or one the engine
//! does not know, is refused, as is a list with two main results. The
//! engine knows `no-effect` ("-"), `army-morale` ("AM"), `retreat` ("R"),
//! `disrupt` ("D"), `step-loss` ("1"), `two-step-loss` ("2"),
//! `captured-dc` ("DC"), `captured-ac` ("AC"), `pin` ("PIN") and
//! `leader-casualty` ("*"). A side's codes apply in this order: "*", then
//! "AM", then the main result, then 13.25's previously retreated units.
//! Whether "*" applies at all (the modified roll equal to the row, 13.1) is
//! the caller's to decide: the codes given here all apply.
//!
//! # Who is affected (13)
//!
//! [`Side::affected`] is the lead unit in close combat, the target in fire
//! combat. In close combat [`Side::others`] are the side's other units in
//! the combat and [`Side::artillery`] the Defender's artillery (the
//! Attacker's is never affected: giving it is refused);
//! [`Side::previously_retreated`] are 13.25's units. In fire combat the
//! other units in the hex are never affected (giving any is refused), but
//! leaders may be ("*").
//!
//! - "AM": the Army Morale Adjustment Chart's `result-army-morale` to the
//!   affected unit's army (its `opponent` value to the enemy's).
//! - "R": the affected unit retreats one hex; the others and the
//!   Defender's artillery check morale (13.5) and retreat one hex if they
//!   fail.
//! - "D": the affected unit retreats three hexes (13.24) and is then
//!   disrupted (`unit-disrupted`), or shattered if it was disrupted
//!   (`unit-shattered`, and the VP schedule's `unit-shattered` to the enemy),
//!   or eliminated without retreating if it was shattered (its steps lost,
//!   [`crate::systems::gboar::effects::losses::lose_steps`]). A unit captured on its retreat is not
//!   disrupted. The others check; a failure retreats one hex.
//! - "1": the affected unit loses a step and never retreats; the others check.
//! - "2": the affected unit loses all its steps; if it had one step left, a
//!   second unit of the side in its hex loses one (ignored if there is none,
//!   and always in fire combat, where no other unit is affected); the
//!   others check.
//! - "DC", "AC": one combat unit of the side (the affected unit, the others,
//!   the Defender's artillery) is captured, chosen by the Defender ("DC")
//!   or the Attacker ("AC") whichever side is affected; every other unit of
//!   the side checks morale: a pass retreats one hex, a failure suffers
//!   "D". In fire combat the target is the one unit.
//! - "PIN": every disrupted or shattered combat unit in the hexes of the
//!   combat is captured, the Defender's first ([`apply_close_combat`]),
//!   then every unit in those hexes, either side's, leaders too, is marked
//!   `pinned` with the combat's id as its `pin_result` (9.3, 12.22).
//! - "*": one leader of the side in the affected hexes (close combat: the
//!   hexes of the side's units in the combat; fire: the target's hex) is
//!   removed to the eliminated box, with the Leader Casualty Table's army
//!   morale (its army), VPs (to the enemy) and momentum (Savannah 4.18:
//!   chits surrendered as for 12.64). No leader: ignored.
//! - 13.25: after any result but "-" (and "PIN", which keeps every unit
//!   engaged), each previously retreated unit checks: a pass retreats one
//!   hex, a failure suffers "D".
//!
//! Every one-hex retreat for a result applies `unit-retreated` (16.1).
//! Units check and retreat in the order given (the others, the artillery,
//! 13.25's units); a unit no longer on the map when its turn comes is
//! passed over.
//!
//! # Choices and defaults
//!
//! [`Choices`] go with one side's result, whoever makes them; each absent
//! choice takes a default the events name:
//!
//! - `captured` (DC, AC), the choice of the player the code names: by
//!   default, when that player owns the units, the lowest morale showing,
//!   then the fewest steps left, then the lowest id; when the enemy
//!   chooses, the highest morale showing, then the most steps left, then
//!   the lowest id.
//! - `second_step` ("2"), the owner's: by default the most steps left
//!   (reduced rather than eliminated), then the lowest morale showing, then
//!   the lowest id.
//! - `leader` ("*"), the owner's: by default the leader whose casualty
//!   scores the fewest VPs on the Leader Casualty Table, then the lowest
//!   rank, then the lowest id.
//! - `retreats`: each unit's [`RetreatChoice`] (path, 13.23's step loss,
//!   leaders); the defaults are [`crate::systems::gboar::effects::retreat`]'s.
//!
//! # Morale checks (13.5, 16.24)
//!
//! A d10 (charts/morale-check.yaml `die`) plus the unit's modified morale
//! ([`crate::systems::gboar::board::units::modified_morale`]: printed morale on the side showing,
//! Savannah 4.10's sortie, and the army morale level's modifier, read from
//! the army morale **at the start of the combat**, 16.24, which the caller
//! gives in [`Combat::morale_at_start`]) plus the chart's modifiers that
//! apply to `morale-check`: `leadership` (14.23: the leader in command in
//! the unit's hex), `fieldworks-defence` (a Defender in close combat
//! attacked solely across fieldwork hexsides that protect its hex; no
//! breach is recorded yet, so every fieldwork is unbreached) and a
//! triggered check's own modifier (an id of `triggered_checks`, e.g.
//! Savannah 4.19's `city-hex-destroyed`, which applies to that check only).
//! A modifier id the engine does not know is refused. The check passes on
//! the chart's `pass_at_least` or more.
//!
//! # Captures (12.64, 12.65)
//!
//! Every capture ([`capture`]) goes through [`crate::systems::gboar::effects::losses::capture`]
//! (army morale and VPs) after 12.64: a unit at full strength whose
//! printed (full-strength) morale is module.yaml `momentum.lose[]
//! .printed_morale` costs its player a Momentum Chit back to the pool; a
//! player holding none lets the enemy take one from the pool; with the
//! pool empty (12.65) the player would return one instead, and holds none:
//! no further effect.
//!
//! # The end of a Close Combat Phase (13.3, 13.4)
//!
//! [`end_of_close_combat_phase`] looks at the units where they stand when
//! the phase ends: every shattered unit, either side's, next to an enemy
//! combat unit and not stacked with a friendly Parade Order combat unit is
//! captured (13.4: "ANY Close Combat phase"); then every disrupted unit of
//! the phasing player ("their own Close Combat phase") in the same case
//! suffers "D": shattered, retreating three hexes or captured (13.3).
//! Shattered so, it too ends the phase where the retreat took it: a
//! retreat of three hexes ends next to the enemy when every hex three
//! hexes away is (13.24), and there, stacked with no friendly Parade Order
//! combat unit, 13.4 captures it ("if they end ANY Close Combat phase
//! adjacent to enemy units"; 13.3's "(i.e. they must retreat 3 hexes or be
//! captured)" says what the "D" does, not that 13.4 passes it by; a unit
//! shattered by a "D" in a combat of the phase is held to 13.4 the same
//! way). Captures are credited
//! to the army of the lowest-id enemy unit next to the unit; retreats take
//! the defaults, and Savannah 4.9 does not apply (not a close combat result).

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use crate::base::error::{Error, Result};
use crate::base::hex::{neighbours, HexId};
use crate::system::{Dice, Event};
use crate::systems::gboar::board::refusals::{self, Code};
use crate::systems::gboar::board::state::{Condition, OffMap, State};
use crate::systems::gboar::board::units::{hex_of, side_of_army};
use crate::systems::gboar::board::Rules;
use crate::systems::gboar::data::counters::Counter;
use crate::systems::gboar::effects::losses::{self, Cause};
use crate::systems::gboar::effects::morale;
use crate::systems::gboar::effects::retreat::{self, Data, Distance, Outcome, RetreatChoice};

/// The combat results the engine knows (13.1), by their codes.yaml ids.
pub const NO_EFFECT: &str = "no-effect";
pub const ARMY_MORALE: &str = "army-morale";
pub const RETREAT: &str = "retreat";
pub const DISRUPT: &str = "disrupt";
pub const STEP_LOSS: &str = "step-loss";
pub const TWO_STEP_LOSS: &str = "two-step-loss";
pub const CAPTURED_DC: &str = "captured-dc";
pub const CAPTURED_AC: &str = "captured-ac";
pub const PIN: &str = "pin";
pub const LEADER_CASUALTY: &str = "leader-casualty";

/// Army Morale Adjustment Chart entries (charts/army-morale.yaml).
const AM_ENTRY: &str = "result-army-morale";
const DISRUPTED_ENTRY: &str = "unit-disrupted";
const SHATTERED_ENTRY: &str = "unit-shattered";

/// Fire or close combat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CombatKind {
    Fire,
    Close,
}

/// Attacker or Defender (12.11). In fire combat, the target's side is the
/// one whose result is applied; either role will do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Attacker,
    Defender,
}

impl Role {
    fn word(self) -> &'static str {
        match self {
            Role::Attacker => "attacker",
            Role::Defender => "defender",
        }
    }
}

/// One side of a combat: the units a result may affect.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Side {
    /// The lead unit (close combat), the target (fire combat), or for the
    /// firing side of a fire combat the firing unit (whose army is credited).
    pub affected: String,
    /// The side's other units in the close combat.
    pub others: Vec<String>,
    /// The Defender's artillery in the close combat (never the Attacker's).
    pub artillery: Vec<String>,
    /// 13.25: units that retreated into a defending hex from an earlier close combat.
    pub previously_retreated: Vec<String>,
}

impl Side {
    fn all(&self) -> impl Iterator<Item = &String> {
        std::iter::once(&self.affected)
            .chain(self.others.iter())
            .chain(self.artillery.iter())
            .chain(self.previously_retreated.iter())
    }
}

/// One combat whose results are applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Combat {
    /// The combat's id: the `pin_result` of the units a PIN pins (9.3).
    pub id: String,
    pub kind: CombatKind,
    pub attacker: Side,
    pub defender: Side,
    /// 16.24: each army's morale at the start of the combat, which its
    /// morale checks use.
    pub morale_at_start: BTreeMap<String, i32>,
}

/// The choices that go with one side's result (module documentation).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Choices {
    /// DC, AC: the unit captured.
    #[serde(default)]
    pub captured: Option<String>,
    /// "2": the unit that loses the second step.
    #[serde(default)]
    pub second_step: Option<String>,
    /// "*": the leader who falls.
    #[serde(default)]
    pub leader: Option<String>,
    /// Each retreating unit's choice.
    #[serde(default)]
    pub retreats: BTreeMap<String, RetreatChoice>,
}

/// The main result of a side's codes (at most one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Main {
    Retreat,
    Disrupt,
    StepLoss,
    TwoStepLoss,
    CapturedDc,
    CapturedAc,
    Pin,
}

/// One side's codes, read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Codes {
    main: Option<Main>,
    army_morale: bool,
    leader_casualty: bool,
    symbols: Vec<String>,
}

impl Codes {
    fn any_result(&self) -> bool {
        self.main.is_some() || self.army_morale || self.leader_casualty
    }
}

/// 13.1: read one side's result codes, refusing an unknown one.
fn read_codes(rules: &Rules, codes: &[String]) -> Result<Codes> {
    let listed = &rules.charts.codes.combat_results;
    if codes.is_empty() {
        return Err(Error::refused("13.1: an empty result; the charts write [no-effect] for none"));
    }
    let mut read = Codes::default();
    for code in codes {
        let Some(entry) = listed.iter().find(|r| &r.id == code) else {
            let ids: Vec<&str> = listed.iter().map(|r| r.id.as_str()).collect();
            return Err(Error::refused(format!(
                "13.1: '{code}' is not a result code of charts/codes.yaml; its codes are: {}",
                ids.join(", ")
            )));
        };
        read.symbols.push(entry.symbol.clone());
        let main = match code.as_str() {
            NO_EFFECT => None,
            ARMY_MORALE => {
                read.army_morale = true;
                None
            }
            LEADER_CASUALTY => {
                read.leader_casualty = true;
                None
            }
            RETREAT => Some(Main::Retreat),
            DISRUPT => Some(Main::Disrupt),
            STEP_LOSS => Some(Main::StepLoss),
            TWO_STEP_LOSS => Some(Main::TwoStepLoss),
            CAPTURED_DC => Some(Main::CapturedDc),
            CAPTURED_AC => Some(Main::CapturedAc),
            PIN => Some(Main::Pin),
            other => {
                return Err(Error::refused(format!(
                    "13.1: the engine does not know the result code '{other}' ({}); it knows {NO_EFFECT}, \
                     {ARMY_MORALE}, {RETREAT}, {DISRUPT}, {STEP_LOSS}, {TWO_STEP_LOSS}, {CAPTURED_DC}, \
                     {CAPTURED_AC}, {PIN}, {LEADER_CASUALTY}",
                    entry.symbol
                )))
            }
        };
        if let Some(m) = main {
            if let Some(before) = read.main {
                return Err(Error::refused(format!(
                    "13.1: [{}] holds two main results ({before:?} and {m:?}); a side suffers one",
                    codes.join(", ")
                )));
            }
            read.main = Some(m);
        }
    }
    Ok(read)
}

// ---------------------------------------------------------------------------
// Small helpers

fn counter<'a>(rules: &'a Rules, id: &str) -> Result<&'a Counter> {
    rules.counter(id).ok_or_else(|| Error::refused(format!("no unit '{id}' in this module")))
}

fn player_of<'a>(rules: &'a Rules, id: &str) -> Option<&'a str> {
    rules.player_of_unit(id)
}

fn steps_of(state: &State, id: &str) -> u8 {
    state.units.get(id).map(|u| u.steps).unwrap_or(0)
}

/// The printed morale on the side showing (15.31); none last.
fn morale_showing(c: &Counter, steps: u8) -> Option<i32> {
    let full = c.steps.unwrap_or(1);
    c.morale.map(|m| if steps < full { m.reduced.unwrap_or(m.full) } else { m.full })
}

/// Score `halves` for `army` (Savannah 2.9), with an event.
/// Savannah 4.13: `army` may be credited to another ([`State::credited`]).
fn score(state: &mut State, army: &str, halves: i32, rule: &str, what: &str) -> Option<Event> {
    if halves == 0 {
        return None;
    }
    let army = state.credited(army).to_string();
    let army = army.as_str();
    let was = state.vp_halves.get(army).copied().unwrap_or(0);
    let now = was.saturating_add(halves);
    state.vp_halves.insert(army.to_string(), now);
    Some(
        Event::new(rule, "victory-points", format!("{army} scores {halves} half VPs for {what}: {was} → {now}"))
            .with("army", army)
            .with("halves", halves)
            .with("before", was)
            .with("after", now),
    )
}

/// The VP schedule's entry `id` in halves, for `what` (refused when missing).
fn vp_halves(rules: &Rules, id: &str, rule: &str) -> Result<(i32, Vec<String>)> {
    let entry = rules.charts.victory_points.victory_points.entries.iter().find(|e| e.id == id).ok_or_else(|| {
        Error::refused(format!(
            "charts/victory-points.yaml: the Victory Point Schedule has no entry '{id}', which {rule} needs here"
        ))
    })?;
    let halves = entry.halves.ok_or_else(|| {
        Error::refused(format!("charts/victory-points.yaml: entry '{id}' gives no halves, but {rule} needs its value"))
    })?;
    Ok((halves, entry.sides.clone()))
}

// ---------------------------------------------------------------------------
// One side's result

struct Apply<'a> {
    rules: &'a Rules,
    data: &'a Data,
    combat: &'a Combat,
    role: Role,
    side: &'a Side,
    choices: &'a Choices,
    /// The enemy army credited (the army of the enemy's affected unit).
    by: String,
    /// Savannah 4.12: the shells fell on the firing player's own unit
    /// (`by` is then the first army of the other player).
    friendly: bool,
    claimed: BTreeSet<String>,
    events: Vec<Event>,
}

impl Apply<'_> {
    /// Why the affected unit loses steps under `rule`.
    fn cause(&self, rule: &str) -> Cause {
        match self.friendly {
            true => Cause::FriendlyFire { rule: rule.into(), by: self.by.clone() },
            false => Cause::Combat { rule: rule.into(), by: self.by.clone() },
        }
    }

    fn label(&self) -> String {
        match self.combat.kind {
            CombatKind::Close => format!("close combat {}", self.combat.id),
            CombatKind::Fire => format!("fire combat {}", self.combat.id),
        }
    }

    fn enemy(&self) -> &Side {
        match self.role {
            Role::Attacker => &self.combat.defender,
            Role::Defender => &self.combat.attacker,
        }
    }

    fn retreat(&mut self, state: &mut State, unit: &str, distance: Distance, why: &str) -> Result<Outcome> {
        let army_morale = distance == Distance::One;
        let order = retreat::Order {
            unit,
            distance,
            rule: "13.1",
            why,
            by: &self.by,
            close_combat: (self.combat.kind == CombatKind::Close).then_some(self.combat.id.as_str()),
            army_morale,
        };
        let (outcome, events) = retreat::retreat_with(
            self.rules,
            self.data,
            state,
            &order,
            self.choices.retreats.get(unit),
            &self.claimed,
        )?;
        self.events.extend(events);
        Ok(outcome)
    }

    /// "D" on `unit`: shattered units are eliminated; others retreat three
    /// hexes and are disrupted or shattered.
    fn disrupt(&mut self, state: &mut State, unit: &str, why: &str) -> Result<()> {
        let c = counter(self.rules, unit)?;
        let before = state.units.get(unit).map(|u| u.condition).unwrap_or(Condition::ParadeOrder);
        if before == Condition::Shattered {
            let steps = steps_of(state, unit);
            self.events.push(
                Event::new(
                    "13.1",
                    "shattered-eliminated",
                    format!("{} ({unit}) is shattered: {why} eliminates it", c.name),
                )
                .with("unit", unit),
            );
            let cause = self.cause("13.1");
            self.events.extend(losses::lose_steps(self.rules, state, unit, steps, cause)?);
            return Ok(());
        }
        let outcome = self.retreat(state, unit, Distance::Three, why)?;
        if matches!(outcome, Outcome::Captured | Outcome::Gone) {
            return Ok(());
        }
        self.condition(state, unit, before)
    }

    /// A "D" on a unit still on the map: disrupted, or shattered if it was.
    fn condition(&mut self, state: &mut State, unit: &str, before: Condition) -> Result<()> {
        let c = counter(self.rules, unit)?;
        let (after, entry) = match before {
            Condition::ParadeOrder => (Condition::Disrupted, DISRUPTED_ENTRY),
            _ => (Condition::Shattered, SHATTERED_ENTRY),
        };
        morale::adjustment(self.rules, entry)?;
        let vp =
            if after == Condition::Shattered { Some(vp_halves(self.rules, SHATTERED_ENTRY, "13.1")?) } else { None };
        if let Some(u) = state.units.get_mut(unit) {
            u.condition = after;
        }
        self.events.push(
            Event::new(
                "13.1",
                if after == Condition::Shattered { "shattered" } else { "disrupted" },
                format!(
                    "{} ({unit}) is {} ({:?} before)",
                    c.name,
                    if after == Condition::Shattered { "shattered" } else { "disrupted" },
                    before
                ),
            )
            .with("unit", unit)
            .with("condition", after),
        );
        let why = format!("{} {}", c.name, if after == Condition::Shattered { "shattered" } else { "disrupted" });
        let applied =
            morale::apply(self.rules, state, entry, &c.army, std::slice::from_ref(&self.by), 1, ("16.1", &why))?;
        self.events.extend(applied.into_iter().map(|e| e.with("entry", entry).with("unit", unit)));
        if let Some((halves, sides)) = vp {
            let scores = sides.is_empty() || side_of_army(self.rules, &self.by).is_some_and(|s| sides.contains(&s));
            if scores {
                let what = format!("{} shattered (charts/victory-points.yaml {SHATTERED_ENTRY})", c.name);
                if let Some(e) = score(state, &self.by, halves, "Savannah 2.9", &what) {
                    self.events.push(e.with("unit", unit).with("entry", SHATTERED_ENTRY));
                }
            }
        }
        Ok(())
    }

    fn check(&mut self, state: &mut State, unit: &str, why: &str, dice: &mut dyn Dice) -> Result<bool> {
        let attacked_from: Vec<HexId> = if self.combat.kind == CombatKind::Close && self.role == Role::Defender {
            self.enemy().all().filter_map(|u| hex_of(state, u)).collect()
        } else {
            Vec::new()
        };
        let check = MoraleCheck {
            why,
            morale_at_start: &self.combat.morale_at_start,
            attacked_from: &attacked_from,
            trigger: None,
        };
        let (passed, event) = morale_check(self.rules, state, unit, &check, dice)?;
        self.events.push(event);
        Ok(passed)
    }

    /// The units that check after R, D, 1, 2: fail, retreat one hex.
    fn others_check(&mut self, state: &mut State, symbol: &str, dice: &mut dyn Dice) -> Result<()> {
        let units: Vec<String> = self.side.others.iter().chain(self.side.artillery.iter()).cloned().collect();
        for u in units {
            if hex_of(state, &u).is_none() {
                continue;
            }
            let why = format!("\"{symbol}\" on its side ({})", self.label());
            if !self.check(state, &u, &why, dice)? {
                let why = format!("failed morale check after \"{symbol}\" ({})", self.label());
                self.retreat(state, &u, Distance::One, &why)?;
            }
        }
        Ok(())
    }

    /// DC/AC's and 13.25's check: pass, retreat one hex; fail, "D".
    fn check_or_disrupt(&mut self, state: &mut State, units: &[String], what: &str, dice: &mut dyn Dice) -> Result<()> {
        for u in units {
            if hex_of(state, u).is_none() {
                continue;
            }
            let why = format!("{what} ({})", self.label());
            if self.check(state, u, &why, dice)? {
                let why = format!("passed morale check after {what} ({})", self.label());
                self.retreat(state, u, Distance::One, &why)?;
            } else {
                let why = format!("\"D\" for a failed morale check after {what} ({})", self.label());
                self.disrupt(state, u, &why)?;
            }
        }
        Ok(())
    }

    /// "*": the side's leaders in the affected hexes.
    fn leader_casualty(&mut self, state: &mut State) -> Result<()> {
        let rules = self.rules;
        let player = player_of(rules, &self.side.affected).unwrap_or_default().to_string();
        let hexes: BTreeSet<HexId> = match self.combat.kind {
            CombatKind::Fire => hex_of(state, &self.side.affected).into_iter().collect(),
            CombatKind::Close => self.side.all().filter_map(|u| hex_of(state, u)).collect(),
        };
        let leaders: Vec<&Counter> = state
            .units
            .keys()
            .filter_map(|id| rules.counter(id))
            .filter(|c| c.is_leader() && rules.player_of_army(&c.army) == Some(player.as_str()))
            .filter(|c| hex_of(state, &c.id).is_some_and(|h| hexes.contains(&h)))
            .collect();
        let table = &rules.charts.leader_casualty.leader_casualty;
        let class_of = |id: &str| {
            table
                .classes
                .iter()
                .find(|k| k.leaders.iter().any(|l| l == id))
                .or_else(|| table.classes.iter().find(|k| k.id == table.default_class))
        };
        let hex_words: Vec<String> = hexes.iter().map(|h| h.to_string()).collect();
        if leaders.is_empty() {
            self.events.push(
                Event::new(
                    "13.1",
                    "leader-casualty-ignored",
                    format!(
                        "\"*\": no leader of {player} in {}: the result and its army morale adjustment are ignored",
                        hex_words.join(", ")
                    ),
                )
                .with("player", &player),
            );
            return Ok(());
        }
        let ids: Vec<&str> = leaders.iter().map(|c| c.id.as_str()).collect();
        let (leader, by) = match &self.choices.leader {
            Some(l) => {
                let Some(c) = leaders.iter().find(|c| &c.id == l) else {
                    return Err(refusals::refuse(
                        Code::ResultChoice,
                        format!(
                            "\"*\" ({}): {l} is not a leader of {player} in {}; the leaders there: {}",
                            self.label(),
                            hex_words.join(", "),
                            ids.join(", ")
                        ),
                    ));
                };
                (*c, "choice")
            }
            None => {
                let mut sorted = leaders.clone();
                sorted.sort_by_key(|c| {
                    (class_of(&c.id).map(|k| k.vp_halves).unwrap_or(0), c.rank.unwrap_or(0), c.id.clone())
                });
                let first = sorted.first().copied().ok_or_else(|| Error::refused("\"*\": no leader"))?;
                (first, "default")
            }
        };
        let class = class_of(&leader.id).ok_or_else(|| {
            Error::refused(format!(
                "charts/leader-casualty.yaml: no class lists {} and the default class '{}' is not a class",
                leader.id, table.default_class
            ))
        })?;
        let at = hex_of(state, &leader.id).map(|h| h.to_string()).unwrap_or_default();
        if let Some(u) = state.units.get_mut(&leader.id) {
            u.leave_map(OffMap::Eliminated);
        }
        let how = if by == "choice" {
            "the owning player's choice".to_string()
        } else {
            "the default: the leader scoring the fewest VPs on the Leader Casualty Table, then the lowest rank, then the \
             lowest id"
                .to_string()
        };
        self.events.push(
            Event::new(
                "13.1",
                "leader-casualty",
                format!(
                    "\"*\": {} ({}, {at}) falls and goes to the eliminated box ({how}); Leader Casualty Table class {}",
                    leader.name, leader.id, class.id
                ),
            )
            .with("leader", &leader.id)
            .with("hex", &at)
            .with("class", &class.id)
            .with("by", by),
        );
        let why = format!("{} a casualty (charts/leader-casualty.yaml {})", leader.name, class.id);
        let lost = leader_lost_costs(rules, self.data, state, leader, class, &self.by, &why);
        self.events.extend(lost);
        Ok(())
    }

    /// PIN: this side's disrupted and shattered units in the hexes captured.
    fn pin_captures(&mut self, state: &mut State, hexes: &BTreeSet<HexId>) -> Result<()> {
        let player = player_of(self.rules, &self.side.affected).unwrap_or_default().to_string();
        let taken: Vec<String> = state
            .units
            .iter()
            .filter(|(id, u)| {
                u.condition != Condition::ParadeOrder
                    && hex_of(state, id).is_some_and(|h| hexes.contains(&h))
                    && self
                        .rules
                        .counter(id)
                        .is_some_and(|c| !c.is_leader() && self.rules.player_of_army(&c.army) == Some(player.as_str()))
            })
            .map(|(id, _)| id.clone())
            .collect();
        for id in taken {
            let condition = state.units.get(&id).map(|u| u.condition);
            self.events.push(
                Event::new("13.1", "pin-capture", format!("\"PIN\": {id} is {condition:?} in the combat: captured"))
                    .with("unit", &id),
            );
            self.events.extend(capture(self.rules, self.data, state, &id, "13.1", &self.by)?);
        }
        Ok(())
    }

    /// "2": the second step, in the affected unit's hex.
    fn second_step(&mut self, state: &mut State, hex: Option<HexId>) -> Result<()> {
        if self.combat.kind == CombatKind::Fire {
            self.events.push(Event::new(
                "13",
                "second-step-ignored",
                "\"2\": in fire combat other units in the hex are never affected (13): the second step is ignored",
            ));
            return Ok(());
        }
        let candidates: Vec<String> = self
            .side
            .others
            .iter()
            .chain(self.side.artillery.iter())
            .chain(self.side.previously_retreated.iter())
            .filter(|u| hex.is_some() && hex_of(state, u) == hex)
            .cloned()
            .collect();
        let (unit, by) = match &self.choices.second_step {
            Some(u) if candidates.contains(u) => (u.clone(), "choice"),
            Some(u) => {
                return Err(refusals::refuse(
                    Code::ResultChoice,
                    format!(
                        "\"2\" ({}): {u} cannot take the second step; the side's other units in the hex: {}",
                        self.label(),
                        if candidates.is_empty() { "none".to_string() } else { candidates.join(", ") }
                    ),
                ))
            }
            None => {
                let mut sorted = candidates.clone();
                sorted.sort_by_key(|u| {
                    let steps = steps_of(state, u);
                    let m = self.rules.counter(u).and_then(|c| morale_showing(c, steps)).unwrap_or(i32::MAX);
                    (std::cmp::Reverse(steps), m, u.clone())
                });
                match sorted.into_iter().next() {
                    Some(u) => (u, "default"),
                    None => {
                        self.events.push(Event::new(
                            "13.1",
                            "second-step-ignored",
                            "\"2\": no other unit of the side in the hex: the second step loss is ignored",
                        ));
                        return Ok(());
                    }
                }
            }
        };
        self.events.push(
            Event::new(
                "13.1",
                "second-step",
                format!(
                    "\"2\": {unit} takes the second step ({})",
                    if by == "choice" {
                        "the owning player's choice".to_string()
                    } else {
                        "the default: the most steps left, then the lowest morale showing, then the lowest id"
                            .to_string()
                    }
                ),
            )
            .with("unit", &unit)
            .with("by", by),
        );
        let cause = self.cause("13.1");
        self.events.extend(losses::lose_steps(self.rules, state, &unit, 1, cause)?);
        Ok(())
    }

    /// DC, AC: the unit captured, and the others' checks.
    fn captured(&mut self, state: &mut State, main: Main, dice: &mut dyn Dice) -> Result<()> {
        let (symbol, chooser) = match main {
            Main::CapturedDc => ("DC", Role::Defender),
            _ => ("AC", Role::Attacker),
        };
        let candidates: Vec<String> = match self.combat.kind {
            CombatKind::Fire => vec![self.side.affected.clone()],
            CombatKind::Close => std::iter::once(&self.side.affected)
                .chain(self.side.others.iter())
                .chain(self.side.artillery.iter())
                .filter(|u| hex_of(state, u).is_some())
                .cloned()
                .collect(),
        };
        let owner_chooses = chooser == self.role || self.combat.kind == CombatKind::Fire;
        let (unit, by) = match &self.choices.captured {
            Some(u) if candidates.contains(u) => (u.clone(), "choice"),
            Some(u) => {
                return Err(refusals::refuse(
                    Code::ResultChoice,
                    format!(
                    "\"{symbol}\" ({}): {u} is not a combat unit of the affected side; the {}'s choice is among: {}",
                    self.label(),
                    chooser.word(),
                    candidates.join(", ")
                ),
                ))
            }
            None => {
                let mut sorted = candidates.clone();
                sorted.sort_by_key(|u| {
                    let steps = steps_of(state, u);
                    let m = self.rules.counter(u).and_then(|c| morale_showing(c, steps)).unwrap_or(i32::MIN);
                    if owner_chooses {
                        (m, i32::from(steps), u.clone())
                    } else {
                        (-m, -i32::from(steps), u.clone())
                    }
                });
                (sorted.into_iter().next().unwrap_or_else(|| self.side.affected.clone()), "default")
            }
        };
        let how = match (by, owner_chooses) {
            ("choice", _) => format!("the {}'s choice", chooser.word()),
            (_, true) => format!(
                "the default for the {} choosing among its own units: the lowest morale showing, then the fewest \
                 steps, then the lowest id",
                chooser.word()
            ),
            (_, false) => format!(
                "the default for the {} choosing among the enemy's units: the highest morale showing, then the most \
                 steps, then the lowest id",
                chooser.word()
            ),
        };
        self.events.push(
            Event::new("13.1", "capture-choice", format!("\"{symbol}\": {unit} is captured ({how})"))
                .with("unit", &unit)
                .with("chooser", chooser.word())
                .with("by", by),
        );
        self.events.extend(capture(self.rules, self.data, state, &unit, "13.1", &self.by)?);
        let rest: Vec<String> = candidates.into_iter().filter(|u| *u != unit).collect();
        let what = format!("\"{symbol}\" on its side");
        self.check_or_disrupt(state, &rest, &what, dice)
    }
}

/// Every unit of either side in `hexes` is pinned by the combat.
fn mark_pins(state: &mut State, hexes: &BTreeSet<HexId>, id: &str) -> Event {
    let mut marked = Vec::new();
    for (unit, u) in state.units.iter_mut() {
        if u.hex.is_some_and(|h| hexes.contains(&h)) {
            u.pinned = true;
            u.pin_result = Some(id.to_string());
            marked.push(unit.clone());
        }
    }
    let hex_words: Vec<String> = hexes.iter().map(|h| h.to_string()).collect();
    Event::new(
        "13.1",
        "pinned",
        format!("\"PIN\": every unit in {} is pinned ({})", hex_words.join(", "), marked.join(", ")),
    )
    .with("hexes", hex_words)
    .with("units", marked)
    .with("pin_result", id)
}

/// Check the combat's units before anything changes.
fn check_combat(rules: &Rules, state: &State, combat: &Combat) -> Result<()> {
    for (role, side) in [(Role::Attacker, &combat.attacker), (Role::Defender, &combat.defender)] {
        let mut seen = BTreeSet::new();
        for u in side.all() {
            let c = counter(rules, u)?;
            if c.is_leader() {
                return Err(Error::refused(format!(
                    "{u} is a leader: leaders are not combat units; \"*\" finds them in the hexes (13.1)"
                )));
            }
            // 10.4: in simultaneous rifle fire a firer may already be gone;
            // the firing side of a fire combat is only credited.
            let firer = combat.kind == CombatKind::Fire && role == Role::Attacker;
            if hex_of(state, u).is_none() && !firer {
                return Err(Error::refused(format!("{u} ({}) is not on the map", role.word())));
            }
            if !seen.insert(u.clone()) {
                return Err(Error::refused(format!("{u} is given twice for the {}", role.word())));
            }
        }
        if combat.kind == CombatKind::Fire
            && role == Role::Defender
            && !(side.others.is_empty() && side.artillery.is_empty() && side.previously_retreated.is_empty())
        {
            return Err(Error::refused(
                "13: in fire combat other friendly units in the hex are never affected: give only the target",
            ));
        }
        if role == Role::Attacker && combat.kind == CombatKind::Close {
            let guns: Vec<&String> = side
                .others
                .iter()
                .chain(side.artillery.iter())
                .chain(std::iter::once(&side.affected))
                .filter(|u| rules.counter(u).is_some_and(|c| c.is_artillery()))
                .collect();
            if !guns.is_empty() {
                return Err(Error::refused(format!(
                    "13.1: the Attacker's artillery is never affected by close combat results (12.12): remove {}",
                    guns.iter().map(|g| g.as_str()).collect::<Vec<_>>().join(", ")
                )));
            }
        }
        let player = player_of(rules, &side.affected);
        if let Some(u) = side.all().find(|u| player_of(rules, u) != player) {
            return Err(Error::refused(format!("{u} is not of the same player as {}", side.affected)));
        }
    }
    // Savannah 4.12: mortar shells may land on the firing player's own
    // units (the fire orders' checks keep guns and rifles to enemy targets).
    if combat.kind == CombatKind::Close
        && player_of(rules, &combat.attacker.affected) == player_of(rules, &combat.defender.affected)
    {
        return Err(Error::refused("the Attacker and the Defender are the same player's"));
    }
    Ok(())
}

/// The hexes of every unit of the combat (PIN).
fn combat_hexes(state: &State, combat: &Combat) -> BTreeSet<HexId> {
    combat.attacker.all().chain(combat.defender.all()).filter_map(|u| hex_of(state, u)).collect()
}

#[allow(clippy::too_many_arguments)]
fn apply_side(
    rules: &Rules,
    data: &Data,
    state: &mut State,
    combat: &Combat,
    role: Role,
    codes: &Codes,
    raw: &[String],
    choices: &Choices,
    dice: &mut dyn Dice,
) -> Result<Vec<Event>> {
    let side = match role {
        Role::Attacker => &combat.attacker,
        Role::Defender => &combat.defender,
    };
    let enemy = match role {
        Role::Attacker => &combat.defender,
        Role::Defender => &combat.attacker,
    };
    let firing = rules.army_of(&enemy.affected).unwrap_or_default().to_string();
    // Savannah 4.12: shells on the firing player's own unit.
    let own = rules.player_of_unit(&side.affected);
    let friendly = combat.kind == CombatKind::Fire && own.is_some() && own == rules.player_of_army(&firing);
    let by = match (friendly, own) {
        (true, Some(player)) => losses::other_armies(rules, player).into_iter().next().unwrap_or_default(),
        _ => firing,
    };
    let claimed: BTreeSet<String> =
        choices.retreats.values().filter_map(|c| c.leaders.as_ref()).flatten().cloned().collect();
    let mut a = Apply { rules, data, combat, role, side, choices, by, friendly, claimed, events: Vec::new() };
    let label = a.label();
    let affected = side.affected.clone();
    let name = counter(rules, &affected)?.name.clone();
    a.events.push(
        Event::new(
            "13.1",
            "combat-result",
            format!("{label}: the {} ({name}, {affected}) suffers [{}]", role.word(), codes.symbols.join(" ")),
        )
        .with("combat", &combat.id)
        .with("side", role.word())
        .with("unit", &affected)
        .with("codes", raw)
        .with("symbols", &codes.symbols),
    );
    if !codes.any_result() {
        a.events.push(Event::new("13.1", "no-effect", format!("\"-\": no effect on the {}", role.word())));
        return Ok(a.events);
    }
    if codes.leader_casualty {
        a.leader_casualty(state)?;
    }
    if codes.army_morale {
        let army = rules.army_of(&affected).unwrap_or_default().to_string();
        let why = format!("\"AM\" ({label})");
        a.events.extend(morale::apply(rules, state, AM_ENTRY, &army, std::slice::from_ref(&a.by), 1, ("13.1", &why))?);
    }
    let affected_hex = hex_of(state, &affected);
    match codes.main {
        None => {}
        Some(Main::Retreat) => {
            let why = format!("\"R\" ({label})");
            a.retreat(state, &affected, Distance::One, &why)?;
            a.others_check(state, "R", dice)?;
        }
        Some(Main::Disrupt) => {
            let why = format!("\"D\" ({label})");
            a.disrupt(state, &affected, &why)?;
            a.others_check(state, "D", dice)?;
        }
        Some(Main::StepLoss) => {
            let cause = a.cause("13.1");
            a.events.extend(losses::lose_steps(rules, state, &affected, 1, cause)?);
            a.others_check(state, "1", dice)?;
        }
        Some(Main::TwoStepLoss) => {
            let steps = steps_of(state, &affected);
            let cause = a.cause("13.1");
            a.events.extend(losses::lose_steps(rules, state, &affected, steps, cause)?);
            if steps == 1 {
                a.second_step(state, affected_hex)?;
            }
            a.others_check(state, "2", dice)?;
        }
        Some(m @ (Main::CapturedDc | Main::CapturedAc)) => a.captured(state, m, dice)?,
        Some(Main::Pin) => {
            let hexes = combat_hexes(state, combat);
            a.pin_captures(state, &hexes)?;
        }
    }
    // 13.25: previously retreated units.
    if codes.main != Some(Main::Pin) && !side.previously_retreated.is_empty() {
        let what = "a result on its side, having retreated into the hex before (13.25)".to_string();
        let units = side.previously_retreated.clone();
        a.check_or_disrupt(state, &units, &what, dice)?;
    }
    Ok(a.events)
}

/// Series 13.1: apply one side's result (`codes`, ids of
/// charts/codes.yaml) of one combat, with its choices. Refused, with
/// nothing changed, for an unknown code, a choice that breaks a rule, or a
/// chart entry missing. For a close combat's two halves use
/// [`apply_close_combat`], which keeps 13.1's order.
pub fn apply(
    rules: &Rules,
    state: &mut State,
    combat: &Combat,
    role: Role,
    codes: &[String],
    choices: &Choices,
    dice: &mut dyn Dice,
) -> Result<Vec<Event>> {
    let read = read_codes(rules, codes)?;
    check_combat(rules, state, combat)?;
    let data = Data::load(rules)?;
    let mut next = state.clone();
    let hexes = combat_hexes(&next, combat);
    let mut events = apply_side(rules, &data, &mut next, combat, role, &read, codes, choices, dice)?;
    if read.main == Some(Main::Pin) {
        events.push(mark_pins(&mut next, &hexes, &combat.id));
    }
    *state = next;
    Ok(events)
}

/// Series 12.23 step 7, 13.1: both halves of a close combat cell, the
/// Defender's first ("when both sides must retreat, the Defender retreats
/// and makes morale checks first"; PIN: the Defender's captures, then the
/// Attacker's, then the pins). PIN must be in both halves or neither.
#[allow(clippy::too_many_arguments)]
pub fn apply_close_combat(
    rules: &Rules,
    state: &mut State,
    combat: &Combat,
    attacker: &[String],
    attacker_choices: &Choices,
    defender: &[String],
    defender_choices: &Choices,
    dice: &mut dyn Dice,
) -> Result<Vec<Event>> {
    if combat.kind != CombatKind::Close {
        return Err(Error::refused("apply_close_combat is for close combat; fire combat has one result: apply"));
    }
    let a = read_codes(rules, attacker)?;
    let d = read_codes(rules, defender)?;
    if (a.main == Some(Main::Pin)) != (d.main == Some(Main::Pin)) {
        return Err(Error::refused(format!(
            "13.1: PIN is in both halves of a close combat result or in neither: [{}] / [{}]",
            attacker.join(", "),
            defender.join(", ")
        )));
    }
    check_combat(rules, state, combat)?;
    let data = Data::load(rules)?;
    let mut next = state.clone();
    let hexes = combat_hexes(&next, combat);
    let mut events = apply_side(rules, &data, &mut next, combat, Role::Defender, &d, defender, defender_choices, dice)?;
    events.extend(apply_side(rules, &data, &mut next, combat, Role::Attacker, &a, attacker, attacker_choices, dice)?);
    if d.main == Some(Main::Pin) {
        events.push(mark_pins(&mut next, &hexes, &combat.id));
    }
    *state = next;
    Ok(events)
}

mod end_of_phase;
mod momentum;
mod morale_check;
#[cfg(test)]
mod tests;

pub use end_of_phase::end_of_close_combat_phase;
use momentum::*;
pub use momentum::{capture, empty_pool_event, gain_chit, leader_captured, Gain};
pub use morale_check::{morale_check, triggered_check, MoraleCheck};
