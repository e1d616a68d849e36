//! Counters (`counters.yaml`) and a scenario's set-up (`scenarios/*.yaml`),
//! as far as the map picture needs them: who stands where at the start.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::base::error::{Error, Located, Result};
use crate::base::hex::HexId;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CountersFile {
    #[serde(default)]
    pub source: Option<String>,
    pub counters: Vec<Counter>,
    /// The Order of Battle mapped onto counters (read by the rule-text test).
    #[serde(default)]
    pub order_of_battle: crate::base::yaml::Value,
}

/// One counter: a unit or a leader, with the values printed on it
/// (docs/module-format/counters.md). Unknown fields are refused, so that a
/// misspelt value is reported rather than silently ignored.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Counter {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub aliases: Vec<Unkept>,
    pub army: String,
    #[serde(default)]
    pub colour_group: Option<String>,
    #[serde(rename = "type")]
    pub kind: String,
    /// Series 3.2, 12.23 step 3: white or black R; none for other units.
    #[serde(default)]
    pub rifle_mark: Option<String>,
    #[serde(default)]
    pub steps: Option<u8>,
    #[serde(default)]
    pub strength: Option<Sides>,
    /// Musket/rifle units: the rifle fire value (series 3.2).
    #[serde(default)]
    pub rifle_strength: Option<Sides>,
    #[serde(default)]
    pub morale: Option<Sides>,
    #[serde(default)]
    pub movement: Option<i32>,
    /// Leaders: stars (series 3.2), close combat and leadership DRMs (14.21, 14.23).
    #[serde(default)]
    pub rank: Option<i32>,
    #[serde(default)]
    pub close_combat_drm: Option<i32>,
    #[serde(default)]
    pub leadership_drm: Option<i32>,
    /// Savannah 4.18: a demi-leader's star.
    #[serde(default)]
    pub demi_leader: Option<DemiLeader>,
    /// Savannah 4.18: whom a leader may stack with and command.
    #[serde(default)]
    pub commands: Option<Commands>,
    /// The printed at-start location.
    #[serde(default)]
    pub setup: Option<Placement>,
    #[serde(default)]
    pub campaign_setup: Option<Placement>,
    /// The printed turn and letter of entry (series 9.61).
    #[serde(default)]
    pub entry: Option<Entry>,
    /// A replacement counter: the counter it substitutes for (Savannah 4.8).
    #[serde(default)]
    pub replaces: Option<String>,
    #[serde(default)]
    pub optional: Option<Optional>,
    #[serde(default)]
    pub casualty: Option<Casualty>,
    /// Rule hooks (docs/module-format/counters.md, "Tags").
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub rules: Vec<Unkept>,
    #[serde(default)]
    pub source: Option<Unkept>,
    #[serde(default)]
    pub stand_in: Vec<Unkept>,
    #[serde(default)]
    pub note: Option<Unkept>,
}

/// A text of a counter that only people read (its aliases, the rules it
/// cites, its source, its stand-ins, a note): checked as a `String` field
/// is (any scalar's text; a list or a mapping is refused, with the same
/// words), but not kept. A counters file has some two thousand of them,
/// read at every command.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Unkept;

impl<'de> Deserialize<'de> for Unkept {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
        struct Text;
        impl serde::de::Visitor<'_> for Text {
            type Value = Unkept;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                // As serde's visitor of a String says it.
                f.write_str("a string")
            }
            fn visit_str<E: serde::de::Error>(self, _: &str) -> std::result::Result<Unkept, E> {
                Ok(Unkept)
            }
            fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> std::result::Result<Unkept, E> {
                match std::str::from_utf8(v) {
                    Ok(_) => Ok(Unkept),
                    Err(_) => Err(E::invalid_value(serde::de::Unexpected::Bytes(v), &self)),
                }
            }
        }
        deserializer.deserialize_string(Text)
    }
}

/// A value printed on the full-strength and the reduced side.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sides {
    pub full: i32,
    #[serde(default)]
    pub reduced: Option<i32>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Placement {
    pub hex: String,
    #[serde(default)]
    pub source: Option<Unkept>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub turn: u32,
    pub letter: String,
    #[serde(default)]
    pub source: Option<Unkept>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DemiLeader {
    pub applies_to: Vec<String>,
    #[serde(default)]
    pub only_in_hex: Option<String>,
    #[serde(default)]
    pub lost_when: Vec<String>,
    #[serde(default)]
    pub source: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Commands {
    #[serde(default)]
    pub colour_groups: Vec<String>,
    #[serde(default)]
    pub types: Vec<String>,
    #[serde(default)]
    pub source: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Optional {
    pub appears_by: String,
    #[serde(default)]
    pub source: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Casualty {
    #[serde(default)]
    pub vp_halves: Option<i32>,
    #[serde(default)]
    pub army_morale: Option<bool>,
    #[serde(default)]
    pub source: Option<String>,
}

/// The artillery types of the series (3.2, 7.1: one artillery unit per
/// hex whatever its SPs).
pub const ARTILLERY_TYPES: &[&str] = &["artillery", "naval-artillery", "mortar"];

impl Counter {
    pub fn is_leader(&self) -> bool {
        self.kind == "leader"
    }

    pub fn is_artillery(&self) -> bool {
        ARTILLERY_TYPES.contains(&self.kind.as_str())
    }

    /// Savannah 4.18: whether this leader may stack with and command
    /// `unit`: any unit when the counter gives no `commands`, else a unit
    /// of one of its colour groups or types. Other leaders are not
    /// commanded and stack freely (14.1).
    pub fn may_command(&self, unit: &Counter) -> bool {
        let Some(commands) = &self.commands else { return true };
        unit.is_leader()
            || unit.colour_group.as_ref().is_some_and(|g| commands.colour_groups.contains(g))
            || commands.types.contains(&unit.kind)
    }

    /// 7.1: the SPs and artillery units the counter counts for stacking
    /// with `steps` left: its reduced SPs once it has lost a step, one
    /// artillery unit whatever its SPs, nothing for a leader unless the
    /// module counts leaders.
    pub fn stacking_weight(&self, steps: u8, leaders_count: bool) -> (i32, i32) {
        if self.is_leader() && !leaders_count {
            return (0, 0);
        }
        if self.is_artillery() {
            return (0, 1);
        }
        (self.strength_points(steps), 0)
    }

    /// The counter's printed Strength Points with `steps` left: full, or
    /// reduced once it has lost a step; an artillery unit's too.
    pub fn strength_points(&self, steps: u8) -> i32 {
        match self.strength {
            _ if steps == 0 => 0,
            Some(s) if steps < self.steps.unwrap_or(1) => s.reduced.unwrap_or(s.full),
            Some(s) => s.full,
            None => 0,
        }
    }
}

/// The part of a scenario file that places counters.
#[derive(Debug, Clone, Deserialize)]
pub struct ScenarioSetup {
    pub id: String,
    pub units: ScenarioUnits,
    #[serde(default)]
    pub deployment: Option<super::sequence::Deployment>,
}

/// Units on the map at the start, by army: a plain list per army, or the
/// `at_start` part of a longer description.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum ScenarioUnits {
    WithAtStart { at_start: BTreeMap<String, Vec<String>> },
    ByArmy(BTreeMap<String, Vec<String>>),
}

/// Where each counter of a scenario starts, in scenario order.
pub fn setup_positions(counters: &[Counter], scenario: &ScenarioSetup, label: &str) -> Result<Vec<(HexId, Counter)>> {
    let by_id: BTreeMap<&str, &Counter> = counters.iter().map(|c| (c.id.as_str(), c)).collect();
    let armies = match &scenario.units {
        ScenarioUnits::WithAtStart { at_start } => at_start,
        ScenarioUnits::ByArmy(by_army) => by_army,
    };
    let overrides: BTreeMap<&str, &str> = scenario
        .deployment
        .iter()
        .flat_map(|d| &d.overrides)
        .filter_map(|o| o.hex.as_deref().map(|h| (o.unit.as_str(), h)))
        .collect();
    let problem = |field: String, message: String| {
        Error::Data(Located { file: label.to_string(), line: None, column: None, field, message, code: None })
    };
    let mut placed = Vec::new();
    for (army, ids) in armies {
        for (i, id) in ids.iter().enumerate() {
            let counter = by_id
                .get(id.as_str())
                .ok_or_else(|| problem(format!("units.{army}[{i}]"), format!("no counter '{id}' in counters.yaml")))?;
            let hex = overrides.get(id.as_str()).copied().or(counter.setup.as_ref().map(|s| s.hex.as_str()));
            let Some(hex) = hex else { continue };
            let hex: HexId = hex.parse().map_err(|e| problem(format!("{id}.setup.hex"), format!("'{hex}': {e}")))?;
            placed.push((hex, (*counter).clone()));
        }
    }
    Ok(placed)
}
