//! Sending mail through a real SMTP server on loopback (mailin-embedded, in
//! a thread of this test process): plain SMTP, STARTTLS with a certificate
//! made here and trusted through `ca_file`, AUTH with the password from an
//! environment variable or a command; and the folder transport, dry runs
//! and the settings that must be refused.

mod common;

use std::net::TcpListener;
use std::path::Path;

use adjutant::mail::{self, Attachment, MailSettings, Outgoing, TransportKind};
use common::smtp::{start_server, TestServer, USER};
use mail_parser::{MessageParser, MimeHeaders};

fn settings(yaml: &str) -> MailSettings {
    adjutant::base::yaml::parse("game.yaml", yaml).unwrap()
}

fn plain_settings(port: u16) -> MailSettings {
    settings(&format!(
        "from: \"Referee <referee@example.org>\"\ntransport: smtp\nhost: 127.0.0.1\nport: {port}\nsecurity: none\n"
    ))
}

fn tls_settings(server: &TestServer, password_lines: &str) -> MailSettings {
    settings(&format!(
        "from: Referee <referee@example.org>\ntransport: smtp\nhost: 127.0.0.1\nport: {}\nsecurity: starttls\n\
         ca_file: {}\nusername: {USER}\n{password_lines}",
        server.port,
        server.ca_file.as_ref().unwrap().display()
    ))
}

const SVG: &[u8] =
    b"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"><rect width=\"10\" height=\"10\"/></svg>\n";

fn report() -> Outgoing {
    Outgoing {
        to: vec!["Anne Player <anne@example.org>".into(), "bob@example.net".into()],
        subject: "Savannah g1: turn 16, step 2 resolved".into(),
        text: "The French assault on the Spring Hill redoubt: 3:2 odds, roll 7.\nSee the map attached.\n".into(),
        html: None,
        attachments: vec![Attachment {
            filename: "map-16.svg".into(),
            content_type: "image/svg+xml".into(),
            bytes: SVG.to_vec(),
        }],
        inline: Vec::new(),
        in_reply_to: None,
        references: None,
    }
}

/// Check that `data` is `report()` as received: headers, text and the
/// attachment's decoded bytes.
fn assert_is_report(data: &[u8]) {
    let message = MessageParser::default().parse(data).expect("a parseable message");
    assert_eq!(message.subject(), Some("Savannah g1: turn 16, step 2 resolved"));
    let from = message.from().unwrap().first().unwrap();
    assert_eq!((from.name(), from.address()), (Some("Referee"), Some("referee@example.org")));
    let to: Vec<_> = message.to().unwrap().iter().map(|a| a.address().unwrap().to_string()).collect();
    assert_eq!(to, ["anne@example.org", "bob@example.net"]);
    assert_eq!(
        message.body_text(0).unwrap().replace("\r\n", "\n"),
        "The French assault on the Spring Hill redoubt: 3:2 odds, roll 7.\nSee the map attached.\n"
    );
    assert_eq!(message.attachment_count(), 1);
    let attachment = message.attachment(0).unwrap();
    assert_eq!(attachment.attachment_name(), Some("map-16.svg"));
    assert!(attachment.is_content_type("image", "svg+xml"));
    assert_eq!(attachment.contents().to_vec(), SVG.to_vec());
    let id = message.message_id().unwrap();
    assert!(id.ends_with(".adjutant@example.org") && id.len() == 32 + ".adjutant@example.org".len(), "{id}");
}

#[test]
fn plain_smtp_delivers_to_two_recipients_with_an_svg_attachment() {
    let server = start_server(false, "unused");
    let sent = mail::send(&plain_settings(server.port), Path::new("."), &[report()], false).unwrap();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].to, report().to);
    assert_eq!(sent[0].attachments, ["map-16.svg"]);
    assert_eq!(sent[0].bytes, None);

    let deliveries = server.deliveries();
    assert_eq!(deliveries.len(), 1);
    let delivery = &deliveries[0];
    assert_eq!(delivery.mail_from, "referee@example.org");
    assert_eq!(delivery.rcpt_to, ["anne@example.org", "bob@example.net"]);
    assert_eq!(delivery.user, None);
    assert_is_report(&delivery.data);
    let received_id = MessageParser::default().parse(&delivery.data).unwrap().message_id().map(|id| format!("<{id}>"));
    assert_eq!(sent[0].message_id, received_id);
}

#[test]
fn starttls_with_the_certificate_in_ca_file_and_the_password_from_the_environment() {
    let server = start_server(true, "correct horse battery");
    std::env::set_var("ADJUTANT_TEST_SMTP_PASSWORD_ENV", "correct horse battery");
    let settings = tls_settings(&server, "password_env: ADJUTANT_TEST_SMTP_PASSWORD_ENV\n");
    let mut second = report();
    second.to = vec!["carl@example.com".into()];
    second.in_reply_to = Some("<orders-16@example.org>".into());
    second.references = Some("<orders-16@example.org>".into());
    mail::send(&settings, Path::new("."), &[report(), second], false).unwrap();

    let deliveries = server.deliveries();
    assert_eq!(deliveries.len(), 2);
    // mailin offers AUTH only after STARTTLS: a login proves the TLS session.
    assert_eq!(deliveries[0].user.as_deref(), Some(USER));
    assert_is_report(&deliveries[0].data);
    assert_eq!(deliveries[1].rcpt_to, ["carl@example.com"]);
    let text = String::from_utf8_lossy(&deliveries[1].data);
    assert!(text.contains("In-Reply-To: <orders-16@example.org>"), "{text}");
}

#[test]
fn the_password_can_come_from_a_command() {
    let server = start_server(true, "from-a-command");
    // Only the first line of the command's output is the password.
    let settings =
        tls_settings(&server, "password_command: [\"sh\", \"-c\", \"printf 'from-a-command\\\\nsecond line\\\\n'\"]\n");
    mail::send(&settings, Path::new("."), &[report()], false).unwrap();
    assert_eq!(server.deliveries().len(), 1);
    assert_eq!(server.deliveries()[0].user.as_deref(), Some(USER));

    let failing = tls_settings(&server, "password_command: [\"sh\", \"-c\", \"exit 3\"]\n");
    let err = mail::send(&failing, Path::new("."), &[report()], false).unwrap_err().to_string();
    assert!(err.starts_with("game.yaml: mail.password_command: 'sh -c exit 3' failed"), "{err}");
    assert_eq!(server.deliveries().len(), 1);
}

#[test]
fn a_wrong_password_fails_without_showing_it() {
    let server = start_server(true, "the-right-one");
    std::env::set_var("ADJUTANT_TEST_SMTP_PASSWORD_WRONG", "Wr0ng-Pa55word");
    let settings = tls_settings(&server, "password_env: ADJUTANT_TEST_SMTP_PASSWORD_WRONG\n");
    let err = mail::send(&settings, Path::new("."), &[report()], false).unwrap_err();
    assert_eq!(err.exit_code(), 2);
    let text = err.to_string();
    // The server echoed the password in its 535 reply; the error must not.
    assert!(text.contains("535"), "{text}");
    assert!(text.contains(&format!("smtp://127.0.0.1:{}", server.port)), "{text}");
    assert!(!text.contains("Wr0ng-Pa55word"), "{text}");
    assert!(!format!("{err:?}").contains("Wr0ng-Pa55word"), "{err:?}");
    assert!(server.deliveries().is_empty());

    std::env::remove_var("ADJUTANT_TEST_SMTP_PASSWORD_UNSET");
    let unset = tls_settings(&server, "password_env: ADJUTANT_TEST_SMTP_PASSWORD_UNSET\n");
    let err = mail::send(&unset, Path::new("."), &[report()], false).unwrap_err().to_string();
    assert_eq!(
        err,
        "game.yaml: mail.password_env: the environment variable ADJUTANT_TEST_SMTP_PASSWORD_UNSET is not set"
    );
}

#[test]
fn starttls_refuses_a_certificate_that_is_not_trusted() {
    let server = start_server(true, "pw");
    std::env::set_var("ADJUTANT_TEST_SMTP_PASSWORD_UNTRUSTED", "pw");
    let mut settings = tls_settings(&server, "password_env: ADJUTANT_TEST_SMTP_PASSWORD_UNTRUSTED\n");
    settings.ca_file = None;
    let err = mail::send(&settings, Path::new("."), &[report()], false).unwrap_err().to_string();
    assert!(err.contains("starttls") && err.to_lowercase().contains("certificate"), "{err}");
    assert!(server.deliveries().is_empty());
}

#[test]
fn dry_run_sends_nothing_and_returns_the_message() {
    let server = start_server(true, "pw");
    // The variable is not set: a dry run must not even read the password.
    std::env::remove_var("ADJUTANT_TEST_SMTP_PASSWORD_DRY");
    let settings = tls_settings(&server, "password_env: ADJUTANT_TEST_SMTP_PASSWORD_DRY\n");
    let sent = mail::send(&settings, Path::new("/nonexistent"), &[report()], true).unwrap();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].subject, "Savannah g1: turn 16, step 2 resolved");
    let bytes = sent[0].bytes.as_ref().expect("a dry run returns the formatted message");
    let text = String::from_utf8_lossy(bytes);
    assert!(
        text.starts_with("From: Referee <referee@example.org>\r\n")
            || text.contains("\r\nFrom: Referee <referee@example.org>\r\n"),
        "{text}"
    );
    assert_eq!(MessageParser::default().parse(bytes).unwrap().attachment(0).unwrap().contents().to_vec(), SVG.to_vec());
    assert_eq!(server.greetings(), 0, "a dry run connected to the server");
    assert!(server.deliveries().is_empty());

    // A folder dry run writes no file either.
    let game = tempfile::tempdir().unwrap();
    let folder = self::settings("from: referee@example.org\ntransport: folder\n");
    let sent = mail::send(&folder, game.path(), &[report()], true).unwrap();
    assert!(sent[0].bytes.is_some() && sent[0].file.is_none());
    assert!(!game.path().join("outbox").exists());
}

#[test]
fn folder_transport_writes_parseable_eml_files_numbered_on() {
    let game = tempfile::tempdir().unwrap();
    let settings = settings("from: \"Referee <referee@example.org>\"\ntransport: folder\nfolder: mail/out\n");
    let mut second = report();
    second.to = vec!["Carl <carl@example.com>".into()];
    second.html = Some("<p>The French assault</p>".into());
    let sent = mail::send(&settings, game.path(), &[report(), second], false).unwrap();
    let out = game.path().join("mail/out");
    let first = out.join("000001-anne@example.org.eml");
    assert_eq!(sent[0].file.as_deref(), Some(first.as_path()));
    assert_is_report(&std::fs::read(&first).unwrap());
    let second_file = out.join("000002-carl@example.com.eml");
    let parsed_second = std::fs::read(&second_file).unwrap();
    let parsed = MessageParser::default().parse(&parsed_second).unwrap();
    assert_eq!(parsed.body_html(0).as_deref(), Some("<p>The French assault</p>"));
    assert_eq!(parsed.attachment(0).unwrap().attachment_name(), Some("map-16.svg"));

    // A picture the HTML shows goes once, beside it (multipart/related),
    // under its content ID; the text stays the alternative.
    let mut third = report();
    third.html = Some("<img src=\"cid:map\">".into());
    third.inline = vec![(
        "map".into(),
        Attachment { filename: "map.png".into(), content_type: "image/png".into(), bytes: b"\x89PNG-ish".to_vec() },
    )];
    let sent = mail::send(&settings, game.path(), &[third], true).unwrap();
    let bytes = sent[0].bytes.clone().unwrap();
    let parsed = MessageParser::default().parse(&bytes).unwrap();
    assert!(String::from_utf8_lossy(&bytes).contains("multipart/related"));
    assert_eq!(parsed.body_html(0).as_deref(), Some("<img src=\"cid:map\">"));
    assert!(parsed.body_text(0).unwrap().contains("The French assault"));
    let picture = parsed.parts.iter().filter(|p| p.content_id() == Some("map")).collect::<Vec<_>>();
    assert_eq!(picture.len(), 1);
    assert_eq!(picture[0].contents(), b"\x89PNG-ish");

    // A later send numbers on; nothing is replaced, no temporary file is left.
    let again = mail::send(&settings, game.path(), &[report()], false).unwrap();
    assert_eq!(again[0].file.as_deref(), Some(out.join("000003-anne@example.org.eml").as_path()));
    let mut names: Vec<_> =
        std::fs::read_dir(&out).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    assert_eq!(names, ["000001-anne@example.org.eml", "000002-carl@example.com.eml", "000003-anne@example.org.eml"]);
}

#[test]
fn a_password_in_the_settings_is_refused() {
    let yaml =
        "from: referee@example.org\ntransport: smtp\nhost: smtp.example.org\nusername: referee\npassword: hunter2\n";
    let err = adjutant::base::yaml::parse::<MailSettings>("game.yaml", yaml).unwrap_err();
    let text = err.to_string();
    assert!(text.starts_with("game.yaml:5:"), "{text}");
    assert!(text.contains("password: a password is never written in game.yaml"), "{text}");
    assert!(text.contains("password_env") && text.contains("password_command"), "{text}");
    assert!(!text.contains("hunter2"), "{text}");
}

#[test]
fn security_none_to_a_remote_host_is_refused_before_connecting() {
    let mut settings = MailSettings::new("referee@example.org", TransportKind::Smtp);
    settings.host = Some("smtp.example.org".into());
    settings.security = Some(mail::Security::None);
    let err = mail::send(&settings, Path::new("."), &[report()], false).unwrap_err();
    assert_eq!(err.exit_code(), 2);
    let text = err.to_string();
    assert!(text.starts_with("game.yaml: mail.security: 'none'"), "{text}");
    assert!(text.contains("smtp.example.org") && text.contains("loopback"), "{text}");
}

#[test]
fn a_refused_connection_names_the_server() {
    // Bind then drop a listener: its port is very likely closed now.
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let err = mail::send(&plain_settings(port), Path::new("."), &[report()], false).unwrap_err().to_string();
    assert!(err.starts_with(&format!("smtp://127.0.0.1:{port}: message 'Savannah g1")), "{err}");
    assert!(err.to_lowercase().contains("connection refused"), "{err}");
}
