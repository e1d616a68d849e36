//! Stacking as the module gives it (series 7.1, 7.2; module.yaml
//! `stacking`, with the exclusive rules' restrictions, Savannah 4.1), and
//! the units that may not combine in one close combat (module.yaml
//! `close_combat`, Savannah 4.13, in the shape of a stacking restriction).
//! Typed data only: the board's queries over it are in `board/stacking.rs`.

use serde::Deserialize;

use crate::systems::gboar::data::counters::Counter;

/// module.yaml `stacking`.
#[derive(Debug, Clone, Deserialize)]
pub struct Stacking {
    pub max_strength_points: i32,
    pub max_artillery_units: i32,
    #[serde(default)]
    pub leaders_count: bool,
    #[serde(default)]
    pub restrictions: Vec<Restriction>,
}

impl Stacking {
    /// 7.1, 7.2: whether a hex may hold `sps` strength points and `guns`
    /// artillery units (both at most the module's limits).
    pub fn holds(&self, sps: i32, guns: i32) -> bool {
        sps <= self.max_strength_points && guns <= self.max_artillery_units
    }

    /// Whether `sps` SPs and `guns` artillery units are over a limit that a
    /// unit (or group) weighing `s` SPs and `g` artillery units counts
    /// towards: the ones whose going (7.3's eliminations, 9.61's arrivals
    /// put off) would ease it, or whose coming (13.22's retreat) breaks it.
    pub fn over_in(&self, sps: i32, guns: i32, s: i32, g: i32) -> bool {
        (s > 0 && sps > self.max_strength_points) || (g > 0 && guns > self.max_artillery_units)
    }
}

/// Savannah 4.1: two kinds of unit that may not pass through or end a
/// Movement Phase stacked together.
#[derive(Debug, Clone, Deserialize)]
pub struct Restriction {
    pub id: String,
    #[serde(default)]
    pub rule: Option<String>,
    pub between: Between,
    #[serde(default = "yes")]
    pub may_pass_through: bool,
    #[serde(default = "yes")]
    pub may_end_movement_phase_stacked: bool,
    #[serde(default)]
    pub exempt_units: Vec<String>,
    #[serde(default)]
    pub exempt_types: Vec<String>,
    #[serde(default)]
    pub after_retreat: Option<AfterRetreat>,
    /// `captured`: when every open retreat stacks the pair, the units of
    /// the `a` selector are captured (read by [`crate::systems::gboar::effects::retreat`]).
    #[serde(default)]
    pub if_unavoidable: Option<String>,
    /// Savannah 4.1: whether the units of such a stack may attack in Close
    /// Combat when no rule requires them to (12.12).
    #[serde(default = "yes")]
    pub stacked_may_attack_voluntarily: bool,
    /// Savannah 4.1: what a stack does where an attack would be required.
    #[serde(default)]
    pub forced_attack: Option<ForcedAttack>,
}

/// module.yaml `stacking.restrictions[].forced_attack`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ForcedAttack {
    /// The stack that begins a Movement Phase where its units would have to
    /// attack must move away instead, if it can (Savannah 4.1).
    #[serde(default)]
    pub retreat_instead_if_possible: bool,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Clone, Deserialize)]
pub struct Between {
    pub a: Selector,
    pub b: Selector,
}

#[derive(Debug, Clone, Deserialize)]
pub struct AfterRetreat {
    /// The pair may end a retreat stacked (read by [`crate::systems::gboar::effects::retreat`]).
    #[serde(default)]
    pub allowed: bool,
    /// `always`: units stacked by a retreat must unstack in the next
    /// friendly Movement Phase whatever it costs.
    #[serde(default)]
    pub unstack_next_friendly_movement: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct Selector {
    #[serde(default)]
    pub armies: Vec<String>,
    #[serde(default)]
    pub units: Vec<String>,
    #[serde(default)]
    pub colour_groups: Vec<String>,
    #[serde(default)]
    pub tags: Vec<String>,
}

impl Selector {
    pub fn matches(&self, c: &Counter) -> bool {
        self.armies.contains(&c.army)
            || self.units.contains(&c.id)
            || c.colour_group.as_ref().is_some_and(|g| self.colour_groups.contains(g))
            || c.tags.iter().any(|t| self.tags.contains(t))
    }
}

impl Restriction {
    fn exempt(&self, c: &Counter) -> bool {
        self.exempt_units.contains(&c.id) || self.exempt_types.contains(&c.kind)
    }

    /// A pair of these counters that the restriction keeps apart.
    /// Whether the restriction binds these two counters (neither exempt).
    pub fn applies(&self, x: &Counter, y: &Counter) -> bool {
        self.pair(x, y)
    }

    /// Whether the restriction could bind `x` to some counter: `x` is not
    /// exempt and falls under one side of its pair. [`Restriction::applies`]
    /// is never true of an `x` it is false of.
    pub fn involves(&self, x: &Counter) -> bool {
        !self.exempt(x) && (self.between.a.matches(x) || self.between.b.matches(x))
    }

    fn pair(&self, x: &Counter, y: &Counter) -> bool {
        if self.exempt(x) || self.exempt(y) {
            return false;
        }
        (self.between.a.matches(x) && self.between.b.matches(y))
            || (self.between.b.matches(x) && self.between.a.matches(y))
    }

    pub fn rule_name(&self) -> &str {
        self.rule.as_deref().unwrap_or("module.yaml stacking")
    }
}

/// Module data for close combat (module.yaml `close_combat`).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct CloseCombatData {
    /// Units that may not combine in one attack (Savannah 4.13), in the
    /// shape of a stacking restriction.
    #[serde(default)]
    pub cooperation: Vec<Restriction>,
    /// Savannah 1.7, 4.19: lead units of these armies need not advance out
    /// of the zone.
    #[serde(default)]
    pub optional_advance: Vec<OptionalAdvance>,
    /// Savannah 4.13: units of one army that may cooperate with another's,
    /// and the army that then receives their side's army morale
    /// adjustments and VPs.
    #[serde(default)]
    pub cooperation_credit: Vec<CooperationCredit>,
}

/// module.yaml `close_combat.cooperation_credit[]` (Savannah 4.13): when a
/// side of a close combat holds one of `units` and a combat unit of the
/// army `credited_to`, every army morale adjustment and VP of that combat
/// that would go to the army of one of `units` goes to `credited_to`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CooperationCredit {
    pub units: Vec<String>,
    pub credited_to: String,
    pub rule: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptionalAdvance {
    pub armies: Vec<String>,
    pub when_leaving: String,
    pub rule: String,
}

/// module.yaml `intelligence` (series 7.4): whether each side may examine
/// every stack, friendly and enemy (`open`, the series rule and Savannah's),
/// or Exclusive Rules prohibit examining enemy stacks (`hidden-stacks`):
/// then a side's reports show of an enemy stack its hex and its number of
/// counters only, except the stacks 7.4 lets it examine (its fire targets'
/// hexes, enemy stacks adjacent to its units in its Close Combat Phase) and
/// those it examines by order, at -1 Army Morale each time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Intelligence {
    #[default]
    Open,
    HiddenStacks,
}

/// The Army Morale Adjustment Chart's entry an examination of an enemy
/// stack by order costs under hidden stacks (series 7.4).
pub const EXAMINED_ENEMY_STACK: &str = "examined-enemy-stack";
