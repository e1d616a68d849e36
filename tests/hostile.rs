//! Issue 11: hostile orders. Every hostile input (huge, deeply nested, full
//! of problems, not UTF-8, with a byte order mark, with control characters
//! in what it says) is refused by every path an orders file enters by
//! (`validate`, `submit` of a file, of standard input, of an email,
//! `--standing`, `resolve FILES`, the inbox when the step comes) with the
//! same precise message and exit status; what a message quotes of it is
//! bounded and escaped; the folder is unchanged; nothing panics. What
//! these inputs cost is measured by `cargo bench --bench hostile`, not
//! here.

mod common;
use common::*;

use std::fs;
use std::path::Path;

const HEAD: &str = "game: club-7\nturn: 16\nstep: allies-movement\nside: french\n";

/// The longest output a refusal may print: the first 50 problems, each
/// bounded, and the count.
const MOST_PRINTED: usize = 50 * 2_400;

fn game(d: &Path) {
    new_historical_game(d);
    known_dice(&d.join("g"));
}

/// What was printed holds no raw control character (but line breaks
/// between lines) and no bidirectional control.
fn assert_escaped(printed: &str) {
    for c in printed.chars() {
        let bad = (c.is_control() && c != '\n')
            || ('\u{202a}'..='\u{202e}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c);
        assert!(!bad, "a raw {c:?} was printed:\n{}", printed.escape_debug());
    }
}

/// Run `adjutant ARGS` with `input` on standard input, which it may stop
/// reading at its limit (a broken pipe is no failure).
fn run_stdin(cwd: &Path, args: &[&str], input: &[u8]) -> Run {
    use std::io::Write;
    use std::process::Stdio;
    let mut child =
        command(cwd, args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let _ = child.stdin.take().unwrap().write_all(input);
    let out = child.wait_with_output().unwrap();
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Run every path an orders file enters by on `bytes` (written to
/// `file`): each must exit `code` and print `expect` after the input's
/// name (`FILE:5:12: not UTF-8 ...`, or `standard input:5:12: ...`), a
/// bounded and escaped message, and leave the folder as it was.
fn every_path(d: &Path, file: &str, bytes: &[u8], code: i32, expect: &str) {
    fs::write(d.join(file), bytes).unwrap();
    let before = all_files(&d.join("g"));
    let runs = [
        ("validate", file, run(d, &["validate", "--dir", "g", file])),
        ("submit FILE", file, run(d, &["submit", "--dir", "g", file])),
        ("submit -", "standard input", run_stdin(d, &["submit", "--dir", "g", "-"], bytes)),
        ("resolve FILE", file, run(d, &["resolve", "--dir", "g", file])),
    ];
    for (how, label, r) in runs {
        let printed = r.exits(code);
        let expect = format!("{label}{expect}");
        assert!(printed.contains(&expect), "{how}: expected {expect:?} in:\n{}", printed.escape_debug());
        assert!(printed.len() < MOST_PRINTED, "{how}: {} bytes printed", printed.len());
        assert_escaped(&printed);
        assert_eq!(all_files(&d.join("g")), before, "{how} changed the folder");
    }
}

#[test]
fn inputs_past_the_limits_are_refused_before_they_are_parsed() {
    let dir = temp();
    let d = dir.path();
    game(d);
    // One byte past 1 MiB; 100,000 moves of one unit (4 MB).
    let mut big = format!("{HEAD}# ").into_bytes();
    big.resize((1 << 20) + 1, b'x');
    every_path(d, "big.yaml", &big, 1, ": ");
    let out = run(d, &["validate", "--dir", "g", "big.yaml"]).exits(1);
    assert!(out.contains("big.yaml: 1048577 bytes: an orders file is at most 1048576 bytes (1 MiB)"), "{out}");
    let mut moves = format!("{HEAD}moves:\n");
    for _ in 0..100_000 {
        moves += "  - {unit: dillon-irish, path: [\"1911\"]}\n";
    }
    every_path(d, "moves.yaml", moves.as_bytes(), 1, ": ");
    let out = run(d, &["validate", "--dir", "g", "moves.yaml"]).exits(1);
    assert!(
        out.contains(&format!("moves.yaml: {} bytes: an orders file is at most 1048576 bytes", moves.len())),
        "{out}"
    );
    // A 10 MB unit id: refused for its size, never echoed.
    let id = format!("{HEAD}moves:\n  - unit: \"{}\"\n", "d".repeat(10 << 20));
    every_path(d, "id.yaml", id.as_bytes(), 1, ": ");
    let out = run(d, &["validate", "--dir", "g", "id.yaml"]).exits(1);
    assert!(out.contains("bytes: an orders file is at most 1048576 bytes") && out.len() < 300, "{out}");
    // Nesting: 100,000 `[`, a mapping nested 1,000 deep, 500,000 `- `.
    let text = format!("{HEAD}moves: {}\n", "[".repeat(100_000));
    every_path(d, "deep.yaml", text.as_bytes(), 1, ":5:71: lists and mappings nested more than 64 deep");
    let nested: String = (0..1000).map(|n| format!("{}k{n}:\n", " ".repeat(n + 2))).collect();
    let text = format!("{HEAD}moves:\n{nested}");
    every_path(d, "map.yaml", text.as_bytes(), 1, ":69:66: lists and mappings nested more than 64 deep");
    let text = format!("{HEAD}moves:\n{}x\n", "- ".repeat(500_000));
    every_path(d, "dash.yaml", text.as_bytes(), 1, ":6:127: lists and mappings nested more than 64 deep");
    // Standard input is never read past the limit.
    let r = run_stdin(d, &["submit", "--dir", "g", "-"], &vec![b'#'; 3 << 20]);
    assert!(r.fails(1).contains("standard input: more than 1048576 bytes: an orders file is at most"));
}

#[test]
fn eight_thousand_moves_of_one_unit_are_each_refused_and_fifty_listed() {
    let dir = temp();
    let d = dir.path();
    game(d);
    let mut text = format!("{HEAD}moves:\n");
    for _ in 0..8000 {
        text += "  - {unit: dillon-irish, path: [\"1911\"]}\n";
    }
    fs::write(d.join("m.yaml"), &text).unwrap();
    let before = all_files(&d.join("g"));
    let out = run(d, &["validate", "--dir", "g", "m.yaml"]).exits(1);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 52, "50 problems, the count of the rest, the total:\n{out}");
    assert!(lines[0].starts_with("m.yaml:7:6: moves[1].unit: dillon-irish has already moved (moves[0])"), "{out}");
    assert!(lines[49].starts_with("m.yaml:56:6: moves[50].unit:"), "{out}");
    assert_eq!(lines[50], "m.yaml: … and 7949 more problems (the first 50 are listed)");
    assert_eq!(lines[51], "refused: 7999 problems in 1 of 1 files");
    let json = run(d, &["validate", "--dir", "g", "m.yaml", "--format", "json"]).json();
    assert_eq!(json[0]["problems"].as_array().unwrap().len(), 50);
    assert_eq!(json[0]["more_problems"], 7949);
    let err = run(d, &["submit", "--dir", "g", "m.yaml"]).fails(1);
    assert_eq!(err.lines().count(), 51, "{err}");
    assert!(err.ends_with("… and 7949 more problems (the first 50 are listed)\n"), "{err}");
    assert_eq!(all_files(&d.join("g")), before);
}

#[test]
fn a_file_of_100_000_problems_lists_fifty_and_counts_the_rest() {
    let dir = temp();
    let d = dir.path();
    game(d);
    let text = format!("{HEAD}moves: [{}]\n", vec!["a"; 100_000].join(","));
    fs::write(d.join("p.yaml"), &text).unwrap();
    let before = all_files(&d.join("g"));
    let out = run(d, &["validate", "--dir", "g", "p.yaml"]).exits(1);
    assert_eq!(out.lines().count(), 52, "{out}");
    assert!(out.starts_with("p.yaml:5:9: moves[0]: invalid type: string \"a\", expected a move (a map)"), "{out}");
    assert!(out.contains("p.yaml: … and 99950 more problems (the first 50 are listed)\nrefused: 100000 problems"));
    let err = run_stdin(d, &["submit", "--dir", "g", "-"], text.as_bytes()).fails(1);
    assert_eq!(err.lines().count(), 51, "{err}");
    assert_eq!(all_files(&d.join("g")), before);
}

#[test]
fn what_a_message_quotes_of_a_player_is_bounded_and_escaped() {
    let dir = temp();
    let d = dir.path();
    game(d);
    // A unit id of 900 KB ending in a terminal escape, under the size limit.
    let id = format!("{}\\e[2J\\u202e", "d".repeat(900 << 10));
    let text = format!("{HEAD}moves:\n  - unit: \"{id}\"\n    to: \"1911\"\n");
    let shown = format!(":6:5: moves[0].unit: there is no unit '{}…(921607 bytes)'", "d".repeat(60));
    every_path(d, "id.yaml", text.as_bytes(), 1, &shown);
    // Escapes, a NUL, line breaks and bidi overrides in every header field
    // and in a key, written with YAML's escapes.
    let text = "game: \"club-8\\e[31m\\0\"\nturn: 16\nstep: \"allies\\nmovement\\u202e\"\nside: \"fr\\rench\\u2066\"\n\
                moves:\n  - {unit: \"a\\tb\\x07\", \"sp\\u2028eed\": 1, to: \"19\\u001b1\"}\n";
    every_path(d, "ctl.yaml", text.as_bytes(), 1, ":1:1: game: these orders are for game 'club-8\\u{1b}[31m\\0'");
    let out = run(d, &["validate", "--dir", "g", "ctl.yaml"]).exits(1);
    assert!(out.contains("step 'allies\\nmovement\\u{202e}'") && out.contains("'fr\\rench\\u{2066}'"), "{out}");
    let body = format!("{HEAD}moves:\n  - {{unit: \"a\\tb\\x07\", \"sp\\u2028eed\": 1, to: \"19\\u001b1\"}}\n");
    fs::write(d.join("body.yaml"), &body).unwrap();
    let out = run(d, &["validate", "--dir", "g", "body.yaml"]).exits(1);
    assert!(out.contains("unknown field `sp\\u{2028}eed`"), "{out}");
    assert_escaped(&out);
    // The same in JSON: escaped too, for scripts that print it.
    let json = run(d, &["validate", "--dir", "g", "ctl.yaml", "--format", "json"]).json();
    assert_escaped(&json.to_string());
}

#[test]
fn a_byte_order_mark_is_accepted_by_every_path_and_kept_for_the_dice() {
    let dir = temp();
    let d = dir.path();
    game(d);
    let with_bom = |text: &str| [b"\xef\xbb\xbf".as_slice(), text.as_bytes()].concat();
    let french = with_bom(&format!("{HEAD}moves: []\n"));
    let american = with_bom(&format!("{}moves: []\n", HEAD.replace("french", "american")));
    fs::write(d.join("f.yaml"), &french).unwrap();
    fs::write(d.join("a.yaml"), &american).unwrap();
    run(d, &["validate", "--dir", "g", "f.yaml", "a.yaml"]).ok();
    let receipt = run(d, &["submit", "--dir", "g", "f.yaml", "--format", "json"]).json();
    let digest = run(d, &["dice", "digest", "french=f.yaml", "--format", "json"]).json();
    assert_eq!(receipt["sha256"], digest["orders"][0]["sha256"], "the hash is of the bytes, the mark included");
    assert_eq!(receipt["bytes"], french.len());
    assert_eq!(fs::read(d.join("g/inbox/16-allies-movement--french.yaml")).unwrap(), french);
    let out = run(d, &["resolve", "--dir", "g", "a.yaml"]).ok();
    assert!(out.contains("16-allies-movement"), "{out}");
    assert_eq!(fs::read(d.join("g/orders/000002-french.yaml")).unwrap(), french, "kept byte for byte"); // step 1: the set-up
    assert!(run(d, &["verify", "--dir", "g"]).ok().starts_with("verified"));
    // Standing orders with a mark.
    let standing = with_bom("game: club-7\nside: british\nstanding:\n  initiative: {}\n");
    fs::write(d.join("s.yaml"), &standing).unwrap();
    run(d, &["submit", "--dir", "g", "--standing", "s.yaml"]).ok();
}

#[test]
fn text_that_is_not_utf8_is_refused_input_with_its_offset_everywhere() {
    let dir = temp();
    let d = dir.path();
    game(d);
    let bytes = [HEAD.as_bytes(), b"moves: [\"19\xff11\"]\n"].concat();
    every_path(d, "latin.yaml", &bytes, 1, ":5:12: not UTF-8 text: byte 68 (0xff) is not UTF-8");
    let r = run(d, &["submit", "--dir", "g", "--standing", "latin.yaml"]);
    assert!(r.fails(1).contains("byte 68 (0xff) is not UTF-8"));
}

#[test]
fn a_turn_is_written_in_decimal_digits_and_no_field_is_empty() {
    let dir = temp();
    let d = dir.path();
    game(d);
    for turn in ["0x10", "+16", "016", "1_6", "16.0", "0o20", "1.6e1", "sixteen"] {
        let text = HEAD.replace("turn: 16", &format!("turn: {turn}")) + "moves: []\n";
        every_path(
            d,
            "t.yaml",
            text.as_bytes(),
            1,
            &format!(":2:1: turn: '{turn}' is not a turn number: a turn is written in decimal digits"),
        );
        // Sent ahead for a later step: the same reason.
        let ahead = text.replace("allies-movement", "british-movement").replace("french", "british");
        fs::write(d.join("ahead.yaml"), ahead).unwrap();
        let err = run(d, &["submit", "--dir", "g", "ahead.yaml"]).fails(1);
        assert!(err.contains("is not a turn number"), "{turn}: {err}");
    }
    let text = HEAD.replace("turn: 16", "turn: \"16\"") + "moves: []\n";
    fs::write(d.join("q.yaml"), text).unwrap();
    run(d, &["validate", "--dir", "g", "q.yaml"]).ok();
    // Empty (null) fields, with the field and what it would hold.
    for (body, at, legal) in [
        ("moves:\n", ":5:1: moves: is empty (null)", "movement orders are `moves:`"),
        ("moves: ~\n", ":5:1: moves: is empty (null)", "movement orders are `moves:`"),
        ("moves:\n  -\n", ":7:1: moves[0]: is an empty item (null)", "a move has unit or stack"),
        (
            "moves:\n  - {unit: null, to: \"1911\"}\n",
            ":6:6: moves[0].unit: is empty (null)",
            "a move has unit or stack",
        ),
        ("delay: null\n", ":5:1: delay: is empty (null)", "movement orders are"),
    ] {
        let text = format!("{HEAD}{body}");
        every_path(d, "n.yaml", text.as_bytes(), 1, at);
        let out = run(d, &["validate", "--dir", "g", "n.yaml"]).exits(1);
        assert!(out.contains(legal), "{body}: {out}");
    }
    // The wrong type: the field, what it is, what is legal.
    let text = format!("{HEAD}moves: 5\n");
    every_path(d, "w.yaml", text.as_bytes(), 1, ":5:1: moves: invalid type: integer `5`, expected a sequence");
}

/// The AWI system reads an orders file's turn as the series does: decimal
/// digits only (it took `0x1` for 1, and `4294967297` for 1 too, cut to 32
/// bits), the reason given on every path.
#[test]
fn an_awi_turn_is_written_in_decimal_digits_too() {
    let dir = temp();
    let d = dir.path();
    run(d, &["new", "awi-southern", "--scenario", "southern-1780", "--dir", "g", "--game-id", "club-8"]).ok();
    let head = "game: club-8\nturn: 1\nstep: british-operations\nside: british\nmoves: []\n";
    fs::write(d.join("ok.yaml"), head).unwrap();
    run(d, &["validate", "--dir", "g", "ok.yaml"]).ok();
    for turn in ["0x1", "+1", "01", "1.0", "1_0", "4294967297", "one"] {
        let text = head.replace("turn: 1", &format!("turn: {turn}"));
        every_path(
            d,
            "t.yaml",
            text.as_bytes(),
            1,
            &format!(":2:1: turn: '{turn}' is not a turn number: a turn is the month of the campaign from 1"),
        );
    }
}

/// Every phase's orders: close combat (attack and defence), fire and
/// initiative refuse an empty field or the wrong type with the field and
/// what is legal; standing orders too.
#[test]
fn every_phase_refuses_empty_fields_and_wrong_types() {
    let dir = temp();
    let d = dir.path();
    game(d);
    // Standing orders are checked for their shape without a position.
    let standing = [
        (
            "initiative: {momentum: null}",
            "standing.initiative.momentum: is empty (null)",
            "initiative orders are `momentum:`",
        ),
        (
            "allies-close-combat: {defence: null}",
            "standing.allies-close-combat.defence: is empty",
            "defence orders are",
        ),
        ("british-close-combat: {attacks: [null]}", "attacks[0]: is an empty item (null)", "an attack has attackers"),
        (
            "british-close-combat: {attacks: 3}",
            "attacks: invalid type: integer `3`, expected a sequence",
            "close combat orders",
        ),
        ("allies-defensive-artillery-fire: {fire: ~}", "fire: is empty (null)", "fire orders are"),
        ("allies-defensive-artillery-fire: {mortars: true}", "invalid type: boolean `true`", "fire orders are"),
    ];
    for (entry, at, legal) in standing {
        let side = if entry.starts_with("allies-defensive") { "french" } else { "british" };
        fs::write(d.join("s.yaml"), format!("game: club-7\nside: {side}\nstanding:\n  {entry}\n")).unwrap();
        let before = all_files(&d.join("g"));
        let err = run(d, &["submit", "--dir", "g", "--standing", "s.yaml"]).fails(1);
        assert!(err.contains(at) && err.contains(legal), "{entry}: {err}");
        assert_eq!(all_files(&d.join("g")), before);
    }
}

#[test]
fn the_fire_and_close_combat_steps_refuse_empty_fields() {
    let dir = temp();
    let d = dir.path();
    game(d);
    let head = |step: &str, side: &str| format!("game: club-7\nturn: 16\nstep: {step}\nside: {side}\n");
    fs::write(d.join("f.yaml"), head("allies-movement", "french") + "moves:\n  - {unit: auxerrois, to: \"1906\"}\n")
        .unwrap();
    fs::write(d.join("a.yaml"), head("allies-movement", "american") + "moves: []\n").unwrap();
    run(d, &["resolve", "--dir", "g", "f.yaml", "a.yaml"]).ok();
    let fire = head("allies-defensive-artillery-fire", "french");
    every_path(d, "m.yaml", (fire.clone() + "mortars:\n").as_bytes(), 1, ":5:1: mortars: is empty (null)");
    every_path(
        d,
        "m.yaml",
        (fire.clone() + "mortars: [{unit: mortar-battery, hex: null}]\n").as_bytes(),
        1,
        ":5:34: mortars[0].hex: is empty (null)",
    );
    every_path(
        d,
        "m.yaml",
        (fire + "mortars: {}\n").as_bytes(),
        1,
        ":5:1: mortars: invalid type: map, expected a sequence",
    );
    fs::write(
        d.join("m.yaml"),
        head("allies-defensive-artillery-fire", "french") + "mortars:\n  - {unit: mortar-battery, hex: \"1904\"}\n",
    )
    .unwrap();
    run(d, &["resolve", "--dir", "g", "m.yaml"]).ok();
    let attack = head("allies-close-combat", "french");
    every_path(
        d,
        "c.yaml",
        (attack.clone() + "attacks:\n  - {attackers: ~, defenders: [\"1905\"]}\n").as_bytes(),
        1,
        ":6:6: attacks[0].attackers: is empty (null)",
    );
    every_path(
        d,
        "c.yaml",
        (attack + "attacks: {}\n").as_bytes(),
        1,
        ":5:1: attacks: invalid type: map, expected a sequence",
    );
    let defence = head("allies-close-combat", "british");
    every_path(
        d,
        "b.yaml",
        (defence.clone() + "defence:\n  tactics:\n").as_bytes(),
        1,
        ":6:3: defence.tactics: is empty (null)",
    );
    every_path(d, "b.yaml", (defence + "momentum: [1]\n").as_bytes(), 1, ":5:1: momentum: invalid type: sequence");
}

#[test]
fn inbox_and_standing_files_are_held_to_the_limits_when_their_step_comes() {
    let dir = temp();
    let d = dir.path();
    game(d);
    // A file put into the inbox by hand, past the limit: resolve refuses
    // the step, naming it, and resolves nothing.
    let inbox = d.join("g/inbox");
    fs::create_dir_all(&inbox).unwrap();
    let mut big = format!("{HEAD}moves: []\n# ").into_bytes();
    big.resize(3 << 20, b'x');
    fs::write(inbox.join("16-allies-movement--french.yaml"), &big).unwrap();
    fs::write(d.join("a.yaml"), format!("{}moves: []\n", HEAD.replace("french", "american"))).unwrap();
    let before = all_files(&d.join("g"));
    let out = run(d, &["resolve", "--dir", "g", "a.yaml"]).exits(1);
    assert!(out.contains("inbox/16-allies-movement--french.yaml: more than 1048576 bytes"), "{out}");
    assert_eq!(all_files(&d.join("g")), before);
    fs::remove_file(inbox.join("16-allies-movement--french.yaml")).unwrap();
    // Standing orders put by hand, not UTF-8: refused when their step comes.
    fs::create_dir_all(d.join("g/standing")).unwrap();
    fs::write(
        d.join("g/standing/french.yaml"),
        b"game: club-7\nside: french\nstanding:\n  allies-movement: {moves: [\xff]}\n",
    )
    .unwrap();
    let before = all_files(&d.join("g"));
    let out = run(d, &["resolve", "--dir", "g", "a.yaml"]).exits(1);
    assert!(out.contains("standing/french.yaml:4:"), "{out}");
    assert!(out.contains("not UTF-8 text"), "{out}");
    assert_eq!(all_files(&d.join("g")), before);
}

/// A raw message from `from` with `attachment` (name, bytes) as base64.
fn message(from_lines: &[&str], name: &str, bytes: &[u8]) -> Vec<u8> {
    use std::fmt::Write as _;
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut b64 = String::new();
    for (i, chunk) in bytes.chunks(3).enumerate() {
        if i > 0 && i % 19 == 0 {
            b64 += "\r\n";
        }
        let n = chunk.iter().enumerate().fold(0u32, |n, (j, b)| n | (*b as u32) << (16 - 8 * j));
        for k in 0..4 {
            b64.push(if k <= chunk.len() { A[(n >> (18 - 6 * k) & 63) as usize] as char } else { '=' });
        }
    }
    let mut head = String::new();
    for l in from_lines {
        let _ = write!(head, "{l}\r\n");
    }
    format!(
        "{head}Subject: orders\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"b1\"\r\n\r\n\
         --b1\r\nContent-Type: application/yaml\r\nContent-Disposition: attachment; filename=\"{name}\"\r\n\
         Content-Transfer-Encoding: base64\r\n\r\n{b64}\r\n--b1--\r\n"
    )
    .into_bytes()
}

#[test]
fn email_is_held_to_the_same_limits_and_its_sender_to_one_address() {
    let dir = temp();
    let d = dir.path();
    game(d);
    let before = all_files(&d.join("g"));
    let email = |raw: &[u8]| run_stdin(d, &["submit", "--dir", "g", "--email", "-"], raw);
    let orders = format!("{HEAD}moves: []\n");
    let from = ["From: Charles <charles@example.org>"];
    // A message past 10 MiB is not read past its limit.
    let mut huge = message(&from, "o.yaml", orders.as_bytes());
    huge.resize(11 << 20, b' ');
    assert!(email(&huge).fails(1).contains("standard input: more than 10485760 bytes: a message is at most"));
    // An attachment past 1 MiB, nested too deep, not UTF-8.
    let mut big = format!("{HEAD}# ").into_bytes();
    big.resize((1 << 20) + 10, b'x');
    let out = email(&message(&from, "o.yaml", &big)).exits(1);
    assert!(out.contains("1048586 bytes: an orders file is at most 1048576 bytes"), "{out}");
    let deep = format!("{HEAD}moves: {}\n", "[".repeat(1000));
    assert!(email(&message(&from, "o.yaml", deep.as_bytes())).exits(1).contains("nested more than 64 deep"));
    let latin = [HEAD.as_bytes(), b"# caf\xe9\n"].concat();
    let out = email(&message(&from, "o.yaml", &latin)).exits(1);
    assert!(out.contains("not readable text (invalid UTF-8 at byte 62)"), "{out}");
    // A file name with a terminal escape and a bidi override, echoed escaped.
    let name = format!("{}\u{1b}]0;owned\u{7}\u{202e}lmay.yaml", "n".repeat(300));
    let out = email(&message(&from, &name, b"not: [orders")).exits(1);
    assert_escaped(&out);
    assert!(out.contains("…(") && out.len() < 4000, "{out}");
    // Two From headers, or two mailboxes in one.
    let two = ["From: Charles <charles@example.org>", "From: Eve <eve@example.org>"];
    assert!(email(&message(&two, "o.yaml", orders.as_bytes())).exits(1).contains("2 From headers"));
    let both = ["From: charles@example.org, eve@example.org"];
    assert!(email(&message(&both, "o.yaml", orders.as_bytes())).exits(1).contains("names 2 senders"));
    // Nothing refused is taken: the folder is as it was but for kept/refused/,
    // which keeps each refused message that was read (all but the one past
    // 10 MiB) with its reason (issue 16, src/game/kept.rs).
    let refused = d.join("g/kept/refused");
    let (kept, rest): (Vec<_>, Vec<_>) =
        all_files(&d.join("g")).into_iter().partition(|(p, _)| p.starts_with(&refused));
    assert_eq!(rest, before, "nothing refused is stored outside kept/refused/");
    let names: Vec<String> = kept.iter().map(|(p, _)| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
    let expected: Vec<String> = (1..=6).flat_map(|n| [format!("{n:06}.eml"), format!("{n:06}.reason")]).collect();
    assert_eq!(names, expected, "each refused message kept once, with its reason");
    assert_eq!(kept[0].1, message(&from, "o.yaml", &big), "kept byte for byte");
    // kept/refused/ is bounded: once it holds 1000 messages, a refusal is
    // answered and the message not kept.
    for n in 7..=1000 {
        std::fs::write(refused.join(format!("{n:06}.eml")), b"x").unwrap();
        std::fs::write(refused.join(format!("{n:06}.reason")), b"refused: filler\n").unwrap();
    }
    let full = all_files(&d.join("g"));
    let out = email(&message(&from, "o.yaml", deep.as_bytes())).exits(1);
    assert!(out.contains("nested more than 64 deep"), "{out}");
    assert_eq!(all_files(&d.join("g")), full, "a full kept/refused/ takes no more");
    // The domain's case does not matter; the local part's does.
    let upper = ["From: Charles <Charles@example.org>"];
    let out = email(&message(&upper, "o.yaml", orders.as_bytes())).exits(1);
    assert!(out.contains("compared exactly, case included"), "{out}");
    let domain = ["From: Charles <charles@EXAMPLE.Org>"];
    let out = email(&message(&domain, "o.yaml", orders.as_bytes())).ok();
    assert!(out.contains("received: orders of french"), "{out}");
}

#[test]
fn player_addresses_are_read_as_the_mail_is_sent() {
    let dir = temp();
    let d = dir.path();
    // `new` refuses an address lettre would not send to.
    for bad in ["Ann <ann@@example.org>", "Ann <ann@example.org.>", "Ann <ann smith@example.org>", "Ann <ann>"] {
        let spec = format!("british={bad}");
        let err =
            run(d, &["new", "savannah-1779", "--scenario", "historical", "--dir", "x", "--player", &spec]).fails(2);
        assert!(err.contains("is not a mailbox"), "{bad}: {err}");
        assert!(!d.join("x").exists());
    }
    // A bad address in game.yaml: mail goes to every other side, and the
    // bad one is named at its field.
    new_historical_game(d);
    known_dice(&d.join("g"));
    play_turn_16_opening(d);
    let g = d.join("g");
    let config = fs::read_to_string(g.join("game.yaml")).unwrap();
    assert!(config.contains("email: ann@example.org"), "{config}");
    fs::write(g.join("game.yaml"), config.replace("email: ann@example.org", "email: ann@@example.org")).unwrap();
    let args = [
        "mail",
        "--dir",
        ".",
        "--transport",
        "folder",
        "--from",
        "Referee <referee@example.org>",
        "--folder",
        "outbox",
    ];
    let out = run(&g, &args).exits(2);
    assert!(
        out.contains("not sent: british: ")
            && out.contains("players[0].email: 'ann@@example.org' is not a mail address"),
        "{out}"
    );
    assert_eq!(
        out.matches("sent: ").count() - out.matches("not sent: ").count(),
        8,
        "4 dispatches (the set-up's too) to 2 sides:\n{out}"
    );
    assert_eq!(fs::read_dir(g.join("outbox")).unwrap().count(), 8);
}
