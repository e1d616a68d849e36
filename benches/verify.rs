//! Benchmark (`cargo test` runs it once, timing nothing: benches/common):
//! `verify` of the demo game, the whole Historical Scenario (every step's
//! dice, the replay through the rules engine, and every report in reports/
//! rendered again). Run with `cargo bench --bench verify`; the figure is
//! recorded in issue 6's note.
//!
//! The game is played once by the `adjutant demo` binary (`--keep`), then
//! verified in this process, several times.

mod common;

use std::process::Command;
use std::time::Instant;

fn main() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let keep = dir.path().join("demo");
    let status = Command::new(env!("CARGO_BIN_EXE_adjutant"))
        .args(["demo", "--keep"])
        .arg(&keep)
        .stdout(std::process::Stdio::null())
        .status()
        .expect("the adjutant binary runs");
    assert!(status.success(), "adjutant demo failed");
    let game = keep.join("savannah");
    let first = adjutant::game::verify::verify(&game).expect("the demo game reads");
    assert!(first.ok, "the demo game verifies: {:?}", first.failure);
    let reports = std::fs::read_dir(game.join("reports")).map(|d| d.count()).unwrap_or(0);
    let runs = common::runs(10);
    let start = Instant::now();
    for _ in 0..runs {
        let verdict = adjutant::game::verify::verify(&game).expect("the demo game reads");
        assert!(verdict.ok);
    }
    let each = start.elapsed() / runs;
    println!(
        "verify: the demo game ({} steps, {} rolls, {reports} dispatches of reports) in {each:?} per run ({runs} runs)",
        first.steps, first.rolls
    );
}
