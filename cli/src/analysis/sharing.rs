//! What is shared: which heap reads can give a value that another thread changes.
//!
//! Part of the one model every rule asks (with [`super::locks`], what is held, and the
//! ownership and validation facts of calls): a field is *stable* when it cannot change once its
//! object (or class) is constructed: `final`, or neither `public` nor `protected` (no code
//! outside the program can write it) and written only by its own class's constructors, class
//! initializer and the private methods only they call. A read of a stable field is not a
//! read of shared mutable state: its value is as old as the object it is read from (a static
//! one is a constant). Static fields of the platform (`java.`, `javax.`, `jdk.`, `sun.`), which
//! are not in the program, are its constants (`Boolean.FALSE`, `TimeUnit.SECONDS`).

use rayon::prelude::*;

use crate::bytecode::{acc, Class, InvokeKind, Op};
use crate::fxhash::FxHashSet;

/// Package prefixes of the platform's classes (internal names).
pub const PLATFORM_PREFIXES: &[&str] = &["java/", "javax/", "jdk/", "sun/"];

pub fn is_platform(class: &str) -> bool {
    PLATFORM_PREFIXES.iter().any(|p| class.starts_with(p))
}

/// Classes of the platform that do I/O, by internal-name prefix. A call on one returns the
/// outcome of this thread's own I/O (a byte count, a record read), not shared state; the
/// whole-program views leave their fields out (I/O is shared on purpose and its sequences are
/// not atomic).
pub const IO_PREFIXES: &[&str] = &[
    "java/io/",
    "java/nio/",
    "java/net/",
    "javax/net/",
    "sun/nio/",
    "java/util/logging/",
];

pub fn is_io(class: &str) -> bool {
    IO_PREFIXES.iter().any(|p| class.starts_with(p))
}

/// Program-wide field facts, by field id (contiguous per class, in declaration order).
#[derive(Debug, Default)]
pub struct FieldFacts {
    /// First field id of each class.
    pub base: Vec<u32>,
    /// `(class index, field index)` of each id.
    pub owner: Vec<(u32, u32)>,
    /// Whether the program writes the field outside its class's construction (see
    /// [`init_only_methods`]).
    pub written: Vec<bool>,
    /// Whether the field may change after construction (see the module docs).
    pub mutable: Vec<bool>,
    /// Whether the field belongs to an object one thread uses at a time by contract: declared by
    /// a class implementing a `confined` interface of the platform model (an iterator). Not
    /// shared, however often it changes. Filled in by the program once its types are known.
    pub confined: Vec<bool>,
}

/// Resolves a field reference `(class, name)` to its declaring `(class index, field index)`.
pub type FieldOwner<'a> = &'a (dyn Fn(&str, &str) -> Option<(u32, u32)> + Sync);

impl FieldFacts {
    /// `field_owner(class, name)` resolves a field reference to its declaring `(class, field)`.
    pub fn compute(classes: &[Class], field_owner: FieldOwner<'_>) -> FieldFacts {
        let mut base = Vec::with_capacity(classes.len());
        let mut owner = Vec::new();
        for (ci, c) in classes.iter().enumerate() {
            base.push(owner.len() as u32);
            owner.extend((0..c.fields.len()).map(|fi| (ci as u32, fi as u32)));
        }
        let written: Vec<Vec<(u32, u32)>> = classes
            .par_iter()
            .map(|c| {
                let init = init_only_methods(c);
                let mut out = Vec::new();
                for (mi, m) in c.methods.iter().enumerate() {
                    let Some(code) = &m.code else { continue };
                    for insn in &code.insns {
                        if let Op::PutField(r) | Op::PutStatic(r) = insn.op {
                            let fr = c.member(r);
                            if init[mi] && *fr.class == *c.name {
                                continue;
                            }
                            if let Some(o) = field_owner(&fr.class, &fr.name) {
                                out.push(o);
                            }
                        }
                    }
                }
                out
            })
            .collect();
        let mut is_written = vec![false; owner.len()];
        for (ci, fi) in written.into_iter().flatten() {
            is_written[(base[ci as usize] + fi) as usize] = true;
        }
        let mutable = owner
            .iter()
            .zip(&is_written)
            .map(|(&(ci, fi), &w)| {
                let access = classes[ci as usize].fields[fi as usize].access;
                // Code outside the program (a user of the library) may write a public or
                // protected field.
                access & acc::FINAL == 0 && (w || access & (acc::PUBLIC | acc::PROTECTED) != 0)
            })
            .collect();
        let confined = vec![false; owner.len()];
        FieldFacts {
            base,
            owner,
            written: is_written,
            mutable,
            confined,
        }
    }

    pub fn id(&self, class: u32, field: u32) -> u32 {
        self.base[class as usize] + field
    }
}

/// The methods of a class that only run while it is being constructed: constructors, the class
/// initializer, and private methods called only from those (transitively) and never captured
/// as a lambda or method reference.
pub fn init_only_methods(c: &Class) -> Vec<bool> {
    let n = c.methods.len();
    let mut init: Vec<bool> = c
        .methods
        .iter()
        .map(|m| matches!(&*m.name, "<init>" | "<clinit>"))
        .collect();
    let private = |mi: usize| c.methods[mi].access & acc::PRIVATE != 0;
    if !(0..n).any(private) {
        return init;
    }
    let captured: FxHashSet<(&str, &str)> = c
        .lambda_impls
        .iter()
        .flatten()
        .filter(|(class, _, _)| **class == *c.name)
        .map(|(_, name, desc)| (&**name, &**desc))
        .collect();
    // callers[m]: the methods of this class that call private method m.
    let mut callers: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (mi, m) in c.methods.iter().enumerate() {
        let Some(code) = &m.code else { continue };
        for insn in &code.insns {
            let Op::Invoke(kind, r) = insn.op else {
                continue;
            };
            if kind == InvokeKind::Interface {
                continue;
            }
            let mr = c.member(r);
            if *mr.class != *c.name {
                continue;
            }
            if let Some(t) = c
                .methods
                .iter()
                .position(|x| *x.name == *mr.name && *x.descriptor == *mr.desc)
            {
                if private(t) && !callers[t].contains(&mi) {
                    callers[t].push(mi);
                }
            }
        }
    }
    loop {
        let mut changed = false;
        for t in 0..n {
            if init[t] || !private(t) || callers[t].is_empty() {
                continue;
            }
            let m = &c.methods[t];
            if captured.contains(&(&*m.name, &*m.descriptor)) {
                continue;
            }
            if callers[t].iter().all(|&k| init[k] && k != t) {
                init[t] = true;
                changed = true;
            }
        }
        if !changed {
            return init;
        }
    }
}
