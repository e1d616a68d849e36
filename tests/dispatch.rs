//! Issue 6: `resolve` writes each side's report of the steps it resolved
//! into `reports/` (a dispatch per resolve: four formats per side and the
//! map), and `verify` renders them again from the journal: any byte changed
//! in a report (a roll, a line of the map) makes it exit 1 naming the file.

mod common;
use common::*;

use std::fs;
use std::path::{Path, PathBuf};

/// The three sides of the Savannah module.
const SIDES: [&str; 3] = ["american", "british", "french"];
const FORMATS: [&str; 4] = ["txt", "md", "html", "json"];

/// Turn 16's first steps of the Historical Scenario by three `resolve`
/// calls, with known dice; returns the temp dir (game in `g`) and what each
/// resolve printed.
fn played() -> (tempfile::TempDir, Vec<String>) {
    let dir = temp();
    let d = dir.path();
    new_historical_game(d);
    known_dice(&d.join("g"));
    let outs = play_turn_16_opening(d);
    (dir, outs)
}

/// The dispatch folders of `reports/`, sorted.
fn dispatches(game: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = fs::read_dir(game.join("reports")).unwrap().map(|e| e.unwrap().path()).collect();
    found.sort();
    found
}

fn range(dispatch: &Path) -> (u32, u32) {
    let name = dispatch.file_name().unwrap().to_string_lossy().into_owned();
    let (a, b) = name.split_once('-').unwrap();
    (a.parse().unwrap(), b.parse().unwrap())
}

#[test]
fn each_resolve_writes_every_sides_report_of_its_steps_in_four_formats_with_the_map() {
    let (dir, outs) = played();
    let g = dir.path().join("g");
    let found = dispatches(&g);
    // The set-up's (new_historical_game resolves it), then the opening's three.
    assert_eq!(found.len(), 4, "one dispatch per resolve that resolved steps: {found:?}");
    let journal = fs::read_dir(g.join("journal")).unwrap().count() as u32;
    let mut next = 1;
    for (n, dispatch) in found.iter().enumerate() {
        let (first, last) = range(dispatch);
        assert_eq!(first, next, "dispatches follow each other without gaps");
        next = last + 1;
        let name = dispatch.file_name().unwrap().to_string_lossy().into_owned();
        if n > 0 {
            assert!(outs[n - 1].contains(&format!("reports/{name}/")), "resolve names its dispatch:\n{}", outs[n - 1]);
        }
        let mut files: Vec<String> =
            fs::read_dir(dispatch).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        files.sort();
        let mut expected: Vec<String> =
            SIDES.iter().flat_map(|s| FORMATS.iter().map(move |f| format!("{s}.{f}"))).collect();
        expected.push("map.svg".into());
        expected.sort();
        assert_eq!(files, expected);
        // Each report is the side's, of exactly these steps.
        for side in SIDES {
            let json: serde_json::Value =
                serde_json::from_str(&fs::read_to_string(dispatch.join(format!("{side}.json"))).unwrap()).unwrap();
            assert_eq!(json["viewer"]["side"], side);
            let steps: Vec<u64> =
                json["steps"].as_array().unwrap().iter().map(|s| s["journal_step"].as_u64().unwrap()).collect();
            assert_eq!(steps, (first as u64..=last as u64).collect::<Vec<_>>());
            assert_eq!(json["standing"]["resolved_steps"], last, "the standing after the dispatch's last step");
            // Every roll of those steps, with its purpose, in the text report.
            let text = fs::read_to_string(dispatch.join(format!("{side}.txt"))).unwrap();
            for step in &json["steps"].as_array().unwrap()[..] {
                for roll in step["rolls"].as_array().unwrap() {
                    let purpose = roll["purpose"].as_str().unwrap();
                    assert!(text.contains(purpose), "{side}.txt lacks the roll for {purpose:?}");
                }
            }
            let html = fs::read_to_string(dispatch.join(format!("{side}.html"))).unwrap();
            assert!(html.contains("<img src=\"map.svg\""), "the HTML shows the dispatch's map");
        }
        let svg = fs::read_to_string(dispatch.join("map.svg")).unwrap();
        assert!(svg.contains("<svg") && svg.contains(&format!("after step {last}")), "the map after step {last}");
    }
    assert_eq!(next, journal + 1, "the dispatches cover the whole journal");
    // The mortar's dispatch has rolls; a French secret-free text still names them.
    let mortar = fs::read_to_string(found[2].join("british.txt")).unwrap();
    assert!(mortar.contains("scatter"), "{mortar}");
    let v = run(&g, &["verify", "--dir", "."]).ok();
    assert!(v.starts_with("verified"), "{v}");
}

#[test]
fn any_byte_changed_in_any_report_makes_verify_fail_naming_the_file() {
    let (dir, _) = played();
    let g = dir.path().join("g");
    let found = dispatches(&g);
    // A roll's value in the text report: the "Rolls" table's first row.
    let target = &found[2];
    let name = target.file_name().unwrap().to_string_lossy().into_owned();
    let text = fs::read_to_string(target.join("british.txt")).unwrap();
    let row = text.lines().find(|l| l.starts_with("| 0 | d10 |")).expect("a roll row in the mortar's dispatch");
    let value: u32 = row.split('|').nth(3).unwrap().trim().parse().unwrap();
    let forged_row = row.replacen(&format!("| {value:>5} |"), &format!("| {:>5} |", value % 10 + 1), 1);
    assert_ne!(row, forged_row);
    let t = dir.path().join("t");
    copy_dir(&g, &t);
    fs::write(t.join("reports").join(&name).join("british.txt"), text.replacen(row, &forged_row, 1)).unwrap();
    let out = run(&t, &["verify", "--dir", "."]).exits(1);
    assert!(out.contains(&format!("reports/{name}/british.txt")) && out.contains("line"), "{out}");

    // One byte of every file of a dispatch, in turn, in the middle of it.
    let files: Vec<PathBuf> = fs::read_dir(target).unwrap().map(|e| e.unwrap().path()).collect();
    for file in &files {
        let file_name = file.file_name().unwrap().to_string_lossy().into_owned();
        let t = dir.path().join(format!("t-{file_name}"));
        copy_dir(&g, &t);
        let path = t.join("reports").join(&name).join(&file_name);
        let mut bytes = fs::read(&path).unwrap();
        let i = bytes.len() / 2;
        bytes[i] = if bytes[i] == b'0' { b'1' } else { b'0' };
        fs::write(&path, bytes).unwrap();
        let out = run(&t, &["verify", "--dir", "."]).exits(1);
        assert!(out.contains(&format!("reports/{name}/{file_name}")), "{file_name}: {out}");
        fs::remove_dir_all(&t).unwrap();
    }

    // A report removed, a file added, a folder that is no dispatch.
    for (what, change) in [
        ("missing", Box::new(|t: &Path| fs::remove_file(t.join("french.md")).unwrap()) as Box<dyn Fn(&Path)>),
        ("not a file adjutant writes", Box::new(|t: &Path| fs::write(t.join("notes.txt"), "hi").unwrap())),
    ] {
        let t = dir.path().join("t2");
        copy_dir(&g, &t);
        change(&t.join("reports").join(&name));
        let out = run(&t, &["verify", "--dir", "."]).exits(1);
        assert!(out.contains(&format!("reports/{name}/")) && out.contains(what), "{out}");
        fs::remove_dir_all(&t).unwrap();
    }
}

#[test]
fn reports_a_killed_resolve_did_not_write_are_written_by_the_next() {
    let (dir, _) = played();
    let g = dir.path().join("g");
    let last = dispatches(&g).pop().unwrap();
    let (first, end) = range(&last);
    let before = all_files(&last);
    fs::remove_dir_all(&last).unwrap();
    // A dispatch deleted (nothing says its reports are to come) is named.
    let v = run(&g, &["verify", "--dir", "."]).exits(1);
    let name = last.strip_prefix(&g).unwrap().display().to_string();
    let steps = if first == end { format!("step {first} has") } else { format!("steps {first}-{end} have") };
    assert!(v.contains(&format!("{name}: reports check: missing: {steps} no reports")), "{v}");
    // As a resolve killed after its journal entries and before its
    // reports leaves it: the marker it wrote before its first entry. The
    // folder verifies and says what awaits...
    fs::write(g.join("reports/pending.yaml"), format!("first_step: {first}\n")).unwrap();
    let v = run(&g, &["verify", "--dir", "."]).ok();
    assert!(v.starts_with("verified"), "{v}");
    let steps =
        if first == end { format!("step {first} awaits its") } else { format!("steps {first}-{end} await their") };
    assert!(v.contains(&format!("{steps} reports: run `adjutant resolve`")), "{v}");
    // ...and the next resolve writes them, byte for byte as they were.
    let out = run(&g, &["resolve", "--dir", "."]).ok();
    assert!(out.contains("reports/"), "{out}");
    assert!(!g.join("reports/pending.yaml").exists(), "the marker goes once the reports are written");
    let after = all_files(&last);
    assert_eq!(before.len(), after.len());
    for ((p, a), (_, b)) in before.iter().zip(&after) {
        assert!(a == b, "{} differs after being rewritten", p.display());
    }
    assert!(!run(&g, &["verify", "--dir", "."]).ok().contains("await"));
}

#[test]
fn a_report_of_earlier_steps_shows_the_game_as_it_stood_after_them() {
    let (dir, _) = played();
    let g = dir.path().join("g");
    // Steps 2-3: the Allied movement and rally, after the British set-up.
    let json = run(&g, &["report", "--dir", ".", "--side", "french", "--steps", "2-3", "--format", "json"]).ok();
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["standing"]["resolved_steps"], 3);
    assert_eq!(json["standing"]["next_step"], "16-allies-defensive-artillery-fire");
    // The same as the dispatch that resolve wrote for those steps.
    let first = &dispatches(&g)[1];
    assert_eq!(range(first), (2, 3));
    let stored = fs::read_to_string(first.join("french.json")).unwrap();
    assert_eq!(serde_json::from_str::<serde_json::Value>(&stored).unwrap(), json);
    let html = run(&g, &["report", "--dir", ".", "--side", "french", "--steps", "2-3", "--as", "html"]).ok();
    assert!(html.contains("club-7, after step 3"), "the map is the one after step 3");
}

#[test]
fn a_broken_report_template_stops_resolve_before_anything_is_written() {
    let dir = temp();
    let d = dir.path();
    new_historical_game(d);
    let g = d.join("g");
    fs::create_dir(g.join("templates")).unwrap();
    fs::write(g.join("templates/report.txt.j2"), "{% for step in steps %}\n{{ step.journal_step }\n").unwrap();
    let head = "game: club-7\nturn: 16\nstep: allies-movement\n";
    fs::write(d.join("f.yaml"), format!("{head}side: french\nmoves: []\n")).unwrap();
    fs::write(d.join("a.yaml"), format!("{head}side: american\nmoves: []\n")).unwrap();
    let before = all_files(&g);
    let err = run(d, &["resolve", "--dir", "g", "f.yaml", "a.yaml"]).exits(2);
    assert!(err.contains("report.txt.j2"), "the template is named: {err}");
    assert!(all_files(&g) == before, "nothing was written");
    // `status` (whose dry run of resolve compiles a game's own templates,
    // and only those) names it too, and writes nothing either.
    let err = run(d, &["status", "--dir", "g"]).exits(2);
    assert!(err.contains("report.txt.j2"), "status names the template: {err}");
    assert!(all_files(&g) == before, "nothing was written");
}

/// `status` walks the dice chain down to the anchor like `resolve`, even
/// when no step is ready: a chain top that leads elsewhere stops the game,
/// and `status` names it before the next `resolve` fails on it.
#[test]
fn status_names_a_chain_top_that_does_not_lead_to_the_anchor() {
    let dir = temp();
    let d = dir.path();
    new_historical_game(d);
    let g = d.join("g");
    let path = g.join(".secret/chain-top");
    let top = fs::read_to_string(&path).unwrap();
    let first = top.chars().next().unwrap();
    let other = if first == '0' { '1' } else { '0' };
    fs::write(&path, format!("{other}{}", &top[1..])).unwrap();
    let before = all_files(&g);
    let err = run(d, &["status", "--dir", "g"]).exits(2);
    assert!(err.contains(".secret/chain-top") && err.contains("anchor"), "status names the chain top: {err}");
    assert!(all_files(&g) == before, "nothing was written");
}

#[test]
fn mail_sends_each_dispatch_once_to_each_player_and_a_dry_run_changes_nothing() {
    let (dir, _) = played();
    let g = dir.path().join("g");
    // No settings: a precise error, nothing written.
    let before = all_files(&g);
    let err = run(&g, &["mail", "--dir", "."]).fails(2);
    assert!(err.contains("mail:") && err.contains("--transport"), "{err}");
    // The messages go beside the game folder: verify names any folder in it
    // that game.yaml does not give.
    let folder = ["--transport", "folder", "--from", "Referee <referee@example.org>", "--folder", "../outbox"];
    let mut args = vec!["mail", "--dir", ".", "--dry-run"];
    args.extend(folder);
    let dry = run(&g, &args).ok();
    assert_eq!(dry.matches("would send:").count(), 12, "4 dispatches x 3 players:\n{dry}");
    assert!(all_files(&g) == before, "a dry run writes nothing");
    let not_mailed = |g: &Path| run(g, &["status", "--dir", ".", "--format", "json"]).json()["not_mailed"].clone();
    assert_eq!(not_mailed(&g), 12, "status counts the messages mail would send");
    let mut args = vec!["mail", "--dir", "."];
    args.extend(folder);
    let sent = run(&g, &args).ok();
    assert_eq!(not_mailed(&g), 0);
    assert!(run(&g, &["status", "--dir", "."]).ok().contains("every dispatch mailed"));
    assert_eq!(sent.matches("sent:").count(), 12, "{sent}");
    let emls = fs::read_dir(dir.path().join("outbox")).unwrap().count();
    assert_eq!(emls, 12);
    let mailed = fs::read_to_string(g.join("mailed.yaml")).unwrap();
    assert_eq!(mailed.matches("- dispatch: ").count(), 12, "{mailed}");
    let again = run(&g, &args).ok();
    assert!(again.contains("nothing to send"), "{again}");
    // One dispatch again, to one side, on purpose.
    let name = dispatches(&g)[1].file_name().unwrap().to_string_lossy().into_owned();
    args.extend(["--dispatch", name.as_str(), "--side", "british"]);
    let one = run(&g, &args).ok();
    assert_eq!(one.matches("sent:").count(), 1, "{one}");
    assert!(one.contains("ann@example.org"), "{one}");
    // The mails and the record hold no secret, and verify still holds.
    let top = fs::read_to_string(g.join(".secret/chain-top")).unwrap();
    for (path, bytes) in all_files(&dir.path().join("outbox")) {
        assert!(!String::from_utf8_lossy(&bytes).contains(top.trim()), "{}", path.display());
    }
    assert!(run(&g, &["verify", "--dir", "."]).ok().starts_with("verified"));
}
