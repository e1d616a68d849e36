//! ATTRITION OF ISOLATED BRITISH GARRISONS (the article).
//!
//! "A British unit which ends a British turn out of communications must
//! check to see if it has suffered attrition loses unless one of the
//! following exceptions apply: The unit is immune to the effects of
//! communications (militia, legion, and regular cavalry units). The unit is
//! an artillery unit. The unit has only one fighting stand remaining. At the
//! end of the previous British turn the unit was in communication."
//!
//! "The first month the unit is isolated, it need not check for attrition
//! and consequently there is no accumulation in the negative modifier. The
//! modifier accumulates at -10% per month that the unit passes the
//! attrition test. When the unit fails to pass an attrition test it loses a
//! stand and the modifier returns to -0%."

use crate::base::dice::Die;
use crate::base::error::Result;
use crate::system::{Dice, Event};
use crate::systems::awi::board::State;
use crate::systems::awi::data::{Class, Kind, Module, Unit};
use crate::systems::awi::rules::comms::{traced, Status, BRITISH};

const RULE: &str = "AWI Attrition";

/// Why a British unit out of communication need not test, if it need not:
/// the article's exceptions (`was_in`: in communication at the end of the
/// previous British turn).
pub fn exemption(u: &Unit, stands: u32, was_in: bool) -> Option<&'static str> {
    if u.class != Class::Regular || u.kind == Kind::Cavalry {
        Some("immune to the effects of communications (militia, legion, and regular cavalry units)")
    } else if u.kind == Kind::Artillery {
        Some("an artillery unit")
    } else if stands <= 1 {
        Some("only one fighting stand remaining")
    } else if was_in {
        Some("in communication at the end of the previous British turn: the first month isolated is free")
    } else {
        None
    }
}

/// An attrition test: the unit's morale grade in percent, the modifier
/// of its consecutive passes, and the D100 at or under which it passes.
pub struct Test {
    pub grade: u32,
    pub modifier: u32,
    pub target: u32,
}

/// "the only modifier which applies is a -10% to the unit's morale grade
/// for each previous consecutive attrition test passed".
pub fn test(m: &Module, u: &Unit, passes: u32) -> Test {
    let grade = m.morale_percent(&u.morale);
    let modifier = passes * m.charts.communications.attrition_modifier_per_pass_percent.value;
    Test { grade, modifier, target: grade.saturating_sub(modifier).min(100) }
}

/// Trace every British unit's communications at the end of a British
/// turn, test the isolated ones, and remember who was in communication.
pub fn end_of_british_turn(m: &Module, s: &mut State, dice: &mut dyn Dice) -> Result<Vec<Event>> {
    let statuses = traced(m, s);
    let mut events = Vec::new();
    // Units out of communication that the rules exempt: every British unit
    // on the map (traced covers the regulars; the rest are immune).
    let ids: Vec<String> = s
        .pieces
        .iter()
        .filter(|(id, p)| p.hex.is_some() && m.unit(id).is_some_and(|u| u.side == BRITISH))
        .map(|(id, _)| id.clone())
        .collect();
    for id in ids {
        let Some(u) = m.unit(&id) else { continue };
        let status = statuses.get(&id).cloned().unwrap_or(Status::Always { why: String::new() });
        let was_in = s.pieces[&id].in_communication;
        let stands = s.pieces[&id].stands;
        if status.is_in() {
            if let Some(p) = s.pieces.get_mut(&id) {
                p.in_communication = true;
                p.attrition_passes = 0;
            }
            continue;
        }
        let exempt = exemption(u, stands, was_in);
        if let Some(p) = s.pieces.get_mut(&id) {
            p.in_communication = false;
        }
        if let Some(why) = exempt {
            events.push(
                Event::new(
                    RULE,
                    "attrition-exempt",
                    format!("{} is out of communication and need not test for attrition: {why}", u.name),
                )
                .with("unit", &id)
                .with("reason", why),
            );
            continue;
        }
        let passes = s.pieces[&id].attrition_passes;
        let Test { grade, modifier, target } = test(m, u, passes);
        let roll = dice.roll(Die::D100, &format!("attrition test, {id}"))?;
        let passed = u32::from(roll) <= target;
        let lost = if passed { 0 } else { m.charts.communications.attrition_stands_lost.value.min(stands) };
        if let Some(p) = s.pieces.get_mut(&id) {
            if passed {
                p.attrition_passes += 1;
            } else {
                p.stands -= lost;
                p.attrition_passes = 0;
            }
        }
        let text = if passed {
            format!(
                "{} passes its attrition test: D100 {roll} against morale {grade}% -{modifier}% = {target}%",
                u.name
            )
        } else {
            format!("{} fails its attrition test: D100 {roll} against morale {grade}% -{modifier}% = {target}%; it loses {lost} stand", u.name)
        };
        events.push(
            Event::new(RULE, "attrition-test", text)
                .with("unit", &id)
                .with("roll", roll)
                .with("morale_percent", grade)
                .with("modifier_percent", modifier)
                .with("target", target)
                .with("passed", passed)
                .with("stands_lost", lost)
                .with("stands", s.pieces[&id].stands)
                .with("passes", s.pieces[&id].attrition_passes),
        );
    }
    Ok(events)
}
