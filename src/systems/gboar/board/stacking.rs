//! Stacking restrictions on the board (Savannah 4.1): which pair of units in
//! a hex a restriction of module.yaml `stacking.restrictions` keeps apart.
//! Movement, close combat and the guide ask it.

use crate::base::hex::HexId;
use crate::systems::gboar::board::state::State;
use crate::systems::gboar::board::Rules;
use crate::systems::gboar::data::counters::Counter;
use crate::systems::gboar::data::stacking::Restriction;

/// Savannah 4.1: the first restriction of module.yaml
/// `stacking.restrictions` that `keep` selects and that a pair of the units
/// in `hex` falls under, with that pair (the units in id order).
pub fn restricted_stack<'a>(
    rules: &'a Rules,
    state: &State,
    hex: HexId,
    keep: impl Fn(&Restriction) -> bool,
) -> Option<(&'a Restriction, String, String)> {
    let stacking = rules.stacking.as_ref()?;
    let here: Vec<&Counter> = state
        .units
        .iter()
        .filter(|(_, u)| u.hex.as_deref().and_then(|h| h.parse::<HexId>().ok()) == Some(hex))
        .filter_map(|(id, _)| rules.counter(id))
        .collect();
    stacking.restrictions.iter().filter(|r| keep(r)).find_map(|r| {
        here.iter().enumerate().find_map(|(n, x)| {
            here.iter().skip(n + 1).find(|y| r.applies(x, y)).map(|y| (r, x.id.clone(), y.id.clone()))
        })
    })
}
