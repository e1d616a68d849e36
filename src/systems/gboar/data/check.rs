//! `check-game`: a module checked whole. Every problem is collected with its
//! file, line and field, never only the first: a module author fixes them in
//! one pass.
//!
//! What is checked here: module.yaml against the map (the facts the rule text
//! gives about places and entry hexes, e.g. Spring Hill Redoubt is 1404,
//! Savannah 2.8), the map itself, every counter (references, values its type
//! needs, set-up hexes on the map and not in prohibited terrain), every
//! scenario (units exist, none twice, overrides and reinforcements resolve)
//! and stacking at set-up (series 7.1, limits from module.yaml); and every
//! chart (`charts/`: complete tables, defined codes, references).

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use super::charts;
use super::counters::{Counter, CountersFile};
use super::map::{locate, MapFile};
use super::Source;
use crate::base::error::{Error, Located};
use crate::base::hex::HexId;
use crate::base::hexmap::Map;
use crate::system::ModuleInfo;
use crate::systems::gboar::data::stacking::Stacking;

/// What module.yaml says that the checks need.
#[derive(Debug, Clone, Deserialize)]
struct ModuleFacts {
    #[serde(default)]
    armies: Vec<Army>,
    #[serde(default)]
    colour_groups: Vec<super::ColourGroup>,
    #[serde(default)]
    entry_hexes: Vec<EntryFact>,
    #[serde(default)]
    places: Vec<PlaceFact>,
    #[serde(default)]
    stacking: Option<Stacking>,
    #[serde(default)]
    intelligence: super::stacking::Intelligence,
    #[serde(default)]
    close_combat: super::stacking::CloseCombatData,
}

#[derive(Debug, Clone, Deserialize)]
struct Army {
    id: String,
    side: String,
    #[serde(default)]
    leaders_command: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
struct EntryFact {
    letter: String,
    #[serde(default)]
    hexes: Vec<String>,
    #[serde(default)]
    headquarters_of: Option<String>,
}

/// A fact the rule text gives about a place; the map must agree.
#[derive(Debug, Clone, Deserialize)]
struct PlaceFact {
    id: String,
    /// The place is exactly these hexes.
    #[serde(default)]
    hexes: Vec<String>,
    /// The place (a path) runs from the first of these to the second.
    #[serde(default)]
    ends: Vec<String>,
    /// The place includes these hexes.
    #[serde(default)]
    includes: Vec<String>,
}

/// The parts of a scenario file the checks read.
#[derive(Debug, Clone, Deserialize)]
struct ScenarioFacts {
    id: String,
    units: super::counters::ScenarioUnits,
    #[serde(default)]
    not_used: Option<NotUsed>,
    #[serde(default)]
    deployment: Option<DeploymentFacts>,
    #[serde(default)]
    reinforcements: Option<Reinforcements>,
    #[serde(default)]
    phases: BTreeMap<String, crate::base::yaml::Value>,
}

#[derive(Debug, Clone, Deserialize)]
struct NotUsed {
    units: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
struct DeploymentFacts {
    #[serde(default)]
    overrides: Vec<OverrideFacts>,
}

#[derive(Debug, Clone, Deserialize)]
struct OverrideFacts {
    unit: String,
    #[serde(default)]
    hex: Option<String>,
    #[serde(default)]
    anywhere_in_zone: Option<String>,
    #[serde(default)]
    chosen_by: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum Reinforcements {
    Schedule { schedule: Vec<Arrival> },
    List(Vec<Arrival>),
}

#[derive(Debug, Clone, Deserialize)]
struct Arrival {
    turn: u32,
    army: String,
    entry: String,
    units: Vec<String>,
}

/// The unit types of the series (docs/module-format/counters.md).
const TYPES: &[&str] = &[
    "infantry",
    "light-infantry",
    "militia",
    "rifle",
    "musket-rifle",
    "cavalry",
    "artillery",
    "naval-artillery",
    "mortar",
    "leader",
];

/// The outcome of a check: what was looked at, and every problem.
pub use crate::system::{ModuleCheck as Report, ModuleProblem as Problem};

struct Files<'a> {
    source: &'a Source,
    texts: BTreeMap<String, String>,
    problems: Vec<Located>,
}

impl Files<'_> {
    /// Parse a file, recording its problem if it cannot be read.
    fn parse<T: serde::de::DeserializeOwned + std::fmt::Debug + Clone + Send + 'static>(
        &mut self,
        file: &str,
    ) -> Option<T> {
        match self.source.parse::<T>(file) {
            Ok((value, text)) => {
                self.texts.insert(file.to_string(), text);
                Some(value)
            }
            Err(Error::Data(l)) => {
                self.problems.push(l);
                None
            }
            Err(e) => {
                self.problems.push(Located {
                    file: self.source.label(file),
                    line: None,
                    column: None,
                    field: String::new(),
                    message: e.to_string(),
                    code: None,
                });
                None
            }
        }
    }

    /// Record a problem in `file`, located at `token` after `anchor`.
    fn add(
        &mut self,
        file: &str,
        anchor: Option<&str>,
        token: Option<&str>,
        field: impl Into<String>,
        message: impl Into<String>,
    ) {
        let place = self.texts.get(file).and_then(|t| locate(t, anchor, token));
        self.problems.push(Located {
            file: self.source.label(file),
            line: place.map(|p| p.0),
            column: place.map(|p| p.1),
            field: field.into(),
            message: message.into(),
            code: None,
        });
    }
}

fn quoted(s: &str) -> String {
    format!("\"{s}\"")
}

/// Check a module whole.
pub fn check(source: &Source) -> Report {
    let mut f = Files { source, texts: BTreeMap::new(), problems: Vec::new() };
    let mut checked = BTreeMap::new();
    let info: Option<ModuleInfo> = f.parse("module.yaml");
    let facts: Option<ModuleFacts> = f.parse("module.yaml");
    let map_file: Option<MapFile> = f.parse("map.yaml");
    let map = map_file.and_then(|m| {
        let text = f.texts.get("map.yaml").cloned().unwrap_or_default();
        match m.build(&source.label("map.yaml"), &text) {
            Ok(map) => Some(map),
            Err(list) => {
                f.problems.extend(list);
                None
            }
        }
    });
    let counters: Option<CountersFile> = f.parse("counters.yaml");
    // Every chart, read strictly and checked against the module, map and counters.
    let mut context = charts::Context::default();
    if let Some(info) = &info {
        context = context.with_module(info);
    }
    if let Some(facts) = &facts {
        context = context.with_colour_groups(facts.colour_groups.iter().map(|g| g.id.as_str()));
    }
    if let Some(map) = &map {
        context = context.with_map(map);
    }
    if let Some(counters) = &counters {
        context = context.with_counters(&counters.counters);
    }
    let charts = match charts::load(source) {
        Ok(c) => {
            f.problems.extend(charts::check(&c, &context));
            checked.insert("chart files".into(), c.files.len());
            Some(c)
        }
        Err(list) => {
            f.problems.extend(list);
            None
        }
    };
    // Series 9.2: a unit may never be in prohibited terrain (TEC).
    let prohibited: BTreeSet<String> = charts
        .iter()
        .flat_map(|c| &c.terrain.hexes)
        .filter(|h| h.movement_cost == charts::MovementCost::Prohibited)
        .map(|h| h.id.clone())
        .collect();

    // Series 7.4: hidden enemy stacks charge each examination by order the
    // Army Morale Adjustment Chart's entry for it.
    if let (Some(facts), Some(charts)) = (&facts, &charts) {
        let entry = super::stacking::EXAMINED_ENEMY_STACK;
        let has = charts.army_morale.adjustments.entries.iter().any(|e| e.id == entry);
        if facts.intelligence == super::stacking::Intelligence::HiddenStacks && !has {
            f.add(
                "module.yaml",
                Some("intelligence:"),
                None,
                "intelligence",
                format!(
                    "hidden-stacks needs the entry '{entry}' in charts/army-morale.yaml's adjustments: what each \
                     examination of an enemy stack by order costs (series 7.4: -1 Army Morale)"
                ),
            );
        }
    }
    if let (Some(facts), Some(map)) = (&facts, &map) {
        check_module_facts(&mut f, facts, map);
        checked.insert("places and entry hexes".into(), facts.places.len() + facts.entry_hexes.len());
    }
    if let Some(map) = &map {
        checked.insert("hexes".into(), map.terrain.len());
        checked.insert("hexsides".into(), map.hexsides.len());
    }
    if let (Some(info), Some(facts), Some(counters)) = (&info, &facts, &counters) {
        check_counters(&mut f, info, facts, &counters.counters, map.as_ref(), &prohibited);
        checked.insert("counters".into(), counters.counters.len());
    }
    if let (Some(info), Some(counters)) = (&info, &counters) {
        for scenario in &info.scenarios {
            let file = format!("scenarios/{}.yaml", scenario.id);
            if let Some(s) = f.parse::<ScenarioFacts>(&file) {
                check_scenario(&mut f, &file, &s, facts.as_ref(), &counters.counters, map.as_ref());
            }
        }
        checked.insert("scenarios".into(), info.scenarios.len());
    }
    Report {
        module: source.label("").trim_end_matches('/').to_string(),
        checked,
        problems: f.problems.into_iter().map(Problem::from).collect(),
    }
}

/// The rule text's facts (module.yaml) against the map: a disagreement is
/// reported where the map says otherwise, since the text is the source of
/// truth.
fn check_module_facts(f: &mut Files, facts: &ModuleFacts, map: &Map) {
    let m = "map.yaml";
    for (n, e) in facts.entry_hexes.iter().enumerate() {
        let field = format!("entry_hexes[{n}]");
        let anchor = format!("{{id: {},", e.letter);
        if let Some(army) = &e.headquarters_of {
            if !map.headquarters.contains_key(army) {
                f.add(
                    m,
                    Some(&anchor),
                    None,
                    field.clone(),
                    format!("entry {} is the {army} HQ, but map.yaml has no headquarters for army {army}", e.letter),
                );
            }
        }
        if e.hexes.is_empty() {
            continue;
        }
        let wanted: Vec<HexId> = e.hexes.iter().filter_map(|h| h.parse().ok()).collect();
        match map.entry_hexes.get(&e.letter) {
            None => f.add(
                m,
                Some("entry_hexes:"),
                None,
                "entry_hexes",
                format!(
                    "entry {} (hexes {}, module.yaml) is not among the map's entry_hexes",
                    e.letter,
                    e.hexes.join(", ")
                ),
            ),
            Some(on_map) if *on_map != wanted => {
                let shown: Vec<String> = on_map.iter().map(|h| h.to_string()).collect();
                f.add(
                    m,
                    Some(&anchor),
                    None,
                    field,
                    format!(
                        "entry {} is {} by the rules, but {} on the map",
                        e.letter,
                        e.hexes.join(", "),
                        shown.join(", ")
                    ),
                )
            }
            Some(_) => {}
        }
    }
    for (n, p) in facts.places.iter().enumerate() {
        let field = format!("places[{n}]");
        let anchor = format!("- id: {}", p.id);
        let Some(region) = map.zone(&p.id).or_else(|| map.place(&p.id)) else {
            f.add(
                "module.yaml",
                Some(&format!("id: {}", p.id)),
                None,
                field,
                format!("'{}' is not a place or zone of map.yaml", p.id),
            );
            continue;
        };
        let has = |h: &String| h.parse::<HexId>().is_ok_and(|h| region.hexes.contains(&h));
        let shown = || region.hexes.iter().map(|h| h.to_string()).collect::<Vec<_>>().join(", ");
        if !p.hexes.is_empty() {
            let wanted: BTreeSet<HexId> = p.hexes.iter().filter_map(|h| h.parse().ok()).collect();
            let actual: BTreeSet<HexId> = region.hexes.iter().copied().collect();
            if wanted != actual {
                f.add(
                    m,
                    Some(&anchor),
                    None,
                    format!("{field}.hexes"),
                    format!("{} is {} by the rules, but {} on the map", region.name, p.hexes.join(", "), shown()),
                );
            }
        }
        if let [first, last] = p.ends.as_slice() {
            let ends = (region.hexes.first().map(|h| h.to_string()), region.hexes.last().map(|h| h.to_string()));
            if ends != (Some(first.clone()), Some(last.clone())) {
                f.add(
                    m,
                    Some(&anchor),
                    None,
                    format!("{field}.ends"),
                    format!("{} runs from {first} to {last} by the rules, but the map's runs {}", region.name, shown()),
                );
            }
        }
        for h in p.includes.iter().filter(|h| !has(h)) {
            f.add(
                m,
                Some(&anchor),
                None,
                format!("{field}.includes"),
                format!("{} includes {h} by the rules, but not on the map", region.name),
            );
        }
    }
}

fn check_counters(
    f: &mut Files,
    info: &ModuleInfo,
    facts: &ModuleFacts,
    counters: &[Counter],
    map: Option<&Map>,
    prohibited: &BTreeSet<String>,
) {
    let c = "counters.yaml";
    let armies: BTreeSet<&str> = facts.armies.iter().map(|a| a.id.as_str()).collect();
    for a in &facts.armies {
        if info.sides.iter().all(|s| s.id != a.side) {
            f.add(
                "module.yaml",
                Some(&format!("id: {}", a.id)),
                Some("side:"),
                "armies",
                format!("army {} belongs to side '{}', which is not a side of the module", a.id, a.side),
            );
        }
    }
    let groups: BTreeMap<&str, &str> = facts.colour_groups.iter().map(|g| (g.id.as_str(), g.army.as_str())).collect();
    for a in &facts.armies {
        for g in a.leaders_command.iter().filter(|g| !groups.contains_key(g.as_str())) {
            let known: Vec<&str> = groups.keys().copied().collect();
            f.add(
                "module.yaml",
                Some(&format!("id: {}", a.id)),
                Some("leaders_command:"),
                "armies",
                format!(
                    "army {}: leaders_command names '{}', which is not a colour group; the colour groups are {}",
                    a.id,
                    crate::base::error::echo(g),
                    known.join(", ")
                ),
            );
        }
    }
    let mut seen = BTreeSet::new();
    for (n, u) in counters.iter().enumerate() {
        let anchor = format!("id: {}", u.id);
        let field = |name: &str| format!("counters[{n}].{name}");
        if !seen.insert(u.id.as_str()) {
            f.add(c, Some(&anchor), None, field("id"), format!("the id '{}' is used by two counters", u.id));
        }
        if !armies.contains(u.army.as_str()) {
            let known: Vec<&str> = armies.iter().copied().collect();
            f.add(
                c,
                Some(&anchor),
                Some("army:"),
                field("army"),
                format!("{}: army '{}' is not one of {}", u.id, u.army, known.join(", ")),
            );
        }
        match u.colour_group.as_deref().map(|g| (g, groups.get(g))) {
            Some((g, None)) => f.add(
                c,
                Some(&anchor),
                Some("colour_group:"),
                field("colour_group"),
                format!("{}: colour group '{g}' is not defined in module.yaml", u.id),
            ),
            Some((g, Some(army))) if *army != u.army => f.add(
                c,
                Some(&anchor),
                Some("colour_group:"),
                field("colour_group"),
                format!("{}: colour group '{g}' belongs to the {army} army, not the {}", u.id, u.army),
            ),
            _ => {}
        }
        if !TYPES.contains(&u.kind.as_str()) {
            f.add(
                c,
                Some(&anchor),
                Some("type:"),
                field("type"),
                format!("{}: type '{}' is not one of {}", u.id, u.kind, TYPES.join(", ")),
            );
        } else if u.is_leader() {
            for (name, v) in
                [("rank", u.rank), ("close_combat_drm", u.close_combat_drm), ("leadership_drm", u.leadership_drm)]
            {
                if v.is_none() {
                    f.add(
                        c,
                        Some(&anchor),
                        None,
                        field(name),
                        format!("{}: a leader needs its {name} (series 14)", u.id),
                    );
                }
            }
        } else {
            if u.strength.is_none() {
                f.add(c, Some(&anchor), None, field("strength"), format!("{}: a unit needs its strength points", u.id));
            }
            if u.morale.is_none() {
                f.add(
                    c,
                    Some(&anchor),
                    None,
                    field("morale"),
                    format!("{}: a unit needs its morale (series 15.31)", u.id),
                );
            }
        }
        if u.movement.is_none_or(|m| m < 0) {
            f.add(
                c,
                Some(&anchor),
                None,
                field("movement"),
                format!("{}: needs a movement allowance of 0 or more", u.id),
            );
        }
        if let (Some(setup), Some(map)) = (&u.setup, map) {
            check_hex(f, c, &anchor, &setup.hex, field("setup.hex"), &u.id, map, prohibited);
        }
        if let (Some(setup), Some(map)) = (&u.campaign_setup, map) {
            check_hex(f, c, &anchor, &setup.hex, field("campaign_setup.hex"), &u.id, map, prohibited);
        }
        if let Some(entry) = &u.entry {
            if !facts.entry_hexes.iter().any(|e| e.letter == entry.letter) {
                let known: Vec<&str> = facts.entry_hexes.iter().map(|e| e.letter.as_str()).collect();
                f.add(
                    c,
                    Some(&anchor),
                    Some("entry:"),
                    field("entry.letter"),
                    format!("{}: entry letter '{}' is not one of {}", u.id, entry.letter, known.join(", ")),
                );
            }
        }
        if let Some(other) = &u.replaces {
            if counters.iter().all(|x| &x.id != other) {
                f.add(
                    c,
                    Some(&anchor),
                    Some("replaces:"),
                    field("replaces"),
                    format!("{}: replaces '{other}', which is not a counter", u.id),
                );
            }
        }
        // Series 3.2: a rifle unit carries a white or a black R.
        match (u.kind.as_str(), u.rifle_mark.as_deref()) {
            (_, Some(mark)) if mark != "white" && mark != "black" => f.add(
                c,
                Some(&anchor),
                Some("rifle_mark:"),
                field("rifle_mark"),
                format!("{}: rifle mark '{mark}' is neither white nor black", u.id),
            ),
            ("rifle" | "musket-rifle", None) => f.add(
                c,
                Some(&anchor),
                None,
                field("rifle_mark"),
                format!("{}: a {} unit needs its rifle mark, white or black (series 3.2)", u.id, u.kind),
            ),
            _ => {}
        }
        if u.steps == Some(2) && u.strength.is_some_and(|s| s.reduced.is_none()) {
            f.add(
                c,
                Some(&anchor),
                Some("strength:"),
                field("strength.reduced"),
                format!("{}: a two-step unit needs its reduced strength", u.id),
            );
        }
    }
    // Savannah 4.13: the units that cooperate and the army credited must
    // exist, or the credit would silently never apply.
    for (n, credit) in facts.close_combat.cooperation_credit.iter().enumerate() {
        for unit in credit.units.iter().filter(|u| !seen.contains(u.as_str())) {
            f.add(
                "module.yaml",
                Some("cooperation_credit:"),
                None,
                format!("close_combat.cooperation_credit[{n}].units"),
                format!("no counter '{}' in counters.yaml ({})", crate::base::error::echo(unit), credit.rule),
            );
        }
        if !armies.contains(credit.credited_to.as_str()) {
            let known: Vec<&str> = armies.iter().copied().collect();
            f.add(
                "module.yaml",
                Some("cooperation_credit:"),
                None,
                format!("close_combat.cooperation_credit[{n}].credited_to"),
                format!(
                    "'{}' is not an army; the armies are {} ({})",
                    crate::base::error::echo(&credit.credited_to),
                    known.join(", "),
                    credit.rule
                ),
            );
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn check_hex(
    f: &mut Files,
    file: &str,
    anchor: &str,
    hex: &str,
    field: String,
    who: &str,
    map: &Map,
    prohibited: &BTreeSet<String>,
) -> Option<HexId> {
    match hex.parse::<HexId>() {
        Err(e) => f.add(file, Some(anchor), Some(hex), field, format!("{who}: '{hex}': {e}")),
        Ok(h) => match map.terrain.get(&h) {
            None => f.add(
                file,
                Some(anchor),
                Some(&quoted(hex)),
                field,
                format!("{who} is set up in {h}, which is not on the map"),
            ),
            Some(t) if prohibited.contains(t) => f.add(
                file,
                Some(anchor),
                Some(&quoted(hex)),
                field,
                format!("{who} is set up in {h}, which is {t}: prohibited terrain (charts/terrain.yaml)"),
            ),
            Some(_) => return Some(h),
        },
    }
    None
}

fn check_scenario(
    f: &mut Files,
    file: &str,
    s: &ScenarioFacts,
    facts: Option<&ModuleFacts>,
    counters: &[Counter],
    map: Option<&Map>,
) {
    let by_id: BTreeMap<&str, &Counter> = counters.iter().map(|c| (c.id.as_str(), c)).collect();
    let stem = file.trim_start_matches("scenarios/").trim_end_matches(".yaml");
    if s.id != stem {
        f.add(file, Some("id:"), None, "id", format!("the file is {file} but its id is '{}'", s.id));
    }
    let armies = match &s.units {
        super::counters::ScenarioUnits::WithAtStart { at_start } => at_start,
        super::counters::ScenarioUnits::ByArmy(by_army) => by_army,
    };
    let mut used: BTreeMap<&str, String> = BTreeMap::new();
    let unknown = |f: &mut Files, id: &str, field: String| {
        // The first three characters (not bytes: an id may be any UTF-8).
        let prefix = id.char_indices().nth(3).map_or(id, |(at, _)| &id[..at]);
        let near: Vec<&str> = by_id.keys().copied().filter(|k| k.starts_with(prefix)).take(5).collect();
        let hint = if near.is_empty() { String::new() } else { format!(" (did you mean {}?)", near.join(", ")) };
        f.add(file, None, Some(id), field, format!("no counter '{id}' in counters.yaml{hint}"));
    };
    for (army, ids) in armies {
        for (i, id) in ids.iter().enumerate() {
            let field = format!("units.{army}[{i}]");
            match by_id.get(id.as_str()) {
                None => unknown(f, id, field),
                Some(c) if &c.army != army => {
                    f.add(file, None, Some(id), field, format!("{id} is a {} counter, listed under {army}", c.army))
                }
                Some(_) => {}
            }
            if let Some(first) = used.insert(id.as_str(), format!("units.{army}")) {
                f.add(
                    file,
                    None,
                    Some(id),
                    format!("units.{army}[{i}]"),
                    format!("{id} is listed twice (also in {first})"),
                );
            }
        }
    }
    if let Some(not_used) = &s.not_used {
        for (i, id) in not_used.units.iter().enumerate() {
            if !by_id.contains_key(id.as_str()) {
                unknown(f, id, format!("not_used.units[{i}]"));
            }
            if used.contains_key(id.as_str()) {
                f.add(
                    file,
                    Some("not_used:"),
                    Some(id),
                    format!("not_used.units[{i}]"),
                    format!("{id} is both used and not used"),
                );
            }
        }
    }
    let prohibited = BTreeSet::new();
    let mut overridden = BTreeMap::new();
    if let Some(d) = &s.deployment {
        for (i, o) in d.overrides.iter().enumerate() {
            if !by_id.contains_key(o.unit.as_str()) {
                unknown(f, &o.unit, format!("deployment.overrides[{i}].unit"));
            }
            if let (Some(hex), Some(map)) = (&o.hex, map) {
                if let Some(h) = check_hex(
                    f,
                    file,
                    "deployment:",
                    hex,
                    format!("deployment.overrides[{i}].hex"),
                    &o.unit,
                    map,
                    &prohibited,
                ) {
                    overridden.insert(o.unit.as_str(), h);
                }
            }
            // The set-up step deploys it: a side chooses, in a step the
            // scenario's phases list (Savannah Hist. Set Up).
            if o.anywhere_in_zone.is_some() {
                let listed = s
                    .phases
                    .get("used")
                    .and_then(|v| v.as_sequence())
                    .is_some_and(|l| l.iter().any(|p| p.as_str() == Some("set-up")));
                if o.chosen_by.is_none() || !listed {
                    f.add(
                        file,
                        Some("deployment:"),
                        Some(&o.unit),
                        format!("deployment.overrides[{i}]"),
                        format!(
                            "{} may deploy anywhere in a zone: it needs `chosen_by` (the side that chooses) and \
                             the set-up step in `phases.used`",
                            o.unit
                        ),
                    );
                }
            }
            if let (Some(zone), Some(map)) = (&o.anywhere_in_zone, map) {
                if map.zone(zone).is_none() && map.place(zone).is_none() {
                    f.add(
                        file,
                        Some("deployment:"),
                        Some(zone),
                        format!("deployment.overrides[{i}].anywhere_in_zone"),
                        format!("'{zone}' is not a zone of map.yaml"),
                    );
                }
            }
        }
    }
    let arrivals = match &s.reinforcements {
        Some(Reinforcements::Schedule { schedule }) => schedule.as_slice(),
        Some(Reinforcements::List(list)) => list.as_slice(),
        None => &[],
    };
    let letters: BTreeSet<&str> = facts.iter().flat_map(|m| &m.entry_hexes).map(|e| e.letter.as_str()).collect();
    for (n, a) in arrivals.iter().enumerate() {
        if !letters.contains(a.entry.as_str()) {
            let known: Vec<&str> = letters.iter().copied().collect();
            f.add(
                file,
                Some("reinforcements:"),
                Some(&format!("entry: \"{}\"", a.entry)),
                format!("reinforcements.schedule[{n}].entry"),
                format!("turn {}: entry '{}' is not one of {}", a.turn, a.entry, known.join(", ")),
            );
        }
        for (i, id) in a.units.iter().enumerate() {
            let field = format!("reinforcements.schedule[{n}].units[{i}]");
            match by_id.get(id.as_str()) {
                None => unknown(f, id, field),
                Some(c) if c.army != a.army && !(a.entry == "F" && c.army == "american") => f.add(
                    file,
                    Some("reinforcements:"),
                    Some(id),
                    field,
                    format!("turn {}: {id} is a {} counter in a {} arrival", a.turn, c.army, a.army),
                ),
                Some(_) => {}
            }
            if let Some(first) = used.insert(id.as_str(), format!("turn {} reinforcements", a.turn)) {
                f.add(
                    file,
                    Some("reinforcements:"),
                    Some(id),
                    format!("reinforcements.schedule[{n}].units[{i}]"),
                    format!("{id} is placed twice (also in {first})"),
                );
            }
        }
    }
    // Series 7.1 at set-up: SPs and artillery per hex, per army.
    let (Some(stacking), Some(_)) = (facts.and_then(|m| m.stacking.as_ref()), map) else { return };
    let mut hexes: BTreeMap<(HexId, &str), (i32, i32, Vec<&str>)> = BTreeMap::new();
    let mut occupants: BTreeMap<HexId, Vec<&Counter>> = BTreeMap::new();
    for ids in armies.values() {
        for id in ids {
            let Some(c) = by_id.get(id.as_str()) else { continue };
            let hex =
                overridden.get(id.as_str()).copied().or_else(|| c.setup.as_ref().and_then(|s| s.hex.parse().ok()));
            let Some(hex) = hex else { continue };
            occupants.entry(hex).or_default().push(c);
            if c.is_leader() && !stacking.leaders_count {
                continue;
            }
            let entry = hexes.entry((hex, c.army.as_str())).or_default();
            if c.is_artillery() {
                entry.1 += 1;
            } else {
                entry.0 += c.strength.map(|s| s.full).unwrap_or(0);
            }
            entry.2.push(id.as_str());
        }
    }
    // Savannah 4.1: kinds of unit that may not end a Movement Phase together.
    for r in stacking.restrictions.iter().filter(|r| !r.may_end_movement_phase_stacked) {
        let exempt = |c: &Counter| r.exempt_units.contains(&c.id) || r.exempt_types.contains(&c.kind);
        for (hex, units) in &occupants {
            let a = units.iter().find(|c| !exempt(c) && r.between.a.matches(c));
            let b = units.iter().find(|c| !exempt(c) && r.between.b.matches(c));
            if let (Some(a), Some(b)) = (a, b) {
                let rule = r.rule.as_deref().unwrap_or("module.yaml stacking");
                f.add(
                    "counters.yaml",
                    Some(&format!("id: {}", b.id)),
                    Some(&quoted(&hex.to_string())),
                    format!("{}: set-up in {hex}", s.id),
                    format!("{} and {} are set up together in {hex}, which {} forbids ({rule})", a.id, b.id, r.id),
                );
            }
        }
    }
    for ((hex, army), (sps, guns, ids)) in hexes {
        if !stacking.holds(sps, guns) {
            f.add(
                "counters.yaml",
                Some(&format!("id: {}", ids[0])),
                Some(&quoted(&hex.to_string())),
                format!("{}: set-up in {hex}", s.id),
                format!(
                    "{army} overstacked at set-up in {hex}: {sps} SPs and {guns} artillery ({}); the limit is {} SPs and {} artillery (series 7.1)",
                    ids.join(", "),
                    stacking.max_strength_points,
                    stacking.max_artillery_units
                ),
            );
        }
    }
}
