//! `adjutant selfplay --module awi-southern`: whole AWI Southern Campaign
//! games with random legal operations (every list of the orders) and
//! battle entries of every form, the referee's or both commanders', every
//! invariant checked after every step
//! (src/systems/awi/selfplay.rs); one game again through a real game
//! folder, verified.

mod common;
use common::*;

const SCENARIO: [&str; 4] = ["--module", "awi-southern", "--scenario", "southern-1780"];

#[test]
fn awi_games_with_random_orders_keep_every_invariant() {
    let dir = temp();
    let mut args = vec!["--format", "json", "selfplay"];
    args.extend(SCENARIO);
    args.extend(["--games", "5", "--seed", "1"]);
    let played = run(dir.path(), &args);
    assert_eq!(played.code, 0, "{}\n{}", played.stdout, played.stderr);
    let report = played.json();
    assert_eq!(report["failures"], serde_json::json!([]), "{}", played.stdout);
    assert_eq!(report["games"], 5);
    // Every game reached the scenario's end (unscored in this version).
    assert_eq!(report["results"], serde_json::json!({"none unscored": 5}), "{}", played.stdout);
    let orders = &report["orders"];
    assert!(orders["kept"].as_u64().unwrap() >= 50, "{orders}");
    // Every list of the orders and every form of a battle's entry is drawn:
    // these five games give replacements, militia, works, garrisons, a
    // trivial combat, results of the table, a cavalry withdrawal, and
    // supply units or generals the enemy reached alone, captured.
    for kind in [
        "move",
        "retreat",
        "captured",
        "replaced",
        "militia-formed",
        "entrenchment-built",
        "fort-built",
        "garrison",
        "trivial-combat",
        "battle-result",
        "cavalry-declines",
    ] {
        assert!(report["events"][kind].as_u64().unwrap_or(0) > 0, "no {kind} event: {}", played.stdout);
    }
    // The text summary says so too.
    let mut text = vec!["selfplay"];
    text.extend(SCENARIO);
    text.extend(["--games", "5", "--seed", "1"]);
    let out = run(dir.path(), &text);
    assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("no failures"), "{}", out.stdout);
}

/// The referee's entries are given to `resolve` as his own files (`submit`
/// takes sides' files only); the folder replays and verifies.
#[test]
fn an_awi_game_played_through_a_game_folder_verifies() {
    let dir = temp();
    let kept = dir.path().join("kept");
    let mut args = vec!["--format", "json", "selfplay"];
    args.extend(SCENARIO);
    args.extend(["--seed", "1", "--game", "2", "--keep", kept.to_str().unwrap()]);
    let played = run(dir.path(), &args);
    assert_eq!(played.code, 0, "{}\n{}", played.stdout, played.stderr);
    let report = played.json();
    let folder = &report["folders"][0];
    assert_eq!(folder["verified"], true, "{folder}");
    assert_eq!(folder["problem"], serde_json::Value::Null, "{folder}");
    assert_eq!(folder["steps"], report["steps"], "{}", played.stdout);
    let orders: Vec<String> = std::fs::read_dir(kept.join("game-2").join("orders"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(orders.iter().any(|f| f.ends_with("-referee.yaml")), "{orders:?}");
    run(dir.path(), &["verify", "--dir", kept.join("game-2").to_str().unwrap()]).ok();
}
