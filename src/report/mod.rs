//! Step reports (PRODUCT.md: `reports/`): what the steps one `resolve` made
//! did, for one side or for the referee, as text, Markdown, HTML or JSON.
//!
//! The engine's events say what happened and why; a report only arranges
//! them, never recomputes a rule. [`model`] gathers one viewer's report as
//! data ([`ReportModel`], `report_version` 1, docs/report-schema.md);
//! [`render`] passes it through a minijinja template ([`load_templates`]:
//! the embedded defaults of `templates/`, or a user's own) or, for JSON,
//! prints it. Same inputs, same bytes: no clock, maps in sorted order.
//!
//! Secrets: a side sees its own cards in hand only, and an event (or an
//! event's field) marked `visible_to` other sides is left out of its
//! report. The dice chain top is never an input, so it cannot appear.

pub mod game;
pub mod map;
pub mod model;
pub mod tables;
pub mod templates;

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use minijinja::value::Serde;
use minijinja::{context, Value};

use crate::base::error::{Error, Result};
use crate::game::folder::GameConfig;
use crate::game::journal::JournalEntry;

pub use model::{halves_text, model, ReportModel, REPORT_VERSION};
pub use tables::text_tables;
pub use templates::{load_templates, Templates};

/// Who a report is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Viewer {
    /// A side (`french`, `british`, ...): its own secrets and no one else's.
    Side(String),
    /// The referee: everything.
    Referee,
}

/// What a report is made from.
#[derive(Debug, Clone)]
pub struct ReportInput<'a> {
    pub game: &'a GameConfig,
    pub viewer: Viewer,
    /// The journal entries reported, in order: usually those one `resolve` made.
    pub entries: &'a [JournalEntry],
    /// Where the game stands after the last entry, as its system says
    /// ([`crate::system::Rules::standing`]).
    pub standing: crate::system::Standing,
    /// The sides the next step awaits ([`crate::system::Rules::awaited`]).
    pub awaiting: Vec<String>,
    /// The next step's name; `None` when the game is over.
    pub next_step: Option<String>,
    /// The map picture (`map::svg::render`), embedded in the HTML report.
    pub map_svg: Option<String>,
    /// Or the map's file beside the HTML report (a dispatch's `map.svg`),
    /// which the page shows as an image.
    pub map_file: Option<String>,
    /// Each side's player (alliance): [`crate::system::Rules::players_of_sides`]. A side
    /// sees the cards and secrets held under its own id or its player's;
    /// with an empty map, under its own id only.
    pub players_of_sides: BTreeMap<String, String>,
    /// The units on the map as the viewer may see them
    /// ([`crate::system::Rules::positions`]).
    pub positions: Vec<crate::system::Position>,
    /// The kinds of event the summary leaves out
    /// ([`crate::system::Rules::routine_events`]).
    pub routine: &'static [&'static str],
}

/// A report's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Format {
    Text,
    Markdown,
    Html,
    Json,
}

impl Format {
    pub const ALL: [Format; 4] = [Format::Text, Format::Markdown, Format::Html, Format::Json];

    /// The file extension of a report in this format.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Text => "txt",
            Format::Markdown => "md",
            Format::Html => "html",
            Format::Json => "json",
        }
    }

    /// The template that renders this format; JSON has none.
    pub fn template(self) -> Option<&'static str> {
        match self {
            Format::Text => Some(templates::TEXT),
            Format::Markdown => Some(templates::MARKDOWN),
            Format::Html => Some(templates::HTML),
            Format::Json => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Markdown => "markdown",
            Format::Html => "html",
            Format::Json => "json",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = Error;

    fn from_str(s: &str) -> Result<Format> {
        match s {
            "text" | "txt" => Ok(Format::Text),
            "markdown" | "md" => Ok(Format::Markdown),
            "html" => Ok(Format::Html),
            "json" => Ok(Format::Json),
            other => Err(Error::usage(format!("report format '{other}': choose text, markdown, html or json"))),
        }
    }
}

/// The report of `input` in `format`, through `templates`.
pub fn render(input: &ReportInput, format: Format, templates: &Templates) -> Result<String> {
    let model = model(input);
    render_model(&model, &Value::from(Serde(&model)), input, format, templates, &tables::Drawn::default())
}

/// [`render`] from the input's model and the model as a template value,
/// already made: one model serves every format; the text tables of steps
/// that other viewers' reports drew already are taken from `drawn`.
pub(crate) fn render_model(
    model: &ReportModel,
    value: &Value,
    input: &ReportInput,
    format: Format,
    templates: &Templates,
    drawn: &tables::Drawn,
) -> Result<String> {
    let Some(name) = format.template() else {
        let json = serde_json::to_string_pretty(model).expect("a ReportModel always serialises");
        return Ok(json + "\n");
    };
    let context = match format {
        Format::Text => context! { tables => Serde(tables::text_tables_with(model, drawn)), ..value.clone() },
        Format::Html => {
            let svg = input.map_svg.as_deref().map(inline_svg).transpose()?;
            // The map is the one thing not escaped: our own SVG, checked to be one.
            context! {
                map_svg => svg.map(Value::from_safe_string),
                map_file => input.map_file.clone(),
                ..value.clone()
            }
        }
        _ => context! { map_svg => Value::from(()), ..value.clone() },
    };
    let text = templates.render(name, context)?;
    // Issue 16: a text report is read first on a phone; its every line
    // fits 78 columns, whatever the template printed.
    Ok(if format == Format::Text { tables::wrap(&text) } else { text })
}

/// The SVG document as an element to put inside HTML: its XML declaration
/// and doctype (if any) dropped. Anything that is not an `<svg>` element is
/// refused rather than pasted unescaped into the page.
fn inline_svg(svg: &str) -> Result<String> {
    let mut rest = svg.trim_start_matches('\u{feff}').trim_start();
    for prolog in ["<?xml", "<!DOCTYPE"] {
        if rest.starts_with(prolog) {
            rest = rest.find('>').map(|i| rest[i + 1..].trim_start()).unwrap_or("");
        }
    }
    let rest = rest.trim_end();
    if rest.starts_with("<svg") && rest.ends_with("</svg>") {
        Ok(rest.to_string())
    } else {
        Err(Error::usage("the map given to the HTML report is not an SVG picture (<svg>...</svg>)"))
    }
}

#[cfg(test)]
mod tests;
