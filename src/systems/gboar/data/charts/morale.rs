//! charts/army-morale.yaml (16: the Army Morale Track and Adjustment Chart) and
//! charts/morale-check.yaml (13.5, 15: the morale check and rally modifiers).
//! The file's types, and what [`check`](super::check) verifies of it.

use super::*;

// army-morale.yaml

/// `charts/army-morale.yaml`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArmyMoraleFile {
    pub source: String,
    pub rules: Vec<String>,
    pub track: Track,
    /// 16.2, 16.3: levels, lowest first, covering the track.
    pub levels: Vec<MoraleLevel>,
    /// 16.1: the Army Morale Adjustment Chart.
    pub adjustments: Adjustments,
}

/// The Army Morale Track.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Track {
    pub min: i32,
    pub max: i32,
    pub source: String,
    pub note: Option<String>,
}

/// 16.2: one level of the track.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoraleLevel {
    pub id: String,
    pub name: String,
    pub range: Range,
    /// 16.2: added to the Initiative roll.
    pub initiative_drm: Option<i32>,
    /// 15.32, 16.2: added to every unit's morale.
    pub unit_morale_modifier: Option<i32>,
    /// 16.3.
    #[serde(default)]
    pub ends_game: bool,
    pub source: String,
    pub note: Option<String>,
}

/// 16.1: the Army Morale Adjustment Chart.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Adjustments {
    pub id: String,
    pub name: String,
    pub source: String,
    pub entries: Vec<Adjustment>,
}

/// One adjustment: `affected` and `opponent`, or `from` another chart, or `same_as` another entry.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Adjustment {
    pub id: String,
    pub text: String,
    /// Added to the army that suffered the event.
    pub affected: Option<i32>,
    /// Added to the army that caused it.
    pub opponent: Option<i32>,
    pub per: Option<String>,
    pub from: Option<String>,
    pub same_as: Option<String>,
    pub source: String,
    pub note: Option<String>,
}

// morale-check.yaml

/// `charts/morale-check.yaml`: 13.5, 15 (positive helps the unit).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoraleCheckFile {
    pub source: String,
    pub rules: Vec<String>,
    pub die: Die,
    /// 13.5: a modified roll of at least this passes.
    pub pass_at_least: i32,
    pub modifiers: Vec<Drm>,
    /// Checks the rules call for (the engine triggers them).
    #[serde(default)]
    pub triggered_checks: Vec<TriggeredCheck>,
    /// 15.32: changes to the unit's morale itself.
    #[serde(default)]
    pub unit_morale_modifiers: Vec<Drm>,
}

/// A morale check a rule calls for.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TriggeredCheck {
    pub id: String,
    pub text: String,
    pub source: String,
}

impl<'a> Checker<'a> {
    pub(super) fn army_morale(&mut self) {
        let a = &self.c.army_morale;
        let f = ARMY_MORALE;
        self.unique(f, "levels", a.levels.iter().map(|l| l.id.as_str()));
        if a.track.min > a.track.max {
            self.p.add(f, "track", format!("track min {} is above max {}", a.track.min, a.track.max));
        }
        let bands: Vec<_> = a.levels.iter().map(|l| (Some(l.range.min), Some(l.range.max))).collect();
        let at = |i: usize| format!("levels[{i}].range");
        self.bands(f, "levels", &at, &bands, Domain::Exactly(a.track.min, a.track.max));
        for (i, l) in a.levels.iter().enumerate() {
            if !l.ends_game && (l.initiative_drm.is_none() || l.unit_morale_modifier.is_none()) {
                self.p.add(
                    f,
                    format!("levels[{i}]"),
                    format!(
                        "'{}' does not end the game, so it gives initiative_drm and unit_morale_modifier (16.2)",
                        l.id
                    ),
                );
            }
        }
        let entries = &a.adjustments.entries;
        self.unique(f, "adjustments.entries", entries.iter().map(|e| e.id.as_str()));
        let ids: BTreeSet<&str> = entries.iter().map(|e| e.id.as_str()).collect();
        for (i, e) in entries.iter().enumerate() {
            let at = format!("adjustments.entries[{i}]");
            let values = e.affected.is_some() || e.opponent.is_some();
            let kinds = [values, e.from.is_some(), e.same_as.is_some()].iter().filter(|k| **k).count();
            if kinds != 1 {
                self.p.add(
                    f,
                    &at,
                    format!(
                        "'{}': an adjustment has affected and opponent, or from, or same_as - exactly one of them",
                        e.id
                    ),
                );
            } else if values && (e.affected.is_none() || e.opponent.is_none()) {
                self.p.add(f, &at, format!("'{}' gives both affected and opponent (16.1)", e.id));
            }
            if let Some(from) = &e.from {
                self.check_from_path(f, &format!("{at}.from"), from);
            }
            if let Some(same) = &e.same_as {
                if same == &e.id {
                    self.p.add(f, format!("{at}.same_as"), "an adjustment cannot be the same as itself");
                } else {
                    self.reference(f, &format!("{at}.same_as"), same, &ids, "an adjustment of this chart");
                }
            }
            if let Some(per) = &e.per {
                if !kebab(per) {
                    self.p.add(f, format!("{at}.per"), format!("'{per}' is not a kebab-case id"));
                }
            }
        }
    }

    pub(super) fn morale_check(&mut self) {
        let m = &self.c.morale_check;
        let f = MORALE_CHECK;
        self.drms(f, "modifiers", &m.modifiers);
        self.drms(f, "unit_morale_modifiers", &m.unit_morale_modifiers);
        self.unique(f, "triggered_checks", m.triggered_checks.iter().map(|t| t.id.as_str()));
    }
}
