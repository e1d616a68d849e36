//! Issue 5's must-show: the Historical Scenario of Savannah 1779 plays from
//! turn 16 to its end through `resolve` with real orders files covering
//! fire and close combat. Turn 16's Allied orders are written out (the
//! French mortar fires, Auxerrois attacks); every other orders file is what
//! `adjutant template` prints for the side: the least the rules require of
//! it, which includes the close combats 12.12 forces (turn 16's British
//! attack on Auxerrois, which is disrupted), and the British set-up that
//! keeps the militia at its printed hex (Hist. Set Up). Each template is
//! validated whole, its guide included, and played without the guide's
//! comments (the dice bind to the files' bytes). The game ends with a
//! victory determination and `verify` replays it.

mod common;
use common::*;

use std::fs;

#[test]
fn the_historical_scenario_plays_to_its_end() {
    let dir = temp();
    let d = dir.path();
    run(d, &["new", "savannah-1779", "--scenario", "historical", "--dir", "g", "--game-id", "club-7"]).ok();
    known_dice(&d.join("g"));
    let write = |name: &str, text: String| fs::write(d.join(name), text).unwrap();
    // Turn 16's Allied orders written out: movement, the mortar, the attack.
    let outs = play_turn_16_opening(d);
    assert!(outs[1].contains("[Savannah 4.12] scatter roll"), "{}", outs[1]);
    let mut log = outs[1].clone() + &outs[2];
    // Every other step: the template's least orders for each awaited side.
    let mut steps = 0;
    loop {
        let next =
            log.lines().rev().find(|l| l.starts_with("next: ") || l.starts_with("game over")).unwrap_or("").to_string();
        if next.starts_with("game over") {
            break;
        }
        let (step, sides) = next.trim_start_matches("next: ").split_once(", awaiting orders from ").expect(&next);
        let mut files = Vec::new();
        for side in sides.split(", ") {
            let name = format!("{step}-{side}.yaml");
            let text = run(d, &["template", "--dir", "g", "--side", side]).ok();
            // The whole template, its guide's comments included, validates.
            write(&name, text.clone());
            let checked = run(d, &["validate", "--dir", "g", &name]);
            assert_eq!(
                checked.code, 0,
                "{text}
{}",
                checked.stdout
            );
            // The dice bind to the orders files' bytes (docs/DICE.md), so the
            // game is played from the least orders alone: the guide's wording
            // may change without changing this game.
            let least = text.split("#\n# Your units (").next().unwrap_or(&text).to_string();
            write(&name, least);
            files.push(name);
        }
        let mut args = vec!["resolve", "--dir", "g"];
        args.extend(files.iter().map(String::as_str));
        let out = run(d, &args).ok();
        log.push_str(&out);
        steps += 1;
        assert!(steps < 100, "the game does not end:\n{log}");
    }
    // Fire and close combat took place, with their modifiers and rolls.
    for text in [
        "scatter roll 7: the shells drift to 1905",
        "mortar-battery (2 SPs, range 5) at 2-ga-militia in 1905: needs 8",
        "roll 0 +1 = 1 on 3-1",
        "roll 6 +0 = 6 on 3-2: attacker no-effect, defender disrupt",
        "Auxerrois (auxerrois) retreats 3 hexes from 1905 to 1908",
        "17-allies-close-combat",
        "army morale",
    ] {
        assert!(log.contains(text), "{text}\n{log}");
    }
    assert!(log.contains("20-victory-determination"), "{log}");
    assert!(log.contains("game over: british marginal victory"), "{log}");
    let verified = run(d, &["verify", "--dir", "g"]).ok();
    // The British set-up (Hist. Set Up), 9 steps of turn 16, 10 of each later turn.
    assert!(verified.contains("50 steps"), "{verified}");
}
