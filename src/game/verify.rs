//! `verify`: DICE.md §6 on a folder as published (no `.secret/` needed).
//!
//! Checks, in order, for each journal entry: its name and place in the
//! sequence, that its bytes are exactly the canonical YAML of its content,
//! the hash link to the entry before it, the revealed key against the chain
//! (§6.1), the orders hashes and digest (§6.2), the seed and every roll
//! (§6.3). The first failure is reported with the entry that holds it.
//! Then a game's steps are replayed through the rules engine (§6.4); a roll
//! log's steps are recomputed whole.
//!
//! `verify` takes the folder's lock shared (recovery.rs), so that it never
//! reads a step half written; what a killed command left is finished first
//! when the folder can be written, and named as a failure when it cannot.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Mutex};
use std::time::Duration;

use serde::Serialize;

use crate::base::dice::{key_follows, orders_digest, step_seed, Bytes32, DiceExpr, RollStream, SideHash};
use crate::base::error::Result;
use crate::base::fsio;
use crate::game::folder::{FolderKind, GameFolder, STATE_FILE};
use crate::game::journal::{JournalEntry, Listing};
use crate::game::roll_log::{self, PURPOSE_SIDE};
use crate::report::game::ReportsCheck;
use crate::system::State;

/// Which check failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Check {
    /// A file that does not belong in the journal, or a missing step.
    Sequence,
    /// The file is not a well-formed entry in canonical form.
    Format,
    /// The hash link to the previous entry.
    Previous,
    /// DICE.md §6.1: the revealed key hashes back to the anchor.
    Chain,
    /// DICE.md §6.2: orders hashes and the orders digest.
    Orders,
    /// DICE.md §6.3: the step seed.
    Seed,
    /// DICE.md §6.3: the rolls.
    Rolls,
    /// DICE.md §6.4: replaying the step with the engine.
    Replay,
    /// A report in `reports/` differs from what the journal gives.
    Reports,
    /// `verify --head`: the journal does not hold the head a player kept.
    Head,
    /// game.yaml's players are not those the journal entries bind.
    Players,
    /// A file or folder adjutant does not write, or an orders file the
    /// journal does not record.
    Files,
    /// A killed command left work undone that could not be finished here
    /// (the folder cannot be written).
    Unfinished,
}

#[derive(Debug, Clone, Serialize)]
pub struct Failure {
    /// The entry that fails, e.g. `journal/000003.yaml`.
    pub entry: String,
    pub step: Option<u32>,
    pub check: Check,
    pub message: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    pub ok: bool,
    pub game_id: String,
    pub anchor: Bytes32,
    pub steps: u32,
    pub rolls: u64,
    /// The journal's head: its last entry and that file's SHA-256 (absent
    /// for an empty journal). Every report carries the head of its last
    /// step; a player who keeps one can check a folder against it later
    /// (`verify --head`).
    pub head: Option<Head>,
    /// `--head`: the step whose entry the head given is, when found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head_found_at: Option<u32>,
    pub failure: Option<Failure>,
    /// Steps committed whose reports a killed (or failed) `resolve` has not
    /// written yet, as `reports/pending.yaml` says: the next `resolve`
    /// writes them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reports_pending: Option<StepRange>,
    /// A copy made by `adjutant publish`: it holds no addresses, so the
    /// players each entry binds (`players_sha256`) are not checked.
    pub published: bool,
    /// A published game (not a roll log, which has no players): the
    /// players each entry binds could not be checked.
    pub players_unchecked: bool,
}

/// A journal entry's place and the SHA-256 of its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Head {
    pub step: u32,
    pub sha256: Bytes32,
}

/// Journal steps `first` to `last`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct StepRange {
    pub first: u32,
    pub last: u32,
}

/// What `verify` checks beyond the folder itself, and how long it waits.
#[derive(Debug, Clone)]
pub struct Options {
    /// A journal head a player kept (from a report): the journal must still
    /// hold that entry, unchanged. This is what catches a rollback: the last
    /// steps cut back together with their orders, reports and state.
    pub head: Option<Bytes32>,
    /// How long to wait for a command that writes the folder.
    pub wait: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options { head: None, wait: fsio::DEFAULT_WAIT }
    }
}

/// Verify the folder at `dir`, waiting up to a minute for a command that
/// writes it. `Err` means the folder could not be read at all (no
/// game.yaml, unreadable); a log that fails a check is `Ok` with a failure
/// in the verdict.
pub fn verify(dir: &Path) -> Result<Verdict> {
    verify_with(dir, &Options::default())
}

/// [`verify`], waiting up to `wait` for a command that writes the folder.
pub fn verify_waiting(dir: &Path, wait: Duration) -> Result<Verdict> {
    verify_with(dir, &Options { head: None, wait })
}

/// [`verify`], with a journal head to hold the folder to.
pub fn verify_with(dir: &Path, options: &Options) -> Result<Verdict> {
    let wait = options.wait;
    let folder = GameFolder::open(dir)?;
    // The journal's entries are parsed on another thread while the lock is
    // taken and the rules load: check_all reads each file again, and the
    // parse is used only when its text is the same.
    let access = std::thread::scope(|scope| {
        scope.spawn(|| parse_journal_ahead(&folder));
        crate::game::recovery::for_reading(&folder, wait)
    })?;
    let listing = folder.journal().list()?;
    let mut verdict = Verdict {
        ok: true,
        game_id: folder.config.game_id.clone(),
        anchor: folder.config.dice.anchor,
        steps: 0,
        rolls: 0,
        head: None,
        head_found_at: None,
        failure: None,
        reports_pending: None,
        published: folder.config.published,
        players_unchecked: folder.config.published && folder.config.kind == FolderKind::Game,
    };
    let mut entries = Vec::new();
    // What a killed command left undone (on a folder this verify could not
    // finish it in) is said before the files it left are named as strays.
    let unfinished = |_: &mut Verdict| match access.unfinished.clone() {
        Some(message) => Err(Failure { entry: STATE_FILE.to_string(), step: None, check: Check::Unfinished, message }),
        None => Ok(()),
    };
    let checked = check_all(&folder, &listing, &mut verdict, &mut entries)
        .and_then(|()| check_head(&entries, options.head, &mut verdict))
        .and_then(|()| unfinished(&mut verdict))
        .and_then(|()| check_players(&folder, &entries))
        .and_then(|()| check_files(&folder, &entries));
    if let Err(failure) = checked {
        verdict.ok = false;
        verdict.failure = Some(failure);
    } else if folder.config.kind == FolderKind::Game {
        // §6.4: the dice hold; now every step must replay to the same events and state.
        let rules = crate::game::load_rules(&folder)?;
        let (dispatches, _) = crate::report::game::dispatches(&folder)?;
        let journal: Vec<JournalEntry> = entries.into_iter().map(|(entry, _)| entry).collect();
        let (replayed, states, last_state, checked) =
            replay_and_render(&folder, rules, &dispatches, &journal, verdict.steps)?;
        // An empty journal: the state is the set-up's.
        let last_state = match last_state {
            Some(state) => state,
            None => rules.setup()?,
        };
        if let Some((entry, message)) = replayed {
            let step = entry.trim_start_matches("journal/").trim_end_matches(".yaml").parse().ok();
            verdict.ok = false;
            verdict.failure = Some(Failure { entry, step, check: Check::Replay, message });
        } else if let Some(message) = check_state_file(&folder, &last_state)? {
            verdict.ok = false;
            verdict.failure =
                Some(Failure { entry: STATE_FILE.to_string(), step: None, check: Check::Replay, message });
        } else {
            // The reports: each must be exactly what the journal gives.
            match crate::report::game::check_dispatches(&folder, rules, &journal, &states, checked)? {
                ReportsCheck::Complete => {}
                ReportsCheck::Pending { first, last } => verdict.reports_pending = Some(StepRange { first, last }),
                ReportsCheck::Failed { file, message } => {
                    verdict.ok = false;
                    verdict.failure = Some(Failure { entry: file, step: None, check: Check::Reports, message });
                }
            }
        }
    }
    drop(access);
    Ok(verdict)
}

/// Parse every entry of the journal into the folder's cache
/// ([`GameFolder::journal_entry`]), reading no file it cannot: whatever
/// fails here fails again where the entry is read for its checks.
fn parse_journal_ahead(folder: &GameFolder) {
    let Ok(listing) = folder.journal().list() else { return };
    for file in &listing.entries {
        if let Ok(text) = fsio::read_text(&file.path, &file.label) {
            let _ = folder.journal_entry(&file.label, &text);
        }
    }
}

/// What [`replay_and_render`] returns: the first step that does not replay
/// (its entry and why), the state after the last step of each dispatch,
/// the state after step `steps`, and the dispatches checked meanwhile.
type Replayed = (
    Option<(String, String)>,
    BTreeMap<u32, std::sync::Arc<State>>,
    Option<State>,
    BTreeMap<(u32, u32), crate::report::game::DispatchCheck>,
);

/// §6.4's replay of every step (on this thread), and meanwhile each
/// dispatch of `dispatches` rendered again and compared with its files on
/// other threads, as soon as the replay reaches its last step: the replay
/// is one step after another, but the reports of one dispatch need nothing
/// of another's; once the replay is done, this thread renders what is
/// still queued beside them. What is found so is only a result kept for
/// [`crate::report::game::check_dispatches`], which reports it (or not)
/// exactly where the reports are checked one after another; a dispatch
/// not checked ahead is checked there.
fn replay_and_render(
    folder: &GameFolder,
    rules: &dyn crate::system::Rules,
    dispatches: &[crate::report::game::Dispatch],
    journal: &[JournalEntry],
    steps: u32,
) -> Result<Replayed> {
    // The templates as check_dispatches will read them; if they fail, it
    // says so there, and nothing is rendered ahead.
    let templates = crate::report::game::game_templates(folder).ok();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).saturating_sub(1).clamp(1, 4);
    let stop = AtomicBool::new(false);
    let (send, receive) = mpsc::channel::<(&crate::report::game::Dispatch, std::sync::Arc<State>)>();
    let receive = Mutex::new(receive);
    // A worker's loop: render and check each dispatch it is sent, until
    // the queue closes. The threads started for it run it from the start;
    // this thread joins them once its replay is done, so that on a machine
    // of two cores both render the dispatches the replay left queued (the
    // rendering is three times the replay's work, issue 11).
    let work = |templates: &crate::report::templates::Templates| {
        let mut checked = BTreeMap::new();
        loop {
            let job = receive.lock().map_err(|_| ()).and_then(|r| r.recv().map_err(|_| ()));
            let Ok((dispatch, state)) = job else { break };
            if stop.load(Ordering::Relaxed) {
                continue;
            }
            let result = crate::report::game::check_dispatch(folder, rules, templates, journal, dispatch, &state);
            checked.insert((dispatch.first, dispatch.last), result);
        }
        checked
    };
    std::thread::scope(|scope| {
        let workers: Vec<_> = match &templates {
            None => Vec::new(),
            Some(templates) => (0..threads).map(|_| scope.spawn(move || work(templates))).collect(),
        };
        let mut states = BTreeMap::new();
        let mut last_state = None;
        let replayed = crate::game::play::replay_each(folder, rules, |entry, state| {
            let ends: Vec<_> = dispatches.iter().filter(|d| d.last == entry.step).collect();
            if !ends.is_empty() {
                let shared = std::sync::Arc::new(state.clone());
                // check_all has read the journal as steps 1 to `steps`.
                if !workers.is_empty() && entry.step <= steps {
                    for dispatch in ends {
                        let _ = send.send((dispatch, shared.clone()));
                    }
                }
                states.insert(entry.step, shared);
            }
            if entry.step == steps {
                last_state = Some(state.clone());
            }
            Ok(())
        });
        drop(send);
        if !matches!(replayed, Ok(None)) {
            // The reports will not be checked: what is queued is not rendered.
            stop.store(true, Ordering::Relaxed);
        }
        let mut checked = match &templates {
            Some(templates) if !workers.is_empty() => work(templates),
            _ => BTreeMap::new(),
        };
        for worker in workers {
            // A worker that panicked has checked nothing: check_dispatches does it again.
            checked.extend(worker.join().unwrap_or_default());
        }
        Ok((replayed?, states, last_state, checked))
    })
}

/// `state.yaml`, the cache of the game's current state, must be exactly the
/// state the replay ends in.
fn check_state_file(folder: &GameFolder, state: &crate::system::State) -> Result<Option<String>> {
    let want = state.to_yaml()?;
    let path = folder.root.join(STATE_FILE);
    if !path.exists() {
        return Ok(Some("missing: it holds the game's current state".into()));
    }
    let got = fsio::read(&path)?;
    if got == want.as_bytes() {
        return Ok(None);
    }
    let got = String::from_utf8_lossy(&got);
    let line = got
        .lines()
        .zip(want.lines())
        .position(|(a, b)| a != b)
        .unwrap_or(got.lines().count().min(want.lines().count()));
    Ok(Some(format!(
        "differs at line {} from the state the journal replays to (the file has {:?}, the replay gives {:?})",
        line + 1,
        got.lines().nth(line).unwrap_or("").trim(),
        want.lines().nth(line).unwrap_or("").trim()
    )))
}

fn fail(entry: &str, step: Option<u32>, check: Check, message: String) -> Failure {
    Failure { entry: entry.to_string(), step, check, message }
}

/// The journal's head, and `--head`: the entry a player's head names must
/// be in the journal as it was (its SHA-256 is that of the file).
fn check_head(
    entries: &[(JournalEntry, Bytes32)],
    kept: Option<Bytes32>,
    verdict: &mut Verdict,
) -> Result<(), Failure> {
    verdict.head = entries.last().map(|(e, sha)| Head { step: e.step, sha256: *sha });
    let Some(kept) = kept else { return Ok(()) };
    match entries.iter().find(|(_, sha)| *sha == kept) {
        Some((entry, _)) => {
            verdict.head_found_at = Some(entry.step);
            Ok(())
        }
        None => Err(fail(
            "journal",
            None,
            Check::Head,
            format!(
                "no entry of the journal has the SHA-256 {} that you kept: the steps up to it were cut back or \
                 rewritten since (the journal now ends at step {}{})",
                kept.to_hex(),
                entries.len(),
                entries.last().map(|(_, sha)| format!(", head {}", sha.to_hex())).unwrap_or_default()
            ),
        )),
    }
}

/// Each game step's entry binds the players of game.yaml as they were when
/// it was resolved (`players_sha256`); a change made since with `adjutant
/// player` is recorded in game.yaml's `player_changes`, so today's players
/// with the later changes undone must hash to each entry's value.
///
/// A published copy (publish.rs) withholds the addresses: there is nothing
/// to hash, and its `published` verdict says the players were not checked.
fn check_players(folder: &GameFolder, entries: &[(JournalEntry, Bytes32)]) -> Result<(), Failure> {
    if folder.config.published {
        return Ok(());
    }
    for (entry, _) in entries.iter().rev() {
        let Some(bound) = entry.players_sha256 else { continue };
        let players = folder.config.players_at(entry.step);
        if crate::game::folder::players_sha256(&players) != bound {
            let changed: Vec<&str> = folder
                .config
                .player_changes
                .iter()
                .filter(|c| c.after_step >= entry.step)
                .map(|c| c.side.as_str())
                .collect();
            let recorded = if changed.is_empty() {
                "no change is recorded since".to_string()
            } else {
                format!("the changes recorded since (of {}) do not explain it", changed.join(", "))
            };
            return Err(fail(
                crate::game::folder::GAME_FILE,
                Some(entry.step),
                Check::Players,
                format!(
                    "players: a name or address differs from the players {} binds (their SHA-256 when that step was \
                     resolved), and {recorded}: a player is changed with `adjutant player`, which records it",
                    crate::game::journal::label(entry.step)
                ),
            ));
        }
    }
    Ok(())
}

/// The files of a game folder: `verify` names every file and folder it
/// does not expect. What adjutant writes: game.yaml, state.yaml, .lock,
/// .secret/, journal/, orders/ (exactly the files the journal records),
/// reports/ (dispatches, checked with the reports), inbox/ (a side's orders
/// for a step not yet resolved, `<step>--<side>.yaml`), standing/
/// (`<side>.yaml`), kept/ (src/game/kept.rs: superseded/, withdrawn/ and
/// refused/, each file numbered with its `.reason` beside it), mailed.yaml, ticks.yaml (deadline.rs), the game's own templates/, and the mail
/// folder of the folder transport (`outbox/` by default, or the one
/// game.yaml names when it lies inside the game folder).
fn check_files(folder: &GameFolder, entries: &[(JournalEntry, Bytes32)]) -> Result<(), Failure> {
    let mut unexpected = Vec::new();
    let root = &folder.root;
    let names = fsio::list_names(root).map_err(|e| fail(".", None, Check::Files, e.to_string()))?;
    let mail_dir = folder.config.mail.as_ref().and_then(|m| m.folder.as_ref()).and_then(|dir| {
        let first = dir.components().next()?;
        (dir.is_relative()).then(|| first.as_os_str().to_string_lossy().into_owned())
    });
    let is_game = folder.config.kind == FolderKind::Game;
    let published = folder.config.published;
    for name in &names {
        let path = root.join(name);
        let dir = path.is_dir();
        // A published copy holds only what `publish` writes (publish.rs).
        let kept = match name.as_str() {
            crate::game::folder::GAME_FILE | ".lock" | STATE_FILE => !dir,
            crate::game::folder::JOURNAL_DIR | crate::game::folder::ORDERS_DIR | crate::game::folder::REPORTS_DIR => {
                dir
            }
            crate::game::publish::MODULE_DIR => dir && folder.config.module_folder.is_some(),
            _ => false,
        };
        let expected = if published {
            kept
        } else {
            match name.as_str() {
                crate::game::folder::GAME_FILE | ".lock" => !dir,
                crate::game::folder::SECRET_DIR
                | crate::game::folder::JOURNAL_DIR
                | crate::game::folder::REPORTS_DIR => dir,
                crate::game::folder::ORDERS_DIR => dir,
                STATE_FILE | crate::mail::post::MAILED_FILE | crate::game::deadline::TICKS_FILE => is_game && !dir,
                crate::game::inbox::INBOX_DIR
                | crate::game::standing::STANDING_DIR
                | crate::game::kept::KEPT_DIR
                | crate::mail::auth::KEYS_DIR
                | crate::report::game::TEMPLATES_DIR => is_game && dir,
                crate::game::mutual::MUTUAL_DIR => {
                    dir && folder.config.dice.mode == crate::game::folder::DiceMode::Mutual
                }
                // The folder transport's default folder, or the one game.yaml names.
                other => dir && (other == crate::mail::DEFAULT_OUTBOX || mail_dir.as_deref() == Some(other)),
            }
        };
        if !expected {
            unexpected.push(format!("{name}{}", if dir { "/" } else { "" }));
        }
    }
    // orders/: exactly what the journal records.
    let recorded: BTreeSet<&str> =
        entries.iter().flat_map(|(e, _)| e.orders.iter().filter_map(|o| o.file.as_deref())).collect();
    let orders = root.join(crate::game::folder::ORDERS_DIR);
    if orders.is_dir() {
        for name in fsio::list_names(&orders).map_err(|e| fail("orders", None, Check::Files, e.to_string()))? {
            let label = format!("{}/{name}", crate::game::folder::ORDERS_DIR);
            if !recorded.contains(label.as_str()) {
                unexpected.push(format!("{label} (no journal entry records it)"));
            }
        }
    }
    if is_game {
        // inbox/: a side's orders for a step the journal has not resolved.
        // The steps that stand: a correction (DICE.md A10) undoes those after
        // the step it goes back to, which are awaited again.
        let mut standing: Vec<(u32, &str)> = Vec::new();
        for (e, _) in entries {
            if let Some(c) = &e.correction {
                standing.retain(|(step, _)| *step <= c.rewinds_to);
            }
            if let Some(name) = e.game_step.as_deref() {
                standing.push((e.step, name));
            }
        }
        let resolved: BTreeSet<&str> = standing.iter().map(|(_, name)| *name).collect();
        let sides: BTreeSet<String> =
            folder.rules().map(|r| r.sides().into_iter().map(|s| s.id).collect()).unwrap_or_default();
        let inbox = root.join(crate::game::inbox::INBOX_DIR);
        if inbox.is_dir() {
            for name in fsio::list_names(&inbox).map_err(|e| fail("inbox", None, Check::Files, e.to_string()))? {
                let parsed = name.strip_suffix(".yaml").and_then(|stem| stem.rsplit_once("--"));
                let label = format!("{}/{name}", crate::game::inbox::INBOX_DIR);
                match parsed {
                    Some((step, side)) if sides.contains(side) && !resolved.contains(step) => {}
                    Some((step, _)) if resolved.contains(step) => {
                        unexpected.push(format!("{label} (its step is resolved already: no step used it)"))
                    }
                    _ => unexpected.push(format!("{label} (not a side's orders for a step: <step>--<side>.yaml)")),
                }
            }
        }
        // kept/: superseded, withdrawn and refused files, each with its reason.
        if root.join(crate::game::kept::KEPT_DIR).is_dir() {
            unexpected.extend(
                crate::game::kept::unexpected(folder).map_err(|e| fail("kept", None, Check::Files, e.to_string()))?,
            );
        }
        let standing = root.join(crate::game::standing::STANDING_DIR);
        if standing.is_dir() {
            for name in fsio::list_names(&standing).map_err(|e| fail("standing", None, Check::Files, e.to_string()))? {
                let ok = name.strip_suffix(".yaml").is_some_and(|side| sides.contains(side));
                if !ok {
                    unexpected.push(format!(
                        "{}/{name} (standing orders are <side>.yaml)",
                        crate::game::standing::STANDING_DIR
                    ));
                }
            }
        }
    }
    // openpgp/: the players' public keys (`adjutant senders openpgp`).
    let keys = root.join(crate::mail::auth::KEYS_DIR);
    if is_game && !published && keys.is_dir() {
        for name in fsio::list_names(&keys).map_err(|e| fail("openpgp", None, Check::Files, e.to_string()))? {
            let ok = crate::mail::auth::key_side(&name)
                .is_some_and(|side| folder.config.players.iter().any(|p| p.side == side));
            if !ok {
                unexpected
                    .push(format!("{}/{name} (a player's OpenPGP key is <side>.asc)", crate::mail::auth::KEYS_DIR));
            }
        }
    }
    let secret = root.join(crate::game::folder::SECRET_DIR);
    if secret.is_dir() {
        for name in fsio::list_names(&secret).map_err(|e| fail(".secret", None, Check::Files, e.to_string()))? {
            let sender_secret = crate::mail::auth::secret_side(&name)
                .is_some_and(|side| folder.config.players.iter().any(|p| p.side == side));
            if name != crate::game::folder::CHAIN_TOP_FILE && !sender_secret {
                unexpected.push(format!("{}/{name}", crate::game::folder::SECRET_DIR));
            }
        }
    }
    if unexpected.is_empty() {
        return Ok(());
    }
    const SHOWN: usize = 20;
    let more = unexpected.len().saturating_sub(SHOWN);
    let mut list = unexpected.iter().take(SHOWN).map(String::as_str).collect::<Vec<_>>().join(", ");
    if more > 0 {
        list += &format!(" and {more} more");
    }
    Err(fail(
        unexpected[0].split(' ').next().unwrap_or("."),
        None,
        Check::Files,
        format!("not a file adjutant writes here: {list}"),
    ))
}

fn check_all(
    folder: &GameFolder,
    listing: &Listing,
    verdict: &mut Verdict,
    entries: &mut Vec<(JournalEntry, Bytes32)>,
) -> Result<(), Failure> {
    if let Some(name) = listing.foreign.first() {
        return Err(fail(
            name,
            None,
            Check::Sequence,
            "not a journal entry (entries are named 000001.yaml, 000002.yaml, ...)".into(),
        ));
    }
    let mut previous_key = folder.config.dice.anchor;
    let mut previous_hash: Option<Bytes32> = None;
    let mut mutual = MutualChains {
        rolling: 0,
        last: folder.config.dice.players.iter().map(|p| (p.label.clone(), p.anchor)).collect(),
        adjourned: None,
    };
    for (i, file) in listing.entries.iter().enumerate() {
        let expected = i as u32 + 1;
        let label = file.label.as_str();
        let step = Some(file.step);
        if file.step != expected {
            return Err(fail(
                label,
                step,
                Check::Sequence,
                format!(
                    "step {expected} is missing: the journal goes from step {} to step {}",
                    expected - 1,
                    file.step
                ),
            ));
        }
        let bytes = fsio::read(&file.path).map_err(|e| fail(label, step, Check::Format, e.to_string()))?;
        let text =
            String::from_utf8(bytes.clone()).map_err(|_| fail(label, step, Check::Format, "not UTF-8 text".into()))?;
        let entry: JournalEntry =
            folder.journal_entry(label, &text).map_err(|e| fail(label, step, Check::Format, e.to_string()))?;
        if !folder.read_canonical(label, &text) && entry.to_yaml() != text {
            return Err(fail(
                label,
                step,
                Check::Format,
                "the file is not exactly as adjutant wrote it (its content is valid but its bytes were changed)".into(),
            ));
        }
        if entry.step != file.step {
            return Err(fail(
                label,
                step,
                Check::Sequence,
                format!("the file is named for step {} but says step {}", file.step, entry.step),
            ));
        }
        if entry.previous != previous_hash {
            let message = match (previous_hash, entry.previous) {
                (None, Some(_)) => "step 1 must not name a previous entry".to_string(),
                (Some(_), None) => format!(
                    "names no previous entry; it must carry the SHA-256 of {}",
                    crate::game::journal::label(expected - 1)
                ),
                _ => format!(
                    "the SHA-256 of {} is not the one this entry carries: that entry was changed",
                    crate::game::journal::label(expected - 1)
                ),
            };
            return Err(fail(label, step, Check::Previous, message));
        }
        let orders_file = |path: &str| fsio::read(&folder.root.join(path)).map_err(|e| e.to_string());
        let roll_log = folder.config.kind == FolderKind::RollLog;
        check_entry(&folder.config.game_id, &previous_key, &entry, &orders_file, roll_log)
            .map_err(|(check, message)| fail(label, step, check, message))?;
        check_mutual(folder, &entry, &mut mutual).map_err(|(check, message)| fail(label, step, check, message))?;
        let sha256 = Bytes32::sha256(&bytes);
        folder.note_canonical(label, &text, sha256);
        verdict.steps = entry.step;
        verdict.rolls += entry.rolls.len() as u64;
        previous_key = entry.key;
        previous_hash = Some(sha256);
        entries.push((entry, sha256));
    }
    Ok(())
}

/// Mutual mode (DICE.md 7.5): the rolling steps so far and each label's
/// last key (its anchor before its first).
struct MutualChains {
    rolling: u32,
    last: std::collections::BTreeMap<String, Bytes32>,
    /// The step of a forfeit met (docs/DICE.md A8): nothing may follow it.
    adjourned: Option<u32>,
}

/// DICE.md 7.5 and 7.6 on one entry of a mutual game (a referee-mode
/// entry must carry none of it): a step that rolled took p_j of every
/// player, j one more than the last, each key hashing to the player's key
/// before it (his anchor for j = 1), and the seed used them (checked with
/// the seed, §6.3); a step that rolled nothing took no key; a step whose
/// orders came from more than one player carries a commitment for each
/// file, equal to its hash.
fn check_mutual(folder: &GameFolder, entry: &JournalEntry, chains: &mut MutualChains) -> Result<(), (Check, String)> {
    let config = &folder.config;
    if let Some(at) = chains.adjourned {
        return Err((
            Check::Sequence,
            format!(
                "the game was adjourned by the forfeit of {}: no entry follows a forfeit (DICE.md 7.4)",
                crate::game::journal::label(at)
            ),
        ));
    }
    if let Some(f) = &entry.forfeit {
        if config.dice.mode != crate::game::folder::DiceMode::Mutual {
            return Err((Check::Chain, "a game in referee mode has no forfeit (DICE.md 7.4)".into()));
        }
        check_forfeit(config, entry, f, chains)?;
        chains.adjourned = Some(entry.step);
        return Ok(());
    }
    if config.dice.mode != crate::game::folder::DiceMode::Mutual {
        if entry.rolling_step.is_some() || !entry.player_keys.is_empty() || !entry.commitments.is_empty() {
            return Err((Check::Chain, "a game in referee mode has no player keys or commitments".into()));
        }
        return Ok(());
    }
    let rolled = !entry.rolls.is_empty();
    match (rolled, entry.rolling_step) {
        (false, None) if entry.player_keys.is_empty() => {}
        (false, _) => {
            return Err((Check::Chain, "a step that rolled no die takes no player key (DICE.md 7.2)".into()));
        }
        (true, None) => {
            return Err((Check::Chain, "a step that rolled takes every player's key p_j (DICE.md 7.2)".into()));
        }
        (true, Some(j)) => {
            if j != chains.rolling + 1 {
                return Err((
                    Check::Chain,
                    format!("rolling_step is {j}, but {} steps rolled before it (DICE.md 7.2)", chains.rolling),
                ));
            }
            let labels: Vec<&str> = entry.player_keys.iter().map(|p| p.label.as_str()).collect();
            let players: Vec<&str> = config.dice.players.iter().map(|p| p.label.as_str()).collect();
            let mut sorted = labels.clone();
            sorted.sort();
            let mut wanted = players.clone();
            wanted.sort();
            if sorted != wanted {
                return Err((
                    Check::Chain,
                    format!(
                        "the seed took the keys of {}, but the players are {} (DICE.md 7.5)",
                        labels.join(", "),
                        players.join(", ")
                    ),
                ));
            }
            for p in &entry.player_keys {
                let previous = chains.last.get(&p.label).copied().unwrap_or(Bytes32([0; 32]));
                if !key_follows(&p.key, &previous) {
                    let what = if j == 1 { "his anchor in game.yaml".to_string() } else { format!("his p_{}", j - 1) };
                    return Err((
                        Check::Chain,
                        format!("{}'s key p_{j} does not hash to {what} (DICE.md 7.5)", p.label),
                    ));
                }
            }
            for p in &entry.player_keys {
                chains.last.insert(p.label.clone(), p.key);
            }
            chains.rolling = j;
        }
    }
    // DICE.md 7.6: commitments.
    let sides: Vec<String> = entry.orders.iter().map(|o| o.side.clone()).collect();
    if crate::game::mutual::needs_commitments(config, &sides) || !entry.commitments.is_empty() {
        for o in &entry.orders {
            match entry.commitments.iter().find(|c| c.side == o.side) {
                Some(c) if c.sha256 == o.sha256 => {}
                Some(c) => {
                    return Err((
                        Check::Orders,
                        format!(
                            "the orders of {} hash to {}, not to its commitment {} (DICE.md 7.6)",
                            o.side,
                            o.sha256.to_hex(),
                            c.sha256.to_hex()
                        ),
                    ))
                }
                None => {
                    return Err((
                        Check::Orders,
                        format!("the orders of {} have no commitment, and the step heard from more than one player (DICE.md 7.6)", o.side),
                    ))
                }
            }
        }
        if entry.commitments.len() != entry.orders.len() {
            return Err((Check::Orders, "a commitment without its orders file (DICE.md 7.6)".into()));
        }
    }
    Ok(())
}

/// A forfeit entry (DICE.md 7.4, docs/DICE.md A8 and A11): it takes no
/// player key, commitment or orders; its deadline is the span game.yaml's
/// `deadlines:` gives after the time `tick` recorded, and the clock it read
/// was past it; the players named are players, their sides are exactly
/// the sides they hold; for a key, j is the next rolling step and every
/// other player's p_j was in (each hashing to his key before it), so the
/// players named are exactly those whose key was not.
fn check_forfeit(
    config: &crate::game::folder::GameConfig,
    entry: &JournalEntry,
    f: &crate::game::journal::Forfeit,
    chains: &MutualChains,
) -> Result<(), (Check, String)> {
    let bad = |message: String| Err((Check::Chain, format!("forfeit: {message}")));
    if entry.rolling_step.is_some() || !entry.player_keys.is_empty() || !entry.commitments.is_empty() {
        return bad("a forfeit takes no player key or commitment (docs/DICE.md A8)".into());
    }
    if f.since.plus(f.span) != f.deadline {
        return bad(format!("the deadline {} is not {} after {}", f.deadline, f.span, f.since));
    }
    if f.at < f.deadline {
        return bad(format!("recorded at {}, before its deadline {}", f.at, f.deadline));
    }
    let Some(deadlines) = &config.deadlines else {
        return bad("game.yaml has no `deadlines:`, so no deadline could pass".into());
    };
    let span = match f.withheld.as_str() {
        "key" => deadlines.reveal,
        "orders" | "commitment" => {
            let field = f.step.split_once('-').map(|(_, field)| field).unwrap_or(&f.step);
            Some(deadlines.policy(field).grace)
        }
        other => return bad(format!("withheld is '{other}'; it is key, orders or commitment")),
    };
    if span != Some(f.span) {
        return bad(format!(
            "its span {} is not the one game.yaml's `deadlines:` gives ({})",
            f.span,
            span.map(|s| s.to_string()).unwrap_or_else(|| "none: no `reveal`".into())
        ));
    }
    let labels: Vec<&str> = config.dice.players.iter().map(|p| p.label.as_str()).collect();
    let mut sorted = f.players.clone();
    sorted.sort();
    sorted.dedup();
    if f.players.is_empty() || sorted != f.players || f.players.iter().any(|p| !labels.contains(&p.as_str())) {
        return bad(format!("its players ({}) are not players' labels, each once, sorted", f.players.join(", ")));
    }
    let mut sides: Vec<String> = config
        .dice
        .players
        .iter()
        .filter(|p| f.players.contains(&p.label))
        .flat_map(|p| p.sides().into_iter().map(str::to_string))
        .collect();
    sides.sort();
    if sides != f.sides {
        return bad(format!(
            "its sides ({}) are not the sides its players hold ({})",
            f.sides.join(", "),
            sides.join(", ")
        ));
    }
    match (f.withheld.as_str(), f.rolling_step) {
        ("key", Some(j)) => {
            if j != chains.rolling + 1 {
                return bad(format!("key p_{j} is owed, but {} steps rolled before it (DICE.md 7.2)", chains.rolling));
            }
            for p in &config.dice.players {
                let named = f.players.contains(&p.label);
                match f.revealed.iter().find(|r| r.label == p.label) {
                    Some(_) if named => {
                        return bad(format!("{} is named as withholding p_{j}, and his key is recorded as in", p.label))
                    }
                    None if !named => {
                        return bad(format!("{}'s key p_{j} is neither recorded as in nor withheld", p.label))
                    }
                    Some(r) => {
                        let previous = chains.last.get(&r.label).copied().unwrap_or(Bytes32([0; 32]));
                        if !key_follows(&r.key, &previous) {
                            return bad(format!(
                                "{}'s key p_{j}, recorded as in, does not hash to his key before it",
                                r.label
                            ));
                        }
                    }
                    None => {}
                }
            }
            if f.revealed.len() + f.players.len() != labels.len() {
                return bad("a key recorded as in is not a player's".into());
            }
        }
        ("orders" | "commitment", None) if f.revealed.is_empty() => {}
        _ => return bad("a forfeit for orders has no rolling step or keys; one for a key has its rolling step".into()),
    }
    Ok(())
}

/// DICE.md §6.1 to §6.3 on one entry already read: its revealed key
/// against the key before it (`previous_key`: the anchor for step 1), its
/// orders hashes (`orders_file` reads an orders file named by its path in
/// the folder) and digest, its seed and every roll; a roll log's step is
/// recomputed whole. The check that fails, and why.
pub fn check_entry(
    game_id: &str,
    previous_key: &Bytes32,
    entry: &JournalEntry,
    orders_file: &dyn Fn(&str) -> std::result::Result<Vec<u8>, String>,
    roll_log: bool,
) -> Result<(), (Check, String)> {
    let expected = entry.step;
    // §6.1
    if !key_follows(&entry.key, previous_key) {
        let what = if expected <= 1 {
            "the anchor in game.yaml".to_string()
        } else {
            format!("the key of step {}", expected - 1)
        };
        return Err((Check::Chain, format!("the revealed key does not hash to {what}")));
    }
    // §6.2
    let mut hashes = Vec::with_capacity(entry.orders.len());
    for (n, record) in entry.orders.iter().enumerate() {
        let actual = match (&record.text, &record.file) {
            (Some(text), None) => Bytes32::sha256(text.as_bytes()),
            (None, Some(path)) => {
                let bytes = orders_file(path).map_err(|e| (Check::Orders, format!("orders[{n}]: {e}")))?;
                if crate::game::deadline::is_default(&bytes) != record.default {
                    let (is, says) = if record.default { ("not ", "") } else { ("", "not ") };
                    return Err((
                        Check::Orders,
                        format!(
                            "orders[{n}] ({}, {path}): the file is {is}default orders written by `tick`, but the \
                             record says {says}so (default: {})",
                            record.side, record.default
                        ),
                    ));
                }
                if crate::game::standing::trimmed(&bytes) != record.trimmed {
                    return Err((
                        Check::Orders,
                        format!(
                            "orders[{n}] ({}, {path}): what the file says was trimmed from standing orders ({:?}) \
                             is not what the record says ({:?})",
                            record.side,
                            crate::game::standing::trimmed(&bytes),
                            record.trimmed
                        ),
                    ));
                }
                Bytes32::sha256(&bytes)
            }
            _ => return Err((Check::Orders, format!("orders[{n}]: give either the text or the file of the orders"))),
        };
        if actual != record.sha256 {
            return Err((
                Check::Orders,
                format!(
                    "orders[{n}] ({}{}): the orders hash to {}, not to the recorded {}",
                    record.side,
                    record.file.as_deref().map(|f| format!(", {f}")).unwrap_or_default(),
                    actual.to_hex(),
                    record.sha256.to_hex()
                ),
            ));
        }
        hashes.push(SideHash { side: record.side.clone(), hash: record.sha256 });
    }
    let digest = orders_digest(&hashes).map_err(|e| (Check::Orders, e.to_string()))?;
    if digest != entry.orders_digest {
        return Err((Check::Orders, format!("orders_digest recomputes to {}", digest.to_hex())));
    }
    // §6.3
    // DICE.md §4: a mutual game's rolling step takes every player's key.
    let seed = step_seed(game_id, entry.step, &entry.key, &digest, &entry.seed_keys())
        .map_err(|e| (Check::Seed, e.to_string()))?;
    if seed != entry.seed {
        return Err((Check::Seed, format!("the seed recomputes to {}", seed.to_hex())));
    }
    let mut stream = RollStream::new(&seed);
    for (n, roll) in entry.rolls.iter().enumerate() {
        if roll.index as usize != n {
            return Err((Check::Rolls, format!("roll {n} is numbered {}", roll.index)));
        }
        let value = stream.roll(roll.die);
        if value != roll.value {
            return Err((
                Check::Rolls,
                format!(
                    "roll {n} ({}, {}) is logged as {} but the seed gives {value}",
                    roll.die, roll.purpose, roll.value
                ),
            ));
        }
    }
    if roll_log {
        check_roll_step(game_id, entry).map_err(|message| (Check::Rolls, message))?;
    }
    Ok(())
}

/// A roll log's step is recomputed whole from its dice and purpose: this
/// catches a roll dropped, added or relabelled.
fn check_roll_step(game_id: &str, entry: &JournalEntry) -> Result<(), String> {
    let [record] = entry.orders.as_slice() else {
        return Err(format!(
            "a roll step has one orders record (side {PURPOSE_SIDE}), this one has {}",
            entry.orders.len()
        ));
    };
    let purpose = match (&record.side, &record.text) {
        (side, Some(text)) if side == PURPOSE_SIDE => text,
        _ => return Err(format!("a roll step's orders are its purpose text, under side {PURPOSE_SIDE}")),
    };
    let dice: Vec<DiceExpr> = entry.dice.iter().map(|d| d.parse()).collect::<Result<_, _>>()?;
    let mutual = crate::game::mutual::StepKeys {
        commitments: Vec::new(),
        rolling_step: entry.rolling_step,
        player_keys: entry.player_keys.clone(),
    };
    let expected = roll_log::resolve_step(game_id, entry.step, &entry.key, entry.previous, &dice, purpose, &mutual)
        .map_err(|e| e.to_string())?;
    if expected.rolls.len() != entry.rolls.len() {
        return Err(format!(
            "{} asks for {} rolls but {} are logged",
            entry.dice.join(" "),
            expected.rolls.len(),
            entry.rolls.len()
        ));
    }
    for (n, (want, got)) in expected.rolls.iter().zip(&entry.rolls).enumerate() {
        if want != got {
            return Err(format!(
                "roll {n} should be {} {} for \"{}\"; the log has {} {} for \"{}\"",
                want.die, want.value, want.purpose, got.die, got.value, got.purpose
            ));
        }
    }
    if &expected != entry {
        return Err("the entry does not recompute from its dice and purpose".into());
    }
    Ok(())
}
