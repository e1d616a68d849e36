//! The fuzz targets (issue 18; fuzz/README.md) in every `cargo test`:
//! `cargo fuzz` needs nightly and a sanitizer rebuild of every dependency,
//! too slow for the suite, so this runs each target's body
//! (`adjutant::fuzzing`) over its seeds (made here from the repository's
//! own files), every crash input kept in `fuzz/regressions/TARGET/`, and a
//! few thousand mutations of the seeds by a small seeded mutator (bit
//! flips, interesting bytes and tokens, truncations, cuts, copies,
//! splices). A panic reintroduced in any of them fails this test.
//!
//! `scripts/fuzz-seed` runs the ignored test [`write_seeds`] to write the
//! same seeds to `fuzz/corpus/TARGET/` for `cargo fuzz run`.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use adjutant::fuzzing;

const TARGETS: [&str; 6] = ["orders", "campaign_orders", "intake", "module", "module_play", "journal"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every file under `dir` whose name ends with `ext` (sorted), with its
/// path relative to `dir`.
fn files_under(dir: &Path, ext: &str) -> Vec<(String, Vec<u8>)> {
    fn walk(base: &Path, dir: &Path, ext: &str, out: &mut Vec<(String, Vec<u8>)>) {
        let Ok(read) = fs::read_dir(dir) else { return };
        let mut entries: Vec<PathBuf> = read.map(|e| e.unwrap().path()).collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(base, &path, ext, out);
            } else if path.to_string_lossy().ends_with(ext) {
                let name = path.strip_prefix(base).unwrap().to_string_lossy().replace('\\', "/");
                out.push((name, fs::read(&path).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, ext, &mut out);
    out
}

/// The demo's orders files (the Historical Scenario, turns 16 to 18).
fn demo_orders() -> Vec<(String, Vec<u8>)> {
    files_under(&root().join("games/savannah-1779/demo/historical"), ".yaml")
}

/// An email carrying `orders`: as the plain body, a YAML attachment, a
/// base64 one, or quoted-printable with format=flowed (tests/play_by_email.rs
/// and tests/hostile.rs send such).
fn email(kind: usize, orders: &[u8]) -> Vec<u8> {
    let orders = String::from_utf8_lossy(orders).replace('\n', "\r\n");
    let head = "From: Ann Smith <ann@example.org>\r\nTo: Referee <referee@example.org>\r\nSubject: Re: orders\r\n\
                Message-ID: <m1@example.org>\r\nReferences: <r0@example.org> <r1@example.org>\r\nMIME-Version: 1.0\r\n";
    let body = match kind % 4 {
        0 => format!("Content-Type: text/plain; charset=utf-8\r\n\r\n{orders}-- \r\nSent from my tent\r\n"),
        1 => format!(
            "Content-Type: multipart/mixed; boundary=\"b1\"\r\n\r\n--b1\r\nContent-Type: text/plain\r\n\r\n\
             My orders are attached.\r\n--b1\r\nContent-Type: application/yaml; name=\"orders.yaml\"\r\n\
             Content-Disposition: attachment; filename=\"orders.yaml\"\r\n\r\n{orders}\r\n--b1--\r\n"
        ),
        2 => {
            let encoded = base64(orders.as_bytes());
            format!(
                "Content-Type: multipart/mixed; boundary=\"b2\"\r\n\r\n--b2\r\nContent-Type: text/yaml\r\n\
                 Content-Transfer-Encoding: base64\r\nContent-Disposition: attachment; filename=\"o.yaml\"\r\n\r\n\
                 {encoded}\r\n--b2--\r\n"
            )
        }
        _ => format!(
            "Content-Type: text/plain; charset=utf-8; format=flowed; delsp=yes\r\n\
             Content-Transfer-Encoding: quoted-printable\r\n\r\n{}\r\n",
            orders.replace('=', "=3D")
        ),
    };
    format!("{head}{body}").into_bytes()
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for (i, chunk) in bytes.chunks(3).enumerate() {
        let n = chunk.iter().enumerate().fold(0u32, |n, (j, &b)| n | (b as u32) << (16 - 8 * j));
        for k in 0..4 {
            out.push(if k <= chunk.len() { ALPHABET[(n >> (18 - 6 * k) & 63) as usize] as char } else { '=' });
        }
        if i % 19 == 18 {
            out.push_str("\r\n");
        }
    }
    out
}

/// The journal entries of the demo game (`adjutant demo --keep`), made once.
fn demo_journal() -> &'static Vec<(String, Vec<u8>)> {
    static JOURNAL: OnceLock<Vec<(String, Vec<u8>)>> = OnceLock::new();
    JOURNAL.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let kept = dir.path().join("demo");
        let status = Command::new(env!("CARGO_BIN_EXE_adjutant"))
            .args(["demo", "--keep"])
            .arg(&kept)
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "adjutant demo --keep");
        let mut entries = files_under(&kept.join("savannah/journal"), ".yaml");
        // And a roll log's entries (`adjutant roll`), which carry dice.
        let log = dir.path().join("rolls");
        for args in [
            vec!["roll", "init", "--dir"],
            vec!["roll", "2d6", "1d10", "--purpose", "a test: 'x'", "--dir"],
            vec!["roll", "1d100", "--purpose", "\"the second\" roll", "--dir"],
        ] {
            let status = Command::new(env!("CARGO_BIN_EXE_adjutant"))
                .args(&args)
                .arg(&log)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status()
                .unwrap();
            assert!(status.success(), "adjutant {}", args.join(" "));
        }
        entries.extend(files_under(&log.join("journal"), ".yaml"));
        entries
    })
}

/// A module folder as a module archive (fuzzing::module_archive).
fn archive(dir: &Path) -> Vec<u8> {
    let files: BTreeMap<String, Vec<u8>> = files_under(dir, ".yaml").into_iter().collect();
    fuzzing::module_archive(&files)
}

/// Each target's seeds, from the repository's own files.
fn seeds(target: &str) -> Vec<Vec<u8>> {
    match target {
        "orders" => {
            let mut seeds = fuzzing::orders_seeds();
            for (_, bytes) in demo_orders() {
                let at = fuzzing::position_of(&String::from_utf8_lossy(&bytes));
                seeds.push(fuzzing::orders_input(at, &bytes));
            }
            seeds
        }
        "campaign_orders" => fuzzing::campaign_seeds(),
        "intake" => demo_orders().iter().enumerate().map(|(i, (_, bytes))| email(i, bytes)).collect(),
        // The same module patches: module_play plays what module loads.
        "module" | "module_play" => {
            let mut seeds = vec![archive(&root().join("games/savannah-1779"))];
            for (_, dir) in modules_dirs() {
                seeds.push(archive(&dir));
            }
            // A module.yaml alone.
            seeds.push(fs::read(root().join("games/savannah-1779/module.yaml")).unwrap());
            // Patches of one file on the small module (the target's base):
            // each of its files as it is (for mutations to change), each
            // file of another test module that differs from it, and one
            // file removed.
            let small = fuzzing::small_module();
            let mut patches = BTreeMap::new();
            for (_, dir) in modules_dirs() {
                for (name, bytes) in files_under(&dir, ".yaml") {
                    if small.get(&name) != Some(&bytes) {
                        patches.insert((name, bytes.clone()), ());
                    }
                }
            }
            patches.extend(small.iter().map(|(name, bytes)| ((name.clone(), bytes.clone()), ())));
            for (name, bytes) in patches.into_keys() {
                seeds.push(fuzzing::module_archive(&BTreeMap::from([(name, bytes)])));
            }
            seeds.push(b"@@ -charts/fire.yaml\n".to_vec());
            seeds
        }
        "journal" => demo_journal().iter().map(|(_, bytes)| bytes.clone()).collect(),
        other => panic!("no target {other}"),
    }
}

fn modules_dirs() -> Vec<(String, PathBuf)> {
    let mut dirs: Vec<(String, PathBuf)> = fs::read_dir(root().join("tests/modules"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), p))
        .collect();
    dirs.sort();
    dirs
}

fn run(target: &str, data: &[u8]) {
    match target {
        "orders" => fuzzing::orders(data),
        "campaign_orders" => fuzzing::campaign_orders(data),
        "intake" => fuzzing::intake(data),
        "module" => fuzzing::module_patch(data),
        "module_play" => fuzzing::module_play_patch(data),
        "journal" => {
            if let Err(bug) = fuzzing::journal(data) {
                panic!("{bug}");
            }
        }
        other => panic!("no target {other}"),
    }
}

/// Run `target` on `data`, naming the input when it panics.
fn run_named(target: &str, what: &str, data: &[u8]) {
    let result = std::panic::catch_unwind(|| run(target, data));
    if result.is_err() {
        let kept = std::env::temp_dir().join(format!("adjutant-fuzz-{target}-crash"));
        let _ = fs::write(&kept, data);
        panic!(
            "fuzz target {target} panicked on {what} (written to {}; keep it in fuzz/regressions/{target}/ once fixed)",
            kept.display()
        );
    }
}

/// A small deterministic mutator (xorshift64*).
struct Mutator(u64);

impl Mutator {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    /// One to four changes to `input`; `other` is another seed to splice in.
    fn mutate(&mut self, input: &[u8], other: &[u8]) -> Vec<u8> {
        const TOKENS: [&[u8]; 18] = [
            b"\n",
            b": ",
            b"- ",
            b"{",
            b"}",
            b"[",
            b"]",
            b"'",
            b"\"",
            b"&a ",
            b"*a",
            b"!!str ",
            b"\t",
            b"#",
            b"@@ ",
            b"\r\n\r\n",
            b"--b1\r\n",
            b"=?utf-8?b?w6k=?=",
        ];
        const BYTES: [u8; 8] = [0, 0xff, 0x7f, 0x80, b'0', b'9', b'-', 0xc3];
        let mut data = input.to_vec();
        for _ in 0..1 + self.below(4) {
            let len = data.len();
            match self.below(8) {
                0 if len > 0 => {
                    let i = self.below(len);
                    data[i] ^= 1 << self.below(8);
                }
                1 if len > 0 => {
                    let i = self.below(len);
                    data[i] = BYTES[self.below(BYTES.len())];
                }
                2 => {
                    let token = TOKENS[self.below(TOKENS.len())];
                    let i = self.below(len + 1);
                    data.splice(i..i, token.iter().copied());
                }
                3 => data.truncate(self.below(len + 1)),
                4 if len > 0 => {
                    let a = self.below(len);
                    let b = (a + 1 + self.below(64)).min(len);
                    data.drain(a..b);
                }
                5 if len > 0 => {
                    let a = self.below(len);
                    let b = (a + 1 + self.below(64)).min(len);
                    let copy: Vec<u8> = data[a..b].to_vec();
                    let at = self.below(len + 1);
                    data.splice(at..at, copy);
                }
                6 if !other.is_empty() => {
                    let a = self.below(other.len());
                    let b = (a + 1 + self.below(256)).min(other.len());
                    let at = self.below(len + 1);
                    let end = (at + self.below(256)).min(len);
                    data.splice(at..end, other[a..b].iter().copied());
                }
                _ if len > 0 => {
                    // A digit run: numbers at their edges.
                    let i = self.below(len);
                    let n: &[u8] = [&b"4294967296"[..], b"-1", b"99999999999999999999", b"0"][self.below(4)];
                    data.splice(i..i, n.iter().copied());
                }
                _ => data.push(b'\n'),
            }
        }
        data
    }
}

/// How many mutations each target gets: a few thousand in all, in a few
/// seconds (the module target loads a whole module per input).
fn mutations(target: &str) -> usize {
    match target {
        "module" => 60,
        "module_play" => 20,
        "orders" | "campaign_orders" => 1000,
        _ => 2000,
    }
}

fn check_target(target: &str) {
    let seeds = seeds(target);
    assert!(seeds.len() >= 3, "{target}: seeds are made from the repository's files ({})", seeds.len());
    for (i, seed) in seeds.iter().enumerate() {
        run_named(target, &format!("seed {i}"), seed);
    }
    let kept = files_under(&root().join("fuzz/regressions").join(target), "");
    for (name, bytes) in &kept {
        run_named(target, &format!("fuzz/regressions/{target}/{name}"), bytes);
    }
    // The module target's mutations start from the small test modules and
    // module.yaml (the whole Savannah module is slow in a debug build).
    let bases: Vec<&Vec<u8>> =
        if target.starts_with("module") { seeds.iter().skip(1).collect() } else { seeds.iter().collect() };
    let mut mutator = Mutator(0x9E37_79B9_7F4A_7C15 ^ target.len() as u64);
    for n in 0..mutations(target) {
        let base = bases[mutator.below(bases.len())];
        let other = bases[mutator.below(bases.len())];
        let data = mutator.mutate(base, other);
        run_named(target, &format!("mutation {n}"), &data);
    }
}

#[test]
fn orders_target_survives_its_corpus() {
    let p = fuzzing::positions().expect("the Historical Scenario plays");
    assert!(p.states.len() >= 10, "several steps of the Historical Scenario ({})", p.states.len());
    check_target("orders");
}

#[test]
fn campaign_orders_target_survives_its_corpus() {
    let games = fuzzing::campaign_positions().expect("each campaign's self-play game plays again");
    assert_eq!(games.len(), fuzzing::CAMPAIGN_GAMES.len());
    for (game, (module, ..)) in games.iter().zip(fuzzing::CAMPAIGN_GAMES) {
        assert!(game.states.len() >= 20, "{module}: steps that took orders ({})", game.states.len());
    }
    // The kinds of step whose orders the Historical Scenario never asks
    // for are reached: siege works, siege and bombardment, random events,
    // and the AWI's operations and battles.
    let kinds: std::collections::BTreeSet<String> = games
        .iter()
        .flat_map(|g| g.states.iter().filter_map(|(state, _)| state.next_step()))
        .map(|s| s.field.trim_end_matches(|c: char| c.is_ascii_digit()).to_string())
        .collect();
    for kind in
        ["construct-siege-works", "siege-and-bombardment", "random-events", "american-operations", "british-battle-"]
    {
        assert!(kinds.contains(kind), "{kind} among {kinds:?}");
    }
    check_target("campaign_orders");
}

#[test]
fn intake_target_survives_its_corpus() {
    check_target("intake");
}

#[test]
fn module_target_survives_its_corpus() {
    check_target("module");
}

#[test]
fn module_play_target_survives_its_corpus() {
    check_target("module_play");
}

#[test]
fn journal_target_survives_its_corpus() {
    check_target("journal");
}

#[test]
fn a_module_archive_reads_back_as_its_files() {
    let mut files = BTreeMap::new();
    files.insert("module.yaml".to_string(), b"id: x\n".to_vec());
    files.insert("charts/fire.yaml".to_string(), b"a: 1".to_vec());
    let data = fuzzing::module_archive(&files);
    assert_eq!(data, b"@@ charts/fire.yaml\na: 1\n@@ module.yaml\nid: x\n");
    let back = fuzzing::module_files(&data);
    assert_eq!(back.get("charts/fire.yaml").map(Vec::as_slice), Some(&b"a: 1\n"[..]));
    assert_eq!(back.get("module.yaml").map(Vec::as_slice), Some(&b"id: x\n"[..]));
    // Bytes before the first mark are module.yaml; a file that is not YAML is left out.
    let back = fuzzing::module_files(b"id: y\n@@ notes.txt\nhello\n");
    assert_eq!(back.keys().collect::<Vec<_>>(), ["module.yaml"]);
    // The Savannah module read back is the module: check-game finds it sound.
    let seeds = seeds("module");
    assert!(fuzzing::module_files(&seeds[0]).len() > 50);
}

#[test]
fn journal_seeds_are_canonical_entries() {
    // The target's checks are reached: the demo's entries parse.
    let entries = demo_journal();
    assert!(entries.len() >= 20, "the demo's journal ({})", entries.len());
    for (name, bytes) in entries {
        let text = std::str::from_utf8(bytes).unwrap();
        let (entry, _) = adjutant::game::journal::parse_entry(name, text).unwrap();
        assert_eq!(entry.to_yaml(), text, "{name}");
    }
}

/// `scripts/fuzz-seed`: write every target's seeds to
/// `$FUZZ_CORPUS/TARGET/` (default `fuzz/corpus/`) for `cargo fuzz run`.
#[test]
#[ignore]
fn write_seeds() {
    let out = std::env::var_os("FUZZ_CORPUS").map(PathBuf::from).unwrap_or_else(|| root().join("fuzz/corpus"));
    for target in TARGETS {
        let dir = out.join(target);
        fs::create_dir_all(&dir).unwrap();
        let seeds = seeds(target);
        for (i, seed) in seeds.iter().enumerate() {
            fs::write(dir.join(format!("seed-{i:03}")), seed).unwrap();
        }
        println!("{}: {} seeds", dir.display(), seeds.len());
    }
}

#[test]
fn a_module_patch_replaces_adds_and_removes_files_of_the_small_module() {
    // The embedded base is the test module as it is on disk.
    let on_disk: BTreeMap<String, Vec<u8>> =
        files_under(&root().join("tests/modules/small"), ".yaml").into_iter().collect();
    assert_eq!(fuzzing::small_module(), &on_disk);
    let base = fuzzing::small_module();
    let patch = b"@@ charts/fire.yaml\na: 1\n@@ extra/new.yaml\nb: 2\n@@ -charts/mortar.yaml\n";
    let files = fuzzing::patched(base, patch);
    assert_eq!(files.get("charts/fire.yaml").map(Vec::as_slice), Some(&b"a: 1\n"[..]));
    assert_eq!(files.get("extra/new.yaml").map(Vec::as_slice), Some(&b"b: 2\n"[..]));
    assert!(base.contains_key("charts/mortar.yaml") && !files.contains_key("charts/mortar.yaml"));
    assert_eq!(files.get("map.yaml"), base.get("map.yaml"), "a file the patch does not name stays");
    assert_eq!(files.len(), base.len());
    // Bytes before the first mark replace module.yaml; none leave it.
    assert_eq!(fuzzing::patched(base, b"id: x\n").get("module.yaml").map(Vec::as_slice), Some(&b"id: x\n"[..]));
    assert_eq!(fuzzing::patched(base, b"").get("module.yaml"), base.get("module.yaml"));
}
