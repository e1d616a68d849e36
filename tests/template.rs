//! `adjutant template`'s guide: after the least orders the rules require,
//! comments that list the side's units on the map and the choices open to
//! it at the step, worked out by the engine's own checks. For each kind of
//! step that takes orders (movement, close combat for both sides,
//! Defensive Artillery Fire, initiative) the template (a) validates as
//! printed, (b) lists every unit of the side on the map with its hex, (c)
//! shows the step's choices (reach, targets, attacks, chits), and (d) one
//! choice taken from the guide, uncommented or filled in, validates and
//! resolves.

mod common;
use common::*;

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use serde_json::Value;

/// A Historical Scenario game `club-7` in a temporary folder, with known dice.
struct Game {
    dir: tempfile::TempDir,
}

impl Game {
    fn new() -> Game {
        let dir = temp();
        new_historical_game(dir.path());
        known_dice(&dir.path().join("g"));
        // Hist. Set Up: the British set-up, the militia at its printed hex.
        resolve_set_up(dir.path(), "g");
        Game { dir }
    }

    fn d(&self) -> &Path {
        self.dir.path()
    }

    fn write(&self, name: &str, text: &str) {
        fs::write(self.d().join(name), text).unwrap();
    }

    fn validate(&self, name: &str) -> Run {
        run(self.d(), &["validate", "--dir", "g", name])
    }

    fn resolve(&self, files: &[&str]) -> String {
        let mut args = vec!["resolve", "--dir", "g"];
        args.extend(files);
        run(self.d(), &args).ok()
    }

    fn template(&self, side: &str) -> (String, Value) {
        let text = run(self.d(), &["template", "--dir", "g", "--side", side]).ok();
        let json = run(self.d(), &["template", "--dir", "g", "--side", side, "--format", "json"]).json();
        (text, json)
    }

    /// Turn 16's Allied Movement Phase as tests/historical.rs plays it.
    fn allied_movement(&self) {
        self.write(
            "f.yaml",
            &(head(16, "allies-movement", "french") + "moves:\n  - {unit: auxerrois, to: \"1906\"}\n"),
        );
        self.write("a.yaml", &(head(16, "allies-movement", "american") + "moves: []\n"));
        self.resolve(&["f.yaml", "a.yaml"]);
    }

    /// Then the French mortar fires at 1904, as tests/historical.rs has it.
    fn allied_fire(&self) {
        self.write(
            "m.yaml",
            &(head(16, "allies-defensive-artillery-fire", "french")
                + "mortars:\n  - {unit: mortar-battery, hex: \"1904\"}\n"),
        );
        self.resolve(&["m.yaml"]);
    }

    /// (a) and (b): the template validates as printed; everything after
    /// the least orders is a comment; the JSON holds the same text; every
    /// unit of the side on the map is listed with its hex, in the text and
    /// in the JSON.
    fn checked_template(&self, side: &str) -> (String, Value) {
        let (text, json) = self.template(side);
        assert_eq!(json["text"].as_str(), Some(text.as_str()));
        let name = format!("t-{side}.yaml");
        self.write(&name, &text);
        assert_eq!(self.validate(&name).code, 0, "{text}\n{}", self.validate(&name).stdout);
        let guide = text.find("#\n# Your units (").unwrap_or_else(|| panic!("no guide:\n{text}"));
        for line in text[guide..].lines() {
            assert!(line.starts_with('#'), "not a comment: {line}");
            assert!(line.len() < 110, "a long line: {line}");
        }
        let listed: BTreeMap<String, String> = json["units"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| (u["unit"].as_str().unwrap().to_string(), u["hex"].as_str().unwrap().to_string()))
            .collect();
        let on_map = on_map(&self.d().join("g"), side);
        assert!(!on_map.is_empty());
        for (id, hex) in &on_map {
            assert_eq!(listed.get(id), Some(hex), "{id} in {hex} is not listed so");
            assert!(
                text.lines().any(|l| l.starts_with(&format!("#   {id} ")) && l.split_whitespace().nth(2) == Some(hex)),
                "{id} {hex} is not a line of the guide:\n{text}"
            );
        }
        assert_eq!(listed.len(), on_map.len(), "{listed:?}");
        (text, json)
    }
}

fn head(turn: u32, step: &str, side: &str) -> String {
    format!("game: club-7\nturn: {turn}\nstep: {step}\nside: {side}\n")
}

/// Each unit's side, from the module's data: counters.yaml's armies and
/// module.yaml's armies' sides.
fn sides() -> BTreeMap<String, String> {
    let read = |file: &str| -> adjutant::base::yaml::Value {
        adjutant::base::yaml::from_str(&fs::read_to_string(repo_root().join("games/savannah-1779").join(file)).unwrap())
            .unwrap()
    };
    let module = read("module.yaml");
    let side_of_army: BTreeMap<&str, &str> = module["armies"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|a| (a["id"].as_str().unwrap(), a["side"].as_str().unwrap()))
        .collect();
    read("counters.yaml")["counters"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|c| (c["id"].as_str().unwrap().to_string(), side_of_army[c["army"].as_str().unwrap()].to_string()))
        .collect()
}

/// The units of `side` on the map, with their hexes, from state.yaml.
fn on_map(game: &Path, side: &str) -> BTreeMap<String, String> {
    let state: adjutant::base::yaml::Value =
        adjutant::base::yaml::from_str(&fs::read_to_string(game.join("state.yaml")).unwrap()).unwrap();
    let sides = sides();
    state["units"]
        .as_mapping()
        .unwrap()
        .iter()
        .filter_map(|(id, u)| Some((id.as_str()?.to_string(), u["hex"].as_str()?.to_string())))
        .filter(|(id, _)| sides.get(id).map(String::as_str) == Some(side))
        .collect()
}

fn unit<'a>(json: &'a Value, id: &str) -> &'a Value {
    json["units"].as_array().unwrap().iter().find(|u| u["unit"] == id).unwrap_or_else(|| panic!("no {id}"))
}

fn choices<'a>(json: &'a Value, key: &str) -> Vec<&'a Value> {
    json["choices"].as_array().unwrap().iter().filter(|c| c["key"] == key).collect()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect()
}

/// The template with the first comment line that contains `needle`
/// uncommented: `# key: value` loses `# `, `#   - item` its `#`.
fn uncomment(text: &str, needle: &str) -> String {
    let mut done = false;
    let lines: Vec<String> = text
        .lines()
        .map(|l| {
            if done || !l.starts_with('#') || !l.contains(needle) {
                return l.to_string();
            }
            done = true;
            match l.strip_prefix("# ") {
                Some(rest) if !rest.starts_with(' ') => rest.to_string(),
                _ => l[1..].to_string(),
            }
        })
        .collect();
    assert!(done, "no comment line with {needle}:\n{text}");
    lines.join("\n") + "\n"
}

#[test]
fn the_movement_guide_gives_each_units_reach_as_validate_finds_it() {
    let g = Game::new();
    let (text, json) = g.checked_template("french");
    assert_eq!(json["kind"], "movement");
    assert!(text.contains("\nmoves: []\n#\n# Your units (french, 16-allies-movement; docs/orders.md, Movement):\n"));
    // (c) The reach of a unit is what `validate` says it can reach.
    let reach = strings(&unit(&json, "auxerrois")["reach"]);
    assert!(reach.contains(&"1906".to_string()), "{reach:?}");
    g.write("far.yaml", &(head(16, "allies-movement", "french") + "moves:\n  - {unit: auxerrois, to: \"0101\"}\n"));
    let refused = g.validate("far.yaml").exits(1);
    let said = refused.split("auxerrois can reach ").nth(1).unwrap().split(" (allowance").next().unwrap();
    assert_eq!(said.split(", ").collect::<Vec<_>>(), reach, "{refused}");
    assert!(text.contains("#   auxerrois                 1909  infantry, 3 SP, 4 MP"), "{text}");
    assert!(text.contains("#       reach: 1509-1511 1607 1609-1611 "), "{text}");
    // Units the scenario holds in place say why (Hist. Special Rules), and
    // fog forbids strategic movement (Savannah 4.2).
    let mortar = unit(&json, "mortar-battery");
    assert_eq!(mortar["reach"].as_array().map(Vec::len), Some(0));
    assert!(mortar["notes"][0].as_str().unwrap().starts_with("may not move: no mortar may move"), "{mortar}");
    assert!(text.contains("Not this phase: the weather this turn is Fog"), "{text}");
    // (d) The guide's example move, put in the orders, validates and resolves.
    let example = choices(&json, "moves").into_iter().find_map(|c| c["yaml"].as_str()).unwrap().to_string();
    assert!(text.contains(&format!("#   - {example}")), "{text}");
    let filled = text.replace("moves: []\n", &format!("moves:\n  - {example}\n"));
    g.write("f.yaml", &filled);
    assert_eq!(g.validate("f.yaml").code, 0, "{filled}");
    let (american, _) = g.template("american");
    g.write("a.yaml", &american);
    let out = g.resolve(&["f.yaml", "a.yaml"]);
    let (id, to) = example.trim_matches(['{', '}']).split_once(", to: ").unwrap();
    let id = id.trim_start_matches("unit: ");
    assert_eq!(on_map(&g.d().join("g"), "french")[id], to.trim_matches('"'), "{out}");
}

#[test]
fn the_fire_guide_lists_the_mortars_targets_as_the_fire_checks_find_them() {
    let g = Game::new();
    g.allied_movement();
    let (text, json) = g.checked_template("french");
    assert_eq!(json["kind"], "fire");
    // (c) Each hex the mortar may aim at, with the range and To Hit number
    // of the Mortar To Hit Table; every one validates, a hex left out does not.
    let aims = choices(&json, "mortars");
    let hexes: Vec<&str> = aims.iter().map(|c| c["yaml"].as_str().unwrap()).collect();
    assert!(hexes.contains(&"{unit: mortar-battery, hex: \"1904\"}"), "{hexes:?}");
    let at_1904 = aims.iter().find(|c| c["yaml"].as_str().unwrap().contains("1904")).unwrap();
    assert_eq!((at_1904["details"]["range"].as_u64(), at_1904["details"]["to_hit"].as_i64()), (Some(5), Some(8)));
    assert!(at_1904["text"].as_str().unwrap().starts_with("1-ga-militia: range 5, needs 8"), "{at_1904}");
    assert!(text.contains("#   - {unit: mortar-battery, hex: \"1904\"}"), "{text}");
    for aim in &hexes {
        g.write("m.yaml", &(head(16, "allies-defensive-artillery-fire", "french") + &format!("mortars: [{aim}]\n")));
        assert_eq!(g.validate("m.yaml").code, 0, "{aim}");
    }
    // 1-bn-fraser's hex, out of the mortar's range, is not offered.
    assert!(!hexes.iter().any(|h| h.contains("1403")));
    g.write(
        "m.yaml",
        &(head(16, "allies-defensive-artillery-fire", "french") + "mortars: [{unit: mortar-battery, hex: \"1403\"}]\n"),
    );
    assert!(g.validate("m.yaml").exits(1).contains("mortars fire 2 to 5 hexes"));
    // The French guns fire in the other player's turn.
    assert!(unit(&json, "naval-bombardiers")["notes"][0].as_str().unwrap().contains("other player's turn"));
    // (d) The line for 1904 uncommented, under `mortars:`, fires.
    let filled =
        uncomment(&text.replace("fire: []\n", "fire: []\nmortars:\n"), "{unit: mortar-battery, hex: \"1904\"}");
    g.write("m.yaml", &filled);
    assert_eq!(g.validate("m.yaml").code, 0, "{filled}");
    let out = g.resolve(&["m.yaml"]);
    assert!(out.contains("[Savannah 4.12] scatter roll"), "{out}");
    assert!(out.contains("mortar-battery (2 SPs, range 5) at 1-ga-militia in 1904: needs 8"), "{out}");
}

#[test]
fn the_fire_guide_lists_the_guns_that_may_fire_alone_and_together() {
    let g = Game::new();
    // A French unit moves next to two British guns.
    g.write(
        "f.yaml",
        &(head(16, "allies-movement", "french") + "moves:\n  - {unit: champagne-chasseurs, to: \"1506\"}\n"),
    );
    g.write("a.yaml", &(head(16, "allies-movement", "american") + "moves: []\n"));
    g.resolve(&["f.yaml", "a.yaml"]);
    let (text, json) = g.checked_template("british");
    let fires: Vec<&str> = choices(&json, "fire").iter().filter_map(|c| c["yaml"].as_str()).collect();
    assert_eq!(
        fires,
        [
            "{guns: [carolina-battery], target: champagne-chasseurs}",
            "{guns: [fort-battery], target: champagne-chasseurs}",
            "{guns: [carolina-battery, fort-battery], target: champagne-chasseurs}",
        ],
        "{text}"
    );
    for fire in &fires {
        g.write("b.yaml", &(head(16, "allies-defensive-artillery-fire", "british") + &format!("fire: [{fire}]\n")));
        assert_eq!(g.validate("b.yaml").code, 0, "{fire}");
    }
    // A gun out of range (fog, Savannah 4.2) says so.
    assert!(unit(&json, "battery-a")["notes"][0].as_str().unwrap().starts_with("no target in range"));
    // (d) The guns firing together, uncommented under `fire:`.
    let filled = uncomment(&text.replace("fire: []\n", "fire:\n"), "{guns: [carolina-battery, fort-battery]");
    g.write("b.yaml", &filled);
    let (french, _) = g.template("french");
    g.write("m.yaml", &french);
    let out = g.resolve(&["b.yaml", "m.yaml"]);
    assert!(out.contains("carolina-battery, fort-battery (4 SPs, range 1) fire at champagne-chasseurs"), "{out}");
}

#[test]
fn the_close_combat_guides_give_the_attacks_and_the_defence_with_their_chits() {
    let g = Game::new();
    g.allied_movement();
    g.allied_fire();
    // The attacker: the attack 12.12 forces, already in the orders, its
    // odds and the tactics chits open to it; momentum held.
    let (text, json) = g.checked_template("french");
    assert_eq!(json["kind"], "attack");
    let attacks = choices(&json, "attacks");
    assert_eq!(attacks.len(), 1, "{attacks:?}");
    let attack = attacks[0];
    assert_eq!(attack["yaml"], "{attackers: [auxerrois], defenders: [\"1905\"]}");
    assert_eq!(attack["in_orders"], true);
    assert_eq!(attack["details"]["column"], "3-1");
    let open = strings(&attack["details"]["tactics_open"]);
    assert!(open.contains(&"skirmish".to_string()), "{open:?}");
    assert!(attack["details"]["tactics_closed"]["frontal-assault"].as_str().unwrap().contains("leader"));
    assert!(unit(&json, "auxerrois")["notes"][0].as_str().unwrap().starts_with("must attack (12.12)"));
    assert_eq!(choices(&json, "momentum")[0]["details"]["chits"], 1);
    assert!(text.contains("allies hold 1 chit;"), "{text}");
    // The defender: its hex next to the enemy and the chits open to it.
    let (btext, bjson) = g.checked_template("british");
    assert_eq!(bjson["kind"], "defence");
    let defence = choices(&bjson, "defence");
    let hex = defence.iter().find(|c| c["yaml"].as_str().is_some_and(|y| y.contains("\"1905\""))).unwrap();
    assert_eq!(strings(&hex["details"]["attackers"]), ["auxerrois"]);
    let chit = strings(&hex["details"]["tactics_open"]).first().cloned().unwrap();
    assert!(unit(&bjson, "2-ga-militia")["notes"][0].as_str().unwrap().contains("may be attacked by auxerrois"));
    // (d) The attack filled in with an open chit; the defence's line uncommented.
    let attack_chit = open.last().unwrap();
    let filled = text.replace("  - '1905'\n", &format!("  - '1905'\n  tactics: {attack_chit}\n"));
    g.write("cf.yaml", &filled);
    let defended = uncomment(&btext, &format!("defence: {{tactics: {chit}}}"));
    g.write("cb.yaml", &defended);
    assert_eq!(g.validate("cf.yaml").code, 0, "{filled}");
    assert_eq!(g.validate("cb.yaml").code, 0, "{defended}");
    let out = g.resolve(&["cf.yaml", "cb.yaml"]);
    assert!(out.contains(&format!("{attack_chit} against {chit}")), "{out}");
}

#[test]
fn the_initiative_guide_gives_the_chits_held_and_the_spending_open() {
    let g = Game::new();
    g.allied_movement();
    g.allied_fire();
    // The rest of turn 16 from the templates, as printed.
    let mut steps = 0;
    loop {
        let status = run(g.d(), &["status", "--dir", "g", "--format", "json"]).json();
        if status["step"] == "17-initiative" {
            break;
        }
        let mut files = Vec::new();
        for side in status["awaiting"].as_array().unwrap() {
            let side = side.as_str().unwrap();
            let name = format!("{steps}-{side}.yaml");
            g.write(&name, &g.template(side).0);
            files.push(name);
        }
        g.resolve(&files.iter().map(String::as_str).collect::<Vec<_>>());
        steps += 1;
        assert!(steps < 10, "{status}");
    }
    let (french, json) = g.checked_template("french");
    assert_eq!(json["kind"], "initiative");
    assert!(french.contains("Momentum chits held (12.62): allies 1, british 0."), "{french}");
    assert!(choices(&json, "momentum").iter().any(|c| c["yaml"] == "{before_roll: 1}"));
    let (american, _) = g.checked_template("american");
    let (british, bjson) = g.checked_template("british");
    // The British hold none: nothing to spend before the roll, and dictating is out of reach.
    assert!(!choices(&bjson, "momentum").iter().any(|c| c["yaml"] == "{before_roll: 1}"), "{british}");
    assert!(british.contains("you\n#       #   hold 0") || british.contains("you hold 0"), "{british}");
    // (d) The French line uncommented: the Allies spend their chit.
    let spend = uncomment(&french, "momentum: {before_roll: 1}");
    assert!(spend.contains("\nmomentum: {before_roll: 1}"), "{spend}");
    g.write("i-f.yaml", &spend);
    g.write("i-a.yaml", &american);
    g.write("i-b.yaml", &british);
    assert_eq!(g.validate("i-f.yaml").code, 0, "{spend}");
    let out = g.resolve(&["i-f.yaml", "i-a.yaml", "i-b.yaml"]);
    assert!(out.contains("allies spends 1 momentum chit(s) before the initiative roll: +2"), "{out}");
}
