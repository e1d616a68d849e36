//! A hex map as a picture shows it: the board (terrain, hexside features,
//! roads, places, zones, entry hexes, headquarters), the counters on it and
//! what a step did over them (arrows, markers). A system builds it from its
//! module data and its state; `report/map/` draws it. Integers and sorted
//! maps only.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use crate::base::hex::{HexId, Hexside, Layout};

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Span {
    pub first: u8,
    pub last: u8,
}

/// Series 9.5.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RoadKind {
    Road,
    Track,
    Path,
}

/// The feature that marks a slope; its sides name the up hex first.
pub const SLOPE: &str = "slope";

/// A checked map.
#[derive(Debug, Clone)]
pub struct Map {
    pub layout: Layout,
    pub columns: Span,
    pub rows: Span,
    /// Every hex of the map and its terrain id.
    pub terrain: BTreeMap<HexId, String>,
    /// Every hexside with features, and its features (sorted, no repeats).
    pub hexsides: BTreeMap<Hexside, BTreeSet<String>>,
    /// The first hex of each side as written, per feature: for a slope the
    /// up hex, for a fieldwork the hex it protects.
    pub first_hex: BTreeMap<(Hexside, String), HexId>,
    pub roads: Vec<Road>,
    pub places: Vec<Region>,
    pub zones: Vec<Region>,
    pub entry_hexes: BTreeMap<String, Vec<HexId>>,
    pub headquarters: BTreeMap<String, HexId>,
}

#[derive(Debug, Clone)]
pub struct Road {
    pub kind: RoadKind,
    pub name: Option<String>,
    pub hexes: Vec<HexId>,
}

#[derive(Debug, Clone)]
pub struct Region {
    pub id: String,
    pub name: String,
    pub hexes: Vec<HexId>,
}

impl Map {
    /// The up hex of a slope hexside.
    pub fn slope_up(&self, side: Hexside) -> Option<HexId> {
        self.first_hex.get(&(side, SLOPE.to_string())).copied()
    }

    /// The hex a fieldwork feature on this side protects.
    pub fn protected_hex(&self, side: Hexside, feature: &str) -> Option<HexId> {
        self.first_hex.get(&(side, feature.to_string())).copied()
    }

    pub fn contains(&self, hex: HexId) -> bool {
        self.terrain.contains_key(&hex)
    }

    pub fn zone(&self, id: &str) -> Option<&Region> {
        self.zones.iter().find(|z| z.id == id)
    }

    pub fn place(&self, id: &str) -> Option<&Region> {
        self.places.iter().find(|z| z.id == id)
    }

    /// Every feature id used on a hexside, sorted.
    pub fn hexside_features(&self) -> BTreeSet<&str> {
        self.hexsides.values().flatten().map(String::as_str).collect()
    }

    /// Every terrain id used on the map, sorted.
    pub fn terrain_ids(&self) -> BTreeSet<&str> {
        self.terrain.values().map(String::as_str).collect()
    }
}

/// A map to draw: the board, its counters and a step's overlay. `key`
/// names the board (its module) so that the layers no game changes are
/// drawn once per process.
#[derive(Debug, Clone)]
pub struct Picture<'a> {
    pub key: String,
    pub map: &'a Map,
    pub counters: Vec<CounterView>,
    pub arrows: Vec<Arrow>,
    pub markers: Vec<Marker>,
    /// The game's works, drawn under the counters with a legend (none:
    /// no legend, the picture as before).
    pub works: Vec<Work>,
}

/// One counter to draw.
#[derive(Debug, Clone)]
pub struct CounterView {
    pub hex: HexId,
    /// Short name printed on the counter.
    pub label: String,
    /// The values line: strength-morale-movement, or a leader's ratings.
    pub values: String,
    /// Counter colour and colour-band stripe (SVG colours).
    pub fill: String,
    pub stripe: Option<String>,
    pub leader: bool,
    /// Status markers (D disrupted, S shattered, P pinned, L lost ...).
    pub markers: Vec<String>,
}

/// A work a game builds or breaks on the board, drawn over the printed
/// map (Savannah 4.4, 4.5, 4.6): the state's, not map.yaml's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Work {
    /// A construction marker in `hex`, its hexsides to be entrenched
    /// facing `toward` (no benefit yet, 4.4).
    Marker { hex: HexId, toward: Vec<HexId> },
    /// A completed work's hexside, between `hex` and `toward`.
    Completed { hex: HexId, toward: HexId },
    /// A breached hexside (a siege work's or a fieldwork's, 4.5).
    Breach { a: HexId, b: HexId },
    /// A destroyed city hex (4.6, 4.7, 4.19).
    Destroyed { hex: HexId },
}

/// A move (or retreat, or advance) drawn as a line through hex centres with
/// an arrowhead at the end, in the army's colour with a dark outline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arrow {
    /// The hexes in order, the start first.
    pub path: Vec<HexId>,
    pub army: String,
    /// The tooltip.
    pub label: Option<String>,
}

/// What a marker says happened in a hex.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MarkerKind {
    /// Artillery, rifle or mortar fire at a unit in the hex.
    Fire,
    /// The hex was attacked in close combat.
    CloseCombat,
    /// A unit retreated into the hex.
    Retreat,
    /// A unit in the hex lost a step and lives.
    StepLoss,
    /// A unit in the hex was eliminated.
    Eliminated,
    /// A unit in the hex was captured.
    Captured,
}

impl MarkerKind {
    pub const ALL: [MarkerKind; 6] = [
        MarkerKind::Fire,
        MarkerKind::CloseCombat,
        MarkerKind::Retreat,
        MarkerKind::StepLoss,
        MarkerKind::Eliminated,
        MarkerKind::Captured,
    ];

    /// The id used in the SVG's class names.
    pub fn id(self) -> &'static str {
        match self {
            MarkerKind::Fire => "fire",
            MarkerKind::CloseCombat => "close-combat",
            MarkerKind::Retreat => "retreat",
            MarkerKind::StepLoss => "step-loss",
            MarkerKind::Eliminated => "eliminated",
            MarkerKind::Captured => "captured",
        }
    }
}

/// A small symbol in a corner of a hex, with a tooltip.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marker {
    pub hex: HexId,
    pub kind: MarkerKind,
    pub label: String,
}

/// An SVG colour for a colour named in the rules (Savannah 1.1).
fn named_colour(name: &str) -> Option<&'static str> {
    Some(match name.trim().to_ascii_lowercase().as_str() {
        "tan" => "#d9c29a",
        "red" => "#c0282d",
        "green" => "#2e7d32",
        "yellow" => "#e8c51a",
        "brown" => "#7b4a24",
        "light turquoise" => "#b4e6e2",
        "turquoise" => "#30b5aa",
        "aqua" => "#4fd3e6",
        "teal" => "#1f7f7f",
        "sky blue" => "#9ccbf0",
        "light blue" => "#cfe6fa",
        "blue" => "#2f5fb0",
        "white" => "#ffffff",
        _ => return None,
    })
}

/// Counter colour and stripe from a band as the rules print it:
/// "Tan with red stripe", "Sky blue with no stripe".
pub fn band_colours(band: &str) -> (String, Option<String>) {
    let lower = band.to_ascii_lowercase();
    let (base, stripe) = match lower.split_once(" with ") {
        Some((base, rest)) => (base.to_string(), rest.trim_end_matches(" stripe").to_string()),
        None => (lower.clone(), "no".to_string()),
    };
    let fill = named_colour(&base).unwrap_or("#dddddd").to_string();
    let stripe = if stripe == "no" { None } else { Some(named_colour(&stripe).unwrap_or("#888888").to_string()) };
    (fill, stripe)
}

/// A counter colour for an army without colour groups.
pub fn army_colour(army: &str) -> String {
    match army {
        "british" => "#d9c29a",
        "french" => "#b4e6e2",
        "american" => "#9ccbf0",
        _ => "#dddddd",
    }
    .to_string()
}

/// The colour of an army's movement arrows: its counter colour, which the
/// arrow's dark outline keeps visible on any terrain.
pub fn arrow_colour(army: &str) -> String {
    army_colour(army)
}
