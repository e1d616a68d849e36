//! charts/covered-way.yaml (Savannah 4.9): the Covered Way 'Lost' roll.
//! The file's types, and what [`check`](super::check) verifies of it.

use super::*;

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

/// Savannah 4.9: the penalties of a Lost stack. The engine reads each
/// switch: a module may keep or drop any of them.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LostEffects {
    pub source: String,
    /// "They may not move any further that turn": a stack that gets lost
    /// stops in the hex where it got lost (false: it goes on, Lost).
    pub may_not_move_further: bool,
    /// Whether Lost units exert a ZOC (8.1; Savannah: "They have no ZOC").
    pub zoc: bool,
    /// Their Close Combat SPs, attacking and defending.
    pub strength: LostStrength,
    /// "Lost units that receive a Retreat result in Close Combat are
    /// Pinned instead".
    pub retreat_becomes_pin: bool,
    /// Whether Lost mounted units may select Cavalry Withdrawal (12.4).
    pub cavalry_withdrawal: bool,
    /// The marker cycle, as the text words it (the engine flips the
    /// marker at the start of the next friendly Movement Phase and
    /// clears it when the units leave the Covered Way: not switches).
    pub flip_to_previously_lost: String,
    pub cleared_when: String,
    /// "Units that begin stacked must proceed as a stack if they intend
    /// to move along the Covered Way" (false: they may split).
    pub stacks_move_together: bool,
    pub note: Option<String>,
}

/// Savannah 4.9: a Lost unit's Close Combat SPs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LostStrength {
    /// Its SPs as they would be.
    Full,
    /// "They attack and defend at half strength (round up fractions)".
    HalfRoundedUp,
    /// Half, fractions dropped.
    HalfRoundedDown,
}

impl LostStrength {
    /// A Lost unit's SPs of `sps`.
    pub fn apply(self, sps: i32) -> i32 {
        match self {
            LostStrength::Full => sps,
            LostStrength::HalfRoundedUp => sps.saturating_add(1) / 2,
            LostStrength::HalfRoundedDown => sps / 2,
        }
    }
}

impl<'a> Checker<'a> {
    pub(super) fn covered_way(&mut self) {
        let c = &self.c.covered_way;
        self.result_table(COVERED_WAY, "lost_roll", &c.lost_roll, c.die);
    }
}
