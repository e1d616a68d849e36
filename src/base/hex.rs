//! Hex geometry for Great Battles of the American Revolution (GBoAR) maps:
//! hex ids, the six directions, hexsides, distance and line of sight.
//!
//! Everything here is exact integer arithmetic: no floating point anywhere,
//! so every machine computes the same adjacency, range and line of sight.
//! Nothing here panics; parsing returns typed errors.
//!
//! # Hex ids
//!
//! GBoAR maps print a four-digit id in every hex, `CCRR`: two digits of
//! column, two of row (1404 is column 14, row 04; Savannah 1779 names hexes
//! such as 1404, 1303, 1014, 3123, 3822, 4214). Columns are numbered left to
//! right, rows top to bottom (row numbers grow southwards). [`HexId`] holds a
//! column and a row in `0..=99`; it is `Copy`, `Ord` (column first, then row,
//! which is the numeric order of the printed id) and parses from and prints
//! as exactly four ASCII digits.
//!
//! # Layout: which columns sit half a hex down
//!
//! The hexes are flat-topped and stand in vertical columns (a column runs
//! north-south). Neighbouring columns are offset by half a hex, so every
//! other column sits half a hex lower. Which parity is the lower one is a
//! property of the printed map, so it is a value, [`Layout`], that the map
//! data carries and that every geometric function takes. For GBoAR maps the
//! even-numbered columns are the lower ones ([`Layout::EvenColumnsDown`],
//! also available as [`Layout::GBOAR`]):
//!
//! ```text
//!   Layout::EvenColumnsDown             Layout::OddColumnsDown
//!   (columns 14, 16 sit lower)          (columns 13, 15 sit lower)
//!
//!   ____        ____                          ____        ____
//!  /    \      /    \                        /    \      /    \
//! / 1303 \____/ 1503 \____              ____/ 1403 \____/ 1603 \
//! \      /    \      /    \            /    \      /    \      /
//!  \____/ 1403 \____/ 1603 \          / 1303 \____/ 1503 \____/
//!  /    \      /    \      /          \      /    \      /    \
//! / 1304 \____/ 1504 \____/            \____/ 1404 \____/ 1604 \
//! \      /    \      /    \            /    \      /    \      /
//!  \____/ 1404 \____/ 1604 \          / 1304 \____/ 1504 \____/
//!  /    \      /    \      /          \      /    \      /    \
//! / 1305 \____/ 1505 \____/            \____/ 1405 \____/ 1605 \
//! \      /    \      /    \            /    \      /    \      /
//!  \____/ 1405 \____/ 1605 \          / 1305 \____/ 1505 \____/
//!       \      /    \      /          \      /    \      /
//!        \____/      \____/            \____/      \____/
//! ```
//!
//! With `EvenColumnsDown` the six neighbours of 1404 (an even, lower
//! column) are N 1403, NE 1504, SE 1505, S 1405, SW 1305, NW 1304; those of
//! 1503 (an odd, higher column) are N 1502, NE 1602, SE 1603, S 1504,
//! SW 1403, NW 1402. If a map proves to be drawn the other way, its map data
//! says `OddColumnsDown` and nothing else changes.
//!
//! # Coordinates
//!
//! Internally a hex is placed on "doubled" coordinates: `x` is the column and
//! `y = 2 * row + 1` if the column sits down, `2 * row` otherwise, so the six
//! neighbours are at `(0, -2)` N, `(+1, -1)` NE, `(+1, +1)` SE, `(0, +2)` S,
//! `(-1, +1)` SW and `(-1, -1)` NW. [`Cube`] coordinates (`q + r + s = 0`)
//! are derived from those and give the distance.
//!
//! For line of sight the hexes are drawn on an integer plane: the centre of
//! hex `(x, y)` is the point `(3x, y)` and its six corners are the centre
//! plus `(-1,-1)`, `(1,-1)`, `(2,0)`, `(1,1)`, `(-1,1)` and `(-2,0)`. This is
//! the regular hex grid squeezed by an affine map (horizontal unit half a
//! hex radius, vertical unit `sqrt(3)/2` of it); an affine map keeps straight
//! lines straight and keeps "passes through", "touches a corner" and "runs
//! along a side" exactly as they were, so every line-of-sight question is
//! answered with integer cross products and never with a tolerance.
//!
//! # Line of sight (series rules 11.41 to 11.44)
//!
//! LOS is traced from the centre of the firing hex to the centre of the
//! target hex (11.41). [`line_between`] lists, in order, what that segment
//! passes through between the two hexes: the hexes whose interior it crosses
//! ([`LineStep::Hex`]) and the hexsides it runs exactly along
//! ([`LineStep::Spine`], the hex spines of 11.44). Where the line only
//! touches a corner of a hex, that hex is not listed. [`entering_hexside`]
//! tells which side(s) of the target the line enters through (the up-slope
//! test of 11.43) and [`hexsides_crossed`] lists every hexside crossed on
//! the way (slope hexsides between the two units, 11.43 A and B).

use std::fmt;
use std::str::FromStr;

/// The largest column or row number a four-digit `CCRR` id can express.
pub const MAX_INDEX: u8 = 99;

// ---------------------------------------------------------------------------
// HexId
// ---------------------------------------------------------------------------

/// A hex, identified as printed on the map: column and row, each `0..=99`.
///
/// The fields are private so that every `HexId` prints as exactly four
/// digits and parses back to itself; build one with [`HexId::new`],
/// [`HexId::from_number`] or by parsing `"1404"`. Ordering is column first,
/// then row, i.e. the numeric order of the printed id, so `HexId` works as a
/// `BTreeMap` key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HexId {
    col: u8,
    row: u8,
}

impl HexId {
    /// The hex at `col`, `row`, or `None` if either is above 99.
    pub const fn new(col: u8, row: u8) -> Option<HexId> {
        if col <= MAX_INDEX && row <= MAX_INDEX {
            Some(HexId { col, row })
        } else {
            None
        }
    }

    /// The hex whose printed id, read as a number, is `number` (1404 is
    /// column 14, row 4), or `None` above 9999.
    pub const fn from_number(number: u16) -> Option<HexId> {
        if number > 9999 {
            return None;
        }
        HexId::new((number / 100) as u8, (number % 100) as u8)
    }

    /// The column, the first two digits of the id.
    pub const fn col(self) -> u8 {
        self.col
    }

    /// The row, the last two digits of the id (rows grow southwards).
    pub const fn row(self) -> u8 {
        self.row
    }

    /// The printed id as a number: `CC * 100 + RR`.
    pub const fn number(self) -> u16 {
        self.col as u16 * 100 + self.row as u16
    }

    /// This hex in cube coordinates under `layout`.
    pub fn cube(self, layout: Layout) -> Cube {
        let d = Dbl::of(self, layout);
        let r = (d.y - d.x - layout.parity()) / 2;
        Cube { q: d.x, r, s: -d.x - r }
    }

    /// The hex at cube coordinates `cube` under `layout`, or `None` if
    /// `q + r + s != 0` or the hex lies outside `00..=99` in column or row.
    pub fn from_cube(cube: Cube, layout: Layout) -> Option<HexId> {
        // Wide arithmetic: the fields are public and may hold anything.
        let (q, r, s) = (i128::from(cube.q), i128::from(cube.r), i128::from(cube.s));
        if q + r + s != 0 || !(0..=i128::from(MAX_INDEX)).contains(&q) {
            return None;
        }
        let y = i64::try_from(2 * r + q + i128::from(layout.parity())).ok()?;
        Dbl { x: cube.q, y }.hex(layout)
    }
}

impl fmt::Display for HexId {
    /// Four digits, `CCRR`, zero-padded: `0105`, `1404`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The digits written as they are (no width or fill applies, as
        // none did to the two numbers they were once written as).
        let digits = self.digits();
        f.write_str(std::str::from_utf8(&digits).unwrap_or("0000"))
    }
}

impl FromStr for HexId {
    type Err = HexIdError;

    /// Exactly four ASCII digits `CCRR`; no sign, no spaces, nothing else.
    #[inline]
    fn from_str(s: &str) -> Result<HexId, HexIdError> {
        // The common case, four ASCII digits, read as one word: every byte
        // is 0x30-0x3F, and adding 6 to each (no byte carries into the
        // next, as none is above 0x3F) leaves it there only for 0x30-0x39.
        // Inlined where the state's hexes are read, the rest kept apart.
        if let Ok(bytes) = <[u8; 4]>::try_from(s.as_bytes()) {
            let word = u32::from_le_bytes(bytes);
            if word & 0xF0F0_F0F0 == 0x3030_3030 && word.wrapping_add(0x0606_0606) & 0xF0F0_F0F0 == 0x3030_3030 {
                let [a, b, c, d] = bytes;
                return Ok(HexId { col: (a - b'0') * 10 + (b - b'0'), row: (c - b'0') * 10 + (d - b'0') });
            }
        }
        hex_id_slow(s)
    }
}

impl HexId {
    /// The printed id's four ASCII digits, without an allocation.
    pub const fn digits(self) -> [u8; 4] {
        [b'0' + self.col / 10, b'0' + self.col % 10, b'0' + self.row / 10, b'0' + self.row % 10]
    }

    /// Whether `text` is this hex's printed id, byte for byte (as comparing
    /// `self.to_string()` with it would say, without the string).
    pub fn is(self, text: &str) -> bool {
        self.digits() == text.as_bytes()
    }
}

/// Written as its printed id, a string of four digits (`"1404"`), as a
/// state's `hex:` fields always were: the same bytes whether a field holds
/// a `HexId` or the text of one.
impl serde::Serialize for HexId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let digits = self.digits();
        serializer.serialize_str(std::str::from_utf8(&digits).unwrap_or("0000"))
    }
}

/// Read from its printed id; anything else is refused with
/// [`HexIdError`]'s words (bounded and escaped, as they echo the input).
impl<'de> serde::Deserialize<'de> for HexId {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<HexId, D::Error> {
        struct Visit;
        impl serde::de::Visitor<'_> for Visit {
            type Value = HexId;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a hex id, four digits CCRR such as \"1404\"")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<HexId, E> {
                v.parse().map_err(E::custom)
            }
        }
        deserializer.deserialize_str(Visit)
    }
}

/// [`HexId::from_str`] of anything but four ASCII digits: the error, or
/// (never, as the fast path takes them) the id.
#[cold]
#[inline(never)]
fn hex_id_slow(s: &str) -> Result<HexId, HexIdError> {
    let length = s.chars().count();
    if length != 4 {
        return Err(HexIdError::WrongLength { input: s.to_string(), length });
    }
    let mut digits = [0u8; 4];
    for (position, (slot, ch)) in digits.iter_mut().zip(s.chars()).enumerate() {
        if !ch.is_ascii_digit() {
            return Err(HexIdError::NotADigit { input: s.to_string(), position: position + 1, found: ch });
        }
        *slot = ch as u8 - b'0';
    }
    Ok(HexId { col: digits[0] * 10 + digits[1], row: digits[2] * 10 + digits[3] })
}

/// Why a string is not a hex id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HexIdError {
    /// The id is not exactly four characters long.
    WrongLength {
        /// The rejected text.
        input: String,
        /// Its length in characters.
        length: usize,
    },
    /// A character is not an ASCII digit `0`-`9`.
    NotADigit {
        /// The rejected text.
        input: String,
        /// 1-based position of the offending character.
        position: usize,
        /// The offending character.
        found: char,
    },
}

impl fmt::Display for HexIdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // The text as written, bounded and escaped (src/base/error.rs): it may be a player's.
            HexIdError::WrongLength { input, length } => write!(
                f,
                "hex id \"{}\" must be exactly four digits CCRR (two of column, \
                 two of row, e.g. 1404), but it has {length} characters",
                crate::base::error::echo(input)
            ),
            HexIdError::NotADigit { input, position, found } => write!(
                f,
                "hex id \"{}\" must be exactly four digits CCRR (e.g. 1404), but \
                 character {position} is {found:?}, not a digit 0-9",
                crate::base::error::echo(input)
            ),
        }
    }
}

impl std::error::Error for HexIdError {}

// ---------------------------------------------------------------------------
// Layout
// ---------------------------------------------------------------------------

/// Which columns of the map sit half a hex lower than their neighbours
/// (see the sketch in the module documentation). The map data carries it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Layout {
    /// Even-numbered columns (14, 16, ...) sit half a hex lower than odd ones.
    /// This is the GBoAR convention.
    EvenColumnsDown,
    /// Odd-numbered columns (13, 15, ...) sit half a hex lower than even ones.
    OddColumnsDown,
}

impl Layout {
    /// The layout of Great Battles of the American Revolution maps.
    pub const GBOAR: Layout = Layout::EvenColumnsDown;

    /// Both layouts.
    pub const ALL: [Layout; 2] = [Layout::EvenColumnsDown, Layout::OddColumnsDown];

    /// Whether column `col` sits half a hex lower than its neighbours.
    pub const fn column_is_down(self, col: u8) -> bool {
        self.down(col as i64) == 1
    }

    /// The name used in map data: `even-columns-down` or `odd-columns-down`.
    pub const fn name(self) -> &'static str {
        match self {
            Layout::EvenColumnsDown => "even-columns-down",
            Layout::OddColumnsDown => "odd-columns-down",
        }
    }

    /// 1 if column `x` (any integer, on the map or not) sits down, else 0.
    const fn down(self, x: i64) -> i64 {
        let odd = x.rem_euclid(2);
        match self {
            Layout::EvenColumnsDown => 1 - odd,
            Layout::OddColumnsDown => odd,
        }
    }

    /// `(y - x) mod 2` in doubled coordinates, the same for every hex.
    const fn parity(self) -> i64 {
        match self {
            Layout::EvenColumnsDown => 1,
            Layout::OddColumnsDown => 0,
        }
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Layout {
    type Err = LayoutParseError;

    /// `even-columns-down` or `odd-columns-down`.
    fn from_str(s: &str) -> Result<Layout, LayoutParseError> {
        Layout::ALL
            .into_iter()
            .find(|layout| layout.name() == s)
            .ok_or_else(|| LayoutParseError { input: s.to_string() })
    }
}

/// A string that names no [`Layout`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutParseError {
    /// The rejected text.
    pub input: String,
}

impl fmt::Display for LayoutParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "hex layout {:?} must be \"even-columns-down\" or \"odd-columns-down\"", self.input)
    }
}

impl std::error::Error for LayoutParseError {}

// ---------------------------------------------------------------------------
// Direction
// ---------------------------------------------------------------------------

/// The six directions out of a flat-topped hex, one per side, clockwise
/// from north. A hex exerts its ZOC into the six hexes in these directions
/// (8.1); a unit moves to an adjacent hex through one of these sides (9.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    /// North: same column, row - 1.
    N,
    /// North-east: next column, up half a hex.
    NE,
    /// South-east: next column, down half a hex.
    SE,
    /// South: same column, row + 1.
    S,
    /// South-west: previous column, down half a hex.
    SW,
    /// North-west: previous column, up half a hex.
    NW,
}

impl Direction {
    /// All six, clockwise from north; the order of [`neighbours`].
    pub const ALL: [Direction; 6] =
        [Direction::N, Direction::NE, Direction::SE, Direction::S, Direction::SW, Direction::NW];

    /// All six, clockwise from north.
    pub const fn all() -> [Direction; 6] {
        Direction::ALL
    }

    /// Position in [`Direction::ALL`]: N is 0, NW is 5.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The direction at position `index % 6` of [`Direction::ALL`].
    pub const fn from_index(index: usize) -> Direction {
        Direction::ALL[index % 6]
    }

    /// The direction pointing back: N and S, NE and SW, SE and NW.
    pub const fn opposite(self) -> Direction {
        Direction::from_index(self.index() + 3)
    }

    /// The next direction clockwise (N to NE, NW to N).
    pub const fn clockwise(self) -> Direction {
        Direction::from_index(self.index() + 1)
    }

    /// The next direction counter-clockwise (N to NW, NE to N).
    pub const fn counter_clockwise(self) -> Direction {
        Direction::from_index(self.index() + 5)
    }

    /// `N`, `NE`, `SE`, `S`, `SW` or `NW`.
    pub const fn name(self) -> &'static str {
        match self {
            Direction::N => "N",
            Direction::NE => "NE",
            Direction::SE => "SE",
            Direction::S => "S",
            Direction::SW => "SW",
            Direction::NW => "NW",
        }
    }

    /// The step in doubled coordinates.
    const fn delta(self) -> (i64, i64) {
        match self {
            Direction::N => (0, -2),
            Direction::NE => (1, -1),
            Direction::SE => (1, 1),
            Direction::S => (0, 2),
            Direction::SW => (-1, 1),
            Direction::NW => (-1, -1),
        }
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Direction {
    type Err = DirectionParseError;

    /// `N`, `NE`, `SE`, `S`, `SW` or `NW`, in either case.
    fn from_str(s: &str) -> Result<Direction, DirectionParseError> {
        Direction::ALL
            .into_iter()
            .find(|d| d.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| DirectionParseError { input: s.to_string() })
    }
}

/// A string that names no [`Direction`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DirectionParseError {
    /// The rejected text.
    pub input: String,
}

impl fmt::Display for DirectionParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "hex direction {:?} must be one of N, NE, SE, S, SW, NW", self.input)
    }
}

impl std::error::Error for DirectionParseError {}

// ---------------------------------------------------------------------------
// Coordinates
// ---------------------------------------------------------------------------

/// Cube coordinates of a hex (`q + r + s = 0`): `q` is the column, and a
/// step in any of the six directions changes two of the three by one.
/// Obtain them with [`HexId::cube`]; they depend on the [`Layout`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Cube {
    /// The column.
    pub q: i64,
    /// Grows by one going S, and going SW.
    pub r: i64,
    /// `-q - r`.
    pub s: i64,
}

impl Cube {
    /// Steps between two cube positions. Saturating, so it never overflows
    /// whatever the fields hold.
    pub fn distance(self, other: Cube) -> u64 {
        let dq = self.q.abs_diff(other.q);
        let dr = self.r.abs_diff(other.r);
        let ds = self.s.abs_diff(other.s);
        dq.saturating_add(dr).saturating_add(ds) / 2
    }
}

/// Doubled coordinates: `x` the column, `y` twice the row, plus one in a
/// column that sits down. Unbounded, so hexes off the map can be described.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Dbl {
    x: i64,
    y: i64,
}

impl Dbl {
    fn of(hex: HexId, layout: Layout) -> Dbl {
        let x = i64::from(hex.col);
        Dbl { x, y: 2 * i64::from(hex.row) + layout.down(x) }
    }

    /// The hex with an id at these coordinates, if any.
    fn hex(self, layout: Layout) -> Option<HexId> {
        let twice_row = self.y - layout.down(self.x);
        if twice_row.rem_euclid(2) != 0 {
            return None;
        }
        let col = u8::try_from(self.x).ok()?;
        let row = u8::try_from(twice_row / 2).ok()?;
        HexId::new(col, row)
    }

    /// Whether a hex (on or off the map) is centred here.
    fn is_centre(self, layout: Layout) -> bool {
        (self.y - layout.down(self.x)).rem_euclid(2) == 0
    }

    fn step(self, dir: Direction) -> Dbl {
        let (dx, dy) = dir.delta();
        Dbl { x: self.x + dx, y: self.y + dy }
    }

    /// The direction from `self` to an adjacent `other`.
    fn direction_to(self, other: Dbl) -> Option<Direction> {
        Direction::ALL.into_iter().find(|&d| self.step(d) == other)
    }
}

// ---------------------------------------------------------------------------
// Adjacency and distance
// ---------------------------------------------------------------------------

/// The hex next to `hex` in direction `dir`, or `None` if it would have a
/// column or row outside `00..=99`.
pub fn neighbour(hex: HexId, dir: Direction, layout: Layout) -> Option<HexId> {
    Dbl::of(hex, layout).step(dir).hex(layout)
}

/// The hexes adjacent to `hex`, in the order of [`Direction::ALL`] (N, NE,
/// SE, S, SW, NW), leaving out those that would fall outside `00..=99`.
/// These are the six hexes of a ZOC (8.1) and of "adjacent" throughout.
pub fn neighbours(hex: HexId, layout: Layout) -> Vec<HexId> {
    around(hex, layout).collect()
}

/// The places of `items` in order of their hexes, items of one hex in the
/// order given (what a stable sort by hex gives), sorted as plain numbers
/// (hex number and place packed in one integer) by an unstable sort: the
/// indexes of the units by hex that the movement rules build per move.
pub fn order_by_hex<T>(items: &[T], hex: impl Fn(&T) -> HexId) -> Vec<usize> {
    if items.len() >= 1 << 16 {
        let mut order: Vec<usize> = (0..items.len()).collect();
        order.sort_by_key(|i| hex(&items[*i]));
        return order;
    }
    let mut keys: Vec<u32> =
        items.iter().enumerate().map(|(i, item)| u32::from(hex(item).number()) << 16 | i as u32).collect();
    keys.sort_unstable();
    keys.into_iter().map(|k| (k & 0xffff) as usize).collect()
}

/// How many hex numbers there are ([`HexId::number`] runs from 0000 to
/// 9999): the size of the tables indexed by hex number.
pub const HEX_NUMBERS: usize = 10_000;

/// A set of hexes as a bit per hex number (0000 to 9999): asked about in
/// the loops that run per hex tried (is this hex in an enemy ZOC, does it
/// hold an enemy unit) without a map's search.
#[derive(Debug, Clone, Default)]
pub struct HexBits {
    words: Vec<u64>,
}

impl HexBits {
    /// The bits of every hex number, none set.
    pub fn new() -> HexBits {
        HexBits { words: vec![0; HEX_NUMBERS / 64 + 1] }
    }

    pub fn insert(&mut self, hex: HexId) {
        let n = usize::from(hex.number());
        if let Some(w) = self.words.get_mut(n / 64) {
            *w |= 1 << (n % 64);
        }
    }

    pub fn remove(&mut self, hex: HexId) {
        let n = usize::from(hex.number());
        if let Some(w) = self.words.get_mut(n / 64) {
            *w &= !(1 << (n % 64));
        }
    }

    pub fn contains(&self, hex: HexId) -> bool {
        let n = usize::from(hex.number());
        self.words.get(n / 64).is_some_and(|w| w & (1 << (n % 64)) != 0)
    }
}

/// The same hexes (a set made empty by `default` is the same as `new`'s).
impl PartialEq for HexBits {
    fn eq(&self, other: &HexBits) -> bool {
        let n = self.words.len().max(other.words.len());
        (0..n).all(|i| self.words.get(i).copied().unwrap_or(0) == other.words.get(i).copied().unwrap_or(0))
    }
}

impl Eq for HexBits {}

/// [`neighbours`] without making a list of them: the same hexes in the
/// same order, for the loops that run per hex tried.
pub fn around(hex: HexId, layout: Layout) -> impl Iterator<Item = HexId> {
    Direction::ALL.into_iter().filter_map(move |d| neighbour(hex, d, layout))
}

/// The direction from `from` to `to` if they are adjacent.
pub fn direction_between(from: HexId, to: HexId, layout: Layout) -> Option<Direction> {
    Dbl::of(from, layout).direction_to(Dbl::of(to, layout))
}

/// Whether `a` and `b` share a hexside.
pub fn are_adjacent(a: HexId, b: HexId, layout: Layout) -> bool {
    direction_between(a, b, layout).is_some()
}

/// The number of hexes from `a` to `b`: the steps of a shortest path
/// through adjacent hexes, 0 for the same hex. This is the range of 11.2:
/// it counts the target's hex but not the firing unit's.
pub fn distance(a: HexId, b: HexId, layout: Layout) -> u32 {
    let d = a.cube(layout).distance(b.cube(layout));
    u32::try_from(d).unwrap_or(u32::MAX)
}

/// Every hex within `radius` hexes of `center` (including `center`), in
/// ascending id order: e.g. the hexes within artillery range (11.2).
pub fn hexes_within(center: HexId, radius: u32, layout: Layout) -> Vec<HexId> {
    let r = i64::from(radius.min(200));
    let c = Dbl::of(center, layout);
    let mut out = Vec::new();
    for x in (c.x - r).max(0)..=(c.x + r).min(i64::from(MAX_INDEX)) {
        for y in (c.y - 2 * r).max(0)..=(c.y + 2 * r) {
            if let Some(hex) = (Dbl { x, y }).hex(layout) {
                if distance(center, hex, layout) <= radius {
                    out.push(hex);
                }
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------
// Hexsides
// ---------------------------------------------------------------------------

/// One side shared by two adjacent hexes, the same value whichever hex it
/// is seen from: it stores the two hexes, lower id first. Hexside terrain
/// (slopes, creeks, fieldworks: 8.1, 9.4, 11.43) is keyed by this.
///
/// A `Hexside` is built for a [`Layout`] ([`Hexside::between`],
/// [`Hexside::from_hex_dir`], [`Hexside::parse`]); the two hexes are
/// adjacent in that layout. It prints as `1404/1405` and parses from that
/// or from `1404-N` (a hex and the direction of the side from it).
/// There is no hexside on the outer rim of the `00..=99` grid: both hexes
/// always have ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Hexside {
    low: HexId,
    high: HexId,
}

impl Hexside {
    /// The side shared by `a` and `b`, or `None` if they are not adjacent.
    pub fn between(a: HexId, b: HexId, layout: Layout) -> Option<Hexside> {
        if !are_adjacent(a, b, layout) {
            return None;
        }
        Some(Hexside { low: a.min(b), high: a.max(b) })
    }

    /// The side of `hex` facing `dir`, or `None` if the hex beyond it would
    /// fall outside `00..=99`.
    pub fn from_hex_dir(hex: HexId, dir: Direction, layout: Layout) -> Option<Hexside> {
        Hexside::between(hex, neighbour(hex, dir, layout)?, layout)
    }

    /// Parses `1404/1405` (either order) or `1404-N` (a hex and the
    /// direction of the side from it; direction in either case).
    pub fn parse(s: &str, layout: Layout) -> Result<Hexside, HexsideParseError> {
        if let Some((left, right)) = s.split_once('/') {
            let a: HexId = left.parse().map_err(HexsideParseError::Hex)?;
            let b: HexId = right.parse().map_err(HexsideParseError::Hex)?;
            if a == b {
                return Err(HexsideParseError::SameHex { hex: a });
            }
            return Hexside::between(a, b, layout).ok_or(HexsideParseError::NotAdjacent { a, b, layout });
        }
        if let Some((left, right)) = s.split_once('-') {
            let hex: HexId = left.parse().map_err(HexsideParseError::Hex)?;
            let dir: Direction = right.parse().map_err(HexsideParseError::Direction)?;
            return Hexside::from_hex_dir(hex, dir, layout).ok_or(HexsideParseError::OffGrid { hex, direction: dir });
        }
        Err(HexsideParseError::Format { input: s.to_string() })
    }

    /// Both hexes, lower id first.
    pub const fn hexes(self) -> (HexId, HexId) {
        (self.low, self.high)
    }

    /// The hex with the lower id.
    pub const fn low(self) -> HexId {
        self.low
    }

    /// The hex with the higher id.
    pub const fn high(self) -> HexId {
        self.high
    }

    /// Whether `hex` is one of the two hexes: whether this is one of the
    /// six sides of `hex` ("part of the firing or target unit's hexes",
    /// 11.43 A).
    pub fn contains(self, hex: HexId) -> bool {
        self.low == hex || self.high == hex
    }

    /// The hex on the other side from `hex`, or `None` if `hex` is neither.
    pub fn other(self, hex: HexId) -> Option<HexId> {
        if hex == self.low {
            Some(self.high)
        } else if hex == self.high {
            Some(self.low)
        } else {
            None
        }
    }

    /// The direction of this side seen from `hex`, or `None` if `hex` is
    /// neither of its hexes (or the hexes are not adjacent in `layout`).
    pub fn direction_from(self, hex: HexId, layout: Layout) -> Option<Direction> {
        direction_between(hex, self.other(hex)?, layout)
    }
}

impl fmt::Display for Hexside {
    /// `1404/1405`, lower id first.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.low, self.high)
    }
}

/// The side shared by `a` and `b`, or `None` if they are not adjacent.
pub fn hexside_between(a: HexId, b: HexId, layout: Layout) -> Option<Hexside> {
    Hexside::between(a, b, layout)
}

/// Why a string is not a hexside.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HexsideParseError {
    /// Neither `CCRR/CCRR` nor `CCRR-DIR`.
    Format {
        /// The rejected text.
        input: String,
    },
    /// One of the hex ids is malformed.
    Hex(HexIdError),
    /// The direction after `-` is malformed.
    Direction(DirectionParseError),
    /// `CCRR/CCRR` names the same hex twice.
    SameHex {
        /// The hex named twice.
        hex: HexId,
    },
    /// `CCRR/CCRR` names two hexes that are not adjacent in this layout.
    NotAdjacent {
        /// The first hex.
        a: HexId,
        /// The second hex.
        b: HexId,
        /// The layout they were checked against.
        layout: Layout,
    },
    /// `CCRR-DIR` points outside the `00..=99` grid.
    OffGrid {
        /// The hex.
        hex: HexId,
        /// The direction that leaves the grid.
        direction: Direction,
    },
}

impl fmt::Display for HexsideParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HexsideParseError::Format { input } => write!(
                f,
                "hexside {input:?} must be two adjacent hex ids such as 1404/1405, \
                 or a hex id and a direction such as 1404-N"
            ),
            HexsideParseError::Hex(e) => write!(f, "hexside: {e}"),
            HexsideParseError::Direction(e) => write!(f, "hexside: {e}"),
            HexsideParseError::SameHex { hex } => {
                write!(f, "hexside {hex}/{hex} names the same hex twice")
            }
            HexsideParseError::NotAdjacent { a, b, layout } => {
                write!(f, "hexside {a}/{b}: the hexes are not adjacent (layout {layout})")
            }
            HexsideParseError::OffGrid { hex, direction } => {
                write!(f, "hexside {hex}-{direction}: no hex beyond that side has an id in 00..99")
            }
        }
    }
}

impl std::error::Error for HexsideParseError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            HexsideParseError::Hex(e) => Some(e),
            HexsideParseError::Direction(e) => Some(e),
            _ => None,
        }
    }
}

// ---------------------------------------------------------------------------
// Line of sight: src/base/hex/line.rs
// ---------------------------------------------------------------------------

mod line;
pub use line::*;

// ---------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_by_hex_is_a_stable_sort_by_hex() {
        let items: Vec<(u16, usize)> = [1404u16, 101, 1404, 9999, 0, 101, 1404].iter().copied().zip(0..).collect();
        let order = order_by_hex(&items, |(n, _)| HexId::from_number(*n).unwrap());
        let got: Vec<(u16, usize)> = order.iter().map(|i| items[*i]).collect();
        let mut want = items.clone();
        want.sort_by_key(|(n, _)| *n);
        assert_eq!(got, want);
    }

    #[test]
    fn hex_bits_hold_the_hexes_inserted_and_no_other() {
        let mut bits = HexBits::new();
        let put =
            [HexId::from_number(0).unwrap(), HexId::from_number(1404).unwrap(), HexId::from_number(9999).unwrap()];
        for h in put {
            bits.insert(h);
        }
        for n in 0..=9999u16 {
            let h = HexId::from_number(n).unwrap();
            assert_eq!(bits.contains(h), put.contains(&h), "{h}");
        }
        assert!(!HexBits::default().contains(put[1]), "an empty set holds nothing");
        assert_eq!(HexBits::default(), HexBits::new(), "empty is empty, however made");
        assert_ne!(bits, HexBits::new(), "sets differ by a hex");
        for h in put {
            bits.remove(h);
            assert!(!bits.contains(h), "{h} removed");
        }
        assert_eq!(bits, HexBits::new(), "every hex removed");
    }
    use std::collections::{BTreeSet, HashMap, VecDeque};

    pub(super) const EVEN: Layout = Layout::EvenColumnsDown;
    pub(super) const ODD: Layout = Layout::OddColumnsDown;

    pub(super) fn h(s: &str) -> HexId {
        s.parse().expect("test hex id")
    }

    pub(super) fn hx(s: &str) -> LineStep {
        LineStep::Hex(h(s))
    }

    pub(super) fn spine(a: &str, b: &str) -> LineStep {
        LineStep::Spine(h(a), h(b))
    }

    pub(super) fn all_hexes() -> impl Iterator<Item = HexId> {
        (0..=99u8).flat_map(|c| (0..=99u8).filter_map(move |r| HexId::new(c, r)))
    }

    /// Deterministic pseudo-random hexes (LCG), no crates.
    pub(super) fn sample_hexes(n: usize, seed: u64) -> Vec<HexId> {
        let mut state = seed;
        let mut out = Vec::new();
        while out.len() < n {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let v = (state >> 33) % 10000;
            if let Some(hex) = HexId::from_number(v as u16) {
                out.push(hex);
            }
        }
        out
    }

    // ----- hex ids -------------------------------------------------------

    #[test]
    fn parses_good_ids() {
        let id = h("1404");
        assert_eq!((id.col(), id.row()), (14, 4));
        assert_eq!(id.number(), 1404);
        assert_eq!(h("0000"), HexId::new(0, 0).unwrap());
        assert_eq!(h("9999"), HexId::new(99, 99).unwrap());
        assert_eq!(h("0105").to_string(), "0105");
        for s in [
            "1404", "1303", "1105", "1401", "1014", "3123", "3822", "3920", "4214", "4105", "1723", "1023", "1805",
            "1803",
        ] {
            assert_eq!(h(s).to_string(), s);
        }
    }

    #[test]
    fn every_id_round_trips_and_orders_numerically() {
        let mut ids: Vec<HexId> = all_hexes().collect();
        assert_eq!(ids.len(), 10_000);
        for id in &ids {
            let text = id.to_string();
            assert_eq!(text.len(), 4);
            assert_eq!(text.parse::<HexId>(), Ok(*id));
            assert_eq!(HexId::from_number(id.number()), Some(*id));
        }
        let mut by_number = ids.clone();
        by_number.sort_by_key(|id| id.number());
        ids.sort();
        assert_eq!(ids, by_number);
        assert!(h("1404") < h("1405") && h("1499") < h("1500"));
    }

    #[test]
    fn refuses_bad_ids_with_reasons() {
        let wrong_length = ["", "1", "140", "14045", " 1404", "1404 ", "1404\n", "01404"];
        for s in wrong_length {
            match s.parse::<HexId>() {
                Err(HexIdError::WrongLength { input, length }) => {
                    assert_eq!(input, s);
                    assert_eq!(length, s.chars().count());
                }
                other => panic!("{s:?}: expected WrongLength, got {other:?}"),
            }
        }
        let not_digit = [
            ("14a4", 3, 'a'),
            ("+404", 1, '+'),
            ("-404", 1, '-'),
            ("14.4", 3, '.'),
            ("14 4", 3, ' '),
            ("140O", 4, 'O'),
            ("١٤٠٤", 1, '١'),      // Arabic-Indic digits are not ASCII digits
            ("１４０４", 1, '１'), // nor are full-width ones
            ("1é04", 2, 'é'),
        ];
        for (s, position, found) in not_digit {
            assert_eq!(
                s.parse::<HexId>(),
                Err(HexIdError::NotADigit { input: s.to_string(), position, found }),
                "{s:?}"
            );
        }
        let msg = "140".parse::<HexId>().unwrap_err().to_string();
        assert!(msg.contains("exactly four digits") && msg.contains("3 characters"));
        let msg = "14a4".parse::<HexId>().unwrap_err().to_string();
        assert!(msg.contains("character 3") && msg.contains("'a'"));
        assert_eq!(HexId::new(100, 0), None);
        assert_eq!(HexId::new(0, 100), None);
        assert_eq!(HexId::from_number(10000), None);
    }

    /// The word-at-a-time fast path reads four ASCII bytes exactly as the
    /// character-by-character reading does: every ASCII byte in every
    /// place (the others digits) gives the same id or the same refusal.
    #[test]
    fn the_fast_path_agrees_with_the_character_reading() {
        for place in 0..4 {
            for byte in 0u8..128 {
                let mut bytes = *b"1405";
                bytes[place] = byte;
                let s = std::str::from_utf8(&bytes).unwrap();
                assert_eq!(s.parse::<HexId>(), hex_id_slow(s), "{s:?}");
                assert_eq!(s.parse::<HexId>().is_ok(), byte.is_ascii_digit(), "{s:?}");
            }
        }
        for s in ["0000", "9999", "0:00", "/999", "1\u{7f}04", "é04", "1é0"] {
            assert_eq!(s.parse::<HexId>(), hex_id_slow(s), "{s:?}");
        }
    }

    // ----- layout and directions ------------------------------------------

    #[test]
    fn layout_names_and_parity() {
        for layout in Layout::ALL {
            assert_eq!(layout.to_string().parse::<Layout>(), Ok(layout));
        }
        assert!("even".parse::<Layout>().is_err());
        assert_eq!(Layout::GBOAR, EVEN);
        assert!(EVEN.column_is_down(14) && !EVEN.column_is_down(13));
        assert!(ODD.column_is_down(13) && !ODD.column_is_down(14));
    }

    #[test]
    fn directions() {
        assert_eq!(Direction::all(), Direction::ALL);
        for (i, d) in Direction::ALL.into_iter().enumerate() {
            assert_eq!(d.index(), i);
            assert_eq!(d.opposite().opposite(), d);
            assert_ne!(d.opposite(), d);
            assert_eq!(d.clockwise().counter_clockwise(), d);
            assert_eq!(d.clockwise().clockwise().clockwise(), d.opposite());
            let (dx, dy) = d.delta();
            let (ox, oy) = d.opposite().delta();
            assert_eq!((dx + ox, dy + oy), (0, 0));
            assert_eq!(d.to_string().parse::<Direction>(), Ok(d));
            assert_eq!(d.name().to_lowercase().parse::<Direction>(), Ok(d));
        }
        assert_eq!(Direction::N.opposite(), Direction::S);
        assert_eq!(Direction::NE.opposite(), Direction::SW);
        assert_eq!(Direction::SE.opposite(), Direction::NW);
        assert!("E".parse::<Direction>().is_err());
        assert!("".parse::<Direction>().is_err());
        assert!("NNE".parse::<Direction>().is_err());
    }

    // ----- neighbours -----------------------------------------------------

    #[test]
    fn neighbours_of_1404_and_1503_by_hand() {
        // The sketch in the module docs, EvenColumnsDown: column 14 is down.
        let n = |s: &str, l| -> Vec<String> { neighbours(h(s), l).iter().map(|x| x.to_string()).collect() };
        assert_eq!(n("1404", EVEN), ["1403", "1504", "1505", "1405", "1305", "1304"]);
        assert_eq!(n("1503", EVEN), ["1502", "1602", "1603", "1504", "1403", "1402"]);
        // OddColumnsDown: column 14 is up, column 13 down.
        assert_eq!(n("1404", ODD), ["1403", "1503", "1504", "1405", "1304", "1303"]);
        assert_eq!(n("1303", ODD), ["1302", "1403", "1404", "1304", "1204", "1203"]);
        assert!(!are_adjacent(h("1303"), h("1404"), EVEN));
        assert!(are_adjacent(h("1303"), h("1404"), ODD));
        assert_eq!(direction_between(h("1404"), h("1504"), EVEN), Some(Direction::NE));
        assert_eq!(direction_between(h("1404"), h("1504"), ODD), Some(Direction::SE));
        assert_eq!(direction_between(h("1404"), h("1406"), EVEN), None);
        assert_eq!(direction_between(h("1404"), h("1404"), EVEN), None);
    }

    #[test]
    fn neighbours_stop_at_the_grid_edge() {
        for layout in Layout::ALL {
            assert_eq!(neighbour(h("0000"), Direction::N, layout), None);
            assert_eq!(neighbour(h("0000"), Direction::NW, layout), None);
            assert_eq!(neighbour(h("0000"), Direction::SW, layout), None);
            assert_eq!(neighbour(h("9999"), Direction::S, layout), None);
            assert_eq!(neighbour(h("9950"), Direction::NE, layout), None);
            assert_eq!(neighbour(h("9950"), Direction::SE, layout), None);
        }
        // 0000 is down under EvenColumnsDown: its NE neighbour is 0100.
        assert_eq!(neighbour(h("0000"), Direction::NE, EVEN), Some(h("0100")));
        // 0100 is up: nothing to its N, NE or NW in row -1.
        assert_eq!(neighbour(h("0100"), Direction::NE, EVEN), None);
        assert_eq!(neighbours(h("0100"), EVEN), [h("0200"), h("0101"), h("0000")]);
        assert_eq!(neighbours(h("0000"), ODD).len(), 2);
        assert_eq!(neighbours(h("5050"), EVEN).len(), 6);
    }

    #[test]
    fn neighbour_symmetry_over_a_50_by_40_grid() {
        for layout in Layout::ALL {
            let grid: Vec<HexId> = (0..50u8).flat_map(|c| (0..40u8).filter_map(move |r| HexId::new(c, r))).collect();
            let sets: HashMap<HexId, Vec<HexId>> = grid.iter().map(|&a| (a, neighbours(a, layout))).collect();
            for &a in &grid {
                let na = &sets[&a];
                assert!(na.len() <= 6);
                assert!(!na.contains(&a));
                let distinct: BTreeSet<_> = na.iter().collect();
                assert_eq!(distinct.len(), na.len());
                for d in Direction::ALL {
                    if let Some(n) = neighbour(a, d, layout) {
                        assert_eq!(neighbour(n, d.opposite(), layout), Some(a));
                        assert_eq!(direction_between(a, n, layout), Some(d));
                    }
                }
                if (1..49).contains(&a.col()) && (1..39).contains(&a.row()) {
                    assert_eq!(na.len(), 6, "{a}");
                }
                for &b in &grid {
                    let ab = na.contains(&b);
                    let ba = match sets.get(&b) {
                        Some(nb) => nb.contains(&a),
                        None => false,
                    };
                    assert_eq!(ab, ba, "{a} {b} {layout}");
                    assert_eq!(ab, distance(a, b, layout) == 1);
                }
            }
        }
    }

    // ----- hexsides -------------------------------------------------------

    #[test]
    fn hexside_is_the_same_from_both_sides() {
        for layout in Layout::ALL {
            for a in all_hexes() {
                for d in Direction::ALL {
                    let Some(b) = neighbour(a, d, layout) else {
                        assert_eq!(Hexside::from_hex_dir(a, d, layout), None);
                        continue;
                    };
                    let side = Hexside::from_hex_dir(a, d, layout).unwrap();
                    assert_eq!(Hexside::from_hex_dir(b, d.opposite(), layout), Some(side));
                    assert_eq!(hexside_between(a, b, layout), Some(side));
                    assert_eq!(hexside_between(b, a, layout), Some(side));
                    assert_eq!(side.hexes(), (a.min(b), a.max(b)));
                    assert_eq!(side.other(a), Some(b));
                    assert_eq!(side.direction_from(a, layout), Some(d));
                    assert_eq!(side.direction_from(b, layout), Some(d.opposite()));
                    assert_eq!(Hexside::parse(&side.to_string(), layout), Ok(side));
                    assert_eq!(Hexside::parse(&format!("{b}/{a}"), layout), Ok(side));
                    assert_eq!(Hexside::parse(&format!("{a}-{d}"), layout), Ok(side));
                }
            }
        }
    }

    #[test]
    fn hexside_text() {
        let side = Hexside::parse("1404-N", EVEN).unwrap();
        assert_eq!(side.to_string(), "1403/1404");
        assert_eq!(Hexside::parse("1404/1403", EVEN), Ok(side));
        assert_eq!(Hexside::parse("1404-ne", EVEN).unwrap().to_string(), "1404/1504");
        assert_eq!(Hexside::parse("1404-NE", ODD).unwrap().to_string(), "1404/1503");
        assert!(side.contains(h("1404")) && !side.contains(h("1405")));
        assert_eq!(side.other(h("1405")), None);
        assert_eq!(side.direction_from(h("1405"), EVEN), None);
        assert_eq!(Hexside::parse("1404/1404", EVEN), Err(HexsideParseError::SameHex { hex: h("1404") }));
        assert_eq!(
            Hexside::parse("1404/1406", EVEN),
            Err(HexsideParseError::NotAdjacent { a: h("1404"), b: h("1406"), layout: EVEN })
        );
        // 1303 and 1404 are adjacent only when odd columns sit down.
        assert!(Hexside::parse("1303/1404", EVEN).is_err());
        assert!(Hexside::parse("1303/1404", ODD).is_ok());
        assert_eq!(
            Hexside::parse("0000-N", EVEN),
            Err(HexsideParseError::OffGrid { hex: h("0000"), direction: Direction::N })
        );
        assert!(matches!(Hexside::parse("1404-X", EVEN), Err(HexsideParseError::Direction(_))));
        assert!(matches!(Hexside::parse("1404/14O5", EVEN), Err(HexsideParseError::Hex(_))));
        assert!(matches!(Hexside::parse("1404", EVEN), Err(HexsideParseError::Format { .. })));
        assert!(matches!(Hexside::parse("1404 1405", EVEN), Err(HexsideParseError::Format { .. })));
        assert!(matches!(Hexside::parse("1404/1405/1406", EVEN), Err(HexsideParseError::Hex(_))));
        assert!(Hexside::parse("", EVEN).is_err());
        assert!(Hexside::parse("/", EVEN).is_err());
        assert!(Hexside::parse("-", EVEN).is_err());
    }

    // ----- distance -------------------------------------------------------

    fn bfs(from: HexId, layout: Layout) -> HashMap<HexId, u32> {
        let mut dist = HashMap::new();
        dist.insert(from, 0);
        let mut queue = VecDeque::from([from]);
        while let Some(cur) = queue.pop_front() {
            let d = dist[&cur];
            for n in neighbours(cur, layout) {
                if let std::collections::hash_map::Entry::Vacant(e) = dist.entry(n) {
                    e.insert(d + 1);
                    queue.push_back(n);
                }
            }
        }
        dist
    }

    #[test]
    fn distance_matches_breadth_first_search() {
        let mut sources: Vec<HexId> =
            ["0000", "9999", "0099", "9900", "5050", "1404", "3822"].into_iter().map(h).collect();
        sources.extend(sample_hexes(8, 7));
        for layout in Layout::ALL {
            for &s in &sources {
                let d = bfs(s, layout);
                assert_eq!(d.len(), 10_000);
                for t in all_hexes() {
                    assert_eq!(distance(s, t, layout), d[&t], "{s} {t} {layout}");
                }
            }
        }
    }

    #[test]
    fn distance_is_a_metric() {
        let pts = sample_hexes(60, 12345);
        for layout in Layout::ALL {
            for &a in &pts {
                assert_eq!(distance(a, a, layout), 0);
                for &b in &pts {
                    let ab = distance(a, b, layout);
                    assert_eq!(ab, distance(b, a, layout));
                    assert_eq!(ab == 0, a == b);
                    for &c in &pts {
                        assert!(distance(a, c, layout) <= ab + distance(b, c, layout));
                    }
                }
            }
        }
    }

    #[test]
    fn distances_by_hand() {
        assert_eq!(distance(h("1404"), h("1405"), EVEN), 1);
        assert_eq!(distance(h("1404"), h("1407"), EVEN), 3);
        // 1303 is up, 1404 down: 1303 -> 1403 -> 1404.
        assert_eq!(distance(h("1303"), h("1404"), EVEN), 2);
        assert_eq!(distance(h("1303"), h("1404"), ODD), 1);
        // The two V-1 entry hexes of Savannah.
        assert_eq!(distance(h("3822"), h("3920"), EVEN), 3);
        assert_eq!(distance(h("3822"), h("3920"), ODD), 2);
        // Across the columns: ten columns is at least ten hexes.
        assert_eq!(distance(h("1404"), h("2404"), EVEN), 10);
        assert_eq!(distance(h("1404"), h("2409"), EVEN), 10);
        assert_eq!(distance(h("1404"), h("2410"), EVEN), 11);
        // 0000 sits down and 9999 up under EvenColumnsDown, the other way
        // round under OddColumnsDown: half a hex less or more to go south.
        assert_eq!(distance(h("0000"), h("9999"), EVEN), 148);
        assert_eq!(distance(h("0000"), h("9999"), ODD), 149);
    }

    #[test]
    fn cube_round_trip_and_hexes_within() {
        for layout in Layout::ALL {
            for a in all_hexes() {
                let c = a.cube(layout);
                assert_eq!(c.q + c.r + c.s, 0);
                assert_eq!(HexId::from_cube(c, layout), Some(a));
            }
            let bad = Cube { q: 1, r: 1, s: 1 };
            assert_eq!(HexId::from_cube(bad, layout), None);
            let far = Cube { q: i64::MAX, r: i64::MIN, s: 1 };
            assert_eq!(HexId::from_cube(far, layout), None);
            let huge = Cube { q: i64::MAX, r: i64::MAX, s: i64::MAX };
            assert_eq!(HexId::from_cube(huge, layout), None);
            let tall = Cube { q: 5, r: i64::MAX - 10, s: 5 - i64::MAX };
            assert_eq!(HexId::from_cube(tall, layout), None);
            assert_eq!(huge.distance(Cube { q: i64::MIN, r: i64::MIN, s: i64::MIN }), u64::MAX / 2);
            assert!(far.distance(Cube { q: i64::MIN, r: i64::MAX, s: 0 }) > 0);
            for center in [h("1404"), h("0000"), h("9999"), h("0150")] {
                let within = hexes_within(center, 3, layout);
                let expected: Vec<HexId> = all_hexes().filter(|&x| distance(center, x, layout) <= 3).collect();
                assert_eq!(within, expected);
            }
            assert_eq!(hexes_within(h("5050"), 3, layout).len(), 37);
            assert_eq!(hexes_within(h("5050"), 0, layout), vec![h("5050")]);
            assert_eq!(hexes_within(h("5050"), u32::MAX, layout).len(), 10_000);
        }
    }
}
