//! charts/tactics.yaml (12.5): the Tactics Chits and the Tactics Matrix.
//! The file's types, and what [`check`](super::check) verifies of it.

use super::*;

// tactics.yaml

/// `charts/tactics.yaml`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TacticsFile {
    pub source: String,
    pub rules: Vec<String>,
    /// 12.51, 12.52: the chits in each player's set.
    pub chits: Vec<Chit>,
    /// 12.54.
    pub illegal_chit: IllegalChit,
    /// 12.23 step 4.
    pub matrix: TacticsMatrix,
}

/// 12.52: one Tactics Chit and when it may be chosen.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Chit {
    pub id: String,
    pub name: String,
    /// Conditions the engine tests, all of which must hold (`leader`, `open-flank`).
    #[serde(default)]
    pub requires: Vec<String>,
    /// 12.52 exception, Savannah 4.15: conditions under which the chit may not be chosen.
    #[serde(default)]
    pub forbidden_when: Vec<Forbidden>,
    pub source: String,
    pub note: Option<String>,
}

/// A condition the engine tests that forbids a chit.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Forbidden {
    pub id: String,
    pub text: String,
    #[serde(default)]
    pub sides: Vec<String>,
    pub source: String,
}

/// 12.54: the tactics modifier when one or both chits are illegal.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IllegalChit {
    pub attacker_illegal: i32,
    pub defender_illegal: i32,
    pub both_illegal: i32,
    pub source: String,
    pub note: Option<String>,
}

/// 12.23 step 4: the Attacker's chit (row) against the Defender's (column).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TacticsMatrix {
    pub id: String,
    pub name: String,
    pub source: String,
    pub structure: Option<String>,
    pub note: Option<String>,
    /// Words a cell may hold instead of a DRM (`nc`: no combat, 12.23 step 4).
    pub results: Vec<String>,
    /// The Defender's chits.
    pub columns: Vec<String>,
    /// Attacker's chit to (Defender's chit to cell).
    pub rows: BTreeMap<String, BTreeMap<String, TacticsCell>>,
}

/// 12.23 step 4: a DRM (positive favours the Attacker) or a word of `results`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TacticsCell {
    Drm(i32),
    Result(String),
}

impl<'de> Deserialize<'de> for TacticsCell {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Scalar::deserialize(d)? {
            Scalar::Int(n) => TacticsCell::Drm(n),
            Scalar::Word(w) => TacticsCell::Result(w),
        })
    }
}

impl<'a> Checker<'a> {
    pub(super) fn tactics(&mut self) {
        let t = &self.c.tactics;
        let f = TACTICS;
        self.unique(f, "chits", t.chits.iter().map(|c| c.id.as_str()));
        let mut forbidden = BTreeMap::new();
        for (i, chit) in t.chits.iter().enumerate() {
            for (j, r) in chit.requires.iter().enumerate() {
                if !kebab(r) {
                    self.p.add(
                        f,
                        format!("chits[{i}].requires[{j}]"),
                        format!("'{r}' is not a kebab-case condition id"),
                    );
                }
            }
            for (j, fw) in chit.forbidden_when.iter().enumerate() {
                self.id(f, &mut forbidden, &format!("chits[{i}].forbidden_when[{j}]"), &fw.id);
                self.sides(f, &format!("chits[{i}].forbidden_when[{j}].sides"), &fw.sides);
            }
        }
        let chits: Vec<&str> = t.chits.iter().map(|c| c.id.as_str()).collect();
        let chit_set: BTreeSet<&str> = chits.iter().copied().collect();
        let m = &t.matrix;
        let words: BTreeSet<&str> = m.results.iter().map(String::as_str).collect();
        for (i, w) in m.results.iter().enumerate() {
            if !kebab(w) {
                self.p.add(f, format!("matrix.results[{i}]"), format!("'{w}' is not a kebab-case id"));
            }
            if chit_set.contains(w.as_str()) {
                self.p.add(
                    f,
                    format!("matrix.results[{i}]"),
                    format!("'{w}' is a chit id too; a result word must differ"),
                );
            }
        }
        for (i, col) in m.columns.iter().enumerate() {
            self.reference(f, &format!("matrix.columns[{i}]"), col, &chit_set, "a chit of chits");
            if m.columns[..i].contains(col) {
                self.p.add(f, format!("matrix.columns[{i}]"), format!("chit '{col}' has two columns"));
            }
        }
        for chit in &chits {
            if !m.columns.iter().any(|c| c == chit) {
                self.p.add(
                    f,
                    "matrix.columns",
                    format!("chit '{chit}' has no column: the Defender may play any chit (12.51)"),
                );
            }
        }
        let cells = chits.len() * chits.len();
        for a in &chits {
            let Some(row) = m.rows.get(*a) else {
                self.p.add(
                    f,
                    "matrix.rows",
                    format!("no row for the Attacker's chit '{a}': the matrix has all {cells} cells"),
                );
                continue;
            };
            for d in &chits {
                match row.get(*d) {
                    None => self.p.add(
                        f,
                        format!("matrix.rows.{a}"),
                        format!(
                            "no cell for the Attacker's '{a}' against the Defender's '{d}': the matrix has a \
                            cell for every pair of chits, {} x {} = {cells} (12.23 step 4)",
                            chits.len(),
                            chits.len()
                        ),
                    ),
                    Some(TacticsCell::Result(w)) if !words.contains(w.as_str()) => self.p.add(
                        f,
                        format!("matrix.rows.{a}.{d}"),
                        format!("'{w}' is neither a DRM nor one of results ({})", listing(&words)),
                    ),
                    Some(_) => {}
                }
            }
            for key in row.keys().filter(|k| !chit_set.contains(k.as_str())) {
                self.p.add(
                    f,
                    format!("matrix.rows.{a}.{key}"),
                    format!("'{key}' is not a chit; they are: {}", listing(&chits)),
                );
            }
        }
        for key in m.rows.keys().filter(|k| !chit_set.contains(k.as_str())) {
            self.p.add(
                f,
                format!("matrix.rows.{key}"),
                format!("'{key}' is not a chit; they are: {}", listing(&chits)),
            );
        }
    }
}
