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

/// Savannah 4.9: the penalties of a Lost stack.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LostEffects {
    pub source: String,
    pub may_not_move_further: bool,
    pub zoc: bool,
    pub strength: String,
    pub retreat_becomes_pin: bool,
    pub cavalry_withdrawal: bool,
    pub flip_to_previously_lost: String,
    pub cleared_when: String,
    pub stacks_move_together: bool,
    pub note: Option<String>,
}

impl<'a> Checker<'a> {
    pub(super) fn covered_way(&mut self) {
        let c = &self.c.covered_way;
        self.result_table(COVERED_WAY, "lost_roll", &c.lost_roll, c.die);
    }
}
