//! The AWI Southern Campaign behind the seam (`src/system.rs`): each
//! method translates between the shell's vocabulary and the rules of this
//! folder; none decides a rule.

use std::collections::BTreeMap;

use crate::base::dice::Bytes32;
use crate::base::error::{echo, Error, Located, RefusalCode, Result};
use crate::base::hex::HexId;
use crate::base::hexmap::{army_colour, Arrow, CounterView, Picture};
use crate::base::yaml::locate::Places;
use crate::base::yaml::Value;
use crate::system::{self as seam, Dice, Event, GameState, Header, StepAhead, StepInfo, StepKind};
use crate::systems::awi::board::{month_of, side_order, step_after, PieceState, State, Step, REFEREE};
use crate::systems::awi::data::{self, Module};
use crate::systems::awi::rules::comms::{traced, Status};
use crate::systems::awi::rules::{
    agreement, attrition, battle, command, fortifications, militia, movement, replacements,
};

/// The AWI system (module.yaml `system: awi`).
pub struct Awi;

/// The one value of [`Awi`] the registry holds.
pub static AWI: Awi = Awi;

/// A module's scenario, loaded.
pub struct Rules {
    pub module: Module,
    pub scenario: String,
    pub last_turn: u32,
}

impl Rules {
    pub fn load(files: &seam::ModuleFiles, scenario: &str) -> Result<Rules> {
        let module = Module::load(files).map_err(data::into_error)?;
        module.scenario(scenario)?;
        let info = module.info.scenario(scenario)?.clone();
        Ok(Rules { module, scenario: scenario.to_string(), last_turn: info.last_turn })
    }

    fn first_turn(&self) -> u32 {
        self.module.info.scenarios.iter().find(|s| s.id == self.scenario).map(|s| s.first_turn).unwrap_or(1)
    }

    /// The state before the first step.
    pub fn initial(&self) -> Result<State> {
        let m = &self.module;
        let sc = m.scenario(&self.scenario)?;
        let mut pieces = BTreeMap::new();
        for p in m
            .units
            .iter()
            .map(|u| (&u.id, u.fighting_stands))
            .chain(m.generals.iter().map(|g| (&g.id, 0)))
            .chain(m.fleets.iter().map(|f| (&f.id, 0)))
        {
            pieces.insert(
                p.0.clone(),
                PieceState { hex: None, stands: p.1, in_communication: true, attrition_passes: 0, eliminated: false },
            );
        }
        for (hex, ids) in &sc.setup {
            for id in ids {
                if let Some(p) = pieces.get_mut(id) {
                    p.hex = Some(hex.clone());
                }
            }
        }
        let first = Step::operations(self.first_turn(), &side_order(m).first().cloned().unwrap_or_default());
        let mut state = State {
            turn: first.turn,
            next: Some(first.clone()),
            resolved_steps: 0,
            pieces,
            control: sc.control.clone(),
            magazines: sc.magazines.iter().cloned().collect(),
            forts: sc.forts.clone(),
            entrenchments: BTreeMap::new(),
            siege: None,
            break_off: Vec::new(),
            result: None,
            replacements: BTreeMap::new(),
            militia: BTreeMap::new(),
        };
        // Every unit starts as in communication at "the end of the previous
        // British turn": "The first month the unit is isolated, it need not
        // check for attrition", the first month of the game too.
        arrive(m, &self.scenario, &mut state, &first);
        Ok(state)
    }

    /// The body a step is resolved with, from the orders files in (side ->
    /// body): a side's operations; for a battle, the referee's entry alone
    /// if he made one (`Rules::stand_in`), else both commanders' entries,
    /// each checked as his own and joined (rules/agreement.rs).
    pub fn body_of(&self, state: &State, orders: &BTreeMap<String, Value>) -> Result<Body> {
        let Some(step) = state.next.clone() else { return Err(Error::refused("the game is over")) };
        let refused = |who: &str, p: &movement::Problem| {
            Error::coded(
                format!("{who}{}: {} [{}, {}]", p.field, p.message, p.code, p.rule),
                vec![RefusalCode { code: p.code.to_string(), rule: p.rule.to_string() }],
            )
        };
        let Some(hex) = &step.battle else {
            return match orders.get(&step.side) {
                Some(v) => read_body(&step, v).map_err(Error::refused),
                None => Ok(Body::Operations(movement::Body::default())),
            };
        };
        if let Some(v) = orders.get(REFEREE) {
            return read_body(&step, v).map_err(Error::refused);
        }
        let at: HexId = hex.parse().map_err(|_| Error::refused(format!("the battle's hex '{hex}' is not a hex")))?;
        let mut files = BTreeMap::new();
        for side in awaited_by(&self.module, &step) {
            let Some(v) = orders.get(&side) else {
                return Err(Error::refused(format!(
                    "step {} awaits {side}'s entry (or the referee's in place of both commanders')",
                    step.name()
                )));
            };
            let Body::Battle(entry) =
                read_body(&step, v).map_err(|e| Error::refused(format!("{side}'s entry: {e}")))?
            else {
                return Err(Error::refused(format!("step {} awaits a battle's entry", step.name())));
            };
            if let Some(p) = battle::check(&self.module, state, at, &step.side, Some(&side), &entry).first() {
                return Err(refused(&format!("{side}'s entry: "), p));
            }
            files.insert(side, *entry);
        }
        match agreement::join(&files) {
            Ok(entry) => Ok(Body::Battle(Box::new(battle::Entry { by_commanders: true, ..entry }))),
            Err(problems) => Err(problems
                .first()
                .map(|p| refused("", p))
                .unwrap_or_else(|| Error::refused("the commanders' entries do not join"))),
        }
    }

    /// Resolve a step with its orders body: a side's operations, or the
    /// entry of a battle (the referee's, or both commanders' joined).
    pub fn step(&self, state: &State, body: &Body, dice: &mut dyn Dice) -> Result<(State, Vec<Event>)> {
        let step = state.next.clone().ok_or_else(|| Error::refused("the game is over: it has no next step"))?;
        match (&step.battle, body) {
            (None, Body::Operations(b)) => self.operations(state, &step, b, dice),
            (Some(hex), Body::Battle(entry)) => self.battle(state, &step, hex, entry, dice),
            (Some(_), Body::Operations(_)) => Err(Error::refused(format!(
                "step {} awaits the entry of the battle's result (both commanders' or the referee's)",
                step.name()
            ))),
            (None, Body::Battle(_)) => {
                Err(Error::refused(format!("step {} awaits {}'s moves", step.name(), step.side)))
            }
        }
    }

    fn operations(
        &self,
        state: &State,
        step: &Step,
        body: &movement::Body,
        dice: &mut dyn Dice,
    ) -> Result<(State, Vec<Event>)> {
        let m = &self.module;
        let (mustered, muster_events, mut problems) = self.muster(state, &step.side, body);
        let mut moves = Vec::new();
        if problems.is_empty() {
            (moves, problems) = movement::check(m, &mustered, &step.side, body);
        }
        if let Some(p) = problems.first() {
            return Err(Error::coded(
                format!("{}: {} [{}, {}]", p.field, p.message, p.code, p.rule),
                problems.iter().map(|p| RefusalCode { code: p.code.to_string(), rule: p.rule.to_string() }).collect(),
            ));
        }
        let mut events = vec![Event::new(
            "AWI Turn",
            "operations",
            format!("{}: {} operations", month_of(m, step.turn), side_name(m, &step.side)),
        )
        .with("turn", step.turn)
        .with("side", &step.side)
        .with("month", month_of(m, step.turn))];
        events.extend(muster_events);
        events.extend(command_events(m, &mustered, &step.side));
        events.extend(movement::events(m, &moves));
        let mut after = movement::apply(&mustered, &moves);
        after.prune_garrisons();
        movement::apply_garrisons(&mut after, &step.side, body);
        events.extend(garrison_events(state, &after, &step.side));
        events.extend(fortifications::apply_builds(m, &mut after, &step.side, &body.build));
        events.extend(fortifications::enforce(m, state, &mut after));
        events.extend(fortifications::prune_entrenchments(m, &mut after));
        events.extend(update_control(m, &mut after));
        self.next_battle_or_end(step, after, events, dice)
    }

    /// The side's replacements and militia orders, checked and carried out
    /// before its moves (REPLACEMENTS, MILITIA UNITS): the state after
    /// them, their events, or every problem.
    fn muster(&self, state: &State, side: &str, body: &movement::Body) -> (State, Vec<Event>, Vec<movement::Problem>) {
        let m = &self.module;
        let mut after = state.clone();
        let Ok(sc) = m.scenario(&self.scenario) else { return (after, Vec::new(), Vec::new()) };
        let mut problems = replacements::check(m, state, side, &body.replacements);
        problems.extend(militia::check(m, sc, state, side, &body.militia));
        if !problems.is_empty() {
            return (after, Vec::new(), problems);
        }
        let mut events = replacements::apply(m, &mut after, side, &body.replacements);
        events.extend(militia::apply(m, &mut after, side, &body.militia));
        (after, events, problems)
    }

    /// "Whenever combat would be called for in a 1776 game, the battle
    /// should be transferred to a PLM game": the next battle of the side's
    /// operations, its sheet sent with the reports; or, none left, the end
    /// of the side's turn.
    fn next_battle_or_end(
        &self,
        step: &Step,
        mut after: State,
        mut events: Vec<Event>,
        dice: &mut dyn Dice,
    ) -> Result<(State, Vec<Event>)> {
        let m = &self.module;
        events.extend(battle::capture_unescorted(m, &mut after));
        if let Some(hex) = battle::hexes(m, &after).first() {
            let (sheet, siege) = battle::sheet(m, &after, *hex, &step.side, dice)?;
            events.extend(sheet);
            after.siege = siege;
            after.next = Some(Step {
                turn: step.turn,
                side: step.side.clone(),
                battle: Some(hex.to_string()),
                after_pass: None,
            });
            return Ok((after, events));
        }
        self.end_turn(step, after, events, dice)
    }

    fn battle(
        &self,
        state: &State,
        step: &Step,
        hex: &str,
        entry: &battle::Entry,
        dice: &mut dyn Dice,
    ) -> Result<(State, Vec<Event>)> {
        let m = &self.module;
        let at: HexId = hex.parse().map_err(|_| Error::refused(format!("the battle's hex '{hex}' is not a hex")))?;
        let (mut after, mut events) = battle::resolve(m, state, at, &step.side, entry, dice)?;
        if let Some(b) = &entry.break_off {
            // BREAKING OFF: the attempts rolled, the battle awaits the
            // referee again (its result, or a later pass's attempts), in a
            // step of its own name.
            after.next = Some(Step { after_pass: Some(b.pass), ..step.clone() });
            return Ok((after, events));
        }
        after.break_off.clear();
        let none = std::collections::BTreeMap::new();
        let bombardment = entry.table.as_ref().map(|t| &t.bombardment).unwrap_or(&none);
        events.extend(fortifications::bombard(m, &mut after, bombardment));
        after.siege = None;
        after.prune_garrisons();
        events.extend(fortifications::enforce(m, state, &mut after));
        events.extend(fortifications::prune_entrenchments(m, &mut after));
        events.extend(update_control(m, &mut after));
        self.next_battle_or_end(step, after, events, dice)
    }

    /// The end of a side's turn: the attrition of isolated British
    /// garrisons after a British turn, communications, the ledgers, then
    /// the next step and its reinforcements.
    fn end_turn(
        &self,
        step: &Step,
        mut after: State,
        mut events: Vec<Event>,
        dice: &mut dyn Dice,
    ) -> Result<(State, Vec<Event>)> {
        let m = &self.module;
        if step.side == crate::systems::awi::rules::comms::BRITISH {
            let before = after.clone();
            events.extend(attrition::end_of_british_turn(m, &mut after, dice)?);
            events.extend(fortifications::enforce(m, &before, &mut after));
            events.extend(fortifications::prune_entrenchments(m, &mut after));
            // A garrison the attrition tests left short loses its town now
            // (DEFINITIONS: "must maintain a garrison"), as after a move or
            // a battle, before communications are traced.
            events.extend(update_control(m, &mut after));
        }
        events.extend(communication_events(m, &after));
        events.extend(ledger_events(m, &after));
        let next = step_after(m, self.last_turn, step);
        after.next = next.clone();
        if let Some(n) = &next {
            after.turn = n.turn;
            events.extend(arrive(m, &self.scenario, &mut after, n));
            // Supply units and generals the arrivals find alone are taken
            // at once, as when units move in (battle::capture_unescorted).
            events.extend(battle::capture_unescorted(m, &mut after));
            // Towns pass to a side whose land units alone hold them, and
            // units that arrive hold the towns they appear in at once, as
            // units that move in do (the stand-in for 1776's control).
            events.extend(update_control(m, &mut after));
        } else {
            after.result = Some(seam::GameResult {
                winner: "none".into(),
                level: "unscored".into(),
                condition:
                    "the scenario's last month is played; this version does not score victory (1776's area control)"
                        .into(),
                individual_winners: Vec::new(),
            });
        }
        Ok((after, events))
    }
}

fn join_numbers(n: &[u32]) -> String {
    n.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
}

fn side_name(m: &Module, side: &str) -> String {
    m.info.sides.iter().find(|s| s.id == side).map(|s| s.name.clone()).unwrap_or_else(|| side.to_string())
}

/// "Reinforcements always appear as individual units in the locations
/// indicated. Reinforcement units never have any accumulated casualty
/// markers." Placed before their side's operations of their month.
fn arrive(m: &Module, scenario: &str, s: &mut State, step: &Step) -> Vec<Event> {
    let mut events = Vec::new();
    if let Some(sc) = m.scenarios.get(scenario) {
        events.extend(replacements::arrive(m, sc, s, step));
        events.extend(militia::arrive(m, sc, s, step));
        for a in sc.reinforcements.iter().filter(|a| a.turn == step.turn) {
            // Held by the enemy, the entry hex gives way to one next to it
            // (battle::arrival_hex), the same for every unit of the group.
            let (hex, held) = match a.hex.parse::<HexId>() {
                Ok(h) => {
                    let (to, held) = battle::arrival_hex(m, s, h, &step.side);
                    (to.to_string(), held)
                }
                Err(_) => (a.hex.clone(), false),
            };
            for id in &a.units {
                let side = m.piece(id).map(|p| p.side().to_string()).unwrap_or_default();
                let Some(p) = s.pieces.get_mut(id) else { continue };
                if side != step.side || p.hex.is_some() || p.eliminated {
                    continue;
                }
                p.hex = Some(hex.clone());
                p.stands = m.unit(id).map(|u| u.fighting_stands).unwrap_or(0);
                p.in_communication = true;
                events.push(
                    Event::new(
                        "AWI Reinforcements",
                        "reinforcement",
                        format!(
                            "{} arrives at {hex}{}",
                            m.piece(id).map(|p| p.name().to_string()).unwrap_or_default(),
                            match (held, hex == a.hex) {
                                (false, _) => String::new(),
                                (true, false) => format!(
                                    " ({} is held by the enemy: reinforcements land next to it, as in 1776)",
                                    a.hex
                                ),
                                (true, true) => " (held by the enemy, and every hex next to it: they appear on him, and fight after their side's operations)".to_string(),
                            }
                        ),
                    )
                    .with("unit", id)
                    .with("hex", &hex)
                    .with("due_at", &a.hex),
                );
            }
        }
    }
    events
}

/// A town held by one side's land units alone passes to that side (stand-in
/// for 1776's control rules); supply units alone hold nothing, nor, in a
/// strategic town, a fort's required garrison (FORTIFICATIONS).
fn update_control(m: &Module, s: &mut State) -> Vec<Event> {
    let mut events = Vec::new();
    for t in &m.towns {
        let Ok(hex) = t.hex.parse::<HexId>() else { continue };
        let sides: std::collections::BTreeSet<String> =
            s.at(hex).iter().filter_map(|id| m.unit(id).map(|u| u.side.clone())).collect();
        if sides.len() != 1 {
            continue;
        }
        let side = sides.into_iter().next().unwrap_or_default();
        // "The required garrison of a fort does not count toward control of
        // a strategic town" (FORTIFICATIONS).
        if fortifications::stands_holding_town(m, s, &side, hex, t.strategic) == 0 {
            continue;
        }
        if garrison_short(m, s, t, &side, hex).is_some() {
            continue;
        }
        if s.control.get(&t.id) != Some(&side) {
            s.control.insert(t.id.clone(), side.clone());
            events.push(
                Event::new("AWI Control", "control", format!("{} passes to the {}", t.name, side))
                    .with("town", &t.id)
                    .with("side", &side),
            );
        }
    }
    // A side that must keep a garrison to control a town and has not: the
    // town is no longer its (and it did not take one without it).
    for t in &m.towns {
        let Ok(hex) = t.hex.parse::<HexId>() else { continue };
        let Some(side) = s.control.get(&t.id).cloned() else { continue };
        if let Some(why) = garrison_short(m, s, t, &side, hex) {
            s.control.remove(&t.id);
            events.push(
                Event::new(DEFINITIONS, "control-lost", format!("{} is no longer the {side}'s: {why}", t.name))
                    .with("town", &t.id)
                    .with("side", &side),
            );
        }
    }
    // "All replacements accumulated in a particular town are lost if that
    // town becomes occupied by the enemy" (and militia not yet formed).
    events.extend(replacements::losses(m, s));
    events.extend(militia::losses(m, s));
    events
}

const DEFINITIONS: &str = "AWI Definitions";

/// Why `side` falls short of the garrison the town needs for it to be
/// controlled, if the town names one for the side: "Whenever the 1776
/// rules refer to a strength point, this will be taken to indicate 6
/// fighting stands ... the British must maintain a garrison of 24 fighting
/// stands of regular troops (British, German or Loyalist regulars) to
/// control Boston." The side's regulars' fighting stands in the town count
/// (not militia, legions or supply units), beyond a fort's required
/// garrison in a strategic town.
fn garrison_short(m: &Module, s: &State, t: &data::Town, side: &str, hex: HexId) -> Option<String> {
    let g = t.garrison.as_ref().filter(|g| g.side == side)?;
    let needed = g.strength_points * m.charts.communications.stands_per_strength_point.value;
    let regulars: u32 = s
        .at(hex)
        .into_iter()
        .filter(|id| m.unit(id).is_some_and(|u| u.side == side && u.class == data::Class::Regular && !u.is_supply()))
        .map(|id| s.pieces.get(id).map_or(0, |p| p.stands))
        .sum();
    let counted = regulars.min(fortifications::stands_holding_town(m, s, side, hex, t.strategic));
    (counted < needed).then(|| {
        format!(
            "it needs a garrison of {} strength points of {side} regulars, {needed} fighting stands, to be controlled; it has {counted}",
            g.strength_points
        )
    })
}

/// Each of the side's forts whose garrison changed: who is inside now.
fn garrison_events(before: &State, after: &State, side: &str) -> Vec<Event> {
    let mut events = Vec::new();
    for f in after.forts.iter().filter(|f| f.side == side) {
        let was = before.forts.iter().find(|x| x.hex == f.hex).map(|x| x.garrison.clone()).unwrap_or_default();
        if was == f.garrison {
            continue;
        }
        events.push(
            Event::new(
                "AWI Supply",
                "garrison",
                format!(
                    "Inside the {side} fort at {}: {}",
                    f.hex,
                    if f.garrison.is_empty() { "nobody".to_string() } else { f.garrison.join(", ") }
                ),
            )
            .with("hex", &f.hex)
            .with("side", side)
            .with("garrison", &f.garrison),
        );
    }
    events
}

fn command_events(m: &Module, s: &State, side: &str) -> Vec<Event> {
    let c = command::commands(m, s);
    let mut events = Vec::new();
    for cmd in c.commands.iter().filter(|c| m.general(&c.general).is_some_and(|g| g.side == side)) {
        let name = m.general(&cmd.general).map(|g| g.name.clone()).unwrap_or_default();
        events.push(
            Event::new(
                "AWI Command Control",
                "command",
                format!("{name} commands {} fighting stands of {}", cmd.counted, cmd.span),
            )
            .with("general", &cmd.general)
            .with("span", cmd.span)
            .with("counted", cmd.counted)
            .with("regular_counted", cmd.regular_counted)
            .with("units", &cmd.units)
            .with("free_guns", &cmd.free_guns),
        );
    }
    let out: Vec<&String> = c
        .of_unit
        .iter()
        .filter(|(id, g)| g.is_none() && m.unit(id).is_some_and(|u| u.side == side))
        .map(|(id, _)| id)
        .collect();
    if !out.is_empty() {
        events.push(
            Event::new(
                "AWI Command Control",
                "out-of-command",
                format!("Out of command: {}", out.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")),
            )
            .with("units", &out),
        );
    }
    events
}

/// Each side's ledger, seen by that side alone (the article, RECORD
/// KEEPING: "The exact composition, weaponry and morale grade of each of
/// his units. The number of stands currently possessed by each of his
/// units.").
fn ledger_events(m: &Module, s: &State) -> Vec<Event> {
    let mut events = Vec::new();
    for side in &m.info.sides {
        let mut lines = Vec::new();
        let mut units = Vec::new();
        for u in m.units.iter().filter(|u| u.side == side.id) {
            let Some(p) = s.pieces.get(&u.id) else { continue };
            let Some(hex) = &p.hex else { continue };
            lines.push(format!("{} {hex} {}/{}", u.id, p.stands, u.fighting_stands));
            units.push(serde_json::json!({
                "unit": u.id, "hex": hex, "stands": p.stands, "original_stands": u.fighting_stands,
                "command_stands": u.command_stands, "kind": u.kind.id(), "nationality": u.nationality,
                "weapon": u.weapon, "morale": u.morale,
            }));
        }
        // "The number and location of all unused replacements", and the
        // militia raised and not yet formed.
        let pools = replacements::ledger(m, s, &side.id).into_iter().chain(militia::ledger(m, s, &side.id));
        let pools: Vec<String> = pools.collect();
        events.push(
            Event::new(
                "AWI Record Keeping",
                "ledger",
                format!(
                    "{} ledger (unit, hex, stands of original): {}{}",
                    side.name,
                    lines.join("; "),
                    pools.iter().map(|l| format!("; {l}")).collect::<String>()
                ),
            )
            .with("side", &side.id)
            .with("units", units)
            .with("replacements", s.replacements.get(&side.id).cloned().unwrap_or_default())
            .with("militia", s.militia.get(&side.id).cloned().unwrap_or_default())
            .with(seam::VISIBLE_TO, [&side.id]),
        );
    }
    events
}

fn communication_events(m: &Module, s: &State) -> Vec<Event> {
    traced(m, s)
        .into_iter()
        .map(|(id, st)| {
            let name = m.unit(&id).map(|u| u.name.clone()).unwrap_or_default();
            Event::new("AWI Communications", "communications", format!("{name}: {}", st.words()))
                .with("unit", &id)
                .with("in_communication", st.is_in())
                .with("status", &st)
        })
        .collect()
}

/// A step's orders body, read: a side's moves, or the referee's entry of
/// a battle's result.
pub enum Body {
    Operations(movement::Body),
    Battle(Box<battle::Entry>),
}

pub fn read_body(step: &Step, value: &Value) -> std::result::Result<Body, String> {
    let map = without_header(value);
    if step.battle.is_some() {
        return crate::base::yaml::from_value::<battle::Entry>(map)
            .map(|e| Body::Battle(Box::new(e)))
            .map_err(|e| crate::base::error::echo_serde(&e));
    }
    crate::base::yaml::from_value::<movement::Body>(map)
        .map(Body::Operations)
        .map_err(|e| crate::base::error::echo_serde(&e))
}

const HEADER: [&str; 4] = ["game", "turn", "step", "side"];

/// An orders file's mapping without its header: the body (a value that is
/// no mapping, an empty one).
fn without_header(value: &Value) -> Value {
    let mut map = value.as_mapping().cloned().unwrap_or_default();
    for key in HEADER {
        map.remove(Value::from(key));
    }
    Value::Mapping(map)
}

fn ours(state: &dyn GameState) -> Result<&State> {
    state.as_any().downcast_ref::<State>().ok_or_else(|| Error::usage("a state of another game system".to_string()))
}

/// The sides a step awaits: the side whose operations they are; for a
/// battle, the commander of each side in it (the attacker and the side
/// whose units hold the hex), in module order.
pub fn awaited_by(m: &Module, step: &Step) -> Vec<String> {
    if step.battle.is_none() {
        return vec![step.side.clone()];
    }
    let enemy = crate::systems::awi::board::enemy_of(m, &step.side);
    m.info.sides.iter().map(|s| s.id.clone()).filter(|id| id == &step.side || id == &enemy).collect()
}

fn step_info(step: &Step) -> StepInfo {
    StepInfo { name: step.name(), field: step.field(), turn: step.turn }
}

/// What a turn is, in the words of a refusal.
const TURN_RULE: &str = "a turn is the month of the campaign from 1, in decimal digits, e.g. `turn: 1`";

/// A rule's problem with an orders file, located in it with its code.
fn located_problem(label: &str, places: &Places, p: movement::Problem) -> Located {
    let code = RefusalCode { code: p.code.into(), rule: p.rule.into() };
    located(label, places, &p.field, p.message, Some(code))
}

/// A problem of the file `label` at `field`, placed in its text (read once
/// for all its problems, [`Places`]).
fn located(label: &str, places: &Places, field: &str, message: String, code: Option<RefusalCode>) -> Located {
    let at = places.locate(field);
    Located {
        file: label.to_string(),
        line: at.map(|a| a.0),
        column: at.map(|a| a.1),
        field: field.to_string(),
        message,
        code: code.map(Box::new),
    }
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

impl seam::System for Awi {
    fn id(&self) -> &'static str {
        "awi"
    }
    fn load(&self, module: &seam::ModuleFiles, scenario: &str) -> Result<Box<dyn seam::Rules>> {
        Ok(Box::new(Rules::load(module, scenario)?))
    }
    fn check_module(&self, module: &seam::ModuleFiles) -> Option<seam::ModuleCheck> {
        Some(data::check(module))
    }
    fn run_case(
        &self,
        label: &str,
        text: &str,
        module_of: &dyn Fn(&str) -> Result<seam::ModuleFiles>,
    ) -> Option<Result<seam::CaseOutcome>> {
        Some(crate::systems::awi::case::run(label, text, module_of))
    }
    fn board(&self, module: &seam::ModuleFiles) -> Option<Result<Box<dyn seam::Board>>> {
        Some(Module::load(module).map(|m| Box::new(m) as Box<dyn seam::Board>).map_err(data::into_error))
    }
}

impl seam::Board for Module {
    fn info(&self) -> &seam::ModuleInfo {
        &self.info
    }
    fn map(&self) -> &crate::base::hexmap::Map {
        &self.map
    }
    fn setup(&self, scenario: &str) -> Result<Vec<CounterView>> {
        let rules = Rules { module: self.clone(), scenario: scenario.to_string(), last_turn: 0 };
        let state = rules.initial()?;
        Ok(counters(self, &state))
    }
}

/// The counters of a state, as the map draws them: a unit's stands and
/// allowance; `OC` on a British regular out of communication.
fn counters(m: &Module, s: &State) -> Vec<CounterView> {
    let statuses = traced(m, s);
    let commands = command::commands(m, s);
    let mut out = Vec::new();
    for (id, p) in &s.pieces {
        let Some(hex) = p.hex.as_deref().and_then(|h| h.parse::<HexId>().ok()) else { continue };
        let Some(piece) = m.piece(id) else { continue };
        let (values, leader) = match piece {
            data::Piece::Unit(u) if u.is_supply() => (format!("S-{}", m.allowance_of(u).unwrap_or(0)), false),
            data::Piece::Unit(u) => (format!("{}-{}", p.stands, m.allowance_of(u).unwrap_or(0)), false),
            data::Piece::General(g) => (format!("{}-{}", m.span_of(g).map(|r| r.stands).unwrap_or(0), g.rating), true),
            data::Piece::Fleet(f) => (format!("{:?}", f.kind).to_uppercase(), false),
        };
        let mut markers = Vec::new();
        if statuses.get(id).is_some_and(|st| !st.is_in()) {
            markers.push("OC".to_string());
        }
        if commands.of_unit.get(id).is_some_and(|g| g.is_none()) {
            markers.push("X".to_string());
        }
        // FORTIFICATIONS, ENTRENCHMENTS: inside a fort, entrenched.
        if s.forts.iter().any(|f| f.garrison.iter().any(|g| g == id)) {
            markers.push("F".to_string());
        } else if m.unit(id).is_some_and(|u| !u.is_supply())
            && s.entrenchments.get(&hex.to_string()).is_some_and(|side| side == piece.side())
        {
            markers.push("E".to_string());
        }
        let colour = if matches!(piece, data::Piece::Fleet(f) if f.nationality == "french") {
            army_colour("french")
        } else {
            army_colour(piece.side())
        };
        out.push(CounterView { hex, label: id.clone(), values, fill: colour, stripe: None, leader, markers });
    }
    out
}

/// The lines of communication of a state, drawn as grey arrows: each land
/// link from a unit to its port or magazine, and each sea link from a port
/// or fleet to the east map edge.
fn links(s: &State, m: &Module) -> Vec<Arrow> {
    let mut arrows = Vec::new();
    let parse = |v: &[String]| v.iter().filter_map(|h| h.parse::<HexId>().ok()).collect::<Vec<_>>();
    let mut seas = std::collections::BTreeSet::new();
    for (id, st) in traced(m, s) {
        let (land, sea) = match &st {
            Status::Port { sea, .. } | Status::Fleet { sea, .. } => (Vec::new(), sea.clone()),
            Status::LandToPort { land, sea, .. } => (land.clone(), sea.clone()),
            Status::LandToMagazine { land, .. } => (land.clone(), Vec::new()),
            _ => (Vec::new(), Vec::new()),
        };
        if land.len() > 1 {
            arrows.push(Arrow {
                path: parse(&land),
                army: "communications".into(),
                label: Some(format!("{id}: {}", st.words())),
            });
        }
        if sea.len() > 1 && seas.insert(sea.clone()) {
            arrows.push(Arrow {
                path: parse(&sea),
                army: "communications".into(),
                label: Some("sea link to the east map edge".into()),
            });
        }
    }
    arrows
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
        self.module.info.sides.iter().map(|s| (s.id.clone(), s.id.clone())).collect()
    }
    fn setup(&self) -> Result<seam::State> {
        Ok(Box::new(self.initial()?))
    }
    fn read_state(&self, label: &str, text: &str) -> std::result::Result<seam::State, Located> {
        Ok(Box::new(crate::base::yaml::parse::<State>(label, text)?))
    }
    fn awaited(&self, state: &dyn GameState) -> Vec<String> {
        ours(state).ok().and_then(|s| s.next.as_ref()).map(|n| awaited_by(&self.module, n)).unwrap_or_default()
    }
    fn stand_in(&self, state: &dyn GameState) -> Option<String> {
        ours(state).ok().and_then(|s| s.next.as_ref()).filter(|n| n.battle.is_some()).map(|_| REFEREE.to_string())
    }
    fn check_header(
        &self,
        game_id: &str,
        state: &dyn GameState,
        label: &str,
        text: &str,
    ) -> std::result::Result<Header, Vec<Located>> {
        let places = Places::new(text);
        let plain = |m: String| vec![located(label, &places, "", m, None)];
        let state = ours(state).map_err(|e| plain(e.to_string()))?;
        let value: Value = crate::base::yaml::from_str(text).map_err(|e| plain(format!("not YAML: {e}")))?;
        let Some(next) = &state.next else { return Err(plain("the game is over: it has no next step".into())) };
        let mut problems = Vec::new();
        let text_of = |key: &str| {
            value.get(key).map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| crate::base::yaml::to_string(v).unwrap_or_default().trim().to_string())
            })
        };
        for key in HEADER {
            if value.get(key).is_none() {
                problems.push(located(
                    label,
                    &places,
                    "",
                    format!("the file does not say its {key}: every orders file names game, turn, step and side"),
                    None,
                ));
            }
        }
        if let Some(g) = text_of("game") {
            if g != game_id {
                problems.push(located(
                    label,
                    &places,
                    "game",
                    format!("these orders are for game '{}'; this game is '{game_id}'", echo(&g)),
                    None,
                ));
            }
        }
        let side = text_of("side").unwrap_or_default();
        if value.get("side").is_some() && !self.module.info.sides.iter().any(|s| s.id == side) && side != REFEREE {
            let mut known: Vec<&str> = self.module.info.sides.iter().map(|s| s.id.as_str()).collect();
            known.push(REFEREE);
            problems.push(located(
                label,
                &places,
                "side",
                format!("'{}' is not a side; the sides are: {}", echo(&side), known.join(", ")),
                None,
            ));
        }
        if let Some(t) = value.get("turn") {
            match crate::base::yaml::locate::read_turn(text, t, TURN_RULE) {
                Ok(t) if t == next.turn => {}
                Err((_, message)) => problems.push(located(label, &places, "turn", message, None)),
                Ok(_) => problems.push(located(
                    label,
                    &places,
                    "turn",
                    format!(
                        "the next step is {} (turn {}); these orders say turn {}",
                        next.name(),
                        next.turn,
                        echo(&text_of("turn").unwrap_or_default())
                    ),
                    None,
                )),
            }
        }
        if let Some(step) = text_of("step") {
            if step != next.field() {
                problems.push(located(
                    label,
                    &places,
                    "step",
                    format!(
                        "the next step is {}: its orders say `step: {}`, not '{}'",
                        next.name(),
                        next.field(),
                        echo(&step)
                    ),
                    None,
                ));
            }
        }
        let awaited = awaited_by(&self.module, next);
        let stands_in = next.battle.is_some() && side == REFEREE;
        if value.get("side").is_some()
            && value.get("step").is_some()
            && problems.is_empty()
            && !awaited.contains(&side)
            && !stands_in
        {
            let who = if next.battle.is_some() {
                format!("{} (each commander's entry) or the referee's entry in their place", awaited.join(" and "))
            } else {
                awaited.join(", ")
            };
            problems.push(located(
                label,
                &places,
                "side",
                format!("step {} awaits {who}, not {side}", next.name()),
                None,
            ));
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        Ok(Header { side, step: step_info(next), body: value })
    }
    fn validate_body(&self, state: &dyn GameState, header: &Header, label: &str, text: &str) -> Vec<Located> {
        let places = Places::new(text);
        let state = match ours(state) {
            Ok(s) => s,
            Err(e) => return vec![located(label, &places, "", e.to_string(), None)],
        };
        let Some(step) = &state.next else { return vec![located(label, &places, "", "the game is over".into(), None)] };
        let body = match read_body(step, &header.body) {
            Ok(b) => b,
            Err(e) => {
                let shape = if step.battle.is_some() {
                    crate::base::yaml::parse::<BattleFile>(label, text).map(|_| ())
                } else {
                    crate::base::yaml::parse::<OrdersFile>(label, text).map(|_| ())
                };
                return match shape {
                    Err(l) => vec![l],
                    Ok(_) => vec![located(label, &places, "", e, None)],
                };
            }
        };
        let problems = match (&body, &step.battle) {
            (Body::Operations(b), _) => {
                let (mustered, _, problems) = self.muster(state, &header.side, b);
                if problems.is_empty() {
                    movement::check(&self.module, &mustered, &header.side, b).1
                } else {
                    problems
                }
            }
            (Body::Battle(entry), Some(hex)) => match hex.parse() {
                Ok(at) => {
                    let by = (header.side != REFEREE).then_some(header.side.as_str());
                    battle::check(&self.module, state, at, &step.side, by, entry)
                }
                Err(_) => Vec::new(),
            },
            (Body::Battle(_), None) => Vec::new(),
        };
        problems.into_iter().map(|p| located_problem(label, &places, p)).collect()
    }
    fn validate_with(
        &self,
        state: &dyn GameState,
        header: &Header,
        others: &BTreeMap<String, Value>,
        label: &str,
        text: &str,
    ) -> Vec<Located> {
        // A battle's second commander's entry against the first's
        // (rules/agreement.rs): refused when it arrives, not at resolve.
        let Ok(state) = ours(state) else { return Vec::new() };
        let Some(step) = state.next.as_ref().filter(|n| n.battle.is_some()) else { return Vec::new() };
        if header.side == REFEREE || step_info(step) != header.step {
            return Vec::new();
        }
        let entry = |v: &Value| match read_body(step, v) {
            Ok(Body::Battle(e)) if agreement::form(&e).is_some() => Some(*e),
            _ => None,
        };
        let Some(mine) = entry(&header.body) else { return Vec::new() };
        let places = Places::new(text);
        others
            .iter()
            .filter(|(side, _)| *side != &header.side && awaited_by(&self.module, step).contains(side))
            .filter_map(|(side, v)| entry(v).map(|theirs| (side, theirs)))
            .flat_map(|(side, theirs)| agreement::disagreements(&header.side, &mine, side, &theirs))
            .map(|p| located_problem(label, &places, p))
            .collect()
    }
    fn read_turn(
        &self,
        text: &str,
        value: &Value,
    ) -> std::result::Result<u32, (Option<crate::base::yaml::locate::Position>, String)> {
        crate::base::yaml::locate::read_turn(text, value, TURN_RULE)
    }
    fn step_ahead(&self, state: &dyn GameState, turn: u32, field: &str) -> Result<Option<StepAhead>> {
        let state = ours(state)?;
        let Some(mut step) = state.next.clone() else { return Ok(None) };
        while let Some(n) = step_after(&self.module, self.last_turn, &step) {
            if n.turn > turn {
                break;
            }
            if n.turn == turn && n.field() == field {
                return Ok(Some(StepAhead { step: step_info(&n), may_await: vec![n.side.clone()] }));
            }
            step = n;
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
        let body = self.body_of(state, orders)?;
        let (after, events) = self.step(state, &body, dice)?;
        Ok((Box::new(after), events))
    }
    /// `adjutant selfplay` (selfplay.rs): random legal operations, each
    /// battle answered by the referee's trivial-combat entry.
    fn selfplay(&self, setup: &dyn GameState, id: seam::SelfplayId, record: bool) -> Option<seam::SelfplayGame> {
        let setup = ours(setup).ok()?;
        Some(crate::systems::awi::selfplay::play(self, setup, id, record))
    }
    fn step_kinds(&self) -> Result<Vec<StepKind>> {
        Ok(side_order(&self.module)
            .into_iter()
            .map(|side| StepKind { field: format!("{side}-operations"), may_await: vec![side] })
            .collect())
    }
    fn check_shape(&self, kind: &str, _side: &str, body: &Value) -> Vec<seam::ShapeProblem> {
        if !kind.ends_with("-operations") {
            return vec![seam::ShapeProblem {
                field: String::new(),
                message: format!("'{kind}' is not a step of this game"),
                code: None,
            }];
        }
        // The body as `read_body` reads an operations step's, the field
        // of the first mismatch named (`moves[0].path`).
        match crate::base::yaml::from_value_at::<movement::Body>(&without_header(body)) {
            Ok(_) => Vec::new(),
            Err((field, message)) => vec![seam::ShapeProblem { field, message, code: None }],
        }
    }
    fn template(&self, state: &dyn GameState, side: &str) -> Result<seam::Template> {
        let state = ours(state)?;
        let m = &self.module;
        if let Some(Step { battle: Some(hex), side: attacker, .. }) = &state.next {
            return battle_template(m, state, hex, attacker, side);
        }
        let commands = command::commands(m, state);
        let statuses = traced(m, state);
        let mut comment = String::from(
            "# moves: one entry per unit or general that moves, the hexes it enters in order:\n#   - {unit: 23rd-foot, path: [\"0807\", \"0808\"]}\n# Your pieces (hex, fighting stands, allowance in MP, command, communications):\n",
        );
        let mut units = Vec::new();
        for (id, p) in &state.pieces {
            let Some(hex) = &p.hex else { continue };
            let Some(piece) = m.piece(id) else { continue };
            if piece.side() != side || m.fleet(id).is_some() {
                continue;
            }
            let allowance = match piece {
                data::Piece::Unit(u) => {
                    let full = m.allowance_of(u).unwrap_or(0);
                    if commands.of_unit.get(id).is_some_and(|g| g.is_none()) {
                        command::limited(m, full)
                    } else {
                        full
                    }
                }
                data::Piece::General(g) => m.general_allowance(g).unwrap_or(0),
                data::Piece::Fleet(_) => 0,
            };
            let cmd = match (commands.of_unit.get(id), piece) {
                (Some(Some(g)), _) => format!("in command ({g})"),
                (Some(None), _) => "OUT OF COMMAND".to_string(),
                (None, data::Piece::Unit(_)) => "supply unit".to_string(),
                (None, _) => "general".to_string(),
            };
            let comm = statuses.get(id).map(|s| s.words()).unwrap_or_default();
            comment += &format!(
                "#   {id} at {hex}: {} stands, {allowance} MP, {cmd}{}{comm}\n",
                p.stands,
                if comm.is_empty() { "" } else { ", " }
            );
            units.push(serde_json::json!({"id": id, "hex": hex, "stands": p.stands, "allowance": allowance}));
        }
        // Fleets (rules/fleets.rs, stand-in naval movement).
        for (id, p) in &state.pieces {
            let (Some(hex), Some(f)) = (&p.hex, m.fleet(id)) else { continue };
            if f.side != side {
                continue;
            }
            let tf = f.kind == data::FleetKind::Tf;
            comment += &format!(
                "#   {id} at {hex}: {}, sails {} sea hexes (sea lanes and ports){}\n",
                if tf { "troop fleet" } else { "battle fleet" },
                m.fleet_allowance(f).unwrap_or(0),
                if tf {
                    "; carries from a port to a port: {unit: ID, path: [...], carry: [units and generals in its port]}"
                } else {
                    ""
                }
            );
            units.push(
                serde_json::json!({"id": id, "hex": hex, "stands": 0, "allowance": m.fleet_allowance(f).unwrap_or(0)}),
            );
        }
        let g = &m.charts.battle.fort_garrison;
        for f in state.forts.iter().filter(|f| f.side == side) {
            comment += &format!(
                "# forts: [{{hex: \"{}\", garrison: [{}]}}]   # who is inside your fort after the moves, all of them (SUPPLY); below {} fighting infantry stands and a gun of {} pounds or more (or {} smaller) the fort is eliminated\n",
                f.hex,
                f.garrison.join(", "),
                g.infantry_stands,
                g.large_gun_pounds,
                g.smaller_guns
            );
        }
        let (fc, ec) = (&m.charts.battle.fort_construction, &m.charts.battle.entrenchment_construction);
        comment += &format!(
            "# build: [{{hex: \"CCRR\", works: fort, units: [...]}}]   # units in the hex that do not move this month: a fort takes {} fighting infantry stands, {} artillery unit(s) and {} supply unit(s), spent; an entrenchment (works: entrenchment) {} infantry stands\n",
            fc.infantry_stands, fc.artillery_units, fc.supply_units.value, ec.infantry_stands
        );
        // REPLACEMENTS and MILITIA UNITS: what the side holds, and the forms.
        for line in replacements::ledger(m, state, side) {
            comment += &format!("# Your {line}\n");
        }
        if let Some(town) = state.replacements.get(side).and_then(|t| t.keys().next()) {
            comment += &format!(
                "# replacements: [{{unit: UNIT, town: {town}, stands: 1}}]   # before the moves: a regular unit of the stands' nationality, not besieged, with a line of communications to the town, never above its original stands; an eliminated artillery unit's crew is recreated in the town\n"
            );
        }
        for line in militia::ledger(m, state, side) {
            comment += &format!("# Your {line}\n");
        }
        if let Some(town) = state.militia.get(side).and_then(|t| t.keys().next()) {
            let hand =
                m.scenario(&self.scenario).map(|sc| militia::counters_at_hand(m, sc, state, side)).unwrap_or_default();
            comment += &format!(
                "# militia: [{{town: {town}, unit: COUNTER, stands: 6}}]   # before the moves: a militia unit in the town, or a counter at hand ({}); a rifle counter's stands count against the quarter, a mounted-infantry counter's cost one stand more each\n",
                hand.join(", ")
            );
        }
        let mut body = crate::base::yaml::Mapping::new();
        body.insert(Value::from("moves"), Value::Sequence(Vec::new()));
        Ok(seam::Template {
            body: Value::Mapping(body),
            comment,
            kind: serde_json::json!(state.next.as_ref().map(|n| n.field())),
            doc: serde_json::json!("docs/awi-southern.md"),
            units: serde_json::Value::Array(units),
            choices: serde_json::Value::Null,
        })
    }
    fn standing(&self, state: &dyn GameState) -> seam::Standing {
        let Ok(s) = ours(state) else { return seam::Standing::default() };
        let m = &self.module;
        let mut board = Vec::new();
        for t in &m.towns {
            let owner = s.control.get(&t.id).map(|x| side_name(m, x)).unwrap_or_else(|| "uncontrolled".into());
            let mut what = Vec::new();
            if t.port {
                what.push("port");
            }
            if t.strategic {
                what.push("strategic town");
            }
            if s.magazines.contains(&t.id) {
                what.push("magazine");
            }
            let mut inside = String::new();
            if let Some(f) = s.forts.iter().find(|f| f.hex == t.hex) {
                what.push("fort");
                if !f.garrison.is_empty() {
                    inside = format!(" (inside the fort: {})", f.garrison.join(", "));
                }
                if !f.destroyed.is_empty() {
                    inside += &format!(" (fort sections destroyed: {})", join_numbers(&f.destroyed));
                }
            }
            board.push(format!(
                "{} ({}{}): {owner}{inside}",
                t.name,
                t.hex,
                if what.is_empty() { String::new() } else { format!(", {}", what.join(", ")) }
            ));
        }
        // Forts outside the towns, and entrenchments (FORTIFICATIONS,
        // ENTRENCHMENTS).
        for f in s.forts.iter().filter(|f| !m.towns.iter().any(|t| t.hex == f.hex)) {
            board.push(format!(
                "Fort at {}: {} (inside the fort: {}){}",
                f.hex,
                side_name(m, &f.side),
                if f.garrison.is_empty() { "nobody".to_string() } else { f.garrison.join(", ") },
                if f.destroyed.is_empty() {
                    String::new()
                } else {
                    format!(" (sections destroyed: {})", join_numbers(&f.destroyed))
                }
            ));
        }
        for (hex, side) in &s.entrenchments {
            board.push(format!("Entrenchments at {hex}: {}", side_name(m, side)));
        }
        // Each side's ledger (the article, RECORD KEEPING): every unit's
        // composition, weaponry, morale grade and stands, seen by that side
        // (and the referee) only.
        let mut private_board = BTreeMap::new();
        for side in &m.info.sides {
            let ledger: &mut Vec<String> = private_board.entry(side.id.clone()).or_default();
            for u in m.units.iter().filter(|u| u.side == side.id) {
                let Some(p) = s.pieces.get(&u.id) else { continue };
                let Some(hex) = &p.hex else { continue };
                if u.is_supply() {
                    ledger.push(format!("{} ledger: {} (supply unit) at {hex}", side.name, u.name));
                    continue;
                }
                let comm = if p.in_communication || u.side != "british" {
                    String::new()
                } else {
                    format!(", isolated (attrition tests passed: {})", p.attrition_passes)
                };
                ledger.push(format!(
                    "{} ledger: {} ({} {}, {}, morale {}) at {hex}: {} of {} fighting stands{comm}",
                    side.name,
                    u.name,
                    u.nationality,
                    u.kind.id(),
                    u.weapon,
                    u.morale,
                    p.stands,
                    u.fighting_stands
                ));
            }
            for line in replacements::ledger(m, s, &side.id).into_iter().chain(militia::ledger(m, s, &side.id)) {
                ledger.push(format!("{} ledger: {line}", side.name));
            }
        }
        if let Some(Step { battle: Some(hex), side, .. }) = &s.next {
            let attempts: Vec<String> = s
                .break_off
                .iter()
                .map(|a| {
                    format!(
                        "{} tried to break off after pass {} ({}%, D100 {}: {})",
                        a.side,
                        a.pass,
                        a.chance,
                        a.roll,
                        if a.succeeded { "withdrew in good order" } else { "failed" }
                    )
                })
                .collect();
            board.push(format!(
                "Battle at {hex} ({} attacking): fought on the table; the entry of its result awaited (both commanders', or the referee's outside mutual dice mode){}",
                side_name(m, side),
                if attempts.is_empty() { String::new() } else { format!("; {}", attempts.join("; ")) }
            ));
        }
        seam::Standing {
            turn: s.turn,
            resolved_steps: s.resolved_steps,
            result: s.result.clone(),
            board,
            private_board,
            ..Default::default()
        }
    }
    /// `adjutant odds`: a trivial combat to its end, the forces'
    /// break-off chances and the named British units' attrition tests
    /// (rules/odds.rs).
    fn odds(&self, state: &dyn GameState, query: &seam::OddsQuery) -> Option<Result<seam::OddsReport>> {
        Some(ours(state).and_then(|s| crate::systems::awi::rules::odds::report(&self.module, s, query)))
    }
    fn map(&self, state: &dyn GameState, events: &[Event]) -> Option<Picture<'_>> {
        let s = ours(state).ok()?;
        let m = &self.module;
        let mut arrows = links(s, m);
        for e in events.iter().filter(|e| e.kind == "move") {
            let path: Vec<HexId> = e
                .fields
                .get("path")
                .and_then(|p| p.as_array())
                .map(|a| a.iter().filter_map(|h| h.as_str()?.parse().ok()).collect())
                .unwrap_or_default();
            let unit = e.fields.get("unit").and_then(|u| u.as_str()).unwrap_or_default();
            let side = m.piece(unit).map(|p| p.side().to_string()).unwrap_or_default();
            arrows.push(Arrow { path, army: side, label: Some(e.text.clone()) });
        }
        Some(Picture {
            key: m.info.id.clone(),
            map: &m.map,
            counters: counters(m, s),
            arrows,
            markers: Vec::new(),
            works: Vec::new(),
        })
    }
}

/// An orders file's shape, for located errors.
/// A battle step's template, a commander's (`side`) or the referee's: the
/// forces, and the forms of the entry as comments (nothing is entered for
/// him). A commander gives the table's result as the other does, and his
/// own side's part of a trivial combat or of a pass's attempts.
fn battle_template(m: &Module, s: &State, hex: &str, attacker: &str, side: &str) -> Result<seam::Template> {
    let at: HexId = hex.parse().map_err(|_| Error::refused(format!("the battle's hex '{hex}' is not a hex")))?;
    let f = battle::Forces::of(m, s, at, attacker);
    let commander = side != REFEREE;
    let who = if commander {
        format!(
            "You command {side}. Both commanders send the same `table:` result (or `cavalry_declines:`), or each his own side's part of `trivial:` or `break_off:`; the referee's one entry may stand in for both"
        )
    } else {
        "The referee's entry stands in for both commanders'".to_string()
    };
    let mut comment = format!(
        "# The battle at {hex}: {attacker} attacks, {} defends. {who}. Enter ONE of:\n# table:            # the result fought on the table\n#   holds_field: {}\n#   outcome: {{{attacker}: broke, {}: held}}   # held, held-at-army-morale, broke, broke-off (after its break_off: succeeded)\n#   units:           # every unit that fought: casualty markers at the end; broke: true if its formation broke\n",
        f.defender, f.defender, f.defender
    );
    let mut units = Vec::new();
    for (side, ids) in &f.units {
        for id in ids {
            let stands = s.pieces.get(id).map(|p| p.stands).unwrap_or(0);
            comment += &format!("#     {id}: {{markers: 0}}   # {side}, {stands} stands\n");
            units.push(serde_json::json!({"id": id, "side": side, "hex": hex, "stands": stands}));
        }
    }
    let wagons: Vec<(&String, &Vec<String>)> = f.supply.iter().filter(|(_, ids)| !ids.is_empty()).collect();
    if !wagons.is_empty() {
        comment += &format!(
            "#   supply_spent: {{{}}}   # supply units expended to resupply the artillery: {}\n",
            wagons.iter().map(|(side, _)| format!("{side}: 0")).collect::<Vec<_>>().join(", "),
            wagons
                .iter()
                .map(|(side, ids)| format!("{side} 0 to {} ({})", ids.len(), ids.join(", ")))
                .collect::<Vec<_>>()
                .join("; ")
        );
    }
    if let Some(siege) = s.siege.as_ref().filter(|x| x.hex == hex) {
        comment += &format!(
            "#   bombardment: {{}}   # the fort's sections (1 to {}): each breaching gun's shots at it, the section each struck, in order, e.g. {{gun: [1, 1, 2]}}: {}\n",
            siege.sections.len(),
            if siege.damage_rolls.is_empty() {
                "no gun can breach it".to_string()
            } else {
                siege
                    .damage_rolls
                    .iter()
                    .map(|(gun, rolls)| format!("{gun} ({} damage rolls on the sheet)", rolls.len()))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        );
    }
    // The hexes each side may retreat to: "none" tells it to name none
    // (no line of retreat: its survivors are captured should it lose).
    let open = |side: &str| {
        let hexes = battle::retreat_hexes(m, s, at, side);
        if hexes.is_empty() {
            format!("{side} none (leave it out: should it lose, it is captured)")
        } else {
            format!("{side} {}", hexes.iter().map(HexId::to_string).collect::<Vec<_>>().join(" or "))
        }
    };
    let retreats = format!("{}; {}", open(attacker), open(&f.defender));
    comment += &format!(
        "#   generals_lost: []   # generals killed or captured: {}\n#   retreat_to: \"CCRR\"   # the hex next to {hex} the side that lost goes to: {retreats}\n#   pursuit: {{actions: 6, caught: [unit, ...]}}   # the pursuer's D10 and the units within its distance\n",
        f.generals.values().flatten().cloned().collect::<Vec<_>>().join(", "),
    );
    if commander {
        comment += &format!(
            "# trivial:          # both players agreeing (both send it): 1776's combat table, rolled by adjutant\n#   distribute: {{{side}: [unit, ...]}}   # the order your markers go, each of your units once\n#   retreat_to: {{{side}: \"CCRR\"}}   # where you go should you lose: {}\n",
            open(side)
        );
    } else {
        comment += &format!(
            "# trivial:          # both players agreeing: 1776's combat table, rolled by adjutant\n#   distribute: {{{attacker}: [unit, ...], {}: [unit, ...]}}   # the order each side's markers go\n#   retreat_to: {{{attacker}: \"CCRR\", {}: \"CCRR\"}}   # where each side goes should it lose: {retreats}\n",
            f.defender, f.defender
        );
    }
    comment += "# cavalry_declines: {retreat_to: \"CCRR\"}   # an all-cavalry defender declines battle against a force lacking any cavalry\n";
    comment += &break_off_comment(m, s, at, &f, commander.then_some(side));
    Ok(seam::Template {
        body: Value::Mapping(crate::base::yaml::Mapping::new()),
        comment,
        kind: serde_json::json!(s.next.as_ref().map(|n| n.field())),
        doc: serde_json::json!("docs/awi-southern.md"),
        units: serde_json::Value::Array(units),
        choices: serde_json::Value::Null,
    })
}

/// The template's lines for BREAKING OFF FROM A BATTLE: the attempts made
/// so far and the form of the next, with each side's commanding general,
/// base chance and army manipulation points left.
fn break_off_comment(m: &Module, s: &State, at: HexId, f: &battle::Forces, commander: Option<&str>) -> String {
    let per = m.charts.command.break_off_points_per_percent.value;
    let mut lines = String::new();
    for a in &s.break_off {
        lines += &format!(
            "#   (break off: {} after pass {}, {} points, {}%, D100 {}: {})\n",
            a.side,
            a.pass,
            a.points,
            a.chance,
            a.roll,
            if a.succeeded { "withdrew in good order: its outcome is broke-off" } else { "failed" }
        );
    }
    let next = s.break_off.iter().map(|a| a.pass + 1).max().unwrap_or(1);
    let who: Vec<String> = [&f.attacker, &f.defender]
        .into_iter()
        .map(|side| match command::commanding_general(m, s, at, side) {
            None => format!("{side} none (no general)"),
            Some(g) => {
                let spent: u32 = s.break_off.iter().filter(|a| a.general == g.id).map(|a| a.points).sum();
                format!(
                    "{side} {} base {}%, {} of {} points left",
                    g.id,
                    command::break_off_base(m, g),
                    command::manipulation_points(m, g).saturating_sub(spent),
                    command::manipulation_points(m, g)
                )
            }
        })
        .collect();
    if s.break_off.iter().any(|a| a.succeeded) {
        return lines;
    }
    let form = match commander {
        Some(side) => format!(
            "# break_off: {{pass: {next}, attempts: {{{side}: POINTS}}}}   # while the table fights, after pass {next} or later through the action deck: your decision written down, the points your general spends (attempts: {{}} for none); both commanders' decisions at the pass are revealed together and adjutant rolls them; the battle then awaits this entry or its result again"
        ),
        None => format!(
            "# break_off: {{pass: {next}, attempts: {{SIDE: POINTS}}}}   # while the table fights, after pass {next} or later through the action deck: both sides' attempts at the pass together, each with the army manipulation points its general spends; adjutant rolls them and the battle awaits this entry or its result again"
        ),
    };
    lines + &format!("{form}; 1% per {per} points (stand-in): {}\n", who.join("; "))
}

/// A battle entry's shape, for located errors.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct BattleFile {
    game: Value,
    turn: Value,
    step: Value,
    side: Value,
    #[serde(default)]
    table: Option<battle::Table>,
    #[serde(default)]
    trivial: Option<battle::Trivial>,
    #[serde(default)]
    cavalry_declines: Option<battle::Declines>,
    #[serde(default)]
    break_off: Option<battle::BreakOff>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct OrdersFile {
    game: Value,
    turn: Value,
    step: Value,
    side: Value,
    #[serde(default)]
    moves: Vec<movement::Move>,
    #[serde(default)]
    forts: Vec<movement::Garrison>,
    #[serde(default)]
    build: Vec<fortifications::Build>,
    #[serde(default)]
    replacements: Vec<replacements::Replacement>,
    #[serde(default)]
    militia: Vec<militia::Raise>,
}
