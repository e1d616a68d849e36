//! The Close Combat Phase's orders and their designation (12.12-12.15,
//! 12.21): who attacks whom, the diversion, the defence's choices, each
//! checked against the rules and refused with every problem.

use serde::Deserialize;

use super::*;
use crate::base::error::echo;

// ---------------------------------------------------------------------------
// The Close Combat Phase: orders and designation (12.12-12.15, 12.21)

/// When a side spends a momentum chit to re-roll (12.23 step 6).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "a momentum policy, a map with reroll_if (a list of results) and at_most (a number of chits)")]
pub struct MomentumPolicy {
    /// Re-roll when the side's own results include any of these result ids
    /// (charts/codes.yaml), e.g. `[captured-dc, captured-ac, two-step-loss]`.
    #[serde(default)]
    pub reroll_if: Vec<String>,
    /// At most this many chits in one combat.
    #[serde(default)]
    pub at_most: u32,
}

impl MomentumPolicy {
    pub fn wants(&self, own: &[String]) -> bool {
        own.iter().any(|r| self.reroll_if.contains(r))
    }
}

/// The phasing sides' orders: the attacks, in the order they are resolved
/// (12.23: "in any order that the Attacker chooses").
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "close combat orders (a map)")]
pub struct AttackOrders {
    #[serde(default)]
    pub attacks: Vec<crate::base::yaml::Value>,
    /// 12.14: the defending hex that receives a diversion.
    #[serde(default)]
    pub diversion: Option<String>,
    /// 12.23 step 6: when to spend momentum, for every attack.
    #[serde(default)]
    pub momentum: Option<MomentumPolicy>,
}

/// One attack.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "an attack (a map)")]
pub struct AttackOrder {
    /// The attacking units (leaders stacked with them may be listed too).
    pub attackers: Vec<String>,
    /// The defending hexes: every unit in them is attacked (12.15).
    pub defenders: Vec<String>,
    /// 12.23 step 2 (default: the best modified morale, then the most SPs).
    #[serde(default)]
    pub lead: Option<String>,
    /// 12.23 step 4 (default: the first chit of the chart this side may play).
    #[serde(default)]
    pub tactics: Option<String>,
    /// 12.23 step 9: units that advance with the lead unit if the hex is vacated.
    #[serde(default)]
    pub advance: Vec<String>,
    #[serde(default)]
    pub momentum: Option<MomentumPolicy>,
    /// Choices for the results that fall on the attackers: retreat paths,
    /// the unit that takes a 2's second step, the leader of a *, our unit
    /// captured on an AC result (13.1: the Attacker's choice).
    #[serde(default)]
    pub choices: crate::systems::gboar::effects::results::Choices,
    /// 13.1 AC on the defenders: the defending unit we capture.
    #[serde(default)]
    pub capture: Option<String>,
    /// 12.23: "Each Close Combat is resolved separately in any order that
    /// the Attacker chooses": the attack's place in the order of every
    /// attack of the player, across his sides' files (Savannah's Allies
    /// write an American and a French file). Attacks with a place go
    /// first, lowest first; the others follow, side after side, each
    /// file's in its order.
    #[serde(default)]
    pub sequence: Option<u32>,
}

/// The non-phasing sides' standing instructions for the other player's
/// Close Combat Phase.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "defence orders (a map)")]
pub struct DefenceOrders {
    #[serde(default)]
    pub defence: Defence,
    #[serde(default)]
    pub momentum: Option<MomentumPolicy>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(expecting = "a defence, a map with tactics and hexes")]
pub struct Defence {
    /// The chit for every defending hex without its own.
    #[serde(default)]
    pub tactics: Option<String>,
    #[serde(default)]
    pub hexes: BTreeMap<String, HexDefence>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
#[serde(
    expecting = "a hex's defence, a map with tactics, lead, lead_after_attacker, cavalry_withdrawal, choices and capture"
)]
pub struct HexDefence {
    #[serde(default)]
    pub tactics: Option<String>,
    /// 12.23 step 2: the Defender's lead unit (default: the best modified
    /// morale, then the most SPs).
    #[serde(default)]
    pub lead: Option<String>,
    /// 12.23 step 2: "Each side, starting with the Attacker, must choose one
    /// unit to be its lead unit": the Defender, who chooses second, may name
    /// his lead unit for each lead unit the Attacker may choose (attacker's
    /// unit: ours); `lead` is the choice for any other.
    #[serde(default)]
    pub lead_after_attacker: BTreeMap<String, String>,
    /// 12.4: withdraw Parade Order cavalry instead of fighting, when allowed.
    #[serde(default)]
    pub cavalry_withdrawal: bool,
    /// Choices for the results that fall on this hex's defenders (our unit
    /// captured on a DC result is ours to choose, 13.1).
    #[serde(default)]
    pub choices: crate::systems::gboar::effects::results::Choices,
    /// 13.1 DC on the attackers: the attacking unit we capture.
    #[serde(default)]
    pub capture: Option<String>,
}

/// A problem in close combat orders: the side, the field, what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Why (docs/refusals.md).
    pub code: Code,
    pub side: String,
    pub field: String,
    pub message: String,
}

/// A designated attack, checked.
#[derive(Debug, Clone)]
pub struct Designated {
    pub side: String,
    pub field: String,
    pub attackers: Vec<String>,
    pub defenders: Vec<String>,
    pub defending_hexes: Vec<HexId>,
    pub lead: Option<String>,
    pub tactics: Option<String>,
    pub advance: Vec<String>,
    pub momentum: MomentumPolicy,
    pub choices: crate::systems::gboar::effects::results::Choices,
    pub capture: Option<String>,
    /// [`AttackOrder::sequence`].
    pub sequence: Option<u32>,
}

/// The phase's designation, checked: the attacks and the diversion.
#[derive(Debug, Clone, Default)]
pub struct Designation {
    pub attacks: Vec<Designated>,
    pub diversion: Option<HexId>,
    pub defence: BTreeMap<String, DefenceOrders>,
}

/// Why `id` may not be one of the phasing `player`'s attackers in a Close
/// Combat this phase, if it may not: not a unit of the game or of the
/// player, off the map, disrupted or shattered (13.3, 13.4), held back by
/// the scenario's turn restrictions, or carrying a Cavalry Withdrawal
/// marker (12.4). Leaders may be listed with their units.
pub fn attacker_refused(rules: &Rules, state: &State, player: &str, id: &str) -> Option<Refusal> {
    let Some(c) = rules.counter(id).filter(|_| state.units.contains_key(id)) else {
        return Some(Refusal::new(
            Code::UnknownUnit,
            format!("there is no unit '{}' in this game", crate::base::error::echo(id)),
        ));
    };
    // An alliance's sides may designate attacks together (a combined
    // attack, where 4.13 allows it): any unit of the phasing player, never
    // the enemy's.
    if player_of(rules, id) != player {
        return Some(Refusal::new(
            Code::AttackerIsEnemy,
            format!("{id} is an enemy unit: the {player} player attacks with its own units"),
        ));
    }
    let Some(u) = state.units.get(id).filter(|u| u.hex.is_some()) else {
        return Some(Refusal::new(Code::UnitOffMap, format!("{id} is not on the map")));
    };
    if !c.is_leader() && u.condition != Condition::ParadeOrder {
        return Some(Refusal::new(
            Code::AttackerNotParadeOrder,
            format!("{id} is {:?}: disrupted and shattered units may not attack (13.3, 13.4)", u.condition)
                .to_lowercase(),
        ));
    }
    if !c.is_leader() && may_not_attack(rules, state, id) {
        return Some(Refusal::new(
            Code::AttackerRestricted,
            format!("{id} may not attack in Close Combat this turn (the scenario's turn restrictions)"),
        ));
    }
    if crate::systems::gboar::board::units::defence_only_alone(rules, state, id) {
        return Some(Refusal::new(
            Code::DefenceOnlyAlone,
            format!(
                "{id} is alone in its hex: its combat value is in parenthesis, for defence only when alone \
                 (Savannah 4.8); it attacks only stacked with another combat unit"
            ),
        ));
    }
    if u.cavalry_withdrawn {
        return Some(Refusal::new(
            Code::AttackerWithdrawn,
            format!("{id} carries a Cavalry Withdrawal marker: it may not attack (12.4)"),
        ));
    }
    None
}

/// Savannah 4.13 (module.yaml `close_combat.cooperation`): whether two
/// units may take part in one attack.
pub(super) fn cooperate(rules: &Rules, x: &str, y: &str) -> bool {
    let (Some(cx), Some(cy)) = (rules.counter(x), rules.counter(y)) else { return false };
    rules.close_combat.cooperation.iter().all(|r| !r.applies(cx, cy))
}

/// 12.12-12.15, 12.21, Savannah 4.13 and the scenario's turn restrictions:
/// check the attacks of every phasing side (and read the defence orders of
/// the others). Every problem is reported.
pub fn designate(
    rules: &Rules,
    state: &State,
    player: &str,
    orders: &BTreeMap<String, crate::base::yaml::Value>,
    whole_phase: bool,
) -> (Designation, Vec<Problem>) {
    Ready::new(rules, state, player).designate(orders, whole_phase)
}

/// What [`designate`] asks of the state whatever the orders, found once
/// for every orders file of the step checked against it: each hex's
/// units ([`Occupancy`]), the phasing player's units with their sides,
/// those that must attack (12.12) and those that could.
pub struct Ready<'a> {
    rules: &'a Rules,
    state: &'a State,
    player: String,
    occupancy: Occupancy<'a>,
    /// 12.12: the player's units that must attack: the checks ask it of
    /// each unit of the player more than once.
    must_attack_here: BTreeSet<&'a str>,
    /// The player's units in id order, each with its side.
    mine: Vec<(&'a String, &'a str)>,
    /// Those of them that could attack: combat units, not artillery, that
    /// no rule holds back ([`attacker_refused`]).
    could_attack: Vec<(&'a String, &'a str)>,
}

impl<'a> Ready<'a> {
    pub fn new(rules: &'a Rules, state: &'a State, player: &str) -> Ready<'a> {
        let occupancy = Occupancy::new(rules, state);
        let mine: Vec<(&'a String, &'a str)> =
            state.units.keys().filter(|id| player_of(rules, id) == player).map(|id| (id, side_of(rules, id))).collect();
        let must_attack_here = mine
            .iter()
            .filter(|(id, _)| must_attack_in(rules, state, id, Some(&occupancy)))
            .map(|(id, _)| id.as_str())
            .collect();
        let could_attack = mine
            .iter()
            .filter(|(u, _)| {
                rules.counter(u).is_some_and(|c| !c.is_leader() && !c.is_artillery())
                    && attacker_refused(rules, state, player, u).is_none()
            })
            .copied()
            .collect();
        Ready { rules, state, player: player.to_string(), occupancy, must_attack_here, mine, could_attack }
    }

    /// [`designate`] of these orders.
    pub fn designate(
        &self,
        orders: &BTreeMap<String, crate::base::yaml::Value>,
        whole_phase: bool,
    ) -> (Designation, Vec<Problem>) {
        designate_in(self, orders, whole_phase)
    }
}

fn designate_in(
    ready: &Ready<'_>,
    orders: &BTreeMap<String, crate::base::yaml::Value>,
    whole_phase: bool,
) -> (Designation, Vec<Problem>) {
    let (rules, state, player) = (ready.rules, ready.state, ready.player.as_str());
    let layout = rules.module.map.layout;
    let mut d = Designation::default();
    let must_attack_here = &ready.must_attack_here;
    // Another player's unit (named in an attack by mistake) is asked as
    // before.
    let must_attack = |id: &str| {
        if player_of(rules, id) == player {
            must_attack_here.contains(id)
        } else {
            must_attack_in(rules, state, id, Some(&ready.occupancy))
        }
    };
    let mut problems = Vec::new();
    let mut bad = |side: &str, code: Code, field: String, message: String| {
        problems.push(Problem { code, side: side.into(), field, message })
    };
    let phasing = rules.sequence.sides_of(player);
    let mut used: BTreeMap<String, String> = BTreeMap::new();
    let mut attacked_hexes: BTreeMap<HexId, String> = BTreeMap::new();
    for (side, body) in orders {
        if !phasing.contains(side) {
            match crate::base::yaml::deserialize_at::<DefenceOrders>(body) {
                Ok(o) => {
                    for (hex, h) in &o.defence.hexes {
                        if hex.parse::<HexId>().is_err() {
                            bad(
                                side,
                                Code::NotAHexId,
                                format!("defence.hexes.{hex}"),
                                format!(
                                    "'{}' is not a hex id: {}",
                                    crate::base::error::echo(hex),
                                    crate::systems::gboar::board::refusals::hex_id_advice(hex)
                                ),
                            );
                        }
                        // 12.23 step 2: the lead units named are ours, in
                        // the hex; those they answer are the enemy's.
                        let here = hex.parse::<HexId>().ok();
                        let ours = |u: &str| {
                            rules.counter(u).is_some_and(|c| !c.is_leader())
                                && side_of(rules, u) == *side
                                && here.is_some()
                                && hex_of(state, u) == here
                        };
                        let leads = h.lead.iter().map(|u| (format!("defence.hexes.{hex}.lead"), u));
                        let answers = h
                            .lead_after_attacker
                            .iter()
                            .map(|(k, u)| (format!("defence.hexes.{hex}.lead_after_attacker.{}", echo(k)), u));
                        for (field, u) in leads.chain(answers) {
                            if !ours(u) {
                                bad(
                                    side,
                                    Code::LeadUnitNotInHex,
                                    field,
                                    format!("{} is not a combat unit of {side} in {hex}", echo(u)),
                                );
                            }
                        }
                        for k in h.lead_after_attacker.keys() {
                            if rules.counter(k).is_none_or(|c| c.is_leader()) || side_of(rules, k) == *side {
                                bad(
                                    side, Code::LeadKeyNotEnemy,
                                    format!("defence.hexes.{hex}.lead_after_attacker"),
                                    format!("{} is not an enemy combat unit: the keys are the Attacker's possible lead units (12.23 step 2)", echo(k)),
                                );
                            }
                        }
                        if let Some(t) = &h.tactics {
                            if rules.charts.tactics.chits.iter().all(|c| &c.id != t) {
                                bad(
                                    side,
                                    Code::UnknownTacticsChit,
                                    format!("defence.hexes.{hex}.tactics"),
                                    format!("'{}' is not a tactics chit", crate::base::error::echo(t)),
                                );
                            }
                        }
                        // Savannah 4.9: "Mounted units that are lost may not
                        // select 'Cavalry Withdrawal' prior to Close Combat":
                        // the Lost marker is on the map as the orders are
                        // written, so choosing it for the unit's hex is
                        // refused (a withdrawal another hex's instructions
                        // choose is not open to it: `cavalry_may_withdraw`).
                        if h.cavalry_withdrawal && !rules.charts.covered_way.lost_effects.cavalry_withdrawal {
                            let lost: Vec<&String> = state
                                .units
                                .iter()
                                .filter(|(u, s)| s.lost && here.is_some() && hex_of(state, u) == here)
                                .filter(|(u, _)| {
                                    side_of(rules, u) == *side && rules.counter(u).is_some_and(|c| c.kind == "cavalry")
                                })
                                .map(|(u, _)| u)
                                .collect();
                            if !lost.is_empty() {
                                let names: Vec<&str> = lost.iter().map(|u| u.as_str()).collect();
                                bad(
                                    side,
                                    Code::LostMayNotWithdraw,
                                    format!("defence.hexes.{hex}.cavalry_withdrawal"),
                                    format!(
                                        "{} in {hex} {} Lost: mounted units that are lost may not select Cavalry Withdrawal (Savannah 4.9)",
                                        names.join(", "),
                                        if names.len() == 1 { "is" } else { "are" }
                                    ),
                                );
                            }
                        }
                    }
                    d.defence.insert(side.clone(), o);
                }
                Err(e) => bad(
                    side,
                    Code::OrdersShape,
                    e.path().to_string(),
                    format!(
                        "{} (defence orders are `defence:` and `momentum:`)",
                        crate::base::error::echo_serde(e.inner())
                    ),
                ),
            }
            continue;
        }
        let parsed: AttackOrders = match crate::base::yaml::deserialize_at(body) {
            Ok(o) => o,
            Err(e) => {
                bad(
                    side,
                    Code::OrdersShape,
                    e.path().to_string(),
                    format!(
                        "{} (close combat orders are `attacks:`, `diversion:` and `momentum:`)",
                        crate::base::error::echo_serde(e.inner())
                    ),
                );
                continue;
            }
        };
        if let Some(h) = &parsed.diversion {
            match h.parse::<HexId>() {
                Ok(hex) if d.diversion.is_some() && d.diversion != Some(hex) => bad(
                    side,
                    Code::OneDiversion,
                    "diversion".into(),
                    "only one stack receives a diversion in a phase (12.14)".into(),
                ),
                Ok(hex) => d.diversion = Some(hex),
                Err(e) => bad(side, Code::NotAHexId, "diversion".into(), e.to_string()),
            }
        }
        for (i, value) in parsed.attacks.iter().enumerate() {
            let field = format!("attacks[{i}]");
            let a: AttackOrder = match crate::base::yaml::deserialize_at(value) {
                Ok(a) => a,
                Err(e) => {
                    bad(
                        side,
                        Code::OrdersShape,
                        format!("{field}.{}", e.path()),
                        format!(
                            "{} (an attack has attackers, defenders, and may have lead, tactics, advance, momentum, choices, capture, sequence)",
                            crate::base::error::echo_serde(e.inner())
                        ),
                    );
                    continue;
                }
            };
            let mut ok = true;
            let mut attackers = Vec::new();
            for (k, id) in a.attackers.iter().enumerate() {
                let at = format!("{field}.attackers[{k}]");
                if let Some(refusal) = attacker_refused(rules, state, player, id) {
                    bad(side, refusal.code, at, refusal.message);
                    ok = false;
                    continue;
                }
                if let Some(other) = used.insert(id.clone(), field.clone()) {
                    bad(
                        side,
                        Code::AttacksOnce,
                        at,
                        format!("{id} is already in {other}: each unit is in one Close Combat per player turn (12.15)"),
                    );
                    ok = false;
                    continue;
                }
                attackers.push(id.clone());
            }
            let mut hexes = Vec::new();
            for (k, h) in a.defenders.iter().enumerate() {
                let at = format!("{field}.defenders[{k}]");
                let Ok(hex) = h.parse::<HexId>() else {
                    bad(side, Code::NotAHexId, at, format!("'{}' is not a hex id: {}; defenders are the hexes attacked (all units in a hex are attacked together, 12.15)", crate::base::error::echo(h), crate::systems::gboar::board::refusals::hex_id_advice(h)));
                    ok = false;
                    continue;
                };
                let units = combat_units_at(rules, state, hex);
                if units.is_empty() || units.iter().any(|u| player_of(rules, u) == player) {
                    bad(side, Code::NoEnemyInHex, at, format!("{hex} holds no enemy combat unit"));
                    ok = false;
                    continue;
                }
                if let Some((zone, rule)) = attackers.iter().find_map(|u| perimeter_closed(rules, state, u, hex)) {
                    bad(side, Code::PerimeterBeforeAssault, at, format!("{hex} is in the {zone}: on the Strategic Turn Track no Close Combat is directed against it; the assault begins on turn 16, once the Allies have declared it or play reaches the Tactical Turn Track ({rule})"));
                    ok = false;
                    continue;
                }
                if let Some(other) = attacked_hexes.insert(hex, field.clone()) {
                    bad(side, Code::HexAttackedTwice, at, format!("{hex} is already attacked in {other}: all the units of a hex are attacked in one Close Combat (12.15)"));
                    ok = false;
                    continue;
                }
                if d.diversion == Some(hex) {
                    bad(
                        side,
                        Code::DiversionAttacked,
                        at,
                        format!("{hex} receives the diversion: its units are not attacked (12.14)"),
                    );
                    ok = false;
                    continue;
                }
                hexes.push(hex);
            }
            if !ok || attackers.is_empty() || hexes.is_empty() {
                if ok {
                    bad(
                        side,
                        Code::AttackNeedsUnits,
                        field.clone(),
                        "an attack needs attackers and defending hexes (12.21)".into(),
                    );
                }
                continue;
            }
            // 12.23 step 2, 12.3: artillery SPs never count and artillery
            // may not lead, so an attack needs a unit that is neither.
            if attackers.iter().all(|u| rules.counter(u).is_none_or(|c| c.is_leader() || c.is_artillery())) {
                bad(
                    side,
                    Code::ArtilleryAlone,
                    format!("{field}.attackers"),
                    "an attack needs a combat unit that is not artillery: artillery SPs never count in Close Combat \
                     and artillery may not be the lead unit (12.3, 12.23 step 2)"
                        .into(),
                );
                continue;
            }
            let attacking_hexes: BTreeSet<HexId> = attackers.iter().filter_map(|u| hex_of(state, u)).collect();
            if attacking_hexes.len() > 1 && hexes.len() > 1 {
                bad(
                    side,
                    Code::TwoHexesAgainstTwo,
                    field.clone(),
                    "each Close Combat involves one attacking hex or one defending hex (12.15)".into(),
                );
                continue;
            }
            for id in &attackers {
                let Some(h) = hex_of(state, id) else { continue };
                if rules.counter(id).is_some_and(|c| c.is_leader()) {
                    continue;
                }
                if !hexes.iter().any(|d| crate::base::hex::are_adjacent(h, *d, layout)) {
                    bad(
                        side,
                        Code::NotAdjacentToAttack,
                        field.clone(),
                        format!("{id} in {h} is next to none of the defending hexes"),
                    );
                }
            }
            for d in &hexes {
                if !attacking_hexes.iter().any(|h| crate::base::hex::are_adjacent(*h, *d, layout)) {
                    bad(
                        side,
                        Code::NotAdjacentToAttack,
                        field.clone(),
                        format!("{d} is next to none of the attackers"),
                    );
                }
            }
            // Savannah 4.13 (module.yaml close_combat.cooperation).
            for r in &rules.close_combat.cooperation {
                let fighting: Vec<&String> =
                    attackers.iter().filter(|u| rules.counter(u).is_some_and(|c| !c.is_leader())).collect();
                for (n, x) in fighting.iter().enumerate() {
                    for y in fighting.iter().skip(n + 1) {
                        if let (Some(cx), Some(cy)) = (rules.counter(x), rules.counter(y)) {
                            if r.applies(cx, cy) {
                                bad(
                                    side,
                                    Code::NoCombinedAttack,
                                    field.clone(),
                                    format!(
                                        "{x} and {y} may not combine in one attack ({}, {})",
                                        r.id,
                                        r.rule.clone().unwrap_or_default()
                                    ),
                                );
                            }
                        }
                    }
                }
            }
            // Savannah 4.1 (module.yaml stacking.restrictions
            // `stacked_may_attack_voluntarily: false`): the units of such a
            // stack attack only where 12.12 requires them to.
            for id in &attackers {
                if rules.counter(id).is_none_or(|c| c.is_leader()) || must_attack(id) {
                    continue;
                }
                let Some(h) = hex_of(state, id) else { continue };
                if let Some((r, x, y)) =
                    crate::systems::gboar::board::stacking::restricted_pair_of(rules, state, h, id, |r| {
                        !r.stacked_may_attack_voluntarily
                    })
                {
                    bad(
                        side, Code::MixedStackMayNotAttack,
                        field.clone(),
                        format!(
                            "{id} in {h} is in a stack of {x} and {y}, which {} restricts: its units may not attack voluntarily until they are separated, only where they must attack (12.12) ({})",
                            r.id,
                            r.rule_name()
                        ),
                    );
                }
            }
            let defenders: Vec<String> = hexes
                .iter()
                .flat_map(|h| state.units.keys().filter(|u| hex_of(state, u) == Some(*h)).cloned().collect::<Vec<_>>())
                .collect();
            if let Some(l) = &a.lead {
                if let Err(e) = lead_unit(rules, state, &attackers, Some(l), &hexes) {
                    bad(side, e.code, format!("{field}.lead"), e.message);
                }
            }
            if let Some(t) = &a.tactics {
                if rules.charts.tactics.chits.iter().all(|c| &c.id != t) {
                    let known: Vec<&str> = rules.charts.tactics.chits.iter().map(|c| c.id.as_str()).collect();
                    bad(
                        side,
                        Code::UnknownTacticsChit,
                        format!("{field}.tactics"),
                        format!(
                            "'{}' is not a tactics chit; the chits are {}",
                            crate::base::error::echo(t),
                            known.join(", ")
                        ),
                    );
                }
            }
            for (k, id) in a.advance.iter().enumerate() {
                if !attackers.contains(id) {
                    bad(
                        side,
                        Code::AdvanceNotAttacker,
                        format!("{field}.advance[{k}]"),
                        format!(
                            "{} is not one of this attack's attackers (12.23 step 9)",
                            crate::base::error::echo(id)
                        ),
                    );
                }
            }
            d.attacks.push(Designated {
                side: side.clone(),
                field,
                attackers,
                defenders,
                defending_hexes: hexes,
                lead: a.lead,
                tactics: a.tactics,
                advance: a.advance,
                momentum: a.momentum.or_else(|| parsed.momentum.clone()).unwrap_or_default(),
                choices: a.choices,
                capture: a.capture,
                sequence: a.sequence,
            });
        }
    }
    // 12.23: the attacks in the order the Attacker chose; a place given
    // twice is refused (the attack named is the later one).
    let mut places: BTreeMap<u32, (String, String)> = BTreeMap::new();
    for a in &d.attacks {
        let Some(n) = a.sequence else { continue };
        match places.get(&n) {
            Some((side, field)) => bad(
                &a.side,
                Code::AttackSequenceRepeated,
                format!("{}.sequence", a.field),
                format!(
                    "{side}'s {field} is number {n} in the order of the attacks already: each attack's place is its own (12.23)"
                ),
            ),
            None => {
                places.insert(n, (a.side.clone(), a.field.clone()));
            }
        }
    }
    d.attacks.sort_by_key(|a| a.sequence.unwrap_or(u32::MAX));
    // 12.12, 12.13: who must attack and who must be attacked; checked for
    // the sides whose orders are here (all of them when resolving).
    let sides_here: BTreeSet<&str> = orders.keys().filter(|s| phasing.contains(s)).map(String::as_str).collect();
    // The player's units whose side's orders are not here (none when
    // resolving) and that could attack: 12.12 and 12.13 bind the player,
    // not each of its sides, so what such a unit's side could do in its
    // own orders (attack a hex, take a unit into a combined attack) is left
    // to the check of every side's orders together (`validate_step`).
    let elsewhere: Vec<&String> = ready
        .could_attack
        .iter()
        .filter(|(_, side)| !whole_phase && !sides_here.contains(side))
        .map(|(u, _)| *u)
        .collect();
    let elsewhere_next_to = |hex: HexId| {
        elsewhere.iter().any(|u| hex_of(state, u).is_some_and(|h| crate::base::hex::are_adjacent(h, hex, layout)))
    };
    for &(id, side) in &ready.mine {
        if !(whole_phase || sides_here.contains(&side)) {
            continue;
        }
        // A unit that may combine with a unit of a side whose orders are
        // not here, next to an enemy hex that unit is next to too, may be
        // in that side's attack (Savannah 4.13's exceptions).
        let combined_elsewhere = || {
            let Some(h) = hex_of(state, id) else { return false };
            enemies_next_to(rules, state, h, player).iter().filter_map(|e| hex_of(state, e)).any(|eh| {
                elsewhere.iter().any(|u| {
                    hex_of(state, u).is_some_and(|uh| crate::base::hex::are_adjacent(uh, eh, layout))
                        && cooperate(rules, id, u)
                })
            })
        };
        // Savannah 4.13, one of the exclusive rules' exceptions 12.12
        // names: a unit every enemy hex next to which is attacked by units
        // it may not combine with (or, while a side's orders are checked
        // alone, is next to such a unit of a side whose orders are not
        // here) has no attack left to join, since 12.15 attacks a hex once.
        // Savannah 1.6: the enemy hexes next to it that it may attack (not
        // the perimeter's on the Strategic Turn Track, [`perimeter_closed`]).
        let open_hexes = || -> BTreeSet<HexId> {
            let Some(h) = hex_of(state, id) else { return BTreeSet::new() };
            enemies_next_to(rules, state, h, player)
                .iter()
                .filter_map(|e| hex_of(state, e))
                .filter(|eh| perimeter_closed(rules, state, id, *eh).is_none())
                .collect()
        };
        let barred = || {
            let hexes = open_hexes();
            !hexes.is_empty()
                && hexes.iter().all(|eh| {
                    d.attacks
                        .iter()
                        .any(|a| a.defending_hexes.contains(eh) && a.attackers.iter().any(|u| !cooperate(rules, id, u)))
                        || elsewhere.iter().any(|u| {
                            hex_of(state, u).is_some_and(|uh| crate::base::hex::are_adjacent(uh, *eh, layout))
                                && !cooperate(rules, id, u)
                        })
                })
        };
        if must_attack(id) && !used.contains_key(id) && !open_hexes().is_empty() && !combined_elsewhere() && !barred() {
            let hex = hex_of(state, id).map(|h| h.to_string()).unwrap_or_default();
            let enemies = hex_of(state, id).map(|h| enemies_next_to(rules, state, h, player)).unwrap_or_default();
            bad(
                side,
                Code::MustAttack,
                "attacks".into(),
                format!("{id} in {hex} is next to {} and must attack (12.12)", enemies.join(", ")),
            );
        }
    }
    let mut must_be_attacked: BTreeMap<HexId, Vec<String>> = BTreeMap::new();
    for &(id, side) in &ready.mine {
        if !must_attack_here.contains(id.as_str()) {
            continue;
        }
        if !(whole_phase || sides_here.contains(&side)) {
            continue;
        }
        let Some(h) = hex_of(state, id) else { continue };
        for e in enemies_next_to(rules, state, h, player) {
            if let Some(eh) = hex_of(state, &e).filter(|eh| perimeter_closed(rules, state, id, *eh).is_none()) {
                // Once per unit, however many enemy units share the hex.
                let by = must_be_attacked.entry(eh).or_default();
                if !by.contains(id) {
                    by.push(id.clone());
                }
            }
        }
    }
    for (hex, by) in must_be_attacked {
        if attacked_hexes.contains_key(&hex) || d.diversion == Some(hex) || elsewhere_next_to(hex) {
            continue;
        }
        let side = by.first().map(|u| side_of(rules, u)).unwrap_or_default();
        bad(
            side,
            Code::MustBeAttacked,
            "attacks".into(),
            format!("{hex} is next to {} and must be attacked, or receive the diversion (12.13, 12.14)", by.join(", ")),
        );
    }
    if let Some(hex) = d.diversion {
        let pinned = combat_units_at(rules, state, hex).iter().any(|u| state.units.get(u).is_some_and(|s| s.pinned));
        if pinned {
            let side = orders.keys().find(|s| phasing.contains(s)).cloned().unwrap_or_default();
            bad(
                &side,
                Code::DiversionOnPinned,
                "diversion".into(),
                format!("{hex} holds pinned units, which may not receive a diversion (13.1 PIN, 12.14)"),
            );
        }
    }
    // Savannah Hist. Turn 16: the named leader must take part in an attack.
    if let Some(r) = turn_restriction(rules, state.turn, "must-attack-with-leader") {
        let leader = r.get("leader").and_then(|v| v.as_str()).unwrap_or_default().to_string();
        if let Some(hex) = hex_of(state, &leader) {
            let side = side_of(rules, &leader);
            let attacking = d.attacks.iter().any(|a| a.attackers.iter().any(|u| hex_of(state, u) == Some(hex)));
            // A unit there that may attack (12.3: not artillery alone; not
            // disrupted, shattered or held back by the turn's restrictions).
            let could = !enemies_next_to(rules, state, hex, player).is_empty()
                && combat_units_at(rules, state, hex).iter().any(|u| {
                    player_of(rules, u) == player
                        && rules.counter(u).is_some_and(|c| !c.is_artillery())
                        && attacker_refused(rules, state, player, u).is_none()
                });
            if (whole_phase || sides_here.contains(&side)) && could && !attacking {
                bad(side, Code::LeaderMustAttack, "attacks".into(), format!("{leader} must take part in a Close Combat attack this turn: the units in his hex {hex} must attack (the scenario's turn restrictions)"));
            }
        }
    }
    (d, problems)
}
