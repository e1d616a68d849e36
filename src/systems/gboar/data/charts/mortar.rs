//! charts/mortar.yaml (Savannah 4.12): the Mortar tables.
//! The file's types, and what [`check`](super::check) verifies of it.

use super::*;

// mortar.yaml

/// `charts/mortar.yaml`: Savannah 4.12.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MortarFile {
    pub source: String,
    pub rules: Vec<String>,
    pub die: Die,
    pub rules_summary: MortarSummary,
    pub mortar_to_hit: ToHitTable,
    pub scatter_and_drift: ScatterAndDrift,
    pub mortar_disable: ResultTable,
}

/// Savannah 4.12, as printed.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MortarSummary {
    pub source: String,
    pub range: Range,
    pub needs_los: bool,
    pub combines_with_other_artillery: bool,
    pub targets: String,
    /// Fire DRM ids of fire.yaml that mortars ignore.
    pub ignores_fire_drms: Vec<String>,
    pub tactical_turns_move_or_fire: bool,
    /// Result codes that call for the Mortar Disable roll.
    pub disable_on_results: Vec<String>,
}

/// Savannah 4.12: where the shells land (unmodified roll).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScatterAndDrift {
    pub id: String,
    pub name: String,
    pub source: String,
    pub note: Option<String>,
    pub outcomes: Vec<ScatterOutcome>,
    pub directions: Vec<String>,
    pub directions_note: Option<String>,
}

/// A band of the Scatter & Drift Table.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScatterOutcome {
    pub min: Option<i32>,
    pub max: Option<i32>,
    pub lands: Landing,
    pub direction: Option<String>,
    pub distance: Option<u32>,
    pub source: Option<String>,
    pub note: Option<String>,
}

/// Savannah 4.12: on the target hex, or drifting from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Landing {
    OnTarget,
    Drift,
}

/// A table of roll bands giving results defined in the table itself
/// (Mortar Disable, Covered Way Lost).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResultTable {
    pub id: String,
    pub name: String,
    pub source: String,
    pub note: Option<String>,
    /// Without DRMs the roll is unmodified and the bands cover 0-9.
    #[serde(default)]
    pub drms: Vec<Drm>,
    pub outcomes: Vec<ResultOutcome>,
    pub results: Vec<IdText>,
}

/// A band of rolls and its result id.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResultOutcome {
    pub min: Option<i32>,
    pub max: Option<i32>,
    pub result: String,
    pub source: Option<String>,
    pub note: Option<String>,
}

impl<'a> Checker<'a> {
    pub(super) fn mortar(&mut self) {
        let m = &self.c.mortar;
        let f = MORTAR;
        let range = m.rules_summary.range;
        if range.min < 1 || range.min > range.max {
            self.p.add(
                f,
                "rules_summary.range",
                format!("range {} to {}: a range runs from 1 up, min to max", range.min, range.max),
            );
        }
        self.check_to_hit(f, "mortar_to_hit", &m.mortar_to_hit);
        let ranges = &m.mortar_to_hit.ranges;
        let one_each = ranges.iter().enumerate().all(|(i, r)| i64::from(*r) == i64::from(range.min) + i as i64);
        if !one_each || ranges.last().map(|r| i64::from(*r)) != Some(i64::from(range.max)) {
            self.p.add(
                f,
                "mortar_to_hit.ranges",
                format!(
                    "ranges {ranges:?}: rules_summary.range is {} to {}, so the table has one column per \
                    range from {} to {}",
                    range.min, range.max, range.min, range.max
                ),
            );
        }
        let fire_drms: BTreeSet<&str> = self.c.fire.fire_drms.entries.iter().map(|d| d.id.as_str()).collect();
        for (i, d) in m.rules_summary.ignores_fire_drms.iter().enumerate() {
            self.reference(
                f,
                &format!("rules_summary.ignores_fire_drms[{i}]"),
                d,
                &fire_drms,
                "a fire DRM of fire.yaml",
            );
        }
        let codes = self.codes.clone();
        for (i, r) in m.rules_summary.disable_on_results.iter().enumerate() {
            self.reference(
                f,
                &format!("rules_summary.disable_on_results[{i}]"),
                r,
                &codes,
                "a result code of codes.yaml",
            );
        }
        let s = &m.scatter_and_drift;
        self.unique(f, "scatter_and_drift.directions", s.directions.iter().map(String::as_str));
        let b: Vec<_> = s.outcomes.iter().map(|o| (o.min, o.max)).collect();
        self.roll_bands(f, "scatter_and_drift.outcomes", &b, m.die, false);
        let directions: BTreeSet<&str> = s.directions.iter().map(String::as_str).collect();
        for (i, o) in s.outcomes.iter().enumerate() {
            let at = format!("scatter_and_drift.outcomes[{i}]");
            match o.lands {
                Landing::OnTarget => {
                    if o.direction.is_some() || o.distance.is_some() {
                        self.p.add(f, &at, "shells landing on target have no direction or distance");
                    }
                }
                Landing::Drift => {
                    match &o.direction {
                        Some(d) => self.reference(f, &format!("{at}.direction"), d, &directions, "one of directions"),
                        None => self.p.add(f, &at, "drift needs a direction"),
                    }
                    if o.distance.unwrap_or(0) == 0 {
                        self.p.add(f, &at, "drift needs a distance of 1 hex or more");
                    }
                }
            }
        }
        self.result_table(f, "mortar_disable", &m.mortar_disable, m.die);
    }
}
