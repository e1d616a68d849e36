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
//!   "Could" counts the hexes where it may end the phase: not one where
//!   the orders leave a unit that a restriction forbids it to end a
//!   Movement Phase stacked with (Savannah 4.1: French and American), as
//!   friendly units the orders leave count against the stacking limit
//!   (7.1). A move there is legal, as 4.1 lets French and American units
//!   pass through one another, if the other unit then moves out. A unit
//!   that moves is held to the same count when the phase ends: next to no
//!   more enemy units than the best hex the orders leave open (as it is
//!   walked, a move is taken if it is the best with or without the hexes
//!   then held, since a later move may empty one).
//! - Savannah 4.1, units stacked by a retreat must unstack in the next
//!   friendly Movement Phase when one of them can move to a hex where the
//!   orders leave no unit it may not end the phase stacked with.
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
//!   limit are put off a turn (the scenario's `overstacked_arrival`): the
//!   orders' `put_off` first, then the last placed in id order, those
//!   already put off once last; only units that count for what is over
//!   (never a leader, 7.1).
//! - The scenario's `fixed_artillery` (Savannah Historical Scenario): those
//!   artillery types do not move until attacked in Close Combat; one that
//!   Defensive Artillery Fire sends back (`must_return`) must end its move
//!   as near its printed at-start hex as a hex it may end the phase in,
//!   and may not stay put while it could get nearer (checked at the
//!   phase's end; a pinned one may keep its pin).
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
//!
//! # Where the parts are
//!
//! This file holds the orders, the phase's state and the entry points
//! (validate, resolve, and what the guide asks); `path.rs` the costs and
//! paths (9.1, 9.2, 9.52), `run.rs` the carrying out of the orders,
//! `zones.rs` the scenario's zones (Savannah 1.6, 1.7, 4.8, 4.10),
//! `covered_way.rs` Savannah 4.9, `end_of_phase.rs` what is checked once
//! every move is made (9.3, 7.1, 13.3, Savannah 4.1, 4.7).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::Deserialize;

use crate::base::error::{Error, Result};
use crate::base::hex::{around, neighbours, HexId};
use crate::system::{Dice, Event};
use crate::systems::gboar::board::refusals::{self, Code, Refusal};
use crate::systems::gboar::board::state::Resolution;
use crate::systems::gboar::board::state::{Condition, OffMap, State, UnitState};
use crate::systems::gboar::board::terrain::Terrain;
use crate::systems::gboar::board::units::{hex_of, unit_hex};
use crate::systems::gboar::board::zoc::{self, Zoc};
use crate::systems::gboar::board::Rules;
use crate::systems::gboar::data::charts::MovementCost;
use crate::systems::gboar::data::counters::Counter;
use crate::systems::gboar::data::scenario::{FixedArtillery, ScenarioMovement, SortieRestriction};
use crate::systems::gboar::data::stacking::{Restriction, Stacking};

mod covered_way;
mod end_of_phase;
mod path;
mod run;
mod zones;

// ---------------------------------------------------------------------------
// Orders

/// The body of one side's movement orders.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "movement orders (a map)")]
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
    /// Savannah 4.7: the arrivals put off a turn first, in this order, if
    /// their entry hex is still over the stacking limit when the phase ends.
    #[serde(default)]
    pub put_off: Vec<String>,
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
#[serde(expecting = "a move (a map)")]
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

impl MoveOrder {
    /// A move of unit `id` with no path or destination yet: the probe the
    /// guide, self-play and the phase's own checks search its reach with.
    fn probe(id: &str, leave_pin: bool) -> MoveOrder {
        MoveOrder { unit: Some(id.to_string()), stack: None, path: None, to: None, strategic: false, leave_pin }
    }

    /// The two probes a unit's reach is found with (the guide's reach,
    /// self-play's draws, a side's file checked alone): a move of its own,
    /// leaving its pin if it is pinned (a leader is never held by one),
    /// and the same by road (9.52).
    fn probes(id: &str, unit: &UnitState, c: &Counter) -> [MoveOrder; 2] {
        let alone = MoveOrder::probe(id, unit.pinned && !c.is_leader());
        let by_road = MoveOrder { strategic: true, ..alone.clone() };
        [alone, by_road]
    }
}

/// A hex id as written: hex ids are quoted strings ("0405"); a bare number
/// is caught so the problem can say so.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
#[serde(expecting = "is not a hex id: write hex ids as quoted strings of four digits, e.g. \"1203\"")]
pub enum HexText {
    Text(String),
    Number(i64),
}

impl HexText {
    fn parse(&self) -> std::result::Result<HexId, String> {
        match self {
            HexText::Text(s) => s.parse::<HexId>().map_err(|e| e.to_string()),
            HexText::Number(n) => Err(crate::systems::gboar::board::refusals::hex_id_advice(&n.to_string())),
        }
    }
}

/// A problem with a side's movement orders: where (`moves[2].path[3]`) and
/// what, saying what would be legal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Why (docs/refusals.md).
    pub code: Code,
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

fn problem(code: Code, field: impl Into<String>, message: impl Into<String>) -> Problem {
    Problem { code, field: field.into(), message: message.into() }
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
    player_of_army: BTreeMap<String, String>,
    side_of_army: BTreeMap<String, String>,
    player: String,
    sides: Vec<String>,
    zoc: Zoc<'a>,
    /// Hexes holding enemy combat units, and those units.
    enemy_combat: BTreeMap<HexId, Vec<&'a str>>,
    /// The hexes of `enemy_combat` (most hexes a search tries hold none).
    enemy_hexes: crate::base::hex::HexBits,
    stacking: Option<&'a Stacking>,
    /// This turn's weather (Savannah 4.2), from the weather chart.
    weather: Option<&'a crate::systems::gboar::data::charts::WeatherCondition>,
    fixed_artillery: Option<&'a FixedArtillery>,
    covered_way: &'a crate::systems::gboar::data::charts::CoveredWayFile,
    reinforcements: Option<&'a crate::systems::gboar::data::scenario::Data>,
    rules: &'a Rules,
    scenario: &'a ScenarioMovement,
    /// The hexes of the map's zones and places, by id.
    /// Made at the first question about a zone: most runs ask none.
    regions: std::cell::OnceCell<BTreeMap<&'a str, BTreeSet<HexId>>>,
    turn: u32,
    /// Each side's units on the map, as "did you mean" first lists them:
    /// found once per phase, so that a file naming many unknown units
    /// costs one look at the units, not one per unknown id.
    on_map: std::cell::RefCell<BTreeMap<String, Vec<String>>>,
    /// The state's units that have a counter, in `state.units`' order as
    /// the phase begins, each with its counter and whether it is the
    /// phasing player's: [`Phase::units`] walks a state beside it rather
    /// than hashing every id again for every move tried.
    roster: Vec<(&'a str, &'a Counter, bool)>,
    /// This phase's tag in the table of what entering a hex costs
    /// ([`Phase::entry_cost`]): no other phase's.
    costs_tag: u64,
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
    /// A restriction its units may not even pass through binds one of
    /// them (Savannah 4.1, [`Phase::bound_not_to_pass`]): only then does
    /// the search ask who is in each hex it enters.
    no_pass: bool,
    /// The units that the phase's orders move (every side's): a hex they
    /// leave is open to a disrupted unit's move (13.3), as at the end of
    /// the phase, even while they still stand in it.
    leaving: std::sync::Arc<BTreeSet<String>>,
    /// A side's orders checked alone: the units of the player's other
    /// sides, which their orders (not known here) may move.
    may_leave: std::sync::Arc<BTreeSet<String>>,
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
#[derive(Clone)]
struct Occupancy<'a> {
    /// The friendly units' ids, borrowed from their counters (the rules),
    /// so that a move tried costs no copy of them: hex by hex, in the
    /// order of `friendly_hexes`, each hex's in the state's order.
    friendly_ids: Vec<&'a str>,
    /// Each hex holding friendly units, in hex order: the hex, where its
    /// units are in `friendly_ids`, and (7.1) what they weigh together for
    /// stacking (SPs, artillery units), found once per move, not per hex
    /// the search tries. One list, not a map of lists: a move tried
    /// builds it with one allocation.
    friendly_hexes: Vec<(HexId, u32, u32, (i32, i32))>,
    /// What each unit of `friendly_ids` weighs for stacking (7.1), beside
    /// it: [`Occupancy::without`] sums a hex again without a lookup.
    friendly_weights: Vec<(i32, i32)>,
    /// Shared by the boards made from one ([`Occupancy::without`],
    /// [`Occupancy::moved`]), which change only the friendly units.
    enemy_leaders: std::rc::Rc<BTreeMap<HexId, Vec<&'a str>>>,
    /// The hexes of `friendly_hexes` and of `enemy_leaders`: most hexes a
    /// search tries hold neither, and are passed over without a search.
    friendly_bits: crate::base::hex::HexBits,
    leader_bits: std::rc::Rc<crate::base::hex::HexBits>,
}

impl<'a> Occupancy<'a> {
    /// The friendly units in `hex` and what they weigh for stacking (7.1).
    fn friendly(&self, hex: HexId) -> (&[&'a str], (i32, i32)) {
        if !self.friendly_bits.contains(hex) {
            return (&[], (0, 0));
        }
        match self.friendly_hexes.binary_search_by_key(&hex, |e| e.0) {
            Ok(k) => {
                let (_, from, to, weight) = self.friendly_hexes[k];
                (self.friendly_ids.get(from as usize..to as usize).unwrap_or(&[]), weight)
            }
            Err(_) => (&[], (0, 0)),
        }
    }

    /// The same board with the units `moving` taken off it: what
    /// [`Phase::occupancy`] finds for `moving` on the state this was built
    /// on with none moving (the same units, order and sums), without
    /// walking the state again. Self-play's draws try every unit of a
    /// side on one board.
    fn without(&self, moving: &[String]) -> Occupancy<'a> {
        let staying = self
            .friendly_hexes
            .iter()
            .flat_map(|&(h, from, to, _)| (from as usize..to as usize).map(move |k| (h, k)))
            .map(|(h, k)| (h, self.friendly_ids[k], self.friendly_weights[k]))
            .filter(|(_, id, _)| !moving.iter().any(|m| m == id));
        Occupancy::of_friendly(staying, self.friendly_ids.len(), self.enemy_leaders.clone(), self.leader_bits.clone())
    }

    /// [`Occupancy::without`] for units that all stand in `start` (a
    /// move's units): only that hex's entry changes, the rest is copied
    /// as it is. (Any other `moving`: `without`.)
    fn without_from(&self, moving: &[String], start: HexId) -> Occupancy<'a> {
        self.take_from(moving, start).map(|(out, _)| out).unwrap_or_else(|| self.without(moving))
    }

    /// The board without the units `moving`, and those units (each with
    /// its weight, in the hex's order), when they all stand in `start`;
    /// none when they do not.
    #[allow(clippy::type_complexity)]
    fn take_from(&self, moving: &[String], start: HexId) -> Option<(Occupancy<'a>, Vec<(&'a str, (i32, i32))>)> {
        let k = self.friendly_hexes.binary_search_by_key(&start, |e| e.0).ok()?;
        let (_, from, to, _) = self.friendly_hexes[k];
        let gone: Vec<usize> =
            (from as usize..to as usize).filter(|&i| moving.iter().any(|m| m == self.friendly_ids[i])).collect();
        if gone.len() != moving.len() {
            return None;
        }
        let taken = gone.iter().map(|&i| (self.friendly_ids[i], self.friendly_weights[i])).collect();
        let mut out = self.clone();
        for &i in gone.iter().rev() {
            out.friendly_ids.remove(i);
            out.friendly_weights.remove(i);
        }
        let n = gone.len() as u32;
        out.shift_after(k, n, false);
        let entry = &mut out.friendly_hexes[k];
        entry.2 -= n;
        if entry.1 == entry.2 {
            out.friendly_hexes.remove(k);
            out.friendly_bits.remove(start);
        } else {
            out.sum(k);
        }
        Some((out, taken))
    }

    /// The board after a move made on it: the units `moving`, which stood
    /// in `start`, in `dest`, each weighing what it weighed there (7.1),
    /// the others where they stand: what [`Phase::occupancy`] finds with
    /// none moving on the state after the move (the same units, order and
    /// sums) when the move changed nothing else of the board (no enemy
    /// leader captured on the way). None when the movers were not all in
    /// `start` on this board (it is built again). A phase's moves are each
    /// made on the board the last one left.
    fn moved(&self, moving: &[String], start: HexId, dest: HexId) -> Option<Occupancy<'a>> {
        let (mut out, movers) = self.take_from(moving, start)?;
        // `dest`'s entry, made empty where it has none.
        let k = match out.friendly_hexes.binary_search_by_key(&dest, |e| e.0) {
            Ok(k) => k,
            Err(k) => {
                let at = out.friendly_hexes.get(k).map_or(out.friendly_ids.len() as u32, |e| e.1);
                out.friendly_hexes.insert(k, (dest, at, at, (0, 0)));
                out.friendly_bits.insert(dest);
                k
            }
        };
        // Each hex's units in id order: the state's (board::unit_map).
        for (id, weight) in movers {
            let (_, from, to, _) = out.friendly_hexes[k];
            let at = from as usize + out.friendly_ids[from as usize..to as usize].partition_point(|u| *u < id);
            out.friendly_ids.insert(at, id);
            out.friendly_weights.insert(at, weight);
            out.friendly_hexes[k].2 += 1;
            out.shift_after(k, 1, true);
        }
        out.sum(k);
        Some(out)
    }

    /// The entries after `k` moved `n` places down the lists (or up).
    fn shift_after(&mut self, k: usize, n: u32, up: bool) {
        for e in self.friendly_hexes.iter_mut().skip(k + 1) {
            if up {
                e.1 += n;
                e.2 += n;
            } else {
                e.1 -= n;
                e.2 -= n;
            }
        }
    }

    /// Entry `k`'s weight summed again from its units', in their order (as
    /// [`Occupancy::of_friendly`] sums it).
    fn sum(&mut self, k: usize) {
        let (_, from, to, _) = self.friendly_hexes[k];
        let weight = self.friendly_weights[from as usize..to as usize]
            .iter()
            .fold((0i32, 0i32), |(s, g), &(ds, dg)| (s.saturating_add(ds), g.saturating_add(dg)));
        self.friendly_hexes[k].3 = weight;
    }

    /// Whether `other` holds the same units, order, sums and hexes (the
    /// check that a board changed as units moved is the board built
    /// afresh, in debug builds: every test that runs a Movement Phase).
    fn same_as(&self, other: &Occupancy<'_>) -> bool {
        self.friendly_ids == other.friendly_ids
            && self.friendly_hexes == other.friendly_hexes
            && self.friendly_weights == other.friendly_weights
            && self.enemy_leaders == other.enemy_leaders
            && self.friendly_bits == other.friendly_bits
            && self.leader_bits == other.leader_bits
    }

    /// An occupancy of the friendly units `units` (each with its hex and
    /// 7.1's weight), given sorted by hex, each hex's in the state's
    /// order; with the enemy leaders and their hexes as given.
    fn of_friendly(
        units: impl Iterator<Item = (HexId, &'a str, (i32, i32))>,
        count: usize,
        enemy_leaders: std::rc::Rc<BTreeMap<HexId, Vec<&'a str>>>,
        leader_bits: std::rc::Rc<crate::base::hex::HexBits>,
    ) -> Occupancy<'a> {
        let mut friendly_ids = Vec::with_capacity(count);
        let mut friendly_weights = Vec::with_capacity(count);
        let mut friendly_hexes: Vec<(HexId, u32, u32, (i32, i32))> = Vec::new();
        for (h, id, (s, g)) in units {
            let k = friendly_ids.len() as u32;
            match friendly_hexes.last_mut() {
                Some(e) if e.0 == h => {
                    e.2 = k + 1;
                    e.3 = (e.3 .0.saturating_add(s), e.3 .1.saturating_add(g));
                }
                _ => friendly_hexes.push((h, k, k + 1, (0i32.saturating_add(s), 0i32.saturating_add(g)))),
            }
            friendly_ids.push(id);
            friendly_weights.push((s, g));
        }
        let mut friendly_bits = crate::base::hex::HexBits::new();
        for e in &friendly_hexes {
            friendly_bits.insert(e.0);
        }
        Occupancy { friendly_ids, friendly_hexes, friendly_weights, enemy_leaders, friendly_bits, leader_bits }
    }

    /// The enemy leaders in `hex`, if any.
    fn enemy_leaders_in(&self, hex: HexId) -> Option<&Vec<&'a str>> {
        if self.leader_bits.contains(hex) {
            self.enemy_leaders.get(&hex)
        } else {
            None
        }
    }
}

/// What [`Phase::move_prepared`] did to the board.
#[must_use]
enum Made {
    /// Nothing: the move was refused before its units moved.
    No,
    /// The move's units went to this hex, and nothing else of the board
    /// changed.
    At(HexId),
    /// The board changed otherwise too (enemy leaders captured on the way,
    /// 14.32).
    Changed,
}

/// A move's units, checked and grouped, before its path ([`Phase::prepare`]).
struct Prepared<'a> {
    ids: Vec<String>,
    start: HexId,
    group: Group,
    /// Each unit's allowance this phase (the turn of arrival's included).
    allowances: BTreeMap<String, i32>,
    /// The Reinforcement Schedule's hexes a unit may move on arrival.
    max_hexes: Option<(u32, String)>,
    occ: Occupancy<'a>,
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
    fn new(rules: &'a Rules, state: &'a State, player: &str) -> std::result::Result<Phase<'a>, String> {
        let terrain = Terrain::of(rules, state);
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
        let player_of_army_is = |army: &String| player_of_army.get(army).map(String::as_str) == Some(player);
        // The units with a counter, in the state's order, each with its
        // counter and whether it is the phasing player's: looked up once
        // here for the ZOC, the roster and the enemy's combat units.
        let listed: Vec<(&'a str, &'a Counter, &'a UnitState, bool)> = state
            .units
            .iter()
            .filter_map(|(id, unit)| rules.counter(id).map(|c| (id.as_str(), c, unit, player_of_army_is(&c.army))))
            .collect();
        let zoc = zoc::enemy_zoc_among(&terrain, listed.iter().filter(|e| !e.3).map(|e| (e.1, e.2)));
        // The state's own ids (not the counters' equal ones): the copies a
        // run makes share them, and `units` finds them by address.
        let roster = listed.iter().map(|&(id, c, _, friendly)| (id, c, friendly)).collect();
        let mut enemy_combat: BTreeMap<HexId, Vec<&'a str>> = BTreeMap::new();
        for &(_, c, unit, friendly) in &listed {
            if c.is_leader() || friendly {
                continue;
            }
            if let Some(h) = unit.hex {
                enemy_combat.entry(h).or_default().push(c.id.as_str());
            }
        }
        let mut enemy_hexes = crate::base::hex::HexBits::new();
        for h in enemy_combat.keys() {
            enemy_hexes.insert(*h);
        }
        Ok(Phase {
            terrain,
            player_of_army,
            side_of_army,
            player: player.to_string(),
            sides: rules.sequence.sides_of(player),
            zoc,
            enemy_combat,
            enemy_hexes,
            stacking: rules.stacking.as_ref(),
            fixed_artillery: rules.scenario_movement.fixed_artillery.as_ref(),
            covered_way: &rules.charts.covered_way,
            reinforcements: rules.reinforcements.as_ref(),
            rules,
            scenario: &rules.scenario_movement,
            regions: std::cell::OnceCell::new(),
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
            roster,
            costs_tag: path::new_costs_tag(),
        })
    }

    /// Each unit of `state` that has a counter, in id order, with its
    /// counter and whether it is the phasing player's (the roster's, found
    /// once, while the state's ids are the phase's; any other id is looked
    /// up).
    fn units<'s>(
        &'s self,
        state: &'s State,
    ) -> impl Iterator<Item = (&'s String, &'s UnitState, &'a Counter, bool)> + 's {
        let mut k = 0;
        state.units.iter().filter_map(move |(id, unit)| {
            if let Some(&(rid, c, friendly)) = self.roster.get(k) {
                // The same text most often (copies of a state share their
                // ids, src/systems/gboar/board/unit_map.rs): no bytes compared.
                if std::ptr::eq(rid, id.as_str()) || rid == id.as_str() {
                    k += 1;
                    return Some((id, unit, c, friendly));
                }
            }
            let c = self.counter(id.as_str())?;
            Some((id, unit, c, self.is_friendly(c)))
        })
    }

    /// Savannah 4.1: whether a restriction that units may not even pass
    /// through could bind one of `ids` (it involves the unit's counter).
    fn bound_not_to_pass(&self, ids: &[String]) -> bool {
        self.stacking.is_some_and(|limits| {
            limits
                .restrictions
                .iter()
                .filter(|r| !r.may_pass_through)
                .any(|r| ids.iter().any(|m| self.counter(m.as_str()).is_some_and(|x| r.involves(x))))
        })
    }

    /// The module's counter `id` (the rules' hashed index).
    fn counter(&self, id: &str) -> Option<&'a Counter> {
        self.rules.counter(id)
    }

    fn name(&self, id: &str) -> String {
        self.counter(id).map(|c| c.name.clone()).unwrap_or_else(|| id.to_string())
    }

    fn names(&self, ids: &[String]) -> String {
        ids.iter().map(|i| self.name(i)).collect::<Vec<_>>().join(", ")
    }

    /// The enemy combat units in `hex`, if any.
    fn enemy_combat_in(&self, hex: HexId) -> Option<&Vec<&'a str>> {
        if self.enemy_hexes.contains(hex) {
            self.enemy_combat.get(&hex)
        } else {
            None
        }
    }

    fn is_friendly(&self, c: &Counter) -> bool {
        self.player_of_army.get(&c.army) == Some(&self.player)
    }

    /// 13.3, 9.52: the enemy combat units next to `hex` (leaders are not
    /// combat units, 3.2).
    fn adjacent_enemies(&self, hex: HexId) -> Vec<String> {
        let mut found: Vec<String> = around(hex, self.terrain.layout)
            .filter_map(|n| self.enemy_combat_in(n))
            .flatten()
            .map(|u| u.to_string())
            .collect();
        found.sort();
        found
    }

    fn occupancy(&self, state: &State, moving: &[String]) -> Occupancy<'a> {
        let mut friendly: Vec<(HexId, &'a str, (i32, i32))> = Vec::new();
        let mut enemy_leaders: BTreeMap<HexId, Vec<&'a str>> = BTreeMap::new();
        let leaders_count = self.stacking.as_ref().is_some_and(|s| s.leaders_count);
        for (id, unit, c, is_friendly) in self.units(state) {
            // The enemy's combat units are not the occupancy's (the
            // phase's `enemy_combat` holds them): no hex read for them.
            if !(is_friendly || c.is_leader()) {
                continue;
            }
            let Some(h) = unit_hex(unit) else { continue };
            if is_friendly {
                if !moving.contains(id) {
                    // 7.1 as `stacking_weight` weighs it.
                    friendly.push((h, c.id.as_str(), c.stacking_weight(unit.steps, leaders_count)));
                }
            } else {
                enemy_leaders.entry(h).or_default().push(c.id.as_str());
            }
        }
        // By hex, each hex's units in the state's order.
        let order = crate::base::hex::order_by_hex(&friendly, |e| e.0);
        let mut leader_bits = crate::base::hex::HexBits::new();
        for h in enemy_leaders.keys() {
            leader_bits.insert(*h);
        }
        Occupancy::of_friendly(
            order.into_iter().map(|i| friendly[i]),
            friendly.len(),
            std::rc::Rc::new(enemy_leaders),
            std::rc::Rc::new(leader_bits),
        )
    }

    /// 7.1: the SPs and the artillery units a unit counts for stacking.
    fn stacking_weight(&self, state: &State, id: &str) -> (i32, i32) {
        let Some(c) = self.counter(id) else { return (0, 0) };
        let leaders_count = self.stacking.as_ref().is_some_and(|s| s.leaders_count);
        c.stacking_weight(state.units.get(id).map(|u| u.steps).unwrap_or(1), leaders_count)
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
    /// A run without dice came to a Covered Way roll (Savannah 4.9), the
    /// only dice of the phase's moves: without one, the run with dice is
    /// the same run ([`resolve`] then makes it once).
    rolls_wanted: bool,
    /// A trial run that only asks whether a move is legal
    /// ([`Phase::ends_at`]), or a run made only for its problems
    /// ([`validate`], [`validate_sides`]): its moves write no events and
    /// price their steps without the words of the events (their texts are
    /// most of a trial's cost); what they change in the state, and every
    /// problem's words, are the same.
    quiet: bool,
    /// Every unit the orders of the run name to move, of every side.
    ordered: std::sync::Arc<BTreeSet<String>>,
    /// Checked alone: the units of the player's sides without orders here.
    may_leave: std::sync::Arc<BTreeSet<String>>,
    /// A side's own moves checked alone ([`validate`]): a move may end in
    /// or pass through a hex over the stacking limit (7.2) or holding a
    /// unit Savannah 4.1 keeps apart while units of `may_leave` stand
    /// there, as those units may leave first. Only the file's own moves,
    /// not the trials of the phase's end.
    others_leave_first: bool,
    /// 9.1 across a player's sides: moves refused while units of the
    /// player's other sides that the orders move still stood in the way,
    /// made again after those sides' moves ([`Phase::waited_moves`]).
    waiting: Vec<Waiting>,
}

/// A move that waits for the moves of the player's other sides
/// ([`Run::waiting`]).
struct Waiting {
    side: String,
    field: String,
    order: MoveOrder,
    problems: Vec<Problem>,
}

impl Run<'_> {
    /// The run without its dice, once it is over.
    fn detach(self) -> Run<'static> {
        Run {
            dice: None,
            along: self.along,
            state: self.state,
            events: self.events,
            problems: self.problems,
            moved: self.moved,
            left_pins: self.left_pins,
            failure: self.failure,
            arrived: self.arrived,
            rolls_wanted: self.rolls_wanted,
            quiet: self.quiet,
            ordered: self.ordered,
            may_leave: self.may_leave,
            others_leave_first: self.others_leave_first,
            waiting: self.waiting,
        }
    }
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
            rolls_wanted: false,
            quiet: false,
            ordered: Default::default(),
            may_leave: Default::default(),
            others_leave_first: false,
            waiting: Vec::new(),
        }
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

/// The checks of one Movement Phase's orders made ready for a state: the
/// phase (its ZOC, roster and enemy hexes, [`Phase::new`]) and the board as
/// it begins ([`as_phase_begins`]), found once for every orders file of
/// the step checked against that state (each side's alone, then all
/// together), not once per file.
pub struct Ready<'a> {
    player: String,
    phase: std::result::Result<Phase<'a>, String>,
    begins: std::borrow::Cow<'a, State>,
}

impl<'a> Ready<'a> {
    pub fn new(rules: &'a Rules, state: &'a State, player: &str) -> Ready<'a> {
        Ready {
            player: player.to_string(),
            phase: Phase::new(rules, state, player),
            begins: as_phase_begins(rules, state, player),
        }
    }

    /// The phasing player.
    pub fn player(&self) -> &str {
        &self.player
    }

    /// [`validate`] of one side's orders.
    pub fn validate(&self, side: &str, body: &crate::base::yaml::Value) -> Vec<Problem> {
        let phase = match &self.phase {
            Ok(p) => p,
            Err(e) => return vec![problem(Code::ModuleData, "", e.clone())],
        };
        match phase.run(&self.begins, &[(side, body)], false, None, true) {
            Ok(run) => run.problems.into_iter().map(|(_, p)| p).collect(),
            Err(e) => vec![problem(Code::ModuleData, "", e.to_string())],
        }
    }

    /// [`validate_sides`] of every side's orders together.
    pub fn validate_sides(&self, orders: &BTreeMap<String, crate::base::yaml::Value>) -> Vec<(String, Problem)> {
        let phase = match &self.phase {
            Ok(p) => p,
            Err(e) => return vec![(String::new(), problem(Code::ModuleData, "", e.clone()))],
        };
        let list: Vec<(&str, &crate::base::yaml::Value)> = orders.iter().map(|(s, b)| (s.as_str(), b)).collect();
        match phase.run(&self.begins, &list, true, None, true) {
            Ok(run) => run.problems,
            Err(e) => vec![(String::new(), problem(Code::ModuleData, "", e.to_string()))],
        }
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
    Ready::new(rules, state, player).validate(side, body)
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
    Ready::new(rules, state, player).validate_sides(orders)
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
    unit_moves_of(rules, state, player, side, first, |_| true)
}

/// [`unit_moves`] of the units `only` keeps: each as [`unit_moves`] finds
/// it (a unit's moves are worked out from the side's orders `first`, not
/// from another unit's), the others left out. The least orders ask about
/// one unit at a time; every unit's reach is a search and a trial move to
/// every hex of it.
pub fn unit_moves_of(
    rules: &Rules,
    state: &State,
    player: &str,
    side: &str,
    first: &crate::base::yaml::Value,
    only: impl Fn(&str) -> bool,
) -> std::result::Result<Vec<UnitMoves>, String> {
    let phase = Phase::new(rules, state, player)?;
    let state = &*as_phase_begins(rules, state, player);
    let mut base = Run::new(state.clone(), None);
    phase.place_arrivals(&mut base, &[]);
    let at_start = base.state.clone();
    phase.run_side(&mut base, side, first, &mut None);
    let field = "moves[0]";
    let mut out = Vec::new();
    for (id, unit) in &at_start.units {
        if !only(id) {
            continue;
        }
        let Some(c) = phase.counter(id.as_str()) else { continue };
        if phase.side_of_army.get(&c.army).map(String::as_str) != Some(side) {
            continue;
        }
        let Some(hex) = hex_of(&at_start, id) else { continue };
        let [probe, by_road] = MoveOrder::probes(id, unit, c);
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

/// Savannah 4.1: the units of each of `sides` that begin the phasing
/// `player`'s Movement Phase in a stack that must retreat instead of
/// attacking, and can ([`ForcedRetreat`]), for `adjutant template`'s least
/// orders: each side's found alone, side by side in the order given (the
/// phase made ready once for them all).
pub fn forced_retreats<'s>(
    rules: &Rules,
    state: &State,
    player: &str,
    sides: &'s [String],
) -> Vec<(&'s String, ForcedRetreat)> {
    let Ok(phase) = Phase::new(rules, state, player) else { return Vec::new() };
    let state = &*as_phase_begins(rules, state, player);
    sides.iter().flat_map(|side| phase.forced_retreats(state, &[side]).into_iter().map(move |f| (side, f))).collect()
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
    ready: &Ready<'_>,
    side: &str,
    first: &crate::base::yaml::Value,
    units: &[String],
    draw: &mut dyn FnMut(usize) -> usize,
) -> (Vec<DrawnMove>, Vec<(String, crate::systems::gboar::board::state::Arrival, HexId)>) {
    let Ok(phase) = &ready.phase else { return (Vec::new(), Vec::new()) };
    let state = &*ready.begins;
    let mut base = Run::new(state.clone(), None);
    phase.place_arrivals(&mut base, &[]);
    let at_start = base.state.clone();
    phase.run_side(&mut base, side, first, &mut None);
    // The side's reinforcements placed as the phase begins (9.61).
    let arrived: Vec<(String, crate::systems::gboar::board::state::Arrival, HexId)> = base
        .arrived
        .keys()
        .filter(|id| {
            phase.counter(id.as_str()).and_then(|c| phase.side_of_army.get(&c.army)).map(String::as_str) == Some(side)
        })
        .filter_map(|id| {
            let unit = at_start.units.get(id)?;
            Some((id.clone(), unit.arriving.clone()?, hex_of(&at_start, id)?))
        })
        .collect();
    // The board every unit's probes are tried on: built once, each unit's
    // own taken off it as it is tried.
    let board = phase.occupancy(&base.state, &[]);
    let mut out = Vec::new();
    for id in units {
        let (Some(unit), Some(c)) = (at_start.units.get(id), phase.counter(id.as_str())) else { continue };
        if phase.side_of_army.get(&c.army).map(String::as_str) != Some(side)
            || hex_of(&at_start, id).is_none()
            || base.moved.contains_key(id)
        {
            continue;
        }
        // Each search's hexes, with its order and what it found.
        let mut searches = Vec::new();
        for order in MoveOrder::probes(id, unit, c) {
            let mut problems = Vec::new();
            if let Some(p) = phase.prepare_on(&base, side, "moves[0]", &order, &mut problems, Some(&board)) {
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
    resolve_played(rules, state, state, player, orders, dice)
}

/// [`resolve`] when Random Events cards were played in the step (Savannah
/// 4.3, played before the phase): `announced` is the board the orders were
/// written on, `state` the board the cards left. The orders are checked on
/// `announced`, as `validate` checked them, and refused whole if any is
/// wrong there; they are carried out on `state`, and a move the cards'
/// results have made impossible (a card's weather that costs more MP, a
/// unit a card moved) is not made, with an event that says why
/// (`move-lapses`), as a Close Combat a card has parted lapses (12.23;
/// docs/rules-readings.md). The same board twice is [`resolve`].
pub fn resolve_played(
    rules: &Rules,
    announced: &State,
    state: &State,
    player: &str,
    orders: &BTreeMap<String, crate::base::yaml::Value>,
    dice: &mut dyn Dice,
) -> Result<Resolution> {
    let carded = !std::ptr::eq(announced, state);
    if carded {
        let problems = validate_sides(rules, announced, player, orders);
        if !problems.is_empty() {
            return Err(refusals::refuse_all(
                "movement",
                "nothing moved",
                problems.iter().map(|(side, p)| (side.as_str(), p.field.as_str(), p.message.as_str(), p.code)),
            ));
        }
    }
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
    let checked = phase.run(state, &list, true, None, false)?;
    if !checked.problems.is_empty() && !carded {
        return Err(refusals::refuse_all(
            "movement",
            "nothing moved",
            checked.problems.iter().map(|(side, p)| (side.as_str(), p.field.as_str(), p.message.as_str(), p.code)),
        ));
    }
    // Savannah 4.3: a move the cards' board refuses is not made. A problem
    // the phase's end finds (a pinned unit that ends next to an enemy a
    // card moved, 9.3) names a move already walked: the phase is run again
    // without the moves its problems name, until none is named (each run
    // drops one move at least). Self-play, Campaign, seed 547, game 452.
    let mut lapsed = Lapsed::new(orders);
    let mut checked = checked;
    while carded && lapsed.drop_named(&checked.problems) {
        let list = lapsed.list();
        checked = phase.run(state, &list, true, None, false)?;
    }
    // What the cards alone make impossible, before any lost roll.
    let checked_fields: Vec<(String, String)> =
        checked.problems.iter().map(|(side, p)| (side.clone(), lapsed.original_field(side, &p.field))).collect();
    let lapsed_moves = std::mem::take(&mut lapsed.dropped);
    // Savannah 4.9's lost rolls are the only dice of the moves: when the
    // checked run came to none, the run with dice is that same run (the
    // same state, moves and events), and it is not made again. When it
    // came to some, a stack that gets lost stops where it is ("They may
    // not move any further that turn"), and another move that this makes
    // impossible is not made: as for the cards above, the phase is worked
    // out again without each move so named, each stack entering each hex
    // with the roll it had (`Replay`; a roll of a move no longer made
    // stays in the step's rolls, unused). What the phase's end finds of a
    // lost stack's own move (a pinned unit lost next to the enemy, 9.3)
    // stands as the roll left it: the move was legal as written.
    let mut run = checked.detach();
    if run.rolls_wanted {
        let mut replay = Replay { dice, made: Vec::new() };
        loop {
            replay.made.iter_mut().for_each(|r| r.3 = false);
            let list = lapsed.list();
            let done = phase.run(state, &list, true, Some(&mut replay), false)?.detach();
            let named: Vec<(String, Problem)> = done
                .problems
                .iter()
                .filter(|(side, p)| {
                    !checked_fields.contains(&(side.clone(), lapsed.original_field(side, &p.field)))
                        && !lapsed.move_lost(&done.state, side, &p.field)
                })
                .cloned()
                .collect();
            if !lapsed.drop_named(&named) {
                run = done;
                break;
            }
        }
    }
    let not_made = std::mem::take(&mut lapsed.dropped);
    let lapses = |run: &mut Run<'_>, side: &str, p: &Problem| {
        run.events.push(
            Event::new(
                "Savannah 4.3",
                "move-lapses",
                format!(
                    "{side} {}: not carried out on the board the step's Random Events cards left (the orders were \
                     written before them): {}",
                    p.field, p.message
                ),
            )
            .with("side", side)
            .with("field", &p.field),
        );
    };
    let not_made_event = |run: &mut Run<'_>, side: &str, p: &Problem| {
        run.events.push(
            Event::new(
                "Savannah 4.9",
                "move-not-made",
                format!(
                    "{side} {}: not carried out, since a stack got lost on the Covered Way: {}",
                    p.field, p.message
                ),
            )
            .with("side", side)
            .with("field", &p.field),
        );
    };
    for (side, p) in lapsed_moves {
        lapses(&mut run, &side, &p);
    }
    for (side, p) in not_made {
        not_made_event(&mut run, &side, &p);
    }
    for (side, mut p) in std::mem::take(&mut run.problems) {
        if lapsed.move_lost(&run.state, &side, &p.field) {
            continue;
        }
        p.field = lapsed.original_field(&side, &p.field);
        if carded && checked_fields.contains(&(side.clone(), p.field.clone())) {
            lapses(&mut run, &side, &p);
        } else {
            not_made_event(&mut run, &side, &p);
        }
    }
    phase.remove_pins(rules, state, &mut run)?;
    events.append(&mut run.events);
    Ok(Resolution { state: run.state, events })
}

/// The orders of a Movement step as they are carried out: each side's body
/// less the moves the cards' board refused (Savannah 4.3) or a stack lost
/// on the Covered Way made impossible (4.9), with the problems that named
/// them (at their fields as written).
struct Lapsed<'o> {
    orders: &'o BTreeMap<String, crate::base::yaml::Value>,
    /// The bodies once a move is dropped (the orders as written before).
    bodies: Option<Vec<(String, crate::base::yaml::Value)>>,
    /// By side, the index as written of each move still in its body, once
    /// one of the side's is dropped.
    kept: BTreeMap<String, Vec<usize>>,
    dropped: Vec<(String, Problem)>,
}

impl<'o> Lapsed<'o> {
    fn new(orders: &'o BTreeMap<String, crate::base::yaml::Value>) -> Lapsed<'o> {
        Lapsed { orders, bodies: None, kept: BTreeMap::new(), dropped: Vec::new() }
    }

    fn list(&self) -> Vec<(&str, &crate::base::yaml::Value)> {
        match &self.bodies {
            Some(bodies) => bodies.iter().map(|(s, b)| (s.as_str(), b)).collect(),
            None => self.orders.iter().map(|(s, b)| (s.as_str(), b)).collect(),
        }
    }

    /// `moves[i]...` of the body as it is now: the index as written.
    fn original_field(&self, side: &str, field: &str) -> String {
        match move_index(field) {
            Some((i, rest)) => match self.kept.get(side).and_then(|k| k.get(i)) {
                Some(at) => format!("moves[{at}]{rest}"),
                None => field.to_string(),
            },
            None => field.to_string(),
        }
    }

    /// Drops the moves `problems` name, keeping those problems; whether
    /// any was dropped. Each run after a drop has fewer moves than the one
    /// before, so the runs end; the problems of the last run, which name
    /// no move, stand as they are.
    fn drop_named(&mut self, problems: &[(String, Problem)]) -> bool {
        let count = |b: &crate::base::yaml::Value| b.get("moves").and_then(|m| m.as_sequence()).map_or(0, Vec::len);
        let mut named: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
        for (side, p) in problems {
            let Some((i, _)) = move_index(&p.field) else { continue };
            let moves = self.list().iter().find(|(s, _)| s == side).map_or(0, |(_, b)| count(b));
            if i < moves {
                named.entry(side.clone()).or_default().insert(i);
                let mut p = p.clone();
                p.field = self.original_field(side, &p.field);
                self.dropped.push((side.clone(), p));
            }
        }
        if named.is_empty() {
            return false;
        }
        let orders = self.orders;
        let bodies = self.bodies.get_or_insert_with(|| orders.iter().map(|(s, b)| (s.clone(), b.clone())).collect());
        let unnamed = |drop: &BTreeSet<usize>, i: &mut usize| {
            *i += 1;
            !drop.contains(&(*i - 1))
        };
        for (side, body) in bodies.iter_mut() {
            let Some(drop) = named.get(side.as_str()) else { continue };
            let Some(moves) = body.get_mut("moves").and_then(|m| m.as_sequence_mut()) else { continue };
            let kept = self.kept.entry(side.clone()).or_insert_with(|| (0..moves.len()).collect());
            let mut i = 0;
            moves.retain(|_| unnamed(drop, &mut i));
            let mut i = 0;
            kept.retain(|_| unnamed(drop, &mut i));
        }
        true
    }
}

impl Lapsed<'_> {
    /// Whether the move a problem's field names (in the body as it is now)
    /// moved a unit that `state` has lost on the Covered Way (Savannah 4.9:
    /// every Lost marker at the phase's end was placed in it).
    fn move_lost(&self, state: &State, side: &str, field: &str) -> bool {
        let Some((i, _)) = move_index(field) else { return false };
        let list = self.list();
        let Some(order) = list.iter().find(|(s, _)| *s == side).and_then(|(_, b)| b.get("moves")?.get(i)) else {
            return false;
        };
        let stack = order.get("stack").and_then(|s| s.as_sequence()).into_iter().flatten();
        order
            .get("unit")
            .into_iter()
            .chain(stack)
            .filter_map(|u| u.as_str())
            .any(|u| state.units.get(u).is_some_and(|u| u.lost))
    }
}

/// The dice of a phase worked out again without some moves (Savannah
/// 4.9): a roll made before for the same purpose (the same stack entering
/// the same hex) is that roll again, another a new roll of the step's dice.
struct Replay<'d> {
    dice: &'d mut dyn Dice,
    /// Each roll made: the die, the purpose, the value, and whether this
    /// run has used it.
    made: Vec<(crate::base::dice::Die, String, u16, bool)>,
}

impl Dice for Replay<'_> {
    fn roll(&mut self, die: crate::base::dice::Die, purpose: &str) -> Result<u16> {
        if let Some(r) = self.made.iter_mut().find(|r| !r.3 && r.0 == die && r.1 == purpose) {
            r.3 = true;
            return Ok(r.2);
        }
        let value = self.dice.roll(die, purpose)?;
        self.made.push((die, purpose.to_string(), value, true));
        Ok(value)
    }
}

/// `moves[i]` and what follows it in a problem's field, if it names a move.
fn move_index(field: &str) -> Option<(usize, &str)> {
    let rest = field.strip_prefix("moves[")?;
    let end = rest.find(']')?;
    let i = rest[..end].parse().ok()?;
    Some((i, &rest[end + 1..]))
}

/// Series 9.61: where the scenario has reinforcements but no Reinforcement
/// Phase this turn, the arrivals are decided as the Movement Phase begins.
fn arrivals_at_start(rules: &Rules, state: &State, player: &str, dice: &mut dyn Dice) -> Result<Option<Resolution>> {
    // No unit waiting to arrive: nothing to decide (and no copy of the
    // state to make for every check of the orders).
    if rules.reinforcements.is_none()
        || rules.sequence.phases_used(state.turn)?.iter().any(|p| p == "reinforcement")
        || !crate::systems::gboar::effects::arrivals::any_waiting(state)
    {
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

    /// Savannah 4.3: the moves the cards' board refuses are dropped run by
    /// run, and every problem is told at the field as written, whatever
    /// the moves dropped before it.
    #[test]
    fn moves_dropped_for_the_cards_board_keep_their_fields_as_written() {
        let mut orders = BTreeMap::new();
        orders.insert(
            "red".to_string(),
            yaml("moves: [{unit: a, to: '0101'}, {unit: b, to: '0102'}, {unit: c, to: '0103'}]"),
        );
        orders.insert("green".to_string(), yaml("moves: [{unit: d, to: '0104'}]"));
        let mut lapsed = Lapsed::new(&orders);
        let named = |side: &str, field: &str| (side.to_string(), problem(Code::OrdersShape, field, "x"));
        assert!(!lapsed.drop_named(&[named("red", "moves"), named("red", "moves[7]")]), "no move named: none dropped");
        assert!(lapsed.drop_named(&[named("red", "moves[0].path[1]")]));
        // The body now holds b and c: its moves[1] is c, moves[2] as written.
        assert_eq!(lapsed.original_field("red", "moves[1].path[0]"), "moves[2].path[0]");
        assert_eq!(lapsed.original_field("green", "moves[0]"), "moves[0]");
        assert!(lapsed.drop_named(&[named("red", "moves[1]")]));
        let units: Vec<String> = lapsed
            .list()
            .iter()
            .flat_map(|(s, b)| {
                b["moves"].as_sequence().unwrap().iter().map(move |m| format!("{s}:{}", m["unit"].as_str().unwrap()))
            })
            .collect();
        assert_eq!(units, ["green:d", "red:b"]);
        let fields: Vec<&str> = lapsed.dropped.iter().map(|(_, p)| p.field.as_str()).collect();
        assert_eq!(fields, ["moves[0].path[1]", "moves[2]"]);
    }

    #[test]
    fn validate_reports_every_problem_with_its_field() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/modules/moves");
        let (rules, state) = load(Source::dir(&dir), "battle");
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

    /// 13.3 with Savannah 4.1, a side's orders checked alone: the file is
    /// not refused for a disrupted unit staying only where units of the
    /// player's other sides that must move themselves, and that it may not
    /// end the phase with, could take every hex away, one unit to a hex;
    /// the phase checked whole holds it to the hexes the orders leave open
    /// (conformance cases `13-3-two-disrupted-units-with-one-hex-away-*`,
    /// self-play, Historical, seed 569, game 568).
    #[test]
    fn a_side_alone_leaves_hexes_away_only_to_other_side_units_that_must_move_one_to_a_hex() {
        use crate::systems::gboar::board::state::Condition;
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/modules/moves");
        let (rules, setup) = load(Source::dir(&dir), "battle");
        let at = |state: &mut State, id: &str, hex: &str| {
            state.units.get_mut(id).unwrap().hex = Some(hex.parse().unwrap());
        };
        let stays = yaml("moves: []");
        let both = BTreeMap::from([("blue".to_string(), stays.clone()), ("green".to_string(), stays.clone())]);
        let refused_alone = |state: &State, hexes: &str| {
            let alone = validate(&rules, state, "blue", "green", &stays);
            alone.iter().any(|p| p.code == Code::DisruptedNextToEnemy && p.message.ends_with(hexes))
        };
        let mut state = setup.clone();
        at(&mut state, "red-foot", "0707");
        at(&mut state, "green-foot", "0606");
        state.units.get_mut("green-foot").unwrap().condition = Condition::Disrupted;
        // Blue Foot in 0506, next to 0507 and 0605, the other hexes away;
        // free to stay: Blue's file can leave them open, and Green's alone
        // is held to its move.
        at(&mut state, "blue-foot", "0506");
        assert!(refused_alone(&state, "it can move to 0507, 0605"));
        let whole = validate_sides(&rules, &state, "blue", &both);
        assert!(
            whole.iter().any(|(side, p)| side == "green"
                && p.code == Code::DisruptedNextToEnemy
                && p.message.ends_with("it can move to 0507, 0605")),
            "{whole:?}"
        );
        // Far away, it could take none of them.
        at(&mut state, "blue-foot", "1212");
        assert!(refused_alone(&state, "it can move to 0506, 0507, 0605"));
        // Back in 0506, disrupted next to Red Guards (0405), Blue Foot must
        // move too, but one unit takes one hex: Green's file alone is still
        // held to its move.
        at(&mut state, "blue-foot", "0506");
        at(&mut state, "red-guards", "0405");
        state.units.get_mut("blue-foot").unwrap().condition = Condition::Disrupted;
        assert!(refused_alone(&state, "it can move to 0507, 0605"));
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
        assert_eq!(a.state.units["dillon-irish"].hex.map(|h| h.to_string()).as_deref(), Some(target));
    }

    /// docs/orders.md's movement example uses every field, each spelled as
    /// the engine reads it.
    #[test]
    fn the_documented_orders_parse() {
        let doc = include_str!("../../../../../docs/orders.md");
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

    /// A move by `to:` stops the search once its hex is settled: for
    /// every hex every Allied unit of the Historical set-up reaches, the
    /// stopped search finds the node and the path the whole search finds;
    /// and the table the searches share is left clean (a search made
    /// again finds the same hexes).
    #[test]
    fn a_search_stopped_at_a_hex_finds_its_node_and_path_as_the_whole_search() {
        let (rules, state) = load(Source::Embedded("savannah-1779".into()), "historical");
        let phase = Phase::new(&rules, &state, "allies").unwrap();
        let base = Run::new(state.clone(), None);
        let (mut units, mut hexes) = (0, 0);
        for (id, _) in state.units.iter().filter(|(_, u)| u.hex.is_some()) {
            let Some(side) = phase.counter(id).and_then(|c| phase.side_of_army.get(&c.army)).cloned() else {
                continue;
            };
            let probe = MoveOrder::probe(id, false);
            let Some(p) = phase.prepare(&base, &side, "moves[0]", &probe, &mut Vec::new()) else { continue };
            let whole = phase.search(&base.state, &p.group, &p.occ, None);
            let again = phase.search(&base.state, &p.group, &p.occ, None);
            assert_eq!(whole.keys().collect::<Vec<_>>(), again.keys().collect::<Vec<_>>(), "{id}");
            units += 1;
            for (to, node) in &whole {
                let stopped = phase.search_until(&base.state, &p.group, &p.occ, None, Some(*to));
                let found = stopped.get(to).unwrap_or_else(|| panic!("{id} to {to}"));
                assert_eq!((found.mp, found.steps, found.prev), (node.mp, node.steps, node.prev), "{id} to {to}");
                assert_eq!(
                    Phase::path_to(&stopped, p.start, *to),
                    Phase::path_to(&whole, p.start, *to),
                    "{id} to {to}"
                );
                hexes += 1;
            }
        }
        assert!(units > 10 && hexes > 100, "{units} units, {hexes} hexes");
    }

    /// The search's price of a step ([`Phase::step_cost`]: what the phase
    /// alone decides found once and kept, [`Phase::entry_cost`]) is the
    /// worded step's ([`Phase::step`]): for every third unit on the map of
    /// the Campaign's set-up, of either player, by road or not, into every
    /// hex next to every hex within three of it, the same MPs, the same
    /// Covered Way, the same leaders captured, the same refusal or none,
    /// the first time and when the answer is kept; in fair weather and in
    /// a weather that costs MPs. Steps along the Covered Way are among
    /// them.
    #[test]
    fn a_step_priced_from_what_the_phase_keeps_is_the_worded_step() {
        let (rules, mut state) = load(Source::Embedded("savannah-1779".into()), "campaign");
        let layout = rules.module.map.layout;
        let costly = rules.charts.weather.conditions.iter().find(|c| c.movement_cost_added != 0).map(|c| c.id.clone());
        let mut compared = (0, 0, 0, 0);
        for weather in [None, costly] {
            state.weather = weather;
            for player in ["allies", "british"] {
                let phase = Phase::new(&rules, &state, player).unwrap();
                let base = Run::new(state.clone(), None);
                for (id, unit) in state.units.iter().filter(|(_, u)| u.hex.is_some()).step_by(3) {
                    let Some(c) = phase.counter(id) else { continue };
                    let Some(side) = phase.side_of_army.get(&c.army).cloned() else { continue };
                    for order in MoveOrder::probes(id, unit, c) {
                        let Some(p) = phase.prepare(&base, &side, "moves[0]", &order, &mut Vec::new()) else {
                            continue;
                        };
                        for from in crate::base::hex::hexes_within(p.start, 3, layout) {
                            for to in around(from, layout) {
                                let worded = phase.step(&base.state, &p.group, &p.occ, from, to);
                                let worded = worded.map(|s| (s.mp, s.along, s.captures));
                                for _ in 0..2 {
                                    let priced = phase.step_cost(&base.state, &p.group, &p.occ, from, to);
                                    let priced = priced.map(|s| (s.mp, s.along, s.captures));
                                    assert_eq!(priced.is_ok(), worded.is_ok(), "{id} {from} to {to}: {worded:?}");
                                    assert_eq!(priced.as_ref().ok(), worded.as_ref().ok(), "{id} {from} to {to}");
                                }
                                compared.0 += 1;
                                match &worded {
                                    Ok((_, along, _)) => {
                                        compared.1 += 1;
                                        compared.3 += usize::from(*along);
                                    }
                                    Err(_) => compared.2 += 1,
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(compared.0 > 5_000 && compared.1 > 1_000 && compared.2 > 1_000 && compared.3 > 0, "{compared:?}");
    }

    /// Self-play's draws take each unit off one board built with none
    /// moving (`Occupancy::without`): for either player of the Historical
    /// set-up and every unit on the map moving (alone, with the units of
    /// its hex, or none), the board is the one `Phase::occupancy` builds
    /// for those units: the same units in the same order, the same sums,
    /// the same enemy leaders and the same hexes marked.
    #[test]
    fn a_unit_taken_off_the_board_leaves_the_board_built_without_it() {
        let (rules, state) = load(Source::Embedded("savannah-1779".into()), "historical");
        let mut compared = 0;
        for player in ["allies", "british"] {
            let phase = Phase::new(&rules, &state, player).unwrap();
            let board = phase.occupancy(&state, &[]);
            let on_map: Vec<(&String, HexId)> = state.units.iter().filter_map(|(id, u)| Some((id, u.hex?))).collect();
            let mut cases: Vec<(Vec<String>, Option<HexId>)> = vec![(Vec::new(), None)];
            for (id, hex) in &on_map {
                cases.push((vec![id.to_string()], Some(*hex)));
                cases.push((on_map.iter().filter(|(_, h)| h == hex).map(|(u, _)| u.to_string()).collect(), Some(*hex)));
            }
            for (moving, start) in cases {
                let built = phase.occupancy(&state, &moving);
                // Taken off anywhere, and (a move's units) from their hex.
                let from_start = start.map(|h| board.without_from(&moving, h));
                for taken in std::iter::once(board.without(&moving)).chain(from_start) {
                    assert_eq!(built.friendly_ids, taken.friendly_ids, "{player}, {moving:?}");
                    assert_eq!(built.friendly_hexes, taken.friendly_hexes, "{player}, {moving:?}");
                    assert_eq!(built.friendly_weights, taken.friendly_weights, "{player}, {moving:?}");
                    assert_eq!(built.enemy_leaders, taken.enemy_leaders, "{player}, {moving:?}");
                    for &hex in rules.module.map.terrain.keys() {
                        assert_eq!(
                            built.friendly_bits.contains(hex),
                            taken.friendly_bits.contains(hex),
                            "{player}, {hex}"
                        );
                        assert_eq!(built.leader_bits.contains(hex), taken.leader_bits.contains(hex), "{player}, {hex}");
                    }
                    assert!(built.same_as(&taken), "{player}, {moving:?}");
                    compared += 1;
                }
            }
        }
        assert!(compared > 100, "{compared} boards compared");
    }

    #[test]
    fn a_board_changed_by_a_move_is_the_board_built_after_it() {
        // `Occupancy::moved` against the board built afresh from the state
        // after the move: each unit on the map alone and each hex's units
        // together, to a hex next to theirs (an empty one, one with
        // friendly units, whichever the map has), for both players.
        let (rules, state) = load(Source::Embedded("savannah-1779".into()), "historical");
        let layout = rules.module.map.layout;
        let mut compared = 0;
        for player in ["allies", "british"] {
            let phase = Phase::new(&rules, &state, player).unwrap();
            let board = phase.occupancy(&state, &[]);
            let on_map: Vec<(&String, HexId)> = state.units.iter().filter_map(|(id, u)| Some((id, u.hex?))).collect();
            for (id, hex) in &on_map {
                let friendly = rules.counter(id).is_some_and(|c| phase.is_friendly(c));
                let stack: Vec<String> = on_map.iter().filter(|(_, h)| h == hex).map(|(u, _)| u.to_string()).collect();
                for moving in [vec![id.to_string()], stack] {
                    for dest in neighbours(*hex, layout) {
                        let mut after = state.clone();
                        for m in &moving {
                            after.units.get_mut(m).unwrap().hex = Some(dest);
                        }
                        let changed = board.moved(&moving, *hex, dest);
                        let all_friendly =
                            moving.iter().all(|m| rules.counter(m).is_some_and(|c| phase.is_friendly(c)));
                        if !all_friendly {
                            // An enemy unit is not on the friendly board:
                            // it is built again.
                            assert!(changed.is_none(), "{player}, {moving:?}");
                            continue;
                        }
                        let built = phase.occupancy(&after, &[]);
                        let changed = changed.expect("the movers are on the board");
                        assert!(changed.same_as(&built), "{player}, {moving:?} to {dest}");
                        assert_eq!(changed.friendly_ids, built.friendly_ids, "{player}, {moving:?} to {dest}");
                        compared += usize::from(friendly);
                    }
                }
            }
        }
        assert!(compared > 300, "{compared} boards compared");
    }

    #[test]
    fn edit_distance_counts_edits() {
        assert_eq!(edit_distance("red-foot", "red-foot"), 0);
        assert_eq!(edit_distance("red-fot", "red-foot"), 1);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("blue", "bleu"), 2);
    }
}
