//! The lock model shared by every analysis: which objects a register may name (for lock
//! identity), which locks a frame holds, and which instructions enter or leave an atomic region.
//!
//! An atomic region is a `synchronized` block or method, a `Lock.lock()`..`unlock()` span, a
//! method annotated `@Atomic` (configurable names), or one call to a thread-safe library
//! object or to a method that (transitively) takes a lock. Lock identity is approximated by
//! [`Sym`]: `this`, a class literal, a field path, a parameter, or the result of one
//! instruction; locks we cannot name are assumed distinct.

use crate::fxhash::FxHashSet;

use crate::bytecode::{Class, InvokeKind, MemberRef, Method};
use crate::program::Program;

/// The built-in list of thread-safe library classes, `Lock` and `Condition` types.
const THREAD_SAFE_DATA: &str = include_str!("thread_safe.txt");

/// The instruction index used as the "acquisition site" of a method-level region
/// (`synchronized` or `@Atomic` method).
pub const METHOD_SITE: u32 = u32::MAX;

/// The "acquisition site" of a lock held by the caller when a whole-program analysis runs a
/// method in the context of its call site (see `MethodCx::this_held`): not a region of this
/// method.
pub const CALLER_SITE: u32 = u32::MAX - 1;

/// What a register may refer to, as far as lock identity goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sym {
    Unknown,
    This,
    Param(u16),
    /// A class literal (hash of the internal name).
    Class(u64),
    /// A field read through a base: `this.f`, `p.f`, or a static `C.f`.
    Field(Base, u32),
    /// `rw.readLock()` / `rw.writeLock()` of a field `rw`.
    RwPart(Base, u32, bool),
    /// The result of the instruction at this index (a call result, a `new` object).
    Value(u32),
    /// The boolean result of `tryLock()` at this instruction index.
    TryLock(u32),
}

/// The base of a field path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Base {
    This,
    Static,
    Param(u16),
}

/// The identity of a lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LockId {
    This,
    Class(u64),
    Param(u16),
    Field(Base, u32, u8),
    /// The one lock of all `@Atomic` regions (they are transactions).
    Atomic,
    /// A lock we cannot name: distinct from every other, never re-entered.
    Site(u32),
}

impl LockId {
    /// The lock named by a register, or a fresh distinct lock for this site.
    pub fn of(sym: Sym, site: u32) -> LockId {
        match sym {
            Sym::This => LockId::This,
            Sym::Class(h) => LockId::Class(h),
            Sym::Param(p) => LockId::Param(p),
            Sym::Field(b, f) => LockId::Field(b, f, 0),
            Sym::RwPart(b, f, w) => LockId::Field(b, f, if w { 2 } else { 1 }),
            Sym::Value(v) => LockId::Site(v),
            Sym::Unknown | Sym::TryLock(_) => LockId::Site(site),
        }
    }
    fn nameable(self) -> bool {
        !matches!(self, LockId::Site(_))
    }
}

/// Hash of a class name for [`Sym::Class`] / [`LockId::Class`].
pub fn class_hash(name: &str) -> u64 {
    crate::fxhash::hash_str(name)
}

/// One held lock: its identity, the site of the non-reentrant acquisition that opened its
/// region, and the re-entry count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Held {
    pub lock: LockId,
    pub site: u32,
    pub count: u8,
}

/// Locks held at a program point, innermost last.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct LockState {
    pub held: Vec<Held>,
}

/// Most locks a frame tracks; deeper nesting is folded into the innermost (keeps the lattice
/// finite on malformed code).
const MAX_HELD: usize = 16;

impl LockState {
    /// The region the frame is in: the latest non-reentrant acquisition.
    pub fn current(&self) -> Option<u32> {
        self.held.last().map(|h| h.site)
    }

    pub fn holds(&self, lock: LockId) -> bool {
        lock.nameable() && self.held.iter().any(|h| h.lock == lock)
    }

    /// Acquire `lock` at `site`. Returns true when this opens a new region (not re-entry).
    pub fn acquire(&mut self, lock: LockId, site: u32) -> bool {
        if lock.nameable() {
            if let Some(h) = self.held.iter_mut().find(|h| h.lock == lock) {
                h.count = h.count.saturating_add(1).min(8);
                return false;
            }
        }
        if self.held.len() >= MAX_HELD {
            return false;
        }
        // A distinct lock acquired again at the same site while held (a loop without release):
        // the old region is gone from our view; keep one entry per site.
        self.held.retain(|h| h.site != site || h.lock.nameable());
        self.held.push(Held {
            lock,
            site,
            count: 1,
        });
        true
    }

    /// Release `lock`. Returns the site of the region that ended, if one did.
    pub fn release(&mut self, lock: LockId) -> Option<u32> {
        let pos = if lock.nameable() {
            self.held.iter().rposition(|h| h.lock == lock)
        } else {
            self.held
                .iter()
                .rposition(|h| h.lock == lock)
                .or_else(|| self.held.iter().rposition(|h| !h.lock.nameable()))
        }?;
        let h = &mut self.held[pos];
        if h.count > 1 {
            h.count -= 1;
            return None;
        }
        let site = h.site;
        self.held.remove(pos);
        Some(site)
    }

    /// The join at a merge point: the locks held on both paths (common prefix).
    pub fn join(&self, other: &LockState) -> LockState {
        let mut held = Vec::new();
        for (a, b) in self.held.iter().zip(other.held.iter()) {
            if a.lock == b.lock && a.site == b.site {
                held.push(Held {
                    lock: a.lock,
                    site: a.site,
                    count: a.count.min(b.count),
                });
            } else {
                break;
            }
        }
        LockState { held }
    }
}

/// Thread-safe library classes, `Lock` and `Condition` types, and synchronized-wrapper
/// factories, read from the data file.
#[derive(Clone, Debug, Default)]
pub struct ThreadSafeList {
    classes: FxHashSet<String>,
    factories: FxHashSet<String>,
    locks: FxHashSet<String>,
    conditions: FxHashSet<String>,
    /// Method names, or names with descriptors.
    validating: FxHashSet<String>,
    /// `class.method`.
    immutable: FxHashSet<String>,
}

impl ThreadSafeList {
    pub fn builtin() -> Self {
        let mut l = ThreadSafeList::default();
        l.extend_from(THREAD_SAFE_DATA);
        l
    }

    /// Add the entries of a list in the data-file format (lines `class|factory|lock|condition NAME`).
    pub fn extend_from(&mut self, text: &str) {
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut parts = line.split_whitespace();
            let (Some(kind), Some(name)) = (parts.next(), parts.next()) else {
                continue;
            };
            let set = match kind {
                "class" => &mut self.classes,
                "factory" => &mut self.factories,
                "lock" => &mut self.locks,
                "condition" => &mut self.conditions,
                "validating" => &mut self.validating,
                "immutable" => &mut self.immutable,
                _ => continue,
            };
            set.insert(name.to_string());
        }
    }

    pub fn is_class(&self, name: &str) -> bool {
        self.classes.contains(name)
    }
    pub fn is_factory(&self, class: &str, method: &str) -> bool {
        self.factories.contains(&format!("{class}.{method}"))
    }
    pub fn is_lock(&self, name: &str) -> bool {
        self.locks.contains(name)
    }
    pub fn is_condition(&self, name: &str) -> bool {
        self.conditions.contains(name)
    }
    /// A compare-and-set style method: it checks its arguments against the current state.
    pub fn is_validating(&self, name: &str, desc: &str) -> bool {
        self.validating.contains(name) || self.validating.contains(&format!("{name}{desc}"))
    }
    pub fn is_immutable(&self, class: &str, name: &str) -> bool {
        self.immutable.contains(&format!("{class}.{name}"))
    }
}

/// Methods of `java.lang.Object` (and constructors): never a region on their own.
fn is_object_method(name: &str) -> bool {
    matches!(
        name,
        "<init>"
            | "getClass"
            | "hashCode"
            | "equals"
            | "notify"
            | "notifyAll"
            | "wait"
            | "clone"
            | "finalize"
    )
}

/// Who the caller is, for classifying its calls.
pub struct Caller<'a> {
    pub program: &'a Program,
    /// Index of `class` in the program.
    pub class_id: u32,
    pub class: &'a Class,
    pub method: &'a Method,
}

/// How a call site relates to atomic regions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallEffect {
    /// An ordinary call: no lock taken. `reads_heap`: its result may come from shared state.
    Plain { reads_heap: bool },
    /// The call is one atomic region on `lock` (a thread-safe library call, or a callee that
    /// takes a lock). `kind` says why; `returns_shared`: its result is read inside a region.
    Region {
        lock: LockId,
        kind: RegionCall,
        returns_shared: bool,
    },
    /// `Lock.lock()` / `lockInterruptibly()`.
    Acquire(LockId),
    /// `Lock.tryLock(..)`: acquires on the success branch.
    TryAcquire(LockId),
    /// `Lock.unlock()`.
    Release(LockId),
    /// `Object.wait(..)` / `Condition.await*(..)`: releases and re-acquires the lock.
    Wait(Option<LockId>),
}

/// Why a call is a region.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegionCall {
    /// A method of a thread-safe library object.
    ThreadSafeLibrary,
    /// A compare-and-set style method of a thread-safe library object: it compares its
    /// arguments with the current state inside its region.
    Validating,
    /// A `synchronized` method of the same class hierarchy (or nest) as the caller.
    SameAbstraction,
    /// A method annotated `@Atomic`.
    Atomic,
    /// Any other method that (transitively) takes a lock, or an unknown method under the
    /// conservative rule.
    Other,
}

/// What a call site is, independent of the registers: resolved once per call site and cached
/// by the engine. [`call_effect`] finishes the classification with the receiver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallTarget {
    Acquire,
    TryAcquire,
    Release,
    /// `Object.wait(..)`: re-acquires the receiver.
    Wait,
    /// `Condition.await*(..)`: re-acquires the lock of the innermost region.
    Await,
    /// A method of a thread-safe library class (unless the receiver is local); `validates`:
    /// compare-and-set style.
    ThreadSafe {
        returns: bool,
        validates: bool,
    },
    /// A method of a thread-safe class that reads only immutable state (`length()` of an
    /// atomic array): an ordinary call.
    Immutable,
    /// A constructor: its locks are on the object under construction.
    Init,
    /// Neither scanned nor on the classpath.
    Unknown {
        returns: bool,
        maybe_thread_safe: bool,
    },
    /// A method with a summary.
    Method {
        /// Summary facts of the callee.
        locks: bool,
        reads_heap: bool,
        returns_shared: bool,
        own_lock: Option<OwnLock>,
        /// `@Atomic` callee.
        atomic: bool,
        /// `synchronized` callee of the caller's abstraction.
        same_abstraction: bool,
        /// Hash of the callee's class (for `static synchronized`).
        class_hash: u64,
        /// An instance method that may be called on a thread-safe field.
        maybe_thread_safe: bool,
        returns: bool,
    },
}

/// Resolve a call site (the part that does not depend on registers).
pub fn resolve_call(
    caller: &Caller<'_>,
    kind: InvokeKind,
    ref_id: crate::bytecode::RefId,
) -> CallTarget {
    let r = caller.class.member(ref_id);
    let p = caller.program;
    let ts = &p.thread_safe;
    let class = &*r.class;
    let name = &*r.name;
    let returns = r.ret_slots > 0;
    let instance = kind != InvokeKind::Static;
    if instance {
        if ts.is_lock(class) {
            match name {
                "lock" | "lockInterruptibly" => return CallTarget::Acquire,
                "tryLock" => return CallTarget::TryAcquire,
                "unlock" => return CallTarget::Release,
                _ => {}
            }
        }
        if name == "wait" && matches!(&*r.desc, "()V" | "(J)V" | "(JI)V") {
            return CallTarget::Wait;
        }
        if ts.is_condition(class) && name.starts_with("await") {
            return CallTarget::Await;
        }
        if ts.is_class(class) && !is_object_method(name) {
            if ts.is_immutable(class, name) {
                return CallTarget::Immutable;
            }
            return CallTarget::ThreadSafe {
                returns,
                validates: ts.is_validating(name, &r.desc),
            };
        }
    }
    if name == "<init>" {
        return CallTarget::Init;
    }
    let maybe_thread_safe = instance && !is_object_method(name) && p.has_thread_safe_fields();
    let Some(target) = p.resolved(caller.class_id, ref_id) else {
        return CallTarget::Unknown {
            returns,
            maybe_thread_safe,
        };
    };
    let s = p.summary(target);
    let callee = p.method(target);
    let callee_class = &*p.class(target.class).name;
    CallTarget::Method {
        locks: s.locks,
        reads_heap: s.reads_heap,
        returns_shared: s.returns_shared,
        own_lock: s.own_lock,
        atomic: callee.has_annotation_named(&p.config.atomic_annotations),
        same_abstraction: callee.is_synchronized()
            && p.same_abstraction(&caller.class.name, callee_class),
        class_hash: class_hash(callee_class),
        maybe_thread_safe,
        returns,
    }
}

/// Finish classifying a call with the register holding the receiver (`Sym::Unknown` for a
/// static call). `site` is the call's instruction index.
pub fn call_effect(
    caller: &Caller<'_>,
    target: CallTarget,
    kind: InvokeKind,
    receiver: Sym,
    site: u32,
) -> CallEffect {
    let p = caller.program;
    let lock_of_receiver = || LockId::of(receiver, site);
    let thread_safe_region = |returns: bool, validates: bool| CallEffect::Region {
        lock: lock_of_receiver(),
        kind: if validates {
            RegionCall::Validating
        } else {
            RegionCall::ThreadSafeLibrary
        },
        returns_shared: returns,
    };
    match target {
        CallTarget::Acquire => CallEffect::Acquire(lock_of_receiver()),
        CallTarget::TryAcquire => CallEffect::TryAcquire(lock_of_receiver()),
        CallTarget::Release => CallEffect::Release(lock_of_receiver()),
        CallTarget::Wait => CallEffect::Wait(Some(lock_of_receiver())),
        CallTarget::Await => CallEffect::Wait(None),
        CallTarget::ThreadSafe { returns, validates } => {
            if is_local_object(caller, receiver) {
                CallEffect::Plain { reads_heap: false }
            } else {
                thread_safe_region(returns, validates)
            }
        }
        CallTarget::Immutable => CallEffect::Plain { reads_heap: false },
        CallTarget::Init => CallEffect::Plain { reads_heap: false },
        CallTarget::Unknown {
            returns,
            maybe_thread_safe,
        } => {
            if maybe_thread_safe && is_thread_safe_field(caller, receiver) {
                return thread_safe_region(returns, false);
            }
            match p.config.unknown_calls {
                crate::config::UnknownCalls::NoLock => CallEffect::Plain { reads_heap: true },
                crate::config::UnknownCalls::Conservative => CallEffect::Region {
                    lock: LockId::Site(site),
                    kind: RegionCall::Other,
                    returns_shared: returns,
                },
            }
        }
        CallTarget::Method {
            locks,
            reads_heap,
            returns_shared,
            own_lock,
            atomic,
            same_abstraction,
            class_hash,
            maybe_thread_safe,
            returns,
        } => {
            if maybe_thread_safe && is_thread_safe_field(caller, receiver) {
                return thread_safe_region(returns, false);
            }
            if !locks {
                return CallEffect::Plain { reads_heap };
            }
            let lock = if atomic {
                LockId::Atomic
            } else if p.config.context_insensitive {
                LockId::Site(site)
            } else {
                match own_lock {
                    Some(OwnLock::Receiver) if kind != InvokeKind::Static => lock_of_receiver(),
                    Some(OwnLock::Class) => LockId::Class(class_hash),
                    Some(OwnLock::Atomic) => LockId::Atomic,
                    _ => LockId::Site(site),
                }
            };
            let kind = if lock == LockId::Atomic {
                RegionCall::Atomic
            } else if same_abstraction {
                RegionCall::SameAbstraction
            } else {
                RegionCall::Other
            };
            CallEffect::Region {
                lock,
                kind,
                returns_shared,
            }
        }
    }
}

/// Whether a method can enter or leave an atomic region at all: it holds a method-level lock,
/// or has a `monitorenter`, or a call that may be a lock operation, `wait`, or a region, or
/// reads a field holding a thread-safe object. Without any of these no value is ever shared,
/// so no rule can report anything and the dataflow can be skipped.
pub fn may_enter_region(caller: &Caller<'_>) -> bool {
    scan_for_regions(caller, true)
}

/// Whether a method has a region of its own: [`may_enter_region`] without counting calls to
/// methods that lock (their regions are the callee's; what they return is shared only when the
/// callee's summary says so).
pub fn has_own_region(caller: &Caller<'_>) -> bool {
    scan_for_regions(caller, false)
}

fn scan_for_regions(caller: &Caller<'_>, locking_callees: bool) -> bool {
    let p = caller.program;
    let Some(code) = &caller.method.code else {
        return false;
    };
    if method_lock(p, caller.class, caller.method).is_some() {
        return true;
    }
    code.insns.iter().any(|insn| match insn.op {
        crate::bytecode::Op::MonitorEnter => true,
        crate::bytecode::Op::GetField(f) | crate::bytecode::Op::GetStatic(f) => {
            let fr = caller.class.member(f);
            p.is_thread_safe_field(&fr.class, &fr.name)
        }
        crate::bytecode::Op::Invoke(kind, r) => match resolve_call(caller, kind, r) {
            CallTarget::Init | CallTarget::Immutable => false,
            CallTarget::Unknown { .. } => {
                p.config.unknown_calls == crate::config::UnknownCalls::Conservative
            }
            CallTarget::Method { locks, .. } => locks && locking_callees,
            _ => true,
        },
        _ => false,
    })
}

fn is_thread_safe_field(caller: &Caller<'_>, receiver: Sym) -> bool {
    match receiver {
        Sym::Field(_, f) => {
            let fr = caller.class.member(f);
            caller.program.is_thread_safe_field(&fr.class, &fr.name)
        }
        _ => false,
    }
}

/// An object allocated by this method (`new` at the instruction the register names): no
/// other thread can see it yet, so its locks protect nothing shared.
fn is_local_object(caller: &Caller<'_>, sym: Sym) -> bool {
    let Sym::Value(at) = sym else { return false };
    caller
        .method
        .code
        .as_ref()
        .and_then(|c| c.insns.get(at as usize))
        .is_some_and(|i| matches!(i.op, crate::bytecode::Op::New(_)))
}

/// The single lock a method takes, when it takes exactly one we can name from the call site.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OwnLock {
    /// `synchronized` instance method (or only `synchronized (this)`): the receiver.
    Receiver,
    /// `static synchronized`: the class.
    Class,
    /// `@Atomic`: the one atomic lock.
    Atomic,
}

/// The lock a method holds for its whole body, if any (`synchronized` or `@Atomic`).
pub fn method_lock(program: &Program, class: &Class, m: &Method) -> Option<LockId> {
    if m.has_annotation_named(&program.config.atomic_annotations) {
        Some(LockId::Atomic)
    } else if m.is_synchronized() {
        Some(if m.is_static() {
            LockId::Class(class_hash(&class.name))
        } else {
            LockId::This
        })
    } else {
        None
    }
}

/// Used by summaries: whether an instruction-level call is a lock operation or a
/// thread-safe library region, without needing registers.
pub fn call_locks_directly(program: &Program, r: &MemberRef, kind: InvokeKind) -> bool {
    let ts = &program.thread_safe;
    if kind == InvokeKind::Static {
        return false;
    }
    (ts.is_lock(&r.class) && matches!(&*r.name, "lock" | "lockInterruptibly" | "tryLock"))
        || (ts.is_class(&r.class) && !is_object_method(&r.name))
}
