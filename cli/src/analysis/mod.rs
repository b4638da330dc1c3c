//! The analysis core shared by every rule: the lock model ([`locks`]: what is held; [`guards`]:
//! which locks every writer of a variable holds), what is shared ([`sharing`]), what an update
//! reports ([`outcome`]), method summaries ([`summary`]) and the dataflow engine ([`engine`]).
//! No I/O here.

pub mod engine;
pub mod guards;
pub mod locks;
pub mod outcome;
pub mod sharing;
pub mod summary;
