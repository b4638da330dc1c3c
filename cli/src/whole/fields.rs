//! Program-wide field identities (class, field) for the views, and which fields can take part
//! in interference at all.
//!
//! Left out, as in von Praun and Gross: `final` and `volatile` fields, fields only assigned in
//! constructors and class initializers (shared read-only: the stable fields of
//! [`crate::analysis::sharing`]), fields of I/O classes, and fields of objects one thread uses
//! at a time by contract (an iterator's cursor). Also left out: fields initialized once,
//! lazily, under a lock ([`write_once`]): read-only from their first write on.
//!
//! The values the causal graph follows ([`FieldTable::is_valued`]) are those fields and the
//! `volatile` ones too: a volatile field is read and written atomically, as an atomic's `get()`
//! and `set()` are, and an unlocked check of one that decides a write under a lock is as stale
//! as an atomic's. The views (method consistency, high-level data races) stay without them.
//! Fields initialized once are followed too ([`FieldTable::is_once`]), but only as a look that
//! decides another variable's write: their own writes re-check the look.

use rayon::prelude::*;

use super::facts::FieldId;
use crate::analysis::engine::{self, StepCx};
use crate::analysis::locks::Sym;
use crate::bytecode::cfg::Cfg;
use crate::bytecode::{acc, Cond, Konst, Op};
use crate::program::{MethodId, Program};

pub use crate::analysis::sharing::IO_PREFIXES;

pub struct FieldTable {
    /// First field id of each class (prefix sums over declared fields).
    base: Vec<u32>,
    /// Whether each field takes part in the views.
    tracked: Vec<bool>,
    /// Whether each field is a value the causal graph follows: a tracked one, or a `volatile`
    /// one that would be tracked but for that.
    valued: Vec<bool>,
    /// Whether each field is initialized once ([`write_once`]): followed by the causal graph
    /// (`valued`) as a look another value's write may count on (a `closed` flag set once,
    /// deciding whether a subscriber is added), never as a stale value of its own.
    once: Vec<bool>,
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
        let valued: Vec<bool> = facts
            .owner
            .iter()
            .enumerate()
            .map(|(id, &(ci, fi))| {
                let c = p.class(ci);
                facts.written[id]
                    && !facts.confined[id]
                    && c.fields[fi as usize].access & acc::FINAL == 0
                    && !IO_PREFIXES.iter().any(|pre| c.name.starts_with(pre))
            })
            .collect();
        let once = write_once(p, &valued);
        let tracked: Vec<bool> = (facts.owner.iter().zip(valued.iter().zip(&once)))
            .map(|(&(ci, fi), (&v, &o))| {
                v && !o && p.class(ci).fields[fi as usize].access & acc::VOLATILE == 0
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
            valued,
            once,
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

    /// Whether the causal graph follows the values of a field: a tracked one, or a `volatile`
    /// one (see the module docs).
    pub fn is_valued(&self, id: FieldId) -> bool {
        self.valued.get(id as usize).copied().unwrap_or(false)
    }

    /// Whether a field is initialized once ([`write_once`]): no stale value of its own.
    pub fn is_once(&self, id: FieldId) -> bool {
        self.once.get(id as usize).copied().unwrap_or(false)
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

/// Which of the `candidates` fields are initialized once: not public (code of any class may
/// assign a public field), and every write outside its class's construction stores
/// into the field of `this` (or a static field) where a look in the same critical section found
/// it unset: a look at the field itself, `null`, `false` or zero (`synchronized (this) { if (map
/// == null) map = ..; }`, a double-checked lazy initialization), or a look at a one-way flag of
/// the same object that found it without its last constant, when the section sets the flag on
/// every way out (`if (!initialized) { value = compute(); initialized = true; }`, a memoizing
/// holder). A store into an object the method allocated, before anything but its constructor
/// was handed it (a copy built with its value), is part of building that object and counts
/// like a constructor's. Such a field changes once, from unset to its value, and is shared
/// read-only from then on: a look that found it unset is checked again by the writer, and a
/// look that found it set stays true. A write that can run when the field is set (a reset to
/// `null`, a replacement, a flag set back or set after the section) makes it an ordinary
/// field. A protected field counts like a private one: a subclass's writes are in the program
/// like any other code's, and in a library a subclass written elsewhere that assigns the field
/// takes its protocol over (`fixtures/dcl/ProtectedOnce.java`).
pub fn write_once(p: &Program, candidates: &[bool]) -> Vec<bool> {
    let facts = &p.fields;
    // Per method: its writes of candidate fields, each with whether it is such a guarded write.
    let writes: Vec<(u32, bool)> = (0..p.classes.len())
        .into_par_iter()
        .with_max_len(crate::PAR_CHUNK)
        .flat_map_iter(|ci| {
            let c = p.class(ci as u32);
            let init = p.init_only(ci as u32);
            let mut out: Vec<(u32, bool)> = Vec::new();
            for (mi, m) in c.methods.iter().enumerate() {
                let Some(code) = &m.code else { continue };
                let mut mine: Vec<(usize, u32)> = Vec::new();
                for (i, insn) in code.insns.iter().enumerate() {
                    let (Op::PutField(r) | Op::PutStatic(r)) = insn.op else {
                        continue;
                    };
                    let fr = c.member(r);
                    if init[mi] && *fr.class == *c.name {
                        continue;
                    }
                    let Some((oc, of)) = p.field_ref(ci as u32, r) else {
                        continue;
                    };
                    let id = facts.id(oc, of);
                    if candidates.get(id as usize).copied().unwrap_or(false) {
                        mine.push((i, id));
                    }
                }
                if mine.is_empty() {
                    continue;
                }
                let id = MethodId {
                    class: ci as u32,
                    method: mi as u32,
                };
                let guards = guarded_writes(p, id, &mine);
                out.extend(mine.iter().zip(guards).map(|(&(_, f), g)| (f, g)));
            }
            out
        })
        .collect();
    let mut once = vec![true; candidates.len()];
    let mut seen = vec![false; candidates.len()];
    for (f, guarded) in writes {
        seen[f as usize] = true;
        once[f as usize] &= guarded;
    }
    once.iter()
        .zip(&seen)
        .enumerate()
        .map(|(id, (&o, &s))| {
            let (ci, fi) = facts.owner[id];
            let access = p.class(ci).fields[fi as usize].access;
            o && s && access & acc::PUBLIC == 0
        })
        .collect()
}

/// For each write `(instruction, field)` of method `id`: whether it is a write of the field's
/// one change. Either it runs only where a look, in the same critical section, found the field
/// unset: a read of the same field of the same object (`this`, or a static field) that a branch
/// tests for `null` or zero, or a read of a one-way flag of that object
/// ([`crate::analysis::sharing::OneWay`]: every write after construction stores one constant)
/// that a branch found without its constant, when the section then sets the flag on every path
/// out of it (`if (!initialized) { value = compute(); initialized = true; }`); every path to the
/// write goes through the branch's way that means unset (the block only that way enters).
fn guarded_writes(p: &Program, id: MethodId, writes: &[(usize, u32)]) -> Vec<bool> {
    let Some(code) = &p.method(id).code else {
        return vec![false; writes.len()];
    };
    let field_of = |at: usize| -> Option<u32> {
        let (Op::GetField(r) | Op::GetStatic(r) | Op::PutField(r) | Op::PutStatic(r)) =
            code.insns.get(at)?.op
        else {
            return None;
        };
        let (oc, of) = p.field_ref(id.class, r)?;
        Some(p.fields.id(oc, of))
    };
    // The constant a one-way flag ends at.
    let flag = |g: u32| (p.one_way().get(g as usize)).and_then(|o| o.field);
    // The candidate tests: a read of a field right before a branch on null or zero.
    let tests: Vec<(usize, u32)> = code
        .insns
        .iter()
        .enumerate()
        .filter_map(|(j, insn)| {
            let Op::If { cond, .. } = insn.op else {
                return None;
            };
            if matches!(cond, Cond::Same | Cond::Differ | Cond::Other)
                || !matches!(
                    code.insns.get(j.checked_sub(1)?)?.op,
                    Op::GetField(_) | Op::GetStatic(_)
                )
            {
                return None;
            }
            Some((j, field_of(j - 1)?))
        })
        .collect();
    // The writes of the flags tested.
    let flag_writes: Vec<(usize, u32)> = (0..code.insns.len())
        .filter(|&i| matches!(code.insns[i].op, Op::PutField(_) | Op::PutStatic(_)))
        .filter_map(|i| Some((i, field_of(i)?)))
        .filter(|&(_, g)| flag(g).is_some() && tests.iter().any(|&(_, t)| t == g))
        .collect();
    let own_test = writes
        .iter()
        .any(|(_, f)| tests.iter().any(|(_, g)| g == f));
    let allocates = (code.insns.iter()).any(|insn| matches!(insn.op, Op::New(_)));
    if !own_test && flag_writes.is_empty() && !allocates {
        return vec![false; writes.len()];
    }
    let cfg = Cfg::build(code);
    // The block a test enters the way that means unset (`unset_zero`: the field is null or
    // zero that way), when the test is the only way into it.
    let unset_block = |j: usize, unset_zero: bool| -> Option<u32> {
        let Op::If { cond, target, .. } = code.insns[j].op else {
            return None;
        };
        let jumps_when_zero = match cond {
            Cond::Null | Cond::Zero => true,
            Cond::NonNull | Cond::NonZero => false,
            Cond::Same | Cond::Differ | Cond::Other => return None,
        };
        let at = if jumps_when_zero == unset_zero {
            target as usize
        } else {
            j + 1
        };
        let u = *cfg.block_of.get(at)?;
        cfg.only_entered_from(u, cfg.block_of[j]).then_some(u)
    };
    // The places of the reads and writes, from the engine: the object and the critical section
    // (of every instruction, when a flag's write is looked for on the paths out of a section).
    let mut places = Places {
        want: vec![false; code.insns.len()],
        got: vec![None; code.insns.len()],
        regions: if flag_writes.is_empty() {
            Vec::new()
        } else {
            vec![None; code.insns.len()]
        },
    };
    for &(i, _) in writes.iter().chain(&flag_writes) {
        places.want[i] = true;
    }
    if allocates {
        // Every store into a field: whether it goes into a new object (see `unpublished`).
        for (i, insn) in code.insns.iter().enumerate() {
            if matches!(insn.op, Op::PutField(_)) {
                places.want[i] = true;
            }
        }
    }
    for &(j, _) in &tests {
        places.want[j - 1] = true;
    }
    if engine::run_method(p, id, false, &mut places).is_err() {
        return vec![false; writes.len()];
    }
    let place = |i: usize| places.got.get(i).copied().flatten();
    // Whether every normal path from the write at `i` sets flag `g` of `object` before it
    // leaves the critical section `region` (or returns, or throws).
    let sets_flag = |i: usize, g: u32, object: Sym, region: u32| {
        // The method must set the flag somewhere (and the sections are known only then).
        if !flag_writes.iter().any(|&(_, x)| x == g) {
            return false;
        }
        let mut seen = vec![false; cfg.blocks.len()];
        let mut stack: Vec<usize> = vec![i + 1];
        while let Some(start) = stack.pop() {
            let Some(&b) = cfg.block_of.get(start) else {
                return false;
            };
            let block = &cfg.blocks[b as usize];
            let mut set = false;
            for k in start..block.end as usize {
                match places.regions.get(k).copied().flatten() {
                    // Not reached by the engine: no path.
                    None => {
                        set = true;
                        break;
                    }
                    Some(r) if r != Some(region) => return false,
                    Some(_) => {}
                }
                if matches!(code.insns[k].op, Op::Return(_) | Op::Athrow) {
                    return false;
                }
                if flag_writes.contains(&(k, g)) && place(k).is_some_and(|(o, _)| o == object) {
                    set = true;
                    break;
                }
            }
            if set {
                continue;
            }
            for &s in &block.succs {
                if !std::mem::replace(&mut seen[s as usize], true) {
                    stack.push(cfg.blocks[s as usize].start as usize);
                }
            }
        }
        true
    };
    // A store into an object this method allocated, before anything but its own constructor
    // was handed it (`Memo m = new Memo(init); m.initialized = true; m.value = v; return m;`,
    // a copy built with its value): part of building that object, which no other thread sees
    // yet, so it is no change of a field another thread may have looked at. Between the `new`
    // and the store, on a straight path: no call but the object's constructor, no store
    // into a static field or an array, no store into a field of another object, no lambda.
    let unpublished = |i: usize, object: Sym| -> bool {
        let Sym::Value(a) = object else {
            return false;
        };
        let a = a as usize;
        let Some(&Op::New(class)) = code.insns.get(a).map(|x| &x.op) else {
            return false;
        };
        if a >= i {
            return false;
        }
        let c = p.class(id.class);
        let own = &*c.member(class).class;
        let mut constructors = 0;
        (a + 1..i).all(|k| match code.insns[k].op {
            Op::Invoke(crate::bytecode::InvokeKind::Special, r) => {
                let m = c.member(r);
                constructors += 1;
                &*m.name == "<init>" && &*m.class == own && constructors == 1
            }
            Op::Invoke(..)
            | Op::InvokeDynamic(_)
            | Op::PutStatic(_)
            | Op::ArrayStore(_)
            | Op::If { .. }
            | Op::Goto(_)
            | Op::Jsr(_)
            | Op::Ret(_)
            | Op::Switch(_)
            | Op::Return(_)
            | Op::Athrow
            | Op::MonitorEnter
            | Op::MonitorExit => false,
            Op::PutField(_) => place(k).is_some_and(|(o, _)| o == object),
            _ => true,
        })
    };
    writes
        .iter()
        .map(|&(i, f)| {
            let Some((object, region)) = place(i) else {
                return false;
            };
            if unpublished(i, object) {
                return true;
            }
            let Some(region) = region else {
                return false;
            };
            let instance = matches!(code.insns[i].op, Op::PutField(_));
            if instance && object != Sym::This {
                return false;
            }
            let here = |j: usize| place(j - 1) == Some((object, Some(region)));
            let dominated = |j: usize, unset_zero: bool| {
                unset_block(j, unset_zero).is_some_and(|u| cfg.dominates(u, cfg.block_of[i]))
            };
            tests.iter().any(|&(j, g)| {
                if g == f {
                    here(j) && dominated(j, true)
                } else {
                    // Unset: the way where the flag is not its last constant.
                    flag(g).is_some_and(|k| {
                        here(j)
                            && dominated(j, k == Konst::NonZero)
                            && sets_flag(i, g, object, region)
                    })
                }
            })
        })
        .collect()
}

/// Where a field access is: the object (as the frame names it: `this`, or nothing for a static
/// field) and the innermost critical section.
type Place = (Sym, Option<u32>);

/// The places of chosen field accesses (by instruction).
struct Places {
    want: Vec<bool>,
    got: Vec<Option<Place>>,
    /// The innermost critical section at each instruction (`Some(None)`: none), when asked
    /// for (empty otherwise); sections that disagree are `Some(Some(u32::MAX))`.
    regions: Vec<Option<Option<u32>>>,
}

impl engine::Analysis for Places {
    type V = ();

    fn join(&self, _: &(), _: &(), _: Option<u32>) {}

    fn transfer(&mut self, cx: &StepCx, _: &mut [()]) {
        if !cx.record || !self.want.get(cx.at as usize).copied().unwrap_or(false) {
            return;
        }
        let now = (cx.object, cx.region);
        let slot = &mut self.got[cx.at as usize];
        // Reached in two frames that disagree: no single place.
        *slot = match *slot {
            None => Some(now),
            Some(was) if was == now => Some(now),
            Some(_) => Some((Sym::Unknown, None)),
        };
    }

    fn region(&mut self, _: engine::RegionEvent, _: &mut ()) {}

    fn observe(&mut self, at: u32, frame: &engine::Frame<()>) {
        if let Some(slot) = self.regions.get_mut(at as usize) {
            let now = frame.locks.current();
            *slot = match *slot {
                None => Some(now),
                Some(was) if was == now => Some(now),
                Some(_) => Some(Some(u32::MAX)),
            };
        }
    }
}
