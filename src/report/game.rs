//! The reports of a game folder: the journal's entries for a range of
//! steps, the state after them (replayed from the set-up), the map of that
//! moment with the steps' movement arrows and combat markers, rendered for
//! one viewer in one format, with the game's own `templates/` if it has one.
//!
//! `resolve` writes the reports of the steps it resolved into one folder of
//! `reports/`, a *dispatch* named by its first and last journal steps
//! (`reports/000003-000007/`): for every side of the module its report in
//! each format (`british.txt`, `british.md`, `british.html`, `british.json`)
//! and the map of the last step (`map.svg`, which the HTML shows). These are
//! what `mail` sends. Every byte of them follows from the journal (and the
//! game's templates), so `verify` renders them again and names any file
//! that differs ([`check_dispatches`]). The referee's report is not stored
//! (it shows every side's secrets); `report --referee` renders it.
//!
//! `reports/pending.yaml` ([`PENDING_FILE`]) says that the reports of the
//! steps from `first_step` on are being written: `resolve` writes it before
//! its first journal entry and removes it once their dispatch is written.
//! A `resolve` killed (or short of disk) in between leaves it, and with it
//! `verify` knows that those steps await their reports, which the next
//! `resolve` writes; without it, steps the journal has and no dispatch
//! reports are a dispatch deleted, which `verify` names.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::base::apart::Apart;
use crate::base::error::{Error, Result};
use crate::base::fsio;
use crate::game::folder::{GameFolder, REPORTS_DIR};
use crate::game::journal::JournalEntry;
use crate::report::map::svg;
use crate::system::{Rules, State};

use super::{load_templates, render, Format, ReportInput, Templates, Viewer};

/// The map's file in a dispatch.
pub const MAP_FILE: &str = "map.svg";

/// The marker of reports being written, in `reports/`.
pub const PENDING_FILE: &str = "pending.yaml";

/// `reports/pending.yaml`: the reports of the steps from `first_step` on
/// are being written by a `resolve` (or await the next one).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PendingReports {
    pub first_step: u32,
}

/// The marker's path in a game folder.
pub fn pending_path(folder: &GameFolder) -> PathBuf {
    folder.root.join(REPORTS_DIR).join(PENDING_FILE)
}

/// The marker of reports being written, if there is one; a marker that
/// adjutant did not write is a data error naming it.
pub fn read_pending_marker(folder: &GameFolder) -> Result<Option<PendingReports>> {
    let path = pending_path(folder);
    let label = format!("{REPORTS_DIR}/{PENDING_FILE}");
    let text = match std::fs::read(&path) {
        Ok(bytes) => String::from_utf8(bytes).map_err(|_| Error::refused(format!("{label}: not UTF-8 text")))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(&path, e)),
    };
    crate::base::yaml::parse(&label, &text).map(Some).map_err(Error::Data)
}

/// The marker's text: the reports of the steps from `first_step` on are
/// pending (`resolve` writes it before its first journal entry).
pub fn pending_marker_text(first_step: u32) -> Result<String> {
    let body = crate::base::yaml::to_string(&PendingReports { first_step }).map_err(|e| Error::usage(e.to_string()))?;
    Ok(format!(
        "# adjutant: the reports of the steps from first_step on are being written; `adjutant resolve` writes them\n\
         {body}"
    ))
}

/// Remove the marker, if there is one.
///
/// The removal is not flushed (no fsync of `reports/`): a power cut that
/// loses it leaves a marker whose steps a dispatch already reports, and
/// the next command removes it again (recovery.rs).
pub fn remove_pending_marker(folder: &GameFolder) -> Result<()> {
    let path = pending_path(folder);
    match std::fs::remove_file(&path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(&path, e)),
    }
}

/// The last step up to `journal` (the journal's length) that the
/// dispatches in `reports/` report (0 when none).
pub fn reported_through(folder: &GameFolder, journal: u32) -> Result<u32> {
    Ok(dispatches(folder)?.0.iter().map(|d| d.last).filter(|&last| last <= journal).max().unwrap_or(0))
}

/// What the reports of a range of steps are made from.
pub struct Steps<'a> {
    pub folder: &'a GameFolder,
    pub rules: &'a dyn Rules,
    pub templates: &'a Templates,
    /// The journal entries reported, in order (at least one).
    pub entries: &'a [JournalEntry],
    /// The state after the last of them.
    pub state: &'a State,
}

impl Steps<'_> {
    fn last(&self) -> u32 {
        self.entries.last().map(|e| e.step).unwrap_or(0)
    }

    /// The map after the last step, with the steps' arrows and markers;
    /// `None` for a system without a map.
    pub fn map_svg(&self) -> Option<String> {
        self.map_svg_for(&Viewer::Referee)
    }

    /// The map after the last step as `viewer` may see it (a system whose
    /// sides see different maps, [`Rules::maps_differ`], hides from a side
    /// what it may not see).
    pub fn map_svg_for(&self, viewer: &Viewer) -> Option<String> {
        self.picture_for(viewer).map(|(picture, title)| svg::picture(picture, title))
    }

    /// What [`Self::map_svg_for`] draws, and its title: `None` when the
    /// game's system draws no map.
    fn picture_for(&self, viewer: &Viewer) -> Option<(crate::base::hexmap::Picture<'_>, String)> {
        let events: Vec<crate::system::Event> = self.entries.iter().flat_map(|e| e.events.iter().cloned()).collect();
        let side = match viewer {
            Viewer::Side(side) => Some(side.as_str()),
            Viewer::Referee => None,
        };
        let picture = self.rules.map_for(self.state.as_ref(), &events, side)?;
        Some((picture, format!("{}, after step {}", self.folder.config.game_id, self.last())))
    }

    /// Whether the game's system draws a map (a dispatch then has `map.svg`).
    pub fn has_map(&self) -> bool {
        self.rules.map(self.state.as_ref(), &[]).is_some()
    }

    /// One viewer's report; the HTML shows `map` inline, or links to
    /// `map_file` (a dispatch's `map.svg`).
    pub fn render(&self, viewer: Viewer, format: Format, map: MapIn) -> Result<String> {
        render(&self.input(viewer, map, self.awaiting()), format, self.templates)
    }

    /// The sides the step after these awaits.
    fn awaiting(&self) -> Vec<String> {
        self.rules.awaited(self.state.as_ref())
    }

    /// What one viewer's report is made from.
    fn input(&self, viewer: Viewer, map: MapIn, awaiting: Vec<String>) -> ReportInput<'_> {
        let state = self.state;
        let (map_svg, map_file) = match map {
            MapIn::Inline(svg) => (Some(svg.to_string()), None),
            MapIn::File(name) => (None, Some(name.to_string())),
            MapIn::None => (None, None),
        };
        let side = match &viewer {
            Viewer::Side(side) => Some(side.as_str()),
            Viewer::Referee => None,
        };
        let positions = self.rules.positions(state.as_ref(), side);
        ReportInput {
            game: &self.folder.config,
            viewer,
            entries: self.entries,
            standing: self.rules.standing(state.as_ref()),
            awaiting,
            next_step: state.next_step().map(|s| s.name),
            map_svg,
            map_file,
            players_of_sides: self.rules.players_of_sides(),
            positions,
            routine: self.rules.routine_events(),
        }
    }

    /// Every file of the dispatch of these steps, by name, sorted.
    pub fn dispatch(&self) -> Result<BTreeMap<String, Vec<u8>>> {
        let differ = self.rules.maps_differ();
        // The map every side sees, when they see the same one: its picture
        // here (which says whether the game's system draws one), its SVG
        // drawn on another thread while the sides' reports are rendered on
        // this one. Neither needs the other, and the SVG is some two
        // fifths of a dispatch's work (issue 11). A thread the system will
        // not start is no failure: the SVG is drawn here instead, from the
        // same state and steps.
        let picture = if differ { None } else { self.picture_for(&Viewer::Referee) };
        let drawn_apart = picture.is_some();
        std::thread::scope(|scope| {
            let map = picture.map(|(picture, title)| {
                std::thread::Builder::new().spawn_scoped(scope, move || svg::picture(picture, title)).ok()
            });
            let mut files = self.sides_files(differ, drawn_apart)?;
            if let Some(thread) = map {
                let drawn = match thread {
                    Some(thread) => thread.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                    None => self.map_svg().unwrap_or_default(),
                };
                files.insert(MAP_FILE.to_string(), drawn.into_bytes());
            }
            Ok(files)
        })
    }

    /// Each side's files of the dispatch: its reports in every format, and
    /// its own map when sides see different maps (`differ`). `map` says
    /// whether the map all sides share is drawn (by [`Self::dispatch`]).
    fn sides_files(&self, differ: bool, map: bool) -> Result<BTreeMap<String, Vec<u8>>> {
        let mut files = BTreeMap::new();
        let awaiting = self.awaiting();
        let drawn = super::tables::Drawn::default();
        let head = self
            .entries
            .last()
            .map(|e| super::model::JournalHead { step: e.step, sha256: self.folder.entry_sha256(e) });
        for side in &self.rules.sides() {
            // Each side's own map, when sides see different maps.
            let viewer = Viewer::Side(side.id.clone());
            let own = if differ { self.map_svg_for(&viewer) } else { None };
            let file = map_file(self.rules, &viewer);
            if let Some(own) = own {
                files.insert(file.clone(), own.into_bytes());
            }
            // One model per side, every format rendered from it.
            let drawn_map = map || files.contains_key(&file);
            let map_in = if drawn_map { MapIn::File(&file) } else { MapIn::None };
            let input = self.input(Viewer::Side(side.id.clone()), map_in, awaiting.clone());
            let model = super::model::model_with_head(&input, head.clone());
            let value = minijinja::Value::from(minijinja::value::Serde(&model));
            for format in Format::ALL {
                let text = super::render_model(&model, &value, &input, format, self.templates, &drawn)?;
                files.insert(format!("{}.{}", side.id, format.extension()), text.into_bytes());
            }
        }
        Ok(files)
    }
}

/// The file of `viewer`'s map in a dispatch: `map.svg`, or `SIDE-map.svg`
/// when each side sees its own map ([`Rules::maps_differ`]).
pub fn map_file(rules: &dyn Rules, viewer: &Viewer) -> String {
    match viewer {
        Viewer::Side(side) if rules.maps_differ() => format!("{side}-map.svg"),
        _ => MAP_FILE.to_string(),
    }
}

/// Where the HTML report's map is.
#[derive(Debug, Clone, Copy)]
pub enum MapIn<'a> {
    /// In the page (a report that stands alone: `report`, a mail).
    Inline(&'a str),
    /// Beside the page, in the dispatch's folder.
    File(&'a str),
    /// None: the game's system draws no map.
    None,
}

/// The game's own templates (`templates/` in the game folder) over the
/// built-in ones.
pub fn game_templates(folder: &GameFolder) -> Result<Templates> {
    templates_in(&folder.root)
}

/// [`game_templates`] of the game folder at `root`, compiled ahead
/// ([`Apart`]), to be joined when needed: compiling them is some 5% of a
/// `status`'s or a `resolve`'s instructions, and needs nothing the command
/// reads first.
pub fn game_templates_apart(root: &Path) -> Apart<Result<Templates>> {
    let root = root.to_path_buf();
    Apart::start(move || templates_in(&root))
}

/// The layers of the game's board that no game changes, drawn ahead
/// ([`svg::draw_base`], [`Apart`]) while the steps a dispatch reports are
/// resolved and written: they are a tenth of a `resolve`'s instructions,
/// and the dispatch's map waits for them otherwise. Only for rules kept
/// for the whole process (an embedded module's).
pub fn draw_board_apart(rules: &'static dyn Rules) -> Apart {
    match rules.drawn_board() {
        Some((map, key)) => Apart::start(move || svg::draw_base(&key, map)),
        None => Apart::none(),
    }
}

/// The folder of a game's own report templates, over the built-in ones.
pub const TEMPLATES_DIR: &str = "templates";

/// The game folder at `root`'s own templates folder, if it has one.
pub fn own_templates(root: &Path) -> Option<PathBuf> {
    Some(root.join(TEMPLATES_DIR)).filter(|own| own.is_dir())
}

fn templates_in(root: &Path) -> Result<Templates> {
    load_templates(own_templates(root).as_deref())
}

/// The journal entries `first..=last`, read.
pub fn entries(folder: &GameFolder, first: u32, last: u32) -> Result<Vec<JournalEntry>> {
    let listing = folder.journal().list()?;
    let count = listing.entries.len() as u32;
    if count == 0 {
        return Err(Error::refused(format!("{}: no step is resolved yet", folder.root.display())));
    }
    if first == 0 || first > last || last > count {
        return Err(Error::usage(format!("steps {first}-{last}: the journal has steps 1 to {count}")));
    }
    let mut entries = Vec::new();
    for file in &listing.entries[(first - 1) as usize..last as usize] {
        let text = fsio::read_text(&file.path, &file.label)?;
        entries.push(folder.journal_entry(&file.label, &text).map_err(Error::Data)?);
    }
    Ok(entries)
}

/// The report of journal steps `first..=last` (1-based) of the game at
/// `folder` for `viewer`, standing alone (the map inline in HTML). The
/// standing and the map are those after step `last`.
pub fn game_report(folder: &GameFolder, viewer: Viewer, first: u32, last: u32, format: Format) -> Result<String> {
    let rules = crate::game::load_rules(folder)?;
    if let Viewer::Side(side) = &viewer {
        let known: Vec<String> = rules.sides().into_iter().map(|s| s.id).collect();
        if !known.contains(side) {
            return Err(Error::usage(format!("--side '{side}': the sides are {}", known.join(", "))));
        }
    }
    let entries = entries(folder, first, last)?;
    let count = folder.journal().list()?.entries.len() as u32;
    let state = if last == count {
        crate::game::load_state(folder)?
    } else {
        crate::game::play::state_after(folder, rules, last)?
    };
    let templates = game_templates(folder)?;
    let steps = Steps { folder, rules, templates: &templates, entries: &entries, state: &state };
    let svg = if format == Format::Html { steps.map_svg_for(&viewer) } else { None };
    let file = map_file(rules, &viewer);
    let map = match (format, &svg) {
        (_, Some(svg)) => MapIn::Inline(svg),
        (Format::Html, None) => MapIn::None,
        _ if steps.has_map() => MapIn::File(&file),
        _ => MapIn::None,
    };
    steps.render(viewer, format, map)
}

/// A dispatch folder's name.
pub fn dispatch_name(first: u32, last: u32) -> String {
    format!("{first:06}-{last:06}")
}

/// A dispatch folder of `reports/`: the reports of journal steps
/// `first..=last`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Dispatch {
    pub first: u32,
    pub last: u32,
    pub path: PathBuf,
}

/// The dispatches in `reports/`, sorted by first step; anything else there
/// is returned as foreign (by its label).
pub fn dispatches(folder: &GameFolder) -> Result<(Vec<Dispatch>, Vec<String>)> {
    let dir = folder.root.join(REPORTS_DIR);
    let mut found = Vec::new();
    let mut foreign = Vec::new();
    if !dir.is_dir() {
        return Ok((found, foreign));
    }
    for name in fsio::list_names(&dir)? {
        if name.starts_with(fsio::TEMP_PREFIX) || name == PENDING_FILE {
            continue;
        }
        let range = name.split_once('-').and_then(|(a, b)| {
            let ok = a.len() == 6 && b.len() == 6;
            Some((a.parse::<u32>().ok().filter(|_| ok)?, b.parse::<u32>().ok()?))
        });
        match range {
            Some((first, last)) if first >= 1 && first <= last && dir.join(&name).is_dir() => {
                found.push(Dispatch { first, last, path: dir.join(&name) })
            }
            _ => foreign.push(format!("{REPORTS_DIR}/{name}")),
        }
    }
    found.sort();
    Ok((found, foreign))
}

/// Write the dispatch of `steps` into `reports/`, atomically (a temporary
/// folder renamed into place); returns its path.
pub fn write_dispatch(steps: &Steps) -> Result<PathBuf> {
    let (Some(first), Some(last)) = (steps.entries.first(), steps.entries.last()) else {
        return Err(Error::usage("a dispatch reports at least one step"));
    };
    let files = steps.dispatch()?;
    write_dispatch_files(steps.folder, first.step, last.step, &files)
}

/// Write a dispatch already rendered ([`Steps::dispatch`]) into
/// `reports/`, atomically; returns its path.
pub fn write_dispatch_files(
    folder: &GameFolder,
    first: u32,
    last: u32,
    files: &BTreeMap<String, Vec<u8>>,
) -> Result<PathBuf> {
    stage_dispatch_files(folder, first, last, files)?.place()
}

/// As [`write_dispatch_files`], its folder written and flushed under a
/// temporary name, to be put in place later ([`fsio::StagedDir::place`]):
/// `resolve` stages its dispatch while its steps are committed.
pub fn stage_dispatch_files(
    folder: &GameFolder,
    first: u32,
    last: u32,
    files: &BTreeMap<String, Vec<u8>>,
) -> Result<fsio::StagedDir> {
    let reports = folder.root.join(REPORTS_DIR);
    fsio::ensure_dir(&reports)?;
    let target = reports.join(dispatch_name(first, last));
    if target.exists() {
        return Err(Error::io(&target, std::io::Error::new(std::io::ErrorKind::AlreadyExists, "already exists")));
    }
    fsio::StagedDir::write(&target, files)
}

/// What `verify` finds in `reports/`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReportsCheck {
    /// Every step of the journal is reported, exactly as the journal gives.
    Complete,
    /// The dispatches there are exact, and steps `first..=last` await
    /// their reports, as `reports/pending.yaml` says.
    Pending { first: u32, last: u32 },
    /// The first file that differs, is missing or does not belong.
    Failed { file: String, message: String },
}

/// One dispatch checked against what the journal gives: `None` when each
/// of its files is exactly what [`Steps::dispatch`] renders, else the first
/// file that is not (its label) and why.
pub type DispatchCheck = Result<Option<(String, String)>>;

/// Render the dispatch `found` of journal steps `first..=last` again from
/// `journal` (steps 1 to its length) and `state` (the replayed state after
/// its last step), and compare every file of its folder with it. The
/// caller has checked that the steps are in the journal.
pub fn check_dispatch(
    folder: &GameFolder,
    rules: &dyn Rules,
    templates: &Templates,
    journal: &[JournalEntry],
    found: &Dispatch,
    state: &State,
) -> DispatchCheck {
    let Dispatch { first, last, path: dir } = found;
    let name = format!("{REPORTS_DIR}/{}", dispatch_name(*first, *last));
    let entries = &journal[(first - 1) as usize..*last as usize];
    let steps = Steps { folder, rules, templates, entries, state };
    let expected = steps.dispatch()?;
    for file in fsio::list_names(dir)? {
        if !expected.contains_key(&file) {
            return Ok(Some((format!("{name}/{file}"), "not a file adjutant writes in a dispatch".into())));
        }
    }
    for (file, want) in &expected {
        let label = format!("{name}/{file}");
        let path = dir.join(file);
        if !path.exists() {
            return Ok(Some((label, "missing: every dispatch has each side's report in each format".into())));
        }
        let got = fsio::read(&path)?;
        if &got != want {
            return Ok(Some((label, difference(&got, want))));
        }
    }
    Ok(None)
}

/// `verify`: every dispatch in `reports/` must be exactly what the journal
/// gives, and every step of the journal reported by one, except the last
/// steps when `reports/pending.yaml` says that their reports are pending.
/// `journal` is the journal's entries, steps 1 to its length, as `verify`
/// read and checked them; `states` the replayed state after the last step
/// of every dispatch. `checked` holds dispatches already checked
/// ([`check_dispatch`], by `verify` on other threads while it replayed the
/// journal), by first and last step: those are not rendered again, and
/// their result counts exactly where the dispatch comes in the order.
pub fn check_dispatches(
    folder: &GameFolder,
    rules: &dyn Rules,
    journal: &[JournalEntry],
    states: &BTreeMap<u32, std::sync::Arc<State>>,
    mut checked: BTreeMap<(u32, u32), DispatchCheck>,
) -> Result<ReportsCheck> {
    let count = journal.len() as u32;
    let failed = |file: String, message: String| Ok(ReportsCheck::Failed { file, message });
    let (found, foreign) = dispatches(folder)?;
    if let Some(name) = foreign.first() {
        return failed(
            name.clone(),
            "not a dispatch of reports (folders are named by their first and last steps, e.g. 000001-000004)".into(),
        );
    }
    let templates = game_templates(folder)?;
    let mut next = 1;
    for dispatch in &found {
        let (first, last) = (dispatch.first, dispatch.last);
        let name = format!("{REPORTS_DIR}/{}", dispatch_name(first, last));
        if first != next {
            let why = if first < next {
                "overlaps the dispatch before it".to_string()
            } else {
                format!("leaves steps {next} to {} without reports", first - 1)
            };
            return failed(name, why);
        }
        if last > count {
            return failed(name, format!("reports steps the journal does not have (it has {count})"));
        }
        let result = match checked.remove(&(first, last)) {
            Some(result) => result,
            None => check_dispatch(folder, rules, &templates, journal, dispatch, &states[&last]),
        };
        if let Some((file, message)) = result? {
            return failed(file, message);
        }
        next = last + 1;
    }
    let marker = match read_pending_marker(folder) {
        Ok(marker) => marker,
        Err(e) => return failed(format!("{REPORTS_DIR}/{PENDING_FILE}"), e.to_string()),
    };
    if next > count {
        return Ok(ReportsCheck::Complete);
    }
    let steps = if next == count { format!("step {next} has") } else { format!("steps {next}-{count} have") };
    match marker {
        Some(m) if m.first_step <= next => Ok(ReportsCheck::Pending { first: next, last: count }),
        Some(m) => failed(
            format!("{REPORTS_DIR}/{}", dispatch_name(next, (m.first_step - 1).min(count))),
            format!(
                "missing: {steps} no reports, and {REPORTS_DIR}/{PENDING_FILE} says only those from step {} \
                 on are being written (was a dispatch deleted?); `adjutant resolve` writes them again",
                m.first_step
            ),
        ),
        None => failed(
            format!("{REPORTS_DIR}/{}", dispatch_name(next, count)),
            format!(
                "missing: {steps} no reports, and no {REPORTS_DIR}/{PENDING_FILE} says they are being written \
                 (was the dispatch deleted?); `adjutant resolve` writes them again"
            ),
        ),
    }
}

/// Where a report differs from what the journal gives, as a message: the
/// line, and both versions around the first character that differs.
fn difference(got: &[u8], want: &[u8]) -> String {
    let got = String::from_utf8_lossy(got);
    let want = String::from_utf8_lossy(want);
    let n = got
        .lines()
        .zip(want.lines())
        .position(|(a, b)| a != b)
        .unwrap_or(got.lines().count().min(want.lines().count()));
    let (a, b) = (got.lines().nth(n).unwrap_or(""), want.lines().nth(n).unwrap_or(""));
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let at = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let around = |s: &[char]| {
        let from = at.saturating_sub(30);
        let to = (at + 40).min(s.len());
        let text: String = s[from.min(to)..to].iter().collect();
        format!("{}{text}{}", if from > 0 { "..." } else { "" }, if to < s.len() { "..." } else { "" })
    };
    let what = if got.lines().count() != want.lines().count() && a == b {
        format!("has {} lines where the journal gives {}", got.lines().count(), want.lines().count())
    } else if a == b {
        "differs in its line endings or its last bytes".to_string()
    } else {
        format!("has {:?} where the journal gives {:?}", around(&a), around(&b))
    };
    format!(
        "differs from what the journal gives at line {}, column {}: the file {what} \
         (or the game's templates/ changed since it was written)",
        n + 1,
        at + 1
    )
}

/// The path of a dispatch's file.
pub fn dispatch_file(folder: &GameFolder, first: u32, last: u32, file: &str) -> PathBuf {
    Path::new(&folder.root).join(REPORTS_DIR).join(dispatch_name(first, last)).join(file)
}
