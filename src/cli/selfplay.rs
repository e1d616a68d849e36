//! `adjutant selfplay`: games with random legal orders (the system's:
//! `Rules::selfplay`, GBoAR's in src/systems/gboar/selfplay.rs), played
//! again through game folders with
//! `--keep` (src/game/selfplay.rs), timed here: the clock gives the games
//! per second printed, and decides nothing else.

use std::time::Instant;

use serde::Serialize;

use adjutant::game::modules;
use adjutant::game::selfplay::{thousands, write_folder, FolderCheck, FolderGame, FolderStep};
use adjutant::system::{SelfplayFailure, SelfplayId, SelfplaySummary as Summary};
use adjutant::Error;

use super::arguments::SelfplayArgs;
use super::output::Out;
use super::Outcome;

#[derive(Serialize)]
struct Report {
    module: String,
    scenario: String,
    seed: u64,
    first_game: u32,
    last_game: u32,
    #[serde(flatten)]
    summary: Summary,
    seconds: f64,
    games_per_second: f64,
    /// The CPU time the process spent (Linux: /proc/self/schedstat), and
    /// the games per second of it: the one-core rate, whatever else the
    /// machine was doing.
    #[serde(skip_serializing_if = "Option::is_none")]
    cpu_seconds: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    games_per_cpu_second: Option<f64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    folders: Vec<FolderCheck>,
}

/// The CPU time this process has run, in seconds, where the system says
/// (Linux's /proc/self/schedstat: nanoseconds on a CPU, first field).
fn cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/self/schedstat").ok()?;
    let nanos: u64 = text.split_whitespace().next()?.parse().ok()?;
    Some(nanos as f64 / 1e9)
}

/// The most failures the text lists.
const SHOWN: usize = 20;

pub fn run(args: &SelfplayArgs, out: &Out) -> Outcome {
    let files = modules::files(&args.module, args.games_dir.as_deref())?;
    if args.keep.is_some() && files.embedded_id().is_none() {
        return Err(Error::usage("--keep plays games through game folders, which need an embedded module").into());
    }
    let system = modules::system_reading(&files)?;
    let rules = system.load(&files, &args.scenario)?;
    if let Some(dir) = &args.keep {
        std::fs::create_dir_all(dir).map_err(|e| Error::usage(format!("--keep {}: {e}", dir.display())))?;
    }
    let setup = rules.setup()?;
    let (first, last) = match args.game {
        Some(0) => return Err(Error::usage("--game: games are numbered from 1").into()),
        Some(k) => (k, k),
        None if args.games == 0 => return Err(Error::usage("--games: play at least one game").into()),
        None => (1, args.games),
    };
    let mut summary = Summary::default();
    let mut folders = Vec::new();
    let started = Instant::now();
    let cpu_started = cpu_seconds();
    for game in first..=last {
        let id = SelfplayId { seed: args.seed, game };
        let played = rules
            .selfplay(setup.as_ref(), id, args.keep.is_some())
            .ok_or_else(|| modules::lacks(&args.module, system, "selfplay"))?;
        if let Some(dir) = &args.keep {
            // A game that failed or stopped is written up to the step it
            // stopped at: the folder is where to look at it (`status`,
            // `template`, `validate`).
            {
                let steps: Vec<FolderStep> = played
                    .record
                    .iter()
                    .map(|r| FolderStep {
                        journal_step: r.journal_step,
                        step: r.step.clone(),
                        files: r.files.clone(),
                        state_sha256: r.state_sha256,
                    })
                    .collect();
                let name = id.name();
                let folder_game = FolderGame {
                    game_id: &name,
                    chain_top: id.chain_top(),
                    chain_length: played.chain_length,
                    steps: &steps,
                };
                let check =
                    write_folder(&dir.join(format!("game-{game}")), &args.module, &args.scenario, &folder_game)?;
                if let Some(problem) = &check.problem {
                    summary.failures.push(SelfplayFailure {
                        game,
                        journal_step: 0,
                        step: check.dir.clone(),
                        what: format!("the game folder: {problem}"),
                    });
                }
                folders.push(check);
            }
        }
        summary.add(&played);
    }
    let seconds = started.elapsed().as_secs_f64();
    let cpu = cpu_started.zip(cpu_seconds()).map(|(a, b)| b - a);
    let report = Report {
        cpu_seconds: cpu,
        games_per_cpu_second: cpu.filter(|c| *c > 0.0).map(|c| f64::from(summary.games) / c),
        module: args.module.clone(),
        scenario: args.scenario.clone(),
        seed: args.seed,
        first_game: first,
        last_game: last,
        games_per_second: if seconds > 0.0 { f64::from(summary.games) / seconds } else { 0.0 },
        seconds,
        summary,
        folders,
    };
    let again = |game: u32| {
        let module = if args.module == "savannah-1779" { String::new() } else { format!(" --module {}", args.module) };
        format!("adjutant selfplay{module} --scenario {} --seed {} --game {game}", args.scenario, args.seed)
    };
    out.result(&report, |s| {
        let r = &report;
        let games = if first == last { format!("game {first}") } else { format!("games {first}-{last}") };
        let mut text = format!(
            "selfplay {} {}, seed {}, {games}: {} steps in {:.2} s, {} games/s{}\n",
            r.module,
            r.scenario,
            r.seed,
            thousands(r.summary.steps),
            r.seconds,
            s.bold(&format!("{:.1}", r.games_per_second)),
            match (r.cpu_seconds, r.games_per_cpu_second) {
                (Some(cpu), Some(rate)) => format!(" ({cpu:.2} s on a CPU: {rate:.1} games per CPU second)"),
                _ => String::new(),
            }
        );
        let results: Vec<String> = r.summary.results.iter().map(|(k, n)| format!("{k} {n}")).collect();
        text += &format!("  results   {}\n", results.join(", "));
        let o = &r.summary.orders;
        text += &format!(
            "  orders    {} files; {} random choices drawn, {} kept by validate{}\n",
            thousands(o.files),
            thousands(o.drawn),
            thousands(o.kept),
            if o.one_by_one > 0 {
                format!(" ({} files built one choice at a time)", thousands(o.one_by_one))
            } else {
                String::new()
            }
        );
        // The commonest kinds of event, whatever the system names them
        // (the JSON output has every kind).
        let mut kinds: Vec<(&String, &u64)> = r.summary.events.iter().collect();
        kinds.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let shown: Vec<String> = kinds.iter().take(8).map(|(k, n)| format!("{} {k}", thousands(**n))).collect();
        if !shown.is_empty() {
            text += &format!("  events    {}\n", shown.join(", "));
        }
        for f in &r.folders {
            text += &format!(
                "  folder    {}: {} steps, {}\n",
                f.dir,
                f.steps,
                if f.verified { s.good("verified") } else { s.bad("NOT verified") }
            );
        }
        if r.summary.failures.is_empty() {
            text += &format!("  {}\n", s.good("no failures: every invariant held after every step"));
        } else {
            text += &format!("  {} {}\n", s.bad("FAILED:"), r.summary.failures.len());
            for f in r.summary.failures.iter().take(SHOWN) {
                text += &format!(
                    "  game {} step {} ({}): {}\n    again: {}\n",
                    f.game,
                    f.journal_step,
                    f.step,
                    f.what,
                    again(f.game)
                );
            }
            if r.summary.failures.len() > SHOWN {
                text += &format!("  and {} more (--format json lists them all)\n", r.summary.failures.len() - SHOWN);
            }
        }
        text
    })?;
    Ok(if report.summary.failures.is_empty() { 0 } else { 1 })
}
