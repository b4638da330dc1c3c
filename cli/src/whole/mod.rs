//! The whole-program layer shared by the whole-program rules: program-wide field identities
//! ([`fields`]), per-method facts in a calling context ([`facts`]), the thread model
//! ([`threads`]) and where the main thread runs alone ([`joins`]), the lock and method views
//! ([`views`]) and the causal dependency graph
//! ([`causal`]). No I/O here.

pub mod causal;
pub mod facts;
pub mod fields;
pub mod joins;
pub mod threads;
pub mod views;
