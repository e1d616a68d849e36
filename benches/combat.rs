//! Benchmark (`cargo test` runs it once, timing nothing: benches/common):
//! resolving a Close Combat Phase of 10 combats on the full Savannah
//! map, and one `odds` computation. Run with `cargo bench --bench combat`.
//!
//! The Historical set-up is changed for the measure: ten French units each
//! face one British unit on open ground, two hexes apart from the next pair,
//! and every other unit is taken off the map so no other adjacency counts.

mod common;

use std::collections::BTreeMap;
use std::time::Instant;

use adjutant::base::hex::HexId;
use adjutant::systems::gboar::board::state::State;
use adjutant::systems::gboar::board::Rules;
use adjutant::systems::gboar::case::ScriptedDice;
use adjutant::systems::gboar::data::Source;
use adjutant::systems::gboar::guide::odds::{distribution, Side};
use adjutant::systems::gboar::phases::close_combat;
use adjutant::systems::gboar::phases::close_combat::MomentumPolicy;

fn main() {
    let rules = Rules::load(&Source::Embedded("savannah-1779".into()), "historical").expect("Savannah loads");
    let mut state = State::setup(&rules.module, "historical").expect("set-up");
    let french: Vec<String> = state
        .units
        .keys()
        .filter(|u| rules.counter(u).is_some_and(|c| c.army == "french" && c.kind == "infantry"))
        .take(10)
        .cloned()
        .collect();
    let british: Vec<String> = state
        .units
        .keys()
        .filter(|u| rules.counter(u).is_some_and(|c| c.army == "british" && c.kind == "infantry"))
        .take(10)
        .cloned()
        .collect();
    for u in state.units.values_mut() {
        u.hex = None;
    }
    // Pairs down columns 30 and 31 of the open ground east of the town.
    let mut attacks = Vec::new();
    for (n, (f, b)) in french.iter().zip(&british).enumerate() {
        let row = 2 + 2 * n as u8;
        let fh = HexId::new(31, row).expect("hex");
        let bh = HexId::new(31, row + 1).expect("hex");
        state.units.get_mut(f).expect("unit").hex = Some(fh);
        state.units.get_mut(b).expect("unit").hex = Some(bh);
        attacks.push(format!("  - {{attackers: [{f}], defenders: [\"{bh}\"]}}"));
    }
    let body: adjutant::base::yaml::Value =
        adjutant::base::yaml::from_str(&format!("attacks:\n{}\n", attacks.join("\n"))).expect("orders");
    let mut orders = BTreeMap::new();
    orders.insert("french".to_string(), body);
    let runs = common::runs(20);
    let start = Instant::now();
    for _ in 0..runs {
        let mut dice = ScriptedDice::new((0..5000).map(|i| (i * 7 % 10) as u16).collect());
        close_combat::resolve_phase(&rules, &state, &state, "allies", &orders, &mut dice).expect("resolves");
    }
    let each = start.elapsed() / runs;
    println!("close combat: 10 combats on the full map resolved in {each:?} per phase ({runs} runs)");

    let a = Side {
        chits: 2,
        policy: MomentumPolicy { reroll_if: vec!["captured-dc".into(), "step-loss".into()], at_most: 2 },
    };
    let d = Side {
        chits: 2,
        policy: MomentumPolicy { reroll_if: vec!["captured-ac".into(), "retreat".into()], at_most: 2 },
    };
    let runs = common::runs(200);
    let start = Instant::now();
    for _ in 0..runs {
        distribution(&rules, "3-2", 1, &a, &d).expect("odds");
    }
    let each = start.elapsed() / runs;
    println!("odds: one 3-2 combat with both sides' momentum policies (5 rolls deep) in {each:?} ({runs} runs)");
}
