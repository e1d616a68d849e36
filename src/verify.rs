//! `verify`: DICE.md §6 on a folder as published (no `.secret/` needed).
//!
//! Checks, in order, for each journal entry: its name and place in the
//! sequence, that its bytes are exactly the canonical YAML of its content,
//! the hash link to the entry before it, the revealed key against the chain
//! (§6.1), the orders hashes and digest (§6.2), the seed and every roll
//! (§6.3). The first failure is reported with the entry that holds it.
//! Then a game's steps are replayed through the rules engine (§6.4); a roll
//! log's steps are recomputed whole.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::Serialize;

use crate::dice::{key_follows, orders_digest, step_seed, Bytes32, DiceExpr, RollStream, SideHash};
use crate::error::Result;
use crate::folder::{FolderKind, GameFolder, STATE_FILE};
use crate::fsio;
use crate::journal::{JournalEntry, Listing};
use crate::roll_log::{self, PURPOSE_SIDE};

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
    pub failure: Option<Failure>,
}

/// Verify the folder at `dir`. `Err` means the folder could not be read at
/// all (no game.yaml, unreadable); a log that fails a check is `Ok` with a
/// failure in the verdict.
pub fn verify(dir: &Path) -> Result<Verdict> {
    let folder = GameFolder::open(dir)?;
    let listing = folder.journal().list()?;
    let mut verdict = Verdict {
        ok: true,
        game_id: folder.config.game_id.clone(),
        anchor: folder.config.dice.anchor,
        steps: 0,
        rolls: 0,
        failure: None,
    };
    if let Err(failure) = check_all(&folder, &listing, &mut verdict) {
        verdict.ok = false;
        verdict.failure = Some(failure);
    } else if folder.config.kind == FolderKind::Game {
        // §6.4: the dice hold; now every step must replay to the same events and state.
        let rules = crate::game::load_rules(&folder)?;
        let (dispatches, _) = crate::report::game::dispatches(&folder)?;
        let ends: BTreeSet<u32> = dispatches.iter().map(|d| d.last).collect();
        let mut states = BTreeMap::new();
        let scenario = folder.config.scenario.clone().unwrap_or_default();
        let mut last_state = crate::engine::state::State::setup(&rules.module, &scenario)?;
        let replayed = crate::play::replay_each(&folder, &rules, |entry, state| {
            if ends.contains(&entry.step) {
                states.insert(entry.step, state.clone());
            }
            last_state = state.clone();
            Ok(())
        })?;
        if let Some((entry, message)) = replayed {
            let step = entry.trim_start_matches("journal/").trim_end_matches(".yaml").parse().ok();
            verdict.ok = false;
            verdict.failure = Some(Failure { entry, step, check: Check::Replay, message });
        } else if let Some(message) = check_state_file(&folder, &last_state)? {
            verdict.ok = false;
            verdict.failure =
                Some(Failure { entry: STATE_FILE.to_string(), step: None, check: Check::Replay, message });
        } else if let Some((file, message)) =
            crate::report::game::check_dispatches(&folder, &rules, verdict.steps, &states)?
        {
            // The reports: each must be exactly what the journal gives.
            verdict.ok = false;
            verdict.failure = Some(Failure { entry: file, step: None, check: Check::Reports, message });
        }
    }
    Ok(verdict)
}

/// `state.yaml`, the cache of the game's current state, must be exactly the
/// state the replay ends in.
fn check_state_file(folder: &GameFolder, state: &crate::engine::state::State) -> Result<Option<String>> {
    let want = crate::yaml::to_string(state).map_err(|e| crate::error::Error::usage(e.to_string()))?;
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

fn check_all(folder: &GameFolder, listing: &Listing, verdict: &mut Verdict) -> Result<(), Failure> {
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
        if entry.to_yaml() != text {
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
                    crate::journal::label(expected - 1)
                ),
                _ => format!(
                    "the SHA-256 of {} is not the one this entry carries: that entry was changed",
                    crate::journal::label(expected - 1)
                ),
            };
            return Err(fail(label, step, Check::Previous, message));
        }
        // §6.1
        if !key_follows(&entry.key, &previous_key) {
            let what = if expected == 1 {
                "the anchor in game.yaml".to_string()
            } else {
                format!("the key of step {}", expected - 1)
            };
            return Err(fail(label, step, Check::Chain, format!("the revealed key does not hash to {what}")));
        }
        // §6.2
        let mut hashes = Vec::with_capacity(entry.orders.len());
        for (n, record) in entry.orders.iter().enumerate() {
            let actual = match (&record.text, &record.file) {
                (Some(text), None) => Bytes32::sha256(text.as_bytes()),
                (None, Some(path)) => {
                    let bytes = fsio::read(&folder.root.join(path))
                        .map_err(|e| fail(label, step, Check::Orders, format!("orders[{n}]: {e}")))?;
                    Bytes32::sha256(&bytes)
                }
                _ => {
                    return Err(fail(
                        label,
                        step,
                        Check::Orders,
                        format!("orders[{n}]: give either the text or the file of the orders"),
                    ))
                }
            };
            if actual != record.sha256 {
                return Err(fail(
                    label,
                    step,
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
        let digest = orders_digest(&hashes).map_err(|e| fail(label, step, Check::Orders, e.to_string()))?;
        if digest != entry.orders_digest {
            return Err(fail(label, step, Check::Orders, format!("orders_digest recomputes to {}", digest.to_hex())));
        }
        // §6.3
        let seed = step_seed(&folder.config.game_id, entry.step, &entry.key, &digest, &[])
            .map_err(|e| fail(label, step, Check::Seed, e.to_string()))?;
        if seed != entry.seed {
            return Err(fail(label, step, Check::Seed, format!("the seed recomputes to {}", seed.to_hex())));
        }
        let mut stream = RollStream::new(&seed);
        for (n, roll) in entry.rolls.iter().enumerate() {
            if roll.index as usize != n {
                return Err(fail(label, step, Check::Rolls, format!("roll {n} is numbered {}", roll.index)));
            }
            let value = stream.roll(roll.die);
            if value != roll.value {
                return Err(fail(
                    label,
                    step,
                    Check::Rolls,
                    format!(
                        "roll {n} ({}, {}) is logged as {} but the seed gives {value}",
                        roll.die, roll.purpose, roll.value
                    ),
                ));
            }
        }
        if folder.config.kind == FolderKind::RollLog {
            check_roll_step(folder, &entry).map_err(|message| fail(label, step, Check::Rolls, message))?;
        }
        verdict.steps = entry.step;
        verdict.rolls += entry.rolls.len() as u64;
        previous_key = entry.key;
        previous_hash = Some(Bytes32::sha256(&bytes));
    }
    Ok(())
}

/// A roll log's step is recomputed whole from its dice and purpose: this
/// catches a roll dropped, added or relabelled.
fn check_roll_step(folder: &GameFolder, entry: &JournalEntry) -> Result<(), String> {
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
    let expected =
        roll_log::resolve_step(&folder.config.game_id, entry.step, &entry.key, entry.previous, &dice, purpose)
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
