//! `adjutant selfplay` in the test-sized form (issue 11): a few whole
//! Historical games with random legal orders, every invariant checked after
//! every step; one game again through a real game folder, verified; the
//! same seed and game number give the same game. The full run (10,000
//! games, in release) is `scripts/selfplay`: a debug build plays a game in
//! a few seconds, so this test plays a dozen.

mod common;
use common::*;

/// Games per run here: a debug build's seconds, not a release's minutes.
const GAMES: u64 = 12;

/// Game `game` of `seed` played alone (`--game`), which must keep every
/// invariant and reach a result: its JSON summary.
fn plays_to_a_result(dir: &std::path::Path, scenario: &str, seed: &str, game: &str) -> serde_json::Value {
    let args = ["--format", "json", "selfplay", "--scenario", scenario, "--seed", seed, "--game", game];
    let played = run(dir, &args);
    assert_eq!(played.code, 0, "{scenario} seed {seed} game {game}: {}\n{}", played.stdout, played.stderr);
    let report = played.json();
    assert_eq!(report["failures"], serde_json::json!([]), "{}", played.stdout);
    let won: u64 = report["results"].as_object().unwrap().values().map(|n| n.as_u64().unwrap()).sum();
    assert_eq!(won, 1, "{scenario} seed {seed} game {game} reached no result: {}", played.stdout);
    report
}

#[test]
fn whole_games_with_random_orders_keep_every_invariant() {
    let dir = temp();
    let games = GAMES.to_string();
    let run = run(
        dir.path(),
        &["--format", "json", "selfplay", "--scenario", "historical", "--games", &games, "--seed", "11"],
    );
    let report = run.json();
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(report["failures"], serde_json::json!([]), "{}", run.stdout);
    assert_eq!(report["games"], GAMES);
    // Every game reached a result (Savannah 2: the last turn's victory
    // determination, or a decisive victory before it).
    let results = report["results"].as_object().unwrap();
    let won: u64 = results.values().map(|n| n.as_u64().unwrap()).sum();
    assert_eq!(won, GAMES, "{results:?}");
    assert!(results.keys().all(|k| k.starts_with("allies ") || k.starts_with("british ")), "{results:?}");
    // Whole games (five turns of the Historical Scenario), with random
    // choices kept and fighting done: not a run of empty orders.
    assert!(report["steps"].as_u64().unwrap() >= 40 * GAMES, "{}", run.stdout);
    let orders = &report["orders"];
    assert!(orders["kept"].as_u64().unwrap() >= 10 * GAMES, "{orders}");
    assert!(orders["drawn"].as_u64().unwrap() >= orders["kept"].as_u64().unwrap(), "{orders}");
    for kind in ["move", "close-combat", "to-hit", "retreat", "rally", "victory"] {
        assert!(report["events"][kind].as_u64().unwrap_or(0) > 0, "no {kind} event in {} games", GAMES);
    }
    assert!(report["games_per_second"].as_f64().unwrap() > 0.0);
    if cfg!(target_os = "linux") {
        let cpu = report["cpu_seconds"].as_f64().unwrap();
        assert!(cpu > 0.0 && cpu <= report["seconds"].as_f64().unwrap() * 1.05 + 0.05, "{}", run.stdout);
        assert!(
            report["games_per_cpu_second"].as_f64().unwrap() >= report["games_per_second"].as_f64().unwrap() * 0.95
        );
    }
}

#[test]
fn a_game_played_through_a_game_folder_verifies_and_replays_the_same() {
    let dir = temp();
    let args = ["--format", "json", "selfplay", "--scenario", "historical", "--seed", "11", "--game", "4"];
    let kept = dir.path().join("kept");
    let mut with_folder = args.to_vec();
    with_folder.extend(["--keep", kept.to_str().unwrap()]);
    let first = run(dir.path(), &with_folder);
    assert_eq!(first.code, 0, "{}\n{}", first.stdout, first.stderr);
    let report = first.json();
    let folder = &report["folders"][0];
    assert_eq!(folder["verified"], true, "{folder}");
    assert_eq!(folder["problem"], serde_json::Value::Null, "{folder}");
    assert_eq!(folder["steps"], report["steps"], "{}", first.stdout);
    // The folder stands on its own: `verify` recomputes every roll, the
    // replay and the reports.
    run(dir.path(), &["verify", "--dir", kept.join("game-4").to_str().unwrap()]).ok();
    // Game 4 of seed 11 is the same game every time.
    let again = run(dir.path(), &args).json();
    for key in ["steps", "results", "orders", "events"] {
        assert_eq!(again[key], report[key], "{key}");
    }
}

#[test]
fn selfplay_refuses_what_it_cannot_play() {
    let dir = temp();
    let err = run(dir.path(), &["selfplay", "--scenario", "no-such", "--games", "1"]).fails(2);
    assert!(err.contains("no-such"), "{err}");
    let err = run(dir.path(), &["selfplay", "--scenario", "historical", "--game", "0"]).fails(2);
    assert!(err.contains("numbered from 1"), "{err}");
    let err = run(dir.path(), &["selfplay", "--scenario", "historical", "--games", "0"]).fails(2);
    assert!(err.contains("at least one game"), "{err}");
}

/// The Campaign Game's self-play plays Random Events cards as a player
/// could (Savannah 4.3: the template's `play:` choices), and its
/// invariants hold. Seed 2, game 16 broke Savannah 4.1 before the end of
/// the Movement Phase held arrivals to it (French units stacked at 3123).
#[test]
fn campaign_selfplay_plays_cards_and_keeps_every_invariant() {
    let dir = temp();
    let kept = dir.path().join("kept");
    let args = ["--format", "json", "selfplay", "--scenario", "campaign", "--seed", "2", "--game", "16"];
    let mut with_folder = args.to_vec();
    with_folder.extend(["--keep", kept.to_str().unwrap()]);
    let played = run(dir.path(), &with_folder);
    assert_eq!(played.code, 0, "{}\n{}", played.stdout, played.stderr);
    let report = played.json();
    assert_eq!(report["failures"], serde_json::json!([]), "{}", played.stdout);
    assert_eq!(report["folders"][0]["verified"], true, "{}", played.stdout);
    let orders = kept.join("game-16").join("orders");
    let plays = std::fs::read_dir(&orders)
        .unwrap()
        .filter(|f| std::fs::read_to_string(f.as_ref().unwrap().path()).unwrap().contains("\nplay:\n"))
        .count();
    assert!(plays > 0, "no orders file of {} plays a card", orders.display());
    assert!(report["events"]["card-played"].as_u64().unwrap_or(0) >= plays as u64, "{}", played.stdout);
}

/// The two Campaign games that broke in 200 of self-play (issue 14): a card
/// played in the Close Combat step (Confusion in the Ranks) retreated a
/// unit of an announced attack before it was fought, and the engine refused
/// the orders it had validated. Seed 2 game 3 has the British card retreat
/// the American attacker; seed 1 game 30 has the French card retreat the
/// defender. Both now finish, the combat lapsing (Savannah 4.3, 12.21,
/// 12.23; docs/rules-readings.md). Since self-play draws siege works
/// (2026-12-05) those two games are other games; seed 2 games 82 and 137
/// are two where a card parts an announced combat now (137 since self-play
/// draws attacks' places in the order of resolution, 2026-12-07).
#[test]
fn campaign_selfplay_a_card_parts_an_announced_close_combat() {
    let dir = temp();
    for (seed, game) in [("2", "82"), ("2", "137")] {
        let report = plays_to_a_result(dir.path(), "campaign", seed, game);
        assert!(
            report["events"]["combat-lapses"].as_u64().unwrap_or(0) >= 1,
            "seed {seed} game {game}: no combat lapsed: {report}"
        );
    }
}

/// The four Campaign games that broke in 500 games of each of seeds 1 and
/// 2 (issue 14): a card played in a Movement step (Additional Card drawing
/// the red Storm: Heavy Rain, dearer hexes) left moves written in fair
/// weather over their allowance (seed 1 games 319 and 351, seed 2 game
/// 487), and a card played in a Defensive Artillery Fire step (Confusion
/// in the Ranks) retreated the target of a fire written before it (seed 2
/// game 122); the engine refused orders it had validated. Each now
/// finishes, the moves or the fire lapsing (Savannah 4.3, 4.2, 11.2;
/// docs/rules-readings.md). Since self-play draws siege works
/// (2026-12-05) seed 1 game 351 is another game; seed 1 game 581 is one
/// whose written moves lapse now. The other three are the same games.
#[test]
fn campaign_selfplay_a_card_changes_the_board_under_written_moves_and_fire() {
    let dir = temp();
    for (seed, game, lapse) in [
        ("1", "319", "move-lapses"),
        ("1", "581", "move-lapses"),
        ("2", "487", "move-lapses"),
        ("2", "122", "fire-lapses"),
    ] {
        let report = plays_to_a_result(dir.path(), "campaign", seed, game);
        assert!(
            report["events"][lapse].as_u64().unwrap_or(0) >= 1,
            "seed {seed} game {game}: no {lapse} event: {report}"
        );
    }
}

/// Games that broke in new seeds' self-play (issue 11, 2026-12-05), the
/// Historical ones. Since a drawn stack holds only units with a move drawn
/// (2026-12-05, afternoon: a stack with the scenario's fixed artillery was
/// always refused) these ids play other games too, so this plays four
/// more Historical games to a result; the cases below hold the rules.
/// What broke then:
/// - seed 23 game 1344: the least orders did not validate: two disrupted
///   units of a French/American stack next to the enemy (13.3, Savannah
///   4.1); moving either changed the words of the other's refusal, which
///   the template took for a new problem;
/// - seed 37 game 1684: the least orders did not validate: the first
///   forced retreat of such a stack took the other unit's only way out
///   (7.1);
/// - seed 71 game 1861: no orders passed both 13.3 checks: the phase's
///   end required Harden to move to 1908, which the check of his own move
///   refused while the Champagne Chasseurs, ordered out, still stood there;
/// - seed 101 game 1800: the engine refused a step it had validated: the
///   King's Florida Rangers' Withdraw captured the Negro Volunteers (Savannah
///   4.1), whose own Withdraw then found them off the map.
///
/// Four Campaign games broke too: seed 31 game 658 (least orders: French
/// regulars arriving at F, Savannah 4.7), seed 41 game 1201 (a card
/// replaced the unit named to lead an attack, 12.23 step 2), seed 73 game
/// 717 (an invariant too strict, 13.23) and seed 103 game 2709 (a card's
/// momentum chit beyond the pool, 12.61). Since self-play draws siege works
/// (Savannah 4.4-4.6, later the same day) those ids play other games, so
/// they are not replayed here; their cases and unit tests hold the rules.
/// Cases: `movement/13-3-two-disrupted-units-kept-apart-move-away-in-the-least-orders.yaml`,
/// `movement/savannah-4-1-one-forced-retreat-leaves-the-other-a-way-out.yaml`,
/// `reinforcement/savannah-4-1-the-unit-arrivals-may-not-end-with-moves-away.yaml`,
/// `random-events/savannah-4-3-a-card-replaces-the-named-lead-unit.yaml`,
/// `movement/13-3-a-disrupted-unit-may-move-where-a-unit-the-orders-move-stands.yaml`,
/// `random-events/savannah-4-3-a-cards-chit-comes-from-the-pool.yaml`,
/// `close-combat/savannah-4-1-a-unit-a-stack-mates-retreat-captured-does-not-retreat.yaml`.
#[test]
fn selfplay_games_of_new_seeds_that_broke_play_to_a_result() {
    let dir = temp();
    let games = [
        ("historical", "23", "1344"),
        ("historical", "37", "1684"),
        ("historical", "71", "1861"),
        ("historical", "101", "1800"),
    ];
    for (scenario, seed, game) in games {
        plays_to_a_result(dir.path(), scenario, seed, game);
    }
}
