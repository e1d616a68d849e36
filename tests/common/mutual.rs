//! Mutual mode (DICE.md §7) in tests: a Historical Scenario game of three
//! players, one of them (British) the referee, each holding a key chain the
//! folder never sees, played through the CLI with least orders.

use std::path::Path;

use adjutant::base::dice::{chain, Bytes32};
use serde_json::Value;

use super::{run, Run};

/// A player's chain: its top and keys p_0 ..= p_M (DICE.md 7.1).
pub struct PlayerChain {
    pub label: &'static str,
    pub top: Bytes32,
    pub keys: Vec<Bytes32>,
}

pub const M: u32 = 64;

pub fn chains() -> Vec<PlayerChain> {
    ["american", "british", "french"]
        .into_iter()
        .map(|label| {
            let top = Bytes32::sha256(format!("mutual test {label} top").as_bytes());
            PlayerChain { label, top, keys: chain(&top, M) }
        })
        .collect()
}

pub fn new_mutual_game(d: &Path, chains: &[PlayerChain]) {
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

pub fn status(d: &Path) -> Value {
    run(d, &["status", "--dir", "g", "--format", "json"]).json()
}

/// `adjutant template`'s least orders for a side (they validate as printed).
pub fn least_orders(d: &Path, side: &str) -> String {
    let text = run(d, &["template", "--dir", "g", "--side", side]).ok();
    text.split("#\n# Your units (").next().unwrap_or(&text).to_string()
}

pub fn strings(v: &Value) -> Vec<String> {
    v.as_array().map(|a| a.iter().map(|s| s.as_str().unwrap().to_string()).collect()).unwrap_or_default()
}

/// Send a player's key p_j (a key message through `submit`).
pub fn send_key(d: &Path, c: &PlayerChain, j: usize) -> String {
    submit_key(d, c, j).ok()
}

/// `submit` of player `c`'s key p_j, as he would send it.
pub fn submit_key(d: &Path, c: &PlayerChain, j: usize) -> Run {
    std::fs::write(d.join("key.yaml"), format!("game: g\nplayer: {}\nkey: {}\n", c.label, c.keys[j].to_hex())).unwrap();
    run(d, &["submit", "--dir", "g", "key.yaml"])
}

/// Every awaited side's least orders for the step the game awaits, each
/// committed first when the step takes commitments (7.6); `except`: the
/// sides that send nothing.
pub fn send_orders(d: &Path, except: &[&str]) {
    let s = status(d);
    let step = s["step"].as_str().unwrap().to_string();
    let w = &s["mutual"];
    let sides: Vec<String> = strings(&w["orders_owed"]).into_iter().filter(|s| !except.contains(&s.as_str())).collect();
    let files: Vec<(String, String)> = sides
        .iter()
        .map(|side| {
            let name = format!("{step}--{side}.yaml");
            std::fs::write(d.join(&name), least_orders(d, side)).unwrap();
            (side.clone(), name)
        })
        .collect();
    if !strings(&w["commitments_owed"]).is_empty() {
        for (side, name) in &files {
            let hash = Bytes32::sha256(&std::fs::read(d.join(name)).unwrap()).to_hex();
            let message = format!("game: g\nside: {side}\nstep: {step}\ncommit: {hash}\n");
            std::fs::write(d.join("commit.yaml"), message).unwrap();
            run(d, &["submit", "--dir", "g", "commit.yaml"]).ok();
        }
    }
    if except.is_empty() {
        for (_, name) in &files {
            run(d, &["submit", "--dir", "g", name]).ok();
        }
    }
}

/// Play the game on (every side's least orders, every key) until `stop`
/// holds of its status, checked after each step's orders are in; the
/// status then.
pub fn play_until(d: &Path, chains: &[PlayerChain], stop: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..400 {
        let s = status(d);
        assert!(s["result"].is_null(), "the game ended: {s}");
        if stop(&s) {
            return s;
        }
        if !strings(&s["mutual"]["orders_owed"]).is_empty() {
            send_orders(d, &[]);
        }
        let s = status(d);
        if stop(&s) {
            return s;
        }
        let w = &s["mutual"];
        if w["rolls"] == true {
            let j = w["rolling_step"].as_u64().unwrap() as usize;
            for label in strings(&w["keys_owed"]) {
                send_key(d, chains.iter().find(|c| c.label == label).unwrap(), j);
            }
        }
        run(d, &["resolve", "--dir", "g"]).ok();
    }
    panic!("the game never reached the point");
}

/// At the Allied Movement Phase of turn 16 (awaited, its commitments owed):
/// every file of the step in, each valid alone, and refused together.
pub fn refused_together(d: &Path) {
    // Champagne Chasseurs (French) end the phase with the 3rd S.C.
    // (American) in 1509: each file passes alone, Savannah 4.1 refuses them
    // together.
    let files = [
        ("french", "game: g\nturn: 16\nstep: allies-movement\nside: french\nmoves:\n- unit: champagne-chasseurs\n  to: '1509'\n"),
        ("american", "game: g\nturn: 16\nstep: allies-movement\nside: american\nmoves: []\n"),
    ];
    for (side, text) in files {
        let name = format!("{side}.yaml");
        std::fs::write(d.join(&name), text).unwrap();
        run(d, &["validate", "--dir", "g", &name]).ok();
        let hash = Bytes32::sha256(text.as_bytes()).to_hex();
        let message = format!("game: g\nside: {side}\nstep: 16-allies-movement\ncommit: {hash}\n");
        std::fs::write(d.join("commit.yaml"), message).unwrap();
        run(d, &["submit", "--dir", "g", "commit.yaml"]).ok();
    }
    for (side, _) in files {
        run(d, &["submit", "--dir", "g", &format!("{side}.yaml")]).ok();
    }
}
