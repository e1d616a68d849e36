//! charts/surrender.yaml (Savannah 2.1): the British Surrender Die Roll.
//! The file's types, and what [`check`](super::check) verifies of it.

use super::*;

// surrender.yaml

/// `charts/surrender.yaml`: Savannah 2.1.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SurrenderFile {
    pub source: String,
    pub rules: Vec<String>,
    pub die: Die,
    pub surrender_roll: SurrenderRoll,
}

/// Savannah 2.1: the British Surrender Die Roll (modified).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SurrenderRoll {
    pub id: String,
    pub name: String,
    pub source: String,
    pub note: Option<String>,
    #[serde(default)]
    pub scenarios: Vec<String>,
    pub when: String,
    pub drms: Vec<Drm>,
    pub outcomes: Vec<ResultOutcome>,
    pub results: Vec<IdText>,
}

impl<'a> Checker<'a> {
    pub(super) fn surrender(&mut self) {
        let s = &self.c.surrender;
        let r = &s.surrender_roll;
        let f = SURRENDER;
        self.scenarios(f, "surrender_roll.scenarios", &r.scenarios);
        self.unique(f, "surrender_roll.results", r.results.iter().map(|x| x.id.as_str()));
        self.drms(f, "surrender_roll.drms", &r.drms);
        let b: Vec<_> = r.outcomes.iter().map(|o| (o.min, o.max)).collect();
        self.roll_bands(f, "surrender_roll.outcomes", &b, s.die, !r.drms.is_empty());
        let results: BTreeSet<&str> = r.results.iter().map(|x| x.id.as_str()).collect();
        for (i, o) in r.outcomes.iter().enumerate() {
            self.reference(
                f,
                &format!("surrender_roll.outcomes[{i}].result"),
                &o.result,
                &results,
                "one of this table's results",
            );
        }
    }
}
