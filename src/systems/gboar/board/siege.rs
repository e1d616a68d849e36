//! French siege works, breaches and destroyed city hexes on the board
//! (Savannah 4.4, 4.5, 4.6, 2.1, 4.7): where a construction marker may go,
//! who may interdict it, which hexsides may be breached or repaired. The
//! Construct Siege Works Phase, the Siege & Bombardment Phase and the
//! Random Events cards all ask here; the terrain reads the works
//! themselves ([`crate::systems::gboar::board::terrain::Terrain::of`]).

use std::collections::BTreeSet;

use crate::base::hex::{are_adjacent, distance, HexId, Hexside};
use crate::systems::gboar::board::state::{Condition, SiegeWork, State};
use crate::systems::gboar::board::terrain::SIEGE_WORKS;
use crate::systems::gboar::board::units::{player_of, unit_hex};
use crate::systems::gboar::board::Rules;
use crate::systems::gboar::data::scenario::{NotIn, TurnRule, TurnRuleStep, CONSTRUCT_SIEGE_WORKS};

/// The army that builds the siege works: the Construct Siege Works
/// Phase's (module.yaml `phases[].armies`, Savannah 3 IV: "French only").
pub fn builder(rules: &Rules) -> Option<String> {
    rules.sequence.data.phases.iter().find(|p| p.id == CONSTRUCT_SIEGE_WORKS).and_then(|p| p.armies.first().cloned())
}

/// The player (alliance) of the builder.
pub fn builder_player(rules: &Rules) -> String {
    builder(rules).and_then(|a| rules.player_of_army(&a).map(str::to_string)).unwrap_or_default()
}

/// The scenario's siege works rule and this turn's step of it.
pub fn step_of(rules: &Rules, turn: u32) -> Option<(&TurnRule, &TurnRuleStep)> {
    let rule = rules.scenario_movement.siege_works()?;
    rule.steps.iter().find(|s| s.turn == turn).map(|s| (rule, s))
}

/// Savannah 4.4: hexes from `hex` to the nearest hex of the perimeter
/// zone; `None` without the zone.
pub fn perimeter_distance(rules: &Rules, not_in: &NotIn, hex: HexId) -> Option<u32> {
    let zone = rules.module.map.zone(&not_in.perimeter)?;
    let layout = rules.module.map.layout;
    zone.hexes.iter().map(|z| distance(*z, hex, layout)).min()
}

/// Savannah 4.4: why no construction marker may go in `hex` for its
/// ground (rice fields, swamp, the Jewish Cemetery: the TEC's
/// `siege_works_allowed`, with its areas, and the rule's places), or `None`.
pub fn ground_refusal(rules: &Rules, not_in: &NotIn, hex: HexId) -> Option<String> {
    let map = &rules.module.map;
    for id in &not_in.places {
        if let Some(place) = map.place(id).filter(|p| p.hexes.contains(&hex)) {
            return Some(format!("{hex} is in the {} (Savannah 4.4)", place.name));
        }
    }
    let terrain = rules.terrain_at(hex)?;
    let mut allowed = terrain.siege_works_allowed;
    let mut name = terrain.name.clone();
    for area in &rules.charts.terrain.areas {
        let hexes = match area.map.split_once('/') {
            Some(("places", id)) => map.place(id).map(|r| r.hexes.clone()),
            Some(("zones", id)) => map.zone(id).map(|r| r.hexes.clone()),
            _ => None,
        };
        if hexes.is_some_and(|h| h.contains(&hex)) {
            if let Some(a) = area.overrides.siege_works_allowed {
                allowed = a;
                name = area.name.clone();
            }
        }
    }
    (!allowed).then(|| format!("{hex} is {name}, where no siege works are built (Savannah 4.4, the TEC)"))
}

/// Savannah 4.4: whether the turn's weather lets construction markers be
/// placed (charts/weather.yaml `construction`; no weather, yes).
pub fn weather_allows(rules: &Rules, state: &State) -> bool {
    state
        .weather
        .as_deref()
        .and_then(|w| rules.charts.weather.conditions.iter().find(|c| c.id == w))
        .is_none_or(|c| c.construction)
}

/// Savannah 4.4: whether the turn's weather lets markers be flipped to
/// completed works (charts/weather.yaml `completion`; no weather, yes).
pub fn weather_allows_completion(rules: &Rules, state: &State) -> bool {
    state
        .weather
        .as_deref()
        .and_then(|w| rules.charts.weather.conditions.iter().find(|c| c.id == w))
        .is_none_or(|c| c.completion)
}

/// The turn's weather, by name.
pub fn weather_name(rules: &Rules, state: &State) -> String {
    let id = state.weather.clone().unwrap_or_default();
    rules.charts.weather.conditions.iter().find(|c| c.id == id).map(|c| c.name.clone()).unwrap_or(id)
}

/// The combat units of another player than `player` next to `hex`;
/// `parade` keeps only those in Parade Order (Savannah 4.5).
pub fn enemies_next_to(rules: &Rules, state: &State, hex: HexId, player: &str, parade: bool) -> Vec<String> {
    let layout = rules.module.map.layout;
    state
        .units
        .iter()
        .filter(|(id, u)| {
            unit_hex(u).is_some_and(|h| are_adjacent(h, hex, layout))
                && rules.counter(id).is_some_and(|c| !c.is_leader())
                && player_of(rules, id) != player
                && (!parade || u.condition == Condition::ParadeOrder)
        })
        .map(|(id, _)| id.clone())
        .collect()
}

/// Savannah 4.5: the Parade Order enemy combat units in `hex` other than
/// artillery ("not removed if entered solely by enemy artillery").
pub fn interdicting_in(rules: &Rules, state: &State, hex: HexId, player: &str) -> Vec<String> {
    state
        .units
        .iter()
        .filter(|(id, u)| {
            unit_hex(u) == Some(hex)
                && u.condition == Condition::ParadeOrder
                && rules.counter(id).is_some_and(|c| !c.is_leader() && !is_artillery(&c.kind))
                && player_of(rules, id) != player
        })
        .map(|(id, _)| id.clone())
        .collect()
}

/// The counter types that are artillery (guns, naval guns, mortars).
pub fn is_artillery(kind: &str) -> bool {
    matches!(kind, "artillery" | "naval-artillery" | "mortar")
}

/// The hexes of completed siege works.
pub fn completed_hexes(state: &State) -> Vec<HexId> {
    state.siege_works.iter().filter(|w| w.completed).filter_map(|w| w.hex.parse().ok()).collect()
}

/// Savannah 4.4 Considerations: the counters of the mix left for a marker
/// of `n` hexsides (`None` without a mix: no limit).
pub fn counters_left(rule: &TurnRule, works: &[SiegeWork], n: usize) -> Option<u32> {
    let mix = rule.counter_mix.as_ref()?;
    let total = mix.markers.iter().filter(|m| m.hexsides as usize == n).map(|m| m.count).sum::<u32>();
    let used = works.iter().filter(|w| w.toward.len() == n).count() as u32;
    Some(total.saturating_sub(used))
}

/// Every marker left in the counter mix (`None` without a mix).
pub fn markers_left(rule: &TurnRule, works: &[SiegeWork]) -> Option<u32> {
    let mix = rule.counter_mix.as_ref()?;
    Some(mix.total().saturating_sub(works.len() as u32))
}

/// The hexside sizes the counter mix has, sorted (1, 2, 3 ...).
pub fn mix_sizes(rule: &TurnRule) -> Vec<u32> {
    let sizes: BTreeSet<u32> =
        rule.counter_mix.as_ref().map(|m| m.markers.iter().map(|e| e.hexsides).collect()).unwrap_or_default();
    sizes.into_iter().collect()
}

/// Savannah 4.5, 4.6: the map's British fieldwork hexsides a breach may
/// fall on: every hexside with a breachable TEC feature other than the
/// French siege works, sorted; `breached` picks the breached ones (true)
/// or the intact ones (false).
pub fn fieldwork_sides(rules: &Rules, state: &State, breached: bool) -> Vec<Hexside> {
    let breachable: BTreeSet<&str> = rules
        .charts
        .terrain
        .hexsides
        .iter()
        .filter(|f| f.breachable && f.id != SIEGE_WORKS)
        .map(|f| f.id.as_str())
        .collect();
    rules
        .module
        .map
        .hexsides
        .iter()
        .filter(|(_, features)| features.iter().any(|f| breachable.contains(f.as_str())))
        .map(|(side, _)| *side)
        .filter(|side| state.breaches.binary_search(&side.to_string()).is_ok() == breached)
        .collect()
}

/// Savannah 4.5, 4.6: the completed French siege work hexsides, as
/// `HEX/HEX` (the work's hex first), `breached` picking breached (true)
/// or intact ones; in the order the works were placed.
pub fn siege_sides(state: &State, breached: bool) -> Vec<String> {
    state
        .siege_works
        .iter()
        .filter(|w| w.completed)
        .flat_map(|w| {
            w.toward.iter().filter(move |t| w.breached.contains(t) == breached).map(move |t| format!("{}/{t}", w.hex))
        })
        .collect()
}

/// Savannah 2.1, 4.7: the hexes of the City of Savannah (map place
/// `city-of-savannah`), with whether each is destroyed.
pub fn city_hexes(rules: &Rules, state: &State, destroyed: bool) -> Vec<HexId> {
    rules
        .module
        .map
        .place(CITY)
        .map(|p| p.hexes.clone())
        .unwrap_or_default()
        .into_iter()
        .filter(|h| state.destroyed_hexes.contains(&h.to_string()) == destroyed)
        .collect()
}

/// The map place of the City of Savannah (Savannah 2.1, 4.7).
pub const CITY: &str = "city-of-savannah";

/// A siege works line for reports: `2412 (toward 2311, 2312), completed,
/// breached toward 2311`.
pub fn describe(w: &SiegeWork) -> String {
    let state = if w.completed { "completed" } else { "under construction" };
    let mut text = if w.toward.is_empty() {
        format!("{}, {state}", w.hex)
    } else {
        format!("{} (toward {}), {state}", w.hex, w.toward.join(", "))
    };
    if !w.breached.is_empty() {
        text += &format!(", breached toward {}", w.breached.join(", "));
    }
    text
}

/// The game's works as a map draws them (Savannah 4.4, 4.5, 4.6):
/// construction markers, completed works' hexsides, breaches (of siege
/// works and of fieldworks) and destroyed city hexes, in the state's order.
pub fn drawn_works(state: &State) -> Vec<crate::base::hexmap::Work> {
    use crate::base::hexmap::Work;
    let hex = |h: &str| h.parse::<HexId>().ok();
    let mut out = Vec::new();
    for w in &state.siege_works {
        let Some(at) = hex(&w.hex) else { continue };
        let toward: Vec<HexId> = w.toward.iter().filter_map(|t| hex(t)).collect();
        if w.completed {
            out.extend(toward.iter().map(|t| Work::Completed { hex: at, toward: *t }));
            out.extend(w.breached.iter().filter_map(|b| hex(b)).map(|b| Work::Breach { a: at, b }));
        } else {
            out.push(Work::Marker { hex: at, toward });
        }
    }
    for b in &state.breaches {
        if let Some((a, c)) = b.split_once('/').and_then(|(a, c)| Some((hex(a)?, hex(c)?))) {
            out.push(Work::Breach { a, b: c });
        }
    }
    out.extend(state.destroyed_hexes.iter().filter_map(|h| hex(h)).map(|hex| Work::Destroyed { hex }));
    out
}

#[cfg(test)]
mod tests {
    use crate::base::hex::HexId;
    use crate::systems::gboar::board::state::{SiegeWork, State};
    use crate::systems::gboar::board::terrain::{Terrain, SIEGE_WORKS};
    use crate::systems::gboar::board::Rules;
    use crate::systems::gboar::data::Source;

    fn h(s: &str) -> HexId {
        s.parse().unwrap()
    }

    fn rules(scenario: &str) -> Rules {
        Rules::load(&Source::Embedded("savannah-1779".into()), scenario).unwrap()
    }

    /// Savannah 4.4: the map's printed siege works are the Historical
    /// Scenario's only; in the Campaign Game the works are the game's own.
    #[test]
    fn printed_works_belong_to_the_historical_scenario() {
        let historical = rules("historical");
        let campaign = rules("campaign");
        let printed = |r: &Rules| Terrain::new(r).crossing(h("1908"), h("2008")).iter().any(|c| c.id == SIEGE_WORKS);
        assert!(printed(&historical));
        assert!(!printed(&campaign));
    }

    /// Savannah 4.4: a completed work is a siege works hexside owned by its
    /// hex, read like the printed ones; under construction it is nothing;
    /// breached (4.5) it has the TEC's breached effects and no longer
    /// protects (13.5, 4.19).
    #[test]
    fn completed_works_are_hexsides_and_breaches_open_them() {
        let rules = rules("campaign");
        let mut state = State::setup(&rules.module, "campaign").unwrap();
        let work = SiegeWork {
            hex: "2208".into(),
            toward: vec!["2308".into()],
            placed: 9,
            completed: false,
            breached: Vec::new(),
        };
        state.siege_works = vec![work];
        assert!(Terrain::of(&rules, &state).crossing(h("2308"), h("2208")).is_empty(), "under construction");
        state.siege_works[0].completed = true;
        let into = Terrain::of(&rules, &state).crossing(h("2308"), h("2208"));
        assert_eq!(into.len(), 1);
        assert!(into[0].id == SIEGE_WORKS && into[0].into && into[0].fieldwork && !into[0].breached);
        let tec = rules.charts.terrain.hexsides.iter().find(|f| f.id == SIEGE_WORKS).unwrap();
        assert_eq!(into[0].close_combat_drm, tec.into.unwrap().close_combat_drm);
        assert!(!Terrain::of(&rules, &state).zoc_crosses(h("2308"), h("2208")), "8.1: no ZOC into works");
        assert_eq!(Terrain::of(&rules, &state).fieldworks_of(h("2208")), vec![(h("2308"), false)]);
        assert!(Terrain::of(&rules, &state).crossing(h("2309"), h("2208")).is_empty(), "another side");
        state.siege_works[0].breached = vec!["2308".into()];
        let breached = Terrain::of(&rules, &state).crossing(h("2308"), h("2208"));
        let b = rules.charts.terrain.breached.as_ref().unwrap();
        assert!(breached[0].breached);
        assert_eq!(breached[0].close_combat_drm, b.close_combat_drm);
        assert_eq!(Terrain::of(&rules, &state).fieldworks_of(h("2208")), vec![(h("2308"), true)]);
        // A breached British fieldwork hexside, the same way.
        state.breaches = vec!["1805/1806".into()];
        let abatis = Terrain::of(&rules, &state).crossing(h("1806"), h("1805"));
        assert!(abatis.iter().all(|c| c.breached), "{abatis:?}");
        let costs: Vec<i32> =
            Terrain::of(&rules, &state).crossing_costs(h("1806"), h("1805")).map(|(_, c)| c).collect();
        assert!(costs.iter().all(|c| *c == b.movement_cost_added), "{costs:?}");
    }
}
