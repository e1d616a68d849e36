//! The charts read and checked: every defect found, located, with its words.

use std::path::PathBuf;

use super::*;
use crate::systems::gboar::data::counters::CountersFile;
use crate::systems::gboar::data::map::MapFile;

#[derive(Debug, Clone, Deserialize)]
struct Groups {
    #[serde(default)]
    colour_groups: Vec<Group>,
}

#[derive(Debug, Clone, Deserialize)]
struct Group {
    id: String,
}

/// The rest of a module, read from module.yaml, map.yaml and counters.yaml.
fn context(source: &Source) -> Context {
    let (info, _): (ModuleInfo, _) = source.parse("module.yaml").unwrap();
    let (groups, _): (Groups, _) = source.parse("module.yaml").unwrap();
    let (map, text): (MapFile, _) = source.parse("map.yaml").unwrap();
    let map = map.build(&source.label("map.yaml"), &text).unwrap();
    let (counters, _): (CountersFile, _) = source.parse("counters.yaml").unwrap();
    Context::default()
        .with_module(&info)
        .with_colour_groups(groups.colour_groups.iter().map(|g| g.id.as_str()))
        .with_map(&map)
        .with_counters(&counters.counters)
}

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/charts-fixtures")
}

fn fixture(name: &str) -> Source {
    Source::dir(&fixtures().join(name))
}

/// Every problem `load`, then `check`, finds in a fixture module.
fn problems(name: &str) -> Vec<Located> {
    let source = fixture(name);
    match load(&source) {
        Ok(charts) => check(&charts, &context(&source)),
        Err(list) => list,
    }
}

fn show(list: &[Located]) -> String {
    list.iter().map(|l| l.to_string()).collect::<Vec<_>>().join("\n")
}

/// The fixture's problems are exactly these: (file, line, field, words of the message).
fn expect(name: &str, want: &[(&str, usize, &str, &[&str])]) {
    let list = problems(name);
    assert_eq!(list.len(), want.len(), "{name}:\n{}", show(&list));
    for (got, (file, line, field, words)) in list.iter().zip(want) {
        let path = fixtures().join(name).join(file);
        assert_eq!(got.file, path.display().to_string(), "{got}");
        assert_eq!(got.line, Some(*line), "{got}");
        assert_eq!(got.field, *field, "{got}");
        for w in *words {
            assert!(got.message.contains(w), "'{w}' not in: {got}");
        }
    }
}

#[test]
fn savannah_charts_load_and_check_clean() {
    let source = Source::Embedded("savannah-1779".into());
    let charts = load(&source).unwrap_or_else(|list| panic!("{}", show(&list)));
    let list = check(&charts, &context(&source));
    assert!(list.is_empty(), "{}", show(&list));
    assert!(load_checked(&source, &context(&source)).is_ok());
}

#[test]
fn the_valid_fixture_checks_clean() {
    let list = problems("valid");
    assert!(list.is_empty(), "{}", show(&list));
}

#[test]
fn the_close_combat_reach_adds_every_drm_once_per_group() {
    let source = fixture("valid");
    let charts = load(&source).unwrap();
    let reach = charts.close_combat_reach(&context(&source)).unwrap();
    // As close-combat-drms.yaml's header computes it.
    assert_eq!((reach.min, reach.max), (-8, 16));
    let lowest: Vec<(&str, i32)> = reach.lowest.iter().map(|(n, v)| (n.as_str(), *v)).collect();
    assert_eq!(
        lowest,
        [
            ("die", 0),
            ("attacker-lead-unit-morale", -2),
            ("defender-lead-unit-morale", -1),
            ("tactics", -1),
            ("defender-hex-terrain", -1),
            ("attack-across-hexside", -2),
            ("weather", -1)
        ]
    );
    // One of the charge group: +2, not +1 +2.
    assert!(reach.highest.contains(&("charge".to_string(), 2)));
    assert!(!reach.highest.iter().any(|(n, _)| n == "grand-charge"));
    // Without a map, each hexside feature counts alone: slope-creek -2 is still the worst.
    let alone = charts.close_combat_reach(&Context::default()).unwrap();
    assert_eq!((alone.min, alone.max), (-8, 16));
}

#[test]
fn a_hole_in_the_close_combat_table_is_named_by_roll_and_column() {
    expect(
        "close-combat-hole",
        &[(
            "charts/close-combat.yaml",
            30,
            "close_combat_table.rows[11].results",
            &["no result for column 1-1 at roll 3", "all 3 columns (1-2, 1-1, 2-1)"],
        )],
    );
}

#[test]
fn a_drm_that_reaches_beyond_the_rows_is_explained() {
    expect(
        "close-combat-reach",
        &[(
            "charts/close-combat.yaml",
            17,
            "close_combat_table.rolls",
            &["the DRMs reach -9 to 16", "night-attack -1", "beyond rolls -8 to 16", "from -9 to 16"],
        )],
    );
}

#[test]
fn an_undefined_result_code_lists_the_codes() {
    expect(
        "undefined-code",
        &[(
            "charts/fire.yaml",
            24,
            "rifle_fire_damage.rows[5].result[0]",
            &[
                "'rout' is not a result code of codes.yaml",
                "army-morale, leader-casualty, no-effect, pin, retreat, step-loss",
            ],
        )],
    );
}

#[test]
fn a_duplicated_id_names_both_places() {
    expect(
        "duplicate-id",
        &[(
            "charts/close-combat-drms.yaml",
            22,
            "close_combat_drms.entries[8].id",
            &["'charge' is defined twice", "first at close_combat_drms.entries[7]"],
        )],
    );
}

#[test]
fn a_missing_tactics_pair_is_named() {
    expect(
        "tactics-missing-pair",
        &[(
            "charts/tactics.yaml",
            17,
            "matrix.rows.hold",
            &["no cell for the Attacker's 'hold' against the Defender's 'advance'", "3 x 3 = 9"],
        )],
    );
}

#[test]
fn a_typo_in_a_field_name_is_refused_with_the_legal_names() {
    expect(
        "unknown-field",
        &[(
            "charts/terrain.yaml",
            18,
            "hexsides[0].close_combat_drn",
            &["unknown field `close_combat_drn`", "`close_combat_drm`"],
        )],
    );
}

#[test]
fn a_float_is_refused() {
    expect(
        "float",
        &[("charts/fire.yaml", 12, "fire_table.rows[1].to_hit.2", &["floating point `6.5`", "integers only"])],
    );
}

#[test]
fn map_terrain_the_tec_lacks_is_reported_in_the_tec() {
    expect(
        "terrain-not-in-tec",
        &[(
            "charts/terrain.yaml",
            5,
            "hexes",
            &["map.yaml uses terrain 'marsh'", "does not define", "defined: clear, forest, lake"],
        )],
    );
}

#[test]
fn a_deck_that_does_not_match_its_counts_is_reported() {
    expect(
        "card-count",
        &[
            ("cards.yaml", 5, "deck.size", &["deck.size is 5 but cards lists 4"]),
            ("cards.yaml", 7, "deck.timing_counts", &["the timing counts add up to 4, deck.size is 5"]),
            ("cards.yaml", 8, "deck.flag_counts", &["the flag counts add up to 4, deck.size is 5"]),
        ],
    );
}

/// Each broken fixture is `valid/` with one file changed, so that the
/// test of its defect tests nothing else.
#[test]
fn each_broken_fixture_differs_from_valid_in_one_file() {
    fn files(dir: &std::path::Path, under: &str, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = format!("{under}{}", path.file_name().unwrap().to_string_lossy());
            if path.is_dir() {
                files(&path, &format!("{name}/"), out);
            } else {
                out.insert(name, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut valid = BTreeMap::new();
    files(&fixtures().join("valid"), "", &mut valid);
    let mut broken = 0;
    for entry in std::fs::read_dir(fixtures()).unwrap() {
        let path = entry.unwrap().path();
        if !path.is_dir() || path.ends_with("valid") {
            continue;
        }
        let mut copy = BTreeMap::new();
        files(&path, "", &mut copy);
        assert_eq!(copy.keys().collect::<Vec<_>>(), valid.keys().collect::<Vec<_>>(), "{}", path.display());
        let changed: Vec<&String> = copy.iter().filter(|(k, v)| valid.get(*k) != Some(*v)).map(|(k, _)| k).collect();
        assert_eq!(changed.len(), 1, "{}: {changed:?}", path.display());
        broken += 1;
    }
    assert_eq!(broken, 9);
}

#[test]
fn load_reports_every_file_it_cannot_read_not_only_the_first() {
    let source = Source::dir(&fixtures().join("no-such-module"));
    let list = load(&source).unwrap_err();
    assert_eq!(list.len(), FILES.len(), "{}", show(&list));
    for (problem, file) in list.iter().zip(FILES) {
        assert_eq!(problem.file, source.label(file));
        assert_eq!(problem.message, "not found");
    }
}

#[test]
fn load_reports_a_key_written_twice() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixtures().join("valid"), dir.path());
    let path = dir.path().join("charts/tactics.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("advance: {advance: 0,", "advance: {advance: 0, advance: 2,")).unwrap();
    let list = load(&Source::dir(dir.path())).unwrap_err();
    assert_eq!(list.len(), 1, "{}", show(&list));
    assert_eq!((list[0].line, list[0].field.as_str()), (Some(16), "matrix.rows.advance"));
    assert!(list[0].message.contains("duplicate entry with key \"advance\""), "{}", list[0]);
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

/// One defect made in memory on the valid fixture, and the one problem it must cause.
struct Case {
    defect: &'static str,
    make: fn(&mut Charts, &mut Context),
    file: &'static str,
    field: &'static str,
    words: &'static str,
}

#[test]
fn every_other_check_names_its_defect() {
    let cases = [
        Case {
            defect: "odds columns out of order",
            make: |c, _| c.close_combat.close_combat_table.columns.swap(1, 2),
            file: CLOSE_COMBAT,
            field: "close_combat_table.columns[2].odds",
            words: "odds 1:1 are not above the column before (2:1)",
        },
        Case {
            defect: "three rows missing",
            make: |c, _| {
                c.close_combat.close_combat_table.rows.drain(2..5);
            },
            file: CLOSE_COMBAT,
            field: "close_combat_table.rows[2]",
            words: "no row for roll -6 to -4: the table has one row per modified roll from -8 to 16",
        },
        Case {
            defect: "pin in one half",
            make: |c, _| {
                c.close_combat.close_combat_table.rows[0].results.get_mut("1-2").unwrap().attacker = vec!["pin".into()]
            },
            file: CLOSE_COMBAT,
            field: "close_combat_table.rows[0].results.1-2",
            words: "pin in one half only",
        },
        Case {
            defect: "two main results",
            make: |c, _| c.fire.rifle_fire_damage.rows[8].result = vec!["step-loss".into(), "retreat".into()],
            file: FIRE,
            field: "rifle_fire_damage.rows[8].result",
            words: "at most one result besides army-morale and leader-casualty in one side's result; found \
                    step-loss, retreat",
        },
        Case {
            defect: "leader-casualty alone",
            make: |c, _| c.fire.rifle_fire_damage.rows[2].result = vec!["leader-casualty".into()],
            file: FIRE,
            field: "rifle_fire_damage.rows[2].result",
            words: "leader-casualty is never alone",
        },
        Case {
            defect: "a gap between weather bands",
            make: |c, _| c.weather.weather_table.outcomes[1].min = Some(4),
            file: WEATHER,
            field: "weather_table.outcomes[1]",
            words: "3 falls in no band",
        },
        Case {
            defect: "a closed end on a modified roll",
            make: |c, _| c.surrender.surrender_roll.outcomes[1].max = Some(9),
            file: SURRENDER,
            field: "surrender_roll.outcomes[1]",
            words: "omit max on the last band",
        },
        Case {
            defect: "an SP band that does not start at 1",
            make: |c, _| c.fire.fire_table.rows[0].sp.min = Some(2),
            file: FIRE,
            field: "fire_table.rows[0].sp",
            words: "the bands start at min: 1",
        },
        Case {
            defect: "a missing To Hit number",
            make: |c, _| {
                c.fire.fire_table.rows[1].to_hit.remove(&2);
            },
            file: FIRE,
            field: "fire_table.rows[1].to_hit",
            words: "no To Hit number for range 2 at 3 or more SP",
        },
        Case {
            defect: "a counter outside its DRM bounds",
            make: |_, x| {
                x.counters.as_mut().unwrap().get_mut("blue-general").unwrap().close_combat_drm = Some(2);
            },
            file: CLOSE_COMBAT_DRMS,
            field: "close_combat_drms.entries[2].bounds",
            words: "counter 'blue-general' has close_combat_drm 2, outside bounds 0 to 1",
        },
        Case {
            defect: "morale that Army Morale takes outside the bounds",
            make: |_, x| x.counters.as_mut().unwrap().get_mut("red-foot").unwrap().morale = vec![2],
            file: CLOSE_COMBAT_DRMS,
            field: "close_combat_drms.entries[0].bounds",
            words: "counter 'red-foot' has morale 2, which Army Morale and the unit morale modifiers (-1 to \
                    0) take to 1 to 2, outside bounds -2 to 1",
        },
        Case {
            defect: "a leader class naming a unit",
            make: |c, _| c.leader_casualty.leader_casualty.classes[0].leaders.push("red-foot".into()),
            file: LEADER_CASUALTY,
            field: "leader_casualty.classes[0].leaders[2]",
            words: "'red-foot' is a counter of counters.yaml but not a leader",
        },
        Case {
            defect: "an effect without one of its params",
            make: |c, _| {
                c.cards.cards[1].effects[0].params.remove("entry");
            },
            file: CARDS,
            field: "cards[1].effects[0]",
            words: "effect 'add-unit' needs entry",
        },
        Case {
            defect: "an effect with a param it does not have",
            make: |c, _| {
                c.cards.cards[0].effects[0].params.insert("colour".into(), Param::Word("red".into()));
            },
            file: CARDS,
            field: "cards[0].effects[0].colour",
            words: "'colour' is not a param of effect 'draw-cards'",
        },
        Case {
            defect: "a card adding a unit that does not exist",
            make: |c, _| {
                c.cards.cards[1].effects[0].params.insert("unit".into(), Param::Word("green-foot".into()));
            },
            file: CARDS,
            field: "cards[1].effects[0].unit",
            words: "'green-foot' is not a counter of counters.yaml",
        },
        Case {
            defect: "a roll on a table that does not exist",
            make: |c, _| {
                let e = &mut c.siege_bombardment.table_i.columns.get_mut("blue").unwrap()[1].effects[0];
                e.params.insert("table".into(), Param::Word("bombardment-iii".into()));
            },
            file: SIEGE_BOMBARDMENT,
            field: "table_i.columns.blue[1].effects[0].table",
            words: "'bombardment-iii' is not a table id of this module",
        },
        Case {
            defect: "a red card that is not on-draw",
            make: |c, _| c.cards.cards[3].red = false,
            file: CARDS,
            field: "cards[3]",
            words: "red cards, and only they, have timing on-draw",
        },
        Case {
            defect: "a hexside feature the TEC lacks",
            make: |_, x| {
                x.hexside_features.as_mut().unwrap().insert("hedge".into());
            },
            file: TERRAIN,
            field: "hexsides",
            words: "map.yaml uses hexside feature 'hedge'",
        },
        Case {
            defect: "a road kind the TEC lacks",
            make: |_, x| {
                x.road_kinds.as_mut().unwrap().insert("track".into());
            },
            file: TERRAIN,
            field: "roads",
            words: "map.yaml uses road kind 'track'",
        },
        Case {
            defect: "a directional feature without out_of",
            make: |c, _| c.terrain.hexsides[1].out_of = None,
            file: TERRAIN,
            field: "hexsides[1]",
            words: "'slope' is directional: give its effects under into and out_of (out_of is missing)",
        },
        Case {
            defect: "a DRM for a side the module does not have",
            make: |c, _| c.siege_bombardment.table_i.drms[0].sides.push("green".into()),
            file: SIEGE_BOMBARDMENT,
            field: "table_i.drms[0].sides[2]",
            words: "'green' is not a side of module.yaml",
        },
        Case {
            defect: "a DRM read from a chart the module does not have",
            make: |c, _| c.fire.fire_drms.entries[1].from = Some("terrain-effects.yaml hexes[].fire_drm".into()),
            file: FIRE,
            field: "fire_drms.entries[1].from",
            words: "reads from neither a chart of this module",
        },
        Case {
            defect: "a DRM with both a value and a from",
            make: |c, _| c.morale_check.modifiers[0].value = Some(1),
            file: MORALE_CHECK,
            field: "modifiers[0]",
            words: "DRM 'leadership' has 2 of value, schedule and from",
        },
        Case {
            defect: "an adjustment the same as one that does not exist",
            make: |c, _| c.army_morale.adjustments.entries[2].same_as = Some("step-lost".into()),
            file: ARMY_MORALE,
            field: "adjustments.entries[2].same_as",
            words: "'step-lost' is not an adjustment of this chart",
        },
        Case {
            defect: "morale levels that miss the top of the track",
            make: |c, _| c.army_morale.levels[2].range.max = 9,
            file: ARMY_MORALE,
            field: "levels[2].range",
            words: "the last ends at max: 10",
        },
        Case {
            defect: "two tables with one id",
            make: |c, _| c.mortar.mortar_disable.id = "mortar-to-hit".into(),
            file: MORTAR,
            field: "mortar_disable.id",
            words: "table id 'mortar-to-hit' is also mortar.yaml mortar_to_hit.id",
        },
        Case {
            defect: "an id that is not kebab-case",
            make: |c, _| c.weather.weather_table.drms[0].id = "Turn_2".into(),
            file: WEATHER,
            field: "weather_table.drms[0].id",
            words: "'Turn_2' is not a kebab-case id",
        },
        Case {
            defect: "a column id that is not its odds",
            make: |c, _| c.close_combat.close_combat_table.columns[2].odds = [3, 1],
            file: CLOSE_COMBAT,
            field: "close_combat_table.columns[2].id",
            words: "column '2-1' has odds [3, 1], so its id is '3-1'",
        },
        Case {
            defect: "an entry hex the map does not have",
            make: |c, _| c.french_variable_entry.french_variable_entry.outcomes[1].entry = "B".into(),
            file: FRENCH_VARIABLE_ENTRY,
            field: "french_variable_entry.outcomes[1].entry",
            words: "'B' is not an entry hex of map.yaml; they are: A",
        },
        Case {
            defect: "an area on a zone the map does not have",
            make: |c, _| {
                c.terrain.areas.push(TerrainArea {
                    id: "bog".into(),
                    map: "zones/bog".into(),
                    name: "Bog".into(),
                    source: "stand-in".into(),
                    note: None,
                    overrides: TerrainOverrides {
                        movement_cost: Some(MovementCost::Mp(3)),
                        zoc_enters: None,
                        blocks_los: None,
                        fire_drm: None,
                        close_combat_drm: None,
                        open: None,
                        siege_works_allowed: None,
                        minimum_move: None,
                    },
                })
            },
            file: TERRAIN,
            field: "areas[0].map",
            words: "'bog' is not a zone of map.yaml; they are: causeway",
        },
    ];
    let source = fixture("valid");
    let (charts, context) = (load(&source).unwrap(), context(&source));
    for case in cases {
        let (mut c, mut x) = (charts.clone(), context.clone());
        (case.make)(&mut c, &mut x);
        let list = check(&c, &x);
        let label = source.label(case.file);
        let hit = list.iter().any(|l| l.file == label && l.field == case.field && l.message.contains(case.words));
        assert!(hit, "{}: no '{}' at {}:\n{}", case.defect, case.words, case.field, show(&list));
        // Only consequences of the same defect besides (a red card also changes the red count).
        assert!(list.len() <= 2, "{}:\n{}", case.defect, show(&list));
    }
}

#[test]
fn extreme_values_neither_panic_nor_hang() {
    let source = fixture("valid");
    let (mut c, mut x) = (load(&source).unwrap(), context(&source));
    let t = &mut c.close_combat.close_combat_table;
    t.rolls = Range { min: i32::MIN, max: i32::MAX };
    t.rows[0].roll = i32::MAX;
    t.columns[0].odds = [u32::MAX, 1];
    c.close_combat_drms.close_combat_drms.entries[0].bounds = Some(Range { min: i32::MIN, max: i32::MAX });
    c.close_combat_drms.close_combat_drms.entries[1].bounds = Some(Range { min: i32::MIN, max: i32::MAX });
    c.close_combat_drms.close_combat_drms.entries[7].value = Some(i32::MAX);
    c.close_combat_drms.close_combat_drms.entries[8].value = Some(i32::MIN);
    c.weather.weather_table.outcomes[0].max = Some(i32::MAX);
    c.weather.weather_table.outcomes[1].min = Some(i32::MIN);
    c.weather.conditions[0].artillery_max_range = i32::MIN;
    c.mortar.rules_summary.range = Range { min: i32::MIN, max: i32::MAX };
    c.army_morale.track = Track { min: i32::MIN, max: i32::MAX, source: "stand-in".into(), note: None };
    c.army_morale.levels[1].unit_morale_modifier = Some(i32::MIN);
    c.morale_check.unit_morale_modifiers[0].value = Some(i32::MIN);
    c.cards.deck.size = u32::MAX;
    x.counters.as_mut().unwrap().get_mut("red-foot").unwrap().morale = vec![i32::MIN, i32::MAX];
    let list = check(&c, &x);
    assert!(!list.is_empty());
    assert!(list.len() < 100, "{}", show(&list));
}

#[test]
fn a_stand_in_under_a_printed_source_is_reported() {
    let source = fixture("valid");
    let mut charts = load(&source).unwrap();
    let file = charts.files.get_mut(CODES).unwrap();
    file.set_text(
        file.text.replace("{id: pin, symbol: PIN, source: rules 13.1", "{id: pin, symbol: PIN, source: stand-in"),
    );
    let list = check(&charts, &context(&source));
    assert_eq!(list.len(), 1, "{}", show(&list));
    assert_eq!((list[0].field.as_str(), list[0].line), ("source", Some(2)));
    assert!(list[0].message.contains("combat_results[4].source is a stand-in"), "{}", list[0]);
}

#[test]
fn a_float_in_free_text_is_still_a_float() {
    let source = fixture("valid");
    let mut charts = load(&source).unwrap();
    let file = charts.files.get_mut(MORALE_CHECK).unwrap();
    file.set_text(file.text.replace("pass_at_least: 5", "pass_at_least: 5\nnote: 2.5"));
    let list = check(&charts, &context(&source));
    assert_eq!(list.len(), 1, "{}", show(&list));
    assert_eq!((list[0].field.as_str(), list[0].line), ("note", Some(6)));
}

#[test]
fn a_field_path_is_found_in_block_and_flow_yaml() {
    let text = concat!(
        "a:\n",
        "  rows:\n",
        "    - {roll: 1, results: {x: 1}}\n",
        "    - {roll: 10, results: {x: 2}}\n",
        "    # - roll: 2\n",
        "    - roll: 2\n",
        "      results:\n",
        "        x: 3\n",
    );
    assert_eq!(position(text, "a.rows"), Some((2, 3)));
    assert_eq!(position(text, "a.rows[1]"), Some((4, 5)));
    assert_eq!(position(text, "a.rows[1].results.x"), Some((4, 28)));
    assert_eq!(position(text, "a.rows[2].results.x"), Some((8, 9)));
    // Best effort: a path that goes further than the text stops where it is lost.
    assert_eq!(position(text, "a.rows[7].results"), Some((2, 3)));
    assert_eq!(position(text, "b"), None);
    // A token stands as a word: `roll: 1` is not found in `roll: 10`.
    assert_eq!(find_in_line("    - {roll: 10, results: {x: 2}}", 0, "roll: 1"), None);
    assert_eq!(find_in_line("    - {roll: 1, results: {x: 2}}", 0, "roll: 1"), Some(7));
    // A block key is not found inside an earlier flow mapping, nor a root key nested.
    let matrix = "rows:\n  a: {a: 0, b: 1}\n  b: {a: 2, b: 0}\nb: 3\n";
    assert_eq!(position(matrix, "rows.b"), Some((3, 3)));
    assert_eq!(position(matrix, "rows.a.b"), Some((2, 13)));
    assert_eq!(position(matrix, "b"), Some((4, 1)));
}

#[test]
fn ids_are_kebab_case() {
    for good in ["heavy-rain", "1-4", "v1", "a"] {
        assert!(kebab(good), "{good}");
    }
    for bad in ["", "Heavy", "heavy_rain", "-a", "a-", "a--b", "V-1", "é"] {
        assert!(!kebab(bad), "{bad}");
    }
}
