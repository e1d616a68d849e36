//! A battle's result from both commanders agreeing (issue 15: "the result
//! from the table as an orders file ... from both commanders agreeing or
//! from the referee"). A battle step awaits an entry from each side's
//! commander, or the referee's one entry in their place (the shell's
//! `Rules::stand_in`). The two commanders' entries join into the entry the
//! referee would have made:
//!
//! - `table:` and `cavalry_declines:` are what both saw at the table: the
//!   two files give the same, field for field (the order of a list of
//!   names aside: the generals lost and the units caught in a pursuit are
//!   taken in id order, and so are their rolls);
//! - `trivial:`, both choosing it, is their agreement ("When and if both
//!   players agree, the standard combat resolution rules from 1776 can be
//!   used"); each gives his own side's order of markers and retreat ("in
//!   any fashion the controlling player sees fit");
//! - `break_off:` at the same pass, each with his own attempt or none:
//!   "both should write down their decision to do so and then reveal them
//!   simultaneously before either attempt is resolved". A commander's file
//!   is sealed until both are in (the inbox is the referee's; in mutual
//!   dice mode each is committed before any is revealed), and no refusal
//!   of one file quotes the other's attempt.

use std::collections::BTreeMap;

use serde_json::Value as Json;

use crate::base::error::echo;
use crate::systems::awi::rules::battle::{BreakOff, Entry, Table, Trivial, BREAKING, DECLINES, TRANSFER, TRIVIAL};
use crate::systems::awi::rules::movement::Problem;

/// The form of an entry, as its key says; none for an entry of no form or
/// of several (its own check refuses it).
pub fn form(e: &Entry) -> Option<&'static str> {
    match (&e.table, &e.trivial, &e.cavalry_declines, &e.break_off) {
        (Some(_), None, None, None) => Some("table"),
        (None, Some(_), None, None) => Some("trivial"),
        (None, None, Some(_), None) => Some("cavalry_declines"),
        (None, None, None, Some(_)) => Some("break_off"),
        _ => None,
    }
}

fn problem(field: impl Into<String>, message: impl Into<String>, code: &'static str, rule: &'static str) -> Problem {
    Problem { field: field.into(), message: message.into(), code, rule }
}

/// A table result as a value to compare: lists of names sorted, nothing
/// spent or fired left out (a `supply_spent: {british: 0}` says what no
/// entry says).
fn normal(t: &Table) -> Json {
    let mut t = t.clone();
    names_in_id_order(&mut t);
    t.supply_spent.retain(|_, n| *n > 0);
    t.bombardment.retain(|_, shots| !shots.is_empty());
    serde_json::to_value(&t).unwrap_or(Json::Null)
}

/// A table result's lists of names in one order, whoever's file came
/// first: id order (the pursuit's morale checks are rolled in it).
fn names_in_id_order(t: &mut Table) {
    t.generals_lost.sort();
    t.generals_lost.dedup();
    if let Some(p) = &mut t.pursuit {
        p.caught.sort();
        p.caught.dedup();
    }
}

/// The first field where `a` and `b` differ, under `at`, with each one's
/// value there (`None`: absent).
fn first_difference(at: &str, a: &Json, b: &Json) -> Option<(String, Option<Json>, Option<Json>)> {
    match (a, b) {
        (Json::Object(x), Json::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                let field = format!("{at}.{k}");
                match (x.get(k), y.get(k)) {
                    (Some(u), Some(v)) => {
                        if let Some(d) = first_difference(&field, u, v) {
                            return Some(d);
                        }
                    }
                    (u, v) if u.is_some_and(|u| !u.is_null()) || v.is_some_and(|v| !v.is_null()) => {
                        return Some((field, u.cloned(), v.cloned()));
                    }
                    _ => {}
                }
            }
            None
        }
        _ if a == b => None,
        _ => Some((at.to_string(), Some(a.clone()), Some(b.clone()))),
    }
}

fn shown(v: &Option<Json>) -> String {
    match v {
        None | Some(Json::Null) => "nothing".to_string(),
        Some(Json::String(s)) => format!("'{}'", echo(s)),
        Some(v) => echo(&v.to_string()),
    }
}

/// Where `mine` (the file of `me`) disagrees with `theirs` (the file of
/// `other`), the problems located in `mine`; none when they join. Said
/// without quoting what `theirs` decided alone (its attempt, its order of
/// markers).
pub fn disagreements(me: &str, mine: &Entry, other: &str, theirs: &Entry) -> Vec<Problem> {
    let (Some(a), Some(b)) = (form(mine), form(theirs)) else { return Vec::new() };
    let advice = "the result is entered when both commanders' files agree, or by the referee in their place";
    if a != b {
        let pass = theirs.break_off.as_ref().map(|x| format!(" at pass {}", x.pass)).unwrap_or_default();
        return vec![problem(
            a,
            format!(
                "{other}'s file for this battle is a `{b}:` entry{pass}, this one a `{a}:` entry: both commanders send the same form ({advice})"
            ),
            "commanders-disagree",
            match (a, b) {
                ("trivial", _) | (_, "trivial") => TRIVIAL,
                ("break_off", _) | (_, "break_off") => BREAKING,
                _ => TRANSFER,
            },
        )];
    }
    let differ = |rule: &'static str, at: &str, x: Json, y: Json| {
        first_difference(at, &x, &y)
            .map(|(field, u, v)| {
                vec![problem(
                    field.clone(),
                    format!(
                        "{me}'s file says {} at {field}, {other}'s {}: the two commanders enter the same result of the table ({advice})",
                        shown(&u),
                        shown(&v)
                    ),
                    "commanders-disagree",
                    rule,
                )]
            })
            .unwrap_or_default()
    };
    match (mine, theirs) {
        (Entry { table: Some(x), .. }, Entry { table: Some(y), .. }) => differ(TRANSFER, "table", normal(x), normal(y)),
        (Entry { cavalry_declines: Some(x), .. }, Entry { cavalry_declines: Some(y), .. }) => {
            let j = |d| serde_json::to_value(d).unwrap_or(Json::Null);
            differ(DECLINES, "cavalry_declines", j(x), j(y))
        }
        (Entry { break_off: Some(x), .. }, Entry { break_off: Some(y), .. }) if x.pass != y.pass => vec![problem(
            "break_off.pass",
            format!(
                "{}: {other}'s decision is for the pass {}: both write down their decisions at the same pass (\"reveal them simultaneously before either attempt is resolved\"), {}",
                x.pass, y.pass, y.pass
            ),
            "commanders-disagree",
            BREAKING,
        )],
        _ => Vec::new(),
    }
}

/// The two commanders' entries joined into one, the referee's form of
/// it (rules/battle.rs checks it whole); the problems when they disagree.
/// Each file was checked as its commander's (`battle::check` by his side).
pub fn join(files: &BTreeMap<String, Entry>) -> std::result::Result<Entry, Vec<Problem>> {
    let mut problems = Vec::new();
    let list: Vec<(&String, &Entry)> = files.iter().collect();
    for (i, (me, mine)) in list.iter().enumerate() {
        for (other, theirs) in &list[i + 1..] {
            problems.extend(disagreements(me, mine, other, theirs));
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let Some((_, first)) = list.first() else {
        return Err(vec![problem("", "no commander's entry", "commanders-disagree", TRANSFER)]);
    };
    let mut joined = (*first).clone();
    if let Some(t) = &mut joined.table {
        names_in_id_order(t);
    }
    if let Some(t) = &mut joined.trivial {
        *t = Trivial { distribute: BTreeMap::new(), retreat_to: BTreeMap::new() };
        for (side, e) in &list {
            if let Some(x) = &e.trivial {
                t.distribute
                    .extend(x.distribute.iter().filter(|(s, _)| s == side).map(|(s, v)| (s.clone(), v.clone())));
                t.retreat_to
                    .extend(x.retreat_to.iter().filter(|(s, _)| s == side).map(|(s, v)| (s.clone(), v.clone())));
            }
        }
    }
    if let Some(b) = &mut joined.break_off {
        *b = BreakOff { pass: b.pass, attempts: BTreeMap::new() };
        for (side, e) in &list {
            if let Some(x) = &e.break_off {
                b.attempts.extend(x.attempts.iter().filter(|(s, _)| s == side).map(|(s, v)| (s.clone(), *v)));
            }
        }
    }
    Ok(joined)
}
