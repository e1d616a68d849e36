//! `adjutant demo`: the README's first command. Until the rules engine can
//! play Savannah, it shows the dice workflow a game rests on: a new game and
//! a roll log with their anchors, a few logged steps, a check of one step by
//! hand with the `dice` primitives, `verify`, and `verify` catching a forged
//! roll.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use adjutant::dice::{self, DiceExpr, SideHash};
use adjutant::{game, roll_log, verify, Error};

use super::arguments::{DemoArgs, Format};
use super::output::{Out, Style};
use super::{render_roll, render_verdict, Outcome};

/// The demo's steps: dice and purpose, as a Savannah referee might log them.
const STEPS: &[(&str, &str)] = &[
    ("2d10", "initiative, turn 17 (series 6.1): british then allied"),
    ("1d10", "defensive artillery fire (series 11.3): Spring Hill Redoubt guns at the column adjacent to 1404"),
    ("2d10", "close combat at 1404, Spring Hill Redoubt (series 12.23): attacker then defender"),
    ("1d10", "surrender die roll (Savannah 2.1)"),
];

#[derive(Serialize)]
struct DemoResult {
    game: game::NewGame,
    roll_log: roll_log::Created,
    steps: Vec<roll_log::Rolled>,
    verified: verify::Verdict,
    forged: verify::Verdict,
}

pub fn run(args: &DemoArgs, out: &Out) -> Outcome {
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

    say(format!("{}\n\n", s.bold("adjutant demo: verifiable dice for a game of Savannah 1779")))?;
    let game_dir = base.join("savannah");
    let made = game::new_game(
        &game_dir,
        "savannah-1779",
        "historical",
        "savannah-demo",
        vec![
            game::parse_player("british=Augustine Prevost <prevost@example.org>")?,
            game::parse_player("french=Charles d'Estaing <destaing@example.org>")?,
            game::parse_player("american=Benjamin Lincoln <lincoln@example.org>")?,
        ],
        dice::DEFAULT_CHAIN_LENGTH,
    )?;
    say(format!(
        "1. `adjutant new` made the game folder {}: game.yaml, an empty journal, and the secret\n   \
         chain top in .secret/. Every player receives its anchor before any orders exist:\n     {}\n   \
         (This version records the game; the rules engine that plays it comes next.)\n\n",
        game_dir.display(),
        made.anchor.to_hex()
    ))?;

    let log_dir = base.join("rolls");
    let created = roll_log::init(&log_dir, "savannah-demo-rolls", dice::DEFAULT_CHAIN_LENGTH)?;
    say(format!(
        "2. `adjutant roll init` made a roll log for ad hoc rolls, with anchor\n     {}\n\n\
         3. Each `adjutant roll` is one step: its purpose is its orders, it reveals the next key.\n\n",
        created.anchor.to_hex()
    ))?;
    let mut steps = Vec::new();
    for (expr, purpose) in STEPS {
        let dice: DiceExpr = expr.parse().map_err(Error::usage)?;
        let rolled = roll_log::roll(&log_dir, &[dice], purpose, Duration::from_secs(5))?;
        say(indent(&render_roll(&rolled, &s)))?;
        steps.push(rolled);
    }

    if let Some(first) = steps.first() {
        say(check_by_hand(&base, first, &s)?)?;
    }

    let verified = verify::verify(&log_dir)?;
    say(format!("5. `adjutant verify --dir {}` recomputes everything from the anchor:\n", log_dir.display()))?;
    say(indent(&render_verdict(&log_dir, &verified, &s)))?;

    let forged_dir = base.join("rolls-forged");
    let forged = forge(&log_dir, &forged_dir, &steps)?;
    say("\n6. A copy in which someone turned step 2's roll into a better one does not verify:\n".to_string())?;
    say(indent(&render_verdict(&forged_dir, &forged, &s)))?;

    let ok = verified.ok && !forged.ok;
    if out.format == Format::Json {
        let result = DemoResult { game: made, roll_log: created, steps, verified, forged };
        out.result(&result, |_| String::new())?;
    } else if let Some(dir) = &args.keep {
        say(format!("\nThe folders are in {}; try `adjutant verify --dir {}`.\n", dir.display(), log_dir.display()))?;
    }
    Ok(if ok { 0 } else { 1 })
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("   {l}\n")).collect()
}

/// Step 4 of the demo: recompute step 1 with the primitives alone.
fn check_by_hand(base: &Path, first: &roll_log::Rolled, s: &Style) -> Result<String, Error> {
    let purpose_file = base.join("purpose-1.txt");
    adjutant::fsio::write_atomic(&purpose_file, first.purpose.as_bytes())?;
    let digest = dice::orders_digest(&[SideHash::of_bytes(roll_log::PURPOSE_SIDE, first.purpose.as_bytes())])?;
    let seed = dice::step_seed(&first.game_id, first.step, &first.key, &digest, &[])?;
    let die = first.rolls.first().map(|r| r.die).unwrap_or(dice::Die::D10);
    let recomputed = dice::rolls(&seed, die, first.values.len());
    let values: Vec<String> = recomputed.iter().map(|v| v.to_string()).collect();
    let agrees = digest == first.orders_digest && seed == first.seed && recomputed == first.values;
    Ok(format!(
        "4. Anyone can check step 1 by hand (or in any language, from DICE.md):\n   \
         $ adjutant dice digest purpose={}\n   {}\n   \
         $ adjutant dice seed --game-id {} --step 1 --key {} --digest {}\n   {}\n   \
         $ adjutant dice rolls --seed {} {} {}\n   {}   {}\n\n",
        purpose_file.display(),
        digest.to_hex(),
        first.game_id,
        first.key.to_hex(),
        digest.to_hex(),
        seed.to_hex(),
        seed.to_hex(),
        die,
        first.values.len(),
        values.join(" "),
        if agrees { s.good("(the logged rolls)") } else { s.bad("(DIFFERENT from the log!)") }
    ))
}

/// Copy the roll log and change one logged value, as a cheat would.
fn forge(from: &Path, to: &Path, steps: &[roll_log::Rolled]) -> Result<verify::Verdict, Error> {
    fs::create_dir_all(to.join("journal")).map_err(|e| Error::io(to, e))?;
    fs::copy(from.join("game.yaml"), to.join("game.yaml")).map_err(|e| Error::io(to, e))?;
    for step in steps {
        let name = format!("journal/{:06}.yaml", step.step);
        let mut text = fs::read_to_string(from.join(&name)).map_err(|e| Error::io(from.join(&name), e))?;
        if step.step == 2 {
            let logged = step.values[0];
            let better = if logged == 9 { 8 } else { 9 };
            text = text.replacen(&format!("value: {logged}\n"), &format!("value: {better}\n"), 1);
        }
        fs::write(to.join(&name), text).map_err(|e| Error::io(to.join(&name), e))?;
    }
    verify::verify(to)
}
