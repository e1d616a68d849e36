//! The GBoAR series rules with the Savannah 1779 exclusive rules: a pure
//! core. `phases::resolve(rules, state, step, orders, dice)` gives the next
//! state and the events that explain it; no clock, no file, no `HashMap`
//! order, integers only. The folders, from the bottom: `data/` (the module
//! as typed data), `board/` (the rules struct and the queries every rule
//! asks), `effects/` (what combat leaves behind), `phases/` (one file per
//! phase of the sequence of play), `guide/` (what helps a player choose).
//! Arrows point down only: guide -> phases -> effects -> board -> data. At
//! the top, the files that use them all: the system's side of the seam
//! ([`system`]), the orders files' headers ([`orders`]), the conformance
//! cases ([`case`]), the map overlay of events ([`overlay`]), and
//! self-play with its invariants ([`selfplay`], [`invariants`]).

pub mod board;
pub mod case;
pub mod data;
pub mod effects;
pub mod guide;
pub mod invariants;
pub mod orders;
pub mod overlay;
pub mod phases;
pub mod selfplay;
pub mod system;
