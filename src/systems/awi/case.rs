//! Conformance cases for the AWI rules (docs/conformance-cases.md, the
//! AWI section): a module and scenario, changes to its set-up, one step
//! with one side's orders and scripted dice, and what must come of it:
//! events (each a subset of one that happened), pieces, or a refusal.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::base::dice::Die;
use crate::base::error::{Error, Result};
use crate::base::yaml::Value;
use crate::system::{CaseOutcome, Dice, ModuleFiles};
use crate::systems::awi::board::{Attempt, Levies, PieceState, Replacements, Siege, Step};
use crate::systems::awi::data::FortAt;
use crate::systems::awi::system::{read_body, Rules};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    rules: Vec<String>,
    note: String,
    module: String,
    scenario: String,
    #[serde(default)]
    state: Changes,
    step: Step,
    #[serde(default)]
    orders: Option<Value>,
    /// A battle step's entries from both commanders (side -> body), joined
    /// as `resolve` joins them (rules/agreement.rs), in place of `orders`.
    #[serde(default)]
    commanders: BTreeMap<String, Value>,
    #[serde(default)]
    dice: Vec<u16>,
    expect: Expect,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Changes {
    /// Pieces changed or placed: hex (`off` takes it off the map), stands,
    /// communications memory.
    #[serde(default)]
    pieces: BTreeMap<String, PieceChange>,
    #[serde(default)]
    control: BTreeMap<String, String>,
    #[serde(default)]
    magazines: Option<Vec<String>>,
    #[serde(default)]
    forts: Option<Vec<FortAt>>,
    /// Entrenched hexes, by the side that dug them.
    #[serde(default)]
    entrenchments: BTreeMap<String, String>,
    /// The fort of a battle step's battle as its sheet gave it.
    #[serde(default)]
    siege: Option<Siege>,
    /// The attempts to break off made in a battle step's battle, as their
    /// steps rolled them.
    #[serde(default)]
    break_off: Option<Vec<Attempt>>,
    /// Unused replacement stands: side, town, nationality: stands.
    #[serde(default)]
    replacements: Option<Replacements>,
    /// Militia raised and not yet formed: side, town: {stands, rifles}.
    #[serde(default)]
    militia: Option<Levies>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct PieceChange {
    hex: Option<String>,
    stands: Option<u32>,
    in_communication: Option<bool>,
    attrition_passes: Option<u32>,
    eliminated: Option<bool>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Expect {
    #[serde(default)]
    refused: Option<String>,
    #[serde(default)]
    events: Vec<Value>,
    /// Event kinds that must not happen.
    #[serde(default)]
    no_events: Vec<String>,
    #[serde(default)]
    pieces: BTreeMap<String, PieceChange>,
    /// The next step's field (`british-battle-0102`, `american-operations`,
    /// `none`).
    #[serde(default)]
    next: Option<String>,
    /// The unused replacements after the step, all of them (side, town,
    /// nationality: stands).
    #[serde(default)]
    replacements: Option<Replacements>,
    /// The militia not yet formed after the step, all of it.
    #[serde(default)]
    militia: Option<Levies>,
}

/// The case's dice, in order.
struct Script {
    rolls: Vec<u16>,
    used: usize,
}

impl Dice for Script {
    fn roll(&mut self, die: Die, purpose: &str) -> Result<u16> {
        let v = self
            .rolls
            .get(self.used)
            .copied()
            .ok_or_else(|| Error::usage(format!("the case's dice ran out at {purpose} ({})", String::from(die))))?;
        self.used += 1;
        Ok(v)
    }
}

/// Whether `want` (a YAML mapping) is part of `got` (JSON).
fn subset(want: &Value, got: &serde_json::Value) -> bool {
    let want = serde_json::to_value(want).unwrap_or(serde_json::Value::Null);
    fn inner(w: &serde_json::Value, g: &serde_json::Value) -> bool {
        match (w, g) {
            (serde_json::Value::Object(w), serde_json::Value::Object(g)) => {
                w.iter().all(|(k, v)| g.get(k).is_some_and(|x| inner(v, x)))
            }
            (serde_json::Value::Number(a), serde_json::Value::Number(b)) => a.as_f64() == b.as_f64(),
            _ => w == g,
        }
    }
    inner(&want, got)
}

pub fn run(label: &str, text: &str, module_of: &dyn Fn(&str) -> Result<ModuleFiles>) -> Result<CaseOutcome> {
    let case: Case = crate::base::yaml::parse(label, text).map_err(Error::Data)?;
    let _ = &case.note;
    let files = module_of(&case.module)?;
    let rules = Rules::load(&files, &case.scenario)?;
    let mut state = rules.initial()?;
    for (id, c) in &case.state.pieces {
        let p = state.pieces.entry(id.clone()).or_insert_with(PieceState::default);
        if rules.module.piece(id).is_none() {
            return Err(Error::usage(format!("{label}: '{id}' is not in the order of battle")));
        }
        if let Some(h) = &c.hex {
            p.hex = (h != "off").then(|| h.clone());
        }
        if let Some(x) = c.stands {
            p.stands = x;
        }
        if let Some(x) = c.in_communication {
            p.in_communication = x;
        }
        if let Some(x) = c.attrition_passes {
            p.attrition_passes = x;
        }
        if let Some(x) = c.eliminated {
            p.eliminated = x;
        }
    }
    state.control.extend(case.state.control.clone());
    if let Some(m) = &case.state.magazines {
        state.magazines = m.iter().cloned().collect();
    }
    if let Some(f) = &case.state.forts {
        state.forts = f.clone();
    }
    state.entrenchments.extend(case.state.entrenchments.clone());
    if let Some(x) = &case.state.siege {
        state.siege = Some(x.clone());
    }
    if let Some(x) = &case.state.break_off {
        state.break_off = x.clone();
    }
    if let Some(r) = &case.state.replacements {
        state.replacements = r.clone();
    }
    if let Some(l) = &case.state.militia {
        state.militia = l.clone();
    }
    state.turn = case.step.turn;
    state.next = Some(case.step.clone());
    let mut failures = Vec::new();
    if case.orders.is_some() && !case.commanders.is_empty() {
        return Err(Error::usage(format!("{label}: a case gives `orders` or `commanders`, not both")));
    }
    let body = match &case.orders {
        _ if !case.commanders.is_empty() => rules.body_of(&state, &case.commanders),
        Some(v) => Ok(read_body(&case.step, v).map_err(|e| Error::usage(format!("{label}: orders: {e}")))?),
        None => Ok(read_body(&case.step, &Value::Null).map_err(Error::usage)?),
    };
    let mut dice = Script { rolls: case.dice.clone(), used: 0 };
    match (body.and_then(|body| rules.step(&state, &body, &mut dice)), &case.expect.refused) {
        (Err(e), Some(want)) => {
            if !e.to_string().contains(want.as_str()) {
                failures.push(format!("refused with '{e}', expected a refusal containing '{want}'"));
            }
        }
        (Err(e), None) => failures.push(format!("refused: {e}")),
        (Ok(_), Some(want)) => failures.push(format!("not refused; expected a refusal containing '{want}'")),
        (Ok((after, events)), None) => {
            let got: Vec<serde_json::Value> = events
                .iter()
                .map(|e| serde_json::json!({"kind": e.kind, "rule": e.rule, "fields": e.fields, "text": e.text}))
                .collect();
            for want in &case.expect.events {
                if !got.iter().any(|g| subset(want, g)) {
                    let all: Vec<String> = got.iter().map(|g| g.to_string()).collect();
                    failures.push(format!(
                        "no event like {}; the events were:\n  {}",
                        serde_json::to_string(want).unwrap_or_default(),
                        all.join("\n  ")
                    ));
                }
            }
            for kind in &case.expect.no_events {
                if events.iter().any(|e| &e.kind == kind) {
                    failures.push(format!("an event of kind {kind} happened"));
                }
            }
            for (id, want) in &case.expect.pieces {
                let Some(p) = after.pieces.get(id) else {
                    failures.push(format!("{id} is not a piece"));
                    continue;
                };
                if let Some(h) = &want.hex {
                    let at = p.hex.clone().unwrap_or_else(|| "off".into());
                    if &at != h {
                        failures.push(format!("{id}: hex {at}, expected {h}"));
                    }
                }
                if want.stands.is_some_and(|x| x != p.stands) {
                    failures.push(format!("{id}: {} stands, expected {:?}", p.stands, want.stands));
                }
                if want.in_communication.is_some_and(|x| x != p.in_communication) {
                    failures.push(format!(
                        "{id}: in_communication {}, expected {:?}",
                        p.in_communication, want.in_communication
                    ));
                }
                if want.attrition_passes.is_some_and(|x| x != p.attrition_passes) {
                    failures.push(format!(
                        "{id}: attrition_passes {}, expected {:?}",
                        p.attrition_passes, want.attrition_passes
                    ));
                }
            }
            for (id, want) in &case.expect.pieces {
                if let (Some(p), Some(x)) = (after.pieces.get(id), want.eliminated) {
                    if p.eliminated != x {
                        failures.push(format!("{id}: eliminated {}, expected {x}", p.eliminated));
                    }
                }
            }
            if let Some(want) = &case.expect.next {
                let got = after.next.as_ref().map(|n| n.field()).unwrap_or_else(|| "none".into());
                if &got != want {
                    failures.push(format!("next step {got}, expected {want}"));
                }
            }
            if let Some(want) = &case.expect.replacements {
                if want != &after.replacements {
                    failures.push(format!("replacements {:?}, expected {want:?}", after.replacements));
                }
            }
            if let Some(want) = &case.expect.militia {
                if want != &after.militia {
                    failures.push(format!("militia {:?}, expected {want:?}", after.militia));
                }
            }
            if dice.used != dice.rolls.len() {
                failures.push(format!("{} of the case's {} dice were rolled", dice.used, dice.rolls.len()));
            }
        }
    }
    Ok(CaseOutcome {
        file: label.to_string(),
        name: case.name,
        rules: case.rules,
        passed: failures.is_empty(),
        failures,
    })
}
