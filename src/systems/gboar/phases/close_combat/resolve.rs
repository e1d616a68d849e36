//! The phase: every designated combat resolved in order (12.23), Cavalry
//! Withdrawal (12.4), captures, retreats and results applied, and the end
//! of the phase (13.3, 13.4).

use super::*;

// ---------------------------------------------------------------------------
// The phase

/// 12.4: whether `defenders` may choose Cavalry Withdrawal against
/// `attackers`: all Parade Order cavalry not withdrawn already, none Lost
/// (Savannah 4.9: "Mounted units that are lost may not select 'Cavalry
/// Withdrawal'", unless charts/covered-way.yaml `lost_effects` has
/// `cavalry_withdrawal: true`), and no cavalry among the attackers.
pub fn cavalry_may_withdraw(rules: &Rules, state: &State, defenders: &[String], attackers: &[String]) -> bool {
    let lost_may = rules.charts.covered_way.lost_effects.cavalry_withdrawal;
    let all_cavalry = defenders.iter().all(|u| {
        rules.counter(u).is_some_and(|c| c.kind == "cavalry")
            && state
                .units
                .get(u)
                .is_some_and(|s| s.condition == Condition::ParadeOrder && !s.cavalry_withdrawn && (lost_may || !s.lost))
    });
    let attacking_cavalry = attackers.iter().any(|u| rules.counter(u).is_some_and(|c| c.kind == "cavalry"));
    all_cavalry && !attacking_cavalry
}

/// Savannah 4.13 (module.yaml `close_combat.cooperation_credit`): for one
/// side's combat units, each `(army, credited army, unit, rule)` whose
/// credit moves: a unit of an entry's `units` fights beside a combat unit
/// of the entry's `credited_to` army, and no other combat unit of its own
/// army fights on the side ("Pulaski's Legion is the only American combat
/// unit that may cooperate in Close Combat with French player units": with
/// other Americans beside him the side is not Pulaski cooperating with the
/// French, and each army keeps its own adjustments). Leaders are not combat
/// units (3.2) and change nothing.
pub(super) fn cooperation_credit(rules: &Rules, units: &[String]) -> Vec<(String, String, String, String)> {
    let combat: Vec<&String> = units.iter().filter(|u| rules.counter(u).is_some_and(|c| !c.is_leader())).collect();
    let mut credit: Vec<(String, String, String, String)> = Vec::new();
    for entry in &rules.close_combat.cooperation_credit {
        let beside = combat.iter().any(|u| rules.army_of(u) == Some(entry.credited_to.as_str()));
        if !beside {
            continue;
        }
        for u in combat.iter().filter(|u| entry.units.contains(u)) {
            let Some(army) = rules.army_of(u) else { continue };
            let others_of_army = combat.iter().any(|o| !entry.units.contains(o) && rules.army_of(o) == Some(army));
            if army != entry.credited_to && !others_of_army && !credit.iter().any(|(from, ..)| from.as_str() == army) {
                credit.push((army.to_string(), entry.credited_to.clone(), (*u).clone(), entry.rule.clone()));
            }
        }
    }
    credit
}

/// The first chit of the chart a side may legally play (the default).
pub(super) fn default_chit(rules: &Rules, state: &State, e: &Engagement, attacker: bool) -> String {
    let chits = &rules.charts.tactics.chits;
    let checks = ChitChecks::new(rules, state, e, attacker);
    chits.iter().find(|c| checks.illegal(&c.id).is_none()).or(chits.first()).map(|c| c.id.clone()).unwrap_or_default()
}

/// The defence orders for a defending hex: its own, then the side's default.
pub(super) fn hex_defence<'a>(
    d: &'a Designation,
    side: &str,
    hex: HexId,
) -> (Option<&'a HexDefence>, Option<&'a DefenceOrders>) {
    let orders = d.defence.get(side);
    let own =
        orders.and_then(|o| o.defence.hexes.iter().find(|(h, _)| h.parse::<HexId>().ok() == Some(hex)).map(|(_, v)| v));
    (own, orders)
}

/// Series 12: the phasing `player`'s Close Combat Phase. Orders are checked
/// whole first (nothing happens if any is wrong); then 12.22 removes every
/// pin, the attacks are resolved in the order given (12.23), and 13.3, 13.4
/// end the phase.
///
/// `announced` is the board the attacks were announced on (12.21), `state`
/// the board they are fought on: the same, unless Random Events cards were
/// played in the step (Savannah 4.3, played before the phase is resolved).
/// The attacks are checked against `announced`, as `validate` checked them;
/// a unit a card's result moved out of its hex (a failed morale check's
/// retreat) is no longer in the combat it was announced in, and a combat
/// left with no attacker or no defender in place does not take place, as
/// when an earlier combat of the phase has moved them (12.23 step 1: "The
/// players total the non-artillery SPs of all their units involved in this
/// Close Combat"; docs/rules-readings.md).
/// 12.23 step 2 as the combat is fought: the lead unit named in the orders
/// while it may still lead; else the lead the rule takes when none is
/// named, with a `lead-lapses` event. The orders were checked on the board
/// they were written on (a named lead was legal there, `designate`), but
/// a card of the step or an earlier combat of the phase may have taken the
/// unit out of this combat (moved, replaced, Savannah 4.3, 4.8, 13.25) or
/// out of Parade Order: the combat is still fought, as one whose lead was
/// left to the rule (self-play, Campaign, seed 41, game 1201: Pulaski's
/// Legion, named to lead, replaced by the British card Pulaski's Legion
/// Depleted in the same step). A Defender's lead is checked only as his
/// unit in the hex when the orders are (`designate`), so one that is not
/// in Parade Order where another is, or is artillery, falls to the rule
/// too (it fell to the hex's first unit). `Err` only when no unit may
/// lead at all.
fn lead_now(
    rules: &Rules,
    state: &State,
    units: &[String],
    wanted: Option<&str>,
    into: &[HexId],
    field: &str,
    events: &mut Vec<Event>,
) -> std::result::Result<String, Refusal> {
    match lead_unit(rules, state, units, wanted, into) {
        Err(r) if r.code == Code::LeadUnitMayNotLead => {
            let lead = lead_unit(rules, state, units, None, into)?;
            let named = wanted.unwrap_or_default();
            events.push(
                Event::new(
                    "12.23",
                    "lead-lapses",
                    format!(
                        "{field}: {named}, named to lead, may not lead this combat (a Parade Order unit when there is \
                         one, never artillery, of the units in it); {lead} leads, as when no lead is named (12.23 step 2)"
                    ),
                )
                .with("named", named)
                .with("lead", &lead),
            );
            Ok(lead)
        }
        other => other,
    }
}

/// Step 9 where the combat skips to it (12.3's artillery captured alone,
/// 12.4's Cavalry Withdrawal): the Attacker's lead unit as the combat
/// would take it, then the advance.
fn step_9(
    rules: &Rules,
    next: &mut State,
    fighting_attackers: &[String],
    a: &Designated,
    start: &BTreeMap<String, Option<HexId>>,
    events: &mut Vec<Event>,
) -> Result<()> {
    if let Ok(lead) = lead_now(rules, next, fighting_attackers, a.lead.as_deref(), &a.defending_hexes, &a.field, events)
    {
        events.extend(advance(rules, next, a, &lead, start)?);
    }
    Ok(())
}

pub fn resolve_phase(
    rules: &Rules,
    announced: &State,
    state: &State,
    player: &str,
    orders: &BTreeMap<String, crate::base::yaml::Value>,
    dice: &mut dyn crate::system::Dice,
) -> Result<crate::systems::gboar::board::state::Resolution> {
    let (d, problems) = designate(rules, announced, player, orders, true);
    if !problems.is_empty() {
        return Err(refusals::refuse_all(
            "close combat",
            "nothing happened",
            problems.iter().map(|p| (p.side.as_str(), p.field.as_str(), p.message.as_str(), p.code)),
        ));
    }
    let mut next = state.clone();
    let mut events = Vec::new();
    // 12.22: pins come off every unit once the attacks are announced.
    let pinned: Vec<String> = next.units.iter().filter(|(_, u)| u.pinned).map(|(id, _)| id.clone()).collect();
    for id in &pinned {
        if let Some(u) = next.units.get_mut(id) {
            u.pinned = false;
            u.pin_result = None;
        }
    }
    if !pinned.is_empty() {
        events.push(
            Event::new(
                "12.22",
                "pins-removed",
                format!("pins removed after the attacks are announced: {}", pinned.join(", ")),
            )
            .with("units", &pinned),
        );
    }
    if let Some(h) = d.diversion {
        events.push(
            Event::new("12.14", "diversion", format!("{h} receives the diversion: its units are not attacked"))
                .with("hex", h.to_string()),
        );
    }
    let layout = rules.module.map.layout;
    // Where each unit was when the attacks were announced (12.21).
    let start: BTreeMap<String, Option<HexId>> = next.units.keys().map(|u| (u.clone(), hex_of(announced, u))).collect();
    for (n, a) in d.attacks.iter().enumerate() {
        // Savannah 4.13: the credit of the last combat ends with it.
        next.credit.clear();
        // 16.3: "The game ends immediately" when an army is demoralized: no
        // later combat of the step is fought.
        let fallen = crate::systems::gboar::effects::morale::demoralized(rules, &next);
        if !fallen.is_empty() {
            let left: Vec<&str> = d.attacks[n..].iter().map(|a| a.field.as_str()).collect();
            events.push(
                Event::new(
                    "16.3",
                    "combats-not-fought",
                    format!(
                        "the {} army is demoralized and the game ends immediately: {} not fought",
                        fallen.join(" and "),
                        left.join(", ")
                    ),
                )
                .with("armies", &fallen)
                .with("attacks", &left),
            );
            return Ok(crate::systems::gboar::board::state::Resolution { state: next, events });
        }
        let id = format!("{}-{}-close-combat-{}", state.turn, player, n + 1);
        let here = |s: &State, u: &str| hex_of(s, u).is_some() && hex_of(s, u) == start.get(u).copied().flatten();
        let attackers: Vec<String> = a.attackers.iter().filter(|u| here(&next, u)).cloned().collect();
        // Defenders now in the hexes: those that began there, and 13.25's.
        let mut defenders = Vec::new();
        let mut previously = Vec::new();
        for h in &a.defending_hexes {
            for u in next.units.keys() {
                if hex_of(&next, u) != Some(*h) {
                    continue;
                }
                if start.get(u).copied().flatten() == Some(*h) {
                    defenders.push(u.clone());
                } else if rules.counter(u).is_some_and(|c| !c.is_leader()) {
                    // 13.25 is of units; a leader that retreated along
                    // with them (13.26) is no combat unit and makes no
                    // morale check (self-play, Historical, seed 373, game
                    // 872: Prevost, retreated from 1807 with the Loyal
                    // Savannah Militia into 2005, was counted a 13.25 unit
                    // of the combat there, and the step was refused).
                    previously.push(u.clone());
                }
            }
        }
        let fighting_attackers: Vec<String> =
            attackers.iter().filter(|u| rules.counter(u).is_some_and(|c| !c.is_leader())).cloned().collect();
        let fighting_defenders: Vec<String> =
            defenders.iter().filter(|u| rules.counter(u).is_some_and(|c| !c.is_leader())).cloned().collect();
        if fighting_attackers.is_empty() || fighting_defenders.is_empty() {
            events.push(Event::new(
                "12.23",
                "combat-lapses",
                format!("{}: no attacker or no defender is left in place; the combat does not take place", a.field),
            ));
            continue;
        }
        let attacker_player = player.to_string();
        let defender_player = player_of(rules, &fighting_defenders[0]);
        let defender_side = side_of(rules, &fighting_defenders[0]).to_string();
        let by_attacker = rules.army_of(&fighting_attackers[0]).unwrap_or_default().to_string();
        let by_defender = rules.army_of(&fighting_defenders[0]).unwrap_or_default().to_string();
        events.push(
            Event::new(
                "12.23",
                "close-combat",
                format!("{}: {} attack {}", a.field, attackers.join(", "), defenders.join(", ")),
            )
            .with("id", &id)
            .with("attackers", &attackers)
            .with("defenders", &defenders)
            .with("defending_hexes", a.defending_hexes.iter().map(|h| h.to_string()).collect::<Vec<_>>()),
        );
        // Savannah 4.13: a side on which units cooperate with another army's
        // credits that army with the combat's adjustments and VPs.
        for units in [&fighting_attackers, &fighting_defenders] {
            for (from, to, unit, rule) in cooperation_credit(rules, units) {
                events.push(
                    Event::new(
                        &rule,
                        "cooperation-credit",
                        format!(
                            "{unit} cooperates with the {to} army in {}: army morale adjustments and VPs of the {from} army in this \
                             combat are applied to the {to} army",
                            a.field
                        ),
                    )
                    .with("unit", &unit)
                    .with("from", &from)
                    .with("to", &to),
                );
                next.credit.insert(from, to);
            }
        }
        let by_attacker = next.credited(&by_attacker).to_string();
        let by_defender = next.credited(&by_defender).to_string();
        // 12.3: defenders that are all artillery are captured.
        if fighting_defenders.iter().all(|u| rules.counter(u).is_some_and(|c| c.is_artillery())) {
            let data = crate::systems::gboar::effects::retreat::Data::load(rules)?;
            for u in &fighting_defenders {
                events.extend(crate::systems::gboar::effects::results::capture(
                    rules,
                    &data,
                    &mut next,
                    u,
                    "12.3",
                    &by_attacker,
                )?);
            }
            step_9(rules, &mut next, &fighting_attackers, a, &start, &mut events)?;
            continue;
        }
        let lead_hex = a.defending_hexes.first().copied();
        let (hex_orders, side_orders) =
            lead_hex.map(|h| hex_defence(&d, &defender_side, h)).unwrap_or((None, d.defence.get(&defender_side)));
        // 12.4: Cavalry Withdrawal.
        let withdraw = hex_orders.is_some_and(|h| h.cavalry_withdrawal);
        let open = withdraw && cavalry_may_withdraw(rules, &next, &fighting_defenders, &fighting_attackers);
        // 12.4, 13.24: each withdrawing unit needs a retreat of three hexes
        // to a hex next to no enemy unit; a withdrawal that cannot be made
        // is not made, and the combat is fought.
        let cut_off: Vec<String> = if open {
            fighting_defenders
                .iter()
                .filter(|u| {
                    crate::systems::gboar::effects::retreat::legal_retreats(
                        rules,
                        &next,
                        u,
                        crate::systems::gboar::effects::retreat::Distance::CavalryWithdrawal,
                    )
                    .map_or(true, |routes| routes.is_empty())
                })
                .cloned()
                .collect()
        } else {
            Vec::new()
        };
        if open && cut_off.is_empty() {
            for u in &fighting_defenders {
                // 12.4: "Pinned cavalry can choose the Cavalry Withdrawal
                // option at a cost of -1 Army Morale": cavalry pinned when
                // the phase began (12.22 has taken every pin off by now).
                if pinned.contains(u) {
                    let why = format!("{u}, pinned, chooses Cavalry Withdrawal");
                    let army = rules.army_of(u).unwrap_or_default().to_string();
                    events.extend(crate::systems::gboar::effects::morale::apply(
                        rules,
                        &mut next,
                        "pinned-cavalry-withdrawal",
                        &army,
                        &[],
                        1,
                        ("12.4", &why),
                    )?);
                }
                let order = crate::systems::gboar::effects::retreat::Order {
                    unit: u,
                    distance: crate::systems::gboar::effects::retreat::Distance::CavalryWithdrawal,
                    rule: "12.4",
                    why: "Cavalry Withdrawal",
                    by: &by_attacker,
                    close_combat: None,
                    army_morale: false,
                };
                let choice = hex_orders.and_then(|h| h.choices.retreats.get(u));
                let (_, ev) = crate::systems::gboar::effects::retreat::retreat(rules, &mut next, &order, choice)?;
                events.extend(ev);
                if let Some(s) = next.units.get_mut(u) {
                    if s.hex.is_some() {
                        s.cavalry_withdrawn = true;
                    }
                }
            }
            step_9(rules, &mut next, &fighting_attackers, a, &start, &mut events)?;
            continue;
        }
        if open {
            events.push(
                Event::new(
                    "12.4",
                    "no-withdrawal",
                    format!(
                        "Cavalry Withdrawal is not possible: {} has no open retreat of three hexes to a hex next to \
                         no enemy unit (12.4, 13.24); the combat is fought",
                        cut_off.join(", ")
                    ),
                )
                .with("units", &cut_off),
            );
        } else if withdraw {
            events.push(Event::new("12.4", "no-withdrawal", "Cavalry Withdrawal is not open to these defenders (all Parade Order cavalry, no attacking cavalry, not already withdrawn, none Lost: 12.4, Savannah 4.9)".to_string()));
        }
        // Steps 1-4.
        let attacker_lead =
            lead_now(rules, &next, &fighting_attackers, a.lead.as_deref(), &a.defending_hexes, &a.field, &mut events)
                .map_err(|r| refusals::refuse(r.code, r.message))?;
        // 12.23 step 2: the Attacker chooses first; the Defender's choice
        // may depend on it.
        let wanted = hex_orders.and_then(|h| h.lead_after_attacker.get(&attacker_lead).or(h.lead.as_ref()));
        let defender_lead =
            lead_now(rules, &next, &fighting_defenders, wanted.map(String::as_str), &[], &a.field, &mut events)
                .unwrap_or_else(|_| fighting_defenders[0].clone());
        let diversion_shift = d.diversion.map_or(0, |h| {
            u32::from(
                attackers
                    .iter()
                    .any(|u| hex_of(&next, u).is_some_and(|x| crate::base::hex::are_adjacent(x, h, layout))),
            )
        });
        let mut e = Engagement {
            attackers: attackers.clone(),
            defenders: defenders.clone(),
            attacker_lead: attacker_lead.clone(),
            defender_lead: defender_lead.clone(),
            attacker_chit: String::new(),
            defender_chit: String::new(),
            diversion_shift,
        };
        e.attacker_chit = a.tactics.clone().unwrap_or_else(|| default_chit(rules, &next, &e, true));
        e.defender_chit = hex_orders
            .and_then(|h| h.tactics.clone())
            .or_else(|| side_orders.and_then(|o| o.defence.tactics.clone()))
            .unwrap_or_else(|| default_chit(rules, &next, &e, false));
        let a_sp: i32 = fighting_attackers.iter().map(|u| strength(rules, &next, u)).sum();
        let d_sp: i32 = fighting_defenders.iter().map(|u| strength(rules, &next, u)).sum();
        let odds = odds(rules, a_sp, d_sp, diversion_shift);
        let mods = modifiers(rules, &next, &e)?;
        let tactics_outcome = tactics(rules, &next, &e)?;
        events.push(
            Event::new(
                "12.23",
                "lead-units",
                format!(
                    "lead units: {attacker_lead} and {defender_lead}; tactics: {} against {}",
                    e.attacker_chit, e.defender_chit
                ),
            )
            .with("attacker_lead", &attacker_lead)
            .with("defender_lead", &defender_lead)
            .with("attacker_chit", &e.attacker_chit)
            .with("defender_chit", &e.defender_chit),
        );
        events.extend(explain(&odds, &mods, &tactics_outcome));
        let morale_at_start = next.army_morale.clone();
        let side_of_units =
            |units: &[String], affected: &str, defender: bool| crate::systems::gboar::effects::results::Side {
                affected: affected.to_string(),
                others: units
                    .iter()
                    .filter(|u| *u != affected && rules.counter(u).is_some_and(|c| !c.is_leader() && !c.is_artillery()))
                    .cloned()
                    .collect(),
                artillery: if defender {
                    units.iter().filter(|u| rules.counter(u).is_some_and(|c| c.is_artillery())).cloned().collect()
                } else {
                    Vec::new()
                },
                previously_retreated: if defender { previously.clone() } else { Vec::new() },
            };
        let combat = crate::systems::gboar::effects::results::Combat {
            id: id.clone(),
            kind: crate::systems::gboar::effects::results::CombatKind::Close,
            attacker: side_of_units(&attackers, &attacker_lead, false),
            defender: side_of_units(&defenders, &defender_lead, true),
            morale_at_start,
        };
        let drm_total: i32 = match &tactics_outcome {
            Tactics::NoCombat { attacker_withdraws, defender_withdraws, .. } => {
                // 12.23 step 4: the side that played Withdraw retreats all its
                // units one hex (never the Attacker's artillery); the Defender first.
                let mut movers: Vec<(String, &str)> = Vec::new();
                if *defender_withdraws {
                    movers.extend(
                        defenders
                            .iter()
                            .filter(|u| rules.counter(u).is_some_and(|c| !c.is_leader()))
                            .map(|u| (u.clone(), by_attacker.as_str())),
                    );
                }
                if *attacker_withdraws {
                    movers.extend(
                        attackers
                            .iter()
                            .filter(|u| rules.counter(u).is_some_and(|c| !c.is_leader() && !c.is_artillery()))
                            .map(|u| (u.clone(), by_defender.as_str())),
                    );
                }
                for (u, by) in movers {
                    let order = crate::systems::gboar::effects::retreat::Order {
                        unit: &u,
                        distance: crate::systems::gboar::effects::retreat::Distance::One,
                        rule: "12.23",
                        why: "Withdraw, no combat",
                        by,
                        close_combat: None,
                        army_morale: false,
                    };
                    let choice =
                        a.choices.retreats.get(&u).or_else(|| hex_orders.and_then(|h| h.choices.retreats.get(&u)));
                    let (_, ev) = crate::systems::gboar::effects::retreat::retreat(rules, &mut next, &order, choice)?;
                    events.extend(ev);
                }
                events.extend(advance(rules, &mut next, a, &attacker_lead, &start)?);
                continue;
            }
            Tactics::Drm(v, _) | Tactics::Illegal(v, _) => mods.iter().map(|m| m.value).sum::<i32>() + v,
        };
        // Steps 5-6.
        let defence_policy = side_orders.and_then(|o| o.momentum.clone()).unwrap_or_default();
        let (final_roll, att_codes, def_codes) = roll_with_momentum(
            rules,
            &mut next,
            &odds.column,
            drm_total,
            (&attacker_player, defender_player),
            (&a.momentum, &defence_policy),
            dice,
            &mut events,
        )?;
        // Savannah 4.3: a card's one-roll DRM is spent by this roll.
        crate::systems::gboar::effects::card_effects::spend_ids(rules, &mut next, mods.iter().map(|m| m.id.as_str()));
        // Step 7: the Attacker's choices fall on its own half, the hex's on the Defender's.
        // 13.1: DC is the Defender's choice and AC the Attacker's, on
        // whichever side the result falls.
        let mut attacker_choices = a.choices.clone();
        let mut defender_choices = hex_orders.map(|h| h.choices.clone()).unwrap_or_default();
        if def_codes.iter().any(|c| c == crate::systems::gboar::effects::results::CAPTURED_AC) {
            defender_choices.captured = a.capture.clone();
        }
        if att_codes.iter().any(|c| c == crate::systems::gboar::effects::results::CAPTURED_DC) {
            attacker_choices.captured = hex_orders.and_then(|h| h.capture.clone());
        }
        events.extend(crate::systems::gboar::effects::results::apply_close_combat(
            rules,
            &mut next,
            &combat,
            &att_codes,
            &attacker_choices,
            &def_codes,
            &defender_choices,
            dice,
        )?);
        // Step 8.
        events.extend(gain_momentum(rules, &mut next, final_roll, (&attacker_player, defender_player)));
        // 10.5: rifle units in a close combat lose their first fire.
        for u in attackers.iter().chain(&defenders) {
            if rules.counter(u).is_some_and(crate::systems::gboar::board::units::is_rifle) {
                if let Some(s) = next.units.get_mut(u) {
                    s.first_fire_used = true;
                }
            }
        }
        // Step 9.
        events.extend(advance(rules, &mut next, a, &attacker_lead, &start)?);
    }
    next.credit.clear();
    // 16.3: a game the last combat ended has no end of phase.
    if crate::systems::gboar::effects::morale::demoralized(rules, &next).is_empty() {
        events.extend(crate::systems::gboar::effects::results::end_of_close_combat_phase(
            rules, &mut next, player, dice,
        )?);
    }
    Ok(crate::systems::gboar::board::state::Resolution { state: next, events })
}
