//! Program-wide field identities (class, field) for the views, and which fields can take part
//! in interference at all.
//!
//! Left out, as in von Praun and Gross: `final` and `volatile` fields, fields only assigned in
//! constructors and class initializers (shared read-only), and fields of I/O classes.

use rayon::prelude::*;

use super::facts::FieldId;
use crate::bytecode::{acc, Op};
use crate::program::Program;

/// Classes whose fields are left out of the views (I/O is shared on purpose and its sequences
/// are not atomic), by internal-name prefix.
pub const IO_PREFIXES: &[&str] = &[
    "java/io/",
    "java/nio/",
    "java/net/",
    "javax/net/",
    "sun/nio/",
    "java/util/logging/",
];

pub struct FieldTable {
    /// First field id of each class (prefix sums over declared fields).
    base: Vec<u32>,
    /// Whether each field takes part in the views.
    tracked: Vec<bool>,
    /// `(class index, field index)` of each id.
    owner: Vec<(u32, u32)>,
}

impl FieldTable {
    pub fn new(p: &Program) -> FieldTable {
        let mut base = Vec::with_capacity(p.classes.len());
        let mut owner = Vec::new();
        for (ci, c) in p.classes.iter().enumerate() {
            base.push(owner.len() as u32);
            owner.extend((0..c.fields.len()).map(|fi| (ci as u32, fi as u32)));
        }
        // Fields written outside constructors and class initializers, anywhere in the program.
        let written: Vec<Vec<(u32, u32)>> = p
            .classes
            .par_iter()
            .map(|c| {
                let mut out = Vec::new();
                for m in &c.methods {
                    let Some(code) = &m.code else { continue };
                    let init = matches!(&*m.name, "<init>" | "<clinit>");
                    for insn in &code.insns {
                        if let Op::PutField(r) | Op::PutStatic(r) = insn.op {
                            let fr = c.member(r);
                            if init && *fr.class == *c.name {
                                continue;
                            }
                            if let Some(o) = p.field_owner(&fr.class, &fr.name) {
                                out.push(o);
                            }
                        }
                    }
                }
                out
            })
            .collect();
        let mut tracked = vec![false; owner.len()];
        for (ci, fi) in written.into_iter().flatten() {
            tracked[(base[ci as usize] + fi) as usize] = true;
        }
        for (id, &(ci, fi)) in owner.iter().enumerate() {
            let c = p.class(ci);
            let f = &c.fields[fi as usize];
            if f.access & (acc::FINAL | acc::VOLATILE) != 0
                || IO_PREFIXES.iter().any(|pre| c.name.starts_with(pre))
            {
                tracked[id] = false;
            }
        }
        FieldTable {
            base,
            tracked,
            owner,
        }
    }

    /// The id of a field reference, when the field takes part in the views.
    pub fn id_of(&self, p: &Program, class: &str, name: &str) -> Option<FieldId> {
        let (ci, fi) = p.field_owner(class, name)?;
        let id = self.base[ci as usize] + fi;
        self.tracked[id as usize].then_some(id)
    }

    /// The id of a field reference whether or not it takes part in the views (the
    /// whole-program causal graph also tracks the elements of array fields and the state of
    /// thread-safe objects held in `final` fields).
    pub fn raw_id(&self, p: &Program, class: &str, name: &str) -> Option<FieldId> {
        let (ci, fi) = p.field_owner(class, name)?;
        Some(self.base[ci as usize] + fi)
    }

    /// Whether a field id takes part in the views.
    pub fn is_tracked(&self, id: FieldId) -> bool {
        self.tracked.get(id as usize).copied().unwrap_or(false)
    }

    /// Number of field ids.
    pub fn len(&self) -> usize {
        self.owner.len()
    }

    pub fn is_empty(&self) -> bool {
        self.owner.is_empty()
    }

    /// `(class index, field index)` of a field id.
    pub fn owner(&self, id: FieldId) -> (u32, u32) {
        self.owner[id as usize]
    }

    /// The field's declaring class and name.
    pub fn describe<'p>(&self, p: &'p Program, id: FieldId) -> (&'p str, &'p str) {
        let (ci, fi) = self.owner(id);
        let c = p.class(ci);
        (&c.name, &c.fields[fi as usize].name)
    }
}
