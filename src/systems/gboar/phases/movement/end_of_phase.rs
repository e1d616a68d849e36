//! What the phase checks once every move is made: pins that come off (9.3)
//! and pinned units that moved away, arrivals held over (Savannah 4.7),
//! overstacking (7.1, 7.2), guns sent back (`fixed_artillery`), disrupted
//! units that must move (13.3), stacks that must retreat instead of
//! attacking and restricted stacks (Savannah 4.1), and the hexes a unit
//! could legally end in (for the guide and the refusals).

use super::*;

/// A unit held to retreat instead of attacking (Savannah 4.1): its side,
/// its id, its hex, the restriction and its pair.
type Held<'a> = (&'a String, &'a String, HexId, &'a Restriction, (String, String));

/// Whether a unit may end in a hex beside the units placed so far
/// ([`Phase::retreat_together`]).
type Placeable<'m> = dyn Fn(&[(&'m str, HexId)], &'m str, HexId) -> bool + 'm;

impl Phase<'_> {
    /// 9.3: a pinned unit that moved must end the phase next to no enemy
    /// unit; and (13.1 PIN, case B) once a player leaves a PIN result, no
    /// other friendly unit may move next to the enemy units it pinned.
    pub(super) fn pinned_movers_end_away(&self, run: &mut Run<'_>) {
        let left: BTreeSet<String> =
            run.left_pins.iter().filter_map(|id| run.state.units.get(id).and_then(|u| u.pin_result.clone())).collect();
        for result in &left {
            let held: Vec<HexId> = run
                .state
                .units
                .iter()
                .filter(|(id, u)| {
                    u.pin_result.as_ref() == Some(result)
                        && self.counter(id.as_str()).is_some_and(|c| !self.is_friendly(c))
                })
                .filter_map(|(id, _)| hex_of(&run.state, id))
                .collect();
            for (id, (side, field)) in &run.moved {
                if run.left_pins.contains(id) {
                    continue;
                }
                let Some(hex) = hex_of(&run.state, id) else { continue };
                if let Some(h) = held.iter().find(|h| crate::base::hex::are_adjacent(hex, **h, self.terrain.layout)) {
                    run.problems.push((
                        side.clone(),
                        problem(Code::NextToPinnedEnemy,
                            field.clone(),
                            format!(
                                "{id} ends its move next to {h}, held by the PIN result {result} that this turn's orders leave: no other friendly unit may move next to the enemy units pinned there (13.1 PIN, case B)"
                            ),
                        ),
                    ));
                }
            }
        }
        for id in &run.left_pins {
            let Some(hex) = hex_of(&run.state, id) else { continue };
            let enemies = self.adjacent_enemies(hex);
            if enemies.is_empty() {
                continue;
            }
            let (side, field) = run.moved.get(id).cloned().unwrap_or_default();
            run.problems.push((
                side,
                problem(Code::PinnedEndsAdjacent,
                    field,
                    format!(
                        "{id} is pinned and ends its move in {hex}, next to enemy {}: a pinned unit may move only if it ends the Movement Phase not adjacent to any enemy unit (9.3)",
                        list(&enemies)
                    ),
                ),
            ));
        }
    }

    /// 9.3: after all movement, pins come off every unit of either side that
    /// is next to no enemy combat unit; the phasing player's army morale
    /// pays, once for each PIN result whose markers come off (13.1 PIN, case
    /// B: "for EACH individual PIN result"; pins of no known result count as
    /// one). With several armies (an alliance), each phasing army pays that
    /// had a pin of its own removed or had a unit next to a removed enemy pin
    /// when the phase began.
    pub(super) fn remove_pins(&self, rules: &Rules, start: &State, run: &mut Run<'_>) -> Result<()> {
        let enemy_of = |state: &State, id: &str, hex: HexId| -> Vec<String> {
            let mine = self.counter(id).and_then(|c| self.player_of_army.get(&c.army)).cloned();
            let around: Vec<HexId> = neighbours(hex, self.terrain.layout);
            let mut found: Vec<String> = state
                .units
                .iter()
                .filter(|(other, u)| {
                    self.counter(other.as_str())
                        .is_some_and(|c| !c.is_leader() && self.player_of_army.get(&c.army) != mine.as_ref())
                        && u.hex.is_some_and(|h| around.contains(&h))
                })
                .map(|(other, _)| other.clone())
                .collect();
            found.sort();
            found
        };
        let mut removed: Vec<String> = Vec::new();
        for (id, unit) in &run.state.units {
            if !unit.pinned {
                continue;
            }
            let Some(hex) = hex_of(&run.state, id) else { continue };
            if enemy_of(&run.state, id, hex).is_empty() {
                removed.push(id.clone());
            }
        }
        if removed.is_empty() {
            return Ok(());
        }
        // Per PIN result: the phasing armies that pay for it.
        let mut results: BTreeMap<Option<String>, BTreeSet<String>> = BTreeMap::new();
        for id in &removed {
            let Some(c) = self.counter(id.as_str()) else { continue };
            let result = run.state.units.get(id).and_then(|u| u.pin_result.clone());
            let paying = results.entry(result).or_default();
            if self.is_friendly(c) {
                paying.insert(c.army.clone());
            } else if let Some(hex) = hex_of(start, id) {
                for other in enemy_of(start, id, hex) {
                    if let Some(o) = self.counter(other.as_str()) {
                        if self.is_friendly(o) {
                            paying.insert(o.army.clone());
                        }
                    }
                }
            }
            if let Some(u) = run.state.units.get_mut(id) {
                u.pinned = false;
                u.pin_result = None;
            }
        }
        let names = self.names(&removed);
        run.events.push(
            Event::new("9.3", "pins-removed", format!("pins removed after movement, next to no enemy unit: {names}"))
                .with("units", &removed),
        );
        let first_army =
            self.player_of_army.iter().find(|(_, p)| **p == self.player).map(|(a, _)| a.clone()).unwrap_or_default();
        for (result, mut paying) in results {
            if paying.is_empty() {
                // No phasing unit was involved (a pin left over next to nothing).
                paying.insert(first_army.clone());
            }
            let which = result.map(|r| format!(" (PIN result {r})")).unwrap_or_default();
            for army in paying {
                let why = format!("the {} player removed pins{which} in its Movement Phase", self.player);
                let events = crate::systems::gboar::effects::morale::apply(
                    rules,
                    &mut run.state,
                    "pin-removed-in-movement",
                    &army,
                    &[],
                    1,
                    ("9.3", &why),
                )?;
                run.events.extend(events);
            }
        }
        Ok(())
    }

    /// Savannah 4.7 (the scenario's `overstacked_arrival`): reinforcements
    /// that did not move out of an entry hex still over the stacking limit
    /// are put off a turn, and enter ahead of later arrivals there, until
    /// the hex is within the limit. Only a unit that counts for what is
    /// over goes (its SPs when the SPs are over, an artillery unit when the
    /// artillery is): never a leader, who does not count for stacking
    /// (7.1). The orders' `put_off` go first, in their order; then the last
    /// placed (in id order). Units put off once already go last. Then the
    /// turn of arrival is over for every unit placed.
    pub(super) fn end_of_phase_arrivals(&self, run: &mut Run<'_>, orders: &[(&str, &crate::base::yaml::Value)]) {
        let turn = run.state.turn;
        let mut chosen: Vec<String> = Vec::new();
        for (side, body) in orders {
            let Some(list) = body.get("put_off") else { continue };
            let Ok(list) = crate::base::yaml::from_value::<Vec<String>>(list.clone()) else { continue };
            for (n, id) in list.iter().enumerate() {
                let own = self.counter(id.as_str()).and_then(|c| self.side_of_army.get(&c.army));
                if own.map(String::as_str) != Some(*side) || !run.arrived.contains_key(id) {
                    run.problems.push((
                        side.to_string(),
                        problem(Code::PutOffNotArrival,
                            format!("put_off[{n}]"),
                            format!(
                                "'{}' is not a reinforcement of this side placed this turn: only those may be put off (Savannah 4.7)",
                                crate::base::error::echo(id)
                            ),
                        ),
                    ));
                } else if self.stacking_weight(&run.state, id) == (0, 0) {
                    run.problems.push((
                        side.to_string(),
                        problem(Code::PutOffNotArrival,
                            format!("put_off[{n}]"),
                            format!("{id} does not count for stacking (7.1): putting it off brings no hex within the limit (Savannah 4.7)"),
                        ),
                    ));
                } else if run.moved.contains_key(id) {
                    run.problems.push((
                        side.to_string(),
                        problem(Code::PutOffNotArrival,
                            format!("put_off[{n}]"),
                            format!("{id} moves this phase: only arrivals left in their entry hex are put off (Savannah 4.7)"),
                        ),
                    ));
                } else {
                    chosen.push(id.clone());
                }
            }
        }
        if let (Some(rule), Some(limits)) =
            (self.reinforcements.and_then(|r| r.overstacked_arrival.as_ref()), self.stacking.as_ref())
        {
            let mut hexes: BTreeSet<HexId> = BTreeSet::new();
            for (id, hex) in &run.arrived {
                if !run.moved.contains_key(id) {
                    hexes.insert(*hex);
                }
            }
            for hex in hexes {
                loop {
                    let here: Vec<String> = run
                        .state
                        .units
                        .iter()
                        .filter(|(id, u)| {
                            unit_hex(u) == Some(hex)
                                && u.hex.is_some()
                                && self.counter(id.as_str()).is_some_and(|c| self.is_friendly(c))
                        })
                        .map(|(id, _)| id.clone())
                        .collect();
                    let (sps, guns) = here.iter().fold((0i32, 0i32), |(a, b), id| {
                        let (s, g) = self.stacking_weight(&run.state, id);
                        (a.saturating_add(s), b.saturating_add(g))
                    });
                    if limits.holds(sps, guns) {
                        break;
                    }
                    // Units with priority (put off once already) stay if they can.
                    let waiting = |id: &&String, priority: bool| {
                        let (s, g) = self.stacking_weight(&run.state, id);
                        run.arrived.get(*id) == Some(&hex)
                            && !run.moved.contains_key(*id)
                            && limits.over_in(sps, guns, s, g)
                            && run.state.units.get(id).and_then(|u| u.arriving.as_ref()).is_some_and(|a| a.priority)
                                == priority
                    };
                    let pick = |priority: bool| {
                        chosen
                            .iter()
                            .find(|id| waiting(id, priority))
                            .or_else(|| here.iter().rev().find(|id| waiting(id, priority)))
                    };
                    let Some(back) = pick(false).or_else(|| pick(true)).cloned() else {
                        break;
                    };
                    let later = turn.saturating_add(rule.delay_turns);
                    if let Some(u) = run.state.units.get_mut(&back) {
                        u.hex = None;
                        u.off_map = Some(OffMap::Reinforcement);
                        if let Some(a) = u.arriving.as_mut() {
                            a.turn = later;
                            a.priority = rule.priority_next_turn;
                        }
                    }
                    run.arrived.remove(&back);
                    run.events.push(
                        Event::new(
                            "Savannah 4.7",
                            "arrival-put-off",
                            format!(
                                "{} cannot conform to the stacking limit in {hex} ({sps} SPs, {guns} artillery units): it leaves the map and enters on turn {later}{} ({})",
                                self.name(&back),
                                if rule.priority_next_turn { ", ahead of later arrivals" } else { "" },
                                rule.rule
                            ),
                        )
                        .with("unit", &back)
                        .with("hex", hex.to_string())
                        .with("turn", later),
                    );
                }
            }
        }
        let placed: Vec<String> = run.arrived.keys().cloned().collect();
        for id in placed {
            if let Some(u) = run.state.units.get_mut(&id) {
                u.arriving = None;
            }
        }
    }

    /// 7.3: a hex of the phasing player still over the stacking limit when
    /// the phase ends (reinforcements placed over it that did not move on,
    /// where the scenario does not put them off instead) costs steps, the
    /// orders' `overstack_losses` first ([`crate::systems::gboar::effects::losses::overstacking`]).
    /// Checking one side's orders, only its own choices are checked.
    pub(super) fn overstacking_penalty(&self, run: &mut Run<'_>, orders: &[(&str, &crate::base::yaml::Value)]) {
        let mut choices: Vec<String> = Vec::new();
        let mut chooser = String::new();
        for (side, body) in orders {
            let list: Vec<String> = body
                .get("overstack_losses")
                .and_then(|v| crate::base::yaml::from_value::<Vec<String>>(v.clone()).ok())
                .unwrap_or_default();
            if !list.is_empty() && chooser.is_empty() {
                chooser = side.to_string();
            }
            choices.extend(list);
        }
        // Most phases end with no hex over the limit and no unit chosen:
        // nothing to lose, and no copy of the state to try it on.
        if choices.is_empty()
            && !crate::systems::gboar::effects::losses::any_overstacked(self.rules, &run.state, &self.player)
        {
            return;
        }
        let mut trial = run.state.clone();
        match crate::systems::gboar::effects::losses::overstacking(self.rules, &mut trial, &self.player, &choices) {
            Ok(events) => {
                run.state = trial;
                run.events.extend(events);
            }
            Err(e) => {
                let side = if chooser.is_empty() { self.sides.first().cloned().unwrap_or_default() } else { chooser };
                run.problems.push((side, problem(Code::OverstackLossChoice, "overstack_losses", e.to_string())));
            }
        }
    }

    /// Savannah Hist. Special Rules: a held gun sent back by Defensive
    /// Artillery Fire (`must_return`) "must move back to [its] at-start hex
    /// as quickly as [it] can, if possible": where the orders leave it, it
    /// is no farther from that hex than the nearest hex it could have
    /// ended its move in ([`Phase::return_limit`]). Checked at the phase's
    /// end, when the orders' other moves are known: a hex of its reach
    /// that a unit it may not end the phase with holds (Savannah 4.1,
    /// 4.18) is no hex it can end in, and the orders may empty such a hex
    /// or fill another (a gun sent back next to French units, each
    /// nearest hex holding one, had no legal orders while its reach alone
    /// set the bound, 2026-12-06).
    pub(super) fn guns_must_return(&self, start: &State, run: &mut Run<'_>, sides: &[&str]) {
        for (id, unit) in &start.units {
            // A pinned gun need not leave its pin to go back (leaving a pin
            // is the player's choice, 9.3); one that does is held to it.
            if !unit.must_return || (unit.pinned && !run.moved.contains_key(id)) {
                continue;
            }
            let Some(side) = self.counter(id.as_str()).and_then(|c| self.side_of_army.get(&c.army)) else { continue };
            if !sides.contains(&side.as_str()) {
                continue;
            }
            let (Some((home, best, nearest)), Some(now)) = (self.return_limit(start, run, id), hex_of(&run.state, id))
            else {
                continue;
            };
            if crate::base::hex::distance(now, home, self.terrain.layout) <= best {
                continue;
            }
            let found = match run.moved.get(id) {
                Some((_, field)) => {
                    // The hex it began in may be among the nearest (a gun
                    // that left a pin it need not have left, 9.3).
                    let from = hex_of(start, id);
                    let others: Vec<HexId> = nearest.iter().copied().filter(|h| Some(*h) != from).collect();
                    let reach = match from.filter(|f| nearest.contains(f)) {
                        Some(f) if others.is_empty() => format!("no hex nearer than {f}, where it began"),
                        Some(f) => format!("{} (or stay in {f})", hexes_text(&others)),
                        None => hexes_text(&others),
                    };
                    problem(
                        Code::GunMustReturn,
                        field.clone(),
                        format!(
                            "{id} must move back to its at-start hex {home} as quickly as it can (Hist. Special Rules): it can reach {reach}"
                        ),
                    )
                }
                None => problem(
                    Code::GunMustReturn,
                    "moves",
                    format!(
                        "{id} must move back to its at-start hex {home} as quickly as it can (Hist. Special Rules); it can move to {}",
                        hexes_text(&nearest)
                    ),
                ),
            };
            run.problems.push((side.clone(), found));
        }
    }

    /// Savannah Hist. Special Rules: for unit `id`, sent back toward its
    /// at-start hex (`must_return` in `start`), its at-start hex, the least
    /// distance from it of the hexes where a move of its own (alone or by
    /// road, from where it began the phase) could end, and those nearest
    /// hexes; none for another unit, one at home, or one with no such hex.
    /// The hexes where it could end: its reach, and the hex it began in,
    /// less those holding, where the orders leave them, a unit it may not
    /// end the phase with (Savannah 4.1, 4.18), those next to the enemy
    /// for a gun that leaves a pin (9.3), and those next to enemy units
    /// held by a PIN result the orders leave (13.1 PIN, case B).
    pub(super) fn return_limit(&self, start: &State, run: &Run<'_>, id: &str) -> Option<(HexId, u32, Vec<HexId>)> {
        let unit = start.units.get(id).filter(|u| u.must_return)?;
        let from = unit.hex?;
        let home = self.home(id)?;
        if from == home {
            return None;
        }
        let reach = self.reach_from(run, id, from);
        self.return_best(run, id, from, home, &reach, unit.pinned).map(|(best, nearest)| (home, best, nearest))
    }

    /// [`Phase::return_limit`]'s least distance and nearest hexes, over
    /// `reach` and `from` (where 9.3 and 13.1's case B, which hold a move,
    /// do not hold a unit that stays).
    fn return_best(
        &self,
        run: &Run<'_>,
        id: &str,
        from: HexId,
        home: HexId,
        reach: &BTreeSet<HexId>,
        leaves_pin: bool,
    ) -> Option<(u32, Vec<HexId>)> {
        let layout = self.terrain.layout;
        // 13.1 PIN, case B: the hexes of enemy units held by a PIN result
        // a unit of the orders leaves.
        let left: BTreeSet<&String> = run
            .left_pins
            .iter()
            .filter(|u| u.as_str() != id)
            .filter_map(|u| run.state.units.get(u).and_then(|u| u.pin_result.as_ref()))
            .collect();
        let held: Vec<HexId> = run
            .state
            .units
            .iter()
            .filter(|(u, s)| {
                s.pin_result.as_ref().is_some_and(|r| left.contains(r))
                    && self.counter(u.as_str()).is_some_and(|c| !self.is_friendly(c))
            })
            .filter_map(|(u, _)| hex_of(&run.state, u))
            .collect();
        let may_end = |h: HexId| {
            !self.ends_barred(&run.state, id, h)
                && (h == from
                    || ((!leaves_pin || self.adjacent_enemies(h).is_empty())
                        && !held.iter().any(|p| crate::base::hex::are_adjacent(h, *p, layout))))
        };
        let ends: Vec<HexId> = reach.iter().copied().chain(std::iter::once(from)).filter(|h| may_end(*h)).collect();
        let best = ends.iter().map(|h| crate::base::hex::distance(*h, home, layout)).min()?;
        let mut nearest: Vec<HexId> =
            ends.into_iter().filter(|h| crate::base::hex::distance(*h, home, layout) == best).collect();
        nearest.sort_unstable();
        nearest.dedup();
        Some((best, nearest))
    }

    /// The hexes unit `id` could end a move of its own in from `from`,
    /// alone or by road, the orders' other moves made: each hex its search
    /// reaches, walked and checked as an order ([`Phase::legal_ends`]: a
    /// zone it may never enter, Savannah 4.8, is no hex it can reach).
    /// None if it may not move.
    fn reach_from(&self, run: &Run<'_>, id: &str, from: HexId) -> BTreeSet<HexId> {
        let (Some(c), Some(unit)) = (self.counter(id), run.state.units.get(id)) else {
            return BTreeSet::new();
        };
        let Some(side) = self.side_of_army.get(&c.army) else { return BTreeSet::new() };
        // The unit where it began, as yet unmoved.
        let mut trial = Run::new(run.state.clone(), None);
        trial.quiet = true;
        trial.ordered = run.ordered.clone();
        trial.may_leave = run.may_leave.clone();
        // A reinforcement placed this phase moves as one (9.61, 4.7).
        trial.arrived = run.arrived.clone();
        if let Some(u) = trial.state.units.get_mut(id) {
            u.hex = Some(from);
        }
        let mut reach = BTreeSet::new();
        for order in MoveOrder::probes(id, unit, c) {
            if let Some(p) = self.prepare(&trial, side, "moves[0]", &order, &mut Vec::new()) {
                reach.extend(self.legal_ends(&trial, side, &order, &p));
            }
        }
        reach
    }

    /// 13.3: a disrupted unit that begins the phase next to the enemy must
    /// use its one hex move to move away, when it can.
    pub(super) fn disrupted_must_move(&self, start: &State, run: &mut Run<'_>, sides: &[&str]) {
        // The reach of each unit of the player's other sides, when a side's
        // orders are checked alone, found once for every unit below.
        let mut reaches = BTreeMap::new();
        for (id, unit) in &start.units {
            let Some(c) = self.counter(id.as_str()) else { continue };
            let Some(side) = self.side_of_army.get(&c.army) else { continue };
            if !sides.contains(&side.as_str()) || !self.disrupted_and_free(id, c, unit) {
                continue;
            }
            let Some(hex) = hex_of(start, id) else { continue };
            let enemies = self.adjacent_enemies(hex);
            if enemies.is_empty() {
                continue;
            }
            let group = Group {
                ids: vec![id.clone()],
                start: hex,
                allowance: c.movement.unwrap_or(0),
                sps: self.stacking_weight(start, id).0,
                guns: self.stacking_weight(start, id).1,
                captures: true,
                disrupted: true,
                minimum_move: !NO_MINIMUM_MOVE.contains(&c.kind.as_str()),
                strategic: false,
                no_pass: self.bound_not_to_pass(std::slice::from_ref(id)),
                leaving: Default::default(),
                may_leave: Default::default(),
            };
            let occ = self.occupancy(&run.state, &group.ids);
            // Savannah 4.1: a hex where it would end the phase stacked with
            // a unit the orders leave there, which a restriction keeps
            // apart, is no hex it can move to. Nor, for a held gun sent
            // back (Hist. Special Rules), a hex farther from its at-start
            // hex than its return lets it end (self-play, Historical, seed
            // 677, game 8: the Carolina Battery, disrupted in 1604 next to
            // the Avant-Garde in its at-start hex 1505, was told to move
            // away and refused every hex away for the return).
            let back = self.return_limit(start, run, id);
            let layout = self.terrain.layout;
            let open = |h: HexId| {
                !self.ends_barred(&run.state, id, h)
                    && back.as_ref().is_none_or(|(home, best, _)| crate::base::hex::distance(h, *home, layout) <= *best)
            };
            let options: Vec<HexId> =
                self.disrupted_options_where(&run.state, &group, &occ, open).into_keys().collect();
            // A unit that moved: the move was taken as it was walked, when
            // the orders' later moves could still empty a hex or fill it
            // (`disrupted_options`); here it ends next to no more enemy
            // units than the best hex the orders leave open, or the orders
            // are refused. (A hex they leave barred to it is end of phase
            // stacking's problem.)
            if let Some((_, field)) = run.moved.get(id) {
                let best = options.iter().map(|o| self.adjacent_enemies(*o).len()).min();
                let worse = |h: HexId| best.is_some_and(|b| self.adjacent_enemies(h).len() > b);
                if let Some(now) = hex_of(&run.state, id).filter(|h| open(*h) && worse(*h)) {
                    run.problems.push((
                        side.clone(),
                        problem(Code::DisruptedNextToEnemy,
                            field.clone(),
                            format!(
                                "{id} is disrupted and begins next to enemy {}: it must use its one hex move to move away from as many enemy units as possible (13.3); where the orders leave the other units, {now} is not such a hex: it can move to {}",
                                list(&enemies),
                                hexes_text(&options)
                            ),
                        ),
                    ));
                }
                continue;
            }
            // A side's orders checked alone (`run.may_leave`: the units of
            // the player's other sides, whose orders are not known): a hex
            // one of those units could reach, and which the mover may not
            // end the phase with, may be taken by that side's orders and so
            // is not surely open; where such units, each one that must
            // move itself, could take every hex away, one unit to a hex,
            // the file alone is not refused for the unit staying
            // ([`Phase::others_may_fill`]). The phase checked whole holds
            // it to the hexes the orders leave open (self-play, Historical,
            // seed 569, game 568: Champagne Chasseurs and Harden, disrupted
            // in 1909 with 1910 the one hex away, each side's file refused
            // alone unless its unit took 1910, and the two together refused
            // for ending there stacked, Savannah 4.1).
            if !options.is_empty() && !run.may_leave.is_empty() && self.others_may_fill(run, id, &options, &mut reaches)
            {
                continue;
            }
            if !options.is_empty() {
                run.problems.push((
                    side.clone(),
                    problem(Code::DisruptedNextToEnemy,
                        "moves",
                        format!(
                            "{id} is disrupted and begins next to enemy {}: it must use its one hex move to move away from as many enemy units as possible (13.3); it can move to {}",
                            list(&enemies),
                            hexes_text(&options)
                        ),
                    ),
                ));
            }
        }
    }

    /// Savannah 4.1 (`forced_attack.retreat_instead_if_possible`): the
    /// units of the sides given that begin the phase (`start`, reinforcements
    /// placed) in a stack the restriction binds, next to the enemy, where
    /// they would have to attack (12.12), and can move to a hex next to no
    /// enemy unit: each with where it is, the restriction and its pair, the
    /// enemy units next to it, and those hexes (cheapest first).
    pub(super) fn forced_retreats(&self, start: &State, sides: &[&str]) -> Vec<ForcedRetreat> {
        self.forced_retreats_of(start, sides, |_| true, &BTreeSet::new())
    }

    /// [`Phase::forced_retreats`] of the units `of` keeps (the hexes open
    /// to a retreat are the costly part: a trial move to each).
    ///
    /// "It must retreat instead if possible. If retreat is not possible,
    /// the French/American stack must fulfill the required attack"
    /// (Savannah 4.1): the stack's retreat, not each unit's. The units of
    /// one stack held to it that can each move to a hex next to no enemy
    /// unit must also be able to end there together ([`Phase::retreat_together`]):
    /// where they cannot (self-play, Historical seed 269, game 683: the
    /// 3rd South Carolina and Port-au-Prince, stacked by a retreat in 1307,
    /// each with 1206 its only hex away from the enemy, where the two may
    /// not end the phase stacked), none of them is held to retreat, and the
    /// stack unstacks and attacks as the rules otherwise require. Whether
    /// a stack can retreat is its units' of every side, whichever side's
    /// orders are checked.
    ///
    /// A hex where the unit would end the phase stacked with a unit that a
    /// restriction keeps apart from it (4.1), or with a leader who may not
    /// command it (4.18), is no retreat: the units there as the phase
    /// begins, less those the orders of the unit's own side move (`moved`:
    /// the units the orders checked move, of any side; none for the least
    /// orders). A player can empty the hex; another side's move is none
    /// he can count on, as elsewhere in 4.1. Self-play, Historical, seed
    /// 331, game 382: the San Domingue Volunteers, stacked with Harden's
    /// militia next to the 2nd Georgia Militia, were told to retreat to
    /// 2808, their only hex away, where the Marine Company, French
    /// regulars, stood and stayed; the move there was refused, and the
    /// least orders had none.
    pub(super) fn forced_retreats_of(
        &self,
        start: &State,
        sides: &[&str],
        of: impl Fn(&str) -> bool,
        moved: &BTreeSet<String>,
    ) -> Vec<ForcedRetreat> {
        let mut base = Run::new(start.clone(), None);
        self.place_arrivals(&mut base, &[]);
        let start = &base.state;
        let side_of = |id: &str| self.counter(id).and_then(|c| self.side_of_army.get(&c.army));
        let keep = |r: &Restriction| r.forced_attack.as_ref().is_some_and(|f| f.retreat_instead_if_possible);
        // A unit is held only in a hex where two units fall under such a
        // restriction (`restricted_pair_of` finds one there, its own or
        // the stack's): those hexes first, in one walk of the units, so
        // that the costly test (must it attack?) is made of their units
        // alone. Most phases have no such hex.
        let kept: Vec<&Restriction> = self
            .rules
            .stacking
            .as_ref()
            .map(|s| s.restrictions.iter().filter(|r| keep(r)).collect())
            .unwrap_or_default();
        let mut on_map: Vec<(HexId, &Counter)> = Vec::new();
        if !kept.is_empty() {
            for (id, unit) in &start.units {
                if let (Some(h), Some(c)) = (unit.hex, self.counter(id.as_str())) {
                    on_map.push((h, c));
                }
            }
            on_map.sort_by_key(|e| e.0);
        }
        let pair_hexes: BTreeSet<HexId> = on_map
            .chunk_by(|a, b| a.0 == b.0)
            .filter(|here| here.len() > 1)
            .filter(|here| {
                let counters: Vec<&Counter> = here.iter().map(|(_, c)| *c).collect();
                crate::systems::gboar::board::stacking::first_pair(&counters, kept.iter().copied()).is_some()
            })
            .map(|here| here[0].0)
            .collect();
        let occupancy = std::cell::OnceCell::new();
        // Every friendly unit held to retreat instead of attacking, of every
        // side: (side, unit, hex, restriction, its pair).
        let mut held: Vec<Held<'_>> = Vec::new();
        for (id, unit) in &start.units {
            let Some(hex) = unit.hex.filter(|h| pair_hexes.contains(h)) else { continue };
            let Some(c) = self.counter(id.as_str()) else { continue };
            let Some(side) = self.side_of_army.get(&c.army) else { continue };
            if !self.is_friendly(c) || unit.pinned {
                continue;
            }
            let occupancy =
                occupancy.get_or_init(|| crate::systems::gboar::board::units::Occupancy::new(self.rules, start));
            if !crate::systems::gboar::board::units::must_attack_in(self.rules, start, id, Some(occupancy)) {
                continue;
            }
            // The unit's own pair, not the stack's first: in a stack of
            // three the first pair need not hold it.
            let Some((r, x, y)) =
                crate::systems::gboar::board::stacking::restricted_pair_of(self.rules, start, hex, id, keep)
            else {
                continue;
            };
            held.push((side, id, hex, r, (x, y)));
        }
        let mut options: BTreeMap<&str, Vec<HexId>> = BTreeMap::new();
        let mut stack_can: BTreeMap<HexId, bool> = BTreeMap::new();
        let mut found = Vec::new();
        for (side, id, hex, r, pair) in &held {
            if !sides.contains(&side.as_str()) || !of(id) {
                continue;
            }
            let mates: Vec<&str> = held.iter().filter(|m| m.2 == *hex).map(|m| m.1.as_str()).collect();
            for m in &mates {
                options.entry(m).or_insert_with(|| {
                    let leaving: BTreeSet<String> =
                        moved.iter().filter(|u| side_of(u.as_str()) == side_of(m)).cloned().collect();
                    let away = |h: HexId| {
                        self.adjacent_enemies(h).is_empty() && !self.ends_barred_leaving(start, m, h, &leaving)
                    };
                    self.one_unit_ends(&base, m, away, usize::MAX)
                });
            }
            let mine = options.get(id.as_str()).cloned().unwrap_or_default();
            if mine.is_empty() {
                continue;
            }
            let can = *stack_can.entry(*hex).or_insert_with(|| self.retreat_together(start, &mates, &options));
            if !can {
                continue;
            }
            found.push(ForcedRetreat {
                side: (*side).clone(),
                unit: (*id).clone(),
                hex: *hex,
                restriction: r.id.clone(),
                rule: r.rule_name().to_string(),
                pair: pair.clone(),
                enemies: self.adjacent_enemies(*hex),
                options: mine,
            });
        }
        found
    }

    /// Savannah 4.1: whether the units `ids` of one stack that can each
    /// retreat (those with hexes in `options`; one with none stays, as
    /// before) can end the phase each in one of its hexes at once: no two
    /// in a hex that a restriction bars from ending a Movement Phase
    /// stacked together, and no hex holding more than 7.1 allows with the
    /// friendly units already there. A search of a few units' few hexes,
    /// bounded: one that runs out of steps holds the stack to retreat, as
    /// each unit alone would be.
    fn retreat_together(&self, start: &State, ids: &[&str], options: &BTreeMap<&str, Vec<HexId>>) -> bool {
        let movers: Vec<(&str, &[HexId])> = ids
            .iter()
            .filter_map(|id| options.get(id).filter(|o| !o.is_empty()).map(|o| (*id, o.as_slice())))
            .collect();
        if movers.len() < 2 {
            return true;
        }
        let moving: Vec<String> = movers.iter().map(|(id, _)| id.to_string()).collect();
        let occ = self.occupancy(start, &moving);
        let barred = |a: &str, b: &str| match (self.counter(a), self.counter(b)) {
            (Some(x), Some(y)) => self.may_not_end_stacked(x, y),
            _ => false,
        };
        let fits = |hex: HexId, with: &[(&str, HexId)], id: &str| {
            let Some(limits) = &self.stacking else { return true };
            let (_, (mut s, mut g)) = occ.friendly(hex);
            for (other, _) in with.iter().filter(|(_, h)| *h == hex).chain(std::iter::once(&(id, hex))) {
                let (ds, dg) = self.stacking_weight(start, other);
                s = s.saturating_add(ds);
                g = g.saturating_add(dg);
            }
            limits.holds(s, g)
        };
        let mut budget = 4096u32;
        fn search<'m>(
            movers: &[(&'m str, &[HexId])],
            placed: &mut Vec<(&'m str, HexId)>,
            ok: &Placeable<'m>,
            budget: &mut u32,
        ) -> Option<bool> {
            let Some(((id, hexes), rest)) = movers.split_first() else { return Some(true) };
            for hex in *hexes {
                *budget = budget.checked_sub(1)?;
                if ok(placed, id, *hex) {
                    placed.push((id, *hex));
                    let done = search(rest, placed, ok, budget)?;
                    placed.pop();
                    if done {
                        return Some(true);
                    }
                }
            }
            Some(false)
        }
        let ok = |placed: &[(&str, HexId)], id: &str, hex: HexId| {
            !placed.iter().any(|(other, h)| *h == hex && barred(id, other)) && fits(hex, placed, id)
        };
        search(&movers, &mut Vec::new(), &ok, &mut budget).unwrap_or(true)
    }

    /// The hexes other than its own that `id` can end a one-unit move in
    /// (not pinned units': leaving a pin is the player's choice, 9.3),
    /// cheapest first: the orders' own checks, as for [`unit_moves`].
    /// Only the hexes `keep` keeps, and at most `limit` of them (the trial
    /// move to each hex is the costly part, so those are made last).
    pub(super) fn one_unit_ends(
        &self,
        base: &Run<'_>,
        id: &str,
        keep: impl Fn(HexId) -> bool,
        limit: usize,
    ) -> Vec<HexId> {
        let Some(side) = self.counter(id).and_then(|c| self.side_of_army.get(&c.army)) else {
            return Vec::new();
        };
        let probe = MoveOrder::probe(id, false);
        let mut problems = Vec::new();
        let Some(prepared) = self.prepare(base, side, "moves[0]", &probe, &mut problems) else { return Vec::new() };
        let best = self.search(&base.state, &prepared.group, &prepared.occ, None);
        let mut candidates: Vec<HexId> = best.keys().copied().filter(|h| *h != prepared.start && keep(*h)).collect();
        candidates.sort_by_key(|h| best.get(h).map(|n| (n.mp, n.steps, *h)));
        let mut ends = Vec::new();
        for to in candidates {
            if ends.len() >= limit {
                break;
            }
            if self.ends_at(base, side, &probe, &prepared, &best, to) {
                ends.push(to);
            }
        }
        ends
    }

    /// Savannah 4.1: a stack of [`Phase::forced_retreats`] that the orders
    /// leave next to the enemy.
    ///
    /// "It must retreat instead if possible": as 13.3's move away
    /// ([`Phase::disrupted_must_move`]), over the hexes the orders leave
    /// open. A hex away that the orders fill, with a unit the retreating
    /// one may not end the phase with (Savannah 4.1, 4.18) or past 7.1's
    /// limit with it, is no retreat; a unit whose every hex away is so
    /// filled is not held, stays, and attacks as 12.12 requires. Both
    /// rules' "if possible" compete for one hex, and the player chooses
    /// which is met: Blue Foot held to retreat to 0806 and Blue Rifles,
    /// disrupted, with 0806 its one hex away, where the two do not fit
    /// (tests/cases/movement, Savannah 4.1's cases): the least orders
    /// moved Blue Rifles there, and Blue Foot was still told to retreat
    /// to 0806. A side's orders checked alone (`run.may_leave`) are not
    /// refused for a unit staying when units of the player's other sides
    /// that must move themselves, and that it may not end the phase with,
    /// could take all of those hexes ([`Phase::others_may_fill`]), as for
    /// 13.3.
    pub(super) fn stack_must_retreat(&self, start: &State, run: &mut Run<'_>, sides: &[&str]) {
        // Only the units the orders leave next to the enemy.
        let left_next_to = |id: &str| hex_of(&run.state, id).is_some_and(|now| !self.adjacent_enemies(now).is_empty());
        let moved: BTreeSet<String> = run.moved.keys().cloned().collect();
        let mut reaches = BTreeMap::new();
        for mut f in self.forced_retreats_of(start, sides, left_next_to, &moved) {
            f.options.retain(|h| self.ends_open(&run.state, &f.unit, *h));
            if f.options.is_empty()
                || (!run.may_leave.is_empty() && self.others_may_fill(run, &f.unit, &f.options, &mut reaches))
            {
                continue;
            }
            let field = run.moved.get(&f.unit).map(|(_, field)| field.clone()).unwrap_or_else(|| "moves".into());
            run.problems.push((
                f.side.clone(),
                problem(Code::RestrictedStackMustRetreat,
                    field,
                    format!(
                        "{} begins the Movement Phase in {} in a stack of {} and {}, which {} restricts, next to enemy {} where it would have to attack (12.12): it must retreat instead, ending the phase next to no enemy unit ({}); it can move to {}",
                        f.unit,
                        f.hex,
                        f.pair.0,
                        f.pair.1,
                        f.restriction,
                        list(&f.enemies),
                        f.rule,
                        some_hexes(&f.options)
                    ),
                ),
            ));
        }
    }

    /// Whether `id` could end the phase in `hex` beside the units `state`
    /// has there: none it may not end the phase with ([`Phase::ends_barred`])
    /// and room for it under 7.1 and 7.2 ([`Phase::stacking_weight`]).
    fn ends_open(&self, state: &State, id: &str, hex: HexId) -> bool {
        if self.ends_barred(state, id, hex) {
            return false;
        }
        let Some(limits) = &self.stacking else { return true };
        let (_, (s, g)) = self.occupancy(state, &[id.to_string()]).friendly(hex);
        let (ds, dg) = self.stacking_weight(state, id);
        limits.holds(s.saturating_add(ds), g.saturating_add(dg))
    }

    /// Savannah 4.1 (module.yaml `stacking.restrictions`): whether `id`
    /// ending the phase in `hex` would end it stacked with a unit `state`
    /// has there that a restriction forbids it to end a Movement Phase
    /// stacked with; or, Savannah 4.18, with a friendly leader who may not
    /// command it ("Huger may only stack with and command American Militia
    /// and/or artillery"), or, a leader, with a unit he may not command
    /// ([`Phase::end_of_phase_command_stacking`] refuses either). Self-play,
    /// Historical, seed 311, game 685: Horry's S.C. Horse, disrupted next
    /// to the British, was told it could move to 2108, where Huger stood,
    /// and the move there was refused.
    pub(super) fn ends_barred(&self, state: &State, id: &str, hex: HexId) -> bool {
        self.ends_barred_leaving(state, id, hex, &BTreeSet::new())
    }

    /// [`Phase::ends_barred`] with the units of `leaving` gone from `hex`
    /// (the orders move them).
    pub(super) fn ends_barred_leaving(&self, state: &State, id: &str, hex: HexId, leaving: &BTreeSet<String>) -> bool {
        let Some(me) = self.counter(id) else { return false };
        let there = |other: &String, u: &crate::systems::gboar::board::state::UnitState| {
            other.as_str() != id && u.hex == Some(hex) && !leaving.contains(other)
        };
        state
            .units
            .iter()
            .filter(|(other, u)| there(other, u))
            .any(|(other, _)| self.counter(other.as_str()).is_some_and(|c| self.bars_ending_with(me, c)))
    }

    /// Whether `me` may not end the Movement Phase in a hex where `other`
    /// ends it: a restriction keeps them apart (Savannah 4.1), or one is a
    /// friendly leader who may not command the other (Savannah 4.18).
    fn bars_ending_with(&self, me: &Counter, other: &Counter) -> bool {
        let refuses = |leader: &Counter, unit: &Counter| {
            leader.is_leader() && !unit.is_leader() && leader.commands.is_some() && !leader.may_command(unit)
        };
        let friends = self.is_friendly(other) && self.is_friendly(me);
        self.may_not_end_stacked(me, other) || (friends && (refuses(other, me) || refuses(me, other)))
    }

    /// A side's orders checked alone: whether units of the player's other
    /// sides (`run.may_leave`, their orders not known), each one that `id`
    /// may not end the phase with and that must itself move if it can
    /// ([`Phase::obliged_to_move`]), could take every hex of `hexes` this
    /// phase, one unit to a hex (a unit ends its move in one hex): a
    /// matching of the hexes to such units, each hex to a unit whose reach
    /// holds it. Each unit's reach is searched once (`reaches`), as
    /// `adjutant template` finds it: a move alone, and by road.
    ///
    /// Only such units: where no unit of the other sides must move, the
    /// player can always write the other files so that the hexes the unit
    /// must take stay open, and the file alone is held to its move (a
    /// French unit held to retreat, American units all about, any of which
    /// could fill its hexes: the French file that leaves it is refused
    /// alone, as it will be whole unless the American file fills them all).
    /// Where another side's unit must move too, the two obligations may
    /// compete for the same hexes, and each file alone leaves them to the
    /// other (self-play, Historical, seed 569, game 568).
    fn others_may_fill(
        &self,
        run: &Run<'_>,
        id: &str,
        hexes: &[HexId],
        reaches: &mut BTreeMap<String, BTreeSet<HexId>>,
    ) -> bool {
        let Some(me) = self.counter(id) else { return false };
        let units: Vec<(&String, &Counter)> = run
            .may_leave
            .iter()
            .filter(|other| self.obliged_to_move(&run.state, other))
            .filter_map(|other| {
                self.counter(other.as_str()).filter(|c| self.bars_ending_with(me, c)).map(|c| (other, c))
            })
            .collect();
        if hexes.is_empty() || units.len() < hexes.len() {
            return false;
        }
        let mut takers: Vec<Vec<usize>> = Vec::with_capacity(hexes.len());
        for h in hexes {
            let mut can = Vec::new();
            for (k, (other, _)) in units.iter().enumerate() {
                if reaches.entry((*other).clone()).or_insert_with(|| self.reach_alone(run, other)).contains(h) {
                    can.push(k);
                }
            }
            if can.is_empty() {
                return false;
            }
            takers.push(can);
        }
        // Kuhn's augmenting paths: each hex in turn finds a unit, taking it
        // from an earlier hex that can find another.
        fn augment(h: usize, takers: &[Vec<usize>], owner: &mut [Option<usize>], seen: &mut [bool]) -> bool {
            for &u in &takers[h] {
                if std::mem::replace(&mut seen[u], true) {
                    continue;
                }
                if owner[u].is_none_or(|before| augment(before, takers, owner, seen)) {
                    owner[u] = Some(h);
                    return true;
                }
            }
            false
        }
        let mut owner = vec![None; units.len()];
        (0..hexes.len()).all(|h| augment(h, &takers, &mut owner, &mut vec![false; units.len()]))
    }

    /// 13.3: whether `id` is a disrupted unit that its move away may be
    /// asked of, if it begins next to the enemy: not a leader, not pinned
    /// (leaving a pin is the player's choice, 9.3), and not a gun the
    /// scenario holds in place, which may not move at all (self-play,
    /// Historical, seed 311, game 839: the Fort Battery, disrupted by fire
    /// next to Auxerrois, was told to move, and every move of it was
    /// refused).
    fn disrupted_and_free(&self, id: &str, c: &Counter, unit: &UnitState) -> bool {
        !c.is_leader() && unit.condition == Condition::Disrupted && !unit.pinned && !self.fixed_in_place(id, c, unit)
    }

    /// Whether unit `id`, where `state` has it, must move this phase if it
    /// can: disrupted next to the enemy (13.3, [`Phase::disrupted_and_free`]),
    /// or in a hex with a unit it may not end the phase with (Savannah
    /// 4.1's unstacking and retreat, 4.18's leaders), and not pinned nor a
    /// gun held in place.
    fn obliged_to_move(&self, state: &State, id: &str) -> bool {
        let (Some(unit), Some(c)) = (state.units.get(id), self.counter(id)) else { return false };
        let Some(hex) = unit.hex.filter(|_| !unit.pinned && !self.fixed_in_place(id, c, unit)) else { return false };
        (self.disrupted_and_free(id, c, unit) && !self.adjacent_enemies(hex).is_empty())
            || self.ends_barred(state, id, hex)
    }

    /// The hexes unit `id` could end its move in, in `run`'s phase, by a
    /// move of its own (none if it may not move). A held gun sent back
    /// (Savannah Hist. Special Rules, [`Phase::return_limit`]) ends no
    /// farther from its at-start hex than the nearest it could: only those.
    fn reach_alone(&self, run: &Run<'_>, id: &str) -> BTreeSet<HexId> {
        let Some(unit) = run.state.units.get(id) else { return BTreeSet::new() };
        let Some(from) = unit.hex else { return BTreeSet::new() };
        let reach = self.reach_from(run, id, from);
        let home = self.home(id).filter(|h| unit.must_return && *h != from);
        let best =
            home.and_then(|home| self.return_best(run, id, from, home, &reach, unit.pinned).map(|b| (home, b.0)));
        match best {
            Some((home, best)) => {
                let layout = self.terrain.layout;
                reach.into_iter().filter(|h| crate::base::hex::distance(*h, home, layout) <= best).collect()
            }
            None => reach,
        }
    }

    /// Savannah 4.1 (module.yaml `stacking.restrictions`): whether `x` and
    /// `y` may not end a Movement Phase stacked together.
    fn may_not_end_stacked(&self, x: &Counter, y: &Counter) -> bool {
        self.stacking
            .as_ref()
            .is_some_and(|s| s.restrictions.iter().any(|r| !r.may_end_movement_phase_stacked && r.applies(x, y)))
    }

    /// Savannah 4.1 (module.yaml `stacking.restrictions`): units that may
    /// not end a Movement Phase stacked together. A side's orders alone
    /// (`whole_phase` false) are held to it only for pairs of its own units.
    pub(super) fn end_of_phase_stacking(&self, start: &State, run: &mut Run<'_>, sides: &[&str], whole_phase: bool) {
        let Some(stacking) = &self.stacking else { return };
        let mut by_hex: BTreeMap<HexId, Vec<&Counter>> = BTreeMap::new();
        for (id, unit) in &run.state.units {
            let Some(c) = self.counter(id.as_str()) else { continue };
            if !self.is_friendly(c) {
                continue;
            }
            if let Some(h) = unit.hex {
                by_hex.entry(h).or_default().push(c);
            }
        }
        let side_of = |c: &Counter| self.side_of_army.get(&c.army).cloned().unwrap_or_default();
        let mut found = Vec::new();
        for r in stacking.restrictions.iter().filter(|r| !r.may_end_movement_phase_stacked) {
            for (hex, units) in &by_hex {
                for (n, x) in units.iter().enumerate() {
                    for y in units.iter().skip(n + 1) {
                        if !r.applies(x, y) {
                            continue;
                        }
                        let (sx, sy) = (side_of(x), side_of(y));
                        if !(whole_phase || sx == sy && sides.contains(&sx.as_str())) {
                            continue;
                        }
                        // The move named is one not lost on the Covered Way
                        // if there is one (Savannah 4.9: a lost stack's move
                        // stands where the roll left it; the other is not made).
                        let lost = |c: &&Counter| run.state.units.get(&c.id).is_some_and(|u| u.lost);
                        let mover =
                            [x, y].into_iter().filter(|c| run.moved.contains_key(&c.id)).min_by_key(|c| lost(c));
                        let text = format!(
                            "{} and {} end the Movement Phase stacked in {hex}, which {} forbids ({})",
                            x.id,
                            y.id,
                            r.id,
                            r.rule_name()
                        );
                        match mover {
                            Some(c) => {
                                let (side, field) = run.moved.get(&c.id).cloned().unwrap_or_default();
                                found.push((side, problem(Code::RestrictedStackEnds, field, text)));
                            }
                            None => {
                                let always =
                                    r.after_retreat.as_ref().and_then(|a| a.unstack_next_friendly_movement.as_deref())
                                        == Some("always");
                                let stacked_before =
                                    hex_of(start, &x.id) == Some(*hex) && hex_of(start, &y.id) == Some(*hex);
                                // Only if one of them can move at all, to
                                // a hex where it would not end the phase
                                // stacked with a unit the orders leave
                                // there that a restriction keeps apart.
                                let can_move = || {
                                    let mut base = Run::new(start.clone(), None);
                                    self.place_arrivals(&mut base, &[]);
                                    [&x.id, &y.id].into_iter().any(|id| {
                                        let open = |h: HexId| !self.ends_barred(&run.state, id, h);
                                        !self.one_unit_ends(&base, id, open, 1).is_empty()
                                    })
                                };
                                if always && stacked_before && can_move() {
                                    found.push((
                                        sx.clone(),
                                        problem(
                                            Code::RestrictedStackMustUnstack,
                                            "moves",
                                            format!("{text}: they must unstack this Movement Phase"),
                                        ),
                                    ));
                                }
                            }
                        }
                    }
                }
            }
        }
        run.problems.extend(found);
    }

    /// Savannah 4.1 (module.yaml `stacking.restrictions`) with 9.61: a
    /// reinforcement placed this phase that no order moves, left in its
    /// entry hex with a unit a restriction keeps apart from it that no
    /// order moves either, ends the Movement Phase stacked with it ("may
    /// not stack together at the end of a Movement Phase"); only a retreat
    /// excuses a restricted stack. Checked once the arrivals over the
    /// stacking limit are held over (Savannah 4.7), which leave the map.
    pub(super) fn end_of_phase_arrival_stacking(&self, run: &mut Run<'_>, sides: &[&str], whole_phase: bool) {
        let Some(stacking) = &self.stacking else { return };
        let side_of = |c: &Counter| self.side_of_army.get(&c.army).cloned().unwrap_or_default();
        let mut found = Vec::new();
        for (id, entry) in &run.arrived {
            let Some(me) = self.counter(id.as_str()) else { continue };
            if run.moved.contains_key(id) || hex_of(&run.state, id) != Some(*entry) {
                continue;
            }
            for (other, _) in run.state.units.iter().filter(|(o, u)| *o != id && unit_hex(u) == Some(*entry)) {
                let Some(c) = self.counter(other.as_str()) else { continue };
                // A pair of two arrivals is named once, by its first.
                if !self.is_friendly(c)
                    || run.moved.contains_key(other)
                    || run.arrived.get(other) == Some(entry) && other < id
                {
                    continue;
                }
                let Some(r) =
                    stacking.restrictions.iter().find(|r| !r.may_end_movement_phase_stacked && r.applies(me, c))
                else {
                    continue;
                };
                let (sx, sy) = (side_of(me), side_of(c));
                if !(whole_phase || sx == sy && sides.contains(&sx.as_str())) {
                    continue;
                }
                found.push((
                    sx,
                    problem(
                        Code::RestrictedStackEnds,
                        "moves",
                        format!(
                            "{id} and {other} end the Movement Phase stacked in {entry}, which {} forbids ({}): {id} is placed there as a reinforcement this phase (9.61) and nothing moves either away; move one of them{}",
                            r.id,
                            r.rule_name(),
                            if self.reinforcements.is_none_or(|x| x.voluntary_delay) {
                                format!(", or delay {id}")
                            } else {
                                String::new()
                            }
                        ),
                    ),
                ));
            }
        }
        run.problems.extend(found);
    }

    /// Savannah 4.18: "Huger may only stack with and command American
    /// Militia and/or artillery": a leader whose counter gives `commands`
    /// may not end a move stacked with a friendly combat unit outside them.
    /// Held against the orders that moved the leader or the unit; a stack
    /// that nobody moved (made by a retreat) is left as it is.
    pub(super) fn end_of_phase_command_stacking(&self, run: &mut Run<'_>, sides: &[&str], whole_phase: bool) {
        let mut by_hex: BTreeMap<HexId, Vec<&Counter>> = BTreeMap::new();
        for (id, unit) in &run.state.units {
            let Some(c) = self.counter(id.as_str()) else { continue };
            if !self.is_friendly(c) {
                continue;
            }
            if let Some(h) = unit.hex {
                by_hex.entry(h).or_default().push(c);
            }
        }
        let mut found = Vec::new();
        for (hex, units) in &by_hex {
            for leader in units.iter().filter(|c| c.is_leader() && c.commands.is_some()) {
                for unit in units.iter().filter(|u| !leader.may_command(u)) {
                    let Some((side, field)) = [leader, unit].into_iter().find_map(|c| run.moved.get(&c.id).cloned())
                    else {
                        continue;
                    };
                    if !(whole_phase || sides.contains(&side.as_str())) {
                        continue;
                    }
                    let commands = leader
                        .commands
                        .as_ref()
                        .map(|c| c.colour_groups.iter().chain(&c.types).cloned().collect::<Vec<_>>().join(", "));
                    found.push((
                        side,
                        problem(Code::LeaderMayNotCommand,
                            field,
                            format!(
                                "{} and {} end a move stacked in {hex}: {} may stack with and command only {} (Savannah 4.18)",
                                leader.id,
                                unit.id,
                                leader.id,
                                commands.unwrap_or_default()
                            ),
                        ),
                    ));
                }
            }
        }
        run.problems.extend(found);
    }
}

impl Phase<'_> {
    /// The hexes a prepared one-unit move may end in: each hex the search
    /// reaches, walked by the path it found and checked as an order.
    pub(super) fn legal_ends(&self, base: &Run<'_>, side: &str, order: &MoveOrder, prepared: &Prepared) -> Vec<HexId> {
        let best = self.search(&base.state, &prepared.group, &prepared.occ, None);
        best.keys().copied().filter(|to| self.ends_at(base, side, order, prepared, &best, *to)).collect()
    }

    /// Whether the prepared one-unit move may end in `to`, a hex the
    /// search reached: walked by the path it found, checked as an order.
    pub(super) fn ends_at(
        &self,
        base: &Run<'_>,
        side: &str,
        order: &MoveOrder,
        prepared: &Prepared,
        best: &BTreeMap<HexId, Node>,
        to: HexId,
    ) -> bool {
        let path = Phase::path_to(best, prepared.start, to);
        let order =
            MoveOrder { path: Some(path.iter().map(|h| HexText::Text(h.to_string())).collect()), ..order.clone() };
        let mut trial = Run::new(base.state.clone(), None);
        trial.arrived = base.arrived.clone();
        trial.quiet = true;
        let mut problems = Vec::new();
        // The trial's one move keeps no board for a next.
        let _made = self.move_prepared(&mut trial, side, "moves[0]", &order, prepared, &mut problems);
        self.pinned_movers_end_away(&mut trial);
        problems.is_empty() && trial.problems.is_empty()
    }
}
