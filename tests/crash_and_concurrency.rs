//! Nothing lost: `kill -9` of `roll` at random moments never leaves a log
//! that fails `verify` nor loses a step whose result was printed; ten `roll`
//! commands started at once on one log all land. `kill -9` of `resolve` at
//! random moments leaves a folder that verifies, and the next command ends
//! it as if it had never been killed. Readers (`verify`, `status`) running
//! beside a referee at work never see a step half done.

mod common;
use common::*;

use std::fs;
use std::path::Path;
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
        let verdict = adjutant::game::verify::verify(&log).unwrap();
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
    let held = adjutant::base::fsio::lock_folder(&log, Duration::ZERO).unwrap();
    let err = run(dir.path(), &["roll", "d6", "--purpose", "x", "--dir", "log", "--wait", "1"]).fails(2);
    assert!(err.contains("another adjutant command"), "{err}");
    assert!(entries(&log).is_empty());
    drop(held);
    run(dir.path(), &["roll", "d6", "--purpose", "x", "--dir", "log", "--wait", "1"]).ok();
}

/// How a killed command left a folder, against before and after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Left {
    Untouched,
    PartWay,
    Finished,
}

#[test]
fn a_resolve_killed_at_random_moments_is_finished_by_the_next_command_as_if_never_killed() {
    let dir = temp();
    let d = dir.path();
    let base = d.join("base");
    fs::create_dir(&base).unwrap();
    demo_game_awaiting_resolve(&base, true);
    let before = snapshot(&base.join("savannah"));
    let args = ["resolve", "--dir", "savannah"];
    // The run never killed (steps 4 to 8 and their dispatch), and how long
    // it takes, to spread the kills over a resolve's whole life.
    let reference = d.join("reference");
    copy_dir(&base, &reference);
    let marker = Path::new("savannah/reports/pending.yaml");
    // How long its writes take too, from the marker of pending reports (the
    // first file a resolve puts in place) to its end: the kills aimed amid
    // the writes fall within that span as this machine runs it.
    let start = Instant::now();
    let mut child = command(&reference, &args).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let mut marked = None;
    while child.try_wait().unwrap().is_none() {
        if marked.is_none() && reference.join(marker).exists() {
            marked = Some(Instant::now());
        }
        std::thread::sleep(Duration::from_micros(100));
    }
    let span = start.elapsed().as_micros() as u64;
    let writes = marked.map_or(span, |m| m.elapsed().as_micros() as u64).max(1);
    let want = snapshot(&reference.join("savannah"));
    assert!(reference.join("savannah/reports/000004-000008").is_dir());

    let mut gen = Gen(0x1779_0916);
    let mut left = std::collections::BTreeMap::new();
    for trial in 0..24 {
        let work = d.join(format!("trial-{trial}"));
        copy_dir(&base, &work);
        let mut child = command(&work, &args).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
        let delay = if trial % 2 == 0 {
            // Anywhere in its life...
            let delay = gen.below(span * 6 / 5);
            std::thread::sleep(Duration::from_micros(delay));
            delay
        } else {
            // ...or amid its writes: it computes everything first, then
            // writes the marker of pending reports first.
            let started = Instant::now();
            while !work.join(marker).exists() && child.try_wait().unwrap().is_none() {
                std::thread::sleep(Duration::from_micros(200));
            }
            let delay = gen.below(writes);
            std::thread::sleep(Duration::from_micros(delay));
            started.elapsed().as_micros() as u64
        };
        let _ = child.kill(); // SIGKILL
        child.wait().unwrap();
        let now = snapshot(&work.join("savannah"));
        let how = if now == before {
            Left::Untouched
        } else if snapshot_difference(&now, &want).is_empty() {
            Left::Finished
        } else {
            Left::PartWay
        };
        *left.entry(how).or_insert(0) += 1;
        // Whatever the moment, the folder verifies (the reader finishes what
        // was left first), and the next resolve ends as if nothing happened.
        let v = run(&work, &["verify", "--dir", "savannah"]).ok();
        assert!(v.starts_with("verified"), "trial {trial} ({how:?}): {v}");
        run(&work, &args).ok();
        let differs = snapshot_difference(&snapshot(&work.join("savannah")), &want);
        assert!(differs.is_empty(), "trial {trial} ({how:?}, killed after {delay} µs): {differs}");
        fs::remove_dir_all(&work).unwrap();
    }
    eprintln!("24 resolves killed at random (a resolve takes {span} µs here, its writes {writes} µs): {left:?}");
    // The kills landed before, amid and after the writes.
    assert!(left.get(&Left::PartWay).is_some_and(|&n| n > 0), "no kill landed amid the writes: {left:?}");
}

#[test]
fn readers_never_see_a_resolve_half_done() {
    let dir = temp();
    let d = dir.path();
    let game = new_demo_game(d);
    let g = game.to_str().unwrap().to_string();
    let readers_done = std::sync::atomic::AtomicBool::new(false);
    let resolves = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        // The referee plays the demo step by step: submit, resolve.
        scope.spawn(|| {
            let mut next = "16-allies-movement".to_string();
            while !readers_done.load(std::sync::atomic::Ordering::Relaxed) {
                let shipped = fs::read_dir(demo_orders("x").parent().unwrap()).unwrap();
                let mut files: Vec<_> = shipped
                    .map(|e| e.unwrap().path())
                    .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(&format!("{next}--")))
                    .collect();
                files.sort();
                for file in &files {
                    run(d, &["submit", "--dir", &g, file.to_str().unwrap()]).ok();
                }
                let out = run(d, &["resolve", "--dir", &g, "--format", "json"]);
                let json = out.json();
                assert_eq!(out.code, 0, "{}", out.stderr);
                resolves.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                match json["next_step"].as_str() {
                    Some(step) => next = step.to_string(),
                    None => break,
                }
            }
        });
        let verifier = scope.spawn(|| {
            // At least 60, and on until the referee has resolved 5 times.
            let mut i = 0;
            while i < 60 || (resolves.load(std::sync::atomic::Ordering::Relaxed) < 5 && i < 200) {
                let out = run(d, &["verify", "--dir", &g]);
                assert_eq!(out.code, 0, "verify {i} during a resolve: {}{}", out.stdout, out.stderr);
                i += 1;
            }
        });
        let status = scope.spawn(|| {
            let mut i = 0;
            while i < 100 || (resolves.load(std::sync::atomic::Ordering::Relaxed) < 5 && i < 400) {
                let out = run(d, &["status", "--dir", &g]);
                assert_eq!(out.code, 0, "status {i} during a resolve: {}{}", out.stdout, out.stderr);
                i += 1;
            }
        });
        let (v, s) = (verifier.join(), status.join());
        readers_done.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Err(e) = v.and(s) {
            std::panic::resume_unwind(e);
        }
    });
    let resolves = resolves.into_inner();
    eprintln!("60 verify and 100 status (or more) while {resolves} resolves ran: all succeeded");
    // The readers raced a referee at work, not an idle folder.
    assert!(resolves >= 5, "only {resolves} resolves ran meanwhile");
}

#[test]
fn leftovers_of_killed_commands_are_cleared_by_the_next_command_that_writes() {
    let dir = temp();
    let d = dir.path();
    let game = demo_game_awaiting_resolve(d, false);
    let g = game.to_str().unwrap();
    let stale_state = fs::read(game.join("state.yaml")).unwrap();
    run(d, &["resolve", "--dir", g]).ok();
    let consistent = snapshot(&game);
    // What killed commands leave: temporary files wherever adjutant
    // writes, an orders file of a step whose entry never came (the journal
    // is at step 5), state.yaml behind the journal, a marker of reports
    // already written.
    let temps = [
        ".tmp-4242-0-state.yaml",
        "journal/.tmp-4242-1-000006.yaml",
        "orders/.tmp-4242-2-000006-british.yaml",
        "reports/.tmp-4242-3-000006-000006/british.txt",
        "inbox/.tmp-4242-4-16-british-movement--british.yaml",
        "standing/.tmp-4242-5-british.yaml",
        ".secret/.tmp-4242-6-chain-top",
    ];
    for temp in temps {
        let path = game.join(temp);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, b"half").unwrap();
    }
    fs::write(game.join("orders/000006-british.yaml"), b"game: savannah-demo\n").unwrap();
    fs::write(game.join("state.yaml"), &stale_state).unwrap();
    fs::write(game.join("reports/pending.yaml"), b"first_step: 4\n").unwrap();
    // The next command that writes (a submit) finishes it first...
    let file = demo_orders("16-british-movement--british");
    run(d, &["submit", "--dir", g, file.to_str().unwrap()]).ok();
    for temp in temps {
        assert!(!game.join(temp).exists(), "{temp} is left");
    }
    assert!(!game.join("orders/000006-british.yaml").exists(), "an orders file no entry records is left");
    assert!(!game.join("reports/pending.yaml").exists(), "a stale marker is left");
    // ...and otherwise leaves the folder as it was, but for the submission.
    let mut now = snapshot(&game);
    now.remove(Path::new("inbox/16-british-movement--british.yaml"));
    now.remove(Path::new("standing"));
    assert_eq!(snapshot_difference(&now, &consistent), "");
    // The step goes on where it was; nothing is stuck.
    run(d, &["resolve", "--dir", g]).ok();
    run(d, &["verify", "--dir", g]).ok();
}
