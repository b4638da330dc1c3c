//! Which locks guard a variable: the locks that every write of it holds, program-wide. Part of
//! the lock model: a value read and used inside one enclosing critical section is not stale
//! when every thread that writes the variable holds that same lock (the enclosing region
//! covers every writer); when one writer does not, it is (the buggy twin).
//!
//! Locks are named relative to the object whose field is accessed, so that writes in different
//! methods and classes compare: the object's own monitor (`synchronized` methods of the class,
//! `synchronized (this)`), a lock held in a field (`this.lock`, a static `LOCK`, one part of a
//! read-write lock), a class literal, or the one lock of `@Atomic` regions.
//!
//! Computed on demand, for the variables of the findings that ask: one engine pass (an
//! [`Observer`]) over each method that may write one of them. Writes through an alias the
//! frame cannot name (a receiver returned by a getter) are not seen.

use rayon::prelude::*;

use super::engine::{self, Frame, Observer, Observing};
use super::locks::{self, LockId, Sym, STATE_WRITE};
use super::sharing;
use crate::bytecode::{InvokeKind, Op};
use crate::fxhash::{FxHashMap, FxHashSet};
use crate::program::{MethodId, Program};

/// A lock, relative to the object holding the variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GuardKey {
    /// The monitor of the object whose field it is.
    Own,
    /// The lock held in a field (by program field id), and which part of a read-write lock.
    Field(u32, u8),
    /// A class literal's monitor (hash of the name), or `static synchronized`.
    Class(u64),
    /// The one lock of `@Atomic` regions.
    Atomic,
}

/// A variable: the value of a field, or the state of the thread-safe object held in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GuardVar {
    /// Program field id ([`sharing::FieldFacts`]).
    pub field: u32,
    pub state: bool,
}

/// Is `var` guarded by `key`?
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GuardQuery {
    pub var: GuardVar,
    pub key: GuardKey,
}

/// The program field id of field reference `r` of class `class`.
pub fn field_id(p: &Program, class: u32, r: u32) -> Option<u32> {
    let m = p.class(class).member(r);
    let (ci, fi) = p.field_owner(&m.class, &m.name)?;
    Some(p.fields.id(ci, fi))
}

/// The key of `lock` (held in a method of class `class`) for an access through `object` (the
/// symbol of the object whose field is accessed; `Sym::Unknown` for a static field).
pub fn key_of(p: &Program, class: u32, lock: LockId, object: Sym) -> Option<GuardKey> {
    match lock {
        LockId::This if object == Sym::This => Some(GuardKey::Own),
        LockId::Param(x) if object == Sym::Param(x) => Some(GuardKey::Own),
        LockId::Field(_, r, part) => field_id(p, class, r).map(|id| GuardKey::Field(id, part)),
        LockId::Class(h) => Some(GuardKey::Class(h)),
        LockId::Atomic => Some(GuardKey::Atomic),
        _ => None,
    }
}

/// The variable a value read from `place` (a field read, or a call on a thread-safe object held
/// in a field: `state`) in a method of class `class` comes from.
pub fn var_of(p: &Program, class: u32, place: Sym, state: bool) -> Option<GuardVar> {
    let (Sym::Field(_, r) | Sym::FieldOf(r)) = place else {
        return None;
    };
    Some(GuardVar {
        field: field_id(p, class, r)?,
        state,
    })
}

/// The query for a value read from `place` (a field read, or a call on a thread-safe object
/// held in a field: `state`) in a method of class `class`, under the enclosing lock `lock`.
pub fn query(p: &Program, class: u32, lock: LockId, place: Sym, state: bool) -> Option<GuardQuery> {
    let Sym::Field(base, r) = place else {
        return None;
    };
    let object = match base {
        locks::Base::This => Sym::This,
        locks::Base::Param(x) => Sym::Param(x),
        locks::Base::Static => Sym::Unknown,
    };
    Some(GuardQuery {
        var: GuardVar {
            field: field_id(p, class, r)?,
            state,
        },
        key: key_of(p, class, lock, object)?,
    })
}

/// What the program's writes of some variables are: for each, the lock keys every write holds
/// and the methods that write it (outside construction).
#[derive(Debug, Default)]
pub struct Writes {
    vars: FxHashMap<GuardVar, VarWrites>,
}

#[derive(Debug, Default)]
struct VarWrites {
    /// The keys every write holds; `None`: some write holds none, or a writer could not be
    /// analysed.
    keys: Option<Vec<GuardKey>>,
    writers: Vec<MethodId>,
    /// The methods that take the head of the queue held in the field (`poll`, `remove()`).
    takers: Vec<MethodId>,
}

impl Writes {
    /// Whether every write of the variable holds the lock.
    pub fn guarded(&self, q: &GuardQuery) -> bool {
        self.vars
            .get(&q.var)
            .and_then(|w| w.keys.as_ref())
            .is_some_and(|k| k.contains(&q.key))
    }

    /// Whether a method other than `m` takes the head of the queue held in the variable's
    /// field: only another consumer makes what `m` saw at the head stale.
    pub fn taken_elsewhere(&self, var: GuardVar, m: MethodId) -> bool {
        self.vars
            .get(&var)
            .is_some_and(|w| w.takers.iter().any(|&x| x != m))
    }

    /// Whether a method other than `m` writes the variable.
    pub fn written_elsewhere(&self, var: GuardVar, m: MethodId) -> bool {
        self.vars
            .get(&var)
            .is_some_and(|w| w.writers.iter().any(|&x| x != m))
    }
}

/// The writes of `vars`: one engine pass over each method that may write one of them.
pub fn writes_of(p: &Program, vars: &FxHashSet<GuardVar>) -> Writes {
    if vars.is_empty() {
        return Writes::default();
    }
    let fields: FxHashSet<u32> = vars.iter().map(|v| v.field).collect();
    let names: FxHashSet<&str> = fields
        .iter()
        .map(|&id| {
            let (ci, fi) = p.fields.owner[id as usize];
            &*p.class(ci).fields[fi as usize].name
        })
        .collect();
    // Methods that may write one of the variables: a store to the field, or (for the state of
    // a thread-safe object) a read of it.
    let candidates: Vec<(MethodId, bool)> = p
        .classes
        .par_iter()
        .enumerate()
        .flat_map_iter(|(ci, c)| {
            let mine: FxHashSet<u32> = (0..c.refs.len() as u32)
                .filter(|&r| {
                    let fr = &c.refs[r as usize];
                    !fr.is_method
                        && names.contains(&*fr.name)
                        && field_id(p, ci as u32, r).is_some_and(|id| fields.contains(&id))
                })
                .collect();
            let init = if mine.is_empty() {
                Vec::new()
            } else {
                sharing::init_only_methods(c)
            };
            let methods: Vec<(MethodId, bool)> = if mine.is_empty() {
                Vec::new()
            } else {
                c.methods
                    .iter()
                    .enumerate()
                    .filter(|(_, m)| {
                        m.code
                            .iter()
                            .flat_map(|code| &code.insns)
                            .any(|i| match i.op {
                                Op::PutField(r)
                                | Op::PutStatic(r)
                                | Op::GetField(r)
                                | Op::GetStatic(r) => mine.contains(&r),
                                _ => false,
                            })
                    })
                    .map(|(mi, _)| {
                        (
                            MethodId {
                                class: ci as u32,
                                method: mi as u32,
                            },
                            init[mi],
                        )
                    })
                    .collect()
            };
            methods
        })
        .collect();
    let found: Vec<(MethodId, Vec<Write>)> = candidates
        .par_iter()
        .map(|&(id, init)| {
            let mut w = Collect {
                p,
                id,
                init,
                vars,
                out: Vec::new(),
            };
            let out = match engine::run_method(p, id, false, &mut Observing(&mut w)) {
                Ok(()) => w.out,
                // A writer we cannot analyse guards nothing.
                Err(_) => vars.iter().map(|&v| (v, None, false)).collect(),
            };
            (id, out)
        })
        .collect();
    let mut writes = Writes::default();
    for (id, found) in found {
        for (var, keys, takes) in found {
            let w = writes.vars.entry(var).or_insert_with(|| VarWrites {
                keys: keys.clone(),
                ..VarWrites::default()
            });
            w.keys = match (w.keys.take(), keys) {
                (Some(a), Some(b)) => Some(a.into_iter().filter(|k| b.contains(k)).collect()),
                _ => None,
            };
            if !w.writers.contains(&id) {
                w.writers.push(id);
            }
            if takes && !w.takers.contains(&id) {
                w.takers.push(id);
            }
        }
    }
    writes
}

/// One write: the variable, the keys of the locks held (`None`: not known), and whether it
/// takes a queue's head.
type Write = (GuardVar, Option<Vec<GuardKey>>, bool);

/// Collects the writes of the asked variables in one method, with the keys of the locks held.
struct Collect<'a> {
    p: &'a Program,
    id: MethodId,
    /// The method only runs while its class is being constructed.
    init: bool,
    vars: &'a FxHashSet<GuardVar>,
    out: Vec<Write>,
}

impl Collect<'_> {
    fn record(&mut self, var: GuardVar, object: Sym, frame: &Frame<()>, takes: bool) {
        if !self.vars.contains(&var) {
            return;
        }
        let keys = frame
            .locks
            .held
            .iter()
            .filter_map(|h| key_of(self.p, self.id.class, h.lock, object))
            .collect();
        self.out.push((var, Some(keys), takes));
    }
}

impl Observer for Collect<'_> {
    fn observe(&mut self, at: u32, frame: &Frame<()>) {
        let class = self.p.class(self.id.class);
        let Some(code) = &self.p.method(self.id).code else {
            return;
        };
        let Some(insn) = code.insns.get(at as usize) else {
            return;
        };
        match insn.op {
            Op::PutField(r) | Op::PutStatic(r) => {
                let Some(field) = field_id(self.p, self.id.class, r) else {
                    return;
                };
                let m = class.member(r);
                // Constructors build the object; no other thread sees these writes.
                if self.init && *m.class == *class.name {
                    return;
                }
                let object = match insn.op {
                    Op::PutField(_) => frame
                        .stack
                        .len()
                        .checked_sub(1 + m.arg_slots as usize)
                        .map_or(Sym::Unknown, |k| frame.stack[k].sym),
                    _ => Sym::Unknown,
                };
                self.record(
                    GuardVar {
                        field,
                        state: false,
                    },
                    object,
                    frame,
                    false,
                );
            }
            Op::Invoke(kind, r) if kind != InvokeKind::Static => {
                let m = class.member(r);
                if self.p.thread_safe.state_access(&m.name) & STATE_WRITE == 0 {
                    return;
                }
                let receiver = frame
                    .stack
                    .len()
                    .checked_sub(1 + m.arg_slots as usize)
                    .map(|k| frame.stack[k].sym);
                let Some(Sym::Field(base, fr)) = receiver else {
                    return;
                };
                let Some(field) = field_id(self.p, self.id.class, fr) else {
                    return;
                };
                if self.init && *class.member(fr).class == *class.name {
                    return;
                }
                let object = match base {
                    locks::Base::This => Sym::This,
                    locks::Base::Param(x) => Sym::Param(x),
                    locks::Base::Static => Sym::Unknown,
                };
                let takes = self.p.thread_safe.is_head_remove(&m.name, &m.desc);
                self.record(GuardVar { field, state: true }, object, frame, takes);
            }
            _ => {}
        }
    }
}
