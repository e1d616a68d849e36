//! The referee's entry of a battle (`Rules::stand_in`) drawn at random, of
//! each form the state allows (docs/awi-southern.md, "Battles"):
//! `trivial:` (TRIVIAL COMBATS), `table:` (the result fought on the table:
//! outcomes, casualty markers, generals lost, retreat, PURSUIT PENALTY,
//! supply units spent, a fort's bombardment), `break_off:` (BREAKING OFF
//! FROM A BATTLE) and `cavalry_declines:` (CAVALRY WITHDRAWAL BEFORE
//! COMBAT). Each form is tried with its retreat hexes in random order
//! until `validate` takes it; a form it never takes falls back to a
//! trivial combat where one is allowed.

use std::collections::{BTreeMap, BTreeSet};

use crate::base::hex::{neighbours, HexId};
use crate::base::yaml::{mapping, strings, text, Mapping, Value};
use crate::system::OrderCounts;
use crate::systems::awi::board::{State, Step, REFEREE};
use crate::systems::awi::data::Kind;
use crate::systems::awi::rules::battle::Forces;
use crate::systems::awi::rules::command::{break_off_base, commanding_general, manipulation_points};
use crate::systems::awi::system::Rules;

use super::{listed, number, orders_file, read, Draw, Read};
use crate::system::{Header, Rules as _};

/// A battle step's files as drawn: the referee's one entry, or both
/// commanders' agreeing entries (side, file, header), in side order.
pub type Files = std::result::Result<(Vec<(String, String, Header)>, OrderCounts), String>;

type Built = super::Built;

/// At most this many break-off entries are drawn in one battle, so that a
/// general with a base chance (who may attempt at every pass, spending
/// nothing) does not keep a battle going for ever.
pub const MOST_BREAK_OFFS: u32 = 2;

fn entry(form: &str, value: Value) -> Mapping {
    let mut body = Mapping::new();
    body.insert(text(form), value);
    body
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Form {
    Trivial,
    Table,
    BreakOff,
    Declines,
}

/// The hexes next to the battle's, in random order.
fn retreats(rules: &Rules, at: HexId, draw: &mut Draw) -> Vec<String> {
    let mut hexes: Vec<String> = neighbours(at, rules.module.map.layout).iter().map(HexId::to_string).collect();
    draw.shuffle(&mut hexes);
    hexes
}

/// The entry of the battle at `hex`: the referee's, a form drawn among
/// those the state allows, tried until it validates (failing that, a
/// trivial combat where one is allowed); then, one time in two, the same
/// decision as both commanders' agreeing files instead, each his own.
pub fn orders(rules: &Rules, game: &str, state: &State, step: &Step, hex: &str, draw: &mut Draw) -> Files {
    let (file, header, counts) = referee(rules, game, state, step, hex, draw)?;
    if !draw.chance(1, 2) {
        return Ok((vec![(REFEREE.to_string(), file, header)], counts));
    }
    let mut files: Vec<(String, String, Header)> = Vec::new();
    let mut others: BTreeMap<String, Value> = BTreeMap::new();
    for (side, body) in commanders(&header.body, rules.awaited(state)) {
        let file = orders_file(game, step, &side, &body);
        let h = match read(rules, game, state, &side, &file) {
            Read::Header(h) => h,
            Read::Refused(why) => return Err(why),
            Read::Problems(p) => {
                return Err(format!(
                    "{side}'s part of the referee's entry, as the commander's own file, does not validate: {}\n{file}",
                    listed(&p)
                ))
            }
        };
        let with = rules.validate_with(state, &h, &others, "selfplay", &file);
        if !with.is_empty() {
            return Err(format!(
                "{side}'s file does not agree with the other commander's, made of the same entry: {}\n{file}",
                listed(&with)
            ));
        }
        others.insert(side.clone(), h.body.clone());
        files.push((side, file, h));
    }
    let mut counts = counts;
    if files.len() == 2 && draw.chance(1, 4) {
        disagree(rules, game, state, step, hex, &files, &mut counts, draw)?;
    }
    Ok((files, counts))
}

/// The commanders disagreeing: a second entry drawn afresh, the second
/// commander's part of it checked against the first commander's file as
/// the shell checks a file on arrival (`validate_with`). It must be
/// refused when it is of another form, or (`table:`, `cavalry_declines:`,
/// "what both saw at the table") names another side holding the field,
/// other outcomes or another retreat. It is never sent: the agreeing
/// files are. Counted as a choice drawn and not kept.
#[allow(clippy::too_many_arguments)]
fn disagree(
    rules: &Rules,
    game: &str,
    state: &State,
    step: &Step,
    hex: &str,
    files: &[(String, String, Header)],
    counts: &mut OrderCounts,
    draw: &mut Draw,
) -> Result<(), String> {
    let (_, alt, _) = referee(rules, game, state, step, hex, draw)?;
    let (first, second) = (&files[0], &files[1]);
    let Some((_, body)) = commanders(&alt.body, vec![second.0.clone()]).into_iter().next() else { return Ok(()) };
    let file = orders_file(game, step, &second.0, &body);
    let Read::Header(h) = read(rules, game, state, &second.0, &file) else { return Ok(()) };
    counts.drawn += 1;
    let others: BTreeMap<String, Value> = [(first.0.clone(), first.2.body.clone())].into();
    let refused = !rules.validate_with(state, &h, &others, "selfplay", &file).is_empty();
    let form = |v: &Value| match v {
        Value::Mapping(m) => ["table", "cavalry_declines", "trivial", "break_off"]
            .into_iter()
            .find(|k| m.contains_key(text(k)))
            .map(|k| (k, m.get(text(k)).cloned())),
        _ => None,
    };
    let field = |v: &Option<Value>, k: &str| match v {
        Some(Value::Mapping(m)) => m.get(text(k)).cloned(),
        _ => None,
    };
    let must = match (form(&first.2.body), form(&h.body)) {
        (Some((a, x)), Some((b, y))) if a == b && (a == "table" || a == "cavalry_declines") => {
            ["holds_field", "outcome", "retreat_to"].iter().any(|k| field(&x, k) != field(&y, k))
        }
        (Some((a, _)), Some((b, _))) => a != b,
        _ => false,
    };
    if must && !refused {
        return Err(format!(
            "{}'s file differs from {}'s in the battle's result (or form) and was not refused: the commanders' files were joined\n{}\n{file}",
            second.0, first.0, first.1
        ));
    }
    if !refused {
        counts.kept += 1;
    }
    Ok(())
}

/// Each commander's file of the referee's entry: `table:` and
/// `cavalry_declines:` the same in both; `trivial:` and `break_off:` each
/// side's own part (his attempt, or none).
fn commanders(entry: &Value, mut sides: Vec<String>) -> Vec<(String, Mapping)> {
    let Value::Mapping(whole) = entry else { return Vec::new() };
    // The body less the header's fields (orders_file writes its own).
    let mut body = whole.clone();
    for k in ["game", "turn", "step", "side"] {
        body.remove(text(k));
    }
    let field = |v: &Value, k: &str| match v {
        Value::Mapping(m) => m.get(text(k)).cloned(),
        _ => None,
    };
    let own = |v: Option<Value>, side: &str| {
        let mut part = Mapping::new();
        if let Some(x) = v.as_ref().and_then(|v| field(v, side)) {
            part.insert(text(side), x);
        }
        Value::Mapping(part)
    };
    sides.sort();
    let mut out = Vec::new();
    for side in sides {
        let mut mine = Mapping::new();
        if let Some(v) = body.get(text("trivial")) {
            let part = mapping(vec![
                ("distribute", own(field(v, "distribute"), &side)),
                ("retreat_to", own(field(v, "retreat_to"), &side)),
            ]);
            mine.insert(text("trivial"), part);
        } else if let Some(v) = body.get(text("break_off")) {
            let pass = field(v, "pass").unwrap_or(Value::Null);
            mine.insert(
                text("break_off"),
                mapping(vec![("pass", pass), ("attempts", own(field(v, "attempts"), &side))]),
            );
        } else {
            mine = body.clone();
        }
        out.push((side, mine));
    }
    out
}

/// The referee's entry for the battle at `hex`: a form drawn among those
/// the state allows, tried until it validates; failing that, a trivial
/// combat where one is allowed.
fn referee(rules: &Rules, game: &str, state: &State, step: &Step, hex: &str, draw: &mut Draw) -> Built {
    let m = &rules.module;
    let at: HexId = hex.parse().map_err(|_| format!("the battle's hex '{hex}' is not a hex"))?;
    let f = Forces::of(m, state, at, &step.side);
    let succeeded = state.break_off.iter().any(|a| a.succeeded);
    let on_table = !state.break_off.is_empty() || step.after_pass.is_some();
    let attempts = break_off_options(rules, state, &f);
    let may_break_off = !succeeded && !attempts.is_empty() && (state.break_off.len() as u32) < MOST_BREAK_OFFS;
    let cavalry = |id: &String| m.unit(id).is_some_and(|u| u.kind == Kind::Cavalry);
    let defenders = &f.units[&f.defender];
    let may_decline = !on_table
        && !defenders.is_empty()
        && defenders.iter().all(cavalry)
        && !f.units[&f.attacker].iter().any(cavalry);
    let mut forms: Vec<(Form, usize)> = Vec::new();
    if !on_table {
        forms.push((Form::Trivial, 3));
    }
    forms.push((Form::Table, 3));
    if may_break_off {
        forms.push((Form::BreakOff, 1));
    }
    if may_decline {
        forms.push((Form::Declines, 3));
    }
    let total: usize = forms.iter().map(|(_, w)| w).sum();
    let mut pick = draw.below(total);
    let mut form = Form::Table;
    for (f, w) in &forms {
        if pick < *w {
            form = *f;
            break;
        }
        pick -= w;
    }
    let bodies: Vec<Mapping> = match form {
        Form::Trivial => return trivial(rules, game, state, step, &f, draw),
        Form::Table => table(rules, state, &f, draw),
        Form::BreakOff => vec![break_off(state, step, &attempts, draw)],
        Form::Declines => retreats(rules, at, draw)
            .into_iter()
            .map(|h| entry("cavalry_declines", mapping(vec![("retreat_to", text(&h))])))
            .collect(),
    };
    let mut last = Vec::new();
    for body in &bodies {
        let file = orders_file(game, step, REFEREE, body);
        match read(rules, game, state, REFEREE, &file) {
            Read::Header(h) => return Ok((file, h, OrderCounts { files: 1, ..OrderCounts::default() })),
            Read::Refused(why) => return Err(why),
            Read::Problems(p) => last = p,
        }
    }
    if on_table {
        let file = bodies.last().map(|b| orders_file(game, step, REFEREE, b)).unwrap_or_default();
        return Err(format!("the referee's {form:?} entry cannot be made to validate: {}\n{file}", listed(&last)));
    }
    trivial(rules, game, state, step, &f, draw)
}

/// Each side's commanding general and the most army manipulation points
/// he may still spend, of the sides that may attempt to break off (a
/// non-zero chance within the points he has).
fn break_off_options(rules: &Rules, state: &State, f: &Forces) -> BTreeMap<String, (u32, u32)> {
    let m = &rules.module;
    let per = m.charts.command.break_off_points_per_percent.value.max(1);
    let mut out = BTreeMap::new();
    for side in [&f.attacker, &f.defender] {
        let Some(g) = commanding_general(m, state, f.hex, side) else { continue };
        let before: u32 = state.break_off.iter().filter(|a| a.general == g.id).map(|a| a.points).sum();
        let left = manipulation_points(m, g).saturating_sub(before);
        let base = break_off_base(m, g);
        if base > 0 {
            out.insert(side.clone(), (0, left));
        } else if left >= per {
            out.insert(side.clone(), (per, left));
        }
    }
    out
}

/// Attempts after the next pass (or the one after): each side that may
/// attempt, one time in two (at least one side), spending points from
/// its least for a chance to all it has left.
fn break_off(state: &State, step: &Step, options: &BTreeMap<String, (u32, u32)>, draw: &mut Draw) -> Mapping {
    let entered = state.break_off.iter().map(|a| a.pass).chain(step.after_pass).max().unwrap_or(0);
    let pass = entered + 1 + draw.below(2) as u32;
    let mut attempts = Mapping::new();
    for (side, (least, most)) in options {
        if draw.chance(1, 2) {
            let points = least + draw.below((most - least + 1) as usize) as u32;
            attempts.insert(text(side), number(points));
        }
    }
    if attempts.is_empty() {
        if let Some((side, (least, _))) = options.iter().next() {
            attempts.insert(text(side), number(*least));
        }
    }
    entry("break_off", mapping(vec![("pass", number(pass)), ("attempts", Value::Mapping(attempts))]))
}

/// A result of the table: who left it (broke, or broke off after an
/// attempt that succeeded) and who stayed, each unit's casualty markers
/// and whether its formation broke, generals lost, supply units spent,
/// the fort's sections shot at, a pursuit; then the entry with no retreat
/// and with each hex next to the battle as the loser's retreat.
fn table(rules: &Rules, state: &State, f: &Forces, draw: &mut Draw) -> Vec<Mapping> {
    let m = &rules.module;
    let sides = [f.attacker.clone(), f.defender.clone()];
    let stayed = |draw: &mut Draw| match draw.below(4) {
        0 | 1 => "held",
        2 => "held-at-army-morale",
        _ => "broke",
    };
    let mut outcome: BTreeMap<String, &str> = BTreeMap::new();
    let holds_field;
    let succeeded: BTreeSet<&String> = state.break_off.iter().filter(|a| a.succeeded).map(|a| &a.side).collect();
    if sides.iter().all(|s| succeeded.contains(s)) {
        // Both attempts of one pass succeeded ("when one or both sides
        // sccessfully break off"): both withdrew in good order, and the
        // referee names the side that keeps the field (AWI, seed 83,
        // game 42).
        for side in &sides {
            outcome.insert(side.clone(), "broke-off");
        }
        holds_field = sides[draw.below(2)].clone();
    } else if let Some(a) = state.break_off.iter().find(|a| a.succeeded) {
        let other = sides.iter().find(|s| **s != a.side).cloned().unwrap_or_default();
        outcome.insert(a.side.clone(), "broke-off");
        let o = stayed(draw);
        outcome.insert(other.clone(), o);
        holds_field = if o == "broke" { sides[draw.below(2)].clone() } else { other };
    } else {
        let loser = sides[draw.below(2)].clone();
        let winner = sides.iter().find(|s| **s != loser).cloned().unwrap_or_default();
        outcome.insert(loser, "broke");
        let o = stayed(draw);
        outcome.insert(winner.clone(), o);
        holds_field = if o == "broke" { sides[draw.below(2)].clone() } else { winner };
    }
    let loser = sides.iter().find(|s| **s != holds_field).cloned().unwrap_or_default();
    let stands = |id: &str| state.pieces.get(id).map(|p| p.stands).unwrap_or(0);
    let mut units = Mapping::new();
    let mut markers: BTreeMap<String, u32> = BTreeMap::new();
    for side in &sides {
        let broke = outcome.get(side) == Some(&"broke");
        for id in &f.units[side] {
            let n = stands(id);
            let k = if draw.chance(1, 3) { 0 } else { draw.below(n as usize + 1) as u32 };
            markers.insert(id.clone(), k);
            let mut r = vec![("markers", number(k))];
            if broke || draw.chance(1, 4) {
                r.push(("broke", Value::Bool(true)));
            }
            units.insert(text(id), mapping(r));
        }
    }
    let mut outcomes = Mapping::new();
    for (side, o) in &outcome {
        outcomes.insert(text(side), text(o));
    }
    let mut pairs = vec![
        ("holds_field", text(&holds_field)),
        ("outcome", Value::Mapping(outcomes)),
        ("units", Value::Mapping(units)),
    ];
    let lost: Vec<String> = f.generals.values().flatten().filter(|_| draw.chance(1, 8)).cloned().collect();
    if !lost.is_empty() {
        pairs.push(("generals_lost", strings(&lost)));
    }
    // Supply units spent: by a force with guns outside a fort.
    let mut spent: BTreeMap<String, u32> = BTreeMap::new();
    for side in &sides {
        let inside = |id: &str| {
            state
                .forts
                .iter()
                .any(|x| x.side == *side && x.hex == f.hex.to_string() && x.garrison.iter().any(|g| g == id))
        };
        let guns = f.units[side].iter().any(|id| m.unit(id).is_some_and(|u| u.kind == Kind::Artillery) && !inside(id));
        let have = f.supply[side].len();
        if guns && have > 0 && draw.chance(1, 2) {
            spent.insert(side.clone(), draw.below(have + 1) as u32);
        }
    }
    if !spent.is_empty() {
        let mut v = Mapping::new();
        for (side, n) in &spent {
            v.insert(text(side), number(*n));
        }
        pairs.push(("supply_spent", Value::Mapping(v)));
    }
    // The fort's bombardment: each breaching gun's shots within its
    // ammunition, at sections not destroyed before.
    if let Some(siege) = state.siege.as_ref().filter(|x| x.hex == f.hex.to_string()) {
        let alive: Vec<u32> =
            (1..=siege.sections.len() as u32).filter(|i| siege.sections[*i as usize - 1] > 0).collect();
        let mut shots = Mapping::new();
        for (gun, rolls) in &siege.damage_rolls {
            let used = m.unit(gun).and_then(|u| spent.get(&u.side)).copied().unwrap_or(0) as usize;
            let allowed = match siege.rounds.get(gun) {
                Some(r) if !r.is_empty() => r[..r.len().min(used + 1)].iter().sum::<u32>() as usize,
                _ => rolls.len(),
            }
            .min(rolls.len());
            if alive.is_empty() || !draw.chance(2, 3) {
                continue;
            }
            let n = draw.below(allowed + 1);
            let at: Vec<Value> = (0..n).map(|_| number(alive[draw.below(alive.len())])).collect();
            shots.insert(text(gun), Value::Sequence(at));
        }
        if !shots.is_empty() {
            pairs.push(("bombardment", Value::Mapping(shots)));
        }
    }
    // A pursuit, by an army that held the field short of its army morale,
    // of one that left the table.
    let left = |o: Option<&&str>| matches!(o.copied(), Some("broke" | "broke-off"));
    if outcome.get(&holds_field) == Some(&"held") && left(outcome.get(&loser)) && draw.chance(1, 2) {
        let die = m.charts.battle.pursuit.actions_die;
        let actions = 1 + draw.below(die.max(1) as usize) as u32;
        let caught: Vec<String> = f.units[&loser]
            .iter()
            .filter(|id| markers.get(*id).copied().unwrap_or(0) < stands(id))
            .filter(|_| draw.chance(1, 2))
            .cloned()
            .collect();
        pairs.push(("pursuit", mapping(vec![("actions", number(actions)), ("caught", strings(&caught))])));
    }
    let mut out = vec![entry("table", mapping(pairs.clone()))];
    for h in retreats(rules, f.hex, draw) {
        let mut with = pairs.clone();
        with.push(("retreat_to", text(&h)));
        out.push(entry("table", mapping(with)));
    }
    out
}

/// The trivial-combat entry: each side's units in a random order, and a
/// retreat hex for each side, tried among the hexes next to the battle's
/// in random order until the entry validates, and last none (a side with
/// no hex to retreat to names none: its survivors are captured should it
/// lose).
fn trivial(rules: &Rules, game: &str, state: &State, step: &Step, f: &Forces, draw: &mut Draw) -> Built {
    let mut distribute = Mapping::new();
    let mut options: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for side in [&f.attacker, &f.defender] {
        let mut units = f.units.get(side).cloned().unwrap_or_default();
        draw.shuffle(&mut units);
        distribute.insert(text(side), strings(&units));
        options.insert(side.clone(), retreats(rules, f.hex, draw));
    }
    let mut tried: BTreeMap<String, usize> = options.keys().map(|s| (s.clone(), 0)).collect();
    let file_of = |tried: &BTreeMap<String, usize>| {
        let mut retreat = Mapping::new();
        for (side, i) in tried {
            if let Some(h) = options[side].get(*i) {
                retreat.insert(text(side), text(h));
            }
        }
        let trivial =
            mapping(vec![("distribute", Value::Mapping(distribute.clone())), ("retreat_to", Value::Mapping(retreat))]);
        orders_file(game, step, REFEREE, &entry("trivial", trivial))
    };
    loop {
        let file = file_of(&tried);
        match read(rules, game, state, REFEREE, &file) {
            Read::Header(h) => {
                let counts = OrderCounts { files: 1, ..OrderCounts::default() };
                return Ok((file, h, counts));
            }
            Read::Refused(why) => return Err(why),
            Read::Problems(problems) => {
                let mut moved = false;
                for (side, i) in tried.iter_mut() {
                    let field = format!("trivial.retreat_to.{side}");
                    if problems.iter().any(|p| p.field == field) && *i < options[side].len() {
                        *i += 1;
                        moved = true;
                    }
                }
                if !moved {
                    return Err(format!(
                        "the referee's trivial entry cannot be made to validate: {}\n{file}",
                        listed(&problems)
                    ));
                }
            }
        }
    }
}
