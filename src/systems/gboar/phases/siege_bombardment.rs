//! The Siege & Bombardment Phase (Savannah 3 V, 4.6), offered once at
//! least one completed French siege work hexside is in play (4.6:
//! "Construction markers do not satisfy this requirement"). From
//! charts/siege-bombardment.yaml:
//!
//! 1. The French roll first on Table I (their column), with its DRMs
//!    (siege batteries in completed works, the weather, the roller's
//!    Random Events cards for S&B rolls, 4.3), and apply the
//!    result; a result may send them to Table II (Savannah 3 V).
//! 2. Then the British may respond with a roll of their own ("The British
//!    player may not be the first player to use Siege and Bombardment").
//!
//! Orders (each rolling side; none rolls with the engine's picks):
//!
//! ```yaml
//! bombard: true          # false: this side does not roll
//! breach: ["1805/1806"]  # where a breach result falls, first legal first
//! repair: ["1805/1806"]  # British: which breach a repair closes
//! destroy: ["1703"]      # French: which city hex a Table II result destroys
//! remove: ["2612"]       # British: which construction marker is removed
//! ```

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::base::dice::Die;
use crate::base::error::{Error, Result};
use crate::base::hex::HexId;
use crate::system::{Dice, Event};
use crate::systems::gboar::board::refusals::Code;
use crate::systems::gboar::board::siege;
use crate::systems::gboar::board::state::{Resolution, State};
use crate::systems::gboar::board::Rules;
use crate::systems::gboar::effects::card_effects;
use crate::systems::gboar::effects::siege::{apply, band, By, Picks};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "siege and bombardment orders (a map)")]
pub struct BombardOrders {
    #[serde(default = "yes")]
    pub bombard: bool,
    #[serde(default)]
    pub breach: Vec<String>,
    #[serde(default)]
    pub repair: Vec<String>,
    #[serde(default)]
    pub destroy: Vec<String>,
    #[serde(default)]
    pub remove: Vec<String>,
}

fn yes() -> bool {
    true
}

impl Default for BombardOrders {
    fn default() -> Self {
        BombardOrders { bombard: true, breach: Vec::new(), repair: Vec::new(), destroy: Vec::new(), remove: Vec::new() }
    }
}

/// What siege and bombardment orders hold, for a refusal of their shape.
pub const HINT: &str = "siege and bombardment orders are `bombard:`, `breach:`, `repair:`, `destroy:` and `remove:`";

/// A side's orders; a shape problem as `(field, message)`.
fn parse(body: &crate::base::yaml::Value) -> std::result::Result<BombardOrders, (String, String)> {
    crate::base::yaml::read_body(body, HINT)
}

/// The sides that roll, in the chart's order (4.6: the French first).
pub fn sides(rules: &Rules) -> Vec<String> {
    rules.charts.siege_bombardment.procedure.order.clone()
}

/// Every problem of `side`'s orders: (code, field, message).
pub fn check(rules: &Rules, state: &State, side: &str, body: &crate::base::yaml::Value) -> Vec<(Code, String, String)> {
    let o = match parse(body) {
        Ok(o) => o,
        Err((field, message)) => return vec![(Code::OrdersShape, field, message)],
    };
    let mut found = Vec::new();
    let layout = rules.module.map.layout;
    let player = rules.player_of_side(side);
    let own_builder = player == siege::builder_player(rules);
    // A breach falls on the other player's works: the builder breaches
    // British fieldworks, the British the French siege works.
    for (i, b) in o.breach.iter().enumerate() {
        let ok = if own_builder {
            crate::base::hex::Hexside::parse(b, layout)
                .is_ok_and(|s| siege::fieldwork_sides(rules, state, false).contains(&s))
        } else {
            siege::siege_sides(state, false).contains(b)
        };
        if !ok {
            let legal = if own_builder {
                "an intact British fieldwork hexside (HEX/HEX)".to_string()
            } else {
                format!(
                    "an intact completed siege work hexside, one of: {}",
                    siege::siege_sides(state, false).join(", ")
                )
            };
            found.push((Code::SiegePick, format!("breach[{i}]"), format!("'{b}' is not {legal} (Savannah 4.5, 4.6)")));
        }
    }
    for (i, r) in o.repair.iter().enumerate() {
        // A hexside may be breached earlier in the same phase: any
        // breachable hexside of the side's own works may be named.
        let ok = if own_builder {
            siege::siege_sides(state, true).contains(r) || siege::siege_sides(state, false).contains(r)
        } else {
            crate::base::hex::Hexside::parse(r, layout).is_ok_and(|s| {
                state.breaches.contains(&s.to_string()) || siege::fieldwork_sides(rules, state, false).contains(&s)
            })
        };
        if !ok {
            found.push((
                Code::SiegePick,
                format!("repair[{i}]"),
                format!("'{r}' is no hexside of your works a breach may fall on (Savannah 4.5)"),
            ));
        }
    }
    let city: Vec<String> = siege::city_hexes(rules, state, false).iter().map(HexId::to_string).collect();
    for (i, d) in o.destroy.iter().enumerate() {
        if !own_builder || !city.contains(d) {
            found.push((
                Code::SiegePick,
                format!("destroy[{i}]"),
                format!("'{d}' is not an intact City of Savannah hex the bombardment may destroy: {}", city.join(", ")),
            ));
        }
    }
    let markers: Vec<String> = state.siege_works.iter().filter(|w| !w.completed).map(|w| w.hex.clone()).collect();
    for (i, r) in o.remove.iter().enumerate() {
        if own_builder || !markers.contains(r) {
            found.push((
                Code::SiegePick,
                format!("remove[{i}]"),
                format!("'{r}' holds no construction marker you may remove (Savannah 4.5: completed works are never removed)"),
            ));
        }
    }
    found
}

/// Table I's DRMs for `side`: (words, value).
fn drms(rules: &Rules, state: &State, side: &str) -> Vec<(String, i32)> {
    let mut out = Vec::new();
    let works = siege::completed_hexes(state);
    for d in &rules.charts.siege_bombardment.table_i.drms {
        if !d.sides.is_empty() && !d.sides.iter().any(|s| s == side) {
            continue;
        }
        if d.per.as_deref() == Some("battery") {
            let n = d
                .applies_to
                .iter()
                .filter(|u| crate::systems::gboar::board::units::hex_of(state, u).is_some_and(|h| works.contains(&h)))
                .count() as i32;
            let value = (n * d.value.unwrap_or(0)).min(d.max.unwrap_or(i32::MAX));
            if value != 0 {
                out.push((format!("{n} siege batteries in completed works"), value));
            }
        } else if d.id == "weather" {
            let w = state.weather.as_deref().and_then(|w| rules.charts.weather.conditions.iter().find(|c| c.id == w));
            if let Some(c) = w.filter(|c| c.siege_bombardment_drm != 0) {
                out.push((format!("weather ({})", c.name), c.siege_bombardment_drm));
            }
        }
    }
    out
}

/// Savannah 4.6: the phase, once the step's Random Events cards are
/// played (Savannah 4.3; with none, the two boards are one): `announced`
/// is the board the orders were written on, `state` the board the cards
/// left. The orders are checked on
/// `announced`, as `validate` checked them; the rolls are made on `state`.
/// A hexside, hex or marker named in `breach:`, `repair:`, `destroy:` or
/// `remove:` that a card has changed since (Siege Works Breached breaching
/// the hexside named first) is passed over, as one an earlier roll of the
/// phase changed is: the lists are preferences, the first that may take a
/// result takes it, then the board's order (docs/rules-readings.md).
pub fn resolve(
    rules: &Rules,
    announced: &State,
    state: &State,
    orders: &BTreeMap<String, crate::base::yaml::Value>,
    dice: &mut dyn Dice,
) -> Result<Resolution> {
    for (side, body) in orders {
        if let Some((code, field, message)) = check(rules, announced, side, body).into_iter().next() {
            return Err(crate::systems::gboar::board::refusals::refuse_orders(side, &field, &message, code));
        }
    }
    let chart = &rules.charts.siege_bombardment;
    let mut next = state.clone();
    let mut events = Vec::new();
    for side in &chart.procedure.order {
        let o = orders
            .get(side)
            .map(parse)
            .transpose()
            .map_err(|(field, message)| {
                Error::refused(format!("siege and bombardment orders of {side}: {field}: {message}"))
            })?
            .unwrap_or_default();
        let player = rules.player_of_side(side);
        let first = chart.procedure.order.first() == Some(side);
        // Savannah 4.6: "Once the French player has rolled for the first
        // time on the S&B table, the British player may respond. The
        // British player may not be the first player to use Siege and
        // Bombardment."
        if !first && !next.bombardment_begun {
            events.push(
                Event::new(
                    "Savannah 4.6",
                    "siege-bombardment-declined",
                    format!(
                        "the {side} side may not roll: the {} have not yet rolled on {} (Savannah 4.6)",
                        chart.procedure.order.first().cloned().unwrap_or_default(),
                        chart.table_i.name
                    ),
                )
                .with("side", side),
            );
            continue;
        }
        if !o.bombard {
            events.push(
                Event::new(
                    "Savannah 4.6",
                    "siege-bombardment-declined",
                    format!("the {side} side does not roll on {}", chart.table_i.name),
                )
                .with("side", side),
            );
            continue;
        }
        let column = chart.table_i.columns.get(side).ok_or_else(|| {
            Error::refused(format!("charts/siege-bombardment.yaml: {} has no column for {side}", chart.table_i.name))
        })?;
        let rolls = if side == "british" {
            chart.procedure.british_rolls_per_phase
        } else {
            chart.procedure.french_rolls_per_phase
        };
        for _ in 0..rolls {
            let mut mods = drms(rules, &next, side);
            // Savannah 4.3: the roller's own Random Events cards' DRMs for
            // Siege & Bombardment rolls (Heavy Guns Landed from the Fleet,
            // Counter-Battery Fire), on Table I only: Table II's roll is
            // unmodified (charts/siege-bombardment.yaml).
            let cards = card_effects::own_roll(rules, &next, card_effects::SIEGE_BOMBARDMENT, &player);
            mods.extend(cards.iter().map(|c| (c.text.clone(), c.value)));
            let roll = i32::from(dice.roll(Die::D10, &format!("{}, {side}, turn {}", chart.table_i.name, state.turn))?);
            card_effects::spend(&mut next, &cards);
            let total = mods.iter().fold(roll, |t, (_, v)| t.saturating_add(*v));
            let outcome = band(column, total)
                .ok_or_else(|| Error::refused(format!("charts/siege-bombardment.yaml: no {side} band for {total}")))?;
            let text: Vec<String> = mods.iter().map(|(n, v)| format!("{v:+} {n}")).collect();
            events.push(
                Event::new(
                    "Savannah 4.6",
                    "siege-bombardment-roll",
                    format!(
                        "the {side} side rolls {roll}{}{} = {total} on {} (Savannah 4.6)",
                        if text.is_empty() { "" } else { ", " },
                        text.join(", "),
                        chart.table_i.name
                    ),
                )
                .with("side", side)
                .with("player", &player)
                .with("table", &chart.table_i.id)
                .with("roll", roll)
                .with("drms", mods.iter().cloned().collect::<BTreeMap<String, i32>>())
                .with("total", total),
            );
            if first {
                next.bombardment_begun = true;
            }
            let why = format!("{} ({side}, {total})", chart.table_i.name);
            let by = By { player: &player, side: Some(side), rule: "Savannah 4.6", why: &why };
            let picks = Picks {
                breach: o.breach.clone(),
                repair: o.repair.clone(),
                destroy: o.destroy.clone(),
                remove: o.remove.clone(),
            };
            events.extend(apply(rules, &mut next, &by, &outcome.effects, &picks, dice)?);
        }
    }
    Ok(Resolution { state: next, events })
}
