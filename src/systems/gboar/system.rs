//! GBoAR behind the seam (`src/system.rs`): the series rules and their
//! modules as the shell sees every system. Each method here only translates
//! between the shell's vocabulary (step names, headers, standing, the map
//! picture) and the rules of this folder; none decides a rule.

use std::collections::BTreeMap;

use crate::base::dice::Bytes32;
use crate::base::error::{Error, Located, Result};
use crate::base::yaml::Value;
use crate::system::{self as seam, Dice, Event, GameState, Header, StepAhead, StepInfo, StepKind};

use crate::systems::gboar::board::state::State;
use crate::systems::gboar::board::Rules;
use crate::systems::gboar::data::sequence::step_field;
use crate::systems::gboar::data::sequence::Step;
use crate::systems::gboar::data::{Module, Source};
use crate::systems::gboar::effects::intel;

/// The GBoAR series (Savannah 1779 and any module whose `system:` is
/// `gboar`).
pub struct Gboar;

/// The one value of [`Gboar`] the registry holds.
pub static GBOAR: Gboar = Gboar;

impl seam::System for Gboar {
    fn id(&self) -> &'static str {
        "gboar"
    }

    fn load(&self, module: &seam::ModuleFiles, scenario: &str) -> Result<Box<dyn seam::Rules>> {
        Ok(Box::new(Rules::load(&Source::of(module), scenario)?))
    }

    fn check_module(&self, module: &seam::ModuleFiles) -> Option<seam::ModuleCheck> {
        Some(crate::systems::gboar::data::check::check(&Source::of(module)))
    }

    fn run_case(
        &self,
        label: &str,
        text: &str,
        module_of: &dyn Fn(&str) -> Result<seam::ModuleFiles>,
    ) -> Option<Result<seam::CaseOutcome>> {
        Some(crate::systems::gboar::case::run(label, text, |module| module_of(module).map(|m| Source::of(&m))))
    }

    fn board(&self, module: &seam::ModuleFiles) -> Option<Result<Box<dyn seam::Board>>> {
        Some(Module::load(&Source::of(module)).map(|m| Box::new(m) as Box<dyn seam::Board>).map_err(|e| e.into_error()))
    }
}

impl seam::Board for Module {
    fn info(&self) -> &seam::ModuleInfo {
        &self.info
    }

    fn map(&self) -> &crate::base::hexmap::Map {
        &self.map
    }

    fn setup(&self, scenario: &str) -> Result<Vec<crate::base::hexmap::CounterView>> {
        self.setup_counters(scenario)
    }

    /// Savannah 4.4: "the printed siege works hexsides are used in the
    /// Historical Scenario": a scenario without its special rule
    /// `historical-printed-siege-works` draws the map without them.
    fn scenario_map(&self, scenario: &str) -> Result<std::borrow::Cow<'_, crate::base::hexmap::Map>> {
        self.info.scenario(scenario)?;
        let (rules, _): (crate::systems::gboar::data::scenario::ScenarioMovement, _) =
            self.source.parse(&format!("scenarios/{scenario}.yaml"))?;
        Ok(match rules.has_rule(crate::systems::gboar::board::terrain::PRINTED_SIEGE_WORKS) {
            true => std::borrow::Cow::Borrowed(&self.map),
            false => crate::systems::gboar::board::terrain::without_printed_works(&self.map),
        })
    }
}

/// How the shell names a step.
pub fn step_info(step: &Step) -> StepInfo {
    StepInfo { name: step.name(), field: step_field(step), turn: step.turn() }
}

impl GameState for State {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn clone_state(&self) -> seam::State {
        Box::new(self.clone())
    }

    fn next_step(&self) -> Option<StepInfo> {
        self.next.as_ref().map(step_info)
    }

    fn resolved_steps(&self) -> u32 {
        self.resolved_steps
    }

    fn set_resolved_steps(&mut self, steps: u32) {
        self.resolved_steps = steps;
    }

    fn result(&self) -> Option<seam::GameResult> {
        self.result.clone()
    }

    fn hash(&self) -> Bytes32 {
        State::hash(self)
    }

    fn to_yaml(&self) -> Result<String> {
        crate::base::yaml::to_string(self).map_err(|e| Error::usage(e.to_string()))
    }
}

/// The state the shell holds, as this system's: a state of another system
/// is refused (the shell never mixes them; this says so if it ever did).
fn ours(state: &dyn GameState) -> Result<&State> {
    state.as_any().downcast_ref::<State>().ok_or_else(|| Error::usage("a state of another game system".to_string()))
}

/// The state's next step, or why there is none.
fn next_of(state: &State) -> Result<&Step> {
    state.next.as_ref().ok_or_else(|| Error::refused("the game is over: it has no next step".to_string()))
}

fn problem(label: &str, message: String) -> Located {
    Located { file: label.to_string(), line: None, column: None, field: String::new(), message, code: None }
}

/// Every player order a turn's player turns could come in: the fixed one,
/// the one found by initiative, or any order of the players.
fn orders_of_turn(rules: &Rules, state: &State, turn: u32) -> Result<Vec<Vec<String>>> {
    if turn == state.turn && !state.player_order.is_empty() && rules.sequence.fixed_order(turn)?.is_none() {
        return Ok(vec![state.player_order.clone()]);
    }
    rules.sequence.possible_orders(turn)
}

impl seam::Rules for Rules {
    fn module_id(&self) -> &str {
        &self.module.info.id
    }

    fn scenario_id(&self) -> &str {
        &self.scenario
    }

    fn sides(&self) -> Vec<seam::Side> {
        self.module.info.sides.clone()
    }

    fn players_of_sides(&self) -> BTreeMap<String, String> {
        // By side, as the trait says: a side's armies name it (module.yaml
        // `armies[].side`), and their alliance is its player. Savannah's
        // army ids equal its side ids; a module's need not.
        let mut players = BTreeMap::new();
        for army in &self.sequence.data.armies {
            if let Some(player) = self.player_of_army(&army.id) {
                players.entry(army.side.clone()).or_insert_with(|| player.to_string());
            }
        }
        players
    }

    fn setup(&self) -> Result<seam::State> {
        // The module, its sequence of play and charts as this value loaded
        // them: set-up reads none of them again.
        Ok(Box::new(State::setup_with(&self.module, &self.sequence, self.scenario_id(), Some(&self.charts))?))
    }

    fn read_state(&self, label: &str, text: &str) -> std::result::Result<seam::State, Located> {
        // The canonical text adjutant wrote reads fast; any other is read
        // (and any problem located) by the YAML crate.
        let state: State = match crate::base::yaml::canonical::from_str(text) {
            Some(state) => state,
            None => crate::base::yaml::parse(label, text)?,
        };
        Ok(Box::new(state))
    }

    fn awaited(&self, state: &dyn GameState) -> Vec<String> {
        match ours(state) {
            Ok(s) => {
                s.next.as_ref().map(|step| crate::systems::gboar::phases::awaited(self, s, step)).unwrap_or_default()
            }
            Err(_) => Vec::new(),
        }
    }

    fn check_header(
        &self,
        game_id: &str,
        state: &dyn GameState,
        label: &str,
        text: &str,
    ) -> std::result::Result<Header, Vec<Located>> {
        let state = ours(state).map_err(|e| vec![problem(label, e.to_string())])?;
        let checked = crate::systems::gboar::orders::check_header(self, game_id, state, label, text)?;
        Ok(Header { side: checked.side, step: step_info(&checked.step), body: checked.body })
    }

    fn validate_body(&self, state: &dyn GameState, header: &Header, label: &str, text: &str) -> Vec<Located> {
        let found = ours(state).and_then(|s| Ok((s, next_of(s)?)));
        match found {
            Ok((state, step)) if step_info(step) == header.step => {
                crate::systems::gboar::phases::validate_body(self, state, step, &header.side, &header.body, label, text)
            }
            Ok((_, step)) => {
                let code = crate::systems::gboar::board::refusals::Code::WrongStep;
                let message = format!("step {}: these orders are for step {}", step.name(), header.step.name);
                vec![Located { code: Some(Box::new(code.carried())), ..problem(label, message) }]
            }
            Err(e) => vec![problem(label, e.to_string())],
        }
    }

    fn validate_with(
        &self,
        state: &dyn GameState,
        header: &Header,
        others: &BTreeMap<String, Value>,
        label: &str,
        text: &str,
    ) -> Vec<Located> {
        use crate::systems::gboar::board::refusals::Code;
        let Ok(state) = ours(state) else { return Vec::new() };
        let Ok(step) = next_of(state) else { return Vec::new() };
        if others.is_empty() || step_info(step) != header.step {
            return Vec::new();
        }
        let mut orders = others.clone();
        orders.insert(header.side.clone(), header.body.clone());
        // A spending that waits for the other player's (`after_opponent`,
        // 12.62) is known only with every file: left to resolve.
        let waits = |v: &Value| crate::base::yaml::to_string(v).is_ok_and(|t| t.contains("after_opponent"));
        if orders.values().any(waits) {
            return Vec::new();
        }
        // A side not yet in spends nothing so far (an empty body).
        for side in self.awaited(state) {
            orders.entry(side).or_insert_with(|| Value::Mapping(Default::default()));
        }
        // Of the checks that span sides, those a part of the files decides
        // already: spending only adds up (Savannah 1.4, 12.62).
        let index = crate::base::yaml::locate::Index::new(text);
        crate::systems::gboar::phases::validate_step(self, state, step, &orders)
            .into_iter()
            .filter(|p| p.code == Code::MomentumOverspent)
            .map(|p| {
                let field = if p.field.is_empty() { "momentum".to_string() } else { p.field.clone() };
                let at = index.as_ref().and_then(|i| i.locate(&field));
                Located {
                    file: label.to_string(),
                    line: at.map(|a| a.0),
                    column: at.map(|a| a.1),
                    field,
                    message: p.message,
                    code: Some(Box::new(p.code.carried())),
                }
            })
            .collect()
    }

    /// Issue 16: close combat orders that are legal but hurt the sender: a
    /// tactics chit the template marks closed (played, 12.54's penalty
    /// replaces the Tactics Matrix), a re-roll code that never falls on the
    /// side's role on the Close Combat Table (12.23 step 6), and a momentum
    /// policy of a player holding no chit now (12.62: it can only spend one
    /// gained first, 12.63). In the order of their lines.
    fn warnings(&self, state: &dyn GameState, header: &Header, label: &str, text: &str) -> Vec<String> {
        let Ok(state) = ours(state) else { return Vec::new() };
        let Ok(step) = next_of(state) else { return Vec::new() };
        let Step::PlayerTurn { player: phasing, phase, .. } = step else { return Vec::new() };
        if phase != "close-combat" || step_info(step) != header.step {
            return Vec::new();
        }
        let player = self.player_of_side(&header.side);
        let attacker = &player == phasing;
        let index = crate::base::yaml::locate::Index::new(text);
        let at = |field: String, message: String| {
            let pos = index.as_ref().and_then(|i| i.locate(&field));
            let text = Located {
                file: label.to_string(),
                line: pos.map(|p| p.0),
                column: pos.map(|p| p.1),
                field,
                message,
                code: None,
            }
            .to_string();
            (pos, text)
        };
        let held = state.momentum.get(&player).copied().unwrap_or(0);
        let table = &self.charts.close_combat.close_combat_table;
        let falls: std::collections::BTreeSet<&str> = table
            .rows
            .iter()
            .flat_map(|r| r.results.values())
            .flat_map(|c| if attacker { &c.attacker } else { &c.defender })
            .map(String::as_str)
            .collect();
        let role = if attacker { "the Attacker" } else { "the Defender" };
        let mut warnings = Vec::new();
        let mut policy = |field: String, p: &Value| {
            let Ok(p) =
                crate::base::yaml::from_value::<crate::systems::gboar::phases::close_combat::MomentumPolicy>(p.clone())
            else {
                return;
            };
            for (i, code) in p.reroll_if.iter().enumerate() {
                if !falls.contains(code.as_str()) {
                    warnings.push(at(
                        format!("{field}.reroll_if[{i}]"),
                        format!(
                            "warning: '{}' never falls on {role} on the Close Combat Table: this re-roll cannot \
                             happen (12.23 step 6)",
                            crate::base::error::echo(code)
                        ),
                    ));
                }
            }
            if p.at_most > 0 && held == 0 {
                warnings.push(at(
                    format!("{field}.at_most"),
                    format!(
                        "warning: {}: the {player} player holds no momentum chit now: it re-rolls only with a chit \
                         gained first (12.62, 12.63)",
                        p.at_most
                    ),
                ));
            }
        };
        if let Some(p) = header.body.get("momentum") {
            policy("momentum".into(), p);
        }
        if let Some(list) = header.body.get("attacks").and_then(Value::as_sequence) {
            for (i, a) in list.iter().enumerate() {
                if let Some(p) = a.get("momentum") {
                    policy(format!("attacks[{i}].momentum"), p);
                }
            }
        }
        let illegal = &self.charts.tactics.illegal_chit;
        let (penalty, favour) = if attacker {
            (illegal.attacker_illegal, "the Defender")
        } else {
            (illegal.defender_illegal, "the Attacker")
        };
        for (field, chit, why) in crate::systems::gboar::guide::template::closed_chits_chosen(
            self,
            state,
            phasing,
            &header.side,
            &header.body,
        ) {
            warnings.push(at(
                field,
                format!(
                    "warning: '{chit}' is closed {why}; played, it gives the tactics modifier {penalty:+}, in \
                     {favour}'s favour, instead of the Tactics Matrix (12.52, 12.54)"
                ),
            ));
        }
        warnings.sort_by_key(|(pos, _)| pos.unwrap_or((usize::MAX, usize::MAX)));
        warnings.into_iter().map(|(_, w)| w).collect()
    }

    /// Issue 16: standing orders spend only the momentum chits the side's
    /// player holds (docs/orders.md): at an Initiative Segment
    /// `momentum.before_roll` (12.62: a chit spent is one held), at a
    /// Random Events Phase `momentum` (Savannah 1.4), each number cut to
    /// the chits held. An alliance's other sides' spending is not known
    /// here; their files together are checked at the step as ever.
    fn trim_standing(&self, state: &dyn GameState, side: &str, body: &Value) -> (Value, Vec<String>) {
        let Ok(state) = ours(state) else { return (body.clone(), Vec::new()) };
        let Ok(step) = next_of(state) else { return (body.clone(), Vec::new()) };
        let mut body = body.clone();
        let player = self.player_of_side(side);
        let held = state.momentum.get(&player).copied().unwrap_or(0);
        let mut notes = Vec::new();
        let mut cap = |value: &mut Value, field: String, rule: &str| {
            if let Some(n) = value.as_u64().filter(|n| *n > u64::from(held)) {
                *value = Value::Number(u64::from(held).into());
                let s = if held == 1 { "" } else { "s" };
                notes.push(format!(
                    "{field}: {n} trimmed to {held}: the {player} player holds {held} momentum chit{s} ({rule})"
                ));
            }
        };
        let phase = step.phase();
        if phase == "initiative" {
            if let Some(spend) = body.get_mut("momentum").and_then(|m| m.get_mut("before_roll")) {
                if let Value::Mapping(choice) = spend {
                    if let Some(Value::Mapping(after)) = choice.get_mut("after_opponent") {
                        for (theirs, v) in after.iter_mut() {
                            let theirs = match theirs {
                                Value::Number(n) => n.to_string(),
                                Value::String(t) => t.clone(),
                                _ => continue,
                            };
                            cap(v, format!("momentum.before_roll.after_opponent.{theirs}"), "12.62");
                        }
                    }
                    if let Some(v) = choice.get_mut("otherwise") {
                        cap(v, "momentum.before_roll.otherwise".into(), "12.62");
                    }
                } else {
                    cap(spend, "momentum.before_roll".into(), "12.62");
                }
            }
        } else if phase == "random-events" {
            if let Some(v) = body.get_mut("momentum") {
                cap(v, "momentum".into(), "Savannah 1.4");
            }
        }
        (body, notes)
    }

    fn read_turn(
        &self,
        text: &str,
        value: &Value,
    ) -> std::result::Result<u32, (Option<crate::base::yaml::locate::Position>, String)> {
        crate::systems::gboar::orders::read_turn(text, value)
    }

    fn step_ahead(&self, state: &dyn GameState, turn: u32, field: &str) -> Result<Option<StepAhead>> {
        let state = ours(state)?;
        let next = next_of(state)?;
        if turn < next.turn() || turn > self.sequence.scenario.turns.last {
            return Ok(None);
        }
        for order in orders_of_turn(self, state, turn)? {
            let steps = self.sequence.steps_of_turn(turn, &order)?;
            let from = if turn == next.turn() { steps.iter().position(|s| s == next).map_or(0, |i| i + 1) } else { 0 };
            if let Some(s) = steps[from.min(steps.len())..].iter().find(|s| step_field(s) == field) {
                return Ok(Some(StepAhead {
                    step: step_info(s),
                    may_await: crate::systems::gboar::phases::may_await(self, s),
                }));
            }
        }
        Ok(None)
    }

    fn resolve(
        &self,
        state: &dyn GameState,
        orders: &BTreeMap<String, Value>,
        dice: &mut dyn Dice,
    ) -> Result<(seam::State, Vec<Event>)> {
        let state = ours(state)?;
        let done = crate::systems::gboar::phases::resolve(self, state, next_of(state)?, orders, dice)?;
        Ok((Box::new(done.state), done.events))
    }

    fn forfeit(&self, state: &dyn GameState, sides: &[String]) -> Option<Result<(seam::State, Vec<Event>)>> {
        Some(ours(state).and_then(|state| {
            let (after, events) = crate::systems::gboar::phases::victory::forfeit(self, state, sides)?;
            Ok((Box::new(after) as seam::State, events))
        }))
    }

    fn step_kinds(&self) -> Result<Vec<StepKind>> {
        Ok(self
            .sequence
            .step_kinds()?
            .into_iter()
            .map(|(field, step)| StepKind { may_await: crate::systems::gboar::phases::may_await(self, &step), field })
            .collect())
    }

    fn check_shape(&self, kind: &str, side: &str, body: &Value) -> Vec<seam::ShapeProblem> {
        use crate::systems::gboar::board::refusals::Code;
        let found = match self.sequence.step_kinds() {
            Ok(kinds) => match kinds.get(kind) {
                Some(step) => crate::systems::gboar::orders::check_shape(self, step, side, body),
                None => vec![(
                    Code::WrongStep,
                    String::new(),
                    format!("'{kind}' is not a step of this scenario's sequence of play"),
                )],
            },
            Err(e) => vec![(Code::ModuleData, String::new(), e.to_string())],
        };
        found
            .into_iter()
            .map(|(code, field, message)| seam::ShapeProblem { field, message, code: Some(code.carried()) })
            .collect()
    }

    fn template(&self, state: &dyn GameState, side: &str) -> Result<seam::Template> {
        let state = ours(state)?;
        let step = next_of(state)?;
        let body = crate::systems::gboar::guide::least::minimal(self, state, step, side);
        let guide = crate::systems::gboar::guide::template::guide(self, state, step, side, &body);
        let json = |v: serde_json::Result<serde_json::Value>| v.unwrap_or(serde_json::Value::Null);
        Ok(seam::Template {
            body,
            comment: guide.comment.clone(),
            kind: serde_json::Value::String(guide.kind.clone()),
            doc: serde_json::Value::String(guide.doc.clone()),
            units: json(serde_json::to_value(&guide.units)),
            choices: json(serde_json::to_value(&guide.choices)),
        })
    }

    fn standing(&self, state: &dyn GameState) -> seam::Standing {
        let Ok(state) = ours(state) else { return seam::Standing::default() };
        seam::Standing {
            turn: state.turn,
            resolved_steps: state.resolved_steps,
            weather: state.weather.clone(),
            army_morale: state.army_morale.clone(),
            momentum: state.momentum.clone(),
            vp_halves: state.vp_halves.clone(),
            cards: state.cards.clone(),
            track: self.sequence.track(state.turn).map(str::to_string),
            result: state.result.clone(),
            board: {
                use crate::systems::gboar::board::siege;
                let mut lines: Vec<String> =
                    state.siege_works.iter().map(|w| format!("siege works: {}", siege::describe(w))).collect();
                if !state.breaches.is_empty() {
                    lines.push(format!("breached fieldworks: {}", state.breaches.join(", ")));
                }
                if !state.destroyed_hexes.is_empty() {
                    lines.push(format!("destroyed city hexes: {}", state.destroyed_hexes.join(", ")));
                }
                lines
            },
            private_board: Default::default(),
        }
    }

    fn odds(&self, state: &dyn GameState, query: &seam::OddsQuery) -> Option<Result<seam::OddsReport>> {
        Some(ours(state).and_then(|s| crate::systems::gboar::guide::odds_report::report(self, s, query)))
    }

    fn selfplay(&self, setup: &dyn GameState, id: seam::SelfplayId, record: bool) -> Option<seam::SelfplayGame> {
        let setup = ours(setup).ok()?;
        Some(crate::systems::gboar::selfplay::play(self, setup, id, record))
    }

    fn maps_differ(&self) -> bool {
        intel::hidden(self)
    }

    fn drawn_board(&self) -> Option<(&crate::base::hexmap::Map, String)> {
        Some(self.drawn_map())
    }

    /// Issue 16: the table of positions (guide/positions.rs), hidden enemy
    /// stacks kept hidden (series 7.4).
    fn positions(&self, state: &dyn GameState, side: Option<&str>) -> Vec<seam::Position> {
        let Ok(state) = ours(state) else { return Vec::new() };
        crate::systems::gboar::guide::positions::positions(self, state, side)
    }

    /// Issue 16: what a report's summary leaves out: units placed as they
    /// arrive, phases with nothing to do, "no victory yet", a draw told
    /// again by the card drawn (what the Campaign demo leaves out too), and
    /// the workings of a combat or a fire whose outcome other events tell
    /// (12.23 steps 1-5: odds, DRMs, lead units, tactics, the roll; 13.1's
    /// default choices and results without effect; Savannah 4.12's scatter
    /// and target; 6.1's initiative roll, told by who has the initiative).
    fn routine_events(&self) -> &'static [&'static str] {
        &[
            "placed",
            "arrival",
            "arrival-put-off",
            "phase-passes",
            "no-surrender-roll",
            "no-victory",
            "card-draw",
            "odds",
            "drm",
            "lead-units",
            "tactics",
            "close-combat-roll",
            "capture-choice",
            "no-effect",
            "pins-removed",
            "leader-casualty-ignored",
            "scatter",
            "mortar-target",
            "initiative-roll",
        ]
    }

    /// Series 7.4 under hidden stacks: a side's map draws its own and its
    /// allies' units, and the enemy units it has examined where it saw them
    /// (`State::examined`); the other enemy units of a hex are one blank
    /// counter per army, in its colour, with their number of counters, and the arrows and
    /// markers are those of the events the side may see.
    fn map_for(
        &self,
        state: &dyn GameState,
        events: &[Event],
        side: Option<&str>,
    ) -> Option<crate::base::hexmap::Picture<'_>> {
        let Some(side) = side.filter(|_| intel::hidden(self)) else { return self.map(state, events) };
        let ours_state = ours(state).ok()?;
        let player = self.player_of_side(side);
        let reaches = |e: &&Event| match e.fields.get(seam::VISIBLE_TO) {
            None => true,
            Some(serde_json::Value::Array(list)) => list
                .iter()
                .filter_map(serde_json::Value::as_str)
                .any(|s| s == side || (!player.is_empty() && s == player)),
            Some(_) => false,
        };
        let seen: Vec<Event> = events.iter().filter(reaches).cloned().collect();
        let mut picture = self.map(state, &seen)?;
        let mut hidden: BTreeMap<(crate::base::hex::HexId, String), usize> = BTreeMap::new();
        picture.counters.clear();
        for (id, u) in &ours_state.units {
            let Some(hex) = u.hex else { continue };
            let open = intel::friendly(self, side, id) || intel::known(ours_state, side, id);
            if open {
                picture.counters.extend(self.counter_look(id, hex));
            } else if let Some(army) = self.army_of(id) {
                *hidden.entry((hex, army.to_string())).or_default() += 1;
            }
        }
        for ((hex, army), n) in hidden {
            picture.counters.push(crate::base::hexmap::CounterView {
                hex,
                label: "stack".into(),
                values: format!("×{n}"),
                fill: crate::base::hexmap::army_colour(&army),
                stripe: None,
                leader: false,
                markers: Vec::new(),
            });
        }
        Some(picture)
    }

    fn map(&self, state: &dyn GameState, events: &[Event]) -> Option<crate::base::hexmap::Picture<'_>> {
        let state = ours(state).ok()?;
        let army_of = |u: &str| self.army_of(u).map(str::to_string);
        let (arrows, markers) = crate::systems::gboar::overlay::overlay(events, &army_of);
        let counters = state
            .units
            .iter()
            .filter_map(|(id, u)| {
                let hex = u.hex?;
                self.counter_look(id, hex)
            })
            .collect();
        // Savannah 4.4: the printed siege works are the Historical
        // Scenario's; elsewhere the game's own works are drawn.
        let (map, key) = self.drawn_map();
        Some(crate::base::hexmap::Picture {
            key,
            map,
            counters,
            arrows,
            markers,
            works: crate::systems::gboar::board::siege::drawn_works(state),
        })
    }
}
