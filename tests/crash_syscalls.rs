//! Kill at every write. A `resolve` of several steps (rolls, orders files,
//! a dispatch of reports) is run once under strace to list every call of
//! every syscall that writes; then, for each syscall kind and each call i,
//! it is run again from a copy of the folder with strace's fault injection
//! killing it (SIGKILL, at the call's entry), the next command is run
//! without strace, and the folder must end byte for byte as the run that
//! was never killed: every file and folder compared, nothing excluded.
//! The same for `submit`, whose folder must be the old one or the new one
//! after each kill (and `submit --email` replacing, withdrawing and
//! refusing, whose kept copies and reasons are settled by the next command);
//! a full disk (ENOSPC) at each write of `resolve`; `mail`
//! killed between sending and recording; `correct` killed at each write
//! (the old folder or the corrected one); a killed resolve's pending
//! reports against a deleted dispatch; readers of a copy they cannot
//! finish; and no write at all by a command on a consistent folder.

mod common;
use common::*;

use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// The syscalls that can change a folder (openat only with O_CREAT).
const WRITES: &[&str] = &[
    "openat",
    "open",
    "creat",
    "write",
    "pwrite64",
    "writev",
    "fsync",
    "fdatasync",
    "syncfs",
    "ftruncate",
    "rename",
    "renameat",
    "renameat2",
    "link",
    "linkat",
    "unlink",
    "unlinkat",
    "mkdir",
    "mkdirat",
    "rmdir",
];

thread_local! {
    /// How the commands run under strace flush their files (fsio.rs
    /// `ADJUTANT_FLUSH`): fixed, so that every run makes the same calls (by
    /// itself, adjutant chooses by how much else waits to be written).
    static FLUSH: std::cell::Cell<&'static str> = const { std::cell::Cell::new("together") };
}

/// The flush of this test's commands ([`FLUSH`]).
fn flush() -> &'static str {
    FLUSH.with(|f| f.get())
}

/// strace, or a failure saying how to install it.
fn strace() -> PathBuf {
    let found = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|dir| dir.join("strace"))
        .find(|p| p.is_file());
    found.unwrap_or_else(|| {
        panic!(
            "strace is not installed: this test kills adjutant at each of its writes with strace's fault \
             injection. Install it (Debian/Ubuntu: `apt-get install strace`; .ci/run does) and run the tests again"
        )
    })
}

/// The writes of one run of `adjutant ARGS` in `cwd`, in order: each call's
/// syscall and its number among that syscall's calls in its thread
/// (1-based, as strace's `when=` counts them: per thread). Asserts that
/// the run succeeds. A point the threads share (the first fsync of the
/// main thread and of each thread that fsyncs files together, fsio.rs
/// `sync_all_together`) is listed once: the kill there ends whichever
/// thread reaches it first, and each is a moment a kill can come.
fn writes(cwd: &Path, args: &[&str], log: &Path) -> Vec<(String, usize)> {
    let mut points = Vec::new();
    for (name, n, _) in traced_writes(cwd, args, log, 0) {
        if !points.contains(&(name.clone(), n)) {
            points.push((name, n));
        }
    }
    points
}

/// As [`writes`], with each call as strace wrote it, for a run that exits
/// with `code`.
fn traced_writes(cwd: &Path, args: &[&str], log: &Path, code: i32) -> Vec<(String, usize, String)> {
    let status = Command::new(strace())
        .args(["-f", "-o"])
        .arg(log)
        .arg(format!("-etrace={}", WRITES.join(",")))
        .arg(BIN)
        .args(args)
        .env("ADJUTANT_FLUSH", flush())
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(code), "adjutant {args:?} under strace: {status}");
    let text = std::fs::read_to_string(log).unwrap();
    let mut seen: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut found = Vec::new();
    for line in text.lines() {
        // "PID name(args) = result", the PID (the thread's) there with -f.
        let call = line.trim_start_matches(|c: char| c.is_ascii_digit()).trim_start();
        let pid = line[..line.len() - call.len()].trim().to_string();
        let Some((name, rest)) = call.split_once('(') else { continue };
        if !WRITES.contains(&name) {
            continue;
        }
        let n = seen.entry((pid, name.to_string())).or_default();
        *n += 1;
        // An open that cannot create only reads.
        if matches!(name, "openat" | "open") && !rest.contains("O_CREAT") {
            continue;
        }
        found.push((name.to_string(), *n, call.to_string()));
    }
    found
}

/// Run `adjutant ARGS` in `cwd` under strace, killed at the entry of the
/// `n`th call of `syscall`; asserts that it was killed there.
fn killed_at(cwd: &Path, args: &[&str], syscall: &str, n: usize) {
    let status = Command::new(strace())
        .args(["-f", "-o", "/dev/null"])
        .arg(format!("-etrace={syscall}"))
        .arg(format!("-einject={syscall}:signal=KILL:when={n}"))
        .arg(BIN)
        .args(args)
        .env("ADJUTANT_FLUSH", flush())
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    // strace ends itself with the signal that ended adjutant.
    assert!(
        status.signal() == Some(9) || status.code() == Some(128 + 9),
        "adjutant {args:?} was not killed at {syscall} call {n}: {status}"
    );
}

/// Run `job` on every point, on as many threads as there are cores (at
/// most 4); returns the failures.
fn each_point(points: &[(String, usize)], job: impl Fn(&str, usize) + Sync) -> Vec<String> {
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()).min(4);
    let mode = flush();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                FLUSH.with(|f| f.set(mode));
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((syscall, n)) = points.get(i) else { break };
                let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(syscall, *n)));
                if let Err(e) = outcome {
                    let message = e
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default();
                    failures.lock().unwrap().push(format!("killed at {syscall} call {n}: {message}"));
                }
            });
        }
    });
    failures.into_inner().unwrap()
}

/// How many points per syscall, in words and as a map.
fn counts(points: &[(String, usize)]) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for (syscall, _) in points {
        *counts.entry(syscall.clone()).or_default() += 1;
    }
    counts
}

#[test]
fn a_resolve_killed_at_any_write_is_finished_by_the_next_as_if_never_killed() {
    resolve_killed_at_each_write("together");
}

/// As above, each of the resolve's files fsynced (`ADJUTANT_FLUSH=each`,
/// as where other data waits to be written).
#[test]
fn a_resolve_that_fsyncs_each_file_killed_at_any_write_is_finished_by_the_next() {
    resolve_killed_at_each_write("each");
}

/// The demo's awaiting step resolved under strace, killed at each of its
/// writes in turn, its files flushed as `flush` says; the next resolve
/// ends each folder as the unkilled run did.
fn resolve_killed_at_each_write(flush_as: &'static str) {
    FLUSH.with(|f| f.set(flush_as));
    let start = Instant::now();
    let dir = temp();
    let d = dir.path();
    let base = d.join("base");
    std::fs::create_dir(&base).unwrap();
    demo_game_awaiting_resolve(&base, false);
    let args = ["resolve", "--dir", "savannah", "--format", "json"];

    // The run never killed, and the same under strace: the writes to kill at.
    let reference = d.join("reference");
    copy_dir(&base, &reference);
    let out = run(&reference, &args).ok();
    assert!(out.contains("\"reports\": \"reports/000004-000005\""), "{out}");
    run(&reference, &["verify", "--dir", "savannah"]).ok();
    let want = snapshot(&reference.join("savannah"));
    let traced = d.join("traced");
    copy_dir(&base, &traced);
    let points = writes(&traced, &args, &d.join("strace.log"));
    assert_eq!(snapshot_difference(&snapshot(&traced.join("savannah")), &want), "", "the traced run differs");
    let counts = counts(&points);
    eprintln!("resolve: {} injection points {counts:?}", points.len());
    // Every kind of write this resolve makes is there to be killed at.
    for kind in ["openat", "write", "fsync", "linkat", "mkdir"] {
        assert!(counts.get(kind).is_some_and(|&n| n > 0), "no {kind} call to kill at: {counts:?}");
    }
    assert!(counts.keys().any(|k| k.starts_with("rename")), "no rename: {counts:?}");
    assert!(counts.keys().any(|k| k.starts_with("unlink")), "no unlink: {counts:?}");
    if flush_as == "each" || !syncfs_used() {
        assert!(!counts.contains_key("syncfs"), "{counts:?}");
    } else {
        // One a thread: the step's files with the folders of the marker
        // and the orders files (the main thread), the dispatch's (its own).
        assert!(counts.get("syncfs").is_some_and(|&n| n >= 1), "the files flushed together: {counts:?}");
    }

    let killed = AtomicUsize::new(0);
    let failures = each_point(&points, |syscall, n| {
        let work = d.join(format!("kill-{syscall}-{n}"));
        copy_dir(&base, &work);
        killed_at(&work, &args, syscall, n);
        killed.fetch_add(1, Ordering::Relaxed);
        // The next command finishes what was left, as if nothing happened.
        run(&work, &args).ok();
        let differs = snapshot_difference(&snapshot(&work.join("savannah")), &want);
        assert!(differs.is_empty(), "{differs}");
        std::fs::remove_dir_all(&work).unwrap();
    });
    assert!(failures.is_empty(), "{} of {} kills:\n{}", failures.len(), points.len(), failures.join("\n"));
    // As many kills as the count said: the loop tested every point.
    assert_eq!(killed.into_inner(), points.len());
    eprintln!(
        "resolve ({flush_as}): {} kills, each followed by a resolve equal to the unkilled run, in {:?}",
        points.len(),
        start.elapsed()
    );
}

#[test]
fn a_submit_killed_at_any_write_leaves_the_old_folder_or_the_new() {
    let start = Instant::now();
    let dir = temp();
    let d = dir.path();
    let base = d.join("base");
    std::fs::create_dir(&base).unwrap();
    // A new game: the submit makes inbox/ too.
    new_demo_game(&base);
    let file = demo_orders("16-allies-movement--french");
    let args = ["submit", "--dir", "savannah", file.to_str().unwrap()];
    let old = snapshot(&base.join("savannah"));
    let reference = d.join("reference");
    copy_dir(&base, &reference);
    run(&reference, &args).ok();
    let new = snapshot(&reference.join("savannah"));
    let traced = d.join("traced");
    copy_dir(&base, &traced);
    let points = writes(&traced, &args, &d.join("strace.log"));
    assert_eq!(snapshot_difference(&snapshot(&traced.join("savannah")), &new), "");
    let counts = counts(&points);
    eprintln!("submit: {} injection points {counts:?}", points.len());
    for kind in ["openat", "write", "fsync", "mkdir"] {
        assert!(counts.get(kind).is_some_and(|&n| n > 0), "no {kind} call to kill at: {counts:?}");
    }
    // An empty inbox/ made before the kill holds nothing: adjutant reads a
    // missing inbox and an empty one alike.
    let without_empty_inbox = |mut s: BTreeMap<PathBuf, Option<Vec<u8>>>| {
        let inbox = PathBuf::from("inbox");
        if s.get(&inbox) == Some(&None) && !s.keys().any(|p| p.starts_with(&inbox) && p != &inbox) {
            s.remove(&inbox);
        }
        s
    };
    let killed = AtomicUsize::new(0);
    let failures = each_point(&points, |syscall, n| {
        let work = d.join(format!("kill-{syscall}-{n}"));
        copy_dir(&base, &work);
        killed_at(&work, &args, syscall, n);
        killed.fetch_add(1, Ordering::Relaxed);
        // A reader finishes what was left, and the folder is the old one
        // or the new one.
        run(&work, &["verify", "--dir", "savannah"]).ok();
        let now = snapshot(&work.join("savannah"));
        let was_old = snapshot_difference(&without_empty_inbox(now.clone()), &old).is_empty();
        let is_new = snapshot_difference(&now, &new).is_empty();
        assert!(was_old || is_new, "neither old nor new: {}", snapshot_difference(&now, &new));
        // The sender tries again: stored once, whichever it was (the
        // same bytes again change nothing).
        let again = run(&work, &args).ok();
        assert_eq!(again.contains("nothing changed"), !was_old, "{again}");
        assert_eq!(snapshot_difference(&snapshot(&work.join("savannah")), &new), "");
        std::fs::remove_dir_all(&work).unwrap();
    });
    assert!(failures.is_empty(), "{} of {} kills:\n{}", failures.len(), points.len(), failures.join("\n"));
    assert_eq!(killed.into_inner(), points.len());
    eprintln!("submit: {} kills in {:?}", points.len(), start.elapsed());
}

#[test]
fn a_correct_killed_at_any_write_leaves_the_old_folder_or_the_corrected_one() {
    // `adjutant correct` (docs/DICE.md A10) writes as resolve does: its
    // journal entry is the one commit point, so a kill before it leaves the
    // game uncorrected and a kill after it is finished by the next command.
    let start = Instant::now();
    let dir = temp();
    let d = dir.path();
    let base = d.join("base");
    std::fs::create_dir(&base).unwrap();
    demo_game_awaiting_resolve(&base, false);
    run(&base, &["resolve", "--dir", "savannah"]).ok();
    let args = ["correct", "--dir", "savannah", "--from", "3", "--why", "the referee stored the wrong file"];
    // The next command is `resolve`: it finishes what a killed command left
    // (a correction's reports) and then plays on as far as it can. So the
    // two outcomes are the old folder resolved on, and the corrected one.
    let settle = ["resolve", "--dir", "savannah"];
    let old_ref = d.join("old");
    copy_dir(&base, &old_ref);
    run(&old_ref, &settle);
    run(&old_ref, &["verify", "--dir", "savannah"]).ok();
    let old = snapshot(&old_ref.join("savannah"));
    let reference = d.join("reference");
    copy_dir(&base, &reference);
    assert!(run(&reference, &args).ok().contains("correction"));
    let corrected = snapshot(&reference.join("savannah"));
    run(&reference, &settle);
    run(&reference, &["verify", "--dir", "savannah"]).ok();
    let new = snapshot(&reference.join("savannah"));
    assert!(!snapshot_difference(&old, &new).is_empty(), "the correction changes the folder");
    let traced = d.join("traced");
    copy_dir(&base, &traced);
    let points = writes(&traced, &args, &d.join("strace.log"));
    assert_eq!(snapshot_difference(&snapshot(&traced.join("savannah")), &corrected), "", "the traced run differs");
    let counts = counts(&points);
    eprintln!("correct: {} injection points {counts:?}", points.len());
    for kind in ["openat", "write", "fsync", "linkat", "mkdir"] {
        assert!(counts.get(kind).is_some_and(|&n| n > 0), "no {kind} call to kill at: {counts:?}");
    }
    // The next resolve settles what was left: the folder is then the old
    // one or the corrected one, byte for byte, and verifies. Kills before
    // the journal entry leave it uncorrected, kills after it are
    // finished: both happen.
    let uncorrected = each_kill_leaves_old_or_new(d, &base, "savannah", &args, &settle, &points, (&old, &new));
    eprintln!("correct: {} kills ({uncorrected} left it uncorrected) in {:?}", points.len(), start.elapsed());
}

#[test]
fn a_correct_setting_aside_refused_orders_killed_at_any_write_leaves_the_old_folder_or_the_new() {
    // Mutual mode (docs/DICE.md A6): `correct --from` the awaited step sets
    // aside the commitments and orders files the rules refuse together.
    // They are removed after the correction's entry, the commit point: a
    // kill before it leaves them and the step as it was, a kill after it
    // is finished by the next command, which removes them (recovery.rs);
    // never a folder with the entry and the files, or the files gone and
    // no entry (the sealed step's commitments gone: a new choice).
    let start = Instant::now();
    let dir = temp();
    let d = dir.path();
    let base = d.join("base");
    std::fs::create_dir(&base).unwrap();
    let chains = common::mutual::chains();
    common::mutual::new_mutual_game(&base, &chains);
    let s = common::mutual::play_until(&base, &chains, |s| s["step"] == "16-allies-movement");
    common::mutual::refused_together(&base);
    let awaited = (s["steps_resolved"].as_u64().unwrap() + 1).to_string();
    let args = ["correct", "--dir", "g", "--from", awaited.as_str(), "--why", "orders refused together"];
    // The next command: `resolve` recovers first, then refuses the old
    // step (exit 1) or finds nothing to resolve (the commitments owed).
    let settle = ["resolve", "--dir", "g"];
    let old_ref = d.join("old");
    copy_dir(&base, &old_ref);
    run(&old_ref, &settle);
    run(&old_ref, &["verify", "--dir", "g"]).ok();
    let old = snapshot(&old_ref.join("g"));
    let reference = d.join("reference");
    copy_dir(&base, &reference);
    assert!(run(&reference, &args).ok().contains("correction"));
    let set_aside = snapshot(&reference.join("g"));
    run(&reference, &settle);
    run(&reference, &["verify", "--dir", "g"]).ok();
    let new = snapshot(&reference.join("g"));
    assert!(!snapshot_difference(&old, &new).is_empty(), "setting aside changes the folder");
    assert!(old_ref.join("g/mutual/16-allies-movement--french.commit").exists(), "the old folder keeps the commitment");
    let traced = d.join("traced");
    copy_dir(&base, &traced);
    let points = writes(&traced, &args, &d.join("strace.log"));
    assert_eq!(snapshot_difference(&snapshot(&traced.join("g")), &set_aside), "", "the traced run differs");
    let counts = counts(&points);
    eprintln!("correct (set aside): {} injection points {counts:?}", points.len());
    for kind in ["openat", "write", "fsync", "linkat", "unlink"] {
        assert!(counts.get(kind).is_some_and(|&n| n > 0), "no {kind} call to kill at: {counts:?}");
    }
    let unchanged = each_kill_leaves_old_or_new(d, &base, "g", &args, &settle, &points, (&old, &new));
    eprintln!("correct (set aside): {} kills ({unchanged} left it as it was) in {:?}", points.len(), start.elapsed());
}

/// A snapshot of a folder ([`snapshot`]).
type Snapshot = BTreeMap<PathBuf, Option<Vec<u8>>>;

/// Kill `args` at each of `points`, each in a fresh copy of `base`, then
/// run `settle` and `verify` there: the game folder `game` must be the
/// `old` or the `new` one, byte for byte. Both must happen (a kill before
/// the commit point leaves the old folder, one after it is finished): how
/// many were left old.
fn each_kill_leaves_old_or_new(
    d: &Path,
    base: &Path,
    game: &str,
    args: &[&str],
    settle: &[&str],
    points: &[(String, usize)],
    (old, new): (&Snapshot, &Snapshot),
) -> usize {
    let (killed, left_old) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let failures = each_point(points, |syscall, n| {
        let work = d.join(format!("kill-{syscall}-{n}"));
        copy_dir(base, &work);
        killed_at(&work, args, syscall, n);
        killed.fetch_add(1, Ordering::Relaxed);
        run(&work, settle);
        run(&work, &["verify", "--dir", game]).ok();
        let now = snapshot(&work.join(game));
        let was_old = snapshot_difference(&now, old).is_empty();
        assert!(was_old || snapshot_difference(&now, new).is_empty(), "{}", snapshot_difference(&now, new));
        if was_old {
            left_old.fetch_add(1, Ordering::Relaxed);
        }
        std::fs::remove_dir_all(&work).unwrap();
    });
    assert!(failures.is_empty(), "{} of {} kills:\n{}", failures.len(), points.len(), failures.join("\n"));
    assert_eq!(killed.into_inner(), points.len());
    let left_old = left_old.into_inner();
    assert!(left_old > 0 && left_old < points.len(), "{left_old} of {} left the old folder", points.len());
    left_old
}

/// A raw message from the demo game's French player.
fn french_message(body: &[u8]) -> Vec<u8> {
    let mut m = b"From: Charles <destaing@example.org>\r\nSubject: orders\r\n\r\n".to_vec();
    m.extend_from_slice(body);
    m
}

#[test]
fn a_submit_by_mail_killed_at_any_write_of_a_replacement_withdrawal_or_refusal_leaves_the_old_folder_or_the_new() {
    let start = Instant::now();
    let dir = temp();
    let d = dir.path();
    let base = d.join("base");
    std::fs::create_dir(&base).unwrap();
    new_demo_game(&base);
    run(&base, &["submit", "--dir", "savannah", demo_orders("16-set-up--british").to_str().unwrap()]).ok();
    run(&base, &["resolve", "--dir", "savannah"]).ok();
    // The French player's first orders for the movement, by mail.
    let orders = std::fs::read(demo_orders("16-allies-movement--french")).unwrap();
    run_with_input(&base, &["submit", "--dir", "savannah", "--email", "-"], &french_message(&orders)).ok();
    let mut changed = orders.clone();
    changed.extend_from_slice(b"# changed my mind\n");
    let messages: [(&str, Vec<u8>, i32); 3] = [
        ("replace", french_message(&changed), 0),
        ("withdraw", french_message(b"game: savannah-demo\nside: french\nwithdraw: 16-allies-movement\n"), 0),
        (
            "refused",
            french_message(b"game: savannah-demo\nturn: 16\nstep: allies-movement\nside: french\nmoves: 7\n"),
            1,
        ),
    ];
    for (what, message, code) in messages {
        let input = d.join(format!("{what}.eml"));
        std::fs::write(&input, &message).unwrap();
        let args = ["submit", "--dir", "savannah", "--email", input.to_str().unwrap()];
        let old = snapshot(&base.join("savannah"));
        let reference = d.join(format!("reference-{what}"));
        copy_dir(&base, &reference);
        assert_eq!(run(&reference, &args).code, code, "{what}");
        let new = snapshot(&reference.join("savannah"));
        assert!(new.keys().any(|p| p.starts_with("kept")), "{what}: nothing kept");
        let traced = d.join(format!("traced-{what}"));
        copy_dir(&base, &traced);
        let log = d.join(format!("strace-{what}.log"));
        let points: Vec<(String, usize)> = {
            let mut points = Vec::new();
            for (name, n, _) in traced_writes(&traced, &args, &log, code) {
                if !points.contains(&(name.clone(), n)) {
                    points.push((name, n));
                }
            }
            points
        };
        assert_eq!(snapshot_difference(&snapshot(&traced.join("savannah")), &new), "", "{what}");
        let killed = AtomicUsize::new(0);
        let failures = each_point(&points, |syscall, n| {
            let work = d.join(format!("kill-{what}-{syscall}-{n}"));
            copy_dir(&base, &work);
            killed_at(&work, &args, syscall, n);
            killed.fetch_add(1, Ordering::Relaxed);
            // A reader finishes or undoes what was left: the folder is the
            // old one or the new one, and verify passes.
            run(&work, &["verify", "--dir", "savannah"]).ok();
            let now = snapshot(&work.join("savannah"));
            let was_old = snapshot_difference(&now, &old).is_empty();
            let is_new = snapshot_difference(&now, &new).is_empty();
            assert!(was_old || is_new, "{what}: neither old nor new: {}", snapshot_difference(&now, &new));
            std::fs::remove_dir_all(&work).unwrap();
        });
        assert!(failures.is_empty(), "{what}: {} of {} kills:\n{}", failures.len(), points.len(), failures.join("\n"));
        assert_eq!(killed.into_inner(), points.len());
        eprintln!("submit --email ({what}): {} kills in {:?}", points.len(), start.elapsed());
        // The next message starts from the new folder.
        std::fs::remove_dir_all(&base).unwrap();
        copy_dir(&reference, &base);
    }
}

#[test]
fn a_resolve_killed_before_its_reports_verifies_and_a_deleted_dispatch_is_named() {
    let dir = temp();
    let d = dir.path();
    let base = d.join("base");
    std::fs::create_dir(&base).unwrap();
    demo_game_awaiting_resolve(&base, false);
    let args = ["resolve", "--dir", "savannah"];
    let reference = d.join("reference");
    copy_dir(&base, &reference);
    run(&reference, &args).ok();

    // Killed after its journal entries and state.yaml, as it put the
    // dispatch's folder (written ahead under a temporary name) in place:
    // its third rename, after the marker's and state.yaml's. Steps 4 and
    // 5 are committed, their reports not.
    let killed = d.join("killed");
    copy_dir(&base, &killed);
    killed_at(&killed, &args, "rename", 3);
    let game = killed.join("savannah");
    assert!(game.join("journal/000005.yaml").exists() && !game.join("reports/000004-000005").exists());
    // A published copy (no .lock: nobody writes there) verifies as it is,
    // and is not changed.
    let published = d.join("published");
    copy_dir(&game, &published);
    std::fs::remove_file(published.join(".lock")).unwrap();
    let before = snapshot(&published);
    let v = run(d, &["verify", "--dir", "published"]).ok();
    assert!(
        v.contains("5 steps and 3 rolls") && v.contains("steps 4-5 await their reports: run `adjutant resolve`"),
        "{v}"
    );
    assert_eq!(snapshot_difference(&snapshot(&published), &before), "", "a reader changed a published copy");
    // The game folder itself verifies too, its leftovers (the inbox's
    // used copies) cleared by verify first.
    let v = run(&killed, &["verify", "--dir", "savannah", "--format", "json"]).ok();
    assert!(v.contains("\"reports_pending\""), "{v}");
    assert!(std::fs::read_dir(game.join("inbox")).unwrap().next().is_none(), "the used inbox copies stay");
    // The next resolve writes the reports, as the run never killed did.
    run(&killed, &args).ok();
    assert_eq!(snapshot_difference(&snapshot(&game), &snapshot(&reference.join("savannah"))), "");

    // The same reports deleted (nothing says they are to come): named.
    let deleted = d.join("deleted");
    copy_dir(&reference.join("savannah"), &deleted);
    std::fs::remove_dir_all(deleted.join("reports/000004-000005")).unwrap();
    let v = run(d, &["verify", "--dir", "deleted"]).exits(1);
    assert!(v.contains("reports/000004-000005: reports check: missing: steps 4-5 have no reports"), "{v}");
}

#[test]
fn a_reader_of_a_copy_it_cannot_finish_says_what_is_unfinished_and_changes_nothing() {
    let dir = temp();
    let d = dir.path();
    let base = d.join("base");
    std::fs::create_dir(&base).unwrap();
    demo_game_awaiting_resolve(&base, false);
    // Killed as it renamed state.yaml into place (renames: the marker,
    // state.yaml, the dispatch): the journal has steps 4 and 5, state.yaml
    // is still the state after step 3.
    let killed = d.join("killed");
    copy_dir(&base, &killed);
    killed_at(&killed, &["resolve", "--dir", "savannah"], "rename", 2);
    let published = d.join("published");
    copy_dir(&killed.join("savannah"), &published);
    std::fs::remove_file(published.join(".lock")).unwrap();
    let before = snapshot(&published);
    let v = run(d, &["verify", "--dir", "published"]).exits(1);
    assert!(
        v.contains("state.yaml: unfinished check: state.yaml holds the state after step 3 but the journal has 5 steps"),
        "{v}"
    );
    let s = run(d, &["status", "--dir", "published"]).fails(2);
    assert!(s.contains("state.yaml holds the state after step 3"), "{s}");
    assert_eq!(snapshot_difference(&snapshot(&published), &before), "", "a reader changed a published copy");
    // Where it can write, the reader finishes the work and reads.
    let s = run(&killed, &["status", "--dir", "savannah"]).ok();
    assert!(s.contains("5 steps resolved"), "{s}");
    run(&killed, &["verify", "--dir", "savannah"]).ok();
}

#[test]
fn a_command_on_a_consistent_folder_writes_nothing_there() {
    let dir = temp();
    let d = dir.path();
    demo_game_awaiting_resolve(d, false);
    run(d, &["resolve", "--dir", "savannah"]).ok();
    let stale = demo_orders("16-allies-movement--french");
    let commands: [(&[&str], i32); 5] = [
        (&["status", "--dir", "savannah"], 0),
        (&["verify", "--dir", "savannah"], 0),
        (&["template", "--dir", "savannah", "--side", "british"], 0),
        // Refused: a step already resolved.
        (&["submit", "--dir", "savannah", stale.to_str().unwrap()], 1),
        // Nothing to resolve: the step awaits the British.
        (&["resolve", "--dir", "savannah"], 0),
    ];
    for (args, code) in commands {
        let calls = traced_writes(d, args, &d.join("strace.log"), code);
        // Only what it prints, and (for a writer) its lock file opened.
        let folder_writes: Vec<&String> = calls
            .iter()
            .map(|(_, _, call)| call)
            .filter(|call| !call.starts_with("write(1,") && !call.starts_with("write(2,"))
            .filter(|call| !(call.starts_with("openat(") && call.contains("savannah/.lock\"")))
            .collect();
        assert!(folder_writes.is_empty(), "adjutant {args:?} wrote: {folder_writes:#?}");
    }
}

#[test]
fn a_mail_killed_between_sending_and_recording_sends_that_message_again_and_no_record_is_half_written() {
    let dir = temp();
    let d = dir.path();
    demo_game_awaiting_resolve(d, false);
    let mail = ["mail", "--dir", "savannah", "--transport", "folder", "--from", "Referee <ref@example.org>"];
    // The first dispatches (the set-up's, the movement's) are mailed; then steps 4 and 5 are resolved.
    run(d, &mail).ok();
    run(d, &["resolve", "--dir", "savannah"]).ok();
    let outbox = d.join("savannah/outbox");
    let count = || std::fs::read_dir(&outbox).unwrap().count();
    assert_eq!(count(), 6);
    // Killed as it renames mailed.yaml into place with the second message
    // of the new dispatch recorded (renames: one per message): that
    // message is in the outbox, its record is not.
    killed_at(d, &mail, "rename", 2);
    assert_eq!(count(), 8);
    let mailed = std::fs::read_to_string(d.join("savannah/mailed.yaml")).unwrap();
    assert_eq!(mailed.matches("- dispatch: 000004-000005").count(), 1, "{mailed}");
    // Killed amid writing the next mailed.yaml (writes: the message, then
    // the record, per message), the French message sent a second time: the
    // file is the old one, whole.
    killed_at(d, &mail, "write", 2);
    assert_eq!(std::fs::read_to_string(d.join("savannah/mailed.yaml")).unwrap(), mailed);
    let half = std::fs::read_dir(d.join("savannah")).unwrap().any(|e| {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        name.starts_with(".tmp-") && name.ends_with("-mailed.yaml")
    });
    assert!(half, "the kill was not amid writing mailed.yaml");
    // The next mail sends what was not recorded: the French message again,
    // and the American; each recorded once.
    run(d, &mail).ok();
    let mailed = std::fs::read_to_string(d.join("savannah/mailed.yaml")).unwrap();
    for side in ["british", "french", "american"] {
        let record = format!("- dispatch: 000004-000005\n  side: {side}\n");
        assert_eq!(mailed.matches(&record).count(), 1, "{side}: {mailed}");
    }
    assert_eq!(count(), 6 + 3 + 2, "a message sent and not recorded goes again (at least once)");
    run(d, &["verify", "--dir", "savannah"]).ok();
}

#[test]
fn a_resolve_whose_disk_fills_at_any_write_is_finished_by_the_next() {
    // The disk fills at each write (ENOSPC, where a full disk says so).
    let n = resolve_failing_at_each("write", "ENOSPC", false);
    assert!(n > 10, "{n} writes");
    eprintln!("resolve: a full disk at each of its {n} writes, each finished by the next resolve");
}

/// Where the kernel flushes several files with one `syncfs` (Linux 5.8
/// on, fsio.rs `sync_filesystem_once`), a flush that fails (EIO, a disk
/// that fails to write) fails the command, and the next one finishes.
#[test]
fn a_resolve_whose_flush_of_many_files_fails_is_finished_by_the_next() {
    if !syncfs_used() {
        eprintln!("syncfs is not used before Linux 5.8");
        return;
    }
    let n = resolve_failing_at_each("syncfs", "EIO", true);
    // strace counts calls per thread: the first syncfs of the main thread
    // (the step's files, with the folders of the marker and the orders
    // files) and of the dispatch's thread (its files) fail together.
    assert!(n >= 1, "{n} syncfs calls: the step's files and the dispatch's are each flushed with one");
    eprintln!("resolve: each of its {n} syncfs calls failing, each finished by the next resolve");
}

/// Whether this kernel is one adjutant flushes files together on (Linux
/// 5.8 and later, where `syncfs` reports write errors).
fn syncfs_used() -> bool {
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let mut numbers = release.split(|c: char| !c.is_ascii_digit()).map(|n| n.parse::<u32>().unwrap_or(0));
    (numbers.next().unwrap_or(0), numbers.next().unwrap_or(0)) >= (5, 8)
}

/// A resolve of the demo's awaiting step, run once for each call of
/// `syscall` it makes with that call failing with `errno` (strace's fault
/// injection); each run ends without a panic (with a non-zero exit where
/// `fails`: a write to the terminal may fail unheeded), and the next
/// resolve ends the folder as an untroubled run does. Returns the number
/// of calls.
fn resolve_failing_at_each(syscall: &str, errno: &str, fails: bool) -> usize {
    let dir = temp();
    let d = dir.path();
    let base = d.join("base");
    std::fs::create_dir(&base).unwrap();
    demo_game_awaiting_resolve(&base, false);
    let args = ["resolve", "--dir", "savannah", "--format", "json"];
    let reference = d.join("reference");
    copy_dir(&base, &reference);
    run(&reference, &args).ok();
    let want = snapshot(&reference.join("savannah"));
    let traced = d.join("traced");
    copy_dir(&base, &traced);
    let points: Vec<(String, usize)> =
        writes(&traced, &args, &d.join("strace.log")).into_iter().filter(|(name, _)| name == syscall).collect();
    let failures = each_point(&points, |syscall, n| {
        let work = d.join(format!("fail-{syscall}-{n}"));
        copy_dir(&base, &work);
        let log = d.join(format!("fail-{syscall}-{n}.log"));
        let output = Command::new(strace())
            .args(["-f", "-o"])
            .arg(&log)
            .arg(format!("-etrace={syscall}"))
            .arg(format!("-einject={syscall}:error={errno}:when={n}"))
            .arg(BIN)
            .args(args)
            .env("ADJUTANT_FLUSH", flush())
            .current_dir(&work)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.code().is_some_and(|c| !fails || c != 0) && !stderr.contains("panicked"),
            "{}: {stderr}",
            output.status
        );
        assert!(std::fs::read_to_string(&log).unwrap().contains("(INJECTED)"), "no {errno} at {syscall} {n}");
        // The next command finishes what was left, the committed steps standing.
        run(&work, &args).ok();
        let differs = snapshot_difference(&snapshot(&work.join("savannah")), &want);
        assert!(differs.is_empty(), "{differs}");
        std::fs::remove_dir_all(&work).unwrap();
    });
    assert!(failures.is_empty(), "{} of {} {syscall} points:\n{}", failures.len(), points.len(), failures.join("\n"));
    points.len()
}
