//! Standing orders (`submit --standing`): a side's orders for kinds of
//! step, used whenever such a step awaits the side and it has sent none.
//! `resolve` writes the orders file from them, checks it at the step, keeps
//! it in `orders/` and the journal (so `verify` replays it); explicit orders
//! win; a standing file that is wrong is refused and changes nothing.

mod common;
use common::*;

use std::fs;
use std::path::Path;

fn orders(turn: u32, step: &str, side: &str, body: &str) -> String {
    format!("game: club-7\nturn: {turn}\nstep: {step}\nside: {side}\n{body}")
}

fn standing(side: &str, body: &str) -> String {
    format!("game: club-7\nside: {side}\nstanding:\n{body}")
}

fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// Turn 16's Allied movement and mortar fire, from the demo's orders, with
/// known dice (the mortar's shot decides who is still in contact).
fn to_allied_close_combat(d: &Path) -> String {
    known_dice(&d.join("g"));
    let write = |name: &str, text: String| fs::write(d.join(name), text).unwrap();
    write("f.yaml", orders(16, "allies-movement", "french", "moves:\n  - {unit: auxerrois, to: \"1906\"}\n"));
    write("a.yaml", orders(16, "allies-movement", "american", "moves: []\n"));
    run(d, &["resolve", "--dir", "g", "f.yaml", "a.yaml"]).ok();
    write(
        "m.yaml",
        orders(
            16,
            "allies-defensive-artillery-fire",
            "french",
            "mortars:\n  - {unit: mortar-battery, hex: \"1904\"}\n",
        ),
    );
    let out = run(d, &["resolve", "--dir", "g", "m.yaml"]).ok();
    assert!(out.contains("next: 16-allies-close-combat, awaiting orders from "), "{out}");
    out
}

const AUXERROIS_ATTACKS: &str = "attacks:\n  - {attackers: [auxerrois], defenders: [\"1905\"], tactics: skirmish}\n";

#[test]
fn standing_initiative_orders_resolve_the_initiative_step_with_no_files() {
    let dir = temp();
    let d = dir.path();
    new_historical_game(d);
    let mut texts = Vec::new();
    for side in ["british", "french", "american"] {
        let text = standing(side, "  initiative: {}   # never spend momentum on initiative\n");
        fs::write(d.join(format!("{side}.yaml")), &text).unwrap();
        let receipt =
            run(d, &["submit", "--dir", "g", "--standing", &format!("{side}.yaml"), "--format", "json"]).json();
        assert_eq!(receipt["stored"], format!("standing/{side}.yaml"));
        assert_eq!(receipt["steps"], serde_json::json!(["initiative"]));
        assert_eq!(receipt["sha256"], sha256(text.as_bytes()));
        assert_eq!(fs::read(d.join("g").join(format!("standing/{side}.yaml"))).unwrap(), text.as_bytes());
        texts.push((side, text));
    }
    // Turn 16 with the least orders of each awaited side; turn 17's
    // initiative then needs nobody's file.
    let mut log = String::new();
    for _ in 0..12 {
        let status = run(d, &["status", "--dir", "g", "--format", "json"]).json();
        if status["turn"] == 17 {
            break;
        }
        assert_ne!(status["step"], "17-initiative", "the initiative step waits: {log}");
        let mut files = Vec::new();
        for side in status["awaiting"].as_array().unwrap() {
            let side = side.as_str().unwrap();
            let name = format!("t-{side}.yaml");
            fs::write(d.join(&name), run(d, &["template", "--dir", "g", "--side", side]).ok()).unwrap();
            files.push(name);
        }
        let mut args = vec!["resolve", "--dir", "g"];
        args.extend(files.iter().map(String::as_str));
        log += &run(d, &args).ok();
    }
    assert!(log.contains("· 17-initiative"), "{log}");
    assert!(!log.contains("next: 17-initiative"), "{log}");
    // The journal's orders for the step are the files written from the
    // standing orders: a comment naming the standing file and its hash,
    // the header, the body.
    let entries = all_files(&d.join("g/journal"));
    let (entry, _) = entries
        .iter()
        .find(|(_, bytes)| String::from_utf8_lossy(bytes).contains("game_step: 17-initiative"))
        .expect("a journal entry for 17-initiative");
    let entry = fs::read_to_string(entry).unwrap();
    for (side, text) in &texts {
        let file = entry
            .lines()
            .find_map(|l| l.trim().strip_prefix("file: ").filter(|f| f.ends_with(&format!("-{side}.yaml"))))
            .unwrap_or_else(|| panic!("no orders file of {side} in:\n{entry}"));
        let written = fs::read_to_string(d.join("g").join(file)).unwrap();
        assert_eq!(
            written,
            format!(
                "# standing orders of {side}: standing/{side}.yaml, sha256 {}\n\
                 game: club-7\nturn: 17\nstep: initiative\nside: {side}\n",
                sha256(text.as_bytes())
            )
        );
        assert!(entry.contains(&sha256(written.as_bytes())), "the journal binds the written file's hash");
    }
    // The standing orders stay for the next turns.
    assert!(d.join("g/standing/british.yaml").exists());
    let verified = run(d, &["verify", "--dir", "g"]).ok();
    assert!(verified.contains("verified"), "{verified}");
}

#[test]
fn british_standing_defence_orders_are_used_at_an_allied_close_combat() {
    let dir = temp();
    let d = dir.path();
    new_historical_game(d);
    let text = standing(
        "british",
        "  allies-close-combat:\n    defence: {tactics: stand-fast}\n    \
         momentum: {reroll_if: [captured-dc, two-step-loss], at_most: 1}\n",
    );
    fs::write(d.join("s.yaml"), &text).unwrap();
    let out = run(d, &["submit", "--dir", "g", "--standing", "s.yaml"]).ok();
    assert!(out.contains("stored as standing/british.yaml"), "{out}");
    assert!(out.contains(&sha256(text.as_bytes())), "{out}");
    let out = to_allied_close_combat(d);
    // Only the orders still owed are asked for: the British standing
    // orders, submitted before, count as in (issue 16).
    assert!(out.contains("next: 16-allies-close-combat, awaiting orders from french\n"), "{out}");
    let status = run(d, &["status", "--dir", "g"]).ok();
    assert!(status.contains("awaiting orders from: british (standing orders), french"), "{status}");
    assert!(status.contains("standing orders of british: allies-close-combat"), "{status}");
    let json = run(d, &["status", "--dir", "g", "--format", "json"]).json();
    assert_eq!(json["standing"][0]["side"], "british");
    assert_eq!(json["standing"][0]["steps"], serde_json::json!(["allies-close-combat"]));
    assert_eq!(json["standing"][0]["covers_next"], true);
    let template = run(d, &["template", "--dir", "g", "--side", "british"]).ok();
    assert!(template.starts_with("# standing/british.yaml covers this step"), "{template}");
    let template = run(d, &["template", "--dir", "g", "--side", "french"]).ok();
    assert!(!template.contains("standing"), "{template}");
    // Only the French send orders; the British defence stands fast (the
    // default chit would be skirmish).
    fs::write(d.join("cf.yaml"), orders(16, "allies-close-combat", "french", AUXERROIS_ATTACKS)).unwrap();
    let out = run(d, &["resolve", "--dir", "g", "cf.yaml"]).ok();
    assert!(out.contains("· 16-allies-close-combat"), "{out}");
    assert!(out.contains("tactics: skirmish against stand-fast"), "{out}");
    let written = fs::read_to_string(d.join("g/orders/000005-british.yaml")).unwrap();
    assert_eq!(
        written,
        format!(
            "# standing orders of british: standing/british.yaml, sha256 {}\n\
             game: club-7\nturn: 16\nstep: allies-close-combat\nside: british\n\
             defence:\n  tactics: stand-fast\nmomentum:\n  reroll_if:\n  - captured-dc\n  - two-step-loss\n  at_most: 1\n",
            sha256(text.as_bytes())
        )
    );
    run(d, &["verify", "--dir", "g"]).ok();
}

#[test]
fn explicit_orders_win_over_standing_ones() {
    let dir = temp();
    let d = dir.path();
    new_historical_game(d);
    fs::write(d.join("s.yaml"), standing("british", "  allies-close-combat:\n    defence: {tactics: stand-fast}\n"))
        .unwrap();
    run(d, &["submit", "--dir", "g", "--standing", "s.yaml"]).ok();
    let out = to_allied_close_combat(d);
    // Only the orders still owed are asked for: the British standing
    // orders, submitted before, count as in (issue 16).
    assert!(out.contains("next: 16-allies-close-combat, awaiting orders from french\n"), "{out}");
    // The British send their own orders for this step to the inbox.
    let mine = orders(16, "allies-close-combat", "british", "# this time, withdraw\ndefence: {tactics: withdraw}\n");
    fs::write(d.join("b.yaml"), &mine).unwrap();
    run(d, &["submit", "--dir", "g", "b.yaml"]).ok();
    fs::write(d.join("cf.yaml"), orders(16, "allies-close-combat", "french", AUXERROIS_ATTACKS)).unwrap();
    let out = run(d, &["resolve", "--dir", "g", "cf.yaml"]).ok();
    assert!(out.contains("tactics: skirmish against withdraw"), "{out}");
    assert_eq!(fs::read_to_string(d.join("g/orders/000005-british.yaml")).unwrap(), mine);
    run(d, &["verify", "--dir", "g"]).ok();
}

#[test]
fn bad_standing_orders_are_refused_and_change_nothing() {
    let dir = temp();
    let d = dir.path();
    new_historical_game(d);
    let first = standing("british", "  initiative: {}\n");
    fs::write(d.join("first.yaml"), &first).unwrap();
    run(d, &["submit", "--dir", "g", "--standing", "first.yaml"]).ok();
    let before = all_files(&d.join("g"));
    let cases: [(&str, String, &str); 8] = [
        (
            "other-game.yaml",
            standing("french", "  initiative: {}\n").replace("club-7", "club-8"),
            "other-game.yaml:1:1: game: these standing orders are for game 'club-8'; this game is 'club-7'",
        ),
        (
            "unknown-side.yaml",
            standing("hessian", "  initiative: {}\n"),
            "unknown-side.yaml:2:1: side: 'hessian' is not a side of savannah-1779; the sides are british, french, \
             american",
        ),
        (
            "unknown-step.yaml",
            standing("french", "  allies-marching: {}\n"),
            "unknown-step.yaml:4:3: standing.allies-marching: 'allies-marching' is not a step of this scenario's \
             sequence of play; the steps that take orders from french are",
        ),
        (
            "not-their-step.yaml",
            standing("french", "  british-movement: {moves: []}\n"),
            "not-their-step.yaml:4:3: standing.british-movement: step 'british-movement' takes orders from british, \
             not from french",
        ),
        (
            "no-orders-step.yaml",
            standing("french", "  allies-rally: {}\n"),
            "no-orders-step.yaml:4:3: standing.allies-rally: step 'allies-rally' takes orders from no side",
        ),
        (
            "unknown-key.yaml",
            standing("french", "  initiative: {}\n  british-close-combat:\n    defence: {tacticz: stand-fast}\n"),
            "unknown-key.yaml:6:15: standing.british-close-combat.defence.tacticz: unknown field `tacticz`, \
             expected `tactics` or `hexes`",
        ),
        (
            "not-a-mapping.yaml",
            standing("french", "  initiative: stand-fast\n"),
            "not-a-mapping.yaml:4:3: standing.initiative: the orders for a step are a mapping",
        ),
        (
            "duplicate.yaml",
            standing("british", "  initiative: {}   # again\n"),
            "british has standing orders already (standing/british.yaml); give --replace to replace them",
        ),
    ];
    for (name, text, wanted) in &cases {
        fs::write(d.join(name), text).unwrap();
        let err = run(d, &["submit", "--dir", "g", "--standing", name]).fails(1);
        assert!(err.contains(wanted), "{name}: expected '{wanted}' in:\n{err}");
        assert_eq!(all_files(&d.join("g")), before, "{name} changed the game folder");
    }
    // The shape problems the rules find carry their refusal code (docs/refusals.md).
    let err = run(d, &["submit", "--dir", "g", "--standing", "unknown-key.yaml"]).fails(1);
    assert!(err.contains("unknown field `tacticz`") && err.ends_with(" [orders-shape, docs/orders.md]\n"), "{err}");
    // Orders for one step are not standing orders; nor is text that is not YAML.
    fs::write(d.join("one-step.yaml"), orders(16, "allies-movement", "french", "moves: []\n")).unwrap();
    let err = run(d, &["submit", "--dir", "g", "--standing", "one-step.yaml"]).fails(1);
    assert!(err.contains("one-step.yaml:2:1: turn: a standing orders file has `game`, `side` and `standing`"), "{err}");
    let err = run_with_input(d, &["submit", "--dir", "g", "--standing", "-"], b"game: [\n").fails(1);
    assert!(err.contains("standard input"), "{err}");
    assert_eq!(all_files(&d.join("g")), before);
    // --replace replaces them.
    let out = run(d, &["submit", "--dir", "g", "--standing", "--replace", "duplicate.yaml"]).ok();
    assert!(out.contains("replacing those sent before"), "{out}");
    assert_eq!(fs::read(d.join("g/standing/british.yaml")).unwrap(), fs::read(d.join("duplicate.yaml")).unwrap());
}

#[test]
fn standing_orders_are_withdrawn_and_then_unused() {
    let dir = temp();
    let d = dir.path();
    new_historical_game(d);
    let text = standing("british", "  allies-close-combat:\n    defence: {tactics: stand-fast}\n");
    fs::write(d.join("s.yaml"), &text).unwrap();
    run(d, &["submit", "--dir", "g", "--standing", "s.yaml"]).ok();
    let receipt =
        run(d, &["submit", "--dir", "g", "--standing", "--withdraw", "--side", "british", "--format", "json"]).json();
    assert_eq!(receipt["withdrawn"], true);
    assert_eq!(receipt["sha256"], sha256(text.as_bytes()));
    assert!(!d.join("g/standing/british.yaml").exists());
    let before = all_files(&d.join("g"));
    let err = run(d, &["submit", "--dir", "g", "--standing", "--withdraw", "--side", "british"]).fails(1);
    assert!(err.contains("british has no standing orders to withdraw"), "{err}");
    let err = run(d, &["submit", "--dir", "g", "--standing", "--withdraw", "--side", "hessian"]).fails(1);
    assert!(err.contains("'hessian' is not a side of savannah-1779"), "{err}");
    assert_eq!(all_files(&d.join("g")), before);
    // Withdrawn, they are not used: the step waits for the British.
    to_allied_close_combat(d);
    fs::write(d.join("cf.yaml"), orders(16, "allies-close-combat", "french", AUXERROIS_ATTACKS)).unwrap();
    let out = run(d, &["resolve", "--dir", "g", "cf.yaml"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("next: 16-allies-close-combat, awaiting orders from british, french"),
        "{}",
        out.stdout
    );
}

#[test]
fn standing_orders_invalid_at_their_step_refuse_it_and_change_nothing() {
    let dir = temp();
    let d = dir.path();
    new_historical_game(d);
    // Well formed, but there is no such chit: found when the step comes.
    let text = standing(
        "british",
        "  allies-close-combat:\n    defence:\n      hexes:\n        \"1905\": {tactics: no-such-chit}\n",
    );
    to_allied_close_combat(d);
    fs::write(d.join("s.yaml"), &text).unwrap();
    run(d, &["submit", "--dir", "g", "--standing", "s.yaml"]).ok();
    let cf = orders(16, "allies-close-combat", "french", AUXERROIS_ATTACKS);
    fs::write(d.join("cf.yaml"), &cf).unwrap();
    run(d, &["submit", "--dir", "g", "cf.yaml"]).ok();
    let before = all_files(&d.join("g"));
    let out = run(d, &["resolve", "--dir", "g"]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains(
            "refused: standing/british.yaml:7:18: standing.allies-close-combat.defence.hexes.1905.tactics: \
             at step 16-allies-close-combat: 'no-such-chit' is not a tactics chit"
        ) && out.stdout.contains("[unknown-tactics-chit, 12.23]"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("next: 16-allies-close-combat"), "{}", out.stdout);
    assert_eq!(all_files(&d.join("g")), before, "a refused step changes nothing");
    // The same with --format json: the refusal is listed.
    let json = run(d, &["resolve", "--dir", "g", "--format", "json"]).json();
    assert!(json["refused"][0].as_str().unwrap().starts_with("standing/british.yaml:7:18:"), "{json}");
    assert_eq!(all_files(&d.join("g")), before);
}

#[test]
fn a_standing_file_spoiled_by_hand_is_reported_not_used() {
    let dir = temp();
    let d = dir.path();
    new_historical_game(d);
    fs::create_dir(d.join("g/standing")).unwrap();
    fs::write(d.join("g/standing/american.yaml"), "game: [\n").unwrap();
    let status = run(d, &["status", "--dir", "g"]).ok();
    assert!(status.contains("standing orders of american: unreadable: standing/american.yaml:"), "{status}");
    let json = run(d, &["status", "--dir", "g", "--format", "json"]).json();
    assert!(json["standing"][0]["problem"].as_str().unwrap().contains("not YAML"), "{json}");
    // The step awaits the Americans, who sent nothing: the file is named.
    fs::write(d.join("f.yaml"), orders(16, "allies-movement", "french", "moves: []\n")).unwrap();
    let before = all_files(&d.join("g"));
    let out = run(d, &["resolve", "--dir", "g", "f.yaml"]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("refused: standing/american.yaml:2:1: not YAML"), "{}", out.stdout);
    assert_eq!(all_files(&d.join("g")), before);
}

/// Standing orders by email (`submit --email`): a message whose orders
/// file has a `standing:` section is taken as the side's standing orders,
/// from the side's own address only.
#[test]
fn standing_orders_arrive_by_email_from_the_sides_address_only() {
    let dir = temp();
    let d = dir.path();
    new_historical_game(d);
    let g = d.join("g");
    let file = standing("british", "  initiative: {}   # never spend momentum on initiative\n");
    let message = |from: &str| {
        format!("From: Player <{from}>\r\nTo: referee@example.org\r\nSubject: standing orders\r\n\r\n{file}")
            .into_bytes()
    };
    let before = all_files(&g);
    let err = run_with_input(d, &["submit", "--dir", "g", "--email", "-"], &message("charles@example.org")).exits(1);
    assert!(err.contains("refused") && err.contains("taken only from the address"), "{err}");
    // Nothing changes but the message kept in kept/refused/ with its reason.
    let kept = g.join("kept");
    let now: Vec<_> = all_files(&g).into_iter().filter(|(p, _)| !p.starts_with(&kept)).collect();
    assert!(now == before, "a refused message changes nothing else");
    assert_eq!(fs::read(g.join("kept/refused/000001.eml")).unwrap(), message("charles@example.org"));
    let out = run_with_input(d, &["submit", "--dir", "g", "--email", "-"], &message("ann@example.org")).ok();
    assert!(out.contains("standing/british.yaml"), "{out}");
    assert_eq!(fs::read_to_string(g.join("standing/british.yaml")).unwrap(), file.replace("\r\n", "\n"));
}

/// Issue 16: standing orders that spend momentum chits the side's player
/// does not hold spend only what it holds (docs/orders.md): the step
/// resolves, the written orders file says what was trimmed, the journal
/// and the report say so, and `verify` replays the step.
#[test]
fn standing_orders_spending_chits_not_held_are_trimmed_to_what_is_held() {
    let dir = temp();
    let d = dir.path();
    new_historical_game(d);
    for (side, body) in [
        ("british", "  initiative: {}\n"),
        ("american", "  initiative: {}\n"),
        ("french", "  initiative:\n    momentum: {before_roll: 2}   # more than the Allies hold\n"),
    ] {
        fs::write(d.join(format!("{side}.yaml")), standing(side, body)).unwrap();
        run(d, &["submit", "--dir", "g", "--standing", &format!("{side}.yaml")]).ok();
    }
    let mut log = String::new();
    for _ in 0..12 {
        let status = run(d, &["status", "--dir", "g", "--format", "json"]).json();
        if status["turn"] == 17 {
            break;
        }
        assert_ne!(status["step"], "17-initiative", "the initiative step waits: {log}");
        let mut files = Vec::new();
        for side in status["awaiting"].as_array().unwrap() {
            let side = side.as_str().unwrap();
            let name = format!("t-{side}.yaml");
            fs::write(d.join(&name), run(d, &["template", "--dir", "g", "--side", side]).ok()).unwrap();
            files.push(name);
        }
        let mut args = vec!["resolve", "--dir", "g"];
        args.extend(files.iter().map(String::as_str));
        log += &run(d, &args).ok();
    }
    assert!(log.contains("· 17-initiative"), "{log}");
    assert!(!log.contains("next: 17-initiative"), "{log}");
    let entries = all_files(&d.join("g/journal"));
    let (entry, _) = entries
        .iter()
        .find(|(_, bytes)| String::from_utf8_lossy(bytes).contains("game_step: 17-initiative"))
        .expect("a journal entry for 17-initiative");
    let entry = fs::read_to_string(entry).unwrap();
    let file = entry
        .lines()
        .find_map(|l| l.trim().strip_prefix("file: ").filter(|f| f.ends_with("-french.yaml")))
        .unwrap_or_else(|| panic!("no orders file of french in:\n{entry}"));
    let written = fs::read_to_string(d.join("g").join(file)).unwrap();
    let standing_sha = sha256(&fs::read(d.join("g/standing/french.yaml")).unwrap());
    const TRIMMED: &str = "momentum.before_roll: 2 trimmed to 1: the allies player holds 1 momentum chit (12.62)";
    assert_eq!(
        written,
        format!(
            "# standing orders of french: standing/french.yaml, sha256 {standing_sha}\n\
             # trimmed: {TRIMMED}\n\
             game: club-7\nturn: 17\nstep: initiative\nside: french\nmomentum:\n  before_roll: 1\n"
        )
    );
    assert!(entry.contains(&sha256(written.as_bytes())), "the journal binds the written file's hash");
    assert!(entry.contains(&format!("trimmed:\n    - '{TRIMMED}'")) || entry.contains(TRIMMED), "{entry}");
    let step: String = entry.lines().find_map(|l| l.strip_prefix("step: ")).unwrap().to_string();
    let report = run(d, &["report", "--dir", "g", "--side", "french", "--steps", &step]).ok();
    // The text report wraps its lines at 78 columns (issue 16).
    let unwrapped = report.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(unwrapped.contains(&format!("french (standing orders trimmed: {TRIMMED})")), "{report}");
    let verified = run(d, &["verify", "--dir", "g"]).ok();
    assert!(verified.contains("verified"), "{verified}");
}
