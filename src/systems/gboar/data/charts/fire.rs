//! charts/fire.yaml (10.3, 11.3): the Fire Table, both Fire Damage Tables, the Fire Combat DRMs.
//! The file's types, and what [`check`](super::check) verifies of it.

use super::*;

// fire.yaml

/// `charts/fire.yaml`: Rifle Fire (10) and Defensive Artillery Fire (11).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FireFile {
    pub source: String,
    pub rules: Vec<String>,
    pub die: Die,
    /// 10.3 step 1, 11.2: SPs against range gives the To Hit number.
    pub fire_table: ToHitTable,
    /// 10.3 step 3: read with an unmodified roll.
    pub rifle_fire_damage: DamageTable,
    /// 11.3 step 3: read with an unmodified roll (also French mortars, Savannah 4.12).
    pub artillery_fire_damage: DamageTable,
    /// 10.3 step 2, 11.3 step 2: positive helps the firer.
    pub fire_drms: DrmTable,
}

/// 10.3, 11.2; Savannah 4.12: a To Hit table, SP bands against range.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToHitTable {
    pub id: String,
    pub name: String,
    pub source: String,
    pub structure: Option<String>,
    pub note: Option<String>,
    /// 11.2: ranges in hexes counting the target's hex; 1 is 10.3's 'adjacent'.
    pub ranges: Vec<u32>,
    pub rows: Vec<ToHitRow>,
}

/// One SP band: a hit is a modified roll equal to or greater than the number (10.3 step 2).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToHitRow {
    /// SP bands from 1 up, the last open.
    pub sp: Band,
    /// Range to To Hit number, for every range of the table.
    pub to_hit: BTreeMap<u32, i32>,
    pub source: Option<String>,
    pub note: Option<String>,
}

/// 10.3 step 3, 11.3 step 3: a Fire Damage Table, one row per unmodified roll.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DamageTable {
    pub id: String,
    pub name: String,
    pub source: String,
    pub structure: Option<String>,
    pub note: Option<String>,
    pub rows: Vec<DamageRow>,
}

/// 13.1: the rows carrying `leader-casualty` are the table's leader casualty numbers.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DamageRow {
    pub roll: i32,
    pub result: Vec<String>,
    pub source: Option<String>,
    pub note: Option<String>,
}

impl<'a> Checker<'a> {
    pub(super) fn fire(&mut self) {
        let fire = &self.c.fire;
        self.check_to_hit(FIRE, "fire_table", &fire.fire_table);
        for (name, t) in
            [("rifle_fire_damage", &fire.rifle_fire_damage), ("artillery_fire_damage", &fire.artillery_fire_damage)]
        {
            let (lo, hi) = fire.die.faces();
            for (i, row) in t.rows.iter().enumerate() {
                let at = format!("{name}.rows[{i}]");
                if row.roll < lo || row.roll > hi {
                    self.p.add(
                        FIRE,
                        format!("{at}.roll"),
                        format!("roll {}: the table is read with an unmodified roll, {lo} to {hi}", row.roll),
                    );
                } else if let Some(j) = t.rows[..i].iter().position(|r| r.roll == row.roll) {
                    self.p.add(
                        FIRE,
                        format!("{at}.roll"),
                        format!("roll {} has two rows ({name}.rows[{j}] too)", row.roll),
                    );
                } else if i > 0 && t.rows[i - 1].roll > row.roll {
                    self.p.add(
                        FIRE,
                        format!("{at}.roll"),
                        format!("roll {} after roll {}: the rows run in order", row.roll, t.rows[i - 1].roll),
                    );
                }
                self.results(FIRE, &format!("{at}.result"), &row.result);
            }
            for n in lo..=hi {
                if !t.rows.iter().any(|r| r.roll == n) {
                    self.p.add(
                        FIRE,
                        format!("{name}.rows"),
                        format!(
                            "no row for roll {n}: one row per unmodified roll {lo} to {hi} (10.3 step 3, 11.3 step 3)"
                        ),
                    );
                }
            }
        }
        self.drms(FIRE, "fire_drms.entries", &fire.fire_drms.entries);
    }
}
