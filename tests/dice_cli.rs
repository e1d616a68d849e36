//! The four `adjutant dice` commands reproduce every vector of DICE.md, and
//! refuse bad input with one line and a non-zero exit.

mod common;
use common::*;

const S3: &str = "73cd705da8bc456e2a1d96c9747673fdfb9d952a384f2fe9a51af86c9be3d08a";
const S1: &str = "4463b3396ee50e86dd2404a78b3de7acc715d886faeb6ba6b64099d1f928a602";
const DIGEST: &str = "acd7c2cbeafbfc20015f1c18111a68b4bb3aed7d9abeec62a880dd368852276b";
const SEED1: &str = "22816f46f9d5af05266937a2291cc7f0c5307ea05598a0ab5632d07b9024f780";

#[test]
fn chain_reproduces_the_vector() {
    let dir = temp();
    let out = run(dir.path(), &["dice", "chain", "--top", S3, "--length", "3"]).ok();
    assert_eq!(
        out,
        "0 bfdd2de3d68eb816db58d9865111a22cc67aa52f2397229ad94fd52ef64ecb29\n\
         1 4463b3396ee50e86dd2404a78b3de7acc715d886faeb6ba6b64099d1f928a602\n\
         2 9da41ee2ad49ef149e279ec5aca135a11769923ad03a0af54c9380eb74bae581\n\
         3 73cd705da8bc456e2a1d96c9747673fdfb9d952a384f2fe9a51af86c9be3d08a\n"
    );
    let json = run(dir.path(), &["dice", "chain", "--top", S3, "--length", "3", "--format", "json"]).json();
    assert_eq!(json[0]["k"], 0);
    assert_eq!(json[0]["key"], "bfdd2de3d68eb816db58d9865111a22cc67aa52f2397229ad94fd52ef64ecb29");
    assert_eq!(json[3]["key"], S3);
}

#[test]
fn digest_reproduces_the_vector() {
    let dir = temp();
    std::fs::write(dir.path().join("b.yaml"), "side: british\nmoves: []\n").unwrap();
    std::fs::write(
        dir.path().join("f.yaml"),
        "side: french\nmoves:\n  - unit: dillon-irish\n    path: [\"2810\", \"2709\"]\n",
    )
    .unwrap();
    let out = run(dir.path(), &["dice", "digest", "french=f.yaml", "british=b.yaml"]).ok();
    assert_eq!(out, format!("{DIGEST}\n"));
    let json = run(dir.path(), &["--format", "json", "dice", "digest", "british=b.yaml", "french=f.yaml"]).json();
    assert_eq!(json["digest"], DIGEST);
    assert_eq!(json["orders"][0]["sha256"], "d62efc46692ed156dd6b6ab16e2d6a56ff319412791d1282439c9809c9b79485");
    assert_eq!(json["orders"][1]["sha256"], "44b579c9ff8fa673eebd76abb482ce107fb65b14a92417b527dfb5268cb538cf");
    // Standard input, and no orders at all (SHA-256 of nothing).
    let piped =
        run_with_input(dir.path(), &["dice", "digest", "british=-", "french=f.yaml"], b"side: british\nmoves: []\n");
    assert_eq!(piped.ok(), format!("{DIGEST}\n"));
    let empty = run(dir.path(), &["dice", "digest"]).ok();
    assert_eq!(empty, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n");
}

#[test]
fn seed_reproduces_both_modes() {
    let dir = temp();
    let out = run(
        dir.path(),
        &["dice", "seed", "--game-id", "savannah-demo", "--step", "1", "--key", S1, "--digest", DIGEST],
    )
    .ok();
    assert_eq!(out, format!("{SEED1}\n"));
    let mutual = run(
        dir.path(),
        &[
            "dice",
            "seed",
            "--game-id",
            "savannah-demo",
            "--step",
            "1",
            "--key",
            S1,
            "--digest",
            DIGEST,
            "--player-key",
            "french=12751f0074fa84de26e998c49a2ade7f03cd2eb5fef2f11d0303200f9a18867b",
        ],
    )
    .ok();
    assert_eq!(mutual, "c783e4b3464aebc8fb78943e1ef2548d8c1807d52794441ca546256bacab3bbd\n");
}

/// DICE.md "v1.1 vectors": two players' keys under their labels (7.1), at
/// step k = 5, through `dice seed` and `dice rolls`.
#[test]
fn the_two_player_mutual_vector() {
    let dir = temp();
    let seed = run(
        dir.path(),
        &[
            "dice",
            "seed",
            "--game-id",
            "savannah-demo",
            "--step",
            "5",
            "--key",
            "152fa2a001ef80cccbe9810ea41d31953e003cd03faa3bd67100d1650d8530c4",
            "--digest",
            DIGEST,
            "--player-key",
            "american+french=36fb2437befe0cad65a65c2d0788e250f5f94e68f5f0091c1017c919f4892f23",
            "--player-key",
            "british=922acbd74e9d7ea356c2c2c67519167dd5418fb2c6c2a978f36678d3f66fc027",
        ],
    )
    .ok();
    assert_eq!(seed, "e3e468fe0f618591f7be5e12fe8b17fb3c26d9dbf0f98ef0c1cb0d27ab01e9d1\n");
    let rolls = run(dir.path(), &["dice", "rolls", "--seed", seed.trim(), "d10", "10"]).ok();
    assert_eq!(rolls, "6 1 5 8 4 4 4 3 5 3\n");
    // The v1.1 mixed-stream vector is one stream: `dice rolls` draws one die
    // kind, so only its d10 prefix is checked here (the library test draws
    // the whole mix).
    assert_eq!(run(dir.path(), &["dice", "rolls", "--seed", SEED1, "d10", "3"]).ok(), "7 7 6\n");
}

#[test]
fn rolls_reproduce_the_vectors() {
    let dir = temp();
    let rolls = |die: &str, n: &str| run(dir.path(), &["dice", "rolls", "--seed", SEED1, die, n]).ok();
    assert_eq!(rolls("d10", "20"), "7 7 6 0 4 9 8 5 6 3 2 9 0 0 6 4 8 2 9 8\n");
    assert_eq!(rolls("d6", "10"), "6 6 3 5 1 2 3 4 5 6\n");
    assert_eq!(rolls("d100", "10"), "98 98 47 91 55 70 9 66 57 4\n");
    let mutual = run(
        dir.path(),
        &["dice", "rolls", "--seed", "c783e4b3464aebc8fb78943e1ef2548d8c1807d52794441ca546256bacab3bbd", "d10", "10"],
    )
    .ok();
    assert_eq!(mutual, "8 1 0 2 8 7 1 8 1 5\n");
    let json = run(dir.path(), &["dice", "rolls", "--seed", SEED1, "d6", "3", "--format", "json"]).json();
    assert_eq!(json["values"], serde_json::json!([6, 6, 3]));
    assert_eq!(json["die"], "d6");
}

/// Each bad input: exit status, and a word the one-line message must contain.
#[test]
fn bad_input_gets_one_clear_line() {
    let dir = temp();
    let cases: &[(&[&str], i32, &str)] = &[
        (&["dice", "rolls", "--seed", SEED1, "d8", "3"], 2, "d6, d10 and d100"),
        (&["dice", "rolls", "--seed", SEED1, "d10", "0"], 2, "1 to"),
        (&["dice", "rolls", "--seed", SEED1, "d10", "many"], 2, "number of rolls"),
        (&["dice", "rolls", "--seed", "xyz", "d10", "3"], 2, "'x' at position 1"),
        (&["dice", "rolls", "--seed", &SEED1[..62], "d10", "3"], 2, "64 hexadecimal digits"),
        (&["dice", "chain", "--top", "0g", "--length", "3"], 2, "--top"),
        (&["dice", "seed", "--game-id", "g", "--step", "1", "--key", S1, "--digest", "nothex"], 2, "--digest"),
        (
            &[
                "dice",
                "seed",
                "--game-id",
                "g",
                "--step",
                "1",
                "--key",
                S1,
                "--digest",
                DIGEST,
                "--player-key",
                "french",
            ],
            2,
            "SIDE=HEX",
        ),
        (&["dice", "digest", "british"], 2, "SIDE=FILE"),
        (&["dice", "digest", "british=missing.yaml"], 2, "missing.yaml: not found"),
        (&["dice", "digest", "british=-", "french=-"], 2, "only once"),
        (&["roll", "0d10", "--purpose", "x", "--dir", "nowhere"], 2, "1 to 1000"),
        (&["roll", "3d8", "--purpose", "x", "--dir", "nowhere"], 2, "unknown die d8"),
        (&["roll", "3d10", "--purpose", "x", "--dir", "nowhere"], 2, "nowhere: not found"),
        (&["verify", "--dir", "nowhere"], 2, "nowhere: not found"),
        (&["verify", "--dir", "."], 2, "not a game folder"),
        (&["new", "chess", "--scenario", "x", "--dir", "g"], 2, "savannah-1779"),
        (&["new", "savannah-1779", "--scenario", "brandywine", "--dir", "g"], 2, "historical, campaign"),
        (
            &["new", "savannah-1779", "--scenario", "historical", "--dir", "g", "--player", "hessian=Kurt"],
            2,
            "british, french, american",
        ),
    ];
    for (args, code, needle) in cases {
        let stderr = run(dir.path(), args).fails(*code);
        assert_eq!(stderr.lines().count(), 1, "{args:?}: not one line: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: '{needle}' not in: {stderr}");
    }
    // Nothing was created by any of them.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn usage_errors_exit_2_and_help_exits_0() {
    let dir = temp();
    run(dir.path(), &["dice", "rolls"]).fails(2);
    run(dir.path(), &["no-such-command"]).fails(2);
    let help = run(dir.path(), &["--help"]).ok();
    assert!(help.contains("Examples:") && help.contains("Exit status"), "{help}");
    let roll_help = run(dir.path(), &["roll", "--help"]).ok();
    assert!(roll_help.contains("adjutant roll 3d10 --purpose"), "{roll_help}");
}

#[test]
fn colour_only_when_asked_or_on_a_terminal() {
    let dir = temp();
    run(dir.path(), &["roll", "init", "--dir", "r"]).ok();
    // Not a terminal: no escape codes.
    let plain = run(dir.path(), &["roll", "d6", "--purpose", "x", "--dir", "r"]).ok();
    assert!(!plain.contains('\x1b'), "{plain:?}");
    let forced = run(dir.path(), &["roll", "d6", "--purpose", "x", "--dir", "r", "--color", "always"]).ok();
    assert!(forced.contains("\x1b["), "{forced:?}");
    let mut cmd = command(dir.path(), &["roll", "d6", "--purpose", "x", "--dir", "r", "--color", "never"]);
    let never = String::from_utf8(cmd.output().unwrap().stdout).unwrap();
    assert!(!never.contains('\x1b'));
    let stderr = String::from_utf8(
        command(dir.path(), &["verify", "--dir", "nowhere"]).env("NO_COLOR", "1").output().unwrap().stderr,
    )
    .unwrap();
    assert!(!stderr.contains('\x1b') && stderr.starts_with("error:"), "{stderr:?}");
    // On a terminal (util-linux `script` gives the command a pseudo-terminal):
    // colour by default, none with NO_COLOR.
    let on_tty = |no_color: bool| {
        let mut cmd = std::process::Command::new("script");
        cmd.args(["-qec", &format!("'{BIN}' roll d6 --purpose x --dir r"), "/dev/null"]).current_dir(dir.path());
        if no_color {
            cmd.env("NO_COLOR", "1");
        } else {
            cmd.env_remove("NO_COLOR");
        }
        String::from_utf8_lossy(&cmd.output().expect("util-linux script runs").stdout).into_owned()
    };
    let tty = on_tty(false);
    assert!(tty.contains("\x1b[1mstep"), "{tty:?}");
    let tty_no_color = on_tty(true);
    assert!(tty_no_color.contains("step") && !tty_no_color.contains('\x1b'), "{tty_no_color:?}");
}

#[test]
fn a_closed_pipe_is_not_an_error() {
    let dir = temp();
    // `head -1` closes the pipe after one line of a long chain.
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!("'{BIN}' dice chain --top {S3} --length 100000 | head -1; echo \"status ${{PIPESTATUS[0]}}\""))
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.starts_with("0 ") && stdout.ends_with("status 0\n"), "{stdout}");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
}
