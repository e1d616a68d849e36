//! The Random Events Phase (Savannah 3 phase III, 4.3, 1.4), on the Random
//! Events turns of the Strategic Turn Track (cards.yaml `draw.turns`).
//!
//! The players draw in cards.yaml's `draw.order` (4.3: "The British player
//! draws first"), each `draw.per_side` card (the French and the Americans
//! draw one between them), then the extra card each bought with a momentum
//! chit (1.4: at most `draw.momentum_extra_draw_max` a phase). Each draw is
//! one `cN` roll over the cards left (docs/DICE.md §5); a red card is
//! played the moment it is drawn.
//!
//! Orders (a side whose player holds a momentum chit, or a card it may play
//! now, is awaited; a player's sides share its chits):
//!
//! ```yaml
//! momentum: 1        # Savannah 1.4: spend one chit for one more card
//! play: [card-id]    # Savannah 4.3: cards played (any step's orders may)
//! ```

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::base::error::Result;
use crate::system::{Dice, Event};
use crate::systems::gboar::board::refusals::Code;
use crate::systems::gboar::board::state::{Resolution, State};
use crate::systems::gboar::board::Rules;
use crate::systems::gboar::effects::cards;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "random events orders (a map)")]
pub struct RandomEventsOrders {
    /// Momentum chits spent for extra cards (1.4: at most one).
    #[serde(default)]
    pub momentum: u32,
}

/// What random events orders hold, for a refusal of their shape.
pub const HINT: &str = "random events orders are `momentum:` (0 or 1) and `play:`";

/// A side's orders; a shape problem as `(field, message)`.
fn parse(body: &crate::base::yaml::Value) -> std::result::Result<RandomEventsOrders, (String, String)> {
    crate::base::yaml::read_body(body, HINT)
}

/// The sides the phase awaits: those of a player holding a momentum chit
/// or a card it may play now.
pub fn awaited(rules: &Rules, state: &State) -> Vec<String> {
    let mut sides: Vec<String> = rules
        .sequence
        .data
        .alliances
        .iter()
        .filter(|a| {
            state.momentum.get(&a.id).copied().unwrap_or(0) > 0 || !cards::playable(rules, state, &a.id).is_empty()
        })
        .flat_map(|a| rules.sequence.sides_of(&a.id))
        .collect();
    sides.sort();
    sides.dedup();
    sides
}

/// Every problem of the orders, alone and together: (side, code, field,
/// message). 1.4: one chit a phase per player, and only a chit it holds.
pub fn check(
    rules: &Rules,
    state: &State,
    orders: &BTreeMap<String, crate::base::yaml::Value>,
) -> Vec<(String, Code, String, String)> {
    let max = rules.charts.cards.draw.momentum_extra_draw_max;
    let mut found = Vec::new();
    let mut spent: BTreeMap<String, (u32, Vec<String>)> = BTreeMap::new();
    for (side, body) in orders {
        let o = match parse(body) {
            Ok(o) => o,
            Err((field, message)) => {
                found.push((side.clone(), Code::OrdersShape, field, message));
                continue;
            }
        };
        if o.momentum == 0 {
            continue;
        }
        let player = rules.player_of_side(side);
        let held = state.momentum.get(&player).copied().unwrap_or(0);
        if o.momentum > max {
            found.push((
                side.clone(),
                Code::ExtraCardOnce,
                "momentum".into(),
                format!(
                    "momentum: {}: a player spends at most {max} momentum chit per Random Events Phase for an extra card (Savannah 1.4)",
                    o.momentum
                ),
            ));
        } else if held == 0 {
            found.push((
                side.clone(),
                Code::NoMomentumChit,
                "momentum".into(),
                format!(
                    "momentum: {}: the {player} player holds no momentum chit to spend for an extra card (Savannah 1.4); give momentum: 0 or leave it out",
                    o.momentum
                ),
            ));
        }
        let e = spent.entry(player).or_default();
        e.0 += o.momentum;
        e.1.push(side.clone());
    }
    for (player, (n, sides)) in spent {
        if n > max && sides.len() > 1 {
            for side in &sides {
                found.push((
                    side.clone(),
                    Code::ExtraCardOnce,
                    "momentum".into(),
                    format!(
                        "the {player} player's sides ({}) spend {n} chits together; a player spends at most {max} per Random Events Phase (Savannah 1.4)",
                        sides.join(", ")
                    ),
                ));
            }
        }
    }
    found
}

/// Savannah 4.3, 1.4: the phase's draws, once the step's cards are
/// played: `announced` is the board
/// the orders were written on, where they are checked, `state` the board
/// the cards left. A chit spent for an extra card is spent when the card
/// is drawn: a player whose chit a card has taken since the orders were
/// written (one the other gained with the pool empty, 12.65: a card played
/// with the orders, or a red card drawn before) has none to spend and
/// draws no extra card.
pub fn resolve(
    rules: &Rules,
    announced: &State,
    state: &State,
    orders: &BTreeMap<String, crate::base::yaml::Value>,
    dice: &mut dyn Dice,
) -> Result<Resolution> {
    if let Some((side, code, field, message)) = check(rules, announced, orders).into_iter().next() {
        return Err(crate::systems::gboar::board::refusals::refuse_orders(&side, &field, &message, code));
    }
    let mut next = state.clone();
    let mut events = Vec::new();
    let draw = &rules.charts.cards.draw;
    let turn = state.turn;
    for player in &draw.order {
        let extra: u32 = orders
            .iter()
            .filter(|(side, _)| rules.player_of_side(side) == *player)
            .filter_map(|(_, body)| parse(body).ok())
            .map(|o| o.momentum)
            .sum();
        for i in 0..draw.per_side {
            let why = if draw.per_side == 1 {
                format!("Random Events Phase, turn {turn}")
            } else {
                format!("Random Events Phase, turn {turn}, card {}", i + 1)
            };
            events.extend(cards::draw(rules, &mut next, player, &why, dice)?);
        }
        let held = next.momentum.get(player).copied().unwrap_or(0);
        if extra > held {
            events.push(
                Event::new(
                    "Savannah 4.3",
                    "momentum-short",
                    format!(
                        "the {player} player's orders spend {extra} momentum chit for an extra Random Events card, but a card has left it {held} since they were written: it spends {held}"
                    ),
                )
                .with("player", player)
                .with("written", extra)
                .with("chits", held),
            );
        }
        let extra = extra.min(held);
        if extra > 0 {
            let chits = next.momentum.entry(player.clone()).or_default();
            *chits -= extra;
            let left = *chits;
            events.push(
                Event::new(
                    "Savannah 1.4",
                    "momentum",
                    format!(
                        "the {player} player spends {extra} momentum chit for an extra Random Events card; {left} left"
                    ),
                )
                .with("holder", player)
                .with("spent", extra)
                .with("chits", left),
            );
            for _ in 0..extra {
                let why = format!("Random Events Phase, turn {turn}, extra card for momentum");
                events.extend(cards::draw(rules, &mut next, player, &why, dice)?);
            }
        }
    }
    Ok(Resolution { state: next, events })
}
