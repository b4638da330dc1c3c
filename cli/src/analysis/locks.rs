//! The lock model shared by every analysis: which objects a register may name (for lock
//! identity), which locks a frame holds, and which instructions enter or leave an atomic region.
//!
//! An atomic region is a `synchronized` block or method, a `Lock.lock()`..`unlock()` span, a
//! method annotated `@Atomic` (configurable names), or one call to a thread-safe library
//! object or to a method that (transitively) takes a lock. Lock identity is approximated by
//! [`Sym`]: `this`, a class literal, a field path, a parameter, or the result of one
//! instruction; locks we cannot name are assumed distinct.

use crate::fxhash::FxHashSet;

use super::sharing::FlagOp;
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
    /// The boolean result of the compare-and-set style call at this instruction index: where it
    /// is true, the values the call compared were current.
    Checked(u32),
    /// A field of an object the frame cannot name (`a.b.c`): a place for re-reads of the same
    /// field, never a lock identity.
    FieldOf(u32),
}

/// The base of a field path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Base {
    This,
    Static,
    Param(u16),
    /// The enclosing instance of an inner class's `this` (`this$0.f`): the outer object, whose
    /// fields and locks its own methods name through `this`.
    Outer,
}

/// Whether field reference `r` of `class` is the synthetic field in which an inner class holds
/// its enclosing instance (`this$0`, [`Base::Outer`]).
pub fn is_enclosing_field(class: &crate::bytecode::Class, r: crate::bytecode::RefId) -> bool {
    let m = class.member(r);
    m.name.starts_with("this$") && *m.class == *class.name
}

/// In a release of a lock held in a field, [`LockId::Field`]'s part for "the read or the write
/// lock, whichever is held" (`StampedLock.unlock(stamp)`).
pub const EITHER_PART: u8 = 3;

/// The part of a lock that a lock operation takes or gives back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Part {
    /// A `Lock`, or one part of a `ReadWriteLock` that its receiver names.
    Whole,
    /// The read lock of a `StampedLock`.
    Read,
    /// The write lock of a `StampedLock`.
    Write,
    /// The read or the write lock of a `StampedLock`, whichever the stamp is of.
    Either,
}

/// What the method `name` of a `StampedLock` does to it (see [`ThreadSafeList::lock_op`]).
pub fn stamped_op(name: &str) -> Option<LockOp> {
    use LockOp::*;
    match name {
        "writeLock" | "writeLockInterruptibly" => Some(Acquire(Part::Write)),
        "readLock" | "readLockInterruptibly" => Some(Acquire(Part::Read)),
        "tryWriteLock" => Some(TryAcquire(Part::Write)),
        "tryReadLock" => Some(TryAcquire(Part::Read)),
        "unlockWrite" | "tryUnlockWrite" => Some(Release(Part::Write)),
        "unlockRead" | "tryUnlockRead" => Some(Release(Part::Read)),
        "unlock" => Some(Release(Part::Either)),
        // An optimistic read: what is read from `tryOptimisticRead()` to `validate(stamp)` is
        // one read section where the validation succeeds (where it fails the code reads again,
        // under the read lock), as the class's documentation has it.
        "tryOptimisticRead" => Some(Acquire(Part::Read)),
        "validate" => Some(Release(Part::Read)),
        _ => None,
    }
}

/// What a call does to a lock (see [`ThreadSafeList::lock_op`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LockOp {
    Acquire(Part),
    /// Acquires the lock when its outcome says so (`true`, or a stamp other than 0).
    TryAcquire(Part),
    Release(Part),
}

impl LockOp {
    /// Takes the lock (or tries to).
    pub fn takes(self) -> bool {
        !matches!(self, LockOp::Release(_))
    }
}

/// The identity of a lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LockId {
    This,
    Class(u64),
    Param(u16),
    /// The lock held in a field; the part of a read-write lock: 0 the whole lock, 1 its read
    /// lock, 2 its write lock ([`EITHER_PART`]: whichever is held, in a release only).
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
            Sym::Unknown | Sym::TryLock(_) | Sym::Checked(_) | Sym::FieldOf(_) => {
                LockId::Site(site)
            }
        }
    }
    /// The lock of an object a frame can name the same way at two places (`this`, a parameter,
    /// a field path): what a call hands over, whose lock a caller may hold around the call.
    pub fn of_object(sym: Sym) -> Option<LockId> {
        matches!(sym, Sym::This | Sym::Param(_) | Sym::Field(..)).then(|| LockId::of(sym, u32::MAX))
    }

    fn nameable(self) -> bool {
        !matches!(self, LockId::Site(_))
    }

    /// Whether two regions may protect the same state: the same lock (the read and write locks
    /// of one `ReadWriteLock` count as one), or two locks we cannot name (they may be the same
    /// object).
    pub fn related(self, other: LockId) -> bool {
        match (self, other) {
            (LockId::Field(b1, f1, _), LockId::Field(b2, f2, _)) => b1 == b2 && f1 == f2,
            (LockId::Site(_), LockId::Site(_)) => true,
            (a, b) => a == b,
        }
    }
}

/// Whether a class synchronizes itself: a synchronized method, a synchronized block, a `Lock`
/// operation or a call to a [`LockHelper`] that takes one (calling someone else's synchronized
/// method does not count). Its public methods are the entries of the open world.
pub fn class_synchronizes(p: &Program, c: &Class) -> bool {
    let ci = p.class_index(&c.name);
    c.methods.iter().any(|m| {
        m.is_synchronized()
            || m.code.as_ref().is_some_and(|code| {
                code.insns.iter().any(|i| match i.op {
                    crate::bytecode::Op::MonitorEnter => true,
                    crate::bytecode::Op::Invoke(k, r) => {
                        (k != InvokeKind::Static
                            && (p.thread_safe.lock_op(&c.member(r).class, &c.member(r).name))
                                .is_some_and(LockOp::takes))
                            || ci.is_some_and(|ci| calls_acquire_helper(p, ci, r))
                    }
                    _ => false,
                })
            })
    })
}

/// Whether the call `r` of class `class` is to a [`LockHelper`] that takes its lock.
pub fn calls_acquire_helper(p: &Program, class: u32, r: crate::bytecode::RefId) -> bool {
    p.resolved(class, r)
        .and_then(|t| p.summary(t).lock_helper)
        .is_some_and(|h| h.acquire)
}

/// What the call at `site` does to a flag lock of the program it is made on (the receiver, a
/// field read through a base): see [`super::sharing::flag_locks`].
fn flag_lock_op(caller: &Caller<'_>, receiver: Sym, site: u32) -> Option<FlagOp> {
    let p = caller.program;
    let Sym::Field(_, fr) = receiver else {
        return None;
    };
    if !p.is_flag_lock(caller.class_id, fr) {
        return None;
    }
    super::sharing::flag_op(caller.class, caller.method.code.as_ref()?, site as usize)
}

/// `Object.wait(..)` (re-acquires its receiver) or `Condition.await*(..)`, for an instance call
/// of `r`: a call that releases a held lock and takes it again.
fn wait_target(ts: &ThreadSafeList, r: &MemberRef) -> Option<CallTarget> {
    if &*r.name == "wait" && matches!(&*r.desc, "()V" | "(J)V" | "(JI)V") {
        Some(CallTarget::Wait)
    } else if r.name.starts_with("await") && ts.is_condition(&r.class) {
        Some(CallTarget::Await)
    } else {
        None
    }
}

/// Whether method `id` waits somewhere ([`wait_target`]): its regions may be left and entered
/// again in the middle.
pub fn waits(p: &Program, id: crate::program::MethodId) -> bool {
    let c = p.class(id.class);
    (p.method(id).code.iter()).any(|code| wait_sites(p, c, code).next().is_some())
}

/// The instructions of `code` (of class `c`) that wait ([`wait_target`]).
pub fn wait_sites<'a>(
    p: &'a Program,
    c: &'a Class,
    code: &'a crate::bytecode::Code,
) -> impl Iterator<Item = u32> + 'a {
    (code.insns.iter().enumerate()).filter_map(move |(at, i)| {
        matches!(i.op, crate::bytecode::Op::Invoke(kind, r)
            if kind != InvokeKind::Static && wait_target(&p.thread_safe, c.member(r)).is_some())
        .then_some(at as u32)
    })
}

/// Whether method `id` takes a flag lock of the program ([`super::sharing::flag_locks`]).
pub fn takes_flag_lock(p: &Program, id: crate::program::MethodId) -> bool {
    p.fields.flags.acquirers.contains(&id)
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

    /// The lock of the innermost held region.
    pub fn innermost(&self) -> Option<LockId> {
        self.held.last().map(|h| h.lock)
    }

    /// The outermost held region, `(lock, site)`.
    pub fn outermost(&self) -> Option<(LockId, u32)> {
        self.held.first().map(|h| (h.lock, h.site))
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
        let pos = if let LockId::Field(b, f, EITHER_PART) = lock {
            (self.held.iter())
                .rposition(|h| matches!(h.lock, LockId::Field(hb, hf, 1 | 2) if hb == b && hf == f))
        } else if lock.nameable() {
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

    /// The join at a merge point: the locks held on both paths (common prefix), a nameable lock
    /// acquired at a different site on each path as one region at the earlier site.
    pub fn join(&self, other: &LockState) -> LockState {
        let mut held = Vec::new();
        for (a, b) in self.held.iter().zip(other.held.iter()) {
            // One lock acquired on each path at its own site (`if (!l.tryLock()) return;` on
            // one arm, `l.lock()` on the other) is held after the join all the same: one
            // region from here on, named by the earlier site on every path.
            // One read-write lock held on both paths, in read mode on one and write mode on the
            // other (a stamped lock's read lock converted, or given back and the write lock
            // taken, in a retry loop): held, as its read lock (the weaker).
            let lock = match (a.lock, b.lock) {
                (x, y) if x == y && (a.site == b.site || x.nameable()) => x,
                (LockId::Field(ab, af, 1..=2), LockId::Field(bb, bf, 1..=2))
                    if (ab, af) == (bb, bf) =>
                {
                    LockId::Field(ab, af, 1)
                }
                _ => break,
            };
            held.push(Held {
                lock,
                site: a.site.min(b.site),
                count: a.count.min(b.count),
            });
        }
        LockState { held }
    }
}

/// The fields of a class that hold one part of a `ReadWriteLock` held in another field of the
/// same object: `readLock = rw.readLock()` in a constructor. By the class's field reference:
/// `(reference of the read-write lock field, write part)`. A region on such a field is a region
/// on that part of the read-write lock, related to the other part's.
pub fn rw_lock_parts(c: &Class) -> crate::fxhash::FxHashMap<u32, (u32, bool)> {
    use crate::bytecode::Op;
    let mut out = crate::fxhash::FxHashMap::default();
    for m in c.methods.iter().filter(|m| &*m.name == "<init>") {
        let Some(code) = &m.code else { continue };
        for w in code.insns.windows(5) {
            let (
                Op::Load(0, 1),
                Op::Load(0, 1),
                Op::GetField(rw),
                Op::Invoke(_, part),
                Op::PutField(x),
            ) = (&w[0].op, &w[1].op, &w[2].op, &w[3].op, &w[4].op)
            else {
                continue;
            };
            let write = match &*c.member(*part).name {
                "readLock" => false,
                "writeLock" => true,
                _ => continue,
            };
            out.insert(*x, (*rw, write));
        }
    }
    out
}

/// A set of two-part names looked up without allocating: `class.method` (split at the last
/// `.`) or `name(desc)` (split at the `(`). An entry of the first part alone covers every second
/// part.
#[derive(Clone, Debug, Default)]
pub struct Pairs(crate::fxhash::FxHashMap<Box<str>, Option<FxHashSet<Box<str>>>>);

impl Pairs {
    fn insert(&mut self, first: &str, second: Option<&str>) {
        match second {
            None => {
                self.0.insert(first.into(), None);
            }
            Some(b) => {
                if let Some(set) = self
                    .0
                    .entry(first.into())
                    .or_insert_with(|| Some(FxHashSet::default()))
                {
                    set.insert(b.into());
                }
            }
        }
    }

    /// `class.method` entries (or a class alone).
    fn insert_member(&mut self, text: &str) {
        match text.rsplit_once('.') {
            Some((class, member)) => self.insert(class, Some(member)),
            None => self.insert(text, None),
        }
    }

    /// `name(desc)` entries (or a name alone).
    fn insert_signature(&mut self, text: &str) {
        match text.find('(') {
            Some(i) => self.insert(&text[..i], Some(&text[i..])),
            None => self.insert(text, None),
        }
    }

    pub fn contains(&self, first: &str, second: &str) -> bool {
        match self.0.get(first) {
            Some(None) => true,
            Some(Some(set)) => set.contains(second),
            None => false,
        }
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Thread-safe library classes, `Lock` and `Condition` types, and synchronized-wrapper
/// factories, read from the data file.
#[derive(Clone, Debug, Default)]
pub struct ThreadSafeList {
    classes: FxHashSet<String>,
    factories: Pairs,
    /// Factories that wrap the object they are given (`Collections.newSetFromMap`): the result
    /// is thread-safe when that object is.
    wrappers: Pairs,
    locks: FxHashSet<String>,
    /// Read-write locks whose acquisitions return a stamp (`StampedLock`).
    stamped: FxHashSet<String>,
    /// Plain (not thread-safe) collections of the platform and their interfaces.
    collections: FxHashSet<String>,
    conditions: FxHashSet<String>,
    /// Method names, or names with descriptors.
    validating: Pairs,
    /// Conditional updates (`putIfAbsent`, `computeIfAbsent`): method names.
    checked: FxHashSet<String>,
    /// Sets, whose `add(o)` inserts `o` only where it is absent and says whether it did.
    set_classes: FxHashSet<String>,
    /// Methods returning a live view (`iterator`, `keySet`): method names.
    views: FxHashSet<String>,
    /// Methods returning a new copy of the contents (`toArray`): method names.
    copies: FxHashSet<String>,
    /// How each method accesses the object's state ([`STATE_READ`], [`STATE_WRITE`]).
    state: crate::fxhash::FxHashMap<String, u8>,
    /// `class.method`.
    immutable: Pairs,
    /// Classes of the program that extend or implement a thread-safe class: their methods
    /// that the program does not define are the library's (one-call regions).
    inherited: FxHashSet<String>,
    /// Methods that replace the whole value of an atomic (`set`, `lazySet`).
    sets: FxHashSet<String>,
    /// Single-writer publications (`lazySet`, `setRelease`, `setOpaque`).
    publishes: FxHashSet<String>,
    /// Looks at a queue's head (`peek`, `element`): method names.
    head_reads: FxHashSet<String>,
    /// Looks at how many elements there are (`isEmpty`, `size`): method names.
    size_reads: FxHashSet<String>,
    /// Can make a collection smaller (`remove`, `clear`, `poll`): method names.
    shrinks: FxHashSet<String>,
    /// Ask whether the calling thread holds a lock (`isHeldByCurrentThread`): method names.
    held_queries: FxHashSet<String>,
    /// Look at whether a key is there (`containsKey`): method names.
    key_tests: FxHashSet<String>,
    /// Look a value up by its key, `null` where the key is gone (`get(Object)`): names with
    /// descriptors.
    key_reads: Pairs,
    key_puts: Pairs,
    /// Takes a queue's head (`poll`, `remove()`): names, or names with descriptors.
    head_removes: Pairs,
    /// Adds its argument to the value the object holds now (`addAndGet`, `getAndAdd`, a
    /// `LongAdder`'s `add`): names, or names with descriptors.
    deltas: Pairs,
    /// Message APIs: classes, or `class.method`.
    formats: Pairs,
    /// Plain (non-atomic) accesses of thread-safe classes: `class.method`.
    plain: Pairs,
    /// Methods returning the calling thread's own object (`ThreadLocal.get`): `class.method`.
    per_thread: Pairs,
    /// Static factories of a new, empty object (`ByteBuffer.allocate`): `class.method`.
    fresh: Pairs,
    /// Immutable value types of the platform.
    values: FxHashSet<String>,
    /// Clock readings: `class.method`.
    clocks: Pairs,
    /// Interfaces whose objects are used by one thread at a time by contract (iterators).
    confined: FxHashSet<String>,
    legacy: FxHashSet<String>,
    /// Thread-safe holders of one value (an atomic): `scalar`.
    scalars: FxHashSet<String>,
    /// Methods of a scalar that store their last argument as its value: `scalar-set`.
    scalar_sets: FxHashSet<String>,
    /// Methods of a scalar that only read its value: `scalar-get`.
    scalar_gets: FxHashSet<String>,
    /// Platform methods that reach a field by its name (`reflective`): `class.method`.
    reflective: Pairs,
    /// Methods of an interface that its contract calls serially on one object (`serial`):
    /// `interface.method`.
    serial: Pairs,
    /// Every class any class-keyed list names ([`ThreadSafeList::mentions`]), gathered on first
    /// use after the last change.
    mentioned: std::sync::OnceLock<FxHashSet<Box<str>>>,
}

/// A method of a thread-safe object reads its state.
pub const STATE_READ: u8 = 1;
/// A method of a thread-safe object writes its state.
pub const STATE_WRITE: u8 = 2;

impl ThreadSafeList {
    pub fn builtin() -> Self {
        let mut l = ThreadSafeList::default();
        l.extend_from(THREAD_SAFE_DATA);
        l
    }

    /// Whether any class-keyed list names `class` (a thread-safe class, a lock, a condition, a
    /// message or clock API, an immutable or plain method's class, ...): one look-up that rules
    /// out all of them for the program's own classes, which most calls are to.
    pub fn mentions(&self, class: &str) -> bool {
        self.mentioned
            .get_or_init(|| {
                let keys = |p: &Pairs| p.0.keys().cloned().collect::<Vec<_>>();
                let sets = [
                    &self.classes,
                    &self.locks,
                    &self.stamped,
                    &self.collections,
                    &self.conditions,
                    &self.inherited,
                    &self.values,
                    &self.confined,
                    &self.legacy,
                    &self.scalars,
                ];
                let pairs = [
                    &self.factories,
                    &self.immutable,
                    &self.formats,
                    &self.plain,
                    &self.per_thread,
                    &self.fresh,
                    &self.clocks,
                    &self.reflective,
                    &self.serial,
                ];
                (sets
                    .iter()
                    .flat_map(|s| s.iter().map(|c| c.as_str().into())))
                .chain(pairs.iter().flat_map(|p| keys(p)))
                .collect()
            })
            .contains(class)
    }

    /// Add the entries of a list in the data-file format (lines `class|factory|lock|condition NAME`).
    pub fn extend_from(&mut self, text: &str) {
        self.mentioned = Default::default();
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut parts = line.split_whitespace();
            let (Some(kind), Some(name)) = (parts.next(), parts.next()) else {
                continue;
            };
            let access = match kind {
                "state-read" => STATE_READ,
                "state-write" => STATE_WRITE,
                "state-set" => {
                    self.sets.insert(name.to_string());
                    STATE_WRITE
                }
                "state-update" => STATE_READ | STATE_WRITE,
                _ => 0,
            };
            if access != 0 {
                self.state.insert(name.to_string(), access);
                continue;
            }
            match kind {
                "factory" => self.factories.insert_member(name),
                "wrap" => self.wrappers.insert_member(name),
                "immutable" => self.immutable.insert_member(name),
                "plain" => self.plain.insert_member(name),
                "per-thread" => self.per_thread.insert_member(name),
                "fresh" => self.fresh.insert_member(name),
                "clock" => self.clocks.insert_member(name),
                "format" => self.formats.insert_member(name),
                "validating" => self.validating.insert_signature(name),
                "head-remove" => self.head_removes.insert_signature(name),
                "key-read" => self.key_reads.insert_signature(name),
                "key-put" => self.key_puts.insert_signature(name),
                "delta" => self.deltas.insert_signature(name),
                "reflective" => self.reflective.insert_member(name),
                "serial" => self.serial.insert_member(name),
                _ => {}
            }
            let set = match kind {
                "class" => &mut self.classes,
                "lock" => &mut self.locks,
                "stamped" => &mut self.stamped,
                "collection" => &mut self.collections,
                "condition" => &mut self.conditions,
                "checked" => &mut self.checked,
                "set" => &mut self.set_classes,
                "view" => &mut self.views,
                "publish" => &mut self.publishes,
                "head-read" => &mut self.head_reads,
                "size-read" => &mut self.size_reads,
                "size-shrink" => &mut self.shrinks,
                "held-query" => &mut self.held_queries,
                "key-test" => &mut self.key_tests,
                "copy" => &mut self.copies,
                "value" => &mut self.values,
                "confined" => &mut self.confined,
                "legacy" => &mut self.legacy,
                "scalar" => &mut self.scalars,
                "scalar-set" => &mut self.scalar_sets,
                "scalar-get" => &mut self.scalar_gets,
                _ => continue,
            };
            set.insert(name.to_string());
        }
    }

    pub fn is_class(&self, name: &str) -> bool {
        self.classes.contains(name)
    }
    /// A class of the program that extends or implements a thread-safe class.
    pub fn inherits_class(&self, name: &str) -> bool {
        self.inherited.contains(name)
    }
    pub fn is_factory(&self, class: &str, method: &str) -> bool {
        self.factories.contains(class, method)
    }
    /// Whether `class.method` wraps the one object it is given (see `wrap` in the data file).
    pub fn is_wrapper(&self, class: &str, method: &str) -> bool {
        self.wrappers.contains(class, method)
    }
    pub fn is_lock(&self, name: &str) -> bool {
        self.locks.contains(name)
    }
    /// A plain collection of the platform, or one of its interfaces (see
    /// [`crate::whole::causal::CONTENTS`]).
    /// Whether method `name` asks whether the calling thread holds a lock (a lock's own query,
    /// or a lock wrapper's of the same name).
    pub fn is_held_query(&self, name: &str) -> bool {
        self.held_queries.contains(name)
    }

    pub fn is_collection(&self, name: &str) -> bool {
        self.collections.contains(name)
    }
    /// What the instance method `name` of `class` does to the lock it is called on: a `Lock`'s
    /// `lock()`, `tryLock()` and `unlock()`, and a `StampedLock`'s acquisitions and releases
    /// of its read and write locks (a stamped lock is a read-write lock whose acquisitions
    /// return a stamp, 0 for a failed try).
    pub fn lock_op(&self, class: &str, name: &str) -> Option<LockOp> {
        use LockOp::*;
        // The name first: most calls are no lock operation, and then no class is looked up.
        // Every lock operation's name ends so (`lock`, `tryLock`, `lockInterruptibly`,
        // `unlockRead`, `unlockWrite`): a test of three bytes before any comparison.
        if !matches!(
            name.as_bytes(),
            [.., b'o', b'c', b'k']
                | [.., b'b', b'l', b'y']
                | [.., b'e', b'a', b'd']
                | [.., b'i', b't', b'e']
                | [.., b'a', b't', b'e']
        ) {
            return None;
        }
        let of_lock = match name {
            "lock" | "lockInterruptibly" => Some(Acquire(Part::Whole)),
            "tryLock" => Some(TryAcquire(Part::Whole)),
            "unlock" => Some(Release(Part::Whole)),
            _ => None,
        };
        if of_lock.is_some() && self.locks.contains(class) {
            return of_lock;
        }
        stamped_op(name).filter(|_| self.stamped.contains(class))
    }
    pub fn is_condition(&self, name: &str) -> bool {
        self.conditions.contains(name)
    }
    /// A compare-and-set style method: it checks its arguments against the current state.
    pub fn is_validating(&self, name: &str, desc: &str) -> bool {
        self.validating.contains(name, desc)
    }
    pub fn is_immutable(&self, class: &str, name: &str) -> bool {
        self.immutable.contains(class, name)
    }

    /// How a method of a thread-safe class accesses the object's state ([`STATE_READ`],
    /// [`STATE_WRITE`], both). A method not listed counts as both.
    pub fn state_access(&self, name: &str) -> u8 {
        self.state
            .get(name)
            .copied()
            .unwrap_or(STATE_READ | STATE_WRITE)
    }

    /// How a method of a plain collection accesses its contents: as [`Self::state_access`]
    /// lists it, and a method not listed only reads them (the listed writes are the ways to
    /// change a collection; a method of a subtype that the list does not name is taken for a
    /// query rather than for an update nothing shows).
    pub fn contents_access(&self, name: &str) -> u8 {
        self.state.get(name).copied().unwrap_or(STATE_READ)
    }

    /// A plain (non-atomic) heap access of a thread-safe class (`VarHandle.get`).
    pub fn is_plain(&self, class: &str, name: &str) -> bool {
        self.plain.contains(class, name)
    }

    /// A method returning the calling thread's own object (`ThreadLocal.get()`): no other
    /// thread sees what it returns, as if this thread had just made it.
    pub fn is_per_thread(&self, class: &str, name: &str) -> bool {
        self.per_thread.contains(class, name)
    }

    /// A static factory of a new, empty object (`ByteBuffer.allocate(n)`): what it returns is
    /// new, and holds none of its arguments (a capacity), as `new byte[n]` does not.
    pub fn is_fresh(&self, class: &str, name: &str) -> bool {
        self.fresh.contains(class, name)
    }

    /// A clock reading of the platform (`System.nanoTime()`).
    pub fn is_clock(&self, class: &str, name: &str) -> bool {
        self.clocks.contains(class, name)
    }

    /// An immutable value type of the platform (`String`, `Long`, `TimeUnit`).
    pub fn is_value(&self, class: &str) -> bool {
        self.values.contains(class)
    }

    /// The interfaces whose objects one thread uses at a time by contract (`Iterator`).
    pub fn confined(&self) -> impl Iterator<Item = &str> {
        self.confined.iter().map(|s| s.as_str())
    }

    /// The interfaces that declare `method` as one their contract calls serially on one object
    /// (`serial`: a subscriber's `onNext`).
    pub fn serial_interfaces<'a>(&'a self, method: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.serial
            .0
            .iter()
            .filter(move |(_, names)| names.as_ref().is_none_or(|n| n.contains(method)))
            .map(|(iface, _)| &**iface)
    }

    /// A thread-safe class synchronized for compatibility (`legacy`): `Vector`, `Hashtable`.
    pub fn is_legacy(&self, name: &str) -> bool {
        self.legacy.contains(name)
    }

    /// Whether method `name` of a thread-safe object replaces its whole value (`set`): a value
    /// read from the object before is no longer in it.
    pub fn is_set(&self, name: &str) -> bool {
        self.sets.contains(name)
    }

    /// Whether a class is a thread-safe holder of one value (`scalar`: an atomic).
    pub fn is_scalar(&self, class: &str) -> bool {
        self.scalars.contains(class)
    }

    /// Whether method `name` of a scalar stores its last argument as the value (`scalar-set`:
    /// `set`, `getAndSet`, `compareAndSet`).
    pub fn is_scalar_set(&self, name: &str) -> bool {
        self.scalar_sets.contains(name)
    }

    /// Whether method `name` of a scalar only reads its value (`scalar-get`: `get`,
    /// `getAcquire`).
    pub fn is_scalar_get(&self, name: &str) -> bool {
        self.scalar_gets.contains(name)
    }

    /// Whether a platform method reaches a field by its name (`reflective`: a field updater, a
    /// `VarHandle`, `Unsafe`'s offsets): code calling it may write fields with no `putfield`.
    pub fn is_reflective(&self, class: &str, name: &str) -> bool {
        self.reflective.contains(class, name)
    }

    /// Whether method `name` of a thread-safe object is a single-writer publication
    /// (`lazySet`, `setRelease`, `setOpaque`): its caller owns the object's value.
    pub fn is_publish(&self, name: &str) -> bool {
        self.publishes.contains(name)
    }

    /// Whether method `name` of a thread-safe object looks at a queue's head.
    pub fn is_head_read(&self, name: &str) -> bool {
        self.head_reads.contains(name)
    }

    /// Whether method `name` of a thread-safe object looks at how many elements there are.
    pub fn is_size_read(&self, name: &str) -> bool {
        self.size_reads.contains(name)
    }

    /// Whether method `name` looks at whether a key is there (`containsKey`).
    pub fn is_key_test(&self, name: &str) -> bool {
        self.key_tests.contains(name)
    }

    /// Whether method `name` with descriptor `desc` looks a value up by its key (`get(Object)`).
    pub fn is_key_read(&self, name: &str, desc: &str) -> bool {
        self.key_reads.contains(name, desc)
    }

    /// Whether method `name` with descriptor `desc` stores a value under a key (`put`): a
    /// look that the key is there, as far as the thread's own later lookup goes.
    pub fn is_key_put(&self, name: &str, desc: &str) -> bool {
        self.key_puts.contains(name, desc)
    }

    /// Whether method `name` of a thread-safe object can make it hold fewer elements.
    pub fn is_shrink(&self, name: &str) -> bool {
        self.shrinks.contains(name)
    }

    /// Whether method `name` (with descriptor `desc`) takes a queue's head.
    pub fn is_head_remove(&self, name: &str, desc: &str) -> bool {
        self.head_removes.contains(name, desc)
    }

    /// Whether method `name` (with descriptor `desc`) of a thread-safe object adds its
    /// argument to the value the object holds when it runs (see `delta` in the data file).
    pub fn is_delta(&self, name: &str, desc: &str) -> bool {
        self.deltas.contains(name, desc)
    }

    /// Whether a call only turns its arguments into text (see `format` in the data file).
    pub fn is_format(&self, class: &str, method: &str) -> bool {
        !self.formats.is_empty() && self.formats.contains(class, method)
    }

    /// Whether a call of `class.name` (descriptor `desc`) is a set's `add(o)`: it inserts `o`
    /// only where it is absent, and its result says whether it did. Tested, that result is a
    /// conditional insert's outcome, like `putIfAbsent`'s (`if (seen.add(id))`).
    pub fn is_conditional_insert(&self, class: &str, name: &str, desc: &str) -> bool {
        name == "add" && desc == "(Ljava/lang/Object;)Z" && self.set_classes.contains(class)
    }

    /// What a call of method `name` on a thread-safe object gives back, and whether it checks
    /// its arguments against the current state (compare-and-set, a conditional update).
    pub fn library_call(&self, name: &str, desc: &str, returns: bool) -> (Returns, bool) {
        let checks = self.is_validating(name, desc) || self.checked.contains(name);
        let result = if !returns {
            Returns::Nothing
        } else if self.views.contains(name) {
            Returns::View
        } else if self.copies.contains(name) || self.state_access(name) & STATE_WRITE != 0 || checks
        {
            Returns::Owned
        } else {
            Returns::Shared
        };
        (result, checks)
    }

    /// Add the logging facades of the program and its class path to the messages: a class or
    /// interface that declares logging methods ([`log_levels`]) for at least three levels is a
    /// logger (a library's own `Log` interface, a platform logger), and so is each of its
    /// subtypes. A call of a logging method of one only turns its arguments into text, like
    /// the loggers the data file names. One method named like a level (a report's `warn`) makes
    /// no logger. `supertypes(i)` gives the indices of all of class `i`'s supertypes (those past
    /// the end of `classes` are not loaded, and not loggers).
    pub fn add_loggers<'s>(&mut self, classes: &[Class], supertypes: impl Fn(usize) -> &'s [u32]) {
        self.mentioned = Default::default();
        use rayon::prelude::*;
        let own: Vec<Vec<&'static str>> = classes
            .par_iter()
            .with_max_len(crate::PAR_CHUNK)
            .map(|c| {
                Some(log_levels(c))
                    .filter(|l| l.len() >= 3)
                    .unwrap_or_default()
            })
            .collect();
        if own.iter().all(Vec::is_empty) {
            return;
        }
        for (i, c) in classes.iter().enumerate() {
            let sups = supertypes(i).iter().filter_map(|&s| own.get(s as usize));
            for &l in std::iter::once(&own[i]).chain(sups).flatten() {
                self.formats.insert(&c.name, Some(l));
            }
        }
    }

    /// Extend the lists to the program's own subtypes: a class that extends `ReentrantLock` (a
    /// cache segment that is its own lock) is a lock, one that implements `Condition` is a
    /// condition, the constructor of one that extends an exception whose constructor takes a
    /// message (`format` `<init>`) takes one too, and the methods one that extends
    /// `ConcurrentHashMap` inherits are thread-safe ([`ThreadSafeList::inherits_class`]; the
    /// ones it defines have code of their own). `supertypes(name)` gives a class's direct
    /// supertypes when the program has it.
    pub fn inherit<'a>(
        &mut self,
        names: &[&'a str],
        supertypes: impl Fn(&str) -> Vec<&'a str> + Sync,
    ) {
        self.mentioned = Default::default();
        use rayon::prelude::*;
        let found: Vec<(u8, String)> = names
            .par_iter()
            .with_max_len(crate::PAR_CHUNK)
            .filter_map(|&name| {
                let mut stack = supertypes(name);
                let mut seen = 0;
                let mut kinds = 0u8;
                while let Some(s) = stack.pop() {
                    seen += 1;
                    if seen > 256 {
                        break;
                    }
                    kinds |= u8::from(self.classes.contains(s))
                        | u8::from(self.locks.contains(s)) << 1
                        | u8::from(self.conditions.contains(s)) << 2
                        | u8::from(self.formats.contains(s, "<init>")) << 3;
                    stack.extend(supertypes(s));
                }
                (kinds != 0).then(|| (kinds, name.to_string()))
            })
            .collect();
        for (kinds, name) in found {
            if kinds & 1 != 0 {
                self.inherited.insert(name.clone());
            }
            if kinds & 2 != 0 {
                self.locks.insert(name.clone());
            }
            if kinds & 8 != 0 {
                self.formats.insert(&name, Some("<init>"));
            }
            if kinds & 4 != 0 {
                self.conditions.insert(name);
            }
        }
    }
}

/// Method names of log levels: a type with several void methods so named, each taking the
/// message first, is a logging facade (see [`ThreadSafeList::add_loggers`]).
const LOG_LEVELS: [&str; 11] = [
    "trace", "debug", "info", "warn", "warning", "error", "fatal", "severe", "fine", "finer",
    "finest",
];

/// The level names of `c`'s own logging methods: void instance methods named after a log level
/// whose first parameter is the message (a `String`, `CharSequence`, `Object` or `Supplier`).
fn log_levels(c: &Class) -> Vec<&'static str> {
    let mut levels: Vec<&'static str> = Vec::new();
    for m in &c.methods {
        let message_first = [
            "(Ljava/lang/String;",
            "(Ljava/lang/CharSequence;",
            "(Ljava/lang/Object;",
            "(Ljava/util/function/Supplier;",
        ]
        .iter()
        .any(|p| m.descriptor.starts_with(p));
        if m.is_static() || !m.descriptor.ends_with(")V") || !message_first {
            continue;
        }
        if let Some(&level) = LOG_LEVELS.iter().find(|&&l| *m.name == *l) {
            if !levels.contains(&level) {
                levels.push(level);
            }
        }
    }
    levels
}

/// A call of `Object.clone()` as the platform implements it (`super.clone()` reaching
/// `Object`, an array's `clone()`, a platform class's copy such as `ArrayList.clone()`): by its
/// contract a new object, a copy no other thread can see yet. A `clone()` the program overrides
/// is resolved to its code instead and is fresh when its summary says so
/// ([`crate::analysis::summary::fresh_factories`]).
pub fn is_platform_copy(name: &str, desc: &str, instance: bool) -> bool {
    instance && name == "clone" && desc == "()Ljava/lang/Object;"
}

/// Whether call `r` of class `class_id` (`class`) is the platform's `clone()`
/// ([`is_platform_copy`]): not resolved to code of the program.
pub fn calls_platform_copy(
    p: &Program,
    (class_id, class): (u32, &Class),
    kind: InvokeKind,
    r: crate::bytecode::RefId,
) -> bool {
    let m = class.member(r);
    is_platform_copy(&m.name, &m.desc, kind != InvokeKind::Static)
        && p.resolved(class_id, r).is_none()
}

/// Methods of `java.lang.Object` (and constructors): never a region on their own.
pub(crate) fn is_object_method(name: &str) -> bool {
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

/// What a region call gives back to its caller: the part of the shared model that says whether
/// a call's result is shared state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Returns {
    /// Nothing shared: no result, or one computed from the arguments alone.
    Nothing,
    /// A snapshot of shared state read inside the region (`get()`, `size()`, a synchronized
    /// getter): stale once another region is entered.
    Shared,
    /// The thread's own value: the outcome of its own atomic read-modify-write
    /// (`incrementAndGet`, `getAndSet`, `putIfAbsent`) or an element it took out (`poll`,
    /// `remove`). Not a snapshot that others invalidate; stale only when written back where it
    /// came from.
    Owned,
    /// A live view of a thread-safe collection (an iterator, `keySet()`, `values()`): weakly
    /// consistent by contract, not a snapshot.
    View,
    /// An object the callee allocated (a factory's result): no other thread can see it yet.
    Fresh,
    /// A clock reading, or a time computed from one (`System.nanoTime()`, a deadline): not
    /// shared state.
    Clock,
}

/// How a call site relates to atomic regions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallEffect {
    /// An ordinary call: no lock taken. `returns`: its result may come from shared state
    /// (`Shared`), is the outcome of the callee's own update of shared state (`Owned`), or is
    /// computed from the arguments alone (`Nothing`).
    Plain { returns: Returns },
    /// The call is one atomic region on `lock` (a thread-safe library call, or a callee that
    /// takes a lock). `kind` says why; `returns`: what its result is.
    Region {
        lock: LockId,
        kind: RegionCall,
        returns: Returns,
    },
    /// `Lock.lock()` / `lockInterruptibly()`.
    Acquire(LockId),
    /// `Lock.tryLock(..)`: acquires on the success branch.
    TryAcquire(LockId),
    /// `Lock.unlock()`.
    Release(LockId),
    /// `Object.wait(..)` / `Condition.await*(..)`: releases and re-acquires the lock.
    Wait(Option<LockId>),
    /// A message API (string building, formatting, logging): its arguments become text.
    Format,
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
    /// A lock operation (see [`ThreadSafeList::lock_op`]).
    Lock(LockOp),
    /// `Object.wait(..)`: re-acquires the receiver.
    Wait,
    /// `Condition.await*(..)`: re-acquires the lock of the innermost region.
    Await,
    /// A method of a thread-safe library class (unless the receiver is local); `validates`:
    /// compare-and-set style or a conditional update.
    ThreadSafe { returns: Returns, validates: bool },
    /// A method of a thread-safe class that reads only immutable state (`length()` of an
    /// atomic array): an ordinary call.
    Immutable,
    /// A constructor: its locks are on the object under construction.
    Init,
    /// A message API (see [`ThreadSafeList::is_format`]).
    Format,
    /// A clock of the platform (see [`ThreadSafeList::is_clock`]).
    Clock,
    /// The platform's `clone()` (see [`is_platform_copy`]): a new object; also the calling
    /// thread's own object (see [`ThreadSafeList::is_per_thread`]).
    Copy,
    /// Neither scanned nor on the classpath. `reads_heap`: its result may come from shared
    /// state other than its arguments (see [`unknown_reads_heap`]).
    Unknown {
        returns: bool,
        maybe_thread_safe: bool,
        reads_heap: bool,
        /// A method of an I/O class of the platform: its result is the outcome of this
        /// thread's own I/O.
        io: bool,
    },
    /// A method with a summary.
    Method {
        /// Summary facts of the callee.
        locks: bool,
        reads_heap: bool,
        writes_heap: bool,
        returns_shared: bool,
        returns_fresh: bool,
        returns_clock: bool,
        /// A fluent callee: its result is its receiver.
        returns_this: bool,
        own_lock: Option<OwnLock>,
        /// `@Atomic` callee.
        atomic: bool,
        /// `synchronized` callee of the caller's abstraction.
        same_abstraction: bool,
        /// The callee's class (its monitor, for `static synchronized`).
        callee_class: u32,
        /// An instance method that may be called on a thread-safe field.
        maybe_thread_safe: bool,
        returns: bool,
        /// The callee only takes, or only releases, one lock its caller can name.
        helper: Option<LockHelper>,
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
    // Most calls are to classes no list names: one look-up rules out the lists.
    let listed = ts.mentions(class);
    if listed && ts.is_format(class, name) {
        return CallTarget::Format;
    }
    if listed && ts.is_clock(class, name) {
        return CallTarget::Clock;
    }
    // Each thread's own value: new to this thread, like a copy it made; and a new, empty object.
    let own = if instance {
        ts.is_per_thread(class, name)
    } else {
        ts.is_fresh(class, name)
    };
    if listed && own {
        return CallTarget::Copy;
    }
    if instance {
        if let Some(op) = ts.lock_op(class, name) {
            return CallTarget::Lock(op);
        }
        if let Some(wait) = wait_target(ts, r) {
            return wait;
        }
        let library_method = listed
            && (ts.is_class(class)
                || (ts.inherits_class(class) && p.resolved(caller.class_id, ref_id).is_none()));
        if library_method && !is_object_method(name) {
            if ts.is_immutable(class, name) {
                return CallTarget::Immutable;
            }
            if ts.is_plain(class, name) {
                return CallTarget::Unknown {
                    returns,
                    maybe_thread_safe: false,
                    reads_heap: true,
                    io: false,
                };
            }
            let (returns, validates) = ts.library_call(name, &r.desc, returns);
            return CallTarget::ThreadSafe { returns, validates };
        }
    }
    if name == "<init>" {
        return CallTarget::Init;
    }
    let maybe_thread_safe = instance && !is_object_method(name) && p.has_thread_safe_fields();
    let Some(target) = p.resolved(caller.class_id, ref_id) else {
        if is_platform_copy(name, &r.desc, instance) {
            return CallTarget::Copy;
        }
        return CallTarget::Unknown {
            returns,
            maybe_thread_safe,
            reads_heap: unknown_reads_heap(ts, class, kind),
            io: instance && super::sharing::is_io(class),
        };
    };
    let s = p.summary(target);
    let callee = p.method(target);
    CallTarget::Method {
        locks: s.locks,
        reads_heap: s.reads_heap,
        writes_heap: s.writes_heap,
        returns_shared: s.returns_shared,
        returns_fresh: s.returns_fresh,
        returns_clock: s.returns_clock,
        returns_this: s.returns_this,
        own_lock: s.own_lock,
        atomic: s.own_lock == Some(OwnLock::Atomic),
        same_abstraction: callee.is_synchronized()
            && p.same_abstraction(caller.class_id, target.class),
        callee_class: target.class,
        maybe_thread_safe,
        returns,
        helper: s.lock_helper,
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
    // A stamped lock's read or write lock: a part of the lock its field holds.
    let lock_part = |part: Part| match (receiver, part) {
        (Sym::Field(b, f), Part::Read | Part::Write) => {
            LockId::of(Sym::RwPart(b, f, part == Part::Write), site)
        }
        (Sym::Field(b, f), Part::Either) => LockId::Field(b, f, EITHER_PART),
        _ => lock_of_receiver(),
    };
    let thread_safe_region = |returns: Returns, validates: bool| CallEffect::Region {
        lock: lock_of_receiver(),
        kind: if validates {
            RegionCall::Validating
        } else {
            RegionCall::ThreadSafeLibrary
        },
        returns,
    };
    // A method of a field that holds a thread-safe object, known by name only.
    let field_call = |returns: bool| {
        let r = match call_ref(caller, site) {
            Some(r) => p.thread_safe.library_call(&r.name, &r.desc, returns),
            None => (
                if returns {
                    Returns::Shared
                } else {
                    Returns::Nothing
                },
                false,
            ),
        };
        thread_safe_region(r.0, r.1)
    };
    match target {
        CallTarget::Lock(LockOp::Acquire(part)) => CallEffect::Acquire(lock_part(part)),
        CallTarget::Lock(LockOp::TryAcquire(part)) => CallEffect::TryAcquire(lock_part(part)),
        CallTarget::Lock(LockOp::Release(part)) => CallEffect::Release(lock_part(part)),
        CallTarget::Wait => CallEffect::Wait(Some(lock_of_receiver())),
        CallTarget::Await => CallEffect::Wait(None),
        CallTarget::ThreadSafe { returns, validates } => {
            if is_local_object(caller, receiver) {
                CallEffect::Plain {
                    returns: Returns::Nothing,
                }
            } else {
                match flag_lock_op(caller, receiver, site) {
                    Some(FlagOp::Acquire) => CallEffect::TryAcquire(lock_of_receiver()),
                    Some(FlagOp::Release) => CallEffect::Release(lock_of_receiver()),
                    _ => thread_safe_region(returns, validates),
                }
            }
        }
        CallTarget::Immutable | CallTarget::Init => CallEffect::Plain {
            returns: Returns::Nothing,
        },
        CallTarget::Format => CallEffect::Format,
        CallTarget::Clock => CallEffect::Plain {
            returns: Returns::Clock,
        },
        CallTarget::Copy => CallEffect::Plain {
            returns: Returns::Fresh,
        },
        CallTarget::Unknown {
            returns,
            maybe_thread_safe,
            reads_heap,
            io,
        } => {
            if maybe_thread_safe && is_thread_safe_field(caller, receiver) {
                return field_call(returns);
            }
            match p.config.unknown_calls {
                crate::config::UnknownCalls::NoLock => CallEffect::Plain {
                    returns: if io && returns {
                        Returns::Owned
                    } else if reads_heap {
                        Returns::Shared
                    } else {
                        Returns::Nothing
                    },
                },
                crate::config::UnknownCalls::Conservative => CallEffect::Region {
                    lock: LockId::Site(site),
                    kind: RegionCall::Other,
                    returns: if returns {
                        Returns::Shared
                    } else {
                        Returns::Nothing
                    },
                },
            }
        }
        CallTarget::Method {
            locks,
            reads_heap,
            writes_heap,
            returns_shared,
            returns_fresh,
            returns_clock,
            returns_this: _,
            own_lock,
            atomic,
            same_abstraction,
            callee_class,
            maybe_thread_safe,
            returns,
            helper,
        } => {
            if maybe_thread_safe && is_thread_safe_field(caller, receiver) {
                return field_call(returns);
            }
            let helper_lock = helper
                .filter(|_| !p.config.context_insensitive)
                .and_then(|h| Some((h, h.lock.at_call(caller, kind, receiver)?)));
            if let Some((h, lock)) = helper_lock {
                return match (h.acquire, h.tries) {
                    (true, true) => CallEffect::TryAcquire(lock),
                    (true, false) => CallEffect::Acquire(lock),
                    (false, _) => CallEffect::Release(lock),
                };
            }
            if !locks {
                // The outcome of the callee's own update is the thread's own; a getter's
                // result may be a snapshot.
                return CallEffect::Plain {
                    returns: if returns_clock {
                        Returns::Clock
                    } else if returns_fresh {
                        Returns::Fresh
                    } else if writes_heap && returns {
                        Returns::Owned
                    } else if reads_heap {
                        Returns::Shared
                    } else {
                        Returns::Nothing
                    },
                };
            }
            let lock = if atomic {
                LockId::Atomic
            } else if p.config.context_insensitive {
                LockId::Site(site)
            } else {
                match own_lock {
                    Some(OwnLock::Receiver) if kind != InvokeKind::Static => lock_of_receiver(),
                    Some(OwnLock::Class) => LockId::Class(class_hash(&p.class(callee_class).name)),
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
                returns: if returns_fresh {
                    Returns::Fresh
                } else if returns_shared && writes_heap {
                    Returns::Owned
                } else if returns_shared {
                    Returns::Shared
                } else {
                    Returns::Nothing
                },
            }
        }
    }
}

/// Whether the result of a call to code the program does not have may come from shared state
/// other than its arguments. A static method of the platform computes from its arguments, or
/// reads state of the platform that no lock of the program protects (`System.nanoTime()`,
/// `Math.max`, `Integer.valueOf`), and so does a method of an immutable value type of the
/// platform (`String.length()`, `TimeUnit.toMillis`); another instance method may read its
/// receiver's state.
pub fn unknown_reads_heap(ts: &ThreadSafeList, class: &str, kind: InvokeKind) -> bool {
    if kind == InvokeKind::Static {
        !super::sharing::is_platform(class)
    } else {
        !ts.is_value(class)
    }
}

/// Whether a method can enter or leave an atomic region at all: it holds a method-level lock,
/// or has a `monitorenter`, or a call that may be a lock operation, `wait`, or a region, or
/// reads a field holding a thread-safe object. Without any of these no value is ever shared,
/// so no rule can report anything and the dataflow can be skipped.
pub fn may_enter_region(caller: &Caller<'_>, calls: Option<&ClassCalls>) -> bool {
    scan_for_regions(caller, true, calls)
}

/// Whether a method has a region of its own: [`may_enter_region`] without counting calls to
/// methods that lock (their regions are the callee's; what they return is shared only when the
/// callee's summary says so).
pub fn has_own_region(caller: &Caller<'_>) -> bool {
    scan_for_regions(caller, false, None)
}

/// The call targets of one class's method references, resolved on first use
/// ([`resolve_call_in`]): by reference, with the kind of call it was resolved for.
pub type ClassCalls = [std::cell::OnceCell<(InvokeKind, CallTarget)>];

/// The cache for a class's [`resolve_call`]s, one entry per constant-pool reference. Only once
/// the summaries are final: a call target carries the callee's summary.
pub fn class_calls(class: &Class) -> Vec<std::cell::OnceCell<(InvokeKind, CallTarget)>> {
    (0..class.refs.len()).map(|_| Default::default()).collect()
}

/// [`resolve_call`], through the class's cache when there is one (a reference called with
/// another kind of call than the one cached is resolved again).
pub fn resolve_call_in(
    caller: &Caller<'_>,
    kind: InvokeKind,
    ref_id: crate::bytecode::RefId,
    calls: Option<&ClassCalls>,
) -> CallTarget {
    let Some(cell) = calls.and_then(|c| c.get(ref_id as usize)) else {
        return resolve_call(caller, kind, ref_id);
    };
    match cell.get() {
        Some(&(k, t)) if k == kind => t,
        Some(_) => resolve_call(caller, kind, ref_id),
        None => {
            cell.get_or_init(|| (kind, resolve_call(caller, kind, ref_id)))
                .1
        }
    }
}

fn scan_for_regions(
    caller: &Caller<'_>,
    locking_callees: bool,
    calls: Option<&ClassCalls>,
) -> bool {
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
        crate::bytecode::Op::Invoke(kind, r) => match resolve_call_in(caller, kind, r, calls) {
            CallTarget::Init | CallTarget::Immutable | CallTarget::Format | CallTarget::Clock => {
                false
            }
            CallTarget::Unknown { .. } => {
                p.config.unknown_calls == crate::config::UnknownCalls::Conservative
            }
            CallTarget::Method { locks, helper, .. } => {
                (locks && locking_callees) || helper.is_some_and(|h| h.acquire)
            }
            _ => true,
        },
        _ => false,
    })
}

/// The method a call instruction names.
fn call_ref<'a>(caller: &Caller<'a>, site: u32) -> Option<&'a MemberRef> {
    match caller.method.code.as_ref()?.insns.get(site as usize)?.op {
        crate::bytecode::Op::Invoke(_, r) => Some(caller.class.member(r)),
        _ => None,
    }
}

fn is_thread_safe_field(caller: &Caller<'_>, receiver: Sym) -> bool {
    let Some(field) = caller
        .method
        .code
        .as_ref()
        .and_then(|code| field_read(code, receiver))
    else {
        return false;
    };
    let fr = caller.class.member(field);
    caller.program.is_thread_safe_field(&fr.class, &fr.name)
}

/// The field (reference) a register's value was read from: a field the frame names
/// (`this.f`, `p.f`, a static), or one read through an object it cannot name (`this$0.records`
/// in an inner class: the result of that `getfield`).
pub fn field_read(code: &crate::bytecode::Code, sym: Sym) -> Option<crate::bytecode::RefId> {
    match sym {
        Sym::Field(_, f) => Some(f),
        Sym::Value(at) => match code.insns.get(at as usize)?.op {
            crate::bytecode::Op::GetField(f) | crate::bytecode::Op::GetStatic(f) => Some(f),
            _ => None,
        },
        _ => None,
    }
}

/// An object allocated by this method (`new` at the instruction the register names, or the
/// result of a factory), or the calling thread's own (`ThreadLocal.get()`): no other thread can
/// see it yet, so its locks protect nothing shared.
pub fn is_local_object(caller: &Caller<'_>, sym: Sym) -> bool {
    let Sym::Value(at) = sym else { return false };
    match caller
        .method
        .code
        .as_ref()
        .and_then(|c| c.insns.get(at as usize))
        .map(|i| &i.op)
    {
        Some(crate::bytecode::Op::New(_) | crate::bytecode::Op::NewArray(_)) => true,
        Some(crate::bytecode::Op::Invoke(kind, r)) => {
            let p = caller.program;
            let m = caller.class.member(*r);
            (*kind != InvokeKind::Static
                && p.thread_safe.mentions(&m.class)
                && p.thread_safe.is_per_thread(&m.class, &m.name))
                || p.resolved(caller.class_id, *r)
                    .is_some_and(|t| p.summary(t).returns_fresh)
        }
        _ => false,
    }
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

/// A lock helper: a method that takes one lock and returns holding it, or releases one its
/// caller holds, and does no other lock operation (`void takeWriteLock() { if (lock != null)
/// writeLock.lock(); }`, `void unlockAll() { mainLock.unlock(); }`). Its caller holds the lock
/// from the call on, or no longer: the call is the caller's own `lock()` or `unlock()`. A
/// helper that takes its lock only on some paths (a lock that is optional by configuration)
/// counts as taking it: its release helper tests the same condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LockHelper {
    pub acquire: bool,
    /// It takes the lock only where its boolean result is true (`return
    /// busy.compareAndSet(false, true);` on a flag lock): a `tryLock()`.
    pub tries: bool,
    pub lock: HelperLock,
}

/// The lock of a [`LockHelper`], in terms its call sites can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HelperLock {
    /// The receiver itself (a class that is its own lock: `extends ReentrantLock`).
    Receiver,
    /// A lock in a field of the receiver (or a static field): the field by its owner class and
    /// index there, `part` as in [`LockId::Field`].
    Field {
        owner: u32,
        field: u32,
        is_static: bool,
        part: u8,
    },
}

/// Lock names given to helper locks that the caller's constant pool does not name: far above
/// any instruction index, below [`CALLER_SITE`]. The low two bits say whose field it is: a
/// static field (0), the receiver's (1), a parameter's (2).
const HELPER_SITES: u32 = 0xC000_0000;

/// The base of a helper lock that [`HelperLock::at_call`] could only name by its field: a lock
/// in a field of `this` (`Base::This`) or a static field (`Base::Static`) names the same lock in
/// every method of the program that sees the same object, callee or caller.
pub fn helper_lock_base(lock: LockId) -> Option<Base> {
    match lock {
        LockId::Site(s) if (HELPER_SITES..CALLER_SITE).contains(&s) => match s & 3 {
            0 => Some(Base::Static),
            1 => Some(Base::This),
            _ => None,
        },
        _ => None,
    }
}

impl HelperLock {
    /// The lock at a call site: the receiver's, or the caller's own name for the field (so that
    /// the helper's lock and the caller's direct use of it are one lock), or else one name per
    /// field and receiver that every call site of the helpers shares. None when the receiver
    /// is not one the caller can name again at its next call (`getStore().takeWriteLock()`):
    /// then the call is an ordinary call.
    pub fn at_call(self, caller: &Caller<'_>, kind: InvokeKind, receiver: Sym) -> Option<LockId> {
        let (owner, field, is_static, part) = match self {
            HelperLock::Receiver => {
                let lock = LockId::of(receiver, 0);
                return (kind != InvokeKind::Static && lock.nameable()).then_some(lock);
            }
            HelperLock::Field {
                owner,
                field,
                is_static,
                part,
            } => (owner, field, is_static, part),
        };
        // Whose lock it is: a static field's (0), the receiver's (1), a parameter's (4 + slot);
        // and the field of the caller's that holds the receiver, when it is one (`lock.lock()`
        // on `this.lock` of a class whose lock is an `AutoLock`: the helper's lock inside it,
        // named by the path in every method that sees the same object).
        let who_of = |b: Base| match b {
            Base::Static => Some((Base::Static, 0)),
            Base::This => Some((Base::This, 1)),
            Base::Param(q) => Some((Base::Param(q), 4 + u64::from(q))),
            Base::Outer => None,
        };
        let p = caller.program;
        let ((base, who), via) = match receiver {
            _ if is_static => ((Base::Static, 0), None),
            Sym::This => (who_of(Base::This)?, None),
            Sym::Param(q) => (who_of(Base::Param(q))?, None),
            Sym::Field(b, fr) => {
                let f = caller.class.member(fr);
                (who_of(b)?, Some(p.field_owner(&f.class, &f.name)?))
            }
            _ => return None,
        };
        // The caller's own name for the field, so that the helper's lock and the caller's
        // direct use of it are one lock; else one name per field and receiver that every call
        // site of the helpers shares.
        let named = via.is_none().then(|| {
            caller.class.refs.iter().position(|r| {
                !r.is_method && p.field_owner(&r.class, &r.name) == Some((owner, field))
            })
        });
        Some(match named.flatten() {
            Some(r) => LockId::Field(base, r as u32, part),
            None => {
                let path = via.map_or(String::new(), |(vo, vf)| format!(".{vo}.{vf}"));
                let h = crate::fxhash::hash_str(&format!("{owner}.{field}.{part}.{who}{path}"));
                LockId::Site(HELPER_SITES | (h as u32 & 0x3FFF_FFFC) | (who.min(2) as u32))
            }
        })
    }
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
    ts.mentions(&r.class)
        && (ts.lock_op(&r.class, &r.name).is_some_and(LockOp::takes)
            || (ts.is_class(&r.class)
                && !is_object_method(&r.name)
                && !ts.is_plain(&r.class, &r.name)
                && !ts.is_immutable(&r.class, &r.name)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lock_operations_of_locks_and_stamped_locks() {
        let l = ThreadSafeList::builtin();
        let op = |c: &str, n: &str| l.lock_op(c, n);
        let lock = "java/util/concurrent/locks/ReentrantLock";
        let stamped = "java/util/concurrent/locks/StampedLock";
        assert_eq!(op(lock, "lock"), Some(LockOp::Acquire(Part::Whole)));
        assert_eq!(op(lock, "tryLock"), Some(LockOp::TryAcquire(Part::Whole)));
        assert_eq!(op(lock, "unlock"), Some(LockOp::Release(Part::Whole)));
        assert_eq!(op(lock, "newCondition"), None);
        assert_eq!(op(stamped, "writeLock"), Some(LockOp::Acquire(Part::Write)));
        assert_eq!(
            op(stamped, "readLockInterruptibly"),
            Some(LockOp::Acquire(Part::Read))
        );
        assert_eq!(
            op(stamped, "tryWriteLock"),
            Some(LockOp::TryAcquire(Part::Write))
        );
        assert_eq!(op(stamped, "unlockRead"), Some(LockOp::Release(Part::Read)));
        assert_eq!(op(stamped, "unlock"), Some(LockOp::Release(Part::Either)));
        // Every name of a stamped lock's operations passes the quick test on the name's end.
        for name in [
            "writeLock",
            "writeLockInterruptibly",
            "readLock",
            "readLockInterruptibly",
            "tryWriteLock",
            "tryReadLock",
            "unlockWrite",
            "tryUnlockWrite",
            "unlockRead",
            "tryUnlockRead",
            "tryOptimisticRead",
            "validate",
        ] {
            assert_eq!(op(stamped, name), stamped_op(name), "{name}");
            assert!(op(stamped, name).is_some(), "{name}");
        }
        assert_eq!(
            op(lock, "lockInterruptibly"),
            Some(LockOp::Acquire(Part::Whole))
        );
        // An optimistic read is a read section up to its validation; a `ReadWriteLock`'s
        // `writeLock()` returns a part.
        assert_eq!(
            op(stamped, "tryOptimisticRead"),
            Some(LockOp::Acquire(Part::Read))
        );
        assert_eq!(op(stamped, "validate"), Some(LockOp::Release(Part::Read)));
        assert_eq!(op(lock, "validate"), None);
        let rw = "java/util/concurrent/locks/ReentrantReadWriteLock";
        assert_eq!(op(rw, "writeLock"), None);
        // Releasing "either part" gives back the part that is held.
        let mut s = LockState::default();
        s.acquire(LockId::Field(Base::This, 2, 1), 4);
        assert_eq!(
            s.release(LockId::Field(Base::This, 2, EITHER_PART)),
            Some(4)
        );
        assert!(s.held.is_empty());
    }

    #[test]
    fn a_lock_taken_at_two_sites_is_held_after_the_join() {
        let state = |lock: LockId, site: u32| {
            let mut s = LockState::default();
            s.acquire(lock, site);
            s
        };
        let lock = LockId::Field(Base::This, 3, 0);
        // `if (!lock.tryLock()) return;` on one arm, `lock.lock()` on the other.
        let joined = state(lock, 12).join(&state(lock, 7));
        assert!(joined.holds(lock));
        assert_eq!(joined.outermost(), Some((lock, 7)));
        assert_eq!(joined, state(lock, 7).join(&state(lock, 12)));
        // Another lock on one arm: neither is held on every path.
        let other = LockId::Field(Base::This, 4, 0);
        assert!(state(lock, 12).join(&state(other, 7)).held.is_empty());
        // Two locks we cannot name are two locks, whatever their sites.
        assert!(state(LockId::Site(5), 12)
            .join(&state(LockId::Site(5), 7))
            .held
            .is_empty());
        // A read-write lock's read part on one path, its write part on the other: held.
        let (r, w) = (
            LockId::Field(Base::This, 5, 1),
            LockId::Field(Base::This, 5, 2),
        );
        assert_eq!(state(r, 9).join(&state(w, 4)).outermost(), Some((r, 4)));
        // One site on both paths: as before.
        assert_eq!(
            state(LockId::Site(5), 7)
                .join(&state(LockId::Site(5), 7))
                .current(),
            Some(7)
        );
    }

    #[test]
    fn library_calls_are_classified_from_the_data_file() {
        let l = ThreadSafeList::builtin();
        assert_eq!(l.state_access("get"), STATE_READ);
        assert_eq!(l.state_access("containsKey"), STATE_READ);
        assert_eq!(l.state_access("put"), STATE_WRITE);
        assert_eq!(l.state_access("putIfAbsent"), STATE_READ | STATE_WRITE);
        assert_eq!(
            l.state_access("somethingUnlisted"),
            STATE_READ | STATE_WRITE
        );
        let call = |n: &str, d: &str| l.library_call(n, d, true);
        assert_eq!(call("get", "()I"), (Returns::Shared, false));
        assert_eq!(call("incrementAndGet", "()I"), (Returns::Owned, false));
        assert_eq!(
            call("poll", "()Ljava/lang/Object;"),
            (Returns::Owned, false)
        );
        assert_eq!(call("compareAndSet", "(II)Z"), (Returns::Owned, true));
        assert_eq!(
            call(
                "putIfAbsent",
                "(Ljava/lang/Object;Ljava/lang/Object;)Ljava/lang/Object;"
            ),
            (Returns::Owned, true)
        );
        assert_eq!(
            call("iterator", "()Ljava/util/Iterator;"),
            (Returns::View, false)
        );
        assert_eq!(
            l.library_call("set", "(I)V", false),
            (Returns::Nothing, false)
        );
    }
}
