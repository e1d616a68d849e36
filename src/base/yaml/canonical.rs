//! The canonical YAML of a value, written directly: the bytes serde_norway
//! (through libyaml's emitter) writes, for the values adjutant writes
//! (maps, sequences, strings, integers, booleans), in a tenth of the time.
//! `verify` writes every journal entry again to compare it with its file,
//! and `resolve` writes the entries and state.yaml.
//!
//! Anything this writer is not sure to write as serde_norway does gives
//! `None`, and [`super::to_string`] asks serde_norway: a float, a tagged
//! enum, a string that needs double quotes or several lines, a key too
//! long to be a simple key. A string that could read as another type (`'1903'`,
//! `'true'`) or that plain style cannot hold (`'a: b'`) is single-quoted as
//! libyaml would (its `yaml_emitter_analyze_scalar` and
//! `yaml_emitter_select_scalar_style`, for the block context, unicode on
//! and no line width); one this file does not decide is written by
//! serde_norway alone and taken from there. Debug builds (every test)
//! compare the two writers on every value written.

use serde::ser::{self, Serialize};

/// The canonical YAML of `value`, or `None` where serde_norway must write it.
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> Option<String> {
    let node = value.serialize(NodeSerializer).ok()?;
    let mut out = String::with_capacity(1024);
    match &node {
        // A scalar alone is a document libyaml may end otherwise.
        Node::Scalar(_) => return None,
        Node::Seq(items) if items.is_empty() => out.push_str("[]\n"),
        Node::Map(entries) if entries.is_empty() => out.push_str("{}\n"),
        Node::Seq(items) => seq_items(items, 0, false, &mut out),
        Node::Map(entries) => map_entries(entries, 0, false, &mut out),
    }
    Some(out)
}

/// A value as it will be written: scalars already in their YAML form.
enum Node {
    Scalar(String),
    Seq(Vec<Node>),
    Map(Vec<(String, Node)>),
}

fn indent(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

/// A map's entries at `at` spaces; the first on the current line when
/// `inline` (after a sequence's `- `).
fn map_entries(entries: &[(String, Node)], at: usize, inline: bool, out: &mut String) {
    for (i, (key, value)) in entries.iter().enumerate() {
        if i > 0 || !inline {
            indent(out, at);
        }
        out.push_str(key);
        out.push(':');
        match value {
            Node::Scalar(s) => {
                out.push(' ');
                out.push_str(s);
                out.push('\n');
            }
            Node::Seq(items) if items.is_empty() => out.push_str(" []\n"),
            Node::Map(inner) if inner.is_empty() => out.push_str(" {}\n"),
            // A sequence in a mapping is not indented.
            Node::Seq(items) => {
                out.push('\n');
                seq_items(items, at, false, out);
            }
            Node::Map(inner) => {
                out.push('\n');
                map_entries(inner, at + 2, false, out);
            }
        }
    }
}

/// A sequence's items at `at` spaces; the first on the current line when
/// `inline`.
fn seq_items(items: &[Node], at: usize, inline: bool, out: &mut String) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 || !inline {
            indent(out, at);
        }
        out.push('-');
        match item {
            Node::Scalar(s) => {
                out.push(' ');
                out.push_str(s);
                out.push('\n');
            }
            Node::Seq(inner) if inner.is_empty() => out.push_str(" []\n"),
            Node::Map(inner) if inner.is_empty() => out.push_str(" {}\n"),
            Node::Seq(inner) => {
                out.push(' ');
                seq_items(inner, at + 2, true, out);
            }
            Node::Map(inner) => {
                out.push(' ');
                map_entries(inner, at + 2, true, out);
            }
        }
    }
}

/// A string scalar as serde_norway writes it in block context (a value,
/// or a simple key when `key`); `None` when this file does not decide.
fn string(s: &str, key: bool) -> Option<String> {
    let bytes = s.as_bytes();
    if bytes.is_empty() || (key && bytes.len() > 120) {
        return delegated(s, key);
    }
    // Characters libyaml writes as they are: printable, no line break (a
    // line break makes a scalar multi-line: literal style, or a complex key).
    let mut ascii = true;
    for &b in bytes {
        match b {
            b'\n' | b'\r' => return None,
            0x20..=0x7e => {}
            0x80.. => ascii = false,
            _ => return delegated(s, key),
        }
    }
    if !ascii {
        for c in s.chars() {
            match c {
                '\u{85}' | '\u{2028}' | '\u{2029}' => return None,
                '\u{80}'..='\u{9f}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}' => return delegated(s, key),
                _ => {}
            }
        }
    }
    // serde_norway single-quotes a string that would read back as another
    // type, and a number's digits with a leading zero.
    let first = bytes[0];
    let quoted = b"0123456789+-.~nNtTfF".contains(&first)
        && (super::scalar::digits_but_not_number(s)
            || !matches!(super::scalar::resolve_plain(s), super::scalar::Resolved::Str(_)));
    // libyaml's yaml_emitter_analyze_scalar, on bytes (every indicator is
    // ASCII, and no byte of a longer character is one): may it be plain in
    // block context?
    let mut plain = !(s.starts_with("---") || s.starts_with("...")) && first != b' ' && bytes[bytes.len() - 1] != b' ';
    let mut preceded_by_whitespace = true;
    for (i, &b) in bytes.iter().enumerate() {
        if !plain {
            break;
        }
        let followed_by_whitespace = bytes.get(i + 1).is_none_or(|&n| n == b' ');
        let indicator = if i == 0 {
            match b {
                b'#' | b',' | b'[' | b']' | b'{' | b'}' | b'&' | b'*' | b'!' | b'|' | b'>' | b'\'' | b'"' | b'%'
                | b'@' | b'`' => true,
                b'?' | b':' | b'-' => followed_by_whitespace,
                _ => false,
            }
        } else {
            match b {
                b':' => followed_by_whitespace,
                b'#' => preceded_by_whitespace,
                _ => false,
            }
        };
        plain = !indicator;
        preceded_by_whitespace = b == b' ';
    }
    if !quoted && plain {
        return Some(s.to_string());
    }
    // Single quotes: a quote doubled, nothing else escaped.
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for (i, part) in s.split('\'').enumerate() {
        if i > 0 {
            out.push_str("''");
        }
        out.push_str(part);
    }
    out.push('\'');
    Some(out)
}

/// A string scalar as serde_norway writes it alone, when that is one line
/// as it would be in a mapping (`None` otherwise).
fn delegated(s: &str, key: bool) -> Option<String> {
    if key && s.len() > 120 {
        return None;
    }
    let written = serde_norway::to_string(s).ok()?;
    // Written plain: libyaml's choice of style is the same at the root as
    // in a block mapping (the root may add a document end, `...`).
    if written.strip_suffix('\n').or_else(|| written.strip_suffix("\n...\n")) == Some(s) {
        return Some(s.to_string());
    }
    let line = written.strip_suffix('\n')?;
    if line.is_empty() || line.contains('\n') || line.starts_with("---") || line.starts_with("...") {
        return None;
    }
    line.starts_with('\'').then(|| line.to_string())
}

/// Not written here: serde_norway writes it.
#[derive(Debug)]
struct Unsure;

impl std::fmt::Display for Unsure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("left to serde_norway")
    }
}

impl std::error::Error for Unsure {}

impl ser::Error for Unsure {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        Unsure
    }
}

type Result<T> = std::result::Result<T, Unsure>;

struct NodeSerializer;

/// A map key as a scalar, with the key's own quoting rules.
struct KeySerializer;

struct SeqBuilder(Vec<Node>);

struct MapBuilder {
    entries: Vec<(String, Node)>,
    key: Option<String>,
}

fn int(v: impl std::fmt::Display) -> Result<Node> {
    Ok(Node::Scalar(v.to_string()))
}

impl ser::Serializer for NodeSerializer {
    type Ok = Node;
    type Error = Unsure;
    type SerializeSeq = SeqBuilder;
    type SerializeTuple = SeqBuilder;
    type SerializeTupleStruct = SeqBuilder;
    type SerializeTupleVariant = ser::Impossible<Node, Unsure>;
    type SerializeMap = MapBuilder;
    type SerializeStruct = MapBuilder;
    type SerializeStructVariant = ser::Impossible<Node, Unsure>;

    fn serialize_bool(self, v: bool) -> Result<Node> {
        Ok(Node::Scalar(if v { "true" } else { "false" }.to_string()))
    }
    fn serialize_i8(self, v: i8) -> Result<Node> {
        int(v)
    }
    fn serialize_i16(self, v: i16) -> Result<Node> {
        int(v)
    }
    fn serialize_i32(self, v: i32) -> Result<Node> {
        int(v)
    }
    fn serialize_i64(self, v: i64) -> Result<Node> {
        int(v)
    }
    fn serialize_u8(self, v: u8) -> Result<Node> {
        int(v)
    }
    fn serialize_u16(self, v: u16) -> Result<Node> {
        int(v)
    }
    fn serialize_u32(self, v: u32) -> Result<Node> {
        int(v)
    }
    fn serialize_u64(self, v: u64) -> Result<Node> {
        int(v)
    }
    fn serialize_f32(self, _: f32) -> Result<Node> {
        Err(Unsure)
    }
    fn serialize_f64(self, _: f64) -> Result<Node> {
        Err(Unsure)
    }
    fn serialize_char(self, _: char) -> Result<Node> {
        Err(Unsure)
    }
    fn serialize_str(self, v: &str) -> Result<Node> {
        string(v, false).map(Node::Scalar).ok_or(Unsure)
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<Node> {
        Err(Unsure)
    }
    fn serialize_none(self) -> Result<Node> {
        Ok(Node::Scalar("null".to_string()))
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Node> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Node> {
        Ok(Node::Scalar("null".to_string()))
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Node> {
        Ok(Node::Scalar("null".to_string()))
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<Node> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Result<Node> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<Node> {
        Err(Unsure)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<SeqBuilder> {
        Ok(SeqBuilder(Vec::with_capacity(len.unwrap_or(0))))
    }
    fn serialize_tuple(self, len: usize) -> Result<SeqBuilder> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<SeqBuilder> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Err(Unsure)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<MapBuilder> {
        Ok(MapBuilder { entries: Vec::with_capacity(len.unwrap_or(0)), key: None })
    }
    fn serialize_struct(self, _: &'static str, len: usize) -> Result<MapBuilder> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant> {
        Err(Unsure)
    }
}

impl ser::SerializeSeq for SeqBuilder {
    type Ok = Node;
    type Error = Unsure;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.0.push(value.serialize(NodeSerializer)?);
        Ok(())
    }
    fn end(self) -> Result<Node> {
        Ok(Node::Seq(self.0))
    }
}

impl ser::SerializeTuple for SeqBuilder {
    type Ok = Node;
    type Error = Unsure;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<Node> {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeTupleStruct for SeqBuilder {
    type Ok = Node;
    type Error = Unsure;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<Node> {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeMap for MapBuilder {
    type Ok = Node;
    type Error = Unsure;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        self.key = Some(key.serialize(KeySerializer)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        let key = self.key.take().ok_or(Unsure)?;
        self.entries.push((key, value.serialize(NodeSerializer)?));
        Ok(())
    }
    fn end(self) -> Result<Node> {
        Ok(Node::Map(self.entries))
    }
}

impl ser::SerializeStruct for MapBuilder {
    type Ok = Node;
    type Error = Unsure;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<()> {
        let key = string(key, true).ok_or(Unsure)?;
        self.entries.push((key, value.serialize(NodeSerializer)?));
        Ok(())
    }
    fn end(self) -> Result<Node> {
        Ok(Node::Map(self.entries))
    }
}

fn key_int(v: impl std::fmt::Display) -> Result<String> {
    Ok(v.to_string())
}

impl ser::Serializer for KeySerializer {
    type Ok = String;
    type Error = Unsure;
    type SerializeSeq = ser::Impossible<String, Unsure>;
    type SerializeTuple = ser::Impossible<String, Unsure>;
    type SerializeTupleStruct = ser::Impossible<String, Unsure>;
    type SerializeTupleVariant = ser::Impossible<String, Unsure>;
    type SerializeMap = ser::Impossible<String, Unsure>;
    type SerializeStruct = ser::Impossible<String, Unsure>;
    type SerializeStructVariant = ser::Impossible<String, Unsure>;

    fn serialize_bool(self, v: bool) -> Result<String> {
        Ok(if v { "true" } else { "false" }.to_string())
    }
    fn serialize_i8(self, v: i8) -> Result<String> {
        key_int(v)
    }
    fn serialize_i16(self, v: i16) -> Result<String> {
        key_int(v)
    }
    fn serialize_i32(self, v: i32) -> Result<String> {
        key_int(v)
    }
    fn serialize_i64(self, v: i64) -> Result<String> {
        key_int(v)
    }
    fn serialize_u8(self, v: u8) -> Result<String> {
        key_int(v)
    }
    fn serialize_u16(self, v: u16) -> Result<String> {
        key_int(v)
    }
    fn serialize_u32(self, v: u32) -> Result<String> {
        key_int(v)
    }
    fn serialize_u64(self, v: u64) -> Result<String> {
        key_int(v)
    }
    fn serialize_f32(self, _: f32) -> Result<String> {
        Err(Unsure)
    }
    fn serialize_f64(self, _: f64) -> Result<String> {
        Err(Unsure)
    }
    fn serialize_char(self, _: char) -> Result<String> {
        Err(Unsure)
    }
    fn serialize_str(self, v: &str) -> Result<String> {
        // A key starting with `!` may be read as a tag by serde_norway.
        if v.starts_with('!') {
            return Err(Unsure);
        }
        string(v, true).ok_or(Unsure)
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<String> {
        Err(Unsure)
    }
    fn serialize_none(self) -> Result<String> {
        Err(Unsure)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<String> {
        Err(Unsure)
    }
    fn serialize_unit(self) -> Result<String> {
        Err(Unsure)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<String> {
        Err(Unsure)
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Result<String> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Result<String> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<String> {
        Err(Unsure)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq> {
        Err(Unsure)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple> {
        Err(Unsure)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct> {
        Err(Unsure)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Err(Unsure)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap> {
        Err(Unsure)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct> {
        Err(Unsure)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant> {
        Err(Unsure)
    }
}

/// Read `text` as `T` when it is the canonical YAML of a `T` this file
/// writes ([`to_string`] gives `text` again, byte for byte): then it is
/// what serde_norway reads too. `None` for anything else (the caller asks
/// serde_norway, which also locates any error). The journal's entries and
/// state.yaml are read so by every command.
pub fn from_str<T: serde::de::DeserializeOwned + Serialize>(text: &str) -> Option<T> {
    let mut lines: Vec<&str> = text.split('\n').collect();
    // The text ends with a line break: the last piece is empty.
    if lines.pop() != Some("") {
        return None;
    }
    let mut reader = Reader { lines, at: 0 };
    let tree = reader.block(0)?;
    if reader.at != reader.lines.len() {
        return None;
    }
    let value = T::deserialize(tree).ok()?;
    if to_string(&value)? != text {
        return None;
    }
    // Debug builds (every test): serde_norway reads the text as a value it
    // writes as the same text.
    #[cfg(debug_assertions)]
    if let Ok(theirs) = serde_norway::from_str::<T>(text) {
        assert_eq!(
            serde_norway::to_string(&theirs).ok().as_deref(),
            Some(text),
            "the canonical reader and serde_norway disagree"
        );
    }
    Some(value)
}

/// A scalar as written: plain, or single-quoted (its text unquoted).
#[derive(Debug)]
enum Scalar<'a> {
    Plain(&'a str),
    Quoted(String),
}

/// The tree of a canonical text.
#[derive(Debug)]
enum Tree<'a> {
    Scalar(Scalar<'a>),
    Seq(Vec<Tree<'a>>),
    Map(Vec<(Scalar<'a>, Tree<'a>)>),
}

struct Reader<'a> {
    lines: Vec<&'a str>,
    at: usize,
}

fn spaces(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// A scalar that is the whole of `text`.
fn scalar(text: &str) -> Option<Scalar<'_>> {
    if let Some(inner) = text.strip_prefix('\'') {
        let inner = inner.strip_suffix('\'')?;
        // Inside, a quote is written twice; a lone one would end the scalar.
        let mut unquoted = String::with_capacity(inner.len());
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            if c == '\'' && chars.next() != Some('\'') {
                return None;
            }
            unquoted.push(c);
        }
        return Some(Scalar::Quoted(unquoted));
    }
    if text.is_empty() || text.starts_with(['"', '[', '{', '&', '*', '!', '|', '>', '%', '@', '`', '#', ' ']) {
        return None;
    }
    Some(Scalar::Plain(text))
}

/// A value written on the rest of a line: a scalar, `[]` or `{}`.
fn inline(text: &str) -> Option<Tree<'_>> {
    match text {
        "[]" => Some(Tree::Seq(Vec::new())),
        "{}" => Some(Tree::Map(Vec::new())),
        _ => scalar(text).map(Tree::Scalar),
    }
}

/// `key: rest` or `key:`: the key and what follows its colon.
fn key_of(text: &str) -> Option<(Scalar<'_>, &str)> {
    if text.starts_with('\'') {
        // The quoted key ends at the first quote not doubled.
        let bytes = text.as_bytes();
        let mut i = 1;
        loop {
            match bytes.get(i)? {
                b'\'' if bytes.get(i + 1) == Some(&b'\'') => i += 2,
                b'\'' => break,
                _ => i += 1,
            }
        }
        let key = scalar(&text[..=i])?;
        return Some((key, text[i + 1..].strip_prefix(':')?));
    }
    let end = match text.find(": ") {
        Some(i) => i,
        None => text.strip_suffix(':').map(str::len)?,
    };
    Some((scalar(&text[..end])?, &text[end + 1..]))
}

impl<'a> Reader<'a> {
    /// The block at `indent` spaces starting at the current line: a map or
    /// a sequence.
    fn block(&mut self, indent: usize) -> Option<Tree<'a>> {
        let line = *self.lines.get(self.at)?;
        if spaces(line) != indent {
            return None;
        }
        let body = &line[indent..];
        if body == "-" || body.starts_with("- ") {
            self.seq(indent, None)
        } else {
            self.map(indent, None)
        }
    }

    /// A sequence whose items are at `indent`; its first item's text is
    /// `first` when it began on a line already read.
    fn seq(&mut self, indent: usize, mut first: Option<&'a str>) -> Option<Tree<'a>> {
        let mut items = Vec::new();
        loop {
            let rest = match first.take() {
                Some(rest) => rest,
                None => {
                    let Some(&line) = self.lines.get(self.at) else { break };
                    if spaces(line) != indent || !line[indent..].starts_with("- ") {
                        break;
                    }
                    self.at += 1;
                    &line[indent + 2..]
                }
            };
            items.push(self.item(indent + 2, rest)?);
        }
        Some(Tree::Seq(items))
    }

    /// A map whose keys are at `indent`; its first entry's text is `first`
    /// when it began on a line already read.
    fn map(&mut self, indent: usize, mut first: Option<&'a str>) -> Option<Tree<'a>> {
        let mut entries = Vec::new();
        loop {
            let text = match first.take() {
                Some(text) => text,
                None => {
                    let Some(&line) = self.lines.get(self.at) else { break };
                    if spaces(line) != indent || line[indent..].starts_with("- ") {
                        break;
                    }
                    self.at += 1;
                    &line[indent..]
                }
            };
            let (key, rest) = key_of(text)?;
            let value = match rest.strip_prefix(' ') {
                Some(value) => inline(value)?,
                None if rest.is_empty() => {
                    // A nested block: a sequence at this indent, or a map deeper.
                    let line = *self.lines.get(self.at)?;
                    if spaces(line) == indent && line[indent..].starts_with("- ") {
                        self.seq(indent, None)?
                    } else {
                        self.block(indent + 2)?
                    }
                }
                None => return None,
            };
            entries.push((key, value));
        }
        Some(Tree::Map(entries))
    }

    /// A sequence item whose text after `- ` is `rest`, its content at `indent`.
    fn item(&mut self, indent: usize, rest: &'a str) -> Option<Tree<'a>> {
        if let Some(first) = rest.strip_prefix("- ") {
            return self.seq(indent, Some(first));
        }
        if let Some(tree) = inline(rest).filter(|_| key_of(rest).is_none()) {
            return Some(tree);
        }
        self.map(indent, Some(rest))
    }
}

/// Why a tree does not read as the type asked: the caller asks serde_norway.
#[derive(Debug)]
struct NotRead;

impl std::fmt::Display for NotRead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("left to serde_norway")
    }
}

impl std::error::Error for NotRead {}

impl serde::de::Error for NotRead {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        NotRead
    }
}

/// A plain scalar read as serde_norway reads one it wrote: null, a
/// boolean, an integer, or else a string (a float is left to it).
fn plain<'de, V: serde::de::Visitor<'de>>(text: &str, visitor: V) -> std::result::Result<V::Value, NotRead> {
    use super::scalar::Resolved;
    match super::scalar::resolve_plain(text) {
        Resolved::Null => visitor.visit_unit(),
        Resolved::Bool(b) => visitor.visit_bool(b),
        Resolved::U64(n) => visitor.visit_u64(n),
        Resolved::I64(n) => visitor.visit_i64(n),
        Resolved::Str(s) => visitor.visit_str(s),
        Resolved::U128(_) | Resolved::I128(_) | Resolved::F64(_) => Err(NotRead),
    }
}

impl<'de, 'a> serde::de::Deserializer<'de> for Tree<'a> {
    type Error = NotRead;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, visitor: V) -> std::result::Result<V::Value, NotRead> {
        match self {
            Tree::Scalar(Scalar::Plain(text)) => plain(text, visitor),
            Tree::Scalar(Scalar::Quoted(text)) => visitor.visit_string(text),
            Tree::Seq(items) => visitor.visit_seq(serde::de::value::SeqDeserializer::new(items.into_iter())),
            Tree::Map(entries) => visitor.visit_map(serde::de::value::MapDeserializer::new(
                entries.into_iter().map(|(k, v)| (Tree::Scalar(k), v)),
            )),
        }
    }

    fn deserialize_str<V: serde::de::Visitor<'de>>(self, visitor: V) -> std::result::Result<V::Value, NotRead> {
        match self {
            Tree::Scalar(Scalar::Plain(text)) => visitor.visit_str(text),
            other => other.deserialize_any(visitor),
        }
    }

    fn deserialize_string<V: serde::de::Visitor<'de>>(self, visitor: V) -> std::result::Result<V::Value, NotRead> {
        self.deserialize_str(visitor)
    }

    fn deserialize_option<V: serde::de::Visitor<'de>>(self, visitor: V) -> std::result::Result<V::Value, NotRead> {
        match self {
            Tree::Scalar(Scalar::Plain(text)) if super::scalar::parse_null(text) => visitor.visit_none(),
            other => visitor.visit_some(other),
        }
    }

    fn deserialize_enum<V: serde::de::Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> std::result::Result<V::Value, NotRead> {
        use serde::de::IntoDeserializer;
        match self {
            Tree::Scalar(Scalar::Plain(text)) => visitor.visit_enum(text.into_deserializer()),
            Tree::Scalar(Scalar::Quoted(text)) => visitor.visit_enum(text.into_deserializer()),
            _ => Err(NotRead),
        }
    }

    fn deserialize_newtype_struct<V: serde::de::Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> std::result::Result<V::Value, NotRead> {
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char bytes byte_buf unit unit_struct seq tuple
        tuple_struct map struct identifier ignored_any
    }
}

impl<'de, 'a> serde::de::IntoDeserializer<'de, NotRead> for Tree<'a> {
    type Deserializer = Tree<'a>;

    fn into_deserializer(self) -> Tree<'a> {
        self
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    /// Both writers agree on `value`; this one writes it itself when `own`.
    fn same<T: Serialize>(value: &T, own: bool) {
        let theirs = serde_norway::to_string(value).unwrap();
        match to_string(value) {
            Some(ours) => assert_eq!(ours, theirs),
            None => assert!(!own, "left to serde_norway:\n{theirs}"),
        }
    }

    const STRINGS: &[&str] = &[
        "plain",
        "two words",
        "1903",
        "0123",
        "-1",
        "+1",
        "1.5",
        "1e5",
        "12e4",
        "0x1f",
        "0b101",
        "0o17",
        ".inf",
        "-.inf",
        ".nan",
        "inf",
        "NaN",
        "true",
        "True",
        "FALSE",
        "yes",
        "No",
        "on",
        "off",
        "y",
        "N",
        "null",
        "~",
        "",
        " leading",
        "trailing ",
        "a: b",
        "a:b",
        "a :b",
        "ends with:",
        ":start",
        "? question",
        "- dash",
        "-dash",
        "#hash",
        "a #hash",
        "a#hash",
        "'quoted'",
        "it's",
        "\"double\"",
        "[list]",
        "a, b",
        "{map}",
        "&anchor",
        "*alias",
        "!tag",
        "|pipe",
        ">fold",
        "%percent",
        "@at",
        "`tick",
        "---",
        "...",
        "--- x",
        "a → b",
        "é",
        "tab\there",
        "line\nbreak",
        "bell\u{7}",
        "nel\u{85}",
        "ls\u{2028}",
        "bom\u{feff}",
        "946d9101cf5ca9998cd79b6c53a74098f9d7af3e5259b772d524375104721c3e",
        "14a179d05a091009ca62bebf43854d76f0d04e68b27fc90f623c1c912c6362e2",
        "1234567890123456789012345678901234567890",
        "12e45a",
        "2-bn-fraser",
        "16-allies-movement",
        "d10",
        "mortar mortar-battery at 1904: scatter and drift",
        "\"-\": no effect on the attacker",
        "a  b",
        "x'y'z",
    ];

    #[test]
    fn strings_are_written_as_serde_norway_writes_them() {
        for s in STRINGS {
            same(&s, false);
            same(&vec![*s], false);
            let mut map = BTreeMap::new();
            map.insert("k", *s);
            same(&map, false);
            let mut keyed = BTreeMap::new();
            keyed.insert(*s, 1);
            same(&keyed, false);
        }
        for s in ["plain", "1903", "a: b", "it's", "a → b", "2-bn-fraser", "946d9101cf5ca9998cd79b6c53a74098", "-1"] {
            same(&BTreeMap::from([("k", s)]), true);
        }
    }

    #[test]
    fn canonical_texts_read_back_as_serde_norway_reads_them() {
        let value = serde_json::json!({
            "empty_map": {},
            "empty_list": [],
            "list": [1, "two", true, null, -3, [], {}, ["a", ["b", "c"]], {"x": 1, "y": [2, {"z": {}}]}],
            "map": {"inner": {"deeper": ["x", {"a": "b", "c": []}]}, "n": -4},
            "strings": ["1903", "a: b", "it's", "'", "''", "a → b", "true", "~", "-", "x:", "ends with:", "2-bn-fraser"],
            "lists": [[1, 2], [[3]], [{"k": [4]}]],
            "a: b": {"it's": 1},
        });
        let text = to_string(&value).unwrap();
        let read: serde_json::Value = from_str(&text).unwrap();
        assert_eq!(read, value);
        let theirs: serde_json::Value = serde_norway::from_str(&text).unwrap();
        assert_eq!(read, theirs);
        // Not canonical: left to serde_norway.
        for other in ["a: 1\n", "a:  b\n", "a: \"b\"\n", "a: 1.5\n", "a:\n  - 1\n", "a: 1", "- a\n-  b\n"] {
            let ours: Option<serde_json::Value> = from_str(other);
            assert!(ours.is_none() || other == "a: 1\n", "{other:?}: {ours:?}");
        }
        assert_eq!(from_str::<serde_json::Value>("a: 1\n"), Some(serde_json::json!({"a": 1})));
    }

    #[test]
    fn nesting_is_written_as_serde_norway_writes_it() {
        let value = serde_json::json!({
            "empty_map": {},
            "empty_list": [],
            "list": [1, "two", true, null, [], {}, ["a", ["b", "c"]], {"x": 1, "y": [2, {"z": {}}]}],
            "map": {"inner": {"deeper": ["x", {"a": "b", "c": []}]}, "n": -4},
            "lists": [[1, 2], [[3]], [{"k": [4]}]],
        });
        same(&value, true);
        same(&vec![value.clone(), value], true);
        same(&Vec::<u32>::new(), true);
        same(&BTreeMap::<String, u32>::new(), true);
        same(&7u32, false);
        same(&serde_json::json!({"f": 1.5}), false);
    }
}
