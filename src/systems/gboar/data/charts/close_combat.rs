//! charts/close-combat.yaml and charts/close-combat-drms.yaml (12.23): the Close Combat
//! Table and DRM Chart, and the reach of the modified close combat roll.
//! The file's types, and what [`check`](super::check) verifies of it.

use super::*;

// close-combat.yaml

/// `charts/close-combat.yaml`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CloseCombatFile {
    pub source: String,
    pub rules: Vec<String>,
    pub die: Die,
    pub close_combat_table: CloseCombatTable,
}

/// 12.23 step 5: the Close Combat Table.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CloseCombatTable {
    pub id: String,
    pub name: String,
    pub source: String,
    pub structure: Option<String>,
    /// 12.23 step 1: odds columns, lowest first, so a diversion (12.14) can shift one left.
    pub columns: Vec<OddsColumn>,
    /// The column used for odds below the lowest (and a shift left from it).
    pub below_lowest: String,
    /// The column used for odds above the highest.
    pub above_highest: String,
    pub note: Option<String>,
    /// 12.23 step 8, 12.63.
    pub momentum: Momentum,
    /// The modified rolls the rows run over.
    pub rolls: Range,
    /// One row per modified roll, every column in every row.
    pub rows: Vec<CloseCombatRow>,
}

/// 12.23 step 1: the column is the highest whose `[a, d]` satisfies
/// `attacker_sp * d >= defender_sp * a` (rounded for the Defender).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OddsColumn {
    /// `a-d`, e.g. `3-2`.
    pub id: String,
    pub odds: [u32; 2],
    pub source: String,
}

/// 12.63: momentum on the final modified roll.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Momentum {
    pub defender_gains_at_most: i32,
    pub attacker_gains_at_least: i32,
    pub source: String,
    pub note: Option<String>,
}

/// One modified roll of the Close Combat Table: column id to cell.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CloseCombatRow {
    pub roll: i32,
    pub results: BTreeMap<String, CloseCombatCell>,
    pub note: Option<String>,
}

/// 12.23 step 5: `[[Attacker's results], [Defender's results]]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(from = "(Vec<String>, Vec<String>)")]
pub struct CloseCombatCell {
    pub attacker: Vec<String>,
    pub defender: Vec<String>,
}

impl From<(Vec<String>, Vec<String>)> for CloseCombatCell {
    fn from((attacker, defender): (Vec<String>, Vec<String>)) -> Self {
        CloseCombatCell { attacker, defender }
    }
}

// close-combat-drms.yaml

/// `charts/close-combat-drms.yaml`: positive favours the Attacker (12.63).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CloseCombatDrmsFile {
    pub source: String,
    pub rules: Vec<String>,
    pub close_combat_drms: CloseCombatDrms,
}

/// 12.23 step 3 and the exclusive rules that add to it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CloseCombatDrms {
    pub id: String,
    pub name: String,
    pub source: String,
    pub note: Option<String>,
    pub entries: Vec<Drm>,
    /// Savannah 4.16, 4.17: the colour groups that count as Regulars.
    pub regulars: Regulars,
}

/// Savannah 4.16, 4.17: colour groups (module.yaml) that count as Regulars.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Regulars {
    pub groups: Vec<String>,
    /// Savannah 4.16: British Regulars for Irish Ferocity.
    #[serde(default)]
    pub british_regulars: Vec<String>,
    pub source: String,
    pub note: Option<String>,
}

// The reach of the close combat roll

/// 12.23 step 5: the lowest and highest modified close combat roll the DRMs
/// can make, and what makes them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reach {
    pub min: i32,
    pub max: i32,
    /// The die's lowest face, then every DRM (or group) that lowers the roll, with its worst value.
    pub lowest: Vec<(String, i32)>,
    /// The die's highest face, then every DRM (or group) that raises the roll.
    pub highest: Vec<(String, i32)>,
}

/// The `from:` paths of close combat DRMs the reach knows how to read.
pub(super) const CLOSE_COMBAT_FROM: &str =
    "terrain.yaml hexes[].close_combat_drm, terrain.yaml hexsides[].close_combat_drm, \
     terrain.yaml features[<id>].close_combat_drm, weather.yaml conditions[].close_combat_drm, tactics.yaml matrix, \
     or counter ... with sign and bounds";

impl Charts {
    /// 12.23, 12.63: the reach of the modified close combat roll, as
    /// charts.md defines it: the die's faces plus the sum of every negative
    /// (positive) DRM, one entry per `group`, with terrain taken from the
    /// worst hex and the worst hexside combination of the map. A DRM whose
    /// values cannot be found is returned with why, by its index.
    pub fn close_combat_reach(&self, context: &Context) -> Result<Reach, Vec<(usize, String)>> {
        let (face_min, face_max) = self.close_combat.die.faces();
        let mut groups: BTreeMap<String, (i32, i32)> = BTreeMap::new();
        let mut order: Vec<String> = Vec::new();
        let mut errors = Vec::new();
        for (i, drm) in self.close_combat_drms.close_combat_drms.entries.iter().enumerate() {
            match self.close_combat_values(drm, context) {
                Ok(values) => {
                    let lo = values.iter().copied().fold(0, i32::min);
                    let hi = values.iter().copied().fold(0, i32::max);
                    let name = drm.group.clone().unwrap_or_else(|| drm.id.clone());
                    let span = groups.entry(name.clone()).or_insert_with(|| {
                        order.push(name);
                        (0, 0)
                    });
                    *span = (span.0.min(lo), span.1.max(hi));
                }
                Err(why) => errors.push((i, why)),
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let mut reach = Reach {
            min: face_min,
            max: face_max,
            lowest: vec![("die".to_string(), face_min)],
            highest: vec![("die".to_string(), face_max)],
        };
        for name in order {
            let (lo, hi) = groups.get(&name).copied().unwrap_or_default();
            if lo < 0 {
                reach.min = reach.min.saturating_add(lo);
                reach.lowest.push((name.clone(), lo));
            }
            if hi > 0 {
                reach.max = reach.max.saturating_add(hi);
                reach.highest.push((name, hi));
            }
        }
        Ok(reach)
    }

    /// Every value a close combat DRM can take.
    fn close_combat_values(&self, drm: &Drm, context: &Context) -> Result<Vec<i32>, String> {
        let mut values = if let Some(v) = drm.value {
            vec![v]
        } else if let Some(schedule) = &drm.schedule {
            schedule.iter().map(|s| s.value).collect()
        } else if let Some(from) = &drm.from {
            self.close_combat_from(from, drm, context)?
        } else {
            return Err("has no value, schedule or from".to_string());
        };
        if drm.per.is_some() || drm.per_hexes.is_some() {
            match drm.max {
                Some(max) => values.push(max),
                None => return Err("counts once per thing, with no max: its reach is unbounded".to_string()),
            }
        }
        Ok(values)
    }

    fn close_combat_from(&self, from: &str, drm: &Drm, context: &Context) -> Result<Vec<i32>, String> {
        let mut words = from.split_whitespace();
        let file = words.next().unwrap_or("");
        let path = words.next().unwrap_or("");
        let t = &self.terrain;
        let field_ok = path.ends_with("].close_combat_drm");
        let values = match file {
            "counter" => match (drm.sign, drm.bounds) {
                (Some(sign), Some(b)) => vec![sign.saturating_mul(b.min), sign.saturating_mul(b.max)],
                _ => return Err("reads a counter, so needs sign and bounds for the table's reach".to_string()),
            },
            "terrain.yaml" if path.starts_with("hexes[]") && field_ok => t
                .hexes
                .iter()
                .map(|h| h.close_combat_drm)
                .chain(t.areas.iter().filter_map(|a| a.overrides.close_combat_drm))
                .collect(),
            "terrain.yaml" if path.starts_with("hexsides[]") && field_ok => {
                let (lo, hi) = self.hexside_close_combat_span(context);
                vec![lo, hi]
            }
            "terrain.yaml" if path.starts_with("features[") && field_ok => {
                let id = selector(path).unwrap_or("");
                match t.features.iter().find(|f| f.id == id) {
                    Some(f) => f.close_combat_drm.into_iter().collect(),
                    None => return Err(format!("terrain.yaml has no feature '{id}'")),
                }
            }
            "weather.yaml" if path.starts_with("conditions[]") && field_ok => {
                self.weather.conditions.iter().map(|c| c.close_combat_drm).collect()
            }
            "tactics.yaml" if path.starts_with("matrix") => {
                let i = &self.tactics.illegal_chit;
                self.tactics
                    .matrix
                    .rows
                    .values()
                    .flat_map(|row| row.values())
                    .filter_map(|c| match c {
                        TacticsCell::Drm(n) => Some(*n),
                        TacticsCell::Result(_) => None,
                    })
                    .chain([i.attacker_illegal, i.defender_illegal, i.both_illegal])
                    .collect()
            }
            _ => return Err(format!("the reach cannot read from '{from}': it reads {CLOSE_COMBAT_FROM}")),
        };
        Ok(values)
    }

    /// 9.4: the worst and best close combat DRM of crossing one hexside of
    /// the map, features added up, a combined type (`combines`) standing for
    /// its parts. Each feature counts with its worst (best) direction or its
    /// breached state, so a hexside whose features belong to opposite hexes
    /// is counted conservatively. Without a map, each feature alone.
    fn hexside_close_combat_span(&self, context: &Context) -> (i32, i32) {
        let t = &self.terrain;
        let combinations: Vec<BTreeSet<String>> = match &context.hexside_combinations {
            Some(c) => c.iter().cloned().collect(),
            None => t.hexsides.iter().map(|h| BTreeSet::from([h.id.clone()])).collect(),
        };
        let (mut lo, mut hi) = (0, 0);
        for combination in combinations {
            let (mut sum_lo, mut sum_hi) = (0, 0);
            for id in self.combined(combination) {
                let Some(feature) = t.hexsides.iter().find(|h| h.id == id) else { continue };
                let mut options: Vec<i32> = if feature.directional {
                    [feature.into, feature.out_of].iter().flatten().map(|e| e.close_combat_drm).collect()
                } else {
                    feature.close_combat_drm.into_iter().collect()
                };
                if feature.breachable {
                    options.extend(t.breached.as_ref().map(|b| b.close_combat_drm));
                }
                sum_lo = options.iter().copied().min().unwrap_or(0).saturating_add(sum_lo);
                sum_hi = options.iter().copied().max().unwrap_or(0).saturating_add(sum_hi);
            }
            lo = lo.min(sum_lo);
            hi = hi.max(sum_hi);
        }
        (lo, hi)
    }

    /// 9.4: a hexside with every part of a combined type uses that type and
    /// ignores the parts.
    fn combined(&self, mut features: BTreeSet<String>) -> BTreeSet<String> {
        for c in self.terrain.hexsides.iter().filter(|h| !h.combines.is_empty()) {
            if c.combines.iter().all(|part| features.contains(part)) {
                features.insert(c.id.clone());
            }
            if features.contains(&c.id) {
                for part in &c.combines {
                    features.remove(part);
                }
            }
        }
        features
    }
}

/// `features[covered-way].fire_drm` → `covered-way`; `hexes[].x` → None.
pub(super) fn selector(path: &str) -> Option<&str> {
    let start = path.find('[')? + 1;
    let end = start + path[start..].find(']')?;
    Some(&path[start..end]).filter(|s| !s.is_empty())
}

impl<'a> Checker<'a> {
    pub(super) fn close_combat(&mut self) {
        let t = &self.c.close_combat.close_combat_table;
        let (f, n) = (CLOSE_COMBAT, "close_combat_table");
        self.unique(f, &format!("{n}.columns"), t.columns.iter().map(|c| c.id.as_str()));
        for (i, col) in t.columns.iter().enumerate() {
            let [a, d] = col.odds;
            if a == 0 || d == 0 {
                self.p.add(f, format!("{n}.columns[{i}].odds"), format!("odds [{a}, {d}]: both numbers are 1 or more"));
                continue;
            }
            let want = format!("{a}-{d}");
            if col.id != want {
                self.p.add(
                    f,
                    format!("{n}.columns[{i}].id"),
                    format!("column '{}' has odds [{a}, {d}], so its id is '{want}'", col.id),
                );
            }
            if let Some(prev) = i.checked_sub(1).and_then(|j| t.columns.get(j)) {
                let [pa, pd] = prev.odds;
                if u64::from(pa) * u64::from(d) >= u64::from(a) * u64::from(pd) {
                    self.p.add(
                        f,
                        format!("{n}.columns[{i}].odds"),
                        format!(
                            "odds {a}:{d} are not above the column before ({pa}:{pd}): columns run from the \
                            lowest odds to the highest, so that a diversion (12.14) shifts one left"
                        ),
                    );
                }
            }
        }
        let columns: Vec<&str> = t.columns.iter().map(|c| c.id.as_str()).collect();
        let column_set: BTreeSet<&str> = columns.iter().copied().collect();
        self.reference(f, &format!("{n}.below_lowest"), &t.below_lowest, &column_set, "an odds column");
        self.reference(f, &format!("{n}.above_highest"), &t.above_highest, &column_set, "an odds column");
        let m = &t.momentum;
        if m.defender_gains_at_most >= m.attacker_gains_at_least {
            self.p.add(
                f,
                format!("{n}.momentum"),
                format!(
                    "the Defender gains at {} or less and the Attacker at {} or more: one roll would give both (12.63)",
                    m.defender_gains_at_most, m.attacker_gains_at_least
                ),
            );
        }
        let rolls = t.rolls;
        if rolls.min > rolls.max {
            self.p.add(f, format!("{n}.rolls"), format!("rolls min {} is above max {}", rolls.min, rolls.max));
        }
        let mut seen: BTreeMap<i32, usize> = BTreeMap::new();
        for (i, row) in t.rows.iter().enumerate() {
            let at = format!("{n}.rows[{i}]");
            if row.roll < rolls.min || row.roll > rolls.max {
                self.p.add(
                    f,
                    format!("{at}.roll"),
                    format!("roll {} is outside rolls {} to {}", row.roll, rolls.min, rolls.max),
                );
            }
            if let Some(j) = seen.get(&row.roll) {
                self.p.add(f, format!("{at}.roll"), format!("roll {} has two rows ({n}.rows[{j}] too)", row.roll));
            } else {
                if i > 0 && t.rows[i - 1].roll > row.roll {
                    self.p.add(
                        f,
                        format!("{at}.roll"),
                        format!(
                            "roll {} after roll {}: the rows run from the lowest roll to the highest",
                            row.roll,
                            t.rows[i - 1].roll
                        ),
                    );
                }
                seen.insert(row.roll, i);
            }
            for col in &columns {
                if !row.results.contains_key(*col) {
                    self.p.add(
                        f,
                        format!("{at}.results"),
                        format!(
                            "no result for column {col} at roll {}: every row has all {} columns ({})",
                            row.roll,
                            columns.len(),
                            listing(&columns)
                        ),
                    );
                }
            }
            for (key, cell) in &row.results {
                let here = format!("{at}.results.{key}");
                if !column_set.contains(key.as_str()) {
                    self.p.add(f, &here, format!("'{key}' is not an odds column; they are: {}", listing(&columns)));
                    continue;
                }
                self.results(f, &format!("{here}[0]"), &cell.attacker);
                self.results(f, &format!("{here}[1]"), &cell.defender);
                if cell.attacker.iter().any(|c| c == PIN) != cell.defender.iter().any(|c| c == PIN) {
                    self.p.add(
                        f,
                        &here,
                        format!("{PIN} in one half only: it is in both halves of a cell or in neither (13.1)"),
                    );
                }
            }
        }
        // Missing rolls, one problem per run of them (in i64: rolls may end at i32::MAX).
        let (lo, hi) = (i64::from(rolls.min), i64::from(rolls.max));
        let mut expected = lo;
        let present = seen.keys().map(|r| i64::from(*r)).filter(|r| (lo..=hi).contains(r));
        for next in present.chain([hi + 1]) {
            if next > expected {
                let run =
                    if next - 1 == expected { format!("{expected}") } else { format!("{expected} to {}", next - 1) };
                let at = t.rows.iter().position(|row| i64::from(row.roll) > expected);
                self.p.add(
                    f,
                    at.map_or(format!("{n}.rows"), |i| format!("{n}.rows[{i}]")),
                    format!("no row for roll {run}: the table has one row per modified roll from {lo} to {hi} (rolls)"),
                );
            }
            expected = next + 1;
        }
        match self.c.close_combat_reach(self.ctx) {
            Ok(reach) if reach.min < rolls.min || reach.max > rolls.max => {
                let explain = |parts: &[(String, i32)]| listing(parts.iter().map(|(name, v)| format!("{name} {v:+}")));
                self.p.add(
                    f,
                    format!("{n}.rolls"),
                    format!(
                        "the DRMs reach {} to {} (lowest: {}; highest: {}), beyond rolls {} to {}: the table \
                            needs a row for every roll from {} to {} (12.23)",
                        reach.min,
                        reach.max,
                        explain(&reach.lowest),
                        explain(&reach.highest),
                        rolls.min,
                        rolls.max,
                        reach.min.min(rolls.min),
                        reach.max.max(rolls.max)
                    ),
                );
            }
            Ok(_) => {}
            Err(list) => {
                for (i, why) in list {
                    self.p.add(
                        CLOSE_COMBAT_DRMS,
                        format!("close_combat_drms.entries[{i}]"),
                        format!("{why}; the Close Combat Table's reach (12.23) cannot be checked"),
                    );
                }
            }
        }
    }

    pub(super) fn close_combat_drms(&mut self) {
        let d = &self.c.close_combat_drms.close_combat_drms;
        let f = CLOSE_COMBAT_DRMS;
        self.drms(f, "close_combat_drms.entries", &d.entries);
        let groups = self.ctx.colour_groups.clone();
        for (i, g) in d.regulars.groups.iter().enumerate() {
            self.context_ref(
                f,
                &format!("close_combat_drms.regulars.groups[{i}]"),
                g,
                &groups,
                "a colour group of module.yaml",
            );
        }
        let regulars: BTreeSet<&str> = d.regulars.groups.iter().map(String::as_str).collect();
        for (i, g) in d.regulars.british_regulars.iter().enumerate() {
            self.reference(
                f,
                &format!("close_combat_drms.regulars.british_regulars[{i}]"),
                g,
                &regulars,
                "one of regulars.groups",
            );
        }
    }
}
