//! The state of a game between two steps, and its stable hash.
//!
//! Only integers, strings and `BTreeMap`s: the same state serialises to the
//! same bytes on any machine, and its SHA-256 is what the journal records
//! and `verify` compares after replaying a step (DICE.md §6.4).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::base::dice::Bytes32;
use crate::base::error::{Error, Located, Result};
use crate::base::hex::HexId;
use crate::systems::gboar::data::counters::{setup_positions, ScenarioSetup};
use crate::systems::gboar::data::sequence::{Sequence, Step};
use crate::systems::gboar::data::{Module, Source};

/// A unit's condition (series 13.3, 13.4, 15).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Condition {
    ParadeOrder,
    Disrupted,
    Shattered,
}

/// Where a unit is that is not on the map.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OffMap {
    /// Not yet arrived (series 9.6).
    Reinforcement,
    /// Captured (13.23) or eliminated: the boxes of the VP track.
    Captured,
    Eliminated,
    /// Removed from play with no VP or army morale consequence (a
    /// reinforcement that never arrives, Savannah 1.6, 4.7).
    Removed,
}

/// A reinforcement's arrival (series 9.6, Savannah 4.7): when, where, and
/// what the turn of arrival gives it. Set by the Reinforcement Phase (or the
/// beginning of the Movement Phase); the unit is placed when its player's
/// Movement Phase begins, and the arrival is forgotten when it ends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Arrival {
    /// The game turn it enters.
    pub turn: u32,
    /// The entry letter (module.yaml `entry_hexes`).
    pub entry: String,
    /// Where it may be placed; the owner chooses among several.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hexes: Vec<String>,
    /// Savannah 4.7: MPs added on the turn of arrival.
    #[serde(default, skip_serializing_if = "is_zero_i32")]
    pub mp_bonus: i32,
    /// Savannah 4.7: artillery MPs multiplied on the turn of arrival.
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub artillery_mp_multiplier: i32,
    /// Savannah 4.7: strategic movement on the turn of arrival.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub strategic_movement: bool,
    /// Reinforcement Schedule: "may only move 1 space on turn of arrival".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_hexes: Option<u32>,
    /// Savannah 4.7: placed in the nearest free hex after a blocked entry,
    /// paying the hex's terrain cost.
    #[serde(default, skip_serializing_if = "is_false")]
    pub pays_entry_cost: bool,
    /// Savannah 4.7: delayed because the entry was blocked.
    #[serde(default, skip_serializing_if = "is_false")]
    pub blocked: bool,
    /// Savannah 4.7: delayed for being unable to conform to stacking; enters
    /// ahead of later arrivals at the same hex.
    #[serde(default, skip_serializing_if = "is_false")]
    pub priority: bool,
}

fn one() -> i32 {
    1
}

fn yes() -> bool {
    true
}

fn is_one(n: &i32) -> bool {
    *n == 1
}

fn is_true(b: &bool) -> bool {
    *b
}

fn is_zero_i32(n: &i32) -> bool {
    *n == 0
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnitState {
    /// The hex, or absent when the unit is off the map.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hex: Option<HexId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub off_map: Option<OffMap>,
    /// Steps left: 2 at full strength for a two-step unit (series 2.2).
    pub steps: u8,
    pub condition: Condition,
    /// Series 13.1 PIN.
    #[serde(default, skip_serializing_if = "is_false")]
    pub pinned: bool,
    /// 13.1 PIN: which PIN result pinned the unit (the close combat that
    /// gave it), since army morale pays per PIN result removed (9.3, 13.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pin_result: Option<String>,
    /// Savannah 4.9: lost on the Covered Way.
    #[serde(default, skip_serializing_if = "is_false")]
    pub lost: bool,
    /// Savannah 4.9: the Lost marker flipped to its Previously Lost side.
    #[serde(default, skip_serializing_if = "is_false")]
    pub previously_lost: bool,
    /// Savannah 4.9: Covered Way hexes entered on this march along it.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub covered_way_hexes: u32,
    /// An artillery unit a scenario holds in place until it is attacked in
    /// Close Combat (Savannah Historical Scenario) that has been attacked.
    #[serde(default, skip_serializing_if = "is_false")]
    pub released: bool,
    /// Savannah Hist. Special Rules: a held gun hit by Defensive Artillery
    /// Fire with a D or R must move back to its at-start hex as quickly as
    /// it can.
    #[serde(default, skip_serializing_if = "is_false")]
    pub must_return: bool,
    /// 12.4: the unit carries a Cavalry Withdrawal marker.
    #[serde(default, skip_serializing_if = "is_false")]
    pub cavalry_withdrawn: bool,
    /// Savannah 4.12: the turn a mortar moved ('Mortar Moved'): on the
    /// Tactical Turn Track it may not fire that turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mortar_moved_turn: Option<u32>,
    /// Savannah 4.12: a disabled mortar may not fire before this turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_fire_until: Option<u32>,
    /// 10.5: the unit has used its first fire (the first-fire bonus is gone).
    #[serde(default, skip_serializing_if = "is_false")]
    pub first_fire_used: bool,
    /// Savannah 4.10: the leader this unit sortied with, while it is out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sortie_with: Option<String>,
    /// Savannah 4.10: an exempt unit that has been inside the perimeter,
    /// and is restricted from then on.
    #[serde(default, skip_serializing_if = "is_false")]
    pub been_inside: bool,
    /// A reinforcement's arrival, once the Reinforcement Phase has set it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arriving: Option<Arrival>,
}

impl UnitState {
    /// A unit at full strength in Parade Order, on the map at `hex` or off it.
    pub fn fresh(hex: Option<HexId>, off_map: Option<OffMap>, steps: u8) -> UnitState {
        UnitState {
            hex,
            off_map,
            steps,
            condition: Condition::ParadeOrder,
            pinned: false,
            pin_result: None,
            lost: false,
            previously_lost: false,
            covered_way_hexes: 0,
            released: false,
            must_return: false,
            cavalry_withdrawn: false,
            mortar_moved_turn: None,
            no_fire_until: None,
            first_fire_used: false,
            sortie_with: None,
            been_inside: false,
            arriving: None,
        }
    }

    /// The unit leaves the map for `off` (eliminated, captured, removed by a
    /// card): off its hex, and without the markers of the map on it. 13.1
    /// PIN: the marker stays on the map with the units engaged; a unit that
    /// leaves takes none away with it (self-play found a card's removal that
    /// left one on a counter out of play).
    pub fn leave_map(&mut self, off: OffMap) {
        self.hex = None;
        self.off_map = Some(off);
        self.pinned = false;
        self.pin_result = None;
    }
}

/// A lasting effect of a Random Events card (Savannah 4.3; cards.yaml's
/// `drm`, `skip-phase`, `movement-bonus`, `ignore-lost-roll`): made when
/// the card is played, read where its rule applies (effects/card_effects.rs),
/// spent by the roll it modifies (scope `one-roll`) or at the end of `turn`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CardEffect {
    /// The card played.
    pub card: String,
    /// The effect kind (cards.yaml `effects[].effect`).
    pub effect: String,
    /// The player who played it (an alliance id).
    pub player: String,
    /// The game turn it was played; it lasts that turn at most.
    pub turn: u32,
    /// `drm`: the roll it modifies (close-combat, initiative, morale-check, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub applies_to: Option<String>,
    /// `drm`: the modifier; `movement-bonus`: the MPs.
    #[serde(default, skip_serializing_if = "is_zero_i32")]
    pub value: i32,
    /// `drm`: one-roll or this-turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// `drm`: attacking, defending, attacking-fieldworks or enemy-roll.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
    /// `skip-phase`: the armies that may not perform the phases.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub armies: Vec<String>,
    /// `skip-phase`: the phases.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub phases: Vec<String>,
    /// `movement-bonus`, `ignore-lost-roll`: the units (of the stacks) it
    /// was played for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub units: Vec<String>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct State {
    pub module: String,
    pub scenario: String,
    /// How many journal steps led here (0 at set-up).
    #[serde(default)]
    pub resolved_steps: u32,
    pub turn: u32,
    /// The order of this turn's player turns, once known (fixed by the
    /// scenario, or found by the initiative step, series 6).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub player_order: Vec<String>,
    /// The player who went first this turn (series 6: who "had the
    /// initiative"); the one who decides first on momentum next turn (12.62).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initiative_holder: Option<String>,
    /// How the game ended, once it has (Savannah 2; series 16.3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<crate::system::GameResult>,
    /// The next step to resolve; absent when the game is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<Step>,
    /// This turn's weather (a condition of charts/weather.yaml), when the
    /// scenario has weather (Savannah 4.2); it lasts the whole turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weather: Option<String>,
    /// Savannah 1.6 case A: the Allies have declared their assault, and
    /// play moves (or has moved) to the Tactical Turn Track.
    #[serde(default, skip_serializing_if = "is_false")]
    pub assault_declared: bool,
    /// Savannah 1.6, 4.14: the last turn played on the Strategic Turn
    /// Track, once play has moved to the Tactical one (by case A or B);
    /// "Any modifiers in effect when the game switches ... are carried over".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategic_turn_last: Option<u32>,
    /// Army morale per army (series 16; Savannah 1.3).
    pub army_morale: BTreeMap<String, i32>,
    /// Momentum chits per holder (series 12.61; Savannah 1.4: the Allies hold theirs jointly).
    pub momentum: BTreeMap<String, u32>,
    /// Victory points per army, in halves (Savannah 2.9).
    pub vp_halves: BTreeMap<String, i32>,
    /// Random Events cards in each player's hand (Savannah 4.3), by card id.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub cards: BTreeMap<String, Vec<String>>,
    /// Random Events cards played (or set aside), in the order they left
    /// the game: neither in the deck nor in a hand (Savannah 4.3).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub played_cards: Vec<String>,
    /// Savannah 4.3: the lasting effects of cards played and not yet spent
    /// or expired (a DRM for a later roll, a phase skipped, MPs for a
    /// Movement Phase, stacks that need not roll for getting lost).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub card_effects: Vec<CardEffect>,
    /// Series 7.4 under module.yaml `intelligence: hidden-stacks`: the
    /// enemy units each side has examined (in its fire targets' hexes, next
    /// to its units in its Close Combat Phase, or by order) and the hex it
    /// saw each in, by side and unit; a unit is forgotten once it leaves
    /// that hex. Always empty when every stack is open.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub examined: BTreeMap<String, BTreeMap<String, String>>,
    pub units: crate::systems::gboar::board::unit_map::UnitMap,
    /// Savannah 4.4, 4.5: the French siege works on the map, construction
    /// markers and completed works, in the order placed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub siege_works: Vec<SiegeWork>,
    /// Savannah 4.5, 4.6: the breached fieldwork hexsides of the map
    /// (`1805/1806`, lower hex first), sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub breaches: Vec<String>,
    /// Savannah 2.1, 4.7, 4.19: the destroyed hexes of the City of Savannah, sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub destroyed_hexes: Vec<String>,
    /// Savannah 4.4 (a Random Events card): construction markers the French
    /// may place this turn beyond the step's number; spent by the Construct
    /// Siege Works Phase, forgotten at the end of the turn.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub extra_construction_markers: u32,
    /// Savannah 4.14 (a Random Events card): the British works are complete
    /// ahead of schedule; the Incomplete British Defenses DRMs end.
    #[serde(default, skip_serializing_if = "is_false")]
    pub british_works_complete: bool,
    /// Savannah 4.6: the French have rolled on the S&B table; from then on
    /// the British may respond ("The British player may not be the first
    /// player to use Siege and Bombardment").
    #[serde(default, skip_serializing_if = "is_false")]
    pub bombardment_begun: bool,
    /// Savannah 4.13: while one close combat is resolved, the army that
    /// receives the army morale adjustments and VPs of another ("If Army
    /// Morale adjustments or Victory Points result while Pulaski is
    /// cooperating with the French, those adjustments or VPs are applied to
    /// the French"; module.yaml `close_combat.cooperation_credit`). Set and
    /// cleared by the Close Combat Phase around each combat; empty
    /// otherwise, never saved.
    #[serde(skip)]
    pub credit: BTreeMap<String, String>,
}

impl State {
    /// The army that receives an adjustment or VPs of `army` now: itself,
    /// or the army [`State::credit`] names for it (Savannah 4.13).
    pub fn credited<'a>(&'a self, army: &'a str) -> &'a str {
        self.credit.get(army).map(String::as_str).unwrap_or(army)
    }
}

/// A French siege work (Savannah 4.4): a construction marker in `hex`, or
/// once flipped a completed work whose entrenched hexsides face the hexes
/// of `toward` (the white symbols of its counter).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiegeWork {
    pub hex: String,
    /// The adjacent hexes its entrenched hexsides face, chosen when the
    /// marker is flipped (4.4); empty under construction.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub toward: Vec<String>,
    /// The turn the construction marker was placed.
    pub placed: u32,
    /// Flipped to its completed side (4.4); under construction until then.
    #[serde(default, skip_serializing_if = "is_false")]
    pub completed: bool,
    /// Savannah 4.5: the hexes of `toward` whose hexside is breached.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub breached: Vec<String>,
}

/// Savannah 1.6, 4.2: the weather the chart fixes for `turn` of the
/// state's scenario (`fixed`; entries marked `assault_declared` only after
/// the Allies' early declaration, the others only without it; the first
/// listed of those that cover the turn), unless it is `last-rolled`.
pub fn fixed_weather<'a>(
    chart: &'a crate::systems::gboar::data::charts::WeatherFile,
    state: &State,
    turn: u32,
) -> Option<&'a str> {
    chart
        .fixed
        .iter()
        .filter(|f| f.scenarios.contains(&state.scenario) && f.assault_declared == state.assault_declared)
        .flat_map(|f| f.turns.iter())
        .find(|t| (t.turn..=t.last.unwrap_or(t.turn)).contains(&turn))
        .map(|t| t.weather.as_str())
        .filter(|w| *w != crate::systems::gboar::data::charts::LAST_ROLLED)
}

/// Whether what a scenario's turn rule `requires` exists in `state`
/// (Savannah 4.6: `completed-siege-work-hexside`: "at least 1 completed
/// siege work hexside in play. Construction markers do not satisfy this
/// requirement"; a breached hexside is still in play). An unknown
/// requirement never holds.
pub fn exists(state: &State, requirement: &str) -> bool {
    match requirement {
        COMPLETED_SIEGE_WORK_HEXSIDE => state.siege_works.iter().any(|w| w.completed && !w.toward.is_empty()),
        _ => false,
    }
}

/// Savannah 4.6's prerequisite, as scenario files name it.
pub const COMPLETED_SIEGE_WORK_HEXSIDE: &str = "completed-siege-work-hexside";

/// The units of a scenario's reinforcement schedule.
#[derive(Debug, Clone, Deserialize)]
struct ScenarioReinforcementUnits {
    #[serde(default)]
    reinforcements: Option<ScheduleUnits>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum ScheduleUnits {
    Schedule {
        #[serde(default)]
        schedule: Vec<ScheduledUnits>,
    },
    List(Vec<ScheduledUnits>),
}

#[derive(Debug, Clone, Deserialize)]
struct ScheduledUnits {
    units: Vec<String>,
}

/// The parts of a scenario file that set the state up.
#[derive(Debug, Clone, Deserialize)]
struct ScenarioStart {
    turns: StartTurns,
    army_morale: BTreeMap<String, crate::base::yaml::Value>,
    momentum: BTreeMap<String, crate::base::yaml::Value>,
}

#[derive(Debug, Clone, Deserialize)]
struct StartTurns {
    first: u32,
}

fn integers(map: &BTreeMap<String, crate::base::yaml::Value>) -> BTreeMap<String, i64> {
    map.iter().filter_map(|(k, v)| v.as_i64().map(|n| (k.clone(), n))).collect()
}

impl State {
    /// The state at the start of a scenario: every unit at its set-up hex at
    /// full strength in Parade Order; army morale and momentum as the
    /// scenario gives them.
    pub fn setup(module: &Module, scenario: &str) -> Result<State> {
        let sequence = Sequence::load(&module.source, scenario)?;
        Self::setup_with(module, &sequence, scenario, None)
    }

    /// As [`State::setup`], with the scenario's sequence of play already
    /// read, and the charts too when the caller has them (`Rules` loaded
    /// them; else they are read here, for the weather chart).
    pub fn setup_with(
        module: &Module,
        sequence: &Sequence,
        scenario: &str,
        charts: Option<&crate::systems::gboar::data::charts::Charts>,
    ) -> Result<State> {
        module.info.scenario(scenario)?;
        let file = format!("scenarios/{scenario}.yaml");
        let source: &Source = &module.source;
        let (start, _): (ScenarioStart, _) = source.parse(&file)?;
        let (setup, _): (ScenarioSetup, _) = source.parse(&file)?;
        let placed = setup_positions(&module.counters, &setup, &source.label(&file))?;
        let mut units = BTreeMap::new();
        for (hex, counter) in placed {
            let steps = if counter.is_leader() { 1 } else { counter.steps.unwrap_or(1) };
            let unit = UnitState::fresh(Some(hex), None, steps);
            if units.insert(counter.id.clone(), unit).is_some() {
                return Err(Error::Data(Located {
                    file: source.label(&file),
                    line: None,
                    column: None,
                    field: "units".into(),
                    message: format!("{} is placed twice", counter.id),
                    code: None,
                }));
            }
        }
        // Series 9.6: the scenario's reinforcements are off the map until
        // they arrive.
        let (later, _): (ScenarioReinforcementUnits, _) = source.parse(&file)?;
        let groups = match later.reinforcements {
            Some(ScheduleUnits::Schedule { schedule }) | Some(ScheduleUnits::List(schedule)) => schedule,
            None => Vec::new(),
        };
        for group in groups {
            for id in group.units {
                let Some(counter) = module.counters.iter().find(|c| c.id == id) else {
                    return Err(Error::Data(Located {
                        file: source.label(&file),
                        line: None,
                        column: None,
                        field: "reinforcements.schedule".into(),
                        message: format!("no counter '{id}' in counters.yaml"),
                        code: None,
                    }));
                };
                let steps = if counter.is_leader() { 1 } else { counter.steps.unwrap_or(1) };
                units.entry(id).or_insert(UnitState::fresh(None, Some(OffMap::Reinforcement), steps));
            }
        }
        let narrow = |map: BTreeMap<String, i64>| -> BTreeMap<String, i32> {
            map.into_iter().filter_map(|(k, v)| i32::try_from(v).ok().map(|v| (k, v))).collect()
        };
        let army_morale = narrow(integers(&start.army_morale));
        let momentum =
            integers(&start.momentum).into_iter().filter_map(|(k, v)| u32::try_from(v).ok().map(|v| (k, v))).collect();
        let vp_halves = army_morale.keys().map(|army| (army.clone(), 0)).collect();
        let turn = start.turns.first;
        let player_order = sequence.fixed_order(turn)?.unwrap_or_default();
        let next = sequence.first_step(turn, &player_order)?;
        let mut state = State {
            module: module.info.id.clone(),
            scenario: scenario.to_string(),
            resolved_steps: 0,
            turn,
            initiative_holder: player_order.first().cloned(),
            player_order,
            result: None,
            next,
            weather: None,
            assault_declared: false,
            strategic_turn_last: None,
            army_morale,
            momentum,
            vp_halves,
            cards: BTreeMap::new(),
            played_cards: Vec::new(),
            card_effects: Vec::new(),
            examined: BTreeMap::new(),
            units: units.into(),
            siege_works: Vec::new(),
            breaches: Vec::new(),
            destroyed_hexes: Vec::new(),
            extra_construction_markers: 0,
            british_works_complete: false,
            bombardment_begun: false,
            credit: BTreeMap::new(),
        };
        // The first turn's weather, where the weather chart fixes it.
        let loaded;
        let charts = match charts {
            Some(charts) => charts,
            None => {
                loaded = crate::systems::gboar::data::charts::load(source).map_err(|list| {
                    Error::refused(
                        list.first().map(|l| l.to_string()).unwrap_or_else(|| "the charts do not load".into()),
                    )
                })?;
                &loaded
            }
        };
        state.weather = fixed_weather(&charts.weather, &state, turn).map(str::to_string);
        Ok(state)
    }

    /// Series 12.61: the chits left in the pool, the module's `pool` less
    /// those held (a chit spent goes back to the pool, 12.62).
    pub fn momentum_pool(&self, pool: u32) -> u32 {
        pool.saturating_sub(self.momentum.values().sum())
    }

    /// The canonical bytes of the state: JSON with sorted keys.
    pub fn canonical_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("a State always serialises")
    }

    /// The stable hash the journal records.
    pub fn hash(&self) -> Bytes32 {
        Bytes32::sha256(&self.canonical_bytes())
    }
}

/// A step resolved.
#[derive(Debug, Clone)]
pub struct Resolution {
    pub state: State,
    pub events: Vec<crate::system::Event>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn savannah() -> Module {
        Module::load(&Source::Embedded("savannah-1779".into())).unwrap_or_else(|e| panic!("{:?}", e.lines()))
    }

    /// Historical Scenario: turn 16, army morale 14/13/12, one Allied chit.
    #[test]
    fn historical_set_up() {
        let state = State::setup(&savannah(), "historical").unwrap();
        assert_eq!(state.turn, 16);
        assert_eq!(state.army_morale.get("british"), Some(&14));
        assert_eq!(state.army_morale.get("american"), Some(&13));
        assert_eq!(state.army_morale.get("french"), Some(&12));
        assert_eq!(state.momentum.get("allies"), Some(&1));
        assert_eq!(state.momentum.get("british"), Some(&0));
        // Hist. Set Up: the Chatham County Tory Militia and the Creeks are not used.
        assert!(!state.units.contains_key("creek-indians"));
        assert!(state.units.contains_key("dillon-irish"));
        assert!(state.units.values().all(|u| u.condition == Condition::ParadeOrder && u.hex.is_some()));
        // Hist. Turn 16 Restrictions: Fog.
        assert_eq!(state.weather.as_deref(), Some("fog"));
        // 12.61: the pool is what no one holds (the Allies hold one).
        assert_eq!(state.momentum_pool(5), 4);
        assert_eq!(state.momentum_pool(0), 0);
    }

    #[test]
    fn the_hash_is_stable_and_sensitive() {
        let module = savannah();
        let a = State::setup(&module, "historical").unwrap();
        let b = State::setup(&module, "historical").unwrap();
        assert_eq!(a.hash(), b.hash());
        let mut c = b.clone();
        c.units.get_mut("dillon-irish").unwrap().pinned = true;
        assert_ne!(a.hash(), c.hash());
        // The canonical bytes read back to the same state.
        let back: State = serde_json::from_slice(&a.canonical_bytes()).unwrap();
        assert_eq!(back, a);
    }

    /// Campaign Game: turn 1, 19/18/17, only the British at-start units on
    /// the map, von Porbeck in 1805 and Graham's Light Infantry in 1803.
    #[test]
    fn campaign_set_up() {
        let state = State::setup(&savannah(), "campaign").unwrap();
        assert_eq!(state.turn, 1);
        assert_eq!(state.army_morale.get("british"), Some(&19));
        assert_eq!(state.units["von-porbeck"].hex.map(|h| h.to_string()).as_deref(), Some("1805"));
        assert_eq!(state.units["grahams-light-infantry"].hex.map(|h| h.to_string()).as_deref(), Some("1803"));
        assert_eq!(state.units["destaing"].off_map, Some(OffMap::Reinforcement), "the French arrive as reinforcements");
        assert_eq!(state.units["destaing"].hex, None);
    }
}
