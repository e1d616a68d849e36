//! Random Events cards (Savannah 4.3, 1.4): the deck, a draw, and the play
//! of a card's effects in cards.yaml's vocabulary. The Random Events Phase
//! draws (and plays the red cards at once); every step plays the cards its
//! orders' `play:` names (phases/mod.rs), so both live here.
//!
//! Hands are the players' (alliances'): "the Allies must share Random
//! Event cards" (4.3), as they share momentum (1.4). A hand is secret: the
//! events that name a card drawn or held are marked visible to its holder
//! only (`visible_to`), and the others read only that a card was drawn.

use crate::base::dice::Die;
use crate::base::error::{Error, Result};
use crate::system::{Dice, Event, VISIBLE_TO};
use crate::systems::gboar::board::refusals::Code;
use crate::systems::gboar::board::state::State;
use crate::systems::gboar::board::Rules;
use crate::systems::gboar::data::charts::{Card, Param};

/// The effect kinds this version plays (cards.yaml `effects[].effect`). A
/// card with any other effect is refused when played (`card-effect-not-built`)
/// and never offered by the template; a red card with one is drawn and set
/// aside, its effect reported as not played.
pub const BUILT: &[&str] = &[
    "army-morale",
    "momentum",
    "vp",
    "draw-cards",
    "reveal-hand",
    "set-weather",
    "cancel-card",
    "delay-reinforcements",
    "auto-rally",
    "replace-counter",
    "remove-leader",
    "add-unit",
    "drm",
    "skip-phase",
    "morale-check",
    "movement-bonus",
    "ignore-lost-roll",
    "mark-lost",
    // Savannah 4.5, 4.14, 4.4: effects/siege.rs.
    "breach",
    "repair-breach",
    "complete-british-works",
    "extra-construction-marker",
];

/// The effect that marks an enemy stack Lost (cards.yaml `mark-lost`).
pub const MARK_LOST: &str = "mark-lost";

/// The effect that makes one enemy unit check morale (cards.yaml
/// `morale-check`): the play names it, `{card: ID, units: [UNIT]}`.
pub const MORALE_CHECK: &str = "morale-check";

/// The effect that names units (cards.yaml `auto-rally`): the play gives
/// them, `{card: ID, units: [UNIT, ...]}`.
pub const AUTO_RALLY: &str = "auto-rally";

/// 4.3: the trumping effect (Local Superiority).
pub const CANCEL: &str = "cancel-card";

/// Whether the scenario plays Random Events cards (cards.yaml `draw.scenarios`).
pub fn in_scenario(rules: &Rules) -> bool {
    let draw = &rules.charts.cards.draw;
    draw.scenarios.is_empty() || draw.scenarios.contains(&rules.scenario)
}

/// Savannah 3 III, 4.3: whether `turn` is a Random Events turn (cards.yaml
/// `draw.turns`, the one list of them).
pub fn draw_turn(rules: &Rules, turn: u32) -> bool {
    in_scenario(rules) && rules.charts.cards.draw.turns.contains(&turn)
}

pub fn card<'a>(rules: &'a Rules, id: &str) -> Option<&'a Card> {
    rules.charts.cards.cards.iter().find(|c| c.id == id)
}

pub fn title(rules: &Rules, id: &str) -> String {
    card(rules, id).map(|c| format!("{} ({id})", c.title)).unwrap_or_else(|| id.to_string())
}

/// The cards still in the deck, in cards.yaml's order: neither in a hand
/// nor played.
pub fn deck<'a>(rules: &'a Rules, state: &State) -> Vec<&'a Card> {
    rules
        .charts
        .cards
        .cards
        .iter()
        .filter(|c| !state.played_cards.contains(&c.id) && state.cards.values().all(|h| !h.contains(&c.id)))
        .collect()
}

/// The other player (4.3's "opposing player").
pub fn opponent(rules: &Rules, player: &str) -> Option<String> {
    rules.sequence.data.alliances.iter().find(|a| a.id != player).map(|a| a.id.clone())
}

/// The first effect of `card` this version cannot play: one not in
/// [`BUILT`], or a `drm` for a roll not wired (`drm (ROLL)`,
/// card_effects::DRM_ROLLS).
pub fn unbuilt(card: &Card) -> Option<String> {
    card.effects.iter().find_map(|e| {
        if !BUILT.contains(&e.effect.as_str()) {
            return Some(e.effect.clone());
        }
        let roll = word(e, "applies_to").unwrap_or_default();
        (e.effect == super::card_effects::DRM && !super::card_effects::DRM_ROLLS.contains(&roll))
            .then(|| format!("{} ({roll})", e.effect))
    })
}

/// 4.3's flags: whether `player` may play `card`.
pub fn flag_allows(rules: &Rules, card: &Card, player: &str) -> bool {
    match card.flags.as_str() {
        "all" => true,
        "british" | "allied" => {
            // The flag names the player by its armies' side: `british` the
            // British player, `allied` the other (cards.yaml `flags`).
            let allied = rules
                .sequence
                .data
                .alliances
                .iter()
                .find(|a| a.id == player)
                .is_some_and(|a| !a.armies.iter().any(|x| x == "british"));
            (card.flags == "allied") == allied
        }
        _ => false,
    }
}

/// 4.3's game turn marks (and a card's own `turns`): whether `card` may be
/// played on this turn, the marker on `track`.
pub fn timing_allows(card: &Card, track: Option<&str>, turn: u32) -> bool {
    let mark = match card.timing.as_str() {
        "any" => true,
        "on-draw" => false,
        t => track == Some(t),
    };
    mark && card.turns.as_ref().is_none_or(|b| b.contains(turn as i32))
}

/// Why `player` (playing for `side`) may not play `id` now: the code and
/// the message; `None` when it may.
pub fn refusal(rules: &Rules, state: &State, player: &str, id: &str) -> Option<(Code, String)> {
    if !in_scenario(rules) {
        return Some((
            Code::CardsNotInScenario,
            format!("the {} scenario plays no Random Events cards (cards.yaml draw.scenarios)", rules.scenario),
        ));
    }
    let Some(c) = card(rules, id) else {
        return Some((
            Code::CardNotHeld,
            format!("'{id}' is no card of the deck (cards.yaml cards[].id){}", held_text(state, player)),
        ));
    };
    if !state.cards.get(player).is_some_and(|h| h.iter().any(|x| x == id)) {
        return Some((
            Code::CardNotHeld,
            format!("the {player} player does not hold {}{}", title(rules, id), held_text(state, player)),
        ));
    }
    if !flag_allows(rules, c, player) {
        return Some((
            Code::CardFlagForbids,
            format!(
                "{} bears the {} flag: the {player} player may hold it but not play it (Savannah 4.3)",
                title(rules, id),
                c.flags
            ),
        ));
    }
    let track = rules.sequence.track(state.turn);
    if !timing_allows(c, track, state.turn) {
        let when = match (c.timing.as_str(), &c.turns) {
            ("on-draw", _) => "it is played the moment it is drawn".to_string(),
            (_, Some(b)) if !b.contains(state.turn as i32) => {
                format!("it may be played on turns {}-{} only", b.min.unwrap_or(1), b.max.unwrap_or(99))
            }
            (t, _) => format!("it is marked '{t}' and the game turn marker is on the {} track", track.unwrap_or("?")),
        };
        return Some((
            Code::CardTimingForbids,
            format!("{} may not be played on turn {}: {when} (Savannah 4.3)", title(rules, id), state.turn),
        ));
    }
    if let Some(effect) = unbuilt(c) {
        return Some((
            Code::CardEffectNotBuilt,
            format!(
                "{}: this version of adjutant cannot play its effect '{effect}' yet (it plays {})",
                title(rules, id),
                BUILT.join(", ")
            ),
        ));
    }
    None
}

fn held_text(state: &State, player: &str) -> String {
    let hand = state.cards.get(player).cloned().unwrap_or_default();
    if hand.is_empty() {
        format!("; the {player} player holds no card")
    } else {
        format!("; it holds {}", hand.join(", "))
    }
}

/// The cards `player` may play now, in hand order (what the template offers).
pub fn playable(rules: &Rules, state: &State, player: &str) -> Vec<String> {
    let hand = state.cards.get(player).cloned().unwrap_or_default();
    hand.into_iter()
        .filter(|id| refusal(rules, state, player, id).is_none())
        .filter(|id| card(rules, id).is_some_and(|c| !c.effects.iter().any(|e| e.effect == CANCEL)))
        .filter(|id| {
            card(rules, id).and_then(units_taken).is_none() || !unit_candidates(rules, state, player, id).is_empty()
        })
        .collect()
}

/// The `play:` item that plays `id` now (what the template offers): the
/// card's id, or with the first units its effect may take.
pub fn play_item(rules: &Rules, state: &State, player: &str, id: &str) -> String {
    match card(rules, id).and_then(units_taken) {
        Some(count) => {
            let units: Vec<String> = unit_candidates(rules, state, player, id).into_iter().take(count.max(1)).collect();
            format!("{{card: {id}, units: [{}]}}", units.join(", "))
        }
        None => id.to_string(),
    }
}

fn secret(event: Event, player: &str) -> Event {
    event.with(VISIBLE_TO, vec![player.to_string()])
}

/// Draw one card from the deck for `player` (one roll of a `cN` die over
/// the N cards left, docs/DICE.md §5), into its hand; a red card is played
/// at once (4.3). `why` names the draw in the roll's purpose.
pub fn draw(rules: &Rules, state: &mut State, player: &str, why: &str, dice: &mut dyn Dice) -> Result<Vec<Event>> {
    let left = deck(rules, state);
    let Ok(n) = u16::try_from(left.len()) else {
        return Err(Error::refused("cards.yaml: the deck is too large to draw from"));
    };
    if n == 0 {
        return Ok(vec![Event::new(
            "Savannah 4.3",
            "card-draw",
            format!("the {player} player would draw a card ({why}), but the deck is empty"),
        )
        .with("player", player)]);
    }
    let roll = dice.roll(Die::Cards(n), &format!("{why}: a card for the {player} player, of the {n} in the deck"))?;
    let picked = left[usize::from(roll.max(1)) - 1];
    let id = picked.id.clone();
    let hand = state.cards.entry(player.to_string()).or_default();
    hand.push(id.clone());
    let size = hand.len();
    let mut events = vec![
        Event::new(
            "Savannah 4.3",
            "card-draw",
            format!("the {player} player draws a Random Events card ({why}); it holds {size}"),
        )
        .with("player", player)
        .with("hand_size", size),
        secret(
            Event::new(
                "Savannah 4.3",
                "card-drawn",
                format!("the {player} player's card ({why}): {}", title(rules, &id)),
            )
            .with("player", player)
            .with("card", &id),
            player,
        ),
    ];
    if picked.red {
        // 4.3: "These cards MUST be played the moment they are drawn".
        events.push(
            Event::new(
                "Savannah 4.3",
                "card-red",
                format!("{} is printed in red: the {player} player plays it at once", title(rules, &id)),
            )
            .with("player", player)
            .with("card", &id),
        );
        if let Some(effect) = unbuilt(picked) {
            remove_from_hand(state, player, &id);
            state.played_cards.push(id.clone());
            events.push(Event::new(
                "Savannah 4.3",
                "card-not-played",
                format!(
                    "{}: this version of adjutant cannot play its effect '{effect}' yet; the card is set aside unplayed",
                    title(rules, &id)
                ),
            ));
        } else {
            events.extend(play(rules, state, player, None, &id, &[], dice)?);
        }
    }
    Ok(events)
}

fn remove_from_hand(state: &mut State, player: &str, id: &str) {
    if let Some(hand) = state.cards.get_mut(player) {
        hand.retain(|c| c != id);
    }
}

fn word<'a>(effect: &'a crate::systems::gboar::data::charts::Effect, key: &str) -> Option<&'a str> {
    match effect.params.get(key) {
        Some(Param::Word(w)) => Some(w),
        _ => None,
    }
}

fn int(effect: &crate::systems::gboar::data::charts::Effect, key: &str) -> Option<i32> {
    match effect.params.get(key) {
        Some(Param::Int(n)) => Some(*n),
        _ => None,
    }
}

/// The armies a card's `side` names, for `player` playing it by `side_of`
/// (the orders' side; none for a red card on its draw): `self` is the
/// playing side's armies, or every army of the player for a red card;
/// `opponent` every army of the other player; an army id that army.
fn armies(rules: &Rules, player: &str, by_side: Option<&str>, which: &str) -> Vec<String> {
    let of_player = |p: &str| -> Vec<String> {
        rules.sequence.data.alliances.iter().filter(|a| a.id == p).flat_map(|a| a.armies.clone()).collect()
    };
    match which {
        "self" => match by_side {
            Some(side) => rules.sequence.data.armies.iter().filter(|a| a.side == side).map(|a| a.id.clone()).collect(),
            None => of_player(player),
        },
        "opponent" => opponent(rules, player).map(|o| of_player(&o)).unwrap_or_default(),
        army => vec![army.to_string()],
    }
}

/// Play `id` from `player`'s hand (by `side`, the orders' side; `None` for
/// a red card on its draw): each effect in order (cards.yaml), then the
/// card leaves the game (4.3: played cards are not held). The caller has
/// checked [`refusal`].
pub fn play(
    rules: &Rules,
    state: &mut State,
    player: &str,
    side: Option<&str>,
    id: &str,
    units: &[String],
    dice: &mut dyn Dice,
) -> Result<Vec<Event>> {
    let Some(c) = card(rules, id) else {
        return Err(Error::refused(format!("cards.yaml: no card '{id}'")));
    };
    remove_from_hand(state, player, id);
    state.played_cards.push(id.to_string());
    let by = side.map(|s| format!(" ({s})")).unwrap_or_default();
    let mut events =
        vec![Event::new("Savannah 4.3", "card-played", format!("the {player} player{by} plays {}", title(rules, id)))
            .with("player", player)
            .with("card", id)];
    let name = title(rules, id);
    for e in &c.effects {
        match e.effect.as_str() {
            "army-morale" => {
                let delta = int(e, "delta").unwrap_or(0);
                for army in armies(rules, player, side, word(e, "side").unwrap_or("self")) {
                    events.push(crate::systems::gboar::effects::morale::adjust(
                        rules,
                        state,
                        &army,
                        delta,
                        "Savannah 4.3",
                        &format!("the Random Events card {name}"),
                    ));
                }
            }
            "momentum" => {
                let delta = int(e, "delta").unwrap_or(0);
                let (holder, other) = match word(e, "side").unwrap_or("self") {
                    "self" => (player.to_string(), opponent(rules, player).unwrap_or_default()),
                    _ => (opponent(rules, player).unwrap_or_default(), player.to_string()),
                };
                events.extend(card_momentum(rules, state, &name, &holder, &other, delta));
            }
            "vp" => {
                let halves = int(e, "halves").unwrap_or(0);
                let list = armies(rules, player, side, word(e, "side").unwrap_or("self"));
                // Savannah 2.9 "Random Events: # (see card)": to the playing
                // side's army (the first, for a side of several).
                if let Some(army) = list.first() {
                    let v = state.vp_halves.entry(army.clone()).or_default();
                    *v += halves;
                    let now = *v;
                    events.push(
                        Event::new(
                            "Savannah 2.9",
                            "victory-points",
                            format!("{name}: {army} {:+} VP (Savannah 2.9: Random Events)", f64::from(halves) / 2.0),
                        )
                        .with("army", army)
                        .with("halves", halves)
                        .with("total_halves", now),
                    );
                }
            }
            "set-weather" => {
                let weather = word(e, "weather").unwrap_or_default().to_string();
                state.weather = Some(weather.clone());
                events.push(
                    Event::new(
                        "Savannah 4.3",
                        "weather",
                        format!("{name}: the weather is now {weather} for this turn"),
                    )
                    .with("weather", &weather)
                    .with("turn", state.turn),
                );
            }
            "draw-cards" => {
                let count = int(e, "count").unwrap_or(1).max(0);
                for _ in 0..count {
                    match word(e, "from").unwrap_or("deck") {
                        "opponent-hand" => events.extend(draw_from_opponent(rules, state, player, &name, dice)?),
                        _ => events.extend(draw(rules, state, player, &name, dice)?),
                    }
                }
            }
            "reveal-hand" => {
                let other = opponent(rules, player).unwrap_or_default();
                let hand = state.cards.get(&other).cloned().unwrap_or_default();
                let shown: Vec<String> = hand.iter().map(|h| title(rules, h)).collect();
                events.push(secret(
                    Event::new(
                        "Savannah 4.3",
                        "hand-revealed",
                        format!(
                            "{name}: the {other} player's hand is {}",
                            if shown.is_empty() { "empty".to_string() } else { shown.join(", ") }
                        ),
                    )
                    .with("player", &other)
                    .with("cards", &hand),
                    player,
                ));
            }
            "delay-reinforcements" => {
                let turns = u32::try_from(int(e, "turns").unwrap_or(1).max(0)).unwrap_or(0);
                let list = armies(rules, player, side, word(e, "side").unwrap_or("self"));
                events.push(delay_reinforcements(rules, state, &list, turns, &name));
            }
            AUTO_RALLY => {
                // codes.yaml: "count friendly disrupted or shattered units
                // rally without a die roll (one level each, 15.2)".
                use crate::systems::gboar::board::state::Condition;
                for id in units {
                    let Some(u) = state.units.get_mut(id) else { continue };
                    let before = u.condition;
                    u.condition = match before {
                        Condition::Shattered => Condition::Disrupted,
                        _ => Condition::ParadeOrder,
                    };
                    let after = u.condition;
                    events.push(
                        Event::new(
                            "15.2",
                            "rally",
                            format!("{name}: {id} rallies without a roll, {before:?} to {after:?} (15.2)"),
                        )
                        .with("unit", id)
                        .with("card", &c.id),
                    );
                }
            }
            "replace-counter" => {
                let unit = word(e, "unit").unwrap_or_default().to_string();
                let replacement = word(e, "replacement").unwrap_or_default().to_string();
                events.push(replace_counter(rules, state, &unit, &replacement, &name));
            }
            "add-unit" => {
                let unit = word(e, "unit").unwrap_or_default().to_string();
                let entry = word(e, "entry").unwrap_or_default().to_string();
                events.push(add_unit(rules, state, &unit, &entry, &name));
            }
            "remove-leader" => {
                let leader = word(e, "leader").unwrap_or_default().to_string();
                events.push(remove_unit(rules, state, &leader, &name));
            }
            super::card_effects::DRM => {
                let roll = word(e, "applies_to").unwrap_or_default().to_string();
                let value = int(e, "value").unwrap_or(0);
                let scope = word(e, "scope").unwrap_or(super::card_effects::ONE_ROLL).to_string();
                let condition = word(e, "condition").map(str::to_string);
                let when = match condition.as_deref() {
                    Some("enemy-roll") => format!("{:+} to the other player's next {roll} roll", -value),
                    Some(c) => format!("{value:+} to the {player} player's {roll} roll when {c}"),
                    None => format!("{value:+} to the {player} player's {roll} roll"),
                };
                let lasts =
                    if scope == super::card_effects::ONE_ROLL { "the first such roll" } else { "every such roll" };
                events.push(super::card_effects::recorded(
                    format!("{name}: {when}, {lasts} of turn {} (Savannah 4.3)", state.turn),
                    id,
                    player,
                ));
                state.card_effects.push(crate::systems::gboar::board::state::CardEffect {
                    card: id.to_string(),
                    effect: e.effect.clone(),
                    player: player.to_string(),
                    turn: state.turn,
                    applies_to: Some(roll),
                    value,
                    scope: Some(scope),
                    condition,
                    armies: Vec::new(),
                    phases: Vec::new(),
                    units: Vec::new(),
                });
            }
            super::card_effects::SKIP_PHASE => {
                let list = armies(rules, player, side, word(e, "side").unwrap_or("opponent"));
                let phases = match e.params.get("phases") {
                    Some(Param::List(l)) => l.clone(),
                    Some(Param::Word(w)) => vec![w.clone()],
                    _ => Vec::new(),
                };
                events.push(super::card_effects::recorded(
                    format!(
                        "{name}: {} may not perform the {} phase(s) on turn {} (Savannah 4.3)",
                        list.join(", "),
                        phases.join(", "),
                        state.turn
                    ),
                    id,
                    player,
                ));
                state.card_effects.push(crate::systems::gboar::board::state::CardEffect {
                    card: id.to_string(),
                    effect: e.effect.clone(),
                    player: player.to_string(),
                    turn: state.turn,
                    applies_to: None,
                    value: 0,
                    scope: None,
                    condition: None,
                    armies: list,
                    phases,
                    units: Vec::new(),
                });
            }
            super::card_effects::MOVEMENT_BONUS | super::card_effects::IGNORE_LOST_ROLL => {
                let mut stacks: Vec<String> = units.iter().flat_map(|u| stack_of(rules, state, u)).collect();
                stacks.sort();
                stacks.dedup();
                let mp = if e.effect == super::card_effects::MOVEMENT_BONUS { int(e, "mp").unwrap_or(0) } else { 0 };
                let what = if mp != 0 {
                    format!("gain {mp:+} MP in their Movement Phase this turn")
                } else {
                    "roll no die for getting lost on the Covered Way this turn (Savannah 4.9)".to_string()
                };
                events.push(
                    super::card_effects::recorded(
                        format!("{name}: {} {what} (Savannah 4.3)", stacks.join(", ")),
                        id,
                        player,
                    )
                    .with("units", &stacks),
                );
                state.card_effects.push(crate::systems::gboar::board::state::CardEffect {
                    card: id.to_string(),
                    effect: e.effect.clone(),
                    player: player.to_string(),
                    turn: state.turn,
                    applies_to: None,
                    value: mp,
                    scope: None,
                    condition: None,
                    armies: Vec::new(),
                    phases: Vec::new(),
                    units: stacks,
                });
            }
            MARK_LOST => {
                for unit in units {
                    let stack = stack_of(rules, state, unit);
                    for u in &stack {
                        if let Some(s) = state.units.get_mut(u) {
                            s.lost = true;
                            s.previously_lost = false;
                        }
                    }
                    let hex = crate::systems::gboar::board::units::hex_of(state, unit)
                        .map(|h| h.to_string())
                        .unwrap_or_default();
                    events.push(
                        Event::new(
                            "Savannah 4.9",
                            "lost",
                            format!(
                                "{name}: {} in {hex} are marked Lost (Savannah 4.9: no further move this turn, no \
                                 ZOC, half strength in combat, a retreat result pins them)",
                                stack.join(", ")
                            ),
                        )
                        .with("units", &stack)
                        .with("hex", &hex)
                        .with("card", id),
                    );
                }
            }
            MORALE_CHECK => {
                let drm = int(e, "drm").unwrap_or(0);
                for unit in units {
                    events.extend(card_morale_check(rules, state, player, id, unit, drm, &name, dice)?);
                }
            }
            // Savannah 4.5 (breaches and repairs), 4.14 (the British works
            // completed early), 4.4 (an extra construction marker): the
            // siege effects, the chooser's picks the first legal ones.
            "breach" | "repair-breach" | "complete-british-works" | "extra-construction-marker" => {
                let by = crate::systems::gboar::effects::siege::By {
                    player,
                    side,
                    rule: "Savannah 4.3",
                    why: &format!("the Random Events card {name}"),
                };
                let picks = crate::systems::gboar::effects::siege::Picks::default();
                events.extend(crate::systems::gboar::effects::siege::apply(
                    rules,
                    state,
                    &by,
                    std::slice::from_ref(e),
                    &picks,
                    dice,
                )?);
            }
            // Resolved where the plays of a step are matched (phases/mod.rs).
            CANCEL => {}
            other => {
                return Err(crate::systems::gboar::board::refusals::refuse(
                    Code::CardEffectNotBuilt,
                    format!("{name}: this version of adjutant cannot play its effect '{other}' yet"),
                ));
            }
        }
    }
    Ok(events)
}

/// 4.3: "1 card allows the player to draw an additional card from the
/// opposing player's hand": one at random (a `cN` roll over that hand, in
/// its order).
fn draw_from_opponent(
    rules: &Rules,
    state: &mut State,
    player: &str,
    why: &str,
    dice: &mut dyn Dice,
) -> Result<Vec<Event>> {
    let other = opponent(rules, player).unwrap_or_default();
    let hand = state.cards.get(&other).cloned().unwrap_or_default();
    let Ok(n) = u16::try_from(hand.len()) else { return Ok(Vec::new()) };
    if n == 0 {
        return Ok(vec![Event::new(
            "Savannah 4.3",
            "card-draw",
            format!("{why}: the {other} player holds no card to draw from"),
        )]);
    }
    let roll = dice.roll(Die::Cards(n), &format!("{why}: a card of the {n} in the {other} player's hand"))?;
    let id = hand[usize::from(roll.max(1)) - 1].clone();
    remove_from_hand(state, &other, &id);
    let mine = state.cards.entry(player.to_string()).or_default();
    mine.push(id.clone());
    let size = mine.len();
    Ok(vec![
        Event::new(
            "Savannah 4.3",
            "card-draw",
            format!("{why}: the {player} player draws a card from the {other} player's hand; it holds {size}"),
        )
        .with("player", player)
        .with("from", &other)
        .with("hand_size", size),
        Event::new("Savannah 4.3", "card-drawn", format!("{why}: the card taken is {}", title(rules, &id)))
            .with("card", &id)
            .with(VISIBLE_TO, vec![player.to_string(), other]),
    ])
}

/// A card's `momentum` effect: `holder` gains `delta` chits (or returns
/// them, for a negative `delta`), one at a time as series 12.6 moves
/// chits. A chit gained comes from the pool of 12.61; with the pool empty
/// the other player returns one of his instead, and with none held nothing
/// happens (12.65), so the chits held never exceed the pool. A chit lost
/// goes back to the pool (12.62), and one not held is not lost.
fn card_momentum(rules: &Rules, state: &mut State, name: &str, holder: &str, other: &str, delta: i32) -> Vec<Event> {
    use crate::systems::gboar::effects::results::{empty_pool_event, gain_chit, Gain};
    let pool = crate::systems::gboar::effects::retreat::momentum_pool(rules);
    let mut events = Vec::new();
    let held = |state: &State| state.momentum.get(holder).copied().unwrap_or(0);
    // The holder's chits changed by one: `sign` is "+1" or "-1".
    let changed = |state: &State, sign: &str| {
        let now = held(state);
        Event::new(
            "Savannah 4.3",
            "momentum",
            format!("{name}: the {holder} player's momentum {sign}, now {now} chit(s)"),
        )
        .with("holder", holder)
        .with("chits", now)
    };
    for _ in 0..delta.unsigned_abs() {
        if delta > 0 {
            let gain = gain_chit(state, pool, holder, other);
            events.push(
                empty_pool_event(gain, &format!("{name}: "), holder, other).unwrap_or_else(|| changed(state, "+1")),
            );
            // Once nothing happens, nothing more will: a module's large
            // delta costs no more than the pool's chits (the cost stays
            // bounded).
            if gain == Gain::Nothing {
                break;
            }
        } else {
            let before = held(state);
            if before == 0 {
                break;
            }
            state.momentum.insert(holder.to_string(), before - 1);
            events.push(changed(state, "-1"));
        }
    }
    events
}

/// The orders field that plays cards, in any step's orders (4.3: "Cards
/// may be played at any time during the game").
pub const PLAY: &str = "play";

/// One card played: its id, for a trumping card the card it cancels, and
/// for a card whose effect takes units (auto-rally) the units.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Play {
    pub card: String,
    pub cancels: Option<String>,
    pub units: Vec<String>,
}

/// A problem of `play:`: its code, field and message.
pub type Problem = (Code, String, String);

/// The cards `body` plays (`play: [id, {card: id, cancels: id}]`), or the
/// problems of the field's shape.
pub fn plays(body: &crate::base::yaml::Value) -> std::result::Result<Vec<Play>, Vec<Problem>> {
    use crate::base::yaml::Value;
    let Some(list) = body.get(PLAY) else { return Ok(Vec::new()) };
    let shape = |field: String, what: &str| {
        (
            Code::OrdersShape,
            field,
            format!("{what}: `play:` is a list of card ids, or of `{{card: ID, cancels: ID}}` or `{{card: ID, units: [ID]}}`"),
        )
    };
    let Value::Sequence(items) = list else { return Err(vec![shape(PLAY.into(), "not a list")]) };
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let field = format!("{PLAY}[{i}]");
        match item {
            Value::String(id) => out.push(Play { card: id.clone(), cancels: None, units: Vec::new() }),
            Value::Mapping(m) => {
                let text = |k: &str| match m.get(Value::String(k.into())) {
                    Some(Value::String(s)) => Ok(Some(s.clone())),
                    None => Ok(None),
                    Some(_) => Err(()),
                };
                let unknown =
                    m.keys().any(|k| !matches!(k, Value::String(s) if s == "card" || s == "cancels" || s == "units"));
                let units = match m.get(Value::String("units".into())) {
                    None => Ok(Vec::new()),
                    Some(Value::Sequence(list)) => list
                        .iter()
                        .map(|u| u.as_str().map(str::to_string).ok_or(()))
                        .collect::<std::result::Result<Vec<String>, ()>>(),
                    Some(_) => Err(()),
                };
                match (text("card"), text("cancels"), units) {
                    (Ok(Some(card)), Ok(cancels), Ok(units)) if !unknown => out.push(Play { card, cancels, units }),
                    _ => problems.push(shape(field, "an item has keys other than card, cancels and units, or no card")),
                }
            }
            _ => problems.push(shape(field, "an item is neither a card id nor a mapping")),
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

/// `body` without `play:`: what the phase itself reads, copied only when
/// it holds the field.
pub fn without_plays(body: &crate::base::yaml::Value) -> std::borrow::Cow<'_, crate::base::yaml::Value> {
    use crate::base::yaml::Value;
    use std::borrow::Cow;
    match body {
        Value::Mapping(m) if m.contains_key(Value::String(PLAY.into())) => {
            let mut m = m.clone();
            m.remove(Value::String(PLAY.into()));
            Cow::Owned(Value::Mapping(m))
        }
        other => Cow::Borrowed(other),
    }
}

/// Every problem of one side's `play:` (each card alone): held, flags,
/// timing, built; a trumping card must name the card it cancels, and only
/// a trumping card may.
pub fn check_plays(rules: &Rules, state: &State, side: &str, body: &crate::base::yaml::Value) -> Vec<Problem> {
    let list = match plays(body) {
        Ok(list) => list,
        Err(problems) => return problems,
    };
    let player = rules.player_of_side(side);
    let mut found = Vec::new();
    // A set, not a list: a file of thousands of plays is checked in time
    // linear in it (the hostile benchmark, 2026-12-07: a list made 16,000
    // plays cost 60 times 1,000).
    let mut seen: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
    for (i, p) in list.iter().enumerate() {
        let field = format!("{PLAY}[{i}]");
        if !seen.insert(p.card.as_str()) {
            found.push((Code::CardNotHeld, field, format!("{} is played twice", title(rules, &p.card))));
            continue;
        }
        if let Some((code, message)) = refusal(rules, state, &player, &p.card) {
            found.push((code, field, message));
            continue;
        }
        if let Some(problem) = units_problem(rules, state, &player, p) {
            found.push((Code::CardUnits, field, problem));
            continue;
        }
        let trumps = card(rules, &p.card).is_some_and(|c| c.effects.iter().any(|e| e.effect == CANCEL));
        match (trumps, &p.cancels) {
            (true, None) => found.push((
                Code::CardCancelsNothing,
                field,
                format!(
                    "{} cancels a card the other side plays: write `{{card: {}, cancels: CARD-ID}}` (Savannah 4.3, docs/rules-readings.md)",
                    title(rules, &p.card),
                    p.card
                ),
            )),
            (false, Some(_)) => found.push((
                Code::CardCancelsNothing,
                format!("{field}.cancels"),
                format!("{} cancels no card; only a trumping card (Local Superiority) takes `cancels:`", title(rules, &p.card)),
            )),
            _ => {}
        }
    }
    found
}

/// Play the cards of one step's orders (sides in id order, each side's in
/// its order), before the phase (4.3). A trumping card whose `cancels:`
/// names a card the other player plays in the same step cancels it: both
/// leave the game, the cancelled card's effects not applied; one whose card
/// is not played stays in its holder's hand.
pub fn play_all(
    rules: &Rules,
    state: &mut State,
    orders: &std::collections::BTreeMap<String, crate::base::yaml::Value>,
    dice: &mut dyn Dice,
) -> Result<Vec<Event>> {
    let mut all: Vec<(String, String, Play)> = Vec::new();
    for (side, body) in orders {
        if let Some((code, field, message)) = check_plays(rules, state, side, body).into_iter().next() {
            return Err(crate::systems::gboar::board::refusals::refuse(
                code,
                format!("{side}'s orders, {field}: {message}"),
            ));
        }
        let list = plays(body).map_err(|p| {
            let (code, field, message) = &p[0];
            crate::systems::gboar::board::refusals::refuse(*code, format!("{side}'s orders, {field}: {message}"))
        })?;
        for p in list {
            let player = rules.player_of_side(side);
            if let Some((first, _, _)) = all.iter().find(|(_, pl, q)| *pl == player && q.card == p.card) {
                return Err(crate::systems::gboar::board::refusals::refuse(
                    Code::CardNotHeld,
                    format!(
                        "{side}'s orders, {PLAY}: {} is played by {first} too; the card is played once",
                        title(rules, &p.card)
                    ),
                ));
            }
            all.push((side.clone(), player, p));
        }
    }
    let mut cancelled: Vec<(String, String)> = Vec::new(); // (card, by)
    let mut events = Vec::new();
    for (side, player, p) in &all {
        if let Some(target) = &p.cancels {
            let played_by_other = all.iter().any(|(_, pl, q)| pl != player && &q.card == target && q.cancels.is_none());
            if played_by_other && !cancelled.iter().any(|(c, _)| c == target) {
                cancelled.push((target.clone(), p.card.clone()));
            } else {
                events.push(secret(
                    Event::new(
                        "Savannah 4.3",
                        "card-not-played",
                        format!(
                            "{} ({side}) is not played: the other side plays no {} in this step; it stays in the hand",
                            title(rules, &p.card),
                            target
                        ),
                    ),
                    player,
                ));
            }
        }
    }
    for (side, player, p) in &all {
        if let Some((_, by)) = cancelled.iter().find(|(c, _)| c == &p.card) {
            remove_from_hand(state, player, &p.card);
            state.played_cards.push(p.card.clone());
            events.push(
                Event::new(
                    "Savannah 4.3",
                    "card-cancelled",
                    format!(
                        "the {player} player ({side}) plays {}, cancelled at once by {} (Savannah 4.3: trumping)",
                        title(rules, &p.card),
                        title(rules, by)
                    ),
                )
                .with("card", &p.card)
                .with("by", by),
            );
        } else if p.cancels.is_none() || cancelled.iter().any(|(_, by)| by == &p.card) {
            events.extend(play(rules, state, player, Some(side), &p.card, &p.units, dice)?);
        }
    }
    Ok(events)
}

/// A card's `delay-reinforcements`: the armies' reinforcements due this
/// turn and not yet arrived (the schedule's, and those put off to this
/// turn) arrive `turns` later, at the same entry (series 9.61's delay, not
/// a blocked entry).
fn delay_reinforcements(rules: &Rules, state: &mut State, armies: &[String], turns: u32, why: &str) -> Event {
    use crate::systems::gboar::board::state::{Arrival, OffMap};
    let turn = state.turn;
    let later = turn.saturating_add(turns);
    let mut delayed: Vec<String> = Vec::new();
    if let Some(data) = &rules.reinforcements {
        for s in data.schedule.iter().filter(|s| s.turn == turn && armies.contains(&s.army)) {
            let strategic =
                rules.entries.iter().find(|d| d.letter == s.entry).is_none_or(|d| d.strategic_movement_on_arrival);
            for id in &s.units {
                let Some(u) = state.units.get_mut(id) else { continue };
                if u.off_map != Some(OffMap::Reinforcement) || u.arriving.is_some() {
                    continue;
                }
                u.arriving = Some(Arrival {
                    turn: later,
                    entry: s.entry.clone(),
                    hexes: Vec::new(),
                    mp_bonus: 0,
                    artillery_mp_multiplier: 1,
                    strategic_movement: strategic,
                    max_hexes: s.arrival.as_ref().and_then(|a| a.max_hexes),
                    pays_entry_cost: false,
                    blocked: false,
                    priority: false,
                });
                delayed.push(id.clone());
            }
        }
    }
    for (id, u) in state.units.iter_mut() {
        let Some(army) = rules.army_of(id) else { continue };
        if !armies.iter().any(|a| a == army) || u.off_map != Some(OffMap::Reinforcement) || delayed.contains(id) {
            continue;
        }
        if let Some(a) = u.arriving.as_mut().filter(|a| a.turn == turn) {
            a.turn = later;
            delayed.push(id.clone());
        }
    }
    delayed.sort();
    let text = if delayed.is_empty() {
        format!("{why}: no reinforcement of {} is due this turn; nothing is delayed", armies.join(", "))
    } else {
        format!("{why}: the reinforcements due this turn ({}) arrive on turn {later}", delayed.join(", "))
    };
    Event::new("Savannah 4.3", "reinforcements-delayed", text).with("units", &delayed).with("turn", later)
}

/// The units an `auto-rally` effect may take for `player`: its armies'
/// disrupted or shattered units on the map, in id order.
pub fn rally_candidates(rules: &Rules, state: &State, player: &str) -> Vec<String> {
    use crate::systems::gboar::board::state::Condition;
    state
        .units
        .iter()
        .filter(|(id, u)| {
            u.hex.is_some()
                && u.off_map.is_none()
                && matches!(u.condition, Condition::Disrupted | Condition::Shattered)
                && rules.player_of_unit(id) == Some(player)
        })
        .map(|(id, _)| id.clone())
        .collect()
}

/// How many units the card's effects take (`auto-rally`'s `count`; one
/// for `morale-check`), if any.
fn units_taken(c: &Card) -> Option<usize> {
    c.effects.iter().find_map(|e| match e.effect.as_str() {
        AUTO_RALLY => Some(usize::try_from(int(e, "count").unwrap_or(1).max(0)).unwrap_or(0)),
        MORALE_CHECK | MARK_LOST => Some(1),
        super::card_effects::MOVEMENT_BONUS | super::card_effects::IGNORE_LOST_ROLL => {
            Some(usize::try_from(int(e, "units").unwrap_or(1).max(0)).unwrap_or(0))
        }
        _ => None,
    })
}

/// The units the card `id`'s effect may take for `player`: for
/// `auto-rally` its disrupted or shattered units ([`rally_candidates`]);
/// for `morale-check` the units its `target` names ([`check_candidates`]).
pub fn unit_candidates(rules: &Rules, state: &State, player: &str, id: &str) -> Vec<String> {
    let Some(c) = card(rules, id) else { return Vec::new() };
    for e in &c.effects {
        match e.effect.as_str() {
            MORALE_CHECK => return check_candidates(rules, state, player, word(e, "target").unwrap_or_default()),
            MARK_LOST => return lost_candidates(rules, state, player),
            super::card_effects::MOVEMENT_BONUS | super::card_effects::IGNORE_LOST_ROLL => {
                return own_units(rules, state, player)
            }
            _ => {}
        }
    }
    rally_candidates(rules, state, player)
}

/// `player`'s units on the map, in id order (a `movement-bonus` or
/// `ignore-lost-roll` card names a stack by one of them).
pub fn own_units(rules: &Rules, state: &State, player: &str) -> Vec<String> {
    use crate::systems::gboar::board::units::{hex_of, player_of};
    state.units.keys().filter(|u| hex_of(state, u).is_some() && player_of(rules, u) == player).cloned().collect()
}

/// The units of `unit`'s stack: its player's units in its hex, in id order.
pub fn stack_of(rules: &Rules, state: &State, unit: &str) -> Vec<String> {
    use crate::systems::gboar::board::units::{hex_of, player_of};
    let Some(hex) = hex_of(state, unit) else { return Vec::new() };
    let player = player_of(rules, unit);
    state.units.keys().filter(|u| hex_of(state, u) == Some(hex) && player_of(rules, u) == player).cloned().collect()
}

/// A `mark-lost` card's targets for `player` (codes.yaml: "One enemy stack
/// (target: enemy-stack, one that has just moved, played at the end of its
/// move)"): read by email as the enemy's combat units on the map during the
/// enemy's player turn after its Movement Phase (a step of that player turn
/// other than movement: its stacks have moved), none at another time.
pub fn lost_candidates(rules: &Rules, state: &State, player: &str) -> Vec<String> {
    use crate::systems::gboar::board::units::{hex_of, player_of};
    use crate::systems::gboar::data::sequence::Step;
    let Some(Step::PlayerTurn { player: phasing, phase, .. }) = &state.next else { return Vec::new() };
    if phasing == player || phase == "movement" {
        return Vec::new();
    }
    state
        .units
        .keys()
        .filter(|u| {
            hex_of(state, u).is_some()
                && player_of(rules, u) == phasing
                && rules.counter(u).is_some_and(|c| !c.is_leader())
        })
        .cloned()
        .collect()
}

/// A `morale-check` card's targets for `player`, in id order: enemy combat
/// units (not leaders) on the map; `enemy-unit-adjacent`: next to one of
/// the player's combat units; `allied-unit-in-naval-bombardment-zone`:
/// those in map.yaml's zone `naval-bombardment-zone` (Savannah 4.11; the
/// card bears the British flag, so they are Allied). Another target picks
/// none.
pub fn check_candidates(rules: &Rules, state: &State, player: &str, target: &str) -> Vec<String> {
    use crate::systems::gboar::board::units::{hex_of, player_of};
    let layout = rules.module.map.layout;
    let combat = |id: &str| rules.counter(id).is_some_and(|c| !c.is_leader());
    let own: Vec<crate::base::hex::HexId> = state
        .units
        .keys()
        .filter(|u| combat(u) && player_of(rules, u) == player)
        .filter_map(|u| hex_of(state, u))
        .collect();
    let zone: Vec<crate::base::hex::HexId> =
        rules.module.map.zone("naval-bombardment-zone").map(|z| z.hexes.to_vec()).unwrap_or_default();
    state
        .units
        .keys()
        .filter(|u| combat(u) && player_of(rules, u) != player && !player_of(rules, u).is_empty())
        .filter(|u| {
            let Some(h) = hex_of(state, u) else { return false };
            match target {
                "enemy-unit-adjacent" => own.iter().any(|o| crate::base::hex::are_adjacent(*o, h, layout)),
                // The card is the British player's (its flag), so the
                // enemy's units are the Allied ones.
                "allied-unit-in-naval-bombardment-zone" => zone.contains(&h),
                _ => false,
            }
        })
        .cloned()
        .collect()
}

/// A card's `morale-check` (codes.yaml: "One unit picked by the side makes
/// a morale check (13.5) with the extra drm; if it fails it retreats one
/// hex"): the check at the army morale of now, the card's drm on it, and a
/// retreat of one hex (13.2) on a failure, by the default path.
#[allow(clippy::too_many_arguments)]
fn card_morale_check(
    rules: &Rules,
    state: &mut State,
    player: &str,
    id: &str,
    unit: &str,
    drm: i32,
    why: &str,
    dice: &mut dyn Dice,
) -> Result<Vec<Event>> {
    use crate::systems::gboar::effects::results::{morale_check, MoraleCheck};
    use crate::systems::gboar::effects::retreat;
    if drm != 0 {
        // The card's drm, on this check only (spent by it).
        state.card_effects.push(crate::systems::gboar::board::state::CardEffect {
            card: id.to_string(),
            effect: super::card_effects::DRM.into(),
            player: crate::systems::gboar::board::units::player_of(rules, unit).to_string(),
            turn: state.turn,
            applies_to: Some(MORALE_CHECK.into()),
            value: drm,
            scope: Some(super::card_effects::ONE_ROLL.into()),
            condition: None,
            armies: Vec::new(),
            phases: Vec::new(),
            units: Vec::new(),
        });
    }
    let morale_at_start = state.army_morale.clone();
    let text = format!("the Random Events card {why}");
    let check = MoraleCheck { why: &text, morale_at_start: &morale_at_start, attacked_from: &[], trigger: None };
    let (passed, event) = morale_check(rules, state, unit, &check, dice)?;
    let mut events = vec![event.with("card", id)];
    if !passed {
        let by = rules.sequence.data.alliances.iter().find(|a| a.id == player).and_then(|a| a.armies.first().cloned());
        let by = by.unwrap_or_default();
        let order = retreat::Order {
            unit,
            distance: retreat::Distance::One,
            rule: "Savannah 4.3",
            why: &format!("failed morale check: {text}"),
            by: &by,
            close_combat: None,
            army_morale: false,
        };
        let (_, e) = retreat::retreat(rules, state, &order, None)?;
        events.extend(e);
    }
    Ok(events)
}

/// What is wrong with the units of a play: `units:` on a card that takes
/// none; none, too many, or one that is not the player's disrupted or
/// shattered unit on the map, on one that does.
fn units_problem(rules: &Rules, state: &State, player: &str, p: &Play) -> Option<String> {
    let c = card(rules, &p.card)?;
    let name = title(rules, &p.card);
    let Some(count) = units_taken(c) else {
        return (!p.units.is_empty()).then(|| format!("{name} takes no `units:`"));
    };
    let open = unit_candidates(rules, state, player, &p.card);
    let checks = c.effects.iter().all(|e| e.effect != AUTO_RALLY);
    let (verb, none) = if checks {
        ("pick", "there is no enemy unit it may pick".to_string())
    } else {
        ("rally", format!("the {player} player has no disrupted or shattered unit on the map"))
    };
    let open_text = if open.is_empty() { none } else { format!("it may {verb} {}", open.join(", ")) };
    if p.units.is_empty() || p.units.len() > count {
        let what = if checks {
            format!("takes up to {count} unit(s), each naming its stack or itself")
        } else {
            format!("rallies up to {count} unit(s)")
        };
        return Some(format!("{name} {what}: write `{{card: {}, units: [UNIT]}}`; {open_text}", p.card));
    }
    for (i, u) in p.units.iter().enumerate() {
        if !open.contains(u) || p.units[..i].contains(u) {
            let what = if checks { "pick" } else { "rally" };
            return Some(format!("{name}: {u} is not one of the units it may {what}; {open_text}"));
        }
    }
    None
}

/// The name of a counter, for events.
fn unit_name(rules: &Rules, id: &str) -> String {
    rules.counter(id).map(|c| format!("{} ({id})", c.name)).unwrap_or_else(|| id.to_string())
}

/// A card's `replace-counter` (Savannah 4.8: "Random Events may cause any
/// or all of these units to be replaced with their substitute counters"):
/// the replacement takes the unit's place, hex, condition and markers (its
/// steps at most its own), on the map or still to arrive (on the unit's
/// scheduled turn and entry); the unit leaves play, with no VP or army
/// morale (a removal, not a loss). A unit no longer in play is not replaced.
fn replace_counter(rules: &Rules, state: &mut State, unit: &str, replacement: &str, why: &str) -> Event {
    use crate::systems::gboar::board::state::{Arrival, OffMap};
    let (from, to) = (unit_name(rules, unit), unit_name(rules, replacement));
    let in_play =
        state.units.get(unit).filter(|u| u.hex.is_some() || u.off_map == Some(OffMap::Reinforcement)).cloned();
    let Some(mut taken) = in_play.filter(|_| !state.units.contains_key(replacement)) else {
        return Event::new(
            "Savannah 4.8",
            "counter-replaced",
            format!("{why}: {from} is not in play (or already replaced); nothing is replaced"),
        )
        .with("unit", unit);
    };
    if let Some(max) = rules.counter(replacement).and_then(|c| c.steps) {
        taken.steps = taken.steps.min(max);
    }
    if taken.off_map == Some(OffMap::Reinforcement) && taken.arriving.is_none() {
        let scheduled =
            rules.reinforcements.as_ref().and_then(|d| d.schedule.iter().find(|s| s.units.iter().any(|u| u == unit)));
        if let Some(s) = scheduled {
            taken.arriving = Some(Arrival {
                turn: s.turn.max(state.turn),
                entry: s.entry.clone(),
                hexes: Vec::new(),
                mp_bonus: 0,
                artillery_mp_multiplier: 1,
                strategic_movement: rules
                    .entries
                    .iter()
                    .find(|d| d.letter == s.entry)
                    .is_none_or(|d| d.strategic_movement_on_arrival),
                max_hexes: s.arrival.as_ref().and_then(|a| a.max_hexes),
                pays_entry_cost: false,
                blocked: false,
                priority: false,
            });
        }
    }
    let hex = taken.hex;
    state.units.insert(replacement.to_string(), taken);
    if let Some(u) = state.units.get_mut(unit) {
        u.leave_map(OffMap::Removed);
        u.arriving = None;
    }
    let place = hex.as_ref().map(|h| format!(" in {h}")).unwrap_or_else(|| " (still to arrive)".into());
    Event::new("Savannah 4.8", "counter-replaced", format!("{why}: {from}{place} is replaced by {to}"))
        .with("unit", unit)
        .with("replacement", replacement)
}

/// A card's `remove-leader` (Savannah 4.18: "the play of Random Events may
/// cause the removal of Dillon"): the leader leaves play, on the map or
/// still to arrive; a removal, not a casualty (no VPs, chosen).
fn remove_unit(rules: &Rules, state: &mut State, id: &str, why: &str) -> Event {
    use crate::systems::gboar::board::state::OffMap;
    let name = unit_name(rules, id);
    let Some(u) = state.units.get_mut(id).filter(|u| u.hex.is_some() || u.off_map == Some(OffMap::Reinforcement))
    else {
        return Event::new("Savannah 4.18", "unit-removed", format!("{why}: {name} is not in play; nothing happens"))
            .with("unit", id);
    };
    let was = u.hex;
    u.leave_map(OffMap::Removed);
    u.arriving = None;
    let place = was.map(|h| format!(" from {h}")).unwrap_or_else(|| " before he arrives".into());
    Event::new("Savannah 4.18", "unit-removed", format!("{why}: {name} is removed from play{place} (no VPs)"))
        .with("unit", id)
}

/// A card's `add-unit` (Savannah 4.8: units that "may appear in the
/// Campaign Game as the result of Random Events"): the unit comes into play
/// as a reinforcement at `entry`, this turn if the player turns are still
/// to come (the card played in a game-turn phase), else next turn.
fn add_unit(rules: &Rules, state: &mut State, unit: &str, entry: &str, why: &str) -> Event {
    use crate::systems::gboar::board::state::{Arrival, OffMap, UnitState};
    use crate::systems::gboar::data::sequence::Step;
    let name = unit_name(rules, unit);
    let Some(counter) = rules.counter(unit) else {
        return Event::new("Savannah 4.8", "unit-added", format!("{why}: {unit} is no counter of the module"));
    };
    if state.units.contains_key(unit) {
        return Event::new("Savannah 4.8", "unit-added", format!("{why}: {name} is already in play; nothing happens"))
            .with("unit", unit);
    }
    let turn = match &state.next {
        Some(Step::GameTurn { .. }) => state.turn,
        _ => state.turn.saturating_add(1),
    };
    let mut u = UnitState::fresh(None, Some(OffMap::Reinforcement), counter.steps.unwrap_or(1));
    u.arriving = Some(Arrival {
        turn,
        entry: entry.to_string(),
        hexes: Vec::new(),
        mp_bonus: 0,
        artillery_mp_multiplier: 1,
        strategic_movement: rules
            .entries
            .iter()
            .find(|d| d.letter == entry)
            .is_none_or(|d| d.strategic_movement_on_arrival),
        max_hexes: None,
        pays_entry_cost: false,
        blocked: false,
        priority: false,
    });
    state.units.insert(unit.to_string(), u);
    Event::new(
        "Savannah 4.8",
        "unit-added",
        format!("{why}: {name} comes into play, arriving at {entry} on turn {turn} (9.6)"),
    )
    .with("unit", unit)
    .with("entry", entry)
    .with("turn", turn)
}
