//! adjutant: a referee for board wargames played by email.
//!
//! This library knows nothing of the command line: `src/cli/` is the binary,
//! a thin layer that parses arguments, calls in here and renders results.
//!
//! - [`dice`]: the verifiable dice protocol of `shared/design/DICE.md`.
//! - [`folder`], [`journal`], [`fsio`]: the game folder, its append-only
//!   journal, atomic writes and the folder lock; [`recovery`]: what a
//!   killed command left, finished by the next.
//! - [`roll_log`]: ad hoc verifiable rolls; [`verify`]: checking a folder.
//! - [`game`], [`modules`]: new games of the embedded game modules.
//! - [`report`]: each step's report, per side, as text, Markdown, HTML or JSON.
//! - [`inbox`]: orders sent ahead; [`standing`]: standing orders.
//! - [`mail`]: sending mail; [`intake`]: orders read from a received email;
//!   [`address`]: mail addresses, read by lettre's parser.
//! - [`input`]: the limits every orders file passes before it is parsed.
//! - [`selfplay`]: whole games with random legal orders, invariants checked.

pub mod address;
pub mod dice;
pub mod engine;
pub mod error;
pub mod folder;
pub mod fsio;
pub mod game;
pub mod hex;
pub mod inbox;
pub mod input;
pub mod intake;
pub mod journal;
pub mod mail;
pub mod map_overlay;
#[cfg(feature = "png")]
pub mod map_png;
pub mod map_svg;
pub mod module;
pub mod modules;
pub mod play;
pub mod post;
pub mod recovery;
pub mod report;
pub mod roll_log;
pub mod selfplay;
pub mod standing;
pub mod verify;
pub mod yaml;

pub use error::{Error, Result};
