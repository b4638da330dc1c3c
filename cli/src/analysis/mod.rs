//! The analysis core shared by every rule: the lock model ([`locks`]), method summaries
//! ([`summary`]) and the dataflow engine ([`engine`]). No I/O here.

pub mod engine;
pub mod locks;
pub mod summary;
