//! `adjutant odds` for the AWI Southern Campaign, where the article's rules
//! have odds to weigh:
//!
//! - a TRIVIAL COMBAT between the named forces, played out to its end
//!   exactly: "Proceed with the 1776 combat resolution and determine the
//!   strength point loses for each side. Each strength point lost
//!   represents six casualty markers ... Repeat the 1776 combat resolution
//!   procedure until one or both sides break. A side breaks when its
//!   cumulative total of casualty markers reaches its army morale." Every
//!   end (each side's markers, who broke, who holds the field) as an exact
//!   fraction over 6^rounds; or, with `--column`, one round of a column;
//! - BREAKING OFF: each force's commanding general's base chance ("All
//!   generals except for Washington, Green and Marion have a 0% base chance
//!   ... Washington, Green, and Marion all have a base 10% chance");
//! - ATTRITION OF ISOLATED BRITISH GARRISONS: each named British unit's
//!   chance to lose a stand if it ends this British turn where it is (its
//!   exceptions, the first month free, -10% per consecutive pass).

use std::collections::BTreeMap;

use crate::base::error::{echo, Error, Result};
use crate::system::{percent, OddsLine, OddsQuery, OddsReport};
use crate::systems::awi::board::State;
use crate::systems::awi::data::{CrtColumn, Module};
use crate::systems::awi::rules::command::{break_off_base, commanding_general, manipulation_points};
use crate::systems::awi::rules::comms::traced;
use crate::systems::awi::rules::{attrition, battle};

/// The most rounds whose exact odds fit: 6^40 (times 10,000 for the
/// percentages) fits 128 bits.
const MAX_ROUNDS: u32 = 40;

/// The odds `q` asks for in `s`.
pub fn report(m: &Module, s: &State, q: &OddsQuery) -> Result<OddsReport> {
    refuse_gboar_options(q)?;
    if let Some(c) = &q.column {
        return one_round(m, c, q.drm.unwrap_or(0));
    }
    let sides = [force(m, s, &q.attackers, "--attackers")?, force(m, s, &q.defenders, "--defenders")?];
    if sides[0].side == sides[1].side {
        return Err(Error::usage(format!(
            "--attackers and --defenders are both {}'s: a combat is between the two sides",
            sides[0].side
        )));
    }
    let chart = &m.charts.battle.trivial_combat;
    let per_sp = m.charts.communications.stands_per_strength_point.value;
    let morale = |f: &Force| (f.stands * chart.army_morale_percent.value / 100).max(1);
    let (ma, md) = (morale(&sides[0]), morale(&sides[1]));
    let mut explanation = Vec::new();
    for (f, what, army) in [(&sides[0], "attacker", ma), (&sides[1], "defender", md)] {
        explanation.push(format!(
            "{what} ({}): {}: {} fighting stands, army morale {army} casualty markers ({}% of them, {})",
            f.side,
            f.units.iter().map(|(id, n)| format!("{id} {n}")).collect::<Vec<_>>().join(", "),
            f.stands,
            chart.army_morale_percent.value,
            chart.source
        ));
    }
    // 1776's halvings (battle.rs `quarters_per_stand`): each side's units
    // against the other's, supplied where its named units stand.
    let units = |f: &Force| -> Vec<&crate::systems::awi::data::Unit> {
        f.units.iter().filter(|(_, n)| *n > 0).filter_map(|(id, _)| m.unit(id)).collect()
    };
    let hexes = |f: &Force| -> std::collections::BTreeSet<crate::base::hex::HexId> {
        f.units.iter().filter_map(|(id, _)| s.pieces.get(id)?.hex.as_deref()?.parse().ok()).collect()
    };
    let mut quarters = [4u64; 2];
    for (i, (f, other)) in [(&sides[0], &sides[1]), (&sides[1], &sides[0])].into_iter().enumerate() {
        let supplied = battle::supplied_at(m, s, &f.side, &hexes(f));
        let (q, why) = battle::quarters_per_stand(m, &units(f), &units(other), supplied);
        quarters[i] = q;
        if !why.is_empty() {
            explanation.push(format!(
                "{} ({}) fights at half strength, 1776's: {} (a stand counts {})",
                if i == 0 { "the attacker" } else { "the defender" },
                f.side,
                why.join("; "),
                battle::stands_text(q)
            ));
        }
    }
    explanation.push(format!(
        "each round: the column of the stands left (as they fight), a D6; a strength point lost is {per_sp} casualty markers; until one or both sides break (TRIVIAL COMBATS); both broken: the defender holds the field"
    ));
    let column_at = |a: u32, d: u32| column_of(m, u64::from(a) * quarters[0], u64::from(d) * quarters[1]);
    let opening = column_at(sides[0].stands, sides[1].stands)?;
    // The ends: (attacker's markers, defender's) -> numerator over 6^round.
    let mut ends: Vec<((u32, u32), u128, u32)> = Vec::new();
    let mut now: BTreeMap<(u32, u32), u128> = BTreeMap::from([((0, 0), 1)]);
    let mut round = 0;
    while !now.is_empty() {
        round += 1;
        if round > MAX_ROUNDS {
            return Err(Error::usage(format!(
                "this combat can last more than {MAX_ROUNDS} rounds: its exact odds do not fit 128 bits; weigh smaller forces"
            )));
        }
        let mut next: BTreeMap<(u32, u32), u128> = BTreeMap::new();
        for ((ta, td), n) in now {
            let column = column_at(sides[0].stands - ta, sides[1].stands - td)?;
            for r in &column.results {
                let a = ta + (r.attacker * per_sp).min(ma - ta);
                let d = td + (r.defender * per_sp).min(md - td);
                if a >= ma || d >= md {
                    ends.push(((a, d), n, round));
                } else {
                    *next.entry((a, d)).or_default() += n;
                }
            }
        }
        now = next;
    }
    let denominator = 6u128.pow(round);
    let mut by_end: BTreeMap<(u32, u32), u128> = BTreeMap::new();
    for (end, n, r) in ends {
        *by_end.entry(end).or_default() += n * 6u128.pow(round - r);
    }
    let mut outcomes: Vec<OddsLine> = by_end
        .into_iter()
        .map(|((a, d), n)| {
            let (a_broke, d_broke) = (a >= ma, d >= md);
            let holds = !d_broke || a_broke;
            let said = |markers: u32, broke: bool, field: bool| {
                vec![format!(
                    "{markers} markers{}{}",
                    if broke { ", broke" } else { "" },
                    if field { ", holds the field" } else { "" }
                )]
            };
            OddsLine {
                attacker: said(a, a_broke, !holds),
                defender: said(d, d_broke, holds),
                gains_momentum: None,
                morale_checks: Vec::new(),
                numerator: n.to_string(),
                denominator: denominator.to_string(),
                percent: percent(n, denominator),
            }
        })
        .collect();
    outcomes.sort_by_key(|l| std::cmp::Reverse(l.numerator.parse::<u128>().unwrap_or(0)));
    let won = |attacker: bool| -> u128 {
        outcomes
            .iter()
            .filter(|l| l.attacker[0].ends_with("holds the field") == attacker)
            .map(|l| l.numerator.parse::<u128>().unwrap_or(0))
            .sum()
    };
    explanation.push(format!(
        "the attacker holds the field {}, the defender {} (at most {round} round{})",
        percent(won(true), denominator),
        percent(won(false), denominator),
        if round == 1 { "" } else { "s" }
    ));
    explanation.extend(break_off(m, s, &sides));
    explanation.extend(attrition_lines(m, s, &sides));
    Ok(OddsReport {
        column: opening.odds.clone(),
        drm: 0,
        explanation,
        no_combat: false,
        outcomes,
        with_morale_checks: Vec::new(),
        attacker_chits_spent: String::new(),
        defender_chits_spent: String::new(),
    })
}

/// The options of the series' close combat, which the AWI has not.
fn refuse_gboar_options(q: &OddsQuery) -> Result<()> {
    let given = [
        ("--attacker-lead", q.attacker_lead.is_some()),
        ("--defender-lead", q.defender_lead.is_some()),
        ("--attacker-tactics", q.attacker_tactics.is_some()),
        ("--defender-tactics", q.defender_tactics.is_some()),
        ("--diversion", q.diversion != 0),
        ("--attacker-chits", q.attacker_chits.is_some()),
        ("--defender-chits", q.defender_chits.is_some()),
        ("--attacker-reroll-if", !q.attacker_reroll_if.is_empty()),
        ("--defender-reroll-if", !q.defender_reroll_if.is_empty()),
    ];
    match given.iter().find(|(_, g)| *g) {
        Some((option, _)) => Err(Error::usage(format!(
            "{option} is the GBoAR series' close combat: the AWI's odds take --attackers and --defenders (a trivial combat to its end, the generals' break-off chances, the attrition tests), or --column with --drm 0 (one round)"
        ))),
        None => Ok(()),
    }
}

/// One side's named units: on the map, of one side, with their stands.
struct Force {
    side: String,
    units: Vec<(String, u32)>,
    stands: u32,
}

fn force(m: &Module, s: &State, ids: &[String], option: &str) -> Result<Force> {
    let mut side: Option<String> = None;
    let mut units = Vec::new();
    for id in ids {
        let Some(u) = m.unit(id).filter(|u| !u.is_supply()) else {
            return Err(Error::usage(format!(
                "{option}: '{}' is not a fighting unit of the order of battle",
                echo(id)
            )));
        };
        let stands = match s.pieces.get(id) {
            Some(p) if p.hex.is_some() && !p.eliminated => p.stands,
            _ => return Err(Error::usage(format!("{option}: {} is not on the map in this game", u.name))),
        };
        match &side {
            Some(x) if *x != u.side => {
                return Err(Error::usage(format!(
                    "{option}: {} is {}'s, the others {x}'s: one side's units",
                    u.name, u.side
                )))
            }
            _ => side = Some(u.side.clone()),
        }
        if !units.iter().any(|(x, _): &(String, u32)| x == id) {
            units.push((id.clone(), stands));
        }
    }
    let Some(side) = side else { return Err(Error::usage(format!("{option}: name one unit at least"))) };
    let stands = units.iter().map(|(_, n)| n).sum();
    if stands == 0 {
        return Err(Error::usage(format!("{option}: these units have no fighting stands")));
    }
    Ok(Force { side, units, stands })
}

/// The column of 1776's table for a strength of `a` against `d` (in
/// quarters of a stand: the highest column whose odds they reach, else the
/// lowest), as the combat itself finds it.
fn column_of(m: &Module, a: u64, d: u64) -> Result<&CrtColumn> {
    let columns = &m.charts.battle.trivial_combat.columns;
    let d = d.max(1);
    columns
        .iter()
        .rev()
        .find(|c| a * u64::from(c.defender) >= d * u64::from(c.attacker))
        .or(columns.first())
        .ok_or_else(|| Error::usage("charts/battle.yaml has no combat table"))
}

/// `--column C --drm 0`: one round of that column, each face 1/6.
fn one_round(m: &Module, c: &str, drm: i32) -> Result<OddsReport> {
    let columns = &m.charts.battle.trivial_combat.columns;
    let Some(column) = columns.iter().find(|x| x.odds == c) else {
        let known: Vec<&str> = columns.iter().map(|x| x.odds.as_str()).collect();
        return Err(Error::usage(format!("--column '{}': the columns are {}", echo(c), known.join(", "))));
    };
    if drm != 0 {
        return Err(Error::usage(format!("--drm {drm}: 1776's table takes no modifier here (--drm 0)")));
    }
    let per_sp = m.charts.communications.stands_per_strength_point.value;
    let mut faces: BTreeMap<(u32, u32), u128> = BTreeMap::new();
    for r in &column.results {
        *faces.entry((r.attacker, r.defender)).or_default() += 1;
    }
    let mut outcomes: Vec<OddsLine> = faces
        .into_iter()
        .map(|((a, d), n)| OddsLine {
            attacker: vec![format!("{a} SP ({} markers)", a * per_sp)],
            defender: vec![format!("{d} SP ({} markers)", d * per_sp)],
            gains_momentum: None,
            morale_checks: Vec::new(),
            numerator: n.to_string(),
            denominator: "6".into(),
            percent: percent(n, 6),
        })
        .collect();
    outcomes.sort_by_key(|l| std::cmp::Reverse(l.numerator.parse::<u128>().unwrap_or(0)));
    Ok(OddsReport {
        column: column.odds.clone(),
        drm: 0,
        explanation: vec![format!(
            "one round of 1776's combat table ({}), a D6",
            m.charts.battle.trivial_combat.source
        )],
        no_combat: false,
        outcomes,
        with_morale_checks: Vec::new(),
        attacker_chits_spent: String::new(),
        defender_chits_spent: String::new(),
    })
}

/// BREAKING OFF: the commanding general of each force (of the generals in
/// the hex of its first unit, the one with the largest span, ties by the
/// order of battle: `command::commanding_general`, as the battle sheet
/// asks) and his base chance; a table battle only ("Neither side may
/// break off" a trivial combat).
fn break_off(m: &Module, s: &State, sides: &[Force; 2]) -> Vec<String> {
    let mut lines = Vec::new();
    for f in sides {
        let Some(hex) = f.units.first().and_then(|(id, _)| s.hex_of(id)) else { continue };
        lines.push(match commanding_general(m, s, hex, &f.side) {
            None => format!(
                "break off ({}, a table battle; none in a trivial combat): no general at {hex}: \"Only the commanding general of the force can make the attempt\"",
                f.side
            ),
            Some(g) => format!(
                "break off ({}, a table battle; none in a trivial combat): {} commands at {hex}: a base {}% chance, before the army manipulation points he spends ({} a percent, stand-in; he has {})",
                f.side,
                g.name,
                break_off_base(m, g),
                m.charts.command.break_off_points_per_percent.value,
                manipulation_points(m, g)
            ),
        });
    }
    lines
}

/// ATTRITION: each named British unit's test if it ends this British turn
/// where it is: exempt, or its chance to lose a stand.
fn attrition_lines(m: &Module, s: &State, sides: &[Force; 2]) -> Vec<String> {
    let statuses = traced(m, s);
    let mut lines = Vec::new();
    for (id, stands) in sides.iter().flat_map(|f| f.units.iter()) {
        let (Some(u), Some(p), Some(status)) = (m.unit(id), s.pieces.get(id), statuses.get(id)) else { continue };
        if status.is_in() {
            continue;
        }
        let line = match attrition::exemption(u, *stands, p.in_communication) {
            Some(why) => format!("attrition: {} is out of communication and need not test: {why}", u.name),
            None => {
                let t = attrition::test(m, u, p.attrition_passes);
                format!(
                    "attrition: {} is out of communication: morale {}% -{}% = {}%; it loses a stand on a D100 above {}: {}/100 ({})",
                    u.name,
                    t.grade,
                    t.modifier,
                    t.target,
                    t.target,
                    100 - t.target,
                    percent(u128::from(100 - t.target), 100)
                )
            }
        };
        lines.push(line);
    }
    lines
}
