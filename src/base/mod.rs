//! Leaves: nothing here imports anything else of the crate.
//!
//! - [`dice`]: the verifiable dice protocol of `shared/design/DICE.md`.
//! - [`hex`]: hex geometry.
//! - [`yaml`]: the one facade over the YAML crates, with located errors.
//! - [`fsio`]: atomic writes, reads and the folder lock.
//! - [`address`]: mail addresses, read by lettre's parser.
//! - [`error`]: the error type.

pub mod address;
pub mod dice;
pub mod error;
pub mod fsio;
pub mod hex;
pub mod yaml;
