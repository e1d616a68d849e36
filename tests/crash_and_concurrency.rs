//! Nothing lost: `kill -9` of `roll` at random moments never leaves a log
//! that fails `verify` nor loses a step whose result was printed; ten `roll`
//! commands started at once on one log all land.

mod common;
use common::*;

use std::fs;
use std::process::Stdio;
use std::time::{Duration, Instant};

fn entries(log: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(log.join("journal"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    names.sort();
    names
}

#[test]
fn kill_9_at_random_moments_loses_nothing() {
    let dir = temp();
    run(dir.path(), &["roll", "init", "--dir", "log"]).ok();
    let log = dir.path().join("log");

    // How long one roll takes here, to spread the kills over its whole life.
    let start = Instant::now();
    run(dir.path(), &["roll", "2d10", "--purpose", "timing", "--dir", "log"]).ok();
    let span = start.elapsed().as_micros().max(500) as u64 * 3 / 2;

    let mut gen = Gen(0x9_1779);
    let mut completed = 1; // the timing roll
    let (mut killed, mut finished) = (0, 0);
    for i in 0..200 {
        let mut child = command(dir.path(), &["roll", "2d10", "--purpose", &format!("attempt {i}"), "--dir", "log"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_micros(gen.below(span)));
        let _ = child.kill(); // SIGKILL
        let output = child.wait_with_output().unwrap();
        if output.status.success() {
            finished += 1;
        } else {
            killed += 1;
        }
        let stdout = String::from_utf8_lossy(&output.stdout);
        let names = entries(&log);
        // A step whose result was printed is in the log, with the printed rolls.
        if let Some(first) = stdout.lines().next() {
            let step: usize = first.split_whitespace().nth(1).unwrap().parse().unwrap();
            let entry = fs::read_to_string(log.join(format!("journal/{step:06}.yaml"))).unwrap();
            assert!(entry.contains(&format!("attempt {i}")), "step {step} printed but not logged");
            let printed = stdout.lines().find(|l| l.trim_start().starts_with("rolls")).unwrap();
            let values: Vec<&str> = printed.split_whitespace().skip(1).take(2).collect();
            for v in values {
                assert!(entry.contains(&format!("value: {v}\n")), "printed roll {v} not in {entry}");
            }
        }
        // Steps only ever accumulate, and the log always verifies.
        assert!(names.len() >= completed, "a completed step was lost at attempt {i}");
        completed = names.len();
        let verdict = adjutant::verify::verify(&log).unwrap();
        assert!(verdict.ok, "attempt {i}: {:?}", verdict.failure);
    }
    eprintln!("200 kills: {killed} killed mid-run, {finished} finished first, {completed} steps in the log");
    // Both kinds of moment were hit, so the test exercised something.
    assert!(killed > 20, "only {killed} runs were killed before finishing");
    // The next roll lands after them, cleans stray temporary files, and all verifies.
    run(dir.path(), &["roll", "d6", "--purpose", "after the storm", "--dir", "log"]).ok();
    let stray: Vec<_> = fs::read_dir(log.join("journal"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
    let out = run(dir.path(), &["verify", "--dir", "log"]).ok();
    assert!(out.contains(&format!("{} steps", completed + 1)), "{out}");
}

#[test]
fn ten_rolls_at_once_all_land() {
    let dir = temp();
    run(dir.path(), &["roll", "init", "--dir", "log"]).ok();
    let children: Vec<_> = (0..10)
        .map(|i| {
            command(
                dir.path(),
                &["roll", "3d6", "--purpose", &format!("player {i}"), "--dir", "log", "--format", "json"],
            )
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
        })
        .collect();
    let mut steps = Vec::new();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        steps.push(json["step"].as_u64().unwrap());
    }
    steps.sort();
    assert_eq!(steps, (1..=10).collect::<Vec<u64>>());
    assert_eq!(entries(&dir.path().join("log")).len(), 10);
    let out = run(dir.path(), &["verify", "--dir", "log"]).ok();
    assert!(out.contains("10 steps and 30 rolls"), "{out}");
}

#[test]
fn a_held_lock_makes_a_command_wait_then_fail_cleanly() {
    let dir = temp();
    run(dir.path(), &["roll", "init", "--dir", "log"]).ok();
    let log = dir.path().join("log");
    let held = adjutant::fsio::lock_folder(&log, Duration::ZERO).unwrap();
    let err = run(dir.path(), &["roll", "d6", "--purpose", "x", "--dir", "log", "--wait", "1"]).fails(2);
    assert!(err.contains("another adjutant command"), "{err}");
    assert!(entries(&log).is_empty());
    drop(held);
    run(dir.path(), &["roll", "d6", "--purpose", "x", "--dir", "log", "--wait", "1"]).ok();
}
