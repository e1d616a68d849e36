//! The Construct Siege Works Phase (Savannah 3 IV, 4.4, 4.5), French only,
//! on the turns of the scenario's `french-siege-works` steps (9 to 12):
//!
//! 1. On a step with `complete_previous`, each construction marker placed
//!    on an earlier turn is flipped to its completed side, unless the
//!    weather prevents it (4.4, charts/weather.yaml `completion`) or a
//!    Parade Order enemy combat unit is adjacent (4.5); such a marker
//!    stays under construction, to be flipped at a later step if it can.
//!    A marker is aligned as it is flipped (4.4: "On turn 10 that marker
//!    is flipped, and aligned so that the hexsides to be entrenched are
//!    portrayed by the white symbols"): the French orders choose its
//!    hexsides (`flip`), within the counter mix; a marker the orders do
//!    not align takes the default ([`default_toward`]).
//! 2. The French place the step's construction markers (`place`): at the
//!    step's distance from the Savannah Defensive Perimeter, not adjacent
//!    to an enemy combat unit, not in rice fields, swamp or the Jewish
//!    Cemetery, not in adverse weather; the first extending from a
//!    completed work hex; within the counter mix.
//!
//! Orders (the French side; none places nothing and flips every marker
//! that may be flipped to its default alignment):
//!
//! ```yaml
//! flip:
//!   - {hex: "2612", toward: ["2511", "2512"]}   # entrench the hexsides facing these hexes
//! place:
//!   - {hex: "2713"}
//! ```

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use crate::base::error::Result;
use crate::base::hex::{are_adjacent, HexId};
use crate::system::Event;
use crate::systems::gboar::board::refusals::Code;
use crate::systems::gboar::board::siege;
use crate::systems::gboar::board::state::{Resolution, SiegeWork, State};
use crate::systems::gboar::board::Rules;
use crate::systems::gboar::data::scenario::MarkerCount;

/// The orders' list key of the markers placed.
pub const PLACE: &str = "place";
/// The orders' list key of the markers flipped and aligned.
pub const FLIP: &str = "flip";

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "construct siege works orders (a map)")]
pub struct ConstructOrders {
    #[serde(default)]
    pub place: Vec<Marker>,
    #[serde(default)]
    pub flip: Vec<Flip>,
}

/// One construction marker placed: its hex. `toward` is read only to
/// refuse it with the reason: the hexsides are chosen at the flip (4.4).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "a construction marker placed, a map with hex")]
pub struct Marker {
    pub hex: String,
    #[serde(default)]
    pub toward: Option<Vec<String>>,
}

/// One construction marker flipped: its hex and the adjacent hexes its
/// entrenched hexsides face (the white symbols of the counter, 4.4).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "a construction marker flipped, a map with hex and toward (a list of adjacent hexes)")]
pub struct Flip {
    pub hex: String,
    pub toward: Vec<String>,
}

/// What construct siege works orders hold, for a refusal of their shape.
pub const HINT: &str = "construct siege works orders are `flip:`, a list of `{hex, toward}` (markers placed before, \
aligned as they are flipped), and `place:`, a list of `{hex}` (markers placed now)";

/// The French orders; a shape problem as `(field, message)`.
fn parse(body: &crate::base::yaml::Value) -> std::result::Result<ConstructOrders, (String, String)> {
    crate::base::yaml::read_body(body, HINT)
}

/// A problem: code, field, message.
pub type Problem = (Code, String, String);

/// The markers placed earlier that this step flips: (index in the state's
/// works, why not when it may not).
fn flips(rules: &Rules, state: &State) -> Vec<(usize, Option<String>)> {
    let Some((_, step)) = siege::step_of(rules, state.turn) else { return Vec::new() };
    if !step.complete_previous {
        return Vec::new();
    }
    let builder = siege::builder_player(rules);
    let weather = siege::weather_allows_completion(rules, state);
    state
        .siege_works
        .iter()
        .enumerate()
        .filter(|(_, w)| !w.completed && w.placed < state.turn)
        .map(|(i, w)| {
            let hex: Option<HexId> = w.hex.parse().ok();
            let enemies = hex.map(|h| siege::enemies_next_to(rules, state, h, &builder, true)).unwrap_or_default();
            let why = if !weather {
                Some(format!(
                    "the {} prevents the completion of siege works (Savannah 4.4)",
                    siege::weather_name(rules, state)
                ))
            } else if !enemies.is_empty() {
                Some(format!("Parade Order enemy combat units are adjacent: {} (Savannah 4.5)", enemies.join(", ")))
            } else {
                None
            };
            (i, why)
        })
        .collect()
}

/// Savannah 4.4: the markers this step flips, each with its alignment:
/// (index in the state's works, the hexes its hexsides face), in the
/// state's order; the orders' `flip` entries give the alignment, the
/// others take [`default_toward`]. With the problems of the entries.
fn aligned(rules: &Rules, state: &State, wanted: &[Flip]) -> (Vec<(usize, Vec<String>)>, Vec<Problem>) {
    let layout = rules.module.map.layout;
    let rule = siege::step_of(rules, state.turn).map(|(r, _)| r);
    let flipping: Vec<(usize, Option<String>)> = flips(rules, state);
    let mut problems = Vec::new();
    let mut named: BTreeMap<usize, (usize, &Flip)> = BTreeMap::new();
    for (j, f) in wanted.iter().enumerate() {
        let field = format!("{FLIP}[{j}]");
        let found = state.siege_works.iter().position(|w| w.hex == f.hex && !w.completed);
        let Some(i) = found else {
            let markers: Vec<String> = flipping
                .iter()
                .filter(|(_, why)| why.is_none())
                .map(|(i, _)| state.siege_works[*i].hex.clone())
                .collect();
            problems.push((
                Code::SiegeMarkerHex,
                format!("{field}.hex"),
                format!(
                    "{} holds no construction marker to flip; this step flips {} (Savannah 4.4)",
                    crate::base::error::echo(&f.hex),
                    if markers.is_empty() { "none".to_string() } else { markers.join(", ") }
                ),
            ));
            continue;
        };
        match flipping.iter().find(|(k, _)| *k == i) {
            None => problems.push((
                Code::SiegeMarkerHex,
                format!("{field}.hex"),
                format!("the construction marker in {} is not flipped this turn (Savannah 4.4)", f.hex),
            )),
            Some((_, Some(why))) => problems.push((
                Code::SiegeMarkerHex,
                format!("{field}.hex"),
                format!("the construction marker in {} is not flipped this step: {why}", f.hex),
            )),
            Some((_, None)) if named.contains_key(&i) => {
                problems.push((Code::SiegeMarkerHex, format!("{field}.hex"), format!("{} is named twice", f.hex)))
            }
            Some((_, None)) => {
                named.insert(i, (j, f));
            }
        }
    }
    let mut works = state.siege_works.clone();
    let mut out = Vec::new();
    for (i, why) in flipping {
        if why.is_some() {
            continue;
        }
        let Ok(hex) = works[i].hex.parse::<HexId>() else { continue };
        let toward = match named.get(&i) {
            Some((j, f)) => {
                let field = format!("{FLIP}[{j}]");
                let mut sides: Vec<String> = Vec::new();
                for (k, t) in f.toward.iter().enumerate() {
                    let ok = t.parse::<HexId>().is_ok_and(|h| are_adjacent(h, hex, layout));
                    if !ok || sides.contains(t) {
                        problems.push((
                            Code::SiegeHexsides,
                            format!("{field}.toward[{k}]"),
                            format!(
                                "'{t}' is not a hex adjacent to {hex} named once: toward names the hexes its entrenched hexsides face"
                            ),
                        ));
                    }
                    sides.push(t.clone());
                }
                let n = f.toward.len();
                if let Some(rule) = rule {
                    let left = siege::counters_left(rule, &works, n);
                    if n == 0 || left == Some(0) {
                        let sizes: Vec<String> = siege::mix_sizes(rule).iter().map(u32::to_string).collect();
                        let open: Vec<String> = siege::mix_sizes(rule)
                            .into_iter()
                            .filter(|m| siege::counters_left(rule, &works, *m as usize).is_none_or(|l| l > 0))
                            .map(|m| m.to_string())
                            .collect();
                        problems.push((
                            Code::SiegeHexsides,
                            format!("{field}.toward"),
                            format!(
                                "{n} hexsides: no siege works counter of the mix is left that shows {n} (the mix shows {}; left: {}; Savannah 4.4 Considerations)",
                                sizes.join(", "),
                                if open.is_empty() { "none".to_string() } else { open.join(", ") }
                            ),
                        ));
                    }
                }
                f.toward.clone()
            }
            None => default_toward(rules, &works, hex),
        };
        works[i].toward = toward.clone();
        works[i].completed = true;
        out.push((i, toward));
    }
    (out, problems)
}

/// Savannah 4.4: the alignment of a marker flipped without the French
/// orders choosing one (what the least orders leave): the counter of the
/// mix left with the most hexsides, facing the adjacent hexes of the map
/// nearest the Savannah Defensive Perimeter (then the lowest hex ids).
/// Chosen: the rules make the French choose; this is what a side that
/// sends nothing is held to (docs/rules-readings.md).
pub fn default_toward(rules: &Rules, works: &[SiegeWork], hex: HexId) -> Vec<String> {
    let layout = rules.module.map.layout;
    let Some(rule) = rules.scenario_movement.siege_works() else { return Vec::new() };
    let size = siege::mix_sizes(rule)
        .into_iter()
        .rev()
        .find(|m| siege::counters_left(rule, works, *m as usize).is_none_or(|l| l > 0))
        .unwrap_or(1) as usize;
    let mut near: Vec<(u32, HexId)> = crate::base::hex::neighbours(hex, layout)
        .into_iter()
        .filter(|n| rules.module.map.terrain.contains_key(n))
        .map(|n| (rule.not_in.as_ref().and_then(|ni| siege::perimeter_distance(rules, ni, n)).unwrap_or(u32::MAX), n))
        .collect();
    near.sort();
    near.into_iter().take(size).map(|(_, n)| n.to_string()).collect()
}

/// The markers this step flips (`None`) or may not (`Some(why)`), by hex,
/// in the state's order (what the template offers).
pub fn flipping(rules: &Rules, state: &State) -> Vec<(String, Option<String>)> {
    flips(rules, state)
        .into_iter()
        .filter_map(|(i, why)| state.siege_works.get(i).map(|w| (w.hex.clone(), why)))
        .collect()
}

/// The completed works' hexes once this step's flips are made.
fn completed_after_flips(rules: &Rules, state: &State) -> Vec<HexId> {
    let mut hexes = siege::completed_hexes(state);
    for (i, why) in flips(rules, state) {
        if why.is_none() {
            if let Some(h) = state.siege_works.get(i).and_then(|w| w.hex.parse().ok()) {
                hexes.push(h);
            }
        }
    }
    hexes
}

/// How many markers the step lets the builder place now, and the limit's
/// words; `None` when the step places none.
pub fn allowance(rules: &Rules, state: &State) -> Option<(u32, String)> {
    let (rule, step) = siege::step_of(rules, state.turn)?;
    let place = step.place.as_ref()?;
    let left = siege::markers_left(rule, &state.siege_works);
    let (n, words) = match &place.markers {
        MarkerCount::Number(n) => (*n, format!("up to {n}")),
        MarkerCount::Word(_) => (left.unwrap_or(0), "all the remaining".to_string()),
    };
    let extra = state.extra_construction_markers;
    let n = n.saturating_add(extra);
    let n = left.map_or(n, |l| n.min(l));
    let words = if extra > 0 { format!("{words} and {extra} more (a Random Events card)") } else { words };
    Some((n, words))
}

/// Savannah 4.4: why `hex` may not take a construction marker of this step
/// (the `first` marker of the orders, or a later one), or `None`.
pub fn hex_refusal(rules: &Rules, state: &State, hex: HexId, first: bool) -> Option<(Code, String)> {
    let (rule, step) = siege::step_of(rules, state.turn)?;
    let place = step.place.as_ref()?;
    let not_in = rule.not_in.as_ref()?;
    let layout = rules.module.map.layout;
    if !rules.module.map.terrain.contains_key(&hex) {
        return Some((Code::SiegeMarkerHex, format!("{hex} is not a hex of the map")));
    }
    if state.siege_works.iter().any(|w| w.hex == hex.to_string()) {
        return Some((Code::SiegeMarkerHex, format!("{hex} holds siege works already")));
    }
    let completed = completed_after_flips(rules, state);
    // With no completed work in play, the first marker starts the works
    // as turn 9's does (rules silent: docs/rules-readings.md).
    let start = completed.is_empty() && place.first_extends;
    let exact = if start {
        rule.steps.iter().filter_map(|s| s.place.as_ref()).find_map(|p| p.hexes_from_perimeter)
    } else {
        place.hexes_from_perimeter
    };
    let d = siege::perimeter_distance(rules, not_in, hex)?;
    let zone = rules.module.map.zone(&not_in.perimeter).map(|z| z.name.clone()).unwrap_or_default();
    if let Some(e) = exact.filter(|e| d != *e) {
        return Some((
            Code::SiegeMarkerDistance,
            format!("{hex} is {d} hexes from the {zone}; the marker goes in a space {e} hexes distant (Savannah 4.4)"),
        ));
    }
    if let Some(m) = place.min_hexes_from_perimeter.filter(|m| !start && d < *m) {
        return Some((
            Code::SiegeMarkerDistance,
            format!(
                "{hex} is {d} hexes from the {zone}; markers of turn {} may extend no more than 1 hex closer: at least {m} (Savannah 4.4)",
                state.turn
            ),
        ));
    }
    if let Some(why) = siege::ground_refusal(rules, not_in, hex) {
        return Some((Code::SiegeMarkerGround, why));
    }
    if not_in.adjacent_to_enemy_combat_unit {
        let enemies = siege::enemies_next_to(rules, state, hex, &siege::builder_player(rules), false);
        if !enemies.is_empty() {
            return Some((
                Code::SiegeMarkerEnemyAdjacent,
                format!("{hex} is adjacent to enemy combat units: {} (Savannah 4.4)", enemies.join(", ")),
            ));
        }
    }
    if first && place.first_extends && !start && !completed.iter().any(|c| are_adjacent(*c, hex, layout)) {
        let list: Vec<String> = completed.iter().map(|h| h.to_string()).collect();
        return Some((
            Code::SiegeMarkerExtends,
            format!(
                "{hex}: the first marker placed must extend from a completed siege work hex ({}) (Savannah 4.4)",
                list.join(", ")
            ),
        ));
    }
    None
}

/// Every problem of the French orders (`side` gives them).
pub fn check(rules: &Rules, state: &State, side: &str, body: &crate::base::yaml::Value) -> Vec<Problem> {
    let orders = match parse(body) {
        Ok(o) => o,
        Err((field, message)) => return vec![(Code::OrdersShape, field, message)],
    };
    if orders.place.is_empty() && orders.flip.is_empty() {
        return Vec::new();
    }
    let builder = siege::builder(rules).and_then(|a| crate::systems::gboar::board::units::side_of_army(rules, &a));
    if builder.as_deref() != Some(side) {
        return vec![(
            Code::SiegeMarkerCount,
            PLACE.into(),
            format!("only the {} side constructs siege works (Savannah 3 IV)", builder.unwrap_or_default()),
        )];
    }
    let Some((rule, _)) = siege::step_of(rules, state.turn) else {
        return vec![(
            Code::SiegeMarkerCount,
            PLACE.into(),
            format!("turn {} is no siege works turn (Savannah 4.4)", state.turn),
        )];
    };
    let Some((allowed, words)) = allowance(rules, state) else {
        if orders.place.is_empty() {
            return aligned(rules, state, &orders.flip).1;
        }
        return vec![(
            Code::SiegeMarkerCount,
            PLACE.into(),
            format!(
                "turn {} places no construction markers: the markers placed before are flipped (Savannah 4.4)",
                state.turn
            ),
        )];
    };
    if !orders.place.is_empty()
        && rule.not_in.as_ref().is_some_and(|n| n.weather_prevents)
        && !siege::weather_allows(rules, state)
    {
        return vec![(
            Code::SiegeMarkerWeather,
            PLACE.into(),
            format!(
                "the {} prevents the construction of siege works this turn (Savannah 4.4); place nothing",
                siege::weather_name(rules, state)
            ),
        )];
    }
    let mut found = aligned(rules, state, &orders.flip).1;
    if orders.place.is_empty() {
        return found;
    }
    if orders.place.len() as u32 > allowed {
        found.push((
            Code::SiegeMarkerCount,
            PLACE.into(),
            format!(
                "{} markers: turn {} places {words} construction markers, {allowed} now (Savannah 4.4; the counter mix)",
                orders.place.len(),
                state.turn
            ),
        ));
    }
    let mut seen: Vec<String> = Vec::new();
    let mut works = state.siege_works.clone();
    for (i, m) in orders.place.iter().enumerate() {
        let field = format!("{PLACE}[{i}]");
        let Ok(hex) = m.hex.parse::<HexId>() else {
            found.push((Code::NotAHexId, format!("{field}.hex"), format!("'{}' is not a hex id", m.hex)));
            continue;
        };
        if seen.contains(&m.hex) {
            found.push((Code::SiegeMarkerHex, format!("{field}.hex"), format!("{hex} is named twice")));
            continue;
        }
        seen.push(m.hex.clone());
        if let Some((code, message)) = hex_refusal(rules, state, hex, i == 0) {
            found.push((code, format!("{field}.hex"), message));
            continue;
        }
        // 4.4: "On turn 10 that marker is flipped, and aligned so that the
        // hexsides to be entrenched are portrayed": not at placement.
        if m.toward.is_some() {
            found.push((
                Code::SiegeHexsides,
                format!("{field}.toward"),
                format!(
                    "a construction marker's hexsides are chosen when it is flipped, not when it is placed (Savannah 4.4: \
                     'that marker is flipped, and aligned so that the hexsides to be entrenched are portrayed by the white \
                     symbols'): place {{hex: \"{hex}\"}}, and give toward under flip: on the turn it is flipped"
                ),
            ));
        }
        works.push(SiegeWork {
            hex: m.hex.clone(),
            toward: Vec::new(),
            placed: state.turn,
            completed: false,
            breached: Vec::new(),
        });
    }
    found
}

/// Savannah 4.4, 4.5: the phase, once the step's Random Events cards are
/// played (Savannah 4.3; with none, the two boards are one): `announced`
/// is the board the orders were written on, `state` the board the cards
/// left. The orders are checked on
/// `announced`, as `validate` checked them, and refused whole if any is
/// wrong there; a marker or an alignment the cards have made wrong since
/// (a card's weather that prevents construction, a marker a card removed)
/// is not carried out, with a `siege-works-lapse` event that says why, as
/// a move a card has made impossible lapses (docs/rules-readings.md).
pub fn resolve(
    rules: &Rules,
    announced: &State,
    state: &State,
    orders: &std::collections::BTreeMap<String, crate::base::yaml::Value>,
) -> Result<Resolution> {
    // Savannah 4.4: a card's extra construction markers count in the
    // orders that play it, as `validate` counts them.
    let mut written = announced.clone();
    written.extra_construction_markers = state.extra_construction_markers;
    for (side, body) in orders {
        if let Some((code, field, message)) = check(rules, &written, side, body).into_iter().next() {
            return Err(crate::systems::gboar::board::refusals::refuse_orders(side, &field, &message, code));
        }
    }
    let mut events = Vec::new();
    let lapsed;
    let orders = if std::ptr::eq(announced, state) {
        orders
    } else {
        lapsed = lapse(rules, state, orders, &mut events);
        &lapsed
    };
    let mut next = state.clone();
    let wanted: Vec<Flip> = orders.values().filter_map(|b| parse(b).ok()).flat_map(|o| o.flip).collect();
    let alignments: BTreeMap<usize, Vec<String>> = aligned(rules, state, &wanted).0.into_iter().collect();
    for (i, why) in flips(rules, state) {
        let Some(w) = next.siege_works.get_mut(i) else { continue };
        match why {
            None => {
                w.completed = true;
                w.toward = alignments.get(&i).cloned().unwrap_or_default();
                events.push(
                    Event::new(
                        "Savannah 4.4",
                        "siege-works-completed",
                        format!(
                            "the construction marker in {} is flipped and aligned: siege works completed toward {} (Savannah 4.4)",
                            w.hex,
                            w.toward.join(", ")
                        ),
                    )
                    .with("hex", &w.hex)
                    .with("toward", &w.toward),
                );
            }
            Some(why) => events.push(
                Event::new(
                    if why.contains("4.5") { "Savannah 4.5" } else { "Savannah 4.4" },
                    "siege-works-not-completed",
                    format!("the construction marker in {} is not flipped: {why}", w.hex),
                )
                .with("hex", &w.hex),
            ),
        }
    }
    for body in orders.values() {
        let Ok(o) = parse(body) else { continue };
        for m in o.place {
            events.push(
                Event::new(
                    "Savannah 4.4",
                    "construction-marker-placed",
                    format!(
                        "a construction marker is placed in {}; its hexsides are chosen when it is flipped (Savannah 4.4)",
                        m.hex
                    ),
                )
                .with("hex", &m.hex),
            );
            next.siege_works.push(SiegeWork {
                hex: m.hex,
                toward: Vec::new(),
                placed: state.turn,
                completed: false,
                breached: Vec::new(),
            });
        }
    }
    next.extra_construction_markers = 0;
    Ok(Resolution { state: next, events })
}

/// `orders` without what `state` refuses of them (the board a step's cards
/// left), taken out with a `siege-works-lapse` event for each problem: the
/// item a problem names (`place[1]`, `flip[0]`), the list it names
/// (`place`), or both lists when it names neither; again until nothing is
/// refused (an item out can make a later one
/// wrong: the first marker must extend from the works).
fn lapse(
    rules: &Rules,
    state: &State,
    orders: &std::collections::BTreeMap<String, crate::base::yaml::Value>,
    events: &mut Vec<Event>,
) -> std::collections::BTreeMap<String, crate::base::yaml::Value> {
    use crate::base::yaml::Value;
    let mut out = orders.clone();
    for (side, body) in out.iter_mut() {
        loop {
            let problems = check(rules, state, side, body);
            if problems.is_empty() {
                break;
            }
            let before = body.clone();
            let Some(map) = body.as_mapping_mut() else { break };
            let mut out_of: BTreeMap<&str, BTreeSet<usize>> = BTreeMap::new();
            for (_, field, message) in &problems {
                // The list a problem names (`place`, `flip`), and the item
                // (`place[1]`) when it names one.
                let list = [PLACE, FLIP].into_iter().find(|key| field.starts_with(key));
                let item = list.and_then(|key| {
                    field.strip_prefix(key)?.strip_prefix('[')?.split(']').next()?.parse::<usize>().ok()
                });
                events.push(
                    Event::new(
                        "Savannah 4.3",
                        "siege-works-lapse",
                        format!(
                            "{side} {}: not carried out on the board the step's Random Events cards left (the \
                             orders were written before them): {message}",
                            if field.is_empty() { "orders" } else { field.as_str() }
                        ),
                    )
                    .with("side", side.as_str())
                    .with("field", field.as_str()),
                );
                match (list, item) {
                    (Some(key), Some(i)) => {
                        out_of.entry(key).or_default().insert(i);
                    }
                    (Some(key), None) => {
                        map.remove(Value::String(key.into()));
                    }
                    (None, _) => {
                        map.remove(Value::String(PLACE.into()));
                        map.remove(Value::String(FLIP.into()));
                    }
                }
            }
            for (key, gone) in out_of {
                if let Some(Value::Sequence(list)) = map.get_mut(Value::String(key.into())) {
                    let mut i = 0;
                    list.retain(|_| {
                        i += 1;
                        !gone.contains(&(i - 1))
                    });
                }
            }
            // A problem naming an item not there: everything lapses; and
            // with nothing left to take out, the loop ends.
            if *body == before {
                let Some(map) = body.as_mapping_mut() else { break };
                map.remove(Value::String(PLACE.into()));
                map.remove(Value::String(FLIP.into()));
                if *body == before {
                    break;
                }
            }
        }
    }
    out
}

/// The hexes where the first marker of this step's orders may go (what the
/// template offers), sorted; empty when none may be placed.
pub fn open_hexes(rules: &Rules, state: &State) -> Vec<HexId> {
    if allowance(rules, state).is_none_or(|(n, _)| n == 0) || !siege::weather_allows(rules, state) {
        return Vec::new();
    }
    rules.module.map.terrain.keys().copied().filter(|h| hex_refusal(rules, state, *h, true).is_none()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::gboar::data::Source;

    /// Savannah 4.3, 4.4: markers written on the board before the step's
    /// cards, which the board the cards left refuses (here a Gale: "prevented
    /// by adverse weather"), are not placed, each with a `siege-works-lapse`
    /// event; the orders are checked, and refused, on the board they were
    /// written on.
    #[test]
    fn markers_a_card_has_made_wrong_lapse() {
        let rules = Rules::load(&Source::Embedded("savannah-1779".into()), "campaign").unwrap();
        let mut announced = State::setup(&rules.module, "campaign").unwrap();
        announced.turn = 9;
        announced.weather = Some("favorable".into());
        let hex = open_hexes(&rules, &announced)[0].to_string();
        let body: crate::base::yaml::Value =
            crate::base::yaml::from_str(&format!("place: [{{hex: \"{hex}\"}}]")).unwrap();
        let orders = BTreeMap::from([("french".to_string(), body)]);
        let mut carded = announced.clone();
        carded.weather = Some("gale".into());
        let done = resolve(&rules, &announced, &carded, &orders).unwrap();
        assert!(done.state.siege_works.is_empty(), "{:?}", done.state.siege_works);
        let lapses: Vec<&Event> = done.events.iter().filter(|e| e.kind == "siege-works-lapse").collect();
        assert_eq!(lapses.len(), 1, "{:?}", done.events);
        assert_eq!(lapses[0].fields["field"], "place");
        // Without a card the same orders place the marker; on the Gale's
        // board alone (no card: written there) they are refused.
        let placed = resolve(&rules, &announced, &announced, &orders).unwrap();
        assert_eq!(placed.state.siege_works.len(), 1);
        assert!(resolve(&rules, &carded, &carded, &orders).is_err());
    }
}
