//! charts/siege-bombardment.yaml (Savannah 3, 4.5, 4.6): the Siege & Bombardment Tables.
//! The file's types, and what [`check`](super::check) verifies of it.

use super::*;

// siege-bombardment.yaml

/// `charts/siege-bombardment.yaml`: Savannah 3 phase V, 4.6.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiegeBombardmentFile {
    pub source: String,
    pub rules: Vec<String>,
    pub die: Die,
    pub procedure: SiegeProcedure,
    pub table_i: SiegeTableI,
    pub table_ii: SiegeTableII,
}

/// Savannah 3, 4.6: who rolls, in what order.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiegeProcedure {
    pub source: String,
    #[serde(default)]
    pub scenarios: Vec<String>,
    pub prerequisite: String,
    /// Sides, in the order they roll.
    pub order: Vec<String>,
    pub british_optional: bool,
    pub french_rolls_per_phase: u32,
    pub british_rolls_per_phase: u32,
    pub note: Option<String>,
}

/// Siege & Bombardment Table I: a column of bands per rolling side.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiegeTableI {
    pub id: String,
    pub name: String,
    pub source: String,
    pub note: Option<String>,
    pub drms: Vec<Drm>,
    pub columns: BTreeMap<String, Vec<EffectOutcome>>,
}

/// Siege & Bombardment Table II.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SiegeTableII {
    pub id: String,
    pub name: String,
    pub source: String,
    pub note: Option<String>,
    #[serde(default)]
    pub drms: Vec<Drm>,
    pub outcomes: Vec<EffectOutcome>,
}

/// A band of rolls and the effects it has.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EffectOutcome {
    pub min: Option<i32>,
    pub max: Option<i32>,
    pub effects: Vec<Effect>,
    pub source: Option<String>,
    pub note: Option<String>,
}

impl<'a> Checker<'a> {
    pub(super) fn siege_bombardment(&mut self) {
        let s = &self.c.siege_bombardment;
        let f = SIEGE_BOMBARDMENT;
        self.scenarios(f, "procedure.scenarios", &s.procedure.scenarios);
        self.sides(f, "procedure.order", &s.procedure.order);
        self.drms(f, "table_i.drms", &s.table_i.drms);
        let sides = self.ctx.sides.clone();
        for (side, bands) in &s.table_i.columns {
            let list = format!("table_i.columns.{side}");
            self.context_ref(f, &list, side, &sides, "a side of module.yaml");
            let b: Vec<_> = bands.iter().map(|o| (o.min, o.max)).collect();
            self.roll_bands(f, &list, &b, s.die, !s.table_i.drms.is_empty());
            for (i, o) in bands.iter().enumerate() {
                self.effect_list(f, &format!("{list}[{i}].effects"), &o.effects);
            }
        }
        self.drms(f, "table_ii.drms", &s.table_ii.drms);
        let b: Vec<_> = s.table_ii.outcomes.iter().map(|o| (o.min, o.max)).collect();
        self.roll_bands(f, "table_ii.outcomes", &b, s.die, !s.table_ii.drms.is_empty());
        for (i, o) in s.table_ii.outcomes.iter().enumerate() {
            self.effect_list(f, &format!("table_ii.outcomes[{i}].effects"), &o.effects);
        }
    }
}
