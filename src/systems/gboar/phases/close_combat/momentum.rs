//! Steps 5, 6 and 8 with the dice, and step 9: the roll on the table,
//! re-rolls with Momentum Chits (12.6), the chit gained on the final roll
//! (12.63) and the advance after combat (12.3).

use super::*;
use crate::systems::gboar::effects::results::{empty_pool_event, gain_chit};

// ---------------------------------------------------------------------------
// Steps 5, 6 and 8 with the dice; step 9

/// Steps 5 and 6 with the step's dice: roll, then re-roll while a side's
/// policy spends a chit (the side holding fewer chits decides first, the
/// Defender on a tie). Chits spent go back to the pool (12.62). Returns the
/// final modified roll and the results.
#[allow(clippy::too_many_arguments)]
pub fn roll_with_momentum(
    rules: &Rules,
    state: &mut State,
    column: &str,
    drm: i32,
    players: (&str, &str),
    policies: (&MomentumPolicy, &MomentumPolicy),
    dice: &mut dyn crate::system::Dice,
    events: &mut Vec<Event>,
) -> Result<(i32, Vec<String>, Vec<String>)> {
    let (attacker, defender) = players;
    let die = match rules.charts.close_combat.die {
        crate::systems::gboar::data::charts::Die::D10 => crate::base::dice::Die::D10,
    };
    let (mut a_budget, mut d_budget) = (policies.0.at_most, policies.1.at_most);
    let mut rolls = 0u32;
    loop {
        rolls += 1;
        let roll = i32::from(dice.roll(die, &format!("close combat, {attacker} attacking {defender}"))?);
        let modified = roll.saturating_add(drm);
        let (att, def) = cell(rules, column, modified)?;
        events.push(
            Event::new(
                "12.23",
                "close-combat-roll",
                format!(
                    "{}roll {roll} {drm:+} = {modified} on {column}: attacker {}, defender {}",
                    if rolls > 1 { "re-" } else { "" },
                    att.join(" + "),
                    def.join(" + ")
                ),
            )
            .with("roll", roll)
            .with("modified", modified)
            .with("column", column)
            .with("attacker", &att)
            .with("defender", &def),
        );
        let a_chits = state.momentum.get(attacker).copied().unwrap_or(0);
        let d_chits = state.momentum.get(defender).copied().unwrap_or(0);
        let a_wants = a_chits > 0 && a_budget > 0 && att.iter().any(|r| policies.0.reroll_if.contains(r));
        let d_wants = d_chits > 0 && d_budget > 0 && def.iter().any(|r| policies.1.reroll_if.contains(r));
        let defender_first = d_chits <= a_chits;
        let spender = match (defender_first, d_wants, a_wants) {
            (true, true, _) | (false, true, false) => Some(defender),
            (true, false, true) | (false, _, true) => Some(attacker),
            _ => None,
        };
        let Some(who) = spender else { return Ok((modified, att, def)) };
        if who == attacker {
            a_budget -= 1;
        } else {
            d_budget -= 1;
        }
        if let Some(n) = state.momentum.get_mut(who) {
            *n = n.saturating_sub(1);
        }
        events.push(
            Event::new("12.62", "momentum-spent", format!("{who} spends a momentum chit to re-roll (12.23 step 6)"))
                .with("player", who),
        );
    }
}

/// Step 8 (12.63, 12.65): a chit for the Defender on a final roll at or
/// below the chart's number, for the Attacker at or above its other one;
/// from the pool, or else the opponent returns one.
pub fn gain_momentum(rules: &Rules, state: &mut State, final_roll: i32, players: (&str, &str)) -> Vec<Event> {
    let table = &rules.charts.close_combat.close_combat_table.momentum;
    let (gainer, other) = if final_roll <= table.defender_gains_at_most {
        (players.1, players.0)
    } else if final_roll >= table.attacker_gains_at_least {
        (players.0, players.1)
    } else {
        return Vec::new();
    };
    let pool = momentum_pool_size(rules);
    let gain = gain_chit(state, pool, gainer, other);
    vec![empty_pool_event(gain, "", gainer, other).unwrap_or_else(|| {
        Event::new(
            "12.63",
            "momentum-gained",
            format!("{gainer} gains a momentum chit (final roll {final_roll}, 12.63)"),
        )
        .with("player", gainer)
    })]
}

/// module.yaml `momentum.pool` (series 12.61).
pub fn momentum_pool_size(rules: &Rules) -> u32 {
    crate::systems::gboar::effects::retreat::momentum_pool(rules)
}

/// Step 9: the Attacker advances into a vacated defending hex: the lead
/// unit must (unless it retreated, cannot enter the hex, or an exclusive
/// rule makes it optional and the orders do not list it), the other units
/// listed in `advance` may, within the stacking limit; artillery never
/// does; a lone enemy leader there is captured (14.32).
pub fn advance(
    rules: &Rules,
    state: &mut State,
    a: &Designated,
    lead: &str,
    start: &BTreeMap<String, Option<HexId>>,
) -> Result<Vec<Event>> {
    let layout = rules.module.map.layout;
    let terrain = crate::systems::gboar::board::terrain::Terrain::of(rules, state);
    let mut events = Vec::new();
    let vacated: Vec<HexId> =
        a.defending_hexes.iter().copied().filter(|h| combat_units_at(rules, state, *h).is_empty()).collect();
    if vacated.is_empty() {
        return Ok(events);
    }
    let stayed = |state: &State, u: &str| {
        let now = hex_of(state, u);
        now.is_some() && start.get(u).copied().flatten() == now
    };
    // The hex the lead unit attacked from: the advance goes from there
    // into a vacated hex next to it, whether the lead advances or not.
    // "Other units which participated may advance ..., including units
    // which had to take a morale check and passed it": a lead that
    // retreated (or was eliminated) takes no advance from the others.
    let lead_hex = start.get(lead).copied().flatten().or_else(|| hex_of(state, lead));
    let Some(target) =
        lead_hex.and_then(|lh| vacated.iter().copied().find(|v| crate::base::hex::are_adjacent(lh, *v, layout)))
    else {
        return Ok(events);
    };
    let optional = rules.close_combat.optional_advance.iter().find(|o| {
        rules.army_of(lead).is_some_and(|army| o.armies.iter().any(|x| x == army))
            && lead_hex.is_some_and(|h| rules.module.map.zone(&o.when_leaving).is_some_and(|z| z.hexes.contains(&h)))
            && rules.module.map.zone(&o.when_leaving).is_some_and(|z| !z.hexes.contains(&target))
    });
    let mut movers: Vec<String> = Vec::new();
    let prohibited = terrain
        .hex(target)
        .is_none_or(|i| i.movement_cost == crate::systems::gboar::data::charts::MovementCost::Prohibited);
    // Savannah 1.7: on the Strategic Turn Track an Allied advance to the
    // perimeter would attack it, which only the assault may (1.6).
    let closed = |u: &str| {
        super::advance_attacks_perimeter(rules, state, u, target).map(|zone| {
            Event::new(
                "Savannah 1.7",
                "no-advance",
                format!(
                    "{u} stays: advancing into {target}, in or next to the {zone}, would attack it, which the Allies may not do on the Strategic Turn Track (Savannah 1.6, 1.7)"
                ),
            )
            .with("unit", u)
        })
    };
    // Savannah 4.10: on its turns, a unit it binds leaves the perimeter
    // only stacked with a leader, and no leader advances with it.
    let sortie = |u: &str| {
        let rule = crate::systems::gboar::board::units::sortie_bound(rules, state, u)?;
        let zone = rules.module.map.zone(&rule.zone)?;
        let from = hex_of(state, u)?;
        (zone.hexes.contains(&from) && !zone.hexes.contains(&target)).then(|| {
            Event::new(
                "Savannah 4.10",
                "no-advance",
                format!(
                    "{u} stays: advancing into {target} would take it out of the {} on turns {}-{}, which only units stacked with a leader may leave, and no leader advances ({})",
                    rule.zone, rule.turns.first, rule.turns.last, rule.rule
                ),
            )
            .with("unit", u)
        })
    };
    // Why unit `u`, lead or not, may not advance into the hex: a zone the
    // scenario bars it from (12.23 step 2, "LEAD UNITS AND PROHIBITED
    // TERRAIN": Savannah 4.8, the Creeks and the perimeter; such a lead
    // led only because no other could), 4.10's sortie, 1.7's perimeter.
    let kept_back = |u: &str| {
        crate::systems::gboar::board::units::zone_ban_at(rules, u, &[target])
            .map(|(_, ban)| {
                Event::new(
                    "12.23",
                    "no-advance",
                    format!(
                        "{u} stays: {target} is in the {}, which it may never enter ({}; 12.23 step 2, lead units and prohibited terrain)",
                        ban.zone, ban.rule
                    ),
                )
                .with("unit", u)
            })
            .or_else(|| sortie(u))
            .or_else(|| closed(u))
    };
    if let Some(e) = kept_back(lead).filter(|_| stayed(state, lead) && !prohibited) {
        events.push(e);
    } else if stayed(state, lead) && !prohibited {
        match optional {
            Some(o) if !a.advance.iter().any(|u| u == lead) => events.push(Event::new(
                "12.23",
                "no-advance",
                format!(
                    "{lead} need not advance out of the {} ({}), and its orders do not say to",
                    o.when_leaving, o.rule
                ),
            )),
            _ => movers.push(lead.to_string()),
        }
    }
    let limits = rules.stacking.clone();
    for u in &a.advance {
        if u == lead || movers.contains(u) {
            continue;
        }
        let Some(c) = rules.counter(u) else { continue };
        if c.is_artillery() {
            events.push(Event::new("12.23", "no-advance", format!("{u}: artillery never advances (12.23 step 9)")));
            continue;
        }
        if let Some(e) = kept_back(u) {
            events.push(e);
            continue;
        }
        if !stayed(state, u) || !hex_of(state, u).is_some_and(|h| crate::base::hex::are_adjacent(h, target, layout)) {
            continue;
        }
        // Savannah 4.1: units that may not end a Movement Phase stacked
        // may share a hex after a retreat only; an advance does not put
        // them together.
        let apart = rules.stacking.as_ref().zip(rules.counter(u)).and_then(|(st, c)| {
            let keep_apart = st.restrictions.iter().filter(|r| !r.may_end_movement_phase_stacked);
            let with: Vec<&Counter> = movers.iter().filter_map(|m| rules.counter(m)).collect();
            with.iter().find_map(|m| {
                crate::systems::gboar::board::stacking::first_pair(&[c, m], keep_apart.clone()).map(|(r, ..)| (r, *m))
            })
        });
        if let Some((r, m)) = apart {
            events.push(
                Event::new(
                    "12.23",
                    "no-advance",
                    format!(
                        "{u} stays: advancing into {target} would stack it with {}, which {} keeps apart but after a retreat (12.23 step 9)",
                        m.id,
                        r.rule_name()
                    ),
                )
                .with("unit", u),
            );
            continue;
        }
        if let Some(l) = &limits {
            let (mut sps, mut guns) = (0, 0);
            for m in movers.iter().chain(std::iter::once(u)) {
                let (s, g) = rules
                    .counter(m)
                    .map(|c| c.stacking_weight(state.units.get(m).map(|x| x.steps).unwrap_or(1), l.leaders_count))
                    .unwrap_or((0, 0));
                sps += s;
                guns += g;
            }
            if !l.holds(sps, guns) {
                events.push(Event::new(
                    "12.23",
                    "no-advance",
                    format!("{u} stays: advancing would exceed the stacking limit in {target} (12.23 step 9, 7.1)"),
                ));
                continue;
            }
        }
        movers.push(u.clone());
    }
    if movers.is_empty() {
        return Ok(events);
    }
    // 14.32: lone enemy leaders in the hex are captured.
    let captured: Vec<String> = state
        .units
        .keys()
        .filter(|x| {
            hex_of(state, x) == Some(target)
                && rules.counter(x).is_some_and(|c| c.is_leader())
                && player_of(rules, x) != player_of(rules, lead)
        })
        .cloned()
        .collect();
    for l in &captured {
        if let Some(s) = state.units.get_mut(l) {
            s.hex = None;
            s.off_map = Some(crate::systems::gboar::board::state::OffMap::Captured);
            s.pinned = false;
            s.pin_result = None;
        }
        events.push(
            Event::new(
                "14.32",
                "leader-captured",
                format!("{l}, alone in {target}, is captured by the advance (14.32)"),
            )
            .with("leader", l)
            .with("hex", target.to_string()),
        );
        let by = rules.army_of(lead).unwrap_or_default().to_string();
        events.extend(crate::systems::gboar::effects::results::leader_captured(rules, state, l, &by)?);
    }
    // Where each mover stood, for the map's advance arrows.
    let from: BTreeMap<String, String> =
        movers.iter().filter_map(|m| Some((m.clone(), hex_of(state, m)?.to_string()))).collect();
    for m in &movers {
        if let Some(s) = state.units.get_mut(m) {
            s.hex = Some(target);
        }
    }
    events.push(
        Event::new("12.23", "advance", format!("{} advance into {target} (12.23 step 9)", movers.join(", ")))
            .with("units", &movers)
            .with("hex", target.to_string())
            .with("from", &from),
    );
    Ok(events)
}
