//! Playing with your own charts (issue 13): `module export` writes the
//! embedded module out, a game begun with the edited folder plays by its
//! values, and every command refuses the game once a module file changed.

mod common;
use common::*;

use std::path::Path;

/// The Historical game `club-7` at `parent/g` of `module`, with the dice
/// of `known_dice` (the same rolls for the same orders in every such game).
fn new_game(parent: &Path, module: &str) -> String {
    std::fs::create_dir_all(parent).unwrap();
    let out = run(parent, &["new", module, "--scenario", "historical", "--dir", "g", "--game-id", "club-7"]).ok();
    known_dice(&parent.join("g"));
    out
}

/// The Close Combat Table's 3-1 cell on a modified roll of 1, as shipped.
const SHIPPED_CELL: &str = "3-1: [[army-morale], [retreat]]";
const EDITED_CELL: &str = "3-1: [[no-effect], [step-loss]]";

/// Change the one cell in the exported close-combat.yaml: the row of roll 1.
fn edit_close_combat_table(module: &Path) {
    let path = module.join("charts/close-combat.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let row = text.find("    - roll: 1\n").expect("the row of roll 1");
    let at = row + text[row..].find(SHIPPED_CELL).expect("the 3-1 cell of roll 1");
    assert!(at - row < 400, "the cell found is in the row of roll 1");
    let edited = format!("{}{EDITED_CELL}{}", &text[..at], &text[at + SHIPPED_CELL.len()..]);
    std::fs::write(&path, edited).unwrap();
}

/// How many YAML files a module folder holds, in all its folders.
fn yaml_files(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| if p.is_dir() { yaml_files(&p) } else { usize::from(p.extension().is_some_and(|x| x == "yaml")) })
        .sum()
}

#[test]
fn a_game_plays_by_an_edited_module_folder_and_stops_when_it_changes() {
    let d = temp();
    let d = d.path();
    // Export; a second export into the same folder is refused, untouched.
    let out = run(d, &["module", "export", "savannah-1779", "charts"]).ok();
    let shipped_files = yaml_files(&repo_root().join("games/savannah-1779"));
    assert!(out.contains(&format!("{shipped_files} files of savannah-1779")), "{out}");
    for file in ["module.yaml", "map.yaml", "charts/close-combat.yaml", "scenarios/historical.yaml"] {
        let exported = std::fs::read(d.join("charts").join(file)).unwrap();
        assert_eq!(exported, std::fs::read(repo_root().join("games/savannah-1779").join(file)).unwrap(), "{file}");
    }
    let err = run(d, &["module", "export", "savannah-1779", "charts"]).fails(2);
    assert!(err.contains("charts: not empty"), "{err}");
    let err = run(d, &["module", "export", "no-such-module", "other"]).fails(2);
    assert!(err.contains("not an embedded module"), "{err}");
    assert!(!d.join("other").exists());
    edit_close_combat_table(&d.join("charts"));
    run(d, &["check-game", "./charts"]).ok();

    // The same orders and dice in a game of the embedded module and in one
    // of the edited folder: the close combat of step 4 rolls 1 on 3-1.
    let shipped = d.join("shipped");
    let created = new_game(&shipped, "savannah-1779");
    assert!(!created.contains("module "), "{created}");
    let config = std::fs::read_to_string(shipped.join("g/game.yaml")).unwrap();
    assert!(!config.contains("module_folder"), "an embedded module's game records nothing new:\n{config}");
    let own = d.join("own");
    let created = new_game(&own, "../charts");
    assert!(created.contains("charts (the SHA-256 of each file is in game.yaml)"), "{created}");
    let config = std::fs::read_to_string(own.join("g/game.yaml")).unwrap();
    let sha = adjutant::base::dice::Bytes32::sha256(&std::fs::read(d.join("charts/charts/close-combat.yaml")).unwrap());
    assert!(config.contains(&format!("    charts/close-combat.yaml: {}\n", sha.to_hex())), "{config}");
    let absolute = std::fs::canonicalize(d.join("charts")).unwrap();
    assert!(config.contains(&format!("  path: {}\n", absolute.display())), "{config}");

    let shipped_play = play_turn_16_opening(&shipped);
    let own_play = play_turn_16_opening(&own);
    assert!(
        shipped_play[2].contains("roll 0 +1 = 1 on 3-1: attacker army-morale, defender retreat"),
        "{}",
        shipped_play[2]
    );
    assert!(own_play[2].contains("roll 0 +1 = 1 on 3-1: attacker no-effect, defender step-loss"), "{}", own_play[2]);
    assert!(shipped_play[2].contains("french army morale -1"), "{}", shipped_play[2]);
    assert!(!own_play[2].contains("french army morale -1"), "{}", own_play[2]);
    assert!(own_play[2].contains("2nd Ga. Militia (2-ga-militia, 1905) loses 1 step"), "{}", own_play[2]);
    assert!(!shipped_play[2].contains("loses 1 step"), "{}", shipped_play[2]);
    // The steps before the combat are alike: the edit changed that cell only.
    assert_eq!(shipped_play[0], own_play[0]);
    let out = run(&own, &["verify", "--dir", "g"]).ok();
    assert!(out.starts_with("verified"), "{out}");
    let template = run(&own, &["template", "--dir", "g", "--side", "british"]).ok();
    assert!(template.contains("step: british-movement"), "{template}");

    // A module file changed after the game began: verify refuses (exit 1),
    // naming it, and so does every command that loads the module.
    let fire = d.join("charts/charts/fire.yaml");
    let original = std::fs::read(&fire).unwrap();
    std::fs::write(&fire, [original.as_slice(), b"# retyped\n"].concat()).unwrap();
    let named = absolute.join("charts/fire.yaml").display().to_string();
    let before = snapshot(&own.join("g"));
    for args in [
        &["verify", "--dir", "g"][..],
        &["status", "--dir", "g"],
        &["template", "--dir", "g", "--side", "british"],
        &["report", "--dir", "g", "--side", "british"],
        &["odds", "--dir", "g", "--column", "3-1", "--drm", "0"],
    ] {
        let err = run(&own, args).fails(1);
        assert!(err.contains(&format!("{named}: changed since the game began")), "{args:?}: {err}");
    }
    std::fs::write(own.join("b.yaml"), "game: club-7\nturn: 16\nstep: british-movement\nside: british\nmoves: []\n")
        .unwrap();
    for args in [
        &["validate", "--dir", "g", "b.yaml"][..],
        &["submit", "--dir", "g", "b.yaml"],
        &["resolve", "--dir", "g", "b.yaml"],
        &["player", "--dir", "g", "british=Ann"],
    ] {
        let err = run(&own, args).fails(1);
        assert!(err.contains(&format!("{named}: changed since the game began")), "{args:?}: {err}");
    }
    assert_eq!(snapshot(&own.join("g")), before, "a refused command changes nothing");
    // Put back as it was, the game goes on; a file removed or added is
    // refused too.
    std::fs::write(&fire, &original).unwrap();
    run(&own, &["verify", "--dir", "g"]).ok();
    let extra = d.join("charts/charts/extra.yaml");
    std::fs::write(&extra, "a: 1\n").unwrap();
    let err = run(&own, &["verify", "--dir", "g"]).fails(1);
    assert!(err.contains("charts/extra.yaml: added to the module folder since the game began"), "{err}");
    std::fs::remove_file(&extra).unwrap();
    std::fs::rename(d.join("charts/cards.yaml"), d.join("cards.yaml")).unwrap();
    let err = run(&own, &["verify", "--dir", "g"]).fails(1);
    assert!(err.contains(&format!("{}: gone since the game began", absolute.join("cards.yaml").display())), "{err}");
}

#[test]
fn export_fills_an_empty_folder_and_new_refuses_a_folder_that_is_no_module() {
    let d = temp();
    let d = d.path();
    std::fs::create_dir(d.join("empty")).unwrap();
    run(d, &["module", "export", "savannah-1779", "empty"]).ok();
    assert!(d.join("empty/charts/fire.yaml").is_file());
    std::fs::create_dir(d.join("nothing")).unwrap();
    let err = run(d, &["new", "./nothing", "--scenario", "historical", "--dir", "g"]).fails(2);
    assert!(err.contains("nothing/module.yaml: not found"), "{err}");
    assert!(!d.join("g").exists());
}
