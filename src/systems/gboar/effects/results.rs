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
//! suffers "D": shattered, retreating three hexes or captured (13.3). A
//! unit shattered so is not captured again by 13.4 that phase: the
//! parenthesis of 13.3 gives its whole consequence. Captures are credited
//! to the army of the lowest-id enemy unit next to the unit; retreats take
//! the defaults, and Savannah 4.9 does not apply (not a close combat result).

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use crate::base::error::{Error, Result};
use crate::base::hex::{neighbours, HexId, Hexside};
use crate::system::{Dice, Event};
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
    rules.army_of(id).and_then(|a| rules.player_of_army(a))
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
fn score(state: &mut State, army: &str, halves: i32, rule: &str, what: &str) -> Option<Event> {
    if halves == 0 {
        return None;
    }
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
// Momentum (12.64, 12.65; Savannah 4.18)

/// `owner` gives up a Momentum Chit: back to the pool if held; else the
/// enemy `opponent` takes one from the pool; with none there (12.65), the
/// owner would return one, and holds none: nothing more.
fn lose_chit(data: &Data, state: &mut State, owner: &str, opponent: &str, rule: &str, why: &str) -> Event {
    let pool = data.momentum.as_ref().map(|m| m.pool).unwrap_or(0);
    let held = state.momentum.get(owner).copied().unwrap_or(0);
    let event = |text: String, to: &str| {
        Event::new(rule, "momentum", text).with("player", owner).with("opponent", opponent).with("outcome", to)
    };
    if held > 0 {
        state.momentum.insert(owner.to_string(), held - 1);
        return event(
            format!("{owner} returns a Momentum Chit to the pool for {why} ({rule}): {held} → {}", held - 1),
            "returned",
        );
    }
    let free = state.momentum_pool(pool);
    if free > 0 {
        let theirs = state.momentum.get(opponent).copied().unwrap_or(0);
        state.momentum.insert(opponent.to_string(), theirs + 1);
        return event(
            format!(
                "{owner} holds no Momentum Chit to return for {why}: {opponent} takes one from the pool ({rule}): \
                 {theirs} → {}",
                theirs + 1
            ),
            "taken-by-opponent",
        );
    }
    event(
        format!(
            "{owner} holds no Momentum Chit to return for {why}, and the pool is empty: {opponent} would take one, \
             so {owner} must return one instead (12.65), and holds none: no further effect"
        ),
        "none",
    )
}

/// 13.1, 13.23, 13.4 with 12.64: `unit` is captured by the army `by`.
pub fn capture(rules: &Rules, data: &Data, state: &mut State, unit: &str, rule: &str, by: &str) -> Result<Vec<Event>> {
    let c = counter(rules, unit)?;
    let mut events = Vec::new();
    let full = c.steps.unwrap_or(1);
    let at_full = steps_of(state, unit) == full;
    let printed = c.morale.map(|m| m.full);
    let momentum = data.momentum.as_ref().and_then(|m| m.captured_printed_morale.map(|p| (p, m.rule.clone())));
    let owner = rules.player_of_army(&c.army).unwrap_or_default().to_string();
    let opponent = rules.player_of_army(by).unwrap_or_default().to_string();
    events.extend(losses::capture(rules, state, unit, rule, by)?);
    if let Some((p, momentum_rule)) = momentum {
        if at_full && printed == Some(p) && hex_of(state, unit).is_none() {
            let why = format!("{} captured at full strength with printed morale {p:+}", c.name);
            events.push(lose_chit(data, state, &owner, &opponent, &momentum_rule, &why).with("unit", unit));
        }
    }
    Ok(events)
}

// ---------------------------------------------------------------------------
// Morale checks (13.5)

/// One morale check's circumstances.
#[derive(Debug, Clone)]
pub struct MoraleCheck<'a> {
    /// What calls for it, in words.
    pub why: &'a str,
    /// 16.24: army morale by army at the start of the combat.
    pub morale_at_start: &'a BTreeMap<String, i32>,
    /// 13.5: the hexes the unit is attacked from, when it defends in close
    /// combat (empty otherwise).
    pub attacked_from: &'a [HexId],
    /// A triggered check (charts/morale-check.yaml `triggered_checks`).
    pub trigger: Option<&'a str>,
}

/// 13.5: whether every hexside between `hex` and the adjacent hexes of
/// `from` is a fieldwork protecting `hex` (unbreached: no breach is
/// recorded yet). False when no hex of `from` is adjacent.
fn solely_across_fieldworks(rules: &Rules, hex: HexId, from: &[HexId]) -> bool {
    let map = &rules.module.map;
    let fieldworks: BTreeSet<&str> =
        rules.charts.terrain.hexsides.iter().filter(|h| h.fieldwork).map(|h| h.id.as_str()).collect();
    let adjacent: Vec<HexId> =
        from.iter().copied().filter(|a| crate::base::hex::are_adjacent(*a, hex, map.layout)).collect();
    !adjacent.is_empty()
        && adjacent.iter().all(|a| {
            Hexside::between(hex, *a, map.layout).is_some_and(|side| {
                map.hexsides.get(&side).is_some_and(|features| {
                    features.iter().any(|f| fieldworks.contains(f.as_str()) && map.protected_hex(side, f) == Some(hex))
                })
            })
        })
}

/// 13.5: `unit` checks morale; whether it passes, and the event.
pub fn morale_check(
    rules: &Rules,
    state: &mut State,
    unit: &str,
    check: &MoraleCheck,
    dice: &mut dyn Dice,
) -> Result<(bool, Event)> {
    let chart = &rules.charts.morale_check;
    let c = counter(rules, unit)?;
    let hex =
        hex_of(state, unit).ok_or_else(|| Error::refused(format!("{unit} is not on the map: it cannot check")))?;
    // 16.24: the level at the start of the combat.
    let Some(at_start) = check.morale_at_start.get(&c.army).copied() else {
        return Err(Error::refused(format!(
            "16.24: the army morale of {} at the start of the combat is not given",
            c.army
        )));
    };
    let mut view = check.morale_at_start.clone();
    view.insert(c.army.clone(), at_start);
    std::mem::swap(&mut state.army_morale, &mut view);
    let modified = crate::systems::gboar::board::units::modified_morale(rules, state, c);
    std::mem::swap(&mut state.army_morale, &mut view);
    let (base, level_modifier, level) = modified?;
    if let Some(t) = check.trigger {
        if !chart.triggered_checks.iter().any(|x| x.id == t) {
            return Err(Error::refused(format!("charts/morale-check.yaml: '{t}' is not one of its triggered_checks")));
        }
    }
    let mut drms: Vec<(String, i32)> = Vec::new();
    for m in chart.modifiers.iter().filter(|m| m.applies_to.iter().any(|a| a == "morale-check")) {
        let value = match m.id.as_str() {
            // 14.23: the leader in command in the unit's hex.
            "leadership" => crate::systems::gboar::board::units::leader_in_command(rules, state, hex, &c.army)
                .map(|l| (format!("leadership ({})", l.name), l.leadership_drm.unwrap_or(0))),
            // 13.5: defending solely across unbreached fieldworks.
            "fieldworks-defence" => solely_across_fieldworks(rules, hex, check.attacked_from)
                .then(|| ("defending across fieldworks".to_string(), m.value.unwrap_or(0))),
            // A triggered check's own modifier (Savannah 4.19).
            id if chart.triggered_checks.iter().any(|t| t.id == id) => {
                (check.trigger == Some(id)).then(|| (id.to_string(), m.value.unwrap_or(0)))
            }
            other => {
                return Err(Error::refused(format!(
                    "charts/morale-check.yaml: the engine does not know the morale check modifier '{other}'"
                )))
            }
        };
        if let Some(v) = value {
            drms.push(v);
        }
    }
    let die = match chart.die {
        crate::systems::gboar::data::charts::Die::D10 => crate::base::dice::Die::D10,
    };
    let roll = i32::from(dice.roll(die, &format!("morale check (13.5), {} in {hex}", c.name))?);
    let drm_total: i32 = drms.iter().map(|(_, v)| v).sum();
    let total = roll + base + level_modifier + drm_total;
    let passed = total >= chart.pass_at_least;
    let drm_text: Vec<String> = drms.iter().map(|(n, v)| format!("{v:+} {n}")).collect();
    let current = state.army_morale.get(&c.army).copied().unwrap_or(at_start);
    let snapshot = if current == at_start {
        String::new()
    } else {
        format!(" (16.24: army morale {at_start} at the start of the combat, {current} now)")
    };
    let event = Event::new(
        "13.5",
        "morale-check",
        format!(
            "{} ({unit}, {hex}) checks morale for {}: rolls {roll}, morale {base} {level_modifier:+} ({level}){snapshot}\
             {}{} = {total}: {} (needs {})",
            c.name,
            check.why,
            if drm_text.is_empty() { "" } else { ", " },
            drm_text.join(", "),
            if passed { "passes" } else { "fails" },
            chart.pass_at_least
        ),
    )
    .with("unit", unit)
    .with("hex", hex.to_string())
    .with("roll", roll)
    .with("morale", base)
    .with("army_morale_modifier", level_modifier)
    .with("army_morale_at_start", at_start)
    .with("drms", drms.iter().cloned().collect::<BTreeMap<String, i32>>())
    .with("total", total)
    .with("passed", passed)
    .with("why", check.why);
    Ok((passed, event))
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
        if outcome == Outcome::Captured {
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
                    return Err(Error::refused(format!(
                        "\"*\" ({}): {l} is not a leader of {player} in {}; the leaders there: {}",
                        self.label(),
                        hex_words.join(", "),
                        ids.join(", ")
                    )));
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
            u.hex = None;
            u.off_map = Some(OffMap::Eliminated);
            u.pinned = false;
            u.pin_result = None;
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
        if class.army_morale != 0 {
            self.events.push(
                morale::adjust(rules, state, &leader.army, class.army_morale, "16.1", &why).with("leader", &leader.id),
            );
        }
        if let Some(e) = score(state, &self.by, class.vp_halves, "Savannah 2.9", &why) {
            self.events.push(e.with("leader", &leader.id));
        }
        let opponent = rules.player_of_army(&self.by).unwrap_or_default().to_string();
        for _ in 0..class.momentum.unsigned_abs() {
            if class.momentum < 0 {
                let e = lose_chit(self.data, state, &player, &opponent, "Savannah 4.18", &why);
                self.events.push(e.with("leader", &leader.id));
            }
        }
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
                return Err(Error::refused(format!(
                    "\"2\" ({}): {u} cannot take the second step; the side's other units in the hex: {}",
                    self.label(),
                    if candidates.is_empty() { "none".to_string() } else { candidates.join(", ") }
                )))
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
                return Err(Error::refused(format!(
                    "\"{symbol}\" ({}): {u} is not a combat unit of the affected side; the {}'s choice is among: {}",
                    self.label(),
                    chooser.word(),
                    candidates.join(", ")
                )))
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
        if u.hex.as_deref().and_then(|h| h.parse::<HexId>().ok()).is_some_and(|h| hexes.contains(&h)) {
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
    let own = rules.army_of(&side.affected).and_then(|a| rules.player_of_army(a));
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

/// Savannah 4.19: a check the rules trigger (charts/morale-check.yaml
/// `triggered_checks`: `fieldwork-breached`, `city-hex-destroyed`): every
/// combat unit in `hexes` checks morale, with the trigger's own modifier if
/// the chart has one, and retreats one hex if it fails (read as 13.1's
/// checks: the rules say no more). `by` is the enemy army credited with a
/// capture; `morale_at_start` the army morale the checks use (16.24).
/// Not a combat result: no `unit-retreated`, and Savannah 4.9 does not apply.
#[allow(clippy::too_many_arguments)]
pub fn triggered_check(
    rules: &Rules,
    state: &mut State,
    trigger: &str,
    hexes: &[HexId],
    by: &str,
    morale_at_start: &BTreeMap<String, i32>,
    choices: &BTreeMap<String, RetreatChoice>,
    dice: &mut dyn Dice,
) -> Result<Vec<Event>> {
    let data = Data::load(rules)?;
    let mut next = state.clone();
    let units: Vec<String> = state
        .units
        .keys()
        .filter(|id| rules.counter(id).is_some_and(|c| !c.is_leader()))
        .filter(|id| hex_of(state, id).is_some_and(|h| hexes.contains(&h)))
        .cloned()
        .collect();
    let text = rules
        .charts
        .morale_check
        .triggered_checks
        .iter()
        .find(|t| t.id == trigger)
        .map(|t| t.text.clone())
        .ok_or_else(|| {
            Error::refused(format!("charts/morale-check.yaml: '{trigger}' is not one of its triggered_checks"))
        })?;
    let claimed: BTreeSet<String> = choices.values().filter_map(|c| c.leaders.as_ref()).flatten().cloned().collect();
    let mut events = Vec::new();
    for u in units {
        if hex_of(&next, &u).is_none() {
            continue;
        }
        let check = MoraleCheck { why: &text, morale_at_start, attacked_from: &[], trigger: Some(trigger) };
        let (passed, event) = morale_check(rules, &mut next, &u, &check, dice)?;
        events.push(event.with("trigger", trigger));
        if !passed {
            let why = format!("failed morale check: {text}");
            let order = retreat::Order {
                unit: &u,
                distance: Distance::One,
                rule: "Savannah 4.19",
                why: &why,
                by,
                close_combat: None,
                army_morale: false,
            };
            let (_, e) = retreat::retreat_with(rules, &data, &mut next, &order, choices.get(&u), &claimed)?;
            events.extend(e);
        }
    }
    *state = next;
    Ok(events)
}

/// Series 13.3, 13.4 at the end of `player`'s Close Combat Phase (module
/// documentation). No die is rolled; `_dice` is the phase's, for the
/// signature every step shares.
pub fn end_of_close_combat_phase(
    rules: &Rules,
    state: &mut State,
    player: &str,
    _dice: &mut dyn Dice,
) -> Result<Vec<Event>> {
    if !rules.sequence.data.alliances.iter().any(|a| a.id == player) {
        return Err(Error::refused(format!("'{player}' is not a player of this module")));
    }
    let data = Data::load(rules)?;
    let layout = rules.module.map.layout;
    // Where every unit stands as the phase ends.
    // (unit, the army credited, the adjacent enemy units)
    let mut shattered: Vec<(String, String, String)> = Vec::new();
    let mut disrupted: Vec<(String, String, String)> = Vec::new();
    let mut notes: Vec<Event> = Vec::new();
    for (id, u) in &state.units {
        let Some(c) = rules.counter(id) else { continue };
        let Some(hex) = hex_of(state, id) else { continue };
        if c.is_leader() || u.condition == Condition::ParadeOrder {
            continue;
        }
        let own = rules.player_of_army(&c.army).unwrap_or_default();
        if u.condition == Condition::Disrupted && own != player {
            continue;
        }
        let enemies: Vec<&String> = state
            .units
            .keys()
            .filter(|e| {
                rules.counter(e).is_some_and(|ec| !ec.is_leader() && rules.player_of_army(&ec.army) != Some(own))
                    && hex_of(state, e).is_some_and(|h| neighbours(hex, layout).contains(&h))
            })
            .collect();
        let Some(first) = enemies.first() else { continue };
        let parade = state.units.iter().find(|(f, fu)| {
            *f != id
                && fu.condition == Condition::ParadeOrder
                && hex_of(state, f) == Some(hex)
                && rules.counter(f).is_some_and(|fc| !fc.is_leader() && rules.player_of_army(&fc.army) == Some(own))
        });
        if let Some((f, _)) = parade {
            let rule = if u.condition == Condition::Shattered { "13.4" } else { "13.3" };
            notes.push(
                Event::new(
                    rule,
                    "stacked-with-parade-order",
                    format!(
                        "{id} ({:?}, {hex}) is next to the enemy but stacked with {f} in Parade Order: safe",
                        u.condition
                    ),
                )
                .with("unit", id)
                .with("with", f),
            );
            continue;
        }
        let by = rules.army_of(first).unwrap_or_default().to_string();
        let list: Vec<&str> = enemies.iter().map(|e| e.as_str()).collect();
        let entry = (id.clone(), by, list.join(", "));
        if u.condition == Condition::Shattered {
            shattered.push(entry);
        } else {
            disrupted.push(entry);
        }
    }
    let mut next = state.clone();
    let mut events = notes;
    for (id, by, adjacent) in &shattered {
        let hex = hex_of(&next, id).map(|h| h.to_string()).unwrap_or_default();
        events.push(
            Event::new(
                "13.4",
                "shattered-captured",
                format!(
                    "{id} ends the Close Combat Phase shattered in {hex}, next to {adjacent} and stacked with no friendly \
                     Parade Order unit: captured"
                ),
            )
            .with("unit", id)
            .with("hex", &hex)
            .with("adjacent", adjacent),
        );
        events.extend(capture(rules, &data, &mut next, id, "13.4", by)?);
    }
    for (id, by, adjacent) in &disrupted {
        let hex = hex_of(&next, id).map(|h| h.to_string()).unwrap_or_default();
        events.push(
            Event::new(
                "13.3",
                "disrupted-adjacent",
                format!(
                    "{id} ends its own Close Combat Phase disrupted in {hex}, next to {adjacent} and stacked with no \
                     friendly Parade Order unit: another \"D\", shattered, retreating three hexes or captured"
                ),
            )
            .with("unit", id)
            .with("hex", &hex)
            .with("adjacent", adjacent),
        );
        let order = retreat::Order {
            unit: id,
            distance: Distance::Three,
            rule: "13.3",
            why: "13.3: disrupted next to the enemy at the end of its Close Combat Phase",
            by,
            close_combat: None,
            army_morale: false,
        };
        let (outcome, e) = retreat::retreat_with(rules, &data, &mut next, &order, None, &BTreeSet::new())?;
        events.extend(e);
        if outcome == Outcome::Captured {
            continue;
        }
        // Shattered, with its adjustments and VPs (as "D" on a disrupted unit).
        let combat = Combat {
            id: String::new(),
            kind: CombatKind::Close,
            attacker: Side::default(),
            defender: Side::default(),
            morale_at_start: BTreeMap::new(),
        };
        let side = Side { affected: id.clone(), ..Side::default() };
        let choices = Choices::default();
        let mut a = Apply {
            rules,
            data: &data,
            combat: &combat,
            role: Role::Defender,
            side: &side,
            choices: &choices,
            by: by.to_string(),
            friendly: false,
            claimed: BTreeSet::new(),
            events: Vec::new(),
        };
        a.condition(&mut next, id, Condition::Disrupted)?;
        events.extend(a.events.into_iter().map(|mut e| {
            e.rule = if e.rule == "13.1" { "13.3".into() } else { e.rule };
            e
        }));
    }
    *state = next;
    Ok(events)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::gboar::effects::retreat::tests::{combat as module, place};

    /// Dice from a script; every die must be used.
    struct Script {
        rolls: Vec<u16>,
        next: usize,
        purposes: Vec<String>,
    }

    impl Script {
        fn new(rolls: &[u16]) -> Script {
            Script { rolls: rolls.to_vec(), next: 0, purposes: Vec::new() }
        }

        fn done(&self) {
            assert_eq!(self.next, self.rolls.len(), "dice scripted but not rolled: {:?}", &self.rolls[self.next..]);
        }
    }

    impl Dice for Script {
        fn roll(&mut self, _die: crate::base::dice::Die, purpose: &str) -> Result<u16> {
            let v = *self.rolls.get(self.next).unwrap_or_else(|| panic!("an unscripted die: {purpose}"));
            self.next += 1;
            self.purposes.push(purpose.to_string());
            Ok(v)
        }
    }

    fn ids(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn side(affected: &str, others: &[&str], artillery: &[&str]) -> Side {
        Side { affected: affected.into(), others: ids(others), artillery: ids(artillery), previously_retreated: vec![] }
    }

    fn close(state: &State, attacker: Side, defender: Side) -> Combat {
        Combat {
            id: "cc-1".into(),
            kind: CombatKind::Close,
            attacker,
            defender,
            morale_at_start: state.army_morale.clone(),
        }
    }

    fn codes(list: &[&str]) -> Vec<String> {
        ids(list)
    }

    fn kinds(events: &[Event]) -> Vec<&str> {
        events.iter().map(|e| e.kind.as_str()).collect()
    }

    fn all<'a>(events: &'a [Event], kind: &str) -> Vec<&'a Event> {
        events.iter().filter(|e| e.kind == kind).collect()
    }

    fn one<'a>(events: &'a [Event], kind: &str) -> &'a Event {
        events.iter().find(|e| e.kind == kind).unwrap_or_else(|| panic!("no {kind} in {:?}", kinds(events)))
    }

    fn at(state: &State, id: &str) -> Option<String> {
        state.units[id].hex.clone()
    }

    fn off(state: &State, id: &str) -> Option<OffMap> {
        state.units[id].off_map
    }

    fn morale(state: &State) -> (i32, i32) {
        (state.army_morale["red"], state.army_morale["blue"])
    }

    fn vp(state: &State, army: &str) -> i32 {
        state.vp_halves.get(army).copied().unwrap_or(0)
    }

    /// Red defends 0506 (red-guards leading, red-militia, red-gun); blue
    /// attacks from 0507 (blue-foot leading, blue-rifles).
    fn battle() -> (Rules, State, Combat) {
        let (rules, mut state) = module();
        place(&mut state, "0506", &["red-guards", "red-militia", "red-gun"]);
        place(&mut state, "0507", &["blue-foot", "blue-rifles"]);
        let combat =
            close(&state, side("blue-foot", &["blue-rifles"], &[]), side("red-guards", &["red-militia"], &["red-gun"]));
        (rules, state, combat)
    }

    fn apply_one(
        rules: &Rules,
        state: &mut State,
        combat: &Combat,
        role: Role,
        list: &[&str],
        choices: &Choices,
        rolls: &[u16],
    ) -> Vec<Event> {
        let mut dice = Script::new(rolls);
        let events =
            apply(rules, state, combat, role, &codes(list), choices, &mut dice).unwrap_or_else(|e| panic!("{e}"));
        dice.done();
        events
    }

    #[test]
    fn unknown_and_ill_formed_codes_are_refused() {
        let (mut rules, mut state, combat) = battle();
        let start = state.clone();
        let mut dice = Script::new(&[]);
        let cases: [(&[&str], &str); 4] = [
            (&["rout"], "'rout' is not a result code of charts/codes.yaml"),
            (&[], "an empty result"),
            (&["retreat", "step-loss"], "two main results"),
            (&["R"], "'R' is not a result code"),
        ];
        for (list, words) in cases {
            let refused =
                apply(&rules, &mut state, &combat, Role::Defender, &codes(list), &Choices::default(), &mut dice)
                    .unwrap_err()
                    .to_string();
            assert!(refused.contains(words), "{list:?}: {refused}");
        }
        let refused = apply_close_combat(
            &rules,
            &mut state,
            &combat,
            &codes(&["pin"]),
            &Choices::default(),
            &codes(&["retreat"]),
            &Choices::default(),
            &mut dice,
        )
        .unwrap_err()
        .to_string();
        assert!(refused.contains("PIN is in both halves"), "{refused}");
        // A code the module lists but the engine does not know.
        let mut extra = rules.charts.codes.combat_results[0].clone();
        extra.id = "surrender".into();
        extra.symbol = "S".into();
        rules.charts.codes.combat_results.push(extra);
        let refused =
            apply(&rules, &mut state, &combat, Role::Defender, &codes(&["surrender"]), &Choices::default(), &mut dice)
                .unwrap_err()
                .to_string();
        assert!(refused.contains("the engine does not know the result code 'surrender' (S)"), "{refused}");
        assert_eq!(state, start);
    }

    #[test]
    fn the_combat_is_checked() {
        let (rules, mut state, combat) = battle();
        let mut dice = Script::new(&[]);
        let mut c = combat.clone();
        c.attacker.artillery = ids(&["blue-gun"]);
        place(&mut state, "0507", &["blue-gun"]);
        let refused =
            apply(&rules, &mut state, &c, Role::Defender, &codes(&["retreat"]), &Choices::default(), &mut dice)
                .unwrap_err()
                .to_string();
        assert!(refused.contains("the Attacker's artillery is never affected"), "{refused}");
        let mut c = combat.clone();
        c.kind = CombatKind::Fire;
        let refused =
            apply(&rules, &mut state, &c, Role::Defender, &codes(&["retreat"]), &Choices::default(), &mut dice)
                .unwrap_err()
                .to_string();
        assert!(refused.contains("in fire combat other friendly units in the hex are never affected"), "{refused}");
        let mut c = combat.clone();
        c.defender.others = ids(&["red-general"]);
        place(&mut state, "0506", &["red-general"]);
        assert!(apply(&rules, &mut state, &c, Role::Defender, &codes(&["no-effect"]), &Choices::default(), &mut dice)
            .is_err());
        let mut c = combat;
        c.defender.others = ids(&["blue-rifles"]);
        assert!(apply(&rules, &mut state, &c, Role::Defender, &codes(&["no-effect"]), &Choices::default(), &mut dice)
            .is_err());
    }

    #[test]
    fn no_effect() {
        let (rules, mut state, combat) = battle();
        let start = state.clone();
        for role in [Role::Attacker, Role::Defender] {
            let events = apply_one(&rules, &mut state, &combat, role, &["no-effect"], &Choices::default(), &[]);
            assert_eq!(kinds(&events), ["combat-result", "no-effect"]);
            assert_eq!(events[0].fields["symbols"], serde_json::json!(["-"]));
        }
        assert_eq!(state, start);
    }

    /// "AM": the chart's result-army-morale (-2 to the affected army, +1 to the enemy's).
    #[test]
    fn army_morale() {
        let (rules, mut state, combat) = battle();
        apply_one(&rules, &mut state, &combat, Role::Defender, &["army-morale"], &Choices::default(), &[]);
        assert_eq!(morale(&state), (13, 16));
        apply_one(&rules, &mut state, &combat, Role::Attacker, &["army-morale"], &Choices::default(), &[]);
        assert_eq!(morale(&state), (14, 14));
    }

    /// "R" on the Defender: the lead unit retreats; the others and the
    /// Defender's artillery check (pass on 6: militia -1, gun 0).
    #[test]
    fn retreat_on_the_defender() {
        let (rules, mut state, combat) = battle();
        let events = apply_one(&rules, &mut state, &combat, Role::Defender, &["retreat"], &Choices::default(), &[7, 5]);
        assert_eq!(at(&state, "red-guards").as_deref(), Some("0505"));
        assert_eq!(at(&state, "red-militia").as_deref(), Some("0506"), "7 - 1 = 6 passes");
        assert_eq!(at(&state, "red-gun").as_deref(), Some("0505"), "5 + 0 fails: it retreats, next to red-guards");
        assert_eq!(
            kinds(&events),
            ["combat-result", "retreat", "army-morale", "morale-check", "morale-check", "retreat", "army-morale"]
        );
        let checks = all(&events, "morale-check");
        assert_eq!((checks[0].fields["total"].clone(), checks[0].fields["passed"].clone()), (6.into(), true.into()));
        assert_eq!((checks[1].fields["total"].clone(), checks[1].fields["passed"].clone()), (5.into(), false.into()));
        assert_eq!(morale(&state), (13, 15), "unit-retreated twice");
    }

    /// "R" on the Attacker: toward blue's HQ (0814); no artillery.
    #[test]
    fn retreat_on_the_attacker() {
        let (rules, mut state, combat) = battle();
        apply_one(&rules, &mut state, &combat, Role::Attacker, &["retreat"], &Choices::default(), &[0]);
        assert_eq!(at(&state, "blue-foot").as_deref(), Some("0508"));
        assert_eq!(at(&state, "blue-rifles").as_deref(), Some("0508"), "0 fails: with blue-foot, 5 SPs");
    }

    /// "D": Parade Order to disrupted, disrupted to shattered (three hexes
    /// each time), shattered to eliminated.
    #[test]
    fn disrupt() {
        let (rules, mut state) = module();
        place(&mut state, "0506", &["red-guards"]);
        place(&mut state, "0507", &["blue-foot"]);
        let combat = close(&state, side("blue-foot", &[], &[]), side("red-guards", &[], &[]));
        let events = apply_one(&rules, &mut state, &combat, Role::Defender, &["disrupt"], &Choices::default(), &[]);
        assert_eq!(at(&state, "red-guards").as_deref(), Some("0503"));
        assert_eq!(state.units["red-guards"].condition, Condition::Disrupted);
        assert_eq!(kinds(&events), ["combat-result", "retreat", "disrupted", "army-morale"]);
        assert_eq!(morale(&state), (13, 15), "unit-disrupted -2");
        // Disrupted: shattered, three hexes more, unit-shattered (-3, +1) and 3 half VPs.
        place(&mut state, "0504", &["blue-foot"]);
        let combat = close(&state, side("blue-foot", &[], &[]), side("red-guards", &[], &[]));
        let events = apply_one(&rules, &mut state, &combat, Role::Defender, &["disrupt"], &Choices::default(), &[]);
        assert_eq!(state.units["red-guards"].condition, Condition::Shattered);
        assert_eq!(
            kinds(&events),
            ["combat-result", "retreat", "shattered", "army-morale", "army-morale", "victory-points"]
        );
        assert_eq!((morale(&state), vp(&state, "blue")), ((10, 16), 3));
        // Shattered: eliminated where it stands.
        let here = at(&state, "red-guards").unwrap();
        place(&mut state, "0504", &[]);
        let combat = close(&state, side("blue-foot", &[], &[]), side("red-guards", &[], &[]));
        let events = apply_one(&rules, &mut state, &combat, Role::Defender, &["disrupt"], &Choices::default(), &[]);
        assert_eq!(off(&state, "red-guards"), Some(OffMap::Eliminated));
        assert_eq!(kinds(&events)[..3], ["combat-result", "shattered-eliminated", "step-loss"]);
        assert!(!kinds(&events).contains(&"retreat"), "from {here}");
        assert_eq!(vp(&state, "blue"), 6, "one-step-unit-eliminated");
    }

    /// "1": a step, never a retreat; the others check.
    #[test]
    fn step_loss() {
        let (rules, mut state) = module();
        place(&mut state, "0506", &["red-foot", "red-militia"]);
        place(&mut state, "0507", &["blue-foot"]);
        let combat = close(&state, side("blue-foot", &[], &[]), side("red-foot", &["red-militia"], &[]));
        let events = apply_one(&rules, &mut state, &combat, Role::Defender, &["step-loss"], &Choices::default(), &[9]);
        assert_eq!((state.units["red-foot"].steps, at(&state, "red-foot").as_deref()), (1, Some("0506")));
        assert_eq!(kinds(&events)[..2], ["combat-result", "step-loss"]);
        assert_eq!(one(&events, "step-loss").rule, "13.1");
        assert_eq!(at(&state, "red-militia").as_deref(), Some("0506"));
        // The attacker's lead unit, one step: eliminated.
        apply_one(&rules, &mut state, &combat, Role::Attacker, &["step-loss"], &Choices::default(), &[]);
        assert_eq!(off(&state, "blue-foot"), Some(OffMap::Eliminated));
    }

    /// "2": a full-strength two-step unit is eliminated at once; a one-step
    /// unit, and a second unit of the hex loses a step.
    #[test]
    fn two_step_loss() {
        let setup = || {
            let (rules, mut state) = module();
            place(&mut state, "0506", &["red-guards", "red-foot", "red-militia"]);
            place(&mut state, "0507", &["blue-foot"]);
            state.units.get_mut("red-foot").unwrap().steps = 1; // 2 SPs: 3 + 2 + 2 within the limit
            state.units.get_mut("red-elite").unwrap().steps = 2;
            (rules, state)
        };
        // A two-step unit at full strength.
        let (rules, mut state) = module();
        place(&mut state, "0506", &["red-elite", "red-militia"]);
        place(&mut state, "0507", &["blue-foot"]);
        let combat = close(&state, side("blue-foot", &[], &[]), side("red-elite", &["red-militia"], &[]));
        let events =
            apply_one(&rules, &mut state, &combat, Role::Defender, &["two-step-loss"], &Choices::default(), &[8]);
        assert_eq!(off(&state, "red-elite"), Some(OffMap::Eliminated));
        assert_eq!(state.units["red-militia"].steps, 1, "no second step");
        assert!(!kinds(&events).contains(&"second-step"));
        assert_eq!(vp(&state, "blue"), 6, "two-step-unit-eliminated");
        // A one-step unit: the second step by default from the most steps left.
        let (rules, mut state) = setup();
        state.units.get_mut("red-foot").unwrap().steps = 2;
        place(&mut state, "0506", &["red-militia"]);
        state.units.get_mut("red-militia").unwrap().hex = Some("0506".into());
        let combat = close(&state, side("blue-foot", &[], &[]), side("red-guards", &["red-foot", "red-militia"], &[]));
        let events =
            apply_one(&rules, &mut state, &combat, Role::Defender, &["two-step-loss"], &Choices::default(), &[9, 9]);
        assert_eq!(off(&state, "red-guards"), Some(OffMap::Eliminated));
        assert_eq!(state.units["red-foot"].steps, 1);
        let second = one(&events, "second-step");
        assert_eq!((second.fields["unit"].clone(), second.fields["by"].clone()), ("red-foot".into(), "default".into()));
        assert!(second.text.contains("the default: the most steps left"));
        // The owner's choice.
        let (rules, mut state) = setup();
        let combat = close(&state, side("blue-foot", &[], &[]), side("red-guards", &["red-foot", "red-militia"], &[]));
        let choices = Choices { second_step: Some("red-militia".into()), ..Choices::default() };
        apply_one(&rules, &mut state, &combat, Role::Defender, &["two-step-loss"], &choices, &[9]);
        assert_eq!(off(&state, "red-militia"), Some(OffMap::Eliminated));
        assert_eq!(state.units["red-foot"].steps, 1);
        // A choice not in the hex is refused.
        let (rules, mut state) = setup();
        let choices = Choices { second_step: Some("red-horse".into()), ..Choices::default() };
        let mut dice = Script::new(&[]);
        let refused =
            apply(&rules, &mut state, &combat, Role::Defender, &codes(&["two-step-loss"]), &choices, &mut dice)
                .unwrap_err()
                .to_string();
        assert!(refused.contains("the side's other units in the hex: red-foot, red-militia"), "{refused}");
        // No other unit: ignored. In fire combat: ignored.
        let (rules, mut state) = module();
        place(&mut state, "0506", &["red-guards"]);
        place(&mut state, "0507", &["blue-foot"]);
        let combat = close(&state, side("blue-foot", &[], &[]), side("red-guards", &[], &[]));
        let events =
            apply_one(&rules, &mut state, &combat, Role::Defender, &["two-step-loss"], &Choices::default(), &[]);
        assert_eq!(one(&events, "second-step-ignored").rule, "13.1");
        let (rules, mut state) = module();
        place(&mut state, "0506", &["red-guards", "red-foot"]);
        place(&mut state, "0507", &["blue-foot"]);
        let mut combat = close(&state, side("blue-foot", &[], &[]), side("red-guards", &[], &[]));
        combat.kind = CombatKind::Fire;
        let events =
            apply_one(&rules, &mut state, &combat, Role::Defender, &["two-step-loss"], &Choices::default(), &[]);
        assert_eq!(one(&events, "second-step-ignored").rule, "13");
        assert_eq!(state.units["red-foot"].steps, 2);
    }

    /// "DC" on the Defender: its own choice (by default its lowest morale);
    /// the others pass and retreat, or fail and suffer "D".
    #[test]
    fn captured_defenders_choice() {
        let (rules, mut state, combat) = battle();
        let events =
            apply_one(&rules, &mut state, &combat, Role::Defender, &["captured-dc"], &Choices::default(), &[9, 0]);
        assert_eq!(off(&state, "red-militia"), Some(OffMap::Captured), "morale -1, the lowest");
        let pick = one(&events, "capture-choice");
        assert_eq!((pick.fields["chooser"].clone(), pick.fields["by"].clone()), ("defender".into(), "default".into()));
        assert!(pick.text.contains("choosing among its own units: the lowest morale showing"), "{}", pick.text);
        // red-guards passes (9 + 1): one hex; red-gun fails (0): "D", three hexes and disrupted.
        assert_eq!(at(&state, "red-guards").as_deref(), Some("0505"));
        assert_eq!(
            (at(&state, "red-gun").as_deref(), state.units["red-gun"].condition),
            (Some("0503"), Condition::Disrupted)
        );
        // unit-captured -4/+2, unit-retreated -1, unit-disrupted -2; 7 half VPs.
        assert_eq!((morale(&state), vp(&state, "blue")), ((8, 17), 7));
    }

    /// "AC" on the Defender: the Attacker's choice (by default the highest morale).
    #[test]
    fn captured_attackers_choice() {
        let (rules, mut state, combat) = battle();
        let events =
            apply_one(&rules, &mut state, &combat, Role::Defender, &["captured-ac"], &Choices::default(), &[9, 9]);
        assert_eq!(off(&state, "red-guards"), Some(OffMap::Captured), "morale +1, the highest");
        assert!(one(&events, "capture-choice").text.contains("the attacker choosing among the enemy's units"));
        // A choice.
        let (rules, mut state, combat) = battle();
        let choices = Choices { captured: Some("red-gun".into()), ..Choices::default() };
        apply_one(&rules, &mut state, &combat, Role::Defender, &["captured-ac"], &choices, &[9, 9]);
        assert_eq!(off(&state, "red-gun"), Some(OffMap::Captured));
        // "DC" on the Attacker: the Defender chooses among the Attacker's units.
        let (rules, mut state, combat) = battle();
        let events =
            apply_one(&rules, &mut state, &combat, Role::Attacker, &["captured-dc"], &Choices::default(), &[9]);
        assert_eq!(off(&state, "blue-rifles"), Some(OffMap::Captured), "morale 0 against -1");
        assert_eq!(one(&events, "capture-choice").fields["chooser"], "defender");
        // A unit not of the side is refused.
        let (rules, mut state, combat) = battle();
        let choices = Choices { captured: Some("blue-foot".into()), ..Choices::default() };
        let mut dice = Script::new(&[]);
        let refused = apply(&rules, &mut state, &combat, Role::Defender, &codes(&["captured-dc"]), &choices, &mut dice)
            .unwrap_err()
            .to_string();
        assert!(refused.contains("among: red-guards, red-militia, red-gun"), "{refused}");
    }

    /// "D", "2" and "AC" on the Attacker (no artillery of the Attacker is ever affected).
    #[test]
    fn the_attackers_results() {
        let (rules, mut state, combat) = battle();
        let events = apply_one(&rules, &mut state, &combat, Role::Attacker, &["disrupt"], &Choices::default(), &[9]);
        let b = &state.units["blue-foot"];
        assert_eq!(b.condition, Condition::Disrupted);
        assert_eq!(
            crate::base::hex::distance(
                "0507".parse().unwrap(),
                b.hex.as_deref().unwrap().parse().unwrap(),
                rules.module.map.layout
            ),
            3
        );
        assert_eq!(one(&events, "retreat").fields["hexes"], 3);
        assert_eq!(at(&state, "blue-rifles").as_deref(), Some("0507"), "9 passes");
        // "2": blue-foot (one step) eliminated, blue-rifles takes the second step.
        let (rules, mut state, combat) = battle();
        let events =
            apply_one(&rules, &mut state, &combat, Role::Attacker, &["two-step-loss"], &Choices::default(), &[]);
        assert_eq!(
            (off(&state, "blue-foot"), off(&state, "blue-rifles")),
            (Some(OffMap::Eliminated), Some(OffMap::Eliminated))
        );
        assert_eq!(one(&events, "second-step").fields["unit"], "blue-rifles");
        // "AC" on the Attacker: its own choice, by default the lowest morale (blue-foot, -1).
        let (rules, mut state, combat) = battle();
        let events =
            apply_one(&rules, &mut state, &combat, Role::Attacker, &["captured-ac"], &Choices::default(), &[9]);
        assert_eq!(off(&state, "blue-foot"), Some(OffMap::Captured));
        assert_eq!(one(&events, "capture-choice").fields["chooser"], "attacker");
        assert_eq!(at(&state, "blue-rifles").as_deref(), Some("0508"), "passed: one hex toward blue's HQ");
        assert_eq!((vp(&state, "red"), state.army_morale["green"]), (7, 15));
    }

    /// 12.64: a unit of the module's printed morale (+3 here) captured at
    /// full strength; 12.65 with an empty pool.
    #[test]
    fn momentum_for_a_capture() {
        let setup = |steps: u8, red: u32, blue: u32| {
            let (rules, mut state) = module();
            place(&mut state, "0506", &["red-elite"]);
            place(&mut state, "0507", &["blue-foot"]);
            state.units.get_mut("red-elite").unwrap().steps = steps;
            state.momentum.insert("red".into(), red);
            state.momentum.insert("blue".into(), blue);
            let combat = close(&state, side("blue-foot", &[], &[]), side("red-elite", &[], &[]));
            (rules, state, combat)
        };
        // Red holds one: it goes back to the pool.
        let (rules, mut state, combat) = setup(2, 1, 0);
        let events = apply_one(&rules, &mut state, &combat, Role::Defender, &["captured-dc"], &Choices::default(), &[]);
        assert_eq!((state.momentum["red"], state.momentum["blue"]), (0, 0));
        let m = one(&events, "momentum");
        assert_eq!((m.rule.as_str(), &m.fields["outcome"]), ("series 12.64", &"returned".into()));
        // Red holds none: blue takes one from the pool (3 chits, none held).
        let (rules, mut state, combat) = setup(2, 0, 0);
        apply_one(&rules, &mut state, &combat, Role::Defender, &["captured-dc"], &Choices::default(), &[]);
        assert_eq!((state.momentum["red"], state.momentum["blue"]), (0, 1));
        // 12.65: the pool is empty (blue holds all 3): no further effect.
        let (rules, mut state, combat) = setup(2, 0, 3);
        let events = apply_one(&rules, &mut state, &combat, Role::Defender, &["captured-dc"], &Choices::default(), &[]);
        assert_eq!((state.momentum["red"], state.momentum["blue"]), (0, 3));
        assert!(one(&events, "momentum").text.contains("(12.65)"));
        // Reduced: no chit.
        let (rules, mut state, combat) = setup(1, 1, 0);
        let events = apply_one(&rules, &mut state, &combat, Role::Defender, &["captured-dc"], &Choices::default(), &[]);
        assert!(!kinds(&events).contains(&"momentum"));
        assert_eq!(state.momentum["red"], 1);
    }

    /// "PIN": disrupted and shattered units of both sides captured, the
    /// Defender's first; every unit in the hexes pinned with the combat's id.
    #[test]
    fn pin() {
        let (rules, mut state, combat) = battle();
        place(&mut state, "0506", &["red-general"]);
        state.units.get_mut("red-militia").unwrap().condition = Condition::Disrupted;
        state.units.get_mut("blue-rifles").unwrap().condition = Condition::Shattered;
        let mut dice = Script::new(&[]);
        let events = apply_close_combat(
            &rules,
            &mut state,
            &combat,
            &codes(&["pin"]),
            &Choices::default(),
            &codes(&["pin"]),
            &Choices::default(),
            &mut dice,
        )
        .unwrap();
        let captures: Vec<&serde_json::Value> = all(&events, "pin-capture").iter().map(|e| &e.fields["unit"]).collect();
        assert_eq!(captures, ["red-militia", "blue-rifles"]);
        assert_eq!(
            (off(&state, "red-militia"), off(&state, "blue-rifles")),
            (Some(OffMap::Captured), Some(OffMap::Captured))
        );
        for id in ["red-guards", "red-gun", "red-general", "blue-foot"] {
            let u = &state.units[id];
            assert!(u.pinned && u.pin_result.as_deref() == Some("cc-1"), "{id}");
        }
        assert!(!state.units["red-militia"].pinned);
        assert_eq!(kinds(&events).last(), Some(&"pinned"));
        assert_eq!(vp(&state, "blue"), 7);
        assert_eq!(vp(&state, "red"), 7);
    }

    /// "*": one leader of the side; the Leader Casualty Table's values.
    #[test]
    fn leader_casualty() {
        let (rules, mut state, combat) = battle();
        place(&mut state, "0506", &["red-general", "red-colonel"]);
        // By default the colonel (3 half VPs against the general's 5).
        let events = apply_one(
            &rules,
            &mut state,
            &combat,
            Role::Defender,
            &["army-morale", "leader-casualty"],
            &Choices::default(),
            &[],
        );
        assert_eq!(off(&state, "red-colonel"), Some(OffMap::Eliminated));
        let e = one(&events, "leader-casualty");
        assert_eq!((e.fields["class"].clone(), e.fields["by"].clone()), ("officer".into(), "default".into()));
        // -4 (officer) then -2 (AM); +1 to blue for the AM; 3 half VPs to blue.
        assert_eq!((morale(&state), vp(&state, "blue")), ((9, 16), 3));
        assert_eq!(kinds(&events)[1], "leader-casualty", "\"*\" first");
        // The general, chosen: -2, 5 half VPs, and two chits (red holds one; blue takes the other).
        let choices = Choices { leader: Some("red-general".into()), ..Choices::default() };
        let events =
            apply_one(&rules, &mut state, &combat, Role::Defender, &["retreat", "leader-casualty"], &choices, &[9, 9]);
        assert_eq!(off(&state, "red-general"), Some(OffMap::Eliminated));
        assert_eq!(vp(&state, "blue"), 8);
        let chits: Vec<&serde_json::Value> = all(&events, "momentum").iter().map(|e| &e.fields["outcome"]).collect();
        assert_eq!(chits, ["returned", "taken-by-opponent"]);
        assert_eq!((state.momentum["red"], state.momentum["blue"]), (0, 1));
        // No leader: ignored.
        let events = apply_one(
            &rules,
            &mut state,
            &combat,
            Role::Attacker,
            &["no-effect", "leader-casualty"],
            &Choices::default(),
            &[],
        );
        assert_eq!(kinds(&events), ["combat-result", "leader-casualty-ignored"]);
        // A leader not there is refused.
        let (rules, mut state, combat) = battle();
        place(&mut state, "0506", &["red-general"]);
        let choices = Choices { leader: Some("red-colonel".into()), ..Choices::default() };
        let mut dice = Script::new(&[]);
        let refused = apply(
            &rules,
            &mut state,
            &combat,
            Role::Defender,
            &codes(&["army-morale", "leader-casualty"]),
            &choices,
            &mut dice,
        )
        .unwrap_err()
        .to_string();
        assert!(refused.contains("the leaders there: red-general"), "{refused}");
        // Fire combat: the target's hex only.
        let (rules, mut state) = module();
        place(&mut state, "0506", &["red-guards"]);
        place(&mut state, "0505", &["red-foot", "red-general"]);
        place(&mut state, "0508", &["blue-gun"]);
        let mut combat = close(&state, side("blue-gun", &[], &[]), side("red-guards", &[], &[]));
        combat.kind = CombatKind::Fire;
        let events = apply_one(
            &rules,
            &mut state,
            &combat,
            Role::Defender,
            &["no-effect", "leader-casualty"],
            &Choices::default(),
            &[],
        );
        assert_eq!(kinds(&events), ["combat-result", "leader-casualty-ignored"]);
    }

    /// 13.5: roll + printed morale + the level's modifier + leadership (the
    /// leader in command: the general, senior to the colonel) >= 6.
    #[test]
    fn morale_check_arithmetic() {
        let (rules, mut state) = module();
        place(&mut state, "0506", &["red-militia", "red-general", "red-colonel"]);
        let at_start = state.army_morale.clone();
        let check = MoraleCheck { why: "test", morale_at_start: &at_start, attacked_from: &[], trigger: None };
        let mut dice = Script::new(&[5, 6]);
        let (passed, e) = morale_check(&rules, &mut state, "red-militia", &check, &mut dice).unwrap();
        assert!(!passed);
        assert_eq!(e.fields["total"], 5, "5 - 1 + 0 + 1");
        assert_eq!(e.fields["drms"], serde_json::json!({"leadership (Red General)": 1}));
        let (passed, _) = morale_check(&rules, &mut state, "red-militia", &check, &mut dice).unwrap();
        assert!(passed);
        dice.done();
        assert_eq!(dice.purposes[0], "morale check (13.5), Red Militia in 0506");
    }

    /// 16.24: the level at the start of the combat, not the one now.
    #[test]
    fn the_army_morale_level_at_the_start_of_the_combat() {
        let (rules, mut state) = module();
        place(&mut state, "0506", &["red-guards"]);
        state.army_morale.insert("red".into(), 8); // shaken, -1
        let at_start: BTreeMap<String, i32> = [("red".to_string(), 15)].into_iter().collect();
        let check = MoraleCheck { why: "test", morale_at_start: &at_start, attacked_from: &[], trigger: None };
        let mut dice = Script::new(&[5, 5]);
        let (passed, e) = morale_check(&rules, &mut state, "red-guards", &check, &mut dice).unwrap();
        assert!(passed, "5 + 1 + 0: steady at the start");
        assert_eq!(e.fields["army_morale_modifier"], 0);
        assert!(e.text.contains("16.24: army morale 15 at the start of the combat, 8 now"), "{}", e.text);
        assert_eq!(state.army_morale["red"], 8, "the state keeps its morale");
        let wavering: BTreeMap<String, i32> = [("red".to_string(), 3)].into_iter().collect();
        let check = MoraleCheck { morale_at_start: &wavering, ..check };
        let (passed, e) = morale_check(&rules, &mut state, "red-guards", &check, &mut dice).unwrap();
        assert!(!passed);
        assert_eq!(e.fields["army_morale_modifier"], -3);
        let none = BTreeMap::new();
        let check = MoraleCheck { morale_at_start: &none, ..check };
        let refused = morale_check(&rules, &mut state, "red-guards", &check, &mut dice).unwrap_err();
        assert!(refused.to_string().contains("16.24"));
        // Through a result: AM takes red from 10 (steady) to 8 (shaken); the check uses 10.
        let (rules, mut state, _) = battle();
        state.army_morale.insert("red".into(), 10);
        let combat =
            close(&state, side("blue-foot", &["blue-rifles"], &[]), side("red-guards", &["red-militia"], &["red-gun"]));
        let events = apply_one(
            &rules,
            &mut state,
            &combat,
            Role::Defender,
            &["army-morale", "retreat"],
            &Choices::default(),
            &[7, 6],
        );
        let checks = all(&events, "morale-check");
        assert_eq!(checks[0].fields["army_morale_modifier"], 0);
        assert_eq!(checks[0].fields["army_morale_at_start"], 10);
        assert_eq!(checks[0].fields["passed"], true);
    }

    /// 13.5: +3 (the test chart) defending solely across unbreached fieldworks.
    #[test]
    fn fieldworks_in_defence() {
        let (rules, mut state) = module();
        place(&mut state, "1104", &["red-militia"]);
        let at_start = state.army_morale.clone();
        let hexes = |l: &[&str]| -> Vec<HexId> { l.iter().map(|h| h.parse().unwrap()).collect() };
        let cases: [(&[&str], i32); 4] = [(&["1204"], 3), (&["1204", "1203"], 3), (&["1204", "1105"], 0), (&[], 0)];
        for (from, bonus) in cases {
            let from = hexes(from);
            let check = MoraleCheck { why: "test", morale_at_start: &at_start, attacked_from: &from, trigger: None };
            let mut dice = Script::new(&[5]);
            let (_, e) = morale_check(&rules, &mut state, "red-militia", &check, &mut dice).unwrap();
            assert_eq!(e.fields["total"], 4 + bonus, "{from:?}");
        }
        // Through a close combat result: the Defender's check, not the Attacker's.
        place(&mut state, "1104", &["red-guards"]);
        place(&mut state, "1204", &["blue-foot", "blue-rifles"]);
        let combat = close(&state, side("blue-foot", &["blue-rifles"], &[]), side("red-guards", &["red-militia"], &[]));
        let events = apply_one(&rules, &mut state, &combat, Role::Defender, &["retreat"], &Choices::default(), &[4]);
        assert_eq!(one(&events, "morale-check").fields["drms"], serde_json::json!({"defending across fieldworks": 3}));
        assert_eq!(at(&state, "red-militia").as_deref(), Some("1104"), "4 - 1 + 3 passes");
        assert_eq!(at(&state, "red-guards").as_deref(), Some("1003"));
        let events = apply_one(&rules, &mut state, &combat, Role::Attacker, &["retreat"], &Choices::default(), &[9]);
        assert_eq!(one(&events, "morale-check").fields["drms"], serde_json::json!({}));
    }

    #[test]
    fn an_unknown_modifier_is_refused() {
        let (mut rules, mut state) = module();
        place(&mut state, "0506", &["red-guards"]);
        let mut m = rules.charts.morale_check.modifiers[0].clone();
        m.id = "moonlight".into();
        rules.charts.morale_check.modifiers.push(m);
        let at_start = state.army_morale.clone();
        let check = MoraleCheck { why: "test", morale_at_start: &at_start, attacked_from: &[], trigger: None };
        let refused = morale_check(&rules, &mut state, "red-guards", &check, &mut Script::new(&[5])).unwrap_err();
        assert!(refused.to_string().contains("'moonlight'"), "{refused}");
    }

    /// Savannah 4.19: a destroyed city hex (-2 here) and a breach; a failure retreats one hex.
    #[test]
    fn triggered_checks() {
        let (rules, mut state) = module();
        place(&mut state, "1307", &["red-guards", "red-general"]);
        place(&mut state, "1104", &["red-militia"]);
        let at_start = state.army_morale.clone();
        let mut dice = Script::new(&[6]);
        let h = |s: &str| -> HexId { s.parse().unwrap() };
        let events = triggered_check(
            &rules,
            &mut state,
            "city-hex-destroyed",
            &[h("1307")],
            "blue",
            &at_start,
            &BTreeMap::new(),
            &mut dice,
        )
        .unwrap();
        dice.done();
        let check = one(&events, "morale-check");
        assert_eq!(check.fields["drms"], serde_json::json!({"city-hex-destroyed": -2, "leadership (Red General)": 1}));
        assert_eq!(check.fields["total"], 6, "6 + 1 - 2 + 1");
        assert_eq!(at(&state, "red-guards").as_deref(), Some("1307"));
        let mut dice = Script::new(&[2]);
        let events = triggered_check(
            &rules,
            &mut state,
            "fieldwork-breached",
            &[h("1104")],
            "blue",
            &at_start,
            &BTreeMap::new(),
            &mut dice,
        )
        .unwrap();
        assert_eq!(one(&events, "morale-check").fields["drms"], serde_json::json!({}), "no city modifier");
        let r = one(&events, "retreat");
        assert_eq!(r.rule, "Savannah 4.19");
        assert_ne!(at(&state, "red-militia").as_deref(), Some("1104"));
        assert!(!kinds(&events).contains(&"army-morale"));
        let refused = triggered_check(
            &rules,
            &mut state,
            "earthquake",
            &[h("1104")],
            "blue",
            &at_start,
            &BTreeMap::new(),
            &mut Script::new(&[]),
        )
        .unwrap_err();
        assert!(refused.to_string().contains("'earthquake' is not one of its triggered_checks"));
    }

    /// 12.23 step 7, 13.1: both retreat; the Defender first.
    #[test]
    fn the_defender_retreats_first() {
        let (rules, mut state, combat) = battle();
        let mut dice = Script::new(&[9, 9, 9]);
        let events = apply_close_combat(
            &rules,
            &mut state,
            &combat,
            &codes(&["retreat"]),
            &Choices::default(),
            &codes(&["retreat"]),
            &Choices::default(),
            &mut dice,
        )
        .unwrap();
        dice.done();
        let retreats: Vec<&serde_json::Value> = all(&events, "retreat").iter().map(|e| &e.fields["unit"]).collect();
        assert_eq!(retreats, ["red-guards", "blue-foot"]);
        let sides: Vec<&serde_json::Value> = all(&events, "combat-result").iter().map(|e| &e.fields["side"]).collect();
        assert_eq!(sides, ["defender", "attacker"]);
        // Choices go with their side: blue's lead unit retreats where blue says.
        let (rules, mut state, combat) = battle();
        let mut blue = Choices::default();
        blue.retreats
            .insert("blue-foot".into(), RetreatChoice { path: vec!["0607".into()], ..RetreatChoice::default() });
        let mut dice = Script::new(&[9, 9, 9]);
        apply_close_combat(
            &rules,
            &mut state,
            &combat,
            &codes(&["retreat"]),
            &blue,
            &codes(&["retreat"]),
            &Choices::default(),
            &mut dice,
        )
        .unwrap();
        assert_eq!(at(&state, "blue-foot").as_deref(), Some("0607"));
        // A bad choice refuses the whole result, nothing changed.
        let (rules, mut state, combat) = battle();
        let start = state.clone();
        let mut bad = Choices::default();
        bad.retreats
            .insert("red-guards".into(), RetreatChoice { path: vec!["0606".into()], ..RetreatChoice::default() });
        let mut dice = Script::new(&[9, 9, 9]);
        let refused = apply_close_combat(
            &rules,
            &mut state,
            &combat,
            &codes(&["retreat"]),
            &Choices::default(),
            &codes(&["retreat"]),
            &bad,
            &mut dice,
        )
        .unwrap_err();
        assert!(refused.to_string().contains("0606 is in the ZOC of blue-foot"), "{refused}");
        assert_eq!(state, start);
    }

    /// 13.25: a unit that retreated into the hex checks after any result:
    /// a pass retreats one hex, a failure suffers "D".
    #[test]
    fn previously_retreated_units() {
        let setup = || {
            let (rules, mut state) = module();
            place(&mut state, "0506", &["red-guards", "red-horse"]);
            place(&mut state, "0507", &["blue-foot"]);
            let mut combat = close(&state, side("blue-foot", &[], &[]), side("red-guards", &[], &[]));
            combat.defender.previously_retreated = ids(&["red-horse"]);
            (rules, state, combat)
        };
        let (rules, mut state, combat) = setup();
        apply_one(&rules, &mut state, &combat, Role::Defender, &["army-morale"], &Choices::default(), &[9]);
        assert_eq!(at(&state, "red-horse").as_deref(), Some("0505"));
        assert_eq!(state.units["red-horse"].condition, Condition::ParadeOrder);
        let (rules, mut state, combat) = setup();
        apply_one(&rules, &mut state, &combat, Role::Defender, &["step-loss"], &Choices::default(), &[1]);
        assert_eq!(at(&state, "red-horse").as_deref(), Some("0503"));
        assert_eq!(state.units["red-horse"].condition, Condition::Disrupted);
        // "-": nothing.
        let (rules, mut state, combat) = setup();
        apply_one(&rules, &mut state, &combat, Role::Defender, &["no-effect"], &Choices::default(), &[]);
        assert_eq!(at(&state, "red-horse").as_deref(), Some("0506"));
    }

    /// Savannah 4.9 through a close combat result; a normal retreat in fire combat.
    #[test]
    fn lost_units() {
        let (rules, mut state) = module();
        place(&mut state, "0506", &["red-guards"]);
        place(&mut state, "0507", &["blue-foot"]);
        state.units.get_mut("red-guards").unwrap().lost = true;
        let combat = close(&state, side("blue-foot", &[], &[]), side("red-guards", &[], &[]));
        let events = apply_one(&rules, &mut state, &combat, Role::Defender, &["disrupt"], &Choices::default(), &[]);
        let u = &state.units["red-guards"];
        assert_eq!((u.hex.as_deref(), u.pinned, u.condition), (Some("0506"), true, Condition::Disrupted));
        assert_eq!(u.pin_result.as_deref(), Some("cc-1"));
        assert_eq!(kinds(&events)[1], "pinned-instead");
        let mut fire = combat.clone();
        fire.kind = CombatKind::Fire;
        apply_one(&rules, &mut state, &fire, Role::Defender, &["retreat"], &Choices::default(), &[]);
        assert_eq!(at(&state, "red-guards").as_deref(), Some("0505"));
    }

    /// 13.3, 13.4 at the end of red's Close Combat Phase.
    #[test]
    fn the_end_of_the_close_combat_phase() {
        let (rules, mut state) = module();
        let set = |state: &mut State, id: &str, c: Condition| state.units.get_mut(id).unwrap().condition = c;
        // 13.3: red's disrupted unit next to blue: shattered, three hexes.
        place(&mut state, "0506", &["red-guards"]);
        place(&mut state, "0507", &["blue-foot"]);
        set(&mut state, "red-guards", Condition::Disrupted);
        // 13.4: shattered units of either side next to the enemy: captured.
        place(&mut state, "0909", &["red-militia"]);
        set(&mut state, "red-militia", Condition::Shattered);
        place(&mut state, "0910", &["blue-horse"]);
        set(&mut state, "blue-horse", Condition::Shattered);
        place(&mut state, "0911", &["red-riflemen"]);
        // Blue's disrupted unit: not its own phase.
        place(&mut state, "0912", &["blue-musket-rifles"]);
        set(&mut state, "blue-musket-rifles", Condition::Disrupted);
        // Stacked with a friendly Parade Order unit: safe.
        place(&mut state, "1206", &["red-foot", "red-elite"]);
        set(&mut state, "red-foot", Condition::Disrupted);
        place(&mut state, "1207", &["blue-rifles"]);
        let start_vp = vp(&state, "blue");
        let mut dice = Script::new(&[]);
        let events = end_of_close_combat_phase(&rules, &mut state, "red", &mut dice).unwrap();
        assert_eq!(off(&state, "red-militia"), Some(OffMap::Captured));
        assert_eq!(off(&state, "blue-horse"), Some(OffMap::Captured));
        let g = &state.units["red-guards"];
        assert_eq!((g.hex.as_deref(), g.condition), (Some("0503"), Condition::Shattered));
        assert_eq!(state.units["blue-musket-rifles"].condition, Condition::Disrupted);
        assert_eq!(at(&state, "blue-musket-rifles").as_deref(), Some("0912"));
        assert_eq!(
            (at(&state, "red-foot").as_deref(), state.units["red-foot"].condition),
            (Some("1206"), Condition::Disrupted)
        );
        let safe = one(&events, "stacked-with-parade-order");
        assert_eq!((safe.rule.as_str(), &safe.fields["with"]), ("13.3", &"red-elite".into()));
        let captured: Vec<&serde_json::Value> =
            all(&events, "shattered-captured").iter().map(|e| &e.fields["unit"]).collect();
        assert_eq!(captured, ["blue-horse", "red-militia"]);
        let shattered = one(&events, "shattered");
        assert_eq!(shattered.rule, "13.3");
        // red-militia captured (7) and red-guards shattered (3) score for blue; blue-horse for red.
        assert_eq!((vp(&state, "blue") - start_vp, vp(&state, "red")), (10, 7));
        // 13.3 with no retreat of three hexes: captured.
        let (rules, mut state) = module();
        place(&mut state, "1601", &["red-guards"]);
        place(&mut state, "1501", &["blue-foot"]);
        state.units.get_mut("red-guards").unwrap().condition = Condition::Disrupted;
        let events = end_of_close_combat_phase(&rules, &mut state, "red", &mut Script::new(&[])).unwrap();
        assert_eq!(off(&state, "red-guards"), Some(OffMap::Captured));
        assert_eq!(one(&events, "retreat-impossible").rule, "13.24");
        assert!(end_of_close_combat_phase(&rules, &mut state, "purple", &mut Script::new(&[])).is_err());
    }

    /// counters.yaml `casualty` replaces the capture's entries (Savannah 4.8).
    #[test]
    fn a_capture_with_the_counters_casualty() {
        let (mut rules, mut state) = module();
        place(&mut state, "0506", &["red-guards"]);
        let c = rules.module.counters.iter_mut().find(|c| c.id == "red-guards").unwrap();
        c.casualty = Some(crate::systems::gboar::data::counters::Casualty {
            vp_halves: Some(1),
            army_morale: Some(false),
            source: None,
        });
        let data = Data::load(&rules).unwrap();
        let events = capture(&rules, &data, &mut state, "red-guards", "13.1", "green").unwrap();
        assert_eq!(kinds(&events), ["captured", "victory-points"]);
        assert_eq!((state.army_morale["red"], vp(&state, "green")), (15, 1));
        assert!(capture(&rules, &data, &mut state, "red-foot", "13.1", "green").is_err(), "off the map");
        place(&mut state, "0506", &["red-foot"]);
        assert!(capture(&rules, &data, &mut state, "red-foot", "13.1", "red").is_err(), "not an enemy");
    }
}
