//! Issue 6's must-show: the whole Historical Scenario of Savannah 1779
//! played by email through the CLI alone. Every orders file reaches the
//! game as a raw email (`submit --email --reply`, as procmail would pipe
//! it), each `resolve` writes the sides' reports, and `mail` sends them to
//! the players through a real SMTP server on loopback (STARTTLS, AUTH with
//! the password from an environment variable). The test then reads the
//! mails that arrived, tries the refusals a referee meets (a stranger's
//! address, the wrong side, step, turn or game, a duplicate) with the
//! folder compared byte for byte, scans everything for the chain top and
//! the mail password, and checks that `verify` of the published folder
//! names any file changed.

mod common;
use common::smtp::{start_server, Delivery, TestServer, USER};
use common::*;

use std::collections::BTreeSet;
use std::fs;
use std::path::PathBuf;
use std::process::Stdio;

use mail_parser::{MessageParser, MimeHeaders};

/// The known dice's chain top (tests/common `known_dice`).
const CHAIN_TOP: &str = "1111111111111111111111111111111111111111111111111111111111111111";
const PASSWORD: &str = "pw-Xq7-never-to-be-seen";
const PASSWORD_VAR: &str = "ADJUTANT_TEST_SMTP_PASSWORD";

/// The players of `new_historical_game`.
const PLAYERS: [(&str, &str); 3] =
    [("british", "ann@example.org"), ("french", "charles@example.org"), ("american", "ben@example.org")];

fn address(side: &str) -> &'static str {
    PLAYERS.iter().find(|(s, _)| *s == side).map(|(_, a)| *a).unwrap()
}

/// Everything printed, to be scanned for secrets at the end.
struct Session {
    d: PathBuf,
    printed: String,
    sent_ids: Vec<String>,
    /// The last message sent, byte for byte.
    last_message: Vec<u8>,
}

impl Session {
    fn run(&mut self, args: &[&str], input: Option<&[u8]>) -> Run {
        use std::io::Write;
        let mut cmd = command(&self.d, args);
        cmd.env(PASSWORD_VAR, PASSWORD).stdout(Stdio::piped()).stderr(Stdio::piped());
        if input.is_some() {
            cmd.stdin(Stdio::piped());
        }
        let mut child = cmd.spawn().unwrap();
        if let Some(bytes) = input {
            child.stdin.take().unwrap().write_all(bytes).unwrap();
        }
        let out = child.wait_with_output().unwrap();
        let run = Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        };
        self.printed += &run.stdout;
        self.printed += &run.stderr;
        run
    }

    /// A message from `from` carrying `orders`: as a YAML attachment in
    /// base64 (`attach`), or as the plain-text body with a signature.
    fn email(&mut self, from: &str, orders: &str, attach: bool) -> Vec<u8> {
        let id = format!("<m{}.test@example.org>", self.sent_ids.len());
        self.sent_ids.push(id.clone());
        let head = format!(
            "From: Player <{from}>\r\nTo: Referee <referee@example.org>\r\nSubject: orders\r\n\
             Message-ID: {id}\r\nMIME-Version: 1.0\r\n"
        );
        let body = if attach {
            format!(
                "Content-Type: multipart/mixed; boundary=\"b1\"\r\n\r\n--b1\r\nContent-Type: text/plain\r\n\r\n\
                 My orders are attached.\r\n--b1\r\nContent-Type: application/yaml\r\n\
                 Content-Disposition: attachment; filename=\"orders.yaml\"\r\n\
                 Content-Transfer-Encoding: base64\r\n\r\n{}\r\n--b1--\r\n",
                base64(orders.as_bytes())
            )
        } else {
            format!("Content-Type: text/plain; charset=utf-8\r\n\r\n{}-- \r\nSent from my tent\r\n", orders)
        };
        (head + &body).into_bytes()
    }

    /// Submit `orders` of `side` by email from `from`; the run.
    fn submit(&mut self, from: &str, orders: &str, attach: bool) -> Run {
        let message = self.email(from, orders, attach);
        self.last_message = message.clone();
        self.run(&["submit", "--dir", "g", "--email", "--reply", "-"], Some(&message))
    }

    fn status(&mut self) -> serde_json::Value {
        self.run(&["status", "--dir", "g", "--format", "json"], None).json()
    }
}

fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for (i, chunk) in bytes.chunks(3).enumerate() {
        if i > 0 && i % 19 == 0 {
            out += "\r\n";
        }
        let n = chunk.iter().enumerate().fold(0u32, |n, (j, b)| n | (*b as u32) << (16 - 8 * j));
        for k in 0..4 {
            out.push(if k <= chunk.len() { A[(n >> (18 - 6 * k) & 63) as usize] as char } else { '=' });
        }
    }
    out
}

/// Turn 16's Allied orders written out (as in tests/historical.rs): the
/// French mortar fires, Auxerrois attacks, Prevost stands fast.
fn hand_written(step: &str, side: &str) -> Option<String> {
    let body = match (step, side) {
        ("16-allies-movement", "french") => "moves:\n  - {unit: auxerrois, to: \"1906\"}\n",
        ("16-allies-movement", "american") => "moves: []\n",
        ("16-allies-defensive-artillery-fire", "french") => "mortars:\n  - {unit: mortar-battery, hex: \"1904\"}\n",
        ("16-allies-close-combat", "french") => {
            "attacks:\n  - {attackers: [auxerrois], defenders: [\"1905\"], tactics: skirmish}\n"
        }
        ("16-allies-close-combat", "american") => "",
        ("16-allies-close-combat", "british") => "defence:\n  tactics: stand-fast\n",
        _ => return None,
    };
    let short = step.trim_start_matches("16-");
    Some(format!("# {side}'s orders\ngame: club-7\nturn: 16\nstep: {short}\nside: {side}\n{body}"))
}

fn parse(d: &Delivery) -> mail_parser::Message<'_> {
    MessageParser::default().parse(&d.data).expect("a mail that parses")
}

/// Every text of a message: headers, body parts and attachments decoded.
fn all_text(d: &Delivery) -> String {
    let m = parse(d);
    let mut text = String::from_utf8_lossy(&d.data).into_owned();
    for part in m.parts.iter() {
        text += &String::from_utf8_lossy(part.contents());
    }
    text
}

/// The refusals a referee meets, tried when the game awaits the French
/// mortar's orders (16-allies-defensive-artillery-fire): each exits 1 with
/// its reason, keeps the message with its reason in kept/refused/ and
/// leaves every other byte of the folder as it was, and a player
/// (never a stranger) gets the refusal by mail.
fn refusals(s: &mut Session, server: &TestServer) {
    let g = s.d.join("g");
    let head = |game: &str, turn: u32, step: &str, side: &str| {
        format!("game: {game}\nturn: {turn}\nstep: {step}\nside: {side}\n")
    };
    let mortar = "mortars:\n  - {unit: mortar-battery, hex: \"1904\"}\n";
    let cases: Vec<(&str, String, &str)> = vec![
        // A stranger sends the French orders: no answer goes back to him.
        (
            "eve@example.org",
            head("club-7", 16, "allies-defensive-artillery-fire", "french") + mortar,
            "taken only from",
        ),
        // A player sends another side's orders.
        (
            address("american"),
            head("club-7", 16, "allies-defensive-artillery-fire", "french") + mortar,
            "taken only from the address",
        ),
        // The British player's orders for a step that takes none from him.
        (address("british"), head("club-7", 17, "allies-movement", "british") + "moves: []\n", "not from british"),
        // A step already resolved (stale).
        (address("french"), head("club-7", 16, "allies-movement", "french") + "moves: []\n", "stale"),
        // A turn the scenario does not have.
        (
            address("french"),
            head("club-7", 99, "allies-movement", "french") + "moves: []\n",
            "not a step of this scenario",
        ),
        // Another game.
        (address("french"), head("club-8", 16, "allies-defensive-artillery-fire", "french") + mortar, "game 'club-8'"),
        // Orders that name a unit the French do not have.
        (
            address("french"),
            head("club-7", 16, "allies-defensive-artillery-fire", "french")
                + "mortars:\n  - {unit: no-such-battery, hex: \"1904\"}\n",
            "no-such-battery",
        ),
    ];
    for (n, (from, orders, reason)) in cases.iter().enumerate() {
        let before = all_files(&g);
        let mails = server.deliveries().len();
        let out = s.submit(from, orders, n % 2 == 0).exits(1);
        assert!(out.contains("refused") && out.contains(reason), "case {n}: expected {reason:?}:\n{out}");
        // Nothing changed but the refused message kept, with its reason.
        let now = all_files(&g);
        let added: Vec<_> = now.iter().filter(|f| !before.contains(f)).map(|(p, _)| p.clone()).collect();
        assert!(before.iter().all(|f| now.contains(f)), "case {n}: a refused message changed the game folder");
        let kept = g.join("kept/refused");
        assert_eq!(added.len(), 2, "case {n}: {added:?}");
        assert!(added.iter().all(|p| p.starts_with(&kept)), "case {n}: {added:?}");
        let raw = added.iter().find(|p| p.extension().is_some_and(|e| e == "eml")).unwrap();
        assert_eq!(fs::read(raw).unwrap(), s.last_message, "case {n}: the message is kept byte for byte");
        let why = fs::read_to_string(raw.with_extension("reason")).unwrap();
        assert!(why.starts_with("refused: ") && why.contains(reason), "case {n}: {why}");
        let new: Vec<Delivery> = server.deliveries()[mails..].to_vec();
        if *from == "eve@example.org" {
            assert!(new.is_empty(), "a stranger was answered");
            assert!(out.contains("no answer"), "{out}");
        } else {
            assert_eq!(new.len(), 1, "case {n}: the player gets the refusal");
            assert_eq!(new[0].rcpt_to, vec![from.to_string()]);
            let text = all_text(&new[0]);
            assert!(text.contains("refused") && text.contains(reason), "case {n}: {text}");
            assert_eq!(parse(&new[0]).in_reply_to().as_text(), s.sent_ids.last().map(|id| id.trim_matches(['<', '>'])));
        }
    }
    // A duplicate: the first is taken, the second refused and nothing changes.
    let orders = hand_written("16-allies-defensive-artillery-fire", "french").unwrap();
    let first = s.submit(address("french"), &orders, true).ok();
    assert!(first.contains("received:"), "{first}");
    let before = all_files(&g);
    let again = s.submit(address("french"), &orders, false).ok();
    assert!(again.contains("the same bytes as those already in: nothing changed"), "{again}");
    assert!(!again.contains("--replace"), "{again}");
    assert!(all_files(&g) == before, "a duplicate changed the game folder");
}

#[test]
fn the_historical_scenario_played_by_email_end_to_end() {
    let server = start_server(true, PASSWORD);
    let dir = temp();
    let d = dir.path();
    // The set-up step too is played by email.
    new_historical_game_awaiting_set_up(d);
    let g = d.join("g");
    known_dice(&g);
    let mut config = fs::read_to_string(g.join("game.yaml")).unwrap();
    config += &format!(
        "mail:\n  from: Referee <referee@example.org>\n  transport: smtp\n  host: 127.0.0.1\n  port: {}\n  \
         security: starttls\n  ca_file: {}\n  username: {USER}\n  password_env: {PASSWORD_VAR}\n",
        server.port,
        server.ca_file.as_ref().unwrap().display()
    );
    fs::write(g.join("game.yaml"), config).unwrap();
    let mut s = Session { d: d.to_path_buf(), printed: String::new(), sent_ids: Vec::new(), last_message: Vec::new() };

    // The game, step after step: every awaited side's orders by email.
    let mut receipts = 0;
    let mut tried_refusals = false;
    let mut resolves = Vec::new();
    loop {
        let status = s.status();
        if !status["result"].is_null() {
            break;
        }
        let step = status["step"].as_str().expect("a next step while the game goes on").to_string();
        if step == "16-allies-defensive-artillery-fire" && !tried_refusals {
            refusals(&mut s, &server);
            tried_refusals = true;
            receipts += 1;
        }
        let submitted: BTreeSet<String> =
            status["submitted"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect();
        for side in status["awaiting"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()) {
            if submitted.contains(&side) || (tried_refusals && step == "16-allies-defensive-artillery-fire") {
                continue;
            }
            let orders = hand_written(&step, &side)
                .unwrap_or_else(|| s.run(&["template", "--dir", "g", "--side", &side], None).ok());
            let out = s.submit(address(&side), &orders, receipts % 2 == 0).ok();
            assert!(
                out.contains("received:") && out.contains(&format!("answered Player <{}>", address(&side))),
                "{out}"
            );
            receipts += 1;
        }
        let out = s.run(&["resolve", "--dir", "g"], None).ok();
        assert!(out.contains("reports: reports/"), "{out}");
        resolves.push(out);
        let mailed = s.run(&["mail", "--dir", "g"], None).ok();
        assert_eq!(mailed.matches("sent:").count(), 3, "each side's report goes to its player:\n{mailed}");
        assert!(resolves.len() < 200, "the game does not end");
    }
    let last = resolves.last().unwrap();
    assert!(last.contains("game over:") && last.contains("victory"), "{last}");
    assert!(s.run(&["status", "--dir", "g"], None).ok().contains("victory"));
    let again = s.run(&["mail", "--dir", "g"], None).ok();
    assert!(again.contains("nothing to send"), "a dispatch goes once: {again}");

    // The mails: the receipts answered each submission, the reports went
    // to each side's player with the report, its roll log and the map.
    let deliveries = server.deliveries();
    assert!(deliveries.iter().all(|d| d.user.as_deref() == Some(USER)), "every mail was sent logged in, over TLS");
    let (replies, reports): (Vec<&Delivery>, Vec<&Delivery>) =
        deliveries.iter().partition(|d| parse(d).subject().is_some_and(|s| s.starts_with("Re:")));
    // (The duplicate of `refusals` is answered too: the same bytes, nothing changed.)
    let receipts_mailed = replies
        .iter()
        .filter(|d| all_text(d).contains("received:") && !all_text(d).contains("nothing changed"))
        .count();
    assert_eq!(receipts_mailed, receipts, "one receipt per accepted message");
    let dispatches: Vec<PathBuf> = {
        let mut v: Vec<PathBuf> = fs::read_dir(g.join("reports")).unwrap().map(|e| e.unwrap().path()).collect();
        v.sort();
        v
    };
    assert_eq!(dispatches.len(), resolves.len());
    assert_eq!(reports.len(), 3 * dispatches.len());
    let journal = |step: u32| -> serde_json::Value {
        let text = fs::read_to_string(g.join(format!("journal/{step:06}.yaml"))).unwrap();
        serde_json::to_value(adjutant::base::yaml::from_str::<adjutant::base::yaml::Value>(&text).unwrap()).unwrap()
    };
    let mut rolls_seen = 0;
    for dispatch in &dispatches {
        let name = dispatch.file_name().unwrap().to_string_lossy().into_owned();
        let (first, last) = name.split_once('-').unwrap();
        let (first, last): (u32, u32) = (first.parse().unwrap(), last.parse().unwrap());
        for (side, to) in PLAYERS {
            let subject_start = format!("[club-7] {side}: ");
            let found: Vec<&&Delivery> = reports
                .iter()
                .filter(|d| {
                    let m = parse(d);
                    m.subject().is_some_and(|s| s.starts_with(&subject_start))
                        && m.subject().is_some_and(|s| {
                            s.contains(&format!(": steps {first}-{last} resolved"))
                                || s.contains(&format!(": step {first} resolved"))
                        })
                })
                .collect();
            assert_eq!(found.len(), 1, "{name} to {side}");
            let m = parse(found[0]);
            assert_eq!(found[0].rcpt_to, vec![to.to_string()]);
            let body = m.body_text(0).unwrap().replace("\r\n", "\n");
            let stored = fs::read_to_string(dispatch.join(format!("{side}.txt"))).unwrap();
            assert!(body.starts_with(&stored), "{name}: the body is the side's report as stored");
            // Attached: the template of the next orders the player owes,
            // with the game's last dispatch only (the default of game.yaml's
            // `mail: attachments:`); the map goes once, as the PNG the HTML
            // body shows (issue 16: it went three times, 1.6 MB).
            let names: BTreeSet<String> =
                m.attachments().filter_map(|a| a.attachment_name().map(str::to_string)).collect();
            let template = format!("club-7-{name}-{side}-next-orders.yaml");
            assert!(names.is_empty() || names == BTreeSet::from([template.clone()]), "{name} to {side}: {names:?}");
            if let Some(t) = m.attachments().find(|a| a.attachment_name() == Some(template.as_str())) {
                let text = String::from_utf8_lossy(t.contents());
                assert!(text.contains(&format!("side: {side}")), "{text}");
            }
            let html = m.body_html(0).expect("the HTML as an alternative body");
            assert!(html.contains("src=\"cid:map\"") && !html.contains("<svg"), "the HTML shows the map once, by cid");
            let png = m.parts.iter().find(|p| p.content_id() == Some("map")).expect("the map beside the HTML");
            assert!(png.contents().starts_with(b"\x89PNG\r\n\x1a\n"));
            assert!(found[0].data.len() <= 300 * 1024, "{name} to {side}: {} bytes", found[0].data.len());
            // The roll log: every roll of these steps, with its purpose.
            for step in first..=last {
                for roll in journal(step)["rolls"].as_array().unwrap() {
                    let purpose = roll["purpose"].as_str().unwrap();
                    assert!(body.contains(purpose), "{name} to {side}: the roll for {purpose:?}");
                    rolls_seen += 1;
                }
            }
        }
    }
    assert!(rolls_seen > 0, "the game rolled dice");

    // Secrets: no file (but .secret/), no mail, nothing printed holds the
    // chain top or the mail password.
    for (path, bytes) in all_files(&g) {
        if path.starts_with(g.join(".secret")) {
            continue;
        }
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains(CHAIN_TOP), "{} holds the chain top", path.display());
        assert!(!text.contains(PASSWORD), "{} holds the mail password", path.display());
    }
    for d in &deliveries {
        let text = all_text(d);
        assert!(!text.contains(CHAIN_TOP) && !text.contains(PASSWORD), "a mail holds a secret");
    }
    assert!(!s.printed.contains(CHAIN_TOP) && !s.printed.contains(PASSWORD), "a secret was printed");

    // The published folder (without .secret/) verifies; a byte changed in
    // an orders file, a journal entry or a report's roll is named.
    let published = d.join("published");
    copy_dir(&g, &published);
    fs::remove_dir_all(published.join(".secret")).unwrap();
    let v = run(&published, &["verify", "--dir", "."]).ok();
    assert!(v.starts_with("verified"), "{v}");
    let with_rolls = dispatches
        .iter()
        .find(|d| fs::read_to_string(d.join("british.txt")).unwrap().contains("| 0 | d10 |"))
        .expect("a dispatch with a roll");
    let roll_report = with_rolls.strip_prefix(&g).unwrap().join("british.txt");
    type Change = Box<dyn Fn(Vec<u8>) -> Vec<u8>>;
    let changes: Vec<(PathBuf, Change)> = vec![
        (
            PathBuf::from("orders/000002-french.yaml"), // step 1 is the British set-up
            Box::new(|b: Vec<u8>| String::from_utf8(b).unwrap().replace("1906", "1907").into_bytes()),
        ),
        (
            PathBuf::from("journal/000005.yaml"),
            Box::new(|mut b: Vec<u8>| {
                let i = b.len() / 2;
                b[i] ^= 1;
                b
            }),
        ),
        (
            PathBuf::from("state.yaml"),
            Box::new(|b: Vec<u8>| String::from_utf8(b).unwrap().replacen("turn: ", "turn: 1", 1).into_bytes()),
        ),
        (
            roll_report.clone(),
            Box::new(|b: Vec<u8>| {
                let text = String::from_utf8(b).unwrap();
                let row = text.lines().find(|l| l.starts_with("| 0 | d10 |")).unwrap().to_string();
                let value: u32 = row.split('|').nth(3).unwrap().trim().parse().unwrap();
                let forged = row.replacen(&format!("| {value:>5} |"), &format!("| {:>5} |", value % 10 + 1), 1);
                text.replacen(&row, &forged, 1).into_bytes()
            }),
        ),
    ];
    for (file, change) in &changes {
        let t = d.join("forged");
        copy_dir(&published, &t);
        let before = fs::read(t.join(file)).unwrap();
        let after = change(before.clone());
        assert_ne!(before, after);
        fs::write(t.join(file), after).unwrap();
        let out = run(&t, &["verify", "--dir", "."]).exits(1);
        assert!(out.contains(&file.display().to_string()), "verify must name {}: {out}", file.display());
        fs::remove_dir_all(&t).unwrap();
    }
}
