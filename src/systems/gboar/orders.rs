//! Orders files (PRODUCT.md, "Orders"): YAML written by people, one file
//! per side per step. Every file names its game, turn, step and side, and is
//! refused if any is wrong; then the phase's own rules check the body. Every
//! problem is reported at once, with its line, column and field.
//!
//! ```yaml
//! game: savannah-demo
//! turn: 16
//! step: allies-movement      # the step's name without its turn number
//! side: french
//! moves:                     # the body: what the phase reads
//!   - unit: dillon-irish
//!     path: ["2810", "2709"]
//! ```

use crate::base::yaml::{Mapping, Value};

use crate::base::error::Located;
use crate::base::yaml::locate::Position;
use crate::base::yaml::read_orders;
use crate::systems::gboar::board::refusals::Code;
use crate::systems::gboar::board::state::State;
use crate::systems::gboar::board::Rules;
use crate::systems::gboar::data::sequence::{step_field, Step};
use crate::systems::gboar::phases::{empty_fields, hints, ShapeProblem};

/// The fields every orders file begins with.
pub const HEADER: [&str; 4] = ["game", "turn", "step", "side"];

/// A file's checked header and its body (the file without the header).
#[derive(Debug, Clone)]
pub struct Checked {
    pub side: String,
    pub step: Step,
    pub body: Value,
}

/// The turn an orders file names, as written: decimal digits (`16`, or
/// `"16"` quoted), never another spelling YAML reads as a number (`0x10`,
/// `+16`, `016`, `1_6`, `16.0`, `0o20`): every system's rule
/// ([`crate::base::yaml::locate::read_turn`]) in the series' words.
pub fn read_turn(text: &str, value: &Value) -> Result<u32, (Option<Position>, String)> {
    crate::base::yaml::locate::read_turn(text, value, "a turn is written in decimal digits, e.g. `turn: 16`")
}

/// Check an orders file's header against the game: for this game, the turn
/// and step it is at, and a side that step awaits. Returns the body, or
/// every problem found. A byte order mark before the text is skipped.
pub fn check_header(
    rules: &Rules,
    game_id: &str,
    state: &State,
    label: &str,
    text: &str,
) -> Result<Checked, Vec<Located>> {
    let text = crate::base::yaml::without_bom(text);
    let at = |code: Code, field: &str, line: Option<(usize, usize)>, message: String| Located {
        file: label.to_string(),
        line: line.map(|l| l.0),
        column: line.map(|l| l.1),
        field: field.to_string(),
        message,
        code: Some(Box::new(code.carried())),
    };
    let value: Value = match crate::base::yaml::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            let loc = crate::base::yaml::error_location(&e);
            let mut message = e.to_string();
            if let Some(i) = message.find(" at line ") {
                message.truncate(i);
            }
            return Err(vec![at(Code::NotYaml, "", loc, crate::base::error::echo_serde(&message))]);
        }
    };
    let Value::Mapping(map) = value else {
        return Err(vec![at(
            Code::NotYaml,
            "",
            Some((1, 1)),
            "an orders file is a mapping: game, turn, step, side, then the orders".into(),
        )]);
    };
    // The text is read for places once, and only if there is a problem;
    // the turn as written is read from the text as far as the turn.
    let places = crate::base::yaml::locate::Places::new(text);
    let line_of = |key: &str| places.locate(key);
    let mut problems = Vec::new();
    let missing = |key: &str| {
        at(
            Code::BadHeader,
            key,
            Some((1, 1)),
            format!("the file does not say its {key}: every orders file names game, turn, step and side"),
        )
    };
    let text_field = |key: &str, problems: &mut Vec<Located>| -> Option<String> {
        match map.get(key) {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            Some(Value::Null) => {
                problems.push(at(
                    Code::BadHeader,
                    key,
                    line_of(key),
                    format!("{key} is empty: write the {key} these orders are for"),
                ));
                None
            }
            Some(_) => {
                problems.push(at(Code::BadHeader, key, line_of(key), format!("{key} is a single value")));
                None
            }
            None => {
                problems.push(missing(key));
                None
            }
        }
    };
    let game = text_field("game", &mut problems);
    let turn = match map.get("turn") {
        None => {
            problems.push(missing("turn"));
            None
        }
        Some(v) => match read_turn(text, v) {
            Ok(turn) => Some(turn),
            Err((place, message)) => {
                problems.push(at(Code::BadHeader, "turn", place, message));
                None
            }
        },
    };
    let step_name = text_field("step", &mut problems);
    let side = text_field("side", &mut problems);
    let echo = crate::base::error::echo;
    if let Some(game) = &game {
        if game != game_id {
            problems.push(at(
                Code::WrongGame,
                "game",
                line_of("game"),
                format!("these orders are for game '{}'; this game is '{game_id}'", echo(game)),
            ));
        }
    }
    let Some(next) = &state.next else {
        problems.push(at(Code::GameOver, "step", line_of("step"), "the game is over: it awaits no orders".into()));
        return Err(problems);
    };
    let expected_step = step_field(next);
    if let Some(turn) = turn {
        if turn != next.turn() {
            problems.push(at(
                Code::WrongTurn,
                "turn",
                line_of("turn"),
                format!("these orders are for turn {turn}; the game is at turn {} (step {expected_step})", next.turn()),
            ));
        }
    }
    if let Some(step) = &step_name {
        if step != &expected_step {
            problems.push(at(
                Code::WrongStep,
                "step",
                line_of("step"),
                format!(
                    "these orders are for step '{}'; the game awaits step '{expected_step}' of turn {}",
                    echo(step),
                    next.turn()
                ),
            ));
        }
    }
    if let Some(side) = &side {
        if rules.module.info.sides.iter().all(|s| &s.id != side) {
            let known: Vec<&str> = rules.module.info.sides.iter().map(|s| s.id.as_str()).collect();
            problems.push(at(
                Code::UnknownSide,
                "side",
                line_of("side"),
                format!(
                    "'{}' is not a side of {}; the sides are {}",
                    echo(side),
                    rules.module.info.id,
                    known.join(", ")
                ),
            ));
        } else if !crate::systems::gboar::phases::may_await(rules, next).contains(side) {
            // A side the phase could await but this state does not (no
            // unit in contact, no gun in range) may still send orders: they
            // are checked like any, and nothing waits for them. What this
            // state awaits (units in contact, guns in range) is worked out
            // only for a side the phase could not await.
            let awaited = crate::systems::gboar::phases::awaited(rules, state, next);
            if !awaited.contains(side) {
                let who = if awaited.is_empty() { "no side".to_string() } else { awaited.join(", ") };
                problems.push(at(
                    Code::SideNotAwaited,
                    "side",
                    line_of("side"),
                    format!("step '{expected_step}' awaits orders from {who}, not from {side}"),
                ));
            }
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let body: Mapping = map.into_iter().filter(|(k, _)| !k.as_str().is_some_and(|k| HEADER.contains(&k))).collect();
    Ok(Checked { side: side.unwrap_or_default(), step: next.clone(), body: Value::Mapping(body) })
}

/// Check the shape of one side's orders for a kind of step without a
/// state: the keys the step's phase reads and the types of their values,
/// each listed move or attack included, and no field left empty. What
/// depends on the position (which units, which hexes, what is in range) is
/// checked by `validate_body` when the step comes. Used for standing
/// orders, which name a kind of step rather than one step of one turn.
pub fn check_shape(rules: &Rules, step: &Step, side: &str, body: &Value) -> Vec<(Code, String, String)> {
    use crate::systems::gboar::phases::close_combat;
    use crate::systems::gboar::phases::fire;
    use crate::systems::gboar::phases::initiative;
    use crate::systems::gboar::phases::movement;
    use crate::systems::gboar::phases::{random_events, siege_bombardment, siege_works};
    /// The whole body as `T`, then each item of one of its lists as `I`.
    fn with_items<T, I>(
        body: &Value,
        hint: &str,
        list: &str,
        items: fn(&T) -> &Vec<Value>,
        item_hint: &str,
    ) -> Vec<ShapeProblem>
    where
        T: serde::de::DeserializeOwned,
        I: serde::de::DeserializeOwned,
    {
        match read_orders::<T>(body, "", hint) {
            Err(p) => vec![p],
            Ok(orders) => items(&orders)
                .iter()
                .enumerate()
                .filter_map(|(i, v)| read_orders::<I>(v, &format!("{list}[{i}]"), item_hint).err())
                .collect(),
        }
    }
    fn whole<T: serde::de::DeserializeOwned>(body: &Value, hint: &str) -> Vec<ShapeProblem> {
        read_orders::<T>(body, "", hint).err().into_iter().collect()
    }
    let empty = empty_fields(rules, step, side, body);
    if !empty.is_empty() {
        return empty.into_iter().map(|(f, m)| (Code::EmptyField, f, m)).collect();
    }
    // Savannah 4.3: a card is played once, in one step's orders; standing
    // orders, used at every such step, never play one.
    if body.get(crate::systems::gboar::effects::cards::PLAY).is_some() {
        return vec![(
            Code::OrdersShape,
            crate::systems::gboar::effects::cards::PLAY.to_string(),
            "a card is played once, in the orders of the step it is played in, never in standing orders (Savannah 4.3)"
                .to_string(),
        )];
    }
    // Series 7.4's fields (`examine:`, a fire's `prefer:`); the rest is the phase's.
    let body = &match crate::systems::gboar::effects::intel::without_own_fields(rules, step.phase(), body) {
        Ok(body) => body,
        Err(problems) => return problems,
    };
    let Some(h) = hints(rules, step, side) else {
        return if body.as_mapping().is_none_or(|m| m.is_empty()) {
            Vec::new()
        } else {
            vec![(Code::NoOrdersTaken, String::new(), format!("the {} phase takes no orders", step.phase()))]
        };
    };
    let item_hint = h.items.map(|(_, hint)| hint).unwrap_or_default();
    let shape = match (step.phase(), h.items.is_some()) {
        ("initiative", _) => whole::<initiative::InitiativeOrders>(body, h.body),
        ("movement", _) => {
            with_items::<movement::MovementOrders, movement::MoveOrder>(body, h.body, "moves", |o| &o.moves, item_hint)
        }
        ("close-combat", true) => with_items::<close_combat::AttackOrders, close_combat::AttackOrder>(
            body,
            h.body,
            "attacks",
            |o| &o.attacks,
            item_hint,
        ),
        ("close-combat", false) => whole::<close_combat::DefenceOrders>(body, h.body),
        ("defensive-artillery-fire", _) => whole::<fire::FireOrders>(body, h.body),
        ("rifle-fire", _) => whole::<fire::RifleOrders>(body, h.body),
        ("set-up", _) => whole::<crate::systems::gboar::phases::set_up::SetUpOrders>(body, h.body),
        ("random-events", _) => whole::<random_events::RandomEventsOrders>(body, h.body),
        ("construct-siege-works", _) => whole::<siege_works::ConstructOrders>(body, h.body),
        ("siege-and-bombardment", _) => whole::<siege_bombardment::BombardOrders>(body, h.body),
        // `hints` names a phase this list does not: a defect of this file
        // (a test walks every step kind of every embedded scenario).
        (phase, _) => {
            return vec![(Code::NoOrdersTaken, String::new(), format!("the {phase} phase takes no orders"))];
        }
    };
    shape.into_iter().map(|(f, m)| (Code::OrdersShape, f, m)).collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::systems::gboar::data::Source;

    fn shape(step: &Step, side: &str, body: &str) -> Vec<ShapeProblem> {
        let rules = Rules::load(&Source::Embedded("savannah-1779".into()), "historical").unwrap();
        let found = check_shape(&rules, step, side, &crate::base::yaml::from_str(body).unwrap());
        found.into_iter().map(|(_, f, m)| (f, m)).collect()
    }

    fn close_combat(player: &str) -> Step {
        Step::PlayerTurn { turn: 17, player: player.into(), phase: "close-combat".into() }
    }

    /// A side defending in the other player's Close Combat Phase sends
    /// `defence` and `momentum`; the phasing sides send `attacks`.
    #[test]
    fn close_combat_bodies_depend_on_who_is_phasing() {
        let defence = "defence: {tactics: stand-fast}\nmomentum: {reroll_if: [captured-dc], at_most: 1}";
        assert!(shape(&close_combat("allies"), "british", defence).is_empty());
        let wrong = shape(&close_combat("british"), "british", defence);
        assert_eq!(wrong.len(), 1);
        assert_eq!(wrong[0].0, "defence");
        assert!(wrong[0].1.contains("close combat orders are `attacks:`"), "{wrong:?}");
        let attack =
            "attacks:\n  - {attackers: [a], defenders: [\"1404\"]}\n  - {attackers: [b], defenders: [], lead: c, \
                      sideways: true}";
        let found = shape(&close_combat("british"), "british", attack);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, "attacks[1].sideways");
    }

    /// Standing orders may name every step kind that takes orders: for
    /// each of every embedded scenario, and each side it may await, orders
    /// that do nothing pass the shape check, and a key no phase knows is
    /// refused as a key of the phase's orders (never "takes no orders").
    #[test]
    fn every_step_kind_that_takes_orders_has_its_shape_checked() {
        let nothing = crate::base::yaml::from_str("{}").unwrap();
        let unknown = crate::base::yaml::from_str("nonsense: 1").unwrap();
        for scenario in ["historical", "campaign"] {
            let rules = Rules::load(&Source::Embedded("savannah-1779".into()), scenario).unwrap();
            let kinds = rules.sequence.step_kinds().unwrap();
            let mut checked = BTreeSet::new();
            for (kind, step) in &kinds {
                for side in crate::systems::gboar::phases::may_await(&rules, step) {
                    assert!(hints(&rules, step, &side).is_some(), "{scenario} {kind} {side}: awaited, no hints");
                    let found = check_shape(&rules, step, &side, &nothing);
                    assert!(found.is_empty(), "{scenario} {kind} {side}: {found:?}");
                    let found = check_shape(&rules, step, &side, &unknown);
                    assert_eq!(found.len(), 1, "{scenario} {kind} {side}: {found:?}");
                    assert_eq!((found[0].0, found[0].1.as_str()), (Code::OrdersShape, "nonsense"), "{scenario} {kind}");
                    checked.insert(step.phase().to_string());
                }
            }
            if scenario == "campaign" {
                for phase in ["random-events", "construct-siege-works", "siege-and-bombardment", "movement"] {
                    assert!(checked.contains(phase), "{phase} not among {checked:?}");
                }
            }
        }
    }

    /// The Campaign Game's own phases (Savannah 1.4, 4.4, 4.6) name the
    /// field of a wrong value; a card is never played by standing orders.
    #[test]
    fn campaign_phases_name_the_field_and_standing_orders_play_no_card() {
        let rules = Rules::load(&Source::Embedded("savannah-1779".into()), "campaign").unwrap();
        let kinds = rules.sequence.step_kinds().unwrap();
        let at = |kind: &str, side: &str, body: &str| -> Vec<ShapeProblem> {
            let step = &kinds[kind];
            let body = crate::base::yaml::from_str(body).unwrap();
            check_shape(&rules, step, side, &body).into_iter().map(|(_, f, m)| (f, m)).collect()
        };
        let found = at("random-events", "french", "momentum: two");
        assert_eq!(found[0].0, "momentum", "{found:?}");
        assert!(found[0].1.contains("random events orders are `momentum:`"), "{found:?}");
        let found = at("construct-siege-works", "french", "flip: [{hex: \"2208\", toward: \"2308\"}]");
        assert_eq!(found[0].0, "flip[0].toward", "{found:?}");
        let found = at("siege-and-bombardment", "french", "bombard: maybe");
        assert_eq!(found[0].0, "bombard", "{found:?}");
        let found = at("random-events", "french", "play: [truce]");
        assert_eq!(found[0].0, "play", "{found:?}");
        assert!(found[0].1.contains("never in standing orders (Savannah 4.3)"), "{found:?}");
    }

    #[test]
    fn initiative_movement_and_phases_without_orders() {
        let initiative = Step::GameTurn { turn: 17, phase: "initiative".into() };
        assert!(shape(&initiative, "french", "{}").is_empty());
        assert!(shape(&initiative, "french", "momentum: {before_roll: 1, dictate: true}").is_empty());
        assert_eq!(shape(&initiative, "french", "momentum: {before_roll: lots}")[0].0, "momentum.before_roll");
        let movement = Step::PlayerTurn { turn: 17, player: "allies".into(), phase: "movement".into() };
        assert!(shape(&movement, "french", "moves: [{unit: a, to: \"1906\"}]").is_empty());
        assert_eq!(shape(&movement, "french", "moves: [{unit: a, too: \"1906\"}]")[0].0, "moves[0].too");
        let rally = Step::PlayerTurn { turn: 17, player: "allies".into(), phase: "rally".into() };
        assert!(shape(&rally, "french", "{}").is_empty());
        assert!(shape(&rally, "french", "rally: [a]")[0].1.contains("the rally phase takes no orders"));
    }
}
