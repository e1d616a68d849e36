//! Self-play games (`systems::gboar::selfplay`) played again through real
//! game folders: `new` with the game's public chain top, each step's
//! orders files submitted to the inbox, `resolve`, and `verify` at the end.
//! The shell's half of `adjutant selfplay --keep`: the games themselves
//! are the rules' and touch no file.

use std::path::Path;
use std::time::Duration;

use serde::Serialize;

use crate::base::dice::{self, Bytes32};
use crate::base::error::{Error, Result};

/// 12345 as "12,345": how self-play's summary and the benchmarks print a
/// count.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// One step of a game played in process: what the folder must play again.
#[derive(Debug, Clone)]
pub struct FolderStep {
    /// The journal step (1 for the first).
    pub journal_step: u32,
    /// The game step, e.g. `17-allies-movement`.
    pub step: String,
    /// (side, the orders file's text); none for a step that needs no orders.
    pub files: Vec<(String, String)>,
    /// The state's hash after the step.
    pub state_sha256: Bytes32,
}

/// A game played in process, as [`write_folder`] plays it again.
#[derive(Debug, Clone)]
pub struct FolderGame<'a> {
    pub game_id: &'a str,
    /// Public: the game replays from it.
    pub chain_top: Bytes32,
    pub chain_length: u32,
    pub steps: &'a [FolderStep],
}

/// What [`write_folder`] found.
#[derive(Debug, Clone, Serialize)]
pub struct FolderCheck {
    pub dir: String,
    pub steps: u32,
    pub verified: bool,
    /// The first difference from the game played in process, or why
    /// `verify` failed.
    pub problem: Option<String>,
}

/// Play `game` again through a new game folder at `dir`: every journal
/// entry must name the same step and state hash as the game played in
/// process, and the folder must verify. A game that failed is written up
/// to the step it failed at.
pub fn write_folder(dir: &Path, module: &str, scenario: &str, game: &FolderGame<'_>) -> Result<FolderCheck> {
    let wait = Duration::from_secs(5);
    super::new_game(dir, module, scenario, game.game_id, Vec::new(), game.chain_length, None)?;
    // The public chain top, as the demo sets its own (src/cli/demo.rs).
    let top = game.chain_top;
    let mut folder = super::folder::GameFolder::open(dir)?;
    folder.config.dice.anchor = dice::chain_key(&top, folder.config.dice.chain_length, 0)?;
    crate::base::fsio::write_atomic(&dir.join(super::folder::GAME_FILE), folder.config.to_yaml().as_bytes())?;
    crate::base::fsio::write_atomic_mode(
        &dir.join(super::folder::SECRET_DIR).join(super::folder::CHAIN_TOP_FILE),
        format!("{}\n", top.to_hex()).as_bytes(),
        Some(0o600),
    )?;
    let mut check = FolderCheck { dir: dir.display().to_string(), steps: 0, verified: false, problem: None };
    let sides: Vec<String> = super::load_rules(&folder)?.sides().into_iter().map(|s| s.id).collect();
    let mut resolved = super::play::resolve_game(dir, &[], wait)?.resolved;
    // The referee's own files are written in a scratch folder of the
    // system's temporary space, removed when this returns (or fails), so
    // that nothing but the game folder is left beside it, even when the
    // command is killed during a resolve.
    let scratch = tempfile::Builder::new()
        .prefix("adjutant-selfplay-")
        .tempdir()
        .map_err(|e| Error::io(std::env::temp_dir(), e))?;
    for r in game.steps {
        if !r.files.is_empty() {
            // A side's file is submitted to the inbox; a role's that is no
            // side (the AWI referee's entry, `Rules::stand_in`) is not
            // taken by `submit`: it is given to `resolve` as the referee's
            // own file, as he enters it (docs/awi-southern.md).
            let mut own = Vec::new();
            for (side, file) in &r.files {
                let label = format!("{}-{side}.yaml", r.step);
                if sides.contains(side) {
                    super::inbox::submit(dir, file.as_bytes(), &label, super::inbox::Replace::No, wait)?;
                } else {
                    let path = scratch.path().join(&label);
                    crate::base::fsio::write_atomic(&path, file.as_bytes())?;
                    own.push(path);
                }
            }
            let done = super::play::resolve_game(dir, &own, wait);
            for path in &own {
                crate::base::fsio::remove_file(path)?;
            }
            resolved.extend(done?.resolved);
        }
    }
    check.steps = resolved.len() as u32;
    for (r, f) in game.steps.iter().zip(&resolved) {
        if r.journal_step != f.journal_step || r.step != f.game_step || r.state_sha256 != f.state_sha256 {
            check.problem = Some(format!(
                "journal step {} ({}) differs from step {} ({}) played in process",
                f.journal_step, f.game_step, r.journal_step, r.step
            ));
            return Ok(check);
        }
    }
    if resolved.len() != game.steps.len() {
        check.problem =
            Some(format!("the folder resolved {} steps; the game played {}", resolved.len(), game.steps.len()));
        return Ok(check);
    }
    let verdict = super::verify::verify(dir)?;
    check.verified = verdict.ok;
    if !verdict.ok {
        check.problem = Some(format!("verify: {:?}", verdict.failure));
    }
    Ok(check)
}
