//! charts/victory-points.yaml (Savannah 2.9): the Victory Point schedule.
//! The file's types, and what [`check`](super::check) verifies of it.

use super::*;

// victory-points.yaml

/// `charts/victory-points.yaml`: Savannah 2.9, in halves.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VictoryPointsFile {
    pub source: String,
    pub rules: Vec<String>,
    pub victory_points: VpSchedule,
    pub margins: Margins,
    /// Savannah 2.10: the individual winner among an alliance's players.
    #[serde(default)]
    pub individual_winner: Option<IndividualWinner>,
}

/// Savannah 2.10: "If the Allies defeat the British, the individual winner
/// of the game is the Allied player with the highest Victory Point total at
/// the moment the game ends." When `alliance` wins, its army with the most
/// VPs (2.9's per-army totals) is named; armies tied for the most are all
/// named.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndividualWinner {
    pub source: String,
    pub alliance: String,
    pub text: Option<String>,
    pub note: Option<String>,
}

/// Savannah 2.9: what each army scores.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VpSchedule {
    pub id: String,
    pub name: String,
    pub source: String,
    pub note: Option<String>,
    pub entries: Vec<VpEntry>,
}

/// One line of the VP schedule: `halves`, or `from` another chart.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VpEntry {
    pub id: String,
    pub halves: Option<i32>,
    pub from: Option<String>,
    pub when: Option<String>,
    /// A hex of the map (Savannah 2.8: Spring Hill Redoubt).
    pub hex: Option<String>,
    #[serde(default)]
    pub sides: Vec<String>,
    pub source: String,
    pub text: Option<String>,
    pub note: Option<String>,
}

/// Savannah 2.3, 2.6: the end-of-game margins, in halves.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Margins {
    pub source: String,
    pub note: Option<String>,
    pub allied_marginal_victory_at_least: i32,
    pub otherwise: String,
}

impl<'a> Checker<'a> {
    pub(super) fn victory_points(&mut self) {
        let v = &self.c.victory_points.victory_points;
        let f = VICTORY_POINTS;
        self.unique(f, "victory_points.entries", v.entries.iter().map(|e| e.id.as_str()));
        for (i, e) in v.entries.iter().enumerate() {
            let at = format!("victory_points.entries[{i}]");
            if e.halves.is_some() == e.from.is_some() {
                self.p.add(f, &at, format!("'{}': an entry has halves or from, exactly one of them", e.id));
            }
            if let Some(from) = &e.from {
                self.check_from_path(f, &format!("{at}.from"), from);
            }
            self.sides(f, &format!("{at}.sides"), &e.sides);
            if let Some(hex) = &e.hex {
                if let Err(err) = hex.parse::<HexId>() {
                    self.p.add(f, format!("{at}.hex"), format!("'{hex}': {err}"));
                }
            }
        }
    }
}
