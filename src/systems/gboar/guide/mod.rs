//! What helps a player choose: the least orders and the guide of
//! `adjutant template` ([`template`]) and the Close Combat odds of
//! `adjutant odds` ([`odds`]). guide/ may import the phases and everything
//! below them; no phase imports the guide.

pub mod odds;
pub mod template;
