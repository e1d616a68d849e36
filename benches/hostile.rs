//! Benchmark (not a test): what hostile orders cost. Run with
//! `cargo bench --bench hostile`; it exits non-zero when a bound is
//! broken.
//!
//! Each hostile input is built here and given to the real binary's
//! `validate` and `submit` (a file, and standard input) on a new game of
//! Savannah 1779's Historical Scenario, the demo's game. Every time is the
//! median of several runs and is reported as a ratio to `adjutant
//! --version` measured in the same run, so that the bounds hold on a slow
//! or busy machine alike (a scaling compares the least time of several
//! runs instead, the one least disturbed):
//!
//! - an input refused for its size or its nesting (src/game/input.rs) costs
//!   about as much as starting the binary: at most 20× `--version`;
//! - an input within the limits is checked whole, in time linear in it:
//!   8,000 moves of one unit and a file of 100,000 problems within a fixed
//!   multiple of `--version` (the bounds below; before the fix 8,000 moves
//!   took 89 s, some 15,000×);
//! - and the checks scale linearly: 3× the moves through the binary (the
//!   most that fit in an orders file) take at most 2 × 3× the time, and
//!   12.5× the moves through the engine's own check (`validate_body`,
//!   8,000 then 100,000 moves, beyond what a file may hold) at most 2 ×
//!   12.5× the time.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_adjutant");

/// Refused for size or nesting: about the cost of starting the binary.
const REFUSED_BOUND: f64 = 20.0;
/// 8,000 moves of one unit, each checked (the rules loaded once).
const MOVES_BOUND: f64 = 400.0;
/// A file of 100,000 problems, each found and counted, 50 listed.
const PROBLEMS_BOUND: f64 = 1500.0;
/// How far from linear a scaling may be.
const SCALING_SLACK: f64 = 2.0;

const HEAD: &str = "game: club-7\nturn: 16\nstep: allies-movement\nside: french\n";

/// `n` moves of Dillon's Irish: the first is legal, every other one is
/// refused (it has already moved).
fn moves(n: usize) -> String {
    let mut text = format!("{HEAD}moves:\n");
    for _ in 0..n {
        text += "  - {unit: dillon-irish, path: [\"1911\"]}\n";
    }
    text
}

struct Input {
    name: String,
    bytes: Vec<u8>,
    /// Refused before the YAML is parsed (size or nesting).
    early: bool,
    bound: f64,
}

fn inputs() -> Vec<Input> {
    let mut list = Vec::new();
    let mut add = |name: &str, text: Vec<u8>, early: bool, bound: f64| {
        list.push(Input { name: format!("{name} ({} KB)", text.len() / 1024), bytes: text, early, bound })
    };
    add("8,000 moves of one unit", moves(8000).into_bytes(), false, MOVES_BOUND);
    add("100,000 moves of one unit", moves(100_000).into_bytes(), true, REFUSED_BOUND);
    add("100,000 nested [", format!("{HEAD}moves: {}\n", "[".repeat(100_000)).into_bytes(), true, REFUSED_BOUND);
    let mut big = format!("{HEAD}# ").into_bytes();
    big.resize(100 << 20, b'x');
    add("a 100 MB file", big, true, REFUSED_BOUND);
    let id = format!("{HEAD}moves:\n  - unit: \"{}\"\n    to: \"1911\"\n", "d".repeat(10 << 20));
    add("a 10 MB unit id", id.into_bytes(), true, REFUSED_BOUND);
    let nested: String = (0..1000).map(|d| format!("{}k{d}:\n", " ".repeat(d + 2))).collect();
    add("a mapping nested 1,000 deep", format!("{HEAD}moves:\n{nested}").into_bytes(), true, REFUSED_BOUND);
    let problems = format!("{HEAD}moves: [{}]\n", vec!["a"; 100_000].join(","));
    add("100,000 problems", problems.into_bytes(), false, PROBLEMS_BOUND);
    list
}

/// One run of the binary in `dir`, `input` on standard input if given:
/// how long it took, and its exit status.
fn run(dir: &Path, args: &[&str], input: Option<&[u8]>) -> (Duration, i32) {
    let mut cmd = Command::new(BIN);
    cmd.args(args).current_dir(dir).stdout(Stdio::null()).stderr(Stdio::null());
    cmd.stdin(if input.is_some() { Stdio::piped() } else { Stdio::null() });
    let start = Instant::now();
    let mut child = cmd.spawn().expect("the adjutant binary runs");
    if let Some(bytes) = input {
        let mut stdin = child.stdin.take().expect("a pipe");
        // The binary stops reading at its limit: a broken pipe is expected.
        let _ = stdin.write_all(bytes);
    }
    let status = child.wait().expect("the binary ends");
    (start.elapsed(), status.code().unwrap_or(-1))
}

/// The times of `runs` runs, sorted, each expected to exit with `code`.
fn times(dir: &Path, args: &[&str], input: Option<&[u8]>, runs: usize, code: i32) -> Vec<Duration> {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let (t, got) = run(dir, args, input);
            assert_eq!(got, code, "adjutant {} exited {got}, expected {code}", args.join(" "));
            t
        })
        .collect();
    times.sort();
    times
}

/// The median time of `runs` runs.
fn median(dir: &Path, args: &[&str], input: Option<&[u8]>, runs: usize, code: i32) -> Duration {
    times(dir, args, input, runs, code)[runs / 2]
}

/// The least time of `runs` runs: what a scaling compares, the run least
/// disturbed by whatever else the machine does.
fn least(dir: &Path, args: &[&str], runs: usize, code: i32) -> Duration {
    times(dir, args, None, runs, code)[0]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

/// The engine's own check of `n` moves of one unit, in this process: the
/// least of a few runs.
fn engine_check(
    rules: &adjutant::systems::gboar::board::Rules,
    state: &adjutant::systems::gboar::board::state::State,
    n: usize,
) -> Duration {
    let text = moves(n);
    let checked = adjutant::systems::gboar::orders::check_header(rules, "club-7", state, "m.yaml", &text)
        .unwrap_or_else(|p| panic!("the header holds: {p:?}"));
    (0..3)
        .map(|_| {
            let start = Instant::now();
            let problems = adjutant::systems::gboar::phases::validate_body(
                rules,
                state,
                &checked.step,
                "french",
                &checked.body,
                "m.yaml",
                &text,
            );
            let t = start.elapsed();
            assert_eq!(problems.len(), n - 1, "every move but the first is refused");
            t
        })
        .min()
        .expect("three runs")
}

fn main() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let root = dir.path();
    let status = Command::new(BIN)
        .args(["new", "savannah-1779", "--scenario", "historical", "--dir", "g", "--game-id", "club-7"])
        .current_dir(root)
        .stdout(Stdio::null())
        .status()
        .expect("the adjutant binary runs");
    assert!(status.success(), "adjutant new failed");
    let version = median(root, &["--version"], None, 31, 0);
    println!("adjutant --version: {} (median of 31 runs); every ratio below is to it\n", ms(version));
    println!("{:<40} {:<18} {:>11} {:>9} {:>8}", "input", "command", "time", "ratio", "bound");
    let mut broken = Vec::new();
    let mut report = |input: &str, command: &str, t: Duration, bound: f64| {
        let ratio = t.as_secs_f64() / version.as_secs_f64();
        let ok = ratio <= bound;
        println!(
            "{:<40} {:<18} {:>11} {:>8.1}× {:>7}×{}",
            input,
            command,
            ms(t),
            ratio,
            bound,
            if ok { "" } else { "  BROKEN" }
        );
        if !ok {
            broken.push(format!("{input}, {command}: {ratio:.1}× --version, bound {bound}×"));
        }
    };
    let mut files: Vec<(PathBuf, Input)> = Vec::new();
    for (i, input) in inputs().into_iter().enumerate() {
        let path = root.join(format!("hostile-{i}.yaml"));
        std::fs::write(&path, &input.bytes).expect("the input is written");
        files.push((path, input));
    }
    for (path, input) in &files {
        let file = path.to_str().expect("a UTF-8 path");
        let runs = if input.early { 7 } else { 3 };
        let t = median(root, &["validate", "--dir", "g", file], None, runs, 1);
        report(&input.name, "validate FILE", t, input.bound);
        let t = median(root, &["submit", "--dir", "g", file], None, runs, 1);
        report(&input.name, "submit FILE", t, input.bound);
        let t = median(root, &["submit", "--dir", "g", "-"], Some(&input.bytes), runs, 1);
        report(&input.name, "submit - (stdin)", t, input.bound);
    }

    // Linear scaling through the binary: 8,000 and 24,000 moves (the most
    // that fit in 1 MiB).
    let path = root.join("moves-24000.yaml");
    std::fs::write(&path, moves(24_000)).expect("written");
    let small = least(root, &["validate", "--dir", "g", files[0].0.to_str().unwrap()], 5, 1);
    let large = least(root, &["validate", "--dir", "g", path.to_str().unwrap()], 5, 1);
    let growth = large.as_secs_f64() / small.as_secs_f64();
    let bound = 3.0 * SCALING_SLACK;
    println!(
        "\nvalidate, 8,000 then 24,000 moves: {} then {}: {growth:.2}× the time for 3× the moves (bound {bound}×)",
        ms(small),
        ms(large)
    );
    if growth > bound {
        broken.push(format!("validate scaling 8,000 -> 24,000 moves: {growth:.2}×, bound {bound}×"));
    }

    // Linear scaling in the engine, past what a file may hold.
    let source = adjutant::systems::gboar::data::Source::Embedded("savannah-1779".into());
    let rules = adjutant::systems::gboar::board::Rules::load(&source, "historical").expect("the module loads");
    let state = adjutant::systems::gboar::board::state::State::setup(&rules.module, "historical").expect("the set-up");
    let small = engine_check(&rules, &state, 8000);
    let large = engine_check(&rules, &state, 100_000);
    let growth = large.as_secs_f64() / small.as_secs_f64();
    let bound = 12.5 * SCALING_SLACK;
    println!(
        "validate_body, 8,000 then 100,000 moves: {} then {}: {growth:.2}× the time for 12.5× the moves (bound {bound}×)",
        ms(small),
        ms(large)
    );
    if growth > bound {
        broken.push(format!("validate_body scaling 8,000 -> 100,000 moves: {growth:.2}×, bound {bound}×"));
    }

    if broken.is_empty() {
        println!("\nevery bound holds");
    } else {
        println!("\nBROKEN:");
        for b in &broken {
            println!("  {b}");
        }
        std::process::exit(1);
    }
}
