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

mod cards;
mod check;
mod close_combat;
mod codes;
mod covered_way;
mod fire;
mod french_variable_entry;
mod leader_casualty;
mod morale;
mod mortar;
mod siege_bombardment;
mod surrender;
mod tactics;
mod terrain;
#[cfg(test)]
mod tests;
mod victory_points;
mod weather;

pub use cards::*;
pub use check::check;
use check::*;
pub use close_combat::*;
pub use codes::*;
pub use covered_way::*;
pub use fire::*;
pub use french_variable_entry::*;
pub use leader_casualty::*;
pub use morale::*;
pub use mortar::*;
pub use siege_bombardment::*;
pub use surrender::*;
pub use tactics::*;
pub use terrain::*;
pub use victory_points::*;
pub use weather::*;

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
// Loading

/// The text of one chart file, to locate problems in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileText {
    /// How errors name the file ([`Source::label`]).
    pub label: String,
    pub text: String,
    /// Its compact form, when it has one: `check-game` reads its tree from
    /// it rather than parsing the text again (the same tree: compact.rs).
    pub compact: Option<Vec<u8>>,
}

impl FileText {
    /// Put `text` in place of the file's text; its compact form, made of
    /// the old text, is dropped, so the checker reads the new one.
    pub fn set_text(&mut self, text: String) {
        self.text = text;
        self.compact = None;
    }
}

/// The chart files, each with the field of [`Charts`] it is read into, in
/// the order they are read (and their problems listed): the one list from
/// which [`FILES`], [`Charts`] and [`load`] are made.
macro_rules! chart_files {
    ($($field:ident: $ty:ty = $file:ident,)*) => {
        /// Every chart file of a module, as [`Source::parse`] names them.
        pub const FILES: [&str; [$($file),*].len()] = [$($file),*];

        /// Every chart of a module, as the engine reads them.
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct Charts {
            $(pub $field: $ty,)*
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
            $(let $field = read.parse::<$ty>($file);)*
            match ($($field,)*) {
                ($(Some($field),)*) if problems.is_empty() => Ok(Charts { $($field,)* files }),
                _ => Err(problems),
            }
        }
    };
}

chart_files! {
    codes: CodesFile = CODES,
    fire: FireFile = FIRE,
    close_combat: CloseCombatFile = CLOSE_COMBAT,
    close_combat_drms: CloseCombatDrmsFile = CLOSE_COMBAT_DRMS,
    tactics: TacticsFile = TACTICS,
    terrain: TerrainFile = TERRAIN,
    army_morale: ArmyMoraleFile = ARMY_MORALE,
    morale_check: MoraleCheckFile = MORALE_CHECK,
    leader_casualty: LeaderCasualtyFile = LEADER_CASUALTY,
    weather: WeatherFile = WEATHER,
    siege_bombardment: SiegeBombardmentFile = SIEGE_BOMBARDMENT,
    mortar: MortarFile = MORTAR,
    covered_way: CoveredWayFile = COVERED_WAY,
    french_variable_entry: FrenchVariableEntryFile = FRENCH_VARIABLE_ENTRY,
    surrender: SurrenderFile = SURRENDER,
    victory_points: VictoryPointsFile = VICTORY_POINTS,
    cards: CardsFile = CARDS,
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
    fn parse<T: DeserializeOwned + std::fmt::Debug + Clone + Send + 'static>(&mut self, file: &str) -> Option<T> {
        let label = self.source.label(file);
        match self.source.parse::<T>(file) {
            Ok((value, text)) => {
                // serde keeps the last of two equal keys of a map without a word;
                // the YAML tree refuses them. (A file with a compact form has
                // none: a form is made only of a text the tree reads.)
                let compact = self.source.compact(file);
                let tree = match compact {
                    Some(_) => Ok(crate::base::yaml::Value::Null),
                    None => crate::base::yaml::parse::<crate::base::yaml::Value>(&label, &text),
                };
                let compact = compact.map(<[u8]>::to_vec);
                self.files.insert(file.to_string(), FileText { label, text, compact });
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
                self.problems.push(Located {
                    file: label,
                    line: None,
                    column: None,
                    field: String::new(),
                    message,
                    code: None,
                });
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
