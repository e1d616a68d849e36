//! What every benchmark shares: whether it was started by `cargo bench`.
//!
//! `cargo bench` passes `--bench` to a benchmark's binary (ours have no
//! libtest harness); `cargo test` runs the same binary without it
//! (`test = true` in Cargo.toml), and then each benchmark runs once, on
//! small inputs, timing nothing: its set-up, its inputs and the
//! assertions it makes of their results (exit codes, problem counts, a
//! game that verifies) are checked by every test run, so that a
//! benchmark cannot break unseen between the times someone runs it
//! (`--bench hostile` failed at its first assertion for four days,
//! 2026-12-03 to 12-07).

// Each benchmark includes this module and uses what it needs of it.
#![allow(dead_code)]

/// Whether this run measures (`cargo bench`) or only checks (`cargo test`).
pub fn measuring() -> bool {
    std::env::args().any(|a| a == "--bench")
}

/// `full` runs when measuring, one when only checking.
pub fn runs(full: u32) -> u32 {
    if measuring() {
        full
    } else {
        1
    }
}
