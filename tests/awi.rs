//! The AWI Southern Campaign plays by email through the shell (issue 15):
//! a British garrison cut off from the start tests for attrition at the
//! end of each British turn, the rolls recompute under `verify`, each
//! side's reports carry its own ledger only, the map marks the garrison
//! out of communication, and orders are refused with file, line and field.

use std::path::Path;
use std::time::Duration;

mod common;

fn wait() -> Duration {
    Duration::from_secs(5)
}

fn orders(turn: u32, side: &str, body: &str) -> Vec<u8> {
    format!("game: isolated\nturn: {turn}\nstep: {side}-operations\nside: {side}\n{body}").into_bytes()
}

#[test]
fn an_isolated_garrison_is_tested_for_attrition_by_email() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("isolated");
    small_game(&g, "isolated");

    // A path through a hex that is not next: refused, located, nothing changes.
    let bad = orders(1, "british", "moves:\n  - {unit: foot, path: [\"0103\"]}\n");
    let err = adjutant::game::inbox::submit(&g, &bad, "bad.yaml", adjutant::game::inbox::Replace::No, wait())
        .unwrap_err()
        .to_string();
    assert!(err.contains("bad.yaml:6:") && err.contains("moves[0].path[0]") && err.contains("not-adjacent"), "{err}");

    let mut rolls = 0;
    for turn in 1..=3 {
        adjutant::game::inbox::submit(
            &g,
            &orders(turn, "british", "moves: []\n"),
            "b.yaml",
            adjutant::game::inbox::Replace::No,
            wait(),
        )
        .unwrap();
        let p = adjutant::game::play::resolve_game(&g, &[], wait()).unwrap();
        // The garrison's first month isolated is free; then it is tested at
        // the end of each British turn: one D100.
        let tested = usize::from(turn > 1);
        assert_eq!(p.resolved[0].rolls.len(), tested, "turn {turn}");
        rolls += tested;
        let dispatch = p.reports.unwrap();
        let british = unwrapped(&std::fs::read_to_string(g.join(&dispatch).join("british.txt")).unwrap());
        let american = unwrapped(&std::fs::read_to_string(g.join(&dispatch).join("american.txt")).unwrap());
        let said = if turn == 1 { "need not test for attrition" } else { "attrition test" };
        assert!(british.contains(said), "{british}");
        assert!(british.contains("British ledger") && !british.contains("American ledger"), "{british}");
        assert!(american.contains("American ledger") && !american.contains("British ledger"), "{american}");
        let map = std::fs::read_to_string(g.join(&dispatch).join("map.svg")).unwrap();
        assert!(map.contains(">OC<"), "the garrison is marked out of communication");
        let american_moves = if turn == 1 { "moves:\n  - {unit: militia, path: [\"0405\"]}\n" } else { "moves: []\n" };
        adjutant::game::inbox::submit(
            &g,
            &orders(turn, "american", american_moves),
            "a.yaml",
            adjutant::game::inbox::Replace::No,
            wait(),
        )
        .unwrap();
        let p = adjutant::game::play::resolve_game(&g, &[], wait()).unwrap();
        assert!(p.resolved[0].rolls.is_empty(), "the Americans roll for no attrition");
        assert_eq!(p.next_step.is_none(), turn == 3, "the scenario ends after its last month");
    }
    assert_eq!(rolls, 2);
    let verdict = adjutant::game::verify::verify(&g).unwrap();
    assert!(verdict.ok, "{:?}", verdict.failure);
    // ... and catches a forged roll.
    let entry = g.join("journal/000003.yaml");
    let text = std::fs::read_to_string(&entry).unwrap();
    let at = text.find("value: ").expect("a roll in the third step");
    let digits: String = text[at + 7..].chars().take_while(char::is_ascii_digit).collect();
    let value: u32 = digits.parse().unwrap();
    let forged = text.replacen(&format!("value: {value}"), &format!("value: {}", value % 100 + 1), 1);
    std::fs::write(&entry, forged).unwrap();
    assert!(!adjutant::game::verify::verify(&g).unwrap().ok, "a changed roll is caught");
}

#[test]
fn the_southern_campaign_starts_and_its_template_lists_the_army() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("south");
    let players = vec![
        adjutant::game::parse_player("british=Ann").unwrap(),
        adjutant::game::parse_player("american=Bob").unwrap(),
    ];
    let made = adjutant::game::new_game(&g, "awi-southern", "southern-1780", "south", players, 16, None).unwrap();
    assert_eq!(made.module_name, "AWI Southern Campaign (1776 with Pour le Merite battles)");
    let (text, _) = adjutant::game::template(&g, "british", wait()).unwrap();
    assert!(text.contains("step: british-operations") && text.contains("moves: []"), "{text}");
    assert!(text.contains("23rd-foot at 0806: 8 stands, 7 MP, in command (rawdon)"), "{text}");
    assert!(text.contains("71st-foot at 0308: 10 stands, 3 MP, OUT OF COMMAND"), "{text}");
}

/// A battle by email: the Americans' move into the isolated British
/// garrison's hex hands the battle to the table; the step then awaits the
/// referee, whose entry is refused with file, line, column and field until
/// it is right, then resolved with the pursuit's morale check rolled
/// through the game's dice; `verify` replays the entry from the journal.
#[test]
fn a_battle_is_handed_to_the_table_and_the_referee_enters_its_result() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("isolated");
    let p = militia_attack_the_garrison(&g);
    // The step awaits both commanders, or the referee's entry in their place.
    assert_eq!(p.awaiting, vec!["british".to_string(), "american".to_string()]);
    let dispatch = p.reports.unwrap();
    let british = unwrapped(&std::fs::read_to_string(g.join(&dispatch).join("british.txt")).unwrap());
    assert!(british.contains("Battle at 0101, handed to the table") && british.contains("18\""), "{british}");
    // The British commander's result is in; the referee's entry stands in
    // for both, and the British file is kept, not lost.
    let theirs = b"game: isolated\nturn: 1\nstep: american-battle-0101\nside: british\ntable:\n  holds_field: british\n  outcome: {american: broke, british: held}\n  units: {militia: {markers: 3}, foot: {markers: 2}}\n  retreat_to: \"0102\"\n";
    submit_ok(&g, theirs);
    // Even a file that would no longer pass (changed by hand here) does not
    // stop the referee's entry: it is set aside unread.
    let broken = b"game: isolated\nturn: 1\nstep: american-battle-0101\nside: british\ntable: {}\n";
    std::fs::write(g.join("inbox/1-american-battle-0101--british.yaml"), broken).unwrap();
    let (template, _) = adjutant::game::template(&g, "referee", wait()).unwrap();
    assert!(
        template.contains("step: american-battle-0101") && template.contains("militia: {markers: 0}"),
        "{template}"
    );
    // The hexes each side may retreat to, as the entry's check takes them.
    assert!(template.contains("the side that lost goes to: american 0102 or 0201; british 0102 or 0201"), "{template}");
    let entry =
        |body: &str| format!("game: isolated\nturn: 1\nstep: american-battle-0101\nside: referee\n{body}").into_bytes();
    let file = dir.path().join("result.yaml");
    std::fs::write(
        &file,
        entry("table:\n  holds_field: british\n  outcome: {american: broke, british: held}\n  units:\n    militia: {markers: 4}\n    foot: {markers: 2}\n  retreat_to: \"0202\"\n"),
    )
    .unwrap();
    let err = adjutant::game::play::resolve_game(&g, std::slice::from_ref(&file), wait()).unwrap_err().to_string();
    assert!(err.contains("result.yaml:11:3: table.retreat_to: 0202 is not next to the battle's hex 0101"), "{err}");
    std::fs::write(
        &file,
        entry("table:\n  holds_field: british\n  outcome: {american: broke, british: held}\n  units:\n    militia: {markers: 4}\n    foot: {markers: 2}\n  retreat_to: \"0102\"\n  pursuit: {actions: 6, caught: [militia]}\n"),
    )
    .unwrap();
    let p = adjutant::game::play::resolve_game(&g, &[file], wait()).unwrap();
    assert_eq!(p.resolved[0].rolls.len(), 1, "the pursuit's morale check");
    assert!(!g.join("inbox/1-american-battle-0101--british.yaml").exists());
    let kept = g.join("kept/superseded/000001--1-american-battle-0101--british.yaml");
    assert_eq!(std::fs::read(&kept).unwrap(), broken);
    let why =
        std::fs::read_to_string(g.join("kept/superseded/000001--1-american-battle-0101--british.reason")).unwrap();
    assert!(why.contains("were not used: journal entry 3 resolved the step with the orders of referee only"), "{why}");
    // A resolve killed after its commit, before the set-aside: the next
    // command's recovery sets the file aside as resolve would have (a
    // copy left without its reason is undone first).
    std::fs::remove_file(g.join("kept/superseded/000001--1-american-battle-0101--british.reason")).unwrap();
    std::fs::write(g.join("inbox/1-american-battle-0101--british.yaml"), broken).unwrap();
    let status = adjutant_status(&g);
    assert!(status.contains("next step 2-british-operations"), "{status}");
    assert_eq!(std::fs::read(&kept).unwrap(), broken);
    assert!(g.join("kept/superseded/000001--1-american-battle-0101--british.reason").is_file());
    assert!(!g.join("inbox/1-american-battle-0101--british.yaml").exists());
    assert_eq!(std::fs::read_dir(g.join("kept/superseded")).unwrap().count(), 2, "one copy and its reason");
    assert_eq!(p.next_step.as_deref(), Some("2-british-operations"));
    let dispatch = p.reports.unwrap();
    let british = unwrapped(&std::fs::read_to_string(g.join(&dispatch).join("british.txt")).unwrap());
    // The garrison is out of communication: no recovery for it.
    assert!(
        british.contains("Foot: 2 casualty markers, 0 removed (a British regular out of communication"),
        "{british}"
    );
    assert!(british.contains("foot 0101 4/6"), "{british}");
    assert!(g.join("orders/000003-referee.yaml").is_file());
    // verify replays it; a changed entry no longer matches the journal.
    verifies_then_catches(&g, "orders/000003-referee.yaml", "markers: 4", "markers: 5");
}

/// BREAKING OFF by email: the Americans' move into the isolated garrison's
/// hex hands the battle to the table; the sheet names each force's
/// commanding general and his base chance. After the first pass the
/// referee enters the Militia Brigadier's attempt with the army
/// manipulation points he spends (an attempt before the first pass is
/// refused with file, line and field); adjutant rolls its D100 with that
/// step's dice, nobody able to foresee it when the points were written
/// down; the battle still awaits the referee; a second attempt at the
/// same pass is refused; the result agrees with the roll (broke-off after
/// a success, the battle fought on after a failure); `verify` recomputes
/// the roll and catches a changed attempt.
#[test]
fn a_break_off_attempt_is_rolled_when_the_referee_enters_it() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("isolated");
    let p = militia_attack_the_garrison(&g);
    let dispatch = p.reports.unwrap();
    let american = unwrapped(&std::fs::read_to_string(g.join(&dispatch).join("american.txt")).unwrap());
    assert!(
        american.contains("american is commanded by Militia Brigadier: a base 0% chance to break off, plus 1% for each 10 army manipulation points he spends (stand-in; he has 460)")
            && american.contains("british is commanded by British Brigadier: a base 0% chance"),
        "{american}"
    );
    let (template, _) = adjutant::game::template(&g, "referee", wait()).unwrap();
    assert!(
        template.contains("# break_off: {pass: 1, attempts: {SIDE: POINTS}}")
            && template.contains("american militia-brigadier base 0%, 460 of 460 points left; british brit-brigadier base 0%, 460 of 460 points left"),
        "{template}"
    );
    let entry =
        |body: &str| format!("game: isolated\nturn: 1\nstep: american-battle-0101\nside: referee\n{body}").into_bytes();
    let file = dir.path().join("attempt.yaml");
    std::fs::write(&file, entry("break_off:\n  pass: 0\n  attempts: {american: 300}\n")).unwrap();
    let err = adjutant::game::play::resolve_game(&g, std::slice::from_ref(&file), wait()).unwrap_err().to_string();
    assert!(
        err.contains("attempt.yaml:6:3: break_off.pass: 0: the attempt is made after a pass through the action deck"),
        "{err}"
    );
    std::fs::write(&file, entry("break_off:\n  pass: 1\n  attempts: {american: 300}\n")).unwrap();
    let p = adjutant::game::play::resolve_game(&g, std::slice::from_ref(&file), wait()).unwrap();
    let rolls = &p.resolved[0].rolls;
    assert_eq!(rolls.len(), 1, "the attempt's D100, rolled in its own step");
    assert_eq!(rolls[0].purpose, "break off, american (militia-brigadier) after pass 1");
    let roll = u32::from(rolls[0].value);
    let succeeded = roll <= 30;
    // The battle still awaits the referee, in a step of its own name.
    assert_eq!(p.next_step.as_deref(), Some("1-american-battle-0101-after-pass-1"));
    assert_eq!(p.awaiting, vec!["british".to_string(), "american".to_string()]);
    assert!(p.refused.is_empty() && p.blocked.is_empty(), "the attempt's file is not offered again: {:?}", p.refused);
    let dispatch = p.reports.unwrap();
    let british = unwrapped(&std::fs::read_to_string(g.join(&dispatch).join("british.txt")).unwrap());
    assert!(
        british.contains(&format!(
            "american: Militia Brigadier attempts to break off after pass 1 through the action deck: base 0% + 300 army manipulation points (30 at 10 a percent) = 30%; D100 {roll}: {}",
            if succeeded { "it succeeds" } else { "it fails" }
        )),
        "{british}"
    );
    assert!(
        british.contains(&format!(
            "Battle at 0101 (American attacking): fought on the table; the entry of its result awaited (both commanders', or the referee's outside mutual dice mode); american tried to break off after pass 1 (30%, D100 {roll}"
        )),
        "{british}"
    );
    // The same pass again: refused, whatever the roll was.
    let entry = |body: &str| {
        format!("game: isolated\nturn: 1\nstep: american-battle-0101-after-pass-1\nside: referee\n{body}").into_bytes()
    };
    let (template, _) = adjutant::game::template(&g, "referee", wait()).unwrap();
    assert!(
        template.contains("step: american-battle-0101-after-pass-1")
            && template.contains(&format!("(break off: american after pass 1, 300 points, 30%, D100 {roll}")),
        "{template}"
    );
    std::fs::write(&file, entry("break_off:\n  pass: 1\n  attempts: {american: 100}\n")).unwrap();
    let err = adjutant::game::play::resolve_game(&g, std::slice::from_ref(&file), wait()).unwrap_err().to_string();
    let want = if succeeded {
        format!("break_off: american broke off after pass 1 (D100 {roll} against 30%)")
    } else {
        "attempt.yaml:6:3: break_off.pass: 1: an attempt was entered after pass 1".to_string()
    };
    assert!(err.contains(&want), "{err}");
    let result = dir.path().join("result.yaml");
    let outcome = if succeeded { "broke-off" } else { "broke" };
    std::fs::write(
        &result,
        entry(&format!("table:\n  holds_field: british\n  outcome: {{american: {outcome}, british: held}}\n  units:\n    militia: {{markers: 4}}\n    foot: {{markers: 2}}\n  retreat_to: \"0102\"\n")),
    )
    .unwrap();
    let p = adjutant::game::play::resolve_game(&g, &[result], wait()).unwrap();
    assert_eq!(p.next_step.as_deref(), Some("2-british-operations"));
    assert!(g.join("orders/000003-referee.yaml").is_file() && g.join("orders/000004-referee.yaml").is_file());
    // verify replays it; a changed attempt (more points) no longer matches.
    verifies_then_catches(&g, "orders/000003-referee.yaml", "american: 300", "american: 400");
}

/// SUPPLY by email: a British column with two supply units attacks an
/// American force with a gun and none. The battle sheet carries every
/// gun's ammunition roll (the Americans' at 2/3/4 shots, the British at
/// 6/8/10 with a resupply round per supply unit), rolled through the
/// game's dice; the referee's entry spending more supply units than the
/// force has is refused with file, line and field; the one spent leaves
/// the game; `verify` recomputes the rolls.
#[test]
fn a_battle_rolls_ammunition_and_the_referee_spends_a_supply_unit() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("supply");
    small_game(&g, "supply");
    let (template, _) = adjutant::game::template(&g, "british", wait()).unwrap();
    assert!(template.contains("wagons-1 at 0302: 0 stands, 7 MP, supply unit"), "{template}");
    let column = ["brit-major", "foot", "light-gun", "wagons-1", "wagons-2"];
    let moves: String = column.iter().map(|u| format!("  - {{unit: {u}, path: [\"0402\"]}}\n")).collect();
    let bytes = format!("game: supply\nturn: 1\nstep: british-operations\nside: british\nmoves:\n{moves}").into_bytes();
    adjutant::game::inbox::submit(&g, &bytes, "b.yaml", adjutant::game::inbox::Replace::No, wait()).unwrap();
    let p = adjutant::game::play::resolve_game(&g, &[], wait()).unwrap();
    assert_eq!(p.next_step.as_deref(), Some("1-british-battle-0402"));
    // The American 6-pounder's roll, the British 3-pounder's, and its two
    // resupply rolls (two supply units).
    assert_eq!(p.resolved[0].rolls.len(), 4);
    let dispatch = p.reports.unwrap();
    let american = unwrapped(&std::fs::read_to_string(g.join(&dispatch).join("american.txt")).unwrap());
    assert!(american.contains("american's artillery at 0402, lacking a supply unit: american-gun D10"), "{american}");
    assert!(american.contains("Village (0405, fort): American (inside the fort: american-heavy-gun)"), "{american}");
    assert!(
        american.contains("british's artillery at 0402, with a supply unit (wagons-1, wagons-2): light-gun D10")
            && american.contains("resupply 2 (expending a supply unit)"),
        "{american}"
    );
    let (template, _) = adjutant::game::template(&g, "referee", wait()).unwrap();
    assert!(
        template.contains(
            "supply_spent: {british: 0}   # supply units expended to resupply the artillery: british 0 to 2 (wagons-1, wagons-2)"
        ),
        "{template}"
    );
    let entry = |spent: u32| {
        format!(
            "game: supply\nturn: 1\nstep: british-battle-0402\nside: referee\ntable:\n  holds_field: british\n  outcome: {{british: held, american: broke}}\n  units:\n    foot: {{markers: 1}}\n    light-gun: {{markers: 0}}\n    continentals: {{markers: 2}}\n    american-gun: {{markers: 0}}\n  retreat_to: \"0502\"\n  supply_spent: {{british: {spent}}}\n"
        )
    };
    let file = dir.path().join("result.yaml");
    std::fs::write(&file, entry(3)).unwrap();
    let err = adjutant::game::play::resolve_game(&g, std::slice::from_ref(&file), wait()).unwrap_err().to_string();
    assert!(
        err.contains("result.yaml:14:")
            && err.contains("table.supply_spent.british: british expends 3 supply units; its force at 0402 has 2 (wagons-1, wagons-2): 0 to 2"),
        "{err}"
    );
    std::fs::write(&file, entry(1)).unwrap();
    let p = adjutant::game::play::resolve_game(&g, &[file], wait()).unwrap();
    assert!(p.resolved[0].rolls.is_empty(), "the entry rolls nothing: the resupply was rolled on the sheet");
    assert_eq!(p.next_step.as_deref(), Some("1-american-operations"));
    let dispatch = p.reports.unwrap();
    let british = unwrapped(&std::fs::read_to_string(g.join(&dispatch).join("british.txt")).unwrap());
    assert!(british.contains("british expended 1 supply unit at the battle of 0402"), "{british}");
    assert!(british.contains("wagons-2 0402 0/0") && !british.contains("wagons-1 0402"), "{british}");
    let verdict = adjutant::game::verify::verify(&g).unwrap();
    assert!(verdict.ok, "{:?}", verdict.failure);
}

/// check-game holds the stand-in combat table to its structure: a result
/// that costs neither side anything would let a trivial combat, "repeated
/// until one or both sides break", run for ever.
#[test]
fn check_game_refuses_a_combat_result_that_costs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let to = small_module_copy(dir.path());
    let battle = to.join("charts/battle.yaml");
    let text = std::fs::read_to_string(&battle).unwrap();
    assert!(text.contains("results: [{attacker: 2, defender: 0}"));
    std::fs::write(
        &battle,
        text.replacen("results: [{attacker: 2, defender: 0}", "results: [{attacker: 0, defender: 0}", 1),
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_adjutant"))
        .args(["check-game", to.to_str().unwrap()])
        .output()
        .unwrap();
    let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!out.status.success(), "{all}");
    assert!(
        all.contains("charts/battle.yaml:")
            && all.contains("trivial_combat.columns[0].results[0]")
            && all.contains("costs one side"),
        "{all}"
    );
}

/// check-game holds the break-off chart to what an attempt can use: a
/// base chance is a percent (0 to 100), and a general's points buy his
/// chance at a price of 1 or more a percent (0 would make it free).
#[test]
fn check_game_refuses_break_off_values_an_attempt_cannot_use() {
    let dir = tempfile::tempdir().unwrap();
    let to = small_module_copy(dir.path());
    let command = to.join("charts/command.yaml");
    let text = std::fs::read_to_string(&command).unwrap();
    assert!(
        text.contains("{general: greene, percent: 10}")
            && text.contains("break_off_points_per_percent: {source: stand-in, value: 10}")
    );
    std::fs::write(
        &command,
        text.replace("{general: greene, percent: 10}", "{general: greene, percent: 110}").replace(
            "break_off_points_per_percent: {source: stand-in, value: 10}",
            "break_off_points_per_percent: {source: stand-in, value: 0}",
        ),
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_adjutant"))
        .args(["check-game", to.to_str().unwrap()])
        .output()
        .unwrap();
    let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!out.status.success(), "{all}");
    assert!(
        all.contains("charts/command.yaml")
            && all.contains("break_off.rows[1].percent")
            && all.contains("110% is not a chance: 0 to 100")
            && all.contains("break_off_points_per_percent.value")
            && all.contains("every break-off free"),
        "{all}"
    );
}

/// check-game holds the stand-in ammunition roll to the article's table:
/// every shot count it gives is a row of `ammunition`, so that a force
/// lacking a supply unit finds its 2, 3 or 4.
#[test]
fn check_game_refuses_an_ammunition_roll_the_article_cannot_reduce() {
    let dir = tempfile::tempdir().unwrap();
    let to = small_module_copy(dir.path());
    let battle = to.join("charts/battle.yaml");
    let text = std::fs::read_to_string(&battle).unwrap();
    assert!(text.contains("- {from: 8, to: 10, with_supply: 10}"));
    std::fs::write(
        &battle,
        text.replacen("- {from: 8, to: 10, with_supply: 10}", "- {from: 8, to: 9, with_supply: 12}", 1),
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_adjutant"))
        .args(["check-game", to.to_str().unwrap()])
        .output()
        .unwrap();
    let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!out.status.success(), "{all}");
    assert!(
        all.contains("ammunition_roll.rows[2].with_supply")
            && all.contains("12 shots is not a row of `ammunition` (6, 8, 10)"),
        "{all}"
    );
    assert!(all.contains("the rows cover the d10 from 1 to 10 once each"), "{all}");
}

/// check-game holds a scenario's fort garrison to the fort: units of the
/// fort's side, starting in its hex, not supply units.
#[test]
fn check_game_refuses_a_fort_garrison_that_is_not_the_forts() {
    let dir = tempfile::tempdir().unwrap();
    let to = small_module_copy(dir.path());
    let scenario = to.join("scenarios/supply.yaml");
    let text = std::fs::read_to_string(&scenario).unwrap();
    assert!(text.contains("garrison: [american-heavy-gun]"));
    std::fs::write(
        &scenario,
        text.replacen("garrison: [american-heavy-gun]", "garrison: [american-heavy-gun, foot, continentals]", 1),
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_adjutant"))
        .args(["check-game", to.to_str().unwrap()])
        .output()
        .unwrap();
    let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!out.status.success(), "{all}");
    assert!(
        all.contains("forts[0].garrison[1]") && all.contains("'foot' is british's; the fort is american's"),
        "{all}"
    );
    assert!(
        all.contains("forts[0].garrison[2]")
            && all.contains("'continentals' does not start at 0405 (setup): a fort's garrison is in its hex"),
        "{all}"
    );
}

/// check-game holds the fort data to what the rules count: every gun of
/// the order of battle has a size (pounds or inches, one of them), a
/// fort's builders can garrison it, a scenario's destroyed sections are
/// sections of the fort.
#[test]
fn check_game_refuses_fort_data_the_rules_cannot_count() {
    let dir = tempfile::tempdir().unwrap();
    let to = small_module_copy(dir.path());
    let battle = to.join("charts/battle.yaml");
    let mut text = std::fs::read_to_string(&battle).unwrap();
    for (from, into) in [
        ("    - {weapon: 4-pounder, pounds: 4}\n", ""),
        ("{weapon: 8-inch-howitzer, howitzer_inches: 8}", "{weapon: 8-inch-howitzer, pounds: 8, howitzer_inches: 8}"),
        ("  infantry_stands: 6\n  artillery_units: 1", "  infantry_stands: 3\n  artillery_units: 1"),
    ] {
        assert!(text.contains(from), "{from}");
        text = text.replacen(from, into, 1);
    }
    std::fs::write(&battle, text).unwrap();
    let scenario = to.join("scenarios/supply.yaml");
    let text = std::fs::read_to_string(&scenario).unwrap();
    std::fs::write(
        &scenario,
        text.replacen("garrison: [american-heavy-gun]", "garrison: [american-heavy-gun], destroyed: [5]", 1),
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_adjutant"))
        .args(["check-game", to.to_str().unwrap()])
        .output()
        .unwrap();
    let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!out.status.success(), "{all}");
    assert!(
        all.contains("oob.yaml:12:130: units[9].weapon")
            && all.contains("'4-pounder' has no size in charts/battle.yaml `guns`"),
        "{all}"
    );
    assert!(
        all.contains("guns.rows[")
            && all.contains(
                "'8-inch-howitzer': give its pounds (a gun) or its howitzer_inches (a howitzer), one of them"
            ),
        "{all}"
    );
    assert!(
        all.contains("fort_construction.infantry_stands")
            && all.contains(
                "3: a fort's builders are its first garrison, which needs 4 fighting infantry stands at least"
            ),
        "{all}"
    );
    assert!(all.contains("forts[0].destroyed[0]") && all.contains("5: a section of the fort, once: 1 to 4"), "{all}");
}

/// Replacements and militia by email (REPLACEMENTS, MILITIA UNITS, RECORD
/// KEEPING): the British replacement points of month 2 arrive at their
/// towns and stay there, shown in the British ledger only (reports and
/// `status`); the British form the Tory militia they raise into a counter
/// at hand, after a refused order located by file, line and field; the
/// Americans' militia arrives for their turn; `verify` recomputes it all.
#[test]
fn replacements_and_militia_are_kept_in_each_sides_ledger_by_email() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("musters");
    small_game(&g, "musters");
    let orders = |turn: u32, side: &str, body: &str| {
        format!("game: musters\nturn: {turn}\nstep: {side}-operations\nside: {side}\n{body}").into_bytes()
    };
    let submit =
        |bytes: &[u8]| adjutant::game::inbox::submit(&g, bytes, "o.yaml", adjutant::game::inbox::Replace::No, wait());
    submit(&orders(1, "british", "moves: []\n")).unwrap();
    adjutant::game::play::resolve_game(&g, &[], wait()).unwrap();
    submit(&orders(1, "american", "moves: []\n")).unwrap();
    let p = adjutant::game::play::resolve_game(&g, &[], wait()).unwrap();
    let dispatch = p.reports.unwrap();
    let british = unwrapped(&std::fs::read_to_string(g.join(&dispatch).join("british.txt")).unwrap());
    assert!(british.contains("3 british replacement stands arrive at Port Royal (3 held there)"), "{british}");
    let american = unwrapped(&std::fs::read_to_string(g.join(&dispatch).join("american.txt")).unwrap());
    // The report's board: the British ledger, to the British only.
    assert!(
        british.contains("British ledger: unused replacements at Port Royal (0703): 3 british, 2 german stands")
            && british.contains("British ledger: unused replacements at River Town (0304): 4 british stands")
            && british.contains(
                "British ledger: militia raised at Magazine Town (0102) not yet formed: 6 stands, up to 1 of them rifle armed"
            ),
        "{british}"
    );
    assert!(!american.contains("unused replacements"), "{american}");

    // The template says what the side holds and the orders' forms.
    let (template, _) = adjutant::game::template(&g, "british", wait()).unwrap();
    assert!(template.contains("# replacements: [{unit: UNIT, town: port-royal, stands: 1}]"), "{template}");
    assert!(template.contains("a counter at hand (tories, tory-levy)"), "{template}");

    // Refused whole, located: a Tory counter formed from militia raised
    // elsewhere.
    let bad = orders(2, "british", "moves: []\nmilitia:\n  - {town: port-royal, unit: tory-levy, stands: 6}\n");
    let err = submit(&bad).unwrap_err().to_string();
    assert!(
        err.contains("o.yaml:7:")
            && err.contains("militia[0].town")
            && err.contains(
                "no militia of yours is raised at Port Royal and not yet formed; you have some at magazine-town"
            ),
        "{err}"
    );
    submit(&orders(2, "british", "moves: []\nmilitia:\n  - {town: magazine-town, unit: tory-levy, stands: 6}\n"))
        .unwrap();
    let p = adjutant::game::play::resolve_game(&g, &[], wait()).unwrap();
    let dispatch = p.reports.unwrap();
    let british = unwrapped(&std::fs::read_to_string(g.join(&dispatch).join("british.txt")).unwrap());
    let american = unwrapped(&std::fs::read_to_string(g.join(&dispatch).join("american.txt")).unwrap());
    assert!(british.contains("Tory Levy is formed at Magazine Town with 6 musket stand(s): 6 stands"), "{british}");
    assert!(
        british.contains("unused replacements at Port Royal (0703): 3 british, 2 german stands")
            && !american.contains("unused replacements"),
        "each side's ledger is its own: {american}"
    );
    assert!(
        american.contains("2 militia strength points are raised at Village: 12 stands, up to 3 of them rifle armed"),
        "{american}"
    );
    let verdict = adjutant::game::verify::verify(&g).unwrap();
    assert!(verdict.ok, "{:?}", verdict.failure);
}

/// check-game holds a scenario's replacements and militia to the module:
/// a turn of the scenario, a town of the map, a nationality of the side's
/// regular units, points from 1.
#[test]
fn check_game_refuses_replacements_and_militia_that_do_not_fit_the_module() {
    let dir = tempfile::tempdir().unwrap();
    let to = small_module_copy(dir.path());
    let scenario = to.join("scenarios/musters.yaml");
    let text = std::fs::read_to_string(&scenario).unwrap();
    let text = text
        .replacen(
            "town: river-town, nationality: british, points: 4",
            "town: river-town, nationality: tory, points: 4",
            1,
        )
        .replacen(
            "side: british, town: port-royal, nationality: german, points: 2",
            "side: british, town: atlantis, nationality: german, points: 0",
            1,
        )
        .replacen(
            "{turn: 2, side: american, town: village, strength_points: 2}",
            "{turn: 9, side: french, town: village, strength_points: 2}",
            1,
        );
    std::fs::write(&scenario, text).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_adjutant"))
        .args(["check-game", to.to_str().unwrap()])
        .output()
        .unwrap();
    let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!out.status.success(), "{all}");
    for want in [
        "replacements[2].nationality",
        "no regular unit of the british is tory: replacements rebuild regular units of their nationality (british, german, loyalist)",
        "replacements[1].town",
        "'atlantis' is not a town of the map",
        "replacements[1].points",
        "points from 1",
        "militia[0].turn",
        "turn 9 is not a turn of the scenario (1 to 3)",
        "militia[0].side",
        "'french' is not a side of module.yaml",
    ] {
        assert!(all.contains(want), "{want}: {all}");
    }
}

/// A new game at `g` of the small test module's `scenario` (its game id
/// the scenario's), Ann the British and Bob the Americans.
fn small_game(g: &Path, scenario: &str) {
    let module = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/modules/awi-small");
    let players = vec![
        adjutant::game::parse_player("british=Ann").unwrap(),
        adjutant::game::parse_player("american=Bob").unwrap(),
    ];
    adjutant::game::new_game(g, &module.display().to_string(), scenario, scenario, players, 16, None).unwrap();
}

/// A new game of the isolated scenario at `g`: the British stand, then the
/// militia and their brigadier march on the garrison at 0101, which hands
/// the battle to the table (step `1-american-battle-0101`).
fn militia_attack_the_garrison(g: &Path) -> adjutant::game::play::Progress {
    small_game(g, "isolated");
    submit_ok(g, &orders(1, "british", "moves: []\n"));
    adjutant::game::play::resolve_game(g, &[], wait()).unwrap();
    let path = "[\"0404\", \"0304\", \"0203\", \"0202\", \"0102\", \"0101\"]";
    submit_ok(
        g,
        &orders(
            1,
            "american",
            &format!("moves:\n  - {{unit: militia, path: {path}}}\n  - {{unit: militia-brigadier, path: {path}}}\n"),
        ),
    );
    let p = adjutant::game::play::resolve_game(g, &[], wait()).unwrap();
    assert_eq!(p.next_step.as_deref(), Some("1-american-battle-0101"));
    p
}

/// `bytes` submitted to the game at `g`, which takes them.
fn submit_ok(g: &Path, bytes: &[u8]) {
    adjutant::game::inbox::submit(g, bytes, "o.yaml", adjutant::game::inbox::Replace::No, wait()).unwrap();
}

/// `verify` passes the game at `g`; then, `from` changed to `to` in its
/// file `file`, it fails.
fn verifies_then_catches(g: &Path, file: &str, from: &str, to: &str) {
    let verdict = adjutant::game::verify::verify(g).unwrap();
    assert!(verdict.ok, "{:?}", verdict.failure);
    let path = g.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{file}: {text}");
    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
    assert!(!adjutant::game::verify::verify(g).unwrap().ok, "a changed {file} is caught");
}

/// A copy of tests/modules/awi-small in `dir`, to break.
fn small_module_copy(dir: &Path) -> std::path::PathBuf {
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/modules/awi-small");
    let to = dir.join("awi-small");
    for sub in ["", "charts", "scenarios"] {
        std::fs::create_dir_all(to.join(sub)).unwrap();
        for e in std::fs::read_dir(from.join(sub)).unwrap() {
            let p = e.unwrap().path();
            if p.is_file() {
                std::fs::copy(&p, to.join(sub).join(p.file_name().unwrap())).unwrap();
            }
        }
    }
    to
}

/// A text report with its lines unwrapped: every run of white space one
/// space (issue 16: the text report wraps its lines at 78 columns).
fn unwrapped(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// FORTIFICATIONS by email: the British build a fort with a foot regiment,
/// a 12-pounder and a supply unit (spent; the builders kept inside it);
/// the Americans attack it with a 12-pounder. The battle sheet carries the
/// fort's sections and a D100 damage roll for each shot the American gun
/// has; the referee's entry naming more shots than that is refused with
/// file, line and field; the shots entered damage the sections by the
/// sheet's rolls; `verify` recomputes it all.
#[test]
fn a_fort_is_built_and_its_sections_bombarded_by_email() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("forts");
    small_game(&g, "forts");
    let (template, _) = adjutant::game::template(&g, "british", wait()).unwrap();
    assert!(
        template.contains("# build: [{hex: \"CCRR\", works: fort, units: [...]}]   # units in the hex that do not move this month: a fort takes 6 fighting infantry stands, 1 artillery unit(s) and 1 supply unit(s), spent"),
        "{template}"
    );
    let bytes = b"game: forts\nturn: 1\nstep: british-operations\nside: british\nmoves: []\nbuild:\n  - {hex: \"0302\", works: fort, units: [foot, heavy-gun, wagons-1]}\n";
    adjutant::game::inbox::submit(&g, bytes, "b.yaml", adjutant::game::inbox::Replace::No, wait()).unwrap();
    let p = adjutant::game::play::resolve_game(&g, &[], wait()).unwrap();
    let dispatch = p.reports.unwrap();
    let british = unwrapped(&std::fs::read_to_string(g.join(&dispatch).join("british.txt")).unwrap());
    assert!(
        british.contains("The british build a fort at 0302: foot, heavy-gun build it and stay inside as its garrison; wagons-1 is spent (eliminated)"),
        "{british}"
    );
    assert!(british.contains("Fort at 0302: British (inside the fort: foot, heavy-gun)"), "{british}");
    // The map marks the units inside the fort `F`.
    let map = std::fs::read_to_string(g.join(&dispatch).join("map.svg")).unwrap();
    assert_eq!(map.matches(r#"font-weight="bold">F</text>"#).count(), 2, "foot and heavy-gun");
    let moves: String = ["greene", "continentals", "american-heavy-gun"]
        .iter()
        .map(|u| format!("  - {{unit: {u}, path: [\"0302\"]}}\n"))
        .collect();
    let bytes =
        format!("game: forts\nturn: 1\nstep: american-operations\nside: american\nmoves:\n{moves}").into_bytes();
    adjutant::game::inbox::submit(&g, &bytes, "a.yaml", adjutant::game::inbox::Replace::No, wait()).unwrap();
    let p = adjutant::game::play::resolve_game(&g, &[], wait()).unwrap();
    assert_eq!(p.next_step.as_deref(), Some("1-american-battle-0302"));
    // The American 12-pounder's ammunition (lacking a supply unit: 2, 3 or
    // 4 shots), the fort's four sections, and one damage roll per shot.
    let rolls = p.resolved[0].rolls.len();
    assert!((1 + 4 + 2..=1 + 4 + 4).contains(&rolls), "{rolls} rolls");
    let shots = rolls - 5;
    let dispatch = p.reports.unwrap();
    let american = unwrapped(&std::fs::read_to_string(g.join(&dispatch).join("american.txt")).unwrap());
    assert!(american.contains("The british fort at 0302: 4 sections of 4\" with"), "{american}");
    assert!(
        american.contains("american-heavy-gun (12-pounder) can batter the fort's sections within 12\": its shots at the fort, in order, do"),
        "{american}"
    );
    let (template, _) = adjutant::game::template(&g, "referee", wait()).unwrap();
    assert!(
        template.contains(&format!("#   bombardment: {{}}   # the fort's sections (1 to 4): each breaching gun's shots at it, the section each struck, in order, e.g. {{gun: [1, 1, 2]}}: american-heavy-gun ({shots} damage rolls on the sheet)")),
        "{template}"
    );
    let entry = |sections: &str| {
        format!(
            "game: forts\nturn: 1\nstep: american-battle-0302\nside: referee\ntable:\n  holds_field: british\n  outcome: {{british: held, american: broke}}\n  units:\n    foot: {{markers: 1}}\n    heavy-gun: {{markers: 0}}\n    continentals: {{markers: 2}}\n    american-heavy-gun: {{markers: 0}}\n  retreat_to: \"0303\"\n  bombardment: {{american-heavy-gun: [{sections}]}}\n"
        )
    };
    let file = dir.path().join("result.yaml");
    std::fs::write(&file, entry(&vec!["1"; shots + 1].join(", "))).unwrap();
    let err = adjutant::game::play::resolve_game(&g, std::slice::from_ref(&file), wait()).unwrap_err().to_string();
    assert!(
        err.contains("result.yaml:14:")
            && err.contains(&format!(
                "table.bombardment.american-heavy-gun: american-heavy-gun fires {} shots at the fort; its ammunition roll gives it {shots} (a damage roll on the sheet for each): 0 to {shots}",
                shots + 1
            )),
        "{err}"
    );
    std::fs::write(&file, entry(&vec!["2"; shots].join(", "))).unwrap();
    let p = adjutant::game::play::resolve_game(&g, &[file], wait()).unwrap();
    assert!(p.resolved[0].rolls.is_empty(), "the entry rolls nothing: the damage was rolled on the sheet");
    let dispatch = p.reports.unwrap();
    let british = unwrapped(&std::fs::read_to_string(g.join(&dispatch).join("british.txt")).unwrap());
    assert!(
        british.contains(&format!("american-heavy-gun fired {shots} shots at the fort at 0302: section 2")),
        "{british}"
    );
    assert!(british.contains("The fort at 0302: sections at"), "{british}");
    let verdict = adjutant::game::verify::verify(&g).unwrap();
    assert!(verdict.ok, "{:?}", verdict.failure);
}

/// What an AWI refusal quotes of a player is bounded and escaped, as the
/// series' are (tests/hostile.rs): a unit id of 900 KB ending in a terminal
/// escape, a path hex, and header fields with escapes, NUL, line breaks
/// and bidirectional overrides, through `validate` to the terminal.
#[test]
fn what_an_awi_refusal_quotes_of_a_player_is_bounded_and_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("isolated");
    small_game(&g, "isolated");
    let validate = |name: &str, bytes: &[u8]| {
        let file = dir.path().join(name);
        std::fs::write(&file, bytes).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_adjutant"))
            .args(["validate", "--dir", g.to_str().unwrap(), file.to_str().unwrap()])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
        let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(all.len() < 20_000, "{} bytes printed", all.len());
        for c in all.chars() {
            let bad = (c.is_control() && c != '\n')
                || ('\u{202a}'..='\u{202e}').contains(&c)
                || ('\u{2066}'..='\u{2069}').contains(&c);
            assert!(!bad, "a raw {c:?} was printed:\n{}", all.escape_debug());
        }
        all
    };
    let id = format!("{}\\e[2J\\u202e", "d".repeat(900 << 10));
    let body = format!(
        "moves:\n  - {{unit: \"{id}\", path: [\"01\\e[31m03\"]}}\n  - {{unit: foot, path: [\"01\\e[31m03\"]}}\n"
    );
    let all = validate("id.yaml", &orders(1, "british", &body));
    assert!(
        all.contains(&format!("moves[0].unit: '{}…(921607 bytes)' is not a unit", "d".repeat(60)))
            && all.contains("moves[1].path[0]: '01\\u{1b}[31m03' is not a hex id"),
        "{all}"
    );
    let header = "game: \"isolated\\e[31m\\0\"\nturn: \"1\\u202e\"\nstep: \"british\\noperations\"\nside: \"brit\\rish\\u2066\"\nmoves: []\n";
    let all = validate("ctl.yaml", header.as_bytes());
    assert!(
        all.contains("game 'isolated\\u{1b}[31m\\0'")
            && all.contains("'brit\\rish\\u{2066}' is not a side")
            && all.contains("turn: '1\\u{202e}' is not a turn number"),
        "{all}"
    );
    // A shape error names its field once, and quotes a key bounded.
    let all = validate("shape.yaml", &orders(1, "british", "moves: [{unit: foot, path: 3}]\n"));
    assert!(
        all.contains("moves[0].path: invalid type: integer `3`, expected a sequence")
            && !all.contains("path: moves[0].path"),
        "{all}"
    );
    let key = "k".repeat(1_000);
    let all = validate("key.yaml", &orders(1, "british", &format!("moves:\n  - unit: foot\n    {key}: 1\n")));
    assert!(all.contains(&format!("unknown field `{}…(1000 bytes)`", "k".repeat(60))), "{all}");
}

/// `adjutant odds` for the AWI: a trivial combat played to its end exactly
/// (TRIVIAL COMBATS), the forces' break-off chances (BREAKING OFF) and the
/// attrition test of an isolated British unit (ATTRITION), first free
/// month then at its morale grade; the series' options refused.
#[test]
fn odds_weigh_a_trivial_combat_break_off_and_attrition() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("isolated");
    small_game(&g, "isolated");
    let odds = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_adjutant"))
            .args(["odds", "--dir", g.to_str().unwrap()])
            .args(args)
            .output()
            .unwrap();
        let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        (out.status.code(), text)
    };
    // 12 militia stands against 6 of foot: army morale 6 and 3 markers
    // (50%, the small module's). 1776's halvings: neither side has a
    // supply unit or a magazine (each at half), and the militia have no
    // regulars of their own against the foot's (half again): 12 stands
    // fight as 3, 6 as 3, column 1:1 (2:1 at full strength), whose faces
    // 1-2 cost the attacker a strength point (it breaks), 3-4 both (the
    // defender holds the field), 5-6 the defender one (it breaks).
    let (code, text) = odds(&["--attackers", "militia", "--defenders", "foot"]);
    assert_eq!(code, Some(0), "{text}");
    for want in [
        "army morale 6 casualty markers",
        "army morale 3 casualty markers",
        "the attacker (american) fights at half strength, 1776's: militia against regulars, with no regulars of their own; without a supply unit or a magazine (a stand counts 0.25)",
        "the defender (british) fights at half strength, 1776's: without a supply unit or a magazine (a stand counts 0.5)",
        "odds: column 1:1",
        "| 33.33%      | 2/6   | 0 markers, holds the field | 3 markers, broke                  |",
        "| 33.33%      | 2/6   | 6 markers, broke           | 0 markers, holds the field        |",
        "| 33.33%      | 2/6   | 6 markers, broke           | 3 markers, broke, holds the field |",
        "Militia Brigadier commands at 0505: a base 0% chance",
        "Foot is out of communication and need not test: in communication at the end of the previous British turn",
    ] {
        assert!(text.contains(want), "{want}: {text}");
    }
    assert!(!text.contains("momentum"), "no momentum column or chits for the AWI: {text}");
    // JSON: the fractions sum to the denominator.
    let (_, json) = odds(&["--attackers", "militia", "--defenders", "foot", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let lines = v["outcomes"].as_array().unwrap();
    let sum: u64 = lines.iter().map(|l| l["numerator"].as_str().unwrap().parse::<u64>().unwrap()).sum();
    assert_eq!(sum.to_string(), lines[0]["denominator"].as_str().unwrap());

    // After a British turn out of communication the garrison tests at its
    // grade, B 70%: it loses a stand on a D100 above 70.
    let orders = "game: isolated\nturn: 1\nstep: british-operations\nside: british\nmoves: []\n".to_string();
    adjutant::game::inbox::submit(&g, orders.as_bytes(), "b.yaml", adjutant::game::inbox::Replace::No, wait()).unwrap();
    adjutant::game::play::resolve_game(&g, &[], wait()).unwrap();
    let (_, text) = odds(&["--attackers", "militia", "--defenders", "foot"]);
    assert!(
        text.contains("attrition: Foot is out of communication: morale 70% -0% = 70%; it loses a stand on a D100 above 70: 30/100 (30.00%)"),
        "{text}"
    );

    // One round of a column; the series' options and a unit of each side
    // in one force refused with what is legal.
    let (code, text) = odds(&["--column", "2:1", "--drm", "0"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("one round of 1776's combat table"), "{text}");
    let (code, text) = odds(&["--column", "9:1", "--drm", "0"]);
    assert!(code == Some(2) && text.contains("--column '9:1': the columns are 1:3, 1:2, 1:1"), "{text}");
    let (code, text) = odds(&["--attackers", "militia", "--defenders", "foot", "--attacker-tactics", "x"]);
    assert!(code == Some(2) && text.contains("--attacker-tactics is the GBoAR series' close combat"), "{text}");
    let (code, text) = odds(&["--attackers", "militia,foot", "--defenders", "foot"]);
    assert!(code == Some(2) && text.contains("--attackers: Foot is british's, the others american's"), "{text}");
}

/// check-game holds every fleet to an allowance (AWI Fleets, stand-in):
/// a fleet whose kind and side have no row is refused at its field.
#[test]
fn check_game_refuses_a_fleet_without_an_allowance() {
    let dir = tempfile::tempdir().unwrap();
    let to = small_module_copy(dir.path());
    let chart = to.join("charts/movement.yaml");
    let text = std::fs::read_to_string(&chart).unwrap();
    let row = "      - {kind: tf, side: british, allowance: 10}\n";
    assert!(text.contains(row));
    std::fs::write(&chart, text.replacen(row, "", 1)).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_adjutant"))
        .args(["check-game", to.to_str().unwrap()])
        .output()
        .unwrap();
    let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!out.status.success(), "{all}");
    assert!(
        all.contains("fleets[0].kind")
            && all.contains(
                "charts/movement.yaml gives no allowance for a british troop fleet (a `tf` row of allowances.stand-in)"
            ),
        "{all}"
    );
}

/// check-game holds a town's garrison (DEFINITIONS) to the module: a side
/// of module.yaml, strength points from 1.
#[test]
fn check_game_refuses_a_town_garrison_that_does_not_fit() {
    let dir = tempfile::tempdir().unwrap();
    let to = small_module_copy(dir.path());
    let map = to.join("map.yaml");
    let text = std::fs::read_to_string(&map).unwrap();
    let from = "garrison: {side: british, strength_points: 4}";
    assert!(text.contains(from));
    std::fs::write(&map, text.replacen(from, "garrison: {side: hessians, strength_points: 0}", 1)).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_adjutant"))
        .args(["check-game", to.to_str().unwrap()])
        .output()
        .unwrap();
    let all = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(!out.status.success(), "{all}");
    for want in [
        "garrison.side",
        "'hessians' is not a side of module.yaml",
        "garrison.strength_points",
        "strength points from 1",
    ] {
        assert!(all.contains(want), "{want}: {all}");
    }
}

/// A battle's result from both commanders agreeing, by email (issue 15):
/// the step awaits both; `status` offers the referee's entry in their
/// place; each commander's template gives his own forms; a second file
/// that differs from the first is refused when it arrives, naming the
/// field, each file's value and the file already in; an agreeing one (its
/// units in another order) is taken, and the step is resolved with both
/// files, journaled as each side's; `verify` replays it.
#[test]
fn a_battle_result_from_both_commanders_agreeing_by_email() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("isolated");
    militia_attack_the_garrison(&g);
    let status = adjutant_status(&g);
    assert!(
        status.contains("awaiting orders from: british, american; or the referee's one entry in their place"),
        "{status}"
    );
    let (template, _) = adjutant::game::template(&g, "british", wait()).unwrap();
    assert!(
        template.contains("side: british")
            && template.contains("You command british")
            && template.contains("#   distribute: {british: [unit, ...]}")
            && template.contains("# break_off: {pass: 1, attempts: {british: POINTS}}"),
        "{template}"
    );
    let entry = |side: &str, units: &str| {
        format!("game: isolated\nturn: 1\nstep: american-battle-0101\nside: {side}\ntable:\n  holds_field: british\n  outcome: {{american: broke, british: held}}\n  units:\n{units}  retreat_to: \"0102\"\n").into_bytes()
    };
    submit_ok(&g, &entry("british", "    militia: {markers: 4}\n    foot: {markers: 2}\n"));
    let err = adjutant::game::inbox::submit(
        &g,
        &entry("american", "    foot: {markers: 2}\n    militia: {markers: 3}\n"),
        "theirs.yaml",
        adjutant::game::inbox::Replace::No,
        wait(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("theirs.yaml:10:15: table.units.militia.markers: american's file says 3 at table.units.militia.markers, british's 4: the two commanders enter the same result of the table")
            && err.contains("[commanders-disagree, AWI Transferring to the Miniatures Game]")
            && err.contains("together with the orders already in: inbox/1-american-battle-0101--british.yaml"),
        "{err}"
    );
    assert!(!g.join("inbox/1-american-battle-0101--american.yaml").exists());
    submit_ok(&g, &entry("american", "    foot: {markers: 2}\n    militia: {markers: 4}\n"));
    let p = adjutant::game::play::resolve_game(&g, &[], wait()).unwrap();
    assert_eq!(p.resolved.len(), 1);
    assert_eq!(p.next_step.as_deref(), Some("2-british-operations"));
    assert!(g.join("orders/000003-british.yaml").is_file() && g.join("orders/000003-american.yaml").is_file());
    let dispatch = p.reports.unwrap();
    let american = unwrapped(&std::fs::read_to_string(g.join(&dispatch).join("american.txt")).unwrap());
    assert!(american.contains("Battle at 0101: both commanders enter the table's result."), "{american}");
    verifies_then_catches(&g, "orders/000003-american.yaml", "markers: 4", "markers: 5");
}

/// BREAKING OFF from both commanders: each writes down his own decision,
/// sealed until both are in. A file naming the other side's attempt is
/// refused; a decision for another pass than the first file's is refused
/// without quoting that file's attempt; the two together are rolled.
#[test]
fn both_commanders_write_down_their_decisions_to_break_off() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("isolated");
    militia_attack_the_garrison(&g);
    let decision = |side: &str, body: &str| {
        format!("game: isolated\nturn: 1\nstep: american-battle-0101\nside: {side}\nbreak_off: {body}\n").into_bytes()
    };
    let refused = |bytes: &[u8]| {
        adjutant::game::inbox::submit(&g, bytes, "d.yaml", adjutant::game::inbox::Replace::No, wait())
            .unwrap_err()
            .to_string()
    };
    let err = refused(&decision("british", "{pass: 1, attempts: {american: 0}}"));
    assert!(
        err.contains("d.yaml:5:33: break_off.attempts.american: american's attempt is american's to write down"),
        "{err}"
    );
    submit_ok(&g, &decision("american", "{pass: 1, attempts: {american: 370}}"));
    let err = refused(&decision("british", "{pass: 2}"));
    assert!(
        err.contains("break_off.pass: 2: american's decision is for the pass 1") && !err.contains("370"),
        "the first file's attempt is not quoted: {err}"
    );
    submit_ok(&g, &decision("british", "{pass: 1, attempts: {}}"));
    let p = adjutant::game::play::resolve_game(&g, &[], wait()).unwrap();
    let rolls = &p.resolved[0].rolls;
    assert_eq!(rolls.len(), 1, "the one attempt made, rolled: {rolls:?}");
    assert_eq!(rolls[0].purpose, "break off, american (militia-brigadier) after pass 1");
    assert_eq!(p.next_step.as_deref(), Some("1-american-battle-0101-after-pass-1"));
    assert!(adjutant::game::verify::verify(&g).unwrap().ok);
}

/// What `adjutant status --dir g` prints.
fn adjutant_status(g: &Path) -> String {
    let out =
        std::process::Command::new(env!("CARGO_BIN_EXE_adjutant")).args(["status", "--dir"]).arg(g).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    unwrapped(&String::from_utf8_lossy(&out.stdout))
}

/// docs/awi-southern.md, "Battles": at a deadline (`tick`) a commander who
/// sent nothing gets the template's least orders, an empty entry, which
/// settles nothing: the step waits, blocked, naming the file, for his own
/// entry or the referee's, and nothing is resolved. The referee's entry
/// then resolves it, and the two commanders' files are set aside.
#[test]
fn a_commander_silent_at_the_deadline_settles_nothing_and_the_referee_enters_the_result() {
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("isolated");
    militia_attack_the_garrison(&g);
    let config = std::fs::read_to_string(g.join("game.yaml")).unwrap()
        + "mail:\n  from: Referee <ref@example.org>\n  transport: folder\ndeadlines:\n  default: {after: 48h}\n";
    std::fs::write(g.join("game.yaml"), config).unwrap();
    let british = b"game: isolated\nturn: 1\nstep: american-battle-0101\nside: british\ntable:\n  holds_field: british\n  outcome: {american: broke, british: held}\n  units: {militia: {markers: 3}, foot: {markers: 2}}\n  retreat_to: \"0102\"\n";
    submit_ok(&g, british);
    let tick = |now: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_adjutant"))
            .args(["tick", "--no-mail", "--now", now, "--dir"])
            .arg(&g)
            .output()
            .unwrap()
    };
    let started = tick("2026-12-05T10:00:00Z");
    assert!(started.status.success(), "{}", String::from_utf8_lossy(&started.stderr));
    let journal = std::fs::read_dir(g.join("journal")).unwrap().count();
    let late = tick("2026-12-08T10:00:00Z");
    let out = unwrapped(&String::from_utf8_lossy(&late.stdout));
    let err = unwrapped(&String::from_utf8_lossy(&late.stderr));
    assert_eq!(late.status.code(), Some(1), "a step that cannot be resolved: {out}{err}");
    assert!(out.contains("defaulted: the least orders for american"), "{out}");
    let said = format!("{out}{err}");
    assert!(
        said.contains("inbox/1-american-battle-0101--american.yaml") && said.contains("[battle-entry, "),
        "the empty entry is named, with its field and code: {said}"
    );
    assert!(said.contains("cannot be resolved until new orders come from american"), "{said}");
    assert_eq!(std::fs::read_dir(g.join("journal")).unwrap().count(), journal, "nothing resolved");
    let status = adjutant_status(&g);
    assert!(
        status.contains("american (default orders written for it at the deadline")
            && status.contains("or the referee's one entry in their place"),
        "{status}"
    );
    // The referee settles it.
    let file = dir.path().join("result.yaml");
    std::fs::write(&file, b"game: isolated\nturn: 1\nstep: american-battle-0101\nside: referee\ntable:\n  holds_field: british\n  outcome: {american: broke, british: held}\n  units:\n    militia: {markers: 4}\n    foot: {markers: 2}\n  retreat_to: \"0102\"\n").unwrap();
    let p = adjutant::game::play::resolve_game(&g, &[file], wait()).unwrap();
    assert_eq!(p.next_step.as_deref(), Some("2-british-operations"));
    // Both commanders' files are set aside by the resolve itself, the
    // default written at the deadline too, each with its reason: nothing
    // is left in the inbox for a step resolved.
    assert_eq!(std::fs::read_dir(g.join("inbox")).unwrap().count(), 0);
    let kept: Vec<String> = std::fs::read_dir(g.join("kept/superseded"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for side in ["american", "british"] {
        let stem = format!("--1-american-battle-0101--{side}");
        let reason = kept.iter().find(|n| n.ends_with(&format!("{stem}.reason"))).expect("its reason is kept");
        assert!(kept.iter().any(|n| n.ends_with(&format!("{stem}.yaml"))), "{kept:?}");
        let why = std::fs::read_to_string(g.join("kept/superseded").join(reason)).unwrap();
        assert!(
            why.contains("were not used: journal entry 3 resolved the step with the orders of referee only"),
            "{why}"
        );
    }
    assert!(adjutant::game::verify::verify(&g).unwrap().ok);
}

/// The AWI Southern Campaign in mutual dice mode (docs/awi-southern.md,
/// "What it refuses"): a battle is decided by both commanders' agreeing
/// files, each bound by a commitment sent before either file; a file that
/// disagrees with the one in is refused on arrival, with the mutual
/// mode's words (no file once in is replaced); `status` and `template`
/// offer no referee's entry, which `resolve` refuses there; the agreeing
/// file seals the step, `resolve` settles the battle, and `verify` and
/// the Python reference check the folder.
#[test]
fn a_battle_in_mutual_mode_is_decided_by_the_commanders_committed_files() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_adjutant"))
            .current_dir(dir.path())
            .args(args)
            .output()
            .unwrap();
        (
            out.status.success(),
            unwrapped(&format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))),
        )
    };
    let ok = |args: &[&str]| {
        let (success, text) = run(args);
        assert!(success, "{args:?}: {text}");
        text
    };
    let anchor = |top: &str| {
        let chain = ok(&["dice", "chain", "--top", top, "--length", "16"]);
        chain.lines().next().unwrap().split_whitespace().nth(1).unwrap().to_string()
    };
    let (british, american) = (anchor(&"a".repeat(64)), anchor(&"b".repeat(64)));
    let module = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/modules/awi-small");
    ok(&[
        "new",
        module.to_str().unwrap(),
        "--scenario",
        "isolated",
        "--game-id",
        "isolated",
        "--dir",
        "g",
        "--mode",
        "mutual",
        "--anchor",
        &format!("british={british}"),
        "--player",
        "british=Ann <ann@example.org>",
        "--player",
        "american=Bob <bob@example.org>",
    ]);
    ok(&["join", "--dir", "g", &format!("american={american}")]);
    let file = |name: &str, bytes: &[u8]| {
        std::fs::write(dir.path().join(name), bytes).unwrap();
        name.to_string()
    };
    ok(&["submit", "--dir", "g", &file("b1.yaml", &orders(1, "british", "moves: []\n"))]);
    ok(&["resolve", "--dir", "g"]);
    let path = "[\"0404\", \"0304\", \"0203\", \"0202\", \"0102\", \"0101\"]";
    let attack =
        format!("moves:\n  - {{unit: militia, path: {path}}}\n  - {{unit: militia-brigadier, path: {path}}}\n");
    ok(&["submit", "--dir", "g", &file("a1.yaml", &orders(1, "american", &attack))]);
    let resolved = ok(&["resolve", "--dir", "g"]);
    assert!(resolved.contains("next: 1-american-battle-0101"), "{resolved}");
    let table = |side: &str, markers: u32| {
        format!("game: isolated\nturn: 1\nstep: american-battle-0101\nside: {side}\ntable:\n  holds_field: british\n  outcome: {{american: broke, british: held}}\n  units: {{militia: {{markers: {markers}}}, foot: {{markers: 2}}}}\n  retreat_to: \"0102\"\n").into_bytes()
    };
    let (theirs, ours, other) = (table("british", 3), table("american", 3), table("american", 4));
    for (side, bytes) in [("british", &theirs), ("american", &ours)] {
        let hex = adjutant::base::dice::Bytes32::sha256(bytes).to_hex();
        let commit = format!("game: isolated\nside: {side}\nstep: 1-american-battle-0101\ncommit: {hex}\n");
        ok(&["submit", "--dir", "g", &file(&format!("c-{side}.yaml"), commit.as_bytes())]);
    }
    ok(&["submit", "--dir", "g", &file("bt.yaml", &theirs)]);
    let (taken, said) = run(&["submit", "--dir", "g", &file("at2.yaml", &other)]);
    assert!(!taken, "{said}");
    assert!(
        said.contains("[commanders-disagree, ") && said.contains("in mutual mode no file once in is replaced"),
        "{said}"
    );
    assert!(!said.contains("--replace"), "no hint that mutual mode refuses: {said}");
    let status = ok(&["status", "--dir", "g"]);
    let awaiting = status.split("awaiting orders from:").nth(1).unwrap().split("dice:").next().unwrap();
    assert!(!awaiting.contains("referee"), "no referee's entry offered in mutual mode: {status}");
    let (offered, said) = run(&["template", "--dir", "g", "--side", "referee"]);
    assert!(!offered && said.contains("awaits orders from british, american, not from referee"), "{said}");
    // The same battle in a copy of the game where the Americans stayed
    // silent past the deadline. Their least orders (an empty entry) would
    // settle nothing and, once in, stand for good: tick writes none, and
    // at the deadline plus the grace the silent side forfeits, not the
    // British, whose file waited for the American commitment (docs/DICE.md
    // A11 (3)). Before, the default was written and the step waited for ever.
    let copy = dir.path().join("silent");
    std::fs::create_dir(&copy).unwrap();
    for (entry, bytes) in common::all_files(&dir.path().join("g")) {
        let to = copy.join(entry.strip_prefix(dir.path().join("g")).unwrap());
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::write(&to, bytes).unwrap();
    }
    // The Americans neither committed nor sent a file there.
    std::fs::remove_file(copy.join("mutual/1-american-battle-0101--american.commit")).unwrap();
    let config = std::fs::read_to_string(copy.join("game.yaml")).unwrap();
    std::fs::write(
        copy.join("game.yaml"),
        config + "mail:\n  from: Referee <ref@example.org>\n  transport: folder\ndeadlines:\n  default: {after: 48h, grace: 6h}\n",
    )
    .unwrap();
    run(&["tick", "--no-mail", "--now", "2026-12-05T10:00:00Z", "--dir", "silent"]);
    let (_, late) = run(&["tick", "--no-mail", "--now", "2026-12-07T11:00:00Z", "--dir", "silent"]);
    assert!(!late.contains("defaulted") && !late.contains("forfeit"), "{late}");
    assert!(!copy.join("inbox/1-american-battle-0101--american.yaml").exists(), "no default written");
    let (_, graced) = run(&["tick", "--no-mail", "--now", "2026-12-07T16:00:00Z", "--dir", "silent"]);
    assert!(
        graced
            .contains("the commitment and the orders file of american was not in by the deadline 2026-12-07T16:00:00Z")
            && graced.contains("The sides of american forfeit: american."),
        "{graced}"
    );
    let status = ok(&["status", "--dir", "silent"]);
    assert!(status.contains("adjourned: american forfeits at step 1-american-battle-0101"), "{status}");
    ok(&["verify", "--dir", "silent"]);
    reference_verifies(&copy);
    // And in a copy where the American commander committed to the file
    // that disagrees: no other file of his could be taken, so that one is
    // (refused, it would have left him to forfeit); the sealed step is
    // refused together, the referee sets both files aside (docs/DICE.md
    // A6), and the commanders commit and send agreeing files.
    let clash = dir.path().join("clash");
    common::copy_dir(&dir.path().join("g"), &clash);
    let other_hash = adjutant::base::dice::Bytes32::sha256(&other).to_hex();
    std::fs::write(clash.join("mutual/1-american-battle-0101--american.commit"), format!("{other_hash}\n")).unwrap();
    let taken = ok(&["submit", "--dir", "clash", "at2.yaml"]);
    assert!(
        taken.contains("[commanders-disagree, ") && taken.contains("hashes to your commitment, so it is taken"),
        "{taken}"
    );
    let status = ok(&["status", "--dir", "clash"]);
    assert!(status.contains("the rules refuse its orders together"), "{status}");
    let (resolved, said) = run(&["resolve", "--dir", "clash"]);
    assert!(!resolved && said.contains("commanders-disagree"), "{said}");
    let (_, json) = run(&["status", "--dir", "clash", "--format", "json"]);
    let awaited = serde_json::from_str::<serde_json::Value>(&json).unwrap()["mutual"]["journal_step"].to_string();
    ok(&["correct", "--dir", "clash", "--from", &awaited, "--why", "the commanders' files disagree"]);
    assert!(!clash.join("inbox/1-american-battle-0101--british.yaml").exists(), "the files are set aside");
    for (side, bytes) in [("british", &theirs), ("american", &ours)] {
        let hex = adjutant::base::dice::Bytes32::sha256(bytes).to_hex();
        let commit = format!("game: isolated\nside: {side}\nstep: 1-american-battle-0101\ncommit: {hex}\n");
        ok(&["submit", "--dir", "clash", &file(&format!("c-{side}.yaml"), commit.as_bytes())]);
    }
    ok(&["submit", "--dir", "clash", "bt.yaml"]);
    ok(&["submit", "--dir", "clash", &file("at.yaml", &ours)]);
    let resolved = ok(&["resolve", "--dir", "clash"]);
    assert!(resolved.contains("next: 2-british-operations"), "{resolved}");
    ok(&["verify", "--dir", "clash"]);
    reference_verifies(&clash);
    ok(&["submit", "--dir", "g", &file("at.yaml", &ours)]);
    let resolved = ok(&["resolve", "--dir", "g"]);
    assert!(resolved.contains("next: 2-british-operations"), "{resolved}");
    ok(&["verify", "--dir", "g"]);
    reference_verifies(&dir.path().join("g"));
}

/// The Python reference (tests/reference/dice_ref.py) verifies the game
/// folder `game` from its files alone.
fn reference_verifies(game: &Path) {
    let out = std::process::Command::new("python3")
        .arg(common::repo_root().join("tests/reference/dice_ref.py"))
        .arg("--verify-folder")
        .arg(game)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
}
