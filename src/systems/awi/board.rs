//! The state of an AWI Southern Campaign game and the queries every rule
//! asks of it: where a piece is, who holds a hex, what it costs to enter.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::base::dice::Bytes32;
use crate::base::hex::{neighbours, HexId, Hexside};
use crate::system::GameResult;
use crate::systems::awi::data::{FortAt, Module, Piece, WATER};

/// A step of the sequence of play: one side's monthly operations (1776:
/// each player moves, then resolves the combats his move created), or a
/// battle that side's move created, handed to the table (the article,
/// TRANSFERRING TO THE MINIATURES GAME) and awaiting the referee's entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    pub turn: u32,
    /// The side whose operations these are (of a battle: the attacker).
    pub side: String,
    /// The hex of the battle, for a battle step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub battle: Option<String>,
    /// Of a battle step after attempts to break off (BREAKING OFF FROM A
    /// BATTLE): the pass they were made after. Each entry of the battle
    /// is its own step, named apart: `british-battle-0303-after-pass-2`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_pass: Option<u32>,
}

/// The role whose one entry of a battle stands in for both commanders'
/// (docs/awi-southern.md, `Rules::stand_in`).
pub const REFEREE: &str = "referee";

impl Step {
    pub fn operations(turn: u32, side: &str) -> Step {
        Step { turn, side: side.to_string(), battle: None, after_pass: None }
    }

    pub fn field(&self) -> String {
        match &self.battle {
            Some(hex) => match self.after_pass {
                Some(pass) => format!("{}-battle-{hex}-after-pass-{pass}", self.side),
                None => format!("{}-battle-{hex}", self.side),
            },
            None => format!("{}-operations", self.side),
        }
    }

    pub fn name(&self) -> String {
        format!("{}-{}", self.turn, self.field())
    }
}

/// A piece's state: where it is (none: off the map, not yet arrived or
/// gone), its fighting stands, and for a British unit its communications
/// memory (the article's attrition test).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct PieceState {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hex: Option<String>,
    #[serde(default)]
    pub stands: u32,
    /// In communication at the end of the last British turn.
    #[serde(default = "yes")]
    pub in_communication: bool,
    /// Consecutive attrition tests passed.
    #[serde(default)]
    pub attrition_passes: u32,
    /// Eliminated for good after a battle (POST BATTLE RECOVERY: "They
    /// cannot be rebuilt from replacement stands").
    #[serde(default, skip_serializing_if = "is_false")]
    pub eliminated: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn yes() -> bool {
    true
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct State {
    pub turn: u32,
    pub next: Option<Step>,
    pub resolved_steps: u32,
    pub pieces: BTreeMap<String, PieceState>,
    pub control: BTreeMap<String, String>,
    pub magazines: BTreeSet<String>,
    pub forts: Vec<FortAt>,
    /// ENTRENCHMENTS: the hexes entrenched, by the side that dug them
    /// (stand-in: levelled when none of its land units is left there).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub entrenchments: BTreeMap<String, String>,
    /// The fort of the battle awaiting the referee: its sections'
    /// strengths and the breaching guns' damage rolls, as the battle sheet
    /// gave them (FORTIFICATIONS IN COMBAT).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub siege: Option<Siege>,
    /// BREAKING OFF FROM A BATTLE: the attempts made in the battle
    /// awaiting the referee, each rolled in its own step, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub break_off: Vec<Attempt>,
    pub result: Option<GameResult>,
    /// Unused replacement stands, by side, town and nationality
    /// (REPLACEMENTS: "Unused replacements can be saved for later use and
    /// are considered to remain in the town of their initial placement").
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub replacements: Replacements,
    /// Militia stands raised and not yet formed into units, by side and
    /// town (MILITIA UNITS).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub militia: Levies,
}

/// Unused replacement stands: side, town, nationality: stands.
pub type Replacements = BTreeMap<String, BTreeMap<String, BTreeMap<String, u32>>>;

/// Militia raised and not yet formed: side, town: the levy.
pub type Levies = BTreeMap<String, BTreeMap<String, Levy>>;

/// Militia stands raised in a town and not yet formed into units: the
/// stands, and how many of them may still be rifle armed ("Up to one
/// quarter of these stands can be rifle armed").
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Levy {
    pub stands: u32,
    pub rifles: u32,
}

/// An attempt to break off from the battle awaiting the referee: made by
/// the side's commanding general after a pass through the PLM action
/// deck, with the army manipulation points he spent, rolled (D100 against
/// the chance) when the referee entered it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Attempt {
    pub side: String,
    pub general: String,
    /// The pass through the action deck it was made after (1 first).
    pub pass: u32,
    pub points: u32,
    /// The chance in percent: the base and the points converted.
    pub chance: u32,
    pub roll: u32,
    /// The roll was the chance or less: the force withdrew in good order.
    pub succeeded: bool,
}

/// A fort under attack, as its battle sheet gave it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Siege {
    pub hex: String,
    /// The fort's side.
    pub side: String,
    /// Each section's strength points, section 1 first (0: destroyed
    /// before this battle).
    pub sections: Vec<u32>,
    /// Each breaching gun's D100 damage rolls, one per shot it can fire:
    /// its shots at the fort use them in order.
    pub damage_rolls: BTreeMap<String, Vec<u32>>,
    /// Each breaching gun's shots by ammunition round (the first roll,
    /// then each resupply a supply unit spent would give): how many of its
    /// damage rolls the table may use.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub rounds: BTreeMap<String, Vec<u32>>,
}

impl State {
    pub fn hash(&self) -> Bytes32 {
        Bytes32::sha256(&serde_json::to_vec(self).unwrap_or_default())
    }

    pub fn hex_of(&self, id: &str) -> Option<HexId> {
        self.pieces.get(id)?.hex.as_deref()?.parse().ok()
    }

    /// A fort's garrison leaves it when it leaves the fort's hex (moved,
    /// retreated, eliminated or spent).
    pub fn prune_garrisons(&mut self) {
        let pieces = &self.pieces;
        for f in &mut self.forts {
            f.garrison.retain(|id| pieces.get(id).and_then(|p| p.hex.as_deref()) == Some(f.hex.as_str()));
        }
    }

    /// The pieces in a hex, in id order.
    pub fn at(&self, hex: HexId) -> Vec<&str> {
        self.pieces
            .iter()
            .filter(|(_, p)| p.hex.as_deref().and_then(|h| h.parse().ok()) == Some(hex))
            .map(|(id, _)| id.as_str())
            .collect()
    }
}

/// The sides in the order they operate each month.
pub fn side_order(m: &Module) -> Vec<String> {
    m.info.sides.iter().map(|s| s.id.clone()).collect()
}

/// The step after `step`, or none after the scenario's last turn.
pub fn step_after(m: &Module, last_turn: u32, step: &Step) -> Option<Step> {
    let order = side_order(m);
    let i = order.iter().position(|s| *s == step.side)?;
    match order.get(i + 1) {
        Some(side) => Some(Step::operations(step.turn, side)),
        None if step.turn < last_turn => Some(Step::operations(step.turn + 1, order.first()?)),
        None => None,
    }
}

/// The month and year of a turn, in words.
pub fn month_of(m: &Module, turn: u32) -> String {
    const MONTHS: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    let c = m.file.calendar;
    let index = c.first_month.saturating_sub(1) + turn.saturating_sub(1);
    format!("{} {}", MONTHS[(index % 12) as usize], c.first_year + index / 12)
}

/// Whether a piece is a land unit (not a general, not a fleet).
pub fn is_land_unit(m: &Module, id: &str) -> bool {
    m.unit(id).is_some()
}

/// The side of a piece.
pub fn side_of<'a>(m: &'a Module, id: &str) -> Option<&'a str> {
    m.piece(id).map(|p| match p {
        Piece::Unit(u) => u.side.as_str(),
        Piece::General(g) => g.side.as_str(),
        Piece::Fleet(f) => f.side.as_str(),
    })
}

/// Hexes holding a land unit of `side`.
pub fn land_units_of(m: &Module, s: &State, side: &str) -> BTreeSet<HexId> {
    s.pieces
        .iter()
        .filter(|(id, _)| m.unit(id).is_some_and(|u| u.side == side))
        .filter_map(|(_, p)| p.hex.as_deref()?.parse().ok())
        .collect()
}

/// The other side.
pub fn enemy_of(m: &Module, side: &str) -> String {
    m.info.sides.iter().find(|s| s.id != side).map(|s| s.id.clone()).unwrap_or_default()
}

/// Land hexes next to `hex` on the map.
pub fn land_neighbours(m: &Module, hex: HexId) -> Vec<HexId> {
    neighbours(hex, m.map.layout).into_iter().filter(|n| m.map.terrain.get(n).is_some_and(|t| t != WATER)).collect()
}

/// The movement points to step from `from` into the next hex `to`: the
/// terrain's cost plus a river's (charts/movement.yaml, stand-in).
pub fn step_cost(m: &Module, from: HexId, to: HexId) -> Option<u32> {
    let terrain = m.terrain_cost(to)?;
    let side = Hexside::between(from, to, m.map.layout)?;
    Some(terrain + m.river_class(side).map(|c| m.river_cost(c)).unwrap_or(0))
}

/// Least movement points from `from` to every hex reachable within
/// `limit`, never entering a hex `blocked` says is closed (the start is
/// always open), with the path to each (Dijkstra, ties by hex id).
pub fn reach(
    m: &Module,
    from: HexId,
    limit: u32,
    blocked: &dyn Fn(HexId) -> bool,
) -> BTreeMap<HexId, (u32, Vec<HexId>)> {
    let mut best: BTreeMap<HexId, (u32, Vec<HexId>)> = BTreeMap::new();
    best.insert(from, (0, vec![from]));
    let mut open: BTreeSet<(u32, HexId)> = BTreeSet::new();
    open.insert((0, from));
    while let Some((cost, hex)) = open.pop_first() {
        if best.get(&hex).is_some_and(|(c, _)| *c < cost) {
            continue;
        }
        for n in land_neighbours(m, hex) {
            if blocked(n) {
                continue;
            }
            let Some(c) = step_cost(m, hex, n) else { continue };
            let total = cost + c;
            if total > limit || best.get(&n).is_some_and(|(b, _)| *b <= total) {
                continue;
            }
            let mut path = best[&hex].1.clone();
            path.push(n);
            best.insert(n, (total, path));
            open.insert((total, n));
        }
    }
    best
}
