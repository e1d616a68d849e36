//! The map picture: an SVG of the board as a wargamer knows it — terrain
//! colours and symbols, hexside features, roads, hex numbers, places, entry
//! hexes, and counters drawn as counters, stacked; above them, what a step
//! did: movement arrows and combat markers.
//!
//! All geometry is integer: the same map and counters give the same bytes
//! on any machine. Flat-topped hexes 80 px corner to corner and 70 px flat to
//! flat (a regular hex would be 69.3; the difference is invisible and keeps
//! every coordinate whole).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use crate::base::hex::{direction_between, Direction, HexId};
use crate::base::hexmap::{arrow_colour, Arrow, CounterView, Map, Marker, MarkerKind, RoadKind, Work};

const R: i32 = 40; // centre to corner
const HALF_H: i32 = 35; // centre to flat side
const COL_STEP: i32 = 60;
const MARGIN: i32 = 24;
const TITLE_H: i32 = 40;

/// What to draw.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub title: Option<String>,
    /// Draw only the rectangle of columns and rows spanned by these two hexes.
    pub region: Option<(HexId, HexId)>,
    pub highlight: BTreeSet<HexId>,
    /// Movement arrows, drawn above the counters.
    pub arrows: Vec<Arrow>,
    /// Combat markers, drawn above the arrows.
    pub markers: Vec<Marker>,
    /// The game's works, drawn under the counters, with a legend.
    pub works: Vec<Work>,
}

/// The colour of a terrain id, and whether it gets a symbol.
fn terrain_fill(id: &str) -> &'static str {
    match id {
        "clear" => "#efe6c8",
        "forest" => "#7da668",
        "light-forest" => "#b4cf92",
        "swamp" => "#a9cbb9",
        "rice-field" => "#dbe7a3",
        "city" | "town" => "#cfae8c",
        "cemetery" => "#ddd6c6",
        "river" | "water" => "#84b6dc",
        _ => "#d9d9d9",
    }
}

fn xml(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains(['&', '<', '>', '"']) {
        return std::borrow::Cow::Borrowed(s);
    }
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").into()
}

#[derive(Clone, Copy)]
struct Frame {
    first_col: u8,
    last_col: u8,
    first_row: u8,
    last_row: u8,
    layout: crate::base::hex::Layout,
}

impl Frame {
    fn centre(&self, h: HexId) -> (i32, i32) {
        let col = h.col() as i32 - self.first_col as i32;
        let row = h.row() as i32 - self.first_row as i32;
        let x = MARGIN + R + col * COL_STEP;
        let shift = if self.layout.column_is_down(h.col()) { HALF_H } else { 0 };
        (x, MARGIN + TITLE_H + HALF_H + row * 2 * HALF_H + shift)
    }

    fn contains(&self, h: HexId) -> bool {
        (self.first_col..=self.last_col).contains(&h.col()) && (self.first_row..=self.last_row).contains(&h.row())
    }

    fn size(&self) -> (i32, i32) {
        let cols = (self.last_col - self.first_col) as i32 + 1;
        let rows = (self.last_row - self.first_row) as i32 + 1;
        (2 * MARGIN + 2 * R + (cols - 1) * COL_STEP, 2 * MARGIN + TITLE_H + rows * 2 * HALF_H + HALF_H)
    }
}

/// The six corners of a hex, clockwise from the east corner.
fn corners((x, y): (i32, i32)) -> [(i32, i32); 6] {
    [
        (x + R, y),
        (x + R / 2, y + HALF_H),
        (x - R / 2, y + HALF_H),
        (x - R, y),
        (x - R / 2, y - HALF_H),
        (x + R / 2, y - HALF_H),
    ]
}

/// The two corners that bound the side of a hex facing `dir`.
fn side_ends(c: (i32, i32), dir: Direction) -> ((i32, i32), (i32, i32)) {
    let k = corners(c);
    match dir {
        Direction::N => (k[4], k[5]),
        Direction::NE => (k[5], k[0]),
        Direction::SE => (k[0], k[1]),
        Direction::S => (k[1], k[2]),
        Direction::SW => (k[2], k[3]),
        Direction::NW => (k[3], k[4]),
    }
}

/// `x,y x,y ...`: the points of a polygon or polyline.
fn points(ps: &[(i32, i32)]) -> String {
    let mut out = String::with_capacity(ps.len() * 8);
    for (i, (x, y)) in ps.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        push_int(&mut out, *x);
        out.push(',');
        push_int(&mut out, *y);
    }
    out
}

/// `n` in decimal, as `{n}` formats it, without the formatting machinery
/// (a map writes tens of thousands of coordinates).
fn push_int(out: &mut String, n: i32) {
    let mut digits = [0u8; 11];
    let mut at = digits.len();
    let mut rest = n.unsigned_abs();
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    if n < 0 {
        at -= 1;
        digits[at] = b'-';
    }
    out.push_str(std::str::from_utf8(&digits[at..]).unwrap_or_default());
}

/// The frame of the whole map, or of a region of it.
fn frame(map: &Map, region: Option<(HexId, HexId)>) -> Frame {
    let (mut c0, mut c1, mut r0, mut r1) = (map.columns.first, map.columns.last, map.rows.first, map.rows.last);
    if let Some((a, b)) = region {
        c0 = a.col().min(b.col()).max(c0);
        c1 = a.col().max(b.col()).min(c1);
        r0 = a.row().min(b.row()).max(r0);
        r1 = a.row().max(b.row()).min(r1);
    }
    Frame { first_col: c0, last_col: c1.max(c0), first_row: r0, last_row: r1.max(r0), layout: map.layout }
}

/// Render the map (and counters) as an SVG document.
pub fn render(map: &Map, counters: &[CounterView], options: &Options) -> String {
    render_on(map, None, counters, options)
}

/// The layers of the whole map that no game changes (terrain, zones,
/// roads, hexsides, hex numbers, entry hexes): what [`render_on`] draws
/// first. [`picture`] draws them once per board and process.
pub fn base(map: &Map) -> String {
    base_layers(map, &frame(map, None))
}

/// The [`base`] layers of the board `key` names, drawn at its first use in
/// the process: every map of a game draws its counters over them.
/// Kept as drawn (an `Arc<String>`, not an `Arc<str>`, which would copy
/// its quarter megabyte once more).
fn base_of(key: &str, map: &Map) -> std::sync::Arc<String> {
    static DRAWN: std::sync::Mutex<BTreeMap<String, std::sync::Arc<String>>> = std::sync::Mutex::new(BTreeMap::new());
    let mut drawn = DRAWN.lock().unwrap_or_else(|e| e.into_inner());
    drawn.entry(key.to_string()).or_insert_with(|| std::sync::Arc::new(base(map))).clone()
}

/// Draw the [`base`] layers of the board `key` names now, for the
/// pictures drawn later in the process ([`picture`] waits for them if they
/// are being drawn when it needs them).
pub fn draw_base(key: &str, map: &Map) {
    base_of(key, map);
}

/// Draw a system's [`Picture`] of the map, titled.
pub fn picture(picture: crate::base::hexmap::Picture<'_>, title: String) -> String {
    let base = base_of(&picture.key, picture.map);
    let options = Options {
        title: Some(title),
        arrows: picture.arrows,
        markers: picture.markers,
        works: picture.works,
        ..Options::default()
    };
    render_on(picture.map, Some(&base), &picture.counters, &options)
}

/// [`render`], with `base` the whole map's [`base`] already drawn (used
/// unless `options` asks for a region). The same bytes as [`render`].
pub fn render_on(map: &Map, base: Option<&str>, counters: &[CounterView], options: &Options) -> String {
    let frame = frame(map, options.region);
    let (width, height) = frame.size();
    // Room for the base layers and the counters above them, made once.
    let mut svg = String::with_capacity(base.map_or(256 * 1024, str::len) + 64 * 1024);
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Verdana, sans-serif">"#
    );
    let _ = writeln!(svg, r##"<rect width="{width}" height="{height}" fill="#f7f3ea"/>"##);
    if let Some(title) = &options.title {
        let _ = writeln!(
            svg,
            r##"<text x="{MARGIN}" y="{}" font-size="22" font-weight="bold" fill="#222">{}</text>"##,
            MARGIN + 22,
            xml(title)
        );
    }
    match base.filter(|_| options.region.is_none()) {
        Some(layers) => svg.push_str(layers),
        None => svg.push_str(&base_layers(map, &frame)),
    }
    overlay_layers(&mut svg, map, &frame, counters, options);
    svg
}

/// The game's works (Savannah 4.4, 4.5, 4.6) over the base layers, and a
/// legend of the kinds drawn; nothing when there are none.
fn works_layer(svg: &mut String, map: &Map, frame: &Frame, works: &[Work]) {
    if works.is_empty() {
        return;
    }
    let side = |a: HexId, b: HexId| direction_between(a, b, map.layout).map(|dir| side_ends(frame.centre(a), dir));
    let _ = writeln!(svg, r#"<g id="works" stroke-linecap="round">"#);
    for w in works {
        match w {
            Work::Destroyed { hex } if frame.contains(*hex) => {
                let _ = writeln!(
                    svg,
                    r##"<polygon points="{}" fill="#3a2a20" fill-opacity="0.55" stroke="#3a2a20" stroke-width="2"><title>{hex}: destroyed city hex</title></polygon>"##,
                    points(&corners(frame.centre(*hex)))
                );
            }
            Work::Marker { hex, toward } if frame.contains(*hex) => {
                // Savannah 4.4: a marker's hexsides are chosen when it is
                // flipped; one under construction has none yet.
                let names: Vec<String> = toward.iter().map(HexId::to_string).collect();
                let facing = if names.is_empty() { String::new() } else { format!(" (toward {})", names.join(", ")) };
                let _ = write!(svg, r#"<g><title>{hex}: siege works under construction{facing}</title>"#);
                for t in toward {
                    if let Some(((x1, y1), (x2, y2))) = side(*hex, *t) {
                        let _ = write!(
                            svg,
                            r##"<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#1d3d8f" stroke-width="4" stroke-dasharray="4 4"/>"##
                        );
                    }
                }
                let (x, y) = frame.centre(*hex);
                let _ = writeln!(
                    svg,
                    r##"<rect x="{}" y="{}" width="14" height="14" fill="#fff" stroke="#1d3d8f" stroke-width="2"/></g>"##,
                    x - 7,
                    y + 12
                );
            }
            Work::Completed { hex, toward } if frame.contains(*hex) || frame.contains(*toward) => {
                if let Some(((x1, y1), (x2, y2))) = side(*hex, *toward) {
                    let _ = writeln!(
                        svg,
                        r##"<g><title>{hex}/{toward}: siege works</title><line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#1d3d8f" stroke-width="9"/><line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#fff" stroke-width="3" stroke-dasharray="6 4"/></g>"##
                    );
                }
            }
            Work::Breach { a, b } if frame.contains(*a) || frame.contains(*b) => {
                if let Some(((x1, y1), (x2, y2))) = side(*a, *b) {
                    let (x, y) = ((x1 + x2) / 2, (y1 + y2) / 2);
                    let _ = writeln!(
                        svg,
                        r##"<g><title>{a}/{b}: breached</title><line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#e01010" stroke-width="4"/><line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#e01010" stroke-width="4"/></g>"##,
                        x - 7,
                        y - 7,
                        x + 7,
                        y + 7,
                        x - 7,
                        y + 7,
                        x + 7,
                        y - 7
                    );
                }
            }
            _ => {}
        }
    }
    let _ = writeln!(svg, "</g>");
    // The legend: one line per kind drawn, top right.
    let kinds: [(&str, &str); 4] = [
        ("completed", "siege works"),
        ("marker", "siege works under construction"),
        ("breach", "breached hexside"),
        ("destroyed", "destroyed city hex"),
    ];
    let has = |k: &str| {
        works.iter().any(|w| {
            matches!(
                (k, w),
                ("completed", Work::Completed { .. })
                    | ("marker", Work::Marker { .. })
                    | ("breach", Work::Breach { .. })
                    | ("destroyed", Work::Destroyed { .. })
            )
        })
    };
    let shown: Vec<(&str, &str)> = kinds.into_iter().filter(|(k, _)| has(k)).collect();
    let (width, _) = frame.size();
    let (x0, y0) = (width - MARGIN - 260, MARGIN + 34);
    let _ = writeln!(svg, r#"<g id="legend" font-size="13">"#);
    let _ = writeln!(
        svg,
        r##"<rect x="{x0}" y="{y0}" width="260" height="{}" fill="#fff" fill-opacity="0.9" stroke="#222"/>"##,
        12 + 22 * shown.len()
    );
    for (i, (kind, words)) in shown.iter().enumerate() {
        let y = y0 + 18 + 22 * i32::try_from(i).unwrap_or(0);
        let (x1, x2) = (x0 + 10, x0 + 44);
        let sample = match *kind {
            "completed" => format!(
                r##"<line x1="{x1}" y1="{y}" x2="{x2}" y2="{y}" stroke="#1d3d8f" stroke-width="9"/><line x1="{x1}" y1="{y}" x2="{x2}" y2="{y}" stroke="#fff" stroke-width="3" stroke-dasharray="6 4"/>"##
            ),
            "marker" => format!(
                r##"<line x1="{x1}" y1="{y}" x2="{x2}" y2="{y}" stroke="#1d3d8f" stroke-width="4" stroke-dasharray="4 4"/>"##
            ),
            "breach" => format!(
                r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#e01010" stroke-width="4"/><line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#e01010" stroke-width="4"/>"##,
                x1 + 10,
                y - 7,
                x1 + 24,
                y + 7,
                x1 + 10,
                y + 7,
                x1 + 24,
                y - 7
            ),
            _ => format!(
                r##"<rect x="{}" y="{}" width="24" height="14" fill="#3a2a20" fill-opacity="0.55" stroke="#3a2a20"/>"##,
                x1 + 5,
                y - 7
            ),
        };
        let _ = writeln!(svg, r##"{sample}<text x="{}" y="{}" fill="#111">{words}</text>"##, x2 + 10, y + 5);
    }
    let _ = writeln!(svg, "</g>");
}

/// The layers of `frame` that no game changes.
fn base_layers(map: &Map, frame: &Frame) -> String {
    let hexes: Vec<HexId> = map.terrain.keys().copied().filter(|h| frame.contains(*h)).collect();
    let mut svg = String::with_capacity(256 * 1024);

    // Terrain.
    let _ = writeln!(svg, r##"<g id="terrain" stroke="#8c8468" stroke-width="1">"##);
    for h in &hexes {
        let t = &map.terrain[h];
        // As `<polygon points="{points}" fill="{fill}"><title>{h} {t}</title></polygon>`, written piece by piece.
        svg.push_str(r#"<polygon points=""#);
        svg.push_str(&points(&corners(frame.centre(*h))));
        svg.push_str(r#"" fill=""#);
        svg.push_str(terrain_fill(t));
        let _ = write!(svg, r#""><title>{h} "#);
        svg.push_str(&xml(t));
        svg.push_str("</title></polygon>\n");
    }
    let _ = writeln!(svg, "</g>");
    let _ = writeln!(svg, r#"<g id="terrain-symbols" fill="none" stroke-linecap="round">"#);
    for h in &hexes {
        let (x, y) = frame.centre(*h);
        match map.terrain[h].as_str() {
            "forest" | "light-forest" => {
                let fill = if map.terrain[h] == "forest" { "#3f6e35" } else { "#6f9a55" };
                for (dx, dy) in [(-14, -4), (12, -6), (0, 12)] {
                    let _ =
                        writeln!(svg, r#"<circle cx="{}" cy="{}" r="8" fill="{fill}" stroke="none"/>"#, x + dx, y + dy);
                }
            }
            "swamp" => {
                for (dx, dy) in [(-16, 0), (10, -10), (4, 14)] {
                    let (bx, by) = (x + dx, y + dy);
                    let _ = writeln!(
                        svg,
                        r##"<path d="M{} {by} h12 M{} {by} l-3 -7 M{} {by} v-8 M{} {by} l3 -7" stroke="#3e7a63" stroke-width="2"/>"##,
                        bx - 6,
                        bx - 3,
                        bx,
                        bx + 3
                    );
                }
            }
            "rice-field" => {
                for dy in [-12, 0, 12] {
                    let _ = writeln!(
                        svg,
                        r##"<path d="M{} {} h36" stroke="#8da24a" stroke-width="2" stroke-dasharray="3 3"/>"##,
                        x - 18,
                        y + dy
                    );
                }
            }
            "city" | "town" => {
                for (dx, dy) in [(-16, -12), (2, -12), (-8, 4), (10, 4)] {
                    let _ = writeln!(
                        svg,
                        r##"<rect x="{}" y="{}" width="12" height="10" fill="#8a5c3c" stroke="none"/>"##,
                        x + dx,
                        y + dy
                    );
                }
            }
            "cemetery" => {
                for dx in [-12, 0, 12] {
                    let _ = writeln!(
                        svg,
                        r##"<path d="M{} {} v14 M{} {} h8" stroke="#555" stroke-width="2"/>"##,
                        x + dx,
                        y - 6,
                        x + dx - 4,
                        y - 2
                    );
                }
            }
            _ => {}
        }
    }
    let _ = writeln!(svg, "</g>");

    // Zones drawn as outlines.
    for zone in &map.zones {
        let style = match zone.id.as_str() {
            "naval-bombardment-zone" => r##"stroke="#d0202a" stroke-width="3" stroke-dasharray="10 6""##,
            "savannah-defensive-perimeter" => continue,
            "covered-way" => {
                let pts: Vec<(i32, i32)> =
                    zone.hexes.iter().filter(|h| frame.contains(**h)).map(|h| frame.centre(*h)).collect();
                if pts.len() > 1 {
                    let _ = writeln!(
                        svg,
                        r##"<polyline id="covered-way" points="{}" fill="none" stroke="#2d5c2d" stroke-width="4" stroke-dasharray="2 6" stroke-linecap="round"><title>{}</title></polyline>"##,
                        points(&pts),
                        xml(&zone.name)
                    );
                }
                continue;
            }
            _ => r##"stroke="#7b3fa0" stroke-width="2" stroke-dasharray="4 4""##,
        };
        let set: BTreeSet<HexId> = zone.hexes.iter().copied().collect();
        let _ =
            writeln!(svg, r#"<g id="zone-{}" fill="none" {style}><title>{}</title>"#, xml(&zone.id), xml(&zone.name));
        for h in zone.hexes.iter().filter(|h| frame.contains(**h)) {
            for dir in Direction::ALL {
                let outside = crate::base::hex::neighbour(*h, dir, map.layout).is_none_or(|n| !set.contains(&n));
                if outside {
                    let (a, b) = side_ends(frame.centre(*h), dir);
                    let _ = writeln!(svg, r#"<line x1="{}" y1="{}" x2="{}" y2="{}"/>"#, a.0, a.1, b.0, b.1);
                }
            }
        }
        let _ = writeln!(svg, "</g>");
    }

    // Roads, tracks and paths: centre to centre.
    let _ = writeln!(svg, r#"<g id="roads" fill="none" stroke-linecap="round" stroke-linejoin="round">"#);
    let mut sorted_roads: Vec<_> = map.roads.iter().collect();
    sorted_roads.sort_by_key(|r| std::cmp::Reverse(r.kind));
    for road in sorted_roads {
        let style = match road.kind {
            RoadKind::Road => r##"stroke="#7a4a22" stroke-width="6""##,
            RoadKind::Track => r##"stroke="#7a4a22" stroke-width="4" stroke-dasharray="12 6""##,
            RoadKind::Path => r##"stroke="#7a4a22" stroke-width="3" stroke-dasharray="3 5""##,
        };
        let pts: Vec<(i32, i32)> =
            road.hexes.iter().filter(|h| frame.contains(**h)).map(|h| frame.centre(*h)).collect();
        if pts.len() > 1 {
            let name = road.name.as_deref().unwrap_or("");
            let _ =
                writeln!(svg, r#"<polyline points="{}" {style}><title>{}</title></polyline>"#, points(&pts), xml(name));
        }
    }
    let _ = writeln!(svg, "</g>");

    // Hexside features.
    let _ = writeln!(svg, r#"<g id="hexsides" stroke-linecap="round">"#);
    for (side, features) in &map.hexsides {
        let (a, b) = side.hexes();
        if !frame.contains(a) && !frame.contains(b) {
            continue;
        }
        let Some(dir) = direction_between(a, b, map.layout) else { continue };
        let ((x1, y1), (x2, y2)) = side_ends(frame.centre(a), dir);
        let title = features.iter().cloned().collect::<Vec<_>>().join(", ");
        let _ = write!(svg, r#"<g><title>{side}: {}</title>"#, xml(&title));
        // Broad features first, so that narrow ones stay visible on top.
        let order = ["siege-works", "dyke", "creek", "ford", "abatis", "revetment", "redoubt", "slope"];
        let mut drawn: BTreeSet<&str> = BTreeSet::new();
        for f in order.iter().copied().chain(features.iter().map(String::as_str)) {
            if !features.contains(f) || !drawn.insert(f) {
                continue;
            }
            let style = match f {
                "siege-works" => r##"stroke="#1d3d8f" stroke-width="9""##,
                "dyke" => r##"stroke="#556b2f" stroke-width="6""##,
                "creek" => r##"stroke="#2f6fbf" stroke-width="5""##,
                "ford" => r##"stroke="#2f6fbf" stroke-width="5" stroke-dasharray="5 5""##,
                "abatis" => r##"stroke="#8b1a1a" stroke-width="5" stroke-dasharray="3 3""##,
                "revetment" => r##"stroke="#5a3a1a" stroke-width="7""##,
                "redoubt" => r##"stroke="#111" stroke-width="8""##,
                "slope" => r##"stroke="#8a5a2b" stroke-width="3""##,
                _ => r##"stroke="#ff00ff" stroke-width="3""##,
            };
            let _ = write!(svg, r#"<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" {style}/>"#);
            if f == "siege-works" {
                let _ = write!(
                    svg,
                    r##"<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#fff" stroke-width="3" stroke-dasharray="6 4"/>"##
                );
            }
            if f == "slope" {
                // Hachures point down the slope, away from the up hex.
                let up = map.slope_up(*side).unwrap_or(a);
                let down = if up == a { b } else { a };
                let (dx, dy) = {
                    let (cu, cd) = (frame.centre(up), frame.centre(down));
                    ((cd.0 - cu.0) / 7, (cd.1 - cu.1) / 7)
                };
                for k in 1..=3 {
                    let (px, py) = (x1 + (x2 - x1) * k / 4, y1 + (y2 - y1) * k / 4);
                    let _ = write!(
                        svg,
                        r##"<line x1="{px}" y1="{py}" x2="{}" y2="{}" stroke="#8a5a2b" stroke-width="2"/>"##,
                        px + dx,
                        py + dy
                    );
                }
            }
        }
        let _ = writeln!(svg, "</g>");
    }
    let _ = writeln!(svg, "</g>");

    // Hex numbers.
    let _ = writeln!(svg, r##"<g id="hex-numbers" font-size="10" fill="#4a4536" text-anchor="middle">"##);
    for h in &hexes {
        let (x, y) = frame.centre(*h);
        // As `<text x="{x}" y="{y - 24}">{h}</text>`, written piece by piece.
        svg.push_str(r#"<text x=""#);
        push_int(&mut svg, x);
        svg.push_str(r#"" y=""#);
        push_int(&mut svg, y - 24);
        let _ = writeln!(svg, r#"">{h}</text>"#);
    }
    let _ = writeln!(svg, "</g>");

    // Entry hexes and headquarters.
    let _ = writeln!(svg, r#"<g id="entries" text-anchor="middle" font-weight="bold">"#);
    for (id, list) in &map.entry_hexes {
        for h in list.iter().filter(|h| frame.contains(**h)) {
            let (x, y) = frame.centre(*h);
            let _ = writeln!(
                svg,
                r##"<circle cx="{x}" cy="{}" r="13" fill="#fff" stroke="#222" stroke-width="2"/><text x="{x}" y="{}" font-size="11" fill="#222">{}</text>"##,
                y + 20,
                y + 24,
                xml(id)
            );
        }
    }
    for (army, h) in &map.headquarters {
        if frame.contains(*h) {
            let (x, y) = frame.centre(*h);
            let _ = writeln!(
                svg,
                r##"<rect x="{}" y="{}" width="30" height="16" fill="#fff" stroke="#222"/><text x="{x}" y="{}" font-size="11" fill="#222">HQ<title>{} HQ</title></text>"##,
                x - 15,
                y + 10,
                y + 22,
                xml(army)
            );
        }
    }
    let _ = writeln!(svg, "</g>");
    svg
}

/// What a game and the options add over the base layers: highlights,
/// counters, arrows, markers, place names; and the document's end.
fn overlay_layers(svg: &mut String, map: &Map, frame: &Frame, counters: &[CounterView], options: &Options) {
    let frame = *frame;
    // Highlighted hexes.
    if !options.highlight.is_empty() {
        let _ = writeln!(svg, r##"<g id="highlight" fill="none" stroke="#e0189a" stroke-width="5">"##);
        for h in options.highlight.iter().filter(|h| frame.contains(**h)) {
            let _ = writeln!(svg, r#"<polygon points="{}"/>"#, points(&corners(frame.centre(*h))));
        }
        let _ = writeln!(svg, "</g>");
    }

    works_layer(svg, map, &frame, &options.works);

    // Issue 16: arrows under the counters, so that no arrow hides one; each
    // stops short of the counter it leads to, its head beside it.
    draw_arrows(svg, &frame, &options.arrows);

    // Counters, stacked: each one a little up and to the right of the one below.
    let mut stacks: BTreeMap<HexId, Vec<&CounterView>> = BTreeMap::new();
    for c in counters {
        stacks.entry(c.hex).or_default().push(c);
    }
    let _ = writeln!(svg, r#"<g id="counters" text-anchor="middle">"#);
    for (hex, stack) in stacks.iter().filter(|(h, _)| frame.contains(**h)) {
        let (x, y) = frame.centre(*hex);
        let shown = stack.len().min(4);
        let names: Vec<&str> = stack.iter().map(|c| c.label.as_str()).collect();
        let _ = writeln!(svg, r#"<g class="stack"><title>{hex}: {}</title>"#, xml(&names.join(", ")));
        for (i, c) in stack.iter().take(shown).enumerate() {
            let off = i as i32 * 5;
            let (cx, cy) = (x - 17 + off - (shown as i32 - 1) * 2, y - 14 - off + (shown as i32 - 1) * 2);
            let _ = write!(
                svg,
                r##"<rect x="{cx}" y="{cy}" width="34" height="34" rx="3" fill="{}" stroke="#222" stroke-width="1.5"/>"##,
                xml(&c.fill)
            );
            if let Some(stripe) = &c.stripe {
                let _ = write!(
                    svg,
                    r#"<rect x="{}" y="{}" width="32" height="5" fill="{}"/>"#,
                    cx + 1,
                    cy + 1,
                    xml(stripe)
                );
            }
            if c.leader {
                let _ = write!(
                    svg,
                    r##"<circle cx="{}" cy="{}" r="4" fill="#f2c200" stroke="#222" stroke-width="0.8"/>"##,
                    cx + 27,
                    cy + 12
                );
            }
            let _ = write!(
                svg,
                r##"<text x="{}" y="{}" font-size="8" fill="#111">{}</text>"##,
                cx + 17,
                cy + 16,
                xml(&c.label)
            );
            let _ = writeln!(
                svg,
                r##"<text x="{}" y="{}" font-size="9" font-weight="bold" fill="#111">{}</text>"##,
                cx + 17,
                cy + 29,
                xml(&c.values)
            );
            for (m, marker) in c.markers.iter().enumerate() {
                let _ = writeln!(
                    svg,
                    r##"<rect x="{}" y="{}" width="12" height="12" fill="#c00" stroke="#fff"/><text x="{}" y="{}" font-size="9" fill="#fff" font-weight="bold">{}</text>"##,
                    cx + 24,
                    cy + 22 - m as i32 * 13,
                    cx + 30,
                    cy + 31 - m as i32 * 13,
                    xml(marker)
                );
            }
        }
        if stack.len() > 1 {
            let _ = writeln!(
                svg,
                r##"<circle cx="{}" cy="{}" r="8" fill="#222"/><text x="{}" y="{}" font-size="10" fill="#fff" font-weight="bold">{}</text>"##,
                x + 24,
                y + 22,
                x + 24,
                y + 26,
                stack.len()
            );
        }
        let _ = writeln!(svg, "</g>");
    }
    let _ = writeln!(svg, "</g>");

    draw_markers(svg, &frame, &options.markers);
    draw_key(svg, &frame, counters, &options.arrows, &options.markers);

    // Place names last, with a halo, so they read over everything.
    let _ = writeln!(
        svg,
        r##"<g id="places" font-size="14" font-weight="bold" text-anchor="middle" fill="#1a1a1a" stroke="#fff" stroke-width="4" paint-order="stroke">"##
    );
    for place in &map.places {
        let inside: Vec<(i32, i32)> =
            place.hexes.iter().filter(|h| frame.contains(**h)).map(|h| frame.centre(*h)).collect();
        if inside.is_empty() {
            continue;
        }
        let n = inside.len() as i32;
        let (sx, sy) = inside.iter().fold((0, 0), |(a, b), (x, y)| (a + x, b + y));
        let _ = writeln!(svg, r#"<text x="{}" y="{}">{}</text>"#, sx / n, sy / n + 34, xml(&place.name));
    }
    let _ = writeln!(svg, "</g>");
    svg.push_str("</svg>\n");
}

/// The integer square root (the largest r with r * r <= n).
fn isqrt(n: i64) -> i64 {
    if n < 2 {
        return n.max(0);
    }
    let mut r = (n as f64).sqrt() as i64;
    while r * r > n {
        r -= 1;
    }
    while (r + 1) * (r + 1) <= n {
        r += 1;
    }
    r
}

/// How far short of the last hex's centre an arrow's tip stops: past the
/// edge of the counters stacked there (34 px wide, offset up to 6 px), so
/// that the head shows beside them.
const ARROW_STOP: i64 = 26;

/// Arrows: a dark outline under a coloured line, then the head. The line
/// stops at the head's base so that its round end does not blunt the tip;
/// the tip stops [`ARROW_STOP`] short of the last hex's centre (drawn under
/// the counters, an arrow to a counter would otherwise end under it).
fn draw_arrows(svg: &mut String, frame: &Frame, arrows: &[Arrow]) {
    if arrows.is_empty() {
        return;
    }
    const HEAD: i64 = 20; // tip to base
    const WING: i64 = 10; // base centre to each barb
    let _ = writeln!(svg, r#"<g id="arrows" fill="none" stroke-linecap="round" stroke-linejoin="round">"#);
    for arrow in arrows {
        let mut pts: Vec<(i32, i32)> = Vec::new();
        for h in arrow.path.iter().filter(|h| frame.contains(**h)) {
            let c = frame.centre(*h);
            if pts.last() != Some(&c) {
                pts.push(c);
            }
        }
        if pts.len() < 2 {
            continue;
        }
        let (cx, cy) = pts[pts.len() - 1];
        let (px, py) = pts[pts.len() - 2];
        let (dx, dy) = (i64::from(cx - px), i64::from(cy - py));
        let whole = isqrt(dx * dx + dy * dy).max(1);
        // The tip, short of the centre (never behind the previous centre).
        let stop = ARROW_STOP.min(whole / 2);
        let (tx, ty) = ((i64::from(cx) - dx * stop / whole) as i32, (i64::from(cy) - dy * stop / whole) as i32);
        let (dx, dy) = (i64::from(tx - px), i64::from(ty - py));
        let len = isqrt(dx * dx + dy * dy).max(1);
        let head = HEAD.min(len);
        let (bx, by) = (i64::from(tx) - dx * head / len, i64::from(ty) - dy * head / len);
        let (wx, wy) = (-dy * WING / len, dx * WING / len);
        let barbs = [(bx + wx, by + wy), (i64::from(tx), i64::from(ty)), (bx - wx, by - wy)];
        let head_points = barbs.iter().map(|(x, y)| format!("{x},{y}")).collect::<Vec<_>>().join(" ");
        let last = pts.len() - 1;
        pts[last] = (bx as i32, by as i32);
        let colour = xml(&arrow_colour(&arrow.army)).into_owned();
        let _ = write!(svg, r#"<g class="arrow" data-army="{}">"#, xml(&arrow.army));
        if let Some(label) = &arrow.label {
            let _ = write!(svg, "<title>{}</title>", xml(label));
        }
        let line = points(&pts);
        let _ = writeln!(
            svg,
            r##"<polyline points="{line}" stroke="#1a1a1a" stroke-width="10"/><polyline points="{line}" stroke="{colour}" stroke-width="5"/><polygon points="{head_points}" fill="{colour}" stroke="#1a1a1a" stroke-width="2.5"/></g>"##
        );
    }
    let _ = writeln!(svg, "</g>");
}

/// Issue 16: the map's key, bottom left: a line for the leader's dot and
/// the stack's count when counters show them, for each army whose arrows
/// are drawn and each kind of marker drawn; nothing when none is drawn.
fn draw_key(svg: &mut String, frame: &Frame, counters: &[CounterView], arrows: &[Arrow], markers: &[Marker]) {
    let shown: Vec<&CounterView> = counters.iter().filter(|c| frame.contains(c.hex)).collect();
    let leaders = shown.iter().any(|c| c.leader);
    let stacks = shown.iter().enumerate().any(|(i, c)| shown[..i].iter().any(|o| o.hex == c.hex));
    let mut armies: Vec<&str> = arrows
        .iter()
        .filter(|a| a.path.iter().filter(|h| frame.contains(**h)).count() >= 2)
        .map(|a| a.army.as_str())
        .collect();
    armies.sort_unstable();
    armies.dedup();
    let kinds: Vec<MarkerKind> =
        MarkerKind::ALL.into_iter().filter(|k| markers.iter().any(|m| m.kind == *k && frame.contains(m.hex))).collect();
    let plain = usize::from(leaders) + usize::from(stacks);
    let lines = plain + armies.len() + kinds.len();
    if lines == 0 {
        return;
    }
    const WIDTH: i32 = 230;
    let (_, height) = frame.size();
    let box_h = 12 + 22 * lines as i32;
    let (x0, y0) = (MARGIN, height - MARGIN - box_h);
    let _ = writeln!(svg, r#"<g id="key" font-size="13">"#);
    let _ = writeln!(
        svg,
        r##"<rect x="{x0}" y="{y0}" width="{WIDTH}" height="{box_h}" fill="#fff" fill-opacity="0.9" stroke="#222"/>"##
    );
    let y_of = |i: usize| y0 + 17 + 22 * i as i32;
    let mut line = 0;
    if leaders {
        let y = y_of(line);
        let _ = writeln!(
            svg,
            r##"<circle cx="{}" cy="{y}" r="4" fill="#f2c200" stroke="#222" stroke-width="0.8"/><text x="{}" y="{}" fill="#111">a leader</text>"##,
            x0 + 26,
            x0 + 54,
            y + 5
        );
        line += 1;
    }
    if stacks {
        let y = y_of(line);
        let _ = writeln!(
            svg,
            r##"<circle cx="{}" cy="{y}" r="8" fill="#222"/><text x="{}" y="{}" font-size="10" fill="#fff" font-weight="bold" text-anchor="middle">3</text><text x="{}" y="{}" fill="#111">counters in the hex</text>"##,
            x0 + 26,
            x0 + 26,
            y + 4,
            x0 + 54,
            y + 5
        );
        line += 1;
    }
    for (i, army) in armies.iter().enumerate() {
        let y = y_of(line + i);
        let colour = xml(&arrow_colour(army)).into_owned();
        let _ = writeln!(
            svg,
            r##"<line x1="{}" y1="{y}" x2="{}" y2="{y}" stroke="#1a1a1a" stroke-width="8"/><line x1="{}" y1="{y}" x2="{}" y2="{y}" stroke="{colour}" stroke-width="4"/><polygon points="{},{} {},{y} {},{}" fill="{colour}" stroke="#1a1a1a" stroke-width="2"/><text x="{}" y="{}" fill="#111">{} moved</text>"##,
            x0 + 10,
            x0 + 30,
            x0 + 10,
            x0 + 30,
            x0 + 30,
            y - 7,
            x0 + 42,
            x0 + 30,
            y + 7,
            x0 + 54,
            y + 5,
            xml(army)
        );
    }
    for (i, kind) in kinds.iter().enumerate() {
        let y = y_of(line + armies.len() + i);
        let words = match kind {
            MarkerKind::Fire => "fired at",
            MarkerKind::CloseCombat => "close combat",
            MarkerKind::Retreat => "retreated into",
            MarkerKind::StepLoss => "lost a step",
            MarkerKind::Eliminated => "eliminated",
            MarkerKind::Captured => "captured",
        };
        let _ = writeln!(
            svg,
            r##"{}<text x="{}" y="{}" fill="#111">{words}</text>"##,
            marker_symbol(*kind, x0 + 26, y),
            x0 + 54,
            y + 5
        );
    }
    let _ = writeln!(svg, "</g>");
}

/// Where the n-th kind of marker in a hex goes: the four corners of the
/// hex's inner rectangle, then the west and east corners.
const MARKER_SLOTS: [(i32, i32); 6] = [(-24, -18), (24, -18), (-24, 18), (24, 18), (-32, 0), (32, 0)];

/// Markers: one symbol per kind and hex, labels merged into one tooltip.
fn draw_markers(svg: &mut String, frame: &Frame, markers: &[Marker]) {
    let mut by_hex: BTreeMap<HexId, BTreeMap<MarkerKind, Vec<&str>>> = BTreeMap::new();
    for m in markers.iter().filter(|m| frame.contains(m.hex)) {
        let labels = by_hex.entry(m.hex).or_default().entry(m.kind).or_default();
        if !labels.contains(&m.label.as_str()) {
            labels.push(&m.label);
        }
    }
    if by_hex.is_empty() {
        return;
    }
    let _ = writeln!(svg, r#"<g id="markers">"#);
    for (hex, kinds) in &by_hex {
        let (x, y) = frame.centre(*hex);
        for (slot, (kind, labels)) in kinds.iter().enumerate() {
            let (dx, dy) = MARKER_SLOTS[slot % MARKER_SLOTS.len()];
            let _ = write!(
                svg,
                r#"<g class="marker marker-{}" data-hex="{hex}"><title>{hex}: {}</title>"#,
                kind.id(),
                xml(&labels.join("\n"))
            );
            svg.push_str(&marker_symbol(*kind, x + dx, y + dy));
            let _ = writeln!(svg, "</g>");
        }
    }
    let _ = writeln!(svg, "</g>");
}

/// A marker's symbol centred on (x, y), about 18 px across: a shape and a
/// colour of its own for each kind, with a light edge to stand out.
fn marker_symbol(kind: MarkerKind, x: i32, y: i32) -> String {
    match kind {
        // A burst: an eight-pointed star, red on yellow.
        MarkerKind::Fire => {
            let star = [
                (0, -10),
                (3, -4),
                (9, -7),
                (5, -1),
                (10, 3),
                (4, 4),
                (4, 10),
                (0, 5),
                (-4, 10),
                (-4, 4),
                (-10, 3),
                (-5, -1),
                (-9, -7),
                (-3, -4),
            ];
            let pts: Vec<(i32, i32)> = star.iter().map(|(dx, dy)| (x + dx, y + dy)).collect();
            format!(r##"<polygon points="{}" fill="#f4a300" stroke="#b01010" stroke-width="2"/>"##, points(&pts))
        }
        // Crossed swords: white blades on a dark red disc.
        MarkerKind::CloseCombat => format!(
            r##"<circle cx="{x}" cy="{y}" r="9" fill="#8e1b1b" stroke="#fff" stroke-width="1.5"/><path d="M{} {} L{} {} M{} {} L{} {} M{} {} L{} {} M{} {} L{} {}" stroke="#fff" stroke-width="2" stroke-linecap="round"/>"##,
            x - 5,
            y - 5,
            x + 5,
            y + 5,
            x + 5,
            y - 5,
            x - 5,
            y + 5,
            x - 5,
            y + 2,
            x - 2,
            y + 5,
            x + 5,
            y + 2,
            x + 2,
            y + 5
        ),
        // A backward chevron on an amber disc.
        MarkerKind::Retreat => format!(
            r##"<circle cx="{x}" cy="{y}" r="9" fill="#f2c200" stroke="#222" stroke-width="1.5"/><path d="M{} {} L{} {y} L{} {} M{} {} L{} {y} L{} {}" fill="none" stroke="#222" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"/>"##,
            x,
            y - 5,
            x - 5,
            x,
            y + 5,
            x + 5,
            y - 5,
            x,
            x + 5,
            y + 5
        ),
        // A minus on an orange square: reduced.
        MarkerKind::StepLoss => format!(
            r##"<rect x="{}" y="{}" width="16" height="16" rx="2" fill="#e8741a" stroke="#222" stroke-width="1.5"/><path d="M{} {y} h10" stroke="#fff" stroke-width="3"/>"##,
            x - 8,
            y - 8,
            x - 5
        ),
        // A red cross on a black square: eliminated.
        MarkerKind::Eliminated => format!(
            r##"<rect x="{}" y="{}" width="16" height="16" rx="2" fill="#111" stroke="#fff" stroke-width="1.5"/><path d="M{} {} L{} {} M{} {} L{} {}" stroke="#ff3030" stroke-width="3" stroke-linecap="round"/>"##,
            x - 8,
            y - 8,
            x - 4,
            y - 4,
            x + 4,
            y + 4,
            x + 4,
            y - 4,
            x - 4,
            y + 4
        ),
        // A white ring (a shackle) on a purple diamond: captured.
        MarkerKind::Captured => format!(
            r##"<polygon points="{}" fill="#6a1b9a" stroke="#fff" stroke-width="1.5"/><circle cx="{x}" cy="{y}" r="4" fill="none" stroke="#fff" stroke-width="2"/>"##,
            points(&[(x, y - 10), (x + 10, y), (x, y + 10), (x - 10, y)])
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Savannah Historical set-up as its system pictures it: the board
    /// and the counters, through the seam like every report's map.
    fn savannah(test: impl FnOnce(&Map, &[CounterView])) {
        let system = crate::game::modules::system_of("savannah-1779").unwrap();
        let files = crate::game::modules::ModuleFiles::embedded("savannah-1779");
        let rules = system.load(&files, "historical").unwrap();
        let state = rules.setup().unwrap();
        let picture = rules.map(state.as_ref(), &[]).expect("Savannah has a map");
        assert!(picture.counters.len() > 20, "the set-up's counters are on the map");
        test(picture.map, &picture.counters);
    }

    fn h(s: &str) -> HexId {
        s.parse().unwrap()
    }

    fn step_options() -> Options {
        Options {
            title: Some("a step".into()),
            arrows: vec![
                Arrow {
                    path: vec![h("1507"), h("1508"), h("1608")],
                    army: "french".into(),
                    label: Some("moves".into()),
                },
                Arrow { path: vec![h("1709"), h("1810")], army: "british".into(), label: None },
                // Fewer than two hexes on the map: nothing to draw.
                Arrow { path: vec![h("1709")], army: "british".into(), label: None },
            ],
            markers: MarkerKind::ALL
                .iter()
                .map(|k| Marker { hex: h("1709"), kind: *k, label: format!("{} <here> & now", k.id()) })
                .chain(std::iter::once(Marker { hex: h("1608"), kind: MarkerKind::Fire, label: "fire".into() }))
                .collect(),
            ..Options::default()
        }
    }

    #[test]
    fn push_int_writes_what_format_does() {
        for n in [0, 7, -7, 10, 99, -100, 12345, i32::MAX, i32::MIN] {
            let mut out = String::from("x");
            push_int(&mut out, n);
            assert_eq!(out, format!("x{n}"));
        }
        assert_eq!(points(&[(1, -2), (30, 400)]), "1,-2 30,400");
    }

    #[test]
    fn arrows_under_the_counters_markers_above_a_key_the_same_every_time() {
        savannah(arrows_and_markers);
    }

    fn arrows_and_markers(map: &Map, counters: &[CounterView]) {
        let options = step_options();
        let svg = render(map, counters, &options);
        assert_eq!(svg, render(map, counters, &options), "the same input gives the same bytes");
        assert_eq!(svg.matches(r#"<g class="arrow""#).count(), 2);
        // An outline and a coloured line per arrow, each with a head.
        let arrows = &svg[svg.find(r#"<g id="arrows""#).unwrap()..svg.find(r#"<g id="counters""#).unwrap()];
        assert_eq!(arrows.matches("<polyline ").count(), 4);
        assert_eq!(arrows.matches("<polygon ").count(), 2);
        assert!(arrows.contains(r##"stroke="#b4e6e2""##), "the French arrow is light turquoise");
        assert_eq!(svg.matches(r#"<g class="marker "#).count(), 7);
        let markers = &svg[svg.find(r#"<g id="markers""#).unwrap()..];
        assert_eq!(markers.matches("<title>").count(), 7, "a tooltip per marker");
        assert!(markers.contains("<title>1709: captured &lt;here&gt; &amp; now</title>"));
        for k in MarkerKind::ALL {
            assert!(markers.contains(&format!("marker-{}", k.id())), "no {} marker", k.id());
        }
        // Issue 16: the counters over the arrows (no arrow hides one), the
        // markers over both; each arrow's tip short of its last hex's centre.
        assert!(svg.find(r#"<g id="arrows""#) < svg.find(r#"<g id="counters""#));
        assert!(svg.find(r#"<g id="counters""#) < svg.find(r#"<g id="markers""#));
        let frame = frame(map, None);
        let (cx, cy) = frame.centre(h("1608"));
        const HEAD: &str = "<polygon points=\"";
        let head = &arrows[arrows.find(HEAD).unwrap() + HEAD.len()..];
        let barbs = &head[..head.find('"').unwrap()];
        let tip: Vec<i32> = barbs.split(' ').nth(1).unwrap().split(',').map(|v| v.parse().unwrap()).collect();
        let gap = i64::from(tip[0] - cx).pow(2) + i64::from(tip[1] - cy).pow(2);
        assert!(gap >= 24 * 24, "the French arrow's tip {tip:?} is {} px from 1608's centre", isqrt(gap));
        // The key names what is drawn: an arrow per army, a line per kind of marker.
        let key = &svg[svg.find(r#"<g id="key""#).expect("a key")..];
        assert!(key.contains(">french moved</text>") && key.contains(">british moved</text>"), "{key}");
        let key = &key[..key.find("</g>").unwrap()];
        assert!(key.contains(">a leader</text>") && key.contains(">counters in the hex</text>"), "{key}");
        // The stack count's sample is a text too.
        assert_eq!(key.matches("<text ").count(), 3 + 2 + MarkerKind::ALL.len(), "{key}");
        // Integer geometry: no decimal point in any coordinate drawn.
        for attr in arrows.split(r#"points=""#).skip(1).chain(markers.split(r#"points=""#).skip(1)) {
            let value = &attr[..attr.find('"').unwrap()];
            assert!(!value.contains('.'), "a fractional coordinate: {value}");
        }
        #[cfg(feature = "png")]
        crate::report::map::png::render_png(&svg).unwrap();
    }

    /// Issue 11: the board's layers drawn ahead, on a thread of their own
    /// (`resolve` starts it as a step is resolved), are the picture's: the
    /// same key as every map of the game draws on, and the same bytes as a
    /// picture drawn whole.
    #[test]
    fn a_board_drawn_ahead_is_the_one_pictures_draw_on() {
        let system = crate::game::modules::system_of("savannah-1779").unwrap();
        let files = crate::game::modules::ModuleFiles::embedded("savannah-1779");
        let rules: &'static dyn crate::system::Rules = Box::leak(system.load(&files, "campaign").unwrap());
        let state = rules.setup().unwrap();
        let (_, key) = rules.drawn_board().expect("Savannah has a board");
        let ahead = crate::report::game::draw_board_apart(rules);
        let picture = rules.map(state.as_ref(), &[]).expect("Savannah has a map");
        assert_eq!(picture.key, key, "the board drawn ahead is the one the map is drawn on");
        let whole = render(
            picture.map,
            &picture.counters,
            &Options { title: Some("a title".into()), works: picture.works.clone(), ..Options::default() },
        );
        assert_eq!(super::picture(picture, "a title".into()), whole);
        drop(ahead);
    }

    #[test]
    fn markers_of_one_kind_in_one_hex_share_a_symbol() {
        savannah(|map, _| {
            let m = |label: &str| Marker { hex: h("1709"), kind: MarkerKind::Fire, label: label.into() };
            let options = Options { markers: vec![m("first"), m("second"), m("first")], ..Options::default() };
            let svg = render(map, &[], &options);
            assert_eq!(svg.matches("marker-fire").count(), 1);
            assert!(svg.contains("<title>1709: first\nsecond</title>"));
        });
    }

    #[test]
    fn an_arrowhead_points_along_the_last_step() {
        assert_eq!(isqrt(60 * 60 + 35 * 35), 69);
        assert_eq!(isqrt(4900), 70);
        assert_eq!(isqrt(0), 0);
    }
}
