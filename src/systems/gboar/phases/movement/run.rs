//! Running the orders: the arrivals placed as the phase begins (9.61,
//! Savannah 4.7), each side's moves read, checked and made in their order
//! (9.1), with every problem kept (a refusal names them all).

use super::*;

impl<'a> Phase<'a> {
    /// Every side's orders, in the order of the sides given. `quiet`: a
    /// run made only for its problems ([`validate`], [`validate_sides`]),
    /// whose moves write no events ([`Run::quiet`]).
    pub(super) fn run<'d>(
        &self,
        state: &State,
        orders: &[(&str, &crate::base::yaml::Value)],
        whole_phase: bool,
        dice: Option<&'d mut dyn Dice>,
        quiet: bool,
    ) -> Result<Run<'d>> {
        let mut run = Run::new(state.clone(), dice);
        run.quiet = quiet;
        // Savannah 4.9: at the beginning of the next friendly Movement
        // Phase, Lost markers turn to their Previously Lost side.
        let flipped: Vec<String> = run
            .state
            .units
            .iter()
            .filter(|(id, u)| u.lost && self.counter(id.as_str()).is_some_and(|c| self.is_friendly(c)))
            .map(|(id, _)| id.clone())
            .collect();
        for id in &flipped {
            if let Some(u) = run.state.units.get_mut(id) {
                u.lost = false;
                u.previously_lost = true;
            }
        }
        if !flipped.is_empty() {
            run.events.push(
                Event::new(
                    "Savannah 4.9",
                    "previously-lost",
                    format!("Lost markers turn to Previously Lost: {}", self.names(&flipped)),
                )
                .with("units", &flipped),
            );
        }
        self.place_arrivals(&mut run, orders);
        // 13.3 with Savannah 4.1: the units the orders move, whose hexes a
        // disrupted unit may move to while they still stand there.
        let ordered: BTreeSet<String> = orders
            .iter()
            .filter_map(|(_, body)| body.get("moves").and_then(crate::base::yaml::Value::as_sequence))
            .flatten()
            .flat_map(|m| {
                let one = m.get("unit").and_then(crate::base::yaml::Value::as_str).map(str::to_string);
                let stack = m
                    .get("stack")
                    .and_then(crate::base::yaml::Value::as_sequence)
                    .map(|l| l.iter().filter_map(|u| u.as_str().map(str::to_string)).collect::<Vec<_>>())
                    .unwrap_or_default();
                one.into_iter().chain(stack)
            })
            .collect();
        run.ordered = std::sync::Arc::new(ordered);
        // A side's orders checked alone know nothing of the player's other
        // sides' moves: their units may leave (as the end of the phase
        // holds a side alone only to pairs of its own units).
        if !whole_phase {
            let given: Vec<&str> = orders.iter().map(|(s, _)| *s).collect();
            let others: BTreeSet<String> = run
                .state
                .units
                .keys()
                .filter(|id| {
                    let side = self.counter(id.as_str()).and_then(|c| self.side_of_army.get(&c.army));
                    side.is_some_and(|s| self.sides.contains(s) && !given.contains(&s.as_str()))
                })
                .cloned()
                .collect();
            run.may_leave = std::sync::Arc::new(others);
            run.others_leave_first = true;
        }
        // The board the moves are made on ([`Phase::one_move`]): only
        // the moves change the state from here to the end of the phase's
        // moves.
        let mut board = None;
        for (side, body) in orders {
            if !self.sides.iter().any(|s| s == side) {
                run.problems.push((
                    side.to_string(),
                    problem(
                        Code::SideNotPhasing,
                        "",
                        format!(
                            "the {side} side does not move in the {} player turn; its sides are {}",
                            self.player,
                            self.sides.join(", ")
                        ),
                    ),
                ));
                continue;
            }
            self.run_side(&mut run, side, body, &mut board);
        }
        self.waited_moves(&mut run, &mut board);
        let sides: Vec<&str> = orders.iter().map(|(s, _)| *s).collect();
        self.pinned_movers_end_away(&mut run);
        self.disrupted_must_move(state, &mut run, &sides);
        self.stack_must_retreat(state, &mut run, &sides);
        self.guns_must_return(state, &mut run, &sides);
        self.end_of_phase_stacking(state, &mut run, &sides, whole_phase);
        self.end_of_phase_command_stacking(&mut run, &sides, whole_phase);
        self.end_of_phase_arrivals(&mut run, orders);
        self.end_of_phase_arrival_stacking(&mut run, &sides, whole_phase);
        self.overstacking_penalty(&mut run, orders);
        match run.failure.take() {
            Some(e) => Err(e),
            None => Ok(run),
        }
    }

    /// 9.61: the reinforcements due this turn are placed at the beginning
    /// of the phase, over the stacking limit if need be; `delay` keeps some
    /// off the map until next turn, `enter` picks among the hexes offered.
    pub(super) fn place_arrivals(&self, run: &mut Run<'_>, orders: &[(&str, &crate::base::yaml::Value)]) {
        let turn = run.state.turn;
        let mut wanted: BTreeMap<String, (String, ArrivalOrders)> = BTreeMap::new();
        for (side, body) in orders {
            let parsed: ArrivalOrders = crate::base::yaml::from_value_ref(body).unwrap_or_default();
            wanted.insert(side.to_string(), (side.to_string(), parsed));
        }
        let due: Vec<String> = run
            .state
            .units
            .iter()
            .filter(|(id, u)| {
                u.off_map == Some(OffMap::Reinforcement)
                    && u.arriving.as_ref().is_some_and(|a| a.turn == turn)
                    && self.counter(id.as_str()).is_some_and(|c| self.is_friendly(c))
            })
            .map(|(id, _)| id.clone())
            .collect();
        let side_of =
            |id: &str| self.counter(id).and_then(|c| self.side_of_army.get(&c.army)).cloned().unwrap_or_default();
        // Orders that name units which are not arriving.
        for (side, (_, o)) in &wanted {
            for (n, id) in o.delay.iter().enumerate() {
                if !due.contains(id) {
                    run.problems.push((
                        side.clone(),
                        problem(
                            Code::NotArriving,
                            format!("delay[{n}]"),
                            format!(
                                "{} is not a reinforcement arriving this turn; those arriving are {}",
                                crate::base::error::echo(id),
                                list_or_none(&due)
                            ),
                        ),
                    ));
                } else if self.reinforcements.is_some_and(|r| !r.voluntary_delay) {
                    run.problems.push((
                        side.clone(),
                        problem(
                            Code::DelayForbidden,
                            format!("delay[{n}]"),
                            "this scenario's rules forbid delaying reinforcements (9.61)",
                        ),
                    ));
                }
            }
            for id in o.enter.keys() {
                if !due.contains(id) {
                    run.problems.push((
                        side.clone(),
                        problem(
                            Code::NotArriving,
                            format!("enter.{id}"),
                            format!(
                                "{} is not a reinforcement arriving this turn; those arriving are {}",
                                crate::base::error::echo(id),
                                list_or_none(&due)
                            ),
                        ),
                    ));
                }
            }
        }
        for id in due {
            let side = side_of(&id);
            let Some(arrival) = run.state.units.get(&id).and_then(|u| u.arriving.clone()) else { continue };
            let own = wanted.get(&side).map(|(_, o)| o);
            if own.is_some_and(|o| o.delay.contains(&id)) {
                if let Some(u) = run.state.units.get_mut(&id) {
                    u.arriving =
                        Some(crate::systems::gboar::board::state::Arrival { turn: turn.saturating_add(1), ..arrival });
                }
                run.events.push(
                    Event::new("9.61", "delayed", format!("{} is kept off the map until next turn", self.name(&id)))
                        .with("unit", &id),
                );
                continue;
            }
            let chosen = match own.and_then(|o| o.enter.get(&id)) {
                Some(text) => match text.parse() {
                    Ok(h) if arrival.hexes.iter().any(|x| x.parse::<HexId>().ok() == Some(h)) => Some(h),
                    Ok(h) => {
                        run.problems.push((
                            side.clone(),
                            problem(
                                Code::WrongEntryHex,
                                format!("enter.{id}"),
                                format!(
                                    "{id} may enter at {}, not at {h} (9.61, Savannah 4.7)",
                                    arrival.hexes.join(" or ")
                                ),
                            ),
                        ));
                        None
                    }
                    Err(e) => {
                        run.problems.push((side.clone(), problem(Code::NotAHexId, format!("enter.{id}"), e)));
                        None
                    }
                },
                None => arrival.hexes.first().and_then(|h| h.parse().ok()),
            };
            let Some(hex) = chosen else { continue };
            if let Some(u) = run.state.units.get_mut(&id) {
                u.hex = Some(hex);
                u.off_map = None;
            }
            run.arrived.insert(id.clone(), hex);
            run.events.push(
                Event::new(
                    "9.61",
                    "placed",
                    format!("{} is placed at {hex} ({}); placement costs no MP (9.62)", self.name(&id), arrival.entry),
                )
                .with("unit", &id)
                .with("hex", hex.to_string()),
            );
        }
    }

    /// The scenario's fixed artillery (the Historical Scenario's Special
    /// Rules: "no artillery may move until attacked in Close Combat"):
    /// whether unit `id` is held where it stands.
    pub(super) fn fixed_in_place(
        &self,
        id: &str,
        counter: &Counter,
        unit: &crate::systems::gboar::board::state::UnitState,
    ) -> bool {
        self.fixed_artillery.is_some_and(|fixed| {
            fixed.types.contains(&counter.kind)
                && (fixed.armies.is_empty() || fixed.armies.contains(&counter.army))
                && !fixed.except_units.iter().any(|u| u == id)
                && !unit.released
                && !unit.must_return
        })
    }

    /// A side's moves, in its file's order; `board` as [`Phase::one_move`]
    /// keeps it (none: built at the first move).
    pub(super) fn run_side(
        &self,
        run: &mut Run<'_>,
        side: &str,
        body: &crate::base::yaml::Value,
        board: &mut Option<Occupancy<'a>>,
    ) {
        if body.is_null() {
            return;
        }
        let orders: MovementOrders = match crate::base::yaml::deserialize_at(body) {
            Ok(o) => o,
            Err(e) => {
                let path = e.path().to_string();
                let field = if path == "." { String::new() } else { path };
                run.problems.push((
                    side.to_string(),
                    problem(
                        Code::OrdersShape,
                        field,
                        format!(
                            "{} (movement orders are `moves:`, a list of moves)",
                            crate::base::error::echo_serde(e.inner())
                        ),
                    ),
                ));
                return;
            }
        };
        if orders.declare_assault {
            self.declare_assault(run, side);
        }
        for (i, value) in orders.moves.iter().enumerate() {
            let field = format!("moves[{i}]");
            let order: MoveOrder = match crate::base::yaml::deserialize_at(value) {
                Ok(o) => o,
                Err(e) => {
                    let path = e.path().to_string();
                    let at = if path == "." { field.clone() } else { format!("{field}.{path}") };
                    run.problems.push((
                        side.to_string(),
                        problem(
                            Code::OrdersShape,
                            at,
                            format!(
                                "{} (a move has unit or stack, path or to, and may have strategic and leave_pin)",
                                crate::base::error::echo_serde(e.inner())
                            ),
                        ),
                    ));
                    continue;
                }
            };
            let mut problems = Vec::new();
            self.one_move(run, side, &field, &order, &mut problems, board);
            if self.may_wait(run, side, &problems) {
                run.waiting.push(Waiting { side: side.to_string(), field, order, problems });
                continue;
            }
            run.problems.extend(problems.into_iter().map(|p| (side.to_string(), p)));
        }
    }

    /// 9.1: a player moves his units one at a time, in the order he
    /// chooses; with two sides' files (Savannah's Americans and French,
    /// one Allied player) the files are read one after the other, so a
    /// move refused for a unit of the player's other side still standing
    /// in the way (the stacking limit, 7.2; a unit it may not pass through,
    /// Savannah 4.1; a path or a disrupted unit's hex away that needs that
    /// hex, 13.3) waits, when that side's orders move a unit that has not
    /// moved yet, and is made after them ([`Phase::waited_moves`]). Self-play,
    /// Historical, seed 827, game 995: Reed (American, disrupted) had one
    /// hex away, 2108, free only once Dillon's Irish (French) left it.
    fn may_wait(&self, run: &Run<'_>, side: &str, problems: &[Problem]) -> bool {
        waits(problems)
            && run.ordered.iter().any(|id| {
                !run.moved.contains_key(id)
                    && self
                        .counter(id.as_str())
                        .and_then(|c| self.side_of_army.get(&c.army))
                        .is_some_and(|s| s != side && self.sides.contains(s))
            })
    }

    /// The moves that waited ([`Phase::may_wait`]), made again in their
    /// order after every side's file, and again while one of them is made;
    /// those still refused then give their problems as the last attempt
    /// found them.
    fn waited_moves(&self, run: &mut Run<'_>, board: &mut Option<Occupancy<'a>>) {
        loop {
            let waiting = std::mem::take(&mut run.waiting);
            if waiting.is_empty() {
                return;
            }
            let mut made = false;
            let mut still = Vec::new();
            for w in waiting {
                let mut problems = Vec::new();
                self.one_move(run, &w.side, &w.field, &w.order, &mut problems, board);
                if waits(&problems) {
                    still.push(Waiting { problems, ..w });
                } else {
                    // Made (a problem of another kind, the module's data
                    // for a leader captured on the way, comes after the move).
                    made = true;
                    run.problems.extend(problems.into_iter().map(|p| (w.side.clone(), p)));
                }
            }
            if !made {
                for w in still {
                    run.problems.extend(w.problems.into_iter().map(|p| (w.side.clone(), p)));
                }
                return;
            }
            run.waiting = still;
        }
    }

    /// The units of a side's own army that it may move, for "did you mean".
    pub(super) fn suggest(&self, state: &State, side: &str, wrong: &str) -> String {
        let mut cache = self.on_map.borrow_mut();
        let own = cache.entry(side.to_string()).or_insert_with(|| {
            state
                .units
                .iter()
                .filter(|(id, u)| {
                    u.hex.is_some()
                        && self
                            .counter(id.as_str())
                            .is_some_and(|c| self.side_of_army.get(&c.army).map(String::as_str) == Some(side))
                })
                .map(|(id, _)| id.clone())
                .collect()
        });
        let own: Vec<&str> = own.iter().map(String::as_str).collect();
        // An id is near when at most a third of its letters are wrong; the
        // distance is at least the difference in length, so ids too long or
        // too short to be near are never compared (a 1 MB "id" costs nothing).
        let near_enough = |d: usize, id: &str| d * 3 <= id.len().max(3);
        let mut near: Vec<(usize, &str)> = own
            .iter()
            .filter(|id| near_enough(id.len().abs_diff(wrong.len()), id))
            .map(|id| (edit_distance(wrong, id), *id))
            .collect();
        near.sort();
        let close: Vec<&str> = near.iter().filter(|(d, id)| near_enough(*d, id)).map(|(_, id)| *id).take(3).collect();
        if close.is_empty() {
            format!("the {side} units on the map are {}", own.join(", "))
        } else {
            format!("did you mean {}?", close.join(" or "))
        }
    }

    /// A move's units and what they move as, checked: every rule that holds
    /// the units back before any hex is entered (9.1, 9.3, 12.4, 13.4, the
    /// scenario's fixed guns; 9.52's and the weather's for strategic
    /// movement). None, with the problems, when the move may not be made.
    pub(super) fn prepare(
        &self,
        run: &Run<'_>,
        side: &str,
        field: &str,
        order: &MoveOrder,
        problems: &mut Vec<Problem>,
    ) -> Option<Prepared<'a>> {
        self.prepare_on(run, side, field, order, problems, None)
    }

    /// [`Phase::prepare`], with `board` (when given) the occupancy of
    /// `run.state` with no unit moving, as [`Phase::occupancy`] built it:
    /// the move's own units are taken off it rather than the state walked
    /// again.
    pub(super) fn prepare_on(
        &self,
        run: &Run<'_>,
        side: &str,
        field: &str,
        order: &MoveOrder,
        problems: &mut Vec<Problem>,
        board: Option<&Occupancy<'a>>,
    ) -> Option<Prepared<'a>> {
        let state = &run.state;
        // The units.
        // (Each unit's field, `moves[2].stack[1]`, is written only for a
        // problem.)
        let (ids, ids_key): (Vec<String>, &str) = match (&order.unit, &order.stack) {
            (Some(u), None) => (vec![u.clone()], "unit"),
            (None, Some(s)) if !s.is_empty() => (s.clone(), "stack"),
            (None, Some(_)) => {
                problems.push(problem(
                    Code::OrdersShape,
                    format!("{field}.stack"),
                    "the stack is empty: list the units that move together",
                ));
                return None;
            }
            (Some(_), Some(_)) => {
                problems.push(problem(Code::OrdersShape, field, "give unit or stack, not both"));
                return None;
            }
            (None, None) => {
                problems.push(problem(
                    Code::OrdersShape,
                    field,
                    "give the unit that moves (unit: ID) or the units moving together (stack: [ID, ...])",
                ));
                return None;
            }
        };
        let mut start: Option<HexId> = None;
        let mut ok = true;
        let mut listed = BTreeSet::new();
        for (n, id) in ids.iter().enumerate() {
            let stacked = order.stack.is_some();
            let bad = |code: Code, message: String, problems: &mut Vec<Problem>| {
                let at = if stacked { format!("{field}.{ids_key}[{n}]") } else { format!("{field}.{ids_key}") };
                problems.push(problem(code, at, message))
            };
            if !listed.insert(id.as_str()) {
                bad(Code::ListedTwice, format!("{} is listed twice", crate::base::error::echo(id)), problems);
                ok = false;
                continue;
            }
            let (Some(counter), Some(unit)) = (self.counter(id.as_str()), state.units.get(id)) else {
                bad(
                    Code::UnknownUnit,
                    format!(
                        "there is no unit '{}' in this game; {}",
                        crate::base::error::echo(id),
                        self.suggest(state, side, id)
                    ),
                    problems,
                );
                ok = false;
                continue;
            };
            let army_side = self.side_of_army.get(&counter.army).map(String::as_str).unwrap_or("");
            if army_side != side {
                let whose = if self.is_friendly(counter) {
                    format!("a unit of the {} army: the {army_side} orders move it", counter.army)
                } else {
                    format!("an enemy unit (the {} army)", counter.army)
                };
                bad(
                    Code::NotOwnUnit,
                    format!("{id} is {whose}; a side moves only its own army's units (9.1)"),
                    problems,
                );
                ok = false;
                continue;
            }
            let Some(hex) = unit.hex else {
                let where_ = match unit.off_map {
                    Some(OffMap::Reinforcement) if unit.arriving.as_ref().is_some_and(|a| a.turn == state.turn) => {
                        "a reinforcement kept off the map this turn (`delay`)"
                    }
                    Some(OffMap::Reinforcement) => "a reinforcement that does not arrive this turn (9.6)",
                    Some(OffMap::Captured) => "captured",
                    Some(OffMap::Eliminated) => "eliminated",
                    Some(OffMap::Removed) => "removed from play",
                    None => "off the map",
                };
                bad(Code::UnitOffMap, format!("{id} is {where_}, so it cannot move"), problems);
                ok = false;
                continue;
            };
            if let Some((_, by)) = run.moved.get(id) {
                bad(Code::MovedTwice, format!("{id} has already moved ({by}); each unit moves at most once and completes its move before another moves (9.1)"), problems);
                ok = false;
                continue;
            }
            if unit.condition == Condition::Shattered && !counter.is_leader() {
                bad(
                    Code::ShatteredMayNotMove,
                    format!("{id} is shattered: shattered units may not move (13.4, 9.2)"),
                    problems,
                );
                ok = false;
                continue;
            }
            if let Some(fixed) = &self.fixed_artillery {
                if self.fixed_in_place(id, counter, unit) {
                    bad(
                        Code::FixedArtillery,
                        format!(
                            "{id} may not move: no {} may move until attacked in Close Combat ({}){}",
                            counter.kind,
                            fixed.rule,
                            if fixed.except_units.is_empty() {
                                String::new()
                            } else {
                                format!("; only {} may", self.names(&fixed.except_units))
                            }
                        ),
                        problems,
                    );
                    ok = false;
                    continue;
                }
            }
            if unit.cavalry_withdrawn {
                bad(Code::CavalryWithdrawnMayNotMove, format!("{id} carries a Cavalry Withdrawal marker: it may not move until the marker comes off in its Rally Phase (12.4)"), problems);
                ok = false;
                continue;
            }
            if unit.pinned && !order.leave_pin {
                bad(Code::PinnedNeedsLeavePin,
                    format!(
                        "{id} is pinned: a pinned unit may move only if it ends the Movement Phase not adjacent to any enemy unit, and its pin then costs army morale (9.3); to move it, add `leave_pin: true`"
                    ),
                    problems,
                );
                ok = false;
                continue;
            }
            if !unit.pinned && order.leave_pin && !counter.is_leader() {
                problems.push(problem(
                    Code::LeavePinNotPinned,
                    format!("{field}.leave_pin"),
                    format!("{id} is not pinned: remove `leave_pin` (9.3)"),
                ));
                ok = false;
                continue;
            }
            match start {
                None => start = Some(hex),
                Some(s) if s != hex => {
                    bad(
                        Code::StackNotInOneHex,
                        format!(
                            "{id} is in {hex}, not in {s} with {}: a stack moves from one hex",
                            ids.first().map(String::as_str).unwrap_or("")
                        ),
                        problems,
                    );
                    ok = false;
                }
                Some(_) => {}
            }
        }
        let start = start?;
        if !ok {
            return None;
        }
        // The group.
        let mut group = Group {
            ids: ids.clone(),
            start,
            allowance: i32::MAX,
            sps: 0,
            guns: 0,
            captures: false,
            disrupted: false,
            minimum_move: true,
            strategic: order.strategic,
            no_pass: self.bound_not_to_pass(&ids),
            leaving: run.ordered.clone(),
            may_leave: run.may_leave.clone(),
        };
        let mut allowances = BTreeMap::new();
        let mut max_hexes: Option<(u32, String)> = None;
        for id in &ids {
            let (Some(c), Some(u)) = (self.counter(id.as_str()), state.units.get(id)) else { continue };
            let printed = c.movement.unwrap_or(0);
            // Savannah 4.7: the turn of arrival's bonus, then artillery
            // doubled, then strategic movement doubles again (4.7's example).
            let arrival = u.arriving.as_ref().filter(|a| a.turn == state.turn && run.arrived.contains_key(id));
            // Savannah 4.3: a card's MPs for this Movement Phase.
            let mut base =
                printed.saturating_add(crate::systems::gboar::effects::card_effects::movement_bonus(state, id));
            if let Some(a) = arrival {
                base = base.saturating_add(a.mp_bonus);
                if c.is_artillery() {
                    base = base.saturating_mul(a.artillery_mp_multiplier);
                }
                if order.strategic && !a.strategic_movement {
                    problems.push(problem(
                        Code::NoStrategicOnArrival,
                        format!("{field}.strategic"),
                        format!(
                            "{id} arrived at {} this turn: no strategic movement on the turn of arrival (Savannah 4.7)",
                            a.entry
                        ),
                    ));
                    return None;
                }
                if a.pays_entry_cost {
                    // Savannah 4.7: placed at the nearest free hex, it pays that hex's terrain cost.
                    if let Some(MovementCost::Mp(cost)) = self.terrain.hex(start).map(|h| h.movement_cost) {
                        base = base.saturating_sub(cost);
                    }
                }
                if let Some(n) = a.max_hexes {
                    max_hexes = Some((n, id.clone()));
                }
            }
            let allowance = if order.strategic { base.saturating_mul(2) } else { base };
            allowances.insert(id.clone(), allowance);
            group.allowance = group.allowance.min(allowance);
            let (s, g) = self.stacking_weight(state, id);
            group.sps = group.sps.saturating_add(s);
            group.guns = group.guns.saturating_add(g);
            if !c.is_leader() && matches!(u.condition, Condition::ParadeOrder | Condition::Disrupted) {
                group.captures = true;
            }
            if !c.is_leader() && u.condition == Condition::Disrupted {
                group.disrupted = true;
            }
            if NO_MINIMUM_MOVE.contains(&c.kind.as_str()) {
                group.minimum_move = false;
            }
        }
        if order.strategic {
            if let Some(w) = self.weather.filter(|w| !w.strategic_movement) {
                problems.push(problem(Code::NoStrategicInWeather,
                    format!("{field}.strategic"),
                    format!(
                        "the weather this turn is {}: no strategic movement (Savannah 4.2, Weather Table); move without `strategic`",
                        w.name
                    ),
                ));
                return None;
            }
            if group.disrupted {
                problems.push(problem(
                    Code::NoStrategicWhenDisrupted,
                    format!("{field}.strategic"),
                    "a disrupted unit moves only one hex (13.3): no strategic movement",
                ));
                return None;
            }
            let enemies = self.adjacent_enemies(start);
            if !enemies.is_empty() {
                problems.push(problem(
                    Code::StrategicBeginsAdjacent,
                    format!("{field}.strategic"),
                    format!(
                        "{} begins next to enemy {}: strategic movement may not begin adjacent to enemy units (9.52)",
                        list(&ids),
                        list(&enemies)
                    ),
                ));
                return None;
            }
        }
        // The occupancy last: a strategic move refused above (most trials
        // of one, beside the enemy) never needs it.
        let occ = match board {
            Some(b) => b.without_from(&ids, start),
            None => self.occupancy(state, &ids),
        };
        Some(Prepared { ids, start, group, allowances, max_hexes, occ })
    }

    /// One move: check it whole, then make it (or record every problem).
    /// `board` is the occupancy of `run.state` with no unit moving
    /// ([`Phase::occupancy`]) as the moves before left it, none before the
    /// first: built once, then changed as each move is made
    /// ([`Occupancy::moved`]), rather than the state walked again for
    /// every move.
    pub(super) fn one_move(
        &self,
        run: &mut Run<'_>,
        side: &str,
        field: &str,
        order: &MoveOrder,
        problems: &mut Vec<Problem>,
        board: &mut Option<Occupancy<'a>>,
    ) {
        let current = board.take().unwrap_or_else(|| self.occupancy(&run.state, &[]));
        debug_assert!(
            current.same_as(&self.occupancy(&run.state, &[])),
            "the board as the moves left it is the board of the state"
        );
        let Some(mut prepared) = self.prepare_on(run, side, field, order, problems, Some(&current)) else {
            *board = Some(current);
            return;
        };
        *board = match self.try_move(run, side, field, order, &mut prepared, problems) {
            Made::No => Some(current),
            Made::At(dest) => current.moved(&prepared.ids, prepared.start, dest),
            Made::Changed => None,
        };
    }

    /// [`Phase::one_move`] after its preparation: the move made, or the
    /// problems recorded.
    fn try_move(
        &self,
        run: &mut Run<'_>,
        side: &str,
        field: &str,
        order: &MoveOrder,
        prepared: &mut Prepared<'a>,
        problems: &mut Vec<Problem>,
    ) -> Made {
        if !run.others_leave_first || run.may_leave.is_empty() {
            return self.move_prepared(run, side, field, order, prepared, problems);
        }
        // A side's file alone: the move as the board stands; if that is
        // refused for what another unit's leaving can change, the move as
        // if the player's other sides' units had left ([`Run::others_leave_first`]).
        // Not the other way about: with those hexes open, 13.3 would ask
        // a disrupted unit for a hex they may still hold.
        let mut first = Vec::new();
        let made = self.move_prepared(run, side, field, order, prepared, &mut first);
        if !waits(&first) {
            problems.extend(first);
            return made;
        }
        let mut gone = prepared.ids.clone();
        gone.extend(run.may_leave.iter().cloned());
        prepared.occ = self.occupancy(&run.state, &gone);
        let mut second = Vec::new();
        let made = self.move_prepared(run, side, field, order, prepared, &mut second);
        // Still refused: the words of the board as it stands.
        problems.extend(if waits(&second) { first } else { second });
        made
    }

    /// [`Phase::one_move`] after [`Phase::prepare`]: the move's path
    /// checked and the move made. A trial of the same move in a copy of
    /// the state it was prepared in ([`Phase::ends_at`]) takes the same
    /// preparation: `prepare` reads only the state, the units placed this
    /// phase and the units moved (a trial has moved none, so a move
    /// prepared in the phase prepares the same in the trial). Says what
    /// the move did to the board ([`Made`]), for [`Phase::one_move`]'s.
    pub(super) fn move_prepared(
        &self,
        run: &mut Run<'_>,
        side: &str,
        field: &str,
        order: &MoveOrder,
        prepared: &Prepared<'_>,
        problems: &mut Vec<Problem>,
    ) -> Made {
        let Prepared { ids, group, allowances, max_hexes, occ, .. } = prepared;
        let start = prepared.start;
        let state = &run.state;
        // The path.
        let walked = match (&order.path, &order.to) {
            (Some(_), Some(_)) => {
                problems.push(problem(Code::OrdersShape, field, "give path or to, not both"));
                return Made::No;
            }
            (None, None) => {
                problems.push(problem(
                    Code::OrdersShape,
                    field,
                    format!(
                        "give the path (path: [HEX, ...]) or the destination (to: HEX); {}",
                        self.reachable_text(state, group, occ)
                    ),
                ));
                return Made::No;
            }
            (Some(path), None) => {
                let mut hexes = Vec::new();
                for (k, h) in path.iter().enumerate() {
                    match h.parse() {
                        Ok(hex) => hexes.push(hex),
                        Err(e) => {
                            problems.push(problem(Code::NotAHexId, format!("{field}.path[{k}]"), e));
                            return Made::No;
                        }
                    }
                }
                match self.walk(state, group, occ, &hexes, !run.quiet) {
                    Ok(w) => w,
                    Err((k, refusal)) => {
                        let at = match k {
                            Some(k) => format!("{field}.path[{k}]"),
                            None => format!("{field}.path"),
                        };
                        problems.push(problem(
                            refusal.code,
                            at,
                            format!("{}; {}", refusal.message, self.reachable_text(state, group, occ)),
                        ));
                        return Made::No;
                    }
                }
            }
            (None, Some(to)) => {
                let to = match to.parse() {
                    Ok(h) => h,
                    Err(e) => {
                        problems.push(problem(Code::NotAHexId, format!("{field}.to"), e));
                        return Made::No;
                    }
                };
                match self.find(state, group, occ, to, !run.quiet) {
                    Ok(w) => w,
                    Err(refusal) => {
                        problems.push(problem(refusal.code, format!("{field}.to"), refusal.message));
                        return Made::No;
                    }
                }
            }
        };
        if let Some((n, id)) = &max_hexes {
            if walked.hexes.len() > *n as usize {
                problems.push(problem(Code::ArrivalMaxHexes,
                    field,
                    format!(
                        "{id} may move only {n} hex{} on its turn of arrival (Reinforcement Schedule); the move enters {}",
                        if *n == 1 { "" } else { "es" },
                        walked.hexes.len()
                    ),
                ));
                return Made::No;
            }
        }
        // Savannah 4.9: units that begin stacked move along the Covered Way
        // as one stack (charts/covered-way.yaml `stacks_move_together`).
        let mut walked = walked;
        let along = walked.steps.iter().any(|s| s.along);
        if along && self.covered_way.lost_effects.stacks_move_together {
            let split: Vec<String> = run
                .along
                .iter()
                .filter(|(u, (_, h))| *h == start && !ids.contains(u))
                .map(|(u, (f, _))| format!("{u} ({f})"))
                .collect();
            if !split.is_empty() {
                problems.push(problem(Code::CoveredWayStackSplits,
                    field,
                    format!(
                        "{} began the phase stacked with {}, which moved along the Covered Way: units that begin stacked move along it as one stack (Savannah 4.9)",
                        list(ids),
                        split.join(", ")
                    ),
                ));
                return Made::No;
            }
        }
        if let Some(p) = self.zone_rules(&run.state, ids, start, &walked.hexes, field) {
            problems.push(p);
            return Made::No;
        }
        let (covered_way_hexes, lost) = if along { self.lost_rolls(run, ids, &mut walked) } else { (0, false) };
        // Make the move.
        let dest = walked.hexes.last().copied().unwrap_or(start);
        // The event's texts, but in a quiet trial (Run::quiet).
        let texts = (!run.quiet).then(|| {
            let path_text: Vec<String> = walked.hexes.iter().map(HexId::to_string).collect();
            let costs: Vec<String> = walked
                .hexes
                .iter()
                .zip(&walked.steps)
                .map(|(h, s)| {
                    let parts: Vec<String> = s.parts.iter().map(|(n, v)| format!("{n} {v}")).collect();
                    format!("{h} ({})", parts.join(" + "))
                })
                .collect();
            let stop_text = match walked.stopped_by.as_deref() {
                Some(s) if s.starts_with("8.3") => {
                    format!(
                        "; stops in the ZOC of {} ({})",
                        self.names(&self.zoc.exerted_on(dest)),
                        s.get(..4).unwrap_or(s)
                    )
                }
                Some(s) => format!("; stops ({s})"),
                None => String::new(),
            };
            (path_text, costs, stop_text)
        });
        for id in ids {
            if let Some((path_text, costs, stop_text)) = &texts {
                let mates: Vec<String> = ids.iter().filter(|m| *m != id).cloned().collect();
                let allowance = allowances.get(id).copied().unwrap_or(0);
                let text = format!(
                    "{}{} moves {start} → {}{}: {} of {} MP{}{}{}",
                    self.name(id),
                    if mates.is_empty() { String::new() } else { format!(" (in a stack with {})", self.names(&mates)) },
                    path_text.join(" → "),
                    if order.strategic { " by strategic movement (9.52)" } else { "" },
                    walked.mp,
                    allowance,
                    if walked.minimum_move {
                        ", more than its allowance: a unit may always move one hex (9.1)"
                    } else {
                        ""
                    },
                    if costs.is_empty() { String::new() } else { format!(" [{}]", costs.join(", ")) },
                    stop_text
                );
                run.events.push(
                    Event::new("9.1", "move", text)
                        .with("unit", id)
                        .with("from", start.to_string())
                        .with("to", dest.to_string())
                        .with("path", path_text)
                        .with("mp_spent", walked.mp)
                        .with("mp_allowance", allowance)
                        .with("strategic", order.strategic)
                        .with("minimum_move", walked.minimum_move)
                        .with("stopped_by", &walked.stopped_by),
                );
            }
            let on_covered_way = self.terrain.hex(dest).is_some_and(|h| h.feature.is_some());
            let mortar = self.counter(id.as_str()).is_some_and(|c| c.kind == "mortar");
            let home = self.home(id);
            let turn = self.turn;
            if let Some(u) = run.state.units.get_mut(id) {
                u.hex = Some(dest);
                if mortar {
                    // Savannah 4.12: the 'Mortar Moved' marker.
                    u.mortar_moved_turn = Some(turn);
                }
                if u.must_return && home == Some(dest) {
                    u.must_return = false;
                }
                if on_covered_way {
                    // Savannah 4.9: still on it; the hexes of this march count.
                    u.covered_way_hexes = if along { covered_way_hexes } else { 0 };
                    if lost {
                        u.lost = true;
                        u.previously_lost = false;
                    }
                } else {
                    // Savannah 4.9: leaving the Covered Way removes Lost and
                    // Previously Lost markers, and a later march counts afresh.
                    u.lost = false;
                    u.previously_lost = false;
                    u.covered_way_hexes = 0;
                }
            }
            if along {
                run.along.insert(id.clone(), (field.to_string(), start));
            }
            self.sortie_marks(&mut run.state, id, ids, start, dest);
            run.moved.insert(id.clone(), (side.to_string(), field.to_string()));
            if state_pinned(&run.state, id) {
                run.left_pins.push(id.clone());
            }
        }
        // 14.32: lone leaders captured on the way; the movers do not stop.
        let movers: Vec<String> =
            ids.iter().filter(|i| self.counter(i.as_str()).is_some_and(|c| !c.is_leader())).cloned().collect();
        for (hex, step) in walked.hexes.iter().zip(&walked.steps) {
            for leader in &step.captures {
                if let Some(u) = run.state.units.get_mut(leader) {
                    u.leave_map(OffMap::Captured);
                }
                let text = format!(
                    "{}, alone in {hex}, is captured by {} (14.32); {} not stop and spend{} no extra MP",
                    self.name(leader),
                    self.names(&movers),
                    if movers.len() == 1 { "it does" } else { "they do" },
                    if movers.len() == 1 { "s" } else { "" }
                );
                run.events.push(
                    Event::new("14.32", "leader-captured", text)
                        .with("leader", leader)
                        .with("hex", hex.to_string())
                        .with("by", &movers),
                );
                let by = movers.first().and_then(|m| self.counter(m.as_str())).map(|c| c.army.clone());
                match crate::systems::gboar::effects::results::leader_captured(
                    self.rules,
                    &mut run.state,
                    leader,
                    &by.unwrap_or_default(),
                ) {
                    Ok(events) => run.events.extend(events),
                    Err(e) => problems.push(problem(Code::ModuleData, field, e.to_string())),
                }
            }
        }
        if walked.steps.iter().any(|s| !s.captures.is_empty()) {
            Made::Changed
        } else {
            Made::At(dest)
        }
    }
}

/// Whether a move's problems are all of the kinds another unit's leaving
/// can take away ([`Phase::may_wait`]); none: the move was made.
fn waits(problems: &[Problem]) -> bool {
    !problems.is_empty()
        && problems.iter().all(|p| {
            matches!(
                p.code,
                Code::OverStacked
                    | Code::MayNotPassThrough
                    | Code::NoLegalPath
                    | Code::OverAllowance
                    | Code::DisruptedNextToEnemy
            )
        })
}
