//! Series 7.4 Intelligence, for a module whose Exclusive Rules prohibit
//! examining enemy stacks (module.yaml `intelligence: hidden-stacks`; the
//! series rule and Savannah leave every stack open, `open`, and nothing
//! here then runs).
//!
//! 7.4: "Both sides may examine all stacks of friendly and enemy units.
//! Where Exclusive Rules provide exceptions and players are prohibited from
//! examining enemy stacks, follow the following procedure ...". By email
//! no one looks at a table, so what a side may see is what its reports
//! show; this module decides it, step by step, and leaves the rest to the
//! events' `visible_to` marks (report/model.rs), which the reports obey:
//!
//! - A step's events that name an enemy unit a side may not examine are
//!   kept whole for the sides that may see them (and the referee), and the
//!   other sides get a copy that says what happened where, without units,
//!   strengths or conditions ([`redact`]).
//! - A side may examine, free: the hex of each target its fire names
//!   ("Once a target hex is identified for Artillery or Rifle Fire, the
//!   firing player is free to examine all units in that specific hex"),
//!   and in its own Close Combat Phase the enemy stacks next to its units
//!   ("It is also permitted to examine an enemy stack for purposes of
//!   calculating odds in Close Combat but only after friendly units have
//!   been moved adjacent and the Close Combat phase is in effect").
//! - Any other enemy stack it examines by order (`examine: [HEX, ...]` in
//!   its orders for any step), after the step, at the Army Morale
//!   Adjustment Chart's entry `examined-enemy-stack` each time ("A penalty
//!   of -1 Army Morale will be imposed upon a player EACH TIME he examines
//!   an enemy stack other than for the above stated purposes"); an
//!   `examine` order for a stack it may examine free costs nothing.
//! - Roll purposes name no unit (the roll log is every side's): a unit's
//!   name becomes its army's ([`Purposes`]).
//!
//! What a side has examined is kept in the state (`examined`), unit by
//! unit, until the unit leaves the hex it was seen in: its map shows it. effects/ imports board/ and data/ only.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value as Json;

use crate::base::dice::Die;
use crate::base::error::Result;
use crate::base::hex::{neighbours, HexId};
use crate::base::yaml::Value;
use crate::system::{Dice, Event, VISIBLE_TO};
use crate::systems::gboar::board::refusals::Code;
use crate::systems::gboar::board::state::State;
use crate::systems::gboar::board::units::{hex_of, side_of};
use crate::systems::gboar::board::Rules;
use crate::systems::gboar::data::sequence::Step;
use crate::systems::gboar::data::stacking::Intelligence;

/// The orders field of a side's examinations (7.4).
pub const EXAMINE: &str = "examine";

/// The Army Morale Adjustment Chart's entry an examination by order costs.
pub const CHART_ENTRY: &str = crate::systems::gboar::data::stacking::EXAMINED_ENEMY_STACK;

/// Whether the module hides enemy stacks (module.yaml `intelligence`).
pub fn hidden(rules: &Rules) -> bool {
    rules.intelligence == Intelligence::HiddenStacks
}

/// Whether `unit` is `side`'s or its alliance's (7.4's "friendly units").
pub fn friendly(rules: &Rules, side: &str, unit: &str) -> bool {
    let own = side_of(rules, unit);
    if own == side {
        return true;
    }
    let player = rules.player_of_side(side);
    !player.is_empty() && rules.player_of_unit(unit) == Some(player.as_str())
}

/// The side's `examine:` hexes, read and checked: (hexes, problems as
/// (field, message)). Refused when every stack is open, when a hex is not
/// one of the map's, or named twice.
pub fn examine_order(rules: &Rules, body: &Value) -> (Vec<HexId>, Vec<Problem>) {
    let Some(value) = body.as_mapping().and_then(|m| m.get(Value::String(EXAMINE.into()))) else {
        return (Vec::new(), Vec::new());
    };
    if !hidden(rules) {
        return (
            Vec::new(),
            vec![(
                Code::StacksOpen,
                EXAMINE.into(),
                "every stack may be examined already (series 7.4; module.yaml `intelligence` is `open`): remove `examine:`"
                    .into(),
            )],
        );
    }
    let Some(items) = value.as_sequence() else {
        return (
            Vec::new(),
            vec![(
                Code::OrdersShape,
                EXAMINE.into(),
                "is a list of hexes, e.g. `examine: [\"1709\"]` (series 7.4)".into(),
            )],
        );
    };
    let mut hexes = Vec::new();
    let mut problems = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let field = format!("{EXAMINE}[{i}]");
        let text = match item {
            Value::String(s) => s.clone(),
            Value::Number(n) => format!("{n:0>4}"),
            _ => {
                problems.push((Code::NotAHexId, field, "is a hex of the map (CCRR, e.g. \"1709\")".into()));
                continue;
            }
        };
        match text.parse::<HexId>() {
            Ok(h) if rules.module.map.contains(h) && !hexes.contains(&h) => hexes.push(h),
            Ok(h) if hexes.contains(&h) => problems.push((
                Code::ListedTwice,
                field,
                format!("{h} is named twice: each examination is one stack, once (7.4)"),
            )),
            _ => problems.push((
                Code::NotAHexId,
                field,
                format!("'{text}' is not a hex of the map (CCRR, e.g. \"1709\")"),
            )),
        }
    }
    (hexes, problems)
}

/// The body without its `examine:` field (what the phase reads): copied
/// only when it holds the field (most bodies do not).
pub fn without_examine(body: &Value) -> Cow<'_, Value> {
    match body {
        Value::Mapping(m) if m.contains_key(Value::String(EXAMINE.into())) => {
            let mut m = m.clone();
            m.remove(Value::String(EXAMINE.into()));
            Cow::Owned(Value::Mapping(m))
        }
        other => Cow::Borrowed(other),
    }
}

/// A problem of 7.4's fields: its code, field and message.
pub type Problem = (Code, String, String);

/// A side's orders with their hex targets replaced by the units picked
/// (the orders as given, not copied, when they have no fire list), and
/// the picks as events.
pub type Targeted<'b> = (Cow<'b, Value>, Vec<Event>);

/// Fire orders' lists whose items may name a hex as their target under
/// hidden stacks: (phase, list, firers' key).
const FIRE_LISTS: [(&str, &str, &str); 2] =
    [("defensive-artillery-fire", "fire", "guns"), ("rifle-fire", "rifle_fire", "rifles")];

/// 7.4 by email: "Once a target hex is identified for Artillery or Rifle
/// Fire, the firing player is free to examine all units in that specific
/// hex in order to pick the specific target. One unit in the reviewed hex
/// must be fired upon in that very same Fire Phase". A player cannot look
/// and then pick within one set of orders, so under hidden stacks a fire's
/// `target` may be a hex, with `prefer:`, a list of unit ids or unit types
/// in the order the player would pick them: the engine picks for it the
/// first enemy combat unit in the hex that a preference names (in the
/// preferences' order), else the one of most Strength Points (then the
/// first by id), never one another fire of the same orders picked (11.2).
/// Returns the body with each hex replaced by the unit picked, and an event
/// per pick for `side` alone; or the problems, by field.
pub fn hex_targets<'b>(
    rules: &Rules,
    state: &State,
    phase: &str,
    side: &str,
    body: &'b Value,
) -> std::result::Result<Targeted<'b>, Vec<Problem>> {
    let Some((_, list, firers)) = FIRE_LISTS.iter().find(|(p, _, _)| *p == phase) else {
        return Ok((Cow::Borrowed(body), Vec::new()));
    };
    let key = |k: &str| Value::String(k.to_string());
    // Only a body that holds the fire list is copied to be changed.
    if !body.as_mapping().and_then(|m| m.get(key(list))).is_some_and(Value::is_sequence) {
        return Ok((Cow::Borrowed(body), Vec::new()));
    }
    let mut body = body.clone();
    let Some(items) = body.as_mapping_mut().and_then(|m| m.get_mut(key(list))).and_then(Value::as_sequence_mut) else {
        return Ok((Cow::Owned(body), Vec::new()));
    };
    let mut problems = Vec::new();
    let mut events = Vec::new();
    let mut picked: Vec<String> = Vec::new();
    for (i, item) in items.iter_mut().enumerate() {
        let field = format!("{list}[{i}]");
        let Some(map) = item.as_mapping_mut() else { continue };
        let prefer: Option<Vec<String>> = match map.remove(key("prefer")) {
            None => None,
            Some(Value::Sequence(v)) if v.iter().all(|p| p.as_str().is_some()) => {
                Some(v.iter().filter_map(|p| p.as_str().map(str::to_string)).collect())
            }
            Some(_) => {
                problems.push((
                    Code::OrdersShape,
                    format!("{field}.prefer"),
                    "is a list of unit ids or unit types, e.g. [artillery, infantry]".into(),
                ));
                continue;
            }
        };
        let unknown = unknown_preferences(rules, &field, prefer.as_deref().unwrap_or_default());
        if !unknown.is_empty() {
            problems.extend(unknown);
            continue;
        }
        let target = map.get(key("target")).and_then(Value::as_str).map(str::to_string);
        let hex = target.as_deref().and_then(|t| t.parse::<HexId>().ok()).filter(|h| rules.module.map.contains(*h));
        let firer_side = map
            .get(key(firers))
            .and_then(Value::as_sequence)
            .and_then(|f| f.first())
            .and_then(Value::as_str)
            .map(|f| side_of(rules, f).to_string())
            .unwrap_or_else(|| side.to_string());
        let Some(hex) = hex.filter(|_| hidden(rules)) else {
            if prefer.is_some() {
                problems.push((
                    Code::OrdersShape,
                    format!("{field}.prefer"),
                    "is for a fire at a hex under hidden stacks (7.4): give the hex as `target:`, or remove `prefer:`"
                        .into(),
                ));
            }
            // A unit the side has not examined is named by its hex: a
            // refusal must not tell where an unseen unit is (or is not).
            let unseen = target.as_deref().is_some_and(|t| {
                rules.counter(t).is_some() && !friendly(rules, &firer_side, t) && !known(state, &firer_side, t)
            });
            if hidden(rules) && unseen {
                problems.push((
                    Code::TargetNotExamined,
                    format!("{field}.target"),
                    "names an enemy unit this side has not examined: under hidden stacks (7.4) a fire names the \
                     hex of the stack, e.g. `target: \"0506\"`, with `prefer:` (docs/orders.md)"
                        .into(),
                ));
            }
            continue;
        };
        let mut candidates: Vec<(&str, i32)> = enemies_in(rules, state, &firer_side, hex)
            .into_iter()
            .filter(|u| rules.counter(u).is_some_and(|c| !c.is_leader()) && !picked.contains(u))
            .filter_map(|u| {
                let c = rules.counter(&u)?;
                let steps = state.units.get(&u).map_or(1, |s| s.steps);
                // The printed SPs for the steps it has left (an
                // artillery unit's too: 7.1's stacking weight counts it as
                // a unit, not by SPs).
                Some((c.id.as_str(), c.strength_points(steps)))
            })
            .collect();
        candidates.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        let preferred = prefer.iter().flatten().find_map(|p| {
            candidates
                .iter()
                .find(|(u, _)| *u == p || rules.counter(u).is_some_and(|c| &c.kind == p))
                .map(|c| (c.0, Some(p)))
        });
        let Some((unit, why)) = preferred.or_else(|| candidates.first().map(|c| (c.0, None))) else {
            problems.push((
                Code::NoTargetInHex,
                format!("{field}.target"),
                format!("{hex} holds no enemy combat unit that no other fire of these orders picked (7.4, 11.2)"),
            ));
            continue;
        };
        let why = match why {
            Some(p) => format!("the first of its preferences there: {p}"),
            None => "no preference named one there: the most Strength Points".into(),
        };
        let name = rules.counter(unit).map_or(unit, |c| c.name.as_str());
        events.push(
            Event::new("7.4", "fire-target", format!("{side}'s {field} fires at {hex}: the target is {name} ({why})"))
                .with("side", side)
                .with("hex", hex.to_string())
                .with("target", unit)
                .with(VISIBLE_TO, [side]),
        );
        picked.push(unit.to_string());
        map.insert(key("target"), Value::String(unit.to_string()));
    }
    if problems.is_empty() {
        Ok((Cow::Owned(body), events))
    } else {
        Err(problems)
    }
}

/// The entries of a fire's `prefer:` (field `FIELD.prefer[i]`) that are
/// neither a unit id nor a unit type of the module, as problems. Any of the
/// module's ids and types is accepted, whether or not the side has seen
/// such a unit or one is on the map, so the check tells nothing.
fn unknown_preferences(rules: &Rules, field: &str, prefer: &[String]) -> Vec<Problem> {
    let types: BTreeSet<&str> = rules.module.counters.iter().map(|c| c.kind.as_str()).collect();
    prefer
        .iter()
        .enumerate()
        .filter(|(_, p)| rules.counter(p).is_none() && !types.contains(p.as_str()))
        .map(|(i, p)| {
            (
                Code::UnknownUnit,
                format!("{field}.prefer[{i}]"),
                format!(
                    "'{p}' is neither a unit id nor a unit type of the module (7.4); the types are {}",
                    types.iter().copied().collect::<Vec<_>>().join(", ")
                ),
            )
        })
        .collect()
}

/// The shape of 7.4's fields in a body, without a position (standing
/// orders): `examine:` checked and taken out, and under hidden stacks each
/// fire's `prefer:` checked and taken out; the rest is the phase's.
pub fn without_own_fields<'b>(
    rules: &Rules,
    phase: &str,
    body: &'b Value,
) -> std::result::Result<Cow<'b, Value>, Vec<Problem>> {
    let (_, problems) = examine_order(rules, body);
    if !problems.is_empty() {
        return Err(problems);
    }
    let body = without_examine(body);
    let Some((_, list, _)) = FIRE_LISTS.iter().find(|(p, _, _)| *p == phase).filter(|_| hidden(rules)) else {
        return Ok(body);
    };
    let mut body = body.into_owned();
    let key = |k: &str| Value::String(k.to_string());
    let mut problems = Vec::new();
    if let Some(items) = body.as_mapping_mut().and_then(|m| m.get_mut(key(list))).and_then(Value::as_sequence_mut) {
        for (i, item) in items.iter_mut().enumerate() {
            let Some(map) = item.as_mapping_mut() else { continue };
            match map.remove(key("prefer")) {
                Some(Value::Sequence(v)) if v.iter().all(|p| p.as_str().is_some()) => {
                    let prefer: Vec<String> = v.iter().filter_map(|p| p.as_str().map(str::to_string)).collect();
                    problems.extend(unknown_preferences(rules, &format!("{list}[{i}]"), &prefer));
                }
                Some(_) => problems.push((
                    Code::OrdersShape,
                    format!("{list}[{i}].prefer"),
                    "is a list of unit ids or unit types, e.g. [artillery, infantry]".into(),
                )),
                None => {}
            }
        }
    }
    if problems.is_empty() {
        Ok(Cow::Owned(body))
    } else {
        Err(problems)
    }
}

/// Problems of orders whose fires at hexes were given units
/// ([`hex_targets`]' `picks`), with each unit picked named as "the unit
/// picked in HEX": the side has not seen which it is.
pub fn unnamed_picks(
    rules: &Rules,
    picks: &[Event],
    mut problems: Vec<crate::base::error::Located>,
) -> Vec<crate::base::error::Located> {
    for pick in picks {
        let (Some(unit), Some(hex)) =
            (pick.fields.get("target").and_then(Json::as_str), pick.fields.get("hex").and_then(Json::as_str))
        else {
            continue;
        };
        let name = rules.counter(unit).map(|c| c.name.as_str());
        let instead = format!("the unit picked in {hex}");
        for p in &mut problems {
            for n in std::iter::once(unit).chain(name) {
                if p.message.contains(n) {
                    p.message = p.message.replace(n, &instead);
                }
            }
        }
    }
    problems
}

/// A refusal's text with the units of `picks` unnamed, as [`unnamed_picks`].
pub fn unnamed_text(rules: &Rules, picks: &[Event], text: String) -> String {
    let one = crate::base::error::Located {
        file: String::new(),
        line: None,
        column: None,
        field: String::new(),
        message: text,
        code: None,
    };
    unnamed_picks(rules, picks, vec![one]).remove(0).message
}

/// Whether `side` may see enemy `unit` in `state` outside a step's events
/// (a refusal, the orders template): its own and its allies' units, the
/// enemy units it knows (examined, and still where it saw them), and in
/// its own Close Combat Phase the enemy units next to its units (7.4: "It
/// is also permitted to examine an enemy stack for purposes of calculating
/// odds in Close Combat but only after friendly units have been moved
/// adjacent and the Close Combat phase is in effect"). Every unit when
/// stacks are open.
pub fn sees(rules: &Rules, state: &State, step: &Step, side: &str, unit: &str) -> bool {
    if !hidden(rules) || rules.counter(unit).is_none() || friendly(rules, side, unit) || known(state, side, unit) {
        return true;
    }
    let Step::PlayerTurn { player, phase, .. } = step else { return false };
    if phase != "close-combat" || !rules.sequence.sides_of(player).iter().any(|s| s == side) {
        return false;
    }
    let Some(at) = hex_of(state, unit) else { return false };
    let layout = rules.module.map.layout;
    state
        .units
        .keys()
        .any(|u| friendly(rules, side, u) && hex_of(state, u).is_some_and(|h| neighbours(h, layout).contains(&at)))
}

/// `text` with each unit id or name that `seen` refuses replaced by "a
/// hidden ARMY unit" (7.4): what a side reads of a refusal or a guide
/// names no enemy unit it may not examine. The longest name is matched
/// first, and only whole words (`blue-foot` is not in `blue-foot-2`).
pub fn hide_unseen(rules: &Rules, text: &str, seen: impl Fn(&str) -> bool) -> String {
    replace_units(rules, text, |id| {
        (!seen(id)).then(|| format!("a hidden {} unit", rules.counter(id).map_or("enemy", |c| c.army.as_str())))
    })
}

/// `text` with each unit id or name for which `hide` gives a replacement
/// replaced by it, the longest name first and whole words only; a
/// replacement repeated in a list ("X, X", "X and X") is written once.
pub fn replace_units(rules: &Rules, text: &str, hide: impl Fn(&str) -> Option<String>) -> String {
    let names = unit_names(rules);
    let word = |c: char| c.is_alphanumeric() || c == '-' || c == '_';
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        let starts = text[..i].chars().next_back().is_none_or(|c| !word(c));
        let found = names.iter().filter(|_| starts).find(|(name, _, _)| {
            rest.starts_with(name.as_str()) && rest[name.len()..].chars().next().is_none_or(|c| !word(c))
        });
        match found {
            Some((name, id, _)) => {
                match hide(id) {
                    None => out.push_str(name),
                    Some(r) => {
                        let mut repeated = false;
                        for sep in [", ", " and ", "; "] {
                            if out.ends_with(&format!("{r}{sep}")) {
                                out.truncate(out.len() - sep.len());
                                repeated = true;
                                break;
                            }
                        }
                        if !repeated {
                            out.push_str(&r);
                        }
                    }
                }
                i += name.len();
            }
            None => {
                let c = rest.chars().next().unwrap_or(' ');
                out.push(c);
                i += c.len_utf8();
            }
        }
    }
    out
}

/// Every unit's name and id: (name or id, id, army), the longest first.
fn unit_names(rules: &Rules) -> Vec<(String, String, String)> {
    let mut names: Vec<(String, String, String)> = rules
        .module
        .counters
        .iter()
        .flat_map(|c| [(c.name.clone(), c.id.clone(), c.army.clone()), (c.id.clone(), c.id.clone(), c.army.clone())])
        .filter(|(n, _, _)| !n.is_empty())
        .collect();
    names.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
    names.dedup();
    names
}

/// A refusal of a step under hidden stacks as its readers may see it
/// (7.4): a line about one side's orders (`red: ...`, `red's orders, ...`)
/// names only the units that side may see; any other line only those
/// every side of `sides` may see.
pub fn hidden_refusal(rules: &Rules, state: &State, step: &Step, sides: &[String], text: &str) -> String {
    let all: Vec<String> = rules.module.info.sides.iter().map(|s| s.id.clone()).collect();
    let lines: Vec<String> = text
        .split('\n')
        .map(|line| {
            let trimmed = line.trim_start();
            let about =
                all.iter().find(|s| trimmed.starts_with(&format!("{s}:")) || trimmed.starts_with(&format!("{s}'s ")));
            let readers: Vec<&str> = match about {
                Some(s) => vec![s.as_str()],
                None => sides.iter().map(String::as_str).collect(),
            };
            hide_unseen(rules, line, |u| readers.iter().all(|s| sees(rules, state, step, s, u)))
        })
        .collect();
    lines.join("\n")
}

/// The enemy units in `hex` for `side`, in id order.
fn enemies_in(rules: &Rules, state: &State, side: &str, hex: HexId) -> Vec<String> {
    state
        .units
        .keys()
        .filter(|u| hex_of(state, u) == Some(hex) && rules.counter(u).is_some() && !friendly(rules, side, u))
        .cloned()
        .collect()
}

/// What 7.4 lets each side examine free in `step`: the hexes of its fire's
/// targets (the step's `to-hit` events, by the firers' side), and in its
/// own Close Combat Phase every hex next to one of its units that holds an
/// enemy unit (in the state before the step).
pub fn free_hexes(rules: &Rules, before: &State, step: &Step, events: &[Event]) -> BTreeMap<String, BTreeSet<HexId>> {
    let mut free: BTreeMap<String, BTreeSet<HexId>> = BTreeMap::new();
    for e in events.iter().filter(|e| e.kind == "to-hit") {
        let firer = e.fields.get("firers").and_then(Json::as_array).and_then(|f| f.first()).and_then(Json::as_str);
        let hex = e.fields.get("hex").and_then(Json::as_str).and_then(|h| h.parse::<HexId>().ok());
        if let (Some(firer), Some(hex)) = (firer, hex) {
            free.entry(side_of(rules, firer).to_string()).or_default().insert(hex);
        }
    }
    if let Step::PlayerTurn { player, phase, .. } = step {
        if phase == "close-combat" {
            let layout = rules.module.map.layout;
            for side in rules.sequence.sides_of(player) {
                for unit in before.units.keys().filter(|u| friendly(rules, &side, u)) {
                    let Some(at) = hex_of(before, unit) else { continue };
                    for next in neighbours(at, layout) {
                        if !enemies_in(rules, before, &side, next).is_empty() {
                            free.entry(side.clone()).or_default().insert(next);
                        }
                    }
                }
            }
        }
    }
    free
}

/// What each side knows of the enemy after a step (`State::examined`):
/// the units it examined before, less those that have left the hex it saw
/// them in, and every enemy unit now in a hex it examined free in the step.
pub fn remember(rules: &Rules, state: &mut State, free: &BTreeMap<String, BTreeSet<HexId>>) {
    let mut memory = std::mem::take(&mut state.examined);
    for units in memory.values_mut() {
        units.retain(|unit, hex| state.units.get(unit).and_then(|u| u.hex).is_some_and(|h| h.is(hex)));
    }
    for (side, hexes) in free {
        for &hex in hexes {
            for unit in enemies_in(rules, state, side, hex) {
                memory.entry(side.clone()).or_default().insert(unit, hex.to_string());
            }
        }
    }
    memory.retain(|_, units| !units.is_empty());
    state.examined = memory;
}

/// Whether `side` knows enemy unit `unit` in `state`: it examined it in
/// the hex it is still in.
pub fn known(state: &State, side: &str, unit: &str) -> bool {
    let here = state.units.get(unit).and_then(|u| u.hex);
    state.examined.get(side).and_then(|m| m.get(unit)).is_some_and(|hex| here.is_some_and(|h| h.is(hex)))
}

/// 7.4: each side's examinations by order, after the step (`examine` of
/// its orders): an event per hex listing the enemy stack there for that
/// side alone, free where `free` allows it, else at the chart's
/// `examined-enemy-stack` entry. A hex with no enemy unit in it costs
/// nothing: there is no stack to examine.
pub fn examine(
    rules: &Rules,
    state: &mut State,
    orders: &BTreeMap<String, Vec<HexId>>,
    free: &BTreeMap<String, BTreeSet<HexId>>,
) -> Result<Vec<Event>> {
    let mut events = Vec::new();
    for (side, hexes) in orders {
        for &hex in hexes {
            let units = enemies_in(rules, state, side, hex);
            let costs = !units.is_empty() && !free.get(side).is_some_and(|f| f.contains(&hex));
            let what: Vec<String> = units.iter().map(|u| stack_line(rules, state, u)).collect();
            let text = match (units.is_empty(), costs) {
                (true, _) => format!("{side} examines {hex}: no enemy stack there, no cost (7.4)"),
                (false, false) => format!(
                    "{side} examines the enemy stack in {hex}, free: 7.4 lets it examine this stack now: {}",
                    what.join("; ")
                ),
                (false, true) => format!(
                    "{side} examines the enemy stack in {hex} other than for fire or close combat (7.4): {}",
                    what.join("; ")
                ),
            };
            events.push(
                Event::new("7.4", "examine", text)
                    .with("side", side)
                    .with("hex", hex.to_string())
                    .with("units", &units)
                    .with("free", !costs)
                    .with(VISIBLE_TO, [side]),
            );
            if costs {
                let army = rules.sequence.data.armies.iter().find(|a| &a.side == side).map(|a| a.id.clone());
                if let Some(army) = army {
                    let why = format!("{side} examined the enemy stack in {hex} (7.4)");
                    events.extend(crate::systems::gboar::effects::morale::apply(
                        rules,
                        state,
                        CHART_ENTRY,
                        &army,
                        &[],
                        1,
                        ("7.4", &why),
                    )?);
                }
            }
            if !units.is_empty() {
                let memory = state.examined.entry(side.clone()).or_default();
                memory.extend(units.iter().map(|u| (u.clone(), hex.to_string())));
            }
        }
    }
    Ok(events)
}

/// A unit as an examination shows it: name, strength, condition.
fn stack_line(rules: &Rules, state: &State, unit: &str) -> String {
    let name = rules.counter(unit).map(|c| c.name.as_str()).unwrap_or(unit);
    match state.units.get(unit) {
        Some(u) => {
            let condition = serde_json::to_value(u.condition).ok();
            let condition = condition.as_ref().and_then(Json::as_str).unwrap_or("?");
            let steps = if u.steps == 1 { "1 step".to_string() } else { format!("{} steps", u.steps) };
            format!("{name} ({unit}): {steps}, {condition}")
        }
        None => name.to_string(),
    }
}

/// Every unit id an event names: in its fields (values and keys, at any
/// depth) and, by id or name, in its text.
fn named_units(rules: &Rules, event: &Event) -> BTreeSet<String> {
    fn walk(rules: &Rules, v: &Json, out: &mut BTreeSet<String>) {
        match v {
            Json::String(s) if rules.counter(s).is_some() => {
                out.insert(s.clone());
            }
            Json::Array(items) => items.iter().for_each(|i| walk(rules, i, out)),
            Json::Object(map) => {
                for (k, v) in map {
                    if rules.counter(k).is_some() {
                        out.insert(k.clone());
                    }
                    walk(rules, v, out);
                }
            }
            _ => {}
        }
    }
    let mut out = BTreeSet::new();
    for (key, value) in &event.fields {
        if key != VISIBLE_TO {
            walk(rules, value, &mut out);
        }
    }
    for c in &rules.module.counters {
        if event.text.contains(&c.name) || event.text.contains(&c.id) {
            out.insert(c.id.clone());
        }
    }
    out
}

/// Events whose numbers are on the public tracks (Army Morale, series 16;
/// victory points): a copy keeps these fields of them.
const PUBLIC: [(&str, &[&str]); 2] =
    [("army-morale", &["army", "delta", "before", "after", "level"]), ("victory-points", &["army", "halves"])];

/// Fields a copy for a side that may not see the units keeps: the hexes
/// (where things happened is in plain sight), and the public tracks'
/// numbers.
fn hex_fields(rules: &Rules, event: &Event) -> BTreeMap<String, Json> {
    let is_hex =
        |v: &Json| v.as_str().and_then(|s| s.parse::<HexId>().ok()).is_some_and(|h| rules.module.map.contains(h));
    event
        .fields
        .iter()
        .filter(|(_, v)| match v {
            Json::Array(items) => !items.is_empty() && items.iter().all(is_hex),
            v => is_hex(v),
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// The public tracks' fields of `event`, if it is of a kind that moves one.
fn public_fields(event: &Event) -> BTreeMap<String, Json> {
    let keep = PUBLIC.iter().find(|(kind, _)| *kind == event.kind).map_or(&[][..], |(_, keys)| *keys);
    event.fields.iter().filter(|(k, _)| keep.contains(&k.as_str())).map(|(k, v)| (k.clone(), v.clone())).collect()
}

/// The step's events as each side may see them (see the module's
/// comment): `may_see` gives, by side, the hexes it may examine free in
/// this step; a unit in one of them before or after the step is seen, and
/// so is one the side knows (examined, and still where it was seen) before
/// or after it. What a side examined by order is in `after`'s memory: a
/// hex examined after the step shows only the units there after it.
pub fn redact(
    rules: &Rules,
    before: &State,
    after: &State,
    may_see: &BTreeMap<String, BTreeSet<HexId>>,
    events: Vec<Event>,
) -> Vec<Event> {
    let sides: Vec<String> = rules.module.info.sides.iter().map(|s| s.id.clone()).collect();
    let seen = |side: &str, unit: &str| {
        friendly(rules, side, unit)
            || known(before, side, unit)
            || known(after, side, unit)
            || may_see.get(side).is_some_and(|hexes| {
                [hex_of(before, unit), hex_of(after, unit)].into_iter().flatten().any(|h| hexes.contains(&h))
            })
    };
    let mut out = Vec::with_capacity(events.len());
    for mut event in events {
        let marks = event.fields.get(VISIBLE_TO).cloned();
        let reaches = |side: &str| match &marks {
            None => true,
            Some(Json::Array(list)) => {
                let player = rules.player_of_side(side);
                list.iter().filter_map(Json::as_str).any(|s| s == side || (!player.is_empty() && s == player))
            }
            Some(_) => false,
        };
        let units = named_units(rules, &event);
        // The sides that see it whole; the others grouped by the units
        // they do see (their own and their allies', examined ones).
        let mut full = Vec::new();
        let mut shown_less: BTreeMap<Vec<String>, Vec<String>> = BTreeMap::new();
        for side in sides.iter().filter(|s| reaches(s)) {
            let visible: Vec<String> = units.iter().filter(|u| seen(side, u)).cloned().collect();
            if visible.len() == units.len() {
                full.push(side.clone());
            } else {
                shown_less.entry(visible).or_default().push(side.clone());
            }
        }
        if shown_less.is_empty() {
            out.push(event);
            continue;
        }
        let fields = hex_fields(rules, &event);
        // The hexes in the order the fields give them (`from`, `path`,
        // `to`: a move's own order), each once.
        let mut hexes: Vec<&str> = Vec::new();
        for v in fields.values() {
            let list: Vec<&str> = match v {
                Json::Array(items) => items.iter().filter_map(Json::as_str).collect(),
                v => v.as_str().into_iter().collect(),
            };
            for h in list {
                if !hexes.contains(&h) {
                    hexes.push(h);
                }
            }
        }
        let at = if hexes.is_empty() { String::new() } else { format!(" at {}", hexes.join(", ")) };
        let public = public_fields(&event);
        let numbers = if public.is_empty() {
            String::new()
        } else {
            let shown: Vec<String> = public
                .iter()
                .map(|(k, v)| format!("{k} {}", v.as_str().map_or_else(|| v.to_string(), str::to_string)))
                .collect();
            format!(" ({})", shown.join(", "))
        };
        let mut copies = Vec::new();
        for (visible, to) in shown_less {
            let hidden: BTreeSet<&str> =
                units.iter().filter(|u| !visible.contains(u)).filter_map(|u| rules.army_of(u)).collect();
            let names: Vec<&str> =
                visible.iter().map(|u| rules.counter(u).map_or(u.as_str(), |c| c.name.as_str())).collect();
            let hidden = format!("hidden {} units", hidden.into_iter().collect::<Vec<_>>().join(" and "));
            let involving = if names.is_empty() { hidden } else { format!("{} and {hidden}", names.join(", ")) };
            let mut copy = Event::new(
                &event.rule,
                &event.kind,
                format!(
                    "{} ({}){at}{numbers}, involving {involving}: the enemy's units are not shown (7.4)",
                    event.kind, event.rule
                ),
            );
            copy.fields = fields.clone();
            copy.fields.extend(public.clone());
            copies.push(copy.with("units", &visible).with("hidden", true).with(VISIBLE_TO, &to));
        }
        event.fields.insert(VISIBLE_TO.into(), serde_json::to_value(&full).unwrap_or(Json::Null));
        out.push(event);
        out.extend(copies);
    }
    out
}

/// Whether `event` is a copy [`redact`] made for the sides that may not
/// see an event's units: a view of that event, not a second happening.
pub fn is_copy(event: &Event) -> bool {
    event.fields.get("hidden") == Some(&Json::Bool(true))
}

/// The dice of a step under hidden stacks: each roll's purpose with every
/// unit's name and id replaced by its army's (the roll log is in every
/// side's report).
pub struct Purposes<'a> {
    pub dice: &'a mut dyn Dice,
    /// (name or id, replacement), the longest first.
    names: Vec<(String, String)>,
}

impl<'a> Purposes<'a> {
    pub fn new(rules: &Rules, dice: &'a mut dyn Dice) -> Purposes<'a> {
        let names = unit_names(rules).into_iter().map(|(name, _, army)| (name, format!("a {army} unit"))).collect();
        Purposes { dice, names }
    }
}

impl Dice for Purposes<'_> {
    fn roll(&mut self, die: Die, purpose: &str) -> Result<u16> {
        let mut text = purpose.to_string();
        for (name, army) in &self.names {
            if text.contains(name.as_str()) {
                text = text.replace(name.as_str(), army);
            }
        }
        self.dice.roll(die, &text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::gboar::data::Source;

    fn rules() -> Rules {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/modules/intel");
        Rules::load(&Source::dir(&dir), "battle").unwrap()
    }

    /// Rolls that keep their purposes.
    struct Log(Vec<String>);

    impl Dice for Log {
        fn roll(&mut self, _die: Die, purpose: &str) -> Result<u16> {
            self.0.push(purpose.to_string());
            Ok(1)
        }
    }

    #[test]
    fn roll_purposes_name_armies_not_units() {
        let rules = rules();
        let mut log = Log(Vec::new());
        let mut dice = Purposes::new(&rules, &mut log);
        dice.roll(Die::D10, "morale check (13.5), Blue Foot in 0506").unwrap();
        dice.roll(Die::D10, "rifle fire at red-gun-2: damage").unwrap();
        dice.roll(Die::D10, "weather, turn 1").unwrap();
        assert_eq!(
            log.0,
            ["morale check (13.5), a blue unit in 0506", "rifle fire at a red unit: damage", "weather, turn 1"]
        );
    }

    #[test]
    fn an_event_naming_an_unseen_enemy_unit_has_a_copy_without_it() {
        let rules = rules();
        let state = State::setup(&rules.module, "battle").unwrap();
        let event = Event::new("9.1", "move", "Red Horse moves 0414 → 0413")
            .with("unit", "red-horse")
            .with("from", "0414")
            .with("to", "0413");
        let out = redact(&rules, &state, &state, &BTreeMap::new(), vec![event]);
        assert_eq!(out.len(), 2, "{out:#?}");
        assert_eq!(out[0].fields[VISIBLE_TO], serde_json::json!(["red"]));
        assert_eq!(out[1].fields[VISIBLE_TO], serde_json::json!(["blue", "green"]));
        assert!(!out[1].text.contains("Red Horse") && !out[1].text.contains("red-horse"), "{}", out[1].text);
        assert_eq!(out[1].fields.get("unit"), None);
        assert_eq!(out[1].fields["from"], "0414");
        // A side that may examine the hex sees it whole (sides in module order).
        let may_see = BTreeMap::from([("blue".to_string(), BTreeSet::from(["0414".parse::<HexId>().unwrap()]))]);
        let mut event = out[0].clone();
        event.fields.remove(VISIBLE_TO);
        let out = redact(&rules, &state, &state, &may_see, vec![event]);
        assert_eq!(out[0].fields[VISIBLE_TO], serde_json::json!(["red", "blue"]));
        assert_eq!(out[1].fields[VISIBLE_TO], serde_json::json!(["green"]));
    }
}
