//! Issue 14's must-show: the Campaign Game of Savannah 1779, played with
//! least orders (each awaited side's `adjutant template` without its guide;
//! `resolve` alone where nobody is awaited), runs on the Strategic Turn
//! Track from turn 1 through its Weather and Random Events Phases, and
//! from turn 9 its Construct Siege Works Phases (Savannah 3 IV, 4.4: the
//! French place the first marker the template's guide offers) and, once a
//! siege work is completed on turn 10, its Siege & Bombardment Phases (3 V,
//! 4.6), to turn 13. A side's reports never show the other player's hand,
//! only its size; `verify` recomputes every roll, the card draws (cN dice)
//! too.

mod common;
use common::*;

use std::fs;

#[test]
fn the_campaign_game_runs_through_the_siege_phases() {
    let dir = temp();
    let d = dir.path();
    run(d, &["new", "savannah-1779", "--scenario", "campaign", "--dir", "g", "--game-id", "camp-1"]).ok();
    known_dice(&d.join("g"));
    let write = |name: &str, text: String| fs::write(d.join(name), text).unwrap();
    let mut log = String::new();
    let mut rounds = 0;
    loop {
        let status = run(d, &["status", "--dir", "g", "--format", "json"]).json();
        let step = status["step"].as_str().expect("the game goes on").to_string();
        if status["turn"].as_u64().unwrap() >= 13 {
            break;
        }
        let mut files = Vec::new();
        for side in status["awaiting"].as_array().unwrap() {
            let side = side.as_str().unwrap();
            let name = format!("{step}-{side}.yaml");
            let text = run(d, &["template", "--dir", "g", "--side", side]).ok();
            // The whole template, its guide (the hand, the cards offered) included, validates.
            write(&name, text.clone());
            let checked = run(d, &["validate", "--dir", "g", &name]);
            assert_eq!(checked.code, 0, "{text}\n{}", checked.stdout);
            if step.ends_with("random-events") {
                assert!(text.contains("Random Events Phase (Savannah 4.3)"), "{text}");
            }
            let mut least = text.split("#\n# Your units (").next().unwrap_or(&text).to_string();
            // Savannah 4.4: the French place the first marker the guide offers.
            if step.ends_with("construct-siege-works") {
                assert!(text.contains("Construct Siege Works Phase"), "{text}");
                let guide = run(d, &["template", "--dir", "g", "--side", side, "--format", "json"]).json();
                let offered = guide["choices"].as_array().unwrap().iter().find(|c| c["key"] == "place").cloned();
                if let Some(choice) = offered {
                    least = format!("{}place:\n  - {}\n", least, choice["yaml"].as_str().unwrap());
                }
            }
            write(&name, least);
            files.push(name);
        }
        let mut args = vec!["resolve", "--dir", "g"];
        args.extend(files.iter().map(String::as_str));
        let out = run(d, &args).ok();
        log.push_str(&out);
        rounds += 1;
        assert!(rounds < 80, "the campaign does not reach turn 13:\n{log}");
    }
    // The siege phases resolve: a marker on turn 9 (the guide offers a hex
    // only where one may go), flipped on turn 10, and from then a Siege &
    // Bombardment Phase each turn (4.6).
    for seen in
        ["9-construct-siege-works", "10-construct-siege-works", "11-construct-siege-works", "12-construct-siege-works"]
    {
        assert!(log.contains(&format!("· {seen}\n")), "{seen}\n{log}");
    }
    let status = run(d, &["status", "--dir", "g"]).ok();
    assert!(log.contains("a construction marker is placed in "), "{log}");
    assert!(log.contains("siege works completed toward"), "{log}");
    assert!(log.contains("· 10-siege-and-bombardment\n"), "{log}");
    assert!(log.contains("on Siege & Bombardment Table I (Savannah 4.6)"), "{log}");
    assert!(status.contains("siege works: ") && status.contains(", completed"), "{status}");
    // The Strategic Turn Track: weather on turn 1, Random Events on turn 1,
    // none on turn 2 (stand-in tracks), no siege phases before turn 9.
    for seen in ["1-weather", "1-random-events", "2-weather", "3-random-events", "9-weather"] {
        assert!(log.contains(&format!("· {seen}\n")), "{seen}\n{log}");
    }
    for unseen in ["2-random-events", "7-random-events", "8-construct-siege-works", "9-siege-and-bombardment"] {
        assert!(!log.contains(&format!(" {unseen}\n")), "{unseen}\n{log}");
    }
    // Turns 6 and 8 are no weather turns: a Weather Phase there is only
    // 4.2's Heavy Rain after a storm, with no roll.
    for turn in [6, 8] {
        if log.contains(&format!("· {turn}-weather\n")) {
            assert!(log.contains(&format!("turn {turn}: Heavy Rain after the")), "{turn}\n{log}");
        }
    }
    assert!(log.contains("the british player draws a Random Events card (Random Events Phase, turn 1)"), "{log}");
    // Secrecy (Savannah 4.3): no British report names a card the Allies
    // hold, and each shows the size of the other hand.
    let state: serde_json::Value =
        adjutant::base::yaml::parse("state.yaml", &fs::read_to_string(d.join("g/state.yaml")).unwrap()).unwrap();
    let hands = state["cards"].as_object().expect("the players hold cards");
    let allied: Vec<String> =
        hands["allies"].as_array().unwrap().iter().map(|c| c.as_str().unwrap().to_string()).collect();
    let british: Vec<String> =
        hands["british"].as_array().unwrap().iter().map(|c| c.as_str().unwrap().to_string()).collect();
    assert!(!allied.is_empty() && !british.is_empty(), "{hands:?}");
    let mut dispatches: Vec<_> = fs::read_dir(d.join("g/reports")).unwrap().map(|e| e.unwrap().path()).collect();
    dispatches.sort();
    let last = dispatches.iter().rev().find(|p| p.join("british.json").exists()).unwrap();
    for dispatch in &dispatches {
        for (viewer, secret) in [("british", &allied), ("french", &british), ("american", &british)] {
            for format in ["json", "txt"] {
                let path = dispatch.join(format!("{viewer}.{format}"));
                let Ok(text) = fs::read_to_string(&path) else { continue };
                for card in secret.iter() {
                    let quoted = if format == "json" { format!("\"{card}\"") } else { format!(" {card}") };
                    assert!(!text.contains(&quoted), "{}: the other player's {card}", path.display());
                }
            }
        }
    }
    let report: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(last.join("british.json")).unwrap()).unwrap();
    assert_eq!(report["standing"]["hand_sizes"]["allies"], allied.len(), "{}", report["standing"]);
    assert!(report["standing"]["cards"].get("allies").is_none(), "{}", report["standing"]);
    assert_eq!(report["standing"]["cards"]["british"].as_array().unwrap().len(), british.len());
    let verified = run(d, &["verify", "--dir", "g"]).ok();
    assert!(verified.contains("verified"), "{verified}");
}

/// Savannah 1.6 case A, played by email: at the end of the Allied player
/// turn of turn 3 the Allies announce their assault (`declare_assault:
/// true` in an Allied side's movement orders), so the Game Turn Marker goes
/// to turn 16 with the Allies first: a back-to-back move. No Fog: the
/// weather of turn 3 (the last rolled) holds on turns 16 and 17 (4.2).
/// Everything the Strategic Turn Track had still to give is forfeited: no
/// Weather or Random Events Phase after turn 3, and the reinforcements of
/// turns 4-12 never arrive (removed, with no VP or army morale). Played
/// with least orders from turn 1 to the end of the game (turn 25 at most).
#[test]
fn the_allies_declare_their_assault_early_and_play_jumps_to_turn_16() {
    let dir = temp();
    let d = dir.path();
    run(d, &["new", "savannah-1779", "--scenario", "campaign", "--dir", "g", "--game-id", "camp-a"]).ok();
    known_dice(&d.join("g"));
    let write = |name: &str, text: String| fs::write(d.join(name), text).unwrap();
    let state = || -> serde_json::Value {
        adjutant::base::yaml::parse("state.yaml", &fs::read_to_string(d.join("g/state.yaml")).unwrap()).unwrap()
    };
    let mut log = String::new();
    let mut weather_of_turn_3 = None;
    let mut declared_by = None;
    let mut at_17 = None;
    for round in 0.. {
        assert!(round < 400, "the game does not end:\n{log}");
        let status = run(d, &["status", "--dir", "g", "--format", "json"]).json();
        let Some(step) = status["step"].as_str().map(str::to_string) else { break };
        if step == "17-initiative" && at_17.is_none() {
            at_17 = Some(state());
            let text = run(d, &["status", "--dir", "g"]).ok();
            assert!(text.contains("turn 17 (tactical turn track)"), "{text}");
        }
        if step.starts_with("4-") {
            weather_of_turn_3 = state()["weather"].as_str().map(str::to_string);
        }
        let mut files = Vec::new();
        for side in status["awaiting"].as_array().unwrap() {
            let side = side.as_str().unwrap();
            let name = format!("{step}-{side}.yaml");
            let text = run(d, &["template", "--dir", "g", "--side", side]).ok();
            let mut least = text.split("#\n# Your units (").next().unwrap_or(&text).to_string();
            if step == "3-allies-movement" && declared_by.is_none() {
                // The template offers the declaration on the Allied turns 1-14.
                assert!(text.contains("declare_assault"), "{text}");
                least.push_str("\ndeclare_assault: true\n");
                declared_by = Some(side.to_string());
            }
            write(&name, least);
            files.push(name);
        }
        let mut args = vec!["resolve", "--dir", "g"];
        args.extend(files.iter().map(String::as_str));
        let out = run(d, &args).ok();
        log.push_str(&out);
        if step == "3-allies-movement" {
            // Still on turn 3: play has not left it yet.
            weather_of_turn_3 = state()["weather"].as_str().map(str::to_string);
        }
    }
    assert!(declared_by.is_some(), "{log}");
    // After the Allied turn 3 comes turn 16, the Allies first (1.6: "the
    // Allies will receive a back-to-back move").
    let after_3: Vec<&str> = log
        .lines()
        .filter(|l| l.starts_with("step "))
        .filter_map(|l| l.split(" · ").nth(1))
        .skip_while(|s| !s.starts_with("3-"))
        .filter(|s| !s.starts_with("3-"))
        .collect();
    assert!(after_3.first().is_some_and(|s| s.starts_with("16-allies")), "{after_3:?}\n{log}");
    for forfeited in ["weather", "random-events", "construct-siege-works", "reinforcement"] {
        assert!(!after_3.iter().any(|s| s.ends_with(forfeited)), "{forfeited}: {after_3:?}");
    }
    for turn in 4..=15 {
        assert!(!after_3.iter().any(|s| s.starts_with(&format!("{turn}-"))), "turn {turn}: {after_3:?}");
    }
    let s = at_17.expect("the game reaches turn 17");
    assert_eq!(s["turn"], 17, "{s}");
    assert_eq!(s["assault_declared"], true);
    assert_eq!(s["strategic_turn_last"], 3);
    // 4.2: no Fog; the last prevailing weather holds on the tactical turns.
    let weather = weather_of_turn_3.expect("turn 3 has a weather");
    assert_ne!(weather, "fog");
    assert_eq!(s["weather"].as_str(), Some(weather.as_str()), "{s}");
    // 1.6: future reinforcements never arrive, with no VP or army morale.
    for unit in ["destaing", "dillon", "lincoln", "maitland", "marine-bn", "grand-battery"] {
        assert_eq!(s["units"][unit]["off_map"], "removed", "{unit}: {}", s["units"][unit]);
    }
    for unit in ["champagne-chasseurs", "mcintosh", "kings-florida-rangers"] {
        assert!(s["units"][unit].get("hex").is_some(), "{unit} arrived: {}", s["units"][unit]);
    }
    let morale = &s["army_morale"];
    assert_eq!(
        (morale["british"].as_i64(), morale["french"].as_i64(), morale["american"].as_i64()),
        (Some(19), Some(17), Some(18)),
        "{s}"
    );
    // 1.6: "The game will end after the 10th turn is played on the
    // Tactical Turn Track (Game Turn 25), unless one side achieves an
    // automatic victory."
    let end = state();
    assert!(end["result"].is_object(), "{end}");
    assert!(end["turn"].as_u64().is_some_and(|t| (17..=25).contains(&t)), "{}", end["turn"]);
    if end["turn"] != 25 {
        assert!(log.contains("wins"), "an early end is a victory:\n{log}");
    }
    let verified = run(d, &["verify", "--dir", "g"]).ok();
    assert!(verified.contains("verified"), "{verified}");
}
