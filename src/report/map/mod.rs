//! The map of a report: drawn as SVG ([`svg`]), rasterized as PNG
//! ([`png`]), and what a step's events add on it ([`overlay`]).

pub mod overlay;
#[cfg(feature = "png")]
pub mod png;
pub mod svg;
