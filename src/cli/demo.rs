//! `adjutant demo`: the README's first command. It plays a whole game of
//! Savannah 1779's Historical Scenario by email, in a temporary folder: a
//! new game and its anchor, then every step with the orders files shipped
//! in the module (`games/savannah-1779/demo/historical/`), submitted and
//! resolved, each resolution's report printed as the British player receives it,
//! the victory determination, and `verify`'s verdict on the whole journal
//! (then on a forged copy, which fails).
//!
//! `--module` plays another module's demo the same way, from the orders
//! shipped in that module (`games/awi-southern/demo/southern-1780/`): the
//! table [`DEMOS`] names each demo's module, scenario, players and folders
//! as data; the shell names no system's types. A step that awaits the
//! referee (a battle fought on the table) takes the shipped file
//! `<step>--referee.yaml` as the referee enters it, through `resolve`.
//!
//! The demo's chain top is public (the SHA-256 of [`DEMO_TOP_TEXT`]) so
//! that the demo game, and the shipped orders written for it, are the same
//! on every machine. A real game's chain top is random and secret.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use adjutant::base::dice::{self, Bytes32};
use adjutant::game::folder::{GameFolder, CHAIN_TOP_FILE, GAME_FILE, SECRET_DIR};
use adjutant::game::{self, verify};
use adjutant::Error;

use super::arguments::{DemoArgs, DemoModule, DemoScenario, Format};
use super::output::Out;
use super::{render_verdict, Outcome};

/// The text whose SHA-256 is the demo's (public) chain top.
pub const DEMO_TOP_TEXT: &str = "adjutant demo: Savannah 1779, Historical Scenario. Not a secret.";

/// The text whose SHA-256 is the Campaign demo's (public) chain top: the
/// dice its shipped orders were written for (scripts/demo-orders).
pub const CAMPAIGN_TOP_TEXT: &str = "adjutant demo: Savannah 1779, Campaign Game (take 8). Not a secret.";

/// The text whose SHA-256 is the AWI Southern Campaign demo's (public)
/// chain top: the dice its shipped orders were written for.
pub const AWI_SOUTHERN_TOP_TEXT: &str = "adjutant demo: AWI Southern Campaign, June 1780. Not a secret.";

/// Whose report of each step the demo prints.
#[derive(Clone, Copy)]
enum Reader {
    /// Always this side's.
    Side(&'static str),
    /// The side whose shipped orders the step took; for a step the referee
    /// entered, the module's first side (the players' first).
    Sender,
}

/// One of the demo games: its module, scenario, id, players, chain top,
/// where its orders are shipped and the folder it is played in.
struct Demo {
    module_option: DemoModule,
    scenario_option: DemoScenario,
    module: &'static str,
    title: &'static str,
    scenario: &'static str,
    game_id: &'static str,
    players: &'static [&'static str],
    top_text: &'static str,
    orders: &'static str,
    folder: &'static str,
    /// Told turn by turn (the Campaign Game), not every report in full.
    by_turn: bool,
    reader: Reader,
    /// Each printed report names the map drawn with it (map.svg).
    map_note: bool,
    /// The last step the shipped orders play (a campaign whose months
    /// go on after the demo), or none: the game's end.
    stop_after: Option<&'static str>,
}

const SAVANNAH_PLAYERS: &[&str] = &[
    "british=Augustine Prevost <prevost@example.org>",
    "french=Charles d'Estaing <destaing@example.org>",
    "american=Benjamin Lincoln <lincoln@example.org>",
];

/// The demos, a module's first its default.
const DEMOS: &[Demo] = &[
    Demo {
        module_option: DemoModule::Savannah1779,
        scenario_option: DemoScenario::Historical,
        module: "savannah-1779",
        title: "adjutant demo: Savannah 1779, the Historical Scenario, played by email",
        scenario: "historical",
        game_id: "savannah-demo",
        players: SAVANNAH_PLAYERS,
        top_text: DEMO_TOP_TEXT,
        orders: "demo/historical",
        folder: "savannah",
        by_turn: false,
        reader: Reader::Side("british"),
        map_note: false,
        stop_after: None,
    },
    Demo {
        module_option: DemoModule::Savannah1779,
        scenario_option: DemoScenario::Campaign,
        module: "savannah-1779",
        title: "adjutant demo: Savannah 1779, the Campaign Game, played by email",
        scenario: "campaign",
        game_id: "savannah-campaign-demo",
        players: SAVANNAH_PLAYERS,
        top_text: CAMPAIGN_TOP_TEXT,
        orders: "demo/campaign",
        folder: "campaign",
        by_turn: true,
        reader: Reader::Side("british"),
        map_note: false,
        stop_after: None,
    },
    Demo {
        module_option: DemoModule::AwiSouthern,
        scenario_option: DemoScenario::Southern1780,
        module: "awi-southern",
        title: "adjutant demo: the AWI Southern Campaign from June 1780, played by email",
        scenario: "southern-1780",
        game_id: "southern-demo",
        players: &["british=Lord Cornwallis <cornwallis@example.org>", "american=Horatio Gates <gates@example.org>"],
        top_text: AWI_SOUTHERN_TOP_TEXT,
        orders: "demo/southern-1780",
        folder: "southern",
        by_turn: false,
        reader: Reader::Sender,
        map_note: true,
        stop_after: Some("3-american-operations"),
    },
];

/// The demo `args` ask for: the module's first unless a scenario is named.
fn chosen(args: &DemoArgs) -> Result<&'static Demo, Error> {
    let mut of_module = DEMOS.iter().filter(|d| d.module_option == args.module);
    match args.scenario {
        None => of_module.next().ok_or_else(|| Error::usage("no demo for this module".to_string())),
        Some(sc) => DEMOS.iter().find(|d| d.module_option == args.module && d.scenario_option == sc).ok_or_else(|| {
            let module = DEMOS.iter().find(|d| d.module_option == args.module).map_or("", |d| d.module);
            Error::usage(format!(
                "--scenario: {module}'s demos are {}",
                of_module.map(|d| d.scenario).collect::<Vec<_>>().join(", ")
            ))
        }),
    }
}

#[derive(Serialize)]
struct DemoResult {
    game: game::NewGame,
    steps: usize,
    orders_files: usize,
    result: Option<adjutant::system::GameResult>,
    verified: verify::Verdict,
    forged: verify::Verdict,
}

/// Give a new demo game the public chain top (before any step).
fn use_demo_top(dir: &Path, top_text: &str) -> Result<Bytes32, Error> {
    let top = Bytes32::sha256(top_text.as_bytes());
    let mut folder = GameFolder::open(dir)?;
    folder.config.dice.anchor = dice::chain_key(&top, folder.config.dice.chain_length, 0)?;
    adjutant::base::fsio::write_atomic(&dir.join(GAME_FILE), folder.config.to_yaml().as_bytes())?;
    adjutant::base::fsio::write_atomic_mode(
        &dir.join(SECRET_DIR).join(CHAIN_TOP_FILE),
        format!("{}\n", top.to_hex()).as_bytes(),
        Some(0o600),
    )?;
    Ok(folder.config.dice.anchor)
}

/// The shipped orders files for `step` (`<step>--<side>.yaml`), by side.
fn shipped(module: &str, orders: &str, step: &str) -> Vec<(String, &'static [u8])> {
    adjutant::base::embedded::embedded_dir_files(module, orders)
        .into_iter()
        .filter_map(|(name, bytes)| {
            let stem = name.strip_suffix(".yaml")?;
            let (s, side) = stem.rsplit_once("--")?;
            (s == step).then(|| (side.to_string(), bytes))
        })
        .collect()
}

pub fn run(args: &DemoArgs, out: &Out) -> Outcome {
    let demo = chosen(args)?;
    let temp;
    let base: PathBuf = match &args.keep {
        Some(dir) => {
            fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
            dir.clone()
        }
        None => {
            temp = tempfile::Builder::new()
                .prefix("adjutant-demo-")
                .tempdir()
                .map_err(|e| Error::io("temporary folder", e))?;
            temp.path().to_path_buf()
        }
    };
    let text = out.format == Format::Text;
    let s = out.style;
    let say = |t: String| -> Result<(), super::Stop> {
        if text {
            out.write(&t)?;
        }
        Ok(())
    };
    say(format!("{}\n\n", s.bold(demo.title)))?;
    let game_dir = base.join(demo.folder);
    let players = demo.players.iter().map(|p| game::parse_player(p)).collect::<Result<Vec<_>, _>>()?;
    let sides: Vec<String> = players.iter().map(|p| p.side.clone()).collect();
    let first_side = sides.first().cloned().unwrap_or_default();
    let mut made =
        game::new_game(&game_dir, demo.module, demo.scenario, demo.game_id, players, dice::DEFAULT_CHAIN_LENGTH, None)?;
    made.anchor = use_demo_top(&game_dir, demo.top_text)?;
    say(format!(
        "`adjutant new` made the game folder {}. Every player receives the dice anchor\n  {}\n\
         before any orders exist; each step reveals the next key of the chain that ends in it.\n\
         (The demo's chain top is public, so that it plays the same game everywhere.)\n\n",
        game_dir.display(),
        made.anchor.to_hex()
    ))?;
    if args.only_new {
        return Ok(0);
    }
    let wait = Duration::from_secs(5);
    let mut steps = 0;
    let mut files = 0;
    let mut result = None;
    let mut teller = Teller::default();
    if demo.by_turn {
        say(format!(
            "Every step is played with the orders shipped in games/{}/{}/; what happened, turn by turn,\n\
             as the referee sees it (the players' reports hide each other's cards):\n",
            demo.module, demo.orders
        ))?;
    }
    let mut track: Option<String> = None;
    loop {
        let folder = GameFolder::open(&game_dir)?;
        let state = game::load_state(&folder)?;
        if demo.by_turn {
            // Savannah 1.6: the switch from the Strategic to the Tactical Turn Track.
            let now = game::load_rules(&folder)?.standing(state.as_ref()).track;
            if let (Some(was), Some(is)) = (&track, &now) {
                if was != is {
                    say(format!("  the game turn marker is now on the {is} turn track (Savannah 1.6)\n"))?;
                }
            }
            track = now;
        }
        let Some(next) = state.next_step() else { break };
        let mut entered = Vec::new();
        let mut sender = None;
        for (side, bytes) in shipped(demo.module, demo.orders, &next.name) {
            let label = format!("{}/{}--{side}.yaml", demo.orders, next.name);
            if sides.contains(&side) {
                let receipt =
                    adjutant::game::inbox::submit(&game_dir, bytes, &label, adjutant::game::inbox::Replace::No, wait)?;
                if !demo.by_turn {
                    say(s.dim(&format!("submit {label}: sha256 {}\n", receipt.sha256.to_hex())))?;
                }
            } else {
                // The referee's entry (a battle fought on the table): on the
                // machine that holds the game, `adjutant resolve --dir GAME FILE`.
                let file = base.join("referee").join(format!("{}--{side}.yaml", next.name));
                if let Some(parent) = file.parent() {
                    fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
                }
                fs::write(&file, bytes).map_err(|e| Error::io(&file, e))?;
                say(s.dim(&format!("resolve {label}: the {side}'s entry\n")))?;
                entered.push(file);
            }
            sender.get_or_insert(side);
            files += 1;
        }
        let progress = adjutant::game::play::resolve_game(&game_dir, &entered, wait)?;
        if progress.resolved.is_empty() {
            return Err(Error::refused(format!(
                "the demo's shipped orders do not cover step {} (awaiting {}){}",
                next.name,
                progress.awaiting.join(", "),
                progress.refused.iter().map(|r| format!("\n{r}")).collect::<String>()
            ))
            .into());
        }
        if let Some(why) = &progress.reports_failed {
            return Err(Error::usage(format!("the reports could not be written: {why}")).into());
        }
        if demo.by_turn {
            for r in &progress.resolved {
                say(teller.step(r, &s))?;
            }
            steps += progress.resolved.len();
        } else if let Some(dispatch) = &progress.reports {
            // What the reader receives for the steps just resolved: the
            // report `resolve` wrote for them.
            let reader = match demo.reader {
                Reader::Side(side) => side.to_string(),
                Reader::Sender => sender.filter(|x| sides.contains(x)).unwrap_or_else(|| first_side.clone()),
            };
            let file = game_dir.join(dispatch).join(format!("{reader}.txt"));
            if demo.map_note {
                say(s.dim(&format!("{dispatch}/{reader}.txt (and its map, {dispatch}/map.svg):\n")))?;
            } else {
                say(s.dim(&format!("{dispatch}/{reader}.txt:\n")))?;
            }
            say(adjutant::base::fsio::read_text(&file, &file.display().to_string())?)?;
            steps += progress.resolved.len();
        }
        result = progress.result.clone();
        if let Some(last) = demo.stop_after.filter(|last| progress.resolved.iter().any(|r| r.game_step == *last)) {
            say(format!(
                "\nThe demo's shipped orders end with step {last}; the game goes on by email from step {}.\n",
                progress.next_step.as_deref().unwrap_or("(none)")
            ))?;
            break;
        }
    }
    if let Some(r) = &result {
        say(format!("\n{} {} {} victory\n", s.good("game over:"), r.winner, r.level))?;
        say(super::individual_winners_text(r))?;
    }
    let forged_dir = base.join(format!("{}-forged", demo.folder));
    let (forged, forged_entry) = forge(&game_dir, &forged_dir)?;
    say(format!(
        "\nA copy of the game in which someone changed the first roll ({forged_entry}) does not verify:\n{}",
        indent(&render_verdict(&forged_dir, &forged, &s))
    ))?;
    let verified = verify::verify(&game_dir)?;
    say(format!("\n`adjutant verify --dir {}` recomputes every roll and replays every step:\n", game_dir.display()))?;
    say(indent(&render_verdict(&game_dir, &verified, &s)))?;
    let ok = verified.ok && !forged.ok;
    if out.format == Format::Json {
        let result = DemoResult { game: made, steps, orders_files: files, result, verified, forged };
        out.result(&result, |_| String::new())?;
    } else if let Some(dir) = &args.keep {
        say(format!("\nThe game is in {}; try `adjutant status --dir {}`.\n", dir.display(), game_dir.display()))?;
    }
    Ok(if ok { 0 } else { 1 })
}

/// The Campaign demo's printout: a line for each turn, then for each step
/// that did something worth telling, its events in a line each.
#[derive(Default)]
struct Teller {
    turn: Option<String>,
}

impl Teller {
    fn step(&mut self, r: &adjutant::game::play::Resolved, s: &super::output::Style) -> String {
        let mut text = String::new();
        let turn = r.game_step.split('-').next().unwrap_or_default().to_string();
        if self.turn.as_ref() != Some(&turn) {
            text.push_str(&format!("\n{}\n", s.bold(&format!("turn {turn}"))));
            self.turn = Some(turn);
        }
        let told: Vec<&adjutant::system::Event> = r.events.iter().filter(|e| worth_telling(&e.kind)).collect();
        if told.is_empty() {
            return text;
        }
        let phase = r.game_step.split_once('-').map_or(r.game_step.as_str(), |(_, p)| p);
        text.push_str(&format!("  {phase}:\n"));
        for e in told {
            text.push_str(&format!("    {}\n", e.text));
        }
        text
    }
}

/// The events the Campaign demo tells: all but the routine ones (units
/// placed as they arrive, phases with nothing to do, "no victory yet", a
/// draw told again by the card drawn); every event is in the journal and
/// the reports.
fn worth_telling(kind: &str) -> bool {
    !matches!(
        kind,
        "placed" | "arrival" | "arrival-put-off" | "phase-passes" | "no-surrender-roll" | "no-victory" | "card-draw"
    )
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("   {l}\n")).collect()
}

/// Copy the game and change one logged roll, as a cheat would.
/// A copy of the game with the first roll of the journal changed (the first
/// entry that rolled, whichever step that is): its verdict, and the entry.
fn forge(from: &Path, to: &Path) -> Result<(verify::Verdict, String), Error> {
    copy_dir(from, to)?;
    let journal = to.join("journal");
    let mut entries: Vec<PathBuf> = fs::read_dir(&journal)
        .map_err(|e| Error::io(&journal, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    entries.sort();
    for name in entries {
        let text = fs::read_to_string(&name).map_err(|e| Error::io(&name, e))?;
        let Some(at) = text.find("  value: ") else { continue };
        let end = text[at..].find('\n').map_or(text.len(), |e| at + e);
        let value: u16 = text[at + 9..end].trim().parse().unwrap_or(0);
        let forged = format!("{}  value: {}{}", &text[..at], if value == 9 { 8 } else { 9 }, &text[end..]);
        fs::write(&name, forged).map_err(|e| Error::io(&name, e))?;
        let entry =
            format!("journal/{}", name.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default());
        return Ok((verify::verify(to)?, entry));
    }
    Err(Error::refused(format!(
        "{}: no journal entry rolled a die, so the demo has no roll to forge",
        journal.display()
    )))
}

fn copy_dir(from: &Path, to: &Path) -> Result<(), Error> {
    fs::create_dir_all(to).map_err(|e| Error::io(to, e))?;
    for entry in fs::read_dir(from).map_err(|e| Error::io(from, e))? {
        let entry = entry.map_err(|e| Error::io(from, e))?;
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            fs::copy(entry.path(), &target).map_err(|e| Error::io(&target, e))?;
        }
    }
    Ok(())
}
