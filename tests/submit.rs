//! `adjutant submit`: orders go into the game's inbox byte for byte, with a
//! receipt; a file for another game, turn, step or side, a stale file or a
//! second file without --replace is refused and nothing in the folder
//! changes (by mail, a newer message replaces: tests/club_orders.rs); orders sent
//! ahead are used when their step comes.

mod common;
use common::*;

use std::fs;
use std::path::Path;

/// The three-player Historical game, with known dice so that every run
/// plays the same game.
fn game(dir: &Path) {
    new_historical_game(dir);
    known_dice(&dir.join("g"));
}

fn orders(turn: u32, step: &str, side: &str, body: &str) -> String {
    format!("game: club-7\nturn: {turn}\nstep: {step}\nside: {side}\n{body}")
}

#[test]
fn a_receipt_names_the_file_and_its_hash_and_the_bytes_are_kept() {
    let dir = temp();
    let d = dir.path();
    game(d);
    // A comment and odd spacing: kept exactly.
    let text = orders(16, "allies-movement", "french", "# Dillon holds\nmoves:   []\n");
    fs::write(d.join("f.yaml"), &text).unwrap();
    let out = run(d, &["submit", "--dir", "g", "f.yaml", "--format", "json"]);
    let receipt = out.json();
    assert_eq!(receipt["step"], "16-allies-movement");
    assert_eq!(receipt["side"], "french");
    assert_eq!(receipt["when"], "current");
    assert_eq!(receipt["still_awaiting"], serde_json::json!(["american"]));
    let sha = receipt["sha256"].as_str().unwrap().to_string();
    let stored = fs::read(d.join("g").join(receipt["stored"].as_str().unwrap())).unwrap();
    assert_eq!(stored, text.as_bytes());
    let digest = run(d, &["dice", "digest", "french=f.yaml", "--format", "json"]).json();
    assert!(digest.to_string().contains(&sha), "the receipt's hash is the file's SHA-256: {digest}");
    // Text receipt.
    let status = run(d, &["status", "--dir", "g"]).ok();
    assert!(status.contains("awaiting orders from: american, french (in)"), "{status}");
}

#[test]
fn misdirected_stale_and_duplicate_files_are_refused_and_change_nothing() {
    let dir = temp();
    let d = dir.path();
    game(d);
    fs::write(d.join("f.yaml"), orders(16, "allies-movement", "french", "moves: []\n")).unwrap();
    run(d, &["submit", "--dir", "g", "f.yaml"]).ok();
    let before = all_files(&d.join("g"));
    let cases: [(&str, String, &str); 7] = [
        (
            "other-game.yaml",
            orders(16, "allies-movement", "french", "moves: []\n").replace("club-7", "club-8"),
            "these orders are for game 'club-8'; this game is 'club-7'",
        ),
        ("stale.yaml", orders(15, "allies-movement", "french", "moves: []\n"), "not a step still to come"),
        ("no-such-step.yaml", orders(16, "allies-marching", "french", "moves: []\n"), "not a step"),
        ("wrong-side.yaml", orders(16, "allies-movement", "british", "moves: []\n"), "not from british"),
        (
            "ahead-wrong-side.yaml",
            orders(16, "british-movement", "french", "moves: []\n"),
            "takes orders from british, not from french",
        ),
        (
            "duplicate.yaml",
            orders(16, "allies-movement", "french", "moves: []   # changed my mind\n"),
            "has already submitted orders for step 16-allies-movement",
        ),
        (
            "bad-unit.yaml",
            orders(16, "allies-movement", "american", "moves:\n  - {unit: nobody, to: \"1906\"}\n"),
            "bad-unit.yaml:6:",
        ),
    ];
    for (name, text, wanted) in &cases {
        fs::write(d.join(name), text).unwrap();
        let err = run(d, &["submit", "--dir", "g", name]).fails(1);
        assert!(err.contains(wanted), "{name}: expected '{wanted}' in:\n{err}");
        assert_eq!(all_files(&d.join("g")), before, "{name} changed the game folder");
    }
    // Not YAML at all, by standard input.
    let err = run_with_input(d, &["submit", "--dir", "g", "-"], b"game: [\n").fails(1);
    assert!(err.contains("standard input"), "{err}");
    assert_eq!(all_files(&d.join("g")), before);
    // --replace replaces before the step is resolved.
    fs::write(d.join("f2.yaml"), orders(16, "allies-movement", "french", "moves: [] # again\n")).unwrap();
    let out = run(d, &["submit", "--dir", "g", "--replace", "f2.yaml"]).ok();
    assert!(out.contains("replacing inbox/16-allies-movement--french.yaml (sha256 "), "{out}");
    // The file replaced is kept, with its reason beside it.
    assert_eq!(
        fs::read(d.join("g/kept/superseded/000001--16-allies-movement--french.yaml")).unwrap(),
        fs::read(d.join("f.yaml")).unwrap()
    );
    assert!(d.join("g/kept/superseded/000001--16-allies-movement--french.reason").is_file());
    run(d, &["verify", "--dir", "g"]).ok();
    assert_eq!(
        fs::read(d.join("g/inbox/16-allies-movement--french.yaml")).unwrap(),
        fs::read(d.join("f2.yaml")).unwrap()
    );
}

#[test]
fn orders_sent_ahead_are_used_when_their_step_comes() {
    let dir = temp();
    let d = dir.path();
    game(d);
    let write = |name: &str, text: String| fs::write(d.join(name), text).unwrap();
    write("b.yaml", orders(16, "british-movement", "british", "moves: []   # sent ahead\n"));
    let out = run(d, &["submit", "--dir", "g", "b.yaml"]).ok();
    assert!(out.contains("sent ahead"), "{out}");
    write("f.yaml", orders(16, "allies-movement", "french", "moves: []\n"));
    write("a.yaml", orders(16, "allies-movement", "american", "moves: []\n"));
    run(d, &["submit", "--dir", "g", "f.yaml"]).ok();
    run(d, &["submit", "--dir", "g", "a.yaml"]).ok();
    // Movement, rally; then fire awaits the French (mortar in range).
    let out = run(d, &["resolve", "--dir", "g"]).ok();
    assert!(out.contains("next: 16-allies-defensive-artillery-fire"), "{out}");
    assert!(d.join("g/inbox/16-british-movement--british.yaml").exists());
    assert!(!d.join("g/inbox/16-allies-movement--french.yaml").exists(), "used files leave the inbox");
    assert_eq!(fs::read(d.join("g/orders/000002-french.yaml")).unwrap(), fs::read(d.join("f.yaml")).unwrap());
    // Through fire and close combat to the British movement, which takes
    // the file sent ahead.
    let mut log = out;
    for _ in 0..6 {
        if log.contains("· 16-british-movement") {
            break;
        }
        let status = run(d, &["status", "--dir", "g", "--format", "json"]).json();
        for side in status["awaiting"].as_array().unwrap() {
            let side = side.as_str().unwrap();
            let text = run(d, &["template", "--dir", "g", "--side", side]).ok();
            write("t.yaml", text);
            run(d, &["submit", "--dir", "g", "t.yaml"]).ok();
        }
        log += &run(d, &["resolve", "--dir", "g"]).ok();
    }
    assert!(log.contains("· 16-british-movement"), "{log}");
    assert!(!d.join("g/inbox/16-british-movement--british.yaml").exists());
    let sent = fs::read(d.join("b.yaml")).unwrap();
    let used = all_files(&d.join("g/orders"))
        .into_iter()
        .any(|(p, bytes)| p.to_string_lossy().ends_with("-british.yaml") && bytes == sent);
    assert!(used, "the file sent ahead is in orders/ byte for byte");
    run(d, &["verify", "--dir", "g"]).ok();
}

#[test]
fn orders_sent_ahead_that_fail_when_their_step_comes_stop_resolution_there() {
    let dir = temp();
    let d = dir.path();
    game(d);
    let write = |name: &str, text: String| fs::write(d.join(name), text).unwrap();
    // Ahead: only the header is checked now; the unit is wrong.
    write("b.yaml", orders(16, "british-movement", "british", "moves:\n  - {unit: dillon-irish, to: \"1906\"}\n"));
    run(d, &["submit", "--dir", "g", "b.yaml"]).ok();
    let mut guard = 0;
    loop {
        let status = run(d, &["status", "--dir", "g", "--format", "json"]).json();
        if status["step"] == "16-british-movement" {
            break;
        }
        for side in status["awaiting"].as_array().unwrap() {
            let side = side.as_str().unwrap();
            write("t.yaml", run(d, &["template", "--dir", "g", "--side", side]).ok());
            run(d, &["submit", "--dir", "g", "t.yaml"]).ok();
        }
        let r = run(d, &["resolve", "--dir", "g"]);
        guard += 1;
        assert!(guard < 10, "{}", r.stdout);
        if r.code == 1 {
            assert!(r.stdout.contains("refused: inbox/16-british-movement--british.yaml"), "{}", r.stdout);
            assert!(r.stdout.contains("dillon-irish"), "{}", r.stdout);
            let status = run(d, &["status", "--dir", "g", "--format", "json"]).json();
            assert_eq!(status["step"], "16-british-movement");
            return;
        }
    }
    let r = run(d, &["resolve", "--dir", "g"]);
    assert_eq!(r.code, 1, "{}", r.stdout);
    assert!(r.stdout.contains("refused: inbox/16-british-movement--british.yaml"), "{}", r.stdout);
}

#[test]
fn an_inbox_copy_left_by_a_killed_resolve_is_removed_by_the_next_and_nothing_else() {
    let dir = temp();
    let d = dir.path();
    game(d);
    let write = |name: &str, text: String| fs::write(d.join(name), text).unwrap();
    write("f.yaml", orders(16, "allies-movement", "french", "moves: []\n"));
    write("a.yaml", orders(16, "allies-movement", "american", "moves: []\n"));
    run(d, &["submit", "--dir", "g", "f.yaml"]).ok();
    run(d, &["submit", "--dir", "g", "a.yaml"]).ok();
    run(d, &["resolve", "--dir", "g"]).ok();
    // As if resolve had been killed after its journal entry, before it
    // removed the inbox's copies: the French copy is back in the inbox...
    let left = d.join("g/inbox/16-allies-movement--french.yaml");
    fs::copy(d.join("f.yaml"), &left).unwrap();
    // ...beside a stale file that no step used (a different body).
    let stale = d.join("g/inbox/16-allies-movement--american.yaml");
    fs::write(&stale, orders(16, "allies-movement", "american", "moves: []  # too late\n")).unwrap();
    run(d, &["resolve", "--dir", "g"]).ok();
    assert!(!left.exists(), "the copy already in orders/ is removed");
    assert!(stale.exists(), "a file no step used is never removed silently");
    // verify names it: a file for a step already resolved is not the inbox's.
    let out = run(d, &["verify", "--dir", "g"]).exits(1);
    assert!(out.contains("inbox/16-allies-movement--american.yaml (its step is resolved already"), "{out}");
    fs::remove_file(&stale).unwrap();
    run(d, &["verify", "--dir", "g"]).ok();
}

#[test]
fn the_french_mortar_orders_may_be_sent_ahead_for_their_own_fire_phase() {
    // Savannah 3 IX, 4.12: the mortars fire in their own player's Defensive
    // Artillery Fire Phase, which otherwise hears from the other side.
    let dir = temp();
    let d = dir.path();
    game(d);
    let write = |name: &str, text: String| fs::write(d.join(name), text).unwrap();
    write("m.yaml", orders(17, "allies-defensive-artillery-fire", "french", "fire: []\n"));
    let out = run(d, &["submit", "--dir", "g", "m.yaml"]).ok();
    assert!(out.contains("sent ahead"), "{out}");
    // A side without a mortar still may not.
    write("x.yaml", orders(17, "allies-defensive-artillery-fire", "american", "fire: []\n"));
    let err = run(d, &["submit", "--dir", "g", "x.yaml"]).fails(1);
    assert!(err.contains("not from american"), "{err}");
}
