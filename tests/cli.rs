//! The command line's conventions (issue 18), for every command:
//! - `--format json` is the one way to ask for JSON: every command that
//!   prints results prints one JSON document on standard output, and an
//!   error (the command's own, or clap's usage error) is one JSON object on
//!   standard error, `{"error": {"kind", "message", "exit_code", ...}}`;
//! - every command's help has an example and every option a description
//!   (read from clap's command tree, the types of src/cli/arguments.rs);
//! - closed sets of values (`mail --transport`, `--security`, `report
//!   --as`) are value enums that help lists and clap checks;
//! - `--color` rules clap's own help and errors; `--wait` is offered only
//!   by the commands that lock a folder.

mod common;
use common::*;

use std::path::Path;

use clap::CommandFactory;

/// The command line's clap types, compiled into this test as the binary
/// compiles them.
#[allow(dead_code)]
#[path = "../src/cli/arguments.rs"]
mod arguments;

const TOP: &str = "73cd705da8bc456e2a1d96c9747673fdfb9d952a384f2fe9a51af86c9be3d08a";
const KEY: &str = "4463b3396ee50e86dd2404a78b3de7acc715d886faeb6ba6b64099d1f928a602";
const DIGEST: &str = "acd7c2cbeafbfc20015f1c18111a68b4bb3aed7d9abeec62a880dd368852276b";
const SEED: &str = "22816f46f9d5af05266937a2291cc7f0c5307ea05598a0ab5632d07b9024f780";

/// Every visible command path (`["dice", "rolls"]`), parents included.
fn command_paths(command: &clap::Command, path: Vec<String>, out: &mut Vec<(Vec<String>, clap::Command)>) {
    out.push((path.clone(), command.clone()));
    for sub in command.get_subcommands() {
        if sub.get_name() == "help" {
            continue;
        }
        let mut p = path.clone();
        p.push(sub.get_name().to_string());
        command_paths(sub, p, out);
    }
}

/// What the help of `cli` leaves out: each command (its path) without an
/// example (a line of its after_help running it) or a description, each
/// option without a description.
fn undocumented(cli: &clap::Command) -> Vec<String> {
    let mut all = Vec::new();
    command_paths(cli, vec!["adjutant".to_string()], &mut all);
    let mut missing = Vec::new();
    for (path, command) in &all {
        let name = path.join(" ");
        let after = command.get_after_help().map(|h| h.to_string()).unwrap_or_default();
        if !after.lines().any(|l| l.trim() == name || l.trim_start().starts_with(&format!("{name} "))) {
            missing.push(format!("{name}: no example (a line of its after_help running `{name} ...`)"));
        }
        if command.get_about().is_none() && path.len() > 1 {
            missing.push(format!("{name}: no description"));
        }
        for arg in command.get_arguments() {
            let id = arg.get_id().as_str();
            if id == "help" || id == "version" {
                continue;
            }
            if arg.get_help().is_none_or(|h| h.to_string().trim().is_empty()) {
                missing.push(format!("{name}: option {id} has no description"));
            }
        }
    }
    missing
}

#[test]
fn every_command_has_an_example_and_every_option_a_description() {
    let mut cli = arguments::Cli::command();
    cli.build();
    cli.clone().debug_assert();
    let mut all = Vec::new();
    command_paths(&cli, vec![], &mut all);
    assert!(all.len() > 25, "only {} commands", all.len());
    let missing = undocumented(&cli);
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

/// The walk finds what it looks for: a command without an example and an
/// option without a description.
#[test]
fn the_walk_finds_an_undocumented_option_and_a_command_without_an_example() {
    let mut bare = clap::Command::new("adjutant").after_help("Examples:\n  adjutant x --n 1").subcommand(
        clap::Command::new("x")
            .about("X.")
            .arg(clap::Arg::new("n").long("n"))
            .arg(clap::Arg::new("m").long("m").help("M.")),
    );
    bare.build();
    assert_eq!(
        undocumented(&bare),
        [
            "adjutant x: no example (a line of its after_help running `adjutant x ...`)",
            "adjutant x: option n has no description"
        ]
    );
}

/// The value enums: help lists the values and completions offer them; a
/// value outside them gets clap's message naming the legal ones.
#[test]
fn closed_sets_of_values_are_listed_and_checked() {
    let dir = temp();
    let help = run(dir.path(), &["mail", "--help"]).ok();
    for value in ["smtp", "sendmail", "folder", "starttls", "tls", "none"] {
        assert!(help.contains(value), "{value} not in mail --help:\n{help}");
    }
    let err = run(dir.path(), &["mail", "--transport", "pigeon"]).fails(2);
    assert!(err.contains("invalid value 'pigeon'") && err.contains("smtp, sendmail, folder"), "{err}");
    let err = run(dir.path(), &["mail", "--security", "ssl"]).fails(2);
    assert!(err.contains("starttls, tls, none"), "{err}");
    let err = run(dir.path(), &["report", "--side", "british", "--as", "pdf"]).fails(2);
    assert!(err.contains("text, markdown, html"), "{err}");
    let bash = std::fs::read_to_string(repo_root().join("man/completions/adjutant.bash")).unwrap();
    assert!(bash.contains("smtp sendmail folder") && bash.contains("text markdown html"), "completions");
}

#[test]
fn color_never_reaches_clap_help_and_errors() {
    let dir = temp();
    let colored = |args: &[&str]| {
        let out = command(dir.path(), args).env("CLICOLOR_FORCE", "1").output().unwrap();
        let all = [out.stdout, out.stderr].concat();
        String::from_utf8_lossy(&all).contains('\x1b')
    };
    assert!(colored(&["--color", "always", "status", "--help"]));
    assert!(!colored(&["--color", "never", "status", "--help"]));
    assert!(!colored(&["status", "--help", "--color=never"]));
    assert!(colored(&["--color", "always", "status", "--no-such-option"]));
    assert!(!colored(&["--color", "never", "status", "--no-such-option"]));
}

#[test]
fn wait_is_offered_only_where_a_folder_is_locked() {
    let dir = temp();
    for command in [&["status"][..], &["resolve"], &["submit"], &["report"], &["verify"], &["roll"], &["odds"]] {
        let help = run(dir.path(), &[command, &["--help"]].concat()).ok();
        assert!(help.contains("--wait <SECONDS>"), "{command:?} has no --wait");
    }
    for command in [&["dice", "rolls"][..], &["new"], &["map"], &["check-game"], &["modules"], &["roll", "init"]] {
        let help = run(dir.path(), &[command, &["--help"]].concat()).ok();
        assert!(!help.contains("--wait"), "{command:?} offers --wait");
    }
    let err = run(dir.path(), &["dice", "rolls", "--wait", "1", "--seed", SEED, "d6", "1"]).fails(2);
    assert!(err.contains("unexpected argument '--wait'"), "{err}");
}

/// What a run under `--format json` printed, checked: a success is JSON on
/// standard output and nothing on standard error; an error is one JSON
/// object on standard error whose exit_code is the exit status, and
/// nothing on standard output.
fn json_result(dir: &Path, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["--format", "json"];
    all.extend_from_slice(args);
    let out = run(dir, &all);
    assert!(out.code == 0 || out.code == 1, "{args:?} exited {}\n{}{}", out.code, out.stdout, out.stderr);
    assert!(out.stderr.is_empty(), "{args:?} wrote to standard error: {}", out.stderr);
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}):\n{}", out.stdout))
}

fn json_error(dir: &Path, args: &[&str], code: i32, kind: &str) -> serde_json::Value {
    let mut all = args.to_vec();
    all.extend_from_slice(&["--format", "json"]);
    let out = run(dir, &all);
    assert_eq!(out.code, code, "{args:?}\nstdout:\n{}\nstderr:\n{}", out.stdout, out.stderr);
    assert!(out.stdout.is_empty(), "{args:?} wrote to standard output: {}", out.stdout);
    let value: serde_json::Value = serde_json::from_str(&out.stderr)
        .unwrap_or_else(|e| panic!("{args:?}: the error is not JSON ({e}):\n{}", out.stderr));
    let error = &value["error"];
    assert_eq!(error["exit_code"], code, "{args:?}: {value}");
    assert_eq!(error["kind"], kind, "{args:?}: {value}");
    assert!(error["message"].as_str().is_some_and(|m| !m.is_empty()), "{args:?}: {value}");
    value
}

/// Each command that prints results: its JSON, an error of its own as
/// JSON, and a usage error (clap's) as JSON.
#[test]
fn every_command_prints_json_and_its_errors_as_json() {
    let dir = temp();
    let d = dir.path();
    new_historical_game(d);
    let template = |side: &str, file: &str| {
        let text = run(d, &["template", "--dir", "g", "--side", side]).ok();
        std::fs::write(d.join(file), text).unwrap();
    };
    template("french", "f.yaml");
    template("american", "a.yaml");
    let again = std::fs::read_to_string(d.join("f.yaml")).unwrap() + "# changed\n";
    std::fs::write(d.join("f2.yaml"), again).unwrap();
    let cases = repo_root().join("tests/cases/rally");
    let case = cases.to_str().unwrap();
    let anchor = format!("british={TOP}");
    // A game with mail settings and deadlines, for `tick` and `welcome`.
    run(
        d,
        &[
            "new",
            "savannah-1779",
            "--scenario",
            "historical",
            "--dir",
            "gt",
            "--player",
            "british=Ann <ann@example.org>",
        ],
    )
    .ok();
    let mut config = std::fs::read_to_string(d.join("gt/game.yaml")).unwrap();
    config += "mail:\n  from: Ref <ref@example.org>\n  transport: folder\ndeadlines:\n  default: {after: 48h}\n";
    std::fs::write(d.join("gt/game.yaml"), config).unwrap();
    // DICE.md's vector chain: its anchor s_0, and s_1 (KEY) the key after it.
    let roller = "bob=bfdd2de3d68eb816db58d9865111a22cc67aa52f2397229ad94fd52ef64ecb29:3";
    let roller_key = format!("bob={KEY}");
    // (the command, an error of its own: arguments, exit status, kind)
    #[rustfmt::skip]
    let commands: Vec<(Vec<&str>, Vec<&str>, i32, &str)> = vec![
        (vec!["new", "savannah-1779", "--scenario", "historical", "--dir", "g2"],
         vec!["new", "savannah-1779", "--scenario", "hysterical", "--dir", "g3"], 2, "usage"),
        (vec!["new", "savannah-1779", "--scenario", "historical", "--dir", "gm", "--mode", "mutual"],
         vec!["new", "savannah-1779", "--scenario", "historical", "--dir", "g4", "--mode", "mutual",
              "--anchor", "british=zz"], 2, "usage"),
        (vec!["join", "--dir", "gm", &anchor], vec!["join", "--dir", "g", &anchor], 2, "usage"),
        (vec!["roll", "init", "--dir", "rolls"], vec!["roll", "init", "--dir", "g"], 2, "usage"),
        (vec!["roll", "init", "--dir", "mrolls", "--mode", "mutual", "--anchor", roller],
         vec!["roll", "init", "--dir", "mrolls2", "--mode", "mutual", "--anchor", "bob=zz"], 2, "usage"),
        (vec!["roll", "d6", "--purpose", "x", "--dir", "mrolls"],
         vec!["roll", "d6", "--purpose", "y", "--dir", "mrolls"], 1, "refused"),
        (vec!["roll", "key", "--dir", "mrolls", &roller_key], vec!["roll", "key", "--dir", "mrolls", "bob=zz"],
         2, "usage"),
        (vec!["roll", "d6", "--purpose", "x", "--dir", "rolls"],
         vec!["roll", "d7", "--purpose", "x", "--dir", "rolls"], 2, "usage"),
        (vec!["status", "--dir", "g"], vec!["status", "--dir", "missing"], 2, "io"),
        (vec!["template", "--dir", "g", "--side", "french"],
         vec!["template", "--dir", "g", "--side", "hessian"], 1, "refused"),
        (vec!["validate", "--dir", "g", "f.yaml"], vec!["validate", "--dir", "g", "missing.yaml"], 2, "io"),
        (vec!["submit", "--dir", "g", "f.yaml"], vec!["submit", "--dir", "g", "f2.yaml"], 1, "refused"),
        (vec!["resolve", "--dir", "g", "a.yaml"], vec!["resolve", "--dir", "missing"], 2, "io"),
        (vec!["report", "--dir", "g", "--side", "french"],
         vec!["report", "--dir", "g", "--side", "french", "--steps", "x"], 2, "usage"),
        (vec!["player", "--dir", "g", "british=Ann <ann@example.org>"],
         vec!["player", "--dir", "g", "nobody"], 2, "usage"),
        (vec!["verify", "--dir", "g"], vec!["verify", "--dir", "g", "--head", "zz"], 2, "usage"),
        (vec!["publish", "--dir", "g", "pub.tar.gz"], vec!["publish", "--dir", "g", "pub.tar.gz"], 2, "usage"),
        (vec!["mail", "--dir", "g", "--dry-run", "--transport", "folder", "--from", "Ref <ref@example.org>"],
         vec!["mail", "--dir", "g", "--dry-run", "--transport", "folder"], 2, "usage"),
        (vec!["tick", "--dir", "gt", "--now", "2026-12-01T09:00:00Z"], vec!["tick", "--dir", "g", "--now", "2026-12-01T09:00:00Z"],
         2, "usage"),
        (vec!["welcome", "--dir", "gt", "--dry-run"], vec!["welcome", "--dir", "g"], 2, "usage"),
        (vec!["senders", "--dir", "g", "subject-secret"], vec!["senders", "--dir", "g", "authentication-results"],
         2, "usage"),
        (vec!["correct", "--dir", "g", "--from", "1", "--why", "the wrong file"],
         vec!["correct", "--dir", "g", "--from", "999", "--why", "x"], 2, "usage"),
        (vec!["odds", "--module", "savannah-1779", "--scenario", "historical", "--column", "3-2", "--drm", "1"],
         vec!["odds", "--module", "savannah-1779", "--scenario", "hysterical", "--column", "3-2", "--drm", "1"],
         2, "usage"),
        (vec!["dice", "chain", "--top", TOP, "--length", "3"], vec!["dice", "chain", "--top", "zz", "--length", "3"],
         2, "usage"),
        (vec!["dice", "digest", "french=f.yaml"], vec!["dice", "digest", "french"], 2, "usage"),
        (vec!["dice", "seed", "--game-id", "g", "--step", "1", "--key", KEY, "--digest", DIGEST],
         vec!["dice", "seed", "--game-id", "g", "--step", "1", "--key", "zz", "--digest", DIGEST], 2, "usage"),
        (vec!["dice", "rolls", "--seed", SEED, "d10", "3"], vec!["dice", "rolls", "--seed", SEED, "d7", "3"],
         2, "usage"),
        (vec!["check-game", "savannah-1779"], vec!["check-game", "gettysburg"], 2, "usage"),
        (vec!["case", "run", case], vec!["case", "run", "missing.yaml"], 2, "io"),
        (vec!["module", "export", "savannah-1779", "exported"], vec!["module", "export", "savannah-1779", "g"],
         2, "usage"),
        (vec!["modules"], vec!["map", "gettysburg"], 2, "usage"),
        (vec!["map", "savannah-1779", "--region", "1001:1103"],
         vec!["map", "savannah-1779", "--highlight", "9999"], 2, "usage"),
        (vec!["selfplay", "--scenario", "historical", "--games", "1"],
         vec!["selfplay", "--scenario", "hysterical", "--games", "1"], 2, "usage"),
        (vec!["demo"], vec!["demo", "--keep", "f.yaml"], 2, "io"),
        (vec!["generate", "--out", "pages"], vec!["generate", "--check", "--out", "missing"], 1, "refused"),
    ];
    let mut seen = std::collections::BTreeSet::new();
    for (ok, bad, code, kind) in &commands {
        let value = json_result(d, ok);
        assert!(value.is_object() || value.is_array(), "{ok:?}: {value}");
        json_error(d, bad, *code, kind);
        // The command's path: its words before the first option or file.
        let path: Vec<&str> =
            ok.iter().copied().take_while(|a| a.chars().all(|c| c.is_ascii_lowercase() || c == '-')).collect();
        let path = match path[0] {
            "dice" | "case" | "module" => &path[..2],
            "roll" if matches!(path.get(1), Some(&"init") | Some(&"key")) => &path[..2],
            _ => &path[..1],
        };
        // clap's own refusal, under --format json.
        let usage = [path, &["--no-such-option"]].concat();
        let error = json_error(d, &usage, 2, "usage");
        assert!(error["error"]["message"].as_str().unwrap().contains("--no-such-option"), "{error}");
        seen.insert(path.join(" "));
    }
    // Every command of the tree (its leaves, and `roll`, which runs too).
    let mut cli = arguments::Cli::command();
    cli.build();
    let mut all = Vec::new();
    command_paths(&cli, vec![], &mut all);
    for (path, command) in all {
        if path.is_empty() || (command.has_subcommands() && path != ["roll"]) {
            continue;
        }
        assert!(seen.contains(&path.join(" ")), "`{}` is not run under --format json here", path.join(" "));
    }
}

/// `report`: `--format json` gives the JSON report, the same as the old
/// `--as json` (kept, hidden); `--as html` with `--format json` is refused.
#[test]
fn report_json_is_asked_for_with_format_json() {
    let dir = temp();
    let d = dir.path();
    new_historical_game(d);
    let json = run(d, &["report", "--dir", "g", "--side", "british", "--format", "json"]).ok();
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(value.get("events").is_some() || value.get("steps").is_some(), "{value}");
    let old = run(d, &["report", "--dir", "g", "--side", "british", "--as", "json"]).ok();
    assert_eq!(json, old);
    let text = run(d, &["report", "--dir", "g", "--side", "british"]).ok();
    assert!(serde_json::from_str::<serde_json::Value>(&text).is_err(), "{text}");
    let err = json_error(d, &["report", "--dir", "g", "--side", "british", "--as", "html"], 2, "usage");
    assert!(err["error"]["message"].as_str().unwrap().contains("--as html and --format json"), "{err}");
    let help = run(d, &["report", "--help"]).ok();
    assert!(help.contains("[possible values: text, markdown, html]"), "{help}");
}

/// A located problem in a data file keeps its place under --format json.
#[test]
fn a_data_error_in_json_names_its_file_and_line() {
    let dir = temp();
    let d = dir.path();
    new_historical_game(d);
    let config = std::fs::read_to_string(d.join("g/game.yaml")).unwrap();
    std::fs::write(d.join("g/game.yaml"), config.replacen("game_id:", "game_idd:", 1)).unwrap();
    let err = json_error(d, &["status", "--dir", "g"], 2, "data");
    assert!(err["error"]["file"].as_str().is_some_and(|f| f.ends_with("game.yaml")), "{err}");
    assert!(err["error"]["line"].as_u64().is_some(), "{err}");
}

/// `validate` given the files of every side the awaited step awaits checks
/// them together too, as `resolve` would: Champagne Chasseurs (French)
/// ending the Allied Movement Phase with the 3rd S.C. (American) in 1509
/// pass each file's own checks and break Savannah 4.1 together.
#[test]
fn validate_checks_every_awaited_sides_files_together() {
    let dir = temp();
    let d = dir.path();
    new_historical_game(d);
    let french = "game: club-7\nturn: 16\nstep: allies-movement\nside: french\nmoves:\n- unit: champagne-chasseurs\n  to: '1509'\n";
    let american = "game: club-7\nturn: 16\nstep: allies-movement\nside: american\nmoves: []\n";
    std::fs::write(d.join("f.yaml"), french).unwrap();
    std::fs::write(d.join("a.yaml"), american).unwrap();
    // Alone, each passes.
    run(d, &["validate", "--dir", "g", "f.yaml"]).ok();
    run(d, &["validate", "--dir", "g", "a.yaml"]).ok();
    // Together, both are named, with the rule's words.
    let said = run(d, &["validate", "--dir", "g", "f.yaml", "a.yaml"]).exits(1);
    assert!(
        said.contains("f.yaml: each file passes its own checks, but with a.yaml the rules refuse the orders together"),
        "{said}"
    );
    assert!(said.contains("3-sc and champagne-chasseurs end the Movement Phase stacked in 1509"), "{said}");
    assert!(said.contains("refused: 2 problems in 2 of 2 files"), "{said}");
    // Without the Chasseurs' move the two files pass together.
    std::fs::write(
        d.join("f.yaml"),
        french.replace("- unit: champagne-chasseurs\n  to: '1509'\n", "").replace("moves:\n", "moves: []\n"),
    )
    .unwrap();
    run(d, &["validate", "--dir", "g", "f.yaml", "a.yaml"]).ok();
}
