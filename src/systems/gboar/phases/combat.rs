//! Fire and close combat: who could take part in a Defensive Artillery Fire
//! or Close Combat Phase. A phase in which no unit could take part passes
//! with an event that says so, and awaits no orders; otherwise
//! [`crate::systems::gboar::phases::fire`] and [`crate::systems::gboar::phases::close_combat`] resolve it, with the orders
//! of the sides that could take part.
//!
//! - Defensive Artillery Fire (series 11; Savannah 3 IX): an artillery unit
//!   of the non-phasing player with a phasing unit within the Fire Table's
//!   longest range (11.2, counting the target's hex), shortened by the
//!   weather's `artillery_max_range` (Savannah 4.2); and, in the phasing
//!   player's turn, its mortars with an enemy unit within their range
//!   (Savannah 3 IX, 4.12: "includes mortar fire during the Allies' player
//!   turn"). Line of sight is not looked at here: a gun that could see no
//!   one still asks its side for orders (`fire: []` declines), which errs
//!   on the side of never skipping a fire.
//! - Close Combat (series 12.1): a phasing combat unit next to an enemy unit.

use std::collections::BTreeMap;

use crate::base::error::{Error, Result};
use crate::base::hex::{distance, HexId};
use crate::system::Event;
use crate::systems::gboar::board::state::Resolution;
use crate::systems::gboar::board::state::State;
use crate::systems::gboar::board::units::side_of_army;
use crate::systems::gboar::board::Rules;
use crate::systems::gboar::data::sequence::Step;

/// Units on the map: (id, hex, player, counter, owner), borrowed from the
/// state and the rules (the phase's pairs of units compare them many
/// times). `owner` stands for the player: the place of the first alliance
/// of module.yaml with that id, so that two units have the same owner
/// exactly when they have the same player, and a pair's owners are
/// compared as two numbers.
type OnMap<'a> = (&'a str, HexId, &'a str, &'a crate::systems::gboar::data::counters::Counter, usize);

fn on_map<'a>(rules: &'a Rules, state: &'a State) -> Vec<OnMap<'a>> {
    let alliances = &rules.sequence.data.alliances;
    let mut list = Vec::new();
    for (id, unit) in &state.units {
        let Some(c) = rules.counter(id) else { continue };
        let Some(hex) = crate::systems::gboar::board::units::unit_hex(unit) else { continue };
        let Some(player) = rules.player_of_army(&c.army) else { continue };
        let owner = alliances.iter().position(|a| a.id == player).unwrap_or(usize::MAX);
        list.push((id.as_str(), hex, player, c, owner));
    }
    list
}

/// Where the units of an [`on_map`] list are: the units next to a hex are
/// found from its six neighbours, not by measuring the distance to every
/// unit on the map (which, for every phasing unit, cost the phases that
/// ask who is in contact a pass over all units each).
struct ByHex {
    /// Indexes into the list, by hex, each hex's in the list's order.
    order: Vec<usize>,
    /// `hexes[k]` is the hex of the unit `order[k]`.
    hexes: Vec<HexId>,
    /// The hexes that hold a unit (most neighbours hold none).
    held: crate::base::hex::HexBits,
}

impl ByHex {
    fn new(units: &[OnMap<'_>]) -> ByHex {
        let order = crate::base::hex::order_by_hex(units, |u| u.1);
        let hexes: Vec<HexId> = order.iter().map(|k| units[*k].1).collect();
        let mut held = crate::base::hex::HexBits::new();
        for h in &hexes {
            held.insert(*h);
        }
        ByHex { order, hexes, held }
    }

    /// The units next to `hex` (at distance 1), as indexes into the list,
    /// in its order.
    fn next_to(&self, hex: HexId, layout: crate::base::hex::Layout) -> Vec<usize> {
        let mut found = Vec::new();
        for n in crate::base::hex::around(hex, layout).filter(|n| self.held.contains(*n)) {
            let from = self.hexes.partition_point(|h| *h < n);
            let to = from + self.hexes[from..].partition_point(|h| *h == n);
            found.extend_from_slice(&self.order[from..to]);
        }
        found.sort_unstable();
        found
    }
}

/// Who could take part in `step`, a fire or close combat phase: for each
/// side, the units and the enemy each could reach. Empty when none could.
pub fn eligible(rules: &Rules, state: &State, step: &Step) -> BTreeMap<String, Vec<String>> {
    eligible_until(rules, state, step, false)
}

/// Whether any unit could take part in `step` ([`eligible`] is not
/// empty): the units looked at only until one is found.
pub fn any_eligible(rules: &Rules, state: &State, step: &Step) -> bool {
    !eligible_until(rules, state, step, true).is_empty()
}

/// [`eligible`], stopped at the first unit found when `first` is set.
fn eligible_until(rules: &Rules, state: &State, step: &Step, first: bool) -> BTreeMap<String, Vec<String>> {
    let mut found: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let Step::PlayerTurn { player, phase, .. } = step else { return found };
    let units = on_map(rules, state);
    let layout = rules.module.map.layout;
    let side_of = |army: &str| side_of_army(rules, army).unwrap_or_default();
    match phase.as_str() {
        "defensive-artillery-fire" => {
            let longest = rules.charts.fire.fire_table.ranges.iter().copied().max().unwrap_or(0);
            let weather_cap = state
                .weather
                .as_deref()
                .and_then(|w| rules.charts.weather.conditions.iter().find(|c| c.id == w))
                .and_then(|c| u32::try_from(c.artillery_max_range).ok());
            let reach = weather_cap.map_or(longest, |cap| longest.min(cap));
            let mortar = &rules.charts.mortar.rules_summary.range;
            for (id, hex, owner, c, mine) in &units {
                if !c.is_artillery() {
                    continue;
                }
                let is_mortar = c.kind == "mortar";
                if is_mortar && crate::systems::gboar::board::units::mortar_moved(rules, state, id) {
                    continue;
                }
                let (min, max) = if is_mortar {
                    (u32::try_from(mortar.min).unwrap_or(0), u32::try_from(mortar.max).unwrap_or(0))
                } else {
                    (1, reach)
                };
                // Guns fire in the enemy's turn, mortars in their own.
                let fires_now = if is_mortar { owner == player } else { owner != player };
                if !fires_now {
                    continue;
                }
                let mut targets = units
                    .iter()
                    .filter(|(_, h, _, t, theirs)| {
                        theirs != mine && !t.is_leader() && (min..=max).contains(&distance(*hex, *h, layout))
                    })
                    .map(|(t, ..)| t);
                if let Some(target) = targets.next() {
                    let more = targets.count();
                    found.entry(side_of(&c.army)).or_default().push(format!(
                        "{id} in {hex} has {target}{} within range",
                        if more > 0 { format!(" and {more} more") } else { String::new() }
                    ));
                    if first {
                        return found;
                    }
                }
            }
        }
        "rifle-fire" => {
            // 10.1: both players' rifle units in condition to fire, next to an enemy unit.
            let by_hex = ByHex::new(&units);
            for (id, hex, _, c, mine) in &units {
                if !crate::systems::gboar::board::units::is_rifle(c)
                    || !crate::systems::gboar::board::units::may_fire(state, id)
                {
                    continue;
                }
                let mut next_to = by_hex
                    .next_to(*hex, layout)
                    .into_iter()
                    .map(|k| &units[k])
                    .filter(|(_, _, _, t, theirs)| theirs != mine && !t.is_leader())
                    .map(|(t, ..)| t);
                if let Some(enemy) = next_to.next() {
                    found.entry(side_of(&c.army)).or_default().push(format!("{id} in {hex} is next to {enemy}"));
                    if first {
                        return found;
                    }
                }
            }
        }
        "close-combat" => {
            let by_hex = ByHex::new(&units);
            for (id, hex, owner, c, mine) in &units {
                if owner != player || c.is_leader() {
                    continue;
                }
                let mut next_to = by_hex
                    .next_to(*hex, layout)
                    .into_iter()
                    .map(|k| &units[k])
                    .filter(|(_, _, _, _, theirs)| theirs != mine)
                    .map(|(t, ..)| t);
                if let Some(enemy) = next_to.next() {
                    found.entry(side_of(&c.army)).or_default().push(format!("{id} in {hex} is next to {enemy}"));
                    if first {
                        return found;
                    }
                }
            }
        }
        _ => {}
    }
    found
}

/// The sides a fire or close combat step awaits orders from: none when no
/// unit could take part; for Defensive Artillery Fire, the sides with a
/// gun or mortar that could fire.
pub fn awaited(rules: &Rules, state: &State, step: &Step) -> Option<Vec<String>> {
    match step {
        Step::PlayerTurn { phase, .. } if phase == "defensive-artillery-fire" || phase == "rifle-fire" => {
            Some(eligible(rules, state, step).into_keys().collect())
        }
        Step::PlayerTurn { phase, .. } if phase == "close-combat" => Some(close_combat_sides(rules, state, step)),
        _ => None,
    }
}

/// The sides a Close Combat Phase awaits: those of the phasing player with
/// a combat unit next to an enemy unit (they designate, 12.21), and those
/// of every enemy unit next to such a unit (they may be attacked, and send
/// their defensive instructions). A side with no unit in contact has
/// nothing to decide.
fn close_combat_sides(rules: &Rules, state: &State, step: &Step) -> Vec<String> {
    let mut sides = std::collections::BTreeSet::new();
    let Step::PlayerTurn { player, .. } = step else { return Vec::new() };
    let units = on_map(rules, state);
    let layout = rules.module.map.layout;
    let side_of = |army: &str| side_of_army(rules, army).unwrap_or_default();
    let by_hex = ByHex::new(&units);
    for (_, hex, owner, c, mine) in &units {
        if owner != player || c.is_leader() {
            continue;
        }
        let enemies: Vec<_> = by_hex
            .next_to(*hex, layout)
            .into_iter()
            .map(|k| &units[k])
            .filter(|(_, _, _, _, theirs)| theirs != mine)
            .collect();
        if !enemies.is_empty() {
            sides.insert(side_of(&c.army));
            sides.extend(enemies.iter().map(|(_, _, _, e, _)| side_of(&e.army)));
        }
    }
    sides.into_iter().collect()
}

/// A fire or close combat step in which no unit could take part: it
/// passes, and says so.
pub fn resolve(rules: &Rules, state: &State, step: &Step) -> Result<Resolution> {
    let Step::PlayerTurn { player, phase, .. } = step else {
        return Err(Error::refused(format!("step {}: not a player turn phase", step.name())));
    };
    if any_eligible(rules, state, step) {
        return Err(Error::refused(format!(
            "step {}: units could take part; the phase is resolved by its own rules",
            step.name()
        )));
    }
    let (rule, what) = if phase == "close-combat" {
        ("12.1", "no phasing combat unit is next to an enemy unit")
    } else if phase == "rifle-fire" {
        ("10.1", "no rifle unit of either side is next to an enemy unit")
    } else {
        ("11.2", "no artillery has an enemy unit within range, and no mortar of the phasing player either")
    };
    let text = format!("the {player} {} passes: {what}", phase.replace('-', " "));
    let event = Event::new(rule, "phase-passes", text).with("phase", phase).with("player", player);
    Ok(Resolution { state: state.clone(), events: vec![event] })
}
