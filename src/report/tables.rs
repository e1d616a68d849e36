//! The text report's tables, drawn in Rust with comfy-table and handed to
//! the text template as ready strings (`tables`): a template cannot lay out
//! columns, and comfy-table already knows how.
//!
//! No terminal is consulted (the crate is built without its `tty`
//! feature), so a table is as wide as its content, the same on any machine.

use comfy_table::{presets, CellAlignment, ContentArrangement, Table};
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
    /// The units on the map, a table per side (the viewer's first): unit,
    /// hex, steps, condition, pin (empty for a system without them).
    pub positions: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StepTables {
    /// Each orders file's side and file, and its SHA-256 on a line of its
    /// own (a table with the hash would not fit [`WIDTH`]); empty when none.
    pub orders: String,
    /// Index, die, value and purpose of each roll (empty when none).
    pub rolls: String,
}

/// The widest line of a text report (issue 16: a player reads it first on
/// a phone): tables are laid out to fit, and every other line longer is
/// wrapped at its spaces ([`wrap`]).
pub const WIDTH: usize = 78;

fn table(header: &[&str]) -> Table {
    let mut table = Table::new();
    table.load_style(presets::ASCII_FULL_CONDENSED);
    table.set_content_arrangement(ContentArrangement::Dynamic);
    table.set_width(WIDTH as u16);
    table.set_header(header.to_vec());
    table
}

/// `text` with each line longer than [`WIDTH`] characters broken at its
/// spaces, the lines after the first indented two more than it (a word
/// longer than a line is kept whole).
pub fn wrap(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 32);
    for (n, line) in text.split('\n').enumerate() {
        if n > 0 {
            out.push('\n');
        }
        if line.chars().count() <= WIDTH {
            out.push_str(line);
            continue;
        }
        let indent = line.len() - line.trim_start_matches(' ').len();
        let more = " ".repeat(indent + 2);
        let mut current = line[..indent].to_string();
        let mut width = indent;
        let mut empty = true;
        for word in line[indent..].split(' ') {
            let w = word.chars().count();
            if !empty && width + 1 + w > WIDTH {
                out.push_str(&current);
                out.push('\n');
                current = more.clone();
                width = more.len();
                empty = true;
            }
            if !empty {
                current.push(' ');
                width += 1;
            }
            current.push_str(word);
            width += w;
            empty = false;
        }
        out.push_str(&current);
    }
    out
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
    /// Each side's table of positions drawn, with the rows it shows: the
    /// sides' reports list the same sides' units, in another order (the
    /// viewer's own first), and mostly the same rows.
    positions: RefCell<Vec<DrawnPositions>>,
}

/// A side's rows of positions, and its table drawn.
type DrawnPositions = (Vec<crate::system::Position>, String);

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
    standing_tables(model, steps, drawn)
}

/// How a report's table of orders marks default orders (issue 16).
pub const DEFAULT_NOTE: &str = "(default: written for the side, not by it)";

/// A step's tables of orders and rolls.
fn step_tables(step: &StepReport) -> StepTables {
    let mut orders = String::new();
    for o in &step.orders {
        let file = o.file.clone().or_else(|| o.text.clone()).unwrap_or_default();
        let mut side = if o.default { format!("{} {DEFAULT_NOTE}", o.side) } else { o.side.clone() };
        if !o.trimmed.is_empty() {
            side = format!("{side} (standing orders trimmed: {})", o.trimmed.join("; "));
        }
        orders += &wrap(&format!("  {side}: {file}\n    sha256 {}\n", o.sha256.to_hex()));
    }
    let mut rolls = table(&["#", "die", "value", "purpose"]);
    for r in &step.rolls {
        rolls.add_row(vec![r.index.to_string(), r.die.to_string(), r.value.to_string(), r.purpose.clone()]);
    }
    right(&mut rolls, 0);
    right(&mut rolls, 2);
    StepTables {
        orders: orders.trim_end().to_string(),
        rolls: if step.rolls.is_empty() { String::new() } else { rolls.to_string() },
    }
}

/// The table of positions, a table per side (with the side a column, the
/// longest unit ids would not fit [`WIDTH`]), the viewer's own side first.
fn positions_tables(model: &ReportModel, drawn: &Drawn) -> String {
    let mut sides: Vec<&str> = model.standing.positions.iter().map(|p| p.side.as_str()).collect();
    sides.dedup();
    let own = model.viewer.side.as_deref();
    sides.sort_by_key(|s| (Some(*s) != own, *s));
    sides.dedup();
    let mut out = Vec::new();
    let mut seen = drawn.positions.borrow_mut();
    for side in sides {
        let rows: Vec<&crate::system::Position> = model.standing.positions.iter().filter(|p| p.side == side).collect();
        // The rows name their side: equal rows are the same side's table.
        let known = seen.iter().find(|(r, _)| r.iter().eq(rows.iter().copied()));
        if let Some((_, text)) = known {
            out.push(text.clone());
            continue;
        }
        let mut t = table(&["unit", "hex", "steps", "condition", "pin"]);
        for p in &rows {
            t.add_row(vec![
                p.unit.clone(),
                p.hex.clone(),
                p.steps.clone(),
                p.condition.clone(),
                if p.pinned { "PIN".to_string() } else { String::new() },
            ]);
        }
        let text = format!("{side}:\n{t}");
        seen.push((rows.into_iter().cloned().collect(), text.clone()));
        out.push(text);
    }
    out.join("\n")
}

/// The standing's tables, with the steps' given.
fn standing_tables(model: &ReportModel, steps: Vec<StepTables>, drawn: &Drawn) -> TextTables {
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
        positions: positions_tables(model, drawn),
        armies: if names.is_empty() { String::new() } else { armies.to_string() },
        momentum: if standing.momentum.is_empty() { String::new() } else { momentum.to_string() },
        cards: if standing.hand_sizes.is_empty() { String::new() } else { cards.to_string() },
    }
}
