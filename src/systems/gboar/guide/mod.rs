//! What helps a player choose: the least orders ([`least`]) and the guide
//! of `adjutant template` ([`template`]) and the Close Combat odds of
//! `adjutant odds` ([`odds`], and the report the command prints:
//! [`odds_report`]). guide/ may import the phases and everything
//! below them; no phase imports the guide.

mod campaign;
pub mod least;
pub mod odds;
pub mod odds_report;
pub mod positions;
pub mod template;
