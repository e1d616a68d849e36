//! The Weather Phase (Savannah 3 phase II, 4.2, 1.6), from
//! `charts/weather.yaml`, in this order:
//!
//! 1. Weather the chart fixes for the scenario and turn (`fixed`: the
//!    Tactical turns, the Historical Scenario) is the turn's weather.
//! 2. After a weather with `next_turn` (Hurricane, Gale, Squall) the next
//!    turn has that weather, with no roll (4.2's exception).
//! 3. On a weather turn (`weather_turns`) an Allied player rolls the die:
//!    the Weather Table's DRMs for this turn (`turns`) and those named
//!    `previous-<weather>` when the previous turn's weather was that one
//!    (4.2: +1 after Favorable) modify it.
//! 4. Otherwise the weather holds from the preceding turn.
//!
//! The weather lasts the whole turn and applies to all players (4.2).

use crate::base::error::{Error, Result};
use crate::system::{Dice, Event};
use crate::systems::gboar::board::state::Resolution;
use crate::systems::gboar::board::state::State;
use crate::systems::gboar::board::Rules;

const PREVIOUS: &str = "previous-";

fn name(rules: &Rules, id: &str) -> String {
    rules.charts.weather.conditions.iter().find(|c| c.id == id).map(|c| c.name.clone()).unwrap_or_else(|| id.into())
}

/// Savannah 1.6, 4.2: the weather the chart fixes for the new turn of
/// `state` (its `turn` already the new one), set as the turn begins; and,
/// when it changes the weather and the turn has no Weather Phase to say so
/// (the Historical Scenario, the Tactical Turn Track), an event that does.
pub fn fix_for_new_turn(rules: &Rules, state: &mut State, has_phase: bool) -> Option<Event> {
    let turn = state.turn;
    let fixed = crate::systems::gboar::board::state::fixed_weather(&rules.charts.weather, state, turn)?;
    if state.weather.as_deref() == Some(fixed) {
        return None;
    }
    state.weather = Some(fixed.to_string());
    if has_phase {
        return None;
    }
    let text = format!("turn {turn}: {} (fixed for this scenario, Savannah 1.6, 4.2)", name(rules, fixed));
    Some(Event::new("Savannah 4.2", "weather", text).with("weather", fixed).with("turn", turn))
}

/// Savannah 4.2: the Weather Phase of this turn.
pub fn resolve(rules: &Rules, state: &State, dice: &mut dyn Dice) -> Result<Resolution> {
    let chart = &rules.charts.weather;
    let turn = state.turn;
    let mut next = state.clone();
    let previous = state.weather.clone();
    let set = |next: &mut State, weather: &str, event: Event| -> Vec<Event> {
        next.weather = Some(weather.to_string());
        vec![event.with("weather", weather).with("turn", turn)]
    };
    if let Some(fixed) = crate::systems::gboar::board::state::fixed_weather(chart, state, turn) {
        let text = format!("turn {turn}: {} (fixed for this scenario, Savannah 1.6, 4.2)", name(rules, fixed));
        let events = set(&mut next, fixed, Event::new("Savannah 4.2", "weather", text));
        return Ok(Resolution { state: next, events });
    }
    let forced = previous
        .as_deref()
        .and_then(|p| chart.conditions.iter().find(|c| c.id == p))
        .and_then(|c| c.next_turn.clone().map(|n| (c.name.clone(), n)));
    if let Some((after, weather)) = forced {
        let text = format!(
            "turn {turn}: {} after the {after} of last turn, with no roll (Savannah 4.2)",
            name(rules, &weather)
        );
        let events = set(&mut next, &weather, Event::new("Savannah 4.2", "weather", text));
        return Ok(Resolution { state: next, events });
    }
    if !chart.weather_turns.turns.contains(&turn) {
        let Some(held) = previous else {
            return Ok(Resolution { state: next, events: Vec::new() });
        };
        let text = format!("turn {turn} is not a weather turn: the {} holds (Savannah 4.2)", name(rules, &held));
        let events = set(&mut next, &held, Event::new("Savannah 4.2", "weather", text));
        return Ok(Resolution { state: next, events });
    }
    let table = &chart.weather_table;
    let mut drms: Vec<(String, i32)> = Vec::new();
    for d in &table.drms {
        let applies = if let Some(weather) = d.id.strip_prefix(PREVIOUS) {
            if chart.conditions.iter().all(|c| c.id != weather) {
                return Err(Error::refused(format!(
                    "charts/weather.yaml: weather table DRM '{}' names no weather condition",
                    d.id
                )));
            }
            previous.as_deref() == Some(weather)
        } else if !d.turns.is_empty() {
            d.turns.contains(&turn)
        } else {
            return Err(Error::refused(format!(
                "charts/weather.yaml: the engine does not know when the weather table DRM '{}' applies (give `turns`, or name it previous-<weather>)",
                d.id
            )));
        };
        if applies {
            let value = d.value.ok_or_else(|| {
                Error::refused(format!("charts/weather.yaml: weather table DRM '{}' has no value", d.id))
            })?;
            drms.push((d.text.clone().unwrap_or_else(|| d.id.clone()), value));
        }
    }
    let die = match chart.die {
        crate::systems::gboar::data::charts::Die::D10 => crate::base::dice::Die::D10,
    };
    let roll = i32::from(dice.roll(die, &format!("weather, turn {turn}"))?);
    let total = drms.iter().fold(roll, |t, (_, v)| t.saturating_add(*v));
    let weather = table
        .outcomes
        .iter()
        .find(|o| o.min.is_none_or(|m| total >= m) && o.max.is_none_or(|m| total <= m))
        .map(|o| o.weather.clone())
        .ok_or_else(|| Error::refused(format!("charts/weather.yaml: no weather for a modified roll of {total}")))?;
    let drm_text: Vec<String> = drms.iter().map(|(n, v)| format!("{v:+} {n}")).collect();
    let text = format!(
        "turn {turn}: the weather roll is {roll}{}{} = {total}: {} (Savannah 4.2)",
        if drm_text.is_empty() { "" } else { ", " },
        drm_text.join(", "),
        name(rules, &weather)
    );
    let event = Event::new("Savannah 4.2", "weather", text)
        .with("roll", roll)
        .with("drms", drms.iter().cloned().collect::<std::collections::BTreeMap<String, i32>>())
        .with("total", total);
    let events = set(&mut next, &weather, event);
    Ok(Resolution { state: next, events })
}
