//! The verifiable dice roller: a roll log is a folder whose every step is one
//! ad hoc roll. The step's only orders are its purpose text (side
//! `purpose`), so the purpose is fixed before the key that rolls it is
//! revealed, and anyone holding the anchor can recompute every roll.
//!
//! In mutual mode (DICE.md 7.7) the other rollers hold chains too: `roll`
//! first seals the roll (its dice and purpose, whose SHA-256 it prints),
//! each other roller then sends his next key p_j (`roll key`), and `roll`
//! with the same dice and purpose rolls from a seed over every key.

use std::path::Path;
use std::time::Duration;

use serde::Serialize;

use crate::base::dice::{orders_digest, step_seed, Bytes32, DiceExpr, Roll, SideHash, StepDice};
use crate::base::error::{Error, Result};
use crate::game::folder::{FolderKind, GameFolder};
use crate::game::journal::{JournalEntry, OrdersRecord};

/// The side name under which a roll's purpose is its orders (DICE.md §3).
pub const PURPOSE_SIDE: &str = "purpose";
/// The longest purpose text, in bytes.
pub const MAX_PURPOSE_BYTES: usize = 500;

/// What `roll init` made.
#[derive(Debug, Clone, Serialize)]
pub struct Created {
    pub dir: String,
    pub game_id: String,
    pub chain_length: u32,
    pub anchor: Bytes32,
}

/// Make a new roll log at `dir` with a fresh chain; in mutual mode
/// (`mutual`: the other rollers' chains, DICE.md 7.7) with theirs too.
pub fn init(
    dir: &Path,
    game_id: &str,
    chain_length: u32,
    mutual: Option<Vec<crate::game::folder::PlayerChain>>,
) -> Result<Created> {
    if let Some(chains) = &mutual {
        if chains.is_empty() {
            return Err(Error::usage("a roll log in mutual mode needs the other roller's --anchor LABEL=ANCHOR[:M]"));
        }
        for (i, c) in chains.iter().enumerate() {
            crate::game::folder::check_roller_label(&c.label)?;
            if chains[..i].iter().any(|o| o.label == c.label) {
                return Err(Error::usage(format!("--anchor {}: given twice", c.label)));
            }
        }
    }
    let folder = GameFolder::create_new(dir, game_id, None, vec![], chain_length, mutual, &[])?;
    let anchor = folder.config.dice.anchor;
    Ok(Created { dir: dir.display().to_string(), game_id: game_id.to_string(), chain_length, anchor })
}

/// A purpose is one line of text.
pub fn check_purpose(purpose: &str) -> Result<()> {
    if purpose.trim().is_empty() {
        return Err(Error::usage("--purpose: say what the roll is for, e.g. --purpose \"to-hit, Fraser's at 1404\""));
    }
    if purpose.len() > MAX_PURPOSE_BYTES {
        return Err(Error::usage(format!("--purpose: at most {MAX_PURPOSE_BYTES} bytes, got {}", purpose.len())));
    }
    if let Some(c) = purpose.chars().find(|c| c.is_control()) {
        return Err(Error::usage(format!("--purpose: one line of text, without control characters (found {c:?})")));
    }
    Ok(())
}

/// The whole of one roll step, from its inputs: what `roll` writes and what
/// `verify` recomputes.
pub fn resolve_step(
    game_id: &str,
    step: u32,
    key: &Bytes32,
    previous: Option<Bytes32>,
    dice: &[DiceExpr],
    purpose: &str,
    mutual: &crate::game::mutual::StepKeys,
) -> Result<JournalEntry> {
    let orders = SideHash::of_bytes(PURPOSE_SIDE, purpose.as_bytes());
    let digest = orders_digest(std::slice::from_ref(&orders))?;
    let seed = step_seed(game_id, step, key, &digest, &mutual.seed_keys())?;
    let mut step_dice = StepDice::new(&seed);
    for expr in dice {
        for _ in 0..expr.count {
            step_dice.roll(expr.die, purpose);
        }
    }
    Ok(JournalEntry {
        step,
        previous,
        orders: vec![OrdersRecord {
            side: PURPOSE_SIDE.into(),
            sha256: orders.hash,
            text: Some(purpose.to_string()),
            file: None,
            default: false,
            trimmed: Vec::new(),
        }],
        orders_digest: digest,
        key: *key,
        seed,
        commitments: Vec::new(),
        rolling_step: mutual.rolling_step,
        player_keys: mutual.player_keys.clone(),
        dice: dice.iter().map(|d| d.to_string()).collect(),
        rolls: step_dice.into_log(),
        game_step: None,
        correction: None,
        forfeit: None,
        events: Vec::new(),
        state_sha256: None,
        players_sha256: None,
    })
}

/// What `roll` did.
#[derive(Debug, Clone, Serialize)]
pub struct Rolled {
    pub game_id: String,
    pub step: u32,
    pub entry: String,
    pub dice: Vec<String>,
    pub purpose: String,
    pub values: Vec<u16>,
    pub total: u32,
    pub rolls: Vec<Roll>,
    pub orders_sha256: Bytes32,
    pub orders_digest: Bytes32,
    pub key: Bytes32,
    pub seed: Bytes32,
    pub anchor: Bytes32,
    pub steps_left: u32,
}

/// Resolve one roll step in the roll log at `dir` and append it.
pub fn roll(dir: &Path, dice: &[DiceExpr], purpose: &str, wait: Duration) -> Result<RollOutcome> {
    if dice.is_empty() {
        return Err(Error::usage("say which dice to roll, e.g. `adjutant roll 3d10 --purpose ...`"));
    }
    check_purpose(purpose)?;
    let folder = GameFolder::open(dir)?;
    if folder.config.kind != FolderKind::RollLog {
        return Err(Error::usage(format!(
            "{}: a game of {}, whose dice are rolled by the rules engine; `adjutant roll` works on a roll log (make one with `adjutant roll init`)",
            dir.display(),
            folder.config.module.as_deref().unwrap_or("a module")
        )));
    }
    let _lock = crate::game::recovery::lock(&folder, wait)?;
    let journal = folder.journal();
    let (step, previous) = journal.tail()?;
    // One walk down the chain gives the key and checks it against the anchor.
    let keys = folder.chain_keys_from(step, 1)?;
    let length = folder.config.dice.chain_length;
    // Step N would reveal the chain top itself; stop one short of it.
    if step >= length {
        return Err(Error::refused(format!(
            "{}: the chain's {} usable steps are all used; start a new roll log with `adjutant roll init`",
            dir.display(),
            length - 1
        )));
    }
    let key = keys[0];
    let mutual = if folder.config.dice.mode == crate::game::folder::DiceMode::Mutual {
        match seal_or_keys(&folder, dice, purpose)? {
            Ok(keys) => keys,
            Err(sealed) => return Ok(RollOutcome::Sealed(sealed)),
        }
    } else {
        crate::game::mutual::StepKeys::default()
    };
    let entry = resolve_step(&folder.config.game_id, step, &key, previous, dice, purpose, &mutual)?;
    let written = journal.append(&entry)?;
    if mutual.rolling_step.is_some() {
        // The seal and the keys are in the journal now.
        let dir = folder.root.join(crate::game::mutual::MUTUAL_DIR);
        let _ = std::fs::remove_dir_all(&dir);
        crate::base::fsio::sync_dir(&folder.root)?;
    }
    let values: Vec<u16> = entry.rolls.iter().map(|r| r.value).collect();
    Ok(RollOutcome::Rolled(Box::new(Rolled {
        game_id: folder.config.game_id.clone(),
        step,
        entry: written.label,
        dice: entry.dice.clone(),
        purpose: purpose.to_string(),
        total: values.iter().map(|&v| v as u32).sum(),
        values,
        rolls: entry.rolls,
        orders_sha256: entry.orders[0].sha256,
        orders_digest: entry.orders_digest,
        key,
        seed: entry.seed,
        anchor: folder.config.dice.anchor,
        steps_left: length - 1 - step,
    })))
}

/// What `roll` did: rolled, or (mutual mode) sealed the roll and waits for
/// the other rollers' keys.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum RollOutcome {
    Rolled(Box<Rolled>),
    Sealed(Sealed),
}

/// DICE.md 7.7: a roll sealed before any key is revealed.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct Seal {
    pub dice: Vec<String>,
    pub purpose: String,
}

/// What a sealed roll waits for.
#[derive(Debug, Clone, Serialize)]
pub struct Sealed {
    pub sealed: Seal,
    /// The SHA-256 of the purpose text: the roll's orders (DICE.md §3),
    /// published before any key.
    pub purpose_sha256: Bytes32,
    /// j: this roll's number among the mutual rolls.
    pub rolling_step: u32,
    /// The rollers whose key p_j is still owed (`adjutant roll key`).
    pub keys_owed: Vec<String>,
}

const SEAL_FILE: &str = "seal.yaml";

fn seal_path(folder: &GameFolder) -> std::path::PathBuf {
    folder.root.join(crate::game::mutual::MUTUAL_DIR).join(SEAL_FILE)
}

/// The roll sealed and waiting for keys, if any.
pub fn read_seal(folder: &GameFolder) -> Result<Option<Seal>> {
    let path = seal_path(folder);
    if !path.exists() {
        return Ok(None);
    }
    let label = path.display().to_string();
    let text = crate::base::fsio::read_text(&path, &label)?;
    crate::base::yaml::parse(&label, &text).map(Some).map_err(Error::Data)
}

/// Mutual mode: seal the roll if none is sealed (Err: what it waits for);
/// roll it when it is the sealed one and every key p_j is in.
fn seal_or_keys(
    folder: &GameFolder,
    dice: &[DiceExpr],
    purpose: &str,
) -> Result<std::result::Result<crate::game::mutual::StepKeys, Sealed>> {
    let asked = Seal { dice: dice.iter().map(|d| d.to_string()).collect(), purpose: purpose.to_string() };
    let (j, last) = crate::game::mutual::chain_tops(folder)?;
    let j = j + 1;
    let mut keys = crate::game::mutual::StepKeys { rolling_step: Some(j), ..Default::default() };
    let mut owed = Vec::new();
    for p in &folder.config.dice.players {
        if j >= p.chain_length {
            return Err(Error::refused(format!(
                "roll {j} would take key p_{j} of {}, whose chain serves rolls 1..{} (DICE.md 7.5)",
                p.label,
                p.chain_length - 1
            )));
        }
        match crate::game::mutual::stored_key(folder, j, &p.label)? {
            Some(key) if last.get(&p.label).is_some_and(|prev| crate::base::dice::key_follows(&key, prev)) => {
                keys.player_keys.push(crate::game::journal::PlayerKeyRecord { label: p.label.clone(), key })
            }
            _ => owed.push(p.label.clone()),
        }
    }
    let sealed = |seal: Seal, owed: Vec<String>| Sealed {
        purpose_sha256: Bytes32::sha256(seal.purpose.as_bytes()),
        sealed: seal,
        rolling_step: j,
        keys_owed: owed,
    };
    match read_seal(folder)? {
        None => {
            let dir = folder.root.join(crate::game::mutual::MUTUAL_DIR);
            if !dir.is_dir() {
                std::fs::create_dir(&dir).map_err(|e| Error::io(&dir, e))?;
                crate::base::fsio::sync_dir(&folder.root)?;
            }
            let yaml = crate::base::yaml::to_string(&asked).map_err(|e| Error::usage(e.to_string()))?;
            crate::base::fsio::write_atomic(&seal_path(folder), yaml.as_bytes())?;
            Ok(Err(sealed(asked, owed)))
        }
        Some(seal) if seal != asked => Err(Error::refused(format!(
            "a roll is sealed already ({} for \"{}\"): roll it, with the same dice and purpose, once every key is \
             in (DICE.md 7.7: a sealed roll is never replaced)",
            seal.dice.join(" "),
            seal.purpose
        ))),
        Some(seal) if !owed.is_empty() => Err(Error::refused(format!(
            "the sealed roll {} for \"{}\" awaits key p_{j} from {} (`adjutant roll key`)",
            seal.dice.join(" "),
            seal.purpose,
            owed.join(", ")
        ))),
        Some(_) => Ok(Ok(keys)),
    }
}

/// What `roll key` stored.
#[derive(Debug, Clone, Serialize)]
pub struct KeyTaken {
    pub label: String,
    pub rolling_step: u32,
    pub keys_owed: Vec<String>,
}

/// DICE.md 7.7 and 7.3: another roller's key p_j for the sealed roll; refused
/// (and not stored) before a roll is sealed or out of order.
pub fn take_key(dir: &Path, spec: &str, wait: Duration) -> Result<KeyTaken> {
    let folder = GameFolder::open(dir)?;
    if folder.config.kind != FolderKind::RollLog || folder.config.dice.mode != crate::game::folder::DiceMode::Mutual {
        return Err(Error::usage(format!(
            "{}: not a roll log in mutual mode (`adjutant roll init --mode mutual`)",
            dir.display()
        )));
    }
    let (label, hex) = spec
        .split_once('=')
        .ok_or_else(|| Error::usage(format!("'{}': write LABEL=KEY", crate::base::error::echo(spec))))?;
    let key: Bytes32 = hex.trim().parse().map_err(|e| Error::usage(format!("the key: {e}")))?;
    let _lock = crate::game::recovery::lock(&folder, wait)?;
    let Some(chain) = folder.config.dice.players.iter().find(|p| p.label == label) else {
        return Err(Error::refused(format!("'{}' is not a roller of this log", crate::base::error::echo(label))));
    };
    if read_seal(&folder)?.is_none() {
        return Err(Error::refused(
            "no roll is sealed: a key sent before its roll is sealed is refused and not stored (DICE.md 7.3, 7.7)",
        ));
    }
    let (j, last) = crate::game::mutual::chain_tops(&folder)?;
    let j = j + 1;
    let previous = last.get(label).copied().unwrap_or(chain.anchor);
    if !crate::base::dice::key_follows(&key, &previous) {
        return Err(Error::refused(format!(
            "not p_{j} of {label}: it does not hash to his previous key; keys go strictly in order (DICE.md 7.3)"
        )));
    }
    let path = folder.root.join(crate::game::mutual::MUTUAL_DIR).join(crate::game::mutual::key_file(j, label));
    crate::base::fsio::write_atomic(&path, format!("{}\n", key.to_hex()).as_bytes())?;
    let mut keys_owed = Vec::new();
    for p in &folder.config.dice.players {
        if crate::game::mutual::stored_key(&folder, j, &p.label)?.is_none() {
            keys_owed.push(p.label.clone());
        }
    }
    Ok(KeyTaken { label: label.to_string(), rolling_step: j, keys_owed })
}
