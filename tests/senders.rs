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

/// A fixture of tests/fixtures/openpgp (made by GnuPG: make.py there).
fn pgp_fixture(name: &str) -> Vec<u8> {
    std::fs::read(repo_root().join("tests/fixtures/openpgp").join(name)).unwrap()
}

#[test]
fn an_openpgp_signature_by_the_players_key_proves_the_sender() {
    let dir = temp();
    let d = dir.path();
    new_historical_game(d);
    let keys = repo_root().join("tests/fixtures/openpgp");
    let key = |side: &str, file: &str| format!("{side}={}", keys.join(file).display());

    // Anything but one public key is refused, saying why; nothing is set.
    for (file, why) in [
        ("signed.eml", "not an armored OpenPGP public key: no line -----BEGIN PGP PUBLIC KEY BLOCK----- (export it with gpg --armor --export ADDRESS)"),
        ("secret.asc", "a secret key: give the player's public key, never his secret one (export it with gpg --armor --export ADDRESS)"),
    ] {
        let out = run(d, &["senders", "--dir", "g", "openpgp", "--key", &key("french", file)]).fails(2);
        assert!(out.contains(&format!("--key {}: {why}", key("french", file))), "{out}");
    }
    let both = d.join("both.asc");
    std::fs::write(&both, [pgp_fixture("charles.asc"), pgp_fixture("mallory.asc")].concat()).unwrap();
    let out = run(d, &["senders", "--dir", "g", "openpgp", "--key", &format!("french={}", both.display())]).fails(2);
    assert!(
        out.contains("holds 2 armored keys where one player's key is needed (export it with gpg --armor --export ADDRESS, naming only his address)"),
        "{out}"
    );
    let out = run(d, &["senders", "--dir", "g", "openpgp", "--key", &key("prussian", "charles.asc")]).fails(2);
    assert!(out.contains("no player plays prussian in game.yaml"), "{out}");
    let out = run(d, &["senders", "--dir", "g", "openpgp"]).fails(2);
    assert!(out.contains("--key: method openpgp needs the public key of at least one player"), "{out}");
    let out = run(d, &["senders", "--dir", "g", "subject-secret", "--key", &key("french", "charles.asc")]).fails(2);
    assert!(out.contains("--key: only method openpgp takes players' keys"), "{out}");
    assert!(
        !d.join("g/openpgp").exists() && !std::fs::read_to_string(d.join("g/game.yaml")).unwrap().contains("senders:")
    );

    let out = run(d, &["senders", "--dir", "g", "openpgp", "--key", &key("french", "charles.asc")]).ok();
    assert!(out.contains("game club-7 takes orders by mail only signed with the player's OpenPGP key"), "{out}");
    assert!(out.contains("new key of french: 9F4D8E10D34F71C3D707C5F6D4C9EDB0F5AF96E6 in openpgp/french.asc"), "{out}");
    assert!(out.contains("american has no key: its orders by mail are refused until you give one"), "{out}");
    assert_eq!(std::fs::read(d.join("g/openpgp/french.asc")).unwrap(), pgp_fixture("charles.asc"));
    assert!(std::fs::read_to_string(d.join("g/game.yaml")).unwrap().contains("senders:\n  method: openpgp\n"));
    let lf_game = d.join("lf");
    copy_dir(&d.join("g"), &lf_game.join("g"));

    // Not signed; signed by another key (with a Reply-To that is never
    // answered); changed after it was signed.
    let with_reply_to = |raw: Vec<u8>| {
        String::from_utf8(raw)
            .unwrap()
            .replacen("\r\nTo: ", "\r\nReply-To: mallory@example.org\r\nTo: ", 1)
            .into_bytes()
    };
    let refusals = [
        (
            "unsigned.eml",
            "the message is not signed with OpenPGP (PGP/MIME, RFC 3156: multipart/signed with protocol \
             application/pgp-signature): game club-7 takes orders by mail only signed with the player's key",
        ),
        (
            "by-mallory.eml",
            "the message is signed by the OpenPGP key 49321EBED4D10605A6209901EAC7C74EEDFCB337, not by the key of \
             french the referee holds: game club-7 takes orders by mail only signed with the player's own key",
        ),
        (
            "tampered.eml",
            "the OpenPGP signature by the key of french does not verify: the message was changed after it was \
             signed; game club-7 takes orders by mail only as the player signed them",
        ),
    ];
    for (file, why) in refusals {
        let (said, to) = refusal(submit(d, &with_reply_to(pgp_fixture(file))));
        assert_eq!(said, why, "{file}");
        assert_eq!(to, "Charles <charles@example.org>", "{file}: the player is told, not the Reply-To");
    }
    // A side without a key cannot send orders by mail.
    let as_ben = String::from_utf8(pgp_fixture("signed.eml")).unwrap().replace("Charles <charles@", "Ben <ben@");
    let (said, to) = refusal(submit(d, as_ben.as_bytes()));
    assert_eq!(
        said,
        "game club-7 takes orders by mail only signed with the player's OpenPGP key, and the referee has no key \
         for the sender's side (adjutant senders openpgp --key SIDE=FILE)"
    );
    assert_eq!(to, "Ben <ben@example.org>");
    assert!(!d.join("g/inbox").exists() || std::fs::read_dir(d.join("g/inbox")).unwrap().count() == 0);

    // Signed by Charles's key: taken, the orders read from the signed part.
    taken(submit(d, &pgp_fixture("signed.eml")));
    let inbox: Vec<_> = std::fs::read_dir(d.join("g/inbox")).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(inbox.len(), 1);
    assert_eq!(std::fs::read_to_string(&inbox[0]).unwrap().replace("\r\n", "\n"), ORDERS);
    // With LF line ends, as a local delivery agent writes it: the same.
    taken(run_with_input(
        &lf_game,
        &["submit", "--dir", "g", "--email", "-", "--format", "json"],
        &pgp_fixture("lf.eml"),
    ));

    // verify accepts the keys; publish leaves them out.
    assert!(run(d, &["verify", "--dir", "g"]).ok().contains("verified"));
    std::fs::write(d.join("g/openpgp/prussian.asc"), "").unwrap();
    let out = run(d, &["verify", "--dir", "g"]).exits(1);
    assert!(out.contains("openpgp/prussian.asc (a player's OpenPGP key is <side>.asc)"), "{out}");
    std::fs::remove_file(d.join("g/openpgp/prussian.asc")).unwrap();
    run(d, &["publish", "--dir", "g", "pub"]).ok();
    assert!(!d.join("pub/openpgp").exists());
    let armored = String::from_utf8(pgp_fixture("charles.asc")).unwrap();
    let body = armored.lines().nth(2).unwrap();
    for (path, bytes) in all_files(&d.join("pub")) {
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains(body) && !text.contains("openpgp"), "{} holds the key or setting", path.display());
    }
    assert!(run(d, &["verify", "pub"]).ok().contains("verified"));
}
