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
use crate::bytecode::{acc, InvokeKind, Op};
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
    let (ci, fi) = p.field_ref(class, r)?;
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

/// A lock held at an access, as far as its identity can be told apart from another lock's:
/// its key relative to the accessed object (the same key is the same lock), and what kind of
/// object it is (objects of unrelated classes are different objects).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LockRef {
    pub key: Option<GuardKey>,
    pub kind: LockKind,
}

/// What object a lock is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LockKind {
    /// An object whose class (or a subclass of it) is this program class, not an interface and
    /// not `Object`.
    Instance(u32),
    /// An array.
    Array,
    /// A class literal's monitor, `static synchronized` (hash of the class name).
    Class(u64),
    /// One part of the read-write lock held in a field (program field id).
    RwPart(u32),
    /// The object a stable field is set to at construction (`lock = new Object()`): of exactly
    /// that class (its index when in the program), and no other field's.
    Fresh { loaded: Option<u32>, field: u32 },
    /// Anything: may be any other lock.
    Unknown,
}

impl LockRef {
    /// Whether the two locks are certainly different objects, so that holding one excludes
    /// nobody who holds the other.
    pub fn distinct(self, other: LockRef, p: &Program) -> bool {
        if self.key.is_some() && self.key == other.key {
            return false;
        }
        self.kind.distinct(other.kind, p)
    }
}

impl LockKind {
    /// Whether objects of these two kinds are certainly different objects.
    pub fn distinct(self, other: LockKind, p: &Program) -> bool {
        use LockKind::*;
        match (self, other) {
            (Instance(a), Instance(b)) => !p.is_subclass_idx(a, b) && !p.is_subclass_idx(b, a),
            (Class(a), Class(b)) => a != b,
            (Fresh { field: a, .. }, Fresh { field: b, .. }) => a != b,
            (Fresh { loaded, .. }, Instance(c)) | (Instance(c), Fresh { loaded, .. }) => {
                // An object of exactly that class is of type `c` only if it is a subclass.
                loaded.is_none_or(|x| !p.is_subclass_idx(x, c))
            }
            (Fresh { .. }, Class(_) | Array | RwPart(_))
            | (Class(_) | Array | RwPart(_), Fresh { .. }) => true,
            (Instance(_) | Array | RwPart(_), Class(_))
            | (Class(_), Instance(_) | Array | RwPart(_))
            | (Instance(_) | RwPart(_), Array)
            | (Array, Instance(_) | RwPart(_))
            | (Instance(_), RwPart(_))
            | (RwPart(_), Instance(_)) => true,
            _ => false,
        }
    }
}

/// A stable field that every store sets to an object allocated right there (`new X(..)`,
/// always the same `X`): the lock it holds is of exactly that class, and no other field's.
fn allocated(p: &Program, id: u32) -> Option<LockKind> {
    if p.fields.mutable.get(id as usize).copied().unwrap_or(true) {
        return None;
    }
    let (ci, _) = *p.fields.owner.get(id as usize)?;
    let c = p.class(ci);
    let mut class: Option<&str> = None;
    for code in c.methods.iter().filter_map(|m| m.code.as_ref()) {
        for (k, insn) in code.insns.iter().enumerate() {
            let (Op::PutField(r) | Op::PutStatic(r)) = insn.op else {
                continue;
            };
            if field_id(p, ci, r) != Some(id) {
                continue;
            }
            let made =
                k.checked_sub(1)
                    .and_then(|j| code.insns.get(j))
                    .and_then(|prev| match prev.op {
                        Op::Invoke(InvokeKind::Special, m) if &*c.member(m).name == "<init>" => {
                            Some(&*c.member(m).class)
                        }
                        _ => None,
                    })?;
            if class.is_some_and(|x| x != made) {
                return None;
            }
            class = Some(made);
        }
    }
    let class = class?;
    Some(LockKind::Fresh {
        loaded: p.class_index(class),
        field: id,
    })
}

/// The kind of object of type descriptor `desc` (a field's type).
fn kind_of_type(p: &Program, desc: &str) -> LockKind {
    if desc.starts_with('[') {
        return LockKind::Array;
    }
    desc.strip_prefix('L')
        .and_then(|d| d.strip_suffix(';'))
        .map_or(LockKind::Unknown, |name| kind_of_class(p, name))
}

fn kind_of_class(p: &Program, name: &str) -> LockKind {
    match p.class_index(name) {
        Some(ci) if name != "java/lang/Object" && !p.class(ci).is_interface() => {
            LockKind::Instance(ci)
        }
        _ => LockKind::Unknown,
    }
}

/// The [`LockRef`] of `lock`, held in a method of class `class`, for an access through
/// `object`.
fn lock_ref(p: &Program, class: u32, lock: LockId, object: Sym) -> LockRef {
    let kind = match lock {
        LockId::This => kind_of_class(p, &p.class(class).name),
        LockId::Class(h) => LockKind::Class(h),
        LockId::Field(_, r, 0) => field_id(p, class, r)
            .and_then(|id| allocated(p, id))
            .unwrap_or_else(|| kind_of_type(p, &p.class(class).member(r).desc)),
        LockId::Field(_, r, _) => field_id(p, class, r).map_or(LockKind::Unknown, LockKind::RwPart),
        _ => LockKind::Unknown,
    };
    LockRef {
        key: key_of(p, class, lock, object),
        kind,
    }
}

/// The object a field is accessed through, as far as two accesses in different methods can be
/// told to reach the same one: the class itself (a static field), `this`, or the object held in
/// a field (the same field reaches the same object, as far as anything can tell).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ObjPath {
    Static,
    This(u32),
    Field(u32),
    /// A parameter, a local, an array element: nothing says which object.
    Unknown,
}

impl ObjPath {
    /// Whether accesses through `self` and `other` reach the same object for all that the
    /// program says (a writer of another path may write another object).
    pub fn same(self, other: ObjPath) -> bool {
        match (self, other) {
            (ObjPath::Static, ObjPath::Static) => true,
            // A subclass that writes an inherited field under a discipline of its own (its
            // lock, held around its calls of the inherited methods too) is not evidence that
            // the class's own critical sections are wrong: only the same class's code is.
            (ObjPath::This(a), ObjPath::This(b)) => a == b,
            (ObjPath::Field(a), ObjPath::Field(b)) => a == b,
            _ => false,
        }
    }
}

/// Whether program field `id` is static.
fn is_static(p: &Program, id: u32) -> bool {
    p.fields.owner.get(id as usize).is_some_and(|&(ci, fi)| {
        p.class(ci)
            .fields
            .get(fi as usize)
            .is_some_and(|f| f.access & acc::STATIC != 0)
    })
}

/// The [`ObjPath`] of an access through `object` (`Sym::Unknown` for a static field: pass
/// `static_field`) in a method of class `class`.
fn object_path(p: &Program, class: u32, object: Sym, static_field: bool) -> ObjPath {
    match object {
        _ if static_field => ObjPath::Static,
        Sym::This => ObjPath::This(class),
        Sym::Field(_, r) => field_id(p, class, r).map_or(ObjPath::Unknown, ObjPath::Field),
        _ => ObjPath::Unknown,
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
        locks::Base::Static | locks::Base::Outer => Sym::Unknown,
    };
    Some(GuardQuery {
        var: GuardVar {
            field: field_id(p, class, r)?,
            state,
        },
        key: key_of(p, class, lock, object)?,
    })
}

/// A read-modify-write inside one critical section, asked of the writers of its variable
/// ([`Writes::other_lock`]).
#[derive(Clone, Copy, Debug)]
pub struct UpdateQuery {
    pub var: GuardVar,
    /// The object updated.
    pub object: ObjPath,
    /// The locks the update holds: its region's, and the outermost one around it.
    pub locks: [Option<LockRef>; 2],
    /// Whether one of them is the monitor of the object updated (`None`: the frame does not
    /// name the object).
    pub own: Option<bool>,
}

/// The question a read-modify-write inside one region asks of the writers of what it updates
/// ([`Writes::other_lock`]): read from `place` (`state`: a thread-safe object's state) and
/// written back through `object`, in a method of class `class`, holding `lock` (its region's)
/// and `outer` (the outermost lock around it, when another). `None` when the frame does not
/// name the variable.
pub fn update_query(
    p: &Program,
    class: u32,
    place: Sym,
    state: bool,
    object: Sym,
    lock: LockId,
    outer: Option<LockId>,
) -> Option<UpdateQuery> {
    let var = var_of(p, class, place, state)?;
    let statik = is_static(p, var.field);
    let held = |l| lock_ref(p, class, l, object);
    // Holds the monitor of the very object it updates. A lock held on an object the frame
    // cannot name (`synchronized (first)` with `first` one of `from` and `to`, chosen to order
    // the locks) may be that monitor: then it is not known either way.
    let monitor = LockId::of(object, u32::MAX);
    let nameable = matches!(object, Sym::Param(_) | Sym::Field(..));
    let unnamed = |l: LockId| matches!(l, LockId::Site(_));
    let known = !unnamed(lock) && !outer.is_some_and(unnamed);
    Some(UpdateQuery {
        var,
        object: object_path(p, class, object, statik),
        locks: [Some(held(lock)), outer.map(held)],
        own: (!statik && nameable && known).then_some(lock == monitor || outer == Some(monitor)),
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
    /// The writes that hold some lock: where, the object written, and the locks held.
    locked: Vec<(MethodId, u32, ObjPath, Vec<LockRef>)>,
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

    /// A write of the variable that holds locks, every one of them another object than each
    /// of `locks` (the reader's): its regions exclude nothing that write does (the wrong
    /// lock). The first such write, by method and instruction.
    /// Only writes through the same path as `object` count (a write of the field of some other
    /// object of the class is no conflict); or, when the reader updates another object's field
    /// without holding that object's monitor (`own`: whether it does, when the frame names the
    /// object), a write by the class's own code
    /// under the object's monitor (`synchronized void deposit()` against `to.balance += n`
    /// under `this`): any object of the class is `this` to that code.
    pub fn other_lock(&self, p: &Program, q: &UpdateQuery) -> Option<(MethodId, u32)> {
        let UpdateQuery {
            var,
            object,
            locks,
            own,
        } = *q;
        let other = |h: &LockRef| locks.iter().flatten().all(|&l| h.distinct(l, p));
        let foreign = own == Some(false) && matches!(object, ObjPath::Field(_) | ObjPath::Unknown);
        self.vars.get(&var).and_then(|w| {
            w.locked
                .iter()
                .filter(|(_, _, o, held)| {
                    (o.same(object) && held.iter().all(other))
                        || (foreign
                            && matches!(o, ObjPath::This(_))
                            && held.iter().any(|h| h.key == Some(GuardKey::Own))
                            && held
                                .iter()
                                .all(|h| h.key == Some(GuardKey::Own) || other(h)))
                })
                .map(|&(m, at, _, _)| (m, at))
                .min_by_key(|&(m, at)| (m.class, m.method, at))
        })
    }

    /// Whether a method other than `m` writes the variable.
    pub fn written_elsewhere(&self, var: GuardVar, m: MethodId) -> bool {
        self.vars
            .get(&var)
            .is_some_and(|w| w.writers.iter().any(|&x| x != m))
    }
}

/// What one region holds across a stretch of a method: the locks held at both ends of it by the
/// same acquisition (one region encloses the whole stretch), outermost first, and the place read
/// at its start (a field read's field through its object, or the field holding the object a
/// call is made on), for [`query`].
#[derive(Debug, Default)]
pub struct Across {
    pub locks: Vec<LockId>,
    pub place: Option<Sym>,
}

/// The locks held from instruction `from` to instruction `to` of method `m` (see [`Across`]):
/// one engine pass. A lock counts when every frame the engine sees at both instructions holds
/// it, opened at one site that no loop enters again; none in a method that waits (a wait
/// releases the lock it holds).
pub fn held_across(p: &Program, m: MethodId, from: u32, to: u32) -> Across {
    struct Seen<'p> {
        p: &'p Program,
        m: MethodId,
        from: u32,
        to: u32,
        held: Option<Vec<(LockId, u32)>>,
        place: Option<Sym>,
        waits: bool,
    }
    impl Observer for Seen<'_> {
        fn observe(&mut self, at: u32, frame: &Frame<()>) {
            if at != self.from && at != self.to {
                return;
            }
            let here: Vec<(LockId, u32)> = if self.waits {
                Vec::new()
            } else {
                (frame.locks.held.iter())
                    .map(|h| (h.lock, h.site))
                    .collect()
            };
            self.held = Some(match self.held.take() {
                None => here,
                Some(mut h) => {
                    h.retain(|x| here.contains(x));
                    h
                }
            });
            if at == self.from {
                self.place = read_place(self.p, self.m, at, frame);
            }
        }
    }
    let Some(code) = &p.method(m).code else {
        return Across::default();
    };
    let mut seen = Seen {
        p,
        m,
        from,
        to,
        held: None,
        place: None,
        // A wait (`Object.wait`, `Condition.await`) releases the lock in the middle of its
        // region.
        waits: locks::waits(p, m),
    };
    let cfg = crate::bytecode::cfg::Cfg::build(code);
    if engine::run_method_on(p, m, false, &cfg, &mut Observing(&mut seen)).is_err() {
        return Across::default();
    }
    // A region in a loop may be entered again between the two: one acquisition only where it
    // runs once.
    Across {
        locks: (seen.held.unwrap_or_default().into_iter())
            .filter(|&(_, s)| cfg.runs_once(s))
            .map(|(l, _)| l)
            .collect(),
        place: seen.place,
    }
}

/// The place instruction `at` of method `m` reads, in the frame before it: a field through the
/// object on the stack (or a static), or the field holding the receiver of a call.
fn read_place(p: &Program, m: MethodId, at: u32, frame: &Frame<()>) -> Option<Sym> {
    let code = p.method(m).code.as_ref()?;
    match code.insns.get(at as usize)?.op {
        Op::GetField(r) => match frame.stack.last()?.sym {
            Sym::This => Some(Sym::Field(locks::Base::This, r)),
            Sym::Param(x) => Some(Sym::Field(locks::Base::Param(x), r)),
            _ => None,
        },
        Op::GetStatic(r) => Some(Sym::Field(locks::Base::Static, r)),
        Op::Invoke(..) => {
            super::summary::receiver_sym(p, m, at, frame).filter(|s| matches!(s, Sym::Field(..)))
        }
        _ => None,
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
        .par_classes()
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
                            p.init_only(ci as u32)[mi],
                        )
                    })
                    .collect()
            };
            methods
        })
        .collect();
    let found: Vec<(MethodId, Vec<Write>)> = candidates
        .par_iter()
        .with_max_len(crate::PAR_CHUNK)
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
                Err(_) => vars.iter().map(|&v| (v, None, false, None)).collect(),
            };
            (id, out)
        })
        .collect();
    let mut writes = Writes::default();
    for (id, found) in found {
        for (var, keys, takes, locked) in found {
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
            if let Some((at, object, held)) = locked {
                w.locked.push((id, at, object, held));
            }
        }
    }
    writes
}

/// One write: the variable, the keys of the locks held (`None`: not known), whether it takes a
/// queue's head, and (when it holds some lock) where it is, the kind of object written and the
/// locks held.
type Write = (
    GuardVar,
    Option<Vec<GuardKey>>,
    bool,
    Option<(u32, ObjPath, Vec<LockRef>)>,
);

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
    fn record(&mut self, at: u32, var: GuardVar, object: Sym, frame: &Frame<()>, takes: bool) {
        if !self.vars.contains(&var) {
            return;
        }
        let held = &frame.locks.held;
        let keys = held
            .iter()
            .filter_map(|h| key_of(self.p, self.id.class, h.lock, object))
            .collect();
        let locked = (!held.is_empty()).then(|| {
            let refs = held
                .iter()
                .map(|h| lock_ref(self.p, self.id.class, h.lock, object))
                .collect();
            let path = object_path(self.p, self.id.class, object, is_static(self.p, var.field));
            (at, path, refs)
        });
        self.out.push((var, Some(keys), takes, locked));
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
                    at,
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
                // A method that reads only what construction fixed (an atomic array's
                // `length()`) writes nothing, whatever its name says elsewhere.
                if self.p.thread_safe.state_access(&m.name) & STATE_WRITE == 0
                    || self.p.thread_safe.is_immutable(&m.class, &m.name)
                {
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
                    locks::Base::Static | locks::Base::Outer => Sym::Unknown,
                };
                let takes = self.p.thread_safe.is_head_remove(&m.name, &m.desc);
                let var = GuardVar { field, state: true };
                self.record(at, var, object, frame, takes);
            }
            _ => {}
        }
    }
}
