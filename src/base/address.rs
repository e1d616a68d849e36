//! Mail addresses, read by lettre's parser (the one that sends the mail)
//! wherever one comes in: `--player side="Name <address>"`, game.yaml's
//! players, the From of an incoming message. An address adjutant accepts
//! is one it can send to; a newline, a second `@` or a space never gets
//! into a header.
//!
//! Two addresses are the same mailbox when their local parts (before the
//! `@`) are the same exactly, case included, and their domains are the
//! same in any case: RFC 5321 §2.4 lets a server tell `Ann@` from `ann@`,
//! while a domain never depends on case. So orders from `ann@Example.ORG`
//! are taken for a player written `ann@example.org`, and orders from
//! `Ann@example.org` are not.

use std::str::FromStr;

use lettre::message::Mailbox;
use lettre::Address;

use crate::base::error::echo;

/// What an address must look like, for messages.
const WRITE: &str = "write local-part@domain, e.g. ann@example.org";

/// A bare address, `local-part@domain`.
pub fn parse(text: &str) -> Result<Address, String> {
    Address::from_str(text).map_err(|e| format!("'{}' is not a mail address ({e}); {WRITE}", echo(text)))
}

/// A mailbox: `Name <address>` or a bare address.
pub fn parse_mailbox(text: &str) -> Result<Mailbox, String> {
    Mailbox::from_str(text).map_err(|e| {
        format!(
            "'{}' is not a mailbox ({e}); write Name <local-part@domain>, e.g. Ann Smith <ann@example.org>",
            echo(text)
        )
    })
}

/// Whether `a` and `b` are the same mailbox (see the module documentation):
/// the local parts exactly, the domains in any case.
pub fn same(a: &Address, b: &Address) -> bool {
    a.user() == b.user() && a.domain().to_lowercase() == b.domain().to_lowercase()
}

/// An address as adjutant keeps and compares it: the local part as
/// written, the domain in lower case.
pub fn normal(a: &Address) -> String {
    format!("{}@{}", a.user(), a.domain().to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Addresses a hand check got wrong: each is accepted exactly when
    /// lettre, which sends the mail, accepts it, and the dangerous ones
    /// (a header injected through a line break, two `@`, spaces) never are.
    #[test]
    fn tricky_addresses_are_read_as_lettre_reads_them() {
        let cases: [(&str, bool); 16] = [
            ("ann@example.org", true),
            ("ann.smith+orders@mail.example.org", true),
            ("ann", false),
            ("ann@", false),
            ("@example.org", false),
            ("ann@@example.org", false),
            ("ann@bob@example.org", false),
            ("ann smith@example.org", false),
            (" ann@example.org", false),
            ("ann@example.org\nBcc: x@y.org", false),
            ("ann@example.org\r\nBcc: x@y.org", false),
            ("\"ann smith\"@example.org", true),
            ("ann@bücher.example", true),
            ("ann@example.org.", false),
            ("ann@-example.org", false),
            ("ann@[127.0.0.1]", true),
        ];
        for (text, ok) in cases {
            let ours = parse(text);
            assert_eq!(ours.is_ok(), Address::from_str(text).is_ok(), "{text:?}: we and lettre disagree");
            assert_eq!(ours.is_ok(), ok, "{text:?}: {ours:?}");
            if let Err(message) = ours {
                assert!(!message.contains('\n') && !message.contains('\r'), "{message:?}");
            }
        }
        // The same addresses inside a mailbox.
        for (text, ok) in cases.iter().filter(|(t, _)| !t.contains(['"', ' ', '\n', '['])) {
            let mailbox = format!("Ann Smith <{text}>");
            assert_eq!(parse_mailbox(&mailbox).is_ok(), *ok, "{mailbox:?}");
        }
        let m = parse_mailbox("\"Smith, Ann\" <ann@example.org>").unwrap();
        assert_eq!(m.name.as_deref(), Some("Smith, Ann"));
        assert!(parse_mailbox("Ann <ann@example.org>, Bob <bob@example.org>").is_err());
        assert!(parse_mailbox("Ann <ann@example.org>\nBcc: x@y.org").is_err());
    }

    #[test]
    fn the_domain_is_compared_in_any_case_the_local_part_exactly() {
        let a = |s: &str| parse(s).unwrap();
        assert!(same(&a("ann@example.org"), &a("ann@EXAMPLE.Org")));
        assert!(!same(&a("ann@example.org"), &a("Ann@example.org")));
        assert!(!same(&a("ann@example.org"), &a("ann@example.com")));
        assert_eq!(normal(&a("Ann.Smith@Example.ORG")), "Ann.Smith@example.org");
    }
}
