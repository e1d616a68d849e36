//! Playing a game folder: resolving its steps into the journal, and
//! replaying the journal to verify it (DICE.md §6.4).
//!
//! Each resolved step is one journal entry: the orders files (copied into
//! `orders/` byte for byte), their digest, the revealed key, the seed, every
//! roll with its purpose, the engine's events and the hash of the state
//! after it. `state.yaml` is a cache of the last state; the journal is the
//! record.
//!
//! `resolve` computes everything first (the steps, their entries, the new
//! state, the dispatch of reports), then writes in an order whose every
//! prefix recovery.rs finishes or undoes: the marker of pending reports,
//! the orders files, the journal entries (each step's commit point),
//! `state.yaml`, the removal of the inbox's copies, the dispatch, the
//! removal of the marker.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use crate::base::dice::{orders_digest, step_seed, Bytes32, SideHash, StepDice};
use crate::base::error::{Error, Result};
use crate::base::fsio;
use crate::game::deadline::{Instant, Span};
use crate::game::folder::{FolderKind, GameFolder, ORDERS_DIR, REPORTS_DIR, STATE_FILE};
use crate::game::journal::{Correction, Forfeit, JournalEntry, OrdersRecord};
use crate::game::load_rules;
use crate::report::game as reports;
use crate::system::{Event, GameResult, Rules, State, StepInfo};

/// One step resolved.
#[derive(Debug, Clone, Serialize)]
pub struct Resolved {
    pub journal_step: u32,
    pub game_step: String,
    pub orders: Vec<OrdersRecord>,
    pub key: Bytes32,
    pub events: Vec<Event>,
    pub rolls: Vec<crate::base::dice::Roll>,
    pub state_sha256: Bytes32,
}

/// What `resolve` did, and where the game stands.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Progress {
    pub resolved: Vec<Resolved>,
    /// The next step and the sides whose orders it awaits; absent when over.
    pub next_step: Option<String>,
    pub awaiting: Vec<String>,
    pub result: Option<GameResult>,
    /// The sides the next step still owes orders from (`inbox::owed`:
    /// files sent ahead and standing orders count as in).
    pub owed: Vec<String>,
    /// Submitted orders refused when their step came (`inbox/`): the step
    /// waits for replacements (a newer message by mail, `submit --replace`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<String>,
    /// Why the run stopped, as `refused`, each problem with the sides it
    /// concerns (those to send new orders): `tick` mails it to them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub blocked: Vec<Blocker>,
    /// The dispatch of reports written for the steps resolved
    /// (`reports/000003-000007`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reports: Option<String>,
    /// Why the reports could not be written (the steps stand; the next
    /// `resolve` writes them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reports_failed: Option<String>,
}

/// A reason the game cannot go on: a problem (naming the file, line and
/// field where there is one) and the sides concerned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Blocker {
    /// The game step that waits.
    pub step: String,
    pub sides: Vec<String>,
    pub problem: String,
}

/// One orders file offered for resolution, checked.
struct Offered {
    side: String,
    step: StepInfo,
    body: crate::base::yaml::Value,
    bytes: Vec<u8>,
}

/// The bodies of a step's orders, by side, from the files as stored.
fn bodies(offered: &[&Offered]) -> BTreeMap<String, crate::base::yaml::Value> {
    offered.iter().map(|o| (o.side.clone(), o.body.clone())).collect()
}

/// Resolve one step from its orders: the pure part that `resolve` and
/// `verify` share. Returns the entry (without `previous`) and the new state.
#[allow(clippy::too_many_arguments)]
fn resolve_step(
    rules: &dyn Rules,
    game: &crate::game::folder::GameConfig,
    journal_step: u32,
    key: &Bytes32,
    state: &State,
    step: &StepInfo,
    orders: &[(String, Vec<u8>, String)],
    bodies: &BTreeMap<String, crate::base::yaml::Value>,
    mutual: &crate::game::mutual::StepKeys,
) -> Result<(JournalEntry, State)> {
    let hashes: Vec<SideHash> = orders.iter().map(|(side, bytes, _)| SideHash::of_bytes(side, bytes)).collect();
    let digest = orders_digest(&hashes)?;
    let seed = step_seed(&game.game_id, journal_step, key, &digest, &mutual.seed_keys())?;
    let mut dice = StepDice::new(&seed);
    let (mut after, events) = rules.resolve(state.as_ref(), bodies, &mut dice)?;
    after.set_resolved_steps(journal_step);
    let records = orders
        .iter()
        .zip(&hashes)
        .map(|((side, bytes, file), h)| OrdersRecord {
            side: side.clone(),
            sha256: h.hash,
            text: None,
            file: Some(file.clone()),
            default: crate::game::deadline::is_default(bytes),
            trimmed: crate::game::standing::trimmed(bytes),
        })
        .collect();
    let entry = JournalEntry {
        step: journal_step,
        previous: None,
        orders: records,
        orders_digest: digest,
        key: *key,
        seed,
        commitments: mutual.commitments.clone(),
        rolling_step: mutual.rolling_step,
        player_keys: mutual.player_keys.clone(),
        dice: Vec::new(),
        rolls: dice.into_log(),
        game_step: Some(step.name.clone()),
        correction: None,
        forfeit: None,
        events,
        state_sha256: Some(after.hash()),
        players_sha256: Some(crate::game::folder::players_sha256(&game.players_at(journal_step))),
    };
    Ok((entry, after))
}

/// Resolve every step of the game at `dir` whose orders are in: the files
/// given (each checked against the step it names), the files submitted to
/// `inbox/` (checked when their step comes), standing orders for sides
/// that sent none (`standing/`), and none for steps that take no orders.
/// Stops at the first step that lacks someone's orders, or whose submitted
/// or standing orders fail their checks now, or that awaits no one and
/// cannot be resolved (a phase not built yet): each listed in `refused`,
/// the steps before it kept. Files given that fail their checks are
/// refused and change nothing.
pub fn resolve_game(dir: &Path, files: &[PathBuf], wait: Duration) -> Result<Progress> {
    resolve_game_with(dir, files, wait, false)
}

/// [`resolve_game`], and with `defaults` the default orders `tick` wrote
/// for sides that missed a deadline (src/game/deadline.rs) count as their
/// orders; without it (a plain `resolve`, which has no clock) they wait for
/// `tick` to find the deadline's grace over.
pub fn resolve_game_with(dir: &Path, files: &[PathBuf], wait: Duration, defaults: bool) -> Result<Progress> {
    resolve_run(dir, files, wait, defaults, false)
}

/// What stops the game at `dir` now (issue 16: `status` shows a game as
/// blocked and why): the run `resolve` would make, made and written
/// nowhere, under a shared lock. Empty when nothing stops it, or when the
/// game is in mutual mode (whose waiting `status` shows otherwise).
pub fn blockers(dir: &Path, wait: Duration) -> Result<Vec<Blocker>> {
    Ok(resolve_run(dir, &[], wait, false, true)?.blocked)
}

fn resolve_run(dir: &Path, files: &[PathBuf], wait: Duration, defaults: bool, dry: bool) -> Result<Progress> {
    let folder = GameFolder::open(dir)?;
    if folder.config.kind != FolderKind::Game {
        return Err(Error::usage(format!("{}: a roll log; resolve plays games (see `adjutant new`)", dir.display())));
    }
    // The walk down the dice chain (thousands of hashes, from the chain
    // top, which never changes) runs on another thread while the lock is
    // taken and the rules load; what it finds counts below, where the keys
    // were always worked out (its errors too).
    let mutual = folder.config.dice.mode == crate::game::folder::DiceMode::Mutual;
    if dry && mutual {
        return Ok(Progress {
            resolved: Vec::new(),
            next_step: None,
            awaiting: Vec::new(),
            result: None,
            owed: Vec::new(),
            refused: Vec::new(),
            blocked: Vec::new(),
            reports: None,
            reports_failed: None,
        });
    }
    // The keys this resolve may reveal: a window of the chain from the
    // step the journal is at, walked on another thread meanwhile (the
    // journal is read again under the lock; a window that misses a step
    // this resolve reaches is walked again there, see `ChainWindow`).
    // A dry run (`status`'s blockers) walks it too, whether or not it
    // resolves a step: a chain top that does not lead to the anchor stops
    // the game, and `status` names it before the next `resolve` fails.
    let at = folder.journal().list().map_or(1, |listing| listing.entries.len() as u32 + 1);
    let walk = folder.chain_walk_from(at, KEY_WINDOW).map(crate::base::apart::Apart::start);
    // The game's report templates too, compiled apart meanwhile. A dry
    // run (`status`'s blockers) writes no report: it compiles only a
    // game's own templates (`templates/`), so that a broken one is named
    // as before, and not the built-in ones (a thread started for nothing
    // cost `status` 3% of its time, issue 11).
    let templates = (!dry || crate::report::game::own_templates(&folder.root).is_some())
        .then(|| crate::report::game::game_templates_apart(&folder.root));
    let (_lock, _read) = if dry {
        (None, Some(crate::game::recovery::for_reading(&folder, wait)?.finished(&folder)?))
    } else {
        (Some(crate::game::recovery::lock(&folder, wait)?), None)
    };
    let journal = folder.journal();
    let rules = load_rules(&folder)?;
    // The game's report templates are checked before anything is written,
    // so that the reports of the steps about to be resolved can be made.
    let templates = templates.map(crate::base::apart::Apart::join).transpose()?;
    let mut state = crate::game::load_state(&folder)?;
    let (mut k, mut previous) = journal.tail()?;
    let first_new = k;
    let mut keys = ChainWindow { first: at, keys: walk?.join()? };
    if state.resolved_steps() + 1 != k {
        return Err(Error::refused(format!(
            "{}: state.yaml says {} steps are resolved but the journal has {}; run `adjutant verify`",
            dir.display(),
            state.resolved_steps(),
            k - 1
        )));
    }
    if mutual {
        if !files.is_empty() {
            return Err(Error::usage(format!(
                "{}: a game in mutual mode takes its orders through `adjutant submit`, which seals each step and \
                 checks its commitments (DICE.md 7.2, 7.6); resolve it with no files",
                dir.display()
            )));
        }
        if let Some((at, f)) = forfeited(&folder)? {
            return Err(Error::refused(format!("{}: {}", dir.display(), adjourned_words(at, &f))));
        }
        let owed = crate::game::mutual::sides_without_player(&folder.config, rules);
        if !owed.is_empty() {
            return Err(Error::refused(format!(
                "{}: the game waits for the anchors of the players of {} (`adjutant join`, DICE.md 7.1)",
                dir.display(),
                owed.join(", ")
            )));
        }
    }
    // Mutual mode: the rolling steps so far and each player's last key.
    let (mut rolling, mut last_keys) =
        if mutual { crate::game::mutual::chain_tops(&folder)? } else { (0, BTreeMap::new()) };
    // Check every file first: all are valid, or nothing happens.
    let mut offered = Vec::new();
    let mut problems = Vec::new();
    for file in files {
        let label = file.display().to_string();
        let bytes = crate::game::input::read_file(file, crate::game::input::MAX_ORDERS_BYTES, "an orders file")?;
        let text = match crate::game::input::orders_text(&label, &bytes) {
            Ok(text) => text,
            Err(refused) => {
                problems.push(refused.to_string());
                continue;
            }
        };
        match rules.check_header(&folder.config.game_id, state.as_ref(), &label, text) {
            Err(list) => problems.extend(crate::base::error::capped_problems(&list)),
            Ok(c) => {
                let found = rules.validate_body(state.as_ref(), &c, &label, text);
                problems.extend(crate::base::error::capped_problems(&found));
                if offered.iter().any(|o: &Offered| o.side == c.side && o.step == c.step) {
                    problems.push(format!("{label}: a second orders file of {} for step {}", c.side, c.step.name));
                }
                offered.push(Offered { side: c.side, step: c.step, body: c.body, bytes });
            }
        }
    }
    if !problems.is_empty() {
        return Err(Error::refused(problems.join("\n")));
    }
    let length = folder.config.dice.chain_length;
    let mut resolved = Vec::new();
    let mut refused = Vec::new();
    let mut blocked: Vec<Blocker> = Vec::new();
    // What the steps write, computed before anything is written.
    let mut orders_files: Vec<(String, Vec<u8>)> = Vec::new();
    let mut entries: Vec<(JournalEntry, String)> = Vec::new();
    let mut used_inbox: Vec<PathBuf> = Vec::new();
    let mut set_aside: Vec<(crate::game::inbox::Pending, u32, Vec<String>)> = Vec::new();
    let waiting = crate::game::inbox::pending(&folder)?;
    let mut inbox = waiting.clone();
    // In mutual mode a default, like any file, stands once in (A5, A11).
    if !defaults && !mutual {
        inbox.retain(|p| !crate::game::deadline::is_default(&p.bytes));
    }
    // The board drawn ahead (joined, when dropped, on every way out).
    let mut _drawing = None;
    while let Some(step) = state.next_step() {
        let awaited = rules.awaited(state.as_ref());
        let sent = |side: &String| {
            offered.iter().any(|o| o.step == step && &o.side == side)
                || inbox.iter().any(|p| p.step == step.name && &p.side == side)
        };
        // A stand-in's entry (Rules::stand_in: the AWI referee's) answers
        // for every awaited side: the step is resolved with it alone.
        let stand_in = rules.stand_in(state.as_ref()).filter(|role| sent(role));
        // Submitted files for this step, for sides no file given covers
        // (none but the stand-in's when it is in: the others are set aside).
        let mut from_inbox = Vec::new();
        for p in inbox.iter().filter(|p| p.step == step.name) {
            if offered.iter().any(|o| o.step == step && o.side == p.side)
                || stand_in.as_ref().is_some_and(|role| role != &p.side)
            {
                continue;
            }
            let label =
                format!("{}/{}", crate::game::inbox::INBOX_DIR, crate::game::inbox::file_name(&p.step, &p.side));
            let mut stop = |problems: Vec<String>| {
                blocked.extend(problems.iter().map(|problem| Blocker {
                    step: step.name.clone(),
                    sides: vec![p.side.clone()],
                    problem: format!("{} (orders of {})", problem, p.side),
                }));
                refused.extend(problems);
            };
            let text = match crate::game::input::orders_text(&label, &p.bytes) {
                Ok(text) => text,
                Err(problem) => {
                    stop(vec![problem.to_string()]);
                    continue;
                }
            };
            match rules.check_header(&folder.config.game_id, state.as_ref(), &label, text) {
                Err(list) => stop(crate::base::error::capped_problems(&list)),
                Ok(c) => {
                    let found = rules.validate_body(state.as_ref(), &c, &label, text);
                    stop(crate::base::error::capped_problems(&found));
                    from_inbox.push(Offered { side: c.side, step: c.step, body: c.body, bytes: p.bytes.clone() });
                }
            }
        }
        if let (Some(role), true) = (&stand_in, mutual) {
            let why = format!(
                "step {}: the {role}'s entry cannot be taken in mutual dice mode (DICE.md 7: each step's dice come \
                 from the players' keys, and the {role} holds none): the awaited sides' own files decide it ({})",
                step.name,
                awaited.join(", ")
            );
            blocked.push(Blocker { step: step.name.clone(), sides: awaited.clone(), problem: why.clone() });
            refused.push(why);
            break;
        }
        // Standing orders (src/game/standing.rs) of the awaited sides that sent none.
        let missing: Vec<String> =
            if stand_in.is_some() { Vec::new() } else { awaited.iter().filter(|side| !sent(side)).cloned().collect() };
        let standing = crate::game::standing::orders_for(&folder, rules, &state, &step, &missing)?;
        for (side, problem) in standing.refused {
            blocked.push(Blocker {
                step: step.name.clone(),
                sides: vec![side.clone()],
                problem: format!("{problem} (standing orders of {side})"),
            });
            refused.push(problem);
        }
        from_inbox.extend(standing.orders.into_iter().map(|o| Offered {
            side: o.side,
            step: step.clone(),
            body: o.body,
            bytes: o.bytes,
        }));
        if !refused.is_empty() {
            break;
        }
        let mut mine: Vec<&Offered> = offered.iter().filter(|o| o.step == step).collect();
        mine.extend(from_inbox.iter());
        if let Some(role) = &stand_in {
            // The stand-in's file alone (a file given on the command line
            // before one in the inbox); the sides' files stay where they are.
            mine.retain(|o| &o.side == role);
            mine.truncate(1);
        } else if awaited.iter().any(|side| mine.iter().all(|o| &o.side != side)) {
            break;
        }
        if k >= length {
            return Err(Error::refused(format!("{}: the dice chain is used up ({} steps)", dir.display(), length - 1)));
        }
        // DICE.md 7.2-7.6: the commitments checked, the probe run, and a
        // rolling step's keys read (or the step waits for them).
        let step_keys = if mutual {
            let sent: Vec<(String, Vec<u8>)> = mine.iter().map(|o| (o.side.clone(), o.bytes.clone())).collect();
            let checked = crate::game::mutual::for_step(
                &folder,
                rules,
                &state,
                &step.name,
                &awaited,
                &sent,
                &bodies(&mine),
                rolling,
                &last_keys,
            )?;
            match checked {
                Ok(keys) => keys,
                Err(why) => {
                    blocked.push(Blocker { step: step.name.clone(), sides: awaited.clone(), problem: why.clone() });
                    refused.push(why);
                    break;
                }
            }
        } else {
            crate::game::mutual::StepKeys::default()
        };
        // A step is about to be resolved, and reported: the board's
        // unchanging layers are drawn meanwhile.
        if k == first_new && !dry {
            _drawing = folder.kept_rules().map(crate::report::game::draw_board_apart);
        }
        let key = keys.key(&folder, k)?;
        let orders: Vec<(String, Vec<u8>, String)> = mine
            .iter()
            .map(|o| (o.side.clone(), o.bytes.clone(), format!("{ORDERS_DIR}/{k:06}-{}.yaml", o.side)))
            .collect();
        let (mut entry, next) =
            match resolve_step(rules, &folder.config, k, &key, &state, &step, &orders, &bodies(&mine), &step_keys) {
                Ok(done) => done,
                // A step that awaits no one and that the rules engine refuses
                // (a phase it cannot resolve yet) stops the run there: the
                // steps before it stand, and the refusal says why it stopped.
                Err(e) if awaited.is_empty() && matches!(e, Error::Refused(_) | Error::Coded { .. }) => {
                    blocked.push(Blocker { step: step.name.clone(), sides: Vec::new(), problem: e.to_string() });
                    refused.push(e.to_string());
                    break;
                }
                // Orders that pass their own checks and that the engine
                // refuses together: the step waits for new orders from the
                // sides that sent them (issue 16: nothing ever stalls).
                Err(e) if matches!(e, Error::Refused(_) | Error::Coded { .. }) => {
                    let sides: Vec<String> = mine.iter().map(|o| o.side.clone()).collect();
                    let files: Vec<String> = sides
                        .iter()
                        .map(|side| {
                            format!(
                                "{}/{}",
                                crate::game::inbox::INBOX_DIR,
                                crate::game::inbox::file_name(&step.name, side)
                            )
                        })
                        .collect();
                    let problem = format!(
                        "step {}: the orders of {} ({}) pass their own checks, but the rules refuse them: {e}",
                        step.name,
                        sides.join(", "),
                        files.join(", ")
                    );
                    blocked.push(Blocker { step: step.name.clone(), sides, problem: problem.clone() });
                    refused.push(problem);
                    break;
                }
                Err(e) => return Err(e),
            };
        entry.previous = previous;
        // The entry's bytes, made once: hashed for the next entry's link and
        // the reports' journal head, and written as they are.
        let yaml = entry.to_yaml();
        let sha256 = Bytes32::sha256(yaml.as_bytes());
        folder.note_written(&entry, &yaml, sha256);
        previous = Some(sha256);
        orders_files.extend(orders.into_iter().map(|(_, bytes, file)| (file, bytes)));
        // The inbox's copies of the step are done with once it is in the
        // journal; a side's file the step did without (a stand-in's entry
        // took its place, or a file sent ahead for a step that came not
        // awaiting the side) is set aside in kept/superseded/ once committed.
        // A default left aside above (a resolve not run by `tick`) is one
        // the step did without too: the AWI referee's entry settles a
        // battle whose silent commander got his least orders at the
        // deadline (recovery.rs set it aside only at the next command).
        let used: Vec<String> = mine.iter().map(|o| o.side.clone()).collect();
        for p in waiting.iter().filter(|p| p.step == step.name) {
            let taken = inbox.iter().any(|q| q.path == p.path);
            if taken && used.contains(&p.side) {
                used_inbox.push(p.path.clone());
            } else {
                set_aside.push((p.clone(), k, used.clone()));
            }
        }
        // So are its commitments and keys (mutual mode): the journal has them.
        used_inbox.extend(crate::game::mutual::used_files(&folder, &step.name, &step_keys));
        if let Some(j) = step_keys.rolling_step {
            rolling = j;
            last_keys.extend(step_keys.player_keys.iter().map(|p| (p.label.clone(), p.key)));
        }
        state = next;
        resolved.push(Resolved {
            journal_step: k,
            game_step: step.name.clone(),
            orders: entry.orders.clone(),
            key,
            events: entry.events.clone(),
            rolls: entry.rolls.clone(),
            state_sha256: entry.state_sha256.unwrap_or(state.hash()),
        });
        entries.push((entry, yaml));
        k += 1;
    }
    // A dry run stops here, with what would be resolved and what blocks
    // (templates are compiled for every run that is not dry).
    let Some(templates) = templates.filter(|_| !dry) else {
        return Ok(Progress {
            resolved,
            next_step: state.next_step().map(|s| s.name),
            awaiting: rules.awaited(state.as_ref()),
            result: state.result(),
            owed: Vec::new(),
            refused,
            blocked,
            reports: None,
            reports_failed: None,
        });
    };
    // The players' reports of the steps no dispatch reports yet: those just
    // resolved, and any a killed `resolve` left without theirs.
    let reported = reports::reported_through(&folder, first_new - 1)?;
    let last = k - 1;
    // The entries the dispatch reports are read here; the dispatch is
    // rendered on another thread while the steps are written and flushed,
    // and its folder is written and flushed there too, under a temporary
    // name: it is put in place only after the steps are committed.
    let reported_entries = (reported < last)
        .then(|| -> Result<Vec<JournalEntry>> {
            let mut reported_entries = if reported + 1 < first_new {
                reports::entries(&folder, reported + 1, first_new - 1)?
            } else {
                Vec::new()
            };
            reported_entries.extend(entries.iter().map(|(entry, _)| entry.clone()));
            Ok(reported_entries)
        })
        .transpose();
    let (folder, templates, state) = (&folder, &templates, &state);
    std::thread::scope(|scope| {
        let rendering = reported_entries.map(|to_report| {
            to_report.map(|reported_entries| {
                scope.spawn(move || -> Result<fsio::StagedDir> {
                    let steps = reports::Steps { folder, rules, templates, entries: &reported_entries, state };
                    let files = steps.dispatch()?;
                    reports::stage_dispatch_files(folder, reported + 1, last, &files)
                })
            })
        });
        let dispatch = move || -> Result<Option<fsio::StagedDir>> {
            match rendering? {
                None => Ok(None),
                Some(handle) => match handle.join() {
                    Ok(rendered) => rendered.map(Some),
                    Err(panic) => std::panic::resume_unwind(panic),
                },
            }
        };
        let progress = write_steps(
            folder,
            rules,
            state,
            &journal,
            first_new,
            last,
            &entries,
            &orders_files,
            &used_inbox,
            (refused, blocked),
            resolved,
            dispatch,
        )?;
        // The steps are committed: the files they did without are set
        // aside (recovery.rs does it for a resolve killed before this).
        for (p, k, used) in &set_aside {
            crate::game::inbox::set_aside(folder, p, *k, used)?;
        }
        Ok(progress)
    })
}

/// How many keys of the chain a `resolve` walks down for at once: more
/// than the steps one resolve reaches in a game played as it comes (a
/// window that falls short is walked again).
const KEY_WINDOW: u32 = 32;

/// Keys s_first, s_first+1, ... of the referee's chain, from one walk down
/// it ([`GameFolder::chain_walk_from`]).
struct ChainWindow {
    first: u32,
    keys: Vec<Bytes32>,
}

impl ChainWindow {
    /// Key s_k (k below the chain's length): from the window, or from a
    /// new one walked from k when the window does not hold it.
    fn key(&mut self, folder: &GameFolder, k: u32) -> Result<Bytes32> {
        let held = |w: &ChainWindow| k.checked_sub(w.first).and_then(|i| w.keys.get(i as usize)).copied();
        if let Some(key) = held(self) {
            return Ok(key);
        }
        *self = ChainWindow { first: k, keys: folder.chain_keys_from(k, KEY_WINDOW)? };
        held(self)
            .ok_or_else(|| Error::refused(format!("{}: the dice chain has no key for step {k}", folder.root.display())))
    }
}

/// A referee's correction (`adjutant correct`, docs/DICE.md A10): the game
/// goes back to the state before journal step `from`, as a new journal
/// entry that says `why`; the entries from `from` on stay in the journal
/// and no longer stand. The entry reveals the next key of the chain, so
/// the steps resolved again take keys never revealed before: the referee
/// cannot choose rolls by correcting. Its reports tell every side.
pub fn correct(dir: &Path, from: u32, why: &str, wait: Duration) -> Result<Progress> {
    let folder = GameFolder::open(dir)?;
    if folder.config.kind != FolderKind::Game {
        return Err(Error::usage(format!("{}: a roll log; correct rewinds games", dir.display())));
    }
    let mutual = folder.config.dice.mode == crate::game::folder::DiceMode::Mutual;
    let why = why.trim();
    if why.is_empty() || why.chars().count() > 500 || why.chars().any(char::is_control) {
        return Err(Error::usage("--why: say why in one line of 1 to 500 characters, with no control character"));
    }
    let _lock = crate::game::recovery::lock(&folder, wait)?;
    // Mutual mode (docs/DICE.md A10): a forfeit ends the game for good, and
    // a step whose keys are coming in resolves (or is forfeited) first;
    // what the awaited step took so far was for a game that no longer
    // stands, and is sent again when the step comes.
    let mut stale: Vec<PathBuf> = Vec::new();
    // The awaited step when it is sealed and the rules refuse its files
    // together (A6): `--from` it sets them aside and undoes no step.
    let mut refused_together: Option<String> = None;
    if mutual {
        if let Some((at, f)) = forfeited(&folder)? {
            return Err(Error::refused(format!(
                "{}: {}; a correction would give the withholding player another roll (DICE.md 7.4)",
                dir.display(),
                adjourned_words(at, &f)
            )));
        }
        let rules = load_rules(&folder)?;
        let state = crate::game::load_state(&folder)?;
        if let Some(w) = crate::game::mutual::waiting(&folder, rules, &state)? {
            if w.rolls && w.keys_owed.len() < folder.config.dice.players.len() {
                let revealed: Vec<String> = folder
                    .config
                    .dice
                    .players
                    .iter()
                    .map(|p| p.label.clone())
                    .filter(|l| !w.keys_owed.contains(l))
                    .collect();
                return Err(Error::refused(format!(
                    "{}: step {} is sealed and its keys p_{} are coming in (from {} so far): it must be resolved, or \
                     forfeited at the reveal deadline, before a correction; one now would let the last to reveal \
                     undo a roll he can foresee (DICE.md 7.4, docs/DICE.md A10)",
                    dir.display(),
                    w.step,
                    w.rolling_step,
                    revealed.join(", ")
                )));
            }
            if w.refused.is_some() {
                refused_together = Some(w.step.clone());
            }
            let mutual_dir = folder.root.join(crate::game::mutual::MUTUAL_DIR);
            for side in rules.sides().into_iter().map(|s| s.id) {
                let commit = mutual_dir.join(crate::game::mutual::commit_file(&w.step, &side));
                if commit.exists() {
                    stale.push(commit);
                }
            }
            stale
                .extend(crate::game::inbox::pending(&folder)?.into_iter().filter(|p| p.step == w.step).map(|p| p.path));
        }
    }
    let journal = folder.journal();
    let rules = load_rules(&folder)?;
    let templates = crate::report::game::game_templates(&folder)?;
    let (k, previous) = journal.tail()?;
    // `--from` the awaited step itself (the next journal step) undoes no
    // step: it only sets aside the awaited step's commitments and files,
    // for a mutual game whose sealed step the rules refuse together
    // (docs/DICE.md A6), where a correction from the last step resolved
    // would roll that step again.
    let set_aside = from == k && refused_together.is_some();
    if from == 0 || from > k || (from == k && !set_aside) {
        let aside = "; `--from` the awaited step sets aside its orders only in a mutual game whose sealed step the \
                     rules refuse together (docs/DICE.md A6)";
        return Err(Error::usage(match k {
            1 => format!("--from {from}: the journal is empty: there is nothing to correct{aside}"),
            _ => format!("--from {from}: give the first journal step that no longer stands, 1 to {}{aside}", k - 1),
        }));
    }
    let length = folder.config.dice.chain_length;
    if k >= length {
        return Err(Error::refused(format!("{}: the dice chain is used up ({} steps)", dir.display(), length - 1)));
    }
    let before = reports::entries(&folder, 1, k - 1)?;
    let names: Vec<Option<String>> = before.iter().map(|e| e.game_step.clone()).collect();
    let correction = Correction { rewinds_to: from - 1, why: why.to_string() };
    let mut state = state_after(&folder, rules, from - 1)?;
    state.set_resolved_steps(k);
    let events = correction_events(&correction, k, &names);
    // Mutual mode: the awaited step's commitments and orders files, made
    // for the game before the correction, are removed once it is committed,
    // with the inbox copies a resolve removes; a kill before that leaves
    // them to recovery.rs, which removes them before the correction's
    // reports (removed before the commit, a kill in between would leave
    // the old game with its sealed step's commitments gone: a new choice).
    let outcome = NoStep { correction: Some(correction), forfeit: None, events, state };
    write_no_step(&folder, rules, &templates, &journal, (k, previous), outcome, &stale)
}

/// The forfeit that adjourned the mutual game at `folder`: the journal's
/// last entry when it is one (its step and record).
pub fn forfeited(folder: &GameFolder) -> Result<Option<(u32, Forfeit)>> {
    if folder.config.dice.mode != crate::game::folder::DiceMode::Mutual {
        return Ok(None);
    }
    let journal = folder.journal();
    let (k, _) = journal.tail()?;
    if k <= 1 {
        return Ok(None);
    }
    let label = crate::game::journal::label(k - 1);
    let text = fsio::read_text(&journal.path(k - 1), &label)?;
    let entry = folder.journal_entry(&label, &text).map_err(Error::Data)?;
    Ok(entry.forfeit.map(|f| (k - 1, f)))
}

/// What was withheld, in words: `key p_3` or `the committed orders file`.
pub fn withheld_words(f: &Forfeit) -> String {
    match f.rolling_step {
        Some(j) if f.withheld == "key" => format!("key p_{j}"),
        _ if f.withheld == "commitment" => "the commitment and the orders file".to_string(),
        _ => "the orders file committed to".to_string(),
    }
}

/// A forfeited game's refusal: the game is over, and why.
pub fn adjourned_words(at: u32, f: &Forfeit) -> String {
    format!(
        "the game is over: adjourned at step {} by the forfeit of {} ({} of {} not in by the deadline {}, {}; \
         DICE.md 7.4); it takes no more orders, commitments, keys or steps",
        f.step,
        f.sides.join(", "),
        withheld_words(f),
        f.players.join(", "),
        f.deadline,
        crate::game::journal::label(at)
    )
}

/// The shell's event of a forfeit entry (the system's own follow it).
pub fn forfeit_event(f: &Forfeit) -> Event {
    let (what, since) = match f.withheld.as_str() {
        "key" => (withheld_words(f), "the step was sealed"),
        "commitment" => (withheld_words(f), "the orders deadline passed"),
        _ => (withheld_words(f), "the orders deadline passed with every commitment in"),
    };
    Event::new(
        "DICE.md 7.4",
        "forfeit",
        format!(
            "The game is adjourned at step {}: {what} of {} was not in by the deadline {} ({} after {since}, \
             {}; clock read {}). The sides of {} forfeit: {}. No die is rolled for the step.",
            f.step,
            f.players.join(", "),
            f.deadline,
            f.span,
            f.since,
            f.at,
            f.players.join(", "),
            f.sides.join(", ")
        ),
    )
    .with("step", &f.step)
    .with("withheld", &f.withheld)
    .with("players", &f.players)
    .with("sides", &f.sides)
    .with("deadline", f.deadline.to_string())
}

/// The state after a forfeit by `sides` at `state`'s next step and the
/// events that say so: the system's rule ([`Rules::forfeit`]), or the
/// state as it was for a system without one.
fn forfeit_outcome(rules: &dyn Rules, state: &State, f: &Forfeit, step: u32) -> Result<(State, Vec<Event>)> {
    let (mut after, theirs) = match rules.forfeit(state.as_ref(), &f.sides) {
        Some(outcome) => outcome?,
        None => (state.clone(), Vec::new()),
    };
    after.set_resolved_steps(step);
    let mut events = vec![forfeit_event(f)];
    events.extend(theirs);
    Ok((after, events))
}

/// What a forfeit is for: a key p_j (7.4) or a committed orders file (A11).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Withheld {
    Key,
    Orders,
    /// A side's commitment and file at a step whose defaults settle
    /// nothing (an AWI battle in mutual mode; docs/DICE.md A11 (3)).
    Commitment,
}

/// A forfeit (DICE.md 7.4, docs/DICE.md A8 and A11), decided by `tick` at
/// the time `at`: what the awaited step of the mutual game at `dir` still
/// owes (`withheld`) was due at `since` plus `span`. The journal gets an
/// entry that resolves no step and rolls no die (the next key of the
/// chain, the seed over no orders), with the forfeit's record; the game is
/// over, and its reports tell every side.
pub fn forfeit(
    dir: &Path,
    withheld: Withheld,
    since: Instant,
    span: Span,
    at: Instant,
    wait: Duration,
) -> Result<Progress> {
    let folder = GameFolder::open(dir)?;
    if folder.config.kind != FolderKind::Game || folder.config.dice.mode != crate::game::folder::DiceMode::Mutual {
        return Err(Error::usage(format!("{}: only a game in mutual mode is forfeited (DICE.md 7.4)", dir.display())));
    }
    let _lock = crate::game::recovery::lock(&folder, wait)?;
    if let Some((k, f)) = forfeited(&folder)? {
        return Err(Error::refused(format!("{}: {}", dir.display(), adjourned_words(k, &f))));
    }
    let deadline = since.plus(span);
    if at < deadline {
        return Err(Error::refused(format!("{}: the deadline {deadline} has not passed at {at}", dir.display())));
    }
    let journal = folder.journal();
    let rules = load_rules(&folder)?;
    let templates = crate::report::game::game_templates(&folder)?;
    let state = crate::game::load_state(&folder)?;
    let (k, previous) = journal.tail()?;
    let length = folder.config.dice.chain_length;
    if k >= length {
        return Err(Error::refused(format!("{}: the dice chain is used up ({} steps)", dir.display(), length - 1)));
    }
    let Some(w) = crate::game::mutual::waiting(&folder, rules, &state)? else {
        return Err(Error::refused(format!("{}: the game is over: nothing is owed", dir.display())));
    };
    let config = &folder.config;
    let (players, rolling_step, revealed, sealed) = match withheld {
        Withheld::Key => {
            if !w.sealed || !w.rolls || w.keys_owed.is_empty() {
                return Err(Error::refused(format!("{}: step {} owes no key", dir.display(), w.step)));
            }
            let mut revealed = Vec::new();
            for p in &config.dice.players {
                if !w.keys_owed.contains(&p.label) {
                    let key = crate::game::mutual::stored_key(&folder, w.rolling_step, &p.label)?.ok_or_else(|| {
                        Error::refused(format!(
                            "{}: the key p_{} of {} is gone",
                            dir.display(),
                            w.rolling_step,
                            p.label
                        ))
                    })?;
                    revealed.push(crate::game::journal::PlayerKeyRecord { label: p.label.clone(), key });
                }
            }
            (w.keys_owed.clone(), Some(w.rolling_step), revealed, w.sealed_hashes.clone())
        }
        Withheld::Orders | Withheld::Commitment => {
            let awaited = rules.awaited(state.as_ref());
            // Orders: the files committed to, once every commitment is in
            // (A11 (2)). Commitment: the sides with none in, at a step whose
            // defaults settle nothing (A11 (3)).
            let (owing, what) = if withheld == Withheld::Commitment {
                let held = rules.stand_in(state.as_ref()).is_some();
                (held.then_some(&w.commitments_owed), "no commitment at a step whose defaults settle nothing")
            } else {
                let complete =
                    w.commitments_owed.is_empty() && crate::game::mutual::needs_commitments(config, &awaited);
                (complete.then_some(&w.orders_owed), "no orders file that a side committed to")
            };
            let mut labels: Vec<String> =
                owing.into_iter().flatten().filter_map(|s| config.dice.label_of(s)).map(str::to_string).collect();
            labels.sort();
            labels.dedup();
            if labels.is_empty() {
                return Err(Error::refused(format!("{}: step {} owes {what}", dir.display(), w.step)));
            }
            (labels, None, Vec::new(), Vec::new())
        }
    };
    let mut sides: Vec<String> = config
        .dice
        .players
        .iter()
        .filter(|p| players.contains(&p.label))
        .flat_map(|p| p.sides().into_iter().map(str::to_string))
        .collect();
    sides.sort();
    let record = Forfeit {
        step: w.step.clone(),
        withheld: match withheld {
            Withheld::Key => "key".into(),
            Withheld::Orders => "orders".into(),
            Withheld::Commitment => "commitment".into(),
        },
        rolling_step,
        players,
        sides,
        revealed,
        sealed,
        since,
        span,
        deadline,
        at,
    };
    let (after, events) = forfeit_outcome(rules, &state, &record, k)?;
    let outcome = NoStep { correction: None, forfeit: Some(record), events, state: after };
    write_no_step(&folder, rules, &templates, &journal, (k, previous), outcome, &[])
}

/// What an entry that resolves no game step records: a correction (A10)
/// or a forfeit (A8), its events, and the state after it.
struct NoStep {
    correction: Option<Correction>,
    forfeit: Option<Forfeit>,
    events: Vec<Event>,
    state: State,
}

/// Write entry `k` (after `previous`) that resolves no game step
/// (docs/DICE.md A8, A10): the next referee key, §4's seed over no orders
/// files, no rolls; then, as [`write_steps`] writes any step, its
/// reports as a dispatch of their own (the steps no dispatch reports yet,
/// it the last of them: recovery.rs finishes one a kill left, the same),
/// and `stale` removed once it is committed.
fn write_no_step(
    folder: &GameFolder,
    rules: &dyn Rules,
    templates: &crate::report::templates::Templates,
    journal: &crate::game::journal::Journal,
    (k, previous): (u32, Option<Bytes32>),
    outcome: NoStep,
    stale: &[PathBuf],
) -> Result<Progress> {
    let NoStep { correction, forfeit, events, state } = outcome;
    let key = *folder
        .chain_keys_from(k, 1)?
        .first()
        .ok_or_else(|| Error::refused(format!("{}: the dice chain has no key for step {k}", folder.root.display())))?;
    let digest = orders_digest(&[])?;
    let seed = step_seed(&folder.config.game_id, k, &key, &digest, &[])?;
    let name = if correction.is_some() { "correction" } else { "forfeit" };
    let entry = JournalEntry {
        step: k,
        previous,
        orders: Vec::new(),
        orders_digest: digest,
        key,
        seed,
        commitments: Vec::new(),
        rolling_step: None,
        player_keys: Vec::new(),
        dice: Vec::new(),
        rolls: Vec::new(),
        game_step: None,
        correction,
        forfeit,
        events,
        state_sha256: Some(state.hash()),
        players_sha256: Some(crate::game::folder::players_sha256(&folder.config.players_at(k))),
    };
    let yaml = entry.to_yaml();
    folder.note_written(&entry, &yaml, Bytes32::sha256(yaml.as_bytes()));
    let resolved = vec![Resolved {
        journal_step: k,
        game_step: name.into(),
        orders: Vec::new(),
        key,
        events: entry.events.clone(),
        rolls: Vec::new(),
        state_sha256: state.hash(),
    }];
    let reported = reports::reported_through(folder, k - 1)?;
    let mut to_report = if reported + 1 < k { reports::entries(folder, reported + 1, k - 1)? } else { Vec::new() };
    to_report.push(entry.clone());
    let state = &state;
    let dispatch = || -> Result<Option<fsio::StagedDir>> {
        let steps = reports::Steps { folder, rules, templates, entries: &to_report, state };
        let files = steps.dispatch()?;
        reports::stage_dispatch_files(folder, reported + 1, k, &files).map(Some)
    };
    write_steps(
        folder,
        rules,
        state,
        journal,
        k,
        k,
        &[(entry, yaml)],
        &[],
        stale,
        (Vec::new(), Vec::new()),
        resolved,
        dispatch,
    )
}

/// The writes of [`resolve_game`]: the steps resolved (`entries`, their
/// `orders_files`), state.yaml, the inbox files they used; then the
/// reports `dispatch` gives, the steps standing whatever happens to them.
#[allow(clippy::too_many_arguments)]
fn write_steps(
    folder: &GameFolder,
    rules: &dyn Rules,
    state: &State,
    journal: &crate::game::journal::Journal,
    first_new: u32,
    last: u32,
    entries: &[(JournalEntry, String)],
    orders_files: &[(String, Vec<u8>)],
    used_inbox: &[PathBuf],
    (refused, blocked): (Vec<String>, Vec<Blocker>),
    resolved: Vec<Resolved>,
    dispatch: impl FnOnce() -> Result<Option<fsio::StagedDir>>,
) -> Result<Progress> {
    let marker = reports::read_pending_marker(folder)?;

    // Now the writes. Every file up to state.yaml is written first, each to
    // a temporary beside it; then each is put in place in an order whose
    // every prefix recovery.rs finishes or undoes. The marker says that
    // reports are to come, before the first step they are for is committed.
    let marker_text =
        (!entries.is_empty() && marker.is_none()).then(|| reports::pending_marker_text(first_new)).transpose()?;
    let state_yaml = (!entries.is_empty()).then(|| state.to_yaml()).transpose()?;
    let mut files: Vec<(PathBuf, &[u8])> = Vec::new();
    if let Some(text) = &marker_text {
        files.push((reports::pending_path(folder), text.as_bytes()));
    }
    let orders_at = files.len();
    files.extend(orders_files.iter().map(|(file, bytes)| (folder.root.join(file), bytes.as_slice())));
    let entries_at = files.len();
    files.extend(entries.iter().map(|(entry, yaml)| (journal.path(entry.step), yaml.as_bytes())));
    let state_at = files.len();
    if let Some(yaml) = &state_yaml {
        files.push((folder.root.join(STATE_FILE), yaml.as_bytes()));
    }
    let mut staged = fsio::Staged::write(&files)?;
    // The marker and the orders files are put in place before anything is
    // flushed: neither commits anything, and recovery.rs undoes either
    // without the other, by its name alone (an orders file no entry
    // records is removed, a marker of reports no step awaits too), so a
    // power cut that keeps a name and loses its bytes leaves nothing it
    // does not undo. Then one flush makes every file written and those
    // two folders durable together (one `syncfs` where there were two, one
    // after the other, issue 11), before the first entry is linked.
    let mut flush = Vec::new();
    if marker_text.is_some() {
        staged.rename(0)?;
        flush.push(folder.root.join(REPORTS_DIR));
    }
    for i in orders_at..entries_at {
        staged.link_new(i)?;
    }
    if entries_at > orders_at {
        flush.push(folder.root.join(ORDERS_DIR));
    }
    staged.flush(&flush)?;
    for (n, (entry, _)) in entries.iter().enumerate() {
        journal
            .append_staged(entry.step, &mut staged, entries_at + n)
            .map_err(|e| committed(e, first_new, entry.step))?;
    }
    // What follows the commit is not flushed folder by folder: each write
    // is one the next command redoes from the journal when a power cut
    // loses it (recovery.rs): state.yaml, flushed before its rename, is a
    // cache rebuilt when it is not the journal's last state; an inbox copy
    // of a resolved step is removed again; the marker is removed again
    // once a dispatch reports the journal's last step. A folder fsync each
    // would only make the next command's work smaller, at the cost of
    // every resolve's time.
    let mut finish = || -> Result<()> {
        if state_yaml.is_some() {
            staged.rename(state_at)?;
        }
        for path in used_inbox {
            std::fs::remove_file(path).map_err(|e| Error::io(path, e))?;
        }
        Ok(())
    };
    finish().map_err(|e| committed(e, first_new, last + 1))?;
    // The steps stand whatever happens to their reports: a failure (a full
    // disk) is reported with them, the marker stays, and the next resolve
    // writes the reports.
    let (reports, reports_failed) = match dispatch() {
        Ok(None) => (None, None),
        Ok(Some(staged)) => match staged.place() {
            Ok(path) => {
                let name = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
                (Some(format!("{REPORTS_DIR}/{name}")), None)
            }
            Err(e) => (None, Some(e.to_string())),
        },
        Err(e) => (None, Some(e.to_string())),
    };
    if reports_failed.is_none() && (marker.is_some() || !entries.is_empty()) {
        reports::remove_pending_marker(folder)?;
    }
    let awaiting = rules.awaited(state.as_ref());
    Ok(Progress {
        reports,
        reports_failed,
        resolved,
        next_step: state.next_step().map(|s| s.name),
        awaiting,
        owed: crate::game::inbox::owed(folder, rules, state)?,
        result: state.result(),
        refused,
        blocked,
    })
}

/// An error met after steps `first..upto` (exclusive) were committed: they
/// stand, and the next command finishes the rest.
fn committed(e: Error, first: u32, upto: u32) -> Error {
    if upto <= first {
        return e;
    }
    let steps = if upto - 1 == first {
        format!("step {first} is in the journal and stands")
    } else {
        format!("steps {first}-{} are in the journal and stand", upto - 1)
    };
    Error::usage(format!("{e} ({steps}; the next adjutant command on the folder finishes what is left)"))
}

/// DICE.md §6.4: replay a game's journal with the engine from the
/// scenario's set-up; the first entry whose game step, rolls, events or
/// state hash differ is named. Returns `Ok(None)` when all agree.
pub fn replay(folder: &GameFolder) -> Result<Option<(String, String)>> {
    let rules = load_rules(folder)?;
    replay_each(folder, rules, |_, _| Ok(()))
}

/// [`replay`], calling `each` with every entry and the state after it as
/// the replay goes (reports are rendered from those states). Stops at the
/// first discrepancy, which it returns.
pub fn replay_each(
    folder: &GameFolder,
    rules: &dyn Rules,
    mut each: impl FnMut(&JournalEntry, &State) -> Result<()>,
) -> Result<Option<(String, String)>> {
    replay_upto(folder, rules, u32::MAX, &mut each)
}

/// The event a correction entry records (`adjutant correct`): `names`
/// gives the game step of each journal step before it (index 0: step 1).
pub fn correction_events(correction: &Correction, step: u32, names: &[Option<String>]) -> Vec<crate::system::Event> {
    let r = correction.rewinds_to;
    if r + 1 == step {
        // docs/DICE.md A6: the awaited step's orders set aside, no step undone.
        return vec![crate::system::Event::new(
            "Correction",
            "correction",
            format!(
                "The referee sets aside the orders of the step the game awaits, which the rules refuse together: no \
                 journal step is undone; the step's commitments and orders files are removed, and every side it \
                 awaits commits and sends its orders again (DICE.md A6). Why: {}",
                correction.why
            ),
        )
        .with("rewinds_to", r)
        .with("why", &correction.why)];
    }
    let back = match r {
        0 => "the set-up".to_string(),
        _ => format!("journal step {r}, {}", names.get(r as usize - 1).cloned().flatten().unwrap_or_default()),
    };
    let undone = if r + 1 == step - 1 {
        format!("journal step {} no longer stands (it stays in the journal)", r + 1)
    } else {
        format!("journal steps {} to {} no longer stand (they stay in the journal)", r + 1, step - 1)
    };
    vec![crate::system::Event::new(
        "Correction",
        "correction",
        format!(
            "The referee corrects the game: it goes back to the state after {back}; {undone}. Why: {}",
            correction.why
        ),
    )
    .with("rewinds_to", r)
    .with("why", &correction.why)]
}

/// [`replay_each`], stopping after journal step `upto`.
fn replay_upto(
    folder: &GameFolder,
    rules: &dyn Rules,
    upto: u32,
    each: &mut dyn FnMut(&JournalEntry, &State) -> Result<()>,
) -> Result<Option<(String, String)>> {
    let mut state = rules.setup()?;
    let listing = folder.journal().list()?;
    // Each entry's game step, for a correction's words.
    let mut names: Vec<Option<String>> = Vec::new();
    // The step of a forfeit met: nothing may follow it.
    let mut adjourned: Option<u32> = None;
    for file in listing.entries.iter().take_while(|f| f.step <= upto) {
        let label = file.label.clone();
        let text = fsio::read_text(&file.path, &label)?;
        let entry: JournalEntry = folder.journal_entry(&label, &text).map_err(Error::Data)?;
        let fail = |message: String| Ok(Some((label.clone(), message)));
        if let Some(at) = adjourned {
            return fail(format!(
                "the game was adjourned by the forfeit of {}: no entry follows a forfeit (DICE.md 7.4)",
                crate::game::journal::label(at)
            ));
        }
        if let Some(f) = &entry.forfeit {
            // A forfeit (docs/DICE.md A8): the step is not resolved; the
            // system says what the forfeit means for victory.
            if !entry.orders.is_empty()
                || !entry.rolls.is_empty()
                || entry.game_step.is_some()
                || entry.correction.is_some()
            {
                return fail("a forfeit resolves no step: it has no orders, rolls, game step or correction".into());
            }
            let Some(step) = state.next_step() else {
                return fail("the game was over before this forfeit".into());
            };
            if f.step != step.name {
                return fail(format!("the forfeit names step {}, but the game was at step {}", f.step, step.name));
            }
            let (after, events) = match forfeit_outcome(rules, &state, f, entry.step) {
                Ok(done) => done,
                Err(e) => return fail(format!("the rules refuse the forfeit on replay: {e}")),
            };
            if events != entry.events {
                return fail("the forfeit's events are not the ones its record and the rules give".into());
            }
            if Some(after.hash()) != entry.state_sha256 {
                return fail("the state after the forfeit does not hash to the recorded value".into());
            }
            state = after;
            adjourned = Some(entry.step);
            names.push(None);
            each(&entry, &state)?;
            continue;
        }
        if let Some(correction) = &entry.correction {
            // A correction (docs/DICE.md A10): back to a state replayed again.
            if !entry.orders.is_empty() || !entry.rolls.is_empty() || entry.game_step.is_some() {
                return fail("a correction resolves no step: it has no orders, rolls or game step".into());
            }
            // Going back to the entry just before it undoes nothing: only a
            // mutual game's setting aside of the awaited step's orders (A6).
            let set_aside = correction.rewinds_to + 1 == entry.step
                && folder.config.dice.mode == crate::game::folder::DiceMode::Mutual;
            if correction.rewinds_to >= entry.step || (correction.rewinds_to + 1 == entry.step && !set_aside) {
                return fail(format!(
                    "a correction goes back to a step before the one before it, not to step {} (a mutual game's \
                     setting aside of the awaited step's orders goes back to the one before it)",
                    correction.rewinds_to
                ));
            }
            let mut back = match (set_aside, correction.rewinds_to) {
                (true, _) => Some(state.clone()),
                (false, 0) => Some(rules.setup()?),
                _ => None,
            };
            if back.is_none() {
                let failure = replay_upto(folder, rules, correction.rewinds_to, &mut |e, s| {
                    if e.step == correction.rewinds_to {
                        back = Some(s.clone());
                    }
                    Ok(())
                })?;
                if let Some(failure) = failure {
                    return Ok(Some(failure));
                }
            }
            let Some(mut back) = back else { return fail("the step it goes back to is not in the journal".into()) };
            if entry.events != correction_events(correction, entry.step, &names) {
                return fail("the correction's event is not the one its record gives".into());
            }
            back.set_resolved_steps(entry.step);
            if Some(back.hash()) != entry.state_sha256 {
                return fail("the state after the correction does not hash to the recorded value".into());
            }
            state = back;
            names.push(None);
            each(&entry, &state)?;
            continue;
        }
        names.push(entry.game_step.clone());
        let Some(step) = state.next_step() else {
            return fail("the game was over before this step".into());
        };
        if entry.game_step.as_deref() != Some(step.name.as_str()) {
            return fail(format!("records step {:?}, but the game was at step {}", entry.game_step, step.name));
        }
        let mut orders = Vec::new();
        let mut by_side = BTreeMap::new();
        for record in &entry.orders {
            let Some(path) = &record.file else { return fail("an orders record without its file".into()) };
            let bytes = fsio::read(&folder.root.join(path))?;
            let text = String::from_utf8(bytes.clone()).unwrap_or_default();
            match rules.check_header(&folder.config.game_id, state.as_ref(), path, &text) {
                Ok(c) if c.side == record.side => {
                    by_side.insert(c.side.clone(), c.body);
                }
                Ok(c) => return fail(format!("{path} is the orders of {}, recorded as {}", c.side, record.side)),
                Err(list) => {
                    return fail(format!("{path}: {}", list.first().map(|l| l.message.clone()).unwrap_or_default()))
                }
            }
            orders.push((record.side.clone(), bytes, path.clone()));
        }
        let (again, next) =
            match resolve_step(rules, &folder.config, entry.step, &entry.key, &state, &step, &orders, &by_side, &{
                crate::game::mutual::StepKeys {
                    commitments: entry.commitments.clone(),
                    rolling_step: entry.rolling_step,
                    player_keys: entry.player_keys.clone(),
                }
            }) {
                Ok(r) => r,
                Err(e) => return fail(format!("the engine refuses the step on replay: {e}")),
            };
        if again.rolls != entry.rolls {
            return fail("the replayed rolls differ from the journal's".into());
        }
        if again.events != entry.events {
            let n = again
                .events
                .iter()
                .zip(&entry.events)
                .position(|(a, b)| a != b)
                .unwrap_or(again.events.len().min(entry.events.len()));
            return fail(format!(
                "event {n} differs on replay: the engine says {:?}",
                again.events.get(n).map(|e| &e.text)
            ));
        }
        if again.state_sha256 != entry.state_sha256 {
            return fail("the state after the step does not hash to the recorded value".into());
        }
        state = next;
        each(&entry, &state)?;
    }
    Ok(None)
}

/// The state after journal step `last` (0: the set-up), replayed from the
/// scenario's set-up; refused when the journal does not replay.
pub fn state_after(folder: &GameFolder, rules: &dyn Rules, last: u32) -> Result<State> {
    let mut found = (last == 0).then(|| rules.setup()).transpose()?;
    let failure = replay_each(folder, rules, |entry, state| {
        if entry.step == last {
            found = Some(state.clone());
        }
        Ok(())
    })?;
    if let Some((entry, message)) = failure {
        return Err(Error::refused(format!("{entry}: {message} (run `adjutant verify`)")));
    }
    found.ok_or_else(|| Error::usage(format!("step {last}: the journal has no such step")))
}
