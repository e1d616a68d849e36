//! The rules engine: a pure core. `resolve(state, orders, dice)` will live
//! here, one module per part of the sequence of play; this first part knows
//! the sequence itself.

pub mod sequence;
pub mod state;
