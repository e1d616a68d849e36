//! The lasting effects of Random Events cards (Savannah 4.3: "Random
//! Events cards can influence a number of elements of play"): a card played
//! in one step's orders that acts later - a DRM for a roll still to come
//! (`drm`), a phase a side may not perform this turn (`skip-phase`). The
//! card's play records them in the state (`State::card_effects`); the
//! phases read them here, where the rule applies, and the roll that uses a
//! `one-roll` DRM spends it. Every effect lasts the turn it was played at
//! most (chosen: a card "this turn"; a `one-roll` DRM not used by the end
//! of its turn is lost, docs/rules-readings.md).

use crate::system::Event;
use crate::systems::gboar::board::state::{CardEffect, State};

/// cards.yaml's DRM effect.
pub const DRM: &str = "drm";
/// cards.yaml's effect that forbids a side phases of this turn.
pub const SKIP_PHASE: &str = "skip-phase";

/// cards.yaml's effect that gives stacks MPs in their Movement Phase.
pub const MOVEMENT_BONUS: &str = "movement-bonus";
/// cards.yaml's effect that spares stacks the Covered Way's lost roll.
pub const IGNORE_LOST_ROLL: &str = "ignore-lost-roll";

/// The rolls a card's `drm` modifies in this version (codes.yaml `drm`'s
/// `applies_to`); a card whose DRM is for another roll is refused when
/// played (`card-effect-not-built`).
pub const DRM_ROLLS: &[&str] = &["close-combat", "fire", "initiative", "morale-check", SIEGE_BOMBARDMENT];

/// codes.yaml `drm`'s `applies_to` for a side's roll on Siege & Bombardment
/// Table I (Savannah 4.6).
pub const SIEGE_BOMBARDMENT: &str = "siege-bombardment";

/// `one-roll`: spent by the first roll it modifies.
pub const ONE_ROLL: &str = "one-roll";

/// One card DRM that modifies a roll: where it is in the state, its card,
/// its value in the roll's own sign, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardDrm {
    pub index: usize,
    pub card: String,
    pub value: i32,
    pub text: String,
}

fn title(rules: &crate::systems::gboar::board::Rules, id: &str) -> String {
    super::cards::title(rules, id)
}

fn live<'a>(state: &'a State, kind: &'a str) -> impl Iterator<Item = (usize, &'a CardEffect)> + 'a {
    state.card_effects.iter().enumerate().filter(move |(_, e)| e.effect == kind && e.turn == state.turn)
}

/// The card DRMs of `roller`'s own roll of kind `roll` (initiative, a
/// morale check): its cards' DRMs for that roll with no condition, added.
pub fn own_roll(rules: &crate::systems::gboar::board::Rules, state: &State, roll: &str, roller: &str) -> Vec<CardDrm> {
    live(state, DRM)
        .filter(|(_, e)| e.applies_to.as_deref() == Some(roll) && e.player == roller && e.condition.is_none())
        .map(|(index, e)| CardDrm {
            index,
            card: e.card.clone(),
            value: e.value,
            text: format!("the Random Events card {} (Savannah 4.3)", title(rules, &e.card)),
        })
        .collect()
}

/// The card DRMs of a Close Combat roll (12.23 step 6), in its convention
/// (positive for the Attacker): the attacking player's cards for Close
/// Combat with no condition, `attacking`, or `attacking-fieldworks` when
/// the attack crosses a fieldwork hexside, added; the defending player's
/// with no condition, `defending` or `enemy-roll`, subtracted (codes.yaml:
/// "a close combat value is turned into the attacker-positive convention").
pub fn close_combat(
    rules: &crate::systems::gboar::board::Rules,
    state: &State,
    attacker: &str,
    defender: &str,
    across_fieldworks: bool,
) -> Vec<CardDrm> {
    live(state, DRM)
        .filter(|(_, e)| e.applies_to.as_deref() == Some("close-combat"))
        .filter_map(|(index, e)| {
            let condition = e.condition.as_deref();
            let sign = if e.player == attacker
                && (condition.is_none()
                    || condition == Some("attacking")
                    || (condition == Some("attacking-fieldworks") && across_fieldworks))
            {
                1
            } else if e.player == defender && matches!(condition, None | Some("defending") | Some("enemy-roll")) {
                -1
            } else {
                return None;
            };
            let role = if sign > 0 { "the Attacker's" } else { "the Defender's" };
            Some(CardDrm {
                index,
                card: e.card.clone(),
                value: sign * e.value,
                text: format!("{role} Random Events card {} (Savannah 4.3)", title(rules, &e.card)),
            })
        })
        .collect()
}

/// The card DRMs of a fire's To Hit roll (10.3, 11.3; Savannah 4.12), in
/// its convention (positive for the firer): the firing player's cards for
/// fire with no condition, added; the target's player's `enemy-roll` ones
/// (codes.yaml: "subtracted from the opponent's"), subtracted.
pub fn fire(rules: &crate::systems::gboar::board::Rules, state: &State, firer: &str) -> Vec<CardDrm> {
    let target = super::cards::opponent(rules, firer).unwrap_or_default();
    live(state, DRM)
        .filter(|(_, e)| e.applies_to.as_deref() == Some("fire"))
        .filter_map(|(index, e)| {
            let (sign, role) = match (e.condition.as_deref(), e.player.as_str()) {
                (None, p) if p == firer => (1, "the firer's"),
                (Some("enemy-roll"), p) if p == target => (-1, "the target's"),
                _ => return None,
            };
            Some(CardDrm {
                index,
                card: e.card.clone(),
                value: sign * e.value,
                text: format!("{role} Random Events card {} (Savannah 4.3)", title(rules, &e.card)),
            })
        })
        .collect()
}

/// Whether the card DRM with modifier id `id` (`card:ID`) is spent by the
/// first roll it modifies.
pub fn one_roll(state: &State, id: &str) -> bool {
    live(state, DRM).any(|(_, e)| format!("card:{}", e.card) == id && e.scope.as_deref() == Some(ONE_ROLL))
}

/// The id of a card DRM among a roll's modifiers (`card:ID`).
pub fn drm_id(card: &CardDrm) -> String {
    format!("card:{}", card.card)
}

/// Spend the `one-roll` DRMs among `used` (by the roll just made); the
/// `this-turn` ones stay until the turn ends.
pub fn spend(state: &mut State, used: &[CardDrm]) {
    let mut gone: Vec<usize> = used
        .iter()
        .filter(|d| state.card_effects.get(d.index).is_some_and(|e| e.scope.as_deref() == Some(ONE_ROLL)))
        .map(|d| d.index)
        .collect();
    gone.sort_unstable();
    gone.dedup();
    for i in gone.into_iter().rev() {
        state.card_effects.remove(i);
    }
}

/// Spend the `one-roll` card DRMs whose ids (`card:ID`, [`drm_id`]) are
/// among a roll's modifier ids.
pub fn spend_ids<'a>(
    rules: &crate::systems::gboar::board::Rules,
    state: &mut State,
    ids: impl Iterator<Item = &'a str>,
) {
    let ids: Vec<&str> = ids.collect();
    let used: Vec<CardDrm> = live(state, DRM)
        .filter(|(_, e)| ids.contains(&format!("card:{}", e.card).as_str()))
        .map(|(index, e)| CardDrm { index, card: e.card.clone(), value: e.value, text: title(rules, &e.card) })
        .collect();
    spend(state, &used);
}

/// Savannah 4.3 (a `skip-phase` card): whether `phase` of this turn is
/// forbidden to every army of `armies` (the armies that perform it; none
/// means it is never skipped).
pub fn phase_skipped(state: &State, phase: &str, armies: &[String]) -> bool {
    !armies.is_empty()
        && live(state, SKIP_PHASE)
            .any(|(_, e)| e.phases.iter().any(|p| p == phase) && armies.iter().all(|a| e.armies.contains(a)))
}

/// Savannah 4.3 (a `skip-phase` card): whether `step` is not played this
/// turn because its phase is forbidden to all who perform it: a player
/// turn's phase to the player's armies; a game-turn phase to the armies
/// of module.yaml `phases[].armies`, or to the army that must open it (the
/// scenario's `turn_rules[].first`: Savannah 4.6 "The British player may
/// not be the first player to use Siege and Bombardment").
pub fn step_skipped(
    rules: &crate::systems::gboar::board::Rules,
    state: &State,
    step: &crate::systems::gboar::data::sequence::Step,
) -> bool {
    use crate::systems::gboar::data::sequence::Step;
    if !state.card_effects.iter().any(|e| e.effect == SKIP_PHASE) {
        return false;
    }
    let phase = step.phase();
    let armies: Vec<String> = match step {
        Step::PlayerTurn { player, .. } => {
            rules.sequence.data.alliances.iter().filter(|a| &a.id == player).flat_map(|a| a.armies.clone()).collect()
        }
        _ => match rules
            .scenario_movement
            .turn_rules
            .iter()
            .find_map(|r| r.first.clone().filter(|_| r.phase.as_deref() == Some(phase)))
        {
            Some(first) => vec![first],
            None => {
                rules.sequence.data.phases.iter().find(|p| p.id == phase).map(|p| p.armies.clone()).unwrap_or_default()
            }
        },
    };
    phase_skipped(state, phase, &armies)
}

/// A `movement-bonus` card (codes.yaml: "units (a number of friendly
/// stacks) gain mp Movement Points this Movement Phase"): the MPs `unit`
/// gains this turn, added to its allowance before strategic movement
/// doubles it (as Savannah 4.7's bonus).
pub fn movement_bonus(state: &State, unit: &str) -> i32 {
    live(state, MOVEMENT_BONUS).filter(|(_, e)| e.units.iter().any(|u| u == unit)).map(|(_, e)| e.value).sum()
}

/// An `ignore-lost-roll` card (codes.yaml: "units (friendly stacks) need
/// not roll for getting lost on the Covered Way this turn", Savannah 4.9):
/// whether the moving stack `ids` is one of them (every unit of it was in
/// a stack the card named).
pub fn lost_roll_ignored(state: &State, ids: &[String]) -> Option<String> {
    live(state, IGNORE_LOST_ROLL)
        .find(|(_, e)| !ids.is_empty() && ids.iter().all(|i| e.units.contains(i)))
        .map(|(_, e)| e.card.clone())
}

/// The end of a turn: the effects of cards played on it end (4.3: "this
/// turn"; an unspent `one-roll` DRM with them).
pub fn expire(state: &mut State) {
    let turn = state.turn;
    state.card_effects.retain(|e| e.turn >= turn);
}

/// The event that says a lasting effect is in force.
pub fn recorded(text: String, card: &str, player: &str) -> Event {
    Event::new("Savannah 4.3", "card-effect", text).with("card", card).with("player", player)
}
