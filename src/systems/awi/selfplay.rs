//! `adjutant selfplay --module awi-southern`: whole AWI Southern Campaign
//! games played in process with random legal orders, cheap invariants
//! checked after every step (and that every change of a piece is named by
//! one of the step's events, [`unreported`]).
//!
//! Game K of seed S is a game of its own, as GBoAR's are: its id is
//! `selfplay-S-K`, its dice chain's top is [`seam::SelfplayId::chain_top`],
//! and its orders come from a ChaCha20 stream seeded from a text naming S
//! and K ("adjutant awi selfplay orders: ..."). Each step's dice are a real
//! game's (DICE.md: the chain key, the step number and the orders files'
//! bytes), so `--keep` plays the same game through a game folder.
//!
//! Orders: an operations step starts from empty orders (`moves: []`, which
//! must validate), then draws every list of a side's orders
//! (`operations`): replacements given, militia formed, fleets sailing with
//! a troop fleet's passengers, land moves (each of the side's land units
//! and generals on the map one time in two, a random walk of 1 to its
//! allowance distinct land hexes), works built and forts' garrisons. The
//! orders a refusal names (`moves[i]`, `build[i]`, ...) are dropped until
//! the file validates, and if a refusal names none, the orders are added
//! one at a time, each kept if the file still validates. A battle step is
//! answered by the referee's one entry (`Rules::stand_in`) of a form drawn
//! among those the state allows (`battle`): `trivial:`, `table:`,
//! `break_off:` or `cavalry_declines:`; one time in two sent as both
//! commanders' agreeing files instead.
//!
//! Nothing here reads a clock, a float or a `HashMap`.

use std::collections::{BTreeMap, BTreeSet};

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;

use crate::base::dice::{self, Bytes32, StepDice};
use crate::base::error::Located;
use crate::base::hex::HexId;
use crate::base::yaml::{Mapping, Value};
use crate::system::{self as seam, GameState, Header, Rules as _};
use crate::systems::awi::board::{side_order, PieceState, State, Step};
use crate::systems::awi::data::{Class, WATER};
use crate::systems::awi::rules::{battle as battles_rule, fleets, fortifications};
use crate::systems::awi::system::Rules;

mod battle;
mod operations;

use crate::system::{OrderCounts, SelfplayFailure as Failure, SelfplayGame as Played, SelfplayId as GameId};

/// How many battle steps one side's operations may call for, at most, in
/// the bound of a game's steps: one per land unit of the module (a battle
/// needs a unit of the moving side in the hex, and a trivial combat ends
/// it in its one step), a generous allowance.
fn battles_per_operations(rules: &Rules) -> u32 {
    rules.module.units.len() as u32
}

/// The steps one battle may take: its result, and the break-off entries
/// drawn before it ([`battle::MOST_BREAK_OFFS`]).
fn steps_per_battle() -> u32 {
    1 + battle::MOST_BREAK_OFFS
}

/// The most steps a game of the scenario may take: every month, each
/// side's operations, each followed by at most
/// [`battles_per_operations`] battles. A game still going after them has
/// failed to end.
pub fn max_steps(rules: &Rules) -> u32 {
    let first = rules.module.info.scenarios.iter().find(|s| s.id == rules.scenario).map(|s| s.first_turn).unwrap_or(1);
    let months = rules.last_turn.saturating_sub(first) + 1;
    let sides = side_order(&rules.module).len() as u32;
    months * sides * (1 + battles_per_operations(rules) * steps_per_battle())
}

/// Deterministic draws for the orders.
struct Draw(ChaCha20Rng);

impl Draw {
    fn new(id: GameId) -> Draw {
        let text = format!("adjutant awi selfplay orders: seed {}, game {}", id.seed, id.game);
        Draw(ChaCha20Rng::from_seed(Bytes32::sha256(text.as_bytes()).0))
    }

    /// 0 .. n (0 when n is 0).
    fn below(&mut self, n: usize) -> usize {
        ((u64::from(self.0.next_u32()) * n as u64) >> 32) as usize
    }

    fn chance(&mut self, num: usize, den: usize) -> bool {
        self.below(den) < num
    }

    fn shuffle<T>(&mut self, list: &mut [T]) {
        for i in (1..list.len()).rev() {
            let j = self.below(i + 1);
            list.swap(i, j);
        }
    }
}

fn number(n: u32) -> Value {
    Value::Number(n.into())
}

/// The orders file `adjutant template` would write: the header, then the
/// body.
fn orders_file(game: &str, step: &Step, side: &str, body: &Mapping) -> String {
    let mut file = format!("game: {game}\nturn: {}\nstep: {}\nside: {side}\n", step.turn, step.field());
    if !body.is_empty() {
        file += &crate::base::yaml::to_string(&Value::Mapping(body.clone())).unwrap_or_default();
    }
    file
}

/// A file read as the shell reads it: its header checked, then its body
/// validated. The header, or why it was refused, or the body's problems.
enum Read {
    Header(Header),
    Refused(String),
    Problems(Vec<Located>),
}

fn read(rules: &Rules, game: &str, state: &State, side: &str, file: &str) -> Read {
    let label = "selfplay";
    match rules.check_header(game, state, label, file) {
        Ok(h) if h.side != side => Read::Refused(format!("{side}'s orders file reads as {}'s", h.side)),
        Ok(h) => {
            let problems = rules.validate_body(state, &h, label, file);
            if problems.is_empty() {
                Read::Header(h)
            } else {
                Read::Problems(problems)
            }
        }
        Err(list) => {
            let why: Vec<String> = list.iter().map(|l| l.to_string()).collect();
            Read::Refused(format!("{side}'s orders file is refused: {}", why.join("; ")))
        }
    }
}

fn listed(problems: &[Located]) -> String {
    problems.iter().map(|p| format!("{}: {}", p.field, p.message)).collect::<Vec<_>>().join("; ")
}

type Built = std::result::Result<(String, Header, OrderCounts), String>;

/// A side's operations orders: empty, then the drawn orders the file
/// validates with.
fn operations_orders(rules: &Rules, game: &str, state: &State, step: &Step, draw: &mut Draw) -> Built {
    let side = step.side.as_str();
    let file_of = |items: &[operations::Item]| orders_file(game, step, side, &operations::body_of(items));
    let empty = file_of(&[]);
    if let Read::Problems(p) = read(rules, game, state, side, &empty) {
        return Err(format!("the empty orders (moves: []) do not validate: {}\n{empty}", listed(&p)));
    }
    let drawn = operations::draw(rules, state, side, draw);
    let mut counts = OrderCounts { files: 1, drawn: drawn.len() as u64, ..OrderCounts::default() };
    let mut kept = drawn.clone();
    // Drop the orders the refusals name, while they name some.
    loop {
        let file = file_of(&kept);
        match read(rules, game, state, side, &file) {
            Read::Header(h) => {
                counts.kept = kept.len() as u64;
                return Ok((file, h, counts));
            }
            Read::Refused(why) => return Err(why),
            Read::Problems(problems) => {
                let named: BTreeSet<(usize, usize)> =
                    problems.iter().filter_map(|p| operations::named(&p.field)).collect();
                if named.is_empty() {
                    break;
                }
                kept = operations::without(kept, &named);
            }
        }
    }
    // A refusal that names no order: one order at a time.
    counts.one_by_one = 1;
    let mut one_by_one: Vec<operations::Item> = Vec::new();
    for item in drawn {
        one_by_one.push(item);
        if !matches!(read(rules, game, state, side, &file_of(&one_by_one)), Read::Header(_)) {
            one_by_one.pop();
        }
    }
    let file = file_of(&one_by_one);
    match read(rules, game, state, side, &file) {
        Read::Header(h) => {
            counts.kept = one_by_one.len() as u64;
            Ok((file, h, counts))
        }
        Read::Refused(why) => Err(why),
        Read::Problems(p) => {
            Err(format!("the orders built one order at a time do not validate: {}\n{file}", listed(&p)))
        }
    }
}

/// What the turn report must say: every piece whose state changed in a
/// step (its hex, stands, communication, attrition count, elimination),
/// or that came into the game, is named in the fields of one of the
/// step's events (its id a value, an item of a list, or a key), so no
/// change reaches the board unreported.
fn unreported(
    before: &BTreeMap<String, PieceState>,
    after: &BTreeMap<String, PieceState>,
    events: &[seam::Event],
) -> Vec<String> {
    let ids: BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    ids.into_iter()
        .filter(|id| before.get(*id) != after.get(*id) && !events.iter().any(|e| e.names(id)))
        .map(|id| {
            let show = |p: Option<&PieceState>| p.map_or("not in the game".to_string(), |p| format!("{p:?}"));
            format!(
                "{id} changed ({} to {}) and no event of the step names it",
                show(before.get(id)),
                show(after.get(id))
            )
        })
        .collect()
}

/// The cheap invariants of a state after a step: every piece on the map is
/// on one of its hexes (a land unit or general on land, a fleet on a sea
/// lane or in a port); no land unit but militia has more fighting stands
/// than its counter, and a supply unit none; no eliminated piece is on the map;
/// both sides' land pieces share a hex only for a battle to come;
/// each fort's garrison is of its side's units in its hex, none named
/// twice nor in two forts, and holds the article's minimum; one fort a
/// hex; an entrenchment's side has land units in it; the ledgers hold no
/// more than the scenario ever gives (a count that wrapped below zero
/// would), and a levy's rifles are within its stands.
fn broken(rules: &Rules, state: &State) -> Vec<String> {
    let m = &rules.module;
    let mut out = Vec::new();
    for (id, p) in &state.pieces {
        if let Some(h) = &p.hex {
            match h.parse::<HexId>() {
                Ok(hex) if m.map.contains(hex) => {
                    let water = m.map.terrain.get(&hex).is_some_and(|t| t == WATER);
                    if m.fleet(id).is_some() && !fleets::navigable(m, hex) {
                        out.push(format!("the fleet {id} is at {h}, land that is not a port"));
                    } else if m.fleet(id).is_none() && water {
                        out.push(format!("{id} is at {h}, a sea lane"));
                    }
                }
                _ => out.push(format!("{id} is at {h}, not a hex of the map")),
            }
            if p.eliminated {
                out.push(format!("{id} is eliminated but on the map at {h}"));
            }
        }
        if let Some(u) = m.unit(id) {
            // MILITIA UNITS: "The owning player is free to combine his
            // militia stands into units in any fashion he sees fit": a
            // militia counter grows past its printed stands.
            if p.stands > u.fighting_stands && u.class != Class::Militia {
                out.push(format!(
                    "{id} has {} fighting stands, more than its counter's {}",
                    p.stands, u.fighting_stands
                ));
            }
            if u.is_supply() && p.stands > 0 {
                out.push(format!("the supply unit {id} has {} fighting stands", p.stands));
            }
        }
    }
    // Both sides' land pieces share a hex only for a battle still to come
    // (both sides' units that fight there, and the next step a battle):
    // a supply unit or a general the enemy reaches alone is taken at once,
    // and a beaten side leaves the field or is captured.
    let mut sides: BTreeMap<HexId, BTreeSet<&str>> = BTreeMap::new();
    for (id, p) in &state.pieces {
        let side = match (m.unit(id), m.general(id)) {
            (Some(u), _) => u.side.as_str(),
            (None, Some(g)) => g.side.as_str(),
            _ => continue,
        };
        if let Some(hex) = p.hex.as_deref().and_then(|h| h.parse::<HexId>().ok()) {
            sides.entry(hex).or_default().insert(side);
        }
    }
    let battles = battles_rule::hexes(m, state);
    let awaiting_battle = state.next.as_ref().is_some_and(|n| n.battle.is_some());
    // Reinforcements due at a hex the enemy holds, with every hex next to
    // it held too, appear there and fight after their side's operations:
    // the side about to operate has a group due at the hex this month.
    let surrounded_arrival = |hex: &HexId| {
        state.next.as_ref().is_some_and(|n| {
            m.scenario(&rules.scenario).is_ok_and(|sc| {
                sc.reinforcements.iter().any(|a| {
                    a.turn == n.turn
                        && a.hex == hex.to_string()
                        && a.units.iter().any(|id| m.piece(id).is_some_and(|p| p.side() == n.side))
                })
            })
        })
    };
    for (hex, s) in sides.iter().filter(|(_, s)| s.len() > 1) {
        if !battles.contains(hex) {
            out.push(format!(
                "both sides' pieces are at {hex}, but not both sides' units that fight: no battle can be fought there"
            ));
        } else if !awaiting_battle && !surrounded_arrival(hex) {
            out.push(format!(
                "both sides' units that fight are at {hex} ({}), but the next step is no battle",
                s.iter().copied().collect::<Vec<_>>().join(", ")
            ));
        }
    }
    let mut inside: BTreeMap<&str, &str> = BTreeMap::new();
    let mut hexes = BTreeSet::new();
    for f in &state.forts {
        if !hexes.insert(f.hex.as_str()) {
            out.push(format!("two forts at {}", f.hex));
        }
        for id in &f.garrison {
            let here = state.pieces.get(id).and_then(|p| p.hex.as_deref()) == Some(f.hex.as_str());
            if !m.unit(id).is_some_and(|u| u.side == f.side && !u.is_supply()) || !here {
                out.push(format!(
                    "{id} is in the garrison of the {}'s fort at {} but not a unit of it in the hex",
                    f.side, f.hex
                ));
            }
            if let Some(other) = inside.insert(id, f.hex.as_str()) {
                out.push(format!("{id} is counted twice in forts' garrisons ({other} and {})", f.hex));
            }
        }
        if let Some(why) = fortifications::shortfall(m, state, &f.garrison) {
            out.push(format!("the {}'s fort at {} stands below its garrison minimum: {why}", f.side, f.hex));
        }
    }
    for (hex, side) in &state.entrenchments {
        let held = state
            .pieces
            .iter()
            .any(|(id, p)| p.hex.as_deref() == Some(hex.as_str()) && m.unit(id).is_some_and(|u| u.side == *side));
        if !held {
            out.push(format!("the {side}'s entrenchment at {hex} stands with none of its land units there"));
        }
    }
    if let Ok(sc) = m.scenario(&rules.scenario) {
        let per_point = u64::from(m.charts.replacements.stands_per_replacement_point.value);
        let given: u64 = sc.replacements.iter().map(|r| u64::from(r.points) * per_point).sum();
        for (side, towns) in &state.replacements {
            let held: u64 = towns.values().flat_map(|n| n.values()).map(|k| u64::from(*k)).sum();
            if held > given {
                out.push(format!(
                    "the {side}'s ledger holds {held} replacement stands; the scenario gives {given} in all"
                ));
            }
        }
        let per_sp = u64::from(m.charts.communications.stands_per_strength_point.value);
        let raised: u64 = sc.militia.iter().map(|r| u64::from(r.strength_points) * per_sp).sum();
        for (side, towns) in &state.militia {
            for (town, levy) in towns {
                if u64::from(levy.stands) > raised || levy.rifles > levy.stands {
                    out.push(format!(
                        "the {side}'s militia at {town}: {} stands, {} of them rifles (the scenario raises {raised} stands in all)",
                        levy.stands, levy.rifles
                    ));
                }
            }
        }
    }
    out
}

/// Play game `id` from `setup` to its end (or its first failure).
/// `record` keeps every step's orders files (for `--keep`).
pub fn play(rules: &Rules, setup: &State, id: GameId, record: bool) -> Played {
    Played::caught(id, |at| play_inner(rules, setup, id, record, at))
}

fn play_inner(
    rules: &Rules,
    setup: &State,
    id: GameId,
    record: bool,
    at: &std::cell::RefCell<(u32, String)>,
) -> Played {
    let bound = max_steps(rules);
    let mut played = Played { chain_length: bound + 1, ..Played::new(id) };
    let fail = |played: &mut Played, k: u32, step: &Step, what: String| {
        played.failures.push(Failure { game: id.game, journal_step: k, step: step.name(), what });
    };
    let keys = dice::chain(&id.chain_top(), played.chain_length);
    let game = id.name();
    let mut draw = Draw::new(id);
    let mut state = setup.clone();
    let wrong = broken(rules, &state);
    if !wrong.is_empty() {
        played.failures.push(Failure { game: id.game, journal_step: 0, step: "set-up".into(), what: wrong.join("; ") });
        return played;
    }
    let mut k = 1u32;
    while let Some(step) = state.next.clone() {
        *at.borrow_mut() = (k, step.name());
        if k > bound {
            fail(
                &mut played,
                k,
                &step,
                format!("the game has not ended after {bound} steps, the most its months allow"),
            );
            return played;
        }
        let built = match &step.battle {
            Some(hex) => battle::orders(rules, &game, &state, &step, hex, &mut draw),
            None => operations_orders(rules, &game, &state, &step, &mut draw)
                .map(|(file, h, counts)| (vec![(step.side.clone(), file, h)], counts)),
        };
        let (drawn, counts) = match built {
            Ok(b) => b,
            Err(why) => {
                fail(&mut played, k, &step, why);
                return played;
            }
        };
        played.orders.add(&counts);
        let files: Vec<(String, String)> = drawn.iter().map(|(side, file, _)| (side.clone(), file.clone())).collect();
        let orders: BTreeMap<String, Value> = drawn.into_iter().map(|(side, _, header)| (side, header.body)).collect();
        let seed = match id.step_seed(k, &keys[k as usize], &files) {
            Ok(s) => s,
            Err(e) => {
                fail(&mut played, k, &step, format!("the step's seed: {e}"));
                return played;
            }
        };
        let resolve = || {
            let mut dice = StepDice::new(&seed);
            rules.resolve(&state, &orders, &mut dice).map(|(after, events)| (after, events, dice.into_log()))
        };
        let shown = || files.iter().map(|(s, f)| format!("{s}:\n{f}")).collect::<Vec<_>>().join("\n");
        let (after, events, rolls) = match resolve() {
            Ok(r) => r,
            Err(e) => {
                fail(&mut played, k, &step, format!("the engine refuses the step validate accepted: {e}\n{}", shown()));
                return played;
            }
        };
        let Some(done) = after.as_any().downcast_ref::<State>() else {
            fail(&mut played, k, &step, "the step's state is not an AWI state".into());
            return played;
        };
        let mut done = done.clone();
        done.resolved_steps = k;
        let mut wrong = broken(rules, &done);
        wrong.extend(unreported(&state.pieces, &done.pieces, &events));
        // The same step from the same state with the same dice: the same
        // state, events and rolls (DICE.md §6.4).
        match resolve() {
            Ok((again, again_events, again_rolls)) => {
                let again = again.as_any().downcast_ref::<State>().cloned().map(|mut s| {
                    s.resolved_steps = k;
                    s
                });
                if again.as_ref() != Some(&done) {
                    wrong.push("resolved again, the step gives another state".into());
                }
                if again_events != events {
                    wrong.push("resolved again, the step gives other events".into());
                }
                if again_rolls != rolls {
                    wrong.push("resolved again, the step rolls other dice".into());
                }
            }
            Err(e) => wrong.push(format!("resolved again, the engine refuses the step: {e}")),
        }
        // The state reads back from the bytes its hash is of (JSON) and
        // from the YAML a game folder keeps.
        let bytes = serde_json::to_vec(&done).unwrap_or_default();
        if serde_json::from_slice::<State>(&bytes).ok().as_ref() != Some(&done) {
            wrong.push("the state does not read back from its canonical bytes".into());
        }
        let yaml = GameState::to_yaml(&done).unwrap_or_default();
        let back = rules.read_state("state.yaml", &yaml).ok();
        if back.as_ref().and_then(|b| b.as_any().downcast_ref::<State>()) != Some(&done) {
            wrong.push("the state does not read back from its YAML".into());
        }
        for e in &events {
            *played.events.entry(e.kind.clone()).or_default() += 1;
        }
        if !wrong.is_empty() {
            fail(&mut played, k, &step, format!("{}\n{}", wrong.join("; "), shown()));
            played.steps = k;
            return played;
        }
        if record {
            played.record.push(seam::SelfplayStep {
                journal_step: k,
                step: step.name(),
                files,
                state_sha256: Bytes32::sha256(&bytes),
            });
        }
        played.result = done.result.clone();
        state = done;
        played.steps = k;
        k += 1;
    }
    if played.result.is_none() {
        played.failures.push(Failure {
            game: id.game,
            journal_step: k,
            step: String::new(),
            what: "the game has no next step and no result".into(),
        });
    }
    played
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A piece that moved, lost stands or came into the game with no event
    /// naming it is caught; an event naming it, in any field, clears it.
    #[test]
    fn a_piece_changed_with_no_event_naming_it_is_caught() {
        let at = |hex: &str, stands: u32| PieceState { hex: Some(hex.into()), stands, ..PieceState::default() };
        let before = BTreeMap::from([("greene".to_string(), at("0303", 0)), ("foot".to_string(), at("0303", 4))]);
        let changes = [
            ("greene", BTreeMap::from([("greene".to_string(), at("0302", 0)), ("foot".to_string(), at("0303", 4))])),
            ("foot", BTreeMap::from([("greene".to_string(), at("0303", 0)), ("foot".to_string(), at("0303", 3))])),
            ("wagons", {
                let mut m = before.clone();
                m.insert("wagons".into(), at("0101", 0));
                m
            }),
        ];
        for (id, after) in &changes {
            let broken = unreported(&before, after, &[]);
            assert_eq!(broken.len(), 1, "{broken:?}");
            assert!(broken[0].starts_with(&format!("{id} changed (")), "{broken:?}");
            let named = seam::Event::new("x", "retreat", "").with("pieces", [id]);
            assert!(unreported(&before, after, &[named]).is_empty());
            let words = seam::Event::new("x", "retreat", *id).with("side", "british");
            assert_eq!(unreported(&before, after, &[words]).len(), 1, "the words alone do not name it");
        }
        assert!(unreported(&before, &before, &[]).is_empty());
    }
}
