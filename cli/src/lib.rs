//! stalecheck: a static checker for atomicity bugs (stale values) in JVM bytecode.
//!
//! Data flows `load` → `bytecode::parse` → `program` (index, summaries) → `rules` (each a
//! dataflow [`analysis::engine::Analysis`] over the shared lock model) → `explain` →
//! `report` (text, JSON, SARIF). See ARCHITECTURE.md.

pub mod analysis;
pub mod bytecode;
pub mod cache;
pub mod config;
pub mod confirm;
pub mod diag;
pub mod explain;
pub mod fxhash;
pub mod load;
pub mod pipeline;
pub mod program;
pub mod reach;
pub mod report;
pub mod rules;
pub mod sections;
pub mod whole;
