//! The scenario's zones in the Movement Phase: zone bans (Savannah 4.8),
//! the strategic track's perimeter (Savannah 1.6, 1.7) and the declaration
//! of the assault, and the British sortie restriction (Savannah 4.10).

use super::*;

impl Phase<'_> {
    /// A unit's printed at-start hex.
    pub(super) fn home(&self, id: &str) -> Option<HexId> {
        self.counter(id).and_then(|c| c.setup.as_ref()).and_then(|s| s.hex.parse().ok())
    }

    pub(super) fn in_region(&self, zone: &str, hex: HexId) -> bool {
        let map = &self.rules.module.map;
        let regions = self.regions.get_or_init(|| {
            map.zones.iter().chain(&map.places).map(|r| (r.id.as_str(), r.hexes.iter().copied().collect())).collect()
        });
        regions.get(zone).is_some_and(|r| r.contains(&hex))
    }

    /// Savannah 4.10: whether the sortie restriction binds `id` now: a unit
    /// of its armies on its turns, not a leader, and not exempt unless it has
    /// been inside the perimeter.
    pub(super) fn sortie_bound(&self, state: &State, id: &str) -> Option<&SortieRestriction> {
        crate::systems::gboar::board::units::sortie_bound(self.rules, state, id)
    }

    /// The scenario's rules about zones, on a legal path: Savannah 4.8 (a
    /// unit that may never enter a zone), 1.6/1.7 (on the strategic track
    /// the Allies move no combat unit next to the perimeter) and 4.10 (the
    /// sortie restriction).
    pub(super) fn zone_rules(
        &self,
        state: &State,
        ids: &[String],
        start: HexId,
        path: &[HexId],
        field: &str,
    ) -> Option<Problem> {
        let layout = self.terrain.layout;
        for id in ids {
            let Some(c) = self.counter(id.as_str()) else { continue };
            for ban in self.scenario.zone_bans.iter().filter(|b| c.tags.contains(&b.tag)) {
                if let Some(h) = path.iter().find(|h| self.in_region(&ban.zone, **h)) {
                    return Some(problem(
                        Code::ZoneBanned,
                        field,
                        format!("{id} may never enter the {} ({}): {h} is in it", ban.zone, ban.rule),
                    ));
                }
            }
            let restriction =
                crate::systems::gboar::board::units::strategic_restriction(self.rules, self.turn, &c.army);
            if let Some((ts, r)) = restriction.filter(|_| !c.is_leader()) {
                let next_to = |h: HexId| {
                    self.in_region(&r.may_not_move_adjacent_to, h)
                        || neighbours(h, layout).into_iter().any(|n| self.in_region(&r.may_not_move_adjacent_to, n))
                };
                if let Some(h) = path.iter().find(|h| next_to(**h)) {
                    return Some(problem(
                        Code::PerimeterBeforeAssault,
                        field,
                        format!(
                            "{id} would move next to the {} at {h}: on the Strategic Turn Track that is attacking it, which the Allies may not do before declaring their assault ({})",
                            r.may_not_move_adjacent_to,
                            ts.rule.as_deref().unwrap_or("Savannah 1.6, 1.7")
                        ),
                    ));
                }
            }
        }
        let dest = path.last().copied().unwrap_or(start);
        let rule = self.scenario.sortie_restriction.as_ref().filter(|r| r.turns.contains(self.turn))?;
        let inside = |h: HexId| self.in_region(&rule.zone, h);
        let leaders: Vec<&String> =
            ids.iter().filter(|i| self.counter(i.as_str()).is_some_and(|c| c.is_leader())).collect();
        if inside(start) && !inside(dest) {
            let bound: Vec<&String> = ids.iter().filter(|i| self.sortie_bound(state, i).is_some()).collect();
            if !bound.is_empty() && leaders.is_empty() {
                return Some(problem(Code::SortieNeedsLeader,
                    field,
                    format!(
                        "{} may sortie outside the {} on turns {}-{} only stacked with a leader ({}): move them as a stack with one",
                        bound.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", "),
                        rule.zone,
                        rule.turns.first,
                        rule.turns.last,
                        rule.rule
                    ),
                ));
            }
        }
        if !inside(start) && inside(dest) {
            for leader in leaders {
                let out: Vec<String> = state
                    .units
                    .iter()
                    .filter(|(u, s)| {
                        s.sortie_with.as_deref() == Some(leader.as_str())
                            && !ids.contains(u)
                            && s.hex.is_some_and(|h| !inside(h))
                    })
                    .map(|(u, _)| u.clone())
                    .collect();
                if !out.is_empty() {
                    return Some(problem(
                        Code::SortieLeaderReturnsLast,
                        field,
                        format!(
                            "{leader} may not return inside the {} before the units that sortied with him: {} ({})",
                            rule.zone,
                            out.join(", "),
                            rule.rule
                        ),
                    ));
                }
            }
        }
        None
    }

    /// Savannah 1.6 case A: the declaration, if this player may make it now.
    pub(super) fn declare_assault(&self, run: &mut Run<'_>, side: &str) {
        let track = self.scenario.track_switch.as_ref();
        let Some(d) = track.and_then(|t| t.declaration.as_ref()) else {
            run.problems.push((
                side.to_string(),
                problem(
                    Code::AssaultDeclaration,
                    "declare_assault",
                    "this scenario has no declaration of an assault (Savannah 1.6)",
                ),
            ));
            return;
        };
        let rule = track.and_then(|t| t.rule.clone()).unwrap_or_else(|| "Savannah 1.6".into());
        let why = if d.by != self.player {
            Some(format!("only the {} player declares the assault ({rule})", d.by))
        } else if !d.turns.contains(self.turn) {
            Some(format!("the assault is declared on turns {}-{} only ({rule})", d.turns.first, d.turns.last))
        } else if run.state.assault_declared {
            Some(format!("the assault is already declared ({rule})"))
        } else {
            None
        };
        if let Some(why) = why {
            run.problems.push((side.to_string(), problem(Code::AssaultDeclaration, "declare_assault", why)));
            return;
        }
        run.state.assault_declared = true;
        run.events.push(
            Event::new(
                "Savannah 1.6",
                "assault-declared",
                format!(
                    "the {} declare their assault on the perimeter: at the end of this turn play goes to turn {} of the Tactical Turn Track, for good; reinforcements not yet arrived never will (case A, {rule})",
                    self.player, d.next_turn
                ),
            )
            .with("player", &self.player)
            .with("next_turn", d.next_turn),
        );
    }

    /// Savannah 4.10: who is out with which leader, and who has been inside.
    pub(super) fn sortie_marks(&self, state: &mut State, id: &str, ids: &[String], start: HexId, dest: HexId) {
        let Some(rule) = self.scenario.sortie_restriction.as_ref().filter(|r| r.turns.contains(self.turn)) else {
            return;
        };
        let inside = |h: HexId| self.in_region(&rule.zone, h);
        let bound = self.sortie_bound(state, id).is_some();
        let leader = ids.iter().find(|i| self.counter(i.as_str()).is_some_and(|c| c.is_leader())).cloned();
        let Some(u) = state.units.get_mut(id) else { return };
        if inside(dest) {
            u.sortie_with = None;
            if self.counter(id).is_some_and(|c| rule.armies.contains(&c.army)) {
                u.been_inside = true;
            }
        } else if inside(start) && bound {
            u.sortie_with = leader;
        }
    }
}
