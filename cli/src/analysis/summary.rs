//! Method summaries for calls: does the callee (transitively) enter an atomic region, may its
//! result come from shared state, and which single lock does it take (so that a caller
//! already holding that lock re-enters instead of opening a new region).
//!
//! Computed once for every method with code (scanned and `--classpath`): direct facts from one
//! linear pass over the instructions (in parallel), then a fixpoint over the call graph.
//! Abstract and interface methods take the union of their (at most 16) implementations.

use std::collections::HashSet;

use rayon::prelude::*;

use super::engine::{self, Analysis, RegionEvent, StepCx, StepKind};
use super::locks::{self, CallEffect, OwnLock, Returns};
use crate::bytecode::{acc, Cond, Op};
use crate::fxhash::FxHashSet;
use crate::program::{MethodId, Program};

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// The method (or a callee, transitively) enters an atomic region.
    pub locks: bool,
    /// Its result may be read from the heap (a field, an array element, an unknown callee).
    pub reads_heap: bool,
    /// It (or a callee, transitively) writes shared state: a field or array store, or a call
    /// that writes the state of a thread-safe object. Its result is then the outcome of its own
    /// update, not a snapshot ([`super::locks::Returns::Owned`]).
    pub writes_heap: bool,
    /// The one lock it takes for its whole body, when nameable from the call site.
    pub own_lock: Option<OwnLock>,
    /// It returns a value read inside an atomic region (its own, or a callee's).
    pub returns_shared: bool,
    /// Every value it returns is an object it allocated (or a constant): a factory. No other
    /// thread can see the result yet ([`super::locks::Returns::Fresh`]).
    pub returns_fresh: bool,
    /// Every value it returns is computed from a clock reading (`Time.now()`):
    /// [`super::locks::Returns::Clock`].
    pub returns_clock: bool,
    /// Every value it returns is its receiver (`return this;`): a fluent method (a builder's
    /// `append`, a `setX` that returns the object). Its result is the object it was called on.
    pub returns_this: bool,
    /// It is a lock helper: it only takes, or only releases, one lock its caller can name.
    pub lock_helper: Option<locks::LockHelper>,
}

struct Direct {
    summary: Summary,
    callees: Vec<MethodId>,
}

/// Reverse call edges: `callers[c][m]` are the methods that call method `m` of class `c`.
pub type Callers = Vec<Vec<Vec<MethodId>>>;

/// Summaries for every method of every class, indexed like `program.classes[c].methods[m]`,
/// and the reverse call graph they were propagated over.
pub fn compute(p: &Program) -> (Vec<Vec<Summary>>, Callers) {
    let direct: Vec<Vec<Direct>> = p
        .par_classes()
        .enumerate()
        .map(|(ci, c)| {
            (0..c.methods.len())
                .map(|mi| {
                    direct_facts(
                        p,
                        MethodId {
                            class: ci as u32,
                            method: mi as u32,
                        },
                    )
                })
                .collect()
        })
        .collect();
    // Reverse call edges, then propagate `locks` and `reads_heap` from callees to callers.
    let mut callers: Vec<Vec<Vec<MethodId>>> =
        direct.iter().map(|c| vec![Vec::new(); c.len()]).collect();
    for (ci, c) in direct.iter().enumerate() {
        for (mi, d) in c.iter().enumerate() {
            for callee in &d.callees {
                callers[callee.class as usize][callee.method as usize].push(MethodId {
                    class: ci as u32,
                    method: mi as u32,
                });
            }
        }
    }
    let mut out: Vec<Vec<Summary>> = direct
        .into_iter()
        .map(|c| c.into_iter().map(|d| d.summary).collect())
        .collect();
    let mut work: Vec<MethodId> = Vec::new();
    for (ci, c) in out.iter().enumerate() {
        for (mi, s) in c.iter().enumerate() {
            if s.locks || s.reads_heap || s.writes_heap {
                work.push(MethodId {
                    class: ci as u32,
                    method: mi as u32,
                });
            }
        }
    }
    while let Some(m) = work.pop() {
        let s = out[m.class as usize][m.method as usize].clone();
        for &caller in &callers[m.class as usize][m.method as usize] {
            let cs = &mut out[caller.class as usize][caller.method as usize];
            let mut changed = false;
            if s.locks && !cs.locks {
                cs.locks = true;
                changed = true;
            }
            if s.reads_heap && !cs.reads_heap {
                cs.reads_heap = true;
                changed = true;
            }
            if s.writes_heap && !cs.writes_heap {
                cs.writes_heap = true;
                changed = true;
            }
            if changed {
                work.push(caller);
            }
        }
    }
    (out, callers)
}

fn direct_facts(p: &Program, id: MethodId) -> Direct {
    let class = p.class(id.class);
    let m = p.method(id);
    let atomic = m.has_annotation_named(&p.config.atomic_annotations);
    let mut s = Summary {
        locks: atomic || m.is_synchronized(),
        reads_heap: m.access & acc::NATIVE != 0,
        writes_heap: false,
        returns_shared: false,
        returns_fresh: false,
        returns_clock: false,
        returns_this: false,
        own_lock: direct_own_lock(p, id),
        lock_helper: None,
    };
    let mut callees = Vec::new();
    let Some(code) = &m.code else {
        if m.access & acc::ABSTRACT != 0 {
            callees = p
                .implementations(id, crate::program::MAX_IMPLEMENTATIONS)
                .unwrap_or_default();
            // An abstract method takes the lock of its implementations only if they all agree.
            let owns: HashSet<Option<OwnLock>> =
                callees.iter().map(|&c| direct_own_lock(p, c)).collect();
            if owns.len() == 1 {
                s.own_lock = owns.into_iter().next().flatten();
            }
        }
        return Direct {
            summary: s,
            callees,
        };
    };
    s.returns_this = returns_this(m, code);
    let constructor = &*m.name == "<init>";
    let mut extra_locking = false;
    for insn in &code.insns {
        match &insn.op {
            Op::GetField(r) | Op::GetStatic(r) => {
                s.reads_heap |= !p.is_stable_field(id.class, *r);
            }
            Op::ArrayLoad(_) | Op::ArrayLength => s.reads_heap = true,
            Op::PutField(_) | Op::PutStatic(_) | Op::ArrayStore(_) => {
                // A constructor's stores build the object under construction.
                s.writes_heap |= !constructor;
            }
            Op::MonitorEnter => {
                s.locks = true;
                extra_locking = true;
            }
            Op::Invoke(kind, ri) => {
                let r = class.member(*ri);
                if locks::call_locks_directly(p, r, *kind) {
                    s.locks = true;
                    extra_locking = true;
                    s.writes_heap |= p.thread_safe.state_access(&r.name) & locks::STATE_WRITE != 0;
                }
                // A constructor locks only the object under construction, which no other thread
                // can see yet (`Throwable`'s constructors call the synchronized
                // `fillInStackTrace()`): not a region for the caller.
                if &*r.name == "<init>" {
                    continue;
                }
                match p.resolved(id.class, *ri) {
                    Some(t) => callees.push(t),
                    None => {
                        s.reads_heap |= locks::unknown_reads_heap(&p.thread_safe, &r.class, *kind);
                        // I/O changes the state of what it reads or writes: its result is the
                        // outcome of this thread's own operation.
                        s.writes_heap |= *kind != crate::bytecode::InvokeKind::Static
                            && crate::analysis::sharing::is_io(&r.class);
                    }
                }
            }
            _ => {}
        }
    }
    if extra_locking && s.own_lock != Some(OwnLock::Atomic) {
        s.own_lock = None;
    }
    callees.sort_unstable();
    callees.dedup();
    Direct {
        summary: s,
        callees,
    }
}

/// The lock a method holds for its whole body (`@Atomic` or `synchronized`), as seen from a
/// call site.
fn direct_own_lock(p: &Program, id: MethodId) -> Option<OwnLock> {
    let m = p.method(id);
    if m.has_annotation_named(&p.config.atomic_annotations) {
        Some(OwnLock::Atomic)
    } else if m.is_synchronized() {
        Some(if m.is_static() {
            OwnLock::Class
        } else {
            OwnLock::Receiver
        })
    } else {
        None
    }
}

/// Fields assigned a thread-safe object: `f = Collections.synchronizedMap(..)` or
/// `f = new ConcurrentHashMap<>()` (the call right before the store, as javac emits it), or a
/// wrapper of a new one (`f = Collections.newSetFromMap(new ConcurrentHashMap<>())`: `wrap` in
/// the platform model), and whether that object is a new legacy collection (`f = new
/// Vector<>()`: `legacy` in the platform model).
pub fn thread_safe_fields(p: &Program) -> HashSet<(Box<str>, Box<str>, bool)> {
    p.par_classes()
        .flat_map_iter(|c| {
            let mut found = Vec::new();
            for m in &c.methods {
                let Some(code) = &m.code else { continue };
                for (i, w) in code.insns.windows(2).enumerate() {
                    let (Op::PutField(f) | Op::PutStatic(f)) = &w[1].op else {
                        continue;
                    };
                    let Op::Invoke(_, r) = &w[0].op else { continue };
                    let r = c.member(*r);
                    let new = &*r.name == "<init>";
                    // The wrapped object constructed right before the wrapper's call.
                    let wraps_new = || {
                        p.thread_safe.is_wrapper(&r.class, &r.name)
                            && i.checked_sub(1)
                                .and_then(|k| code.insns.get(k))
                                .is_some_and(|insn| match insn.op {
                                    Op::Invoke(crate::bytecode::InvokeKind::Special, a) => {
                                        let a = c.member(a);
                                        &*a.name == "<init>" && p.thread_safe.is_class(&a.class)
                                    }
                                    _ => false,
                                })
                    };
                    let thread_safe = p.thread_safe.is_factory(&r.class, &r.name)
                        || (new && p.thread_safe.is_class(&r.class))
                        || wraps_new();
                    if thread_safe {
                        let f = c.member(*f);
                        let legacy = new && p.thread_safe.is_legacy(&r.class);
                        found.push((Box::from(&*f.class), Box::from(&*f.name), legacy));
                    }
                }
            }
            found
        })
        .collect()
}

/// Most rounds of the `returns_shared` fixpoint; each round can only add methods, and call
/// chains of shared returns deeper than this are rare.
const RETURN_ROUNDS: usize = 4;

/// Compute `returns_shared` for every method that takes a lock (transitively) and returns a
/// value: run [`ReturnsShared`] over them, in rounds, until no summary changes. Abstract methods
/// take the union of their implementations.
pub fn compute_returns(p: &mut Program, callers: &Callers) {
    let t_start = std::time::Instant::now();
    let prog: &Program = p;
    let candidates: Vec<MethodId> = methods_where(prog, |_, m| {
        m.code.is_some() && !m.descriptor.ends_with(")V")
    })
    .into_iter()
    .filter(|&id| prog.summary(id).locks)
    .collect();
    let abstracts: Vec<(MethodId, Vec<MethodId>)> =
        methods_where(prog, |_, m| m.access & acc::ABSTRACT != 0)
            .into_par_iter()
            .filter(|&id| prog.summary(id).locks)
            .map(|id| {
                let impls = prog.implementations(id, crate::program::MAX_IMPLEMENTATIONS);
                (id, impls.unwrap_or_default())
            })
            .collect();
    let t_setup = t_start.elapsed();
    // Round one looks at every candidate; later rounds only at the callers of methods that
    // changed in the round before (nothing else can change).
    let is_candidate: FxHashSet<MethodId> = candidates.iter().copied().collect();
    // Round one: a method without a region of its own returns nothing shared yet (every
    // `returns_shared` is still false); it is looked at again when a callee changes.
    let prog: &Program = p;
    let mut todo: Vec<MethodId> = candidates
        .into_par_iter()
        .filter(|&id| {
            let class = prog.class(id.class);
            locks::has_own_region(&locks::Caller {
                program: prog,
                class_id: id.class,
                class,
                method: prog.method(id),
            })
        })
        .collect();
    for _ in 0..RETURN_ROUNDS {
        let prog: &Program = p;
        let mut changed: Vec<MethodId> = todo
            .par_iter()
            .with_max_len(crate::PAR_CHUNK)
            .filter(|&&id| !prog.summary(id).returns_shared && returns_shared(prog, id))
            .copied()
            .collect();
        for &id in &changed {
            p.summary_mut(id).returns_shared = true;
        }
        for (id, impls) in &abstracts {
            if !p.summary(*id).returns_shared && impls.iter().any(|&i| p.summary(i).returns_shared)
            {
                p.summary_mut(*id).returns_shared = true;
                changed.push(*id);
            }
        }
        let mut next: Vec<MethodId> = changed
            .iter()
            .flat_map(|m| callers[m.class as usize][m.method as usize].iter().copied())
            .filter(|c| is_candidate.contains(c) && !p.summary(*c).returns_shared)
            .collect();
        next.sort_unstable();
        next.dedup();
        if next.is_empty() {
            break;
        }
        todo = next;
    }
    p.profile.push(format!(
        "summaries: returns setup {t_setup:?}, rounds {:?}",
        t_start.elapsed() - t_setup
    ));
}

fn returns_shared(p: &Program, id: MethodId) -> bool {
    let mut a = ReturnsShared::default();
    // A method the engine cannot analyse is assumed to return shared state (sound).
    engine::run_method(p, id, false, &mut a)
        .map(|_| a.returns)
        .unwrap_or(true)
}

/// Whether a method can return a value read inside an atomic region: values are `true` when
/// read from the heap inside a region, returned shared by a region call, or computed from such
/// values (block-local atomicity's sharing, without the blocks).
#[derive(Default)]
struct ReturnsShared {
    returns: bool,
}

impl Analysis for ReturnsShared {
    type V = bool;

    fn join(&self, a: &bool, b: &bool, _region: Option<u32>) -> bool {
        *a || *b
    }

    fn transfer(&mut self, cx: &StepCx, inputs: &mut [bool]) -> bool {
        let any = inputs.iter().any(|&v| v);
        match cx.kind {
            StepKind::HeapRead => cx.region.is_some(),
            StepKind::Compute | StepKind::Iinc | StepKind::StableRead => any,
            StepKind::Call(CallEffect::Region { returns, .. }) => returns == Returns::Shared || any,
            StepKind::Call(CallEffect::Plain { returns }) => {
                (returns == Returns::Shared && cx.region.is_some()) || any
            }
            StepKind::Return => {
                self.returns |= any;
                false
            }
            _ => false,
        }
    }

    fn region(&mut self, _ev: RegionEvent, _v: &mut bool) {}
}

/// Whether an instance method that returns an object returns its receiver on every path:
/// each `areturn` right after `aload_0` (a `checkcast` between, for a generic `(T) this`), and
/// local 0 never assigned.
fn returns_this(m: &crate::bytecode::Method, code: &crate::bytecode::Code) -> bool {
    if m.is_static() || !m.descriptor.ends_with(';') {
        return false;
    }
    let this_before = |end: usize| match end.checked_sub(1).map(|k| &code.insns[k].op) {
        Some(Op::Load(0, 1)) => true,
        Some(Op::CheckCast) => end >= 2 && matches!(code.insns[end - 2].op, Op::Load(0, 1)),
        _ => false,
    };
    let mut returns = 0;
    for (j, insn) in code.insns.iter().enumerate() {
        match insn.op {
            Op::Store(0, _) => return false,
            Op::Return(1) => {
                if !this_before(j) {
                    return false;
                }
                returns += 1;
            }
            _ => {}
        }
    }
    returns > 0
}

/// The methods of the program that `keep` accepts, from a parallel pass over its classes.
fn methods_where(
    p: &Program,
    keep: impl Fn(&crate::bytecode::Class, &crate::bytecode::Method) -> bool + Sync,
) -> Vec<MethodId> {
    (p.par_classes().enumerate())
        .flat_map_iter(|(ci, c)| {
            let keep = &keep;
            (c.methods.iter().enumerate())
                .filter(move |(_, m)| keep(c, m))
                .map(move |(mi, _)| MethodId {
                    class: ci as u32,
                    method: mi as u32,
                })
        })
        .collect()
}

/// The methods whose summary gets `returns_fresh` (and how many methods were looked at): among
/// those that return an object and allocate one, a factory returns, on every path, an object
/// allocated here, a constant, or the result of another factory. In rounds, so that factories
/// calling factories are found. Read off the program without changing it: the entry locks are
/// computed beside it.
pub fn fresh_factories(p: &Program, callers: &Callers) -> (usize, Vec<MethodId>) {
    // `...)Lx;`, `...)[I`, `...)[[J`: an object or an array (a return type never holds a `)`).
    let returns_object = |m: &crate::bytecode::Method| {
        let d = m.descriptor.as_bytes();
        d.ends_with(b";") || (d.iter().rev().take_while(|&&b| b != b')')).any(|&b| b == b'[')
    };
    // Round one: the methods that return an object and allocate one; later rounds: their
    // callers that return an object (a factory calling a factory).
    let mut todo: Vec<MethodId> = methods_where(p, |c, m| {
        let Some(code) = m.code.as_ref() else {
            return false;
        };
        // The cheap test first: many methods return no object.
        returns_object(m)
            && code.insns.iter().any(|i| match i.op {
                Op::New(_) | Op::NewArray(_) => true,
                Op::Invoke(kind, r) => {
                    let mr = c.member(r);
                    crate::analysis::locks::is_platform_copy(
                        &mr.name,
                        &mr.desc,
                        kind != crate::bytecode::InvokeKind::Static,
                    )
                }
                _ => false,
            })
    });
    let mut looked = 0;
    // The factories found so far (each method's summary says none yet).
    let mut fresh: FxHashSet<MethodId> = FxHashSet::default();
    for _ in 0..RETURN_ROUNDS {
        looked += todo.len();
        let known = &fresh;
        let found: Vec<MethodId> = todo
            .par_iter()
            .with_max_len(crate::PAR_CHUNK)
            .copied()
            .filter(|&id| returns_fresh(p, id, known))
            .collect();
        if found.is_empty() {
            break;
        }
        fresh.extend(found.iter().copied());
        todo = found
            .iter()
            .flat_map(|m| callers[m.class as usize][m.method as usize].iter().copied())
            .filter(|&c| {
                !fresh.contains(&c) && p.method(c).code.is_some() && returns_object(p.method(c))
            })
            .collect();
        todo.sort_unstable();
        todo.dedup();
    }
    let mut found: Vec<MethodId> = fresh.into_iter().collect();
    found.sort_unstable();
    (looked, found)
}

/// Whether every `areturn` of a method returns an object allocated here, a constant, or the
/// result of a factory found before. Read off the code as compilers emit it (`new X; dup; ...;
/// invokespecial X.<init>` leaves the new object on the stack), with a local followed back to
/// its stores; no dataflow.
fn returns_fresh(p: &Program, id: MethodId, known: &FxHashSet<MethodId>) -> bool {
    let c = p.class(id.class);
    let Some(code) = &p.method(id).code else {
        return false;
    };
    let mut returns = 0;
    // Built only when a local is followed back to its stores.
    let cfg = std::cell::OnceCell::new();
    for (j, i) in code.insns.iter().enumerate() {
        if matches!(i.op, Op::Return(1)) {
            returns += 1;
            if !fresh_before(p, known, (id, c), (code, &cfg), j, 2) {
                return false;
            }
        }
    }
    returns > 0
}

/// Whether what the instructions before `end` leave on top of the stack is fresh (see
/// [`returns_fresh`]); `depth` bounds how far locals are followed.
fn fresh_before(
    p: &Program,
    known: &FxHashSet<MethodId>,
    (id, c): (MethodId, &crate::bytecode::Class),
    (code, cfg): (
        &crate::bytecode::Code,
        &std::cell::OnceCell<crate::bytecode::cfg::Cfg>,
    ),
    end: usize,
    depth: u32,
) -> bool {
    let Some(prev) = end.checked_sub(1).and_then(|k| code.insns.get(k)) else {
        return false;
    };
    match prev.op {
        Op::Const(_) | Op::Flag(_) | Op::NewArray(_) => true,
        Op::CheckCast => fresh_before(p, known, (id, c), (code, cfg), end - 1, depth),
        Op::Invoke(kind, r) => {
            &*c.member(r).name == "<init>"
                || p.resolved(id.class, r).is_some_and(|t| known.contains(&t))
                || crate::analysis::locks::calls_platform_copy(p, (id.class, c), kind, r)
        }
        // The stores that can reach the load (not a `catch` block's exception reusing the
        // slot).
        // (A fresh store needs no look at the control flow: whether it reaches the load or not,
        // it leaves the load fresh.)
        Op::Load(k, 1) if depth > 0 => code.insns.iter().enumerate().all(|(j, i)| match i.op {
            Op::Store(s, 1) if s == k => {
                fresh_before(p, known, (id, c), (code, cfg), j, depth - 1)
                    || !cfg
                        .get_or_init(|| crate::bytecode::cfg::Cfg::build(code))
                        .can_follow(j as u32, end as u32 - 1)
            }
            _ => true,
        }),
        _ => false,
    }
}

/// Compute `returns_clock` for the methods that return a number computed from a clock reading on
/// every path (`currentElapsedTime() { return System.nanoTime() / 1000000; }`), in rounds so that
/// wrappers of wrappers are found.
pub fn compute_clocks(p: &mut Program, callers: &Callers) {
    let number = |m: &crate::bytecode::Method| {
        matches!(m.descriptor.as_bytes(), [.., b')', b'J' | b'I' | b'D'])
    };
    // Round one: the methods that call a clock of the platform; later rounds: the callers of
    // those found.
    let prog: &Program = p;
    let mut todo: Vec<MethodId> = methods_where(prog, |c, m| {
        // The cheap test first: most methods return no number.
        number(m)
            && (m.code.iter().flat_map(|code| &code.insns)).any(|i| match i.op {
                Op::Invoke(_, r) => {
                    let mr = c.member(r);
                    prog.thread_safe.is_clock(&mr.class, &mr.name)
                }
                _ => false,
            })
    });
    for _ in 0..RETURN_ROUNDS {
        let prog: &Program = p;
        let found: Vec<MethodId> = todo
            .par_iter()
            .with_max_len(crate::PAR_CHUNK)
            .copied()
            .filter(|&id| returns_clock(prog, id))
            .collect();
        if found.is_empty() {
            break;
        }
        for &id in &found {
            p.summary_mut(id).returns_clock = true;
        }
        let prog: &Program = p;
        todo = found
            .iter()
            .flat_map(|m| callers[m.class as usize][m.method as usize].iter().copied())
            .filter(|&c| {
                !prog.summary(c).returns_clock
                    && prog.method(c).code.is_some()
                    && number(prog.method(c))
            })
            .collect();
        todo.sort_unstable();
        todo.dedup();
    }
}

fn returns_clock(p: &Program, id: MethodId) -> bool {
    let mut a = ClockReturns {
        all: true,
        any: false,
    };
    engine::run_method(p, id, false, &mut a).is_ok() && a.all && a.any
}

/// Whether every value a method returns is computed from a clock reading.
struct ClockReturns {
    all: bool,
    any: bool,
}

impl Analysis for ClockReturns {
    type V = bool;

    fn join(&self, a: &bool, b: &bool, _region: Option<u32>) -> bool {
        *a && *b
    }

    fn transfer(&mut self, cx: &StepCx, inputs: &mut [bool]) -> bool {
        match cx.kind {
            StepKind::Call(CallEffect::Plain {
                returns: Returns::Clock,
            }) => true,
            StepKind::Compute | StepKind::Iinc => inputs.iter().any(|&v| v),
            StepKind::Return => {
                let clock = inputs.iter().any(|&v| v);
                self.all &= clock;
                self.any |= clock;
                false
            }
            _ => false,
        }
    }

    fn region(&mut self, _ev: RegionEvent, _v: &mut bool) {}
}

/// Find the lock helpers ([`locks::LockHelper`]): methods whose only lock operations are
/// `lock()` calls (or only `unlock()` calls) on one lock of their receiver's, a field of it or a
/// static field. No `synchronized`, no `tryLock`, no `wait`, no callee that locks or unlocks,
/// and no branch but a null test of a field (a lock that is optional by configuration): a
/// helper whose lock depends on the state of the program is no helper. Returns how many were
/// found.
pub fn compute_lock_helpers(p: &mut Program) -> usize {
    let prog = &*p;
    let found: Vec<(MethodId, locks::LockHelper)> = prog
        .par_classes()
        .enumerate()
        .flat_map_iter(|(ci, c)| {
            (0..c.methods.len()).filter_map(move |mi| {
                let id = MethodId {
                    class: ci as u32,
                    method: mi as u32,
                };
                Some((id, lock_helper(prog, id)?))
            })
        })
        .collect();
    for &(id, h) in &found {
        p.summary_mut(id).lock_helper = Some(h);
    }
    found.len()
}

/// Whether method `id` is a lock helper, and of which lock (see [`compute_lock_helpers`]).
fn lock_helper(prog: &Program, id: MethodId) -> Option<locks::LockHelper> {
    use crate::bytecode::InvokeKind;
    let (c, m) = (prog.class(id.class), prog.method(id));
    let code = m.code.as_ref()?;
    if m.is_synchronized() || matches!(&*m.name, "<init>" | "<clinit>") {
        return None;
    }
    // The cheap test first: most methods have no lock operation at all (and the look below asks
    // each callee whether it releases a lock).
    let flags = !prog.fields.flags.fields.is_empty();
    let any_op = code.insns.iter().enumerate().any(|(at, i)| match i.op {
        Op::Invoke(kind, r) => {
            let mr = c.member(r);
            (kind != InvokeKind::Static && prog.thread_safe.lock_op(&mr.class, &mr.name).is_some())
                || (flags && super::sharing::flag_op(c, code, at).is_some())
        }
        _ => false,
    });
    if !any_op {
        return None;
    }
    // The lock operations: all `lock()` or all `unlock()`. The only branches test a field for
    // null (a lock that is optional by configuration); no callee takes or releases a lock.
    let (mut ops, mut takes, mut releases) = (Vec::new(), false, false);
    // A take of a flag lock whose outcome the helper returns: `return busy.compareAndSet(false,
    // true);` is a `tryLock()`.
    let mut tries = false;
    for (at, i) in code.insns.iter().enumerate() {
        match i.op {
            Op::MonitorEnter | Op::MonitorExit | Op::Switch(_) | Op::Jsr(_) => return None,
            Op::If { cond, .. } => {
                let prev = at.checked_sub(1).map(|k| &code.insns[k].op);
                let field_test = matches!(cond, Cond::Null | Cond::NonNull)
                    && matches!(prev, Some(Op::GetField(_) | Op::GetStatic(_)));
                // A release only where this thread holds the lock (`if
                // (isHeldByCurrentThread()) lock.unlock();`): the state of the lock itself.
                let held_test = matches!(cond, Cond::Zero | Cond::NonZero)
                    && matches!(prev, Some(&Op::Invoke(_, r)) if prog.thread_safe.is_held_query(&c.member(r).name));
                if !field_test && !held_test {
                    return None;
                }
            }
            Op::Invoke(kind, r) => {
                let mr = c.member(r);
                let flag = (!prog.fields.flags.fields.is_empty())
                    .then(|| super::sharing::flag_op(c, code, at))
                    .flatten()
                    .filter(|_| flag_receiver(prog, id.class, code, at));
                match flag {
                    Some(super::sharing::FlagOp::Acquire) => {
                        if !matches!(code.insns.get(at + 1).map(|i| &i.op), Some(Op::Return(1))) {
                            return None;
                        }
                        (takes, tries) = (true, true);
                        ops.push(at as u32);
                        continue;
                    }
                    Some(super::sharing::FlagOp::Release) => {
                        releases = true;
                        ops.push(at as u32);
                        continue;
                    }
                    Some(super::sharing::FlagOp::Read) | None => {}
                }
                let op = (kind != InvokeKind::Static)
                    .then(|| prog.thread_safe.lock_op(&mr.class, &mr.name))
                    .flatten();
                let Some(op) = op else {
                    if prog.thread_safe.is_held_query(&mr.name) {
                        continue;
                    }
                    if &*mr.name == "wait"
                        || prog.thread_safe.is_condition(&mr.class)
                        || prog
                            .resolved(id.class, r)
                            .is_some_and(|t| prog.summary(t).locks || unlocks(prog, t))
                    {
                        return None;
                    }
                    continue;
                };
                // A helper takes or gives back one whole lock (a stamped lock's stamp is the
                // caller's to keep: not a helper).
                match op {
                    locks::LockOp::Acquire(locks::Part::Whole) => takes = true,
                    locks::LockOp::Release(locks::Part::Whole) => releases = true,
                    _ => return None,
                }
                ops.push(at as u32);
            }
            _ => {}
        }
    }
    if ops.is_empty() || (takes && releases) {
        return None;
    }
    let mut o = LockOps {
        p: prog,
        id,
        ats: &ops,
        locks: Vec::new(),
    };
    engine::run_method(prog, id, false, &mut engine::Observing(&mut o)).ok()?;
    // Every operation reached, all on one lock.
    let first = o.locks.first()?.1;
    if o.locks.iter().any(|&(_, l)| l != first)
        || ops.iter().any(|at| !o.locks.iter().any(|(a, _)| a == at))
    {
        return None;
    }
    let lock = match first {
        locks::LockId::This if !m.is_static() => locks::HelperLock::Receiver,
        locks::LockId::Field(base @ (locks::Base::This | locks::Base::Static), r, part) => {
            let fr = c.member(r);
            let (owner, field) = prog.field_owner(&fr.class, &fr.name)?;
            locks::HelperLock::Field {
                owner,
                field,
                is_static: base == locks::Base::Static,
                part,
            }
        }
        _ => return None,
    };
    Some(locks::LockHelper {
        acquire: takes,
        tries,
        lock,
    })
}

/// Whether the call at `at` is made on a flag lock of the program read from a field right
/// before it (after the constants it takes): see [`super::sharing::flag_locks`].
fn flag_receiver(p: &Program, class: u32, code: &crate::bytecode::Code, at: usize) -> bool {
    let mut k = at;
    while k > 0 && matches!(code.insns[k - 1].op, Op::Flag(_)) {
        k -= 1;
    }
    matches!(k.checked_sub(1).map(|b| &code.insns[b].op),
        Some(&Op::GetField(r) | &Op::GetStatic(r)) if p.is_flag_lock(class, r))
}

/// Whether a method calls `unlock()` on a lock.
fn unlocks(p: &Program, id: MethodId) -> bool {
    let c = p.class(id.class);
    p.method(id)
        .code
        .iter()
        .flat_map(|code| &code.insns)
        .any(|i| {
            matches!(i.op, Op::Invoke(k, r) if k != crate::bytecode::InvokeKind::Static
            && matches!(p.thread_safe.lock_op(&c.member(r).class, &c.member(r).name),
                Some(locks::LockOp::Release(_))))
        })
}

/// The lock each `lock()`/`unlock()` call of a method operates on, by its receiver.
struct LockOps<'p, 'a> {
    p: &'p Program,
    id: MethodId,
    ats: &'a [u32],
    locks: Vec<(u32, locks::LockId)>,
}

impl engine::Observer for LockOps<'_, '_> {
    fn observe(&mut self, at: u32, frame: &engine::Frame<()>) {
        if !self.ats.contains(&at) {
            return;
        }
        if let Some(sym) = receiver_sym(self.p, self.id, at, frame) {
            self.locks.push((at, locks::LockId::of(sym, at)));
        }
    }
}

/// The operands of the call at `at` of method `id` on the frame's stack, one entry per slot
/// (the receiver first for an instance call, then the arguments), and whether it is an
/// instance call.
fn call_operands<'f>(
    p: &Program,
    id: MethodId,
    at: u32,
    frame: &'f engine::Frame<()>,
) -> Option<(bool, &'f [engine::Slot<()>])> {
    let code = p.method(id).code.as_ref()?;
    let Op::Invoke(kind, r) = code.insns.get(at as usize)?.op else {
        return None;
    };
    let instance = kind != crate::bytecode::InvokeKind::Static;
    let n = p.class(id.class).member(r).arg_slots as usize + usize::from(instance);
    let first = frame.stack.len().checked_sub(n)?;
    Some((instance, &frame.stack[first..]))
}

/// What the frame holds as the receiver of the instance call at `at` of method `id`.
pub(crate) fn receiver_sym(
    p: &Program,
    id: MethodId,
    at: u32,
    frame: &engine::Frame<()>,
) -> Option<locks::Sym> {
    match call_operands(p, id, at, frame)? {
        (true, operands) => operands.first().map(|s| s.sym),
        (false, _) => None,
    }
}

/// The locks every caller holds when it calls a method: a helper whose every caller holds the
/// lock runs with it held, so acquiring it again is re-entry and a value it reads and uses is
/// inside that one critical section.
///
/// Which methods: any with code, never captured as a lambda or method reference, that only
/// the calls naming it reach: not public (its callers are all in the program, or subclasses
/// extending it), or public and overriding nothing (no call through an interface or a
/// superclass, the JDK's or a user's, can reach it unseen; see [`overrides_nothing`]). A public
/// method that the program calls, always holding a lock, is one its library expects to be
/// called under external synchronization (its callers' consensus: `VectorClock.merge`, called
/// by the counter's merge under its write lock); one the program never calls, or calls once
/// without a lock, has no entry lock. A lock the callee cannot name (its caller's own monitor
/// around a call on another object, a field lock of another class) is held all the same, as
/// the one anonymous lock of its callers (`Site(CALLER_SITE)`).
///
/// The locks held at each call site come from one engine pass over the callers that take a lock
/// of their own; a caller's own entry locks count at its call sites too (a fixpoint over the
/// helpers, growing from none). A call made holding nothing (its caller takes no lock and has no
/// callers' lock) rules its callee out before any engine pass. Only the callees that the methods
/// taking a lock reach (directly, or through callees reached so) are looked at, and only their
/// call sites listed: no other method is ever called holding a lock.
pub fn compute_entry_locks(p: &Program, callers: &Callers) -> EntryLocks {
    use crate::bytecode::InvokeKind;
    use crate::fxhash::FxHashMap;
    use locks::{Base, LockId};
    use rayon::iter::Either;

    // Which methods may have an entry lock: any with code, never captured as a lambda or method
    // reference, that only the calls naming it reach (see above).
    let candidate = |id: MethodId| {
        let (c, m) = (p.class(id.class), p.method(id));
        let captured = || {
            (c.lambda_impls.iter().flatten())
                .any(|(cl, n, d)| **cl == *c.name && *n == m.name && *d == m.descriptor)
        };
        m.code.is_some()
            && !matches!(&*m.name, "<init>" | "<clinit>")
            && (!m.callable_outside(c) || overrides_nothing(p, c, m))
            && !captured()
    };
    // A virtual call to a method that is not public, or declared in a type that is not: the
    // calls that may dispatch to its overriders are all in the program, so each is a call site
    // of every overrider too (`insertInternal()` of an abstract store, `invoke()` of a
    // package-private functor interface).
    let hidden_virtual = |ci: usize, kind: InvokeKind, r: crate::bytecode::RefId| {
        if !matches!(kind, InvokeKind::Virtual | InvokeKind::Interface) {
            return None;
        }
        let t = p.resolved(ci as u32, r)?;
        let (m, c) = (p.method(t), p.class(t.class));
        let hidden = !m.callable_outside(c) || c.access & acc::PUBLIC == 0;
        let overridable = (m.access | c.access) & (acc::FINAL | acc::PRIVATE) == 0;
        (hidden && overridable).then_some(t)
    };
    let takes_locks = |id: MethodId| {
        let c = p.class(id.class);
        let m = p.method(id);
        locks::method_lock(p, c, m).is_some()
            || locks::takes_flag_lock(p, id)
            || m.code
                .iter()
                .flat_map(|code| &code.insns)
                .any(|i| match i.op {
                    Op::MonitorEnter => true,
                    Op::Invoke(kind, r) => {
                        let mr = c.member(r);
                        (kind != InvokeKind::Static
                            && (p.thread_safe.lock_op(&mr.class, &mr.name))
                                .is_some_and(locks::LockOp::takes))
                            || locks::calls_acquire_helper(p, id.class, r)
                    }
                    _ => false,
                })
    };
    // The methods that take a lock of their own: only their calls, and the calls of methods
    // they reach holding it, can be made holding a lock.
    let lock_taking: FxHashSet<MethodId> = p
        .par_classes()
        .enumerate()
        .flat_map_iter(|(ci, c)| {
            (0..c.methods.len() as u32)
                .map(move |mi| MethodId {
                    class: ci as u32,
                    method: mi,
                })
                .filter(|&id| p.summary(id).locks && takes_locks(id))
        })
        .collect();
    // A constructor, or a private instance method (which only constructors may call): its
    // calls on `this` may be made while the object is built (see `constructing` below).
    let may_construct = |c: MethodId| {
        let m = p.method(c);
        &*m.name == "<init>" || (!m.is_static() && m.access & acc::PRIVATE != 0)
    };
    // Whether each method is a candidate, found on first ask.
    let known: Vec<std::sync::atomic::AtomicU8> = (p.classes.iter())
        .flat_map(|c| c.methods.iter())
        .map(|_| std::sync::atomic::AtomicU8::new(0))
        .collect();
    let mut flat: Vec<usize> = Vec::with_capacity(p.classes.len() + 1);
    flat.push(0);
    for c in &p.classes {
        flat.push(flat[flat.len() - 1] + c.methods.len());
    }
    let is_candidate = |id: MethodId| {
        use std::sync::atomic::Ordering::Relaxed;
        let k = &known[flat[id.class as usize] + id.method as usize];
        match k.load(Relaxed) {
            1 => true,
            2 => false,
            _ => {
                let yes = candidate(id);
                k.store(if yes { 1 } else { 2 }, Relaxed);
                yes
            }
        }
    };
    // A callee that a method calls holding nothing (it takes no lock, constructs nothing, and
    // can have no entry lock of its own, not being a candidate) has no entry lock, and neither
    // does what only it reaches: the walk below does not go through it (the pruning further
    // down would drop it and them). Its callers as the summaries list them.
    let maybe_held = |t: MethodId| {
        callers[t.class as usize][t.method as usize]
            .iter()
            .all(|&c| {
                let m = p.method(c);
                m.code.is_none()
                    || &*m.name == "<clinit>"
                    || lock_taking.contains(&c)
                    || may_construct(c)
                    || is_candidate(c)
            })
    };
    // The overriders a call dispatched to `t` reaches (`None`: too many to list, see
    // `MAX_OVERRIDERS`), computed for the targets that are asked about.
    let mut overriders: FxHashMap<MethodId, Option<Vec<MethodId>>> = FxHashMap::default();
    let add_overriders = |targets: Vec<MethodId>, to: &mut FxHashMap<_, _>| {
        let new: Vec<MethodId> = (targets.into_iter())
            .filter(|t| !to.contains_key(t))
            .collect::<FxHashSet<_>>()
            .into_iter()
            .collect();
        let found: Vec<(MethodId, Option<Vec<MethodId>>)> = new
            .into_par_iter()
            .map(|t| (t, p.implementations(t, MAX_OVERRIDERS)))
            .collect();
        to.extend(found);
    };
    // The callees that may hold a lock at entry: the candidates a lock-taking method calls,
    // and (transitively) those such callees call. No other callee is ever called holding a
    // lock, so only their call sites are listed below.
    let mut interesting: FxHashSet<MethodId> = FxHashSet::default();
    let mut frontier: Vec<MethodId> = lock_taking.iter().copied().collect();
    // Each callee is looked at once: the first round that reaches it marks it, whether it is a
    // candidate or not (`candidate` depends on the method alone). A lock-taking method starts
    // the walk unmarked: reached as a callee, it is a candidate like any other.
    let base = &flat;
    let seen: Vec<std::sync::atomic::AtomicBool> = (0..base[base.len() - 1])
        .map(|_| std::sync::atomic::AtomicBool::new(false))
        .collect();
    let first_look = |t: MethodId| {
        !seen[base[t.class as usize] + t.method as usize]
            .swap(true, std::sync::atomic::Ordering::Relaxed)
    };
    while !frontier.is_empty() {
        let (mut next, dispatched): (Vec<MethodId>, Vec<MethodId>) = frontier
            .par_iter()
            .with_max_len(crate::PAR_CHUNK)
            .filter(|&&m| &*p.method(m).name != "<clinit>")
            .flat_map_iter(|&caller| {
                let insns = p.method(caller).code.iter().flat_map(|code| &code.insns);
                insns.flat_map(move |i| {
                    let Op::Invoke(kind, r) = i.op else {
                        return [None, None];
                    };
                    let ci = caller.class as usize;
                    [
                        (p.resolved(caller.class, r))
                            .filter(|&t| first_look(t) && is_candidate(t) && maybe_held(t))
                            .map(Either::Left),
                        hidden_virtual(ci, kind, r).map(Either::Right),
                    ]
                })
            })
            .flatten()
            .partition_map(|e| e);
        add_overriders(dispatched.clone(), &mut overriders);
        let over: FxHashSet<MethodId> = (dispatched.iter())
            .filter_map(|t| overriders.get(t).and_then(Option::as_ref))
            .flatten()
            .copied()
            .collect();
        next.extend(
            (over.into_iter()).filter(|&t| first_look(t) && is_candidate(t) && maybe_held(t)),
        );
        interesting.extend(next.iter().copied());
        frontier = next;
    }
    // A dispatched call can reach an interesting method only under its name and descriptor.
    let names: FxHashSet<(&str, &str)> = (interesting.iter())
        .map(|&m| (&*p.method(m).name, &*p.method(m).descriptor))
        .collect();

    // Every call site of an interesting callee: (caller, instruction, callee). A call made
    // while the object or class is being constructed (on `this` from a constructor or a private
    // method only constructors call, or from the class initializer) is no call another thread
    // can make at the same time: no other thread sees the object yet, and class initialization
    // is exclusive. It neither counts nor disqualifies.
    type Site = (MethodId, u32, MethodId);
    let (mut sites, dispatched): (Vec<Site>, Vec<Site>) = p
        .par_classes()
        .enumerate()
        .flat_map_iter(|(ci, c)| {
            // Direct calls (`Left`) and calls dispatched by a hidden virtual (`Right`).
            let mut out: Vec<Either<Site, Site>> = Vec::new();
            for (mi, m) in c.methods.iter().enumerate() {
                let Some(code) = &m.code else { continue };
                if &*m.name == "<clinit>" {
                    continue;
                }
                let caller = MethodId {
                    class: ci as u32,
                    method: mi as u32,
                };
                for (at, i) in code.insns.iter().enumerate() {
                    let Op::Invoke(kind, r) = i.op else { continue };
                    let Some(t) = p.resolved(ci as u32, r) else {
                        continue;
                    };
                    if interesting.contains(&t) {
                        out.push(Either::Left((caller, at as u32, t)));
                    }
                    let Some(t) = hidden_virtual(ci, kind, r) else {
                        continue;
                    };
                    let mr = c.member(r);
                    if names.contains(&(&*mr.name, &*mr.desc)) {
                        out.push(Either::Right((caller, at as u32, t)));
                    }
                }
            }
            out
        })
        .partition_map(|e| e);
    add_overriders(
        dispatched.iter().map(|&(_, _, t)| t).collect(),
        &mut overriders,
    );
    // Too many to list (a package-private method of a class with a wide hierarchy): its
    // overriders have call sites we do not list, so they get no entry lock.
    let open: FxHashSet<MethodId> = (dispatched.iter())
        .filter(|(_, _, t)| matches!(overriders.get(t), Some(None)))
        .map(|&(_, _, t)| t)
        .collect();
    let through: Vec<Site> = dispatched
        .par_iter()
        .with_max_len(crate::PAR_CHUNK)
        .flat_map_iter(|&(caller, at, t)| {
            let over: &[MethodId] = match overriders.get(&t) {
                Some(Some(all)) => all,
                _ => &[],
            };
            let over: Vec<MethodId> = (over.iter())
                .copied()
                .filter(|o| interesting.contains(o))
                .collect();
            // On an object of a field that holds only new objects of known classes, the
            // call reaches only their methods.
            let stored = (!over.is_empty())
                .then(|| receiver_pushed_by(p, caller, at))
                .flatten()
                .and_then(|k| {
                    let code = p.method(caller).code.as_ref()?;
                    p.receiver_classes(caller.class, code, locks::Sym::Value(k as u32))
                });
            // The call names the target's name and descriptor.
            let m = p.method(t);
            over.into_iter()
                .filter(|&o| {
                    stored.as_ref().is_none_or(|types| {
                        (types.iter()).any(|&c| {
                            p.resolve(&p.class(c).name, &m.name, &m.descriptor) == Some(o)
                        })
                    })
                })
                .map(|o| (caller, at, o))
                .collect::<Vec<_>>()
        })
        .collect();
    sites.extend(through);
    let mut by_callee: FxHashMap<MethodId, Vec<(MethodId, u32)>> = FxHashMap::default();
    for &(caller, at, callee) in &sites {
        by_callee.entry(callee).or_default().push((caller, at));
    }
    if !open.is_empty() {
        let names: FxHashSet<&str> = open.iter().map(|&t| &*p.method(t).name).collect();
        by_callee
            .retain(|&m, _| !names.contains(&*p.method(m).name) || !overrides_one_of(p, m, &open));
    }
    // A call from a method that takes no lock, has no callers' lock to hold and does not
    // construct is made holding nothing: its callee has no entry lock, and its other callers
    // need no engine pass for it. (Pruned to a fixpoint: a pruned callee holds nothing at its
    // own calls either.)
    let holds_nothing = |caller: &MethodId| {
        !lock_taking.contains(caller) && !by_callee.contains_key(caller) && !may_construct(*caller)
    };
    let mut pruned: Vec<MethodId> = (by_callee.par_iter())
        .filter(|(_, ss)| ss.iter().any(|(caller, _)| holds_nothing(caller)))
        .map(|(&callee, _)| callee)
        .collect();
    // Only a pruned callee's own calls are pruned in turn: the calls of the callees listed.
    let mut calls_from: FxHashMap<MethodId, Vec<MethodId>> = FxHashMap::default();
    for (&callee, ss) in &by_callee {
        for &(caller, _) in ss {
            if by_callee.contains_key(&caller) {
                calls_from.entry(caller).or_default().push(callee);
            }
        }
    }
    let mut gone: FxHashSet<MethodId> = FxHashSet::default();
    while let Some(m) = pruned.pop() {
        if gone.insert(m) && !lock_taking.contains(&m) && !may_construct(m) {
            pruned.extend(calls_from.get(&m).into_iter().flatten());
        }
    }
    by_callee.retain(|m, _| !gone.contains(m));
    let mut wanted: FxHashMap<MethodId, Vec<u32>> = FxHashMap::default();
    for &(caller, at) in by_callee.values().flatten() {
        wanted.entry(caller).or_default().push(at);
    }
    // Callers that run only while their object is constructed: their calls on `this` are no
    // calls another thread makes (see above).
    let constructing: FxHashSet<MethodId> = {
        let mut by_class: FxHashMap<u32, Vec<MethodId>> = FxHashMap::default();
        for &id in wanted.keys().filter(|&&id| may_construct(id)) {
            by_class.entry(id.class).or_default().push(id);
        }
        (by_class.into_par_iter())
            .flat_map_iter(|(class, ids)| {
                let init = p.init_only(class);
                ids.into_iter().filter(move |id| init[id.method as usize])
            })
            .collect()
    };
    // (locks held, the call is made on `this`) at each site of a caller that takes locks (or
    // that constructs, or may hold its own callers' locks: whether its call is made on `this`
    // is then read off the frame, whatever its arguments compute); each lock with the callee's
    // own name for it when it is the lock of the receiver or of an argument
    // ([`passed_objects`]).
    let held: FxHashMap<(MethodId, u32), SiteHeld> = wanted
        .par_iter()
        .filter(|(caller, _)| {
            takes_locks(**caller)
                || constructing.contains(*caller)
                || by_callee.contains_key(*caller)
        })
        .flat_map_iter(|(&caller, ats)| {
            let mut o = SiteLocks {
                p,
                id: caller,
                ats,
                out: Vec::new(),
            };
            let ok = engine::run_method(p, caller, false, &mut engine::Observing(&mut o)).is_ok();
            let out = if ok { o.out } else { Vec::new() };
            out.into_iter().map(move |(at, l)| ((caller, at), l))
        })
        .collect();
    // A lock the callee can name stays itself: `(None, lock)`. One it cannot (the caller's own
    // monitor held around a call on another object, a lock of a local or a parameter, a field
    // lock of another class: its field is named by that class's constant pool) is held all the
    // same, named in its caller's class: `(Some(class), lock)`. Callers that agree on it (one
    // class's `synchronized` methods, one field lock of theirs) hold one lock the callee cannot
    // name, `Site(CALLER_SITE)`; callers of two classes holding their own monitors do not.
    type Named = (Option<u32>, LockId);
    // A field lock of the caller's class that the callee's class names too: the field a
    // subclass reaches as its own (`synchronized (lock)` on an inherited `protected final
    // Object lock`, whose reference javac qualifies with the subclass) is the field the
    // superclass's methods lock, named by the callee's own reference to it.
    let in_callee = |l: LockId, callee: MethodId, caller: MethodId| {
        let LockId::Field(base, r, part) = l else {
            return None;
        };
        let fr = p.class(caller.class).member(r);
        let owner = p.field_owner(&fr.class, &fr.name)?;
        let named = (p.class(callee.class).refs.iter()).position(|x| {
            !x.is_method && x.name == fr.name && p.field_owner(&x.class, &x.name) == Some(owner)
        })?;
        Some(LockId::Field(base, named as u32, part))
    };
    let translate = |locks: &[LockId], callee: MethodId, caller: MethodId, receiver_this: bool| {
        let static_callee = p.method(callee).is_static();
        let same_class = callee.class == caller.class;
        let mut out: Vec<Named> = locks
            .iter()
            .map(|&l| match l {
                LockId::This if !static_callee && receiver_this => (None, l),
                LockId::Field(Base::This, _, _)
                    if same_class && !static_callee && receiver_this =>
                {
                    (None, l)
                }
                LockId::Field(Base::Static, _, _) if same_class => (None, l),
                LockId::Field(Base::This, _, _) if !static_callee && receiver_this => {
                    in_callee(l, callee, caller).map_or((Some(caller.class), l), |n| (None, n))
                }
                LockId::Site(_) => match locks::helper_lock_base(l) {
                    Some(Base::Static) => (None, l),
                    Some(Base::This) if !static_callee && receiver_this => (None, l),
                    _ => (Some(caller.class), l),
                },
                LockId::Class(_) | LockId::Atomic => (None, l),
                _ => (Some(caller.class), l),
            })
            .collect();
        out.dedup();
        out
    };
    let mut entry: FxHashMap<MethodId, Vec<LockId>> = FxHashMap::default();
    let mut foreign: FxHashMap<MethodId, Vec<(u32, LockId)>> = FxHashMap::default();
    let mut synchronizing: FxHashMap<u32, bool> = FxHashMap::default();
    for _ in 0..4 {
        let mut next: FxHashMap<MethodId, Vec<LockId>> = FxHashMap::default();
        foreign.clear();
        for (&callee, ss) in &by_callee {
            let mut common: Option<Vec<Named>> = None;
            for &(caller, at) in ss {
                let on_own_new_object = constructing.contains(&caller)
                    && held.get(&(caller, at)).is_some_and(|(_, this)| *this);
                if on_own_new_object {
                    continue;
                }
                let (local, receiver_this) = match held.get(&(caller, at)) {
                    Some((l, this)) => (l.clone(), *this),
                    None => (Vec::new(), site_receiver_is_this(p, caller, at)),
                };
                let mut all: Vec<LockId> = local.iter().map(|&(l, _)| l).collect();
                if let Some(e) = entry.get(&caller) {
                    all.extend(e.iter().copied());
                }
                let mut here = translate(&all, callee, caller, receiver_this);
                // The lock of the object the call hands over is the callee's own: the
                // receiver's (`synchronized (Outer.this) { fill(); }` from an inner class, a
                // caller's `synchronized (q) { q.drain(); }`) is its `this`, an argument's its
                // parameter.
                for alias in local.iter().filter_map(|&(_, alias)| Some((None, alias?))) {
                    if !here.contains(&alias) {
                        here.push(alias);
                    }
                }
                common = Some(match common {
                    None => here,
                    Some(c) => c.into_iter().filter(|l| here.contains(l)).collect(),
                });
                if common.as_ref().is_some_and(|c| c.is_empty()) {
                    break;
                }
            }
            // A class that takes locks of its own protects its state with them: its other
            // writers need not hold its callers' lock (a cached descriptor rebuilt under the
            // owner's lock, invalidated under the class's own), so the anonymous lock counts
            // only for a class that never synchronizes and leaves all of it to its callers.
            if let Some(c) = common.filter(|c| !c.is_empty()) {
                let named: Vec<(u32, LockId)> = c
                    .iter()
                    .filter_map(|&(class, l)| Some((class?, l)))
                    .filter(|(_, l)| !matches!(l, LockId::Site(_)))
                    .collect();
                if !named.is_empty() {
                    foreign.insert(callee, named);
                }
                let anonymous = c.iter().any(|(class, _)| class.is_some())
                    && !*synchronizing
                        .entry(callee.class)
                        .or_insert_with(|| locks::class_synchronizes(p, p.class(callee.class)));
                let mut c: Vec<LockId> = c
                    .into_iter()
                    .filter_map(|(class, l)| match class {
                        None => Some(l),
                        Some(_) => anonymous.then_some(LockId::Site(locks::CALLER_SITE)),
                    })
                    .collect();
                if c.is_empty() {
                    continue;
                }
                c.sort_by_key(|l| format!("{l:?}"));
                c.dedup();
                next.insert(callee, c);
            }
        }
        if next == entry {
            break;
        }
        entry = next;
    }
    EntryLocks { entry, foreign }
}

/// The locks every caller of a method holds when calling it ([`compute_entry_locks`]).
#[derive(Default)]
pub struct EntryLocks {
    /// Named as the method names them (or the one anonymous lock of its callers).
    pub entry: crate::fxhash::FxHashMap<MethodId, Vec<locks::LockId>>,
    /// Those the method cannot name, each named in the class of the callers that hold it (the
    /// caller's own monitor around a call on another object, a field lock of the caller's
    /// class): who else holds the same lock is known by that name.
    pub foreign: crate::fxhash::FxHashMap<MethodId, Vec<(u32, locks::LockId)>>,
}

/// Most overriders listed for a method called by dispatch (see `compute_entry_locks`).
const MAX_OVERRIDERS: usize = 64;

/// Whether method `m` overrides one of `targets` (declared by a supertype of its class).
fn overrides_one_of(p: &Program, m: MethodId, targets: &FxHashSet<MethodId>) -> bool {
    let me = p.method(m);
    let mut stack = vec![m.class];
    let mut seen: Vec<u32> = Vec::new();
    while let Some(ci) = stack.pop() {
        if seen.contains(&ci) || seen.len() > 256 {
            continue;
        }
        seen.push(ci);
        let c = p.class(ci);
        let declared = c
            .methods
            .iter()
            .position(|x| x.name == me.name && x.descriptor == me.descriptor);
        if let Some(mi) = declared {
            let id = MethodId {
                class: ci,
                method: mi as u32,
            };
            if id != m && targets.contains(&id) {
                return true;
            }
        }
        let supers = c.super_name.iter().chain(&c.interfaces);
        stack.extend(supers.filter_map(|s| p.class_index(s)));
    }
    false
}

/// Whether the call at `at` of `caller` is made on `this` (its receiver is the caller's own
/// object): read off the code, `aload_0` pushed just before the arguments.
fn site_receiver_is_this(p: &Program, caller: MethodId, at: u32) -> bool {
    let m = p.method(caller);
    !m.is_static()
        && receiver_pushed_by(p, caller, at).is_some_and(|k| {
            m.code
                .as_ref()
                .is_some_and(|code| matches!(code.insns[k].op, Op::Load(0, 1)))
        })
}

/// The instruction that pushed the receiver of the instance call at `at`, when the arguments
/// are simple pushes (loads, constants, field reads) that can be walked back over.
fn receiver_pushed_by(p: &Program, caller: MethodId, at: u32) -> Option<usize> {
    let c = p.class(caller.class);
    let code = p.method(caller).code.as_ref()?;
    let Op::Invoke(kind, r) = code.insns.get(at as usize)?.op else {
        return None;
    };
    if kind == crate::bytecode::InvokeKind::Static {
        return None;
    }
    // Walk back over the arguments: each pushes its slots; find what pushed the receiver.
    c.pushed_by(&code.insns, at as usize, c.member(r).arg_slots as i32 + 1)
}

/// What the program stores in one private or final field, by its stores.
#[derive(Debug, Clone, Default)]
pub struct Allocated {
    /// Every store is of an object just allocated (`this.lock = new Object()`): the field holds
    /// only objects its owner made.
    pub all_new: bool,
    /// The classes of those objects that the program has; `outside` when some are not (the
    /// JDK's).
    pub classes: Vec<u32>,
    pub outside: bool,
}

/// The objects the program stores in each private or final field, by `(class, field)` index:
/// whether every store is of a new object (`this.addFunctor = new AddFunctor()`) and of which
/// classes (see `Program::field_classes` and `Program::owns_field`).
pub fn allocated_types(p: &Program) -> crate::fxhash::FxHashMap<(u32, u32), Allocated> {
    use crate::fxhash::FxHashMap;
    // Per store: `None` when it is not of a new object, else the class if the program has it.
    type Store = ((u32, u32), Option<Option<u32>>);
    let stores: Vec<Store> =
        p.par_classes()
            .enumerate()
            .flat_map_iter(|(ci, c)| {
                let mut out = Vec::new();
                for code in c.methods.iter().filter_map(|m| m.code.as_ref()) {
                    // A store where a block starts may store what another path made (`f = c ? new
                    // A() : new B()` jumps to the store from after `new A()`).
                    let mut leaders: Option<Vec<bool>> = None;
                    for (k, i) in code.insns.iter().enumerate() {
                        let (Op::PutField(fr) | Op::PutStatic(fr)) = i.op else {
                            continue;
                        };
                        // Only a field of this class or of its nest can be private or final
                        // and stored here (nestmates reach each other's private fields).
                        let f = c.member(fr);
                        if crate::program::nest(&f.class) != crate::program::nest(&c.name) {
                            continue;
                        }
                        let Some(key) = p.field_ref(ci as u32, fr) else {
                            continue;
                        };
                        let access = p.class(key.0).fields[key.1 as usize].access;
                        if access & (acc::PRIVATE | acc::FINAL) == 0 {
                            continue;
                        }
                        let joined = leaders
                            .get_or_insert_with(|| crate::bytecode::cfg::leaders(code))
                            .get(k)
                            .copied()
                            .unwrap_or(true);
                        let new = k.checked_sub(1).filter(|_| !joined).and_then(|j| {
                            match code.insns[j].op {
                                Op::Invoke(crate::bytecode::InvokeKind::Special, r)
                                    if &*c.member(r).name == "<init>" =>
                                {
                                    Some(p.class_index(&c.member(r).class))
                                }
                                _ => None,
                            }
                        });
                        out.push((key, new));
                    }
                }
                out
            })
            .collect();
    let mut out: FxHashMap<(u32, u32), Allocated> = FxHashMap::default();
    for (key, new) in stores {
        let e = out.entry(key).or_insert_with(|| Allocated {
            all_new: true,
            ..Allocated::default()
        });
        match new {
            Some(Some(t)) => {
                if !e.classes.contains(&t) {
                    e.classes.push(t);
                }
            }
            Some(None) => e.outside = true,
            None => e.all_new = false,
        }
    }
    out
}

/// Collects, at some call sites of one method, the locks held and whether the call is made on
/// `this`.
struct SiteLocks<'p, 'a> {
    p: &'p Program,
    id: MethodId,
    ats: &'a [u32],
    out: Vec<(u32, SiteHeld)>,
}

/// The locks held at a call site, each with the callee's own name for it when it has one (see
/// [`passed_objects`]), and whether the call is made on `this`.
type SiteHeld = (Vec<(locks::LockId, Option<locks::LockId>)>, bool);

impl engine::Observer for SiteLocks<'_, '_> {
    fn observe(&mut self, at: u32, frame: &engine::Frame<()>) {
        if !self.ats.contains(&at) {
            return;
        }
        let on_this = receiver_sym(self.p, self.id, at, frame) == Some(locks::Sym::This);
        let passed = passed_objects(self.p, self.id, at, frame);
        let held = (frame.locks.held.iter())
            .map(|h| {
                let as_callee = (passed.iter())
                    .find(|&&(lock, _)| lock == h.lock)
                    .map(|&(_, named)| named);
                (h.lock, as_callee)
            })
            .collect();
        self.out.push((at, (held, on_this)));
    }
}

/// The locks of the objects the call at `at` hands its callee, as the caller names them, each
/// with the name the callee gives it: the receiver's (`this` there) and the arguments' (their
/// parameter slots). Only objects a frame can name count ([`locks::LockId::of_object`]):
/// another is never known to be the same lock twice.
fn passed_objects(
    p: &Program,
    id: MethodId,
    at: u32,
    frame: &engine::Frame<()>,
) -> Vec<(locks::LockId, locks::LockId)> {
    use locks::LockId;
    let Some((instance, operands)) = call_operands(p, id, at, frame) else {
        return Vec::new();
    };
    // The callee's slot of each stack entry (a `long` takes two of each): `this` at 0, then
    // the arguments. A held lock is a reference's, so only a reference can match one.
    (operands.iter().enumerate())
        .filter_map(|(k, slot)| {
            let named = if instance && k == 0 {
                LockId::This
            } else {
                LockId::Param(k as u16)
            };
            Some((LockId::of_object(slot.sym)?, named))
        })
        .collect()
}

/// Whether a public method receives only calls the program makes: static, or an instance method
/// that overrides no public method of a public supertype (every supertype known, but for
/// `Object`, whose methods count, and the JDK's marker interfaces), so that no call made through
/// a supertype (an interface the JDK or a user calls, `Runnable`, `Comparable`) can reach it
/// unseen. A method it overrides that is not public, or is declared in a type that is not (a
/// package-private functor interface), is called only by the program: those calls are its
/// call sites too.
fn overrides_nothing(p: &Program, c: &crate::bytecode::Class, m: &crate::bytecode::Method) -> bool {
    if m.is_static() {
        return true;
    }
    const OBJECT: &[&str] = &["equals", "hashCode", "toString", "clone", "finalize"];
    // The JDK's marker interfaces declare no method.
    const MARKERS: &[&str] = &[
        "java/io/Serializable",
        "java/lang/Cloneable",
        "java/util/RandomAccess",
        "java/util/EventListener",
    ];
    let mut stack: Vec<&str> = c
        .super_name
        .as_deref()
        .into_iter()
        .chain(c.interfaces.iter().map(|i| &**i))
        .collect();
    let mut seen: Vec<&str> = Vec::new();
    while let Some(name) = stack.pop() {
        if seen.contains(&name) {
            continue;
        }
        seen.push(name);
        if name == "java/lang/Object" {
            if OBJECT.contains(&&*m.name) {
                return false;
            }
            continue;
        }
        if MARKERS.contains(&name) {
            continue;
        }
        let Some(ci) = p.class_index(name) else {
            return false;
        };
        let sc = p.class(ci);
        // A declaration that is not public, or in a type that is not, is called only from the
        // program, and such calls count as calls of its overriders (see `compute_entry_locks`).
        let declares_open = sc.methods.iter().any(|x| {
            x.name == m.name
                && x.descriptor == m.descriptor
                && !x.is_static()
                && x.access & acc::PRIVATE == 0
                && x.access & acc::PUBLIC != 0
                && sc.access & acc::PUBLIC != 0
        });
        if declares_open || seen.len() > 256 {
            return false;
        }
        stack.extend(sc.super_name.as_deref());
        stack.extend(sc.interfaces.iter().map(|i| &**i));
    }
    true
}
