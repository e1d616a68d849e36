//! The reports of a game folder: the journal's entries for a range of
//! steps, the state after them (replayed from the set-up), the map of that
//! moment with the steps' movement arrows and combat markers, rendered for
//! one viewer in one format, with the game's own `templates/` if it has one.

use crate::engine::state::State;
use crate::error::{Error, Result};
use crate::folder::GameFolder;
use crate::fsio;
use crate::journal::JournalEntry;
use crate::map_svg;

use super::{load_templates, render, Format, ReportInput, Viewer};

/// The report of journal steps `first..=last` (1-based) of the game at
/// `folder` for `viewer`.
pub fn game_report(folder: &GameFolder, viewer: Viewer, first: u32, last: u32, format: Format) -> Result<String> {
    let rules = crate::game::load_rules(folder)?;
    let listing = folder.journal().list()?;
    let count = listing.entries.len() as u32;
    if count == 0 {
        return Err(Error::refused(format!("{}: no step is resolved yet", folder.root.display())));
    }
    if first == 0 || first > last || last > count {
        return Err(Error::usage(format!("steps {first}-{last}: the journal has steps 1 to {count}")));
    }
    if let Viewer::Side(side) = &viewer {
        if rules.module.info.sides.iter().all(|s| &s.id != side) {
            let known: Vec<&str> = rules.module.info.sides.iter().map(|s| s.id.as_str()).collect();
            return Err(Error::usage(format!("--side '{side}': the sides are {}", known.join(", "))));
        }
    }
    let mut entries: Vec<JournalEntry> = Vec::new();
    for file in &listing.entries[(first - 1) as usize..last as usize] {
        let text = fsio::read_text(&file.path, &file.label)?;
        entries.push(fsio::parse_yaml(&file.label, &text).map_err(Error::Data)?);
    }
    // The state after `last`: the cached one when it is the last step,
    // else a replay would be needed; reports of earlier steps show the
    // standing of now, and say so through `next_step`.
    let state: State = crate::game::load_state(folder)?;
    let awaiting = state.next.as_ref().map(|s| crate::engine::awaited(&rules, &state, s)).unwrap_or_default();
    let events: Vec<crate::engine::Event> = entries.iter().flat_map(|e| e.events.iter().cloned()).collect();
    let army_of = |u: &str| rules.army_of(u).map(str::to_string);
    let (arrows, markers) = crate::map_overlay::overlay(&events, &army_of);
    let counters: Vec<map_svg::CounterView> = state
        .units
        .iter()
        .filter_map(|(id, u)| {
            let hex = u.hex.as_deref()?.parse().ok()?;
            Some(rules.module.counter_view(hex, rules.counter(id)?))
        })
        .collect();
    // The map shows the game as it stands now (the state after the last
    // resolved step), with the arrows and markers of the steps reported.
    let title = format!("{}, as it stands after step {count}", folder.config.game_id);
    let svg = map_svg::render(
        &rules.module.map,
        &counters,
        &map_svg::Options { title: Some(title), arrows, markers, ..map_svg::Options::default() },
    );
    let own = folder.root.join("templates");
    let templates = load_templates(own.is_dir().then_some(own.as_path()))?;
    let input = ReportInput {
        game: &folder.config,
        viewer,
        entries: &entries,
        state: &state,
        awaiting,
        next_step: state.next.as_ref().map(|s| s.name()),
        map_svg: Some(svg),
        players_of_sides: rules.players_of_armies(),
    };
    render(&input, format, &templates)
}
