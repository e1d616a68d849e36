//! Victory Determination at the end of each game turn (series 5 D, 16.3;
//! Savannah 2), read from the scenario's `victory.conditions`: automatic
//! victories (decisive, substantial), and on the scenario's last turn the VP
//! margins with the victory hex (Savannah 2.8) scored first.
//!
//! Conditions are checked from the highest level down (decisive,
//! substantial, marginal); the first that holds ends the game. A condition
//! with `check: end-of-<player>-player-turn` is checked instead at the end of
//! that player's player turn ([`end_of_player_turn`]): the British Surrender
//! Die Roll of Savannah 2.1 Case A, whose die, DRM values and outcome bands
//! are charts/surrender.yaml's.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use crate::base::dice::Die;
use crate::base::error::{Error, Result};
use crate::base::hex::{neighbours, HexId};
use crate::base::hexmap::Region;
use crate::system::{Dice, Event, GameResult};
use crate::systems::gboar::board::state::Resolution;
use crate::systems::gboar::board::state::{Condition, OffMap, State, UnitState};
use crate::systems::gboar::board::Rules;
use crate::systems::gboar::data::charts::{self, Drm};

#[derive(Debug, Clone, Deserialize)]
struct ScenarioVictory {
    victory: Victory,
}

/// The same, for a scenario that may have no victory conditions.
#[derive(Debug, Clone, Deserialize)]
struct MaybeVictory {
    #[serde(default)]
    victory: Option<Victory>,
}

#[derive(Debug, Clone, Deserialize)]
struct Victory {
    conditions: Vec<VictoryCondition>,
}

#[derive(Debug, Clone, Deserialize)]
struct VictoryCondition {
    id: String,
    winner: String,
    level: String,
    check: String,
    test: Test,
    #[serde(default)]
    rule: Option<String>,
}

/// Who a test counts: units of an alliance, combat units only, in Parade Order.
#[derive(Debug, Clone, Default, Deserialize)]
struct By {
    alliance: String,
    #[serde(default)]
    combat_unit: bool,
    #[serde(default)]
    parade_order: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
enum Test {
    /// A unit of `by` is in a hex of the zone.
    EntersZone {
        zone: String,
        by: By,
    },
    /// Series 16.3: an army at the Demoralized level of the track.
    Demoralized {
        armies: Vec<String>,
        #[serde(default)]
        any: bool,
    },
    /// The alliance leads by at least this many half VPs.
    VpMargin {
        in_favour_of: String,
        min_halves: i32,
    },
    /// The alliance leads by fewer than this many half VPs (or trails).
    VpMarginBelow {
        in_favour_of: String,
        below_halves: i32,
    },
    LeaderEliminated {
        leader: String,
    },
    /// Strength points of an alliance's units lost to elimination and step losses.
    StrengthPointsEliminated {
        losses_of: String,
        total: i32,
        #[serde(default)]
        colour_groups: Vec<String>,
        #[serde(default)]
        exclude_types: Vec<String>,
        #[serde(default)]
        at_least: Option<AtLeast>,
    },
    All {
        of: Vec<Test>,
    },
    /// Savannah 2.1 Case A: the Surrender Die Roll, at the end of a player
    /// turn (`check: end-of-<player>-player-turn`).
    SurrenderRoll(SurrenderTest),
}

/// Savannah 2.1 Case A: what triggers the Surrender Die Roll and whose army
/// and leader its DRMs look at. The die, every DRM value and the outcome
/// bands are the chart's (charts/surrender.yaml), never the scenario's.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct SurrenderTest {
    /// The chart: the `id` of charts/surrender.yaml's `surrender_roll`.
    chart: String,
    /// The roll is due when a hex of this zone (or place) is occupied by a
    /// unit of `by`; the `city-hex-occupied` DRM counts those hexes.
    zone: String,
    by: By,
    /// The player who rolls and may surrender.
    rolled_by: String,
    /// The army whose morale level the `army-<level>` DRMs read.
    army: String,
    /// The leader of the `leader-casualty` DRM.
    #[serde(default)]
    leader: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
struct AtLeast {
    total: i32,
    #[serde(default)]
    colour_groups: Vec<String>,
    #[serde(default)]
    exclude_types: Vec<String>,
}

const LEVELS: [&str; 3] = ["decisive", "substantial", "marginal"];

struct Judge<'a> {
    rules: &'a Rules,
    state: &'a State,
}

impl Judge<'_> {
    fn hex(&self, id: &str) -> Option<HexId> {
        self.state.units.get(id).and_then(|u| u.hex)
    }

    /// A zone of the map, or a place.
    fn region(&self, zone: &str) -> Result<&Region> {
        let map = &self.rules.module.map;
        map.zone(zone)
            .or_else(|| map.place(zone))
            .ok_or_else(|| Error::refused(format!("victory: no zone {zone} on the map")))
    }

    /// The hexes of `region` that units of `by` are in, with those units.
    fn occupied(&self, region: &Region, by: &By) -> BTreeMap<HexId, Vec<String>> {
        let mut hexes: BTreeMap<HexId, Vec<String>> = BTreeMap::new();
        // Each unit with its state in hand (`counts_unit`), not looked up
        // again by id; and only a unit in the region asked whose it is
        // (most are elsewhere, and whose a unit is is the costly question).
        // The region's hexes as a bit per hex (a zone may list many).
        let mut inside = crate::base::hex::HexBits::new();
        region.hexes.iter().for_each(|h| inside.insert(*h));
        for (id, u) in self.state.units.iter() {
            if let Some(h) = u.hex.filter(|h| inside.contains(*h)) {
                if self.counts_unit(id, u, by) {
                    hexes.entry(h).or_default().push(id.clone());
                }
            }
        }
        hexes
    }

    fn in_alliance(&self, id: &str, alliance: &str) -> bool {
        self.rules.player_of_unit(id) == Some(alliance)
    }

    /// Whether unit `id` (its state `u` in hand) is one of `by`'s units
    /// on the map.
    fn counts_unit(&self, id: &str, u: &UnitState, by: &By) -> bool {
        let Some(c) = self.rules.counter(id) else { return false };
        self.in_alliance(id, &by.alliance)
            && (!by.combat_unit || !c.is_leader())
            && (!by.parade_order || u.condition == Condition::ParadeOrder)
            && u.hex.is_some()
    }

    /// Series 16.3: an army whose morale is on a level that ends the game.
    fn demoralized(&self, army: &str) -> bool {
        let value = self.state.army_morale.get(army).copied().unwrap_or(0);
        self.rules.charts.army_morale.levels.iter().any(|l| l.ends_game && (l.range.min..=l.range.max).contains(&value))
    }

    /// Half VPs of an alliance: the sum of its armies (Savannah 2.9, 2.10).
    fn vp_halves(&self, alliance: &str, extra: &BTreeMap<String, i32>) -> i32 {
        self.rules
            .sequence
            .data
            .alliances
            .iter()
            .filter(|a| a.id == alliance)
            .flat_map(|a| &a.armies)
            .map(|army| self.state.vp_halves.get(army).copied().unwrap_or(0) + extra.get(army).copied().unwrap_or(0))
            .sum()
    }

    fn other(&self, alliance: &str) -> Option<String> {
        self.rules.sequence.data.alliances.iter().find(|a| a.id != alliance).map(|a| a.id.clone())
    }

    fn sp_lost(&self, alliance: &str, groups: &[String], exclude: &[String]) -> i32 {
        self.state
            .units
            .iter()
            .filter(|(id, _)| self.in_alliance(id, alliance))
            .filter_map(|(id, u)| self.rules.counter(id).map(|c| (c, u)))
            .filter(|(c, _)| groups.is_empty() || c.colour_group.as_ref().is_some_and(|g| groups.contains(g)))
            .filter(|(c, _)| !exclude.contains(&c.kind) && !c.is_leader())
            .map(|(c, u)| {
                let Some(s) = c.strength else { return 0 };
                // A step loss eliminates the SPs between full and reduced
                // strength, and they stay eliminated when the reduced unit
                // is captured later (a capture eliminates none, and gives
                // back none: docs/rules-readings.md).
                match u.off_map {
                    Some(OffMap::Eliminated) => s.full,
                    _ if u.steps < c.steps.unwrap_or(1) => s.full - s.reduced.unwrap_or(s.full),
                    _ => 0,
                }
            })
            .sum()
    }

    fn holds(&self, test: &Test, extra: &BTreeMap<String, i32>) -> Result<bool> {
        Ok(match test {
            Test::EntersZone { zone, by } => !self.occupied(self.region(zone)?, by).is_empty(),
            Test::Demoralized { armies, any } => {
                if *any {
                    armies.iter().any(|a| self.demoralized(a))
                } else {
                    armies.iter().all(|a| self.demoralized(a))
                }
            }
            Test::VpMargin { in_favour_of, min_halves } => {
                let other = self.other(in_favour_of).unwrap_or_default();
                self.vp_halves(in_favour_of, extra) - self.vp_halves(&other, extra) >= *min_halves
            }
            Test::VpMarginBelow { in_favour_of, below_halves } => {
                let other = self.other(in_favour_of).unwrap_or_default();
                self.vp_halves(in_favour_of, extra) - self.vp_halves(&other, extra) < *below_halves
            }
            Test::LeaderEliminated { leader } => {
                self.state.units.get(leader).is_some_and(|u| u.off_map == Some(OffMap::Eliminated))
            }
            Test::StrengthPointsEliminated { losses_of, total, colour_groups, exclude_types, at_least } => {
                self.sp_lost(losses_of, colour_groups, exclude_types) >= *total
                    && at_least
                        .as_ref()
                        .is_none_or(|a| self.sp_lost(losses_of, &a.colour_groups, &a.exclude_types) >= a.total)
            }
            Test::All { of } => {
                for t in of {
                    if !self.holds(t, extra)? {
                        return Ok(false);
                    }
                }
                true
            }
            Test::SurrenderRoll(_) => {
                return Err(Error::refused(
                    "victory: a surrender-roll test is rolled at the end of a player turn; give its condition \
                     check: end-of-<player>-player-turn",
                ));
            }
        })
    }

    /// Savannah 2.8: a victory hex's VPs go to the army of the Parade Order
    /// combat units occupying it, if no Parade Order enemy combat unit is
    /// adjacent.
    fn hex_control(&self, events: &mut Vec<Event>) -> BTreeMap<String, i32> {
        let mut extra = BTreeMap::new();
        for entry in &self.rules.charts.victory_points.victory_points.entries {
            let (Some(hex), Some(halves), Some("end-of-game")) = (&entry.hex, entry.halves, entry.when.as_deref())
            else {
                continue;
            };
            let Ok(hex) = hex.parse::<HexId>() else { continue };
            let parade = |id: &String| {
                self.rules.counter(id).is_some_and(|c| !c.is_leader())
                    && self.state.units.get(id).is_some_and(|u| u.condition == Condition::ParadeOrder)
            };
            let holders: BTreeSet<String> = self
                .state
                .units
                .keys()
                .filter(|id| self.hex(id) == Some(hex) && parade(id))
                .filter_map(|id| self.rules.army_of(id).map(String::from))
                .collect();
            let Some(army) = holders.iter().next() else { continue };
            let side_of =
                |army: &str| self.rules.sequence.data.armies.iter().find(|a| a.id == army).map(|a| a.side.clone());
            if !entry.sides.is_empty() && !side_of(army).is_some_and(|s| entry.sides.contains(&s)) {
                continue;
            }
            let player = self.rules.player_of_army(army).unwrap_or_default().to_string();
            let around: BTreeSet<HexId> = neighbours(hex, self.rules.module.map.layout).into_iter().collect();
            let contested = self.state.units.keys().any(|id| {
                parade(id) && self.hex(id).is_some_and(|h| around.contains(&h)) && !self.in_alliance(id, &player)
            });
            if contested {
                events.push(
                    Event::new(
                        "Savannah 2.8",
                        "hex-contested",
                        format!("{hex} is held by {army} but a Parade Order enemy unit is adjacent: no VPs"),
                    )
                    .with("hex", hex.to_string()),
                );
                continue;
            }
            *extra.entry(army.clone()).or_default() += halves;
            events.push(
                Event::new(
                    "Savannah 2.8",
                    "hex-controlled",
                    format!("{army} controls {hex} at the end of the game: {halves} half VPs"),
                )
                .with("hex", hex.to_string())
                .with("army", army)
                .with("halves", halves),
            );
        }
        extra
    }
}

/// The rule the Surrender Die Roll's events cite.
const SURRENDER_RULE: &str = "Savannah 2.1";

/// The player a `check: end-of-<player>-player-turn` names.
fn player_turn_check(check: &str) -> Option<&str> {
    check.strip_prefix("end-of-")?.strip_suffix("-player-turn").filter(|p| !p.is_empty())
}

/// A surrender DRM's value: fixed, or by game turn (Savannah 4.14-style schedule).
fn drm_value(d: &Drm, turn: u32) -> Result<i32> {
    if let Some(v) = d.value {
        return Ok(v);
    }
    if let Some(schedule) = &d.schedule {
        let turn = i32::try_from(turn).unwrap_or(i32::MAX);
        return Ok(schedule.iter().find(|s| s.turns.contains(turn)).map(|s| s.value).unwrap_or(0));
    }
    Err(Error::refused(format!(
        "{}: surrender DRM '{}' takes its value from elsewhere; the Surrender Die Roll's DRMs have a value",
        charts::SURRENDER,
        d.id
    )))
}

/// "a Parade Order allies combat unit", as a test's `by` counts units.
fn describe(by: &By) -> String {
    format!(
        "a{} {} {}",
        if by.parade_order { " Parade Order" } else { "n" },
        by.alliance,
        if by.combat_unit { "combat unit" } else { "unit" }
    )
}

impl Judge<'_> {
    /// Savannah 2.1 Case A, the Surrender Die Roll: due when a hex of the
    /// test's zone is occupied by a unit of its `by` (intact or destroyed
    /// hexes alike; enemy ZOCs have no effect, so none is looked at). The
    /// chart gives the die, the DRM values and the outcome bands. Events say
    /// which hexes and units triggered it, every DRM that applied and why,
    /// the roll, the modified roll and the result. Returns whether the
    /// rolling player surrenders.
    fn surrender_roll(
        &self,
        c: &VictoryCondition,
        t: &SurrenderTest,
        player: &str,
        dice: &mut dyn Dice,
        events: &mut Vec<Event>,
    ) -> Result<bool> {
        let file = charts::SURRENDER;
        let chart = &self.rules.charts.surrender;
        let table = &chart.surrender_roll;
        if table.id != t.chart {
            return Err(Error::refused(format!(
                "victory condition {}: chart '{}' is not the surrender roll of {file} ('{}')",
                c.id, t.chart, table.id
            )));
        }
        if !table.scenarios.is_empty() && !table.scenarios.contains(&self.state.scenario) {
            return Err(Error::refused(format!(
                "victory condition {}: {file} is for scenarios {}, not {}",
                c.id,
                table.scenarios.join(", "),
                self.state.scenario
            )));
        }
        if self.rules.sequence.data.alliances.iter().all(|a| a.id != t.rolled_by) {
            return Err(Error::refused(format!("victory condition {}: rolled_by {} is no player", c.id, t.rolled_by)));
        }
        let region = self.region(&t.zone)?;
        // Every hex of the zone counts, intact or destroyed (2.1:
        // "Occupied spaces can be either intact or destroyed").
        let occupied = self.occupied(region, &t.by);
        let turn = self.state.turn;
        if occupied.is_empty() {
            events.push(
                Event::new(
                    SURRENDER_RULE,
                    "no-surrender-roll",
                    format!(
                        "end of the {player} player turn {turn}: no hex of {} is occupied by {}, no surrender roll",
                        region.name,
                        describe(&t.by)
                    ),
                )
                .with("condition", &c.id)
                .with("zone", &region.id),
            );
            return Ok(false);
        }
        let hexes: Vec<String> = occupied.keys().map(|h| h.to_string()).collect();
        let units: BTreeMap<String, Vec<String>> = occupied.iter().map(|(h, u)| (h.to_string(), u.clone())).collect();
        let listing: Vec<String> = occupied.iter().map(|(h, u)| format!("{h} ({})", u.join(", "))).collect();
        events.push(
            Event::new(
                SURRENDER_RULE,
                "surrender-trigger",
                format!(
                    "end of the {player} player turn {turn}: {} of {} occupied by {}: {}; {} must roll to surrender",
                    if hexes.len() == 1 { "1 hex".to_string() } else { format!("{} hexes", hexes.len()) },
                    region.name,
                    describe(&t.by),
                    listing.join(", "),
                    t.rolled_by
                ),
            )
            .with("condition", &c.id)
            .with("zone", &region.id)
            .with("hexes", &hexes)
            .with("units", &units)
            .with("rolled_by", &t.rolled_by),
        );

        let sides = self.rules.sequence.sides_of(&t.rolled_by);
        let mut applied: Vec<(String, i32)> = Vec::new();
        let mut groups: BTreeSet<String> = BTreeSet::new();
        for d in &table.drms {
            if (!d.scenarios.is_empty() && !d.scenarios.contains(&self.state.scenario))
                || (!d.turns.is_empty() && !d.turns.contains(&turn))
                || (!d.sides.is_empty() && !d.sides.iter().any(|s| sides.contains(s)))
                || d.group.as_ref().is_some_and(|g| groups.contains(g))
            {
                continue;
            }
            let value = drm_value(d, turn)?;
            let found = match d.id.as_str() {
                // "-1 for each city hex that is occupied by the Allies, as
                // described above, at the time of the die roll".
                "city-hex-occupied" => {
                    if d.per.as_deref() != Some("city-hex") {
                        return Err(Error::refused(format!(
                            "{file}: surrender DRM city-hex-occupied counts per hex; write per: city-hex"
                        )));
                    }
                    let count = i32::try_from(occupied.len()).unwrap_or(i32::MAX);
                    let mut total = value.saturating_mul(count);
                    // `max`: the most the entry adds up to, in size.
                    if let Some(cap) = d.max {
                        if total.abs() > cap.abs() {
                            total = cap.abs() * total.signum();
                        }
                    }
                    let event = Event::new(
                        SURRENDER_RULE,
                        "surrender-drm",
                        format!("{value:+} for each of the {count} occupied hexes of {}: {total:+}", region.name),
                    )
                    .with("per", value)
                    .with("count", count)
                    .with("hexes", &hexes);
                    Some((total, event))
                }
                // "if Prevost is a casualty": the condition's leader is
                // captured or eliminated.
                "leader-casualty" => {
                    let leader = t.leader.as_deref().ok_or_else(|| {
                        Error::refused(format!(
                            "victory condition {}: {file} has the leader-casualty DRM; name the leader (leader: ...)",
                            c.id
                        ))
                    })?;
                    let counter = self.rules.counter(leader).filter(|l| l.is_leader()).ok_or_else(|| {
                        Error::refused(format!("victory condition {}: {leader} is not a leader of the module", c.id))
                    })?;
                    let off = self.state.units.get(leader).and_then(|u| u.off_map);
                    match off {
                        Some(how @ (OffMap::Captured | OffMap::Eliminated)) => {
                            let how = serde_json::to_value(how).ok().and_then(|v| v.as_str().map(String::from));
                            let how = how.unwrap_or_default();
                            let event = Event::new(
                                SURRENDER_RULE,
                                "surrender-drm",
                                format!("{} is a casualty ({how}): {value:+}", counter.name),
                            )
                            .with("leader", leader)
                            .with("off_map", how);
                            Some((value, event))
                        }
                        _ => None,
                    }
                }
                id => {
                    // "if British Army is Wavering", "Fatigued": army-<level>,
                    // a level of charts/army-morale.yaml.
                    let Some(level) = id.strip_prefix("army-") else {
                        return Err(Error::refused(format!(
                            "{file}: the engine does not know the surrender DRM '{id}' (it knows army-<level>, \
                             leader-casualty and city-hex-occupied)"
                        )));
                    };
                    let levels = &self.rules.charts.army_morale.levels;
                    if levels.iter().all(|l| l.id != level) {
                        return Err(Error::refused(format!(
                            "{file}: surrender DRM '{id}': '{level}' is not a level of {}",
                            charts::ARMY_MORALE
                        )));
                    }
                    let morale = self.state.army_morale.get(&t.army).copied().ok_or_else(|| {
                        Error::refused(format!("victory condition {}: army {} has no army morale", c.id, t.army))
                    })?;
                    let now =
                        levels.iter().find(|l| (l.range.min..=l.range.max).contains(&morale)).ok_or_else(|| {
                            Error::refused(format!("army morale {morale} of {} is on no level of the track", t.army))
                        })?;
                    (now.id == level).then(|| {
                        let event = Event::new(
                            SURRENDER_RULE,
                            "surrender-drm",
                            format!("the {} army is {} (army morale {morale}): {value:+}", t.army, now.name),
                        )
                        .with("army", &t.army)
                        .with("army_morale", morale)
                        .with("level", level);
                        (value, event)
                    })
                }
            };
            if let Some((total, event)) = found {
                events.push(event.with("condition", &c.id).with("drm", &d.id).with("value", total));
                applied.push((d.id.clone(), total));
                if let Some(g) = &d.group {
                    groups.insert(g.clone());
                }
            }
        }

        let die = match chart.die {
            charts::Die::D10 => Die::D10,
        };
        let purpose = format!("{SURRENDER_RULE} surrender die roll ({}), end of the {player} player turn {turn}", c.id);
        let roll = i32::from(dice.roll(die, &purpose)?);
        let drm: i32 = applied.iter().map(|(_, v)| v).sum();
        let modified = roll + drm;
        let outcome = table
            .outcomes
            .iter()
            .find(|o| o.min.is_none_or(|m| modified >= m) && o.max.is_none_or(|m| modified <= m))
            .ok_or_else(|| Error::refused(format!("{file}: no outcome for a modified roll of {modified}")))?;
        let surrendered = match outcome.result.as_str() {
            "surrender" => true,
            "no-surrender" => false,
            other => {
                return Err(Error::refused(format!(
                    "{file}: the engine does not know the surrender result '{other}' (surrender, no-surrender)"
                )))
            }
        };
        let said = table.results.iter().find(|r| r.id == outcome.result).map(|r| r.text.as_str()).unwrap_or("");
        let drms: BTreeMap<String, i32> = applied.into_iter().collect();
        events.push(
            Event::new(
                SURRENDER_RULE,
                "surrender-roll",
                format!("{} rolls {roll}, DRM {drm:+}, modified {modified}: {} ({said})", t.rolled_by, outcome.result),
            )
            .with("condition", &c.id)
            .with("rolled_by", &t.rolled_by)
            .with("roll", roll)
            .with("drms", &drms)
            .with("drm", drm)
            .with("modified", modified)
            .with("result", &outcome.result)
            .with("surrender", surrendered),
        );
        Ok(surrendered)
    }
}

/// A forfeit (DICE.md 7.4; docs/DICE.md A8 gives it to the game's rule):
/// the players of `sides` withheld a key or a committed orders file past
/// its deadline, and the game ends at its next step, unresolved. A
/// forfeiting side loses: every alliance (Savannah's player, 1.1) with a
/// forfeiting side loses, and the others win, at level `forfeit`; when
/// every alliance has a forfeiting side, nobody wins (`none`). Savannah
/// 2.10's individual winner is named as for any Allied victory, from the
/// VPs as they stand.
pub fn forfeit(rules: &Rules, state: &State, sides: &[String]) -> Result<(State, Vec<Event>)> {
    let mut next = state.clone();
    let mut events = Vec::new();
    let losers: Vec<&str> = rules
        .sequence
        .data
        .alliances
        .iter()
        .filter(|a| rules.sequence.sides_of(&a.id).iter().any(|s| sides.contains(s)))
        .map(|a| a.id.as_str())
        .collect();
    let winners: Vec<&str> =
        rules.sequence.data.alliances.iter().map(|a| a.id.as_str()).filter(|a| !losers.contains(a)).collect();
    let winner = if winners.is_empty() { "none".to_string() } else { winners.join("+") };
    events.push(
        Event::new(
            "DICE.md 7.4",
            "victory",
            format!(
                "{} forfeit{} the game ({}): {}",
                sides.join(", "),
                if sides.len() == 1 { "s" } else { "" },
                losers.join(", "),
                if winners.is_empty() { "nobody wins".to_string() } else { format!("{winner} forfeit victory") }
            ),
        )
        .with("winner", &winner)
        .with("level", "forfeit")
        .with("forfeiting_sides", sides)
        .with("losers", &losers),
    );
    let individual_winners =
        if winners.len() == 1 { individual_winners(rules, &winner, &next, &mut events)? } else { Vec::new() };
    next.next = None;
    next.result = Some(GameResult {
        winner,
        level: "forfeit".into(),
        condition: format!("forfeit by {}", sides.join(", ")),
        individual_winners,
    });
    Ok((next, events))
}

/// The victory event of a condition that holds, and the game's result,
/// with the individual winner where the module names one (Savannah 2.10).
fn declare(rules: &Rules, c: &VictoryCondition, next: &mut State, events: &mut Vec<Event>) -> Result<()> {
    let rule = c.rule.clone().unwrap_or_else(|| "Savannah 2".into());
    events.push(
        Event::new(&rule, "victory", format!("{} {} victory ({})", c.winner, c.level, c.id))
            .with("winner", &c.winner)
            .with("level", &c.level)
            .with("condition", &c.id),
    );
    let individual_winners = individual_winners(rules, &c.winner, next, events)?;
    next.result = Some(GameResult {
        winner: c.winner.clone(),
        level: c.level.clone(),
        condition: c.id.clone(),
        individual_winners,
    });
    Ok(())
}

/// Savannah 2.10: "If the Allies defeat the British, the individual winner
/// of the game is the Allied player with the highest Victory Point total at
/// the moment the game ends" (charts/victory-points.yaml
/// `individual_winner`). The totals are 2.9's, recorded per army, as they
/// stand when the game ends (on the last turn, with 2.8's Victory Hex).
/// Armies tied for the highest total are all named: the rules name no
/// tie-break (docs/rules-readings.md). None when another side wins.
fn individual_winners(rules: &Rules, winner: &str, next: &State, events: &mut Vec<Event>) -> Result<Vec<String>> {
    let Some(w) = &rules.charts.victory_points.individual_winner else { return Ok(Vec::new()) };
    let Some(alliance) = rules.sequence.data.alliances.iter().find(|a| a.id == w.alliance) else {
        return Err(Error::refused(format!(
            "charts/victory-points.yaml, individual_winner.alliance: '{}' is not a player of module.yaml (the \
             players are {})",
            w.alliance,
            rules.sequence.data.alliances.iter().map(|a| a.id.as_str()).collect::<Vec<_>>().join(", ")
        )));
    };
    if winner != alliance.id || alliance.armies.len() < 2 {
        return Ok(Vec::new());
    }
    let totals: Vec<(&String, i32)> =
        alliance.armies.iter().map(|a| (a, next.vp_halves.get(a).copied().unwrap_or(0))).collect();
    let best = totals.iter().map(|(_, h)| *h).max().unwrap_or(0);
    let winners: Vec<String> = totals.iter().filter(|(_, h)| *h == best).map(|(a, _)| (*a).clone()).collect();
    let shown: Vec<String> = totals.iter().map(|(a, h)| format!("{a} {}", halves_text(*h))).collect();
    let text = if winners.len() == 1 {
        format!("the individual winner is the {} player ({})", winners[0], shown.join(", "))
    } else {
        format!("no single individual winner: the {} players are tied ({})", winners.join(" and "), shown.join(", "))
    };
    let vps: BTreeMap<&String, i32> = totals.into_iter().collect();
    events.push(
        Event::new("Savannah 2.10", "individual-winner", text)
            .with("alliance", &alliance.id)
            .with("winners", &winners)
            .with("vp_halves", &vps),
    );
    Ok(winners)
}

/// Half VPs as the VP track reads them: `12 VPs`, `12½ VPs`, `½ VPs`.
fn halves_text(halves: i32) -> String {
    let sign = if halves < 0 { "-" } else { "" };
    let (whole, half) = (halves.unsigned_abs() / 2, halves.unsigned_abs() % 2 == 1);
    match (whole, half) {
        (0, true) => format!("{sign}½ VPs"),
        (w, true) => format!("{sign}{w}½ VPs"),
        (w, false) => format!("{sign}{w} VPs"),
    }
}

/// The scenario's victory conditions (none if it has no `victory`).
fn conditions(rules: &Rules, state: &State) -> Result<Vec<VictoryCondition>> {
    let file = format!("scenarios/{}.yaml", state.scenario);
    let scenario: MaybeVictory = rules.module.source.parse_cached(&file)?;
    let list = scenario.victory.map(|v| v.conditions).unwrap_or_default();
    for c in &list {
        if let Some(player) = player_turn_check(&c.check) {
            if rules.sequence.data.alliances.iter().all(|a| a.id != player) {
                return Err(Error::refused(format!(
                    "victory condition {}: check {} names no player (the players are {})",
                    c.id,
                    c.check,
                    rules.sequence.data.alliances.iter().map(|a| a.id.as_str()).collect::<Vec<_>>().join(", ")
                )));
            }
        }
    }
    Ok(list)
}

/// The players at the end of whose player turns some victory condition is
/// checked (`check: end-of-<player>-player-turn`).
pub fn player_turn_checks(rules: &Rules, state: &State) -> Result<BTreeSet<String>> {
    Ok(conditions(rules, state)?.iter().filter_map(|c| player_turn_check(&c.check).map(String::from)).collect())
}

/// The end of `player`'s player turn: the conditions checked then
/// (Savannah 2.1 Case A, the Surrender Die Roll), from the highest level
/// down; the first that holds ends the game. The state is the one after the
/// player turn's last phase; rolls come from that step's dice.
pub fn end_of_player_turn(rules: &Rules, state: &State, player: &str, dice: &mut dyn Dice) -> Result<Resolution> {
    let list = conditions(rules, state)?;
    let judge = Judge { rules, state };
    let mut next = state.clone();
    let mut events = Vec::new();
    for level in LEVELS {
        for c in list.iter().filter(|c| c.level == level && player_turn_check(&c.check) == Some(player)) {
            let won = match &c.test {
                Test::SurrenderRoll(t) => judge.surrender_roll(c, t, player, dice, &mut events)?,
                test => judge.holds(test, &BTreeMap::new())?,
            };
            if won {
                declare(rules, c, &mut next, &mut events)?;
                return Ok(Resolution { state: next, events });
            }
        }
    }
    Ok(Resolution { state: next, events })
}

/// The conditions a scenario checks `immediate`ly, after every step: the
/// first that this step made hold, from the highest level down, ends the
/// game there. An `enters-zone` test (the Historical Allied Decisive
/// Victory: "immediately if a Parade Order Allied combat unit enters a hex
/// in the City") holds when a unit it counts is in the zone after the step
/// and was not in it before (moved, advanced or retreated in); any other
/// (16.3's demoralization: "the game ends immediately") when it holds after
/// the step and did not before. `None` when none does.
pub fn immediate(rules: &Rules, before: &State, after: &State) -> Result<Option<Resolution>> {
    let list = conditions(rules, after)?;
    let was = Judge { rules, state: before };
    let now = Judge { rules, state: after };
    for level in LEVELS {
        for c in list.iter().filter(|c| c.level == level && c.check == "immediate") {
            let made = match &c.test {
                Test::EntersZone { zone, by } => {
                    let region = now.region(zone)?;
                    now.occupied(region, by)
                        .values()
                        .flatten()
                        .any(|id| was.hex(id).is_none_or(|h| !region.hexes.contains(&h)))
                }
                test => now.holds(test, &BTreeMap::new())? && !was.holds(test, &BTreeMap::new())?,
            };
            if made {
                let mut next = after.clone();
                let mut events = Vec::new();
                declare(rules, c, &mut next, &mut events)?;
                return Ok(Some(Resolution { state: next, events }));
            }
        }
    }
    Ok(None)
}

/// Series 5 D: check for automatic victory; on the last turn, determine a winner.
pub fn resolve(rules: &Rules, state: &State) -> Result<Resolution> {
    let file = format!("scenarios/{}.yaml", state.scenario);
    let (scenario, _): (ScenarioVictory, _) = rules.module.source.parse(&file)?;
    let judge = Judge { rules, state };
    let last_turn = rules.sequence.scenario.turns.last;
    let final_turn = state.turn >= last_turn;
    let mut events = Vec::new();
    let extra = if final_turn { judge.hex_control(&mut events) } else { BTreeMap::new() };
    let mut next = state.clone();
    for level in LEVELS {
        for c in scenario.victory.conditions.iter().filter(|c| c.level == level) {
            let applies = match c.check.as_str() {
                "immediate" | "end-of-turn" => true,
                "end-of-game" => final_turn,
                // Checked at the end of that player's player turn (Savannah 2.1
                // Case A), by `end_of_player_turn`, not here.
                check if player_turn_check(check).is_some() => false,
                other => {
                    return Err(Error::refused(format!(
                        "victory condition {}: check '{other}' is not one of immediate, end-of-turn, end-of-game, \
                         end-of-<player>-player-turn",
                        c.id
                    )));
                }
            };
            if applies && judge.holds(&c.test, &extra)? {
                for (army, halves) in &extra {
                    *next.vp_halves.entry(army.clone()).or_default() += halves;
                }
                declare(rules, c, &mut next, &mut events)?;
                return Ok(Resolution { state: next, events });
            }
        }
    }
    events.push(Event::new("5", "no-victory", format!("no side has won at the end of turn {}", state.turn)));
    Ok(Resolution { state: next, events })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::gboar::case::ScriptedDice;
    use crate::systems::gboar::data::Source;

    fn campaign() -> (Rules, State) {
        let rules = Rules::load(&Source::Embedded("savannah-1779".into()), "campaign").unwrap();
        let state = State::setup(&rules.module, "campaign").unwrap();
        (rules, state)
    }

    /// docs/DICE.md A8: a forfeiting side's alliance loses, the other wins
    /// at level `forfeit` (Savannah 2.10 names the individual winner of an
    /// Allied win); when both alliances forfeit, nobody wins. The game is
    /// over either way.
    #[test]
    fn a_forfeit_loses_the_game_for_the_alliance() {
        let (rules, mut state) = campaign();
        state.vp_halves.insert("american".into(), 3);
        state.vp_halves.insert("french".into(), 5);
        let (after, events) = forfeit(&rules, &state, &["british".to_string()]).unwrap();
        let result = after.result.clone().unwrap();
        assert_eq!((result.winner.as_str(), result.level.as_str()), ("allies", "forfeit"));
        assert_eq!(result.individual_winners, ["french"]);
        assert!(after.next.is_none(), "the game is over");
        assert_eq!(events[0].text, "british forfeits the game (british): allies forfeit victory");
        let (after, _) = forfeit(&rules, &state, &["american".to_string()]).unwrap();
        let result = after.result.unwrap();
        assert_eq!((result.winner.as_str(), result.individual_winners.len()), ("british", 0));
        let both = ["american".to_string(), "british".to_string()];
        let (after, events) = forfeit(&rules, &state, &both).unwrap();
        assert_eq!(after.result.unwrap().winner, "none");
        assert_eq!(events[0].text, "american, british forfeit the game (allies, british): nobody wins");
    }

    #[test]
    fn player_turn_checks_are_named_by_their_player() {
        assert_eq!(player_turn_check("end-of-british-player-turn"), Some("british"));
        assert_eq!(player_turn_check("end-of-turn"), None);
        assert_eq!(player_turn_check("end-of-game"), None);
        assert_eq!(player_turn_check("end-of--player-turn"), None);
    }

    /// The scenario names the chart; DRMs and bands in it are refused.
    #[test]
    fn a_surrender_test_takes_no_values_of_its_own() {
        let old = "{kind: surrender-roll, chart: surrender-roll, zone: city, by: {alliance: allies}, \
                   rolled_by: british, army: british, surrender_at_most: -1}";
        let e = crate::base::yaml::from_str::<Test>(old).unwrap_err().to_string();
        assert!(e.contains("surrender_at_most"), "{e}");
    }

    /// Savannah's campaign: the condition reads charts/surrender.yaml. A
    /// Parade Order French unit in a city hex with the British Wavering: the
    /// modified roll is the roll plus the chart's values, read by its bands.
    #[test]
    fn the_campaign_surrender_roll_reads_the_chart() {
        let (rules, mut state) = campaign();
        assert!(player_turn_checks(&rules, &state).unwrap().contains("british"));
        let french = rules
            .module
            .counters
            .iter()
            .find(|c| c.army == "french" && !c.is_leader())
            .map(|c| (c.id.clone(), c.steps.unwrap_or(1)))
            .unwrap();
        let city = rules.module.map.place("city-of-savannah").unwrap().hexes[0];
        // A set-up unit's state, moved: the state's other fields as at set-up.
        let mut unit = state.units.values().next().unwrap().clone();
        unit.hex = Some(city);
        unit.off_map = None;
        unit.steps = french.1;
        unit.condition = Condition::ParadeOrder;
        state.units.insert(french.0.clone(), unit);
        let wavering = rules.charts.army_morale.levels.iter().find(|l| l.id == "wavering").unwrap();
        state.army_morale.insert("british".into(), wavering.range.min);
        let table = &rules.charts.surrender.surrender_roll;
        let value = |id: &str| table.drms.iter().find(|d| d.id == id).and_then(|d| d.value).unwrap();
        let drm = value("army-wavering") + value("city-hex-occupied");
        let mut dice = ScriptedDice::new(vec![0]);
        let done = end_of_player_turn(&rules, &state, "british", &mut dice).unwrap();
        assert!(dice.unused().is_empty());
        let roll = done.events.iter().find(|e| e.kind == "surrender-roll").unwrap();
        assert_eq!(roll.fields["drm"], serde_json::json!(drm));
        assert_eq!(roll.fields["modified"], serde_json::json!(drm));
        let band =
            table.outcomes.iter().find(|o| o.min.is_none_or(|m| drm >= m) && o.max.is_none_or(|m| drm <= m)).unwrap();
        assert_eq!(roll.fields["result"], serde_json::json!(band.result));
        let trigger = &done.events[0];
        assert_eq!(trigger.kind, "surrender-trigger");
        assert_eq!(trigger.fields["hexes"], serde_json::json!([city]));
        assert_eq!(done.state.result.is_some(), band.result == "surrender");
    }

    /// Victory Determination leaves the surrender condition to the end of
    /// the British player turn: no roll, and nothing said "not checked".
    #[test]
    fn victory_determination_does_not_roll_for_surrender() {
        let (rules, state) = campaign();
        let done = resolve(&rules, &state).unwrap();
        assert_eq!(done.events.iter().map(|e| e.kind.as_str()).collect::<Vec<_>>(), ["no-victory"]);
    }
}
