//! charts/codes.yaml (13.1): the combat result codes, side references and effect vocabulary.
//! The file's types, and what [`check`](super::check) verifies of it.

use super::*;

// codes.yaml

/// `charts/codes.yaml`: the ids every chart shares.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CodesFile {
    pub source: String,
    pub rules: Vec<String>,
    /// 13.1: the ten combat results; a side's result in a chart is a list of these ids.
    pub combat_results: Vec<CombatResult>,
    /// How codes combine in one side's result (the data check implements them).
    #[serde(default)]
    pub combination_rules: Vec<String>,
    /// Who an effect or adjustment applies to.
    pub side_refs: Vec<IdText>,
    /// What an S&B result or a card does.
    pub effects: Vec<EffectDef>,
}

/// 13.1: one combat result code.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CombatResult {
    pub id: String,
    /// What the printed chart shows (`R`, `AM`, `*`).
    pub symbol: String,
    pub source: String,
    pub text: String,
}

/// One effect of the vocabulary and the params every use of it gives.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EffectDef {
    pub id: String,
    pub params: Vec<String>,
    pub text: String,
}

impl<'a> Checker<'a> {
    pub(super) fn codes(&mut self) {
        let k = &self.c.codes;
        self.unique(CODES, "combat_results", k.combat_results.iter().map(|r| r.id.as_str()));
        let mut symbols: BTreeMap<&str, usize> = BTreeMap::new();
        for (i, r) in k.combat_results.iter().enumerate() {
            if let Some(j) = symbols.insert(&r.symbol, i) {
                self.p.add(
                    CODES,
                    format!("combat_results[{i}].symbol"),
                    format!("symbol '{}' is also combat_results[{j}]'s", r.symbol),
                );
            }
        }
        self.unique(CODES, "side_refs", k.side_refs.iter().map(|s| s.id.as_str()));
        self.unique(CODES, "effects", k.effects.iter().map(|e| e.id.as_str()));
        for (i, e) in k.effects.iter().enumerate() {
            for (j, p) in e.params.iter().enumerate() {
                if e.params[..j].contains(p) {
                    self.p.add(CODES, format!("effects[{i}].params[{j}]"), format!("param '{p}' is listed twice"));
                }
            }
        }
    }
}
