//! `adjutant odds`: exact probabilities of a close combat's outcomes.

mod common;
use common::*;

fn sum(json: &serde_json::Value) -> (u128, u128) {
    let outcomes = json["outcomes"].as_array().unwrap();
    let den: u128 = outcomes[0]["denominator"].as_str().unwrap().parse().unwrap();
    let num: u128 = outcomes.iter().map(|o| o["numerator"].as_str().unwrap().parse::<u128>().unwrap()).sum();
    (num, den)
}

#[test]
fn the_probabilities_of_a_column_sum_to_one() {
    let dir = temp();
    let module = repo_root().join("tests/modules/moves");
    let module = module.to_str().unwrap();
    let json = run(
        dir.path(),
        &[
            "odds",
            "--module",
            module,
            "--scenario",
            "battle",
            "--column",
            "3-2",
            "--drm",
            "1",
            "--attacker-chits",
            "2",
            "--attacker-reroll-if",
            "step-loss,retreat",
            "--attacker-at-most",
            "2",
            "--defender-chits",
            "1",
            "--defender-reroll-if",
            "retreat",
            "--format",
            "json",
        ],
    )
    .json();
    let (num, den) = sum(&json);
    assert_eq!(num, den, "{json}");
    assert_eq!(den, 10_u128.pow(4), "three chits can be spent: four rolls deep");
    assert_eq!(json["column"], "3-2");
}

#[test]
fn a_proposed_combat_explains_its_odds_and_drms() {
    let dir = temp();
    let module = repo_root().join("tests/modules/moves");
    let module = module.to_str().unwrap();
    let out = run(
        dir.path(),
        &[
            "odds",
            "--module",
            module,
            "--scenario",
            "battle",
            "--attackers",
            "red-foot,red-guards",
            "--defenders",
            "blue-foot",
        ],
    )
    .ok();
    // Red Foot 4 + Red Guards 3 against Blue Foot 3: 7:3 reads 2-1.
    assert!(out.contains("7 SPs against 3: 2-1 (rounded for the Defender, 12.23)"), "{out}");
    assert!(out.contains("lead units: red-foot and blue-foot"), "{out}");
    let json = run(
        dir.path(),
        &[
            "odds",
            "--module",
            module,
            "--scenario",
            "battle",
            "--attackers",
            "red-foot",
            "--defenders",
            "blue-foot",
            "--format",
            "json",
        ],
    )
    .json();
    let (num, den) = sum(&json);
    assert_eq!((num, den), (10, 10));
    // An unknown column and an unknown unit are usage errors.
    run(dir.path(), &["odds", "--module", module, "--scenario", "battle", "--column", "9-1", "--drm", "0"]).fails(2);
    run(
        dir.path(),
        &["odds", "--module", module, "--scenario", "battle", "--attackers", "nobody", "--defenders", "blue-foot"],
    )
    .fails(2);
}

/// 13.1, 13.5: an outcome that makes the side's other units check morale
/// lists each with its chance to pass, counted by the engine's own check.
#[test]
fn the_morale_checks_a_result_calls_for_are_listed() {
    let dir = temp();
    let module = repo_root().join("tests/modules/combat");
    let module = module.to_str().unwrap();
    let json = run(
        dir.path(),
        &[
            "odds",
            "--module",
            module,
            "--scenario",
            "battle",
            "--attackers",
            "red-foot,red-guards",
            "--defenders",
            "blue-foot,blue-rifles",
            "--format",
            "json",
        ],
    )
    .json();
    let outcomes = json["outcomes"].as_array().unwrap();
    let retreat = outcomes.iter().find(|o| o["defender"][0] == "retreat").expect("a retreat outcome");
    let checks = retreat["morale_checks"].as_array().unwrap();
    assert_eq!(checks.len(), 1, "{retreat}");
    assert_eq!(checks[0]["unit"], "blue-foot");
    let n = checks[0]["passes_in_ten"].as_u64().unwrap();
    assert!(n <= 10);
    let pin = outcomes.iter().find(|o| o["defender"][0] == "pin").expect("a pin outcome");
    assert!(pin["morale_checks"].as_array().unwrap().is_empty(), "PIN calls for no morale check (13.1)");
}

/// 13.5 multiplied in: every outcome split by its morale checks' results;
/// the lines sum to one, and each outcome's lines sum to the outcome's
/// probability, a failing check weighing (10 - passes) tenths.
#[test]
fn the_morale_checks_are_multiplied_into_the_outcomes() {
    let dir = temp();
    let module = repo_root().join("tests/modules/combat");
    let module = module.to_str().unwrap();
    let json = run(
        dir.path(),
        &[
            "odds",
            "--module",
            module,
            "--scenario",
            "battle",
            "--attackers",
            "red-foot,red-guards",
            "--defenders",
            "blue-foot,blue-rifles",
            "--format",
            "json",
        ],
    )
    .json();
    let full = json["with_morale_checks"].as_array().unwrap();
    let den: u128 = full[0]["denominator"].as_str().unwrap().parse().unwrap();
    let total: u128 = full.iter().map(|o| o["numerator"].as_str().unwrap().parse::<u128>().unwrap()).sum();
    assert_eq!(total, den, "the lines with morale checks sum to 1");
    let outcomes = json["outcomes"].as_array().unwrap();
    let retreat = outcomes.iter().find(|o| o["defender"][0] == "retreat").expect("a retreat outcome");
    let passes = retreat["morale_checks"][0]["passes_in_ten"].as_u64().unwrap() as u128;
    let r_num: u128 = retreat["numerator"].as_str().unwrap().parse().unwrap();
    let r_den: u128 = retreat["denominator"].as_str().unwrap().parse().unwrap();
    let same = |o: &&serde_json::Value| o["attacker"] == retreat["attacker"] && o["defender"] == retreat["defender"];
    let lines: Vec<&serde_json::Value> = full.iter().filter(same).collect();
    let scale = den / r_den;
    for l in &lines {
        let n: u128 = l["numerator"].as_str().unwrap().parse().unwrap();
        let passes_here = l["morale"][0]["passes"].as_bool().unwrap();
        let weight = if passes_here { passes } else { 10 - passes };
        assert_eq!(l["morale"][0]["unit"], "blue-foot");
        assert_eq!(n * 10, r_num * scale * weight, "{l}");
    }
    assert_eq!(lines.len(), [passes, 10 - passes].iter().filter(|w| **w > 0).count());
}

/// Issue 11: the exact fractions are counted in 128-bit integers, so the
/// re-rolls they can hold are bounded: at the bound every outcome is exact
/// (a tenth of the faces shows 10.00%, never 0.00% from an overflow), and
/// one re-roll more is refused with the limit in the message.
#[test]
fn the_deepest_re_rolls_are_exact_and_deeper_ones_are_refused() {
    let dir = temp();
    let module = repo_root().join("tests/modules/moves");
    let module = module.to_str().unwrap();
    let odds = |a: u32, d: u32, reroll_if: &str| {
        let (a, d) = (a.to_string(), d.to_string());
        let args = [
            "odds",
            "--module",
            module,
            "--scenario",
            "battle",
            "--column",
            "3-2",
            "--drm",
            "0",
            "--attacker-chits",
            &a,
            "--attacker-at-most",
            &a,
            "--attacker-reroll-if",
            reroll_if,
            "--defender-chits",
            &d,
            "--defender-at-most",
            &d,
            "--defender-reroll-if",
            reroll_if,
            "--format",
            "json",
        ];
        run(dir.path(), &args)
    };
    // A policy that never re-rolls: each face is a tenth, however deep.
    let json = odds(10, 10, "no-such-result").json();
    let (num, den) = sum(&json);
    assert_eq!((num, den), (10u128.pow(21), 10u128.pow(21)), "{json}");
    for o in json["outcomes"].as_array().unwrap() {
        let percent = o["percent"].as_str().unwrap();
        let tenths: u32 = percent.trim_end_matches(".00%").parse().unwrap_or_else(|_| panic!("{percent}"));
        assert!(tenths.is_multiple_of(10) && tenths > 0, "{percent}");
    }
    // A policy that re-rolls often: 20 re-rolls deep, still exact.
    let json = odds(10, 10, "retreat,step-loss,pin").json();
    let (num, den) = sum(&json);
    assert_eq!(num, den, "{json}");
    // One more, or the audit's 37, is refused.
    for (a, d) in [(11, 10), (37, 0), (37, 37)] {
        let err = odds(a, d, "retreat").fails(2);
        assert!(err.contains("at most 20 re-rolls fit"), "{err}");
    }
}
