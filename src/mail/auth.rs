//! Proving who sent a message (issue 17): the From: header alone is what
//! anyone may write, so a game may require more before it takes orders by
//! mail. game.yaml's `senders:` chooses one method for the game:
//!
//! ```yaml
//! senders:
//!   method: authentication-results   # or subject-secret, openpgp; absent: the From: header alone
//!   authserv_id: mx.club.example     # authentication-results: the referee's own mail server
//! ```
//!
//! - `authentication-results`: the referee's own mail server checks DKIM
//!   and SPF as mail arrives and writes what it found in an
//!   Authentication-Results header (RFC 8601) naming itself by its
//!   authserv-id. Only the first such header naming the configured
//!   authserv-id is read (a server puts its own above those it received,
//!   and a well-run one removes received headers that claim its id,
//!   RFC 8601 §5); the sender is proven when it records `dkim=pass` with
//!   a signing domain (`header.d`) aligned with the From: address's
//!   domain, `spf=pass` with the envelope sender's (`smtp.mailfrom`)
//!   domain aligned, or `dmarc=pass` for the From: domain (`header.from`).
//!   Aligned (DMARC's relaxed alignment): the same domain, or one a
//!   subdomain of the other.
//! - `subject-secret`: each side's player has a secret,
//!   `.secret/sender-SIDE`, made by `adjutant senders --dir G` and given
//!   to the player by the referee; the message's Subject: must carry the
//!   secret of a side the sender's address plays, as a word of its own.
//!   (Weaker: the secret travels in the clear with every message.)
//! - `openpgp`: each side's player's public key in `openpgp/SIDE.asc`
//!   (`adjutant senders openpgp --key SIDE=FILE`); the message must be
//!   PGP/MIME (RFC 3156) signed by it, and its orders are read from the
//!   signed part alone ([`check_openpgp`]).
//!
//! A message that fails is refused with the reason, and the refusal goes
//! to the player's address in game.yaml, never to another address the
//! message gives. This module reads headers and signatures only; `game::inbox` applies it.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// game.yaml's `senders:`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Senders {
    pub method: Method,
    /// For `authentication-results`: the authserv-id of the referee's
    /// mail server, as its Authentication-Results headers give it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authserv_id: Option<String>,
}

/// How a sender is proven.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// The referee's mail server's Authentication-Results (RFC 8601).
    AuthenticationResults,
    /// A per-player secret in the Subject: header.
    SubjectSecret,
    /// A PGP/MIME signature (RFC 3156) by the player's key, `openpgp/SIDE.asc`.
    Openpgp,
}

impl Senders {
    /// The settings' own problem, if any (a field of game.yaml and what
    /// is legal), checked when a message is read.
    pub fn problem(&self) -> Option<String> {
        match (self.method, self.authserv_id.as_deref().map(str::trim)) {
            (Method::AuthenticationResults, None | Some("")) => Some(
                "senders.authserv_id: method authentication-results needs the authserv-id of your own mail \
                 server (the first word of the Authentication-Results headers it writes)"
                    .into(),
            ),
            (Method::SubjectSecret | Method::Openpgp, Some(_)) => {
                Some("senders.authserv_id: only method authentication-results takes an authserv-id".into())
            }
            _ => None,
        }
    }
}

/// The file of a side's sender secret, in `.secret/`.
pub fn secret_file(side: &str) -> String {
    format!("sender-{side}")
}

/// The side a `.secret/` file name is the sender secret of.
pub fn secret_side(name: &str) -> Option<&str> {
    name.strip_prefix("sender-").filter(|s| !s.is_empty())
}

/// A new sender secret: 100 random bits as four groups of five letters
/// and digits (no 0, 1, o, l: read aloud or copied by hand without doubt).
pub fn new_secret() -> std::result::Result<String, String> {
    const ALPHABET: &[u8; 32] = b"23456789abcdefghijkmnpqrstuvwxyz";
    let mut bytes = [0u8; 20];
    getrandom::fill(&mut bytes).map_err(|e| format!("no random bytes from the system: {e}"))?;
    let mut out = String::new();
    for (i, b) in bytes.iter().enumerate() {
        if i > 0 && i % 5 == 0 {
            out.push('-');
        }
        out.push(ALPHABET[usize::from(b & 31)] as char);
    }
    Ok(out)
}

/// Whether `subject` carries `secret` as a word (compared in constant time).
pub fn subject_carries(subject: &str, secret: &str) -> bool {
    let secret = secret.trim().as_bytes();
    let mut found = false;
    for word in subject.split(|c: char| c.is_whitespace() || matches!(c, '[' | ']' | '(' | ')' | ',' | ';' | ':')) {
        let word = word.as_bytes();
        if word.len() == secret.len() && !secret.is_empty() {
            let diff = word.iter().zip(secret).fold(0u8, |d, (a, b)| d | (a ^ b));
            found |= diff == 0;
        }
    }
    found
}

/// Check a subject against the secrets of the sides the sender plays
/// (`secrets`: side and secret, read from `.secret/`).
pub fn check_subject(game: &str, subject: Option<&str>, secrets: &[(String, String)]) -> Result<(), String> {
    let sides = secrets.iter().map(|(s, _)| s.as_str()).collect::<Vec<_>>().join(", ");
    if secrets.is_empty() {
        return Err(format!(
            "game {game} takes orders by mail only with the player's sender secret in the Subject:, and the \
             referee has given the sender's side no secret yet (adjutant senders)"
        ));
    }
    let subject = subject.unwrap_or("");
    if secrets.iter().any(|(_, secret)| subject_carries(subject, secret)) {
        return Ok(());
    }
    Err(format!(
        "the Subject: does not carry the sender secret of {sides}: game {game} takes orders by mail only \
         with the secret the referee gave each player, as a word of the Subject: (Subject: orders SECRET)"
    ))
}

/// Read each side's sender secret from `.secret/` (those present).
pub fn read_secrets(secret_dir: &Path, sides: &[String]) -> crate::base::error::Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    for side in sides {
        let path = secret_dir.join(secret_file(side));
        if path.is_file() {
            let bytes = crate::base::fsio::read(&path)?;
            // Never echoed: a file that is not text is no secret.
            let text = String::from_utf8(bytes).unwrap_or_default();
            if !text.trim().is_empty() {
                out.push((side.clone(), text.trim().to_string()));
            }
        }
    }
    Ok(out)
}

/// The values of a top-level header of a raw message, in order, each
/// unfolded (RFC 5322 §2.2.3); the header section ends at the first
/// empty line. Bytes that are not UTF-8 are replaced.
pub fn header_values(raw: &[u8], name: &str) -> Vec<String> {
    let text = String::from_utf8_lossy(raw);
    let mut values: Vec<String> = Vec::new();
    let mut current: Option<String> = None;
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() {
            break;
        }
        if line.starts_with([' ', '\t']) {
            if let Some(value) = current.as_mut() {
                value.push(' ');
                value.push_str(line.trim());
            }
            continue;
        }
        values.extend(current.take());
        current = line
            .split_once(':')
            .filter(|(field, _)| field.trim().eq_ignore_ascii_case(name))
            .map(|(_, value)| value.trim().to_string());
    }
    values.extend(current);
    values
}

/// Check a message's sender by the game's method: `raw` the message,
/// `from` its From: address (bare), `subject` its Subject:, `secrets` the
/// sender secrets of the sides the From: address plays.
pub fn check(
    game: &str,
    senders: &Senders,
    raw: &[u8],
    from: &str,
    subject: Option<&str>,
    secrets: &[(String, String)],
) -> Result<(), String> {
    if let Some(problem) = senders.problem() {
        return Err(format!("game.yaml: {problem}; the referee must correct it before orders are taken by mail"));
    }
    match senders.method {
        Method::AuthenticationResults => check_results(
            game,
            senders.authserv_id.as_deref().unwrap_or_default(),
            &header_values(raw, "Authentication-Results"),
            from,
        ),
        Method::SubjectSecret => check_subject(game, subject, secrets),
        // Checked by [`check_openpgp`], which also gives the signed part.
        Method::Openpgp => Ok(()),
    }
}

/// The folder of the players' OpenPGP public keys in a game folder, one
/// armored key a side: `openpgp/SIDE.asc`. Not `keys/`: in mutual mode a
/// key is a dice chain's (DICE.md 7), and these are no secret but carry
/// each player's address in their user ids, so `publish` leaves them out.
pub const KEYS_DIR: &str = "openpgp";

/// A side's public key file in [`KEYS_DIR`].
pub fn key_file(side: &str) -> String {
    format!("{side}.asc")
}

/// The side an [`KEYS_DIR`] file name is the key of.
pub fn key_side(name: &str) -> Option<&str> {
    name.strip_suffix(".asc").filter(|s| !s.is_empty())
}

/// Each side's armored public key from [`KEYS_DIR`] (those present).
pub fn read_keys(keys_dir: &Path, sides: &[String]) -> crate::base::error::Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    for side in sides {
        let path = keys_dir.join(key_file(side));
        if path.is_file() {
            let text = String::from_utf8(crate::base::fsio::read(&path)?).unwrap_or_default();
            out.push((side.clone(), text));
        }
    }
    Ok(out)
}

/// The most bytes of a key file read.
const KEY_MAX: usize = 1 << 20;

/// One armored OpenPGP public key (a transferable public key, RFC 9580
/// §10.1, as `gpg --armor --export ADDRESS` writes it), read and its
/// self-signatures checked; the error says why in words.
pub fn read_key(armored: &str) -> Result<pgp::composed::SignedPublicKey, String> {
    use pgp::composed::PublicOrSecret;
    const HOW: &str = "export it with gpg --armor --export ADDRESS";
    if armored.len() > KEY_MAX {
        return Err(format!("larger than a public key may be ({KEY_MAX} bytes)"));
    }
    if !armored.contains("-----BEGIN PGP PUBLIC KEY BLOCK-----") {
        if armored.contains("-----BEGIN PGP PRIVATE KEY BLOCK-----") {
            return Err(format!("a secret key: give the player's public key, never his secret one ({HOW})"));
        }
        return Err(format!("not an armored OpenPGP public key: no line -----BEGIN PGP PUBLIC KEY BLOCK----- ({HOW})"));
    }
    let blocks = armored.matches("-----BEGIN PGP PUBLIC KEY BLOCK-----").count();
    if blocks > 1 {
        return Err(format!(
            "holds {blocks} armored keys where one player's key is needed ({HOW}, naming only his address)"
        ));
    }
    let unreadable = |e: pgp::errors::Error| {
        format!("not a readable OpenPGP public key ({}); {HOW}", crate::base::error::echo_at_most(&e.to_string(), 120))
    };
    let (keys, _) = PublicOrSecret::from_armor_many(armored.as_bytes()).map_err(unreadable)?;
    let mut found = Vec::new();
    for key in keys {
        found.push(key.map_err(unreadable)?);
        if found.len() > 1 {
            break;
        }
    }
    let key = match found.len() {
        0 => return Err(format!("holds no OpenPGP key ({HOW})")),
        1 => found.remove(0),
        _ => {
            return Err(format!(
                "holds more than one key where one player's key is needed ({HOW}, naming only his address)"
            ))
        }
    };
    let PublicOrSecret::Public(key) = key else {
        return Err(format!("a secret key: give the player's public key, never his secret one ({HOW})"));
    };
    key.verify_bindings().map_err(|e| {
        format!(
            "its self-signatures do not verify ({}): a key changed or damaged after it was made",
            crate::base::error::echo_at_most(&e.to_string(), 120)
        )
    })?;
    Ok(key)
}

/// A key's fingerprint, in upper-case hexadecimal (as gpg prints it).
pub fn fingerprint(key: &pgp::composed::SignedPublicKey) -> String {
    use pgp::types::KeyDetails;
    format!("{:X}", key.primary_key.fingerprint())
}

/// The most bytes of a signed part checked (a message is at most 10 MiB).
const SIGNED_MAX: usize = 10 << 20;

/// Check a PGP/MIME message (RFC 3156: `multipart/signed` with protocol
/// `application/pgp-signature`) against the public keys of the sides the
/// sender plays (`keys`: side and armored key). On success, the message
/// to take the orders from: the top-level headers with the signed part
/// as the body, so that nothing outside the signature is read.
pub fn check_openpgp(game: &str, raw: &[u8], keys: &[(String, String)]) -> Result<Vec<u8>, String> {
    let unsigned = || {
        format!(
            "the message is not signed with OpenPGP (PGP/MIME, RFC 3156: multipart/signed with protocol \
             application/pgp-signature): game {game} takes orders by mail only signed with the player's key"
        )
    };
    let (head, body) = split_head(raw).ok_or_else(unsigned)?;
    let content_type = header_values(head, "Content-Type").into_iter().next().ok_or_else(unsigned)?;
    let params = content_type_params(&content_type);
    let is_signed = content_type.split(';').next().is_some_and(|t| t.trim().eq_ignore_ascii_case("multipart/signed"));
    let protocol = params.iter().find(|(k, _)| k == "protocol").map(|(_, v)| v.to_ascii_lowercase());
    let boundary = params.iter().find(|(k, _)| k == "boundary").map(|(_, v)| v.clone());
    let (true, Some("application/pgp-signature"), Some(boundary)) = (is_signed, protocol.as_deref(), boundary) else {
        return Err(unsigned());
    };
    let parts = multipart_parts(body, &boundary);
    let [signed, signature] = parts.as_slice() else {
        return Err(format!("the signed message has {} parts where PGP/MIME has 2 (RFC 3156 §5)", parts.len()));
    };
    if signed.len() > SIGNED_MAX {
        return Err("the signed part is larger than a message may be".into());
    }
    let sig_text = String::from_utf8_lossy(signature);
    let armored = sig_text.find("-----BEGIN PGP SIGNATURE-----").map(|i| &sig_text[i..]).ok_or_else(|| {
        "the second part of the signed message holds no armored OpenPGP signature (-----BEGIN PGP SIGNATURE-----)"
            .to_string()
    })?;
    let signature = {
        use pgp::composed::Deserializable;
        pgp::composed::DetachedSignature::from_string(armored).map(|(s, _)| s).map_err(|e| {
            format!("the OpenPGP signature cannot be read ({})", crate::base::error::echo_at_most(&e.to_string(), 120))
        })?
    };
    // RFC 3156 §5: the signed part in canonical form, every line ending CRLF.
    let canonical = crlf(signed);
    let sides = keys.iter().map(|(s, _)| s.as_str()).collect::<Vec<_>>().join(", ");
    if keys.is_empty() {
        return Err(format!(
            "game {game} takes orders by mail only signed with the player's OpenPGP key, and the referee has no \
             key for the sender's side (adjutant senders openpgp --key SIDE=FILE)"
        ));
    }
    let keys: Vec<pgp::composed::SignedPublicKey> = keys
        .iter()
        .map(|(side, armored)| {
            read_key(armored).map_err(|e| {
                format!(
                    "game.yaml: {KEYS_DIR}/{}: {e}; the referee must correct it before orders are taken by mail",
                    key_file(side)
                )
            })
        })
        .collect::<Result<_, _>>()?;
    // Every key that may sign: the primary key and its subkeys.
    let signers = || {
        keys.iter().flat_map(|key| {
            std::iter::once(&key.primary_key as &dyn SignerKey)
                .chain(key.public_subkeys.iter().map(|sub| &sub.key as &dyn SignerKey))
        })
    };
    // The signature names the key that made it (an issuer fingerprint or
    // key id subpacket, RFC 9580 §5.2.3.12, .35): another key is said so.
    let fingerprints: Vec<String> = signature.signature.issuer_fingerprint().iter().map(|f| format!("{f:X}")).collect();
    let key_ids: Vec<String> = signature.signature.issuer_key_id().iter().map(|k| upper_hex(k.as_ref())).collect();
    let named = !fingerprints.is_empty() || !key_ids.is_empty();
    let is_issuer = |k: &dyn SignerKey| {
        let (fp, id) = (k.fingerprint_hex(), k.key_id_hex());
        fingerprints.contains(&fp) || key_ids.contains(&id)
    };
    if named && !signers().any(is_issuer) {
        let by = fingerprints.first().or(key_ids.first()).cloned().unwrap_or_default();
        return Err(format!(
            "the message is signed by the OpenPGP key {by}, not by the key of {sides} the referee holds: game \
             {game} takes orders by mail only signed with the player's own key"
        ));
    }
    let good = signers().filter(|k| !named || is_issuer(*k)).any(|k| k.verifies(&signature, &canonical));
    if !good {
        return Err(format!(
            "the OpenPGP signature by the key of {sides} does not verify: the message was changed after it was \
             signed; game {game} takes orders by mail only as the player signed them"
        ));
    }
    // The orders are read from the signed part alone, under the message's
    // own From:, Subject:, Message-ID: and References:.
    let mut message = Vec::new();
    for name in ["From", "To", "Subject", "Message-ID", "References", "In-Reply-To"] {
        for value in header_values(head, name) {
            message.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
        }
    }
    message.extend_from_slice(b"MIME-Version: 1.0\r\n");
    message.extend_from_slice(&canonical);
    Ok(message)
}

/// Bytes in upper-case hexadecimal.
fn upper_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02X}")).collect()
}

/// A primary key or subkey that may have made a signature.
trait SignerKey {
    fn fingerprint_hex(&self) -> String;
    fn key_id_hex(&self) -> String;
    fn verifies(&self, signature: &pgp::composed::DetachedSignature, content: &[u8]) -> bool;
}

impl<K: pgp::types::VerifyingKey> SignerKey for K {
    fn fingerprint_hex(&self) -> String {
        format!("{:X}", self.fingerprint())
    }
    fn key_id_hex(&self) -> String {
        upper_hex(self.legacy_key_id().as_ref())
    }
    fn verifies(&self, signature: &pgp::composed::DetachedSignature, content: &[u8]) -> bool {
        signature.verify(self, content).is_ok()
    }
}

/// A message's header section and body (split at the first empty line).
fn split_head(raw: &[u8]) -> Option<(&[u8], &[u8])> {
    let crlf = raw.windows(4).position(|w| w == b"\r\n\r\n").map(|i| (i + 2, i + 4));
    let lf = raw.windows(2).position(|w| w == b"\n\n").map(|i| (i + 1, i + 2));
    let (head_end, body_start) = match (crlf, lf) {
        (Some(a), Some(b)) => {
            if a.0 <= b.0 {
                a
            } else {
                b
            }
        }
        (a, b) => a.or(b)?,
    };
    Some((&raw[..head_end], &raw[body_start..]))
}

/// A Content-Type's parameters, names in lower case, quotes removed.
fn content_type_params(value: &str) -> Vec<(String, String)> {
    split_unquoted_keep(value, ';')
        .into_iter()
        .skip(1)
        .filter_map(|p| {
            let (k, v) = p.split_once('=')?;
            Some((k.trim().to_ascii_lowercase(), v.trim().trim_matches('"').to_string()))
        })
        .collect()
}

/// Split on `sep` outside double quotes, keeping the quotes.
fn split_unquoted_keep(text: &str, sep: char) -> Vec<String> {
    let mut parts = vec![String::new()];
    let mut quoted = false;
    for c in text.chars() {
        if c == '"' {
            quoted = !quoted;
        }
        if !quoted && c == sep {
            parts.push(String::new());
        } else if let Some(last) = parts.last_mut() {
            last.push(c);
        }
    }
    parts
}

/// The body parts of a multipart body (RFC 2046 §5.1.1): the bytes between
/// delimiter lines, the line break before each delimiter belonging to it.
fn multipart_parts<'a>(body: &'a [u8], boundary: &str) -> Vec<&'a [u8]> {
    let delimiter = format!("--{boundary}");
    let delimiter = delimiter.as_bytes();
    // The start of each delimiter line, and where the line after it starts.
    let mut lines: Vec<(usize, usize, bool)> = Vec::new();
    let mut at = 0;
    while at < body.len() {
        let end = body[at..].iter().position(|&b| b == b'\n').map_or(body.len(), |i| at + i + 1);
        let line = &body[at..end];
        if line.starts_with(delimiter) {
            let rest = &line[delimiter.len()..];
            let last = rest.starts_with(b"--");
            let trimmed: &[u8] = if last { &rest[2..] } else { rest };
            if trimmed.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n')) {
                lines.push((at, end, last));
                if last {
                    break;
                }
            }
        }
        at = end;
    }
    let mut parts = Vec::new();
    for pair in lines.windows(2) {
        let (start, mut end) = (pair[0].1, pair[1].0);
        // The CRLF (or LF) before a delimiter is the delimiter's.
        if end > start && body[end - 1] == b'\n' {
            end -= 1;
            if end > start && body[end - 1] == b'\r' {
                end -= 1;
            }
        }
        parts.push(&body[start..end]);
    }
    if lines.last().is_some_and(|l| !l.2) {
        // No closing delimiter: not a complete multipart body.
        return Vec::new();
    }
    parts
}

/// Every line ending made CRLF.
fn crlf(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + bytes.len() / 16);
    let mut previous = 0u8;
    for &b in bytes {
        if b == b'\n' && previous != b'\r' {
            out.push(b'\r');
        }
        out.push(b);
        previous = b;
    }
    out
}

/// One result of an Authentication-Results header: `dkim=pass
/// header.d=example.org` as method, result and properties.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub method: String,
    pub result: String,
    pub properties: Vec<(String, String)>,
}

impl Found {
    fn property(&self, name: &str) -> Option<&str> {
        self.properties.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// As the refusal says it: `dkim=fail (header.d=example.org)`.
    fn said(&self) -> String {
        let props: Vec<String> = self
            .properties
            .iter()
            .filter(|(k, _)| !k.eq_ignore_ascii_case("reason"))
            .map(|(k, v)| format!("{k}={}", crate::base::error::echo_at_most(v, 80)))
            .collect();
        let method = crate::base::error::echo_at_most(&self.method, 20);
        let result = crate::base::error::echo_at_most(&self.result, 20);
        if props.is_empty() {
            format!("{method}={result}")
        } else {
            format!("{method}={result} ({})", props.join(", "))
        }
    }
}

/// RFC 5322 comments (`(...)`, nested, with `\` quoting) removed.
fn without_comments(text: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    let mut quoted = false;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' if depth > 0 => {
                chars.next();
            }
            '"' if depth == 0 => {
                quoted = !quoted;
                out.push(c);
            }
            '(' if !quoted => depth += 1,
            ')' if !quoted && depth > 0 => depth -= 1,
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

/// Split on `sep` outside double quotes.
fn split_unquoted(text: &str, sep: impl Fn(char) -> bool) -> Vec<String> {
    let mut parts = vec![String::new()];
    let mut quoted = false;
    for c in text.chars() {
        if c == '"' {
            quoted = !quoted;
            continue;
        }
        if !quoted && sep(c) {
            parts.push(String::new());
        } else if let Some(last) = parts.last_mut() {
            last.push(c);
        }
    }
    parts.into_iter().filter(|p| !p.trim().is_empty()).collect()
}

/// An Authentication-Results header's value (RFC 8601 §2.2): its
/// authserv-id and each result. `None` when it has no authserv-id.
pub fn parse_results(value: &str) -> Option<(String, Vec<Found>)> {
    let text = without_comments(value);
    let mut parts = split_unquoted(&text, |c| c == ';').into_iter();
    let id = parts.next()?.split_whitespace().next()?.to_string();
    let mut found = Vec::new();
    for part in parts {
        let mut words = split_unquoted(&part, char::is_whitespace).into_iter();
        let Some(first) = words.next() else { continue };
        let Some((method, result)) = first.split_once('=') else { continue };
        let method = method.split('/').next().unwrap_or(method).trim().to_ascii_lowercase();
        let properties = words
            .filter_map(|w| w.split_once('=').map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string())))
            .collect();
        found.push(Found { method, result: result.trim().to_ascii_lowercase(), properties });
    }
    Some((id, found))
}

/// The domain of an address or of `@domain`, in lower case.
fn domain_of(text: &str) -> String {
    text.rsplit_once('@').map_or(text, |(_, d)| d).trim().trim_end_matches('.').to_ascii_lowercase()
}

/// DMARC's relaxed alignment, without a public-suffix list: the same
/// domain, or one a subdomain of the other.
fn aligned(a: &str, b: &str) -> bool {
    !a.is_empty() && !b.is_empty() && (a == b || a.ends_with(&format!(".{b}")) || b.ends_with(&format!(".{a}")))
}

/// Check the Authentication-Results headers (their values, in the order
/// they appear, topmost first) for the sender `from` (a bare address).
pub fn check_results(game: &str, authserv_id: &str, headers: &[String], from: &str) -> Result<(), String> {
    let want = authserv_id.trim();
    let ours = headers
        .iter()
        .filter_map(|h| parse_results(h))
        .find(|(id, _)| id.eq_ignore_ascii_case(want))
        .map(|(_, found)| found);
    let Some(found) = ours else {
        return Err(format!(
            "the message carries no Authentication-Results header of {}, the referee's mail server: game \
             {game} takes orders by mail only from a sender that server has proven (DKIM or SPF), so its \
             From: cannot be trusted",
            crate::base::error::echo_at_most(want, 100)
        ));
    };
    let domain = domain_of(from);
    let passes = found.iter().any(|f| {
        f.result == "pass"
            && match f.method.as_str() {
                "dkim" => {
                    f.property("header.d").or(f.property("header.i")).is_some_and(|d| aligned(&domain_of(d), &domain))
                }
                "spf" => f
                    .property("smtp.mailfrom")
                    .or(f.property("smtp.helo"))
                    .is_some_and(|d| aligned(&domain_of(d), &domain)),
                "dmarc" => f.property("header.from").is_some_and(|d| domain_of(d) == domain),
                _ => false,
            }
    });
    if passes {
        return Ok(());
    }
    let relevant: Vec<String> =
        found.iter().filter(|f| matches!(f.method.as_str(), "dkim" | "spf" | "dmarc")).map(Found::said).collect();
    let said = if relevant.is_empty() { "no DKIM, SPF or DMARC result".to_string() } else { relevant.join(", ") };
    Err(format!(
        "{} did not prove the sender {}: {said}; game {game} takes orders by mail only when DKIM or SPF \
         passes for the From: address's domain ({domain}), so this message's From: may be forged",
        crate::base::error::echo_at_most(want, 100),
        crate::base::error::echo_at_most(from, 100),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc_8601_examples_are_read() {
        // RFC 8601 Appendix B.3 and B.4, abridged.
        let (id, found) = parse_results("example.com; spf=pass smtp.mailfrom=example.net").unwrap();
        assert_eq!(id, "example.com");
        assert_eq!(found[0].method, "spf");
        assert_eq!(found[0].property("smtp.mailfrom"), Some("example.net"));
        let (id, found) = parse_results(
            "example.com;\r\n  auth=pass (cram-md5) smtp.auth=sender@example.net;\r\n  spf=pass \
             smtp.mailfrom=example.net (comment; with semicolon)",
        )
        .unwrap();
        assert_eq!(id, "example.com");
        assert_eq!(found.len(), 2);
        assert_eq!(found[1].result, "pass");
        let (id, found) = parse_results("mx.example.org 1; none").unwrap();
        assert_eq!((id.as_str(), found.len()), ("mx.example.org", 0));
        let (_, found) = parse_results("a; dkim=fail reason=\"bad; signature\" header.d=x.org").unwrap();
        assert_eq!(found[0].property("header.d"), Some("x.org"));
    }

    #[test]
    fn alignment_is_relaxed_but_not_loose() {
        assert!(aligned("mail.example.org", "example.org"));
        assert!(aligned("example.org", "example.org"));
        assert!(!aligned("badexample.org", "example.org"));
        assert!(!aligned("example.org.evil.net", "example.org"));
    }

    #[test]
    fn secrets_are_whole_words_of_the_subject() {
        let s = new_secret().unwrap();
        assert_eq!(s.len(), 23);
        assert!(subject_carries(&format!("orders {s}"), &s));
        assert!(subject_carries(&format!("Re: [{s}] orders"), &s));
        assert!(!subject_carries(&format!("orders {s}x"), &s));
        assert!(!subject_carries("orders", &s));
        assert_ne!(new_secret().unwrap(), s);
    }
}
