//! The board: what every rule asks of the module and the state. [`Rules`]
//! (the module, its charts and the scenario, loaded once), the state of a
//! game ([`state`]), and the queries every phase shares: a hex's terrain and
//! its crossings ([`terrain`]), where a unit is and whose it is
//! ([`units`]), stacking restrictions ([`stacking`]), Zones of Control
//! ([`zoc`]) and line of sight ([`los`]). board/ imports `data/` and the
//! leaves (`base/`, `system.rs`'s shared types) only: never an effect, a
//! phase or the guide.

pub mod los;
pub mod refusals;
pub mod siege;
pub mod stacking;
pub mod state;
pub mod terrain;
pub mod unit_map;
pub mod units;
pub mod zoc;

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::base::error::{Error, Result};
use crate::systems::gboar::data::charts::{self, Charts};
use crate::systems::gboar::data::sequence::Sequence;
use crate::systems::gboar::data::{Module, Source};

/// Everything the engine reads of a module: counters, map, charts and the
/// sequence of play of one scenario.
pub struct Rules {
    pub module: Module,
    /// The scenario's id (`scenarios/<id>.yaml`).
    pub scenario: String,
    pub charts: Charts,
    pub sequence: Sequence,
    pub seniority: Vec<Seniority>,
    /// Series 7.1 and the exclusive rules' restrictions (module.yaml `stacking`).
    pub stacking: Option<crate::systems::gboar::data::stacking::Stacking>,
    /// The scenario's own movement rules (its file's `fixed_artillery`, ...).
    pub scenario_movement: crate::systems::gboar::data::scenario::ScenarioMovement,
    /// The scenario's reinforcements (series 9.6), if it has any.
    pub reinforcements: Option<crate::systems::gboar::data::scenario::Data>,
    /// What the module's entry letters mean (module.yaml `entry_hexes`).
    pub entries: Vec<crate::systems::gboar::data::scenario::EntryDef>,
    /// module.yaml `close_combat`.
    pub close_combat: crate::systems::gboar::data::stacking::CloseCombatData,
    /// module.yaml `intelligence` (series 7.4): open, or hidden enemy stacks.
    pub intelligence: crate::systems::gboar::data::stacking::Intelligence,
    /// Each counter id's place in `module.counters` (the first, if an id
    /// repeats), with its army's side and player: a lookup index only,
    /// never iterated.
    counter_index: std::collections::HashMap<String, CounterPlace, std::hash::BuildHasherDefault<IdHasher>>,
    /// The Terrain Effects Chart over the map, indexed at its first use
    /// ([`crate::systems::gboar::board::terrain::Terrain`]).
    terrain_index: std::sync::OnceLock<crate::systems::gboar::board::terrain::TerrainIndex>,
    /// How each counter looks on the map ([`Rules::counter_look`]), made at
    /// its first use: `verify` draws a map per dispatch.
    counter_looks: std::sync::Mutex<BTreeMap<String, Option<crate::base::hexmap::CounterView>>>,
    /// The map as drawn for a scenario without the printed siege works
    /// (Savannah 4.4: they are the Historical Scenario's), made at its
    /// first use ([`Rules::drawn_map`]).
    drawn_map: std::sync::OnceLock<crate::base::hexmap::Map>,
}

/// Where a counter is in `module.counters`, and its army's side and
/// player as [`crate::systems::gboar::board::units::side_of`] and
/// [`Rules::player_of_army`] find them (places in module.yaml's `armies`
/// and `alliances`), found once as the module loads: every rule asks
/// whose a unit is, many times a step.
#[derive(Clone, Copy)]
struct CounterPlace {
    at: usize,
    army: Option<usize>,
    alliance: Option<usize>,
}

/// A multiply-rotate hash taking eight bytes at a time (FxHash's step),
/// for indexes keyed by the module's short ids: many times faster than the
/// default hasher on ids of twenty-odd bytes, and a lookup index never
/// shows its order.
#[derive(Default)]
pub(crate) struct IdHasher(u64);

impl IdHasher {
    const K: u64 = 0x517c_c1b7_2722_0a95;

    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(Self::K);
    }
}

impl std::hash::Hasher for IdHasher {
    /// Eight bytes at a time, little-endian; the last 1-7 bytes as one
    /// word, zero-padded, marked with their count. The last word is read
    /// without a copy (a copy of a length known only at run time is a call
    /// to `memcpy`, once per lookup): as the id's last eight bytes
    /// shifted, or byte by byte for an id shorter than eight.
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let n = bytes.len();
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(c);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder().len();
        if rest != 0 {
            let word = match bytes.get(n.saturating_sub(8)..).and_then(|b| <[u8; 8]>::try_from(b).ok()) {
                Some(last) => u64::from_le_bytes(last) >> (8 * (8 - rest)),
                None => bytes.iter().rev().fold(0u64, |w, b| (w << 8) | u64::from(*b)),
            };
            self.add(word ^ ((rest as u64) << 59));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Savannah 4.18 Leader Seniority: between leaders of equal rank.
#[derive(Debug, Clone, Deserialize)]
pub struct Seniority {
    pub army: String,
    pub senior: String,
    pub junior: String,
}

#[derive(Debug, Clone, Deserialize)]
struct SeniorityData {
    #[serde(default)]
    leader_seniority: Vec<Seniority>,
    #[serde(default)]
    stacking: Option<crate::systems::gboar::data::stacking::Stacking>,
    #[serde(default)]
    entry_hexes: Vec<crate::systems::gboar::data::scenario::EntryDef>,
    #[serde(default)]
    close_combat: crate::systems::gboar::data::stacking::CloseCombatData,
    #[serde(default)]
    intelligence: crate::systems::gboar::data::stacking::Intelligence,
}

/// The scenario's `reinforcements`: the whole of it, or just a schedule.
#[derive(Debug, Clone, Deserialize)]
struct ScenarioReinforcements {
    #[serde(default)]
    reinforcements: Option<ReinforcementsForm>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum ReinforcementsForm {
    Data(crate::systems::gboar::data::scenario::Data),
    List(Vec<crate::systems::gboar::data::scenario::Scheduled>),
}

impl Rules {
    pub fn load(source: &Source, scenario: &str) -> Result<Rules> {
        // The charts are read after the module's map and counters, on this
        // thread: read on a thread of their own meanwhile, they cost
        // `validate` 9% more wall time and `status` 6% (a thread's start,
        // and the pages its allocations take, cost more than the ~0.5 ms
        // the charts take here), and `resolve` no less (issue 11). A
        // module error is the one reported first.
        let module = Module::load(source).map_err(|e| e.into_error())?;
        let charts = charts::load(source);
        let charts = charts.map_err(|list| {
            let first = list.first().map(|l| l.to_string()).unwrap_or_default();
            Error::refused(format!("{first} (run `adjutant check-game`)"))
        })?;
        let sequence = Sequence::load(source, scenario)?;
        let (seniority, _): (SeniorityData, _) = source.parse("module.yaml")?;
        let (scenario_movement, _): (crate::systems::gboar::data::scenario::ScenarioMovement, _) =
            source.parse(&format!("scenarios/{scenario}.yaml"))?;
        let (later, _): (ScenarioReinforcements, _) = source.parse(&format!("scenarios/{scenario}.yaml"))?;
        let mut counter_index =
            std::collections::HashMap::with_capacity_and_hasher(module.counters.len(), Default::default());
        for (at, c) in module.counters.iter().enumerate() {
            let army = sequence.data.armies.iter().position(|a| a.id == c.army);
            let alliance = sequence.data.alliances.iter().position(|a| a.armies.contains(&c.army));
            counter_index.entry(c.id.clone()).or_insert(CounterPlace { at, army, alliance });
        }
        Ok(Rules {
            module,
            scenario: scenario.to_string(),
            charts,
            sequence,
            seniority: seniority.leader_seniority,
            stacking: seniority.stacking,
            scenario_movement,
            reinforcements: match later.reinforcements {
                Some(ReinforcementsForm::Data(d)) => Some(d),
                Some(ReinforcementsForm::List(schedule)) if !schedule.is_empty() => {
                    Some(crate::systems::gboar::data::scenario::Data {
                        rule: None,
                        schedule,
                        allied_blocked_entry: None,
                        overstacked_arrival: None,
                        voluntary_delay: true,
                    })
                }
                Some(ReinforcementsForm::List(_)) | None => None,
            },
            entries: seniority.entry_hexes,
            close_combat: seniority.close_combat,
            intelligence: seniority.intelligence,
            counter_index,
            terrain_index: std::sync::OnceLock::new(),
            counter_looks: Default::default(),
            drawn_map: std::sync::OnceLock::new(),
        })
    }

    /// The map a report draws under the counters, and its key (the board's
    /// layers that no game changes are drawn once per key): map.yaml's,
    /// less the printed siege works where the scenario does not use them
    /// (Savannah 4.4: "the printed siege works hexsides are used in the
    /// Historical Scenario"); the game's own works are drawn over it.
    pub fn drawn_map(&self) -> (&crate::base::hexmap::Map, String) {
        use crate::systems::gboar::board::terrain::{without_printed_works, PRINTED_SIEGE_WORKS};
        let key = self.module.source.label("map.yaml");
        if self.scenario_movement.has_rule(PRINTED_SIEGE_WORKS) {
            return (&self.module.map, key);
        }
        if let Some(map) = self.drawn_map.get() {
            return (map, format!("{key} without the printed siege works"));
        }
        match without_printed_works(&self.module.map) {
            std::borrow::Cow::Borrowed(map) => (map, key),
            std::borrow::Cow::Owned(map) => {
                (self.drawn_map.get_or_init(|| map), format!("{key} without the printed siege works"))
            }
        }
    }

    /// The army of a counter, and the alliance (player) of an army.
    pub fn army_of(&self, unit: &str) -> Option<&str> {
        self.counter(unit).map(|c| c.army.as_str())
    }

    pub fn player_of_army(&self, army: &str) -> Option<&str> {
        self.sequence.data.alliances.iter().find(|a| a.armies.iter().any(|x| x == army)).map(|a| a.id.as_str())
    }

    /// Savannah 4.18 "Leader Stacking": whether `leader` may command `unit`.
    /// His army's `leaders_command` (module.yaml) must name the unit's
    /// colour group (without the list, or for a unit of no colour group, the
    /// unit must be of his army), and his own counter's `commands` must
    /// admit it ("Huger may only stack with and command American Militia
    /// and/or artillery").
    pub fn may_command(
        &self,
        leader: &crate::systems::gboar::data::counters::Counter,
        unit: &crate::systems::gboar::data::counters::Counter,
    ) -> bool {
        let groups =
            self.sequence.data.armies.iter().find(|a| a.id == leader.army).and_then(|a| a.leaders_command.as_ref());
        let army_admits = match (groups, &unit.colour_group) {
            (Some(groups), Some(group)) => groups.contains(group),
            _ => unit.army == leader.army,
        };
        army_admits && leader.may_command(unit)
    }

    /// The module's counter `id`. The index maps each id to the place of
    /// the first counter with that id (built in [`Rules::load`]), and the
    /// hash map compares the whole key, so the counter found has that id:
    /// it is not compared again (a million lookups a few self-play games).
    #[inline]
    pub fn counter(&self, id: &str) -> Option<&crate::systems::gboar::data::counters::Counter> {
        self.counter_index.get(id).and_then(|p| self.module.counters.get(p.at))
    }

    /// The side (orders side) of counter `id`'s army, as module.yaml's
    /// `armies` gives it (the first army of that id); none for an unknown
    /// counter or army.
    #[inline]
    pub fn side_of_unit(&self, id: &str) -> Option<&str> {
        let army = self.counter_index.get(id)?.army?;
        self.sequence.data.armies.get(army).map(|a| a.side.as_str())
    }

    /// The player (alliance) of counter `id`'s army, as
    /// [`Rules::player_of_army`] finds it; none for an unknown counter or
    /// an army of no alliance.
    #[inline]
    pub fn player_of_unit(&self, id: &str) -> Option<&str> {
        let alliance = self.counter_index.get(id)?.alliance?;
        self.sequence.data.alliances.get(alliance).map(|a| a.id.as_str())
    }

    /// Counter `id` and its player ([`Rules::counter`] and
    /// [`Rules::player_of_unit`]) from one look-up: what the loops over
    /// every unit of a state ask.
    #[inline]
    pub fn counter_and_player(
        &self,
        id: &str,
    ) -> Option<(&crate::systems::gboar::data::counters::Counter, Option<&str>)> {
        let place = self.counter_index.get(id)?;
        let counter = self.module.counters.get(place.at)?;
        Some((counter, place.alliance.and_then(|a| self.sequence.data.alliances.get(a)).map(|a| a.id.as_str())))
    }

    /// The player (alliance) a side's armies belong to; empty if none.
    pub fn player_of_side(&self, side: &str) -> String {
        self.sequence
            .data
            .armies
            .iter()
            .filter(|a| a.side == side)
            .find_map(|a| self.player_of_army(&a.id))
            .unwrap_or_default()
            .to_string()
    }

    /// Each army's player (alliance), by army id.
    pub fn players_of_armies(&self) -> BTreeMap<String, String> {
        self.sequence
            .data
            .alliances
            .iter()
            .flat_map(|a| a.armies.iter().map(move |army| (army.clone(), a.id.clone())))
            .collect()
    }

    /// Counter `id` as the map draws it in `hex` (`Module::counter_view`);
    /// `None` for no such counter. What a unit looks like depends on its
    /// counter alone, its hex aside: each is made once per rules.
    pub fn counter_look(&self, id: &str, hex: crate::base::hex::HexId) -> Option<crate::base::hexmap::CounterView> {
        let mut looks = self.counter_looks.lock().unwrap_or_else(|e| e.into_inner());
        let look =
            looks.entry(id.to_string()).or_insert_with(|| self.counter(id).map(|c| self.module.counter_view(hex, c)));
        let mut view = look.clone()?;
        view.hex = hex;
        Some(view)
    }

    /// The Terrain Effects Chart's entry for a hex's terrain.
    pub fn terrain_at(&self, hex: crate::base::hex::HexId) -> Option<&crate::systems::gboar::data::charts::HexTerrain> {
        let id = self.module.map.terrain.get(&hex)?;
        self.charts.terrain.hexes.iter().find(|t| &t.id == id)
    }
}

#[cfg(test)]
mod id_hasher_tests {
    use super::IdHasher;
    use std::hash::Hasher;

    /// The words as first written: each chunk of eight copied, the last
    /// one zero-padded.
    fn by_copy(bytes: &[u8]) -> u64 {
        let mut h = IdHasher::default();
        for c in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..c.len()].copy_from_slice(c);
            let w = u64::from_le_bytes(word);
            h.add(if c.len() == 8 { w } else { w ^ ((c.len() as u64) << 59) });
        }
        h.finish()
    }

    #[test]
    fn the_last_word_read_in_place_is_the_padded_copy() {
        let id: Vec<u8> = (1..=40u8).map(|b| b.wrapping_mul(37)).collect();
        for n in 0..=id.len() {
            let mut h = IdHasher::default();
            h.write(&id[..n]);
            assert_eq!(h.finish(), by_copy(&id[..n]), "{n} bytes");
        }
        // Ids that differ in their last byte only, or only in length.
        let hash = |s: &str| {
            let mut h = IdHasher::default();
            h.write(s.as_bytes());
            h.finish()
        };
        assert_ne!(hash("1-bn-fraser"), hash("2-bn-frases"));
        assert_ne!(hash("battery-a"), hash("battery-a\0"));
    }
}
