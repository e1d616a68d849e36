//! The phases of the sequence of play (series 5), one file each, and the
//! one place that picks the phase of a step: [`resolve`] (and the checks
//! of orders, [`validate_body`] and [`validate_step`], and who a step
//! awaits). A phase file imports `effects/`, `board/` and `data/`, never
//! another phase: what two phases both need is in `board/`. Only this
//! file names the phases.

pub mod close_combat;
pub mod combat;
pub mod fire;
pub mod initiative;
pub mod movement;
pub mod rally;
pub mod random_events;
pub mod reinforcement;
pub mod set_up;
pub mod siege_bombardment;
pub mod siege_works;
pub mod victory;
pub mod weather;

use std::collections::BTreeMap;

use crate::base::error::{Error, Result};
use crate::base::yaml::Value;
use crate::system::{Dice, Event};
use crate::systems::gboar::board::refusals::Code;
use crate::systems::gboar::board::state::{self, Resolution, State};
use crate::systems::gboar::board::Rules;
use crate::systems::gboar::data::sequence::Step;
use crate::systems::gboar::effects::{cards, intel};

/// Check the body of one side's orders for `step` (the header is already
/// checked), reporting every problem. Phases that need no orders refuse a
/// body; a phase this version cannot check refuses the file, so that no
/// orders are accepted unchecked.
pub fn validate_body(
    rules: &Rules,
    state: &State,
    step: &Step,
    side: &str,
    body: &crate::base::yaml::Value,
    label: &str,
    text: &str,
) -> Vec<crate::base::error::Located> {
    Checks::new(rules, state, step).validate_body(side, body, label, text)
}

/// A step's checks of orders against one state ([`validate_body`],
/// [`validate_step`]), with what they share made ready once, at the
/// first file that needs it, for every file of the step checked against
/// that state: the Movement Phase ([`movement::Ready`]) and the Close
/// Combat Phase's designation ([`close_combat::Ready`]). Each is a
/// function of the state and the phasing player alone, so a file's
/// problems are the same whichever files were checked before it. The
/// shell checks each side's file and then all together; `adjutant
/// selfplay` checks a step's files many times over.
pub struct Checks<'a> {
    rules: &'a Rules,
    state: &'a State,
    step: &'a Step,
    movement: std::cell::OnceCell<movement::Ready<'a>>,
    close_combat: std::cell::OnceCell<close_combat::Ready<'a>>,
}

impl<'a> Checks<'a> {
    pub fn new(rules: &'a Rules, state: &'a State, step: &'a Step) -> Checks<'a> {
        Checks { rules, state, step, movement: std::cell::OnceCell::new(), close_combat: std::cell::OnceCell::new() }
    }

    /// Whether `state` and `player` are this step's own board and phasing
    /// player, for which the checks are made ready once.
    fn own(&self, state: &State, player: &str) -> bool {
        std::ptr::eq(state, self.state) && matches!(self.step, Step::PlayerTurn { player: p, .. } if p == player)
    }

    /// `check` with the Movement Phase's checks of the phasing `player` on
    /// `state`: those made ready when they are this step's own, else made
    /// for them alone (a board of one file's own: a card's extra
    /// construction markers counted on a copy).
    fn with_movement<R>(&self, state: &State, player: &str, check: impl FnOnce(&movement::Ready<'_>) -> R) -> R {
        if self.own(state, player) {
            check(self.movement.get_or_init(|| movement::Ready::new(self.rules, self.state, player)))
        } else {
            check(&movement::Ready::new(self.rules, state, player))
        }
    }

    /// The Movement Phase's checks made ready for this step's state, when
    /// the step is a Movement Phase (what `adjutant selfplay` draws its
    /// moves on).
    pub fn movement(&self) -> Option<&movement::Ready<'a>> {
        match self.step {
            Step::PlayerTurn { player, phase, .. } if phase == "movement" => {
                Some(self.movement.get_or_init(|| movement::Ready::new(self.rules, self.state, player)))
            }
            _ => None,
        }
    }

    /// [`with_movement`](Checks::with_movement)'s for the Close Combat
    /// Phase's designation.
    fn with_close_combat<R>(
        &self,
        state: &State,
        player: &str,
        check: impl FnOnce(&close_combat::Ready<'_>) -> R,
    ) -> R {
        if self.own(state, player) {
            check(self.close_combat.get_or_init(|| close_combat::Ready::new(self.rules, self.state, player)))
        } else {
            check(&close_combat::Ready::new(self.rules, state, player))
        }
    }

    /// [`validate_body`] of one side's orders.
    pub fn validate_body(
        &self,
        side: &str,
        body: &crate::base::yaml::Value,
        label: &str,
        text: &str,
    ) -> Vec<crate::base::error::Located> {
        let (rules, state, step) = (self.rules, self.state, self.step);
        let mut found = check_body(self, side, body, label, text);
        // 7.4: a problem names no enemy unit the side may not examine, or
        // a refusal would tell where an unseen unit is, free.
        if intel::hidden(rules) {
            for p in &mut found {
                p.message = intel::hide_unseen(rules, &p.message, |u| intel::sees(rules, state, step, side, u));
            }
        }
        found
    }

    /// [`validate_step`] of every side's orders together.
    pub fn validate_step(&self, orders: &BTreeMap<String, crate::base::yaml::Value>) -> Vec<SideProblem> {
        check_sides(self, orders)
    }
}

/// [`validate_body`]'s checks, every unit named.
fn check_body(
    checks: &Checks<'_>,
    side: &str,
    body: &crate::base::yaml::Value,
    label: &str,
    text: &str,
) -> Vec<crate::base::error::Located> {
    let (rules, state, step) = (checks.rules, checks.state, checks.step);
    let text = crate::base::yaml::without_bom(text);
    // The text is read for places once, and only if there is a problem.
    let index = std::cell::OnceCell::new();
    let place = |field: &str, anchor: &str| {
        let index = index.get_or_init(|| crate::base::yaml::locate::Index::new(text));
        let index = index.as_ref()?;
        index.locate(field).or_else(|| index.locate(anchor))
    };
    let located = |code: Code, message: String| {
        let line = place("step", "step");
        crate::base::error::Located {
            file: label.to_string(),
            line: line.map(|l| l.0),
            column: line.map(|l| l.1),
            field: String::new(),
            message,
            code: Some(Box::new(code.carried())),
        }
    };
    // Problems located at the field they name (`moves[2].path[1]`), else at
    // the body's first key.
    let at_fields = |problems: Vec<(Code, String, String)>, anchor: &str| -> Vec<crate::base::error::Located> {
        problems
            .into_iter()
            .map(|(code, field, message)| {
                let line = place(&field, anchor);
                crate::base::error::Located {
                    file: label.to_string(),
                    line: line.map(|l| l.0),
                    column: line.map(|l| l.1),
                    field,
                    message,
                    code: Some(Box::new(code.carried())),
                }
            })
            .collect()
    };
    // No field is ever empty (null): refused with what the field would hold.
    let nulls = empty_fields(rules, step, side, body);
    if !nulls.is_empty() {
        return at_fields(nulls.into_iter().map(|(f, m)| (Code::EmptyField, f, m)).collect(), "step");
    }
    // Series 7.4: `examine:` is the side's, whatever the phase; the phase
    // reads the rest.
    let (_, examine) = intel::examine_order(rules, body);
    if !examine.is_empty() {
        return at_fields(examine, intel::EXAMINE);
    }
    // The body as the phase reads it (copied only when a field comes out
    // of it: most bodies have none of these fields).
    let body = intel::without_examine(body);
    let body = &*body;
    // Savannah 4.3: `play:` is the side's, whatever the phase.
    // (checked in the step it is played in: `next`, 4.3 timing)
    let played = if body.get(cards::PLAY).is_some() {
        let mut at = state.clone();
        at.next = Some(step.clone());
        cards::check_plays(rules, &at, side, body)
    } else {
        Vec::new()
    };
    if !played.is_empty() {
        return at_fields(played, cards::PLAY);
    }
    // Savannah 4.4: a card's extra construction markers count in the
    // orders that play it.
    let extra = crate::systems::gboar::effects::siege::extra_markers_played(rules, body);
    let with_extra;
    let state = if extra > 0 {
        let mut s = state.clone();
        s.extra_construction_markers = s.extra_construction_markers.saturating_add(extra);
        with_extra = s;
        &with_extra
    } else {
        state
    };
    let body = cards::without_plays(body);
    // 7.4: a fire at a hex, its target picked as the side's preferences say.
    let (body, picks) = match intel::hex_targets(rules, state, step.phase(), side, &body) {
        Ok(targeted) => targeted,
        Err(problems) => return at_fields(problems, "step"),
    };
    let body = &*body;
    let empty = body.as_mapping().is_none_or(|m| m.is_empty());
    let player = match step {
        Step::PlayerTurn { player, .. } => player.as_str(),
        _ => "",
    };
    let found = match step.phase() {
        "movement" => at_fields(
            checks
                .with_movement(state, player, |m| m.validate(side, body))
                .into_iter()
                .map(|p| (p.code, p.field, p.message))
                .collect(),
            "moves",
        ),
        "close-combat" => {
            let mut one = BTreeMap::new();
            one.insert(side.to_string(), body.clone());
            let (_, problems) = checks.with_close_combat(state, player, |c| c.designate(&one, false));
            at_fields(problems.into_iter().map(|p| (p.code, p.field, p.message)).collect(), "step")
        }
        "initiative" => match crate::base::yaml::read_body::<initiative::InitiativeOrders>(body, initiative::HINT) {
            // 12.62: what the side spends alone (its alliance's other
            // sides' spending is added when every side's orders are in,
            // `validate_step`).
            Ok(_) => {
                let one = BTreeMap::from([(side.to_string(), body.clone())]);
                at_fields(
                    initiative::check(rules, state, &one).into_iter().map(|(_, c, f, m)| (c, f, m)).collect(),
                    "step",
                )
            }
            Err((field, message)) => at_fields(vec![(Code::OrdersShape, field, message)], "momentum"),
        },
        "rifle-fire" => at_fields(fire::check_rifles(rules, state, side, body), "step"),
        "random-events" => {
            let one = BTreeMap::from([(side.to_string(), body.clone())]);
            at_fields(
                random_events::check(rules, state, &one).into_iter().map(|(_, c, f, m)| (c, f, m)).collect(),
                "step",
            )
        }
        "set-up" => at_fields(set_up::validate(rules, state, side, body), "deploy"),
        "construct-siege-works" => at_fields(siege_works::check(rules, state, side, body), siege_works::PLACE),
        "siege-and-bombardment" => at_fields(siege_bombardment::check(rules, state, side, body), "step"),
        "defensive-artillery-fire" => at_fields(fire::check(rules, state, player, side, body), "step"),
        // Series 15: rally needs no orders; nor do these.
        "rally" | "victory-determination" | "reinforcement" | "weather" if empty => Vec::new(),
        "rally" | "victory-determination" | "reinforcement" | "weather" => {
            vec![located(
                Code::NoOrdersTaken,
                format!("the {} phase takes no orders; remove everything after `side:`", step.phase()),
            )]
        }
        other => vec![located(
            Code::PhaseNotChecked,
            format!("this version of adjutant cannot check orders for the {other} phase yet"),
        )],
    };
    // 7.4: a problem of a fire at a hex names the hex, never the unit the
    // engine picked there for the side (which it has not seen).
    intel::unnamed_picks(rules, &picks, found)
}

/// A problem found in a body's shape: the field path and what is wrong.
pub type ShapeProblem = (String, String);

/// What a phase's orders hold, in words: the keys of the body, and for a
/// body that lists items (moves, attacks), the list's key and what an item
/// holds.
pub struct Hints {
    pub body: &'static str,
    pub items: Option<(&'static str, &'static str)>,
}

/// The hints of `side`'s orders for `step`; `None` for a phase that takes
/// no orders.
pub fn hints(rules: &Rules, step: &Step, side: &str) -> Option<Hints> {
    let phasing = match step {
        Step::PlayerTurn { player, .. } => rules.sequence.sides_of(player).iter().any(|s| s == side),
        _ => false,
    };
    let (body, items) = match step.phase() {
        "initiative" => (initiative::HINT, None),
        "movement" => (
            "movement orders are `moves:`, `delay:`, `enter:`, `put_off:`, `overstack_losses:` and `declare_assault:`",
            Some(("moves", "a move has unit or stack, path or to, and may have strategic and leave_pin")),
        ),
        "close-combat" if phasing => (
            "close combat orders are `attacks:`, `diversion:` and `momentum:`",
            Some((
                "attacks",
                "an attack has attackers, defenders, and may have lead, tactics, advance, momentum, choices, capture",
            )),
        ),
        "close-combat" => ("defence orders are `defence:` and `momentum:`", None),
        "defensive-artillery-fire" => ("fire orders are `fire:`, `mortars:`, `mortar_targets:` and `choices:`", None),
        "rifle-fire" => ("rifle fire orders are `rifle_fire:` and `choices:`", None),
        "set-up" => (set_up::HINT, None),
        "random-events" => (random_events::HINT, None),
        "construct-siege-works" => (siege_works::HINT, None),
        "siege-and-bombardment" => (siege_bombardment::HINT, None),
        _ => return None,
    };
    Some(Hints { body, items })
}

/// Whether any value below the root of `body` is null (what
/// [`empty_fields`] reports), by a loop over an explicit stack.
fn has_null(body: &Value) -> bool {
    let mut stack: Vec<&Value> = vec![body];
    let mut root = true;
    while let Some(value) = stack.pop() {
        match value {
            Value::Null if !root => return true,
            Value::Mapping(map) => stack.extend(map.values()),
            Value::Sequence(items) => stack.extend(items),
            Value::Tagged(t) => stack.push(&t.value),
            _ => {}
        }
        root = false;
    }
    false
}

/// Every field of `body` given no value (`moves:` with nothing after it,
/// `~`, `null`, an empty `-` item), as a problem: no orders field is ever
/// empty, and an empty one is refused rather than read as a default.
pub fn empty_fields(rules: &Rules, step: &Step, side: &str, body: &Value) -> Vec<ShapeProblem> {
    // Most bodies have none: those are walked without writing a path.
    if !has_null(body) {
        return Vec::new();
    }
    let hints = hints(rules, step, side);
    let mut found = Vec::new();
    // (path, value); a loop over an explicit stack, in the file's order.
    let mut stack: Vec<(String, &Value)> = vec![(String::new(), body)];
    while let Some((path, value)) = stack.pop() {
        let mut children: Vec<(String, &Value)> = Vec::new();
        match value {
            Value::Null if !path.is_empty() => {
                let item = path.ends_with(']');
                let list =
                    hints.as_ref().and_then(|h| h.items).filter(|(list, _)| path.starts_with(&format!("{list}[")));
                let legal = match (&hints, list) {
                    (_, Some((_, item_hint))) => item_hint,
                    (Some(h), None) => h.body,
                    (None, None) => "this phase takes no orders",
                };
                let what = if item { "is an empty item" } else { "is empty" };
                found.push((path.clone(), format!("{what} (null): give it a value or remove the line ({legal})")));
            }
            Value::Mapping(map) => {
                for (k, v) in map {
                    let key = match k {
                        Value::String(s) => s.clone(),
                        Value::Number(n) => n.to_string(),
                        _ => continue,
                    };
                    children.push((if path.is_empty() { key } else { format!("{path}.{key}") }, v));
                }
            }
            Value::Sequence(items) => {
                children.extend(items.iter().enumerate().map(|(i, v)| (format!("{path}[{i}]"), v)));
            }
            Value::Tagged(t) => children.push((path.clone(), &t.value)),
            _ => {}
        }
        stack.extend(children.into_iter().rev());
    }
    found
}

/// A problem of orders that spans sides: the side, the field, what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideProblem {
    /// Why (docs/refusals.md).
    pub code: Code,
    pub side: String,
    pub field: String,
    pub message: String,
}

/// Every side's orders without `play:` (`cards::without_plays`), copied
/// only when some side's hold it.
fn without_plays_all(orders: &BTreeMap<String, Value>) -> std::borrow::Cow<'_, BTreeMap<String, Value>> {
    if orders.values().any(|b| b.get(cards::PLAY).is_some()) {
        std::borrow::Cow::Owned(orders.iter().map(|(s, b)| (s.clone(), cards::without_plays(b).into_owned())).collect())
    } else {
        std::borrow::Cow::Borrowed(orders)
    }
}

/// The checks that span sides, once every awaited side's orders for `step`
/// are in (each side's alone are [`validate_body`]'s): orders that each
/// validate may still be refused together, and [`resolve`] refuses them
/// whole. French and American units ending a Movement Phase stacked
/// (Savannah 4.1), French and American units combining against one hex
/// (Savannah 4.13), an enemy unit that no phasing side attacks (12.13),
/// the Allies' sides spending together more momentum than they hold
/// (Savannah 1.4, 12.62), two sides of one player firing at one unit
/// (10.2, 11.2). Empty when `resolve` accepts the orders.
pub fn validate_step(
    rules: &Rules,
    state: &State,
    step: &Step,
    orders: &BTreeMap<String, crate::base::yaml::Value>,
) -> Vec<SideProblem> {
    Checks::new(rules, state, step).validate_step(orders)
}

/// [`validate_step`]'s checks.
fn check_sides(checks: &Checks<'_>, orders: &BTreeMap<String, crate::base::yaml::Value>) -> Vec<SideProblem> {
    let (rules, state, step) = (checks.rules, checks.state, checks.step);
    // 7.4: `examine:` and each fire's `prefer:` are the side's, not the
    // phase's (as `validate_body` and `resolve` read them).
    let stripped: BTreeMap<String, Value>;
    let orders = if intel::hidden(rules) || orders.values().any(|b| b.get(intel::EXAMINE).is_some()) {
        stripped = orders
            .iter()
            .map(|(side, body)| {
                let body = intel::without_own_fields(rules, step.phase(), body)
                    .unwrap_or_else(|_| intel::without_examine(body))
                    .into_owned();
                (side.clone(), body)
            })
            .collect();
        &stripped
    } else {
        orders
    };
    // Savannah 4.3: `play:` is checked apart: a card two sides of one
    // player both play.
    let mut found = Vec::new();
    let mut played: BTreeMap<(String, String), String> = BTreeMap::new();
    for (side, body) in orders {
        for (i, p) in cards::plays(body).unwrap_or_default().into_iter().enumerate() {
            let key = (rules.player_of_side(side), p.card.clone());
            if let Some(first) = played.insert(key, side.clone()) {
                found.push(SideProblem {
                    code: Code::CardNotHeld,
                    side: side.clone(),
                    field: format!("{}[{i}]", cards::PLAY),
                    message: format!(
                        "{} is played by {first} too; the card is played once",
                        cards::title(rules, &p.card)
                    ),
                });
            }
        }
    }
    let unplayed = without_plays_all(orders);
    found.extend(check_step(checks, &unplayed));
    // 7.4: a problem names no enemy unit its side may not examine.
    if intel::hidden(rules) {
        for p in &mut found {
            p.message = intel::hide_unseen(rules, &p.message, |u| intel::sees(rules, state, step, &p.side, u));
        }
    }
    found
}

/// [`validate_step`]'s checks, on the phase's own fields.
fn check_step(checks: &Checks<'_>, orders: &BTreeMap<String, crate::base::yaml::Value>) -> Vec<SideProblem> {
    let (rules, state, step) = (checks.rules, checks.state, checks.step);
    let one = |(side, code, field, message): (String, Code, String, String)| SideProblem { code, side, field, message };
    match step {
        Step::PlayerTurn { player, phase, .. } if phase == "movement" => checks
            .with_movement(state, player, |m| m.validate_sides(orders))
            .into_iter()
            .map(|(side, p)| SideProblem { code: p.code, side, field: p.field, message: p.message })
            .collect(),
        Step::PlayerTurn { player, phase, .. }
            if phase == "close-combat" && combat::any_eligible(rules, state, step) =>
        {
            checks
                .with_close_combat(state, player, |c| c.designate(orders, true))
                .1
                .into_iter()
                .map(|p| SideProblem { code: p.code, side: p.side, field: p.field, message: p.message })
                .collect()
        }
        Step::GameTurn { phase, .. } if phase == "initiative" => {
            initiative::check(rules, state, orders).into_iter().map(one).collect()
        }
        Step::GameTurn { phase, .. } if phase == "random-events" => {
            random_events::check(rules, state, orders).into_iter().map(one).collect()
        }
        Step::PlayerTurn { phase, .. } if phase == "defensive-artillery-fire" => {
            fire::check_sides(orders).into_iter().map(one).collect()
        }
        Step::PlayerTurn { phase, .. } if phase == "rifle-fire" => {
            fire::check_rifle_sides(orders).into_iter().map(one).collect()
        }
        _ => Vec::new(),
    }
}

/// Resolve one step. Orders are each side's orders for the step, already
/// checked to be for this game, turn, step and side. A phase the engine
/// cannot resolve yet is refused, never silently passed over.
///
/// Under hidden enemy stacks (module.yaml `intelligence`, series 7.4) the
/// step is resolved on the orders without their `examine:`; then each
/// side's examinations are made on the state after it, and the events
/// marked with what each side may see (`effects/intel.rs`).
pub fn resolve(
    rules: &Rules,
    state: &State,
    step: &Step,
    orders: &BTreeMap<String, crate::base::yaml::Value>,
    dice: &mut dyn Dice,
) -> Result<Resolution> {
    // Savannah 4.3: the cards the orders play, before the phase.
    if orders.values().any(|b| b.get(cards::PLAY).is_some()) {
        let mut played = state.clone();
        // The cards are played in this step (`next` while they are).
        played.next = Some(step.clone());
        let events = cards::play_all(rules, &mut played, orders, dice)?;
        played.next = state.next.clone();
        let rest = without_plays_all(orders);
        // The step's other orders were written on the board before the
        // cards (`state`), and are resolved on the board after them.
        let mut done = resolve_played(rules, state, &played, step, &rest, dice)?;
        let mut all = events;
        all.append(&mut done.events);
        done.events = all;
        return Ok(done);
    }
    resolve_played(rules, state, state, step, orders, dice)
}

/// [`resolve`] once the step's cards are played: `announced` is the board
/// the orders were written on, `state` the board after the cards.
fn resolve_played(
    rules: &Rules,
    announced: &State,
    state: &State,
    step: &Step,
    orders: &BTreeMap<String, crate::base::yaml::Value>,
    dice: &mut dyn Dice,
) -> Result<Resolution> {
    let mut examine = BTreeMap::new();
    for (side, body) in orders {
        let (hexes, problems) = intel::examine_order(rules, body);
        if let Some((code, field, message)) = problems.first() {
            return Err(crate::systems::gboar::board::refusals::refuse(
                *code,
                format!("{side}'s orders, {field}: {message}"),
            ));
        }
        if !hexes.is_empty() {
            examine.insert(side.clone(), hexes);
        }
    }
    if !intel::hidden(rules) {
        return resolve_step(rules, announced, state, step, orders, dice);
    }
    let mut bodies = BTreeMap::new();
    let mut picks = Vec::new();
    for (side, body) in orders {
        match intel::hex_targets(rules, state, step.phase(), side, &intel::without_examine(body)) {
            Ok((body, events)) => {
                bodies.insert(side.clone(), body.into_owned());
                picks.extend(events);
            }
            Err(problems) => {
                let (code, field, message) = &problems[0];
                return Err(crate::systems::gboar::board::refusals::refuse(
                    *code,
                    format!("{side}'s orders, {field}: {message}"),
                ));
            }
        }
    }
    let done = match resolve_step(rules, announced, state, step, &bodies, &mut intel::Purposes::new(rules, dice)) {
        Ok(done) => done,
        // 7.4: a refusal names the hex of a fire at a hex, not the unit
        // picked, and no enemy unit its reader may not examine.
        Err(e @ (Error::Refused(_) | Error::Coded { .. })) => {
            let codes = e.codes().to_vec();
            let text = intel::unnamed_text(rules, &picks, e.to_string());
            let sides: Vec<String> = orders.keys().cloned().collect();
            let text = intel::hidden_refusal(rules, state, step, &sides, &text);
            return Err(if codes.is_empty() { Error::refused(text) } else { Error::coded(text, codes) });
        }
        Err(e) => return Err(e),
    };
    let free = intel::free_hexes(rules, state, step, &done.events);
    let mut after = done.state;
    intel::remember(rules, &mut after, &free);
    let mut events = picks;
    events.extend(done.events);
    if !examine.is_empty() {
        let unexamined = after.clone();
        events.extend(intel::examine(rules, &mut after, &examine, &free)?);
        // 16.3: an examination's cost that demoralizes an army ends the
        // game at once, as the step's own losses would have.
        if after.result.is_none() {
            if let Some(ended) = victory::immediate(rules, &unexamined, &after)? {
                after = ended.state;
                after.next = None;
                events.extend(ended.events);
            }
        }
    }
    // 7.4: what a side examined by order it examined after the step, in
    // the state after it (`after.examined` holds those units): a hex it
    // examines does not show the units that were there before the step.
    let events = intel::redact(rules, state, &after, &free, events);
    Ok(Resolution { state: after, events })
}

/// Whether units could take part in a fire or close combat `step`, on
/// the board the cards left (`state`) or, when cards changed it, on the
/// board the orders were written on (`announced`): the combats and fires
/// announced there are resolved even where a card's result has parted
/// the units since (12.21, Savannah 4.3).
fn could_take_part(rules: &Rules, announced: &State, state: &State, step: &Step) -> bool {
    combat::any_eligible(rules, state, step)
        || !std::ptr::eq(announced, state) && combat::any_eligible(rules, announced, step)
}

/// [`resolve`] of one step, every stack open.
fn resolve_step(
    rules: &Rules,
    announced: &State,
    state: &State,
    step: &Step,
    orders: &BTreeMap<String, crate::base::yaml::Value>,
    dice: &mut dyn Dice,
) -> Result<Resolution> {
    let mut resolved = match step {
        Step::GameTurn { phase, .. } if phase == "initiative" => {
            initiative::resolve(rules, announced, state, orders, dice)
        }
        Step::GameTurn { phase, .. } if phase == "weather" => weather::resolve(rules, state, dice),
        Step::GameTurn { phase, .. } if phase == "set-up" => set_up::resolve(rules, state, orders),
        Step::GameTurn { phase, .. } if phase == "random-events" => {
            random_events::resolve(rules, announced, state, orders, dice)
        }
        Step::GameTurn { phase, .. } if phase == "construct-siege-works" => {
            siege_works::resolve(rules, announced, state, orders)
        }
        Step::GameTurn { phase, .. } if phase == "siege-and-bombardment" => {
            siege_bombardment::resolve(rules, announced, state, orders, dice)
        }
        Step::PlayerTurn { player, phase, .. } if phase == "rally" => rally::resolve(rules, state, player, dice),
        Step::PlayerTurn { player, phase, .. } if phase == "reinforcement" => {
            reinforcement::resolve(rules, state, player, dice)
        }
        Step::PlayerTurn { player, phase, .. } if phase == "movement" => {
            movement::resolve_played(rules, announced, state, player, orders, dice)
        }
        Step::EndOfTurn { phase, .. } if phase == "victory-determination" => victory::resolve(rules, state),
        // Combats announced on the board before the cards (12.21) are
        // resolved, even where a card's result has parted the units since.
        Step::PlayerTurn { player, phase, .. }
            if phase == "close-combat" && could_take_part(rules, announced, state, step) =>
        {
            close_combat::resolve_phase(rules, announced, state, player, orders, dice)
        }
        Step::PlayerTurn { player, phase, .. }
            if phase == "defensive-artillery-fire" && could_take_part(rules, announced, state, step) =>
        {
            fire::resolve_phase(rules, announced, state, player, orders, dice)
        }
        // Fires chosen on the board before the cards are checked there; a
        // fire the cards' board refuses lapses (Savannah 4.3).
        Step::PlayerTurn { player, phase, .. }
            if phase == "rifle-fire" && could_take_part(rules, announced, state, step) =>
        {
            fire::resolve_rifle_phase(rules, announced, state, player, orders, dice)
        }
        Step::PlayerTurn { phase, .. }
            if phase == "defensive-artillery-fire" || phase == "close-combat" || phase == "rifle-fire" =>
        {
            combat::resolve(rules, state, step)
        }
        _ => Err(Error::coded(
            format!(
                "step {}: this version of the engine cannot resolve the {} phase yet [{}, {}]",
                step.name(),
                step.phase(),
                Code::PhaseNotChecked.id(),
                Code::PhaseNotChecked.rule()
            ),
            vec![Code::PhaseNotChecked.carried()],
        )),
    }?;
    // Savannah 4.5: a construction marker entered by a Parade Order enemy
    // combat unit (not artillery alone) is removed, whatever step moved it there.
    let interdicted = crate::systems::gboar::effects::siege::interdict(rules, &mut resolved.state);
    resolved.events.extend(interdicted);
    // Savannah 4.10: a unit that came inside the perimeter sorties no
    // longer, whatever step brought it in.
    crate::systems::gboar::board::units::sortie_marks_follow(rules, &mut resolved.state);
    // Savannah 4.4: an extra construction marker is for its turn only.
    if resolved.state.extra_construction_markers > 0 && step.phase() == "victory-determination" {
        resolved.state.extra_construction_markers = 0;
    }
    // Savannah 2.1 Case A: after the last phase of a player turn, the
    // conditions checked at the end of that player's turn, with this step's dice.
    if let Step::PlayerTurn { turn, player, .. } = step {
        let last_phase = match rules.sequence.step_after(step, &resolved.state.player_order)? {
            Some((Step::PlayerTurn { turn: t, player: p, .. }, _)) => t != *turn || &p != player,
            _ => true,
        };
        if last_phase
            && resolved.state.result.is_none()
            && victory::player_turn_checks(rules, &resolved.state)?.contains(player)
        {
            let ended = victory::end_of_player_turn(rules, &resolved.state, player, dice)?;
            resolved.state = ended.state;
            resolved.events.extend(ended.events);
        }
    }
    // Conditions checked `immediate`ly end the game after whatever step
    // makes them hold, not only at Victory Determination.
    if resolved.state.result.is_none() {
        if let Some(ended) = victory::immediate(rules, state, &resolved.state)? {
            resolved.state = ended.state;
            resolved.events.extend(ended.events);
        }
    }
    let mut events = resolved.events;
    let state = advance(rules, resolved.state, step, &mut events)?;
    Ok(Resolution { state, events })
}

/// The sides `step` awaits orders from in `state`: the sequence's (series 5;
/// who moves, who fires), except a fire or close combat phase in which no
/// unit could take part, which awaits no one.
pub fn awaited(rules: &Rules, state: &State, step: &Step) -> Vec<String> {
    if step.phase() == "random-events" {
        return random_events::awaited(rules, state);
    }
    if let Some(sides) = siege_sides(rules, step) {
        return sides;
    }
    combat::awaited(rules, state, step).unwrap_or_else(|| rules.sequence.awaited(step))
}

/// Every side `step` could await orders from, whatever the state: the
/// sequence's, and in a player's Defensive Artillery Fire Phase the sides
/// of that player's mortars, which fire in their own player's phase
/// (Savannah 3 IX, 4.12). Orders sent ahead and standing orders are checked
/// against this; the step itself awaits [`awaited`].
pub fn may_await(rules: &Rules, step: &Step) -> Vec<String> {
    if let Some(sides) = siege_sides(rules, step) {
        return sides;
    }
    let mut sides = rules.sequence.awaited(step);
    // Savannah 1.4, 4.3: any side may come to hold a chit or a card.
    if step.phase() == "random-events" {
        sides = rules.sequence.data.armies.iter().map(|a| a.side.clone()).collect();
        sides.sort();
        sides.dedup();
    }
    if let Step::PlayerTurn { player, phase, .. } = step {
        if phase == "defensive-artillery-fire" {
            for c in rules.module.counters.iter().filter(|c| c.kind == "mortar") {
                let army = rules.sequence.data.armies.iter().find(|a| a.id == c.army);
                if let Some(a) = army.filter(|_| rules.player_of_army(&c.army) == Some(player.as_str())) {
                    if !sides.contains(&a.side) {
                        sides.push(a.side.clone());
                    }
                }
            }
            sides.sort();
        }
    }
    sides
}

/// Savannah 3 IV, V: the French alone construct siege works (the phase's
/// `armies`); the French and the British roll on the S&B Table (the
/// chart's `procedure.order`). `None` for other steps.
fn siege_sides(rules: &Rules, step: &Step) -> Option<Vec<String>> {
    let mut sides = match step.phase() {
        "construct-siege-works" => crate::systems::gboar::board::siege::builder(rules)
            .and_then(|a| crate::systems::gboar::board::units::side_of_army(rules, &a))
            .into_iter()
            .collect(),
        "siege-and-bombardment" => siege_bombardment::sides(rules),
        _ => return None,
    };
    sides.sort();
    Some(sides)
}

/// Move the state past `step`: the next step, and at the end of a turn the
/// next turn with its fixed player order, if it has one (series 5). What
/// the move itself does is added to `events` (Savannah 1.6: the
/// reinforcements removed at the switch to the Tactical Turn Track).
pub fn advance(rules: &Rules, mut state: State, step: &Step, events: &mut Vec<Event>) -> Result<State> {
    if state.result.is_some() {
        state.next = None;
        return Ok(state);
    }
    let jump = rules.scenario_movement.track_switch.as_ref().and_then(|t| t.declaration.as_ref()).map(|d| d.next_turn);
    let after = match rules.sequence.step_after(step, &state.player_order)? {
        // Savannah 1.6 case A: at the end of the turn of the declaration,
        // play goes to the first tactical turn; reinforcements not yet
        // arrived are removed, with no VP or army morale consequence.
        Some((next, _))
            if next.turn() != step.turn() && state.assault_declared && jump.is_some_and(|t| t > next.turn()) =>
        {
            let turn = jump.unwrap_or(next.turn());
            let order = rules.sequence.fixed_order(turn)?.unwrap_or_default();
            rules.sequence.first_step(turn, &order)?.map(|s| (s, order))
        }
        other => other,
    };
    // Savannah 1.6: once play shifts to the Tactical Turn Track, by case A
    // or by reaching it (case B), "future reinforcements ... never arrive
    // and are removed from play with no VP or Army Morale consequences",
    // and 4.14's modifiers in effect at the switch are carried over.
    if let (Some(first_tactical), Some((next, _))) = (jump, &after) {
        if step.turn() < first_tactical && next.turn() >= first_tactical {
            events.extend(crate::systems::gboar::effects::arrivals::remove_future(rules, &mut state, next.turn()));
            state.strategic_turn_last = Some(step.turn());
        }
    }
    match after {
        None => state.next = None,
        Some((next, order)) => {
            if next.turn() != step.turn() {
                state.turn = next.turn();
                // Savannah 4.3: the effects of cards played "this turn" end.
                crate::systems::gboar::effects::card_effects::expire(&mut state);
                // Savannah 1.6, 4.2: fixed weather; otherwise it holds
                // until a Weather Phase says otherwise.
                let has_phase =
                    rules.sequence.steps_of_turn(state.turn, &order)?.iter().any(|s| s.phase() == "weather");
                events.extend(weather::fix_for_new_turn(rules, &mut state, has_phase));
                if let Some(first) = order.first() {
                    state.initiative_holder = Some(first.clone());
                }
                state.player_order = order;
            }
            if !offered(rules, &state, &next) {
                // Savannah 3, 1.6: a phase with nothing to do on this turn
                // is not a step of it.
                return advance(rules, state, &next, events);
            }
            state.next = Some(next);
        }
    }
    Ok(state)
}

/// Savannah 3, 1.6: whether the Strategic Turn Track gives `step`'s phase
/// anything to do in `state`: the Weather Phase on the weather turns
/// (charts/weather.yaml `weather_turns`) and on a turn after a weather
/// with `next_turn` (4.2: Heavy Rain after Hurricane, Gale or Squall; on
/// other turns the weather holds); the Random Events Phase on the Random
/// Events turns (cards.yaml `draw.turns`); a phase a scenario's turn rule
/// names (`turn_rules[].phase`) on its `steps`' turns, and only once what
/// it `requires` exists (4.6: a completed siege work hexside). Other steps
/// always are.
pub fn offered(rules: &Rules, state: &State, step: &Step) -> bool {
    let turn = step.turn();
    if crate::systems::gboar::effects::card_effects::step_skipped(rules, state, step) {
        return false;
    }
    match step.phase() {
        "weather" => {
            let chart = &rules.charts.weather;
            let forced = state
                .weather
                .as_deref()
                .and_then(|w| chart.conditions.iter().find(|c| c.id == w))
                .is_some_and(|c| c.next_turn.is_some());
            chart.weather_turns.turns.contains(&turn) || forced || state::fixed_weather(chart, state, turn).is_some()
        }
        "random-events" => cards::draw_turn(rules, turn),
        phase => match rules.scenario_movement.turn_rules.iter().find(|r| r.phase.as_deref() == Some(phase)) {
            None => true,
            Some(rule) => {
                (rule.steps.is_empty() || rule.steps.iter().any(|s| s.turn == turn))
                    && rule.requires.as_deref().is_none_or(|r| state::exists(state, r))
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::gboar::data::Source;

    /// A step's checks made ready once give each file the problems a
    /// check of it alone gives, whichever files were checked before it:
    /// each side's alone and all together, refused and accepted, in the
    /// Movement and Close Combat Phases.
    #[test]
    fn checks_made_ready_once_answer_as_each_file_alone() {
        let rules = Rules::load(&Source::Embedded("savannah-1779".into()), "historical").unwrap();
        let state = State::setup(&rules.module, "historical").unwrap();
        let body = |text: &str| -> Value { crate::base::yaml::from_str(text).unwrap() };
        let files = [
            ("american", "movement", "moves: [{unit: no-such-unit, to: '0101'}]"),
            ("french", "movement", "{}"),
            ("american", "movement", "moves: [{unit: lincoln, to: '9999'}]"),
            ("american", "close-combat", "attacks: [{attackers: [no-such-unit], defenders: [nobody]}]"),
            ("french", "close-combat", "{}"),
        ];
        for phase in ["movement", "close-combat"] {
            let step = Step::PlayerTurn { turn: state.turn, player: "allies".into(), phase: phase.into() };
            let checks = Checks::new(&rules, &state, &step);
            let mut refused = 0;
            for _ in 0..2 {
                for (side, _, text) in files.iter().filter(|f| f.1 == phase) {
                    let shared = checks.validate_body(side, &body(text), "f", text);
                    let alone = validate_body(&rules, &state, &step, side, &body(text), "f", text);
                    assert_eq!(format!("{shared:?}"), format!("{alone:?}"), "{phase} {side}: {text}");
                    refused += usize::from(!shared.is_empty());
                }
                let together: BTreeMap<String, Value> = files
                    .iter()
                    .filter(|f| f.1 == phase)
                    .map(|(side, _, text)| (side.to_string(), body(text)))
                    .collect();
                let shared = checks.validate_step(&together);
                let alone = validate_step(&rules, &state, &step, &together);
                assert_eq!(format!("{shared:?}"), format!("{alone:?}"), "{phase}, all together");
            }
            assert!(refused >= 2, "{phase}: the refused files were refused");
        }
    }

    /// The walk that spares a body without an empty field the paths finds
    /// every body with one, at any depth, and never the root itself.
    #[test]
    fn a_body_is_walked_for_its_empty_fields_only_if_it_has_a_null() {
        let rules = Rules::load(&Source::Embedded("savannah-1779".into()), "historical").unwrap();
        let state = State::setup(&rules.module, "historical").unwrap();
        let step = state.next.clone().unwrap();
        for (text, empty) in [
            ("{}", false),
            ("~", false),
            ("moves: [{unit: a, to: '0101'}]", false),
            ("moves:", true),
            ("moves: [~]", true),
            ("moves: [{unit: a, path: ['0101', ~]}]", true),
            ("momentum: !x {spend: ~}", true),
        ] {
            let body: Value = crate::base::yaml::from_str(text).unwrap();
            assert_eq!(has_null(&body), empty, "{text}");
            assert_eq!(!empty_fields(&rules, &step, "british", &body).is_empty(), empty, "{text}");
        }
    }

    /// Savannah 3, 1.6: on the Strategic Turn Track each game-turn phase is
    /// a step only on its turns (stand-in tracks: weather 1-5, 7, 9, 11,
    /// 13, 15; Random Events 1, 3-6, 8, 10-12, 14; siege works 9-12; Siege
    /// & Bombardment never without a completed siege work), the player
    /// order fixed (no Initiative Phase) and the British first.
    #[test]
    fn the_strategic_turn_track() {
        let rules = Rules::load(&Source::Embedded("savannah-1779".into()), "campaign").unwrap();
        let mut state = State::setup(&rules.module, "campaign").unwrap();
        state.weather = Some("favorable".into());
        let on = |phase: &str| -> Vec<u32> {
            (1..=15)
                .filter(|&turn| {
                    let mut s = state.clone();
                    s.turn = turn;
                    offered(&rules, &s, &Step::GameTurn { turn, phase: phase.into() })
                })
                .collect()
        };
        assert_eq!(on("weather"), [1, 2, 3, 4, 5, 7, 9, 11, 13, 15]);
        assert_eq!(on("random-events"), [1, 3, 4, 5, 6, 8, 10, 11, 12, 14]);
        assert_eq!(on("construct-siege-works"), [9, 10, 11, 12]);
        assert!(on("siege-and-bombardment").is_empty());
        assert!(on("movement").len() == 15, "other phases are always steps");
        for turn in 2..=15 {
            assert_eq!(rules.sequence.fixed_order(turn).unwrap().unwrap(), ["british", "allies"], "turn {turn}");
        }
        // After a Squall the next turn has a Weather Phase, weather turn or not (4.2).
        state.weather = Some("squall".into());
        state.turn = 6;
        assert!(offered(&rules, &state, &Step::GameTurn { turn: 6, phase: "weather".into() }));
    }

    /// Savannah Historical Scenario: Fog on turn 16, then Favorable; the
    /// new turn's fixed weather comes with the turn.
    #[test]
    fn the_weather_changes_with_the_turn() {
        let rules = Rules::load(&Source::Embedded("savannah-1779".into()), "historical").unwrap();
        let state = State::setup(&rules.module, "historical").unwrap();
        assert_eq!(state.weather.as_deref(), Some("fog"));
        let end = Step::EndOfTurn { turn: 16, phase: "victory-determination".into() };
        let next = advance(&rules, state, &end, &mut Vec::new()).unwrap();
        assert_eq!(next.turn, 17);
        assert_eq!(next.weather.as_deref(), Some("favorable"));
    }
}
