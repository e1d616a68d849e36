//! The README is always true: every command example in it runs as written.
//!
//! Every fenced block whose info string is `sh` is read as commands (a line
//! ending in `\` continues on the next; a here-document runs to its end
//! word), and the commands run in order, each with `bash -c`, in one scratch
//! folder that holds a copy of the checkout (without `target/` and `.git/`):
//! the README's commands are written to run from a checkout's root, as a
//! newcomer runs them. `adjutant` is the binary this test suite built.
//!
//! A command must exit 0, unless its comment says otherwise with the words
//! `exits N` (`adjutant validate --dir g bad.yaml   # exits 1: ...`).
//!
//! Three commands cannot run inside this test as written, so a shim stands
//! in for each and checks what it can:
//! - `cargo run [--release] -- ARGS` runs `adjutant ARGS` (the same code,
//!   already built);
//! - `cargo test` is this suite itself: the shim checks that `.ci/run` runs
//!   exactly it;
//! - `cargo bench --bench NAME` builds a release and measures for minutes:
//!   the shim checks that NAME is a `[[bench]]` of Cargo.toml with its file;
//! - `cargo install --path .` builds a release too: the shim checks that
//!   the folder is this crate with its binary, and that the release
//!   profile strips it (the README says so).
//! - `man -l PAGE` checks that the page exists (man may not be installed).
//!
//! Any other `cargo` or `man` use fails the test, so a new kind of example
//! gets a decision here rather than a silent pass.

mod common;
use common::*;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One command of the README, with the line it starts on.
#[derive(Debug)]
struct Example {
    line: usize,
    text: String,
    expect: i32,
}

/// The commands of every `sh` block, in order.
fn examples(readme: &str) -> Vec<Example> {
    let mut out = Vec::new();
    let mut lines = readme.lines().enumerate().peekable();
    while let Some((_, line)) = lines.next() {
        if line.trim_end() != "```sh" {
            continue;
        }
        while let Some((n, line)) = lines.next() {
            if line.trim_end() == "```" {
                break;
            }
            if line.trim().is_empty() || line.trim_start().starts_with('#') {
                continue;
            }
            let mut text = line.to_string();
            // Continuation lines.
            while text.trim_end().ends_with('\\') {
                let Some((_, more)) = lines.next() else { break };
                text.push('\n');
                text.push_str(more);
            }
            // A here-document runs to its end word.
            if let Some(word) = heredoc_word(&text) {
                for (_, more) in lines.by_ref() {
                    text.push('\n');
                    text.push_str(more);
                    if more.trim() == word {
                        break;
                    }
                }
            }
            let expect = expected_status(&text);
            out.push(Example { line: n + 1, text, expect });
        }
    }
    out
}

/// The end word of a here-document started on this line (`<<'EOF'`, `<<EOF`).
fn heredoc_word(text: &str) -> Option<String> {
    let at = text.find("<<")?;
    let rest = text[at + 2..].trim_start_matches('-').trim_start();
    let word: String =
        rest.trim_matches(|c| c == '\'' || c == '"').chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
    (!word.is_empty()).then_some(word)
}

/// `exits N` in the command's comment, else 0.
fn expected_status(text: &str) -> i32 {
    let Some(comment) = text.lines().next().and_then(|l| l.split_once(" # ")).map(|(_, c)| c) else { return 0 };
    let words: Vec<&str> = comment.split_whitespace().collect();
    words
        .windows(2)
        .find(|w| w[0] == "exits")
        .and_then(|w| w[1].trim_end_matches([':', ',', ';', '.']).parse().ok())
        .unwrap_or(0)
}

/// Copy the checkout into `to`, without build output or history.
fn copy_checkout(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name == "target" || name == ".git" {
            continue;
        }
        let target = to.join(&name);
        if path.is_dir() {
            copy_checkout(&path, &target);
        } else {
            fs::copy(&path, &target).unwrap();
        }
    }
}

const CARGO_SHIM: &str = r#"#!/usr/bin/env bash
# tests/readme.rs's stand-in for cargo (see the test's opening comment).
set -euo pipefail
case "${1:-}" in
  run)
    shift
    [ "${1:-}" = "--release" ] && shift
    [ "${1:-}" = "--" ] && shift
    exec adjutant "$@" ;;
  test)
    [ $# -eq 1 ] || { echo "cargo shim: only a bare 'cargo test' is known" >&2; exit 97; }
    grep -qx 'cargo test' .ci/run || { echo "cargo shim: .ci/run does not run 'cargo test'" >&2; exit 97; }
    exit 0 ;;
  install)
    [ "$*" = "install --path ." ] || { echo "cargo shim: only 'cargo install --path .' is known" >&2; exit 97; }
    grep -q '^name = "adjutant"' Cargo.toml && [ -f src/main.rs ] || { echo "cargo shim: no adjutant crate here" >&2; exit 97; }
    grep -A3 '^\[profile.release\]' Cargo.toml | grep -qx 'strip = true' || { echo "cargo shim: the release profile does not strip" >&2; exit 97; }
    exit 0 ;;
  bench)
    [ "${2:-}" = "--bench" ] && [ -n "${3:-}" ] || { echo "cargo shim: write cargo bench --bench NAME" >&2; exit 97; }
    grep -q "^name = \"$3\"" Cargo.toml && [ -f "benches/$3.rs" ] || { echo "cargo shim: no bench $3" >&2; exit 97; }
    exit 0 ;;
esac
echo "cargo shim: tests/readme.rs does not know 'cargo $*'" >&2
exit 97
"#;

const MAN_SHIM: &str = r#"#!/usr/bin/env bash
# tests/readme.rs's stand-in for man -l: the page must exist.
[ "${1:-}" = "-l" ] && [ -f "${2:-}" ] || { echo "man shim: no page ${2:-}" >&2; exit 97; }
"#;

fn shim(bin: &Path, name: &str, text: &str) {
    let path = bin.join(name);
    fs::write(&path, text).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
    }
}

#[test]
fn every_command_in_the_readme_runs_as_written() {
    let readme = fs::read_to_string(repo_root().join("README.md")).unwrap();
    let examples = examples(&readme);
    assert!(examples.len() >= 30, "only {} commands found in README.md's sh blocks", examples.len());

    let dir = temp();
    let checkout = dir.path().join("adjutant");
    copy_checkout(&repo_root(), &checkout);
    let bin = dir.path().join("bin");
    fs::create_dir(&bin).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(BIN, bin.join("adjutant")).unwrap();
    shim(&bin, "cargo", CARGO_SHIM);
    shim(&bin, "man", MAN_SHIM);
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let home: PathBuf = dir.path().join("home");
    fs::create_dir(&home).unwrap();

    for example in &examples {
        let start = std::time::Instant::now();
        let output = Command::new("bash")
            .args(["-o", "pipefail", "-c", &example.text])
            .current_dir(&checkout)
            .env("PATH", &path)
            .env("HOME", &home)
            .env_remove("NO_COLOR")
            .env_remove("CARGO_TARGET_DIR")
            .output()
            .unwrap();
        // Shown with --nocapture: which examples make this test slow.
        eprintln!("{:>6} ms  README.md line {}", start.elapsed().as_millis(), example.line);
        let code = output.status.code().unwrap_or(-1);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            code == example.expect,
            "README.md line {}: `{}` exited {code}, the README says {}\nstdout:\n{}\nstderr:\n{stderr}",
            example.line,
            example.text,
            example.expect,
            String::from_utf8_lossy(&output.stdout),
        );
        assert!(!stderr.contains("panicked"), "README.md line {}: a panic: {stderr}", example.line);
    }
}

#[test]
fn the_example_reader_finds_continuations_heredocs_and_statuses() {
    let text = "x\n```sh\n# a comment\nadjutant a \\\n  --b c   # note\n\ncat > f <<'EOF'\nx: 1\nEOF\nadjutant v f   # exits 1: refused\n```\n```yaml\nnot: run\n```\n";
    let found = examples(text);
    let texts: Vec<&str> = found.iter().map(|e| e.text.as_str()).collect();
    assert_eq!(
        texts,
        ["adjutant a \\\n  --b c   # note", "cat > f <<'EOF'\nx: 1\nEOF", "adjutant v f   # exits 1: refused"]
    );
    assert_eq!(found.iter().map(|e| (e.line, e.expect)).collect::<Vec<_>>(), [(4, 0), (7, 0), (10, 1)]);
}
