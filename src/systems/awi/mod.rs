//! The AWI Southern Campaign (rules/awi-southern-campaign-1776-plm.txt): a
//! campaign on the 1776 map whose battles are fought with miniatures. Its
//! module is games/awi-southern/; docs/awi-southern.md says what this
//! version plays and what it refuses.
//!
//! Arrows point down: `selfplay` → `system` and `case` → `rules` → `board` → `data`.

pub mod board;
pub mod case;
pub mod data;
pub mod rules;
pub mod selfplay;
pub mod system;
