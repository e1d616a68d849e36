//! Proving who sent a message (issue 17, src/mail/auth.rs): game.yaml's
//! `senders:` set by `adjutant senders`; per method, a message refused
//! (each refusal byte for byte) and one taken.

mod common;

use common::*;
use std::path::Path;

const ORDERS: &str = "game: club-7\nturn: 16\nstep: allies-movement\nside: french\nmoves: []\n";

/// A message from Charles (the French player) with `headers` above From:,
/// `subject`, and the French movement orders as its body.
fn message(headers: &[&str], subject: &str) -> Vec<u8> {
    let mut m = String::new();
    for h in headers {
        m += &format!("{h}\r\n");
    }
    m += &format!(
        "From: Charles <charles@example.org>\r\nReply-To: eve@evil.example\r\nTo: Referee \
         <referee@example.org>\r\nSubject: {subject}\r\nMessage-ID: <1@example.org>\r\n\r\n"
    );
    m += &ORDERS.replace('\n', "\r\n");
    m.into_bytes()
}

fn submit(d: &Path, raw: &[u8]) -> common::Run {
    run_with_input(d, &["submit", "--dir", "g", "--email", "-", "--format", "json"], raw)
}

/// The refusal a JSON outcome carries, and whom it would be mailed to.
fn refusal(run: common::Run) -> (String, String) {
    let json = run.json();
    (
        json["refused"].as_str().unwrap_or_else(|| panic!("not refused: {json}")).to_string(),
        json["reply_to"].as_str().unwrap_or_default().to_string(),
    )
}

fn taken(run: common::Run) {
    let json = run.json();
    assert!(json["refused"].is_null() && json["receipt"]["sha256"].is_string(), "not taken: {json}");
}

#[test]
fn the_mail_servers_authentication_results_prove_the_sender() {
    let dir = temp();
    let d = dir.path();
    new_historical_game(d);
    let out = run(d, &["senders", "--dir", "g", "authentication-results", "--authserv-id", "mx.club.example"]).ok();
    assert!(out.contains("game club-7 takes orders by mail only when mx.club.example has proven the sender"), "{out}");
    assert!(std::fs::read_to_string(d.join("g/game.yaml"))
        .unwrap()
        .contains("senders:\n  method: authentication-results\n  authserv_id: mx.club.example\n"));
    let inbox = || std::fs::read_dir(d.join("g/inbox")).map(|r| r.count()).unwrap_or(0);

    // A forged From: the only Authentication-Results is another server's
    // (anyone may write one), so the sender is not proven.
    let forged = message(&["Authentication-Results: evil.example; dkim=pass header.d=example.org"], "orders");
    let (said, to) = refusal(submit(d, &forged));
    assert_eq!(
        said,
        "the message carries no Authentication-Results header of mx.club.example, the referee's mail server: \
         game club-7 takes orders by mail only from a sender that server has proven (DKIM or SPF), so its From: \
         cannot be trusted"
    );
    // The refusal goes to the player's address, never to the Reply-To.
    assert_eq!(to, "Charles <charles@example.org>");

    // DKIM fails and SPF passes only for another domain; a forged passing
    // header below the server's own is not read.
    let failed = message(
        &[
            "Authentication-Results: mx.club.example;\r\n  dkim=fail (signature did not verify) header.d=example.org \
             header.s=mail;\r\n  spf=pass smtp.mailfrom=evil.example",
            "Authentication-Results: mx.club.example; dkim=pass header.d=example.org",
        ],
        "orders",
    );
    let (said, _) = refusal(submit(d, &failed));
    assert_eq!(
        said,
        "mx.club.example did not prove the sender charles@example.org: dkim=fail (header.d=example.org, \
         header.s=mail), spf=pass (smtp.mailfrom=evil.example); game club-7 takes orders by mail only when DKIM or \
         SPF passes for the From: address's domain (example.org), so this message's From: may be forged"
    );
    // A signing domain that merely ends in the same letters is not aligned.
    let lookalike = message(&["Authentication-Results: mx.club.example; dkim=pass header.d=badexample.org"], "orders");
    assert!(refusal(submit(d, &lookalike)).0.starts_with("mx.club.example did not prove the sender"));
    assert_eq!(inbox(), 0, "nothing refused is taken");
    let kept = std::fs::read_dir(d.join("g/kept/refused")).unwrap().count();
    assert_eq!(kept, 6, "each refused message kept with its reason");

    // DKIM passing for a subdomain of the From: domain proves the sender.
    let signed = message(
        &["Authentication-Results: MX.Club.Example (version 1); dkim=pass header.d=mail.example.org; spf=none"],
        "orders",
    );
    taken(submit(d, &signed));
    assert!(run(d, &["verify", "--dir", "g"]).ok().contains("verified"));
}

#[test]
fn a_secret_in_the_subject_proves_the_sender() {
    let dir = temp();
    let d = dir.path();
    new_historical_game(d);
    let out = run(d, &["senders", "--dir", "g", "subject-secret"]).ok();
    let secret = std::fs::read_to_string(d.join("g/.secret/sender-french")).unwrap().trim().to_string();
    assert_eq!(secret.len(), 23, "{secret}");
    assert!(out.contains("new secret for french: .secret/sender-french (give it to the player)"), "{out}");
    assert!(!out.contains(&secret), "a secret is never printed: {out}");
    for side in ["british", "american"] {
        assert!(d.join(format!("g/.secret/sender-{side}")).is_file());
    }
    // Another side's secret, or none, is refused.
    let other = std::fs::read_to_string(d.join("g/.secret/sender-british")).unwrap();
    for subject in [format!("orders {}", other.trim()), "orders".to_string(), format!("orders {secret}x")] {
        let (said, to) = refusal(submit(d, &message(&[], &subject)));
        assert_eq!(
            said,
            "the Subject: does not carry the sender secret of french: game club-7 takes orders by mail only with \
             the secret the referee gave each player, as a word of the Subject: (Subject: orders SECRET)"
        );
        assert_eq!(to, "Charles <charles@example.org>");
    }
    taken(submit(d, &message(&[], &format!("Re: orders [{secret}]"))));
    // A stranger is refused as a stranger, not asked for a secret.
    let stranger =
        String::from_utf8(message(&[], "orders")).unwrap().replace("charles@example.org", "eve@evil.example");
    let (said, to) = refusal(submit(d, stranger.as_bytes()));
    assert!(!said.contains("secret") && said.contains("eve@evil.example"), "{said}");
    assert_eq!(to, "", "a stranger gets no answer");
    // Running it again keeps every secret; --renew makes one anew.
    let again = run(d, &["senders", "--dir", "g", "subject-secret", "--renew", "british"]).ok();
    assert!(again.contains("french keeps the secret") && again.contains("new secret for british"), "{again}");
    assert_eq!(std::fs::read_to_string(d.join("g/.secret/sender-french")).unwrap().trim(), secret);
    assert_ne!(std::fs::read_to_string(d.join("g/.secret/sender-british")).unwrap(), other);
    // verify accepts the secrets; publish leaves them and the settings out.
    assert!(run(d, &["verify", "--dir", "g"]).ok().contains("verified"));
    run(d, &["publish", "--dir", "g", "pub"]).ok();
    for (path, bytes) in all_files(&d.join("pub")) {
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains(&secret) && !text.contains("senders:"), "{} holds a sender setting", path.display());
    }
    // Bad settings are refused, naming the flag and what is legal.
    let out = run(d, &["senders", "--dir", "g", "authentication-results"]).fails(2);
    assert!(out.contains("--authserv-id: method authentication-results needs the authserv-id"), "{out}");
    let out = run(d, &["senders", "--dir", "g", "subject-secret", "--renew", "prussian"]).fails(2);
    assert!(out.contains("--renew prussian: no player plays that side"), "{out}");
    // Back to the From: header alone.
    run(d, &["senders", "--dir", "g", "from"]).ok();
    assert!(!std::fs::read_to_string(d.join("g/game.yaml")).unwrap().contains("senders:"));
}
