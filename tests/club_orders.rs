//! Issue 16, first part: players manage their own orders by mail. A newer
//! message for a step not yet resolved replaces the side's earlier file
//! (by order of arrival at intake; the receipt names the file replaced); a
//! `withdraw:` message withdraws orders sent ahead or standing orders;
//! refusals never ask for a flag; superseded, withdrawn and refused
//! messages are kept in `kept/` with their reason, and `verify` accepts
//! them and names anything else there.

mod common;
use common::*;

use std::fs;
use std::path::Path;

/// A raw message from `from` whose plain-text body is `body`.
fn message(from: &str, id: &str, body: &str) -> Vec<u8> {
    format!("From: Player <{from}>\r\nTo: referee@example.org\r\nSubject: orders\r\nMessage-ID: <{id}@example.org>\r\n\r\n{body}")
        .into_bytes()
}

fn send(d: &Path, raw: &[u8]) -> Run {
    run_with_input(d, &["submit", "--dir", "g", "--email", "-"], raw)
}

/// `send`, with the answer written to the folder transport's outbox; the
/// answer's text.
fn send_answered(d: &Path, raw: &[u8]) -> (Run, String) {
    let outbox = d.join("answers");
    let before: Vec<_> = fs::read_dir(&outbox).map(|r| r.map(|e| e.unwrap().path()).collect()).unwrap_or_default();
    let out = run_with_input(d, &["submit", "--dir", "g", "--email", "--reply", "-"], raw);
    let new: Vec<_> =
        fs::read_dir(&outbox).unwrap().map(|e| e.unwrap().path()).filter(|p| !before.contains(p)).collect();
    assert_eq!(new.len(), 1, "one answer: {new:?}\n{}{}", out.stdout, out.stderr);
    let text = fs::read_to_string(&new[0]).unwrap();
    // The answer's body (quoted-printable or 7bit): soft breaks undone.
    (out, text.replace("=\r\n", "").replace("=\n", "").replace("\r\n", "\n").replace("=3D", "="))
}

fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

const FRENCH: &str = "charles@example.org";

fn orders(step: &str, side: &str, body: &str) -> String {
    format!("game: club-7\nturn: 16\nstep: {step}\nside: {side}\n{body}")
}

fn game(d: &Path) {
    new_historical_game(d);
    let mut config = fs::read_to_string(d.join("g/game.yaml")).unwrap();
    config += &format!(
        "mail:\n  from: Referee <referee@example.org>\n  transport: folder\n  folder: {}\n",
        d.join("answers").display()
    );
    fs::write(d.join("g/game.yaml"), config).unwrap();
}

#[test]
fn a_newer_message_replaces_the_older_and_the_older_is_kept_with_its_reason() {
    let dir = temp();
    let d = dir.path();
    game(d);
    let first = orders("allies-movement", "french", "moves: []\n");
    let second = orders("allies-movement", "french", "moves:\n  - {unit: auxerrois, to: \"1906\"}\n");
    send(d, &message(FRENCH, "m1", &first)).ok();
    let (out, answer) = send_answered(d, &message(FRENCH, "m2", &second));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let kept = "kept/superseded/000001--16-allies-movement--french.yaml";
    // The receipt names the file replaced, its hash, and where it is kept.
    assert!(
        out.stdout.contains(&format!(
            "  replacing inbox/16-allies-movement--french.yaml (sha256 {}, {} bytes), which arrived before; it is \
             kept as {kept}\n",
            sha256(first.as_bytes()),
            first.len()
        )),
        "{}",
        out.stdout
    );
    assert_eq!(fs::read_to_string(d.join("g/inbox/16-allies-movement--french.yaml")).unwrap(), second);
    assert_eq!(fs::read_to_string(d.join("g").join(kept)).unwrap(), first);
    let why = fs::read_to_string(d.join("g/kept/superseded/000001--16-allies-movement--french.reason")).unwrap();
    assert!(
        why.starts_with("superseded: french's orders for step 16-allies-movement") && why.contains("arrived later")
    );
    // The answer quotes the bytes used, line by line, and says how to
    // manage orders by mail; no flag anywhere.
    assert!(answer.contains(&format!("The bytes used, exactly as stored ({} bytes), line by line:\n", second.len())));
    for line in second.lines() {
        assert!(answer.contains(&format!("\n    {line}\n")), "{line} not quoted:\n{answer}");
    }
    assert!(answer.contains("withdraw: 16-allies-movement"), "{answer}");
    assert!(!answer.contains("--replace") && !out.stdout.contains("--replace"), "{answer}");
    // The same message again changes nothing.
    let before = all_files(&d.join("g"));
    let again = send(d, &message(FRENCH, "m3", &second)).ok();
    assert!(again.contains("the same bytes as those already in: nothing changed"), "{again}");
    assert_eq!(all_files(&d.join("g")), before);
    // A third file: numbered on, in order of arrival.
    send(d, &message(FRENCH, "m4", &first)).ok();
    assert_eq!(
        fs::read_to_string(d.join("g/kept/superseded/000002--16-allies-movement--french.yaml")).unwrap(),
        second
    );
    run(d, &["verify", "--dir", "g"]).ok();
    // The American's orders complete the step: the newest French file is used.
    send(d, &message("ben@example.org", "m5", &orders("allies-movement", "american", "moves: []\n"))).ok();
    run(d, &["resolve", "--dir", "g"]).ok();
    let used = fs::read_to_string(d.join("g/orders/000002-french.yaml")).unwrap();
    assert_eq!(used, first);
    run(d, &["verify", "--dir", "g"]).ok();
}

#[test]
fn a_withdraw_message_withdraws_orders_sent_ahead_and_standing_orders() {
    let dir = temp();
    let d = dir.path();
    game(d);
    let ahead = orders("allies-close-combat", "french", "attacks: []\n");
    send(d, &message(FRENCH, "m1", &ahead)).ok();
    let withdraw = "game: club-7\nside: french\nwithdraw: 16-allies-close-combat\n";
    let out = send(d, &message(FRENCH, "m2", withdraw)).ok();
    assert!(
        out.starts_with(&format!(
            "withdrawn: the orders for step 16-allies-close-combat of french in game club-7 ({} bytes)\n  sha256 {}\n  \
             removed inbox/16-allies-close-combat--french.yaml; kept as \
             kept/withdrawn/000001--16-allies-close-combat--french.yaml\n",
            ahead.len(),
            sha256(ahead.as_bytes())
        )),
        "{out}"
    );
    assert!(!d.join("g/inbox/16-allies-close-combat--french.yaml").exists());
    assert_eq!(
        fs::read_to_string(d.join("g/kept/withdrawn/000001--16-allies-close-combat--french.yaml")).unwrap(),
        ahead
    );
    // Again: nothing to withdraw; the refusal says what can be, and the
    // message is kept with the reason.
    let out = send(d, &message(FRENCH, "m3", withdraw)).exits(1);
    assert!(
        out.contains(
            "withdraw: french has no orders in for step '16-allies-close-combat' that can be withdrawn (orders of a \
             step already resolved stand); french's orders that can be withdrawn: none"
        ),
        "{out}"
    );
    assert_eq!(fs::read(d.join("g/kept/refused/000001.eml")).unwrap(), message(FRENCH, "m3", withdraw));
    let why = fs::read_to_string(d.join("g/kept/refused/000001.reason")).unwrap();
    assert!(why.starts_with("refused: ") && why.contains("that can be withdrawn"), "{why}");
    // Another side's orders cannot be withdrawn by this player.
    let out = send(d, &message(FRENCH, "m4", "game: club-7\nside: british\nwithdraw: standing\n")).exits(1);
    assert!(out.contains("orders of british are taken only from the address game.yaml gives"), "{out}");
    // A field a withdraw: message does not have, said with the form.
    let out = send(d, &message(FRENCH, "m5", "game: club-7\nside: french\nwithdraw: standing\nturn: 16\n")).exits(1);
    assert!(
        out.contains(":4:1: turn: not a field of a withdraw: message; a withdraw: message is three lines"),
        "{out}"
    );
    // Standing orders, sent and replaced by mail, then withdrawn.
    let standing = |body: &str| format!("game: club-7\nside: french\nstanding:\n  {body}\n");
    send(d, &message(FRENCH, "m6", &standing("allies-close-combat: {attacks: []}"))).ok();
    let out = send(d, &message(FRENCH, "m7", &standing("allies-movement: {moves: []}"))).ok();
    assert!(
        out.contains("replacing those sent before (kept as kept/superseded/000001--standing--french.yaml)"),
        "{out}"
    );
    let out = send(d, &message(FRENCH, "m8", "game: club-7\nside: french\nwithdraw: standing\n")).ok();
    assert!(out.contains("withdrawn: the standing orders of french"), "{out}");
    assert!(out.contains("kept as kept/withdrawn/000002--standing--french.yaml"), "{out}");
    assert!(!d.join("g/standing/french.yaml").exists());
    run(d, &["verify", "--dir", "g"]).ok();
    // verify names what adjutant does not write in kept/.
    fs::write(d.join("g/kept/refused/notes.txt"), "x").unwrap();
    let failed = run(d, &["verify", "--dir", "g"]);
    assert_eq!(failed.code, 1);
    let err = failed.stdout + &failed.stderr;
    assert!(err.contains("kept/refused/notes.txt (not a kept file or its reason)"), "{err}");
    fs::remove_file(d.join("g/kept/refused/notes.txt")).unwrap();
    fs::remove_file(d.join("g/kept/refused/000001.reason")).unwrap();
    // A kept file without its reason is a killed command's: the next
    // command settles it (a refused message is undone), verify then passes.
    run(d, &["status", "--dir", "g"]).ok();
    assert!(!d.join("g/kept/refused/000001.eml").exists());
    run(d, &["verify", "--dir", "g"]).ok();
}

#[test]
fn no_refusal_by_mail_asks_for_a_flag() {
    let dir = temp();
    let d = dir.path();
    game(d);
    let bad = orders("allies-movement", "french", "moves:\n  - {unit: no-such-unit, to: \"1906\"}\n");
    let (out, answer) = send_answered(d, &message(FRENCH, "m1", &bad));
    assert_eq!(out.code, 1);
    assert!(answer.contains("no-such-unit"), "{answer}");
    assert!(answer.contains("your message is kept as kept/refused/000001.eml"), "{answer}");
    assert!(answer.contains("send the whole file again by mail"), "{answer}");
    assert!(!answer.contains("--replace") && !answer.contains("give --"), "a flag in the answer:\n{answer}");
}

#[test]
fn the_second_allied_file_overspending_momentum_is_refused_at_once_naming_the_first() {
    let dir = temp();
    let d = dir.path();
    let game = new_demo_game(d);
    let g = game.to_str().unwrap();
    // Turn 16 as the demo plays it: the Allies gain momentum chits (12.63)
    // and hold 2 at the initiative of turn 17.
    let demo = repo_root().join("games/savannah-1779/demo/historical");
    let mut turn_16: Vec<_> = fs::read_dir(&demo)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_str().unwrap().starts_with("16-"))
        .collect();
    turn_16.sort();
    for file in &turn_16 {
        run(d, &["submit", "--dir", g, file.to_str().unwrap()]).ok();
    }
    run(d, &["resolve", "--dir", g]).ok();
    let status = run(d, &["status", "--dir", g, "--format", "json"]).json();
    assert_eq!(status["step"], "17-initiative", "{status}");
    assert_eq!(status["momentum"]["allies"], 2, "{status}");
    let spend = |side: &str, n: u32| {
        format!("game: savannah-demo\nturn: 17\nstep: initiative\nside: {side}\nmomentum: {{before_roll: {n}}}\n")
    };
    let mail = |from: &str, body: &str| format!("From: P <{from}>\r\nSubject: initiative\r\n\r\n{body}").into_bytes();
    let first = spend("french", 2);
    let out = run_with_input(d, &["submit", "--dir", g, "--email", "-"], &mail("destaing@example.org", &first));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    // The American file alone may spend a chit; with the French file in,
    // the Allies spend 3 of 2: refused now, naming the French file.
    let out =
        run_with_input(d, &["submit", "--dir", g, "--email", "-"], &mail("lincoln@example.org", &spend("american", 1)));
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains(&format!(
            "allies spends 3 momentum chits before the roll but holds 2 [momentum-overspent, 12.62], together with \
             the orders already in: inbox/17-initiative--french.yaml (sha256 {}); the first file in stands",
            sha256(first.as_bytes())
        )),
        "{}",
        out.stdout
    );
    assert!(!game.join("inbox/17-initiative--american.yaml").exists());
    assert!(game.join("kept/refused/000001.eml").is_file());
}

#[test]
fn default_orders_are_marked_in_the_journal_and_reports_and_are_not_counted_as_sent() {
    let dir = temp();
    let d = dir.path();
    game(d);
    let mut config = fs::read_to_string(d.join("g/game.yaml")).unwrap();
    config += "deadlines:\n  default: {after: 1h, grace: 1h}\n";
    fs::write(d.join("g/game.yaml"), config).unwrap();
    run(d, &["tick", "--dir", "g", "--now", "2026-12-01T09:00:00Z"]).ok();
    // The deadline passed, not its grace: the defaults wait in the inbox.
    run(d, &["tick", "--dir", "g", "--now", "2026-12-01T10:00:00Z"]).ok();
    let status = run(d, &["status", "--dir", "g", "--format", "json"]).json();
    let awaiting = status["awaiting"].clone();
    assert!(!awaiting.as_array().unwrap().is_empty(), "{status}");
    assert_eq!(status["defaults"], awaiting, "{status}");
    assert_eq!(status["submitted"], serde_json::json!([]), "{status}");
    let text = run(d, &["status", "--dir", "g"]).ok();
    let first = awaiting[0].as_str().unwrap();
    assert!(
        text.contains(&format!("{first} (default orders written for it at the deadline; its own file still wins)")),
        "{text}"
    );
    // The grace over, tick resolves with them.
    run(d, &["tick", "--dir", "g", "--now", "2026-12-01T11:00:00Z"]).ok();
    let entry = fs::read_to_string(d.join("g/journal/000002.yaml")).unwrap();
    assert!(entry.contains("  default: true\n"), "{entry}");
    let report = run(d, &["report", "--dir", "g", "--side", first, "--steps", "2"]).ok();
    assert!(report.contains(&format!("{first} (default: written for the side, not by it)")), "{report}");
    run(d, &["verify", "--dir", "g"]).ok();
    // A record that denies it is caught.
    fs::write(d.join("g/journal/000002.yaml"), entry.replacen("  default: true\n", "", 1)).unwrap();
    let out = run(d, &["verify", "--dir", "g"]).exits(1);
    assert!(out.contains("default orders written by `tick`, but the record says not so"), "{out}");
}

#[test]
fn a_blocked_step_is_shown_by_status_named_by_resolve_and_mailed_once_to_the_side_concerned() {
    let dir = temp();
    let d = dir.path();
    game(d);
    let mut config = fs::read_to_string(d.join("g/game.yaml")).unwrap();
    config += "deadlines:\n  default: {after: 48h}\n";
    fs::write(d.join("g/game.yaml"), config).unwrap();
    // A file that passed once and fails at its step (put there by hand here).
    fs::create_dir_all(d.join("g/inbox")).unwrap();
    let bad = orders("allies-movement", "french", "moves:\n  - {unit: nobody, to: \"1906\"}\n");
    fs::write(d.join("g/inbox/16-allies-movement--french.yaml"), &bad).unwrap();
    let status = run(d, &["status", "--dir", "g", "--format", "json"]).json();
    let blocked = &status["blocked"][0];
    assert_eq!(blocked["sides"], serde_json::json!(["french"]), "{status}");
    let problem = blocked["problem"].as_str().unwrap();
    assert!(problem.starts_with("inbox/16-allies-movement--french.yaml:6:"), "{problem}");
    assert!(problem.contains("moves[0].unit") && problem.ends_with("(orders of french)"), "{problem}");
    // The other Allied side still owes its orders; french's file is in.
    assert!(!status["owed"].as_array().unwrap().contains(&serde_json::json!("french")), "{status}");
    let text = run(d, &["status", "--dir", "g"]).ok();
    assert!(
        text.contains("blocked: step 16-allies-movement cannot be resolved until new orders come from french"),
        "{text}"
    );
    let out = run(d, &["resolve", "--dir", "g"]).exits(1);
    assert!(out.contains("refused: inbox/16-allies-movement--french.yaml:6:"), "{out}");
    // tick mails french the refusal, once.
    for _ in 0..2 {
        run(d, &["tick", "--dir", "g", "--now", "2026-12-01T09:00:00Z"]).exits(1);
    }
    let mails: Vec<String> = fs::read_dir(d.join("answers"))
        .unwrap()
        .map(|e| fs::read_to_string(e.unwrap().path()).unwrap())
        // Soft breaks and folded headers undone.
        .map(|m| m.replace("=\r\n", "").replace("=\n", "").replace("\r\n", "\n").replace("\n ", " "))
        .filter(|m| m.contains("are refused; please send new ones"))
        .collect();
    assert_eq!(mails.len(), 1, "{mails:?}");
    assert!(
        mails[0].contains("Subject: [club-7] french: your orders for 16-allies-movement are refused"),
        "{}",
        mails[0]
    );
    run(d, &["verify", "--dir", "g"]).ok();
}
