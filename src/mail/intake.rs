//! Orders received by email: a raw RFC 5322 message in, the orders' bytes
//! and who sent them out (`adjutant submit` reading a message on stdin).
//!
//! Where the orders are taken from, in this order:
//!
//! 1. a YAML part: one whose file name ends in `.yaml` or `.yml`, or whose
//!    content type is `application/yaml`, `application/x-yaml`, `text/yaml`
//!    or `text/x-yaml`. Exactly one is taken; two or more are refused.
//!    An attachment named `*.txt` whose text has a line beginning `game:`
//!    is an orders file too. Each such part is a file: a player who holds
//!    several sides sends each side's file in one message ([`Intake::more`]).
//! 2. otherwise the first `text/plain` part that is not an attachment (in a
//!    `multipart/alternative`, its plain part; an HTML-only message is
//!    refused, since its text is a rendering, not what the player typed),
//!    when it has a line beginning `game:`;
//! 3. otherwise a forwarded message's (`message/rfc822`) orders, as 1 and 2;
//! 4. otherwise that plain-text body as it is (its problems are then said).
//!
//! The orders' bytes are hashed into the dice seed, so exactly what is done
//! to them is fixed here:
//!
//! - the transfer encoding (base64, quoted-printable) is decoded and the
//!   charset converted to UTF-8;
//! - CRLF becomes LF, except in a base64-encoded YAML part, whose bytes are
//!   the sender's file exactly (base64 carries a file's own line ends; in any
//!   other encoding the line ends are the mail's);
//! - from a text/plain body only: everything from the last line that is
//!   exactly `-- ` (the RFC 3676 signature separator) to the end is removed,
//!   the LF before that line being kept; then, if the part says
//!   `format=flowed`, its soft line breaks are undone and its space-stuffing
//!   removed (RFC 3676 §4.2, §4.4; quoted lines are left as they are);
//!   then, when the body holds words besides the orders, only the orders
//!   are kept: from the line `game:` (with the fields and `#` comments
//!   right above it; a greeting or a forwarded message's header lines
//!   before are left out) to the last line before words at the left
//!   margin that no field follows (a signature without `-- `, "Thanks");
//!   lines beginning `>` (a quoted earlier message) are left out. Words
//!   with fields after them are refused ([`IntakeError::NotOrders`]).
//!
//! Nothing else is changed: no trimming of blank lines or trailing spaces, and
//! a byte order mark at the start is kept (src/game/input.rs skips it when parsing).

use std::borrow::Cow;
use std::fmt;

use mail_parser::decoders::charsets::map::charset_decoder;
use mail_parser::{Encoding, MessageParser, MessagePart, MimeHeaders, PartType};

use crate::base::error::{echo, echo_at_most, escape, Error};

/// The most characters of a player's subject a reply repeats.
const SUBJECT_CHARS: usize = 200;

/// A message's sender and orders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Intake {
    /// The sender's bare address: the local part as written, the domain in
    /// lower case (`crate::base::address::normal`).
    pub from: String,
    /// The sender as written for people: `Name <address>`, or the bare
    /// address when the message gives no name.
    pub from_display: String,
    pub subject: Option<String>,
    /// The Message-ID, with its angle brackets.
    pub message_id: Option<String>,
    /// The References header's ids, each in angle brackets, separated by
    /// spaces (for threading a reply).
    pub references: Option<String>,
    /// The orders, as described in the module documentation.
    pub orders: Vec<u8>,
    /// Where the orders came from: `attachment orders-16.yaml`,
    /// `text/plain body`, ...
    pub source: String,
    /// Further orders files of the message, each with where it came from:
    /// a player who holds several sides may send each side's file as an
    /// attachment of one message.
    pub more: Vec<(Vec<u8>, String)>,
}

/// Why a message's orders cannot be taken. [`IntakeError::message`] is
/// written to be mailed back to the sender.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IntakeError {
    /// Not an RFC 5322 message at all.
    Unparseable,
    /// No From header, or one with no address in it.
    NoFrom,
    /// A From address that is not `local@domain`.
    BadFrom(String),
    /// More than one address in From.
    SeveralFrom(Vec<String>),
    /// More than one From header (RFC 5322 §3.6 allows one).
    SeveralFromHeaders(usize),
    /// A line of a plain-text body, among the orders, that is not orders
    /// (its line in the body, 1-based, and its text).
    NotOrders { line: usize, text: String },
    /// A YAML part that is not UTF-8 text in a known charset.
    NotText { part: String, detail: String },
    /// No YAML part and no plain text body; what the message holds instead.
    NoOrders { found: Vec<String> },
    /// A YAML part or plain body that is empty (after the signature is removed).
    Empty { source: String },
}

impl IntakeError {
    /// A message for the sender: what was found and what is expected.
    pub fn message(&self) -> String {
        const EXPECTED: &str = "Send the orders as one attachment named *.yaml (or *.yml), or as the plain-text \
                                body of the message.";
        match self {
            IntakeError::Unparseable => {
                "The message could not be read as an email (RFC 5322): no header section was found.".to_string()
            }
            IntakeError::NoFrom => {
                "The message has no sender: its From header is missing or holds no address. Orders are accepted \
                 only from a player's address."
                    .to_string()
            }
            IntakeError::BadFrom(from) => {
                format!("The sender '{}' in the From header is not an email address (local-part@domain).", echo(from))
            }
            IntakeError::SeveralFrom(addresses) => format!(
                "The From header names {} senders ({}); orders must come from exactly one player's address.",
                addresses.len(),
                addresses.iter().take(10).map(|a| echo(a)).collect::<Vec<_>>().join(", ")
            ),
            IntakeError::SeveralFromHeaders(n) => format!(
                "The message has {n} From headers; a message has one, and orders must come from exactly one \
                 player's address."
            ),
            IntakeError::NotOrders { line, text } => format!(
                "Line {line} of your message, '{}', is not orders, and orders follow it: keep your words before \
                 the orders (before the line game:) or after them, or send the orders as an attached file.",
                echo_at_most(text, 80)
            ),
            IntakeError::NotText { part, detail } => {
                format!(
                    "The orders in {} are not readable text ({detail}); save the file as UTF-8 and send it again.",
                    escape(part)
                )
            }
            IntakeError::NoOrders { found } if found.is_empty() => {
                format!("The message holds no orders: it has no body and no attachment. {EXPECTED}")
            }
            IntakeError::NoOrders { found } => format!(
                "The message holds no orders: it has {} but no YAML attachment and no plain-text body. {EXPECTED}",
                found.iter().take(10).map(|f| escape(f)).collect::<Vec<_>>().join(", ")
            ),
            IntakeError::Empty { source } => format!("The orders in the {} are empty. {EXPECTED}", escape(source)),
        }
    }
}

impl fmt::Display for IntakeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for IntakeError {}

/// A message whose orders cannot be taken is refused input (exit 1).
impl From<IntakeError> for Error {
    fn from(e: IntakeError) -> Self {
        Error::refused(format!("email refused: {}", e.message()))
    }
}

const YAML_TYPES: [(&str, &str); 4] =
    [("application", "yaml"), ("application", "x-yaml"), ("text", "yaml"), ("text", "x-yaml")];

/// Read the sender and the orders from a raw message.
pub fn read_message(raw: &[u8]) -> Result<Intake, IntakeError> {
    let message = MessageParser::default().parse(raw).ok_or(IntakeError::Unparseable)?;
    if message.parts.is_empty() || message.headers().is_empty() {
        return Err(IntakeError::Unparseable);
    }

    let (from, from_display) = sender(&message)?;
    let subject = message.subject().map(str::to_string);
    let message_id = message.message_id().map(angle);
    let references = message
        .references()
        .as_text_list()
        .map(|ids| ids.iter().map(|id| angle(id)).collect::<Vec<_>>().join(" "))
        .filter(|s| !s.is_empty());

    // Leaf parts of this message, in order; a forwarded message's parts
    // (message/rfc822) are its own, not this one's.
    let leaves: Vec<&MessagePart> =
        message.parts.iter().filter(|p| !matches!(p.body, PartType::Multipart(_))).collect();

    let (mut files, found) = orders_of(&leaves, "")?;
    if files.is_empty() {
        return Err(IntakeError::NoOrders { found });
    }
    let (orders, source) = files.remove(0);
    for (bytes, source) in std::iter::once((&orders, &source)).chain(files.iter().map(|(b, s)| (b, s))) {
        if bytes.iter().all(|b| b.is_ascii_whitespace()) {
            return Err(IntakeError::Empty { source: source.clone() });
        }
    }
    Ok(Intake { from, from_display, subject, message_id, references, orders, source, more: files })
}

/// The orders files among a message's leaf parts, each with its source
/// (`within` names a forwarded message they are in); when there are none,
/// what the parts are instead. In this order: the YAML parts and the `.txt`
/// attachments that hold orders (a line `game:`), each a file; else the
/// plain-text body, when it holds orders; else a forwarded message's
/// orders; else the plain-text body as it is (its problems are then said).
/// Orders files, each with where it came from.
type Files = Vec<(Vec<u8>, String)>;

fn orders_of(leaves: &[&MessagePart], within: &str) -> Result<(Files, Vec<String>), IntakeError> {
    let mut files = Vec::new();
    for part in leaves.iter().copied().filter(|p| is_yaml(p) || is_txt_attachment(p)) {
        let source =
            format!("{within}attachment {}", part.attachment_name().map(echo).unwrap_or("(unnamed YAML part)".into()));
        let bytes = yaml_bytes(part, &source)?;
        if is_yaml(part) || has_game_line(&String::from_utf8_lossy(&bytes)) {
            files.push((bytes, source));
        }
    }
    if !files.is_empty() {
        return Ok((files, Vec::new()));
    }
    let body = leaves.iter().find(|p| is_plain_body(p)).map(|part| {
        let text = part.text_contents().unwrap_or("");
        let flowed =
            part.content_type().and_then(|ct| ct.attribute("format")).is_some_and(|f| f.eq_ignore_ascii_case("flowed"));
        let delsp =
            part.content_type().and_then(|ct| ct.attribute("delsp")).is_some_and(|d| d.eq_ignore_ascii_case("yes"));
        plain_body(text, flowed, delsp)
    });
    let source = format!("{within}text/plain body");
    if let Some(text) = body.as_deref().filter(|t| has_game_line(t)) {
        return Ok((vec![(orders_lines(text)?.into_bytes(), source)], Vec::new()));
    }
    // A forwarded message (message/rfc822): its own orders.
    for part in leaves {
        if let PartType::Message(inner) = &part.body {
            let inner_leaves: Vec<&MessagePart> =
                inner.parts.iter().filter(|p| !matches!(p.body, PartType::Multipart(_))).collect();
            let (found, _) = orders_of(&inner_leaves, "forwarded message, ")?;
            if !found.is_empty() {
                return Ok((found, Vec::new()));
            }
        }
    }
    match body {
        Some(text) => Ok((vec![(text.into_bytes(), source)], Vec::new())),
        None => Ok((Vec::new(), leaves.iter().map(|p| describe_part(p)).collect())),
    }
}

/// True when a line of `text` begins `game:` (an orders file's first field).
fn has_game_line(text: &str) -> bool {
    text.lines().any(|l| l.starts_with("game:"))
}

/// A line `key:` or `key: value` at the left margin: a field of YAML.
fn is_key_line(line: &str) -> bool {
    let line = line.trim_end_matches(['\n', '\r']);
    let key_len = line.bytes().take_while(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-').count();
    key_len > 0
        && line.as_bytes()[0].is_ascii_alphabetic()
        && line[key_len..].starts_with(':')
        && (line.len() == key_len + 1 || line.as_bytes()[key_len + 1] == b' ')
}

/// A line that YAML would not take as part of an orders file: words at the
/// left margin ("Hello,", "Thanks, Charles").
fn is_prose(line: &str) -> bool {
    let bare = line.trim_end_matches(['\n', '\r']);
    !bare.trim().is_empty()
        && !bare.starts_with([' ', '\t', '#', '-', '{', '[', '}', ']', '"', '\'', '.', '|', '>', '&', '*', '!', '%'])
        && !is_key_line(bare)
}

/// The orders in a plain-text body that may hold a player's words too:
/// from the orders' first line (the line `game:`, with the fields and
/// comments right above it) to the last line before words that no orders
/// follow; quoted lines (`>`, an earlier message) are left out. A body
/// that is only orders is returned as it is. Words with orders after them
/// are refused: which part is orders cannot be told.
fn orders_lines(text: &str) -> Result<String, IntakeError> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let quoted = |l: &str| l.starts_with('>');
    let Some(game) = lines.iter().position(|l| l.starts_with("game:")) else { return Ok(text.to_string()) };
    let mut start = game;
    while start > 0 && !quoted(lines[start - 1]) && (is_key_line(lines[start - 1]) || lines[start - 1].starts_with('#'))
    {
        start -= 1;
    }
    let mut end = lines.len();
    for (i, line) in lines.iter().enumerate().skip(start) {
        if quoted(line) || !is_prose(line) {
            continue;
        }
        let orders_follow = lines[i + 1..].iter().any(|l| !quoted(l) && is_key_line(l));
        if orders_follow {
            return Err(IntakeError::NotOrders { line: i + 1, text: line.trim_end().to_string() });
        }
        end = i;
        break;
    }
    let kept: Vec<&str> = lines[start..end].iter().copied().filter(|l| !quoted(l)).collect();
    if start == 0 && end == lines.len() && kept.len() == lines.len() {
        return Ok(text.to_string());
    }
    // Blank lines between the orders and the words after them go with the words.
    let last = kept.iter().rposition(|l| !l.trim().is_empty()).map_or(0, |i| i + 1);
    Ok(kept[..last].concat())
}

fn angle(id: &str) -> String {
    let id = id.trim();
    if id.starts_with('<') {
        id.to_string()
    } else {
        format!("<{id}>")
    }
}

fn sender(message: &mail_parser::Message) -> Result<(String, String), IntakeError> {
    let headers = message.headers().iter().filter(|h| h.name == mail_parser::HeaderName::From).count();
    if headers > 1 {
        return Err(IntakeError::SeveralFromHeaders(headers));
    }
    let Some(from) = message.from() else { return Err(IntakeError::NoFrom) };
    let addrs: Vec<_> = from.iter().collect();
    match addrs.as_slice() {
        [] => Err(IntakeError::NoFrom),
        [addr] => {
            let Some(address) = addr.address().map(str::trim).filter(|a| !a.is_empty()) else {
                return match addr.name() {
                    Some(name) => Err(IntakeError::BadFrom(name.to_string())),
                    None => Err(IntakeError::NoFrom),
                };
            };
            // lettre's parser, the one replies are sent with.
            let parsed = crate::base::address::parse(address).map_err(|_| IntakeError::BadFrom(address.to_string()))?;
            let normal = crate::base::address::normal(&parsed);
            // The name as a reply may carry it: no control character (a
            // line break could not be written in a header).
            let name: String =
                addr.name().unwrap_or("").chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
            let display = match name.trim() {
                "" => normal.clone(),
                name => lettre::message::Mailbox::new(Some(name.to_string()), parsed).to_string(),
            };
            Ok((normal, display))
        }
        several => Err(IntakeError::SeveralFrom(
            several.iter().map(|a| a.address().or(a.name()).unwrap_or("?").to_string()).collect(),
        )),
    }
}

fn content_type_of(part: &MessagePart) -> (String, String) {
    match part.content_type() {
        Some(ct) => (ct.ctype().to_ascii_lowercase(), ct.subtype().unwrap_or("").to_ascii_lowercase()),
        // RFC 2045 §5.2: no Content-Type means text/plain.
        None => ("text".into(), "plain".into()),
    }
}

fn is_yaml(part: &MessagePart) -> bool {
    let named_yaml = part.attachment_name().is_some_and(|name| {
        let lower = name.to_ascii_lowercase();
        lower.ends_with(".yaml") || lower.ends_with(".yml")
    });
    let (t, s) = content_type_of(part);
    named_yaml || YAML_TYPES.iter().any(|(yt, ys)| *yt == t && *ys == s)
}

fn is_attachment(part: &MessagePart) -> bool {
    part.content_disposition().is_some_and(|cd| cd.ctype().eq_ignore_ascii_case("attachment"))
        || part.attachment_name().is_some()
}

/// An attachment named `*.txt`: orders saved by a text editor.
fn is_txt_attachment(part: &MessagePart) -> bool {
    is_attachment(part)
        && matches!(part.body, PartType::Text(_) | PartType::Binary(_) | PartType::InlineBinary(_))
        && part.attachment_name().is_some_and(|n| n.to_ascii_lowercase().ends_with(".txt"))
}

fn is_plain_body(part: &MessagePart) -> bool {
    content_type_of(part) == ("text".into(), "plain".into())
        && !is_attachment(part)
        && matches!(part.body, PartType::Text(_))
}

fn describe_part(part: &MessagePart) -> String {
    let (t, s) = content_type_of(part);
    match part.attachment_name() {
        Some(name) => format!("an attachment {name} ({t}/{s})"),
        None => format!("a {t}/{s} part"),
    }
}

fn crlf_to_lf(text: &str) -> String {
    text.replace("\r\n", "\n")
}

fn yaml_bytes(part: &MessagePart, source: &str) -> Result<Vec<u8>, IntakeError> {
    let not_text = |detail: String| IntakeError::NotText { part: source.to_string(), detail };
    let text: Cow<str> = match &part.body {
        // mail-parser has converted text/* parts to UTF-8 already.
        PartType::Text(text) => Cow::Borrowed(text.as_ref()),
        PartType::Binary(bytes) | PartType::InlineBinary(bytes) => {
            let charset = part.content_type().and_then(|ct| ct.attribute("charset")).map(str::to_ascii_lowercase);
            match charset.as_deref() {
                None | Some("utf-8") | Some("utf8") | Some("us-ascii") => match std::str::from_utf8(bytes) {
                    Ok(s) => Cow::Borrowed(s),
                    Err(e) => return Err(not_text(format!("invalid UTF-8 at byte {}", e.valid_up_to()))),
                },
                Some(name) => match charset_decoder(name.as_bytes()) {
                    Some(decode) => Cow::Owned(decode(bytes)),
                    None => return Err(not_text(format!("unknown charset '{name}'"))),
                },
            }
        }
        PartType::Html(_) | PartType::Message(_) | PartType::Multipart(_) => {
            return Err(not_text("it is not a file".to_string()))
        }
    };
    // A byte order mark stays: the dice bind to the file's exact bytes, and
    // the orders' limits (src/game/input.rs) skip it before parsing.
    Ok(if part.encoding == Encoding::Base64 { text.as_bytes().to_vec() } else { crlf_to_lf(&text).into_bytes() })
}

/// A text/plain body's orders: LF line ends, the signature removed, a
/// flowed body unflowed (see the module documentation).
fn plain_body(text: &str, flowed: bool, delsp: bool) -> String {
    let text = crlf_to_lf(text);
    let mut kept = text.as_str();
    // The last line that is exactly "-- ": at the start, or after an LF.
    let separator = kept
        .rmatch_indices("\n-- ")
        .find_map(|(i, _)| {
            let after = &kept[i + 4..];
            (after.is_empty() || after.starts_with('\n')).then_some(i + 1)
        })
        .or_else(|| (kept.starts_with("-- \n") || kept == "-- ").then_some(0));
    if let Some(at) = separator {
        kept = &kept[..at];
    }
    if flowed {
        unflow(kept, delsp)
    } else {
        kept.to_string()
    }
}

/// RFC 3676 §4.2 and §4.4 for unquoted lines: remove one leading space
/// (space-stuffing); a line that ends in a space is joined to the next
/// (with `delsp=yes`, that space is removed too).
fn unflow(text: &str, delsp: bool) -> String {
    let mut out = String::with_capacity(text.len());
    let ends_with_newline = text.ends_with('\n');
    let lines: Vec<&str> = text.split('\n').collect();
    let count = if ends_with_newline { lines.len() - 1 } else { lines.len() };
    for (i, line) in lines.iter().take(count).enumerate() {
        let quoted = line.starts_with('>');
        let line = if quoted { line } else { line.strip_prefix(' ').unwrap_or(line) };
        let soft = !quoted && line.ends_with(' ') && i + 1 < count;
        if soft {
            out.push_str(if delsp { &line[..line.len() - 1] } else { line });
        } else {
            out.push_str(line);
            if i + 1 < count || ends_with_newline {
                out.push('\n');
            }
        }
    }
    out
}

/// How to address a reply to `intake`: In-Reply-To, References (the
/// original's references followed by its Message-ID) and the subject with
/// one `Re: ` in front (none added when it already starts with `Re:` in any
/// case; `Re: Re: x` stays as it is).
pub fn reply_headers(intake: &Intake) -> (Option<String>, Option<String>, String) {
    let in_reply_to = intake.message_id.clone();
    let references = match (&intake.references, &intake.message_id) {
        (Some(refs), Some(id)) => Some(format!("{refs} {id}")),
        (Some(refs), None) => Some(refs.clone()),
        (None, Some(id)) => Some(id.clone()),
        (None, None) => None,
    };
    // The player's subject, escaped and bounded, as a reply's header carries it.
    let subject = intake.subject.as_deref().map(|s| echo_at_most(s.trim(), SUBJECT_CHARS)).unwrap_or_default();
    let subject = subject.as_str();
    let has_re = subject.get(..3).is_some_and(|p| p.eq_ignore_ascii_case("re:"));
    let subject = if has_re {
        subject.to_string()
    } else if subject.is_empty() {
        "Re: your orders".to_string()
    } else {
        format!("Re: {subject}")
    };
    (in_reply_to, references, subject)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A raw message from lines joined with CRLF, as on the wire.
    fn raw(lines: &[&str]) -> Vec<u8> {
        let mut text = lines.join("\r\n");
        text.push_str("\r\n");
        text.into_bytes()
    }

    const B64_ORDERS: &str = "Z2FtZTogZzEKdHVybjogMTYKb3JkZXJzOiBbXQo="; // "game: g1\nturn: 16\norders: []\n"

    #[test]
    fn plain_body_is_the_orders_with_lf_line_ends() {
        let message = raw(&[
            "From: Anne Player <Anne.Player@Example.ORG>",
            "To: referee@example.org",
            "Subject: Orders turn 16",
            "Message-ID: <abc.123@example.org>",
            "",
            "game: g1",
            "turn: 16",
            "  # indented comment, trailing space kept ",
        ]);
        let intake = read_message(&message).unwrap();
        assert_eq!(intake.from, "Anne.Player@example.org");
        assert_eq!(intake.from_display, "Anne Player <Anne.Player@Example.ORG>");
        assert_eq!(intake.subject.as_deref(), Some("Orders turn 16"));
        assert_eq!(intake.message_id.as_deref(), Some("<abc.123@example.org>"));
        assert_eq!(intake.source, "text/plain body");
        assert_eq!(
            String::from_utf8(intake.orders).unwrap(),
            "game: g1\nturn: 16\n  # indented comment, trailing space kept \n"
        );
    }

    #[test]
    fn quoted_printable_body_is_decoded_and_its_signature_removed() {
        let message = raw(&[
            "From: bob@example.org",
            "Subject: =?utf-8?q?Ordres_tour_16?=",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=iso-8859-1",
            "Content-Transfer-Encoding: quoted-printable",
            "",
            "game: g1",
            "note: caf=E9 cr=E8me, a line split by a soft=",
            " break",
            "--",
            "also: kept (that line was '--' with no space)",
            // Quoted-printable drops trailing spaces: the separator is "--=20".
            "--=20",
            "Bob",
            "Sent from my phone",
        ]);
        let intake = read_message(&message).unwrap();
        assert_eq!(intake.from, "bob@example.org");
        assert_eq!(intake.from_display, "bob@example.org");
        assert_eq!(intake.subject.as_deref(), Some("Ordres tour 16"));
        assert_eq!(intake.message_id, None);
        assert_eq!(
            String::from_utf8(intake.orders).unwrap(),
            "game: g1\nnote: café crème, a line split by a soft break\n--\nalso: kept (that line was '--' with no space)\n"
        );
    }

    #[test]
    fn a_base64_yaml_attachment_wins_over_the_body_byte_for_byte() {
        let message = raw(&[
            "From: \"Carl\" <carl@example.org>",
            "Subject: orders",
            "MIME-Version: 1.0",
            "Content-Type: multipart/mixed; boundary=\"XYZ\"",
            "",
            "--XYZ",
            "Content-Type: text/plain; charset=utf-8",
            "",
            "My orders are attached.",
            "--XYZ",
            "Content-Type: application/octet-stream; name=\"orders-16.yaml\"",
            "Content-Disposition: attachment; filename=\"orders-16.yaml\"",
            "Content-Transfer-Encoding: base64",
            "",
            B64_ORDERS,
            "--XYZ",
            "Content-Type: image/png; name=\"map.png\"",
            "Content-Disposition: attachment; filename=\"map.png\"",
            "Content-Transfer-Encoding: base64",
            "",
            "iVBORw0KGgo=",
            "--XYZ--",
        ]);
        let intake = read_message(&message).unwrap();
        assert_eq!(intake.source, "attachment orders-16.yaml");
        assert_eq!(intake.orders, b"game: g1\nturn: 16\norders: []\n");

        // base64 keeps the file's own CRLF; a text/yaml part sent as
        // quoted-printable has the mail's CRLF, made LF.
        let crlf_file = raw(&[
            "From: carl@example.org",
            "Content-Type: application/yaml",
            "Content-Disposition: attachment; filename=o.yml",
            "Content-Transfer-Encoding: base64",
            "",
            "YTogMQ0KYjogMg0K", // "a: 1\r\nb: 2\r\n"
        ]);
        assert_eq!(read_message(&crlf_file).unwrap().orders, b"a: 1\r\nb: 2\r\n");
        let qp = raw(&[
            "From: carl@example.org",
            "MIME-Version: 1.0",
            "Content-Type: multipart/mixed; boundary=B",
            "",
            "--B",
            "Content-Type: text/x-yaml; charset=iso-8859-1",
            "Content-Transfer-Encoding: quoted-printable",
            "",
            "name: Fran=E7ois",
            "b: 2",
            "--B--",
        ]);
        let intake = read_message(&qp).unwrap();
        assert_eq!(intake.source, "attachment (unnamed YAML part)");
        assert_eq!(String::from_utf8(intake.orders).unwrap(), "name: François\nb: 2");
    }

    #[test]
    fn multipart_alternative_takes_the_plain_part() {
        let message = raw(&[
            "From: dana@example.org",
            "Subject: Re: Re: Savannah, turn 17",
            "Message-ID: <m2@example.org>",
            "References: <m0@example.org> <m1@example.org>",
            "MIME-Version: 1.0",
            "Content-Type: multipart/alternative; boundary=\"alt\"",
            "",
            "--alt",
            "Content-Type: text/html; charset=utf-8",
            "",
            "<p>game: html</p>",
            "--alt",
            "Content-Type: text/plain; charset=utf-8",
            "",
            "game: plain",
            "--alt--",
        ]);
        let intake = read_message(&message).unwrap();
        assert_eq!(intake.orders, b"game: plain");
        assert_eq!(intake.references.as_deref(), Some("<m0@example.org> <m1@example.org>"));
        let (in_reply_to, references, subject) = reply_headers(&intake);
        assert_eq!(in_reply_to.as_deref(), Some("<m2@example.org>"));
        assert_eq!(references.as_deref(), Some("<m0@example.org> <m1@example.org> <m2@example.org>"));
        assert_eq!(subject, "Re: Re: Savannah, turn 17");
    }

    #[test]
    fn html_only_is_refused_saying_what_was_found() {
        let message = raw(&[
            "From: dana@example.org",
            "MIME-Version: 1.0",
            "Content-Type: text/html; charset=utf-8",
            "",
            "<p>game: g1</p>",
        ]);
        let err = read_message(&message).unwrap_err();
        assert_eq!(err, IntakeError::NoOrders { found: vec!["a text/html part".into()] });
        assert!(err.message().contains("it has a text/html part but no YAML attachment"), "{err}");
    }

    #[test]
    fn two_yaml_attachments_are_two_files() {
        let message = raw(&[
            "From: eve@example.org",
            "MIME-Version: 1.0",
            "Content-Type: multipart/mixed; boundary=b",
            "",
            "--b",
            "Content-Type: text/plain",
            "",
            "two files",
            "--b",
            "Content-Type: text/yaml",
            "Content-Disposition: attachment; filename=\"british-16.yaml\"",
            "",
            "a: 1",
            "--b",
            "Content-Type: application/octet-stream",
            "Content-Disposition: attachment; filename=\"british-17.YML\"",
            "Content-Transfer-Encoding: base64",
            "",
            B64_ORDERS,
            "--b--",
        ]);
        let intake = read_message(&message).unwrap();
        assert_eq!(intake.source, "attachment british-16.yaml");
        assert_eq!(intake.orders, b"a: 1");
        assert_eq!(
            intake.more,
            vec![(b"game: g1\nturn: 16\norders: []\n".to_vec(), "attachment british-17.YML".into())]
        );
    }

    #[test]
    fn senders_are_checked() {
        let no_from = raw(&["To: referee@example.org", "Subject: orders", "", "game: g1"]);
        assert_eq!(read_message(&no_from).unwrap_err(), IntakeError::NoFrom);
        let two = raw(&["From: a@example.org, b@example.org", "", "game: g1"]);
        let err = read_message(&two).unwrap_err();
        assert_eq!(err, IntakeError::SeveralFrom(vec!["a@example.org".into(), "b@example.org".into()]));
        let bad = raw(&["From: Just A Name <nobody>", "", "game: g1"]);
        assert!(matches!(read_message(&bad).unwrap_err(), IntakeError::BadFrom(_)));
        let refused: Error = read_message(&no_from).unwrap_err().into();
        assert_eq!(refused.exit_code(), 1);
        // Two From headers, whichever a parser would read.
        let headers = raw(&["From: ann@example.org", "From: eve@example.org", "", "game: g1"]);
        let err = read_message(&headers).unwrap_err();
        assert_eq!(err, IntakeError::SeveralFromHeaders(2));
        assert!(err.message().contains("2 From headers"), "{err}");
        // A group of two.
        let group = raw(&["From: players: ann@example.org, eve@example.org;", "", "game: g1"]);
        assert!(read_message(&group).is_err());
        // An address lettre would not send to (two @, a trailing dot).
        for from in ["ann@@example.org", "ann@example.org."] {
            let m = raw(&[&format!("From: Ann <{from}>"), "", "game: g1"]);
            assert!(matches!(read_message(&m).unwrap_err(), IntakeError::BadFrom(_)), "{from}");
        }
        // The domain's case is dropped, the local part's kept; a name with
        // a line break encoded in it is read without it.
        let m = raw(&["From: =?utf-8?q?Ann=0ABcc=3A_x=40y=2Eorg?= <Ann@Example.ORG>", "", "game: g1"]);
        let intake = read_message(&m).unwrap();
        assert_eq!(intake.from, "Ann@example.org");
        assert!(!intake.from_display.contains('\n'), "{:?}", intake.from_display);
        assert!(intake.from_display.parse::<lettre::message::Mailbox>().is_ok(), "{}", intake.from_display);
    }

    #[test]
    fn player_text_in_refusals_is_bounded_and_escaped() {
        let name = format!("{}\u{1b}[2J.yaml", "n".repeat(5000));
        let err = IntakeError::NotOrders { line: 3, text: format!("{name} b\u{202e}") };
        let message = err.message();
        assert!(!message.contains('\u{1b}') && !message.contains('\u{202e}'), "{message}");
        assert!(message.contains("…(5014 bytes)") && message.len() < 400, "{message}");
    }

    #[test]
    fn no_orders_and_empty_orders_are_refused() {
        let empty_body = raw(&["From: a@example.org", "", "", "-- ", "Anne"]);
        let err = read_message(&empty_body).unwrap_err();
        assert_eq!(err, IntakeError::Empty { source: "text/plain body".into() });
        assert!(read_message(b"").is_err());
        let only_image = raw(&[
            "From: a@example.org",
            "MIME-Version: 1.0",
            "Content-Type: image/png; name=map.png",
            "Content-Transfer-Encoding: base64",
            "",
            "iVBORw0KGgo=",
        ]);
        let err = read_message(&only_image).unwrap_err();
        assert!(err.message().contains("an attachment map.png (image/png)"), "{err}");
    }

    #[test]
    fn format_flowed_is_unflowed_and_unstuffed() {
        let message = raw(&[
            "From: a@example.org",
            "Content-Type: text/plain; charset=utf-8; format=flowed",
            "",
            "orders:",
            "   - unit: dillon-irish",
            "     note: a long comment that the mail program ",
            "wrapped here",
            "-- ",
            "Anne",
        ]);
        let intake = read_message(&message).unwrap();
        assert_eq!(
            String::from_utf8(intake.orders).unwrap(),
            "orders:\n  - unit: dillon-irish\n    note: a long comment that the mail program wrapped here\n"
        );
    }

    #[test]
    fn reply_subject_gets_one_re() {
        let mut intake = read_message(&raw(&["From: a@example.org", "Subject: Orders", "", "x: 1"])).unwrap();
        assert_eq!(reply_headers(&intake), (None, None, "Re: Orders".to_string()));
        intake.subject = Some("RE: Orders".into());
        assert_eq!(reply_headers(&intake).2, "RE: Orders");
        intake.subject = None;
        assert_eq!(reply_headers(&intake).2, "Re: your orders");
    }
}
