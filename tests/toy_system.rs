//! A second game system, written here and nowhere in the shell (issue 12):
//! a one-hex duel whose only step is Red's, and rolls one die. Registered
//! at run time, it plays through the shell as GBoAR does — `new`, `submit`,
//! `resolve`, the reports, `verify` — which shows the seam of
//! src/system.rs is the whole of what the shell asks of a system.

use std::collections::BTreeMap;
use std::time::Duration;

use adjutant::base::dice::{Bytes32, Die};
use adjutant::base::error::{Located, Result};
use adjutant::base::yaml::Value;
use adjutant::system::{
    self, Dice, Event, GameResult, GameState, Header, ModuleInfo, ScenarioInfo, Side, StepAhead, StepInfo, StepKind,
};

struct Toy;

/// The whole state of a duel: whether Red has rolled, and what.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Duel {
    resolved_steps: u32,
    roll: Option<u16>,
}

fn the_step() -> StepInfo {
    StepInfo { name: "1-roll".into(), field: "roll".into(), turn: 1 }
}

impl GameState for Duel {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn clone_state(&self) -> system::State {
        Box::new(self.clone())
    }
    fn next_step(&self) -> Option<StepInfo> {
        self.roll.is_none().then(the_step)
    }
    fn resolved_steps(&self) -> u32 {
        self.resolved_steps
    }
    fn set_resolved_steps(&mut self, steps: u32) {
        self.resolved_steps = steps;
    }
    fn result(&self) -> Option<GameResult> {
        let winner = if self.roll? >= 4 { "red" } else { "blue" };
        Some(GameResult {
            winner: winner.into(),
            level: "decisive".into(),
            condition: "the roll".into(),
            individual_winners: Vec::new(),
        })
    }
    fn hash(&self) -> Bytes32 {
        Bytes32::sha256(&serde_json::to_vec(self).unwrap_or_default())
    }
    fn to_yaml(&self) -> Result<String> {
        adjutant::base::yaml::to_string(self).map_err(|e| adjutant::Error::usage(e.to_string()))
    }
}

fn duel(state: &dyn GameState) -> Duel {
    state.as_any().downcast_ref::<Duel>().cloned().unwrap_or(Duel { resolved_steps: 0, roll: Some(0) })
}

fn problem(label: &str, field: &str, message: &str) -> Located {
    Located { file: label.into(), line: None, column: None, field: field.into(), message: message.into(), code: None }
}

impl system::Rules for Toy {
    fn module_id(&self) -> &str {
        "toy-duel"
    }
    fn scenario_id(&self) -> &str {
        "duel"
    }
    fn sides(&self) -> Vec<Side> {
        module().sides
    }
    fn players_of_sides(&self) -> BTreeMap<String, String> {
        BTreeMap::new()
    }
    fn setup(&self) -> Result<system::State> {
        Ok(Box::new(Duel { resolved_steps: 0, roll: None }))
    }
    fn read_state(&self, label: &str, text: &str) -> std::result::Result<system::State, Located> {
        Ok(Box::new(adjutant::base::yaml::parse::<Duel>(label, text)?))
    }
    fn awaited(&self, state: &dyn GameState) -> Vec<String> {
        state.next_step().map(|_| vec!["red".to_string()]).unwrap_or_default()
    }
    fn check_header(
        &self,
        game_id: &str,
        state: &dyn GameState,
        label: &str,
        text: &str,
    ) -> std::result::Result<Header, Vec<Located>> {
        let value: Value =
            adjutant::base::yaml::from_str(text).map_err(|e| vec![problem(label, "", &e.to_string())])?;
        let field = |key: &str| value.get(key).and_then(Value::as_str).unwrap_or_default().to_string();
        let mut problems = Vec::new();
        if field("game") != game_id {
            problems.push(problem(label, "game", "not this game"));
        }
        if state.next_step().is_none() || field("step") != "roll" {
            problems.push(problem(label, "step", "the duel awaits step roll"));
        }
        if field("side") != "red" {
            problems.push(problem(label, "side", "only red rolls"));
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        Ok(Header { side: "red".into(), step: the_step(), body: Value::Null })
    }
    fn validate_body(&self, _: &dyn GameState, _: &Header, _: &str, _: &str) -> Vec<Located> {
        Vec::new()
    }
    fn read_turn(
        &self,
        _: &str,
        value: &Value,
    ) -> std::result::Result<u32, (Option<adjutant::base::yaml::locate::Position>, String)> {
        value.as_u64().map(|t| t as u32).ok_or((None, "a turn is a number".into()))
    }
    fn step_ahead(&self, _: &dyn GameState, _: u32, _: &str) -> Result<Option<StepAhead>> {
        Ok(None)
    }
    fn resolve(
        &self,
        state: &dyn GameState,
        _: &BTreeMap<String, Value>,
        dice: &mut dyn Dice,
    ) -> Result<(system::State, Vec<Event>)> {
        let roll = dice.roll(Die::D6, "red's roll")?;
        let event = Event::new("1", "roll", format!("Red rolls {roll}")).with("roll", roll);
        Ok((Box::new(Duel { roll: Some(roll), ..duel(state) }), vec![event]))
    }
    fn step_kinds(&self) -> Result<Vec<StepKind>> {
        Ok(vec![StepKind { field: "roll".into(), may_await: vec!["red".into()] }])
    }
    fn check_shape(&self, _: &str, _: &str, _: &Value) -> Vec<adjutant::system::ShapeProblem> {
        Vec::new()
    }
    fn template(&self, _: &dyn GameState, _: &str) -> Result<system::Template> {
        let null = serde_json::Value::Null;
        Ok(system::Template {
            body: Value::Null,
            comment: "# nothing to choose: the die decides\n".into(),
            kind: null.clone(),
            doc: null.clone(),
            units: null.clone(),
            choices: null,
        })
    }
    fn standing(&self, state: &dyn GameState) -> system::Standing {
        system::Standing {
            turn: 1,
            resolved_steps: state.resolved_steps(),
            result: state.result(),
            ..Default::default()
        }
    }
    fn map(&self, _: &dyn GameState, _: &[Event]) -> Option<adjutant::base::hexmap::Picture<'_>> {
        None
    }
}

fn module() -> ModuleInfo {
    let side = |id: &str, name: &str| Side { id: id.into(), name: name.into() };
    ModuleInfo {
        id: "toy-duel".into(),
        name: "Toy duel".into(),
        system: Some("toy".into()),
        sides: vec![side("red", "Red"), side("blue", "Blue")],
        scenarios: vec![ScenarioInfo { id: "duel".into(), name: "Duel".into(), first_turn: 1, last_turn: 1 }],
    }
}

impl system::System for Toy {
    fn id(&self) -> &'static str {
        "toy"
    }
    fn load(&self, _: &system::ModuleFiles, _: &str) -> Result<Box<dyn system::Rules>> {
        Ok(Box::new(Toy))
    }
    fn own_modules(&self) -> Vec<ModuleInfo> {
        vec![module()]
    }
}

static TOY: Toy = Toy;

/// Register the toy system once for every test of this file.
fn registered() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| system::register(&TOY).unwrap());
}

#[test]
fn a_second_system_plays_through_the_shell() {
    registered();
    assert!(system::register(&TOY).is_err(), "one system per id");
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("duel");
    let players =
        vec![adjutant::game::parse_player("red=Ann").unwrap(), adjutant::game::parse_player("blue=Bob").unwrap()];
    let made = adjutant::game::new_game(&g, "toy-duel", "duel", "duel-1", players, 8, None).unwrap();
    assert_eq!(made.module_name, "Toy duel");
    let wait = Duration::from_secs(5);

    // Orders for a side the step does not await are refused, and change nothing.
    let blue = b"game: duel-1\nturn: 1\nstep: roll\nside: blue\n";
    assert!(adjutant::game::inbox::submit(&g, blue, "blue.yaml", adjutant::game::inbox::Replace::No, wait).is_err());
    let red = b"game: duel-1\nturn: 1\nstep: roll\nside: red\n";
    let receipt = adjutant::game::inbox::submit(&g, red, "red.yaml", adjutant::game::inbox::Replace::No, wait).unwrap();
    assert_eq!(receipt.step, "1-roll");

    let progress = adjutant::game::play::resolve_game(&g, &[], wait).unwrap();
    assert_eq!(progress.resolved.len(), 1);
    assert_eq!(progress.next_step, None, "the duel is over after its one step");
    let roll = progress.resolved[0].rolls[0].value;
    assert!((1..=6).contains(&roll));
    let winner = if roll >= 4 { "red" } else { "blue" };
    assert_eq!(progress.result.as_ref().map(|r| r.winner.as_str()), Some(winner));
    let dispatch = progress.reports.expect("a dispatch of reports");

    // Each side's reports, in every format, say what happened; no map.
    let folder = adjutant::game::folder::GameFolder::open(&g).unwrap();
    for side in ["red", "blue"] {
        for ext in ["txt", "md", "html", "json"] {
            let text = std::fs::read_to_string(g.join(&dispatch).join(format!("{side}.{ext}"))).unwrap();
            assert!(text.contains(&format!("Red rolls {roll}")), "{side}.{ext}:\n{text}");
        }
    }
    assert!(!g.join(&dispatch).join("map.svg").exists(), "a system without a map draws none");
    let report = adjutant::report::game::game_report(
        &folder,
        adjutant::report::Viewer::Referee,
        1,
        1,
        adjutant::report::Format::Text,
    )
    .unwrap();
    assert!(report.contains(&format!("Red rolls {roll}")), "{report}");
    // Nor does any report point at a map that is not there.
    for format in adjutant::report::Format::ALL {
        let text =
            adjutant::report::game::game_report(&folder, adjutant::report::Viewer::Referee, 1, 1, format).unwrap();
        assert!(!text.contains("map.svg"), "{format}:\n{text}");
    }

    // verify replays the step with the same dice and renders the reports again.
    let verdict = adjutant::game::verify::verify(&g).unwrap();
    assert!(verdict.ok, "{:?}", verdict.failure);
    // ... and catches a forged roll.
    let entry = g.join("journal/000001.yaml");
    let text = std::fs::read_to_string(&entry).unwrap();
    let forged = text.replace(&format!("value: {roll}"), &format!("value: {}", roll % 6 + 1));
    assert_ne!(text, forged);
    std::fs::write(&entry, forged).unwrap();
    assert!(!adjutant::game::verify::verify(&g).unwrap().ok, "a changed roll is caught");
}

/// The commands only some systems have (`check-game`, `case run`, `map`,
/// `odds`, `selfplay`) say precisely that this one has none of them.
#[test]
fn a_system_without_the_gboar_commands_says_so() {
    registered();
    let files = adjutant::game::modules::files("toy-duel", None).unwrap();
    let toy = adjutant::game::modules::system_reading(&files).unwrap();
    assert_eq!(toy.id(), "toy");
    assert!(toy.check_module(&files).is_none());
    assert!(toy.board(&files).is_none());
    let rules = toy.load(&files, "duel").unwrap();
    let setup = rules.setup().unwrap();
    assert!(rules.odds(setup.as_ref(), &system::OddsQuery::default()).is_none());
    assert!(rules.selfplay(setup.as_ref(), system::SelfplayId { seed: 1, game: 1 }, false).is_none());
    let lacks = adjutant::game::modules::lacks("toy-duel", toy, "odds");
    assert_eq!(lacks.to_string(), "module 'toy-duel' (system toy) has no odds");
    let case = std::path::Path::new("cases/duel.yaml");
    let err = adjutant::game::modules::run_case(case, "cases/duel.yaml", "module: toy-duel\n").unwrap_err();
    assert_eq!(err.to_string(), "module 'toy-duel' (system toy) has no conformance cases");
}
