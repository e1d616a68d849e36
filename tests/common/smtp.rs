//! A real SMTP server on loopback for the tests (mailin-embedded, in a
//! thread of the test process): what it takes in is kept for the test to
//! read. Optionally STARTTLS with a certificate made here and AUTH.

use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, Once};
use std::thread;

use mailin_embedded::{response, Handler, Response, Server, SslConfig};

pub const USER: &str = "referee";

/// What the server took in: one entry per message accepted.
#[derive(Debug, Clone, Default)]
pub struct Delivery {
    pub mail_from: String,
    pub rcpt_to: Vec<String>,
    pub data: Vec<u8>,
    /// The user that logged in on this connection, if any.
    pub user: Option<String>,
}

#[derive(Default)]
pub struct Inbox {
    pub deliveries: Vec<Delivery>,
    /// EHLO/HELO commands seen: any connection at all that spoke SMTP.
    pub greetings: usize,
}

#[derive(Clone)]
pub struct TestHandler {
    pub inbox: Arc<Mutex<Inbox>>,
    password: String,
    current: Delivery,
    pub user: Option<String>,
}

impl Handler for TestHandler {
    fn helo(&mut self, _ip: std::net::IpAddr, _domain: &str) -> Response {
        self.inbox.lock().unwrap().greetings += 1;
        response::OK
    }

    fn data_start(&mut self, _domain: &str, from: &str, _is8bit: bool, to: &[String]) -> Response {
        self.current =
            Delivery { mail_from: from.to_string(), rcpt_to: to.to_vec(), data: Vec::new(), user: self.user.clone() };
        response::OK
    }

    fn data(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.current.data.extend_from_slice(buf);
        Ok(())
    }

    fn data_end(&mut self) -> Response {
        self.inbox.lock().unwrap().deliveries.push(std::mem::take(&mut self.current));
        response::OK
    }

    fn auth_plain(&mut self, _authorization_id: &str, authentication_id: &str, password: &str) -> Response {
        self.auth_login(authentication_id, password)
    }

    fn auth_login(&mut self, username: &str, password: &str) -> Response {
        if username == USER && password == self.password {
            self.user = Some(username.to_string());
            response::AUTH_OK
        } else {
            // A careless server that echoes what it was sent: the client
            // must still never show the password.
            Response::custom(535, format!("5.7.8 user {username} with password {password} rejected"))
        }
    }
}

pub struct TestServer {
    pub port: u16,
    pub inbox: Arc<Mutex<Inbox>>,
    /// The certificate's PEM, when the server offers STARTTLS.
    pub ca_file: Option<PathBuf>,
    _dir: tempfile::TempDir,
}

impl TestServer {
    pub fn deliveries(&self) -> Vec<Delivery> {
        self.inbox.lock().unwrap().deliveries.clone()
    }

    pub fn greetings(&self) -> usize {
        self.inbox.lock().unwrap().greetings
    }
}

/// Both lettre (ring) and mailin-embedded (rustls defaults) link rustls
/// here; with two providers compiled in, rustls needs one chosen.
pub fn install_crypto_provider() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// Start an SMTP server on 127.0.0.1, on a port the system picks. With
/// `tls`, it offers STARTTLS with a self-signed certificate for
/// `127.0.0.1` and `localhost`, and AUTH PLAIN and LOGIN (mailin offers
/// AUTH only over TLS) accepting `referee` / `password`.
pub fn start_server(tls: bool, password: &str) -> TestServer {
    install_crypto_provider();
    let dir = tempfile::tempdir().unwrap();
    let inbox = Arc::new(Mutex::new(Inbox::default()));
    let handler =
        TestHandler { inbox: inbox.clone(), password: password.to_string(), current: Delivery::default(), user: None };
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let mut server = Server::new(handler);
    server.with_name("test.invalid").with_num_threads(2).with_tcp_listener(listener);
    let mut ca_file = None;
    if tls {
        let rcgen::CertifiedKey { cert, signing_key } =
            rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_string(), "localhost".to_string()]).unwrap();
        let cert_path = dir.path().join("cert.pem");
        let key_path = dir.path().join("key.pem");
        std::fs::write(&cert_path, cert.pem()).unwrap();
        std::fs::write(&key_path, signing_key.serialize_pem()).unwrap();
        server
            .with_ssl(SslConfig::SelfSigned {
                cert_path: cert_path.to_string_lossy().into_owned(),
                key_path: key_path.to_string_lossy().into_owned(),
            })
            .unwrap()
            .with_auth(mailin_embedded::AuthMechanism::Plain)
            .with_auth(mailin_embedded::AuthMechanism::Login);
        ca_file = Some(cert_path);
    }
    // The server runs until the test process ends.
    thread::spawn(move || {
        let _ = server.serve();
    });
    TestServer { port, inbox, ca_file, _dir: dir }
}
