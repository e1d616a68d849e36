//! Writing the compact form of a YAML document: its tree as the YAML parser
//! sees it, with every scalar's text and whether it was plain, in a byte
//! string that [`super::compact`] reads without scanning any YAML.
//!
//! ```text
//! node := PLAIN len text           a plain scalar (its text before resolution)
//!       | STRING len text          a quoted or block scalar
//!       | SEQ count len node*      `len` bytes of `count` nodes
//!       | MAP count len (node node)*
//! ```
//!
//! Numbers are little-endian groups of 6 bits, one a byte, 0x40 set on
//! every byte but the last (so that every byte of the form but a scalar's
//! text is ASCII, and the whole form is UTF-8 when the texts are: the
//! reader checks that once, not scalar by scalar). The build script (build.rs) includes this file to
//! write the compact form of every embedded module file; it must stay
//! self-contained (it names only `super::scalar`, which build.rs includes
//! beside it).
//!
//! A text gets a compact form only when it is one document without tags,
//! anchors or aliases, and its tree, each plain scalar resolved as
//! serde_norway resolves it, is exactly the `Value` serde_norway reads from
//! the text (same entries, same order, no repeated key). yaml-rust2 gives
//! the tree, since only its events tell a plain scalar from a quoted one.

use super::scalar::{self, Resolved};

pub const PLAIN: u8 = 1;
pub const STRING: u8 = 2;
pub const SEQ: u8 = 3;
pub const MAP: u8 = 4;

/// A document's tree.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Plain(String),
    Str(String),
    Seq(Vec<Node>),
    Map(Vec<(Node, Node)>),
}

/// The compact form of `text`, or `None` when it has no faithful one.
pub fn compact(text: &str) -> Option<Vec<u8>> {
    let theirs: serde_norway::Value = serde_norway::from_str(text).ok()?;
    let node = tree(text)?;
    let ours = value(&node)?;
    if !same(&ours, &theirs) {
        return None;
    }
    let mut bytes = Vec::new();
    encode(&node, &mut bytes);
    Some(bytes)
}

/// Bit 6 of a byte of a number: more bytes follow.
pub const MORE: u8 = 0x40;

fn put_len(out: &mut Vec<u8>, mut n: usize) {
    loop {
        let byte = (n & 0x3f) as u8;
        n >>= 6;
        if n == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | MORE);
    }
}

pub fn encode(node: &Node, out: &mut Vec<u8>) {
    match node {
        Node::Plain(s) | Node::Str(s) => {
            out.push(if matches!(node, Node::Plain(_)) { PLAIN } else { STRING });
            put_len(out, s.len());
            out.extend_from_slice(s.as_bytes());
        }
        Node::Seq(items) => {
            let mut body = Vec::new();
            for item in items {
                encode(item, &mut body);
            }
            out.push(SEQ);
            put_len(out, items.len());
            put_len(out, body.len());
            out.extend_from_slice(&body);
        }
        Node::Map(entries) => {
            let mut body = Vec::new();
            for (k, v) in entries {
                encode(k, &mut body);
                encode(v, &mut body);
            }
            out.push(MAP);
            put_len(out, entries.len());
            put_len(out, body.len());
            out.extend_from_slice(&body);
        }
    }
}

/// The one document of `text` as a tree, from yaml-rust2's events; `None`
/// for anything else (no document, two, a tag, an anchor, an alias, a
/// parse error).
pub fn tree(text: &str) -> Option<Node> {
    use yaml_rust2::parser::{Event, Parser};
    use yaml_rust2::scanner::TScalarStyle;
    let mut parser = Parser::new_from_str(text);
    let mut stack: Vec<(Node, Option<Node>)> = Vec::new();
    let mut root = None;
    loop {
        let (event, _) = parser.next_token().ok()?;
        let done = match event {
            Event::StreamStart | Event::DocumentStart | Event::DocumentEnd | Event::Nothing => None,
            Event::StreamEnd => break,
            Event::Alias(_) => return None,
            Event::Scalar(value, style, anchor, tag) => {
                if anchor != 0 || tag.is_some() {
                    return None;
                }
                Some(if style == TScalarStyle::Plain { Node::Plain(value) } else { Node::Str(value) })
            }
            Event::SequenceStart(anchor, tag) => {
                if anchor != 0 || tag.is_some() {
                    return None;
                }
                stack.push((Node::Seq(Vec::new()), None));
                None
            }
            Event::MappingStart(anchor, tag) => {
                if anchor != 0 || tag.is_some() {
                    return None;
                }
                stack.push((Node::Map(Vec::new()), None));
                None
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let (node, pending_key) = stack.pop()?;
                if pending_key.is_some() {
                    return None;
                }
                Some(node)
            }
        };
        let Some(node) = done else { continue };
        match stack.last_mut() {
            None if root.is_none() => root = Some(node),
            // A second document.
            None => return None,
            Some((Node::Seq(items), _)) => items.push(node),
            Some((Node::Map(entries), key)) => match key.take() {
                None => *key = Some(node),
                Some(k) => entries.push((k, node)),
            },
            Some(_) => return None,
        }
    }
    root
}

/// The tree as serde_norway's `Value`, each plain scalar resolved as
/// serde_norway resolves it; `None` for an integer beyond 64 bits or a
/// repeated key, which serde_norway's `Value` refuses.
pub fn value(node: &Node) -> Option<serde_norway::Value> {
    use serde_norway::Value;
    Some(match node {
        Node::Str(s) => Value::String(s.clone()),
        Node::Plain(s) => match scalar::resolve_plain(s) {
            Resolved::Null => Value::Null,
            Resolved::Bool(b) => Value::Bool(b),
            Resolved::U64(n) => Value::Number(n.into()),
            Resolved::I64(n) => Value::Number(n.into()),
            Resolved::F64(f) => Value::Number(f.into()),
            Resolved::Str(s) => Value::String(s.to_string()),
            Resolved::U128(_) | Resolved::I128(_) => return None,
        },
        Node::Seq(items) => Value::Sequence(items.iter().map(value).collect::<Option<_>>()?),
        Node::Map(entries) => {
            let mut map = serde_norway::Mapping::new();
            for (k, v) in entries {
                if map.insert(value(k)?, value(v)?).is_some() {
                    return None;
                }
            }
            Value::Mapping(map)
        }
    })
}

/// The two trees are the same, entries in the same order, each number of
/// the same kind and value (a float to the bit, NaN equal to NaN): what
/// comparing their YAML texts would say, without writing them (which cost
/// more than reading the file when a module folder's file is made compact
/// at run time). A tag is never the same as ours, which have none.
pub fn same(a: &serde_norway::Value, b: &serde_norway::Value) -> bool {
    use serde_norway::Value;
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => {
            if x.is_f64() || y.is_f64() {
                let (true, true, Some(x), Some(y)) = (x.is_f64(), y.is_f64(), x.as_f64(), y.as_f64()) else {
                    return false;
                };
                x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
            } else {
                x.as_u64() == y.as_u64() && x.as_i64() == y.as_i64()
            }
        }
        (Value::Sequence(x), Value::Sequence(y)) => x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b)),
        (Value::Mapping(x), Value::Mapping(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|((ka, va), (kb, vb))| same(ka, kb) && same(va, vb))
        }
        _ => false,
    }
}
