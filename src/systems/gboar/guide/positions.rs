//! The table of positions a report shows (issue 16): each unit on the map,
//! its hex, steps (series 2.2), condition (13.3, 13.4; Savannah 4.9's
//! Lost) and pin (13.1), as a side may see it (series 7.4: under hidden
//! stacks, an enemy stack not examined is its side and how many counters,
//! as the side's map draws it).

use std::collections::BTreeMap;

use crate::system::Position;
use crate::systems::gboar::board::state::{Condition, State};
use crate::systems::gboar::board::units::side_of;
use crate::systems::gboar::board::Rules;
use crate::systems::gboar::effects::intel;

/// The rows for `side` (`None`: the referee), by side, then hex, then unit.
pub fn positions(rules: &Rules, state: &State, side: Option<&str>) -> Vec<Position> {
    let hides = side.filter(|_| intel::hidden(rules));
    let mut rows = Vec::new();
    let mut hidden: BTreeMap<(String, String), usize> = BTreeMap::new();
    for (id, u) in &state.units {
        let Some(hex) = u.hex.map(|h| h.to_string()) else { continue };
        if let Some(viewer) = hides {
            if !intel::friendly(rules, viewer, id) && !intel::known(state, viewer, id) {
                *hidden.entry((hex, side_of(rules, id).to_string())).or_default() += 1;
                continue;
            }
        }
        let steps = match rules.counter(id).and_then(|c| c.steps).filter(|_| !is_leader(rules, id)) {
            Some(full) => format!("{} of {full}", u.steps),
            None => String::new(),
        };
        let mut condition = match u.condition {
            Condition::ParadeOrder => "parade order",
            Condition::Disrupted => "disrupted",
            Condition::Shattered => "shattered",
        }
        .to_string();
        if is_leader(rules, id) {
            condition.clear();
        }
        if u.lost {
            condition = join(&condition, "lost (Savannah 4.9)");
        }
        if u.cavalry_withdrawn {
            condition = join(&condition, "cavalry withdrawn (12.4)");
        }
        rows.push(Position {
            side: side_of(rules, id).to_string(),
            unit: id.clone(),
            hex,
            steps,
            condition,
            pinned: u.pinned,
        });
    }
    for ((hex, of), n) in hidden {
        rows.push(Position {
            side: of,
            unit: format!("{n} {}", if n == 1 { "counter" } else { "counters" }),
            hex,
            ..Position::default()
        });
    }
    rows.sort_by(|a, b| (&a.side, &a.hex, &a.unit).cmp(&(&b.side, &b.hex, &b.unit)));
    rows
}

fn is_leader(rules: &Rules, id: &str) -> bool {
    rules.counter(id).is_some_and(|c| c.is_leader())
}

fn join(a: &str, b: &str) -> String {
    if a.is_empty() {
        b.to_string()
    } else {
        format!("{a}, {b}")
    }
}
