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
//! functions of rules, state, orders and dice. It reads a module's files
//! as bytes the shell hands it ([`ModuleFiles`]: an embedded module, or a
//! folder the shell read), never a file itself.

use std::any::Any;
use std::collections::BTreeMap;
use std::sync::RwLock;

use serde::{Deserialize, Serialize};

use crate::base::dice::{Bytes32, Die, StepDice};
use crate::base::error::{Located, Result};
use crate::base::yaml::Value;

pub use crate::base::module_files::ModuleFiles;

/// An event's field naming the sides (or players) that may see the event:
/// an array of ids. The referee sees every event (report/model.rs).
pub const VISIBLE_TO: &str = "visible_to";

/// An event's field naming, field by field, the sides that may see a field:
/// an object `{field: [side, ...]}`.
pub const FIELDS_VISIBLE_TO: &str = "fields_visible_to";

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

    /// Whether the event's fields name `id`: a field's value, an item of a
    /// list, or a key of a mapping, at any depth (the words of `text` do
    /// not count: a report's reader, or a program, finds a piece by its id).
    pub fn names(&self, id: &str) -> bool {
        fn within(v: &serde_json::Value, id: &str) -> bool {
            match v {
                serde_json::Value::String(s) => s == id,
                serde_json::Value::Array(l) => l.iter().any(|x| within(x, id)),
                serde_json::Value::Object(m) => m.iter().any(|(k, x)| k == id || within(x, id)),
                _ => false,
            }
        }
        self.fields.values().any(|v| within(v, id))
    }
}

/// How a game ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameResult {
    pub winner: String,
    pub level: String,
    pub condition: String,
    /// The individual winner among the winning side's players, where the
    /// module names one (Savannah 2.10: "the Allied player with the highest
    /// Victory Point total at the moment the game ends"): one army, or
    /// every army tied for the highest total. Empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub individual_winners: Vec<String>,
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

/// A problem in the shape of orders (standing orders, checked without a
/// position): the field, what is wrong, and the system's code and rule
/// for it (docs/refusals.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShapeProblem {
    pub field: String,
    pub message: String,
    pub code: Option<crate::base::error::RefusalCode>,
}

/// A side of a module.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
    /// The turn track the game turn marker is on (Savannah 1.6:
    /// `strategic` or `tactical`), for a game with turn tracks.
    pub track: Option<String>,
    pub result: Option<GameResult>,
    /// What else stands on the board, a line each in words (Savannah 4.4,
    /// 4.5, 4.19: siege works, breaches, destroyed city hexes); empty for
    /// a game with nothing of the kind.
    pub board: Vec<String>,
    /// Lines of the board only their holder (a side or player) sees, and
    /// the referee: each side's ledger of its own units (the AWI article,
    /// RECORD KEEPING). Reports append a viewer's own to `board`; `status`
    /// shows none of them.
    pub private_board: BTreeMap<String, Vec<String>>,
}

/// One row of a report's table of positions (issue 16): a unit, where it
/// stands and in what state, as a viewer may see it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Position {
    /// The unit's side (for counters a viewer may not see, their army's).
    pub side: String,
    /// The unit's id; for enemy counters a viewer may not see, how many
    /// there are (`3 counters`).
    pub unit: String,
    pub hex: String,
    /// Steps left of those at full strength (`1 of 2`); empty for a unit
    /// without steps (a leader) or a counter not seen.
    pub steps: String,
    /// In words (`parade order`, `disrupted`, `shattered, lost`); empty for
    /// a counter not seen.
    pub condition: String,
    /// Series 13.1 PIN.
    pub pinned: bool,
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
    /// A role whose one orders file may stand in for every awaited side's
    /// at the state's next step (the AWI referee's entry of a battle, in
    /// place of both commanders' agreeing files): the step is resolved
    /// with that file alone, and the sides owe nothing more. The role is
    /// not a side: it has no address, no key and no standing orders, so it
    /// enters its file on the machine that holds the game (`resolve --dir
    /// GAME FILE`), and never in mutual dice mode. None by default.
    fn stand_in(&self, _state: &dyn GameState) -> Option<String> {
        None
    }
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
    /// The checks that span several sides' files of the awaited step that a
    /// file can already fail when it arrives, with the other sides' files
    /// already in (`others`: side -> body, as `check_header` returns it):
    /// each problem of the new file, located in it (issue 16: refused at
    /// submit, not at resolve). None by default.
    fn validate_with(
        &self,
        _state: &dyn GameState,
        _header: &Header,
        _others: &BTreeMap<String, Value>,
        _label: &str,
        _text: &str,
    ) -> Vec<Located> {
        Vec::new()
    }
    /// Standing orders trimmed to what the side holds (issue 16,
    /// docs/orders.md "Standing orders"): `body` is what `side`'s standing
    /// orders give for the state's next step; the result is the body used,
    /// less any spending the side may not make in this state, and a line
    /// in words for each thing taken out (empty: used as given). The shell
    /// writes the step's orders file from the trimmed body, so the journal
    /// and `verify` hold what was used. Unchanged by default.
    fn trim_standing(&self, _state: &dyn GameState, _side: &str, body: &Value) -> (Value, Vec<String>) {
        (body.clone(), Vec::new())
    }
    /// Warnings for orders that pass every check but hurt the sender
    /// (issue 16): each a line, with file:line:column where it has one.
    /// `validate` and `submit` print them and receipts carry them; they
    /// refuse nothing. None by default.
    fn warnings(&self, _state: &dyn GameState, _header: &Header, _label: &str, _text: &str) -> Vec<String> {
        Vec::new()
    }
    /// The turn an orders file's `turn:` names: `text` is the file's
    /// (a system reads how the turn is written there, and where, with
    /// [`crate::base::yaml::locate::read_turn`]), `value` its turn as read.
    fn read_turn(
        &self,
        text: &str,
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
    /// A forfeit (DICE.md 7.4, docs/DICE.md A8): the players of `sides`
    /// withheld what a step needed past its deadline, and the game ends at
    /// the state's next step, which is not resolved. What a forfeit means
    /// for victory is the game's rule: the state after (over, with its
    /// result) and the events that say so. `None` for a system without a
    /// forfeit rule: the game is adjourned all the same (the journal says
    /// so) and its state stays as it was.
    fn forfeit(&self, _state: &dyn GameState, _sides: &[String]) -> Option<Result<(State, Vec<Event>)>> {
        None
    }
    /// Every kind of step of the scenario's sequence of play (a step's
    /// `field`), with the sides each may await (none: it takes no orders).
    fn step_kinds(&self) -> Result<Vec<StepKind>>;
    /// Check the shape of a body for a kind of step without a position
    /// (standing orders): every problem.
    fn check_shape(&self, kind: &str, side: &str, body: &Value) -> Vec<ShapeProblem>;
    /// The least orders `side` must send for the state's next step, and the
    /// guide to the rest.
    fn template(&self, state: &dyn GameState, side: &str) -> Result<Template>;
    /// Where the game stands, for reports.
    fn standing(&self, state: &dyn GameState) -> Standing;
    /// The units on the map, a row each, as `side` may see them (`None`:
    /// the referee, who sees all): a report's table of positions (issue
    /// 16). None by default: the report then has no such table.
    fn positions(&self, _state: &dyn GameState, _side: Option<&str>) -> Vec<Position> {
        Vec::new()
    }
    /// The kinds of event a report's summary of what happened leaves out
    /// as routine (issue 16); the report's steps still list every event.
    fn routine_events(&self) -> &'static [&'static str] {
        &[]
    }
    /// The map after `events`, as a report draws it; `None` for a system
    /// without a map.
    fn map(&self, state: &dyn GameState, events: &[Event]) -> Option<crate::base::hexmap::Picture<'_>>;
    /// The board every [`Rules::map`] of the game is drawn on, with its
    /// key (a picture's `map` and `key`), known before any state is: what
    /// no game changes on it may be drawn ahead (issue 11). `None` for a
    /// system without a map.
    fn drawn_board(&self) -> Option<(&crate::base::hexmap::Map, String)> {
        None
    }
    /// The map as `side` may see it (`None`: the referee, who sees all):
    /// a system whose sides see different things ([`Rules::maps_differ`])
    /// leaves out what a side may not see.
    fn map_for(
        &self,
        state: &dyn GameState,
        events: &[Event],
        _side: Option<&str>,
    ) -> Option<crate::base::hexmap::Picture<'_>> {
        self.map(state, events)
    }
    /// Whether each side sees its own map (a dispatch then holds one map
    /// per side, `SIDE-map.svg`, instead of one `map.svg`).
    fn maps_differ(&self) -> bool {
        false
    }
    /// `adjutant odds`: the exact odds of a proposed combat in `state`;
    /// `None` for a system without them.
    fn odds(&self, _state: &dyn GameState, _query: &OddsQuery) -> Option<Result<OddsReport>> {
        None
    }
    /// `adjutant selfplay`: game `id` played from `setup` to its end with
    /// random legal orders, the system's invariants checked after every
    /// step (`record` keeps each step's orders files); `None` for a system
    /// without self-play.
    fn selfplay(&self, _setup: &dyn GameState, _id: SelfplayId, _record: bool) -> Option<SelfplayGame> {
        None
    }
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
    /// The rules of `scenario` of the module whose files are `module`.
    fn load(&self, module: &ModuleFiles, scenario: &str) -> Result<Box<dyn Rules>>;
    /// Modules the system carries itself, beside the embedded `games/`
    /// folder's (a test's toy system carries its one module).
    fn own_modules(&self) -> Vec<ModuleInfo> {
        Vec::new()
    }
    /// `adjutant check-game`: a module's files checked whole, every
    /// problem located; `None` for a system without a module checker.
    fn check_module(&self, _module: &ModuleFiles) -> Option<ModuleCheck> {
        None
    }
    /// `adjutant test`: run the conformance case whose text is `text`
    /// (`label` names it); `module_of` gives the files of the module the
    /// case names. `None` for a system without conformance cases.
    fn run_case(
        &self,
        _label: &str,
        _text: &str,
        _module_of: &dyn Fn(&str) -> Result<ModuleFiles>,
    ) -> Option<Result<CaseOutcome>> {
        None
    }
    /// `adjutant map`: a module's board, without a game; `None` for a
    /// system without a map.
    fn board(&self, _module: &ModuleFiles) -> Option<Result<Box<dyn Board>>> {
        None
    }
}

/// What a module checker found (`adjutant check-game`): the module, what
/// was looked at (how many of each thing), and every problem.
#[derive(Debug, Clone, Serialize)]
pub struct ModuleCheck {
    pub module: String,
    pub checked: BTreeMap<String, usize>,
    pub problems: Vec<ModuleProblem>,
}

/// One problem of a module: where, and what (`text`: the whole line).
#[derive(Debug, Clone, Serialize)]
pub struct ModuleProblem {
    pub file: String,
    pub line: Option<usize>,
    pub field: String,
    pub message: String,
    pub text: String,
}

impl From<Located> for ModuleProblem {
    fn from(l: Located) -> Self {
        ModuleProblem { text: l.to_string(), file: l.file, line: l.line, field: l.field, message: l.message }
    }
}

/// The outcome of one conformance case (`adjutant test`).
#[derive(Debug, Clone, Serialize)]
pub struct CaseOutcome {
    pub file: String,
    pub name: String,
    pub rules: Vec<String>,
    pub passed: bool,
    pub failures: Vec<String>,
}

/// A module's board as `adjutant map` draws it: the module, its map, and
/// a scenario's set-up on it.
pub trait Board {
    fn info(&self) -> &ModuleInfo;
    fn map(&self) -> &crate::base::hexmap::Map;
    /// The counters of `scenario`'s set-up, as the map draws them.
    fn setup(&self, scenario: &str) -> Result<Vec<crate::base::hexmap::CounterView>>;
    /// The map as `scenario` draws it (a system may leave out what the
    /// scenario does not use: Savannah 4.4's printed siege works).
    fn scenario_map(&self, scenario: &str) -> Result<std::borrow::Cow<'_, crate::base::hexmap::Map>> {
        let _ = scenario;
        Ok(std::borrow::Cow::Borrowed(self.map()))
    }
}

/// `adjutant odds`: a proposed combat, as the command line gives it.
#[derive(Debug, Clone, Default)]
pub struct OddsQuery {
    pub attackers: Vec<String>,
    pub defenders: Vec<String>,
    pub attacker_lead: Option<String>,
    pub defender_lead: Option<String>,
    pub attacker_tactics: Option<String>,
    pub defender_tactics: Option<String>,
    /// Columns shifted left for a diversion.
    pub diversion: u32,
    /// A column of the combat table and a total DRM, instead of units.
    pub column: Option<String>,
    pub drm: Option<i32>,
    /// Momentum chits each side holds (`None`: the state's).
    pub attacker_chits: Option<u32>,
    pub defender_chits: Option<u32>,
    /// Each side re-rolls when its own results include one of these...
    pub attacker_reroll_if: Vec<String>,
    pub defender_reroll_if: Vec<String>,
    /// ...at most this many times.
    pub attacker_at_most: u32,
    pub defender_at_most: u32,
}

/// The odds of a combat (`adjutant odds`): the column and DRM, how they
/// came, and every outcome as an exact fraction.
#[derive(Debug, Clone, Serialize)]
pub struct OddsReport {
    pub column: String,
    pub drm: i32,
    pub explanation: Vec<String>,
    pub no_combat: bool,
    pub outcomes: Vec<OddsLine>,
    /// The same outcomes with their morale checks' results multiplied in
    /// (empty when no outcome calls for a check).
    pub with_morale_checks: Vec<OddsFullLine>,
    pub attacker_chits_spent: String,
    pub defender_chits_spent: String,
}

/// An odds line's percent with two decimals, from an exact fraction
/// (integer arithmetic, rounded half up; `num * 10,000` must fit).
pub fn percent(num: u128, den: u128) -> String {
    let hundredths = (num * 10_000 + den / 2) / den.max(1);
    format!("{}.{:02}%", hundredths / 100, hundredths % 100)
}

/// One outcome of a combat, and the morale checks it calls for.
#[derive(Debug, Clone, Serialize)]
pub struct OddsLine {
    pub attacker: Vec<String>,
    pub defender: Vec<String>,
    pub gains_momentum: Option<String>,
    /// The morale checks the result calls for: each unit and its chance to
    /// pass, in tenths (the checks are independent rolls).
    pub morale_checks: Vec<OddsCheck>,
    pub numerator: String,
    pub denominator: String,
    pub percent: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct OddsCheck {
    pub unit: String,
    pub passes_in_ten: u32,
}

/// One outcome with its morale checks rolled too.
#[derive(Debug, Clone, Serialize)]
pub struct OddsFullLine {
    pub attacker: Vec<String>,
    pub defender: Vec<String>,
    pub gains_momentum: Option<String>,
    pub morale: Vec<OddsCheckResult>,
    pub numerator: String,
    pub denominator: String,
    pub percent: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct OddsCheckResult {
    pub unit: String,
    pub passes: bool,
}

/// One self-play game of a run: the run's seed and the game's number
/// (from 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SelfplayId {
    pub seed: u64,
    pub game: u32,
}

impl SelfplayId {
    /// The game id bound into every roll (DICE.md §4).
    pub fn name(&self) -> String {
        format!("selfplay-{}-{}", self.seed, self.game)
    }

    /// The SHA-256 of a public text naming the seed and game: the game's
    /// chain top, like the demo's not a secret, so that anyone can play
    /// the same game again.
    pub fn chain_top(&self) -> Bytes32 {
        Bytes32::sha256(format!("adjutant selfplay: seed {}, game {}. Not a secret.", self.seed, self.game).as_bytes())
    }

    /// The seed of journal step `k` of this game (DICE.md §4), its orders
    /// files `files` (side, the file's text) and `key` its chain key: as a
    /// game folder derives it, so `--keep` replays the same dice.
    pub fn step_seed(
        &self,
        k: u32,
        key: &Bytes32,
        files: &[(String, String)],
    ) -> std::result::Result<Bytes32, crate::base::dice::DiceError> {
        let hashes: Vec<crate::base::dice::SideHash> =
            files.iter().map(|(side, f)| crate::base::dice::SideHash::of_bytes(side, f.as_bytes())).collect();
        crate::base::dice::orders_digest(&hashes)
            .and_then(|digest| crate::base::dice::step_seed(&self.name(), k, key, &digest, &[]))
    }
}

/// A broken invariant, a refused step or a panic in a self-play game:
/// where, and what.
#[derive(Debug, Clone, Serialize)]
pub struct SelfplayFailure {
    pub game: u32,
    /// The journal step (1 for the first step), 0 before any.
    pub journal_step: u32,
    /// The game step, e.g. `17-allies-movement`.
    pub step: String,
    pub what: String,
}

/// One step of a self-play game as played: each side's orders file and
/// the state's hash after.
#[derive(Debug, Clone)]
pub struct SelfplayStep {
    pub journal_step: u32,
    pub step: String,
    /// (side, the orders file's text).
    pub files: Vec<(String, String)>,
    pub state_sha256: Bytes32,
}

/// How a self-play game's random orders fared: files, choices drawn,
/// kept, and refusals that named no choice (the orders were then built
/// one choice at a time).
#[derive(Debug, Clone, Default, Serialize)]
pub struct OrderCounts {
    pub files: u64,
    pub drawn: u64,
    pub kept: u64,
    pub one_by_one: u64,
}

impl OrderCounts {
    pub fn add(&mut self, other: &OrderCounts) {
        self.files += other.files;
        self.drawn += other.drawn;
        self.kept += other.kept;
        self.one_by_one += other.one_by_one;
    }
}

/// One self-play game played.
#[derive(Debug, Clone)]
pub struct SelfplayGame {
    pub id: SelfplayId,
    pub steps: u32,
    pub result: Option<GameResult>,
    pub failures: Vec<SelfplayFailure>,
    pub orders: OrderCounts,
    /// How many events of each kind the game's steps gave.
    pub events: BTreeMap<String, u64>,
    /// Every step with its orders files, when asked for.
    pub record: Vec<SelfplayStep>,
    pub chain_length: u32,
}

impl SelfplayGame {
    /// Game `id` before its first step: nothing played, nothing found.
    pub fn new(id: SelfplayId) -> SelfplayGame {
        SelfplayGame {
            id,
            steps: 0,
            result: None,
            failures: Vec::new(),
            orders: OrderCounts::default(),
            events: BTreeMap::new(),
            record: Vec::new(),
            chain_length: 0,
        }
    }

    /// Game `id` as `play` plays it, a panic caught and made the game's
    /// failure, at the step `play` last wrote in its `at` (the journal
    /// step and the step's name): a panic in one game stops that game,
    /// not the run. For each system's self-play.
    pub fn caught(
        id: SelfplayId,
        play: impl FnOnce(&std::cell::RefCell<(u32, String)>) -> SelfplayGame,
    ) -> SelfplayGame {
        let at = std::cell::RefCell::new((0u32, String::new()));
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| play(&at))) {
            Ok(played) => played,
            Err(panic) => {
                let message = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_else(|| "a panic without a message".into());
                let (journal_step, step) = at.borrow().clone();
                SelfplayGame {
                    steps: journal_step.saturating_sub(1),
                    failures: vec![SelfplayFailure {
                        game: id.game,
                        journal_step,
                        step,
                        what: format!("panic: {message}"),
                    }],
                    ..SelfplayGame::new(id)
                }
            }
        }
    }
}

/// The outcome of a run of self-play games.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SelfplaySummary {
    pub games: u32,
    pub steps: u64,
    /// Games by result, `winner level` (`unfinished` for a game that failed).
    pub results: BTreeMap<String, u32>,
    pub orders: OrderCounts,
    pub events: BTreeMap<String, u64>,
    pub failures: Vec<SelfplayFailure>,
}

impl SelfplaySummary {
    pub fn add(&mut self, played: &SelfplayGame) {
        self.games += 1;
        self.steps += u64::from(played.steps);
        let result = match &played.result {
            Some(r) => format!("{} {}", r.winner, r.level),
            None if !played.failures.is_empty() => "failed".to_string(),
            None => "no result".to_string(),
        };
        *self.results.entry(result).or_default() += 1;
        self.orders.add(&played.orders);
        for (kind, n) in &played.events {
            *self.events.entry(kind.clone()).or_default() += n;
        }
        self.failures.extend(played.failures.iter().cloned());
    }
}

/// The systems this binary has: GBoAR, and any a program registered.
static REGISTERED: RwLock<Vec<&'static dyn System>> = RwLock::new(Vec::new());

/// The systems built in.
fn built_in() -> [&'static dyn System; 2] {
    [&crate::systems::gboar::system::GBOAR, &crate::systems::awi::system::AWI]
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
