//! The verifiable dice roller end to end: `roll init`, `roll`, `verify`, and
//! what `verify` catches; `new`; and the secret chain top never leaking.

mod common;
use common::*;

use std::fs;
use std::path::Path;

/// A roll log with four steps; returns the folder.
fn log_with_steps(base: &Path) -> std::path::PathBuf {
    run(base, &["roll", "init", "--dir", "log", "--game-id", "club-game-7"]).ok();
    run(base, &["roll", "3d10", "--purpose", "to-hit, Fraser's at 1404", "--dir", "log"]).ok();
    run(base, &["roll", "1d6", "2d100", "--purpose", "weather and events, turn 3", "--dir", "log"]).ok();
    run(base, &["roll", "d10", "--purpose", "surrender die roll (Savannah 2.1)", "--dir", "log"]).ok();
    run(base, &["roll", "2d10", "--purpose", "initiative: \"quoted\" & unicode — é", "--dir", "log"]).ok();
    base.join("log")
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn roll_prints_the_rolls_and_the_revealed_key_and_verify_passes() {
    let dir = temp();
    let init = run(dir.path(), &["roll", "init", "--dir", "log", "--format", "json"]).json();
    let anchor = init["anchor"].as_str().unwrap().to_string();
    assert_eq!(init["game_id"], "log");
    let rolled = run(dir.path(), &["roll", "3d10", "--purpose", "to-hit", "--dir", "log", "--format", "json"]).json();
    assert_eq!(rolled["step"], 1);
    assert_eq!(rolled["values"].as_array().unwrap().len(), 3);
    assert_eq!(rolled["anchor"], anchor.as_str());
    // The revealed key hashes to the anchor (DICE.md §2), checked with the primitives.
    let key = rolled["key"].as_str().unwrap();
    let chain = run(dir.path(), &["dice", "chain", "--top", key, "--length", "1"]).ok();
    assert_eq!(chain.lines().next().unwrap(), format!("0 {anchor}"));
    // ...and the rolls recompute from the printed seed.
    let seed = rolled["seed"].as_str().unwrap();
    let values: Vec<String> = rolled["values"].as_array().unwrap().iter().map(|v| v.to_string()).collect();
    assert_eq!(run(dir.path(), &["dice", "rolls", "--seed", seed, "d10", "3"]).ok(), format!("{}\n", values.join(" ")));
    let text = run(dir.path(), &["roll", "2d6", "--purpose", "morale check", "--dir", "log"]).ok();
    assert!(text.starts_with("step 2 · 2d6 · morale check\n"), "{text}");
    assert!(text.contains("  key ") && text.contains("journal/000002.yaml"), "{text}");
    let verified = run(dir.path(), &["verify", "--dir", "log"]).ok();
    assert!(verified.starts_with("verified log: 2 steps and 5 rolls"), "{verified}");
    let json = run(dir.path(), &["verify", "--dir", "log", "--format", "json"]).json();
    assert_eq!((json["ok"].as_bool(), json["steps"].as_u64(), json["failure"].is_null()), (Some(true), Some(2), true));
}

/// An edit of one journal file, and the step whose entry must be named.
struct Tamper {
    what: &'static str,
    step: u32,
    edit: fn(&str) -> String,
}

fn replace_line(text: &str, starts: &str, new_line: &str) -> String {
    let mut done = false;
    text.lines()
        .map(|l| {
            if !done && l.trim_start().starts_with(starts) {
                done = true;
                let indent = &l[..l.len() - l.trim_start().len()];
                format!("{indent}{new_line}\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect()
}

fn bump_value(text: &str) -> String {
    let line = text.lines().find(|l| l.trim_start().starts_with("value: ")).unwrap();
    let v: u32 = line.trim_start()["value: ".len()..].parse().unwrap();
    replace_line(text, "value: ", &format!("value: {}", if v == 9 { 8 } else { v + 1 }))
}

fn flip_hex(text: &str, field: &str) -> String {
    let line = text.lines().find(|l| l.trim_start().starts_with(field)).unwrap();
    let value = line.trim_start()[field.len()..].to_string();
    let first = if value.starts_with('0') { '1' } else { '0' };
    replace_line(text, field, &format!("{field}{first}{}", &value[1..]))
}

#[test]
fn any_change_to_an_entry_fails_verify_naming_it() {
    let dir = temp();
    let log = log_with_steps(dir.path());
    run(dir.path(), &["verify", "--dir", "log"]).ok();
    let tampers = [
        Tamper { what: "a value", step: 2, edit: bump_value },
        Tamper { what: "the last entry's value", step: 4, edit: bump_value },
        Tamper { what: "the revealed key", step: 1, edit: |t| flip_hex(t, "key: ") },
        Tamper { what: "the seed", step: 3, edit: |t| flip_hex(t, "seed: ") },
        Tamper { what: "the orders digest", step: 2, edit: |t| flip_hex(t, "orders_digest: ") },
        Tamper { what: "the orders hash", step: 2, edit: |t| flip_hex(t, "sha256: ") },
        Tamper { what: "the previous-entry hash", step: 3, edit: |t| flip_hex(t, "previous: ") },
        Tamper {
            what: "a roll's purpose",
            step: 4,
            edit: |t| t.replacen("purpose: 'initiative", "purpose: 'Initiative", 1),
        },
        Tamper {
            what: "the orders text",
            step: 1,
            edit: |t| t.replacen("text: to-hit, Fraser's at 1404", "text: to-hit, Fraser's at 1405", 1),
        },
        Tamper { what: "the step number", step: 2, edit: |t| replace_line(t, "step: ", "step: 3") },
        Tamper { what: "a roll index", step: 2, edit: |t| replace_line(t, "- index: 1", "- index: 2") },
        Tamper { what: "a die", step: 3, edit: |t| replace_line(t, "die: d10", "die: d6") },
        Tamper { what: "the dice asked for", step: 1, edit: |t| replace_line(t, "- 3d10", "- 2d10") },
        Tamper {
            what: "a roll removed",
            step: 4,
            edit: |t| {
                let cut = t.rfind("- index: 1").unwrap();
                t[..cut].to_string()
            },
        },
        Tamper { what: "a comment added", step: 4, edit: |t| format!("{t}# nothing to see\n") },
        Tamper {
            what: "upper-case hex",
            step: 4,
            edit: |t| {
                let line = t.lines().find(|l| l.starts_with("seed: ")).unwrap();
                t.replacen(line, &line.to_uppercase().replacen("SEED", "seed", 1), 1)
            },
        },
    ];
    for (n, tamper) in tampers.iter().enumerate() {
        let copy = dir.path().join(format!("copy-{n}"));
        copy_dir(&log, &copy);
        let entry = copy.join(format!("journal/{:06}.yaml", tamper.step));
        let text = fs::read_to_string(&entry).unwrap();
        let edited = (tamper.edit)(&text);
        assert_ne!(edited, text, "{}: the edit changed nothing", tamper.what);
        fs::write(&entry, edited).unwrap();
        let result = run(dir.path(), &["verify", "--dir", copy.to_str().unwrap()]);
        assert_eq!(result.code, 1, "{}: verify passed:\n{}", tamper.what, result.stdout);
        let label = format!("journal/{:06}.yaml", tamper.step);
        assert!(
            result.stdout.contains("FAILED") && result.stdout.contains(&label),
            "{}: {}",
            tamper.what,
            result.stdout
        );
        let json = run(dir.path(), &["verify", "--dir", copy.to_str().unwrap(), "--format", "json"]).json();
        assert_eq!(json["failure"]["entry"], label.as_str(), "{}", tamper.what);
    }
}

/// Every single-byte change of every entry, through the library: no byte of
/// the log can change unnoticed.
#[test]
fn every_single_byte_change_is_caught() {
    let dir = temp();
    let log = log_with_steps(dir.path());
    for step in 1..=4u32 {
        let entry = log.join(format!("journal/{step:06}.yaml"));
        let original = fs::read(&entry).unwrap();
        for i in 0..original.len() {
            for mask in [0x01u8, 0x20] {
                let mut bytes = original.clone();
                bytes[i] ^= mask;
                fs::write(&entry, &bytes).unwrap();
                let verdict = adjutant::game::verify::verify(&log).unwrap();
                let failure = verdict.failure.unwrap_or_else(|| {
                    panic!("step {step}: byte {i} ^ {mask:#x} went unnoticed: {}", String::from_utf8_lossy(&bytes))
                });
                // A changed entry is named, or the one after it (whose hash link breaks).
                let named = [format!("journal/{step:06}.yaml"), format!("journal/{:06}.yaml", step + 1)];
                assert!(named.contains(&failure.entry), "step {step} byte {i}: {failure:?}");
            }
        }
        fs::write(&entry, &original).unwrap();
    }
    assert!(adjutant::game::verify::verify(&log).unwrap().ok);
}

#[test]
fn missing_reordered_or_foreign_entries_fail() {
    let dir = temp();
    let log = log_with_steps(dir.path());
    let case = |name: &str, edit: &dyn Fn(&Path)| -> String {
        let copy = dir.path().join(name);
        copy_dir(&log, &copy);
        edit(&copy);
        run(dir.path(), &["verify", "--dir", copy.to_str().unwrap()]).fails(1);
        run(dir.path(), &["verify", "--dir", copy.to_str().unwrap()]).stdout
    };
    let out = case("gap", &|d| fs::remove_file(d.join("journal/000002.yaml")).unwrap());
    assert!(out.contains("journal/000003.yaml") && out.contains("step 2 is missing"), "{out}");
    let out = case("swap", &|d| {
        fs::rename(d.join("journal/000002.yaml"), d.join("x")).unwrap();
        fs::rename(d.join("journal/000003.yaml"), d.join("journal/000002.yaml")).unwrap();
        fs::rename(d.join("x"), d.join("journal/000003.yaml")).unwrap();
    });
    assert!(out.contains("journal/000002.yaml"), "{out}");
    let out = case("foreign", &|d| fs::write(d.join("journal/notes.txt"), "hi").unwrap());
    assert!(out.contains("journal/notes.txt"), "{out}");
    let out = case("anchor", &|d| {
        let text = fs::read_to_string(d.join("game.yaml")).unwrap();
        let line = text.lines().find(|l| l.trim_start().starts_with("anchor: ")).unwrap().to_string();
        let flipped = line.replacen("anchor: ", "anchor: f", 1);
        let flipped = format!("{}{}", &flipped[..flipped.len() - 1], "");
        fs::write(d.join("game.yaml"), text.replacen(&line, &flipped, 1)).unwrap();
    });
    assert!(out.contains("journal/000001.yaml") && out.contains("anchor"), "{out}");
    // A roll on a damaged log is refused and adds nothing.
    let gap = dir.path().join("gap");
    let before = all_files(&gap);
    run(dir.path(), &["roll", "d6", "--purpose", "x", "--dir", gap.to_str().unwrap()]).fails(1);
    assert_eq!(all_files(&gap).len(), before.len());
}

#[test]
fn a_corrupt_game_yaml_or_secret_gets_one_line() {
    let dir = temp();
    let log = log_with_steps(dir.path());
    let game = fs::read_to_string(log.join("game.yaml")).unwrap();
    fs::write(log.join("game.yaml"), game.replace("chain_length: 4096", "chain_length: [4096")).unwrap();
    let err = run(dir.path(), &["verify", "--dir", "log"]).fails(2);
    assert!(err.starts_with("error: log/game.yaml:") && err.lines().count() == 1, "{err}");
    fs::write(log.join("game.yaml"), game.replace("kind: roll-log", "kind: chess")).unwrap();
    let err = run(dir.path(), &["roll", "d6", "--purpose", "x", "--dir", "log"]).fails(2);
    assert!(err.contains("kind") && err.contains("roll-log"), "{err}");
    fs::write(log.join("game.yaml"), &game).unwrap();
    fs::write(log.join(".secret/chain-top"), "not a key").unwrap();
    let err = run(dir.path(), &["roll", "d6", "--purpose", "x", "--dir", "log"]).fails(2);
    assert!(err.contains(".secret/chain-top") && err.contains("not a chain top"), "{err}");
    fs::remove_dir_all(log.join(".secret")).unwrap();
    let err = run(dir.path(), &["roll", "d6", "--purpose", "x", "--dir", "log"]).fails(2);
    assert!(err.contains("chain-top: not found"), "{err}");
    // verify needs no secret.
    run(dir.path(), &["verify", "--dir", "log"]).ok();
}

#[test]
fn bad_purposes_and_dice_change_nothing() {
    let dir = temp();
    run(dir.path(), &["roll", "init", "--dir", "log"]).ok();
    let before = all_files(&dir.path().join("log"));
    for args in [
        &["roll", "3d10", "--purpose", "", "--dir", "log"][..],
        &["roll", "3d10", "--purpose", "two\nlines", "--dir", "log"],
        &["roll", "0d10", "--purpose", "x", "--dir", "log"],
        &["roll", "3d7", "--purpose", "x", "--dir", "log"],
        &["roll", "3d10", "--dir", "log"],
    ] {
        let result = run(dir.path(), args);
        assert_eq!(result.code, 2, "{args:?}: {}", result.stderr);
        assert!(!result.stderr.contains("panicked"));
    }
    assert_eq!(all_files(&dir.path().join("log")), before);
    let long = "x".repeat(501);
    run(dir.path(), &["roll", "d6", "--purpose", &long, "--dir", "log"]).fails(2);
    // Roll init refuses a folder in use.
    fs::write(dir.path().join("log/extra"), "x").unwrap();
    run(dir.path(), &["roll", "init", "--dir", "log"]).fails(2);
    run(dir.path(), &["roll", "init", "--dir", "bad id"]).fails(2);
    run(dir.path(), &["roll", "init", "--dir", "short", "--chain-length", "1"]).fails(2);
}

#[test]
fn the_chain_top_never_leaves_the_secret_folder() {
    let dir = temp();
    let mut printed = String::new();
    let mut keep = |r: Run| {
        printed.push_str(&r.stdout);
        printed.push_str(&r.stderr);
    };
    // A short chain, used up: the last step it allows reveals s_{N-1}, never s_N.
    keep(run(dir.path(), &["roll", "init", "--dir", "log", "--chain-length", "4"]));
    for i in 0..3 {
        keep(run(dir.path(), &["roll", "2d10", "--purpose", &format!("roll {i}"), "--dir", "log", "--format", "json"]));
    }
    let exhausted = run(dir.path(), &["roll", "d10", "--purpose", "one too many", "--dir", "log"]);
    assert_eq!(exhausted.code, 1, "{}", exhausted.stderr);
    assert!(exhausted.stderr.contains("roll init"), "{}", exhausted.stderr);
    keep(exhausted);
    keep(run(dir.path(), &["verify", "--dir", "log"]));
    keep(run(dir.path(), &["verify", "--dir", "log", "--format", "json"]));
    keep(run(dir.path(), &["new", "savannah-1779", "--scenario", "historical", "--dir", "game", "--format", "json"]));
    keep(run(dir.path(), &["new", "savannah-1779", "--scenario", "historical", "--dir", "game"]));

    let log_top = fs::read_to_string(dir.path().join("log/.secret/chain-top")).unwrap().trim().to_string();
    let game_top = fs::read_to_string(dir.path().join("game/.secret/chain-top")).unwrap().trim().to_string();
    for top in [&log_top, &game_top] {
        assert_eq!(top.len(), 64);
        let raw: Vec<u8> = (0..32).map(|i| u8::from_str_radix(&top[2 * i..2 * i + 2], 16).unwrap()).collect();
        assert!(!printed.contains(top.as_str()) && !printed.contains(&top.to_uppercase()), "printed a chain top");
        for (path, bytes) in all_files(dir.path()) {
            if path.components().any(|c| c.as_os_str() == ".secret") {
                continue;
            }
            let text = String::from_utf8_lossy(&bytes).to_lowercase();
            assert!(!text.contains(top.as_str()), "{} holds a chain top", path.display());
            assert!(memchr::memmem::find(&bytes, &raw).is_none(), "{} holds a chain top's bytes", path.display());
        }
    }
    // The secret folder is private.
    use std::os::unix::fs::PermissionsExt;
    let mode = fs::metadata(dir.path().join("game/.secret/chain-top")).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
}

#[test]
fn new_makes_a_game_folder() {
    let dir = temp();
    let out = run(
        dir.path(),
        &[
            "new",
            "savannah-1779",
            "--scenario",
            "historical",
            "--dir",
            "savannah",
            "--player",
            "british=Ann Smith <ann@example.org>",
            "--player",
            "french=Bob <bob@example.org>",
        ],
    )
    .ok();
    assert!(out.contains("Created game savannah") && out.contains("anchor "), "{out}");
    let game = dir.path().join("savannah");
    for sub in ["journal", "orders", "reports", ".secret"] {
        assert!(game.join(sub).is_dir(), "{sub}");
    }
    assert_eq!(fs::read_dir(game.join("journal")).unwrap().count(), 0);
    let yaml = fs::read_to_string(game.join("game.yaml")).unwrap();
    assert!(yaml.contains("module: savannah-1779") && yaml.contains("email: ann@example.org"), "{yaml}");
    let verified = run(dir.path(), &["verify", "--dir", "savannah"]).ok();
    assert!(verified.contains("0 steps"), "{verified}");
    // The engine rolls a game's dice, not `roll`.
    let err = run(dir.path(), &["roll", "d6", "--purpose", "x", "--dir", "savannah"]).fails(2);
    assert!(err.contains("roll init"), "{err}");
    // A second `new` on the same folder changes nothing.
    let before = all_files(&game);
    run(dir.path(), &["new", "savannah-1779", "--scenario", "campaign", "--dir", "savannah"]).fails(2);
    assert_eq!(all_files(&game), before);
    // No temporary folder is left beside it.
    let names: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, vec![std::ffi::OsString::from("savannah")]);
}
