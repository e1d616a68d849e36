//! A referee's correction on the record (issue 17, `adjutant correct`,
//! docs/DICE.md A10): a game goes back to before a step resolved from the
//! wrong orders, as a journal entry that says why; the steps are resolved
//! again with keys never revealed before; verify (and the Python
//! reference) replay the whole history, the corrected steps included.

mod common;

use common::*;
use std::collections::BTreeSet;

fn journal_keys(game: &std::path::Path) -> Vec<String> {
    let mut names: Vec<_> = std::fs::read_dir(game.join("journal")).unwrap().map(|e| e.unwrap().path()).collect();
    names.sort();
    names
        .iter()
        .map(|p| {
            let text = std::fs::read_to_string(p).unwrap();
            text.lines().find_map(|l| l.strip_prefix("key: ")).unwrap().to_string()
        })
        .collect()
}

#[test]
fn a_correction_in_the_middle_of_a_game_is_verified_and_keeps_the_corrected_steps() {
    let dir = temp();
    let d = dir.path();
    // The demo game, played whole (29 steps).
    run(d, &["demo", "--keep", "."]).ok();
    let g = d.join("savannah");
    let rewound: Vec<Vec<u8>> =
        (27..=29).map(|n| std::fs::read(g.join(format!("journal/{n:06}.yaml"))).unwrap()).collect();

    // Refusals first: each changes nothing.
    let before = all_files(&g);
    let said = run(d, &["correct", "--dir", "savannah", "--from", "30", "--why", "x"]).fails(2);
    assert!(said.contains("--from 30: give the first journal step that no longer stands, 1 to 29"), "{said}");
    let said = run(d, &["correct", "--dir", "savannah", "--from", "0", "--why", "x"]).fails(2);
    assert!(said.contains("--from 0: give the first journal step"), "{said}");
    let said = run(d, &["correct", "--dir", "savannah", "--from", "27", "--why", " "]).fails(2);
    assert!(said.contains("--why: say why in one line of 1 to 500 characters, with no control character"), "{said}");
    let said = run(d, &["correct", "--dir", "savannah", "--from", "27", "--why", "a\u{1b}[2Jb"]).fails(2);
    assert!(said.contains("--why: say why"), "{said}");
    assert_eq!(all_files(&g), before, "a refused correction changes nothing");

    // The British rally of turn 18 (step 27) was resolved from the wrong file.
    let why = "I stored the British orders of turn 17, not 18";
    let out = run(d, &["correct", "--dir", "savannah", "--from", "27", "--why", why]).ok();
    assert!(out.contains("step 30 · correction"), "{out}");
    assert!(out.contains(&format!(
        "The referee corrects the game: it goes back to the state after journal step 26, 18-british-movement; \
         journal steps 27 to 29 no longer stand (they stay in the journal). Why: {why}"
    )));
    assert!(out.contains("next: 18-british-rally"), "{out}");
    // The corrected steps stay in the journal, byte for byte, with their orders.
    for (n, bytes) in (27..=29).zip(&rewound) {
        assert_eq!(&std::fs::read(g.join(format!("journal/{n:06}.yaml"))).unwrap(), bytes);
    }
    assert!(g.join("orders/000029-british.yaml").is_file());
    let entry = std::fs::read_to_string(g.join("journal/000030.yaml")).unwrap();
    assert!(entry.contains(&format!("correction:\n  rewinds_to: 26\n  why: {why}\n")), "{entry}");
    assert!(entry.contains("orders: []") && entry.contains("rolls: []"), "{entry}");
    // Every side's report says it.
    for side in ["british", "french", "american"] {
        let report = std::fs::read_to_string(g.join(format!("reports/000030-000030/{side}.txt"))).unwrap();
        // The text report wraps its lines at 78 columns (issue 16).
        let unwrapped = report.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(report.contains("== Step 30: correction ==") && unwrapped.contains(why), "{report}");
    }
    let status = run(d, &["status", "--dir", "savannah", "--format", "json"]).json();
    assert_eq!(status["step"], "18-british-rally");
    assert!(run(d, &["verify", "--dir", "savannah"]).ok().contains("verified savannah: 30 steps"));

    // Play on: the rally (no orders), then the close combat from the demo's
    // files again. Its dice come from keys never revealed before.
    run(d, &["resolve", "--dir", "savannah"]).ok();
    let status = run(d, &["status", "--dir", "savannah", "--format", "json"]).json();
    let step = status["step"].as_str().unwrap().to_string();
    for side in status["awaiting"].as_array().unwrap() {
        let side = side.as_str().unwrap();
        let file = demo_orders(&format!("{step}--{side}"));
        let file = file.display().to_string();
        run(d, &["submit", "--dir", "savannah", &file]).ok();
    }
    // Orders in the inbox for a step the correction undid are awaited, not stray.
    let verdict = run(d, &["verify", "--dir", "savannah"]).ok();
    assert!(verdict.starts_with("verified savannah: "), "{verdict}");
    run(d, &["resolve", "--dir", "savannah"]).ok();
    let keys = journal_keys(&g);
    assert!(keys.len() >= 32, "{keys:?}");
    assert_eq!(keys.iter().collect::<BTreeSet<_>>().len(), keys.len(), "every entry reveals its own key");
    let verdict = run(d, &["verify", "--dir", "savannah", "--format", "json"]).json();
    assert_eq!(verdict["ok"], true, "{verdict}");

    // The Python reference recomputes every key, seed and roll.
    let python = std::process::Command::new("python3")
        .arg(repo_root().join("tests/reference/dice_ref.py"))
        .args(["--verify-folder", &g.display().to_string()])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&python.stdout);
    assert!(python.status.success() && said.starts_with(&format!("ok {} steps", keys.len())), "{said}");

    // A correction's record is checked on replay: its state must be the one
    // it goes back to (a forged rewinds_to fails, whatever the hash chain).
    let forged = entry.replace("rewinds_to: 26", "rewinds_to: 25");
    std::fs::write(g.join("journal/000030.yaml"), forged).unwrap();
    let verdict = run(d, &["verify", "--dir", "savannah"]).exits(1);
    assert!(verdict.contains("journal/000030.yaml"), "{verdict}");
}
