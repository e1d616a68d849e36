//! The verifiable dice roller: a roll log is a folder whose every step is one
//! ad hoc roll. The step's only orders are its purpose text (side
//! `purpose`), so the purpose is fixed before the key that rolls it is
//! revealed, and anyone holding the anchor can recompute every roll.

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

/// Make a new roll log at `dir` with a fresh chain.
pub fn init(dir: &Path, game_id: &str, chain_length: u32) -> Result<Created> {
    let folder = GameFolder::create_new(dir, game_id, None, vec![], chain_length, None, &[])?;
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
) -> Result<JournalEntry> {
    let orders = SideHash::of_bytes(PURPOSE_SIDE, purpose.as_bytes());
    let digest = orders_digest(std::slice::from_ref(&orders))?;
    let seed = step_seed(game_id, step, key, &digest, &[])?;
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
        }],
        orders_digest: digest,
        key: *key,
        seed,
        commitments: Vec::new(),
        rolling_step: None,
        player_keys: Vec::new(),
        dice: dice.iter().map(|d| d.to_string()).collect(),
        rolls: step_dice.into_log(),
        game_step: None,
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
pub fn roll(dir: &Path, dice: &[DiceExpr], purpose: &str, wait: Duration) -> Result<Rolled> {
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
    let keys = folder.chain_keys_from(step)?;
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
    let entry = resolve_step(&folder.config.game_id, step, &key, previous, dice, purpose)?;
    let written = journal.append(&entry)?;
    let values: Vec<u16> = entry.rolls.iter().map(|r| r.value).collect();
    Ok(Rolled {
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
    })
}
