//! What combat leaves behind: the results of the Fire and Close Combat
//! tables applied ([`results`]), retreats ([`retreat`]), step losses and
//! eliminations ([`losses`]) and army morale ([`morale`]). effects/ imports
//! `board/` and `data/` only, never a phase or the guide.

pub mod losses;
pub mod morale;
pub mod results;
pub mod retreat;
