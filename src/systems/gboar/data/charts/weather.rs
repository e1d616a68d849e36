//! charts/weather.yaml (Savannah 1.6, 4.2): the Weather Table.
//! The file's types, and what [`check`](super::check) verifies of it.

use super::*;

// weather.yaml

/// `charts/weather.yaml`: Savannah 1.6, 4.2.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeatherFile {
    pub source: String,
    pub rules: Vec<String>,
    pub die: Die,
    pub weather_turns: WeatherTurns,
    pub conditions: Vec<WeatherCondition>,
    pub weather_table: WeatherTable,
    pub persistence: Persistence,
    #[serde(default)]
    pub fixed: Vec<FixedWeather>,
}

/// Savannah 4.2: the turns on which weather is rolled.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeatherTurns {
    pub turns: Vec<u32>,
    pub source: String,
    pub note: Option<String>,
}

/// One weather and its effects.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeatherCondition {
    pub id: String,
    pub name: String,
    pub source: String,
    pub note: Option<String>,
    /// 9.52 allowed.
    pub strategic_movement: bool,
    pub movement_cost_added: i32,
    /// Savannah 4.4: construction markers may be placed / flipped.
    pub construction: bool,
    pub completion: bool,
    pub siege_bombardment_drm: i32,
    pub fire_drm: i32,
    /// Positive favours the Attacker.
    pub close_combat_drm: i32,
    pub artillery_max_range: i32,
    /// Savannah 4.2: the weather forced on the next turn.
    pub next_turn: Option<String>,
}

/// Savannah 4.2: the Weather Table, read with a modified roll.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeatherTable {
    pub id: String,
    pub name: String,
    pub source: String,
    pub note: Option<String>,
    pub drms: Vec<Drm>,
    pub outcomes: Vec<WeatherOutcome>,
}

/// A band of the Weather Table.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeatherOutcome {
    pub min: Option<i32>,
    pub max: Option<i32>,
    pub weather: String,
    pub source: Option<String>,
    pub note: Option<String>,
}

/// Savannah 4.2: how weather carries between turns.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Persistence {
    pub source: String,
    pub non_weather_turns: NonWeatherTurns,
    /// The weather of the turn after a storm.
    pub after_storm: String,
    pub note: Option<String>,
}

/// Savannah 4.2: the weather on a turn without a roll.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NonWeatherTurns {
    /// The weather holds from the preceding turn.
    Hold,
}

/// Savannah 1.6: fixed weather for a scenario or a case.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixedWeather {
    pub id: String,
    pub scenarios: Vec<String>,
    /// Savannah 1.6: this entry holds only once the Allies have declared
    /// their assault early (case A); the others only when they have not.
    #[serde(default)]
    pub assault_declared: bool,
    pub text: Option<String>,
    pub turns: Vec<FixedTurn>,
    pub source: String,
    pub note: Option<String>,
}

/// The weather of `turn` (through `last`): a weather id or `last-rolled` (Savannah 1.6 case A).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixedTurn {
    pub turn: u32,
    pub last: Option<u32>,
    pub weather: String,
}

/// Savannah 1.6 case A: the last prevailing rolled weather.
pub const LAST_ROLLED: &str = "last-rolled";

impl<'a> Checker<'a> {
    pub(super) fn weather(&mut self) {
        let w = &self.c.weather;
        let f = WEATHER;
        self.unique(f, "conditions", w.conditions.iter().map(|c| c.id.as_str()));
        let weather = self.weather.clone();
        let longest = self.c.fire.fire_table.ranges.iter().copied().max().unwrap_or(0);
        for (i, c) in w.conditions.iter().enumerate() {
            if let Some(next) = &c.next_turn {
                self.reference(f, &format!("conditions[{i}].next_turn"), next, &weather, "a weather of conditions");
            }
            if c.artillery_max_range < 0 || c.artillery_max_range as i64 > i64::from(longest) {
                self.p.add(
                    f,
                    format!("conditions[{i}].artillery_max_range"),
                    format!(
                        "{}: artillery fires at 0 to {longest} hexes, the Fire Table's ranges",
                        c.artillery_max_range
                    ),
                );
            }
        }
        self.turn_list(f, "weather_turns.turns", &w.weather_turns.turns);
        let t = &w.weather_table;
        self.drms(f, "weather_table.drms", &t.drms);
        let bands: Vec<_> = t.outcomes.iter().map(|o| (o.min, o.max)).collect();
        self.roll_bands(f, "weather_table.outcomes", &bands, w.die, !t.drms.is_empty());
        for (i, o) in t.outcomes.iter().enumerate() {
            self.reference(
                f,
                &format!("weather_table.outcomes[{i}].weather"),
                &o.weather,
                &weather,
                "a weather of conditions",
            );
        }
        self.reference(f, "persistence.after_storm", &w.persistence.after_storm, &weather, "a weather of conditions");
        self.unique(f, "fixed", w.fixed.iter().map(|x| x.id.as_str()));
        for (i, x) in w.fixed.iter().enumerate() {
            self.scenarios(f, &format!("fixed[{i}].scenarios"), &x.scenarios);
            for (j, turn) in x.turns.iter().enumerate() {
                let at = format!("fixed[{i}].turns[{j}]");
                if turn.weather != LAST_ROLLED {
                    self.reference(
                        f,
                        &format!("{at}.weather"),
                        &turn.weather,
                        &weather,
                        &format!("a weather of conditions (or {LAST_ROLLED})"),
                    );
                }
                let last = turn.last.unwrap_or(turn.turn);
                if last < turn.turn {
                    self.p.add(f, format!("{at}.last"), format!("last turn {last} is before turn {}", turn.turn));
                }
                if let Some(prev) = j.checked_sub(1).and_then(|k| x.turns.get(k)) {
                    if prev.last.unwrap_or(prev.turn) >= turn.turn {
                        self.p.add(
                            f,
                            format!("{at}.turn"),
                            format!("turn {} is already given by the entry before it", turn.turn),
                        );
                    }
                }
            }
        }
    }
}
