//! The sequence of play as steps (series 5; Savannah 3, 1.6, 4.19): which
//! phases a game turn has, in which order the players take their turns, and
//! at each step which sides must send orders.
//!
//! Everything comes from the module's data: its phases (module.yaml
//! `phases`, with their scope), its turn tracks and alliances, and the
//! scenario's phases used and player order by turn.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::base::error::{Error, Located, Result};
use crate::systems::gboar::data::Source;

/// module.yaml, as far as the sequence of play needs it.
#[derive(Debug, Clone, Deserialize)]
pub struct SequenceData {
    pub sides: Vec<SideData>,
    pub armies: Vec<ArmyData>,
    pub alliances: Vec<AllianceData>,
    pub phases: Vec<PhaseData>,
    pub turn_tracks: Vec<TrackData>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct SideData {
    pub id: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ArmyData {
    pub id: String,
    pub side: String,
    /// Savannah 4.18 "Leader Stacking": the colour groups this army's
    /// leaders may stack with and command ("Any French leader may stack with
    /// and command any French units, whether Regulars, Colonial Regulars,
    /// Mercenaries or Militia"). Without it, the army's own units.
    #[serde(default)]
    pub leaders_command: Option<Vec<String>>,
}

/// The players of a turn: armies that take their player turn together.
#[derive(Debug, Clone, Deserialize)]
pub struct AllianceData {
    pub id: String,
    pub armies: Vec<String>,
    /// Savannah 4.19: whose army morale level gives the initiative DRM.
    #[serde(default)]
    pub initiative_from_army: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct PhaseData {
    pub id: String,
    pub scope: Scope,
    /// The armies that perform a game-turn phase, when only some do, and
    /// whose side gives its orders (Savannah 3 IV: the French only).
    #[serde(default)]
    pub armies: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    /// Before the first turn: the scenario's set-up choices (the
    /// Historical Scenario's Set Up), once.
    SetUp,
    GameTurn,
    PlayerTurn,
    EndOfTurn,
}

#[derive(Debug, Clone, Deserialize)]
pub struct TrackData {
    pub id: String,
    pub first_turn: u32,
    pub last_turn: u32,
}

/// A scenario file, as far as the sequence of play needs it.
#[derive(Debug, Clone, Deserialize)]
pub struct ScenarioSequence {
    pub turns: Turns,
    pub phases: BTreeMap<String, crate::base::yaml::Value>,
    pub player_order: Vec<OrderRule>,
    /// The set-up: units placed at their printed hexes, and those a side
    /// chooses where to deploy (the set-up step's orders).
    #[serde(default)]
    pub deployment: Option<Deployment>,
}

/// A scenario's `deployment`: the printed set-up, with overrides.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Deployment {
    #[serde(default)]
    pub overrides: Vec<DeploymentOverride>,
}

/// One unit's deployment: a fixed `hex`, or any hex of the zone
/// `anywhere_in_zone` (map.yaml `zones`) that the side `chosen_by` picks in
/// the set-up step, subject to stacking limits (series 7.1); the printed
/// hex when it picks none.
#[derive(Debug, Clone, Deserialize)]
pub struct DeploymentOverride {
    pub unit: String,
    #[serde(default)]
    pub hex: Option<String>,
    #[serde(default)]
    pub anywhere_in_zone: Option<String>,
    #[serde(default)]
    pub chosen_by: Option<String>,
    #[serde(default)]
    pub rule: Option<String>,
}

impl Deployment {
    /// The sides that choose where a unit deploys in the set-up step, in
    /// id order, each once.
    pub fn choosing_sides(&self) -> Vec<String> {
        let mut sides: Vec<String> = self
            .overrides
            .iter()
            .filter(|o| o.anywhere_in_zone.is_some())
            .filter_map(|o| o.chosen_by.clone())
            .collect();
        sides.sort();
        sides.dedup();
        sides
    }

    /// The units `side` chooses the hex of in the set-up step, with their zones.
    pub fn chosen_by<'a>(&'a self, side: &'a str) -> impl Iterator<Item = &'a DeploymentOverride> + 'a {
        self.overrides.iter().filter(move |o| o.anywhere_in_zone.is_some() && o.chosen_by.as_deref() == Some(side))
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct Turns {
    pub first: u32,
    pub last: u32,
}

#[derive(Debug, Clone, Deserialize)]
pub struct OrderRule {
    pub turns: Turns,
    pub order: Order,
}

/// A fixed order of alliances, or `random`: decided by initiative (series 6).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Order {
    Fixed(Vec<String>),
    Random(String),
}

/// One step of the game: what is resolved in one go.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Step {
    /// A phase of the whole game turn (initiative, weather, ...).
    GameTurn { turn: u32, phase: String },
    /// A phase of one alliance's player turn.
    PlayerTurn { turn: u32, player: String, phase: String },
    /// Victory determination and the advance of the turn marker.
    EndOfTurn { turn: u32, phase: String },
}

impl Step {
    pub fn turn(&self) -> u32 {
        match self {
            Step::GameTurn { turn, .. } | Step::PlayerTurn { turn, .. } | Step::EndOfTurn { turn, .. } => *turn,
        }
    }

    pub fn phase(&self) -> &str {
        match self {
            Step::GameTurn { phase, .. } | Step::PlayerTurn { phase, .. } | Step::EndOfTurn { phase, .. } => phase,
        }
    }

    /// How reports and orders files name the step, e.g. `17-allies-movement`.
    pub fn name(&self) -> String {
        match self {
            Step::GameTurn { turn, phase } | Step::EndOfTurn { turn, phase } => format!("{turn}-{phase}"),
            Step::PlayerTurn { turn, player, phase } => format!("{turn}-{player}-{phase}"),
        }
    }
}

/// The sequence of play of one scenario.
#[derive(Debug, Clone)]
pub struct Sequence {
    pub data: SequenceData,
    pub scenario: ScenarioSequence,
}

impl Sequence {
    pub fn load(source: &Source, scenario: &str) -> Result<Sequence> {
        let (data, _): (SequenceData, _) = source.parse("module.yaml")?;
        let file = format!("scenarios/{scenario}.yaml");
        let (scenario, _): (ScenarioSequence, _) = source.parse(&file)?;
        Ok(Sequence { data, scenario })
    }

    fn problem(&self, message: String) -> Error {
        Error::Data(Located {
            file: "scenario".into(),
            line: None,
            column: None,
            field: String::new(),
            message,
            code: None,
        })
    }

    /// The turn track a turn is on (Savannah 1.6).
    pub fn track(&self, turn: u32) -> Option<&str> {
        self.data.turn_tracks.iter().find(|t| (t.first_turn..=t.last_turn).contains(&turn)).map(|t| t.id.as_str())
    }

    /// The phases the scenario uses on `turn`: `used` for every turn, or a
    /// list per turn track.
    pub fn phases_used(&self, turn: u32) -> Result<Vec<String>> {
        let list = self
            .scenario
            .phases
            .get("used")
            .or_else(|| self.track(turn).and_then(|t| self.scenario.phases.get(t)))
            .ok_or_else(|| self.problem(format!("the scenario lists no phases for turn {turn}")))?;
        let phases: Vec<String> = crate::base::yaml::from_value(list.clone())
            .map_err(|e| self.problem(format!("phases of turn {turn}: {e}")))?;
        for p in &phases {
            if self.data.phases.iter().all(|d| &d.id != p) {
                return Err(self.problem(format!("phase '{p}' is not a phase of the module")));
            }
        }
        Ok(phases)
    }

    /// The fixed order of player turns on `turn`, or `None` when initiative
    /// decides it (series 6; Savannah 4.19).
    pub fn fixed_order(&self, turn: u32) -> Result<Option<Vec<String>>> {
        let rule = self
            .scenario
            .player_order
            .iter()
            .find(|r| (r.turns.first..=r.turns.last).contains(&turn))
            .ok_or_else(|| self.problem(format!("no player order for turn {turn}")))?;
        match &rule.order {
            Order::Fixed(list) => Ok(Some(list.clone())),
            Order::Random(word) if word == "random" => Ok(None),
            Order::Random(word) => Err(self.problem(format!("player order '{word}': a list of players or random"))),
        }
    }

    /// Every order the player turns of `turn` could come in: the fixed one,
    /// or, when initiative decides it (series 6), any order of the players.
    pub fn possible_orders(&self, turn: u32) -> Result<Vec<Vec<String>>> {
        if let Some(fixed) = self.fixed_order(turn)? {
            return Ok(vec![fixed]);
        }
        let players: Vec<String> = self.data.alliances.iter().map(|a| a.id.clone()).collect();
        let mut all = Vec::new();
        permutations(&players, &mut Vec::new(), &mut all);
        Ok(all)
    }

    /// Every kind of step of the scenario, by the name orders files give it
    /// (the step's name without its turn: `allies-close-combat`,
    /// `initiative`), each with the first step of that kind: over every turn
    /// and every order of player turns.
    pub fn step_kinds(&self) -> Result<BTreeMap<String, Step>> {
        let mut kinds = BTreeMap::new();
        for turn in self.scenario.turns.first..=self.scenario.turns.last {
            for order in self.possible_orders(turn)? {
                for step in self.steps_of_turn(turn, &order)? {
                    kinds.entry(step_field(&step)).or_insert(step);
                }
            }
        }
        Ok(kinds)
    }

    /// Every step of `turn` in order, given the order of player turns
    /// (fixed, or found by the initiative step).
    pub fn steps_of_turn(&self, turn: u32, order: &[String]) -> Result<Vec<Step>> {
        let used = self.phases_used(turn)?;
        let random = self.fixed_order(turn)?.is_none();
        let mut steps = Vec::new();
        let in_module_order = |scope: Scope| -> Vec<String> {
            self.data.phases.iter().filter(|p| p.scope == scope && used.contains(&p.id)).map(|p| p.id.clone()).collect()
        };
        // The set-up step comes once, before the first turn's phases.
        if turn == self.scenario.turns.first {
            for phase in in_module_order(Scope::SetUp) {
                steps.push(Step::GameTurn { turn, phase });
            }
        }
        for phase in in_module_order(Scope::GameTurn) {
            // Series 6: initiative only decides a random player order.
            if phase == "initiative" && !random {
                continue;
            }
            steps.push(Step::GameTurn { turn, phase });
        }
        for player in order {
            for phase in in_module_order(Scope::PlayerTurn) {
                steps.push(Step::PlayerTurn { turn, player: player.clone(), phase });
            }
        }
        for phase in in_module_order(Scope::EndOfTurn) {
            steps.push(Step::EndOfTurn { turn, phase });
        }
        Ok(steps)
    }

    /// The first step of `turn`: with a random order only the initiative
    /// step can come first, since the player turns are not known yet.
    pub fn first_step(&self, turn: u32, order: &[String]) -> Result<Option<Step>> {
        Ok(self.steps_of_turn(turn, order)?.into_iter().next())
    }

    /// The step after `step`, given this turn's player order; the first step
    /// of the next turn at the end of a turn (its fixed order, if any, is
    /// returned with it); `None` after the scenario's last turn.
    pub fn step_after(&self, step: &Step, order: &[String]) -> Result<Option<(Step, Vec<String>)>> {
        let turn = step.turn();
        let steps = self.steps_of_turn(turn, order)?;
        let at = steps.iter().position(|s| s == step).ok_or_else(|| {
            self.problem(format!(
                "step {} is not a step of turn {turn} with player order {}",
                step.name(),
                order.join(", ")
            ))
        })?;
        if let Some(next) = steps.get(at + 1) {
            return Ok(Some((next.clone(), order.to_vec())));
        }
        if turn >= self.scenario.turns.last {
            return Ok(None);
        }
        let order = self.fixed_order(turn + 1)?.unwrap_or_default();
        Ok(self.first_step(turn + 1, &order)?.map(|s| (s, order)))
    }

    /// The sides that play for an alliance.
    pub fn sides_of(&self, alliance: &str) -> Vec<String> {
        let mut sides: Vec<String> = self
            .data
            .alliances
            .iter()
            .filter(|a| a.id == alliance)
            .flat_map(|a| &a.armies)
            .filter_map(|army| self.data.armies.iter().find(|a| &a.id == army))
            .map(|a| a.side.clone())
            .collect();
        sides.sort();
        sides.dedup();
        sides
    }

    /// Which sides must send orders for `step`: the phasing player's sides
    /// for movement (series 9.1); the non-phasing player's for defensive
    /// artillery fire (series 11); both for close combat (the attacker's
    /// designations, the defender's instructions, 12.2); every side at
    /// initiative, where momentum may be spent before the roll (12.62).
    /// Rally (15) and victory determination need no orders.
    pub fn awaited(&self, step: &Step) -> Vec<String> {
        let everyone = || {
            let mut all: Vec<String> = self.data.alliances.iter().flat_map(|a| self.sides_of(&a.id)).collect();
            all.sort();
            all.dedup();
            all
        };
        match step {
            Step::GameTurn { phase, .. } if phase == "initiative" => everyone(),
            // The sides that choose where a unit deploys.
            Step::GameTurn { turn, phase } if phase == "set-up" && *turn == self.scenario.turns.first => {
                self.scenario.deployment.as_ref().map(Deployment::choosing_sides).unwrap_or_default()
            }
            Step::PlayerTurn { player, phase, .. } => match phase.as_str() {
                "movement" => self.sides_of(player),
                "defensive-artillery-fire" => {
                    let mut others: Vec<String> = self
                        .data
                        .alliances
                        .iter()
                        .filter(|a| &a.id != player)
                        .flat_map(|a| self.sides_of(&a.id))
                        .collect();
                    others.sort();
                    others.dedup();
                    others
                }
                "close-combat" => everyone(),
                _ => Vec::new(),
            },
            _ => Vec::new(),
        }
    }
}

fn permutations(left: &[String], prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    if left.is_empty() {
        out.push(prefix.clone());
        return;
    }
    for i in 0..left.len() {
        let mut rest = left.to_vec();
        let x = rest.remove(i);
        prefix.push(x);
        permutations(&rest, prefix, out);
        prefix.pop();
    }
}

/// The step's name as orders files write it: without the turn number.
pub fn step_field(step: &Step) -> String {
    let name = step.name();
    name.split_once('-').map(|(_, rest)| rest.to_string()).unwrap_or(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn savannah(scenario: &str) -> Sequence {
        Sequence::load(&Source::Embedded("savannah-1779".into()), scenario).unwrap()
    }

    fn names(steps: &[Step]) -> Vec<String> {
        steps.iter().map(Step::name).collect()
    }

    /// Historical Scenario: turn 16 is Allied then British with no
    /// initiative; only Initiative, Movement, Rally, Defensive Artillery
    /// Fire, Close Combat and Victory Determination are used, after the
    /// set-up step of Hist. Set Up (the British player's militia).
    #[test]
    fn historical_turn_16_has_a_fixed_order_and_six_phases() {
        let s = savannah("historical");
        let order = s.fixed_order(16).unwrap().unwrap();
        assert_eq!(order, ["allies", "british"]);
        let steps = s.steps_of_turn(16, &order).unwrap();
        assert_eq!(
            names(&steps),
            [
                "16-set-up",
                "16-allies-movement",
                "16-allies-rally",
                "16-allies-defensive-artillery-fire",
                "16-allies-close-combat",
                "16-british-movement",
                "16-british-rally",
                "16-british-defensive-artillery-fire",
                "16-british-close-combat",
                "16-victory-determination",
            ]
        );
        assert_eq!(s.awaited(&steps[0]), ["british"], "Hist. Set Up: the British deploy the militia");
        assert_eq!(s.awaited(&steps[1]), ["american", "french"]);
        assert!(s.awaited(&steps[2]).is_empty(), "rally needs no orders (15)");
        assert_eq!(s.awaited(&steps[3]), ["british"]);
        // Only the first turn has the set-up step.
        assert_eq!(s.steps_of_turn(17, &order).unwrap()[1].name(), "17-allies-movement");
    }

    #[test]
    fn historical_turns_17_to_20_begin_with_initiative() {
        let s = savannah("historical");
        assert_eq!(s.fixed_order(17).unwrap(), None);
        let order = vec!["british".to_string(), "allies".to_string()];
        let steps = s.steps_of_turn(18, &order).unwrap();
        assert_eq!(steps[0], Step::GameTurn { turn: 18, phase: "initiative".into() });
        assert_eq!(s.awaited(&steps[0]), ["american", "british", "french"]);
        assert_eq!(steps[1].name(), "18-british-movement");
    }

    /// Campaign Game: turn 1 British only (Savannah 4.19); strategic turns
    /// have weather and the other game-turn phases, tactical ones initiative.
    #[test]
    fn steps_follow_one_another_to_the_end_of_the_scenario() {
        let s = savannah("historical");
        let order = s.fixed_order(16).unwrap().unwrap();
        let mut step = s.first_step(16, &order).unwrap().unwrap();
        let mut order = order;
        let mut names = vec![step.name()];
        while let Some((next, next_order)) = s.step_after(&step, &order).unwrap() {
            if next.phase() == "initiative" {
                // As if the initiative step found the British first.
                order = vec!["british".into(), "allies".into()];
            } else {
                order = if next_order.is_empty() { order } else { next_order };
            }
            names.push(next.name());
            step = next;
        }
        assert_eq!(names.first().unwrap(), "16-set-up");
        assert_eq!(names[1], "16-allies-movement");
        assert_eq!(names[10], "17-initiative");
        assert_eq!(names[11], "17-british-movement");
        assert_eq!(names.last().unwrap(), "20-victory-determination");
        // The set-up and 9 steps on turn 16 (no initiative), 10 on each of turns 17 to 20.
        assert_eq!(names.len(), 1 + 9 + 4 * 10);
    }

    /// What standing orders may name: every step of any turn, under any
    /// order of player turns, without its turn number.
    #[test]
    fn historical_step_kinds() {
        let s = savannah("historical");
        let kinds = s.step_kinds().unwrap();
        let names: Vec<&str> = kinds.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            [
                "allies-close-combat",
                "allies-defensive-artillery-fire",
                "allies-movement",
                "allies-rally",
                "british-close-combat",
                "british-defensive-artillery-fire",
                "british-movement",
                "british-rally",
                "initiative",
                "set-up",
                "victory-determination",
            ]
        );
        assert_eq!(kinds["initiative"].turn(), 17, "turn 16 has no initiative (fixed order)");
        assert_eq!(s.possible_orders(16).unwrap(), [["allies", "british"]]);
        assert_eq!(s.possible_orders(17).unwrap().len(), 2);
    }

    #[test]
    fn campaign_turn_tracks() {
        let s = savannah("campaign");
        assert_eq!(s.fixed_order(1).unwrap().unwrap(), ["british"]);
        // The Campaign Game lists no set-up step (its own set-up is to come).
        let first = names(&s.steps_of_turn(1, &s.fixed_order(1).unwrap().unwrap()).unwrap());
        assert!(!first.iter().any(|n| n.ends_with("set-up")), "{first:?}");
        assert_eq!(s.track(15), Some("strategic"));
        assert_eq!(s.track(16), Some("tactical"));
        let strategic = names(&s.steps_of_turn(5, &s.fixed_order(5).unwrap().unwrap()).unwrap());
        assert_eq!(strategic[0], "5-weather");
        assert!(strategic.contains(&"5-allies-reinforcement".to_string()));
        let tactical = names(&s.steps_of_turn(20, &["allies".into(), "british".into()]).unwrap());
        assert_eq!(tactical[0], "20-initiative");
        assert!(!tactical.iter().any(|n| n.contains("weather") || n.contains("reinforcement")));
    }
}
