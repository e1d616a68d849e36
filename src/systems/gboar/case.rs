//! Conformance cases: rule behaviour as data (docs/conformance-cases.md).
//! A case names a module (usually a small test module of its own, so that
//! the Savannah stand-in charts can be replaced without changing a case), a
//! scenario, changes to its set-up state, the step, the orders, the scripted
//! dice and what must happen.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::base::dice::Die;
use crate::base::error::{Error, Result};
use crate::system::Dice;
use crate::systems::gboar::board::refusals::Code;
use crate::systems::gboar::board::state::{Condition, State};
use crate::systems::gboar::board::Rules;
use crate::systems::gboar::data::sequence::Step;
use crate::systems::gboar::data::Source;
use crate::systems::gboar::phases::resolve;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub name: String,
    /// The rule numbers the case shows, e.g. ["15.1", "14.23"].
    pub rules: Vec<String>,
    #[serde(default)]
    pub note: Option<String>,
    /// A module folder relative to the case file, or an embedded module's id.
    pub module: String,
    pub scenario: String,
    /// Changes to the scenario's set-up.
    #[serde(default)]
    pub state: StatePatch,
    /// A case of one step: the step, its orders, dice and expectations.
    #[serde(default)]
    pub step: Option<Step>,
    /// Each side's orders for the step.
    #[serde(default)]
    pub orders: BTreeMap<String, crate::base::yaml::Value>,
    /// The values the dice give, in the order the engine rolls them.
    #[serde(default)]
    pub dice: Vec<u16>,
    #[serde(default)]
    pub expect: Option<Expect>,
    /// A case of several steps in a row, each resolved on the state the one
    /// before left (instead of `step`, `orders`, `dice` and `expect`).
    #[serde(default)]
    pub steps: Vec<CaseStep>,
}

/// One step of a case of several: its `step` may be left out after the
/// first, to mean the step the game moves on to.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaseStep {
    #[serde(default)]
    pub step: Option<Step>,
    #[serde(default)]
    pub orders: BTreeMap<String, crate::base::yaml::Value>,
    #[serde(default)]
    pub dice: Vec<u16>,
    pub expect: Expect,
}

impl Case {
    /// The steps of the case, whichever form it is written in.
    fn step_list(&self) -> std::result::Result<Vec<CaseStep>, String> {
        match (&self.step, &self.expect, self.steps.is_empty()) {
            (Some(step), Some(expect), true) => Ok(vec![CaseStep {
                step: Some(step.clone()),
                orders: self.orders.clone(),
                dice: self.dice.clone(),
                expect: expect.clone(),
            }]),
            (None, None, false) if self.orders.is_empty() && self.dice.is_empty() => {
                if self.steps[0].step.is_none() {
                    return Err("steps[0]: the first step names its `step`".into());
                }
                Ok(self.steps.clone())
            }
            _ => Err("a case has either `step`, `orders`, `dice` and `expect`, or a list of `steps` each with \
                      its own (docs/conformance-cases.md)"
                .into()),
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StatePatch {
    #[serde(default)]
    pub turn: Option<u32>,
    #[serde(default)]
    pub units: BTreeMap<String, UnitPatch>,
    /// Units taken off the map for the case.
    #[serde(default)]
    pub remove: Vec<String>,
    #[serde(default)]
    pub army_morale: BTreeMap<String, i32>,
    #[serde(default)]
    pub momentum: BTreeMap<String, u32>,
    #[serde(default)]
    pub vp_halves: BTreeMap<String, i32>,
    /// Who had the initiative last turn (12.62: decides first on momentum).
    #[serde(default)]
    pub initiative_holder: Option<String>,
    /// This turn's weather (a condition id of the module's weather chart).
    #[serde(default)]
    pub weather: Option<String>,
    /// Savannah 1.6 case A: the assault is declared.
    #[serde(default)]
    pub assault_declared: Option<bool>,
    /// Savannah 1.6, 4.14: the last turn played on the Strategic Turn Track.
    #[serde(default)]
    pub strategic_turn_last: Option<u32>,
    /// Savannah 4.3: each player's hand of Random Events cards, by card id
    /// (taken from the deck).
    #[serde(default)]
    pub cards: BTreeMap<String, Vec<String>>,
    /// Savannah 4.3: lasting effects of cards played earlier (a DRM still
    /// to apply, a phase skipped), as the state keeps them.
    #[serde(default)]
    pub card_effects: Vec<crate::systems::gboar::board::state::CardEffect>,
    /// This turn's order of player turns (series 5, 6), for a step of a
    /// turn whose order is not the set-up's.
    #[serde(default)]
    pub player_order: Option<Vec<String>>,
    /// Savannah 4.4, 4.5: the French siege works on the map.
    #[serde(default)]
    pub siege_works: Option<Vec<crate::systems::gboar::board::state::SiegeWork>>,
    /// Savannah 4.5: breached fieldwork hexsides (`1805/1806`).
    #[serde(default)]
    pub breaches: Option<Vec<String>>,
    /// Savannah 2.1, 4.19: destroyed city hexes.
    #[serde(default)]
    pub destroyed_hexes: Option<Vec<String>>,
    /// Savannah 4.6: the French have rolled on the S&B table before.
    #[serde(default)]
    pub bombardment_begun: Option<bool>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnitPatch {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hex: Option<crate::base::hex::HexId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<Condition>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pinned: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pin_result: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lost: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previously_lost: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub covered_way_hexes: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub released: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub must_return: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cavalry_withdrawn: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_fire_used: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mortar_moved_turn: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sortie_with: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub been_inside: Option<bool>,
    /// A reinforcement's arrival (series 9.6); compared whole when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arriving: Option<crate::systems::gboar::board::state::Arrival>,
    /// Off the map: reinforcement, captured or eliminated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub off_map: Option<crate::systems::gboar::board::state::OffMap>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// The events, in order; each matches on kind, rule and the fields given.
    #[serde(default)]
    pub events: Vec<ExpectedEvent>,
    /// The events listed are the first ones; more may follow.
    #[serde(default)]
    pub more_events: bool,
    /// Events that must not happen: none of the step's events may match one.
    #[serde(default)]
    pub no_events: Vec<ExpectedEvent>,
    /// Units after the step (only the fields given are compared).
    #[serde(default)]
    pub units: BTreeMap<String, UnitPatch>,
    /// What units must not be after the step: each field given must differ
    /// (a unit not in a hex, not pinned).
    #[serde(default)]
    pub units_not: BTreeMap<String, UnitPatch>,
    #[serde(default)]
    pub army_morale: BTreeMap<String, i32>,
    #[serde(default)]
    pub momentum: BTreeMap<String, u32>,
    /// Savannah 4.3: each player's hand after the step (the players given).
    #[serde(default)]
    pub cards: BTreeMap<String, Vec<String>>,
    /// Savannah 4.3: the cards whose lasting effects remain after the step,
    /// by card id in the state's order (`[]`: none).
    #[serde(default)]
    pub card_effects: Option<Vec<String>>,
    /// This turn's order of player turns after the step.
    #[serde(default)]
    pub player_order: Option<Vec<String>>,
    /// Savannah 4.4, 4.5: the siege works after the step, whole.
    #[serde(default)]
    pub siege_works: Option<Vec<crate::systems::gboar::board::state::SiegeWork>>,
    /// Savannah 4.5: the breached fieldwork hexsides after the step, whole.
    #[serde(default)]
    pub breaches: Option<Vec<String>>,
    /// Savannah 2.1, 4.19: the destroyed city hexes after the step, whole.
    #[serde(default)]
    pub destroyed_hexes: Option<Vec<String>>,
    /// Savannah 4.14: the British works complete ahead of schedule.
    #[serde(default)]
    pub british_works_complete: Option<bool>,
    /// How the game ended: winner and level, or `none` when it goes on.
    #[serde(default)]
    pub result: Option<String>,
    #[serde(default)]
    pub vp_halves: BTreeMap<String, i32>,
    /// The step the game moves on to, by name (e.g. `2-red-movement`).
    #[serde(default)]
    pub next_step: Option<String>,
    /// The step is refused for this reason: its code (docs/refusals.md),
    /// and the rule and words of the message where given.
    #[serde(default)]
    pub refused: Option<ExpectedRefusal>,
    /// The orders as `validate` checks them before the step: `true`, every
    /// side's validates alone and all together; or the problems it finds,
    /// each side's alone (`validate_body`) and, where those have none, all
    /// sides' together (`validate_step`).
    #[serde(default)]
    pub validate: Option<ExpectedValidation>,
    /// `true`: the least orders `adjutant template` prints for each side
    /// the step awaits (`least::minimal_of`, what self-play starts from)
    /// validate, each side's alone and all together.
    #[serde(default)]
    pub least_orders_validate: Option<bool>,
}

/// What `validate` says of a case's orders.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum ExpectedValidation {
    Valid(bool),
    Problems(Vec<ExpectedProblem>),
}

/// A problem `validate` must find: the side and the code of its reason
/// (docs/refusals.md); the rule, and words its message contains, if given.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedProblem {
    pub side: String,
    pub code: String,
    #[serde(default)]
    pub rule: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
}

/// Why a step must be refused: the code of one of its reasons
/// (docs/refusals.md); the rule, and words the refusal's message contains
/// (a hint it gives), if given.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedRefusal {
    /// One of the refusal's reasons.
    #[serde(default)]
    pub code: Option<String>,
    /// Every reason of the refusal, in order (orders with several problems).
    #[serde(default)]
    pub codes: Vec<String>,
    #[serde(default)]
    pub rule: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
}

/// Whether a refusal's code, rule and message are the ones a case expects.
fn refusal_matches(
    code: &str,
    rule: &str,
    message: &str,
    want_code: &str,
    want_rule: Option<&String>,
    want_message: Option<&String>,
) -> bool {
    code == want_code
        && want_rule.is_none_or(|r| r == rule)
        && want_message.is_none_or(|m| message.contains(m.as_str()))
}

/// A code a case names that is no code of docs/refusals.md, as a failure.
fn unknown_code(code: &str) -> Option<String> {
    (!Code::ALL.iter().any(|c| c.id() == code))
        .then(|| format!("'{code}' is not a refusal code (docs/refusals.md lists them)"))
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedEvent {
    pub kind: String,
    #[serde(default)]
    pub rule: Option<String>,
    #[serde(default)]
    pub fields: BTreeMap<String, serde_json::Value>,
}

/// The dice of a case: its values, in order.
pub struct ScriptedDice {
    values: Vec<u16>,
    next: usize,
}

impl ScriptedDice {
    pub fn new(values: Vec<u16>) -> Self {
        ScriptedDice { values, next: 0 }
    }

    pub fn unused(&self) -> &[u16] {
        &self.values[self.next.min(self.values.len())..]
    }
}

impl Dice for ScriptedDice {
    fn roll(&mut self, die: Die, purpose: &str) -> Result<u16> {
        let value = *self.values.get(self.next).ok_or_else(|| {
            Error::refused(format!(
                "the case scripts {} dice, but the engine rolls another {die} ({purpose})",
                self.values.len()
            ))
        })?;
        let (low, high) = die.range();
        if !(low..=high).contains(&value) {
            return Err(Error::refused(format!(
                "scripted die {} is {value}, but a {die} reads {low} to {high}",
                self.next + 1
            )));
        }
        self.next += 1;
        Ok(value)
    }
}

/// The outcome of one case.
pub use crate::system::CaseOutcome as Outcome;

fn apply(rules: &Rules, state: &mut State, patch: &StatePatch) -> std::result::Result<(), String> {
    if let Some(turn) = patch.turn {
        state.turn = turn;
    }
    for id in &patch.remove {
        state.units.remove(id).ok_or_else(|| format!("state.remove: no unit {id} in the set-up"))?;
    }
    for (id, p) in &patch.units {
        // A counter the set-up leaves out (Savannah 4.8: one a Random
        // Events card brings into play) comes in where the case puts it.
        if !state.units.contains_key(id) && p.hex.is_some() {
            if let Some(c) = rules.counter(id) {
                let fresh = crate::systems::gboar::board::state::UnitState::fresh(None, None, c.steps.unwrap_or(1));
                state.units.insert(id.clone(), fresh);
            }
        }
        let unit = state.units.get_mut(id).ok_or_else(|| format!("state.units: no unit {id} in the set-up"))?;
        if let Some(hex) = &p.hex {
            unit.hex = Some(*hex);
        }
        if let Some(steps) = p.steps {
            unit.steps = steps;
        }
        if let Some(c) = p.condition {
            unit.condition = c;
        }
        if let Some(b) = p.pinned {
            unit.pinned = b;
        }
        if let Some(r) = &p.pin_result {
            unit.pin_result = Some(r.clone());
        }
        if let Some(b) = p.lost {
            unit.lost = b;
        }
        if let Some(b) = p.previously_lost {
            unit.previously_lost = b;
        }
        if let Some(n) = p.covered_way_hexes {
            unit.covered_way_hexes = n;
        }
        if let Some(b) = p.released {
            unit.released = b;
        }
        if let Some(b) = p.must_return {
            unit.must_return = b;
        }
        if let Some(b) = p.cavalry_withdrawn {
            unit.cavalry_withdrawn = b;
        }
        if let Some(b) = p.first_fire_used {
            unit.first_fire_used = b;
        }
        if let Some(t) = p.mortar_moved_turn {
            unit.mortar_moved_turn = Some(t);
        }
        if let Some(l) = &p.sortie_with {
            unit.sortie_with = Some(l.clone());
        }
        if let Some(b) = p.been_inside {
            unit.been_inside = b;
        }
        if let Some(a) = &p.arriving {
            unit.arriving = Some(a.clone());
        }
        if let Some(place) = p.off_map {
            unit.off_map = Some(place);
            unit.hex = None;
        }
    }
    for (army, halves) in &patch.vp_halves {
        state.vp_halves.insert(army.clone(), *halves);
    }
    state.army_morale.extend(patch.army_morale.clone());
    state.momentum.extend(patch.momentum.clone());
    if let Some(holder) = &patch.initiative_holder {
        state.initiative_holder = Some(holder.clone());
    }
    if let Some(weather) = &patch.weather {
        state.weather = Some(weather.clone());
    }
    if let Some(t) = patch.strategic_turn_last {
        state.strategic_turn_last = Some(t);
    }
    if let Some(b) = patch.assault_declared {
        state.assault_declared = b;
    }
    for (holder, hand) in &patch.cards {
        state.cards.insert(holder.clone(), hand.clone());
    }
    state.card_effects.extend(patch.card_effects.iter().cloned());
    if let Some(order) = &patch.player_order {
        state.player_order = order.clone();
    }
    if let Some(w) = &patch.siege_works {
        state.siege_works = w.clone();
    }
    if let Some(b) = &patch.breaches {
        let mut b = b.clone();
        b.sort();
        state.breaches = b;
    }
    if let Some(b) = patch.bombardment_begun {
        state.bombardment_begun = b;
    }
    if let Some(d) = &patch.destroyed_hexes {
        let mut d = d.clone();
        d.sort();
        state.destroyed_hexes = d;
    }
    Ok(())
}

/// A case's rules, the state it starts from and its (first) step (for
/// tests that ask other questions of a case's position).
pub fn position(label: &str, text: &str, source_of: impl Fn(&str) -> Result<Source>) -> Result<(Rules, State, Step)> {
    let case: Case = crate::base::yaml::parse(label, text).map_err(Error::Data)?;
    let rules = Rules::load(&source_of(&case.module)?, &case.scenario)?;
    let mut state = State::setup(&rules.module, &case.scenario)?;
    apply(&rules, &mut state, &case.state).map_err(|e| Error::refused(format!("{label}: {e}")))?;
    let step = case
        .step_list()
        .map_err(|e| Error::refused(format!("{label}: {e}")))?
        .into_iter()
        .next()
        .and_then(|s| s.step)
        .ok_or_else(|| Error::refused(format!("{label}: the case names no step")))?;
    Ok((rules, state, step))
}

/// Run the case whose text is `text` (`label` names it in messages, its
/// file's path). The case names its module as written (`module:`);
/// `source_of` gives that module's files (a folder next to the case, or
/// an embedded module): the caller reads files, the engine does not.
pub fn run(label: &str, text: &str, source_of: impl Fn(&str) -> Result<Source>) -> Result<Outcome> {
    let case: Case = crate::base::yaml::parse(label, text).map_err(Error::Data)?;
    let source = source_of(&case.module)?;
    let mut outcome = Outcome {
        file: label.to_string(),
        name: case.name.clone(),
        rules: case.rules.clone(),
        passed: false,
        failures: Vec::new(),
    };
    let rules = Rules::load(&source, &case.scenario)?;
    let mut state = State::setup(&rules.module, &case.scenario)?;
    if let Err(e) = apply(&rules, &mut state, &case.state) {
        return Err(Error::refused(format!("{}: {e}", outcome.file)));
    }
    let list = case.step_list().map_err(|e| Error::refused(format!("{}: {e}", outcome.file)))?;
    let several = list.len() > 1;
    for (n, part) in list.iter().enumerate() {
        let at = if several { format!("steps[{n}]: ") } else { String::new() };
        let step = match (&part.step, &state.next) {
            (Some(step), _) => step.clone(),
            (None, Some(next)) => next.clone(),
            (None, None) => {
                outcome.failures.push(format!("{at}the game is over: there is no next step"));
                break;
            }
        };
        let before = outcome.failures.len();
        let next = run_step(&rules, &state, &step, part, &mut outcome.failures);
        for f in &mut outcome.failures[before..] {
            f.insert_str(0, &at);
        }
        match next {
            Some(next) => state = next,
            None => break,
        }
    }
    outcome.passed = outcome.failures.is_empty();
    Ok(outcome)
}

/// Resolve one step of a case and compare what happened with what it
/// expects; the state after it, when the step resolved.
fn run_step(rules: &Rules, state: &State, step: &Step, part: &CaseStep, failures: &mut Vec<String>) -> Option<State> {
    let expect = &part.expect;
    let mut dice = ScriptedDice::new(part.dice.clone());
    // `resolve` of a game waits for every side the step awaits; a case must
    // send them all too, or it would show what no game can reach.
    if expect.refused.is_none() {
        for side in crate::systems::gboar::phases::awaited(rules, state, step) {
            if !part.orders.contains_key(&side) {
                failures.push(format!("the step awaits orders from {side} too: add `{side}:` under orders"));
            }
        }
    }
    if let Some(wanted) = &expect.validate {
        // Each side's orders alone, as `validate` and `submit` check a
        // file; then, where those pass, every side's together. Each
        // problem: side, code, rule, `field: message`.
        let mut found: Vec<(String, String, String, String)> = Vec::new();
        for (side, body) in &part.orders {
            for p in crate::systems::gboar::phases::validate_body(rules, state, step, side, body, "case", "") {
                let (code, rule) = p.code.map(|c| (c.code.clone(), c.rule.clone())).unwrap_or_default();
                found.push((side.clone(), code, rule, format!("{}: {}", p.field, p.message)));
            }
        }
        if found.is_empty() {
            for p in crate::systems::gboar::phases::validate_step(rules, state, step, &part.orders) {
                let text = format!("{}: {}", p.field, p.message);
                found.push((p.side, p.code.id().into(), p.code.rule().into(), text));
            }
        }
        let shown = |found: &[(String, String, String, String)]| -> String {
            let list: Vec<String> =
                found.iter().map(|(side, code, rule, text)| format!("{side}: [{code}, {rule}] {text}")).collect();
            if list.is_empty() {
                "nothing".into()
            } else {
                list.join("; ")
            }
        };
        match wanted {
            ExpectedValidation::Valid(true) if !found.is_empty() => {
                failures.push(format!("the orders should validate, but: {}", shown(&found)))
            }
            ExpectedValidation::Valid(_) => {}
            ExpectedValidation::Problems(list) => {
                for w in list {
                    failures.extend(unknown_code(&w.code));
                    let hit = found.iter().any(|(side, code, rule, text)| {
                        side == &w.side
                            && refusal_matches(code, rule, text, &w.code, w.rule.as_ref(), w.message.as_ref())
                    });
                    if !hit {
                        failures.push(format!(
                            "validate should find for {}: code {}{}{}; it found {}",
                            w.side,
                            w.code,
                            w.rule.as_ref().map(|r| format!(", rule {r}")).unwrap_or_default(),
                            w.message.as_ref().map(|m| format!(", saying '{m}'")).unwrap_or_default(),
                            shown(&found)
                        ));
                    }
                }
            }
        }
    }
    if expect.least_orders_validate == Some(true) {
        let sides = crate::systems::gboar::phases::awaited(rules, state, step);
        let least = crate::systems::gboar::guide::least::minimal_of(rules, state, step, &sides);
        let mut found: Vec<String> = Vec::new();
        for (side, body) in &least {
            for p in crate::systems::gboar::phases::validate_body(rules, state, step, side, body, "case", "") {
                found.push(format!("{side} {}: {}", p.field, p.message));
            }
        }
        if found.is_empty() {
            for p in crate::systems::gboar::phases::validate_step(rules, state, step, &least) {
                found.push(format!("{} {}: {}", p.side, p.field, p.message));
            }
        }
        if !found.is_empty() {
            failures.push(format!(
                "the least orders ({}) should validate, but: {}",
                serde_json::to_string(&least).unwrap_or_default(),
                found.join("; ")
            ));
        }
    }
    let done = match (resolve(rules, state, step, &part.orders, &mut dice), &expect.refused) {
        (Err(e), Some(wanted)) => {
            let listed: Vec<String> = wanted.code.iter().chain(&wanted.codes).cloned().collect();
            if listed.is_empty() || (wanted.code.is_some() && !wanted.codes.is_empty()) {
                failures
                    .push("refused: give the code of the refusal (`code: X`), or every code (`codes: [X, Y]`)".into());
            }
            for c in &listed {
                failures.extend(unknown_code(c));
            }
            let message = e.to_string();
            let got_codes: Vec<&str> = e.codes().iter().map(|c| c.code.as_str()).collect();
            let hit = match &wanted.code {
                Some(code) => e.codes().iter().any(|c| {
                    refusal_matches(&c.code, &c.rule, &message, code, wanted.rule.as_ref(), wanted.message.as_ref())
                }),
                None => {
                    got_codes == wanted.codes.iter().map(String::as_str).collect::<Vec<_>>()
                        && wanted.message.as_ref().is_none_or(|m| message.contains(m.as_str()))
                }
            };
            if !hit {
                let got: Vec<String> = e.codes().iter().map(|c| format!("{} ({})", c.code, c.rule)).collect();
                failures.push(format!(
                    "refused: expected code {}{}{}, got {} ({message})",
                    listed.join(", "),
                    wanted.rule.as_ref().map(|r| format!(" ({r})")).unwrap_or_default(),
                    wanted.message.as_ref().map(|m| format!(" saying '{m}'")).unwrap_or_default(),
                    if got.is_empty() { "no code".to_string() } else { got.join(", ") }
                ));
            }
            return None;
        }
        (Err(e), None) => {
            failures.push(format!("refused: {e}"));
            return None;
        }
        (Ok(_), Some(wanted)) => {
            let listed: Vec<String> = wanted.code.iter().chain(&wanted.codes).cloned().collect();
            failures.push(format!("expected a refusal with code {}, but the step resolved", listed.join(", ")));
            return None;
        }
        (Ok(done), None) => done,
    };
    if !dice.unused().is_empty() {
        failures.push(format!("{} scripted dice were not rolled: {:?}", dice.unused().len(), dice.unused()));
    }
    compare_events(&expect.events, &done.events, expect.more_events, failures);
    for unwanted in &expect.no_events {
        for (n, g) in done.events.iter().enumerate() {
            if event_matches(unwanted, g) {
                failures.push(format!("event {n}: {} ({}) should not happen: {}", g.kind, g.rule, g.text));
            }
        }
    }
    for (id, want) in &expect.units {
        let Some(got) = done.state.units.get(id) else {
            failures.push(format!("unit {id} is not in the state after the step"));
            continue;
        };
        for (field, wanted, found) in patch_fields(want, &UnitPatch::of(got)) {
            if wanted != found {
                failures.push(format!("unit {id}: {field}: expected {wanted}, got {found}"));
            }
        }
    }
    for (id, not) in &expect.units_not {
        let Some(got) = done.state.units.get(id) else {
            failures.push(format!("unit {id} is not in the state after the step"));
            continue;
        };
        for (field, unwanted, found) in patch_fields(not, &UnitPatch::of(got)) {
            if unwanted == found {
                failures.push(format!("unit {id}: {field}: expected anything but {unwanted}, got it"));
            }
        }
    }
    if let Some(want) = &expect.card_effects {
        let got: Vec<String> = done.state.card_effects.iter().map(|e| e.card.clone()).collect();
        if &got != want {
            failures.push(format!("card effects: expected {want:?}, got {got:?}"));
        }
    }
    for (holder, want) in &expect.cards {
        let got = done.state.cards.get(holder).cloned().unwrap_or_default();
        if &got != want {
            failures.push(format!("cards of {holder}: expected {want:?}, got {got:?}"));
        }
    }
    if let Some(want) = &expect.siege_works {
        if &done.state.siege_works != want {
            failures.push(format!("siege works: expected {want:?}, got {:?}", done.state.siege_works));
        }
    }
    if let Some(want) = &expect.breaches {
        if &done.state.breaches != want {
            failures.push(format!("breaches: expected {want:?}, got {:?}", done.state.breaches));
        }
    }
    if let Some(want) = &expect.destroyed_hexes {
        if &done.state.destroyed_hexes != want {
            failures.push(format!("destroyed hexes: expected {want:?}, got {:?}", done.state.destroyed_hexes));
        }
    }
    if let Some(want) = expect.british_works_complete {
        if done.state.british_works_complete != want {
            failures
                .push(format!("british works complete: expected {want}, got {}", done.state.british_works_complete));
        }
    }
    for (holder, want) in &expect.momentum {
        let got = done.state.momentum.get(holder).copied();
        if got != Some(*want) {
            failures.push(format!("momentum of {holder}: expected {want}, got {}", shown(got)));
        }
    }
    if let Some(want) = &expect.player_order {
        if &done.state.player_order != want {
            failures.push(format!(
                "player order: expected {}, got {}",
                want.join(", "),
                done.state.player_order.join(", ")
            ));
        }
    }
    if let Some(want) = &expect.result {
        let got = done.state.result.as_ref().map(|r| format!("{} {}", r.winner, r.level)).unwrap_or("none".into());
        if &got != want {
            failures.push(format!("result: expected {want}, got {got}"));
        }
    }
    for (army, want) in &expect.vp_halves {
        let got = done.state.vp_halves.get(army).copied();
        if got != Some(*want) {
            failures.push(format!("VPs (halves) of {army}: expected {want}, got {}", shown(got)));
        }
    }
    if let Some(want) = &expect.next_step {
        let got = done.state.next.as_ref().map(|s| s.name());
        if got.as_deref() != Some(want.as_str()) {
            failures.push(format!(
                "next step: expected {want}, got {}",
                got.as_deref().unwrap_or("none (the game is over)")
            ));
        }
    }
    for (army, want) in &expect.army_morale {
        let got = done.state.army_morale.get(army).copied();
        if got != Some(*want) {
            failures.push(format!("army morale of {army}: expected {want}, got {}", shown(got)));
        }
    }
    Some(done.state)
}

fn shown<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map(|v| v.to_string()).unwrap_or_else(|| "nothing".into())
}

impl UnitPatch {
    /// Every field of a unit's state, as a case would write it.
    fn of(u: &crate::systems::gboar::board::state::UnitState) -> UnitPatch {
        UnitPatch {
            hex: u.hex,
            steps: Some(u.steps),
            condition: Some(u.condition),
            pinned: Some(u.pinned),
            pin_result: u.pin_result.clone(),
            lost: Some(u.lost),
            previously_lost: Some(u.previously_lost),
            covered_way_hexes: Some(u.covered_way_hexes),
            released: Some(u.released),
            must_return: Some(u.must_return),
            cavalry_withdrawn: Some(u.cavalry_withdrawn),
            first_fire_used: Some(u.first_fire_used),
            mortar_moved_turn: u.mortar_moved_turn,
            sortie_with: u.sortie_with.clone(),
            been_inside: Some(u.been_inside),
            arriving: u.arriving.clone(),
            off_map: u.off_map,
        }
    }
}

/// The fields `want` gives, each with its value there and in `got`, as
/// YAML-like text (`none` for an absent value): a failure names only the
/// fields that differ.
fn patch_fields(want: &UnitPatch, got: &UnitPatch) -> Vec<(String, String, String)> {
    let (Ok(serde_json::Value::Object(w)), Ok(serde_json::Value::Object(g))) =
        (serde_json::to_value(want), serde_json::to_value(got))
    else {
        return Vec::new();
    };
    w.iter()
        .map(|(field, value)| {
            let found = g.get(field).map(|v| v.to_string()).unwrap_or_else(|| "none".into());
            (field.clone(), value.to_string(), found)
        })
        .collect()
}

fn event_matches(w: &ExpectedEvent, g: &crate::system::Event) -> bool {
    w.kind == g.kind
        && w.rule.as_ref().is_none_or(|r| r == &g.rule)
        && w.fields.iter().all(|(key, value)| g.fields.get(key) == Some(value))
}

fn compare_events(want: &[ExpectedEvent], got: &[crate::system::Event], more: bool, failures: &mut Vec<String>) {
    if want.len() != got.len() && !(more && got.len() > want.len()) {
        let kinds: Vec<String> = got.iter().map(|e| format!("{} ({})", e.kind, e.text)).collect();
        failures.push(format!("expected {} events, got {}: {}", want.len(), got.len(), kinds.join("; ")));
    }
    for (n, (w, g)) in want.iter().zip(got).enumerate() {
        if w.kind != g.kind || w.rule.as_ref().is_some_and(|r| r != &g.rule) {
            failures.push(format!(
                "event {n}: expected {} ({}), got {} ({}): {}",
                w.kind,
                w.rule.as_deref().unwrap_or("-"),
                g.kind,
                g.rule,
                g.text
            ));
            continue;
        }
        for (key, value) in &w.fields {
            if g.fields.get(key) != Some(value) {
                failures.push(format!(
                    "event {n} ({}): {key} expected {value}, got {}: {}",
                    g.kind,
                    g.fields.get(key).map(|v| v.to_string()).unwrap_or("nothing".into()),
                    g.text
                ));
            }
        }
    }
}
