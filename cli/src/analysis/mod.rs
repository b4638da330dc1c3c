//! The analysis core shared by every rule: the lock model ([`locks`]: what is held), what is
//! shared ([`sharing`]), method summaries ([`summary`]) and the dataflow engine ([`engine`]).
//! No I/O here.

pub mod engine;
pub mod locks;
pub mod sharing;
pub mod summary;
