//! Standing orders (issue 6): one file per side, `standing/<side>.yaml`,
//! giving the body of the side's orders for kinds of step ("never spend
//! momentum on initiative", "stand fast when the Allies attack"). When a
//! step awaits the side and it has sent no orders for it (neither given to
//! `resolve` nor in `inbox/`), `resolve` writes its orders file from the
//! standing body and uses it as it would a submitted one: checked whole at
//! that step, stored in `orders/`, hashed into the journal. `verify` replays
//! it like any orders file.
//!
//! ```yaml
//! game: club-7
//! side: british
//! standing:                 # a step's name without its turn -> its body
//!   initiative: {}          # never spend momentum on initiative
//!   allies-close-combat:
//!     defence: {tactics: stand-fast}
//! ```
//!
//! `submit --standing` checks the file as far as it can without knowing the
//! position the step will find (game, side, that each step is a step of the
//! scenario taking orders from the side, and each body's keys and types).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use crate::base::yaml::{Mapping, Value};
use serde::Serialize;

use crate::base::dice::Bytes32;
use crate::base::error::{Error, Located, Result};
use crate::base::fsio;
use crate::game::folder::{FolderKind, GameFolder};
use crate::system::{Rules, State, StepInfo, StepKind};

/// The standing orders folder of a game folder.
pub const STANDING_DIR: &str = "standing";

/// The fields of a standing orders file.
const FIELDS: [&str; 3] = ["game", "side", "standing"];

/// A side's standing orders file, relative to the game folder.
pub fn file_name(side: &str) -> String {
    format!("{STANDING_DIR}/{side}.yaml")
}

/// A standing orders file, read.
#[derive(Debug, Clone)]
pub struct Standing {
    pub game: String,
    pub side: String,
    /// Step names (without the turn) and their bodies, in the file's order.
    pub steps: Vec<(String, Value)>,
}

/// What `submit --standing` stored or withdrew.
#[derive(Debug, Clone, Serialize)]
pub struct Receipt {
    pub game: String,
    pub side: String,
    /// The kinds of step the orders cover, in the file's order.
    pub steps: Vec<String>,
    /// SHA-256 of the file's exact bytes (of the file removed, on withdrawal).
    pub sha256: Bytes32,
    pub bytes: usize,
    /// Where it is kept (or was), relative to the game folder.
    pub stored: String,
    /// True when it replaced standing orders submitted before.
    pub replaced: bool,
    /// True when the side's standing orders were withdrawn.
    pub withdrawn: bool,
    /// Where the replaced or withdrawn file is kept, with its reason
    /// (src/game/kept.rs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kept: Option<String>,
    /// True when the side's standing orders already were these bytes.
    pub unchanged: bool,
}

/// One side's standing orders as `status` shows them.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub side: String,
    pub steps: Vec<String>,
    pub sha256: Bytes32,
    /// Why the file cannot be read, if it cannot (edited by hand?).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// A side's orders for one step, written from its standing orders.
#[derive(Debug, Clone)]
pub struct Synthesised {
    pub side: String,
    /// The body, as `check_header` returns it.
    pub body: Value,
    /// The orders file's bytes, as `orders/` and the journal keep them.
    pub bytes: Vec<u8>,
}

/// The standing orders used at one step, and the problems that refuse it.
#[derive(Debug, Clone, Default)]
pub struct ForStep {
    pub orders: Vec<Synthesised>,
    /// The problems found, each with the side whose standing orders have it.
    pub refused: Vec<(String, String)>,
}

/// A problem at `field`, placed in the text later by [`placed`].
fn problem(label: &str, field: &str, message: String) -> Located {
    Located { file: label.to_string(), line: None, column: None, field: field.to_string(), message, code: None }
}

/// The problems not yet placed, placed where their fields are written in
/// `text`: one read of the text for them all.
fn placed(text: &str, mut problems: Vec<Located>) -> Vec<Located> {
    if problems.iter().all(|p| p.line.is_some()) {
        return problems;
    }
    let index = crate::base::yaml::locate::Index::new(text);
    for p in problems.iter_mut().filter(|p| p.line.is_none()) {
        let at = index.as_ref().and_then(|i| i.locate(&p.field));
        p.line = at.map(|l| l.0);
        p.column = at.map(|l| l.1);
    }
    problems
}

fn joined(list: &[Located]) -> String {
    crate::base::error::problem_list(list)
}

/// Read a standing orders file's structure: a mapping of game, side and
/// standing, whose every entry is a step name and a mapping.
pub fn parse(label: &str, text: &str) -> std::result::Result<Standing, Vec<Located>> {
    let text = crate::base::yaml::without_bom(text);
    let (standing, problems) = read(label, text)?;
    let problems = placed(text, problems);
    match standing {
        Some(s) if problems.is_empty() => Ok(s),
        _ => Err(problems),
    }
}

/// What of the file's structure can be read, and every problem in it: the
/// file (with the entries that are well formed) when its game and side are.
fn read(label: &str, text: &str) -> std::result::Result<(Option<Standing>, Vec<Located>), Vec<Located>> {
    let value: Value = crate::base::yaml::from_str(text).map_err(|e| {
        let mut message = e.to_string();
        if let Some(i) = message.find(" at line ") {
            message.truncate(i);
        }
        vec![Located {
            file: label.to_string(),
            line: crate::base::yaml::error_location(&e).map(|l| l.0),
            column: crate::base::yaml::error_location(&e).map(|l| l.1),
            field: String::new(),
            message: format!("not YAML: {message}"),
            code: None,
        }]
    })?;
    let Value::Mapping(map) = value else {
        return Err(placed(
            text,
            vec![problem(label, "", "a standing orders file is a mapping: game, side, standing".into())],
        ));
    };
    let mut problems = Vec::new();
    for key in map.keys() {
        match key.as_str() {
            Some(k) if FIELDS.contains(&k) => {}
            Some(k) => problems.push(problem(
                label,
                k,
                format!(
                    "a standing orders file has `game`, `side` and `standing`, not `{}`{}",
                    crate::base::error::echo(k),
                    if k == "turn" || k == "step" {
                        " (orders for one step are submitted without --standing)"
                    } else {
                        ""
                    }
                ),
            )),
            None => problems.push(problem(
                label,
                "",
                format!("a key that is not text: {}", crate::base::error::echo(&format!("{key:?}"))),
            )),
        }
    }
    let missing = |key: &str, what: &str| Located {
        file: label.to_string(),
        line: Some(1),
        column: Some(1),
        field: key.to_string(),
        message: format!("the file does not say its {what}: a standing orders file names game, side and standing"),
        code: None,
    };
    let mut text_field = |key: &str| match map.get(key) {
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => {
            problems.push(problem(label, key, format!("{key} is a single word")));
            None
        }
        None => {
            problems.push(missing(key, key));
            None
        }
    };
    let game = text_field("game");
    let side = text_field("side");
    let mut steps = Vec::new();
    match map.get("standing") {
        Some(Value::Mapping(m)) => {
            for (key, body) in m {
                let Some(name) = key.as_str() else {
                    problems.push(problem(
                        label,
                        "standing",
                        format!("a step name that is not text: {}", crate::base::error::echo(&format!("{key:?}"))),
                    ));
                    continue;
                };
                if !body.is_mapping() {
                    problems.push(problem(
                        label,
                        &format!("standing.{name}"),
                        "the orders for a step are a mapping of the step's keys, as in an orders file \
                         without its header (write {} for orders that do nothing)"
                            .into(),
                    ));
                    continue;
                }
                steps.push((name.to_string(), body.clone()));
            }
        }
        Some(_) => problems.push(problem(
            label,
            "standing",
            "standing is a mapping: a step's name without its turn (e.g. initiative, allies-close-combat), \
             then its orders"
                .into(),
        )),
        None => problems.push(missing("standing", "standing orders")),
    }
    let standing = match (game, side) {
        (Some(game), Some(side)) => Some(Standing { game, side, steps }),
        _ => None,
    };
    Ok((standing, problems))
}

/// Check a standing orders file against the game: its game, a side of the
/// module, steps of the scenario that take orders from the side, bodies of
/// the right shape for their step. Every problem is listed. `kinds` are the
/// scenario's kinds of step that take orders ([`Rules::step_kinds`]), by
/// their field.
pub fn check(
    rules: &dyn Rules,
    kinds: &BTreeMap<String, StepKind>,
    game_id: &str,
    label: &str,
    text: &str,
) -> std::result::Result<Standing, Vec<Located>> {
    let text = crate::base::yaml::without_bom(text);
    let (standing, mut problems) = read(label, text)?;
    let Some(standing) = standing else { return Err(placed(text, problems)) };
    if standing.game != game_id {
        problems.push(problem(
            label,
            "game",
            format!(
                "these standing orders are for game '{}'; this game is '{game_id}'",
                crate::base::error::echo(&standing.game)
            ),
        ));
    }
    let sides: Vec<String> = rules.sides().into_iter().map(|s| s.id).collect();
    if !sides.contains(&standing.side) {
        problems.push(problem(
            label,
            "side",
            format!(
                "'{}' is not a side of {}; the sides are {}",
                crate::base::error::echo(&standing.side),
                rules.module_id(),
                sides.join(", ")
            ),
        ));
        return Err(placed(text, problems));
    }
    let side = standing.side.as_str();
    let theirs: Vec<&str> = kinds
        .iter()
        .filter(|(_, kind)| kind.may_await.iter().any(|s| s == side))
        .map(|(name, _)| name.as_str())
        .collect();
    for (name, body) in &standing.steps {
        let field = format!("standing.{name}");
        let Some(kind) = kinds.get(name) else {
            problems.push(problem(
                label,
                &field,
                format!(
                    "'{}' is not a step of this scenario's sequence of play; the steps that take orders \
                     from {side} are {}",
                    crate::base::error::echo(name),
                    theirs.join(", ")
                ),
            ));
            continue;
        };
        let awaited = &kind.may_await;
        if !awaited.iter().any(|s| s == side) {
            let who = if awaited.is_empty() { "no side".to_string() } else { awaited.join(", ") };
            problems.push(problem(
                label,
                &field,
                format!(
                    "step '{name}' takes orders from {who}, not from {side}; the steps that take orders from {side} \
                     are {}",
                    theirs.join(", ")
                ),
            ));
            continue;
        }
        for p in rules.check_shape(&kind.field, side, body) {
            let path = if p.field.is_empty() { field.clone() } else { format!("{}.{}", field, p.field) };
            problems.push(Located { code: p.code.map(Box::new), ..problem(label, &path, p.message) });
        }
    }
    if problems.is_empty() {
        Ok(standing)
    } else {
        Err(placed(text, problems))
    }
}

/// The kinds of step that take orders, by field.
fn kinds_of(rules: &dyn Rules) -> Result<BTreeMap<String, StepKind>> {
    Ok(rules.step_kinds()?.into_iter().map(|k| (k.field.clone(), k)).collect())
}

fn open_game(dir: &Path) -> Result<GameFolder> {
    let folder = GameFolder::open(dir)?;
    if folder.config.kind != FolderKind::Game {
        return Err(Error::usage(format!("{}: a roll log; standing orders are for games", dir.display())));
    }
    Ok(folder)
}

/// Store a side's standing orders file in the game at `dir`, byte for
/// byte; `label` names it in messages. Nothing is written unless every
/// check passes; a side's standing orders are replaced only with `replace`.
pub fn submit(
    dir: &Path,
    bytes: &[u8],
    label: &str,
    replace: crate::game::inbox::Replace,
    wait: Duration,
) -> Result<Receipt> {
    // The limits first: a refused file costs no more than reading it.
    let text = crate::game::input::orders_text_or_refuse(label, bytes)?;
    let folder = open_game(dir)?;
    if folder.config.dice.mode == crate::game::folder::DiceMode::Mutual {
        // Orders standing in the folder would reach the referee before the
        // step's commitments (DICE.md 7.6).
        return Err(Error::refused(format!(
            "{label}: a game in mutual mode takes no standing orders: they would reach the referee before the \
             step's commitments (DICE.md 7.6); send each step's orders"
        )));
    }
    let _lock = crate::game::recovery::lock(&folder, wait)?;
    let rules = crate::game::load_rules(&folder)?;
    let kinds = kinds_of(rules)?;
    let standing =
        check(rules, &kinds, &folder.config.game_id, label, text).map_err(|list| Error::refused(joined(&list)))?;
    let name = file_name(&standing.side);
    let path = folder.root.join(&name);
    let before = if path.is_file() { Some(fsio::read(&path)?) } else { None };
    let unchanged = before.as_deref() == Some(bytes);
    let replaced = before.is_some() && !unchanged;
    if replaced && replace == crate::game::inbox::Replace::No {
        return Err(Error::refused(format!(
            "{label}: {} has standing orders already ({name}); give --replace to replace them",
            standing.side
        )));
    }
    let dir = folder.root.join(STANDING_DIR);
    if !dir.is_dir() {
        std::fs::create_dir(&dir).map_err(|e| Error::io(&dir, e))?;
        fsio::sync_dir(&folder.root)?;
    }
    let mut kept = None;
    match &before {
        Some(old) if replaced => {
            // Kept, replaced, then the reason (src/game/kept.rs).
            let what = format!("{}--{}", crate::game::kept::STANDING, standing.side);
            let copy = crate::game::kept::keep(&folder, crate::game::kept::Why::Superseded, &what, old)?;
            fsio::write_atomic(&path, bytes)?;
            crate::game::kept::reason(
                &copy,
                &crate::game::kept::superseded_reason(crate::game::kept::STANDING, &standing.side, old, bytes),
            )?;
            kept = Some(copy.stored);
        }
        _ if unchanged => {}
        _ => fsio::write_atomic(&path, bytes)?,
    }
    Ok(Receipt {
        game: standing.game,
        side: standing.side,
        steps: standing.steps.into_iter().map(|(name, _)| name).collect(),
        sha256: Bytes32::sha256(bytes),
        bytes: bytes.len(),
        stored: name,
        replaced,
        withdrawn: false,
        kept,
        unchanged,
    })
}

/// Withdraw a side's standing orders: remove `standing/<side>.yaml`,
/// keeping it in `kept/withdrawn/` with the reason.
pub fn withdraw(dir: &Path, side: &str, wait: Duration) -> Result<Receipt> {
    withdraw_both(dir, side, "submit --withdraw", wait).map(|(r, _)| r)
}

/// As [`withdraw`], for a `withdraw: standing` message named `label`.
pub fn withdraw_kept(dir: &Path, side: &str, label: &str, wait: Duration) -> Result<crate::game::inbox::Withdrawal> {
    withdraw_both(dir, side, label, wait).map(|(_, w)| w)
}

fn withdraw_both(
    dir: &Path,
    side: &str,
    label: &str,
    wait: Duration,
) -> Result<(Receipt, crate::game::inbox::Withdrawal)> {
    let folder = open_game(dir)?;
    let _lock = crate::game::recovery::lock(&folder, wait)?;
    let rules = crate::game::load_rules(&folder)?;
    let sides: Vec<String> = rules.sides().into_iter().map(|s| s.id).collect();
    if !sides.iter().any(|s| s == side) {
        return Err(Error::refused(format!(
            "{label}: side: '{}' is not a side of {}; the sides are {}",
            crate::base::error::echo(side),
            rules.module_id(),
            sides.join(", ")
        )));
    }
    let name = file_name(side);
    let path = folder.root.join(&name);
    if !path.is_file() {
        return Err(Error::refused(format!(
            "{label}: {side} has no standing orders to withdraw ({name} does not exist)"
        )));
    }
    let bytes = fsio::read(&path)?;
    let steps = std::str::from_utf8(&bytes)
        .ok()
        .and_then(|text| parse(&name, text).ok())
        .map(|s| s.steps.into_iter().map(|(name, _)| name).collect())
        .unwrap_or_default();
    // Kept, removed, then the reason (src/game/kept.rs).
    let what = format!("{}--{side}", crate::game::kept::STANDING);
    let copy = crate::game::kept::keep(&folder, crate::game::kept::Why::Withdrawn, &what, &bytes)?;
    fsio::remove_file(&path)?;
    let sha256 = Bytes32::sha256(&bytes);
    crate::game::kept::reason(&copy, &crate::game::kept::withdrawn_reason(crate::game::kept::STANDING, side, &bytes))?;
    let receipt = Receipt {
        game: folder.config.game_id.clone(),
        side: side.to_string(),
        steps,
        sha256,
        bytes: bytes.len(),
        stored: name.clone(),
        replaced: false,
        withdrawn: true,
        kept: Some(copy.stored.clone()),
        unchanged: false,
    };
    let withdrawal = crate::game::inbox::Withdrawal {
        game: folder.config.game_id.clone(),
        side: side.to_string(),
        step: crate::game::kept::STANDING.to_string(),
        was: name,
        kept: copy.stored,
        sha256,
        bytes: bytes.len(),
    };
    Ok((receipt, withdrawal))
}

/// Every side's standing orders file, by side, with its bytes.
fn files(folder: &GameFolder) -> Result<BTreeMap<String, Vec<u8>>> {
    let mut found = BTreeMap::new();
    for (side, path) in fsio::yaml_files(&folder.root.join(STANDING_DIR))? {
        found.insert(side, crate::game::input::read_capped(&path, crate::game::input::MAX_ORDERS_BYTES)?);
    }
    Ok(found)
}

/// Each side's standing orders, for `status`: the steps they cover.
pub fn summaries(folder: &GameFolder) -> Result<Vec<Summary>> {
    Ok(files(folder)?
        .into_iter()
        .map(|(side, bytes)| {
            let label = file_name(&side);
            let read = crate::game::input::orders_text(&label, &bytes)
                .map_err(|p| p.to_string())
                .and_then(|text| parse(&label, text).map_err(|list| joined(&list)));
            let (steps, problem) = match read {
                Ok(s) => (s.steps.into_iter().map(|(name, _)| name).collect(), None),
                Err(p) => (Vec::new(), Some(p)),
            };
            Summary { side, steps, sha256: Bytes32::sha256(&bytes), problem }
        })
        .collect())
}

/// The orders file written from standing orders: a comment naming the
/// standing file and its SHA-256, the header, the body. The same standing
/// file at the same step always gives the same bytes.
fn orders_text(
    label: &str,
    sha256: &Bytes32,
    game_id: &str,
    step: &StepInfo,
    side: &str,
    body: &Value,
    trimmed: &[String],
) -> Result<String> {
    let mut file = Mapping::new();
    file.insert("game".into(), game_id.into());
    file.insert("turn".into(), step.turn.into());
    file.insert("step".into(), step.field.clone().into());
    file.insert("side".into(), side.into());
    if let Value::Mapping(body) = body {
        for (k, v) in body {
            file.insert(k.clone(), v.clone());
        }
    }
    let yaml = crate::base::yaml::to_string(&Value::Mapping(file))
        .map_err(|e| Error::refused(format!("{label}: the orders for step {}: {e}", step.name)))?;
    let notes: String = trimmed.iter().map(|t| format!("{TRIM_MARK}{}\n", t.replace('\n', " "))).collect();
    Ok(format!("{STANDING_MARK}{side}: {label}, sha256 {}\n{notes}{yaml}", sha256.to_hex()))
}

/// The first line of an orders file written from standing orders.
const STANDING_MARK: &str = "# standing orders of ";

/// A line, after [`STANDING_MARK`]'s, saying what of the standing orders
/// the rules trimmed to what the side holds (issue 16).
pub const TRIM_MARK: &str = "# trimmed: ";

/// What an orders file written from standing orders says was trimmed from
/// them ([`TRIM_MARK`] lines right after its first line): the journal
/// records it, reports show it, `verify` checks the two agree. Empty for
/// any other file.
pub fn trimmed(bytes: &[u8]) -> Vec<String> {
    let Ok(text) = std::str::from_utf8(bytes) else { return Vec::new() };
    let mut lines = text.lines();
    if !lines.next().is_some_and(|l| l.starts_with(STANDING_MARK)) {
        return Vec::new();
    }
    lines.map_while(|l| l.strip_prefix(TRIM_MARK)).map(str::to_string).collect()
}

/// The standing orders of the sides in `missing` (sides `step` awaits that
/// sent no orders for it) that cover the step: each written as an orders
/// file and checked at the step as a submitted file would be. A problem
/// refuses the step; it is located in the standing file.
pub fn orders_for(
    folder: &GameFolder,
    rules: &dyn Rules,
    state: &State,
    step: &StepInfo,
    missing: &[String],
) -> Result<ForStep> {
    let mut found = ForStep::default();
    if missing.is_empty() {
        return Ok(found);
    }
    let mut files = files(folder)?;
    let kinds = kinds_of(rules)?;
    let game_id = &folder.config.game_id;
    let kind = step.field.clone();
    for side in missing {
        let Some(bytes) = files.remove(side) else { continue };
        let label = file_name(side);
        let text = match crate::game::input::orders_text(&label, &bytes) {
            Ok(text) => text,
            Err(problem) => {
                found.refused.push((side.clone(), problem.to_string()));
                continue;
            }
        };
        let standing = match check(rules, &kinds, game_id, &label, text) {
            Ok(s) if &s.side == side => s,
            Ok(s) => {
                found.refused.push((
                    side.clone(),
                    format!("{label}: side: the file names side {}, not {side}", crate::base::error::echo(&s.side)),
                ));
                continue;
            }
            Err(list) => {
                found.refused.extend(crate::base::error::capped_problems(&list).into_iter().map(|p| (side.clone(), p)));
                continue;
            }
        };
        let Some((_, body)) = standing.steps.iter().find(|(name, _)| name == &kind) else { continue };
        // Issue 16: standing orders spend only what the side holds; the
        // file is written from the trimmed body, and says what was trimmed.
        let (body, notes) = rules.trim_standing(state.as_ref(), side, body);
        let orders = orders_text(&label, &Bytes32::sha256(&bytes), game_id, step, side, &body, &notes)?;
        // Problems in the written file are placed where the standing file
        // gives the same field.
        let relocate = |list: Vec<Located>| {
            let moved = list
                .iter()
                .map(|p| {
                    let field = match p.field.as_str() {
                        "" | "." => format!("standing.{kind}"),
                        f => format!("standing.{kind}.{f}"),
                    };
                    let message = format!("at step {}: {}", step.name, p.message);
                    Located { code: p.code.clone(), ..problem(&label, &field, message) }
                })
                .collect();
            crate::base::error::capped_problems(&placed(text, moved))
        };
        match rules.check_header(game_id, state.as_ref(), &label, &orders) {
            Err(list) => found.refused.extend(relocate(list).into_iter().map(|p| (side.clone(), p))),
            Ok(c) => {
                let problems = rules.validate_body(state.as_ref(), &c, &label, &orders);
                if problems.is_empty() {
                    found.orders.push(Synthesised { side: c.side, body: c.body, bytes: orders.into_bytes() });
                } else {
                    found.refused.extend(relocate(problems).into_iter().map(|p| (side.clone(), p)));
                }
            }
        }
    }
    Ok(found)
}
