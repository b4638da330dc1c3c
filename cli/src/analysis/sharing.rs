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

use crate::analysis::locks::STATE_WRITE;
use crate::bytecode::{acc, Class, Code, InvokeKind, Konst, Op};
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
    /// What every write of the field (or of the atomic it holds) stores, when one constant
    /// ([`one_way_fields`]). Computed on first use ([`crate::program::Program::one_way`]).
    pub one_way: std::sync::OnceLock<Vec<OneWay>>,
    /// The flag locks ([`flag_locks`]). Filled in by the program once its fields are known.
    pub flags: FlagLocks,
}

/// Atomic flags used as try-locks: `if (busy.compareAndSet(false, true)) { try { .. } finally {
/// busy.set(false); } }` (see [`flag_locks`]).
#[derive(Debug, Default)]
pub struct FlagLocks {
    /// The fields, by field id.
    pub fields: FxHashSet<u32>,
    /// The methods that acquire one (a compare-and-set from `false` to `true`).
    pub acquirers: FxHashSet<crate::program::MethodId>,
}

/// What a call on an atomic flag does to it (see [`flag_locks`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlagOp {
    /// Reads it: a call that leaves it alone.
    Read,
    /// `compareAndSet(false, true)`: takes the flag where it succeeds.
    Acquire,
    /// `set(false)`, `lazySet(false)` or `compareAndSet(true, false)`: gives it back.
    Release,
}

/// The atomic types whose flag uses [`flag_op`] reads: `false`/`true` or `0`/`1`.
const FLAG_TYPES: &[&str] = &[
    "Ljava/util/concurrent/atomic/AtomicBoolean;",
    "Ljava/util/concurrent/atomic/AtomicInteger;",
];

/// What the call at `at` of `code` does to the atomic flag it is made on, when its arguments
/// are the constants pushed right before it: `compareAndSet(false, true)` takes it,
/// `compareAndSet(true, false)`, `set(false)` or `lazySet(false)` give it back, a getter reads
/// it. `None` for any other call (`getAndSet`, `set(true)`, an argument that is no constant).
pub fn flag_op(c: &Class, code: &crate::bytecode::Code, at: usize) -> Option<FlagOp> {
    let Op::Invoke(kind, r) = code.insns.get(at)?.op else {
        return None;
    };
    let m = c.member(r);
    if kind == InvokeKind::Static || !FLAG_TYPES.iter().any(|t| t[1..t.len() - 1] == *m.class) {
        return None;
    }
    let arg = |back: usize| konst_at(c, code, at.checked_sub(back)?);
    match (&*m.name, m.arg_slots) {
        ("get" | "getPlain" | "getAcquire" | "getOpaque" | "intValue", 0) => Some(FlagOp::Read),
        (
            "compareAndSet"
            | "weakCompareAndSet"
            | "weakCompareAndSetVolatile"
            | "weakCompareAndSetAcquire"
            | "weakCompareAndSetRelease"
            | "weakCompareAndSetPlain",
            2,
        ) => match (arg(2)?, arg(1)?) {
            (Konst::Zero, Konst::NonZero) => Some(FlagOp::Acquire),
            (Konst::NonZero, Konst::Zero) => Some(FlagOp::Release),
            _ => None,
        },
        ("set" | "lazySet" | "setRelease" | "setPlain" | "setOpaque", 1) => {
            (arg(1)? == Konst::Zero).then_some(FlagOp::Release)
        }
        _ => None,
    }
}

/// The program's flag locks: private final atomic fields (`AtomicBoolean`, `AtomicInteger`)
/// that only serve as a try-lock. Every use of one is a call on it, made right after the field
/// is read with only its constant arguments in between: `compareAndSet(false, true)` (at least
/// one: it takes the flag where it succeeds), `set(false)`, `lazySet(false)` or
/// `compareAndSet(true, false)` (at least one: they give it back), or a getter; and the field
/// is set only at construction, to a new atomic; and every take is given back in its own method
/// (`try { .. } finally { busy.set(false); }`) or is the outcome the method returns (a
/// `tryAcquire()` helper, with a `release()` beside it). Between a successful take and the
/// give-back no other thread's take succeeds, so the code there runs under one lock, like
/// `tryLock()` .. `unlock()`. A flag that is also set to `true` or swapped (`getAndSet`) is a
/// state, and one taken once and given back elsewhere (`recycle()`) a once-only guard: no lock.
pub fn flag_locks(p: &crate::program::Program) -> FlagLocks {
    let facts = &p.fields;
    let candidates: FxHashSet<u32> = (facts.owner.iter().enumerate())
        .filter(|(_, &(ci, fi))| {
            let f = &p.classes[ci as usize].fields[fi as usize];
            f.access & (acc::PRIVATE | acc::FINAL) == acc::PRIVATE | acc::FINAL
                && FLAG_TYPES.contains(&&*f.desc)
        })
        .map(|(id, _)| id as u32)
        .collect();
    if candidates.is_empty() {
        return FlagLocks::default();
    }
    // A private field is used only in its class's nest.
    let nests: FxHashSet<&str> = (candidates.iter())
        .map(|&id| crate::program::nest(&p.classes[facts.owner[id as usize].0 as usize].name))
        .collect();
    // Per use: (field id, what it does and whether the method returns its outcome at once;
    // `None`: anything else), and the method.
    type Use = (u32, Option<(FlagOp, bool)>, crate::program::MethodId);
    let uses: Vec<Use> = (p.par_classes().enumerate())
        .filter(|(_, c)| nests.contains(crate::program::nest(&c.name)))
        .flat_map_iter(|(ci, c)| {
            let mut out = Vec::new();
            for (mi, m) in c.methods.iter().enumerate() {
                let Some(code) = &m.code else { continue };
                let id = crate::program::MethodId {
                    class: ci as u32,
                    method: mi as u32,
                };
                let mut leaders: Option<Vec<bool>> = None;
                for (at, insn) in code.insns.iter().enumerate() {
                    let (r, put) = match insn.op {
                        Op::PutField(r) | Op::PutStatic(r) => (r, true),
                        Op::GetField(r) | Op::GetStatic(r) => (r, false),
                        _ => continue,
                    };
                    let fr = c.member(r);
                    if !FLAG_TYPES.contains(&&*fr.desc) {
                        continue;
                    }
                    let Some(field) = p
                        .field_ref(ci as u32, r)
                        .map(|(oc, of)| facts.id(oc, of))
                        .filter(|f| candidates.contains(f))
                    else {
                        continue;
                    };
                    if put {
                        // Set at construction, to a new atomic.
                        let constructing = *fr.class == *c.name && p.init_only(ci as u32)[mi];
                        let fresh = just_constructed(c, code, at);
                        if !(constructing && fresh) {
                            out.push((field, None, id));
                        }
                        continue;
                    }
                    // The call on it, after the constants it takes, on a path no branch joins.
                    let mut k = at + 1;
                    while k - at <= 2
                        && matches!(code.insns.get(k).map(|i| &i.op), Some(Op::Flag(_)))
                    {
                        k += 1;
                    }
                    let joined = (at + 1..=k).any(|j| {
                        leaders
                            .get_or_insert_with(|| crate::bytecode::cfg::leaders(code))
                            .get(j)
                            .copied()
                            .unwrap_or(true)
                    });
                    let op = (!joined).then(|| flag_op(c, code, k)).flatten();
                    let args = match code.insns.get(k).map(|i| &i.op) {
                        Some(&Op::Invoke(_, mr)) => c.member(mr).arg_slots as usize,
                        _ => usize::MAX,
                    };
                    // A take whose outcome the method returns at once: a try-lock helper.
                    let returned =
                        matches!(code.insns.get(k + 1).map(|i| &i.op), Some(Op::Return(1)));
                    let op = op.filter(|_| args == k - at - 1).map(|op| match op {
                        FlagOp::Acquire if returned => (op, true),
                        _ => (op, false),
                    });
                    out.push((field, op, id));
                }
            }
            out
        })
        .collect();
    // The methods that give each flag back.
    let gives: FxHashSet<(u32, crate::program::MethodId)> = (uses.iter())
        .filter(|(_, op, _)| matches!(op, Some((FlagOp::Release, _))))
        .map(|&(f, _, m)| (f, m))
        .collect();
    // Per field: (any other use, or a take neither given back in its method nor returned as a
    // try-lock's outcome: a once-only guard, not a lock; takes; gives back).
    let mut seen: crate::fxhash::FxHashMap<u32, (bool, bool, bool)> = Default::default();
    for &(field, op, m) in &uses {
        let e = seen.entry(field).or_default();
        match op {
            None => e.0 = true,
            Some((FlagOp::Acquire, returned)) => {
                e.1 = true;
                e.0 |= !returned && !gives.contains(&(field, m));
            }
            Some((FlagOp::Release, _)) => e.2 = true,
            Some((FlagOp::Read, _)) => {}
        }
    }
    let fields: FxHashSet<u32> = (seen.into_iter())
        .filter(|&(_, (other, takes, gives))| !other && takes && gives)
        .map(|(f, _)| f)
        .collect();
    let acquirers = (uses.iter())
        .filter(|(f, op, _)| matches!(op, Some((FlagOp::Acquire, _))) && fields.contains(f))
        .map(|&(_, _, m)| m)
        .collect();
    FlagLocks { fields, acquirers }
}

impl FieldFacts {
    /// Computed from the program's classes, with its field references resolved.
    pub fn compute(p: &crate::program::Program) -> FieldFacts {
        let classes = &p.classes;
        let mut base = Vec::with_capacity(classes.len());
        let mut owner = Vec::new();
        for (ci, c) in classes.iter().enumerate() {
            base.push(owner.len() as u32);
            owner.extend((0..c.fields.len()).map(|fi| (ci as u32, fi as u32)));
        }
        let written: Vec<Vec<(u32, u32)>> = classes
            .par_iter()
            .with_max_len(crate::PAR_CHUNK)
            .enumerate()
            .map(|(ci, c)| {
                let mut out = Vec::new();
                for (mi, m) in c.methods.iter().enumerate() {
                    let Some(code) = &m.code else { continue };
                    for insn in &code.insns {
                        if let Op::PutField(r) | Op::PutStatic(r) = insn.op {
                            let fr = c.member(r);
                            if *fr.class == *c.name && p.init_only(ci as u32)[mi] {
                                continue;
                            }
                            if let Some(o) = p.field_ref(ci as u32, r) {
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
            one_way: std::sync::OnceLock::new(),
            flags: FlagLocks::default(),
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
    // The private methods by name and descriptor: each call of the class's own is looked up.
    let privates: crate::fxhash::FxHashMap<(&str, &str), usize> = (0..n)
        .filter(|&mi| private(mi))
        .map(|mi| ((&*c.methods[mi].name, &*c.methods[mi].descriptor), mi))
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
            if let Some(&t) = privates.get(&(&*mr.name, &*mr.desc)) {
                if !callers[t].contains(&mi) {
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

/// What every write of a field stores once its object is constructed, when that is one
/// constant: a *one-way* field. `field`: the field itself (`closed = true` and nothing else);
/// `state`: the value of the atomic it holds (`scheduled.set(true)` and nothing else, the
/// field itself set only to new atomics at construction). A branch on such a variable that
/// sees the constant sees its last value: no thread can change it back, so a decision taken
/// on it never goes stale (`if (closed) return;`, `if (!scheduled.get()) return;`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OneWay {
    pub field: Option<Konst>,
    pub state: Option<Konst>,
    /// Of an `int` field: the bits no write after construction clears (`state |= CLOSED`,
    /// `state &= ~RESUMED` and constant stores are the writes that say which bits they may
    /// clear; any other write may clear every bit). A branch that found such bits set
    /// (`(state & CLOSED) != 0`) found their last value: set-only bits are one-way flags.
    pub bits: u32,
}

/// What the writes of one variable were seen to store: a bit per [`Konst`] case, and
/// [`OTHER`] for anything else (a computed value, an unknown use of the atomic).
const OTHER: u8 = 8;

fn konst_bit(k: Konst) -> u8 {
    match k {
        Konst::Null => 1,
        Konst::Zero => 2,
        Konst::NonZero => 4,
    }
}

fn one_konst(bits: u8) -> Option<Konst> {
    match bits {
        1 => Some(Konst::Null),
        2 => Some(Konst::Zero),
        4 => Some(Konst::NonZero),
        _ => None,
    }
}

/// The constant `Boolean.TRUE` or `Boolean.FALSE` a static field read gives, as a branch on
/// the unboxed value sees it.
pub fn boolean_constant(class: &str, name: &str) -> Option<Konst> {
    match (class, name) {
        ("java/lang/Boolean", "TRUE") => Some(Konst::NonZero),
        ("java/lang/Boolean", "FALSE") => Some(Konst::Zero),
        _ => None,
    }
}

/// The constant instruction `at` pushes: a [`Op::Flag`], or `Boolean.TRUE`/`FALSE`.
pub(crate) fn konst_at(c: &Class, code: &crate::bytecode::Code, at: usize) -> Option<Konst> {
    match code.insns.get(at)?.op {
        Op::Flag(k) => Some(k),
        Op::GetStatic(r) => {
            let m = c.member(r);
            boolean_constant(&m.class, &m.name)
        }
        _ => None,
    }
}

/// Whether the store at `at` stores an object constructed right before it (`this.f = new
/// AtomicBoolean()`: the instruction before is its constructor call).
fn just_constructed(c: &Class, code: &crate::bytecode::Code, at: usize) -> bool {
    at.checked_sub(1).is_some_and(|b| {
        matches!(code.insns[b].op, Op::Invoke(InvokeKind::Special, r)
            if &*c.member(r).name == "<init>")
    })
}

/// The one-way fields of the program, by field id ([`OneWay`]).
///
/// A field counts when code outside the program cannot write it (neither `public` nor
/// `protected`), its class does not reach fields by name (`reflective` in the platform model:
/// a field updater, a `VarHandle`), and every write of it outside its class's construction
/// stores one constant pushed right before it (`aconst_null`, `iconst_1`, `Boolean.TRUE`),
/// on a path no branch joins. The value of the atomic it holds (`scalar` in the platform
/// model) counts when every use of the field is a call on it: reads, and `scalar-set`s of
/// one such constant, with only simple pushes (constants, locals) between the field read and
/// the call; and the field itself is set only at construction, to a new atomic.
pub fn one_way_fields(p: &crate::program::Program) -> Vec<OneWay> {
    let facts = &p.fields;
    let ts = &p.thread_safe;
    // Per class: (field id, of the atomic's value, what a write stores), and (field id, the
    // bits a write of an `int` field may clear).
    type Seen = (Vec<(u32, bool, u8)>, Vec<(u32, u32)>);
    let seen: Vec<Seen> = p
        .par_classes()
        .enumerate()
        .map(|(class, c)| {
            let class = class as u32;
            let init = p.init_only(class);
            let mut out = Vec::new();
            let mut clears = Vec::new();
            for (mi, m) in c.methods.iter().enumerate() {
                let Some(code) = &m.code else { continue };
                // Where a block starts: another path may join there.
                let mut leaders: Option<Vec<bool>> = None;
                let mut jumped = |at: usize| {
                    leaders
                        .get_or_insert_with(|| crate::bytecode::cfg::leaders(code))
                        .get(at)
                        .copied()
                        .unwrap_or(true)
                };
                for (at, insn) in code.insns.iter().enumerate() {
                    let (r, put) = match insn.op {
                        Op::PutField(r) | Op::PutStatic(r) => (r, true),
                        Op::GetField(r) | Op::GetStatic(r) => (r, false),
                        _ => continue,
                    };
                    let fr = c.member(r);
                    let Some((ci, fi)) = p.field_ref(class, r) else {
                        continue;
                    };
                    let id = facts.id(ci, fi);
                    let constructing = init[mi] && *fr.class == *c.name;
                    if put {
                        if !constructing && &*fr.desc == "I" {
                            let joins = (at.saturating_sub(3)..=at).any(&mut jumped);
                            let same = |k: usize| {
                                matches!(code.insns.get(k).map(|i| &i.op),
                                    Some(&(Op::GetField(g) | Op::GetStatic(g)))
                                        if p.field_ref(class, g) == Some((ci, fi)))
                            };
                            clears.push((id, cleared_bits(code, at, joins, same)));
                        }
                        // The field itself: a constant, or anything else.
                        if !constructing {
                            let k = at
                                .checked_sub(1)
                                .filter(|_| !jumped(at))
                                .and_then(|b| konst_at(c, code, b));
                            out.push((id, false, k.map_or(OTHER, konst_bit)));
                        }
                        // The atomic it holds: replaced only by a new one at construction.
                        let fresh = just_constructed(c, code, at);
                        if !(constructing && fresh) {
                            out.push((id, true, OTHER));
                        }
                        continue;
                    }
                    if !fr.desc.starts_with('L') {
                        continue;
                    }
                    // A read of the field (in a constructor too: the atomic may escape there):
                    // the atomic's value is read or set by a call on it, its arguments pushed by
                    // the instructions in between, or the atomic goes where we do not follow it.
                    let simple = |k: usize| {
                        matches!(
                            code.insns[k].op,
                            Op::Flag(_) | Op::Const(1) | Op::Load(_, 1)
                        ) || konst_at(c, code, k).is_some()
                    };
                    let mut k = at + 1;
                    while k < code.insns.len() && k - at <= 3 && simple(k) {
                        k += 1;
                    }
                    let stored = match code.insns.get(k).map(|i| &i.op) {
                        Some(&Op::Invoke(kind, mr))
                            if kind != InvokeKind::Static && !(at + 1..=k).any(&mut jumped) =>
                        {
                            let mr = c.member(mr);
                            let args = k - at - 1;
                            if !ts.is_scalar(&mr.class) || mr.arg_slots as usize != args {
                                OTHER
                            } else if ts.is_scalar_set(&mr.name) && args > 0 {
                                konst_at(c, code, k - 1).map_or(OTHER, konst_bit)
                            } else if args == 0 && ts.state_access(&mr.name) & STATE_WRITE == 0 {
                                0
                            } else {
                                OTHER
                            }
                        }
                        _ => OTHER,
                    };
                    if stored != 0 {
                        out.push((id, true, stored));
                    }
                }
            }
            (out, clears)
        })
        .collect();
    let mut bits = vec![(0u8, 0u8); facts.owner.len()];
    let mut cleared = vec![0u32; facts.owner.len()];
    for (stores, clears) in seen {
        for (id, state, b) in stores {
            let e = &mut bits[id as usize];
            if state {
                e.1 |= b;
            } else {
                e.0 |= b;
            }
        }
        for (id, c) in clears {
            cleared[id as usize] |= c;
        }
    }
    // Classes whose fields code reaches by name.
    let reflective: FxHashSet<&str> = p
        .par_classes()
        .filter(|c| {
            c.methods
                .iter()
                .flat_map(|m| m.code.iter().flat_map(|code| &code.insns))
                .any(|i| match i.op {
                    Op::Invoke(_, r) => {
                        let m = c.member(r);
                        ts.is_reflective(&m.class, &m.name)
                    }
                    _ => false,
                })
        })
        .map(|c| crate::program::nest(&c.name))
        .collect();
    facts
        .owner
        .iter()
        .zip(bits)
        .zip(cleared)
        .map(|((&(ci, fi), (field, state)), cleared)| {
            let c = &p.classes[ci as usize];
            let f = &c.fields[fi as usize];
            let hidden = f.access & (acc::PUBLIC | acc::PROTECTED) == 0;
            if !hidden || reflective.contains(crate::program::nest(&c.name)) {
                return OneWay::default();
            }
            OneWay {
                field: one_konst(field),
                state: one_konst(state),
                bits: if &*f.desc == "I" { !cleared } else { 0 },
            }
        })
        .collect()
}

/// The bits the store of an `int` field at `at` may clear: none for `f |= x` (the field read
/// right before, of the same object: `aload_0; dup; getfield f; ..; ior; putfield f`, with `x`
/// a constant or a local), the bits outside `K` for `f &= K` and for `f = K` (constants), every
/// bit for anything else. `joins`: a path joins somewhere in the pattern (it is not one).
fn cleared_bits(code: &Code, at: usize, joins: bool, same: impl Fn(usize) -> bool) -> u32 {
    use crate::bytecode::BitFact;
    let fact = |k: usize| code.bit_fact(k as u32);
    if joins {
        return u32::MAX;
    }
    let before = |k: usize| at.checked_sub(k);
    match before(1).and_then(fact) {
        Some(BitFact::Int(k)) => !(k as u32),
        Some(op @ (BitFact::And | BitFact::Or)) => {
            let (Some(arg), Some(read)) = (before(2), before(3)) else {
                return u32::MAX;
            };
            // The object the field is read from is the one stored into: `dup` right before
            // an instance field's read, nothing for a static field's.
            let on_same = match code.insns[read].op {
                Op::GetField(_) => read > 0 && matches!(code.insns[read - 1].op, Op::Dup),
                _ => true,
            };
            if !same(read) || !on_same {
                return u32::MAX;
            }
            match (op, fact(arg), &code.insns[arg].op) {
                (BitFact::Or, Some(BitFact::Int(_)), _) | (BitFact::Or, _, Op::Load(_, 1)) => 0,
                (BitFact::And, Some(BitFact::Int(k)), _) => !(k as u32),
                _ => u32::MAX,
            }
        }
        None => u32::MAX,
    }
}
