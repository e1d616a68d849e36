//! Recovery: what a killed command (`kill -9`, a power cut, a full disk)
//! left half done in a folder is finished or undone by the next command
//! that takes the folder's lock, before it does anything else.
//!
//! A step's one commit point is its journal entry. `resolve` (play.rs)
//! writes, in this order: `reports/pending.yaml` (the marker of reports to
//! come), the orders files of its steps (`orders/`), the journal entries,
//! `state.yaml` (a cache of the last state), the removal of the inbox's
//! copies, the dispatch of reports, the removal of the marker. Every prefix
//! of those writes is recovered here. The writes between the journal
//! entries and the dispatch (state.yaml's rename, the inbox's removals)
//! and the marker's removal are each redone here, so they are not flushed
//! folder by folder: a power cut that loses one leaves a folder this
//! finishes. The marker and the orders files are put in place before they
//! are flushed (with the step's other files and their folders, at once,
//! before the first entry is linked): a power cut then may leave either
//! with its name and without its bytes, and each is undone here by its
//! name alone, unread.
//!
//! - temporary files and folders (`.tmp-*`) are removed wherever adjutant
//!   writes (the folder, `journal/`, `orders/`, `reports/`, `inbox/`,
//!   `standing/`, `.secret/`, the mail outbox inside the folder);
//! - an orders file named for a step the journal has not reached, or for
//!   its last step but not recorded by it, is removed (its entry never
//!   came);
//! - an inbox copy of a step the journal resolved with exactly those bytes
//!   is removed (its step is done);
//! - a file kept in `kept/` without its reason (a `submit` replacing or
//!   withdrawing orders, or keeping a refused message, killed between its
//!   writes) is finished (the reason written, made from the folder alone)
//!   when its change was made, else removed; empty folders of `kept/` are
//!   removed (src/game/kept.rs);
//! - `state.yaml` is rebuilt from the journal (a replay from the set-up)
//!   when it is not the state after the journal's last entry (its step
//!   count and its hash against the entry's `state_sha256`, before any
//!   replay);
//! - the marker is removed when no committed step awaits its reports, and
//!   while it is there a dispatch reporting steps beyond the journal is
//!   removed. Committed steps that await their reports keep the marker:
//!   the next `resolve` writes their dispatch, but the reports of a
//!   correction or a forfeit (`correct` or `tick` killed after its entry)
//!   are written here, as the dispatch of their own those commands write.
//!
//! A consistent folder is left as it is: not a byte is written.
//!
//! Commands that only read take the lock shared ([`for_reading`]); when they
//! find work left undone they take it exclusively and recover first, so that
//! they never read a half-done step. A folder they cannot write (a published
//! copy) is not touched: they say what is unfinished instead.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use crate::base::dice::Bytes32;
use crate::base::error::{Error, Located, Result};
use crate::base::fsio::{self, FolderLock};
use crate::game::folder::{FolderKind, GameFolder, JOURNAL_DIR, ORDERS_DIR, REPORTS_DIR, SECRET_DIR, STATE_FILE};
use crate::game::journal::{JournalEntry, Listing};
use crate::report::game::{dispatches, remove_pending_marker};

/// What state.yaml is, against the journal.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum StateFile {
    /// The state after the journal's last step.
    #[default]
    Current,
    /// The state after step `at`, while the journal has `journal` steps:
    /// a command was killed after its journal entries.
    Behind { at: u32, journal: u32 },
    /// Not the journal's state for another reason (missing, unreadable,
    /// edited): a crash cannot leave this, so readers let `verify` name it;
    /// commands that write rebuild it from the journal.
    Wrong(String),
}

/// What a killed command left in a folder.
#[derive(Debug, Clone, Default)]
pub struct Leftovers {
    /// Temporary files and folders.
    pub temps: Vec<PathBuf>,
    /// Orders files the journal does not record.
    pub orders: Vec<PathBuf>,
    /// Inbox copies of steps the journal resolved with those bytes.
    pub inbox: Vec<PathBuf>,
    /// Inbox files of sides whose step the journal resolved without them
    /// (a stand-in's entry in their place, ...): kept in kept/superseded/, with
    /// the entry and the sides whose files it used.
    pub set_aside: Vec<(crate::game::inbox::Pending, u32, Vec<String>)>,
    /// Dispatches reporting steps beyond the journal (while the marker is there).
    pub dispatches: Vec<PathBuf>,
    /// The marker of pending reports, when no committed step awaits them.
    pub marker: bool,
    pub state: StateFile,
    /// Kept files without their reason (src/game/kept.rs), and empty
    /// folders of `kept/`.
    pub kept: Vec<crate::game::kept::Unfinished>,
    pub kept_empty: Vec<PathBuf>,
}

impl Leftovers {
    /// True when there is nothing to do but, perhaps, rebuild a state.yaml
    /// that a crash cannot have left wrong.
    fn crash_free(&self) -> bool {
        self.temps.is_empty()
            && self.orders.is_empty()
            && self.inbox.is_empty()
            && self.set_aside.is_empty()
            && self.dispatches.is_empty()
            && !self.marker
            && self.kept.is_empty()
            && self.kept_empty.is_empty()
            && !matches!(self.state, StateFile::Behind { .. })
    }

    /// What of it misleads a reader, in words: state.yaml behind the
    /// journal (the rest readers skip).
    fn misleading(&self) -> Option<String> {
        match self.state {
            StateFile::Behind { at, journal } => Some(format!(
                "{STATE_FILE} holds the state after step {at} but the journal has {journal} steps: a command was \
                 killed before it finished"
            )),
            _ => None,
        }
    }
}

/// The folders adjutant writes in, where temporary files may be left.
fn written_folders(folder: &GameFolder) -> Vec<PathBuf> {
    let root = &folder.root;
    let mut dirs = vec![root.clone()];
    for dir in [
        JOURNAL_DIR,
        ORDERS_DIR,
        REPORTS_DIR,
        crate::game::inbox::INBOX_DIR,
        crate::game::standing::STANDING_DIR,
        SECRET_DIR,
        crate::game::kept::KEPT_DIR,
        crate::mail::auth::KEYS_DIR,
    ] {
        dirs.push(root.join(dir));
    }
    for why in crate::game::kept::Why::ALL {
        dirs.push(root.join(crate::game::kept::KEPT_DIR).join(why.dir()));
    }
    // The folder transport's outbox, when it is inside the game folder.
    let outbox = folder
        .config
        .mail
        .as_ref()
        .and_then(|m| m.folder.clone())
        .unwrap_or_else(|| PathBuf::from(crate::mail::DEFAULT_OUTBOX));
    if outbox.components().all(|c| matches!(c, Component::Normal(_))) {
        dirs.push(root.join(outbox));
    }
    dirs
}

/// The journal's entries, read when asked for (most commands need one or
/// two of them).
struct Entries<'a> {
    listing: &'a Listing,
    read: BTreeMap<u32, Option<JournalEntry>>,
}

impl Entries<'_> {
    /// Entry `step` (1-based); `None` when it is not a well-formed entry
    /// (for `verify` to name).
    fn get(&mut self, step: u32) -> Result<Option<&JournalEntry>> {
        if !self.read.contains_key(&step) {
            let Some(file) = step.checked_sub(1).and_then(|i| self.listing.entries.get(i as usize)) else {
                return Ok(None);
            };
            let text = fsio::read(&file.path)?;
            let entry = String::from_utf8(text).ok().and_then(|t| crate::base::yaml::from_str::<JournalEntry>(&t).ok());
            self.read.insert(step, entry);
        }
        Ok(self.read[&step].as_ref())
    }
}

/// The journal step an orders file's name gives (`000007-french.yaml`).
fn orders_step(name: &str) -> Option<u32> {
    let (digits, rest) = name.strip_suffix(".yaml")?.split_once('-')?;
    (digits.len() == 6 && digits.bytes().all(|b| b.is_ascii_digit()) && !rest.is_empty())
        .then(|| digits.parse().ok())?
}

/// The turn of a step's name (`16-allies-movement`).
fn turn_of(step: &str) -> Option<u32> {
    step.split_once('-')?.0.parse().ok()
}

/// Find what a killed command left in `folder`, writing nothing.
pub fn diagnose(folder: &GameFolder) -> Result<Leftovers> {
    let mut found = Leftovers::default();
    for dir in written_folders(folder) {
        found.temps.extend(fsio::list_temps(&dir)?);
    }
    if folder.config.kind != FolderKind::Game {
        return Ok(found);
    }
    // Files kept without their reason: a submit or withdrawal killed
    // between its writes (src/game/kept.rs).
    found.kept = crate::game::kept::unfinished(folder)?;
    found.kept_empty = crate::game::kept::empty_folders(folder)?;
    // Only a journal that is a clean run of entries 1..n says what is
    // committed; any other is for `verify` to name, and is left as it is.
    let listing = folder.journal().list()?;
    if !listing.foreign.is_empty() || listing.entries.iter().enumerate().any(|(i, e)| e.step != i as u32 + 1) {
        return Ok(found);
    }
    let n = listing.entries.len() as u32;
    let mut entries = Entries { listing: &listing, read: BTreeMap::new() };
    let last = match n {
        0 => None,
        n => match entries.get(n)? {
            Some(entry) => Some(entry.clone()),
            None => return Ok(found),
        },
    };

    // Orders files written for a step whose entry never came.
    let orders_dir = folder.root.join(ORDERS_DIR);
    if orders_dir.is_dir() {
        for name in fsio::list_names(&orders_dir)? {
            let Some(step) = orders_step(&name) else { continue };
            let file = format!("{ORDERS_DIR}/{name}");
            let recorded = || last.as_ref().is_some_and(|e| e.orders.iter().any(|r| r.file.as_deref() == Some(&file)));
            if step > n || (step == n && !recorded()) {
                found.orders.push(orders_dir.join(&name));
            }
        }
    }

    // The marker of pending reports, and dispatches beyond the journal.
    if crate::report::game::pending_path(folder).exists() {
        let (all, _) = dispatches(folder)?;
        let mut reported = 0;
        for d in all {
            if d.last > n {
                found.dispatches.push(d.path);
            } else {
                reported = reported.max(d.last);
            }
        }
        found.marker = reported >= n;
    }

    // Inbox copies of steps the journal resolved with those bytes.
    for p in crate::game::inbox::pending(folder)? {
        let Some(turn) = turn_of(&p.step) else { continue };
        let hash = Bytes32::sha256(&p.bytes);
        // The journal's steps run in order of turns: look back through the
        // entries of the file's turn only.
        let mut k = n;
        while k > 0 {
            let Some(entry) = entries.get(k)? else { break };
            let Some(step) = entry.game_step.as_deref() else { break };
            if turn_of(step).is_none_or(|t| t < turn) {
                break;
            }
            if step == p.step {
                if entry.orders.iter().any(|r| r.side == p.side && r.sha256 == hash) {
                    found.inbox.push(p.path.clone());
                } else if !entry.orders.iter().any(|r| r.side == p.side) {
                    // Resolved without the side's file (a stand-in's entry
                    // in its place, or sent ahead for a step that came not
                    // awaiting the side): set aside, as `resolve` does.
                    let used = entry.orders.iter().map(|r| r.side.clone()).collect();
                    found.set_aside.push((p.clone(), k, used));
                }
                break;
            }
            k -= 1;
        }
    }

    found.state = state_file(folder, n, last.as_ref());
    Ok(found)
}

/// state.yaml against the journal's `n` steps and its last entry.
fn state_file(folder: &GameFolder, n: u32, last: Option<&JournalEntry>) -> StateFile {
    let state = match crate::game::load_state(folder) {
        Ok(state) => state,
        Err(e) => return StateFile::Wrong(e.to_string()),
    };
    let at = state.resolved_steps();
    if at < n {
        StateFile::Behind { at, journal: n }
    } else if at > n {
        StateFile::Wrong(format!("it says {at} steps are resolved, but the journal has {n}"))
    } else if last.is_some_and(|e| e.state_sha256 != Some(state.hash())) {
        StateFile::Wrong(format!("it is not the state the journal records after step {n}"))
    } else {
        StateFile::Current
    }
}

/// Finish or undo what a killed command left in `folder`, and rebuild a
/// state.yaml that is not the journal's; the caller holds its exclusive
/// lock (`lock`). Returns what was done, in words; nothing is written when
/// nothing is left.
pub fn recover(folder: &GameFolder, lock: &FolderLock) -> Result<Vec<String>> {
    apply(folder, lock, true)
}

/// As [`recover`]; a state.yaml that a crash cannot have left wrong is
/// rebuilt only with `any_state` (readers leave it for `verify` to name).
fn apply(folder: &GameFolder, _lock: &FolderLock, any_state: bool) -> Result<Vec<String>> {
    let found = diagnose(folder)?;
    let mut done = Vec::new();
    let name = |path: &Path| path.strip_prefix(&folder.root).unwrap_or(path).display().to_string();
    for path in &found.temps {
        fsio::remove_temp(path)?;
        done.push(format!("removed the temporary {}", name(path)));
    }
    for item in &found.kept {
        done.push(crate::game::kept::settle(item)?);
    }
    // Folders of kept/ left empty, once the copies above are settled.
    if folder.config.kind == FolderKind::Game {
        for path in crate::game::kept::empty_folders(folder)? {
            fsio::remove_stale_temps(&path)?;
            std::fs::remove_dir(&path).map_err(|e| Error::io(&path, e))?;
            fsio::sync_dir(path.parent().unwrap_or(&folder.root))?;
            done.push(format!("removed the empty folder {}", name(&path)));
        }
    }
    for path in &found.orders {
        fsio::remove_file(path)?;
        done.push(format!("removed {}: no journal entry records it", name(path)));
    }
    for path in &found.dispatches {
        std::fs::remove_dir_all(path).map_err(|e| Error::io(path, e))?;
        fsio::sync_dir(&folder.root.join(REPORTS_DIR))?;
        done.push(format!("removed {}: it reports steps the journal does not have", name(path)));
    }
    let rebuild = match &found.state {
        StateFile::Current => false,
        StateFile::Behind { .. } => true,
        StateFile::Wrong(_) => any_state,
    };
    if rebuild {
        let rules = crate::game::load_rules(folder)?;
        let n = folder.journal().list()?.entries.len() as u32;
        let state = crate::game::play::state_after(folder, rules, n)?;
        let yaml = state.to_yaml()?;
        fsio::write_atomic(&folder.root.join(STATE_FILE), yaml.as_bytes())?;
        done.push(format!("rebuilt {STATE_FILE} from the journal's {n} steps"));
    }
    for path in &found.inbox {
        fsio::remove_file(path)?;
        done.push(format!("removed {}: the journal has resolved its step with it", name(path)));
    }
    for (p, k, used) in &found.set_aside {
        done.push(crate::game::inbox::set_aside(folder, p, *k, used)?);
    }
    if found.marker {
        remove_pending_marker(folder)?;
        done.push(format!("removed {REPORTS_DIR}/{}: no step awaits its reports", crate::report::game::PENDING_FILE));
    }
    if let Some(range) = no_step_reports(folder)? {
        done.push(format!("wrote the reports of the correction or forfeit in {REPORTS_DIR}/{range}"));
    }
    Ok(done)
}

/// The reports of an entry that resolves no game step, a correction
/// (docs/DICE.md A10) or a forfeit (A8), that a killed `correct` or `tick`
/// committed and did not report: written as the dispatch those commands
/// write (play.rs `write_no_step`: the steps no dispatch reports, through
/// the entry), so that a correction's are never grouped with the steps
/// played after it, a forfeit's (after which no `resolve` runs) are
/// written at all, and the folder is the one an unkilled command leaves.
/// A killed `resolve`'s steps are left to the next `resolve`, which
/// reports them with its own, as the unkilled one would have. Returns the
/// dispatch's name when one was written.
fn no_step_reports(folder: &GameFolder) -> Result<Option<String>> {
    use crate::report::game as reports;
    if folder.config.kind != FolderKind::Game || reports::read_pending_marker(folder)?.is_none() {
        return Ok(None);
    }
    let n = folder.journal().list()?.entries.len() as u32;
    let reported = reports::reported_through(folder, n)?;
    if n == 0 || reported >= n {
        return Ok(None);
    }
    let to_report = reports::entries(folder, reported + 1, n)?;
    let Some(last) = to_report.last() else { return Ok(None) };
    if last.correction.is_none() && last.forfeit.is_none() {
        return Ok(None);
    }
    let correction = last.correction.is_some();
    let rules = crate::game::load_rules(folder)?;
    let templates = reports::game_templates(folder)?;
    let state = crate::game::load_state(folder)?;
    if to_report.last().and_then(|e| e.state_sha256) != Some(state.hash()) {
        // state.yaml is not the journal's (a reader left it for `verify`).
        return Ok(None);
    }
    if correction && folder.config.dice.mode == crate::game::folder::DiceMode::Mutual {
        // What `correct` removes once its entry is committed (docs/DICE.md
        // A10): every commitment and inbox file, all made for the awaited
        // step of the game before the correction (A5: a mutual game takes
        // them for the awaited step only), none since (every command that
        // takes them recovers first).
        let mutual = folder.root.join(crate::game::mutual::MUTUAL_DIR);
        if mutual.is_dir() {
            for name in fsio::list_names(&mutual)? {
                if name.ends_with(".commit") {
                    fsio::remove_file(&mutual.join(name))?;
                }
            }
        }
        for p in crate::game::inbox::pending(folder)? {
            fsio::remove_file(&p.path)?;
        }
    }
    let steps = reports::Steps { folder, rules, templates: &templates, entries: &to_report, state: &state };
    let files = steps.dispatch()?;
    let path = reports::stage_dispatch_files(folder, reported + 1, n, &files)?.place()?;
    remove_pending_marker(folder)?;
    Ok(Some(path.file_name().unwrap_or_default().to_string_lossy().into_owned()))
}

/// Take the folder's exclusive lock, waiting up to `wait`, and recover
/// what a killed command left: how every command that writes begins.
pub fn lock(folder: &GameFolder, wait: Duration) -> Result<FolderLock> {
    if folder.config.published {
        return Err(crate::base::error::Error::refused(format!(
            "{}: a copy made by `adjutant publish`, to be verified (`adjutant verify {}`), not played: no command \
             writes it; the game goes on in the referee's folder",
            folder.root.display(),
            folder.root.display()
        )));
    }
    let lock = fsio::lock_folder(&folder.root, wait)?;
    recover(folder, &lock)?;
    Ok(lock)
}

/// A command's right to read a folder: its lock, held until dropped.
pub struct ReadAccess {
    _lock: Option<FolderLock>,
    /// What a killed command left unfinished that would mislead a reader,
    /// when it could not be finished here (the folder cannot be written).
    pub unfinished: Option<String>,
}

impl ReadAccess {
    /// Refuse to read a folder left unfinished (a data error naming it).
    pub fn finished(self, folder: &GameFolder) -> Result<ReadAccess> {
        match &self.unfinished {
            None => Ok(self),
            Some(what) => Err(Error::Data(Located {
                file: folder.root.display().to_string(),
                line: None,
                column: None,
                field: String::new(),
                message: what.clone(),
                code: None,
            })),
        }
    }
}

/// How every command that only reads a folder begins: the lock shared
/// (none for a folder without `.lock`, which nobody writes), waiting up to
/// `wait` for a writer; and when a killed command left work undone, the
/// lock exclusive and the work finished first, if the folder can be
/// written. If it cannot, `unfinished` says what a reader would misread.
pub fn for_reading(folder: &GameFolder, wait: Duration) -> Result<ReadAccess> {
    let shared = fsio::lock_folder_shared(&folder.root, wait)?;
    let found = diagnose(folder)?;
    if found.crash_free() {
        return Ok(ReadAccess { _lock: shared, unfinished: None });
    }
    let unfinished = |found: &Leftovers, why: &str| {
        found.misleading().map(|what| format!("{what}, and {why}; any adjutant command that writes (e.g. `adjutant resolve`) finishes it where the folder can be written"))
    };
    if shared.is_none() {
        return Ok(ReadAccess {
            _lock: None,
            unfinished: unfinished(&found, "this copy has no .lock, so nothing finishes it here"),
        });
    }
    drop(shared);
    match fsio::lock_folder(&folder.root, wait) {
        Ok(lock) => match apply(folder, &lock, false) {
            Ok(_) => Ok(ReadAccess { _lock: Some(lock), unfinished: None }),
            Err(e) => {
                let found = diagnose(folder)?;
                let why = format!("finishing it failed: {e}");
                Ok(ReadAccess { _lock: Some(lock), unfinished: unfinished(&found, &why) })
            }
        },
        Err(e) if fsio::is_read_only(&e) => {
            let shared = fsio::lock_folder_shared(&folder.root, wait)?;
            let found = diagnose(folder)?;
            Ok(ReadAccess { _lock: shared, unfinished: unfinished(&found, "the folder cannot be written here") })
        }
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_orders_files_and_steps() {
        assert_eq!(orders_step("000007-french.yaml"), Some(7));
        assert_eq!(orders_step("123456-a.yaml"), Some(123456));
        for other in ["7-french.yaml", "000007-.yaml", "000007-french.yml", "00000x-french.yaml", "notes.txt"] {
            assert_eq!(orders_step(other), None, "{other}");
        }
        assert_eq!(turn_of("16-allies-movement"), Some(16));
        assert_eq!(turn_of("allies-movement"), None);
    }
}
