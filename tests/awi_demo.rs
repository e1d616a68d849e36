//! `adjutant demo --module awi-southern`: three months of the AWI Southern
//! Campaign (southern-1780) played by email from the orders shipped in
//! games/awi-southern/demo/southern-1780/, through the binary. Each event
//! the issue asks of it is asserted in what the players receive: a
//! garrison cut off (COMMUNICATIONS) and tested for attrition, a battle
//! handed to the table with its sheet and its result mailed by both
//! commanders, agreeing, a pursuit and post-battle recovery, a trivial
//! combat entered by the referee in the commanders' place and rolled by
//! 1776's table, a fort built and its sections bombarded (FORTIFICATIONS),
//! replacements given and militia formed, each side's ledger, the map
//! with its lines of communication; `verify` recomputes the game and a
//! forged copy fails.

mod common;
use common::*;

/// Every run of white space one space: the text reports wrap at 78 columns.
fn unwrapped(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn the_awi_demo_plays_three_months_by_email_and_verifies() {
    let dir = temp();
    let kept = dir.path().join("kept");
    let out = run(dir.path(), &["demo", "--module", "awi-southern", "--keep", kept.to_str().unwrap()]).ok();
    let all = unwrapped(&out);
    for (what, text) in [
        ("the garrison cut off", "71st Foot (Fraser's Highlanders): out of communication"),
        ("its first month free", "need not test for attrition: in communication at the end of the previous British turn"),
        ("its attrition test", "71st Foot (Fraser's Highlanders) passes its attrition test: D100 35 against morale 70% -0% = 70%"),
        ("a battle awaits both commanders", "next: 1-british-battle-0705, awaiting orders from british, american"),
        ("the referee's entry in their place", "resolve demo/southern-1780/1-british-battle-0705--referee.yaml: the referee's entry"),
        ("the trivial combat", "Battle at 0705, both players agreeing, resolved by 1776's combat table"),
        ("the battle sheet", "Battle at 0901, handed to the table: british attacks"),
        ("the fort's sections on the sheet", "The american fort at 0901: 4 sections of 4\" with"),
        ("the breaching gun's damage rolls", "camden-12-pounder (12-pounder) can batter the fort's sections within 12\""),
        ("one commander's entry mailed", "submit demo/southern-1780/3-british-battle-0901--american.yaml: sha256"),
        ("the other's", "submit demo/southern-1780/3-british-battle-0901--british.yaml: sha256"),
        ("the entry applied", "Battle at 0901: both commanders enter the table's result. american held, british broke"),
        ("the pursuit", "33rd Foot is caught by the pursuit (7 actions): a penalty casualty"),
        ("the recovery", "1st Maryland Brigade: 4 casualty markers, 2 removed (its formation did not break: 1; its side holds the field: 1 more)"),
        ("the fort built", "The british build a fort at 0910: 7th-foot, charleston-6-pounder build it"),
        ("the American fort built", "The american build a fort at 0901"),
        ("the bombardment", "camden-12-pounder fired 6 shots at the fort at 0901: section 2"),
        ("a section destroyed", "section 2 destroyed"),
        ("replacements given", "17th Light Dragoons takes 2 british replacement stand(s) from Charleston: 3 of 3 fighting stands"),
        ("American replacements given", "1st Maryland Brigade takes 2 american replacement stand(s) from Hillsborough"),
        ("militia formed", "Ferguson's Loyal Militia is formed at Ninety-Six with 6 musket stand(s)"),
        ("American militia formed", "Watauga Riflemen is formed at Hillsborough with 3 rifle stand(s)"),
        ("the British ledger", "British ledger: unused replacements at Charleston (0910): 2 british stands"),
        ("the American ledger", "American ledger: unused replacements at Hillsborough (0901): 1 american stands"),
        ("the map", "reports/000008-000008/american.txt (and its map, reports/000008-000008/map.svg)"),
        ("where it stops", "The demo's shipped orders end with step 3-american-operations"),
        ("the forged copy", "changed the first roll (journal/000002.yaml) does not verify"),
        ("its failure", "FAILED"),
        ("verify", "8 steps and 25 rolls recompute from the anchor"),
    ] {
        assert!(all.contains(text), "{what}: {text}\n{out}");
    }
    // Each side's report carries its own ledger only: the British steps
    // are printed as the British receive them, the American as the
    // Americans do.
    let game = kept.join("southern");
    let british = unwrapped(&std::fs::read_to_string(game.join("reports/000007-000007/british.txt")).unwrap());
    let american = unwrapped(&std::fs::read_to_string(game.join("reports/000008-000008/american.txt")).unwrap());
    assert!(british.contains("British ledger") && !british.contains("American ledger"), "{british}");
    assert!(american.contains("American ledger") && !american.contains("British ledger"), "{american}");
    // The map draws the lines of communication and marks the garrison
    // out of communication.
    let map = std::fs::read_to_string(game.join("reports/000008-000008/map.svg")).unwrap();
    assert!(map.contains(r#"data-army="communications""#), "the map draws the lines of communication");
    assert!(map.contains(">OC<"), "the garrison is marked out of communication");
    // Every shipped file was used, and the game verifies again from its folder.
    let shipped = std::fs::read_dir(repo_root().join("games/awi-southern/demo/southern-1780")).unwrap().count();
    assert_eq!(shipped, 9);
    run(dir.path(), &["verify", "--dir", game.to_str().unwrap()]).ok();
    // A demo the module has not: refused, naming the module's demos.
    let text = run(dir.path(), &["demo", "--module", "awi-southern", "--scenario", "campaign"]).fails(2);
    assert!(text.contains("awi-southern's demos are southern-1780"), "{text}");
}
