//! Momentum lost with a unit captured at full strength (12.64, 12.65;
//! Savannah 4.18).

use super::*;

/// `owner` gives up a Momentum Chit: back to the pool if held; else the
/// enemy `opponent` takes one from the pool; with none there (12.65), the
/// owner would return one, and holds none: nothing more.
pub(super) fn lose_chit(data: &Data, state: &mut State, owner: &str, opponent: &str, rule: &str, why: &str) -> Event {
    let pool = data.momentum.as_ref().map(|m| m.pool).unwrap_or(0);
    let held = state.momentum.get(owner).copied().unwrap_or(0);
    let event = |text: String, to: &str| {
        Event::new(rule, "momentum", text).with("player", owner).with("opponent", opponent).with("outcome", to)
    };
    if held > 0 {
        state.momentum.insert(owner.to_string(), held - 1);
        return event(
            format!("{owner} returns a Momentum Chit to the pool for {why} ({rule}): {held} → {}", held - 1),
            "returned",
        );
    }
    let free = state.momentum_pool(pool);
    if free > 0 {
        let theirs = state.momentum.get(opponent).copied().unwrap_or(0);
        state.momentum.insert(opponent.to_string(), theirs + 1);
        return event(
            format!(
                "{owner} holds no Momentum Chit to return for {why}: {opponent} takes one from the pool ({rule}): \
                 {theirs} → {}",
                theirs + 1
            ),
            "taken-by-opponent",
        );
    }
    event(
        format!(
            "{owner} holds no Momentum Chit to return for {why}, and the pool is empty: {opponent} would take one, \
             so {owner} must return one instead (12.65), and holds none: no further effect"
        ),
        "none",
    )
}

/// 13.1, 13.23, 13.4 with 12.64: `unit` is captured by the army `by`.
pub fn capture(rules: &Rules, data: &Data, state: &mut State, unit: &str, rule: &str, by: &str) -> Result<Vec<Event>> {
    let c = counter(rules, unit)?;
    let mut events = Vec::new();
    let full = c.steps.unwrap_or(1);
    let at_full = steps_of(state, unit) == full;
    let printed = c.morale.map(|m| m.full);
    let momentum = data.momentum.as_ref().and_then(|m| m.captured_printed_morale.map(|p| (p, m.rule.clone())));
    let owner = rules.player_of_army(&c.army).unwrap_or_default().to_string();
    let opponent = rules.player_of_army(by).unwrap_or_default().to_string();
    events.extend(losses::capture(rules, state, unit, rule, by)?);
    if let Some((p, momentum_rule)) = momentum {
        if at_full && printed == Some(p) && hex_of(state, unit).is_none() {
            let why = format!("{} captured at full strength with printed morale {p:+}", c.name);
            events.push(lose_chit(data, state, &owner, &opponent, &momentum_rule, &why).with("unit", unit));
        }
    }
    Ok(events)
}
