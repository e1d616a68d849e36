//! The report model: what the reports of one `resolve` say, as data, for
//! one viewer. Every format renders this and nothing else; the JSON format
//! is this model itself (docs/report-schema.md).
//!
//! The model is built from the journal entries (revealed keys, seeds, orders
//! hashes, rolls, events) and the state after the last of them. It never
//! sees the chain top: nothing here could print it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{ReportInput, Viewer};
use crate::base::dice::{Bytes32, Roll};
use crate::system::{Event, GameResult};

/// The version of the report model's layout (`report_version`). Raised when
/// a field is removed or changes meaning; adding a field keeps it.
pub const REPORT_VERSION: u32 = 1;

/// The events' visibility marks ([`crate::system::VISIBLE_TO`]).
pub use crate::system::{FIELDS_VISIBLE_TO, VISIBLE_TO};

/// The reports of the steps one `resolve` made, as one viewer may see them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportModel {
    pub report_version: u32,
    pub game_id: String,
    pub module: Option<String>,
    pub scenario: Option<String>,
    /// The players, by side (their addresses are left out).
    pub players: Vec<PlayerSummary>,
    pub viewer: ViewerSummary,
    pub dice: DiceSummary,
    /// The journal's head after the last step reported: that entry's step
    /// and the SHA-256 of its file. Keep it: `adjutant verify --head`
    /// checks a game folder against it, which catches the last steps cut
    /// back (docs/DICE.md, "Holding the referee to the journal").
    pub journal_head: Option<JournalHead>,
    /// What happened, in a few lines, first in every format (issue 16):
    /// the events of note this viewer may see, each after its step, at most
    /// [`SUMMARY_LINES`] of them, then how many more the steps list.
    pub summary: Vec<String>,
    /// The steps reported, in journal order.
    pub steps: Vec<StepReport>,
    /// Where the game stands after the last step reported.
    pub standing: Standing,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerSummary {
    pub side: String,
    pub name: String,
}

/// A journal entry's step and the SHA-256 of its file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalHead {
    pub step: u32,
    pub sha256: Bytes32,
}

/// Who the report is for: `role` is `side` (with `side` set) or `referee`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewerSummary {
    pub role: String,
    pub side: Option<String>,
}

/// DICE.md: what anyone needs to check the rolls: the anchor s_0 and the
/// chain length N. Never the chain top.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiceSummary {
    pub protocol: u32,
    pub anchor: Bytes32,
    pub chain_length: u32,
}

/// One journal entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepReport {
    pub journal_step: u32,
    /// The step of the sequence of play, e.g. `16-allies-movement`.
    pub game_step: Option<String>,
    /// The revealed key s_k.
    pub key: Bytes32,
    pub seed: Bytes32,
    pub orders_digest: Bytes32,
    /// SHA-256 of the previous journal entry's file; null for step 1.
    pub previous: Option<Bytes32>,
    /// SHA-256 of the state after the step.
    pub state_sha256: Option<Bytes32>,
    pub orders: Vec<OrdersFile>,
    /// What happened, as the engine explained it (those this viewer may see).
    pub events: Vec<EventReport>,
    /// Every roll of the step, in the order drawn, with its purpose.
    pub rolls: Vec<Roll>,
}

/// An orders file the step consumed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrdersFile {
    pub side: String,
    pub sha256: Bytes32,
    /// Relative to the game folder, e.g. `orders/000001-french.yaml`.
    pub file: Option<String>,
    /// The orders themselves when they are a short text (roll logs).
    pub text: Option<String>,
    /// Default orders: written for the side by `adjutant tick` when its
    /// deadline passed, not by the side (absent when false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub default: bool,
    /// Orders written from standing orders, trimmed to what the side holds
    /// (issue 16): what was trimmed (absent when nothing was).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trimmed: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventReport {
    pub rule: String,
    pub kind: String,
    pub text: String,
    /// The event's fields, less the visibility marks and the fields this
    /// viewer may not see.
    pub fields: BTreeMap<String, Value>,
    /// The sides that may see this event, when it is secret; null when it
    /// is public.
    pub visible_to: Option<Vec<String>>,
    /// The secret fields this viewer sees, and who else may see each.
    pub fields_visible_to: BTreeMap<String, Vec<String>>,
}

/// Where the game stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Standing {
    pub turn: u32,
    pub resolved_steps: u32,
    pub weather: Option<String>,
    /// Series 16: army morale, by army.
    pub army_morale: BTreeMap<String, i32>,
    /// Series 12.61: momentum chits, by holder.
    pub momentum: BTreeMap<String, u32>,
    /// Victory points, by army.
    pub victory_points: BTreeMap<String, VictoryPoints>,
    /// Cards in hand, by holder: the viewer's own only (all for the referee).
    pub cards: BTreeMap<String, Vec<String>>,
    /// How many cards each holder has in hand: every hand's size, for
    /// every viewer (Savannah 4.3: the other side's hand is secret, not
    /// its size).
    pub hand_sizes: BTreeMap<String, usize>,
    /// What else stands on the board, a line each (Savannah 4.4, 4.5, 4.6:
    /// siege works, breaches, destroyed city hexes); left out when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub board: Vec<String>,
    /// The units on the map, a row each, as this viewer may see them
    /// (issue 16); left out for a system without them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub positions: Vec<crate::system::Position>,
    /// The next step, or null when the game is over.
    pub next_step: Option<String>,
    /// The sides whose orders the next step awaits.
    pub awaiting: Vec<String>,
    pub result: Option<GameResult>,
}

/// Savannah 2.9: VPs are counted in halves.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VictoryPoints {
    pub halves: i32,
    /// For people: `3½`, `½`, `-1½`, `0`.
    pub text: String,
}

/// The most events a report's summary tells ([`ReportModel::summary`]).
pub const SUMMARY_LINES: usize = 8;

/// The summary of `steps` ([`ReportModel::summary`]): the events whose kind
/// is not `routine`, each after its step's name.
fn summary(steps: &[StepReport], routine: &[&str]) -> Vec<String> {
    let told: Vec<String> = steps
        .iter()
        .flat_map(|step| {
            let name = step.game_step.as_deref().unwrap_or("step");
            step.events
                .iter()
                .filter(|e| !routine.contains(&e.kind.as_str()))
                .map(move |e| format!("{name}: {}", e.text))
        })
        .collect();
    if told.is_empty() {
        return vec!["nothing of note happened (the steps below list every event)".to_string()];
    }
    let more = told.len().saturating_sub(SUMMARY_LINES);
    let mut lines: Vec<String> = told.into_iter().take(SUMMARY_LINES).collect();
    if more > 0 {
        lines.push(format!(
            "and {more} more {} (the steps below list every event)",
            if more == 1 { "event" } else { "events" }
        ));
    }
    lines
}

/// `halves` half points in words: 7 → `3½`.
pub fn halves_text(halves: i32) -> String {
    let sign = if halves < 0 { "-" } else { "" };
    let (whole, half) = (halves.unsigned_abs() / 2, halves.unsigned_abs() % 2 == 1);
    match (whole, half) {
        (0, true) => format!("{sign}½"),
        (w, true) => format!("{sign}{w}½"),
        (w, false) => format!("{sign}{w}"),
    }
}

impl Viewer {
    /// The ids a secret may name to reach this viewer: its side and its
    /// player (alliance). Empty for the referee, who sees everything.
    fn names<'a>(&'a self, players_of_sides: &'a BTreeMap<String, String>) -> Vec<&'a str> {
        match self {
            Viewer::Referee => Vec::new(),
            Viewer::Side(side) => {
                let mut names = vec![side.as_str()];
                if let Some(player) = players_of_sides.get(side) {
                    names.push(player.as_str());
                }
                names
            }
        }
    }
}

/// Whether a viewer with these `names` may see what `marks` allows: the
/// referee always; a side when the marks name it or its player. Marks that
/// are not an array of strings hide the thing from every side (a malformed
/// secret stays secret).
fn allowed(viewer: &Viewer, names: &[&str], marks: &Value) -> bool {
    if *viewer == Viewer::Referee {
        return true;
    }
    match marks.as_array() {
        Some(list) => list.iter().any(|v| v.as_str().is_some_and(|s| names.contains(&s))),
        None => false,
    }
}

/// An array of strings, or an empty list for anything else.
fn sides(marks: &Value) -> Vec<String> {
    marks.as_array().map(|l| l.iter().filter_map(|v| v.as_str().map(str::to_string)).collect()).unwrap_or_default()
}

/// The event as `viewer` may see it, or `None` when it is secret to others.
fn event_for(event: &Event, viewer: &Viewer, names: &[&str]) -> Option<EventReport> {
    let visible_to = event.fields.get(VISIBLE_TO);
    if let Some(marks) = visible_to {
        if !allowed(viewer, names, marks) {
            return None;
        }
    }
    let empty = serde_json::Map::new();
    let field_marks = match event.fields.get(FIELDS_VISIBLE_TO) {
        Some(Value::Object(map)) => map,
        // A malformed mark hides every field: fail closed.
        Some(_) if *viewer != Viewer::Referee => return Some(bare(event, visible_to)),
        _ => &empty,
    };
    let mut fields = BTreeMap::new();
    let mut fields_visible_to = BTreeMap::new();
    for (name, value) in &event.fields {
        if name == VISIBLE_TO || name == FIELDS_VISIBLE_TO {
            continue;
        }
        if let Some(marks) = field_marks.get(name) {
            if !allowed(viewer, names, marks) {
                continue;
            }
            fields_visible_to.insert(name.clone(), sides(marks));
        }
        fields.insert(name.clone(), value.clone());
    }
    Some(EventReport {
        rule: event.rule.clone(),
        kind: event.kind.clone(),
        text: event.text.clone(),
        fields,
        visible_to: visible_to.map(sides),
        fields_visible_to,
    })
}

/// The event without any of its fields.
fn bare(event: &Event, visible_to: Option<&Value>) -> EventReport {
    EventReport {
        rule: event.rule.clone(),
        kind: event.kind.clone(),
        text: event.text.clone(),
        fields: BTreeMap::new(),
        visible_to: visible_to.map(sides),
        fields_visible_to: BTreeMap::new(),
    }
}

/// The report model of `input` for its viewer.
pub fn model(input: &ReportInput) -> ReportModel {
    model_with_head(input, journal_head(input.entries))
}

/// The journal's head after `entries`: the last one's step and the SHA-256
/// of its canonical bytes (what [`ReportModel::journal_head`] holds).
pub(crate) fn journal_head(entries: &[crate::game::journal::JournalEntry]) -> Option<JournalHead> {
    entries.last().map(|e| JournalHead { step: e.step, sha256: e.sha256() })
}

/// [`model`] with the journal's head already computed ([`journal_head`] of
/// `input.entries`): a dispatch makes one model per side, and the head, which
/// serialises the last entry, is the same for all.
pub(crate) fn model_with_head(input: &ReportInput, journal_head: Option<JournalHead>) -> ReportModel {
    let viewer = &input.viewer;
    let names = viewer.names(&input.players_of_sides);
    let steps: Vec<StepReport> = input
        .entries
        .iter()
        .map(|entry| StepReport {
            journal_step: entry.step,
            game_step: entry
                .game_step
                .clone()
                .or_else(|| entry.correction.as_ref().map(|_| "correction".to_string()))
                .or_else(|| entry.forfeit.as_ref().map(|_| "forfeit".to_string())),
            key: entry.key,
            seed: entry.seed,
            orders_digest: entry.orders_digest,
            previous: entry.previous,
            state_sha256: entry.state_sha256,
            orders: entry
                .orders
                .iter()
                .map(|o| OrdersFile {
                    side: o.side.clone(),
                    sha256: o.sha256,
                    file: o.file.clone(),
                    text: o.text.clone(),
                    default: o.default,
                    trimmed: o.trimmed.clone(),
                })
                .collect(),
            events: entry.events.iter().filter_map(|e| event_for(e, viewer, &names)).collect(),
            rolls: entry.rolls.clone(),
        })
        .collect();
    let state = &input.standing;
    let cards = state
        .cards
        .iter()
        .filter(|(holder, _)| *viewer == Viewer::Referee || names.contains(&holder.as_str()))
        .map(|(holder, hand)| (holder.clone(), hand.clone()))
        .collect();
    let standing = Standing {
        turn: state.turn,
        resolved_steps: state.resolved_steps,
        weather: state.weather.clone(),
        army_morale: state.army_morale.clone(),
        momentum: state.momentum.clone(),
        victory_points: state
            .vp_halves
            .iter()
            .map(|(army, &halves)| (army.clone(), VictoryPoints { halves, text: halves_text(halves) }))
            .collect(),
        cards,
        hand_sizes: state.cards.iter().map(|(holder, hand)| (holder.clone(), hand.len())).collect(),
        // A holder's private lines after the public ones, the viewer's own only.
        board: state
            .board
            .iter()
            .chain(
                state
                    .private_board
                    .iter()
                    .filter(|(holder, _)| *viewer == Viewer::Referee || names.contains(&holder.as_str()))
                    .flat_map(|(_, lines)| lines),
            )
            .cloned()
            .collect(),
        positions: input.positions.clone(),
        next_step: input.next_step.clone(),
        awaiting: input.awaiting.clone(),
        result: state.result.clone(),
    };
    let game = input.game;
    let last = input.entries.last();
    // The players as they were at the last step reported, so that a later
    // change of player (`adjutant player`) leaves earlier reports as written.
    let players = game.players_at(last.map_or(0, |e| e.step));
    ReportModel {
        report_version: REPORT_VERSION,
        game_id: game.game_id.clone(),
        module: game.module.clone(),
        scenario: game.scenario.clone(),
        players: players.iter().map(|p| PlayerSummary { side: p.side.clone(), name: p.name.clone() }).collect(),
        journal_head,
        summary: summary(&steps, input.routine),
        viewer: match viewer {
            Viewer::Referee => ViewerSummary { role: "referee".into(), side: None },
            Viewer::Side(side) => ViewerSummary { role: "side".into(), side: Some(side.clone()) },
        },
        dice: DiceSummary {
            protocol: game.dice.protocol,
            anchor: game.dice.anchor,
            chain_length: game.dice.chain_length,
        },
        steps,
        standing,
    }
}
