//! charts/french-variable-entry.yaml (Savannah 4.7): the French variable entry roll.
//! The file's types, and what [`check`](super::check) verifies of it.

use super::*;

// french-variable-entry.yaml

/// `charts/french-variable-entry.yaml`: Savannah 4.7.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FrenchVariableEntryFile {
    pub source: String,
    pub rules: Vec<String>,
    pub die: Die,
    pub french_variable_entry: VariableEntry,
}

/// Savannah 4.7: where the reinforcements of these turns enter (unmodified roll).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariableEntry {
    pub id: String,
    pub name: String,
    pub source: String,
    pub turns: Vec<u32>,
    pub note: Option<String>,
    pub outcomes: Vec<EntryOutcome>,
}

/// A band of the variable entry roll.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntryOutcome {
    pub min: Option<i32>,
    pub max: Option<i32>,
    /// An entry hex id of map.yaml.
    pub entry: String,
    pub mp_bonus: i32,
    pub artillery_mp_multiplier: i32,
    pub strategic_movement: bool,
    pub source: Option<String>,
    pub note: Option<String>,
}

impl<'a> Checker<'a> {
    pub(super) fn french_variable_entry(&mut self) {
        let v = &self.c.french_variable_entry;
        let e = &v.french_variable_entry;
        let f = FRENCH_VARIABLE_ENTRY;
        self.turn_list(f, "french_variable_entry.turns", &e.turns);
        let b: Vec<_> = e.outcomes.iter().map(|o| (o.min, o.max)).collect();
        self.roll_bands(f, "french_variable_entry.outcomes", &b, v.die, false);
        let entries = self.ctx.entry_hexes.clone();
        for (i, o) in e.outcomes.iter().enumerate() {
            let at = format!("french_variable_entry.outcomes[{i}]");
            self.context_ref(f, &format!("{at}.entry"), &o.entry, &entries, "an entry hex of map.yaml");
            if o.mp_bonus < 0 {
                self.p.add(f, format!("{at}.mp_bonus"), "an MP bonus is 0 or more");
            }
            if o.artillery_mp_multiplier < 1 {
                self.p.add(f, format!("{at}.artillery_mp_multiplier"), "a multiplier is 1 or more");
            }
        }
    }
}
