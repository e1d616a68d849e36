//! COMMUNICATIONS (the article): which British regular units are in
//! communication, and the links that put them there.
//!
//! "A British regular unit is said to be in communication if it satisfies
//! any of the following conditions: It is in a hex containing a British
//! controlled port which can in turn trace a sea link (see below) to the
//! east map edge. It is in a hex containing a British TF or BF which can in
//! turn trace a sea link to the east map edge. It can trace a land link
//! (see below) to a British controlled port containing one or more British
//! regular regiments which in turn can trace a sea link to the east map
//! edge. It can trace a land link to a British controlled strategic town
//! containing a magazine."

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde::Serialize;

use crate::base::hex::{are_adjacent, neighbours, HexId};
use crate::systems::awi::board::{land_units_of, reach, State};
use crate::systems::awi::data::{Class, FleetKind, Kind, Module, WATER};

/// The side whose regulars need communications.
pub const BRITISH: &str = "british";

/// How a unit is in communication, or that it is not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "how")]
pub enum Status {
    /// "Tory militia and British legion units are always in communication
    /// ... American and French forces are always considered to be in
    /// communication."
    Always {
        why: String,
    },
    /// Condition 1: a British controlled port in its hex, with a sea link.
    Port {
        town: String,
        sea: Vec<String>,
    },
    /// Condition 2: a British TF or BF in its hex, with a sea link.
    Fleet {
        fleet: String,
        sea: Vec<String>,
    },
    /// Condition 3: a land link to a port holding British regulars.
    LandToPort {
        town: String,
        movement_points: u32,
        land: Vec<String>,
        sea: Vec<String>,
    },
    /// Condition 4: a land link to a strategic town with a magazine.
    LandToMagazine {
        town: String,
        movement_points: u32,
        land: Vec<String>,
    },
    Out,
}

impl Status {
    pub fn is_in(&self) -> bool {
        !matches!(self, Status::Out)
    }

    /// In words, for events and the map.
    pub fn words(&self) -> String {
        match self {
            Status::Always { why } => format!("always in communication ({why})"),
            Status::Port { town, .. } => format!("in communication: in {town}, a British port with a sea link"),
            Status::Fleet { fleet, .. } => format!("in communication: with the {fleet}, which has a sea link"),
            Status::LandToPort { town, movement_points, .. } => {
                format!("in communication: land link of {movement_points} MP to {town}, a British port with regulars and a sea link")
            }
            Status::LandToMagazine { town, movement_points, .. } => {
                format!("in communication: land link of {movement_points} MP to the magazine at {town}")
            }
            Status::Out => "out of communication".to_string(),
        }
    }
}

/// Why a unit is always in communication, if it is.
pub fn always(m: &Module, unit: &str) -> Option<String> {
    let u = m.unit(unit)?;
    if u.side != BRITISH {
        return Some(format!("{} forces", if u.nationality == "french" { "French" } else { "American" }));
    }
    if u.is_supply() {
        // Not a regiment: COMMUNICATIONS speaks of British regular units,
        // ATTRITION of units that lose stands; a supply unit has none.
        return Some("a supply unit".to_string());
    }
    match u.class {
        Class::Legion => Some("a legion unit".to_string()),
        Class::Militia => Some("Tory militia".to_string()),
        Class::Regular => None,
    }
}

/// What blocks sea links for the British: hexes a French BF is in or next
/// to, and class 2 river hexsides in the hex of an American fort holding
/// an American artillery unit.
struct Blocks {
    french: BTreeSet<HexId>,
    forts: BTreeSet<HexId>,
}

fn blocks(m: &Module, s: &State) -> Blocks {
    let mut french = BTreeSet::new();
    for (id, p) in &s.pieces {
        let Some(f) = m.fleet(id) else { continue };
        let Some(hex) = p.hex.as_deref().and_then(|h| h.parse::<HexId>().ok()) else { continue };
        if f.nationality == "french" && f.kind == FleetKind::Bf {
            // "A French BF blocks the sea link if it passes through or
            // adjacent to the hex containing the French BF."
            french.insert(hex);
            french.extend(neighbours(hex, m.map.layout));
        }
    }
    let mut forts = BTreeSet::new();
    for f in s.forts.iter().filter(|f| f.side != BRITISH) {
        let Ok(hex) = f.hex.parse::<HexId>() else { continue };
        // "An enemy fort containing an artillery unit blocks any sea link
        // passing along a class 2 river hexside in its hex."
        let gun = s.at(hex).iter().any(|id| m.unit(id).is_some_and(|u| u.kind == Kind::Artillery && u.side == f.side));
        if gun {
            forts.insert(hex);
        }
    }
    Blocks { french, forts }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Node {
    Sea(HexId),
    /// A river's hexside, by river and place from the mouth.
    Side(usize, usize),
}

/// A sea link from `hex` (a port, or a sea lane holding a fleet) to the
/// east map edge, as the hexes it passes; none if every path is blocked.
pub fn sea_link(m: &Module, s: &State, hex: HexId) -> Option<Vec<HexId>> {
    let b = blocks(m, s);
    let water = |h: HexId| m.map.terrain.get(&h).map(String::as_str) == Some(WATER);
    let open = |n: Node| match n {
        Node::Sea(h) => !b.french.contains(&h),
        Node::Side(r, k) => {
            let (side, class) = m.rivers[r].hexsides[k];
            let (a, c) = side.hexes();
            !(b.french.contains(&a) || b.french.contains(&c))
                && !(class == 2 && (b.forts.contains(&a) || b.forts.contains(&c)))
        }
    };
    let mut starts = Vec::new();
    if water(hex) {
        starts.push(Node::Sea(hex));
    } else {
        starts.extend(neighbours(hex, m.map.layout).into_iter().filter(|n| water(*n)).map(Node::Sea));
        for (r, river) in m.rivers.iter().enumerate() {
            for (k, (side, _)) in river.hexsides.iter().enumerate() {
                if side.contains(hex) {
                    starts.push(Node::Side(r, k));
                }
            }
        }
    }
    let mut prev: BTreeMap<Node, Option<Node>> = BTreeMap::new();
    let mut queue = VecDeque::new();
    for n in starts {
        if open(n) && !prev.contains_key(&n) {
            prev.insert(n, None);
            queue.push_back(n);
        }
    }
    while let Some(n) = queue.pop_front() {
        if let Node::Sea(h) = n {
            if h.col() == m.map.columns.last {
                let mut path = Vec::new();
                let mut at = Some(n);
                while let Some(x) = at {
                    path.push(match x {
                        Node::Sea(h) => h,
                        Node::Side(r, k) => m.rivers[r].hexsides[k].0.low(),
                    });
                    at = prev[&x];
                }
                path.reverse();
                path.dedup();
                return Some(path);
            }
        }
        let mut next = Vec::new();
        match n {
            Node::Sea(h) => {
                next.extend(neighbours(h, m.map.layout).into_iter().filter(|x| water(*x)).map(Node::Sea));
                for (r, river) in m.rivers.iter().enumerate() {
                    if river.mouth == h && !river.hexsides.is_empty() {
                        next.push(Node::Side(r, 0));
                    }
                }
            }
            Node::Side(r, k) => {
                if k == 0 {
                    next.push(Node::Sea(m.rivers[r].mouth));
                } else {
                    next.push(Node::Side(r, k - 1));
                }
                if k + 1 < m.rivers[r].hexsides.len() {
                    next.push(Node::Side(r, k + 1));
                }
            }
        }
        for x in next {
            if open(x) && !prev.contains_key(&x) {
                prev.insert(x, Some(n));
                queue.push_back(x);
            }
        }
    }
    None
}

/// "A land link is a path of hexes no longer than 9 movement points. This
/// path is blocked if it passes through a hex which is occupied or
/// adjacent to an enemy land unit and not occupied nor adjacent to a
/// British land unit."
pub fn land_links(m: &Module, s: &State, from: HexId) -> BTreeMap<HexId, (u32, Vec<HexId>)> {
    land_links_of(m, s, BRITISH, from)
}

/// The land links of `side` from `from`, its own land units and the
/// enemy's as the article says of the British (SUPPLY: the "valid line of
/// communications" to a magazine, traced by either side).
pub fn land_links_of(m: &Module, s: &State, side: &str, from: HexId) -> BTreeMap<HexId, (u32, Vec<HexId>)> {
    let limit = m.charts.communications.land_link_movement_points.value;
    let ours = land_units_of(m, s, side);
    let theirs: BTreeSet<HexId> =
        m.info.sides.iter().filter(|x| x.id != side).flat_map(|x| land_units_of(m, s, &x.id)).collect();
    let layout = m.map.layout;
    let near = |set: &BTreeSet<HexId>, h: HexId| set.contains(&h) || set.iter().any(|x| are_adjacent(*x, h, layout));
    let blocked = |h: HexId| near(&theirs, h) && !near(&ours, h);
    reach(m, from, limit, &blocked)
}

/// Whether a British regular unit standing at `hex` would be in
/// communication, and how (the four conditions, in the article's order).
pub fn status_at(m: &Module, s: &State, hex: HexId) -> Status {
    let hexes = |p: &[HexId]| p.iter().map(|h| h.to_string()).collect::<Vec<_>>();
    let british_port =
        |h: HexId| m.town_at(h).filter(|t| t.port && s.control.get(&t.id).map(String::as_str) == Some(BRITISH));
    if let Some(t) = british_port(hex) {
        if let Some(sea) = sea_link(m, s, hex) {
            return Status::Port { town: t.name.clone(), sea: hexes(&sea) };
        }
    }
    for id in s.at(hex) {
        if m.fleet(id).is_some_and(|f| f.side == BRITISH) {
            if let Some(sea) = sea_link(m, s, hex) {
                return Status::Fleet {
                    fleet: m.fleet(id).map(|f| f.name.clone()).unwrap_or_default(),
                    sea: hexes(&sea),
                };
            }
        }
    }
    let links = land_links(m, s, hex);
    let mut best: Option<Status> = None;
    let mut best_cost = u32::MAX;
    for (h, (cost, path)) in &links {
        if *cost >= best_cost {
            continue;
        }
        let Some(t) = m.town_at(*h) else { continue };
        if s.control.get(&t.id).map(String::as_str) != Some(BRITISH) {
            continue;
        }
        if t.port {
            let regulars = s.at(*h).iter().any(|id| {
                m.unit(id).is_some_and(|u| {
                    u.side == BRITISH && u.class == Class::Regular && !matches!(u.kind, Kind::Artillery | Kind::Supply)
                })
            });
            if regulars {
                if let Some(sea) = sea_link(m, s, *h) {
                    best = Some(Status::LandToPort {
                        town: t.name.clone(),
                        movement_points: *cost,
                        land: hexes(path),
                        sea: hexes(&sea),
                    });
                    best_cost = *cost;
                    continue;
                }
            }
        }
        if t.strategic && s.magazines.contains(&t.id) {
            best = Some(Status::LandToMagazine { town: t.name.clone(), movement_points: *cost, land: hexes(path) });
            best_cost = *cost;
        }
    }
    best.unwrap_or(Status::Out)
}

/// A unit's communications where it stands: always, or traced.
pub fn status(m: &Module, s: &State, unit: &str) -> Option<Status> {
    let hex = s.hex_of(unit)?;
    if let Some(why) = always(m, unit) {
        return Some(Status::Always { why });
    }
    Some(status_at(m, s, hex))
}

/// Every British regular unit on the map that must trace communications,
/// and its status.
pub fn traced(m: &Module, s: &State) -> BTreeMap<String, Status> {
    s.pieces
        .keys()
        .filter(|id| m.unit(id).is_some_and(|u| u.side == BRITISH) && always(m, id).is_none())
        .filter_map(|id| Some((id.clone(), status(m, s, id)?)))
        .collect()
}
