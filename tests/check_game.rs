//! `adjutant check-game`: the shipped module is consistent, and each broken
//! copy of it gets its precise complaint (file, line, field, what is wrong)
//! and exit 1.

mod common;
use common::*;

use std::fs;
use std::path::Path;

fn copy_module(to: &Path) {
    let from = repo_root().join("games/savannah-1779");
    for (path, bytes) in all_files(&from) {
        let target = to.join(path.strip_prefix(&from).unwrap());
        fs::create_dir_all(target.parent().unwrap()).unwrap();
        fs::write(target, bytes).unwrap();
    }
}

/// Replace the first occurrence of `from` in `file`, which must be there.
fn edit(module: &Path, file: &str, from: &str, to: &str) {
    let path = module.join(file);
    let text = fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{file} has no {from:?}");
    fs::write(&path, text.replacen(from, to, 1)).unwrap();
}

#[test]
fn the_shipped_module_is_consistent() {
    let dir = temp();
    let out = run(dir.path(), &["check-game", "savannah-1779"]).ok();
    assert!(out.starts_with("ok games/savannah-1779:") && out.contains("101 counters"), "{out}");
    let json = run(dir.path(), &["check-game", "--format", "json"]).json();
    assert_eq!(json["problems"].as_array().unwrap().len(), 0);
    // A copy on disk checks the same.
    copy_module(&dir.path().join("copy"));
    run(dir.path(), &["check-game", "./copy"]).ok();
}

/// The test modules the conformance cases run on are held to the same
/// checks as a shipped one: a case proves a rule only on a consistent
/// module (their leaders' DRMs once fell outside their own chart's bounds).
#[test]
fn every_test_module_is_consistent() {
    let dir = temp();
    let mut checked = 0;
    let mut entries: Vec<_> =
        fs::read_dir(repo_root().join("tests/modules")).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for module in entries.iter().filter(|p| p.join("module.yaml").is_file()) {
        let out = run(dir.path(), &["check-game", module.to_str().unwrap()]).ok();
        assert!(out.starts_with("ok "), "{}: {out}", module.display());
        checked += 1;
    }
    assert!(checked >= 6, "only {checked} test modules found");
}

struct Broken {
    what: &'static str,
    file: &'static str,
    from: &'static str,
    to: &'static str,
    /// Must appear in the complaint, which must also name the file and a line.
    says: &'static str,
}

#[test]
fn each_broken_module_gets_its_precise_complaint() {
    let cases = [
        Broken {
            what: "unknown army",
            file: "counters.yaml",
            from: "army: french\n    colour_group: mercenaries",
            to: "army: prussian\n    colour_group: mercenaries",
            says: "army 'prussian' is not one of american, british, french",
        },
        Broken {
            what: "set up off the map",
            file: "counters.yaml",
            from: "setup: {hex: \"1303\"",
            to: "setup: {hex: \"9950\"",
            says: "set up in 9950, which is not on the map",
        },
        Broken {
            what: "set up in the river",
            file: "counters.yaml",
            from: "setup: {hex: \"1303\"",
            to: "setup: {hex: \"2501\"",
            says: "which is river: prohibited terrain",
        },
        Broken {
            what: "duplicate counter id",
            file: "counters.yaml",
            from: "- id: dillon-irish",
            to: "- id: armagnac",
            says: "the id 'armagnac' is used by two counters",
        },
        Broken {
            what: "colour group of another army",
            file: "counters.yaml",
            from: "colour_group: mercenaries",
            to: "colour_group: continentals",
            says: "belongs to the american army, not the french",
        },
        Broken {
            what: "leaders command an unknown colour group",
            file: "module.yaml",
            from: "leaders_command: [continentals, american-militia]",
            to: "leaders_command: [continentals, american-milita]",
            says: "army american: leaders_command names 'american-milita', which is not a colour group",
        },
        Broken {
            what: "cooperation credit for a unit that does not exist",
            file: "module.yaml",
            from: "units: [pulaskis-legion, pulaskis-legion-replacement], credited_to: french",
            to: "units: [pulaski-legion, pulaskis-legion-replacement], credited_to: french",
            says:
                "close_combat.cooperation_credit[0].units: no counter 'pulaski-legion' in counters.yaml (Savannah 4.13)",
        },
        Broken {
            what: "cooperation credit to an army that does not exist",
            file: "module.yaml",
            from: "credited_to: french, rule: \"Savannah 4.13\"",
            to: "credited_to: spanish, rule: \"Savannah 4.13\"",
            says: "'spanish' is not an army; the armies are american, british, french (Savannah 4.13)",
        },
        Broken {
            what: "unknown unit type",
            file: "counters.yaml",
            from: "type: infantry",
            to: "type: grenadier",
            says: "type 'grenadier' is not one of",
        },
        Broken {
            what: "misspelt unit in a scenario",
            file: "scenarios/historical.yaml",
            from: "dillon-irish, armagnac",
            to: "dillon-irsh, armagnac",
            says: "no counter 'dillon-irsh' in counters.yaml (did you mean dillon",
        },
        Broken {
            what: "unit used and not used",
            file: "scenarios/historical.yaml",
            from: "units: [chatham-county-militia,",
            to: "units: [dillon-irish, chatham-county-militia,",
            says: "dillon-irish is both used and not used",
        },
        Broken {
            what: "unknown entry letter",
            file: "scenarios/campaign.yaml",
            from: "entry: \"B-2\"",
            to: "entry: \"B-9\"",
            says: "entry 'B-9' is not one of",
        },
        Broken {
            what: "short terrain row",
            file: "map.yaml",
            from: "\"05\": \"s",
            to: "\"05\": \"",
            says: "row 05 has 32 hexes; columns 10 to 42 are 33",
        },
        Broken {
            what: "unknown terrain character",
            file: "map.yaml",
            from: "\"09\": \".",
            to: "\"09\": \"?",
            says: "hex 1009: '?' is not in terrain_key",
        },
        Broken {
            what: "hexside between hexes that do not touch",
            file: "map.yaml",
            from: "sides: [\n      \"",
            to: "sides: [\n      \"1010/1020\", \"",
            says: "1010 and 1020 are not adjacent",
        },
        Broken {
            what: "Spring Hill Redoubt moved",
            file: "map.yaml",
            from: "    hexes: [\"1404\"]",
            to: "    hexes: [\"1405\"]",
            says: "Spring Hill Redoubt is 1404 by the rules, but 1405 on the map",
        },
        Broken {
            what: "1303 left out of the perimeter",
            file: "map.yaml",
            from: "hexes: [\"1303\", ",
            to: "hexes: [",
            says: "includes 1303 by the rules, but not on the map",
        },
        Broken {
            what: "entry hex moved",
            file: "map.yaml",
            from: "{id: F, hexes: [\"3123\"]",
            to: "{id: F, hexes: [\"3122\"]",
            says: "entry F is 3123 by the rules, but 3122 on the map",
        },
        Broken {
            what: "road through hexes that do not touch",
            file: "map.yaml",
            from: "hexes: [\"1014\", ",
            to: "hexes: [\"1012\", \"1014\", ",
            says: "does not adjoin",
        },
        Broken {
            what: "a Lost strength the engine does not know (Savannah 4.9)",
            file: "charts/covered-way.yaml",
            from: "strength: half-rounded-up",
            to: "strength: halved",
            says: "lost_effects.strength: unknown variant `halved`, expected one of `full`, `half-rounded-up`, `half-rounded-down`",
        },
        Broken {
            what: "a Lost switch that is not true or false (Savannah 4.9)",
            file: "charts/covered-way.yaml",
            from: "zoc: false",
            to: "zoc: none",
            says: "lost_effects.zoc: invalid type: string \"none\", expected a boolean",
        },
        Broken {
            what: "YAML syntax error",
            file: "counters.yaml",
            from: "  - id: dillon-irish",
            to: "  - id: [dillon-irish",
            says: "counters.yaml:",
        },
        Broken {
            what: "a value of the wrong kind",
            file: "counters.yaml",
            from: "strength: {full: 4, reduced: 2}",
            to: "strength: {full: four, reduced: 2}",
            says: "counters[",
        },
        Broken {
            what: "overstacked at set-up",
            file: "counters.yaml",
            from: "strength: {full: 4, reduced: 2}",
            to: "strength: {full: 9, reduced: 2}",
            says: "overstacked at set-up in",
        },
    ];
    let dir = temp();
    for (n, case) in cases.iter().enumerate() {
        let module = dir.path().join(format!("broken-{n}"));
        copy_module(&module);
        edit(&module, case.file, case.from, case.to);
        let result = run(dir.path(), &["check-game", module.to_str().unwrap()]);
        let all = format!("{}{}", result.stdout, result.stderr);
        assert_eq!(result.code, 1, "{}: exit {}\n{all}", case.what, result.code);
        let line = all
            .lines()
            .find(|l| l.contains(case.says))
            .unwrap_or_else(|| panic!("{}: no complaint saying {:?}:\n{all}", case.what, case.says));
        let file_label = module.join(case.file).display().to_string();
        let located = line.starts_with(&format!("{file_label}:"))
            && line[file_label.len() + 1..].split(':').next().is_some_and(|l| l.parse::<usize>().is_ok());
        assert!(located, "{}: the complaint does not start with {file_label}:LINE: {line}", case.what);
        assert!(all.contains("FAILED"), "{}: {all}", case.what);
    }
}

#[test]
fn a_missing_module_or_file_is_refused() {
    let dir = temp();
    let err = run(dir.path(), &["check-game", "brandywine"]).fails(2);
    assert!(err.contains("savannah-1779"), "{err}");
    copy_module(&dir.path().join("m"));
    fs::remove_file(dir.path().join("m/map.yaml")).unwrap();
    let result = run(dir.path(), &["check-game", "./m"]);
    assert_eq!(result.code, 1);
    assert!(result.stdout.contains("map.yaml: not found"), "{}", result.stdout);
}

/// Charts are data: the same binary reads a changed Terrain Effects Chart
/// from a module folder and behaves accordingly, with no rebuild.
#[test]
fn a_chart_value_changed_in_yaml_changes_the_verdict() {
    let dir = temp();
    let module = dir.path().join("m");
    copy_module(&module);
    edit(&module, "counters.yaml", "setup: {hex: \"1303\"", "setup: {hex: \"2501\"");
    let before = run(dir.path(), &["check-game", "./m"]);
    assert_eq!(before.code, 1);
    assert!(before.stdout.contains("2501, which is river: prohibited terrain"), "{}", before.stdout);
    // A player who owns the printed chart finds the river fordable at 4 MP here.
    let tec = module.join("charts/terrain.yaml");
    let text = fs::read_to_string(&tec).unwrap();
    let at = text.find("  - id: river").unwrap();
    let fixed = format!("{}{}", &text[..at], text[at..].replacen("movement_cost: prohibited", "movement_cost: 4", 1));
    fs::write(&tec, fixed).unwrap();
    run(dir.path(), &["check-game", "./m"]).ok();
}
