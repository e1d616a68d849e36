//! The Reinforcement Phase (series 9.6; Savannah 4.7): the turn's
//! arrivals, decided by [`arrivals`]. A turn without a Reinforcement Phase
//! has them decided as its Movement Phase begins (9.61), which is why the
//! arrivals themselves are an effect both phases apply, not this phase's own.

use crate::base::error::Result;
use crate::system::Dice;
use crate::systems::gboar::board::state::{Resolution, State};
use crate::systems::gboar::board::Rules;
use crate::systems::gboar::effects::arrivals;

/// The phasing `player`'s Reinforcement Phase.
pub fn resolve(rules: &Rules, state: &State, player: &str, dice: &mut dyn Dice) -> Result<Resolution> {
    arrivals::resolve(rules, state, player, dice)
}
