//! Why GBoAR refuses orders: every reason has a stable code, the rule that
//! decides it and a one-line meaning, listed once here (docs/refusals.md
//! documents the same list, and a test keeps the two equal). A refusal's
//! message stays precise (the file, the field, what would be legal); the
//! code is what a program, a conformance case or a player's tool matches.
//! Codes are part of the public interface: a code, once published, keeps
//! its meaning; a new reason gets a new code.

use crate::base::error::{Error, RefusalCode};

/// The one advice given wherever a hex id is written wrong (issue 16): a
/// bare number, or a text that is not four digits. `written` is what the
/// orders hold; the example is it padded to four digits when it is a
/// number, else a hex of the map's form.
pub fn hex_id_advice(written: &str) -> String {
    let example = match written.trim().parse::<u32>() {
        Ok(n) if n < 10_000 => format!("{n:04}"),
        _ => "1203".to_string(),
    };
    format!("write hex ids as quoted strings of four digits, e.g. \"{example}\"")
}

macro_rules! codes {
    ($($variant:ident = $code:literal, $rule:literal, $meaning:literal;)*) => {
        /// A reason GBoAR refuses orders (docs/refusals.md).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code {
            $($variant),*
        }

        impl Code {
            /// Every code, in the order of the list.
            pub const ALL: &'static [Code] = &[$(Code::$variant),*];

            /// The stable identifier, e.g. `over-stacked`.
            pub fn id(self) -> &'static str {
                match self {
                    $(Code::$variant => $code),*
                }
            }

            /// The rule that decides it, e.g. `7.1`, `Savannah 4.1`, or
            /// `docs/orders.md` for the form of an orders file.
            pub fn rule(self) -> &'static str {
                match self {
                    $(Code::$variant => $rule),*
                }
            }

            /// What it means, in one line.
            pub fn meaning(self) -> &'static str {
                match self {
                    $(Code::$variant => $meaning),*
                }
            }
        }
    };
}

codes! {
    // The form of an orders file.
    NotYaml = "not-yaml", "docs/orders.md", "the file is not YAML, or not a mapping of header and orders";
    BadHeader = "bad-header", "docs/orders.md", "game, turn, step or side is missing, empty or not a single value";
    WrongGame = "wrong-game", "docs/orders.md", "the orders name another game";
    GameOver = "game-over", "5", "the game is over: it awaits no orders";
    WrongTurn = "wrong-turn", "5", "the orders are for another turn than the game's next step";
    WrongStep = "wrong-step", "5", "the orders are for another step than the game's next";
    UnknownSide = "unknown-side", "docs/orders.md", "the side is not a side of the module";
    SideNotAwaited = "side-not-awaited", "5", "the step does not await orders from this side";
    OrdersShape = "orders-shape", "docs/orders.md", "a field is unknown, missing or of the wrong type for the phase's orders";
    EmptyField = "empty-field", "docs/orders.md", "a field is given no value (null)";
    NotAHexId = "not-a-hex-id", "docs/orders.md", "a hex is not written as a quoted four-digit hex id on the map";
    UnknownUnit = "unknown-unit", "docs/orders.md", "no unit of the game has this id";
    ListedTwice = "listed-twice", "docs/orders.md", "a unit is listed twice in one order";
    NoOrdersTaken = "no-orders-taken", "5", "the phase takes no orders";
    PhaseNotChecked = "phase-not-checked", "5", "this version cannot check or resolve orders for the phase";
    ModuleData = "module-data", "docs/module-format", "the module's data cannot decide the orders (run `adjutant check-game`)";
    // Movement (series 7, 8, 9, 13, 14 and the exclusive rules).
    SideNotPhasing = "side-not-phasing", "9.1", "the side does not move in this player turn";
    NotOwnUnit = "not-own-unit", "9.1", "a side moves only its own army's units";
    UnitOffMap = "unit-off-map", "9.6", "the unit is not on the map (a reinforcement not placed, captured, eliminated)";
    MovedTwice = "moved-twice", "9.1", "each unit moves at most once";
    ShatteredMayNotMove = "shattered-may-not-move", "13.4", "a shattered unit may not move";
    FixedArtillery = "fixed-artillery", "Savannah Hist. Special Rules", "the scenario's fixed artillery may not move until attacked in Close Combat";
    CavalryWithdrawnMayNotMove = "cavalry-withdrawn-may-not-move", "12.4", "a unit with a Cavalry Withdrawal marker may not move";
    PinnedNeedsLeavePin = "pinned-needs-leave-pin", "9.3", "a pinned unit moves only with `leave_pin: true`";
    LeavePinNotPinned = "leave-pin-not-pinned", "9.3", "`leave_pin` is given for a unit that is not pinned";
    PinnedEndsAdjacent = "pinned-ends-adjacent", "9.3", "a pinned unit that moves must end the phase next to no enemy unit";
    NextToPinnedEnemy = "next-to-pinned-enemy", "13.1", "no other friendly unit may move next to enemy units pinned by a PIN result";
    StackNotInOneHex = "stack-not-in-one-hex", "9.1", "the units of a stack do not begin in one hex";
    NoStrategicOnArrival = "no-strategic-on-arrival", "Savannah 4.7", "no strategic movement on a reinforcement's turn of arrival";
    NoStrategicInWeather = "no-strategic-in-weather", "Savannah 4.2", "the turn's weather forbids strategic movement";
    NoStrategicWhenDisrupted = "no-strategic-when-disrupted", "13.3", "a disrupted unit moves one hex, never by strategic movement";
    StrategicBeginsAdjacent = "strategic-begins-adjacent", "9.52", "strategic movement may not begin next to an enemy unit";
    StrategicOffRoad = "strategic-off-road", "9.52", "strategic movement crosses only hexsides with connected road or track";
    StrategicAdjacent = "strategic-adjacent", "9.52", "strategic movement never moves next to an enemy unit";
    StrategicAlongCoveredWay = "strategic-along-covered-way", "Savannah 4.9", "no strategic movement along the Covered Way";
    CoveredWayUnpriced = "covered-way-unpriced", "Savannah 4.9", "the terrain chart gives no cost for a move along the Covered Way";
    CoveredWayStackSplits = "covered-way-stack-splits", "Savannah 4.9", "units that begin stacked move along the Covered Way as one stack";
    HexOffMap = "hex-off-map", "9.2", "the hex is not on the map";
    ProhibitedTerrain = "prohibited-terrain", "9.2", "the hex is prohibited terrain";
    EnemyOccupiedHex = "enemy-occupied-hex", "9.2", "a unit may never enter an enemy-occupied hex";
    EnemyLeaderHex = "enemy-leader-hex", "14.32", "only Parade Order or disrupted combat units may enter a hex of a lone enemy leader";
    OverStacked = "over-stacked", "7.1", "the move would put a hex over the stacking limit (7.1, 7.2)";
    MayNotPassThrough = "may-not-pass-through", "Savannah 4.1", "the units may not pass through or stack with one another";
    ZocStopsMove = "zoc-stops-move", "8.31", "a move that enters an enemy ZOC stops there";
    PathNotAdjacent = "path-not-adjacent", "9.1", "a path lists adjacent hexes, every hex entered";
    OverAllowance = "over-allowance", "9.1", "the move costs more MP than the movement allowance";
    AlreadyThere = "already-there", "9.1", "the move's destination is the hex the units are in";
    NoLegalPath = "no-legal-path", "9.1", "no legal path leads to the destination within the allowance";
    DisruptedOneHex = "disrupted-one-hex", "13.3", "a disrupted unit moves at most one hex";
    DisruptedNextToEnemy = "disrupted-next-to-enemy", "13.3", "a disrupted unit may not move next to the enemy, and one that begins there must move away";
    ArrivalMaxHexes = "arrival-max-hexes", "Savannah Reinforcement Schedule", "the reinforcement moves more hexes than its turn of arrival allows";
    GunMustReturn = "gun-must-return", "Savannah Hist. Special Rules", "a gun sent back by Defensive Artillery Fire moves to its at-start hex as quickly as it can";
    ZoneBanned = "zone-banned", "Savannah 4.8", "the unit may never enter the zone";
    PerimeterBeforeAssault = "perimeter-before-assault", "Savannah 1.7", "on the Strategic Turn Track the Allies may not move into or next to the perimeter, nor make Close Combat against it (1.6)";
    SortieNeedsLeader = "sortie-needs-leader", "Savannah 4.10", "a unit leaves the fort only stacked with a leader";
    SortieLeaderReturnsLast = "sortie-leader-returns-last", "Savannah 4.10", "a leader may not return inside before the units that sortied with him";
    AssaultDeclaration = "assault-declaration", "Savannah 1.6", "the assault may not be declared by this side, on this turn, or again";
    NotArriving = "not-arriving", "9.61", "the unit is not a reinforcement arriving this turn";
    DelayForbidden = "delay-forbidden", "9.61", "the scenario forbids delaying reinforcements";
    WrongEntryHex = "wrong-entry-hex", "Savannah 4.7", "the reinforcement may not enter at this hex";
    PutOffNotArrival = "put-off-not-arrival", "Savannah 4.7", "only units of the side placed this turn, left in their entry hex and counting for stacking may be put off";
    OverstackLossChoice = "overstack-loss-choice", "7.3", "an `overstack_losses` choice is not a unit that can lose a step for 7.3";
    RestrictedStackEnds = "restricted-stack-ends", "Savannah 4.1", "units that may not end a Movement Phase stacked do";
    RestrictedStackMustUnstack = "restricted-stack-must-unstack", "Savannah 4.1", "units stacked by a retreat must unstack this Movement Phase";
    RestrictedStackMustRetreat = "restricted-stack-must-retreat", "Savannah 4.1", "a restricted stack next to the enemy must retreat instead of attacking";
    LeaderMayNotCommand = "leader-may-not-command", "Savannah 4.18", "a leader ends a move stacked with units he may not command";
    // Fire (series 10, 11; Savannah 4.12).
    NotEnemyTarget = "not-enemy-target", "10.1", "the target is not an enemy combat unit on the map";
    TargetedTwice = "targeted-twice", "11.2", "no unit is the target of more than one fire (10.2, 11.2) per phase";
    FiresTwice = "fires-twice", "11.1", "no unit fires more than once per phase (10.1, 11.1)";
    NotOwnFirer = "not-own-firer", "11.1", "the unit that fires is not one of the side's guns, mortars or rifle units";
    GunOfPhasingPlayer = "gun-of-phasing-player", "11.1", "Defensive Artillery Fire is the non-phasing player's";
    MortarOwnTurn = "mortar-own-turn", "Savannah 3 IX", "a mortar fires in its own player's turn";
    MortarMoved = "mortar-moved", "Savannah 4.12", "on the tactical turns a mortar moves or fires, not both";
    MayNotFire = "may-not-fire", "13.3", "only Parade Order units fire (13.3, 13.4; a disabled mortar, Savannah 4.12)";
    OutOfRange = "out-of-range", "11.2", "the target is beyond the fire's range (11.2, Savannah 4.12, the weather)";
    NoLineOfSight = "no-line-of-sight", "11.4", "the gun cannot see its target";
    RifleFireNotAdjacent = "rifle-fire-not-adjacent", "10.2", "rifle fire is at an adjacent target";
    MortarTargetChoice = "mortar-target-choice", "Savannah 4.12", "`mortar_targets` names a hex and one of the side's own units in it";
    // Close Combat (series 12; Savannah 4.1, 4.9, 4.13).
    AttackerIsEnemy = "attacker-is-enemy", "12.11", "the phasing player attacks with its own units";
    AttackerNotParadeOrder = "attacker-not-parade-order", "13.3", "disrupted and shattered units may not attack (13.3, 13.4)";
    AttackerRestricted = "attacker-restricted", "Savannah Hist. Special Rules", "the scenario's turn restrictions forbid the unit to attack";
    DefenceOnlyAlone = "defence-only-alone", "Savannah 4.8", "a unit whose combat value is in parenthesis (the Creeks) does not attack alone";
    AttackerWithdrawn = "attacker-withdrawn", "12.4", "a unit with a Cavalry Withdrawal marker may not attack";
    AttacksOnce = "attacks-once", "12.15", "each unit is in one Close Combat per player turn";
    NoEnemyInHex = "no-enemy-in-hex", "12.21", "the defending hex holds no enemy combat unit";
    HexAttackedTwice = "hex-attacked-twice", "12.15", "all the units of a hex are attacked in one Close Combat";
    AttackNeedsUnits = "attack-needs-units", "12.21", "an attack needs attackers and defending hexes";
    ArtilleryAlone = "artillery-alone", "12.3", "an attack needs a combat unit that is not artillery";
    TwoHexesAgainstTwo = "two-hexes-against-two", "12.15", "each Close Combat involves one attacking hex or one defending hex";
    NotAdjacentToAttack = "not-adjacent-to-attack", "12.21", "an attacker is next to no defending hex, or a defending hex next to no attacker";
    NoCombinedAttack = "no-combined-attack", "Savannah 4.13", "the units may not combine in one attack";
    MixedStackMayNotAttack = "mixed-stack-may-not-attack", "Savannah 4.1", "a restricted stack's units attack only where they must (12.12)";
    NoLeadUnit = "no-lead-unit", "12.23", "the attack has no unit that may lead (step 2: never artillery)";
    LeadUnitMayNotLead = "lead-unit-may-not-lead", "12.23", "the lead unit named may not lead (step 2: a Parade Order unit when there is one, never artillery, and not one that would have to advance into a zone it may never enter while another may lead)";
    LeadUnitNotInHex = "lead-unit-not-in-hex", "12.23", "a Defender's lead unit is not one of its combat units in the hex";
    LeadKeyNotEnemy = "lead-key-not-enemy", "12.23", "a key of `lead_after_attacker` is not an enemy combat unit";
    UnknownTacticsChit = "unknown-tactics-chit", "12.23", "the tactics chit named is not one of the chart's";
    AdvanceNotAttacker = "advance-not-attacker", "12.23", "a unit named to advance is not one of the attack's attackers (step 9)";
    MustAttack = "must-attack", "12.12", "a unit next to the enemy must attack";
    MustBeAttacked = "must-be-attacked", "12.13", "an enemy hex next to units that must attack must be attacked or receive the diversion";
    OneDiversion = "one-diversion", "12.14", "only one stack receives a diversion in a phase";
    AttackSequenceRepeated = "attack-sequence-repeated", "12.23", "two of the player's attacks give the same place in the order of resolution";
    DiversionAttacked = "diversion-attacked", "12.14", "the hex that receives the diversion is not attacked";
    DiversionOnPinned = "diversion-on-pinned", "13.1", "pinned units may not receive a diversion (13.1 PIN, 12.14)";
    LostMayNotWithdraw = "lost-may-not-withdraw", "Savannah 4.9", "mounted units that are Lost may not select Cavalry Withdrawal";
    LeaderMustAttack = "leader-must-attack", "Savannah Hist. Special Rules", "the named leader's hex must attack this turn (the scenario's turn restrictions)";
    // The Initiative Phase (12.62; Savannah 1.4).
    MomentumOverspent = "momentum-overspent", "12.62", "a player's sides spend more momentum chits than it holds";
    FirstDeciderWaits = "first-decider-waits", "12.62", "the player who decides first cannot make its spending wait for the other's";
    // Random Events cards (Savannah 4.3, 1.4).
    CardsNotInScenario = "cards-not-in-scenario", "Savannah 4.3", "the scenario plays no Random Events cards";
    CardNotHeld = "card-not-held", "Savannah 4.3", "the side's player does not hold the card (or plays it twice)";
    CardFlagForbids = "card-flag-forbids", "Savannah 4.3", "the card's flags do not let this side's player play it (it may hold it)";
    CardTimingForbids = "card-timing-forbids", "Savannah 4.3", "the card's game turn mark (or its turns) does not allow its play now";
    CardEffectNotBuilt = "card-effect-not-built", "Savannah 4.3", "this version cannot play an effect of the card yet";
    CardUnits = "card-units", "Savannah 4.3", "the units a card's play names are missing, too many, or not ones its effect may take";
    CardCancelsNothing = "card-cancels-nothing", "Savannah 4.3", "a trumping card is played without `cancels:`, or another card with it";
    NoMomentumChit = "no-momentum-chit", "Savannah 1.4", "the player holds no momentum chit to spend for an extra Random Events card";
    ExtraCardOnce = "extra-card-once", "Savannah 1.4, 4.3", "a player spends at most 1 momentum chit per Random Events Phase";
    // Hidden enemy stacks (series 7.4; module.yaml `intelligence`).
    StacksOpen = "stacks-open", "7.4", "every stack may be examined already: the module's stacks are open";
    TargetNotExamined = "target-not-examined", "7.4", "under hidden stacks a fire names the hex of an enemy stack the side has not examined";
    NoTargetInHex = "no-target-in-hex", "7.4", "a fire at a hex finds there no enemy combat unit that no other fire of the orders picked";
    // The set-up step (Savannah Historical Scenario, Set Up).
    DeployNotAllowed = "deploy-not-allowed", "Savannah Hist. Set Up", "the unit is not one the side places at the set-up";
    DeployOutsideZone = "deploy-outside-zone", "Savannah Hist. Set Up", "the hex is not within the zone the unit may deploy in";
    DeployOnEnemy = "deploy-on-enemy", "Savannah Hist. Set Up", "the hex holds an enemy unit";
    DeployRestrictedStack = "deploy-restricted-stack", "Savannah 4.1", "the unit would deploy stacked with units it may not stack with";
    // Choices for results (series 7.3, 13).
    ResultChoice = "result-choice", "13.1", "a choice for a combat result names a unit or a retreat the result does not allow";
    // French siege works and Siege & Bombardment (Savannah 4.4, 4.5, 4.6).
    SiegeMarkerCount = "siege-marker-count", "Savannah 4.4", "more construction markers than the step (and the counter mix) allows, or none may be placed this turn";
    SiegeMarkerDistance = "siege-marker-distance", "Savannah 4.4", "the hex is not at the distance from the Savannah Defensive Perimeter the step requires";
    SiegeMarkerGround = "siege-marker-ground", "Savannah 4.4", "no siege works in rice fields, swamp or the Jewish Cemetery";
    SiegeMarkerEnemyAdjacent = "siege-marker-enemy-adjacent", "Savannah 4.4", "the hex is next to an enemy combat unit";
    SiegeMarkerWeather = "siege-marker-weather", "Savannah 4.4", "the turn's weather prevents the construction of siege works";
    SiegeMarkerExtends = "siege-marker-extends", "Savannah 4.4", "the first marker of the step does not extend from a completed siege work hex";
    SiegeMarkerHex = "siege-marker-hex", "Savannah 4.4", "the hex is off the map, holds siege works already, or is named twice";
    SiegeHexsides = "siege-hexsides", "Savannah 4.4", "the hexsides to entrench are not sides of the hex, repeat, or no counter of the mix shows that many";
    SiegePick = "siege-pick", "Savannah 4.6", "a Siege & Bombardment preference names no hexside, marker or city hex its result may fall on";
}

impl Code {
    /// The code and rule as the shell carries them.
    pub fn carried(self) -> RefusalCode {
        RefusalCode { code: self.id().to_string(), rule: self.rule().to_string() }
    }
}

/// A refusal of orders: why (its code) and the message, which says where
/// and what would be legal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub code: Code,
    pub message: String,
}

impl Refusal {
    pub fn new(code: Code, message: impl Into<String>) -> Refusal {
        Refusal { code, message: message.into() }
    }
}

/// A step refused for one reason: the message ends in its code and rule.
pub fn refuse(code: Code, message: impl Into<String>) -> Error {
    Error::coded(format!("{} [{}, {}]", message.into(), code.id(), code.rule()), vec![code.carried()])
}

/// A field's name as a message's prefix (`moves[0]: `), or nothing.
fn at(field: &str) -> String {
    if field.is_empty() {
        String::new()
    } else {
        format!("{field}: ")
    }
}

/// One problem line of a refusal at resolve, ending in its code and rule:
/// `  red: moves[0].path[1]: 0606 is in the ZOC ... [zoc-stops-move, 8.31]`.
pub fn line(side: &str, field: &str, message: &str, code: Code) -> String {
    format!("  {side}: {}{message} [{}, {}]", at(field), code.id(), code.rule())
}

/// A step refused at resolve for the first problem of a side's orders:
/// "`side`'s orders, `field`: `message` [code, rule]".
pub fn refuse_orders(side: &str, field: &str, message: &str, code: Code) -> Error {
    refuse(code, format!("{side}'s orders, {}{message}", at(field)))
}

/// A step refused for every problem its orders have, each line ending in its
/// code and rule: "`what` orders refused (2 problems), `outcome`:" and the
/// lines of [`line`]. `problems` are `(side, field, message, code)`.
pub fn refuse_all<'a>(
    what: &str,
    outcome: &str,
    problems: impl IntoIterator<Item = (&'a str, &'a str, &'a str, Code)>,
) -> Error {
    let (lines, codes): (Vec<String>, Vec<RefusalCode>) = problems
        .into_iter()
        .map(|(side, field, message, code)| (line(side, field, message, code), code.carried()))
        .unzip();
    Error::coded(
        format!(
            "{what} orders refused ({} problem{}), {outcome}:\n{}",
            lines.len(),
            if lines.len() == 1 { "" } else { "s" },
            lines.join("\n")
        ),
        codes,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_two_entries_share_a_code_and_codes_are_kebab_case() {
        let mut seen = std::collections::BTreeSet::new();
        for c in Code::ALL {
            assert!(seen.insert(c.id()), "two entries share the code {}", c.id());
            assert!(
                !c.id().is_empty()
                    && c.id().chars().all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '-'),
                "{} is not kebab-case",
                c.id()
            );
            assert!(!c.rule().is_empty() && !c.meaning().is_empty(), "{} has no rule or meaning", c.id());
        }
    }

    /// docs/refusals.md lists every code with its rule and meaning, as
    /// here, and no code that is not here.
    #[test]
    fn every_code_is_documented_as_listed() {
        let doc = include_str!("../../../../docs/refusals.md");
        let rows: Vec<(String, String, String)> = doc
            .lines()
            .filter(|l| l.starts_with("| `"))
            .map(|l| {
                let cells: Vec<String> = l.trim_matches('|').split(" | ").map(|c| c.trim().to_string()).collect();
                (
                    cells.first().cloned().unwrap_or_default().trim_matches('`').to_string(),
                    cells.get(1).cloned().unwrap_or_default(),
                    cells.get(2).cloned().unwrap_or_default(),
                )
            })
            .collect();
        for c in Code::ALL {
            let row = rows.iter().find(|(code, _, _)| code == c.id());
            let Some((_, rule, meaning)) = row else { panic!("docs/refusals.md does not list {}", c.id()) };
            assert_eq!(rule, c.rule(), "docs/refusals.md: the rule of {}", c.id());
            assert_eq!(meaning, &c.meaning().replace('|', "\\|"), "docs/refusals.md: the meaning of {}", c.id());
        }
        for (code, _, _) in &rows {
            assert!(Code::ALL.iter().any(|c| c.id() == code), "docs/refusals.md lists {code}, which is no code");
        }
        assert_eq!(rows.len(), Code::ALL.len(), "docs/refusals.md lists a code twice");
    }
}
