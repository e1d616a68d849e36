//! The seam between the shell and the game systems (ARCHITECTURE.md).
//!
//! Everything a game folder, its journal, intake, `resolve`, `verify`,
//! reports and mail share is the shell's (`game/`, `report/`, `mail/`).
//! What the rules say is a system's: GBoAR (`systems/gboar/`) today. The
//! shell reaches a system only through the traits here, and finds it
//! through [`find`]: the registry keyed by a module's `system:`
//! (module.yaml). The shell holds a system's rules and states opaquely
//! ([`Rules`], [`GameState`]); what crosses the seam in the open is the
//! shell's own vocabulary: a step's name and turn ([`StepInfo`]), orders
//! headers ([`Header`]), events ([`Event`]), a game's result
//! ([`GameResult`]), the standing a report shows ([`Standing`]), the map a
//! report draws ([`crate::base::hexmap`]) and the dice ([`Dice`]).
//!
//! A system never touches a clock or a mailbox, and its steps are pure
//! functions of rules, state, orders and dice. It reads an embedded
//! module's files as bytes (`base::embedded`); GBoAR still reads a module
//! folder given by path itself (`data::Source::Dir`), an arrow left for
//! the shell to take over (docs/systems.md).

use std::any::Any;
use std::collections::BTreeMap;
use std::sync::RwLock;

use serde::{Deserialize, Serialize};

use crate::base::dice::{Bytes32, Die, StepDice};
use crate::base::error::{Located, Result};
use crate::base::yaml::Value;

/// One thing that happened, and why: what reports render, the journal
/// records and conformance cases compare. `fields` carries every number
/// that went into it; `visible_to` and `fields_visible_to` among them mark
/// secrets (report/model.rs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Event {
    /// The rule applied, e.g. "15.2".
    pub rule: String,
    /// What kind of event, e.g. "rally".
    pub kind: String,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub fields: BTreeMap<String, serde_json::Value>,
    /// In words, for the report.
    pub text: String,
}

impl Event {
    pub fn new(rule: &str, kind: &str, text: impl Into<String>) -> Event {
        Event { rule: rule.into(), kind: kind.into(), fields: BTreeMap::new(), text: text.into() }
    }

    pub fn with(mut self, key: &str, value: impl Serialize) -> Event {
        self.fields.insert(key.into(), serde_json::to_value(value).unwrap_or(serde_json::Value::Null));
        self
    }
}

/// How a game ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameResult {
    pub winner: String,
    pub level: String,
    pub condition: String,
}

/// Where a step's rolls come from: the verifiable stream of DICE.md, or a
/// script in a conformance case.
pub trait Dice {
    fn roll(&mut self, die: Die, purpose: &str) -> Result<u16>;
}

impl Dice for StepDice {
    fn roll(&mut self, die: Die, purpose: &str) -> Result<u16> {
        Ok(StepDice::roll(self, die, purpose))
    }
}

/// A step of a game's sequence of play, as the shell names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepInfo {
    /// How reports, the journal and the inbox name the step, e.g.
    /// `17-allies-movement`.
    pub name: String,
    /// What an orders file's `step:` says for it, e.g. `allies-movement`.
    pub field: String,
    /// The game turn it belongs to (an orders file's `turn:`).
    pub turn: u32,
}

/// An orders file's header, checked against the game: whose orders, for
/// which step, and the body after the header.
#[derive(Debug, Clone)]
pub struct Header {
    pub side: String,
    pub step: StepInfo,
    pub body: Value,
}

/// A side of a module.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Side {
    pub id: String,
    pub name: String,
}

/// A kind of step that takes orders (a step's `field`), and every side it
/// may await, whatever the state: what standing orders are keyed by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepKind {
    pub field: String,
    pub may_await: Vec<String>,
}

/// A step later than the next, found for orders submitted ahead of it:
/// the step, and every side it may await.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepAhead {
    pub step: StepInfo,
    pub may_await: Vec<String>,
}

/// What `adjutant template` prints for a side: the least orders it must
/// send (the body after the header) and the guide to what else it may
/// order (comments, and the same as data).
#[derive(Debug, Clone)]
pub struct Template {
    pub body: Value,
    /// Comment lines (`# ...`), appended to the orders file.
    pub comment: String,
    pub kind: serde_json::Value,
    pub doc: serde_json::Value,
    pub units: serde_json::Value,
    pub choices: serde_json::Value,
}

/// Where a game stands, as its reports show it (docs/report-schema.md,
/// `standing`): what a system fills of it; a system without weather, army
/// morale, momentum, victory points or cards leaves those empty.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Standing {
    pub turn: u32,
    pub resolved_steps: u32,
    pub weather: Option<String>,
    pub army_morale: BTreeMap<String, i32>,
    pub momentum: BTreeMap<String, u32>,
    /// Victory points in halves (Savannah 2.9), by army.
    pub vp_halves: BTreeMap<String, i32>,
    /// Cards in hand, by holder (side or player): the shell shows a viewer
    /// its own only.
    pub cards: BTreeMap<String, Vec<String>>,
    pub result: Option<GameResult>,
}

/// A state of a game, held by the shell without knowing what is in it.
pub trait GameState: Send + Sync + std::fmt::Debug {
    fn as_any(&self) -> &dyn Any;
    fn clone_state(&self) -> Box<dyn GameState>;
    /// The next step to resolve; `None` when the game is over.
    fn next_step(&self) -> Option<StepInfo>;
    /// How many journal steps led here (0 at set-up).
    fn resolved_steps(&self) -> u32;
    /// Record the journal step that led here (`resolve` sets it).
    fn set_resolved_steps(&mut self, steps: u32);
    /// How the game ended, once it has.
    fn result(&self) -> Option<GameResult>;
    /// The stable hash the journal records (DICE.md §6.4).
    fn hash(&self) -> Bytes32;
    /// The text of `state.yaml`.
    fn to_yaml(&self) -> Result<String>;
}

/// A state, boxed.
pub type State = Box<dyn GameState>;

impl Clone for Box<dyn GameState> {
    fn clone(&self) -> Self {
        self.clone_state()
    }
}

/// The rules of one module's scenario, loaded: everything the shell asks of
/// a system about a game. Every method is pure.
pub trait Rules: Send + Sync {
    /// The module's id and the scenario's.
    fn module_id(&self) -> &str;
    fn scenario_id(&self) -> &str;
    /// The module's sides, in module order.
    fn sides(&self) -> Vec<Side>;
    /// Each side's player (its alliance, when sides share one): secrets
    /// and cards held under a player's id reach all its sides.
    fn players_of_sides(&self) -> BTreeMap<String, String>;
    /// The state before step 1: the scenario's set-up.
    fn setup(&self) -> Result<State>;
    /// A state from the text of `state.yaml`.
    fn read_state(&self, label: &str, text: &str) -> std::result::Result<State, Located>;
    /// The sides the state's next step awaits orders from.
    fn awaited(&self, state: &dyn GameState) -> Vec<String>;
    /// Check an orders file's header against the game and its next step:
    /// every problem, located.
    fn check_header(
        &self,
        game_id: &str,
        state: &dyn GameState,
        label: &str,
        text: &str,
    ) -> std::result::Result<Header, Vec<Located>>;
    /// Check the body of one side's orders for the state's next step:
    /// every problem, located.
    fn validate_body(&self, state: &dyn GameState, header: &Header, label: &str, text: &str) -> Vec<Located>;
    /// The turn an orders file's `turn:` names (`index` places problems).
    fn read_turn(
        &self,
        index: Option<&crate::base::yaml::locate::Index>,
        value: &Value,
    ) -> std::result::Result<u32, (Option<crate::base::yaml::locate::Position>, String)>;
    /// The step of kind `field` in `turn`, after the state's next step,
    /// if the sequence of play has one.
    fn step_ahead(&self, state: &dyn GameState, turn: u32, field: &str) -> Result<Option<StepAhead>>;
    /// Resolve the state's next step with every awaited side's orders
    /// (bodies, by side): the state after it and the events that explain
    /// it. Pure: the dice are the only randomness.
    fn resolve(
        &self,
        state: &dyn GameState,
        orders: &BTreeMap<String, Value>,
        dice: &mut dyn Dice,
    ) -> Result<(State, Vec<Event>)>;
    /// Every kind of step of the scenario's sequence of play (a step's
    /// `field`), with the sides each may await (none: it takes no orders).
    fn step_kinds(&self) -> Result<Vec<StepKind>>;
    /// Check the shape of a body for a kind of step without a position
    /// (standing orders): (field, problem) pairs.
    fn check_shape(&self, kind: &str, side: &str, body: &Value) -> Vec<(String, String)>;
    /// The least orders `side` must send for the state's next step, and the
    /// guide to the rest.
    fn template(&self, state: &dyn GameState, side: &str) -> Result<Template>;
    /// Where the game stands, for reports.
    fn standing(&self, state: &dyn GameState) -> Standing;
    /// The map after `events`, as a report draws it; `None` for a system
    /// without a map.
    fn map(&self, state: &dyn GameState, events: &[Event]) -> Option<crate::base::hexmap::Picture<'_>>;
}

impl std::fmt::Debug for dyn Rules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Rules({}, {})", self.module_id(), self.scenario_id())
    }
}

/// What every module says of itself in its module.yaml, whatever its
/// system: its identity, sides, scenarios, and the system whose rules its
/// games follow. The rest of module.yaml is the system's.
#[derive(Debug, Clone, Deserialize)]
pub struct ModuleInfo {
    pub id: String,
    pub name: String,
    /// module.yaml `system:` (absent: `gboar`, see `game::modules`).
    #[serde(default)]
    pub system: Option<String>,
    pub sides: Vec<Side>,
    pub scenarios: Vec<ScenarioInfo>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ScenarioInfo {
    pub id: String,
    pub name: String,
    pub first_turn: u32,
    pub last_turn: u32,
}

impl ModuleInfo {
    pub fn scenario(&self, id: &str) -> Result<&ScenarioInfo> {
        self.scenarios.iter().find(|s| s.id == id).ok_or_else(|| {
            let known: Vec<&str> = self.scenarios.iter().map(|s| s.id.as_str()).collect();
            crate::base::error::Error::usage(format!(
                "{} has no scenario '{id}'; its scenarios are: {}",
                self.id,
                known.join(", ")
            ))
        })
    }

    pub fn side(&self, id: &str) -> Result<&Side> {
        self.sides.iter().find(|s| s.id == id).ok_or_else(|| {
            let known: Vec<&str> = self.sides.iter().map(|s| s.id.as_str()).collect();
            crate::base::error::Error::usage(format!(
                "{} has no side '{id}'; its sides are: {}",
                self.id,
                known.join(", ")
            ))
        })
    }
}

/// A game system: its id (what a module's `system:` names) and how it
/// loads a module's scenario into rules.
pub trait System: Send + Sync {
    /// What module.yaml's `system:` says for it, e.g. `gboar`.
    fn id(&self) -> &'static str;
    /// The rules of `scenario` of the module `module`.
    fn load(&self, module: &str, scenario: &str) -> Result<Box<dyn Rules>>;
    /// Modules the system carries itself, beside the embedded `games/`
    /// folder's (a test's toy system carries its one module).
    fn own_modules(&self) -> Vec<ModuleInfo> {
        Vec::new()
    }
}

/// The systems this binary has: GBoAR, and any a program registered.
static REGISTERED: RwLock<Vec<&'static dyn System>> = RwLock::new(Vec::new());

/// The systems built in.
fn built_in() -> [&'static dyn System; 1] {
    [&crate::systems::gboar::system::GBOAR]
}

/// Add a system to the registry (a program embedding adjutant, or a test's
/// toy system). A system whose id is already there is refused.
pub fn register(system: &'static dyn System) -> Result<()> {
    if find(system.id()).is_some() {
        return Err(crate::base::error::Error::usage(format!("system '{}' is already registered", system.id())));
    }
    REGISTERED.write().unwrap_or_else(|e| e.into_inner()).push(system);
    Ok(())
}

/// Every system, the built-in ones first, then in the order registered.
pub fn systems() -> Vec<&'static dyn System> {
    let mut all: Vec<&'static dyn System> = built_in().to_vec();
    all.extend(REGISTERED.read().unwrap_or_else(|e| e.into_inner()).iter().copied());
    all
}

/// The system a module's `system:` names.
pub fn find(id: &str) -> Option<&'static dyn System> {
    systems().into_iter().find(|s| s.id() == id)
}
