//! The YAML facade: the one module that calls a YAML crate.
//!
//! Every parse and every write of YAML in adjutant goes through here, so
//! that moving to another YAML crate is a change to this folder alone.
//! Today the typed side is `serde_norway` (the maintained fork of the
//! deprecated `serde_yaml`, byte-for-byte the same output), and
//! [`locate`] reads the text with `yaml-rust2`'s event parser to say where
//! a field was written.
//!
//! - [`Value`], [`Mapping`], [`Number`]: an untyped YAML tree.
//! - [`from_str`], [`from_value`], [`to_string`]: serde in and out.
//! - [`parse`]: a typed parse whose error names the file, line, column and
//!   field path ([`Located`]).

pub mod depth;
pub mod locate;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::Located;

pub use serde_norway::{Mapping, Number, Value};

/// A YAML error (syntax or type), with its location when it has one.
pub type Error = serde_norway::Error;

/// Parse `text` as `T`.
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, Error> {
    serde_norway::from_str(text)
}

/// Read an untyped tree as `T`.
pub fn from_value<T: DeserializeOwned>(value: Value) -> Result<T, Error> {
    serde_norway::from_value(value)
}

/// The canonical YAML of `value`: what the journal, `state.yaml` and
/// `game.yaml` hold, and what `verify` compares byte for byte.
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String, Error> {
    serde_norway::to_string(value)
}

/// The 1-based line and column of an error, where the crate knows it.
pub fn error_location(error: &Error) -> Option<(usize, usize)> {
    error.location().map(|l| (l.line(), l.column()))
}

/// Parse YAML into `T`, locating any problem by line, column and field path.
pub fn parse<T: DeserializeOwned>(label: &str, text: &str) -> Result<T, Located> {
    let deserializer = serde_norway::Deserializer::from_str(text);
    serde_path_to_error::deserialize(deserializer).map_err(|e| {
        let field = e.path().to_string();
        let inner = e.into_inner();
        let location = inner.location();
        let mut message = inner.to_string();
        // The crate appends " at line L column C"; we print the location up front.
        if let Some(i) = message.find(" at line ") {
            message.truncate(i);
        }
        Located {
            file: label.to_string(),
            line: location.as_ref().map(|l| l.line()),
            column: location.as_ref().map(|l| l.column()),
            field,
            message,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_errors_are_located() {
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct Inner {
            count: u32,
        }
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct Outer {
            inner: Inner,
        }
        let err = parse::<Outer>("game.yaml", "inner:\n  count: many\n").unwrap_err();
        assert_eq!(err.file, "game.yaml");
        assert_eq!(err.line, Some(2));
        assert_eq!(err.field, "inner.count");
        assert!(err.to_string().starts_with("game.yaml:2:"), "{err}");
    }
}
