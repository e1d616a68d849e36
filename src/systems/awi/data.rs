//! The AWI Southern Campaign module as typed data (games/awi-southern/):
//! the map, the order of battle, the charts and a scenario, read from the
//! bytes the shell hands over, and checked whole (`adjutant check-game`).
//! Names nothing else of the AWI system.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::base::dice::Die;
use crate::base::error::{Error, Located, Result};
use crate::base::hex::{are_adjacent, HexId, Hexside, Layout};
use crate::base::hexmap;
use crate::base::yaml::locate::Places;
use crate::system::{ModuleFiles, ModuleInfo, ModuleProblem};

// ---------------------------------------------------------------------------
// module.yaml
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModuleFile {
    pub id: String,
    pub name: String,
    pub system: String,
    pub sides: Vec<crate::system::Side>,
    pub scenarios: Vec<crate::system::ScenarioInfo>,
    pub source: String,
    pub rules_text: String,
    pub calendar: Calendar,
    pub files: Files,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Calendar {
    pub first_month: u32,
    pub first_year: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Files {
    pub map: String,
    pub oob: String,
    pub charts: String,
    pub scenarios: BTreeMap<String, String>,
}

// ---------------------------------------------------------------------------
// map.yaml
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct MapFile {
    source: String,
    layout: String,
    columns: hexmap::Span,
    rows: hexmap::Span,
    terrain_key: BTreeMap<String, String>,
    terrain: BTreeMap<String, String>,
    towns: Vec<Town>,
    rivers: Vec<RiverFile>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Town {
    pub id: String,
    pub name: String,
    pub hex: String,
    #[serde(default)]
    pub port: bool,
    #[serde(default)]
    pub strategic: bool,
    /// 1776's garrison a side must maintain to control the town, in
    /// strength points of its regulars (DEFINITIONS: "the British must
    /// maintain a garrison of 4 strength points of British regulars in
    /// Boston to control it").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub garrison: Option<TownGarrison>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TownGarrison {
    pub side: String,
    pub strength_points: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RiverFile {
    id: String,
    name: String,
    mouth: String,
    stretches: Vec<Stretch>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Stretch {
    class: u8,
    hexsides: Vec<String>,
}

/// A river: its hexsides from the mouth upstream, each with its class.
#[derive(Debug, Clone)]
pub struct River {
    pub id: String,
    pub name: String,
    pub mouth: HexId,
    pub hexsides: Vec<(Hexside, u8)>,
}

/// The terrain id of sea lanes.
pub const WATER: &str = "water";

// ---------------------------------------------------------------------------
// oob.yaml
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct OobFile {
    source: String,
    units: Vec<Unit>,
    generals: Vec<General>,
    fleets: Vec<Fleet>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    Infantry,
    Cavalry,
    Artillery,
    Militia,
    MountedInfantry,
    /// A supply unit (1776's wagons: "S"): no fighting stands; it moves
    /// with the army and feeds its artillery in battle (the article,
    /// SUPPLY).
    Supply,
}

impl Kind {
    pub fn id(self) -> &'static str {
        match self {
            Kind::Infantry => "infantry",
            Kind::Cavalry => "cavalry",
            Kind::Artillery => "artillery",
            Kind::Militia => "militia",
            Kind::MountedInfantry => "mounted-infantry",
            Kind::Supply => "supply",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    Regular,
    Legion,
    Militia,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Gun {
    Heavy,
    EightPounder,
    Light,
}

impl Gun {
    pub fn id(self) -> &'static str {
        match self {
            Gun::Heavy => "heavy",
            Gun::EightPounder => "eight-pounder",
            Gun::Light => "light",
        }
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Unit {
    pub id: String,
    pub name: String,
    pub side: String,
    pub nationality: String,
    pub kind: Kind,
    pub class: Class,
    /// Its weaponry (none for a supply unit).
    #[serde(default)]
    pub weapon: String,
    /// Its PLM morale grade (none for a supply unit).
    #[serde(default)]
    pub morale: String,
    pub fighting_stands: u32,
    #[serde(default)]
    pub command_stands: u32,
    #[serde(default)]
    pub gun: Option<Gun>,
}

impl Unit {
    /// A supply unit: not a regiment, no fighting stands (the article,
    /// SUPPLY: "Supply units are used as given in 1776 for all purposes
    /// except combat").
    pub fn is_supply(&self) -> bool {
        self.kind == Kind::Supply
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct General {
    pub id: String,
    pub name: String,
    pub side: String,
    pub command: String,
    pub rating: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FleetKind {
    Tf,
    Bf,
}

impl FleetKind {
    /// Its id in the data (`tf`, `bf`).
    pub fn id(self) -> &'static str {
        match self {
            FleetKind::Tf => "tf",
            FleetKind::Bf => "bf",
        }
    }
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Fleet {
    pub id: String,
    pub name: String,
    pub side: String,
    pub nationality: String,
    pub kind: FleetKind,
}

// ---------------------------------------------------------------------------
// charts/
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Number {
    pub source: String,
    pub value: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandChart {
    pub spans: Spans,
    pub free_guns_per_infantry_regiment: Number,
    pub combat_ratings: Ratings,
    pub general_max_risk_percent: Number,
    pub break_off: BreakOff,
    /// BREAKING OFF: army manipulation points a general spends for each 1%
    /// added to his chance (PLM's exchange, not in our texts: stand-in).
    pub break_off_points_per_percent: Number,
    pub out_of_command_battle_penalty_percent: Number,
    pub out_of_command_movement_percent: Number,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spans {
    pub source: String,
    pub sentence: String,
    pub rows: Vec<Span>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Span {
    pub command: String,
    pub stands: u32,
    #[serde(default)]
    pub regular_at_most: Option<u32>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ratings {
    pub source: String,
    pub sentence: String,
    pub rows: Vec<Rating>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rating {
    pub rating: u32,
    pub max_unit_morale_modifier_percent: u32,
    pub army_manipulation_points: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BreakOff {
    pub source: String,
    pub rows: Vec<BreakOffRow>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BreakOffRow {
    pub general: String,
    pub percent: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MovementChart {
    pub allowances: Allowances,
    pub costs: Costs,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Allowances {
    #[serde(rename = "stand-in")]
    pub stand_in: KindAllowances,
    pub artillery: GunAllowances,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KindAllowances {
    pub source: String,
    pub rows: Vec<KindAllowance>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KindAllowance {
    pub kind: String,
    pub side: String,
    pub allowance: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GunAllowances {
    pub source: String,
    pub sentence: String,
    pub rows: Vec<GunAllowance>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GunAllowance {
    pub gun: Gun,
    pub side: String,
    pub allowance: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Costs {
    pub source: String,
    pub terrain: Vec<TerrainCost>,
    pub river_class: Vec<ClassCost>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TerrainCost {
    pub terrain: String,
    pub cost: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassCost {
    pub class: u8,
    pub cost: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommunicationsChart {
    pub land_link_movement_points: Number,
    pub attrition_modifier_per_pass_percent: Number,
    pub attrition_stands_lost: Number,
    pub stands_per_strength_point: Number,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoraleChart {
    pub source: String,
    pub grades: Vec<Grade>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Grade {
    pub grade: String,
    pub percent: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BattleChart {
    pub ammunition: Ammunition,
    /// PLM's ammunition roll (stand-in: its chart is not in our texts).
    pub ammunition_roll: AmmunitionRoll,
    /// How near a friendly magazine artillery draws on it (the article).
    pub magazine_supply: MagazineSupply,
    pub fortification_damage: Damage,
    pub fort_section: FortSection,
    /// How many 4-inch sections a fort's line has on the table (stand-in:
    /// the article gives a section's strength, not a fort's length).
    pub fort_sections: Number,
    pub fort_garrison: FortGarrison,
    /// The sizes of the guns of the order of battle, by weapon (the fort
    /// rules count pounds and inches).
    pub guns: GunSizes,
    /// FORTIFICATIONS: what building a fort takes (stand-in but for the
    /// supply unit spent).
    pub fort_construction: FortConstruction,
    /// ENTRENCHMENTS: what building one takes (stand-in).
    pub entrenchment_construction: EntrenchmentConstruction,
    pub deployment: Deployment,
    pub trivial_combat: TrivialCombat,
    pub pursuit: PursuitChart,
    pub recovery: RecoveryChart,
}

/// 1776's combat results table (stand-in: the rulebook's table is not in
/// our texts) as the article's TRIVIAL COMBATS use it, with the army morale
/// (PLM's, stand-in) at which a side breaks.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrivialCombat {
    pub source: String,
    pub sentence: String,
    /// Odds columns, lowest first; each has one result per face of a D6.
    pub columns: Vec<CrtColumn>,
    /// A side's army morale: this share of its fighting stands at the
    /// battle's start, in casualty markers (rounded down, at least 1).
    pub army_morale_percent: Number,
    /// 1776's halvings of a side's strength for the table's odds (none
    /// when absent): "Proceed with the 1776 combat resolution".
    #[serde(default)]
    pub strength: Option<TrivialStrength>,
}

/// The halvings of 1776's combat resolution a trivial combat applies.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrivialStrength {
    pub source: String,
    pub sentence: String,
    pub halved: Vec<Halving>,
}

/// One of 1776's halvings of a side's strength.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Halving {
    /// Militia fight at half strength against regulars unless friendly
    /// regulars are with them.
    MilitiaAgainstRegulars,
    /// Troops with a supply unit, or in a magazine, fight at full
    /// strength, otherwise at half.
    WithoutSupply,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CrtColumn {
    /// The odds as printed, e.g. `3:2`: the attacker's strength to the
    /// defender's.
    pub odds: String,
    pub attacker: u32,
    pub defender: u32,
    /// Strength points lost, by the D6's face (1 first).
    pub results: Vec<CrtResult>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CrtResult {
    pub attacker: u32,
    pub defender: u32,
}

/// PURSUIT PENALTY (the article).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PursuitChart {
    pub source: String,
    pub sentence: String,
    /// The die the pursuing player rolls for his actions (faces).
    pub actions_die: u32,
    /// Casualties each unit within the pursuit distance suffers.
    pub caught_casualties: u32,
    /// Casualties more when its morale check fails.
    pub failed_check_casualties: u32,
}

/// POST BATTLE RECOVERY (the article).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecoveryChart {
    pub source: String,
    pub sentence: String,
    /// Markers a unit of a formation that did not break removes.
    pub not_broken: u32,
    /// Markers more for the side that retains control of the battlefield.
    pub holds_field: u32,
    /// "The maximum number of casualty markers a unit can remove".
    pub most: u32,
    /// The penalty casualty of a British regular out of communication
    /// whose side lost.
    pub out_of_communication_penalty: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ammunition {
    pub source: String,
    pub sentence: String,
    pub rows: Vec<AmmunitionRow>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AmmunitionRow {
    pub with_supply: u32,
    pub without_supply: u32,
}

/// "a force containing a supply unit roll for artillery ammunition
/// normally as given in the PLM rules": PLM's chart is not in our texts, so
/// this is a stand-in with its structure: a die per artillery unit, each
/// face range giving the shots a supplied gun receives (a `with_supply`
/// of `ammunition`, whose `without_supply` a force lacking a supply unit
/// receives instead).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AmmunitionRoll {
    pub source: String,
    pub die: String,
    pub rows: Vec<AmmunitionFaces>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AmmunitionFaces {
    pub from: u32,
    pub to: u32,
    pub with_supply: u32,
}

/// "Artillery pieces within two hexes of a friendly magazine can draw upon
/// that magazine as if it were a standard supply unit provided there is a
/// valid line of communications to the magazine."
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MagazineSupply {
    pub source: String,
    pub sentence: String,
    pub hexes: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Damage {
    pub source: String,
    pub sentence: String,
    pub rows: Vec<DamageRow>,
    pub range_inches: u32,
    /// "Artillery of twelve pounds and larger and howitzers of 8 inches
    /// and larger can inflict damage directly upon a section".
    pub twelve_pounders_from_pounds: u32,
    pub howitzers_from_inches: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DamageRow {
    pub from: u32,
    pub to: u32,
    pub twelve_pounders: u32,
    pub howitzers: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FortSection {
    pub source: String,
    pub inches: u32,
    pub die: String,
    pub plus: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FortGarrison {
    pub source: String,
    pub infantry_stands: u32,
    /// "at least one six pounder (or larger) or two smaller guns".
    pub large_gun_pounds: u32,
    pub smaller_guns: u32,
}

/// Each artillery weapon's size: pounds of shot for a gun, inches for a
/// howitzer (one of the two).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GunSizes {
    pub source: String,
    pub rows: Vec<GunSize>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GunSize {
    pub weapon: String,
    #[serde(default)]
    pub pounds: Option<u32>,
    #[serde(default)]
    pub howitzer_inches: Option<u32>,
}

/// "Fortifications are constructed as given in 1776 except that the
/// artillery and the infantry units used in the construction are not
/// eliminated. The supply unit is still eliminated." 1776's requirements
/// are not in our texts: the builders (stand-in) are at least this many
/// fighting infantry stands and artillery units of the side in the hex,
/// and the supply units spent (the article).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FortConstruction {
    pub source: String,
    pub infantry_stands: u32,
    pub artillery_units: u32,
    pub supply_units: Number,
}

/// "Entrenchments may be constructed as given in 1776" (stand-in).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntrenchmentConstruction {
    pub source: String,
    pub infantry_stands: u32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Deployment {
    pub source: String,
    pub defender_inches_from_entry: u32,
    pub attacker_inches_from_edge: u32,
}

/// REPLACEMENTS and MILITIA UNITS (charts/replacements.yaml): the
/// article's numbers.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplacementsChart {
    /// "Each replacement strength point represents a single stand of troops."
    pub stands_per_replacement_point: Number,
    /// "Up to one quarter of these stands can be rifle armed".
    pub militia_rifles_percent: Number,
    /// "at a cost of one militia stand eliminated for each stand so converted".
    pub mounted_conversion_stands: Number,
}

/// Every chart, by file.
#[derive(Debug, Clone)]
pub struct Charts {
    pub command: CommandChart,
    pub movement: MovementChart,
    pub communications: CommunicationsChart,
    pub morale: MoraleChart,
    pub battle: BattleChart,
    pub replacements: ReplacementsChart,
}

/// The chart files, in the folder `files.charts` names.
pub const CHART_FILES: [&str; 6] =
    ["command.yaml", "movement.yaml", "communications.yaml", "morale.yaml", "battle.yaml", "replacements.yaml"];

// ---------------------------------------------------------------------------
// scenarios/*.yaml
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub source: String,
    pub setup: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    pub control: BTreeMap<String, String>,
    #[serde(default)]
    pub magazines: Vec<String>,
    #[serde(default)]
    pub forts: Vec<FortAt>,
    #[serde(default)]
    pub reinforcements: Vec<Arrival>,
    /// Replacement points received (REPLACEMENTS), by month and town.
    #[serde(default)]
    pub replacements: Vec<ReplacementArrival>,
    /// Militia strength points raised (MILITIA UNITS), by month and town.
    #[serde(default)]
    pub militia: Vec<MilitiaArrival>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FortAt {
    pub hex: String,
    pub side: String,
    /// The units inside the fort (the others in its hex are outside it):
    /// "Artillery pieces in forts are assumed to always be in supply and
    /// have unlimited ammunition. Those in the same hex with a friendly
    /// fort (but not inside it) can draw upon the fort as if it were a
    /// normal supply unit."
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub garrison: Vec<String>,
    /// Its sections destroyed by bombardment, by number (1 first): they
    /// stay destroyed (FORTIFICATIONS IN COMBAT; a reading: no repair).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub destroyed: Vec<u32>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Arrival {
    pub turn: u32,
    pub hex: String,
    pub units: Vec<String>,
}

// ---------------------------------------------------------------------------
// The module, loaded
// ---------------------------------------------------------------------------

/// Replacement points of one nationality a side receives in a town at the
/// start of its operations of `turn` (1776's schedule is not in our texts:
/// a stand-in with the true structure).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReplacementArrival {
    pub turn: u32,
    pub side: String,
    pub town: String,
    pub nationality: String,
    pub points: u32,
}

/// Militia strength points a side raises in a town at the start of its
/// operations of `turn` ("The total strength of militia forces for both
/// sides fluctuates as given in the 1776 rules": a stand-in schedule).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MilitiaArrival {
    pub turn: u32,
    pub side: String,
    pub town: String,
    pub strength_points: u32,
}

/// A piece on the map: a unit, a general or a fleet.
#[derive(Debug, Clone, Copy)]
pub enum Piece<'a> {
    Unit(&'a Unit),
    General(&'a General),
    Fleet(&'a Fleet),
}

impl Piece<'_> {
    pub fn side(&self) -> &str {
        match self {
            Piece::Unit(u) => &u.side,
            Piece::General(g) => &g.side,
            Piece::Fleet(f) => &f.side,
        }
    }

    pub fn name(&self) -> &str {
        match self {
            Piece::Unit(u) => &u.name,
            Piece::General(g) => &g.name,
            Piece::Fleet(f) => &f.name,
        }
    }
}

/// The whole module, checked: what every rule reads.
#[derive(Debug, Clone)]
pub struct Module {
    pub info: ModuleInfo,
    pub file: ModuleFile,
    pub map: hexmap::Map,
    pub towns: Vec<Town>,
    pub rivers: Vec<River>,
    pub units: Vec<Unit>,
    pub generals: Vec<General>,
    pub fleets: Vec<Fleet>,
    pub charts: Charts,
    pub scenarios: BTreeMap<String, Scenario>,
    /// What check-game counted.
    pub counted: BTreeMap<String, usize>,
}

/// Problems found while loading, each located.
#[derive(Default)]
struct Problems(Vec<Located>);

impl Problems {
    fn add(&mut self, file: &str, field: &str, message: impl Into<String>) {
        self.0.push(Located {
            file: file.to_string(),
            line: None,
            column: None,
            field: field.to_string(),
            message: message.into(),
            code: None,
        });
    }
}

/// A file's text parsed as `T`, every problem located.
fn read<T: serde::de::DeserializeOwned>(files: &ModuleFiles, name: &str) -> std::result::Result<T, Vec<Located>> {
    let label = files.label(name);
    let text = files.text(name).map_err(|e| {
        vec![Located {
            file: label.clone(),
            line: None,
            column: None,
            field: String::new(),
            message: e.to_string(),
            code: None,
        }]
    })?;
    crate::base::yaml::parse(&label, text).map_err(|l| vec![l])
}

/// Locate each problem's field in its file, where the text has it: each
/// file read once for all its problems ([`Places`]), not once per problem.
fn locate(files: &ModuleFiles, problems: &mut [Located]) {
    let mut read: BTreeMap<String, Option<Places>> = BTreeMap::new();
    for p in problems.iter_mut().filter(|p| p.line.is_none() && !p.field.is_empty()) {
        let name = p.file.rsplit_once(&files.label("")).map(|(_, n)| n.to_string());
        let Some(name) = name else { continue };
        let places = read.entry(name).or_insert_with_key(|name| files.text(name).ok().map(Places::new));
        let Some(places) = places else { continue };
        if let Some((line, column)) = places.locate(&p.field) {
            p.line = Some(line);
            p.column = Some(column);
        }
    }
}

impl Module {
    /// Load and check the module: every problem, located.
    pub fn load(files: &ModuleFiles) -> std::result::Result<Module, Vec<Located>> {
        let file: ModuleFile = read(files, "module.yaml")?;
        let map_file: MapFile = read(files, &file.files.map)?;
        let oob: OobFile = read(files, &file.files.oob)?;
        let mut errors = Vec::new();
        let chart = |name: &str| format!("{}/{name}", file.files.charts);
        let command = read::<CommandChart>(files, &chart("command.yaml")).map_err(|e| errors.extend(e)).ok();
        let movement = read::<MovementChart>(files, &chart("movement.yaml")).map_err(|e| errors.extend(e)).ok();
        let communications =
            read::<CommunicationsChart>(files, &chart("communications.yaml")).map_err(|e| errors.extend(e)).ok();
        let morale = read::<MoraleChart>(files, &chart("morale.yaml")).map_err(|e| errors.extend(e)).ok();
        let battle = read::<BattleChart>(files, &chart("battle.yaml")).map_err(|e| errors.extend(e)).ok();
        let replacements =
            read::<ReplacementsChart>(files, &chart("replacements.yaml")).map_err(|e| errors.extend(e)).ok();
        let mut scenarios = BTreeMap::new();
        for (id, path) in &file.files.scenarios {
            match read::<Scenario>(files, path) {
                Ok(s) => {
                    scenarios.insert(id.clone(), s);
                }
                Err(e) => errors.extend(e),
            }
        }
        let (Some(command), Some(movement), Some(communications), Some(morale), Some(battle), Some(replacements)) =
            (command, movement, communications, morale, battle, replacements)
        else {
            return Err(errors);
        };
        if !errors.is_empty() {
            return Err(errors);
        }
        let charts = Charts { command, movement, communications, morale, battle, replacements };
        let mut p = Problems::default();
        let map_label = files.label(&file.files.map);
        let (map, rivers) = build_map(&map_file, &map_label, &mut p);
        let info = ModuleInfo {
            id: file.id.clone(),
            name: file.name.clone(),
            system: Some(file.system.clone()),
            sides: file.sides.clone(),
            scenarios: file.scenarios.clone(),
        };
        let mut module = Module {
            info,
            towns: map_file.towns.clone(),
            rivers,
            map,
            units: oob.units,
            generals: oob.generals,
            fleets: oob.fleets,
            charts,
            scenarios,
            counted: BTreeMap::new(),
            file,
        };
        module.check(files, &oob.source, &map_file.source, &mut p);
        let mut problems = p.0;
        locate(files, &mut problems);
        if problems.is_empty() {
            Ok(module)
        } else {
            Err(problems)
        }
    }

    /// Cross-references between the files, and the charts' completeness.
    fn check(&mut self, files: &ModuleFiles, oob_source: &str, map_source: &str, p: &mut Problems) {
        let module_label = files.label("module.yaml");
        let oob_label = files.label(&self.file.files.oob);
        let sides: BTreeSet<&str> = self.info.sides.iter().map(|s| s.id.as_str()).collect();
        for (what, source) in
            [("module.yaml", &self.file.source), ("oob", &oob_source.to_string()), ("map", &map_source.to_string())]
        {
            if !["the article", "stand-in"].contains(&source.as_str()) {
                p.add(
                    &module_label,
                    "source",
                    format!("{what}: source must be `the article` or `stand-in`, not '{source}'"),
                );
            }
        }
        if self.file.system != "awi" {
            p.add(&module_label, "system", "this module's system is `awi`");
        }
        for s in &self.info.scenarios {
            if !self.file.files.scenarios.contains_key(&s.id) {
                p.add(&module_label, "files.scenarios", format!("scenario '{}' has no file", s.id));
            }
        }
        let mut ids = BTreeSet::new();
        for (i, u) in self.units.iter().enumerate() {
            let field = format!("units[{i}]");
            if !ids.insert(u.id.clone()) {
                p.add(&oob_label, &format!("{field}.id"), format!("'{}' is used twice", u.id));
            }
            if !sides.contains(u.side.as_str()) {
                p.add(&oob_label, &format!("{field}.side"), format!("'{}' is not a side of module.yaml", u.side));
            }
            if !u.is_supply() && !self.charts.morale.grades.iter().any(|g| g.grade == u.morale) {
                let known: Vec<&str> = self.charts.morale.grades.iter().map(|g| g.grade.as_str()).collect();
                p.add(
                    &oob_label,
                    &format!("{field}.morale"),
                    format!("'{}' is not a grade of charts/morale.yaml ({})", u.morale, known.join(", ")),
                );
            }
            if u.is_supply() {
                if u.fighting_stands != 0 || u.command_stands != 0 {
                    p.add(
                        &oob_label,
                        &format!("{field}.fighting_stands"),
                        "a supply unit has no stands: fighting_stands 0, no command_stands",
                    );
                }
            } else if u.fighting_stands == 0 {
                p.add(&oob_label, &format!("{field}.fighting_stands"), "a unit has at least one fighting stand");
            }
            match (u.kind, u.gun) {
                (Kind::Artillery, None) => p.add(
                    &oob_label,
                    &format!("{field}.gun"),
                    "an artillery unit names its gun: heavy, eight-pounder or light",
                ),
                (Kind::Artillery, Some(_)) if u.fighting_stands != 1 => p.add(
                    &oob_label,
                    &format!("{field}.fighting_stands"),
                    "an artillery unit is one piece with its crew: 1 fighting stand",
                ),
                (k, Some(_)) if k != Kind::Artillery => {
                    p.add(&oob_label, &format!("{field}.gun"), "only an artillery unit has a gun")
                }
                _ => {}
            }
            if self.allowance_of(u).is_none() {
                p.add(
                    &oob_label,
                    &format!("{field}.kind"),
                    format!("charts/movement.yaml gives no allowance for a {} {}", u.side, u.kind.id()),
                );
            }
        }
        for (i, g) in self.generals.iter().enumerate() {
            let field = format!("generals[{i}]");
            if !ids.insert(g.id.clone()) {
                p.add(&oob_label, &format!("{field}.id"), format!("'{}' is used twice", g.id));
            }
            if !sides.contains(g.side.as_str()) {
                p.add(&oob_label, &format!("{field}.side"), format!("'{}' is not a side of module.yaml", g.side));
            }
            if self.span_of(g).is_none() {
                let known: Vec<&str> = self.charts.command.spans.rows.iter().map(|r| r.command.as_str()).collect();
                p.add(
                    &oob_label,
                    &format!("{field}.command"),
                    format!("'{}' is not a span of charts/command.yaml ({})", g.command, known.join(", ")),
                );
            }
            if !self.charts.command.combat_ratings.rows.iter().any(|r| r.rating == g.rating) {
                p.add(
                    &oob_label,
                    &format!("{field}.rating"),
                    format!("{} is not a combat rating of charts/command.yaml (0, 1 or 2)", g.rating),
                );
            }
        }
        for (i, f) in self.fleets.iter().enumerate() {
            if !ids.insert(f.id.clone()) {
                p.add(&oob_label, &format!("fleets[{i}].id"), format!("'{}' is used twice", f.id));
            }
            if self.fleet_allowance(f).is_none() {
                p.add(
                    &oob_label,
                    &format!("fleets[{i}].kind"),
                    format!(
                        "charts/movement.yaml gives no allowance for a {} {} (a `{}` row of allowances.stand-in)",
                        f.side,
                        if f.kind == FleetKind::Tf { "troop fleet" } else { "battle fleet" },
                        f.kind.id()
                    ),
                );
            }
        }
        let chart_label = files.label(&format!("{}/command.yaml", self.file.files.charts));
        for (i, row) in self.charts.command.break_off.rows.iter().enumerate() {
            if !self.generals.iter().any(|g| g.id == row.general) {
                p.add(
                    &chart_label,
                    &format!("break_off.rows[{i}].general"),
                    format!("'{}' is not a general of the order of battle", row.general),
                );
            }
        }
        for (i, row) in self.charts.command.break_off.rows.iter().enumerate() {
            if row.percent > 100 {
                p.add(
                    &chart_label,
                    &format!("break_off.rows[{i}].percent"),
                    format!("{}% is not a chance: 0 to 100", row.percent),
                );
            }
        }
        if self.charts.command.break_off_points_per_percent.value == 0 {
            p.add(
                &chart_label,
                "break_off_points_per_percent.value",
                "0 points a percent would make every break-off free: 1 or more",
            );
        }
        let damage = &self.charts.battle.fortification_damage.rows;
        let covered: u32 = damage.iter().map(|r| r.to.saturating_sub(r.from) + 1).sum();
        if damage.first().map(|r| r.from) != Some(1) || damage.last().map(|r| r.to) != Some(100) || covered != 100 {
            p.add(
                &files.label(&format!("{}/battle.yaml", self.file.files.charts)),
                "fortification_damage.rows",
                "the rows cover the D100 from 1 to 100 (00) once each",
            );
        }
        self.check_trivial(files, p);
        self.check_fortifications(files, p);
        for t in self.map.terrain_ids() {
            if t != WATER && !self.charts.movement.costs.terrain.iter().any(|c| c.terrain == t) {
                p.add(
                    &files.label(&format!("{}/movement.yaml", self.file.files.charts)),
                    "costs.terrain",
                    format!("no cost to enter {t}"),
                );
            }
        }
        for (id, s) in &self.scenarios {
            let label = files.label(&self.file.files.scenarios[id]);
            let mut placed = BTreeSet::new();
            for (hex, pieces) in &s.setup {
                let field = format!("setup.{hex}");
                self.land_hex_check(hex, &label, &field, p, true);
                for piece in pieces {
                    if self.piece(piece).is_none() {
                        p.add(&label, &field, format!("'{piece}' is not in the order of battle"));
                    }
                    if !placed.insert(piece.clone()) {
                        p.add(&label, &field, format!("'{piece}' is placed twice"));
                    }
                }
            }
            for (i, a) in s.reinforcements.iter().enumerate() {
                let field = format!("reinforcements[{i}]");
                self.land_hex_check(&a.hex, &label, &format!("{field}.hex"), p, false);
                for piece in &a.units {
                    if self.piece(piece).is_none() {
                        p.add(&label, &format!("{field}.units"), format!("'{piece}' is not in the order of battle"));
                    }
                    if !placed.insert(piece.clone()) {
                        p.add(&label, &format!("{field}.units"), format!("'{piece}' is placed twice"));
                    }
                }
            }
            for (town, side) in &s.control {
                if self.town(town).is_none() {
                    p.add(&label, &format!("control.{town}"), format!("'{town}' is not a town of the map"));
                }
                if !sides.contains(side.as_str()) {
                    p.add(&label, &format!("control.{town}"), format!("'{side}' is not a side"));
                }
            }
            for (i, town) in s.magazines.iter().enumerate() {
                if self.town(town).is_none() {
                    p.add(&label, &format!("magazines[{i}]"), format!("'{town}' is not a town of the map"));
                }
            }
            for (i, f) in s.forts.iter().enumerate() {
                self.land_hex_check(&f.hex, &label, &format!("forts[{i}].hex"), p, false);
                for (j, id) in f.garrison.iter().enumerate() {
                    let field = format!("forts[{i}].garrison[{j}]");
                    match self.unit(id) {
                        None => p.add(&label, &field, format!("'{id}' is not a unit of the order of battle")),
                        Some(u) if u.side != f.side => {
                            p.add(&label, &field, format!("'{id}' is {}'s; the fort is {}'s", u.side, f.side))
                        }
                        Some(u) if u.is_supply() => p.add(
                            &label,
                            &field,
                            format!("'{id}' is a supply unit: a fort shelters regiments and guns"),
                        ),
                        Some(_) if !s.setup.get(&f.hex).is_some_and(|x| x.contains(id)) => p.add(
                            &label,
                            &field,
                            format!("'{id}' does not start at {} (setup): a fort's garrison is in its hex", f.hex),
                        ),
                        Some(_) => {}
                    }
                }
            }
        }
        self.check_musters(files, p);
        let mut counted = BTreeMap::new();
        counted.insert("hexes".to_string(), self.map.terrain.len());
        counted.insert("towns".to_string(), self.towns.len());
        counted.insert("rivers".to_string(), self.rivers.len());
        counted.insert("units".to_string(), self.units.len());
        counted.insert("generals".to_string(), self.generals.len());
        counted.insert("fleets".to_string(), self.fleets.len());
        counted.insert("charts".to_string(), CHART_FILES.len());
        counted.insert("scenarios".to_string(), self.scenarios.len());
        self.counted = counted;
    }

    /// FORTIFICATIONS: every artillery unit's weapon has a size, each size
    /// pounds or inches; a scenario's fort sections destroyed are sections
    /// of the fort; the construction needs builders.
    fn check_fortifications(&self, files: &ModuleFiles, p: &mut Problems) {
        let label = files.label(&format!("{}/battle.yaml", self.file.files.charts));
        let guns = &self.charts.battle.guns.rows;
        for (i, g) in guns.iter().enumerate() {
            if g.pounds.is_some() == g.howitzer_inches.is_some() {
                p.add(
                    &label,
                    &format!("guns.rows[{i}]"),
                    format!("'{}': give its pounds (a gun) or its howitzer_inches (a howitzer), one of them", g.weapon),
                );
            }
            if guns[..i].iter().any(|x| x.weapon == g.weapon) {
                p.add(&label, &format!("guns.rows[{i}].weapon"), format!("'{}' is given twice", g.weapon));
            }
        }
        let oob_label = files.label(&self.file.files.oob);
        for (i, u) in self.units.iter().enumerate() {
            if u.kind == Kind::Artillery && !guns.iter().any(|g| g.weapon == u.weapon) {
                p.add(
                    &oob_label,
                    &format!("units[{i}].weapon"),
                    format!(
                        "'{}' has no size in charts/battle.yaml `guns` (the fort rules count pounds and inches): {}",
                        u.weapon,
                        guns.iter().map(|g| g.weapon.as_str()).collect::<Vec<_>>().join(", ")
                    ),
                );
            }
        }
        let c = &self.charts.battle.fort_construction;
        if c.infantry_stands < self.charts.battle.fort_garrison.infantry_stands {
            p.add(
                &label,
                "fort_construction.infantry_stands",
                format!(
                    "{}: a fort's builders are its first garrison, which needs {} fighting infantry stands at least",
                    c.infantry_stands, self.charts.battle.fort_garrison.infantry_stands
                ),
            );
        }
        if self.charts.battle.fort_sections.value == 0 {
            p.add(&label, "fort_sections.value", "a fort has one section at least");
        }
        for (id, s) in &self.scenarios {
            let label = files.label(&self.file.files.scenarios[id]);
            for (i, f) in s.forts.iter().enumerate() {
                for (j, n) in f.destroyed.iter().enumerate() {
                    if *n == 0 || *n > self.charts.battle.fort_sections.value || f.destroyed[..j].contains(n) {
                        p.add(
                            &label,
                            &format!("forts[{i}].destroyed[{j}]"),
                            format!(
                                "{n}: a section of the fort, once: 1 to {}",
                                self.charts.battle.fort_sections.value
                            ),
                        );
                    }
                }
            }
        }
    }

    /// Each scenario's replacements and militia (REPLACEMENTS, MILITIA
    /// UNITS): a turn of the scenario, a side, a town of the map, a
    /// nationality some regular unit of that side has, points above 0; and
    /// the militia counters a side raises into.
    fn check_musters(&self, files: &ModuleFiles, p: &mut Problems) {
        let sides: BTreeSet<&str> = self.info.sides.iter().map(|s| s.id.as_str()).collect();
        // DEFINITIONS: a town's garrison in strength points, of a side.
        let map_label = files.label(&self.file.files.map);
        for (i, t) in self.towns.iter().enumerate() {
            let Some(g) = &t.garrison else { continue };
            if !sides.contains(g.side.as_str()) {
                p.add(
                    &map_label,
                    &format!("towns[{i}].garrison.side"),
                    format!("'{}' is not a side of module.yaml", g.side),
                );
            }
            if g.strength_points == 0 {
                p.add(&map_label, &format!("towns[{i}].garrison.strength_points"), "strength points from 1");
            }
        }
        for (id, s) in &self.scenarios {
            let label = files.label(&self.file.files.scenarios[id]);
            let turns = self.info.scenarios.iter().find(|x| &x.id == id).map(|x| (x.first_turn, x.last_turn));
            let common = |p: &mut Problems, field: &str, turn: u32, side: &str, town: &str, amount: u32, what: &str| {
                if let Some((first, last)) = turns {
                    if turn < first || turn > last {
                        p.add(
                            &label,
                            &format!("{field}.turn"),
                            format!("turn {turn} is not a turn of the scenario ({first} to {last})"),
                        );
                    }
                }
                if !sides.contains(side) {
                    p.add(&label, &format!("{field}.side"), format!("'{side}' is not a side of module.yaml"));
                }
                if self.town(town).is_none() {
                    p.add(&label, &format!("{field}.town"), format!("'{town}' is not a town of the map"));
                }
                if amount == 0 {
                    p.add(&label, &format!("{field}.{what}"), format!("{what} from 1"));
                }
            };
            for (i, r) in s.replacements.iter().enumerate() {
                let field = format!("replacements[{i}]");
                common(p, &field, r.turn, &r.side, &r.town, r.points, "points");
                let regular = |u: &&Unit| u.side == r.side && u.class != Class::Militia && !u.is_supply();
                if sides.contains(r.side.as_str())
                    && !self.units.iter().filter(regular).any(|u| u.nationality == r.nationality)
                {
                    let known: BTreeSet<&str> =
                        self.units.iter().filter(regular).map(|u| u.nationality.as_str()).collect();
                    p.add(
                        &label,
                        &format!("{field}.nationality"),
                        format!(
                            "no regular unit of the {} is {}: replacements rebuild regular units of their nationality ({})",
                            r.side,
                            r.nationality,
                            known.into_iter().collect::<Vec<_>>().join(", ")
                        ),
                    );
                }
            }
            for (i, r) in s.militia.iter().enumerate() {
                common(p, &format!("militia[{i}]"), r.turn, &r.side, &r.town, r.strength_points, "strength_points");
            }
        }
        let chart = files.label(&format!("{}/replacements.yaml", self.file.files.charts));
        let r = &self.charts.replacements;
        if r.stands_per_replacement_point.value == 0 {
            p.add(&chart, "stands_per_replacement_point.value", "stands from 1");
        }
        if r.militia_rifles_percent.value > 100 {
            p.add(&chart, "militia_rifles_percent.value", "a share of the stands from 0 to 100");
        }
    }

    /// The combat table: columns in rising odds, six results each, every
    /// result costing one side something (so that a trivial combat, repeated
    /// "until one or both sides break", ends).
    fn check_trivial(&self, files: &ModuleFiles, p: &mut Problems) {
        let label = files.label(&format!("{}/battle.yaml", self.file.files.charts));
        let t = &self.charts.battle.trivial_combat;
        if t.columns.is_empty() {
            p.add(&label, "trivial_combat.columns", "the combat table has at least one column");
        }
        for (i, c) in t.columns.iter().enumerate() {
            let field = format!("trivial_combat.columns[{i}]");
            if c.attacker == 0 || c.defender == 0 {
                p.add(&label, &format!("{field}.odds"), "odds are two whole numbers above 0, e.g. 3:2");
            }
            if c.odds != format!("{}:{}", c.attacker, c.defender) {
                p.add(
                    &label,
                    &format!("{field}.odds"),
                    format!("'{}' does not say {}:{}", c.odds, c.attacker, c.defender),
                );
            }
            if let Some(prev) = i.checked_sub(1).and_then(|j| t.columns.get(j)) {
                if u64::from(c.attacker) * u64::from(prev.defender) <= u64::from(prev.attacker) * u64::from(c.defender)
                {
                    p.add(
                        &label,
                        &format!("{field}.odds"),
                        format!("{} is not above {}: columns rise in odds", c.odds, prev.odds),
                    );
                }
            }
            if c.results.len() != 6 {
                p.add(
                    &label,
                    &format!("{field}.results"),
                    format!("{} results; one per face of the D6: 6", c.results.len()),
                );
            }
            for (j, r) in c.results.iter().enumerate() {
                if r.attacker == 0 && r.defender == 0 {
                    p.add(
                        &label,
                        &format!("{field}.results[{j}]"),
                        "a result costs one side a strength point at least, so that the combat repeated until a side breaks ends",
                    );
                }
            }
        }
        if t.army_morale_percent.value == 0 || t.army_morale_percent.value > 100 {
            p.add(&label, "trivial_combat.army_morale_percent.value", "a share of the stands from 1 to 100");
        }
        let section = &self.charts.battle.fort_section;
        if section.die.parse::<Die>().is_err() {
            p.add(&label, "fort_section.die", format!("'{}' is not a die (d6, d10, d100)", section.die));
        }
        self.check_ammunition(&label, p);
        if self.charts.battle.pursuit.actions_die == 0 {
            p.add(&label, "pursuit.actions_die", "a die has at least one face");
        }
    }

    /// The ammunition roll: a die, its faces each in one row, every row's
    /// shots a row of the article's `ammunition` (so that a force lacking
    /// a supply unit finds its 2, 3 or 4).
    fn check_ammunition(&self, label: &str, p: &mut Problems) {
        let roll = &self.charts.battle.ammunition_roll;
        let faces = match roll.die.parse::<Die>() {
            Ok(d) => d.faces(),
            Err(_) => {
                p.add(label, "ammunition_roll.die", format!("'{}' is not a die (d6, d10, d100)", roll.die));
                return;
            }
        };
        let mut next = 1;
        for (i, r) in roll.rows.iter().enumerate() {
            if r.from != next || r.to < r.from {
                p.add(
                    label,
                    &format!("ammunition_roll.rows[{i}].from"),
                    format!("the rows cover the {} from 1 to {faces} in order: this row starts at {next}", roll.die),
                );
            }
            next = r.to.saturating_add(1);
            if !self.charts.battle.ammunition.rows.iter().any(|a| a.with_supply == r.with_supply) {
                let known: Vec<String> =
                    self.charts.battle.ammunition.rows.iter().map(|a| a.with_supply.to_string()).collect();
                p.add(
                    label,
                    &format!("ammunition_roll.rows[{i}].with_supply"),
                    format!("{} shots is not a row of `ammunition` ({})", r.with_supply, known.join(", ")),
                );
            }
        }
        if next != faces + 1 {
            p.add(
                label,
                "ammunition_roll.rows",
                format!("the rows cover the {} from 1 to {faces} once each", roll.die),
            );
        }
        if self.charts.battle.magazine_supply.hexes == 0 {
            p.add(label, "magazine_supply.hexes", "a distance in hexes from 1");
        }
    }

    fn land_hex_check(&self, hex: &str, label: &str, field: &str, p: &mut Problems, fleets_ok: bool) {
        match hex.parse::<HexId>() {
            Ok(h) if self.map.contains(h) => {
                if !fleets_ok && self.map.terrain[&h] == WATER {
                    p.add(label, field, format!("{hex} is a sea lane"));
                }
            }
            Ok(_) => p.add(label, field, format!("{hex} is not on the map")),
            Err(e) => p.add(label, field, format!("'{hex}': {e}")),
        }
    }

    pub fn piece(&self, id: &str) -> Option<Piece<'_>> {
        if let Some(u) = self.units.iter().find(|u| u.id == id) {
            return Some(Piece::Unit(u));
        }
        if let Some(g) = self.generals.iter().find(|g| g.id == id) {
            return Some(Piece::General(g));
        }
        self.fleets.iter().find(|f| f.id == id).map(Piece::Fleet)
    }

    pub fn unit(&self, id: &str) -> Option<&Unit> {
        self.units.iter().find(|u| u.id == id)
    }

    pub fn general(&self, id: &str) -> Option<&General> {
        self.generals.iter().find(|g| g.id == id)
    }

    pub fn fleet(&self, id: &str) -> Option<&Fleet> {
        self.fleets.iter().find(|f| f.id == id)
    }

    pub fn town(&self, id: &str) -> Option<&Town> {
        self.towns.iter().find(|t| t.id == id)
    }

    pub fn town_at(&self, hex: HexId) -> Option<&Town> {
        self.towns.iter().find(|t| t.hex.parse::<HexId>().ok() == Some(hex))
    }

    /// A general's command span row.
    pub fn span_of(&self, g: &General) -> Option<&Span> {
        self.charts.command.spans.rows.iter().find(|r| r.command == g.command)
    }

    /// A unit's movement allowance on the campaign map (charts/movement.yaml).
    pub fn allowance_of(&self, u: &Unit) -> Option<u32> {
        let a = &self.charts.movement.allowances;
        match u.gun {
            Some(gun) => a.artillery.rows.iter().find(|r| r.gun == gun && r.side == u.side).map(|r| r.allowance),
            None => self.stand_in_allowance(u.kind.id(), &u.side),
        }
    }

    /// A row of charts/movement.yaml's stand-in allowances, by kind and side.
    fn stand_in_allowance(&self, kind: &str, side: &str) -> Option<u32> {
        let rows = &self.charts.movement.allowances.stand_in.rows;
        rows.iter().find(|r| r.kind == kind && r.side == side).map(|r| r.allowance)
    }

    /// A fleet's allowance in sea hexes (a `tf` or `bf` row of
    /// charts/movement.yaml's stand-in allowances).
    pub fn fleet_allowance(&self, f: &Fleet) -> Option<u32> {
        self.stand_in_allowance(f.kind.id(), &f.side)
    }

    /// A general's allowance (a `general` row of charts/movement.yaml).
    pub fn general_allowance(&self, g: &General) -> Option<u32> {
        self.stand_in_allowance("general", &g.side)
    }

    /// The movement points to enter `hex` (None: land units cannot).
    pub fn terrain_cost(&self, hex: HexId) -> Option<u32> {
        let t = self.map.terrain.get(&hex)?;
        self.charts.movement.costs.terrain.iter().find(|c| &c.terrain == t).map(|c| c.cost)
    }

    /// The class of the river on a hexside, if one runs there.
    pub fn river_class(&self, side: Hexside) -> Option<u8> {
        self.rivers.iter().flat_map(|r| r.hexsides.iter()).find(|(s, _)| *s == side).map(|(_, c)| *c)
    }

    pub fn river_cost(&self, class: u8) -> u32 {
        self.charts.movement.costs.river_class.iter().find(|c| c.class == class).map(|c| c.cost).unwrap_or(0)
    }

    /// The size of an artillery unit's gun (charts/battle.yaml `guns`).
    pub fn gun_size(&self, unit: &str) -> Option<&GunSize> {
        let u = self.unit(unit).filter(|u| u.kind == Kind::Artillery)?;
        self.charts.battle.guns.rows.iter().find(|r| r.weapon == u.weapon)
    }

    pub fn morale_percent(&self, grade: &str) -> u32 {
        self.charts.morale.grades.iter().find(|g| g.grade == grade).map(|g| g.percent).unwrap_or(0)
    }

    pub fn scenario(&self, id: &str) -> Result<&Scenario> {
        self.scenarios.get(id).ok_or_else(|| {
            Error::usage(format!(
                "{} has no scenario '{id}'; its scenarios are: {}",
                self.info.id,
                self.scenarios.keys().cloned().collect::<Vec<_>>().join(", ")
            ))
        })
    }
}

/// The map's hexes, the towns as places, the rivers as hexside features.
fn build_map(f: &MapFile, label: &str, p: &mut Problems) -> (hexmap::Map, Vec<River>) {
    let layout: Layout = f.layout.parse().unwrap_or_else(|_| {
        p.add(label, "layout", format!("'{}' is not a layout: even-columns-down or odd-columns-down", f.layout));
        Layout::GBOAR
    });
    let mut terrain = BTreeMap::new();
    for row in f.rows.first..=f.rows.last {
        let key = format!("{row:02}");
        let Some(line) = f.terrain.get(&key) else {
            p.add(label, "terrain", format!("row {key} is missing"));
            continue;
        };
        let chars: Vec<char> = line.chars().collect();
        let width = usize::from(f.columns.last - f.columns.first) + 1;
        if chars.len() != width {
            p.add(label, &format!("terrain.{key}"), format!("{} hexes, the map has {width} columns", chars.len()));
        }
        for (i, c) in chars.iter().enumerate().take(width) {
            let Some(t) = f.terrain_key.get(&c.to_string()) else {
                p.add(label, &format!("terrain.{key}"), format!("'{c}' is not in terrain_key"));
                continue;
            };
            if let Some(h) = HexId::new(f.columns.first + i as u8, row) {
                terrain.insert(h, t.clone());
            }
        }
    }
    let mut hexsides: BTreeMap<Hexside, BTreeSet<String>> = BTreeMap::new();
    let mut rivers = Vec::new();
    for (i, r) in f.rivers.iter().enumerate() {
        let field = format!("rivers[{i}]");
        let Ok(mouth) = r.mouth.parse::<HexId>() else {
            p.add(label, &format!("{field}.mouth"), format!("'{}' is not a hex id", r.mouth));
            continue;
        };
        if terrain.get(&mouth).map(String::as_str) != Some(WATER) {
            p.add(label, &format!("{field}.mouth"), format!("{} is not a sea lane", r.mouth));
        }
        let mut sides = Vec::new();
        for (j, s) in r.stretches.iter().enumerate() {
            if !(1..=3).contains(&s.class) {
                p.add(label, &format!("{field}.stretches[{j}].class"), "a river hexside's class is 1, 2 or 3");
            }
            for (k, text) in s.hexsides.iter().enumerate() {
                match Hexside::parse(text, layout) {
                    Ok(side) => {
                        sides.push((side, s.class));
                        hexsides.entry(side).or_default().insert(format!("river-{}", s.class));
                    }
                    Err(e) => p.add(label, &format!("{field}.stretches[{j}].hexsides[{k}]"), format!("'{text}': {e}")),
                }
            }
        }
        // Each hexside meets the next at a corner; the first meets the mouth.
        let corner = |a: Hexside, b: HexId| are_adjacent(a.low(), b, layout) && are_adjacent(a.high(), b, layout);
        if let Some((first, _)) = sides.first() {
            if !corner(*first, mouth) {
                p.add(
                    label,
                    &format!("{field}.mouth"),
                    format!("the first hexside {}/{} does not meet {mouth} at a corner", first.low(), first.high()),
                );
            }
        }
        for w in sides.windows(2) {
            let (a, b) = (w[0].0, w[1].0);
            let all: BTreeSet<HexId> = [a.low(), a.high(), b.low(), b.high()].into_iter().collect();
            let meets =
                all.len() == 3 && all.iter().all(|x| all.iter().all(|y| x == y || are_adjacent(*x, *y, layout)));
            if !meets {
                p.add(
                    label,
                    &format!("{field}.stretches"),
                    format!("{}/{} and {}/{} do not meet at a corner", a.low(), a.high(), b.low(), b.high()),
                );
            }
        }
        rivers.push(River { id: r.id.clone(), name: r.name.clone(), mouth, hexsides: sides });
    }
    let mut places = Vec::new();
    let mut ids = BTreeSet::new();
    for (i, t) in f.towns.iter().enumerate() {
        if !ids.insert(t.id.clone()) {
            p.add(label, &format!("towns[{i}].id"), format!("'{}' is used twice", t.id));
        }
        match t.hex.parse::<HexId>() {
            Ok(h) if terrain.get(&h).is_some_and(|t| t != WATER) => {
                places.push(hexmap::Region { id: t.id.clone(), name: t.name.clone(), hexes: vec![h] });
            }
            _ => p.add(label, &format!("towns[{i}].hex"), format!("'{}' is not a land hex of the map", t.hex)),
        }
        // A port lies on a sea lane or on a river's hexside.
        let at = t.hex.parse::<HexId>().ok();
        let on_sea = at.is_some_and(|h| {
            crate::base::hex::neighbours(h, layout).iter().any(|n| terrain.get(n).map(String::as_str) == Some(WATER))
        });
        let on_river = at.is_some_and(|h| rivers.iter().any(|r: &River| r.hexsides.iter().any(|(s, _)| s.contains(h))));
        if t.port && !on_sea && !on_river {
            p.add(label, &format!("towns[{i}].port"), format!("{} is a port but touches no sea lane or river", t.name));
        }
    }
    let map = hexmap::Map {
        layout,
        columns: f.columns,
        rows: f.rows,
        terrain,
        hexsides,
        first_hex: BTreeMap::new(),
        roads: Vec::new(),
        places,
        zones: Vec::new(),
        entry_hexes: BTreeMap::new(),
        headquarters: BTreeMap::new(),
    };
    (map, rivers)
}

/// `adjutant check-game`: the module checked whole.
pub fn check(files: &ModuleFiles) -> crate::system::ModuleCheck {
    match Module::load(files) {
        Ok(m) => crate::system::ModuleCheck { module: m.info.id.clone(), checked: m.counted, problems: Vec::new() },
        Err(problems) => crate::system::ModuleCheck {
            module: files.embedded_id().map(str::to_string).unwrap_or_else(|| files.label("")),
            checked: BTreeMap::new(),
            problems: problems.into_iter().map(ModuleProblem::from).collect(),
        },
    }
}

/// A load error as one error.
pub fn into_error(problems: Vec<Located>) -> Error {
    match problems.into_iter().next() {
        Some(first) => Error::Data(first),
        None => Error::usage("the module could not be read"),
    }
}
