//! Mutual mode (DICE.md §7) in a game folder, played through the CLI: a
//! Historical Scenario game of three players, one of them (British) the
//! referee, each holding a key chain the folder never sees. Before the last
//! key of a rolling step arrives, the referee's `resolve` refuses it and no
//! file of the folder holds that key; `verify` passes at the end, and the
//! Python reference recomputes every roll from the folder alone.

mod common;
use common::mutual::*;
use common::*;

use std::path::Path;
use std::process::Command;

use adjutant::base::dice::{chain, Bytes32};

/// Every file of the folder, as bytes: what the referee's process can read.
fn folder_bytes(game: &Path) -> Vec<u8> {
    all_files(game).into_iter().flat_map(|(_, bytes)| bytes).collect()
}

/// Each mail of the game folder `game`'s folder transport (`outbox/`): its
/// first addressee and its text with every run of spaces made one (mail
/// text is wrapped at 78 columns).
fn mails(game: &Path) -> Vec<(String, String)> {
    all_files(&game.join("outbox"))
        .into_iter()
        .map(|(_, bytes)| {
            let message = mail_parser::MessageParser::default().parse(&bytes).expect("a mail that parses");
            let to = message.to().and_then(|a| a.first()).and_then(|a| a.address()).unwrap_or_default().to_string();
            let text = message.body_text(0).unwrap_or_default().split_whitespace().collect::<Vec<_>>().join(" ");
            (to, text)
        })
        .collect()
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
    // tick runs no clock and resolves nothing before every anchor is in.
    with_deadlines(d);
    let out = tick(d, "2026-12-01T10:00:00Z");
    assert!(out.contains("awaiting the anchors of the players of french, american"), "{out}");
    assert!(!d.join("g/ticks.yaml").exists(), "no clock started");
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

// ------------------------------------------------------------ deadlines, forfeits, corrections

/// The game's deadlines and mail (the folder transport: `outbox/`).
fn with_deadlines(d: &Path) {
    let path = d.join("g/game.yaml");
    let config = std::fs::read_to_string(&path).unwrap()
        + "mail:\n  from: Referee <ref@example.org>\n  transport: folder\n\
           deadlines:\n  default: {after: 48h, grace: 6h}\n  reveal: 2d\n";
    std::fs::write(path, config).unwrap();
}

fn tick(d: &Path, now: &str) -> String {
    run(d, &["tick", "--dir", "g", "--now", now]).ok()
}

fn journal_files(game: &Path) -> Vec<std::path::PathBuf> {
    let mut names: Vec<_> = std::fs::read_dir(game.join("journal")).unwrap().map(|e| e.unwrap().path()).collect();
    names.sort();
    names
}

fn python_verifies(game: &Path) -> String {
    let out = Command::new("python3")
        .arg(repo_root().join("tests/reference/dice_ref.py"))
        .arg("--verify-folder")
        .arg(game)
        .output()
        .expect("python3 runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    text
}

/// DICE.md 7.4 and docs/DICE.md A8: a rolling step sealed, two keys in, the
/// third withheld past game.yaml's `reveal` deadline. `tick` starts the
/// keys' clock when it first sees the step sealed, and at the deadline
/// journals a forfeit that resolves no step and rolls no die; the French
/// player's sides forfeit, so the Allies lose (Savannah's victory terms:
/// the British win). Everything after is refused; verify and the Python
/// reference pass; a forfeit naming the wrong player fails verify.
#[test]
fn a_key_withheld_past_the_reveal_deadline_forfeits() {
    let dir = temp();
    let d = dir.path();
    let chains = chains();
    new_mutual_game(d, &chains);
    with_deadlines(d);
    let game = d.join("g");
    let s = play_until(d, &chains, |s| s["mutual"]["rolls"] == true);
    let step = s["step"].as_str().unwrap().to_string();
    let j = s["mutual"]["rolling_step"].as_u64().unwrap() as usize;
    send_key(d, &chains[1], j);
    send_key(d, &chains[0], j);

    // The clock starts at the first tick that sees the step sealed.
    let out = tick(d, "2026-12-01T10:00:00Z");
    assert!(out.contains("sealed at 2026-12-01T10:00:00Z; every key is due by 2026-12-03T10:00:00Z"), "{out}");
    let out = tick(d, "2026-12-03T09:59:59Z");
    assert!(!out.contains("forfeit"), "{out}");
    let refused = run(d, &["resolve", "--dir", "g"]).exits(1);
    assert!(refused.contains(&format!("awaits key p_{j} from french")), "{refused}");
    let steps_before = journal_files(&game).len();

    // At the deadline: the forfeit.
    let out = tick(d, "2026-12-03T10:00:00Z");
    assert!(out.contains("forfeit"), "{out}");
    let files = journal_files(&game);
    assert_eq!(files.len(), steps_before + 1, "one entry more");
    let entry = std::fs::read_to_string(files.last().unwrap()).unwrap();
    let k = steps_before + 1;
    let record = format!(
        "forfeit:\n  step: {step}\n  withheld: key\n  rolling_step: {j}\n  players:\n  - french\n  sides:\n  - french\n  \
         revealed:\n  - label: american\n    key: {}\n  - label: british\n    key: {}\n",
        chains[0].keys[j].to_hex(),
        chains[1].keys[j].to_hex()
    );
    assert!(entry.contains(&record), "{entry}");
    assert!(
        entry.contains(
            "  since: 2026-12-01T10:00:00Z\n  span: 2d\n  deadline: 2026-12-03T10:00:00Z\n  at: 2026-12-03T10:00:00Z\n"
        ),
        "{entry}"
    );
    assert!(entry.contains("orders: []") && entry.contains("rolls: []") && !entry.contains("game_step:"), "{entry}");
    assert!(!entry.contains(&chains[2].keys[j].to_hex()), "the withheld key is nowhere");
    assert!(entry.contains(&format!(
        "The game is adjourned at step {step}: key p_{j} of french was not in by the deadline 2026-12-03T10:00:00Z \
         (2d after the step was sealed, 2026-12-01T10:00:00Z; clock read 2026-12-03T10:00:00Z). The sides of french \
         forfeit: french. No die is rolled for the step."
    )));

    // The game is over: the British win by the French forfeit.
    let st = status(d);
    assert_eq!(st["result"]["winner"], "british", "{st}");
    assert_eq!(st["result"]["level"], "forfeit", "{st}");
    assert!(st["step"].is_null(), "{st}");
    assert_eq!(st["adjourned"]["forfeit"]["players"], serde_json::json!(["french"]), "{st}");
    let words = run(d, &["status", "--dir", "g"]).ok();
    let adjourned = format!(
        "adjourned: french forfeits at step {step}: key p_{j} of french not in by the deadline \
         2026-12-03T10:00:00Z (DICE.md 7.4, journal/{k:06}.yaml)\ngame over: british forfeit victory\n"
    );
    assert!(words.contains(&adjourned), "{words}");

    // Everything after is refused, byte for byte, and changes nothing.
    let before = all_files(&game);
    let over = format!(
        "the game is over: adjourned at step {step} by the forfeit of french (key p_{j} of french not in by the \
         deadline 2026-12-03T10:00:00Z, journal/{k:06}.yaml; DICE.md 7.4); it takes no more orders, commitments, \
         keys or steps"
    );
    let said = run(d, &["resolve", "--dir", "g"]).fails(1);
    assert_eq!(said, format!("error: g: {over}\n"));
    std::fs::write(d.join("key.yaml"), format!("game: g\nplayer: french\nkey: {}\n", chains[2].keys[j].to_hex()))
        .unwrap();
    let said = run(d, &["submit", "--dir", "g", "key.yaml"]).fails(1);
    assert_eq!(said, format!("error: key.yaml: {over}\n"));
    std::fs::write(d.join("late.yaml"), "game: g\nturn: 17\nstep: initiative\nside: french\n").unwrap();
    let said = run(d, &["submit", "--dir", "g", "late.yaml"]).fails(1);
    assert!(said.contains(&over), "{said}");
    let said = run(d, &["correct", "--dir", "g", "--from", "2", "--why", "undo it"]).fails(1);
    assert!(said.contains(&over) && said.contains("another roll"), "{said}");
    let out = tick(d, "2026-12-04T10:00:00Z");
    assert!(out.contains(&over), "{out}");
    assert_eq!(all_files(&game), before, "nothing changed");

    // Every player is told: the forfeit's reports, mailed.
    let mut told: Vec<String> = mails(&game)
        .into_iter()
        .filter(|(_, text)| {
            text.contains(&format!("== Step {k}: forfeit ==")) && text.contains("game over: british forfeit victory")
        })
        .map(|(to, _)| to)
        .collect();
    told.sort();
    assert_eq!(told, ["abe@example.org", "fanny@example.org", "ref@example.org"]);

    let verdict = run(d, &["verify", "--dir", "g", "--format", "json"]).json();
    assert_eq!(verdict["ok"], true, "{verdict}");
    let text = python_verifies(&game);
    assert!(text.starts_with(&format!("ok {k} steps")), "{text}");
    // The published copy verifies too, by adjutant and by the reference alone.
    run(d, &["publish", "--dir", "g", "published"]).ok();
    assert_eq!(run(d, &["verify", "--dir", "published", "--format", "json"]).json()["ok"], true);
    assert_eq!(python_verifies(&d.join("published")), text);

    // A forfeit that names a player whose key was in fails verify.
    let copy = d.join("forged");
    copy_dir(&game, &copy);
    let last = copy.join("journal").join(files.last().unwrap().file_name().unwrap());
    let forged = entry.replace("  players:\n  - french\n", "  players:\n  - british\n");
    std::fs::write(&last, forged).unwrap();
    let verdict = run(d, &["verify", "--dir", "forged", "--format", "json"]).json();
    assert_eq!(verdict["ok"], false, "{verdict}");
    assert!(verdict.to_string().contains("forfeit: "), "{verdict}");
    // An entry after the forfeit, its key, link and seed all right, fails.
    std::fs::write(&last, &entry).unwrap();
    let top: Bytes32 = std::fs::read_to_string(game.join(".secret/chain-top")).unwrap().trim().parse().unwrap();
    let next_key = chain(&top, 4096)[k + 1];
    let empty = adjutant::base::dice::orders_digest(&[]).unwrap();
    let seed = adjutant::base::dice::step_seed("g", k as u32 + 1, &next_key, &empty, &[]).unwrap();
    let field = |text: &str, name: &str| {
        let at = text.find(&format!("\n{name}: ")).unwrap() + name.len() + 3;
        text[at..at + 64].to_string()
    };
    let after = entry
        .replacen(&format!("step: {k}\n"), &format!("step: {}\n", k + 1), 1)
        .replace(&field(&entry, "previous"), &Bytes32::sha256(entry.as_bytes()).to_hex())
        .replace(&field(&entry, "key"), &next_key.to_hex())
        .replace(&field(&entry, "seed"), &seed.to_hex());
    std::fs::write(copy.join(format!("journal/{:06}.yaml", k + 1)), after).unwrap();
    let verdict = run(d, &["verify", "--dir", "forged", "--format", "json"]).json();
    assert_eq!(verdict["failure"]["entry"], format!("journal/{:06}.yaml", k + 1), "{verdict}");
    assert!(verdict.to_string().contains("no entry follows a forfeit"), "{verdict}");
    std::fs::remove_file(copy.join(format!("journal/{:06}.yaml", k + 1))).unwrap();
    // One recorded before its deadline fails too.
    let forged = entry.replace("  at: 2026-12-03T10:00:00Z\n", "  at: 2026-12-03T09:00:00Z\n");
    std::fs::write(&last, forged).unwrap();
    let verdict = run(d, &["verify", "--dir", "forged", "--format", "json"]).json();
    assert!(verdict.to_string().contains("before its deadline"), "{verdict}");
}

/// docs/DICE.md A11: an orders deadline in mutual mode. A side that has
/// not committed by the deadline gets the least orders, written and
/// committed by `tick` (they are fixed by rule); a side that committed and
/// sends no file by the deadline plus the grace forfeits, as a withheld
/// key does (any replacement would give it a choice after the others'
/// files were in).
#[test]
fn orders_deadlines_in_mutual_mode() {
    let dir = temp();
    let d = dir.path();
    let chains = chains();
    new_mutual_game(d, &chains);
    with_deadlines(d);
    let game = d.join("g");
    // A step that hears from two players, so takes commitments.
    let s = play_until(d, &chains, |s| !strings(&s["mutual"]["commitments_owed"]).is_empty());
    let step = s["step"].as_str().unwrap().to_string();
    let awaiting = strings(&s["awaiting"]);
    assert!(awaiting.len() >= 2, "{s}");
    let late = awaiting[0].clone();
    let (committer, silent): (Vec<String>, Vec<String>) = awaiting.iter().cloned().partition(|side| *side != late);
    // The others commit; `late` sends nothing.
    let except: Vec<&str> = vec![late.as_str()];
    let _ = silent;
    send_orders(d, &except);
    tick(d, "2026-12-01T10:00:00Z");
    // A copy whose tick does not run again until well after the deadline.
    copy_dir(&game, &d.join("late"));
    // A reminder a day before the deadline says what mutual mode does at
    // it (docs/DICE.md A11), not referee mode's "unless yours arrive first".
    let config = std::fs::read_to_string(game.join("game.yaml")).unwrap();
    let reminding = config.replace("default: {after: 48h, grace: 6h}", "default: {after: 48h, grace: 6h, remind: 24h}");
    assert_ne!(config, reminding);
    std::fs::write(game.join("game.yaml"), reminding).unwrap();
    tick(d, "2026-12-02T10:30:00Z");
    let mut reminded = false;
    for (_, text) in mails(&game) {
        if text.contains("are due by") {
            assert!(text.contains("if no commitment of yours has arrived by then"), "{text}");
            assert!(!text.contains("unless yours arrive first"), "{text}");
            reminded = true;
        }
    }
    assert!(reminded, "a reminder is mailed");
    let out = tick(d, "2026-12-03T10:00:00Z");
    assert!(out.contains(&format!("defaulted: the least orders for {late}")), "{out}");
    let commit = std::fs::read_to_string(game.join(format!("mutual/{step}--{late}.commit"))).unwrap();
    let default = std::fs::read(game.join(format!("inbox/{step}--{late}.yaml"))).unwrap();
    assert!(default.starts_with(b"# adjutant tick: default orders written for"));
    assert_eq!(commit.trim(), Bytes32::sha256(&default).to_hex(), "tick committed the default it wrote");
    let st = status(d);
    assert!(strings(&st["mutual"]["commitments_owed"]).is_empty(), "{st}");
    // In mutual mode the default stands: status does not say his file wins.
    let text = run(d, &["status", "--dir", "g"]).ok();
    assert!(
        text.contains(&format!("{late} (default orders written and committed for it at the deadline; they stand)")),
        "{text}"
    );

    // Copy 1: the committed files come in; the default stands in the step.
    let copy = d.join("sent");
    copy_dir(&game, &copy);
    // Copy 2: they never come: the committed sides forfeit at the deadline plus the grace.
    let out = tick(d, "2026-12-03T15:59:59Z");
    assert!(!out.contains("forfeit"), "{out}");
    tick(d, "2026-12-03T16:00:00Z");
    let entry = std::fs::read_to_string(journal_files(&game).last().unwrap()).unwrap();
    assert!(entry.contains(&format!("forfeit:\n  step: {step}\n  withheld: orders\n")), "{entry}");
    assert!(entry.contains("  since: 2026-12-03T10:00:00Z\n  span: 6h\n  deadline: 2026-12-03T16:00:00Z\n"), "{entry}");
    for side in &committer {
        assert!(entry.contains(&format!("  - {side}\n")), "{entry}");
    }
    assert!(!status(d)["result"].is_null());
    let verdict = run(d, &["verify", "--dir", "g", "--format", "json"]).json();
    assert_eq!(verdict["ok"], true, "{verdict}");

    let step_files: Vec<String> = committer.iter().map(|side| format!("{step}--{side}.yaml")).collect();
    for name in &step_files {
        run(d, &["submit", "--dir", "sent", name]).ok();
    }
    let st = run(d, &["status", "--dir", "sent", "--format", "json"]).json();
    assert_eq!(st["mutual"]["sealed"], true, "{st}");
    assert_eq!(strings(&st["defaults"]), vec![late.clone()], "{st}");

    // A late tick (cron stopped past the deadline and its grace): the
    // defaults complete the commitments now, and the committed sides still
    // have the grace from now to send their files.
    let late_tick = |now: &str| run(d, &["tick", "--dir", "late", "--now", now]).ok();
    let out = late_tick("2026-12-04T00:00:00Z");
    assert!(out.contains(&format!("defaulted: the least orders for {late}")) && !out.contains("forfeit"), "{out}");
    let out = late_tick("2026-12-04T05:59:59Z");
    assert!(!out.contains("forfeit"), "{out}");
    late_tick("2026-12-04T06:00:00Z");
    let entry = std::fs::read_to_string(journal_files(&d.join("late")).last().unwrap()).unwrap();
    assert!(entry.contains("  since: 2026-12-04T00:00:00Z\n  span: 6h\n  deadline: 2026-12-04T06:00:00Z\n"), "{entry}");
    assert_eq!(run(d, &["verify", "--dir", "late", "--format", "json"]).json()["ok"], true);
}

/// docs/DICE.md A10 in mutual mode: a correction takes no player key, and
/// the players' rolling-step counter j keeps counting over the undone
/// steps, so a step resolved again takes keys never revealed before. A
/// correction is refused while a sealed step's keys are coming in (the last
/// to reveal could otherwise undo a roll he foresees).
#[test]
fn a_correction_in_the_middle_of_a_mutual_game() {
    let dir = temp();
    let d = dir.path();
    let chains = chains();
    new_mutual_game(d, &chains);
    let game = d.join("g");
    // The second rolling step, sealed, one key in: no correction now.
    let s = play_until(d, &chains, |s| s["mutual"]["rolls"] == true && s["mutual"]["rolling_step"] == 2);
    let step = s["step"].as_str().unwrap().to_string();
    send_key(d, &chains[1], 2);
    let before = all_files(&game);
    let said = run(d, &["correct", "--dir", "g", "--from", "2", "--why", "wrong file"]).fails(1);
    assert_eq!(
        said,
        format!(
            "error: g: step {step} is sealed and its keys p_2 are coming in (from british so far): it must be \
             resolved, or forfeited at the reveal deadline, before a correction; one now would let the last to \
             reveal undo a roll he can foresee (DICE.md 7.4, docs/DICE.md A10)\n"
        )
    );
    assert_eq!(all_files(&game), before, "a refused correction changes nothing");
    send_key(d, &chains[0], 2);
    send_key(d, &chains[2], 2);
    run(d, &["resolve", "--dir", "g"]).ok();
    // On to a step that hears from two players, its commitments in.
    let s = play_until(d, &chains, |s| !strings(&s["mutual"]["commitments_owed"]).is_empty());
    let awaited_step = s["step"].as_str().unwrap().to_string();
    // Its commitments and files in (sealed; no key sent).
    send_orders(d, &[]);
    assert!(game.join(format!("inbox/{awaited_step}--{}.yaml", strings(&s["awaiting"])[0])).is_file());

    // The first rolling step was resolved from the wrong orders.
    let files = journal_files(&game);
    let first_rolling = files
        .iter()
        .position(|p| std::fs::read_to_string(p).unwrap().contains("rolling_step: 1\n"))
        .expect("a rolling step") as u32
        + 1;
    let rewound: Vec<(std::path::PathBuf, Vec<u8>)> =
        files.iter().map(|p| (p.clone(), std::fs::read(p).unwrap())).collect();
    let n = files.len() as u32;
    let why = "I stored the wrong French orders";
    let out = run(d, &["correct", "--dir", "g", "--from", &first_rolling.to_string(), "--why", why]).ok();
    assert!(out.contains(&format!("step {} · correction", n + 1)), "{out}");
    let entry = std::fs::read_to_string(game.join(format!("journal/{:06}.yaml", n + 1))).unwrap();
    assert!(entry.contains(&format!("correction:\n  rewinds_to: {}\n", first_rolling - 1)), "{entry}");
    assert!(!entry.contains("player_keys") && !entry.contains("rolling_step"), "{entry}");
    // The rewound steps stay in the journal, byte for byte.
    for (path, bytes) in &rewound {
        assert_eq!(&std::fs::read(path).unwrap(), bytes);
    }
    // What the awaited step had taken was for the game before: gone.
    let leftovers: Vec<String> = all_files(&game)
        .into_iter()
        .map(|(p, _)| p.display().to_string())
        .filter(|p| p.contains(&awaited_step) && (p.contains("/inbox/") || p.contains("/mutual/")))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    assert_eq!(run(d, &["verify", "--dir", "g", "--format", "json"]).json()["ok"], true);

    // Played again: the first step that rolls takes p_3, never revealed before.
    let s = play_until(d, &chains, |s| s["mutual"]["rolls"] == true);
    assert_eq!(s["mutual"]["rolling_step"], 3, "{s}");
    let folder = folder_bytes(&game);
    for c in &chains {
        assert!(!contains(&folder, &c.keys[3].to_hex()), "p_3 of {} is not out yet", c.label);
    }
    for c in &chains {
        send_key(d, c, 3);
    }
    run(d, &["resolve", "--dir", "g"]).ok();
    let last = std::fs::read_to_string(
        journal_files(&game)
            .iter()
            .rev()
            .find(|p| std::fs::read_to_string(p).unwrap().contains("rolling_step: 3\n"))
            .unwrap(),
    )
    .unwrap();
    assert!(last.contains(&chains[2].keys[3].to_hex()), "{last}");
    let verdict = run(d, &["verify", "--dir", "g", "--format", "json"]).json();
    assert_eq!(verdict["ok"], true, "{verdict}");
    let text = python_verifies(&game);
    assert!(text.trim().ends_with("3 rolling steps with 3 players' keys"), "{text}");
}

/// docs/DICE.md A6: files that pass their own checks and that the rules
/// refuse together stand in mutual mode (A5). `status` says the step is
/// refused and what clears it, `tick` mails the sides concerned mutual
/// mode's way on, `submit` takes no key for it (it rolls no die), and the
/// referee's correction `--from` the awaited step sets its commitments and
/// files aside, undoing no step, after which the game goes on.
#[test]
fn orders_the_rules_refuse_together_stand_until_the_referee_sets_them_aside() {
    let dir = temp();
    let d = dir.path();
    let chains = chains();
    new_mutual_game(d, &chains);
    // The Allied movement of turn 16, which hears from two players.
    let s = play_until(d, &chains, |s| s["step"] == "16-allies-movement");
    assert_eq!(strings(&s["mutual"]["commitments_owed"]), ["american", "french"], "{s}");
    let last = s["steps_resolved"].as_u64().unwrap();
    let awaited = (last + 1).to_string();
    // `--from` the awaited step is refused while nothing is refused together.
    let early = run(d, &["correct", "--dir", "g", "--from", &awaited, "--why", "x"]).exits(2);
    assert!(
        early.contains("sets aside its orders only in a mutual game whose sealed step the rules refuse"),
        "{early}"
    );
    refused_together(d);
    let s = status(d);
    let why = s["mutual"]["refused"].as_str().unwrap_or_default();
    assert!(why.contains("3-sc and champagne-chasseurs end the Movement Phase stacked in 1509"), "{s}");
    assert_eq!(s["mutual"]["rolls"], false, "{s}");
    let text = run(d, &["status", "--dir", "g"]).ok();
    assert!(text.contains("the rules refuse its orders together"), "{text}");
    assert!(
        text.contains(&format!("only the referee's `adjutant correct --from {awaited}` (the awaited step) sets")),
        "{text}"
    );
    assert_eq!(s["mutual"]["journal_step"], last + 1, "{s}");
    let refused = run(d, &["resolve", "--dir", "g"]).exits(1);
    assert!(refused.contains("restricted-stack-ends"), "{refused}");
    // `tick` (from cron) mails each side concerned its problems once, with
    // mutual mode's way on: no replacement, the referee sets them aside.
    with_deadlines(d);
    let ticked = run(d, &["tick", "--dir", "g", "--now", "2026-12-04T10:00:00Z"]).exits(1);
    assert!(ticked.contains("refused; the referee sets them aside"), "{ticked}");
    let mut told = Vec::new();
    for (to, text) in mails(&d.join("g")) {
        if text.contains("cannot be used now") {
            assert!(text.contains("a file once in stands: no message replaces it"), "{text}");
            assert!(!text.contains("it replaces the file named"), "{text}");
            // The help of every mail to a player is mutual mode's.
            assert!(text.contains("A file once in stands: no message replaces or withdraws it"), "{text}");
            assert!(!text.contains("the newer message"), "{text}");
            told.push(to);
        }
    }
    told.sort();
    assert!(!told.is_empty(), "the sides concerned are mailed");
    // The welcome of a mutual game names the player's own chain and what
    // mutual mode asks of him.
    let welcome = run(d, &["welcome", "--dir", "g", "--side", "french", "--format", "json"]).ok();
    assert!(welcome.contains("welcome"), "{welcome}");
    let mut welcomed = false;
    for (_, text) in mails(&d.join("g")) {
        if text.starts_with("Welcome to g") {
            assert!(text.contains("This game rolls its dice in mutual mode (DICE.md 7)"), "{text}");
            assert!(
                text.contains(&format!("Your key chain (french) is anchored at {}", chains[2].keys[0].to_hex())),
                "{text}"
            );
            assert!(text.contains("send your commitment first"), "{text}");
            welcomed = true;
        }
    }
    assert!(welcomed, "the welcome is mailed");
    // No key is taken for a step that rolls no die, and no file replaces one in.
    let key = submit_key(d, &chains[2], 1).exits(1);
    assert!(key.contains("rolls no die and takes no player key"), "{key}");
    std::fs::write(d.join("french.yaml"), "game: g\nturn: 16\nstep: allies-movement\nside: french\nmoves: []\n")
        .unwrap();
    let again = run(d, &["submit", "--dir", "g", "french.yaml", "--replace"]).exits(1);
    assert!(again.contains("in mutual mode a file once in stands"), "{again}");
    // The referee sets the step's orders aside: a correction entry that
    // undoes no step (the last step resolved is not rolled again), and the
    // step takes fresh commitments from every side it awaits.
    let before = std::fs::read(d.join(format!("g/journal/{:06}.yaml", last))).unwrap();
    run(d, &["correct", "--dir", "g", "--from", &awaited, "--why", "orders refused together"]).ok();
    let s = status(d);
    assert!(s["mutual"]["refused"].is_null(), "{s}");
    assert_eq!(s["steps_resolved"], last + 1, "{s}");
    assert_eq!(s["step"], "16-allies-movement", "{s}");
    assert_eq!(strings(&s["mutual"]["commitments_owed"]), ["american", "french"], "{s}");
    assert!(!d.join("g/inbox/16-allies-movement--french.yaml").exists(), "the step's files are removed");
    assert!(!d.join("g/mutual/16-allies-movement--french.commit").exists(), "the step's commitments are removed");
    assert_eq!(std::fs::read(d.join(format!("g/journal/{:06}.yaml", last))).unwrap(), before);
    let entry = std::fs::read_to_string(d.join(format!("g/journal/{:06}.yaml", last + 1))).unwrap();
    assert!(entry.contains(&format!("rewinds_to: {last}")), "{entry}");
    assert!(entry.contains("no journal step is undone"), "{entry}");
    assert_eq!(run(d, &["verify", "--dir", "g", "--format", "json"]).json()["ok"], true);
    // The game goes on from the same step, and verifies.
    let s = play_until(d, &chains, |s| s["step"] != "16-allies-movement");
    assert!(s["steps_resolved"].as_u64().unwrap() >= last + 2, "{s}");
    assert_eq!(run(d, &["verify", "--dir", "g", "--format", "json"]).json()["ok"], true);
    // The reference verifier recomputes every key, seed and roll, the
    // setting aside's entry among them.
    python_verifies(&d.join("g"));
}
