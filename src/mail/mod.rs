//! Sending mail: the reports to the players (`adjutant mail`), replies to
//! orders received by mail.
//!
//! The settings are the `mail:` section of `game.yaml` ([`MailSettings`]);
//! [`MailSettings::transport`] checks them into a typed [`Transport`]. Three
//! transports: SMTP (lettre, TLS through rustls only), a local `sendmail`
//! binary, or a folder of `.eml` files written atomically.
//!
//! The password never lives in the game folder: it comes from an environment
//! variable or a command's output, is read only when a message is really
//! sent (never for a dry run), and never appears in an error or in `Debug`.

pub mod auth;
pub mod intake;
pub mod post;

use std::fmt;
use std::fs;
use std::io;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use lettre::message::header::{self, ContentType};
use lettre::message::{Mailbox, MultiPart, SinglePart};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
use lettre::{Message, SendmailTransport, SmtpTransport, Transport as _};
use serde::{Deserialize, Deserializer, Serialize};

use crate::base::error::{Error, Located, Result};
use crate::base::fsio;
use crate::game::folder::GAME_FILE;

/// The binary the sendmail transport runs when `sendmail:` is not given.
pub const DEFAULT_SENDMAIL: &str = "/usr/sbin/sendmail";
/// The folder the folder transport writes into when `folder:` is not given
/// (relative to the game folder).
pub const DEFAULT_OUTBOX: &str = "outbox";
/// How long an SMTP connection may wait on the server before giving up.
pub const SMTP_TIMEOUT: Duration = Duration::from_secs(60);

/// The `mail:` section of `game.yaml`, as written. Check it with
/// [`MailSettings::transport`] before use.
// The private `password` field is there to refuse that key, not to make
// the struct non-exhaustive (build one with `MailSettings::new`).
#[allow(clippy::manual_non_exhaustive)]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MailSettings {
    /// The sender, `"Name <address>"` or a bare address.
    pub from: String,
    pub transport: TransportKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub security: Option<Security>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
    /// The name of an environment variable holding the password.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password_env: Option<String>,
    /// A command (argv) whose standard output's first line is the password.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password_command: Option<Vec<String>>,
    /// An extra trusted root certificate (PEM), for a self-hosted server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ca_file: Option<PathBuf>,
    /// The sendmail transport's binary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sendmail: Option<PathBuf>,
    /// The folder transport's folder, relative to the game folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folder: Option<PathBuf>,
    /// What a report mail attaches besides its text, its HTML and the
    /// map in the HTML (default: template; json adds up to 50 KB, which
    /// takes the Campaign's largest mail past 300 KB).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attachments: Option<Vec<ReportPart>>,
    /// Issue 16: a digest per player turn: a side's reports wait until it
    /// owes orders (or the game ends), then go in one mail: every step
    /// since its last mail, as `adjutant report --steps A-B` renders them.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub digest: bool,
    /// Never accepted: present only so that `password:` gets its own message
    /// rather than serde's "unknown field".
    #[serde(default, skip_serializing, deserialize_with = "refuse_password")]
    password: (),
}

const PASSWORD_REFUSED: &str = "a password is never written in game.yaml: give the name of an environment \
                                 variable (password_env) or a command that prints it (password_command)";

/// Refuse `password:` whatever its value, from inside the value's own
/// deserialization so that the error is located at the value, and without
/// echoing the value (serde's default "invalid type" messages would).
fn refuse_password<'de, D: Deserializer<'de>>(value: D) -> std::result::Result<(), D::Error> {
    struct Refuse;
    impl<'de> serde::de::Visitor<'de> for Refuse {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("no password")
        }
        fn visit_bool<E: serde::de::Error>(self, _: bool) -> std::result::Result<(), E> {
            Err(E::custom(PASSWORD_REFUSED))
        }
        fn visit_i64<E: serde::de::Error>(self, _: i64) -> std::result::Result<(), E> {
            Err(E::custom(PASSWORD_REFUSED))
        }
        fn visit_u64<E: serde::de::Error>(self, _: u64) -> std::result::Result<(), E> {
            Err(E::custom(PASSWORD_REFUSED))
        }
        fn visit_f64<E: serde::de::Error>(self, _: f64) -> std::result::Result<(), E> {
            Err(E::custom(PASSWORD_REFUSED))
        }
        fn visit_str<E: serde::de::Error>(self, _: &str) -> std::result::Result<(), E> {
            Err(E::custom(PASSWORD_REFUSED))
        }
        fn visit_bytes<E: serde::de::Error>(self, _: &[u8]) -> std::result::Result<(), E> {
            Err(E::custom(PASSWORD_REFUSED))
        }
        fn visit_unit<E: serde::de::Error>(self) -> std::result::Result<(), E> {
            Err(E::custom(PASSWORD_REFUSED))
        }
        fn visit_none<E: serde::de::Error>(self) -> std::result::Result<(), E> {
            Err(E::custom(PASSWORD_REFUSED))
        }
        fn visit_some<D: Deserializer<'de>>(self, _: D) -> std::result::Result<(), D::Error> {
            Err(serde::de::Error::custom(PASSWORD_REFUSED))
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, _: A) -> std::result::Result<(), A::Error> {
            Err(serde::de::Error::custom(PASSWORD_REFUSED))
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, _: A) -> std::result::Result<(), A::Error> {
            Err(serde::de::Error::custom(PASSWORD_REFUSED))
        }
        fn visit_enum<A: serde::de::EnumAccess<'de>>(self, _: A) -> std::result::Result<(), A::Error> {
            Err(serde::de::Error::custom(PASSWORD_REFUSED))
        }
    }
    value.deserialize_any(Refuse)
}

/// What a report mail may attach (`mail: attachments:` in game.yaml).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReportPart {
    /// The side's report as JSON (30 to 50 KB).
    Json,
    /// The template of the next orders the player owes, ready to edit and send back.
    Template,
    /// The map as SVG (about 330 KB: past the 300 KB a mail should stay under).
    Svg,
    /// The map as a full-size PNG (about 860 KB).
    Png,
}

/// The parts a report mail attaches when game.yaml does not say.
pub const DEFAULT_PARTS: [ReportPart; 1] = [ReportPart::Template];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TransportKind {
    Smtp,
    Sendmail,
    Folder,
}

/// How an SMTP connection is protected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Security {
    /// Plain connection upgraded with STARTTLS, which is required (port 587).
    Starttls,
    /// TLS from the first byte (port 465).
    Tls,
    /// No encryption: loopback hosts only (port 25).
    None,
}

impl Security {
    pub fn default_port(self) -> u16 {
        match self {
            Security::Starttls => 587,
            Security::Tls => 465,
            Security::None => 25,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Security::Starttls => "starttls",
            Security::Tls => "tls",
            Security::None => "none",
        }
    }
}

/// Checked settings: what [`send`] will do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    Smtp(SmtpSettings),
    /// Run this binary as `sendmail -i -f FROM RCPT...`, the message on its stdin.
    Sendmail {
        program: PathBuf,
    },
    /// Write `.eml` files into this folder (relative to the game folder unless absolute).
    Folder {
        dir: PathBuf,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SmtpSettings {
    pub host: String,
    pub port: u16,
    pub security: Security,
    /// `None`: no authentication.
    pub login: Option<Login>,
    /// Relative to the game folder unless absolute.
    pub ca_file: Option<PathBuf>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Login {
    pub username: String,
    pub password: PasswordSource,
}

/// Where the password is read from, when it is needed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PasswordSource {
    Env(String),
    Command(Vec<String>),
}

/// A password, read. Its `Debug` does not show it.
struct Secret(String);

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

fn settings_error(field: &str, message: impl Into<String>) -> Error {
    Error::Data(Located {
        file: GAME_FILE.to_string(),
        line: None,
        column: None,
        field: format!("mail.{field}"),
        message: message.into(),
        code: None,
    })
}

/// `localhost`, `127.0.0.0/8` or `::1` (brackets allowed): the hosts that
/// `security: none` may be used with.
pub fn is_loopback_host(host: &str) -> bool {
    let bare = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host);
    bare.eq_ignore_ascii_case("localhost") || bare.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

impl MailSettings {
    /// Settings with only `from` and `transport` set; the other fields are
    /// public to be filled in.
    pub fn new(from: impl Into<String>, transport: TransportKind) -> Self {
        MailSettings {
            from: from.into(),
            transport,
            host: None,
            port: None,
            security: None,
            username: None,
            password_env: None,
            password_command: None,
            ca_file: None,
            sendmail: None,
            folder: None,
            attachments: None,
            digest: false,
            password: (),
        }
    }

    /// The sender as a mailbox.
    pub fn from_mailbox(&self) -> Result<Mailbox> {
        self.from.parse::<Mailbox>().map_err(|e| {
            settings_error(
                "from",
                format!(
                    "'{}' is not a mailbox ({e}): write \"Name <address@example.org>\" or a bare address",
                    self.from
                ),
            )
        })
    }

    /// Check the settings: every key that applies to the transport, none
    /// that does not, and `security: none` only towards loopback.
    pub fn transport(&self) -> Result<Transport> {
        self.from_mailbox()?;
        let smtp_only: [(&str, bool); 7] = [
            ("host", self.host.is_some()),
            ("port", self.port.is_some()),
            ("security", self.security.is_some()),
            ("username", self.username.is_some()),
            ("password_env", self.password_env.is_some()),
            ("password_command", self.password_command.is_some()),
            ("ca_file", self.ca_file.is_some()),
        ];
        let refuse_others = |kind: &str, allowed: &[&str]| -> Result<()> {
            let mut present: Vec<(&str, bool)> = smtp_only.to_vec();
            present.push(("sendmail", self.sendmail.is_some()));
            present.push(("folder", self.folder.is_some()));
            for (field, set) in present {
                if set && !allowed.contains(&field) {
                    return Err(settings_error(
                        field,
                        format!("does not apply to transport: {kind} (it is for {})", owner_of(field)),
                    ));
                }
            }
            Ok(())
        };
        match self.transport {
            TransportKind::Smtp => {
                refuse_others("smtp", &smtp_only.map(|(field, _)| field))?;
                self.smtp().map(Transport::Smtp)
            }
            TransportKind::Sendmail => {
                refuse_others("sendmail", &["sendmail"])?;
                let program = self.sendmail.clone().unwrap_or_else(|| PathBuf::from(DEFAULT_SENDMAIL));
                if program.as_os_str().is_empty() {
                    return Err(settings_error(
                        "sendmail",
                        "is empty: give the sendmail binary, e.g. /usr/sbin/sendmail",
                    ));
                }
                Ok(Transport::Sendmail { program })
            }
            TransportKind::Folder => {
                refuse_others("folder", &["folder"])?;
                let dir = self.folder.clone().unwrap_or_else(|| PathBuf::from(DEFAULT_OUTBOX));
                if dir.as_os_str().is_empty() {
                    return Err(settings_error("folder", "is empty: give a folder, e.g. outbox"));
                }
                Ok(Transport::Folder { dir })
            }
        }
    }

    fn smtp(&self) -> Result<SmtpSettings> {
        let host = match self.host.as_deref().map(str::trim) {
            None | Some("") => {
                return Err(settings_error(
                    "host",
                    "is missing: transport: smtp needs the server's name, e.g. smtp.example.org",
                ))
            }
            Some(h) => h.to_string(),
        };
        let security = self.security.unwrap_or(Security::Starttls);
        if security == Security::None && !is_loopback_host(&host) {
            return Err(settings_error(
                "security",
                format!(
                    "'none' sends the password and the mail unencrypted, so it is allowed only to a loopback host \
                     (localhost, 127.0.0.1, ::1), not to '{host}': use starttls (port 587) or tls (port 465)"
                ),
            ));
        }
        let port = match self.port {
            Some(0) => {
                return Err(settings_error("port", "0 is not a port: use 1 to 65535 (587 for starttls, 465 for tls)"))
            }
            Some(p) => p,
            None => security.default_port(),
        };
        let password = match (&self.password_env, &self.password_command) {
            (Some(_), Some(_)) => {
                return Err(settings_error("password_command", "give password_env or password_command, not both"))
            }
            (Some(var), None) => {
                if var.is_empty() || var.contains('=') || var.contains('\0') {
                    return Err(settings_error(
                        "password_env",
                        format!("'{var}' is not an environment variable's name, e.g. ADJUTANT_SMTP_PASSWORD"),
                    ));
                }
                Some(PasswordSource::Env(var.clone()))
            }
            (None, Some(argv)) => {
                if argv.first().is_none_or(|program| program.is_empty()) {
                    return Err(settings_error(
                        "password_command",
                        "is empty: give the command and its arguments, e.g. [\"pass\", \"show\", \"smtp\"]",
                    ));
                }
                Some(PasswordSource::Command(argv.clone()))
            }
            (None, None) => None,
        };
        let login = match (&self.username, password) {
            (Some(username), Some(password)) if !username.is_empty() => {
                Some(Login { username: username.clone(), password })
            }
            (Some(_), Some(_)) => return Err(settings_error("username", "is empty: give the account's user name")),
            (Some(_), None) => {
                return Err(settings_error(
                    "username",
                    "needs a password: add password_env (an environment variable's name) or password_command",
                ))
            }
            (None, Some(_)) => {
                let field = if self.password_env.is_some() { "password_env" } else { "password_command" };
                return Err(settings_error(field, "needs username: the account to log in as"));
            }
            (None, None) => None,
        };
        Ok(SmtpSettings { host, port, security, login, ca_file: self.ca_file.clone() })
    }
}

fn owner_of(field: &str) -> &'static str {
    match field {
        "sendmail" => "transport: sendmail",
        "folder" => "transport: folder",
        _ => "transport: smtp",
    }
}

/// One message to send.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Outgoing {
    /// Mailboxes, `"Name <address>"` or bare addresses.
    pub to: Vec<String>,
    pub subject: String,
    pub text: String,
    pub html: Option<String>,
    pub attachments: Vec<Attachment>,
    /// Pictures the HTML shows (`<img src="cid:ID">`), by content ID: sent
    /// with it in `multipart/related`, once each.
    pub inline: Vec<(String, Attachment)>,
    /// A Message-ID, with its angle brackets.
    pub in_reply_to: Option<String>,
    /// Message-IDs, with their angle brackets, separated by spaces.
    pub references: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attachment {
    pub filename: String,
    /// A MIME type, e.g. `image/svg+xml`.
    pub content_type: String,
    pub bytes: Vec<u8>,
}

/// What was sent (or, for a dry run, what would have been).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sent {
    /// The recipients as given.
    pub to: Vec<String>,
    pub subject: String,
    pub attachments: Vec<String>,
    /// The Message-ID header, with its angle brackets.
    pub message_id: Option<String>,
    /// The whole formatted message: set for a dry run only.
    pub bytes: Option<Vec<u8>>,
    /// The file written, for the folder transport.
    pub file: Option<PathBuf>,
}

fn describe(outgoing: &Outgoing) -> String {
    format!("message '{}' to {}", outgoing.subject, outgoing.to.join(", "))
}

/// Build the message: a `text/plain` part (or `multipart/alternative` of
/// text and HTML when `html` is given), inside `multipart/mixed` with the
/// attachments when there are any. lettre adds the Date; the Message-ID is
/// random, at the sender's domain.
pub fn build(settings: &MailSettings, outgoing: &Outgoing) -> Result<Message> {
    let from = settings.from_mailbox()?;
    if outgoing.to.is_empty() {
        return Err(Error::usage(format!("{}: no recipient", describe(outgoing))));
    }
    let message_id = new_message_id(from.email.domain())?;
    let mut builder = Message::builder().from(from).subject(outgoing.subject.clone()).message_id(Some(message_id));
    for to in &outgoing.to {
        let mailbox = to.parse::<Mailbox>().map_err(|e| {
            Error::usage(format!(
                "recipient '{to}' is not a mailbox ({e}): write \"Name <address@example.org>\" or a bare address"
            ))
        })?;
        builder = builder.to(mailbox);
    }
    if let Some(id) = &outgoing.in_reply_to {
        builder = builder.header(header::InReplyTo::from(id.clone()));
    }
    if let Some(ids) = &outgoing.references {
        builder = builder.header(header::References::from(ids.clone()));
    }
    let text = SinglePart::plain(outgoing.text.clone());
    let content_type = |attachment: &Attachment| {
        ContentType::parse(&attachment.content_type).map_err(|e| {
            Error::usage(format!(
                "attachment '{}': content type '{}' is not a MIME type ({e}), e.g. image/svg+xml",
                attachment.filename, attachment.content_type
            ))
        })
    };
    // The HTML as an alternative body of the text, with the pictures it
    // shows beside it (multipart/related) when it shows any.
    let alternative = match &outgoing.html {
        None => None,
        Some(html) if outgoing.inline.is_empty() => {
            Some(MultiPart::alternative_plain_html(outgoing.text.clone(), html.clone()))
        }
        Some(html) => {
            let mut related = MultiPart::related().singlepart(SinglePart::html(html.clone()));
            for (id, picture) in &outgoing.inline {
                related = related.singlepart(
                    lettre::message::Attachment::new_inline(id.clone())
                        .body(picture.bytes.clone(), content_type(picture)?),
                );
            }
            Some(MultiPart::alternative().singlepart(SinglePart::plain(outgoing.text.clone())).multipart(related))
        }
    };
    let message = match (alternative, outgoing.attachments.is_empty()) {
        (None, true) => builder.singlepart(text),
        (Some(alternative), true) => builder.multipart(alternative),
        (alternative, false) => {
            let mut mixed = match alternative {
                None => MultiPart::mixed().singlepart(text),
                Some(alternative) => MultiPart::mixed().multipart(alternative),
            };
            for attachment in &outgoing.attachments {
                let content_type = content_type(attachment)?;
                mixed = mixed.singlepart(
                    lettre::message::Attachment::new(attachment.filename.clone())
                        .body(attachment.bytes.clone(), content_type),
                );
            }
            builder.multipart(mixed)
        }
    };
    message.map_err(|e| Error::usage(format!("{}: cannot be built: {e}", describe(outgoing))))
}

/// `<32 hex digits.adjutant@DOMAIN>`, DOMAIN the sender's: random, and
/// naming no machine (lettre's own would carry this host's name).
fn new_message_id(domain: &str) -> Result<String> {
    let mut random = [0u8; 16];
    getrandom::fill(&mut random).map_err(|e| Error::usage(format!("no randomness for a Message-ID: {e}")))?;
    let hex: String = random.iter().map(|b| format!("{b:02x}")).collect();
    Ok(format!("<{hex}.adjutant@{domain}>"))
}

fn message_id(message: &Message) -> Option<String> {
    message.headers().get_raw("Message-ID").map(|id| id.trim().to_string())
}

fn sent_record(outgoing: &Outgoing, message: &Message) -> Sent {
    Sent {
        to: outgoing.to.clone(),
        subject: outgoing.subject.clone(),
        attachments: outgoing.attachments.iter().map(|a| a.filename.clone()).collect(),
        message_id: message_id(message),
        bytes: None,
        file: None,
    }
}

/// Send `messages` in order through the settings' transport. With
/// `dry_run`, build them and return them formatted, without reading the
/// password, touching the network or writing a file.
///
/// On a failure the error names the message and how many were sent before
/// it; those are not sent again by a retry of the rest alone.
pub fn send(settings: &MailSettings, game_root: &Path, messages: &[Outgoing], dry_run: bool) -> Result<Vec<Sent>> {
    let transport = settings.transport()?;
    let built: Vec<Message> = messages.iter().map(|m| build(settings, m)).collect::<Result<_>>()?;
    if dry_run {
        return Ok(messages
            .iter()
            .zip(&built)
            .map(|(outgoing, message)| Sent { bytes: Some(message.formatted()), ..sent_record(outgoing, message) })
            .collect());
    }
    match transport {
        Transport::Smtp(smtp) => send_smtp(&smtp, game_root, messages, &built),
        Transport::Sendmail { program } => {
            let sendmail = SendmailTransport::new_with_command(&program);
            let mut sent = Vec::new();
            for (i, (outgoing, message)) in messages.iter().zip(&built).enumerate() {
                sendmail.send(message).map_err(|e| {
                    Error::io(
                        &program,
                        io::Error::other(format!(
                            "{} failed: {e}{}",
                            describe(outgoing),
                            already_sent(i, messages.len())
                        )),
                    )
                })?;
                sent.push(sent_record(outgoing, message));
            }
            Ok(sent)
        }
        Transport::Folder { dir } => write_folder(&game_root.join(dir), messages, &built),
    }
}

fn already_sent(i: usize, total: usize) -> String {
    if i == 0 {
        String::new()
    } else {
        format!(" ({i} of {total} messages were sent before it)")
    }
}

fn resolve(game_root: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        game_root.join(path)
    }
}

fn send_smtp(smtp: &SmtpSettings, game_root: &Path, messages: &[Outgoing], built: &[Message]) -> Result<Vec<Sent>> {
    let server = format!("smtp://{}:{}", smtp.host, smtp.port);
    let tls = match smtp.security {
        Security::None => Tls::None,
        security => {
            let mut params = TlsParameters::builder(smtp.host.clone());
            if let Some(ca_file) = &smtp.ca_file {
                let path = resolve(game_root, ca_file);
                let pem = fsio::read(&path)?;
                let certificate = Certificate::from_pem(&pem).map_err(|e| {
                    settings_error("ca_file", format!("{}: not a PEM certificate: {e}", path.display()))
                })?;
                params = params.add_root_certificate(certificate);
            }
            let params = params
                .build_rustls()
                .map_err(|e| Error::io(&server, io::Error::other(format!("TLS setup ({}): {e}", security.name()))))?;
            if security == Security::Tls {
                Tls::Wrapper(params)
            } else {
                Tls::Required(params)
            }
        }
    };
    let mut builder =
        SmtpTransport::builder_dangerous(smtp.host.clone()).port(smtp.port).tls(tls).timeout(Some(SMTP_TIMEOUT));
    let mut password = None;
    if let Some(login) = &smtp.login {
        let secret = read_password(&login.password)?;
        builder = builder.credentials(Credentials::new(login.username.clone(), secret.0.clone()));
        password = Some(secret);
    }
    let transport = builder.build();
    let mut sent = Vec::new();
    for (i, (outgoing, message)) in messages.iter().zip(built).enumerate() {
        if let Err(e) = transport.send(message) {
            let mut text = format!(
                "{} ({}) failed: {e}{}",
                describe(outgoing),
                smtp.security.name(),
                already_sent(i, messages.len())
            );
            // A server may echo what it was sent; the password never leaves here.
            if let Some(secret) = password.as_ref().filter(|s| !s.0.is_empty()) {
                text = text.replace(&secret.0, "***");
            }
            return Err(Error::io(&server, io::Error::other(text)));
        }
        sent.push(sent_record(outgoing, message));
    }
    Ok(sent)
}

/// Read the password from its source. Called only when really sending.
fn read_password(source: &PasswordSource) -> Result<Secret> {
    match source {
        PasswordSource::Env(var) => match std::env::var(var) {
            Ok(value) if !value.is_empty() => Ok(Secret(value)),
            Ok(_) => Err(settings_error("password_env", format!("the environment variable {var} is empty"))),
            Err(std::env::VarError::NotPresent) => {
                Err(settings_error("password_env", format!("the environment variable {var} is not set")))
            }
            Err(std::env::VarError::NotUnicode(_)) => {
                Err(settings_error("password_env", format!("the environment variable {var} is not UTF-8 text")))
            }
        },
        PasswordSource::Command(argv) => {
            let program = &argv[0];
            let shown = argv.join(" ");
            // stderr is the user's: a password manager may ask or explain there.
            let output = Command::new(program)
                .args(&argv[1..])
                .stdin(Stdio::null())
                .stderr(Stdio::inherit())
                .output()
                .map_err(|e| settings_error("password_command", format!("cannot run '{shown}': {e}")))?;
            if !output.status.success() {
                return Err(settings_error("password_command", format!("'{shown}' failed ({})", output.status)));
            }
            let stdout = String::from_utf8(output.stdout).map_err(|_| {
                settings_error("password_command", format!("'{shown}' printed something that is not UTF-8"))
            })?;
            let first = stdout.lines().next().unwrap_or("");
            if first.is_empty() {
                return Err(settings_error(
                    "password_command",
                    format!("'{shown}' printed no password (its first line is empty)"),
                ));
            }
            Ok(Secret(first.to_string()))
        }
    }
}

/// Write each message as `NNNNNN-ADDRESS.eml`, numbered after the highest
/// number already in the folder, each file created atomically and never
/// replacing another.
fn write_folder(dir: &Path, messages: &[Outgoing], built: &[Message]) -> Result<Vec<Sent>> {
    fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut next = highest_number(dir)? + 1;
    let mut sent = Vec::new();
    for (outgoing, message) in messages.iter().zip(built) {
        let bytes = message.formatted();
        let recipient = message.envelope().to().first().map(|a| a.to_string()).unwrap_or_default();
        let slug: String = recipient
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '.' || c == '-' || c == '@' { c } else { '_' })
            .collect();
        let path = loop {
            let path = dir.join(format!("{next:06}-{slug}.eml"));
            next += 1;
            match fsio::write_new_atomic(&path, &bytes) {
                Ok(()) => break path,
                // Another command took this number meanwhile: take the next.
                Err(Error::Io { source, .. }) if source.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        };
        sent.push(Sent { file: Some(path), ..sent_record(outgoing, message) });
    }
    Ok(sent)
}

fn highest_number(dir: &Path) -> Result<u64> {
    let mut highest = 0;
    for entry in fs::read_dir(dir).map_err(|e| Error::io(dir, e))? {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if let Some(n) = name.split('-').next().and_then(|n| n.parse::<u64>().ok()) {
            highest = highest.max(n);
        }
    }
    Ok(highest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(yaml: &str) -> std::result::Result<MailSettings, Located> {
        crate::base::yaml::parse::<MailSettings>("game.yaml", yaml)
    }

    #[test]
    fn smtp_defaults_to_starttls_on_587() {
        let s = parse("from: Referee <ref@example.org>\ntransport: smtp\nhost: smtp.example.org\n").unwrap();
        let Transport::Smtp(smtp) = s.transport().unwrap() else { panic!("not smtp") };
        assert_eq!((smtp.port, smtp.security), (587, Security::Starttls));
        let s = parse("from: ref@example.org\ntransport: smtp\nhost: smtp.example.org\nsecurity: tls\n").unwrap();
        let Transport::Smtp(smtp) = s.transport().unwrap() else { panic!("not smtp") };
        assert_eq!(smtp.port, 465);
    }

    #[test]
    fn password_key_is_refused_with_its_own_message() {
        let err =
            parse("from: ref@example.org\ntransport: smtp\nhost: h.example.org\npassword: hunter2\n").unwrap_err();
        assert_eq!(err.field, "password");
        assert!(err.message.contains("password_env") && err.message.contains("password_command"), "{err}");
        assert!(!err.to_string().contains("hunter2"), "{err}");
    }

    #[test]
    fn settings_round_trip_through_yaml() {
        let yaml = "from: Referee <ref@example.org>\ntransport: smtp\nhost: h.example.org\nusername: ref\n\
                    password_command: [pass, show, smtp]\n";
        let s = parse(yaml).unwrap();
        let written = crate::base::yaml::to_string(&s).unwrap();
        assert!(!written.contains("password:"), "{written}");
        assert_eq!(parse(&written).unwrap(), s);
    }

    #[test]
    fn unknown_key_is_refused() {
        let err = parse("from: ref@example.org\ntransport: smtp\nhost: h.example.org\nserver: x\n").unwrap_err();
        assert!(err.message.contains("unknown field `server`"), "{err}");
    }

    #[test]
    fn security_none_only_to_loopback() {
        for host in ["127.0.0.1", "::1", "[::1]", "localhost", "LOCALHOST", "127.0.0.2"] {
            let mut s = MailSettings::new("ref@example.org", TransportKind::Smtp);
            s.host = Some(host.into());
            s.security = Some(Security::None);
            let Transport::Smtp(smtp) = s.transport().unwrap() else { panic!("not smtp") };
            assert_eq!(smtp.port, 25, "{host}");
        }
        for host in ["smtp.example.org", "192.168.1.10", "localhost.example.org", "::2"] {
            let mut s = MailSettings::new("ref@example.org", TransportKind::Smtp);
            s.host = Some(host.into());
            s.security = Some(Security::None);
            let err = s.transport().unwrap_err().to_string();
            assert!(err.starts_with("game.yaml: mail.security: 'none'"), "{err}");
            assert!(err.contains(host) && err.contains("loopback"), "{err}");
        }
    }

    #[test]
    fn keys_of_another_transport_are_refused() {
        let s = parse("from: ref@example.org\ntransport: folder\nhost: smtp.example.org\n").unwrap();
        let err = s.transport().unwrap_err().to_string();
        assert_eq!(err, "game.yaml: mail.host: does not apply to transport: folder (it is for transport: smtp)");
        let s = parse("from: ref@example.org\ntransport: smtp\nhost: h.example.org\nfolder: out\n").unwrap();
        let err = s.transport().unwrap_err().to_string();
        assert!(err.contains("mail.folder: does not apply to transport: smtp"), "{err}");
    }

    #[test]
    fn login_needs_both_username_and_one_password_source() {
        let base = "from: ref@example.org\ntransport: smtp\nhost: h.example.org\n";
        let err = parse(&format!("{base}username: ref\n")).unwrap().transport().unwrap_err().to_string();
        assert!(err.contains("mail.username: needs a password"), "{err}");
        let err = parse(&format!("{base}password_env: P\n")).unwrap().transport().unwrap_err().to_string();
        assert!(err.contains("mail.password_env: needs username"), "{err}");
        let both = format!("{base}username: ref\npassword_env: P\npassword_command: [pass]\n");
        let err = parse(&both).unwrap().transport().unwrap_err().to_string();
        assert!(err.contains("not both"), "{err}");
        let empty = format!("{base}username: ref\npassword_command: []\n");
        let err = parse(&empty).unwrap().transport().unwrap_err().to_string();
        assert!(err.contains("mail.password_command: is empty"), "{err}");
    }

    #[test]
    fn bad_from_and_missing_host_are_named() {
        let s = parse("from: not an address\ntransport: folder\n").unwrap();
        let err = s.transport().unwrap_err().to_string();
        assert!(err.starts_with("game.yaml: mail.from: 'not an address' is not a mailbox"), "{err}");
        let s = parse("from: ref@example.org\ntransport: smtp\n").unwrap();
        assert!(s.transport().unwrap_err().to_string().contains("mail.host: is missing"));
        let s = parse("from: ref@example.org\ntransport: smtp\nhost: h.example.org\nport: 0\n").unwrap();
        assert!(s.transport().unwrap_err().to_string().contains("mail.port: 0 is not a port"));
    }

    #[test]
    fn secret_debug_hides_the_password() {
        assert_eq!(format!("{:?}", Secret("hunter2".into())), "Secret(***)");
    }

    #[test]
    fn build_shapes() {
        let s = MailSettings::new("Referee <ref@example.org>", TransportKind::Folder);
        let mut m = Outgoing {
            to: vec!["A <a@example.org>".into()],
            subject: "Turn 16".into(),
            text: "hello".into(),
            ..Outgoing::default()
        };
        let plain = String::from_utf8(build(&s, &m).unwrap().formatted()).unwrap();
        assert!(plain.contains("Content-Type: text/plain; charset=utf-8"), "{plain}");
        assert!(!plain.contains("multipart"), "{plain}");
        m.html = Some("<p>hello</p>".into());
        let alt = String::from_utf8(build(&s, &m).unwrap().formatted()).unwrap();
        assert!(alt.contains("multipart/alternative") && !alt.contains("multipart/mixed"), "{alt}");
        m.attachments.push(Attachment {
            filename: "map.svg".into(),
            content_type: "image/svg+xml".into(),
            bytes: b"<svg/>".to_vec(),
        });
        m.in_reply_to = Some("<x@example.org>".into());
        let mixed = String::from_utf8(build(&s, &m).unwrap().formatted()).unwrap();
        assert!(mixed.contains("multipart/mixed") && mixed.contains("multipart/alternative"), "{mixed}");
        assert!(mixed.contains("In-Reply-To: <x@example.org>"), "{mixed}");
        m.to = vec!["nobody".into()];
        let err = build(&s, &m).unwrap_err().to_string();
        assert!(err.starts_with("recipient 'nobody' is not a mailbox"), "{err}");
        m.to.clear();
        assert!(build(&s, &m).unwrap_err().to_string().ends_with("no recipient"));
    }
}
