//! Zones of Control (series 8): which hexes an army's enemies control, and
//! which of those belong to rifle units (8.31's extra MP).
//!
//! Every terrain exception is data: a hex whose terrain has `zoc_enters:
//! false` (8.1: light forest, orchard, heavy forest; Savannah 4.19: swamp and
//! city hexes) takes no ZOC, and a hexside feature whose effect in the
//! direction of the ZOC has `zoc_crosses: false` (8.1: into fieldworks)
//! stops it. Both come from the module's Terrain Effects Chart through
//! [`Terrain`].

use std::collections::BTreeMap;

use crate::base::hex::{neighbour, Direction, HexBits, HexId};
use crate::systems::gboar::board::state::{Condition, State, UnitState};
use crate::systems::gboar::board::terrain::Terrain;
use crate::systems::gboar::board::Rules;
use crate::systems::gboar::data::counters::Counter;

/// The hexes in the ZOC of the enemies of one player, and whose ZOC it is.
/// The units are their counters' ids (borrowed from the module, not
/// copied: a movement phase builds this for every check of its orders),
/// each hex's in id order without repeats, as the units are read.
///
/// Each hex's units are a run of one list (the hexes in order, each with
/// where its run begins and ends), and the hexes in any ZOC are bits by
/// hex number: built with a few allocations, and asked about (the
/// movement search asks of every hex it settles and every hexside it
/// prices) without a map.
#[derive(Debug, Clone, Default)]
pub struct Zoc<'r> {
    /// Every hex in an enemy ZOC, and the enemy units exerting it (8.1).
    all: Runs<'r>,
    /// The hexes in the ZOC of enemy rifle units, and those units (8.31).
    rifle: Runs<'r>,
    /// The hexes of `all`.
    bits: HexBits,
}

/// Units by hex: `hexes` in order, each with its units'
/// `ids[from..to]`.
#[derive(Debug, Clone, Default)]
struct Runs<'r> {
    hexes: Vec<(HexId, u32, u32)>,
    ids: Vec<&'r str>,
}

impl<'r> Runs<'r> {
    /// From (hex, unit) pairs in unit id order: sorted by hex, each hex's
    /// units kept in the order read (a stable sort).
    fn new(pairs: Vec<(HexId, &'r str)>) -> Runs<'r> {
        let order = crate::base::hex::order_by_hex(&pairs, |p| p.0);
        let mut hexes: Vec<(HexId, u32, u32)> = Vec::new();
        let mut ids = Vec::with_capacity(pairs.len());
        for i in order {
            let (h, id) = pairs[i];
            let k = ids.len() as u32;
            match hexes.last_mut() {
                Some(e) if e.0 == h => e.2 = k + 1,
                _ => hexes.push((h, k, k + 1)),
            }
            ids.push(id);
        }
        Runs { hexes, ids }
    }

    fn at(&self, hex: HexId) -> &[&'r str] {
        match self.hexes.binary_search_by_key(&hex, |e| e.0) {
            Ok(k) => {
                let (_, from, to) = self.hexes[k];
                self.ids.get(from as usize..to as usize).unwrap_or_default()
            }
            Err(_) => &[],
        }
    }
}

impl Zoc<'_> {
    /// The enemy units whose ZOC covers `hex` (empty when none).
    pub fn exerted_on(&self, hex: HexId) -> Vec<String> {
        self.all.at(hex).iter().map(|u| u.to_string()).collect()
    }

    pub fn contains(&self, hex: HexId) -> bool {
        self.bits.contains(hex)
    }

    /// 8.31: +1 MP to enter an enemy rifle unit's ZOC and +1 MP to exit one,
    /// moving from `from` to `to`. A rifle unit's ZOC is entered when `to`
    /// is in it and `from` is not, exited when `from` is in it and `to` is
    /// not; moving between two hexes of the same rifle unit's ZOC does
    /// neither. Several rifle units entered (or exited) at once still cost
    /// +1 (the rule prices the act of entering, not each unit).
    pub fn rifle_costs(&self, from: HexId, to: HexId) -> (Vec<String>, Vec<String>) {
        let (a, b) = (self.rifle_at(from), self.rifle_at(to));
        let entered = b.iter().filter(|u| outside(a, u)).map(|u| u.to_string()).collect();
        let exited = a.iter().filter(|u| outside(b, u)).map(|u| u.to_string()).collect();
        (entered, exited)
    }

    /// Whether [`Zoc::rifle_costs`] finds a rifle ZOC entered, and one
    /// exited, without listing the units: what the movement search prices.
    pub fn rifle_crossed(&self, from: HexId, to: HexId) -> (bool, bool) {
        if self.rifle.hexes.is_empty() {
            return (false, false);
        }
        let (a, b) = (self.rifle_at(from), self.rifle_at(to));
        (b.iter().any(|u| outside(a, u)), a.iter().any(|u| outside(b, u)))
    }

    /// The rifle units whose ZOC covers `hex`, in id order.
    fn rifle_at(&self, hex: HexId) -> &[&str] {
        self.rifle.at(hex)
    }
}

/// Whether unit `u` is not in `set` (ids in order).
fn outside(set: &[&str], u: &str) -> bool {
    set.binary_search(&u).is_err()
}

/// 8.1: a Parade Order combat unit exerts a ZOC; disrupted and shattered
/// units (13.3, 13.4), leaders (3.2: not combat units), units off the map
/// and units lost on the Covered Way (Savannah 4.9: "They have no ZOC";
/// `lost_zoc`, charts/covered-way.yaml `lost_effects.zoc`) do not.
pub fn exerts_zoc(counter: &Counter, unit: &UnitState, lost_zoc: bool) -> bool {
    !counter.is_leader() && unit.hex.is_some() && unit.condition == Condition::ParadeOrder && (lost_zoc || !unit.lost)
}

/// 8.1: whether a ZOC exerted from `from` extends into the adjacent hex
/// `to`: not into a hex whose terrain has `zoc_enters: false`, and not
/// across a hexside feature that stops it in that direction (fieldworks
/// stop a ZOC going into them, not coming out of them).
pub fn extends(terrain: &Terrain, from: HexId, to: HexId) -> bool {
    let Some(hex) = terrain.hex(to) else { return false };
    hex.zoc_enters && terrain.zoc_crosses(from, to)
}

/// The ZOC of every unit that is an enemy of `player` (8.1), with rifle
/// units' ZOC apart (8.31). `player_of_army` gives each army's player.
pub fn enemy_zoc<'r>(
    rules: &'r Rules,
    terrain: &Terrain,
    state: &State,
    player_of_army: &BTreeMap<String, String>,
    player: &str,
) -> Zoc<'r> {
    enemy_zoc_in(rules, terrain, state, player_of_army, player, |_| true)
}

/// [`enemy_zoc`] in the hexes `wanted` takes only: exactly the same in
/// those hexes, none in the others (a rule that asks about a few hexes
/// need not work out the ZOC of the whole board).
pub fn enemy_zoc_in<'r>(
    rules: &'r Rules,
    terrain: &Terrain,
    state: &State,
    player_of_army: &BTreeMap<String, String>,
    player: &str,
    wanted: impl Fn(HexId) -> bool,
) -> Zoc<'r> {
    let enemies = state.units.iter().filter_map(|(id, unit)| {
        let counter = rules.counter(id)?;
        (player_of_army.get(&counter.army).map(String::as_str) != Some(player)).then_some((counter, unit))
    });
    zoc_of(terrain, enemies, wanted)
}

/// [`enemy_zoc`] from the enemy units already picked out, each with its
/// counter, in the state's (id) order: what a caller that has walked the
/// units and looked up their counters passes, rather than have them
/// looked up again.
pub fn enemy_zoc_among<'r, 's>(
    terrain: &Terrain,
    enemies: impl Iterator<Item = (&'r Counter, &'s UnitState)>,
) -> Zoc<'r> {
    zoc_of(terrain, enemies, |_| true)
}

fn zoc_of<'r, 's>(
    terrain: &Terrain,
    enemies: impl Iterator<Item = (&'r Counter, &'s UnitState)>,
    wanted: impl Fn(HexId) -> bool,
) -> Zoc<'r> {
    let mut all: Vec<(HexId, &'r str)> = Vec::new();
    let mut rifles: Vec<(HexId, &'r str)> = Vec::new();
    // The units in id order: each hex's list is in id order and without
    // repeats (a unit reaches a hex once).
    for (counter, unit) in enemies {
        if !exerts_zoc(counter, unit, terrain.lost_zoc) {
            continue;
        }
        let Some(at) = unit.hex else { continue };
        // 3.2, 8.31: a rifle unit (docs/module-format/counters.md: a
        // militia with rifles is one).
        let rifle = crate::systems::gboar::board::units::is_rifle(counter);
        // The six hexes of `neighbours`, in its order, without a list.
        for n in Direction::ALL.into_iter().filter_map(|d| neighbour(at, d, terrain.layout())) {
            if !wanted(n) || !extends(terrain, at, n) {
                continue;
            }
            all.push((n, counter.id.as_str()));
            if rifle {
                rifles.push((n, counter.id.as_str()));
            }
        }
    }
    let mut bits = HexBits::new();
    for (h, _) in &all {
        bits.insert(*h);
    }
    Zoc { all: Runs::new(all), rifle: Runs::new(rifles), bits }
}
