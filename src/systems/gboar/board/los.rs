//! Line of sight for artillery fire (series 11.4: 11.41 to 11.44), on top
//! of the exact geometry of [`crate::base::hex`]: [`line_between`] (the hexes and
//! hex spines the centre-to-centre line passes through), [`entering_hexside`]
//! (the side(s) through which it enters a hex) and [`hexsides_crossed`].
//! Everything that is terrain comes from the module: which hexes block from
//! the Terrain Effects Chart (`charts/terrain.yaml hexes[].blocks_los`, with
//! `areas[].overrides.blocks_los`), which hexsides are slopes from the same
//! chart (`hexsides[].los: slope`), and the up hex of each slope from
//! map.yaml (the hex written first).
//!
//! [`line_of_sight`] answers one question, "can the unit in `from` see the
//! unit in `to`?", with a [`Sight`]: clear or not, the rule that decided,
//! and what blocks, in words for the report and as an [`Obstacle`].
//!
//! # The procedure
//!
//! 1. Adjacent hexes: always clear (11.41). The same hex: clear (range 0).
//! 2. Each unit is *up slope* or not (11.43): it is if the line, traced from
//!    the other unit, enters its hex across a slope hexside whose up hex is
//!    its hex.
//! 3. Both up slope: clear, whatever lies between (11.43 C).
//! 4. Otherwise, walking the line from `from` to `to`, the first of these
//!    blocks it:
//!    - a hex it passes through that is blocking terrain or holds combat
//!      units (11.42, 11.43 A and B);
//!    - a hex spine it runs along whose two hexes both block (11.44);
//!    - neither up slope (11.43 A): a slope hexside crossed that is not one
//!      of the six sides of the firing or target hex;
//!    - one up slope (11.43 B): such a slope hexside whose up-slope
//!      orientation differs from that of the up-slope unit's slope; and if
//!      the other unit's hex has a slope hexside on the line too and the
//!      range is 3 or more, that slope's orientation differing, or any such
//!      hexside crossed that is not a slope of that orientation.
//!
//! # Readings of the rules
//!
//! Where 11.4 leaves a question open, this is the answer chosen.
//!
//! - **Combat units** (11.42, 3.2): every counter on the map that is not a
//!   leader, of either side, the firer's own side included. A hex holding
//!   only leaders does not block. The firing and target hexes themselves
//!   never block, whatever they hold or are ("LOS can always be traced into
//!   blocking terrain").
//! - **Blocking terrain** (11.42) is the chart's `blocks_los` of the hex's
//!   terrain; a TEC area (`areas`, e.g. Savannah 4.19) that sets
//!   `overrides.blocks_los` replaces it for its hexes, a later area over an
//!   earlier one, as movement reads the areas. A terrain id the chart lacks
//!   does not block (`check-game` refuses such a module anyway).
//! - **Passing through** a hex means crossing its interior; a hex whose
//!   corner the line only touches is not passed through ([`line_between`]).
//! - **Slope hexsides** (11.41: slope and slope/run alike): a hexside
//!   feature whose chart entry says `los: slope`, after 9.4's combination:
//!   a combined type (`combines`, e.g. slope-creek) replaces its parts, so
//!   it is a slope exactly when its own entry says `los: slope`. Its up hex
//!   is the hex written first in map.yaml, for a combined type the first
//!   hex written for it or, failing that, for its directional part (as
//!   [`crate::systems::gboar::board::terrain::Terrain`] finds the owner). A slope the map gives
//!   no up hex is still a slope for 11.43 A, but makes no one up slope and
//!   has no orientation.
//! - **Crossing a hexside**: the line passes from one of its two hexes into
//!   the other, across its inside or exactly through one of its ends (a
//!   [`Crossing`] `at_corner`: the line still goes from one hex into the
//!   other, so from the low ground to the high). A hexside the line runs
//!   exactly along (a hex spine) is not crossed: along a spine only 11.44
//!   applies, and a slope there blocks nothing.
//! - **"Part of the firing or target unit's hexes"** (11.43 A, B): one of
//!   the six sides of either hex. On a line these are the first and the
//!   last hexside crossed; every other one is *intervening*.
//! - **Up slope through a corner** (11.43): when the target lies on one of
//!   the six spine lines of the firing hex (2, 4, ... hexes away), the line
//!   arrives along a spine and enters the hex exactly at a corner, crossing
//!   neither of the two sides that meet there. By analogy with 11.44 (a
//!   line along a hexside takes the terrain only when both sides agree),
//!   the unit is up slope only if both sides are slope hexsides with its
//!   hex up. Such a line crosses no hexside at all, so 11.43 A and B find
//!   no slope on it.
//! - **Orientation** of a slope hexside (11.43 B): its up-slope direction
//!   is the direction, one of the six of [`Direction`], from its low hex to
//!   its up hex. The up-slope unit's slope is the one the line enters its
//!   hex through. Two slopes have "the same orientation" when their
//!   up-slope directions are equal or 60 degrees apart (neighbours in the
//!   ring of six). On one line that is exactly "crossed going up when
//!   travelling towards the up-slope unit": a line crosses hexsides of at
//!   most two neighbouring directions, so a slope rising towards the
//!   up-slope unit faces within 60 degrees of that unit's own, and one
//!   rising towards the other unit (a ridge between them) faces 120 or 180
//!   degrees away and blocks. Equal directions only would be the stricter
//!   reading, but on every range-3 line other than the six straight ones
//!   the middle hexside crossed faces 60 degrees off the first and the last
//!   (see [`hexsides_crossed`]), so a hill rising steadily to the gun, and
//!   every staircase of the range-3 sentence, would block there and not on
//!   a straight line: an artefact of the grid, not of the ground.
//! - **"Both the firing and target units have slope hexsides"** (11.43 B):
//!   the hexside the line crosses at the other (not up-slope) unit's hex is
//!   a slope too; slopes on the other sides of the two hexes are off the
//!   line and do not count. That unit is then on the slope's low side (were
//!   it on the high side it would be up slope: case C). The sentence then
//!   asks for a staircase: every intervening hexside crossed is a slope of
//!   the same orientation as the two at the ends, and a hexside that is not
//!   a slope blocks. (The two at the ends always agree: both rise towards
//!   the up-slope unit. The code checks it all the same.) The rule says
//!   "range is 3 hexes", the longest artillery range of the
//!   series; at range 2 no hexside is intervening, and at a longer range (an
//!   exclusive rule's exception) the same requirement holds for every
//!   intervening hexside.
//! - **Hex spines** (11.44): a spine blocks only if both of its hexes block,
//!   each by terrain or by combat units (one of each is enough). A spine
//!   next to the firing or target hex is no different: those two hexes are
//!   never one of a spine's own two hexes. A spine along the outer rim of
//!   the id grid, with no hex beyond, never blocks.
//! - **Case C** ignores everything: blocking hexes, spines and slopes.
//! - A firing or target hex that is not on the map has no line of sight.
//!
//! Every reading above is symmetric, as the geometry is, so the line from
//! `a` to `b` is clear exactly when the line from `b` to `a` is: who fires
//! never matters, only where the two units stand.

use crate::base::hex::{
    are_adjacent, direction_between, distance, entering_hexside, hexsides_crossed, line_between, Crossing, Direction,
    Entry, HexId, Hexside, Layout, LineStep,
};
use crate::systems::gboar::board::state::State;
use crate::systems::gboar::board::Rules;
use crate::systems::gboar::data::charts::{HexsideFeature, HexsideLos};

/// Whether a line of sight is clear, and why (series 11.4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sight {
    pub clear: bool,
    /// The rule that decided: `11.41`, `11.42`, `11.43 A`, `11.43 B`,
    /// `11.43 C` or `11.44`.
    pub rule: String,
    /// In words, for the report: the rule and what blocks, or why nothing does.
    pub reason: String,
    /// 11.43: the firing unit is up slope to the target.
    pub firer_up_slope: bool,
    /// 11.43: the target is up slope to the firing unit.
    pub target_up_slope: bool,
    /// What blocks the line, when it is blocked.
    pub obstacle: Option<Obstacle>,
}

/// What blocks a line of sight.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Obstacle {
    /// The firing or target hex is not on the map.
    OffMap(HexId),
    /// 11.42: the line passes through blocking terrain.
    Terrain { hex: HexId, name: String },
    /// 11.42: the line passes through a hex holding combat units.
    Units { hex: HexId, units: Vec<String> },
    /// 11.44: the line runs along the hexside between two hexes that both
    /// block (lower id first).
    Spine { a: HexId, b: HexId },
    /// 11.43 A, B: a slope hexside crossed, or (11.43 B, the range-3
    /// sentence) a hexside crossed that should have been a slope.
    Slope { side: Hexside },
}

/// Whether the unit in `from` can see the unit in `to` (series 11.41 to
/// 11.44; the readings are in the module documentation).
pub fn line_of_sight(rules: &Rules, state: &State, from: HexId, to: HexId) -> Sight {
    let map = &rules.module.map;
    let layout = map.layout;
    let verdict = |clear: bool, rule: &str, reason: String, obstacle: Option<Obstacle>| Sight {
        clear,
        rule: rule.to_string(),
        reason,
        firer_up_slope: false,
        target_up_slope: false,
        obstacle,
    };
    for hex in [from, to] {
        if !map.contains(hex) {
            return verdict(
                false,
                "11.41",
                format!("11.41: {hex} is not on the map, so no line of sight can be traced from {from} to {to}"),
                Some(Obstacle::OffMap(hex)),
            );
        }
    }
    if from == to {
        return verdict(true, "11.41", format!("11.41: {from} and {to} are the same hex"), None);
    }
    if are_adjacent(from, to, layout) {
        return verdict(
            true,
            "11.41",
            format!("11.41: {from} and {to} are adjacent: line of sight is always clear"),
            None,
        );
    }
    let view = View::new(rules, state);
    // 11.43: each end's slope, as the line from the other end enters it.
    let firer_end = view.end(from, entering_hexside(to, from, layout));
    let target_end = view.end(to, entering_hexside(from, to, layout));
    let sight = |clear: bool, rule: &str, reason: String, obstacle: Option<Obstacle>| Sight {
        firer_up_slope: firer_end.up_slope,
        target_up_slope: target_end.up_slope,
        ..verdict(clear, rule, reason, obstacle)
    };
    if firer_end.up_slope && target_end.up_slope {
        return sight(
            true,
            "11.43 C",
            format!(
                "11.43 C: both units are up slope ({from} across {}, {to} across {}): line of sight is \
                 always clear, blocking terrain ignored",
                firer_end.sides_text(),
                target_end.sides_text()
            ),
            None,
        );
    }
    // 11.43 B: the up-slope unit and the other one.
    let up = if firer_end.up_slope {
        Some((&firer_end, &target_end))
    } else if target_end.up_slope {
        Some((&target_end, &firer_end))
    } else {
        None
    };
    let (case, preamble) = match up {
        None => ("11.43 A", "11.43 A: neither unit is up slope".to_string()),
        Some((u, _)) => (
            "11.43 B",
            format!(
                "11.43 B: {} is up slope (across {}, up-slope direction {})",
                u.hex,
                u.sides_text(),
                directions_text(&u.orientations)
            ),
        ),
    };
    // The range-3 sentence of 11.43 B: a staircase is required.
    let staircase = match up {
        Some((u, other)) if other.has_slope && distance(from, to, layout) >= 3 => Some((u, other)),
        _ => None,
    };
    let steps = line_between(from, to, layout);
    let crossings = hexsides_crossed(from, to, layout);
    let into = |hex: HexId| crossings.iter().find(|c| c.to == hex);
    let end_of = |c: &Crossing| c.side.contains(from) || c.side.contains(to);
    // One crossing, in case A or B.
    let check_crossing = |c: &Crossing| -> Option<(String, String, Obstacle)> {
        let slope = view.slope(c.side);
        let obstacle = Obstacle::Slope { side: c.side };
        if end_of(c) {
            // A side of the firing or target hex: only the staircase looks at it.
            let (u, other) = staircase?;
            if !c.side.contains(other.hex) {
                return None;
            }
            let same = slope.and_then(|s| s.orientation(c.side, layout)).is_some_and(|d| u.faces_as(d));
            if same {
                return None;
            }
            return Some((
                case.to_string(),
                format!(
                    "{preamble}; both units' hexes have slope hexsides on the line at range {}, and the slope \
                     {} at {} does not face the same way (up-slope direction {})",
                    distance(from, to, layout),
                    c.side,
                    other.hex,
                    slope.and_then(|s| s.orientation(c.side, layout)).map_or("unknown".to_string(), |d| d.to_string())
                ),
                obstacle,
            ));
        }
        match (up, slope) {
            (None, Some(_)) => Some((
                case.to_string(),
                format!(
                    "{preamble}, and the line crosses the slope hexside {}, which is not a side of {from} or {to}",
                    c.side
                ),
                obstacle,
            )),
            (None, None) => None,
            (Some((u, _)), Some(s)) => {
                let d = s.orientation(c.side, layout);
                if d.is_some_and(|d| u.faces_as(d)) {
                    return None;
                }
                Some((
                    case.to_string(),
                    format!(
                        "{preamble}, and the line crosses the slope hexside {} whose up-slope direction is {}, \
                         not the same orientation",
                        c.side,
                        d.map_or("unknown".to_string(), |d| d.to_string())
                    ),
                    obstacle,
                ))
            }
            (Some(_), None) => staircase.map(|(_, other)| {
                (
                    case.to_string(),
                    format!(
                        "{preamble}; {} has a slope hexside on the line too and the range is {}, so the \
                         intervening hexside {} must be a slope facing the same way, and it is not a slope",
                        other.hex,
                        distance(from, to, layout),
                        c.side
                    ),
                    obstacle,
                )
            }),
        }
    };
    // Walk the line in order: each hexside crossed, then the hex entered.
    let mut walk: Vec<Result<&Crossing, LineStep>> = Vec::new();
    for step in &steps {
        if let LineStep::Hex(h) = step {
            if let Some(c) = into(*h) {
                walk.push(Ok(c));
            }
        }
        walk.push(Err(*step));
    }
    if let Some(c) = into(to) {
        walk.push(Ok(c));
    }
    for item in walk {
        let found = match item {
            Ok(c) => check_crossing(c),
            Err(LineStep::Hex(h)) => view.blocker(h).map(|(what, obstacle)| {
                ("11.42".to_string(), format!("11.42: the line from {from} to {to} passes through {what}"), obstacle)
            }),
            Err(LineStep::Spine(a, b)) => match (view.blocker(a), view.blocker(b)) {
                (Some((wa, _)), Some((wb, _))) => Some((
                    "11.44".to_string(),
                    format!(
                        "11.44: the line from {from} to {to} runs along the hexside {a}/{b}, and both hexes \
                         block: {wa}; {wb}"
                    ),
                    Obstacle::Spine { a, b },
                )),
                _ => None,
            },
            Err(LineStep::RimSpine(..)) => None,
        };
        if let Some((rule, reason, obstacle)) = found {
            return sight(false, &rule, reason, Some(obstacle));
        }
    }
    let nothing = match up {
        None => "no blocking terrain, combat unit or slope hexside between them",
        Some(_) if staircase.is_some() => {
            "no blocking terrain or combat unit between them, and every hexside crossed is a slope facing the same way"
        }
        Some(_) => "no blocking terrain or combat unit between them, and no slope facing another way",
    };
    sight(true, case, format!("{preamble}; from {from} to {to}: {nothing}"), None)
}

/// One end of the line: the firing or the target hex, and the slope the
/// line crosses into it (11.43).
#[derive(Debug, Clone)]
struct End {
    hex: HexId,
    /// The hexsides of this hex the line enters through: one, or two at a
    /// corner.
    sides: Vec<Hexside>,
    /// Every one of them is a slope hexside.
    has_slope: bool,
    /// Every one of them is a slope hexside with this hex up.
    up_slope: bool,
    /// When up slope: the orientations (low hex to up hex) of those slopes.
    orientations: Vec<Direction>,
}

impl End {
    /// 11.43 B: whether a slope whose up-slope direction is `d` has the
    /// same orientation as this (up-slope) end's slope: the same direction
    /// or one 60 degrees from it.
    fn faces_as(&self, d: Direction) -> bool {
        self.orientations.iter().any(|&o| d == o || d == o.clockwise() || d == o.counter_clockwise())
    }

    fn sides_text(&self) -> String {
        self.sides.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(" and ")
    }
}

fn directions_text(list: &[Direction]) -> String {
    list.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(" and ")
}

/// A slope hexside (11.43).
#[derive(Debug, Clone, Copy)]
struct Slope {
    /// Its up hex, as map.yaml gives it.
    up: Option<HexId>,
}

impl Slope {
    /// The direction from the low hex to the up hex of `side`.
    fn orientation(self, side: Hexside, layout: Layout) -> Option<Direction> {
        let up = self.up?;
        direction_between(side.other(up)?, up, layout)
    }
}

/// What the rules see of the map and the units.
struct View<'a> {
    rules: &'a Rules,
    state: &'a State,
}

impl<'a> View<'a> {
    fn new(rules: &'a Rules, state: &'a State) -> View<'a> {
        View { rules, state }
    }

    /// The combat units (not leaders, 3.2) in `hex`, in id order; looked
    /// up for the few hexes a line asks about, not indexed for every hex
    /// (issue 11: the index was most of a line's cost).
    fn units_in(&self, hex: HexId) -> Vec<String> {
        self.state
            .units
            .iter()
            .filter(|(id, unit)| {
                unit.off_map.is_none()
                    && unit.hex == Some(hex)
                    && self.rules.counter(id).is_some_and(|c| !c.is_leader())
            })
            .map(|(id, _)| id.clone())
            .collect()
    }

    /// 11.42: the hex's blocking terrain, with its name, if it is.
    fn blocking_terrain(&self, hex: HexId) -> Option<String> {
        let map = &self.rules.module.map;
        let tec = &self.rules.charts.terrain;
        let id = map.terrain.get(&hex)?;
        let base = tec.hexes.iter().find(|t| &t.id == id);
        let mut blocks = base.is_some_and(|t| t.blocks_los);
        let mut name = base.map_or_else(|| id.clone(), |t| t.name.clone());
        for area in &tec.areas {
            let Some(b) = area.overrides.blocks_los else { continue };
            let region = match area.map.split_once('/') {
                Some(("places", r)) => map.place(r),
                Some(("zones", r)) => map.zone(r),
                _ => None,
            };
            if region.is_some_and(|r| r.hexes.contains(&hex)) {
                blocks = b;
                name = area.name.clone();
            }
        }
        blocks.then_some(name)
    }

    /// 11.42: what makes the hex block, in words and as an obstacle.
    fn blocker(&self, hex: HexId) -> Option<(String, Obstacle)> {
        if let Some(name) = self.blocking_terrain(hex) {
            return Some((format!("{hex}, {name}, blocking terrain"), Obstacle::Terrain { hex, name }));
        }
        let units = self.units_in(hex);
        if units.is_empty() {
            return None;
        }
        Some((format!("{hex}, which holds combat units ({})", units.join(", ")), Obstacle::Units { hex, units }))
    }

    /// The slope on `side`, if the chart makes one of its features a slope
    /// (after 9.4's combination, as movement combines them).
    fn slope(&self, side: Hexside) -> Option<Slope> {
        let map = &self.rules.module.map;
        let chart = &self.rules.charts.terrain.hexsides;
        let present = map.hexsides.get(&side)?;
        let first = |id: &str| map.first_hex.get(&(side, id.to_string())).copied();
        let by_id = |id: &str| chart.iter().find(|f| f.id == id);
        let mut left: Vec<&str> = present.iter().map(String::as_str).collect();
        let mut features: Vec<(&HexsideFeature, Option<HexId>)> = Vec::new();
        for f in chart.iter().filter(|f| !f.combines.is_empty()) {
            if f.combines.iter().all(|p| left.contains(&p.as_str())) {
                let owner = first(&f.id).or_else(|| {
                    f.combines.iter().find_map(|p| by_id(p).filter(|pf| pf.directional).and_then(|_| first(p)))
                });
                left.retain(|id| !f.combines.iter().any(|p| p == id) && *id != f.id);
                features.push((f, owner));
            }
        }
        for id in left {
            if let Some(f) = by_id(id) {
                features.push((f, first(id)));
            }
        }
        features.into_iter().find(|(f, _)| f.los == Some(HexsideLos::Slope)).map(|(_, up)| Slope { up })
    }

    /// One end of the line, entered as `entry` says.
    fn end(&self, hex: HexId, entry: Entry) -> End {
        let layout = self.rules.module.map.layout;
        let sides = entry.hexsides(hex, layout);
        let slopes: Vec<Option<Slope>> = sides.iter().map(|s| self.slope(*s)).collect();
        let has_slope = !sides.is_empty() && slopes.iter().all(Option::is_some);
        let up_slope = has_slope && slopes.iter().all(|s| s.is_some_and(|s| s.up == Some(hex)));
        let orientations = if up_slope {
            sides.iter().zip(&slopes).filter_map(|(side, s)| s.and_then(|s| s.orientation(*side, layout))).collect()
        } else {
            Vec::new()
        };
        End { hex, sides, has_slope, up_slope, orientations }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::hex::hexes_within;
    use crate::systems::gboar::data::Source;
    use std::collections::BTreeMap;

    fn h(s: &str) -> HexId {
        s.parse().unwrap()
    }

    fn rules() -> Rules {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/modules/sight");
        Rules::load(&Source::dir(&dir), "battle").unwrap()
    }

    /// The scenario's state with only `placed` on the map, where given.
    fn state(rules: &Rules, placed: &[(&str, &str)]) -> State {
        let mut state = State::setup(&rules.module, "battle").unwrap();
        for unit in state.units.values_mut() {
            unit.hex = None;
        }
        for (id, hex) in placed {
            state.units.get_mut(id).unwrap().hex = Some(hex.parse().unwrap());
        }
        state
    }

    fn los(rules: &Rules, state: &State, a: &str, b: &str) -> Sight {
        line_of_sight(rules, state, h(a), h(b))
    }

    /// Clear from `a` to `b` exactly when from `b` to `a`, by the same rule
    /// when clear (when blocked, each way names the first obstacle it meets).
    fn both_ways(rules: &Rules, state: &State, a: &str, b: &str) -> Sight {
        let there = los(rules, state, a, b);
        let back = los(rules, state, b, a);
        assert_eq!(there.clear, back.clear, "{a} {b}: {there:?} / {back:?}");
        if there.clear {
            assert_eq!(there.rule, back.rule, "{a} {b}");
        }
        assert_eq!((there.firer_up_slope, there.target_up_slope), (back.target_up_slope, back.firer_up_slope));
        there
    }

    #[test]
    fn adjacent_targets_are_always_in_sight() {
        let rules = rules();
        let st = state(&rules, &[("red-gun", "0202"), ("blue-foot", "0203"), ("red-foot", "1603")]);
        // Into forest, across slopes up or down, next to a forest full of units.
        for (a, b) in [("0202", "0203"), ("1202", "1203"), ("1203", "1204"), ("1602", "1603"), ("1604", "1605")] {
            let s = both_ways(&rules, &st, a, b);
            assert!(s.clear && s.rule == "11.41", "{a} {b}: {s:?}");
            assert!(s.reason.contains("adjacent"), "{}", s.reason);
        }
        assert!(los(&rules, &st, "0101", "0101").clear);
    }

    #[test]
    fn blocking_terrain_blocks_but_can_be_seen_into_and_out_of() {
        let rules = rules();
        let st = state(&rules, &[]);
        for (a, b, blocker, name) in [
            ("0202", "0204", "0203", "Forest"),
            ("0302", "0304", "0303", "Light forest"),
            ("0402", "0404", "0403", "Town"),
        ] {
            let s = both_ways(&rules, &st, a, b);
            assert!(!s.clear && s.rule == "11.42", "{s:?}");
            assert_eq!(s.obstacle, Some(Obstacle::Terrain { hex: h(blocker), name: name.to_string() }));
            assert!(s.reason.contains(&format!("passes through {blocker}, {name}, blocking terrain")), "{}", s.reason);
        }
        // Clear ground does not block.
        let s = both_ways(&rules, &st, "0102", "0104");
        assert!(s.clear && s.rule == "11.43 A" && s.obstacle.is_none(), "{s:?}");
        // LOS is traced into blocking terrain (and so out of it: 11.42 is symmetric).
        for (a, b) in [("0201", "0203"), ("0205", "0203"), ("0301", "0303"), ("0401", "0403")] {
            assert!(both_ways(&rules, &st, a, b).clear, "{a} {b}");
        }
    }

    #[test]
    fn blocking_terrain_comes_from_the_chart_and_its_areas() {
        let mut rules = rules();
        let st = state(&rules, &[]);
        // The orchard is clear ground that an area makes blocking.
        let s = los(&rules, &st, "0901", "0903");
        assert_eq!(s.obstacle, Some(Obstacle::Terrain { hex: h("0902"), name: "Orchard".into() }));
        // Type other values into the chart: forest no longer blocks, the orchard no longer does.
        rules.charts.terrain.hexes.iter_mut().find(|t| t.id == "forest").unwrap().blocks_los = false;
        rules.charts.terrain.areas[0].overrides.blocks_los = None;
        assert!(los(&rules, &st, "0202", "0204").clear);
        assert!(los(&rules, &st, "0901", "0903").clear);
        assert!(!los(&rules, &st, "0302", "0304").clear);
    }

    #[test]
    fn combat_units_of_either_side_block_and_leaders_do_not() {
        let rules = rules();
        for unit in ["red-foot", "blue-foot", "blue-horse", "red-gun-2"] {
            // The gun's own side or the enemy's.
            let st = state(&rules, &[("red-gun", "0102"), ("blue-gun", "0104"), (unit, "0103")]);
            let s = both_ways(&rules, &st, "0102", "0104");
            assert!(!s.clear && s.rule == "11.42", "{unit}: {s:?}");
            assert_eq!(s.obstacle, Some(Obstacle::Units { hex: h("0103"), units: vec![unit.to_string()] }));
            assert!(s.reason.contains(&format!("0103, which holds combat units ({unit})")), "{}", s.reason);
        }
        // Leaders are not combat units (3.2).
        let st = state(&rules, &[("red-general", "0103"), ("blue-general", "0103")]);
        assert!(both_ways(&rules, &st, "0102", "0104").clear);
        // A unit off the map blocks nothing, even with a hex left on it.
        let mut st = state(&rules, &[("red-foot", "0103")]);
        st.units.get_mut("red-foot").unwrap().off_map = Some(crate::systems::gboar::board::state::OffMap::Eliminated);
        assert!(los(&rules, &st, "0102", "0104").clear);
        // The firing and target hexes never block, whatever they hold.
        let st = state(&rules, &[("red-gun", "0102"), ("red-foot", "0102"), ("blue-foot", "0104")]);
        assert!(los(&rules, &st, "0102", "0104").clear);
    }

    #[test]
    fn a_spine_blocks_only_when_both_hexes_block() {
        let rules = rules();
        // 0602 to 0802 runs along 0702/0703; only 0702 is forest.
        let st = state(&rules, &[]);
        let s = both_ways(&rules, &st, "0602", "0802");
        assert!(s.clear, "{s:?}");
        // A leader in 0703 does not make it block; a combat unit does.
        let st = state(&rules, &[("blue-general", "0703")]);
        assert!(both_ways(&rules, &st, "0602", "0802").clear);
        let st = state(&rules, &[("blue-foot", "0703")]);
        let s = both_ways(&rules, &st, "0602", "0802");
        assert!(!s.clear && s.rule == "11.44", "{s:?}");
        assert_eq!(s.obstacle, Some(Obstacle::Spine { a: h("0702"), b: h("0703") }));
        assert!(s.reason.contains("0702, Forest, blocking terrain; 0703, which holds combat units (blue-foot)"));
        // Two units, no terrain.
        let st = state(&rules, &[("red-foot", "0702"), ("blue-foot", "0703")]);
        assert!(!los(&rules, &st, "0602", "0802").clear);
        // Forest on both sides: 0605 to 0805 along 0705/0706.
        let st = state(&rules, &[]);
        let s = both_ways(&rules, &st, "0605", "0805");
        assert!(!s.clear && s.rule == "11.44", "{s:?}");
        // Forest at 0702 and a unit in 0802's neighbour 0803, which is not on the spine.
        let st = state(&rules, &[("blue-foot", "0803")]);
        assert!(los(&rules, &st, "0602", "0802").clear);
    }

    #[test]
    fn neither_up_slope_any_intervening_slope_blocks() {
        let rules = rules();
        let st = state(&rules, &[]);
        // 11.43 A: 1103/1104 lies between 1102 and 1105.
        let s = both_ways(&rules, &st, "1102", "1105");
        assert!(!s.clear && s.rule == "11.43 A" && !s.firer_up_slope && !s.target_up_slope, "{s:?}");
        assert_eq!(s.obstacle, Some(Obstacle::Slope { side: Hexside::parse("1103/1104", Layout::GBOAR).unwrap() }));
        assert!(s.reason.contains("slope hexside 1103/1104, which is not a side of 1102 or 1105"), "{}", s.reason);
        // A slope that is a side of the target's or the firer's hex does not
        // block (1104 lies below it, 1103 above: neither is up slope here).
        let s = both_ways(&rules, &st, "1102", "1104");
        assert!(s.clear && s.rule == "11.43 A", "{s:?}");
        assert!(both_ways(&rules, &st, "1103", "1105").clear);
        // A creek is not a slope.
        assert!(both_ways(&rules, &st, "1002", "1005").clear);
        // 1201 to 1204: neither up slope (1204 lies below 1203), and 1202/1203 is between.
        let s = both_ways(&rules, &st, "1201", "1204");
        assert!(!s.clear && s.rule == "11.43 A", "{s:?}");
    }

    #[test]
    fn one_up_slope_sees_over_slopes_of_the_same_orientation() {
        let rules = rules();
        let st = state(&rules, &[]);
        // Column 12: 1202 is up slope (1203/1202 rises N), and 1203/1204 rises N too.
        let s = both_ways(&rules, &st, "1202", "1205");
        assert!(s.clear && s.rule == "11.43 B" && s.firer_up_slope && !s.target_up_slope, "{s:?}");
        assert!(s.reason.contains("1202 is up slope (across 1202/1203, up-slope direction N)"), "{}", s.reason);
        // Column 13: 1303/1304 rises S, towards the target: a ridge between.
        let s = both_ways(&rules, &st, "1302", "1305");
        assert!(!s.clear && s.rule == "11.43 B", "{s:?}");
        assert_eq!(s.obstacle, Some(Obstacle::Slope { side: Hexside::parse("1303/1304", Layout::GBOAR).unwrap() }));
        assert!(s.reason.contains("up-slope direction is S, not the same orientation"), "{}", s.reason);
        // Blocking terrain still blocks in case B.
        let st = state(&rules, &[("blue-foot", "1204")]);
        let s = both_ways(&rules, &st, "1202", "1205");
        assert!(!s.clear && s.rule == "11.42", "{s:?}");
    }

    #[test]
    fn the_range_three_sentence_asks_for_a_staircase() {
        let rules = rules();
        let st = state(&rules, &[]);
        // Column 14: 1402 up slope, 1405 below 1404/1405 (both hexes have
        // slope hexsides), range 3, and 1403/1404 between is not a slope.
        let s = both_ways(&rules, &st, "1402", "1405");
        assert!(!s.clear && s.rule == "11.43 B" && s.firer_up_slope, "{s:?}");
        assert_eq!(s.obstacle, Some(Obstacle::Slope { side: Hexside::parse("1403/1404", Layout::GBOAR).unwrap() }));
        assert!(s.reason.contains("intervening hexside 1403/1404 must be a slope"), "{}", s.reason);
        // At range 2 nothing is between: clear.
        assert!(both_ways(&rules, &st, "1402", "1404").clear);
        // The same hexes without a slope at the target's hex: a flat step is fine.
        assert!(both_ways(&rules, &st, "1202", "1205").clear);
        // Column 15: three slopes rising N, a staircase.
        let s = both_ways(&rules, &st, "1502", "1505");
        assert!(s.clear && s.rule == "11.43 B", "{s:?}");
        assert!(s.reason.contains("every hexside crossed is a slope facing the same way"), "{}", s.reason);
    }

    #[test]
    fn orientation_on_a_zigzag_line() {
        let rules = rules();
        let st = state(&rules, &[]);
        // 1208 to 1106 crosses N, NW, N. 1106 is up slope (N), and the slope
        // 1207/1107 between rises NW, towards it: the same orientation.
        let s = both_ways(&rules, &st, "1208", "1106");
        assert!(s.clear && s.rule == "11.43 B" && s.target_up_slope, "{s:?}");
        // 1208 to 1306 crosses N, NE, N. 1306 is up slope (N), and 1307/1207
        // rises SW, away from it.
        let s = both_ways(&rules, &st, "1208", "1306");
        assert!(!s.clear && s.rule == "11.43 B", "{s:?}");
        assert!(s.reason.contains("1207/1307 whose up-slope direction is SW"), "{}", s.reason);
        // A staircase on a zigzag line: 1410/1411 N, 1310/1410 NW, 1309/1310 N.
        let s = both_ways(&rules, &st, "1411", "1309");
        assert!(s.clear && s.rule == "11.43 B", "{s:?}");
    }

    #[test]
    fn both_up_slope_always_see_each_other() {
        let mut rules = rules();
        // 1602 above 1603 (forest), an enemy unit at 1604, 1605 above the
        // slope/creek 1604/1605.
        let st = state(&rules, &[("red-gun", "1602"), ("blue-foot", "1604"), ("blue-gun", "1605")]);
        let s = both_ways(&rules, &st, "1602", "1605");
        assert!(s.clear && s.rule == "11.43 C" && s.firer_up_slope && s.target_up_slope, "{s:?}");
        assert!(s.reason.contains("blocking terrain ignored"), "{}", s.reason);
        // From 1601 the gun is not up slope.
        assert!(!los(&rules, &st, "1601", "1605").clear);
        // The slope/creek counts as a slope because the chart says so: say
        // otherwise, and 1605 is no longer up slope, so the forest blocks.
        rules.charts.terrain.hexsides.iter_mut().find(|f| f.id == "slope-creek").unwrap().los = None;
        let s = both_ways(&rules, &st, "1602", "1605");
        assert!(!s.clear && s.rule == "11.42" && s.firer_up_slope && !s.target_up_slope, "{s:?}");
        assert_eq!(s.obstacle, Some(Obstacle::Terrain { hex: h("1603"), name: "Forest".into() }));
    }

    #[test]
    fn up_slope_through_a_corner_needs_both_sides() {
        let mut rules = rules();
        let st = state(&rules, &[]);
        // 1009 and 1209, each above both hexes of the spine 1109/1110 between
        // them (forest both): both up slope, so clear.
        let s = both_ways(&rules, &st, "1009", "1209");
        assert!(s.clear && s.rule == "11.43 C", "{s:?}");
        // Take one of 1209's two slopes away: 1209 is not up slope, and the spine blocks.
        let side = Hexside::parse("1110/1209", Layout::GBOAR).unwrap();
        rules.module.map.hexsides.remove(&side);
        let s = both_ways(&rules, &st, "1009", "1209");
        assert!(!s.clear && s.rule == "11.44" && s.firer_up_slope && !s.target_up_slope, "{s:?}");
    }

    #[test]
    fn off_the_map_there_is_no_line_of_sight() {
        let rules = rules();
        let st = state(&rules, &[]);
        let s = los(&rules, &st, "0101", "2001");
        assert!(!s.clear);
        assert_eq!(s.obstacle, Some(Obstacle::OffMap(h("2001"))));
    }

    /// 11.4's EXAMPLE, as far as the text describes it: a gun, the hexes it
    /// cannot see, each marked B (blocking terrain), S (slopes) or U (a
    /// combat unit). Here the gun is at 0409, forest at 0407, an enemy unit
    /// at 0510, a leader alone at 0508, and a rise from column 03 up to
    /// column 02 west of the gun.
    #[test]
    fn the_example_of_11_4() {
        let rules = rules();
        let st = state(&rules, &[("red-gun", "0409"), ("blue-foot", "0510"), ("blue-general", "0508")]);
        let layout = rules.module.map.layout;
        let mut marks: BTreeMap<String, Vec<HexId>> = BTreeMap::new();
        for target in hexes_within(h("0409"), 3, layout) {
            let s = los(&rules, &st, "0409", &target.to_string());
            let mark = match &s.obstacle {
                None => continue,
                Some(Obstacle::Terrain { .. }) => "B",
                Some(Obstacle::Slope { .. }) => "S",
                Some(Obstacle::Units { .. }) => "U",
                Some(other) => panic!("{target}: {other:?}"),
            };
            marks.entry(mark.to_string()).or_default().push(target);
        }
        let expect = |list: &[&str]| list.iter().map(|s| h(s)).collect::<Vec<_>>();
        // B: behind the forest, which itself is in sight.
        assert_eq!(marks["B"], expect(&["0406"]));
        // S: column 01, beyond the rise; column 02, on top of it, is in sight
        // (up slope, case B), and so is column 03 below it.
        assert_eq!(marks["S"], expect(&["0108", "0109", "0110", "0111"]));
        // U: behind the unit at 0510; 0511, along the spine 0410/0510 with
        // 0410 clear, is in sight (11.44), and so is 0607 past the leader.
        assert_eq!(marks["U"], expect(&["0610", "0611", "0710", "0711"]));
        assert_eq!(marks.len(), 3);
        assert!(los(&rules, &st, "0409", "0407").clear);
        assert!(los(&rules, &st, "0409", "0511").clear);
        assert!(los(&rules, &st, "0409", "0607").clear);
        assert!(los(&rules, &st, "0409", "0210").target_up_slope);
    }

    /// Who fires never matters: over every pair of hexes within range 4 of
    /// each other, with units about, the answer is the same both ways.
    #[test]
    fn line_of_sight_is_symmetric() {
        let rules = rules();
        let st =
            state(&rules, &[("red-foot", "0510"), ("blue-foot", "1204"), ("blue-horse", "0703"), ("red-gun", "1305")]);
        let layout = rules.module.map.layout;
        let hexes: Vec<HexId> = rules.module.map.terrain.keys().copied().collect();
        let mut count = 0;
        for &a in &hexes {
            for b in hexes_within(a, 4, layout) {
                if b > a && rules.module.map.contains(b) {
                    both_ways(&rules, &st, &a.to_string(), &b.to_string());
                    count += 1;
                }
            }
        }
        assert!(count > 2000, "{count}");
    }
}
