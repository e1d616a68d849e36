//! The Terrain Effects Chart over the map, indexed by hex and hexside: what
//! a hex costs to enter and what crossing a hexside adds (series 9.1, 9.2,
//! 9.51, Savannah 4.9, 4.19). Movement, retreats, reinforcements, Zones of
//! Control, close combat and the guide all read it.

use std::collections::{BTreeMap, BTreeSet};

use crate::base::hex::{HexId, Hexside, Layout};
use crate::base::hexmap::RoadKind;
use crate::systems::gboar::board::Rules;
use crate::systems::gboar::data::charts::{HexFeature, HexTerrain, HexsideFeature, MovementCost, RoadType};

/// The movement effects of one hex: its terrain from the TEC, with the
/// overrides of any TEC area it lies in (Savannah 4.19: the Yamacraw Swamp).
#[derive(Debug, Clone, Copy)]
pub struct HexInfo<'a> {
    pub terrain: &'a str,
    /// The terrain's name, or the area's, for texts.
    pub name: &'a str,
    /// 9.1, 9.2.
    pub movement_cost: MovementCost,
    /// 8.1, Savannah 4.19.
    pub zoc_enters: bool,
    /// 9.1's one-hex exception; Savannah 4.19 withdraws it in places.
    pub minimum_move: bool,
    /// A special hex feature (Savannah 4.9, the Covered Way).
    pub feature: Option<&'a HexFeature>,
}

/// One hexside feature's effects in one direction (9.4, 8.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Crossing {
    pub id: String,
    pub name: String,
    pub movement_cost_added: i32,
    pub zoc_crosses: bool,
    /// 10, 11: added to fire across it.
    pub fire_drm: i32,
    /// 12.23 step 3: added to close combat across it (positive favours the Attacker).
    pub close_combat_drm: i32,
    /// 3.2, 8.1, 13.5: a fieldwork.
    pub fieldwork: bool,
    /// A directional feature crossed into the hex that owns it (the hex
    /// it protects).
    pub into: bool,
    /// Savannah 4.5, 4.6: a breached fieldwork hexside, with the TEC's
    /// `breached` effects instead of its own.
    pub breached: bool,
}

/// A road, track or path along a hexside (9.51, 9.52).
#[derive(Debug, Clone)]
pub struct RoadCrossing {
    /// The cheapest crossing cost of the kinds along the side (9.51).
    pub cost: i32,
    /// The cheapest crossing cost of the kinds that allow strategic movement (9.52).
    pub strategic_cost: Option<i32>,
    pub names: Vec<String>,
}

/// One hex of [`TerrainIndex`]: a [`HexInfo`] with its feature by place
/// in the TEC's `features`.
#[derive(Debug, Clone)]
struct HexRow {
    terrain: String,
    name: String,
    movement_cost: MovementCost,
    zoc_enters: bool,
    minimum_move: bool,
    feature: Option<usize>,
}

#[derive(Debug, Clone)]
struct SideFeature {
    /// The feature's place in the TEC's `hexsides`.
    feature: usize,
    /// For a directional feature, the hex that owns it (the up hex of a
    /// slope, the hex a fieldwork protects).
    owner: Option<HexId>,
}

/// The Terrain Effects Chart as movement and ZOCs read it: every hex's
/// effective terrain, every hexside's features (combined types of 9.4
/// replacing their parts), every road crossing. Built once per [`Rules`],
/// at first use; [`Terrain`] reads it.
///
/// Its tables are dense, read in one step rather than along a map (the
/// movement search prices tens of thousands of hexsides a game): a hex
/// is found by its number ([`HexId::number`], 0 to 9999), a hexside by
/// its lower hex's number and then among that hex's few sides.
#[derive(Debug, Clone)]
pub struct TerrainIndex {
    /// By hex number: the hex's place in `rows`, [`NO_ROW`] off the map.
    slots: Vec<u32>,
    rows: Vec<HexRow>,
    /// By the number of a hexside's lower hex: where its hexsides start in
    /// `links` (hex number n's are `links[starts[n]..starts[n + 1]]`).
    starts: Vec<u32>,
    /// The hexsides that hold features or a road, by their lower hex's
    /// number: one table, not a list per hex number (ten thousand lists,
    /// nearly all empty, were most of the index's memory and of the time
    /// spent building it, in every command that moves a unit).
    links: Vec<Link>,
}

/// No hex of the map has this number.
const NO_ROW: u32 = u32::MAX;

/// The hexes a hex number can name (00 to 99 by 00 to 99).
const HEX_NUMBERS: usize = 10_000;

/// One hexside of [`TerrainIndex`], from its lower hex.
#[derive(Debug, Clone)]
struct Link {
    /// The hexside's higher hex.
    high: HexId,
    /// Its features (combined types of 9.4 replacing their parts), empty
    /// when it has none.
    features: Vec<SideFeature>,
    /// The road, track or path along it.
    road: Option<RoadCrossing>,
}

/// The Terrain Effects Chart over the map ([`TerrainIndex`]), as movement,
/// ZOCs, retreats and combat read it.
#[derive(Debug, Clone, Copy)]
pub struct Terrain<'a> {
    pub layout: Layout,
    index: &'a TerrainIndex,
    tec: &'a crate::systems::gboar::data::charts::TerrainFile,
    /// Savannah 4.9 (charts/covered-way.yaml `lost_effects.zoc`): whether
    /// Lost units exert a ZOC.
    pub lost_zoc: bool,
    /// The game's siege works and breaches (Savannah 4.4, 4.5), read over
    /// the map's hexsides; `None` reads the map alone.
    works: Option<Works<'a>>,
    /// The TEC's siege works feature, where it has one.
    siege_feature: Option<usize>,
}

/// The game's siege works and breached hexsides (the state's), as the
/// terrain reads them.
#[derive(Debug, Clone, Copy)]
pub struct Works<'a> {
    pub siege_works: &'a [crate::systems::gboar::board::state::SiegeWork],
    /// Sorted hexsides, `1805/1806`.
    pub breaches: &'a [String],
}

/// The TEC's id of completed French siege works (Savannah 4.4).
pub const SIEGE_WORKS: &str = "siege-works";

/// The Historical Scenario's special rule that uses the siege works
/// hexsides printed on the map (which belong to it only, Savannah 4.4).
pub const PRINTED_SIEGE_WORKS: &str = "historical-printed-siege-works";

/// `map` less its printed siege works hexsides (Savannah 4.4: the
/// Historical Scenario's), as a scenario without
/// [`PRINTED_SIEGE_WORKS`] draws it; `map` itself when it has none.
pub fn without_printed_works(map: &crate::base::hexmap::Map) -> std::borrow::Cow<'_, crate::base::hexmap::Map> {
    if !map.hexsides.values().any(|f| f.contains(SIEGE_WORKS)) {
        return std::borrow::Cow::Borrowed(map);
    }
    let mut map = map.clone();
    for features in map.hexsides.values_mut() {
        features.remove(SIEGE_WORKS);
    }
    map.hexsides.retain(|_, f| !f.is_empty());
    std::borrow::Cow::Owned(map)
}

fn road_id(kind: RoadKind) -> &'static str {
    match kind {
        RoadKind::Road => "road",
        RoadKind::Track => "track",
        RoadKind::Path => "path",
    }
}

impl TerrainIndex {
    fn build(rules: &Rules) -> TerrainIndex {
        let map = &rules.module.map;
        let tec = &rules.charts.terrain;
        let by_id: BTreeMap<&str, &HexTerrain> = tec.hexes.iter().map(|h| (h.id.as_str(), h)).collect();
        let region = |reference: &str| -> Vec<HexId> {
            let found = match reference.split_once('/') {
                Some(("places", id)) => map.place(id),
                Some(("zones", id)) => map.zone(id),
                _ => None,
            };
            found.map(|r| r.hexes.clone()).unwrap_or_default()
        };
        let mut hexes = BTreeMap::new();
        for (hex, id) in &map.terrain {
            let info = match by_id.get(id.as_str()) {
                Some(t) => HexRow {
                    terrain: t.id.clone(),
                    name: t.name.clone(),
                    movement_cost: t.movement_cost,
                    zoc_enters: t.zoc_enters,
                    minimum_move: t.minimum_move,
                    feature: None,
                },
                None => HexRow {
                    terrain: id.clone(),
                    name: format!("'{id}' (not in charts/terrain.yaml)"),
                    movement_cost: MovementCost::Prohibited,
                    zoc_enters: false,
                    minimum_move: false,
                    feature: None,
                },
            };
            hexes.insert(*hex, info);
        }
        for area in &tec.areas {
            for hex in region(&area.map) {
                let Some(info) = hexes.get_mut(&hex) else { continue };
                let o = &area.overrides;
                info.name = area.name.clone();
                if let Some(c) = o.movement_cost {
                    info.movement_cost = c;
                }
                if let Some(z) = o.zoc_enters {
                    info.zoc_enters = z;
                }
                if let Some(m) = o.minimum_move {
                    info.minimum_move = m;
                }
            }
        }
        for (n, feature) in tec.features.iter().enumerate() {
            for hex in region(&feature.map) {
                if let Some(info) = hexes.get_mut(&hex) {
                    info.feature = Some(n);
                }
            }
        }
        let features: BTreeMap<&str, (usize, &HexsideFeature)> =
            tec.hexsides.iter().enumerate().map(|(n, f)| (f.id.as_str(), (n, f))).collect();
        let mut sides: BTreeMap<Hexside, Vec<SideFeature>> = BTreeMap::new();
        // Savannah 4.4: "the printed siege works hexsides are used in the
        // Historical Scenario"; elsewhere the works are the game's own.
        let printed_works = rules.scenario_movement.has_rule(PRINTED_SIEGE_WORKS);
        for (side, ids) in &map.hexsides {
            let mut present: BTreeSet<&str> =
                ids.iter().map(String::as_str).filter(|f| printed_works || *f != SIEGE_WORKS).collect();
            // 9.4: a combined type replaces its parts.
            let mut combined: Vec<(usize, Option<HexId>)> = Vec::new();
            for (n, f) in tec.hexsides.iter().enumerate().filter(|(_, f)| !f.combines.is_empty()) {
                if f.combines.iter().all(|p| present.contains(p.as_str())) {
                    let owner = map.first_hex.get(&(*side, f.id.clone())).copied().or_else(|| {
                        f.combines.iter().find_map(|p| {
                            features
                                .get(p.as_str())
                                .filter(|(_, pf)| pf.directional)
                                .and_then(|_| map.first_hex.get(&(*side, p.clone())).copied())
                        })
                    });
                    for p in &f.combines {
                        present.remove(p.as_str());
                    }
                    present.remove(f.id.as_str());
                    combined.push((n, owner));
                }
            }
            let mut list: Vec<SideFeature> =
                combined.into_iter().map(|(feature, owner)| SideFeature { feature, owner }).collect();
            for id in present {
                if let Some((feature, _)) = features.get(id) {
                    list.push(SideFeature {
                        feature: *feature,
                        owner: map.first_hex.get(&(*side, id.to_string())).copied(),
                    });
                }
            }
            list.sort_by(|a, b| tec.hexsides[a.feature].id.cmp(&tec.hexsides[b.feature].id));
            sides.insert(*side, list);
        }
        let types: BTreeMap<&str, &RoadType> = tec.roads.iter().map(|r| (r.id.as_str(), r)).collect();
        let mut roads: BTreeMap<Hexside, RoadCrossing> = BTreeMap::new();
        for road in &map.roads {
            let Some(kind) = types.get(road_id(road.kind)) else { continue };
            for pair in road.hexes.windows(2) {
                let (Some(a), Some(b)) = (pair.first(), pair.get(1)) else { continue };
                let Some(side) = Hexside::between(*a, *b, map.layout) else { continue };
                let entry = roads.entry(side).or_insert(RoadCrossing {
                    cost: kind.crossing_cost,
                    strategic_cost: None,
                    names: Vec::new(),
                });
                entry.cost = entry.cost.min(kind.crossing_cost);
                if kind.strategic_movement {
                    entry.strategic_cost =
                        Some(entry.strategic_cost.map_or(kind.crossing_cost, |c| c.min(kind.crossing_cost)));
                }
                let name = road.name.clone().unwrap_or_else(|| kind.name.to_lowercase());
                if !entry.names.contains(&name) {
                    entry.names.push(name);
                }
            }
        }
        let mut slots = vec![NO_ROW; HEX_NUMBERS];
        let mut rows = Vec::with_capacity(hexes.len());
        for (hex, row) in hexes {
            if let Some(slot) = slots.get_mut(usize::from(hex.number())) {
                *slot = u32::try_from(rows.len()).unwrap_or(NO_ROW);
                rows.push(row);
            }
        }
        let every_side: BTreeSet<Hexside> = sides.keys().chain(roads.keys()).copied().collect();
        let mut numbered: Vec<(usize, Link)> = Vec::with_capacity(every_side.len());
        for side in every_side {
            let (low, high) = side.hexes();
            let n = usize::from(low.number());
            if n < HEX_NUMBERS {
                numbered.push((
                    n,
                    Link { high, features: sides.remove(&side).unwrap_or_default(), road: roads.remove(&side) },
                ));
            }
        }
        numbered.sort_by_key(|(n, _)| *n);
        // starts[n + 1] counts the hexsides of hex numbers up to n.
        let mut starts = vec![0u32; HEX_NUMBERS + 1];
        for (n, _) in &numbered {
            if let Some(s) = starts.get_mut(n + 1) {
                *s = s.saturating_add(1);
            }
        }
        for i in 1..starts.len() {
            starts[i] = starts[i].saturating_add(starts[i - 1]);
        }
        let links = numbered.into_iter().map(|(_, link)| link).collect();
        TerrainIndex { slots, rows, starts, links }
    }

    fn row(&self, hex: HexId) -> Option<&HexRow> {
        let slot = *self.slots.get(usize::from(hex.number()))?;
        self.rows.get(usize::try_from(slot).ok()?)
    }

    /// The features of `side` (combined types of 9.4 replacing their
    /// parts), none when it has none.
    fn side_features(&self, side: Hexside) -> Option<&[SideFeature]> {
        let (low, high) = side.hexes();
        self.link(low, high).map(|l| l.features.as_slice()).filter(|f| !f.is_empty())
    }

    /// The hexside between `a` and `b` when it holds features or a road
    /// (none between hexes that are not adjacent: no hexside joins them).
    fn link(&self, a: HexId, b: HexId) -> Option<&Link> {
        let (low, high) = (a.min(b), a.max(b));
        let n = usize::from(low.number());
        let (from, to) = (*self.starts.get(n)?, *self.starts.get(n + 1)?);
        self.links.get(usize::try_from(from).ok()?..usize::try_from(to).ok()?)?.iter().find(|l| l.high == high)
    }
}

/// A map hexside feature's id and the MPs it adds to entering `to` (a
/// directional feature's `into` when `to` owns it, else its `out_of`), as
/// the map has it (no works or breaches); none if the TEC lacks it.
fn plain_cost<'t>(
    tec: &'t crate::systems::gboar::data::charts::TerrainFile,
    sf: &SideFeature,
    to: HexId,
) -> Option<(&'t str, i32)> {
    let f = tec.hexsides.get(sf.feature)?;
    let mp = if f.directional {
        let effects = if sf.owner == Some(to) { f.into } else { f.out_of };
        effects.map_or(0, |e| e.movement_cost_added)
    } else {
        f.movement_cost_added.unwrap_or(0)
    };
    Some((f.id.as_str(), mp))
}

impl<'a> Terrain<'a> {
    /// The rules' terrain, indexed at its first use.
    pub fn new(rules: &'a Rules) -> Terrain<'a> {
        let index = rules.terrain_index.get_or_init(|| TerrainIndex::build(rules));
        Terrain {
            layout: rules.module.map.layout,
            index,
            tec: &rules.charts.terrain,
            lost_zoc: rules.charts.covered_way.lost_effects.zoc,
            works: None,
            siege_feature: rules.charts.terrain.hexsides.iter().position(|f| f.id == SIEGE_WORKS),
        }
    }

    /// The terrain of a game: the map's, with the state's completed siege
    /// works (Savannah 4.4: they "offer a defensive benefit to whichever
    /// player occupies them", read like the printed ones) and breaches
    /// (4.5) over it. Works under construction are no feature (4.4).
    pub fn of(rules: &'a Rules, state: &'a crate::systems::gboar::board::state::State) -> Terrain<'a> {
        Terrain::with(rules, Works { siege_works: &state.siege_works, breaches: &state.breaches })
    }

    /// [`Terrain::of`] from the works alone (a caller that changes the
    /// state while it reads the terrain holds a copy of them).
    pub fn with(rules: &'a Rules, works: Works<'a>) -> Terrain<'a> {
        let mut t = Terrain::new(rules);
        if !works.siege_works.is_empty() || !works.breaches.is_empty() {
            t.works = Some(works);
        }
        t
    }

    /// The features of `side` as the game has them: the map's (`owner`,
    /// breached), then each completed siege work's hexside.
    fn features_of(&self, side: Hexside) -> Vec<(usize, Option<HexId>, bool)> {
        let mut out: Vec<(usize, Option<HexId>, bool)> = Vec::new();
        let breached_side = self.works.is_some_and(|w| {
            let key = side.to_string();
            w.breaches.binary_search(&key).is_ok()
        });
        if let Some(list) = self.index.side_features(side) {
            for sf in list {
                let breachable = self.tec.hexsides.get(sf.feature).is_some_and(|f| f.breachable);
                out.push((sf.feature, sf.owner, breached_side && breachable));
            }
        }
        if let (Some(works), Some(feature)) = (self.works, self.siege_feature) {
            for w in works.siege_works.iter().filter(|w| w.completed) {
                let Ok(hex) = w.hex.parse::<HexId>() else { continue };
                let Some(other) = side.other(hex) else { continue };
                let other = other.to_string();
                if w.toward.contains(&other) {
                    out.push((feature, Some(hex), w.breached.contains(&other)));
                }
            }
        }
        out
    }

    /// The effects of feature `f` crossed into `to` (`owner` the hex that
    /// owns a directional one), or the TEC's breached effects.
    fn effects(
        &self,
        f: &crate::systems::gboar::data::charts::HexsideFeature,
        owner: Option<HexId>,
        to: HexId,
        breached: bool,
    ) -> (i32, bool, i32, i32) {
        if breached {
            if let Some(b) = &self.tec.breached {
                return (b.movement_cost_added, b.zoc_crosses, b.fire_drm, b.close_combat_drm);
            }
        }
        if f.directional {
            let effects = if owner == Some(to) { f.into } else { f.out_of };
            effects.map_or((0, true, 0, 0), |e| (e.movement_cost_added, e.zoc_crosses, e.fire_drm, e.close_combat_drm))
        } else {
            (
                f.movement_cost_added.unwrap_or(0),
                f.zoc_crosses.unwrap_or(true),
                f.fire_drm.unwrap_or(0),
                f.close_combat_drm.unwrap_or(0),
            )
        }
    }

    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// A hex of the map, or `None` off the map.
    pub fn hex(&self, hex: HexId) -> Option<HexInfo<'a>> {
        let row = self.index.row(hex)?;
        Some(HexInfo {
            terrain: &row.terrain,
            name: &row.name,
            movement_cost: row.movement_cost,
            zoc_enters: row.zoc_enters,
            minimum_move: row.minimum_move,
            feature: row.feature.and_then(|n| self.tec.features.get(n)),
        })
    }

    /// 9.4, 8.1: the hexside features crossed going from `from` into the
    /// adjacent `to`, each with its effects in that direction: a
    /// directional feature's `into` when `to` owns it, else its `out_of`.
    pub fn crossing(&self, from: HexId, to: HexId) -> Vec<Crossing> {
        let Some(side) = Hexside::between(from, to, self.layout) else { return Vec::new() };
        if self.works.is_none() && self.index.side_features(side).is_none() {
            return Vec::new();
        }
        self.features_of(side)
            .into_iter()
            .filter_map(|(n, owner, breached)| Some((owner, breached, self.tec.hexsides.get(n)?)))
            .map(|(owner, breached, f)| {
                let (mp, zoc, fire, cc) = self.effects(f, owner, to, breached);
                let into = f.directional && owner == Some(to);
                let name = match (f.directional, into) {
                    (true, true) => format!("{} (into)", f.name),
                    (true, false) => format!("{} (out of)", f.name),
                    (false, _) => f.name.clone(),
                };
                let name = if breached { format!("{name}, breached") } else { name };
                Crossing {
                    id: f.id.clone(),
                    name,
                    movement_cost_added: mp,
                    zoc_crosses: zoc,
                    fire_drm: fire,
                    close_combat_drm: cc,
                    fieldwork: f.fieldwork,
                    into,
                    breached,
                }
            })
            .collect()
    }

    /// [`Terrain::crossing`]'s features' ids and added MPs only, in the
    /// same order, without writing their names: what the movement search
    /// prices each hexside with.
    pub fn crossing_costs(&self, from: HexId, to: HexId) -> impl Iterator<Item = (&'a str, i32)> + 'a {
        let (index, tec) = (self.index, self.tec);
        // The game's works and breaches, where there are any (rare): read
        // whole; otherwise the map's index alone, unallocated.
        let overlay: Option<Vec<(&'a str, i32)>> = self.works.map(|_| {
            Hexside::between(from, to, self.layout)
                .map(|side| {
                    self.features_of(side)
                        .into_iter()
                        .filter_map(|(n, owner, breached)| {
                            let f = tec.hexsides.get(n)?;
                            Some((f.id.as_str(), self.effects(f, owner, to, breached).0))
                        })
                        .collect()
                })
                .unwrap_or_default()
        });
        let plain = match overlay {
            Some(_) => None,
            None => Hexside::between(from, to, self.layout).and_then(|side| index.side_features(side)),
        };
        let plain = plain.into_iter().flatten().filter_map(move |sf| plain_cost(tec, sf, to));
        overlay.into_iter().flatten().chain(plain)
    }

    /// `mp` with [`Terrain::crossing_costs`]' MPs added one by one, in the
    /// same order and as saturating sums: what the movement search prices
    /// a hexside with, without an iterator or the features' ids.
    pub fn add_crossing_costs(&self, from: HexId, to: HexId, mut mp: i32) -> i32 {
        if self.works.is_some() {
            return self.crossing_costs(from, to).fold(mp, |mp, (_, added)| mp.saturating_add(added));
        }
        let side = Hexside::between(from, to, self.layout);
        for sf in side.and_then(|side| self.index.side_features(side)).unwrap_or_default() {
            if let Some((_, added)) = plain_cost(self.tec, sf, to) {
                mp = mp.saturating_add(added);
            }
        }
        mp
    }

    /// 8.1: whether every hexside feature [`Terrain::crossing`] finds
    /// going from `from` into `to` lets a ZOC cross (without writing their
    /// names).
    pub fn zoc_crosses(&self, from: HexId, to: HexId) -> bool {
        let Some(side) = Hexside::between(from, to, self.layout) else { return true };
        if self.works.is_some() {
            return self.features_of(side).into_iter().all(|(n, owner, breached)| {
                self.tec.hexsides.get(n).is_none_or(|f| self.effects(f, owner, to, breached).1)
            });
        }
        let Some(list) = self.index.side_features(side) else { return true };
        list.iter().filter_map(|sf| Some((sf, self.tec.hexsides.get(sf.feature)?))).all(|(sf, f)| {
            if f.directional {
                let effects = if sf.owner == Some(to) { f.into } else { f.out_of };
                effects.is_none_or(|e| e.zoc_crosses)
            } else {
                f.zoc_crosses.unwrap_or(true)
            }
        })
    }

    /// 3.2, 13.5, Savannah 4.19: the fieldwork hexsides of `hex` that
    /// protect it (crossed into it), each with the neighbour beyond and
    /// whether it is breached.
    pub fn fieldworks_of(&self, hex: HexId) -> Vec<(HexId, bool)> {
        crate::base::hex::neighbours(hex, self.layout)
            .into_iter()
            .filter_map(|n| {
                let works: Vec<Crossing> =
                    self.crossing(n, hex).into_iter().filter(|c| c.fieldwork && c.into).collect();
                (!works.is_empty()).then(|| (n, works.iter().any(|c| c.breached)))
            })
            .collect()
    }

    /// 9.51: the road, track or path along the hexside between two hexes.
    pub fn road(&self, a: HexId, b: HexId) -> Option<&RoadCrossing> {
        self.index.link(a, b).and_then(|l| l.road.as_ref())
    }
}
