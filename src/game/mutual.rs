//! Mutual mode (DICE.md §7): every player's key chain mixed into the seed
//! of each step that rolls, so that a referee who also plays cannot know a
//! roll before every side's orders are fixed.
//!
//! What a mutual game folder holds beyond referee mode's:
//!
//! ```text
//! game.yaml            dice.mode: mutual; dice.players: each label, anchor p_0, length M
//! mutual/              what the players sent for the awaited step:
//!   STEP--SIDE.commit    a side's commitment, the SHA-256 of its orders file (7.6)
//!   pJ--LABEL.key        a player's key p_j for rolling step j (7.2, 7.3)
//! ```
//!
//! Amendments to DICE.md that this module makes (docs/DICE.md, "Mutual
//! mode in game folders"): commitments per side; a commitment or key
//! travels as a small YAML message through `submit` (and so by mail); a
//! file once in is never replaced; orders are taken for the awaited step
//! only; standing orders are refused.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::base::dice::{key_follows, Bytes32, Die, PlayerKey};
use crate::base::error::{Error, Result};
use crate::base::fsio;
use crate::game::folder::{DiceMode, FolderKind, GameConfig, GameFolder, PlayerChain, GAME_FILE};
use crate::game::journal::{Commitment, PlayerKeyRecord};
use crate::system::{Dice, Rules, State};

/// The folder of commitments and keys sent for the awaited step.
pub const MUTUAL_DIR: &str = "mutual";

/// The commitment file of `side` for journal step `step` (e.g.
/// `16-allies-movement`).
pub fn commit_file(step: &str, side: &str) -> String {
    format!("{step}--{side}.commit")
}

/// The key file of `label`'s key p_j.
pub fn key_file(j: u32, label: &str) -> String {
    format!("p{j}--{label}.key")
}

/// `LABEL=HEX` or `LABEL=HEX:M` (`new --anchor`, `join`): a player's label,
/// his anchor p_0 and his chain's length M (4096 when not given).
pub fn parse_anchor(spec: &str) -> Result<PlayerChain> {
    let shown = crate::base::error::echo(spec);
    let usage = |why: String| {
        Error::usage(format!(
            "--anchor '{shown}': {why}; write LABEL=ANCHOR or LABEL=ANCHOR:M, e.g. british=6eaf07...1ed8:4096"
        ))
    };
    let (label, rest) = spec.split_once('=').ok_or_else(|| usage("no '='".into()))?;
    let (hex, length) = match rest.split_once(':') {
        Some((hex, m)) => (hex, m.parse::<u32>().map_err(|_| usage(format!("'{m}' is not a chain length")))?),
        None => (rest, crate::base::dice::DEFAULT_CHAIN_LENGTH),
    };
    let anchor: Bytes32 = hex.trim().parse().map_err(|e| usage(format!("the anchor: {e}")))?;
    crate::game::folder::check_chain_length(length)?;
    Ok(PlayerChain { label: label.trim().to_string(), anchor, chain_length: length })
}

/// The most journal steps a scenario can take: every kind of step in every
/// turn (an upper bound; DICE.md 7.5 refuses a game whose chains are too
/// short for it).
pub fn most_steps(rules: &dyn Rules, first_turn: u32, last_turn: u32) -> Result<u32> {
    let kinds = rules.step_kinds()?.len() as u32;
    Ok(last_turn.saturating_sub(first_turn).saturating_add(1).saturating_mul(kinds.max(1)))
}

/// DICE.md 7.5: a chain of length M serves steps 1..M-1; `new` and `join`
/// refuse one too short for `most` steps.
pub fn check_serves(what: &str, length: u32, most: u32) -> Result<()> {
    if length.saturating_sub(1) < most {
        return Err(Error::usage(format!(
            "{what}: a chain of length {length} serves {} steps, but this scenario may take {most}; \
             use a chain of length {} or more (DICE.md 7.5: there is no rollover)",
            length.saturating_sub(1),
            most + 1
        )));
    }
    Ok(())
}

/// Check a new player's chain against the game: a label of the game's
/// sides, sides nobody holds yet, long enough for the scenario.
fn check_player(config: &GameConfig, sides: &[String], most: u32, chain: &PlayerChain) -> Result<()> {
    crate::game::folder::check_label(&chain.label, sides)?;
    for side in chain.sides() {
        if let Some(holder) = config.dice.label_of(side) {
            return Err(Error::refused(format!(
                "label '{}': side {side} is held already, by the player labelled {holder}",
                chain.label
            )));
        }
    }
    check_serves(&format!("the chain of {}", chain.label), chain.chain_length, most)
}

/// The chains `new --mode mutual` was given, checked together (each
/// label, no side held twice, each long enough), and the referee's.
pub fn check_new(
    rules: &dyn Rules,
    first_turn: u32,
    last_turn: u32,
    referee_length: u32,
    chains: &[PlayerChain],
) -> Result<()> {
    let most = most_steps(rules, first_turn, last_turn)?;
    check_serves("the referee's chain (--chain-length)", referee_length, most)?;
    let sides: Vec<String> = rules.sides().into_iter().map(|s| s.id).collect();
    for (i, chain) in chains.iter().enumerate() {
        crate::game::folder::check_label(&chain.label, &sides)?;
        if let Some(side) = chains[..i].iter().flat_map(|c| c.sides()).find(|s| chain.sides().contains(s)) {
            return Err(Error::usage(format!("--anchor {}: side {side} is given twice", chain.label)));
        }
        check_serves(&format!("the chain of {}", chain.label), chain.chain_length, most)?;
    }
    Ok(())
}

/// What `join` recorded.
#[derive(Debug, Clone, Serialize)]
pub struct Joined {
    pub label: String,
    pub anchor: Bytes32,
    pub chain_length: u32,
    /// The sides no player holds yet: the game resolves no step until
    /// every side's player has joined.
    pub sides_without_player: Vec<String>,
}

/// `adjutant join`: record a player's anchor (DICE.md 7.1) in a mutual
/// game before its first step.
pub fn join(dir: &Path, spec: &str, wait: Duration) -> Result<Joined> {
    let folder = GameFolder::open(dir)?;
    if folder.config.dice.mode != DiceMode::Mutual {
        return Err(Error::usage(format!(
            "{}: a game in referee mode takes no player anchors (make it with `new --mode mutual`)",
            dir.display()
        )));
    }
    let _lock = crate::game::recovery::lock(&folder, wait)?;
    let mut config = GameFolder::open(dir)?.config;
    let (next, _) = folder.journal().tail()?;
    if next > 1 {
        return Err(Error::refused(format!(
            "{}: step {} is resolved; anchors are sent before step 1 (DICE.md 7.1)",
            dir.display(),
            next - 1
        )));
    }
    let chain = parse_anchor(spec)?;
    let rules = crate::game::load_rules(&folder)?;
    let info = folder.module_info()?;
    let scenario = info.scenario(config.scenario.as_deref().unwrap_or_default())?;
    let most = most_steps(rules, scenario.first_turn, scenario.last_turn)?;
    let sides: Vec<String> = rules.sides().into_iter().map(|s| s.id).collect();
    check_player(&config, &sides, most, &chain)?;
    config.dice.players.push(chain.clone());
    config.dice.players.sort_by(|a, b| a.label.as_bytes().cmp(b.label.as_bytes()));
    fsio::write_atomic(&folder.root.join(GAME_FILE), config.to_yaml().as_bytes())?;
    let sides_without_player = sides.into_iter().filter(|s| config.dice.label_of(s).is_none()).collect();
    Ok(Joined { label: chain.label, anchor: chain.anchor, chain_length: chain.chain_length, sides_without_player })
}

/// The sides of the game no player holds yet (mutual mode).
pub fn sides_without_player(config: &GameConfig, rules: &dyn Rules) -> Vec<String> {
    rules.sides().into_iter().map(|s| s.id).filter(|s| config.dice.label_of(s).is_none()).collect()
}

// ------------------------------------------------------------ the probe

/// DICE.md 7.2: dice that fail at the first roll request, to learn whether
/// a step rolls before any key is asked for it.
struct Probe {
    asked: bool,
}

impl Dice for Probe {
    fn roll(&mut self, _die: Die, _purpose: &str) -> Result<u16> {
        self.asked = true;
        Err(Error::refused("the probe of DICE.md 7.2 stops at the first roll"))
    }
}

/// Whether the step the state awaits asks for a die with these orders.
pub fn step_rolls(rules: &dyn Rules, state: &State, bodies: &BTreeMap<String, crate::base::yaml::Value>) -> bool {
    probe(rules, state, bodies).0
}

/// The probe's run (A6): whether it asked for a die, and, when it did not,
/// the engine's refusal of the orders, if it refuses them (`validate` of
/// every awaited side's files uses it too).
pub(crate) fn probe(
    rules: &dyn Rules,
    state: &State,
    bodies: &BTreeMap<String, crate::base::yaml::Value>,
) -> (bool, Option<String>) {
    let mut probe = Probe { asked: false };
    let result = rules.resolve(state.as_ref(), bodies, &mut probe);
    match result {
        _ if probe.asked => (true, None),
        Err(e) => (false, Some(e.to_string())),
        Ok(_) => (false, None),
    }
}

// ------------------------------------------------------------ the journal

/// The rolling steps so far: the last j, and each label's last revealed
/// key (its anchor before its first).
pub fn chain_tops(folder: &GameFolder) -> Result<(u32, BTreeMap<String, Bytes32>)> {
    let mut last: BTreeMap<String, Bytes32> =
        folder.config.dice.players.iter().map(|p| (p.label.clone(), p.anchor)).collect();
    let mut j = 0;
    for file in folder.journal().list()?.entries {
        let text = fsio::read_text(&file.path, &file.label)?;
        let entry = folder.journal_entry(&file.label, &text).map_err(Error::Data)?;
        if let Some(n) = entry.rolling_step {
            j = n;
            for p in entry.player_keys {
                last.insert(p.label, p.key);
            }
        }
    }
    Ok((j, last))
}

// ------------------------------------------------------------ a step

/// What mutual mode adds to a step's entry ([`crate::game::play`]).
#[derive(Debug, Clone, Default)]
pub struct StepKeys {
    pub commitments: Vec<Commitment>,
    pub rolling_step: Option<u32>,
    pub player_keys: Vec<PlayerKeyRecord>,
}

impl StepKeys {
    pub fn seed_keys(&self) -> Vec<PlayerKey> {
        self.player_keys.iter().map(|p| PlayerKey { side: p.label.clone(), key: p.key }).collect()
    }
}

/// The labels of the players `sides` belong to, each once, sorted.
fn labels_of(config: &GameConfig, sides: &[String]) -> Vec<String> {
    let mut labels: Vec<String> = sides.iter().filter_map(|s| config.dice.label_of(s)).map(str::to_string).collect();
    labels.sort();
    labels.dedup();
    labels
}

/// DICE.md 7.6: a step that awaits more than one player takes commitments.
pub fn needs_commitments(config: &GameConfig, awaited: &[String]) -> bool {
    labels_of(config, awaited).len() > 1
}

/// A side's commitment for a step, if it sent one.
pub fn commitment(folder: &GameFolder, step: &str, side: &str) -> Result<Option<Bytes32>> {
    let path = folder.root.join(MUTUAL_DIR).join(commit_file(step, side));
    read_hex(&path)
}

/// A label's key p_j, if it sent it.
pub fn stored_key(folder: &GameFolder, j: u32, label: &str) -> Result<Option<Bytes32>> {
    read_hex(&folder.root.join(MUTUAL_DIR).join(key_file(j, label)))
}

fn read_hex(path: &Path) -> Result<Option<Bytes32>> {
    if !path.exists() {
        return Ok(None);
    }
    let label = path.display().to_string();
    let text = fsio::read_text(path, &label)?;
    text.trim().parse().map(Some).map_err(|e| Error::refused(format!("{label}: {e}")))
}

/// What `resolve` makes of a step whose orders are all in (`orders`:
/// side and bytes): its commitments checked, the probe run and, for a step
/// that rolls, every player's key p_j read (`j` is the rolling steps
/// before it). `Err` with the refusal when the step must wait.
#[allow(clippy::too_many_arguments)]
pub fn for_step(
    folder: &GameFolder,
    rules: &dyn Rules,
    state: &State,
    step: &str,
    awaited: &[String],
    orders: &[(String, Vec<u8>)],
    bodies: &BTreeMap<String, crate::base::yaml::Value>,
    j: u32,
    last_keys: &BTreeMap<String, Bytes32>,
) -> Result<std::result::Result<StepKeys, String>> {
    let config = &folder.config;
    let mut keys = StepKeys::default();
    if needs_commitments(config, awaited) {
        for (side, bytes) in orders {
            let hash = Bytes32::sha256(bytes);
            match commitment(folder, step, side)? {
                Some(c) if c == hash => keys.commitments.push(Commitment { side: side.clone(), sha256: c }),
                Some(c) => {
                    return Ok(Err(format!(
                        "step {step}: the orders of {side} hash to {}, not to its commitment {} (DICE.md 7.6)",
                        hash.to_hex(),
                        c.to_hex()
                    )))
                }
                None => {
                    return Ok(Err(format!(
                        "step {step}: the orders of {side} came without its commitment (DICE.md 7.6)"
                    )))
                }
            }
        }
    }
    if !step_rolls(rules, state, bodies) {
        return Ok(Ok(keys));
    }
    let j = j + 1;
    let mut owed = Vec::new();
    for player in &config.dice.players {
        if j >= player.chain_length {
            return Ok(Err(format!(
                "step {step} would take key p_{j} of {}, whose chain of length {} serves rolling steps 1..{} \
                 (DICE.md 7.5)",
                player.label,
                player.chain_length,
                player.chain_length - 1
            )));
        }
        match stored_key(folder, j, &player.label)? {
            Some(key) if last_keys.get(&player.label).is_some_and(|prev| key_follows(&key, prev)) => {
                keys.player_keys.push(PlayerKeyRecord { label: player.label.clone(), key })
            }
            Some(_) => {
                return Ok(Err(format!(
                    "{MUTUAL_DIR}/{}: not the key after {}'s last (DICE.md 7.3)",
                    key_file(j, &player.label),
                    player.label
                )))
            }
            None => owed.push(player.label.clone()),
        }
    }
    if !owed.is_empty() {
        return Ok(Err(format!(
            "step {step} rolls: it awaits key p_{j} from {} (DICE.md 7.2; a rolling step never resolves without \
             every player's key, 7.4)",
            owed.join(", ")
        )));
    }
    keys.rolling_step = Some(j);
    Ok(Ok(keys))
}

// ------------------------------------------------------------ where it waits

/// Where a mutual game waits, for `status` and the receipts.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Waiting {
    /// The sides no player holds yet (their anchors are owed, 7.1).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub anchors_owed: Vec<String>,
    /// The awaited step (journal name).
    pub step: String,
    /// The sides whose commitments the step still lacks (7.6).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub commitments_owed: Vec<String>,
    /// The sides whose orders the step still lacks.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub orders_owed: Vec<String>,
    /// Every orders file of the step is in (7.2).
    pub sealed: bool,
    /// Sealed and the probe asked for a die: the step takes p_j.
    pub rolls: bool,
    /// j of the step if it rolls: the rolling steps so far, plus one.
    pub rolling_step: u32,
    /// The labels whose key p_j the step still lacks.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub keys_owed: Vec<String>,
    /// Each side's orders hash once sealed: what the referee publishes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sealed_hashes: Vec<Commitment>,
    /// Sealed, and the rules refuse the orders together (A6): why. The
    /// files stand (A5); only the referee's `correct --from` the awaited
    /// step ([`Waiting::journal_step`]) sets them aside, undoing no step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
    /// The journal step the awaited step will be (the entries so far, plus one).
    pub journal_step: u32,
}

/// Where the mutual game at `folder` waits (`None`: referee mode, or over).
pub fn waiting(folder: &GameFolder, rules: &dyn Rules, state: &State) -> Result<Option<Waiting>> {
    if folder.config.dice.mode != DiceMode::Mutual {
        return Ok(None);
    }
    let Some(next) = state.next_step() else { return Ok(None) };
    let config = &folder.config;
    let awaited = rules.awaited(state.as_ref());
    let mut w = Waiting {
        anchors_owed: sides_without_player(config, rules),
        step: next.name.clone(),
        journal_step: state.resolved_steps() + 1,
        ..Default::default()
    };
    if needs_commitments(config, &awaited) {
        for side in &awaited {
            if commitment(folder, &next.name, side)?.is_none() {
                w.commitments_owed.push(side.clone());
            }
        }
    }
    let inbox = crate::game::inbox::pending(folder)?;
    let mut bodies = BTreeMap::new();
    for side in &awaited {
        match inbox.iter().find(|p| p.step == next.name && &p.side == side) {
            None => w.orders_owed.push(side.clone()),
            Some(p) => {
                w.sealed_hashes.push(Commitment { side: side.clone(), sha256: Bytes32::sha256(&p.bytes) });
                let text = String::from_utf8_lossy(&p.bytes);
                if let Ok(c) = rules.check_header(&config.game_id, state.as_ref(), &p.path.display().to_string(), &text)
                {
                    bodies.insert(c.side, c.body);
                }
            }
        }
    }
    w.sealed = w.orders_owed.is_empty() && w.anchors_owed.is_empty();
    if !w.sealed {
        w.sealed_hashes.clear();
    }
    let (j, _) = chain_tops(folder)?;
    w.rolling_step = j + 1;
    let (rolls, refused) = if w.sealed { probe(rules, state, &bodies) } else { (false, None) };
    w.refused = refused;
    if rolls {
        w.rolls = true;
        for p in &config.dice.players {
            if stored_key(folder, j + 1, &p.label)?.is_none() {
                w.keys_owed.push(p.label.clone());
            }
        }
    }
    Ok(Some(w))
}

// ------------------------------------------------------------ messages

/// A commitment or a key as a player sends it (docs/orders.md, "Mutual
/// mode messages"): YAML with `game` and either `side`, `step` and
/// `commit`, or `player` and `key`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Message {
    game: String,
    #[serde(default)]
    side: Option<String>,
    #[serde(default)]
    step: Option<String>,
    #[serde(default)]
    commit: Option<Bytes32>,
    #[serde(default)]
    player: Option<String>,
    #[serde(default)]
    key: Option<Bytes32>,
}

/// Whether a text `submit` is given is a commitment or key message (a
/// top-level `commit:` or `key:`), not orders.
pub fn is_message(text: &str) -> bool {
    crate::base::yaml::from_str::<crate::base::yaml::Value>(text)
        .ok()
        .is_some_and(|v| v.get("commit").is_some() || v.get("key").is_some())
}

/// The sides that may send a message (the sender's address is checked
/// against theirs): a commitment's side, or a key's label's sides.
pub fn message_sides(text: &str) -> Vec<String> {
    let Ok(v) = crate::base::yaml::from_str::<crate::base::yaml::Value>(text) else { return Vec::new() };
    let get = |k: &str| v.get(k).and_then(crate::base::yaml::Value::as_str).map(str::to_string);
    match (get("side"), get("player")) {
        (Some(side), _) => vec![side],
        (None, Some(label)) => label.split('+').map(str::to_string).collect(),
        _ => Vec::new(),
    }
}

/// What `submit` did with a commitment or a key.
#[derive(Debug, Clone, Serialize)]
pub struct Receipt {
    pub game: String,
    /// `commitment` or `key`.
    pub kind: String,
    /// The awaited step (journal name).
    pub step: String,
    /// The side (a commitment) or the label (a key).
    pub by: String,
    /// A commitment: the SHA-256 committed to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<Bytes32>,
    /// A key: j, the rolling step it is for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rolling_step: Option<u32>,
    /// Where it is kept, relative to the game folder.
    pub stored: String,
    /// Where the game waits now.
    pub waiting: Waiting,
}

/// `submit` of a commitment or key message (`label` names it).
pub fn submit(dir: &Path, bytes: &[u8], label: &str, wait: Duration) -> Result<Receipt> {
    let text = crate::game::input::orders_text_or_refuse(label, bytes)?;
    let message: Message = crate::base::yaml::parse(label, text).map_err(|e| Error::refused(e.to_string()))?;
    match (&message.commit, &message.key) {
        (Some(hash), None) => {
            let (Some(side), Some(step), None) = (&message.side, &message.step, &message.player) else {
                return Err(Error::refused(format!(
                    "{label}: a commitment gives game, side, step (the journal's name of the step, e.g. \
                     16-allies-movement) and commit"
                )));
            };
            commit(dir, &message.game, side, step, *hash, label, wait)
        }
        (None, Some(key)) => {
            let (Some(player), None, None) = (&message.player, &message.side, &message.step) else {
                return Err(Error::refused(format!("{label}: a key message gives game, player (a label) and key")));
            };
            reveal(dir, Some(&message.game), player, *key, label, wait)
        }
        _ => Err(Error::refused(format!("{label}: a message gives either commit or key, not both"))),
    }
}

/// The game, opened and locked for a message, checked to be a mutual game
/// with every anchor in; its rules and state.
fn open_mutual(
    dir: &Path,
    game: Option<&str>,
    label: &str,
    wait: Duration,
) -> Result<(GameFolder, crate::base::fsio::FolderLock, State)> {
    let folder = GameFolder::open(dir)?;
    if folder.config.kind != FolderKind::Game || folder.config.dice.mode != DiceMode::Mutual {
        return Err(Error::refused(format!(
            "{label}: commitments and keys are for games in mutual mode (DICE.md 7); {} is in referee mode",
            dir.display()
        )));
    }
    if let Some(game) = game.filter(|g| *g != folder.config.game_id) {
        return Err(Error::refused(format!(
            "{label}: game: this is for game '{}'; this game is '{}'",
            crate::base::error::echo(game),
            folder.config.game_id
        )));
    }
    let lock = crate::game::recovery::lock(&folder, wait)?;
    if let Some((at, f)) = crate::game::play::forfeited(&folder)? {
        return Err(Error::refused(format!("{label}: {}", crate::game::play::adjourned_words(at, &f))));
    }
    let rules = crate::game::load_rules(&folder)?;
    let owed = sides_without_player(&folder.config, rules);
    if !owed.is_empty() {
        return Err(Error::refused(format!(
            "{label}: the game waits for the anchors of {} (`adjutant join`, DICE.md 7.1)",
            owed.join(", ")
        )));
    }
    let state = crate::game::load_state(&folder)?;
    Ok((folder, lock, state))
}

fn store(folder: &GameFolder, name: &str, value: &Bytes32) -> Result<String> {
    let dir = folder.root.join(MUTUAL_DIR);
    if !dir.is_dir() {
        std::fs::create_dir(&dir).map_err(|e| Error::io(&dir, e))?;
        fsio::sync_dir(&folder.root)?;
    }
    fsio::write_atomic(&dir.join(name), format!("{}\n", value.to_hex()).as_bytes())?;
    Ok(format!("{MUTUAL_DIR}/{name}"))
}

/// Store `side`'s commitment `hash` for the awaited step `step`, as `tick`
/// does for the default orders it writes (docs/DICE.md A11); the caller
/// holds the folder's lock.
pub fn store_commitment(folder: &GameFolder, step: &str, side: &str, hash: &Bytes32) -> Result<String> {
    store(folder, &commit_file(step, side), hash)
}

/// DICE.md 7.6: store `side`'s commitment for the awaited step `step`.
#[allow(clippy::too_many_arguments)]
fn commit(
    dir: &Path,
    game: &str,
    side: &str,
    step: &str,
    hash: Bytes32,
    label: &str,
    wait: Duration,
) -> Result<Receipt> {
    let (folder, _lock, state) = open_mutual(dir, Some(game), label, wait)?;
    let rules = crate::game::load_rules(&folder)?;
    let Some(next) = state.next_step() else {
        return Err(Error::refused(format!("{label}: the game is over: it awaits no orders")));
    };
    if step != next.name {
        return Err(Error::refused(format!(
            "{label}: step: '{}' is not the step the game awaits, {} (commitments are taken for it only)",
            crate::base::error::echo(step),
            next.name
        )));
    }
    let awaited = rules.awaited(state.as_ref());
    if !awaited.iter().any(|s| s == side) {
        return Err(Error::refused(format!(
            "{label}: side: step {step} awaits orders from {}, not from {}",
            if awaited.is_empty() { "nobody".to_string() } else { awaited.join(", ") },
            crate::base::error::echo(side)
        )));
    }
    if !needs_commitments(&folder.config, &awaited) {
        return Err(Error::refused(format!(
            "{label}: step {step} awaits one player only and takes no commitment (DICE.md 7.6); send the orders"
        )));
    }
    if let Some(had) = commitment(&folder, step, side)? {
        return Err(Error::refused(format!(
            "{label}: {side} has committed already for step {step} (to {}); a commitment stands (DICE.md 7.6)",
            had.to_hex()
        )));
    }
    let stored = store(&folder, &commit_file(step, side), &hash)?;
    let waiting = waiting(&folder, rules, &state)?.unwrap_or_default();
    Ok(Receipt {
        game: folder.config.game_id.clone(),
        kind: "commitment".into(),
        step: step.to_string(),
        by: side.to_string(),
        sha256: Some(hash),
        rolling_step: None,
        stored,
        waiting,
    })
}

/// DICE.md 7.3: store `player`'s key for the awaited step, which must be
/// sealed and roll; the key must be the one after his last.
pub fn reveal(
    dir: &Path,
    game: Option<&str>,
    player: &str,
    key: Bytes32,
    label: &str,
    wait: Duration,
) -> Result<Receipt> {
    let (folder, _lock, state) = open_mutual(dir, game, label, wait)?;
    let rules = crate::game::load_rules(&folder)?;
    let Some(chain) = folder.config.dice.players.iter().find(|p| p.label == player) else {
        let labels: Vec<&str> = folder.config.dice.players.iter().map(|p| p.label.as_str()).collect();
        return Err(Error::refused(format!(
            "{label}: player: '{}' is no player's label; the labels are {}",
            crate::base::error::echo(player),
            labels.join(", ")
        )));
    };
    let Some(w) = waiting(&folder, rules, &state)? else {
        return Err(Error::refused(format!("{label}: the game is over: no step takes a key")));
    };
    if !w.sealed {
        return Err(Error::refused(format!(
            "{label}: step {} is not sealed (orders owed by {}): a key sent before its step is sealed is refused \
             and not stored (DICE.md 7.3)",
            w.step,
            w.orders_owed.join(", ")
        )));
    }
    if !w.rolls {
        return Err(Error::refused(format!(
            "{label}: step {} rolls no die and takes no player key (DICE.md 7.2); keep your key for the next step \
             that rolls",
            w.step
        )));
    }
    let j = w.rolling_step;
    if j >= chain.chain_length {
        return Err(Error::refused(format!(
            "{label}: rolling step {j} is past the end of {player}'s chain (length {}, DICE.md 7.5)",
            chain.chain_length
        )));
    }
    let (_, last) = chain_tops(&folder)?;
    let previous = last.get(player).copied().unwrap_or(chain.anchor);
    if !key_follows(&key, &previous) {
        let what = if j == 1 { "the anchor in game.yaml".to_string() } else { format!("p_{}, revealed before", j - 1) };
        return Err(Error::refused(format!(
            "{label}: key: not p_{j} of {player}: it does not hash to {what}; keys go strictly in order, one per \
             rolling step (DICE.md 7.3)"
        )));
    }
    let stored = store(&folder, &key_file(j, player), &key)?;
    let waiting = waiting(&folder, rules, &state)?.unwrap_or_default();
    Ok(Receipt {
        game: folder.config.game_id.clone(),
        kind: "key".into(),
        step: w.step,
        by: player.to_string(),
        sha256: None,
        rolling_step: Some(j),
        stored,
        waiting,
    })
}

/// The awaited sides whose commitment for `step` is not in yet, when the
/// step takes commitments (7.6: it awaits more than one player); none
/// when it takes none.
fn commitments_missing(
    folder: &GameFolder,
    rules: &dyn Rules,
    state: &State,
    step: &str,
) -> Result<Option<Vec<String>>> {
    let awaited = rules.awaited(state.as_ref());
    if !needs_commitments(&folder.config, &awaited) {
        return Ok(None);
    }
    let mut missing = Vec::new();
    for s in &awaited {
        if commitment(folder, step, s)?.is_none() {
            missing.push(s.clone());
        }
    }
    Ok(Some(missing))
}

/// Whether `bytes` are the very file `side` committed to for `step`, every
/// commitment of the step being in (7.6): a file no other could replace.
pub fn committed_to(
    folder: &GameFolder,
    rules: &dyn Rules,
    state: &State,
    step: &str,
    side: &str,
    bytes: &[u8],
) -> Result<bool> {
    match commitments_missing(folder, rules, state, step)? {
        Some(missing) if missing.is_empty() => Ok(commitment(folder, step, side)? == Some(Bytes32::sha256(bytes))),
        _ => Ok(false),
    }
}

/// DICE.md 7.6 at `submit` of an orders file for the awaited step of a
/// mutual game: when the step takes commitments, every one must be in and
/// the file must hash to its side's.
pub fn check_orders_file(
    folder: &GameFolder,
    rules: &dyn Rules,
    state: &State,
    step: &str,
    side: &str,
    bytes: &[u8],
    label: &str,
) -> Result<()> {
    let owed = sides_without_player(&folder.config, rules);
    if !owed.is_empty() {
        return Err(Error::refused(format!(
            "{label}: the game waits for the anchors of {} (`adjutant join`, DICE.md 7.1)",
            owed.join(", ")
        )));
    }
    let Some(missing) = commitments_missing(folder, rules, state, step)? else { return Ok(()) };
    if !missing.is_empty() {
        return Err(Error::refused(format!(
            "{label}: step {step} awaits more than one player, and no orders file is taken before every \
             commitment is in; commitments owed by {} (DICE.md 7.6)",
            missing.join(", ")
        )));
    }
    let hash = Bytes32::sha256(bytes);
    let committed = commitment(folder, step, side)?.unwrap_or(hash);
    if committed != hash {
        return Err(Error::refused(format!(
            "{label}: these orders hash to {}, not to {side}'s commitment {}; the file is refused and the \
             commitment stands (DICE.md 7.6)",
            hash.to_hex(),
            committed.to_hex()
        )));
    }
    Ok(())
}

/// The files of `mutual/` a resolved step is done with (its commitments
/// and the keys p_j it took).
pub fn used_files(folder: &GameFolder, step: &str, keys: &StepKeys) -> Vec<PathBuf> {
    let dir = folder.root.join(MUTUAL_DIR);
    let mut used: Vec<PathBuf> = keys.commitments.iter().map(|c| dir.join(commit_file(step, &c.side))).collect();
    if let Some(j) = keys.rolling_step {
        used.extend(keys.player_keys.iter().map(|p| dir.join(key_file(j, &p.label))));
    }
    used
}

/// Every player's label (for messages): the labels game.yaml records.
pub fn labels(config: &GameConfig) -> Vec<String> {
    config.dice.players.iter().map(|p| p.label.clone()).collect()
}
