//! Paths and movement points (series 9.1, 9.2, 9.4; 8.31's rifle MP;
//! 9.52 Strategic Movement): what entering a hex costs a group, the
//! cheapest path to a hex (`to:`), the walk along a given `path:`, and the
//! hexes a group could reach, for the messages of a refusal.

use super::*;

use crate::base::hex::{HexBits, HEX_NUMBERS};

thread_local! {
    /// [`Phase::search_until`]'s table of the best node of each hex, by
    /// hex number, cleared after each search and kept for the next.
    static SEARCH_TABLE: std::cell::RefCell<Vec<Option<Node>>> = const { std::cell::RefCell::new(Vec::new()) };
    /// [`Phase::entry_cost`]'s answers, by hex entered, the direction it
    /// is entered in and strategic movement or not, each as two words:
    /// the tag of the phase that found it, and the answer packed
    /// ([`pack_cost`]). A phase reads only its own, so the table is never
    /// cleared. It is made a map column at a time ([`COLUMN_SLOTS`], 19
    /// KB), as a search first enters a hex of the column: a command that
    /// searches near a few hexes makes a few columns, not the 1.9 MB of
    /// every hex number (whose pages a lone `validate` would fault in).
    static ENTRY_COSTS: std::cell::RefCell<Vec<Option<Column>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A column of [`ENTRY_COSTS`]: [`COLUMN_SLOTS`] slots of two words.
type Column = Box<[[u64; 2]]>;

/// The slots of one column of [`ENTRY_COSTS`]: 100 rows, six directions,
/// strategic or not.
const COLUMN_SLOTS: usize = 100 * 6 * 2;

/// The tags of [`ENTRY_COSTS`]: one per phase made, never 0 (an empty
/// slot's), never the same twice in a process.
static COSTS_TAGS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

pub(super) fn new_costs_tag() -> u64 {
    COSTS_TAGS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// An answer of [`Phase::entry_cost`] as a word of [`ENTRY_COSTS`]: bit
/// 63 set when the hex may be entered, bit 32 when along the Covered Way,
/// the MPs in the low 32 bits.
fn pack_cost(cost: Option<(i32, bool)>) -> u64 {
    match cost {
        None => 0,
        Some((mp, along)) => 1 << 63 | u64::from(along) << 32 | u64::from(mp as u32),
    }
}

/// [`pack_cost`] read back.
fn unpack_cost(word: u64) -> Option<(i32, bool)> {
    (word >> 63 == 1).then_some((word as u32 as i32, word >> 32 & 1 == 1))
}

impl<'a> Phase<'a> {
    /// [`Phase::step`] for the search, which needs the MPs and whether the
    /// hex may be entered, not the words: the parts and the refusal are
    /// left unwritten (empty), and a refusal's code may be another reason's
    /// (whatever the phase alone refuses is prohibited terrain); the MPs,
    /// what is captured, and whether the hex may be entered, the same.
    pub(super) fn step_cost(
        &self,
        state: &State,
        group: &Group,
        occ: &Occupancy,
        from: HexId,
        to: HexId,
    ) -> std::result::Result<Step, Refusal> {
        match crate::base::hex::direction_between(from, to, self.terrain.layout) {
            Some(d) => self.step_cost_toward(group, occ, from, d, to),
            None => self.step(state, group, occ, from, to),
        }
    }

    /// [`Phase::step_cost`] of the move from `from` in direction `d`,
    /// which enters `to`: what the phase alone decides of it (the map,
    /// the weather, the enemy's units and ZOCs: [`Phase::entry_cost`])
    /// found once per phase, and what the group and the friendly units
    /// decide (a leader captured, the stacking limits) asked each time,
    /// as [`Phase::step_priced`] asks them.
    fn step_cost_toward(
        &self,
        group: &Group,
        occ: &Occupancy,
        from: HexId,
        d: crate::base::hex::Direction,
        to: HexId,
    ) -> std::result::Result<Step, Refusal> {
        let refused = || Refusal::new(Code::ProhibitedTerrain, String::new());
        let (mp, along) = self.entry_cost(from, d, to, group.strategic).ok_or_else(refused)?;
        let mut captures = Vec::new();
        if let Some(leaders) = occ.enemy_leaders_in(to) {
            if !group.captures {
                return Err(Refusal::new(Code::EnemyLeaderHex, String::new()));
            }
            captures = leaders.iter().map(|l| l.to_string()).collect();
        }
        if self.stacking_refuses(group, occ, to) {
            return Err(Refusal::new(Code::OverStacked, String::new()));
        }
        Ok(Step { mp, parts: Vec::new(), captures, along })
    }

    /// 7.1, 7.2 and Savannah 4.1 for the search, as [`Phase::step_priced`]
    /// checks them: whether the friendly units in `to` refuse the group.
    fn stacking_refuses(&self, group: &Group, occ: &Occupancy, to: HexId) -> bool {
        let (there, (s, g)) = occ.friendly(to);
        let Some(limits) = &self.stacking else { return false };
        if !limits.holds(group.sps.saturating_add(s), group.guns.saturating_add(g)) {
            return true;
        }
        if !group.no_pass || there.is_empty() {
            return false;
        }
        limits.restrictions.iter().filter(|r| !r.may_pass_through).any(|r| {
            group
                .ids
                .iter()
                .filter_map(|m| self.counter(m.as_str()).filter(|x| r.involves(x)))
                .any(|x| there.iter().filter_map(|o| self.counter(o)).any(|y| r.applies(x, y)))
        })
    }

    /// What entering `to` from `from` (in direction `d`) costs by the
    /// phase alone, for strategic movement or not: its MPs and whether it
    /// is along the Covered Way, or None when the phase refuses it
    /// whoever moves (off the map, prohibited, an enemy unit there, a
    /// strategic move off the roads or next to the enemy). What
    /// [`Phase::step_priced`] finds of it (the same MPs, summed in the
    /// same order), found once per phase and hexside and kept in
    /// [`ENTRY_COSTS`]: the searches of a phase's units cross the same
    /// hexsides again and again.
    fn entry_cost(
        &self,
        from: HexId,
        d: crate::base::hex::Direction,
        to: HexId,
        strategic: bool,
    ) -> Option<(i32, bool)> {
        let number = usize::from(to.number());
        let (column, slot) = (number / 100, (number % 100 * 6 + d.index()) * 2 + usize::from(strategic));
        let known = ENTRY_COSTS.with(|t| {
            let t = t.borrow();
            t.get(column).and_then(Option::as_ref).and_then(|c| c.get(slot)).copied().filter(|e| e[0] == self.costs_tag)
        });
        if let Some(e) = known {
            return unpack_cost(e[1]);
        }
        let cost = self.entry_cost_found(from, to, strategic);
        ENTRY_COSTS.with(|t| {
            let mut t = t.borrow_mut();
            if t.len() <= column {
                t.resize_with(column + 1, || None);
            }
            let c = t[column].get_or_insert_with(|| vec![[0u64; 2]; COLUMN_SLOTS].into_boxed_slice());
            c[slot] = [self.costs_tag, pack_cost(cost)];
        });
        cost
    }

    /// [`Phase::entry_cost`] worked out: [`Phase::step_priced`]'s checks
    /// and sums but those of the group's units and the friendly units.
    fn entry_cost_found(&self, from: HexId, to: HexId, strategic: bool) -> Option<(i32, bool)> {
        let info = self.terrain.hex(to)?;
        if info.movement_cost == MovementCost::Prohibited {
            return None;
        }
        let along = match (self.terrain.hex(from).and_then(|h| h.feature), info.feature) {
            (Some(a), Some(b)) if a.id == b.id => Some(b),
            _ => None,
        };
        let road = self.terrain.road(from, to);
        if self.enemy_combat_in(to).is_some() {
            return None;
        }
        let mut mp = 0i32;
        if let Some(feature) = along {
            if strategic && feature.strategic_movement == Some(false) {
                return None;
            }
            mp = mp.saturating_add(feature.movement_cost_along?);
            for (id, added) in self.terrain.crossing_costs(from, to) {
                if feature.streams.iter().any(|s| s == id) {
                    mp = mp.saturating_add(feature.creek_cost_along.unwrap_or(added));
                } else if added != 0 {
                    mp = mp.saturating_add(added);
                }
            }
        } else if strategic {
            mp = mp.saturating_add(road.and_then(|r| r.strategic_cost)?);
            if around(to, self.terrain.layout).any(|n| self.enemy_combat_in(n).is_some_and(|e| !e.is_empty())) {
                return None;
            }
        } else if let Some(r) = road {
            mp = mp.saturating_add(r.cost);
        } else {
            let MovementCost::Mp(cost) = info.movement_cost else { return None };
            mp = self.terrain.add_crossing_costs(from, to, mp.saturating_add(cost));
        }
        if let Some(w) = self.weather.filter(|w| w.movement_cost_added != 0) {
            mp = mp.saturating_add(w.movement_cost_added);
        }
        let (entered, exited) = self.zoc.rifle_crossed(from, to);
        mp = mp.saturating_add(i32::from(entered)).saturating_add(i32::from(exited));
        Some((mp, along.is_some()))
    }

    /// The cost and effects of the group entering `to` from the adjacent
    /// `from`, or why it may not: each part of the cost named, each
    /// refusal saying why. (The search's [`Phase::step_cost`] prices the
    /// same step by [`Phase::entry_cost`] and [`Phase::stacking_refuses`]:
    /// the same MPs and the same refusal or none, a unit test holds them
    /// to it.)
    pub(super) fn step(
        &self,
        _state: &State,
        group: &Group,
        occ: &Occupancy,
        from: HexId,
        to: HexId,
    ) -> std::result::Result<Step, Refusal> {
        let Some(info) = self.terrain.hex(to) else {
            return Err(Refusal::new(Code::HexOffMap, format!("{to} is not on the map")));
        };
        // 9.2: prohibited terrain.
        if info.movement_cost == MovementCost::Prohibited {
            return Err(Refusal::new(
                Code::ProhibitedTerrain,
                format!("{to} is {}: prohibited terrain (9.2)", info.name),
            ));
        }
        // Savannah 4.9: along the Covered Way is from one of its hexes to an
        // adjacent one; entering it from outside pays the hex's terrain.
        let along = match (self.terrain.hex(from).and_then(|h| h.feature), info.feature) {
            (Some(a), Some(b)) if a.id == b.id => Some(b),
            _ => None,
        };
        let road = self.terrain.road(from, to);
        // 9.2: never into an enemy-occupied hex.
        if let Some(enemies) = self.enemy_combat_in(to) {
            return Err(Refusal::new(
                Code::EnemyOccupiedHex,
                format!(
                    "{to} holds enemy units ({}): a unit may never enter an enemy-occupied hex (9.2)",
                    enemies.join(", ")
                ),
            ));
        }
        let mut captures = Vec::new();
        if let Some(leaders) = occ.enemy_leaders_in(to) {
            if !group.captures {
                return Err(Refusal::new(Code::EnemyLeaderHex, format!(
                    "{to} holds enemy leader {}: only Parade Order or disrupted combat units may enter it, capturing him (9.2, 14.32)",
                    leaders.join(", ")
                )));
            }
            captures = leaders.iter().map(|l| l.to_string()).collect();
        }
        // 7.1, 7.2: never through or into a hex in excess of stacking limits.
        // The friendly units there, weighed once for the move (the
        // occupancy is of this state, as every caller makes it).
        let (there, (s, g)) = occ.friendly(to);
        if let Some(limits) = &self.stacking {
            let (sps, guns) = (group.sps.saturating_add(s), group.guns.saturating_add(g));
            if !limits.holds(sps, guns) {
                return Err(Refusal::new(Code::OverStacked, format!(
                    "{to} would hold {sps} SPs and {guns} artillery units ({} with {}): the limit is {} SPs and {} artillery unit{} (7.1, 7.2)",
                    list(&group.ids),
                    if there.is_empty() { "nothing".to_string() } else { there.join(", ") },
                    limits.max_strength_points,
                    limits.max_artillery_units,
                    if limits.max_artillery_units == 1 { "" } else { "s" }
                )));
            }
            // Savannah 4.1: units that may not even pass through each other.
            // (A group no such restriction binds is passed over whole, and
            // a mover the restriction cannot bind to any unit before the
            // units there are looked up.)
            let asked = group.no_pass && !there.is_empty();
            for r in limits.restrictions.iter().filter(|r| asked && !r.may_pass_through) {
                for mover in &group.ids {
                    let Some(x) = self.counter(mover.as_str()).filter(|x| r.involves(x)) else { continue };
                    for other in there {
                        let Some(y) = self.counter(other) else {
                            continue;
                        };
                        if r.applies(x, y) {
                            return Err(Refusal::new(
                                Code::MayNotPassThrough,
                                format!(
                                    "{to} holds {other}: {mover} may not pass through or stack with it ({}, {})",
                                    r.rule_name(),
                                    r.id
                                ),
                            ));
                        }
                    }
                }
            }
        }
        let mut parts: Vec<(String, i32)> = Vec::new();
        // The MPs add up as the parts are found (in the same order, as
        // saturating sums), each part named: the words of the move's event.
        let mut mp = 0i32;
        macro_rules! part {
            ($label:expr, $value:expr) => {{
                let value: i32 = $value;
                mp = mp.saturating_add(value);
                parts.push(($label, value));
            }};
        }
        if let Some(feature) = along {
            if group.strategic && feature.strategic_movement == Some(false) {
                return Err(Refusal::new(
                    Code::StrategicAlongCoveredWay,
                    format!(
                        "{from} to {to} is along the {}: strategic movement is not allowed along it (Savannah 4.9)",
                        feature.name
                    ),
                ));
            }
            // Savannah 4.9: its own cost replaces the hex's (swamp); streams
            // are not forded along it and cost `creek_cost_along`.
            let Some(cost) = feature.movement_cost_along else {
                return Err(Refusal::new(Code::CoveredWayUnpriced, format!(
                    "charts/terrain.yaml gives the {} no movement_cost_along, so a move along it cannot be priced (Savannah 4.9)",
                    feature.name
                )));
            };
            part!(format!("along the {}", feature.name), cost);
            for c in self.terrain.crossing(from, to) {
                if feature.streams.contains(&c.id) {
                    part!(
                        format!("{} along the {}", c.name.to_lowercase(), feature.name),
                        feature.creek_cost_along.unwrap_or(c.movement_cost_added)
                    );
                } else if c.movement_cost_added != 0 {
                    part!(c.name.to_lowercase(), c.movement_cost_added);
                }
            }
        } else if group.strategic {
            // 9.52: every hexside along a road or track, never next to the enemy.
            let Some(cost) = road.and_then(|r| r.strategic_cost) else {
                return Err(Refusal::new(Code::StrategicOffRoad, format!(
                    "{from} to {to} does not follow a road or track: strategic movement crosses only hexsides with connected road or track (9.52)"
                )));
            };
            let enemies = self.adjacent_enemies(to);
            if !enemies.is_empty() {
                return Err(Refusal::new(
                    Code::StrategicAdjacent,
                    format!(
                        "{to} is next to enemy {}: strategic movement never moves adjacent to enemy units (9.52)",
                        list(&enemies)
                    ),
                ));
            }
            part!(format!("{} (strategic)", road.map(|r| r.names.join("/")).unwrap_or_default()), cost);
        } else if let Some(r) = road {
            // 9.51: along a road the other terrain is ignored.
            part!(r.names.join("/"), r.cost);
        } else {
            // 9.4: hex and hexside costs add up.
            let MovementCost::Mp(cost) = info.movement_cost else {
                return Err(Refusal::new(
                    Code::ProhibitedTerrain,
                    format!("{to} is {}: prohibited terrain (9.2)", info.name),
                ));
            };
            part!(info.name.to_lowercase(), cost);
            for c in self.terrain.crossing(from, to) {
                if c.movement_cost_added != 0 {
                    part!(c.name.to_lowercase(), c.movement_cost_added);
                }
            }
        }
        // Savannah 4.2: the weather's added cost per hex entered.
        if let Some(w) = self.weather.filter(|w| w.movement_cost_added != 0) {
            part!(w.name.to_lowercase(), w.movement_cost_added);
        }
        // 8.31: +1 to enter, +1 to exit an enemy rifle unit's ZOC.
        let (entered, exited) = self.zoc.rifle_costs(from, to);
        if !entered.is_empty() {
            part!(format!("entering the ZOC of rifle unit {}", list(&entered)), 1);
        }
        if !exited.is_empty() {
            part!(format!("leaving the ZOC of rifle unit {}", list(&exited)), 1);
        }
        Ok(Step { mp, parts, captures, along: along.is_some() })
    }

    /// 9.1's exception: a unit may always move one hex, unless it is naval
    /// artillery or a mortar or the hex withdraws the exception (Savannah 4.19).
    pub(super) fn minimum_move_into(&self, group: &Group, to: HexId) -> bool {
        group.minimum_move && self.terrain.hex(to).is_some_and(|h| h.minimum_move)
    }

    /// 13.3: the hexes a disrupted group may move to: one hex, not next to
    /// an enemy unit; one that begins next to the enemy must move away from
    /// as many enemy units as it can. "As many as it can" counts the hexes
    /// where it may end the phase (Savannah 4.1, the module documentation);
    /// as a move is walked, the orders' other moves may still empty a hex
    /// or fill it, so a move is taken here if it is the best either way,
    /// the hexes `state` holds a unit there it may not end the phase
    /// stacked with counted or not (self-play, seed 1, game 2114); the
    /// phase's end holds it to the hexes the orders leave open
    /// ([`Phase::disrupted_must_move`]).
    pub(super) fn disrupted_options(&self, state: &State, group: &Group, occ: &Occupancy) -> BTreeMap<HexId, Step> {
        let mut options = self.disrupted_options_where(state, group, occ, |_| true);
        let open = |h: HexId| !group.ids.iter().any(|id| self.ends_barred_leaving(state, id, h, &group.leaving));
        options.extend(self.disrupted_options_where(state, group, occ, open));
        options
    }

    /// A side's orders checked alone (`group.may_leave` not empty): whether
    /// the disrupted group may move to `at` when the units of the player's
    /// other sides in `at` leave it (their orders are not known) and those
    /// elsewhere stay; the step if so. The whole phase, checked together,
    /// knows who leaves ([`Phase::disrupted_options`]).
    pub(super) fn disrupted_may_take(&self, state: &State, group: &Group, occ: &Occupancy, at: HexId) -> Option<Step> {
        if group.may_leave.is_empty() {
            return None;
        }
        let mut leaving = (*group.leaving).clone();
        leaving.extend(group.may_leave.iter().cloned());
        let open = |h: HexId| {
            let gone = if h == at { &leaving } else { &*group.leaving };
            !group.ids.iter().any(|id| self.ends_barred_leaving(state, id, h, gone))
        };
        self.disrupted_options_where(state, group, occ, open).remove(&at)
    }

    /// [`Phase::disrupted_options`] among the hexes `open` keeps: "as many
    /// enemy units as possible" counted over those hexes only.
    pub(super) fn disrupted_options_where(
        &self,
        state: &State,
        group: &Group,
        occ: &Occupancy,
        open: impl Fn(HexId) -> bool,
    ) -> BTreeMap<HexId, Step> {
        let mut legal: Vec<(HexId, usize, Step)> = Vec::new();
        // Only hexes the move may enter at all: not a zone the unit may
        // never enter (Savannah 4.8: the Creeks, disrupted outside the
        // perimeter with a hex in it the one away, were told to move there
        // and the move was refused, 2026-12-06), nor one it may not sortie
        // to alone (Savannah 4.10), nor one next to the perimeter on the
        // Strategic Turn Track (Savannah 1.7): the walk's own checks
        // ([`Phase::zone_rules`]).
        let enters = |n: HexId| self.zone_rules(state, &group.ids, group.start, &[n], "").is_none();
        for n in neighbours(group.start, self.terrain.layout).into_iter().filter(|n| open(*n) && enters(*n)) {
            let Ok(step) = self.step_cost(state, group, occ, group.start, n) else { continue };
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
    pub(super) fn search(
        &self,
        state: &State,
        group: &Group,
        occ: &Occupancy,
        allowance: Option<i32>,
    ) -> BTreeMap<HexId, Node> {
        self.search_until(state, group, occ, allowance, None)
    }

    /// [`Phase::search`], stopped once `stop` is settled when given: the
    /// hexes found by then, `stop`'s node and the nodes of its path among
    /// them, each as the whole search finds it (a settled hex's node is
    /// final: every hex settled later costs at least as much, in MPs and
    /// then in hexes entered, and only a strictly cheaper path replaces a
    /// node).
    pub(super) fn search_until(
        &self,
        state: &State,
        group: &Group,
        occ: &Occupancy,
        allowance: Option<i32>,
        stop: Option<HexId>,
    ) -> BTreeMap<HexId, Node> {
        if group.disrupted {
            let mut best = BTreeMap::new();
            let mut options = self.disrupted_options(state, group, occ);
            // A side's orders alone: the hexes its move may take too, as a
            // `path:` may ([`Phase::disrupted_may_take`]).
            if !group.may_leave.is_empty() {
                for n in neighbours(group.start, self.terrain.layout) {
                    if let std::collections::btree_map::Entry::Vacant(e) = options.entry(n) {
                        if let Some(step) = self.disrupted_may_take(state, group, occ, n) {
                            e.insert(step);
                        }
                    }
                }
            }
            for (h, step) in options {
                best.insert(h, Node { mp: step.mp, steps: 1, prev: Some(group.start) });
            }
            return best;
        }
        let allowance = allowance.unwrap_or(group.allowance);
        // The best node of each hex found, by hex number, in a table kept
        // for the thread's next search (this search clears what it wrote);
        // taken out while in use, so a search a panic stopped leaves no
        // half-written table behind.
        let mut table = SEARCH_TABLE.with(|t| std::mem::take(&mut *t.borrow_mut()));
        if table.len() != HEX_NUMBERS {
            table = vec![None; HEX_NUMBERS];
        }
        let mut found: Vec<HexId> = Vec::new();
        let at = |h: HexId| usize::from(h.number());
        table[at(group.start)] = Some(Node { mp: 0, steps: 0, prev: None });
        found.push(group.start);
        // The frontier pops its least (MPs, hexes entered, hex id) first,
        // as an ordered set would (an entry pushed twice is settled once);
        // the settled hexes are bits by hex number.
        let mut frontier: std::collections::BinaryHeap<std::cmp::Reverse<(i32, u32, HexId)>> =
            std::collections::BinaryHeap::new();
        frontier.push(std::cmp::Reverse((0, 0, group.start)));
        let mut settled = HexBits::new();
        while let Some(std::cmp::Reverse((mp, steps, hex))) = frontier.pop() {
            if settled.contains(hex) {
                continue;
            }
            settled.insert(hex);
            if stop == Some(hex) {
                break;
            }
            // 8.31: a unit entering an enemy ZOC stops there (8.32: the
            // hex it begins in does not hold it).
            if hex != group.start && self.zoc.contains(hex) {
                continue;
            }
            for d in crate::base::hex::Direction::ALL {
                let Some(n) = crate::base::hex::neighbour(hex, d, self.terrain.layout) else { continue };
                if settled.contains(n) {
                    continue;
                }
                let Ok(step) = self.step_cost_toward(group, occ, hex, d, n) else { continue };
                let total = mp.saturating_add(step.mp);
                let one_hex = hex == group.start && self.minimum_move_into(group, n);
                if total > allowance && !one_hex {
                    continue;
                }
                let slot = &mut table[at(n)];
                let better = slot.is_none_or(|old| (total, steps + 1) < (old.mp, old.steps));
                if better {
                    if slot.is_none() {
                        found.push(n);
                    }
                    *slot = Some(Node { mp: total, steps: steps + 1, prev: Some(hex) });
                    frontier.push(std::cmp::Reverse((total, steps + 1, n)));
                }
            }
        }
        found.sort_unstable();
        let best: BTreeMap<HexId, Node> =
            found.iter().filter(|h| **h != group.start).filter_map(|h| table[at(*h)].map(|node| (*h, node))).collect();
        for h in found {
            table[at(h)] = None;
        }
        SEARCH_TABLE.with(|t| *t.borrow_mut() = table);
        best
    }

    pub(super) fn path_to(best: &BTreeMap<HexId, Node>, start: HexId, to: HexId) -> Vec<HexId> {
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

    /// The hexes the group can reach, sorted, for problem texts: not those
    /// whose cheapest path the scenario's zone rules refuse (Savannah 4.8,
    /// 4.10, 1.7: a Creek's reach named hexes of the perimeter its move
    /// there is refused into).
    pub(super) fn reachable_text(&self, state: &State, group: &Group, occ: &Occupancy) -> String {
        let best = self.search(state, group, occ, None);
        let reach: Vec<HexId> = best
            .keys()
            .copied()
            .filter(|h| {
                let path = Phase::path_to(&best, group.start, *h);
                self.zone_rules(state, &group.ids, group.start, &path, "").is_none()
            })
            .collect();
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
    ///
    /// `texts`: whether each step's parts (the words of the move's event)
    /// are written. A quiet run ([`Run::quiet`]) writes no move event and
    /// prices each step without them; a refusal's words are written either
    /// way (the problem quotes them): a step refused unworded is priced
    /// again with its words, which refuses it the same.
    pub(super) fn walk(
        &self,
        state: &State,
        group: &Group,
        occ: &Occupancy,
        path: &[HexId],
        texts: bool,
    ) -> std::result::Result<Walk, (Option<usize>, Refusal)> {
        let mut at = group.start;
        let mut mp: i32 = 0;
        let mut steps = Vec::new();
        let mut minimum_move = false;
        if path.is_empty() {
            return Err((None, Refusal::new(Code::OrdersShape, "the path is empty: list the hexes entered, in order")));
        }
        if group.disrupted && path.len() > 1 {
            return Err((
                Some(1),
                Refusal::new(Code::DisruptedOneHex, "disrupted units may move only one hex per turn (13.3)"),
            ));
        }
        for (k, &to) in path.iter().enumerate() {
            if k > 0 && self.zoc.contains(at) {
                return Err((
                    Some(k),
                    Refusal::new(
                        Code::ZocStopsMove,
                        format!(
                            "{at} is in an enemy ZOC ({}): the move must stop there (8.31)",
                            list(&self.zoc.exerted_on(at))
                        ),
                    ),
                ));
            }
            if !crate::base::hex::are_adjacent(at, to, self.terrain.layout) {
                return Err((
                    Some(k),
                    Refusal::new(
                        Code::PathNotAdjacent,
                        format!("{to} does not adjoin {at}: a path lists adjacent hexes, every hex entered"),
                    ),
                ));
            }
            let step = if texts {
                self.step(state, group, occ, at, to)
            } else {
                self.step_cost(state, group, occ, at, to).or_else(|_| self.step(state, group, occ, at, to))
            }
            .map_err(|e| (Some(k), e))?;
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
                        Refusal::new(
                            Code::OverAllowance,
                            format!(
                                "entering {to} costs {} MP, {mp} MP in all: more than the movement allowance of {} MP (9.1){why}",
                                step.mp, group.allowance
                            ),
                        ),
                    ));
                }
            }
            steps.push(step);
            at = to;
        }
        if group.disrupted {
            let options = self.disrupted_options(state, group, occ);
            if !options.contains_key(&at) && self.disrupted_may_take(state, group, occ, at).is_none() {
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
                return Err((None, Refusal::new(Code::DisruptedNextToEnemy, why)));
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

impl Phase<'_> {
    /// `to:`: the cheapest legal path, or why there is none.
    pub(super) fn find(
        &self,
        state: &State,
        group: &Group,
        occ: &Occupancy,
        to: HexId,
        texts: bool,
    ) -> std::result::Result<Walk, Refusal> {
        if to == group.start {
            return Err(Refusal::new(Code::AlreadyThere, format!("{} is already in {to}", list(&group.ids))));
        }
        let reach = self.search_until(state, group, occ, None, Some(to));
        if reach.contains_key(&to) {
            let path = Phase::path_to(&reach, group.start, to);
            return self.walk(state, group, occ, &path, texts).map_err(|(_, m)| m);
        }
        let reachable = self.reachable_text(state, group, occ);
        // Why not: something about the hex itself, or the distance.
        if let Some(reason) = neighbours(to, self.terrain.layout).into_iter().find_map(|n| {
            if !crate::base::hex::are_adjacent(n, to, self.terrain.layout) {
                return None;
            }
            match self.step(state, group, occ, n, to) {
                Err(e)
                    if !matches!(
                        e.code,
                        Code::StrategicOffRoad | Code::StrategicAdjacent | Code::StrategicAlongCoveredWay
                    ) =>
                {
                    Some(e)
                }
                _ => None,
            }
        }) {
            return Err(Refusal::new(reason.code, format!("{to} cannot be entered: {}; {reachable}", reason.message)));
        }
        if group.disrupted {
            return Err(Refusal::new(
                Code::DisruptedNextToEnemy,
                format!("disrupted units move one hex, never next to an enemy unit (13.3); {reachable}"),
            ));
        }
        let far = self.search(state, group, occ, Some(i32::MAX / 4));
        let (code, mut message) = match far.get(&to) {
            Some(node) => (Code::OverAllowance, format!(
                "{to} is beyond reach: the cheapest legal path costs {} MP, and the allowance is {} MP (9.1)",
                node.mp, group.allowance
            )),
            None => (Code::NoLegalPath, format!("no legal path leads to {to} (enemy ZOCs stop a move, 8.31; enemy units and prohibited terrain bar it, 9.2)")),
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
        Err(Refusal::new(code, format!("{message}; {reachable}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hexside's price packed into a word of the table reads back as it
    /// was: every sign and size of MPs, along the Covered Way or not, and
    /// a refusal (the zero word, an empty slot's, reads as one).
    #[test]
    fn a_packed_entry_cost_reads_back_as_it_was() {
        for mp in [0, 1, 3, -2, i32::MAX, i32::MIN] {
            for along in [false, true] {
                assert_eq!(unpack_cost(pack_cost(Some((mp, along)))), Some((mp, along)), "{mp} {along}");
            }
        }
        assert_eq!(unpack_cost(pack_cost(None)), None);
        assert_eq!(unpack_cost(0), None);
    }
}
