//! `adjutant selfplay`: whole games played in process with random legal
//! orders, checking [`crate::systems::gboar::invariants`] after every step.
//!
//! Game K of seed S is a game of its own: its id is `selfplay-S-K`, its
//! dice chain's top is the SHA-256 of a public text naming S and K (as the
//! demo's is, [`chain_top`]), and its orders come from a ChaCha20 stream
//! seeded from S and K. Each step's dice are the verifiable stream of a
//! real game (DICE.md: the chain key, the step number and the orders
//! files' bytes), so a failing game replays from `--seed S --game K`, and
//! the shell's `game::selfplay::write_folder` plays the same game through
//! a real game folder (new, submit, resolve, verify) with the same state
//! hashes.
//!
//! Each awaited side's orders start from `adjutant template`'s least
//! orders ([`crate::systems::gboar::guide::least::minimal`], which must always validate), add a random
//! subset of the choices its guide offers ([`template::guide`]: moves within
//! each unit's reach, stack moves, reinforcements entered or delayed, the
//! assault declared; attacks with tactics chits, leads, advances, places in
//! the order of resolution and momentum, a diversion; defences per hex with chits and cavalry
//! withdrawal; gun and mortar fire; initiative spending), and keep what
//! `validate_body` accepts: the choices a refusal names are dropped, and if
//! a refusal names none, the choices are added one by one, each kept if the
//! orders still validate. Nothing here reads a clock or a `HashMap`.

use std::collections::{BTreeMap, BTreeSet};

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;

use crate::base::dice::{self, Bytes32, StepDice};
use crate::base::error::{Error, Result};
use crate::base::yaml::{mapping, strings, text, Mapping, Value};
use crate::systems::gboar::board::state::State;
use crate::systems::gboar::board::Rules;
use crate::systems::gboar::data::sequence::Step;
use crate::systems::gboar::guide::template::{self, Guide};
use crate::systems::gboar::invariants::Invariants;
use crate::systems::gboar::phases;

pub use crate::system::{
    OrderCounts, SelfplayFailure as Failure, SelfplayGame as Played, SelfplayId as GameId, SelfplayStep as StepRecord,
    SelfplaySummary as Summary,
};

/// The public text whose SHA-256 is game K's chain top ([`GameId::chain_top`]).
pub fn chain_top(id: GameId) -> Bytes32 {
    id.chain_top()
}

/// The most steps a game of the scenario can have: every step of every
/// turn, under the player order with the most (the dice chain is one
/// longer, and a game still going after them has failed to end).
pub fn max_steps(rules: &Rules) -> Result<u32> {
    let turns = &rules.sequence.scenario.turns;
    let mut total = 0usize;
    for turn in turns.first..=turns.last {
        let mut most = 0;
        for order in rules.sequence.possible_orders(turn)? {
            most = most.max(rules.sequence.steps_of_turn(turn, &order)?.len());
        }
        total += most;
    }
    u32::try_from(total).map_err(|_| Error::usage("the scenario has too many steps to play"))
}

/// Deterministic draws for the orders.
struct Draw(ChaCha20Rng);

impl Draw {
    fn new(id: GameId) -> Draw {
        let seed = Bytes32::sha256(format!("adjutant selfplay orders: seed {}, game {}", id.seed, id.game).as_bytes());
        Draw(ChaCha20Rng::from_seed(seed.0))
    }

    /// 0 .. n (0 when n is 0).
    fn below(&mut self, n: usize) -> usize {
        ((u64::from(self.0.next_u32()) * n as u64) >> 32) as usize
    }

    fn chance(&mut self, num: usize, den: usize) -> bool {
        self.below(den) < num
    }

    fn pick<'a, T>(&mut self, list: &'a [T]) -> Option<&'a T> {
        if list.is_empty() {
            return None;
        }
        let i = self.below(list.len());
        list.get(i)
    }

    /// Each element with one chance in two.
    fn subset<T: Clone>(&mut self, list: &[T]) -> Vec<T> {
        list.iter().filter(|_| self.chance(1, 2)).cloned().collect()
    }
}

fn string_list(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_sequence)
        .map(|l| l.iter().filter_map(|x| x.as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

/// Where a choice goes in the orders body.
#[derive(Debug, Clone)]
enum Place {
    /// An item of the top-level list `key`.
    Item(&'static str),
    /// `key.sub` of a top-level mapping.
    Entry(&'static str, String),
    /// The top-level `key`.
    Field(&'static str),
    /// A field of the least orders' attack `i`.
    AttackField(usize, &'static str),
    /// `defence.hexes.HEX`.
    DefenceHex(String),
    /// `defence.tactics`.
    DefenceTactics,
}

#[derive(Debug, Clone)]
struct Choice {
    place: Place,
    value: Value,
}

/// The least orders with `choices` added, and the field each choice is at.
fn build(least: &Value, choices: &[Choice]) -> (Value, Vec<String>) {
    let mut body = least.as_mapping().cloned().unwrap_or_default();
    let mut fields = Vec::new();
    for c in choices {
        let field = match &c.place {
            Place::Item(key) => {
                let list = body.entry(text(key)).or_insert_with(|| Value::Sequence(Vec::new()));
                if !list.is_sequence() {
                    *list = Value::Sequence(Vec::new());
                }
                let seq = list.as_sequence_mut().expect("a list");
                seq.push(c.value.clone());
                format!("{key}[{}]", seq.len() - 1)
            }
            Place::Entry(key, sub) => {
                let m = body.entry(text(key)).or_insert_with(|| Value::Mapping(Mapping::new()));
                if let Some(m) = m.as_mapping_mut() {
                    m.insert(text(sub), c.value.clone());
                }
                format!("{key}.{sub}")
            }
            Place::Field(key) => {
                body.insert(text(key), c.value.clone());
                key.to_string()
            }
            Place::AttackField(i, key) => {
                if let Some(a) = body.get_mut("attacks").and_then(|l| l.get_mut(*i)).and_then(Value::as_mapping_mut) {
                    a.insert(text(key), c.value.clone());
                }
                format!("attacks[{i}].{key}")
            }
            Place::DefenceHex(hex) => {
                let d = body.entry(text("defence")).or_insert_with(|| Value::Mapping(Mapping::new()));
                if let Some(d) = d.as_mapping_mut() {
                    let hexes = d.entry(text("hexes")).or_insert_with(|| Value::Mapping(Mapping::new()));
                    if let Some(h) = hexes.as_mapping_mut() {
                        h.insert(text(hex), c.value.clone());
                    }
                }
                format!("defence.hexes.{hex}")
            }
            Place::DefenceTactics => {
                let d = body.entry(text("defence")).or_insert_with(|| Value::Mapping(Mapping::new()));
                if let Some(d) = d.as_mapping_mut() {
                    d.insert(text("tactics"), c.value.clone());
                }
                "defence.tactics".to_string()
            }
        };
        fields.push(field);
    }
    (Value::Mapping(body), fields)
}

/// Whether a problem's field is at or under a choice's field.
fn under(problem: &str, field: &str) -> bool {
    problem.strip_prefix(field).is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
}

/// A momentum policy of 12.23 step 6: re-roll on some of the chart's results.
fn momentum_policy(guide: &Guide, draw: &mut Draw) -> Option<Value> {
    let c = guide.choices.iter().find(|c| c.key == "momentum")?;
    let results: Vec<String> = c
        .details
        .get("results")
        .and_then(|r| r.as_array())
        .map(|l| l.iter().filter_map(|x| x.as_str().map(str::to_string)).collect())
        .unwrap_or_default();
    let held = c.details.get("chits").and_then(|n| n.as_u64()).unwrap_or(0) as usize;
    let mut reroll = draw.subset(&results);
    if reroll.is_empty() {
        reroll = draw.pick(&results).cloned().into_iter().collect();
    }
    let at_most = 1 + draw.below(held.max(1));
    Some(mapping(vec![("reroll_if", strings(&reroll)), ("at_most", Value::Number((at_most as u64).into()))]))
}

fn tactics_open(details: &BTreeMap<String, serde_json::Value>) -> Vec<String> {
    details
        .get("tactics_open")
        .and_then(|v| v.as_array())
        .map(|l| l.iter().filter_map(|x| x.as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

/// The random movement choices, after the least orders: each unit the
/// least orders do not move, one time in two, to a hex of its reach (drawn
/// as the guide would list it, [`template::draw_movement`]); now and then
/// the units of a hex as one stack, to where the first of them goes; the
/// guide's other choices (arrivals entered elsewhere or delayed, the
/// assault declared).
fn draw_movement(
    rules: &Rules,
    state: &State,
    checks: &phases::Checks<'_>,
    side: &str,
    least: &Value,
    draw: &mut Draw,
) -> Vec<Choice> {
    let Some(ready) = checks.movement() else { return Vec::new() };
    let forced: BTreeSet<String> = least
        .get("moves")
        .and_then(Value::as_sequence)
        .map(|l| l.iter().filter_map(|m| m.get("unit").and_then(Value::as_str).map(str::to_string)).collect())
        .unwrap_or_default();
    let mine: Vec<String> = state
        .units
        .keys()
        .filter(|id| crate::systems::gboar::board::units::side_of(rules, id) == side && !forced.contains(*id))
        .cloned()
        .collect();
    let chosen: Vec<String> = mine.into_iter().filter(|_| draw.chance(1, 2)).collect();
    // Units of one hex, one time in four, as a stack.
    let mut by_hex: BTreeMap<crate::base::hex::HexId, Vec<String>> = BTreeMap::new();
    for id in &chosen {
        if let Some(h) = state.units.get(id).and_then(|u| u.hex) {
            by_hex.entry(h).or_default().push(id.clone());
        }
    }
    let stacks: Vec<Vec<String>> = by_hex.into_values().filter(|l| l.len() > 1 && draw.chance(1, 4)).collect();
    let (moves, others) = template::draw_movement(rules, state, ready, side, least, &chosen, &mut |n| draw.below(n));
    // A stack holds only units that have a move drawn, each of which may
    // move: a unit the rules hold in place (the Historical Scenario's fixed
    // artillery and mortars) has none, and a stack with it was refused.
    // (The draws above are made as before, so a game changes only where a
    // stack held such a unit.)
    let movers: BTreeSet<&String> = moves.iter().map(|m| &m.unit).collect();
    let stacks: Vec<Vec<String>> = stacks
        .into_iter()
        .map(|s| s.into_iter().filter(|u| movers.contains(u)).collect::<Vec<String>>())
        .filter(|s| s.len() > 1)
        .collect();
    let mut out = Vec::new();
    let mut stacked: BTreeSet<&String> = BTreeSet::new();
    for m in &moves {
        if stacked.contains(&m.unit) {
            continue;
        }
        let mut fields = match stacks.iter().find(|s| s.contains(&m.unit)) {
            Some(stack) => {
                stacked.extend(stack.iter());
                vec![("stack", strings(stack))]
            }
            None => vec![("unit", text(&m.unit))],
        };
        // Mostly every hex entered (the search's path, as the guide's reach
        // was checked), sometimes only where to (the engine finds a path).
        if draw.chance(3, 4) {
            let path: Vec<String> = m.path.iter().map(|h| h.to_string()).collect();
            fields.push(("path", strings(&path)));
        } else {
            fields.push(("to", text(&m.to.to_string())));
        }
        if m.strategic {
            fields.push(("strategic", Value::Bool(true)));
        }
        let pinned = |id: &String| state.units.get(id).is_some_and(|u| u.pinned);
        if m.leave_pin || stacks.iter().any(|s| s.contains(&m.unit) && s.iter().any(pinned)) {
            fields.push(("leave_pin", Value::Bool(true)));
        }
        out.push(Choice { place: Place::Item("moves"), value: mapping(fields) });
    }
    let parse = |yaml: &Option<String>| yaml.as_deref().and_then(|y| crate::base::yaml::from_str::<Value>(y).ok());
    for c in &others {
        let Some(v) = parse(&c.yaml) else { continue };
        match c.key.as_str() {
            "enter" if draw.chance(1, 3) => {
                if let Some((unit, hex)) = v.as_mapping().and_then(|m| m.iter().next()) {
                    let unit = unit.as_str().unwrap_or_default().to_string();
                    out.push(Choice { place: Place::Entry("enter", unit), value: hex.clone() });
                }
            }
            "delay" if draw.chance(1, 4) => {
                for unit in string_list(Some(&v)) {
                    out.push(Choice { place: Place::Item("delay"), value: text(&unit) });
                }
            }
            "declare_assault" if draw.chance(1, 8) => {
                out.push(Choice { place: Place::Field("declare_assault"), value: Value::Bool(true) })
            }
            _ => {}
        }
    }
    out
}

/// Savannah 4.3: the cards the side's player may play now (what the
/// template offers as `play:` choices, [`cards::playable`]), each one time
/// in four. Nothing is drawn when there is none to play (the Historical
/// Scenario has no cards, and its games stay as they were).
fn draw_plays(rules: &Rules, state: &State, side: &str, draw: &mut Draw) -> Vec<Choice> {
    use crate::systems::gboar::effects::cards;
    if !cards::in_scenario(rules) {
        return Vec::new();
    }
    let player = rules.player_of_side(side);
    let mut out = Vec::new();
    for id in cards::playable(rules, state, &player) {
        if !draw.chance(1, 4) {
            continue;
        }
        if let Ok(v) = crate::base::yaml::from_str::<Value>(&cards::play_item(rules, state, &player, &id)) {
            out.push(Choice { place: Place::Item(cards::PLAY), value: v });
        }
    }
    out
}

/// The random choices drawn from a guide, after the least orders.
fn draw_choices(rules: &Rules, guide: &Guide, least: &Value, draw: &mut Draw) -> Vec<Choice> {
    let mut out = Vec::new();
    let parse = |yaml: &Option<String>| yaml.as_deref().and_then(|y| crate::base::yaml::from_str::<Value>(y).ok());
    match guide.kind.as_str() {
        "movement" => {}
        "attack" => {
            let least_attacks: Vec<Value> =
                least.get("attacks").and_then(Value::as_sequence).cloned().unwrap_or_default();
            let mut attacking: BTreeSet<String> =
                least_attacks.iter().flat_map(|a| string_list(a.get("attackers"))).collect();
            let mut attacked: BTreeSet<String> =
                least_attacks.iter().flat_map(|a| string_list(a.get("defenders"))).collect();
            let mut hexes: Vec<String> = Vec::new();
            for c in guide.choices.iter().filter(|c| c.key == "attacks") {
                let Some(v) = parse(&c.yaml) else { continue };
                let attackers = string_list(v.get("attackers"));
                let defenders = string_list(v.get("defenders"));
                let open = tactics_open(&c.details);
                hexes.extend(defenders.iter().cloned());
                let extras = |draw: &mut Draw, attackers: &[String], m: &mut Vec<(&'static str, Value)>| {
                    if let Some(chit) = draw.chance(1, 2).then(|| draw.pick(&open).cloned()).flatten() {
                        m.push(("tactics", text(&chit)));
                    }
                    if let Some(lead) = draw.chance(1, 4).then(|| draw.pick(attackers).cloned()).flatten() {
                        m.push(("lead", text(&lead)));
                    }
                    if draw.chance(1, 4) {
                        m.push(("advance", strings(&draw.subset(attackers))));
                    }
                    // 12.23: a place in the order of the player's attacks,
                    // across his sides' files (two alike are refused, and
                    // the later dropped).
                    if draw.chance(1, 4) {
                        m.push(("sequence", Value::Number(((1 + draw.below(6)) as u64).into())));
                    }
                };
                if let Some(i) = least_attacks
                    .iter()
                    .position(|a| string_list(a.get("defenders")).iter().any(|d| defenders.contains(d)))
                {
                    let theirs = string_list(least_attacks[i].get("attackers"));
                    let mut fields = Vec::new();
                    extras(draw, &theirs, &mut fields);
                    for (key, value) in fields {
                        out.push(Choice { place: Place::AttackField(i, key), value });
                    }
                    continue;
                }
                if defenders.iter().any(|d| attacked.contains(d)) || !draw.chance(1, 2) {
                    continue;
                }
                let free: Vec<String> = attackers.iter().filter(|a| !attacking.contains(*a)).cloned().collect();
                let mut chosen = draw.subset(&free);
                if chosen.is_empty() {
                    chosen = draw.pick(&free).cloned().into_iter().collect();
                }
                if chosen.is_empty() {
                    continue;
                }
                let mut m = vec![("attackers", strings(&chosen)), ("defenders", strings(&defenders))];
                extras(draw, &chosen, &mut m);
                if draw.chance(1, 4) {
                    if let Some(p) = momentum_policy(guide, draw) {
                        m.push(("momentum", p));
                    }
                }
                attacking.extend(chosen);
                attacked.extend(defenders);
                out.push(Choice { place: Place::Item("attacks"), value: mapping(m) });
            }
            let spare: Vec<String> = hexes.into_iter().filter(|h| !attacked.contains(h)).collect();
            if let Some(h) = draw.chance(1, 4).then(|| draw.pick(&spare).cloned()).flatten() {
                out.push(Choice { place: Place::Field("diversion"), value: text(&h) });
            }
            if draw.chance(1, 3) {
                if let Some(p) = momentum_policy(guide, draw) {
                    out.push(Choice { place: Place::Field("momentum"), value: p });
                }
            }
        }
        "defence" => {
            for c in guide.choices.iter().filter(|c| c.key == "defence") {
                let Some(v) = parse(&c.yaml) else { continue };
                if let Some(hexes) = v.get("hexes").and_then(Value::as_mapping) {
                    let Some(hex) = hexes.keys().next().and_then(Value::as_str) else { continue };
                    if !draw.chance(1, 2) {
                        continue;
                    }
                    let mut m = Vec::new();
                    if let Some(chit) = draw.pick(&tactics_open(&c.details)) {
                        m.push(("tactics", text(chit)));
                    }
                    let withdraw = c.details.get("cavalry_withdrawal").and_then(|w| w.as_bool()) == Some(true);
                    if withdraw && draw.chance(1, 2) {
                        m.push(("cavalry_withdrawal", Value::Bool(true)));
                    }
                    out.push(Choice { place: Place::DefenceHex(hex.to_string()), value: mapping(m) });
                } else if let Some(chit) = v.get("tactics") {
                    if draw.chance(1, 3) {
                        out.push(Choice { place: Place::DefenceTactics, value: chit.clone() });
                    }
                }
            }
            if draw.chance(1, 3) {
                if let Some(p) = momentum_policy(guide, draw) {
                    out.push(Choice { place: Place::Field("momentum"), value: p });
                }
            }
        }
        "fire" | "rifle-fire" => {
            // Each of the guide's fires one time in two, but no unit fires
            // twice and no target is fired at twice (11.1, 11.2; rifles
            // 10.1, 10.2; mortars aim at hexes, not units): the guide
            // offers each gun at each of its targets, alone and together,
            // and the engine would refuse a second one (the choice dropped,
            // at the cost of checking the orders again).
            let mut firing: BTreeSet<String> = BTreeSet::new();
            let mut targeted: BTreeSet<String> = BTreeSet::new();
            for c in &guide.choices {
                let key = match c.key.as_str() {
                    "fire" => "fire",
                    "mortars" => "mortars",
                    "rifle_fire" => "rifle_fire",
                    _ => continue,
                };
                let Some(v) = parse(&c.yaml).filter(|_| draw.chance(1, 2)) else { continue };
                let mut firers = string_list(v.get("guns"));
                firers.extend(string_list(v.get("rifles")));
                firers.extend(v.get("unit").and_then(Value::as_str).map(str::to_string));
                let target = v.get("target").and_then(Value::as_str).map(str::to_string);
                if firers.iter().any(|f| firing.contains(f)) || target.as_ref().is_some_and(|t| targeted.contains(t)) {
                    continue;
                }
                firing.extend(firers);
                targeted.extend(target);
                out.push(Choice { place: Place::Item(key), value: v });
            }
        }
        "construct-siege-works" => out.extend(draw_siege_works(rules, guide, draw)),
        "siege-and-bombardment" => {
            if draw.chance(1, 4) {
                out.push(Choice { place: Place::Field("bombard"), value: Value::Bool(false) });
            }
            // Where the results fall: some of the hexsides, hexes or
            // markers the guide lists, in a drawn order.
            for c in &guide.choices {
                let key = match c.key.as_str() {
                    "breach" => "breach",
                    "destroy" => "destroy",
                    "remove" => "remove",
                    _ => continue,
                };
                let options = c.details.get("options").and_then(|v| v.as_array()).cloned().unwrap_or_default();
                let mut left: Vec<String> = options.iter().filter_map(|o| o.as_str().map(str::to_string)).collect();
                if left.is_empty() || !draw.chance(1, 2) {
                    continue;
                }
                let mut order = Vec::new();
                while !left.is_empty() && (order.is_empty() || draw.chance(1, 2)) {
                    order.push(left.remove(draw.below(left.len())));
                }
                out.push(Choice { place: Place::Field(key), value: strings(&order) });
            }
        }
        "initiative" => {
            let options: Vec<Value> =
                guide.choices.iter().filter(|c| c.key == "momentum").filter_map(|c| parse(&c.yaml)).collect();
            if let Some(mut v) = draw.chance(1, 2).then(|| draw.pick(&options).cloned()).flatten() {
                if let (Some(m), true) = (v.as_mapping_mut(), draw.chance(1, 3)) {
                    m.insert(text("dictate"), Value::Bool(true));
                }
                out.push(Choice { place: Place::Field("momentum"), value: v });
            }
        }
        _ => {}
    }
    out
}

/// Construct Siege Works (Savannah 4.4): for each marker flipped this step,
/// one time in two, one of the alignments the guide lists (`flip:`); and
/// one time in two a first marker in a hex the guide offers, then up to
/// three more, each next to a marker drawn before (the engine refuses those
/// the rule does not allow: too close to the perimeter, not extending, more
/// than the turn allows, and they are dropped as any refused choice is).
fn draw_siege_works(rules: &Rules, guide: &Guide, draw: &mut Draw) -> Vec<Choice> {
    use crate::base::hex::{neighbours, HexId};
    let mut out = Vec::new();
    let hex_of = |v: &Value| v.get("hex").and_then(Value::as_str).map(str::to_string);
    let items = |key: &str| -> Vec<Value> {
        guide
            .choices
            .iter()
            .filter(|c| c.key == key)
            .filter_map(|c| c.yaml.as_deref().and_then(|y| crate::base::yaml::from_str::<Value>(y).ok()))
            .collect()
    };
    // The alignments offered, by marker (the guide lists a marker's together).
    let mut by_hex: Vec<(String, Vec<Value>)> = Vec::new();
    for v in items("flip") {
        let Some(hex) = hex_of(&v) else { continue };
        match by_hex.last_mut() {
            Some((h, list)) if *h == hex => list.push(v),
            _ => by_hex.push((hex, vec![v])),
        }
    }
    for (_, alignments) in &by_hex {
        if let Some(v) = draw.chance(1, 2).then(|| draw.pick(alignments).cloned()).flatten() {
            out.push(Choice { place: Place::Item("flip"), value: v });
        }
    }
    let open: Vec<String> = items("place").iter().filter_map(hex_of).collect();
    let Some(first) = draw.chance(1, 2).then(|| draw.pick(&open).cloned()).flatten() else { return out };
    let layout = rules.module.map.layout;
    let mut placed = vec![first];
    for _ in 0..draw.below(4) {
        let Some(from) = draw.pick(&placed).and_then(|h| h.parse::<HexId>().ok()) else { break };
        let next: Vec<String> =
            neighbours(from, layout).iter().map(HexId::to_string).filter(|h| !placed.contains(h)).collect();
        let Some(h) = draw.pick(&next).cloned() else { break };
        placed.push(h);
    }
    for h in placed {
        out.push(Choice { place: Place::Item("place"), value: mapping(vec![("hex", text(&h))]) });
    }
    out
}

/// Every awaited side's random orders for `step`: its least orders, which
/// must validate (alone, and all sides' together), and what the drawn
/// choices add that still validates, alone and together
/// ([`phases::validate_step`]).
fn step_orders(
    rules: &Rules,
    state: &State,
    step: &Step,
    sides: &[String],
    draw: &mut Draw,
) -> std::result::Result<(BTreeMap<String, Value>, OrderCounts), String> {
    let least = crate::systems::gboar::guide::least::minimal_of(rules, state, step, sides);
    // Every problem as (side, field, message): each side's alone, then
    // (when there are none) all sides' together.
    // Validation is a pure function of the state, the step and the
    // orders: a side's file (or every side's together) already checked
    // in this step is not checked again (the least orders of a side that
    // drew no choice, the files a dropped choice left as they were).
    type Found = Vec<(String, String, String)>;
    // A Movement Phase of a player of one side (Savannah's British): that
    // side's file checked alone is the phase checked whole
    // (`movement::run` holds a side alone apart only from its player's
    // other sides, and there are none), so the check of every side
    // together, which would run the phase once more, is not made; the
    // step's resolution makes it, and a refusal there fails the game.
    let alone_is_whole = match step {
        Step::PlayerTurn { player, phase, .. } if phase == "movement" => {
            sides.len() == 1 && rules.sequence.sides_of(player) == sides
        }
        _ => false,
    };
    // What every check of this step's files shares, made ready once.
    let checks = phases::Checks::new(rules, state, step);
    let alone: std::cell::RefCell<Vec<(String, Value, Found)>> = Default::default();
    let together: std::cell::RefCell<Vec<(BTreeMap<String, Value>, Found)>> = Default::default();
    let problems = |bodies: &BTreeMap<String, Value>| -> Found {
        let mut found = Vec::new();
        for (side, body) in bodies {
            let known = alone.borrow().iter().find(|(s, b, _)| s == side && b == body).map(|(_, _, f)| f.clone());
            let side_found = known.unwrap_or_else(|| {
                let f: Found = checks
                    .validate_body(side, body, "selfplay", "")
                    .into_iter()
                    .map(|p| (side.clone(), p.field, p.message))
                    .collect();
                alone.borrow_mut().push((side.clone(), body.clone(), f.clone()));
                f
            });
            found.extend(side_found);
        }
        if found.is_empty() && !alone_is_whole {
            let known = together.borrow().iter().find(|(b, _)| b == bodies).map(|(_, f)| f.clone());
            found = known.unwrap_or_else(|| {
                let f: Found = checks.validate_step(bodies).into_iter().map(|p| (p.side, p.field, p.message)).collect();
                together.borrow_mut().push((bodies.clone(), f.clone()));
                f
            });
        }
        found
    };
    let refused = problems(&least);
    if !refused.is_empty() {
        let list: Vec<String> = refused.iter().map(|(s, f, m)| format!("{s} {f}: {m}")).collect();
        let what = format!(
            "the least orders (adjutant template) do not validate: {}; the orders: {}",
            list.join("; "),
            serde_json::to_string(&least).unwrap_or_default()
        );
        return Err(what);
    }
    let mut choices: Vec<(String, Choice)> = Vec::new();
    for side in sides {
        let drawn = if step.phase() == "movement" {
            draw_movement(rules, state, &checks, side, &least[side], draw)
        } else {
            let guide = template::guide_choices(rules, state, step, side, &least[side]);
            draw_choices(rules, &guide, &least[side], draw)
        };
        choices.extend(drawn.into_iter().map(|c| (side.clone(), c)));
        choices.extend(draw_plays(rules, state, side, draw).into_iter().map(|c| (side.clone(), c)));
    }
    let mut counts = OrderCounts { files: sides.len() as u64, drawn: choices.len() as u64, ..OrderCounts::default() };
    let build_all = |kept: &[(String, Choice)]| -> (BTreeMap<String, Value>, Vec<String>) {
        let mut bodies = BTreeMap::new();
        let mut fields = vec![String::new(); kept.len()];
        for (side, body) in &least {
            let mine: Vec<usize> = (0..kept.len()).filter(|i| &kept[*i].0 == side).collect();
            let list: Vec<Choice> = mine.iter().map(|i| kept[*i].1.clone()).collect();
            let (built, at) = build(body, &list);
            for (i, f) in mine.into_iter().zip(at) {
                fields[i] = f;
            }
            bodies.insert(side.clone(), built);
        }
        (bodies, fields)
    };
    let mut kept = choices.clone();
    // Drop the choices the refusals name, while they name some.
    loop {
        let (bodies, fields) = build_all(&kept);
        let found = problems(&bodies);
        if found.is_empty() {
            counts.kept = kept.len() as u64;
            return Ok((bodies, counts));
        }
        let before = kept.len();
        let mut i = 0;
        kept.retain(|(side, _)| {
            let named = found.iter().any(|(s, f, _)| s == side && under(f, &fields[i]));
            i += 1;
            !named
        });
        if kept.len() == before {
            break;
        }
    }
    // A refusal that names no choice: one choice at a time.
    counts.one_by_one = 1;
    let mut one_by_one: Vec<(String, Choice)> = Vec::new();
    for c in choices {
        one_by_one.push(c);
        if !problems(&build_all(&one_by_one).0).is_empty() {
            one_by_one.pop();
        }
    }
    counts.kept = one_by_one.len() as u64;
    Ok((build_all(&one_by_one).0, counts))
}

/// The orders file `adjutant template` would write for this body.
fn orders_file(game: &str, step: &Step, side: &str, body: &Value) -> String {
    let mut text = format!(
        "game: {game}\nturn: {}\nstep: {}\nside: {side}\n",
        step.turn(),
        crate::systems::gboar::data::sequence::step_field(step)
    );
    if body.as_mapping().is_some_and(|m| !m.is_empty()) {
        text += &crate::base::yaml::to_string(body).unwrap_or_default();
    }
    text
}

/// Whether `after`, the state a step made from `before` (which reads back
/// whole), reads back whole from its canonical bytes: checked as the
/// state with only the units the step changed or added. The bytes are a
/// JSON map of the state's fields, the units among them a map of id to
/// unit, and each field and each unit is read alone (no field's reading
/// looks at another's, `UnitMap`'s reading keeps its units as read), so a
/// state reads back whole when its fields but the units do and each of
/// its units does; a unit the step left as it was read back in `before`.
/// (The whole state's bytes, about 130,000 instructions to write and
/// 300,000 to read a Historical state, were 8.6% of self-play's.)
/// `after` is as it was when this returns.
fn reads_back(before: &State, after: &mut State) -> bool {
    let changed: crate::systems::gboar::board::unit_map::UnitMap = after
        .units
        .beside(&before.units)
        .filter(|(_, u, was)| *was != Some(*u))
        .map(|(id, u, _)| (id.clone(), u.clone()))
        .collect();
    let units = std::mem::replace(&mut after.units, changed);
    let read = serde_json::from_slice::<State>(&after.canonical_bytes()).ok();
    let same = read.as_ref() == Some(&*after);
    after.units = units;
    same
}

/// Play game `id` from `setup` to its end (or its first failure).
/// `record` keeps every step's orders files (for the shell's
/// `game::selfplay::write_folder`).
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
    let mut played = Played::new(id);
    let fail = |played: &mut Played, k: u32, step: &Step, what: String| {
        played.failures.push(Failure { game: id.game, journal_step: k, step: step.name(), what });
    };
    let bound = match max_steps(rules) {
        Ok(n) => n,
        Err(e) => {
            played.failures.push(Failure { game: id.game, journal_step: 0, step: String::new(), what: e.to_string() });
            return played;
        }
    };
    played.chain_length = bound + 1;
    let keys = dice::chain(&chain_top(id), played.chain_length);
    let game = id.name();
    let checks = Invariants::new(rules);
    let mut draw = Draw::new(id);
    let mut state = setup.clone();
    let mut broken = checks.state(&state);
    // The set-up reads back whole from its canonical bytes; each step's
    // state then reads back as [`reads_back`] checks it.
    if serde_json::from_slice::<State>(&state.canonical_bytes()).ok().as_ref() != Some(&state) {
        broken.push("the state does not read back from its canonical bytes".into());
    }
    if !broken.is_empty() {
        played.failures.push(Failure {
            game: id.game,
            journal_step: 0,
            step: "set-up".into(),
            what: broken.join("; "),
        });
        return played;
    }
    let mut k = 1u32;
    while let Some(step) = state.next.clone() {
        *at.borrow_mut() = (k, step.name());
        if k > bound {
            fail(&mut played, k, &step, format!("the game has not ended after {bound} steps, the most its turns hold"));
            return played;
        }
        // Each awaited side's orders file, read back as a real one is.
        let mut files = Vec::new();
        let mut bodies = BTreeMap::new();
        let sides = phases::awaited(rules, &state, &step);
        let drawn = match step_orders(rules, &state, &step, &sides, &mut draw) {
            Ok((drawn, counts)) => {
                played.orders.add(&counts);
                drawn
            }
            Err(why) => {
                fail(&mut played, k, &step, why);
                return played;
            }
        };
        for (side, body) in drawn {
            let file = orders_file(&game, &step, &side, &body);
            match crate::systems::gboar::orders::check_header(rules, &game, &state, "selfplay", &file) {
                Ok(c) if c.side == side => {
                    bodies.insert(side.clone(), c.body);
                }
                Ok(c) => {
                    fail(&mut played, k, &step, format!("{side}'s orders file reads as {}'s", c.side));
                    return played;
                }
                Err(list) => {
                    let why: Vec<String> = list.iter().map(|l| l.to_string()).collect();
                    fail(&mut played, k, &step, format!("{side}'s orders file is refused: {}", why.join("; ")));
                    return played;
                }
            }
            files.push((side, file));
        }
        let seed = match id.step_seed(k, &keys[k as usize], &files) {
            Ok(s) => s,
            Err(e) => {
                fail(&mut played, k, &step, format!("the step's seed: {e}"));
                return played;
            }
        };
        let resolve = || {
            let mut dice = StepDice::new(&seed);
            phases::resolve(rules, &state, &step, &bodies, &mut dice).map(|mut r| {
                r.state.resolved_steps = k;
                (r, dice.into_log())
            })
        };
        let (mut done, rolls) = match resolve() {
            Ok(r) => r,
            Err(e) => {
                let orders: Vec<String> = files.iter().map(|(s, f)| format!("{s}:\n{f}")).collect();
                fail(&mut played, k, &step, format!("the engine refuses the step: {e}\n{}", orders.join("\n")));
                return played;
            }
        };
        let mut broken = checks.check(&state, &step, &done.state, &done.events);
        // The same step from the same state with the same dice: the same
        // state, events and rolls (DICE.md §6.4). The same state is the
        // same canonical bytes and so the same state hash (the bytes are
        // the state's serialisation; the one field it leaves out,
        // `credit`, is compared too, and must be empty, as the read-back
        // below requires), without serialising it.
        match resolve() {
            Ok((again, again_rolls)) => {
                if again.state != done.state {
                    broken.push("resolved again, the step gives another state hash".into());
                }
                if again.events != done.events {
                    broken.push("resolved again, the step gives other events".into());
                }
                if again_rolls != rolls {
                    broken.push("resolved again, the step rolls other dice".into());
                }
            }
            Err(e) => broken.push(format!("resolved again, the engine refuses the step: {e}")),
        }
        // The state reads back from its canonical bytes (state.yaml's YAML
        // is read back by the game folders of `--keep`).
        if !reads_back(&state, &mut done.state) {
            broken.push("the state does not read back from its canonical bytes".into());
        }
        for e in done.events.iter().filter(|e| !crate::systems::gboar::effects::intel::is_copy(e)) {
            *played.events.entry(e.kind.clone()).or_default() += 1;
        }
        if !broken.is_empty() {
            let orders: Vec<String> = files.iter().map(|(s, f)| format!("{s}:\n{f}")).collect();
            fail(&mut played, k, &step, format!("{}\n{}", broken.join("; "), orders.join("\n")));
            played.steps = k;
            return played;
        }
        if record {
            played.record.push(StepRecord {
                journal_step: k,
                step: step.name(),
                files,
                state_sha256: done.state.hash(),
            });
        }
        played.result = done.state.result.clone();
        state = done.state;
        played.steps = k;
        k += 1;
    }
    played
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::gboar::data::Source;

    fn historical() -> State {
        let rules = Rules::load(&Source::Embedded("savannah-1779".into()), "historical").unwrap();
        State::setup(&rules.module, "historical").unwrap()
    }

    /// The check of a step's state reads its changed units and its other
    /// fields, and leaves the state as it was.
    #[test]
    fn reads_back_checks_the_changed_units_and_the_rest() {
        let before = historical();
        let mut after = before.clone();
        assert!(reads_back(&before, &mut after));
        assert_eq!(after, before);
        // A field that is not written (`credit`) does not read back; nor
        // does a state carrying it, whatever its units.
        after.credit.insert("french".into(), "americans".into());
        let kept = after.clone();
        assert!(!reads_back(&before, &mut after));
        assert_eq!(after, kept, "the state is as it was");
        // A unit changed is read: one written without its field (as
        // `credit` is) would not read back. The units the step left alone
        // are not written.
        let mut moved = before.clone();
        let id = moved.units.keys().next().cloned().unwrap();
        moved.units.get_mut(&id).unwrap().steps = 1;
        let changed: Vec<&String> =
            moved.units.iter().filter(|(i, u)| before.units.get(i) != Some(u)).map(|(i, _)| i).collect();
        assert_eq!(changed, vec![&id]);
        assert!(reads_back(&before, &mut moved));
        assert_eq!(moved.units.len(), before.units.len());
    }
}
