//! adjutant: a referee for board wargames played by email.
//!
//! This library knows nothing of the command line: `src/cli/` is the binary,
//! a thin layer that parses arguments, calls in here and renders results.
//! The layers, from the top (shared/design/ARCHITECTURE.md; arrows point
//! down only, and `tests/architecture.rs` fails when one points up):
//!
//! - [`fuzzing`] (hidden): the fuzz targets' bodies (`fuzz/README.md`),
//!   above the shell and mail; they reach a system through [`system`].
//! - [`mail`]: mail out, orders read from a received email ([`mail::intake`]),
//!   dispatches posted to players ([`mail::post`]).
//! - [`report`]: each step's report, per side, as text, Markdown, HTML or
//!   JSON; [`report::map`]: the map a system pictures, as SVG and PNG.
//! - [`game`]: the shell: new games of the embedded modules, the game
//!   folder and its append-only journal, orders sent ahead and standing
//!   orders, resolve, verify, recovery after a killed command, ad hoc rolls.
//! - [`system`]: the seam: the traits every game system implements, the
//!   types that cross it, and the registry keyed by a module's `system:`.
//! - [`systems`]: the game systems' rules ([`systems::gboar`]: the GBoAR
//!   series and Savannah 1779).
//! - [`base`]: leaves: the verifiable dice, hex geometry, the YAML facade,
//!   atomic files, mail addresses, the error type.

pub mod base;
#[doc(hidden)]
pub mod fuzzing;
pub mod game;
pub mod mail;
pub mod report;
pub mod system;
pub mod systems;

pub use base::error::{Error, Result};
