//! The charts of a module (`charts/*.yaml` and `cards.yaml`, documented in
//! docs/module-format/charts.md): read into typed structs, then checked whole.
//!
//! No chart value lives in this file. The engine reads the Fire Table, the
//! Close Combat Table, the Tactics Matrix, the Terrain Effects Chart and the
//! rest from [`Charts`]; swapping a stand-in value for the printed one
//! changes no code. What the code does know is the schema: the file names,
//! the fields, the few ids the rules themselves name (the 13.1 result codes
//! the combination rules speak of, the `from:` paths of the DRM charts) and
//! the parameters of the effect vocabulary that refer to other data.
//!
//! [`load`] reads every file and reports every file's problems at once;
//! [`check`] verifies what the schema implies (tables without holes, every
//! reference resolved, counts that match) against the rest of the module,
//! which [`Context`] carries.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::de::{self, DeserializeOwned, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;

use super::counters::Counter;
use super::Source;
use crate::base::error::{Error, Located};
use crate::base::hex::HexId;
use crate::base::hexmap::{Map, RoadKind};
use crate::system::ModuleInfo;

// ---------------------------------------------------------------------------
// The files

/// 13.1: the combat result codes, side references and effect vocabulary.
pub const CODES: &str = "charts/codes.yaml";
/// 10.3, 11.3: the Fire Table, both Fire Damage Tables, the Fire Combat DRMs.
pub const FIRE: &str = "charts/fire.yaml";
/// 12.23: the Close Combat Table.
pub const CLOSE_COMBAT: &str = "charts/close-combat.yaml";
/// 12.23 step 3: the Close Combat DRM Chart.
pub const CLOSE_COMBAT_DRMS: &str = "charts/close-combat-drms.yaml";
/// 12.5: the Tactics Chits and the Tactics Matrix.
pub const TACTICS: &str = "charts/tactics.yaml";
/// 9: the Terrain Effects Chart.
pub const TERRAIN: &str = "charts/terrain.yaml";
/// 16: the Army Morale Track and Adjustment Chart.
pub const ARMY_MORALE: &str = "charts/army-morale.yaml";
/// 13.5, 15: the morale check and rally modifiers.
pub const MORALE_CHECK: &str = "charts/morale-check.yaml";
/// 13.1 "*", 16.1: the Leader Casualty Table.
pub const LEADER_CASUALTY: &str = "charts/leader-casualty.yaml";
/// Savannah 1.6, 4.2: the Weather Table.
pub const WEATHER: &str = "charts/weather.yaml";
/// Savannah 3, 4.5, 4.6: the Siege & Bombardment Tables.
pub const SIEGE_BOMBARDMENT: &str = "charts/siege-bombardment.yaml";
/// Savannah 4.12: the Mortar tables.
pub const MORTAR: &str = "charts/mortar.yaml";
/// Savannah 4.9: the Covered Way 'Lost' roll.
pub const COVERED_WAY: &str = "charts/covered-way.yaml";
/// Savannah 4.7: the French variable entry roll.
pub const FRENCH_VARIABLE_ENTRY: &str = "charts/french-variable-entry.yaml";
/// Savannah 2.1: the British Surrender Die Roll.
pub const SURRENDER: &str = "charts/surrender.yaml";
/// Savannah 2.9: the Victory Point schedule.
pub const VICTORY_POINTS: &str = "charts/victory-points.yaml";
/// Savannah 4.3: the Random Events deck.
pub const CARDS: &str = "cards.yaml";

/// Every chart file of a module, as [`Source::parse`] names them.
pub const FILES: [&str; 17] = [
    CODES,
    FIRE,
    CLOSE_COMBAT,
    CLOSE_COMBAT_DRMS,
    TACTICS,
    TERRAIN,
    ARMY_MORALE,
    MORALE_CHECK,
    LEADER_CASUALTY,
    WEATHER,
    SIEGE_BOMBARDMENT,
    MORTAR,
    COVERED_WAY,
    FRENCH_VARIABLE_ENTRY,
    SURRENDER,
    VICTORY_POINTS,
    CARDS,
];

// ---------------------------------------------------------------------------
// Shared pieces

/// Series 2.3: the die a chart is read with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum Die {
    /// One ten-sided die read 0-9; the 0 is a zero (series 2.3).
    #[serde(rename = "d10")]
    D10,
}

impl Die {
    /// The lowest and highest unmodified roll.
    pub fn faces(self) -> (i32, i32) {
        match self {
            Die::D10 => (0, 9),
        }
    }
}

/// A band of rolls, SPs or turns, inclusive. An omitted `min` is "or less"
/// (first band only), an omitted `max` "or more" (last band only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Band {
    pub min: Option<i32>,
    pub max: Option<i32>,
}

impl Band {
    pub fn contains(&self, n: i32) -> bool {
        self.min.is_none_or(|m| n >= m) && self.max.is_none_or(|m| n <= m)
    }
}

/// A closed range of integers, both ends given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Range {
    pub min: i32,
    pub max: i32,
}

/// An id and what it means (side references, timings, flags, table results).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IdText {
    pub id: String,
    pub text: String,
}

/// A die roll modifier. The engine knows each `id` and implements its
/// condition (with the rule number in its doc comment); the chart holds only
/// the value: exactly one of `value`, `schedule` or `from`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Drm {
    pub id: String,
    /// A fixed modifier.
    pub value: Option<i32>,
    /// A value by game turn (Savannah 4.14).
    pub schedule: Option<Vec<ScheduledValue>>,
    /// Read from another chart (`terrain.yaml hexes[].close_combat_drm`) or
    /// from a counter (`counter ...`, with `sign` and `bounds`).
    pub from: Option<String>,
    /// With a counter: 1 adds its value, -1 subtracts it (14.21).
    pub sign: Option<i32>,
    /// With a counter: the range of its value this module allows; the Close
    /// Combat Table covers every roll these bounds can make (12.23).
    pub bounds: Option<Range>,
    /// Only one entry of a group applies to one roll.
    pub group: Option<String>,
    /// The value counts once per thing named (`step`, `city-hex`, `battery`).
    pub per: Option<String>,
    /// Savannah 4.9: the value counts once per this many hexes (rounded down).
    pub per_hexes: Option<u32>,
    /// With `per`: the most the entry adds up to.
    pub max: Option<i32>,
    /// The game turns on which the entry applies (Savannah 4.2).
    #[serde(default)]
    pub turns: Vec<u32>,
    #[serde(default)]
    pub sides: Vec<String>,
    #[serde(default)]
    pub applies_to: Vec<String>,
    /// Only in these scenarios.
    #[serde(default)]
    pub scenarios: Vec<String>,
    pub text: Option<String>,
    pub note: Option<String>,
    pub source: String,
}

/// One step of a DRM schedule: the value during a band of game turns.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScheduledValue {
    pub turns: Band,
    pub value: i32,
}

/// A table of DRMs.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DrmTable {
    pub id: String,
    pub name: String,
    pub source: String,
    pub note: Option<String>,
    pub entries: Vec<Drm>,
}

/// What a Siege & Bombardment result or a Random Events card does: an effect
/// id of codes.yaml and exactly its params.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Effect {
    pub effect: String,
    #[serde(flatten)]
    pub params: BTreeMap<String, Param>,
}

/// The value of an effect's parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Param {
    Int(i32),
    Word(String),
    List(Vec<String>),
}

impl Param {
    pub fn as_word(&self) -> Option<&str> {
        match self {
            Param::Word(w) => Some(w),
            _ => None,
        }
    }
}

/// An integer or a word: what a Tactics Matrix cell, a movement cost or a
/// hand limit is written as.
enum Scalar {
    Int(i32),
    Word(String),
}

struct ScalarVisitor;

fn int_from<E: de::Error, T: TryInto<i32> + fmt::Display + Copy>(v: T) -> Result<i32, E> {
    v.try_into().map_err(|_| E::custom(format!("{v} is out of range for a chart value")))
}

fn no_float<T, E: de::Error>(v: f64) -> Result<T, E> {
    Err(E::custom(format!(
        "{v} is a float; charts hold integers only (odds are pairs [3, 2], VPs are counted in halves)"
    )))
}

impl<'de> Visitor<'de> for ScalarVisitor {
    type Value = Scalar;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an integer or a word")
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Scalar, E> {
        int_from(v).map(Scalar::Int)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Scalar, E> {
        int_from(v).map(Scalar::Int)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Scalar, E> {
        no_float(v)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Scalar, E> {
        Ok(Scalar::Word(v.to_string()))
    }
}

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ScalarVisitor)
    }
}

struct ParamVisitor;

impl<'de> Visitor<'de> for ParamVisitor {
    type Value = Param;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an integer, a word or a list of words")
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Param, E> {
        int_from(v).map(Param::Int)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Param, E> {
        int_from(v).map(Param::Int)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Param, E> {
        no_float(v)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Param, E> {
        Ok(Param::Word(v.to_string()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Param, A::Error> {
        let mut words = Vec::new();
        while let Some(w) = seq.next_element::<String>()? {
            words.push(w);
        }
        Ok(Param::List(words))
    }
}

impl<'de> Deserialize<'de> for Param {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ParamVisitor)
    }
}

// ---------------------------------------------------------------------------
// codes.yaml

/// `charts/codes.yaml`: the ids every chart shares.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CodesFile {
    pub source: String,
    pub rules: Vec<String>,
    /// 13.1: the ten combat results; a side's result in a chart is a list of these ids.
    pub combat_results: Vec<CombatResult>,
    /// How codes combine in one side's result (the data check implements them).
    #[serde(default)]
    pub combination_rules: Vec<String>,
    /// Who an effect or adjustment applies to.
    pub side_refs: Vec<IdText>,
    /// What an S&B result or a card does.
    pub effects: Vec<EffectDef>,
}

/// 13.1: one combat result code.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CombatResult {
    pub id: String,
    /// What the printed chart shows (`R`, `AM`, `*`).
    pub symbol: String,
    pub source: String,
    pub text: String,
}

/// One effect of the vocabulary and the params every use of it gives.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EffectDef {
    pub id: String,
    pub params: Vec<String>,
    pub text: String,
}

// ---------------------------------------------------------------------------
// fire.yaml

/// `charts/fire.yaml`: Rifle Fire (10) and Defensive Artillery Fire (11).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FireFile {
    pub source: String,
    pub rules: Vec<String>,
    pub die: Die,
    /// 10.3 step 1, 11.2: SPs against range gives the To Hit number.
    pub fire_table: ToHitTable,
    /// 10.3 step 3: read with an unmodified roll.
    pub rifle_fire_damage: DamageTable,
    /// 11.3 step 3: read with an unmodified roll (also French mortars, Savannah 4.12).
    pub artillery_fire_damage: DamageTable,
    /// 10.3 step 2, 11.3 step 2: positive helps the firer.
    pub fire_drms: DrmTable,
}

/// 10.3, 11.2; Savannah 4.12: a To Hit table, SP bands against range.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToHitTable {
    pub id: String,
    pub name: String,
    pub source: String,
    pub structure: Option<String>,
    pub note: Option<String>,
    /// 11.2: ranges in hexes counting the target's hex; 1 is 10.3's 'adjacent'.
    pub ranges: Vec<u32>,
    pub rows: Vec<ToHitRow>,
}

/// One SP band: a hit is a modified roll equal to or greater than the number (10.3 step 2).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToHitRow {
    /// SP bands from 1 up, the last open.
    pub sp: Band,
    /// Range to To Hit number, for every range of the table.
    pub to_hit: BTreeMap<u32, i32>,
    pub source: Option<String>,
    pub note: Option<String>,
}

/// 10.3 step 3, 11.3 step 3: a Fire Damage Table, one row per unmodified roll.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DamageTable {
    pub id: String,
    pub name: String,
    pub source: String,
    pub structure: Option<String>,
    pub note: Option<String>,
    pub rows: Vec<DamageRow>,
}

/// 13.1: the rows carrying `leader-casualty` are the table's leader casualty numbers.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DamageRow {
    pub roll: i32,
    pub result: Vec<String>,
    pub source: Option<String>,
    pub note: Option<String>,
}

// ---------------------------------------------------------------------------
// close-combat.yaml

/// `charts/close-combat.yaml`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CloseCombatFile {
    pub source: String,
    pub rules: Vec<String>,
    pub die: Die,
    pub close_combat_table: CloseCombatTable,
}

/// 12.23 step 5: the Close Combat Table.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CloseCombatTable {
    pub id: String,
    pub name: String,
    pub source: String,
    pub structure: Option<String>,
    /// 12.23 step 1: odds columns, lowest first, so a diversion (12.14) can shift one left.
    pub columns: Vec<OddsColumn>,
    /// The column used for odds below the lowest (and a shift left from it).
    pub below_lowest: String,
    /// The column used for odds above the highest.
    pub above_highest: String,
    pub note: Option<String>,
    /// 12.23 step 8, 12.63.
    pub momentum: Momentum,
    /// The modified rolls the rows run over.
    pub rolls: Range,
    /// One row per modified roll, every column in every row.
    pub rows: Vec<CloseCombatRow>,
}

/// 12.23 step 1: the column is the highest whose `[a, d]` satisfies
/// `attacker_sp * d >= defender_sp * a` (rounded for the Defender).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OddsColumn {
    /// `a-d`, e.g. `3-2`.
    pub id: String,
    pub odds: [u32; 2],
    pub source: String,
}

/// 12.63: momentum on the final modified roll.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Momentum {
    pub defender_gains_at_most: i32,
    pub attacker_gains_at_least: i32,
    pub source: String,
    pub note: Option<String>,
}

/// One modified roll of the Close Combat Table: column id to cell.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CloseCombatRow {
    pub roll: i32,
    pub results: BTreeMap<String, CloseCombatCell>,
    pub note: Option<String>,
}

/// 12.23 step 5: `[[Attacker's results], [Defender's results]]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(from = "(Vec<String>, Vec<String>)")]
pub struct CloseCombatCell {
    pub attacker: Vec<String>,
    pub defender: Vec<String>,
}

impl From<(Vec<String>, Vec<String>)> for CloseCombatCell {
    fn from((attacker, defender): (Vec<String>, Vec<String>)) -> Self {
        CloseCombatCell { attacker, defender }
    }
}

// ---------------------------------------------------------------------------
// close-combat-drms.yaml

/// `charts/close-combat-drms.yaml`: positive favours the Attacker (12.63).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CloseCombatDrmsFile {
    pub source: String,
    pub rules: Vec<String>,
    pub close_combat_drms: CloseCombatDrms,
}

/// 12.23 step 3 and the exclusive rules that add to it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CloseCombatDrms {
    pub id: String,
    pub name: String,
    pub source: String,
    pub note: Option<String>,
    pub entries: Vec<Drm>,
    /// Savannah 4.16, 4.17: the colour groups that count as Regulars.
    pub regulars: Regulars,
}

/// Savannah 4.16, 4.17: colour groups (module.yaml) that count as Regulars.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Regulars {
    pub groups: Vec<String>,
    /// Savannah 4.16: British Regulars for Irish Ferocity.
    #[serde(default)]
    pub british_regulars: Vec<String>,
    pub source: String,
    pub note: Option<String>,
}

// ---------------------------------------------------------------------------
// tactics.yaml

/// `charts/tactics.yaml`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TacticsFile {
    pub source: String,
    pub rules: Vec<String>,
    /// 12.51, 12.52: the chits in each player's set.
    pub chits: Vec<Chit>,
    /// 12.54.
    pub illegal_chit: IllegalChit,
    /// 12.23 step 4.
    pub matrix: TacticsMatrix,
}

/// 12.52: one Tactics Chit and when it may be chosen.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Chit {
    pub id: String,
    pub name: String,
    /// Conditions the engine tests, all of which must hold (`leader`, `open-flank`).
    #[serde(default)]
    pub requires: Vec<String>,
    /// 12.52 exception, Savannah 4.15: conditions under which the chit may not be chosen.
    #[serde(default)]
    pub forbidden_when: Vec<Forbidden>,
    pub source: String,
    pub note: Option<String>,
}

/// A condition the engine tests that forbids a chit.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Forbidden {
    pub id: String,
    pub text: String,
    #[serde(default)]
    pub sides: Vec<String>,
    pub source: String,
}

/// 12.54: the tactics modifier when one or both chits are illegal.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IllegalChit {
    pub attacker_illegal: i32,
    pub defender_illegal: i32,
    pub both_illegal: i32,
    pub source: String,
    pub note: Option<String>,
}

/// 12.23 step 4: the Attacker's chit (row) against the Defender's (column).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TacticsMatrix {
    pub id: String,
    pub name: String,
    pub source: String,
    pub structure: Option<String>,
    pub note: Option<String>,
    /// Words a cell may hold instead of a DRM (`nc`: no combat, 12.23 step 4).
    pub results: Vec<String>,
    /// The Defender's chits.
    pub columns: Vec<String>,
    /// Attacker's chit to (Defender's chit to cell).
    pub rows: BTreeMap<String, BTreeMap<String, TacticsCell>>,
}

/// 12.23 step 4: a DRM (positive favours the Attacker) or a word of `results`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TacticsCell {
    Drm(i32),
    Result(String),
}

impl<'de> Deserialize<'de> for TacticsCell {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Scalar::deserialize(d)? {
            Scalar::Int(n) => TacticsCell::Drm(n),
            Scalar::Word(w) => TacticsCell::Result(w),
        })
    }
}

// ---------------------------------------------------------------------------
// terrain.yaml

/// `charts/terrain.yaml`: the Terrain Effects Chart.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TerrainFile {
    pub source: String,
    pub rules: Vec<String>,
    pub hexes: Vec<HexTerrain>,
    pub hexsides: Vec<HexsideFeature>,
    /// 13.5; Savannah 4.5, 4.19: a breached fieldwork hexside's effects.
    pub breached: Option<Breached>,
    /// 9.5.
    #[serde(default)]
    pub roads: Vec<RoadType>,
    /// Map places or zones whose hexes take `overrides` (Savannah 4.19).
    #[serde(default)]
    pub areas: Vec<TerrainArea>,
    /// Special hex features (Savannah 4.9: the Covered Way).
    #[serde(default)]
    pub features: Vec<HexFeature>,
}

/// One hex terrain type.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HexTerrain {
    pub id: String,
    pub name: String,
    pub source: String,
    pub note: Option<String>,
    /// 9.1: MPs to enter, or prohibited (9.2).
    pub movement_cost: MovementCost,
    /// 8.1: false is "extends out of, but not into".
    pub zoc_enters: bool,
    /// 11.42.
    pub blocks_los: bool,
    /// 10.3 step 2: added to fire against a unit in the hex.
    pub fire_drm: i32,
    /// 12.23 step 3: the defenders' hex.
    pub close_combat_drm: i32,
    /// 10.6, 12.52: clear, field or crops.
    pub open: bool,
    /// Savannah 4.4.
    pub siege_works_allowed: bool,
    /// 9.1: false withdraws the one-hex exception.
    pub minimum_move: bool,
}

/// 9.1: MPs to enter a hex, or prohibited terrain (9.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MovementCost {
    Mp(i32),
    Prohibited,
}

impl<'de> Deserialize<'de> for MovementCost {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Scalar::deserialize(d)? {
            Scalar::Int(n) => Ok(MovementCost::Mp(n)),
            Scalar::Word(w) if w == "prohibited" => Ok(MovementCost::Prohibited),
            Scalar::Word(w) => {
                Err(de::Error::custom(format!("'{w}' is not a movement cost: write an integer or prohibited")))
            }
        }
    }
}

/// A hexside feature (9.4: features on one hexside add up).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HexsideFeature {
    pub id: String,
    pub name: String,
    /// 3.2: belongs to one of its two hexes (the upper hex of a slope, the
    /// hex holding the fieldworks symbol); its effects are under `into` and `out_of`.
    pub directional: bool,
    /// 3.2, 8.1, 13.5.
    pub fieldwork: bool,
    /// Savannah 4.5: can be breached.
    #[serde(default)]
    pub breachable: bool,
    /// 11.43: `slope` sends line of sight to the slope rules.
    pub los: Option<HexsideLos>,
    /// 9.4: a combined type; a hexside with all these features uses this one instead.
    #[serde(default)]
    pub combines: Vec<String>,
    pub source: String,
    pub note: Option<String>,
    /// Non-directional effects.
    pub movement_cost_added: Option<i32>,
    pub zoc_crosses: Option<bool>,
    pub fire_drm: Option<i32>,
    pub close_combat_drm: Option<i32>,
    /// Directional effects: crossing into the hex that owns the feature.
    pub into: Option<HexsideEffects>,
    /// Directional effects: crossing out of it.
    pub out_of: Option<HexsideEffects>,
}

/// 11.43: how a hexside feature treats line of sight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HexsideLos {
    Slope,
}

/// A hexside's effects in one direction (9.4, 8.1, 10.3, 12.23).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HexsideEffects {
    pub movement_cost_added: i32,
    pub zoc_crosses: bool,
    pub fire_drm: i32,
    pub close_combat_drm: i32,
}

/// 13.5; Savannah 4.5, 4.19: a breached fieldwork hexside, both directions.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Breached {
    pub source: String,
    pub note: Option<String>,
    pub movement_cost_added: i32,
    pub zoc_crosses: bool,
    pub fire_drm: i32,
    pub close_combat_drm: i32,
    /// 13.5: only unbreached fieldworks help the morale check.
    pub morale_check_bonus: bool,
}

/// 9.5: a road, track or path.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoadType {
    pub id: String,
    pub name: String,
    /// 9.51.
    pub crossing_cost: i32,
    /// 9.52.
    pub strategic_movement: bool,
    pub source: String,
}

/// A map place or zone whose hexes take `overrides` over their terrain.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TerrainArea {
    pub id: String,
    /// `places/<id>` or `zones/<id>` of map.yaml.
    pub map: String,
    pub name: String,
    pub source: String,
    pub note: Option<String>,
    pub overrides: TerrainOverrides,
}

/// The fields of a hex terrain an area replaces.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TerrainOverrides {
    pub movement_cost: Option<MovementCost>,
    pub zoc_enters: Option<bool>,
    pub blocks_los: Option<bool>,
    pub fire_drm: Option<i32>,
    pub close_combat_drm: Option<i32>,
    pub open: Option<bool>,
    pub siege_works_allowed: Option<bool>,
    pub minimum_move: Option<bool>,
}

/// A special hex feature (Savannah 4.9: the Covered Way).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HexFeature {
    pub id: String,
    /// `places/<id>` or `zones/<id>` of map.yaml.
    pub map: String,
    pub name: String,
    pub source: String,
    pub note: Option<String>,
    pub movement_cost_along: Option<i32>,
    pub creek_cost_along: Option<i32>,
    /// The hexside features (ids of `hexsides`) that `creek_cost_along`
    /// prices along the feature instead of their own cost (Savannah 4.9:
    /// streams are not forded along the Covered Way).
    #[serde(default)]
    pub streams: Vec<String>,
    pub strategic_movement: Option<bool>,
    /// The chart file of the roll made on entering (covered-way.yaml).
    pub lost_roll: Option<String>,
    pub fire_drm: Option<i32>,
    pub close_combat_drm: Option<i32>,
}

// ---------------------------------------------------------------------------
// army-morale.yaml

/// `charts/army-morale.yaml`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArmyMoraleFile {
    pub source: String,
    pub rules: Vec<String>,
    pub track: Track,
    /// 16.2, 16.3: levels, lowest first, covering the track.
    pub levels: Vec<MoraleLevel>,
    /// 16.1: the Army Morale Adjustment Chart.
    pub adjustments: Adjustments,
}

/// The Army Morale Track.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Track {
    pub min: i32,
    pub max: i32,
    pub source: String,
    pub note: Option<String>,
}

/// 16.2: one level of the track.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoraleLevel {
    pub id: String,
    pub name: String,
    pub range: Range,
    /// 16.2: added to the Initiative roll.
    pub initiative_drm: Option<i32>,
    /// 15.32, 16.2: added to every unit's morale.
    pub unit_morale_modifier: Option<i32>,
    /// 16.3.
    #[serde(default)]
    pub ends_game: bool,
    pub source: String,
    pub note: Option<String>,
}

/// 16.1: the Army Morale Adjustment Chart.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Adjustments {
    pub id: String,
    pub name: String,
    pub source: String,
    pub entries: Vec<Adjustment>,
}

/// One adjustment: `affected` and `opponent`, or `from` another chart, or `same_as` another entry.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Adjustment {
    pub id: String,
    pub text: String,
    /// Added to the army that suffered the event.
    pub affected: Option<i32>,
    /// Added to the army that caused it.
    pub opponent: Option<i32>,
    pub per: Option<String>,
    pub from: Option<String>,
    pub same_as: Option<String>,
    pub source: String,
    pub note: Option<String>,
}

// ---------------------------------------------------------------------------
// morale-check.yaml

/// `charts/morale-check.yaml`: 13.5, 15 (positive helps the unit).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoraleCheckFile {
    pub source: String,
    pub rules: Vec<String>,
    pub die: Die,
    /// 13.5: a modified roll of at least this passes.
    pub pass_at_least: i32,
    pub modifiers: Vec<Drm>,
    /// Checks the rules call for (the engine triggers them).
    #[serde(default)]
    pub triggered_checks: Vec<TriggeredCheck>,
    /// 15.32: changes to the unit's morale itself.
    #[serde(default)]
    pub unit_morale_modifiers: Vec<Drm>,
}

/// A morale check a rule calls for.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TriggeredCheck {
    pub id: String,
    pub text: String,
    pub source: String,
}

// ---------------------------------------------------------------------------
// leader-casualty.yaml

/// `charts/leader-casualty.yaml`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeaderCasualtyFile {
    pub source: String,
    pub rules: Vec<String>,
    pub leader_casualty: LeaderCasualtyTable,
}

/// 13.1 "*", 16.1: what a leader casualty costs.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeaderCasualtyTable {
    pub id: String,
    pub name: String,
    pub source: String,
    pub note: Option<String>,
    /// The class of a leader no class lists.
    pub default_class: String,
    pub classes: Vec<LeaderClass>,
}

/// One class of leader.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeaderClass {
    pub id: String,
    /// Savannah 2.9: VPs to the opponent, in halves.
    pub vp_halves: i32,
    /// 16.1: to the leader's own army.
    pub army_morale: i32,
    /// Savannah 4.18: Momentum Chits to the leader's own army.
    pub momentum: i32,
    /// Leader ids of counters.yaml.
    pub leaders: Vec<String>,
    pub source: String,
    pub note: Option<String>,
}

// ---------------------------------------------------------------------------
// weather.yaml

/// `charts/weather.yaml`: Savannah 1.6, 4.2.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeatherFile {
    pub source: String,
    pub rules: Vec<String>,
    pub die: Die,
    pub weather_turns: WeatherTurns,
    pub conditions: Vec<WeatherCondition>,
    pub weather_table: WeatherTable,
    pub persistence: Persistence,
    #[serde(default)]
    pub fixed: Vec<FixedWeather>,
}

/// Savannah 4.2: the turns on which weather is rolled.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeatherTurns {
    pub turns: Vec<u32>,
    pub source: String,
    pub note: Option<String>,
}

/// One weather and its effects.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeatherCondition {
    pub id: String,
    pub name: String,
    pub source: String,
    pub note: Option<String>,
    /// 9.52 allowed.
    pub strategic_movement: bool,
    pub movement_cost_added: i32,
    /// Savannah 4.4: construction markers may be placed / flipped.
    pub construction: bool,
    pub completion: bool,
    pub siege_bombardment_drm: i32,
    pub fire_drm: i32,
    /// Positive favours the Attacker.
    pub close_combat_drm: i32,
    pub artillery_max_range: i32,
    /// Savannah 4.2: the weather forced on the next turn.
    pub next_turn: Option<String>,
}

/// Savannah 4.2: the Weather Table, read with a modified roll.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeatherTable {
    pub id: String,
    pub name: String,
    pub source: String,
    pub note: Option<String>,
    pub drms: Vec<Drm>,
    pub outcomes: Vec<WeatherOutcome>,
}

/// A band of the Weather Table.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeatherOutcome {
    pub min: Option<i32>,
    pub max: Option<i32>,
    pub weather: String,
    pub source: Option<String>,
    pub note: Option<String>,
}

/// Savannah 4.2: how weather carries between turns.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Persistence {
    pub source: String,
    pub non_weather_turns: NonWeatherTurns,
    /// The weather of the turn after a storm.
    pub after_storm: String,
    pub note: Option<String>,
}

/// Savannah 4.2: the weather on a turn without a roll.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NonWeatherTurns {
    /// The weather holds from the preceding turn.
    Hold,
}

/// Savannah 1.6: fixed weather for a scenario or a case.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixedWeather {
    pub id: String,
    pub scenarios: Vec<String>,
    /// Savannah 1.6: this entry holds only once the Allies have declared
    /// their assault early (case A); the others only when they have not.
    #[serde(default)]
    pub assault_declared: bool,
    pub text: Option<String>,
    pub turns: Vec<FixedTurn>,
    pub source: String,
    pub note: Option<String>,
}

/// The weather of `turn` (through `last`): a weather id or `last-rolled` (Savannah 1.6 case A).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixedTurn {
    pub turn: u32,
    pub last: Option<u32>,
    pub weather: String,
}

/// Savannah 1.6 case A: the last prevailing rolled weather.
pub const LAST_ROLLED: &str = "last-rolled";

// ---------------------------------------------------------------------------
// siege-bombardment.yaml

/// `charts/siege-bombardment.yaml`: Savannah 3 phase V, 4.6.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiegeBombardmentFile {
    pub source: String,
    pub rules: Vec<String>,
    pub die: Die,
    pub procedure: SiegeProcedure,
    pub table_i: SiegeTableI,
    pub table_ii: SiegeTableII,
}

/// Savannah 3, 4.6: who rolls, in what order.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiegeProcedure {
    pub source: String,
    #[serde(default)]
    pub scenarios: Vec<String>,
    pub prerequisite: String,
    /// Sides, in the order they roll.
    pub order: Vec<String>,
    pub british_optional: bool,
    pub french_rolls_per_phase: u32,
    pub british_rolls_per_phase: u32,
    pub note: Option<String>,
}

/// Siege & Bombardment Table I: a column of bands per rolling side.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiegeTableI {
    pub id: String,
    pub name: String,
    pub source: String,
    pub note: Option<String>,
    pub drms: Vec<Drm>,
    pub columns: BTreeMap<String, Vec<EffectOutcome>>,
}

/// Siege & Bombardment Table II.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiegeTableII {
    pub id: String,
    pub name: String,
    pub source: String,
    pub note: Option<String>,
    #[serde(default)]
    pub drms: Vec<Drm>,
    pub outcomes: Vec<EffectOutcome>,
}

/// A band of rolls and the effects it has.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EffectOutcome {
    pub min: Option<i32>,
    pub max: Option<i32>,
    pub effects: Vec<Effect>,
    pub source: Option<String>,
    pub note: Option<String>,
}

// ---------------------------------------------------------------------------
// mortar.yaml

/// `charts/mortar.yaml`: Savannah 4.12.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MortarFile {
    pub source: String,
    pub rules: Vec<String>,
    pub die: Die,
    pub rules_summary: MortarSummary,
    pub mortar_to_hit: ToHitTable,
    pub scatter_and_drift: ScatterAndDrift,
    pub mortar_disable: ResultTable,
}

/// Savannah 4.12, as printed.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MortarSummary {
    pub source: String,
    pub range: Range,
    pub needs_los: bool,
    pub combines_with_other_artillery: bool,
    pub targets: String,
    /// Fire DRM ids of fire.yaml that mortars ignore.
    pub ignores_fire_drms: Vec<String>,
    pub tactical_turns_move_or_fire: bool,
    /// Result codes that call for the Mortar Disable roll.
    pub disable_on_results: Vec<String>,
}

/// Savannah 4.12: where the shells land (unmodified roll).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScatterAndDrift {
    pub id: String,
    pub name: String,
    pub source: String,
    pub note: Option<String>,
    pub outcomes: Vec<ScatterOutcome>,
    pub directions: Vec<String>,
    pub directions_note: Option<String>,
}

/// A band of the Scatter & Drift Table.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScatterOutcome {
    pub min: Option<i32>,
    pub max: Option<i32>,
    pub lands: Landing,
    pub direction: Option<String>,
    pub distance: Option<u32>,
    pub source: Option<String>,
    pub note: Option<String>,
}

/// Savannah 4.12: on the target hex, or drifting from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Landing {
    OnTarget,
    Drift,
}

/// A table of roll bands giving results defined in the table itself
/// (Mortar Disable, Covered Way Lost).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResultTable {
    pub id: String,
    pub name: String,
    pub source: String,
    pub note: Option<String>,
    /// Without DRMs the roll is unmodified and the bands cover 0-9.
    #[serde(default)]
    pub drms: Vec<Drm>,
    pub outcomes: Vec<ResultOutcome>,
    pub results: Vec<IdText>,
}

/// A band of rolls and its result id.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResultOutcome {
    pub min: Option<i32>,
    pub max: Option<i32>,
    pub result: String,
    pub source: Option<String>,
    pub note: Option<String>,
}

// ---------------------------------------------------------------------------
// covered-way.yaml

/// `charts/covered-way.yaml`: Savannah 4.9.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoveredWayFile {
    pub source: String,
    pub rules: Vec<String>,
    pub die: Die,
    pub lost_roll: ResultTable,
    pub lost_effects: LostEffects,
}

/// Savannah 4.9: the penalties of a Lost stack.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LostEffects {
    pub source: String,
    pub may_not_move_further: bool,
    pub zoc: bool,
    pub strength: String,
    pub retreat_becomes_pin: bool,
    pub cavalry_withdrawal: bool,
    pub flip_to_previously_lost: String,
    pub cleared_when: String,
    pub stacks_move_together: bool,
    pub note: Option<String>,
}

// ---------------------------------------------------------------------------
// french-variable-entry.yaml

/// `charts/french-variable-entry.yaml`: Savannah 4.7.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FrenchVariableEntryFile {
    pub source: String,
    pub rules: Vec<String>,
    pub die: Die,
    pub french_variable_entry: VariableEntry,
}

/// Savannah 4.7: where the reinforcements of these turns enter (unmodified roll).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariableEntry {
    pub id: String,
    pub name: String,
    pub source: String,
    pub turns: Vec<u32>,
    pub note: Option<String>,
    pub outcomes: Vec<EntryOutcome>,
}

/// A band of the variable entry roll.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntryOutcome {
    pub min: Option<i32>,
    pub max: Option<i32>,
    /// An entry hex id of map.yaml.
    pub entry: String,
    pub mp_bonus: i32,
    pub artillery_mp_multiplier: i32,
    pub strategic_movement: bool,
    pub source: Option<String>,
    pub note: Option<String>,
}

// ---------------------------------------------------------------------------
// surrender.yaml

/// `charts/surrender.yaml`: Savannah 2.1.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SurrenderFile {
    pub source: String,
    pub rules: Vec<String>,
    pub die: Die,
    pub surrender_roll: SurrenderRoll,
}

/// Savannah 2.1: the British Surrender Die Roll (modified).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SurrenderRoll {
    pub id: String,
    pub name: String,
    pub source: String,
    pub note: Option<String>,
    #[serde(default)]
    pub scenarios: Vec<String>,
    pub when: String,
    pub drms: Vec<Drm>,
    pub outcomes: Vec<ResultOutcome>,
    pub results: Vec<IdText>,
}

// ---------------------------------------------------------------------------
// victory-points.yaml

/// `charts/victory-points.yaml`: Savannah 2.9, in halves.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VictoryPointsFile {
    pub source: String,
    pub rules: Vec<String>,
    pub victory_points: VpSchedule,
    pub margins: Margins,
}

/// Savannah 2.9: what each army scores.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VpSchedule {
    pub id: String,
    pub name: String,
    pub source: String,
    pub note: Option<String>,
    pub entries: Vec<VpEntry>,
}

/// One line of the VP schedule: `halves`, or `from` another chart.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VpEntry {
    pub id: String,
    pub halves: Option<i32>,
    pub from: Option<String>,
    pub when: Option<String>,
    /// A hex of the map (Savannah 2.8: Spring Hill Redoubt).
    pub hex: Option<String>,
    #[serde(default)]
    pub sides: Vec<String>,
    pub source: String,
    pub text: Option<String>,
    pub note: Option<String>,
}

/// Savannah 2.3, 2.6: the end-of-game margins, in halves.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Margins {
    pub source: String,
    pub note: Option<String>,
    pub allied_marginal_victory_at_least: i32,
    pub otherwise: String,
}

// ---------------------------------------------------------------------------
// cards.yaml

/// `cards.yaml`: the Random Events deck (Savannah 4.3).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CardsFile {
    pub source: String,
    pub rules: Vec<String>,
    pub deck: Deck,
    /// 4.3: game turn restriction marks.
    pub timings: Vec<IdText>,
    /// 4.3: who may play a card.
    pub flags: Vec<IdText>,
    pub draw: Draw,
    /// One entry per physical card.
    pub cards: Vec<Card>,
}

/// Savannah 4.3: the deck's printed counts.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Deck {
    pub size: u32,
    pub source: String,
    /// Timing id to number of cards.
    pub timing_counts: BTreeMap<String, u32>,
    /// Flag id to number of cards.
    pub flag_counts: BTreeMap<String, u32>,
    /// Red must-play cards.
    pub red: u32,
    /// Cards with a `draw-cards` effect `from: deck`.
    pub cards_that_draw_from_deck: u32,
    /// Cards with a `draw-cards` effect `from: opponent-hand`.
    pub cards_that_draw_from_opponent: u32,
    pub note: Option<String>,
}

/// Savannah 1.4, 1.6, 3, 4.3: the draw procedure.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Draw {
    pub source: String,
    #[serde(default)]
    pub scenarios: Vec<String>,
    /// The Random Events turns.
    pub turns: Vec<u32>,
    pub turns_source: Option<String>,
    /// Sides (or side references), in the order they draw.
    pub order: Vec<String>,
    pub per_side: u32,
    /// 1.4, 4.3: Momentum Chits spent for one more card.
    pub momentum_extra_draw_max: u32,
    pub hand_limit: HandLimit,
    pub discard: String,
    pub play: String,
    pub after_tactical_switch: String,
    pub note: Option<String>,
}

/// Savannah 4.3: how many cards a hand may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HandLimit {
    Cards(u32),
    None,
}

impl<'de> Deserialize<'de> for HandLimit {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Scalar::deserialize(d)? {
            Scalar::Int(n) => u32::try_from(n)
                .map(HandLimit::Cards)
                .map_err(|_| de::Error::custom(format!("{n}: a hand limit is a number of cards or none"))),
            Scalar::Word(w) if w == "none" => Ok(HandLimit::None),
            Scalar::Word(w) => Err(de::Error::custom(format!("'{w}': a hand limit is a number of cards or none"))),
        }
    }
}

/// Savannah 4.3: one Random Events card.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Card {
    pub number: u32,
    pub id: String,
    pub title: String,
    /// A timing id.
    pub timing: String,
    /// 4.3: printed in red, must be played when drawn.
    #[serde(default)]
    pub red: bool,
    /// A flag id.
    pub flags: String,
    /// The game turns in which it may be played.
    pub turns: Option<Band>,
    pub effects: Vec<Effect>,
    pub text: Option<String>,
    pub source: String,
    pub note: Option<String>,
}

// ---------------------------------------------------------------------------
// Loading

/// The text of one chart file, to locate problems in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileText {
    /// How errors name the file ([`Source::label`]).
    pub label: String,
    pub text: String,
}

/// Every chart of a module, as the engine reads them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Charts {
    pub codes: CodesFile,
    pub fire: FireFile,
    pub close_combat: CloseCombatFile,
    pub close_combat_drms: CloseCombatDrmsFile,
    pub tactics: TacticsFile,
    pub terrain: TerrainFile,
    pub army_morale: ArmyMoraleFile,
    pub morale_check: MoraleCheckFile,
    pub leader_casualty: LeaderCasualtyFile,
    pub weather: WeatherFile,
    pub siege_bombardment: SiegeBombardmentFile,
    pub mortar: MortarFile,
    pub covered_way: CoveredWayFile,
    pub french_variable_entry: FrenchVariableEntryFile,
    pub surrender: SurrenderFile,
    pub victory_points: VictoryPointsFile,
    pub cards: CardsFile,
    /// Each file ([`FILES`]) and its text, so that [`check`] can give lines.
    pub files: BTreeMap<String, FileText>,
}

/// Read every chart file of a module. Every file is read even when an
/// earlier one fails, and every file's problem is returned (a YAML or type
/// error, an unknown field, a float where an integer belongs, a key given
/// twice), located by line, column and field.
pub fn load(source: &Source) -> Result<Charts, Vec<Located>> {
    let mut files = BTreeMap::new();
    let mut problems = Vec::new();
    let mut read = Reader { source, files: &mut files, problems: &mut problems };
    let codes = read.parse::<CodesFile>(CODES);
    let fire = read.parse::<FireFile>(FIRE);
    let close_combat = read.parse::<CloseCombatFile>(CLOSE_COMBAT);
    let close_combat_drms = read.parse::<CloseCombatDrmsFile>(CLOSE_COMBAT_DRMS);
    let tactics = read.parse::<TacticsFile>(TACTICS);
    let terrain = read.parse::<TerrainFile>(TERRAIN);
    let army_morale = read.parse::<ArmyMoraleFile>(ARMY_MORALE);
    let morale_check = read.parse::<MoraleCheckFile>(MORALE_CHECK);
    let leader_casualty = read.parse::<LeaderCasualtyFile>(LEADER_CASUALTY);
    let weather = read.parse::<WeatherFile>(WEATHER);
    let siege_bombardment = read.parse::<SiegeBombardmentFile>(SIEGE_BOMBARDMENT);
    let mortar = read.parse::<MortarFile>(MORTAR);
    let covered_way = read.parse::<CoveredWayFile>(COVERED_WAY);
    let french_variable_entry = read.parse::<FrenchVariableEntryFile>(FRENCH_VARIABLE_ENTRY);
    let surrender = read.parse::<SurrenderFile>(SURRENDER);
    let victory_points = read.parse::<VictoryPointsFile>(VICTORY_POINTS);
    let cards = read.parse::<CardsFile>(CARDS);
    match (
        codes,
        fire,
        close_combat,
        close_combat_drms,
        tactics,
        terrain,
        army_morale,
        morale_check,
        leader_casualty,
        weather,
        siege_bombardment,
        mortar,
        covered_way,
        french_variable_entry,
        surrender,
        victory_points,
        cards,
    ) {
        (
            Some(codes),
            Some(fire),
            Some(close_combat),
            Some(close_combat_drms),
            Some(tactics),
            Some(terrain),
            Some(army_morale),
            Some(morale_check),
            Some(leader_casualty),
            Some(weather),
            Some(siege_bombardment),
            Some(mortar),
            Some(covered_way),
            Some(french_variable_entry),
            Some(surrender),
            Some(victory_points),
            Some(cards),
        ) if problems.is_empty() => Ok(Charts {
            codes,
            fire,
            close_combat,
            close_combat_drms,
            tactics,
            terrain,
            army_morale,
            morale_check,
            leader_casualty,
            weather,
            siege_bombardment,
            mortar,
            covered_way,
            french_variable_entry,
            surrender,
            victory_points,
            cards,
            files,
        }),
        _ => Err(problems),
    }
}

/// [`load`], then [`check`]: the charts, or every problem.
pub fn load_checked(source: &Source, context: &Context) -> Result<Charts, Vec<Located>> {
    let charts = load(source)?;
    let problems = check(&charts, context);
    if problems.is_empty() {
        Ok(charts)
    } else {
        Err(problems)
    }
}

struct Reader<'a> {
    source: &'a Source,
    files: &'a mut BTreeMap<String, FileText>,
    problems: &'a mut Vec<Located>,
}

impl Reader<'_> {
    fn parse<T: DeserializeOwned + std::fmt::Debug>(&mut self, file: &str) -> Option<T> {
        let label = self.source.label(file);
        match self.source.parse::<T>(file) {
            Ok((value, text)) => {
                // serde keeps the last of two equal keys of a map without a word;
                // the YAML tree refuses them. (A file with a compact form has
                // none: build.rs made it only from a text the tree reads.)
                let tree = match self.source.compact(file) {
                    Some(_) => Ok(crate::base::yaml::Value::Null),
                    None => crate::base::yaml::parse::<crate::base::yaml::Value>(&label, &text),
                };
                self.files.insert(file.to_string(), FileText { label, text });
                match tree {
                    Ok(_) => Some(value),
                    Err(problem) => {
                        self.problems.push(tidy(problem));
                        None
                    }
                }
            }
            Err(Error::Data(problem)) => {
                self.problems.push(tidy(problem));
                None
            }
            Err(e) => {
                let message = e.to_string();
                let message = message.strip_prefix(&format!("{label}: ")).unwrap_or(&message).to_string();
                self.problems.push(Located { file: label, line: None, column: None, field: String::new(), message });
                None
            }
        }
    }
}

/// A YAML or type error as the other problems read: the YAML crate repeats the
/// field path at the head of its message, and a float gets the rule.
fn tidy(mut problem: Located) -> Located {
    if let Some((head, rest)) = problem.message.split_once(": ") {
        if !head.contains(' ') && problem.field.starts_with(head) {
            problem.message = rest.to_string();
        }
    }
    if problem.message.contains("floating point") {
        problem.message.push_str("; charts hold integers only (odds are pairs [3, 2], VPs are counted in halves)");
    }
    problem
}

// ---------------------------------------------------------------------------
// What the rest of the module says

/// What the charts refer to outside themselves: the module's sides and
/// scenarios (module.yaml), its counters, and what its map uses. A part left
/// `None` is not known, and the references into it are not checked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Context {
    /// Side ids of module.yaml.
    pub sides: Option<BTreeSet<String>>,
    /// Scenario ids of module.yaml.
    pub scenarios: Option<BTreeSet<String>>,
    /// Colour group ids of module.yaml (Savannah 1.1).
    pub colour_groups: Option<BTreeSet<String>>,
    /// Counter id to the values the charts are checked against.
    pub counters: Option<BTreeMap<String, CounterFacts>>,
    /// Terrain ids the map uses.
    pub terrain: Option<BTreeSet<String>>,
    /// Hexside feature ids the map uses.
    pub hexside_features: Option<BTreeSet<String>>,
    /// The features of each hexside of the map that has any (9.4: they add up).
    pub hexside_combinations: Option<BTreeSet<BTreeSet<String>>>,
    /// Road kinds the map uses (9.5).
    pub road_kinds: Option<BTreeSet<String>>,
    /// Place ids of map.yaml.
    pub places: Option<BTreeSet<String>>,
    /// Zone ids of map.yaml.
    pub zones: Option<BTreeSet<String>>,
    /// Entry hex ids of map.yaml (`A`, `V-1`, ...).
    pub entry_hexes: Option<BTreeSet<String>>,
}

/// What the charts need to know of one counter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CounterFacts {
    pub leader: bool,
    /// Printed morale, full and reduced side.
    pub morale: Vec<i32>,
    /// Printed strength, full and reduced side.
    pub strength: Vec<i32>,
    pub movement: Option<i32>,
    pub rank: Option<i32>,
    pub close_combat_drm: Option<i32>,
    pub leadership_drm: Option<i32>,
}

impl CounterFacts {
    pub fn of(counter: &Counter) -> CounterFacts {
        let sides = |s: Option<super::counters::Sides>| -> Vec<i32> {
            s.map(|s| std::iter::once(s.full).chain(s.reduced).collect()).unwrap_or_default()
        };
        CounterFacts {
            leader: counter.is_leader(),
            morale: sides(counter.morale),
            strength: sides(counter.strength),
            movement: counter.movement,
            rank: counter.rank,
            close_combat_drm: counter.close_combat_drm,
            leadership_drm: counter.leadership_drm,
        }
    }

    /// The values of a counter field a DRM reads (`morale`, `close_combat_drm`, ...).
    fn values(&self, field: &str) -> Vec<i32> {
        match field {
            "morale" => self.morale.clone(),
            "strength" => self.strength.clone(),
            "movement" => self.movement.into_iter().collect(),
            "rank" => self.rank.into_iter().collect(),
            "close_combat_drm" => self.close_combat_drm.into_iter().collect(),
            "leadership_drm" => self.leadership_drm.into_iter().collect(),
            _ => Vec::new(),
        }
    }
}

/// The counter values a `from: counter ...` DRM can name, as counters.yaml spells them.
const COUNTER_FIELDS: [&str; 6] = ["close_combat_drm", "leadership_drm", "morale", "strength", "movement", "rank"];

impl Context {
    /// Sides and scenarios of module.yaml.
    pub fn with_module(mut self, info: &ModuleInfo) -> Self {
        self.sides = Some(info.sides.iter().map(|s| s.id.clone()).collect());
        self.scenarios = Some(info.scenarios.iter().map(|s| s.id.clone()).collect());
        self
    }

    /// Colour group ids of module.yaml.
    pub fn with_colour_groups<'a>(mut self, ids: impl IntoIterator<Item = &'a str>) -> Self {
        self.colour_groups = Some(ids.into_iter().map(str::to_string).collect());
        self
    }

    pub fn with_counters(mut self, counters: &[Counter]) -> Self {
        self.counters = Some(counters.iter().map(|c| (c.id.clone(), CounterFacts::of(c))).collect());
        self
    }

    /// What the map uses: terrain, hexside features and their combinations,
    /// road kinds, places, zones and entry hexes.
    pub fn with_map(mut self, map: &Map) -> Self {
        self.terrain = Some(map.terrain_ids().into_iter().map(str::to_string).collect());
        self.hexside_features = Some(map.hexside_features().into_iter().map(str::to_string).collect());
        self.hexside_combinations = Some(map.hexsides.values().cloned().collect());
        self.road_kinds = Some(
            map.roads
                .iter()
                .map(|r| match r.kind {
                    RoadKind::Road => "road",
                    RoadKind::Track => "track",
                    RoadKind::Path => "path",
                })
                .map(str::to_string)
                .collect(),
        );
        self.places = Some(map.places.iter().map(|p| p.id.clone()).collect());
        self.zones = Some(map.zones.iter().map(|z| z.id.clone()).collect());
        self.entry_hexes = Some(map.entry_hexes.keys().cloned().collect());
        self
    }
}

// ---------------------------------------------------------------------------
// The reach of the close combat roll

/// 12.23 step 5: the lowest and highest modified close combat roll the DRMs
/// can make, and what makes them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reach {
    pub min: i32,
    pub max: i32,
    /// The die's lowest face, then every DRM (or group) that lowers the roll, with its worst value.
    pub lowest: Vec<(String, i32)>,
    /// The die's highest face, then every DRM (or group) that raises the roll.
    pub highest: Vec<(String, i32)>,
}

/// The `from:` paths of close combat DRMs the reach knows how to read.
const CLOSE_COMBAT_FROM: &str = "terrain.yaml hexes[].close_combat_drm, terrain.yaml hexsides[].close_combat_drm, \
     terrain.yaml features[<id>].close_combat_drm, weather.yaml conditions[].close_combat_drm, tactics.yaml matrix, \
     or counter ... with sign and bounds";

impl Charts {
    /// 12.23, 12.63: the reach of the modified close combat roll, as
    /// charts.md defines it: the die's faces plus the sum of every negative
    /// (positive) DRM, one entry per `group`, with terrain taken from the
    /// worst hex and the worst hexside combination of the map. A DRM whose
    /// values cannot be found is returned with why, by its index.
    pub fn close_combat_reach(&self, context: &Context) -> Result<Reach, Vec<(usize, String)>> {
        let (face_min, face_max) = self.close_combat.die.faces();
        let mut groups: BTreeMap<String, (i32, i32)> = BTreeMap::new();
        let mut order: Vec<String> = Vec::new();
        let mut errors = Vec::new();
        for (i, drm) in self.close_combat_drms.close_combat_drms.entries.iter().enumerate() {
            match self.close_combat_values(drm, context) {
                Ok(values) => {
                    let lo = values.iter().copied().fold(0, i32::min);
                    let hi = values.iter().copied().fold(0, i32::max);
                    let name = drm.group.clone().unwrap_or_else(|| drm.id.clone());
                    let span = groups.entry(name.clone()).or_insert_with(|| {
                        order.push(name);
                        (0, 0)
                    });
                    *span = (span.0.min(lo), span.1.max(hi));
                }
                Err(why) => errors.push((i, why)),
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let mut reach = Reach {
            min: face_min,
            max: face_max,
            lowest: vec![("die".to_string(), face_min)],
            highest: vec![("die".to_string(), face_max)],
        };
        for name in order {
            let (lo, hi) = groups.get(&name).copied().unwrap_or_default();
            if lo < 0 {
                reach.min = reach.min.saturating_add(lo);
                reach.lowest.push((name.clone(), lo));
            }
            if hi > 0 {
                reach.max = reach.max.saturating_add(hi);
                reach.highest.push((name, hi));
            }
        }
        Ok(reach)
    }

    /// Every value a close combat DRM can take.
    fn close_combat_values(&self, drm: &Drm, context: &Context) -> Result<Vec<i32>, String> {
        let mut values = if let Some(v) = drm.value {
            vec![v]
        } else if let Some(schedule) = &drm.schedule {
            schedule.iter().map(|s| s.value).collect()
        } else if let Some(from) = &drm.from {
            self.close_combat_from(from, drm, context)?
        } else {
            return Err("has no value, schedule or from".to_string());
        };
        if drm.per.is_some() || drm.per_hexes.is_some() {
            match drm.max {
                Some(max) => values.push(max),
                None => return Err("counts once per thing, with no max: its reach is unbounded".to_string()),
            }
        }
        Ok(values)
    }

    fn close_combat_from(&self, from: &str, drm: &Drm, context: &Context) -> Result<Vec<i32>, String> {
        let mut words = from.split_whitespace();
        let file = words.next().unwrap_or("");
        let path = words.next().unwrap_or("");
        let t = &self.terrain;
        let field_ok = path.ends_with("].close_combat_drm");
        let values = match file {
            "counter" => match (drm.sign, drm.bounds) {
                (Some(sign), Some(b)) => vec![sign.saturating_mul(b.min), sign.saturating_mul(b.max)],
                _ => return Err("reads a counter, so needs sign and bounds for the table's reach".to_string()),
            },
            "terrain.yaml" if path.starts_with("hexes[]") && field_ok => t
                .hexes
                .iter()
                .map(|h| h.close_combat_drm)
                .chain(t.areas.iter().filter_map(|a| a.overrides.close_combat_drm))
                .collect(),
            "terrain.yaml" if path.starts_with("hexsides[]") && field_ok => {
                let (lo, hi) = self.hexside_close_combat_span(context);
                vec![lo, hi]
            }
            "terrain.yaml" if path.starts_with("features[") && field_ok => {
                let id = selector(path).unwrap_or("");
                match t.features.iter().find(|f| f.id == id) {
                    Some(f) => f.close_combat_drm.into_iter().collect(),
                    None => return Err(format!("terrain.yaml has no feature '{id}'")),
                }
            }
            "weather.yaml" if path.starts_with("conditions[]") && field_ok => {
                self.weather.conditions.iter().map(|c| c.close_combat_drm).collect()
            }
            "tactics.yaml" if path.starts_with("matrix") => {
                let i = &self.tactics.illegal_chit;
                self.tactics
                    .matrix
                    .rows
                    .values()
                    .flat_map(|row| row.values())
                    .filter_map(|c| match c {
                        TacticsCell::Drm(n) => Some(*n),
                        TacticsCell::Result(_) => None,
                    })
                    .chain([i.attacker_illegal, i.defender_illegal, i.both_illegal])
                    .collect()
            }
            _ => return Err(format!("the reach cannot read from '{from}': it reads {CLOSE_COMBAT_FROM}")),
        };
        Ok(values)
    }

    /// 9.4: the worst and best close combat DRM of crossing one hexside of
    /// the map, features added up, a combined type (`combines`) standing for
    /// its parts. Each feature counts with its worst (best) direction or its
    /// breached state, so a hexside whose features belong to opposite hexes
    /// is counted conservatively. Without a map, each feature alone.
    fn hexside_close_combat_span(&self, context: &Context) -> (i32, i32) {
        let t = &self.terrain;
        let combinations: Vec<BTreeSet<String>> = match &context.hexside_combinations {
            Some(c) => c.iter().cloned().collect(),
            None => t.hexsides.iter().map(|h| BTreeSet::from([h.id.clone()])).collect(),
        };
        let (mut lo, mut hi) = (0, 0);
        for combination in combinations {
            let (mut sum_lo, mut sum_hi) = (0, 0);
            for id in self.combined(combination) {
                let Some(feature) = t.hexsides.iter().find(|h| h.id == id) else { continue };
                let mut options: Vec<i32> = if feature.directional {
                    [feature.into, feature.out_of].iter().flatten().map(|e| e.close_combat_drm).collect()
                } else {
                    feature.close_combat_drm.into_iter().collect()
                };
                if feature.breachable {
                    options.extend(t.breached.as_ref().map(|b| b.close_combat_drm));
                }
                sum_lo = options.iter().copied().min().unwrap_or(0).saturating_add(sum_lo);
                sum_hi = options.iter().copied().max().unwrap_or(0).saturating_add(sum_hi);
            }
            lo = lo.min(sum_lo);
            hi = hi.max(sum_hi);
        }
        (lo, hi)
    }

    /// 9.4: a hexside with every part of a combined type uses that type and
    /// ignores the parts.
    fn combined(&self, mut features: BTreeSet<String>) -> BTreeSet<String> {
        for c in self.terrain.hexsides.iter().filter(|h| !h.combines.is_empty()) {
            if c.combines.iter().all(|part| features.contains(part)) {
                features.insert(c.id.clone());
            }
            if features.contains(&c.id) {
                for part in &c.combines {
                    features.remove(part);
                }
            }
        }
        features
    }
}

/// `features[covered-way].fire_drm` → `covered-way`; `hexes[].x` → None.
fn selector(path: &str) -> Option<&str> {
    let start = path.find('[')? + 1;
    let end = start + path[start..].find(']')?;
    Some(&path[start..end]).filter(|s| !s.is_empty())
}

// ---------------------------------------------------------------------------
// Checking

/// Check the charts whole, against each other and against the rest of the
/// module, and return every problem, located by file, line and field path:
///
/// - every file: a `source` of the form `rules ...` / `stand-in`, `source:
///   stand-in` at the top when any value is a stand-in, no float anywhere;
/// - ids kebab-case and defined once; every reference (result code, effect
///   and its params, side, terrain, chit, weather, table, counter, leader,
///   colour group, scenario, entry hex, place, zone, chart file) resolves;
/// - roll bands in order without gap or overlap, covering the die's faces
///   for an unmodified roll and every integer for a modified one;
/// - the Fire and Mortar To Hit tables have a number for every SP band and
///   range; both damage tables one row per face;
/// - the Close Combat Table: odds columns strictly increasing and named by
///   their odds, every column on every row from the lowest to the highest
///   reachable modified roll ([`Charts::close_combat_reach`]), results that
///   follow codes.yaml's `combination_rules`;
/// - the Tactics Matrix has a cell for every pair of chits;
/// - counters lie within the `bounds` of counter-valued DRMs;
/// - army morale levels cover the track; the deck matches its counts (4.3);
/// - the map uses no terrain, hexside feature or road the TEC lacks.
pub fn check(charts: &Charts, context: &Context) -> Vec<Located> {
    let mut c = Checker::new(charts, context);
    c.conventions();
    c.table_ids();
    c.codes();
    c.fire();
    c.close_combat();
    c.close_combat_drms();
    c.tactics();
    c.terrain();
    c.army_morale();
    c.morale_check();
    c.leader_casualty();
    c.weather();
    c.siege_bombardment();
    c.mortar();
    c.covered_way();
    c.french_variable_entry();
    c.surrender();
    c.victory_points();
    c.cards();
    let mut list = c.p.list;
    list.sort_by(|a, b| a.file.cmp(&b.file).then(a.line.cmp(&b.line)));
    list
}

/// 13.1 codes that `combination_rules` speak of.
const NO_EFFECT: &str = "no-effect";
const ARMY_MORALE_RESULT: &str = "army-morale";
const LEADER_CASUALTY_RESULT: &str = "leader-casualty";
const PIN: &str = "pin";

/// charts.md: "`condition` on `drm` is optional".
const OPTIONAL_PARAMS: [(&str, &str); 1] = [("drm", "condition")];

/// Savannah 4.3: the effect that draws cards, and where from.
const DRAW_CARDS: &str = "draw-cards";
const FROM_DECK: &str = "deck";
const FROM_OPPONENT: &str = "opponent-hand";

/// Savannah 4.3: the timing of the red must-play cards.
const ON_DRAW: &str = "on-draw";

/// `[a-z0-9]+(-[a-z0-9]+)*`
fn kebab(s: &str) -> bool {
    !s.is_empty()
        && s.split('-').all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()))
}

/// Up to 20 items, then how many in all.
fn listing<S: AsRef<str>>(items: impl IntoIterator<Item = S>) -> String {
    let all: Vec<String> = items.into_iter().map(|s| s.as_ref().to_string()).collect();
    if all.is_empty() {
        return "(none)".to_string();
    }
    if all.len() <= 20 {
        all.join(", ")
    } else {
        format!("{}, ... ({} in all)", all[..20].join(", "), all.len())
    }
}

fn show_band(min: Option<i32>, max: Option<i32>) -> String {
    match (min, max) {
        (Some(a), Some(b)) if a == b => format!("{a}"),
        (Some(a), Some(b)) => format!("{a} to {b}"),
        (Some(a), None) => format!("{a} or more"),
        (None, Some(b)) => format!("{b} or less"),
        (None, None) => "every value".to_string(),
    }
}

fn basename(file: &str) -> &str {
    file.rsplit('/').next().unwrap_or(file)
}

/// The chart file a `from:` names (`terrain.yaml`, `cards.yaml`).
fn chart_named(name: &str) -> Option<&'static str> {
    FILES.iter().copied().find(|f| basename(f) == name)
}

/// Which counter value a `from: counter ...` reads.
fn counter_field(from: &str) -> Option<&'static str> {
    from.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .find_map(|w| COUNTER_FIELDS.iter().copied().find(|f| *f == w))
}

/// What a list of bands must cover.
#[derive(Clone, Copy)]
enum Domain {
    /// Exactly `lo..=hi` (an unmodified roll, a track).
    Exactly(i32, i32),
    /// Every integer: the first band open below, the last open above (a modified roll).
    Every,
    /// From 1 up, the last open (SP bands).
    FromOne,
    /// From a first value up, the last open or not (game turns).
    Turns,
}

/// Problems with their place in the files.
struct Problems<'a> {
    files: &'a BTreeMap<String, FileText>,
    list: Vec<Located>,
}

impl Problems<'_> {
    /// Record a problem at `field` (`close_combat_table.rows[3].results`),
    /// located by following that path through the file's text.
    fn add(&mut self, file: &str, field: impl Into<String>, message: impl Into<String>) {
        let field = field.into();
        let (label, place) = match self.files.get(file) {
            Some(f) => (f.label.clone(), position(&f.text, &field)),
            None => (file.to_string(), None),
        };
        self.list.push(Located {
            file: label,
            line: place.map(|p| p.0),
            column: place.map(|p| p.1),
            field,
            message: message.into(),
        });
    }
}

enum Step<'f> {
    Key(&'f str),
    Item(usize),
}

/// `a.b[3].c` → key a, key b, item 3, key c.
fn steps(field: &str) -> Vec<Step<'_>> {
    let mut out = Vec::new();
    for segment in field.split('.') {
        let (name, mut rest) = match segment.find('[') {
            Some(i) => (&segment[..i], &segment[i..]),
            None => (segment, ""),
        };
        if !name.is_empty() {
            out.push(Step::Key(name));
        }
        while let Some(inner) = rest.strip_prefix('[') {
            let Some(end) = inner.find(']') else { break };
            if let Ok(n) = inner[..end].parse() {
                out.push(Step::Item(n));
            }
            rest = &inner[end + 1..];
        }
    }
    out
}

/// The 1-based line and column of a field path in a YAML text, following
/// keys and list items as far as they can be found (best effort: the text
/// is searched, not parsed again).
fn position(text: &str, field: &str) -> Option<(usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut at: Option<(usize, usize)> = None;
    for step in steps(field) {
        let found = match step {
            Step::Key(key) => find_key(&lines, at, key),
            Step::Item(n) => at.and_then(|(line, _)| nth_item(&lines, line, n)),
        };
        match found {
            Some(p) => at = Some(p),
            None => break,
        }
    }
    at.map(|(l, c)| (l + 1, c + 1))
}

/// Where `key` of the mapping at `at` is: in a flow mapping on the same
/// line, else a block key on a following line indented under it (at the
/// root, a key at column 0).
fn find_key(lines: &[&str], at: Option<(usize, usize)>, key: &str) -> Option<(usize, usize)> {
    let tokens = [format!("{key}:"), format!("\"{key}\":")];
    if let Some((line, col)) = at {
        let text = lines.get(line).copied().unwrap_or("");
        if let Some(c) = tokens.iter().find_map(|t| find_in_line(text, col + 1, t)) {
            return Some((line, c));
        }
    }
    let (start, parent) = match at {
        Some((line, _)) => (line + 1, lines.get(line).map(|t| t.len() - t.trim_start().len())),
        None => (0, None),
    };
    for (n, text) in lines.iter().enumerate().skip(start) {
        let trimmed = text.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let indent = text.len() - trimmed.len();
        match parent {
            Some(p) if indent <= p => return None,
            None if indent > 0 => continue,
            _ => {}
        }
        let content = trimmed.strip_prefix("- ").unwrap_or(trimmed);
        let offset = text.len() - content.len();
        if tokens.iter().any(|t| find_in_line(content, 0, t) == Some(0)) {
            return Some((n, offset));
        }
    }
    None
}

/// The first `token` in `text` at or after byte `col`, standing as a word:
/// after the start, a space or `{[,`, and before the end, a space or `,}]`;
/// never in a comment.
fn find_in_line(text: &str, col: usize, token: &str) -> Option<usize> {
    let code = text.find(" #").map_or(text, |i| &text[..i]);
    let mut from = col;
    while let Some(i) = code.get(from..).and_then(|s| s.find(token)) {
        let start = from + i;
        let end = start + token.len();
        let before = code[..start].chars().next_back();
        let after = code[end..].chars().next();
        let starts = before.is_none_or(|c| c.is_whitespace() || "{[,".contains(c));
        let ends = after.is_none_or(|c| c.is_whitespace() || ",}]".contains(c));
        if starts && ends {
            return Some(start);
        }
        from = start + code[start..].chars().next().map_or(1, char::len_utf8);
    }
    None
}

/// The line and column of item `n` of the block list under the key on `line`.
fn nth_item(lines: &[&str], line: usize, n: usize) -> Option<(usize, usize)> {
    let mut indent = None;
    let mut count = 0;
    for (l, text) in lines.iter().enumerate().skip(line + 1) {
        let trimmed = text.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let ind = text.len() - trimmed.len();
        let item = trimmed.starts_with('-');
        match indent {
            None if !item => return None,
            None => indent = Some(ind),
            Some(i) if ind < i || (ind == i && !item) => return None,
            Some(_) => {}
        }
        if indent == Some(ind) && item {
            if count == n {
                return Some((l, ind));
            }
            count += 1;
        }
    }
    None
}

/// What a walk over a file's YAML tree finds.
#[derive(Default)]
struct Walk {
    floats: Vec<(String, String)>,
    sources: Vec<(String, String)>,
    ids: BTreeSet<String>,
}

impl Walk {
    fn visit(&mut self, value: &crate::base::yaml::Value, path: &str) {
        use crate::base::yaml::Value;
        match value {
            Value::Number(n) if n.is_f64() => self.floats.push((path.to_string(), n.to_string())),
            Value::Sequence(items) => {
                for (i, item) in items.iter().enumerate() {
                    self.visit(item, &format!("{path}[{i}]"));
                }
            }
            Value::Mapping(map) => {
                for (k, item) in map {
                    let key = match k {
                        Value::String(s) => s.clone(),
                        Value::Number(n) => n.to_string(),
                        Value::Bool(b) => b.to_string(),
                        _ => "?".to_string(),
                    };
                    let sub = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
                    if let Value::Number(n) = k {
                        if n.is_f64() {
                            self.floats.push((sub.clone(), n.to_string()));
                        }
                    }
                    if let Value::String(s) = item {
                        if key == "source" || key.ends_with("_source") {
                            self.sources.push((sub.clone(), s.clone()));
                        }
                        if key == "id" {
                            self.ids.insert(s.clone());
                        }
                    }
                    self.visit(item, &sub);
                }
            }
            Value::Tagged(tagged) => self.visit(&tagged.value, path),
            _ => {}
        }
    }
}

struct Checker<'a> {
    c: &'a Charts,
    ctx: &'a Context,
    p: Problems<'a>,
    codes: BTreeSet<&'a str>,
    effects: BTreeMap<&'a str, &'a EffectDef>,
    side_refs: BTreeSet<&'a str>,
    weather: BTreeSet<&'a str>,
    /// Every table id of the module (`roll-table` names one).
    tables: BTreeSet<&'a str>,
    /// Every id defined in each chart file, by file name (`terrain.yaml`).
    ids_by_file: BTreeMap<&'static str, BTreeSet<String>>,
}

impl<'a> Checker<'a> {
    fn new(c: &'a Charts, ctx: &'a Context) -> Self {
        Checker {
            c,
            ctx,
            p: Problems { files: &c.files, list: Vec::new() },
            codes: c.codes.combat_results.iter().map(|r| r.id.as_str()).collect(),
            effects: c.codes.effects.iter().map(|e| (e.id.as_str(), e)).collect(),
            side_refs: c.codes.side_refs.iter().map(|s| s.id.as_str()).collect(),
            weather: c.weather.conditions.iter().map(|w| w.id.as_str()).collect(),
            tables: Self::table_list(c).into_iter().map(|(_, _, id)| id).collect(),
            ids_by_file: BTreeMap::new(),
        }
    }

    fn table_list(c: &Charts) -> Vec<(&'static str, &'static str, &str)> {
        vec![
            (FIRE, "fire_table.id", c.fire.fire_table.id.as_str()),
            (FIRE, "rifle_fire_damage.id", &c.fire.rifle_fire_damage.id),
            (FIRE, "artillery_fire_damage.id", &c.fire.artillery_fire_damage.id),
            (FIRE, "fire_drms.id", &c.fire.fire_drms.id),
            (CLOSE_COMBAT, "close_combat_table.id", &c.close_combat.close_combat_table.id),
            (CLOSE_COMBAT_DRMS, "close_combat_drms.id", &c.close_combat_drms.close_combat_drms.id),
            (TACTICS, "matrix.id", &c.tactics.matrix.id),
            (ARMY_MORALE, "adjustments.id", &c.army_morale.adjustments.id),
            (LEADER_CASUALTY, "leader_casualty.id", &c.leader_casualty.leader_casualty.id),
            (WEATHER, "weather_table.id", &c.weather.weather_table.id),
            (SIEGE_BOMBARDMENT, "table_i.id", &c.siege_bombardment.table_i.id),
            (SIEGE_BOMBARDMENT, "table_ii.id", &c.siege_bombardment.table_ii.id),
            (MORTAR, "mortar_to_hit.id", &c.mortar.mortar_to_hit.id),
            (MORTAR, "scatter_and_drift.id", &c.mortar.scatter_and_drift.id),
            (MORTAR, "mortar_disable.id", &c.mortar.mortar_disable.id),
            (COVERED_WAY, "lost_roll.id", &c.covered_way.lost_roll.id),
            (FRENCH_VARIABLE_ENTRY, "french_variable_entry.id", &c.french_variable_entry.french_variable_entry.id),
            (SURRENDER, "surrender_roll.id", &c.surrender.surrender_roll.id),
            (VICTORY_POINTS, "victory_points.id", &c.victory_points.victory_points.id),
        ]
    }

    // --- helpers -----------------------------------------------------------

    /// An id: kebab-case, and not defined before in `seen` (id → where).
    fn id(&mut self, file: &str, seen: &mut BTreeMap<String, String>, field: &str, id: &str) {
        let at = format!("{field}.id");
        if !kebab(id) {
            self.p.add(
                file,
                &at,
                format!(
                    "'{id}' is not a kebab-case id: lowercase ASCII letters and digits joined by single \
                    hyphens, e.g. 'heavy-rain'"
                ),
            );
        }
        if let Some(first) = seen.get(id) {
            self.p.add(file, &at, format!("'{id}' is defined twice (first at {first}): an id is defined once"));
        } else {
            seen.insert(id.to_string(), field.to_string());
        }
    }

    /// Ids of one list, defined once within it.
    fn unique<'s>(&mut self, file: &str, list: &str, ids: impl IntoIterator<Item = &'s str>) {
        let mut seen = BTreeMap::new();
        for (i, id) in ids.into_iter().enumerate() {
            self.id(file, &mut seen, &format!("{list}[{i}]"), id);
        }
    }

    /// A reference into a set of ids the charts define.
    fn reference(&mut self, file: &str, field: &str, id: &str, set: &BTreeSet<&str>, what: &str) {
        if !set.contains(id) {
            self.p.add(file, field, format!("'{id}' is not {what}; they are: {}", listing(set.iter())));
        }
    }

    /// A reference into a set the context knows (unknown sets are not checked).
    fn context_ref(&mut self, file: &str, field: &str, id: &str, set: &Option<BTreeSet<String>>, what: &str) {
        if let Some(s) = set {
            if !s.contains(id) {
                self.p.add(file, field, format!("'{id}' is not {what}; they are: {}", listing(s.iter())));
            }
        }
    }

    fn sides(&mut self, file: &str, field: &str, sides: &[String]) {
        for (i, s) in sides.iter().enumerate() {
            self.context_ref(file, &format!("{field}[{i}]"), s, &self.ctx.sides.clone(), "a side of module.yaml");
        }
    }

    fn scenarios(&mut self, file: &str, field: &str, scenarios: &[String]) {
        for (i, s) in scenarios.iter().enumerate() {
            self.context_ref(
                file,
                &format!("{field}[{i}]"),
                s,
                &self.ctx.scenarios.clone(),
                "a scenario of module.yaml",
            );
        }
    }

    /// Game turns: from 1, strictly increasing.
    fn turn_list(&mut self, file: &str, field: &str, turns: &[u32]) {
        for (i, t) in turns.iter().enumerate() {
            if *t == 0 {
                self.p.add(file, format!("{field}[{i}]"), "turn 0: game turns count from 1");
            }
            if i > 0 && turns[i - 1] >= *t {
                self.p.add(
                    file,
                    format!("{field}[{i}]"),
                    format!("turn {t} after turn {}: list the turns once each, in increasing order", turns[i - 1]),
                );
            }
        }
    }

    /// Bands in order, without gap or overlap, covering `domain`.
    fn bands(
        &mut self,
        file: &str,
        list: &str,
        at: &dyn Fn(usize) -> String,
        bands: &[(Option<i32>, Option<i32>)],
        domain: Domain,
    ) {
        let Some(last) = bands.len().checked_sub(1) else {
            self.p.add(file, list, "no bands: the table needs at least one");
            return;
        };
        for (i, &(min, max)) in bands.iter().enumerate() {
            let here = at(i);
            if min.is_none() && i != 0 {
                self.p.add(file, &here, "only the first band may omit min ('or less')");
            }
            if max.is_none() && i != last {
                self.p.add(file, &here, "only the last band may omit max ('or more')");
            }
            if let (Some(a), Some(b)) = (min, max) {
                if a > b {
                    self.p.add(file, &here, format!("min {a} is above max {b}"));
                }
            }
            if i > 0 {
                if let (Some(prev), Some(a)) = (bands[i - 1].1, min) {
                    if a <= prev {
                        self.p.add(
                            file,
                            &here,
                            format!("{} overlaps the band before it (up to {prev})", show_band(min, max)),
                        );
                    } else if a - 1 > prev {
                        let gap = show_band(Some(prev + 1), Some(a - 1));
                        self.p.add(
                            file,
                            &here,
                            format!("{gap} falls in no band: the band before ends at {prev}, this one starts at {a}"),
                        );
                    }
                }
            }
        }
        let (first_min, last_max) = (bands[0].0, bands[last].1);
        match domain {
            Domain::Exactly(lo, hi) => {
                if first_min != Some(lo) {
                    self.p.add(
                        file,
                        at(0),
                        format!(
                            "the bands cover {lo} to {hi} exactly (an unmodified roll \
                        reads the die's faces): the first starts at min: {lo}"
                        ),
                    );
                }
                if last_max != Some(hi) {
                    self.p.add(
                        file,
                        at(last),
                        format!(
                            "the bands cover {lo} to {hi} exactly (an unmodified roll \
                        reads the die's faces): the last ends at max: {hi}"
                        ),
                    );
                }
            }
            Domain::Every => {
                if first_min.is_some() {
                    self.p.add(
                        file,
                        at(0),
                        "a modified roll can fall below any number: omit min on the first band ('or less')",
                    );
                }
                if last_max.is_some() {
                    self.p.add(
                        file,
                        at(last),
                        "a modified roll can rise above any number: omit max on the last band ('or more')",
                    );
                }
            }
            Domain::FromOne => {
                if first_min != Some(1) {
                    self.p.add(file, at(0), "the bands start at min: 1");
                }
                if last_max.is_some() {
                    self.p.add(file, at(last), "the last band is open: omit its max ('or more')");
                }
            }
            Domain::Turns => {
                if first_min.is_none() {
                    self.p.add(file, at(0), "the first band of turns starts at a turn: give its min");
                }
            }
        }
    }

    /// The bands of a roll table: the die's faces without DRMs, every integer with them.
    fn roll_bands(&mut self, file: &str, list: &str, bands: &[(Option<i32>, Option<i32>)], die: Die, modified: bool) {
        let (lo, hi) = die.faces();
        let domain = if modified { Domain::Every } else { Domain::Exactly(lo, hi) };
        let at = |i: usize| format!("{list}[{i}]");
        self.bands(file, list, &at, bands, domain);
    }

    /// One side's result in a chart: result codes of codes.yaml, combined as
    /// codes.yaml's `combination_rules` say (13.1).
    fn results(&mut self, file: &str, field: &str, codes: &[String]) {
        if codes.is_empty() {
            self.p.add(file, field, "no result: write [no-effect] for none (13.1)");
            return;
        }
        let mut main = Vec::new();
        for (i, code) in codes.iter().enumerate() {
            if !self.codes.contains(code.as_str()) {
                self.p.add(
                    file,
                    format!("{field}[{i}]"),
                    format!(
                        "'{code}' is not a result code of codes.yaml (13.1); the codes are: {}",
                        listing(&self.codes)
                    ),
                );
                continue;
            }
            if codes[..i].contains(code) {
                self.p.add(file, format!("{field}[{i}]"), format!("'{code}' is written twice in one result"));
            }
            if ![NO_EFFECT, ARMY_MORALE_RESULT, LEADER_CASUALTY_RESULT].contains(&code.as_str()) {
                main.push(code.as_str());
            }
        }
        let has = |c: &str| codes.iter().any(|x| x == c);
        if has(NO_EFFECT) && codes.iter().any(|c| c != NO_EFFECT && c != LEADER_CASUALTY_RESULT) {
            self.p.add(
                file,
                field,
                format!("{NO_EFFECT} stands alone, or with {LEADER_CASUALTY_RESULT}: [{}]", codes.join(", ")),
            );
        }
        if codes.iter().all(|c| c == LEADER_CASUALTY_RESULT) {
            self.p.add(
                file,
                field,
                format!(
                    "{LEADER_CASUALTY_RESULT} is never alone; it rides on another result, \
                e.g. [{NO_EFFECT}, {LEADER_CASUALTY_RESULT}]"
                ),
            );
        }
        if main.len() > 1 {
            self.p.add(
                file,
                field,
                format!(
                    "at most one result besides {ARMY_MORALE_RESULT} and {LEADER_CASUALTY_RESULT} in one \
                    side's result; found {}",
                    main.join(", ")
                ),
            );
        }
    }

    /// A `from:` that names a chart file (and maybe an id in it) or a counter.
    fn check_from_path(&mut self, file: &str, field: &str, from: &str) {
        let mut words = from.split_whitespace();
        let first = words.next().unwrap_or("");
        if first == "counter" {
            return;
        }
        let Some(target) = chart_named(first) else {
            self.p.add(
                file,
                field,
                format!(
                    "'{from}' reads from neither a chart of this module ({}) nor a counter ('counter <value> ...')",
                    listing(FILES.iter().map(|f| basename(f)))
                ),
            );
            return;
        };
        if let Some(id) = words.next().and_then(selector) {
            let defined = self.ids_by_file.get(basename(target)).is_some_and(|ids| ids.contains(id));
            if !defined {
                self.p.add(file, field, format!("{first} defines no id '{id}'"));
            }
        }
    }

    /// 15.32, 16.2: how far a unit's printed morale can move (Army Morale
    /// levels, then the unit morale modifiers of morale-check.yaml).
    fn morale_modifier_span(&self) -> (i32, i32) {
        let levels = self.c.army_morale.levels.iter().filter_map(|l| l.unit_morale_modifier);
        let (mut lo, mut hi) = levels.fold((0, 0), |(lo, hi), v| (lo.min(v), hi.max(v)));
        for m in &self.c.morale_check.unit_morale_modifiers {
            if let Some(v) = m.value {
                if v < 0 {
                    lo = lo.saturating_add(v);
                } else {
                    hi = hi.saturating_add(v);
                }
            }
        }
        (lo, hi)
    }

    /// A list of DRMs.
    fn drms(&mut self, file: &str, list: &str, entries: &[Drm]) {
        let mut seen = BTreeMap::new();
        for (i, d) in entries.iter().enumerate() {
            let f = format!("{list}[{i}]");
            self.id(file, &mut seen, &f, &d.id);
            let kinds = [d.value.is_some(), d.schedule.is_some(), d.from.is_some()].iter().filter(|k| **k).count();
            if kinds != 1 {
                self.p.add(
                    file,
                    &f,
                    format!("DRM '{}' has {kinds} of value, schedule and from: an entry has exactly one", d.id),
                );
            }
            if let Some(schedule) = &d.schedule {
                let bands: Vec<_> = schedule.iter().map(|s| (s.turns.min, s.turns.max)).collect();
                let at = |j: usize| format!("{f}.schedule[{j}].turns");
                self.bands(file, &format!("{f}.schedule"), &at, &bands, Domain::Turns);
            }
            let counter = d.from.as_deref().is_some_and(|from| from.split_whitespace().next() == Some("counter"));
            if let Some(from) = &d.from {
                if !counter {
                    self.check_from_path(file, &format!("{f}.from"), from);
                }
            }
            if !counter && d.sign.is_some() {
                self.p.add(
                    file,
                    format!("{f}.sign"),
                    "sign goes only with from: counter ... (it says whether the \
                    counter's value is added or subtracted)",
                );
            }
            if !counter && d.bounds.is_some() {
                self.p.add(
                    file,
                    format!("{f}.bounds"),
                    "bounds go only with from: counter ... (the range of the counter's value)",
                );
            }
            if let Some(sign) = d.sign {
                if sign != 1 && sign != -1 {
                    self.p.add(
                        file,
                        format!("{f}.sign"),
                        format!("sign {sign}: write 1 (add the counter's value) or -1 (subtract it)"),
                    );
                }
            }
            if let Some(b) = d.bounds {
                if b.min > b.max {
                    self.p.add(file, format!("{f}.bounds"), format!("bounds min {} is above max {}", b.min, b.max));
                } else if counter {
                    self.counter_bounds(file, &f, d, b);
                }
            }
            if d.max.is_some() && d.per.is_none() && d.per_hexes.is_none() {
                self.p.add(file, format!("{f}.max"), "max caps a DRM that counts per thing: give per, or drop max");
            }
            if d.per_hexes == Some(0) {
                self.p.add(file, format!("{f}.per_hexes"), "per_hexes is 1 or more");
            }
            for (key, word) in [("group", &d.group), ("per", &d.per)] {
                if let Some(w) = word {
                    if !kebab(w) {
                        self.p.add(file, format!("{f}.{key}"), format!("'{w}' is not a kebab-case id"));
                    }
                }
            }
            self.sides(file, &format!("{f}.sides"), &d.sides);
            self.scenarios(file, &format!("{f}.scenarios"), &d.scenarios);
            self.turn_list(file, &format!("{f}.turns"), &d.turns);
        }
    }

    /// Every counter's value lies within a counter-valued DRM's bounds
    /// (morale as modified by Army Morale, 15.32).
    fn counter_bounds(&mut self, file: &str, f: &str, d: &Drm, b: Range) {
        let Some(counters) = &self.ctx.counters else { return };
        let from = d.from.as_deref().unwrap_or("");
        let Some(field) = counter_field(from) else {
            self.p.add(
                file,
                format!("{f}.from"),
                format!("'{from}' names no counter value; name one of {}", listing(COUNTER_FIELDS)),
            );
            return;
        };
        let (lo, hi) = if field == "morale" { self.morale_modifier_span() } else { (0, 0) };
        let mut out = Vec::new();
        for (id, facts) in counters {
            for v in facts.values(field) {
                let (low, high) = (v.saturating_add(lo), v.saturating_add(hi));
                if low < b.min || high > b.max {
                    out.push(if (lo, hi) == (0, 0) {
                        format!("counter '{id}' has {field} {v}, outside bounds {} to {}", b.min, b.max)
                    } else {
                        format!(
                            "counter '{id}' has {field} {v}, which Army Morale and the unit morale modifiers \
                                ({lo} to {hi}) take to {} to {}, outside bounds {} to {}",
                            low, high, b.min, b.max
                        )
                    });
                }
            }
        }
        for message in out {
            self.p.add(
                file,
                format!("{f}.bounds"),
                format!("{message}: widen the bounds (and the rows they reach) or correct the counter"),
            );
        }
    }

    /// Effects in the vocabulary of codes.yaml, each with exactly its params.
    fn effect_list(&mut self, file: &str, list: &str, effects: &[Effect]) {
        for (i, e) in effects.iter().enumerate() {
            let f = format!("{list}[{i}]");
            let Some(def) = self.effects.get(e.effect.as_str()).copied() else {
                self.p.add(
                    file,
                    format!("{f}.effect"),
                    format!(
                        "'{}' is not an effect of codes.yaml; they are: {}",
                        e.effect,
                        listing(self.effects.keys())
                    ),
                );
                continue;
            };
            let missing: Vec<&str> = def
                .params
                .iter()
                .map(String::as_str)
                .filter(|p| !e.params.contains_key(*p) && !OPTIONAL_PARAMS.contains(&(def.id.as_str(), *p)))
                .collect();
            if !missing.is_empty() {
                self.p.add(
                    file,
                    &f,
                    format!("effect '{}' needs {} (its params: {})", def.id, missing.join(", "), listing(&def.params)),
                );
            }
            for (name, value) in &e.params {
                let at = format!("{f}.{name}");
                if !def.params.contains(name) {
                    self.p.add(
                        file,
                        &at,
                        format!(
                            "'{name}' is not a param of effect '{}' (its params: {})",
                            def.id,
                            listing(&def.params)
                        ),
                    );
                    continue;
                }
                self.param_value(file, &at, name, value);
            }
        }
    }

    /// Effect params (codes.yaml `effects`) whose value names other data.
    fn param_value(&mut self, file: &str, field: &str, name: &str, value: &Param) {
        let word = value.as_word();
        let needs_word = ["side", "weather", "table", "unit", "replacement", "leader", "entry"];
        if needs_word.contains(&name) && word.is_none() {
            self.p.add(file, field, format!("{name} names an id: write one word"));
            return;
        }
        let w = word.unwrap_or("");
        match name {
            "side" => self.reference(file, field, w, &self.side_refs.clone(), "a side reference of codes.yaml"),
            "weather" => self.reference(file, field, w, &self.weather.clone(), "a weather of weather.yaml"),
            "table" => self.reference(file, field, w, &self.tables.clone(), "a table id of this module"),
            "unit" | "replacement" | "leader" => {
                let Some(counters) = &self.ctx.counters else { return };
                match counters.get(w) {
                    None => self.p.add(file, field, format!("'{w}' is not a counter of counters.yaml")),
                    Some(c) if name == "leader" && !c.leader => {
                        self.p.add(file, field, format!("'{w}' is a counter of counters.yaml but not a leader"))
                    }
                    Some(_) => {}
                }
            }
            "entry" if w.parse::<HexId>().is_err() => {
                let entries = self.ctx.entry_hexes.clone();
                self.context_ref(file, field, w, &entries, "an entry hex of map.yaml (or a hex, CCRR)");
            }
            _ => {}
        }
    }

    /// A result table: results defined once, bands, DRMs, results used defined.
    fn result_table(&mut self, file: &str, name: &str, t: &ResultTable, die: Die) {
        self.unique(file, &format!("{name}.results"), t.results.iter().map(|r| r.id.as_str()));
        self.drms(file, &format!("{name}.drms"), &t.drms);
        let bands: Vec<_> = t.outcomes.iter().map(|o| (o.min, o.max)).collect();
        self.roll_bands(file, &format!("{name}.outcomes"), &bands, die, !t.drms.is_empty());
        let results: BTreeSet<&str> = t.results.iter().map(|r| r.id.as_str()).collect();
        for (i, o) in t.outcomes.iter().enumerate() {
            self.reference(
                file,
                &format!("{name}.outcomes[{i}].result"),
                &o.result,
                &results,
                "one of this table's results",
            );
        }
    }

    /// 10.3, 11.2: SP bands from 1 up, a number for every range.
    fn check_to_hit(&mut self, file: &str, name: &str, t: &ToHitTable) {
        if t.ranges.is_empty() {
            self.p.add(file, format!("{name}.ranges"), "no ranges: list the ranges in hexes, e.g. [1, 2, 3]");
        }
        if t.ranges.first() == Some(&0) {
            self.p.add(
                file,
                format!("{name}.ranges"),
                "range 0: a range counts the target's hex (11.2), so 'adjacent' is 1",
            );
        }
        for w in t.ranges.windows(2) {
            if w[1] <= w[0] {
                self.p.add(file, format!("{name}.ranges"), format!("range {} after {}: ranges increase", w[1], w[0]));
            }
        }
        let bands: Vec<_> = t.rows.iter().map(|r| (r.sp.min, r.sp.max)).collect();
        let at = |i: usize| format!("{name}.rows[{i}].sp");
        self.bands(file, &format!("{name}.rows"), &at, &bands, Domain::FromOne);
        for (i, row) in t.rows.iter().enumerate() {
            let sp = show_band(row.sp.min, row.sp.max);
            let missing: Vec<String> =
                t.ranges.iter().filter(|r| !row.to_hit.contains_key(r)).map(|r| r.to_string()).collect();
            if !missing.is_empty() {
                self.p.add(
                    file,
                    format!("{name}.rows[{i}].to_hit"),
                    format!(
                        "no To Hit number for range {} at {sp} SP: every row has every range ({})",
                        missing.join(", "),
                        listing(t.ranges.iter().map(|r| r.to_string()))
                    ),
                );
            }
            for r in row.to_hit.keys().filter(|r| !t.ranges.contains(r)) {
                self.p.add(
                    file,
                    format!("{name}.rows[{i}].to_hit.{r}"),
                    format!("range {r} is not one of ranges ({})", listing(t.ranges.iter().map(|r| r.to_string()))),
                );
            }
        }
    }

    // --- the files ---------------------------------------------------------

    /// Every file: sources, stand-ins, floats; and the ids it defines.
    fn conventions(&mut self) {
        let c = self.c;
        for (file, text) in &c.files {
            let Ok(tree) = crate::base::yaml::from_str::<crate::base::yaml::Value>(&text.text) else { continue };
            let mut walk = Walk::default();
            walk.visit(&tree, "");
            for (path, v) in &walk.floats {
                self.p.add(
                    file,
                    path,
                    format!(
                        "{v} is a float; charts hold integers only (odds are pairs [3, 2], VPs are counted in halves)"
                    ),
                );
            }
            for (path, s) in &walk.sources {
                if !(s.starts_with("rules ") || s.starts_with("stand-in")) {
                    self.p.add(
                        file,
                        path,
                        format!(
                            "source '{s}': write 'rules <number>' for a printed value, 'stand-in', or both \
                            ('rules 16.23; stand-in (range)')"
                        ),
                    );
                }
            }
            let top = tree.get("source").and_then(crate::base::yaml::Value::as_str).unwrap_or("");
            if !top.starts_with("stand-in") {
                if let Some((path, _)) = walk.sources.iter().find(|(p, s)| p != "source" && s.contains("stand-in")) {
                    self.p.add(
                        file,
                        "source",
                        format!("{path} is a stand-in, so the file's top source is stand-in (charts.md)"),
                    );
                }
            }
            if let Some(name) = FILES.iter().find(|f| *f == file).map(|f| basename(f)) {
                self.ids_by_file.insert(name, walk.ids);
            }
        }
    }

    /// Table ids: kebab-case, unique across the module (`roll-table` names them).
    fn table_ids(&mut self) {
        let mut seen: BTreeMap<&str, String> = BTreeMap::new();
        for (file, field, id) in Self::table_list(self.c) {
            if !kebab(id) {
                self.p.add(file, field, format!("'{id}' is not a kebab-case id"));
            }
            match seen.get(id) {
                Some(first) => {
                    self.p.add(file, field, format!("table id '{id}' is also {first}: each table has its own"))
                }
                None => {
                    seen.insert(id, format!("{} {field}", basename(file)));
                }
            }
        }
    }

    fn codes(&mut self) {
        let k = &self.c.codes;
        self.unique(CODES, "combat_results", k.combat_results.iter().map(|r| r.id.as_str()));
        let mut symbols: BTreeMap<&str, usize> = BTreeMap::new();
        for (i, r) in k.combat_results.iter().enumerate() {
            if let Some(j) = symbols.insert(&r.symbol, i) {
                self.p.add(
                    CODES,
                    format!("combat_results[{i}].symbol"),
                    format!("symbol '{}' is also combat_results[{j}]'s", r.symbol),
                );
            }
        }
        self.unique(CODES, "side_refs", k.side_refs.iter().map(|s| s.id.as_str()));
        self.unique(CODES, "effects", k.effects.iter().map(|e| e.id.as_str()));
        for (i, e) in k.effects.iter().enumerate() {
            for (j, p) in e.params.iter().enumerate() {
                if e.params[..j].contains(p) {
                    self.p.add(CODES, format!("effects[{i}].params[{j}]"), format!("param '{p}' is listed twice"));
                }
            }
        }
    }

    fn fire(&mut self) {
        let fire = &self.c.fire;
        self.check_to_hit(FIRE, "fire_table", &fire.fire_table);
        for (name, t) in
            [("rifle_fire_damage", &fire.rifle_fire_damage), ("artillery_fire_damage", &fire.artillery_fire_damage)]
        {
            let (lo, hi) = fire.die.faces();
            for (i, row) in t.rows.iter().enumerate() {
                let at = format!("{name}.rows[{i}]");
                if row.roll < lo || row.roll > hi {
                    self.p.add(
                        FIRE,
                        format!("{at}.roll"),
                        format!("roll {}: the table is read with an unmodified roll, {lo} to {hi}", row.roll),
                    );
                } else if let Some(j) = t.rows[..i].iter().position(|r| r.roll == row.roll) {
                    self.p.add(
                        FIRE,
                        format!("{at}.roll"),
                        format!("roll {} has two rows ({name}.rows[{j}] too)", row.roll),
                    );
                } else if i > 0 && t.rows[i - 1].roll > row.roll {
                    self.p.add(
                        FIRE,
                        format!("{at}.roll"),
                        format!("roll {} after roll {}: the rows run in order", row.roll, t.rows[i - 1].roll),
                    );
                }
                self.results(FIRE, &format!("{at}.result"), &row.result);
            }
            for n in lo..=hi {
                if !t.rows.iter().any(|r| r.roll == n) {
                    self.p.add(
                        FIRE,
                        format!("{name}.rows"),
                        format!(
                            "no row for roll {n}: one row per unmodified roll {lo} to {hi} (10.3 step 3, 11.3 step 3)"
                        ),
                    );
                }
            }
        }
        self.drms(FIRE, "fire_drms.entries", &fire.fire_drms.entries);
    }

    fn close_combat(&mut self) {
        let t = &self.c.close_combat.close_combat_table;
        let (f, n) = (CLOSE_COMBAT, "close_combat_table");
        self.unique(f, &format!("{n}.columns"), t.columns.iter().map(|c| c.id.as_str()));
        for (i, col) in t.columns.iter().enumerate() {
            let [a, d] = col.odds;
            if a == 0 || d == 0 {
                self.p.add(f, format!("{n}.columns[{i}].odds"), format!("odds [{a}, {d}]: both numbers are 1 or more"));
                continue;
            }
            let want = format!("{a}-{d}");
            if col.id != want {
                self.p.add(
                    f,
                    format!("{n}.columns[{i}].id"),
                    format!("column '{}' has odds [{a}, {d}], so its id is '{want}'", col.id),
                );
            }
            if let Some(prev) = i.checked_sub(1).and_then(|j| t.columns.get(j)) {
                let [pa, pd] = prev.odds;
                if u64::from(pa) * u64::from(d) >= u64::from(a) * u64::from(pd) {
                    self.p.add(
                        f,
                        format!("{n}.columns[{i}].odds"),
                        format!(
                            "odds {a}:{d} are not above the column before ({pa}:{pd}): columns run from the \
                            lowest odds to the highest, so that a diversion (12.14) shifts one left"
                        ),
                    );
                }
            }
        }
        let columns: Vec<&str> = t.columns.iter().map(|c| c.id.as_str()).collect();
        let column_set: BTreeSet<&str> = columns.iter().copied().collect();
        self.reference(f, &format!("{n}.below_lowest"), &t.below_lowest, &column_set, "an odds column");
        self.reference(f, &format!("{n}.above_highest"), &t.above_highest, &column_set, "an odds column");
        let m = &t.momentum;
        if m.defender_gains_at_most >= m.attacker_gains_at_least {
            self.p.add(
                f,
                format!("{n}.momentum"),
                format!(
                    "the Defender gains at {} or less and the Attacker at {} or more: one roll would give both (12.63)",
                    m.defender_gains_at_most, m.attacker_gains_at_least
                ),
            );
        }
        let rolls = t.rolls;
        if rolls.min > rolls.max {
            self.p.add(f, format!("{n}.rolls"), format!("rolls min {} is above max {}", rolls.min, rolls.max));
        }
        let mut seen: BTreeMap<i32, usize> = BTreeMap::new();
        for (i, row) in t.rows.iter().enumerate() {
            let at = format!("{n}.rows[{i}]");
            if row.roll < rolls.min || row.roll > rolls.max {
                self.p.add(
                    f,
                    format!("{at}.roll"),
                    format!("roll {} is outside rolls {} to {}", row.roll, rolls.min, rolls.max),
                );
            }
            if let Some(j) = seen.get(&row.roll) {
                self.p.add(f, format!("{at}.roll"), format!("roll {} has two rows ({n}.rows[{j}] too)", row.roll));
            } else {
                if i > 0 && t.rows[i - 1].roll > row.roll {
                    self.p.add(
                        f,
                        format!("{at}.roll"),
                        format!(
                            "roll {} after roll {}: the rows run from the lowest roll to the highest",
                            row.roll,
                            t.rows[i - 1].roll
                        ),
                    );
                }
                seen.insert(row.roll, i);
            }
            for col in &columns {
                if !row.results.contains_key(*col) {
                    self.p.add(
                        f,
                        format!("{at}.results"),
                        format!(
                            "no result for column {col} at roll {}: every row has all {} columns ({})",
                            row.roll,
                            columns.len(),
                            listing(&columns)
                        ),
                    );
                }
            }
            for (key, cell) in &row.results {
                let here = format!("{at}.results.{key}");
                if !column_set.contains(key.as_str()) {
                    self.p.add(f, &here, format!("'{key}' is not an odds column; they are: {}", listing(&columns)));
                    continue;
                }
                self.results(f, &format!("{here}[0]"), &cell.attacker);
                self.results(f, &format!("{here}[1]"), &cell.defender);
                if cell.attacker.iter().any(|c| c == PIN) != cell.defender.iter().any(|c| c == PIN) {
                    self.p.add(
                        f,
                        &here,
                        format!("{PIN} in one half only: it is in both halves of a cell or in neither (13.1)"),
                    );
                }
            }
        }
        // Missing rolls, one problem per run of them (in i64: rolls may end at i32::MAX).
        let (lo, hi) = (i64::from(rolls.min), i64::from(rolls.max));
        let mut expected = lo;
        let present = seen.keys().map(|r| i64::from(*r)).filter(|r| (lo..=hi).contains(r));
        for next in present.chain([hi + 1]) {
            if next > expected {
                let run =
                    if next - 1 == expected { format!("{expected}") } else { format!("{expected} to {}", next - 1) };
                let at = t.rows.iter().position(|row| i64::from(row.roll) > expected);
                self.p.add(
                    f,
                    at.map_or(format!("{n}.rows"), |i| format!("{n}.rows[{i}]")),
                    format!("no row for roll {run}: the table has one row per modified roll from {lo} to {hi} (rolls)"),
                );
            }
            expected = next + 1;
        }
        match self.c.close_combat_reach(self.ctx) {
            Ok(reach) if reach.min < rolls.min || reach.max > rolls.max => {
                let explain = |parts: &[(String, i32)]| listing(parts.iter().map(|(name, v)| format!("{name} {v:+}")));
                self.p.add(
                    f,
                    format!("{n}.rolls"),
                    format!(
                        "the DRMs reach {} to {} (lowest: {}; highest: {}), beyond rolls {} to {}: the table \
                            needs a row for every roll from {} to {} (12.23)",
                        reach.min,
                        reach.max,
                        explain(&reach.lowest),
                        explain(&reach.highest),
                        rolls.min,
                        rolls.max,
                        reach.min.min(rolls.min),
                        reach.max.max(rolls.max)
                    ),
                );
            }
            Ok(_) => {}
            Err(list) => {
                for (i, why) in list {
                    self.p.add(
                        CLOSE_COMBAT_DRMS,
                        format!("close_combat_drms.entries[{i}]"),
                        format!("{why}; the Close Combat Table's reach (12.23) cannot be checked"),
                    );
                }
            }
        }
    }

    fn close_combat_drms(&mut self) {
        let d = &self.c.close_combat_drms.close_combat_drms;
        let f = CLOSE_COMBAT_DRMS;
        self.drms(f, "close_combat_drms.entries", &d.entries);
        let groups = self.ctx.colour_groups.clone();
        for (i, g) in d.regulars.groups.iter().enumerate() {
            self.context_ref(
                f,
                &format!("close_combat_drms.regulars.groups[{i}]"),
                g,
                &groups,
                "a colour group of module.yaml",
            );
        }
        let regulars: BTreeSet<&str> = d.regulars.groups.iter().map(String::as_str).collect();
        for (i, g) in d.regulars.british_regulars.iter().enumerate() {
            self.reference(
                f,
                &format!("close_combat_drms.regulars.british_regulars[{i}]"),
                g,
                &regulars,
                "one of regulars.groups",
            );
        }
    }

    fn tactics(&mut self) {
        let t = &self.c.tactics;
        let f = TACTICS;
        self.unique(f, "chits", t.chits.iter().map(|c| c.id.as_str()));
        let mut forbidden = BTreeMap::new();
        for (i, chit) in t.chits.iter().enumerate() {
            for (j, r) in chit.requires.iter().enumerate() {
                if !kebab(r) {
                    self.p.add(
                        f,
                        format!("chits[{i}].requires[{j}]"),
                        format!("'{r}' is not a kebab-case condition id"),
                    );
                }
            }
            for (j, fw) in chit.forbidden_when.iter().enumerate() {
                self.id(f, &mut forbidden, &format!("chits[{i}].forbidden_when[{j}]"), &fw.id);
                self.sides(f, &format!("chits[{i}].forbidden_when[{j}].sides"), &fw.sides);
            }
        }
        let chits: Vec<&str> = t.chits.iter().map(|c| c.id.as_str()).collect();
        let chit_set: BTreeSet<&str> = chits.iter().copied().collect();
        let m = &t.matrix;
        let words: BTreeSet<&str> = m.results.iter().map(String::as_str).collect();
        for (i, w) in m.results.iter().enumerate() {
            if !kebab(w) {
                self.p.add(f, format!("matrix.results[{i}]"), format!("'{w}' is not a kebab-case id"));
            }
            if chit_set.contains(w.as_str()) {
                self.p.add(
                    f,
                    format!("matrix.results[{i}]"),
                    format!("'{w}' is a chit id too; a result word must differ"),
                );
            }
        }
        for (i, col) in m.columns.iter().enumerate() {
            self.reference(f, &format!("matrix.columns[{i}]"), col, &chit_set, "a chit of chits");
            if m.columns[..i].contains(col) {
                self.p.add(f, format!("matrix.columns[{i}]"), format!("chit '{col}' has two columns"));
            }
        }
        for chit in &chits {
            if !m.columns.iter().any(|c| c == chit) {
                self.p.add(
                    f,
                    "matrix.columns",
                    format!("chit '{chit}' has no column: the Defender may play any chit (12.51)"),
                );
            }
        }
        let cells = chits.len() * chits.len();
        for a in &chits {
            let Some(row) = m.rows.get(*a) else {
                self.p.add(
                    f,
                    "matrix.rows",
                    format!("no row for the Attacker's chit '{a}': the matrix has all {cells} cells"),
                );
                continue;
            };
            for d in &chits {
                match row.get(*d) {
                    None => self.p.add(
                        f,
                        format!("matrix.rows.{a}"),
                        format!(
                            "no cell for the Attacker's '{a}' against the Defender's '{d}': the matrix has a \
                            cell for every pair of chits, {} x {} = {cells} (12.23 step 4)",
                            chits.len(),
                            chits.len()
                        ),
                    ),
                    Some(TacticsCell::Result(w)) if !words.contains(w.as_str()) => self.p.add(
                        f,
                        format!("matrix.rows.{a}.{d}"),
                        format!("'{w}' is neither a DRM nor one of results ({})", listing(&words)),
                    ),
                    Some(_) => {}
                }
            }
            for key in row.keys().filter(|k| !chit_set.contains(k.as_str())) {
                self.p.add(
                    f,
                    format!("matrix.rows.{a}.{key}"),
                    format!("'{key}' is not a chit; they are: {}", listing(&chits)),
                );
            }
        }
        for key in m.rows.keys().filter(|k| !chit_set.contains(k.as_str())) {
            self.p.add(
                f,
                format!("matrix.rows.{key}"),
                format!("'{key}' is not a chit; they are: {}", listing(&chits)),
            );
        }
    }

    fn map_ref(&mut self, file: &str, field: &str, r: &str) {
        match r.split_once('/') {
            Some(("places", id)) => {
                let places = self.ctx.places.clone();
                self.context_ref(file, field, id, &places, "a place of map.yaml");
            }
            Some(("zones", id)) => {
                let zones = self.ctx.zones.clone();
                self.context_ref(file, field, id, &zones, "a zone of map.yaml");
            }
            _ => self.p.add(file, field, format!("'{r}': write places/<id> or zones/<id> of map.yaml")),
        }
    }

    fn terrain(&mut self) {
        let t = &self.c.terrain;
        let f = TERRAIN;
        let mut seen = BTreeMap::new();
        for (i, h) in t.hexes.iter().enumerate() {
            self.id(f, &mut seen, &format!("hexes[{i}]"), &h.id);
            if let MovementCost::Mp(n) = h.movement_cost {
                if n < 1 {
                    self.p.add(
                        f,
                        format!("hexes[{i}].movement_cost"),
                        format!("{n}: entering a hex costs 1 MP or more (9.1), or write prohibited"),
                    );
                }
            }
        }
        let features: BTreeSet<&str> = t.hexsides.iter().map(|h| h.id.as_str()).collect();
        for (i, h) in t.hexsides.iter().enumerate() {
            let at = format!("hexsides[{i}]");
            self.id(f, &mut seen, &at, &h.id);
            let direct = [
                ("movement_cost_added", h.movement_cost_added.is_some()),
                ("zoc_crosses", h.zoc_crosses.is_some()),
                ("fire_drm", h.fire_drm.is_some()),
                ("close_combat_drm", h.close_combat_drm.is_some()),
            ];
            if h.directional {
                for (key, value) in [("into", h.into.is_some()), ("out_of", h.out_of.is_some())] {
                    if !value {
                        self.p.add(
                            f,
                            &at,
                            format!(
                                "'{}' is directional: give its effects under into and out_of ({key} is missing)",
                                h.id
                            ),
                        );
                    }
                }
                for (key, _) in direct.iter().filter(|(_, present)| *present) {
                    self.p.add(
                        f,
                        format!("{at}.{key}"),
                        format!("'{}' is directional: {key} goes under into and out_of", h.id),
                    );
                }
            } else {
                for (key, present) in [("into", h.into.is_some()), ("out_of", h.out_of.is_some())] {
                    if present {
                        self.p.add(
                            f,
                            format!("{at}.{key}"),
                            format!("'{}' is not directional: its effects go on the entry itself", h.id),
                        );
                    }
                }
                let missing: Vec<&str> = direct.iter().filter(|(_, present)| !present).map(|(k, _)| *k).collect();
                if !missing.is_empty() {
                    self.p.add(f, &at, format!("'{}' needs {} (9.4, 8.1, 10.3, 12.23)", h.id, missing.join(", ")));
                }
            }
            if h.combines.len() == 1 {
                self.p.add(f, format!("{at}.combines"), "a combined type (9.4) combines two features or more");
            }
            for (j, part) in h.combines.iter().enumerate() {
                if part == &h.id {
                    self.p.add(f, format!("{at}.combines[{j}]"), "a combined type cannot combine itself");
                } else {
                    self.reference(f, &format!("{at}.combines[{j}]"), part, &features, "a hexside feature");
                }
            }
            if h.breachable && !h.fieldwork {
                self.p.add(
                    f,
                    format!("{at}.breachable"),
                    format!("'{}' is not a fieldwork, and only fieldworks are breached (13.5, Savannah 4.5)", h.id),
                );
            }
            if h.breachable && t.breached.is_none() {
                self.p.add(
                    f,
                    format!("{at}.breachable"),
                    format!("'{}' can be breached, but the chart has no breached section", h.id),
                );
            }
        }
        for (i, r) in t.roads.iter().enumerate() {
            self.id(f, &mut seen, &format!("roads[{i}]"), &r.id);
            if r.crossing_cost < 0 {
                self.p.add(f, format!("roads[{i}].crossing_cost"), "a crossing costs 0 MP or more (9.51)");
            }
        }
        for (i, a) in t.areas.iter().enumerate() {
            self.id(f, &mut seen, &format!("areas[{i}]"), &a.id);
            self.map_ref(f, &format!("areas[{i}].map"), &a.map);
            let o = &a.overrides;
            let any = o.movement_cost.is_some()
                || o.zoc_enters.is_some()
                || o.blocks_los.is_some()
                || o.fire_drm.is_some()
                || o.close_combat_drm.is_some()
                || o.open.is_some()
                || o.siege_works_allowed.is_some()
                || o.minimum_move.is_some();
            if !any {
                self.p.add(f, format!("areas[{i}].overrides"), "overrides nothing");
            }
        }
        for (i, x) in t.features.iter().enumerate() {
            self.id(f, &mut seen, &format!("features[{i}]"), &x.id);
            self.map_ref(f, &format!("features[{i}].map"), &x.map);
            if let Some(roll) = &x.lost_roll {
                if chart_named(roll).is_none() {
                    self.p.add(
                        f,
                        format!("features[{i}].lost_roll"),
                        format!(
                            "'{roll}' is not a chart of this module ({})",
                            listing(FILES.iter().map(|f| basename(f)))
                        ),
                    );
                }
            }
        }
        // The map against the chart: everything it uses is defined here.
        let hexes: BTreeSet<&str> = t.hexes.iter().map(|h| h.id.as_str()).collect();
        let roads: BTreeSet<&str> = t.roads.iter().map(|r| r.id.as_str()).collect();
        let checks = [
            ("hexes", "terrain", &self.ctx.terrain, &hexes),
            ("hexsides", "hexside feature", &self.ctx.hexside_features, &features),
            ("roads", "road kind", &self.ctx.road_kinds, &roads),
        ];
        let mut out = Vec::new();
        for (list, what, used, defined) in checks {
            for id in used.iter().flatten().filter(|id| !defined.contains(id.as_str())) {
                out.push((
                    list,
                    format!(
                        "map.yaml uses {what} '{id}', which the Terrain Effects Chart does not define: add it \
                        to {list} (defined: {})",
                        listing(defined.iter())
                    ),
                ));
            }
        }
        for (list, message) in out {
            self.p.add(f, list, message);
        }
    }

    fn army_morale(&mut self) {
        let a = &self.c.army_morale;
        let f = ARMY_MORALE;
        self.unique(f, "levels", a.levels.iter().map(|l| l.id.as_str()));
        if a.track.min > a.track.max {
            self.p.add(f, "track", format!("track min {} is above max {}", a.track.min, a.track.max));
        }
        let bands: Vec<_> = a.levels.iter().map(|l| (Some(l.range.min), Some(l.range.max))).collect();
        let at = |i: usize| format!("levels[{i}].range");
        self.bands(f, "levels", &at, &bands, Domain::Exactly(a.track.min, a.track.max));
        for (i, l) in a.levels.iter().enumerate() {
            if !l.ends_game && (l.initiative_drm.is_none() || l.unit_morale_modifier.is_none()) {
                self.p.add(
                    f,
                    format!("levels[{i}]"),
                    format!(
                        "'{}' does not end the game, so it gives initiative_drm and unit_morale_modifier (16.2)",
                        l.id
                    ),
                );
            }
        }
        let entries = &a.adjustments.entries;
        self.unique(f, "adjustments.entries", entries.iter().map(|e| e.id.as_str()));
        let ids: BTreeSet<&str> = entries.iter().map(|e| e.id.as_str()).collect();
        for (i, e) in entries.iter().enumerate() {
            let at = format!("adjustments.entries[{i}]");
            let values = e.affected.is_some() || e.opponent.is_some();
            let kinds = [values, e.from.is_some(), e.same_as.is_some()].iter().filter(|k| **k).count();
            if kinds != 1 {
                self.p.add(
                    f,
                    &at,
                    format!(
                        "'{}': an adjustment has affected and opponent, or from, or same_as - exactly one of them",
                        e.id
                    ),
                );
            } else if values && (e.affected.is_none() || e.opponent.is_none()) {
                self.p.add(f, &at, format!("'{}' gives both affected and opponent (16.1)", e.id));
            }
            if let Some(from) = &e.from {
                self.check_from_path(f, &format!("{at}.from"), from);
            }
            if let Some(same) = &e.same_as {
                if same == &e.id {
                    self.p.add(f, format!("{at}.same_as"), "an adjustment cannot be the same as itself");
                } else {
                    self.reference(f, &format!("{at}.same_as"), same, &ids, "an adjustment of this chart");
                }
            }
            if let Some(per) = &e.per {
                if !kebab(per) {
                    self.p.add(f, format!("{at}.per"), format!("'{per}' is not a kebab-case id"));
                }
            }
        }
    }

    fn morale_check(&mut self) {
        let m = &self.c.morale_check;
        let f = MORALE_CHECK;
        self.drms(f, "modifiers", &m.modifiers);
        self.drms(f, "unit_morale_modifiers", &m.unit_morale_modifiers);
        self.unique(f, "triggered_checks", m.triggered_checks.iter().map(|t| t.id.as_str()));
    }

    fn leader_casualty(&mut self) {
        let t = &self.c.leader_casualty.leader_casualty;
        let f = LEADER_CASUALTY;
        self.unique(f, "leader_casualty.classes", t.classes.iter().map(|c| c.id.as_str()));
        let classes: BTreeSet<&str> = t.classes.iter().map(|c| c.id.as_str()).collect();
        self.reference(f, "leader_casualty.default_class", &t.default_class, &classes, "a class of this table");
        let mut placed: BTreeMap<&str, String> = BTreeMap::new();
        for (i, class) in t.classes.iter().enumerate() {
            for (j, leader) in class.leaders.iter().enumerate() {
                let at = format!("leader_casualty.classes[{i}].leaders[{j}]");
                if let Some(first) = placed.get(leader.as_str()) {
                    self.p.add(f, &at, format!("leader '{leader}' is in two classes ({first} too)"));
                } else {
                    placed.insert(leader, at.clone());
                }
                if let Some(counters) = &self.ctx.counters {
                    match counters.get(leader) {
                        None => self.p.add(f, &at, format!("'{leader}' is not a counter of counters.yaml")),
                        Some(c) if !c.leader => {
                            self.p.add(f, &at, format!("'{leader}' is a counter of counters.yaml but not a leader"))
                        }
                        Some(_) => {}
                    }
                }
            }
        }
    }

    fn weather(&mut self) {
        let w = &self.c.weather;
        let f = WEATHER;
        self.unique(f, "conditions", w.conditions.iter().map(|c| c.id.as_str()));
        let weather = self.weather.clone();
        let longest = self.c.fire.fire_table.ranges.iter().copied().max().unwrap_or(0);
        for (i, c) in w.conditions.iter().enumerate() {
            if let Some(next) = &c.next_turn {
                self.reference(f, &format!("conditions[{i}].next_turn"), next, &weather, "a weather of conditions");
            }
            if c.artillery_max_range < 0 || c.artillery_max_range as i64 > i64::from(longest) {
                self.p.add(
                    f,
                    format!("conditions[{i}].artillery_max_range"),
                    format!(
                        "{}: artillery fires at 0 to {longest} hexes, the Fire Table's ranges",
                        c.artillery_max_range
                    ),
                );
            }
        }
        self.turn_list(f, "weather_turns.turns", &w.weather_turns.turns);
        let t = &w.weather_table;
        self.drms(f, "weather_table.drms", &t.drms);
        let bands: Vec<_> = t.outcomes.iter().map(|o| (o.min, o.max)).collect();
        self.roll_bands(f, "weather_table.outcomes", &bands, w.die, !t.drms.is_empty());
        for (i, o) in t.outcomes.iter().enumerate() {
            self.reference(
                f,
                &format!("weather_table.outcomes[{i}].weather"),
                &o.weather,
                &weather,
                "a weather of conditions",
            );
        }
        self.reference(f, "persistence.after_storm", &w.persistence.after_storm, &weather, "a weather of conditions");
        self.unique(f, "fixed", w.fixed.iter().map(|x| x.id.as_str()));
        for (i, x) in w.fixed.iter().enumerate() {
            self.scenarios(f, &format!("fixed[{i}].scenarios"), &x.scenarios);
            for (j, turn) in x.turns.iter().enumerate() {
                let at = format!("fixed[{i}].turns[{j}]");
                if turn.weather != LAST_ROLLED {
                    self.reference(
                        f,
                        &format!("{at}.weather"),
                        &turn.weather,
                        &weather,
                        &format!("a weather of conditions (or {LAST_ROLLED})"),
                    );
                }
                let last = turn.last.unwrap_or(turn.turn);
                if last < turn.turn {
                    self.p.add(f, format!("{at}.last"), format!("last turn {last} is before turn {}", turn.turn));
                }
                if let Some(prev) = j.checked_sub(1).and_then(|k| x.turns.get(k)) {
                    if prev.last.unwrap_or(prev.turn) >= turn.turn {
                        self.p.add(
                            f,
                            format!("{at}.turn"),
                            format!("turn {} is already given by the entry before it", turn.turn),
                        );
                    }
                }
            }
        }
    }

    fn siege_bombardment(&mut self) {
        let s = &self.c.siege_bombardment;
        let f = SIEGE_BOMBARDMENT;
        self.scenarios(f, "procedure.scenarios", &s.procedure.scenarios);
        self.sides(f, "procedure.order", &s.procedure.order);
        self.drms(f, "table_i.drms", &s.table_i.drms);
        let sides = self.ctx.sides.clone();
        for (side, bands) in &s.table_i.columns {
            let list = format!("table_i.columns.{side}");
            self.context_ref(f, &list, side, &sides, "a side of module.yaml");
            let b: Vec<_> = bands.iter().map(|o| (o.min, o.max)).collect();
            self.roll_bands(f, &list, &b, s.die, !s.table_i.drms.is_empty());
            for (i, o) in bands.iter().enumerate() {
                self.effect_list(f, &format!("{list}[{i}].effects"), &o.effects);
            }
        }
        self.drms(f, "table_ii.drms", &s.table_ii.drms);
        let b: Vec<_> = s.table_ii.outcomes.iter().map(|o| (o.min, o.max)).collect();
        self.roll_bands(f, "table_ii.outcomes", &b, s.die, !s.table_ii.drms.is_empty());
        for (i, o) in s.table_ii.outcomes.iter().enumerate() {
            self.effect_list(f, &format!("table_ii.outcomes[{i}].effects"), &o.effects);
        }
    }

    fn mortar(&mut self) {
        let m = &self.c.mortar;
        let f = MORTAR;
        let range = m.rules_summary.range;
        if range.min < 1 || range.min > range.max {
            self.p.add(
                f,
                "rules_summary.range",
                format!("range {} to {}: a range runs from 1 up, min to max", range.min, range.max),
            );
        }
        self.check_to_hit(f, "mortar_to_hit", &m.mortar_to_hit);
        let ranges = &m.mortar_to_hit.ranges;
        let one_each = ranges.iter().enumerate().all(|(i, r)| i64::from(*r) == i64::from(range.min) + i as i64);
        if !one_each || ranges.last().map(|r| i64::from(*r)) != Some(i64::from(range.max)) {
            self.p.add(
                f,
                "mortar_to_hit.ranges",
                format!(
                    "ranges {ranges:?}: rules_summary.range is {} to {}, so the table has one column per \
                    range from {} to {}",
                    range.min, range.max, range.min, range.max
                ),
            );
        }
        let fire_drms: BTreeSet<&str> = self.c.fire.fire_drms.entries.iter().map(|d| d.id.as_str()).collect();
        for (i, d) in m.rules_summary.ignores_fire_drms.iter().enumerate() {
            self.reference(
                f,
                &format!("rules_summary.ignores_fire_drms[{i}]"),
                d,
                &fire_drms,
                "a fire DRM of fire.yaml",
            );
        }
        let codes = self.codes.clone();
        for (i, r) in m.rules_summary.disable_on_results.iter().enumerate() {
            self.reference(
                f,
                &format!("rules_summary.disable_on_results[{i}]"),
                r,
                &codes,
                "a result code of codes.yaml",
            );
        }
        let s = &m.scatter_and_drift;
        self.unique(f, "scatter_and_drift.directions", s.directions.iter().map(String::as_str));
        let b: Vec<_> = s.outcomes.iter().map(|o| (o.min, o.max)).collect();
        self.roll_bands(f, "scatter_and_drift.outcomes", &b, m.die, false);
        let directions: BTreeSet<&str> = s.directions.iter().map(String::as_str).collect();
        for (i, o) in s.outcomes.iter().enumerate() {
            let at = format!("scatter_and_drift.outcomes[{i}]");
            match o.lands {
                Landing::OnTarget => {
                    if o.direction.is_some() || o.distance.is_some() {
                        self.p.add(f, &at, "shells landing on target have no direction or distance");
                    }
                }
                Landing::Drift => {
                    match &o.direction {
                        Some(d) => self.reference(f, &format!("{at}.direction"), d, &directions, "one of directions"),
                        None => self.p.add(f, &at, "drift needs a direction"),
                    }
                    if o.distance.unwrap_or(0) == 0 {
                        self.p.add(f, &at, "drift needs a distance of 1 hex or more");
                    }
                }
            }
        }
        self.result_table(f, "mortar_disable", &m.mortar_disable, m.die);
    }

    fn covered_way(&mut self) {
        let c = &self.c.covered_way;
        self.result_table(COVERED_WAY, "lost_roll", &c.lost_roll, c.die);
    }

    fn french_variable_entry(&mut self) {
        let v = &self.c.french_variable_entry;
        let e = &v.french_variable_entry;
        let f = FRENCH_VARIABLE_ENTRY;
        self.turn_list(f, "french_variable_entry.turns", &e.turns);
        let b: Vec<_> = e.outcomes.iter().map(|o| (o.min, o.max)).collect();
        self.roll_bands(f, "french_variable_entry.outcomes", &b, v.die, false);
        let entries = self.ctx.entry_hexes.clone();
        for (i, o) in e.outcomes.iter().enumerate() {
            let at = format!("french_variable_entry.outcomes[{i}]");
            self.context_ref(f, &format!("{at}.entry"), &o.entry, &entries, "an entry hex of map.yaml");
            if o.mp_bonus < 0 {
                self.p.add(f, format!("{at}.mp_bonus"), "an MP bonus is 0 or more");
            }
            if o.artillery_mp_multiplier < 1 {
                self.p.add(f, format!("{at}.artillery_mp_multiplier"), "a multiplier is 1 or more");
            }
        }
    }

    fn surrender(&mut self) {
        let s = &self.c.surrender;
        let r = &s.surrender_roll;
        let f = SURRENDER;
        self.scenarios(f, "surrender_roll.scenarios", &r.scenarios);
        self.unique(f, "surrender_roll.results", r.results.iter().map(|x| x.id.as_str()));
        self.drms(f, "surrender_roll.drms", &r.drms);
        let b: Vec<_> = r.outcomes.iter().map(|o| (o.min, o.max)).collect();
        self.roll_bands(f, "surrender_roll.outcomes", &b, s.die, !r.drms.is_empty());
        let results: BTreeSet<&str> = r.results.iter().map(|x| x.id.as_str()).collect();
        for (i, o) in r.outcomes.iter().enumerate() {
            self.reference(
                f,
                &format!("surrender_roll.outcomes[{i}].result"),
                &o.result,
                &results,
                "one of this table's results",
            );
        }
    }

    fn victory_points(&mut self) {
        let v = &self.c.victory_points.victory_points;
        let f = VICTORY_POINTS;
        self.unique(f, "victory_points.entries", v.entries.iter().map(|e| e.id.as_str()));
        for (i, e) in v.entries.iter().enumerate() {
            let at = format!("victory_points.entries[{i}]");
            if e.halves.is_some() == e.from.is_some() {
                self.p.add(f, &at, format!("'{}': an entry has halves or from, exactly one of them", e.id));
            }
            if let Some(from) = &e.from {
                self.check_from_path(f, &format!("{at}.from"), from);
            }
            self.sides(f, &format!("{at}.sides"), &e.sides);
            if let Some(hex) = &e.hex {
                if let Err(err) = hex.parse::<HexId>() {
                    self.p.add(f, format!("{at}.hex"), format!("'{hex}': {err}"));
                }
            }
        }
    }

    /// Savannah 4.3: the deck matches its printed counts.
    fn cards(&mut self) {
        let k = &self.c.cards;
        let f = CARDS;
        let deck = &k.deck;
        self.unique(f, "timings", k.timings.iter().map(|t| t.id.as_str()));
        self.unique(f, "flags", k.flags.iter().map(|t| t.id.as_str()));
        self.unique(f, "cards", k.cards.iter().map(|c| c.id.as_str()));
        let timings: BTreeSet<&str> = k.timings.iter().map(|t| t.id.as_str()).collect();
        let flags: BTreeSet<&str> = k.flags.iter().map(|t| t.id.as_str()).collect();
        let n = k.cards.len();
        if n != deck.size as usize {
            self.p.add(
                f,
                "deck.size",
                format!("deck.size is {} but cards lists {n} (Savannah 4.3: one entry per physical card)", deck.size),
            );
        }
        let mut numbers: BTreeMap<u32, usize> = BTreeMap::new();
        for (i, card) in k.cards.iter().enumerate() {
            let at = format!("cards[{i}]");
            if card.number == 0 || card.number > deck.size {
                self.p.add(
                    f,
                    format!("{at}.number"),
                    format!("card number {}: cards are numbered 1 to {}", card.number, deck.size),
                );
            }
            if let Some(j) = numbers.insert(card.number, i) {
                self.p.add(f, format!("{at}.number"), format!("card number {} is also cards[{j}]'s", card.number));
            }
            self.reference(f, &format!("{at}.timing"), &card.timing, &timings, "a timing of timings");
            self.reference(f, &format!("{at}.flags"), &card.flags, &flags, "a flag of flags");
            if timings.contains(ON_DRAW) && card.red != (card.timing == ON_DRAW) {
                self.p.add(
                    f,
                    &at,
                    format!(
                        "card '{}': red cards, and only they, have timing {ON_DRAW} (Savannah 4.3: played the \
                        moment they are drawn)",
                        card.id
                    ),
                );
            }
            if let Some(t) = card.turns {
                if t.min.is_none() && t.max.is_none() {
                    self.p.add(f, format!("{at}.turns"), "turns gives min, max or both");
                }
                if let (Some(a), Some(b)) = (t.min, t.max) {
                    if a > b {
                        self.p.add(f, format!("{at}.turns"), format!("turns min {a} is above max {b}"));
                    }
                }
            }
            self.effect_list(f, &format!("{at}.effects"), &card.effects);
        }
        // The printed counts (4.3).
        let count_of = |pick: &dyn Fn(&Card) -> bool| k.cards.iter().filter(|c| pick(c)).count();
        let mut out = Vec::new();
        for (what, counts, defined, of) in [
            ("timing", &deck.timing_counts, &timings, &(|c: &Card| c.timing.clone()) as &dyn Fn(&Card) -> String),
            ("flag", &deck.flag_counts, &flags, &|c: &Card| c.flags.clone()),
        ] {
            let field = format!("deck.{what}_counts");
            let sum: u32 = counts.values().sum();
            if sum != deck.size {
                out.push((field.clone(), format!("the {what} counts add up to {sum}, deck.size is {}", deck.size)));
            }
            for id in defined.iter() {
                if !counts.contains_key(*id) {
                    out.push((
                        field.clone(),
                        format!("no count for {what} '{id}': give every {what} a count, 0 if none"),
                    ));
                }
            }
            for (id, want) in counts {
                if !defined.contains(id.as_str()) {
                    out.push((
                        format!("{field}.{id}"),
                        format!("'{id}' is not a {what} of {what}s; they are: {}", listing(defined.iter())),
                    ));
                    continue;
                }
                let have = count_of(&|c: &Card| of(c) == *id);
                if have != *want as usize {
                    out.push((
                        format!("{field}.{id}"),
                        format!("{what} '{id}': {want} declared, the deck has {have} (Savannah 4.3)"),
                    ));
                }
            }
        }
        let draws = |c: &Card, from: &str| {
            c.effects
                .iter()
                .any(|e| e.effect == DRAW_CARDS && e.params.get("from").and_then(Param::as_word) == Some(from))
        };
        for (field, want, have, what) in [
            ("deck.red", deck.red, count_of(&|c: &Card| c.red), "red must-play cards"),
            (
                "deck.cards_that_draw_from_deck",
                deck.cards_that_draw_from_deck,
                count_of(&|c: &Card| draws(c, FROM_DECK)),
                "cards that draw from the deck",
            ),
            (
                "deck.cards_that_draw_from_opponent",
                deck.cards_that_draw_from_opponent,
                count_of(&|c: &Card| draws(c, FROM_OPPONENT)),
                "cards that draw from the opponent's hand",
            ),
        ] {
            if have != want as usize {
                out.push((field.to_string(), format!("{want} {what} declared, the deck has {have} (Savannah 4.3)")));
            }
        }
        for (field, message) in out {
            self.p.add(f, field, message);
        }
        let d = &k.draw;
        self.scenarios(f, "draw.scenarios", &d.scenarios);
        self.turn_list(f, "draw.turns", &d.turns);
        let mut who: BTreeSet<String> = self.side_refs.iter().map(|s| s.to_string()).collect();
        who.extend(self.ctx.sides.iter().flatten().cloned());
        for (i, s) in d.order.iter().enumerate() {
            self.context_ref(f, &format!("draw.order[{i}]"), s, &Some(who.clone()), "a side or a side reference");
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::systems::gboar::data::counters::CountersFile;
    use crate::systems::gboar::data::map::MapFile;

    #[derive(Debug, Deserialize)]
    struct Groups {
        #[serde(default)]
        colour_groups: Vec<Group>,
    }

    #[derive(Debug, Deserialize)]
    struct Group {
        id: String,
    }

    /// The rest of a module, read from module.yaml, map.yaml and counters.yaml.
    fn context(source: &Source) -> Context {
        let (info, _): (ModuleInfo, _) = source.parse("module.yaml").unwrap();
        let (groups, _): (Groups, _) = source.parse("module.yaml").unwrap();
        let (map, text): (MapFile, _) = source.parse("map.yaml").unwrap();
        let map = map.build(&source.label("map.yaml"), &text).unwrap();
        let (counters, _): (CountersFile, _) = source.parse("counters.yaml").unwrap();
        Context::default()
            .with_module(&info)
            .with_colour_groups(groups.colour_groups.iter().map(|g| g.id.as_str()))
            .with_map(&map)
            .with_counters(&counters.counters)
    }

    fn fixtures() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/charts-fixtures")
    }

    fn fixture(name: &str) -> Source {
        Source::Dir(fixtures().join(name))
    }

    /// Every problem `load`, then `check`, finds in a fixture module.
    fn problems(name: &str) -> Vec<Located> {
        let source = fixture(name);
        match load(&source) {
            Ok(charts) => check(&charts, &context(&source)),
            Err(list) => list,
        }
    }

    fn show(list: &[Located]) -> String {
        list.iter().map(|l| l.to_string()).collect::<Vec<_>>().join("\n")
    }

    /// The fixture's problems are exactly these: (file, line, field, words of the message).
    fn expect(name: &str, want: &[(&str, usize, &str, &[&str])]) {
        let list = problems(name);
        assert_eq!(list.len(), want.len(), "{name}:\n{}", show(&list));
        for (got, (file, line, field, words)) in list.iter().zip(want) {
            let path = fixtures().join(name).join(file);
            assert_eq!(got.file, path.display().to_string(), "{got}");
            assert_eq!(got.line, Some(*line), "{got}");
            assert_eq!(got.field, *field, "{got}");
            for w in *words {
                assert!(got.message.contains(w), "'{w}' not in: {got}");
            }
        }
    }

    #[test]
    fn savannah_charts_load_and_check_clean() {
        let source = Source::Embedded("savannah-1779".into());
        let charts = load(&source).unwrap_or_else(|list| panic!("{}", show(&list)));
        let list = check(&charts, &context(&source));
        assert!(list.is_empty(), "{}", show(&list));
        assert!(load_checked(&source, &context(&source)).is_ok());
    }

    #[test]
    fn the_valid_fixture_checks_clean() {
        let list = problems("valid");
        assert!(list.is_empty(), "{}", show(&list));
    }

    #[test]
    fn the_close_combat_reach_adds_every_drm_once_per_group() {
        let source = fixture("valid");
        let charts = load(&source).unwrap();
        let reach = charts.close_combat_reach(&context(&source)).unwrap();
        // As close-combat-drms.yaml's header computes it.
        assert_eq!((reach.min, reach.max), (-8, 16));
        let lowest: Vec<(&str, i32)> = reach.lowest.iter().map(|(n, v)| (n.as_str(), *v)).collect();
        assert_eq!(
            lowest,
            [
                ("die", 0),
                ("attacker-lead-unit-morale", -2),
                ("defender-lead-unit-morale", -1),
                ("tactics", -1),
                ("defender-hex-terrain", -1),
                ("attack-across-hexside", -2),
                ("weather", -1)
            ]
        );
        // One of the charge group: +2, not +1 +2.
        assert!(reach.highest.contains(&("charge".to_string(), 2)));
        assert!(!reach.highest.iter().any(|(n, _)| n == "grand-charge"));
        // Without a map, each hexside feature counts alone: slope-creek -2 is still the worst.
        let alone = charts.close_combat_reach(&Context::default()).unwrap();
        assert_eq!((alone.min, alone.max), (-8, 16));
    }

    #[test]
    fn a_hole_in_the_close_combat_table_is_named_by_roll_and_column() {
        expect(
            "close-combat-hole",
            &[(
                "charts/close-combat.yaml",
                30,
                "close_combat_table.rows[11].results",
                &["no result for column 1-1 at roll 3", "all 3 columns (1-2, 1-1, 2-1)"],
            )],
        );
    }

    #[test]
    fn a_drm_that_reaches_beyond_the_rows_is_explained() {
        expect(
            "close-combat-reach",
            &[(
                "charts/close-combat.yaml",
                17,
                "close_combat_table.rolls",
                &["the DRMs reach -9 to 16", "night-attack -1", "beyond rolls -8 to 16", "from -9 to 16"],
            )],
        );
    }

    #[test]
    fn an_undefined_result_code_lists_the_codes() {
        expect(
            "undefined-code",
            &[(
                "charts/fire.yaml",
                24,
                "rifle_fire_damage.rows[5].result[0]",
                &[
                    "'rout' is not a result code of codes.yaml",
                    "army-morale, leader-casualty, no-effect, pin, retreat, step-loss",
                ],
            )],
        );
    }

    #[test]
    fn a_duplicated_id_names_both_places() {
        expect(
            "duplicate-id",
            &[(
                "charts/close-combat-drms.yaml",
                22,
                "close_combat_drms.entries[8].id",
                &["'charge' is defined twice", "first at close_combat_drms.entries[7]"],
            )],
        );
    }

    #[test]
    fn a_missing_tactics_pair_is_named() {
        expect(
            "tactics-missing-pair",
            &[(
                "charts/tactics.yaml",
                17,
                "matrix.rows.hold",
                &["no cell for the Attacker's 'hold' against the Defender's 'advance'", "3 x 3 = 9"],
            )],
        );
    }

    #[test]
    fn a_typo_in_a_field_name_is_refused_with_the_legal_names() {
        expect(
            "unknown-field",
            &[(
                "charts/terrain.yaml",
                18,
                "hexsides[0].close_combat_drn",
                &["unknown field `close_combat_drn`", "`close_combat_drm`"],
            )],
        );
    }

    #[test]
    fn a_float_is_refused() {
        expect(
            "float",
            &[("charts/fire.yaml", 12, "fire_table.rows[1].to_hit.2", &["floating point `6.5`", "integers only"])],
        );
    }

    #[test]
    fn map_terrain_the_tec_lacks_is_reported_in_the_tec() {
        expect(
            "terrain-not-in-tec",
            &[(
                "charts/terrain.yaml",
                5,
                "hexes",
                &["map.yaml uses terrain 'marsh'", "does not define", "defined: clear, forest, lake"],
            )],
        );
    }

    #[test]
    fn a_deck_that_does_not_match_its_counts_is_reported() {
        expect(
            "card-count",
            &[
                ("cards.yaml", 5, "deck.size", &["deck.size is 5 but cards lists 4"]),
                ("cards.yaml", 7, "deck.timing_counts", &["the timing counts add up to 4, deck.size is 5"]),
                ("cards.yaml", 8, "deck.flag_counts", &["the flag counts add up to 4, deck.size is 5"]),
            ],
        );
    }

    /// Each broken fixture is `valid/` with one file changed, so that the
    /// test of its defect tests nothing else.
    #[test]
    fn each_broken_fixture_differs_from_valid_in_one_file() {
        fn files(dir: &std::path::Path, under: &str, out: &mut BTreeMap<String, Vec<u8>>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                let name = format!("{under}{}", path.file_name().unwrap().to_string_lossy());
                if path.is_dir() {
                    files(&path, &format!("{name}/"), out);
                } else {
                    out.insert(name, std::fs::read(&path).unwrap());
                }
            }
        }
        let mut valid = BTreeMap::new();
        files(&fixtures().join("valid"), "", &mut valid);
        let mut broken = 0;
        for entry in std::fs::read_dir(fixtures()).unwrap() {
            let path = entry.unwrap().path();
            if !path.is_dir() || path.ends_with("valid") {
                continue;
            }
            let mut copy = BTreeMap::new();
            files(&path, "", &mut copy);
            assert_eq!(copy.keys().collect::<Vec<_>>(), valid.keys().collect::<Vec<_>>(), "{}", path.display());
            let changed: Vec<&String> =
                copy.iter().filter(|(k, v)| valid.get(*k) != Some(*v)).map(|(k, _)| k).collect();
            assert_eq!(changed.len(), 1, "{}: {changed:?}", path.display());
            broken += 1;
        }
        assert_eq!(broken, 9);
    }

    #[test]
    fn load_reports_every_file_it_cannot_read_not_only_the_first() {
        let source = Source::Dir(fixtures().join("no-such-module"));
        let list = load(&source).unwrap_err();
        assert_eq!(list.len(), FILES.len(), "{}", show(&list));
        for (problem, file) in list.iter().zip(FILES) {
            assert_eq!(problem.file, source.label(file));
            assert_eq!(problem.message, "not found");
        }
    }

    #[test]
    fn load_reports_a_key_written_twice() {
        let dir = tempfile::tempdir().unwrap();
        copy_dir(&fixtures().join("valid"), dir.path());
        let path = dir.path().join("charts/tactics.yaml");
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("advance: {advance: 0,", "advance: {advance: 0, advance: 2,")).unwrap();
        let list = load(&Source::Dir(dir.path().to_path_buf())).unwrap_err();
        assert_eq!(list.len(), 1, "{}", show(&list));
        assert_eq!((list[0].line, list[0].field.as_str()), (Some(16), "matrix.rows.advance"));
        assert!(list[0].message.contains("duplicate entry with key \"advance\""), "{}", list[0]);
    }

    fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let path = entry.unwrap().path();
            let target = to.join(path.file_name().unwrap());
            if path.is_dir() {
                copy_dir(&path, &target);
            } else {
                std::fs::copy(&path, &target).unwrap();
            }
        }
    }

    /// One defect made in memory on the valid fixture, and the one problem it must cause.
    struct Case {
        defect: &'static str,
        make: fn(&mut Charts, &mut Context),
        file: &'static str,
        field: &'static str,
        words: &'static str,
    }

    #[test]
    fn every_other_check_names_its_defect() {
        let cases = [
            Case {
                defect: "odds columns out of order",
                make: |c, _| c.close_combat.close_combat_table.columns.swap(1, 2),
                file: CLOSE_COMBAT,
                field: "close_combat_table.columns[2].odds",
                words: "odds 1:1 are not above the column before (2:1)",
            },
            Case {
                defect: "three rows missing",
                make: |c, _| {
                    c.close_combat.close_combat_table.rows.drain(2..5);
                },
                file: CLOSE_COMBAT,
                field: "close_combat_table.rows[2]",
                words: "no row for roll -6 to -4: the table has one row per modified roll from -8 to 16",
            },
            Case {
                defect: "pin in one half",
                make: |c, _| {
                    c.close_combat.close_combat_table.rows[0].results.get_mut("1-2").unwrap().attacker =
                        vec!["pin".into()]
                },
                file: CLOSE_COMBAT,
                field: "close_combat_table.rows[0].results.1-2",
                words: "pin in one half only",
            },
            Case {
                defect: "two main results",
                make: |c, _| c.fire.rifle_fire_damage.rows[8].result = vec!["step-loss".into(), "retreat".into()],
                file: FIRE,
                field: "rifle_fire_damage.rows[8].result",
                words: "at most one result besides army-morale and leader-casualty in one side's result; found \
                    step-loss, retreat",
            },
            Case {
                defect: "leader-casualty alone",
                make: |c, _| c.fire.rifle_fire_damage.rows[2].result = vec!["leader-casualty".into()],
                file: FIRE,
                field: "rifle_fire_damage.rows[2].result",
                words: "leader-casualty is never alone",
            },
            Case {
                defect: "a gap between weather bands",
                make: |c, _| c.weather.weather_table.outcomes[1].min = Some(4),
                file: WEATHER,
                field: "weather_table.outcomes[1]",
                words: "3 falls in no band",
            },
            Case {
                defect: "a closed end on a modified roll",
                make: |c, _| c.surrender.surrender_roll.outcomes[1].max = Some(9),
                file: SURRENDER,
                field: "surrender_roll.outcomes[1]",
                words: "omit max on the last band",
            },
            Case {
                defect: "an SP band that does not start at 1",
                make: |c, _| c.fire.fire_table.rows[0].sp.min = Some(2),
                file: FIRE,
                field: "fire_table.rows[0].sp",
                words: "the bands start at min: 1",
            },
            Case {
                defect: "a missing To Hit number",
                make: |c, _| {
                    c.fire.fire_table.rows[1].to_hit.remove(&2);
                },
                file: FIRE,
                field: "fire_table.rows[1].to_hit",
                words: "no To Hit number for range 2 at 3 or more SP",
            },
            Case {
                defect: "a counter outside its DRM bounds",
                make: |_, x| {
                    x.counters.as_mut().unwrap().get_mut("blue-general").unwrap().close_combat_drm = Some(2);
                },
                file: CLOSE_COMBAT_DRMS,
                field: "close_combat_drms.entries[2].bounds",
                words: "counter 'blue-general' has close_combat_drm 2, outside bounds 0 to 1",
            },
            Case {
                defect: "morale that Army Morale takes outside the bounds",
                make: |_, x| x.counters.as_mut().unwrap().get_mut("red-foot").unwrap().morale = vec![2],
                file: CLOSE_COMBAT_DRMS,
                field: "close_combat_drms.entries[0].bounds",
                words: "counter 'red-foot' has morale 2, which Army Morale and the unit morale modifiers (-1 to \
                    0) take to 1 to 2, outside bounds -2 to 1",
            },
            Case {
                defect: "a leader class naming a unit",
                make: |c, _| c.leader_casualty.leader_casualty.classes[0].leaders.push("red-foot".into()),
                file: LEADER_CASUALTY,
                field: "leader_casualty.classes[0].leaders[2]",
                words: "'red-foot' is a counter of counters.yaml but not a leader",
            },
            Case {
                defect: "an effect without one of its params",
                make: |c, _| {
                    c.cards.cards[1].effects[0].params.remove("entry");
                },
                file: CARDS,
                field: "cards[1].effects[0]",
                words: "effect 'add-unit' needs entry",
            },
            Case {
                defect: "an effect with a param it does not have",
                make: |c, _| {
                    c.cards.cards[0].effects[0].params.insert("colour".into(), Param::Word("red".into()));
                },
                file: CARDS,
                field: "cards[0].effects[0].colour",
                words: "'colour' is not a param of effect 'draw-cards'",
            },
            Case {
                defect: "a card adding a unit that does not exist",
                make: |c, _| {
                    c.cards.cards[1].effects[0].params.insert("unit".into(), Param::Word("green-foot".into()));
                },
                file: CARDS,
                field: "cards[1].effects[0].unit",
                words: "'green-foot' is not a counter of counters.yaml",
            },
            Case {
                defect: "a roll on a table that does not exist",
                make: |c, _| {
                    let e = &mut c.siege_bombardment.table_i.columns.get_mut("blue").unwrap()[1].effects[0];
                    e.params.insert("table".into(), Param::Word("bombardment-iii".into()));
                },
                file: SIEGE_BOMBARDMENT,
                field: "table_i.columns.blue[1].effects[0].table",
                words: "'bombardment-iii' is not a table id of this module",
            },
            Case {
                defect: "a red card that is not on-draw",
                make: |c, _| c.cards.cards[3].red = false,
                file: CARDS,
                field: "cards[3]",
                words: "red cards, and only they, have timing on-draw",
            },
            Case {
                defect: "a hexside feature the TEC lacks",
                make: |_, x| {
                    x.hexside_features.as_mut().unwrap().insert("hedge".into());
                },
                file: TERRAIN,
                field: "hexsides",
                words: "map.yaml uses hexside feature 'hedge'",
            },
            Case {
                defect: "a road kind the TEC lacks",
                make: |_, x| {
                    x.road_kinds.as_mut().unwrap().insert("track".into());
                },
                file: TERRAIN,
                field: "roads",
                words: "map.yaml uses road kind 'track'",
            },
            Case {
                defect: "a directional feature without out_of",
                make: |c, _| c.terrain.hexsides[1].out_of = None,
                file: TERRAIN,
                field: "hexsides[1]",
                words: "'slope' is directional: give its effects under into and out_of (out_of is missing)",
            },
            Case {
                defect: "a DRM for a side the module does not have",
                make: |c, _| c.siege_bombardment.table_i.drms[0].sides.push("green".into()),
                file: SIEGE_BOMBARDMENT,
                field: "table_i.drms[0].sides[2]",
                words: "'green' is not a side of module.yaml",
            },
            Case {
                defect: "a DRM read from a chart the module does not have",
                make: |c, _| c.fire.fire_drms.entries[1].from = Some("terrain-effects.yaml hexes[].fire_drm".into()),
                file: FIRE,
                field: "fire_drms.entries[1].from",
                words: "reads from neither a chart of this module",
            },
            Case {
                defect: "a DRM with both a value and a from",
                make: |c, _| c.morale_check.modifiers[0].value = Some(1),
                file: MORALE_CHECK,
                field: "modifiers[0]",
                words: "DRM 'leadership' has 2 of value, schedule and from",
            },
            Case {
                defect: "an adjustment the same as one that does not exist",
                make: |c, _| c.army_morale.adjustments.entries[2].same_as = Some("step-lost".into()),
                file: ARMY_MORALE,
                field: "adjustments.entries[2].same_as",
                words: "'step-lost' is not an adjustment of this chart",
            },
            Case {
                defect: "morale levels that miss the top of the track",
                make: |c, _| c.army_morale.levels[2].range.max = 9,
                file: ARMY_MORALE,
                field: "levels[2].range",
                words: "the last ends at max: 10",
            },
            Case {
                defect: "two tables with one id",
                make: |c, _| c.mortar.mortar_disable.id = "mortar-to-hit".into(),
                file: MORTAR,
                field: "mortar_disable.id",
                words: "table id 'mortar-to-hit' is also mortar.yaml mortar_to_hit.id",
            },
            Case {
                defect: "an id that is not kebab-case",
                make: |c, _| c.weather.weather_table.drms[0].id = "Turn_2".into(),
                file: WEATHER,
                field: "weather_table.drms[0].id",
                words: "'Turn_2' is not a kebab-case id",
            },
            Case {
                defect: "a column id that is not its odds",
                make: |c, _| c.close_combat.close_combat_table.columns[2].odds = [3, 1],
                file: CLOSE_COMBAT,
                field: "close_combat_table.columns[2].id",
                words: "column '2-1' has odds [3, 1], so its id is '3-1'",
            },
            Case {
                defect: "an entry hex the map does not have",
                make: |c, _| c.french_variable_entry.french_variable_entry.outcomes[1].entry = "B".into(),
                file: FRENCH_VARIABLE_ENTRY,
                field: "french_variable_entry.outcomes[1].entry",
                words: "'B' is not an entry hex of map.yaml; they are: A",
            },
            Case {
                defect: "an area on a zone the map does not have",
                make: |c, _| {
                    c.terrain.areas.push(TerrainArea {
                        id: "bog".into(),
                        map: "zones/bog".into(),
                        name: "Bog".into(),
                        source: "stand-in".into(),
                        note: None,
                        overrides: TerrainOverrides {
                            movement_cost: Some(MovementCost::Mp(3)),
                            zoc_enters: None,
                            blocks_los: None,
                            fire_drm: None,
                            close_combat_drm: None,
                            open: None,
                            siege_works_allowed: None,
                            minimum_move: None,
                        },
                    })
                },
                file: TERRAIN,
                field: "areas[0].map",
                words: "'bog' is not a zone of map.yaml; they are: causeway",
            },
        ];
        let source = fixture("valid");
        let (charts, context) = (load(&source).unwrap(), context(&source));
        for case in cases {
            let (mut c, mut x) = (charts.clone(), context.clone());
            (case.make)(&mut c, &mut x);
            let list = check(&c, &x);
            let label = source.label(case.file);
            let hit = list.iter().any(|l| l.file == label && l.field == case.field && l.message.contains(case.words));
            assert!(hit, "{}: no '{}' at {}:\n{}", case.defect, case.words, case.field, show(&list));
            // Only consequences of the same defect besides (a red card also changes the red count).
            assert!(list.len() <= 2, "{}:\n{}", case.defect, show(&list));
        }
    }

    #[test]
    fn extreme_values_neither_panic_nor_hang() {
        let source = fixture("valid");
        let (mut c, mut x) = (load(&source).unwrap(), context(&source));
        let t = &mut c.close_combat.close_combat_table;
        t.rolls = Range { min: i32::MIN, max: i32::MAX };
        t.rows[0].roll = i32::MAX;
        t.columns[0].odds = [u32::MAX, 1];
        c.close_combat_drms.close_combat_drms.entries[0].bounds = Some(Range { min: i32::MIN, max: i32::MAX });
        c.close_combat_drms.close_combat_drms.entries[1].bounds = Some(Range { min: i32::MIN, max: i32::MAX });
        c.close_combat_drms.close_combat_drms.entries[7].value = Some(i32::MAX);
        c.close_combat_drms.close_combat_drms.entries[8].value = Some(i32::MIN);
        c.weather.weather_table.outcomes[0].max = Some(i32::MAX);
        c.weather.weather_table.outcomes[1].min = Some(i32::MIN);
        c.weather.conditions[0].artillery_max_range = i32::MIN;
        c.mortar.rules_summary.range = Range { min: i32::MIN, max: i32::MAX };
        c.army_morale.track = Track { min: i32::MIN, max: i32::MAX, source: "stand-in".into(), note: None };
        c.army_morale.levels[1].unit_morale_modifier = Some(i32::MIN);
        c.morale_check.unit_morale_modifiers[0].value = Some(i32::MIN);
        c.cards.deck.size = u32::MAX;
        x.counters.as_mut().unwrap().get_mut("red-foot").unwrap().morale = vec![i32::MIN, i32::MAX];
        let list = check(&c, &x);
        assert!(!list.is_empty());
        assert!(list.len() < 100, "{}", show(&list));
    }

    #[test]
    fn a_stand_in_under_a_printed_source_is_reported() {
        let source = fixture("valid");
        let mut charts = load(&source).unwrap();
        let file = charts.files.get_mut(CODES).unwrap();
        file.text =
            file.text.replace("{id: pin, symbol: PIN, source: rules 13.1", "{id: pin, symbol: PIN, source: stand-in");
        let list = check(&charts, &context(&source));
        assert_eq!(list.len(), 1, "{}", show(&list));
        assert_eq!((list[0].field.as_str(), list[0].line), ("source", Some(2)));
        assert!(list[0].message.contains("combat_results[4].source is a stand-in"), "{}", list[0]);
    }

    #[test]
    fn a_float_in_free_text_is_still_a_float() {
        let source = fixture("valid");
        let mut charts = load(&source).unwrap();
        let file = charts.files.get_mut(MORALE_CHECK).unwrap();
        file.text = file.text.replace("pass_at_least: 5", "pass_at_least: 5\nnote: 2.5");
        let list = check(&charts, &context(&source));
        assert_eq!(list.len(), 1, "{}", show(&list));
        assert_eq!((list[0].field.as_str(), list[0].line), ("note", Some(6)));
    }

    #[test]
    fn a_field_path_is_found_in_block_and_flow_yaml() {
        let text = concat!(
            "a:\n",
            "  rows:\n",
            "    - {roll: 1, results: {x: 1}}\n",
            "    - {roll: 10, results: {x: 2}}\n",
            "    # - roll: 2\n",
            "    - roll: 2\n",
            "      results:\n",
            "        x: 3\n",
        );
        assert_eq!(position(text, "a.rows"), Some((2, 3)));
        assert_eq!(position(text, "a.rows[1]"), Some((4, 5)));
        assert_eq!(position(text, "a.rows[1].results.x"), Some((4, 28)));
        assert_eq!(position(text, "a.rows[2].results.x"), Some((8, 9)));
        // Best effort: a path that goes further than the text stops where it is lost.
        assert_eq!(position(text, "a.rows[7].results"), Some((2, 3)));
        assert_eq!(position(text, "b"), None);
        // A token stands as a word: `roll: 1` is not found in `roll: 10`.
        assert_eq!(find_in_line("    - {roll: 10, results: {x: 2}}", 0, "roll: 1"), None);
        assert_eq!(find_in_line("    - {roll: 1, results: {x: 2}}", 0, "roll: 1"), Some(7));
        // A block key is not found inside an earlier flow mapping, nor a root key nested.
        let matrix = "rows:\n  a: {a: 0, b: 1}\n  b: {a: 2, b: 0}\nb: 3\n";
        assert_eq!(position(matrix, "rows.b"), Some((3, 3)));
        assert_eq!(position(matrix, "rows.a.b"), Some((2, 13)));
        assert_eq!(position(matrix, "b"), Some((4, 1)));
    }

    #[test]
    fn ids_are_kebab_case() {
        for good in ["heavy-rain", "1-4", "v1", "a"] {
            assert!(kebab(good), "{good}");
        }
        for bad in ["", "Heavy", "heavy_rain", "-a", "a-", "a--b", "V-1", "é"] {
            assert!(!kebab(bad), "{bad}");
        }
    }
}
