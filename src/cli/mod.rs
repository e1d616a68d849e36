//! The binary: parse the command line, call the library, render the result.

mod arguments;
mod demo;
mod generate;
mod mail;
mod map;
mod modules;
mod odds;
mod output;
mod selfplay;
mod status;
mod tick;

use std::ffi::OsString;
use std::fs;
use std::io::{self, IsTerminal, Read};
use std::path::Path;
use std::time::Duration;

use clap::{CommandFactory, FromArgMatches, ValueEnum};
use serde::Serialize;

use adjutant::base::dice::{self, Bytes32, DiceExpr, Die, PlayerKey, SideHash};
use adjutant::game::{self, roll_log, verify};
use adjutant::Error;

pub use arguments::Cli;
use arguments::{ColorChoice, Command, DiceCommand, Format, RollCommand};
use output::{BrokenPipe, Out, Style};

/// Why a command stopped early.
pub enum Stop {
    Error(Error),
    BrokenPipe,
}

impl From<Error> for Stop {
    fn from(e: Error) -> Self {
        Stop::Error(e)
    }
}

impl From<BrokenPipe> for Stop {
    fn from(_: BrokenPipe) -> Self {
        Stop::BrokenPipe
    }
}

type Outcome = Result<i32, Stop>;

/// Run the command line; return the exit status.
pub fn run() -> i32 {
    let argv: Vec<OsString> = std::env::args_os().collect();
    // `--format` and `--color` rule clap's own output too (help, usage
    // errors), so they are read before clap parses the rest.
    let (format, color) = early_choices(&argv);
    let mut command = Cli::command().color(match color {
        ColorChoice::Auto => clap::ColorChoice::Auto,
        ColorChoice::Always => clap::ColorChoice::Always,
        ColorChoice::Never => clap::ColorChoice::Never,
    });
    let parsed = command
        .try_get_matches_from_mut(&argv)
        .and_then(|matches| Cli::from_arg_matches(&matches).map_err(|e| e.format(&mut command)));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help, --version: what was asked for, on standard output.
            let _ = e.print();
            return 0;
        }
        Err(e) if format == Format::Json => {
            let text = e.render().to_string();
            let message = text.trim().strip_prefix("error: ").unwrap_or(text.trim());
            json_error("usage", message, 2, serde_json::Map::new());
            return 2;
        }
        Err(e) => {
            let _ = e.print();
            return 2;
        }
    };
    let out = Out::new(cli.format, cli.color);
    match dispatch(&cli, &out) {
        Ok(code) => code,
        Err(Stop::BrokenPipe) => 0,
        // Whatever player text an error quotes reaches the terminal escaped,
        // in JSON too (whose reader may print the message as it is).
        Err(Stop::Error(e)) if cli.format == Format::Json => {
            let mut more = serde_json::Map::new();
            if let Error::Data(located) = &e {
                more.insert("file".into(), located.file.clone().into());
                more.insert("line".into(), located.line.into());
                more.insert("column".into(), located.column.into());
                more.insert("field".into(), located.field.clone().into());
            }
            if !e.codes().is_empty() {
                more.insert("codes".into(), serde_json::to_value(e.codes()).unwrap_or_default());
            }
            json_error(e.kind(), &adjutant::base::error::escape_lines(&e.to_string()), e.exit_code(), more);
            e.exit_code()
        }
        Err(Stop::Error(e)) => {
            let style = Style::decide(cli.color, io::stderr().is_terminal());
            eprintln!("{} {}", style.bad("error:"), adjutant::base::error::escape_lines(&e.to_string()));
            e.exit_code()
        }
    }
}

/// An error under `--format json`: one JSON object on standard error,
/// `{"error": {"kind", "message", "exit_code", ...}}` (README, For scripts).
fn json_error(kind: &str, message: &str, exit_code: i32, more: serde_json::Map<String, serde_json::Value>) {
    let mut error = serde_json::Map::new();
    error.insert("kind".into(), kind.into());
    error.insert("message".into(), message.into());
    error.insert("exit_code".into(), exit_code.into());
    error.extend(more);
    let value = serde_json::json!({ "error": error });
    eprintln!("{}", serde_json::to_string_pretty(&value).unwrap_or_default());
}

/// `--format` and `--color` as the command line gives them (the last of
/// each wins, as clap takes them), before clap has parsed it: a value clap
/// would refuse counts as the default.
fn early_choices(argv: &[OsString]) -> (Format, ColorChoice) {
    let mut format = Format::Text;
    let mut color = ColorChoice::Auto;
    let mut args = argv.iter().skip(1).map(|a| a.to_string_lossy());
    while let Some(arg) = args.next() {
        if arg == "--" {
            break;
        }
        let (name, value) = match arg.split_once('=') {
            Some((name, value)) => (name.to_string(), Some(value.to_string())),
            None => (arg.to_string(), None),
        };
        if name != "--format" && name != "--color" {
            continue;
        }
        let Some(value) = value.or_else(|| args.next().map(|v| v.into_owned())) else { break };
        if name == "--format" {
            format = Format::from_str(&value, false).unwrap_or(format);
        } else {
            color = ColorChoice::from_str(&value, false).unwrap_or(color);
        }
    }
    (format, color)
}

fn dispatch(cli: &Cli, out: &Out) -> Outcome {
    match &cli.command {
        Command::New(args) => new(args, out),
        Command::Roll(args) => match &args.command {
            Some(RollCommand::Init(init)) => roll_init(init, out),
            Some(RollCommand::Key(key)) => roll_key(key, out),
            None => roll(args, args.wait.duration(), out),
        },
        Command::Verify(args) => verify_folder(args, args.wait.duration(), out),
        Command::Publish(args) => publish(args, args.wait.duration(), out),
        Command::Player(args) => player(args, args.wait.duration(), out),
        Command::Senders(args) => senders(args, args.wait.duration(), out),
        Command::Correct(args) => correct(args, args.wait.duration(), out),
        Command::Validate(args) => validate(args, args.wait.duration(), out),
        Command::Resolve(args) => resolve_game(args, args.wait.duration(), out),
        Command::Join(args) => join(args, args.wait.duration(), out),
        Command::Dice(command) => dice_command(command, out),
        Command::Map(args) => map::run(args, out),
        Command::CheckGame(args) => check_game(args, out),
        Command::Case(arguments::CaseCommand::Run { paths }) => run_cases(paths, out),
        Command::Module(arguments::ModuleCommand::Export { module, dir }) => export_module(module, dir, out),
        Command::Modules => modules::run(out),
        Command::Demo(args) => demo::run(args, out),
        Command::Selfplay(args) => selfplay::run(args, out),
        Command::Odds(args) => odds::run(args, args.wait.duration(), out),
        Command::Template(args) => template(args, args.wait.duration(), out),
        Command::Submit(args) => submit(args, args.wait.duration(), out),
        Command::Mail(args) => mail::run(args, args.wait.duration(), out),
        Command::Tick(args) => tick::run(args, args.wait.duration(), out),
        Command::Welcome(args) => tick::welcome(args, args.wait.duration(), out),
        Command::Status(args) => status::run(&args.dir, args.wait.duration(), out),
        Command::Report(args) => report(args, args.wait.duration(), out),
        Command::Generate(args) => generate::run(args, out),
    }
}

/// The game id a folder gets when none is given: the folder's own name.
fn default_game_id(dir: &Path, given: &Option<String>) -> Result<String, Error> {
    if let Some(id) = given {
        return Ok(id.clone());
    }
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| Error::usage(format!("{}: give the game an id with --game-id", dir.display())))?;
    adjutant::game::folder::check_game_id(&name)
        .map_err(|_| Error::usage(format!("the folder name '{name}' cannot be a game id; give one with --game-id")))?;
    Ok(name)
}

fn new(args: &arguments::NewArgs, out: &Out) -> Outcome {
    let game_id = default_game_id(&args.dir, &args.game_id)?;
    let players = args.players.iter().map(|p| game::parse_player(p)).collect::<Result<Vec<_>, _>>()?;
    let mutual = match args.mode {
        arguments::DiceModeArg::Referee => {
            if !args.anchors.is_empty() {
                return Err(Error::usage("--anchor is for mutual mode: give --mode mutual").into());
            }
            None
        }
        arguments::DiceModeArg::Mutual => {
            Some(args.anchors.iter().map(|a| game::mutual::parse_anchor(a)).collect::<Result<Vec<_>, _>>()?)
        }
    };
    let made = game::new_game(&args.dir, &args.module, &args.scenario, &game_id, players, args.chain_length, mutual)?;
    out.result(&made, |s| {
        let mut text = format!("{} {} in {}\n", s.good("Created game"), s.bold(&made.game_id), made.dir);
        text += &format!("  game      {} ({}), {}\n", made.module_name, made.module, made.scenario_name);
        if let Some(folder) = &made.module_folder {
            text += &format!("  module    {folder} (the SHA-256 of each file is in game.yaml)\n");
        }
        for p in &made.players {
            let email = p.email.as_deref().map(|e| format!(" <{e}>")).unwrap_or_default();
            text += &format!("  {:<9} {}{}\n", p.side, p.name, email);
        }
        text += &format!("  anchor    {}\n", made.anchor.to_hex());
        if made.mode == adjutant::game::folder::DiceMode::Mutual {
            text += "  dice      mutual mode (DICE.md 7): every player's key chain takes part in each roll\n";
            for p in &made.player_chains {
                text += &format!("  player    {} anchor {} (M = {})\n", p.label, p.anchor.to_hex(), p.chain_length);
            }
        }
        text += "Send the anchor to every player before any orders: each step reveals the next key of the\n\
                  chain that ends in it, so anyone can recompute every roll with `adjutant verify`.\n";
        text
    })?;
    Ok(0)
}

fn roll_init(args: &arguments::RollInitArgs, out: &Out) -> Outcome {
    let game_id = default_game_id(&args.dir, &args.game_id)?;
    let mutual = match args.mode {
        arguments::DiceModeArg::Referee if !args.anchors.is_empty() => {
            return Err(Error::usage("--anchor is for mutual mode: give --mode mutual").into());
        }
        arguments::DiceModeArg::Referee => None,
        arguments::DiceModeArg::Mutual => {
            Some(args.anchors.iter().map(|a| game::mutual::parse_anchor(a)).collect::<Result<Vec<_>, _>>()?)
        }
    };
    let made = roll_log::init(&args.dir, &game_id, args.chain_length, mutual)?;
    out.result(&made, |s| {
        format!(
            "{} {} in {}\n  anchor    {}\n  steps     {} rolls before the chain is used up\n\
             Send the anchor to your opponents now, before any roll: it commits to every future roll.\n",
            s.good("Created roll log"),
            s.bold(&made.game_id),
            made.dir,
            made.anchor.to_hex(),
            made.chain_length - 1
        )
    })?;
    Ok(0)
}

fn roll(args: &arguments::RollArgs, wait: Duration, out: &Out) -> Outcome {
    let dice = args.dice.iter().map(|d| d.parse::<DiceExpr>().map_err(Error::usage)).collect::<Result<Vec<_>, _>>()?;
    let purpose = args.purpose.as_deref().unwrap_or_default();
    match roll_log::roll(&args.dir, &dice, purpose, wait)? {
        roll_log::RollOutcome::Rolled(rolled) => out.result(&rolled, |s| render_roll(&rolled, s))?,
        roll_log::RollOutcome::Sealed(sealed) => out.result(&sealed, |s| {
            format!(
                "{} roll {}: {} for \"{}\"\n  purpose sha256 {}\n  awaiting key p_{} from {} (`adjutant roll key`); \
                 then roll again with the same dice and purpose\n",
                s.good("sealed"),
                sealed.rolling_step,
                sealed.sealed.dice.join(" "),
                sealed.sealed.purpose,
                sealed.purpose_sha256.to_hex(),
                sealed.rolling_step,
                sealed.keys_owed.join(", ")
            )
        })?,
    }
    Ok(0)
}

fn roll_key(args: &arguments::RollKeyArgs, out: &Out) -> Outcome {
    let taken = roll_log::take_key(&args.dir, &args.key, args.wait.duration())?;
    out.result(&taken, |s| {
        let owed = if taken.keys_owed.is_empty() {
            "every key is in: roll again with the same dice and purpose".to_string()
        } else {
            format!("still awaiting p_{} from {}", taken.rolling_step, taken.keys_owed.join(", "))
        };
        format!("{} key p_{} of {}; {owed}\n", s.good("received"), taken.rolling_step, taken.label)
    })?;
    Ok(0)
}

fn render_roll(r: &roll_log::Rolled, s: &Style) -> String {
    let values: Vec<String> = r.values.iter().map(|v| v.to_string()).collect();
    let mut text =
        format!("{} {} · {} · {}\n", s.bold("step"), s.bold(&r.step.to_string()), r.dice.join(" "), r.purpose);
    text += &format!("  rolls     {}", s.bold(&values.join(" ")));
    if r.values.len() > 1 {
        text += &format!("   (total {})", r.total);
    }
    text += "\n";
    text += &format!("  key       {}\n", r.key.to_hex());
    text += &s.dim(&format!(
        "  seed      {}\n  orders    purpose sha256 {}\n  logged    {}\n",
        r.seed.to_hex(),
        r.orders_sha256.to_hex(),
        r.entry
    ));
    text
}

fn player(args: &arguments::PlayerArgs, wait: Duration, out: &Out) -> Outcome {
    let changed = adjutant::game::change_player(&args.dir, &args.player, wait)?;
    let show = |p: &adjutant::game::folder::Player| match &p.email {
        Some(email) => format!("{} <{email}>", p.name),
        None => p.name.clone(),
    };
    out.result(&changed, |_| {
        format!(
            "{}: {} -> {}\n  recorded in game.yaml after step {}: the steps resolved from now on bind the new player\n",
            changed.side,
            changed.was.as_ref().map(show).unwrap_or_else(|| "(no player)".into()),
            show(&changed.now),
            changed.after_step
        )
    })?;
    Ok(0)
}

fn senders(args: &arguments::SendersArgs, wait: Duration, out: &Out) -> Outcome {
    let set = adjutant::game::set_senders(
        &args.dir,
        args.method.name(),
        args.authserv_id.as_deref(),
        &args.renew,
        &args.key,
        wait,
    )?;
    out.result(&set, |s| {
        let mut text = match set.method.as_str() {
            "authentication-results" => format!(
                "{} game {} takes orders by mail only when {} has proven the sender (DKIM, SPF or DMARC)\n",
                s.good("senders:"),
                set.game,
                set.authserv_id.as_deref().unwrap_or_default()
            ),
            "subject-secret" => format!(
                "{} game {} takes orders by mail only with the player's secret as a word of the Subject:\n",
                s.good("senders:"),
                set.game
            ),
            "openpgp" => format!(
                "{} game {} takes orders by mail only signed with the player's OpenPGP key\n",
                s.good("senders:"),
                set.game
            ),
            _ => format!("{} game {} takes orders by mail from the From: header alone\n", s.good("senders:"), set.game),
        };
        for key in &set.keys {
            text += &format!(
                "  {} key of {}: {} in {} (compare it with the player's own)\n",
                if key.new { "new" } else { "kept" },
                key.side,
                key.fingerprint,
                key.file
            );
        }
        for side in &set.keyless {
            text += &format!(
                "  {side} has no key: its orders by mail are refused until you give one (--key {side}=FILE)\n"
            );
        }
        for side in &set.new_secrets {
            text += &format!(
                "  new secret for {side}: .secret/{} (give it to the player)\n",
                adjutant::mail::auth::secret_file(side)
            );
        }
        for side in &set.kept_secrets {
            text += &format!("  {side} keeps the secret in .secret/{}\n", adjutant::mail::auth::secret_file(side));
        }
        text
    })?;
    Ok(0)
}

fn verify_folder(args: &arguments::VerifyArgs, wait: Duration, out: &Out) -> Outcome {
    let dir = args.path.as_deref().unwrap_or(args.dir.as_path());
    let head = match &args.head {
        None => None,
        Some(hex) => Some(
            hex.trim()
                .parse::<adjutant::base::dice::Bytes32>()
                .map_err(|_| Error::usage("--head: give the 64 hexadecimal digits of a report's journal head"))?,
        ),
    };
    let verdict = adjutant::game::publish::verify_path(dir, &verify::Options { head, wait })?;
    out.result(&verdict, |s| render_verdict(dir, &verdict, s))?;
    Ok(if verdict.ok { 0 } else { 1 })
}

fn publish(args: &arguments::PublishArgs, wait: Duration, out: &Out) -> Outcome {
    let published = adjutant::game::publish::publish(&args.dir, &args.out, wait)?;
    out.result(&published, |s| {
        format!(
            "{} {} as {}: {} files ({} bytes), {} journal {}; anyone can check it with `adjutant verify {}`\n",
            s.good("published"),
            published.game_id,
            published.out.display(),
            published.files.len(),
            published.bytes,
            published.steps,
            if published.steps == 1 { "entry" } else { "entries" },
            published.out.display()
        )
    })?;
    Ok(0)
}

fn render_verdict(dir: &Path, v: &verify::Verdict, s: &Style) -> String {
    match &v.failure {
        None => {
            let mut text = format!(
                "{} {}: {} steps and {} rolls recompute from the anchor {}\n",
                s.good("verified"),
                dir.display(),
                v.steps,
                v.rolls,
                v.anchor.to_hex()
            );
            if let Some(verify::StepRange { first, last }) = v.reports_pending {
                let steps = if first == last {
                    format!("step {first} awaits its")
                } else {
                    format!("steps {first}-{last} await their")
                };
                text += &format!("  {steps} reports: run `adjutant resolve`\n");
            }
            if let Some(head) = &v.head {
                text += &format!("journal head: step {}, {}\n", head.step, head.sha256.to_hex());
            }
            if let Some(step) = v.head_found_at {
                text += &format!("the head you kept is step {step} of this journal\n");
            }
            if v.players_unchecked {
                text += "a published copy: it withholds the players' addresses, so the players each step binds \
                         were not checked\n";
            }
            text
        }
        Some(f) => format!(
            "{} {}: {}: {} check: {}\n  (steps before it verified: {})\n",
            s.bad("FAILED"),
            dir.display(),
            f.entry,
            serde_json::to_value(f.check).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default(),
            f.message,
            v.steps
        ),
    }
}

/// Every case file under `paths` (folders are searched for *.yaml), sorted.
fn case_files(paths: &[std::path::PathBuf]) -> Result<Vec<std::path::PathBuf>, Error> {
    let mut files = Vec::new();
    let mut stack: Vec<std::path::PathBuf> = paths.to_vec();
    while let Some(p) = stack.pop() {
        if p.is_dir() {
            for entry in fs::read_dir(&p).map_err(|e| Error::io(&p, e))? {
                let path = entry.map_err(|e| Error::io(&p, e))?.path();
                if path.is_dir() || path.extension().is_some_and(|e| e == "yaml") {
                    stack.push(path);
                }
            }
        } else if p.exists() {
            files.push(p);
        } else {
            return Err(Error::io(&p, io::Error::from(io::ErrorKind::NotFound)));
        }
    }
    files.sort();
    Ok(files)
}

fn run_cases(paths: &[std::path::PathBuf], out: &Out) -> Outcome {
    let mut outcomes = Vec::new();
    for file in case_files(paths)? {
        let label = file.display().to_string();
        let outcome = adjutant::base::fsio::read_text(&file, &label)
            .and_then(|text| adjutant::game::modules::run_case(&file, &label, &text))
            .unwrap_or_else(|e| adjutant::system::CaseOutcome {
                file: file.display().to_string(),
                name: String::new(),
                rules: Vec::new(),
                passed: false,
                failures: vec![e.to_string()],
            });
        outcomes.push(outcome);
    }
    let failed = outcomes.iter().filter(|o| !o.passed).count();
    out.result(&outcomes, |s| {
        let mut text = String::new();
        for o in &outcomes {
            if o.passed {
                text += &format!("{} {} ({})\n", s.good("pass"), o.file, o.rules.join(", "));
            } else {
                text += &format!("{} {}\n", s.bad("FAIL"), o.file);
                for f in &o.failures {
                    text += &format!("    {f}\n");
                }
            }
        }
        text += &format!("{} passed, {failed} failed\n", outcomes.len() - failed);
        text
    })?;
    Ok(if failed == 0 { 0 } else { 1 })
}

fn join(args: &arguments::JoinArgs, wait: Duration, out: &Out) -> Outcome {
    let joined = game::mutual::join(&args.dir, &args.anchor, wait)?;
    out.result(&joined, |s| {
        let mut text = format!(
            "{} {} with anchor {} (M = {})\n",
            s.good("Joined"),
            joined.label,
            joined.anchor.to_hex(),
            joined.chain_length
        );
        if !joined.sides_without_player.is_empty() {
            text += &format!("still without a player: {}\n", joined.sides_without_player.join(", "));
        }
        text
    })?;
    Ok(0)
}

/// The receipt of a commitment or a key (mutual mode).
pub(crate) fn dice_receipt_text(r: &game::mutual::Receipt, s: &Style) -> String {
    let what = match (&r.sha256, r.rolling_step) {
        (Some(h), _) => format!("commitment of {} for step {}: {}", r.by, r.step, h.to_hex()),
        (None, Some(j)) => format!("key p_{j} of {} for step {}", r.by, r.step),
        _ => String::new(),
    };
    format!("{} {what} (kept as {})\n{}", s.good("received"), r.stored, waiting_text(&r.waiting))
}

/// The individual winner of a finished game, a line (Savannah 2.10: the
/// Allied player with the most VPs; several when tied), or nothing.
pub(crate) fn individual_winners_text(r: &adjutant::system::GameResult) -> String {
    match r.individual_winners.as_slice() {
        [] => String::new(),
        [one] => format!("individual winner (Savannah 2.10): {one}\n"),
        many => format!("individual winners, tied (Savannah 2.10): {}\n", many.join(", ")),
    }
}

/// Where a mutual game waits, in words (`status`, receipts).
pub(crate) fn waiting_text(w: &game::mutual::Waiting) -> String {
    let mut text = String::new();
    if !w.anchors_owed.is_empty() {
        text += &format!("  awaiting anchors: the players of {} (`adjutant join`)\n", w.anchors_owed.join(", "));
    }
    if !w.commitments_owed.is_empty() {
        text += &format!("  awaiting commitments for {} from {}\n", w.step, w.commitments_owed.join(", "));
    }
    if !w.orders_owed.is_empty() {
        text += &format!("  awaiting orders for {} from {}\n", w.step, w.orders_owed.join(", "));
    }
    if w.sealed {
        text += &format!("  step {} is sealed", w.step);
        for h in &w.sealed_hashes {
            text += &format!("; {} {}", h.side, h.sha256.to_hex());
        }
        text += "\n";
        if w.rolls && !w.keys_owed.is_empty() {
            text += &format!(
                "  it rolls: awaiting key p_{} from {} (the step never resolves without every key)\n",
                w.rolling_step,
                w.keys_owed.join(", ")
            );
        } else if w.rolls {
            text += &format!("  it rolls: every key p_{} is in; `adjutant resolve` resolves it\n", w.rolling_step);
        } else if let Some(why) = &w.refused {
            text += &format!(
                "  the rules refuse its orders together: {}\n  in mutual mode the files stand (docs/DICE.md A5): \
                 only the referee's `adjutant correct --from {}` (the awaited step) sets the step's commitments and \
                 files aside, undoing no step; every side it awaits then commits and sends its orders again (A6)\n",
                adjutant::base::error::escape_lines(why),
                w.journal_step
            );
        } else {
            text += "  it rolls no die: `adjutant resolve` resolves it with no player key\n";
        }
    }
    text
}

fn correct(args: &arguments::CorrectArgs, wait: Duration, out: &Out) -> Outcome {
    let progress = adjutant::game::play::correct(&args.dir, args.from, &args.why, wait)?;
    out.result(&progress, |s| progress_text(&progress, s))?;
    Ok(progress_code(&progress))
}

fn resolve_game(args: &arguments::ResolveArgs, wait: Duration, out: &Out) -> Outcome {
    let progress = adjutant::game::play::resolve_game(&args.dir, &args.files, wait)?;
    out.result(&progress, |s| progress_text(&progress, s))?;
    Ok(progress_code(&progress))
}

/// What a resolve did, in words (`resolve`, `tick`).
pub(crate) fn progress_text(progress: &adjutant::game::play::Progress, s: &Style) -> String {
    {
        let mut text = String::new();
        for r in &progress.resolved {
            text += &render_resolved(r, s);
        }
        for r in &progress.refused {
            text += &format!("{} {}\n", s.bad("refused:"), adjutant::base::error::escape_lines(r));
        }
        text += &blocked_text(&progress.blocked, s);
        if let Some(why) = &progress.reports_failed {
            text += &format!(
                "{} the reports of these steps could not be written ({why}); the steps stand, and the next \
                 `adjutant resolve` writes their reports\n",
                s.bad("warning:")
            );
        }
        if let Some(reports) = &progress.reports {
            text += &format!(
                "{} {reports}/ (each side's report as text, Markdown, HTML and JSON; the map, map.svg or, where sides see different maps, SIDE-map.svg)\n",
                s.bold("reports:")
            );
        }
        match (&progress.result, &progress.next_step) {
            (Some(result), _) => {
                text += &format!("{} {} {} victory\n", s.good("game over:"), result.winner, result.level)
            }
            (None, Some(next)) => {
                // Only the orders still owed: files sent ahead and standing
                // orders count as in (issue 16).
                let asked = if progress.awaiting.is_empty() {
                    "nobody".to_string()
                } else if progress.owed.is_empty() {
                    "nobody more (every side's orders are in)".to_string()
                } else {
                    progress.owed.join(", ")
                };
                text += &format!("next: {next}, awaiting orders from {asked}\n")
            }
            (None, None) => text += "game over\n",
        }
        text
    }
}

/// Why the game is blocked, step by step: the sides that must send new
/// orders, and the problems.
pub(crate) fn blocked_text(blocked: &[adjutant::game::play::Blocker], s: &Style) -> String {
    let mut text = String::new();
    let mut steps: Vec<&str> = blocked.iter().map(|b| b.step.as_str()).collect();
    steps.dedup();
    for step in steps {
        let mut sides: Vec<&str> =
            blocked.iter().filter(|b| b.step == step).flat_map(|b| b.sides.iter().map(String::as_str)).collect();
        sides.sort();
        sides.dedup();
        text += &format!(
            "{} step {step} cannot be resolved until {}\n",
            s.bad("blocked:"),
            if sides.is_empty() {
                "the referee acts (no side's orders are at fault)".to_string()
            } else {
                format!(
                    "new orders come from {} (a newer message replaces a file; in mutual mode a file once in stands, and \
                     only the referee's `adjutant correct --from` the awaited step sets the step's commitments and \
                     files aside, docs/DICE.md A6)",
                    sides.join(", ")
                )
            }
        );
    }
    text
}

/// A resolve's exit status: 2 when reports could not be written, 1 when a step was refused.
pub(crate) fn progress_code(progress: &adjutant::game::play::Progress) -> i32 {
    if progress.reports_failed.is_some() {
        2
    } else if progress.refused.is_empty() {
        0
    } else {
        1
    }
}

/// One resolved step in words: its events, its rolls, its key.
fn render_resolved(r: &adjutant::game::play::Resolved, s: &Style) -> String {
    let mut text = format!("{} {} · {}\n", s.bold("step"), r.journal_step, s.bold(&r.game_step));
    for e in &r.events {
        text += &format!("  [{}] {}\n", e.rule, e.text);
    }
    for roll in &r.rolls {
        text += &s.dim(&format!("  roll {}: {} {} ({})\n", roll.index, roll.die, roll.value, roll.purpose));
    }
    text += &s.dim(&format!("  key {}\n", r.key.to_hex()));
    text
}

fn validate(args: &arguments::ValidateArgs, wait: Duration, out: &Out) -> Outcome {
    let results = game::validate(&args.dir, &args.files, wait)?;
    let bad = results.iter().filter(|v| !v.problems.is_empty()).count();
    out.result(&results, |s| {
        let mut text = String::new();
        for v in &results {
            if v.problems.is_empty() {
                text += &format!(
                    "{} {}: orders of {} for step {}\n",
                    s.good("ok"),
                    v.file,
                    v.side.as_deref().unwrap_or("?"),
                    v.step.as_deref().unwrap_or("?")
                );
            }
            for w in &v.warnings {
                text += &format!("{}\n", adjutant::base::error::escape_lines(w));
            }
            for p in &v.problems {
                text += &format!("{}\n", adjutant::base::error::escape_lines(p));
            }
            if v.more_problems > 0 {
                text += &format!("{}: {}\n", v.file, adjutant::base::error::more_problems(v.more_problems));
            }
        }
        if bad > 0 {
            let problems: usize = results.iter().map(|v| v.count()).sum();
            text += &format!("{} {problems} problems in {bad} of {} files\n", s.bad("refused:"), results.len());
        }
        text
    })?;
    Ok(if bad == 0 { 0 } else { 1 })
}

fn submit(args: &arguments::SubmitArgs, wait: Duration, out: &Out) -> Outcome {
    if args.withdraw {
        let side = args.side.as_deref().unwrap_or_default();
        let receipt = adjutant::game::standing::withdraw(&args.dir, side, wait)?;
        out.result(&receipt, |s| standing_receipt_text(&receipt, s))?;
        return Ok(0);
    }
    let Some(file) = &args.file else {
        return Err(Error::usage("give the orders file, or - for standard input").into());
    };
    // Never more than the limit is read (src/game/input.rs): a message may be
    // larger than the orders file it carries.
    use adjutant::game::input::{read_file, read_stream, MAX_MESSAGE_BYTES, MAX_ORDERS_BYTES};
    let (limit, what) =
        if args.email { (MAX_MESSAGE_BYTES, "a message") } else { (MAX_ORDERS_BYTES, "an orders file") };
    let (bytes, label) = if file.as_os_str() == "-" {
        (read_stream(std::io::stdin(), "standard input", limit, what)?, "standard input".to_string())
    } else {
        (read_file(file, limit, what)?, file.display().to_string())
    };
    if args.email {
        return mail::submit_email(args, &bytes, wait, out);
    }
    if args.standing {
        let receipt = adjutant::game::standing::submit(&args.dir, &bytes, &label, replace_flag(args.replace), wait)?;
        out.result(&receipt, |s| standing_receipt_text(&receipt, s))?;
        return Ok(0);
    }
    // Mutual mode (DICE.md 7): a commitment or a key is a small YAML
    // message. The limits first (size, UTF-8, depth), as every reader of
    // a player's text applies them before YAML reads it: asking whether
    // 100,000 nested `[` were such a message took the YAML scanner 11
    // seconds (found 2026-12-07 by `cargo bench --bench hostile`).
    let text = adjutant::game::input::orders_text_or_refuse(&label, &bytes)?;
    if game::mutual::is_message(text) {
        if args.key.is_some() || args.replace {
            return Err(Error::usage("a commitment or key message takes no --key or --replace").into());
        }
        let receipt = game::mutual::submit(&args.dir, &bytes, &label, wait)?;
        out.result(&receipt, |s| dice_receipt_text(&receipt, s))?;
        return Ok(0);
    }
    // A key sent with orders is read before the orders are stored.
    let key = args.key.as_deref().map(|hex| parse_hex("--key", hex)).transpose()?;
    if key.is_some()
        && adjutant::game::folder::GameFolder::open(&args.dir)?.config.dice.mode
            != adjutant::game::folder::DiceMode::Mutual
    {
        return Err(Error::usage("--key is for games in mutual mode (DICE.md 7); this game is in referee mode").into());
    }
    let receipt = adjutant::game::inbox::submit(&args.dir, &bytes, &label, replace_flag(args.replace), wait)?;
    let revealed = match key {
        None => None,
        Some(key) => {
            let folder = adjutant::game::folder::GameFolder::open(&args.dir)?;
            let player = folder.config.dice.label_of(&receipt.side).unwrap_or(&receipt.side).to_string();
            Some(game::mutual::reveal(&args.dir, None, &player, key, "--key", wait))
        }
    };
    #[derive(serde::Serialize)]
    struct Shown<'a> {
        #[serde(flatten)]
        receipt: &'a adjutant::game::inbox::Receipt,
        #[serde(skip_serializing_if = "Option::is_none")]
        key: Option<&'a game::mutual::Receipt>,
        #[serde(skip_serializing_if = "Option::is_none")]
        key_refused: Option<String>,
    }
    let key_refused = match &revealed {
        Some(Err(e)) => Some(e.to_string()),
        _ => None,
    };
    let shown = Shown { receipt: &receipt, key: revealed.as_ref().and_then(|r| r.as_ref().ok()), key_refused };
    out.result(&shown, |s| {
        let mut text = receipt_text(&receipt, s);
        match &revealed {
            Some(Ok(r)) => text += &dice_receipt_text(r, s),
            Some(Err(e)) => text += &format!("{} the key: {e} (the orders are stored)\n", s.bad("refused:")),
            None => {}
        }
        text
    })?;
    Ok(if matches!(revealed, Some(Err(_))) { 1 } else { 0 })
}

/// `--replace` as the inbox reads it.
fn replace_flag(given: bool) -> adjutant::game::inbox::Replace {
    if given {
        adjutant::game::inbox::Replace::Flag
    } else {
        adjutant::game::inbox::Replace::No
    }
}

fn report(args: &arguments::ReportArgs, wait: Duration, out: &Out) -> Outcome {
    use adjutant::report::{game::game_report, Viewer};
    let folder = adjutant::game::folder::GameFolder::open(&args.dir)?;
    let read = adjutant::game::recovery::for_reading(&folder, wait)?.finished(&folder)?;
    let format = report_format(args.report_format, out.format)?;
    let count = folder.journal().list()?.entries.len() as u32;
    let bad = || Error::usage(format!("--steps '{}': write N or A-B", args.steps.as_deref().unwrap_or("")));
    let (first, last) = match args.steps.as_deref() {
        None => (count, count),
        Some(r) => match r.split_once('-') {
            Some((a, b)) => (a.trim().parse().map_err(|_| bad())?, b.trim().parse().map_err(|_| bad())?),
            None => {
                let n = r.trim().parse().map_err(|_| bad())?;
                (n, n)
            }
        },
    };
    let viewer = match &args.side {
        Some(side) => Viewer::Side(side.clone()),
        None => Viewer::Referee,
    };
    let text = game_report(&folder, viewer, first, last, format)?;
    drop(read);
    match &args.output {
        Some(path) => adjutant::base::fsio::write_atomic(path, text.as_bytes())?,
        None => out.write(&text)?,
    }
    Ok(0)
}

/// The report's format: `--as`, or JSON under `--format json` (the one way
/// every command is asked for JSON; `--as json` is the old spelling, kept
/// hidden).
fn report_format(
    given: Option<arguments::ReportAs>,
    out: arguments::Format,
) -> Result<adjutant::report::Format, Error> {
    use adjutant::report::Format;
    use arguments::ReportAs;
    Ok(match (given, out) {
        (None | Some(ReportAs::Json), arguments::Format::Json) | (Some(ReportAs::Json), _) => Format::Json,
        (Some(other), arguments::Format::Json) => {
            return Err(Error::usage(format!(
                "--as {} and --format json: a report is one or the other; give --format json alone for the JSON report",
                other.to_possible_value().map(|v| v.get_name().to_string()).unwrap_or_default()
            )))
        }
        (None | Some(ReportAs::Text), _) => Format::Text,
        (Some(ReportAs::Markdown), _) => Format::Markdown,
        (Some(ReportAs::Html), _) => Format::Html,
    })
}

/// A receipt in words: what was stored, its hash, and what the game awaits.
pub(crate) fn receipt_text(r: &adjutant::game::inbox::Receipt, s: &output::Style) -> String {
    let mut text = format!(
        "{} orders of {} for step {} of game {} ({} bytes){}\n  sha256 {}\n  stored as {}\n",
        s.good("received:"),
        r.side,
        r.step,
        r.game,
        r.bytes,
        if r.unchanged { ", the same bytes as those already in: nothing changed" } else { "" },
        r.sha256.to_hex(),
        r.stored
    );
    if let Some(old) = &r.replaced_file {
        text += &format!(
            "  replacing {} (sha256 {}, {} bytes), which arrived before; it is kept as {}\n",
            old.was,
            old.sha256.to_hex(),
            old.bytes,
            old.kept
        );
    }
    if r.when == "ahead" {
        text += "  sent ahead: they will be checked and used when their step comes\n";
    } else if r.still_awaiting.is_empty() {
        text += "  the step has every side's orders: it can be resolved\n";
    } else {
        text += &format!("  the step still awaits orders from {}\n", r.still_awaiting.join(", "));
    }
    for w in &r.warnings {
        text += &format!("  {}\n", adjutant::base::error::escape_lines(w));
    }
    text
}

/// A withdrawal in words: what was withdrawn and where it is kept.
pub(crate) fn withdrawal_text(w: &adjutant::game::inbox::Withdrawal, s: &output::Style) -> String {
    let what = if w.step == adjutant::game::kept::STANDING {
        "the standing orders".to_string()
    } else {
        format!("the orders for step {}", w.step)
    };
    format!(
        "{} {what} of {} in game {} ({} bytes)\n  sha256 {}\n  removed {}; kept as {}\n",
        s.good("withdrawn:"),
        w.side,
        w.game,
        w.bytes,
        w.sha256.to_hex(),
        w.was,
        w.kept
    )
}

/// A standing orders receipt in words: what was stored or withdrawn, its hash.
pub(crate) fn standing_receipt_text(r: &adjutant::game::standing::Receipt, s: &output::Style) -> String {
    if r.withdrawn {
        return format!(
            "{} the standing orders of {} in game {} ({} bytes)\n  sha256 {}\n  removed {}\n",
            s.good("withdrawn:"),
            r.side,
            r.game,
            r.bytes,
            r.sha256.to_hex(),
            r.stored
        ) + &r.kept.as_ref().map(|k| format!("  kept as {k}\n")).unwrap_or_default();
    }
    format!(
        "{} standing orders of {} for game {} ({} bytes){}\n  sha256 {}\n  stored as {}\n  \
         used at every step of these kinds for which {} sends no orders: {}\n",
        s.good("received:"),
        r.side,
        r.game,
        r.bytes,
        match (&r.kept, r.unchanged) {
            (Some(kept), _) => format!(", replacing those sent before (kept as {kept})"),
            (None, true) => ", the same bytes as those already in: nothing changed".to_string(),
            _ => String::new(),
        },
        r.sha256.to_hex(),
        r.stored,
        r.side,
        if r.steps.is_empty() { "none".to_string() } else { r.steps.join(", ") }
    )
}

fn template(args: &arguments::TemplateArgs, wait: Duration, out: &Out) -> Outcome {
    let (text, value) = game::template(&args.dir, &args.side, wait)?;
    out.result(&value, |_| text.clone())?;
    Ok(0)
}

fn export_module(module: &str, dir: &Path, out: &Out) -> Outcome {
    let exported = adjutant::game::modules::export(module, dir)?;
    out.result(&exported, |s| {
        format!(
            "{} {} files of {} ({} bytes) to {}\n  edit them, check them with `adjutant check-game {}`, and begin a game \
             with `adjutant new {} --scenario ...`\n",
            s.good("Wrote"),
            exported.files.len(),
            exported.module,
            exported.bytes,
            exported.dir,
            folder_arg(dir),
            folder_arg(dir)
        )
    })?;
    Ok(0)
}

/// A folder as a module argument: a path (`./name` for a bare name, which
/// would be read as an embedded module's id).
fn folder_arg(dir: &Path) -> String {
    let shown = dir.display().to_string();
    if adjutant::game::modules::is_folder(&shown) {
        shown
    } else {
        format!("./{shown}")
    }
}

fn check_game(args: &arguments::CheckGameArgs, out: &Out) -> Outcome {
    let files = adjutant::game::modules::files(&args.module, args.games_dir.as_deref())?;
    if let Some(id) = files.embedded_id() {
        if !adjutant::base::embedded::embedded_ids().iter().any(|e| e == id) {
            return Err(Error::usage(format!(
                "unknown module '{id}'; the modules are: {} (or give a module folder's path)",
                adjutant::base::embedded::embedded_ids().join(", ")
            ))
            .into());
        }
    }
    let system = adjutant::game::modules::system_reading(&files)?;
    let report = system
        .check_module(&files)
        .ok_or_else(|| adjutant::game::modules::lacks(&args.module, system, "module checker"))?;
    out.result(&report, |s| {
        let mut text = String::new();
        for p in &report.problems {
            text += &format!("{}\n", p.text);
        }
        let counts: Vec<String> = report.checked.iter().map(|(what, n)| format!("{n} {what}")).collect();
        if report.problems.is_empty() {
            text += &format!("{} {}: {}\n", s.good("ok"), report.module, counts.join(", "));
        } else {
            text += &format!("{} {}: {} problems\n", s.bad("FAILED"), report.module, report.problems.len());
        }
        text
    })?;
    Ok(if report.problems.is_empty() { 0 } else { 1 })
}

fn parse_hex(what: &str, s: &str) -> Result<Bytes32, Error> {
    s.trim().parse().map_err(|e| Error::hex(what, e))
}

#[derive(Serialize)]
struct ChainKey {
    k: u32,
    key: Bytes32,
}

#[derive(Serialize)]
struct OrdersFileHash {
    side: String,
    file: String,
    sha256: Bytes32,
}

#[derive(Serialize)]
struct DigestResult {
    digest: Bytes32,
    orders: Vec<OrdersFileHash>,
}

#[derive(Serialize)]
struct SeedResult {
    seed: Bytes32,
}

#[derive(Serialize)]
struct RollsResult {
    die: Die,
    values: Vec<u16>,
}

/// The most rolls `dice rolls` prints at once.
const MAX_ROLLS: u32 = 1_000_000;

fn dice_command(command: &DiceCommand, out: &Out) -> Outcome {
    match command {
        DiceCommand::Chain { top, length } => {
            let top = parse_hex("--top", top)?;
            if *length > adjutant::game::folder::MAX_CHAIN_LENGTH {
                return Err(
                    Error::usage(format!("--length: at most {}", adjutant::game::folder::MAX_CHAIN_LENGTH)).into()
                );
            }
            let keys: Vec<ChainKey> = dice::chain(&top, *length)
                .into_iter()
                .enumerate()
                .map(|(k, key)| ChainKey { k: k as u32, key })
                .collect();
            out.result(&keys, |_| keys.iter().map(|c| format!("{} {}\n", c.k, c.key.to_hex())).collect())?;
        }
        DiceCommand::Digest { orders } => {
            let mut files = Vec::new();
            let mut stdin_used = false;
            for spec in orders {
                let (side, file) = spec
                    .split_once('=')
                    .ok_or_else(|| Error::usage(format!("'{spec}': write SIDE=FILE, e.g. british=orders.yaml")))?;
                let bytes = if file == "-" {
                    if stdin_used {
                        return Err(Error::usage("standard input (-) can be given only once").into());
                    }
                    stdin_used = true;
                    let mut bytes = Vec::new();
                    io::stdin().read_to_end(&mut bytes).map_err(|e| Error::io("standard input", e))?;
                    bytes
                } else {
                    fs::read(file).map_err(|e| Error::io(file, e))?
                };
                let hash = SideHash::of_bytes(side, &bytes);
                files.push(OrdersFileHash { side: side.to_string(), file: file.to_string(), sha256: hash.hash });
            }
            let pairs: Vec<SideHash> =
                files.iter().map(|f| SideHash { side: f.side.clone(), hash: f.sha256 }).collect();
            let digest = dice::orders_digest(&pairs).map_err(|e| Error::usage(e.to_string()))?;
            let result = DigestResult { digest, orders: files };
            out.result(&result, |_| format!("{}\n", result.digest.to_hex()))?;
        }
        DiceCommand::Seed { game_id, step, key, digest, player_keys } => {
            let key = parse_hex("--key", key)?;
            let digest = parse_hex("--digest", digest)?;
            let mut players = Vec::new();
            for spec in player_keys {
                let (side, hex) = spec
                    .split_once('=')
                    .ok_or_else(|| Error::usage(format!("--player-key '{spec}': write SIDE=HEX")))?;
                players
                    .push(PlayerKey { side: side.to_string(), key: parse_hex(&format!("--player-key {side}"), hex)? });
            }
            let seed =
                dice::step_seed(game_id, *step, &key, &digest, &players).map_err(|e| Error::usage(e.to_string()))?;
            let result = SeedResult { seed };
            out.result(&result, |_| format!("{}\n", seed.to_hex()))?;
        }
        DiceCommand::Rolls { seed, die, count } => {
            let seed = parse_hex("--seed", seed)?;
            let die: Die = die.parse().map_err(Error::usage)?;
            let count: u32 = count.parse().ok().filter(|n| (1..=MAX_ROLLS).contains(n)).ok_or_else(|| {
                Error::usage(format!("COUNT '{count}': give a number of rolls from 1 to {MAX_ROLLS}"))
            })?;
            let values = dice::rolls(&seed, die, count as usize);
            let result = RollsResult { die, values };
            out.result(&result, |_| {
                let v: Vec<String> = result.values.iter().map(|v| v.to_string()).collect();
                format!("{}\n", v.join(" "))
            })?;
        }
    }
    Ok(0)
}
