//! Issue 16, sturdier intake: each form a player's mail program gives
//! orders in, as a raw message byte for byte, through `submit --email`;
//! the bytes stored are exactly the bytes used, and the receipt's hash is
//! theirs. Then the errors in a player's words, each message byte for byte.

mod common;
use common::*;

use std::fs;
use std::path::Path;

fn sha256(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// The French movement orders of turn 16, as stored.
const ORDERS: &str =
    "game: club-7\nturn: 16\nstep: allies-movement\nside: french\nmoves:\n  - {unit: auxerrois, to: \"1906\"}\n";

fn crlf(text: &str) -> Vec<u8> {
    text.replace('\n', "\r\n").into_bytes()
}

/// Submit `raw`; the run.
fn send(d: &Path, raw: &[u8]) -> Run {
    run_with_input(d, &["submit", "--dir", "g", "--email", "-"], raw)
}

/// Submit `raw` and check that the French file stored is exactly `want`
/// and the receipt gives its hash and its source.
fn stored(d: &Path, raw: &[u8], want: &str, source: &str) {
    let out = send(d, raw);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains(&format!("  sha256 {}\n", sha256(want.as_bytes()))), "{}", out.stdout);
    assert!(out.stdout.contains(&format!("  from charles@example.org ({source})\n")), "{}", out.stdout);
    assert_eq!(fs::read_to_string(d.join("g/inbox/16-allies-movement--french.yaml")).unwrap(), want);
    fs::remove_file(d.join("g/inbox/16-allies-movement--french.yaml")).unwrap();
}

const HEAD: &str = "From: Charles <charles@example.org>\nTo: referee@example.org\nSubject: orders\n";

#[test]
fn each_form_of_a_players_message_gives_the_orders_byte_for_byte() {
    let dir = temp();
    let d = dir.path();
    new_historical_game(d);
    // A greeting line before the orders, and a signature without "-- ".
    let greeting = format!("{HEAD}\nHello referee,\n\n{ORDERS}\nThanks,\nCharles\n");
    stored(d, &crlf(&greeting), ORDERS, "text/plain body");
    // A comment heading the orders stays with them; the greeting does not.
    let commented = format!("# the French march\n{ORDERS}");
    stored(d, &crlf(&format!("{HEAD}\nDear referee,\n{commented}")), &commented, "text/plain body");
    // A reply above a quoted earlier message (top posting), and below one.
    let top = format!(
        "{HEAD}\n{ORDERS}\nOn Tue, the referee wrote:\n> received: orders of french\n>   sha256 00\n>\n> game: club-7\n"
    );
    stored(d, &crlf(&top), ORDERS, "text/plain body");
    let bottom = format!("{HEAD}\n> the step still awaits orders from french\n> game: club-7\n\n{ORDERS}");
    stored(d, &crlf(&bottom), ORDERS, "text/plain body");
    // Orders in a .txt attachment: its bytes exactly.
    let txt = format!(
        "{HEAD}MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"b\"\n\n--b\nContent-Type: text/plain\n\n\
         My orders are attached.\n--b\nContent-Type: text/plain; name=\"orders.txt\"\n\
         Content-Disposition: attachment; filename=\"orders.txt\"\nContent-Transfer-Encoding: base64\n\n{}\n--b--\n",
        base64(ORDERS.as_bytes())
    );
    stored(d, &crlf(&txt), ORDERS, "attachment orders.txt");
    // A forwarded message (message/rfc822), the orders in its body.
    let forwarded = format!(
        "{HEAD}MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"f\"\n\n--f\nContent-Type: text/plain\n\n\
         Forwarding my orders from my other address.\n--f\nContent-Type: message/rfc822\n\n\
         From: Charles <charles@elsewhere.example>\nSubject: orders\nContent-Type: text/plain\n\n{ORDERS}\n--f--\n"
    );
    stored(d, &crlf(&forwarded), ORDERS, "forwarded message, text/plain body");
    // A message forwarded inline: its header lines are not orders.
    let inline = format!(
        "{HEAD}\n---------- Forwarded message ---------\nFrom: Charles <charles@elsewhere.example>\n\
         Date: Tue, 1 Dec 2026\nSubject: orders\nTo: referee@example.org\n\n{ORDERS}"
    );
    stored(d, &crlf(&inline), ORDERS, "text/plain body");
    run(d, &["verify", "--dir", "g"]).ok();
}

#[test]
fn one_message_carries_the_files_of_several_sides_a_player_holds() {
    let dir = temp();
    let d = dir.path();
    run(
        d,
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
            "british=Ann <ann@example.org>",
            "--player",
            "french=Charles <allies@example.org>",
            "--player",
            "american=Charles <allies@example.org>",
        ],
    )
    .ok();
    known_dice(&d.join("g"));
    resolve_set_up(d, "g");
    let american = ORDERS
        .replace("side: french", "side: american")
        .replace("  - {unit: auxerrois, to: \"1906\"}\n", "")
        .replace("moves:\n", "moves: []\n");
    let message = format!(
        "From: Charles <allies@example.org>\nSubject: orders\nMIME-Version: 1.0\n\
         Content-Type: multipart/mixed; boundary=\"s\"\n\n--s\nContent-Type: text/plain\n\nBoth files.\n\
         --s\nContent-Type: application/yaml\nContent-Disposition: attachment; filename=\"french.yaml\"\n\
         Content-Transfer-Encoding: base64\n\n{}\n--s\nContent-Type: application/yaml\n\
         Content-Disposition: attachment; filename=\"american.yaml\"\nContent-Transfer-Encoding: base64\n\n{}\n--s--\n",
        base64(ORDERS.as_bytes()),
        base64(american.as_bytes())
    );
    let out = send(d, &crlf(&message));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("orders of french for step 16-allies-movement"), "{}", out.stdout);
    assert!(out.stdout.contains("orders of american for step 16-allies-movement"), "{}", out.stdout);
    assert_eq!(fs::read_to_string(d.join("g/inbox/16-allies-movement--french.yaml")).unwrap(), ORDERS);
    assert_eq!(fs::read_to_string(d.join("g/inbox/16-allies-movement--american.yaml")).unwrap(), american);
    run(d, &["resolve", "--dir", "g"]).ok();
    run(d, &["verify", "--dir", "g"]).ok();
}

/// The refusal `submit --email` prints for a message whose body is `body`.
fn refusal(d: &Path, body: &str) -> String {
    let out = send(d, &crlf(&format!("{HEAD}\n{body}")));
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    out.stdout.lines().next().unwrap_or_default().to_string()
}

#[test]
fn errors_are_said_in_a_players_words() {
    let dir = temp();
    let d = dir.path();
    new_historical_game(d);
    let label = "refused: the message from charles@example.org (text/plain body)";
    // A tab.
    let tab = ORDERS.replace("  - {unit", "\t- {unit");
    assert_eq!(
        refusal(d, &tab),
        format!(
            "{label}:6:1: a tab: YAML indents with spaces only; replace the tab at the start of this line with \
             spaces (two for each level)"
        )
    );
    // A line that is not orders, with orders after it.
    let words = ORDERS.replace("moves:\n", "I march on the redoubt:\nmoves:\n");
    assert_eq!(
        refusal(d, &words),
        "refused: Line 5 of your message, 'I march on the redoubt:', is not orders, and orders follow it: keep your \
         words before the orders (before the line game:) or after them, or send the orders as an attached file."
    );
    // An unquoted hex id: the same advice wherever a hex id appears.
    let bare = ORDERS.replace("to: \"1906\"", "to: 1906");
    assert_eq!(
        refusal(d, &bare),
        format!(
            "{label}:6:23: moves[0].to: write hex ids as quoted strings of four digits, e.g. \"1906\" \
             [not-a-hex-id, docs/orders.md]"
        )
    );
    let path = ORDERS.replace("to: \"1906\"", "path: [1906]");
    assert_eq!(
        refusal(d, &path),
        format!(
            "{label}:6:30: moves[0].path[0]: write hex ids as quoted strings of four digits, e.g. \"1906\" \
             [not-a-hex-id, docs/orders.md]"
        )
    );
    // A type error is one problem: no cascade of follow-on errors.
    let out = send(
        d,
        &crlf(&format!("{HEAD}\n{}", ORDERS.replace("moves:\n  - {unit: auxerrois, to: \"1906\"}\n", "moves: 7\n"))),
    );
    assert_eq!(
        out.stdout.lines().filter(|l| l.starts_with("refused:") || l.contains(": moves")).count(),
        1,
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.starts_with(&format!(
            "{label}:5:1: moves: invalid type: integer `7`, expected a sequence (movement orders are `moves:`, a list \
             of moves) [orders-shape, docs/orders.md]\n"
        )),
        "{}",
        out.stdout
    );
}

fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for (i, chunk) in bytes.chunks(3).enumerate() {
        if i > 0 && i % 19 == 0 {
            out += "\n";
        }
        let n = chunk.iter().enumerate().fold(0u32, |n, (j, b)| n | (*b as u32) << (16 - 8 * j));
        for k in 0..4 {
            out.push(if k <= chunk.len() { A[(n >> (18 - 6 * k) & 63) as usize] as char } else { '=' });
        }
    }
    out
}
