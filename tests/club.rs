//! Issue 16's must-show: a club game that runs with no hand on the folder.
//! Three players send raw mails through the CLI (`submit --email --reply`,
//! as procmail pipes them), `welcome` mails each player first, and `tick`
//! (as cron runs it, with a fake clock given on the command line: `--now`)
//! resolves what is complete and mails the reports through a real SMTP
//! server on loopback. On the way: a player replaces his orders by mail, a
//! player withdraws orders sent ahead, the second Allied file overspending
//! momentum is refused at once naming the first, a player misses a deadline
//! and the default orders are used, another misses one and his late real
//! file replaces the default before the step is resolved. The game runs to
//! its victory determination; `verify` passes; every mail is at most
//! 300 KB.
//!
//! The game is the demo's (`demo --only-new`: its public chain top) played
//! with the demo's orders files, so the game follows the demo until the
//! default orders change the dice; from there a demo file the position no
//! longer takes is refused by mail, and the player sends the template.

mod common;
use common::smtp::{start_server, Delivery, TestServer, USER};
use common::*;

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use mail_parser::{MessageParser, MimeHeaders};

const PASSWORD: &str = "pw-club-never-seen";
const PASSWORD_VAR: &str = "ADJUTANT_TEST_SMTP_PASSWORD";
/// The most bytes a mail may take (issue 16).
const MAX_MAIL: usize = 300 * 1024;

const PLAYERS: [(&str, &str); 3] =
    [("british", "prevost@example.org"), ("french", "destaing@example.org"), ("american", "lincoln@example.org")];

fn address(side: &str) -> &'static str {
    PLAYERS.iter().find(|(s, _)| *s == side).map(|(_, a)| *a).unwrap()
}

fn parse(d: &Delivery) -> mail_parser::Message<'_> {
    MessageParser::default().parse(&d.data).expect("a mail that parses")
}

fn subject(d: &Delivery) -> String {
    parse(d).subject().unwrap_or_default().to_string()
}

/// Seconds as the fake clock writes them.
fn at(t: i64) -> String {
    let days = t / 86400;
    let secs = t % 86400;
    // 2026-12-01 is day 20788 since 1970-01-01; the game stays in December.
    let day = days - 20788 + 1;
    assert!((1..=31).contains(&day), "the test's clock left December");
    format!("2026-12-{day:02}T{:02}:{:02}:{:02}Z", secs / 3600, secs % 3600 / 60, secs % 60)
}

const START: i64 = 20788 * 86400 + 9 * 3600;
const HOUR: i64 = 3600;

struct Club {
    d: PathBuf,
    n: usize,
}

impl Club {
    fn g(&self) -> PathBuf {
        self.d.join("savannah")
    }

    fn run(&self, args: &[&str]) -> Run {
        let mut cmd = command(&self.d, args);
        cmd.env(PASSWORD_VAR, PASSWORD);
        let out = cmd.output().unwrap();
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// A raw mail from `side`'s player with `body` as its text, piped to
    /// `submit --email --reply` as procmail would.
    fn mail(&mut self, side: &str, body: &str) -> Run {
        use std::io::Write;
        self.n += 1;
        let raw = format!(
            "From: Player <{}>\r\nTo: Referee <referee@example.org>\r\nSubject: orders\r\n\
             Message-ID: <c{}.club@example.org>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nHello referee,\r\n\r\n{}",
            address(side),
            self.n,
            body.replace('\n', "\r\n")
        );
        let mut cmd = command(&self.d, &["submit", "--dir", "savannah", "--email", "--reply", "-"]);
        cmd.env(PASSWORD_VAR, PASSWORD)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        child.stdin.take().unwrap().write_all(raw.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    fn tick(&self, t: i64) -> String {
        self.run(&["tick", "--dir", "savannah", "--now", &at(t)]).ok()
    }

    fn status(&self) -> serde_json::Value {
        self.run(&["status", "--dir", "savannah", "--format", "json"]).json()
    }

    /// The demo's orders of `side` for `step`, else the template's.
    fn orders(&self, step: &str, side: &str) -> String {
        let file = demo_orders(&format!("{step}--{side}"));
        if file.is_file() {
            fs::read_to_string(file).unwrap()
        } else {
            self.run(&["template", "--dir", "savannah", "--side", side]).ok()
        }
    }

    /// `side`'s orders for `step` by mail: the demo's, or the template's
    /// when the position (changed by default orders) refuses them.
    fn send(&mut self, step: &str, side: &str) {
        let out = self.mail(side, &self.orders(step, side));
        if out.code == 1 {
            let template = self.run(&["template", "--dir", "savannah", "--side", side]).ok();
            self.mail(side, &template).ok();
        } else {
            assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
        }
    }
}

fn momentum(side: &str, n: u32) -> String {
    format!("game: savannah-demo\nturn: 17\nstep: initiative\nside: {side}\nmomentum: {{before_roll: {n}}}\n")
}

fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

fn configure(g: &Path, server: &TestServer) {
    let mut config = fs::read_to_string(g.join("game.yaml")).unwrap();
    config += &format!(
        "mail:\n  from: Referee <referee@example.org>\n  transport: smtp\n  host: 127.0.0.1\n  port: {}\n  \
         security: starttls\n  ca_file: {}\n  username: {USER}\n  password_env: {PASSWORD_VAR}\n\
         deadlines:\n  default: {{after: 48h, grace: 6h, remind: 12h}}\n",
        server.port,
        server.ca_file.as_ref().unwrap().display()
    );
    fs::write(g.join("game.yaml"), config).unwrap();
}

#[test]
fn a_club_game_by_mail_runs_from_cron_to_its_victory_determination() {
    let started = std::time::Instant::now();
    let server = start_server(true, PASSWORD);
    let dir = temp();
    let d = dir.path();
    run(d, &["demo", "--keep", ".", "--only-new"]).ok();
    let mut c = Club { d: d.to_path_buf(), n: 0 };
    let g = c.g();
    configure(&g, &server);

    // Welcome: one mail per player, with the anchor and the first template.
    let out = c.run(&["welcome", "--dir", "savannah"]).ok();
    assert_eq!(out.matches("sent:").count(), 3, "{out}");
    let welcomes = server.deliveries();
    assert_eq!(welcomes.len(), 3);
    let config = fs::read_to_string(g.join("game.yaml")).unwrap();
    let anchor_hex = config.lines().find_map(|l| l.strip_prefix("  anchor: ")).unwrap().to_string();
    for w in &welcomes {
        let m = parse(w);
        let text = m.body_text(0).unwrap().to_string();
        assert!(text.contains(&anchor_hex) && text.contains("referee@example.org"), "{text}");
        assert!(text.contains("Deadlines: orders are due 2d"), "{text}");
        assert!(text.lines().all(|l| l.trim_end().chars().count() <= 78), "wrapped at 78:\n{text}");
        let british = w.rcpt_to == vec![address("british").to_string()];
        assert_eq!(m.attachments().count(), usize::from(british), "the template of the first step owed");
    }

    let mut t = START;
    let mut steps = 0;
    let mut shown = BTreeSet::new();
    loop {
        let status = c.status();
        if !status["result"].is_null() {
            break;
        }
        let step = status["step"].as_str().unwrap().to_string();
        let awaiting: Vec<String> =
            status["awaiting"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect();
        // The step's clock starts (cron's tick).
        c.tick(t);
        let mut skip: Vec<&str> = Vec::new();
        match step.as_str() {
            // Replace by mail: the French player's first movement orders
            // are replaced by a newer message.
            "16-allies-movement" => {
                let first = "game: savannah-demo\nturn: 16\nstep: allies-movement\nside: french\nmoves: []\n";
                assert!(c.mail("french", first).ok().contains("received:"));
                let again = c.mail("french", &c.orders(&step, "french")).ok();
                assert!(again.contains("replacing inbox/16-allies-movement--french.yaml"), "{again}");
                // Withdraw by mail: the American sends next turn's movement
                // ahead, then withdraws it.
                let ahead = c.mail("american", &c.orders("17-allies-movement", "american")).ok();
                assert!(ahead.contains("sent ahead"), "{ahead}");
                let withdraw = "game: savannah-demo\nside: american\nwithdraw: 17-allies-movement\n";
                let out = c.mail("american", withdraw).ok();
                assert!(out.contains("withdrawn:") && out.contains("kept as kept/withdrawn/"), "{out}");
                assert!(!g.join("inbox/17-allies-movement--american.yaml").exists());
                skip.push("french");
                shown.insert("replace and withdraw");
            }
            // The Allies hold 2 momentum chits: the French file spends 2,
            // so the American file spending 1 is refused at once, naming
            // the French file; then both send the demo's.
            "17-initiative" => {
                assert_eq!(status["momentum"]["allies"], 2, "{status}");
                let first = momentum("french", 2);
                c.mail("french", &first).ok();
                let out = c.mail("american", &momentum("american", 1)).exits(1);
                assert!(
                    out.contains(&format!(
                        "allies spends 3 momentum chits before the roll but holds 2 [momentum-overspent, 12.62], \
                         together with the orders already in: inbox/17-initiative--french.yaml (sha256 {})",
                        sha256(first.as_bytes())
                    )),
                    "{out}"
                );
                let replaced = c.mail("french", &c.orders(&step, "french")).ok();
                assert!(replaced.contains("replacing"), "{replaced}");
                skip.push("french");
                shown.insert("overspend");
            }
            _ => {}
        }
        // A missed deadline whose late real file replaces the default
        // (the American's movement of turn 17), and one whose default is
        // used (the American's close combat of turn 18).
        let late = step == "17-allies-movement";
        let missed = step == "18-allies-close-combat" && awaiting.iter().any(|s| s == "american");
        for side in &awaiting {
            if skip.contains(&side.as_str()) || ((late || missed) && side == "american") {
                continue;
            }
            c.send(&step, side);
        }
        if late || missed {
            // Nothing resolves while the American owes his orders.
            let out = c.tick(t + HOUR);
            assert!(out.contains("still owing orders: american"), "{out}");
            let before = server.deliveries().len();
            let out = c.tick(t + 37 * HOUR);
            assert!(out.contains("reminded: american"), "{out}");
            let reminder = &server.deliveries()[before..];
            assert_eq!(reminder.len(), 1);
            assert!(subject(&reminder[0]).contains("are due by"), "{}", subject(&reminder[0]));
            let out = c.tick(t + 48 * HOUR);
            assert!(out.contains("defaulted: the least orders for american"), "{out}");
            let inbox = g.join(format!("inbox/{step}--american.yaml"));
            let default = fs::read_to_string(&inbox).unwrap();
            assert!(default.starts_with("# adjutant tick: default orders written for american, not by american"));
            // A plain resolve (procmail's) waits for the grace to end.
            let plain = c.run(&["resolve", "--dir", "savannah"]).ok();
            assert!(plain.contains(&format!("next: {step}")), "{plain}");
            if late {
                let out = c.mail("american", &c.orders(&step, "american")).ok();
                assert!(out.contains(&format!("replacing inbox/{step}--american.yaml")), "{out}");
                shown.insert("late file");
            } else {
                shown.insert("default used");
            }
            t += 54 * HOUR;
            let out = c.tick(t);
            assert!(out.contains(&format!("· {step}")), "resolved at the end of the grace: {out}");
            let k: u32 = status["steps_resolved"].as_u64().unwrap() as u32 + 1;
            let stored = fs::read_to_string(g.join(format!("orders/{k:06}-american.yaml"))).unwrap();
            assert_eq!(
                stored.starts_with("# adjutant tick: default orders"),
                missed,
                "step {k}: the default is used only when no real file came:\n{stored}"
            );
        } else {
            t += HOUR;
            c.tick(t);
        }
        steps += 1;
        assert!(steps < 200, "the game does not end");
    }
    assert_eq!(shown.len(), 4, "{shown:?}");
    let status = c.run(&["status", "--dir", "savannah"]).ok();
    assert!(status.contains("victory"), "{status}");
    let v = c.run(&["verify", "--dir", "savannah"]).ok();
    assert!(v.starts_with("verified"), "{v}");
    // Every mail: sent logged in, at most 300 KB; the last reports give the result.
    let deliveries = server.deliveries();
    for d in &deliveries {
        assert_eq!(d.user.as_deref(), Some(USER));
        assert!(d.data.len() <= MAX_MAIL, "{}: {} bytes", subject(d), d.data.len());
    }
    let largest = deliveries.iter().map(|d| d.data.len()).max().unwrap();
    let over: Vec<String> = deliveries.iter().rev().take(3).map(subject).collect();
    assert!(over.iter().all(|s| s.contains("game over") && s.contains("victory")), "{over:?}");
    // At the end every player gets the result at the top of his last mail,
    // and the final standing (army morale and VPs, the individual winner,
    // Savannah 2.10) in it; every report mail's text fits 78 columns (the
    // footer's too).
    for d in deliveries.iter().rev().take(3) {
        let text = parse(d).body_text(0).unwrap().to_string();
        let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
        let positions = lines.iter().position(|l| *l == "Positions:").expect("a table of positions");
        assert!(lines[..positions].contains(&"game over: allies substantial victory (allied-substantial)"), "{text}");
        assert!(lines.contains(&"| army     | army morale | VPs |"), "{text}");
        assert!(lines.contains(&"individual winner (Savannah 2.10): french"), "{text}");
    }
    for d in deliveries.iter().filter(|d| subject(d).contains(" resolved; ")) {
        let text = parse(d).body_text(0).unwrap().to_string();
        assert!(text.lines().all(|l| l.trim_end().chars().count() <= 78), "{}: wider than 78:\n{text}", subject(d));
    }
    eprintln!(
        "club game: {} mails, the largest {largest} bytes, {steps} rounds, {:.0} s",
        deliveries.len(),
        started.elapsed().as_secs_f64()
    );
}

/// The largest dispatch of each demo game (Historical, and the Campaign's
/// last turns) mailed with the default settings: at most 300 KB a mail.
#[test]
fn the_demo_games_largest_report_mails_stay_under_300_kb() {
    let dir = temp();
    let d = dir.path();
    for (scenario, folder) in [("historical", "savannah"), ("campaign", "campaign")] {
        let keep = d.join(scenario);
        run(d, &["demo", "--scenario", scenario, "--keep", keep.to_str().unwrap()]).ok();
        let g = keep.join(folder);
        // The dispatch whose reports are largest.
        let mut largest = (0, String::new());
        for e in fs::read_dir(g.join("reports")).unwrap() {
            let p = e.unwrap().path();
            let size: u64 = fs::read_dir(&p).unwrap().map(|f| f.unwrap().metadata().unwrap().len()).sum();
            if size > largest.0 {
                largest = (size, p.file_name().unwrap().to_string_lossy().into_owned());
            }
        }
        let out = d.join(format!("{scenario}-out"));
        run(
            &g,
            &[
                "mail",
                "--transport",
                "folder",
                "--from",
                "Referee <ref@example.org>",
                "--folder",
                out.to_str().unwrap(),
                "--dispatch",
                &largest.1,
            ],
        )
        .ok();
        let mut n = 0;
        for (path, bytes) in all_files(&out) {
            assert!(bytes.len() <= MAX_MAIL, "{}: {} bytes", path.display(), bytes.len());
            let m = MessageParser::default().parse(&bytes).unwrap();
            assert!(m.body_html(0).is_some_and(|h| h.contains("cid:map")), "the HTML body shows the map");
            assert_eq!(m.parts.iter().filter(|p| p.content_id() == Some("map")).count(), 1, "the map goes once");
            n += 1;
        }
        assert_eq!(n, 3, "{scenario}");
    }
}

/// Issue 16, the digest per player turn (game.yaml `mail: digest: true`):
/// a side's reports wait until it owes orders, then go in one mail through
/// the SMTP server: every step since its last mail, as `report --steps`
/// renders them; `mailed.yaml` records each dispatch it covers, so that a
/// second `mail` sends nothing. The British, awaited first at the Allied
/// Close Combat (12.11: they defend), get one mail for the set-up, the
/// Allied movement and fire, then one for the close combat.
#[test]
fn a_digest_waits_until_the_side_owes_orders() {
    let dir = temp();
    let d = dir.path();
    new_historical_game(d);
    let g = d.join("g");
    let server = start_server(true, PASSWORD);
    let mut config = fs::read_to_string(g.join("game.yaml")).unwrap();
    config += &format!(
        "mail:\n  from: Referee <referee@example.org>\n  transport: smtp\n  host: 127.0.0.1\n  port: {}\n  \
         security: starttls\n  ca_file: {}\n  username: {USER}\n  password_env: {PASSWORD_VAR}\n  digest: true\n",
        server.port,
        server.ca_file.as_ref().unwrap().display()
    );
    fs::write(g.join("game.yaml"), config).unwrap();
    play_turn_16_opening(d);
    let mail = || {
        let mut cmd = command(d, &["mail", "--dir", "g"]);
        cmd.env(PASSWORD_VAR, PASSWORD);
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    mail();
    let deliveries = server.deliveries();
    // new_historical_game's players: Ann is British.
    let to = |address: &str| {
        deliveries.iter().filter(|d| d.rcpt_to == vec![address.to_string()]).map(subject).collect::<Vec<_>>()
    };
    let dispatches: Vec<String> = {
        let mut v: Vec<String> = fs::read_dir(g.join("reports"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains('-'))
            .collect();
        v.sort();
        v
    };
    assert_eq!(dispatches.len(), 4, "{dispatches:?}");
    let close_combat = dispatches[3].split('-').next().unwrap().trim_start_matches('0').to_string();
    let before = dispatches[2].split('-').nth(1).unwrap().trim_start_matches('0').to_string();
    let british = to("ann@example.org");
    assert_eq!(
        british,
        vec![
            format!("[club-7] british: steps 1-{before} resolved; your orders for 16-allies-close-combat, please"),
            format!("[club-7] british: step {close_combat} resolved; your orders for 16-british-movement, please"),
        ],
        "{:?}",
        deliveries.iter().map(subject).collect::<Vec<_>>()
    );
    // The digest is the report of its steps, as `report --steps` gives it.
    let digest = deliveries.iter().find(|d| subject(d).contains("steps 1-")).unwrap();
    let text = parse(digest).body_text(0).unwrap().replace("\r\n", "\n");
    let report = run(d, &["report", "--dir", "g", "--side", "british", "--steps", &format!("1-{before}")]).ok();
    assert!(text.starts_with(&report), "the digest's body is the report of steps 1-{before}:\n{text}");
    for step in 1..=before.parse::<u32>().unwrap() {
        assert!(text.contains(&format!("== Step {step}: ")), "step {step} is in the digest");
    }
    // Every dispatch is recorded for the British, each once; mailing again sends nothing.
    let mailed = fs::read_to_string(g.join("mailed.yaml")).unwrap();
    for name in &dispatches {
        assert!(mailed.contains(&format!("dispatch: {name}\n  side: british\n")), "{name}:\n{mailed}");
    }
    let again = server.deliveries().len();
    mail();
    assert_eq!(server.deliveries().len(), again, "a second mail sends nothing");
}
