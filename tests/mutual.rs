//! Mutual mode (DICE.md §7) in a game folder, played through the CLI: a
//! Historical Scenario game of three players, one of them (British) the
//! referee, each holding a key chain the folder never sees. Before the last
//! key of a rolling step arrives, the referee's `resolve` refuses it and no
//! file of the folder holds that key; `verify` passes at the end, and the
//! Python reference recomputes every roll from the folder alone.

mod common;
use common::*;

use std::path::Path;
use std::process::Command;

use adjutant::base::dice::{chain, Bytes32};
use serde_json::Value;

/// A player's chain: its top and keys p_0 ..= p_M (DICE.md 7.1).
struct PlayerChain {
    label: &'static str,
    top: Bytes32,
    keys: Vec<Bytes32>,
}

const M: u32 = 64;

fn chains() -> Vec<PlayerChain> {
    ["american", "british", "french"]
        .into_iter()
        .map(|label| {
            let top = Bytes32::sha256(format!("mutual test {label} top").as_bytes());
            PlayerChain { label, top, keys: chain(&top, M) }
        })
        .collect()
}

fn new_mutual_game(d: &Path, chains: &[PlayerChain]) {
    let british = format!("british={}:{M}", chains[1].keys[0].to_hex());
    run(
        d,
        &[
            "new",
            "savannah-1779",
            "--scenario",
            "historical",
            "--dir",
            "g",
            "--mode",
            "mutual",
            "--anchor",
            &british,
            "--player",
            "british=Referee <ref@example.org>",
            "--player",
            "french=Fanny <fanny@example.org>",
            "--player",
            "american=Abe <abe@example.org>",
        ],
    )
    .ok();
    for c in [&chains[2], &chains[0]] {
        run(d, &["join", "--dir", "g", &format!("{}={}:{M}", c.label, c.keys[0].to_hex())]).ok();
    }
}

fn status(d: &Path) -> Value {
    run(d, &["status", "--dir", "g", "--format", "json"]).json()
}

/// `adjutant template`'s least orders for a side (they validate as printed).
fn least_orders(d: &Path, side: &str) -> String {
    let text = run(d, &["template", "--dir", "g", "--side", side]).ok();
    text.split("#\n# Your units (").next().unwrap_or(&text).to_string()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array().map(|a| a.iter().map(|s| s.as_str().unwrap().to_string()).collect()).unwrap_or_default()
}

/// Every file of the folder, as bytes: what the referee's process can read.
fn folder_bytes(game: &Path) -> Vec<u8> {
    all_files(game).into_iter().flat_map(|(_, bytes)| bytes).collect()
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    memchr::memmem::find(haystack, needle.as_bytes()).is_some()
}

#[test]
fn a_three_player_game_in_mutual_mode() {
    let dir = temp();
    let d = dir.path();
    let chains = chains();
    new_mutual_game(d, &chains);
    let game = d.join("g");
    let yaml = std::fs::read_to_string(game.join("game.yaml")).unwrap();
    assert!(yaml.contains("mode: mutual"), "{yaml}");
    for c in &chains {
        assert!(yaml.contains(&c.keys[0].to_hex()), "{} anchor recorded", c.label);
    }
    // Anchors are taken before step 1 only, once per side.
    let again = run(d, &["join", "--dir", "g", &format!("french={}", chains[2].keys[0].to_hex())]).fails(1);
    assert!(again.contains("held already"), "{again}");

    let mut rolling_steps = 0;
    let mut committed_steps = 0;
    let mut key_with_orders = false;
    let mut checked_secrecy = false;
    let mut early_key_refused = false;
    for _ in 0..400 {
        let s = status(d);
        // Three turns (16 to 18) make the point and keep the test short.
        if s["step"].is_null() || !s["result"].is_null() || s["step"].as_str().unwrap().starts_with("19-") {
            break;
        }
        let step = s["step"].as_str().unwrap().to_string();
        let w = &s["mutual"];
        let awaiting = strings(&s["awaiting"]);
        let j = w["rolling_step"].as_u64().unwrap() as usize;
        // Orders, each committed first when the step hears from more than
        // one player (7.6).
        let orders_owed = strings(&w["orders_owed"]);
        if !orders_owed.is_empty() {
            let files: Vec<(String, String)> = awaiting
                .iter()
                .map(|side| {
                    let name = format!("{step}--{side}.yaml");
                    std::fs::write(d.join(&name), least_orders(d, side)).unwrap();
                    (side.clone(), name)
                })
                .collect();
            if !strings(&w["commitments_owed"]).is_empty() {
                committed_steps += 1;
                // No file is taken before every commitment is in.
                let early = run(d, &["submit", "--dir", "g", &files[0].1]).fails(1);
                assert!(early.contains("commitment"), "{early}");
                for (side, name) in &files {
                    let hash = Bytes32::sha256(&std::fs::read(d.join(name)).unwrap()).to_hex();
                    let message = format!("game: g\nside: {side}\nstep: {step}\ncommit: {hash}\n");
                    std::fs::write(d.join("commit.yaml"), message).unwrap();
                    let receipt = run(d, &["submit", "--dir", "g", "commit.yaml"]).ok();
                    assert!(receipt.contains(&hash), "{receipt}");
                }
                // A file that is not the one committed to is refused; the
                // commitment stands.
                std::fs::write(d.join("other.yaml"), format!("{}\n# changed\n", least_orders(d, &files[0].0))).unwrap();
                let wrong = run(d, &["submit", "--dir", "g", "other.yaml"]).fails(1);
                assert!(wrong.contains("not to") && wrong.contains("commitment stands"), "{wrong}");
            }
            for (n, (side, name)) in files.iter().enumerate() {
                if !early_key_refused && n + 1 < files.len() {
                    // A key before the step is sealed is refused, not stored (7.3).
                    let label = chains.iter().find(|c| c.label == side).map(|c| c.label).unwrap();
                    let p = chains.iter().find(|c| c.label == label).unwrap().keys[j].to_hex();
                    std::fs::write(d.join("key.yaml"), format!("game: g\nplayer: {label}\nkey: {p}\n")).unwrap();
                    let early = run(d, &["submit", "--dir", "g", "key.yaml"]).fails(1);
                    assert!(early.contains("not sealed"), "{early}");
                    assert!(!contains(&folder_bytes(&game), &p), "a key refused is not stored");
                    early_key_refused = true;
                }
                if n + 1 == files.len() && rolling_steps >= 1 && !key_with_orders {
                    // The last orders file of a step carries its sender's key
                    // (7.3): the file seals the step, then the key is taken.
                    let p = chains.iter().find(|c| c.label == side).unwrap().keys[j].to_hex();
                    let out = run(d, &["submit", "--dir", "g", name, "--key", &p]);
                    let text = out.stdout.clone() + &out.stderr;
                    if out.code == 0 {
                        assert!(text.contains(&format!("key p_{j} of {side}")), "{text}");
                        key_with_orders = true;
                    } else {
                        // The step rolls no die: the orders stand, the key is refused.
                        assert!(out.code == 1 && text.contains("rolls no die"), "{text}");
                    }
                    continue;
                }
                run(d, &["submit", "--dir", "g", name]).ok();
            }
        }
        let s = status(d);
        let w = &s["mutual"];
        assert_eq!(w["sealed"], true, "{s}");
        if w["rolls"] == true {
            rolling_steps += 1;
            let owed = strings(&w["keys_owed"]);
            assert!(owed.len() >= 2, "{w}");
            // The referee's key first; the last key, a player's who is not the referee.
            let order: Vec<&str> =
                ["british", "american", "french"].into_iter().filter(|l| owed.iter().any(|o| o == l)).collect();
            for (n, label) in order.iter().enumerate() {
                let c = chains.iter().find(|c| &c.label == label).unwrap();
                let p = c.keys[j].to_hex();
                if n + 1 == order.len() {
                    // Before the last key: resolve refuses and names it...
                    let refused = run(d, &["resolve", "--dir", "g"]).exits(1);
                    assert!(refused.contains(&format!("awaits key p_{j} from {label}")), "{refused}");
                    let st = run(d, &["status", "--dir", "g"]).ok();
                    assert!(st.contains(&format!("awaiting key p_{j} from {label}")), "{st}");
                    // ...and nothing in the folder holds it or the chain it
                    // comes from: the seed is not determined by any file.
                    let bytes = folder_bytes(&game);
                    assert!(!contains(&bytes, &p) && !contains(&bytes, &c.top.to_hex()));
                    for later in &c.keys[j..] {
                        assert!(!contains(&bytes, &later.to_hex()));
                    }
                    checked_secrecy = true;
                    // A key out of order (p_{j+1}) is refused.
                    let ahead = c.keys[j + 1].to_hex();
                    std::fs::write(d.join("key.yaml"), format!("game: g\nplayer: {label}\nkey: {ahead}\n")).unwrap();
                    let wrong = run(d, &["submit", "--dir", "g", "key.yaml"]).fails(1);
                    assert!(wrong.contains("strictly in order"), "{wrong}");
                }
                std::fs::write(d.join("key.yaml"), format!("game: g\nplayer: {label}\nkey: {p}\n")).unwrap();
                run(d, &["submit", "--dir", "g", "key.yaml"]).ok();
            }
        }
        let out = run(d, &["resolve", "--dir", "g"]);
        if out.code != 0 {
            // It stopped at a later step that rolls and awaits keys.
            let text = out.exits(1);
            assert!(text.contains("awaits key"), "{text}");
        }
    }
    assert!(status(d)["step"].as_str().is_some_and(|s| s.starts_with("19-")), "three turns played");
    assert!(rolling_steps >= 2 && committed_steps >= 2, "{rolling_steps} rolling steps, {committed_steps} committed");
    assert!(
        checked_secrecy && early_key_refused && key_with_orders,
        "{checked_secrecy} {early_key_refused} {key_with_orders}"
    );

    let verdict = run(d, &["verify", "--dir", "g", "--format", "json"]).json();
    assert_eq!(verdict["ok"], true, "{verdict}");
    // Published (issue 17): the copy verifies, as a folder and as a
    // .tar.gz, and holds no player's chain top nor any key not yet revealed.
    run(d, &["publish", "--dir", "g", "published"]).ok();
    run(d, &["publish", "--dir", "g", "published.tar.gz"]).ok();
    let from_tarball = run(d, &["verify", "published.tar.gz", "--format", "json"]).json();
    assert_eq!((from_tarball["ok"].clone(), from_tarball["steps"].clone()), (true.into(), verdict["steps"].clone()));
    for (path, bytes) in common::all_files(&d.join("published")) {
        for c in &chains {
            assert!(!contains(&bytes, &c.top.to_hex()), "{} holds a chain top", path.display());
        }
        assert!(!contains(&bytes, "@example.org"), "{} holds an address", path.display());
    }
    // The Python reference, from the published folder alone.
    let out = Command::new("python3")
        .arg(repo_root().join("tests/reference/dice_ref.py"))
        .arg("--verify-folder")
        .arg(d.join("published"))
        .output()
        .expect("python3 runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    let expected = format!(
        "ok {} steps, {} rolls, {} rolling steps with 3 players' keys",
        verdict["steps"], verdict["rolls"], rolling_steps
    );
    assert_eq!(text.trim(), expected);

    // A player's key changed in the journal is caught by verify (7.5).
    let copy = d.join("forged");
    copy_dir(&game, &copy);
    let journal = copy.join("journal");
    let mut names: Vec<_> = std::fs::read_dir(&journal).unwrap().map(|e| e.unwrap().path()).collect();
    names.sort();
    let rolled = names
        .iter()
        .find(|p| std::fs::read_to_string(p).unwrap().contains("player_keys:"))
        .expect("a rolling step")
        .clone();
    let text = std::fs::read_to_string(&rolled).unwrap();
    let french = chains[2].keys[1].to_hex();
    assert!(text.contains(&french), "the first rolling step holds p_1 of french");
    std::fs::write(&rolled, text.replace(&french, &chains[2].keys[2].to_hex())).unwrap();
    let forged = run(d, &["verify", "--dir", "forged", "--format", "json"]);
    let verdict = forged.json();
    assert_eq!(verdict["ok"], false, "{verdict}");

    // A commitment changed in the journal is named by verify (7.6).
    let copy = d.join("forged-commitment");
    copy_dir(&game, &copy);
    let committed = names
        .iter()
        .map(|p| copy.join("journal").join(p.file_name().unwrap()))
        .find(|p| std::fs::read_to_string(p).unwrap().contains("commitments:"))
        .expect("a step with commitments");
    let text = std::fs::read_to_string(&committed).unwrap();
    let at = text.find("commitments:").unwrap();
    let sha = text[at..].find("sha256: ").unwrap() + at + "sha256: ".len();
    let mut forged_text = text.clone();
    forged_text.replace_range(sha..sha + 64, &"a".repeat(64));
    std::fs::write(&committed, forged_text).unwrap();
    let verdict = run(d, &["verify", "--dir", "forged-commitment", "--format", "json"]).json();
    assert_eq!(verdict["ok"], false, "{verdict}");
    let failure = verdict.to_string();
    assert!(failure.contains("not to its commitment"), "{failure}");
}

#[test]
fn new_refuses_a_chain_too_short_and_bad_labels() {
    let dir = temp();
    let d = dir.path();
    let anchor = Bytes32::sha256(b"x").to_hex();
    let new = |extra: &[&str]| {
        let mut args = vec!["new", "savannah-1779", "--scenario", "historical", "--dir", "g", "--mode", "mutual"];
        args.extend_from_slice(extra);
        run(d, &args)
    };
    let short = new(&["--anchor", &format!("british={anchor}:8")]).fails(2);
    assert!(short.contains("serves 7 steps") && short.contains("no rollover"), "{short}");
    let unsorted = new(&["--anchor", &format!("french+american={anchor}")]).fails(2);
    assert!(unsorted.contains("american+french"), "{unsorted}");
    let twice =
        new(&["--anchor", &format!("british={anchor}"), "--anchor", &format!("british+french={anchor}")]).fails(2);
    assert!(twice.contains("given twice"), "{twice}");
    let referee = run(
        d,
        &["new", "savannah-1779", "--scenario", "historical", "--dir", "g", "--anchor", &format!("british={anchor}")],
    )
    .fails(2);
    assert!(referee.contains("--mode mutual"), "{referee}");
    assert!(!d.join("g").exists(), "nothing was made");
    // A referee-mode game takes no key with its orders, and stores nothing.
    new_historical_game_awaiting_set_up(d);
    std::fs::write(d.join("set-up.yaml"), least_orders(d, "british")).unwrap();
    let before = snapshot(&d.join("g"));
    let key = run(d, &["submit", "--dir", "g", "set-up.yaml", "--key", &anchor]).fails(2);
    assert!(key.contains("referee mode"), "{key}");
    assert!(snapshot_difference(&before, &snapshot(&d.join("g"))).is_empty());
}

#[test]
fn a_mutual_game_waits_for_every_anchor_and_takes_no_files_on_resolve() {
    let dir = temp();
    let d = dir.path();
    let chains = chains();
    let british = format!("british={}:{M}", chains[1].keys[0].to_hex());
    run(
        d,
        &[
            "new",
            "savannah-1779",
            "--scenario",
            "historical",
            "--dir",
            "g",
            "--mode",
            "mutual",
            "--anchor",
            &british,
            "--player",
            "french=Fanny <fanny@example.org>",
        ],
    )
    .ok();
    std::fs::write(d.join("set-up.yaml"), least_orders(d, "british")).unwrap();
    let owed = run(d, &["submit", "--dir", "g", "set-up.yaml"]).fails(1);
    assert!(owed.contains("anchors of american, french") || owed.contains("anchors of french, american"), "{owed}");
    let files = run(d, &["resolve", "--dir", "g", "set-up.yaml"]).fails(2);
    assert!(files.contains("through `adjutant submit`"), "{files}");
    for c in [&chains[0], &chains[2]] {
        run(d, &["join", "--dir", "g", &format!("{}={}:{M}", c.label, c.keys[0].to_hex())]).ok();
    }
    // The set-up awaits one player: no commitment, and it rolls nothing.
    run(d, &["submit", "--dir", "g", "set-up.yaml"]).ok();
    // The same bytes again change nothing; other bytes are refused (DICE.md A5).
    let again = run(d, &["submit", "--dir", "g", "--replace", "set-up.yaml"]).ok();
    assert!(again.contains("nothing changed"), "{again}");
    let other = format!("# changed my mind\n{}", std::fs::read_to_string(d.join("set-up.yaml")).unwrap());
    std::fs::write(d.join("set-up-2.yaml"), other).unwrap();
    let replaced = run(d, &["submit", "--dir", "g", "--replace", "set-up-2.yaml"]).fails(1);
    assert!(replaced.contains("a file once in stands and is never replaced"), "{replaced}");
    assert!(!d.join("g/kept").exists(), "a refused replacement kept nothing");
    let p1 = chains[1].keys[1].to_hex();
    std::fs::write(d.join("key.yaml"), format!("game: g\nplayer: british\nkey: {p1}\n")).unwrap();
    let no_roll = run(d, &["submit", "--dir", "g", "key.yaml"]).fails(1);
    assert!(no_roll.contains("rolls no die"), "{no_roll}");
    run(d, &["resolve", "--dir", "g"]).ok();
    let late = run(d, &["join", "--dir", "g", &format!("british={}", chains[1].keys[0].to_hex())]).fails(1);
    assert!(late.contains("before step 1"), "{late}");

    // A commitment by mail: from the side's address it is taken, from
    // another it is refused (the allied movement hears from two players).
    let step = status(d)["step"].as_str().unwrap().to_string();
    let hash = Bytes32::sha256(b"the french orders").to_hex();
    let mail = |from: &str| {
        format!(
            "From: {from}\r\nTo: ref@example.org\r\nSubject: commitment\r\nMessage-ID: <c1@example.org>\r\n\r\n\
             game: g\r\nside: french\r\nstep: {step}\r\ncommit: {hash}\r\n"
        )
    };
    let stranger =
        run_with_input(d, &["submit", "--dir", "g", "--email", "-"], mail("Eve <eve@example.org>").as_bytes());
    assert!(stranger.exits(1).contains("taken only from the address"));
    let taken =
        run_with_input(d, &["submit", "--dir", "g", "--email", "-"], mail("Fanny <fanny@example.org>").as_bytes()).ok();
    assert!(taken.contains(&format!("commitment of french for step {step}: {hash}")), "{taken}");
    let st = run(d, &["status", "--dir", "g"]).ok();
    assert!(st.contains(&format!("awaiting commitments for {step} from american")), "{st}");
}

/// DICE.md 7.7: a roll log in mutual mode. `roll` seals the roll (its
/// purpose's SHA-256 published) before any key; the other roller's key is
/// refused before the seal and out of order; the roll waits for it, then
/// rolls from a seed over both chains, and `verify` checks it.
#[test]
fn a_roll_log_in_mutual_mode() {
    let dir = temp();
    let d = dir.path();
    let bob = chain(&Bytes32::sha256(b"bob's roll log top"), 8);
    let anchor = format!("bob={}:8", bob[0].to_hex());
    run(d, &["roll", "init", "--dir", "rolls", "--mode", "mutual", "--anchor", &anchor]).ok();
    let key = |j: usize| format!("bob={}", bob[j].to_hex());
    let early = run(d, &["roll", "key", "--dir", "rolls", &key(1)]).fails(1);
    assert!(early.contains("no roll is sealed"), "{early}");
    assert!(!contains(&folder_bytes(&d.join("rolls")), &bob[1].to_hex()), "a key refused is not stored");
    let roll = |purpose: &str| run(d, &["roll", "3d10", "--purpose", purpose, "--dir", "rolls"]);
    let sealed = roll("to-hit, Fraser's at 1404").ok();
    let purpose_sha = Bytes32::sha256(b"to-hit, Fraser's at 1404").to_hex();
    assert!(sealed.contains(&purpose_sha) && sealed.contains("awaiting key p_1 from bob"), "{sealed}");
    // Nothing is rolled yet, and no other roll may replace the sealed one.
    assert!(std::fs::read_dir(d.join("rolls/journal")).unwrap().next().is_none());
    assert!(roll("something else").fails(1).contains("sealed already"));
    assert!(roll("to-hit, Fraser's at 1404").fails(1).contains("awaits key p_1 from bob"));
    assert!(run(d, &["roll", "key", "--dir", "rolls", &key(2)]).fails(1).contains("strictly in order"));
    run(d, &["roll", "key", "--dir", "rolls", &key(1)]).ok();
    let rolled =
        run(d, &["roll", "3d10", "--purpose", "to-hit, Fraser's at 1404", "--dir", "rolls", "--format", "json"]).json();
    assert_eq!(rolled["step"], 1);
    // The seed took Bob's key under his label (DICE.md §4).
    let entry = std::fs::read_to_string(d.join("rolls/journal/000001.yaml")).unwrap();
    assert!(entry.contains("rolling_step: 1") && entry.contains(&bob[1].to_hex()), "{entry}");
    let digest = rolled["orders_digest"].as_str().unwrap();
    let key1 = rolled["key"].as_str().unwrap();
    let seed = run(
        d,
        &[
            "dice",
            "seed",
            "--game-id",
            "rolls",
            "--step",
            "1",
            "--key",
            key1,
            "--digest",
            digest,
            "--player-key",
            &key(1),
        ],
    )
    .ok();
    assert_eq!(seed.trim(), rolled["seed"].as_str().unwrap());
    let verdict = run(d, &["verify", "--dir", "rolls", "--format", "json"]).json();
    assert_eq!(verdict["ok"], true, "{verdict}");
    // Bob's key removed from the entry: verify names the roll.
    let path = d.join("rolls/journal/000001.yaml");
    let forged = entry.replace(&bob[1].to_hex(), &bob[2].to_hex());
    std::fs::write(&path, forged).unwrap();
    let verdict = run(d, &["verify", "--dir", "rolls", "--format", "json"]).json();
    assert_eq!(verdict["ok"], false, "{verdict}");
}
