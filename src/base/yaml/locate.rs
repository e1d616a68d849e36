//! `yaml_path`: where, in a YAML document's text, the value at a field path
//! was written, so that error messages can point at the exact entry.
//!
//! A field path is what our validators (and `serde_path_to_error`) produce:
//! dot-separated mapping keys with optional 0-based `[N]` sequence indices,
//! e.g. `moves[3].path[1]`, `moves[2].to`, `a.b[0][1].c`. An empty path (or
//! `.`, `serde_path_to_error`'s spelling of it) is the document root.
//!
//! The text is read with a real YAML event parser (`yaml-rust2`), so block
//! and flow styles, quoted keys, comments, anchors, aliases and multi-line
//! scalars are all placed exactly. What a location points at:
//!
//! - a mapping key component: the key token as written (`moves[2].to` is
//!   where `to` is written, so the player sees the field name);
//! - a sequence index component: the start of that item's node (for block
//!   sequences the node after `- `, for flow sequences the element itself;
//!   an anchor or tag before it is skipped: the location is its content, a
//!   block mapping's at its first key);
//! - the root: the start of the root node;
//! - a path that goes deeper than the document (missing key, index out of
//!   range, indexing a scalar, going through an alias): the deepest
//!   component that exists. An alias is not followed: the alias token itself
//!   is the deepest location.
//!
//! One known imprecision: an empty block sequence item (`-` with nothing
//! after it, an implicit null) is marked by the parser where the next token
//! starts, so it is located there.
//!
//! Only the first document of a stream is searched, but the whole stream
//! must parse ([`Index::until_key`], for a header field, reads only as far
//! as it: [`read_turn`]'s). Nothing is recursive: the walk is a loop over parser events,
//! and the parser itself caps flow nesting, so hostile text cannot overflow
//! the stack.

use crate::base::yaml::Value;

use yaml_rust2::parser::{Event, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// One component of a field path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Component {
    /// A mapping key.
    Key(String),
    /// A 0-based sequence index.
    Index(usize),
    /// A malformed or unrepresentable component (`[x]`, `[99999999999999999999999]`,
    /// an unclosed `[`): it exists nowhere.
    Never,
}

/// Splits a field path into its components. Empty key segments (the root
/// `.`, a leading dot, `a..b`) are skipped.
fn parse_path(path: &str) -> Vec<Component> {
    let mut components = Vec::new();
    let mut key = String::new();
    let mut chars = path.chars();
    while let Some(c) = chars.next() {
        match c {
            '.' => {
                if !key.is_empty() {
                    components.push(Component::Key(std::mem::take(&mut key)));
                }
            }
            '[' => {
                if !key.is_empty() {
                    components.push(Component::Key(std::mem::take(&mut key)));
                }
                let mut inside = String::new();
                let mut closed = false;
                for c in chars.by_ref() {
                    if c == ']' {
                        closed = true;
                        break;
                    }
                    inside.push(c);
                }
                let digits = inside.trim();
                let index = if closed && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
                    digits.parse::<usize>().ok()
                } else {
                    None
                };
                match index {
                    Some(n) => components.push(Component::Index(n)),
                    None => {
                        // Nothing past a malformed index can exist either.
                        components.push(Component::Never);
                        return components;
                    }
                }
            }
            _ => key.push(c),
        }
    }
    if !key.is_empty() {
        components.push(Component::Key(key));
    }
    components
}

/// Where a node was written: its 1-based (line, column).
pub type Position = (usize, usize);

/// A YAML document read once, so that any number of field paths can be
/// located in it (see the module documentation for what a location points
/// at): every node's position, each mapping's scalar keys (the first of
/// duplicates) with where the key is written, each sequence's items, and
/// every scalar's text as written (without its quotes). Building it is one
/// pass of the event parser; each look-up walks the path's components
/// through the nodes. The nodes are kept in one flat list, so that neither
/// building nor dropping an index recurses, however deep the document.
#[derive(Debug, Clone, Default)]
pub struct Index {
    nodes: Vec<Node>,
}

#[derive(Debug, Clone)]
struct Node {
    at: Position,
    kind: Kind,
}

#[derive(Debug, Clone)]
enum Kind {
    /// A scalar: its text, and whether it was written plain (unquoted, not
    /// a block scalar).
    Scalar {
        text: String,
        plain: bool,
    },
    /// An alias: not followed.
    Alias,
    Sequence(Vec<usize>),
    /// Scalar keys, each with where it is written and its value's node: in
    /// the order written while the mapping is read, then, once it is
    /// closed, sorted by key with the first of duplicates kept, for a
    /// binary search. (A list, not a map: a mapping of two keys, an orders
    /// file's move, takes a tenth of a map's memory, issue 11.)
    Mapping(Vec<(String, Position, usize)>),
}

/// A collection being read: its node, and for a mapping the key read and
/// awaiting its value (`Some(None)` for a key that is not a scalar).
struct Open {
    node: usize,
    key: Option<(Option<String>, Position)>,
}

/// A scalar of the document as written: `16`, `0x10`, `"16"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written<'a> {
    pub text: &'a str,
    /// Written without quotes (and not as a block scalar): a plain scalar,
    /// whose text YAML may read as a number, a boolean or null.
    pub plain: bool,
    pub at: Position,
}

impl Index {
    /// Read `text`'s first document; `None` if the text does not parse
    /// (the whole stream must) or holds no document.
    pub fn new(text: &str) -> Option<Index> {
        Index::read(text, None)
    }

    /// The index of `text`'s first document as far as the root mapping's
    /// key `key` and its value, the text after it not read (and so not
    /// required to parse); the whole document's, as [`Index::new`] reads
    /// it, if the root has no such key. For a header field an orders file
    /// writes first (`turn`), read before anything else is known to need a
    /// place: a file of many moves is not read whole for it (issue 11).
    pub fn until_key(text: &str, key: &str) -> Option<Index> {
        Index::read(text, Some(key))
    }

    fn read(text: &str, stop: Option<&str>) -> Option<Index> {
        let mut parser = Parser::new_from_str(text);
        let mut next = || parser.next_token().ok();
        if next()?.0 != Event::StreamStart {
            return None;
        }
        // An empty stream (StreamEnd here) has no document, so no root either.
        if next()?.0 != Event::DocumentStart {
            return None;
        }
        let mut index = Index { nodes: Vec::new() };
        let mut open: Vec<Open> = Vec::new();
        loop {
            let (event, mark) = parser.next_token().ok()?;
            // The node this event completes, if it completes one.
            let done = match event {
                Event::Scalar(text, style, ..) => {
                    let plain = style == TScalarStyle::Plain;
                    index.push(position(&mark), Kind::Scalar { text, plain })
                }
                Event::Alias(_) => index.push(position(&mark), Kind::Alias),
                Event::SequenceStart(..) => {
                    let node = index.push(position(&mark), Kind::Sequence(Vec::new()));
                    open.push(Open { node, key: None });
                    continue;
                }
                Event::MappingStart(..) => {
                    // A block mapping's start event is marked at its first
                    // key's `:` (the parser only knows it is a mapping from
                    // there), so a mapping starts at whichever comes first:
                    // that mark or its first key's.
                    let (_, key_mark) = parser.peek().ok()?;
                    let at = if key_mark.index() < mark.index() { position(key_mark) } else { position(&mark) };
                    let node = index.push(at, Kind::Mapping(Vec::new()));
                    open.push(Open { node, key: None });
                    continue;
                }
                Event::SequenceEnd | Event::MappingEnd => index.closed(open.pop()?.node),
                // Anything else inside a document: not what a document holds.
                _ => return None,
            };
            // A completed node belongs to the collection around it (an
            // item, a key or a value); the root belongs to nothing.
            match open.last_mut() {
                Some(parent) => index.attach(parent, done, &mark),
                None => break,
            }
            // The root mapping's `stop` key has its value (the entry just
            // made): read no further.
            if let (Some(key), [root]) = (stop, open.as_slice()) {
                if root.key.is_none()
                    && matches!(&index.nodes[root.node].kind, Kind::Mapping(keys) if keys.last().is_some_and(|k| k.0 == key))
                {
                    index.closed(root.node);
                    return Some(index);
                }
            }
        }
        // The answer stands only if the whole text parses.
        loop {
            if parser.next_token().ok()?.0 == Event::StreamEnd {
                return Some(index);
            }
        }
    }

    /// `node`, a collection whose last item has been read: a mapping's keys
    /// sorted, the first of duplicates kept. Returns `node`.
    fn closed(&mut self, node: usize) -> usize {
        if let Kind::Mapping(keys) = &mut self.nodes[node].kind {
            // A stable sort: of equal keys, the first written comes first.
            keys.sort_by(|a, b| a.0.cmp(&b.0));
            keys.dedup_by(|later, first| later.0 == first.0);
        }
        node
    }

    fn push(&mut self, at: Position, kind: Kind) -> usize {
        self.nodes.push(Node { at, kind });
        self.nodes.len() - 1
    }

    /// `node` (just completed) as the next part of the collection `parent`;
    /// `mark` is where a scalar key was written.
    fn attach(&mut self, parent: &mut Open, node: usize, mark: &Marker) {
        let key = match (&self.nodes[node].kind, &parent.key) {
            (_, Some(_)) => None,
            (Kind::Scalar { text, .. }, None) => Some(Some(text.clone())),
            (_, None) => Some(None),
        };
        match (&mut self.nodes[parent.node].kind, key) {
            (Kind::Sequence(items), _) => items.push(node),
            // A key: its value comes next.
            (Kind::Mapping(_), Some(key)) => parent.key = Some((key, position(mark))),
            (Kind::Mapping(keys), None) => {
                if let Some((Some(key), at)) = parent.key.take() {
                    keys.push((key, at, node));
                }
            }
            _ => {}
        }
    }

    /// The 1-based (line, column) of the node at `path`, or of the deepest
    /// ancestor of it that exists; `None` if not even the first component
    /// exists.
    pub fn locate(&self, path: &str) -> Option<Position> {
        let components = parse_path(path);
        let (found, matched) = self.walk(&components)?;
        if matched == 0 && !components.is_empty() {
            return None;
        }
        Some(found.1)
    }

    /// The scalar at `path` as written, if the whole path exists and ends
    /// at a scalar.
    pub fn written(&self, path: &str) -> Option<Written<'_>> {
        let components = parse_path(path);
        let ((node, at), matched) = self.walk(&components)?;
        if matched != components.len() {
            return None;
        }
        match &self.nodes[node].kind {
            Kind::Scalar { text, plain } => Some(Written { text, plain: *plain, at }),
            _ => None,
        }
    }

    /// The deepest node the components lead to (its id and where it is
    /// located), and how many components matched.
    fn walk(&self, components: &[Component]) -> Option<((usize, Position), usize)> {
        let root = self.nodes.first()?;
        let mut node = 0usize;
        let mut best = root.at;
        let mut matched = 0usize;
        for component in components {
            let next = match (component, &self.nodes[node].kind) {
                (Component::Key(key), Kind::Mapping(keys)) => {
                    keys.binary_search_by(|k| k.0.as_str().cmp(key)).ok().map(|i| (keys[i].2, keys[i].1))
                }
                (Component::Index(i), Kind::Sequence(items)) => items.get(*i).map(|&item| (item, self.nodes[item].at)),
                _ => None,
            };
            let Some((n, at)) = next else { break };
            node = n;
            best = at;
            matched += 1;
        }
        Some(((node, best), matched))
    }
}

/// A parser mark as a 1-based (line, column). yaml-rust2's lines are 1-based
/// and its columns 0-based, both counted in characters.
fn position(mark: &Marker) -> Position {
    (mark.line(), mark.col().saturating_add(1))
}

/// The 1-based (line, column) of the node at `path` in `text`, or of the
/// deepest ancestor of it that exists; None if the text does not parse or
/// not even the first component exists. To locate many paths in one text,
/// build its [`Index`] once.
pub fn locate(text: &str, path: &str) -> Option<Position> {
    Index::new(text)?.locate(path)
}

/// Where the fields of one text are, for its problems: the text's
/// [`Index`] built at the first look-up and kept for the rest, so that a
/// file of many problems is read once, not once per problem (issue 11:
/// a file of 16,000 refused moves took six minutes when each problem read
/// it again), and a file without problems not at all.
#[derive(Debug)]
pub struct Places<'t> {
    text: &'t str,
    index: std::cell::OnceCell<Option<Index>>,
}

impl<'t> Places<'t> {
    pub fn new(text: &'t str) -> Places<'t> {
        Places { text, index: std::cell::OnceCell::new() }
    }

    /// The text's index; `None` if it does not parse.
    pub fn index(&self) -> Option<&Index> {
        self.index.get_or_init(|| Index::new(self.text)).as_ref()
    }

    /// [`Index::locate`] in the text.
    pub fn locate(&self, path: &str) -> Option<Position> {
        self.index()?.locate(path)
    }
}

/// The most digits a turn number has.
const TURN_DIGITS: usize = 9;

/// The turn an orders file names, as written: decimal digits (`16`, or
/// `"16"` quoted), never another spelling YAML reads as a number (`0x10`,
/// `+16`, `016`, `1_6`, `16.0`, `0o20`), nor a number past nine digits
/// (whatever a system's turns are, every one reads it so). `text` is the
/// file's, read only as far as its turn ([`Index::until_key`]) for how
/// the turn is written and where; `value` is the turn as the file's YAML
/// reads it, used alone when the YAML crate that places fields cannot
/// read that far. The error
/// says where, and why: `why` is the system's rule in words, e.g. "a turn
/// is written in decimal digits, e.g. `turn: 16`".
pub fn read_turn(text: &str, value: &Value, why: &str) -> Result<u32, (Option<Position>, String)> {
    let index = Index::until_key(text, "turn");
    let index = index.as_ref();
    let at = index.and_then(|i| i.locate("turn"));
    let written = match (index.and_then(|i| i.written("turn")), value) {
        (Some(w), _) => w.text.to_string(),
        (None, Value::String(s)) => s.clone(),
        (None, Value::Number(n)) if index.is_none() => n.to_string(),
        (None, Value::Null) => return Err((at, format!("turn is empty; {why}"))),
        (None, _) => return Err((at, format!("turn is a single number; {why}"))),
    };
    let decimal = !written.is_empty()
        && written.len() <= TURN_DIGITS
        && written.bytes().all(|b| b.is_ascii_digit())
        && (written == "0" || !written.starts_with('0'));
    match written.parse::<u32>() {
        Ok(turn) if decimal => Ok(turn),
        _ => Err((at, format!("'{}' is not a turn number: {why}", crate::base::error::echo(&written)))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_locate_as_locate_does_and_read_the_text_once() {
        let text = "game: g\nturn: 16\nmoves:\n  - {unit: a, to: \"1911\"}\n  - {unit: b, to: \"1912\"}\n";
        let places = Places::new(text);
        for path in ["game", "turn", "moves[0].unit", "moves[1].to", "moves[7]", "nothing"] {
            assert_eq!(places.locate(path), locate(text, path), "{path}");
        }
        assert_eq!(places.locate("moves[1].to"), Some((5, 15)));
        // One index, kept: the same one for every look-up.
        let first = places.index().map(|i| i as *const Index);
        assert!(first.is_some() && places.index().map(|i| i as *const Index) == first);
        assert_eq!(Places::new("a: [").locate("a"), None, "a text that does not parse places nothing");
    }

    #[test]
    fn a_turn_is_read_as_written_in_decimal_digits() {
        let read = |text: &str| {
            let value: Value = crate::base::yaml::from_str(text).unwrap();
            read_turn(text, value.get("turn").unwrap(), "WHY")
        };
        assert_eq!(read("turn: 16\n"), Ok(16));
        assert_eq!(read("turn: \"16\"\n"), Ok(16));
        assert_eq!(read("turn: 0\n"), Ok(0));
        for bad in ["0x10", "+16", "016", "1_6", "16.0", "0o20", "4294967297", "9999999999", "sixteen"] {
            let got = read(&format!("turn: {bad}\n"));
            assert_eq!(got, Err((Some((1, 1)), format!("'{bad}' is not a turn number: WHY"))), "{bad}");
        }
        assert_eq!(read("turn: \"\"\n"), Err((Some((1, 1)), "'' is not a turn number: WHY".into())));
    }

    #[test]
    fn an_index_until_a_key_places_it_as_the_whole_index_does_without_reading_on() {
        let text = "game: g\nturn: 0x10\nstep: s\nmoves:\n  - {unit: a, to: \"1911\"}\n";
        let (whole, head) = (Index::new(text).unwrap(), Index::until_key(text, "turn").unwrap());
        assert_eq!(head.written("turn"), whole.written("turn"));
        assert_eq!(head.written("turn").map(|w| (w.text, w.plain, w.at)), Some(("0x10", true, (2, 1))));
        assert_eq!(head.locate("turn"), Some((2, 1)));
        // Nothing after the key's value is read: not the moves, and not
        // the text that would fail the whole index.
        assert_eq!((head.locate("moves"), whole.locate("moves")), (None, Some((4, 1))));
        let broken = "game: g\nturn: 16\nmoves: [\n";
        assert!(Index::new(broken).is_none());
        let head = Index::until_key(broken, "turn").unwrap();
        assert_eq!(head.written("turn").map(|w| w.text), Some("16"));
        // A key the root lacks, or one only deeper down: the whole index.
        for text in ["game: g\nmoves:\n  - {turn: 3}\n", "game: g\n"] {
            let head = Index::until_key(text, "turn").unwrap();
            assert_eq!(
                (head.locate("moves[0].turn"), head.locate("game")),
                (locate(text, "moves[0].turn"), Some((1, 1)))
            );
        }
        assert!(Index::until_key("game: g\nmoves: [\n", "turn").is_none());
    }

    const ORDERS: &str = r#"game: savannah-demo
turn: 16
step: allies-movement
side: french
moves:
  - {unit: red-foot, path: ["0506", "0507"]}
  - unit: red-gards
    path: ["0604"]
  - stack: [a, b]
    to: "0412"    # comment
"#;

    /// The 1-based column of the first occurrence of `needle` on 1-based
    /// line `line` of `text`, in characters.
    fn col_of(text: &str, line: usize, needle: &str) -> usize {
        let l = text.lines().nth(line - 1).unwrap();
        let byte = l.find(needle).unwrap();
        l[..byte].chars().count() + 1
    }

    #[test]
    fn parses_paths() {
        use Component::*;
        assert_eq!(parse_path(""), vec![]);
        assert_eq!(parse_path("."), vec![]);
        assert_eq!(parse_path("side"), vec![Key("side".into())]);
        assert_eq!(parse_path("moves[3].path[1]"), vec![Key("moves".into()), Index(3), Key("path".into()), Index(1)]);
        assert_eq!(
            parse_path("a.b[0][1].c"),
            vec![Key("a".into()), Key("b".into()), Index(0), Index(1), Key("c".into())]
        );
        assert_eq!(parse_path("[2]"), vec![Index(2)]);
        assert_eq!(parse_path("a[x].b"), vec![Key("a".into()), Never]);
        assert_eq!(parse_path("a[1"), vec![Key("a".into()), Never]);
        assert_eq!(parse_path("a[99999999999999999999999999]"), vec![Key("a".into()), Never]);
    }

    #[test]
    fn orders_example() {
        assert_eq!(locate(ORDERS, "moves[1].unit"), Some((7, 5)));
        assert_eq!(locate(ORDERS, "moves[0].path[1]"), Some((6, col_of(ORDERS, 6, "\"0507\""))));
        assert_eq!(locate(ORDERS, "moves[2].stack[1]"), Some((9, col_of(ORDERS, 9, "b]"))));
        assert_eq!(locate(ORDERS, "moves[2]"), Some((9, 5)));
        assert_eq!(locate(ORDERS, "moves[9]"), Some((5, 1)));
    }

    #[test]
    fn orders_example_as_given_with_a_leading_line() {
        // The brief's line numbers count the opening ```yaml fence line.
        let text = format!("# orders\n{ORDERS}");
        assert_eq!(locate(&text, "moves[1].unit"), Some((8, 5)));
        assert_eq!(locate(&text, "moves[0].path[1]"), Some((7, col_of(&text, 7, "\"0507\""))));
        assert_eq!(locate(&text, "moves[2].stack[1]"), Some((10, col_of(&text, 10, "b]"))));
        assert_eq!(locate(&text, "moves[2]"), Some((10, 5)));
        assert_eq!(locate(&text, "moves[9]"), Some((6, 1)));
    }

    #[test]
    fn top_level_keys_and_root() {
        assert_eq!(locate(ORDERS, "game"), Some((1, 1)));
        assert_eq!(locate(ORDERS, "side"), Some((4, 1)));
        assert_eq!(locate(ORDERS, "moves"), Some((5, 1)));
        assert_eq!(locate(ORDERS, ""), Some((1, 1)));
        assert_eq!(locate(ORDERS, "."), Some((1, 1)));
        let text = "# header\n\n---\n  a: 1\n";
        assert_eq!(locate(text, ""), Some((4, 3)));
        assert_eq!(locate(text, "a"), Some((4, 3)));
    }

    #[test]
    fn flow_inside_block() {
        assert_eq!(locate(ORDERS, "moves[0]"), Some((6, 5)));
        assert_eq!(locate(ORDERS, "moves[0].unit"), Some((6, col_of(ORDERS, 6, "unit"))));
        assert_eq!(locate(ORDERS, "moves[0].path"), Some((6, col_of(ORDERS, 6, "path"))));
        assert_eq!(locate(ORDERS, "moves[0].path[0]"), Some((6, col_of(ORDERS, 6, "\"0506\""))));
        assert_eq!(locate(ORDERS, "moves[1].path[0]"), Some((8, col_of(ORDERS, 8, "\"0604\""))));
        assert_eq!(locate(ORDERS, "moves[2].to"), Some((10, 5)));
    }

    #[test]
    fn pure_flow_document() {
        let text = "{unit: a, path: [\"0506\", \"0507\"], more: {x: [1, [2, 3]]}}";
        assert_eq!(locate(text, ""), Some((1, 1)));
        assert_eq!(locate(text, "unit"), Some((1, 2)));
        assert_eq!(locate(text, "path[1]"), Some((1, col_of(text, 1, "\"0507\""))));
        assert_eq!(locate(text, "more.x[1][0]"), Some((1, col_of(text, 1, "2,"))));
        assert_eq!(locate(text, "more.x[1][1]"), Some((1, col_of(text, 1, "3]"))));
        assert_eq!(locate(text, "more.x[1][2]"), Some((1, col_of(text, 1, "[2"))));
        // A flow collection spread over lines.
        let text = "path: [\n  \"0506\",\n  \"0507\"\n  ]\n";
        assert_eq!(locate(text, "path[1]"), Some((3, 3)));
    }

    #[test]
    fn nested_block() {
        let text = "a:\n  b:\n    - - x\n      - y\n    - - z\n      - c: 1\n        d: 2\n";
        assert_eq!(locate(text, "a.b[0][1]"), Some((4, 9)));
        assert_eq!(locate(text, "a.b[1][0]"), Some((5, 9)));
        assert_eq!(locate(text, "a.b[1][1].d"), Some((7, 9)));
        assert_eq!(locate(text, "a.b[1][1].c"), Some((6, 9)));
        // Sequences not indented under their key.
        let text = "moves:\n- unit: a\n  to: b\n- unit: c\n  to: d\n";
        assert_eq!(locate(text, "moves[1].to"), Some((5, 3)));
        assert_eq!(locate(text, "moves[1]"), Some((4, 3)));
    }

    #[test]
    fn missing_components_give_the_deepest_ancestor() {
        assert_eq!(locate(ORDERS, "moves[1].nope"), Some((7, 5)));
        assert_eq!(locate(ORDERS, "moves[1].path[3]"), Some((8, 5)));
        assert_eq!(locate(ORDERS, "moves[2].to.deeper[0]"), Some((10, 5)));
        assert_eq!(locate(ORDERS, "side[0]"), Some((4, 1)));
        assert_eq!(locate(ORDERS, "moves.unit"), Some((5, 1)));
        assert_eq!(locate(ORDERS, "moves[x].unit"), Some((5, 1)));
        assert_eq!(locate(ORDERS, "nope"), None);
        assert_eq!(locate(ORDERS, "nope.side"), None);
        assert_eq!(locate(ORDERS, "[0]"), None);
        assert_eq!(locate("- a\n- b\n", "[1]"), Some((2, 3)));
        assert_eq!(locate("- a\n- b\n", "[2]"), None);
        assert_eq!(locate("- a\n- b\n", "a"), None);
    }

    #[test]
    fn indices_out_of_range() {
        assert_eq!(locate(ORDERS, "moves[3]"), Some((5, 1)));
        assert_eq!(locate(ORDERS, "moves[0].path[2]"), Some((6, col_of(ORDERS, 6, "path"))));
        let huge = format!("moves[{}]", usize::MAX);
        assert_eq!(locate(ORDERS, &huge), Some((5, 1)));
        assert_eq!(locate(ORDERS, "moves[184467440737095516150000].unit"), Some((5, 1)));
    }

    #[test]
    fn quoted_keys_and_scalars() {
        let text = "\"side\": french\n'turn': 3\nmoves:\n  - \"unit\": 'a b'\n    \"to\": \"0412\"\n";
        assert_eq!(locate(text, "side"), Some((1, 1)));
        assert_eq!(locate(text, "turn"), Some((2, 1)));
        assert_eq!(locate(text, "moves[0].to"), Some((5, 5)));
        assert_eq!(locate(text, "moves[0]"), Some((4, 5)));
        let text = "{\"a.b\": 1, 'c': [\"x\", 'y']}";
        assert_eq!(locate(text, "c[1]"), Some((1, col_of(text, 1, "'y'"))));
    }

    #[test]
    fn comments_between_items() {
        let text =
            "# orders\nmoves:   # the moves\n  # first\n  - a   # one\n\n  # second\n  - b\n  # third\n  - {x: 1}\n";
        assert_eq!(locate(text, "moves[0]"), Some((4, 5)));
        assert_eq!(locate(text, "moves[1]"), Some((7, 5)));
        assert_eq!(locate(text, "moves[2].x"), Some((9, 6)));
        assert_eq!(locate(text, "moves"), Some((2, 1)));
    }

    #[test]
    fn anchors_and_aliases() {
        let text = "base: &p [\"0506\", \"0507\"]\nmoves:\n  - path: *p\n  - &m {unit: a}\n  - *m\n";
        assert_eq!(locate(text, "base[1]"), Some((1, col_of(text, 1, "\"0507\""))));
        assert_eq!(locate(text, "moves[0].path"), Some((3, 5)));
        // Through an alias: the alias token is the deepest location.
        assert_eq!(locate(text, "moves[2]"), Some((5, 5)));
        assert_eq!(locate(text, "moves[2].unit"), Some((5, 5)));
        assert_eq!(locate(text, "moves[1].unit"), Some((4, col_of(text, 4, "unit"))));
        // An anchored item is located at its content, past the anchor.
        assert_eq!(locate(text, "moves[1]"), Some((4, col_of(text, 4, "{"))));
        let text = "- &s foo\n- !!str bar\n- &n\n  unit: b\n";
        assert_eq!(locate(text, "[0]"), Some((1, 6)));
        assert_eq!(locate(text, "[1]"), Some((2, 9)));
        assert_eq!(locate(text, "[2]"), Some((4, 3)));
    }

    #[test]
    fn multi_line_scalars() {
        let text = "notes: |\n  line one\n  line two\nplain: a\n  b\n  c\nmoves:\n  - >-\n    folded\n    text\n  - \"quoted\n    over lines\"\n  - last\nside: french\n";
        assert_eq!(locate(text, "plain"), Some((4, 1)));
        assert_eq!(locate(text, "moves[1]"), Some((11, 5)));
        assert_eq!(locate(text, "moves[2]"), Some((13, 5)));
        assert_eq!(locate(text, "side"), Some((14, 1)));
    }

    #[test]
    fn tabs_and_unicode_count_characters() {
        // Tabs are allowed as separators inside flow collections.
        let text = "path: [a,\tb, \"\u{e9}t\u{e9}\",\tc]\n";
        assert_eq!(locate(text, "path[1]"), Some((1, 11)));
        assert_eq!(locate(text, "path[3]"), Some((1, 21)));
        let text = "\u{e9}t\u{e9}: [\u{fc}, x]\n";
        assert_eq!(locate(text, "\u{e9}t\u{e9}[1]"), Some((1, 10)));
        // CRLF line ends are one line break.
        let text = "a: 1\r\nb:\r\n  - x\r\n  - y\r\n";
        assert_eq!(locate(text, "b[1]"), Some((4, 5)));
    }

    #[test]
    fn empty_document() {
        assert_eq!(locate("", ""), None);
        assert_eq!(locate("", "side"), None);
        assert_eq!(locate("# only a comment\n", "side"), None);
        assert_eq!(locate("---\n", "side"), None);
        assert!(locate("---\n", "").is_some());
    }

    #[test]
    fn invalid_yaml_is_none() {
        assert_eq!(locate("a: [1, 2\n", "a"), None);
        assert_eq!(locate("a: b: c\n", "a"), None);
        assert_eq!(locate("a:\n  - x\n - y\n", "a"), None);
        assert_eq!(locate("{a: 1", ""), None);
        assert_eq!(locate("a: \"unterminated\n", "a"), None);
        // An error after the located node still makes the text invalid.
        assert_eq!(locate("side: french\nmoves: [\n", "side"), None);
        assert_eq!(locate("a: *nowhere\n", "a"), None);
    }

    #[test]
    fn first_document_of_a_stream() {
        let text = "---\na: 1\n---\na: 2\n";
        assert_eq!(locate(text, "a"), Some((2, 1)));
    }

    #[test]
    fn first_of_duplicate_keys() {
        assert_eq!(locate("a: 1\na: 2\n", "a"), Some((1, 1)));
    }

    /// A tiny deterministic generator, so the tests need no extra crate.
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            self.0 >> 33
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    #[test]
    fn every_generated_item_is_found_where_it_was_written() {
        let mut rng = Lcg(0x5eed);
        for round in 0..40 {
            let n = 1 + rng.below(30) as usize;
            let mut text = String::from("game: generated\nside: french\nmoves:\n");
            // (line, column of the item's node, line and column of its `unit` key)
            let mut expected = Vec::new();
            for i in 0..n {
                if rng.below(3) == 0 {
                    text.push_str("  # a comment\n");
                }
                if rng.below(4) == 0 {
                    text.push('\n');
                }
                let line = text.lines().count() + 1;
                match rng.below(4) {
                    0 => {
                        text.push_str(&format!("  - {{unit: u{i}, path: [\"0{i}\", \"1{i}\"]}}\n"));
                        expected.push((line, 5, (line, 6)));
                    }
                    1 => {
                        text.push_str(&format!("  - unit: \"u{i}\"   # unit {i}\n    path: [\"0{i}\"]\n"));
                        expected.push((line, 5, (line, 5)));
                    }
                    2 => {
                        text.push_str(&format!("  - path:\n      - \"0{i}\"\n    unit: u{i}\n"));
                        expected.push((line, 5, (line + 2, 5)));
                    }
                    _ => {
                        text.push_str(&format!("  -\n    unit: >\n      u{i}\n      folded\n    to: x{i}\n"));
                        expected.push((line + 1, 5, (line + 1, 5)));
                    }
                }
            }
            for (i, &(line, col, unit)) in expected.iter().enumerate() {
                assert_eq!(
                    locate(&text, &format!("moves[{i}]")),
                    Some((line, col)),
                    "round {round}, item {i}:\n{text}"
                );
                assert_eq!(locate(&text, &format!("moves[{i}].unit")), Some(unit), "round {round}, item {i}:\n{text}");
            }
            assert_eq!(locate(&text, &format!("moves[{n}]")), Some((3, 1)));
        }
    }

    #[test]
    fn hostile_input_never_panics() {
        let deep_flow = "[".repeat(100_000);
        assert_eq!(locate(&deep_flow, "[0][0]"), None);
        let deep_flow_closed = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert_eq!(locate(&deep_flow_closed, "[0][0][0]"), Some((1, 4)));
        let deep_block: String = (0..3000).map(|d| format!("{}- \n", " ".repeat(d * 2))).collect();
        let _ = locate(&deep_block, &"[0]".repeat(5000));
        let deep_map: String = (0..3000).map(|d| format!("{}k:\n", " ".repeat(d))).collect();
        let deep_path = vec!["k"; 4000].join(".");
        assert!(locate(&deep_map, &deep_path).is_some());
        let dashes = "- ".repeat(20_000);
        let _ = locate(&dashes, &"[0]".repeat(30_000));
        for text in ["\u{feff}a: 1", "\0", "\t", "- \t- x", "? [a]\n: b", "!!map {a: 1}", "&a *a", "%YAML 1.2\n---\na"]
        {
            let _ = locate(text, "a[0].b");
            let _ = locate(text, "");
        }
        for path in ["", ".", "..", "[", "]", "[]", "[-1]", "a[", "a]]", "[[0]]", "\u{1F600}", "a[0x10]"] {
            let _ = locate(ORDERS, path);
        }

        // Random mutations of a real orders file.
        let base: Vec<char> = ORDERS.chars().collect();
        let alphabet: Vec<char> = "-:[]{},#&*!|>'\"? \t\n\r%@`\\abc0\u{e9}".chars().collect();
        let paths = ["", "moves[0].path[1]", "moves[2].stack[1]", "side", "moves[1].unit"];
        let mut rng = Lcg(42);
        for _ in 0..3000 {
            let mut text = base.clone();
            for _ in 0..1 + rng.below(6) {
                let at = rng.below(text.len() as u64 + 1) as usize;
                match rng.below(3) {
                    0 if at < text.len() => {
                        text.remove(at);
                    }
                    1 if at < text.len() => text[at] = alphabet[rng.below(alphabet.len() as u64) as usize],
                    _ => text.insert(at, alphabet[rng.below(alphabet.len() as u64) as usize]),
                }
            }
            let text: String = text.into_iter().collect();
            for path in paths {
                if let Some((line, col)) = locate(&text, path) {
                    assert!(line >= 1 && col >= 1);
                }
            }
        }
    }
}
