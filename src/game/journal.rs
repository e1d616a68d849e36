//! The journal: one file per resolved step (`journal/000001.yaml`, ...),
//! written once and never replaced. Each entry carries the SHA-256 of the
//! file before it, so that removing, reordering or editing an entry breaks
//! the entries after it; and each file must be exactly the canonical YAML of
//! its content, so that no byte of it can change unnoticed.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::base::dice::{Bytes32, Roll};
use crate::base::error::{Error, Result};
use crate::base::fsio::{self, TEMP_PREFIX};

/// One orders file consumed by a step (DICE.md §3): its side, the SHA-256 of
/// its exact bytes, and where those bytes are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OrdersRecord {
    pub side: String,
    pub sha256: Bytes32,
    /// The orders themselves, when they are a short text (a roll's purpose).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The orders file, relative to the game folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Default orders: `adjutant tick` wrote them for the side, not the
    /// side itself, when its deadline passed (src/game/deadline.rs); true
    /// exactly when the file's first line is tick's mark, which `verify`
    /// checks.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub default: bool,
    /// Orders written from standing orders that the rules trimmed to what
    /// the side holds: what was trimmed, as the file's `# trimmed:` lines
    /// say (src/game/standing.rs), which `verify` checks. Absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trimmed: Vec<String>,
}

/// DICE.md 7.6: a side's commitment to its orders file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Commitment {
    pub side: String,
    pub sha256: Bytes32,
}

/// DICE.md 7.2: a player's revealed key p_j, under his label.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerKeyRecord {
    pub label: String,
    pub key: Bytes32,
}

impl JournalEntry {
    /// The player keys as the seed takes them (DICE.md §4).
    pub fn seed_keys(&self) -> Vec<crate::base::dice::PlayerKey> {
        self.player_keys.iter().map(|p| crate::base::dice::PlayerKey { side: p.label.clone(), key: p.key }).collect()
    }
}

/// A correction's record: where the game goes back to, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Correction {
    /// The journal step whose state the game goes back to (0: the set-up).
    pub rewinds_to: u32,
    /// The referee's reason, in his words.
    pub why: String,
}

/// A forfeit's record (DICE.md 7.4, docs/DICE.md A8): the step the game
/// was adjourned at, who withheld what, and the clock decision that
/// made it (`adjutant tick`'s, recorded so that `verify` needs no clock).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Forfeit {
    /// The game step that could not be resolved, e.g. `17-allies-movement`.
    pub step: String,
    /// What was withheld: `key` (the step rolls and a key p_j was not in
    /// by the reveal deadline) or `orders` (a side committed to its
    /// orders file and did not send it by the orders deadline, A11).
    pub withheld: String,
    /// j, the rolling step whose keys were owed (`withheld: key`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rolling_step: Option<u32>,
    /// The labels of the players who withheld, sorted.
    pub players: Vec<String>,
    /// Their sides, sorted: the sides that forfeit.
    pub sides: Vec<String>,
    /// The keys p_j that were in (public once sent), by label.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub revealed: Vec<PlayerKeyRecord>,
    /// The hashes of the orders files that were in (`withheld: key`: the
    /// sealed step's, as published to every player).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sealed: Vec<Commitment>,
    /// When `tick` first saw what was owed due: the step sealed
    /// (`withheld: key`) or the step awaited (`withheld: orders`).
    pub since: crate::game::deadline::Instant,
    /// The span game.yaml's `deadlines:` gave (`reveal`, or the step's
    /// `after` plus `grace`).
    pub span: crate::game::deadline::Span,
    /// `since` plus `span`.
    pub deadline: crate::game::deadline::Instant,
    /// The time `tick` read when it recorded the forfeit (not before the
    /// deadline).
    pub at: crate::game::deadline::Instant,
}

/// One resolved step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JournalEntry {
    /// k: 1, 2, 3, ... with no gaps (DICE.md §2).
    pub step: u32,
    /// SHA-256 of the previous entry's file; absent for step 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous: Option<Bytes32>,
    pub orders: Vec<OrdersRecord>,
    pub orders_digest: Bytes32,
    /// The revealed key s_k.
    pub key: Bytes32,
    pub seed: Bytes32,
    /// Mutual mode (DICE.md 7.6): the commitment (SHA-256) each side sent
    /// for its orders file before any file of the step was accepted, when
    /// the step awaited more than one player.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub commitments: Vec<Commitment>,
    /// Mutual mode (DICE.md 7.2): j, this step's number among the steps
    /// that rolled (1, 2, ...); absent for a step that rolled no die.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rolling_step: Option<u32>,
    /// Mutual mode (DICE.md 7.2): every player's key p_j, by label, that
    /// the seed took.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub player_keys: Vec<PlayerKeyRecord>,
    /// The dice expressions asked for (roll logs only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dice: Vec<String>,
    pub rolls: Vec<Roll>,
    /// Games: the step of the sequence of play resolved, e.g. `16-allies-rally`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game_step: Option<String>,
    /// Games: a referee's correction (`adjutant correct`, docs/DICE.md
    /// A10): this entry resolves no step; the game goes back to the state
    /// after journal step `rewinds_to`, and the entries after that one and
    /// before this one no longer stand (they stay in the journal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correction: Option<Correction>,
    /// Games in mutual mode: a forfeit (DICE.md 7.4, docs/DICE.md A8):
    /// this entry resolves no step and rolls no die; the game is over
    /// (adjourned), and no entry follows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forfeit: Option<Forfeit>,
    /// Games: what happened, as the engine explained it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<crate::system::Event>,
    /// Games: the SHA-256 of the state after the step (DICE.md §6.4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_sha256: Option<Bytes32>,
    /// Games: the SHA-256 of game.yaml's players (sides, names, addresses)
    /// when the step was resolved (`folder::players_sha256`), so that a
    /// player's address changed without `adjutant player` is caught by
    /// `verify`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub players_sha256: Option<Bytes32>,
}

impl JournalEntry {
    /// The canonical bytes of the entry's file.
    pub fn to_yaml(&self) -> String {
        crate::base::yaml::to_string(self).expect("a JournalEntry always serialises")
    }

    /// The SHA-256 of the entry's file (its canonical bytes): what the next
    /// entry's `previous` carries, and the journal's *head* when it is the
    /// last entry (reports carry it; `verify --head` checks a folder
    /// against one a player kept).
    pub fn sha256(&self) -> Bytes32 {
        Bytes32::sha256(self.to_yaml().as_bytes())
    }
}

/// Read the text of a journal entry's file (`label` names it): the entry,
/// and whether the text is known to be exactly its canonical bytes. The
/// canonical text adjutant wrote reads fast (and is known then to be the
/// entry's canonical bytes); any other is read, and any problem located,
/// by the YAML crate (`verify` then compares it with the entry written
/// again).
pub fn parse_entry(label: &str, text: &str) -> std::result::Result<(JournalEntry, bool), crate::base::error::Located> {
    match crate::base::yaml::canonical::from_str(text) {
        Some(entry) => Ok((entry, true)),
        None => Ok((crate::base::yaml::parse(label, text)?, false)),
    }
}

/// An entry's file that could not be made because it exists, said so.
fn already_there(e: Error, step: u32) -> Error {
    match e {
        Error::Io { source, .. } if source.kind() == io::ErrorKind::AlreadyExists => Error::refused(format!(
            "{}: step {step} is already in the journal; an entry is never replaced",
            label(step)
        )),
        other => other,
    }
}

/// A file in the journal folder and the step its name claims.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryFile {
    pub step: u32,
    pub path: PathBuf,
    /// `journal/000001.yaml`: how reports and errors name it.
    pub label: String,
}

/// What is in the journal folder.
#[derive(Debug, Default)]
pub struct Listing {
    /// Entry files sorted by step.
    pub entries: Vec<EntryFile>,
    /// Files that are not journal entries (temporary files are not listed).
    pub foreign: Vec<String>,
}

pub struct Journal {
    dir: PathBuf,
}

pub fn file_name(step: u32) -> String {
    format!("{step:06}.yaml")
}

pub fn label(step: u32) -> String {
    format!("journal/{}", file_name(step))
}

fn step_of(name: &str) -> Option<u32> {
    let digits = name.strip_suffix(".yaml")?;
    if digits.len() < 6 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let step: u32 = digits.parse().ok()?;
    (file_name(step) == name).then_some(step)
}

impl Journal {
    pub fn new(dir: PathBuf) -> Self {
        Journal { dir }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The journal's files. A missing journal folder is an error: every game
    /// folder has one, even when empty.
    pub fn list(&self) -> Result<Listing> {
        let mut listing = Listing::default();
        let read = fs::read_dir(&self.dir).map_err(|e| Error::io(&self.dir, e))?;
        for item in read {
            let item = item.map_err(|e| Error::io(&self.dir, e))?;
            let name = item.file_name().to_string_lossy().into_owned();
            if name.starts_with(TEMP_PREFIX) {
                continue;
            }
            match step_of(&name) {
                Some(step) => listing.entries.push(EntryFile { step, path: item.path(), label: label(step) }),
                None => listing.foreign.push(format!("journal/{name}")),
            }
        }
        listing.entries.sort_by_key(|e| e.step);
        listing.foreign.sort();
        Ok(listing)
    }

    /// Append the entry for `entry.step`, which must not exist yet.
    pub fn append(&self, entry: &JournalEntry) -> Result<EntryFile> {
        self.append_canonical(entry, &entry.to_yaml())
    }

    /// [`Journal::append`], with the entry's canonical bytes already made
    /// (`yaml` must be [`JournalEntry::to_yaml`] of `entry`).
    pub fn append_canonical(&self, entry: &JournalEntry, yaml: &str) -> Result<EntryFile> {
        debug_assert_eq!(yaml, entry.to_yaml(), "the entry's canonical bytes");
        let path = self.dir.join(file_name(entry.step));
        fsio::write_new_atomic(&path, yaml.as_bytes()).map_err(|e| already_there(e, entry.step))?;
        Ok(EntryFile { step: entry.step, path, label: label(entry.step) })
    }

    /// The path of step `step`'s entry.
    pub fn path(&self, step: u32) -> PathBuf {
        self.dir.join(file_name(step))
    }

    /// [`Journal::append`] of an entry whose canonical bytes were written
    /// ahead, as file `i` of `staged` (at [`Journal::path`] of its step).
    pub fn append_staged(&self, step: u32, staged: &mut fsio::Staged, i: usize) -> Result<()> {
        staged.link_new(i).map_err(|e| already_there(e, step))?;
        fsio::sync_dir(&self.dir)
    }

    /// Where the next step goes: its number and the hash of the last entry.
    /// Refuses a journal that is not a clean run 1..n, so that nothing is
    /// ever appended to a damaged log.
    pub fn tail(&self) -> Result<(u32, Option<Bytes32>)> {
        let listing = self.list()?;
        if let Some(name) = listing.foreign.first() {
            return Err(Error::refused(format!(
                "{name}: not a journal entry; the journal holds only 000001.yaml, 000002.yaml, ... (run `adjutant verify`)"
            )));
        }
        for (i, entry) in listing.entries.iter().enumerate() {
            let expected = i as u32 + 1;
            if entry.step != expected {
                return Err(Error::refused(format!(
                    "{}: the journal skips from step {} to step {}; run `adjutant verify`",
                    entry.label,
                    expected - 1,
                    entry.step
                )));
            }
        }
        match listing.entries.last() {
            None => Ok((1, None)),
            Some(last) => {
                let bytes = fsio::read(&last.path)?;
                Ok((last.step + 1, Some(Bytes32::sha256(&bytes))))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_names_are_exact() {
        assert_eq!(step_of("000001.yaml"), Some(1));
        assert_eq!(step_of("1234567.yaml"), Some(1234567));
        for bad in ["1.yaml", "0000001.yaml", "000001.yml", "00000a.yaml", "000001.yaml~"] {
            assert_eq!(step_of(bad), None, "{bad}");
        }
    }
}
