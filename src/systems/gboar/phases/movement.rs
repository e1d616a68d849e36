//! The Movement Phase (series 9): 9.1, 9.2, 9.4, 9.51, 9.52, with Zones of
//! Control (8.1, 8.31, 8.32; the ZOCs themselves are in [`crate::systems::gboar::board::zoc`]),
//! stacking (7.1, 7.2, and the exclusive rules' restrictions of module.yaml
//! `stacking.restrictions`, Savannah 4.1), disrupted and shattered units
//! (13.3, 13.4) and the capture of lone leaders (14.32). Movement rolls no
//! dice.
//!
//! # Orders
//!
//! Each side of the phasing player sends the moves of its own army's units,
//! in the order they are made (9.1: each unit completes its move before
//! another moves):
//!
//! ```yaml
//! moves:
//!   - unit: dillon-irish            # one unit...
//!     path: ["2810", "2709"]        # ...and the hexes it enters, in order
//!   - stack: [armagnac, dillon]     # or units of one hex moving together
//!     to: "2607"                    # or only where to: the engine finds the path
//!   - unit: pulaskis-legion
//!     to: "3016"
//!     strategic: true               # 9.52: along roads and tracks, twice the MPs
//! ```
//!
//! - `unit` or `stack` (one of them): the units. A stack moves as one: it
//!   has the smallest movement allowance of its units, and every rule that
//!   holds a unit back holds the stack back.
//! - `path` or `to` (one of them). `path` lists every hex entered, not the
//!   hex the move starts in. With `to` the engine picks the path that costs
//!   the fewest MPs; among equally cheap paths the one entering the fewest
//!   hexes; among those, the one found first when hexes are settled in the
//!   order (MPs, hexes entered, hex id) and neighbours are tried clockwise
//!   from north, so the same orders always give the same path.
//! - `strategic: true`: Strategic Movement (9.52). Without it a move is
//!   normal movement, even along a road. Not when the turn's weather forbids
//!   it (Savannah 4.2, the Weather Table), nor along the Covered Way (4.9).
//! - `delay: [ID, ...]` (beside `moves`): reinforcements due this turn kept
//!   off the map until the next (9.61).
//! - `enter: {ID: HEX}` (beside `moves`): where an arriving unit is placed
//!   when its arrival offers several hexes (Savannah 4.7: V-1's two hexes,
//!   the nearest free hexes after a blocked entry, the city when the HQ is
//!   held); without it, the first hex offered. Arriving units are placed as
//!   the phase begins (9.61), then move like any unit, from their entry hex,
//!   with the turn of arrival's bonuses and limits.
//! - `leave_pin: true`: the unit is pinned and the player moves it all the
//!   same (9.3): it must end the phase next to no enemy unit, and the army
//!   morale cost of removing its pin is paid after movement.
//!
//! Every unit moves at most once. A side moves only its own army's units.
//! Orders with any problem are refused whole, with every problem, each
//! saying what would be legal (the hexes the unit can reach, the units that
//! exist, the MPs it has); nothing moves.
//!
//! # Readings of the rules
//!
//! - "Enemy units" next to a hex (9.52, 13.3) are enemy combat units:
//!   leaders are not combat units (3.2), and a lone leader is captured by
//!   moving in (14.32), so he holds nothing back.
//! - 8.31 binds every moving counter, leaders included.
//! - 8.31's rifle MP: +1 when the hex entered is in the ZOC of an enemy
//!   rifle unit whose ZOC the hex left was not, +1 when the hex left is in
//!   one whose ZOC the hex entered is not; at most +1 each way.
//! - 13.3: a disrupted unit that begins next to the enemy must move, to a
//!   hex next to as few enemy units as it can reach (none if it can); the
//!   orders are refused if they leave it where it is while it could.
//! - Stacking counts all the units of the phasing player (an alliance's
//!   armies together); a unit's SPs are its reduced strength once it has
//!   lost a step. 9.1's one-hex move is withdrawn by the hex entered
//!   (`minimum_move: false`) or by the unit type (naval artillery, mortar).
//!
//! - 9.3: after all movement, pins come off every unit of either side next
//!   to no enemy combat unit; the phasing player's army pays the chart's
//!   `pin-removed-in-movement` once for the phase. With an alliance, each
//!   phasing army pays whose own pin came off or that had a unit next to a
//!   removed enemy pin when the phase began (if none did, the alliance's
//!   first army in id order).
//! - Savannah 4.9, the Covered Way: a move *along* it goes from one of its
//!   hexes to an adjacent one; entering it from outside pays the hex's own
//!   terrain and rolls nothing. Along it, the feature's cost replaces the
//!   hex's, its `streams` cost `creek_cost_along`, and each hex entered
//!   rolls a die for the stack (charts/covered-way.yaml); a lost stack
//!   stops there. Orders are checked as if no one got lost; when resolving,
//!   a later move that a lost stack makes impossible is not made, with an
//!   event saying why (never a refusal after the dice have rolled).
//! - Weather (Savannah 4.2): the turn's weather in the state; its
//!   `movement_cost_added` is paid per hex entered, and strategic movement
//!   is refused when the weather forbids it.
//! - Reinforcements (9.6, Savannah 4.7; the arrivals themselves are
//!   decided by [`crate::systems::gboar::effects::arrivals`]): placement over the stacking limit
//!   is allowed; units that do not move out of an entry hex still over the
//!   limit are put off a turn (the scenario's `overstacked_arrival`), last
//!   placed in id order first, those already put off once last.
//! - The scenario's `fixed_artillery` (Savannah Historical Scenario): those
//!   artillery types do not move until attacked in Close Combat; one that
//!   Defensive Artillery Fire sends back (`must_return`) must end each move
//!   as near its printed at-start hex as it can reach, and may not stay
//!   put while it could get nearer.
//!
//! - The scenario's zone rules: `zone_bans` (Savannah 4.8: a tagged unit
//!   may never enter a zone), `track_switch.strategic_restriction` (Savannah
//!   1.6, 1.7: on the strategic track the Allies move no combat unit into
//!   or next to the perimeter) and `sortie_restriction` (Savannah 4.10: a
//!   bound unit leaves the zone only in a stack with a leader and is then
//!   out with him, who may not return before it; exempt units are bound
//!   once they have been inside; the morale reduction is read by the
//!   morale checks). "Leaving" is read as a move that begins inside and
//!   ends outside.
//! - Savannah 4.1, "If a French/American stack begins a Movement Phase
//!   adjacent to an enemy in circumstances where an attack would normally
//!   be required, it must retreat instead if possible" (module.yaml
//!   `stacking.restrictions[].forced_attack.retreat_instead_if_possible`):
//!   the units of a stack that the restriction binds that would have to
//!   attack (12.12, as the phase begins) must each end the phase next to no
//!   enemy combat unit, when a legal move of that unit alone allows it; the
//!   orders are refused if they leave one next to the enemy while it could
//!   have got away (the refusal names the cheapest hexes). "Retreat" is read
//!   as such a move, made with MPs under every movement rule, not as 13.2's
//!   retreat of a combat result (which happens in hexes, not in the
//!   Movement Phase): its purpose is that the stack need not attack. A unit
//!   that cannot get away stays, and must attack with the chart's DRM
//!   (Savannah -2). Pinned units are not made to leave their pin, which is
//!   the player's choice and costs army morale (9.3); leaders are not
//!   combat units and are free. With `retreat_instead_if_possible: false`
//!   (Savannah's French Regulars with Colonial Militia) nothing is forced.
//! - Savannah 4.1's "must unstack during the next friendly Movement Phase"
//!   (`unstack_next_friendly_movement: always`) is required when one of
//!   the pair can move at all; a stack that cannot move stays.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::Deserialize;

use crate::base::error::{Error, Result};
use crate::base::hex::{neighbours, HexId};
use crate::system::{Dice, Event};
use crate::systems::gboar::board::stacking::restricted_stack;
use crate::systems::gboar::board::state::Resolution;
use crate::systems::gboar::board::state::{Condition, OffMap, State};
use crate::systems::gboar::board::terrain::Terrain;
use crate::systems::gboar::board::units::hex_of;
use crate::systems::gboar::board::zoc::{self, Zoc};
use crate::systems::gboar::board::Rules;
use crate::systems::gboar::data::charts::MovementCost;
use crate::systems::gboar::data::counters::Counter;
use crate::systems::gboar::data::scenario::{FixedArtillery, ScenarioMovement, SortieRestriction};
use crate::systems::gboar::data::stacking::{Restriction, Stacking};

// ---------------------------------------------------------------------------
// Orders

/// The body of one side's movement orders.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MovementOrders {
    /// Read one by one, so that one bad move does not hide the others' problems.
    #[serde(default)]
    pub moves: Vec<crate::base::yaml::Value>,
    /// 9.61: reinforcements due this turn that the player keeps off the map
    /// until the next turn.
    #[serde(default)]
    pub delay: Vec<String>,
    /// 9.61, Savannah 4.7: where an arriving unit is placed, when its
    /// arrival offers several hexes (otherwise the first one offered).
    #[serde(default)]
    pub enter: BTreeMap<String, HexText>,
    /// 7.3: the units that lose steps first if a hex is still over the
    /// stacking limit when the phase ends.
    #[serde(default)]
    pub overstack_losses: Vec<String>,
    /// Savannah 1.6 case A: the Allies announce their assault on the
    /// perimeter; the next turn is the first of the Tactical Turn Track.
    #[serde(default)]
    pub declare_assault: bool,
}

/// The part of the orders that places reinforcements, read before any move.
#[derive(Debug, Clone, Default, Deserialize)]
struct ArrivalOrders {
    #[serde(default)]
    delay: Vec<String>,
    #[serde(default)]
    enter: BTreeMap<String, HexText>,
}

/// One move: a unit or a stack, and a path or a destination.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveOrder {
    #[serde(default)]
    pub unit: Option<String>,
    #[serde(default)]
    pub stack: Option<Vec<String>>,
    #[serde(default)]
    pub path: Option<Vec<HexText>>,
    #[serde(default)]
    pub to: Option<HexText>,
    /// 9.52.
    #[serde(default)]
    pub strategic: bool,
    /// 9.3: the player moves a pinned unit, knowing that it must end the
    /// phase away from the enemy and that removing its pin costs army morale.
    #[serde(default)]
    pub leave_pin: bool,
}

/// A hex id as written: hex ids are quoted strings ("0405"); a bare number
/// is caught so the problem can say so.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum HexText {
    Text(String),
    Number(i64),
}

impl HexText {
    fn parse(&self) -> std::result::Result<HexId, String> {
        match self {
            HexText::Text(s) => s.parse::<HexId>().map_err(|e| e.to_string()),
            HexText::Number(n) => Err(format!("write hex ids as quoted strings of four digits, e.g. \"{n:04}\"")),
        }
    }
}

/// A problem with a side's movement orders: where (`moves[2].path[3]`) and
/// what, saying what would be legal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub field: String,
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.field, self.message)
        }
    }
}

fn problem(field: impl Into<String>, message: impl Into<String>) -> Problem {
    Problem { field: field.into(), message: message.into() }
}

/// Savannah 4.1: a unit that must retreat instead of making a forced
/// attack ([`Phase::forced_retreats`]).
#[derive(Debug, Clone)]
pub struct ForcedRetreat {
    pub side: String,
    pub unit: String,
    pub hex: HexId,
    pub restriction: String,
    pub rule: String,
    pub pair: (String, String),
    pub enemies: Vec<String>,
    /// The hexes it can end in, next to no enemy unit, cheapest first.
    pub options: Vec<HexId>,
}

/// Types that never get 9.1's one-hex move (Savannah 4.19 Movement).
const NO_MINIMUM_MOVE: &[&str] = &["naval-artillery", "mortar"];

// ---------------------------------------------------------------------------
// The phase

/// What the phase knows of the module and of the enemy, which does not move
/// while the phasing player moves.
struct Phase<'a> {
    terrain: Terrain<'a>,
    counters: BTreeMap<&'a str, &'a Counter>,
    player_of_army: BTreeMap<String, String>,
    side_of_army: BTreeMap<String, String>,
    player: String,
    sides: Vec<String>,
    zoc: Zoc,
    /// Hexes holding enemy combat units, and those units.
    enemy_combat: BTreeMap<HexId, Vec<String>>,
    stacking: Option<Stacking>,
    /// This turn's weather (Savannah 4.2), from the weather chart.
    weather: Option<&'a crate::systems::gboar::data::charts::WeatherCondition>,
    fixed_artillery: Option<&'a FixedArtillery>,
    covered_way: &'a crate::systems::gboar::data::charts::CoveredWayFile,
    reinforcements: Option<&'a crate::systems::gboar::data::scenario::Data>,
    rules: &'a Rules,
    scenario: &'a ScenarioMovement,
    /// The hexes of the map's zones and places, by id.
    regions: BTreeMap<&'a str, BTreeSet<HexId>>,
    turn: u32,
    /// Each side's units on the map, as "did you mean" first lists them:
    /// found once per phase, so that a file naming many unknown units
    /// costs one look at the units, not one per unknown id.
    on_map: std::cell::RefCell<BTreeMap<String, Vec<String>>>,
}

/// A unit or stack about to move.
#[derive(Debug, Clone)]
struct Group {
    ids: Vec<String>,
    start: HexId,
    /// The smallest allowance of its units (doubled for 9.52).
    allowance: i32,
    sps: i32,
    guns: i32,
    /// 14.32: holds a Parade Order or disrupted combat unit.
    captures: bool,
    /// 13.3.
    disrupted: bool,
    /// 9.1's exception: false for naval artillery and mortars (Savannah 4.19).
    minimum_move: bool,
    strategic: bool,
}

/// The cost of entering one hex, and what happens there.
#[derive(Debug, Clone)]
struct Step {
    mp: i32,
    /// The parts of the cost, for the text.
    parts: Vec<(String, i32)>,
    /// Lone enemy leaders captured on entering (14.32).
    captures: Vec<String>,
    /// Savannah 4.9: a move along the Covered Way (from one of its hexes to
    /// the next), which rolls for getting lost.
    along: bool,
}

/// A legal move worked out.
#[derive(Debug, Clone)]
struct Walk {
    hexes: Vec<HexId>,
    steps: Vec<Step>,
    mp: i32,
    minimum_move: bool,
    stopped_by: Option<String>,
}

/// Friendly units by hex (not those moving) and enemy leaders by hex, as
/// the state stands when a move begins.
struct Occupancy {
    friendly: BTreeMap<HexId, Vec<String>>,
    enemy_leaders: BTreeMap<HexId, Vec<String>>,
}

/// A move's units, checked and grouped, before its path ([`Phase::prepare`]).
struct Prepared {
    ids: Vec<String>,
    start: HexId,
    group: Group,
    /// Each unit's allowance this phase (the turn of arrival's included).
    allowances: BTreeMap<String, i32>,
    /// The Reinforcement Schedule's hexes a unit may move on arrival.
    max_hexes: Option<(u32, String)>,
    occ: Occupancy,
}

#[derive(Debug, Clone, Copy)]
struct Node {
    mp: i32,
    steps: u32,
    prev: Option<HexId>,
}

fn list_or_none(ids: &[String]) -> String {
    if ids.is_empty() {
        "none".into()
    } else {
        ids.join(", ")
    }
}

fn state_pinned(state: &State, id: &str) -> bool {
    state.units.get(id).is_some_and(|u| u.pinned)
}

fn list(ids: &[String]) -> String {
    ids.join(", ")
}

fn hexes_text(hexes: &[HexId]) -> String {
    if hexes.is_empty() {
        "none".into()
    } else {
        hexes.iter().map(HexId::to_string).collect::<Vec<_>>().join(", ")
    }
}

/// A small edit distance, for "did you mean".
/// The first few of hexes listed cheapest first, and how many more.
fn some_hexes(hexes: &[HexId]) -> String {
    const SHOWN: usize = 6;
    let first = hexes_text(&hexes[..hexes.len().min(SHOWN)]);
    match hexes.len().saturating_sub(SHOWN) {
        0 => first,
        more => format!("{first} and {more} more"),
    }
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row.first().copied().unwrap_or(0);
        if let Some(first) = row.first_mut() {
            *first = i + 1;
        }
        for (j, cb) in b.iter().enumerate() {
            let above = row.get(j + 1).copied().unwrap_or(0);
            let left = row.get(j).copied().unwrap_or(0);
            let value = (above + 1).min(left + 1).min(diagonal + usize::from(ca != *cb));
            diagonal = above;
            if let Some(cell) = row.get_mut(j + 1) {
                *cell = value;
            }
        }
    }
    row.last().copied().unwrap_or(0)
}

impl<'a> Phase<'a> {
    fn new(rules: &'a Rules, state: &State, player: &str) -> std::result::Result<Phase<'a>, String> {
        let terrain = Terrain::new(rules);
        let counters: BTreeMap<&str, &Counter> = rules.module.counters.iter().map(|c| (c.id.as_str(), c)).collect();
        let data = &rules.sequence.data;
        let player_of_army = rules.players_of_armies();
        let side_of_army = data.armies.iter().map(|a| (a.id.clone(), a.side.clone())).collect();
        if !data.alliances.iter().any(|a| a.id == player) {
            return Err(format!("'{player}' is not a player of this module"));
        }
        if let Some(f) = rules.scenario_movement.fixed_artillery.as_ref() {
            if f.may_move_after != "attacked-in-close-combat" {
                return Err(format!(
                    "the scenario's fixed_artillery.may_move_after is '{}'; the engine knows attacked-in-close-combat",
                    f.may_move_after
                ));
            }
        }
        let zoc = zoc::enemy_zoc(&terrain, state, &counters, &player_of_army, player);
        let mut enemy_combat: BTreeMap<HexId, Vec<String>> = BTreeMap::new();
        for (id, unit) in &state.units {
            let Some(c) = counters.get(id.as_str()) else { continue };
            if c.is_leader() || player_of_army.get(&c.army).map(String::as_str) == Some(player) {
                continue;
            }
            if let Some(h) = unit.hex.as_deref().and_then(|h| h.parse().ok()) {
                enemy_combat.entry(h).or_default().push(id.clone());
            }
        }
        Ok(Phase {
            terrain,
            counters,
            player_of_army,
            side_of_army,
            player: player.to_string(),
            sides: rules.sequence.sides_of(player),
            zoc,
            enemy_combat,
            stacking: rules.stacking.clone(),
            fixed_artillery: rules.scenario_movement.fixed_artillery.as_ref(),
            covered_way: &rules.charts.covered_way,
            reinforcements: rules.reinforcements.as_ref(),
            rules,
            scenario: &rules.scenario_movement,
            regions: rules
                .module
                .map
                .zones
                .iter()
                .chain(&rules.module.map.places)
                .map(|r| (r.id.as_str(), r.hexes.iter().copied().collect()))
                .collect(),
            turn: state.turn,
            weather: match &state.weather {
                None => None,
                Some(w) => Some(
                    rules
                        .charts
                        .weather
                        .conditions
                        .iter()
                        .find(|c| &c.id == w)
                        .ok_or_else(|| format!("the weather '{w}' is not a condition of charts/weather.yaml"))?,
                ),
            },
            on_map: Default::default(),
        })
    }

    fn name(&self, id: &str) -> String {
        self.counters.get(id).map(|c| c.name.clone()).unwrap_or_else(|| id.to_string())
    }

    fn names(&self, ids: &[String]) -> String {
        ids.iter().map(|i| self.name(i)).collect::<Vec<_>>().join(", ")
    }

    fn is_friendly(&self, c: &Counter) -> bool {
        self.player_of_army.get(&c.army) == Some(&self.player)
    }

    /// 13.3, 9.52: the enemy combat units next to `hex` (leaders are not
    /// combat units, 3.2).
    fn adjacent_enemies(&self, hex: HexId) -> Vec<String> {
        let mut found: Vec<String> = neighbours(hex, self.terrain.layout)
            .into_iter()
            .filter_map(|n| self.enemy_combat.get(&n))
            .flatten()
            .cloned()
            .collect();
        found.sort();
        found
    }

    fn occupancy(&self, state: &State, moving: &[String]) -> Occupancy {
        let mut friendly: BTreeMap<HexId, Vec<String>> = BTreeMap::new();
        let mut enemy_leaders: BTreeMap<HexId, Vec<String>> = BTreeMap::new();
        for (id, unit) in &state.units {
            let Some(c) = self.counters.get(id.as_str()) else { continue };
            let Some(h) = unit.hex.as_deref().and_then(|h| h.parse::<HexId>().ok()) else { continue };
            if self.is_friendly(c) {
                if !moving.contains(id) {
                    friendly.entry(h).or_default().push(id.clone());
                }
            } else if c.is_leader() {
                enemy_leaders.entry(h).or_default().push(id.clone());
            }
        }
        Occupancy { friendly, enemy_leaders }
    }

    /// 7.1: the SPs and the artillery units a unit counts for stacking.
    fn stacking_weight(&self, state: &State, id: &str) -> (i32, i32) {
        let Some(c) = self.counters.get(id) else { return (0, 0) };
        let leaders_count = self.stacking.as_ref().is_some_and(|s| s.leaders_count);
        c.stacking_weight(state.units.get(id).map(|u| u.steps).unwrap_or(1), leaders_count)
    }

    /// The cost and effects of the group entering `to` from the adjacent
    /// `from`, or why it may not.
    fn step(
        &self,
        state: &State,
        group: &Group,
        occ: &Occupancy,
        from: HexId,
        to: HexId,
    ) -> std::result::Result<Step, String> {
        let Some(info) = self.terrain.hex(to) else {
            return Err(format!("{to} is not on the map"));
        };
        // 9.2: prohibited terrain.
        if info.movement_cost == MovementCost::Prohibited {
            return Err(format!("{to} is {}: prohibited terrain (9.2)", info.name));
        }
        // Savannah 4.9: along the Covered Way is from one of its hexes to an
        // adjacent one; entering it from outside pays the hex's terrain.
        let along = match (self.terrain.hex(from).and_then(|h| h.feature), info.feature) {
            (Some(a), Some(b)) if a.id == b.id => Some(b),
            _ => None,
        };
        // 9.2: never into an enemy-occupied hex.
        if let Some(enemies) = self.enemy_combat.get(&to) {
            return Err(format!(
                "{to} holds enemy units ({}): a unit may never enter an enemy-occupied hex (9.2)",
                list(enemies)
            ));
        }
        let mut captures = Vec::new();
        if let Some(leaders) = occ.enemy_leaders.get(&to) {
            if !group.captures {
                return Err(format!(
                    "{to} holds enemy leader {}: only Parade Order or disrupted combat units may enter it, capturing him (9.2, 14.32)",
                    list(leaders)
                ));
            }
            captures = leaders.clone();
        }
        // 7.1, 7.2: never through or into a hex in excess of stacking limits.
        let there: &[String] = occ.friendly.get(&to).map(Vec::as_slice).unwrap_or(&[]);
        if let Some(limits) = &self.stacking {
            let (mut sps, mut guns) = (group.sps, group.guns);
            for id in there {
                let (s, g) = self.stacking_weight(state, id);
                sps = sps.saturating_add(s);
                guns = guns.saturating_add(g);
            }
            if sps > limits.max_strength_points || guns > limits.max_artillery_units {
                return Err(format!(
                    "{to} would hold {sps} SPs and {guns} artillery units ({} with {}): the limit is {} SPs and {} artillery unit{} (7.1, 7.2)",
                    list(&group.ids),
                    if there.is_empty() { "nothing".to_string() } else { list(there) },
                    limits.max_strength_points,
                    limits.max_artillery_units,
                    if limits.max_artillery_units == 1 { "" } else { "s" }
                ));
            }
            // Savannah 4.1: units that may not even pass through each other.
            for r in limits.restrictions.iter().filter(|r| !r.may_pass_through) {
                for mover in &group.ids {
                    for other in there {
                        let (Some(x), Some(y)) = (self.counters.get(mover.as_str()), self.counters.get(other.as_str()))
                        else {
                            continue;
                        };
                        if r.applies(x, y) {
                            return Err(format!(
                                "{to} holds {other}: {mover} may not pass through or stack with it ({}, {})",
                                r.rule_name(),
                                r.id
                            ));
                        }
                    }
                }
            }
        }
        let road = self.terrain.road(from, to);
        let mut parts: Vec<(String, i32)> = Vec::new();
        if let Some(feature) = along {
            if group.strategic && feature.strategic_movement == Some(false) {
                return Err(format!(
                    "{from} to {to} is along the {}: strategic movement is not allowed along it (Savannah 4.9)",
                    feature.name
                ));
            }
            // Savannah 4.9: its own cost replaces the hex's (swamp); streams
            // are not forded along it and cost `creek_cost_along`.
            let Some(cost) = feature.movement_cost_along else {
                return Err(format!(
                    "charts/terrain.yaml gives the {} no movement_cost_along, so a move along it cannot be priced (Savannah 4.9)",
                    feature.name
                ));
            };
            parts.push((format!("along the {}", feature.name), cost));
            for c in self.terrain.crossing(from, to) {
                if feature.streams.contains(&c.id) {
                    parts.push((
                        format!("{} along the {}", c.name.to_lowercase(), feature.name),
                        feature.creek_cost_along.unwrap_or(c.movement_cost_added),
                    ));
                } else if c.movement_cost_added != 0 {
                    parts.push((c.name.to_lowercase(), c.movement_cost_added));
                }
            }
        } else if group.strategic {
            // 9.52: every hexside along a road or track, never next to the enemy.
            let Some(cost) = road.and_then(|r| r.strategic_cost) else {
                return Err(format!(
                    "{from} to {to} does not follow a road or track: strategic movement crosses only hexsides with connected road or track (9.52)"
                ));
            };
            let enemies = self.adjacent_enemies(to);
            if !enemies.is_empty() {
                return Err(format!(
                    "{to} is next to enemy {}: strategic movement never moves adjacent to enemy units (9.52)",
                    list(&enemies)
                ));
            }
            parts.push((format!("{} (strategic)", road.map(|r| r.names.join("/")).unwrap_or_default()), cost));
        } else if let Some(r) = road {
            // 9.51: along a road the other terrain is ignored.
            parts.push((r.names.join("/"), r.cost));
        } else {
            // 9.4: hex and hexside costs add up.
            let MovementCost::Mp(cost) = info.movement_cost else {
                return Err(format!("{to} is {}: prohibited terrain (9.2)", info.name));
            };
            parts.push((info.name.to_lowercase(), cost));
            for c in self.terrain.crossing(from, to) {
                if c.movement_cost_added != 0 {
                    parts.push((c.name.to_lowercase(), c.movement_cost_added));
                }
            }
        }
        // Savannah 4.2: the weather's added cost per hex entered.
        if let Some(w) = self.weather.filter(|w| w.movement_cost_added != 0) {
            parts.push((w.name.to_lowercase(), w.movement_cost_added));
        }
        // 8.31: +1 to enter, +1 to exit an enemy rifle unit's ZOC.
        let (entered, exited) = self.zoc.rifle_costs(from, to);
        if !entered.is_empty() {
            parts.push((format!("entering the ZOC of rifle unit {}", list(&entered)), 1));
        }
        if !exited.is_empty() {
            parts.push((format!("leaving the ZOC of rifle unit {}", list(&exited)), 1));
        }
        let mp = parts.iter().map(|(_, v)| *v).fold(0i32, |a, v| a.saturating_add(v));
        Ok(Step { mp, parts, captures, along: along.is_some() })
    }

    /// 9.1's exception: a unit may always move one hex, unless it is naval
    /// artillery or a mortar or the hex withdraws the exception (Savannah 4.19).
    fn minimum_move_into(&self, group: &Group, to: HexId) -> bool {
        group.minimum_move && self.terrain.hex(to).is_some_and(|h| h.minimum_move)
    }

    /// 13.3: the hexes a disrupted group may move to: one hex, not next to
    /// an enemy unit; one that begins next to the enemy must move away from
    /// as many enemy units as it can.
    fn disrupted_options(&self, state: &State, group: &Group, occ: &Occupancy) -> BTreeMap<HexId, Step> {
        let mut legal: Vec<(HexId, usize, Step)> = Vec::new();
        for n in neighbours(group.start, self.terrain.layout) {
            let Ok(step) = self.step(state, group, occ, group.start, n) else { continue };
            if step.mp > group.allowance && !self.minimum_move_into(group, n) {
                continue;
            }
            legal.push((n, self.adjacent_enemies(n).len(), step));
        }
        let now = self.adjacent_enemies(group.start).len();
        let best = legal.iter().map(|(_, k, _)| *k).min().unwrap_or(usize::MAX);
        legal
            .into_iter()
            .filter(|(_, k, _)| *k == 0 || (now > 0 && *k == best && best < now))
            .map(|(h, _, s)| (h, s))
            .collect()
    }

    /// Every hex the group can reach this phase, at its cheapest (Dijkstra
    /// over MPs; ties as the module documentation says). `allowance`
    /// replaces the group's when given (to say how far a hex really is).
    fn search(&self, state: &State, group: &Group, occ: &Occupancy, allowance: Option<i32>) -> BTreeMap<HexId, Node> {
        let mut best: BTreeMap<HexId, Node> = BTreeMap::new();
        if group.disrupted {
            for (h, step) in self.disrupted_options(state, group, occ) {
                best.insert(h, Node { mp: step.mp, steps: 1, prev: Some(group.start) });
            }
            return best;
        }
        let allowance = allowance.unwrap_or(group.allowance);
        let start = Node { mp: 0, steps: 0, prev: None };
        best.insert(group.start, start);
        let mut frontier: BTreeSet<(i32, u32, HexId)> = BTreeSet::new();
        frontier.insert((0, 0, group.start));
        let mut settled: BTreeSet<HexId> = BTreeSet::new();
        while let Some((mp, steps, hex)) = frontier.pop_first() {
            if !settled.insert(hex) {
                continue;
            }
            // 8.31: a unit entering an enemy ZOC stops there (8.32: the
            // hex it begins in does not hold it).
            if hex != group.start && self.zoc.contains(hex) {
                continue;
            }
            for n in neighbours(hex, self.terrain.layout) {
                if settled.contains(&n) {
                    continue;
                }
                let Ok(step) = self.step(state, group, occ, hex, n) else { continue };
                let total = mp.saturating_add(step.mp);
                let one_hex = hex == group.start && self.minimum_move_into(group, n);
                if total > allowance && !one_hex {
                    continue;
                }
                let better = best.get(&n).is_none_or(|old| (total, steps + 1) < (old.mp, old.steps));
                if better {
                    best.insert(n, Node { mp: total, steps: steps + 1, prev: Some(hex) });
                    frontier.insert((total, steps + 1, n));
                }
            }
        }
        best.remove(&group.start);
        best
    }

    fn path_to(best: &BTreeMap<HexId, Node>, start: HexId, to: HexId) -> Vec<HexId> {
        let mut path = vec![to];
        let mut at = to;
        while let Some(prev) = best.get(&at).and_then(|n| n.prev) {
            if prev == start {
                break;
            }
            path.push(prev);
            at = prev;
            if path.len() > best.len() + 1 {
                break;
            }
        }
        path.reverse();
        path
    }

    /// The hexes the group can reach, sorted, for problem texts.
    fn reachable_text(&self, state: &State, group: &Group, occ: &Occupancy) -> String {
        let reach: Vec<HexId> = self.search(state, group, occ, None).into_keys().collect();
        format!(
            "{} can reach {} (allowance {} MP{})",
            list(&group.ids),
            hexes_text(&reach),
            group.allowance,
            if group.strategic { ", strategic" } else { "" }
        )
    }

    /// Follow `path` from the group's hex, checking every rule. A problem
    /// names the index of the hex where it arises, or none when it concerns
    /// the whole path.
    fn walk(
        &self,
        state: &State,
        group: &Group,
        occ: &Occupancy,
        path: &[HexId],
    ) -> std::result::Result<Walk, (Option<usize>, String)> {
        let mut at = group.start;
        let mut mp: i32 = 0;
        let mut steps = Vec::new();
        let mut minimum_move = false;
        if path.is_empty() {
            return Err((None, "the path is empty: list the hexes entered, in order".into()));
        }
        if group.disrupted && path.len() > 1 {
            return Err((Some(1), "disrupted units may move only one hex per turn (13.3)".into()));
        }
        for (k, &to) in path.iter().enumerate() {
            if k > 0 && self.zoc.contains(at) {
                return Err((
                    Some(k),
                    format!(
                        "{at} is in the ZOC of enemy {}: the move must stop there (8.31)",
                        list(&self.zoc.exerted_on(at))
                    ),
                ));
            }
            if !crate::base::hex::are_adjacent(at, to, self.terrain.layout) {
                return Err((
                    Some(k),
                    format!("{to} does not adjoin {at}: a path lists adjacent hexes, every hex entered"),
                ));
            }
            let step = self.step(state, group, occ, at, to).map_err(|e| (Some(k), e))?;
            mp = mp.saturating_add(step.mp);
            if mp > group.allowance {
                if path.len() == 1 && self.minimum_move_into(group, to) {
                    minimum_move = true;
                } else {
                    let why = if k == 0 && path.len() > 1 && self.minimum_move_into(group, to) {
                        "; 9.1's exception allows a move of that one hex only"
                    } else {
                        ""
                    };
                    return Err((
                        Some(k),
                        format!(
                            "entering {to} costs {} MP, {mp} MP in all: more than the movement allowance of {} MP (9.1){why}",
                            step.mp, group.allowance
                        ),
                    ));
                }
            }
            steps.push(step);
            at = to;
        }
        if group.disrupted {
            let options = self.disrupted_options(state, group, occ);
            if !options.contains_key(&at) {
                let enemies = self.adjacent_enemies(at);
                let now = self.adjacent_enemies(group.start);
                let why = if now.is_empty() {
                    format!(
                        "{at} is next to enemy {}: a disrupted unit may not move adjacent to an enemy unit (13.3)",
                        list(&enemies)
                    )
                } else {
                    format!(
                        "a disrupted unit that begins next to the enemy must use its one hex to move away from as many enemy units as possible (13.3): {at} is next to {}",
                        if enemies.is_empty() { "none".to_string() } else { list(&enemies) }
                    )
                };
                return Err((None, why));
            }
        }
        let stopped_by = if self.zoc.contains(at) {
            if self.zoc.contains(group.start) && path.len() == 1 {
                Some("8.32 enemy ZOC to enemy ZOC".to_string())
            } else {
                Some("8.31 enemy ZOC".to_string())
            }
        } else if group.disrupted {
            Some("13.3 disrupted: one hex".to_string())
        } else if minimum_move {
            Some("9.1 one-hex move".to_string())
        } else {
            None
        };
        Ok(Walk { hexes: path.to_vec(), steps, mp, minimum_move, stopped_by })
    }
}

// ---------------------------------------------------------------------------
// Running the orders

/// The phase as it runs: the state after each move, the events, the problems.
struct Run<'d> {
    /// The dice, when the phase is resolved (Savannah 4.9's lost rolls);
    /// none when orders are only checked, which then assume no one gets lost.
    dice: Option<&'d mut dyn Dice>,
    /// Units that moved along the Covered Way (Savannah 4.9): the order
    /// that moved them and the hex they began in.
    along: BTreeMap<String, (String, HexId)>,
    state: State,
    events: Vec<Event>,
    problems: Vec<(String, Problem)>,
    /// Units moved so far, and the order that moved them.
    moved: BTreeMap<String, (String, String)>,
    /// 9.3: pinned units that moved.
    left_pins: Vec<String>,
    /// A die that could not be rolled: the step fails.
    failure: Option<Error>,
    /// Reinforcements placed this phase, and where (9.61).
    arrived: BTreeMap<String, HexId>,
}

impl<'d> Run<'d> {
    fn new(state: State, dice: Option<&'d mut dyn Dice>) -> Run<'d> {
        Run {
            dice,
            along: BTreeMap::new(),
            state,
            events: Vec::new(),
            problems: Vec::new(),
            moved: BTreeMap::new(),
            left_pins: Vec::new(),
            failure: None,
            arrived: BTreeMap::new(),
        }
    }
}

impl Phase<'_> {
    /// Every side's orders, in the order of the sides given.
    fn run<'d>(
        &self,
        state: &State,
        orders: &[(&str, &crate::base::yaml::Value)],
        whole_phase: bool,
        dice: Option<&'d mut dyn Dice>,
    ) -> Result<Run<'d>> {
        let mut run = Run::new(state.clone(), dice);
        // Savannah 4.9: at the beginning of the next friendly Movement
        // Phase, Lost markers turn to their Previously Lost side.
        let flipped: Vec<String> = run
            .state
            .units
            .iter()
            .filter(|(id, u)| u.lost && self.counters.get(id.as_str()).is_some_and(|c| self.is_friendly(c)))
            .map(|(id, _)| id.clone())
            .collect();
        for id in &flipped {
            if let Some(u) = run.state.units.get_mut(id) {
                u.lost = false;
                u.previously_lost = true;
            }
        }
        if !flipped.is_empty() {
            run.events.push(
                Event::new(
                    "Savannah 4.9",
                    "previously-lost",
                    format!("Lost markers turn to Previously Lost: {}", self.names(&flipped)),
                )
                .with("units", &flipped),
            );
        }
        self.place_arrivals(&mut run, orders);
        for (side, body) in orders {
            if !self.sides.iter().any(|s| s == side) {
                run.problems.push((
                    side.to_string(),
                    problem(
                        "",
                        format!(
                            "the {side} side does not move in the {} player turn; its sides are {}",
                            self.player,
                            self.sides.join(", ")
                        ),
                    ),
                ));
                continue;
            }
            self.run_side(&mut run, side, body);
        }
        let sides: Vec<&str> = orders.iter().map(|(s, _)| *s).collect();
        self.pinned_movers_end_away(&mut run);
        self.disrupted_must_move(state, &mut run, &sides);
        self.stack_must_retreat(state, &mut run, &sides);
        self.guns_must_return(state, &mut run, &sides);
        self.end_of_phase_stacking(state, &mut run, &sides, whole_phase);
        self.end_of_phase_arrivals(&mut run);
        self.overstacking_penalty(&mut run, orders);
        match run.failure.take() {
            Some(e) => Err(e),
            None => Ok(run),
        }
    }

    /// 9.61: the reinforcements due this turn are placed at the beginning
    /// of the phase, over the stacking limit if need be; `delay` keeps some
    /// off the map until next turn, `enter` picks among the hexes offered.
    fn place_arrivals(&self, run: &mut Run<'_>, orders: &[(&str, &crate::base::yaml::Value)]) {
        let turn = run.state.turn;
        let mut wanted: BTreeMap<String, (String, ArrivalOrders)> = BTreeMap::new();
        for (side, body) in orders {
            let parsed: ArrivalOrders = crate::base::yaml::from_value((*body).clone()).unwrap_or_default();
            wanted.insert(side.to_string(), (side.to_string(), parsed));
        }
        let due: Vec<String> = run
            .state
            .units
            .iter()
            .filter(|(id, u)| {
                u.off_map == Some(OffMap::Reinforcement)
                    && u.arriving.as_ref().is_some_and(|a| a.turn == turn)
                    && self.counters.get(id.as_str()).is_some_and(|c| self.is_friendly(c))
            })
            .map(|(id, _)| id.clone())
            .collect();
        let side_of =
            |id: &str| self.counters.get(id).and_then(|c| self.side_of_army.get(&c.army)).cloned().unwrap_or_default();
        // Orders that name units which are not arriving.
        for (side, (_, o)) in &wanted {
            for (n, id) in o.delay.iter().enumerate() {
                if !due.contains(id) {
                    run.problems.push((
                        side.clone(),
                        problem(
                            format!("delay[{n}]"),
                            format!(
                                "{} is not a reinforcement arriving this turn; those arriving are {}",
                                crate::base::error::echo(id),
                                list_or_none(&due)
                            ),
                        ),
                    ));
                } else if self.reinforcements.is_some_and(|r| !r.voluntary_delay) {
                    run.problems.push((
                        side.clone(),
                        problem(format!("delay[{n}]"), "this scenario's rules forbid delaying reinforcements (9.61)"),
                    ));
                }
            }
            for id in o.enter.keys() {
                if !due.contains(id) {
                    run.problems.push((
                        side.clone(),
                        problem(
                            format!("enter.{id}"),
                            format!(
                                "{} is not a reinforcement arriving this turn; those arriving are {}",
                                crate::base::error::echo(id),
                                list_or_none(&due)
                            ),
                        ),
                    ));
                }
            }
        }
        for id in due {
            let side = side_of(&id);
            let Some(arrival) = run.state.units.get(&id).and_then(|u| u.arriving.clone()) else { continue };
            let own = wanted.get(&side).map(|(_, o)| o);
            if own.is_some_and(|o| o.delay.contains(&id)) {
                if let Some(u) = run.state.units.get_mut(&id) {
                    u.arriving =
                        Some(crate::systems::gboar::board::state::Arrival { turn: turn.saturating_add(1), ..arrival });
                }
                run.events.push(
                    Event::new("9.61", "delayed", format!("{} is kept off the map until next turn", self.name(&id)))
                        .with("unit", &id),
                );
                continue;
            }
            let chosen = match own.and_then(|o| o.enter.get(&id)) {
                Some(text) => match text.parse() {
                    Ok(h) if arrival.hexes.iter().any(|x| x.parse::<HexId>().ok() == Some(h)) => Some(h),
                    Ok(h) => {
                        run.problems.push((
                            side.clone(),
                            problem(
                                format!("enter.{id}"),
                                format!(
                                    "{id} may enter at {}, not at {h} (9.61, Savannah 4.7)",
                                    arrival.hexes.join(" or ")
                                ),
                            ),
                        ));
                        None
                    }
                    Err(e) => {
                        run.problems.push((side.clone(), problem(format!("enter.{id}"), e)));
                        None
                    }
                },
                None => arrival.hexes.first().and_then(|h| h.parse().ok()),
            };
            let Some(hex) = chosen else { continue };
            if let Some(u) = run.state.units.get_mut(&id) {
                u.hex = Some(hex.to_string());
                u.off_map = None;
            }
            run.arrived.insert(id.clone(), hex);
            run.events.push(
                Event::new(
                    "9.61",
                    "placed",
                    format!("{} is placed at {hex} ({}); placement costs no MP (9.62)", self.name(&id), arrival.entry),
                )
                .with("unit", &id)
                .with("hex", hex.to_string()),
            );
        }
    }

    fn run_side(&self, run: &mut Run<'_>, side: &str, body: &crate::base::yaml::Value) {
        if body.is_null() {
            return;
        }
        let orders: MovementOrders = match serde_path_to_error::deserialize(body.clone()) {
            Ok(o) => o,
            Err(e) => {
                let path = e.path().to_string();
                let field = if path == "." { String::new() } else { path };
                run.problems.push((
                    side.to_string(),
                    problem(
                        field,
                        format!(
                            "{} (movement orders are `moves:`, a list of moves)",
                            crate::base::error::echo_serde(e.inner())
                        ),
                    ),
                ));
                return;
            }
        };
        if orders.declare_assault {
            self.declare_assault(run, side);
        }
        for (i, value) in orders.moves.iter().enumerate() {
            let field = format!("moves[{i}]");
            let order: MoveOrder = match serde_path_to_error::deserialize(value.clone()) {
                Ok(o) => o,
                Err(e) => {
                    let path = e.path().to_string();
                    let at = if path == "." { field.clone() } else { format!("{field}.{path}") };
                    run.problems.push((
                        side.to_string(),
                        problem(
                            at,
                            format!(
                                "{} (a move has unit or stack, path or to, and may have strategic and leave_pin)",
                                crate::base::error::echo_serde(e.inner())
                            ),
                        ),
                    ));
                    continue;
                }
            };
            let mut problems = Vec::new();
            self.one_move(run, side, &field, &order, &mut problems);
            run.problems.extend(problems.into_iter().map(|p| (side.to_string(), p)));
        }
    }

    /// The units of a side's own army that it may move, for "did you mean".
    fn suggest(&self, state: &State, side: &str, wrong: &str) -> String {
        let mut cache = self.on_map.borrow_mut();
        let own = cache.entry(side.to_string()).or_insert_with(|| {
            state
                .units
                .iter()
                .filter(|(id, u)| {
                    u.hex.is_some()
                        && self
                            .counters
                            .get(id.as_str())
                            .is_some_and(|c| self.side_of_army.get(&c.army).map(String::as_str) == Some(side))
                })
                .map(|(id, _)| id.clone())
                .collect()
        });
        let own: Vec<&str> = own.iter().map(String::as_str).collect();
        // An id is near when at most a third of its letters are wrong; the
        // distance is at least the difference in length, so ids too long or
        // too short to be near are never compared (a 1 MB "id" costs nothing).
        let near_enough = |d: usize, id: &str| d * 3 <= id.len().max(3);
        let mut near: Vec<(usize, &str)> = own
            .iter()
            .filter(|id| near_enough(id.len().abs_diff(wrong.len()), id))
            .map(|id| (edit_distance(wrong, id), *id))
            .collect();
        near.sort();
        let close: Vec<&str> = near.iter().filter(|(d, id)| near_enough(*d, id)).map(|(_, id)| *id).take(3).collect();
        if close.is_empty() {
            format!("the {side} units on the map are {}", own.join(", "))
        } else {
            format!("did you mean {}?", close.join(" or "))
        }
    }

    /// A move's units and what they move as, checked: every rule that holds
    /// the units back before any hex is entered (9.1, 9.3, 12.4, 13.4, the
    /// scenario's fixed guns; 9.52's and the weather's for strategic
    /// movement). None, with the problems, when the move may not be made.
    fn prepare(
        &self,
        run: &Run<'_>,
        side: &str,
        field: &str,
        order: &MoveOrder,
        problems: &mut Vec<Problem>,
    ) -> Option<Prepared> {
        let state = &run.state;
        // The units.
        let (ids, ids_field): (Vec<String>, String) = match (&order.unit, &order.stack) {
            (Some(u), None) => (vec![u.clone()], format!("{field}.unit")),
            (None, Some(s)) if !s.is_empty() => (s.clone(), format!("{field}.stack")),
            (None, Some(_)) => {
                problems
                    .push(problem(format!("{field}.stack"), "the stack is empty: list the units that move together"));
                return None;
            }
            (Some(_), Some(_)) => {
                problems.push(problem(field, "give unit or stack, not both"));
                return None;
            }
            (None, None) => {
                problems.push(problem(
                    field,
                    "give the unit that moves (unit: ID) or the units moving together (stack: [ID, ...])",
                ));
                return None;
            }
        };
        let mut start: Option<HexId> = None;
        let mut ok = true;
        let mut listed = BTreeSet::new();
        for (n, id) in ids.iter().enumerate() {
            let at = if order.stack.is_some() { format!("{ids_field}[{n}]") } else { ids_field.clone() };
            let bad = |message: String, problems: &mut Vec<Problem>| problems.push(problem(at.clone(), message));
            if !listed.insert(id.as_str()) {
                bad(format!("{} is listed twice", crate::base::error::echo(id)), problems);
                ok = false;
                continue;
            }
            let (Some(counter), Some(unit)) = (self.counters.get(id.as_str()), state.units.get(id)) else {
                bad(
                    format!(
                        "there is no unit '{}' in this game; {}",
                        crate::base::error::echo(id),
                        self.suggest(state, side, id)
                    ),
                    problems,
                );
                ok = false;
                continue;
            };
            let army_side = self.side_of_army.get(&counter.army).map(String::as_str).unwrap_or("");
            if army_side != side {
                let whose = if self.is_friendly(counter) {
                    format!("a unit of the {} army: the {army_side} orders move it", counter.army)
                } else {
                    format!("an enemy unit (the {} army)", counter.army)
                };
                bad(format!("{id} is {whose}; a side moves only its own army's units (9.1)"), problems);
                ok = false;
                continue;
            }
            let Some(hex) = unit.hex.as_deref().and_then(|h| h.parse::<HexId>().ok()) else {
                let where_ = match unit.off_map {
                    Some(OffMap::Reinforcement) if unit.arriving.as_ref().is_some_and(|a| a.turn == state.turn) => {
                        "a reinforcement kept off the map this turn (`delay`)"
                    }
                    Some(OffMap::Reinforcement) => "a reinforcement that does not arrive this turn (9.6)",
                    Some(OffMap::Captured) => "captured",
                    Some(OffMap::Eliminated) => "eliminated",
                    Some(OffMap::Removed) => "removed from play",
                    None => "off the map",
                };
                bad(format!("{id} is {where_}, so it cannot move"), problems);
                ok = false;
                continue;
            };
            if let Some((_, by)) = run.moved.get(id) {
                bad(format!("{id} has already moved ({by}); each unit moves at most once and completes its move before another moves (9.1)"), problems);
                ok = false;
                continue;
            }
            if unit.condition == Condition::Shattered && !counter.is_leader() {
                bad(format!("{id} is shattered: shattered units may not move (13.4, 9.2)"), problems);
                ok = false;
                continue;
            }
            if let Some(fixed) = &self.fixed_artillery {
                let held = fixed.types.contains(&counter.kind)
                    && (fixed.armies.is_empty() || fixed.armies.contains(&counter.army))
                    && !fixed.except_units.contains(id);
                if held && !unit.released && !unit.must_return {
                    bad(
                        format!(
                            "{id} may not move: no {} may move until attacked in Close Combat ({}){}",
                            counter.kind,
                            fixed.rule,
                            if fixed.except_units.is_empty() {
                                String::new()
                            } else {
                                format!("; only {} may", self.names(&fixed.except_units))
                            }
                        ),
                        problems,
                    );
                    ok = false;
                    continue;
                }
            }
            if unit.cavalry_withdrawn {
                bad(format!("{id} carries a Cavalry Withdrawal marker: it may not move until the marker comes off in its Rally Phase (12.4)"), problems);
                ok = false;
                continue;
            }
            if unit.pinned && !order.leave_pin {
                bad(
                    format!(
                        "{id} is pinned: a pinned unit may move only if it ends the Movement Phase not adjacent to any enemy unit, and its pin then costs army morale (9.3); to move it, add `leave_pin: true`"
                    ),
                    problems,
                );
                ok = false;
                continue;
            }
            if !unit.pinned && order.leave_pin && !counter.is_leader() {
                problems.push(problem(
                    format!("{field}.leave_pin"),
                    format!("{id} is not pinned: remove `leave_pin` (9.3)"),
                ));
                ok = false;
                continue;
            }
            match start {
                None => start = Some(hex),
                Some(s) if s != hex => {
                    bad(
                        format!(
                            "{id} is in {hex}, not in {s} with {}: a stack moves from one hex",
                            ids.first().map(String::as_str).unwrap_or("")
                        ),
                        problems,
                    );
                    ok = false;
                }
                Some(_) => {}
            }
        }
        let start = start?;
        if !ok {
            return None;
        }
        // The group.
        let mut group = Group {
            ids: ids.clone(),
            start,
            allowance: i32::MAX,
            sps: 0,
            guns: 0,
            captures: false,
            disrupted: false,
            minimum_move: true,
            strategic: order.strategic,
        };
        let mut allowances = BTreeMap::new();
        let mut max_hexes: Option<(u32, String)> = None;
        for id in &ids {
            let (Some(c), Some(u)) = (self.counters.get(id.as_str()), state.units.get(id)) else { continue };
            let printed = c.movement.unwrap_or(0);
            // Savannah 4.7: the turn of arrival's bonus, then artillery
            // doubled, then strategic movement doubles again (4.7's example).
            let arrival = u.arriving.as_ref().filter(|a| a.turn == state.turn && run.arrived.contains_key(id));
            let mut base = printed;
            if let Some(a) = arrival {
                base = base.saturating_add(a.mp_bonus);
                if c.is_artillery() {
                    base = base.saturating_mul(a.artillery_mp_multiplier);
                }
                if order.strategic && !a.strategic_movement {
                    problems.push(problem(
                        format!("{field}.strategic"),
                        format!(
                            "{id} arrived at {} this turn: no strategic movement on the turn of arrival (Savannah 4.7)",
                            a.entry
                        ),
                    ));
                    return None;
                }
                if a.pays_entry_cost {
                    // Savannah 4.7: placed at the nearest free hex, it pays that hex's terrain cost.
                    if let Some(MovementCost::Mp(cost)) = self.terrain.hex(start).map(|h| h.movement_cost) {
                        base = base.saturating_sub(cost);
                    }
                }
                if let Some(n) = a.max_hexes {
                    max_hexes = Some((n, id.clone()));
                }
            }
            let allowance = if order.strategic { base.saturating_mul(2) } else { base };
            allowances.insert(id.clone(), allowance);
            group.allowance = group.allowance.min(allowance);
            let (s, g) = self.stacking_weight(state, id);
            group.sps = group.sps.saturating_add(s);
            group.guns = group.guns.saturating_add(g);
            if !c.is_leader() && matches!(u.condition, Condition::ParadeOrder | Condition::Disrupted) {
                group.captures = true;
            }
            if !c.is_leader() && u.condition == Condition::Disrupted {
                group.disrupted = true;
            }
            if NO_MINIMUM_MOVE.contains(&c.kind.as_str()) {
                group.minimum_move = false;
            }
        }
        let occ = self.occupancy(state, &ids);
        if order.strategic {
            if let Some(w) = self.weather.filter(|w| !w.strategic_movement) {
                problems.push(problem(
                    format!("{field}.strategic"),
                    format!(
                        "the weather this turn is {}: no strategic movement (Savannah 4.2, Weather Table); move without `strategic`",
                        w.name
                    ),
                ));
                return None;
            }
            if group.disrupted {
                problems.push(problem(
                    format!("{field}.strategic"),
                    "a disrupted unit moves only one hex (13.3): no strategic movement",
                ));
                return None;
            }
            let enemies = self.adjacent_enemies(start);
            if !enemies.is_empty() {
                problems.push(problem(
                    format!("{field}.strategic"),
                    format!(
                        "{} begins next to enemy {}: strategic movement may not begin adjacent to enemy units (9.52)",
                        list(&ids),
                        list(&enemies)
                    ),
                ));
                return None;
            }
        }
        Some(Prepared { ids, start, group, allowances, max_hexes, occ })
    }

    /// One move: check it whole, then make it (or record every problem).
    fn one_move(&self, run: &mut Run<'_>, side: &str, field: &str, order: &MoveOrder, problems: &mut Vec<Problem>) {
        let Some(Prepared { ids, start, group, allowances, max_hexes, occ }) =
            self.prepare(run, side, field, order, problems)
        else {
            return;
        };
        let state = &run.state;
        // The path.
        let walked = match (&order.path, &order.to) {
            (Some(_), Some(_)) => {
                problems.push(problem(field, "give path or to, not both"));
                return;
            }
            (None, None) => {
                problems.push(problem(
                    field,
                    format!(
                        "give the path (path: [HEX, ...]) or the destination (to: HEX); {}",
                        self.reachable_text(state, &group, &occ)
                    ),
                ));
                return;
            }
            (Some(path), None) => {
                let mut hexes = Vec::new();
                for (k, h) in path.iter().enumerate() {
                    match h.parse() {
                        Ok(hex) => hexes.push(hex),
                        Err(e) => {
                            problems.push(problem(format!("{field}.path[{k}]"), e));
                            return;
                        }
                    }
                }
                match self.walk(state, &group, &occ, &hexes) {
                    Ok(w) => w,
                    Err((k, message)) => {
                        let at = match k {
                            Some(k) => format!("{field}.path[{k}]"),
                            None => format!("{field}.path"),
                        };
                        problems.push(problem(at, format!("{message}; {}", self.reachable_text(state, &group, &occ))));
                        return;
                    }
                }
            }
            (None, Some(to)) => {
                let to = match to.parse() {
                    Ok(h) => h,
                    Err(e) => {
                        problems.push(problem(format!("{field}.to"), e));
                        return;
                    }
                };
                match self.find(state, &group, &occ, to) {
                    Ok(w) => w,
                    Err(message) => {
                        problems.push(problem(format!("{field}.to"), message));
                        return;
                    }
                }
            }
        };
        if let Some((n, id)) = &max_hexes {
            if walked.hexes.len() > *n as usize {
                problems.push(problem(
                    field,
                    format!(
                        "{id} may move only {n} hex{} on its turn of arrival (Reinforcement Schedule); the move enters {}",
                        if *n == 1 { "" } else { "es" },
                        walked.hexes.len()
                    ),
                ));
                return;
            }
        }
        // Savannah Hist. Special Rules: a held gun sent back by Defensive
        // Artillery Fire moves toward its at-start hex as fast as it can.
        for id in &ids {
            if !state.units.get(id).is_some_and(|u| u.must_return) {
                continue;
            }
            let Some(home) = self.home(id) else { continue };
            let layout = self.terrain.layout;
            let dest = walked.hexes.last().copied().unwrap_or(start);
            let reach = self.search(state, &group, &occ, None);
            let best =
                reach.keys().chain(std::iter::once(&start)).map(|h| crate::base::hex::distance(*h, home, layout)).min();
            if best.is_some_and(|b| crate::base::hex::distance(dest, home, layout) > b) {
                let closest: Vec<HexId> = reach
                    .keys()
                    .copied()
                    .filter(|h| Some(crate::base::hex::distance(*h, home, layout)) == best)
                    .collect();
                problems.push(problem(
                    field,
                    format!(
                        "{id} must move back to its at-start hex {home} as quickly as it can (Hist. Special Rules): it can reach {}",
                        hexes_text(&closest)
                    ),
                ));
                return;
            }
        }
        // Savannah 4.9: units that begin stacked move along the Covered Way
        // as one stack.
        let mut walked = walked;
        let along = walked.steps.iter().any(|s| s.along);
        if along {
            let split: Vec<String> = run
                .along
                .iter()
                .filter(|(u, (_, h))| *h == start && !ids.contains(u))
                .map(|(u, (f, _))| format!("{u} ({f})"))
                .collect();
            if !split.is_empty() {
                problems.push(problem(
                    field,
                    format!(
                        "{} began the phase stacked with {}, which moved along the Covered Way: units that begin stacked move along it as one stack (Savannah 4.9)",
                        list(&ids),
                        split.join(", ")
                    ),
                ));
                return;
            }
        }
        if let Some(p) = self.zone_rules(&run.state, &ids, start, &walked.hexes, field) {
            problems.push(p);
            return;
        }
        let (covered_way_hexes, lost) = if along { self.lost_rolls(run, &ids, &mut walked) } else { (0, false) };
        // Make the move.
        let dest = walked.hexes.last().copied().unwrap_or(start);
        let path_text: Vec<String> = walked.hexes.iter().map(HexId::to_string).collect();
        let costs: Vec<String> = walked
            .hexes
            .iter()
            .zip(&walked.steps)
            .map(|(h, s)| {
                let parts: Vec<String> = s.parts.iter().map(|(n, v)| format!("{n} {v}")).collect();
                format!("{h} ({})", parts.join(" + "))
            })
            .collect();
        let stop_text = match walked.stopped_by.as_deref() {
            Some(s) if s.starts_with("8.3") => {
                format!(
                    "; stops in the ZOC of {} ({})",
                    self.names(&self.zoc.exerted_on(dest)),
                    s.get(..4).unwrap_or(s)
                )
            }
            Some(s) => format!("; stops ({s})"),
            None => String::new(),
        };
        for id in &ids {
            let mates: Vec<String> = ids.iter().filter(|m| *m != id).cloned().collect();
            let allowance = allowances.get(id).copied().unwrap_or(0);
            let text = format!(
                "{}{} moves {start} → {}{}: {} of {} MP{}{}{}",
                self.name(id),
                if mates.is_empty() { String::new() } else { format!(" (in a stack with {})", self.names(&mates)) },
                path_text.join(" → "),
                if order.strategic { " by strategic movement (9.52)" } else { "" },
                walked.mp,
                allowance,
                if walked.minimum_move {
                    ", more than its allowance: a unit may always move one hex (9.1)"
                } else {
                    ""
                },
                if costs.is_empty() { String::new() } else { format!(" [{}]", costs.join(", ")) },
                stop_text
            );
            run.events.push(
                Event::new("9.1", "move", text)
                    .with("unit", id)
                    .with("from", start.to_string())
                    .with("to", dest.to_string())
                    .with("path", &path_text)
                    .with("mp_spent", walked.mp)
                    .with("mp_allowance", allowance)
                    .with("strategic", order.strategic)
                    .with("minimum_move", walked.minimum_move)
                    .with("stopped_by", &walked.stopped_by),
            );
            let on_covered_way = self.terrain.hex(dest).is_some_and(|h| h.feature.is_some());
            let mortar = self.counters.get(id.as_str()).is_some_and(|c| c.kind == "mortar");
            let home = self.home(id);
            let turn = self.turn;
            if let Some(u) = run.state.units.get_mut(id) {
                u.hex = Some(dest.to_string());
                if mortar {
                    // Savannah 4.12: the 'Mortar Moved' marker.
                    u.mortar_moved_turn = Some(turn);
                }
                if u.must_return && home == Some(dest) {
                    u.must_return = false;
                }
                if on_covered_way {
                    // Savannah 4.9: still on it; the hexes of this march count.
                    u.covered_way_hexes = if along { covered_way_hexes } else { 0 };
                    if lost {
                        u.lost = true;
                        u.previously_lost = false;
                    }
                } else {
                    // Savannah 4.9: leaving the Covered Way removes Lost and
                    // Previously Lost markers, and a later march counts afresh.
                    u.lost = false;
                    u.previously_lost = false;
                    u.covered_way_hexes = 0;
                }
            }
            if along {
                run.along.insert(id.clone(), (field.to_string(), start));
            }
            self.sortie_marks(&mut run.state, id, &ids, start, dest);
            run.moved.insert(id.clone(), (side.to_string(), field.to_string()));
            if state_pinned(&run.state, id) {
                run.left_pins.push(id.clone());
            }
        }
        // 14.32: lone leaders captured on the way; the movers do not stop.
        let movers: Vec<String> =
            ids.iter().filter(|i| self.counters.get(i.as_str()).is_some_and(|c| !c.is_leader())).cloned().collect();
        for (hex, step) in walked.hexes.iter().zip(&walked.steps) {
            for leader in &step.captures {
                if let Some(u) = run.state.units.get_mut(leader) {
                    u.hex = None;
                    u.off_map = Some(OffMap::Captured);
                    u.pinned = false;
                    u.pin_result = None;
                }
                let text = format!(
                    "{}, alone in {hex}, is captured by {} (14.32); {} not stop and spend{} no extra MP",
                    self.name(leader),
                    self.names(&movers),
                    if movers.len() == 1 { "it does" } else { "they do" },
                    if movers.len() == 1 { "s" } else { "" }
                );
                run.events.push(
                    Event::new("14.32", "leader-captured", text)
                        .with("leader", leader)
                        .with("hex", hex.to_string())
                        .with("by", &movers),
                );
            }
        }
    }

    /// A unit's printed at-start hex.
    fn home(&self, id: &str) -> Option<HexId> {
        self.counters.get(id).and_then(|c| c.setup.as_ref()).and_then(|s| s.hex.parse().ok())
    }

    fn in_region(&self, zone: &str, hex: HexId) -> bool {
        self.regions.get(zone).is_some_and(|r| r.contains(&hex))
    }

    /// Savannah 4.10: whether the sortie restriction binds `id` now: a unit
    /// of its armies on its turns, not a leader, and not exempt unless it has
    /// been inside the perimeter.
    fn sortie_bound(&self, state: &State, id: &str) -> Option<&SortieRestriction> {
        let rule = self.scenario.sortie_restriction.as_ref().filter(|r| r.turns.contains(self.turn))?;
        let c = self.counters.get(id)?;
        if c.is_leader() || !rule.armies.contains(&c.army) {
            return None;
        }
        let exempt = c.tags.contains(&rule.exempt_tag) && !state.units.get(id).is_some_and(|u| u.been_inside);
        (!exempt).then_some(rule)
    }

    /// The scenario's rules about zones, on a legal path: Savannah 4.8 (a
    /// unit that may never enter a zone), 1.6/1.7 (on the strategic track
    /// the Allies move no combat unit next to the perimeter) and 4.10 (the
    /// sortie restriction).
    fn zone_rules(&self, state: &State, ids: &[String], start: HexId, path: &[HexId], field: &str) -> Option<Problem> {
        let layout = self.terrain.layout;
        for id in ids {
            let Some(c) = self.counters.get(id.as_str()) else { continue };
            for ban in self.scenario.zone_bans.iter().filter(|b| c.tags.contains(&b.tag)) {
                if let Some(h) = path.iter().find(|h| self.in_region(&ban.zone, **h)) {
                    return Some(problem(
                        field,
                        format!("{id} may never enter the {} ({}): {h} is in it", ban.zone, ban.rule),
                    ));
                }
            }
            if let Some(ts) = self.scenario.track_switch.as_ref().filter(|t| t.strategic.contains(self.turn)) {
                if let Some(r) = ts.strategic_restriction.as_ref().filter(|r| r.armies.contains(&c.army)) {
                    if !c.is_leader() {
                        let next_to = |h: HexId| {
                            self.in_region(&r.may_not_move_adjacent_to, h)
                                || neighbours(h, layout)
                                    .into_iter()
                                    .any(|n| self.in_region(&r.may_not_move_adjacent_to, n))
                        };
                        if let Some(h) = path.iter().find(|h| next_to(**h)) {
                            return Some(problem(
                                field,
                                format!(
                                    "{id} would move next to the {} at {h}: on the Strategic Turn Track that is attacking it, which the Allies may not do before declaring their assault ({})",
                                    r.may_not_move_adjacent_to,
                                    ts.rule.as_deref().unwrap_or("Savannah 1.6, 1.7")
                                ),
                            ));
                        }
                    }
                }
            }
        }
        let dest = path.last().copied().unwrap_or(start);
        let rule = self.scenario.sortie_restriction.as_ref().filter(|r| r.turns.contains(self.turn))?;
        let inside = |h: HexId| self.in_region(&rule.zone, h);
        let leaders: Vec<&String> =
            ids.iter().filter(|i| self.counters.get(i.as_str()).is_some_and(|c| c.is_leader())).collect();
        if inside(start) && !inside(dest) {
            let bound: Vec<&String> = ids.iter().filter(|i| self.sortie_bound(state, i).is_some()).collect();
            if !bound.is_empty() && leaders.is_empty() {
                return Some(problem(
                    field,
                    format!(
                        "{} may sortie outside the {} on turns {}-{} only stacked with a leader ({}): move them as a stack with one",
                        bound.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", "),
                        rule.zone,
                        rule.turns.first,
                        rule.turns.last,
                        rule.rule
                    ),
                ));
            }
        }
        if !inside(start) && inside(dest) {
            for leader in leaders {
                let out: Vec<String> = state
                    .units
                    .iter()
                    .filter(|(u, s)| {
                        s.sortie_with.as_deref() == Some(leader.as_str())
                            && !ids.contains(u)
                            && s.hex.as_deref().and_then(|h| h.parse().ok()).is_some_and(|h| !inside(h))
                    })
                    .map(|(u, _)| u.clone())
                    .collect();
                if !out.is_empty() {
                    return Some(problem(
                        field,
                        format!(
                            "{leader} may not return inside the {} before the units that sortied with him: {} ({})",
                            rule.zone,
                            out.join(", "),
                            rule.rule
                        ),
                    ));
                }
            }
        }
        None
    }

    /// Savannah 1.6 case A: the declaration, if this player may make it now.
    fn declare_assault(&self, run: &mut Run<'_>, side: &str) {
        let track = self.scenario.track_switch.as_ref();
        let Some(d) = track.and_then(|t| t.declaration.as_ref()) else {
            run.problems.push((
                side.to_string(),
                problem("declare_assault", "this scenario has no declaration of an assault (Savannah 1.6)"),
            ));
            return;
        };
        let rule = track.and_then(|t| t.rule.clone()).unwrap_or_else(|| "Savannah 1.6".into());
        let why = if d.by != self.player {
            Some(format!("only the {} player declares the assault ({rule})", d.by))
        } else if !d.turns.contains(self.turn) {
            Some(format!("the assault is declared on turns {}-{} only ({rule})", d.turns.first, d.turns.last))
        } else if run.state.assault_declared {
            Some(format!("the assault is already declared ({rule})"))
        } else {
            None
        };
        if let Some(why) = why {
            run.problems.push((side.to_string(), problem("declare_assault", why)));
            return;
        }
        run.state.assault_declared = true;
        run.events.push(
            Event::new(
                "Savannah 1.6",
                "assault-declared",
                format!(
                    "the {} declare their assault on the perimeter: at the end of this turn play goes to turn {} of the Tactical Turn Track, for good; reinforcements not yet arrived never will (case A, {rule})",
                    self.player, d.next_turn
                ),
            )
            .with("player", &self.player)
            .with("next_turn", d.next_turn),
        );
    }

    /// Savannah 4.10: who is out with which leader, and who has been inside.
    fn sortie_marks(&self, state: &mut State, id: &str, ids: &[String], start: HexId, dest: HexId) {
        let Some(rule) = self.scenario.sortie_restriction.as_ref().filter(|r| r.turns.contains(self.turn)) else {
            return;
        };
        let inside = |h: HexId| self.in_region(&rule.zone, h);
        let bound = self.sortie_bound(state, id).is_some();
        let leader = ids.iter().find(|i| self.counters.get(i.as_str()).is_some_and(|c| c.is_leader())).cloned();
        let Some(u) = state.units.get_mut(id) else { return };
        if inside(dest) {
            u.sortie_with = None;
            if self.counters.get(id).is_some_and(|c| rule.armies.contains(&c.army)) {
                u.been_inside = true;
            }
        } else if inside(start) && bound {
            u.sortie_with = leader;
        }
    }

    /// Savannah 4.9: a die for the stack per hex it enters along the Covered
    /// Way, with the chart's DRMs; where the stack gets lost it stops. Without
    /// dice (orders only checked) no one gets lost. Gives the hexes of this
    /// march along it and whether the stack got lost.
    fn lost_rolls(&self, run: &mut Run<'_>, ids: &[String], walked: &mut Walk) -> (u32, bool) {
        let table = &self.covered_way.lost_roll;
        let units: Vec<&crate::systems::gboar::board::state::UnitState> =
            ids.iter().filter_map(|i| run.state.units.get(i)).collect();
        let mut count = units.iter().map(|u| u.covered_way_hexes).max().unwrap_or(0);
        let previously = units.iter().any(|u| u.previously_lost);
        let die = match self.covered_way.die {
            crate::systems::gboar::data::charts::Die::D10 => crate::base::dice::Die::D10,
        };
        let mut lost_at = None;
        for k in 0..walked.steps.len() {
            if !walked.steps.get(k).is_some_and(|s| s.along) {
                continue;
            }
            let Some(hex) = walked.hexes.get(k).copied() else { break };
            if let Some(dice) = run.dice.as_mut() {
                let mut drms: Vec<(String, i32)> = Vec::new();
                for d in &table.drms {
                    match d.id.as_str() {
                        "hexes-entered" => {
                            let per = d.per_hexes.unwrap_or(1).max(1);
                            let times = i32::try_from(count / per).unwrap_or(i32::MAX);
                            let v = d.value.unwrap_or(0).saturating_mul(times);
                            if v != 0 {
                                drms.push((format!("{count} Covered Way hexes entered before"), v));
                            }
                        }
                        "previously-lost" if previously => drms.push(("previously lost".into(), d.value.unwrap_or(0))),
                        "previously-lost" => {}
                        other => {
                            run.failure = Some(Error::refused(format!(
                                "charts/covered-way.yaml: the engine does not know the lost-roll DRM '{other}' (Savannah 4.9)"
                            )));
                            return (count, false);
                        }
                    }
                }
                let purpose = format!("Covered Way lost roll, {} entering {hex}", list(ids));
                let roll = match dice.roll(die, &purpose) {
                    Ok(r) => i32::from(r),
                    Err(e) => {
                        run.failure = Some(e);
                        return (count, false);
                    }
                };
                let total = drms.iter().fold(roll, |t, (_, v)| t.saturating_add(*v));
                let result = table
                    .outcomes
                    .iter()
                    .find(|o| o.min.is_none_or(|m| total >= m) && o.max.is_none_or(|m| total <= m))
                    .map(|o| o.result.as_str());
                let is_lost = match result {
                    Some("lost") => true,
                    Some("not-lost") => false,
                    other => {
                        run.failure = Some(Error::refused(format!(
                            "charts/covered-way.yaml: a modified roll of {total} reads {other:?}, not lost or not-lost (Savannah 4.9)"
                        )));
                        return (count, false);
                    }
                };
                let drm_text: Vec<String> = drms.iter().map(|(n, v)| format!("{v:+} {n}")).collect();
                run.events.push(
                    Event::new(
                        "Savannah 4.9",
                        "covered-way-roll",
                        format!(
                            "{} entering {hex} along the Covered Way rolls {roll}{}{} = {total}: {}",
                            self.names(ids),
                            if drm_text.is_empty() { "" } else { ", " },
                            drm_text.join(", "),
                            if is_lost {
                                "lost: the stack stops and may not move further this turn"
                            } else {
                                "not lost"
                            }
                        ),
                    )
                    .with("units", ids)
                    .with("hex", hex.to_string())
                    .with("roll", roll)
                    .with("drms", drms.iter().cloned().collect::<BTreeMap<String, i32>>())
                    .with("total", total)
                    .with("lost", is_lost),
                );
                count = count.saturating_add(1);
                if is_lost {
                    lost_at = Some(k);
                    break;
                }
            } else {
                count = count.saturating_add(1);
            }
        }
        if let Some(k) = lost_at {
            let whole = walked.hexes.len();
            walked.hexes.truncate(k + 1);
            walked.steps.truncate(k + 1);
            walked.mp = walked.steps.iter().fold(0i32, |a, s| a.saturating_add(s.mp));
            if k + 1 < whole {
                walked.minimum_move = false;
            }
            walked.stopped_by = Some("Savannah 4.9 lost on the Covered Way".into());
        }
        (count, lost_at.is_some())
    }

    /// `to:`: the cheapest legal path, or why there is none.
    fn find(&self, state: &State, group: &Group, occ: &Occupancy, to: HexId) -> std::result::Result<Walk, String> {
        if to == group.start {
            return Err(format!("{} is already in {to}", list(&group.ids)));
        }
        let reach = self.search(state, group, occ, None);
        if reach.contains_key(&to) {
            let path = Phase::path_to(&reach, group.start, to);
            return self.walk(state, group, occ, &path).map_err(|(_, m)| m);
        }
        let reachable = self.reachable_text(state, group, occ);
        // Why not: something about the hex itself, or the distance.
        if let Some(reason) = neighbours(to, self.terrain.layout).into_iter().find_map(|n| {
            if !crate::base::hex::are_adjacent(n, to, self.terrain.layout) {
                return None;
            }
            match self.step(state, group, occ, n, to) {
                Err(e) if !e.contains("strategic") && !e.contains("does not follow") => Some(e),
                _ => None,
            }
        }) {
            return Err(format!("{to} cannot be entered: {reason}; {reachable}"));
        }
        if group.disrupted {
            return Err(format!("disrupted units move one hex, never next to an enemy unit (13.3); {reachable}"));
        }
        let far = self.search(state, group, occ, Some(i32::MAX / 4));
        let mut message = match far.get(&to) {
            Some(node) => format!(
                "{to} is beyond reach: the cheapest legal path costs {} MP, and the allowance is {} MP (9.1)",
                node.mp, group.allowance
            ),
            None => format!("no legal path leads to {to} (enemy ZOCs stop a move, 8.31; enemy units and prohibited terrain bar it, 9.2)"),
        };
        if !group.strategic {
            let mut by_road = group.clone();
            by_road.strategic = true;
            by_road.allowance = by_road.allowance.saturating_mul(2);
            if self.adjacent_enemies(group.start).is_empty()
                && self.weather.is_none_or(|w| w.strategic_movement)
                && self.search(state, &by_road, occ, None).contains_key(&to)
            {
                message.push_str(" (it can get there by strategic movement: add `strategic: true`, 9.52)");
            }
        }
        Err(format!("{message}; {reachable}"))
    }

    /// 9.3: a pinned unit that moved must end the phase next to no enemy
    /// unit; and (13.1 PIN, case B) once a player leaves a PIN result, no
    /// other friendly unit may move next to the enemy units it pinned.
    fn pinned_movers_end_away(&self, run: &mut Run<'_>) {
        let left: BTreeSet<String> =
            run.left_pins.iter().filter_map(|id| run.state.units.get(id).and_then(|u| u.pin_result.clone())).collect();
        for result in &left {
            let held: Vec<HexId> = run
                .state
                .units
                .iter()
                .filter(|(id, u)| {
                    u.pin_result.as_ref() == Some(result)
                        && self.counters.get(id.as_str()).is_some_and(|c| !self.is_friendly(c))
                })
                .filter_map(|(id, _)| hex_of(&run.state, id))
                .collect();
            for (id, (side, field)) in &run.moved {
                if run.left_pins.contains(id) {
                    continue;
                }
                let Some(hex) = hex_of(&run.state, id) else { continue };
                if let Some(h) = held.iter().find(|h| crate::base::hex::are_adjacent(hex, **h, self.terrain.layout)) {
                    run.problems.push((
                        side.clone(),
                        problem(
                            field.clone(),
                            format!(
                                "{id} ends its move next to {h}, held by the PIN result {result} that this turn's orders leave: no other friendly unit may move next to the enemy units pinned there (13.1 PIN, case B)"
                            ),
                        ),
                    ));
                }
            }
        }
        for id in &run.left_pins {
            let Some(hex) = hex_of(&run.state, id) else { continue };
            let enemies = self.adjacent_enemies(hex);
            if enemies.is_empty() {
                continue;
            }
            let (side, field) = run.moved.get(id).cloned().unwrap_or_default();
            run.problems.push((
                side,
                problem(
                    field,
                    format!(
                        "{id} is pinned and ends its move in {hex}, next to enemy {}: a pinned unit may move only if it ends the Movement Phase not adjacent to any enemy unit (9.3)",
                        list(&enemies)
                    ),
                ),
            ));
        }
    }

    /// 9.3: after all movement, pins come off every unit of either side that
    /// is next to no enemy combat unit; the phasing player's army morale
    /// pays, once for each PIN result whose markers come off (13.1 PIN, case
    /// B: "for EACH individual PIN result"; pins of no known result count as
    /// one). With several armies (an alliance), each phasing army pays that
    /// had a pin of its own removed or had a unit next to a removed enemy pin
    /// when the phase began.
    fn remove_pins(&self, rules: &Rules, start: &State, run: &mut Run<'_>) -> Result<()> {
        let enemy_of = |state: &State, id: &str, hex: HexId| -> Vec<String> {
            let mine = self.counters.get(id).and_then(|c| self.player_of_army.get(&c.army)).cloned();
            let around: Vec<HexId> = neighbours(hex, self.terrain.layout);
            let mut found: Vec<String> = state
                .units
                .iter()
                .filter(|(other, u)| {
                    self.counters
                        .get(other.as_str())
                        .is_some_and(|c| !c.is_leader() && self.player_of_army.get(&c.army) != mine.as_ref())
                        && u.hex.as_deref().and_then(|h| h.parse().ok()).is_some_and(|h| around.contains(&h))
                })
                .map(|(other, _)| other.clone())
                .collect();
            found.sort();
            found
        };
        let mut removed: Vec<String> = Vec::new();
        for (id, unit) in &run.state.units {
            if !unit.pinned {
                continue;
            }
            let Some(hex) = hex_of(&run.state, id) else { continue };
            if enemy_of(&run.state, id, hex).is_empty() {
                removed.push(id.clone());
            }
        }
        if removed.is_empty() {
            return Ok(());
        }
        // Per PIN result: the phasing armies that pay for it.
        let mut results: BTreeMap<Option<String>, BTreeSet<String>> = BTreeMap::new();
        for id in &removed {
            let Some(c) = self.counters.get(id.as_str()) else { continue };
            let result = run.state.units.get(id).and_then(|u| u.pin_result.clone());
            let paying = results.entry(result).or_default();
            if self.is_friendly(c) {
                paying.insert(c.army.clone());
            } else if let Some(hex) = hex_of(start, id) {
                for other in enemy_of(start, id, hex) {
                    if let Some(o) = self.counters.get(other.as_str()) {
                        if self.is_friendly(o) {
                            paying.insert(o.army.clone());
                        }
                    }
                }
            }
            if let Some(u) = run.state.units.get_mut(id) {
                u.pinned = false;
                u.pin_result = None;
            }
        }
        let names = self.names(&removed);
        run.events.push(
            Event::new("9.3", "pins-removed", format!("pins removed after movement, next to no enemy unit: {names}"))
                .with("units", &removed),
        );
        let first_army =
            self.player_of_army.iter().find(|(_, p)| **p == self.player).map(|(a, _)| a.clone()).unwrap_or_default();
        for (result, mut paying) in results {
            if paying.is_empty() {
                // No phasing unit was involved (a pin left over next to nothing).
                paying.insert(first_army.clone());
            }
            let which = result.map(|r| format!(" (PIN result {r})")).unwrap_or_default();
            for army in paying {
                let why = format!("the {} player removed pins{which} in its Movement Phase", self.player);
                let events = crate::systems::gboar::effects::morale::apply(
                    rules,
                    &mut run.state,
                    "pin-removed-in-movement",
                    &army,
                    &[],
                    1,
                    ("9.3", &why),
                )?;
                run.events.extend(events);
            }
        }
        Ok(())
    }

    /// Savannah 4.7 (the scenario's `overstacked_arrival`): reinforcements
    /// that did not move out of an entry hex still over the stacking limit
    /// are put off a turn, and enter ahead of later arrivals there; the last
    /// placed (in id order) go first, until the hex is within the limit.
    /// Then the turn of arrival is over for every unit placed.
    fn end_of_phase_arrivals(&self, run: &mut Run<'_>) {
        let turn = run.state.turn;
        if let (Some(rule), Some(limits)) =
            (self.reinforcements.and_then(|r| r.overstacked_arrival.as_ref()), self.stacking.as_ref())
        {
            let mut hexes: BTreeSet<HexId> = BTreeSet::new();
            for (id, hex) in &run.arrived {
                if !run.moved.contains_key(id) {
                    hexes.insert(*hex);
                }
            }
            for hex in hexes {
                loop {
                    let here: Vec<String> = run
                        .state
                        .units
                        .iter()
                        .filter(|(id, u)| {
                            hex_of(&run.state, id) == Some(hex)
                                && u.hex.is_some()
                                && self.counters.get(id.as_str()).is_some_and(|c| self.is_friendly(c))
                        })
                        .map(|(id, _)| id.clone())
                        .collect();
                    let (sps, guns) = here.iter().fold((0i32, 0i32), |(a, b), id| {
                        let (s, g) = self.stacking_weight(&run.state, id);
                        (a.saturating_add(s), b.saturating_add(g))
                    });
                    if sps <= limits.max_strength_points && guns <= limits.max_artillery_units {
                        break;
                    }
                    // Units with priority (put off once already) stay if they can.
                    let waiting = |id: &&String, priority: bool| {
                        run.arrived.get(*id) == Some(&hex)
                            && !run.moved.contains_key(*id)
                            && run.state.units.get(*id).and_then(|u| u.arriving.as_ref()).is_some_and(|a| a.priority)
                                == priority
                    };
                    let Some(back) = here
                        .iter()
                        .rev()
                        .find(|id| waiting(id, false))
                        .or_else(|| here.iter().rev().find(|id| waiting(id, true)))
                        .cloned()
                    else {
                        break;
                    };
                    let later = turn.saturating_add(rule.delay_turns);
                    if let Some(u) = run.state.units.get_mut(&back) {
                        u.hex = None;
                        u.off_map = Some(OffMap::Reinforcement);
                        if let Some(a) = u.arriving.as_mut() {
                            a.turn = later;
                            a.priority = rule.priority_next_turn;
                        }
                    }
                    run.arrived.remove(&back);
                    run.events.push(
                        Event::new(
                            "Savannah 4.7",
                            "arrival-put-off",
                            format!(
                                "{} cannot conform to the stacking limit in {hex} ({sps} SPs, {guns} artillery units): it leaves the map and enters on turn {later}{} ({})",
                                self.name(&back),
                                if rule.priority_next_turn { ", ahead of later arrivals" } else { "" },
                                rule.rule
                            ),
                        )
                        .with("unit", &back)
                        .with("hex", hex.to_string())
                        .with("turn", later),
                    );
                }
            }
        }
        let placed: Vec<String> = run.arrived.keys().cloned().collect();
        for id in placed {
            if let Some(u) = run.state.units.get_mut(&id) {
                u.arriving = None;
            }
        }
    }

    /// 7.3: a hex of the phasing player still over the stacking limit when
    /// the phase ends (reinforcements placed over it that did not move on,
    /// where the scenario does not put them off instead) costs steps, the
    /// orders' `overstack_losses` first ([`crate::systems::gboar::effects::losses::overstacking`]).
    /// Checking one side's orders, only its own choices are checked.
    fn overstacking_penalty(&self, run: &mut Run<'_>, orders: &[(&str, &crate::base::yaml::Value)]) {
        let mut choices: Vec<String> = Vec::new();
        let mut chooser = String::new();
        for (side, body) in orders {
            let list: Vec<String> = body
                .get("overstack_losses")
                .and_then(|v| crate::base::yaml::from_value::<Vec<String>>(v.clone()).ok())
                .unwrap_or_default();
            if !list.is_empty() && chooser.is_empty() {
                chooser = side.to_string();
            }
            choices.extend(list);
        }
        let mut trial = run.state.clone();
        match crate::systems::gboar::effects::losses::overstacking(self.rules, &mut trial, &self.player, &choices) {
            Ok(events) => {
                run.state = trial;
                run.events.extend(events);
            }
            Err(e) => {
                let side = if chooser.is_empty() { self.sides.first().cloned().unwrap_or_default() } else { chooser };
                run.problems.push((side, problem("overstack_losses", e.to_string())));
            }
        }
    }

    /// Savannah Hist. Special Rules: a held gun sent back by Defensive
    /// Artillery Fire that the orders leave where it is, away from its
    /// at-start hex, while it could get nearer.
    fn guns_must_return(&self, start: &State, run: &mut Run<'_>, sides: &[&str]) {
        for (id, unit) in &start.units {
            if !unit.must_return || run.moved.contains_key(id) {
                continue;
            }
            let (Some(c), Some(hex), Some(home)) = (self.counters.get(id.as_str()), hex_of(start, id), self.home(id))
            else {
                continue;
            };
            let Some(side) = self.side_of_army.get(&c.army) else { continue };
            if !sides.contains(&side.as_str()) || hex == home {
                continue;
            }
            let group = Group {
                ids: vec![id.clone()],
                start: hex,
                allowance: c.movement.unwrap_or(0),
                sps: 0,
                guns: 1,
                captures: true,
                disrupted: unit.condition == Condition::Disrupted,
                minimum_move: !NO_MINIMUM_MOVE.contains(&c.kind.as_str()),
                strategic: false,
            };
            let occ = self.occupancy(&run.state, &group.ids);
            let layout = self.terrain.layout;
            let now = crate::base::hex::distance(hex, home, layout);
            let closer: Vec<HexId> = self
                .search(&run.state, &group, &occ, None)
                .into_keys()
                .filter(|h| crate::base::hex::distance(*h, home, layout) < now)
                .collect();
            if !closer.is_empty() {
                run.problems.push((
                    side.clone(),
                    problem(
                        "moves",
                        format!(
                            "{id} must move back to its at-start hex {home} as quickly as it can (Hist. Special Rules); it can move to {}",
                            hexes_text(&closer)
                        ),
                    ),
                ));
            }
        }
    }

    /// 13.3: a disrupted unit that begins the phase next to the enemy must
    /// use its one hex move to move away, when it can.
    fn disrupted_must_move(&self, start: &State, run: &mut Run<'_>, sides: &[&str]) {
        for (id, unit) in &start.units {
            let Some(c) = self.counters.get(id.as_str()) else { continue };
            let Some(side) = self.side_of_army.get(&c.army) else { continue };
            if !sides.contains(&side.as_str()) || c.is_leader() || unit.condition != Condition::Disrupted || unit.pinned
            {
                continue;
            }
            if run.moved.contains_key(id) {
                continue;
            }
            let Some(hex) = hex_of(start, id) else { continue };
            let enemies = self.adjacent_enemies(hex);
            if enemies.is_empty() {
                continue;
            }
            let group = Group {
                ids: vec![id.clone()],
                start: hex,
                allowance: c.movement.unwrap_or(0),
                sps: self.stacking_weight(start, id).0,
                guns: self.stacking_weight(start, id).1,
                captures: true,
                disrupted: true,
                minimum_move: !NO_MINIMUM_MOVE.contains(&c.kind.as_str()),
                strategic: false,
            };
            let occ = self.occupancy(&run.state, &group.ids);
            let options: Vec<HexId> = self.disrupted_options(&run.state, &group, &occ).into_keys().collect();
            if !options.is_empty() {
                run.problems.push((
                    side.clone(),
                    problem(
                        "moves",
                        format!(
                            "{id} is disrupted and begins next to enemy {}: it must use its one hex move to move away from as many enemy units as possible (13.3); it can move to {}",
                            list(&enemies),
                            hexes_text(&options)
                        ),
                    ),
                ));
            }
        }
    }

    /// Savannah 4.1 (`forced_attack.retreat_instead_if_possible`): the
    /// units of the sides given that begin the phase (`start`, reinforcements
    /// placed) in a stack the restriction binds, next to the enemy, where
    /// they would have to attack (12.12), and can move to a hex next to no
    /// enemy unit: each with where it is, the restriction and its pair, the
    /// enemy units next to it, and those hexes (cheapest first).
    fn forced_retreats(&self, start: &State, sides: &[&str]) -> Vec<ForcedRetreat> {
        self.forced_retreats_of(start, sides, |_| true)
    }

    /// [`Phase::forced_retreats`] of the units `of` keeps (the hexes open
    /// to a retreat are the costly part: a trial move to each).
    fn forced_retreats_of(&self, start: &State, sides: &[&str], of: impl Fn(&str) -> bool) -> Vec<ForcedRetreat> {
        let mut found = Vec::new();
        let mut base = Run::new(start.clone(), None);
        self.place_arrivals(&mut base, &[]);
        let start = &base.state.clone();
        let occupancy = crate::systems::gboar::board::units::Occupancy::new(self.rules, start);
        for (id, unit) in &start.units {
            let Some(c) = self.counters.get(id.as_str()) else { continue };
            let Some(side) = self.side_of_army.get(&c.army) else { continue };
            if !self.is_friendly(c) || !sides.contains(&side.as_str()) || unit.pinned {
                continue;
            }
            let Some(hex) = hex_of(start, id) else { continue };
            if !of(id) || !crate::systems::gboar::board::units::must_attack_in(self.rules, start, id, Some(&occupancy))
            {
                continue;
            }
            let keep = |r: &Restriction| r.forced_attack.as_ref().is_some_and(|f| f.retreat_instead_if_possible);
            let Some((r, x, y)) = restricted_stack(self.rules, start, hex, keep) else { continue };
            let options = self.one_unit_ends(&base, id, |h| self.adjacent_enemies(h).is_empty(), usize::MAX);
            if options.is_empty() {
                continue;
            }
            found.push(ForcedRetreat {
                side: side.clone(),
                unit: id.clone(),
                hex,
                restriction: r.id.clone(),
                rule: r.rule_name().to_string(),
                pair: (x, y),
                enemies: self.adjacent_enemies(hex),
                options,
            });
        }
        found
    }

    /// The hexes other than its own that `id` can end a one-unit move in
    /// (not pinned units': leaving a pin is the player's choice, 9.3),
    /// cheapest first: the orders' own checks, as for [`unit_moves`].
    /// Only the hexes `keep` keeps, and at most `limit` of them (the trial
    /// move to each hex is the costly part, so those are made last).
    fn one_unit_ends(&self, base: &Run<'_>, id: &str, keep: impl Fn(HexId) -> bool, limit: usize) -> Vec<HexId> {
        let Some(side) = self.counters.get(id).and_then(|c| self.side_of_army.get(&c.army)) else {
            return Vec::new();
        };
        let probe = MoveOrder {
            unit: Some(id.to_string()),
            stack: None,
            path: None,
            to: None,
            strategic: false,
            leave_pin: false,
        };
        let mut problems = Vec::new();
        let Some(prepared) = self.prepare(base, side, "moves[0]", &probe, &mut problems) else { return Vec::new() };
        let best = self.search(&base.state, &prepared.group, &prepared.occ, None);
        let mut candidates: Vec<HexId> = best.keys().copied().filter(|h| *h != prepared.start && keep(*h)).collect();
        candidates.sort_by_key(|h| best.get(h).map(|n| (n.mp, n.steps, *h)));
        let mut ends = Vec::new();
        for to in candidates {
            if ends.len() >= limit {
                break;
            }
            if self.ends_at(base, side, &probe, &prepared, &best, to) {
                ends.push(to);
            }
        }
        ends
    }

    /// Savannah 4.1: a stack of [`Phase::forced_retreats`] that the orders
    /// leave next to the enemy.
    fn stack_must_retreat(&self, start: &State, run: &mut Run<'_>, sides: &[&str]) {
        // Only the units the orders leave next to the enemy.
        let left_next_to = |id: &str| hex_of(&run.state, id).is_some_and(|now| !self.adjacent_enemies(now).is_empty());
        for f in self.forced_retreats_of(start, sides, left_next_to) {
            let field = run.moved.get(&f.unit).map(|(_, field)| field.clone()).unwrap_or_else(|| "moves".into());
            run.problems.push((
                f.side.clone(),
                problem(
                    field,
                    format!(
                        "{} begins the Movement Phase in {} in a stack of {} and {}, which {} restricts, next to enemy {} where it would have to attack (12.12): it must retreat instead, ending the phase next to no enemy unit ({}); it can move to {}",
                        f.unit,
                        f.hex,
                        f.pair.0,
                        f.pair.1,
                        f.restriction,
                        list(&f.enemies),
                        f.rule,
                        some_hexes(&f.options)
                    ),
                ),
            ));
        }
    }

    /// Savannah 4.1 (module.yaml `stacking.restrictions`): units that may
    /// not end a Movement Phase stacked together. A side's orders alone
    /// (`whole_phase` false) are held to it only for pairs of its own units.
    fn end_of_phase_stacking(&self, start: &State, run: &mut Run<'_>, sides: &[&str], whole_phase: bool) {
        let Some(stacking) = &self.stacking else { return };
        let mut by_hex: BTreeMap<HexId, Vec<&Counter>> = BTreeMap::new();
        for (id, unit) in &run.state.units {
            let Some(c) = self.counters.get(id.as_str()) else { continue };
            if !self.is_friendly(c) {
                continue;
            }
            if let Some(h) = unit.hex.as_deref().and_then(|h| h.parse().ok()) {
                by_hex.entry(h).or_default().push(c);
            }
        }
        let side_of = |c: &Counter| self.side_of_army.get(&c.army).cloned().unwrap_or_default();
        let mut found = Vec::new();
        for r in stacking.restrictions.iter().filter(|r| !r.may_end_movement_phase_stacked) {
            for (hex, units) in &by_hex {
                for (n, x) in units.iter().enumerate() {
                    for y in units.iter().skip(n + 1) {
                        if !r.applies(x, y) {
                            continue;
                        }
                        let (sx, sy) = (side_of(x), side_of(y));
                        if !(whole_phase || sx == sy && sides.contains(&sx.as_str())) {
                            continue;
                        }
                        let mover = [x, y].into_iter().find(|c| run.moved.contains_key(&c.id));
                        let text = format!(
                            "{} and {} end the Movement Phase stacked in {hex}, which {} forbids ({})",
                            x.id,
                            y.id,
                            r.id,
                            r.rule_name()
                        );
                        match mover {
                            Some(c) => {
                                let (side, field) = run.moved.get(&c.id).cloned().unwrap_or_default();
                                found.push((side, problem(field, text)));
                            }
                            None => {
                                let always =
                                    r.after_retreat.as_ref().and_then(|a| a.unstack_next_friendly_movement.as_deref())
                                        == Some("always");
                                let stacked_before =
                                    hex_of(start, &x.id) == Some(*hex) && hex_of(start, &y.id) == Some(*hex);
                                // Only if one of them can move at all.
                                let can_move = || {
                                    let mut base = Run::new(start.clone(), None);
                                    self.place_arrivals(&mut base, &[]);
                                    !self.one_unit_ends(&base, &x.id, |_| true, 1).is_empty()
                                        || !self.one_unit_ends(&base, &y.id, |_| true, 1).is_empty()
                                };
                                if always && stacked_before && can_move() {
                                    found.push((
                                        sx.clone(),
                                        problem("moves", format!("{text}: they must unstack this Movement Phase")),
                                    ));
                                }
                            }
                        }
                    }
                }
            }
        }
        run.problems.extend(found);
    }
}

// ---------------------------------------------------------------------------
// Entry points

/// 9.61 without a Reinforcement Phase: the state with the arrivals set as
/// the phase begins (a variable entry's roll waits for the resolution).
fn as_phase_begins<'a>(rules: &Rules, state: &'a State, player: &str) -> std::borrow::Cow<'a, State> {
    match arrivals_at_start(rules, state, player, &mut NoDice) {
        Ok(Some(r)) => std::borrow::Cow::Owned(r.state),
        _ => std::borrow::Cow::Borrowed(state),
    }
}

/// Check one side's movement orders for the phasing `player` against
/// `state`: every problem, each with its field (`moves[2].path[3]`) and
/// what would be legal. Empty when the orders can be carried out.
pub fn validate(
    rules: &Rules,
    state: &State,
    player: &str,
    side: &str,
    body: &crate::base::yaml::Value,
) -> Vec<Problem> {
    let phase = match Phase::new(rules, state, player) {
        Ok(p) => p,
        Err(e) => return vec![problem("", e)],
    };
    let state = &*as_phase_begins(rules, state, player);
    match phase.run(state, &[(side, body)], false, None) {
        Ok(run) => run.problems.into_iter().map(|(_, p)| p).collect(),
        Err(e) => vec![problem("", e.to_string())],
    }
}

/// Check every side's movement orders together, as [`resolve`] does before
/// moving anything: what one side's orders do to another's (French and
/// American units ending the phase stacked, Savannah 4.1) included. Every
/// problem with its side; empty when the orders can be carried out.
pub fn validate_sides(
    rules: &Rules,
    state: &State,
    player: &str,
    orders: &BTreeMap<String, crate::base::yaml::Value>,
) -> Vec<(String, Problem)> {
    let phase = match Phase::new(rules, state, player) {
        Ok(p) => p,
        Err(e) => return vec![(String::new(), problem("", e))],
    };
    let state = &*as_phase_begins(rules, state, player);
    let list: Vec<(&str, &crate::base::yaml::Value)> = orders.iter().map(|(s, b)| (s.as_str(), b)).collect();
    match phase.run(state, &list, true, None) {
        Ok(run) => run.problems,
        Err(e) => vec![(String::new(), problem("", e.to_string()))],
    }
}

/// What one unit of a side may do in this Movement Phase, as the checks of
/// the orders find it (for `adjutant template`'s guide).
#[derive(Debug, Clone)]
pub struct UnitMoves {
    pub unit: String,
    /// Where it begins the phase (a reinforcement: where it is placed, 9.61).
    pub hex: HexId,
    /// Its allowance this phase in MP, when it may move (the turn of
    /// arrival's bonus included, Savannah 4.7).
    pub allowance: Option<i32>,
    /// Every hex a move of this unit alone may end in: each is a move
    /// `validate` accepts (`leave_pin: true` for a pinned unit).
    pub reach: Vec<HexId>,
    /// The hexes only strategic movement reaches (9.52), each checked so.
    pub strategic_reach: Vec<HexId>,
    /// Why the unit may not move, when it may not.
    pub refused: Option<String>,
    /// Why it may not use strategic movement, when it may move but not so.
    pub strategic_refused: Option<String>,
    /// A reinforcement placed as the phase begins (9.61): its arrival.
    pub arrived: Option<crate::systems::gboar::board::state::Arrival>,
    /// Moved by the orders given first: the move's field (`moves[0]`).
    pub ordered: Option<String>,
}

/// Every unit of `side`'s army on the map as the phasing `player`'s
/// Movement Phase begins (reinforcements placed at the first hex their
/// arrival offers, 9.61), by id, and what each may do after the moves of
/// `first` (orders the side sends in any case, such as the least orders
/// of [`crate::systems::gboar::guide::template`]): every hex it may end in is a one-unit move
/// that the phase's own checks accept after them.
pub fn unit_moves(
    rules: &Rules,
    state: &State,
    player: &str,
    side: &str,
    first: &crate::base::yaml::Value,
) -> std::result::Result<Vec<UnitMoves>, String> {
    let phase = Phase::new(rules, state, player)?;
    let state = &*as_phase_begins(rules, state, player);
    let mut base = Run::new(state.clone(), None);
    phase.place_arrivals(&mut base, &[]);
    let at_start = base.state.clone();
    phase.run_side(&mut base, side, first);
    let field = "moves[0]";
    let mut out = Vec::new();
    for (id, unit) in &at_start.units {
        let Some(c) = phase.counters.get(id.as_str()) else { continue };
        if phase.side_of_army.get(&c.army).map(String::as_str) != Some(side) {
            continue;
        }
        let Some(hex) = hex_of(&at_start, id) else { continue };
        let probe = MoveOrder {
            unit: Some(id.clone()),
            stack: None,
            path: None,
            to: None,
            strategic: false,
            leave_pin: unit.pinned && !c.is_leader(),
        };
        let mut moves = UnitMoves {
            unit: id.clone(),
            hex,
            allowance: None,
            reach: Vec::new(),
            strategic_reach: Vec::new(),
            refused: None,
            strategic_refused: None,
            arrived: base.arrived.contains_key(id).then(|| unit.arriving.clone()).flatten(),
            ordered: base.moved.get(id).map(|(_, f)| f.clone()),
        };
        if moves.ordered.is_some() {
            out.push(moves);
            continue;
        }
        let mut problems = Vec::new();
        let Some(prepared) = phase.prepare(&base, side, field, &probe, &mut problems) else {
            moves.refused = problems.into_iter().next().map(|p| p.message);
            out.push(moves);
            continue;
        };
        moves.allowance = prepared.allowances.get(id).copied();
        moves.reach = phase.legal_ends(&base, side, &probe, &prepared);
        let by_road = MoveOrder { strategic: true, ..probe };
        let mut problems = Vec::new();
        match phase.prepare(&base, side, field, &by_road, &mut problems) {
            Some(p) => {
                moves.strategic_reach = phase
                    .legal_ends(&base, side, &by_road, &p)
                    .into_iter()
                    .filter(|h| !moves.reach.contains(h))
                    .collect()
            }
            None => moves.strategic_refused = problems.into_iter().next().map(|p| p.message),
        }
        out.push(moves);
    }
    Ok(out)
}

/// Savannah 4.1: the units of `side` that begin the phasing `player`'s
/// Movement Phase in a stack that must retreat instead of attacking, and
/// can ([`ForcedRetreat`]), for `adjutant template`'s least orders.
pub fn forced_retreats(rules: &Rules, state: &State, player: &str, side: &str) -> Vec<ForcedRetreat> {
    let Ok(phase) = Phase::new(rules, state, player) else { return Vec::new() };
    let state = &*as_phase_begins(rules, state, player);
    phase.forced_retreats(state, &[side])
}

/// Savannah 1.6 case A: whether the phasing `player` may write
/// `declare_assault: true` now: none when the scenario has no declaration,
/// else the declaration's own check (who, which turns, not yet declared).
pub fn assault_declaration(rules: &Rules, state: &State, player: &str) -> Option<std::result::Result<(), String>> {
    rules.scenario_movement.track_switch.as_ref().and_then(|t| t.declaration.as_ref())?;
    let phase = Phase::new(rules, state, player).ok()?;
    let mut run = Run::new(state.clone(), None);
    phase.declare_assault(&mut run, "");
    Some(match run.problems.into_iter().next() {
        Some((_, p)) => Err(p.message),
        None => Ok(()),
    })
}

/// A one-unit move drawn by [`draw_moves`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DrawnMove {
    pub unit: String,
    pub to: HexId,
    /// The path the search found to it (every hex entered, `to` last).
    pub path: Vec<HexId>,
    /// Only strategic movement reaches it (9.52).
    pub strategic: bool,
    /// The unit is pinned (9.3).
    pub leave_pin: bool,
}

/// For each of `units` (of `side`, after the moves of `first`), a hex of
/// its reach as [`unit_moves`] finds it (`reach` and `strategic_reach`),
/// drawn by `draw(n)`, which picks one of `n` hexes: the draw is among the
/// hexes the searches reach, and a hex whose move the checks refuse is
/// drawn again without it, so that each hex of the reach is as likely as
/// any other; a unit with no hex in reach, or that may not move, gets none.
/// What `adjutant selfplay` plays, at the cost of checking the hexes drawn
/// rather than every hex of every unit.
pub fn draw_moves(
    rules: &Rules,
    state: &State,
    player: &str,
    side: &str,
    first: &crate::base::yaml::Value,
    units: &[String],
    draw: &mut dyn FnMut(usize) -> usize,
) -> (Vec<DrawnMove>, Vec<(String, crate::systems::gboar::board::state::Arrival, HexId)>) {
    let Ok(phase) = Phase::new(rules, state, player) else { return (Vec::new(), Vec::new()) };
    let state = &*as_phase_begins(rules, state, player);
    let mut base = Run::new(state.clone(), None);
    phase.place_arrivals(&mut base, &[]);
    let at_start = base.state.clone();
    phase.run_side(&mut base, side, first);
    // The side's reinforcements placed as the phase begins (9.61).
    let arrived: Vec<(String, crate::systems::gboar::board::state::Arrival, HexId)> = base
        .arrived
        .keys()
        .filter(|id| {
            phase.counters.get(id.as_str()).and_then(|c| phase.side_of_army.get(&c.army)).map(String::as_str)
                == Some(side)
        })
        .filter_map(|id| {
            let unit = at_start.units.get(id)?;
            Some((id.clone(), unit.arriving.clone()?, hex_of(&at_start, id)?))
        })
        .collect();
    let mut out = Vec::new();
    for id in units {
        let (Some(unit), Some(c)) = (at_start.units.get(id), phase.counters.get(id.as_str())) else { continue };
        if phase.side_of_army.get(&c.army).map(String::as_str) != Some(side)
            || hex_of(&at_start, id).is_none()
            || base.moved.contains_key(id)
        {
            continue;
        }
        let probe = MoveOrder {
            unit: Some(id.clone()),
            stack: None,
            path: None,
            to: None,
            strategic: false,
            leave_pin: unit.pinned && !c.is_leader(),
        };
        let by_road = MoveOrder { strategic: true, ..probe.clone() };
        // Each search's hexes, with its order and what it found.
        let mut searches = Vec::new();
        for order in [probe, by_road] {
            let mut problems = Vec::new();
            if let Some(p) = phase.prepare(&base, side, "moves[0]", &order, &mut problems) {
                let best = phase.search(&base.state, &p.group, &p.occ, None);
                searches.push((order, p, best));
            }
        }
        let mut hexes: Vec<HexId> = searches.iter().flat_map(|(_, _, best)| best.keys().copied()).collect();
        hexes.sort();
        hexes.dedup();
        while !hexes.is_empty() {
            let to = hexes.remove(draw(hexes.len()).min(hexes.len() - 1));
            let found = searches
                .iter()
                .find(|(order, p, best)| best.contains_key(&to) && phase.ends_at(&base, side, order, p, best, to));
            if let Some((order, p, best)) = found {
                out.push(DrawnMove {
                    unit: id.clone(),
                    to,
                    path: Phase::path_to(best, p.start, to),
                    strategic: order.strategic,
                    leave_pin: order.leave_pin,
                });
                break;
            }
        }
    }
    (out, arrived)
}

impl Phase<'_> {
    /// The hexes a prepared one-unit move may end in: each hex the search
    /// reaches, walked by the path it found and checked as an order.
    fn legal_ends(&self, base: &Run<'_>, side: &str, order: &MoveOrder, prepared: &Prepared) -> Vec<HexId> {
        let best = self.search(&base.state, &prepared.group, &prepared.occ, None);
        best.keys().copied().filter(|to| self.ends_at(base, side, order, prepared, &best, *to)).collect()
    }

    /// Whether the prepared one-unit move may end in `to`, a hex the
    /// search reached: walked by the path it found, checked as an order.
    fn ends_at(
        &self,
        base: &Run<'_>,
        side: &str,
        order: &MoveOrder,
        prepared: &Prepared,
        best: &BTreeMap<HexId, Node>,
        to: HexId,
    ) -> bool {
        let path = Phase::path_to(best, prepared.start, to);
        let order =
            MoveOrder { path: Some(path.iter().map(|h| HexText::Text(h.to_string())).collect()), ..order.clone() };
        let mut trial = Run::new(base.state.clone(), None);
        trial.arrived = base.arrived.clone();
        let mut problems = Vec::new();
        self.one_move(&mut trial, side, "moves[0]", &order, &mut problems);
        self.pinned_movers_end_away(&mut trial);
        problems.is_empty() && trial.problems.is_empty()
    }
}

/// Series 9: the phasing player's Movement Phase. The sides' orders are
/// carried out in the order of their side ids; refused whole, changing
/// nothing, if any order is illegal. The orders are checked first as if no
/// one got lost on the Covered Way; then they are carried out with the
/// dice, and a move that a lost roll (Savannah 4.9) has made impossible is
/// not made, with an event that says why.
pub fn resolve(
    rules: &Rules,
    state: &State,
    player: &str,
    orders: &BTreeMap<String, crate::base::yaml::Value>,
    dice: &mut dyn Dice,
) -> Result<Resolution> {
    let phase = Phase::new(rules, state, player).map_err(Error::refused)?;
    let list: Vec<(&str, &crate::base::yaml::Value)> = orders.iter().map(|(s, b)| (s.as_str(), b)).collect();
    let mut events = Vec::new();
    let arrived;
    let state = match arrivals_at_start(rules, state, player, dice)? {
        Some(r) => {
            events = r.events;
            arrived = r.state;
            &arrived
        }
        None => state,
    };
    let checked = phase.run(state, &list, true, None)?;
    if !checked.problems.is_empty() {
        let lines: Vec<String> = checked.problems.iter().map(|(side, p)| format!("  {side}: {p}")).collect();
        return Err(Error::refused(format!(
            "movement orders refused ({} problem{}), nothing moved:\n{}",
            lines.len(),
            if lines.len() == 1 { "" } else { "s" },
            lines.join("\n")
        )));
    }
    let mut run = phase.run(state, &list, true, Some(dice))?;
    for (side, p) in std::mem::take(&mut run.problems) {
        run.events.push(
            Event::new(
                "Savannah 4.9",
                "move-not-made",
                format!(
                    "{side} {}: not carried out, since a stack got lost on the Covered Way: {}",
                    p.field, p.message
                ),
            )
            .with("side", &side)
            .with("field", &p.field),
        );
    }
    phase.remove_pins(rules, state, &mut run)?;
    events.append(&mut run.events);
    Ok(Resolution { state: run.state, events })
}

/// Series 9.61: where the scenario has reinforcements but no Reinforcement
/// Phase this turn, the arrivals are decided as the Movement Phase begins.
fn arrivals_at_start(rules: &Rules, state: &State, player: &str, dice: &mut dyn Dice) -> Result<Option<Resolution>> {
    if rules.reinforcements.is_none() || rules.sequence.phases_used(state.turn)?.iter().any(|p| p == "reinforcement") {
        return Ok(None);
    }
    crate::systems::gboar::effects::arrivals::resolve(rules, state, player, dice).map(Some)
}

/// Dice for checking orders: no roll is made before the resolution.
struct NoDice;

impl Dice for NoDice {
    fn roll(&mut self, _die: crate::base::dice::Die, purpose: &str) -> Result<u16> {
        Err(Error::refused(format!("{purpose}: rolled when the phase is resolved")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::gboar::data::Source;

    fn load(source: Source, scenario: &str) -> (Rules, State) {
        let rules = Rules::load(&source, scenario).unwrap();
        let state = State::setup(&rules.module, scenario).unwrap();
        (rules, state)
    }

    fn yaml(text: &str) -> crate::base::yaml::Value {
        crate::base::yaml::from_str(text).unwrap()
    }

    #[test]
    fn validate_reports_every_problem_with_its_field() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/modules/moves");
        let (rules, state) = load(Source::Dir(dir), "battle");
        let body = yaml(
            r#"moves:
                 - {unit: red-fot, path: ["0113"]}
                 - {unit: red-foot, path: ["0113", "0112", "0111", "0110", "0109"]}
                 - {unit: red-guards, path: ["0215", "0216"]}
                 - {unit: blue-foot, to: "1613"}"#,
        );
        let problems = validate(&rules, &state, "red", "red", &body);
        let fields: Vec<&str> = problems.iter().map(|p| p.field.as_str()).collect();
        assert_eq!(fields, ["moves[0].unit", "moves[1].path[4]", "moves[2].path[0]", "moves[3].unit"], "{problems:?}");
        assert!(problems[0].message.contains("did you mean red-foot?"));
        assert!(problems[1].message.contains("red-foot can reach"));
        assert!(problems[2].message.contains("not on the map"));
        assert!(validate(&rules, &state, "red", "red", &yaml("moves: []")).is_empty());
        assert!(validate(&rules, &state, "red", "red", &crate::base::yaml::Value::Null).is_empty());
    }

    /// On the Savannah map: the same orders give the same events, and a
    /// refusal names the hexes the unit can reach.
    #[test]
    fn savannah_moves_are_deterministic() {
        let (rules, state) = load(Source::Embedded("savannah-1779".into()), "historical");
        let probe = validate(&rules, &state, "allies", "french", &yaml(r#"moves: [{unit: dillon-irish, to: "1001"}]"#));
        let message = &probe.first().unwrap().message;
        let reach = message.split(" can reach ").nth(1).unwrap().split(" (allowance").next().unwrap();
        let target = reach.split(", ").last().unwrap();
        let body = yaml(&format!("moves: [{{unit: dillon-irish, to: \"{target}\"}}]"));
        assert!(validate(&rules, &state, "allies", "french", &body).is_empty());
        let orders = BTreeMap::from([("french".to_string(), body)]);
        let mut dice = crate::systems::gboar::case::ScriptedDice::new(Vec::new());
        let a = resolve(&rules, &state, "allies", &orders, &mut dice).unwrap();
        let b = resolve(&rules, &state, "allies", &orders, &mut dice).unwrap();
        assert_eq!(a.events, b.events);
        assert_eq!(a.state.units["dillon-irish"].hex.as_deref(), Some(target));
    }

    /// docs/orders.md's movement example uses every field, each spelled as
    /// the engine reads it.
    #[test]
    fn the_documented_orders_parse() {
        let doc = include_str!("../../../../docs/orders.md");
        let section = doc.split("## Movement").nth(1).unwrap();
        let block = section.split("```yaml").nth(1).unwrap().split("```").next().unwrap();
        let orders: MovementOrders = crate::base::yaml::from_str(block).unwrap();
        assert_eq!(orders.moves.len(), 4);
        let moves: Vec<MoveOrder> =
            orders.moves.iter().map(|m| crate::base::yaml::from_value(m.clone()).unwrap()).collect();
        assert!(moves.iter().any(|m| m.strategic) && moves.iter().any(|m| m.leave_pin));
        assert!(moves.iter().any(|m| m.stack.is_some() && m.to.is_some()));
        assert_eq!(orders.delay, ["marine-bn"]);
        assert_eq!(orders.enter.len(), 1);
        assert_eq!(orders.overstack_losses, ["foix"]);
        assert!(orders.declare_assault);
    }

    #[test]
    fn edit_distance_counts_edits() {
        assert_eq!(edit_distance("red-foot", "red-foot"), 0);
        assert_eq!(edit_distance("red-fot", "red-foot"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("blue", "bleu"), 2);
    }
}
