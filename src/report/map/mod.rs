//! The map of a report: a system's picture of the board
//! ([`crate::base::hexmap::Picture`]: its counters and what a step did)
//! drawn as SVG ([`svg`]), rasterized as PNG ([`png`]).

#[cfg(feature = "png")]
pub mod png;
pub mod svg;
