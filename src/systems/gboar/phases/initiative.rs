//! The Initiative Segment (series 6) with momentum (6.2, 12.62), and
//! Savannah's Allies using the French army morale level (Savannah 4.19).
//!
//! Orders (each side of each player may send them; an alliance's sides'
//! spending adds up):
//!
//! ```yaml
//! momentum:
//!   before_roll: 1          # 12.62: chits spent before the roll, +2 each
//!   # The player who did not have the initiative last turn decides second
//!   # (12.62), so it may make its spending depend on the first player's:
//!   # before_roll: {after_opponent: {"0": 0, "1": 2}, otherwise: 1}
//!   dictate: true           # 12.62: if the rolls go against us, spend three
//!                           # chits after them to take the initiative
//! ```
//!
//! With no orders a player spends nothing.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::base::dice::Die;
use crate::base::error::{Error, Result};
use crate::system::{Dice, Event};
use crate::systems::gboar::board::refusals::{self, Code};
use crate::systems::gboar::board::state::Resolution;
use crate::systems::gboar::board::state::State;
use crate::systems::gboar::board::Rules;

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "initiative orders (a map)")]
pub struct InitiativeOrders {
    #[serde(default)]
    pub momentum: Momentum,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "momentum spent on the initiative, a map with before_roll and dictate")]
pub struct Momentum {
    #[serde(default)]
    pub before_roll: Option<Spend>,
    #[serde(default)]
    pub dictate: bool,
}

/// Chits spent before the roll: a number, or a choice by the opponent's.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
#[serde(
    expecting = "is not a number of chits, nor a map with after_opponent (the opponent's chits to yours) and otherwise"
)]
pub enum Spend {
    Chits(u32),
    AfterOpponent {
        #[serde(deserialize_with = "chit_keys")]
        after_opponent: BTreeMap<u32, u32>,
        #[serde(default)]
        otherwise: u32,
    },
}

/// `after_opponent`'s keys, the opponent's chits: `1` or `"1"` (YAML
/// writers often quote map keys).
fn chit_keys<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<BTreeMap<u32, u32>, D::Error> {
    use serde::de::Error as _;
    let map = crate::base::yaml::Mapping::deserialize(d)?;
    let number = |v: &crate::base::yaml::Value, text_too: bool| match v {
        crate::base::yaml::Value::Number(n) => n.as_u64().and_then(|n| u32::try_from(n).ok()),
        crate::base::yaml::Value::String(s) if text_too => s.trim().parse().ok(),
        _ => None,
    };
    map.iter()
        .map(|(k, v)| {
            let key = number(k, true).ok_or_else(|| {
                D::Error::custom(format!(
                    "after_opponent: {} is not a number of chits (0, 1, 2, ...)",
                    crate::base::error::echo(&format!("{k:?}"))
                ))
            })?;
            let value = number(v, false).ok_or_else(|| {
                D::Error::custom(format!(
                    "after_opponent: {} is not a number of chits to spend",
                    crate::base::error::echo(&format!("{v:?}"))
                ))
            })?;
            Ok((key, value))
        })
        .collect()
}

/// 12.62: each chit spent before the roll adds two.
pub const PER_CHIT: i32 = 2;
/// 12.62: three chits after the rolls dictate the initiative.
pub const TO_DICTATE: u32 = 3;

/// What initiative orders hold, for a refusal of their shape.
pub const HINT: &str = "initiative orders are `momentum:`";

fn parse(orders: &BTreeMap<String, crate::base::yaml::Value>, side: &str) -> Result<InitiativeOrders> {
    match orders.get(side) {
        None => Ok(InitiativeOrders::default()),
        Some(body) => crate::base::yaml::read_body(body, HINT)
            .map_err(|(field, message)| Error::refused(format!("initiative orders of {side}: {field}: {message}"))),
    }
}

/// The initiative DRM of a player, with why: its initiative army's morale level
/// (16.2; Savannah 4.19: the Allies use the French level).
pub fn initiative_drm(rules: &Rules, state: &State, player: &str) -> Result<(i32, String)> {
    let alliance = rules
        .sequence
        .data
        .alliances
        .iter()
        .find(|a| a.id == player)
        .ok_or_else(|| Error::refused(format!("no player '{player}'")))?;
    let army = alliance.initiative_from_army.clone().or_else(|| alliance.armies.first().cloned()).unwrap_or_default();
    let value = state.army_morale.get(&army).copied().unwrap_or(0);
    let level = rules
        .charts
        .army_morale
        .levels
        .iter()
        .find(|l| (l.range.min..=l.range.max).contains(&value))
        .ok_or_else(|| Error::refused(format!("army morale {value} of {army} is on no level of the track")))?;
    Ok((level.initiative_drm.unwrap_or(0), format!("{} army {} ({value})", army, level.name)))
}

/// 12.62: the order in which the two players decide their spending: the
/// player who had the initiative last turn first.
pub fn decision_order(rules: &Rules, state: &State) -> Result<(String, String)> {
    let players: Vec<String> = rules.sequence.data.alliances.iter().map(|a| a.id.clone()).collect();
    let [first, second] = players.as_slice() else {
        return Err(Error::refused(format!("initiative is between two players; this module has {}", players.len())));
    };
    Ok(match &state.initiative_holder {
        Some(h) if h == second => (second.clone(), first.clone()),
        _ => (first.clone(), second.clone()),
    })
}

/// What the players spend (12.62): the chits each spends before the roll,
/// and who would dictate after it.
struct Spending {
    before_roll: BTreeMap<String, u32>,
    dictate: BTreeMap<String, bool>,
    /// The players who spend fewer chits than their orders say, as
    /// (player, written, spent): a card played in the step took chits
    /// since the orders were written (Savannah 4.3 with 12.65).
    short: Vec<(String, u32, u32)>,
}

/// Orders the rules refuse: the sides whose orders they are, why
/// (docs/refusals.md) and the message.
type Refusal = (Vec<String>, Code, String);

/// 12.62: the chits each player spends before the roll, its sides'
/// spending added up (Savannah 1.4: the Allies share theirs), the player
/// who decides second reading the first's. Refused when the player who
/// had the initiative, and decides first, makes its spending wait for the
/// other's, or when a player's sides spend more chits than it holds on
/// `state`, the board the orders were written on. `now` is the board the
/// step's cards left, where a player spends no more than it holds: the
/// second reads what the first spends there.
fn spending(
    rules: &Rules,
    state: &State,
    now: &State,
    orders: &BTreeMap<String, crate::base::yaml::Value>,
) -> Result<Spending, Refusal> {
    let (decides_first, decides_second) =
        decision_order(rules, state).map_err(|e| (Vec::new(), Code::ModuleData, e.to_string()))?;
    let mut spent: BTreeMap<String, u32> = BTreeMap::new();
    let mut dictate: BTreeMap<String, bool> = BTreeMap::new();
    let mut short = Vec::new();
    for player in [&decides_first, &decides_second] {
        let mut chits: u32 = 0;
        let sides = rules.sequence.sides_of(player);
        for side in &sides {
            let o = parse(orders, side).map_err(|e| (vec![side.clone()], Code::OrdersShape, e.to_string()))?;
            let n = match o.momentum.before_roll {
                None => 0,
                Some(Spend::Chits(n)) => n,
                Some(Spend::AfterOpponent { after_opponent, otherwise }) => {
                    if player == &decides_first {
                        return Err((
                            vec![side.clone()],
                            Code::FirstDeciderWaits,
                            format!(
                                "{side}: {player} had the initiative last turn and decides first (12.62); it cannot wait for the other player's spending"
                            ),
                        ));
                    }
                    let theirs = spent.get(&decides_first).copied().unwrap_or(0);
                    after_opponent.get(&theirs).copied().unwrap_or(otherwise)
                }
            };
            chits = chits.saturating_add(n);
            if o.momentum.dictate {
                dictate.insert(player.clone(), true);
            }
        }
        let held = state.momentum.get(player).copied().unwrap_or(0);
        if chits > held {
            let spenders: Vec<String> = sides.iter().filter(|s| orders.contains_key(*s)).cloned().collect();
            return Err((
                spenders,
                Code::MomentumOverspent,
                format!("{player} spends {chits} momentum chits before the roll but holds {held}"),
            ));
        }
        let held_now = now.momentum.get(player).copied().unwrap_or(0);
        if chits > held_now {
            short.push((player.clone(), chits, held_now));
        }
        spent.insert(player.clone(), chits.min(held_now));
    }
    Ok(Spending { before_roll: spent, dictate, short })
}

/// 12.62: the problems of initiative orders, each side's alone or every
/// side's together (an alliance's sides' spending adds up): each with the
/// side and the field. Empty when [`resolve`] accepts them.
pub fn check(
    rules: &Rules,
    state: &State,
    orders: &BTreeMap<String, crate::base::yaml::Value>,
) -> Vec<(String, Code, String, String)> {
    match spending(rules, state, state, orders) {
        Ok(_) => Vec::new(),
        Err((sides, code, message)) if sides.is_empty() => vec![(String::new(), code, String::new(), message)],
        Err((sides, code, message)) => {
            sides.into_iter().map(|side| (side, code, "momentum.before_roll".to_string(), message.clone())).collect()
        }
    }
}

/// Series 6.1 with 6.2 and 12.62, once the step's cards are played
/// (Savannah 4.3):
/// `announced` is the board the orders were written on, `state` the board
/// the cards left. The spending is checked on the board it was written on;
/// a player whose chits a card has taken since (a chit the other gained
/// with the pool empty, 12.65) spends the chits it still holds.
pub fn resolve(
    rules: &Rules,
    announced: &State,
    state: &State,
    orders: &BTreeMap<String, crate::base::yaml::Value>,
    dice: &mut dyn Dice,
) -> Result<Resolution> {
    let players: Vec<String> = rules.sequence.data.alliances.iter().map(|a| a.id.clone()).collect();
    let [first, second] = players.as_slice() else {
        return Err(Error::refused(format!("initiative is between two players; this module has {}", players.len())));
    };
    let (decides_first, decides_second) = decision_order(rules, state)?;
    let mut next = state.clone();
    let mut events = Vec::new();
    let Spending { before_roll: mut spent, dictate, short } =
        spending(rules, announced, state, orders).map_err(|(_, code, message)| refusals::refuse(code, message))?;
    for player in [&decides_first, &decides_second] {
        let chits = spent.get(player).copied().unwrap_or(0);
        if let Some((_, written, _)) = short.iter().find(|(p, _, _)| p == player) {
            events.push(
                Event::new(
                    "Savannah 4.3",
                    "momentum-short",
                    format!(
                        "{player}'s orders spend {written} momentum chit(s) before the roll, but a card played in this step has left it {chits}: it spends {chits}"
                    ),
                )
                .with("player", player)
                .with("written", written)
                .with("chits", chits),
            );
        }
        if chits > 0 {
            events.push(
                Event::new(
                    "12.62",
                    "momentum-spent",
                    format!(
                        "{player} spends {chits} momentum chit(s) before the initiative roll: +{}",
                        PER_CHIT * chits as i32
                    ),
                )
                .with("player", player)
                .with("chits", chits),
            );
        }
    }
    // 6.1: each rolls and adds its DRM; ties roll again with the same modifiers.
    let mut totals: BTreeMap<String, i32>;
    let mut card_drms = Vec::new();
    loop {
        totals = BTreeMap::new();
        card_drms.clear();
        for player in [first, second] {
            let (mut drm, mut why) = initiative_drm(rules, state, player)?;
            // Savannah 4.3: a Random Events card's DRM for this roll (the
            // same for a roll again after a tie, spent once both are made).
            for c in crate::systems::gboar::effects::card_effects::own_roll(rules, state, "initiative", player) {
                drm += c.value;
                why = format!("{why}, {:+} {}", c.value, c.text);
                card_drms.push(c);
            }
            let momentum = PER_CHIT * spent.get(player).copied().unwrap_or(0) as i32;
            let roll = dice.roll(Die::D10, &format!("initiative, turn {}: {player}", state.turn))? as i32;
            let total = roll + drm + momentum;
            events.push(
                Event::new(
                    "6.1",
                    "initiative-roll",
                    format!("{player} rolls {roll} {drm:+} ({why}) {momentum:+} (momentum) = {total}"),
                )
                .with("player", player)
                .with("roll", roll)
                .with("drm", drm)
                .with("momentum", momentum)
                .with("total", total),
            );
            totals.insert(player.clone(), total);
        }
        if totals[first] != totals[second] {
            break;
        }
        events.push(Event::new("6.1", "initiative-tie", format!("a tie at {}: both roll again", totals[first])));
    }
    crate::systems::gboar::effects::card_effects::spend(&mut next, &card_drms);
    let (mut winner, mut loser) = if totals[first] > totals[second] { (first, second) } else { (second, first) };
    // 12.62: the loser may spend three chits after the rolls to dictate.
    let loser_holds =
        state.momentum.get(loser).copied().unwrap_or(0).saturating_sub(spent.get(loser).copied().unwrap_or(0));
    if dictate.get(loser).copied().unwrap_or(false) && loser_holds >= TO_DICTATE {
        // The chits spent, as the spending before the roll is told (a
        // report's reader counts each player's chits by these events).
        events.push(
            Event::new(
                "12.62",
                "momentum-spent",
                format!("{loser} spends {TO_DICTATE} momentum chits after the initiative rolls, to dictate"),
            )
            .with("player", loser)
            .with("chits", TO_DICTATE),
        );
        events.push(
            Event::new(
                "12.62",
                "initiative-dictated",
                format!("{loser} spends {TO_DICTATE} momentum chits after the rolls and takes the initiative"),
            )
            .with("player", loser),
        );
        *spent.entry(loser.clone()).or_default() += TO_DICTATE;
        std::mem::swap(&mut winner, &mut loser);
    }
    for (player, chits) in &spent {
        if let Some(held) = next.momentum.get_mut(player) {
            *held = held.saturating_sub(*chits);
        }
    }
    next.player_order = vec![winner.clone(), loser.clone()];
    next.initiative_holder = Some(winner.clone());
    events.push(
        Event::new("6.1", "initiative", format!("{winner} has the initiative on turn {} and moves first", state.turn))
            .with("player", winner)
            .with("order", &next.player_order),
    );
    Ok(Resolution { state: next, events })
}
