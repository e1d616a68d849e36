//! The inbox: orders files submitted ahead of resolution (`adjutant
//! submit`), kept byte for byte in `inbox/` until their step is resolved.
//!
//! A file is for the step the game awaits (checked whole now, as `validate`
//! does) or for a later step (its header is checked now: game, a turn and
//! step of the scenario still to come, a side that step may hear from; its
//! body is checked when its step comes). One file per side and step:
//! another is refused unless `--replace`; by mail a newer message replaces
//! the older, by order of arrival (issue 16), the older kept in
//! `kept/superseded/` (src/game/kept.rs). A file for a step already
//! resolved is stale and refused. `resolve` takes the inbox's files when
//! their steps come and moves each into `orders/` as the journal records it
//! (a copy a killed `resolve` left is removed by recovery.rs).

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use crate::base::dice::Bytes32;
use crate::base::error::{Error, Result};
use crate::base::fsio;
use crate::game::folder::{FolderKind, GameFolder};
use crate::system::Rules;

/// The inbox folder of a game folder.
pub const INBOX_DIR: &str = "inbox";

/// What `submit` stored.
#[derive(Debug, Clone, Serialize)]
pub struct Receipt {
    pub game: String,
    pub turn: u32,
    /// The step as the journal names it, e.g. `16-allies-movement`.
    pub step: String,
    pub side: String,
    /// SHA-256 of the file's exact bytes (DICE.md §3: what the dice bind to).
    pub sha256: Bytes32,
    pub bytes: usize,
    /// Where it is kept, relative to the game folder.
    pub stored: String,
    /// True when it replaced a file submitted before for the same step.
    pub replaced: bool,
    /// The file it replaced, now kept in `kept/superseded/` (src/game/kept.rs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replaced_file: Option<Superseded>,
    /// True when the side's file for the step already held exactly these
    /// bytes: nothing was written.
    pub unchanged: bool,
    /// `current`: for the step the game awaits; `ahead`: for a later step.
    pub when: String,
    /// The sides whose orders the awaited step still lacks.
    pub still_awaiting: Vec<String>,
    /// Orders that pass but hurt the sender (issue 16), a line each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// A file replaced by a newer one: where it is kept, and what it was.
#[derive(Debug, Clone, Serialize)]
pub struct Superseded {
    /// Where it was (`inbox/16-allies-movement--french.yaml`).
    pub was: String,
    /// Where it is kept now, with its reason beside it.
    pub kept: String,
    pub sha256: Bytes32,
    pub bytes: usize,
}

/// What a `withdraw:` message (or `submit --withdraw`) took back.
#[derive(Debug, Clone, Serialize)]
pub struct Withdrawal {
    pub game: String,
    pub side: String,
    /// The step the orders were for, or `standing` for standing orders.
    pub step: String,
    /// Where the orders were.
    pub was: String,
    /// Where they are kept now, with the reason beside them.
    pub kept: String,
    pub sha256: Bytes32,
    pub bytes: usize,
}

/// One file waiting in the inbox.
#[derive(Debug, Clone)]
pub struct Pending {
    pub step: String,
    pub side: String,
    pub path: PathBuf,
    pub bytes: Vec<u8>,
}

/// Set aside an inbox file its step was resolved without (the AWI
/// referee's entry stood in for both commanders', `Rules::stand_in`; or it
/// was sent ahead for a step that came not awaiting its side): kept
/// in `kept/superseded/` with its reason, then removed from the inbox, so
/// nothing a player sent is lost. Journal entry `entry` resolved the step
/// with the files of `used`. Called once the entry is committed, by
/// `resolve` and by recovery after a killed one (the reason is made from
/// the folder alone, so both write the same).
pub fn set_aside(folder: &GameFolder, p: &Pending, entry: u32, used: &[String]) -> Result<String> {
    let copy = crate::game::kept::keep(
        folder,
        crate::game::kept::Why::Superseded,
        &name_stem(&file_name(&p.step, &p.side)),
        &p.bytes,
    )?;
    let text = format!(
        "superseded: {}'s orders for step {} (sha256 {}, {} bytes) were not used: journal entry {entry} resolved \
         the step with the orders of {} only",
        p.side,
        p.step,
        Bytes32::sha256(&p.bytes).to_hex(),
        p.bytes.len(),
        if used.is_empty() { "nobody".to_string() } else { used.join(", ") }
    );
    crate::game::kept::reason(&copy, &text)?;
    fsio::remove_file(&p.path)?;
    Ok(format!("kept {} in {}: its step was resolved without it", file_name(&p.step, &p.side), copy.stored))
}

/// The inbox file name of a side's orders for a step.
pub fn file_name(step: &str, side: &str) -> String {
    format!("{step}--{side}.yaml")
}

/// Every file in the inbox, by step and side.
pub fn pending(folder: &GameFolder) -> Result<Vec<Pending>> {
    let mut list = Vec::new();
    for (stem, path) in fsio::yaml_files(&folder.root.join(INBOX_DIR))? {
        let Some((step, side)) = stem.rsplit_once("--") else { continue };
        // Never more of a file than the limit it is held to when its step comes.
        let bytes = crate::game::input::read_capped(&path, crate::game::input::MAX_ORDERS_BYTES)?;
        list.push(Pending { step: step.to_string(), side: side.to_string(), path, bytes });
    }
    list.sort_by(|a, b| (&a.step, &a.side).cmp(&(&b.step, &b.side)));
    Ok(list)
}

/// The sides whose orders the next step of `state` still owes (issue 16):
/// those it awaits, less those with their own file for it in the inbox and
/// those whose standing orders cover it (orders sent ahead count as in when
/// their step comes). Default orders `tick` wrote do not count as a side's
/// own: it still owes them until the step is resolved.
pub fn owed(folder: &GameFolder, rules: &dyn Rules, state: &crate::system::State) -> Result<Vec<String>> {
    let Some(step) = state.next_step() else { return Ok(Vec::new()) };
    let pending = pending(folder)?;
    // A stand-in's entry (the AWI referee's) answers for every side.
    let own = |side: &str| {
        pending.iter().any(|p| p.step == step.name && p.side == side && !crate::game::deadline::is_default(&p.bytes))
    };
    if crate::game::stand_in(&folder.config, rules, state.as_ref()).is_some_and(|role| own(&role)) {
        return Ok(Vec::new());
    }
    let standing = crate::game::standing::summaries(folder)?;
    Ok(rules
        .awaited(state.as_ref())
        .into_iter()
        .filter(|side| !own(side))
        .filter(|side| {
            !standing.iter().any(|s| &s.side == side && s.problem.is_none() && s.steps.contains(&step.field))
        })
        .collect())
}

/// An orders file's header, read loosely (the full check comes with the
/// step); the turn as `check_header` reads it.
struct Header {
    game: String,
    turn: u32,
    step: String,
    side: String,
    /// Where the text's fields are written, when the text can be placed.
    index: Option<crate::base::yaml::locate::Index>,
}

impl Header {
    /// `:line:column` of a header field, as messages place it.
    fn at(&self, key: &str) -> String {
        self.index.as_ref().and_then(|i| i.locate(key)).map(|(l, c)| format!(":{l}:{c}")).unwrap_or_default()
    }
}

fn header(rules: &dyn Rules, label: &str, text: &str) -> Result<Header> {
    let value: crate::base::yaml::Value = crate::base::yaml::from_str(text).map_err(|e| {
        let at = crate::base::yaml::error_location(&e).map(|(l, c)| format!(":{l}:{c}")).unwrap_or_default();
        Error::refused(format!("{label}{at}: not YAML: {}", crate::base::error::echo_serde(&e)))
    })?;
    let index = crate::base::yaml::locate::Index::new(text);
    let missing = |key: &str| {
        Error::refused(format!(
            "{label}:1:1: {key}: the file does not say its {key}: every orders file names game, turn, step and side"
        ))
    };
    let field = |key: &str| -> Result<String> {
        match value.get(key) {
            Some(crate::base::yaml::Value::String(s)) => Ok(s.clone()),
            Some(crate::base::yaml::Value::Number(n)) => Ok(n.to_string()),
            _ => Err(missing(key)),
        }
    };
    let turn = match value.get("turn") {
        None => return Err(missing("turn")),
        Some(v) => rules.read_turn(text, v).map_err(|(at, message)| {
            let at = at.map(|(l, c)| format!(":{l}:{c}")).unwrap_or_default();
            Error::refused(format!("{label}{at}: turn: {message}"))
        })?,
    };
    Ok(Header { game: field("game")?, turn, step: field("step")?, side: field("side")?, index })
}

/// `<step>--<side>` of an inbox file name.
fn name_stem(name: &str) -> String {
    name.strip_suffix(".yaml").unwrap_or(name).to_string()
}

/// Whether a file may replace the side's earlier file for the same step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replace {
    /// No: `submit FILE` without `--replace`.
    No,
    /// Yes: `submit FILE --replace`.
    Flag,
    /// Yes: a message by mail, the newer by order of arrival (issue 16).
    ByMail,
}

impl Replace {
    fn allowed(self) -> bool {
        self != Replace::No
    }
}

/// Store an orders file in the inbox of the game at `dir`; `label` names it
/// in messages. Nothing is written unless every check passes. A file that
/// replaces the side's earlier file for the step (with `replace`) keeps the
/// earlier one in `kept/superseded/` with its reason; the same bytes again
/// change nothing.
pub fn submit(dir: &Path, bytes: &[u8], label: &str, replace: Replace, wait: Duration) -> Result<Receipt> {
    // The limits first: a refused file costs no more than reading it.
    let text = crate::game::input::orders_text_or_refuse(label, bytes)?;
    let folder = GameFolder::open(dir)?;
    if folder.config.kind != FolderKind::Game {
        return Err(Error::usage(format!("{}: a roll log; submit is for games", dir.display())));
    }
    let _lock = crate::game::recovery::lock(&folder, wait)?;
    let rules = crate::game::load_rules(&folder)?;
    let state = crate::game::load_state(&folder)?;
    let head = header(rules, label, text)?;
    let echo = crate::base::error::echo;
    let game_id = &folder.config.game_id;
    if &head.game != game_id {
        return Err(Error::refused(format!(
            "{label}{}: game: these orders are for game '{}'; this game is '{game_id}'",
            head.at("game"),
            echo(&head.game)
        )));
    }
    if let Some((at, f)) = crate::game::play::forfeited(&folder)? {
        return Err(Error::refused(format!("{label}: {}", crate::game::play::adjourned_words(at, &f))));
    }
    let Some(next) = state.next_step() else {
        return Err(Error::refused(format!("{label}{}: the game is over: it awaits no orders", head.at("step"))));
    };
    let sides: Vec<String> = rules.sides().into_iter().map(|s| s.id).collect();
    let (turn, step_name) = (head.turn, head.step.clone());
    if !sides.contains(&head.side) {
        return Err(Error::refused(format!(
            "{label}{}: side: '{}' is not a side of {}; the sides are {}",
            head.at("side"),
            echo(&head.side),
            rules.module_id(),
            sides.join(", ")
        )));
    }
    let current = turn == next.turn && step_name == next.field;
    let mutual = folder.config.dice.mode == crate::game::folder::DiceMode::Mutual;
    if mutual && !current {
        return Err(Error::refused(format!(
            "{label}{}: step: a game in mutual mode takes orders for the step it awaits only, {} of turn {} \
             (DICE.md 7.6: the step's commitments come first)",
            head.at("step"),
            next.field,
            next.turn
        )));
    }
    let mut warnings = Vec::new();
    let step = if current {
        // The awaited step: every check `validate` makes.
        let checked = rules
            .check_header(game_id, state.as_ref(), label, text)
            .map_err(|list| Error::refused(crate::base::error::problem_list(&list)))?;
        let problems = rules.validate_body(state.as_ref(), &checked, label, text);
        if !problems.is_empty() {
            return Err(Error::refused(crate::base::error::problem_list(&problems)));
        }
        // The checks that span the files already in for the step (issue
        // 16): refused now, naming those files, not at resolve.
        let mut others = std::collections::BTreeMap::new();
        let mut files = Vec::new();
        for p in pending(&folder)?.into_iter().filter(|p| p.step == next.name && p.side != head.side) {
            let label = format!("{INBOX_DIR}/{}", file_name(&p.step, &p.side));
            let Ok(text) = std::str::from_utf8(&p.bytes) else { continue };
            if let Ok(h) = rules.check_header(game_id, state.as_ref(), &label, text) {
                others.insert(p.side.clone(), h.body);
                files.push(format!("{label} (sha256 {})", Bytes32::sha256(&p.bytes).to_hex()));
            }
        }
        let together = rules.validate_with(state.as_ref(), &checked, &others, label, text);
        let mut clash = None;
        if !together.is_empty() {
            let list = crate::base::error::problem_list(&together);
            if mutual && crate::game::mutual::committed_to(&folder, rules, &state, &next.name, &head.side, bytes)? {
                // Bound by its side's commitment (DICE.md 7.6), the file
                // could be replaced by no other: refused, it would leave
                // the step owing it until its side forfeits. It is taken;
                // the step, sealed, is refused together, and the referee
                // sets its files aside for new ones (A6).
                clash = Some(format!(
                    "{list}, together with the orders already in: {}; your file hashes to your commitment, so it \
                     is taken (no other could be): once every file of the step is in, the rules refuse them \
                     together and the step waits for the referee to set them aside (`adjutant correct --from` \
                     the awaited step, DICE.md A6), after which every side it awaits commits and sends its \
                     orders again",
                    files.join(", ")
                ));
            } else {
                // In mutual mode no file once in is replaced (DICE.md A5):
                // the hint of a referee-mode game would be refused.
                let stands = if mutual {
                    "; the first file in stands, and in mutual mode no file once in is replaced (DICE.md A5): \
                     only a file that agrees with it is taken (and, where the step takes commitments, that \
                     hashes to your commitment)"
                } else {
                    "; the first file in stands (its player may send his again, with --replace, before yours)"
                };
                return Err(Error::refused(format!(
                    "{list}, together with the orders already in: {}{stands}",
                    files.join(", ")
                )));
            }
        }
        warnings = rules.warnings(state.as_ref(), &checked, label, text);
        warnings.extend(clash);
        checked.step
    } else {
        let Some(ahead) = rules.step_ahead(state.as_ref(), turn, &step_name)? else {
            let stale = turn < next.turn || (turn == next.turn && state.resolved_steps() > 0);
            return Err(Error::refused(format!(
                "{label}{}: step: turn {turn}, step '{}': {}; the game awaits step '{}' of turn {}",
                head.at("step"),
                echo(&step_name),
                if stale { "not a step still to come (stale orders?)" } else { "not a step of this scenario" },
                next.field,
                next.turn,
            )));
        };
        let may = &ahead.may_await;
        if !may.contains(&head.side) {
            let who = if may.is_empty() { "no side".to_string() } else { may.join(", ") };
            return Err(Error::refused(format!(
                "{label}{}: side: step '{}' of turn {turn} takes orders from {who}, not from {}",
                head.at("side"),
                echo(&step_name),
                head.side
            )));
        }
        ahead.step
    };
    let Header { game, side, .. } = head;
    let name = file_name(&step.name, &side);
    let path = folder.root.join(INBOX_DIR).join(&name);
    let before = if path.is_file() { Some(fsio::read(&path)?) } else { None };
    // The same bytes again (a message sent twice): nothing to change.
    let unchanged = before.as_deref() == Some(bytes);
    let replaced = before.is_some() && !unchanged;
    // Default orders `tick` wrote for the side (a missed deadline) give way
    // to the side's own file however it comes (src/game/deadline.rs).
    let default = before.as_deref().is_some_and(crate::game::deadline::is_default);
    if replaced && !replace.allowed() && !default {
        return Err(Error::refused(format!(
            "{label}: {side} has already submitted orders for step {} ({INBOX_DIR}/{name}); \
             give --replace to replace them before the step is resolved",
            step.name
        )));
    }
    if mutual && replaced {
        // DICE.md A5: after sealing, keys may be known, and a replaced file
        // would be a re-roll.
        return Err(Error::refused(format!(
            "{label}: {side} has already submitted orders for step {} ({INBOX_DIR}/{name}, sha256 {}); in mutual \
             mode a file once in stands and is never replaced, since the step may be sealed and keys sent on it \
             (DICE.md 7.2, 7.3, A5): the orders already in are the ones the step will use (unless the rules refuse \
             the step's files together and the referee sets them all aside, A6), and nothing sent now \
             changes them",
            step.name,
            Bytes32::sha256(before.as_deref().unwrap_or_default()).to_hex()
        )));
    }
    if mutual && !unchanged {
        crate::game::mutual::check_orders_file(&folder, rules, &state, &step.name, &side, bytes, label)?;
    }
    let inbox = folder.root.join(INBOX_DIR);
    if !inbox.is_dir() {
        std::fs::create_dir(&inbox).map_err(|e| Error::io(&inbox, e))?;
        fsio::sync_dir(&folder.root)?;
    }
    let mut replaced_file = None;
    if let (Some(old), true) = (&before, replaced) {
        // Kept first, then replaced, then the reason (src/game/kept.rs:
        // recovery finishes or undoes each prefix).
        let copy = crate::game::kept::keep(&folder, crate::game::kept::Why::Superseded, &name_stem(&name), old)?;
        fsio::write_atomic(&path, bytes)?;
        let sha256 = Bytes32::sha256(old);
        crate::game::kept::reason(&copy, &crate::game::kept::superseded_reason(&step.name, &side, old, bytes))?;
        replaced_file =
            Some(Superseded { was: format!("{INBOX_DIR}/{name}"), kept: copy.stored, sha256, bytes: old.len() });
    } else if !unchanged {
        fsio::write_atomic(&path, bytes)?;
    }
    let still_awaiting = owed(&folder, rules, &state)?;
    Ok(Receipt {
        game,
        turn,
        step: step.name,
        side,
        sha256: Bytes32::sha256(bytes),
        bytes: bytes.len(),
        stored: format!("{INBOX_DIR}/{name}"),
        replaced,
        replaced_file,
        unchanged,
        when: if current { "current".into() } else { "ahead".into() },
        still_awaiting,
        warnings,
    })
}

/// The fields of a `withdraw:` message.
const WITHDRAW_FIELDS: [&str; 3] = ["game", "side", "withdraw"];

/// True when `text` is a `withdraw:` message (a YAML mapping with a
/// `withdraw` key).
pub fn is_withdrawal(text: &str) -> bool {
    crate::base::yaml::from_str::<crate::base::yaml::Value>(text).ok().is_some_and(|v| v.get("withdraw").is_some())
}

/// How a player withdraws by mail, for the refusals about it.
pub const WITHDRAW_FORM: &str = "a withdraw: message is three lines, `game: GAME`, `side: SIDE` and \
                                 `withdraw: STEP` (the step as the receipt names it, e.g. 16-allies-movement) or \
                                 `withdraw: standing`";

/// Read a `withdraw:` message: its side and what it withdraws.
pub fn read_withdrawal(game_id: &str, label: &str, text: &str) -> Result<(String, String)> {
    let value: crate::base::yaml::Value = crate::base::yaml::from_str(text).map_err(|e| {
        let at = crate::base::yaml::error_location(&e).map(|(l, c)| format!(":{l}:{c}")).unwrap_or_default();
        Error::refused(format!("{label}{at}: not YAML: {}; {WITHDRAW_FORM}", crate::base::error::echo_serde(&e)))
    })?;
    let index = crate::base::yaml::locate::Index::new(text);
    let at = |key: &str| {
        index.as_ref().and_then(|i| i.locate(key)).map(|(l, c)| format!(":{l}:{c}")).unwrap_or_else(|| ":1:1".into())
    };
    if let Some(map) = value.as_mapping() {
        for key in map.keys() {
            let name = key.as_str().unwrap_or_default();
            if !WITHDRAW_FIELDS.contains(&name) {
                return Err(Error::refused(format!(
                    "{label}{}: {}: not a field of a withdraw: message; {WITHDRAW_FORM}",
                    at(name),
                    crate::base::error::echo(name)
                )));
            }
        }
    }
    let field = |key: &str| -> Result<String> {
        match value.get(key) {
            Some(crate::base::yaml::Value::String(s)) => Ok(s.clone()),
            Some(crate::base::yaml::Value::Number(n)) => Ok(n.to_string()),
            _ => Err(Error::refused(format!("{label}{}: {key}: missing or not a name; {WITHDRAW_FORM}", at(key)))),
        }
    };
    let game = field("game")?;
    if game != game_id {
        return Err(Error::refused(format!(
            "{label}{}: game: this message is for game '{}'; this game is '{game_id}'",
            at("game"),
            crate::base::error::echo(&game)
        )));
    }
    Ok((field("side")?, field("withdraw")?))
}

/// Withdraw `side`'s orders for `step` from the inbox (orders sent ahead,
/// or for the awaited step before it is resolved), or its standing orders
/// when `step` is `standing`. The file is kept in `kept/withdrawn/` with
/// the reason; `label` names the request in messages.
pub fn withdraw(dir: &Path, side: &str, step: &str, label: &str, wait: Duration) -> Result<Withdrawal> {
    if step == crate::game::kept::STANDING {
        return crate::game::standing::withdraw_kept(dir, side, label, wait);
    }
    let folder = GameFolder::open(dir)?;
    if folder.config.kind != FolderKind::Game {
        return Err(Error::usage(format!("{}: a roll log; withdraw is for games", dir.display())));
    }
    let echo = crate::base::error::echo;
    if folder.config.dice.mode == crate::game::folder::DiceMode::Mutual {
        return Err(Error::refused(format!(
            "{label}: withdraw: in mutual mode a file once in stands and is never withdrawn (DICE.md A5): the \
             orders already in are the ones the step will use (unless the rules refuse the step's files together \
             and the referee sets them all aside, DICE.md A6)"
        )));
    }
    let _lock = crate::game::recovery::lock(&folder, wait)?;
    let rules = crate::game::load_rules(&folder)?;
    let sides: Vec<String> = rules.sides().into_iter().map(|s| s.id).collect();
    if !sides.iter().any(|s| s == side) {
        return Err(Error::refused(format!(
            "{label}: side: '{}' is not a side of {}; the sides are {}",
            echo(side),
            rules.module_id(),
            sides.join(", ")
        )));
    }
    let name = file_name(step, side);
    let path = folder.root.join(INBOX_DIR).join(&name);
    let plain = !step.is_empty() && !step.starts_with('.') && !step.contains(['/', '\\', '\0']);
    if !plain || !path.is_file() {
        let held: Vec<String> = pending(&folder)?.into_iter().filter(|p| p.side == side).map(|p| p.step).collect();
        let standing = folder.root.join(crate::game::standing::file_name(side)).is_file();
        let mut what = if held.is_empty() { "none".to_string() } else { held.join(", ") };
        if standing {
            what += "; and standing orders (withdraw: standing)";
        }
        return Err(Error::refused(format!(
            "{label}: withdraw: {side} has no orders in for step '{}' that can be withdrawn (orders of a step \
             already resolved stand); {side}'s orders that can be withdrawn: {what}",
            echo(step)
        )));
    }
    let bytes = fsio::read(&path)?;
    let copy = crate::game::kept::keep(&folder, crate::game::kept::Why::Withdrawn, &name_stem(&name), &bytes)?;
    fsio::remove_file(&path)?;
    let sha256 = Bytes32::sha256(&bytes);
    crate::game::kept::reason(&copy, &crate::game::kept::withdrawn_reason(step, side, &bytes))?;
    Ok(Withdrawal {
        game: folder.config.game_id.clone(),
        side: side.to_string(),
        step: step.to_string(),
        was: format!("{INBOX_DIR}/{name}"),
        kept: copy.stored,
        sha256,
        bytes: bytes.len(),
    })
}

/// What `submit --email` made of a message: who sent it, and the receipt or
/// the reason it was refused (the folder unchanged).
#[derive(Debug, Clone, Serialize)]
pub struct EmailSubmission {
    /// The sender's bare address (empty when the message has none).
    pub from: String,
    /// Where the orders were found in the message.
    pub source: Option<String>,
    pub receipt: Option<Receipt>,
    /// The receipt of standing orders (a message whose orders file has a
    /// `standing:` section, src/game/standing.rs).
    pub standing: Option<crate::game::standing::Receipt>,
    /// The receipt of a commitment or a key (mutual mode,
    /// src/game/mutual.rs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dice: Option<crate::game::mutual::Receipt>,
    /// What a `withdraw:` message withdrew.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub withdrawn: Option<Withdrawal>,
    pub refused: Option<String>,
    /// Where a refused message is kept, with the reason beside it
    /// (src/game/kept.rs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kept: Option<String>,
    /// The bytes used from the message (the orders, or the withdraw:
    /// message), exactly as stored, for the receipt to quote.
    #[serde(skip)]
    pub used: Option<Vec<u8>>,
    /// The other orders files of the same message (a player who holds
    /// several sides), each submitted on its own.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<EmailSubmission>,
    /// Whom a reply may go to: the sender, when the address is a player's
    /// in game.yaml (no answer is ever sent to a stranger).
    pub reply_to: Option<String>,
    /// In-Reply-To and References for a reply, and its subject.
    #[serde(skip)]
    pub reply_headers: (Option<String>, Option<String>, String),
}

/// Submit the orders of a raw RFC 5322 message (crate::mail::intake): the
/// sender's address must be the one game.yaml gives the side the orders
/// are for; then as [`submit`] (or, for a file with a `standing:` section,
/// as `standing::submit`). A refused message changes nothing but
/// `kept/refused/`, where it is kept with its reason while there is room
/// (src/game/kept.rs).
pub fn submit_email(dir: &Path, raw: &[u8], wait: Duration) -> Result<EmailSubmission> {
    let mut outcome = submit_email_unkept(dir, raw, wait)?;
    let reasons: Vec<&str> =
        std::iter::once(&outcome).chain(&outcome.also).filter_map(|o| o.refused.as_deref()).collect();
    if !reasons.is_empty() {
        let reason = reasons.join("; ");
        // A refused message is kept with its reason, never lost: the raw
        // message first, then the reason (src/game/kept.rs).
        let folder = GameFolder::open(dir)?;
        if folder.config.kind == FolderKind::Game {
            let _lock = crate::game::recovery::lock(&folder, wait)?;
            // Kept while there is room (kept.rs bounds it): past that the
            // refusal is answered as always, and the message not kept.
            if crate::game::kept::refused_room(&folder, raw.len())? {
                let copy = crate::game::kept::keep(&folder, crate::game::kept::Why::Refused, "", raw)?;
                let from = if outcome.from.is_empty() { "an unknown sender" } else { outcome.from.as_str() };
                crate::game::kept::reason(&copy, &format!("refused: {reason} (sent by {from})"))?;
                outcome.kept = Some(copy.stored);
            }
        }
    }
    Ok(outcome)
}

/// As [`submit_email`], the refused message not kept.
fn submit_email_unkept(dir: &Path, raw: &[u8], wait: Duration) -> Result<EmailSubmission> {
    let folder = GameFolder::open(dir)?;
    let players = &folder.config.players;
    // A player's address as lettre reads it (a bad one in game.yaml is no
    // one's: its side cannot send orders by email until it is corrected).
    let address_of =
        |p: &crate::game::folder::Player| p.email.as_deref().and_then(|e| crate::base::address::parse(e.trim()).ok());
    let is_player = |address: &str| {
        crate::base::address::parse(address)
            .is_ok_and(|from| players.iter().filter_map(address_of).any(|a| crate::base::address::same(&a, &from)))
    };
    let mut intake = match crate::mail::intake::read_message(raw) {
        Ok(intake) => intake,
        Err(e) => {
            // Without a sender's address nobody can be answered.
            let from = sender_address(raw);
            let reply_to = from.clone().filter(|f| is_player(f));
            return Ok(EmailSubmission {
                from: from.unwrap_or_default(),
                source: None,
                receipt: None,
                standing: None,
                dice: None,
                withdrawn: None,
                refused: Some(e.message()),
                kept: None,
                used: None,
                also: Vec::new(),
                reply_to,
                reply_headers: (None, None, "Re: your orders".into()),
            });
        }
    };
    let mut outcome = EmailSubmission {
        from: intake.from.clone(),
        source: Some(intake.source.clone()),
        receipt: None,
        standing: None,
        dice: None,
        withdrawn: None,
        refused: None,
        kept: None,
        used: None,
        also: Vec::new(),
        reply_to: is_player(&intake.from).then(|| intake.from_display.clone()),
        reply_headers: crate::mail::intake::reply_headers(&intake),
    };
    // The sender proven as game.yaml's `senders:` asks (src/mail/auth.rs),
    // before anything of the message is taken; a refusal goes to the
    // player's address in game.yaml, never elsewhere.
    // A stranger (no player's address) is refused below as ever: only a
    // message claiming to be a player's must prove it.
    if let Some(senders) = folder.config.senders.as_ref().filter(|_| is_player(&intake.from)) {
        let sides: Vec<String> = crate::base::address::parse(&intake.from)
            .map(|from| {
                players
                    .iter()
                    .filter(|p| address_of(p).is_some_and(|a| crate::base::address::same(&a, &from)))
                    .map(|p| p.side.clone())
                    .collect()
            })
            .unwrap_or_default();
        let secrets = crate::mail::auth::read_secrets(&folder.root.join(crate::game::folder::SECRET_DIR), &sides)?;
        let keys = match senders.method {
            crate::mail::auth::Method::Openpgp => {
                crate::mail::auth::read_keys(&folder.root.join(crate::mail::auth::KEYS_DIR), &sides)?
            }
            _ => Vec::new(),
        };
        // A signed message's orders come from its signed part alone.
        let verdict = crate::mail::auth::check(
            &folder.config.game_id,
            senders,
            raw,
            &intake.from,
            intake.subject.as_deref(),
            &secrets,
        )
        .and_then(|()| match senders.method {
            crate::mail::auth::Method::Openpgp => crate::mail::auth::check_openpgp(&folder.config.game_id, raw, &keys)
                .and_then(|message| crate::mail::intake::read_message(&message).map_err(|e| e.message()))
                .map(Some),
            _ => Ok(None),
        });
        match verdict {
            Ok(Some(inner)) => {
                intake = inner;
                outcome.source = Some(intake.source.clone());
            }
            Ok(None) => {}
            Err(reason) => return Ok(EmailSubmission { refused: Some(reason), ..outcome }),
        }
    }
    let mut also = Vec::new();
    for (orders, source) in &intake.more {
        let base = EmailSubmission { source: Some(source.clone()), ..outcome.clone() };
        also.push(one_file(dir, &folder, &intake, orders, source, base, wait)?);
    }
    let mut outcome = one_file(dir, &folder, &intake, &intake.orders, &intake.source, outcome, wait)?;
    outcome.also = also;
    Ok(outcome)
}

/// One orders file of a message (`orders`, found at `source`), submitted
/// as its sender's; `outcome` says who sent it.
fn one_file(
    dir: &Path,
    folder: &GameFolder,
    intake: &crate::mail::intake::Intake,
    orders: &[u8],
    source: &str,
    mut outcome: EmailSubmission,
    wait: Duration,
) -> Result<EmailSubmission> {
    let players = &folder.config.players;
    let label = format!("the message from {} ({source})", crate::base::error::echo(&intake.from));
    // The orders' limits before anything reads them as YAML.
    let text = crate::game::input::orders_text_or_refuse(&label, orders);
    // Standing orders name a side but no turn or step.
    let standing =
        text.as_ref().ok().and_then(|t| crate::base::yaml::from_str::<crate::base::yaml::Value>(t).ok()).and_then(
            |v| {
                let side = v.get("side").and_then(crate::base::yaml::Value::as_str).map(str::to_string);
                v.get("standing").is_some().then_some(side.unwrap_or_default())
            },
        );
    // A commitment or a key (mutual mode, src/game/mutual.rs) names its
    // side, or its player's label: the sender must be that player.
    let dice_message = text.as_ref().ok().is_some_and(|t| crate::game::mutual::is_message(t));
    // A withdraw: message names its side and what it withdraws.
    let withdrawal = match &text {
        Ok(t) if is_withdrawal(t) => Some(
            read_withdrawal(&folder.config.game_id, &label, t)
                .map_err(|e| e.refusal_text().unwrap_or_else(|| e.to_string())),
        ),
        _ => None,
    };
    let side_of = |text: &str| -> Result<String> {
        if let Some(read) = &withdrawal {
            return read.clone().map(|(side, _)| side).map_err(Error::refused);
        }
        if dice_message {
            return crate::game::mutual::message_sides(text)
                .into_iter()
                .next()
                .ok_or_else(|| Error::refused(format!("{label}: the message names no side or player")));
        }
        match &standing {
            Some(side) => Ok(side.clone()),
            None => header(crate::game::load_rules(folder)?, &label, text).map(|h| h.side),
        }
    };
    let from = crate::base::address::parse(&intake.from);
    let checked = text
        .and_then(side_of)
        .and_then(|side| {
            let shown = crate::base::error::echo(&side);
            let Some((i, player)) = players.iter().enumerate().find(|(_, p)| p.side == side) else {
                return Err(Error::refused(format!(
                    "{label}: side: game.yaml gives {shown} no address, so its orders cannot come by email"
                )));
            };
            let Some(email) = player.email.as_deref() else {
                return Err(Error::refused(format!(
                    "{label}: side: game.yaml gives {shown} no address, so its orders cannot come by email"
                )));
            };
            match (crate::base::address::parse(email.trim()), &from) {
                (Ok(theirs), Ok(from)) if crate::base::address::same(&theirs, from) => Ok(()),
                (Ok(_), _) => Err(Error::refused(format!(
                    "{label}: side: orders of {shown} are taken only from the address game.yaml gives for {shown}; \
                     this message is from {} (the part before the @ is compared exactly, case included)",
                    crate::base::error::echo(&intake.from)
                ))),
                (Err(e), _) => Err(Error::refused(format!(
                    "{label}: side: game.yaml's players[{i}].email for {shown} is not an address ({e}), so its \
                     orders cannot come by email until the referee corrects it"
                ))),
            }
        })
        .and_then(|()| match standing {
            _ if withdrawal.is_some() => {
                let (side, step) = withdrawal.clone().and_then(Result::ok).unwrap_or_default();
                withdraw(dir, &side, &step, &label, wait).map(|w| (None, None, None, Some(w)))
            }
            _ if dice_message => {
                crate::game::mutual::submit(dir, orders, &label, wait).map(|r| (None, None, Some(r), None))
            }
            Some(_) => crate::game::standing::submit(dir, orders, &label, Replace::ByMail, wait)
                .map(|r| (None, Some(r), None, None)),
            None => submit(dir, orders, &label, Replace::ByMail, wait).map(|r| (Some(r), None, None, None)),
        });
    match checked {
        Ok((receipt, standing, dice, withdrawn)) => {
            outcome.receipt = receipt;
            outcome.standing = standing;
            outcome.dice = dice;
            outcome.withdrawn = withdrawn;
            outcome.used = Some(intake.orders.clone());
        }
        Err(e) => match e.refusal_text() {
            Some(message) => outcome.refused = Some(message),
            None => return Err(e),
        },
    }
    Ok(outcome)
}

/// The bare address in a message's From header, if one can be read even
/// though its orders cannot.
fn sender_address(raw: &[u8]) -> Option<String> {
    let message = mail_parser::MessageParser::default().parse(raw)?;
    let from = message.from()?.first()?.address()?.trim().to_string();
    crate::base::address::parse(&from).ok().map(|a| crate::base::address::normal(&a))
}
