//! Benchmark (`cargo test` runs it once, timing nothing: benches/common):
//! validating and resolving a movement step of 40 units on the full
//! Savannah map. Run with `cargo bench --bench movement`.
//!
//! Orders are built from the Historical set-up: each Allied combat unit, in
//! id order, is sent one hex to a neighbouring hex, kept if the orders so far
//! still validate, until 40 units move.

mod common;

use std::collections::BTreeMap;
use std::time::Instant;

use adjutant::base::hex::neighbours;
use adjutant::base::yaml::Value;
use adjutant::systems::gboar::board::state::State;
use adjutant::systems::gboar::board::Rules;
use adjutant::systems::gboar::case::ScriptedDice;
use adjutant::systems::gboar::data::Source;
use adjutant::systems::gboar::phases::movement;

fn body(moves: &[(String, String)]) -> Value {
    let list: Vec<Value> = moves
        .iter()
        .map(|(u, h)| adjutant::base::yaml::from_str(&format!("{{unit: {u}, path: [\"{h}\"]}}")).expect("a move"))
        .collect();
    let mut m = adjutant::base::yaml::Mapping::new();
    m.insert("moves".into(), Value::Sequence(list));
    Value::Mapping(m)
}

fn main() {
    let rules = Rules::load(&Source::Embedded("savannah-1779".into()), "historical").expect("Savannah loads");
    let state = State::setup(&rules.module, "historical").expect("set-up");
    let mut by_side: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for (id, unit) in &state.units {
        if by_side.values().map(Vec::len).sum::<usize>() == 40 {
            break;
        }
        let Some(c) = rules.counter(id) else { continue };
        if c.is_leader() || (c.army != "french" && c.army != "american") {
            continue;
        }
        let side = c.army.clone();
        let moves = by_side.entry(side.clone()).or_default();
        let Some(hex) = unit.hex else { continue };
        for n in neighbours(hex, rules.module.map.layout) {
            let mut trial = moves.clone();
            trial.push((id.clone(), n.to_string()));
            if movement::validate(&rules, &state, "allies", &side, &body(&trial)).is_empty() {
                *moves = trial;
                break;
            }
        }
    }
    let orders: BTreeMap<String, Value> = by_side.iter().map(|(s, m)| (s.clone(), body(m))).collect();
    let count: usize = by_side.values().map(Vec::len).sum();
    let runs = common::runs(50);
    let start = Instant::now();
    for _ in 0..runs {
        for (side, b) in &orders {
            assert!(movement::validate(&rules, &state, "allies", side, b).is_empty());
        }
        movement::resolve(&rules, &state, "allies", &orders, &mut ScriptedDice::new(vec![])).expect("resolves");
    }
    let per_run = start.elapsed() / runs;
    println!("movement: {} units validated and resolved on the full map in {per_run:?} per run ({runs} runs)", count);
}
