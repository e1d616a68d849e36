//! What combat leaves behind: the results of the Fire and Close Combat
//! tables applied ([`results`]), retreats ([`retreat`]), step losses and
//! eliminations ([`losses`]) and army morale ([`morale`]); and the arrival
//! of reinforcements ([`arrivals`]), which both the Reinforcement Phase and,
//! in a turn without one, the Movement Phase apply (9.6, 9.61); and what
//! each side may see of the enemy's stacks under hidden stacks ([`intel`],
//! series 7.4), which every step applies; and the Random Events cards
//! ([`cards`], Savannah 4.3), drawn in their phase and played in any step;
//! and the siege results ([`siege`], Savannah 4.5, 4.6): breaches, repairs,
//! destroyed city hexes, interdicted works. effects/ imports
//! `board/` and `data/` only, never a phase or the guide.

pub mod arrivals;
pub mod card_effects;
pub mod cards;
pub mod intel;
pub mod losses;
pub mod morale;
pub mod results;
pub mod retreat;
pub mod siege;
