//! The set-up step: before the first turn, a side places the units its
//! scenario lets it deploy where it likes (Hist. Set Up: "Deploy all units
//! according to their printed at-start locations. Exception: The Loyal
//! Savannah Militia may deploy in any hex within the Savannah Defensive
//! Perimeter, subject to stacking limits.").
//!
//! Which units, which zone and which side: the scenario's
//! `deployment.overrides` with `anywhere_in_zone` and `chosen_by`. The
//! state's set-up has already placed them at their printed hexes; the
//! orders `deploy: {unit: hex}` move each unit named to its hex, which must
//! be a hex of the zone, hold no enemy unit, and stay within the stacking
//! limits (series 7.1) and restrictions (Savannah 4.1) with the units
//! there. A unit not named stays at its printed hex.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::base::error::{Error, Result};
use crate::base::hex::HexId;
use crate::base::yaml::Value;
use crate::system::Event;
use crate::systems::gboar::board::refusals::{self, Code};
use crate::systems::gboar::board::state::{Resolution, State};
use crate::systems::gboar::board::units::{hex_of, player_of};
use crate::systems::gboar::board::Rules;
use crate::systems::gboar::data::sequence::DeploymentOverride;

/// One side's set-up orders.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "set-up orders (a map)")]
pub struct SetUpOrders {
    /// Unit id → the hex it deploys in.
    #[serde(default)]
    pub deploy: BTreeMap<String, String>,
}

/// The units `side` deploys in this scenario's set-up step.
pub fn choices<'a>(rules: &'a Rules, side: &'a str) -> Vec<&'a DeploymentOverride> {
    rules.sequence.scenario.deployment.iter().flat_map(|d| d.chosen_by(side)).collect()
}

/// The hexes of `zone` (map.yaml `zones`, or `places`), sorted.
pub fn zone_hexes(rules: &Rules, zone: &str) -> Vec<HexId> {
    let map = &rules.module.map;
    let mut hexes = map.zone(zone).or_else(|| map.place(zone)).map(|z| z.hexes.clone()).unwrap_or_default();
    hexes.sort();
    hexes
}

/// What set-up orders hold, for a refusal of their shape.
pub const HINT: &str =
    "set-up orders are `deploy:`, a map of unit to hex, the hex a quoted string of four digits (`deploy: {unit: \"1203\"}`)";

/// Read a side's body; a shape problem as `(field, message)`.
fn read(body: &Value) -> std::result::Result<SetUpOrders, (String, String)> {
    crate::base::yaml::read_body(body, HINT)
}

/// Every problem of `side`'s set-up orders, as `(code, field, message)`.
pub fn validate(rules: &Rules, state: &State, side: &str, body: &Value) -> Vec<(Code, String, String)> {
    let orders = match read(body) {
        Ok(o) => o,
        Err((f, m)) => return vec![(Code::OrdersShape, f, m)],
    };
    let mut problems = Vec::new();
    let open = choices(rules, side);
    let names: Vec<&str> = open.iter().map(|o| o.unit.as_str()).collect();
    // Where every unit stands once the orders are carried out.
    let mut after = state.clone();
    let mut targets: Vec<(String, String, HexId)> = Vec::new();
    for (unit, hex) in &orders.deploy {
        let field = format!("deploy.{unit}");
        let Some(choice) = open.iter().find(|o| &o.unit == unit) else {
            problems.push((
                Code::DeployNotAllowed,
                field,
                format!(
                    "{unit} is not a unit {side} deploys at the set-up (the scenario's deployment.overrides); {side} \
                     chooses the hex of: {}",
                    if names.is_empty() { "none".to_string() } else { names.join(", ") }
                ),
            ));
            continue;
        };
        let rule = choice.rule.clone().unwrap_or_else(|| "the scenario's set-up".into());
        let zone = choice.anywhere_in_zone.clone().unwrap_or_default();
        let Ok(at) = hex.parse::<HexId>() else {
            problems.push((
                Code::NotAHexId,
                field,
                format!("'{hex}' is not a hex id: {}", crate::systems::gboar::board::refusals::hex_id_advice(hex)),
            ));
            continue;
        };
        if !rules.module.map.contains(at) {
            problems.push((Code::NotAHexId, field, format!("{at} is not a hex of the map")));
            continue;
        }
        let hexes = zone_hexes(rules, &zone);
        if !hexes.contains(&at) {
            problems.push((
                Code::DeployOutsideZone,
                field,
                format!(
                    "{at} is not within {zone} ({rule}: {unit} may deploy in any hex within it, subject to stacking \
                     limits); its hexes: {}",
                    hexes.iter().map(|h| h.to_string()).collect::<Vec<_>>().join(", ")
                ),
            ));
            continue;
        }
        if let Some(u) = after.units.get_mut(unit) {
            u.hex = Some(at);
            u.off_map = None;
        }
        targets.push((unit.clone(), rule, at));
    }
    for (unit, rule, at) in &targets {
        let field = format!("deploy.{unit}");
        let owner = player_of(rules, unit);
        if let Some(enemy) = after
            .units
            .keys()
            .find(|u| hex_of(&after, u) == Some(*at) && player_of(rules, u) != owner && rules.counter(u).is_some())
        {
            problems.push((
                Code::DeployOnEnemy,
                field,
                format!("{at} holds {enemy}, an enemy unit: {unit} may not deploy there ({rule})"),
            ));
            continue;
        }
        if let Some(limits) = rules.stacking.as_ref() {
            let here: Vec<String> = after.units.keys().filter(|u| hex_of(&after, u) == Some(*at)).cloned().collect();
            let (sps, guns) = here.iter().fold((0, 0), |(s, g), u| {
                let (a, b) = crate::systems::gboar::effects::losses::stacking_weight(rules, &after, u);
                (s + a, g + b)
            });
            if !limits.holds(sps, guns) {
                problems.push((
                    Code::OverStacked,
                    field,
                    format!(
                        "{at} would hold {sps} SPs and {guns} artillery unit{} ({}): over the stacking limit of {} SPs \
                         and {} artillery unit (7.1; {rule}: \"subject to stacking limits\")",
                        if guns == 1 { "" } else { "s" },
                        here.join(", "),
                        limits.max_strength_points,
                        limits.max_artillery_units
                    ),
                ));
                continue;
            }
        }
        if let Some((r, x, y)) = crate::systems::gboar::board::stacking::restricted_stack(rules, &after, *at, |r| {
            !r.may_end_movement_phase_stacked
        }) {
            problems.push((
                Code::DeployRestrictedStack,
                field,
                format!("{at}: {x} and {y} may not stack together ({}); {unit} may not deploy there", r.rule_name()),
            ));
        }
    }
    problems
}

/// Resolve the set-up step: each awaited side's `deploy` carried out, in
/// side and unit order; the units not named stay at their printed hexes.
/// Orders are checked whole first (nothing happens if any is wrong).
pub fn resolve(rules: &Rules, state: &State, orders: &BTreeMap<String, Value>) -> Result<Resolution> {
    let mut problems = Vec::new();
    for (side, body) in orders {
        problems.extend(validate(rules, state, side, body).into_iter().map(|(c, f, m)| (side.as_str(), c, f, m)));
    }
    if !problems.is_empty() {
        return Err(refusals::refuse_all(
            "set-up",
            "nothing happened",
            problems.iter().map(|(side, code, field, message)| (*side, field.as_str(), message.as_str(), *code)),
        ));
    }
    let mut next = state.clone();
    let mut events = Vec::new();
    let sides = rules.sequence.scenario.deployment.as_ref().map(|d| d.choosing_sides()).unwrap_or_default();
    for side in sides.iter().map(String::as_str) {
        let body = orders.get(side).cloned().unwrap_or(Value::Null);
        let chosen = read(&body).unwrap_or_default();
        for choice in choices(rules, side) {
            let rule = choice.rule.clone().unwrap_or_else(|| "the scenario's set-up".into());
            let printed = hex_of(state, &choice.unit).map(|h| h.to_string()).unwrap_or_default();
            let zone = choice.anywhere_in_zone.clone().unwrap_or_default();
            let (at, text) = match chosen.deploy.get(&choice.unit) {
                Some(hex) => {
                    // Validated above: a hex of the zone.
                    let parsed = hex.parse::<HexId>().map_err(|e| Error::refused(e.to_string()))?;
                    let at = parsed.to_string();
                    if let Some(u) = next.units.get_mut(&choice.unit) {
                        u.hex = Some(parsed);
                    }
                    let text = format!("{side} deploys {} in {at}, within {zone} (printed hex {printed})", choice.unit);
                    (at, text)
                }
                None => (
                    printed.clone(),
                    format!("{side} chooses no hex for {}: it deploys at its printed hex {printed}", choice.unit),
                ),
            };
            events.push(
                Event::new(&rule, "deployed", text)
                    .with("unit", &choice.unit)
                    .with("side", side)
                    .with("hex", &at)
                    .with("printed", &printed),
            );
        }
    }
    Ok(Resolution { state: next, events })
}
