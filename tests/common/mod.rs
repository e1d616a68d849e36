//! Runs the real `adjutant` binary, as a user would.
#![allow(dead_code)]

pub mod browser;
pub mod mutual;
pub mod smtp;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub const BIN: &str = env!("CARGO_BIN_EXE_adjutant");

/// What one run printed and how it exited.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    fn from(output: Output) -> Run {
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    /// Assert success and return standard output.
    pub fn ok(self) -> String {
        assert_eq!(
            self.code, 0,
            "expected success, got {}\nstdout:\n{}\nstderr:\n{}",
            self.code, self.stdout, self.stderr
        );
        self.stdout
    }

    /// Assert the exit status (without a panic); return all it printed.
    pub fn exits(self, code: i32) -> String {
        assert_eq!(self.code, code, "expected exit {code}\nstdout:\n{}\nstderr:\n{}", self.stdout, self.stderr);
        assert!(!self.stderr.contains("panicked"), "panic: {}", self.stderr);
        self.stdout + &self.stderr
    }

    /// Assert the exit status and that the error is one line, without a panic.
    pub fn fails(self, code: i32) -> String {
        assert_eq!(self.code, code, "expected exit {code}\nstdout:\n{}\nstderr:\n{}", self.stdout, self.stderr);
        assert!(!self.stderr.contains("panicked"), "panic: {}", self.stderr);
        self.stderr
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.stdout))
    }
}

pub fn command(cwd: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.args(args).current_dir(cwd).env_remove("NO_COLOR").stdin(Stdio::null());
    cmd
}

/// Run `adjutant ARGS` in `cwd`.
pub fn run(cwd: &Path, args: &[&str]) -> Run {
    Run::from(command(cwd, args).output().expect("the adjutant binary runs"))
}

/// Run with `input` on standard input.
pub fn run_with_input(cwd: &Path, args: &[&str], input: &[u8]) -> Run {
    use std::io::Write;
    let mut child =
        command(cwd, args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    Run::from(child.wait_with_output().unwrap())
}

/// A temporary folder that is removed at the end of the test.
pub fn temp() -> tempfile::TempDir {
    tempfile::Builder::new().prefix("adjutant-test-").tempdir().unwrap()
}

/// A small deterministic generator for test inputs (splitmix64).
pub struct Gen(pub u64);

impl Gen {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e3779b97f4a7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d049bb133111eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }

    pub fn hex32(&mut self) -> String {
        self.bytes(32).iter().map(|b| format!("{b:02x}")).collect()
    }
}

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every file under `dir` (recursively), with its bytes.
pub fn all_files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap();
                out.push((path, bytes));
            }
        }
    }
    out.sort();
    out
}

/// Give a new game folder known dice: its chain top is replaced by a fixed
/// one (and the anchor by the one it leads to), so a test can follow a
/// whole game whose every roll is fixed. Giving a game known dice twice
/// changes nothing the second time.
pub fn known_dice(game: &Path) {
    let top = "1".repeat(64);
    let chain = run(game, &["dice", "chain", "--top", &top, "--length", "4096", "--format", "json"]).json();
    let anchor = chain[0]["key"].as_str().unwrap().to_string();
    let config = std::fs::read_to_string(game.join("game.yaml")).unwrap();
    let config: String = config
        .lines()
        .map(|l| if l.starts_with("  anchor: ") { format!("  anchor: {anchor}") } else { l.to_string() })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n";
    std::fs::write(game.join("game.yaml"), config).unwrap();
    std::fs::write(game.join(".secret/chain-top"), format!("{top}\n")).unwrap();
}

/// `adjutant new` of a Historical Scenario game `club-7` in `dir/g`, with a
/// player and an address for each side, known dice (`known_dice`), and its
/// first step, the British set-up (Hist. Set Up), resolved with the
/// template's orders: the game awaits the Allied movement of turn 16.
pub fn new_historical_game(dir: &Path) {
    new_historical_game_awaiting_set_up(dir);
    known_dice(&dir.join("g"));
    resolve_set_up(dir, "g");
}

/// As `new_historical_game`, with the chain top `new` drew, the game
/// awaiting its first step: the British set-up.
pub fn new_historical_game_awaiting_set_up(dir: &Path) {
    run(
        dir,
        &[
            "new",
            "savannah-1779",
            "--scenario",
            "historical",
            "--dir",
            "g",
            "--game-id",
            "club-7",
            "--player",
            "british=Ann Prevost <ann@example.org>",
            "--player",
            "french=Charles <charles@example.org>",
            "--player",
            "american=Ben <ben@example.org>",
        ],
    )
    .ok();
}

/// Copy the folder `from` to `to`, recursively.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

/// Turn 16's first steps of the Historical Scenario game `dir/g` (made by
/// `new_historical_game`), by three `resolve` calls with orders files
/// written into `dir`: the Allied movement (Auxerrois to 1906), the French
/// mortar's fire at 1904, the Allied close combat (Auxerrois attacks 1905,
/// Prevost stands fast). Returns what each resolve printed.
pub fn play_turn_16_opening(d: &Path) -> Vec<String> {
    resolve_set_up(d, "g");
    let write = |name: &str, text: String| std::fs::write(d.join(name), text).unwrap();
    let head = |step: &str, side: &str| format!("game: club-7\nturn: 16\nstep: {step}\nside: {side}\n");
    write("f.yaml", head("allies-movement", "french") + "moves:\n  - {unit: auxerrois, to: \"1906\"}\n");
    write("a.yaml", head("allies-movement", "american") + "moves: []\n");
    write(
        "m.yaml",
        head("allies-defensive-artillery-fire", "french") + "mortars:\n  - {unit: mortar-battery, hex: \"1904\"}\n",
    );
    write(
        "cf.yaml",
        head("allies-close-combat", "french")
            + "attacks:\n  - {attackers: [auxerrois], defenders: [\"1905\"], tactics: skirmish}\n",
    );
    write("ca.yaml", head("allies-close-combat", "american"));
    write("cb.yaml", head("allies-close-combat", "british") + "defence:\n  tactics: stand-fast\n");
    vec![
        run(d, &["resolve", "--dir", "g", "f.yaml", "a.yaml"]).ok(),
        run(d, &["resolve", "--dir", "g", "m.yaml"]).ok(),
        run(d, &["resolve", "--dir", "g", "cf.yaml", "ca.yaml", "cb.yaml"]).ok(),
    ]
}

/// Hist. Set Up: resolve the Historical game `dir/game`'s first step, the
/// British set-up, with `adjutant template`'s least orders (the Loyal
/// Savannah Militia at its printed hex), if the game awaits it; returns
/// what `resolve` printed (nothing if it did not).
pub fn resolve_set_up(dir: &Path, game: &str) -> String {
    let status = run(dir, &["status", "--dir", game, "--format", "json"]).json();
    if !status["step"].as_str().is_some_and(|s| s.ends_with("-set-up")) {
        return String::new();
    }
    let text = run(dir, &["template", "--dir", game, "--side", "british"]).ok();
    let least = text.split("#\n# Your units (").next().unwrap_or(&text).to_string();
    std::fs::write(dir.join("set-up.yaml"), least).unwrap();
    run(dir, &["resolve", "--dir", game, "set-up.yaml"]).ok()
}

/// The demo's shipped orders file of a step and side, e.g.
/// `16-allies-movement--french`.
pub fn demo_orders(step_and_side: &str) -> PathBuf {
    repo_root().join("games/savannah-1779/demo/historical").join(format!("{step_and_side}.yaml"))
}

/// A new demo game in `dir/savannah` (`adjutant demo --only-new`: the
/// public chain top, so that its rolls are the demo's); returns its path.
pub fn new_demo_game(dir: &Path) -> PathBuf {
    run(dir, &["demo", "--keep", ".", "--only-new"]).ok();
    dir.join("savannah")
}

/// A demo game (`new_demo_game`) whose first steps are resolved (the
/// British set-up, the Allied movement and rally of turn 16) and whose next
/// orders are in the inbox, so that one `resolve` resolves steps 4 and 5
/// (the French mortar's fire and the Allied close combat: 3 rolls, 3 orders
/// files) and writes their dispatch; with `british_movement`, the British
/// movement's orders too, and the resolve goes on to step 8 (4 orders
/// files, 5 entries).
/// Returns the game's path.
pub fn demo_game_awaiting_resolve(dir: &Path, british_movement: bool) -> PathBuf {
    let game = new_demo_game(dir);
    let g = game.to_str().unwrap();
    run(dir, &["submit", "--dir", g, demo_orders("16-set-up--british").to_str().unwrap()]).ok();
    run(dir, &["resolve", "--dir", g]).ok();
    for file in ["16-allies-movement--french", "16-allies-movement--american"] {
        run(dir, &["submit", "--dir", g, demo_orders(file).to_str().unwrap()]).ok();
    }
    run(dir, &["resolve", "--dir", g]).ok();
    let mut next = vec![
        "16-allies-defensive-artillery-fire--french",
        "16-allies-close-combat--british",
        "16-allies-close-combat--french",
    ];
    if british_movement {
        next.push("16-british-movement--british");
    }
    for file in next {
        run(dir, &["submit", "--dir", g, demo_orders(file).to_str().unwrap()]).ok();
    }
    game
}

/// Every file and folder under `dir`, by path relative to it: a file's
/// bytes, or `None` for a folder.
pub fn snapshot(dir: &Path) -> std::collections::BTreeMap<PathBuf, Option<Vec<u8>>> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let relative = path.strip_prefix(dir).unwrap().to_path_buf();
            if path.is_dir() {
                stack.push(path);
                out.insert(relative, None);
            } else {
                out.insert(relative, Some(std::fs::read(&path).unwrap()));
            }
        }
    }
    out
}

/// What differs between two snapshots, in words (empty when none).
pub fn snapshot_difference(
    got: &std::collections::BTreeMap<PathBuf, Option<Vec<u8>>>,
    want: &std::collections::BTreeMap<PathBuf, Option<Vec<u8>>>,
) -> String {
    let mut out = Vec::new();
    for (path, bytes) in got {
        match want.get(path) {
            None => out.push(format!("{} is extra", path.display())),
            Some(w) if w != bytes => out.push(format!("{} differs", path.display())),
            _ => {}
        }
    }
    for path in want.keys().filter(|p| !got.contains_key(*p)) {
        out.push(format!("{} is missing", path.display()));
    }
    out.join("; ")
}
