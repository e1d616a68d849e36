//! Exact odds of a close combat (12.23 steps 5 and 6): the probability of
//! every result pair of the Close Combat Table, enumerating every die path,
//! including the momentum re-rolls of step 6 under each side's policy.
//! Probabilities are exact fractions over a power of the die's faces; no
//! floating point is used to compute them.
//!
//! Step 6 as enumerated: after each roll, the side holding fewer chits (the
//! Defender on a tie) decides first whether to spend one and re-roll; if it
//! does not, the other side decides; a spent chit forces a re-roll before
//! either may spend again. A side spends when its policy says so for the
//! result it faces and it still holds a chit and has budget left.

use std::collections::BTreeMap;

use crate::base::error::{Error, Result};
use crate::systems::gboar::board::Rules;
use crate::systems::gboar::phases::close_combat::MomentumPolicy;

/// What one side brings to step 6.
#[derive(Debug, Clone, Default)]
pub struct Side {
    pub chits: u32,
    pub policy: MomentumPolicy,
}

/// One outcome: the final results of both sides, and who gains a momentum
/// chit on the final modified roll (12.63: `attacker`, `defender` or none).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Outcome {
    pub attacker: Vec<String>,
    pub defender: Vec<String>,
    pub gains_momentum: Option<String>,
}

/// An exact probability: `numerator / faces^depth`, kept over a common
/// denominator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Probability {
    pub numerator: u128,
    pub denominator: u128,
}

impl Probability {
    pub fn as_f64(&self) -> f64 {
        self.numerator as f64 / self.denominator as f64
    }
}

/// The distribution of outcomes (with the chits each side spends, for the
/// report), over a common denominator.
#[derive(Debug, Clone)]
pub struct Distribution {
    pub denominator: u128,
    pub outcomes: BTreeMap<Outcome, u128>,
    /// Expected chits spent by the Attacker and the Defender, as numerators.
    pub attacker_chits: u128,
    pub defender_chits: u128,
}

/// The most momentum re-rolls one combat may be weighed with, both sides
/// together: the probabilities are exact fractions over 10^(re-rolls + 1)
/// die paths, and `adjutant odds` multiplies them by its morale checks and
/// by 10,000 for its percentages, all in 128-bit integers.
pub const MAX_REROLLS: u32 = 20;

/// The re-rolls the enumeration allows: every chit either side could
/// spend (at most its policy's `at_most`).
fn rerolls(attacker: &Side, defender: &Side) -> u64 {
    u64::from(attacker.chits.min(attacker.policy.at_most)) + u64::from(defender.chits.min(defender.policy.at_most))
}

/// 12.23 steps 5-6: the exact distribution for `column` with `drm` (the
/// sum of every DRM, tactics included). Refused (a usage error) past
/// [`MAX_REROLLS`] re-rolls, the limit in the message.
///
/// A die path is summed up by the chits each side has spent on it: the
/// chits held and the budget left follow from them, so every path that
/// reaches the same (attacker spent, defender spent) goes on alike, and
/// the enumeration walks those pairs (at most (A+1)(D+1) of them) rather
/// than every path (up to 10^(A+D)).
pub fn distribution(rules: &Rules, column: &str, drm: i32, attacker: &Side, defender: &Side) -> Result<Distribution> {
    let depth = rerolls(attacker, defender);
    if depth > u64::from(MAX_REROLLS) {
        return Err(Error::usage(format!(
            "{depth} momentum re-rolls ({} chits the Attacker may spend, {} the Defender): the exact odds are counted \
             over 10^(re-rolls + 1) die paths, and at most {MAX_REROLLS} re-rolls fit; lower the chits or at_most",
            attacker.chits.min(attacker.policy.at_most),
            defender.chits.min(defender.policy.at_most)
        )));
    }
    let faces: u128 = 10;
    let levels = depth as u32 + 1;
    let denominator = faces.pow(levels);
    let gain = &rules.charts.close_combat.close_combat_table.momentum;
    let mut table: Vec<(Vec<String>, Vec<String>, Option<String>)> = Vec::new();
    for roll in 0..10 {
        let modified = roll + drm;
        let (a, d) = crate::systems::gboar::phases::close_combat::cell(rules, column, modified)?;
        let gains = if modified <= gain.defender_gains_at_most {
            Some("defender".to_string())
        } else if modified >= gain.attacker_gains_at_least {
            Some("attacker".to_string())
        } else {
            None
        };
        table.push((a, d, gains));
    }
    let mut out = Distribution { denominator, outcomes: BTreeMap::new(), attacker_chits: 0, defender_chits: 0 };
    // The weight (a numerator over `denominator`) of the paths that have
    // spent (attacker, defender) chits and roll again; by level, the number
    // of chits spent so far, so that a pair is complete before it rolls.
    let mut level: BTreeMap<(u32, u32), u128> = BTreeMap::new();
    level.insert((0, 0), denominator);
    for spent in 0..levels {
        let mut next: BTreeMap<(u32, u32), u128> = BTreeMap::new();
        for (&(a_spent, d_spent), &weight) in &level {
            let (a_chits, d_chits) = (attacker.chits - a_spent, defender.chits - d_spent);
            let (a_budget, d_budget) = (attacker.policy.at_most - a_spent, defender.policy.at_most - d_spent);
            let share = weight / faces;
            for (att, def, gains) in &table {
                // Who decides first: fewer chits, the Defender on a tie.
                let defender_first = d_chits <= a_chits;
                let a_wants = a_chits > 0 && a_budget > 0 && attacker.policy.wants(att);
                let d_wants = d_chits > 0 && d_budget > 0 && defender.policy.wants(def);
                let spender = match (defender_first, d_wants, a_wants) {
                    (true, true, _) => Some(false),
                    (true, false, true) => Some(true),
                    (false, _, true) => Some(true),
                    (false, true, false) => Some(false),
                    _ => None,
                };
                match spender {
                    Some(by_attacker) if spent + 1 < levels => {
                        let pair = if by_attacker { (a_spent + 1, d_spent) } else { (a_spent, d_spent + 1) };
                        *next.entry(pair).or_default() += share;
                    }
                    _ => {
                        let outcome =
                            Outcome { attacker: att.clone(), defender: def.clone(), gains_momentum: gains.clone() };
                        *out.outcomes.entry(outcome).or_default() += share;
                        out.attacker_chits += share * u128::from(a_spent);
                        out.defender_chits += share * u128::from(d_spent);
                    }
                }
            }
        }
        level = next;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::gboar::data::Source;
    use rand_chacha::rand_core::{RngCore, SeedableRng};

    fn rules() -> Rules {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/modules/moves");
        Rules::load(&Source::dir(&dir), "battle").unwrap()
    }

    /// A d10 from a seeded stream, by rejection (no modulo bias).
    fn d10(rng: &mut rand_chacha::ChaCha8Rng) -> i32 {
        loop {
            let x = rng.next_u32();
            if x < u32::MAX - (u32::MAX % 10) {
                return (x % 10) as i32;
            }
        }
    }

    /// Step 6 played out one combat at a time, written independently of
    /// the enumeration.
    fn simulate(
        rules: &Rules,
        column: &str,
        drm: i32,
        a: &Side,
        d: &Side,
        rng: &mut rand_chacha::ChaCha8Rng,
    ) -> Outcome {
        let (mut ac, mut dc) = (a.chits, d.chits);
        let (mut ab, mut db) = (a.policy.at_most, d.policy.at_most);
        loop {
            let roll = d10(rng) + drm;
            let (att, def) = crate::systems::gboar::phases::close_combat::cell(rules, column, roll).unwrap();
            let a_wants = ac > 0 && ab > 0 && att.iter().any(|r| a.policy.reroll_if.contains(r));
            let d_wants = dc > 0 && db > 0 && def.iter().any(|r| d.policy.reroll_if.contains(r));
            let first_is_defender = dc <= ac;
            let (first_wants, second_wants) = if first_is_defender { (d_wants, a_wants) } else { (a_wants, d_wants) };
            let defender_spends = if first_wants {
                first_is_defender
            } else if second_wants {
                !first_is_defender
            } else {
                let m = &rules.charts.close_combat.close_combat_table.momentum;
                let gains = if roll <= m.defender_gains_at_most {
                    Some("defender".to_string())
                } else if roll >= m.attacker_gains_at_least {
                    Some("attacker".to_string())
                } else {
                    None
                };
                return Outcome { attacker: att, defender: def, gains_momentum: gains };
            };
            if defender_spends {
                dc -= 1;
                db -= 1;
            } else {
                ac -= 1;
                ab -= 1;
            }
        }
    }

    /// The exact distribution of a 3:2 attack at +1 with both sides' momentum
    /// policies sums to 1 and agrees with a million simulated combats
    /// within five standard deviations for every outcome.
    #[test]
    fn exact_odds_agree_with_a_million_combats() {
        let rules = rules();
        let a = Side {
            chits: 2,
            policy: MomentumPolicy { reroll_if: vec!["step-loss".into(), "retreat".into()], at_most: 2 },
        };
        let d =
            Side { chits: 1, policy: MomentumPolicy { reroll_if: vec!["retreat".into(), "pin".into()], at_most: 1 } };
        let exact = distribution(&rules, "3-2", 1, &a, &d).unwrap();
        let total: u128 = exact.outcomes.values().sum();
        assert_eq!(total, exact.denominator, "the probabilities sum to 1");
        assert!(exact.outcomes.len() > 3);
        let n = 1_000_000u32;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1779);
        let mut seen: BTreeMap<Outcome, u32> = BTreeMap::new();
        for _ in 0..n {
            *seen.entry(simulate(&rules, "3-2", 1, &a, &d, &mut rng)).or_default() += 1;
        }
        for (outcome, num) in &exact.outcomes {
            let p = *num as f64 / exact.denominator as f64;
            let f = f64::from(seen.get(outcome).copied().unwrap_or(0)) / f64::from(n);
            let sigma = (p * (1.0 - p) / f64::from(n)).sqrt();
            assert!((f - p).abs() <= 5.0 * sigma + 1e-9, "{outcome:?}: exact {p}, simulated {f}");
        }
        assert!(
            seen.keys().all(|o| exact.outcomes.contains_key(o)),
            "the simulation found an outcome the enumeration lacks"
        );
    }

    /// At the most re-rolls allowed the fractions still sum to 1 and a
    /// face's tenth is a tenth; one more is refused, naming the limit.
    #[test]
    fn the_deepest_odds_allowed_are_exact_and_one_more_is_refused() {
        let rules = rules();
        let every: Vec<String> = (0..10)
            .flat_map(|roll| {
                let (a, d) = crate::systems::gboar::phases::close_combat::cell(&rules, "1-1", roll).unwrap();
                a.into_iter().chain(d)
            })
            .collect();
        let greedy = |chits: u32| Side { chits, policy: MomentumPolicy { reroll_if: every.clone(), at_most: chits } };
        let (a, d) = (greedy(MAX_REROLLS / 2), greedy(MAX_REROLLS - MAX_REROLLS / 2));
        let exact = distribution(&rules, "1-1", 0, &a, &d).unwrap();
        assert_eq!(exact.denominator, 10u128.pow(MAX_REROLLS + 1));
        assert_eq!(exact.outcomes.values().sum::<u128>(), exact.denominator, "the probabilities sum to 1");
        // The Attacker spends at most its chits on any path.
        assert!(exact.attacker_chits <= exact.denominator * u128::from(MAX_REROLLS / 2));
        assert!(exact.attacker_chits > 0 && exact.defender_chits > 0);
        let err = distribution(&rules, "1-1", 0, &a, &greedy(MAX_REROLLS - MAX_REROLLS / 2 + 1)).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(err.to_string().contains(&format!("at most {MAX_REROLLS} re-rolls")), "{err}");
        // More chits than the policy spends are no deeper.
        let holding = Side { chits: 1000, policy: MomentumPolicy { reroll_if: every.clone(), at_most: 1 } };
        assert!(distribution(&rules, "1-1", 0, &holding, &holding).is_ok());
    }

    #[test]
    fn without_momentum_each_face_is_a_tenth() {
        let rules = rules();
        let exact = distribution(&rules, "1-1", 0, &Side::default(), &Side::default()).unwrap();
        assert_eq!(exact.denominator, 10);
        assert_eq!(exact.outcomes.values().sum::<u128>(), 10);
    }
}
