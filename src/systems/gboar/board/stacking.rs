//! Stacking restrictions on the board (Savannah 4.1): which pair of units in
//! a hex a restriction of module.yaml `stacking.restrictions` keeps apart.
//! Movement, close combat and the guide ask it.

use crate::base::hex::HexId;
use crate::systems::gboar::board::state::State;
use crate::systems::gboar::board::Rules;
use crate::systems::gboar::data::counters::Counter;
use crate::systems::gboar::data::stacking::Restriction;

/// The counters of the units in `hex`, in id order.
fn counters_in<'a>(rules: &'a Rules, state: &State, hex: HexId) -> Vec<&'a Counter> {
    state.units.iter().filter(|(_, u)| u.hex == Some(hex)).filter_map(|(id, _)| rules.counter(id)).collect()
}

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
    let here = counters_in(rules, state, hex);
    first_pair(&here, stacking.restrictions.iter().filter(|r| keep(r))).map(|(r, x, y)| (r, x.id.clone(), y.id.clone()))
}

/// The first of `restrictions` that a pair of the counters `here` (the
/// units of one hex) falls under, with that pair in `here`'s order:
/// [`restricted_stack`]'s test, for a caller that holds the hex's counters.
pub fn first_pair<'r, 'c>(
    here: &[&'c Counter],
    restrictions: impl IntoIterator<Item = &'r Restriction>,
) -> Option<(&'r Restriction, &'c Counter, &'c Counter)> {
    restrictions.into_iter().find_map(|r| {
        here.iter()
            .enumerate()
            .find_map(|(n, x)| here.iter().skip(n + 1).find(|y| r.applies(x, y)).map(|y| (r, *x, *y)))
    })
}

/// Savannah 4.1: the first restriction `keep` selects that keeps `id`
/// apart from another unit in `hex`, with that pair (in id order); else,
/// when `id` is in no such pair (a leader, an exempt unit), the stack's
/// first ([`restricted_stack`]). A hex of three or more units may hold
/// several pairs, and the first need not hold `id`.
pub fn restricted_pair_of<'a>(
    rules: &'a Rules,
    state: &State,
    hex: HexId,
    id: &str,
    keep: impl Fn(&Restriction) -> bool,
) -> Option<(&'a Restriction, String, String)> {
    let stacking = rules.stacking.as_ref()?;
    let me = rules.counter(id)?;
    let here: Vec<&Counter> = state
        .units
        .iter()
        .filter(|(other, u)| other.as_str() != id && u.hex == Some(hex))
        .filter_map(|(other, _)| rules.counter(other))
        .collect();
    let own = stacking.restrictions.iter().filter(|r| keep(r)).find_map(|r| {
        here.iter().find(|y| r.applies(me, y)).map(|y| {
            let (a, b) = if me.id <= y.id { (&me.id, &y.id) } else { (&y.id, &me.id) };
            (r, a.clone(), b.clone())
        })
    });
    own.or_else(|| restricted_stack(rules, state, hex, keep))
}

/// Savannah 4.1: every unit in `hex` that a restriction `keep` selects
/// keeps apart from another unit there, in id order. A hex of three or
/// more units may hold several pairs: the first pair may be two units
/// that cannot move (a shattered unit, a fixed gun) while a third can.
pub fn restricted_units(rules: &Rules, state: &State, hex: HexId, keep: impl Fn(&Restriction) -> bool) -> Vec<String> {
    let Some(stacking) = rules.stacking.as_ref() else { return Vec::new() };
    let here = counters_in(rules, state, hex);
    let restrictions: Vec<&Restriction> = stacking.restrictions.iter().filter(|r| keep(r)).collect();
    let mut ids: Vec<String> = here
        .iter()
        .filter(|x| here.iter().any(|y| x.id != y.id && restrictions.iter().any(|r| r.applies(x, y))))
        .map(|x| x.id.clone())
        .collect();
    ids.sort();
    ids.dedup();
    ids
}
