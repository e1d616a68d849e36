//! `adjutant odds` as the shell asks it (`system.rs`'s [`OddsQuery`]): the
//! combat's column and DRM found from its units (or given), the exact
//! outcomes ([`super::odds::distribution`]) and each outcome's morale
//! checks (13.1, 13.5), as an [`OddsReport`] the command line prints.

use crate::base::error::{Error, Result};
use crate::base::hex::HexId;
use crate::system::{OddsCheck, OddsCheckResult, OddsFullLine, OddsLine, OddsQuery, OddsReport};
use crate::systems::gboar::board::state::State;
use crate::systems::gboar::board::Rules;
use crate::systems::gboar::effects::results;
use crate::systems::gboar::guide::odds::{distribution, Side, MAX_REROLLS};
use crate::systems::gboar::phases::close_combat::{self, Engagement, MomentumPolicy, Tactics};

/// The most morale checks one outcome's lines combine: 2^12 lines, each
/// over 10^12 more die paths.
const MAX_MORALE_CHECKS: u32 = 12;

/// Every outcome split by the results of its morale checks, over one common
/// denominator (the outcomes' times ten per check of the longest list).
/// Refused (usage) when the checks are more than [`MAX_MORALE_CHECKS`] or
/// the exact fractions would not fit 128 bits with the re-rolls asked for.
fn with_morale_checks(lines: &[OddsLine], denominator: u128) -> Result<Vec<OddsFullLine>> {
    let most = lines.iter().map(|l| l.morale_checks.len() as u32).max().unwrap_or(0);
    let too_many = || {
        Error::usage(format!(
            "an outcome calls for {most} morale checks: with the re-rolls asked for, the exact odds of every \
             combination fit for at most {MAX_MORALE_CHECKS} checks and {MAX_REROLLS} re-rolls; weigh fewer units or \
             re-rolls"
        ))
    };
    // The percentages multiply by 10,000 as well.
    let common = 10u128
        .checked_pow(most)
        .and_then(|p| denominator.checked_mul(p))
        .filter(|c| most <= MAX_MORALE_CHECKS && c.checked_mul(10_000).is_some())
        .ok_or_else(too_many)?;
    let mut full = Vec::new();
    for l in lines {
        let n: u128 = l.numerator.parse().unwrap_or(0);
        let k = l.morale_checks.len() as u32;
        // Each subset of passing units, in the order the checks are listed.
        for mask in 0u32..(1 << k) {
            let mut num = n * 10u128.pow(most - k);
            let mut morale = Vec::new();
            for (i, c) in l.morale_checks.iter().enumerate() {
                let passes = mask & (1 << i) == 0;
                num *= u128::from(if passes { c.passes_in_ten } else { 10 - c.passes_in_ten });
                morale.push(OddsCheckResult { unit: c.unit.clone(), passes });
            }
            if num == 0 {
                continue;
            }
            full.push(OddsFullLine {
                attacker: l.attacker.clone(),
                defender: l.defender.clone(),
                gains_momentum: l.gains_momentum.clone(),
                morale,
                numerator: num.to_string(),
                denominator: common.to_string(),
                percent: percent(num, common),
            });
        }
    }
    full.sort_by_key(|f| std::cmp::Reverse(f.numerator.parse::<u128>().unwrap_or(0)));
    Ok(full)
}

/// 13.1: the results that make the side's other units check morale.
const CHECKING: [&str; 6] = [
    results::RETREAT,
    results::DISRUPT,
    results::STEP_LOSS,
    results::TWO_STEP_LOSS,
    results::CAPTURED_DC,
    results::CAPTURED_AC,
];

/// 13.5: a unit's chance to pass a morale check, counted over the ten faces
/// with the engine's own check (16.24: at the army morale of now).
fn pass_in_ten(rules: &Rules, state: &State, unit: &str, attacked_from: &[HexId]) -> u32 {
    let at_start = state.army_morale.clone();
    (0..10u16)
        .filter(|face| {
            let mut trial = state.clone();
            let check = results::MoraleCheck { why: "odds", morale_at_start: &at_start, attacked_from, trigger: None };
            let mut dice = crate::systems::gboar::case::ScriptedDice::new(vec![*face]);
            results::morale_check(rules, &mut trial, unit, &check, &mut dice).is_ok_and(|(p, _)| p)
        })
        .count() as u32
}

pub use crate::system::percent;

/// The odds of the combat `args` proposes in `state`.
pub fn report(rules: &Rules, state: &State, args: &OddsQuery) -> Result<OddsReport> {
    let mut explanation = Vec::new();
    // The units that would check morale, for each side (13.1): the side's
    // other combat units, and the Defender's artillery.
    let mut checkers: (Vec<OddsCheck>, Vec<OddsCheck>) = (Vec::new(), Vec::new());
    let mut no_combat = false;
    let (column, drm) = match (&args.column, args.drm) {
        (Some(c), Some(d)) => {
            if !rules.charts.close_combat.close_combat_table.columns.iter().any(|x| &x.id == c) {
                let known: Vec<&str> =
                    rules.charts.close_combat.close_combat_table.columns.iter().map(|x| x.id.as_str()).collect();
                return Err(Error::usage(format!("--column '{c}': the columns are {}", known.join(", "))));
            }
            (c.clone(), d)
        }
        _ => {
            for id in args.attackers.iter().chain(&args.defenders) {
                if state.units.get(id).is_none_or(|u| u.hex.is_none()) {
                    return Err(Error::usage(format!("'{id}' is not a unit on the map in this game")));
                }
            }
            let lead = |units: &[String], wanted: &Option<String>, into: &[crate::base::hex::HexId]| {
                close_combat::lead_unit(rules, state, units, wanted.as_deref(), into)
                    .map_err(|r| Error::usage(r.message))
            };
            let defending_hexes = crate::systems::gboar::board::units::hexes_of(state, &args.defenders);
            let first_chit = rules.charts.tactics.chits.first().map(|c| c.id.clone()).unwrap_or_default();
            let e = Engagement {
                attacker_lead: lead(&args.attackers, &args.attacker_lead, &defending_hexes)?,
                defender_lead: lead(&args.defenders, &args.defender_lead, &[])?,
                attackers: args.attackers.clone(),
                defenders: args.defenders.clone(),
                attacker_chit: args.attacker_tactics.clone().unwrap_or_else(|| first_chit.clone()),
                defender_chit: args.defender_tactics.clone().unwrap_or_else(|| first_chit.clone()),
                diversion_shift: args.diversion,
            };
            let hex = |u: &String| state.units.get(u).and_then(|s| s.hex);
            let attacking: Vec<HexId> = e.attackers.iter().filter_map(hex).collect();
            let others = |units: &[String], lead: &str, defender: bool| -> Vec<OddsCheck> {
                units
                    .iter()
                    .filter(|u| *u != lead)
                    .filter(|u| rules.counter(u).is_some_and(|c| !c.is_leader() && (defender || !c.is_artillery())))
                    .map(|u| OddsCheck {
                        unit: u.clone(),
                        passes_in_ten: pass_in_ten(rules, state, u, if defender { &attacking } else { &[] }),
                    })
                    .collect()
            };
            checkers = (others(&e.attackers, &e.attacker_lead, false), others(&e.defenders, &e.defender_lead, true));
            let a_sp: i32 = e.attackers.iter().map(|u| close_combat::strength(rules, state, u)).sum();
            let d_sp: i32 = e.defenders.iter().map(|u| close_combat::strength(rules, state, u)).sum();
            let odds = close_combat::odds(rules, a_sp, d_sp, e.diversion_shift);
            let mods = close_combat::modifiers(rules, state, &e)?;
            let tactics = close_combat::tactics(rules, state, &e)?;
            explanation.push(format!("lead units: {} and {}", e.attacker_lead, e.defender_lead));
            for ev in close_combat::explain(&odds, &mods, &tactics) {
                explanation.push(ev.text);
            }
            let mut total: i32 = mods.iter().map(|m| m.value).sum();
            match tactics {
                Tactics::Drm(v, _) | Tactics::Illegal(v, _) => total += v,
                Tactics::NoCombat { .. } => no_combat = true,
            }
            (odds.column, total)
        }
    };
    let holder = |side: &[String]| {
        side.first().and_then(|u| rules.army_of(u)).and_then(|a| rules.player_of_army(a)).map(str::to_string)
    };
    let held = |player: Option<String>| player.and_then(|p| state.momentum.get(&p).copied()).unwrap_or(0);
    let a = Side {
        chits: args.attacker_chits.unwrap_or_else(|| held(holder(&args.attackers))),
        policy: MomentumPolicy { reroll_if: args.attacker_reroll_if.clone(), at_most: args.attacker_at_most },
    };
    let d = Side {
        chits: args.defender_chits.unwrap_or_else(|| held(holder(&args.defenders))),
        policy: MomentumPolicy { reroll_if: args.defender_reroll_if.clone(), at_most: args.defender_at_most },
    };
    if no_combat {
        return Ok(OddsReport {
            column,
            drm,
            explanation,
            no_combat,
            outcomes: Vec::new(),
            with_morale_checks: Vec::new(),
            attacker_chits_spent: "0".into(),
            defender_chits_spent: "0".into(),
        });
    }
    let dist = distribution(rules, &column, drm, &a, &d)?;
    let mut lines: Vec<OddsLine> = dist
        .outcomes
        .iter()
        .map(|(o, n)| OddsLine {
            attacker: o.attacker.clone(),
            defender: o.defender.clone(),
            gains_momentum: o.gains_momentum.clone(),
            morale_checks: {
                let mut list = Vec::new();
                if o.attacker.iter().any(|r| CHECKING.contains(&r.as_str())) {
                    list.extend(checkers.0.iter().cloned());
                }
                if o.defender.iter().any(|r| CHECKING.contains(&r.as_str())) {
                    list.extend(checkers.1.iter().cloned());
                }
                list
            },
            numerator: n.to_string(),
            denominator: dist.denominator.to_string(),
            percent: percent(*n, dist.denominator),
        })
        .collect();
    lines.sort_by(|x, y| {
        let (a, b) = (x.numerator.parse::<u128>().unwrap_or(0), y.numerator.parse::<u128>().unwrap_or(0));
        b.cmp(&a)
    });
    let full = if lines.iter().any(|l| !l.morale_checks.is_empty()) {
        with_morale_checks(&lines, dist.denominator)?
    } else {
        Vec::new()
    };
    Ok(OddsReport {
        column,
        drm,
        explanation,
        no_combat,
        outcomes: lines,
        with_morale_checks: full,
        attacker_chits_spent: percent(dist.attacker_chits, dist.denominator * 100).replace('%', ""),
        defender_chits_spent: percent(dist.defender_chits, dist.denominator * 100).replace('%', ""),
    })
}
