//! The guide of `adjutant template`: the side's units and the choices open
//! to it at the step, as comments (so the file validates as the least
//! orders, [`super::least`], do) and as data. Every choice is found by the
//! engine's own checks, never by rules written again here: a unit's reach is
//! each hex a one-unit move the movement checks accept
//! ([`crate::systems::gboar::phases::movement::unit_moves`]); an attack is
//! checked by the designation, its tactics chits by 12.52's check; a gun's
//! or a mortar's targets are those the fire orders' check accepts.

use std::collections::{BTreeMap, BTreeSet};

use crate::base::yaml::{Mapping, Value};
use serde::Serialize;

use crate::base::hex::HexId;
use crate::systems::gboar::board::state::{Condition, State};
use crate::systems::gboar::board::units::{hex_of, player_of};
use crate::systems::gboar::board::Rules;
use crate::systems::gboar::data::sequence::Step;
use crate::systems::gboar::effects::intel;

use super::campaign::{bombard_guide, cards_guide, construct_guide, random_events_guide};
use super::least::key;

// ---------------------------------------------------------------------------
// The guide: what the side may order, as comments after the least orders

/// The guide `adjutant template` prints after the least orders: the side's
/// units and the choices open to it at this step, found by the engine's own
/// checks (the movement, fire and close combat checks of the orders), as
/// data and as YAML comments (every line starts with `#`, so the file
/// validates as it did without them).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Guide {
    /// What the step asks of the side: `movement`, `attack`, `defence`,
    /// `fire`, `rifle-fire`, `initiative`, `set-up`, `random-events`, or `none`.
    pub kind: String,
    /// The section of docs/orders.md that describes these orders.
    pub doc: String,
    /// The side's units on the map, by id.
    pub units: Vec<UnitEntry>,
    /// The orders open to the side, each filled in for this position.
    pub choices: Vec<Choice>,
    /// The comment lines, as printed.
    #[serde(skip)]
    pub comment: String,
}

/// One unit of the side, as it stands, with what the rules allow it here.
#[derive(Debug, Clone, Serialize)]
pub struct UnitEntry {
    pub unit: String,
    pub name: String,
    pub hex: String,
    /// The counter's type (`infantry`, `artillery`, `leader`...).
    #[serde(rename = "type")]
    pub kind: String,
    /// Printed SPs (the reduced side once a step is lost).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strength: Option<i32>,
    /// MPs: the printed allowance, or this phase's in a Movement Phase.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub movement: Option<i32>,
    /// Unit morale: printed, the reduced side once a step is lost.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub morale: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank: Option<i32>,
    pub steps: u8,
    pub condition: Condition,
    pub pinned: bool,
    /// Enemy combat units in the hexes next to it.
    pub next_to: Vec<String>,
    /// What the rules say of it here, in words with their rule numbers.
    pub notes: Vec<String>,
    /// Movement: every hex a move of this unit alone may end in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reach: Option<Vec<String>>,
    /// Movement: hexes only strategic movement reaches (9.52).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub strategic_reach: Vec<String>,
}

/// One order open to the side.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Choice {
    /// The key it is written under (`moves`, `attacks`, `fire`, `mortars`,
    /// `defence`, `momentum`, `enter`, `delay`, `declare_assault`...).
    pub key: String,
    /// For a list key, an item of the list; otherwise the key's value: YAML
    /// for this position that validates as the side's only voluntary order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub yaml: Option<String>,
    /// What it does, with its rule.
    pub text: String,
    /// Already in the orders above, which the rules require.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub in_orders: bool,
    /// What the engine computes of it: ranges and To Hit numbers, odds
    /// columns, the tactics chits open and closed with why.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub details: BTreeMap<String, serde_json::Value>,
}

/// The widest line the guide aims for.
const WIDTH: usize = 99;

/// `text` as comment lines: `first` begins the first, `rest` the others,
/// words wrapped at [`WIDTH`] (a word longer than a line is kept whole).
pub(super) fn wrap(first: &str, rest: &str, text: &str) -> String {
    let mut out = String::new();
    let mut line = first.to_string();
    let mut empty = true;
    // Runs of spaces inside the text are kept, except where a line breaks.
    let mut gap = 0;
    for word in text.split(' ') {
        if word.is_empty() {
            gap += 1;
            continue;
        }
        let space = " ".repeat(gap + 1);
        gap = 0;
        if !empty && line.len() + space.len() + word.len() > WIDTH {
            out.push_str(line.trim_end());
            out.push('\n');
            line = rest.to_string();
            empty = true;
        }
        if !empty {
            line.push_str(&space);
        }
        line.push_str(word);
        empty = false;
    }
    out.push_str(line.trim_end());
    out.push('\n');
    out
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The side's units on the map in `state`, by id.
fn side_units(rules: &Rules, state: &State, side: &str) -> Vec<String> {
    state
        .units
        .keys()
        .filter(|id| crate::systems::gboar::board::units::side_of(rules, id) == side && hex_of(state, id).is_some())
        .cloned()
        .collect()
}

/// A unit's entry: its counter's values and its state.
fn unit_entry(
    rules: &Rules,
    state: &State,
    occupancy: &crate::systems::gboar::board::units::Occupancy<'_>,
    id: &str,
) -> UnitEntry {
    let u = state.units.get(id);
    let c = rules.counter(id);
    let morale = c
        .and_then(|c| crate::systems::gboar::board::units::modified_morale(rules, state, c).ok())
        .map(|(base, _, _)| base);
    let player = player_of(rules, id);
    UnitEntry {
        unit: id.to_string(),
        name: c.map(|c| c.name.clone()).unwrap_or_default(),
        hex: u.and_then(|u| u.hex).map(|h| h.to_string()).unwrap_or_default(),
        kind: c.map(|c| c.kind.clone()).unwrap_or_default(),
        strength: c
            .filter(|c| c.strength.is_some())
            .map(|_| crate::systems::gboar::phases::fire::fire_strength(rules, state, id)),
        movement: c.and_then(|c| c.movement),
        morale,
        rank: c.and_then(|c| c.rank),
        steps: u.map(|u| u.steps).unwrap_or(0),
        condition: u.map(|u| u.condition).unwrap_or(Condition::ParadeOrder),
        pinned: u.is_some_and(|u| u.pinned),
        next_to: hex_of(state, id).map(|h| occupancy.enemies_next_to(h, player)).unwrap_or_default(),
        notes: Vec::new(),
        reach: None,
        strategic_reach: Vec::new(),
    }
}

/// The comment lines of the units: one line of values each, then its notes.
fn units_text(units: &[UnitEntry]) -> String {
    let w = units.iter().map(|u| u.unit.len()).max().unwrap_or(0).min(24);
    let mut out = String::new();
    for u in units {
        let mut values = vec![u.kind.clone()];
        if let Some(r) = u.rank {
            values.push(format!("rank {r}"));
        }
        if let Some(s) = u.strength {
            values.push(format!("{s} SP"));
        }
        if let Some(m) = u.movement {
            values.push(format!("{m} MP"));
        }
        if let Some(m) = u.morale {
            values.push(format!("morale {m}"));
        }
        if u.kind != "leader" {
            values.push(plural(usize::from(u.steps), "step", "steps"));
        }
        match u.condition {
            Condition::ParadeOrder => {}
            Condition::Disrupted => values.push("disrupted".into()),
            Condition::Shattered => values.push("shattered".into()),
        }
        if u.pinned {
            values.push("pinned".into());
        }
        let mut text = values.join(", ");
        if !u.next_to.is_empty() {
            text = format!("{text}; next to {}", u.next_to.join(", "));
        }
        let first = format!("#   {:<w$}  {:<4}  ", u.unit, u.hex);
        let rest = format!("#   {:<w$}        ", "");
        out += &wrap(&first, &rest, &text);
        for note in &u.notes {
            out += &wrap("#       ", "#         ", note);
        }
    }
    out
}

/// The comment lines of choices: each YAML item or value (as it would be
/// written), then what it does.
pub(super) fn choice_lines(key_is_list: bool, choices: &[&Choice]) -> String {
    let mut out = String::new();
    for c in choices {
        let yaml = c.yaml.clone().unwrap_or_default();
        let lead = if key_is_list { format!("#   - {yaml}") } else { format!("# {}: {yaml}", c.key) };
        let text = if c.in_orders { format!("in the orders above; {}", c.text) } else { c.text.clone() };
        if lead.len() + 3 + text.len() <= WIDTH {
            out += &format!("{lead}   # {text}\n");
        } else {
            out += &format!("{lead}\n");
            out += &wrap("#       # ", "#       #   ", &text);
        }
    }
    out
}

/// The units of the side named in the least orders' `moves`.
fn ordered_moves(least: &Value) -> BTreeSet<String> {
    least
        .get("moves")
        .and_then(Value::as_sequence)
        .map(|l| l.iter().filter_map(|m| m.get("unit").and_then(Value::as_str).map(str::to_string)).collect())
        .unwrap_or_default()
}

/// The guide for `side` at `step`, after the least orders `least`.
pub fn guide(rules: &Rules, state: &State, step: &Step, side: &str, least: &Value) -> Guide {
    made(rules, state, step, side, least, true)
}

/// [`guide`] without the lines that list the side's units in the
/// comment (`adjutant selfplay` draws from the kind and the choices, and
/// those lines, a wrapped paragraph per unit, were most of a guide's
/// words): the same kind, units and choices.
pub fn guide_choices(rules: &Rules, state: &State, step: &Step, side: &str, least: &Value) -> Guide {
    made(rules, state, step, side, least, false)
}

fn made(rules: &Rules, state: &State, step: &Step, side: &str, least: &Value, units_listed: bool) -> Guide {
    let mut g = match step {
        Step::PlayerTurn { player, phase, .. } => match phase.as_str() {
            "movement" => movement_guide(rules, state, player, side, least),
            "close-combat" if rules.sequence.sides_of(player).iter().any(|s| s == side) => {
                attack_guide(rules, state, player, side, least)
            }
            "close-combat" => defence_guide(rules, state, player, side),
            "defensive-artillery-fire" => fire_guide(rules, state, player, side),
            "rifle-fire" => rifle_guide(rules, state, side),
            _ => plain_guide(rules, state, side, "none", ""),
        },
        Step::GameTurn { phase, .. } if phase == "initiative" => initiative_guide(rules, state, side),
        Step::GameTurn { phase, .. } if phase == "set-up" => set_up_guide(rules, state, side),
        Step::GameTurn { phase, .. } if phase == "random-events" => random_events_guide(rules, state, side),
        Step::GameTurn { phase, .. } if phase == "construct-siege-works" => construct_guide(rules, state, side),
        Step::GameTurn { phase, .. } if phase == "siege-and-bombardment" => bombard_guide(rules, state, side),
        _ => plain_guide(rules, state, side, "none", ""),
    };
    cards_guide(rules, state, side, &mut g);
    if units_listed {
        let heading = format!(
            "#\n# Your units ({side}, {}{}):\n",
            step.name(),
            if g.doc.is_empty() { String::new() } else { format!("; {}", g.doc) }
        );
        g.comment = heading + &units_text(&g.units) + &g.comment;
    }
    if intel::hidden(rules) {
        hide_unseen(rules, state, step, side, &mut g);
    }
    g
}

/// Series 7.4 under hidden stacks: every enemy unit the guide names that
/// the side may not see ([`intel::sees`]: friendly, examined, or next to
/// its units in its own Close Combat Phase) becomes "a hidden stack in
/// HEX", in the comment lines and in the data alike.
fn hide_unseen(rules: &Rules, state: &State, step: &Step, side: &str, g: &mut Guide) {
    let hide = |id: &str| -> Option<String> {
        if intel::sees(rules, state, step, side, id) {
            return None;
        }
        Some(match hex_of(state, id) {
            Some(h) => format!("a hidden stack in {h}"),
            None => "a hidden stack".to_string(),
        })
    };
    let text = |t: &str| intel::replace_units(rules, t, hide);
    fn json(v: &mut serde_json::Value, hide: &dyn Fn(&str) -> Option<String>) {
        match v {
            serde_json::Value::String(s) => {
                if let Some(r) = hide(s) {
                    *s = r;
                }
            }
            serde_json::Value::Array(items) => {
                items.iter_mut().for_each(|i| json(i, hide));
                items.dedup();
            }
            serde_json::Value::Object(map) => {
                let old = std::mem::take(map);
                for (k, mut v) in old {
                    json(&mut v, hide);
                    map.insert(hide(&k).unwrap_or(k), v);
                }
            }
            _ => {}
        }
    }
    g.comment = text(&g.comment);
    for u in &mut g.units {
        let mut next: Vec<String> = Vec::new();
        for n in &u.next_to {
            let n = hide(n).unwrap_or_else(|| n.clone());
            if !next.contains(&n) {
                next.push(n);
            }
        }
        u.next_to = next;
        u.notes = u.notes.iter().map(|n| text(n)).collect();
    }
    for c in &mut g.choices {
        c.text = text(&c.text);
        for v in c.details.values_mut() {
            json(v, &hide);
        }
    }
}

/// The side's units, with no choices beyond the least orders.
pub(super) fn plain_guide(rules: &Rules, state: &State, side: &str, kind: &str, doc: &str) -> Guide {
    Guide {
        kind: kind.into(),
        doc: doc.into(),
        units: {
            let occupancy = crate::systems::gboar::board::units::Occupancy::new(rules, state);
            side_units(rules, state, side).iter().map(|id| unit_entry(rules, state, &occupancy, id)).collect()
        },
        ..Guide::default()
    }
}

fn hexes_text(hexes: &[HexId]) -> String {
    hexes.iter().map(HexId::to_string).collect::<Vec<_>>().join(" ")
}

/// Sorted hexes with runs of three or more in a column written first-last
/// (`1609-1612` for 1609, 1610, 1611 and 1612).
pub(super) fn runs_text(hexes: &[HexId]) -> String {
    let mut runs: Vec<Vec<HexId>> = Vec::new();
    for h in hexes {
        match runs.last_mut() {
            Some(run) if run.last().is_some_and(|l| l.col() == h.col() && l.row().checked_add(1) == Some(h.row())) => {
                run.push(*h)
            }
            _ => runs.push(vec![*h]),
        }
    }
    runs.iter()
        .map(|run| match (run.first(), run.last()) {
            (Some(a), Some(b)) if run.len() >= 3 => format!("{a}-{b}"),
            _ => hexes_text(run),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A refusal that begins with the unit's id, without it.
fn without_id(id: &str, message: &str) -> String {
    message.strip_prefix(id).map(str::trim_start).unwrap_or(message).to_string()
}

/// Movement (series 9): each unit's reach as the movement checks find it,
/// the forms of a move, reinforcements due, the declaration of an assault.
fn movement_guide(rules: &Rules, state: &State, player: &str, side: &str, least: &Value) -> Guide {
    let mut g = Guide { kind: "movement".into(), doc: "docs/orders.md, Movement".into(), ..Guide::default() };
    let moves = match crate::systems::gboar::phases::movement::unit_moves(rules, state, player, side, least) {
        Ok(m) => m,
        Err(e) => {
            g.units = plain_guide(rules, state, side, "", "").units;
            g.comment = format!("# (no guide to the moves: {e})\n");
            return g;
        }
    };
    let forced = ordered_moves(least);
    let mut example: Option<Choice> = None;
    let occupancy = crate::systems::gboar::board::units::Occupancy::new(rules, state);
    for m in &moves {
        let mut e = unit_entry(rules, state, &occupancy, &m.unit);
        e.hex = m.hex.to_string();
        e.next_to = crate::systems::gboar::board::units::enemies_next_to(rules, state, m.hex, player);
        if m.allowance.is_some() {
            e.movement = m.allowance;
        }
        if let Some(a) = &m.arrived {
            e.notes.push(format!("arrives this turn at {} ({}; 9.61)", a.hexes.join(" or "), a.entry));
        }
        if m.ordered.is_some() && forced.contains(&m.unit) {
            e.notes.push(if e.condition == Condition::Disrupted {
                "disrupted, next to the enemy: must move away (13.3); in the orders above".into()
            } else {
                "in a restricted stack next to the enemy: must retreat instead of attacking (Savannah 4.1); in the \
                 orders above"
                    .into()
            });
        }
        match &m.refused {
            _ if m.ordered.is_some() => {}
            Some(why) => e.notes.push(without_id(&m.unit, why)),
            None => {
                let disrupted = e.condition == Condition::Disrupted;
                if e.pinned {
                    e.notes.push(
                        "pinned: to move it add `leave_pin: true`; it must end next to no enemy unit, and its \
                         pin costs army morale (9.3)"
                            .into(),
                    );
                }
                if m.reach.is_empty() {
                    e.notes.push("no hex in reach".into());
                } else {
                    let what = if disrupted { "reach (one hex, never next to the enemy, 13.3)" } else { "reach" };
                    e.notes.push(format!("{what}: {}", runs_text(&m.reach)));
                }
                if !m.strategic_reach.is_empty() {
                    e.notes.push(format!("with `strategic: true` also: {}", runs_text(&m.strategic_reach)));
                }
                if let (None, Some(to)) = (&example, m.reach.first()) {
                    if !e.pinned && m.arrived.is_none() {
                        example = Some(Choice {
                            key: "moves".into(),
                            yaml: Some(format!("{{unit: {}, to: \"{to}\"}}", m.unit)),
                            text: format!("{} from {} to {to} (9.1)", m.unit, m.hex),
                            ..Choice::default()
                        });
                    }
                }
            }
        }
        e.reach = Some(m.reach.iter().map(HexId::to_string).collect());
        e.strategic_reach = m.strategic_reach.iter().map(HexId::to_string).collect();
        g.units.push(e);
    }
    // The forms of a move.
    let movable: Vec<&crate::systems::gboar::phases::movement::UnitMoves> =
        moves.iter().filter(|m| m.refused.is_none()).collect();
    let strategic = if movable.iter().any(|m| !m.strategic_reach.is_empty()) {
        String::new()
    } else {
        let reasons: BTreeSet<&str> = movable.iter().filter_map(|m| m.strategic_refused.as_deref()).collect();
        match (reasons.len(), reasons.first()) {
            (1, Some(why)) if movable.len() > 1 => format!(" Not this phase: {why}."),
            _ => " None of your units can this phase.".into(),
        }
    };
    let mut text = String::from(
        "# Moves, under `moves:` (9.1: in the order made, each unit once; 1609-1612 in a reach above\n\
         #   is 1609, 1610, 1611 and 1612):\n\
         #   - {unit: ID, path: [\"HEX\", ...]}   every hex it enters, in order\n\
         #   - {unit: ID, to: \"HEX\"}            the cheapest legal path\n\
         #   - {stack: [ID, ...], to: \"HEX\"}    units of one hex moving together\n",
    );
    text += &wrap(
        "#   ",
        "#     ",
        &format!(
            "strategic: true in a move along roads and tracks: twice the MPs, never next to the enemy (9.52).\
             {strategic}"
        ),
    );
    if moves.iter().any(|m| m.refused.is_none() && state.units.get(&m.unit).is_some_and(|u| u.pinned)) {
        text += "#   leave_pin: true in the move of a pinned unit (9.3)\n";
    }
    g.choices.push(Choice {
        key: "moves".into(),
        text: "{unit: ID, path: [HEX, ...]}, {unit: ID, to: HEX} or {stack: [ID, ...], to: HEX}; \
               strategic: true (9.52), leave_pin: true (9.3)"
            .into(),
        ..Choice::default()
    });
    if let Some(c) = example {
        text += "# For example:\n";
        text += &choice_lines(true, &[&c]);
        g.choices.push(c);
    }
    // 9.61: reinforcements due this turn.
    let arrivals: Vec<(&String, &crate::systems::gboar::board::state::Arrival, HexId)> =
        moves.iter().filter_map(|m| m.arrived.as_ref().map(|a| (&m.unit, a, m.hex))).collect();
    if !arrivals.is_empty() {
        text += "# Reinforcements due this turn (9.61), placed at the first hex offered unless:\n";
        let more = arrival_choices(rules, &arrivals);
        text += &choice_lines(false, &more.iter().collect::<Vec<_>>());
        if rules.reinforcements.as_ref().is_some_and(|r| r.overstacked_arrival.is_some()) {
            text += "# put_off: [ID, ...]   which arrivals wait a turn first if their entry hex ends over the limit (Savannah 4.7)\n";
        }
        text += "# overstack_losses: [ID, ...]   who loses steps first if a hex ends over the limit (7.3)\n";
        g.choices.extend(more);
    }
    if let Some(c) = assault_choice(rules, state, player) {
        text += &choice_lines(false, &[&c]);
        g.choices.push(c);
    }
    g.comment = text;
    g
}

/// 9.61, Savannah 4.7: each arrival placed elsewhere than the first hex
/// offered, or delayed.
fn arrival_choices(
    rules: &Rules,
    arrivals: &[(&String, &crate::systems::gboar::board::state::Arrival, HexId)],
) -> Vec<Choice> {
    let mut more = Vec::new();
    for (id, a, at) in arrivals {
        for h in a.hexes.iter().filter(|h| **h != at.to_string()) {
            more.push(Choice {
                key: "enter".into(),
                yaml: Some(format!("{{{id}: \"{h}\"}}")),
                text: format!("{id} enters at {h}, not {at} (9.61, Savannah 4.7)"),
                ..Choice::default()
            });
        }
        if rules.reinforcements.as_ref().is_none_or(|r| r.voluntary_delay) {
            more.push(Choice {
                key: "delay".into(),
                yaml: Some(format!("[{id}]")),
                text: format!("{id} stays off the map until next turn (9.61)"),
                ..Choice::default()
            });
        }
    }
    more
}

/// Savannah 1.6 case A: the assault declared, when the phasing player may.
fn assault_choice(rules: &Rules, state: &State, player: &str) -> Option<Choice> {
    matches!(crate::systems::gboar::phases::movement::assault_declaration(rules, state, player), Some(Ok(()))).then(
        || Choice {
            key: "declare_assault".into(),
            yaml: Some("true".into()),
            text: "the assault on the perimeter: next turn is the first tactical turn (Savannah 1.6 case A)".into(),
            ..Choice::default()
        },
    )
}

/// The movement guide's choices drawn rather than listed (`adjutant
/// selfplay`), on the phase's checks made ready for `state`: for each
/// of `units`, a move to a hex of its reach, drawn
/// by `draw(n)` (one of n) with each hex of the reach as likely
/// ([`crate::systems::gboar::phases::movement::draw_moves`]), and the guide's other choices:
/// arrivals entered elsewhere or delayed, the assault declared.
pub fn draw_movement(
    rules: &Rules,
    state: &State,
    ready: &crate::systems::gboar::phases::movement::Ready<'_>,
    side: &str,
    least: &Value,
    units: &[String],
    draw: &mut dyn FnMut(usize) -> usize,
) -> (Vec<crate::systems::gboar::phases::movement::DrawnMove>, Vec<Choice>) {
    let player = ready.player();
    let (moves, arrived) = crate::systems::gboar::phases::movement::draw_moves(ready, side, least, units, draw);
    let arrivals: Vec<(&String, &crate::systems::gboar::board::state::Arrival, HexId)> =
        arrived.iter().map(|(id, a, h)| (id, a, *h)).collect();
    let mut choices = arrival_choices(rules, &arrivals);
    choices.extend(assault_choice(rules, state, player));
    (moves, choices)
}

/// The ids of one list field of the least orders' items (`attacks[*].defenders`).
fn ordered(least: &Value, list: &str, field: &str) -> BTreeSet<String> {
    least
        .get(list)
        .and_then(Value::as_sequence)
        .map(|l| {
            l.iter()
                .filter_map(|a| a.get(field).and_then(Value::as_sequence))
                .flatten()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The units in `hex`, leaders too, by id.
fn units_in(state: &State, hex: HexId) -> Vec<String> {
    state.units.keys().filter(|u| hex_of(state, u) == Some(hex)).cloned().collect()
}

fn is_leader(rules: &Rules, id: &str) -> bool {
    rules.counter(id).is_some_and(|c| c.is_leader())
}

/// 12.52: the tactics chits open to a side in a combat (chart order), and
/// those closed, with why, as the engine decides them ([`chit_illegal`]).
///
/// [`chit_illegal`]: crate::systems::gboar::phases::close_combat::chit_illegal
fn chits(
    rules: &Rules,
    state: &State,
    attackers: &[String],
    defenders: &[String],
    attacker: bool,
) -> (Vec<String>, BTreeMap<String, String>) {
    let lead = |units: &[String], into: &[crate::base::hex::HexId]| {
        crate::systems::gboar::phases::close_combat::lead_unit(rules, state, units, None, into).unwrap_or_default()
    };
    let defending_hexes = crate::systems::gboar::board::units::hexes_of(state, defenders);
    let e = crate::systems::gboar::phases::close_combat::Engagement {
        attackers: attackers.to_vec(),
        defenders: defenders.to_vec(),
        attacker_lead: lead(attackers, &defending_hexes),
        defender_lead: lead(defenders, &[]),
        attacker_chit: String::new(),
        defender_chit: String::new(),
        diversion_shift: 0,
    };
    let mut open = Vec::new();
    let mut closed = BTreeMap::new();
    let checks = crate::systems::gboar::phases::close_combat::ChitChecks::new(rules, state, &e, attacker);
    for c in &rules.charts.tactics.chits {
        match checks.illegal(&c.id) {
            None => open.push(c.id.clone()),
            Some(why) => {
                closed.insert(c.id.clone(), why);
            }
        }
    }
    (open, closed)
}

/// "tactics open: a, b; closed: c, d (12.52)"
fn chits_text(open: &[String], closed: &BTreeMap<String, String>, rules: &Rules) -> String {
    let in_order: Vec<&str> =
        rules.charts.tactics.chits.iter().map(|c| c.id.as_str()).filter(|c| closed.contains_key(*c)).collect();
    let mut text = format!("tactics open: {}", if open.is_empty() { "none".into() } else { open.join(", ") });
    if !in_order.is_empty() {
        text += &format!("; closed: {} (12.52)", in_order.join(", "));
    }
    text
}

/// 12.23 step 6: the momentum line, with the chits the player holds and the
/// result ids a policy may name (charts/codes.yaml).
fn momentum_text(rules: &Rules, state: &State, player: &str) -> (String, Choice) {
    let held = state.momentum.get(player).copied().unwrap_or(0);
    let results: Vec<String> = rules.charts.codes.combat_results.iter().map(|r| r.id.clone()).collect();
    let text = format!(
        "momentum: {{reroll_if: [RESULT, ...], at_most: N}}   re-roll when our result has one of them \
         (12.23 step 6, 12.62); {player} hold {}; results: {}",
        plural(held as usize, "chit", "chits"),
        results.join(", ")
    );
    let mut details = BTreeMap::new();
    details.insert("chits".to_string(), serde_json::json!(held));
    details.insert("results".to_string(), serde_json::json!(results));
    let c = Choice { key: "momentum".into(), text: text.clone(), details, ..Choice::default() };
    (wrap("# ", "#   ", &text), c)
}

fn yaml_list(ids: &[String]) -> String {
    format!("[{}]", ids.join(", "))
}

/// Close Combat, the phasing side (12.1, 12.2): who must and who may
/// attack, each enemy hex it could attack with the odds before DRMs and the
/// tactics chits open, and the keys of an attack.
fn attack_guide(rules: &Rules, state: &State, player: &str, side: &str, least: &Value) -> Guide {
    use crate::systems::gboar::board::units::enemies_next_to;
    use crate::systems::gboar::board::units::must_attack;
    use crate::systems::gboar::phases::close_combat::{attacker_refused, odds, strength};
    let mut g = plain_guide(rules, state, side, "attack", "docs/orders.md, Close Combat");
    let in_orders = ordered(least, "attacks", "attackers");
    let forced_hexes = ordered(least, "attacks", "defenders");
    let mut targets: BTreeMap<HexId, Vec<String>> = BTreeMap::new();
    for e in &mut g.units {
        if e.next_to.is_empty() || is_leader(rules, &e.unit) {
            continue;
        }
        if let Some(why) = attacker_refused(rules, state, player, &e.unit) {
            e.notes.push(format!("may not attack: {}", why.message));
            continue;
        }
        if must_attack(rules, state, &e.unit) {
            let above = if in_orders.contains(&e.unit) { "; in the orders above" } else { "" };
            e.notes.push(format!("must attack (12.12){above}"));
        } else {
            e.notes.push("may attack; need not (12.12)".into());
        }
        let Some(h) = hex_of(state, &e.unit) else { continue };
        for enemy in enemies_next_to(rules, state, h, player) {
            if let Some(eh) = hex_of(state, &enemy) {
                let list = targets.entry(eh).or_default();
                if !list.contains(&e.unit) {
                    list.push(e.unit.clone());
                }
            }
        }
    }
    let mut attacks = Vec::new();
    // What the designation asks of the board, found once for every attack.
    let ready = std::cell::OnceCell::new();
    for (hex, attackers) in &targets {
        let defenders = units_in(state, *hex);
        let fighting: Vec<String> = defenders.iter().filter(|u| !is_leader(rules, u)).cloned().collect();
        let yaml = format!("{{attackers: {}, defenders: [\"{hex}\"]}}", yaml_list(attackers));
        // The designation's own checks, for this attack alone.
        let body: Value = crate::base::yaml::from_str(&format!("attacks: [{yaml}]")).unwrap_or(Value::Null);
        let (_, problems) = ready
            .get_or_init(|| crate::systems::gboar::phases::close_combat::Ready::new(rules, state, player))
            .designate(&BTreeMap::from([(side.to_string(), body)]), false);
        let refused: Vec<String> = problems
            .into_iter()
            .filter(|p| p.side == side && p.field.starts_with("attacks[0]"))
            .map(|p| p.message)
            .collect();
        let a_sp: i32 = attackers.iter().map(|u| strength(rules, state, u)).sum();
        let d_sp: i32 = fighting.iter().map(|u| strength(rules, state, u)).sum();
        let column = odds(rules, a_sp, d_sp, 0).column;
        let (open, closed) = chits(rules, state, attackers, &defenders, true);
        let mut text = format!(
            "{} in {hex}: {a_sp} SP against {d_sp}, {column} before DRMs; {}",
            fighting.join(", "),
            chits_text(&open, &closed, rules)
        );
        if let Some(first) = refused.first() {
            text += &format!("; refused as it stands: {first}");
        }
        let mut details = BTreeMap::new();
        details.insert("attacker_sp".to_string(), serde_json::json!(a_sp));
        details.insert("defender_sp".to_string(), serde_json::json!(d_sp));
        details.insert("column".to_string(), serde_json::json!(column));
        details.insert("tactics_open".to_string(), serde_json::json!(open));
        details.insert("tactics_closed".to_string(), serde_json::json!(closed));
        if !refused.is_empty() {
            details.insert("refused".to_string(), serde_json::json!(refused));
        }
        let forced = forced_hexes.contains(&hex.to_string());
        if forced {
            text = format!("must be attacked (12.13): {text}");
        }
        attacks.push(Choice { key: "attacks".into(), yaml: Some(yaml), text, in_orders: forced, details });
    }
    let mut text = String::new();
    if attacks.is_empty() {
        text += "# No unit of yours is next to an enemy unit it may attack.\n";
    } else {
        text += &wrap(
            "# ",
            "#   ",
            "Attacks open to you, under `attacks:` (12.21; resolved in the order listed; each defending \
             hex once and each unit in one attack, 12.15; every enemy unit next to a unit that must attack \
             is attacked, 12.13):",
        );
        text += &choice_lines(true, &attacks.iter().collect::<Vec<_>>());
        text += &wrap(
            "# ",
            "#   ",
            "An attack may also give lead: ID (12.23 step 2), tactics: CHIT (step 4; default: the first \
             open), advance: [ID, ...] (step 9), capture: ID (13.1 AC), choices: {retreats: {ID: {path: \
             [\"HEX\"]}}, second_step: ID} (13.1, 13.2), sequence: N (its place among all the player's \
             attacks, his other sides' files' too: numbered attacks are resolved first, lowest first, 12.23).",
        );
        text += &wrap(
            "# ",
            "#   ",
            "diversion: \"HEX\"   one enemy stack, not pinned, is not attacked; our attackers next to it \
             shift one column left (12.14)",
        );
    }
    let (m, c) = momentum_text(rules, state, player);
    text += &m;
    g.choices.extend(attacks);
    g.choices.push(Choice {
        key: "diversion".into(),
        text: "one enemy stack not attacked; the attackers next to it shift one column left (12.14)".into(),
        ..Choice::default()
    });
    g.choices.push(c);
    g.comment = text;
    g
}

/// Close Combat, a defending side (12.11): its hexes the enemy may attack,
/// the tactics chits open in each, Cavalry Withdrawal, momentum.
fn defence_guide(rules: &Rules, state: &State, player: &str, side: &str) -> Guide {
    use crate::systems::gboar::board::units::enemies_next_to;
    use crate::systems::gboar::phases::close_combat::{attacker_refused, cavalry_may_withdraw};
    let mut g = plain_guide(rules, state, side, "defence", "docs/orders.md, Close Combat");
    let own = rules.player_of_side(side);
    let mut hexes: BTreeSet<HexId> = BTreeSet::new();
    for e in &mut g.units {
        let Some(h) = hex_of(state, &e.unit) else { continue };
        let by: Vec<String> = enemies_next_to(rules, state, h, &own)
            .into_iter()
            .filter(|a| attacker_refused(rules, state, player, a).is_none())
            .collect();
        if !by.is_empty() && !is_leader(rules, &e.unit) {
            e.notes.push(format!("may be attacked by {} (12.13)", by.join(", ")));
            hexes.insert(h);
        }
    }
    let mut per_hex = Vec::new();
    let mut everywhere: Option<Vec<String>> = None;
    for hex in &hexes {
        let defenders = units_in(state, *hex);
        let fighting: Vec<String> = defenders.iter().filter(|u| !is_leader(rules, u)).cloned().collect();
        let attackers = may_attack_hex(rules, state, player, &own, *hex);
        let (open, closed) = chits(rules, state, &attackers, &defenders, false);
        everywhere = Some(match everywhere {
            None => open.clone(),
            Some(before) => before.into_iter().filter(|c| open.contains(c)).collect(),
        });
        let mut text = format!(
            "{} in {hex}, next to {}; {}",
            fighting.join(", "),
            attackers.join(", "),
            chits_text(&open, &closed, rules)
        );
        let withdraw = cavalry_may_withdraw(rules, state, &fighting, &attackers);
        if withdraw {
            text += "; cavalry_withdrawal: true is open (12.4)";
        }
        let mut details = BTreeMap::new();
        details.insert("attackers".to_string(), serde_json::json!(attackers));
        details.insert("tactics_open".to_string(), serde_json::json!(open));
        details.insert("tactics_closed".to_string(), serde_json::json!(closed));
        details.insert("cavalry_withdrawal".to_string(), serde_json::json!(withdraw));
        let yaml = open.first().map(|c| format!("{{hexes: {{\"{hex}\": {{tactics: {c}}}}}}}"));
        per_hex.push(Choice { key: "defence".into(), yaml, text, details, ..Choice::default() });
    }
    let mut text = String::new();
    if per_hex.is_empty() {
        text += "# No unit of yours is next to an enemy unit that may attack it.\n";
    } else {
        text += "# Your hexes the enemy may attack (12.13), with their instructions under `defence:`:\n";
        text += &choice_lines(false, &per_hex.iter().collect::<Vec<_>>());
        if let Some(chit) = everywhere.and_then(|e| e.into_iter().next()) {
            let c = Choice {
                key: "defence".into(),
                yaml: Some(format!("{{tactics: {chit}}}")),
                text: "the chit for every hex without its own (12.23 step 4; default: the first open)".into(),
                ..Choice::default()
            };
            text += &choice_lines(false, &[&c]);
            g.choices.push(c);
        }
        text += &wrap(
            "# ",
            "#   ",
            "A hex's instructions may also give lead: ID (12.23 step 2), cavalry_withdrawal: true (12.4), \
             capture: ID (13.1 DC), choices: {retreats: {ID: {path: [\"HEX\"]}}} (13.2).",
        );
    }
    let (m, c) = momentum_text(rules, state, &own);
    text += &m;
    g.choices.extend(per_hex);
    g.choices.push(c);
    g.comment = text;
    g
}

/// The enemy units next to `hex` that the phasing `player` may attack with
/// (12.13), sorted: the attackers a defending hex's chits are judged against.
fn may_attack_hex(rules: &Rules, state: &State, player: &str, own: &str, hex: HexId) -> Vec<String> {
    use crate::systems::gboar::board::units::enemies_next_to;
    use crate::systems::gboar::phases::close_combat::attacker_refused;
    let mut attackers: Vec<String> = enemies_next_to(rules, state, hex, own)
        .into_iter()
        .filter(|a| attacker_refused(rules, state, player, a).is_none())
        .collect();
    attackers.sort();
    attackers
}

/// Issue 16, 12.52, 12.54: each tactics chit a side's close combat orders
/// choose that the template marks closed, judged as the template judges
/// it ([`chits`]), as `(field, chit, where and why)`: an attack's `tactics` against
/// the attack as designated (its attackers, every unit of its defending
/// hexes); a defending side's `defence.hexes.HEX.tactics`, and its
/// `defence.tactics` in each hex the enemy may attack that has no chit of
/// its own, against every enemy unit that may attack the hex. Only chits
/// the chart knows: any other is refused before this is asked.
pub(crate) fn closed_chits_chosen(
    rules: &Rules,
    state: &State,
    phasing: &str,
    side: &str,
    body: &Value,
) -> Vec<(String, String, String)> {
    use crate::systems::gboar::phases::close_combat::{designate, DefenceOrders};
    let mut found = Vec::new();
    let own = rules.player_of_side(side);
    if own == phasing {
        let (d, _) = designate(rules, state, phasing, &BTreeMap::from([(side.to_string(), body.clone())]), false);
        for a in d.attacks.iter().filter(|a| a.side == side) {
            let Some(chit) = &a.tactics else { continue };
            let defenders: Vec<String> = a.defending_hexes.iter().flat_map(|h| units_in(state, *h)).collect();
            let (_, closed) = chits(rules, state, &a.attackers, &defenders, true);
            if let Some(why) = closed.get(chit) {
                found.push((format!("{}.tactics", a.field), chit.clone(), format!("in this attack, {why}")));
            }
        }
        return found;
    }
    let Ok(orders) = crate::base::yaml::from_value::<DefenceOrders>(body.clone()) else { return found };
    let mut hexes: BTreeSet<HexId> = BTreeSet::new();
    for u in side_units(rules, state, side) {
        if let Some(h) = hex_of(state, &u).filter(|_| !is_leader(rules, &u)) {
            if !may_attack_hex(rules, state, phasing, &own, h).is_empty() {
                hexes.insert(h);
            }
        }
    }
    for hex in hexes {
        let own_hex = orders.defence.hexes.iter().find(|(h, _)| h.parse::<HexId>().ok() == Some(hex));
        let (field, chit) = match own_hex.and_then(|(h, d)| d.tactics.as_ref().map(|c| (h, c))) {
            Some((h, c)) => (format!("defence.hexes.{h}.tactics"), c),
            None => match &orders.defence.tactics {
                Some(c) => ("defence.tactics".to_string(), c),
                None => continue,
            },
        };
        let attackers = may_attack_hex(rules, state, phasing, &own, hex);
        let (_, closed) = chits(rules, state, &attackers, &units_in(state, hex), false);
        if let Some(why) = closed.get(chit) {
            found.push((field, chit.clone(), format!("in {hex}, {why}")));
        }
    }
    found
}

/// " (DRM +1: in woods; -1 fog)" for a fire's modifiers, or nothing.
fn drms_text(drms: &[(String, i32, String)]) -> String {
    if drms.is_empty() {
        return String::new();
    }
    let total: i32 = drms.iter().map(|(_, v, _)| v).sum();
    let parts: Vec<String> = drms.iter().map(|(_, v, t)| format!("{v:+} {t}")).collect();
    format!(", DRM {total:+} ({})", parts.join("; "))
}

fn aim_details(aim: &crate::systems::gboar::phases::fire::Aim) -> BTreeMap<String, serde_json::Value> {
    let mut d = BTreeMap::new();
    d.insert("sps".to_string(), serde_json::json!(aim.sps));
    d.insert("range".to_string(), serde_json::json!(aim.range));
    d.insert("to_hit".to_string(), serde_json::json!(aim.to_hit));
    let drms: BTreeMap<&str, i32> = aim.drms.iter().map(|(id, v, _)| (id.as_str(), *v)).collect();
    d.insert("drms".to_string(), serde_json::json!(drms));
    d
}

/// Defensive Artillery Fire (series 11; Savannah 3 IX, 4.12): each gun or
/// mortar of the side that could fire, with the targets the fire checks
/// accept, the range and the To Hit number.
fn fire_guide(rules: &Rules, state: &State, player: &str, side: &str) -> Guide {
    use crate::systems::gboar::phases::fire::{gun_aim, gun_targets, mortar_aim, mortar_aims, mortar_victim};
    let mut g = plain_guide(rules, state, side, "fire", "docs/orders.md, Defensive Artillery Fire");
    let phasing = rules.player_of_side(side) == player;
    let mut guns = Vec::new();
    let mut mortars = Vec::new();
    // Each gun's targets, found once: its own choices, then 11.2's fires
    // together.
    let mut gun_targets_of: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for e in &mut g.units {
        let Some(c) = rules.counter(&e.unit) else { continue };
        if !c.is_artillery() {
            continue;
        }
        let mortar = c.kind == "mortar";
        if mortar != phasing {
            e.notes.push(if mortar {
                "fires in its own player's turn (Savannah 3 IX)".into()
            } else {
                "fires in the other player's turn (11.1)".into()
            });
            continue;
        }
        if mortar {
            let aims = mortar_aims(rules, state, player, side, &e.unit);
            for hex in &aims {
                let Some((victim, _)) = mortar_victim(rules, state, *hex, &BTreeMap::new()) else { continue };
                let Ok(aim) = mortar_aim(rules, state, &e.unit, *hex, *hex) else { continue };
                let here: Vec<String> = units_in(state, *hex).into_iter().filter(|u| !is_leader(rules, u)).collect();
                let mut details = aim_details(&aim);
                details.insert("units".to_string(), serde_json::json!(here));
                mortars.push(Choice {
                    key: "mortars".into(),
                    yaml: Some(format!("{{unit: {}, hex: \"{hex}\"}}", e.unit)),
                    text: format!(
                        "{}: range {}, needs {}{}{}",
                        here.join(", "),
                        aim.range,
                        aim.to_hit,
                        drms_text(&aim.drms),
                        if here.len() > 1 {
                            format!("; a hit falls on {victim} unless its owner says")
                        } else {
                            String::new()
                        }
                    ),
                    details,
                    ..Choice::default()
                });
            }
            e.notes.push(if aims.is_empty() {
                "no enemy hex it may aim at (Savannah 4.12)".into()
            } else {
                format!("may aim at {} (Savannah 4.12)", hexes_text(&aims))
            });
        } else {
            let targets = seen_targets(rules, state, side, gun_targets(rules, state, player, side, &e.unit));
            gun_targets_of.insert(e.unit.clone(), targets.clone());
            for t in &targets {
                let Some(th) = target_hex(state, t) else { continue };
                let Ok(aim) = gun_aim(rules, state, std::slice::from_ref(&e.unit), th) else { continue };
                guns.push(Choice {
                    key: "fire".into(),
                    yaml: Some(format!("{{guns: [{}], target: {}}}", e.unit, target_yaml(t))),
                    text: format!(
                        "{} in {th}: range {}, needs {}{}",
                        target_text(t),
                        aim.range,
                        aim.to_hit,
                        drms_text(&aim.drms)
                    ),
                    details: aim_details(&aim),
                    ..Choice::default()
                });
            }
            e.notes.push(if targets.is_empty() {
                "no target in range and sight (11.2, 11.4)".into()
            } else {
                format!("may fire at {} (11.2, 11.4)", targets.join(", "))
            });
        }
    }
    // 11.2: guns that may each fire at a target may fire at it together.
    let mut by_target: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for e in &g.units {
        if rules.counter(&e.unit).is_some_and(|c| c.is_artillery() && c.kind != "mortar") && !phasing {
            let targets = match gun_targets_of.get(&e.unit) {
                Some(t) => t.clone(),
                None => seen_targets(rules, state, side, gun_targets(rules, state, player, side, &e.unit)),
            };
            for t in targets {
                by_target.entry(t).or_default().push(e.unit.clone());
            }
        }
    }
    for (t, together) in by_target.iter().filter(|(_, list)| list.len() > 1) {
        let Some(th) = target_hex(state, t) else { continue };
        let Ok(aim) = gun_aim(rules, state, together, th) else { continue };
        guns.push(Choice {
            key: "fire".into(),
            yaml: Some(format!("{{guns: {}, target: {}}}", yaml_list(together), target_yaml(t))),
            text: format!(
                "together (11.2): {} SP at {} in {th}: range {}, needs {}{}",
                aim.sps,
                target_text(t),
                aim.range,
                aim.to_hit,
                drms_text(&aim.drms)
            ),
            details: aim_details(&aim),
            ..Choice::default()
        });
    }
    let mut text = String::new();
    if !phasing {
        if guns.is_empty() {
            text += "# No gun of yours has a target in range and sight: `fire: []`.\n";
        } else {
            text += &wrap(
                "# ",
                "#   ",
                "Guns that may fire, under `fire:` (11.1: voluntary, `fire: []` declines; each gun fires \
                 once and each target is fired at once, 11.2; guns: [A, B] fire together, their SPs added, \
                 at the farthest one's range):",
            );
            text += &choice_lines(true, &guns.iter().collect::<Vec<_>>());
        }
        // The enemy's mortars may aim at this side's hexes.
        let enemy_mortar = state.units.keys().any(|m| {
            rules.counter(m).is_some_and(|c| c.kind == "mortar")
                && player_of(rules, m) == player
                && !mortar_aims(rules, state, player, crate::systems::gboar::board::units::side_of(rules, m), m)
                    .is_empty()
        });
        if enemy_mortar {
            text += &wrap(
                "# ",
                "#   ",
                "mortar_targets: {\"HEX\": ID}   your unit a mortar hit in HEX falls on (Savannah 4.12; \
                 default: the most steps, then the best morale)",
            );
        }
    } else if mortars.is_empty() {
        text += "# No mortar of yours has a hex it may aim at: `fire: []`.\n";
    } else {
        text += &wrap(
            "# ",
            "#   ",
            "Mortars that may fire, under `mortars:` (Savannah 4.12: aimed at a hex, the shells may \
             scatter; each mortar fires once):",
        );
        text += &choice_lines(true, &mortars.iter().collect::<Vec<_>>());
    }
    text += "# choices: {retreats: {ID: {path: [\"HEX\"]}}}   for results on your units (13.2)\n";
    g.choices.extend(guns);
    g.choices.extend(mortars);
    g.comment = text;
    g
}

/// Rifle Fire (series 10): each rifle unit of the side that could fire,
/// with the adjacent targets the rifle fire checks accept.
fn rifle_guide(rules: &Rules, state: &State, side: &str) -> Guide {
    let mut g = plain_guide(rules, state, side, "rifle-fire", "docs/orders.md, Rifle Fire");
    let mut fires = Vec::new();
    for e in &mut g.units {
        if !rules.counter(&e.unit).is_some_and(crate::systems::gboar::board::units::is_rifle) {
            continue;
        }
        let targets = seen_targets(
            rules,
            state,
            side,
            crate::systems::gboar::phases::fire::rifle_targets(rules, state, side, &e.unit),
        );
        for t in &targets {
            fires.push(Choice {
                key: "rifle_fire".into(),
                yaml: Some(format!("{{rifles: [{}], target: {}}}", e.unit, target_yaml(t))),
                text: format!("{} at {t} (10.2)", e.unit),
                ..Choice::default()
            });
        }
        if !targets.is_empty() {
            e.notes.push(format!("may fire at {} (10.1, 10.2)", targets.join(", ")));
        }
    }
    let mut text = String::new();
    if fires.is_empty() {
        text += "# No rifle unit of yours has an adjacent target: `rifle_fire: []`.\n";
    } else {
        text += &wrap(
            "# ",
            "#   ",
            "Rifle fire, under `rifle_fire:` (10.1: voluntary; rifles: [A, B] fire together at one \
             adjacent target, 10.2):",
        );
        text += &choice_lines(true, &fires.iter().collect::<Vec<_>>());
    }
    text += "# choices: {retreats: {ID: {path: [\"HEX\"]}}}   for results on your units (13.2)\n";
    g.choices = fires;
    g.comment = text;
    g
}

/// The Initiative Segment (series 6, 12.62): the chits each player holds,
/// who decides first, the side's initiative DRM, the spending open to it.
fn initiative_guide(rules: &Rules, state: &State, side: &str) -> Guide {
    use crate::systems::gboar::phases::initiative::{decision_order, initiative_drm, PER_CHIT, TO_DICTATE};
    let mut g = plain_guide(rules, state, side, "initiative", "docs/orders.md, Initiative");
    let player = rules.player_of_side(side);
    let held = state.momentum.get(&player).copied().unwrap_or(0);
    let holdings: Vec<String> = rules
        .sequence
        .data
        .alliances
        .iter()
        .map(|a| format!("{} {}", a.id, state.momentum.get(&a.id).copied().unwrap_or(0)))
        .collect();
    let mut text = format!("Momentum chits held (12.62): {}.", holdings.join(", "));
    let second = match decision_order(rules, state) {
        Ok((first, _)) if first == player => {
            text += &format!(" {player} had the initiative last turn and decide first.");
            false
        }
        Ok(_) => {
            text += &format!(" {player} decide second, and may wait for the other player's spending.");
            true
        }
        Err(_) => false,
    };
    if let Ok((drm, why)) = initiative_drm(rules, state, &player) {
        text += &format!(" Your initiative roll's DRM: {drm:+} ({why}; 6.1, 16.2).");
    }
    let sides = rules.sequence.sides_of(&player);
    if sides.len() > 1 {
        text += &format!(" The {} sides' spending adds up, to at most {held} in all.", sides.join(" and "));
    }
    let mut choices = Vec::new();
    if held > 0 {
        choices.push(Choice {
            key: "momentum".into(),
            yaml: Some("{before_roll: 1}".into()),
            text: format!("spend 1 chit before the roll: {PER_CHIT:+} (12.62); at most {held}"),
            ..Choice::default()
        });
        if second {
            choices.push(Choice {
                key: "momentum".into(),
                yaml: Some("{before_roll: {after_opponent: {\"0\": 1}, otherwise: 0}}".into()),
                text: "spend 1 only if the other player spent none (12.62)".into(),
                ..Choice::default()
            });
        }
    }
    choices.push(Choice {
        key: "momentum".into(),
        yaml: Some("{dictate: true}".into()),
        text: format!(
            "if the rolls go against you, spend {TO_DICTATE} chits after them to take the initiative (12.62)\
             {}",
            if held < TO_DICTATE { format!("; you hold {held}, so it cannot happen now") } else { String::new() }
        ),
        ..Choice::default()
    });
    let mut comment = wrap("# ", "#   ", &text);
    comment += "# With no orders a player spends nothing. Under `momentum:`, e.g.:\n";
    comment += &choice_lines(false, &choices.iter().collect::<Vec<_>>());
    g.choices = choices;
    g.comment = comment;
    g
}

/// Fire targets as the side may name them (series 7.4): under hidden
/// stacks, an enemy unit it has not examined by its hex (each hex once, in
/// the order first met); otherwise, and for units it has examined, by id.
fn seen_targets(rules: &Rules, state: &State, side: &str, targets: Vec<String>) -> Vec<String> {
    if !intel::hidden(rules) {
        return targets;
    }
    let mut named: Vec<String> = Vec::new();
    for t in targets {
        let name = match hex_of(state, &t) {
            Some(h) if !intel::friendly(rules, side, &t) && !intel::known(state, side, &t) => h.to_string(),
            _ => t,
        };
        if !named.contains(&name) {
            named.push(name);
        }
    }
    named
}

/// The hex of a target [`seen_targets`] names: a unit's, or the hex itself.
fn target_hex(state: &State, target: &str) -> Option<crate::base::hex::HexId> {
    hex_of(state, target).or_else(|| target.parse().ok())
}

/// A target in words: a unit's id, or "a hidden stack" for a hex.
fn target_text(target: &str) -> String {
    if target.parse::<crate::base::hex::HexId>().is_ok() {
        "a hidden stack (7.4)".to_string()
    } else {
        target.to_string()
    }
}

/// A target as an orders file writes it: a hex quoted, a unit id bare.
fn target_yaml(target: &str) -> String {
    if target.parse::<crate::base::hex::HexId>().is_ok() {
        format!("\"{target}\"")
    } else {
        target.to_string()
    }
}

/// The set-up step: the units the side deploys, each with the hexes of its
/// zone it may take (the stacking checks of the step's own validation).
fn set_up_guide(rules: &Rules, state: &State, side: &str) -> Guide {
    use crate::systems::gboar::phases::set_up::{choices, validate, zone_hexes};
    let mut g = plain_guide(rules, state, side, "set-up", "docs/orders.md, Set-up");
    let mut text = String::new();
    let mut open = Vec::new();
    for choice in choices(rules, side) {
        let zone = choice.anywhere_in_zone.clone().unwrap_or_default();
        let rule = choice.rule.clone().unwrap_or_default();
        let printed = state.units.get(&choice.unit).and_then(|u| u.hex).map(|h| h.to_string()).unwrap_or_default();
        let legal: Vec<HexId> = zone_hexes(rules, &zone)
            .into_iter()
            .filter(|h| {
                let mut deploy = Mapping::new();
                deploy.insert(key(&choice.unit), Value::String(h.to_string()));
                let mut body = Mapping::new();
                body.insert(key("deploy"), Value::Mapping(deploy));
                validate(rules, state, side, &Value::Mapping(body)).is_empty()
            })
            .collect();
        text += &format!(
            "{} may deploy in any hex within {zone} ({rule}), subject to stacking limits: {}. Printed hex: \
             {printed}, where it stays if you name no other. ",
            choice.unit,
            runs_text(&legal)
        );
        if let Some(h) = legal.iter().find(|h| h.to_string() != printed) {
            open.push(Choice {
                key: "deploy".into(),
                yaml: Some(format!("{{{}: \"{h}\"}}", choice.unit)),
                text: format!("deploy {} in {h} instead of {printed} ({rule})", choice.unit),
                ..Choice::default()
            });
        }
    }
    let mut comment = wrap("# ", "#   ", text.trim_end());
    if !open.is_empty() {
        comment += "# Under `deploy:`, e.g.:\n";
        comment += &choice_lines(false, &open.iter().collect::<Vec<_>>());
    }
    g.choices = open;
    g.comment = comment;
    g
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::gboar::data::Source;
    use crate::systems::gboar::guide::least::{minimal, minimal_of};

    /// The Historical set-up and the empty hexes a unit may enter next to
    /// the British unit in 1905.
    fn next_to_1905() -> (Rules, State, Vec<HexId>) {
        use crate::systems::gboar::data::charts::MovementCost;
        let rules = Rules::load(&Source::Embedded("savannah-1779".into()), "historical").unwrap();
        let state = State::setup(&rules.module, "historical").unwrap();
        let terrain = crate::systems::gboar::board::terrain::Terrain::new(&rules);
        let enemy: HexId = "1905".parse().unwrap();
        let free: Vec<HexId> = crate::base::hex::neighbours(enemy, rules.module.map.layout)
            .into_iter()
            .filter(|h| state.units.values().all(|u| u.hex != Some(*h)))
            .filter(|h| terrain.hex(*h).is_some_and(|i| i.movement_cost != MovementCost::Prohibited))
            .collect();
        (rules, state, free)
    }

    fn hexes(list: &[&str]) -> Vec<HexId> {
        list.iter().filter_map(|h| h.parse().ok()).collect()
    }

    #[test]
    fn runs_of_three_or_more_in_a_column_are_written_first_last() {
        let list = hexes(&["1609", "1610", "1611", "1612", "1709", "1710", "1712", "1801", "1899", "1900"]);
        assert_eq!(runs_text(&list), "1609-1612 1709 1710 1712 1801 1899 1900");
        assert_eq!(runs_text(&[]), "");
    }

    #[test]
    fn wrapped_lines_keep_their_prefixes_width_and_inner_gaps() {
        let text = format!("key: value   {}", "word ".repeat(40));
        let out = wrap("# ", "#   ", &text);
        assert!(out.starts_with("# key: value   word word"), "{out}");
        for line in out.lines() {
            assert!(line.len() <= WIDTH, "{line}");
            assert!(line.starts_with("# ") && !line.ends_with(' '), "{line}");
        }
        assert!(out.lines().skip(1).all(|l| l.starts_with("#   word")), "{out}");
        assert_eq!(out.matches("word").count(), 40);
    }

    /// Hist. Set Up: the first step is the British set-up; the least
    /// orders keep the Loyal Savannah Militia at its printed hex (and
    /// validate), and the guide offers the perimeter's hexes it may take,
    /// not the Negro Volunteers' (Savannah 4.1).
    #[test]
    fn the_set_up_template_keeps_the_printed_hex() {
        let rules = Rules::load(&Source::Embedded("savannah-1779".into()), "historical").unwrap();
        let state = State::setup(&rules.module, "historical").unwrap();
        let step = state.next.clone().unwrap();
        assert_eq!(step.name(), "16-set-up");
        let least = minimal(&rules, &state, &step, "british");
        let printed = state.units["loyal-savannah-militia"].hex.unwrap().to_string();
        let deployed = least.get("deploy").and_then(|d| d.get("loyal-savannah-militia")).and_then(Value::as_str);
        assert_eq!(deployed, Some(printed.as_str()), "{least:?}");
        let problems = crate::systems::gboar::phases::set_up::validate(&rules, &state, "british", &least);
        assert!(problems.is_empty(), "{problems:?}");
        let g = guide(&rules, &state, &step, "british", &least);
        assert_eq!(g.kind, "set-up");
        assert!(g.comment.contains("within savannah-defensive-perimeter"), "{}", g.comment);
        let nv = state.units["negro-volunteers"].hex.unwrap();
        let list = g.comment.split("stacking limits:").nth(1).and_then(|t| t.split("Printed hex").next()).unwrap();
        let list = list.replace("#  ", " ");
        assert!(list.contains(" 2002 ") && !list.contains(&format!(" {nv} ")), "{list}");
        assert!(g.choices.iter().all(|c| c.key == "deploy"), "{:?}", g.choices);
    }

    /// Series 7.4 under hidden stacks (tests/modules/intel): Red Foot in
    /// 0505 next to Blue Foot in 0506, Red Mortar within range of it. In
    /// Blue's guides (its units "next to", the defence's attackers) and in
    /// Red's fire guide (the mortar's target hex) the enemy unit the side
    /// may not see is "a hidden stack in HEX", in the comment and the data;
    /// in Red's own Close Combat Phase Blue Foot, next to its unit, is seen
    /// (7.4: "after friendly units have been moved adjacent").
    /// tests/modules/intel with a foot unit of each side and the red
    /// mortar face to face.
    fn intel_board() -> (Rules, State) {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/modules/intel");
        let rules = Rules::load(&Source::dir(&dir), "battle").unwrap();
        let mut state = State::setup(&rules.module, "battle").unwrap();
        for (unit, hex) in [("red-foot", "0505"), ("blue-foot", "0506"), ("red-mortar", "0503")] {
            state.units.get_mut(unit).unwrap().hex = Some(hex.parse().unwrap());
        }
        (rules, state)
    }

    /// `adjutant selfplay` draws from `guide_choices`: the guide's kind,
    /// units and choices (hidden stacks hidden too), without the comment
    /// lines listing the units.
    #[test]
    fn the_guide_for_choices_is_the_guide_without_the_units_listed() {
        let (rules, state) = intel_board();
        let cases =
            [("blue", "movement", "blue"), ("red", "close-combat", "blue"), ("red", "defensive-artillery-fire", "red")];
        for (player, phase, side) in cases {
            let step = Step::PlayerTurn { turn: 1, player: player.into(), phase: phase.into() };
            let least = minimal(&rules, &state, &step, side);
            let full = guide(&rules, &state, &step, side, &least);
            let lean = guide_choices(&rules, &state, &step, side, &least);
            assert!(!lean.choices.is_empty(), "{side}, {phase}: no choice to compare");
            assert_eq!(serde_json::to_value(&lean).unwrap(), serde_json::to_value(&full).unwrap(), "{side}, {phase}");
            assert!(full.comment.contains("# Your units ("), "{side}, {phase}:\n{}", full.comment);
            assert!(!lean.comment.contains("# Your units ("), "{side}, {phase}:\n{}", lean.comment);
        }
    }

    #[test]
    fn hidden_stacks_keep_unseen_enemy_units_out_of_the_guide() {
        let (rules, state) = intel_board();
        let text = |g: &Guide| {
            format!(
                "{}\n{}\n{}",
                g.comment,
                serde_json::to_string(&g.units).unwrap(),
                serde_json::to_string(&g.choices).unwrap()
            )
        };
        let cases = [
            ("blue", "movement", "blue", "red-foot"),
            ("red", "close-combat", "blue", "red-foot"),
            ("red", "defensive-artillery-fire", "red", "blue-foot"),
        ];
        for (player, phase, side, unseen) in cases {
            let step = Step::PlayerTurn { turn: 1, player: player.into(), phase: phase.into() };
            let least = minimal(&rules, &state, &step, side);
            let g = guide(&rules, &state, &step, side, &least);
            let all = text(&g);
            let name = &rules.counter(unseen).unwrap().name;
            assert!(!all.contains(unseen) && !all.contains(name.as_str()), "{side}, {phase}: names {unseen}:\n{all}");
            let hex = state.units[unseen].hex.unwrap();
            assert!(all.contains(&format!("a hidden stack in {hex}")), "{side}, {phase}:\n{all}");
            if phase == "defensive-artillery-fire" {
                let mortar = g.choices.iter().find(|c| c.key == "mortars").expect("the mortar's choice");
                assert_eq!(mortar.details["units"], serde_json::json!([format!("a hidden stack in {hex}")]));
            }
        }
        // Red's own Close Combat Phase: the enemy next to its units is seen.
        let step = Step::PlayerTurn { turn: 1, player: "red".into(), phase: "close-combat".into() };
        let least = minimal(&rules, &state, &step, "red");
        let all = text(&guide(&rules, &state, &step, "red", &least));
        assert!(all.contains("blue-foot"), "{all}");
    }

    /// The set-up of the Historical Scenario: the guide to the French
    /// movement lists every French unit on the map, in comments only, and
    /// says why the guns the scenario holds may not move.
    #[test]
    fn the_movement_guide_lists_every_unit_of_the_side() {
        let rules = Rules::load(&Source::Embedded("savannah-1779".into()), "historical").unwrap();
        let state = State::setup(&rules.module, "historical").unwrap();
        let step = Step::PlayerTurn { turn: 16, player: "allies".into(), phase: "movement".into() };
        let least = minimal(&rules, &state, &step, "french");
        let g = guide(&rules, &state, &step, "french", &least);
        assert_eq!(g.kind, "movement");
        let listed: Vec<&str> = g.units.iter().map(|u| u.unit.as_str()).collect();
        assert_eq!(listed, side_units(&rules, &state, "french"));
        assert!(g.comment.lines().all(|l| l.starts_with('#')), "{}", g.comment);
        let mortar = g.units.iter().find(|u| u.unit == "mortar-battery").unwrap();
        assert_eq!(mortar.reach.as_deref(), Some(&[][..]));
        assert!(mortar.notes.iter().any(|n| n.starts_with("may not move")), "{:?}", mortar.notes);
        assert!(g.choices.iter().any(|c| c.key == "moves" && c.yaml.is_some()));
    }
    /// 13.3 and 9.3: a disrupted unit next to the enemy is moved away in
    /// the least orders, and the guide says so; a pinned unit's reach
    /// holds only hexes next to no enemy unit, each a move `validate`
    /// accepts with `leave_pin: true` after the least orders' moves.
    #[test]
    fn disrupted_and_pinned_units_are_told_what_the_rules_require() {
        let (rules, mut state, free) = next_to_1905();
        assert!(free.len() >= 2, "{free:?}");
        let auxerrois = state.units.get_mut("auxerrois").unwrap();
        auxerrois.hex = Some(free[0]);
        auxerrois.condition = Condition::Disrupted;
        let dillon = state.units.get_mut("dillon-irish").unwrap();
        dillon.hex = Some(free[1]);
        dillon.pinned = true;
        let step = Step::PlayerTurn { turn: 16, player: "allies".into(), phase: "movement".into() };
        let least = minimal(&rules, &state, &step, "french");
        assert!(ordered_moves(&least).contains("auxerrois"), "{least:?}");
        let g = guide(&rules, &state, &step, "french", &least);
        let notes = |id: &str| g.units.iter().find(|u| u.unit == id).unwrap().notes.join(" | ");
        assert!(notes("auxerrois").contains("must move away (13.3); in the orders above"), "{}", notes("auxerrois"));
        assert!(notes("dillon-irish").contains("add `leave_pin: true`"), "{}", notes("dillon-irish"));
        let reach = g.units.iter().find(|u| u.unit == "dillon-irish").unwrap().reach.clone().unwrap();
        assert!(!reach.is_empty());
        let moved = least.get("moves").and_then(Value::as_sequence).cloned().unwrap_or_default();
        for hex in &reach {
            let h: HexId = hex.parse().unwrap();
            assert!(
                crate::systems::gboar::board::units::enemies_next_to(&rules, &state, h, "allies").is_empty(),
                "{hex}"
            );
            let mut body = moved.clone();
            body.push(
                crate::base::yaml::from_str(&format!("{{unit: dillon-irish, to: \"{hex}\", leave_pin: true}}"))
                    .unwrap(),
            );
            let mut orders = Mapping::new();
            orders.insert(key("moves"), Value::Sequence(body));
            let problems = crate::systems::gboar::phases::movement::validate(
                &rules,
                &state,
                "allies",
                "french",
                &Value::Mapping(orders),
            );
            assert!(problems.is_empty(), "{hex}: {problems:?}");
        }
    }

    /// Savannah 4.1: a French/American stack next to the enemy, where its
    /// French unit would have to attack (12.12), retreats in the least
    /// orders; staying is refused; the guide says why. The American unit,
    /// barred from attacking on turn 16, is not made to move.
    #[test]
    fn a_mixed_stack_next_to_the_enemy_retreats_in_the_least_orders() {
        let (rules, mut state, free) = next_to_1905();
        assert!(!free.is_empty());
        let foot = |army: &str| {
            state
                .units
                .iter()
                .find(|(id, u)| {
                    u.hex.is_some() && rules.counter(id).is_some_and(|c| c.army == army && c.kind == "infantry")
                })
                .map(|(id, _)| id.clone())
                .unwrap()
        };
        let (french, american) = (foot("french"), foot("american"));
        for id in [&french, &american] {
            state.units.get_mut(id.as_str()).unwrap().hex = Some(free[0]);
        }
        let step = Step::PlayerTurn { turn: 16, player: "allies".into(), phase: "movement".into() };
        // The French unit would have to attack (12.12), so it retreats.
        let least = minimal(&rules, &state, &step, "french");
        assert!(ordered_moves(&least).contains(french.as_str()), "{least:?}");
        let problems = crate::systems::gboar::phases::movement::validate(&rules, &state, "allies", "french", &least);
        assert!(problems.is_empty(), "{problems:?}");
        let mut stay = Mapping::new();
        stay.insert(key("moves"), Value::Sequence(Vec::new()));
        let stay = Value::Mapping(stay);
        let problems = crate::systems::gboar::phases::movement::validate(&rules, &state, "allies", "french", &stay);
        assert!(problems.iter().any(|p| p.message.contains("must retreat instead")), "{problems:?}");
        let g = guide(&rules, &state, &step, "french", &least);
        let notes = g.units.iter().find(|u| u.unit == french).unwrap().notes.join(" | ");
        assert!(notes.contains("must retreat instead of attacking (Savannah 4.1)"), "{notes}");
        // Turn 16 of the Historical Scenario: American units may not attack,
        // so none has to and none must retreat instead.
        assert_eq!(state.turn, 16);
        let least = minimal(&rules, &state, &step, "american");
        assert!(!ordered_moves(&least).contains(american.as_str()), "{least:?}");
        assert!(
            crate::systems::gboar::phases::movement::validate(&rules, &state, "allies", "american", &stay).is_empty()
        );
    }

    /// 12.12, 12.13, 12.15: the least orders attack every enemy hex next to
    /// a unit that must attack, even where the first defending hex could
    /// take every attacker: A2 is next to D1 and D2, A1 to D1 alone, so A2
    /// must take D2 (one hex against one) and A1 D1. Taking both against D1
    /// would leave D2 unattacked, which `validate` refuses.
    #[test]
    fn the_forced_attacks_leave_no_enemy_hex_unattacked() {
        use crate::base::hex::{are_adjacent, neighbours};
        let rules = Rules::load(&Source::Embedded("savannah-1779".into()), "historical").unwrap();
        let mut state = State::setup(&rules.module, "historical").unwrap();
        let layout = rules.module.map.layout;
        let terrain = crate::systems::gboar::board::terrain::Terrain::new(&rules);
        let clear = |h: HexId| terrain.hex(h).is_some_and(|i| i.terrain == "clear");
        let mut found = None;
        'search: for col in 26..34u32 {
            for row in 4..16u32 {
                let Ok(d1) = format!("{col:02}{row:02}").parse::<HexId>() else { continue };
                for d2 in neighbours(d1, layout).into_iter().filter(|d2| *d2 > d1) {
                    let common: Vec<HexId> =
                        neighbours(d1, layout).into_iter().filter(|a| are_adjacent(*a, d2, layout)).collect();
                    for a2 in &common {
                        let a1 = neighbours(d1, layout)
                            .into_iter()
                            .find(|a| *a != d2 && *a != *a2 && !are_adjacent(*a, d2, layout) && clear(*a));
                        if let Some(a1) = a1.filter(|_| [d1, d2, *a2].into_iter().all(clear)) {
                            found = Some((d1, d2, a1, *a2));
                            break 'search;
                        }
                    }
                }
            }
        }
        let (d1, d2, a1, a2) = found.expect("four clear hexes in the open ground east of the town");
        for u in state.units.values_mut() {
            u.hex = None;
        }
        let army = |army: &str| -> Vec<String> {
            state
                .units
                .keys()
                .filter(|u| rules.counter(u).is_some_and(|c| c.army == army && c.kind == "infantry"))
                .take(2)
                .cloned()
                .collect()
        };
        let (french, british) = (army("french"), army("british"));
        for (id, hex) in french.iter().zip([a1, a2]).chain(british.iter().zip([d1, d2])) {
            let u = state.units.get_mut(id).unwrap();
            u.hex = Some(hex);
            u.condition = Condition::ParadeOrder;
        }
        let step = Step::PlayerTurn { turn: 16, player: "allies".into(), phase: "close-combat".into() };
        let least = minimal(&rules, &state, &step, "french");
        let text = crate::base::yaml::to_string(&least).unwrap();
        let problems =
            crate::systems::gboar::phases::validate_body(&rules, &state, &step, "french", &least, "t.yaml", &text);
        assert!(problems.is_empty(), "{text}\n{problems:?}");
        let attacks = least.get("attacks").and_then(Value::as_sequence).cloned().unwrap_or_default();
        assert_eq!(attacks.len(), 2, "{text}");
    }

    /// Savannah 4.13: a French and an American unit facing one British hex
    /// and no other may not combine against it, and 12.15 attacks it once:
    /// the least orders have one of them attack it, and the other, with no
    /// attack left to make or join, is excused from 12.12. Both sides'
    /// least orders validate, alone and together.
    #[test]
    fn french_and_american_units_facing_one_hex_give_one_attack() {
        let (rules, mut state, free) = next_to_1905();
        assert!(free.len() >= 2, "{free:?}");
        // The British units elsewhere off the map: 1905 is the only enemy hex.
        for (id, u) in state.units.iter_mut() {
            if u.hex.map(|h| h.to_string()).as_deref() != Some("1905")
                && rules.counter(id).is_some_and(|c| c.army == "british")
            {
                u.hex = None;
                u.off_map = Some(crate::systems::gboar::board::state::OffMap::Removed);
            }
        }
        let foot = |state: &State, army: &str| {
            state
                .units
                .iter()
                .find(|(id, u)| {
                    u.hex.is_some() && rules.counter(id).is_some_and(|c| c.army == army && c.kind == "infantry")
                })
                .map(|(id, _)| id.clone())
                .unwrap()
        };
        let (french, american) = (foot(&state, "french"), foot(&state, "american"));
        state.units.get_mut(&french).unwrap().hex = Some(free[0]);
        state.units.get_mut(&american).unwrap().hex = Some(free[1]);
        // Turn 17: the Historical Scenario's turn 16 bars American attacks.
        state.turn = 17;
        let step = Step::PlayerTurn { turn: 17, player: "allies".into(), phase: "close-combat".into() };
        assert!(crate::systems::gboar::board::units::must_attack(&rules, &state, &french));
        assert!(crate::systems::gboar::board::units::must_attack(&rules, &state, &american));
        let mut orders = BTreeMap::new();
        for side in ["american", "french", "british"] {
            let least = minimal(&rules, &state, &step, side);
            let text = crate::base::yaml::to_string(&least).unwrap();
            let problems =
                crate::systems::gboar::phases::validate_body(&rules, &state, &step, side, &least, "t.yaml", &text);
            assert!(problems.is_empty(), "{side}: {text}\n{problems:?}");
            orders.insert(side.to_string(), least);
        }
        let together = crate::systems::gboar::phases::validate_step(&rules, &state, &step, &orders);
        assert!(together.is_empty(), "{orders:?}\n{together:?}");
        let attackers: Vec<String> = orders
            .values()
            .filter_map(|b| b.get("attacks").and_then(Value::as_sequence))
            .flatten()
            .flat_map(|a| a.get("attackers").and_then(Value::as_sequence).cloned().unwrap_or_default())
            .filter_map(|a| a.as_str().map(str::to_string))
            .collect();
        let both = [&french, &american].iter().filter(|u| attackers.contains(u)).count();
        assert_eq!(both, 1, "one of {french} and {american} attacks 1905: {orders:?}");
    }

    /// 13.3 and Savannah 4.1 (self-play, seed 1, games 278, 421 and 670):
    /// a disrupted unit whose hexes away from the enemy all hold units of
    /// the other army, and a retreat's French/American stack with no hex
    /// to unstack to. In the positions of the conformance cases that show
    /// the rule, the least orders of every side validate, alone and
    /// together, and move no unit the rule does not make move.
    #[test]
    fn the_least_orders_validate_where_allied_units_fill_the_hexes_away() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/movement");
        for name in [
            "13-3-a-disrupted-unit-whose-hexes-hold-units-it-may-not-end-with.yaml",
            "savannah-4-1-no-hex-to-unstack-to.yaml",
        ] {
            let text = std::fs::read_to_string(dir.join(name)).unwrap();
            let (rules, state, step) =
                crate::systems::gboar::case::position(name, &text, |m| Ok(Source::dir(&dir.join(m)))).unwrap();
            let sides = crate::systems::gboar::phases::awaited(&rules, &state, &step);
            assert_eq!(sides, ["blue", "green"], "{name}");
            let least = minimal_of(&rules, &state, &step, &sides);
            for (side, body) in &least {
                let problems =
                    crate::systems::gboar::phases::validate_body(&rules, &state, &step, side, body, "t.yaml", "");
                assert!(problems.is_empty(), "{name} {side}: {problems:?}");
                assert!(ordered_moves(body).is_empty(), "{name} {side}: {body:?}");
            }
            let together = crate::systems::gboar::phases::validate_step(&rules, &state, &step, &least);
            assert!(together.is_empty(), "{name}: {together:?}");
        }
    }

    /// Savannah 4.1 and 13.3 (self-play, seed 1, games 920, 4394, 7624,
    /// 8996 and 2114): a retreat's stack whose first restricted pair cannot
    /// move while a third unit can, and a disrupted unit whose best hex
    /// away holds a unit of the other army. In the positions of the
    /// conformance cases that show the rule, the least orders of every
    /// side validate, alone and together, and move the unit the rule makes
    /// move (and no other).
    #[test]
    fn the_least_orders_unstack_a_third_unit_and_move_a_disrupted_unit_where_the_orders_leave_room() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/movement");
        for (name, mover) in [
            ("savannah-4-1-a-third-unit-of-the-stack-must-unstack.yaml", "blue-rifles"),
            ("13-3-away-from-as-many-as-the-hexes-the-orders-leave-open.yaml", "blue-foot"),
        ] {
            let text = std::fs::read_to_string(dir.join(name)).unwrap();
            let (rules, state, step) =
                crate::systems::gboar::case::position(name, &text, |m| Ok(Source::dir(&dir.join(m)))).unwrap();
            let sides = crate::systems::gboar::phases::awaited(&rules, &state, &step);
            let least = minimal_of(&rules, &state, &step, &sides);
            for (side, body) in &least {
                let problems =
                    crate::systems::gboar::phases::validate_body(&rules, &state, &step, side, body, "t.yaml", "");
                assert!(problems.is_empty(), "{name} {side}: {problems:?}");
            }
            let together = crate::systems::gboar::phases::validate_step(&rules, &state, &step, &least);
            assert!(together.is_empty(), "{name}: {together:?}");
            let moved: BTreeSet<String> = least.values().flat_map(ordered_moves).collect();
            assert_eq!(moved, BTreeSet::from([mover.to_string()]), "{name}: {least:?}");
        }
    }

    /// Savannah 4.9: a Lost mounted unit may not select Cavalry Withdrawal;
    /// the defence guide does not offer it for its hex, as it does for the
    /// same unit not Lost.
    #[test]
    fn the_guide_offers_no_withdrawal_to_lost_cavalry() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases/close-combat");
        let name = "savannah-4-9-lost-cavalry-may-not-select-cavalry-withdrawal.yaml";
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        let (rules, mut state, step) =
            crate::systems::gboar::case::position(name, &text, |m| Ok(Source::dir(&dir.join(m)))).unwrap();
        let offered = |state: &State| {
            let least = minimal(&rules, state, &step, "blue");
            let g = guide(&rules, state, &step, "blue", &least);
            g.choices.iter().filter_map(|c| c.details.get("cavalry_withdrawal").and_then(|w| w.as_bool())).any(|w| w)
        };
        assert!(!offered(&state), "Lost: no withdrawal");
        state.units.get_mut("blue-horse").unwrap().lost = false;
        assert!(offered(&state), "not Lost: the withdrawal is open");
    }

    /// Savannah Hist. Special Rules: a held gun that Defensive Artillery
    /// Fire sent back moves toward its at-start hex as quickly as it can;
    /// the least orders make that move, so they validate.
    #[test]
    fn a_gun_sent_back_moves_home_in_the_least_orders() {
        let rules = Rules::load(&Source::Embedded("savannah-1779".into()), "historical").unwrap();
        let mut state = State::setup(&rules.module, "historical").unwrap();
        let layout = rules.module.map.layout;
        let gun = "carolina-battery";
        let home: HexId = "1505".parse().unwrap();
        let occupied = |state: &State, h: HexId| state.units.values().any(|u| u.hex == Some(h));
        let terrain = crate::systems::gboar::board::terrain::Terrain::new(&rules);
        let away = crate::base::hex::neighbours(home, layout)
            .into_iter()
            .flat_map(|n| crate::base::hex::neighbours(n, layout))
            .filter(|h| crate::base::hex::distance(*h, home, layout) == 2 && !occupied(&state, *h))
            .find(|h| terrain.hex(*h).is_some_and(|i| i.terrain == "clear"))
            .expect("a clear hex two hexes from 1505");
        let u = state.units.get_mut(gun).unwrap();
        u.hex = Some(away);
        u.must_return = true;
        let step = Step::PlayerTurn { turn: state.turn, player: "british".into(), phase: "movement".into() };
        let least = minimal(&rules, &state, &step, "british");
        assert!(ordered_moves(&least).contains(gun), "{least:?}");
        let problems = crate::systems::gboar::phases::movement::validate(&rules, &state, "british", "british", &least);
        assert!(problems.is_empty(), "{least:?}\n{problems:?}");
        // Staying where it is is refused: the move is the rule's, not a choice.
        let mut stay = Mapping::new();
        stay.insert(key("moves"), Value::Sequence(Vec::new()));
        let problems = crate::systems::gboar::phases::movement::validate(
            &rules,
            &state,
            "british",
            "british",
            &Value::Mapping(stay),
        );
        assert!(problems.iter().any(|p| p.message.contains("must move back")), "{problems:?}");
    }
}
