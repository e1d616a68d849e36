//! The map of a module (`map.yaml`, documented in docs/module-format/map.md):
//! read as written, then checked and turned into hex-keyed tables.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use crate::base::error::Located;
use crate::base::hex::{HexId, Hexside, Layout};
use crate::base::hexmap::{Map, Region, Road, RoadKind, Span};

/// `map.yaml` as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MapFile {
    #[serde(default)]
    pub source: Option<String>,
    pub layout: String,
    pub columns: Span,
    pub rows: Span,
    pub terrain_key: BTreeMap<String, String>,
    pub terrain: BTreeMap<String, String>,
    #[serde(default)]
    pub places: Vec<Area>,
    #[serde(default)]
    pub zones: Vec<Area>,
    #[serde(default)]
    pub entry_hexes: Vec<EntryHexes>,
    #[serde(default)]
    pub headquarters: Vec<Headquarters>,
    #[serde(default)]
    pub hexsides: Vec<HexsideGroup>,
    #[serde(default)]
    pub roads: Vec<RoadFile>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Area {
    pub id: String,
    pub name: String,
    pub hexes: Vec<String>,
    #[serde(default)]
    pub rule: Option<String>,
    #[serde(default)]
    pub note: Option<String>,
    #[serde(default)]
    pub source: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntryHexes {
    pub id: String,
    pub hexes: Vec<String>,
    #[serde(default)]
    pub rule: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Headquarters {
    pub army: String,
    pub hex: String,
    #[serde(default)]
    pub rule: Option<String>,
    #[serde(default)]
    pub source: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HexsideGroup {
    pub features: Vec<String>,
    pub sides: Vec<String>,
    #[serde(default)]
    pub note: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoadFile {
    pub kind: RoadKind,
    #[serde(default)]
    pub name: Option<String>,
    pub hexes: Vec<String>,
}

/// Collects problems with their place in the file.
pub(crate) struct Problems<'a> {
    pub file: &'a str,
    pub text: &'a str,
    pub list: Vec<Located>,
}

impl<'a> Problems<'a> {
    pub fn new(file: &'a str, text: &'a str) -> Self {
        Problems { file, text, list: Vec::new() }
    }

    /// Record a problem at `field`, placed on the line where `token` first
    /// appears after the line of `anchor` (both optional).
    pub fn add(
        &mut self,
        field: impl Into<String>,
        anchor: Option<&str>,
        token: Option<&str>,
        message: impl Into<String>,
    ) {
        let line = locate(self.text, anchor, token);
        self.list.push(Located {
            file: self.file.to_string(),
            line: line.map(|(l, _)| l),
            column: line.map(|(_, c)| c),
            field: field.into(),
            message: message.into(),
            code: None,
        });
    }
}

/// The 1-based line and column where `token` first appears at or after the
/// first line that contains `anchor`.
pub(crate) fn locate(text: &str, anchor: Option<&str>, token: Option<&str>) -> Option<(usize, usize)> {
    let mut start = 0;
    if let Some(anchor) = anchor {
        start = text.lines().position(|l| l.contains(anchor))?;
    }
    let token = token.or(anchor)?;
    text.lines().enumerate().skip(start).find_map(|(n, l)| l.find(token).map(|c| (n + 1, c + 1)))
}

impl MapFile {
    /// Check everything that can be checked within the map, and build it.
    pub fn build(&self, file: &str, text: &str) -> Result<Map, Vec<Located>> {
        let mut p = Problems::new(file, text);
        let layout: Layout = match self.layout.parse() {
            Ok(l) => l,
            Err(_) => {
                p.add(
                    "layout",
                    Some("layout:"),
                    None,
                    format!("'{}' is not a layout; use even-columns-down or odd-columns-down", self.layout),
                );
                Layout::GBOAR
            }
        };
        for (name, span) in [("columns", self.columns), ("rows", self.rows)] {
            if span.first > span.last || span.last > 99 {
                p.add(
                    name,
                    Some(&format!("{name}:")),
                    None,
                    format!("first {} to last {} is not a range within 00..99", span.first, span.last),
                );
            }
        }
        let mut terrain = BTreeMap::new();
        let width = (self.columns.last as usize + 1).saturating_sub(self.columns.first as usize);
        for (key, value) in &self.terrain_key {
            if key.chars().count() != 1 {
                p.add(
                    format!("terrain_key.{key}"),
                    Some("terrain_key:"),
                    Some(&format!("\"{key}\"")),
                    "a terrain key is one character",
                );
            }
            if value.is_empty() {
                p.add(
                    format!("terrain_key.{key}"),
                    Some("terrain_key:"),
                    Some(&format!("\"{key}\"")),
                    "names no terrain",
                );
            }
        }
        for row in self.rows.first..=self.rows.last.min(99) {
            let key = format!("{row:02}");
            let Some(line) = self.terrain.get(&key) else {
                p.add(
                    format!("terrain.{key}"),
                    Some("terrain:"),
                    None,
                    format!("row {key} is missing (rows {:02} to {:02})", self.rows.first, self.rows.last),
                );
                continue;
            };
            let chars: Vec<char> = line.chars().collect();
            if chars.len() != width {
                p.add(
                    format!("terrain.{key}"),
                    Some("terrain:"),
                    Some(&format!("\"{key}\":")),
                    format!(
                        "row {key} has {} hexes; columns {:02} to {:02} are {width}",
                        chars.len(),
                        self.columns.first,
                        self.columns.last
                    ),
                );
            }
            for (i, c) in chars.iter().enumerate().take(width) {
                let hex = HexId::new(self.columns.first + i as u8, row);
                let mut key_buf = [0u8; 4];
                match (hex, self.terrain_key.get(&*c.encode_utf8(&mut key_buf))) {
                    (Some(hex), Some(t)) => {
                        terrain.insert(hex, t.clone());
                    }
                    (Some(hex), None) => {
                        let known: Vec<&str> = self.terrain_key.keys().map(String::as_str).collect();
                        p.add(
                            format!("terrain.{key}"),
                            Some("terrain:"),
                            Some(&format!("\"{key}\":")),
                            format!("hex {hex}: '{c}' is not in terrain_key ({})", known.join(" ")),
                        );
                    }
                    (None, _) => {}
                }
            }
        }
        for key in self.terrain.keys() {
            let in_range =
                key.parse::<u8>().is_ok_and(|r| (self.rows.first..=self.rows.last).contains(&r)) && key.len() == 2;
            if !in_range {
                p.add(
                    format!("terrain.{key}"),
                    Some("terrain:"),
                    Some(&format!("\"{key}\"")),
                    format!("not a row of the map (rows {:02} to {:02})", self.rows.first, self.rows.last),
                );
            }
        }
        // `token` is how the hex appears in the file, to find its line;
        // it and `field` are made only for a problem (a map has hundreds of
        // hexes named, each read at every command).
        let on_map_at = |s: &str, token: &dyn Fn() -> String, field: &dyn Fn() -> String, p: &mut Problems| match s
            .parse::<HexId>()
        {
            Ok(h) if terrain.contains_key(&h) => Some(h),
            Ok(h) => {
                p.add(
                    field(),
                    None,
                    Some(&token()),
                    format!(
                        "hex {h} is not on the map (columns {:02}-{:02}, rows {:02}-{:02})",
                        self.columns.first, self.columns.last, self.rows.first, self.rows.last
                    ),
                );
                None
            }
            Err(e) => {
                p.add(field(), None, Some(&token()), format!("'{s}': {e}"));
                None
            }
        };
        let on_map =
            |s: &str, field: &dyn Fn() -> String, p: &mut Problems| on_map_at(s, &|| format!("\"{s}\""), field, p);
        let mut hexsides: BTreeMap<Hexside, BTreeSet<String>> = BTreeMap::new();
        let mut first_hex = BTreeMap::new();
        for (g, group) in self.hexsides.iter().enumerate() {
            if group.features.is_empty() {
                p.add(
                    format!("hexsides[{g}].features"),
                    Some("hexsides:"),
                    Some("features: []"),
                    "a group names at least one feature",
                );
            }
            for (i, s) in group.sides.iter().enumerate() {
                let field = || format!("hexsides[{g}].sides[{i}]");
                let Some((a, b)) = s.split_once('/') else {
                    p.add(
                        field(),
                        Some("hexsides:"),
                        Some(s),
                        format!("'{s}': write a side as A/B, the two hexes it divides"),
                    );
                    continue;
                };
                let (Some(a), Some(b)) = (on_map(a, &field, &mut p), on_map(b, &field, &mut p)) else {
                    continue;
                };
                match Hexside::between(a, b, layout) {
                    Some(side) => {
                        hexsides.entry(side).or_default().extend(group.features.iter().cloned());
                        for f in &group.features {
                            first_hex.insert((side, f.clone()), a);
                        }
                    }
                    None => p.add(
                        field(),
                        Some("hexsides:"),
                        Some(s),
                        format!("{a} and {b} are not adjacent, so share no side"),
                    ),
                }
            }
        }
        let mut roads = Vec::new();
        for (r, road) in self.roads.iter().enumerate() {
            let hexes: Vec<HexId> = road
                .hexes
                .iter()
                .enumerate()
                .filter_map(|(i, h)| on_map(h, &|| format!("roads[{r}].hexes[{i}]"), &mut p))
                .collect();
            if hexes.len() != road.hexes.len() {
                continue;
            }
            if hexes.len() < 2 {
                p.add(
                    format!("roads[{r}].hexes"),
                    Some("roads:"),
                    road.name.as_deref(),
                    "a road joins at least two hexes",
                );
            }
            for (i, pair) in hexes.windows(2).enumerate() {
                if Hexside::between(pair[0], pair[1], layout).is_none() {
                    p.add(
                        format!("roads[{r}].hexes[{}]", i + 1),
                        road.name.as_deref(),
                        Some(&format!("\"{}\"", pair[1])),
                        format!("{} does not adjoin {}: a road runs through adjacent hexes", pair[1], pair[0]),
                    );
                }
            }
            roads.push(Road { kind: road.kind, name: road.name.clone(), hexes });
        }
        let regions = |list: &[Area], what: &str, p: &mut Problems| -> Vec<Region> {
            let mut seen = BTreeSet::new();
            list.iter()
                .enumerate()
                .map(|(n, a)| {
                    if !seen.insert(a.id.clone()) {
                        p.add(
                            format!("{what}[{n}].id"),
                            None,
                            Some(&format!("id: {}", a.id)),
                            format!("the id '{}' is used twice", a.id),
                        );
                    }
                    let hexes = a
                        .hexes
                        .iter()
                        .enumerate()
                        .filter_map(|(i, h)| on_map(h, &|| format!("{what}[{n}].hexes[{i}]"), p))
                        .collect();
                    Region { id: a.id.clone(), name: a.name.clone(), hexes }
                })
                .collect()
        };
        let places = regions(&self.places, "places", &mut p);
        let zones = regions(&self.zones, "zones", &mut p);
        let mut entry_hexes = BTreeMap::new();
        for (n, e) in self.entry_hexes.iter().enumerate() {
            let hexes: Vec<HexId> = e
                .hexes
                .iter()
                .enumerate()
                .filter_map(|(i, h)| on_map(h, &|| format!("entry_hexes[{n}].hexes[{i}]"), &mut p))
                .collect();
            if entry_hexes.insert(e.id.clone(), hexes).is_some() {
                p.add(
                    format!("entry_hexes[{n}].id"),
                    Some("entry_hexes:"),
                    Some(&format!("id: {}", e.id)),
                    format!("entry '{}' is given twice", e.id),
                );
            }
        }
        let mut headquarters = BTreeMap::new();
        for (n, hq) in self.headquarters.iter().enumerate() {
            if let Some(h) = on_map(&hq.hex, &|| format!("headquarters[{n}].hex"), &mut p) {
                headquarters.insert(hq.army.clone(), h);
            }
        }
        if !p.list.is_empty() {
            return Err(p.list);
        }
        Ok(Map {
            layout,
            columns: self.columns,
            rows: self.rows,
            terrain,
            hexsides,
            first_hex,
            roads,
            places,
            zones,
            entry_hexes,
            headquarters,
        })
    }
}
