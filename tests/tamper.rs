//! What `verify` must not miss (issue 11): a file the folder should not
//! hold, a player's address changed by hand, and the last steps cut back
//! together with their orders, reports and state (caught against the
//! journal head a player kept from a report).

mod common;
use common::*;

use std::fs;
use std::path::Path;

/// A Historical game `dir/g` with turn 16's opening played (three resolves,
/// three dispatches, rolls and a close combat).
fn played() -> tempfile::TempDir {
    let dir = temp();
    new_historical_game(dir.path());
    known_dice(&dir.path().join("g"));
    play_turn_16_opening(dir.path());
    dir
}

fn verify(g: &Path, extra: &[&str]) -> (i32, String, serde_json::Value) {
    let mut args = vec!["verify", "--dir", g.to_str().unwrap()];
    args.extend(extra);
    let text = run(g, &args);
    let code = text.code;
    let out = text.stdout + &text.stderr;
    args.extend(["--format", "json"]);
    let json = run(g, &args).json();
    (code, out, json)
}

fn failure(json: &serde_json::Value) -> (String, String, String) {
    let f = &json["failure"];
    (
        f["entry"].as_str().unwrap_or_default().to_string(),
        f["check"].as_str().unwrap_or_default().to_string(),
        f["message"].as_str().unwrap_or_default().to_string(),
    )
}

#[test]
fn a_stray_orders_or_inbox_file_is_named() {
    let dir = played();
    let g = dir.path().join("g");
    assert_eq!(verify(&g, &[]).0, 0);

    // An orders file no journal entry records, beside the recorded ones.
    let recorded = fs::read(g.join("orders/000002-french.yaml")).unwrap();
    fs::write(g.join("orders/000003-american.yaml"), &recorded).unwrap();
    let (code, out, json) = verify(&g, &[]);
    assert_eq!(code, 1, "{out}");
    let (entry, check, message) = failure(&json);
    assert_eq!((entry.as_str(), check.as_str()), ("orders/000003-american.yaml", "files"), "{message}");
    assert!(message.contains("no journal entry records it"), "{message}");
    fs::remove_file(g.join("orders/000003-american.yaml")).unwrap();

    // An inbox file for a step already resolved (not the file the step
    // used: an exact copy of that is what a killed resolve leaves, and the
    // next command removes it), and one that names no step.
    fs::create_dir_all(g.join("inbox")).unwrap();
    let mut other = recorded.clone();
    other.extend_from_slice(b"# sent late\n");
    fs::write(g.join("inbox/16-allies-movement--french.yaml"), &other).unwrap();
    fs::write(g.join("inbox/notes.txt"), "hello").unwrap();
    let (code, out, json) = verify(&g, &[]);
    assert_eq!(code, 1, "{out}");
    let (_, check, message) = failure(&json);
    assert_eq!(check, "files");
    assert!(message.contains("inbox/16-allies-movement--french.yaml (its step is resolved already"), "{message}");
    assert!(message.contains("inbox/notes.txt"), "every unexpected file is named: {message}");

    // A file for a step still to come is what submit keeps: expected.
    fs::remove_file(g.join("inbox/notes.txt")).unwrap();
    fs::remove_file(g.join("inbox/16-allies-movement--french.yaml")).unwrap();
    fs::write(g.join("inbox/17-initiative--british.yaml"), "game: club-7\n").unwrap();
    assert_eq!(verify(&g, &[]).0, 0);

    // A file or folder of its own at the folder's root.
    fs::write(g.join("notes.txt"), "x").unwrap();
    fs::create_dir(g.join("backup")).unwrap();
    let (code, _, json) = verify(&g, &[]);
    assert_eq!(code, 1);
    let (_, _, message) = failure(&json);
    assert!(message.contains("notes.txt") && message.contains("backup/"), "{message}");
}

#[test]
fn a_players_address_changed_by_hand_is_named_and_adjutant_player_records_a_change() {
    let dir = played();
    let g = dir.path().join("g");
    let config = fs::read_to_string(g.join("game.yaml")).unwrap();
    let last = verify(&g, &[]).2["head"]["step"].as_u64().unwrap();

    // By hand: caught.
    fs::write(g.join("game.yaml"), config.replace("ann@example.org", "mallory@example.net")).unwrap();
    let (code, out, json) = verify(&g, &[]);
    assert_eq!(code, 1, "{out}");
    let (entry, check, message) = failure(&json);
    assert_eq!((entry.as_str(), check.as_str()), ("game.yaml", "players"), "{message}");
    assert!(message.contains(&format!("journal/{last:06}.yaml")) && message.contains("adjutant player"), "{message}");
    // A name too.
    fs::write(g.join("game.yaml"), config.replace("Ann Prevost", "Ann P.")).unwrap();
    assert_eq!(verify(&g, &[]).0, 1);

    // Through `adjutant player`: recorded, and every stored report still
    // renders as it was written (their players are those of their steps).
    fs::write(g.join("game.yaml"), &config).unwrap();
    let changed = run(&g, &["player", "--dir", ".", "british=Ann Prevost <ann@new.example.org>"]).ok();
    assert!(changed.contains("ann@new.example.org") && changed.contains(&format!("after step {last}")), "{changed}");
    let (code, out, _) = verify(&g, &[]);
    assert_eq!(code, 0, "{out}");
    let again = run(&g, &["player", "--dir", ".", "british=Ann Prevost <ann@new.example.org>"]);
    assert!(again.fails(1).contains("already the player"));

    // The next step binds the new player; a hand edit after it is caught,
    // and so is a change whose record was removed.
    let status = run(&g, &["status", "--dir", ".", "--format", "json"]).json();
    for side in status["awaiting"].as_array().unwrap() {
        let side = side.as_str().unwrap();
        let orders = run(&g, &["template", "--dir", ".", "--side", side]).ok();
        let file = dir.path().join(format!("{side}.yaml"));
        fs::write(&file, orders).unwrap();
        run(dir.path(), &["submit", "--dir", "g", file.to_str().unwrap()]).ok();
    }
    run(dir.path(), &["resolve", "--dir", "g"]).ok();
    let (code, out, json) = verify(&g, &[]);
    assert_eq!(code, 0, "{out}");
    assert!(json["head"]["step"].as_u64().unwrap() > last, "a step was resolved with the new player");
    let now = fs::read_to_string(g.join("game.yaml")).unwrap();
    let start = now.find("player_changes:").expect("the change is recorded");
    fs::write(g.join("game.yaml"), &now[..start]).unwrap();
    let (code, _, json) = verify(&g, &[]);
    assert_eq!(code, 1);
    assert_eq!(failure(&json).1, "players");
}

#[test]
fn steps_cut_back_together_are_caught_by_the_head_a_player_kept() {
    let dir = temp();
    new_historical_game(dir.path());
    let g = dir.path().join("g");
    known_dice(&g);
    let opening = play_turn_16_opening(dir.path());
    assert!(opening.len() == 3);

    // The head each report carries is the journal's at its last step, and
    // verify prints today's.
    let (code, out, json) = verify(&g, &[]);
    assert_eq!(code, 0, "{out}");
    let head = json["head"]["sha256"].as_str().unwrap().to_string();
    let step = json["head"]["step"].as_u64().unwrap();
    assert!(out.contains(&format!("journal head: step {step}, {head}")), "{out}");
    let dispatches: Vec<String> = fs::read_dir(g.join("reports"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let last = dispatches.iter().max().unwrap();
    let report = fs::read_to_string(g.join("reports").join(last).join("british.txt")).unwrap();
    assert!(report.contains(&format!("\njournal head: {head}\n  (after step {step}; keep it")), "{report}");
    let json_report: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(g.join("reports").join(last).join("french.json")).unwrap()).unwrap();
    assert_eq!(json_report["journal_head"]["sha256"], head.as_str());

    // The referee cuts the last dispatch's steps back: journal entries,
    // orders, reports and state together. The cut folder is exactly a game
    // that stopped before them (the same game id and dice): it verifies.
    let cut = temp();
    new_historical_game(cut.path());
    let c = cut.path().join("g");
    known_dice(&c);
    for (i, files) in [["f.yaml", "a.yaml"], ["m.yaml", "m.yaml"]].iter().enumerate() {
        let mut args = vec!["resolve".to_string(), "--dir".into(), c.display().to_string()];
        let mut given: Vec<String> = files.iter().map(|f| dir.path().join(f).display().to_string()).collect();
        given.dedup();
        args.extend(given);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert!(run(cut.path(), &args).ok().contains("step"), "resolve {i}");
    }
    assert!(fs::read_dir(c.join("reports")).unwrap().count() == dispatches.len() - 1);
    let (code, out, json) = verify(&c, &[]);
    assert_eq!(code, 0, "a consistent cut verifies by itself: {out}");
    let cut_step = json["head"]["step"].as_u64().unwrap();
    assert!(cut_step < step);

    // The head the player kept catches it.
    let (code, out, json) = verify(&c, &["--head", &head]);
    assert_eq!(code, 1, "{out}");
    let (entry, check, message) = failure(&json);
    assert_eq!((entry.as_str(), check.as_str()), ("journal", "head"), "{message}");
    assert!(message.contains(&head) && message.contains(&format!("ends at step {cut_step}")), "{message}");
    // The untouched folder holds it, and an earlier head of it too.
    let (code, out, json) = verify(&g, &["--head", &head]);
    assert_eq!(code, 0, "{out}");
    assert_eq!(json["head_found_at"], step);
    let earlier = verify(&c, &[]).2["head"]["sha256"].as_str().unwrap().to_string();
    let (code, _, json) = verify(&g, &["--head", &earlier]);
    assert_eq!((code, json["head_found_at"].as_u64()), (0, Some(cut_step)));
    // A head that is not 64 hex digits is a usage error.
    assert_eq!(run(&g, &["verify", "--dir", ".", "--head", "xyz"]).code, 2);
}

#[test]
fn a_deleted_last_dispatch_is_named() {
    let dir = played();
    let g = dir.path().join("g");
    let mut names: Vec<String> = fs::read_dir(g.join("reports"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let last = names.last().unwrap().clone();
    fs::remove_dir_all(g.join("reports").join(&last)).unwrap();
    let (code, out, json) = verify(&g, &[]);
    assert_eq!(code, 1, "{out}");
    let (entry, check, message) = failure(&json);
    assert_eq!((entry.as_str(), check.as_str()), (format!("reports/{last}").as_str(), "reports"), "{message}");
    let (first, end) = last.split_once('-').unwrap();
    let (first, end): (u32, u32) = (first.parse().unwrap(), end.parse().unwrap());
    let steps = if first == end {
        format!("step {first} has no reports")
    } else {
        format!("steps {first}-{end} have no reports")
    };
    assert!(message.contains(&steps) && message.contains("was the dispatch deleted?"), "{message}");
}
