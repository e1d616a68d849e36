//! The bodies of the fuzz targets (issue 18; `fuzz/README.md`): each takes
//! arbitrary bytes and must never panic, whatever they hold. The cargo-fuzz
//! crate in `fuzz/` only calls them, and `tests/fuzz_regressions.rs` runs
//! them in every `cargo test` over the seed corpora, every crash input kept
//! in `fuzz/regressions/TARGET/` and a few thousand mutations.
//!
//! - [`orders`]: an orders file parsed and validated (the System trait's
//!   `check_header` and `validate_body`) against the Historical Scenario
//!   of Savannah 1779 at one of several steps ([`positions`]).
//! - [`intake`]: a raw email through intake ([`crate::mail::intake`]), and
//!   the orders it carries validated as above.
//! - [`module_patch`]: a patch ([`patched`]) on a small module (the test
//!   module `tests/modules/small`, embedded), the module it makes through
//!   the module loader (module.yaml, every scenario's rules and set-up) and
//!   `check-game`'s module checker. [`module`] does the same with a whole
//!   module folder ([`module_archive`]'s encoding) as its input.
//! - [`module_play_patch`]: the same module, and each side's template at
//!   set-up (the rules' guides over the module's data).
//! - [`campaign_orders`]: an orders file checked as [`orders`] checks one,
//!   and with the other sides' files (`validate_with`), against the
//!   Savannah Campaign Game or the AWI Southern Campaign at a step of a
//!   self-play game ([`campaign_positions`]).
//! - [`journal`]: a journal entry's file through `verify`'s parser and its
//!   checks of DICE.md §6.1 to §6.3.
//!
//! This is the top of the library (beside `mail/`): it reaches a system
//! only through `system.rs`, like the shell.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use crate::base::dice::{Bytes32, StepDice};
use crate::system::{ModuleFiles, Rules, State};

/// The module and scenario the orders targets play.
pub const MODULE: &str = "savannah-1779";
pub const SCENARIO: &str = "historical";
/// The game id the orders are checked against: the demo's, so that the
/// demo's orders files are seeds as they are.
pub const GAME_ID: &str = "savannah-demo";
/// How many steps of the Historical Scenario [`positions`] plays.
const STEPS_PLAYED: usize = 24;

/// The Historical Scenario's rules and its states at set-up and after each
/// of the first steps, played with each awaited side's least orders (the
/// template's) and dice from a fixed seed.
pub struct Positions {
    pub rules: Box<dyn Rules>,
    pub states: Vec<State>,
}

/// [`Positions`], made once; an error (which a build of the embedded
/// module never gives) as text.
pub fn positions() -> Result<&'static Positions, String> {
    static POSITIONS: OnceLock<Result<Positions, String>> = OnceLock::new();
    POSITIONS.get_or_init(|| play_positions().map_err(|e| e.to_string())).as_ref().map_err(Clone::clone)
}

fn play_positions() -> crate::Result<Positions> {
    let files = ModuleFiles::embedded(MODULE);
    let system = crate::game::modules::system_of_files(&files)?;
    let rules = system.load(&files, SCENARIO)?;
    let mut states = vec![rules.setup()?];
    for step in 0..STEPS_PLAYED {
        let Some(state) = states.last() else { break };
        if state.next_step().is_none() {
            break;
        }
        let mut orders = BTreeMap::new();
        for side in rules.awaited(state.as_ref()) {
            orders.insert(side.clone(), rules.template(state.as_ref(), &side)?.body);
        }
        let seed = Bytes32::sha256(format!("adjutant fuzz positions, step {step}").as_bytes());
        let (next, _events) = rules.resolve(state.as_ref(), &orders, &mut StepDice::new(&seed))?;
        states.push(next);
    }
    Ok(Positions { rules, states })
}

/// The orders file `adjutant template` would print for `side` at
/// `positions().states[index]`: header, least orders and the guide.
pub fn template_text(index: usize, side: &str) -> Option<String> {
    let p = positions().ok()?;
    let state = p.states.get(index)?;
    let step = state.next_step()?;
    let guide = p.rules.template(state.as_ref(), side).ok()?;
    let mut text = format!("game: {GAME_ID}\nturn: {}\nstep: {}\nside: {side}\n", step.turn, step.field);
    if guide.body.as_mapping().is_some_and(|m| !m.is_empty()) {
        text += &crate::base::yaml::to_string(&guide.body).ok()?;
    }
    Some(text + &guide.comment)
}

/// Seeds for [`orders`]: every awaited side's template at every position.
pub fn orders_seeds() -> Vec<Vec<u8>> {
    let Ok(p) = positions() else { return Vec::new() };
    let mut seeds = Vec::new();
    for (i, state) in p.states.iter().enumerate() {
        for side in p.rules.awaited(state.as_ref()) {
            if let Some(text) = template_text(i, &side) {
                seeds.push(orders_input(i, text.as_bytes()));
            }
        }
    }
    seeds
}

/// An input of [`orders`]: the position's index, then the orders file.
pub fn orders_input(index: usize, file: &[u8]) -> Vec<u8> {
    let mut input = vec![index as u8];
    input.extend_from_slice(file);
    input
}

/// The position an orders file's header names (its turn and step), for a
/// seed: the first whose next step it is, else set-up.
pub fn position_of(file: &str) -> usize {
    let Ok(p) = positions() else { return 0 };
    let field =
        |name: &str| file.lines().find_map(|l| l.strip_prefix(name).map(|v| v.trim().to_string())).unwrap_or_default();
    let (turn, step) = (field("turn:"), field("step:"));
    p.states
        .iter()
        .position(|s| s.next_step().is_some_and(|n| n.turn.to_string() == turn && n.field == step))
        .unwrap_or(0)
}

/// Fuzz target `orders`: the first byte picks a position (modulo how many
/// there are), the rest is an orders file: read as text, its header checked
/// and its body validated, as `adjutant validate` and `submit` do.
pub fn orders(data: &[u8]) {
    let Ok(p) = positions() else { return };
    let Some((&first, file)) = data.split_first() else { return };
    let state = &p.states[first as usize % p.states.len()];
    validate_orders(p.rules.as_ref(), state, "orders.yaml", file);
}

fn validate_orders(rules: &dyn Rules, state: &State, label: &str, file: &[u8]) {
    let Ok(text) = crate::game::input::orders_text(label, file) else { return };
    if let Ok(header) = rules.check_header(GAME_ID, state.as_ref(), label, text) {
        let problems = rules.validate_body(state.as_ref(), &header, label, text);
        // Every problem renders as a line (what reports and errors print).
        for p in &problems {
            let _ = p.to_string();
        }
    }
}

/// The games [`campaign_orders`] plays: (module, scenario, self-play seed
/// and game). The Savannah Campaign Game (random events, siege works,
/// siege and bombardment, both players' fire and close combat: game 1 of
/// seed 2 awaited orders of ten kinds of step in 106 steps on 2026-12-07)
/// and the AWI Southern Campaign (operations and five battles in 41 steps,
/// another system's orders altogether): the orders that [`orders`]'s
/// Historical Scenario never asks for. The games change as the rules do;
/// tests/fuzz_regressions.rs asserts the kinds of step they reach.
pub const CAMPAIGN_GAMES: [(&str, &str, u64, u32); 2] =
    [("savannah-1779", "campaign", 2, 1), ("awi-southern", "southern-1780", 1, 1)];

/// One game of [`CAMPAIGN_GAMES`] played to its end by `adjutant selfplay`
/// and played again through the System trait: the
/// state before each step that took orders files, with those files.
pub struct GamePositions {
    pub rules: Box<dyn Rules>,
    /// The game id the files' headers name (`selfplay-SEED-GAME`).
    pub game_id: String,
    /// (the state, each awaited side's orders file as played).
    pub states: Vec<(State, Vec<(String, String)>)>,
}

/// [`GamePositions`] of each of [`CAMPAIGN_GAMES`], made once; an error
/// (a game that no longer plays again as self-play played it) as text.
pub fn campaign_positions() -> Result<&'static Vec<GamePositions>, String> {
    static GAMES: OnceLock<Result<Vec<GamePositions>, String>> = OnceLock::new();
    GAMES
        .get_or_init(|| CAMPAIGN_GAMES.iter().map(|(m, s, seed, game)| game_positions(m, s, *seed, *game)).collect())
        .as_ref()
        .map_err(Clone::clone)
}

fn game_positions(module: &str, scenario: &str, seed: u64, game: u32) -> Result<GamePositions, String> {
    let files = ModuleFiles::embedded(module);
    let system = crate::game::modules::system_of_files(&files).map_err(|e| e.to_string())?;
    let rules = system.load(&files, scenario).map_err(|e| e.to_string())?;
    let setup = rules.setup().map_err(|e| e.to_string())?;
    let id = crate::system::SelfplayId { seed, game };
    let played = rules.selfplay(setup.as_ref(), id, true).ok_or_else(|| format!("{module} has no self-play"))?;
    if let Some(f) = played.failures.first() {
        return Err(format!("{module} {scenario}: self-play failed at step {}: {}", f.journal_step, f.what));
    }
    // The game played again from its recorded files, as a game folder
    // plays it (its headers read, each step's dice from its seed).
    let keys = crate::base::dice::chain(&id.chain_top(), played.chain_length);
    let game_id = id.name();
    let mut state = setup;
    let mut states = Vec::new();
    for step in &played.record {
        let k = step.journal_step;
        let mut orders = BTreeMap::new();
        for (side, text) in &step.files {
            let header = rules.check_header(&game_id, state.as_ref(), "fuzz", text).map_err(|e| {
                format!("step {k}: {side}'s file: {}", e.iter().map(|l| l.to_string()).collect::<Vec<_>>().join("; "))
            })?;
            orders.insert(header.side, header.body);
        }
        let key = keys.get(k as usize).ok_or_else(|| format!("step {k} is past the chain"))?;
        let seed = id.step_seed(k, key, &step.files).map_err(|e| e.to_string())?;
        let (mut next, _) =
            rules.resolve(state.as_ref(), &orders, &mut StepDice::new(&seed)).map_err(|e| format!("step {k}: {e}"))?;
        next.set_resolved_steps(k);
        if next.hash() != step.state_sha256 {
            return Err(format!("step {k} ({}) gives another state played again", step.step));
        }
        if !step.files.is_empty() {
            states.push((state, step.files.clone()));
        }
        state = next;
    }
    Ok(GamePositions { rules, game_id, states })
}

/// An input of [`campaign_orders`]: the game's index, the position's (two
/// bytes, little-endian), then the orders file.
pub fn campaign_input(game: usize, position: usize, file: &[u8]) -> Vec<u8> {
    let mut input = vec![game as u8];
    input.extend_from_slice(&(position as u16).to_le_bytes());
    input.extend_from_slice(file);
    input
}

/// Seeds for [`campaign_orders`]: every file played at every position, and
/// each awaited side's template (header, least orders, guide) at one
/// position in eight.
pub fn campaign_seeds() -> Vec<Vec<u8>> {
    let Ok(games) = campaign_positions() else { return Vec::new() };
    let mut seeds = Vec::new();
    for (g, game) in games.iter().enumerate() {
        for (i, (state, files)) in game.states.iter().enumerate() {
            for (_, text) in files {
                seeds.push(campaign_input(g, i, text.as_bytes()));
            }
            if i % 8 != 0 {
                continue;
            }
            let Some(step) = state.next_step() else { continue };
            for side in game.rules.awaited(state.as_ref()) {
                let Ok(guide) = game.rules.template(state.as_ref(), &side) else { continue };
                let mut text =
                    format!("game: {}\nturn: {}\nstep: {}\nside: {side}\n", game.game_id, step.turn, step.field);
                if guide.body.as_mapping().is_some_and(|m| !m.is_empty()) {
                    text += &crate::base::yaml::to_string(&guide.body).unwrap_or_default();
                }
                seeds.push(campaign_input(g, i, (text + &guide.comment).as_bytes()));
            }
        }
    }
    seeds
}

/// Fuzz target `campaign_orders`: the first byte picks a game of
/// [`CAMPAIGN_GAMES`], the next two a position in it (each modulo how
/// many there are), the rest is an orders file: read as `submit` reads
/// one (size, UTF-8, depth), its header checked, its body validated
/// alone, with the other sides' files of that step as played
/// (`validate_with`), for its warnings, and its shape as standing orders
/// of that kind of step (`check_shape`).
pub fn campaign_orders(data: &[u8]) {
    let Ok(games) = campaign_positions() else { return };
    let [g, a, b, file @ ..] = data else { return };
    let game = &games[*g as usize % games.len()];
    if game.states.is_empty() {
        return;
    }
    let (state, played) = &game.states[usize::from(u16::from_le_bytes([*a, *b])) % game.states.len()];
    let rules = game.rules.as_ref();
    let label = "orders.yaml";
    let Ok(text) = crate::game::input::orders_text(label, file) else { return };
    let Ok(header) = rules.check_header(&game.game_id, state.as_ref(), label, text) else { return };
    let mut problems = rules.validate_body(state.as_ref(), &header, label, text);
    let mut others = BTreeMap::new();
    for (side, other) in played.iter().filter(|(side, _)| *side != header.side) {
        if let Ok(h) = rules.check_header(&game.game_id, state.as_ref(), side, other) {
            others.insert(h.side, h.body);
        }
    }
    problems.extend(rules.validate_with(state.as_ref(), &header, &others, label, text));
    for p in &problems {
        let _ = p.to_string();
    }
    for w in rules.warnings(state.as_ref(), &header, label, text) {
        let _ = w.len();
    }
    for p in rules.check_shape(&header.step.field, &header.side, &header.body) {
        let _ = p.message.len();
    }
}

/// Fuzz target `intake`: a raw email read as `adjutant submit` reads one
/// (sender, subject, the orders in a YAML attachment or the plain body),
/// its reply headers made, and the orders validated at set-up.
pub fn intake(data: &[u8]) {
    match crate::mail::intake::read_message(data) {
        Ok(intake) => {
            let _ = crate::mail::intake::reply_headers(&intake);
            if let Ok(p) = positions() {
                if let Some(state) = p.states.first() {
                    validate_orders(p.rules.as_ref(), state, "email", &intake.orders);
                }
            }
        }
        Err(e) => {
            let _ = e.message();
        }
    }
}

/// The line that starts a file in a module archive: `@@ NAME`.
pub const ARCHIVE_MARK: &[u8] = b"@@ ";

/// A module folder as one input of [`module`]: each file as a line
/// `@@ NAME` (its path in the folder, `/`-separated) followed by its bytes.
/// Bytes before the first such line are the file `module.yaml`.
pub fn module_archive(files: &BTreeMap<String, Vec<u8>>) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, bytes) in files {
        out.extend_from_slice(ARCHIVE_MARK);
        out.extend_from_slice(name.as_bytes());
        out.push(b'\n');
        out.extend_from_slice(bytes);
        if !bytes.ends_with(b"\n") {
            out.push(b'\n');
        }
    }
    out
}

/// The files of a module archive ([`module_archive`]): names that are not
/// UTF-8 or not `.yaml` files are left out, as a folder read leaves them
/// ([`ModuleFiles::read_folder`]); the same name twice keeps the last.
pub fn module_files(data: &[u8]) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut name = "module.yaml".to_string();
    let mut start = 0;
    let mut at = 0;
    let keep = |name: &str, bytes: &[u8], files: &mut BTreeMap<String, Vec<u8>>| {
        if name.ends_with(".yaml") && !name.is_empty() {
            files.insert(name.to_string(), bytes.to_vec());
        }
    };
    while at <= data.len() {
        let line_start = at == 0 || data[at - 1] == b'\n';
        if at < data.len() && line_start && data[at..].starts_with(ARCHIVE_MARK) {
            keep(&name, &data[start..at], &mut files);
            let end = data[at..].iter().position(|&b| b == b'\n').map_or(data.len(), |i| at + i);
            name = String::from_utf8_lossy(&data[at + ARCHIVE_MARK.len()..end]).into_owned();
            start = (end + 1).min(data.len());
            at = start;
            continue;
        }
        if at == data.len() {
            keep(&name, &data[start..], &mut files);
        }
        at += 1;
    }
    files
}

/// The test module `tests/modules/small` (one scenario on a small map),
/// the base that [`module_patch`] changes.
static SMALL: include_dir::Dir<'static> = include_dir::include_dir!("$CARGO_MANIFEST_DIR/tests/modules/small");

/// The files of the small test module ([`SMALL`]) by their paths in it,
/// `/`-separated, read once.
pub fn small_module() -> &'static BTreeMap<String, Vec<u8>> {
    static FILES: OnceLock<BTreeMap<String, Vec<u8>>> = OnceLock::new();
    FILES.get_or_init(|| {
        let mut files = BTreeMap::new();
        let mut dirs = vec![&SMALL];
        while let Some(dir) = dirs.pop() {
            for file in dir.files() {
                files.insert(file.path().to_string_lossy().replace('\\', "/"), file.contents().to_vec());
            }
            dirs.extend(dir.dirs());
        }
        files
    })
}

/// `base` with a patch applied. The patch is a module archive
/// ([`module_files`]): each file it names replaces the base's of that name
/// or is added; a file named `-NAME` (its bytes ignored) removes NAME; the
/// bytes before the first `@@ ` line replace module.yaml when there are
/// any. So a one-line change to one chart is a short input, and a whole
/// module's archive replaces what it names.
pub fn patched(base: &BTreeMap<String, Vec<u8>>, data: &[u8]) -> BTreeMap<String, Vec<u8>> {
    let mut files = base.clone();
    for (name, bytes) in module_files(data) {
        if let Some(removed) = name.strip_prefix('-') {
            files.remove(removed);
        } else if !(name == "module.yaml" && bytes.is_empty()) {
            files.insert(name, bytes);
        }
    }
    files
}

/// Fuzz target `module`: a patch ([`patched`]) on the small test module
/// ([`small_module`]), the module it makes through [`module_checked`]. A
/// whole module per input (the Savannah module) loads at a few inputs a
/// second; the small module with one file changed, at hundreds.
pub fn module_patch(data: &[u8]) {
    module_checked(patched(small_module(), data));
}

/// A module folder ([`module_archive`]) whole, as [`module_patch`] checks
/// its patched module.
pub fn module(data: &[u8]) {
    module_checked(module_files(data));
}

/// Fuzz target `module_play`: [`module_patch`]'s module, and then each
/// awaited side's template at each scenario's set-up (the guides: every
/// unit's legal moves found by trying them). Apart from `module`, which
/// runs the loader and the checker several times as fast: a module's data
/// through the rules' guides is this target's question.
pub fn module_play_patch(data: &[u8]) {
    played(patched(small_module(), data), true);
}

/// A module's files through the module loader (module.yaml, then each
/// scenario's rules, set-up and standing) and the module checker of
/// `check-game`.
pub fn module_checked(files: BTreeMap<String, Vec<u8>>) {
    played(files, false);
}

/// [`module_checked`], and with `templates` each awaited side's template
/// at each scenario's set-up.
fn played(files: BTreeMap<String, Vec<u8>>, templates: bool) {
    let files = ModuleFiles::from_files("fuzz-module", files);
    let Ok(system) = crate::game::modules::system_reading(&files) else { return };
    if let Some(report) = system.check_module(&files) {
        for p in &report.problems {
            let _ = p.text.len();
        }
    }
    let Ok(info) = crate::game::modules::info_of(&files) else { return };
    for scenario in info.scenarios.iter().take(4) {
        let Ok(rules) = system.load(&files, &scenario.id) else { continue };
        let Ok(state) = rules.setup() else { continue };
        let _ = rules.standing(state.as_ref());
        if templates {
            for side in rules.awaited(state.as_ref()) {
                let _ = rules.template(state.as_ref(), &side);
            }
        }
    }
}

/// Fuzz target `journal`: a journal entry's file read as `verify` reads it
/// (UTF-8, the canonical reader or the YAML crate), compared with its
/// canonical bytes, then §6.1 to §6.3 checked (with the chain taken to
/// hold before it, so that the checks after §6.1 are reached; orders files
/// read as missing). `Err` is a bug: the canonical reader took a text that
/// is not the entry's canonical bytes.
pub fn journal(data: &[u8]) -> Result<(), String> {
    let Ok(text) = std::str::from_utf8(data) else { return Ok(()) };
    let label = "journal/000001.yaml";
    let Ok((entry, canonical)) = crate::game::journal::parse_entry(label, text) else { return Ok(()) };
    let written = entry.to_yaml();
    if canonical && written != text {
        return Err(format!("the canonical reader took a text that is not canonical:\n{text}\nwritten:\n{written}"));
    }
    let previous_key = crate::base::dice::chain_previous(&entry.key);
    let missing = |path: &str| Err(format!("{path}: no such file"));
    let _ = crate::game::verify::check_entry(GAME_ID, &previous_key, &entry, &missing, !entry.dice.is_empty());
    // And as a journal's next entry: whatever the key, the checks answer.
    let _ = crate::game::verify::check_entry(GAME_ID, &entry.seed, &entry, &missing, false);
    Ok(())
}
