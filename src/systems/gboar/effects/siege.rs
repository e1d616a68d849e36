//! The effects of siege results (Savannah 4.5, 4.6, 4.14, 4.19, 2.9):
//! breaches and their repair, destroyed city hexes, construction markers
//! removed or added, the British works completed early, army morale and
//! VPs, and the interdiction of works under construction. The Siege &
//! Bombardment Phase (Tables I and II) and the Random Events cards apply
//! them here, each effect once (charts/codes.yaml `effects`).

use std::collections::BTreeMap;

use crate::base::dice::Die;
use crate::base::error::{Error, Result};
use crate::base::hex::HexId;
use crate::system::{Dice, Event};
use crate::systems::gboar::board::siege;
use crate::systems::gboar::board::state::State;
use crate::systems::gboar::board::Rules;
use crate::systems::gboar::data::charts::{Effect, EffectOutcome, Param};

/// The effect kinds of this file (cards.yaml and siege-bombardment.yaml).
pub const KINDS: &[&str] = &[
    "breach",
    "repair-breach",
    "complete-british-works",
    "extra-construction-marker",
    "destroy-city-hex",
    "remove-construction-marker",
];

/// What a player prefers where a result lets it choose (the chooser's
/// orders; the first legal one of each list is taken, then the first in
/// the board's order).
#[derive(Debug, Clone, Default)]
pub struct Picks {
    /// Hexsides to breach (`1805/1806`; a siege work's `HEX/TOWARD`).
    pub breach: Vec<String>,
    /// Breached hexsides to repair.
    pub repair: Vec<String>,
    /// City hexes to destroy.
    pub destroy: Vec<String>,
    /// Construction markers (their hexes) to remove.
    pub remove: Vec<String>,
}

/// Who applies an effect: the player (alliance) whose result or card it is,
/// and the orders side (for `self`), if one.
#[derive(Debug, Clone, Copy)]
pub struct By<'a> {
    pub player: &'a str,
    pub side: Option<&'a str>,
    /// The rule the events cite, and what caused it, in words.
    pub rule: &'a str,
    pub why: &'a str,
}

fn word<'a>(e: &'a Effect, key: &str) -> Option<&'a str> {
    match e.params.get(key) {
        Some(Param::Word(w)) => Some(w),
        _ => None,
    }
}

fn int(e: &Effect, key: &str) -> Option<i32> {
    match e.params.get(key) {
        Some(Param::Int(n)) => Some(*n),
        _ => None,
    }
}

fn other_player(rules: &Rules, player: &str) -> String {
    rules.sequence.data.alliances.iter().find(|a| a.id != player).map(|a| a.id.clone()).unwrap_or_default()
}

fn armies_of(rules: &Rules, player: &str) -> Vec<String> {
    rules.sequence.data.alliances.iter().find(|a| a.id == player).map(|a| a.armies.clone()).unwrap_or_default()
}

/// The armies an effect's `side` names: `self`, `opponent`, or an army.
fn armies(rules: &Rules, by: &By, which: &str) -> Vec<String> {
    match which {
        "self" => match by.side {
            Some(side) => rules.sequence.data.armies.iter().filter(|a| a.side == side).map(|a| a.id.clone()).collect(),
            None => armies_of(rules, by.player),
        },
        "opponent" => armies_of(rules, &other_player(rules, by.player)),
        army => vec![army.to_string()],
    }
}

/// Whose works an effect's `works` names: `british-fieldworks`,
/// `french-siege-works`, or `own` (the player's: the builder's siege
/// works, else the fieldworks).
fn works_of(rules: &Rules, by: &By, works: &str) -> &'static str {
    match works {
        "own" if by.player == siege::builder_player(rules) => FRENCH,
        "own" => BRITISH,
        FRENCH => FRENCH,
        _ => BRITISH,
    }
}

const FRENCH: &str = "french-siege-works";
const BRITISH: &str = "british-fieldworks";

/// The first of `candidates` the `preferred` list names, else the first.
fn pick(preferred: &[String], candidates: &[String]) -> Option<String> {
    preferred.iter().find(|p| candidates.contains(p)).cloned().or_else(|| candidates.first().cloned())
}

/// A fieldwork hexside written either way round, as the state keeps it.
fn side_key(rules: &Rules, text: &str) -> Option<String> {
    crate::base::hex::Hexside::parse(text, rules.module.map.layout).ok().map(|s| s.to_string())
}

/// The army morale the triggered checks use (16.24: as they begin).
fn morale_now(state: &State) -> BTreeMap<String, i32> {
    state.army_morale.clone()
}

/// Apply `effects` (a Table I or II result, or a card's) in order.
pub fn apply(
    rules: &Rules,
    state: &mut State,
    by: &By,
    effects: &[Effect],
    picks: &Picks,
    dice: &mut dyn Dice,
) -> Result<Vec<Event>> {
    let mut events = Vec::new();
    for e in effects {
        let count = int(e, "count").unwrap_or(1).max(0);
        match e.effect.as_str() {
            "none" => events.push(Event::new(by.rule, "siege-no-effect", format!("{}: no effect", by.why))),
            "army-morale" => {
                let delta = int(e, "delta").unwrap_or(0);
                for army in armies(rules, by, word(e, "side").unwrap_or("self")) {
                    events.push(crate::systems::gboar::effects::morale::adjust(
                        rules, state, &army, delta, by.rule, by.why,
                    ));
                }
            }
            "vp" => {
                let halves = int(e, "halves").unwrap_or(0);
                if let Some(army) = armies(rules, by, word(e, "side").unwrap_or("self")).first() {
                    let v = state.vp_halves.entry(army.clone()).or_default();
                    *v += halves;
                    let now = *v;
                    events.push(
                        Event::new(
                            "Savannah 2.9",
                            "victory-points",
                            format!("{}: {army} {:+} VP (Savannah 2.9)", by.why, f64::from(halves) / 2.0),
                        )
                        .with("army", army)
                        .with("halves", halves)
                        .with("total_halves", now),
                    );
                }
            }
            "breach" => {
                let works = works_of(rules, by, word(e, "works").unwrap_or("own"));
                for _ in 0..count {
                    events.extend(breach(rules, state, by, works, &picks.breach, dice)?);
                }
            }
            "repair-breach" => {
                let works = works_of(rules, by, word(e, "works").unwrap_or("own"));
                for _ in 0..count {
                    events.push(repair(rules, state, by, works, &picks.repair));
                }
            }
            "destroy-city-hex" => {
                for _ in 0..count {
                    events.extend(destroy_city_hex(rules, state, by, &picks.destroy, dice)?);
                }
            }
            "remove-construction-marker" => {
                for _ in 0..count {
                    events.push(remove_marker(rules, state, by, &picks.remove));
                }
            }
            "complete-british-works" => {
                state.british_works_complete = true;
                events.push(Event::new(
                    "Savannah 4.14",
                    "british-works-complete",
                    format!(
                        "{}: the British works are fully complete from now on; the Incomplete British Defenses DRMs end (Savannah 4.14)",
                        by.why
                    ),
                ));
            }
            "extra-construction-marker" => {
                let n = u32::try_from(count).unwrap_or(0);
                state.extra_construction_markers = state.extra_construction_markers.saturating_add(n);
                events.push(
                    Event::new(
                        "Savannah 4.4",
                        "extra-construction-marker",
                        format!(
                            "{}: the French may place {n} more construction marker(s) this turn (Savannah 4.4's limits still apply)",
                            by.why
                        ),
                    )
                    .with("count", n),
                );
            }
            "roll-table" => {
                let table = word(e, "table").unwrap_or_default();
                events.extend(roll_table(rules, state, by, table, picks, dice)?);
            }
            other => {
                return Err(Error::refused(format!(
                    "{}: the effect '{other}' is not one a siege result applies (charts/codes.yaml)",
                    by.why
                )))
            }
        }
    }
    Ok(events)
}

/// A band of a table's outcomes that holds `total`.
pub fn band(outcomes: &[EffectOutcome], total: i32) -> Option<&EffectOutcome> {
    outcomes.iter().find(|o| o.min.is_none_or(|m| total >= m) && o.max.is_none_or(|m| total <= m))
}

/// Savannah 3 V: "under certain circumstances a second die roll on S&B
/// Table II may be required": the roll on Table II (unmodified unless the
/// chart gives DRMs).
fn roll_table(
    rules: &Rules,
    state: &mut State,
    by: &By,
    table: &str,
    picks: &Picks,
    dice: &mut dyn Dice,
) -> Result<Vec<Event>> {
    let chart = &rules.charts.siege_bombardment;
    if table != chart.table_ii.id {
        return Err(Error::refused(format!(
            "charts/siege-bombardment.yaml: roll-table names '{table}', not {}",
            chart.table_ii.id
        )));
    }
    let roll = i32::from(dice.roll(Die::D10, &format!("{}, turn {}", chart.table_ii.name, state.turn))?);
    let outcome = band(&chart.table_ii.outcomes, roll).ok_or_else(|| {
        Error::refused(format!("charts/siege-bombardment.yaml: {} has no band for {roll}", chart.table_ii.name))
    })?;
    let mut events = vec![Event::new(
        "Savannah 4.6",
        "siege-bombardment-roll",
        format!("the {} player rolls {roll} on {} (Savannah 3 V)", by.player, chart.table_ii.name),
    )
    .with("player", by.player)
    .with("table", table)
    .with("roll", roll)
    .with("total", roll)];
    let why = format!("{} ({roll})", chart.table_ii.name);
    let inner = By { why: &why, ..*by };
    events.extend(apply(rules, state, &inner, &outcome.effects, picks, dice)?);
    Ok(events)
}

/// Savannah 4.5, 4.6: one intact hexside of `works` is breached, the
/// chooser's preference first; units in the fieldwork check morale (4.19).
fn breach(
    rules: &Rules,
    state: &mut State,
    by: &By,
    works: &str,
    preferred: &[String],
    dice: &mut dyn Dice,
) -> Result<Vec<Event>> {
    let layout = rules.module.map.layout;
    let (chosen, hex) = if works == FRENCH {
        let candidates = siege::siege_sides(state, false);
        let Some(chosen) = pick(preferred, &candidates) else {
            return Ok(vec![nothing(by, "no intact completed French siege work hexside to breach")]);
        };
        let (hex, toward) = chosen.split_once('/').unwrap_or_default();
        if let Some(w) = state.siege_works.iter_mut().find(|w| w.completed && w.hex == hex) {
            w.breached.push(toward.to_string());
            w.breached.sort();
        }
        (chosen.clone(), hex.parse::<HexId>().ok())
    } else {
        let candidates: Vec<String> =
            siege::fieldwork_sides(rules, state, false).iter().map(|s| s.to_string()).collect();
        let preferred: Vec<String> = preferred.iter().filter_map(|p| side_key(rules, p)).collect();
        let Some(chosen) = pick(&preferred, &candidates) else {
            return Ok(vec![nothing(by, "no intact British fieldwork hexside to breach")]);
        };
        state.breaches.push(chosen.clone());
        state.breaches.sort();
        let side = crate::base::hex::Hexside::parse(&chosen, layout).ok();
        let protected = side.and_then(|s| {
            rules
                .module
                .map
                .hexsides
                .get(&s)
                .and_then(|fs| fs.iter().find_map(|f| rules.module.map.protected_hex(s, f)))
        });
        (chosen, protected)
    };
    let mut events = vec![Event::new(
        "Savannah 4.5",
        "breach",
        format!("{}: the {} hexside {chosen} is breached (Savannah 4.5)", by.why, works.replace('-', " ")),
    )
    .with("works", works)
    .with("hexside", &chosen)];
    // Savannah 4.19: "Units in a fieldwork that receives a breach must
    // perform a morale check."
    if let Some(hex) = hex {
        events.extend(morale_checks(rules, state, by, "fieldwork-breached", hex, dice)?);
    }
    Ok(events)
}

/// Savannah 4.5: "Repairs to breaches may be made through the Siege &
/// Bombardment Table and the play of Random Events."
fn repair(rules: &Rules, state: &mut State, by: &By, works: &str, preferred: &[String]) -> Event {
    let chosen = if works == FRENCH {
        let candidates = siege::siege_sides(state, true);
        let chosen = pick(preferred, &candidates);
        if let Some((hex, toward)) = chosen.as_deref().and_then(|c| c.split_once('/')) {
            if let Some(w) = state.siege_works.iter_mut().find(|w| w.hex == hex) {
                w.breached.retain(|b| b != toward);
            }
        }
        chosen
    } else {
        let preferred: Vec<String> = preferred.iter().filter_map(|p| side_key(rules, p)).collect();
        let chosen = pick(&preferred, &state.breaches);
        if let Some(c) = &chosen {
            state.breaches.retain(|b| b != c);
        }
        chosen
    };
    match chosen {
        Some(c) => Event::new(
            "Savannah 4.5",
            "breach-repaired",
            format!("{}: the breach of the {} hexside {c} is repaired (Savannah 4.5)", by.why, works.replace('-', " ")),
        )
        .with("works", works)
        .with("hexside", &c),
        None => nothing(by, &format!("no breached {} hexside to repair", works.replace('-', " "))),
    }
}

/// Savannah 2.1, 4.7, 4.19: an intact city hex is destroyed; the units
/// there check morale at the chart's -1.
fn destroy_city_hex(
    rules: &Rules,
    state: &mut State,
    by: &By,
    preferred: &[String],
    dice: &mut dyn Dice,
) -> Result<Vec<Event>> {
    let candidates: Vec<String> = siege::city_hexes(rules, state, false).iter().map(|h| h.to_string()).collect();
    let Some(chosen) = pick(preferred, &candidates) else {
        return Ok(vec![nothing(by, "every City of Savannah hex is destroyed already")]);
    };
    state.destroyed_hexes.push(chosen.clone());
    state.destroyed_hexes.sort();
    let mut events = vec![Event::new(
        "Savannah 4.19",
        "city-hex-destroyed",
        format!("{}: the City of Savannah hex {chosen} is destroyed (Savannah 2.1, 4.7, 4.19)", by.why),
    )
    .with("hex", &chosen)];
    if let Ok(hex) = chosen.parse::<HexId>() {
        events.extend(morale_checks(rules, state, by, "city-hex-destroyed", hex, dice)?);
    }
    Ok(events)
}

/// Savannah 4.19: the morale checks a siege result triggers (`trigger`,
/// the morale-check chart's) for the units in `hex`, caused by `by`'s army.
fn morale_checks(
    rules: &Rules,
    state: &mut State,
    by: &By,
    trigger: &str,
    hex: HexId,
    dice: &mut dyn Dice,
) -> Result<Vec<Event>> {
    let by_army = armies_of(rules, by.player).first().cloned().unwrap_or_default();
    let morale = morale_now(state);
    crate::systems::gboar::effects::results::triggered_check(
        rules,
        state,
        trigger,
        &[hex],
        &by_army,
        &morale,
        &BTreeMap::new(),
        dice,
    )
}

/// A construction marker (not completed works, 4.5) is removed.
fn remove_marker(_rules: &Rules, state: &mut State, by: &By, preferred: &[String]) -> Event {
    let candidates: Vec<String> = state.siege_works.iter().filter(|w| !w.completed).map(|w| w.hex.clone()).collect();
    match pick(preferred, &candidates) {
        Some(hex) => {
            state.siege_works.retain(|w| w.completed || w.hex != hex);
            Event::new(
                "Savannah 4.5",
                "construction-marker-removed",
                format!("{}: the construction marker in {hex} is removed", by.why),
            )
            .with("hex", &hex)
        }
        None => nothing(by, "no construction marker to remove"),
    }
}

fn nothing(by: &By, what: &str) -> Event {
    Event::new(by.rule, "siege-no-effect", format!("{}: {what}; no effect", by.why))
}

/// Savannah 4.5: "Siege works under construction are automatically removed
/// if entered by Parade Order enemy combat units. Exception: ... not
/// removed if entered solely by enemy artillery." Read after every step:
/// a marker whose hex holds such a unit is gone.
pub fn interdict(rules: &Rules, state: &mut State) -> Vec<Event> {
    if state.siege_works.iter().all(|w| w.completed) {
        return Vec::new();
    }
    let builder = siege::builder_player(rules);
    let mut events = Vec::new();
    let mut kept = Vec::new();
    for w in std::mem::take(&mut state.siege_works) {
        let entered = match (w.completed, w.hex.parse::<HexId>()) {
            (false, Ok(hex)) => siege::interdicting_in(rules, state, hex, &builder),
            _ => Vec::new(),
        };
        if entered.is_empty() {
            kept.push(w);
        } else {
            events.push(
                Event::new(
                    "Savannah 4.5",
                    "construction-marker-removed",
                    format!(
                        "the construction marker in {} is removed: entered by {} (Savannah 4.5)",
                        w.hex,
                        entered.join(", ")
                    ),
                )
                .with("hex", &w.hex)
                .with("units", &entered),
            );
        }
    }
    state.siege_works = kept;
    events
}

/// Savannah 4.4: the extra construction markers the cards a body's `play:`
/// names give (checked with the orders they come in: the cards are played
/// before the phase).
pub fn extra_markers_played(rules: &Rules, body: &crate::base::yaml::Value) -> u32 {
    let plays = crate::systems::gboar::effects::cards::plays(body).unwrap_or_default();
    plays
        .iter()
        .filter_map(|p| crate::systems::gboar::effects::cards::card(rules, &p.card))
        .flat_map(|c| c.effects.iter())
        .filter(|e| e.effect == "extra-construction-marker")
        .map(|e| u32::try_from(int(e, "count").unwrap_or(1)).unwrap_or(0))
        .sum()
}
