//! What a scenario file adds to the rules: the movement rules of the
//! scenario (its `fixed_artillery`, zone bans, the sortie restriction, the
//! track switch, turn restrictions) and its reinforcements (series 9.6,
//! with module.yaml `entry_hexes`). Typed data only: the phases read it.

use serde::Deserialize;

/// What a scenario file adds to the Movement Phase. Other keys of the file
/// are for other parts of the engine.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ScenarioMovement {
    #[serde(default)]
    pub fixed_artillery: Option<FixedArtillery>,
    #[serde(default)]
    pub sortie_restriction: Option<SortieRestriction>,
    /// Units with a tag that may never enter a zone (Savannah 4.8).
    #[serde(default)]
    pub zone_bans: Vec<ZoneBan>,
    #[serde(default)]
    pub track_switch: Option<TrackSwitch>,
    /// Rules that hold on some turns only (Savannah Hist. Turn 16).
    #[serde(default)]
    pub turn_restrictions: Vec<TurnRestrictions>,
    /// Turn-dependent rules (Savannah 4.4, 4.6, ...); the sequence reads
    /// those that name a `phase` (phases/mod.rs `offered`).
    #[serde(default)]
    pub turn_rules: Vec<TurnRule>,
    /// The special rules in effect (module.yaml `special_rules` ids); the
    /// map's printed siege works are read only where
    /// `historical-printed-siege-works` is one (Savannah Hist. Special
    /// Rules, 4.4).
    #[serde(default)]
    pub special_rules: Vec<RuleRef>,
}

/// One entry of a scenario's `special_rules`: its id (other keys are for
/// readers).
#[derive(Debug, Clone, Deserialize)]
pub struct RuleRef {
    pub id: String,
}

impl ScenarioMovement {
    /// Whether the scenario lists special rule `id`.
    pub fn has_rule(&self, id: &str) -> bool {
        self.special_rules.iter().any(|r| r.id == id)
    }

    /// Savannah 4.4: the scenario's French siege works rule (the turn rule
    /// of the Construct Siege Works Phase), if it has one.
    pub fn siege_works(&self) -> Option<&TurnRule> {
        self.turn_rules.iter().find(|r| r.phase.as_deref() == Some(CONSTRUCT_SIEGE_WORKS))
    }
}

/// Savannah 3 IV: the phase of the French siege works.
pub const CONSTRUCT_SIEGE_WORKS: &str = "construct-siege-works";

/// A scenario's `turn_rules` entry, as far as the sequence of play needs
/// it: the phase it governs, the turns of its steps, and what must exist
/// before the phase has anything to do. Other keys are the rule's own.
#[derive(Debug, Clone, Deserialize)]
pub struct TurnRule {
    pub id: String,
    #[serde(default)]
    pub phase: Option<String>,
    #[serde(default)]
    pub steps: Vec<TurnRuleStep>,
    #[serde(default)]
    pub requires: Option<String>,
    /// The army that opens the phase (Savannah 4.6: the French).
    #[serde(default)]
    pub first: Option<String>,
    /// Savannah 4.4: where no construction marker may be placed.
    #[serde(default)]
    pub not_in: Option<NotIn>,
    /// Savannah 4.4 Considerations: "The counter mix limits the French
    /// player when deciding which hexsides within a hexagon to fortify".
    #[serde(default)]
    pub counter_mix: Option<CounterMix>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct TurnRuleStep {
    pub turn: u32,
    /// Savannah 4.4: markers placed on earlier turns are flipped now.
    #[serde(default)]
    pub complete_previous: bool,
    /// Savannah 4.4: the construction markers this step may place.
    #[serde(default)]
    pub place: Option<Placement>,
}

/// Savannah 4.4: how many markers a step places, and where.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Placement {
    /// The most markers placed (a number), or `all-remaining` (the counter
    /// mix's markers not yet in play).
    pub markers: MarkerCount,
    /// Exactly this many hexes from the perimeter zone (turn 9's "4 hexes
    /// distant").
    #[serde(default)]
    pub hexes_from_perimeter: Option<u32>,
    /// At least this many hexes from it ("no more than 1 hex closer").
    #[serde(default)]
    pub min_hexes_from_perimeter: Option<u32>,
    /// The first marker placed must be next to a completed siege work hex
    /// ("must extend from the original siege work hex" / "from a
    /// previously completed siege work hex").
    #[serde(default)]
    pub first_extends: bool,
}

/// A step's number of markers.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum MarkerCount {
    Number(u32),
    Word(String),
}

/// Savannah 4.4's "provided that it is not" list (the terrain is the
/// TEC's `siege_works_allowed`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NotIn {
    /// The zone the distances are counted from (map.yaml zones).
    pub perimeter: String,
    #[serde(default)]
    pub adjacent_to_enemy_combat_unit: bool,
    /// Map places where no marker goes.
    #[serde(default)]
    pub places: Vec<String>,
    /// charts/weather.yaml `construction: false` prevents placing,
    /// `completion: false` flipping.
    #[serde(default)]
    pub weather_prevents: bool,
}

/// The siege works counters of the counter mix: how many show each number
/// of entrenched hexsides.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CounterMix {
    pub source: String,
    pub markers: Vec<MixEntry>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MixEntry {
    pub hexsides: u32,
    pub count: u32,
}

impl CounterMix {
    /// All the markers of the mix.
    pub fn total(&self) -> u32 {
        self.markers.iter().map(|m| m.count).sum()
    }
}

/// A turn's restrictions: `restrictions` are `{id, ...}` read by the parts
/// of the engine they concern (close combat reads `no-close-combat-attack`
/// and `must-attack-with-leader`).
#[derive(Debug, Clone, Deserialize)]
pub struct TurnRestrictions {
    pub turn: u32,
    #[serde(default)]
    pub rule: Option<String>,
    #[serde(default)]
    pub restrictions: Vec<crate::base::yaml::Value>,
}

/// Savannah 4.10 British Army Sortie Restriction.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SortieRestriction {
    pub turns: TurnSpan,
    pub armies: Vec<String>,
    pub zone: String,
    pub exempt_tag: String,
    /// Read by the morale checks while the unit is out.
    pub unit_morale_while_sortieing: i32,
    pub rule: String,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnSpan {
    pub first: u32,
    pub last: u32,
}

impl TurnSpan {
    pub fn contains(&self, turn: u32) -> bool {
        (self.first..=self.last).contains(&turn)
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ZoneBan {
    pub tag: String,
    pub zone: String,
    pub rule: String,
}

/// Savannah 1.6, 1.7: the strategic track, on which the Allies may not
/// move combat units next to the perimeter (the parts movement reads).
#[derive(Debug, Clone, Deserialize)]
pub struct TrackSwitch {
    pub strategic: TurnSpan,
    #[serde(default)]
    pub strategic_restriction: Option<StrategicRestriction>,
    /// Case A: the declaration that moves play to the tactical track.
    #[serde(default)]
    pub declaration: Option<Declaration>,
    #[serde(default)]
    pub rule: Option<String>,
}

/// Savannah 1.6 case A: who may declare, on which turns, and the turn play
/// goes to at the end of the game turn.
#[derive(Debug, Clone, Deserialize)]
pub struct Declaration {
    pub by: String,
    pub turns: TurnSpan,
    pub next_turn: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StrategicRestriction {
    pub armies: Vec<String>,
    pub may_not_move_adjacent_to: String,
}

/// A held gun hit with one of these results (charts/codes.yaml symbols)
/// must move back to its at-start hex (`must_return_to: setup-hex`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FireReturn {
    pub results: Vec<String>,
    pub must_return_to: String,
}

/// Savannah Historical Scenario, Special Rules: artillery that may not move
/// until attacked in Close Combat.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixedArtillery {
    pub rule: String,
    /// Counter types held in place.
    pub types: Vec<String>,
    /// The armies whose guns are held (all when empty).
    #[serde(default)]
    pub armies: Vec<String>,
    /// Units that move freely all the same.
    #[serde(default)]
    pub except_units: Vec<String>,
    /// What frees a gun: `attacked-in-close-combat` (the state's `released`).
    pub may_move_after: String,
    /// What Defensive Artillery Fire does to a held gun.
    #[serde(default)]
    pub on_defensive_artillery_fire_result: Option<FireReturn>,
    #[serde(default)]
    pub note: Option<String>,
}

/// The scenario's `reinforcements`.
#[derive(Debug, Clone, Deserialize)]
pub struct Data {
    #[serde(default)]
    pub rule: Option<String>,
    #[serde(default)]
    pub schedule: Vec<Scheduled>,
    /// Savannah 4.7: a blocked entry delays the arrival.
    #[serde(default)]
    pub allied_blocked_entry: Option<BlockedEntry>,
    /// Savannah 4.7: units unable to conform to stacking are delayed.
    #[serde(default)]
    pub overstacked_arrival: Option<OverstackedArrival>,
    /// Series 9.61: reinforcements may always be voluntarily delayed unless
    /// the exclusive rules forbid it.
    #[serde(default = "yes")]
    pub voluntary_delay: bool,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Clone, Deserialize)]
pub struct Scheduled {
    pub turn: u32,
    pub army: String,
    pub entry: String,
    pub units: Vec<String>,
    #[serde(default)]
    pub arrival: Option<ArrivalLimits>,
    #[serde(default)]
    pub note: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArrivalLimits {
    #[serde(default)]
    pub max_hexes: Option<u32>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct BlockedEntry {
    pub delay_turns: u32,
    #[serde(default)]
    pub armies: Vec<String>,
    #[serde(default)]
    pub pays_terrain_cost: bool,
    pub rule: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct OverstackedArrival {
    pub delay_turns: u32,
    #[serde(default)]
    pub priority_next_turn: bool,
    pub rule: String,
}

/// module.yaml `entry_hexes`: what the letters mean beyond their hexes.
#[derive(Debug, Clone, Deserialize)]
pub struct EntryDef {
    pub letter: String,
    #[serde(default)]
    pub armies: Vec<String>,
    #[serde(default = "yes")]
    pub strategic_movement_on_arrival: bool,
    #[serde(default)]
    pub variable: Option<Variable>,
    #[serde(default)]
    pub headquarters_of: Option<String>,
    #[serde(default)]
    pub if_enemy_occupied: Option<IfEnemyOccupied>,
    #[serde(default)]
    pub rule: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Variable {
    pub chart: String,
    #[serde(default)]
    pub letters: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct IfEnemyOccupied {
    pub enter_in_zone: String,
    /// The Army Morale Adjustment Chart entry applied when they are lost.
    #[serde(default)]
    pub army_morale_adjustment: Option<String>,
}
