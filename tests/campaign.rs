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
