//! Morale checks (13.5): one unit's check, and the checks that an event
//! other than a combat result calls for.

use super::*;

/// One morale check's circumstances.
#[derive(Debug, Clone)]
pub struct MoraleCheck<'a> {
    /// What calls for it, in words.
    pub why: &'a str,
    /// 16.24: army morale by army at the start of the combat.
    pub morale_at_start: &'a BTreeMap<String, i32>,
    /// 13.5: the hexes the unit is attacked from, when it defends in close
    /// combat (empty otherwise).
    pub attacked_from: &'a [HexId],
    /// A triggered check (charts/morale-check.yaml `triggered_checks`).
    pub trigger: Option<&'a str>,
}

/// 13.5: whether every hexside between `hex` and the adjacent hexes of
/// `from` is an unbreached fieldwork protecting `hex` ("Defending units
/// attacked solely across unbreached fieldwork hexsides"). False when no
/// hex of `from` is adjacent.
pub(super) fn solely_across_fieldworks(rules: &Rules, state: &State, hex: HexId, from: &[HexId]) -> bool {
    let layout = rules.module.map.layout;
    let works = crate::systems::gboar::board::terrain::Terrain::of(rules, state).fieldworks_of(hex);
    let adjacent: Vec<HexId> =
        from.iter().copied().filter(|a| crate::base::hex::are_adjacent(*a, hex, layout)).collect();
    !adjacent.is_empty() && adjacent.iter().all(|a| works.iter().any(|(n, breached)| n == a && !breached))
}

/// 13.5: `unit` checks morale; whether it passes, and the event.
pub fn morale_check(
    rules: &Rules,
    state: &mut State,
    unit: &str,
    check: &MoraleCheck,
    dice: &mut dyn Dice,
) -> Result<(bool, Event)> {
    let chart = &rules.charts.morale_check;
    let c = counter(rules, unit)?;
    let hex =
        hex_of(state, unit).ok_or_else(|| Error::refused(format!("{unit} is not on the map: it cannot check")))?;
    // 16.24: the level at the start of the combat.
    let Some(at_start) = check.morale_at_start.get(&c.army).copied() else {
        return Err(Error::refused(format!(
            "16.24: the army morale of {} at the start of the combat is not given",
            c.army
        )));
    };
    let mut view = check.morale_at_start.clone();
    view.insert(c.army.clone(), at_start);
    std::mem::swap(&mut state.army_morale, &mut view);
    let modified = crate::systems::gboar::board::units::modified_morale(rules, state, c);
    std::mem::swap(&mut state.army_morale, &mut view);
    let (base, level_modifier, level) = modified?;
    if let Some(t) = check.trigger {
        if !chart.triggered_checks.iter().any(|x| x.id == t) {
            return Err(Error::refused(format!("charts/morale-check.yaml: '{t}' is not one of its triggered_checks")));
        }
    }
    let mut drms: Vec<(String, i32)> = Vec::new();
    for m in chart.modifiers.iter().filter(|m| m.applies_to.iter().any(|a| a == "morale-check")) {
        let value = match m.id.as_str() {
            // 14.23: the leader in command in the unit's hex.
            "leadership" => crate::systems::gboar::board::units::leader_in_command(rules, state, hex, c)
                .map(|l| (format!("leadership ({})", l.name), l.leadership_drm.unwrap_or(0))),
            // 13.5: defending solely across unbreached fieldworks.
            "fieldworks-defence" => solely_across_fieldworks(rules, state, hex, check.attacked_from)
                .then(|| ("defending across fieldworks".to_string(), m.value.unwrap_or(0))),
            // A triggered check's own modifier (Savannah 4.19).
            id if chart.triggered_checks.iter().any(|t| t.id == id) => {
                (check.trigger == Some(id)).then(|| (id.to_string(), m.value.unwrap_or(0)))
            }
            other => {
                return Err(Error::refused(format!(
                    "charts/morale-check.yaml: the engine does not know the morale check modifier '{other}'"
                )))
            }
        };
        if let Some(v) = value {
            drms.push(v);
        }
    }
    // Savannah 4.3: a Random Events card's DRM for the player's morale checks.
    let player = crate::systems::gboar::board::units::player_of(rules, unit);
    let cards = crate::systems::gboar::effects::card_effects::own_roll(rules, state, "morale-check", player);
    drms.extend(cards.iter().map(|c| (c.text.clone(), c.value)));
    crate::systems::gboar::effects::card_effects::spend(state, &cards);
    let die = match chart.die {
        crate::systems::gboar::data::charts::Die::D10 => crate::base::dice::Die::D10,
    };
    let roll = i32::from(dice.roll(die, &format!("morale check (13.5), {} in {hex}", c.name))?);
    let drm_total: i32 = drms.iter().map(|(_, v)| v).sum();
    let total = roll + base + level_modifier + drm_total;
    let passed = total >= chart.pass_at_least;
    let drm_text: Vec<String> = drms.iter().map(|(n, v)| format!("{v:+} {n}")).collect();
    let current = state.army_morale.get(&c.army).copied().unwrap_or(at_start);
    let snapshot = if current == at_start {
        String::new()
    } else {
        format!(" (16.24: army morale {at_start} at the start of the combat, {current} now)")
    };
    let event = Event::new(
        "13.5",
        "morale-check",
        format!(
            "{} ({unit}, {hex}) checks morale for {}: rolls {roll}, morale {base} {level_modifier:+} ({level}){snapshot}\
             {}{} = {total}: {} (needs {})",
            c.name,
            check.why,
            if drm_text.is_empty() { "" } else { ", " },
            drm_text.join(", "),
            if passed { "passes" } else { "fails" },
            chart.pass_at_least
        ),
    )
    .with("unit", unit)
    .with("hex", hex.to_string())
    .with("roll", roll)
    .with("morale", base)
    .with("army_morale_modifier", level_modifier)
    .with("army_morale_at_start", at_start)
    .with("drms", drms.iter().cloned().collect::<BTreeMap<String, i32>>())
    .with("total", total)
    .with("passed", passed)
    .with("why", check.why);
    Ok((passed, event))
}

/// Savannah 4.19: a check the rules trigger (charts/morale-check.yaml
/// `triggered_checks`: `fieldwork-breached`, `city-hex-destroyed`): every
/// combat unit in `hexes` checks morale, with the trigger's own modifier if
/// the chart has one, and retreats one hex if it fails (read as 13.1's
/// checks: the rules say no more). `by` is the enemy army credited with a
/// capture; `morale_at_start` the army morale the checks use (16.24).
/// Not a combat result: no `unit-retreated`, and Savannah 4.9 does not apply.
#[allow(clippy::too_many_arguments)]
pub fn triggered_check(
    rules: &Rules,
    state: &mut State,
    trigger: &str,
    hexes: &[HexId],
    by: &str,
    morale_at_start: &BTreeMap<String, i32>,
    choices: &BTreeMap<String, RetreatChoice>,
    dice: &mut dyn Dice,
) -> Result<Vec<Event>> {
    let data = Data::load(rules)?;
    let mut next = state.clone();
    let units: Vec<String> = state
        .units
        .keys()
        .filter(|id| rules.counter(id).is_some_and(|c| !c.is_leader()))
        .filter(|id| hex_of(state, id).is_some_and(|h| hexes.contains(&h)))
        .cloned()
        .collect();
    let text = rules
        .charts
        .morale_check
        .triggered_checks
        .iter()
        .find(|t| t.id == trigger)
        .map(|t| t.text.clone())
        .ok_or_else(|| {
            Error::refused(format!("charts/morale-check.yaml: '{trigger}' is not one of its triggered_checks"))
        })?;
    let claimed: BTreeSet<String> = choices.values().filter_map(|c| c.leaders.as_ref()).flatten().cloned().collect();
    let mut events = Vec::new();
    for u in units {
        if hex_of(&next, &u).is_none() {
            continue;
        }
        let check = MoraleCheck { why: &text, morale_at_start, attacked_from: &[], trigger: Some(trigger) };
        let (passed, event) = morale_check(rules, &mut next, &u, &check, dice)?;
        events.push(event.with("trigger", trigger));
        if !passed {
            let why = format!("failed morale check: {text}");
            let order = retreat::Order {
                unit: &u,
                distance: Distance::One,
                rule: "Savannah 4.19",
                why: &why,
                by,
                close_combat: None,
                army_morale: false,
            };
            let (_, e) = retreat::retreat_with(rules, &data, &mut next, &order, choices.get(&u), &claimed)?;
            events.extend(e);
        }
    }
    *state = next;
    Ok(events)
}
