//! `adjutant demo --scenario campaign` (issue 14): a whole Campaign Game of
//! Savannah 1779 from turn 1, through the switch to the Tactical Turn Track
//! (turn 16), to its victory determination, played with the orders shipped
//! in games/savannah-1779/demo/campaign/ (scripts/demo-orders campaign
//! writes them: `adjutant template`'s least orders, and the hand-written
//! files the story needs). The story, each part found in the journal:
//! Random Events cards drawn, held and played, one trumped by Local
//! Superiority (4.3); a momentum chit spent on an extra card (1.4, 4.3);
//! siege works begun, completed and breached (4.4, 4.5); Siege &
//! Bombardment rolled by both sides (4.6); the Creeks entering by a card
//! (4.8); the weather stopping the completion of siege works (4.2, 4.4).
//! `verify` recomputes it all.

mod common;
use common::*;

/// The game's numbers. The dice follow from the chain top
/// (src/cli/demo.rs CAMPAIGN_TOP_TEXT) and the shipped orders' bytes: after
/// a rule change or `scripts/demo-orders campaign`, update these (and the
/// journal head in docs/DICE.md, "The demo games") from the demo's last
/// lines, once the story below still holds.
const STEPS: u64 = 291;
const ROLLS: u64 = 69;
const RESULT: &str = "british marginal";
const HEAD: &str = "fc2dd6b2e14696bb28d692fb0cc7c0dad6a7d488d5cda83f461dd30d1b5f4f88";

#[test]
fn the_campaign_demo_plays_a_whole_campaign_game_and_verifies() {
    let dir = temp();
    let kept = dir.path().join("kept");
    let out = run(dir.path(), &["demo", "--scenario", "campaign", "--keep", kept.to_str().unwrap()]).ok();
    let end: Vec<&str> = out.trim_end().lines().rev().take(4).collect();
    assert!(out.contains(&format!("{STEPS} steps and {ROLLS} rolls")), "{}", end.join("\n"));
    assert!(out.contains(&format!("journal head: step {STEPS}, {HEAD}\n")), "{}", end.join("\n"));
    assert!(out.contains(&format!("game over: {RESULT} victory")), "{}", end.join("\n"));
    // Short and turn by turn: a heading for each of the game's turns.
    for turn in 1..=16 {
        assert!(out.contains(&format!("\nturn {turn}\n")), "turn {turn}\n{out}");
    }
    assert!(out.lines().count() < 1000, "{} lines", out.lines().count());
    let dice_md = std::fs::read_to_string(repo_root().join("docs/DICE.md")).unwrap();
    assert!(dice_md.contains(HEAD), "docs/DICE.md names the Campaign demo's journal head {HEAD}");

    let game = kept.join("campaign");
    let g = game.to_str().unwrap();
    assert!(run(dir.path(), &["verify", "--dir", g]).ok().contains("verified"));
    // Every shipped orders file was used.
    let shipped = std::fs::read_dir(repo_root().join("games/savannah-1779/demo/campaign")).unwrap().count();
    let orders = std::fs::read_dir(game.join("orders")).unwrap().count();
    assert_eq!(orders, shipped);
    let report =
        run(dir.path(), &["report", "--dir", g, "--referee", "--steps", &format!("1-{STEPS}"), "--format", "json"])
            .json();
    let events: Vec<(String, String, String)> = report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| {
            s["events"].as_array().unwrap().iter().map(move |e| {
                (
                    s["game_step"].as_str().unwrap().to_string(),
                    e["kind"].as_str().unwrap().to_string(),
                    e["text"].as_str().unwrap().to_string(),
                )
            })
        })
        .collect();
    let turn = |step: &str| step.split('-').next().unwrap().parse::<u32>().unwrap();
    let first = |kind: &str, text: &str| events.iter().position(|(_, k, t)| k == kind && t.contains(text));
    let has = |kind: &str, text: &str| first(kind, text).is_some();

    // 4.3: cards drawn; the Creeks' card held from its draw to a later turn, then played (4.8).
    assert!(has("card-drawn", "Random Events Phase, turn 1"), "{events:?}");
    let drawn = first("card-drawn", "(creek-indians)").expect("the British draw the Creeks' card");
    let played = first("card-played", "plays Creek Indians").expect("and play it");
    assert!(turn(&events[drawn].0) < turn(&events[played].0), "held: {:?} then {:?}", events[drawn], events[played]);
    assert!(has("unit-added", "Creek Indians (creek-indians) comes into play"), "{events:?}");
    assert!(has("placed", "Creek Indians is placed at"), "the Creeks enter the map: {events:?}");
    // 4.3: a card trumped by Local Superiority.
    assert!(has("card-cancelled", "cancelled at once by Local Superiority"), "{events:?}");
    // 1.4, 4.3: a momentum chit for an extra card.
    assert!(has("momentum", "spends 1 momentum chit for an extra Random Events card"), "{events:?}");
    assert!(has("card-drawn", "extra card for momentum"), "{events:?}");
    // 4.4, 4.5: siege works begun, completed, breached.
    assert!(has("construction-marker-placed", "a construction marker is placed in"), "{events:?}");
    assert!(has("siege-works-completed", "siege works completed toward"), "{events:?}");
    assert!(has("breach", "the french siege works hexside"), "{events:?}");
    assert!(has("breach", "the british fieldworks hexside"), "{events:?}");
    // 4.6: Siege & Bombardment rolled by both sides.
    assert!(has("siege-bombardment-roll", "the french side rolls"), "{events:?}");
    assert!(has("siege-bombardment-roll", "the british side rolls"), "{events:?}");
    // 4.2, 4.4: the weather stops siege works being completed.
    assert!(has("siege-works-not-completed", "prevents the completion of siege works"), "{events:?}");
    // 1.6: the Strategic Turn Track to turn 15, then the Tactical Turn Track from turn 16.
    let steps: Vec<&str> =
        report["steps"].as_array().unwrap().iter().map(|s| s["game_step"].as_str().unwrap()).collect();
    let at = |name: &str| steps.iter().position(|s| *s == name).unwrap_or_else(|| panic!("{name}: {steps:?}"));
    assert!(at("15-weather") < at("17-initiative"), "{steps:?}");
    assert!(!steps.iter().any(|s| turn(s) >= 16 && (s.ends_with("-weather") || s.ends_with("random-events"))));
    let last = events.last().unwrap();
    assert_eq!(last.1, "victory", "{last:?}");
}
