//! Reading the compact form of an embedded YAML file
//! as serde_norway reads the text: the same type gets the same value.
//!
//! Each `deserialize_*` below follows serde_norway's (its `de.rs`) for a
//! document without tags, anchors or aliases: a plain scalar resolves to
//! null, a boolean, an integer, a float or a string when nothing asks for a
//! type; a field that asks for a string gets the scalar's text, whatever it
//! looks like; an empty plain scalar is an empty sequence or mapping where
//! one is asked for. Errors carry no location: a caller that gets one reads
//! the YAML text instead, which locates it ([`super::parse_embedded`]).
//!
//! The format: [`super::compact_write`].

use std::fmt;

use serde::de::{self, DeserializeOwned, DeserializeSeed, Visitor};

use super::compact_write::{MAP, MORE, PLAIN, SEQ, STRING};
use super::scalar::{parse_bool, parse_f64, parse_null, parse_signed_int, parse_unsigned_int, resolve_plain, Resolved};

/// Why the compact form did not give the type: the YAML text says where.
#[derive(Debug)]
pub struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl de::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

type Result<T, E = Error> = std::result::Result<T, E>;

/// Read `bytes`, one compact document, as `T`.
pub fn from_slice<T: DeserializeOwned>(bytes: &[u8]) -> Result<T> {
    // The whole form is UTF-8 (compact_write.rs): checked once here, each
    // scalar's text is then a slice of it.
    let text = std::str::from_utf8(bytes).map_err(|_| broken())?;
    let mut reader = Reader { bytes, text, pos: 0, remaining_depth: 128 };
    let value = T::deserialize(&mut reader)?;
    if reader.pos != bytes.len() {
        return Err(Error("trailing bytes after the document".into()));
    }
    Ok(value)
}

/// Read `bytes`, one compact document, through `seed`: a visitor that
/// needs no tree of it (check-game's walk over a chart).
pub fn from_slice_seed<'de, S: DeserializeSeed<'de>>(bytes: &'de [u8], seed: S) -> Result<S::Value> {
    let text = std::str::from_utf8(bytes).map_err(|_| broken())?;
    let mut reader = Reader { bytes, text, pos: 0, remaining_depth: 128 };
    let value = seed.deserialize(&mut reader)?;
    if reader.pos != bytes.len() {
        return Err(Error("trailing bytes after the document".into()));
    }
    Ok(value)
}

struct Reader<'de> {
    bytes: &'de [u8],
    /// `bytes` as text.
    text: &'de str,
    pos: usize,
    /// serde_norway's recursion limit.
    remaining_depth: u8,
}

/// The node at the reader, its head read.
enum Head<'de> {
    Scalar { plain: bool, text: &'de str },
    Seq { count: usize },
    Map { count: usize },
}

fn broken() -> Error {
    Error("the compact form is damaged".into())
}

impl<'de> Reader<'de> {
    fn len(&mut self) -> Result<usize> {
        let mut n: usize = 0;
        let mut shift = 0;
        loop {
            let byte = *self.bytes.get(self.pos).ok_or_else(broken)?;
            self.pos += 1;
            if shift >= usize::BITS {
                return Err(broken());
            }
            if byte >= 0x80 {
                return Err(broken());
            }
            n |= ((byte & !MORE) as usize) << shift;
            if byte & MORE == 0 {
                return Ok(n);
            }
            shift += 6;
        }
    }

    /// Read the head of the next node (a scalar whole).
    fn head(&mut self) -> Result<Head<'de>> {
        let kind = *self.bytes.get(self.pos).ok_or_else(broken)?;
        self.pos += 1;
        match kind {
            PLAIN | STRING => {
                let len = self.len()?;
                let end = self.pos.checked_add(len).ok_or_else(broken)?;
                let text = self.text.get(self.pos..end).ok_or_else(broken)?;
                self.pos = end;
                Ok(Head::Scalar { plain: kind == PLAIN, text })
            }
            SEQ | MAP => {
                let count = self.len()?;
                let _body = self.len()?;
                Ok(if kind == SEQ { Head::Seq { count } } else { Head::Map { count } })
            }
            _ => Err(broken()),
        }
    }

    /// The head of the next node, without reading it.
    fn peek(&mut self) -> Result<Head<'de>> {
        let at = self.pos;
        let head = self.head();
        self.pos = at;
        head
    }

    /// Step over the next node whole.
    fn skip(&mut self) -> Result<()> {
        let kind = *self.bytes.get(self.pos).ok_or_else(broken)?;
        self.pos += 1;
        let skip = match kind {
            PLAIN | STRING => self.len()?,
            SEQ | MAP => {
                self.len()?;
                self.len()?
            }
            _ => return Err(broken()),
        };
        self.pos = self.pos.checked_add(skip).filter(|&end| end <= self.bytes.len()).ok_or_else(broken)?;
        Ok(())
    }

    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        let previous = self.remaining_depth;
        self.remaining_depth = previous.checked_sub(1).ok_or_else(|| Error("recursion limit exceeded".into()))?;
        let result = f(self);
        self.remaining_depth = previous;
        result
    }

    fn visit_sequence<V: Visitor<'de>>(&mut self, visitor: V, count: usize) -> Result<V::Value> {
        let (value, left) = self.nested(|de| {
            let mut seq = SeqAccess { de, left: count };
            let value = visitor.visit_seq(&mut seq)?;
            Ok((value, seq.left))
        })?;
        // serde_norway refuses a sequence longer than its visitor reads.
        if left != 0 {
            return Err(de::Error::invalid_length(count, &"fewer elements"));
        }
        Ok(value)
    }

    fn visit_mapping<V: Visitor<'de>>(&mut self, visitor: V, count: usize) -> Result<V::Value> {
        let (value, left) = self.nested(|de| {
            let mut map = MapAccess { de, left: count };
            let value = visitor.visit_map(&mut map)?;
            Ok((value, map.left))
        })?;
        if left != 0 {
            return Err(de::Error::invalid_length(count, &"fewer entries"));
        }
        Ok(value)
    }
}

fn invalid(head: &Head<'_>, exp: &dyn de::Expected) -> Error {
    let unexpected = match head {
        Head::Scalar { text, .. } => de::Unexpected::Str(text),
        Head::Seq { .. } => de::Unexpected::Seq,
        Head::Map { .. } => de::Unexpected::Map,
    };
    de::Error::invalid_type(unexpected, exp)
}

/// An empty plain scalar, or null: what an absent value reads as.
fn is_null(plain: bool, text: &str) -> bool {
    plain && (text.is_empty() || parse_null(text))
}

impl<'de> de::Deserializer<'de> for &mut Reader<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.head()? {
            Head::Scalar { plain: true, text } => match resolve_plain(text) {
                Resolved::Null => visitor.visit_unit(),
                Resolved::Bool(b) => visitor.visit_bool(b),
                Resolved::U64(n) => visitor.visit_u64(n),
                Resolved::I64(n) => visitor.visit_i64(n),
                Resolved::U128(n) => visitor.visit_u128(n),
                Resolved::I128(n) => visitor.visit_i128(n),
                Resolved::F64(f) => visitor.visit_f64(f),
                Resolved::Str(s) => visitor.visit_borrowed_str(s),
            },
            Head::Scalar { plain: false, text } => visitor.visit_borrowed_str(text),
            Head::Seq { count } => self.visit_sequence(visitor, count),
            Head::Map { count } => self.visit_mapping(visitor, count),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.head()? {
            Head::Scalar { plain: true, text } if parse_bool(text).is_some() => {
                visitor.visit_bool(parse_bool(text).unwrap_or_default())
            }
            head => Err(invalid(&head, &visitor)),
        }
    }

    fn deserialize_i8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_i16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.head()? {
            Head::Scalar { plain: true, text } => match parse_signed_int(text, i64::from_str_radix) {
                Some(n) => visitor.visit_i64(n),
                None => Err(invalid(&Head::Scalar { plain: true, text }, &visitor)),
            },
            head => Err(invalid(&head, &visitor)),
        }
    }

    fn deserialize_i128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.head()? {
            Head::Scalar { plain: true, text } => match parse_signed_int(text, i128::from_str_radix) {
                Some(n) => visitor.visit_i128(n),
                None => Err(invalid(&Head::Scalar { plain: true, text }, &visitor)),
            },
            head => Err(invalid(&head, &visitor)),
        }
    }

    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_u64(visitor)
    }

    fn deserialize_u16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_u64(visitor)
    }

    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_u64(visitor)
    }

    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.head()? {
            Head::Scalar { plain: true, text } => match parse_unsigned_int(text, u64::from_str_radix) {
                Some(n) => visitor.visit_u64(n),
                None => Err(invalid(&Head::Scalar { plain: true, text }, &visitor)),
            },
            head => Err(invalid(&head, &visitor)),
        }
    }

    fn deserialize_u128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.head()? {
            Head::Scalar { plain: true, text } => match parse_unsigned_int(text, u128::from_str_radix) {
                Some(n) => visitor.visit_u128(n),
                None => Err(invalid(&Head::Scalar { plain: true, text }, &visitor)),
            },
            head => Err(invalid(&head, &visitor)),
        }
    }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_f64(visitor)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.head()? {
            Head::Scalar { plain: true, text } => match parse_f64(text) {
                Some(f) => visitor.visit_f64(f),
                None => Err(invalid(&Head::Scalar { plain: true, text }, &visitor)),
            },
            head => Err(invalid(&head, &visitor)),
        }
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.head()? {
            Head::Scalar { text, .. } => visitor.visit_borrowed_str(text),
            head => Err(invalid(&head, &visitor)),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value> {
        Err(Error("bytes are not supported".into()))
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value> {
        Err(Error("bytes are not supported".into()))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.peek()? {
            Head::Scalar { plain, text } if is_null(plain, text) => {
                self.skip()?;
                visitor.visit_none()
            }
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.head()? {
            Head::Scalar { plain, text } if is_null(plain, text) => visitor.visit_unit(),
            head => Err(invalid(&head, &visitor)),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value> {
        self.nested(|de| visitor.visit_newtype_struct(de))
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.head()? {
            Head::Seq { count } => self.visit_sequence(visitor, count),
            Head::Scalar { plain: true, text: "" } => visitor.visit_seq(SeqAccess { de: self, left: 0 }),
            head => Err(invalid(&head, &visitor)),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.head()? {
            Head::Map { count } => self.visit_mapping(visitor, count),
            Head::Scalar { plain: true, text: "" } => visitor.visit_map(MapAccess { de: self, left: 0 }),
            head => Err(invalid(&head, &visitor)),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_map(visitor)
    }

    /// Only unit variants, written as a scalar: serde_norway reads any other
    /// variant from a tag, which the compact form never holds.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.peek()? {
            Head::Scalar { .. } => visitor.visit_enum(UnitVariantAccess { de: self }),
            head => Err(invalid(&head, &"a YAML tag starting with '!'")),
        }
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.skip()?;
        visitor.visit_unit()
    }
}

struct SeqAccess<'a, 'de> {
    de: &'a mut Reader<'de>,
    left: usize,
}

impl<'de> de::SeqAccess<'de> for SeqAccess<'_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(&mut *self.de).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

struct MapAccess<'a, 'de> {
    de: &'a mut Reader<'de>,
    left: usize,
}

impl<'de> de::MapAccess<'de> for MapAccess<'_, 'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        seed.deserialize(&mut *self.de).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        seed.deserialize(&mut *self.de)
    }
}

struct UnitVariantAccess<'a, 'de> {
    de: &'a mut Reader<'de>,
}

impl<'de> de::EnumAccess<'de> for UnitVariantAccess<'_, 'de> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self)> {
        Ok((seed.deserialize(&mut *self.de)?, self))
    }
}

impl<'de> de::VariantAccess<'de> for UnitVariantAccess<'_, 'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        Ok(())
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, _seed: T) -> Result<T::Value> {
        Err(de::Error::invalid_type(de::Unexpected::UnitVariant, &"newtype variant"))
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, _visitor: V) -> Result<V::Value> {
        Err(de::Error::invalid_type(de::Unexpected::UnitVariant, &"tuple variant"))
    }

    fn struct_variant<V: Visitor<'de>>(self, _fields: &'static [&'static str], _visitor: V) -> Result<V::Value> {
        Err(de::Error::invalid_type(de::Unexpected::UnitVariant, &"struct variant"))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::fmt::Debug;

    use serde::Deserialize;

    use super::*;
    use crate::base::yaml::compact_write::compact;

    /// `text` read as `T` from its compact form gives what serde_norway
    /// gives from the text: the same value, or an error for both.
    fn same<T: DeserializeOwned + Debug>(text: &str) {
        let bytes = compact(text).unwrap_or_else(|| panic!("no compact form for {text:?}"));
        let ours = from_slice::<T>(&bytes).map(|v| format!("{v:?}")).map_err(|_| ());
        let theirs = serde_norway::from_str::<T>(text).map(|v| format!("{v:?}")).map_err(|_| ());
        assert_eq!(ours, theirs, "{} from {text:?}", std::any::type_name::<T>());
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Strings {
        a: String,
        #[serde(default)]
        b: Option<String>,
        #[serde(default)]
        c: Option<u32>,
    }

    #[test]
    fn a_string_field_gets_the_text_of_any_scalar() {
        for v in
            ["16", "0910", "0x1f", "true", "1.5", "-3", "~", "null", "'16'", "\"a\\tb\"", "|\n  two\n  lines\n", ""]
        {
            same::<Strings>(&format!("a: {v}\n"));
            same::<Strings>(&format!("a: x\nb: {v}\nc: 7\n"));
        }
        same::<Strings>("a: [1]\n");
        same::<Strings>("a: {b: 1}\n");
    }

    #[test]
    fn numbers_read_as_serde_norway_reads_them() {
        for v in
            ["16", "+16", "-16", "0x10", "0o17", "0b101", "010", "1_000", "1.0", "'16'", "~", "", "99999999999", "1e3"]
        {
            same::<BTreeMap<String, u32>>(&format!("n: {v}\n"));
            same::<BTreeMap<String, i32>>(&format!("n: {v}\n"));
            same::<BTreeMap<String, i64>>(&format!("n: {v}\n"));
            same::<BTreeMap<String, u8>>(&format!("n: {v}\n"));
            same::<BTreeMap<String, f64>>(&format!("n: {v}\n"));
            same::<BTreeMap<String, bool>>(&format!("n: {v}\n"));
            same::<BTreeMap<String, Option<i32>>>(&format!("n: {v}\n"));
            same::<BTreeMap<String, ()>>(&format!("n: {v}\n"));
        }
        same::<BTreeMap<u32, String>>("16: a\n17: b\n");
        same::<BTreeMap<String, (i32, i32)>>("odds: [3, 2]\n");
        same::<BTreeMap<String, (i32, i32)>>("odds: [3, 2, 1]\n");
        same::<BTreeMap<String, (i32, i32)>>("odds: [3]\n");
    }

    #[test]
    fn untyped_trees_read_the_same() {
        let text = "a: 1\nb: [x, 2, 2.5, ~, true, '3']\n16: {c: d}\ne:\nf: |\n  block\n";
        same::<crate::base::yaml::Value>(text);
        same::<serde_json::Value>("a: 1\nb: [x, 2, 2.5, ~, true, '3']\nc: {d: e}\n");
        same::<BTreeMap<String, crate::base::yaml::Value>>(
            text.trim_start_matches("a: 1\n").replace("16:", "g:").as_str(),
        );
    }

    #[test]
    fn words_and_numbers_resolve_as_serde_norway_resolves_them() {
        // resolve_plain's shortcut for a scalar that starts with a letter.
        for v in [
            "inf", "Inf", "nan", "NaN", "infinity", "Infinity", "e5", "E5", "x1", "yes", "no", "on", "True", "TRUE",
            "tRUE", "Null", "nULL", "NULL", ".inf", "-.inf", ".nan", "+.5", "-1e3", "_1", "0x1F", "-0x1f", "-0o7",
            "+0b1", "0xg", "1_0",
        ] {
            same::<crate::base::yaml::Value>(&format!("- {v}\n"));
            same::<BTreeMap<String, i64>>(&format!("n: {v}\n"));
            same::<BTreeMap<String, f64>>(&format!("n: {v}\n"));
        }
    }

    #[test]
    fn long_and_non_ascii_texts_read_the_same() {
        // Lengths of one, two and three bytes; the form is UTF-8 whole.
        for n in [1, 63, 64, 65, 4095, 4096, 5000] {
            let text = format!("a: '{}'\nb: [{}]\n", "é".repeat(n), vec!["1"; n.min(300)].join(", "));
            same::<BTreeMap<String, crate::base::yaml::Value>>(&text);
            let bytes = compact(&text).unwrap();
            assert!(std::str::from_utf8(&bytes).is_ok());
        }
    }

    #[derive(Debug, Deserialize)]
    #[serde(untagged)]
    #[allow(dead_code)]
    enum Untagged {
        Number(u32),
        Text(String),
        List(Vec<u32>),
        Pair { a: u32, b: String },
    }

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "kebab-case")]
    #[allow(dead_code)]
    enum Kind {
        ParadeOrder,
        Disrupted,
        Value(u32),
    }

    #[derive(Debug, Deserialize)]
    #[serde(tag = "kind", rename_all = "kebab-case")]
    #[allow(dead_code)]
    enum Tagged {
        Move { to: String },
        Hold,
    }

    #[test]
    fn enums_read_the_same() {
        for v in ["3", "'3'", "three", "[1, 2]", "{a: 1, b: x}", "{a: 1}", "~"] {
            same::<Vec<Untagged>>(&format!("- {v}\n"));
        }
        for v in ["parade-order", "disrupted", "other", "'disrupted'", "{value: 3}", "[1]", "~"] {
            same::<Vec<Kind>>(&format!("- {v}\n"));
        }
        same::<Vec<Tagged>>("- {kind: move, to: '1404'}\n- kind: hold\n");
        same::<Vec<Tagged>>("- {kind: jump}\n");
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Strict {
        #[serde(default)]
        list: Vec<String>,
        #[serde(default)]
        map: BTreeMap<String, u32>,
        #[serde(default)]
        inner: Option<Inner>,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Inner {
        x: u32,
        #[serde(flatten)]
        rest: BTreeMap<String, crate::base::yaml::Value>,
    }

    #[test]
    fn structures_read_the_same() {
        same::<Strict>("list:\nmap:\n");
        same::<Strict>("list: []\nmap: {}\ninner: {x: 1, y: [2], z: w}\n");
        same::<Strict>("list: [a, 1, '2']\nunknown: 1\n");
        same::<Strict>("list: a\n");
        same::<Strict>("inner: {y: 1}\n");
        same::<Strict>("inner:\n");
        same::<Strict>("[1, 2]\n");
        same::<Strict>("just text\n");
    }

    #[test]
    fn only_a_faithful_text_gets_a_compact_form() {
        assert!(compact("a: 1\n").is_some());
        // Anchors and aliases, tags, two documents, a repeated key, a
        // syntax error, no document, an integer beyond 64 bits.
        for text in [
            "a: &x 1\nb: *x\n",
            "a: !tag 1\n",
            "a: 1\n---\nb: 2\n",
            "a: 1\na: 2\n",
            "a: [1\n",
            "",
            "a: 99999999999999999999999\n",
        ] {
            assert!(compact(text).is_none(), "{text:?}");
        }
    }

    #[test]
    fn damaged_bytes_are_an_error_not_a_panic() {
        let bytes = compact("a: [1, 2, {b: c}]\nd: e\n").unwrap();
        for cut in 0..bytes.len() {
            assert!(from_slice::<crate::base::yaml::Value>(&bytes[..cut]).is_err());
        }
        let mut long = bytes.clone();
        long.push(0);
        assert!(from_slice::<crate::base::yaml::Value>(&long).is_err());
    }

    /// Every YAML file of the repository (modules, test modules, fixtures,
    /// demo orders: over a thousand) reads to the same untyped tree from
    /// its compact form as serde_norway reads from its text, so `check-game`
    /// may walk the tree of the compact form (charts/check.rs).
    #[test]
    fn every_yaml_file_of_the_repository_reads_the_same_tree() {
        fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let p = entry.unwrap().path();
                if p.is_dir() {
                    walk(&p, out)
                } else if p.extension().is_some_and(|e| e == "yaml") {
                    out.push(p)
                }
            }
        }
        let mut files = Vec::new();
        for d in ["tests", "games"] {
            walk(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(d), &mut files);
        }
        let mut compared = 0;
        for p in files {
            let Ok(text) = std::fs::read_to_string(&p) else { continue };
            let Some(bytes) = crate::base::yaml::compact_form(&text) else { continue };
            let ours = from_slice::<crate::base::yaml::Value>(&bytes).ok();
            let theirs = serde_norway::from_str::<crate::base::yaml::Value>(&text).ok();
            assert_eq!(ours, theirs, "{}", p.display());
            compared += 1;
        }
        assert!(compared > 900, "only {compared} files compared");
    }
}
