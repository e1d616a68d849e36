//! Lines of sight between hexes (11.4): what a straight line from one
//! hex centre to another passes through ([`line_between`]), the hexside
//! it enters its target by ([`entering_hexside`]) and every hexside it
//! crosses ([`hexsides_crossed`]), in exact integer geometry. The hex
//! grid it runs on is the parent module's.

use super::*;

/// One thing a line of sight passes through, between the firing hex and
/// the target hex (both excluded; see [`line_between`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LineStep {
    /// The line crosses the interior of this hex. If it is blocking
    /// terrain or holds combat units, the LOS is blocked (11.42).
    Hex(HexId),
    /// The line runs exactly along the hexside shared by these two hexes
    /// (lower id first): a hex spine. The LOS is blocked only if both hexes
    /// are blocking terrain and/or hold combat units (11.44).
    Spine(HexId, HexId),
    /// The line runs exactly along the side of this hex facing this
    /// direction, and the hex beyond would lie outside the `00..=99` grid.
    /// This happens only along row 00 or row 99 of the id grid, which no
    /// GBoAR map uses as a full row. Having no hex on the far side, this
    /// spine never blocks (11.44).
    RimSpine(HexId, Direction),
}

impl LineStep {
    /// Whether this step blocks the LOS, given which hexes are blocking
    /// terrain or hold combat units (11.42): a hex blocks if it is
    /// blocking; a spine only if both its hexes are (11.44).
    pub fn is_blocked_by<F: Fn(HexId) -> bool>(&self, blocking: F) -> bool {
        match *self {
            LineStep::Hex(h) => blocking(h),
            LineStep::Spine(a, b) => blocking(a) && blocking(b),
            LineStep::RimSpine(..) => false,
        }
    }

    /// The hexes this step involves: one for a hex or rim spine, two for a
    /// spine.
    pub fn hexes(&self) -> Vec<HexId> {
        match *self {
            LineStep::Hex(h) | LineStep::RimSpine(h, _) => vec![h],
            LineStep::Spine(a, b) => vec![a, b],
        }
    }
}

impl fmt::Display for LineStep {
    /// `1405`, `spine 1504/1505`, `spine 0200-N`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineStep::Hex(h) => write!(f, "{h}"),
            LineStep::Spine(a, b) => write!(f, "spine {a}/{b}"),
            LineStep::RimSpine(h, d) => write!(f, "spine {h}-{d}"),
        }
    }
}

/// The line of sight from the centre of `a` to the centre of `b` (11.41):
/// what it passes through strictly between the two hexes, in order from
/// `a` to `b`.
///
/// The firing hex `a` and the target hex `b` are **not** in the list. The
/// list is empty when `a == b` and when they are adjacent (11.41: LOS to an
/// adjacent unit is always clear). A hex whose corner the line merely
/// touches is not listed; a hexside the line runs exactly along is listed
/// as a [`LineStep::Spine`] (11.44). Consecutive steps are adjacent: two
/// listed hexes share a side, and a spine's two hexes are both adjacent to
/// the hex before and after it. The result is exact and symmetric:
/// `line_between(b, a)` is `line_between(a, b)` reversed.
///
/// For the whole of 11.42 and 11.44 together see [`line_blocked`].
pub fn line_between(a: HexId, b: HexId, layout: Layout) -> Vec<LineStep> {
    trace(a, b, layout)
        .into_iter()
        .filter_map(|piece| match piece {
            Piece::Hex(d) => d.hex(layout).map(LineStep::Hex),
            Piece::Spine(c, dir, o) => match (c.hex(layout), o.hex(layout)) {
                (Some(h1), Some(h2)) => Some(LineStep::Spine(h1, h2)),
                (Some(h), None) => Some(LineStep::RimSpine(h, dir)),
                (None, Some(h)) => Some(LineStep::RimSpine(h, dir.opposite())),
                (None, None) => None,
            },
        })
        .collect()
}

/// Whether anything between `a` and `b` blocks the LOS under 11.42 and
/// 11.44, given which hexes are blocking terrain or hold combat units.
/// The firing and target hexes themselves never block (LOS can be traced
/// into blocking terrain, 11.42). Slopes (11.43) are the caller's business:
/// see [`entering_hexside`] and [`hexsides_crossed`].
pub fn line_blocked<F: Fn(HexId) -> bool>(a: HexId, b: HexId, layout: Layout, blocking: F) -> bool {
    line_between(a, b, layout).iter().any(|step| step.is_blocked_by(&blocking))
}

/// How a line of sight enters its target hex.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Entry {
    /// The two hexes are the same: the line enters nothing.
    SameHex,
    /// The line crosses the target's side facing this direction, through
    /// the inside of that side.
    Side(Direction),
    /// The line enters exactly through the corner of the target where its
    /// sides facing these two directions meet (the second is the first
    /// turned [`Direction::clockwise`]). This happens exactly when the line
    /// arrives along a hex spine (the last [`LineStep`] is a spine), i.e.
    /// when the target lies on one of the six spine lines from the firing
    /// hex.
    Corner(Direction, Direction),
}

impl Entry {
    /// The directions of the target's sides involved: none, one or two.
    pub fn directions(self) -> Vec<Direction> {
        match self {
            Entry::SameHex => Vec::new(),
            Entry::Side(d) => vec![d],
            Entry::Corner(d1, d2) => vec![d1, d2],
        }
    }

    /// The target's hexsides involved, as [`Hexside`]s. A side on the rim
    /// of the `00..=99` grid has no `Hexside` and is left out.
    pub fn hexsides(self, target: HexId, layout: Layout) -> Vec<Hexside> {
        self.directions().into_iter().filter_map(|d| Hexside::from_hex_dir(target, d, layout)).collect()
    }
}

/// Through which side of `b` the line of sight from `a` enters `b`: the
/// test for an "up slope" position in 11.43 (the target is up slope if
/// this side is an up-slope hexside into it; the firing unit is up slope
/// if `entering_hexside(b, a, ...)` is an up-slope hexside into `a`).
///
/// When `a` and `b` are adjacent this is their shared side. When the line
/// arrives along a hex spine it passes exactly through a corner of `b`,
/// touching two of its sides and crossing neither: both are reported as
/// [`Entry::Corner`] and the rules do not say which counts. By analogy with
/// 11.44 a referee might count the entry as up slope only if both sides
/// are up-slope hexsides into `b`; that choice is left to the caller.
pub fn entering_hexside(a: HexId, b: HexId, layout: Layout) -> Entry {
    let from = Dbl::of(b, layout).centre();
    let to = Dbl::of(a, layout).centre();
    let u = sub(to, from);
    if u == (0, 0) {
        return Entry::SameHex;
    }
    // Corner i joins the sides facing directions i - 1 and i.
    for (i, &v) in CORNERS.iter().enumerate() {
        if cross(v, u) == 0 && dot(v, u) > 0 {
            let side = Direction::from_index(i);
            return Entry::Corner(side.counter_clockwise(), side);
        }
    }
    // Side i runs from corner i to corner i + 1.
    for (i, &v1) in CORNERS.iter().enumerate() {
        let v2 = CORNERS[(i + 1) % 6];
        if cross(v1, u) > 0 && cross(u, v2) > 0 {
            return Entry::Side(Direction::from_index(i));
        }
    }
    // Unreachable: the six corner rays and six open cones cover the plane.
    Entry::SameHex
}

/// One crossing of a line of sight from one hex into an adjacent one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Crossing {
    /// The hex the line leaves.
    pub from: HexId,
    /// The hex the line enters.
    pub to: HexId,
    /// The side shared by `from` and `to`.
    pub side: Hexside,
    /// `false` when the line crosses the inside of `side`; `true` when it
    /// passes exactly through one end of `side`, a corner where a third hex
    /// meets `from` and `to` (the line touches that hex's corner without
    /// entering it).
    pub at_corner: bool,
}

/// Every hexside the line of sight from `a` to `b` crosses, in order: one
/// [`Crossing`] for each passage from a hex into the next, including the
/// first (out of `a`) and the last (into `b`). For 11.43 A and B, the
/// slope hexsides "not part of the firing or target unit's hexes" are those
/// whose `side` does not [`Hexside::contains`] `a` or `b`; `from` and `to`
/// give the sense in which each is crossed (up or down slope).
///
/// Where the line runs along a hex spine ([`LineStep::Spine`]) it goes from
/// a hex onto the spine, and from the spine into the next hex, through
/// corners: it crosses no hexside there and nothing is listed for those
/// two passages. Empty when `a == b`.
pub fn hexsides_crossed(a: HexId, b: HexId, layout: Layout) -> Vec<Crossing> {
    if a == b {
        return Vec::new();
    }
    let da = Dbl::of(a, layout);
    let db = Dbl::of(b, layout);
    let seg = Segment::new(da, db);
    let mut seq: Vec<Option<Dbl>> = vec![Some(da)];
    seq.extend(trace(a, b, layout).into_iter().map(|piece| match piece {
        Piece::Hex(d) => Some(d),
        Piece::Spine(..) => None,
    }));
    seq.push(Some(db));
    let mut out = Vec::new();
    for pair in seq.windows(2) {
        if let [Some(f), Some(t)] = *pair {
            let (Some(dir), Some(from), Some(to)) = (f.direction_to(t), f.hex(layout), t.hex(layout)) else {
                continue;
            };
            let Some(side) = Hexside::between(from, to, layout) else {
                continue;
            };
            let c = f.centre();
            let i = dir.index();
            let at_corner = seg.on_line(corner(c, i)) || seg.on_line(corner(c, i + 1));
            out.push(Crossing { from, to, side, at_corner });
        }
    }
    out
}

/// A point of the integer plane used for line of sight.
type Pt = (i64, i64);

impl Dbl {
    /// The centre on the integer plane used for line of sight.
    fn centre(self) -> Pt {
        (3 * self.x, self.y)
    }
}

/// Corners of a hex relative to its centre: corner `i` and corner `i + 1`
/// bound the side facing `Direction::from_index(i)`.
const CORNERS: [Pt; 6] = [(-1, -1), (1, -1), (2, 0), (1, 1), (-1, 1), (-2, 0)];

fn corner(centre: Pt, i: usize) -> Pt {
    let k = CORNERS[i % 6];
    (centre.0 + k.0, centre.1 + k.1)
}

fn sub(a: Pt, b: Pt) -> Pt {
    (a.0 - b.0, a.1 - b.1)
}

fn cross(a: Pt, b: Pt) -> i64 {
    a.0 * b.1 - a.1 * b.0
}

fn dot(a: Pt, b: Pt) -> i64 {
    a.0 * b.0 + a.1 * b.1
}

/// `n1/d1 < n2/d2` for positive denominators.
fn frac_lt(a: (i64, i64), b: (i64, i64)) -> bool {
    a.0 * b.1 < b.0 * a.1
}

/// The segment `p0 + t * d`, `0 <= t <= 1`, from centre to centre.
struct Segment {
    p0: Pt,
    d: Pt,
}

impl Segment {
    fn new(a: Dbl, b: Dbl) -> Segment {
        let p0 = a.centre();
        Segment { p0, d: sub(b.centre(), p0) }
    }

    /// Whether `p` lies on the line through the segment.
    fn on_line(&self, p: Pt) -> bool {
        cross(self.d, sub(p, self.p0)) == 0
    }

    /// Position of `p` along the direction of travel, in the true
    /// (unsqueezed) metric, up to a positive factor: the dot product with
    /// the horizontal unit weighted 1 and the vertical unit weighted 3.
    fn along(&self, p: Pt) -> i64 {
        self.d.0 * p.0 + 3 * self.d.1 * p.1
    }

    /// Whether the segment meets the open interior of the hex centred at
    /// `c`: clip `t` against the six open half-planes of the hex.
    fn meets_interior(&self, c: Pt) -> bool {
        // t > lo.0 / lo.1 and t < hi.0 / hi.1, denominators positive.
        let mut lo: Option<(i64, i64)> = None;
        let mut hi: Option<(i64, i64)> = None;
        for i in 0..6 {
            let v = corner(c, i);
            let e = sub(corner(c, i + 1), v);
            // Inside the hex is cross(e, p - v) > 0 for all six sides.
            let f0 = cross(e, sub(self.p0, v));
            let g = cross(e, self.d);
            if g == 0 {
                if f0 <= 0 {
                    return false;
                }
            } else if g > 0 {
                let bound = (-f0, g);
                if lo.is_none_or(|cur| frac_lt(cur, bound)) {
                    lo = Some(bound);
                }
            } else {
                let bound = (f0, -g);
                if hi.is_none_or(|cur| frac_lt(bound, cur)) {
                    hi = Some(bound);
                }
            }
        }
        // Some t in [0, 1] with lo < t < hi.
        if lo.is_some_and(|(n, d)| n >= d) {
            return false;
        }
        if hi.is_some_and(|(n, _)| n <= 0) {
            return false;
        }
        if let (Some(l), Some(h)) = (lo, hi) {
            if !frac_lt(l, h) {
                return false;
            }
        }
        true
    }

    /// Whether the segment runs along the side from `v1` to `v2` for a
    /// positive length.
    fn runs_along(&self, v1: Pt, v2: Pt) -> bool {
        if cross(self.d, sub(v2, v1)) != 0 || !self.on_line(v1) {
            return false;
        }
        let a = dot(sub(v1, self.p0), self.d);
        let b = dot(sub(v2, self.p0), self.d);
        let len = dot(self.d, self.d);
        a.min(b).max(0) < a.max(b).min(len)
    }
}

/// A line-of-sight piece in doubled coordinates (possibly off the grid).
#[derive(Clone, Copy, Debug)]
enum Piece {
    Hex(Dbl),
    /// The side of the first hex facing the direction, shared with the
    /// second; the first is the lower in id order.
    Spine(Dbl, Direction, Dbl),
}

/// The pieces between `a` and `b`, ordered from `a` to `b`.
///
/// Every hex near the segment is tested for an interior crossing, and each
/// of its NE, SE and S sides (so every side once) for running along the
/// segment. The pieces are then ordered by the position along the line of
/// their hex centre or side midpoint. That order is the order of travel:
/// two hexes passed one after the other are adjacent, and the line goes
/// from the first into the second across the line of their shared side
/// (through its inside or through its end), so it moves towards the second
/// centre, which lies square across that side; around a spine, the hex
/// before, the spine and the hex after are centred on the line itself.
fn trace(a: HexId, b: HexId, layout: Layout) -> Vec<Piece> {
    if a == b {
        return Vec::new();
    }
    let da = Dbl::of(a, layout);
    let db = Dbl::of(b, layout);
    let seg = Segment::new(da, db);
    let mut keyed: Vec<(i64, Piece)> = Vec::new();
    // Any hex the segment enters, and either hex of any side it runs along,
    // lies within these bounds (with a margin to spare).
    for x in (da.x.min(db.x) - 1)..=(da.x.max(db.x) + 1) {
        for y in (da.y.min(db.y) - 2)..=(da.y.max(db.y) + 2) {
            let here = Dbl { x, y };
            if !here.is_centre(layout) {
                continue;
            }
            let c = here.centre();
            if here != da && here != db && seg.meets_interior(c) {
                keyed.push((2 * seg.along(c), Piece::Hex(here)));
            }
            for dir in [Direction::NE, Direction::SE, Direction::S] {
                let i = dir.index();
                if seg.runs_along(corner(c, i), corner(c, i + 1)) {
                    let other = here.step(dir);
                    let key = seg.along(c) + seg.along(other.centre());
                    keyed.push((key, Piece::Spine(here, dir, other)));
                }
            }
        }
    }
    keyed.sort_by_key(|&(key, _)| key);
    keyed.into_iter().map(|(_, piece)| piece).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    use crate::base::hex::tests::{h, hx, sample_hexes, spine, EVEN, ODD};

    // ----- line of sight: worked examples ---------------------------------

    #[test]
    fn line_along_a_column() {
        // Straight down column 14: every hex in between, entering 1407
        // through its north side.
        for layout in Layout::ALL {
            assert_eq!(line_between(h("1404"), h("1407"), layout), [hx("1405"), hx("1406")]);
            assert_eq!(line_between(h("1407"), h("1404"), layout), [hx("1406"), hx("1405")]);
            assert_eq!(entering_hexside(h("1404"), h("1407"), layout), Entry::Side(Direction::N));
            let crossed: Vec<String> = hexsides_crossed(h("1404"), h("1407"), layout)
                .iter()
                .map(|c| {
                    assert!(!c.at_corner);
                    format!("{}>{}", c.from, c.to)
                })
                .collect();
            assert_eq!(crossed, ["1404>1405", "1405>1406", "1406>1407"]);
        }
    }

    #[test]
    fn same_and_adjacent_hexes() {
        for layout in Layout::ALL {
            let a = h("1404");
            assert!(line_between(a, a, layout).is_empty());
            assert_eq!(entering_hexside(a, a, layout), Entry::SameHex);
            assert!(hexsides_crossed(a, a, layout).is_empty());
            for d in Direction::ALL {
                let b = neighbour(a, d, layout).unwrap();
                // 11.41: LOS to an adjacent unit is always clear.
                assert!(line_between(a, b, layout).is_empty());
                assert!(!line_blocked(a, b, layout, |_| true));
                assert_eq!(entering_hexside(a, b, layout), Entry::Side(d.opposite()));
                let crossed = hexsides_crossed(a, b, layout);
                assert_eq!(crossed.len(), 1);
                assert_eq!(crossed[0].side, Hexside::between(a, b, layout).unwrap());
            }
        }
    }

    #[test]
    fn line_along_hex_spines() {
        // EvenColumnsDown. 1404 and 1604 are both in lower columns, so
        // their centres are level and the line between them is horizontal.
        // On its way it passes the east corner of 1404, runs along the whole
        // side between 1504 (above) and 1505 (below), and reaches the west
        // corner of 1604. 11.44: blocked only if both 1504 and 1505 block.
        let (a, b) = (h("1404"), h("1604"));
        assert_eq!(line_between(a, b, EVEN), [spine("1504", "1505")]);
        assert_eq!(entering_hexside(a, b, EVEN), Entry::Corner(Direction::SW, Direction::NW));
        assert_eq!(entering_hexside(b, a, EVEN), Entry::Corner(Direction::NE, Direction::SE));
        assert!(hexsides_crossed(a, b, EVEN).is_empty());
        let one = |x: HexId| x == h("1504");
        let both = |x: HexId| x == h("1504") || x == h("1505");
        assert!(!line_blocked(a, b, EVEN, one));
        assert!(line_blocked(a, b, EVEN, both));
        // Further along the same row: spine, hex, spine.
        assert_eq!(line_between(a, h("1804"), EVEN), [spine("1504", "1505"), hx("1604"), spine("1704", "1705")]);
        // OddColumnsDown: 1404 is up, the spine is 1503/1504.
        assert_eq!(line_between(a, b, ODD), [spine("1503", "1504")]);
        // The other spine directions, EvenColumnsDown. 1503 lies up and to
        // the right: the line leaves 1404 by its NE corner, runs along the
        // side between 1403 (N of 1404) and 1504 (NE of 1404) and enters
        // 1503 by its S/SW corner.
        assert_eq!(line_between(a, h("1503"), EVEN), [spine("1403", "1504")]);
        assert_eq!(entering_hexside(a, h("1503"), EVEN), Entry::Corner(Direction::S, Direction::SW));
        // 1506, down and to the right: along 1405/1505.
        assert_eq!(line_between(a, h("1506"), EVEN), [spine("1405", "1505")]);
        // Every one of the six spine lines from a hex, both layouts: the
        // hex two steps along it is reached through a single spine whose
        // hexes are adjacent to both ends.
        for layout in Layout::ALL {
            let da = Dbl::of(a, layout);
            for (dx, dy) in [(2, 0), (-2, 0), (1, 3), (1, -3), (-1, 3), (-1, -3)] {
                let b = Dbl { x: da.x + dx, y: da.y + dy }.hex(layout).unwrap();
                let steps = line_between(a, b, layout);
                assert_eq!(steps.len(), 1, "{a} {b}");
                let LineStep::Spine(p, q) = steps[0] else {
                    panic!("{a} {b}: {steps:?}");
                };
                assert!(p < q);
                for end in [a, b] {
                    assert!(are_adjacent(end, p, layout) && are_adjacent(end, q, layout));
                }
                assert_eq!(distance(a, b, layout), 2);
                assert!(matches!(entering_hexside(a, b, layout), Entry::Corner(..)));
            }
        }
    }

    #[test]
    fn line_through_a_centre() {
        // 1404 -> 1603 (EvenColumnsDown): the midpoint of the line is the
        // centre of 1504, so the line goes straight through it and enters
        // 1603 across its SW side.
        assert_eq!(line_between(h("1404"), h("1603"), EVEN), [hx("1504")]);
        assert_eq!(entering_hexside(h("1404"), h("1603"), EVEN), Entry::Side(Direction::SW));
    }

    #[test]
    fn line_zigzag_worked_by_hand() {
        // 1404 -> 1707, EvenColumnsDown, range 4. On the integer plane of
        // the module docs 1404 is centred at (42, 9) and 1707 at (51, 14);
        // the line is (42 + 9t, 9 + 5t). A point is inside the hex centred
        // at (X, Y) when |y - Y| < 1 and |x - X| + |y - Y| < 2.
        //  t = 1/6  (43.5, 9.83): outside 1404 (42, 9) since 1.5 + 0.83 > 2,
        //           inside 1505 (45, 10): 1505 is first.
        //  t = 0.45 (46.05, 11.25): inside 1506 (45, 12): 1.05 + 0.75 < 2.
        //  t = 1/2  (46.5, 11.5): the middle of the side 1506/1605, crossed
        //           squarely (the line is not parallel to it).
        //  t = 0.55 (46.95, 11.75): inside 1605 (48, 11).
        //  t = 2/3  (48, 12.33): inside 1606 (48, 13), then 1707.
        // So the line zigzags 1505, 1506, 1605, 1606: four hexes between
        // the ends although the range is only 4.
        let steps = line_between(h("1404"), h("1707"), EVEN);
        assert_eq!(steps, [hx("1505"), hx("1506"), hx("1605"), hx("1606")]);
        assert_eq!(distance(h("1404"), h("1707"), EVEN), 4);
        let sides: Vec<String> =
            hexsides_crossed(h("1404"), h("1707"), EVEN).iter().map(|c| c.side.to_string()).collect();
        assert_eq!(sides, ["1404/1505", "1505/1506", "1506/1605", "1605/1606", "1606/1707"]);
        assert_eq!(entering_hexside(h("1404"), h("1707"), EVEN), Entry::Side(Direction::NW));
    }

    #[test]
    fn line_through_corners_worked_by_hand() {
        // 1404 -> 1906, EvenColumnsDown: centres (42, 9) and (57, 12), the
        // line is (42 + 15t, 9 + 3t). At t = 1/3 it passes exactly through
        // (47, 10), the corner where 1505 (45, 10), 1604 (48, 9) and 1605
        // (48, 11) meet, going from 1505 into 1605 and only touching 1604;
        // at t = 2/3 it passes through (52, 11), where 1705, 1706 and 1805
        // meet, going from 1705 into 1805 and touching 1706. Between, at
        // t = 1/2, it crosses the middle of the side 1605/1705.
        let (a, b) = (h("1404"), h("1906"));
        assert_eq!(line_between(a, b, EVEN), [hx("1505"), hx("1605"), hx("1705"), hx("1805")]);
        let crossed: Vec<(String, bool)> =
            hexsides_crossed(a, b, EVEN).iter().map(|c| (format!("{}>{}", c.from, c.to), c.at_corner)).collect();
        let expected = [
            ("1404>1505", false),
            ("1505>1605", true),
            ("1605>1705", false),
            ("1705>1805", true),
            ("1805>1906", false),
        ];
        let expected: Vec<(String, bool)> = expected.iter().map(|(s, c)| (s.to_string(), *c)).collect();
        assert_eq!(crossed, expected);
        // The touched corners do not block: 1604 and 1706 may be forest.
        assert!(!line_blocked(a, b, EVEN, |x| x == h("1604") || x == h("1706")));
        assert!(line_blocked(a, b, EVEN, |x| x == h("1605")));
    }

    #[test]
    fn lines_on_the_rim_of_the_grid() {
        // EvenColumnsDown: 0100 and 0300 are up columns in row 00; the line
        // between them runs along the north side of 0200, beyond which no
        // hex has an id.
        assert_eq!(line_between(h("0100"), h("0300"), EVEN), [LineStep::RimSpine(h("0200"), Direction::N)]);
        assert_eq!(line_between(h("0099"), h("0299"), EVEN), [LineStep::RimSpine(h("0199"), Direction::S)]);
        assert!(!line_blocked(h("0100"), h("0300"), EVEN, |_| true));
        assert_eq!(entering_hexside(h("0100"), h("0300"), EVEN).hexsides(h("0300"), EVEN).len(), 1);
        // No panics and sane chains between the extreme hexes.
        let corners = ["0000", "0001", "0100", "0099", "0199", "9900", "9999", "9801", "5000"];
        for layout in Layout::ALL {
            for a in corners.map(h) {
                for b in corners.map(h) {
                    check_line_properties(a, b, layout);
                }
            }
        }
    }

    // ----- line of sight: properties --------------------------------------

    /// Whether two consecutive items of `a, steps..., b` are adjacent.
    fn steps_adjacent(x: LineStep, y: LineStep, layout: Layout) -> bool {
        let hexes_of = |s: LineStep| match s {
            LineStep::Hex(h) => (h, None),
            LineStep::Spine(p, q) => (p, Some(q)),
            LineStep::RimSpine(p, _) => (p, None),
        };
        match (x, y) {
            (LineStep::Hex(p), LineStep::Hex(q)) => are_adjacent(p, q, layout),
            (LineStep::Hex(p), s) | (s, LineStep::Hex(p)) => {
                let (q1, q2) = hexes_of(s);
                are_adjacent(p, q1, layout) && q2.is_none_or(|q| are_adjacent(p, q, layout))
            }
            _ => false,
        }
    }

    fn check_line_properties(a: HexId, b: HexId, layout: Layout) {
        let steps = line_between(a, b, layout);
        let mut back = line_between(b, a, layout);
        back.reverse();
        assert_eq!(steps, back, "reversal {a} {b} {layout}");
        let mut chain = vec![LineStep::Hex(a)];
        chain.extend(steps.iter().copied());
        if a != b {
            chain.push(LineStep::Hex(b));
        }
        for w in chain.windows(2) {
            assert!(steps_adjacent(w[0], w[1], layout), "{a} {b} {layout}: {steps:?}");
        }
        let distinct: BTreeSet<_> = steps.iter().collect();
        assert_eq!(distinct.len(), steps.len());
        for s in &steps {
            if let LineStep::Spine(p, q) = s {
                assert!(p < q && are_adjacent(*p, *q, layout));
            }
            assert!(!s.hexes().contains(&a) && !s.hexes().contains(&b));
        }
        // Entry agrees with the last step.
        let entry = entering_hexside(a, b, layout);
        match (a == b, steps.last()) {
            (true, _) => assert_eq!(entry, Entry::SameHex),
            (false, None) => assert_eq!(Some(entry), direction_between(b, a, layout).map(Entry::Side)),
            (false, Some(LineStep::Hex(last))) => {
                assert_eq!(Some(entry), direction_between(b, *last, layout).map(Entry::Side))
            }
            (false, Some(LineStep::Spine(p, q))) => {
                let Entry::Corner(d1, d2) = entry else {
                    panic!("{a} {b}: {entry:?}");
                };
                assert_eq!(d1.clockwise(), d2);
                let got: BTreeSet<_> = [neighbour(b, d1, layout), neighbour(b, d2, layout)].into_iter().collect();
                assert_eq!(got, BTreeSet::from([Some(*p), Some(*q)]));
            }
            (false, Some(LineStep::RimSpine(..))) => {
                assert!(matches!(entry, Entry::Corner(..)));
            }
        }
        // Crossings: one per hex-to-hex passage of the chain.
        let crossed = hexsides_crossed(a, b, layout);
        let expected: Vec<(HexId, HexId)> = chain
            .windows(2)
            .filter_map(|w| match (w[0], w[1]) {
                (LineStep::Hex(p), LineStep::Hex(q)) => Some((p, q)),
                _ => None,
            })
            .collect();
        let got: Vec<(HexId, HexId)> = crossed.iter().map(|c| (c.from, c.to)).collect();
        assert_eq!(got, expected, "{a} {b} {layout}");
        for c in &crossed {
            assert_eq!(Some(c.side), Hexside::between(c.from, c.to, layout));
        }
    }

    #[test]
    fn line_properties_over_many_pairs() {
        for layout in Layout::ALL {
            let region: Vec<HexId> =
                (10..=20u8).flat_map(|c| (10..=19u8).filter_map(move |r| HexId::new(c, r))).collect();
            for &a in &region {
                for &b in &region {
                    check_line_properties(a, b, layout);
                }
            }
            for (a, b) in sample_hexes(40, 99).into_iter().zip(sample_hexes(40, 4242)) {
                check_line_properties(a, b, layout);
            }
        }
    }

    /// The hexes whose closed area holds the point `(px / n, py / n)` of
    /// the line-of-sight plane, each with whether the point is inside it.
    /// Uses the description of a hex as `|y| <= 1 and |x| + |y| <= 2`
    /// around its centre, independent of the half-plane code above.
    fn locate(px: i64, py: i64, n: i64, layout: Layout) -> Vec<(Dbl, bool)> {
        let mut out = Vec::new();
        let x_lo = (px - 2 * n).div_euclid(3 * n);
        let x_hi = (px + 2 * n).div_euclid(3 * n) + 1;
        let y_lo = (py - n).div_euclid(n) - 1;
        let y_hi = (py + n).div_euclid(n) + 1;
        for x in x_lo..=x_hi {
            for y in y_lo..=y_hi {
                let c = Dbl { x, y };
                if !c.is_centre(layout) {
                    continue;
                }
                let rx = (px - 3 * x * n).abs();
                let ry = (py - y * n).abs();
                if ry <= n && rx + ry <= 2 * n {
                    out.push((c, ry < n && rx + ry < 2 * n));
                }
            }
        }
        out
    }

    /// Walks the segment in tiny exact steps and checks that what it finds
    /// is exactly `line_between`, in the same order. Breakpoints along the
    /// line are fractions with denominators at most 2S (S = |dx| + |dy|),
    /// so pieces are at least 1/(4 S^2) long and 8 S^2 samples see each.
    fn check_by_sampling(a: HexId, b: HexId, layout: Layout) {
        if a == b {
            assert!(line_between(a, b, layout).is_empty());
            return;
        }
        let da = Dbl::of(a, layout);
        let db = Dbl::of(b, layout);
        let seg = Segment::new(da, db);
        let s = seg.d.0.abs() + seg.d.1.abs();
        let n = 8 * s * s;
        let mut seen: Vec<LineStep> = Vec::new();
        for k in 0..=n {
            let px = seg.p0.0 * n + seg.d.0 * k;
            let py = seg.p0.1 * n + seg.d.1 * k;
            let found = locate(px, py, n, layout);
            let step = match found.as_slice() {
                [(c, true)] => {
                    if *c == da || *c == db {
                        continue;
                    }
                    LineStep::Hex(c.hex(layout).unwrap())
                }
                [(c1, false), (c2, false)] => {
                    let dir = c1.direction_to(*c2).unwrap();
                    let i = dir.index();
                    let e = sub(corner(c1.centre(), i + 1), corner(c1.centre(), i));
                    if cross(seg.d, e) != 0 {
                        continue; // crossing the side squarely
                    }
                    let (p, q) = (c1.hex(layout).unwrap(), c2.hex(layout).unwrap());
                    LineStep::Spine(p.min(q), p.max(q))
                }
                [_, _, _] => continue, // a corner
                other => panic!("{a} {b}: point in {other:?}"),
            };
            if seen.last() != Some(&step) {
                seen.push(step);
            }
        }
        assert_eq!(line_between(a, b, layout), seen, "{a} {b} {layout}");
    }

    #[test]
    fn line_matches_exact_sampling() {
        for layout in Layout::ALL {
            for a in [h("1505"), h("1405")] {
                for b in hexes_within(a, 6, layout) {
                    check_by_sampling(a, b, layout);
                }
            }
            check_by_sampling(h("1404"), h("2412"), layout);
            check_by_sampling(h("1404"), h("1906"), layout);
            check_by_sampling(h("3123"), h("4214"), layout);
        }
    }

    #[test]
    fn corner_entry_is_reported_clockwise() {
        for layout in Layout::ALL {
            for (i, d) in Direction::ALL.into_iter().enumerate() {
                // Walk two steps: along d, then along the next clockwise
                // direction: the far hex sits on a spine line.
                let a = h("5050");
                let d2 = Direction::from_index(i + 1);
                let b = neighbour(neighbour(a, d, layout).unwrap(), d2, layout).unwrap();
                match entering_hexside(a, b, layout) {
                    Entry::Corner(c1, c2) => {
                        assert_eq!(c1.clockwise(), c2);
                        assert_eq!(Entry::Corner(c1, c2).hexsides(b, layout).len(), 2);
                    }
                    other => panic!("{a} {b}: {other:?}"),
                }
            }
        }
    }

    #[test]
    fn display_of_steps() {
        assert_eq!(hx("1405").to_string(), "1405");
        assert_eq!(spine("1504", "1505").to_string(), "spine 1504/1505");
        assert_eq!(LineStep::RimSpine(h("0200"), Direction::N).to_string(), "spine 0200-N");
    }
}
