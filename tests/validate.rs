//! `adjutant validate`: an orders file names its game, turn, step and side,
//! and every mistake is listed at once with its line and column; nothing in
//! the game changes.

mod common;
use common::*;

use std::fs;

/// A new Historical game `club-7` in `dir/g`, past its first step (the
/// British set-up, Hist. Set Up, the template's orders).
fn game(dir: &std::path::Path) {
    new_game(dir);
    resolve_set_up(dir, "g");
}

fn new_game(dir: &std::path::Path) {
    run(dir, &["new", "savannah-1779", "--scenario", "historical", "--dir", "g", "--game-id", "club-7"]).ok();
}

#[test]
fn new_writes_the_set_up_state_and_its_first_step() {
    let dir = temp();
    new_game(dir.path());
    let state: adjutant::base::yaml::Value =
        adjutant::base::yaml::from_str(&fs::read_to_string(dir.path().join("g/state.yaml")).unwrap()).unwrap();
    assert_eq!(state["turn"], 16);
    // Savannah Historical Scenario: the British set-up first (Hist. Set Up),
    // then on turn 16 the Allies move first.
    assert_eq!(state["next"]["kind"], "game-turn");
    assert_eq!(state["next"]["phase"], "set-up");
    resolve_set_up(dir.path(), "g");
    let state: adjutant::base::yaml::Value =
        adjutant::base::yaml::from_str(&fs::read_to_string(dir.path().join("g/state.yaml")).unwrap()).unwrap();
    assert_eq!(state["next"]["player"], "allies");
    assert_eq!(state["next"]["phase"], "movement");
    assert_eq!(state["army_morale"]["french"], 12);
}

#[test]
fn every_header_mistake_is_listed_with_its_line() {
    let dir = temp();
    game(dir.path());
    let before = all_files(&dir.path().join("g"));
    fs::write(dir.path().join("o.yaml"), "game: club-8\nturn: 17\nstep: british-movement\nside: hessian\nmoves: []\n")
        .unwrap();
    let result = run(dir.path(), &["validate", "--dir", "g", "o.yaml"]);
    assert_eq!(result.code, 1, "{}", result.stdout);
    let lines: Vec<&str> = result.stdout.lines().collect();
    assert!(
        lines[0].starts_with("o.yaml:1:1: game: these orders are for game 'club-8'; this game is 'club-7'"),
        "{}",
        result.stdout
    );
    assert!(
        lines[1].starts_with("o.yaml:2:1: turn: these orders are for turn 17; the game is at turn 16"),
        "{}",
        result.stdout
    );
    assert!(
        lines[2].starts_with(
            "o.yaml:3:1: step: these orders are for step 'british-movement'; the game awaits step 'allies-movement'"
        ),
        "{}",
        result.stdout
    );
    assert!(
        lines[3].starts_with(
            "o.yaml:4:1: side: 'hessian' is not a side of savannah-1779; the sides are british, french, american"
        ),
        "{}",
        result.stdout
    );
    assert!(result.stdout.contains("4 problems in 1 of 1 files"));
    // A side the step does not await.
    fs::write(dir.path().join("b.yaml"), "game: club-7\nturn: 16\nstep: allies-movement\nside: british\n").unwrap();
    let out = run(dir.path(), &["validate", "--dir", "g", "b.yaml"]).stdout;
    assert!(
        out.contains("b.yaml:4:1: side: step 'allies-movement' awaits orders from american, french, not from british"),
        "{out}"
    );
    // Missing header fields, broken YAML, and not a mapping.
    fs::write(dir.path().join("m.yaml"), "moves: []\n").unwrap();
    let out = run(dir.path(), &["validate", "--dir", "g", "m.yaml"]).stdout;
    for field in ["game", "turn", "step", "side"] {
        assert!(out.contains(&format!("m.yaml:1:1: {field}: the file does not say its {field}")), "{out}");
    }
    fs::write(dir.path().join("y.yaml"), "game: club-7\nturn: [16\n").unwrap();
    let out = run(dir.path(), &["validate", "--dir", "g", "y.yaml"]).stdout;
    assert!(out.starts_with("y.yaml:3:1:") || out.starts_with("y.yaml:2:"), "{out}");
    fs::write(dir.path().join("l.yaml"), "- a\n- b\n").unwrap();
    let out = run(dir.path(), &["validate", "--dir", "g", "l.yaml"]).stdout;
    assert!(out.contains("an orders file is a mapping"), "{out}");
    // Nothing in the game changed.
    assert_eq!(all_files(&dir.path().join("g")), before);
    // Each problem ends in its refusal code and rule (docs/refusals.md).
    assert!(lines[0].ends_with(" [wrong-game, docs/orders.md]"), "{}", result.stdout);
    assert!(lines[1].ends_with(" [wrong-turn, 5]"), "{}", result.stdout);
    assert!(lines[2].ends_with(" [wrong-step, 5]"), "{}", result.stdout);
    assert!(lines[3].ends_with(" [unknown-side, docs/orders.md]"), "{}", result.stdout);
    // JSON for scripts: the lines, and each one's code and rule.
    let json = run(dir.path(), &["validate", "--dir", "g", "o.yaml", "--format", "json"]).json();
    assert_eq!(json[0]["problems"].as_array().unwrap().len(), 4);
    let codes: Vec<(&str, &str)> = json[0]["codes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["code"].as_str().unwrap(), c["rule"].as_str().unwrap()))
        .collect();
    assert_eq!(
        codes,
        [
            ("wrong-game", "docs/orders.md"),
            ("wrong-turn", "5"),
            ("wrong-step", "5"),
            ("unknown-side", "docs/orders.md")
        ]
    );
}

#[test]
fn movement_orders_are_checked_and_a_game_resolves_and_replays() {
    let dir = temp();
    game(dir.path());
    fs::write(dir.path().join("f.yaml"), "game: club-7\nturn: 16\nstep: allies-movement\nside: french\nmoves: []\n")
        .unwrap();
    fs::write(dir.path().join("a.yaml"), "game: club-7\nturn: 16\nstep: allies-movement\nside: american\nmoves: []\n")
        .unwrap();
    run(dir.path(), &["validate", "--dir", "g", "f.yaml", "a.yaml"]).ok();
    fs::write(dir.path().join("bad.yaml"), "game: club-7\nturn: 16\nstep: allies-movement\nside: french\nmoves:\n  - unit: dillon-irsh\n    to: \"9999\"\n").unwrap();
    let out = run(dir.path(), &["validate", "--dir", "g", "bad.yaml"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stdout.contains("bad.yaml:6:5: moves[0].unit:") && out.stdout.contains("dillon-irish"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains(" [unknown-unit, docs/orders.md]\n"), "{}", out.stdout);
    // Movement and rally resolve; defensive artillery fire then awaits the British.
    let done = run(dir.path(), &["resolve", "--dir", "g", "f.yaml", "a.yaml"]).ok();
    assert!(done.contains("16-allies-movement") && done.contains("16-allies-rally"), "{done}");
    // Savannah 3 IX: the French mortar could fire in the Allies' own turn.
    assert!(done.contains("next: 16-allies-defensive-artillery-fire, awaiting orders from french"), "{done}");
    assert!(dir.path().join("g/orders/000002-french.yaml").is_file());
    let verified = run(dir.path(), &["verify", "--dir", "g"]).ok();
    assert!(verified.contains("3 steps"), "{verified}"); // the set-up, movement, rally
                                                         // An orders file changed after the step fails verification.
    let orders = dir.path().join("g/orders/000002-french.yaml");
    fs::write(&orders, "game: club-7\nturn: 16\nstep: allies-movement\nside: french\nmoves: []\n# edited\n").unwrap();
    run(dir.path(), &["verify", "--dir", "g"]).fails(1);
    run(dir.path(), &["validate", "--dir", "nowhere", "o.yaml"]).fails(2);
    run(dir.path(), &["validate", "--dir", "g", "missing.yaml"]).fails(2);
}

/// Issue 4's must-show: ten different mistakes in one movement orders file,
/// each listed with its own line and column, exit 1, the game unchanged.
#[test]
fn ten_mistakes_are_listed_each_at_its_line_and_column() {
    let dir = temp();
    game(dir.path());
    let before = all_files(&dir.path().join("g"));
    fs::write(dir.path().join("ten.yaml"), TEN).unwrap();
    let result = run(dir.path(), &["validate", "--dir", "g", "ten.yaml"]);
    assert_eq!(result.code, 1, "{}", result.stdout);
    let expected = [
        ("ten.yaml:8:5: moves[1].unit:", "did you mean dillon-irish?"),
        ("ten.yaml:10:5: moves[2].unit:", "2-bn-fraser is an enemy unit"),
        ("ten.yaml:12:5: moves[3].unit:", "the american orders move it"),
        ("ten.yaml:14:5: moves[4].stack:", "the stack is empty"),
        ("ten.yaml:17:20: moves[5].path[1]:", "2014 does not adjoin 2011"),
        ("ten.yaml:20:5: moves[6].strategic:", "the weather this turn is Fog: no strategic movement"),
        ("ten.yaml:21:5: moves[7].unit:", "french-battery-a-left may not move"),
        ("ten.yaml:23:5: moves[8].unit:", "dillon-irish has already moved (moves[0])"),
        ("ten.yaml:26:12: moves[9].path[0]:", "write hex ids as quoted strings"),
        ("ten.yaml:29:5: moves[10].speed:", "unknown field `speed`"),
    ];
    let lines: Vec<&str> = result.stdout.lines().collect();
    for (n, (at, what)) in expected.iter().enumerate() {
        let line = lines.get(n).copied().unwrap_or("");
        assert!(
            line.starts_with(at) && line.contains(what),
            "problem {n}: expected {at} ... {what}\n{}",
            result.stdout
        );
    }
    assert!(result.stdout.contains("10 problems in 1 of 1 files"), "{}", result.stdout);
    assert_eq!(all_files(&dir.path().join("g")), before);
    // The same file through resolve: refused, nothing changes.
    run(dir.path(), &["resolve", "--dir", "g", "ten.yaml"]).fails(1);
    assert_eq!(all_files(&dir.path().join("g")), before);
}

/// Issue 4's must-show: the Historical Scenario's first turn advances from
/// real orders files through the Allied movement and rally, the fire and
/// close combat phases where nobody fights (the French decline to fire
/// their mortar, 11.1), the British movement and rally, Victory
/// Determination, and turn 17's initiative; then verify replays it all.
#[test]
fn the_first_turn_advances_through_every_step() {
    let dir = temp();
    game(dir.path());
    let write = |name: &str, text: &str| fs::write(dir.path().join(name), text).unwrap();
    let head = |step: &str, side: &str, turn: u32| format!("game: club-7\nturn: {turn}\nstep: {step}\nside: {side}\n");
    write(
        "f.yaml",
        &(head("allies-movement", "french", 16)
            + "moves:\n  - {unit: dillon-irish, path: [\"1911\"]}\n  - {stack: [armagnac], to: \"2111\"}\n"),
    );
    write("a.yaml", &(head("allies-movement", "american", 16) + "moves:\n  - {unit: 1-sc, to: \"1410\"}\n"));
    let out = run(dir.path(), &["resolve", "--dir", "g", "f.yaml", "a.yaml"]).ok();
    assert!(
        out.contains("Dillon's Irish Regt. moves 1910 → 1911") && out.contains("1st S.C. moves 1409 → 1410"),
        "{out}"
    );
    assert!(out.contains("next: 16-allies-defensive-artillery-fire, awaiting orders from french"), "{out}");
    // A mortar aimed out of its range is refused (Savannah 4.12: 2 to 5 hexes); declining is not.
    write(
        "fire.yaml",
        &(head("allies-defensive-artillery-fire", "french", 16) + "mortars: [{unit: mortar-battery, hex: \"1910\"}]\n"),
    );
    let refused = run(dir.path(), &["validate", "--dir", "g", "fire.yaml"]);
    assert_eq!(refused.code, 1);
    assert!(refused.stdout.contains("mortars fire 2 to 5 hexes (Savannah 4.12)"), "{}", refused.stdout);
    write("decline.yaml", &(head("allies-defensive-artillery-fire", "french", 16) + "fire: []\n"));
    let out = run(dir.path(), &["resolve", "--dir", "g", "decline.yaml"]).ok();
    assert!(out.contains("the french side declines to fire"), "{out}");
    assert!(out.contains("the allies close combat passes: no phasing combat unit is next to an enemy unit"), "{out}");
    assert!(out.contains("next: 16-british-movement, awaiting orders from british"), "{out}");
    write(
        "b.yaml",
        &(head("british-movement", "british", 16) + "moves:\n  - {unit: new-york-volunteers, to: \"1704\"}\n"),
    );
    let out = run(dir.path(), &["resolve", "--dir", "g", "b.yaml"]).ok();
    for step in [
        "16-british-movement",
        "16-british-rally",
        "16-british-defensive-artillery-fire",
        "16-british-close-combat",
        "16-victory-determination",
    ] {
        assert!(out.contains(step), "{step}: {out}");
    }
    assert!(out.contains("New York Volunteers moves 1605 → 1604 → 1704"), "{out}");
    assert!(out.contains("next: 17-initiative, awaiting orders from american, british, french"), "{out}");
    let mut files = Vec::new();
    for side in ["british", "french", "american"] {
        let name = format!("i-{side}.yaml");
        write(&name, &head("initiative", side, 17));
        files.push(name);
    }
    let mut args = vec!["resolve", "--dir", "g"];
    args.extend(files.iter().map(String::as_str));
    let out = run(dir.path(), &args).ok();
    assert!(out.contains("has the initiative on turn 17 and moves first"), "{out}");
    let verified = run(dir.path(), &["verify", "--dir", "g"]).ok();
    assert!(verified.contains("11 steps"), "{verified}"); // the set-up and turn 16's ten
}

/// Issue 5's must-show, begun: the Historical Scenario's first turn with
/// fire and close combat from real orders files: the French mortar fires,
/// Auxerrois attacks the 2nd Georgia Militia, which retreats, and advances;
/// in the British turn four units must attack Auxerrois (12.12), with
/// Prevost's +1 from a hex that takes part (14.21): a PIN holds them all;
/// turn 17 begins. verify replays it all (after the British set-up, Hist.
/// Set Up, whose step shifts every later roll).
#[test]
fn the_first_turn_with_fire_and_close_combat() {
    let dir = temp();
    new_game(dir.path());
    known_dice(&dir.path().join("g"));
    resolve_set_up(dir.path(), "g");
    let write = |name: &str, step: &str, side: &str, body: &str| {
        fs::write(dir.path().join(name), format!("game: club-7\nturn: 16\nstep: {step}\nside: {side}\n{body}"))
            .unwrap();
    };
    write("f.yaml", "allies-movement", "french", "moves:\n  - {unit: auxerrois, to: \"1906\"}\n");
    write("a.yaml", "allies-movement", "american", "moves: []\n");
    let out = run(dir.path(), &["resolve", "--dir", "g", "f.yaml", "a.yaml"]).ok();
    assert!(
        out.contains("Auxerrois moves 1909 → 1908 → 1907 → 1906")
            && out.contains("stops in the ZOC of 2nd Ga. Militia (8.31)"),
        "{out}"
    );
    write(
        "m.yaml",
        "allies-defensive-artillery-fire",
        "french",
        "mortars:\n  - {unit: mortar-battery, hex: \"1904\"}\n",
    );
    let out = run(dir.path(), &["resolve", "--dir", "g", "m.yaml"]).ok();
    assert!(
        out.contains("scatter roll 7: the shells drift to 1905")
            && out.contains("mortar-battery (2 SPs, range 5) at 2-ga-militia in 1905: needs 8"),
        "{out}"
    );
    assert!(out.contains("-1 Fog (Savannah 4.2)"), "{out}");
    assert!(out.contains("next: 16-allies-close-combat, awaiting orders from british, french"), "{out}");
    write(
        "cf.yaml",
        "allies-close-combat",
        "french",
        "attacks:\n  - {attackers: [auxerrois], defenders: [\"1905\"], tactics: skirmish}\n",
    );
    write("ca.yaml", "allies-close-combat", "american", "");
    write("cb.yaml", "allies-close-combat", "british", "defence:\n  tactics: stand-fast\n");
    let out = run(dir.path(), &["resolve", "--dir", "g", "cf.yaml", "ca.yaml", "cb.yaml"]).ok();
    for text in [
        "3 SPs against 1: 3-1 (rounded for the Defender, 12.23)",
        "-2 across Abatis (into) -1, Revetment (battery) (into) -1",
        "-1 a French attack in the Historical Scenario",
        "skirmish against stand-fast: +1 (12.23 step 4)",
        "roll 0 +1 = 1 on 3-1: attacker army-morale, defender retreat",
        "2nd Ga. Militia (2-ga-militia) retreats 1 hex from 1905 to 1804",
        "auxerrois advance into 1905 (12.23 step 9)",
    ] {
        assert!(out.contains(text), "{text}\n{out}");
    }
    write("bm.yaml", "british-movement", "british", "moves: []\n");
    let out = run(dir.path(), &["resolve", "--dir", "g", "bm.yaml"]).ok();
    assert!(out.contains("next: 16-british-close-combat, awaiting orders from british, french"), "{out}");
    // 12.12: the British units next to Auxerrois must attack it.
    write("bc.yaml", "british-close-combat", "british", "attacks: []\n");
    let refused = run(dir.path(), &["validate", "--dir", "g", "bc.yaml"]);
    assert_eq!(refused.code, 1);
    assert!(
        refused.stdout.contains("1-ga-militia in 1904 is next to auxerrois and must attack (12.12)"),
        "{}",
        refused.stdout
    );
    write(
        "bc.yaml",
        "british-close-combat",
        "british",
        "attacks:\n  - {attackers: [1-ga-militia, 2-bn-sc-royalists, 2-ga-militia, convalescents], defenders: [\"1905\"], tactics: frontal-assault}\n",
    );
    write("df.yaml", "british-close-combat", "french", "defence:\n  tactics: stand-fast\nmomentum: {reroll_if: [captured-dc, captured-ac, two-step-loss], at_most: 1}\n");
    write("da.yaml", "british-close-combat", "american", "");
    let out = run(dir.path(), &["resolve", "--dir", "g", "bc.yaml", "df.yaml", "da.yaml"]).ok();
    for text in [
        "5 SPs against 3: 3-2 (rounded for the Defender, 12.23)",
        "frontal-assault against stand-fast: -2 (12.23 step 4)",
        // 14.21: Prevost's hex takes part, though the lead unit is in another.
        "+1 Prevost in command (14.21)",
        "roll 3 -2 = 1 on 3-2: attacker pin, defender pin",
        "next: 17-initiative",
    ] {
        assert!(out.contains(text), "{text}\n{out}");
    }
    let verified = run(dir.path(), &["verify", "--dir", "g"]).ok();
    assert!(verified.contains("10 steps"), "{verified}");
}

const TEN: &str = r#"game: club-7
turn: 16
step: allies-movement
side: french
moves:
  - unit: dillon-irish             # legal
    path: ["1911"]
  - unit: dilon-irish              # 1: a misspelt id
    to: "1810"
  - unit: 2-bn-fraser              # 2: an enemy unit
    to: "1406"
  - unit: 1-sc                     # 3: an ally's unit (the american orders move it)
    to: "1410"
  - stack: []                      # 4: an empty stack
    to: "2011"
  - unit: armagnac                 # 5: a path of hexes that do not adjoin
    path: ["2011", "2014"]
  - unit: conde                    # 6: strategic movement in Fog
    to: "2315"
    strategic: true
  - unit: french-battery-a-left    # 7: artillery held in place
    to: "2210"
  - unit: dillon-irish             # 8: a unit that already moved
    path: ["1912"]
  - unit: destaing                 # 9: a hex id written as a number
    path: [2410]
  - unit: reserve-artillery        # 10: a field that does not exist
    path: ["1710"]
    speed: fast
"#;

/// Issue 16: orders that are legal but hurt the sender pass with warnings
/// (exit 0), each at its line and column, in the order of its lines, from
/// `validate` (text and JSON), in the receipt of `submit` and in the
/// answer `submit --email` mails back: a tactics chit the template marks
/// closed (12.52; played, 12.54's modifier goes to the other side): the
/// French Frontal Assault with no leader by Auxerrois, the British Turn
/// Flank inside the Perimeter against attackers outside it (Savannah
/// 4.15); a re-roll code that never falls on the side's role (12.23 step
/// 6: no Attacker's result is captured-ac); and a momentum policy of a
/// player holding no chit (12.62).
#[test]
fn legal_orders_that_hurt_the_sender_pass_with_warnings() {
    let dir = temp();
    let d = dir.path();
    new_historical_game(d);
    let write = |name: &str, step: &str, side: &str, body: &str| {
        fs::write(d.join(name), format!("game: club-7\nturn: 16\nstep: {step}\nside: {side}\n{body}")).unwrap();
    };
    write("f.yaml", "allies-movement", "french", "moves:\n  - {unit: auxerrois, to: \"1906\"}\n");
    write("a.yaml", "allies-movement", "american", "moves: []\n");
    run(d, &["resolve", "--dir", "g", "f.yaml", "a.yaml"]).ok();
    write(
        "m.yaml",
        "allies-defensive-artillery-fire",
        "french",
        "mortars:\n  - {unit: mortar-battery, hex: \"1904\"}\n",
    );
    let out = run(d, &["resolve", "--dir", "g", "m.yaml"]).ok();
    assert!(out.contains("next: 16-allies-close-combat, awaiting orders from british, french"), "{out}");
    write(
        "cf.yaml",
        "allies-close-combat",
        "french",
        "attacks:\n  - {attackers: [auxerrois], defenders: [\"1905\"], tactics: frontal-assault}\n\
         momentum: {reroll_if: [retreat, captured-ac], at_most: 1}\n",
    );
    write(
        "cb.yaml",
        "allies-close-combat",
        "british",
        "defence:\n  tactics: stand-fast\n  hexes:\n    \"1905\": {tactics: turn-flank}\n\
         momentum:\n  reroll_if: [retreat]\n  at_most: 1\n",
    );
    let before = snapshot(&d.join("g"));
    let out = run(d, &["validate", "--dir", "g", "cf.yaml", "cb.yaml"]).ok();
    let french = [
        "cf.yaml:6:51: attacks[0].tactics: warning: 'frontal-assault' is closed in this attack, Frontal Assault \
         needs leader: no leader who may command one of its units is stacked with or next to it (12.52, 12.53; \
         Savannah 4.18); played, it gives the tactics modifier -1, in the Defender's favour, instead of the \
         Tactics Matrix (12.52, 12.54)",
        "cf.yaml:7:33: momentum.reroll_if[1]: warning: 'captured-ac' never falls on the Attacker on the Close \
         Combat Table: this re-roll cannot happen (12.23 step 6)",
    ];
    let british = [
        "cb.yaml:8:14: defence.hexes.1905.tactics: warning: 'turn-flank' is closed in 1905, Turn Flank may not \
         be chosen: British units occupy a Savannah Defensive Perimeter hex and all the enemy units engaged are \
         outside the Perimeter (Savannah 4.15). (rules Savannah 4.15); played, it gives the tactics modifier +1, \
         in the Attacker's favour, instead of the Tactics Matrix (12.52, 12.54)",
        "cb.yaml:11:3: momentum.at_most: warning: 1: the british player holds no momentum chit now: it \
         re-rolls only with a chit gained first (12.62, 12.63)",
    ];
    assert_eq!(
        out,
        format!(
            "ok cf.yaml: orders of french for step allies-close-combat\n{}\n{}\n\
             ok cb.yaml: orders of british for step allies-close-combat\n{}\n{}\n",
            french[0], french[1], british[0], british[1]
        )
    );
    assert_eq!(snapshot(&d.join("g")), before, "validate changes nothing");
    let json = run(d, &["validate", "--dir", "g", "cf.yaml", "--format", "json"]).json();
    assert_eq!(json[0]["warnings"], serde_json::json!(french), "{json}");
    let out = run(d, &["submit", "--dir", "g", "cb.yaml"]).ok();
    assert!(
        out.ends_with(&format!("  the step still awaits orders from french\n  {}\n  {}\n", british[0], british[1])),
        "{out}"
    );
    // By mail, the answer carries them too (the label is the message's).
    let mut config = fs::read_to_string(d.join("g/game.yaml")).unwrap();
    config += &format!(
        "mail:\n  from: Referee <referee@example.org>\n  transport: folder\n  folder: {}\n",
        d.join("answers").display()
    );
    fs::write(d.join("g/game.yaml"), config).unwrap();
    let raw = format!(
        "From: Charles <charles@example.org>\r\nTo: referee@example.org\r\nSubject: orders\r\n\
         Message-ID: <w1@example.org>\r\n\r\n{}",
        fs::read_to_string(d.join("cf.yaml")).unwrap()
    );
    let out = run_with_input(d, &["submit", "--dir", "g", "--email", "--reply", "-"], raw.as_bytes());
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let answers: Vec<_> = fs::read_dir(d.join("answers")).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(answers.len(), 1, "{answers:?}");
    let answer = fs::read_to_string(&answers[0]).unwrap();
    // Quoted-printable soft breaks undone, and the lines unfolded.
    let answer = answer.replace("=\r\n", "").replace("=\n", "").replace("\r\n", "\n").replace("=3D", "=");
    for w in french {
        let tail = &w[w.find(": attacks[0]").or_else(|| w.find(": momentum")).unwrap()..];
        assert!(answer.contains(tail), "the answer lacks {tail}:\n{answer}");
    }
    // Orders without such choices have none.
    write(
        "ok.yaml",
        "allies-close-combat",
        "french",
        "attacks:\n  - {attackers: [auxerrois], defenders: [\"1905\"]}\n",
    );
    let out = run(d, &["validate", "--dir", "g", "ok.yaml"]).ok();
    assert_eq!(out, "ok ok.yaml: orders of french for step allies-close-combat\n");
}
