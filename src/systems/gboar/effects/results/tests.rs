//! The results applied, case by case (13.1-13.5, 12.64, 12.65).

use super::*;
use crate::systems::gboar::effects::retreat::tests::{combat as module, place};

/// Dice from a script; every die must be used.
struct Script {
    rolls: Vec<u16>,
    next: usize,
    purposes: Vec<String>,
}

impl Script {
    fn new(rolls: &[u16]) -> Script {
        Script { rolls: rolls.to_vec(), next: 0, purposes: Vec::new() }
    }

    fn done(&self) {
        assert_eq!(self.next, self.rolls.len(), "dice scripted but not rolled: {:?}", &self.rolls[self.next..]);
    }
}

impl Dice for Script {
    fn roll(&mut self, _die: crate::base::dice::Die, purpose: &str) -> Result<u16> {
        let v = *self.rolls.get(self.next).unwrap_or_else(|| panic!("an unscripted die: {purpose}"));
        self.next += 1;
        self.purposes.push(purpose.to_string());
        Ok(v)
    }
}

fn ids(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn side(affected: &str, others: &[&str], artillery: &[&str]) -> Side {
    Side { affected: affected.into(), others: ids(others), artillery: ids(artillery), previously_retreated: vec![] }
}

fn close(state: &State, attacker: Side, defender: Side) -> Combat {
    Combat {
        id: "cc-1".into(),
        kind: CombatKind::Close,
        attacker,
        defender,
        morale_at_start: state.army_morale.clone(),
    }
}

fn codes(list: &[&str]) -> Vec<String> {
    ids(list)
}

fn kinds(events: &[Event]) -> Vec<&str> {
    events.iter().map(|e| e.kind.as_str()).collect()
}

fn all<'a>(events: &'a [Event], kind: &str) -> Vec<&'a Event> {
    events.iter().filter(|e| e.kind == kind).collect()
}

fn one<'a>(events: &'a [Event], kind: &str) -> &'a Event {
    events.iter().find(|e| e.kind == kind).unwrap_or_else(|| panic!("no {kind} in {:?}", kinds(events)))
}

fn at(state: &State, id: &str) -> Option<String> {
    state.units[id].hex.map(|h| h.to_string())
}

fn off(state: &State, id: &str) -> Option<OffMap> {
    state.units[id].off_map
}

fn morale(state: &State) -> (i32, i32) {
    (state.army_morale["red"], state.army_morale["blue"])
}

fn vp(state: &State, army: &str) -> i32 {
    state.vp_halves.get(army).copied().unwrap_or(0)
}

/// Red defends 0506 (red-guards leading, red-militia, red-gun); blue
/// attacks from 0507 (blue-foot leading, blue-rifles).
fn battle() -> (Rules, State, Combat) {
    let (rules, mut state) = module();
    place(&mut state, "0506", &["red-guards", "red-militia", "red-gun"]);
    place(&mut state, "0507", &["blue-foot", "blue-rifles"]);
    let combat =
        close(&state, side("blue-foot", &["blue-rifles"], &[]), side("red-guards", &["red-militia"], &["red-gun"]));
    (rules, state, combat)
}

fn apply_one(
    rules: &Rules,
    state: &mut State,
    combat: &Combat,
    role: Role,
    list: &[&str],
    choices: &Choices,
    rolls: &[u16],
) -> Vec<Event> {
    let mut dice = Script::new(rolls);
    let events = apply(rules, state, combat, role, &codes(list), choices, &mut dice).unwrap_or_else(|e| panic!("{e}"));
    dice.done();
    events
}

#[test]
fn unknown_and_ill_formed_codes_are_refused() {
    let (mut rules, mut state, combat) = battle();
    let start = state.clone();
    let mut dice = Script::new(&[]);
    let cases: [(&[&str], &str); 4] = [
        (&["rout"], "'rout' is not a result code of charts/codes.yaml"),
        (&[], "an empty result"),
        (&["retreat", "step-loss"], "two main results"),
        (&["R"], "'R' is not a result code"),
    ];
    for (list, words) in cases {
        let refused = apply(&rules, &mut state, &combat, Role::Defender, &codes(list), &Choices::default(), &mut dice)
            .unwrap_err()
            .to_string();
        assert!(refused.contains(words), "{list:?}: {refused}");
    }
    let refused = apply_close_combat(
        &rules,
        &mut state,
        &combat,
        &codes(&["pin"]),
        &Choices::default(),
        &codes(&["retreat"]),
        &Choices::default(),
        &mut dice,
    )
    .unwrap_err()
    .to_string();
    assert!(refused.contains("PIN is in both halves"), "{refused}");
    // A code the module lists but the engine does not know.
    let mut extra = rules.charts.codes.combat_results[0].clone();
    extra.id = "surrender".into();
    extra.symbol = "S".into();
    rules.charts.codes.combat_results.push(extra);
    let refused =
        apply(&rules, &mut state, &combat, Role::Defender, &codes(&["surrender"]), &Choices::default(), &mut dice)
            .unwrap_err()
            .to_string();
    assert!(refused.contains("the engine does not know the result code 'surrender' (S)"), "{refused}");
    assert_eq!(state, start);
}

#[test]
fn the_combat_is_checked() {
    let (rules, mut state, combat) = battle();
    let mut dice = Script::new(&[]);
    let mut c = combat.clone();
    c.attacker.artillery = ids(&["blue-gun"]);
    place(&mut state, "0507", &["blue-gun"]);
    let refused = apply(&rules, &mut state, &c, Role::Defender, &codes(&["retreat"]), &Choices::default(), &mut dice)
        .unwrap_err()
        .to_string();
    assert!(refused.contains("the Attacker's artillery is never affected"), "{refused}");
    let mut c = combat.clone();
    c.kind = CombatKind::Fire;
    let refused = apply(&rules, &mut state, &c, Role::Defender, &codes(&["retreat"]), &Choices::default(), &mut dice)
        .unwrap_err()
        .to_string();
    assert!(refused.contains("in fire combat other friendly units in the hex are never affected"), "{refused}");
    let mut c = combat.clone();
    c.defender.others = ids(&["red-general"]);
    place(&mut state, "0506", &["red-general"]);
    assert!(
        apply(&rules, &mut state, &c, Role::Defender, &codes(&["no-effect"]), &Choices::default(), &mut dice).is_err()
    );
    let mut c = combat;
    c.defender.others = ids(&["blue-rifles"]);
    assert!(
        apply(&rules, &mut state, &c, Role::Defender, &codes(&["no-effect"]), &Choices::default(), &mut dice).is_err()
    );
}

#[test]
fn no_effect() {
    let (rules, mut state, combat) = battle();
    let start = state.clone();
    for role in [Role::Attacker, Role::Defender] {
        let events = apply_one(&rules, &mut state, &combat, role, &["no-effect"], &Choices::default(), &[]);
        assert_eq!(kinds(&events), ["combat-result", "no-effect"]);
        assert_eq!(events[0].fields["symbols"], serde_json::json!(["-"]));
    }
    assert_eq!(state, start);
}

/// "AM": the chart's result-army-morale (-2 to the affected army, +1 to the enemy's).
#[test]
fn army_morale() {
    let (rules, mut state, combat) = battle();
    apply_one(&rules, &mut state, &combat, Role::Defender, &["army-morale"], &Choices::default(), &[]);
    assert_eq!(morale(&state), (13, 16));
    apply_one(&rules, &mut state, &combat, Role::Attacker, &["army-morale"], &Choices::default(), &[]);
    assert_eq!(morale(&state), (14, 14));
}

/// "R" on the Defender: the lead unit retreats; the others and the
/// Defender's artillery check (pass on 6: militia -1, gun 0).
#[test]
fn retreat_on_the_defender() {
    let (rules, mut state, combat) = battle();
    let events = apply_one(&rules, &mut state, &combat, Role::Defender, &["retreat"], &Choices::default(), &[7, 5]);
    assert_eq!(at(&state, "red-guards").as_deref(), Some("0505"));
    assert_eq!(at(&state, "red-militia").as_deref(), Some("0506"), "7 - 1 = 6 passes");
    assert_eq!(at(&state, "red-gun").as_deref(), Some("0505"), "5 + 0 fails: it retreats, next to red-guards");
    assert_eq!(
        kinds(&events),
        ["combat-result", "retreat", "army-morale", "morale-check", "morale-check", "retreat", "army-morale"]
    );
    let checks = all(&events, "morale-check");
    assert_eq!((checks[0].fields["total"].clone(), checks[0].fields["passed"].clone()), (6.into(), true.into()));
    assert_eq!((checks[1].fields["total"].clone(), checks[1].fields["passed"].clone()), (5.into(), false.into()));
    assert_eq!(morale(&state), (13, 15), "unit-retreated twice");
}

/// "R" on the Attacker: toward blue's HQ (0814); no artillery.
#[test]
fn retreat_on_the_attacker() {
    let (rules, mut state, combat) = battle();
    apply_one(&rules, &mut state, &combat, Role::Attacker, &["retreat"], &Choices::default(), &[0]);
    assert_eq!(at(&state, "blue-foot").as_deref(), Some("0508"));
    assert_eq!(at(&state, "blue-rifles").as_deref(), Some("0508"), "0 fails: with blue-foot, 5 SPs");
}

/// "D": Parade Order to disrupted, disrupted to shattered (three hexes
/// each time), shattered to eliminated.
#[test]
fn disrupt() {
    let (rules, mut state) = module();
    place(&mut state, "0506", &["red-guards"]);
    place(&mut state, "0507", &["blue-foot"]);
    let combat = close(&state, side("blue-foot", &[], &[]), side("red-guards", &[], &[]));
    let events = apply_one(&rules, &mut state, &combat, Role::Defender, &["disrupt"], &Choices::default(), &[]);
    assert_eq!(at(&state, "red-guards").as_deref(), Some("0503"));
    assert_eq!(state.units["red-guards"].condition, Condition::Disrupted);
    assert_eq!(kinds(&events), ["combat-result", "retreat", "disrupted", "army-morale"]);
    assert_eq!(morale(&state), (13, 15), "unit-disrupted -2");
    // Disrupted: shattered, three hexes more, unit-shattered (-3, +1) and 3 half VPs.
    place(&mut state, "0504", &["blue-foot"]);
    let combat = close(&state, side("blue-foot", &[], &[]), side("red-guards", &[], &[]));
    let events = apply_one(&rules, &mut state, &combat, Role::Defender, &["disrupt"], &Choices::default(), &[]);
    assert_eq!(state.units["red-guards"].condition, Condition::Shattered);
    assert_eq!(
        kinds(&events),
        ["combat-result", "retreat", "shattered", "army-morale", "army-morale", "victory-points"]
    );
    assert_eq!((morale(&state), vp(&state, "blue")), ((10, 16), 3));
    // Shattered: eliminated where it stands.
    let here = at(&state, "red-guards").unwrap();
    place(&mut state, "0504", &[]);
    let combat = close(&state, side("blue-foot", &[], &[]), side("red-guards", &[], &[]));
    let events = apply_one(&rules, &mut state, &combat, Role::Defender, &["disrupt"], &Choices::default(), &[]);
    assert_eq!(off(&state, "red-guards"), Some(OffMap::Eliminated));
    assert_eq!(kinds(&events)[..3], ["combat-result", "shattered-eliminated", "step-loss"]);
    assert!(!kinds(&events).contains(&"retreat"), "from {here}");
    assert_eq!(vp(&state, "blue"), 6, "one-step-unit-eliminated");
}

/// "1": a step, never a retreat; the others check.
#[test]
fn step_loss() {
    let (rules, mut state) = module();
    place(&mut state, "0506", &["red-foot", "red-militia"]);
    place(&mut state, "0507", &["blue-foot"]);
    let combat = close(&state, side("blue-foot", &[], &[]), side("red-foot", &["red-militia"], &[]));
    let events = apply_one(&rules, &mut state, &combat, Role::Defender, &["step-loss"], &Choices::default(), &[9]);
    assert_eq!((state.units["red-foot"].steps, at(&state, "red-foot").as_deref()), (1, Some("0506")));
    assert_eq!(kinds(&events)[..2], ["combat-result", "step-loss"]);
    assert_eq!(one(&events, "step-loss").rule, "13.1");
    assert_eq!(at(&state, "red-militia").as_deref(), Some("0506"));
    // The attacker's lead unit, one step: eliminated.
    apply_one(&rules, &mut state, &combat, Role::Attacker, &["step-loss"], &Choices::default(), &[]);
    assert_eq!(off(&state, "blue-foot"), Some(OffMap::Eliminated));
}

/// "2": a full-strength two-step unit is eliminated at once; a one-step
/// unit, and a second unit of the hex loses a step.
#[test]
fn two_step_loss() {
    let setup = || {
        let (rules, mut state) = module();
        place(&mut state, "0506", &["red-guards", "red-foot", "red-militia"]);
        place(&mut state, "0507", &["blue-foot"]);
        state.units.get_mut("red-foot").unwrap().steps = 1; // 2 SPs: 3 + 2 + 2 within the limit
        state.units.get_mut("red-elite").unwrap().steps = 2;
        (rules, state)
    };
    // A two-step unit at full strength.
    let (rules, mut state) = module();
    place(&mut state, "0506", &["red-elite", "red-militia"]);
    place(&mut state, "0507", &["blue-foot"]);
    let combat = close(&state, side("blue-foot", &[], &[]), side("red-elite", &["red-militia"], &[]));
    let events = apply_one(&rules, &mut state, &combat, Role::Defender, &["two-step-loss"], &Choices::default(), &[8]);
    assert_eq!(off(&state, "red-elite"), Some(OffMap::Eliminated));
    assert_eq!(state.units["red-militia"].steps, 1, "no second step");
    assert!(!kinds(&events).contains(&"second-step"));
    assert_eq!(vp(&state, "blue"), 6, "two-step-unit-eliminated");
    // A one-step unit: the second step by default from the most steps left.
    let (rules, mut state) = setup();
    state.units.get_mut("red-foot").unwrap().steps = 2;
    place(&mut state, "0506", &["red-militia"]);
    state.units.get_mut("red-militia").unwrap().hex = Some("0506".parse().unwrap());
    let combat = close(&state, side("blue-foot", &[], &[]), side("red-guards", &["red-foot", "red-militia"], &[]));
    let events =
        apply_one(&rules, &mut state, &combat, Role::Defender, &["two-step-loss"], &Choices::default(), &[9, 9]);
    assert_eq!(off(&state, "red-guards"), Some(OffMap::Eliminated));
    assert_eq!(state.units["red-foot"].steps, 1);
    let second = one(&events, "second-step");
    assert_eq!((second.fields["unit"].clone(), second.fields["by"].clone()), ("red-foot".into(), "default".into()));
    assert!(second.text.contains("the default: the most steps left"));
    // The owner's choice.
    let (rules, mut state) = setup();
    let combat = close(&state, side("blue-foot", &[], &[]), side("red-guards", &["red-foot", "red-militia"], &[]));
    let choices = Choices { second_step: Some("red-militia".into()), ..Choices::default() };
    apply_one(&rules, &mut state, &combat, Role::Defender, &["two-step-loss"], &choices, &[9]);
    assert_eq!(off(&state, "red-militia"), Some(OffMap::Eliminated));
    assert_eq!(state.units["red-foot"].steps, 1);
    // A choice not in the hex is refused.
    let (rules, mut state) = setup();
    let choices = Choices { second_step: Some("red-horse".into()), ..Choices::default() };
    let mut dice = Script::new(&[]);
    let refused = apply(&rules, &mut state, &combat, Role::Defender, &codes(&["two-step-loss"]), &choices, &mut dice)
        .unwrap_err()
        .to_string();
    assert!(refused.contains("the side's other units in the hex: red-foot, red-militia"), "{refused}");
    // No other unit: ignored. In fire combat: ignored.
    let (rules, mut state) = module();
    place(&mut state, "0506", &["red-guards"]);
    place(&mut state, "0507", &["blue-foot"]);
    let combat = close(&state, side("blue-foot", &[], &[]), side("red-guards", &[], &[]));
    let events = apply_one(&rules, &mut state, &combat, Role::Defender, &["two-step-loss"], &Choices::default(), &[]);
    assert_eq!(one(&events, "second-step-ignored").rule, "13.1");
    let (rules, mut state) = module();
    place(&mut state, "0506", &["red-guards", "red-foot"]);
    place(&mut state, "0507", &["blue-foot"]);
    let mut combat = close(&state, side("blue-foot", &[], &[]), side("red-guards", &[], &[]));
    combat.kind = CombatKind::Fire;
    let events = apply_one(&rules, &mut state, &combat, Role::Defender, &["two-step-loss"], &Choices::default(), &[]);
    assert_eq!(one(&events, "second-step-ignored").rule, "13");
    assert_eq!(state.units["red-foot"].steps, 2);
}

/// "DC" on the Defender: its own choice (by default its lowest morale);
/// the others pass and retreat, or fail and suffer "D".
#[test]
fn captured_defenders_choice() {
    let (rules, mut state, combat) = battle();
    let events = apply_one(&rules, &mut state, &combat, Role::Defender, &["captured-dc"], &Choices::default(), &[9, 0]);
    assert_eq!(off(&state, "red-militia"), Some(OffMap::Captured), "morale -1, the lowest");
    let pick = one(&events, "capture-choice");
    assert_eq!((pick.fields["chooser"].clone(), pick.fields["by"].clone()), ("defender".into(), "default".into()));
    assert!(pick.text.contains("choosing among its own units: the lowest morale showing"), "{}", pick.text);
    // red-guards passes (9 + 1): one hex; red-gun fails (0): "D", three hexes and disrupted.
    assert_eq!(at(&state, "red-guards").as_deref(), Some("0505"));
    assert_eq!(
        (at(&state, "red-gun").as_deref(), state.units["red-gun"].condition),
        (Some("0503"), Condition::Disrupted)
    );
    // unit-captured -4/+2, unit-retreated -1, unit-disrupted -2; 7 half VPs.
    assert_eq!((morale(&state), vp(&state, "blue")), ((8, 17), 7));
}

/// "AC" on the Defender: the Attacker's choice (by default the highest morale).
#[test]
fn captured_attackers_choice() {
    let (rules, mut state, combat) = battle();
    let events = apply_one(&rules, &mut state, &combat, Role::Defender, &["captured-ac"], &Choices::default(), &[9, 9]);
    assert_eq!(off(&state, "red-guards"), Some(OffMap::Captured), "morale +1, the highest");
    assert!(one(&events, "capture-choice").text.contains("the attacker choosing among the enemy's units"));
    // A choice.
    let (rules, mut state, combat) = battle();
    let choices = Choices { captured: Some("red-gun".into()), ..Choices::default() };
    apply_one(&rules, &mut state, &combat, Role::Defender, &["captured-ac"], &choices, &[9, 9]);
    assert_eq!(off(&state, "red-gun"), Some(OffMap::Captured));
    // "DC" on the Attacker: the Defender chooses among the Attacker's units.
    let (rules, mut state, combat) = battle();
    let events = apply_one(&rules, &mut state, &combat, Role::Attacker, &["captured-dc"], &Choices::default(), &[9]);
    assert_eq!(off(&state, "blue-rifles"), Some(OffMap::Captured), "morale 0 against -1");
    assert_eq!(one(&events, "capture-choice").fields["chooser"], "defender");
    // A unit not of the side is refused.
    let (rules, mut state, combat) = battle();
    let choices = Choices { captured: Some("blue-foot".into()), ..Choices::default() };
    let mut dice = Script::new(&[]);
    let refused = apply(&rules, &mut state, &combat, Role::Defender, &codes(&["captured-dc"]), &choices, &mut dice)
        .unwrap_err()
        .to_string();
    assert!(refused.contains("among: red-guards, red-militia, red-gun"), "{refused}");
}

/// "D", "2" and "AC" on the Attacker (no artillery of the Attacker is ever affected).
#[test]
fn the_attackers_results() {
    let (rules, mut state, combat) = battle();
    let events = apply_one(&rules, &mut state, &combat, Role::Attacker, &["disrupt"], &Choices::default(), &[9]);
    let b = &state.units["blue-foot"];
    assert_eq!(b.condition, Condition::Disrupted);
    assert_eq!(crate::base::hex::distance("0507".parse().unwrap(), b.hex.unwrap(), rules.module.map.layout), 3);
    assert_eq!(one(&events, "retreat").fields["hexes"], 3);
    assert_eq!(at(&state, "blue-rifles").as_deref(), Some("0507"), "9 passes");
    // "2": blue-foot (one step) eliminated, blue-rifles takes the second step.
    let (rules, mut state, combat) = battle();
    let events = apply_one(&rules, &mut state, &combat, Role::Attacker, &["two-step-loss"], &Choices::default(), &[]);
    assert_eq!(
        (off(&state, "blue-foot"), off(&state, "blue-rifles")),
        (Some(OffMap::Eliminated), Some(OffMap::Eliminated))
    );
    assert_eq!(one(&events, "second-step").fields["unit"], "blue-rifles");
    // "AC" on the Attacker: its own choice, by default the lowest morale (blue-foot, -1).
    let (rules, mut state, combat) = battle();
    let events = apply_one(&rules, &mut state, &combat, Role::Attacker, &["captured-ac"], &Choices::default(), &[9]);
    assert_eq!(off(&state, "blue-foot"), Some(OffMap::Captured));
    assert_eq!(one(&events, "capture-choice").fields["chooser"], "attacker");
    assert_eq!(at(&state, "blue-rifles").as_deref(), Some("0508"), "passed: one hex toward blue's HQ");
    assert_eq!((vp(&state, "red"), state.army_morale["green"]), (7, 15));
}

/// 12.64: a unit of the module's printed morale (+3 here) captured at
/// full strength; 12.65 with an empty pool.
#[test]
fn momentum_for_a_capture() {
    let setup = |steps: u8, red: u32, blue: u32| {
        let (rules, mut state) = module();
        place(&mut state, "0506", &["red-elite"]);
        place(&mut state, "0507", &["blue-foot"]);
        state.units.get_mut("red-elite").unwrap().steps = steps;
        state.momentum.insert("red".into(), red);
        state.momentum.insert("blue".into(), blue);
        let combat = close(&state, side("blue-foot", &[], &[]), side("red-elite", &[], &[]));
        (rules, state, combat)
    };
    // Red holds one: it goes back to the pool.
    let (rules, mut state, combat) = setup(2, 1, 0);
    let events = apply_one(&rules, &mut state, &combat, Role::Defender, &["captured-dc"], &Choices::default(), &[]);
    assert_eq!((state.momentum["red"], state.momentum["blue"]), (0, 0));
    let m = one(&events, "momentum");
    assert_eq!((m.rule.as_str(), &m.fields["outcome"]), ("series 12.64", &"returned".into()));
    // Red holds none: blue takes one from the pool (3 chits, none held).
    let (rules, mut state, combat) = setup(2, 0, 0);
    apply_one(&rules, &mut state, &combat, Role::Defender, &["captured-dc"], &Choices::default(), &[]);
    assert_eq!((state.momentum["red"], state.momentum["blue"]), (0, 1));
    // 12.65: the pool is empty (blue holds all 3): no further effect.
    let (rules, mut state, combat) = setup(2, 0, 3);
    let events = apply_one(&rules, &mut state, &combat, Role::Defender, &["captured-dc"], &Choices::default(), &[]);
    assert_eq!((state.momentum["red"], state.momentum["blue"]), (0, 3));
    assert!(one(&events, "momentum").text.contains("(12.65)"));
    // Reduced: no chit.
    let (rules, mut state, combat) = setup(1, 1, 0);
    let events = apply_one(&rules, &mut state, &combat, Role::Defender, &["captured-dc"], &Choices::default(), &[]);
    assert!(!kinds(&events).contains(&"momentum"));
    assert_eq!(state.momentum["red"], 1);
}

/// "PIN": disrupted and shattered units of both sides captured, the
/// Defender's first; every unit in the hexes pinned with the combat's id.
#[test]
fn pin() {
    let (rules, mut state, combat) = battle();
    place(&mut state, "0506", &["red-general"]);
    state.units.get_mut("red-militia").unwrap().condition = Condition::Disrupted;
    state.units.get_mut("blue-rifles").unwrap().condition = Condition::Shattered;
    let mut dice = Script::new(&[]);
    let events = apply_close_combat(
        &rules,
        &mut state,
        &combat,
        &codes(&["pin"]),
        &Choices::default(),
        &codes(&["pin"]),
        &Choices::default(),
        &mut dice,
    )
    .unwrap();
    let captures: Vec<&serde_json::Value> = all(&events, "pin-capture").iter().map(|e| &e.fields["unit"]).collect();
    assert_eq!(captures, ["red-militia", "blue-rifles"]);
    assert_eq!(
        (off(&state, "red-militia"), off(&state, "blue-rifles")),
        (Some(OffMap::Captured), Some(OffMap::Captured))
    );
    for id in ["red-guards", "red-gun", "red-general", "blue-foot"] {
        let u = &state.units[id];
        assert!(u.pinned && u.pin_result.as_deref() == Some("cc-1"), "{id}");
    }
    assert!(!state.units["red-militia"].pinned);
    assert_eq!(kinds(&events).last(), Some(&"pinned"));
    assert_eq!(vp(&state, "blue"), 7);
    assert_eq!(vp(&state, "red"), 7);
}

/// "*": one leader of the side; the Leader Casualty Table's values.
#[test]
fn leader_casualty() {
    let (rules, mut state, combat) = battle();
    place(&mut state, "0506", &["red-general", "red-colonel"]);
    // By default the colonel (3 half VPs against the general's 5).
    let events = apply_one(
        &rules,
        &mut state,
        &combat,
        Role::Defender,
        &["army-morale", "leader-casualty"],
        &Choices::default(),
        &[],
    );
    assert_eq!(off(&state, "red-colonel"), Some(OffMap::Eliminated));
    let e = one(&events, "leader-casualty");
    assert_eq!((e.fields["class"].clone(), e.fields["by"].clone()), ("officer".into(), "default".into()));
    // -4 (officer) then -2 (AM); +1 to blue for the AM; 3 half VPs to blue.
    assert_eq!((morale(&state), vp(&state, "blue")), ((9, 16), 3));
    assert_eq!(kinds(&events)[1], "leader-casualty", "\"*\" first");
    // The general, chosen: -2, 5 half VPs, and two chits (red holds one; blue takes the other).
    let choices = Choices { leader: Some("red-general".into()), ..Choices::default() };
    let events =
        apply_one(&rules, &mut state, &combat, Role::Defender, &["retreat", "leader-casualty"], &choices, &[9, 9]);
    assert_eq!(off(&state, "red-general"), Some(OffMap::Eliminated));
    assert_eq!(vp(&state, "blue"), 8);
    let chits: Vec<&serde_json::Value> = all(&events, "momentum").iter().map(|e| &e.fields["outcome"]).collect();
    assert_eq!(chits, ["returned", "taken-by-opponent"]);
    assert_eq!((state.momentum["red"], state.momentum["blue"]), (0, 1));
    // No leader: ignored.
    let events = apply_one(
        &rules,
        &mut state,
        &combat,
        Role::Attacker,
        &["no-effect", "leader-casualty"],
        &Choices::default(),
        &[],
    );
    assert_eq!(kinds(&events), ["combat-result", "leader-casualty-ignored"]);
    // A leader not there is refused.
    let (rules, mut state, combat) = battle();
    place(&mut state, "0506", &["red-general"]);
    let choices = Choices { leader: Some("red-colonel".into()), ..Choices::default() };
    let mut dice = Script::new(&[]);
    let refused = apply(
        &rules,
        &mut state,
        &combat,
        Role::Defender,
        &codes(&["army-morale", "leader-casualty"]),
        &choices,
        &mut dice,
    )
    .unwrap_err()
    .to_string();
    assert!(refused.contains("the leaders there: red-general"), "{refused}");
    // Fire combat: the target's hex only.
    let (rules, mut state) = module();
    place(&mut state, "0506", &["red-guards"]);
    place(&mut state, "0505", &["red-foot", "red-general"]);
    place(&mut state, "0508", &["blue-gun"]);
    let mut combat = close(&state, side("blue-gun", &[], &[]), side("red-guards", &[], &[]));
    combat.kind = CombatKind::Fire;
    let events = apply_one(
        &rules,
        &mut state,
        &combat,
        Role::Defender,
        &["no-effect", "leader-casualty"],
        &Choices::default(),
        &[],
    );
    assert_eq!(kinds(&events), ["combat-result", "leader-casualty-ignored"]);
}

/// 13.5: roll + printed morale + the level's modifier + leadership (the
/// leader in command: the general, senior to the colonel) >= 6.
#[test]
fn morale_check_arithmetic() {
    let (rules, mut state) = module();
    place(&mut state, "0506", &["red-militia", "red-general", "red-colonel"]);
    let at_start = state.army_morale.clone();
    let check = MoraleCheck { why: "test", morale_at_start: &at_start, attacked_from: &[], trigger: None };
    let mut dice = Script::new(&[5, 6]);
    let (passed, e) = morale_check(&rules, &mut state, "red-militia", &check, &mut dice).unwrap();
    assert!(!passed);
    assert_eq!(e.fields["total"], 5, "5 - 1 + 0 + 1");
    assert_eq!(e.fields["drms"], serde_json::json!({"leadership (Red General)": 1}));
    let (passed, _) = morale_check(&rules, &mut state, "red-militia", &check, &mut dice).unwrap();
    assert!(passed);
    dice.done();
    assert_eq!(dice.purposes[0], "morale check (13.5), Red Militia in 0506");
}

/// 16.24: the level at the start of the combat, not the one now.
#[test]
fn the_army_morale_level_at_the_start_of_the_combat() {
    let (rules, mut state) = module();
    place(&mut state, "0506", &["red-guards"]);
    state.army_morale.insert("red".into(), 8); // shaken, -1
    let at_start: BTreeMap<String, i32> = [("red".to_string(), 15)].into_iter().collect();
    let check = MoraleCheck { why: "test", morale_at_start: &at_start, attacked_from: &[], trigger: None };
    let mut dice = Script::new(&[5, 5]);
    let (passed, e) = morale_check(&rules, &mut state, "red-guards", &check, &mut dice).unwrap();
    assert!(passed, "5 + 1 + 0: steady at the start");
    assert_eq!(e.fields["army_morale_modifier"], 0);
    assert!(e.text.contains("16.24: army morale 15 at the start of the combat, 8 now"), "{}", e.text);
    assert_eq!(state.army_morale["red"], 8, "the state keeps its morale");
    let wavering: BTreeMap<String, i32> = [("red".to_string(), 3)].into_iter().collect();
    let check = MoraleCheck { morale_at_start: &wavering, ..check };
    let (passed, e) = morale_check(&rules, &mut state, "red-guards", &check, &mut dice).unwrap();
    assert!(!passed);
    assert_eq!(e.fields["army_morale_modifier"], -3);
    let none = BTreeMap::new();
    let check = MoraleCheck { morale_at_start: &none, ..check };
    let refused = morale_check(&rules, &mut state, "red-guards", &check, &mut dice).unwrap_err();
    assert!(refused.to_string().contains("16.24"));
    // Through a result: AM takes red from 10 (steady) to 8 (shaken); the check uses 10.
    let (rules, mut state, _) = battle();
    state.army_morale.insert("red".into(), 10);
    let combat =
        close(&state, side("blue-foot", &["blue-rifles"], &[]), side("red-guards", &["red-militia"], &["red-gun"]));
    let events = apply_one(
        &rules,
        &mut state,
        &combat,
        Role::Defender,
        &["army-morale", "retreat"],
        &Choices::default(),
        &[7, 6],
    );
    let checks = all(&events, "morale-check");
    assert_eq!(checks[0].fields["army_morale_modifier"], 0);
    assert_eq!(checks[0].fields["army_morale_at_start"], 10);
    assert_eq!(checks[0].fields["passed"], true);
}

/// 13.5: +3 (the test chart) defending solely across unbreached fieldworks.
#[test]
fn fieldworks_in_defence() {
    let (rules, mut state) = module();
    place(&mut state, "1104", &["red-militia"]);
    let at_start = state.army_morale.clone();
    let hexes = |l: &[&str]| -> Vec<HexId> { l.iter().map(|h| h.parse().unwrap()).collect() };
    let cases: [(&[&str], i32); 4] = [(&["1204"], 3), (&["1204", "1203"], 3), (&["1204", "1105"], 0), (&[], 0)];
    for (from, bonus) in cases {
        let from = hexes(from);
        let check = MoraleCheck { why: "test", morale_at_start: &at_start, attacked_from: &from, trigger: None };
        let mut dice = Script::new(&[5]);
        let (_, e) = morale_check(&rules, &mut state, "red-militia", &check, &mut dice).unwrap();
        assert_eq!(e.fields["total"], 4 + bonus, "{from:?}");
    }
    // Through a close combat result: the Defender's check, not the Attacker's.
    place(&mut state, "1104", &["red-guards"]);
    place(&mut state, "1204", &["blue-foot", "blue-rifles"]);
    let combat = close(&state, side("blue-foot", &["blue-rifles"], &[]), side("red-guards", &["red-militia"], &[]));
    let events = apply_one(&rules, &mut state, &combat, Role::Defender, &["retreat"], &Choices::default(), &[4]);
    assert_eq!(one(&events, "morale-check").fields["drms"], serde_json::json!({"defending across fieldworks": 3}));
    assert_eq!(at(&state, "red-militia").as_deref(), Some("1104"), "4 - 1 + 3 passes");
    assert_eq!(at(&state, "red-guards").as_deref(), Some("1003"));
    let events = apply_one(&rules, &mut state, &combat, Role::Attacker, &["retreat"], &Choices::default(), &[9]);
    assert_eq!(one(&events, "morale-check").fields["drms"], serde_json::json!({}));
}

#[test]
fn an_unknown_modifier_is_refused() {
    let (mut rules, mut state) = module();
    place(&mut state, "0506", &["red-guards"]);
    let mut m = rules.charts.morale_check.modifiers[0].clone();
    m.id = "moonlight".into();
    rules.charts.morale_check.modifiers.push(m);
    let at_start = state.army_morale.clone();
    let check = MoraleCheck { why: "test", morale_at_start: &at_start, attacked_from: &[], trigger: None };
    let refused = morale_check(&rules, &mut state, "red-guards", &check, &mut Script::new(&[5])).unwrap_err();
    assert!(refused.to_string().contains("'moonlight'"), "{refused}");
}

/// Savannah 4.19: a destroyed city hex (-2 here) and a breach; a failure retreats one hex.
#[test]
fn triggered_checks() {
    let (rules, mut state) = module();
    place(&mut state, "1307", &["red-guards", "red-general"]);
    place(&mut state, "1104", &["red-militia"]);
    let at_start = state.army_morale.clone();
    let mut dice = Script::new(&[6]);
    let h = |s: &str| -> HexId { s.parse().unwrap() };
    let events = triggered_check(
        &rules,
        &mut state,
        "city-hex-destroyed",
        &[h("1307")],
        "blue",
        &at_start,
        &BTreeMap::new(),
        &mut dice,
    )
    .unwrap();
    dice.done();
    let check = one(&events, "morale-check");
    assert_eq!(check.fields["drms"], serde_json::json!({"city-hex-destroyed": -2, "leadership (Red General)": 1}));
    assert_eq!(check.fields["total"], 6, "6 + 1 - 2 + 1");
    assert_eq!(at(&state, "red-guards").as_deref(), Some("1307"));
    let mut dice = Script::new(&[2]);
    let events = triggered_check(
        &rules,
        &mut state,
        "fieldwork-breached",
        &[h("1104")],
        "blue",
        &at_start,
        &BTreeMap::new(),
        &mut dice,
    )
    .unwrap();
    assert_eq!(one(&events, "morale-check").fields["drms"], serde_json::json!({}), "no city modifier");
    let r = one(&events, "retreat");
    assert_eq!(r.rule, "Savannah 4.19");
    assert_ne!(at(&state, "red-militia").as_deref(), Some("1104"));
    assert!(!kinds(&events).contains(&"army-morale"));
    let refused = triggered_check(
        &rules,
        &mut state,
        "earthquake",
        &[h("1104")],
        "blue",
        &at_start,
        &BTreeMap::new(),
        &mut Script::new(&[]),
    )
    .unwrap_err();
    assert!(refused.to_string().contains("'earthquake' is not one of its triggered_checks"));
}

/// 12.23 step 7, 13.1: both retreat; the Defender first.
#[test]
fn the_defender_retreats_first() {
    let (rules, mut state, combat) = battle();
    let mut dice = Script::new(&[9, 9, 9]);
    let events = apply_close_combat(
        &rules,
        &mut state,
        &combat,
        &codes(&["retreat"]),
        &Choices::default(),
        &codes(&["retreat"]),
        &Choices::default(),
        &mut dice,
    )
    .unwrap();
    dice.done();
    let retreats: Vec<&serde_json::Value> = all(&events, "retreat").iter().map(|e| &e.fields["unit"]).collect();
    assert_eq!(retreats, ["red-guards", "blue-foot"]);
    let sides: Vec<&serde_json::Value> = all(&events, "combat-result").iter().map(|e| &e.fields["side"]).collect();
    assert_eq!(sides, ["defender", "attacker"]);
    // Choices go with their side: blue's lead unit retreats where blue says.
    let (rules, mut state, combat) = battle();
    let mut blue = Choices::default();
    blue.retreats.insert("blue-foot".into(), RetreatChoice { path: vec!["0607".into()], ..RetreatChoice::default() });
    let mut dice = Script::new(&[9, 9, 9]);
    apply_close_combat(
        &rules,
        &mut state,
        &combat,
        &codes(&["retreat"]),
        &blue,
        &codes(&["retreat"]),
        &Choices::default(),
        &mut dice,
    )
    .unwrap();
    assert_eq!(at(&state, "blue-foot").as_deref(), Some("0607"));
    // A bad choice refuses the whole result, nothing changed.
    let (rules, mut state, combat) = battle();
    let start = state.clone();
    let mut bad = Choices::default();
    bad.retreats.insert("red-guards".into(), RetreatChoice { path: vec!["0606".into()], ..RetreatChoice::default() });
    let mut dice = Script::new(&[9, 9, 9]);
    let refused = apply_close_combat(
        &rules,
        &mut state,
        &combat,
        &codes(&["retreat"]),
        &Choices::default(),
        &codes(&["retreat"]),
        &bad,
        &mut dice,
    )
    .unwrap_err();
    assert!(refused.to_string().contains("0606 is in the ZOC of blue-foot"), "{refused}");
    assert_eq!(state, start);
}

/// 13.25: a unit that retreated into the hex checks after any result:
/// a pass retreats one hex, a failure suffers "D".
#[test]
fn previously_retreated_units() {
    let setup = || {
        let (rules, mut state) = module();
        place(&mut state, "0506", &["red-guards", "red-horse"]);
        place(&mut state, "0507", &["blue-foot"]);
        let mut combat = close(&state, side("blue-foot", &[], &[]), side("red-guards", &[], &[]));
        combat.defender.previously_retreated = ids(&["red-horse"]);
        (rules, state, combat)
    };
    let (rules, mut state, combat) = setup();
    apply_one(&rules, &mut state, &combat, Role::Defender, &["army-morale"], &Choices::default(), &[9]);
    assert_eq!(at(&state, "red-horse").as_deref(), Some("0505"));
    assert_eq!(state.units["red-horse"].condition, Condition::ParadeOrder);
    let (rules, mut state, combat) = setup();
    apply_one(&rules, &mut state, &combat, Role::Defender, &["step-loss"], &Choices::default(), &[1]);
    assert_eq!(at(&state, "red-horse").as_deref(), Some("0503"));
    assert_eq!(state.units["red-horse"].condition, Condition::Disrupted);
    // "-": nothing.
    let (rules, mut state, combat) = setup();
    apply_one(&rules, &mut state, &combat, Role::Defender, &["no-effect"], &Choices::default(), &[]);
    assert_eq!(at(&state, "red-horse").as_deref(), Some("0506"));
}

/// Savannah 4.9 through a close combat result; a normal retreat in fire combat.
#[test]
fn lost_units() {
    let (rules, mut state) = module();
    place(&mut state, "0506", &["red-guards"]);
    place(&mut state, "0507", &["blue-foot"]);
    state.units.get_mut("red-guards").unwrap().lost = true;
    let combat = close(&state, side("blue-foot", &[], &[]), side("red-guards", &[], &[]));
    let events = apply_one(&rules, &mut state, &combat, Role::Defender, &["disrupt"], &Choices::default(), &[]);
    let u = &state.units["red-guards"];
    assert_eq!(
        (u.hex.map(|h| h.to_string()).as_deref(), u.pinned, u.condition),
        (Some("0506"), true, Condition::Disrupted)
    );
    assert_eq!(u.pin_result.as_deref(), Some("cc-1"));
    assert_eq!(kinds(&events)[1], "pinned-instead");
    let mut fire = combat.clone();
    fire.kind = CombatKind::Fire;
    apply_one(&rules, &mut state, &fire, Role::Defender, &["retreat"], &Choices::default(), &[]);
    assert_eq!(at(&state, "red-guards").as_deref(), Some("0505"));
}

/// 13.3, 13.4 at the end of red's Close Combat Phase.
#[test]
fn the_end_of_the_close_combat_phase() {
    let (rules, mut state) = module();
    let set = |state: &mut State, id: &str, c: Condition| state.units.get_mut(id).unwrap().condition = c;
    // 13.3: red's disrupted unit next to blue: shattered, three hexes.
    place(&mut state, "0506", &["red-guards"]);
    place(&mut state, "0507", &["blue-foot"]);
    set(&mut state, "red-guards", Condition::Disrupted);
    // 13.4: shattered units of either side next to the enemy: captured.
    place(&mut state, "0909", &["red-militia"]);
    set(&mut state, "red-militia", Condition::Shattered);
    place(&mut state, "0910", &["blue-horse"]);
    set(&mut state, "blue-horse", Condition::Shattered);
    place(&mut state, "0911", &["red-riflemen"]);
    // Blue's disrupted unit: not its own phase.
    place(&mut state, "0912", &["blue-musket-rifles"]);
    set(&mut state, "blue-musket-rifles", Condition::Disrupted);
    // Stacked with a friendly Parade Order unit: safe.
    place(&mut state, "1206", &["red-foot", "red-elite"]);
    set(&mut state, "red-foot", Condition::Disrupted);
    place(&mut state, "1207", &["blue-rifles"]);
    let start_vp = vp(&state, "blue");
    let mut dice = Script::new(&[]);
    let events = end_of_close_combat_phase(&rules, &mut state, "red", &mut dice).unwrap();
    assert_eq!(off(&state, "red-militia"), Some(OffMap::Captured));
    assert_eq!(off(&state, "blue-horse"), Some(OffMap::Captured));
    let g = &state.units["red-guards"];
    assert_eq!((g.hex.map(|h| h.to_string()).as_deref(), g.condition), (Some("0503"), Condition::Shattered));
    assert_eq!(state.units["blue-musket-rifles"].condition, Condition::Disrupted);
    assert_eq!(at(&state, "blue-musket-rifles").as_deref(), Some("0912"));
    assert_eq!(
        (at(&state, "red-foot").as_deref(), state.units["red-foot"].condition),
        (Some("1206"), Condition::Disrupted)
    );
    let safe = one(&events, "stacked-with-parade-order");
    assert_eq!((safe.rule.as_str(), &safe.fields["with"]), ("13.3", &"red-elite".into()));
    let captured: Vec<&serde_json::Value> =
        all(&events, "shattered-captured").iter().map(|e| &e.fields["unit"]).collect();
    assert_eq!(captured, ["blue-horse", "red-militia"]);
    let shattered = one(&events, "shattered");
    assert_eq!(shattered.rule, "13.3");
    // red-militia captured (7) and red-guards shattered (3) score for blue; blue-horse for red.
    assert_eq!((vp(&state, "blue") - start_vp, vp(&state, "red")), (10, 7));
    // 13.3 with no retreat of three hexes: captured.
    let (rules, mut state) = module();
    place(&mut state, "1601", &["red-guards"]);
    place(&mut state, "1501", &["blue-foot"]);
    state.units.get_mut("red-guards").unwrap().condition = Condition::Disrupted;
    let events = end_of_close_combat_phase(&rules, &mut state, "red", &mut Script::new(&[])).unwrap();
    assert_eq!(off(&state, "red-guards"), Some(OffMap::Captured));
    assert_eq!(one(&events, "retreat-impossible").rule, "13.24");
    assert!(end_of_close_combat_phase(&rules, &mut state, "purple", &mut Script::new(&[])).is_err());
}

/// counters.yaml `casualty` replaces the capture's entries (Savannah 4.8).
#[test]
fn a_capture_with_the_counters_casualty() {
    let (mut rules, mut state) = module();
    place(&mut state, "0506", &["red-guards"]);
    let c = rules.module.counters.iter_mut().find(|c| c.id == "red-guards").unwrap();
    c.casualty = Some(crate::systems::gboar::data::counters::Casualty {
        vp_halves: Some(1),
        army_morale: Some(false),
        source: None,
    });
    let data = Data::load(&rules).unwrap();
    let events = capture(&rules, &data, &mut state, "red-guards", "13.1", "green").unwrap();
    assert_eq!(kinds(&events), ["captured", "victory-points"]);
    assert_eq!((state.army_morale["red"], vp(&state, "green")), (15, 1));
    assert!(capture(&rules, &data, &mut state, "red-foot", "13.1", "green").is_err(), "off the map");
    place(&mut state, "0506", &["red-foot"]);
    assert!(capture(&rules, &data, &mut state, "red-foot", "13.1", "red").is_err(), "not an enemy");
}
