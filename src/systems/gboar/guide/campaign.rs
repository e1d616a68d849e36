//! The template's guides for the Savannah Campaign Game's own phases
//! (Savannah 1.4, 4.3 to 4.6): the Random Events Phase's extra card, where
//! a siege work may be begun or completed, the Siege & Bombardment
//! response, and the cards a side may play at any step. Split from
//! template.rs, whose `guide` calls them.

use std::collections::BTreeMap;

use crate::base::hex::HexId;
use crate::systems::gboar::board::state::State;
use crate::systems::gboar::board::Rules;

use super::template::{choice_lines, plain_guide, runs_text, wrap, Choice, Guide};
/// Savannah 1.4, 4.3: the Random Events Phase's choice, the extra card
/// for a momentum chit.
pub(super) fn random_events_guide(rules: &Rules, state: &State, side: &str) -> Guide {
    let mut g = plain_guide(rules, state, side, "random-events", "docs/orders.md, Random Events");
    let player = rules.player_of_side(side);
    let held = state.momentum.get(&player).copied().unwrap_or(0);
    let max = rules.charts.cards.draw.momentum_extra_draw_max;
    let mut text = format!(
        "Random Events Phase (Savannah 4.3): the players draw in the order {}, one card each; the {player} player holds {held} momentum chit(s).",
        rules.charts.cards.draw.order.join(", ")
    );
    let sides = rules.sequence.sides_of(&player);
    if sides.len() > 1 {
        text += &format!(" The {} sides share the chits and the hand (Savannah 1.4, 4.3).", sides.join(" and "));
    }
    let mut comment = wrap("# ", "#   ", &text);
    if held > 0 && max > 0 {
        let choice = Choice {
            key: "momentum".into(),
            yaml: Some("1".into()),
            text: format!("spend 1 chit for one more card (Savannah 1.4: at most {max} a phase)"),
            ..Choice::default()
        };
        comment += "# With no orders no chit is spent. To buy a card:\n";
        comment += &choice_lines(false, &[&choice]);
        g.choices.push(choice);
    } else {
        comment += "# No chit to spend for an extra card (Savannah 1.4).\n";
    }
    g.comment = comment;
    g
}

/// Savannah 4.4, 4.5: the Construct Siege Works Phase: the markers flipped
/// this step and the alignments open to each (4.4: "that marker is
/// flipped, and aligned so that the hexsides to be entrenched are
/// portrayed by the white symbols"), how many markers the French may
/// place, and every hex where the first may go (found by the orders' own
/// check), each offered.
pub(super) fn construct_guide(rules: &Rules, state: &State, side: &str) -> Guide {
    use crate::systems::gboar::board::siege;
    use crate::systems::gboar::phases::siege_works;
    let mut g = plain_guide(rules, state, side, "construct-siege-works", "docs/orders.md, Construct Siege Works");
    let mut text = format!("Construct Siege Works Phase, turn {} (Savannah 4.4).", state.turn);
    if !state.siege_works.is_empty() {
        let works: Vec<String> = state.siege_works.iter().map(siege::describe).collect();
        text += &format!(" Siege works: {}.", works.join("; "));
    }
    let layout = rules.module.map.layout;
    let flipping = siege_works::flipping(rules, state);
    let mut flip_choices: Vec<Choice> = Vec::new();
    for (hex, why) in &flipping {
        match why {
            Some(why) => text += &format!(" The marker in {hex} is not flipped this turn: {why}."),
            None => {
                let Ok(h) = hex.parse::<HexId>() else { continue };
                let around: Vec<String> = crate::base::hex::neighbours(h, layout)
                    .into_iter()
                    .filter(|n| rules.module.map.terrain.contains_key(n))
                    .map(|n| n.to_string())
                    .collect();
                let default = siege_works::default_toward(rules, &state.siege_works, h);
                text += &format!(
                    " The marker in {hex} is flipped and aligned now: toward names the adjacent hexes ({}) its \
                     entrenched hexsides face, as many as a counter of the mix left shows; without a flip entry it \
                     faces {}.",
                    around.join(", "),
                    default.join(", ")
                );
                let sizes = siege::step_of(rules, state.turn)
                    .map(|(rule, _)| {
                        siege::mix_sizes(rule)
                            .into_iter()
                            .filter(|m| {
                                siege::counters_left(rule, &state.siege_works, *m as usize).is_none_or(|l| l > 0)
                            })
                            .collect::<Vec<u32>>()
                    })
                    .unwrap_or_default();
                let mut near: Vec<String> = default.clone();
                near.extend(around.iter().filter(|a| !default.contains(a)).cloned());
                for n in sizes {
                    let toward: Vec<String> = near.iter().take(n as usize).map(|t| format!("\"{t}\"")).collect();
                    flip_choices.push(Choice {
                        key: siege_works::FLIP.into(),
                        yaml: Some(format!("{{hex: \"{hex}\", toward: [{}]}}", toward.join(", "))),
                        text: format!(
                            "the marker in {hex} completed with a counter of {n} hexside{} (Savannah 4.4)",
                            if n == 1 { "" } else { "s" }
                        ),
                        ..Choice::default()
                    });
                }
            }
        }
    }
    let open = siege_works::open_hexes(rules, state);
    match siege_works::allowance(rules, state) {
        None => text += " No construction markers are placed this turn.",
        Some(_) if !siege::weather_allows(rules, state) => {
            text += &format!(" The {} prevents construction this turn.", siege::weather_name(rules, state))
        }
        Some((n, words)) => {
            text += &format!(" You may place {words} construction markers ({n} now); the first may go in {}.", {
                if open.is_empty() {
                    "no hex".to_string()
                } else {
                    runs_text(&open)
                }
            })
        }
    }
    let mut comment = wrap("# ", "#   ", &text);
    if !flip_choices.is_empty() {
        comment += "# To align a marker flipped (under flip:):\n";
        comment += &choice_lines(true, &flip_choices.iter().collect::<Vec<_>>());
    }
    let choices: Vec<Choice> = open
        .iter()
        .map(|h| Choice {
            key: siege_works::PLACE.into(),
            yaml: Some(format!("{{hex: \"{h}\"}}")),
            text: "a construction marker (Savannah 4.4); its hexsides are chosen when it is flipped".into(),
            ..Choice::default()
        })
        .collect();
    if !choices.is_empty() {
        comment += "# With no orders no marker is placed. To place one (under place:), the first in one of:\n";
        comment += &choice_lines(true, &choices.iter().take(1).collect::<Vec<_>>());
    }
    let mut all = flip_choices;
    all.extend(choices);
    g.choices = all;
    g.comment = comment;
    g
}

/// Savannah 4.6: the Siege & Bombardment Phase: the side rolls unless it
/// says `bombard: false`; where its results may fall.
pub(super) fn bombard_guide(rules: &Rules, state: &State, side: &str) -> Guide {
    use crate::systems::gboar::board::siege;
    let mut g = plain_guide(rules, state, side, "siege-and-bombardment", "docs/orders.md, Siege & Bombardment");
    let chart = &rules.charts.siege_bombardment;
    let works: Vec<String> = state.siege_works.iter().map(siege::describe).collect();
    let text = format!(
        "Siege & Bombardment Phase, turn {} (Savannah 4.6): the sides roll on {} in the order {}; with no orders this side rolls and its results fall on the first hexside, hex or marker in the board's order. Siege works: {}.",
        state.turn,
        chart.table_i.name,
        chart.procedure.order.join(", "),
        if works.is_empty() { "none".to_string() } else { works.join("; ") }
    );
    let mut comment = wrap("# ", "#   ", &text);
    let mut choices = vec![Choice {
        key: "bombard".into(),
        yaml: Some("false".into()),
        text: "do not roll this phase".into(),
        ..Choice::default()
    }];
    let player = rules.player_of_side(side);
    let (breach, other): (Vec<String>, Option<(&str, Vec<String>)>) = if player == siege::builder_player(rules) {
        let city: Vec<String> = siege::city_hexes(rules, state, false).iter().map(HexId::to_string).collect();
        (siege::fieldwork_sides(rules, state, false).iter().map(|s| s.to_string()).collect(), Some(("destroy", city)))
    } else {
        let markers: Vec<String> = state.siege_works.iter().filter(|w| !w.completed).map(|w| w.hex.clone()).collect();
        (siege::siege_sides(state, false), Some(("remove", markers)))
    };
    // `options`: every hexside, hex or marker the list may name, in the
    // board's order (the list's order is the order the results fall in).
    let options = |list: &[String]| BTreeMap::from([("options".to_string(), serde_json::json!(list))]);
    if let Some(first) = breach.first() {
        choices.push(Choice {
            key: "breach".into(),
            yaml: Some(format!("[\"{first}\"]")),
            text: format!("where a breach falls first (Savannah 4.5); one of {}", breach.join(" ")),
            details: options(&breach),
            ..Choice::default()
        });
    }
    if let Some((key, list)) = other.filter(|(_, l)| !l.is_empty()) {
        choices.push(Choice {
            key: key.into(),
            yaml: Some(format!("[\"{}\"]", list[0])),
            text: format!("where such a result falls first; one of {}", list.join(" ")),
            details: options(&list),
            ..Choice::default()
        });
    }
    comment += &choice_lines(false, &choices.iter().collect::<Vec<_>>());
    g.choices = choices;
    g.comment = comment;
    g
}

/// Savannah 4.3: the player's hand, and each card it may play now as a
/// `play:` choice (the others with why not); every step's orders may play
/// cards. A trumping card is offered only in the step's own response form.
pub(super) fn cards_guide(rules: &Rules, state: &State, side: &str, g: &mut Guide) {
    use crate::systems::gboar::effects::cards;
    if !cards::in_scenario(rules) {
        return;
    }
    let player = rules.player_of_side(side);
    let hand = state.cards.get(&player).cloned().unwrap_or_default();
    let others: Vec<String> = state
        .cards
        .iter()
        .filter(|(h, _)| **h != player)
        .map(|(h, cards)| format!("the {h} player holds {}", cards.len()))
        .collect();
    if hand.is_empty() && others.is_empty() {
        return;
    }
    let mut text = if hand.is_empty() {
        format!("Random Events cards (Savannah 4.3): the {player} player holds none")
    } else {
        let titles: Vec<String> = hand.iter().map(|id| cards::title(rules, id)).collect();
        format!("Random Events cards (Savannah 4.3): the {player} player holds {}", titles.join(", "))
    };
    if !others.is_empty() {
        text += &format!("; {}", others.join(", "));
    }
    text.push('.');
    let mut comment = wrap("# ", "#   ", &text);
    let playable = cards::playable(rules, state, &player);
    let choices: Vec<Choice> = playable
        .iter()
        .map(|id| {
            let effects: Vec<String> = cards::card(rules, id)
                .map(|c| c.effects.iter().map(|e| e.effect.clone()).collect())
                .unwrap_or_default();
            Choice {
                key: cards::PLAY.into(),
                yaml: Some(format!("[{}]", cards::play_item(rules, state, &player, id))),
                text: format!("play {} ({})", cards::title(rules, id), effects.join(", ")),
                ..Choice::default()
            }
        })
        .collect();
    if !choices.is_empty() {
        comment += "# Cards you may play now, with these orders:\n";
        comment += &choice_lines(false, &choices.iter().collect::<Vec<_>>());
    }
    for id in hand.iter().filter(|id| !playable.contains(id)) {
        let why = match cards::refusal(rules, state, &player, id) {
            Some((code, message)) => format!("{message} [{}]", code.id()),
            None => format!(
                "a trumping card: play it only in answer to a card, `{{card: {id}, cancels: CARD-ID}}` (Savannah 4.3)"
            ),
        };
        comment += &wrap("# not now: ", "#   ", &why);
    }
    g.comment += &comment;
    g.choices.extend(choices);
}
