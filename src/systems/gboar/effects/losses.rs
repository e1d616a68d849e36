//! Step losses (series 2.2) with their army morale (16.1) and Victory Point
//! (Savannah 2.9) consequences, and the Overstacking Penalty (series 7.3).
//!
//! [`lose_steps`]: a unit loses steps. A two-step unit at full strength
//! that loses one is reduced; a unit that loses its last step is eliminated
//! (off the map, in the Eliminated box). Leaders are not for this function:
//! their casualties are the Leader Casualty Table's.
//!
//! - Army morale, from the Army Morale Adjustment Chart
//!   (`charts/army-morale.yaml`): the [`Cause`]'s step entry once per step
//!   lost (`overstacking-step-lost` for 7.3, `step-lost` in combat), and
//!   `unit-eliminated` once more when the unit is eliminated. `affected`
//!   goes to the unit's army; `opponent` to the army that inflicted the loss,
//!   or, when no army did (7.3), to every army of the other players.
//! - Victory Points, from the Victory Point Schedule
//!   (`charts/victory-points.yaml`, in halves): `two-step-unit-reduced`, a
//!   two-step unit at full strength reduced; `two-step-unit-eliminated`, a
//!   two-step unit at full strength eliminated at once; `reduced-unit-eliminated`;
//!   `one-step-unit-eliminated`. VPs are *scored*: they are added to
//!   `state.vp_halves` of an army of the other player (the schedule: "scored
//!   by the army that inflicted or achieved it"; victory.rs adds an
//!   alliance's armies together): the army that inflicted the loss, or, when
//!   none did (7.3), the first army of the other players, in module.yaml
//!   order, that the entry's `sides` admit. Never to every army, which would
//!   count the loss twice in an alliance's total.
//! - A unit whose counter has `casualty` (counters.yaml, Savannah 4.8: the
//!   Creeks) replaces those entries for itself: `army_morale: false` (or the
//!   tag `no-army-morale-on-loss`) gives no army morale adjustment to either
//!   side; `vp_halves` is what its elimination scores, and losing a step
//!   without being eliminated scores nothing. The chart schema has no field
//!   that names the unit an entry replaces for, so the counter is where the
//!   engine reads it.
//!
//! Every entry the loss needs is read before the state changes: an entry the
//! chart lacks refuses the loss, naming the chart and the entry.
//!
//! [`capture`] (13.1 DC/AC/PIN, 13.23, 13.4): a unit goes to the Captured
//! box whatever its steps, with the chart's `unit-captured` army morale
//! (`affected`, and `opponent` to the capturing army) and the schedule's
//! `unit-captured` VPs to the capturing army; a counter's `casualty`
//! replaces them as above. Momentum (12.64) is [`crate::systems::gboar::effects::results`]'.
//!
//! [`overstacking`] (7.1, 7.3): in every hex where a player's units are over
//! the stacking limit of module.yaml `stacking` (SPs: a unit's
//! `strength.full`, or `strength.reduced` once it has lost a step; each
//! artillery, naval artillery or mortar unit is one artillery unit whatever
//! its SPs; leaders count only if `leaders_count`, and then for their SPs,
//! as in the Movement Phase), the player eliminates steps until the hex is
//! within the limit, each step through [`lose_steps`] with
//! [`Cause::Overstacking`]:
//!
//! 1. first from the units the player chose (`choices`, in their order):
//!    from each, the fewest steps that bring the hex within the limit, or all
//!    its steps if it cannot do it alone; an artillery unit is eliminated
//!    whole. A choice stops being used once its hex is within the limit.
//! 2. then by default ("the 7.3 default" in the events): artillery over the
//!    limit eliminates whole artillery units, those with the fewest steps
//!    left first, then the lowest printed morale on the side showing, then
//!    the lowest id; SPs over the limit lose **the fewest steps** that bring
//!    the hex within the limit, and among the ways of doing so the one that
//!    takes the most steps from the unit with the lowest printed morale (on
//!    the side showing; a unit without morale comes last), then from the
//!    next lowest, equal morale by lowest id.
//!
//! A choice that is not a unit of the player in an overstacked hex, or that
//! cannot help its hex (an infantry unit where only the artillery is over,
//! ...), refuses the whole penalty before anything changes.

use std::collections::BTreeMap;

use crate::base::error::{Error, Result};
use crate::base::hex::HexId;
use crate::system::Event;
use crate::systems::gboar::board::state::{OffMap, State};
use crate::systems::gboar::board::units::side_of_army;
use crate::systems::gboar::board::Rules;
use crate::systems::gboar::data::charts::VpEntry;
use crate::systems::gboar::data::counters::Counter;
use crate::systems::gboar::effects::morale;

/// Why a unit loses steps: which chart entries apply and who scores.
/// Combat results (issue 5) add their causes here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cause {
    /// Series 7.3: steps eliminated to meet the stacking limit, "as if they
    /// were lost in combat"; no enemy army inflicted them.
    Overstacking,
    /// A combat result under `rule`, inflicted by the army `by`: `opponent`
    /// adjustments and the VPs go to that army.
    Combat { rule: String, by: String },
    /// Savannah 4.12: mortar shells that drift onto the firing player's own
    /// units. The rules say only that the units present take the shells;
    /// the losses count as if the enemy army `by` had inflicted them, as
    /// 7.3 counts losses no enemy inflicted ("as if they were lost in
    /// combat").
    FriendlyFire { rule: String, by: String },
}

impl Cause {
    /// The rule the events cite.
    pub fn rule(&self) -> &str {
        match self {
            Cause::Overstacking => "7.3",
            Cause::Combat { rule, .. } | Cause::FriendlyFire { rule, .. } => rule,
        }
    }

    /// The Army Morale Adjustment Chart entry applied per step lost.
    pub fn step_entry(&self) -> &'static str {
        match self {
            Cause::Overstacking => "overstacking-step-lost",
            Cause::Combat { .. } | Cause::FriendlyFire { .. } => "step-lost",
        }
    }

    /// The Army Morale Adjustment Chart entry applied once more when the unit is eliminated.
    pub fn elimination_entry(&self) -> &'static str {
        "unit-eliminated"
    }

    /// The army that inflicted the loss, if one did.
    pub fn inflicted_by(&self) -> Option<&str> {
        match self {
            Cause::Overstacking => None,
            Cause::Combat { by, .. } | Cause::FriendlyFire { by, .. } => Some(by),
        }
    }

    fn words(&self) -> String {
        match self {
            Cause::Overstacking => "overstacking (7.3)".to_string(),
            Cause::Combat { rule, by } => format!("combat ({rule}), inflicted by {by}"),
            Cause::FriendlyFire { rule, by } => {
                format!("its own side's fire ({rule}), counted as if {by} had inflicted it (as 7.3 counts its losses)")
            }
        }
    }
}

/// The chart files named in refusals and events.
const ARMY_MORALE_CHART: &str = "charts/army-morale.yaml";
const VP_CHART: &str = "charts/victory-points.yaml";

/// The counters.yaml tag of a unit whose casualties adjust neither army's morale.
const NO_ARMY_MORALE_TAG: &str = "no-army-morale-on-loss";

fn is_artillery(c: &Counter) -> bool {
    c.is_artillery()
}

/// A counter's steps at full strength (series 2.2).
fn full_steps(c: &Counter) -> u8 {
    c.steps.unwrap_or(1)
}

/// The SPs printed on the side a unit with `left` steps shows.
fn sps_with(c: &Counter, left: u8) -> i32 {
    match c.strength {
        _ if left == 0 => 0,
        Some(s) if left < full_steps(c) => s.reduced.unwrap_or(s.full),
        Some(s) => s.full,
        None => 0,
    }
}

/// The printed morale on the side showing; `None` for a unit without morale.
fn morale_with(c: &Counter, left: u8) -> Option<i32> {
    c.morale.map(|m| if left < full_steps(c) { m.reduced.unwrap_or(m.full) } else { m.full })
}

/// 7.1: the SPs and artillery units a unit counts for stacking, as the
/// Movement Phase counts them ([`Counter::stacking_weight`]).
pub fn stacking_weight(rules: &Rules, state: &State, id: &str) -> (i32, i32) {
    let Some(c) = rules.counter(id) else { return (0, 0) };
    let leaders_count = rules.stacking.as_ref().is_some_and(|s| s.leaders_count);
    c.stacking_weight(state.units.get(id).map(|u| u.steps).unwrap_or(1), leaders_count)
}

/// The armies of every player but `player`, in module.yaml order.
pub(crate) fn other_armies(rules: &Rules, player: &str) -> Vec<String> {
    rules.sequence.data.alliances.iter().filter(|a| a.id != player).flat_map(|a| a.armies.iter().cloned()).collect()
}

/// "1 artillery unit", "2 artillery units".
fn artillery_words(n: i32) -> String {
    format!("{n} artillery unit{}", if n == 1 { "" } else { "s" })
}

/// Half VPs in words: "1/2 VP", "1 VP", "1 1/2 VPs".
fn vp_words(halves: i32) -> String {
    let (whole, half) = (halves / 2, halves % 2 != 0);
    let number = match (whole, half) {
        (0, true) => "1/2".to_string(),
        (w, true) => format!("{w} 1/2"),
        (w, false) => w.to_string(),
    };
    let plural = if halves.abs() > 2 { "VPs" } else { "VP" };
    format!("{number} {plural}")
}

/// Where a loss's VPs come from.
enum VpAward<'a> {
    /// An entry of the Victory Point Schedule.
    Chart(&'a VpEntry, i32),
    /// counters.yaml `casualty.vp_halves`, which replaces the schedule for the unit.
    Counter(i32),
}

/// The entry `id` of the Victory Point Schedule, with its halves.
fn vp_entry<'a>(rules: &'a Rules, id: &str, rule: &str) -> Result<(&'a VpEntry, i32)> {
    let entry = rules.charts.victory_points.victory_points.entries.iter().find(|e| e.id == id).ok_or_else(|| {
        Error::refused(format!(
            "{VP_CHART}: the Victory Point Schedule has no entry '{id}', which {rule} and Savannah 2.9 need here"
        ))
    })?;
    let halves = entry.halves.ok_or_else(|| {
        Error::refused(format!(
            "{VP_CHART}: entry '{id}' gives no halves (it reads from another chart), but {rule} needs its value"
        ))
    })?;
    Ok((entry, halves))
}

/// Check that an army morale entry exists and counts per step (or per occurrence).
fn step_adjustment(rules: &Rules, id: &str) -> Result<()> {
    let entry = morale::adjustment(rules, id)?;
    match entry.per.as_deref() {
        None | Some("step") => Ok(()),
        Some(other) => Err(Error::refused(format!(
            "{ARMY_MORALE_CHART}: entry '{id}' counts per {other}; a step loss needs it per step or per occurrence"
        ))),
    }
}

/// Series 2.2, 7.3, 16.1, Savannah 2.9: `unit` loses `steps` steps (all it
/// has if it has fewer), with the army morale and VPs that follow; see the
/// module documentation. Refused before any change when the unit is a
/// leader, off the map, or a chart entry the loss needs is missing.
pub fn lose_steps(rules: &Rules, state: &mut State, unit: &str, steps: u8, cause: Cause) -> Result<Vec<Event>> {
    let rule = cause.rule().to_string();
    let counter =
        rules.counter(unit).ok_or_else(|| Error::refused(format!("'{unit}' is not a counter of this module")))?;
    if counter.is_leader() {
        return Err(Error::refused(format!(
            "{unit} is a leader: leaders do not lose steps, their casualties are the Leader Casualty Table's (13.1)"
        )));
    }
    let now = state.units.get(unit).ok_or_else(|| Error::refused(format!("{unit} is not in this game")))?;
    let hex = now.hex.ok_or_else(|| Error::refused(format!("{unit} is not on the map: it cannot lose steps")))?;
    if steps == 0 {
        return Err(Error::refused(format!("{unit}: a step loss of 0 steps")));
    }
    let full = full_steps(counter);
    let before = now.steps;
    if before == 0 || before > full || full > 2 {
        return Err(Error::refused(format!(
            "{unit} has {before} of {full} steps: series 2.2 units have one or two steps and lose them one at a time"
        )));
    }
    let lost = steps.min(before);
    let after = before - lost;
    let eliminated = after == 0;
    let army = counter.army.clone();
    let player = rules
        .player_of_army(&army)
        .ok_or_else(|| Error::refused(format!("the army {army} of {unit} is no player's (module.yaml alliances)")))?
        .to_string();
    let opponents: Vec<String> = match cause.inflicted_by() {
        Some(by) => {
            if rules.player_of_army(by).is_none_or(|p| p == player) {
                return Err(Error::refused(format!("{rule}: {by} is not an army of {unit}'s enemy")));
            }
            vec![by.to_string()]
        }
        None => other_armies(rules, &player),
    };

    // Every chart entry, before anything changes.
    let special = counter.casualty.as_ref();
    let no_army_morale =
        special.is_some_and(|s| s.army_morale == Some(false)) || counter.tags.iter().any(|t| t == NO_ARMY_MORALE_TAG);
    let mut morale_entries: Vec<(&str, i32)> = Vec::new();
    if !no_army_morale {
        step_adjustment(rules, cause.step_entry())?;
        morale_entries.push((cause.step_entry(), i32::from(lost)));
        if eliminated {
            morale::adjustment(rules, cause.elimination_entry())?;
            morale_entries.push((cause.elimination_entry(), 1));
        }
    }
    let award = match special.and_then(|s| s.vp_halves) {
        Some(halves) if eliminated => Some(VpAward::Counter(halves)),
        Some(_) => None,
        None => {
            let id = match (full, before, eliminated) {
                (1, _, _) => "one-step-unit-eliminated",
                (_, 2, true) => "two-step-unit-eliminated",
                (_, 2, false) => "two-step-unit-reduced",
                _ => "reduced-unit-eliminated",
            };
            let (entry, halves) = vp_entry(rules, id, &rule)?;
            Some(VpAward::Chart(entry, halves))
        }
    };
    let scorer = match &award {
        None => None,
        Some(VpAward::Counter(_)) => opponents.first().cloned(),
        Some(VpAward::Chart(entry, _)) => opponents
            .iter()
            .find(|a| entry.sides.is_empty() || side_of_army(rules, a).is_some_and(|s| entry.sides.contains(&s)))
            .cloned(),
    };

    // The loss itself.
    let name = counter.name.clone();
    if let Some(u) = state.units.get_mut(unit) {
        u.steps = after;
        if eliminated {
            u.leave_map(OffMap::Eliminated);
        }
    }
    let outcome =
        if eliminated { "eliminated".to_string() } else { format!("reduced to {} SPs", sps_with(counter, after)) };
    let from = match special.and_then(|s| s.source.as_deref()) {
        Some(source) => format!("counters.yaml casualty of {unit}, {source}"),
        None if special.is_some() => format!("counters.yaml casualty of {unit}"),
        None => format!("counters.yaml tag {NO_ARMY_MORALE_TAG} of {unit}"),
    };
    let mut exempt = String::new();
    if no_army_morale {
        exempt.push_str(&format!("; no army morale adjustment for either side ({from})"));
    }
    if award.is_none() {
        exempt.push_str(&format!("; no VPs until it is eliminated ({from}, which replaces {VP_CHART})"));
    }
    let asked = if lost < steps { format!(" ({steps} asked, it had {before})") } else { String::new() };
    let mut events = vec![Event::new(
        &rule,
        "step-loss",
        format!(
            "{name} ({unit}, {hex}) loses {lost} step{}{asked} for {}: {before} → {after} steps, {outcome}{exempt}",
            if lost == 1 { "" } else { "s" },
            cause.words()
        ),
    )
    .with("unit", unit)
    .with("army", &army)
    .with("hex", hex)
    .with("steps_before", before)
    .with("steps_after", after)
    .with("lost", lost)
    .with("eliminated", eliminated)
    .with("army_morale_exempt", no_army_morale)];

    // 16.1: army morale.
    for (id, count) in morale_entries {
        let why = if id == cause.elimination_entry() {
            format!("{name} eliminated ({ARMY_MORALE_CHART} {id})")
        } else {
            format!("{name} lost {count} step{} ({ARMY_MORALE_CHART} {id})", if count == 1 { "" } else { "s" })
        };
        let applied = morale::apply(rules, state, id, &army, &opponents, count, (&rule, &why))?;
        events.extend(applied.into_iter().map(|e| e.with("entry", id).with("unit", unit)));
    }

    // Savannah 2.9: VPs, scored by the other side.
    let (halves, source) = match &award {
        None => (0, String::new()),
        Some(VpAward::Chart(entry, halves)) => (*halves, format!("{VP_CHART} {}", entry.id)),
        Some(VpAward::Counter(halves)) => {
            (*halves, format!("counters.yaml casualty of {unit}, which replaces {VP_CHART}"))
        }
    };
    match (&award, scorer) {
        (Some(_), Some(army_scoring)) if halves != 0 => {
            // Savannah 4.13: the VPs of a cooperating army's units go to the army they cooperate with.
            let army_scoring = state.credited(&army_scoring).to_string();
            let was = state.vp_halves.get(&army_scoring).copied().unwrap_or(0);
            let now = was.saturating_add(halves);
            state.vp_halves.insert(army_scoring.clone(), now);
            let credit = match cause.inflicted_by() {
                Some(_) => String::new(),
                None => "; no army inflicted it: the first army of the other side that may score it".to_string(),
            };
            let entry = match &award {
                Some(VpAward::Chart(e, _)) => e.id.clone(),
                _ => "casualty".to_string(),
            };
            events.push(
                Event::new(
                    &rule,
                    "victory-points",
                    format!(
                        "{army_scoring} scores {} for {name} {} ({source}{credit}): {was} → {now} half VPs",
                        vp_words(halves),
                        if eliminated { "eliminated" } else { "reduced" }
                    ),
                )
                .with("army", &army_scoring)
                .with("unit", unit)
                .with("entry", entry)
                .with("halves", halves)
                .with("before", was)
                .with("after", now),
            );
        }
        (Some(VpAward::Chart(entry, _)), None) => events.push(
            Event::new(
                &rule,
                "victory-points",
                if entry.sides.is_empty() {
                    format!("no VPs for {name}: no army of another player to score {VP_CHART} {}", entry.id)
                } else {
                    format!(
                        "no VPs for {name}: {VP_CHART} {} scores only for {}, and no enemy army of those sides \
                         inflicted it",
                        entry.id,
                        entry.sides.join(", ")
                    )
                },
            )
            .with("unit", unit)
            .with("entry", &entry.id)
            .with("halves", 0),
        ),
        _ => {}
    }
    Ok(events)
}

/// The Army Morale Adjustment Chart and Victory Point Schedule entry of a capture.
pub const CAPTURED_ENTRY: &str = "unit-captured";

/// Series 13.1 DC/AC/PIN, 13.23, 13.4, 16.1, Savannah 2.9: `unit` is
/// captured (off the map, in the Captured box, its steps as they were),
/// inflicted by the army `by` under `rule`. Army morale: the chart's
/// `unit-captured` (`affected` to the unit's army, `opponent` to `by`); VPs:
/// the schedule's `unit-captured`, whatever the unit's steps, scored by `by`
/// (the entry's `sides` permitting). A counter's `casualty` replaces both
/// as for step losses (Savannah 4.8: the Creeks). Refused before any change
/// for a leader, a unit off the map, `by` not an enemy army, or a chart
/// entry missing. Momentum (12.64) is the caller's ([`crate::systems::gboar::effects::results`]).
pub fn capture(rules: &Rules, state: &mut State, unit: &str, rule: &str, by: &str) -> Result<Vec<Event>> {
    let counter =
        rules.counter(unit).ok_or_else(|| Error::refused(format!("'{unit}' is not a counter of this module")))?;
    if counter.is_leader() {
        return Err(Error::refused(format!(
            "{unit} is a leader: leaders are not captured by combat results, their casualties are the Leader \
             Casualty Table's (13.1)"
        )));
    }
    let now = state.units.get(unit).ok_or_else(|| Error::refused(format!("{unit} is not in this game")))?;
    let hex = now.hex.ok_or_else(|| Error::refused(format!("{unit} is not on the map: it cannot be captured")))?;
    let army = counter.army.clone();
    let player = rules
        .player_of_army(&army)
        .ok_or_else(|| Error::refused(format!("the army {army} of {unit} is no player's (module.yaml alliances)")))?;
    if rules.player_of_army(by).is_none_or(|p| p == player) {
        return Err(Error::refused(format!("{rule}: {by} is not an army of {unit}'s enemy")));
    }
    let opponents = vec![by.to_string()];
    let special = counter.casualty.as_ref();
    let no_army_morale =
        special.is_some_and(|s| s.army_morale == Some(false)) || counter.tags.iter().any(|t| t == NO_ARMY_MORALE_TAG);
    if !no_army_morale {
        morale::adjustment(rules, CAPTURED_ENTRY)?;
    }
    let award = match special.and_then(|s| s.vp_halves) {
        Some(halves) => VpAward::Counter(halves),
        None => {
            let (entry, halves) = vp_entry(rules, CAPTURED_ENTRY, rule)?;
            VpAward::Chart(entry, halves)
        }
    };
    let scorer = match &award {
        VpAward::Counter(_) => Some(by.to_string()),
        VpAward::Chart(entry, _) => Some(by.to_string())
            .filter(|a| entry.sides.is_empty() || side_of_army(rules, a).is_some_and(|s| entry.sides.contains(&s))),
    };

    let name = counter.name.clone();
    let steps = now.steps;
    if let Some(u) = state.units.get_mut(unit) {
        u.leave_map(OffMap::Captured);
    }
    let exempt = if no_army_morale {
        "; no army morale adjustment for either side (counters.yaml)".to_string()
    } else {
        String::new()
    };
    let mut events = vec![Event::new(
        rule,
        "captured",
        format!(
            "{name} ({unit}, {hex}, {steps} step{}) is captured by {by}{exempt}",
            if steps == 1 { "" } else { "s" }
        ),
    )
    .with("unit", unit)
    .with("army", &army)
    .with("hex", hex)
    .with("steps", steps)
    .with("by", by)
    .with("army_morale_exempt", no_army_morale)];
    if !no_army_morale {
        let why = format!("{name} captured ({ARMY_MORALE_CHART} {CAPTURED_ENTRY})");
        let applied = morale::apply(rules, state, CAPTURED_ENTRY, &army, &opponents, 1, (rule, &why))?;
        events.extend(applied.into_iter().map(|e| e.with("entry", CAPTURED_ENTRY).with("unit", unit)));
    }
    let (halves, source, entry_id) = match &award {
        VpAward::Chart(entry, halves) => (*halves, format!("{VP_CHART} {}", entry.id), entry.id.clone()),
        VpAward::Counter(halves) => {
            (*halves, format!("counters.yaml casualty of {unit}, which replaces {VP_CHART}"), "casualty".to_string())
        }
    };
    match scorer {
        Some(army_scoring) if halves != 0 => {
            // Savannah 4.13: the VPs of a cooperating army's units go to the army they cooperate with.
            let army_scoring = state.credited(&army_scoring).to_string();
            let was = state.vp_halves.get(&army_scoring).copied().unwrap_or(0);
            let now = was.saturating_add(halves);
            state.vp_halves.insert(army_scoring.clone(), now);
            events.push(
                Event::new(
                    rule,
                    "victory-points",
                    format!(
                        "{army_scoring} scores {} for {name} captured ({source}): {was} → {now} half VPs",
                        vp_words(halves)
                    ),
                )
                .with("army", &army_scoring)
                .with("unit", unit)
                .with("entry", entry_id)
                .with("halves", halves)
                .with("before", was)
                .with("after", now),
            );
        }
        Some(_) => {}
        None => events.push(
            Event::new(
                rule,
                "victory-points",
                format!("no VPs for {name}: {source} scores only for other sides than {by}'s"),
            )
            .with("unit", unit)
            .with("entry", entry_id)
            .with("halves", 0),
        ),
    }
    Ok(events)
}

/// One hex of a player's, with what it counts for stacking.
struct Hex {
    id: HexId,
    units: Vec<String>,
    sps: i32,
    guns: i32,
}

/// Every hex holding units of `player`, with its totals (7.1).
fn player_hexes(rules: &Rules, state: &State, player: &str) -> BTreeMap<HexId, Hex> {
    let mut hexes: BTreeMap<HexId, Hex> = BTreeMap::new();
    for (id, u) in &state.units {
        let Some(h) = u.hex else { continue };
        let Some(c) = rules.counter(id) else { continue };
        if rules.player_of_army(&c.army) != Some(player) {
            continue;
        }
        let (s, g) = stacking_weight(rules, state, id);
        let hex = hexes.entry(h).or_insert_with(|| Hex { id: h, units: Vec::new(), sps: 0, guns: 0 });
        hex.units.push(id.clone());
        hex.sps = hex.sps.saturating_add(s);
        hex.guns = hex.guns.saturating_add(g);
    }
    hexes
}

fn totals(rules: &Rules, state: &State, player: &str, hex: HexId) -> Hex {
    player_hexes(rules, state, player).remove(&hex).unwrap_or(Hex { id: hex, units: Vec::new(), sps: 0, guns: 0 })
}

/// The steps left of a unit on the map.
fn steps_left(state: &State, id: &str) -> u8 {
    state.units.get(id).filter(|u| u.hex.is_some()).map(|u| u.steps).unwrap_or(0)
}

/// Sort key of the defaults: lowest printed morale (none last), then lowest id.
fn morale_key(rules: &Rules, state: &State, id: &str) -> (i32, String) {
    let morale = rules.counter(id).and_then(|c| morale_with(c, steps_left(state, id))).unwrap_or(i32::MAX);
    (morale, id.to_string())
}

/// The fewest steps, from `units` (in the defaults' order), that remove at
/// least `excess` SPs; among those, the most steps from the first unit,
/// then the next. `removal[i][k]`: SPs removed by `k` steps of unit `i`.
fn fewest_steps(removal: &[Vec<i32>], excess: i32) -> Option<Vec<u8>> {
    fn search(
        removal: &[Vec<i32>],
        i: usize,
        excess: i32,
        steps: u32,
        current: &mut Vec<u8>,
        best: &mut Option<(u32, Vec<u8>)>,
    ) {
        if excess <= 0 {
            // Vectors come in decreasing order: the first of the fewest steps is kept.
            if best.as_ref().is_none_or(|b| steps < b.0) {
                *best = Some((steps, current.clone()));
            }
            return;
        }
        if i == removal.len() || best.as_ref().is_some_and(|b| steps >= b.0) {
            return;
        }
        let options = removal.get(i).map(Vec::len).unwrap_or(0);
        for k in (0..options).rev() {
            let removed = removal.get(i).and_then(|r| r.get(k)).copied().unwrap_or(0);
            if let Some(slot) = current.get_mut(i) {
                *slot = u8::try_from(k).unwrap_or(u8::MAX);
            }
            search(removal, i + 1, excess - removed, steps + u32::try_from(k).unwrap_or(u32::MAX), current, best);
        }
        if let Some(slot) = current.get_mut(i) {
            *slot = 0;
        }
    }
    let mut current = vec![0; removal.len()];
    let mut best = None;
    search(removal, 0, excess, 0, &mut current, &mut best);
    best.map(|b| b.1)
}

/// Whether a hex of `player`'s units is over the stacking limit (7.1) as
/// [`overstacking`] weighs them. When none is, and no unit is chosen,
/// `overstacking` changes nothing and tells nothing: the Movement Phase
/// asks this first, and copies the state for it only when one is. It sums
/// what `player_hexes` sums without its owned hex and unit lists: asking
/// through `player_hexes` cost as much as the copy it saves (self-play
/// 1,343 million instructions for `--games 3 --seed 1` this way, 1,372
/// through `player_hexes`, issue 11).
pub fn any_overstacked(rules: &Rules, state: &State, player: &str) -> bool {
    let Some(limits) = rules.stacking.as_ref() else { return false };
    let mut weights: Vec<(HexId, i32, i32)> = Vec::new();
    for (id, u) in &state.units {
        let Some(h) = u.hex else { continue };
        let Some(c) = rules.counter(id) else { continue };
        if rules.player_of_army(&c.army) != Some(player) {
            continue;
        }
        let (s, g) = c.stacking_weight(u.steps, limits.leaders_count);
        weights.push((h, s, g));
    }
    // By hex, each hex's units in the state's order (a stable sort), summed
    // as `player_hexes` sums them.
    weights.sort_by_key(|a| a.0);
    let mut k = 0;
    while k < weights.len() {
        let (mut sps, mut guns) = (0i32, 0i32);
        let hex = weights[k].0;
        while k < weights.len() && weights[k].0 == hex {
            sps = sps.saturating_add(weights[k].1);
            guns = guns.saturating_add(weights[k].2);
            k += 1;
        }
        if !limits.holds(sps, guns) {
            return true;
        }
    }
    false
}

/// Series 7.1, 7.3: `player` eliminates steps in every hex where its units
/// are over the stacking limit, first from `choices`, then by the default
/// of the module documentation. No stacking limit in module.yaml: nothing
/// is overstacked.
pub fn overstacking(rules: &Rules, state: &mut State, player: &str, choices: &[String]) -> Result<Vec<Event>> {
    if !rules.sequence.data.alliances.iter().any(|a| a.id == player) {
        return Err(Error::refused(format!("'{player}' is not a player of this module")));
    }
    let Some(limits) = rules.stacking.as_ref() else { return Ok(Vec::new()) };
    let (max_sps, max_guns) = (limits.max_strength_points, limits.max_artillery_units);
    let over: BTreeMap<HexId, Hex> =
        player_hexes(rules, state, player).into_iter().filter(|(_, h)| !limits.holds(h.sps, h.guns)).collect();
    let limit_words = format!("the limit is {max_sps} SPs and {} (7.1)", artillery_words(max_guns));

    // Every choice is checked before anything changes.
    let mut chosen: Vec<String> = Vec::new();
    for (i, id) in choices.iter().enumerate() {
        let at = format!("overstacking choice {} ({id})", i + 1);
        let Some(c) = rules.counter(id) else {
            return Err(Error::refused(format!("{at}: no unit '{id}' in this module")));
        };
        if rules.player_of_army(&c.army) != Some(player) {
            return Err(Error::refused(format!("{at}: {id} is not a unit of {player}")));
        }
        let here = state.units.get(id).and_then(|u| u.hex);
        let Some(hex) = here.and_then(|h| over.get(&h)) else {
            let at_hex = here.map(|h| format!("in {h}, which is within the limit")).unwrap_or("not on the map".into());
            let overstacked: Vec<String> = over.keys().map(HexId::to_string).collect();
            return Err(Error::refused(format!(
                "{at}: {id} is {at_hex}; only units in an overstacked hex lose steps for 7.3 (overstacked: {})",
                if overstacked.is_empty() { "none".to_string() } else { overstacked.join(", ") }
            )));
        };
        let (s, g) = stacking_weight(rules, state, id);
        let helps = limits.over_in(hex.sps, hex.guns, s, g);
        if !helps {
            return Err(Error::refused(format!(
                "{at}: {} holds {} SPs and {} ({limit_words}); {id} counts {s} SPs and {}, so its steps would not \
                 bring it within the limit",
                hex.id,
                hex.sps,
                artillery_words(hex.guns),
                artillery_words(g)
            )));
        }
        if !chosen.contains(id) {
            chosen.push(id.clone());
        }
    }

    let mut events = Vec::new();
    for (&hex_id, hex) in &over {
        events.push(
            Event::new(
                "7.3",
                "overstacked",
                format!(
                    "{hex_id}: {player} has {} SPs and {} there ({}); {limit_words}: {player} must eliminate steps \
                     (7.3)",
                    hex.sps,
                    artillery_words(hex.guns),
                    hex.units.join(", ")
                ),
            )
            .with("hex", hex_id)
            .with("player", player)
            .with("sps", hex.sps)
            .with("artillery_units", hex.guns)
            .with("max_strength_points", max_sps)
            .with("max_artillery_units", max_guns)
            .with("units", &hex.units),
        );
        let pick = |unit: &str, steps: u8, by: &str, how: &str| {
            Event::new(
                "7.3",
                "overstacking-loss",
                format!("{hex_id}: {unit} loses {steps} step{} ({how})", if steps == 1 { "" } else { "s" }),
            )
            .with("hex", hex_id)
            .with("unit", unit)
            .with("steps", steps)
            .with("by", by)
        };

        // 1. The player's choices, in order.
        let here: Vec<String> =
            chosen.iter().filter(|id| state.units.get(id).and_then(|u| u.hex) == Some(hex_id)).cloned().collect();
        for id in &here {
            let now = totals(rules, state, player, hex_id);
            let left = steps_left(state, id);
            let Some(c) = rules.counter(id) else { continue };
            let steps = if now.guns > max_guns && is_artillery(c) {
                left
            } else if now.sps > max_sps && !is_artillery(c) {
                let current = sps_with(c, left);
                (1..=left).find(|k| now.sps - (current - sps_with(c, left - k)) <= max_sps).unwrap_or(left)
            } else {
                0
            };
            if steps == 0 {
                continue;
            }
            events.push(pick(id, steps, "choice", "the player's choice"));
            events.extend(lose_steps(rules, state, id, steps, Cause::Overstacking)?);
        }

        // 2. The default: artillery units, whole, the fewest steps first.
        let now = totals(rules, state, player, hex_id);
        if now.guns > max_guns {
            let mut guns: Vec<&String> = now
                .units
                .iter()
                .filter(|id| rules.counter(id).is_some_and(is_artillery) && steps_left(state, id) > 0)
                .collect();
            guns.sort_by_key(|id| (steps_left(state, id), morale_key(rules, state, id)));
            let excess = usize::try_from(now.guns - max_guns).unwrap_or(0);
            for id in guns.into_iter().take(excess) {
                let steps = steps_left(state, id);
                events.push(pick(
                    id,
                    steps,
                    "default",
                    "the 7.3 default: whole artillery units, the fewest steps, then the lowest morale, then the lowest id",
                ));
                events.extend(lose_steps(rules, state, id, steps, Cause::Overstacking)?);
            }
        }

        // 2. The default: the fewest steps for the SPs.
        let now = totals(rules, state, player, hex_id);
        if now.sps > max_sps {
            let mut units: Vec<&String> = now
                .units
                .iter()
                .filter(|id| {
                    rules.counter(id).is_some_and(|c| !is_artillery(c)) && stacking_weight(rules, state, id).0 > 0
                })
                .collect();
            units.sort_by_key(|id| morale_key(rules, state, id));
            let removal: Vec<Vec<i32>> = units
                .iter()
                .map(|id| {
                    let left = steps_left(state, id);
                    let c = rules.counter(id);
                    let current = c.map(|c| sps_with(c, left)).unwrap_or(0);
                    (0..=left).map(|k| current - c.map(|c| sps_with(c, left - k)).unwrap_or(0)).collect()
                })
                .collect();
            let plan = fewest_steps(&removal, now.sps - max_sps).ok_or_else(|| {
                Error::refused(format!(
                    "{hex_id}: no step losses bring {player}'s units within the limit ({limit_words})"
                ))
            })?;
            for (id, steps) in units.into_iter().zip(plan).filter(|(_, k)| *k > 0) {
                events.push(pick(
                    id,
                    steps,
                    "default",
                    "the 7.3 default: the fewest steps, then the lowest morale, then the lowest id",
                ));
                events.extend(lose_steps(rules, state, id, steps, Cause::Overstacking)?);
            }
        }

        let done = totals(rules, state, player, hex_id);
        events.push(
            Event::new(
                "7.3",
                "stacking-met",
                format!(
                    "{hex_id} now holds {} SPs and {} of {player}: within the limit",
                    done.sps,
                    artillery_words(done.guns)
                ),
            )
            .with("hex", hex_id)
            .with("sps", done.sps)
            .with("artillery_units", done.guns),
        );
    }
    Ok(events)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::gboar::data::counters::Casualty;
    use crate::systems::gboar::data::Source;

    /// The moves test module, every army at morale 5 (its track is 0-10).
    fn moves() -> (Rules, State) {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/modules/moves");
        let rules = Rules::load(&Source::dir(&dir), "battle").unwrap();
        let mut state = State::setup(&rules.module, "battle").unwrap();
        for morale in state.army_morale.values_mut() {
            *morale = 5;
        }
        (rules, state)
    }

    fn place(state: &mut State, hex: &str, units: &[&str]) {
        for id in units {
            state.units.get_mut(id).unwrap().hex = Some(hex.parse().unwrap());
        }
    }

    fn kinds(events: &[Event]) -> Vec<&str> {
        events.iter().map(|e| e.kind.as_str()).collect()
    }

    fn field<'a>(e: &'a Event, key: &str) -> &'a serde_json::Value {
        e.fields.get(key).unwrap_or(&serde_json::Value::Null)
    }

    fn eliminated(state: &State, id: &str) -> bool {
        let u = &state.units[id];
        u.hex.is_none() && u.off_map == Some(OffMap::Eliminated) && u.steps == 0
    }

    fn morale(state: &State) -> (i32, i32, i32) {
        (state.army_morale["red"], state.army_morale["blue"], state.army_morale["green"])
    }

    fn vp(state: &State, army: &str) -> i32 {
        state.vp_halves.get(army).copied().unwrap_or(0)
    }

    /// A two-step unit at full strength loses one step: reduced, step-lost
    /// (-2 to red, +1 to each army of the other player), and 2 half VPs
    /// (two-step-unit-reduced) to blue, the first army of the other player.
    #[test]
    fn a_two_step_unit_is_reduced() {
        let (rules, mut state) = moves();
        let events = lose_steps(&rules, &mut state, "red-foot", 1, Cause::Overstacking).unwrap();
        let u = &state.units["red-foot"];
        assert_eq!((u.steps, u.hex.map(|h| h.to_string()).as_deref(), u.off_map), (1, Some("0114"), None));
        assert_eq!(morale(&state), (3, 6, 6));
        assert_eq!((vp(&state, "blue"), vp(&state, "green")), (2, 0));
        assert_eq!(kinds(&events), ["step-loss", "army-morale", "army-morale", "army-morale", "victory-points"]);
        assert!(events.iter().all(|e| e.rule == "7.3"));
        let loss = &events[0];
        assert_eq!((field(loss, "steps_before"), field(loss, "steps_after")), (&2.into(), &1.into()));
        assert!(loss.text.contains("reduced to 2 SPs"), "{}", loss.text);
        assert_eq!(field(&events[1], "entry"), "overstacking-step-lost");
        assert_eq!((field(&events[1], "army"), field(&events[1], "delta")), (&"red".into(), &(-2).into()));
        assert_eq!((field(&events[2], "army"), field(&events[2], "delta")), (&"blue".into(), &1.into()));
        assert_eq!((field(&events[3], "army"), field(&events[3], "delta")), (&"green".into(), &1.into()));
        let score = &events[4];
        assert_eq!(field(score, "entry"), "two-step-unit-reduced");
        assert_eq!((field(score, "army"), field(score, "halves")), (&"blue".into(), &2.into()));
        assert!(
            score.text.contains("blue scores 1 VP") && score.text.contains("no army inflicted it"),
            "{}",
            score.text
        );
    }

    /// A reduced unit loses its last step: eliminated, step-lost and
    /// unit-eliminated (-2 -3 to red, +1 +2 to blue and green), 5 halves.
    #[test]
    fn a_reduced_unit_is_eliminated() {
        let (rules, mut state) = moves();
        state.units.get_mut("red-foot").unwrap().steps = 1;
        let events = lose_steps(&rules, &mut state, "red-foot", 1, Cause::Overstacking).unwrap();
        assert!(eliminated(&state, "red-foot"));
        assert_eq!(morale(&state), (0, 8, 8));
        assert_eq!(vp(&state, "blue"), 5);
        let entries: Vec<&serde_json::Value> = events.iter().filter_map(|e| e.fields.get("entry")).collect();
        assert_eq!(
            entries,
            [
                "overstacking-step-lost",
                "overstacking-step-lost",
                "overstacking-step-lost",
                "unit-eliminated",
                "unit-eliminated",
                "unit-eliminated",
                "reduced-unit-eliminated"
            ]
        );
        assert_eq!(field(&events[0], "eliminated"), true);
    }

    #[test]
    fn a_one_step_unit_is_eliminated() {
        let (rules, mut state) = moves();
        lose_steps(&rules, &mut state, "red-guards", 1, Cause::Overstacking).unwrap();
        assert!(eliminated(&state, "red-guards"));
        assert_eq!(morale(&state), (0, 8, 8));
        assert_eq!(vp(&state, "blue"), 3, "one-step-unit-eliminated");
    }

    /// Both steps at once: two-step-unit-eliminated (6 halves), not reduced
    /// plus reduced eliminated (2 + 5); step-lost counts twice.
    #[test]
    fn a_two_step_unit_eliminated_at_once() {
        let (rules, mut state) = moves();
        state.army_morale.insert("red".into(), 9);
        let events = lose_steps(&rules, &mut state, "red-foot", 3, Cause::Overstacking).unwrap();
        assert!(eliminated(&state, "red-foot"));
        assert!(events[0].text.contains("(3 asked, it had 2)"), "{}", events[0].text);
        assert_eq!(morale(&state), (2, 9, 9));
        assert_eq!(vp(&state, "blue"), 6);
    }

    /// In combat, the army that inflicted the loss gets the opponent's
    /// adjustments and scores the VPs.
    #[test]
    fn a_combat_loss_credits_the_army_that_inflicted_it() {
        let (rules, mut state) = moves();
        let cause = Cause::Combat { rule: "11.1".into(), by: "green".into() };
        let events = lose_steps(&rules, &mut state, "red-guards", 1, cause).unwrap();
        assert_eq!(morale(&state), (0, 5, 8));
        assert_eq!((vp(&state, "blue"), vp(&state, "green")), (0, 3));
        assert!(events.iter().all(|e| e.rule == "11.1"));
        assert_eq!(field(&events[1], "entry"), "step-lost");
        let own = Cause::Combat { rule: "11.1".into(), by: "red".into() };
        let refused = lose_steps(&rules, &mut state, "red-foot", 1, own).unwrap_err().to_string();
        assert!(refused.contains("not an army of red-foot's enemy"), "{refused}");
    }

    /// counters.yaml `casualty` replaces the chart entries for its unit: no
    /// army morale for either side, its own VPs when eliminated, none when
    /// only reduced.
    #[test]
    fn a_unit_with_its_own_casualty_entry() {
        let (mut rules, mut state) = moves();
        for id in ["blue-foot", "blue-musket-rifles"] {
            let c = rules.module.counters.iter_mut().find(|c| c.id == id).unwrap();
            c.casualty = Some(Casualty { vp_halves: Some(7), army_morale: Some(false), source: Some("test".into()) });
        }
        let events = lose_steps(&rules, &mut state, "blue-foot", 1, Cause::Overstacking).unwrap();
        assert!(eliminated(&state, "blue-foot"));
        assert_eq!(morale(&state), (5, 5, 5));
        assert_eq!(vp(&state, "red"), 7);
        assert_eq!(kinds(&events), ["step-loss", "victory-points"]);
        assert!(events[0].text.contains("no army morale adjustment for either side"), "{}", events[0].text);
        let events = lose_steps(&rules, &mut state, "blue-musket-rifles", 1, Cause::Overstacking).unwrap();
        assert_eq!(kinds(&events), ["step-loss"]);
        assert_eq!((state.units["blue-musket-rifles"].steps, vp(&state, "red"), morale(&state)), (1, 7, (5, 5, 5)));
        // VPs only: the chart's army morale applies.
        let c = rules.module.counters.iter_mut().find(|c| c.id == "blue-horse").unwrap();
        c.casualty = Some(Casualty { vp_halves: Some(1), army_morale: None, source: None });
        lose_steps(&rules, &mut state, "blue-horse", 1, Cause::Overstacking).unwrap();
        assert_eq!((morale(&state), vp(&state, "red")), ((8, 0, 5), 8));
    }

    /// Savannah 4.8: the Creeks (counters.yaml casualty) cost no army
    /// morale and score 1/2 VP, as the chart's creek-casualty entries say.
    #[test]
    fn savannah_the_creeks() {
        let rules = Rules::load(&Source::Embedded("savannah-1779".into()), "campaign").unwrap();
        let mut state = State::setup(&rules.module, "campaign").unwrap();
        let mut creeks = state.units["von-porbeck"].clone();
        creeks.hex = Some("1805".parse().unwrap());
        creeks.steps = 1;
        state.units.insert("creek-indians".into(), creeks);
        let before = state.army_morale.clone();
        lose_steps(&rules, &mut state, "creek-indians", 1, Cause::Overstacking).unwrap();
        assert_eq!(state.army_morale, before);
        let chart = rules.charts.victory_points.victory_points.entries.iter().find(|e| e.id == "creek-casualty");
        let am = morale::adjustment(&rules, "creek-casualty").unwrap();
        assert_eq!((am.affected, am.opponent), (Some(0), Some(0)));
        assert_eq!(Some(vp(&state, "french")), chart.and_then(|e| e.halves));
        assert_eq!(vp(&state, "american"), 0);
        // A British two-step unit reduced for overstacking: 1/2 VP to the French.
        let unit = state.units.iter().find(|(id, u)| {
            u.hex.is_some() && rules.counter(id).is_some_and(|c| c.army == "british" && c.steps == Some(2))
        });
        let id = unit.map(|(id, _)| id.clone()).unwrap();
        let british = state.army_morale["british"];
        lose_steps(&rules, &mut state, &id, 1, Cause::Overstacking).unwrap();
        assert_eq!(state.army_morale["british"], british - 1);
        assert_eq!(vp(&state, "french"), 2);
    }

    #[test]
    fn a_missing_chart_entry_is_refused_before_any_change() {
        let (mut rules, mut state) = moves();
        let start = state.clone();
        rules.charts.victory_points.victory_points.entries.retain(|e| e.id != "one-step-unit-eliminated");
        let refused = lose_steps(&rules, &mut state, "red-guards", 1, Cause::Overstacking).unwrap_err().to_string();
        assert!(
            refused.contains("charts/victory-points.yaml") && refused.contains("'one-step-unit-eliminated'"),
            "{refused}"
        );
        assert_eq!(state, start);
        rules.charts.army_morale.adjustments.entries.retain(|e| e.id != "step-lost");
        let refused = lose_steps(&rules, &mut state, "red-foot", 1, Cause::Overstacking).unwrap_err().to_string();
        assert!(refused.contains("charts/army-morale.yaml") && refused.contains("'step-lost'"), "{refused}");
        assert_eq!(state, start);
        // The overstacking penalty stops at the same refusal.
        place(&mut state, "0505", &["red-foot", "red-guards"]);
        let placed = state.clone();
        assert!(overstacking(&rules, &mut state, "red", &[]).is_err());
        assert_eq!(state.units, placed.units);
    }

    #[test]
    fn leaders_and_units_off_the_map_are_refused() {
        let (rules, mut state) = moves();
        let refused = lose_steps(&rules, &mut state, "red-general", 1, Cause::Overstacking).unwrap_err().to_string();
        assert!(refused.contains("is a leader"), "{refused}");
        state.units.get_mut("red-guards").unwrap().hex = None;
        let refused = lose_steps(&rules, &mut state, "red-guards", 1, Cause::Overstacking).unwrap_err().to_string();
        assert!(refused.contains("not on the map"), "{refused}");
    }

    /// 7 SPs in 0505: one step is enough from either unit; equal morale,
    /// so the lowest id (red-foot) is reduced.
    #[test]
    fn overstacking_by_default() {
        let (rules, mut state) = moves();
        place(&mut state, "0505", &["red-foot", "red-guards", "red-general"]);
        place(&mut state, "0707", &["red-militia", "red-horse"]);
        let events = overstacking(&rules, &mut state, "red", &[]).unwrap();
        assert_eq!(state.units["red-foot"].steps, 1);
        assert_eq!(state.units["red-guards"].steps, 1);
        assert_eq!(kinds(&events).first(), Some(&"overstacked"));
        assert_eq!(kinds(&events).last(), Some(&"stacking-met"));
        let pick = events.iter().find(|e| e.kind == "overstacking-loss").unwrap();
        assert_eq!((field(pick, "unit"), field(pick, "by")), (&"red-foot".into(), &"default".into()));
        assert!(pick.text.contains("the 7.3 default"), "{}", pick.text);
        assert_eq!(field(events.last().unwrap(), "sps"), 5);
        // 0707 is within the limit: untouched, and not named.
        assert!(!events.iter().any(|e| e.fields.get("hex") == Some(&"0707".into())));
        assert_eq!((state.units["red-militia"].steps, state.units["red-horse"].steps), (1, 1));
        // Nothing is overstacked any more.
        assert!(overstacking(&rules, &mut state, "red", &[]).unwrap().is_empty());
    }

    #[test]
    fn overstacking_with_the_players_choices() {
        let (rules, mut state) = moves();
        place(&mut state, "0505", &["red-foot", "red-guards"]);
        let events = overstacking(&rules, &mut state, "red", &["red-guards".into(), "red-foot".into()]).unwrap();
        assert!(eliminated(&state, "red-guards"));
        assert_eq!(state.units["red-foot"].steps, 2, "the hex is within the limit: the second choice is not used");
        let picks: Vec<&Event> = events.iter().filter(|e| e.kind == "overstacking-loss").collect();
        assert_eq!(picks.len(), 1);
        assert_eq!(field(picks[0], "by"), "choice");
        assert!(picks[0].text.contains("the player's choice"));
    }

    /// A chosen two-step unit loses the fewest steps that bring the hex
    /// within the limit, in one loss (two-step-unit-eliminated).
    #[test]
    fn a_choice_loses_as_many_steps_as_needed() {
        let (rules, mut state) = moves();
        place(&mut state, "0505", &["red-foot", "red-guards", "red-militia"]);
        overstacking(&rules, &mut state, "red", &["red-foot".into()]).unwrap();
        assert!(eliminated(&state, "red-foot"));
        assert_eq!(vp(&state, "blue"), 6);
        assert_eq!((state.units["red-guards"].steps, state.units["red-militia"].steps), (1, 1));
    }

    /// 9 SPs: red-guards alone (1 step) before red-militia, whose morale is
    /// lower but whose loss would not be enough alone.
    #[test]
    fn the_fewest_steps_before_the_lowest_morale() {
        let (rules, mut state) = moves();
        place(&mut state, "0808", &["red-guards", "red-militia", "red-horse", "red-riflemen"]);
        overstacking(&rules, &mut state, "red", &[]).unwrap();
        assert!(eliminated(&state, "red-guards"));
        assert!(["red-militia", "red-horse", "red-riflemen"].iter().all(|id| state.units[*id].steps == 1));
    }

    /// 7 SPs: any one loss is enough; red-militia has the lowest morale.
    #[test]
    fn the_lowest_morale_loses_among_equals() {
        let (rules, mut state) = moves();
        place(&mut state, "0909", &["red-riflemen", "red-guards", "red-militia"]);
        overstacking(&rules, &mut state, "red", &[]).unwrap();
        assert!(eliminated(&state, "red-militia"));
        assert!(!eliminated(&state, "red-guards") && !eliminated(&state, "red-riflemen"));
    }

    /// Three artillery units where one may stand: two are eliminated whole,
    /// by default the lowest ids (equal steps and morale); a choice first.
    #[test]
    fn artillery_over_the_limit() {
        let (rules, mut state) = moves();
        place(&mut state, "0606", &["red-gun", "red-gun-2", "red-naval-gun", "red-guards"]);
        let events = overstacking(&rules, &mut state, "red", &[]).unwrap();
        assert!(eliminated(&state, "red-gun") && eliminated(&state, "red-gun-2"));
        assert!(!eliminated(&state, "red-naval-gun"));
        assert_eq!(state.units["red-guards"].steps, 1, "the SPs are within the limit");
        assert_eq!(field(events.last().unwrap(), "artillery_units"), 1);

        let (rules, mut state) = moves();
        place(&mut state, "0606", &["red-gun", "red-gun-2", "red-naval-gun"]);
        overstacking(&rules, &mut state, "red", &["red-naval-gun".into()]).unwrap();
        assert!(eliminated(&state, "red-naval-gun") && eliminated(&state, "red-gun"));
        assert!(!eliminated(&state, "red-gun-2"));
    }

    /// Every overstacked hex, in hex order; a choice applies in its own hex.
    #[test]
    fn several_hexes() {
        let (rules, mut state) = moves();
        place(&mut state, "0505", &["red-foot", "red-guards"]);
        place(&mut state, "0606", &["red-gun", "red-gun-2"]);
        let events = overstacking(&rules, &mut state, "red", &["red-gun-2".into()]).unwrap();
        let hexes: Vec<&serde_json::Value> =
            events.iter().filter(|e| e.kind == "overstacked").filter_map(|e| e.fields.get("hex")).collect();
        assert_eq!(hexes, ["0505", "0606"]);
        assert_eq!(state.units["red-foot"].steps, 1);
        assert!(eliminated(&state, "red-gun-2") && !eliminated(&state, "red-gun"));
    }

    /// A player's stack counts every army of the player (blue and green).
    #[test]
    fn an_allied_stack() {
        let (rules, mut state) = moves();
        place(&mut state, "1010", &["blue-foot", "green-foot", "blue-horse"]);
        assert!(overstacking(&rules, &mut state, "red", &[]).unwrap().is_empty());
        overstacking(&rules, &mut state, "blue", &[]).unwrap();
        assert!(eliminated(&state, "blue-foot"));
        assert_eq!((vp(&state, "red"), morale(&state)), (3, (8, 0, 5)));
    }

    #[test]
    fn choices_that_cannot_be_taken_are_refused() {
        let (rules, mut state) = moves();
        place(&mut state, "0505", &["red-foot", "red-guards", "red-general"]);
        place(&mut state, "0606", &["red-gun", "red-gun-2", "red-riflemen"]);
        place(&mut state, "0707", &["red-militia"]);
        let start = state.clone();
        let cases: [(&str, &str); 5] = [
            ("red-militia", "in 0707, which is within the limit"),
            ("blue-foot", "not a unit of red"),
            ("red-fot", "no unit 'red-fot'"),
            ("red-riflemen", "would not bring it within the limit"),
            ("red-general", "would not bring it within the limit"),
        ];
        for (choice, words) in cases {
            let refused =
                overstacking(&rules, &mut state, "red", &["red-guards".into(), choice.into()]).unwrap_err().to_string();
            assert!(refused.contains(words), "{choice}: {refused}");
            assert_eq!(state, start, "nothing changes before every choice is checked");
        }
        state.units.get_mut("red-pioneers").unwrap().hex = None;
        let refused = overstacking(&rules, &mut state, "red", &["red-pioneers".into()]).unwrap_err().to_string();
        assert!(refused.contains("not on the map"), "{refused}");
        assert!(overstacking(&rules, &mut state, "purple", &[]).is_err());
    }

    #[test]
    fn fewest_steps_takes_the_first_units_first() {
        // A 4/2 two-step unit and a 3 SP unit, 4 SPs over: both steps of the first.
        assert_eq!(fewest_steps(&[vec![0, 2, 4], vec![0, 3]], 4), Some(vec![2, 0]));
        // 5 over: one of each.
        assert_eq!(fewest_steps(&[vec![0, 2, 4], vec![0, 3]], 5), Some(vec![1, 1]));
        assert_eq!(fewest_steps(&[vec![0, 1], vec![0, 3]], 3), Some(vec![0, 1]));
        assert_eq!(fewest_steps(&[vec![0, 1]], 3), None);
        assert_eq!(vp_words(1), "1/2 VP");
        assert_eq!(vp_words(3), "1 1/2 VPs");
        assert_eq!(vp_words(4), "2 VPs");
    }
}
