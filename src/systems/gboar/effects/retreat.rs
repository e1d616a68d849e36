//! Retreats (series 13.2), with the capture of a unit that cannot retreat
//! the full distance (13.23, 13.24), leaders retreating with their units
//! (13.26, 14.31), Cavalry Withdrawal's three hexes (12.4) and the Savannah
//! exceptions: retreat toward the army's HQ (4.19), units stacked by a
//! retreat (4.1) and Lost units pinned instead (4.9).
//!
//! # Where a unit may retreat (13.22)
//!
//! Every hex entered, the last and those passed through, must be on the
//! map; not prohibited terrain (the Terrain Effects Chart's `prohibited`
//! movement cost); not occupied by an enemy counter (a lone leader too);
//! not in an enemy ZOC, whoever else is there (8.1 as [`crate::systems::gboar::board::zoc`]
//! computes it: disrupted, shattered and Lost units have none); and within
//! the stacking limit of module.yaml `stacking` (7.1: the player's units
//! already there, all its armies, plus the unit and the leaders going with
//! it). A one-hex retreat enters one adjacent hex; a three-hex retreat
//! (13.24, "D") enters three, each one hex further from the start, so that
//! it ends three hexes away by the shortest distance.
//!
//! The exclusive rules' stacking restrictions (module.yaml
//! `stacking.restrictions`, Savannah 4.1) bind retreats too: a pair the
//! restriction keeps apart may end a retreat together only with
//! `after_retreat: {allowed: true}` (French and Americans, French Regulars
//! and Colonial Militia), and may pass through each other only with
//! `may_pass_through: true`. A restriction with `if_unavoidable: captured`
//! (the Negro Volunteers) makes such hexes a last resort: when every open
//! retreat stacks the pair, the unit retreats all the same and the units
//! of the restriction's `a` selector in the pair are captured instead
//! (the Negro Volunteers, whether they are the unit retreating or the unit
//! retreated onto). Without it, such a hex is closed like any other.
//!
//! # Which of the open retreats (13.21, 13.24)
//!
//! Of the open retreats, those ending next to no enemy combat unit if
//! there are any (13.21, 13.24; for a Cavalry Withdrawal, 12.4 and 13.24,
//! only those: with none the withdrawal is refused); of these, those that
//! end nearer the unit's goal than the hex it leaves, if there are any
//! ("toward", read as ending nearer, by the shortest distance). The goal
//! is module.yaml `retreat`:
//!
//! ```yaml
//! retreat:
//!   toward: headquarters        # Savannah 4.19: the army's HQ, map.yaml `headquarters`
//!   rule: "Savannah 4.19"
//! # or, series 13.21's friendly map edges, per army:
//! #  toward: map-edge
//! #  edges: {british: [east], french: [west, south]}
//! ```
//!
//! Without `retreat`, or for an army with no HQ (or no edge), there is no
//! goal and the events say so.
//!
//! The retreating player chooses among these ([`RetreatChoice`]: the hexes
//! entered, in order); a path that breaks a rule is refused, saying which
//! rule and listing the legal retreats. Without a choice the engine takes
//! **the default**, named so in the event: the end hex next to no enemy
//! combat unit if possible, then nearest the goal, then next to the fewest
//! enemy combat units, then the lowest hex id; and to it, the path through
//! the lowest hex ids.
//!
//! # Capture (13.23, 13.24)
//!
//! A unit with no open retreat of the full distance is captured
//! ([`crate::systems::gboar::effects::results::capture`]: army morale, VPs and 12.64). Exception: a
//! two-step unit at full strength that could retreat once reduced (the
//! stacking limit was all that held it) takes a step loss
//! ([`crate::systems::gboar::effects::losses::lose_steps`], the Army Morale adjustments of a "1")
//! and retreats, unless its player chooses capture (`step_loss: false`).
//! The default is the step loss.
//!
//! # Leaders (13.26, 14.31)
//!
//! Leaders are never made to retreat. A friendly leader in the hex a unit
//! retreats from goes with it when the player says so (`leaders`); by
//! default ("with the stack") the leaders of the hex that no choice names
//! go with the last friendly combat unit to leave it, and stay while any
//! friendly combat unit stays.
//!
//! # Savannah 4.9
//!
//! A Lost unit that must retreat because of a close combat result (any
//! retreat the result calls for: R, D's three hexes, a morale check's
//! retreat) is pinned instead, with the close combat's PIN id; a retreat
//! outside close combat (fire, the end of the phase) is made normally.
//!
//! # Army morale
//!
//! A one-hex retreat caused by a combat result (R, a morale check's retreat)
//! applies the Army Morale Adjustment Chart's `unit-retreated` when the
//! caller asks for it ([`Order::army_morale`]); a three-hex retreat's
//! adjustments are those of its disruption (the caller's).

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use crate::base::error::{Error, Result};
use crate::base::hex::{distance, neighbours, HexId};
use crate::system::Event;
use crate::systems::gboar::board::refusals::{self, Code};
use crate::systems::gboar::board::state::State;
use crate::systems::gboar::board::terrain::{Terrain, Works};
use crate::systems::gboar::board::units::hex_of;
use crate::systems::gboar::board::zoc::{self, Zoc};
use crate::systems::gboar::board::Rules;
use crate::systems::gboar::data::charts::MovementCost;
use crate::systems::gboar::data::counters::Counter;

// ---------------------------------------------------------------------------
// What module.yaml says

/// module.yaml `retreat`: the goal of 13.21's guideline.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetreatRule {
    pub toward: Toward,
    /// With `toward: map-edge`: each army's friendly map edges.
    #[serde(default)]
    pub edges: BTreeMap<String, Vec<Edge>>,
    #[serde(default)]
    pub rule: Option<String>,
    #[serde(default)]
    pub note: Option<String>,
}

/// What a retreat goes toward.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Toward {
    /// Savannah 4.19: the army's HQ (map.yaml `headquarters`).
    Headquarters,
    /// Series 13.21: the army's friendly map edges (`edges`).
    MapEdge,
}

/// A map edge: the first or last row or column of map.yaml.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Edge {
    North,
    South,
    East,
    West,
}

/// A stacking restriction's retreat fields (Savannah 4.1), from
/// [`crate::systems::gboar::data::stacking::Restriction`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RestrictionRetreat {
    /// `after_retreat: {allowed: true}`: the pair may end a retreat stacked.
    pub allowed: bool,
    /// `if_unavoidable: captured`: the `a` units are captured when every
    /// open retreat stacks the pair.
    pub captured_if_unavoidable: bool,
}

/// Series 12.64, 12.65 as module.yaml `momentum` gives them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MomentumRules {
    /// 12.61: the chits of the pool.
    pub pool: u32,
    /// 12.64: a unit of this printed morale captured at full strength costs a chit.
    pub captured_printed_morale: Option<i32>,
    /// The rule 12.64's entry cites.
    pub rule: String,
}

/// What retreats and combat results read of module.yaml beyond [`Rules`].
#[derive(Debug, Clone, Default)]
pub struct Data {
    pub retreat: Option<RetreatRule>,
    pub restrictions: BTreeMap<String, RestrictionRetreat>,
    /// None when the module has no momentum (series 12.6 not in use).
    pub momentum: Option<MomentumRules>,
}

#[derive(Debug, Clone, Deserialize)]
struct ModuleFile {
    #[serde(default)]
    retreat: Option<RetreatRule>,
    #[serde(default)]
    momentum: Option<MomentumFile>,
}

#[derive(Debug, Clone, Deserialize)]
struct MomentumFile {
    #[serde(default)]
    pool: u32,
    #[serde(default)]
    lose: Vec<MomentumLoss>,
}

#[derive(Debug, Clone, Deserialize)]
struct MomentumLoss {
    #[serde(default)]
    printed_morale: Option<i32>,
    #[serde(default)]
    rule: Option<String>,
}

/// Series 12.61: the chits of module.yaml's momentum pool (0 when the
/// module has no momentum, or module.yaml cannot be read: a module the
/// checks of `check-game` refuse).
pub fn momentum_pool(rules: &Rules) -> u32 {
    rules
        .module
        .source
        .parse_cached::<ModuleFile>("module.yaml")
        .ok()
        .and_then(|f| f.momentum)
        .map(|m| m.pool)
        .unwrap_or(0)
}

impl Data {
    /// Read module.yaml's `retreat`, the retreat fields of
    /// `stacking.restrictions` and `momentum`.
    pub fn load(rules: &Rules) -> Result<Data> {
        let file: ModuleFile = rules.module.source.parse_cached("module.yaml")?;
        let mut restrictions = BTreeMap::new();
        for r in rules.stacking.iter().flat_map(|s| &s.restrictions) {
            let captured_if_unavoidable = match r.if_unavoidable.as_deref() {
                None => false,
                Some("captured") => true,
                Some(other) => {
                    return Err(Error::refused(format!(
                        "module.yaml stacking.restrictions {}: if_unavoidable '{other}' is not known (the engine \
                         knows 'captured')",
                        r.id
                    )))
                }
            };
            let allowed = r.after_retreat.as_ref().is_some_and(|a| a.allowed);
            restrictions.insert(r.id.clone(), RestrictionRetreat { allowed, captured_if_unavoidable });
        }
        if let Some(rule) = &file.retreat {
            if rule.toward == Toward::MapEdge && rule.edges.is_empty() {
                return Err(Error::refused(
                    "module.yaml retreat: toward: map-edge needs `edges` (each army's friendly map edges, 13.21)",
                ));
            }
        }
        let momentum = file.momentum.map(|m| {
            let loss = m.lose.iter().find(|l| l.printed_morale.is_some());
            MomentumRules {
                pool: m.pool,
                captured_printed_morale: loss.and_then(|l| l.printed_morale),
                rule: loss.and_then(|l| l.rule.clone()).unwrap_or_else(|| "series 12.64".to_string()),
            }
        });
        Ok(Data { retreat: file.retreat, restrictions, momentum })
    }
}

// ---------------------------------------------------------------------------
// Orders and outcomes

/// How far a retreat goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Distance {
    /// One hex (R, a morale check's retreat).
    One,
    /// Three hexes, ending three hexes away (D, 13.24).
    Three,
    /// 12.4: three hexes, never ending next to an enemy unit (13.24).
    CavalryWithdrawal,
}

impl Distance {
    pub fn hexes(self) -> usize {
        match self {
            Distance::One => 1,
            Distance::Three | Distance::CavalryWithdrawal => 3,
        }
    }
}

/// The retreating player's choice for one unit's retreat.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetreatChoice {
    /// The hexes entered, in order (one or three); empty: the default.
    #[serde(default)]
    pub path: Vec<String>,
    /// 13.23's exception: `true` takes a step loss and retreats, `false` is
    /// captured; absent: the default (the step loss).
    #[serde(default)]
    pub step_loss: Option<bool>,
    /// 13.26: the leaders of the hex who go with the unit (`[]`: none);
    /// absent: the default ("with the stack").
    #[serde(default)]
    pub leaders: Option<Vec<String>>,
}

/// One retreat to make.
#[derive(Debug, Clone)]
pub struct Order<'a> {
    pub unit: &'a str,
    pub distance: Distance,
    /// The rule that calls for it, for the events ("13.1").
    pub rule: &'a str,
    /// Why, in words ("R, close combat c1").
    pub why: &'a str,
    /// The enemy army credited with a capture (13.23).
    pub by: &'a str,
    /// The close combat's id when a close combat result calls for the
    /// retreat: Savannah 4.9 then pins a Lost unit instead, with this id as
    /// its `pin_result`. `None` in fire combat and outside combat.
    pub close_combat: Option<&'a str>,
    /// Apply the Army Morale Adjustment Chart's `unit-retreated` (16.1).
    pub army_morale: bool,
}

/// What became of a retreating unit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// It retreated along `path` (the hexes entered), with `leaders`.
    Retreated { path: Vec<HexId>, leaders: Vec<String> },
    /// It could not retreat the full distance (13.23, 13.24) or was the
    /// unit a stacking restriction captures (Savannah 4.1).
    Captured,
    /// Savannah 4.9: Lost, pinned instead.
    Pinned,
    /// Already off the map when its retreat came: captured or eliminated
    /// earlier in the same result (a stack-mate's retreat that a Savannah
    /// 4.1 restriction made capture it). Nothing retreats; no event.
    Gone,
}

/// The Army Morale Adjustment Chart entry of a retreat for a combat result.
pub const RETREATED_ENTRY: &str = "unit-retreated";

// ---------------------------------------------------------------------------
// The ground

/// One open retreat.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Route {
    hexes: Vec<HexId>,
    /// Units a stacking restriction with `if_unavoidable: captured` takes
    /// (the restriction's rule and the units).
    captures: Vec<(String, Vec<String>)>,
}

impl Route {
    fn end(&self) -> Option<HexId> {
        self.hexes.last().copied()
    }

    fn words(&self) -> String {
        self.hexes.iter().map(|h| h.to_string()).collect::<Vec<_>>().join("-")
    }
}

/// Why a hex may not be entered.
enum Check {
    Open,
    /// Stacks a restricted pair whose restriction captures if unavoidable.
    LastResort(String, Vec<String>),
    Closed(String),
}

/// Everything one retreat looks at, fixed before it is made.
struct Ground<'a> {
    rules: &'a Rules,
    terrain: Terrain<'a>,
    zoc: Zoc<'a>,
    unit: &'a Counter,
    start: HexId,
    /// Enemy counters by hex, and enemy combat units by hex.
    enemy: BTreeMap<HexId, Vec<String>>,
    enemy_combat: BTreeMap<HexId, Vec<String>>,
    /// The player's units by hex, the retreating group left out.
    friendly: BTreeMap<HexId, Vec<String>>,
    /// The retreating unit and its leaders.
    group: Vec<String>,
    goal: Goal,
}

/// What the retreat goes toward (13.21, Savannah 4.19).
struct Goal {
    hexes: Vec<HexId>,
    words: String,
    rule: String,
}

impl Goal {
    fn distance(&self, hex: HexId, layout: crate::base::hex::Layout) -> Option<u32> {
        self.hexes.iter().map(|g| distance(hex, *g, layout)).min()
    }
}

/// The goal of `army`'s retreats (module.yaml `retreat`).
fn goal(rules: &Rules, data: &Data, army: &str) -> Goal {
    let map = &rules.module.map;
    let none = |why: String| Goal { hexes: Vec::new(), words: why, rule: "13.21".into() };
    let Some(r) = &data.retreat else {
        return none("the module names no friendly map edge (13.21)".into());
    };
    let rule = r.rule.clone().unwrap_or_else(|| "13.21".into());
    match r.toward {
        Toward::Headquarters => match map.headquarters.get(army) {
            Some(hq) => Goal { hexes: vec![*hq], words: format!("{army}'s HQ ({hq})"), rule },
            None => none(format!("{army} has no HQ on the map ({rule})")),
        },
        Toward::MapEdge => {
            let edges = r.edges.get(army).cloned().unwrap_or_default();
            let hexes: Vec<HexId> = map
                .terrain
                .keys()
                .filter(|h| {
                    edges.iter().any(|e| match e {
                        Edge::North => h.row() == map.rows.first,
                        Edge::South => h.row() == map.rows.last,
                        Edge::West => h.col() == map.columns.first,
                        Edge::East => h.col() == map.columns.last,
                    })
                })
                .copied()
                .collect();
            if hexes.is_empty() {
                return none(format!("{army} has no friendly map edge ({rule})"));
            }
            let names: Vec<String> = edges.iter().map(|e| format!("{e:?}").to_lowercase()).collect();
            Goal { hexes, words: format!("{army}'s friendly map edge ({})", names.join(", ")), rule }
        }
    }
}

impl<'a> Ground<'a> {
    fn new(
        rules: &'a Rules,
        data: &Data,
        state: &State,
        works: Works<'a>,
        unit: &'a Counter,
        group: Vec<String>,
    ) -> Result<Ground<'a>> {
        let start = hex_of(state, &unit.id)
            .ok_or_else(|| Error::refused(format!("{} is not on the map: it cannot retreat", unit.id)))?;
        let player = rules
            .player_of_army(&unit.army)
            .ok_or_else(|| Error::refused(format!("the army {} of {} is no player's", unit.army, unit.id)))?
            .to_string();
        let terrain = Terrain::with(rules, works);
        let player_of_army = rules.players_of_armies();
        let zoc = zoc::enemy_zoc(rules, &terrain, state, &player_of_army, &player);
        let mut enemy: BTreeMap<HexId, Vec<String>> = BTreeMap::new();
        let mut enemy_combat: BTreeMap<HexId, Vec<String>> = BTreeMap::new();
        let mut friendly: BTreeMap<HexId, Vec<String>> = BTreeMap::new();
        for id in state.units.keys() {
            let (Some(c), Some(h)) = (rules.counter(id), hex_of(state, id)) else { continue };
            if player_of_army.get(&c.army) == Some(&player) {
                if !group.contains(id) {
                    friendly.entry(h).or_default().push(id.clone());
                }
            } else {
                enemy.entry(h).or_default().push(id.clone());
                if !c.is_leader() {
                    enemy_combat.entry(h).or_default().push(id.clone());
                }
            }
        }
        let goal = goal(rules, data, &unit.army);
        Ok(Ground { rules, terrain, zoc, unit, start, enemy, enemy_combat, friendly, group, goal })
    }

    fn layout(&self) -> crate::base::hex::Layout {
        self.rules.module.map.layout
    }

    /// Enemy combat units next to `hex` (13.21: "adjacent to an enemy unit").
    fn adjacent_enemies(&self, hex: HexId) -> Vec<String> {
        neighbours(hex, self.layout())
            .into_iter()
            .filter_map(|n| self.enemy_combat.get(&n))
            .flatten()
            .cloned()
            .collect()
    }

    /// 13.22 and Savannah 4.1: may the group enter `to` (the last hex when
    /// `end`), counting `steps` for the retreating unit?
    fn check(&self, data: &Data, state: &State, to: HexId, end: bool, steps: u8) -> Check {
        let Some(info) = self.terrain.hex(to) else { return Check::Closed(format!("{to} is off the map (13.22)")) };
        if info.movement_cost == MovementCost::Prohibited {
            return Check::Closed(format!("{to} is prohibited terrain, {} (13.22)", info.name));
        }
        if let Some(units) = self.enemy.get(&to) {
            return Check::Closed(format!("{to} is occupied by the enemy: {} (13.22)", units.join(", ")));
        }
        // A zone a retreating unit may never enter (Savannah 4.8: "Creeks
        // may never enter the Savannah Defensive Perimeter"), as a move may
        // not ([`crate::systems::gboar::phases::movement`]'s zone rules).
        for id in &self.group {
            if let Some((_, ban)) = crate::systems::gboar::board::units::zone_ban_at(self.rules, id, &[to]) {
                return Check::Closed(format!(
                    "{to} is in the {}, which {id} may never enter ({})",
                    ban.zone, ban.rule
                ));
            }
        }
        let zoc = self.zoc.exerted_on(to);
        if !zoc.is_empty() {
            return Check::Closed(format!(
                "{to} is in the ZOC of {} (13.22: even with friendly units there)",
                zoc.join(", ")
            ));
        }
        let here: &[String] = self.friendly.get(&to).map(Vec::as_slice).unwrap_or(&[]);
        if let Some(limits) = &self.rules.stacking {
            let weight = |id: &str| -> (i32, i32) {
                let Some(c) = self.rules.counter(id) else { return (0, 0) };
                let left = if id == self.unit.id { steps } else { state.units.get(id).map(|u| u.steps).unwrap_or(1) };
                c.stacking_weight(left, limits.leaders_count)
            };
            let (mut sps, mut guns) = (0, 0);
            for id in here {
                let (s, g) = weight(id);
                sps += s;
                guns += g;
            }
            let (mut gs, mut gg) = (0, 0);
            for id in &self.group {
                let (s, g) = weight(id);
                gs += s;
                gg += g;
            }
            if limits.over_in(sps + gs, guns + gg, gs, gg) {
                return Check::Closed(format!(
                    "{to} would hold {} SPs and {} artillery unit(s), over the stacking limit of {} SPs and {} \
                     (13.22, 7.1)",
                    sps + gs,
                    guns + gg,
                    limits.max_strength_points,
                    limits.max_artillery_units
                ));
            }
            let mut last_resort: Option<(String, Vec<String>)> = None;
            for r in &limits.restrictions {
                let fields = data.restrictions.get(&r.id).cloned().unwrap_or_default();
                for x in self.group.iter().filter_map(|id| self.rules.counter(id)) {
                    for y in here.iter().filter_map(|id| self.rules.counter(id)) {
                        if !r.applies(x, y) {
                            continue;
                        }
                        let rule = r.rule.clone().unwrap_or_else(|| "module.yaml stacking".into());
                        let permitted = if end { fields.allowed } else { fields.allowed || r.may_pass_through };
                        if permitted {
                            continue;
                        }
                        if fields.captured_if_unavoidable {
                            let taken: Vec<String> =
                                [x, y].iter().filter(|c| r.between.a.matches(c)).map(|c| c.id.clone()).collect();
                            let entry = last_resort.get_or_insert((format!("{rule} ({})", r.id), Vec::new()));
                            for t in taken {
                                if !entry.1.contains(&t) {
                                    entry.1.push(t);
                                }
                            }
                        } else {
                            return Check::Closed(format!(
                                "{to} would stack {} with {}, which {} forbids ({rule})",
                                x.id, y.id, r.id
                            ));
                        }
                    }
                }
            }
            if let Some((rule, units)) = last_resort {
                return Check::LastResort(rule, units);
            }
        }
        Check::Open
    }

    /// Every open retreat of `hexes` hexes for the unit with `steps` left.
    fn routes(&self, data: &Data, state: &State, hexes: usize, steps: u8) -> Vec<Route> {
        let mut found = Vec::new();
        let mut path = Vec::new();
        let mut captures = Vec::new();
        self.extend(data, state, hexes, steps, &mut path, &mut captures, &mut found);
        found
    }

    #[allow(clippy::too_many_arguments)]
    fn extend(
        &self,
        data: &Data,
        state: &State,
        hexes: usize,
        steps: u8,
        path: &mut Vec<HexId>,
        captures: &mut Vec<(String, Vec<String>)>,
        found: &mut Vec<Route>,
    ) {
        let from = path.last().copied().unwrap_or(self.start);
        let depth = path.len();
        for n in neighbours(from, self.layout()) {
            // Each hex one further from the start: 13.24's three hexes away.
            if distance(self.start, n, self.layout()) as usize != depth + 1 {
                continue;
            }
            let end = depth + 1 == hexes;
            let before = captures.len();
            match self.check(data, state, n, end, steps) {
                Check::Closed(_) => continue,
                Check::LastResort(rule, units) => captures.push((rule, units)),
                Check::Open => {}
            }
            path.push(n);
            if end {
                found.push(Route { hexes: path.clone(), captures: captures.clone() });
            } else {
                self.extend(data, state, hexes, steps, path, captures, found);
            }
            path.pop();
            captures.truncate(before);
        }
    }

    /// Why no retreat is open: each adjacent hex and what closes it.
    fn closed_words(&self, data: &Data, state: &State, hexes: usize, steps: u8) -> String {
        let mut why: Vec<String> = Vec::new();
        for n in neighbours(self.start, self.layout()) {
            match self.check(data, state, n, hexes == 1, steps) {
                Check::Closed(w) => why.push(w),
                _ => why.push(format!("{n} is open but leads to no hex {hexes} hexes away that is")),
            }
        }
        why.join("; ")
    }
}

/// The legal retreats among the open ones, and the guidelines applied
/// (13.21, 13.24, 12.4, Savannah 4.1, 4.19), with the words that say so.
struct Legal {
    routes: Vec<Route>,
    notes: Vec<String>,
}

fn guidelines(ground: &Ground, open: Vec<Route>, distance_kind: Distance) -> Result<Legal> {
    let layout = ground.layout();
    let mut notes = Vec::new();
    let mut routes = open;
    // Savannah 4.1: a restricted stack only if unavoidable.
    if routes.iter().any(|r| r.captures.is_empty()) {
        if let Some((rule, _)) = routes.iter().find_map(|r| r.captures.first()) {
            notes.push(format!("not stacking units {rule} keeps apart while another retreat is open"));
        }
        routes.retain(|r| r.captures.is_empty());
    } else if let Some(r) = routes.first() {
        let (rule, _) = r.captures.first().cloned().unwrap_or_default();
        notes.push(format!("every open retreat stacks units {rule} keeps apart: it is unavoidable"));
    }
    // 13.21, 13.24, 12.4: not next to the enemy, if possible.
    let apart: Vec<Route> =
        routes.iter().filter(|r| r.end().is_some_and(|e| ground.adjacent_enemies(e).is_empty())).cloned().collect();
    if distance_kind == Distance::CavalryWithdrawal && apart.is_empty() {
        return Err(Error::refused(format!(
            "12.4, 13.24: {} has no open hex three hexes away that is not adjacent to an enemy unit: the Cavalry \
             Withdrawal is not possible",
            ground.unit.id
        )));
    }
    if !apart.is_empty() {
        if apart.len() < routes.len() {
            notes.push("ending next to no enemy unit (13.21)".into());
        }
        routes = apart;
    } else if !routes.is_empty() {
        notes.push("every open hex is next to an enemy unit (13.21)".into());
    }
    // 13.21, Savannah 4.19: toward the goal, if possible.
    if let Some(here) = ground.goal.distance(ground.start, layout) {
        let nearer: Vec<Route> = routes
            .iter()
            .filter(|r| r.end().and_then(|e| ground.goal.distance(e, layout)).is_some_and(|d| d < here))
            .cloned()
            .collect();
        if !nearer.is_empty() {
            if nearer.len() < routes.len() {
                notes.push(format!("toward {} ({})", ground.goal.words, ground.goal.rule));
            }
            routes = nearer;
        } else if !routes.is_empty() {
            notes.push(format!("no open retreat ends nearer {} ({})", ground.goal.words, ground.goal.rule));
        }
    } else {
        notes.push(format!("no retreat goal: {}", ground.goal.words));
    }
    Ok(Legal { routes, notes })
}

/// The default among legal retreats (module documentation).
fn default_route(ground: &Ground, legal: &[Route]) -> Option<Route> {
    let layout = ground.layout();
    legal
        .iter()
        .min_by_key(|r| {
            let end = r.end();
            let adjacent = end.map(|e| ground.adjacent_enemies(e).len()).unwrap_or(usize::MAX);
            let to_goal = end.and_then(|e| ground.goal.distance(e, layout)).unwrap_or(0);
            (adjacent > 0, to_goal, adjacent, end, r.hexes.clone())
        })
        .cloned()
}

fn default_words(ground: &Ground) -> String {
    format!(
        "the default retreat: a hex next to no enemy unit if possible, then nearest {}, then next to the fewest enemy \
         units, then the lowest hex id, by the lowest hex ids",
        if ground.goal.hexes.is_empty() { "the goal (none here)".to_string() } else { ground.goal.words.clone() }
    )
}

/// The legal retreats in words, for refusals.
fn legal_words(legal: &[Route]) -> String {
    if legal.is_empty() {
        return "none".into();
    }
    let mut by_end: BTreeMap<HexId, &Route> = BTreeMap::new();
    for r in legal {
        if let Some(e) = r.end() {
            by_end.entry(e).or_insert(r);
        }
    }
    by_end
        .iter()
        .map(|(e, r)| if r.hexes.len() == 1 { e.to_string() } else { format!("{e} (e.g. {})", r.words()) })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Check a chosen path against the rules: the route it is, or why not.
fn chosen_route(
    ground: &Ground,
    data: &Data,
    state: &State,
    choice: &[String],
    hexes: usize,
    steps: u8,
    legal: &Legal,
) -> Result<Route> {
    let unit = &ground.unit.id;
    let refuse = |why: String| {
        refusals::refuse(
            Code::ResultChoice,
            format!(
                "retreat of {unit} from {}: path {}: {why}; the legal retreats: {}",
                ground.start,
                choice.join("-"),
                legal_words(&legal.routes)
            ),
        )
    };
    if choice.len() != hexes {
        return Err(refuse(format!("a retreat of {hexes} hex{} enters {hexes}", if hexes == 1 { "" } else { "es" })));
    }
    let mut path = Vec::new();
    let mut from = ground.start;
    for (i, text) in choice.iter().enumerate() {
        let hex: HexId = text.parse().map_err(|e| refuse(format!("'{text}' is not a hex id ({e})")))?;
        if !crate::base::hex::are_adjacent(from, hex, ground.layout()) {
            return Err(refuse(format!("{hex} is not adjacent to {from}")));
        }
        if distance(ground.start, hex, ground.layout()) as usize != i + 1 {
            return Err(refuse(format!(
                "{hex} is not {} hex{} from {} (13.24: each hex one further, to end {hexes} away)",
                i + 1,
                if i == 0 { "" } else { "es" },
                ground.start
            )));
        }
        if let Check::Closed(why) = ground.check(data, state, hex, i + 1 == hexes, steps) {
            return Err(refuse(why));
        }
        path.push(hex);
        from = hex;
    }
    match legal.routes.iter().find(|r| r.hexes == path) {
        Some(r) => Ok(r.clone()),
        None => Err(refuse(format!(
            "it is open, but the rules prefer other retreats: {}",
            if legal.notes.is_empty() { "see below".to_string() } else { legal.notes.join("; ") }
        ))),
    }
}

// ---------------------------------------------------------------------------
// Retreating

/// Series 13.2 (see the module documentation): `order.unit` retreats, along
/// the chosen path or by default, or is captured, or (Savannah 4.9) is
/// pinned. Refused, with nothing changed, when the choice breaks a rule.
pub fn retreat(
    rules: &Rules,
    state: &mut State,
    order: &Order,
    choice: Option<&RetreatChoice>,
) -> Result<(Outcome, Vec<Event>)> {
    let data = Data::load(rules)?;
    let mut next = state.clone();
    let done = retreat_with(rules, &data, &mut next, order, choice, &BTreeSet::new())?;
    *state = next;
    Ok(done)
}

/// The legal retreats of `unit` (13.21-13.24, Savannah 4.1, 4.19), each the
/// hexes entered, the default first: what a player may choose, and
/// whether a Cavalry Withdrawal can be made (refused when it cannot). The
/// unit's leaders are not counted.
pub fn legal_retreats(rules: &Rules, state: &State, unit: &str, distance_kind: Distance) -> Result<Vec<Vec<HexId>>> {
    let data = Data::load(rules)?;
    let counter = rules.counter(unit).ok_or_else(|| Error::refused(format!("no unit '{unit}' in this module")))?;
    let works = Works { siege_works: &state.siege_works, breaches: &state.breaches };
    let ground = Ground::new(rules, &data, state, works, counter, vec![unit.to_string()])?;
    let steps = state.units.get(unit).map(|u| u.steps).unwrap_or(1);
    let open = ground.routes(&data, state, distance_kind.hexes(), steps);
    let legal = guidelines(&ground, open, distance_kind)?;
    let first = default_route(&ground, &legal.routes);
    let mut list: Vec<Vec<HexId>> = first.iter().map(|r| r.hexes.clone()).collect();
    list.extend(legal.routes.iter().filter(|r| Some(*r) != first.as_ref()).map(|r| r.hexes.clone()));
    Ok(list)
}

/// [`retreat`] with module.yaml already read, on a state the caller
/// discards on error. `claimed`: leaders a choice names for another unit,
/// whom no default takes.
pub fn retreat_with(
    rules: &Rules,
    data: &Data,
    state: &mut State,
    order: &Order,
    choice: Option<&RetreatChoice>,
    claimed: &BTreeSet<String>,
) -> Result<(Outcome, Vec<Event>)> {
    let id = order.unit;
    let counter = rules.counter(id).ok_or_else(|| Error::refused(format!("no unit '{id}' in this module")))?;
    if counter.is_leader() {
        return Err(Error::refused(format!("{id} is a leader: leaders are never required to retreat (13.26)")));
    }
    let now = state.units.get(id).cloned().ok_or_else(|| Error::refused(format!("{id} is not in this game")))?;
    // A unit of a group retreated one by one may have left the map with an
    // earlier one's retreat (Savannah 4.1: `if_unavoidable: captured`).
    if now.hex.is_none()
        && matches!(
            now.off_map,
            Some(
                crate::systems::gboar::board::state::OffMap::Captured
                    | crate::systems::gboar::board::state::OffMap::Eliminated
                    | crate::systems::gboar::board::state::OffMap::Removed
            )
        )
    {
        return Ok((Outcome::Gone, Vec::new()));
    }
    let start =
        hex_of(state, id).ok_or_else(|| Error::refused(format!("{id} is not on the map: it cannot retreat")))?;
    let mut events = Vec::new();

    // Savannah 4.9: a Lost unit is pinned instead (charts/covered-way.yaml
    // `lost_effects`: `retreat_becomes_pin`, `cavalry_withdrawal`).
    let lost = &rules.charts.covered_way.lost_effects;
    if now.lost && !lost.cavalry_withdrawal && order.distance == Distance::CavalryWithdrawal {
        return Err(Error::refused(format!(
            "Savannah 4.9: {id} is Lost: mounted units that are lost may not select Cavalry Withdrawal"
        )));
    }
    // A withdrawal the chart allows is no Retreat result: it is made.
    if now.lost && lost.retreat_becomes_pin && order.distance != Distance::CavalryWithdrawal {
        if let Some(pin) = order.close_combat {
            if let Some(u) = state.units.get_mut(id) {
                u.pinned = true;
                u.pin_result = Some(pin.to_string());
            }
            events.push(
                Event::new(
                    "Savannah 4.9",
                    "pinned-instead",
                    format!(
                        "{} ({id}, {start}) is Lost: it is pinned instead of retreating ({}; {})",
                        counter.name, order.why, order.rule
                    ),
                )
                .with("unit", id)
                .with("hex", start.to_string())
                .with("pin_result", pin)
                .with("why", order.why),
            );
            return Ok((Outcome::Pinned, events));
        }
    }

    // 13.26: the leaders who go with it.
    let player = rules.player_of_army(&counter.army).unwrap_or_default().to_string();
    let friendly_here = |state: &State, leader: bool| -> Vec<String> {
        state
            .units
            .keys()
            .filter(|u| *u != id && hex_of(state, u) == Some(start))
            .filter(|u| {
                rules
                    .counter(u)
                    .is_some_and(|c| c.is_leader() == leader && rules.player_of_army(&c.army) == Some(player.as_str()))
            })
            .cloned()
            .collect()
    };
    let leaders_here = friendly_here(state, true);
    let (leaders, leaders_by) = match choice.and_then(|c| c.leaders.as_ref()) {
        Some(list) => {
            for l in list {
                if !leaders_here.contains(l) {
                    return Err(Error::refused(format!(
                        "retreat of {id}: {l} is not a friendly leader in {start} (13.26); the leaders there: {}",
                        if leaders_here.is_empty() { "none".to_string() } else { leaders_here.join(", ") }
                    )));
                }
            }
            (list.clone(), "choice")
        }
        None => {
            // "With the stack": with the last friendly combat unit to leave.
            let last = friendly_here(state, false).is_empty();
            let going = if last {
                leaders_here.iter().filter(|l| !claimed.contains(*l)).cloned().collect()
            } else {
                Vec::new()
            };
            (going, "default")
        }
    };
    let mut group = vec![id.to_string()];
    group.extend(leaders.iter().cloned());

    // Savannah 4.4, 4.5: the works as the retreat begins (the state changes under it).
    let (siege_works, breaches) = (state.siege_works.clone(), state.breaches.clone());
    let ground =
        Ground::new(rules, data, state, Works { siege_works: &siege_works, breaches: &breaches }, counter, group)?;
    let hexes = order.distance.hexes();
    let full = counter.steps.unwrap_or(1);
    let open = ground.routes(data, state, hexes, now.steps);
    let mut steps = now.steps;
    let mut reduced = false;
    let open = if open.is_empty() && full == 2 && now.steps == 2 {
        // 13.23's exception: the stacking limit alone held it.
        let once_reduced = ground.routes(data, state, hexes, 1);
        if once_reduced.is_empty() {
            open
        } else {
            match choice.and_then(|c| c.step_loss) {
                Some(false) => {
                    events.push(
                        Event::new(
                            "13.23",
                            "retreat-capture-chosen",
                            format!(
                                "{} ({id}) could retreat reduced (13.23's exception), but its player chooses capture",
                                counter.name
                            ),
                        )
                        .with("unit", id)
                        .with("by", "choice"),
                    );
                    Vec::new()
                }
                chosen => {
                    let by = if chosen.is_some() { "choice" } else { "default" };
                    events.push(
                        Event::new(
                            "13.23",
                            "retreat-step-loss",
                            format!(
                                "{} ({id}) cannot retreat within the stacking limit at full strength: it takes a step \
                                 loss and retreats ({}; 13.23's exception)",
                                counter.name,
                                if by == "choice" {
                                    "its player's choice"
                                } else {
                                    "the default; `step_loss: false` would have it captured"
                                }
                            ),
                        )
                        .with("unit", id)
                        .with("by", by),
                    );
                    let cause = crate::systems::gboar::effects::losses::Cause::Combat {
                        rule: "13.23".into(),
                        by: order.by.to_string(),
                    };
                    events.extend(crate::systems::gboar::effects::losses::lose_steps(rules, state, id, 1, cause)?);
                    steps = 1;
                    reduced = true;
                    once_reduced
                }
            }
        }
    } else {
        if let Some(step_loss) = choice.and_then(|c| c.step_loss) {
            let why = if open.is_empty() {
                "its retreat is not held back by the stacking limit alone, or it is not a two-step unit at full strength"
            } else {
                "it can retreat"
            };
            return Err(refusals::refuse(
                Code::ResultChoice,
                format!(
                    "retreat of {id}: step_loss: {step_loss} is for 13.23's exception, which does not apply: {why}"
                ),
            ));
        }
        open
    };

    // 12.4: a withdrawal that cannot be made is not made.
    if open.is_empty() && order.distance == Distance::CavalryWithdrawal {
        return Err(Error::refused(format!(
            "12.4, 13.24: {id} has no open retreat of three hexes: the Cavalry Withdrawal is not possible ({})",
            ground.closed_words(data, state, hexes, steps)
        )));
    }
    // 13.23, 13.24: captured.
    if open.is_empty() {
        let rule = if hexes == 3 { "13.24" } else { "13.23" };
        let why = ground.closed_words(data, state, hexes, steps);
        events.push(
            Event::new(
                rule,
                "retreat-impossible",
                format!(
                    "{} ({id}, {start}) cannot retreat {hexes} hex{} ({}): {why}; it is captured",
                    counter.name,
                    if hexes == 1 { "" } else { "es" },
                    order.why
                ),
            )
            .with("unit", id)
            .with("hex", start.to_string())
            .with("hexes", hexes)
            .with("why", order.why),
        );
        events.extend(crate::systems::gboar::effects::results::capture(rules, data, state, id, rule, order.by)?);
        return Ok((Outcome::Captured, events));
    }

    let legal = guidelines(&ground, open, order.distance)?;
    let path_choice = choice.map(|c| c.path.as_slice()).filter(|p| !p.is_empty());
    let (route, by) = match path_choice {
        Some(p) => (chosen_route(&ground, data, state, p, hexes, steps, &legal)?, "choice"),
        None => {
            let r = default_route(&ground, &legal.routes)
                .ok_or_else(|| Error::refused(format!("retreat of {id}: no legal retreat")))?;
            (r, "default")
        }
    };

    // Savannah 4.1: the unit itself taken instead.
    let taken: Vec<(String, String)> =
        route.captures.iter().flat_map(|(rule, units)| units.iter().map(move |u| (rule.clone(), u.clone()))).collect();
    if let Some((rule, _)) = taken.iter().find(|(_, u)| u == id) {
        let rule_id = rule.split(" (").next().unwrap_or(rule).to_string();
        events.push(
            Event::new(
                &rule_id,
                "captured-instead",
                format!(
                    "{} ({id}, {start}) cannot retreat without stacking as {rule} forbids: it is captured instead",
                    counter.name
                ),
            )
            .with("unit", id)
            .with("path", route.hexes.iter().map(|h| h.to_string()).collect::<Vec<_>>()),
        );
        events.extend(crate::systems::gboar::effects::results::capture(rules, data, state, id, &rule_id, order.by)?);
        return Ok((Outcome::Captured, events));
    }

    // The retreat.
    let to = route.end().unwrap_or(start);
    let path_text: Vec<String> = route.hexes.iter().map(|h| h.to_string()).collect();
    for u in std::iter::once(id.to_string()).chain(leaders.iter().cloned()) {
        if let Some(s) = state.units.get_mut(&u) {
            s.hex = Some(to);
        }
    }
    if order.distance == Distance::CavalryWithdrawal {
        if let Some(s) = state.units.get_mut(id) {
            s.cavalry_withdrawn = true;
        }
    }
    let how = if by == "choice" { "its player's choice".to_string() } else { default_words(&ground) };
    let notes = if legal.notes.is_empty() { String::new() } else { format!("; {}", legal.notes.join("; ")) };
    events.push(
        Event::new(
            order.rule,
            "retreat",
            format!(
                "{} ({id}) retreats {hexes} hex{} from {start} to {to} ({}) for {}: {how}{notes}{}",
                counter.name,
                if hexes == 1 { "" } else { "es" },
                route.words(),
                order.why,
                if reduced { ", reduced (13.23)" } else { "" }
            ),
        )
        .with("unit", id)
        .with("from", start.to_string())
        .with("path", &path_text)
        .with("to", to.to_string())
        .with("hexes", hexes)
        .with("by", by)
        .with("why", order.why),
    );
    for l in &leaders {
        let name = rules.counter(l).map(|c| c.name.clone()).unwrap_or_default();
        events.push(
            Event::new(
                "13.26",
                "leader-retreats",
                format!(
                    "{name} ({l}) retreats with {} to {to} ({})",
                    counter.name,
                    if leaders_by == "choice" {
                        "its player's choice"
                    } else {
                        "the default: leaders go with the last friendly combat unit to leave their hex"
                    }
                ),
            )
            .with("leader", l)
            .with("unit", id)
            .with("to", to.to_string())
            .with("by", leaders_by),
        );
    }
    // Savannah 4.1: the units the restriction captures instead.
    for (rule, u) in &taken {
        let rule_id = rule.split(" (").next().unwrap_or(rule).to_string();
        let name = rules.counter(u).map(|c| c.name.clone()).unwrap_or_default();
        events.push(
            Event::new(
                &rule_id,
                "captured-instead",
                format!(
                    "{} retreats onto {name} ({u}) as {rule} forbids, which is unavoidable: {u} is captured",
                    counter.name
                ),
            )
            .with("unit", u)
            .with("retreating", id),
        );
        if hex_of(state, u).is_some() {
            events.extend(crate::systems::gboar::effects::results::capture(rules, data, state, u, &rule_id, order.by)?);
        }
    }
    if order.army_morale {
        let why = format!("{} retreated ({})", counter.name, order.why);
        events.extend(crate::systems::gboar::effects::morale::apply(
            rules,
            state,
            RETREATED_ENTRY,
            &counter.army,
            &[order.by.to_string()],
            1,
            (order.rule, &why),
        )?);
    }
    Ok((Outcome::Retreated { path: route.hexes, leaders }, events))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::systems::gboar::board::state::{Condition, OffMap};
    use crate::systems::gboar::data::Source;

    /// The combat test module, every unit off the map: each test places its own.
    pub(crate) fn combat() -> (Rules, State) {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/modules/combat");
        let rules = Rules::load(&Source::dir(&dir), "battle").unwrap();
        let mut state = State::setup(&rules.module, "battle").unwrap();
        for u in state.units.values_mut() {
            u.hex = None;
            u.off_map = Some(OffMap::Removed);
        }
        (rules, state)
    }

    pub(crate) fn place(state: &mut State, hex: &str, units: &[&str]) {
        for id in units {
            let u = state.units.get_mut(id).unwrap();
            u.hex = Some(hex.parse().unwrap());
            u.off_map = None;
        }
    }

    fn order<'a>(unit: &'a str, distance: Distance) -> Order<'a> {
        Order { unit, distance, rule: "13.1", why: "R (test)", by: "blue", close_combat: None, army_morale: false }
    }

    fn at(state: &State, id: &str) -> Option<String> {
        state.units[id].hex.map(|h| h.to_string())
    }

    fn kinds(events: &[Event]) -> Vec<&str> {
        events.iter().map(|e| e.kind.as_str()).collect()
    }

    fn event<'a>(events: &'a [Event], kind: &str) -> &'a Event {
        events.iter().find(|e| e.kind == kind).unwrap_or_else(|| panic!("no {kind} in {:?}", kinds(events)))
    }

    fn path(hexes: &[&str]) -> RetreatChoice {
        RetreatChoice { path: hexes.iter().map(|h| h.to_string()).collect(), ..RetreatChoice::default() }
    }

    fn hexes(list: &[&str]) -> Vec<HexId> {
        list.iter().map(|h| h.parse().unwrap()).collect()
    }

    /// Red at 0506, blue at 0507: 0505, 0605 and 0405 are open (0606, 0406
    /// are in blue's ZOC); 0505 and 0605 are nearer red's HQ (0801, 5 hexes
    /// against 6); the default is the lower id, 0505.
    #[test]
    fn one_hex_by_default_toward_the_hq() {
        let (rules, mut state) = combat();
        place(&mut state, "0506", &["red-guards"]);
        place(&mut state, "0507", &["blue-foot"]);
        let mut o = order("red-guards", Distance::One);
        o.army_morale = true;
        let (outcome, events) = retreat(&rules, &mut state, &o, None).unwrap();
        assert_eq!(outcome, Outcome::Retreated { path: hexes(&["0505"]), leaders: vec![] });
        assert_eq!(at(&state, "red-guards").as_deref(), Some("0505"));
        let r = event(&events, "retreat");
        assert_eq!(r.rule, "13.1");
        assert_eq!(r.fields["by"], "default");
        assert_eq!(r.fields["path"], serde_json::json!(["0505"]));
        assert!(r.text.contains("the default retreat") && r.text.contains("red's HQ (0801)"), "{}", r.text);
        assert!(r.text.contains("toward red's HQ (0801) (Savannah 4.19)"), "{}", r.text);
        // 16.1: unit-retreated, -1 (the test chart's value).
        let am = event(&events, "army-morale");
        assert_eq!((am.fields["army"].clone(), am.fields["delta"].clone()), ("red".into(), (-1).into()));
        assert_eq!(state.army_morale["red"], 14);
        assert_eq!(
            legal_retreats(
                &rules,
                &{
                    let mut s = state.clone();
                    place(&mut s, "0506", &["red-guards"]);
                    s
                },
                "red-guards",
                Distance::One
            )
            .unwrap(),
            vec![hexes(&["0505"]), hexes(&["0605"])]
        );
    }

    #[test]
    fn a_chosen_path() {
        let (rules, mut state) = combat();
        place(&mut state, "0506", &["red-guards"]);
        place(&mut state, "0507", &["blue-foot"]);
        let (_, events) =
            retreat(&rules, &mut state, &order("red-guards", Distance::One), Some(&path(&["0605"]))).unwrap();
        assert_eq!(at(&state, "red-guards").as_deref(), Some("0605"));
        let r = event(&events, "retreat");
        assert_eq!(r.fields["by"], "choice");
        assert!(r.text.contains("its player's choice"), "{}", r.text);
        // No army morale unless asked (a retreat outside a combat result).
        assert!(!kinds(&events).contains(&"army-morale"));
    }

    /// Every refusal names the rule and the legal retreats, and changes nothing.
    #[test]
    fn a_path_that_breaks_a_rule_is_refused() {
        let (rules, mut state) = combat();
        place(&mut state, "0506", &["red-guards"]);
        place(&mut state, "0507", &["blue-foot"]);
        let start = state.clone();
        let cases: [(&[&str], &str); 7] = [
            (&["0405"], "the rules prefer other retreats: toward red's HQ (0801) (Savannah 4.19)"),
            (&["0606"], "0606 is in the ZOC of blue-foot (13.22"),
            (&["0507"], "0507 is occupied by the enemy: blue-foot (13.22)"),
            (&["0504"], "0504 is not adjacent to 0506"),
            (&["0505", "0504"], "a retreat of 1 hex enters 1"),
            (&["55"], "'55' is not a hex id"),
            (&["0506"], "0506 is not adjacent to 0506"),
        ];
        for (p, words) in cases {
            let refused = retreat(&rules, &mut state, &order("red-guards", Distance::One), Some(&path(p)))
                .unwrap_err()
                .to_string();
            assert!(refused.contains(words), "{p:?}: {refused}");
            assert!(refused.contains("the legal retreats: 0505, 0605"), "{p:?}: {refused}");
            assert_eq!(state, start);
        }
    }

    /// 13.21: a hex next to no enemy unit first, even farther from the HQ.
    /// A disrupted enemy (no ZOC) in 0504 is next to 0505 and 0605.
    #[test]
    fn not_next_to_the_enemy_before_toward_the_hq() {
        let (rules, mut state) = combat();
        place(&mut state, "0506", &["red-guards"]);
        place(&mut state, "0507", &["blue-foot"]);
        place(&mut state, "0604", &["blue-rifles"]);
        state.units.get_mut("blue-rifles").unwrap().condition = Condition::Disrupted;
        // 0604 is next to 0505 and 0605: 0405 is the one hex next to no enemy.
        let (_, events) = retreat(&rules, &mut state, &order("red-guards", Distance::One), None).unwrap();
        assert_eq!(at(&state, "red-guards").as_deref(), Some("0405"));
        let r = event(&events, "retreat");
        assert!(r.text.contains("ending next to no enemy unit (13.21)"), "{}", r.text);
        assert!(r.text.contains("no open retreat ends nearer red's HQ (0801)"), "{}", r.text);
        // Every open hex next to the enemy: nearer the HQ, then the fewest enemies.
        let (rules, mut state) = combat();
        place(&mut state, "0506", &["red-guards"]);
        place(&mut state, "0507", &["blue-foot"]);
        place(&mut state, "0604", &["blue-rifles"]);
        place(&mut state, "0305", &["blue-horse"]);
        place(&mut state, "0504", &["blue-musket-rifles"]);
        for id in ["blue-rifles", "blue-horse", "blue-musket-rifles"] {
            state.units.get_mut(id).unwrap().condition = Condition::Disrupted;
        }
        // 0505: next to 0604 and 0504; 0605: next to 0604; 0405: next to 0305, farther.
        let legal = legal_retreats(&rules, &state, "red-guards", Distance::One).unwrap();
        assert_eq!(legal, vec![hexes(&["0605"]), hexes(&["0505"])]);
        let (_, events) = retreat(&rules, &mut state, &order("red-guards", Distance::One), None).unwrap();
        assert!(event(&events, "retreat").text.contains("every open hex is next to an enemy unit (13.21)"));
    }

    /// 13.22, 13.23: no open hex: off the map, a lake, an enemy, a ZOC.
    #[test]
    fn captured_when_no_hex_is_open() {
        let (rules, mut state) = combat();
        place(&mut state, "1501", &["red-guards"]);
        place(&mut state, "1601", &["blue-foot"]);
        place(&mut state, "1402", &["blue-rifles"]);
        let (outcome, events) = retreat(&rules, &mut state, &order("red-guards", Distance::One), None).unwrap();
        assert_eq!(outcome, Outcome::Captured);
        let u = &state.units["red-guards"];
        assert_eq!((u.hex.map(|h| h.to_string()).as_deref(), u.off_map), (None, Some(OffMap::Captured)));
        let why = event(&events, "retreat-impossible");
        assert_eq!(why.rule, "13.23");
        for words in
            ["1601 is occupied by the enemy", "1502 is prohibited terrain", "1401 is in the ZOC of blue-rifles"]
        {
            assert!(why.text.contains(words), "{words}: {}", why.text);
        }
        // Capture: unit-captured (-4 red, +2 blue) and 7 half VPs to blue.
        assert_eq!(kinds(&events), ["retreat-impossible", "captured", "army-morale", "army-morale", "victory-points"]);
        assert_eq!((state.army_morale["red"], state.army_morale["blue"]), (11, 17));
        assert_eq!(state.vp_halves["blue"], 7);
    }

    /// 13.22 stacking, and 13.23's exception for a two-step unit.
    #[test]
    fn the_stacking_limit_and_the_two_step_exception() {
        let setup = || {
            let (rules, mut state) = combat();
            place(&mut state, "0506", &["red-foot"]);
            place(&mut state, "0507", &["blue-foot"]);
            place(&mut state, "0505", &["red-guards"]);
            place(&mut state, "0605", &["red-elite"]);
            place(&mut state, "0405", &["red-militia", "red-horse"]);
            (rules, state)
        };
        // By default: a step loss, then the retreat, reduced, to 0505.
        let (rules, mut state) = setup();
        let (outcome, events) = retreat(&rules, &mut state, &order("red-foot", Distance::One), None).unwrap();
        assert_eq!(outcome, Outcome::Retreated { path: hexes(&["0505"]), leaders: vec![] });
        assert_eq!(state.units["red-foot"].steps, 1);
        assert_eq!(kinds(&events)[..2], ["retreat-step-loss", "step-loss"]);
        let choice = event(&events, "retreat-step-loss");
        assert_eq!((choice.rule.as_str(), &choice.fields["by"]), ("13.23", &"default".into()));
        assert_eq!(event(&events, "step-loss").rule, "13.23");
        assert!(event(&events, "retreat").text.contains("reduced (13.23)"));
        // The player chooses capture.
        let (rules, mut state) = setup();
        let choice = RetreatChoice { step_loss: Some(false), ..RetreatChoice::default() };
        let (outcome, events) = retreat(&rules, &mut state, &order("red-foot", Distance::One), Some(&choice)).unwrap();
        assert_eq!(outcome, Outcome::Captured);
        assert_eq!(kinds(&events)[..2], ["retreat-capture-chosen", "retreat-impossible"]);
        assert!(event(&events, "retreat-impossible").text.contains("over the stacking limit of 6 SPs"));
        // A chosen path, reduced.
        let (rules, mut state) = setup();
        let choice = RetreatChoice { step_loss: Some(true), ..path(&["0605"]) };
        retreat(&rules, &mut state, &order("red-foot", Distance::One), Some(&choice)).unwrap();
        assert_eq!((at(&state, "red-foot").as_deref(), state.units["red-foot"].steps), (Some("0605"), 1));
        // Not for a unit already reduced, nor one that can retreat.
        let (rules, mut state) = setup();
        state.units.get_mut("red-foot").unwrap().steps = 1;
        let choice = RetreatChoice { step_loss: Some(true), ..RetreatChoice::default() };
        let refused =
            retreat(&rules, &mut state, &order("red-foot", Distance::One), Some(&choice)).unwrap_err().to_string();
        assert!(refused.contains("13.23's exception, which does not apply: it can retreat"), "{refused}");
        let (rules, mut state) = setup();
        state.units.get_mut("red-foot").unwrap().steps = 1;
        place(&mut state, "0505", &["red-gun-2", "red-riflemen", "red-pioneers"]);
        let (outcome, _) = retreat(&rules, &mut state, &order("red-foot", Distance::One), None).unwrap();
        assert_eq!(outcome, Outcome::Retreated { path: hexes(&["0605"]), leaders: vec![] }, "5 + 2 SPs in 0505");
    }

    /// 13.24: three hexes, each one further, ending three away.
    #[test]
    fn three_hexes() {
        let (rules, mut state) = combat();
        place(&mut state, "0506", &["red-guards"]);
        place(&mut state, "0507", &["blue-foot"]);
        let (outcome, events) = retreat(&rules, &mut state, &order("red-guards", Distance::Three), None).unwrap();
        // The ends three away nearest 0801 are 0503, 0603, 0704, 0804; 0503 is the lowest.
        assert_eq!(outcome, Outcome::Retreated { path: hexes(&["0505", "0504", "0503"]), leaders: vec![] });
        assert_eq!(event(&events, "retreat").fields["hexes"], 3);
        let (rules, mut state) = combat();
        place(&mut state, "0506", &["red-guards"]);
        place(&mut state, "0507", &["blue-foot"]);
        let refused =
            retreat(&rules, &mut state, &order("red-guards", Distance::Three), Some(&path(&["0505", "0605", "0604"])))
                .unwrap_err()
                .to_string();
        assert!(refused.contains("0605 is not 2 hexes from 0506 (13.24"), "{refused}");
        assert!(refused.contains("0503 (e.g. 0505-0504-0503)"), "{refused}");
        retreat(&rules, &mut state, &order("red-guards", Distance::Three), Some(&path(&["0605", "0604", "0704"])))
            .unwrap();
        assert_eq!(at(&state, "red-guards").as_deref(), Some("0704"));
    }

    /// 13.24: one hex is open, three are not: captured.
    #[test]
    fn captured_when_three_hexes_are_not_open() {
        let (rules, mut state) = combat();
        place(&mut state, "1601", &["red-guards"]);
        place(&mut state, "1301", &["blue-foot"]);
        assert_eq!(legal_retreats(&rules, &state, "red-guards", Distance::One).unwrap(), vec![hexes(&["1501"])]);
        let (outcome, events) = retreat(&rules, &mut state, &order("red-guards", Distance::Three), None).unwrap();
        assert_eq!(outcome, Outcome::Captured);
        assert_eq!(event(&events, "retreat-impossible").rule, "13.24");
    }

    /// 12.4, 13.24: a Cavalry Withdrawal never ends next to the enemy.
    #[test]
    fn cavalry_withdrawal() {
        let (rules, mut state) = combat();
        place(&mut state, "1601", &["red-horse"]);
        place(&mut state, "1201", &["blue-foot"]);
        state.units.get_mut("blue-foot").unwrap().condition = Condition::Disrupted;
        // 1301 and 1302, the only ends, are next to blue-foot.
        let refused = retreat(&rules, &mut state, &order("red-horse", Distance::CavalryWithdrawal), None).unwrap_err();
        assert!(refused.to_string().contains("the Cavalry Withdrawal is not possible"), "{refused}");
        // A "D" retreat may end there, since no other hex is open.
        let (_, events) = retreat(&rules, &mut state, &order("red-horse", Distance::Three), None).unwrap();
        assert!(event(&events, "retreat").text.contains("every open hex is next to an enemy unit (13.21)"));
        // No open retreat at all: refused, not captured.
        let (rules, mut state) = combat();
        place(&mut state, "1601", &["red-horse"]);
        place(&mut state, "1301", &["blue-foot"]);
        assert!(retreat(&rules, &mut state, &order("red-horse", Distance::CavalryWithdrawal), None).is_err());
        assert_eq!(at(&state, "red-horse").as_deref(), Some("1601"));
        // In the open: withdrawn three hexes, and marked.
        let (rules, mut state) = combat();
        place(&mut state, "0506", &["red-horse"]);
        place(&mut state, "0507", &["blue-foot"]);
        retreat(&rules, &mut state, &order("red-horse", Distance::CavalryWithdrawal), None).unwrap();
        assert_eq!(at(&state, "red-horse").as_deref(), Some("0503"));
        assert!(state.units["red-horse"].cavalry_withdrawn);
    }

    /// 13.26: leaders go with the last friendly combat unit to leave.
    #[test]
    fn leaders() {
        let (rules, mut state) = combat();
        place(&mut state, "0506", &["red-guards", "red-general"]);
        place(&mut state, "0507", &["blue-foot"]);
        let (outcome, events) = retreat(&rules, &mut state, &order("red-guards", Distance::One), None).unwrap();
        assert_eq!(outcome, Outcome::Retreated { path: hexes(&["0505"]), leaders: vec!["red-general".into()] });
        assert_eq!(at(&state, "red-general").as_deref(), Some("0505"));
        let l = event(&events, "leader-retreats");
        assert_eq!((l.rule.as_str(), &l.fields["by"]), ("13.26", &"default".into()));
        // Another unit stays: so does the leader, unless chosen.
        let (rules, mut state) = combat();
        place(&mut state, "0506", &["red-guards", "red-foot", "red-general", "red-colonel"]);
        place(&mut state, "0507", &["blue-foot"]);
        retreat(&rules, &mut state, &order("red-guards", Distance::One), None).unwrap();
        assert_eq!(at(&state, "red-general").as_deref(), Some("0506"));
        let choice = RetreatChoice { leaders: Some(vec!["red-colonel".into()]), ..RetreatChoice::default() };
        retreat(&rules, &mut state, &order("red-foot", Distance::One), Some(&choice)).unwrap();
        assert_eq!(at(&state, "red-colonel"), at(&state, "red-foot"));
        assert_eq!(
            at(&state, "red-general").as_deref(),
            Some("0506"),
            "the last unit left, but the choice names only the colonel"
        );
        // Leaders stay when the choice says so, and a leader not there is refused.
        let (rules, mut state) = combat();
        place(&mut state, "0506", &["red-guards", "red-general"]);
        place(&mut state, "0507", &["blue-foot"]);
        let bad = RetreatChoice { leaders: Some(vec!["blue-general".into()]), ..RetreatChoice::default() };
        let refused =
            retreat(&rules, &mut state, &order("red-guards", Distance::One), Some(&bad)).unwrap_err().to_string();
        assert!(
            refused.contains("blue-general is not a friendly leader in 0506 (13.26); the leaders there: red-general")
        );
        let stay = RetreatChoice { leaders: Some(vec![]), ..RetreatChoice::default() };
        retreat(&rules, &mut state, &order("red-guards", Distance::One), Some(&stay)).unwrap();
        assert_eq!(at(&state, "red-general").as_deref(), Some("0506"));
        // A leader is never made to retreat.
        assert!(retreat(&rules, &mut state, &order("red-general", Distance::One), None).is_err());
    }

    /// Savannah 4.1: units a restriction keeps apart may end a retreat
    /// stacked when `after_retreat.allowed`.
    #[test]
    fn stacked_after_a_retreat() {
        let (rules, mut state) = combat();
        place(&mut state, "0507", &["blue-foot"]);
        place(&mut state, "0508", &["green-foot"]);
        place(&mut state, "0506", &["red-guards"]);
        let (_, events) = retreat(&rules, &mut state, &order("blue-foot", Distance::One), Some(&path(&["0508"])))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(at(&state, "blue-foot").as_deref(), Some("0508"));
        assert!(!kinds(&events).contains(&"captured-instead"));
        // Without `after_retreat: {allowed: true}` the hex is closed.
        let mut data = Data::load(&rules).unwrap();
        data.restrictions.insert("blue-green".into(), RestrictionRetreat::default());
        place(&mut state, "0507", &["blue-foot"]);
        let refused = retreat_with(
            &rules,
            &data,
            &mut state.clone(),
            &order("blue-foot", Distance::One),
            Some(&path(&["0508"])),
            &BTreeSet::new(),
        )
        .unwrap_err()
        .to_string();
        assert!(refused.contains("0508 would stack blue-foot with green-foot, which blue-green forbids (Savannah 4.1)"));
    }

    /// Savannah 4.1 with `if_unavoidable: captured`: avoided while another
    /// hex is open; unavoidable, the restriction's `a` units are captured.
    #[test]
    fn a_restricted_stack_only_if_unavoidable() {
        // red-pioneers may not stack with red-militia (southern-loyalist).
        let (rules, mut state) = combat();
        place(&mut state, "0506", &["red-pioneers"]);
        place(&mut state, "0507", &["blue-foot"]);
        place(&mut state, "0505", &["red-militia"]);
        let refused = retreat(&rules, &mut state, &order("red-pioneers", Distance::One), Some(&path(&["0505"])))
            .unwrap_err()
            .to_string();
        assert!(refused.contains("the legal retreats: 0605"), "{refused}");
        assert!(refused.contains("not stacking units Savannah 4.1 (pioneers-and-loyalists) keeps apart"), "{refused}");
        retreat(&rules, &mut state, &order("red-pioneers", Distance::One), None).unwrap();
        assert_eq!(at(&state, "red-pioneers").as_deref(), Some("0605"));
        // Unavoidable: the pioneers retreating are captured instead.
        let (rules, mut state) = combat();
        place(&mut state, "1601", &["red-pioneers"]);
        place(&mut state, "1501", &["red-militia"]);
        place(&mut state, "1301", &["blue-foot"]);
        let (outcome, events) = retreat(&rules, &mut state, &order("red-pioneers", Distance::One), None).unwrap();
        assert_eq!(outcome, Outcome::Captured);
        let e = event(&events, "captured-instead");
        assert_eq!(e.rule, "Savannah 4.1");
        assert_eq!(state.units["red-pioneers"].off_map, Some(OffMap::Captured));
        // Unavoidable the other way: the loyalists retreat, the pioneers are captured.
        let (rules, mut state) = combat();
        place(&mut state, "1601", &["red-militia"]);
        place(&mut state, "1501", &["red-pioneers"]);
        place(&mut state, "1301", &["blue-foot"]);
        let (outcome, events) = retreat(&rules, &mut state, &order("red-militia", Distance::One), None).unwrap();
        assert_eq!(outcome, Outcome::Retreated { path: hexes(&["1501"]), leaders: vec![] });
        assert_eq!(state.units["red-pioneers"].off_map, Some(OffMap::Captured));
        assert_eq!(event(&events, "captured-instead").fields["unit"], "red-pioneers");
    }

    /// Savannah 4.9: Lost, pinned instead in close combat; a normal retreat otherwise.
    #[test]
    fn lost_units_are_pinned_instead() {
        let (rules, mut state) = combat();
        place(&mut state, "0506", &["red-guards", "red-horse"]);
        place(&mut state, "0507", &["blue-foot"]);
        state.units.get_mut("red-guards").unwrap().lost = true;
        state.units.get_mut("red-horse").unwrap().lost = true;
        let mut o = order("red-guards", Distance::One);
        o.close_combat = Some("cc-1");
        let (outcome, events) = retreat(&rules, &mut state, &o, None).unwrap();
        assert_eq!(outcome, Outcome::Pinned);
        let u = &state.units["red-guards"];
        assert_eq!(
            (u.hex.map(|h| h.to_string()).as_deref(), u.pinned, u.pin_result.as_deref()),
            (Some("0506"), true, Some("cc-1"))
        );
        assert_eq!(kinds(&events), ["pinned-instead"]);
        assert_eq!(events[0].rule, "Savannah 4.9");
        let refused = retreat(&rules, &mut state, &order("red-horse", Distance::CavalryWithdrawal), None).unwrap_err();
        assert!(refused.to_string().contains("may not select Cavalry Withdrawal"));
        retreat(&rules, &mut state, &order("red-guards", Distance::One), None).unwrap();
        assert_eq!(at(&state, "red-guards").as_deref(), Some("0505"), "in fire combat it retreats");
    }

    /// 13.21's friendly map edges, and no goal at all.
    #[test]
    fn map_edges_and_no_goal() {
        let (rules, mut state) = combat();
        place(&mut state, "0506", &["red-guards"]);
        place(&mut state, "0507", &["blue-foot"]);
        let mut data = Data::load(&rules).unwrap();
        data.retreat = Some(RetreatRule {
            toward: Toward::MapEdge,
            edges: [("red".to_string(), vec![Edge::West])].into_iter().collect(),
            rule: None,
            note: None,
        });
        let mut s = state.clone();
        let (outcome, events) =
            retreat_with(&rules, &data, &mut s, &order("red-guards", Distance::One), None, &BTreeSet::new()).unwrap();
        assert_eq!(outcome, Outcome::Retreated { path: hexes(&["0405"]), leaders: vec![] });
        assert!(event(&events, "retreat").text.contains("red's friendly map edge (west)"));
        data.retreat = None;
        let mut s = state.clone();
        let (_, events) =
            retreat_with(&rules, &data, &mut s, &order("red-guards", Distance::One), None, &BTreeSet::new()).unwrap();
        assert_eq!(at(&s, "red-guards").as_deref(), Some("0405"), "no goal: the lowest hex id");
        assert!(event(&events, "retreat").text.contains("no retreat goal"));
        // An army with no HQ on the map has no goal either.
        let mut rules = rules;
        rules.module.map.headquarters.remove("red");
        retreat(&rules, &mut state, &order("red-guards", Distance::One), None).unwrap();
        assert_eq!(at(&state, "red-guards").as_deref(), Some("0405"));
    }

    /// A hex with an enemy leader alone is enemy-occupied.
    #[test]
    fn a_lone_enemy_leader_occupies_his_hex() {
        let (rules, mut state) = combat();
        place(&mut state, "0506", &["red-guards"]);
        place(&mut state, "0507", &["blue-foot"]);
        place(&mut state, "0505", &["blue-general"]);
        let legal = legal_retreats(&rules, &state, "red-guards", Distance::One).unwrap();
        assert_eq!(legal, vec![hexes(&["0605"])]);
    }

    /// Savannah 4.19 as data: the British retreat toward their HQ.
    #[test]
    fn savannah_retreats_toward_the_hq() {
        let rules = Rules::load(&Source::Embedded("savannah-1779".into()), "historical").unwrap();
        let data = Data::load(&rules).unwrap();
        let r = data.retreat.as_ref().unwrap();
        assert_eq!((r.toward, r.rule.as_deref()), (Toward::Headquarters, Some("Savannah 4.19")));
        assert!(rules.module.map.headquarters.contains_key("british"));
        let fa = &data.restrictions["french-american"];
        assert!(fa.allowed && !fa.captured_if_unavoidable);
        let nv = &data.restrictions["negro-volunteers"];
        assert!(!nv.allowed && nv.captured_if_unavoidable);
        let m = data.momentum.as_ref().unwrap();
        assert_eq!((m.pool, m.captured_printed_morale), (5, Some(2)));
    }
}
