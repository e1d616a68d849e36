//! Leaves: nothing here imports anything else of the crate.
//!
//! - [`dice`]: the verifiable dice protocol of `shared/design/DICE.md`.
//! - [`hex`]: hex geometry; [`hexmap`]: a hex map as a picture shows it.
//! - [`embedded`]: the game modules of `games/`, embedded in the binary;
//!   [`module_files`]: a module's files as bytes, embedded or read from a folder.
//! - [`yaml`]: the one facade over the YAML crates, with located errors.
//! - [`fsio`]: atomic writes, reads and the folder lock.
//! - [`address`]: mail addresses, read by lettre's parser.
//! - [`error`]: the error type.
//! - [`apart`]: work done ahead on a thread, joined when dropped.

pub mod address;
pub mod apart;
pub mod dice;
pub mod embedded;
pub mod error;
pub mod fsio;
pub mod hex;
pub mod hexmap;
pub mod module_files;
pub mod yaml;
