//! The shell: what every game system shares. A game folder
//! ([`folder`]) and its append-only journal ([`journal`]); new games of
//! the embedded modules ([`modules`]) and the commands on orders (here:
//! `new`, `validate`, `template`); orders sent ahead ([`inbox`]) and
//! standing orders ([`standing`]); the limits every orders file passes
//! ([`input`]); resolving steps ([`play`]); checking a folder ([`verify`]);
//! what a killed command left, finished by the next ([`recovery`]); ad hoc
//! verifiable rolls ([`roll_log`]).

pub mod deadline;
pub mod folder;
pub mod inbox;
pub mod input;
pub mod journal;
pub mod kept;
pub mod modules;
pub mod mutual;
pub mod play;
pub mod publish;
pub mod recovery;
pub mod roll_log;
pub mod selfplay;
pub mod standing;
pub mod verify;

use std::path::Path;
use std::time::Duration;

use serde::Serialize;

use crate::base::dice::Bytes32;
use crate::base::error::{Error, Result};
use crate::game::folder::{FolderKind, GameFolder, GameOf, Player};

/// Parse `side=Name <address>` (the address is optional): the mailbox is
/// read by lettre's parser, the one that sends the mail, so that an
/// address `new` accepts is one `mail` can send to.
pub fn parse_player(spec: &str) -> Result<Player> {
    let shown = crate::base::error::echo(spec);
    let usage = || {
        Error::usage(format!(
            "--player '{shown}': write SIDE=NAME <ADDRESS>, e.g. british=\"Ann Smith <ann@example.org>\""
        ))
    };
    let (side, rest) = spec.split_once('=').ok_or_else(usage)?;
    let side = side.trim();
    let rest = rest.trim();
    let (name, email) = if rest.contains(['<', '>', '@']) {
        let mailbox =
            crate::base::address::parse_mailbox(rest).map_err(|e| Error::usage(format!("--player '{shown}': {e}")))?;
        let name = mailbox.name.clone().unwrap_or_default();
        (name.trim().to_string(), Some(mailbox.email.to_string()))
    } else {
        (rest.to_string(), None)
    };
    if side.is_empty() || name.is_empty() || name.chars().any(char::is_control) || side.chars().any(char::is_control) {
        return Err(usage());
    }
    Ok(Player { side: side.to_string(), name, email })
}

#[derive(Debug, Clone, Serialize)]
pub struct NewGame {
    pub dir: String,
    pub game_id: String,
    pub module: String,
    /// The module folder the game reads, for a module not embedded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub module_folder: Option<String>,
    pub module_name: String,
    pub scenario: String,
    pub scenario_name: String,
    pub players: Vec<Player>,
    pub chain_length: u32,
    pub anchor: Bytes32,
    #[serde(skip_serializing_if = "crate::game::folder::DiceMode::is_referee")]
    pub mode: crate::game::folder::DiceMode,
    /// Mutual mode: the players' chains recorded so far (DICE.md 7.1).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub player_chains: Vec<crate::game::folder::PlayerChain>,
}

/// Create a game of `module`'s `scenario` at `dir`. `module` is an
/// embedded module's id, or a module folder's path ([`modules::is_folder`]):
/// game.yaml then records the folder (made absolute) and the SHA-256 of
/// each of its files, which every later command checks.
pub fn new_game(
    dir: &Path,
    module_name: &str,
    scenario_id: &str,
    game_id: &str,
    players: Vec<Player>,
    chain_length: u32,
    mutual: Option<Vec<crate::game::folder::PlayerChain>>,
) -> Result<NewGame> {
    let files = modules::files(module_name, None)?;
    let module = match files.folder() {
        Some(_) => modules::info_of(&files)?,
        None => modules::load(module_name)?,
    };
    let scenario = module.scenario(scenario_id)?;
    for (i, p) in players.iter().enumerate() {
        module.side(&p.side)?;
        if players[..i].iter().any(|q| q.side == p.side) {
            return Err(Error::usage(format!("--player: side '{}' is given twice", p.side)));
        }
    }
    // The scenario's set-up is the state before step 1.
    let module_folder = match files.folder() {
        Some(path) => {
            let absolute = std::fs::canonicalize(path).map_err(|e| Error::io(path, e))?;
            Some(crate::game::folder::ModuleFolder {
                path: absolute.to_string_lossy().into_owned(),
                sha256: files.sha256s(),
            })
        }
        None => None,
    };
    let files = match files.folder() {
        Some(_) => files,
        None => modules::ModuleFiles::embedded(&module.id),
    };
    let rules = modules::system_of_files(&files)?.load(&files, &scenario.id)?;
    // DICE.md 7.5: in mutual mode every chain must serve the scenario's
    // most steps, since there is no rollover.
    if let Some(chains) = &mutual {
        mutual::check_new(rules.as_ref(), scenario.first_turn, scenario.last_turn, chain_length, chains)?;
    }
    let state_yaml = rules.setup()?.to_yaml()?;
    let folder = GameFolder::create_new(
        dir,
        game_id,
        Some(GameOf { module: module.id.clone(), module_folder: module_folder.clone(), scenario: scenario.id.clone() }),
        players.clone(),
        chain_length,
        mutual.clone(),
        &[(crate::game::folder::STATE_FILE, state_yaml.into_bytes())],
    )?;
    let anchor = folder.config.dice.anchor;
    Ok(NewGame {
        dir: dir.display().to_string(),
        game_id: game_id.to_string(),
        module: module.id.clone(),
        module_folder: module_folder.map(|f| f.path),
        module_name: module.name.clone(),
        scenario: scenario.id.clone(),
        scenario_name: scenario.name.clone(),
        players,
        chain_length,
        anchor,
        mode: folder.config.dice.mode,
        player_chains: folder.config.dice.players.clone(),
    })
}

/// What `adjutant player` changed.
#[derive(Debug, Clone, Serialize)]
pub struct PlayerChanged {
    pub side: String,
    /// The player before (absent: the side had none).
    pub was: Option<Player>,
    pub now: Player,
    /// The journal's last step: steps after it are resolved with the new
    /// player, and their journal entries bind him.
    pub after_step: u32,
}

/// `adjutant player`: give a side a new player (name and address), from a
/// spec as `new --player` takes it. game.yaml is rewritten (in its
/// canonical form) with the player and the change recorded in
/// `player_changes`, which `verify` reads to check the players each
/// journal entry binds. An unchanged player is refused.
pub fn change_player(dir: &Path, spec: &str, wait: std::time::Duration) -> Result<PlayerChanged> {
    let folder = GameFolder::open(dir)?;
    if folder.config.kind != FolderKind::Game {
        return Err(Error::usage(format!("{}: a roll log has no players", dir.display())));
    }
    let _lock = crate::game::recovery::lock(&folder, wait)?;
    // Read again under the lock: another command may have changed it.
    let mut config = GameFolder::open(dir)?.config;
    let now = parse_player(spec)?;
    let module = folder.module_info()?;
    module.side(&now.side)?;
    let (after_step, _) = folder.journal().tail()?;
    let after_step = after_step - 1;
    let at = config.players.iter().position(|p| p.side == now.side);
    let was = at.map(|i| config.players[i].clone());
    if was.as_ref() == Some(&now) {
        return Err(Error::refused(format!("{}: already the player of {} in game.yaml", now.name, now.side)));
    }
    config.player_changes.push(crate::game::folder::PlayerChange {
        after_step,
        side: now.side.clone(),
        was: was.as_ref().map(|p| crate::game::folder::PlayerWas { name: p.name.clone(), email: p.email.clone() }),
    });
    match at {
        Some(i) => config.players[i] = now.clone(),
        None => config.players.push(now.clone()),
    }
    crate::base::fsio::write_atomic(&folder.root.join(crate::game::folder::GAME_FILE), config.to_yaml().as_bytes())?;
    Ok(PlayerChanged { side: now.side.clone(), was, now, after_step })
}

/// What `adjutant senders` set (src/mail/auth.rs).
#[derive(Debug, Clone, Serialize)]
pub struct SendersSet {
    pub game: String,
    /// `from`, `authentication-results` or `subject-secret`.
    pub method: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub authserv_id: Option<String>,
    /// The sides given a new sender secret now (`.secret/sender-SIDE`);
    /// the secrets themselves are never printed.
    pub new_secrets: Vec<String>,
    /// The sides whose secret was there already and is kept.
    pub kept_secrets: Vec<String>,
    /// openpgp: each side's key in `openpgp/SIDE.asc`, given now or kept.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub keys: Vec<SenderKey>,
    /// openpgp: the sides with a player and no key, whose orders by mail
    /// are refused until the referee gives one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub keyless: Vec<String>,
}

/// A player's OpenPGP key as `adjutant senders openpgp` holds it.
#[derive(Debug, Clone, Serialize)]
pub struct SenderKey {
    pub side: String,
    /// The primary key's fingerprint (upper-case hexadecimal, as gpg
    /// prints it): the referee compares it with the player's own.
    pub fingerprint: String,
    /// The file, relative to the game folder.
    pub file: String,
    /// Given by this command (else kept from before).
    pub new: bool,
}

/// Set how a game proves who sent a message (game.yaml's `senders:`):
/// `method` is `from` (the From: header alone), `authentication-results`
/// (with `authserv_id`) or `subject-secret`; for the last, a secret is
/// made for each side with a player that has none, and for each side of
/// `renew` whether it has one or not; for `openpgp`, each of `keys`
/// (`SIDE=FILE`, an armored public key) is checked and written to
/// `openpgp/SIDE.asc`, replacing the side's key if it has one.
pub fn set_senders(
    dir: &Path,
    method: &str,
    authserv_id: Option<&str>,
    renew: &[String],
    keys: &[String],
    wait: std::time::Duration,
) -> Result<SendersSet> {
    use crate::mail::auth::{Method, Senders};
    let folder = GameFolder::open(dir)?;
    if folder.config.kind != FolderKind::Game {
        return Err(Error::usage(format!("{}: a roll log takes no orders by mail", dir.display())));
    }
    let _lock = crate::game::recovery::lock(&folder, wait)?;
    let mut config = GameFolder::open(dir)?.config;
    let senders = match method {
        "from" => None,
        "authentication-results" => {
            Some(Senders { method: Method::AuthenticationResults, authserv_id: authserv_id.map(str::to_string) })
        }
        "subject-secret" => {
            Some(Senders { method: Method::SubjectSecret, authserv_id: authserv_id.map(str::to_string) })
        }
        "openpgp" => Some(Senders { method: Method::Openpgp, authserv_id: authserv_id.map(str::to_string) }),
        other => {
            return Err(Error::usage(format!(
                "{}: no such method; give from, authentication-results, subject-secret or openpgp",
                crate::base::error::echo_at_most(other, 60)
            )))
        }
    };
    if method == "from" && authserv_id.is_some() {
        return Err(Error::usage("--authserv-id: only method authentication-results takes an authserv-id"));
    }
    if let Some(problem) = senders.as_ref().and_then(Senders::problem) {
        return Err(Error::usage(problem.replace("senders.authserv_id", "--authserv-id")));
    }
    for side in renew {
        if !config.players.iter().any(|p| &p.side == side) {
            return Err(Error::usage(format!(
                "--renew {}: no player plays that side in game.yaml",
                crate::base::error::echo_at_most(side, 60)
            )));
        }
    }
    if !renew.is_empty() && method != "subject-secret" {
        return Err(Error::usage("--renew: only method subject-secret has secrets"));
    }
    if !keys.is_empty() && method != "openpgp" {
        return Err(Error::usage("--key: only method openpgp takes players' keys"));
    }
    // Every key read and checked before anything is written.
    let keys_dir = folder.root.join(crate::mail::auth::KEYS_DIR);
    let mut given: Vec<(String, Vec<u8>, String)> = Vec::new();
    for arg in keys {
        let shown = crate::base::error::echo_at_most(arg, 80);
        let Some((side, file)) = arg.split_once('=').filter(|(s, f)| !s.is_empty() && !f.is_empty()) else {
            return Err(Error::usage(format!("--key {shown}: write SIDE=FILE (french=charles.asc)")));
        };
        if !config.players.iter().any(|p| p.side == side) {
            return Err(Error::usage(format!(
                "--key {shown}: no player plays {} in game.yaml",
                crate::base::error::echo_at_most(side, 60)
            )));
        }
        if given.iter().any(|(s, _, _)| s == side) {
            return Err(Error::usage(format!("--key {shown}: a second key for {side}; give one key a side")));
        }
        // A key is a few kilobytes: a larger file is not read.
        if std::fs::metadata(file).is_ok_and(|m| m.len() > 1 << 20) {
            return Err(Error::usage(format!("--key {shown}: larger than a public key may be (1 MiB)")));
        }
        let bytes =
            std::fs::read(file).map_err(|e| Error::usage(format!("--key {shown}: cannot read the file ({e})")))?;
        let text = String::from_utf8(bytes.clone())
            .map_err(|_| Error::usage(format!("--key {shown}: not text, so not an armored OpenPGP public key")))?;
        let key = crate::mail::auth::read_key(&text).map_err(|e| Error::usage(format!("--key {shown}: {e}")))?;
        given.push((side.to_string(), bytes, crate::mail::auth::fingerprint(&key)));
    }
    let mut sender_keys = Vec::new();
    let mut keyless = Vec::new();
    if method == "openpgp" {
        for p in &config.players {
            let file = format!("{}/{}", crate::mail::auth::KEYS_DIR, crate::mail::auth::key_file(&p.side));
            if let Some((_, _, fingerprint)) = given.iter().find(|(s, _, _)| *s == p.side) {
                sender_keys.push(SenderKey { side: p.side.clone(), fingerprint: fingerprint.clone(), file, new: true });
                continue;
            }
            let path = keys_dir.join(crate::mail::auth::key_file(&p.side));
            if !path.is_file() {
                keyless.push(p.side.clone());
                continue;
            }
            let text = String::from_utf8(crate::base::fsio::read(&path)?).unwrap_or_default();
            let key = crate::mail::auth::read_key(&text).map_err(|e| {
                Error::usage(format!("{file}: {e}; give the player's key anew with --key {}=FILE", p.side))
            })?;
            sender_keys.push(SenderKey {
                side: p.side.clone(),
                fingerprint: crate::mail::auth::fingerprint(&key),
                file,
                new: false,
            });
        }
        if sender_keys.is_empty() {
            return Err(Error::usage(
                "--key: method openpgp needs the public key of at least one player (--key SIDE=FILE, an armored \
                 key as gpg --armor --export ADDRESS writes it)",
            ));
        }
    }
    if !given.is_empty() {
        std::fs::create_dir_all(&keys_dir).map_err(|e| Error::io(&keys_dir, e))?;
    }
    for (side, bytes, _) in &given {
        crate::base::fsio::write_atomic(&keys_dir.join(crate::mail::auth::key_file(side)), bytes)?;
    }
    let secret_dir = folder.root.join(crate::game::folder::SECRET_DIR);
    let mut new_secrets = Vec::new();
    let mut kept_secrets = Vec::new();
    if method == "subject-secret" {
        for p in &config.players {
            let path = secret_dir.join(crate::mail::auth::secret_file(&p.side));
            if path.is_file() && !renew.contains(&p.side) {
                kept_secrets.push(p.side.clone());
                continue;
            }
            let secret = crate::mail::auth::new_secret().map_err(Error::refused)?;
            crate::base::fsio::write_atomic_mode(&path, format!("{secret}\n").as_bytes(), Some(0o600))?;
            new_secrets.push(p.side.clone());
        }
    }
    config.senders = senders;
    crate::base::fsio::write_atomic(&folder.root.join(crate::game::folder::GAME_FILE), config.to_yaml().as_bytes())?;
    Ok(SendersSet {
        game: config.game_id.clone(),
        method: method.to_string(),
        authserv_id: config.senders.as_ref().and_then(|s| s.authserv_id.clone()),
        new_secrets,
        kept_secrets,
        keys: sender_keys,
        keyless,
    })
}

/// The current state of a game folder (`state.yaml`).
pub fn load_state(folder: &GameFolder) -> Result<crate::system::State> {
    let path = folder.root.join(crate::game::folder::STATE_FILE);
    let label = path.display().to_string();
    let text = crate::base::fsio::read_text(&path, &label)?;
    folder.state_from(&label, &text)
}

/// The rules of a game folder's module and scenario ([`GameFolder::rules`]).
pub fn load_rules(folder: &GameFolder) -> Result<&dyn crate::system::Rules> {
    folder.rules()
}

/// What `validate` found in one orders file.
#[derive(Debug, Clone, Serialize)]
pub struct Validation {
    pub file: String,
    pub side: Option<String>,
    pub step: Option<String>,
    /// The first problems ([`crate::base::error::MAX_PROBLEMS`]), one a line.
    pub problems: Vec<String>,
    /// Each listed problem's code and rule, in the same order: `None` for a
    /// problem that is no refusal by the game's rules (docs/refusals.md).
    pub codes: Vec<Option<crate::base::error::RefusalCode>>,
    /// How many more problems the file has than are listed.
    #[serde(skip_serializing_if = "is_zero")]
    pub more_problems: usize,
    /// Orders that pass but hurt the sender (issue 16), a line each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Validation {
    /// Every problem of the file, listed or not.
    pub fn count(&self) -> usize {
        self.problems.len() + self.more_problems
    }
}

/// Check orders files against a game's current step, reporting every
/// problem (the first [`crate::base::error::MAX_PROBLEMS`] of each file, and how
/// many more). Each file passes [`crate::game::input`]'s limits before the
/// game's rules are loaded, so that a file refused for its size, encoding
/// or nesting costs no more than reading it.
/// Waits up to `wait` for a command writing the folder.
pub fn validate(dir: &Path, files: &[std::path::PathBuf], wait: Duration) -> Result<Vec<Validation>> {
    let folder = GameFolder::open(dir)?;
    let mut read = Vec::new();
    for file in files {
        let label = file.display().to_string();
        let bytes = match crate::game::input::read_file(file, crate::game::input::MAX_ORDERS_BYTES, "an orders file") {
            Ok(bytes) => Ok(bytes),
            Err(Error::Refused(message)) => Err(message),
            Err(e) => return Err(e),
        };
        read.push((label, bytes));
    }
    let _read = crate::game::recovery::for_reading(&folder, wait)?.finished(&folder)?;
    let mut loaded = None;
    let mut out = Vec::new();
    let mut together = Vec::new();
    for (label, bytes) in &read {
        let mut v = Validation {
            file: label.clone(),
            side: None,
            step: None,
            problems: Vec::new(),
            codes: Vec::new(),
            more_problems: 0,
            warnings: Vec::new(),
        };
        let text = match bytes.as_ref().map(|b| crate::game::input::orders_text(label, b)) {
            Err(refused) => Err(refused.clone()),
            Ok(Err(located)) => Err(located.to_string()),
            Ok(Ok(text)) => Ok(text),
        };
        let text = match text {
            Ok(text) => text,
            Err(refused) => {
                v.problems.push(refused);
                v.codes.push(None);
                out.push(v);
                continue;
            }
        };
        if loaded.is_none() {
            loaded = Some((load_rules(&folder)?, load_state(&folder)?));
        }
        let Some((rules, state)) = &loaded else { continue };
        let found = match rules.check_header(&folder.config.game_id, state.as_ref(), label, text) {
            Err(list) => list,
            Ok(header) => {
                v.side = Some(header.side.clone());
                v.step = Some(header.step.field.clone());
                let found = rules.validate_body(state.as_ref(), &header, label, text);
                if found.is_empty() {
                    v.warnings = rules.warnings(state.as_ref(), &header, label, text);
                    together.push((out.len(), header));
                }
                found
            }
        };
        (v.problems, v.more_problems) = crate::base::error::first_problems(&found);
        v.codes = found.iter().take(v.problems.len()).map(|l| l.code.as_deref().cloned()).collect();
        out.push(v);
    }
    // Files of every side the awaited step awaits, each valid alone: the
    // checks `resolve` makes of them together (a probe that rolls nothing,
    // DICE.md A6: Savannah 4.1's French and American units ending a
    // Movement Phase stacked are each file's own business alone).
    if let Some((rules, state)) = &loaded {
        together.retain(|(_, h)| state.next_step().is_some_and(|n| n == h.step));
        let awaited = rules.awaited(state.as_ref());
        let sides: std::collections::BTreeSet<&String> = together.iter().map(|(_, h)| &h.side).collect();
        let complete =
            together.len() == sides.len() && !awaited.is_empty() && awaited.iter().all(|s| sides.contains(s));
        if complete && together.len() > 1 {
            let bodies: std::collections::BTreeMap<String, crate::base::yaml::Value> =
                together.iter().map(|(_, h)| (h.side.clone(), h.body.clone())).collect();
            if let (false, Some(why)) = crate::game::mutual::probe(*rules, state, &bodies) {
                let files: Vec<String> = together.iter().map(|(i, _)| out[*i].file.clone()).collect();
                for (i, _) in &together {
                    let others: Vec<&str> = files.iter().filter(|f| **f != out[*i].file).map(String::as_str).collect();
                    let problem = format!(
                        "{}: each file passes its own checks, but with {} the rules refuse the orders together \
                         (as `resolve` would): {why}",
                        out[*i].file,
                        others.join(", ")
                    );
                    out[*i].problems.push(problem);
                    out[*i].codes.push(None);
                }
            }
        }
    }
    Ok(out)
}

/// The least orders `side` may send for the awaited step, as the text of an
/// orders file (the header and the template's body, no guide): what `tick`
/// writes for a side that missed its deadline.
pub fn least_orders(
    folder: &GameFolder,
    rules: &dyn crate::system::Rules,
    state: &dyn crate::system::GameState,
    side: &str,
) -> Result<String> {
    let Some(step) = state.next_step() else {
        return Err(Error::refused(format!("{}: the game is over; no orders are awaited", folder.root.display())));
    };
    let guide = rules.template(state, side)?;
    let mut text =
        format!("game: {}\nturn: {}\nstep: {}\nside: {side}\n", folder.config.game_id, step.turn, step.field);
    if guide.body.as_mapping().is_some_and(|m| !m.is_empty()) {
        text += &crate::base::yaml::to_string(&guide.body).map_err(|e| Error::refused(format!("the template: {e}")))?;
    }
    Ok(text)
}

/// `adjutant template`: the orders `side` must send for the game's next
/// step, at their least (the system's [`crate::system::Rules::template`]), then the guide to
/// what else it may order, as comments; as the text of an orders file and
/// as data. Waits up to `wait` for a command writing the folder.
pub fn template(dir: &Path, side: &str, wait: Duration) -> Result<(String, serde_json::Value)> {
    let folder = GameFolder::open(dir)?;
    let _read = crate::game::recovery::for_reading(&folder, wait)?.finished(&folder)?;
    let rules = load_rules(&folder)?;
    let state = load_state(&folder)?;
    template_at(&folder, rules, &state, side)
}

/// [`template`] for the position `state` (the caller holds the folder).
pub fn template_at(
    folder: &GameFolder,
    rules: &dyn crate::system::Rules,
    state: &crate::system::State,
    side: &str,
) -> Result<(String, serde_json::Value)> {
    let dir = &folder.root;
    let Some(step) = state.next_step() else {
        return Err(Error::refused(format!("{}: the game is over; no orders are awaited", dir.display())));
    };
    let awaited = rules.awaited(state.as_ref());
    let stand_in = stand_in(&folder.config, rules, state.as_ref());
    if !awaited.iter().any(|s| s == side) && stand_in.as_deref() != Some(side) {
        let mut who = if awaited.is_empty() { "no side".to_string() } else { awaited.join(", ") };
        if let Some(role) = &stand_in {
            who += &format!(" (or the {role}'s one entry)");
        }
        return Err(Error::refused(format!(
            "step {} awaits orders from {who}, not from {}",
            step.name,
            crate::base::error::echo_at_most(side, 60)
        )));
    }
    let guide = rules.template(state.as_ref(), side)?;
    let body = &guide.body;
    let mut text =
        format!("game: {}\nturn: {}\nstep: {}\nside: {side}\n", folder.config.game_id, step.turn, step.field);
    if body.as_mapping().is_some_and(|m| !m.is_empty()) {
        text += &crate::base::yaml::to_string(body).map_err(|e| Error::refused(format!("the template: {e}")))?;
    }
    // The guide: comments only, so the file validates as it did without it.
    text += &guide.comment;
    // Standing orders would answer for the side if it sent nothing.
    let standing = crate::game::standing::summaries(folder)?
        .into_iter()
        .find(|s| s.side == side && s.steps.contains(&step.field))
        .map(|_| crate::game::standing::file_name(side));
    if let Some(file) = &standing {
        text = format!("# {file} covers this step: if {side} sends no orders, resolve uses those\n{text}");
    }
    let json = serde_json::to_value(body).unwrap_or(serde_json::Value::Null);
    let data = serde_json::json!({
        "step": step.name,
        "side": side,
        "orders": json,
        "text": text,
        "standing": standing,
        "kind": guide.kind,
        "doc": guide.doc,
        "units": guide.units,
        "choices": guide.choices,
    });
    Ok((text, data))
}

/// The role whose one entry may answer for every awaited side
/// ([`crate::system::Rules::stand_in`]: the AWI referee's), but not in a game in mutual
/// dice mode, whose steps the awaited sides' own files decide (DICE.md 7:
/// each step's dice come from the players' keys, and the role holds none;
/// `resolve` refuses the entry there): `status` and `template` offer it
/// only where `resolve` takes it.
pub fn stand_in(
    config: &folder::GameConfig,
    rules: &dyn crate::system::Rules,
    state: &dyn crate::system::GameState,
) -> Option<String> {
    if config.dice.mode == folder::DiceMode::Mutual {
        return None;
    }
    rules.stand_in(state)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn player_specs() {
        let p = parse_player("british=Ann Smith <ann@example.org>").unwrap();
        assert_eq!(
            (p.side.as_str(), p.name.as_str(), p.email.as_deref()),
            ("british", "Ann Smith", Some("ann@example.org"))
        );
        let p = parse_player("french=Bob").unwrap();
        assert_eq!((p.name.as_str(), p.email), ("Bob", None));
        for bad in ["british", "=Ann", "british=", "british=Ann <ann>", "british=Ann <a@b", "british=<a@b.c>"] {
            assert!(parse_player(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn new_game_checks_module_scenario_and_sides() {
        let dir = tempfile::tempdir().unwrap();
        let players = vec![parse_player("british=Ann").unwrap()];
        let made =
            new_game(&dir.path().join("g"), "savannah-1779", "historical", "g1", players.clone(), 16, None).unwrap();
        assert_eq!(made.scenario_name, "Historical Scenario");
        let opened = GameFolder::open(&dir.path().join("g")).unwrap();
        assert_eq!(opened.config.players, players);
        let bad_side = vec![parse_player("hessian=Ann").unwrap()];
        let err = new_game(&dir.path().join("h"), "savannah-1779", "historical", "g2", bad_side, 16, None).unwrap_err();
        assert!(err.to_string().contains("british, french, american"), "{err}");
        assert!(!dir.path().join("h").exists());
        let twice = vec![parse_player("british=Ann").unwrap(), parse_player("british=Bob").unwrap()];
        assert!(new_game(&dir.path().join("h"), "savannah-1779", "historical", "g2", twice, 16, None).is_err());
    }
}
