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

/// Most classes a parallel pass over them hands to one thread at a time. Rayon splits a pass
/// into a few large pieces (about one per core, halved while unstolen), and a piece, once a
/// thread folds it, is not split again: the pass's last piece then runs alone while the other
/// cores wait (a tenth of a second and more on the JDK's 26,000 classes). Small pieces keep
/// every core busy to the end; each costs a steal, negligible at this size.
pub(crate) const PAR_CHUNK: usize = 64;
