//! A game folder (PRODUCT.md, "The shape of a game"):
//!
//! ```text
//! mygame/
//!   game.yaml      game id, module, scenario, players, dice anchor
//!   journal/       append-only, one file per resolved step
//!   orders/        orders files as received
//!   reports/       each step's reports
//!   .secret/       the referee's chain top (mode 0600; never published)
//!   .lock          held by the command working on the folder
//! ```
//!
//! A roll log (`adjutant roll init`) is the same folder with `kind: roll-log`
//! and no module.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::base::dice::{chain_key, Bytes32};
use crate::base::error::{Error, Located, Result};
use crate::base::fsio::{self, TEMP_PREFIX};
use crate::game::journal::Journal;

pub const GAME_FILE: &str = "game.yaml";
pub const SECRET_DIR: &str = ".secret";
pub const CHAIN_TOP_FILE: &str = "chain-top";
pub const JOURNAL_DIR: &str = "journal";
pub const ORDERS_DIR: &str = "orders";
pub const REPORTS_DIR: &str = "reports";
/// The current state: a cache of the journal's last state (PRODUCT.md).
pub const STATE_FILE: &str = "state.yaml";

/// The version of `game.yaml`'s layout.
pub const FORMAT_VERSION: u32 = 1;
/// The version of DICE.md this folder's dice follow.
pub const DICE_PROTOCOL: u32 = 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FolderKind {
    /// A game of a module, advanced by the rules engine.
    Game,
    /// A log of ad hoc verifiable rolls (`adjutant roll`).
    RollLog,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DiceMode {
    /// DICE.md §1-§6: the referee's chain alone.
    Referee,
    /// DICE.md §7: every player's chain too, so that a referee who plays
    /// cannot foresee a roll.
    Mutual,
}

impl DiceMode {
    pub fn is_referee(&self) -> bool {
        *self == DiceMode::Referee
    }
}

/// `game.yaml`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameConfig {
    /// Layout version of this file.
    pub adjutant: u32,
    pub game_id: String,
    pub kind: FolderKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub module: Option<String>,
    /// A module read from a folder (`new ./my-copy ...`): where it is,
    /// and the SHA-256 of each of its files when the game began. Absent
    /// for an embedded module.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub module_folder: Option<ModuleFolder>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub players: Vec<Player>,
    pub dice: DiceConfig,
    /// How `mail` sends the reports and `submit --email --reply` its
    /// answers (mail.rs). Never a password: only where to read one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mail: Option<crate::mail::MailSettings>,
    /// How a message's sender is proven before its orders are taken
    /// (src/mail/auth.rs); absent: the From: header alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub senders: Option<crate::mail::auth::Senders>,
    /// When orders are due and what `tick` does for a side that misses a
    /// deadline (src/game/deadline.rs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadlines: Option<crate::game::deadline::Deadlines>,
    /// Every change of a player made with `adjutant player`, oldest first:
    /// what `verify` needs to know the players in effect at each step,
    /// which each journal entry binds (`players_sha256`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub player_changes: Vec<PlayerChange>,
    /// A copy made by `adjutant publish` (publish.rs): no addresses, no
    /// mail settings; only `verify` reads it, no command writes it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub published: bool,
}

/// game.yaml's `module_folder`: the module folder a game was begun with,
/// which every command that loads the game's module reads again and
/// checks file by file against the hashes recorded here.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModuleFolder {
    /// The folder's absolute path, as `new` found it.
    pub path: String,
    /// Every file of the folder adjutant reads (each `.yaml` file, by its
    /// path in the folder, sorted) and its SHA-256.
    pub sha256: BTreeMap<String, Bytes32>,
}

/// What a new game folder plays ([`GameFolder::create_new`]): its module
/// (and, for a module folder, where it is and its files' hashes) and
/// scenario.
#[derive(Debug, Clone)]
pub struct GameOf {
    pub module: String,
    pub module_folder: Option<ModuleFolder>,
    pub scenario: String,
}

/// A change of a side's player (`adjutant player`), after a step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerChange {
    /// The journal's last step when the change was made: steps up to it
    /// were resolved with the player as he was before.
    pub after_step: u32,
    pub side: String,
    /// The player as he was: name and address (absent: the side had no
    /// player).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub was: Option<PlayerWas>,
}

/// A player's name and address before a change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerWas {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
}

/// The SHA-256 of a list of players as a journal entry binds it: of their
/// canonical YAML (side, name, email), sorted by side.
///
/// `verify` asks it for every step, of the same players mostly: the last
/// list hashed is remembered (per process), with its hash.
pub fn players_sha256(players: &[Player]) -> Bytes32 {
    static LAST: std::sync::Mutex<Option<(Vec<Player>, Bytes32)>> = std::sync::Mutex::new(None);
    let mut sorted = players.to_vec();
    sorted.sort_by(|a, b| a.side.cmp(&b.side));
    if let Ok(last) = LAST.lock() {
        if let Some((_, sha256)) = last.as_ref().filter(|(seen, _)| *seen == sorted) {
            return *sha256;
        }
    }
    let yaml = crate::base::yaml::to_string(&sorted).expect("players always serialise");
    let sha256 = Bytes32::sha256(yaml.as_bytes());
    if let Ok(mut last) = LAST.lock() {
        *last = Some((sorted, sha256));
    }
    sha256
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Player {
    pub side: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiceConfig {
    pub protocol: u32,
    pub mode: DiceMode,
    /// N: the chain has keys s_0 (the anchor) to s_N (the secret top);
    /// steps 1 to N-1 may be resolved, so that s_N is never revealed.
    pub chain_length: u32,
    pub anchor: Bytes32,
    /// Mutual mode (DICE.md §7.1): each player's chain, by label.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub players: Vec<PlayerChain>,
}

/// DICE.md §7.1: a player's chain in mutual mode: his label (the sides he
/// holds, sorted and joined with `+`), his anchor p_0 and his chain's
/// length M (rolling steps 1..M-1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerChain {
    pub label: String,
    pub anchor: Bytes32,
    pub chain_length: u32,
}

impl PlayerChain {
    /// The sides the label names.
    pub fn sides(&self) -> Vec<&str> {
        self.label.split('+').collect()
    }
}

impl DiceConfig {
    /// The label of the player who holds `side` (mutual mode).
    pub fn label_of(&self, side: &str) -> Option<&str> {
        self.players.iter().find(|p| p.sides().contains(&side)).map(|p| p.label.as_str())
    }
}

/// A label (DICE.md §7.1) as given: its sides, each a side of the game
/// (`sides`), sorted as bytes without repeats, joined with `+`.
pub fn check_label(label: &str, sides: &[String]) -> Result<()> {
    let parts: Vec<&str> = label.split('+').collect();
    for part in &parts {
        if !sides.iter().any(|s| s == part) {
            return Err(Error::usage(format!(
                "label '{}': '{}' is not a side of the game; the sides are {}",
                crate::base::error::echo(label),
                crate::base::error::echo(part),
                sides.join(", ")
            )));
        }
    }
    let canonical = crate::base::dice::player_label(&parts);
    if canonical != label {
        return Err(Error::usage(format!(
            "label '{}': write the sides sorted, each once, joined with '+': {canonical} (DICE.md 7.1)",
            crate::base::error::echo(label)
        )));
    }
    Ok(())
}

/// A roller's label in a roll log in mutual mode (DICE.md 7.7): a name of
/// 1 to 64 letters, digits, '-', '_' or '.'.
pub fn check_roller_label(label: &str) -> Result<()> {
    check_game_id(label).map_err(|_| {
        Error::usage(format!(
            "label '{}': use 1 to 64 letters, digits, '-', '_' or '.'",
            crate::base::error::echo(label)
        ))
    })
}

/// Shortest and longest chains `new` and `roll init` accept.
pub const MIN_CHAIN_LENGTH: u32 = 2;
pub const MAX_CHAIN_LENGTH: u32 = 1_000_000;

/// A game id: what the seed binds every roll to (DICE.md §4).
pub fn check_game_id(id: &str) -> Result<()> {
    let ok = !id.is_empty()
        && id.len() <= 64
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
        && !id.starts_with('.');
    if ok {
        Ok(())
    } else {
        Err(Error::usage(format!(
            "game id '{id}': use 1 to 64 letters, digits, '-', '_' or '.', not starting with '.'"
        )))
    }
}

pub fn check_chain_length(n: u32) -> Result<()> {
    if (MIN_CHAIN_LENGTH..=MAX_CHAIN_LENGTH).contains(&n) {
        Ok(())
    } else {
        Err(Error::usage(format!(
            "chain length {n}: choose {MIN_CHAIN_LENGTH} to {MAX_CHAIN_LENGTH} (it bounds the number of steps)"
        )))
    }
}

impl GameConfig {
    fn check(&self) -> std::result::Result<(), Located> {
        let located = |field: &str, message: String| Located {
            file: GAME_FILE.to_string(),
            line: None,
            column: None,
            field: field.to_string(),
            message,
            code: None,
        };
        if self.adjutant != FORMAT_VERSION {
            return Err(located(
                "adjutant",
                format!("this is layout version {}, but this adjutant reads version {FORMAT_VERSION}", self.adjutant),
            ));
        }
        if self.dice.protocol != DICE_PROTOCOL {
            return Err(located(
                "dice.protocol",
                format!(
                    "dice protocol {} is unknown; this adjutant follows protocol {DICE_PROTOCOL}",
                    self.dice.protocol
                ),
            ));
        }
        check_game_id(&self.game_id).map_err(|e| located("game_id", e.to_string()))?;
        check_chain_length(self.dice.chain_length).map_err(|e| located("dice.chain_length", e.to_string()))?;
        match self.dice.mode {
            DiceMode::Referee if !self.dice.players.is_empty() => {
                return Err(located("dice.players", "players' chains are for mutual mode (dice.mode: mutual)".into()))
            }
            _ => {}
        }
        for (i, p) in self.dice.players.iter().enumerate() {
            check_chain_length(p.chain_length)
                .map_err(|e| located(&format!("dice.players[{i}].chain_length"), e.to_string()))?;
            let sides = p.sides();
            let taken = self.dice.players[..i].iter().flat_map(|q| q.sides()).find(|s| sides.contains(s));
            if let Some(side) = taken {
                return Err(located(&format!("dice.players[{i}].label"), format!("side {side} has two players")));
            }
        }
        match (self.kind, &self.module) {
            (FolderKind::Game, None) => Err(located("module", "a game names its module".into())),
            (FolderKind::RollLog, Some(_)) => Err(located("module", "a roll log has no module".into())),
            _ => Ok(()),
        }
    }

    /// The players as they were when journal step `step` was resolved:
    /// today's, with every change made after that step undone.
    pub fn players_at(&self, step: u32) -> Vec<Player> {
        let mut players = self.players.clone();
        for change in self.player_changes.iter().rev().filter(|c| c.after_step >= step) {
            let at = players.iter().position(|p| p.side == change.side);
            match (&change.was, at) {
                (Some(was), Some(i)) => {
                    players[i].name = was.name.clone();
                    players[i].email = was.email.clone();
                }
                (Some(was), None) => {
                    players.push(Player { side: change.side.clone(), name: was.name.clone(), email: was.email.clone() })
                }
                (None, Some(i)) => {
                    players.remove(i);
                }
                (None, None) => {}
            }
        }
        players
    }

    pub fn to_yaml(&self) -> String {
        let body = crate::base::yaml::to_string(self).expect("a GameConfig always serialises");
        format!("# adjutant game folder: see `man adjutant`. Never publish the .secret folder.\n{body}")
    }
}

/// An opened game folder.
#[derive(Debug, Clone)]
pub struct GameFolder {
    pub root: PathBuf,
    pub config: GameConfig,
    /// Journal entries already parsed, by label, with the text they were
    /// parsed from ([`GameFolder::journal_entry`]).
    parsed: std::sync::Arc<std::sync::Mutex<BTreeMap<String, ParsedEntry>>>,
    /// `state.yaml` as last parsed, with the text it was parsed from
    /// ([`GameFolder::state_from`]).
    state: std::sync::Arc<std::sync::Mutex<Option<(String, crate::system::State)>>>,
    /// The rules of the game's module and scenario, loaded at first use
    /// ([`GameFolder::rules`]).
    rules: std::sync::Arc<std::sync::OnceLock<LoadedRules>>,
}

/// A game's rules as [`GameFolder::rules`] keeps them.
#[derive(Debug)]
enum LoadedRules {
    /// An embedded module's: loaded once per process and kept for its
    /// whole life (never dropped: freeing them at the end of a short
    /// command cost a tenth of it).
    Kept(&'static dyn crate::system::Rules),
    /// A module folder's, this folder's own.
    Owned(Box<dyn crate::system::Rules>),
}

impl LoadedRules {
    fn get(&self) -> &dyn crate::system::Rules {
        match self {
            LoadedRules::Kept(rules) => *rules,
            LoadedRules::Owned(rules) => rules.as_ref(),
        }
    }
}

/// The rules of the embedded module `id` and `scenario`, loaded at their
/// first use in the process and kept.
fn embedded_rules(
    id: &str,
    scenario: &str,
    files: &crate::system::ModuleFiles,
) -> Result<&'static dyn crate::system::Rules> {
    type Kept = Vec<((String, String), &'static dyn crate::system::Rules)>;
    static KEPT: std::sync::Mutex<Kept> = std::sync::Mutex::new(Vec::new());
    let key = (id.to_string(), scenario.to_string());
    if let Some(rules) = KEPT.lock().ok().and_then(|kept| kept.iter().find(|(k, _)| *k == key).map(|(_, r)| *r)) {
        return Ok(rules);
    }
    let loaded: &'static dyn crate::system::Rules =
        Box::leak(crate::game::modules::system_of_files(files)?.load(files, scenario)?);
    let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
    // Another thread may have loaded them meanwhile: the first kept is used.
    if let Some((_, rules)) = kept.iter().find(|(k, _)| *k == key) {
        return Ok(*rules);
    }
    kept.push((key, loaded));
    Ok(loaded)
}

/// A journal entry as parsed from its file's text, and the SHA-256 of that
/// text once it is known to be the entry's canonical bytes.
#[derive(Debug)]
struct ParsedEntry {
    text: String,
    entry: crate::game::journal::JournalEntry,
    /// The text is known to be the entry's canonical bytes.
    canonical: bool,
    canonical_sha256: Option<Bytes32>,
}

/// A fresh chain top from the operating system's CSPRNG (DICE.md §1).
pub fn new_chain_top() -> Result<Bytes32> {
    let mut top = [0u8; 32];
    getrandom::fill(&mut top)
        .map_err(|e| Error::io("the operating system's random source", io::Error::other(e.to_string())))?;
    Ok(Bytes32(top))
}

impl GameFolder {
    /// Open an existing folder, checking `game.yaml`.
    pub fn open(root: &Path) -> Result<Self> {
        match fs::metadata(root) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => return Err(Error::usage(format!("{}: not a folder", root.display()))),
            Err(e) => return Err(Error::io(root, e)),
        }
        let path = root.join(GAME_FILE);
        if !path.exists() {
            return Err(Error::usage(format!(
                "{}: not a game folder (it has no {GAME_FILE}); make one with `adjutant new` or `adjutant roll init`",
                root.display()
            )));
        }
        let label = path.display().to_string();
        let text = fsio::read_text(&path, &label)?;
        let config: GameConfig = crate::base::yaml::parse(&label, &text).map_err(Error::Data)?;
        config.check().map_err(|mut e| {
            e.file = label.clone();
            Error::Data(e)
        })?;
        Ok(GameFolder {
            root: root.to_path_buf(),
            config,
            parsed: Default::default(),
            state: Default::default(),
            rules: Default::default(),
        })
    }

    /// The journal entry that `text`, the file `label` of this folder's
    /// journal, holds. `verify` reads every entry three times (the chain,
    /// the replay, the reports): each text is parsed once.
    pub fn journal_entry(
        &self,
        label: &str,
        text: &str,
    ) -> std::result::Result<crate::game::journal::JournalEntry, Located> {
        if let Ok(parsed) = self.parsed.lock() {
            if let Some(seen) = parsed.get(label).filter(|seen| seen.text == text) {
                return Ok(seen.entry.clone());
            }
        }
        let (entry, canonical) = crate::game::journal::parse_entry(label, text)?;
        if let Ok(mut parsed) = self.parsed.lock() {
            let seen = ParsedEntry { text: text.to_string(), entry: entry.clone(), canonical, canonical_sha256: None };
            parsed.insert(label.to_string(), seen);
        }
        Ok(entry)
    }

    /// Whether `text`, the file `label` of the journal, was found to be
    /// exactly the canonical bytes of the entry it holds when it was read
    /// ([`GameFolder::journal_entry`]); `false` when not known.
    pub fn read_canonical(&self, label: &str, text: &str) -> bool {
        self.parsed.lock().is_ok_and(|parsed| parsed.get(label).is_some_and(|seen| seen.canonical && seen.text == text))
    }

    /// Note that `text`, the file `label` of the journal, is exactly the
    /// canonical bytes of the entry it holds (`verify` checked it), with the
    /// SHA-256 `sha256`: [`GameFolder::entry_sha256`] then needs not
    /// serialise that entry again.
    pub fn note_canonical(&self, label: &str, text: &str, sha256: Bytes32) {
        if let Ok(mut parsed) = self.parsed.lock() {
            if let Some(seen) = parsed.get_mut(label).filter(|seen| seen.text == text) {
                seen.canonical_sha256 = Some(sha256);
            }
        }
    }

    /// Note that `text` is the canonical bytes of `entry` (`resolve` made
    /// them to write the entry), with the SHA-256 `sha256`.
    pub fn note_written(&self, entry: &crate::game::journal::JournalEntry, text: &str, sha256: Bytes32) {
        if let Ok(mut parsed) = self.parsed.lock() {
            let seen = ParsedEntry {
                text: text.to_string(),
                entry: entry.clone(),
                canonical: true,
                canonical_sha256: Some(sha256),
            };
            parsed.insert(crate::game::journal::label(entry.step), seen);
        }
    }

    /// The SHA-256 of `entry`'s canonical bytes ([`JournalEntry::sha256`]):
    /// that of its file when the file was found canonical and holds this
    /// very entry, computed otherwise.
    ///
    /// [`JournalEntry::sha256`]: crate::game::journal::JournalEntry::sha256
    pub fn entry_sha256(&self, entry: &crate::game::journal::JournalEntry) -> Bytes32 {
        if let Ok(parsed) = self.parsed.lock() {
            let known = parsed.get(&crate::game::journal::label(entry.step)).filter(|seen| &seen.entry == entry);
            if let Some(sha256) = known.and_then(|seen| seen.canonical_sha256) {
                return sha256;
            }
        }
        entry.sha256()
    }

    /// The state that `text`, this folder's `state.yaml` (named `label`),
    /// holds. A command reads state.yaml when it takes the folder's lock
    /// (recovery.rs checks it against the journal) and again for its own
    /// work: the same text is parsed once.
    pub fn state_from(&self, label: &str, text: &str) -> Result<crate::system::State> {
        if let Ok(cached) = self.state.lock() {
            if let Some((_, state)) = cached.as_ref().filter(|(seen, _)| seen == text) {
                return Ok(state.clone());
            }
        }
        let state = self.rules()?.read_state(label, text).map_err(Error::Data)?;
        if let Ok(mut cached) = self.state.lock() {
            *cached = Some((text.to_string(), state.clone()));
        }
        Ok(state)
    }

    /// The files of the game's module: an embedded module's, or those of
    /// the folder game.yaml's `module_folder` names, read again and checked
    /// against the SHA-256 of each file recorded when the game began. A
    /// file changed, gone or added since is refused (exit 1), named: the
    /// game's rules would no longer be those it was played by.
    pub fn module_files(&self) -> Result<crate::system::ModuleFiles> {
        let Some(module) = &self.config.module else {
            return Err(Error::usage(format!("{}: a roll log, not a game", self.root.display())));
        };
        let Some(folder) = &self.config.module_folder else {
            return Ok(crate::system::ModuleFiles::embedded(module));
        };
        // A published copy holds the module's files in its own `module/`.
        let path = match Path::new(&folder.path) {
            p if p.is_relative() => self.root.join(p),
            p => p.to_path_buf(),
        };
        let files = crate::system::ModuleFiles::read_folder(&path)?;
        let now = files.sha256s();
        let named = |file: &str| path.join(file).display().to_string();
        for (file, recorded) in &folder.sha256 {
            match now.get(file) {
                Some(sha) if sha == recorded => {}
                Some(sha) => {
                    return Err(Error::refused(format!(
                        "{}: changed since the game began (SHA-256 {}, game.yaml recorded {}); the game's module \
                         files must stay as they were",
                        named(file),
                        sha.to_hex(),
                        recorded.to_hex()
                    )))
                }
                None => {
                    return Err(Error::refused(format!(
                        "{}: gone since the game began (game.yaml records its SHA-256 {}); the game's module files \
                         must stay as they were",
                        named(file),
                        recorded.to_hex()
                    )))
                }
            }
        }
        if let Some(added) = now.keys().find(|f| !folder.sha256.contains_key(*f)) {
            return Err(Error::refused(format!(
                "{}: added to the module folder since the game began (game.yaml records no such file); the game's \
                 module files must stay as they were",
                named(added)
            )));
        }
        Ok(files)
    }

    /// The system the game's module names (`system.rs`'s registry).
    pub fn system(&self) -> Result<&'static dyn crate::system::System> {
        crate::game::modules::system_of_files(&self.module_files()?)
    }

    /// The game module's module.yaml (its sides and scenarios).
    pub fn module_info(&self) -> Result<crate::system::ModuleInfo> {
        crate::game::modules::info_of(&self.module_files()?)
    }

    /// The rules of the game's module and scenario, from the system its
    /// module names (`system.rs`'s registry); loaded once per process.
    pub fn rules(&self) -> Result<&dyn crate::system::Rules> {
        if let Some(rules) = self.rules.get() {
            return Ok(rules.get());
        }
        let (Some(_), Some(scenario)) = (&self.config.module, &self.config.scenario) else {
            return Err(Error::usage(format!("{}: a roll log, not a game", self.root.display())));
        };
        let files = self.module_files()?;
        let loaded = match files.embedded_id() {
            Some(id) => LoadedRules::Kept(embedded_rules(id, scenario, &files)?),
            None => LoadedRules::Owned(crate::game::modules::system_of_files(&files)?.load(&files, scenario)?),
        };
        Ok(self.rules.get_or_init(|| loaded).get())
    }

    /// The rules, when they are kept for the whole process (an embedded
    /// module's, once [`GameFolder::rules`] has loaded them).
    pub fn kept_rules(&self) -> Option<&'static dyn crate::system::Rules> {
        match self.rules.get()? {
            LoadedRules::Kept(rules) => Some(*rules),
            LoadedRules::Owned(_) => None,
        }
    }

    /// Create a new folder at `root` holding `config` and the secret `top`.
    /// The folder appears whole or not at all: it is built under a temporary
    /// name beside `root` and renamed into place.
    pub fn create(root: &Path, config: GameConfig, top: &Bytes32) -> Result<Self> {
        Self::create_with(root, config, top, &[])
    }

    /// As [`GameFolder::create`], with more files (name, bytes) written into
    /// the folder before it appears.
    pub fn create_with(root: &Path, config: GameConfig, top: &Bytes32, extra: &[(&str, Vec<u8>)]) -> Result<Self> {
        config.check().map_err(Error::Data)?;
        if chain_key(top, config.dice.chain_length, 0)? != config.dice.anchor {
            return Err(Error::usage("the anchor in the new game.yaml does not come from its chain top"));
        }
        match fs::read_dir(root) {
            Ok(mut entries) => {
                if entries.next().is_some() {
                    return Err(Error::usage(format!(
                        "{}: already exists and is not empty; choose a new folder",
                        root.display()
                    )));
                }
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(root, e)),
        }
        let name = root
            .file_name()
            .ok_or_else(|| Error::usage(format!("{}: not a folder name", root.display())))?
            .to_string_lossy()
            .into_owned();
        let parent = match root.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let temp = parent.join(format!("{TEMP_PREFIX}{}-{name}", std::process::id()));
        let built = Self::build(&temp, &config, top, extra).and_then(|()| {
            fs::rename(&temp, root).map_err(|e| Error::io(root, e))?;
            fsio::sync_dir(&parent)
        });
        if let Err(e) = built {
            let _ = fs::remove_dir_all(&temp);
            return Err(e);
        }
        Ok(GameFolder {
            root: root.to_path_buf(),
            config,
            parsed: Default::default(),
            state: Default::default(),
            rules: Default::default(),
        })
    }

    /// Create a new folder at `root` with a fresh key chain: a game of a
    /// module (`game`: its module and scenario) or, without one, a roll log.
    pub fn create_new(
        root: &Path,
        game_id: &str,
        game: Option<GameOf>,
        players: Vec<Player>,
        chain_length: u32,
        mutual: Option<Vec<PlayerChain>>,
        extra: &[(&str, Vec<u8>)],
    ) -> Result<Self> {
        check_game_id(game_id)?;
        check_chain_length(chain_length)?;
        let top = new_chain_top()?;
        let anchor = chain_key(&top, chain_length, 0)?;
        let kind = if game.is_some() { FolderKind::Game } else { FolderKind::RollLog };
        let (module, module_folder, scenario) = match game {
            Some(g) => (Some(g.module), g.module_folder, Some(g.scenario)),
            None => (None, None, None),
        };
        let config = GameConfig {
            adjutant: FORMAT_VERSION,
            game_id: game_id.to_string(),
            kind,
            module,
            module_folder,
            scenario,
            players,
            dice: DiceConfig {
                protocol: DICE_PROTOCOL,
                mode: if mutual.is_some() { DiceMode::Mutual } else { DiceMode::Referee },
                chain_length,
                anchor,
                players: {
                    let mut players = mutual.unwrap_or_default();
                    players.sort_by(|a, b| a.label.as_bytes().cmp(b.label.as_bytes()));
                    players
                },
            },
            mail: None,
            senders: None,
            deadlines: None,
            player_changes: Vec::new(),
            published: false,
        };
        Self::create_with(root, config, &top, extra)
    }

    fn build(temp: &Path, config: &GameConfig, top: &Bytes32, extra: &[(&str, Vec<u8>)]) -> Result<()> {
        fs::create_dir(temp).map_err(|e| Error::io(temp, e))?;
        for dir in [JOURNAL_DIR, ORDERS_DIR, REPORTS_DIR] {
            let path = temp.join(dir);
            fs::create_dir(&path).map_err(|e| Error::io(&path, e))?;
        }
        let secret = temp.join(SECRET_DIR);
        let mut builder = fs::DirBuilder::new();
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt;
            builder.mode(0o700);
        }
        builder.create(&secret).map_err(|e| Error::io(&secret, e))?;
        fsio::write_atomic_mode(&secret.join(CHAIN_TOP_FILE), format!("{}\n", top.to_hex()).as_bytes(), Some(0o600))?;
        fsio::write_atomic(&temp.join(GAME_FILE), config.to_yaml().as_bytes())?;
        for (name, bytes) in extra {
            fsio::write_atomic(&temp.join(name), bytes)?;
        }
        // The lock file is part of the folder from the start, so that a
        // command that is refused leaves the folder exactly as it was.
        fsio::write_atomic(&temp.join(".lock"), b"")?;
        for dir in [JOURNAL_DIR, ORDERS_DIR, REPORTS_DIR] {
            fsio::sync_dir(&temp.join(dir))?;
        }
        fsio::sync_dir(temp)
    }

    /// The mailbox of `side`'s player, read by lettre (src/base/address.rs):
    /// `None` when game.yaml gives the side no address; the problem, at
    /// `players[i].email` (or `.name`), when it gives one that mail cannot
    /// be sent to. Each side's address is read on its own, so that one bad
    /// address stops nothing for the other sides.
    pub fn player_mailbox(&self, side: &str) -> std::result::Result<Option<lettre::message::Mailbox>, Located> {
        let Some((i, player)) = self.config.players.iter().enumerate().find(|(_, p)| p.side == side) else {
            return Ok(None);
        };
        let Some(email) = player.email.as_deref() else { return Ok(None) };
        let located = |field: String, message: String| {
            let path = self.root.join(GAME_FILE);
            // Placed in game.yaml's text, read again only for the problem.
            let at = fs::read_to_string(&path).ok().and_then(|text| crate::base::yaml::locate::locate(&text, &field));
            Located {
                file: path.display().to_string(),
                line: at.map(|a| a.0),
                column: at.map(|a| a.1),
                field,
                message,
                code: None,
            }
        };
        let address =
            crate::base::address::parse(email.trim()).map_err(|e| located(format!("players[{i}].email"), e))?;
        if player.name.chars().any(char::is_control) {
            return Err(located(
                format!("players[{i}].name"),
                format!(
                    "'{}' holds a control character; a name is one line of text",
                    crate::base::error::echo(&player.name)
                ),
            ));
        }
        let name = Some(player.name.trim().to_string()).filter(|n| !n.is_empty());
        Ok(Some(lettre::message::Mailbox::new(name, address)))
    }

    /// The referee's chain top, checked against the anchor. Never printed.
    pub fn chain_top(&self) -> Result<Bytes32> {
        let top = self.read_chain_top()?;
        if chain_key(&top, self.config.dice.chain_length, 0)? != self.config.dice.anchor {
            return Err(self.not_the_anchors_chain());
        }
        Ok(top)
    }

    /// The keys s_from ..= s_last of the referee's chain (index 0 is
    /// s_from), where s_last is the `count`th key from s_from or the chain's
    /// top s_N, whichever comes first (only s_N when `from` is past it),
    /// checked against the anchor: one walk down the chain for a command
    /// that reveals several keys. Never printed.
    pub fn chain_keys_from(&self, from: u32, count: u32) -> Result<Vec<Bytes32>> {
        self.chain_walk_from(from, count)?()
    }

    /// [`GameFolder::chain_keys_from`] in two parts: the chain top is read
    /// now, and the walk down the chain (thousands of hashes, no file) is
    /// returned, to run where the caller likes (`resolve` runs it on
    /// another thread); it gives what `chain_keys_from` gives. Only the
    /// keys asked for are kept: a resolve reveals a few, and keeping every
    /// key of a 4,096-step chain had the walk fault in and copy half a
    /// megabyte, a tenth of its time (issue 11).
    pub fn chain_walk_from(
        &self,
        from: u32,
        count: u32,
    ) -> Result<impl FnOnce() -> Result<Vec<Bytes32>> + Send + 'static> {
        let top = self.read_chain_top()?;
        let (length, anchor, wrong) =
            (self.config.dice.chain_length, self.config.dice.anchor, self.not_the_anchors_chain());
        Ok(move || {
            // The highest index kept (the top's when `from` is past it).
            let last = from.saturating_add(count.max(1) - 1).min(length);
            let mut keys = Vec::with_capacity((last.saturating_sub(from) + 1) as usize);
            if last == length {
                keys.push(top);
            }
            let mut key = top;
            for k in (0..length).rev() {
                key = crate::base::dice::chain_previous(&key);
                if (from..=last).contains(&k) {
                    keys.push(key);
                }
            }
            if key != anchor {
                return Err(wrong);
            }
            keys.reverse();
            Ok(keys)
        })
    }

    fn not_the_anchors_chain(&self) -> Error {
        let path = self.root.join(SECRET_DIR).join(CHAIN_TOP_FILE);
        Error::Data(Located {
            file: path.display().to_string(),
            line: None,
            column: None,
            field: String::new(),
            message: format!(
                "this chain top does not lead to the anchor in {GAME_FILE} through {} steps",
                self.config.dice.chain_length
            ),
            code: None,
        })
    }

    /// The chain top as written, unchecked.
    fn read_chain_top(&self) -> Result<Bytes32> {
        let path = self.root.join(SECRET_DIR).join(CHAIN_TOP_FILE);
        let text = fsio::read_text(&path, &path.display().to_string())?;
        // The error names the file but never echoes its content.
        let top: Bytes32 = text.trim().parse().map_err(|_| {
            Error::Data(Located {
                file: path.display().to_string(),
                line: None,
                column: None,
                field: String::new(),
                message: "not a chain top (64 hexadecimal digits)".into(),
                code: None,
            })
        })?;
        Ok(top)
    }

    pub fn journal(&self) -> Journal {
        Journal::new(self.root.join(JOURNAL_DIR))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::dice::chain_key;

    fn config(top: &Bytes32) -> GameConfig {
        GameConfig {
            adjutant: FORMAT_VERSION,
            game_id: "test".into(),
            kind: FolderKind::RollLog,
            module: None,
            module_folder: None,
            scenario: None,
            players: vec![],
            dice: DiceConfig {
                protocol: DICE_PROTOCOL,
                mode: DiceMode::Referee,
                chain_length: 8,
                anchor: chain_key(top, 8, 0).unwrap(),
                players: Vec::new(),
            },
            mail: None,
            senders: None,
            deadlines: None,
            player_changes: Vec::new(),
            published: false,
        }
    }

    #[test]
    fn create_then_open_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("g");
        let top = new_chain_top().unwrap();
        GameFolder::create(&root, config(&top), &top).unwrap();
        let opened = GameFolder::open(&root).unwrap();
        assert_eq!(opened.config, config(&top));
        assert_eq!(opened.chain_top().unwrap(), top);
        let keys = opened.chain_keys_from(3, u32::MAX).unwrap();
        assert_eq!(keys.len(), 6, "s_3 ..= s_8");
        for (i, key) in keys.iter().enumerate() {
            assert_eq!(*key, chain_key(&top, 8, 3 + i as u32).unwrap());
        }
        // A window of the chain: as many keys as asked, fewer at its top,
        // and only the top past it.
        assert_eq!(opened.chain_keys_from(3, 2).unwrap(), keys[..2]);
        assert_eq!(opened.chain_keys_from(0, 1).unwrap(), vec![chain_key(&top, 8, 0).unwrap()]);
        assert_eq!(opened.chain_keys_from(7, 5).unwrap(), keys[4..]);
        assert_eq!(opened.chain_keys_from(8, 5).unwrap(), vec![top]);
        assert_eq!(opened.chain_keys_from(12, 5).unwrap(), vec![top]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&root.join(SECRET_DIR)), 0o700);
            assert_eq!(mode(&root.join(SECRET_DIR).join(CHAIN_TOP_FILE)), 0o600);
        }
        // Nothing but the folder itself is left beside it.
        let names: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, vec![std::ffi::OsString::from("g")]);
    }

    #[test]
    fn create_refuses_a_non_empty_folder_and_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("keep"), b"x").unwrap();
        let top = new_chain_top().unwrap();
        let err = GameFolder::create(dir.path(), config(&top), &top).unwrap_err();
        assert!(err.to_string().contains("not empty"), "{err}");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_wrong_chain_top_is_refused_without_echoing_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("g");
        let top = new_chain_top().unwrap();
        GameFolder::create(&root, config(&top), &top).unwrap();
        let other = new_chain_top().unwrap();
        fs::write(root.join(SECRET_DIR).join(CHAIN_TOP_FILE), other.to_hex()).unwrap();
        let err = GameFolder::open(&root).unwrap().chain_top().unwrap_err().to_string();
        assert!(err.contains("does not lead to the anchor"), "{err}");
        let err = GameFolder::open(&root).unwrap().chain_keys_from(3, 1).unwrap_err().to_string();
        assert!(err.contains("does not lead to the anchor"), "{err}");
        assert!(!err.contains(&other.to_hex()) && !err.contains(&top.to_hex()));
    }

    #[test]
    fn corrupt_game_yaml_is_located() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("g");
        let top = new_chain_top().unwrap();
        GameFolder::create(&root, config(&top), &top).unwrap();
        let path = root.join(GAME_FILE);
        let text = fs::read_to_string(&path).unwrap().replace("chain_length: 8", "chain_length: eight");
        fs::write(&path, text).unwrap();
        let err = GameFolder::open(&root).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        let message = err.to_string();
        assert!(message.contains("game.yaml:") && message.contains("dice.chain_length"), "{message}");
    }
}
