//! The whole-program layer shared by the whole-program rules: program-wide field identities
//! ([`fields`]), per-method facts in a calling context ([`facts`]), the thread model
//! ([`threads`]) and the lock and method views ([`views`]). No I/O here.

pub mod facts;
pub mod fields;
pub mod threads;
pub mod views;
