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
//! - [`parse_embedded`]: the same for a file of a module, read
//!   from its compact form ([`compact`], written at build time) when it
//!   has one, which is a hundred times faster than scanning the YAML.
//!   A module folder's file gets one too ([`compact_form`]), made once
//!   however many types its file is read as.

pub mod canonical;
pub mod compact;
pub(crate) mod compact_write;
pub mod depth;
pub mod locate;
mod scalar;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::base::error::Located;

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

/// [`from_value`] of a value borrowed, not copied: for a rule that reads
/// a part of the orders it does not keep.
pub fn from_value_ref<'de, T: serde::Deserialize<'de>>(value: &'de Value) -> Result<T, Error> {
    T::deserialize(value)
}

/// `T` read from `value` borrowed, naming where it fails (the path that
/// `serde_path_to_error` tracks): read plainly first, and only a value
/// that fails is read again with its path tracked, so the orders that
/// read well (nearly all) pay nothing for the path. The same `T`, or the
/// same error, as `serde_path_to_error::deserialize(value)`.
pub fn deserialize_at<'de, T: serde::Deserialize<'de>>(
    value: &'de Value,
) -> Result<T, serde_path_to_error::Error<Error>> {
    match T::deserialize(value) {
        Ok(t) => Ok(t),
        Err(_) => serde_path_to_error::deserialize(value),
    }
}

/// [`from_value`] naming where it fails: the field path of the first
/// mismatch (`moves[2].path`; empty for the whole value) and what is
/// wrong, the input's text in it echoed escaped and bounded
/// ([`crate::base::error::echo_serde`]). For a refusal of orders that
/// names its field, and so its line.
pub fn from_value_at<T: DeserializeOwned>(value: &Value) -> Result<T, (String, String)> {
    deserialize_at(value).map_err(|e| {
        let path = e.path().to_string();
        (if path == "." { String::new() } else { path }, crate::base::error::echo_serde(e.inner()))
    })
}

/// Read a phase's orders `body` (or one item of its list) as `T`: the
/// field path of the first mismatch under `prefix` (`moves[2]`), and what
/// is wrong, player text echoed escaped and bounded, with `hint` naming
/// what the phase's orders hold. Every phase reads its orders through
/// this, so every shape problem names its field (and so its line).
pub fn read_orders<T: DeserializeOwned>(body: &Value, prefix: &str, hint: &str) -> Result<T, (String, String)> {
    from_value_at(body).map_err(|(path, message)| {
        let field = match (prefix.is_empty(), path.is_empty()) {
            (_, true) => prefix.to_string(),
            (true, false) => path,
            (false, false) => format!("{prefix}.{path}"),
        };
        (field, format!("{message} ({hint})"))
    })
}

/// [`read_orders`] of a whole body, a body with no keys read as `T`'s
/// default (the orders that do nothing); a body that is not a mapping is
/// refused with its type.
pub fn read_body<T: DeserializeOwned + Default>(body: &Value, hint: &str) -> Result<T, (String, String)> {
    if body.as_mapping().is_some_and(|m| m.is_empty()) {
        return Ok(T::default());
    }
    read_orders(body, "", hint)
}

/// A string value (the trees that self-play and the guides build).
pub fn text(s: &str) -> Value {
    Value::String(s.to_string())
}

/// A sequence of string values.
pub fn strings(list: &[String]) -> Value {
    Value::Sequence(list.iter().map(|s| text(s)).collect())
}

/// A mapping of the pairs, string keys, in their order.
pub fn mapping(pairs: Vec<(&str, Value)>) -> Value {
    let mut m = Mapping::new();
    for (k, v) in pairs {
        m.insert(text(k), v);
    }
    Value::Mapping(m)
}

/// The canonical YAML of `value`: what the journal, `state.yaml` and
/// `game.yaml` hold, and what `verify` compares byte for byte. Written by
/// [`canonical`] where it can (the same bytes, faster), else by
/// serde_norway; debug builds (every test) check that the two agree.
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String, Error> {
    match canonical::to_string(value) {
        Some(text) => {
            #[cfg(debug_assertions)]
            if let Ok(theirs) = serde_norway::to_string(value) {
                assert_eq!(text, theirs, "the canonical writer and serde_norway disagree");
            }
            Ok(text)
        }
        None => serde_norway::to_string(value),
    }
}

/// The 1-based line and column of an error, where the crate knows it.
pub fn error_location(error: &Error) -> Option<(usize, usize)> {
    error.location().map(|l| (l.line(), l.column()))
}

/// Text that may begin with a byte order mark, without it: the mark is
/// not YAML. For orders files read back from a game folder (`orders/` on
/// replay), which passed the shell's input limits when they came in.
pub fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Parse YAML into `T`, locating any problem by line, column and field path.
pub fn parse<T: DeserializeOwned>(label: &str, text: &str) -> Result<T, Located> {
    // Tracking the field path costs a third of the time: only an error
    // needs it, so the text is read again, tracked, when there is one.
    if let Ok(value) = serde_norway::from_str(text) {
        return Ok(value);
    }
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
        // The crate names a nested field's path before its message: the
        // field is printed once, before it.
        if let Some(rest) = message.strip_prefix(&format!("{field}: ")) {
            message = rest.to_string();
        }
        Located {
            file: label.to_string(),
            line: location.as_ref().map(|l| l.line()),
            column: location.as_ref().map(|l| l.column()),
            message: crate::base::error::echo_serde(&message),
            field,
            code: None,
        }
    })
}

/// [`parse`] for a file of a module: `compact` is the compact form of the
/// same `text`, if it has one (build.rs wrote it for an embedded module's
/// file, [`compact_form`] made it for a folder's). The value is read
/// from it; anything it cannot give is read from the text, so that errors
/// are located exactly as [`parse`] locates them.
///
/// In debug builds (every test), the first read of each file as each type
/// is checked against [`parse`] of the text: the two must agree.
///
/// Under the fuzzer, what a compact form reads as is kept by its bytes
/// and type ([`fuzz_cache::typed`]), as the forms themselves are.
pub fn parse_embedded<T: DeserializeOwned + std::fmt::Debug + Clone + Send + 'static>(
    label: &str,
    text: &str,
    compact: Option<&[u8]>,
) -> Result<T, Located> {
    let Some(bytes) = compact else { return parse(label, text) };
    #[cfg(fuzzing)]
    if let Some(value) = fuzz_cache::typed::<T>(bytes) {
        return Ok(value);
    }
    match compact::from_slice::<T>(bytes) {
        Ok(value) => {
            #[cfg(debug_assertions)]
            check_compact(label, text, &value);
            #[cfg(fuzzing)]
            fuzz_cache::keep_typed(bytes, &value);
            Ok(value)
        }
        Err(error) => {
            let from_text = parse(label, text);
            debug_assert!(
                from_text.is_err(),
                "{label}: the YAML reads as {} but its compact form does not ({error})",
                std::any::type_name::<T>()
            );
            from_text
        }
    }
}

/// The compact form of `text` ([`compact`]), when it has a faithful one
/// (one document without tags, anchors or aliases whose tree is exactly
/// serde_norway's `Value` of it: [`compact_write::compact`]). A module
/// folder's file is read through it ([`crate::base::module_files`]): the
/// YAML is scanned here twice (serde_norway and yaml-rust2), then each
/// type the file is read as costs no scan; a text without one is read as
/// before, from the YAML, every time.
///
/// Under the fuzzer (`cfg(fuzzing)`, fuzz/README.md) the forms are kept
/// by the text's bytes for the whole process: each input of the `module`
/// target is the same small module with one file changed, so every other
/// file's form is made once, not once an input. Nothing else needs that
/// (a command reads a module once), and it costs memory: it is not built
/// outside fuzzing.
pub fn compact_form(text: &str) -> Option<std::sync::Arc<[u8]>> {
    #[cfg(fuzzing)]
    {
        fuzz_cache::compact_form(text)
    }
    #[cfg(not(fuzzing))]
    {
        compact_write::compact(text).map(std::sync::Arc::from)
    }
}

/// [`compact_form`]'s cache under the fuzzer: by the text, at most
/// [`fuzz_cache::MAX_BYTES`] of texts; emptied when full (the small
/// module's files come back at the next input that uses them). And
/// [`parse_embedded`]'s: what a compact form reads as, by its bytes and
/// the type read, as much again.
#[cfg(fuzzing)]
pub(crate) mod fuzz_cache {
    use std::any::{Any, TypeId};
    use std::collections::BTreeMap;
    use std::sync::{Arc, Mutex};

    type Typed = BTreeMap<(TypeId, Vec<u8>), Box<dyn Any + Send>>;
    static TYPED: Mutex<(Typed, usize)> = Mutex::new((Typed::new(), 0));

    /// The value a compact form was read as before, as type `T`.
    pub fn typed<T: Clone + 'static>(bytes: &[u8]) -> Option<T> {
        let cache = TYPED.lock().ok()?;
        cache.0.get(&(TypeId::of::<T>(), bytes.to_vec()))?.downcast_ref::<T>().cloned()
    }

    /// Keep what `bytes` read as, for [`typed`].
    pub fn keep_typed<T: Clone + Send + 'static>(bytes: &[u8], value: &T) {
        if let Ok(mut cache) = TYPED.lock() {
            if cache.1 + bytes.len() > MAX_BYTES {
                *cache = (Typed::new(), 0);
            }
            cache.1 += bytes.len();
            cache.0.insert((TypeId::of::<T>(), bytes.to_vec()), Box::new(value.clone()));
        }
    }

    pub const MAX_BYTES: usize = 16 * 1024 * 1024;

    type Cache = BTreeMap<String, Option<Arc<[u8]>>>;
    static CACHE: Mutex<(Cache, usize)> = Mutex::new((Cache::new(), 0));

    pub fn compact_form(text: &str) -> Option<Arc<[u8]>> {
        if let Ok(cache) = CACHE.lock() {
            if let Some(form) = cache.0.get(text) {
                return form.clone();
            }
        }
        let form: Option<Arc<[u8]>> = super::compact_write::compact(text).map(Arc::from);
        if let Ok(mut cache) = CACHE.lock() {
            let size = text.len() + form.as_ref().map_or(0, |f| f.len());
            if cache.1 + size > MAX_BYTES {
                *cache = (Cache::new(), 0);
            }
            cache.1 += size;
            cache.0.insert(text.to_string(), form.clone());
        }
        form
    }
}

/// Debug builds: `value`, read from the compact form of `text`, is what
/// [`parse`] reads from the text (once per file and type in a process).
#[cfg(debug_assertions)]
fn check_compact<T: DeserializeOwned + std::fmt::Debug>(label: &str, text: &str, value: &T) {
    static CHECKED: std::sync::Mutex<std::collections::BTreeSet<(String, &'static str)>> =
        std::sync::Mutex::new(std::collections::BTreeSet::new());
    let first =
        CHECKED.lock().map(|mut seen| seen.insert((label.to_string(), std::any::type_name::<T>()))).unwrap_or(true);
    if first {
        match parse::<T>(label, text) {
            Ok(from_text) => assert_eq!(
                format!("{from_text:?}"),
                format!("{value:?}"),
                "{label}: the compact form reads differently from the YAML as {}",
                std::any::type_name::<T>()
            ),
            Err(e) => {
                panic!("{label}: the compact form reads as {} but the YAML does not: {e}", std::any::type_name::<T>())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_read_plainly_first_reads_as_with_its_path_tracked() {
        #[derive(serde::Deserialize, Debug, PartialEq)]
        struct Move {
            unit: String,
            #[serde(default)]
            path: Vec<String>,
        }
        #[derive(serde::Deserialize, Debug, PartialEq)]
        struct Moves {
            moves: Vec<Move>,
        }
        let good: Value = from_str("moves: [{unit: a, path: ['0101']}, {unit: b}]").unwrap();
        let read: Moves = deserialize_at(&good).unwrap();
        assert_eq!(read, serde_path_to_error::deserialize::<_, Moves>(&good).unwrap());
        assert_eq!(read.moves[1], Move { unit: "b".into(), path: Vec::new() });
        for bad in ["moves: [{unit: a}, {unit: [b]}]", "moves: [{unit: a}, {path: ['0101']}]", "moves: 7", "{}"] {
            let value: Value = from_str(bad).unwrap();
            let (ours, theirs) = (
                deserialize_at::<Moves>(&value).unwrap_err(),
                serde_path_to_error::deserialize::<_, Moves>(&value).unwrap_err(),
            );
            assert_eq!(ours.path().to_string(), theirs.path().to_string(), "{bad}");
            assert_eq!(ours.inner().to_string(), theirs.inner().to_string(), "{bad}");
        }
        let value: Value = from_str("moves: [{unit: a}, {unit: [b]}]").unwrap();
        assert_eq!(deserialize_at::<Moves>(&value).unwrap_err().path().to_string(), "moves[1].unit");
    }

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
