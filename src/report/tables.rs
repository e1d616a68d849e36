//! The text report's tables, drawn in Rust with comfy-table and handed to
//! the text template as ready strings (`tables`): a template cannot lay out
//! columns, and comfy-table already knows how.
//!
//! No terminal is consulted (the crate is built without its `tty`
//! feature), so a table is as wide as its content, the same on any machine.

use comfy_table::{presets, CellAlignment, Table};
use serde::Serialize;

use std::cell::RefCell;
use std::collections::BTreeMap;

use crate::base::dice::Roll;

use super::model::{OrdersFile, ReportModel, StepReport};

/// Every table of one text report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TextTables {
    /// One per step, in the order of `steps`.
    pub steps: Vec<StepTables>,
    /// Army morale and victory points, by army.
    pub armies: String,
    /// Momentum chits, by holder.
    pub momentum: String,
    /// Cards in hand, by holder (empty when the viewer holds none).
    pub cards: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StepTables {
    /// Side, SHA-256 and file of each orders file (empty when none).
    pub orders: String,
    /// Index, die, value and purpose of each roll (empty when none).
    pub rolls: String,
}

fn table(header: &[&str]) -> Table {
    let mut table = Table::new();
    table.load_style(presets::ASCII_FULL_CONDENSED);
    table.set_header(header.to_vec());
    table
}

fn right(table: &mut Table, column: usize) {
    if let Some(c) = table.column_mut(column) {
        c.set_cell_alignment(CellAlignment::Right);
    }
}

/// Steps' tables already drawn, by journal step and what they show: the
/// reports of one dispatch (one per side) show the same orders and rolls,
/// mostly, and comfy-table need lay them out once.
#[derive(Debug, Default)]
pub struct Drawn {
    steps: RefCell<BTreeMap<u32, Vec<DrawnStep>>>,
}

/// One step's orders and rolls as a report shows them, and their tables.
type DrawnStep = (Vec<OrdersFile>, Vec<Roll>, StepTables);

/// The tables of `model`'s text report.
pub fn text_tables(model: &ReportModel) -> TextTables {
    text_tables_with(model, &Drawn::default())
}

/// [`text_tables`], with the steps' tables drawn before kept in `drawn`.
pub fn text_tables_with(model: &ReportModel, drawn: &Drawn) -> TextTables {
    let steps = model
        .steps
        .iter()
        .map(|step| {
            let mut seen = drawn.steps.borrow_mut();
            let same = seen.entry(step.journal_step).or_default();
            if let Some((_, _, tables)) = same.iter().find(|(o, r, _)| *o == step.orders && *r == step.rolls) {
                return tables.clone();
            }
            let tables = step_tables(step);
            same.push((step.orders.clone(), step.rolls.clone(), tables.clone()));
            tables
        })
        .collect();
    standing_tables(model, steps)
}

/// How a report's table of orders marks default orders (issue 16).
pub const DEFAULT_NOTE: &str = "(default: written for the side, not by it)";

/// A step's tables of orders and rolls.
fn step_tables(step: &StepReport) -> StepTables {
    let mut orders = table(&["side", "sha256", "file"]);
    for o in &step.orders {
        let file = o.file.clone().or_else(|| o.text.clone()).unwrap_or_default();
        let mut side = if o.default { format!("{} {DEFAULT_NOTE}", o.side) } else { o.side.clone() };
        if !o.trimmed.is_empty() {
            side = format!("{side} (standing orders trimmed: {})", o.trimmed.join("; "));
        }
        orders.add_row(vec![side, o.sha256.to_hex(), file]);
    }
    let mut rolls = table(&["#", "die", "value", "purpose"]);
    for r in &step.rolls {
        rolls.add_row(vec![r.index.to_string(), r.die.to_string(), r.value.to_string(), r.purpose.clone()]);
    }
    right(&mut rolls, 0);
    right(&mut rolls, 2);
    StepTables {
        orders: if step.orders.is_empty() { String::new() } else { orders.to_string() },
        rolls: if step.rolls.is_empty() { String::new() } else { rolls.to_string() },
    }
}

/// The standing's tables, with the steps' given.
fn standing_tables(model: &ReportModel, steps: Vec<StepTables>) -> TextTables {
    let standing = &model.standing;
    let mut armies = table(&["army", "army morale", "VPs"]);
    let mut names: Vec<&String> = standing.army_morale.keys().chain(standing.victory_points.keys()).collect();
    names.sort();
    names.dedup();
    for army in &names {
        armies.add_row(vec![
            army.to_string(),
            standing.army_morale.get(*army).map(i32::to_string).unwrap_or_default(),
            standing.victory_points.get(*army).map(|v| v.text.clone()).unwrap_or_default(),
        ]);
    }
    right(&mut armies, 1);
    right(&mut armies, 2);
    let mut momentum = table(&["holder", "momentum chits"]);
    for (holder, chits) in &standing.momentum {
        momentum.add_row(vec![holder.clone(), chits.to_string()]);
    }
    right(&mut momentum, 1);
    let mut cards = table(&["holder", "cards in hand"]);
    for (holder, size) in &standing.hand_sizes {
        let shown = match standing.cards.get(holder) {
            Some(hand) if hand.is_empty() => "none".to_string(),
            Some(hand) => hand.join(", "),
            None => format!("{size} card{} (not shown)", if *size == 1 { "" } else { "s" }),
        };
        cards.add_row(vec![holder.clone(), shown]);
    }
    TextTables {
        steps,
        armies: if names.is_empty() { String::new() } else { armies.to_string() },
        momentum: if standing.momentum.is_empty() { String::new() } else { momentum.to_string() },
        cards: if standing.hand_sizes.is_empty() { String::new() } else { cards.to_string() },
    }
}
