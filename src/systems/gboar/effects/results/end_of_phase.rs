//! Series 13.3, 13.4 at the end of a player's Close Combat Phase.

use super::*;

/// Series 13.3, 13.4 at the end of `player`'s Close Combat Phase (module
/// documentation). No die is rolled; `_dice` is the phase's, for the
/// signature every step shares.
pub fn end_of_close_combat_phase(
    rules: &Rules,
    state: &mut State,
    player: &str,
    _dice: &mut dyn Dice,
) -> Result<Vec<Event>> {
    if !rules.sequence.data.alliances.iter().any(|a| a.id == player) {
        return Err(Error::refused(format!("'{player}' is not a player of this module")));
    }
    let data = Data::load(rules)?;
    // Where every unit stands as the phase ends.
    // (unit, the army credited, the adjacent enemy units)
    let mut shattered: Vec<(String, String, String)> = Vec::new();
    let mut disrupted: Vec<(String, String, String)> = Vec::new();
    let mut notes: Vec<Event> = Vec::new();
    for (id, u) in &state.units {
        let Some(c) = rules.counter(id) else { continue };
        if hex_of(state, id).is_none() || c.is_leader() || u.condition == Condition::ParadeOrder {
            continue;
        }
        let own = rules.player_of_army(&c.army).unwrap_or_default();
        if u.condition == Condition::Disrupted && own != player {
            continue;
        }
        match exposed(rules, state, id) {
            Exposed::No => {}
            Exposed::Covered(note) => notes.push(note),
            Exposed::Yes(entry) => {
                if u.condition == Condition::Shattered {
                    shattered.push(entry);
                } else {
                    disrupted.push(entry);
                }
            }
        }
    }
    let mut next = state.clone();
    let mut events = notes;
    for entry in &shattered {
        events.extend(captured_shattered(rules, &data, &mut next, entry)?);
    }
    for (id, by, adjacent) in &disrupted {
        let hex = hex_of(&next, id).map(|h| h.to_string()).unwrap_or_default();
        events.push(
            Event::new(
                "13.3",
                "disrupted-adjacent",
                format!(
                    "{id} ends its own Close Combat Phase disrupted in {hex}, next to {adjacent} and stacked with no \
                     friendly Parade Order unit: another \"D\", shattered, retreating three hexes or captured"
                ),
            )
            .with("unit", id)
            .with("hex", &hex)
            .with("adjacent", adjacent),
        );
        let order = retreat::Order {
            unit: id,
            distance: Distance::Three,
            rule: "13.3",
            why: "13.3: disrupted next to the enemy at the end of its Close Combat Phase",
            by,
            close_combat: None,
            army_morale: false,
        };
        let (outcome, e) = retreat::retreat_with(rules, &data, &mut next, &order, None, &BTreeSet::new())?;
        events.extend(e);
        if matches!(outcome, Outcome::Captured | Outcome::Gone) {
            continue;
        }
        // Shattered, with its adjustments and VPs (as "D" on a disrupted unit).
        let combat = Combat {
            id: String::new(),
            kind: CombatKind::Close,
            attacker: Side::default(),
            defender: Side::default(),
            morale_at_start: BTreeMap::new(),
        };
        let side = Side { affected: id.clone(), ..Side::default() };
        let choices = Choices::default();
        let mut a = Apply {
            rules,
            data: &data,
            combat: &combat,
            role: Role::Defender,
            side: &side,
            choices: &choices,
            by: by.to_string(),
            friendly: false,
            claimed: BTreeSet::new(),
            events: Vec::new(),
        };
        a.condition(&mut next, id, Condition::Disrupted)?;
        events.extend(a.events.into_iter().map(|mut e| {
            e.rule = if e.rule == "13.1" { "13.3".into() } else { e.rule };
            e
        }));
        // 13.4: shattered now, it ends the phase where its retreat took
        // it; a retreat of three hexes may end next to the enemy when no
        // hex three hexes away is not (13.24): captured, unless stacked
        // with a friendly Parade Order unit (self-play, seed 1, games 5957
        // and 8971).
        if next.units.get(id).is_some_and(|u| u.condition == Condition::Shattered) {
            match exposed(rules, &next, id) {
                Exposed::No => {}
                Exposed::Covered(note) => events.push(note),
                Exposed::Yes(entry) => events.extend(captured_shattered(rules, &data, &mut next, &entry)?),
            }
        }
    }
    *state = next;
    Ok(events)
}

/// A disrupted or shattered unit where it stands as the phase ends.
enum Exposed {
    /// Off the map, or next to no enemy combat unit.
    No,
    /// Next to the enemy, but stacked with a friendly Parade Order combat
    /// unit: the event that says so.
    Covered(Event),
    /// Next to the enemy and stacked with no friendly Parade Order combat
    /// unit: (unit, the army credited, the adjacent enemy units).
    Yes((String, String, String)),
}

/// 13.3, 13.4: whether `id` ends the phase next to an enemy combat unit
/// and not stacked with a friendly Parade Order combat unit.
fn exposed(rules: &Rules, state: &State, id: &str) -> Exposed {
    let layout = rules.module.map.layout;
    let (Some(c), Some(hex), Some(u)) = (rules.counter(id), hex_of(state, id), state.units.get(id)) else {
        return Exposed::No;
    };
    let own = rules.player_of_army(&c.army).unwrap_or_default();
    let enemies: Vec<&String> = state
        .units
        .keys()
        .filter(|e| {
            rules.counter(e).is_some_and(|ec| !ec.is_leader() && rules.player_of_army(&ec.army) != Some(own))
                && hex_of(state, e).is_some_and(|h| neighbours(hex, layout).contains(&h))
        })
        .collect();
    let Some(first) = enemies.first() else { return Exposed::No };
    let parade = state.units.iter().find(|(f, fu)| {
        f.as_str() != id
            && fu.condition == Condition::ParadeOrder
            && hex_of(state, f) == Some(hex)
            && rules.counter(f).is_some_and(|fc| !fc.is_leader() && rules.player_of_army(&fc.army) == Some(own))
    });
    if let Some((f, _)) = parade {
        let rule = if u.condition == Condition::Shattered { "13.4" } else { "13.3" };
        return Exposed::Covered(
            Event::new(
                rule,
                "stacked-with-parade-order",
                format!(
                    "{id} ({:?}, {hex}) is next to the enemy but stacked with {f} in Parade Order: safe",
                    u.condition
                ),
            )
            .with("unit", id)
            .with("with", f),
        );
    }
    let by = rules.army_of(first).unwrap_or_default().to_string();
    let list: Vec<&str> = enemies.iter().map(|e| e.as_str()).collect();
    Exposed::Yes((id.to_string(), by, list.join(", ")))
}

/// 13.4: `unit`, shattered, ends the phase next to `adjacent`, stacked with
/// no friendly Parade Order unit: captured, credited to the army `by`.
fn captured_shattered(
    rules: &Rules,
    data: &Data,
    state: &mut State,
    (id, by, adjacent): &(String, String, String),
) -> Result<Vec<Event>> {
    let hex = hex_of(state, id).map(|h| h.to_string()).unwrap_or_default();
    let mut events = vec![Event::new(
        "13.4",
        "shattered-captured",
        format!(
            "{id} ends the Close Combat Phase shattered in {hex}, next to {adjacent} and stacked with no friendly \
             Parade Order unit: captured"
        ),
    )
    .with("unit", id)
    .with("hex", &hex)
    .with("adjacent", adjacent)];
    events.extend(capture(rules, data, state, id, "13.4", by)?);
    Ok(events)
}
