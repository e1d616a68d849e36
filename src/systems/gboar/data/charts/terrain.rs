//! charts/terrain.yaml (9): the Terrain Effects Chart.
//! The file's types, and what [`check`](super::check) verifies of it.

use super::*;

// terrain.yaml

/// `charts/terrain.yaml`: the Terrain Effects Chart.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TerrainFile {
    pub source: String,
    pub rules: Vec<String>,
    pub hexes: Vec<HexTerrain>,
    pub hexsides: Vec<HexsideFeature>,
    /// 13.5; Savannah 4.5, 4.19: a breached fieldwork hexside's effects.
    pub breached: Option<Breached>,
    /// 9.5.
    #[serde(default)]
    pub roads: Vec<RoadType>,
    /// Map places or zones whose hexes take `overrides` (Savannah 4.19).
    #[serde(default)]
    pub areas: Vec<TerrainArea>,
    /// Special hex features (Savannah 4.9: the Covered Way).
    #[serde(default)]
    pub features: Vec<HexFeature>,
}

/// One hex terrain type.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HexTerrain {
    pub id: String,
    pub name: String,
    pub source: String,
    pub note: Option<String>,
    /// 9.1: MPs to enter, or prohibited (9.2).
    pub movement_cost: MovementCost,
    /// 8.1: false is "extends out of, but not into".
    pub zoc_enters: bool,
    /// 11.42.
    pub blocks_los: bool,
    /// 10.3 step 2: added to fire against a unit in the hex.
    pub fire_drm: i32,
    /// 12.23 step 3: the defenders' hex.
    pub close_combat_drm: i32,
    /// 10.6, 12.52: clear, field or crops.
    pub open: bool,
    /// Savannah 4.4.
    pub siege_works_allowed: bool,
    /// 9.1: false withdraws the one-hex exception.
    pub minimum_move: bool,
}

/// 9.1: MPs to enter a hex, or prohibited terrain (9.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MovementCost {
    Mp(i32),
    Prohibited,
}

impl<'de> Deserialize<'de> for MovementCost {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Scalar::deserialize(d)? {
            Scalar::Int(n) => Ok(MovementCost::Mp(n)),
            Scalar::Word(w) if w == "prohibited" => Ok(MovementCost::Prohibited),
            Scalar::Word(w) => {
                Err(de::Error::custom(format!("'{w}' is not a movement cost: write an integer or prohibited")))
            }
        }
    }
}

/// A hexside feature (9.4: features on one hexside add up).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HexsideFeature {
    pub id: String,
    pub name: String,
    /// 3.2: belongs to one of its two hexes (the upper hex of a slope, the
    /// hex holding the fieldworks symbol); its effects are under `into` and `out_of`.
    pub directional: bool,
    /// 3.2, 8.1, 13.5.
    pub fieldwork: bool,
    /// Savannah 4.5: can be breached.
    #[serde(default)]
    pub breachable: bool,
    /// 11.43: `slope` sends line of sight to the slope rules.
    pub los: Option<HexsideLos>,
    /// 9.4: a combined type; a hexside with all these features uses this one instead.
    #[serde(default)]
    pub combines: Vec<String>,
    pub source: String,
    pub note: Option<String>,
    /// Non-directional effects.
    pub movement_cost_added: Option<i32>,
    pub zoc_crosses: Option<bool>,
    pub fire_drm: Option<i32>,
    pub close_combat_drm: Option<i32>,
    /// Directional effects: crossing into the hex that owns the feature.
    pub into: Option<HexsideEffects>,
    /// Directional effects: crossing out of it.
    pub out_of: Option<HexsideEffects>,
}

/// 11.43: how a hexside feature treats line of sight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HexsideLos {
    Slope,
}

/// A hexside's effects in one direction (9.4, 8.1, 10.3, 12.23).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HexsideEffects {
    pub movement_cost_added: i32,
    pub zoc_crosses: bool,
    pub fire_drm: i32,
    pub close_combat_drm: i32,
}

/// 13.5; Savannah 4.5, 4.19: a breached fieldwork hexside, both directions.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Breached {
    pub source: String,
    pub note: Option<String>,
    pub movement_cost_added: i32,
    pub zoc_crosses: bool,
    pub fire_drm: i32,
    pub close_combat_drm: i32,
    /// 13.5: only unbreached fieldworks help the morale check.
    pub morale_check_bonus: bool,
}

/// 9.5: a road, track or path.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoadType {
    pub id: String,
    pub name: String,
    /// 9.51.
    pub crossing_cost: i32,
    /// 9.52.
    pub strategic_movement: bool,
    pub source: String,
}

/// A map place or zone whose hexes take `overrides` over their terrain.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TerrainArea {
    pub id: String,
    /// `places/<id>` or `zones/<id>` of map.yaml.
    pub map: String,
    pub name: String,
    pub source: String,
    pub note: Option<String>,
    pub overrides: TerrainOverrides,
}

/// The fields of a hex terrain an area replaces.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TerrainOverrides {
    pub movement_cost: Option<MovementCost>,
    pub zoc_enters: Option<bool>,
    pub blocks_los: Option<bool>,
    pub fire_drm: Option<i32>,
    pub close_combat_drm: Option<i32>,
    pub open: Option<bool>,
    pub siege_works_allowed: Option<bool>,
    pub minimum_move: Option<bool>,
}

/// A special hex feature (Savannah 4.9: the Covered Way).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HexFeature {
    pub id: String,
    /// `places/<id>` or `zones/<id>` of map.yaml.
    pub map: String,
    pub name: String,
    pub source: String,
    pub note: Option<String>,
    pub movement_cost_along: Option<i32>,
    pub creek_cost_along: Option<i32>,
    /// The hexside features (ids of `hexsides`) that `creek_cost_along`
    /// prices along the feature instead of their own cost (Savannah 4.9:
    /// streams are not forded along the Covered Way).
    #[serde(default)]
    pub streams: Vec<String>,
    pub strategic_movement: Option<bool>,
    /// The chart file of the roll made on entering (covered-way.yaml).
    pub lost_roll: Option<String>,
    pub fire_drm: Option<i32>,
    pub close_combat_drm: Option<i32>,
}

impl<'a> Checker<'a> {
    pub(super) fn map_ref(&mut self, file: &str, field: &str, r: &str) {
        match r.split_once('/') {
            Some(("places", id)) => {
                let places = self.ctx.places.clone();
                self.context_ref(file, field, id, &places, "a place of map.yaml");
            }
            Some(("zones", id)) => {
                let zones = self.ctx.zones.clone();
                self.context_ref(file, field, id, &zones, "a zone of map.yaml");
            }
            _ => self.p.add(file, field, format!("'{r}': write places/<id> or zones/<id> of map.yaml")),
        }
    }

    pub(super) fn terrain(&mut self) {
        let t = &self.c.terrain;
        let f = TERRAIN;
        let mut seen = BTreeMap::new();
        for (i, h) in t.hexes.iter().enumerate() {
            self.id(f, &mut seen, &format!("hexes[{i}]"), &h.id);
            if let MovementCost::Mp(n) = h.movement_cost {
                if n < 1 {
                    self.p.add(
                        f,
                        format!("hexes[{i}].movement_cost"),
                        format!("{n}: entering a hex costs 1 MP or more (9.1), or write prohibited"),
                    );
                }
            }
        }
        let features: BTreeSet<&str> = t.hexsides.iter().map(|h| h.id.as_str()).collect();
        for (i, h) in t.hexsides.iter().enumerate() {
            let at = format!("hexsides[{i}]");
            self.id(f, &mut seen, &at, &h.id);
            let direct = [
                ("movement_cost_added", h.movement_cost_added.is_some()),
                ("zoc_crosses", h.zoc_crosses.is_some()),
                ("fire_drm", h.fire_drm.is_some()),
                ("close_combat_drm", h.close_combat_drm.is_some()),
            ];
            if h.directional {
                for (key, value) in [("into", h.into.is_some()), ("out_of", h.out_of.is_some())] {
                    if !value {
                        self.p.add(
                            f,
                            &at,
                            format!(
                                "'{}' is directional: give its effects under into and out_of ({key} is missing)",
                                h.id
                            ),
                        );
                    }
                }
                for (key, _) in direct.iter().filter(|(_, present)| *present) {
                    self.p.add(
                        f,
                        format!("{at}.{key}"),
                        format!("'{}' is directional: {key} goes under into and out_of", h.id),
                    );
                }
            } else {
                for (key, present) in [("into", h.into.is_some()), ("out_of", h.out_of.is_some())] {
                    if present {
                        self.p.add(
                            f,
                            format!("{at}.{key}"),
                            format!("'{}' is not directional: its effects go on the entry itself", h.id),
                        );
                    }
                }
                let missing: Vec<&str> = direct.iter().filter(|(_, present)| !present).map(|(k, _)| *k).collect();
                if !missing.is_empty() {
                    self.p.add(f, &at, format!("'{}' needs {} (9.4, 8.1, 10.3, 12.23)", h.id, missing.join(", ")));
                }
            }
            if h.combines.len() == 1 {
                self.p.add(f, format!("{at}.combines"), "a combined type (9.4) combines two features or more");
            }
            for (j, part) in h.combines.iter().enumerate() {
                if part == &h.id {
                    self.p.add(f, format!("{at}.combines[{j}]"), "a combined type cannot combine itself");
                } else {
                    self.reference(f, &format!("{at}.combines[{j}]"), part, &features, "a hexside feature");
                }
            }
            if h.breachable && !h.fieldwork {
                self.p.add(
                    f,
                    format!("{at}.breachable"),
                    format!("'{}' is not a fieldwork, and only fieldworks are breached (13.5, Savannah 4.5)", h.id),
                );
            }
            if h.breachable && t.breached.is_none() {
                self.p.add(
                    f,
                    format!("{at}.breachable"),
                    format!("'{}' can be breached, but the chart has no breached section", h.id),
                );
            }
        }
        for (i, r) in t.roads.iter().enumerate() {
            self.id(f, &mut seen, &format!("roads[{i}]"), &r.id);
            if r.crossing_cost < 0 {
                self.p.add(f, format!("roads[{i}].crossing_cost"), "a crossing costs 0 MP or more (9.51)");
            }
        }
        for (i, a) in t.areas.iter().enumerate() {
            self.id(f, &mut seen, &format!("areas[{i}]"), &a.id);
            self.map_ref(f, &format!("areas[{i}].map"), &a.map);
            let o = &a.overrides;
            let any = o.movement_cost.is_some()
                || o.zoc_enters.is_some()
                || o.blocks_los.is_some()
                || o.fire_drm.is_some()
                || o.close_combat_drm.is_some()
                || o.open.is_some()
                || o.siege_works_allowed.is_some()
                || o.minimum_move.is_some();
            if !any {
                self.p.add(f, format!("areas[{i}].overrides"), "overrides nothing");
            }
        }
        for (i, x) in t.features.iter().enumerate() {
            self.id(f, &mut seen, &format!("features[{i}]"), &x.id);
            self.map_ref(f, &format!("features[{i}].map"), &x.map);
            if let Some(roll) = &x.lost_roll {
                if chart_named(roll).is_none() {
                    self.p.add(
                        f,
                        format!("features[{i}].lost_roll"),
                        format!(
                            "'{roll}' is not a chart of this module ({})",
                            listing(FILES.iter().map(|f| basename(f)))
                        ),
                    );
                }
            }
        }
        // The map against the chart: everything it uses is defined here.
        let hexes: BTreeSet<&str> = t.hexes.iter().map(|h| h.id.as_str()).collect();
        let roads: BTreeSet<&str> = t.roads.iter().map(|r| r.id.as_str()).collect();
        let checks = [
            ("hexes", "terrain", &self.ctx.terrain, &hexes),
            ("hexsides", "hexside feature", &self.ctx.hexside_features, &features),
            ("roads", "road kind", &self.ctx.road_kinds, &roads),
        ];
        let mut out = Vec::new();
        for (list, what, used, defined) in checks {
            for id in used.iter().flatten().filter(|id| !defined.contains(id.as_str())) {
                out.push((
                    list,
                    format!(
                        "map.yaml uses {what} '{id}', which the Terrain Effects Chart does not define: add it \
                        to {list} (defined: {})",
                        listing(defined.iter())
                    ),
                ));
            }
        }
        for (list, message) in out {
            self.p.add(f, list, message);
        }
    }
}
