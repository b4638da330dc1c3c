//! Program-wide field identities (class, field) for the views, and which fields can take part
//! in interference at all.
//!
//! Left out, as in von Praun and Gross: `final` and `volatile` fields, fields only assigned in
//! constructors and class initializers (shared read-only: the stable fields of
//! [`crate::analysis::sharing`]), fields of I/O classes, and fields of objects one thread uses
//! at a time by contract (an iterator's cursor).

use super::facts::FieldId;
use crate::bytecode::acc;
use crate::program::Program;

pub use crate::analysis::sharing::IO_PREFIXES;

pub struct FieldTable {
    /// First field id of each class (prefix sums over declared fields).
    base: Vec<u32>,
    /// Whether each field takes part in the views.
    tracked: Vec<bool>,
    /// `(class index, field index)` of each id.
    owner: Vec<(u32, u32)>,
    /// Whether each field holds a legacy synchronized collection (`legacy` in the platform
    /// model: declared as one, or assigned a new one).
    legacy: Vec<bool>,
}

impl FieldTable {
    pub fn new(p: &Program) -> FieldTable {
        // Fields the program writes after construction (the shared model of what is shared),
        // less final and volatile ones and those of I/O classes.
        let facts = &p.fields;
        let tracked = facts
            .owner
            .iter()
            .enumerate()
            .map(|(id, &(ci, fi))| {
                let c = p.class(ci);
                facts.written[id]
                    && !facts.confined[id]
                    && c.fields[fi as usize].access & (acc::FINAL | acc::VOLATILE) == 0
                    && !IO_PREFIXES.iter().any(|pre| c.name.starts_with(pre))
            })
            .collect();
        let mut legacy: Vec<bool> = facts
            .owner
            .iter()
            .map(|&(ci, fi)| {
                let desc = &p.class(ci).fields[fi as usize].desc;
                (desc.strip_prefix('L').and_then(|d| d.strip_suffix(';')))
                    .is_some_and(|t| p.thread_safe.is_legacy(t))
            })
            .collect();
        for (class, name) in p.legacy_fields() {
            if let Some((ci, fi)) = p.field_owner(class, name) {
                legacy[(facts.base[ci as usize] + fi) as usize] = true;
            }
        }
        FieldTable {
            base: facts.base.clone(),
            tracked,
            owner: facts.owner.clone(),
            legacy,
        }
    }

    /// The field ids a class declares: `[start, end)`.
    pub fn class_fields(&self, class: u32) -> (FieldId, FieldId) {
        let c = class as usize;
        let start = self.base.get(c).copied().unwrap_or(0);
        let end = self
            .base
            .get(c + 1)
            .copied()
            .unwrap_or(self.owner.len() as u32);
        (start, end)
    }

    /// Whether a field holds a legacy synchronized collection (`Vector`, `Hashtable`).
    pub fn is_legacy(&self, id: FieldId) -> bool {
        self.legacy.get(id as usize).copied().unwrap_or(false)
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
