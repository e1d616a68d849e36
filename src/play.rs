//! Playing a game folder: resolving its steps into the journal, and
//! replaying the journal to verify it (DICE.md §6.4).
//!
//! Each resolved step is one journal entry: the orders files (copied into
//! `orders/` byte for byte), their digest, the revealed key, the seed, every
//! roll with its purpose, the engine's events and the hash of the state
//! after it. `state.yaml` is a cache of the last state; the journal is the
//! record.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use crate::dice::{chain_key, orders_digest, step_seed, Bytes32, SideHash, StepDice};
use crate::engine::orders::check_header;
use crate::engine::sequence::Step;
use crate::engine::state::State;
use crate::engine::{resolve, validate_body, Event, Rules};
use crate::error::{Error, Result};
use crate::folder::{FolderKind, GameFolder, ORDERS_DIR, REPORTS_DIR, STATE_FILE};
use crate::fsio;
use crate::game::load_rules;
use crate::journal::{JournalEntry, OrdersRecord};

/// One step resolved.
#[derive(Debug, Clone, Serialize)]
pub struct Resolved {
    pub journal_step: u32,
    pub game_step: String,
    pub orders: Vec<OrdersRecord>,
    pub key: Bytes32,
    pub events: Vec<Event>,
    pub rolls: Vec<crate::dice::Roll>,
    pub state_sha256: Bytes32,
}

/// What `resolve` did, and where the game stands.
#[derive(Debug, Clone, Serialize)]
pub struct Progress {
    pub resolved: Vec<Resolved>,
    /// The next step and the sides whose orders it awaits; absent when over.
    pub next_step: Option<String>,
    pub awaiting: Vec<String>,
    pub result: Option<crate::engine::victory::GameResult>,
    /// Submitted orders refused when their step came (`inbox/`): the step
    /// waits for replacements (`submit --replace`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<String>,
    /// The dispatch of reports written for the steps resolved
    /// (`reports/000003-000007`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reports: Option<String>,
    /// Why the reports could not be written (the steps stand; the next
    /// `resolve` writes them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reports_failed: Option<String>,
}

/// One orders file offered for resolution, checked.
struct Offered {
    side: String,
    step: Step,
    body: crate::yaml::Value,
    bytes: Vec<u8>,
}

/// The bodies of a step's orders, by side, from the files as stored.
fn bodies(offered: &[&Offered]) -> BTreeMap<String, crate::yaml::Value> {
    offered.iter().map(|o| (o.side.clone(), o.body.clone())).collect()
}

/// Resolve one step from its orders: the pure part that `resolve` and
/// `verify` share. Returns the entry (without `previous`) and the new state.
fn resolve_step(
    rules: &Rules,
    game_id: &str,
    journal_step: u32,
    key: &Bytes32,
    state: &State,
    step: &Step,
    orders: &[(String, Vec<u8>, String)],
    bodies: &BTreeMap<String, crate::yaml::Value>,
) -> Result<(JournalEntry, State)> {
    let hashes: Vec<SideHash> = orders.iter().map(|(side, bytes, _)| SideHash::of_bytes(side, bytes)).collect();
    let digest = orders_digest(&hashes)?;
    let seed = step_seed(game_id, journal_step, key, &digest, &[])?;
    let mut dice = StepDice::new(&seed);
    let mut done = resolve(rules, state, step, bodies, &mut dice)?;
    done.state.resolved_steps = journal_step;
    let records = orders
        .iter()
        .zip(&hashes)
        .map(|((side, _, file), h)| OrdersRecord {
            side: side.clone(),
            sha256: h.hash,
            text: None,
            file: Some(file.clone()),
        })
        .collect();
    let entry = JournalEntry {
        step: journal_step,
        previous: None,
        orders: records,
        orders_digest: digest,
        key: *key,
        seed,
        dice: Vec::new(),
        rolls: dice.into_log(),
        game_step: Some(step.name()),
        events: done.events,
        state_sha256: Some(done.state.hash()),
    };
    Ok((entry, done.state))
}

/// Resolve every step of the game at `dir` whose orders are in: the files
/// given (each checked against the step it names), the files submitted to
/// `inbox/` (checked when their step comes), standing orders for sides
/// that sent none (`standing/`), and none for steps that take no orders.
/// Stops at the first step that lacks someone's orders, or whose submitted
/// or standing orders fail their checks now (listed in `refused`). Files
/// given that fail their checks are refused and change nothing.
pub fn resolve_game(dir: &Path, files: &[PathBuf], wait: Duration) -> Result<Progress> {
    let folder = GameFolder::open(dir)?;
    if folder.config.kind != FolderKind::Game {
        return Err(Error::usage(format!("{}: a roll log; resolve plays games (see `adjutant new`)", dir.display())));
    }
    let _lock = folder.lock(wait)?;
    let journal = folder.journal();
    fsio::remove_stale_temps(journal.dir())?;
    fsio::remove_stale_temps(&folder.root.join(ORDERS_DIR))?;
    fsio::remove_stale_temps(&folder.root.join(REPORTS_DIR))?;
    let rules = load_rules(&folder)?;
    // The game's report templates are checked before anything is written,
    // so that the reports of the steps about to be resolved can be made.
    crate::report::game::game_templates(&folder)?;
    let top = folder.chain_top()?;
    let mut state = crate::game::load_state(&folder)?;
    let (mut k, mut previous) = journal.tail()?;
    if state.resolved_steps + 1 != k {
        return Err(Error::refused(format!(
            "{}: state.yaml says {} steps are resolved but the journal has {}; run `adjutant verify`",
            dir.display(),
            state.resolved_steps,
            k - 1
        )));
    }
    // Check every file first: all are valid, or nothing happens.
    let mut offered = Vec::new();
    let mut problems = Vec::new();
    for file in files {
        let label = file.display().to_string();
        let bytes = fsio::read(file)?;
        let text = String::from_utf8(bytes.clone()).map_err(|_| Error::refused(format!("{label}: not UTF-8 text")))?;
        match check_header(&rules, &folder.config.game_id, &state, &label, &text) {
            Err(list) => problems.extend(list.iter().map(|l| l.to_string())),
            Ok(c) => {
                let found = validate_body(&rules, &state, &c.step, &c.side, &c.body, &label, &text);
                problems.extend(found.iter().map(|l| l.to_string()));
                if offered.iter().any(|o: &Offered| o.side == c.side && o.step == c.step) {
                    problems.push(format!("{label}: a second orders file of {} for step {}", c.side, c.step.name()));
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
    crate::inbox::remove_used(&folder, &rules, &state)?;
    let inbox = crate::inbox::pending(&folder)?;
    while let Some(step) = state.next.clone() {
        let awaited = crate::engine::awaited(&rules, &state, &step);
        // Submitted files for this step, for sides no file given covers.
        let mut from_inbox = Vec::new();
        for p in inbox.iter().filter(|p| p.step == step.name()) {
            if offered.iter().any(|o| o.step == step && o.side == p.side) {
                continue;
            }
            let label = format!("{}/{}", crate::inbox::INBOX_DIR, crate::inbox::file_name(&p.step, &p.side));
            let text = String::from_utf8_lossy(&p.bytes).into_owned();
            match check_header(&rules, &folder.config.game_id, &state, &label, &text) {
                Err(list) => refused.extend(list.iter().map(|l| l.to_string())),
                Ok(c) => {
                    let found = validate_body(&rules, &state, &c.step, &c.side, &c.body, &label, &text);
                    refused.extend(found.iter().map(|l| l.to_string()));
                    from_inbox.push(Offered { side: c.side, step: c.step, body: c.body, bytes: p.bytes.clone() });
                }
            }
        }
        // Standing orders (src/standing.rs) of the awaited sides that sent none.
        let sent = |side: &String| {
            offered.iter().any(|o| o.step == step && &o.side == side)
                || inbox.iter().any(|p| p.step == step.name() && &p.side == side)
        };
        let missing: Vec<String> = awaited.iter().filter(|side| !sent(side)).cloned().collect();
        let standing = crate::standing::orders_for(&folder, &rules, &state, &step, &missing)?;
        refused.extend(standing.refused);
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
        if awaited.iter().any(|side| mine.iter().all(|o| &o.side != side)) {
            break;
        }
        if k >= length {
            return Err(Error::refused(format!("{}: the dice chain is used up ({} steps)", dir.display(), length - 1)));
        }
        let key = chain_key(&top, length, k)?;
        let orders: Vec<(String, Vec<u8>, String)> = mine
            .iter()
            .map(|o| (o.side.clone(), o.bytes.clone(), format!("{ORDERS_DIR}/{k:06}-{}.yaml", o.side)))
            .collect();
        let (mut entry, next) =
            resolve_step(&rules, &folder.config.game_id, k, &key, &state, &step, &orders, &bodies(&mine))?;
        entry.previous = previous;
        // The orders as received, then the entry, then the cached state.
        for (_, bytes, file) in &orders {
            fsio::write_new_atomic(&folder.root.join(file), bytes)?;
        }
        let written = journal.append(&entry)?;
        // The inbox's copies are now in orders/ and the journal.
        for p in inbox.iter().filter(|p| p.step == step.name()) {
            fsio::remove_file(&p.path)?;
        }
        state = next;
        let yaml = crate::yaml::to_string(&state).map_err(|e| Error::usage(e.to_string()))?;
        fsio::write_atomic(&folder.root.join(STATE_FILE), yaml.as_bytes())?;
        previous = Some(Bytes32::sha256(&fsio::read(&written.path)?));
        resolved.push(Resolved {
            journal_step: k,
            game_step: step.name(),
            orders: entry.orders.clone(),
            key,
            events: entry.events.clone(),
            rolls: entry.rolls.clone(),
            state_sha256: entry.state_sha256.unwrap_or(state.hash()),
        });
        k += 1;
    }
    // The players' reports of the steps just resolved (and of any a killed
    // `resolve` left without theirs). The steps stand whatever happens
    // here: a failure (a full disk) is reported with them, and the next
    // resolve writes the reports.
    let (reports, reports_failed) = match crate::report::game::write_pending(&folder, &rules, &state) {
        Ok(path) => {
            (path.map(|p| format!("{REPORTS_DIR}/{}", p.file_name().unwrap_or_default().to_string_lossy())), None)
        }
        Err(e) => (None, Some(e.to_string())),
    };
    let awaiting = state.next.as_ref().map(|s| crate::engine::awaited(&rules, &state, s)).unwrap_or_default();
    Ok(Progress {
        reports,
        reports_failed,
        resolved,
        next_step: state.next.as_ref().map(Step::name),
        awaiting,
        result: state.result.clone(),
        refused,
    })
}

/// DICE.md §6.4: replay a game's journal with the engine from the
/// scenario's set-up; the first entry whose game step, rolls, events or
/// state hash differ is named. Returns `Ok(None)` when all agree.
pub fn replay(folder: &GameFolder) -> Result<Option<(String, String)>> {
    let rules = load_rules(folder)?;
    replay_each(folder, &rules, |_, _| Ok(()))
}

/// [`replay`], calling `each` with every entry and the state after it as
/// the replay goes (reports are rendered from those states). Stops at the
/// first discrepancy, which it returns.
pub fn replay_each(
    folder: &GameFolder,
    rules: &Rules,
    mut each: impl FnMut(&JournalEntry, &State) -> Result<()>,
) -> Result<Option<(String, String)>> {
    let scenario = folder.config.scenario.clone().unwrap_or_default();
    let mut state = State::setup(&rules.module, &scenario)?;
    let listing = folder.journal().list()?;
    for file in &listing.entries {
        let label = file.label.clone();
        let text = fsio::read_text(&file.path, &label)?;
        let entry: JournalEntry = folder.journal_entry(&label, &text).map_err(Error::Data)?;
        let fail = |message: String| Ok(Some((label.clone(), message)));
        let Some(step) = state.next.clone() else {
            return fail("the game was over before this step".into());
        };
        if entry.game_step.as_deref() != Some(step.name().as_str()) {
            return fail(format!("records step {:?}, but the game was at step {}", entry.game_step, step.name()));
        }
        let mut orders = Vec::new();
        let mut by_side = BTreeMap::new();
        for record in &entry.orders {
            let Some(path) = &record.file else { return fail("an orders record without its file".into()) };
            let bytes = fsio::read(&folder.root.join(path))?;
            let text = String::from_utf8(bytes.clone()).unwrap_or_default();
            match check_header(rules, &folder.config.game_id, &state, path, &text) {
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
            match resolve_step(rules, &folder.config.game_id, entry.step, &entry.key, &state, &step, &orders, &by_side)
            {
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
pub fn state_after(folder: &GameFolder, rules: &Rules, last: u32) -> Result<State> {
    let scenario = folder.config.scenario.clone().unwrap_or_default();
    let mut found = (last == 0).then(|| State::setup(&rules.module, &scenario)).transpose()?;
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
