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

/// What came of a player's being entitled to a Momentum Chit ([`gain_chit`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gain {
    /// 12.63: taken from the pool.
    FromPool,
    /// 12.65: the pool was empty; the other player returned one of his.
    OtherReturned,
    /// 12.65: the pool was empty and the other player held none.
    Nothing,
}

/// 12.61, 12.63, 12.65: `gainer` is entitled to a Momentum Chit, from a
/// pool of `pool` chits: he takes one when the pool holds one; else
/// `other` returns one of his to the pool; else nothing happens. The chits
/// held never exceed the pool. For every gain, whatever grants it (a
/// close combat's final roll, a Random Events card).
pub fn gain_chit(state: &mut State, pool: u32, gainer: &str, other: &str) -> Gain {
    if state.momentum_pool(pool) > 0 {
        *state.momentum.entry(gainer.to_string()).or_default() += 1;
        return Gain::FromPool;
    }
    match state.momentum.get_mut(other) {
        Some(n) if *n > 0 => {
            *n -= 1;
            Gain::OtherReturned
        }
        _ => Gain::Nothing,
    }
}

/// The event of a gain the empty pool turned (12.65): `other` returned a
/// chit instead of `gainer` gaining one, or nothing happened; `None` for
/// a chit taken from the pool (each caller says that its own way). `what`
/// prefixes the text with what granted the chit (a card's name and ": ").
pub fn empty_pool_event(gain: Gain, what: &str, gainer: &str, other: &str) -> Option<Event> {
    match gain {
        Gain::FromPool => None,
        Gain::OtherReturned => Some(
            Event::new(
                "12.65",
                "momentum-returned",
                format!(
                    "{what}the pool is empty: {other} returns a momentum chit instead of {gainer} gaining one (12.65)"
                ),
            )
            .with("player", other),
        ),
        Gain::Nothing => Some(Event::new(
            "12.65",
            "momentum-none",
            format!("{what}the pool is empty and {other} holds none: no effect (12.65)"),
        )),
    }
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

/// What losing `leader` costs, by the Leader Casualty Table (Savannah 2.7
/// "Leader Loss VPs: See Leader Casualties Table"; series 16.1; Savannah
/// 4.18's Momentum Chit): his army's morale, the VPs `by` scores, and the
/// chit an army commander costs. `why` is the cause in words.
pub(super) fn leader_lost_costs(
    rules: &Rules,
    data: &Data,
    state: &mut State,
    leader: &crate::systems::gboar::data::counters::Counter,
    class: &crate::systems::gboar::data::charts::LeaderClass,
    by: &str,
    why: &str,
) -> Vec<Event> {
    let mut events = Vec::new();
    if class.army_morale != 0 {
        events.push(
            crate::systems::gboar::effects::morale::adjust(rules, state, &leader.army, class.army_morale, "16.1", why)
                .with("leader", &leader.id),
        );
    }
    if let Some(e) = score(state, by, class.vp_halves, "Savannah 2.9", why) {
        events.push(e.with("leader", &leader.id));
    }
    let player = rules.player_of_army(&leader.army).unwrap_or_default().to_string();
    let opponent = rules.player_of_army(by).unwrap_or_default().to_string();
    for _ in 0..class.momentum.unsigned_abs() {
        if class.momentum < 0 {
            let e = lose_chit(data, state, &player, &opponent, "Savannah 4.18", why);
            events.push(e.with("leader", &leader.id));
        }
    }
    events
}

/// 14.32: a lone leader captured by enemy combat units entering his hex
/// (`by`: their army). Decision (docs/rules-readings.md): a captured leader
/// is lost as surely as a casualty, so Savannah 2.7's "Leader Loss VPs" and
/// the Leader Casualty Table's army morale and Momentum Chit apply to him
/// as to a "*" result.
pub fn leader_captured(rules: &Rules, state: &mut State, leader: &str, by: &str) -> Result<Vec<Event>> {
    let c = counter(rules, leader)?;
    let table = &rules.charts.leader_casualty.leader_casualty;
    let class = table
        .classes
        .iter()
        .find(|k| k.leaders.iter().any(|l| l == leader))
        .or_else(|| table.classes.iter().find(|k| k.id == table.default_class))
        .ok_or_else(|| {
            Error::refused(format!(
                "charts/leader-casualty.yaml: no class lists {leader} and the default class '{}' is not a class",
                table.default_class
            ))
        })?;
    let data = Data::load(rules)?;
    let why = format!("{} captured (14.32; charts/leader-casualty.yaml {})", c.name, class.id);
    Ok(leader_lost_costs(rules, &data, state, c, class, by, &why))
}
