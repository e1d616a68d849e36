//! Army morale (series 16): the adjustments of the Army Morale Adjustment
//! Chart (16.1), applied to the track within its bounds, and the level an
//! army stands at (16.2). Every value comes from `charts/army-morale.yaml`;
//! an adjustment the chart does not list is refused, never taken as zero.

use crate::base::error::{Error, Result};
use crate::system::Event;
use crate::systems::gboar::board::state::State;
use crate::systems::gboar::board::Rules;
use crate::systems::gboar::data::charts::{Adjustment, MoraleLevel};

/// The entry `id` of the Army Morale Adjustment Chart, following `same_as`.
pub fn adjustment<'a>(rules: &'a Rules, id: &str) -> Result<&'a Adjustment> {
    let entries = &rules.charts.army_morale.adjustments.entries;
    let mut at = id;
    for _ in 0..=entries.len() {
        let entry = entries.iter().find(|e| e.id == at).ok_or_else(|| {
            Error::refused(format!(
                "charts/army-morale.yaml: the Army Morale Adjustment Chart has no entry '{at}', which series 16.1 needs here"
            ))
        })?;
        match &entry.same_as {
            Some(next) => at = next,
            None => return Ok(entry),
        }
    }
    Err(Error::refused(format!("charts/army-morale.yaml: adjustment '{id}' refers to itself through same_as")))
}

/// 16.3: the armies whose morale stands on a level that ends the game
/// (Demoralized), in id order.
pub fn demoralized(rules: &Rules, state: &State) -> Vec<String> {
    state
        .army_morale
        .iter()
        .filter(|(_, v)| level(rules, **v).is_some_and(|l| l.ends_game))
        .map(|(army, _)| army.clone())
        .collect()
}

/// 16.2: the level of the track `value` stands on.
pub fn level(rules: &Rules, value: i32) -> Option<&MoraleLevel> {
    rules.charts.army_morale.levels.iter().find(|l| (l.range.min..=l.range.max).contains(&value))
}

/// 16.1: add `delta` to `army`'s morale, kept on the track, and say so
/// (with the level change of 16.2 when there is one). `rule` is the rule
/// that causes it, `why` the cause in words.
///
/// 16.3: "If an Army's Morale falls to 0, it is considered Demoralized. The
/// game ends immediately": an army on a level that ends the game stays
/// there, whatever gain the rest of the step would bring it (the event says
/// so, and the step's victory check then ends the game).
///
/// Savannah 4.13: an adjustment of an army whose units cooperate with
/// another's in the close combat being resolved goes to that army
/// ([`State::credited`]); the event says so.
pub fn adjust(rules: &Rules, state: &mut State, army: &str, delta: i32, rule: &str, why: &str) -> Event {
    let (army, why) = match state.credited(army) {
        credited if credited != army => {
            (credited.to_string(), format!("{why}; applied to {credited}, not {army} (Savannah 4.13)"))
        }
        _ => (army.to_string(), why.to_string()),
    };
    let army = army.as_str();
    let track = &rules.charts.army_morale.track;
    let before = state.army_morale.get(army).copied().unwrap_or(0);
    if let Some(ended) = level(rules, before).filter(|l| l.ends_game) {
        return Event::new(
            "16.3",
            "army-morale",
            format!(
                "{army} army morale stays {before} ({}): the game has ended, {delta:+} for {why} is not applied (16.3)",
                ended.name
            ),
        )
        .with("army", army)
        .with("delta", 0)
        .with("before", before)
        .with("after", before)
        .with("level", ended.name.clone());
    }
    let after = before.saturating_add(delta).clamp(track.min, track.max);
    state.army_morale.insert(army.to_string(), after);
    let name = |v: i32| level(rules, v).map(|l| l.name.clone()).unwrap_or_else(|| "off the track".into());
    let (from_level, to_level) = (name(before), name(after));
    let change =
        if from_level == to_level { String::new() } else { format!(", from {from_level} to {to_level} (16.2)") };
    let bounded = if after != before.saturating_add(delta) {
        format!(" (the track runs {} to {})", track.min, track.max)
    } else {
        String::new()
    };
    Event::new(
        rule,
        "army-morale",
        format!("{army} army morale {delta:+}: {before} → {after}{bounded}{change}; {why} (16.1)"),
    )
    .with("army", army)
    .with("delta", delta)
    .with("before", before)
    .with("after", after)
    .with("level", to_level)
}

/// 16.1: apply the chart entry `id` to the army that suffered it
/// (`affected`), `count` times, and its `opponent` value to each army of
/// `opponents`. `cause` is the rule applied and the cause in words. Zero
/// adjustments give no event.
pub fn apply(
    rules: &Rules,
    state: &mut State,
    id: &str,
    affected: &str,
    opponents: &[String],
    count: i32,
    cause: (&str, &str),
) -> Result<Vec<Event>> {
    let (rule, why) = cause;
    let entry = adjustment(rules, id)?;
    let mut events = Vec::new();
    let own = entry.affected.unwrap_or(0).saturating_mul(count);
    if own != 0 {
        events.push(adjust(rules, state, affected, own, rule, why));
    }
    let theirs = entry.opponent.unwrap_or(0).saturating_mul(count);
    if theirs != 0 {
        for army in opponents {
            events.push(adjust(rules, state, army, theirs, rule, why));
        }
    }
    Ok(events)
}
