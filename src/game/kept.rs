//! What players sent that the game does not use, kept with the reason
//! (issue 16): orders files superseded by a newer message, orders
//! withdrawn by a `withdraw:` message, and messages refused at intake.
//! Nothing a player sends is silently lost.
//!
//! ```text
//! kept/superseded/000001--16-allies-movement--french.yaml   the file replaced
//! kept/superseded/000001--16-allies-movement--french.reason why, in words
//! kept/withdrawn/000001--standing--british.yaml             standing orders withdrawn
//! kept/refused/000001.eml                                   the raw message refused
//! ```
//!
//! Each folder numbers its files from 1 in the order they were kept: the
//! order of arrival at intake (the folder's lock orders them; no clock and
//! no Date header is read). A kept file's reason is written beside it, in
//! `<name>.reason`, after the change it records.
//!
//! Crash recovery (src/game/recovery.rs): the kept copy is written first,
//! then the inbox (or standing/) is changed, then the reason. A kept copy
//! without its reason is what a killed command left: when the inbox still
//! holds exactly those bytes the change never happened and the copy is
//! removed; otherwise the change happened and the reason is written. A
//! refused message without its reason is removed (its sender had no
//! answer and sends it again).

use std::path::{Path, PathBuf};

use crate::base::dice::Bytes32;
use crate::base::error::Result;
use crate::base::fsio;
use crate::game::folder::GameFolder;

/// The folder of kept files in a game folder.
pub const KEPT_DIR: &str = "kept";

/// Why a file is kept: its folder under `kept/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// Replaced by a newer message for the same step (or newer standing orders).
    Superseded,
    /// Withdrawn by a `withdraw:` message.
    Withdrawn,
    /// A message refused at intake: the raw message.
    Refused,
}

impl Why {
    pub const ALL: [Why; 3] = [Why::Superseded, Why::Withdrawn, Why::Refused];

    pub fn dir(self) -> &'static str {
        match self {
            Why::Superseded => "superseded",
            Why::Withdrawn => "withdrawn",
            Why::Refused => "refused",
        }
    }

    /// The extension of the kept files of this folder.
    fn ext(self) -> &'static str {
        match self {
            Why::Refused => "eml",
            _ => "yaml",
        }
    }
}

/// At most this many refused messages are kept (a refused message is
/// kept only while there is room: mail from anyone may be refused, so the
/// folder must not grow without bound; the referee empties
/// `kept/refused/` to make room).
pub const REFUSED_MAX_FILES: usize = 1000;
/// And at most this many bytes of them together.
pub const REFUSED_MAX_BYTES: u64 = 64 << 20;

/// Whether a refused message of `len` bytes still fits in `kept/refused/`
/// (its files counted and their sizes summed: at most
/// [`REFUSED_MAX_FILES`] of them, so the cost is bounded).
pub fn refused_room(folder: &GameFolder, len: usize) -> Result<bool> {
    let dir = folder.root.join(KEPT_DIR).join(Why::Refused.dir());
    if !dir.is_dir() {
        return Ok(len as u64 <= REFUSED_MAX_BYTES);
    }
    let names = fsio::list_names(&dir)?;
    let kept: Vec<&String> = names.iter().filter(|n| parse_name(Why::Refused, n).is_some()).collect();
    if kept.len() >= REFUSED_MAX_FILES {
        return Ok(false);
    }
    let mut bytes = len as u64;
    for name in kept {
        bytes += std::fs::metadata(dir.join(name)).map(|m| m.len()).unwrap_or(0);
    }
    Ok(bytes <= REFUSED_MAX_BYTES)
}

/// The step name standing orders are kept under (`000003--standing--british.yaml`).
pub const STANDING: &str = "standing";

/// The number and the rest of a kept file's name (`000001--16-x--french`
/// for `000001--16-x--french.yaml`), if it is one.
pub fn parse_name(why: Why, name: &str) -> Option<(u32, String)> {
    let stem = name.strip_suffix(&format!(".{}", why.ext()))?;
    let (digits, rest) = match stem.split_once("--") {
        Some((d, rest)) => (d, rest.to_string()),
        None => (stem, String::new()),
    };
    if digits.len() != 6 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if why == Why::Refused && !rest.is_empty() || why != Why::Refused && rest.rsplit_once("--").is_none() {
        return None;
    }
    digits.parse().ok().map(|n| (n, rest))
}

/// The name of the reason file beside a kept file.
pub fn reason_name(name: &str) -> String {
    let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
    format!("{stem}.reason")
}

/// The next number in `kept/<why>/`: one more than the highest there.
fn next_number(dir: &Path) -> Result<u32> {
    if !dir.is_dir() {
        return Ok(1);
    }
    let highest = fsio::list_names(dir)?
        .iter()
        .filter_map(|name| {
            let digits = name.get(..6)?;
            digits.bytes().all(|b| b.is_ascii_digit()).then(|| digits.parse::<u32>().ok())?
        })
        .max()
        .unwrap_or(0);
    Ok(highest + 1)
}

/// A file kept, before its reason is written.
#[derive(Debug, Clone)]
pub struct Copy {
    /// Its path, relative to the game folder (`kept/superseded/000001--...yaml`).
    pub stored: String,
    path: PathBuf,
}

/// Keep `bytes` in `kept/<why>/`, numbered in order of arrival; `what` is
/// `<step>--<side>` for an orders file (`standing--<side>` for standing
/// orders), empty for a refused message. The caller holds the folder's
/// lock, and writes the reason with [`reason`] once the change is made.
pub fn keep(folder: &GameFolder, why: Why, what: &str, bytes: &[u8]) -> Result<Copy> {
    let kept = folder.root.join(KEPT_DIR);
    fsio::ensure_dir(&kept)?;
    let dir = kept.join(why.dir());
    fsio::ensure_dir(&dir)?;
    let n = next_number(&dir)?;
    let name = if what.is_empty() { format!("{n:06}.{}", why.ext()) } else { format!("{n:06}--{what}.{}", why.ext()) };
    let path = dir.join(&name);
    fsio::write_atomic(&path, bytes)?;
    Ok(Copy { stored: format!("{KEPT_DIR}/{}/{name}", why.dir()), path })
}

/// Write the reason beside a kept file: the record is then complete.
pub fn reason(copy: &Copy, text: &str) -> Result<()> {
    let name = copy.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut text = crate::base::error::escape_lines(text.trim_end());
    text.push('\n');
    fsio::write_atomic(&copy.path.with_file_name(reason_name(&name)), text.as_bytes())
}

/// What `<step>--<side>` names, in words.
fn whose(step: &str, side: &str) -> String {
    if step == STANDING {
        format!("{side}'s standing orders")
    } else {
        format!("{side}'s orders for step {step}")
    }
}

/// The reason beside a superseded file: made from the folder alone, so
/// that recovery writes the very bytes a command killed before it would
/// have written.
pub fn superseded_reason(step: &str, side: &str, old: &[u8], new: &[u8]) -> String {
    format!(
        "superseded: {} (sha256 {}, {} bytes) were replaced by a file that arrived later at intake (sha256 {}, {} \
         bytes): the newer by order of arrival replaces the older before the step is resolved",
        whose(step, side),
        Bytes32::sha256(old).to_hex(),
        old.len(),
        Bytes32::sha256(new).to_hex(),
        new.len()
    )
}

/// The reason beside a withdrawn file (as [`superseded_reason`]).
pub fn withdrawn_reason(step: &str, side: &str, old: &[u8]) -> String {
    format!(
        "withdrawn: {} (sha256 {}, {} bytes) were withdrawn by {side}'s player before they were used",
        whose(step, side),
        Bytes32::sha256(old).to_hex(),
        old.len()
    )
}

/// A kept file without its reason, as a killed command left it.
#[derive(Debug, Clone)]
pub struct Unfinished {
    pub path: PathBuf,
    /// `Some(reason)`: the change was made, write this reason; `None`: it
    /// was not, remove the copy.
    pub finish: Option<String>,
}

/// Every kept file without its reason, and what recovery does with it.
pub fn unfinished(folder: &GameFolder) -> Result<Vec<Unfinished>> {
    let mut found = Vec::new();
    for why in Why::ALL {
        let dir = folder.root.join(KEPT_DIR).join(why.dir());
        if !dir.is_dir() {
            continue;
        }
        let names = fsio::list_names(&dir)?;
        for name in &names {
            let Some((_, what)) = parse_name(why, name) else { continue };
            if names.contains(&reason_name(name)) {
                continue;
            }
            let path = dir.join(name);
            let finish = match why {
                Why::Refused => None,
                Why::Superseded | Why::Withdrawn => {
                    let Some((step, side)) = what.rsplit_once("--") else { continue };
                    let now = if step == STANDING {
                        folder.root.join(crate::game::standing::file_name(side))
                    } else {
                        folder.root.join(crate::game::inbox::INBOX_DIR).join(crate::game::inbox::file_name(step, side))
                    };
                    let kept = fsio::read(&path)?;
                    let current = if now.is_file() { Some(fsio::read(&now)?) } else { None };
                    match (why, current) {
                        // The inbox still holds the kept bytes: no change was made.
                        (_, Some(current)) if current == kept => None,
                        (Why::Superseded, Some(new)) => Some(superseded_reason(step, side, &kept, &new)),
                        (Why::Withdrawn, None) => Some(withdrawn_reason(step, side, &kept)),
                        // Not what a killed command leaves (edited by hand?): undone.
                        _ => None,
                    }
                }
            };
            found.push(Unfinished { path, finish });
        }
    }
    Ok(found)
}

/// The folders of `kept/` that hold nothing (a killed command made them
/// before its first copy, or recovery undid the copy), deepest first.
pub fn empty_folders(folder: &GameFolder) -> Result<Vec<PathBuf>> {
    let root = folder.root.join(KEPT_DIR);
    if !root.is_dir() {
        return Ok(Vec::new());
    }
    let mut empty = Vec::new();
    let mut all_empty = true;
    for name in fsio::list_names(&root)? {
        let path = root.join(&name);
        let is_empty_dir = Why::ALL.iter().any(|w| w.dir() == name)
            && path.is_dir()
            && fsio::list_names(&path)?.iter().all(|n| n.starts_with(".tmp-"));
        if is_empty_dir {
            empty.push(path);
        } else {
            all_empty = false;
        }
    }
    if all_empty {
        empty.push(root);
    }
    Ok(empty)
}

/// Finish or undo one kept file left without its reason.
pub fn settle(item: &Unfinished) -> Result<String> {
    let name = item.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    match &item.finish {
        Some(text) => {
            let copy = Copy { stored: name.clone(), path: item.path.clone() };
            reason(&copy, text)?;
            Ok(format!("wrote the reason beside {name}: its change was made"))
        }
        None => {
            fsio::remove_file(&item.path)?;
            Ok(format!("removed {name}: the change it records was never made"))
        }
    }
}

/// The names under `kept/` that adjutant does not write, for `verify`.
pub fn unexpected(folder: &GameFolder) -> Result<Vec<String>> {
    let root = folder.root.join(KEPT_DIR);
    let mut found = Vec::new();
    for name in fsio::list_names(&root)? {
        let path = root.join(&name);
        let Some(why) = Why::ALL.into_iter().find(|w| w.dir() == name) else {
            found.push(format!("{KEPT_DIR}/{name} (kept/ holds superseded/, withdrawn/ and refused/)"));
            continue;
        };
        if !path.is_dir() {
            found.push(format!("{KEPT_DIR}/{name}"));
            continue;
        }
        let names = fsio::list_names(&path)?;
        for file in &names {
            let label = format!("{KEPT_DIR}/{name}/{file}");
            if parse_name(why, file).is_some() {
                if !names.contains(&reason_name(file)) {
                    found.push(format!("{label} (no reason beside it)"));
                }
                continue;
            }
            let kept_file = file.strip_suffix(".reason").map(|stem| format!("{stem}.{}", why.ext()));
            if kept_file.is_some_and(|k| parse_name(why, &k).is_some() && names.contains(&k)) {
                continue;
            }
            found.push(format!("{label} (not a kept file or its reason)"));
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_kept_files() {
        assert_eq!(parse_name(Why::Superseded, "000001--16-allies-movement--french.yaml").map(|p| p.0), Some(1));
        assert_eq!(
            parse_name(Why::Withdrawn, "000012--standing--british.yaml"),
            Some((12, "standing--british".into()))
        );
        assert_eq!(parse_name(Why::Refused, "000003.eml"), Some((3, String::new())));
        for (why, other) in [
            (Why::Refused, "000003--x.eml"),
            (Why::Refused, "3.eml"),
            (Why::Superseded, "000001--french.yaml"),
            (Why::Superseded, "000001--a--b.eml"),
            (Why::Withdrawn, "notes.txt"),
        ] {
            assert_eq!(parse_name(why, other), None, "{other}");
        }
        assert_eq!(reason_name("000001--a--b.yaml"), "000001--a--b.reason");
        assert_eq!(reason_name("000003.eml"), "000003.reason");
    }
}
