//! The bytecode model: our own class/method/instruction types ([`model`]), the parser
//! boundary ([`parse`], the only place that knows `cafebabe`), the control-flow graph
//! ([`cfg`]), synthetic accessors seen through ([`accessors`]), and stores that only skip a
//! redundant write ([`ensure`]).

pub mod accessors;
pub mod cfg;
pub mod decode;
pub mod ensure;
pub mod model;
pub mod parse;

pub use model::*;
#[cfg(test)]
mod parse_tests;

/// The name of the reference a `new` instruction makes for the class it instantiates (one per
/// class named, with an empty descriptor): the references of a class list what it creates.
pub const NEW_REF: &str = "<new>";
