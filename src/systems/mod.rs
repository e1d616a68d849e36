//! The game systems: what the rules say. A system never touches a file, a
//! clock or a mailbox (shared/design/ARCHITECTURE.md).

pub mod awi;
pub mod gboar;
