//! `adjutant demo`, the README's first command: the whole Historical
//! Scenario played by email with the shipped orders, ending "verified". The
//! shipped orders are written to make an interesting game: fire, close
//! combat, a PIN, momentum spent on the initiative, retreats, and the
//! British army demoralized, its commander falling in its last
//! counter-attack (16.3).

mod common;
use common::*;

#[test]
fn the_demo_plays_the_whole_game_and_verifies() {
    let dir = temp();
    let out = run(dir.path(), &["demo"]).ok();
    // It ends with the verification and the journal head a player keeps.
    let end: Vec<&str> = out.trim_end().lines().rev().take(2).collect();
    assert!(end[1].contains("verified") && end[0].contains("journal head: step 29, "), "{out}");
    assert!(out.contains("29 steps and 20 rolls"), "{out}");
    assert!(out.contains("game over: allies substantial victory"), "{out}");
    // Fire, close combat, a PIN, momentum spent and a retreat, with their
    // rolls, in the British player's reports.
    for text in ["scatter roll", "on 3-1:", "pinned: \"PIN\"", "momentum-spent:", "retreats", "Report for british"] {
        assert!(out.contains(text), "{text}\n{out}");
    }
    // The forged copy: the journal's first roll changed (step 4's: the
    // steps before it roll no die), and verify names that roll.
    assert!(out.contains("changed the first roll (journal/000004.yaml)"), "{out}");
    assert!(out.contains("FAILED") && out.contains("journal/000004.yaml: rolls check: roll 0"), "{out}");
    let kept = dir.path().join("kept");
    let json = run(dir.path(), &["demo", "--keep", kept.to_str().unwrap(), "--format", "json"]).json();
    assert_eq!(json["verified"]["ok"], true);
    assert_eq!(json["forged"]["failure"]["entry"], "journal/000004.yaml");
    assert_eq!(json["steps"], 29);
    // Every shipped orders file was used: the inbox is empty.
    let shipped = std::fs::read_dir(repo_root().join("games/savannah-1779/demo/historical")).unwrap().count();
    assert_eq!(json["orders_files"].as_u64().unwrap() as usize, shipped);
    let inbox = kept.join("savannah/inbox");
    assert!(!inbox.exists() || std::fs::read_dir(&inbox).unwrap().count() == 0);
    let game = kept.join("savannah");
    run(dir.path(), &["verify", "--dir", game.to_str().unwrap()]).ok();
    // The game's journal, every step: what the demo is written to show.
    let report = run(
        dir.path(),
        &["report", "--dir", game.to_str().unwrap(), "--referee", "--steps", "1-29", "--format", "json"],
    )
    .json();
    let events: Vec<(&str, &str, &str)> = report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| {
            s["events"].as_array().unwrap().iter().map(move |e| {
                (s["game_step"].as_str().unwrap(), e["kind"].as_str().unwrap(), e["text"].as_str().unwrap())
            })
        })
        .collect();
    let has = |kind: &str, text: &str| events.iter().any(|(_, k, t)| *k == kind && t.contains(text));
    assert!(has("to-hit", ""), "fire: {events:?}");
    assert!(has("close-combat-roll", "attacker pin, defender pin"), "a PIN result: {events:?}");
    assert!(has("pinned", "\"PIN\""), "units pinned: {events:?}");
    assert!(has("momentum-spent", "before the initiative roll"), "a chit spent on the initiative: {events:?}");
    assert!(has("retreat", "retreats"), "a retreat: {events:?}");
    let last = events.last().unwrap();
    // 16.3: the British army demoralized by an Allied assault ends the game at once.
    assert!(has("army-morale", "to Demoralized"), "an army demoralized: {events:?}");
    // 14.32 with Savannah 2.7: Maitland, captured alone, costs as a casualty would.
    assert!(has("leader-captured", "maitland"), "a leader captured: {events:?}");
    assert!(has("army-morale", "Maitland captured"), "the capture's army morale: {events:?}");
    // Hist. Set Up: the game's first step, the British deploying the Loyal Savannah Militia.
    assert_eq!(events[0].0, "16-set-up", "{events:?}");
    assert!(has("deployed", "loyal-savannah-militia in 1803"), "the militia deployed: {events:?}");
    // The last British counter-attack, the militia in it, costs Prevost and the army.
    assert!(has("army-morale", "Prevost a casualty"), "Prevost falls: {events:?}");
    // Savannah 2.10: the Allies win, and the French, 6 VPs to the
    // Americans' 2, are the individual winner (the game's last event).
    let victory = &events[events.len() - 2];
    assert_eq!((victory.0, victory.1), ("18-british-close-combat", "victory"), "{events:?}");
    assert_eq!((last.0, last.1), ("18-british-close-combat", "individual-winner"), "{events:?}");
    assert!(last.2.contains("the individual winner is the french player"), "{events:?}");
}

/// The HTML report of a real game, with its map inline, renders in
/// headless Chromium to a picture that is not blank.
#[test]
fn a_games_html_report_renders_in_chromium() {
    let dir = temp();
    let kept = dir.path().join("kept");
    run(dir.path(), &["demo", "--keep", kept.to_str().unwrap(), "--format", "json"]).ok();
    let html = dir.path().join("report.html");
    let g = kept.join("savannah");
    run(
        dir.path(),
        &[
            "report",
            "--dir",
            g.to_str().unwrap(),
            "--side",
            "french",
            "--steps",
            "2",
            "--as",
            "html",
            "-o",
            html.to_str().unwrap(),
        ],
    )
    .ok();
    let png = browser::screenshot(&html, 1200, 1600);
    std::fs::write(dir.path().join("report.png"), &png).unwrap();
    if let Ok(keep) = std::env::var("ADJUTANT_KEEP_SCREENSHOT") {
        std::fs::write(keep, &png).unwrap();
    }
    let (colours, share) = browser::not_blank(&png);
    // Text alone is a few greys; the map's terrain and counters bring hundreds.
    assert!(colours > 200 && share > 0.05, "{colours} colours, {share} not background");
    let inline = saturated_share(&png);
    assert!(inline > 0.10, "the inline map's colours cover {inline} of the page");

    // The report as `resolve` stored it: the page beside its map.svg, which
    // it shows as an image; Chromium must find and draw it.
    let mut dispatches: Vec<_> = std::fs::read_dir(g.join("reports")).unwrap().map(|e| e.unwrap().path()).collect();
    dispatches.sort();
    let stored = dispatches[0].join("french.html");
    assert!(std::fs::read_to_string(&stored).unwrap().contains("<img src=\"map.svg\""));
    let png = browser::screenshot(&stored, 1200, 2600);
    let with_map = saturated_share(&png);
    // Text and tables are black and grey: the coloured pixels are the map's.
    // The same page without its map.svg beside it has none to speak of.
    std::fs::remove_file(dispatches[0].join("map.svg")).unwrap();
    let without_map = saturated_share(&browser::screenshot(&stored, 1200, 2600));
    assert!(
        with_map > 0.03 && with_map > 4.0 * without_map,
        "coloured share {with_map} with the map, {without_map} without"
    );
}

/// The share of a picture's pixels in a clear colour (not black, white or grey).
fn saturated_share(png: &[u8]) -> f64 {
    let (_, _, pixels) = browser::decode(png);
    let coloured = pixels
        .iter()
        .filter(|[r, g, b, _]| {
            let (max, min) = ((*r).max(*g).max(*b), (*r).min(*g).min(*b));
            max - min > 40
        })
        .count();
    coloured as f64 / pixels.len() as f64
}
