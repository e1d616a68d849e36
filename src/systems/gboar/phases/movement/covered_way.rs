//! Savannah 4.9, the Covered Way: a stack moving along it rolls a die for
//! each hex entered (charts/covered-way.yaml), and a lost stack stops
//! (`lost_effects.may_not_move_further`).

use super::*;

impl Phase<'_> {
    /// Savannah 4.9: a die for the stack per hex it enters along the Covered
    /// Way, with the chart's DRMs; where the stack gets lost it stops (if the
    /// chart's `lost_effects` says so: else it goes on, Lost). Without
    /// dice (orders only checked) no one gets lost. Gives the hexes of this
    /// march along it and whether the stack got lost.
    pub(super) fn lost_rolls(&self, run: &mut Run<'_>, ids: &[String], walked: &mut Walk) -> (u32, bool) {
        let table = &self.covered_way.lost_roll;
        let units: Vec<&crate::systems::gboar::board::state::UnitState> =
            ids.iter().filter_map(|i| run.state.units.get(i)).collect();
        let mut count = units.iter().map(|u| u.covered_way_hexes).max().unwrap_or(0);
        let previously = units.iter().any(|u| u.previously_lost);
        let die = match self.covered_way.die {
            crate::systems::gboar::data::charts::Die::D10 => crate::base::dice::Die::D10,
        };
        // "They may not move any further that turn" (`lost_effects`).
        let stops = self.covered_way.lost_effects.may_not_move_further;
        let mut lost_at = None;
        // Savannah 4.3: a card spares the stack its lost rolls this turn.
        let spared = crate::systems::gboar::effects::card_effects::lost_roll_ignored(&run.state, ids);
        if let Some(card) = spared.as_ref().filter(|_| walked.steps.iter().any(|s| s.along)) {
            run.events.push(
                Event::new(
                    "Savannah 4.3",
                    "covered-way-no-roll",
                    format!(
                        "{} move along the Covered Way with no lost roll: the Random Events card {card} (Savannah 4.3, 4.9)",
                        self.names(ids)
                    ),
                )
                .with("units", ids)
                .with("card", card),
            );
        }
        for k in 0..walked.steps.len() {
            if !walked.steps.get(k).is_some_and(|s| s.along) {
                continue;
            }
            let Some(hex) = walked.hexes.get(k).copied() else { break };
            // Once lost, a stack that goes on rolls no more: it is Lost.
            if let (None, Some(dice), None) = (lost_at, run.dice.as_mut(), &spared) {
                let mut drms: Vec<(String, i32)> = Vec::new();
                for d in &table.drms {
                    match d.id.as_str() {
                        "hexes-entered" => {
                            let per = d.per_hexes.unwrap_or(1).max(1);
                            let times = i32::try_from(count / per).unwrap_or(i32::MAX);
                            let v = d.value.unwrap_or(0).saturating_mul(times);
                            if v != 0 {
                                drms.push((format!("{count} Covered Way hexes entered before"), v));
                            }
                        }
                        "previously-lost" if previously => drms.push(("previously lost".into(), d.value.unwrap_or(0))),
                        "previously-lost" => {}
                        other => {
                            run.failure = Some(Error::refused(format!(
                                "charts/covered-way.yaml: the engine does not know the lost-roll DRM '{other}' (Savannah 4.9)"
                            )));
                            return (count, false);
                        }
                    }
                }
                let purpose = format!("Covered Way lost roll, {} entering {hex}", list(ids));
                let roll = match dice.roll(die, &purpose) {
                    Ok(r) => i32::from(r),
                    Err(e) => {
                        run.failure = Some(e);
                        return (count, false);
                    }
                };
                let total = drms.iter().fold(roll, |t, (_, v)| t.saturating_add(*v));
                let result = table
                    .outcomes
                    .iter()
                    .find(|o| o.min.is_none_or(|m| total >= m) && o.max.is_none_or(|m| total <= m))
                    .map(|o| o.result.as_str());
                let is_lost = match result {
                    Some("lost") => true,
                    Some("not-lost") => false,
                    other => {
                        run.failure = Some(Error::refused(format!(
                            "charts/covered-way.yaml: a modified roll of {total} reads {other:?}, not lost or not-lost (Savannah 4.9)"
                        )));
                        return (count, false);
                    }
                };
                let drm_text: Vec<String> = drms.iter().map(|(n, v)| format!("{v:+} {n}")).collect();
                run.events.push(
                    Event::new(
                        "Savannah 4.9",
                        "covered-way-roll",
                        format!(
                            "{} entering {hex} along the Covered Way rolls {roll}{}{} = {total}: {}",
                            self.names(ids),
                            if drm_text.is_empty() { "" } else { ", " },
                            drm_text.join(", "),
                            match (is_lost, stops) {
                                (true, true) => "lost: the stack stops and may not move further this turn",
                                (true, false) => "lost",
                                (false, _) => "not lost",
                            }
                        ),
                    )
                    .with("units", ids)
                    .with("hex", hex.to_string())
                    .with("roll", roll)
                    .with("drms", drms.iter().cloned().collect::<BTreeMap<String, i32>>())
                    .with("total", total)
                    .with("lost", is_lost),
                );
                count = count.saturating_add(1);
                if is_lost {
                    lost_at = Some(k);
                    if stops {
                        break;
                    }
                }
            } else {
                // Without dice (orders only checked) the roll is not made:
                // the resolution must make this run again with them.
                run.rolls_wanted |= run.dice.is_none();
                count = count.saturating_add(1);
            }
        }
        if let Some(k) = lost_at.filter(|_| stops) {
            let whole = walked.hexes.len();
            walked.hexes.truncate(k + 1);
            walked.steps.truncate(k + 1);
            walked.mp = walked.steps.iter().fold(0i32, |a, s| a.saturating_add(s.mp));
            if k + 1 < whole {
                walked.minimum_move = false;
            }
            walked.stopped_by = Some("Savannah 4.9 lost on the Covered Way".into());
        }
        (count, lost_at.is_some())
    }
}
