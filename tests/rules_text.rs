//! The module against the rule text itself: every hex the Savannah rules
//! name is on the map with the feature the text gives it, and every unit and
//! leader the Order of Battle, the reinforcement schedule and the special
//! rules name is a counter. The names and hexes are read from the text, so a
//! rule text that names something new fails here until the data has it.

mod common;
use common::*;

use std::collections::{BTreeMap, BTreeSet};

use adjutant::base::hex::HexId;
use adjutant::base::yaml::Value;
use adjutant::systems::gboar::data::{Module, Source};

/// The rule text: $ADJUTANT_RULES, the project's shared folder beside the
/// checkout, or the snapshot in tests/rules-text/.
fn rules() -> String {
    let shared = repo_root().join("../shared/rules/gboar-series-and-savannah-1779.txt");
    let path = std::env::var_os("ADJUTANT_RULES").map(std::path::PathBuf::from).unwrap_or_else(|| {
        if shared.is_file() {
            shared
        } else {
            repo_root().join("tests/rules-text/gboar-series-and-savannah-1779.txt")
        }
    });
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("the rule text is needed at {} (or set ADJUTANT_RULES): {e}", path.display()))
}

fn section<'a>(text: &'a str, start: &str, end: &str) -> Vec<&'a str> {
    text.lines().skip_while(|l| !l.starts_with(start)).skip(1).take_while(|l| !l.starts_with(end)).collect()
}

/// Names compare without case, punctuation or curly quotes.
fn norm(s: &str) -> String {
    let kept: String =
        s.to_lowercase().chars().map(|c| if c.is_alphanumeric() || c == ' ' { c } else { ' ' }).collect();
    kept.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn yaml(file: &str) -> Value {
    adjutant::base::yaml::from_str(
        &std::fs::read_to_string(repo_root().join("games/savannah-1779").join(file)).unwrap(),
    )
    .unwrap()
}

/// Every counter's id by each of its names (name and aliases), normalised.
fn counter_names() -> BTreeMap<String, String> {
    let mut names = BTreeMap::new();
    for c in yaml("counters.yaml")["counters"].as_sequence().unwrap() {
        let id = c["id"].as_str().unwrap().to_string();
        names.insert(norm(c["name"].as_str().unwrap()), id.clone());
        for alias in c["aliases"].as_sequence().into_iter().flatten() {
            names.insert(norm(alias.as_str().unwrap()), id.clone());
        }
    }
    names
}

/// Names of groups of counters: the Order of Battle's formations and lines
/// (counters.yaml `order_of_battle`), e.g. "South Carolina Royalists".
fn group_names() -> BTreeSet<String> {
    fn walk(v: &Value, out: &mut BTreeSet<String>) {
        match v {
            Value::Mapping(m) => {
                for key in ["name", "text"] {
                    if let Some(name) = m.get(key).and_then(Value::as_str) {
                        out.insert(norm(name));
                    }
                }
                m.values().for_each(|x| walk(x, out));
            }
            Value::Sequence(s) => s.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut out = BTreeSet::new();
    walk(&yaml("counters.yaml")["order_of_battle"], &mut out);
    out
}

#[test]
fn every_hex_the_savannah_rules_name_has_its_feature() {
    let text = rules();
    let part_two = &text[text.find("PART TWO").expect("Part Two")..];
    let named: BTreeSet<String> = part_two
        .split(|c: char| !c.is_ascii_digit())
        .filter(|t| t.len() == 4 && *t != "1779")
        .map(String::from)
        .collect();
    let module = Module::load(&Source::Embedded("savannah-1779".into())).unwrap_or_else(|e| panic!("{:?}", e.lines()));
    let map = &module.map;
    let hex = |s: &str| -> HexId { s.parse().unwrap() };
    let zone = |id: &str| map.zone(id).or_else(|| map.place(id)).unwrap_or_else(|| panic!("no {id}")).hexes.clone();
    let entry = |letter: &str| map.entry_hexes.get(letter).cloned().unwrap_or_default();
    let campaign = yaml("scenarios/campaign.yaml");
    let overrides: BTreeMap<String, String> = campaign["deployment"]["overrides"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|o| (o["hex"].as_str().unwrap().to_string(), o["unit"].as_str().unwrap().to_string()))
        .collect();
    // What the text says of each hex it names.
    let facts: Vec<(&str, &str, bool)> = vec![
        ("1404", "Spring Hill Redoubt, the victory hex (2.8)", zone("spring-hill-redoubt") == vec![hex("1404")]),
        (
            "1303",
            "part of the Savannah Defensive Perimeter (1.7)",
            zone("savannah-defensive-perimeter").contains(&hex("1303")),
        ),
        ("1105", "first hex of the Covered Way (4.9)", zone("covered-way").first() == Some(&hex("1105"))),
        ("1401", "last hex of the Covered Way (4.9)", zone("covered-way").last() == Some(&hex("1401"))),
        ("1014", "entry A (4.7)", entry("A") == vec![hex("1014")]),
        ("3123", "entry F (4.7)", entry("F") == vec![hex("3123")]),
        ("3822", "entry V-1 (4.7)", entry("V-1").contains(&hex("3822"))),
        ("3920", "entry V-1 (4.7)", entry("V-1").contains(&hex("3920"))),
        ("4214", "entry V-2 (4.7)", entry("V-2") == vec![hex("4214")]),
        ("4105", "entry V-3 (4.7)", entry("V-3") == vec![hex("4105")]),
        ("1723", "entry B-1 (schedule, turn 1)", entry("B-1") == vec![hex("1723")]),
        ("1023", "entry B-2 (schedule, turn 3)", entry("B-2") == vec![hex("1023")]),
        ("1805", "von Porbeck's campaign set-up", overrides.get("1805").map(String::as_str) == Some("von-porbeck")),
        (
            "1803",
            "Graham's Light Infantry's campaign set-up",
            overrides.get("1803").map(String::as_str) == Some("grahams-light-infantry"),
        ),
    ];
    let listed: BTreeSet<String> = facts.iter().map(|f| f.0.to_string()).collect();
    assert_eq!(named, listed, "the rule text names hexes this test does not know (or no longer names some)");
    for (h, what, holds) in facts {
        assert!(map.contains(hex(h)), "{h} is not on the map");
        assert!(holds, "{h}: the map does not make it {what}");
    }
    // The city hexes the surrender roll counts (2.1) are on the map, inside the perimeter.
    let perimeter = zone("savannah-defensive-perimeter");
    assert!(zone("city-of-savannah").iter().all(|h| perimeter.contains(h)));
}

#[test]
fn every_unit_of_the_reinforcement_schedule_is_a_counter() {
    let text = rules();
    let names = counter_names();
    let mut missing = Vec::new();
    let mut count = 0;
    for line in section(&text, "Campaign Game Reinforcement Schedule", "NOTES:") {
        let Some((army, list)) = line.strip_prefix("- ").and_then(|l| l.split_once(": ")) else { continue };
        // Drop the bracketed entry notes: [At hex 1723 "B-1"], [At HQ], ...
        let mut plain = String::new();
        let mut depth = 0;
        for c in list.chars() {
            match c {
                '[' => depth += 1,
                ']' => depth -= 1,
                _ if depth == 0 => plain.push(c),
                _ => {}
            }
        }
        for part in plain.split(',').flat_map(|p| p.split(" and ")) {
            let name = part.trim().trim_start_matches("and ").trim_end_matches('.').trim();
            if name.is_empty() {
                continue;
            }
            count += 1;
            if !names.contains_key(&norm(name)) {
                missing.push(format!("{army}: {name}"));
            }
        }
    }
    assert!(count >= 80, "only {count} names read from the schedule");
    assert!(missing.is_empty(), "named in the schedule but no counter has the name: {missing:?}");
}

#[test]
fn every_order_of_battle_line_is_mapped_onto_counters() {
    let text = rules();
    let counters = yaml("counters.yaml");
    let ids: BTreeSet<&str> =
        counters["counters"].as_sequence().unwrap().iter().map(|c| c["id"].as_str().unwrap()).collect();
    // Every {text, counters} entry of counters.yaml's order_of_battle.
    fn walk<'a>(v: &'a Value, out: &mut Vec<&'a Value>) {
        match v {
            Value::Mapping(m) => {
                if m.contains_key("text") && m.contains_key("counters") {
                    out.push(v);
                }
                m.values().for_each(|x| walk(x, out));
            }
            Value::Sequence(s) => s.iter().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    let mut entries = Vec::new();
    walk(&counters["order_of_battle"], &mut entries);
    let mapped: BTreeMap<String, &Value> = entries.iter().map(|e| (norm(e["text"].as_str().unwrap()), *e)).collect();
    let mut lines = 0;
    for line in section(&text, "Order of Battle - Savannah 1779", "Campaign Game Reinforcement Schedule") {
        let Some(item) = line.strip_prefix("- ") else { continue };
        let units: Vec<String> = match item.split_once(": ") {
            Some((_, list)) => list.split(';').map(|u| u.trim().to_string()).collect(),
            None => vec![item.split(" (").next().unwrap().trim().to_string()],
        };
        for unit in units {
            lines += 1;
            let entry = mapped
                .get(&norm(&unit))
                .unwrap_or_else(|| panic!("OOB '{unit}' is not in counters.yaml order_of_battle"));
            let list = entry["counters"].as_sequence().unwrap();
            if list.is_empty() {
                assert!(entry["note"].as_str().is_some(), "OOB '{unit}' maps to no counter and says not why");
            }
            for id in list {
                assert!(ids.contains(id.as_str().unwrap()), "OOB '{unit}': no counter {id:?}");
            }
        }
    }
    assert!(lines > 40, "only {lines} Order of Battle units read");
}

#[test]
fn every_unit_and_leader_the_special_rules_name_is_a_counter() {
    let text = rules();
    let names = counter_names();
    // 4.1: "[i.e. the King's Florida Rangers, Georgia Volunteers, ...]"
    let start = text.find("from the south [i.e. the ").expect("4.1 list") + "from the south [i.e. the ".len();
    let list = &text[start..start + text[start..].find(']').unwrap()];
    let mut wanted: Vec<String> = list
        .split(',')
        .flat_map(|p| p.split(" and "))
        .map(|p| p.trim().trim_start_matches("the ").trim_start_matches("optional ").to_string())
        .filter(|p| !p.is_empty())
        .collect();
    // Units and leaders named in 4.1 and 4.8 to 4.18 and the Historical Scenario.
    for name in [
        "Negro Volunteers",
        "Pulaski's Legion",
        "Creek Indians",
        "Chatham County Tory Militia",
        "Dillon's Irish Regiment",
        "de Noailles",
        "Dillon",
        "McIntosh",
        "Huger",
        "Maitland",
        "von Porbeck",
        "Captain Tawes",
        "Prevost",
        "d'Estaing",
        "Lincoln",
        "1st Bn. Charlestown Militia",
        "2nd Bn. Charlestown Militia",
        "Reserve Artillery",
        "1st DeLancey",
        "King's Florida Rangers",
        "Loyal Savannah Militia",
    ] {
        assert!(text.contains(name), "the rule text does not say '{name}': fix this list");
        wanted.push(name.to_string());
    }
    let groups = group_names();
    let missing: Vec<&String> =
        wanted.iter().filter(|n| !names.contains_key(&norm(n)) && !groups.contains(&norm(n))).collect();
    assert!(
        missing.is_empty(),
        "named in the special rules but no counter or Order of Battle line has the name: {missing:?}"
    );
}
