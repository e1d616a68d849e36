//! adjutant against `tests/reference/dice_ref.py`, a second implementation
//! of DICE.md written from the spec alone in Python with only its standard
//! library: the library over 1,000 random seeds, and the four `adjutant
//! dice` commands over random chains, orders, seeds and rolls.

mod common;
use common::*;

use std::io::Write;
use std::process::{Command, Stdio};

use adjutant::base::dice::{self, Bytes32, Die, PlayerKey, SideHash, StepDice};
use serde_json::{json, Value};

fn reference() -> String {
    repo_root().join("tests/reference/dice_ref.py").display().to_string()
}

/// Send every request to one Python process; return its answers in order.
fn ask_python(requests: &[Value]) -> Vec<Value> {
    let mut child = Command::new("python3")
        .arg(reference())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 runs (the cross-check needs it)");
    let mut input = String::new();
    for r in requests {
        input.push_str(&r.to_string());
        input.push('\n');
    }
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(output.status.success(), "dice_ref.py failed: {}", String::from_utf8_lossy(&output.stderr));
    let answers: Vec<Value> =
        String::from_utf8(output.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(answers.len(), requests.len());
    for (q, a) in requests.iter().zip(&answers) {
        assert!(a.get("error").is_none(), "reference refused {q}: {a}");
    }
    answers
}

#[test]
fn the_reference_passes_the_spec_vectors() {
    let out = Command::new("python3").arg(reference()).arg("--self-test").output().expect("python3 runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("ok seed_1 referee mode") && !text.contains("FAIL"), "{text}");
    // The v1.1 vectors (DICE.md "v1.1 vectors") are checked too.
    for name in ["v1.1 mixed stream", "v1.1 d100 rejection", "v1.1 seed_5 mutual two players", "v1.1 mutual 10 x d10"] {
        assert!(text.contains(&format!("ok {name}")), "{name} missing: {text}");
    }
}

/// A die of DICE.md §5's table, or (one time in four) a `cN` of 1 to 300
/// cards, whose odd limits exercise the rejection.
fn die_of(n: u64) -> Die {
    match n % 4 {
        3 => Die::Cards(1 + ((n >> 8) % 300) as u16),
        k => Die::ALL[k as usize],
    }
}

#[test]
fn library_rolls_agree_over_1000_random_seeds() {
    let mut gen = Gen(0x5a7a_1779);
    let mut requests = Vec::new();
    let mut expected = Vec::new();
    for i in 0..1000 {
        let seed = Bytes32(gen.bytes(32).try_into().unwrap());
        if i % 2 == 0 {
            // One die, as `dice rolls` draws.
            let die = die_of(gen.next());
            let count = 1 + gen.below(50) as usize;
            requests.push(json!({"op": "rolls", "seed": seed.to_hex(), "die": die.name(), "count": count}));
            expected.push(json!({"values": dice::rolls(&seed, die, count)}));
        } else {
            // Mixed dice from one stream, as a step draws them.
            let kinds: Vec<Die> = (0..1 + gen.below(30)).map(|_| die_of(gen.next())).collect();
            let mut step = StepDice::new(&seed);
            let values: Vec<u16> = kinds.iter().map(|&d| step.roll(d, "x")).collect();
            let names: Vec<String> = kinds.iter().map(|d| d.name()).collect();
            requests.push(json!({"op": "mixed", "seed": seed.to_hex(), "dice": names}));
            expected.push(json!({"values": values}));
        }
        if i % 10 == 0 {
            let mut stream = dice::RollStream::new(&seed);
            let words: Vec<u32> = (0..40).map(|_| stream.next_word()).collect();
            requests.push(json!({"op": "words", "seed": seed.to_hex(), "count": 40}));
            expected.push(json!({"words": words}));
        }
    }
    let answers = ask_python(&requests);
    for ((q, want), got) in requests.iter().zip(&expected).zip(&answers) {
        assert_eq!(got, want, "request {q}");
    }
}

fn random_side(gen: &mut Gen) -> String {
    const NAMES: &[&str] = &["british", "french", "american", "purpose", "b", "français", "side-with-a-long-name"];
    NAMES[gen.below(NAMES.len() as u64) as usize].to_string()
}

#[test]
fn the_dice_commands_agree_on_random_inputs() {
    let dir = temp();
    let mut gen = Gen(1779_0916);
    let mut requests = Vec::new();
    let mut printed = Vec::new();
    for case in 0..60 {
        // dice chain
        let top = gen.hex32();
        let length = 1 + gen.below(64);
        let out = run(dir.path(), &["dice", "chain", "--top", &top, "--length", &length.to_string()]).ok();
        requests.push(json!({"op": "chain", "top": top, "length": length}));
        printed.push(("chain", out));

        // dice digest, with 0 to 3 files of random bytes for distinct sides
        let mut sides: Vec<String> = (0..gen.below(4)).map(|_| random_side(&mut gen)).collect();
        sides.sort();
        sides.dedup();
        let mut args = vec!["dice".to_string(), "digest".to_string()];
        let mut orders = Vec::new();
        for (n, side) in sides.iter().enumerate() {
            let len = gen.below(300) as usize;
            let bytes = gen.bytes(len);
            let file = format!("orders-{case}-{n}.bin");
            std::fs::write(dir.path().join(&file), &bytes).unwrap();
            args.push(format!("{side}={file}"));
            orders
                .push(json!({"side": side, "bytes_hex": bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()}));
        }
        let arg_refs: Vec<&str> = args.iter().map(String::as_str).collect();
        printed.push(("digest", run(dir.path(), &arg_refs).ok()));
        requests.push(json!({"op": "digest", "orders": orders}));

        // dice seed, referee or mutual mode
        let game_id = ["savannah-demo", "g", "partie-à-trois", "1776-campaign"][gen.below(4) as usize];
        let step = gen.below(5000) as u32 + 1;
        let (key, digest) = (gen.hex32(), gen.hex32());
        let mut args = vec![
            "dice".to_string(),
            "seed".into(),
            "--game-id".into(),
            game_id.into(),
            "--step".into(),
            step.to_string(),
            "--key".into(),
            key.clone(),
            "--digest".into(),
            digest.clone(),
        ];
        let mut player_sides: Vec<String> = (0..gen.below(3)).map(|_| random_side(&mut gen)).collect();
        player_sides.sort();
        player_sides.dedup();
        let mut player_keys = Vec::new();
        for side in &player_sides {
            let p = gen.hex32();
            args.push("--player-key".into());
            args.push(format!("{side}={p}"));
            player_keys.push(json!({"side": side, "key": p}));
        }
        let arg_refs: Vec<&str> = args.iter().map(String::as_str).collect();
        printed.push(("seed", run(dir.path(), &arg_refs).ok()));
        requests.push(json!({"op": "seed", "game_id": game_id, "step": step, "key": key, "digest": digest, "player_keys": player_keys}));

        // dice rolls
        let seed = gen.hex32();
        let die = die_of(gen.next());
        let count = 1 + gen.below(60);
        printed.push((
            "rolls",
            run(dir.path(), &["dice", "rolls", "--seed", &seed, &die.name(), &count.to_string()]).ok(),
        ));
        requests.push(json!({"op": "rolls", "seed": seed, "die": die.name(), "count": count}));
    }
    let answers = ask_python(&requests);
    for ((q, (op, out)), a) in requests.iter().zip(&printed).zip(&answers) {
        let expected = match *op {
            "chain" => a["keys"]
                .as_array()
                .unwrap()
                .iter()
                .enumerate()
                .map(|(k, key)| format!("{k} {}\n", key.as_str().unwrap()))
                .collect::<String>(),
            "digest" => format!("{}\n", a["digest"].as_str().unwrap()),
            "seed" => format!("{}\n", a["seed"].as_str().unwrap()),
            _ => {
                let v: Vec<String> = a["values"].as_array().unwrap().iter().map(|v| v.to_string()).collect();
                format!("{}\n", v.join(" "))
            }
        };
        assert_eq!(out, &expected, "{op}: {q}");
    }
}

#[test]
fn library_seeds_and_digests_agree_with_the_reference() {
    let mut gen = Gen(42);
    let mut requests = Vec::new();
    let mut expected = Vec::new();
    for _ in 0..200 {
        let mut sides: Vec<String> = (0..gen.below(5)).map(|_| random_side(&mut gen)).collect();
        sides.sort();
        sides.dedup();
        let files: Vec<(String, Vec<u8>)> = sides
            .iter()
            .map(|s| {
                (s.clone(), {
                    let n = gen.below(100) as usize;
                    gen.bytes(n)
                })
            })
            .collect();
        let hashes: Vec<SideHash> = files.iter().map(|(s, b)| SideHash::of_bytes(s, b)).collect();
        let digest = dice::orders_digest(&hashes).unwrap();
        let orders: Vec<Value> = files
            .iter()
            .map(|(s, b)| json!({"side": s, "bytes_hex": b.iter().map(|x| format!("{x:02x}")).collect::<String>()}))
            .collect();
        requests.push(json!({"op": "digest", "orders": orders}));
        expected.push(
            json!({"digest": digest.to_hex(), "hashes": hashes.iter().map(|h| h.hash.to_hex()).collect::<Vec<_>>()}),
        );

        let key = Bytes32(gen.bytes(32).try_into().unwrap());
        let players: Vec<PlayerKey> = sides
            .iter()
            .take(2)
            .map(|s| PlayerKey { side: s.clone(), key: Bytes32(gen.bytes(32).try_into().unwrap()) })
            .collect();
        let step = gen.next() as u32;
        let seed = dice::step_seed("savannah-demo", step, &key, &digest, &players).unwrap();
        let pk: Vec<Value> = players.iter().map(|p| json!({"side": p.side, "key": p.key.to_hex()})).collect();
        requests.push(json!({"op": "seed", "game_id": "savannah-demo", "step": step, "key": key.to_hex(), "digest": digest.to_hex(), "player_keys": pk}));
        expected.push(json!({"seed": seed.to_hex()}));
    }
    let answers = ask_python(&requests);
    for ((q, want), got) in requests.iter().zip(&expected).zip(&answers) {
        assert_eq!(got, want, "request {q}");
    }
}
