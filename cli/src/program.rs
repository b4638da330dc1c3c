//! The whole program as the analyses see it: every parsed class (scanned and `--classpath`),
//! an index by name, method resolution through the hierarchy, and the method summaries.

use rayon::prelude::*;

use crate::fxhash::FxHashMap;

use crate::analysis::locks::ThreadSafeList;
use crate::analysis::sharing::{self, FieldFacts};
use crate::analysis::summary::{self, Summary};
use crate::bytecode::{Class, Method};
use crate::config::AnalysisConfig;

/// Most implementations of a virtual call the analyses follow; a call with more is one of
/// unknown callee ([`Program::implementations`] gives `None`).
pub const MAX_IMPLEMENTATIONS: usize = 16;

/// A method by (class index, method index).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MethodId {
    pub class: u32,
    pub method: u32,
}

pub struct Program {
    pub classes: Vec<Class>,
    by_name: FxHashMap<Box<str>, u32>,
    /// Direct subclasses and implementors of each class.
    subtypes: FxHashMap<u32, Vec<u32>>,
    /// Each class's superclass and direct superinterfaces that the program has, by index
    /// (`u32::MAX`: no superclass loaded): what method and field resolution walk.
    direct_supers: Vec<(u32, Box<[u32]>)>,
    /// Every class's supertypes, for [`Program::is_subclass_of`].
    supertypes: Supertypes,
    pub config: AnalysisConfig,
    pub thread_safe: ThreadSafeList,
    /// Fields assigned a thread-safe object (a `Collections.synchronized*` wrapper, or a
    /// `new` of a thread-safe class): owner class → field names.
    thread_safe_fields: FxHashMap<Box<str>, Vec<Box<str>>>,
    /// Of those, the fields assigned a new legacy collection (`Vector`, `Hashtable`): (class of
    /// the reference, field name).
    legacy_fields: Vec<(Box<str>, Box<str>)>,
    summaries: Vec<Vec<Summary>>,
    /// Each class's method references resolved once: `resolved[class][ref]`.
    resolved: Vec<Vec<Option<MethodId>>>,
    /// Each class's field references, resolved to their declaring `(class, field)`:
    /// `field_refs[class][ref]` (see [`Program::field_ref`]).
    field_refs: Vec<Vec<Option<(u32, u32)>>>,
    /// Program-wide field ids and which fields may change after construction.
    pub fields: FieldFacts,
    /// Each class's field references that read a stable field (see [`sharing`]):
    /// `stable[class][ref]`.
    stable: Vec<Vec<bool>>,
    /// Each class's fields that hold a part of a read-write lock held in another of its fields
    /// (see [`crate::analysis::locks::rw_lock_parts`]).
    rw_parts: Vec<crate::fxhash::FxHashMap<u32, (u32, bool)>>,
    /// Figures about building the program (elapsed times), for `STALECHECK_TIMINGS`.
    pub profile: Vec<String>,
    /// Locks every caller of a method holds when calling it (see
    /// [`summary::compute_entry_locks`]).
    entry_locks: crate::fxhash::FxHashMap<MethodId, Vec<crate::analysis::locks::LockId>>,
    /// Locks every caller of a method holds that the method cannot name, with the callers'
    /// class (see [`summary::EntryLocks::foreign`]).
    callers_locks: crate::fxhash::FxHashMap<MethodId, Vec<(u32, crate::analysis::locks::LockId)>>,
    /// The classes of the new objects each private or final field holds (see
    /// [`summary::allocated_types`]).
    field_classes: FxHashMap<(u32, u32), summary::Allocated>,
    /// Implementations (bounded) of each resolved virtual-call target, computed on first use.
    overriders: std::sync::RwLock<FxHashMap<MethodId, Option<Vec<MethodId>>>>,
    /// Classes whose objects can exist, by class index (see [`Program::live_classes`]): what
    /// virtual calls dispatch to.
    live: Vec<bool>,
    /// Per class, its methods by the hash of their name and descriptor, sorted: what
    /// [`Program::resolve`] looks a member up in (a class's methods are many, its calls more).
    /// Made on first look, for classes with many methods ([`KEYED_METHODS`]).
    method_keys: Vec<std::sync::OnceLock<MethodKeys>>,
    /// Per class, which methods run only while an object or the class is initialized
    /// ([`sharing::init_only_methods`]), computed on first use.
    init_only: Vec<std::sync::OnceLock<Vec<bool>>>,
    /// The classes that call each method by `invokespecial` other than a constructor or a
    /// private method (`super.close()`), computed on first use ([`Program::runs_on`]).
    super_calls: std::sync::OnceLock<FxHashMap<MethodId, Vec<u32>>>,
}

/// A class's methods as `(key of name and descriptor, method index)`, sorted by key.
type MethodKeys = Box<[(u64, u32)]>;

/// Classes with more methods than this have their methods keyed ([`Program::method_keys`]);
/// fewer are scanned.
const KEYED_METHODS: usize = 16;

/// The key of a method's name and descriptor in [`Program::method_keys`].
fn method_key(name: &str, desc: &str) -> u64 {
    use std::hash::Hasher;
    let mut h = crate::fxhash::FxHasher::default();
    h.write(name.as_bytes());
    h.write_u8(0xff);
    h.write(desc.as_bytes());
    h.finish()
}

impl Program {
    /// Index the classes (already de-duplicated) and compute the method summaries.
    pub fn new(mut classes: Vec<Class>, config: AnalysisConfig) -> Program {
        // Java 8 code reaches an outer class's private fields through synthetic accessors:
        // seen through, it reads like the same source compiled for Java 11 or later.
        crate::bytecode::accessors::inline(&mut classes);
        let mut by_name = FxHashMap::with_capacity_and_hasher(classes.len(), Default::default());
        for (i, c) in classes.iter().enumerate() {
            by_name.entry(c.name.clone()).or_insert(i as u32);
        }
        let direct_supers: Vec<(u32, Box<[u32]>)> = classes
            .par_iter()
            .with_max_len(crate::PAR_CHUNK)
            .map(|c| {
                let sup = c.super_name.as_deref().and_then(|s| by_name.get(s));
                let ifaces = c.interfaces.iter().filter_map(|i| by_name.get(i).copied());
                (sup.copied().unwrap_or(u32::MAX), ifaces.collect())
            })
            .collect();
        let mut subtypes: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
        for (i, (sup, ifaces)) in direct_supers.iter().enumerate() {
            for &s in std::iter::once(sup)
                .filter(|&&s| s != u32::MAX)
                .chain(ifaces.iter())
            {
                subtypes.entry(s).or_default().push(i as u32);
            }
        }
        let supertypes = Supertypes::new(&classes, &by_name);
        let mut thread_safe = ThreadSafeList::builtin();
        for c in &config.thread_safe_classes {
            thread_safe.extend_from(&format!("class {c}"));
        }
        let names: Vec<&str> = classes.iter().map(|c| &*c.name).collect();
        thread_safe.inherit(&names, |n| {
            by_name.get(n).map_or_else(Vec::new, |&i| {
                let c = &classes[i as usize];
                c.super_name
                    .iter()
                    .chain(&c.interfaces)
                    .map(|s| &**s)
                    .collect()
            })
        });
        thread_safe.add_loggers(&classes, |i| &supertypes.of[i]);
        let n = classes.len();
        let method_keys = (0..n).map(|_| std::sync::OnceLock::new()).collect();
        let init_only = (0..n).map(|_| std::sync::OnceLock::new()).collect();
        let mut p = Program {
            classes,
            by_name,
            subtypes,
            direct_supers,
            supertypes,
            config,
            thread_safe,
            thread_safe_fields: FxHashMap::default(),
            legacy_fields: Vec::new(),
            summaries: Vec::new(),
            resolved: Vec::new(),
            field_refs: Vec::new(),
            fields: FieldFacts::default(),
            stable: Vec::new(),
            rw_parts: Vec::new(),
            overriders: Default::default(),
            live: Vec::new(),
            method_keys,
            init_only,
            super_calls: Default::default(),
            profile: Vec::new(),
            entry_locks: Default::default(),
            callers_locks: Default::default(),
            field_classes: Default::default(),
        };
        let t0 = std::time::Instant::now();
        // Every reference resolved once: methods to their implementation, fields to their
        // declaration.
        (p.resolved, p.field_refs) = p
            .par_classes()
            .map(|c| {
                c.refs
                    .iter()
                    .map(|r| {
                        if r.is_method {
                            (p.resolve(&r.class, &r.name, &r.desc), None)
                        } else {
                            (None, p.field_owner(&r.class, &r.name))
                        }
                    })
                    .unzip::<_, _, Vec<_>, Vec<_>>()
            })
            .unzip();
        let made;
        (p.live, made) = p.live_classes();
        p.fields = FieldFacts::compute(&p);
        let mut confined_class: Vec<bool> = p
            .par_classes()
            .map(|c| {
                p.thread_safe
                    .confined()
                    .any(|i| p.is_subclass_of(&c.name, i))
            })
            .collect();
        // A class whose objects are all objects of confined subclasses is confined too: one
        // that nothing creates itself (`made`: no `new` of it, and not one a library's user can
        // create), whose subclasses all are (a private base that holds an iterator's cursor for
        // the key, value and entry iterators that extend it).
        loop {
            let more: Vec<u32> = (0..p.classes.len() as u32)
                .filter(|&ci| {
                    let c = p.class(ci);
                    !confined_class[ci as usize]
                        && !made[ci as usize]
                        && c.access & crate::bytecode::acc::INTERFACE == 0
                        && (p.subtypes.get(&ci)).is_some_and(|subs| {
                            !subs.is_empty() && subs.iter().all(|&s| confined_class[s as usize])
                        })
                })
                .collect();
            if more.is_empty() {
                break;
            }
            for ci in more {
                confined_class[ci as usize] = true;
            }
        }
        p.fields.confined = p
            .fields
            .owner
            .iter()
            .map(|&(ci, _)| confined_class[ci as usize])
            .collect();
        p.fields.flags = sharing::flag_locks(&p);
        p.stable = p
            .par_classes()
            .enumerate()
            .map(|(ci, c)| {
                let mut statics = vec![false; c.refs.len()];
                for m in &c.methods {
                    for insn in m.code.iter().flat_map(|code| &code.insns) {
                        if let crate::bytecode::Op::GetStatic(r)
                        | crate::bytecode::Op::PutStatic(r) = insn.op
                        {
                            if let Some(s) = statics.get_mut(r as usize) {
                                *s = true;
                            }
                        }
                    }
                }
                (c.refs.iter().zip(statics).enumerate())
                    .map(|(ri, (r, st))| {
                        !r.is_method
                            && p.stable_field_at(p.field_ref(ci as u32, ri as u32), &r.class, st)
                    })
                    .collect()
            })
            .collect();
        p.rw_parts = p
            .par_classes()
            .map(crate::analysis::locks::rw_lock_parts)
            .collect();
        for (owner, name, legacy) in summary::thread_safe_fields(&p) {
            if legacy {
                p.legacy_fields.push((owner.clone(), name.clone()));
            }
            let names = p.thread_safe_fields.entry(owner).or_default();
            if !names.contains(&name) {
                names.push(name);
            }
        }
        let t_index = t0.elapsed();
        let t = std::time::Instant::now();
        let (summaries, callers) = summary::compute(&p);
        p.summaries = summaries;
        let t1 = t.elapsed();
        summary::compute_returns(&mut p, &callers);
        let t_entry = std::time::Instant::now();
        p.field_classes = summary::allocated_types(&p);
        let helpers = summary::compute_lock_helpers(&mut p);
        let t_helpers = t_entry.elapsed();
        // The entry locks and the factories read the program as it is (neither asks what the
        // other finds): computed side by side, so that each one's serial steps leave the
        // other's work a core.
        let ((locks, t_locks), ((looked, fresh), t_fresh)) = rayon::join(
            || {
                let t = std::time::Instant::now();
                (summary::compute_entry_locks(&p, &callers), t.elapsed())
            },
            || {
                let t = std::time::Instant::now();
                (summary::fresh_factories(&p, &callers), t.elapsed())
            },
        );
        p.entry_locks = locks.entry;
        p.callers_locks = locks.foreign;
        for &id in &fresh {
            p.summary_mut(id).returns_fresh = true;
        }
        p.profile.push(format!(
            "summaries: field classes and lock helpers ({helpers}) {t_helpers:?}, entry locks of {} methods {t_locks:?}, both with the factories {:?}",
            p.entry_locks.len(),
            t_entry.elapsed() - t_helpers
        ));
        let factories = fresh.len();
        let t_clocks = std::time::Instant::now();
        summary::compute_clocks(&mut p, &callers);
        p.profile.push(format!(
            "summaries: factories {t_fresh:?} ({factories} of {looked} looked at), clocks {:?}",
            t_clocks.elapsed()
        ));
        p.profile.push(format!(
            "summaries: resolve+thread-safe fields {t_index:?}, direct+propagate {t1:?}, returns {:?}",
            t.elapsed() - t1
        ));
        p
    }

    /// The one-way fields ([`sharing::one_way_fields`]), by field id: computed on first use,
    /// by the whole-program rules alone (a per-method run never pays for it).
    pub fn one_way(&self) -> &[sharing::OneWay] {
        self.fields
            .one_way
            .get_or_init(|| sharing::one_way_fields(self))
    }

    /// The classes of the objects field `(class, field)` can hold, when it is private or final
    /// and the program stores only new objects in it (`this.f = new AddFunctor()`): a call on
    /// its value reaches only their methods.
    pub fn field_classes(&self, field: (u32, u32)) -> Option<&[u32]> {
        let a = self.field_classes.get(&field)?;
        (a.all_new && !a.outside).then_some(&a.classes[..])
    }

    /// Whether private or final field `(class, field)` holds only objects its owner allocated
    /// (`this.lock = new Object()`, of any class): a lock on its value belongs to the owner.
    pub fn owns_field(&self, field: (u32, u32)) -> bool {
        self.field_classes.get(&field).is_some_and(|a| a.all_new)
    }

    /// The classes a call's receiver can be an object of, when the code says: an object this
    /// method allocated (`new T`), or the value of a field that holds only new objects of known
    /// classes ([`Program::field_classes`]).
    pub fn receiver_classes(
        &self,
        class: u32,
        code: &crate::bytecode::Code,
        receiver: crate::analysis::locks::Sym,
    ) -> Option<Vec<u32>> {
        use crate::analysis::locks::Sym;
        let c = self.class(class);
        if let Sym::Value(at) = receiver {
            if let crate::bytecode::Op::New(r) = code.insns.get(at as usize)?.op {
                return Some(vec![self.class_index(&c.member(r).class)?]);
            }
        }
        let f = c.member(crate::analysis::locks::field_read(code, receiver)?);
        self.field_classes(self.field_owner(&f.class, &f.name)?)
            .map(<[u32]>::to_vec)
    }

    /// Locks every caller holds when it calls method `id` (empty for most methods).
    pub fn entry_locks(&self, id: MethodId) -> &[crate::analysis::locks::LockId] {
        self.entry_locks.get(&id).map_or(&[], |v| &v[..])
    }

    /// Locks every caller of `id` holds that `id` cannot name, each with the class of the
    /// callers naming it.
    pub fn callers_locks(&self, id: MethodId) -> &[(u32, crate::analysis::locks::LockId)] {
        self.callers_locks.get(&id).map_or(&[], |v| &v[..])
    }

    /// The method a reference of class `class` resolves to (computed once per reference).
    /// The declaring `(class, field)` of field reference `r` of class `class` (resolved once,
    /// like [`Program::field_owner`] by name).
    pub fn field_ref(&self, class: u32, r: crate::bytecode::RefId) -> Option<(u32, u32)> {
        self.field_refs
            .get(class as usize)
            .and_then(|c| c.get(r as usize))
            .copied()
            .flatten()
    }

    /// Whether field reference `r` of class `class` names a flag lock
    /// ([`sharing::flag_locks`]).
    pub fn is_flag_lock(&self, class: u32, r: crate::bytecode::RefId) -> bool {
        let flags = &self.fields.flags.fields;
        !flags.is_empty()
            && (self.field_ref(class, r))
                .is_some_and(|(c, f)| flags.contains(&self.fields.id(c, f)))
    }

    pub fn resolved(&self, class: u32, r: crate::bytecode::RefId) -> Option<MethodId> {
        self.resolved
            .get(class as usize)
            .and_then(|c| c.get(r as usize))
            .copied()
            .flatten()
    }

    /// `f` asked with what the program knows of class `class`'s references for the bytecode
    /// shapes of [`crate::bytecode::ensure`]: stable fields, property accessors no subclass
    /// replaces ([`Program::property_accessor`]), and the platform model's atomics (`scalar`,
    /// `scalar-get`, `scalar-set`).
    pub fn with_known<R>(
        &self,
        class: u32,
        f: impl FnOnce(&crate::bytecode::ensure::Known<'_>) -> R,
    ) -> R {
        let stable = |r| self.is_stable_field(class, r);
        let accessor = |r| self.property_accessor(class, r);
        let scalar = |m: &crate::bytecode::MemberRef| {
            let ts = &self.thread_safe;
            (ts.is_scalar(&m.class))
                .then(|| {
                    (ts.is_scalar_get(&m.name).then_some(true))
                        .or(ts.is_scalar_set(&m.name).then_some(false))
                })
                .flatten()
        };
        f(&crate::bytecode::ensure::Known {
            stable: &stable,
            accessor: &accessor,
            scalar: &scalar,
        })
    }

    /// The target of method reference `r` of class `class` when it is a plain property
    /// accessor that no subclass replaces (it is private or final, its class is final, or the
    /// program has no subclass of it): `(true, field)` for an instance getter `return
    /// this.f;`, `(false, field)` for a setter `this.f = v;` of its one argument; `field` by its
    /// declaration. Synchronized or not: either is one atomic step on the field.
    pub fn property_accessor(
        &self,
        class: u32,
        r: crate::bytecode::RefId,
    ) -> Option<(bool, (u32, u32))> {
        use crate::bytecode::{acc, Op};
        let t = self.resolved(class, r)?;
        let (c, m) = (self.class(t.class), self.method(t));
        let fixed = (m.access & (acc::FINAL | acc::PRIVATE) != 0)
            || c.access & acc::FINAL != 0
            || self.subtypes.get(&t.class).is_none_or(Vec::is_empty);
        if m.is_static() || !fixed {
            return None;
        }
        let code = m.code.as_ref()?;
        let ops: Vec<&Op> = code.insns.iter().map(|i| &i.op).collect();
        match ops[..] {
            [Op::Load(0, 1), Op::GetField(f), Op::Return(n)] if *n > 0 => {
                Some((true, self.field_ref(t.class, *f)?))
            }
            [Op::Load(0, 1), Op::Load(1, n), Op::PutField(f), Op::Return(0)]
                if u16::from(*n) + 1 == m.param_slots() =>
            {
                Some((false, self.field_ref(t.class, *f)?))
            }
            _ => None,
        }
    }

    /// Whether field reference `r` of class `class` reads a stable field: fixed once its
    /// object or class is constructed (see [`sharing`]).
    pub fn is_stable_field(&self, class: u32, r: crate::bytecode::RefId) -> bool {
        self.stable
            .get(class as usize)
            .and_then(|c| c.get(r as usize))
            .copied()
            .unwrap_or(false)
    }

    /// A field reference read by `getstatic` when `is_static`.
    fn stable_field_at(&self, owner: Option<(u32, u32)>, class: &str, is_static: bool) -> bool {
        match owner {
            Some((ci, fi)) => {
                let id = self.fields.id(ci, fi) as usize;
                !self.fields.mutable[id] || self.fields.confined[id]
            }
            // Not in the program: a static of the platform is one of its constants
            // (`Boolean.FALSE`, `System.out`); anything else may change.
            None => is_static && sharing::is_platform(class),
        }
    }

    /// When field reference `r` of class `class` holds a part of a read-write lock held in
    /// another field of the same object: that field's reference, and whether it is the write
    /// part.
    pub fn rw_lock_part(&self, class: u32, r: crate::bytecode::RefId) -> Option<(u32, bool)> {
        self.rw_parts.get(class as usize)?.get(&r).copied()
    }

    pub fn has_thread_safe_fields(&self) -> bool {
        !self.thread_safe_fields.is_empty()
    }

    pub fn is_thread_safe_field(&self, owner: &str, name: &str) -> bool {
        self.thread_safe_fields
            .get(owner)
            .is_some_and(|v| v.iter().any(|n| &**n == name))
    }

    /// The fields assigned a new legacy collection, as `(class of the reference, field name)`.
    pub fn legacy_fields(&self) -> &[(Box<str>, Box<str>)] {
        &self.legacy_fields
    }

    pub fn class_index(&self, name: &str) -> Option<u32> {
        self.by_name.get(name).copied()
    }

    pub fn class(&self, i: u32) -> &Class {
        &self.classes[i as usize]
    }

    pub fn method(&self, id: MethodId) -> &Method {
        &self.classes[id.class as usize].methods[id.method as usize]
    }

    pub fn summary(&self, id: MethodId) -> &Summary {
        &self.summaries[id.class as usize][id.method as usize]
    }

    pub(crate) fn summary_mut(&mut self, id: MethodId) -> &mut Summary {
        &mut self.summaries[id.class as usize][id.method as usize]
    }

    /// The index of the method class `ci` declares with this name and descriptor; `key` holds
    /// their [`method_key`] once computed (one per look-up along a hierarchy).
    fn declared(
        &self,
        ci: u32,
        (name, desc): (&str, &str),
        key: &std::cell::OnceCell<u64>,
    ) -> Option<u32> {
        let methods = &self.class(ci).methods;
        let keyed = self.method_keys.get(ci as usize);
        let Some(keyed) = keyed.filter(|_| methods.len() > KEYED_METHODS) else {
            // A few methods: a scan in declaration order.
            return (methods.iter())
                .position(|m| &*m.name == name && &*m.descriptor == desc)
                .map(|mi| mi as u32);
        };
        let keys = keyed.get_or_init(|| {
            let mut keys: Vec<(u64, u32)> = (methods.iter().enumerate())
                .map(|(mi, m)| (method_key(&m.name, &m.descriptor), mi as u32))
                .collect();
            keys.sort_unstable();
            keys.into_boxed_slice()
        });
        let key = *key.get_or_init(|| method_key(name, desc));
        let from = keys.partition_point(|&(k, _)| k < key);
        (keys[from..].iter())
            .take_while(|&&(k, _)| k == key)
            .map(|&(_, mi)| mi)
            // The first declared of equal keys, as a scan in declaration order finds it.
            .filter(|&mi| {
                let m = &methods[mi as usize];
                &*m.name == name && &*m.descriptor == desc
            })
            .min()
    }

    /// JVM method resolution: the class, then its superclasses, then its superinterfaces.
    pub fn resolve(&self, class: &str, name: &str, desc: &str) -> Option<MethodId> {
        let key = std::cell::OnceCell::new();
        let find = |ci: u32| {
            self.declared(ci, (name, desc), &key).map(|mi| MethodId {
                class: ci,
                method: mi,
            })
        };
        let mut chain = Vec::new();
        let mut cur = self.class_index(class);
        while let Some(ci) = cur {
            if chain.len() > 64 || chain.contains(&ci) {
                break;
            }
            if let Some(m) = find(ci) {
                return Some(m);
            }
            chain.push(ci);
            cur = self.superclass(ci);
        }
        let mut stack: Vec<u32> = Vec::new();
        let mut seen: Vec<u32> = Vec::new();
        for &ci in &chain {
            stack.extend(self.interfaces(ci));
        }
        while let Some(ci) = stack.pop() {
            if seen.contains(&ci) || seen.len() > 256 {
                continue;
            }
            seen.push(ci);
            if let Some(m) = find(ci) {
                return Some(m);
            }
            stack.extend(self.interfaces(ci));
        }
        None
    }

    /// The superclass of class `ci`, when the program has it.
    fn superclass(&self, ci: u32) -> Option<u32> {
        let sup = self.direct_supers[ci as usize].0;
        (sup != u32::MAX).then_some(sup)
    }

    /// The direct superinterfaces of class `ci` that the program has.
    fn interfaces(&self, ci: u32) -> impl Iterator<Item = u32> + '_ {
        self.direct_supers[ci as usize].1.iter().copied()
    }

    /// The declaring class and index of a field reference `class.name` (JVM field resolution:
    /// the class, its superinterfaces, then its superclasses).
    pub fn field_owner(&self, class: &str, name: &str) -> Option<(u32, u32)> {
        let mut cur = self.class_index(class);
        let mut steps = 0;
        while let Some(ci) = cur {
            let c = self.class(ci);
            if let Some(fi) = c.fields.iter().position(|f| &*f.name == name) {
                return Some((ci, fi as u32));
            }
            for ii in self.interfaces(ci) {
                if let Some(fi) = self.class(ii).fields.iter().position(|f| &*f.name == name) {
                    return Some((ii, fi as u32));
                }
            }
            steps += 1;
            if steps > 64 {
                break;
            }
            cur = self.superclass(ci);
        }
        None
    }

    /// Whether `sub` is `sup` or a subtype of it (through classes and interfaces we have).
    pub fn is_subclass_of(&self, sub: &str, sup: &str) -> bool {
        if sub == sup {
            return true;
        }
        match (
            self.class_index(sub),
            self.supertypes.id(&self.by_name, sup),
        ) {
            (Some(c), Some(s)) => self.supertypes.has(c, s),
            _ => false,
        }
    }

    /// Whether instance method `method` may run with `this` an object of `class` (a subclass
    /// of its declaring class): not where the method is overridden on the way down to `class`
    /// and no `super.m()` call of it is made by code of `class` or of a superclass of it (the
    /// only call that reaches an overridden method on such an object; a caller outside, even a
    /// subclass of `class`, reaches the override). `JChannel.connect()`, which `ForkChannel`
    /// overrides without calling it, never runs on a `ForkChannel`, so it never writes a
    /// `ForkChannel`'s fields: issue 12's calls to code that never runs there.
    pub fn runs_on(&self, method: MethodId, class: u32) -> bool {
        use crate::bytecode::acc;
        let m = self.method(method);
        if class == method.class
            || m.access & (acc::STATIC | acc::PRIVATE) != 0
            || m.name.starts_with('<')
            || !self.is_subclass_idx(class, method.class)
        {
            return true;
        }
        let c = self.class(class);
        if self.resolve(&c.name, &m.name, &m.descriptor) == Some(method) {
            return true;
        }
        (self.super_calls.get_or_init(|| self.compute_super_calls()))
            .get(&method)
            .is_some_and(|callers| callers.iter().any(|&x| self.is_subclass_idx(class, x)))
    }

    /// [`Program::super_calls`]: every `invokespecial` of a method that is neither a
    /// constructor nor private, by its resolved target.
    fn compute_super_calls(&self) -> FxHashMap<MethodId, Vec<u32>> {
        use crate::bytecode::{acc, InvokeKind, Op};
        let mut out: FxHashMap<MethodId, Vec<u32>> = FxHashMap::default();
        for (ci, c) in self.classes.iter().enumerate() {
            let code = c.methods.iter().filter_map(|m| m.code.as_ref());
            for i in code.flat_map(|code| &code.insns) {
                let Op::Invoke(InvokeKind::Special, r) = i.op else {
                    continue;
                };
                let Some(t) = self.resolved(ci as u32, r) else {
                    continue;
                };
                let tm = self.method(t);
                if tm.name.starts_with('<') || tm.access & acc::PRIVATE != 0 {
                    continue;
                }
                let callers = out.entry(t).or_default();
                if !callers.contains(&(ci as u32)) {
                    callers.push(ci as u32);
                }
            }
        }
        out
    }

    /// [`Program::is_subclass_of`] by class index.
    pub fn is_subclass_idx(&self, sub: u32, sup: u32) -> bool {
        sub == sup || self.supertypes.has(sub, sup)
    }

    /// Which classes can have objects: a class created somewhere in the program (`new C`, in
    /// scanned code or on the classpath), or one that code outside it can create (public,
    /// concrete, with a public or protected constructor: a library's user, a service loader, a
    /// dependency-injection container); and every supertype of such a class. A class that is
    /// neither (a private wrapper the code never creates, a package-private implementation
    /// left unused) receives no virtual call: dispatch goes to what exists, not to every
    /// subtype the class hierarchy names (issue 12's "calls to code that never runs there").
    fn live_classes(&self) -> (Vec<bool>, Vec<bool>) {
        use crate::bytecode::acc;
        let mut live: Vec<bool> = self
            .par_classes()
            .map(|c| {
                c.access & (acc::ABSTRACT | acc::INTERFACE) == 0
                    && c.access & acc::PUBLIC != 0
                    && c.methods.iter().any(|m| {
                        &*m.name == "<init>" && m.access & (acc::PUBLIC | acc::PROTECTED) != 0
                    })
            })
            .collect();
        // The classes a `new` names: each is one reference of its class (the decoder makes one
        // for `new` alone, named `<new>`), so the references say it without a look at the code.
        let created: Vec<u32> = self
            .par_classes()
            .flat_map_iter(|c| {
                (c.refs.iter())
                    .filter(|r| !r.is_method && &*r.name == crate::bytecode::NEW_REF)
                    .filter_map(|r| self.class_index(&r.class))
            })
            .collect();
        for i in created {
            live[i as usize] = true;
        }
        let made = live.clone();
        // Supertypes of a live class are live (an inherited method runs on its objects).
        let mut stack: Vec<u32> = (0..live.len() as u32)
            .filter(|&i| live[i as usize])
            .collect();
        while let Some(i) = stack.pop() {
            for s in self.superclass(i).into_iter().chain(self.interfaces(i)) {
                if !live[s as usize] {
                    live[s as usize] = true;
                    stack.push(s);
                }
            }
        }
        (live, made)
    }

    /// Which methods of class `class` run only while an object of it or the class itself is
    /// initialized ([`sharing::init_only_methods`]), computed once per class.
    pub fn init_only(&self, class: u32) -> &[bool] {
        self.init_only[class as usize].get_or_init(|| sharing::init_only_methods(self.class(class)))
    }

    /// Whether objects of class `class` (or of a subclass) can exist: [`Program::live_classes`].
    pub fn has_objects(&self, class: u32) -> bool {
        self.live.get(class as usize).copied().unwrap_or(true)
    }

    /// Whether instance methods of class `class` may run: it [has objects](Self::has_objects),
    /// or it is public, so that code outside may still make one (by reflection, from a class
    /// name in its configuration, as `ServerCnxnFactory` makes its Netty factory). A class
    /// that is neither (a package-private thread class nothing creates) never runs them.
    pub fn may_have_objects(&self, class: u32) -> bool {
        self.has_objects(class) || self.class(class).access & crate::bytecode::acc::PUBLIC != 0
    }

    /// The program's classes for a parallel pass, handed out in small pieces
    /// ([`crate::PAR_CHUNK`]) so that no core waits for the last one.
    pub fn par_classes(&self) -> rayon::iter::MaxLen<rayon::slice::Iter<'_, Class>> {
        self.classes.par_iter().with_max_len(crate::PAR_CHUNK)
    }

    /// [`Program::implementations`], cached: virtual calls of the same target share it.
    pub fn implementations_cached(&self, id: MethodId, limit: usize) -> Option<Vec<MethodId>> {
        if let Ok(map) = self.overriders.read() {
            if let Some(found) = map.get(&id) {
                return found.clone();
            }
        }
        let found = self.implementations(id, limit);
        if let Ok(mut map) = self.overriders.write() {
            map.insert(id, found.clone());
        }
        found
    }

    /// Concrete implementations of an abstract or interface method in known subtypes, at most
    /// `limit` of them (`None` when there are more: too wide to be useful).
    pub fn implementations(&self, id: MethodId, limit: usize) -> Option<Vec<MethodId>> {
        let m = self.method(id);
        let mut out = Vec::new();
        let mut stack = vec![id.class];
        let mut seen: crate::fxhash::FxHashSet<u32> = Default::default();
        // What each class reached resolves the method to: a subclass that does not declare it
        // inherits its superclass's (looked up once, not again from every subclass).
        let mut inherited: FxHashMap<u32, MethodId> = FxHashMap::default();
        let key = std::cell::OnceCell::new();
        use crate::bytecode::acc::{ABSTRACT, INTERFACE};
        while let Some(c) = stack.pop() {
            if !seen.insert(c) {
                continue;
            }
            for &s in self.subtypes.get(&c).map(|v| v.as_slice()).unwrap_or(&[]) {
                let sc = self.class(s);
                // Declared in the subtype, or (for a concrete class) inherited from one of its
                // superclasses: `class SyncStore extends BaseStore implements Store`.
                let declared = self.declared(s, (&m.name, &m.descriptor), &key);
                let found = match declared {
                    Some(mi) => Some(MethodId {
                        class: s,
                        method: mi,
                    }),
                    None if sc.access & (ABSTRACT | INTERFACE) == 0 => {
                        // Reached from a class, `s` extends it: its superclass chain finds
                        // what that class's found first (an interface's default method, or
                        // nothing, is looked up again: `s` may implement more interfaces).
                        match inherited.get(&c) {
                            Some(&known) => Some(known),
                            None => self.resolve(&sc.name, &m.name, &m.descriptor),
                        }
                    }
                    None => None,
                };
                let in_class = |t: MethodId| self.class(t.class).access & INTERFACE == 0;
                if sc.access & INTERFACE == 0 {
                    if let Some(t) = found.filter(|&t| in_class(t)) {
                        inherited.insert(s, t);
                    }
                }
                // Only a class whose objects can exist receives the call (rapid type analysis,
                // with what a library's users can create counted as created).
                let live = self.has_objects(s);
                if let Some(t) = found.filter(|&t| live && t != id && self.method(t).code.is_some())
                {
                    if !out.contains(&t) {
                        out.push(t);
                        if out.len() > limit {
                            return None;
                        }
                    }
                }
                stack.push(s);
            }
        }
        Some(out)
    }

    /// Whether `a` and `b` belong to the same abstraction in the sense of Burrows and Leino:
    /// one is a superclass of the other, or they are nested in the same outer class.
    pub fn same_abstraction(&self, a: u32, b: u32) -> bool {
        let (na, nb) = (&*self.class(a).name, &*self.class(b).name);
        a == b || nest(na) == nest(nb) || self.extends(a, b) || self.extends(b, a)
    }

    /// Whether class `sub` is class `sup` or extends it (through superclasses alone).
    fn extends(&self, sub: u32, sup: u32) -> bool {
        let mut cur = Some(sub);
        let mut steps = 0;
        while let Some(ci) = cur {
            if ci == sup {
                return true;
            }
            steps += 1;
            if steps > 64 {
                return false;
            }
            cur = self.superclass(ci);
        }
        false
    }
}

/// The outermost class of the nest a class (by internal name) belongs to: `a/B` for `a/B$C$1`.
pub fn nest(name: &str) -> &str {
    name.split('$').next().unwrap_or(name)
}

/// Every loaded class's supertypes (classes and interfaces, transitively through the classes we
/// have), each a sorted list of ids: a loaded class's index, or an id past them for a name that
/// only appears as a supertype. Built once, so that a subtype test is a binary search rather
/// than a walk by name (the whole-program rules ask it for every pair of sections and writers).
struct Supertypes {
    /// Ids of the names that are supertypes but not loaded classes.
    missing: FxHashMap<Box<str>, u32>,
    of: Vec<Box<[u32]>>,
}

impl Supertypes {
    fn new(classes: &[Class], by_name: &FxHashMap<Box<str>, u32>) -> Self {
        let mut missing: FxHashMap<Box<str>, u32> = FxHashMap::default();
        for c in classes {
            for s in c.super_name.iter().chain(c.interfaces.iter()) {
                if !by_name.contains_key(s) && !missing.contains_key(s) {
                    let id = (classes.len() + missing.len()) as u32;
                    missing.insert(s.clone(), id);
                }
            }
        }
        let id = |n: &str| by_name.get(n).or_else(|| missing.get(n)).copied();
        let of = classes
            .par_iter()
            .with_max_len(crate::PAR_CHUNK)
            .enumerate()
            .map(|(i, c)| {
                let mut seen: Vec<u32> = Vec::new();
                let mut stack: Vec<&Class> = vec![c];
                while let Some(k) = stack.pop() {
                    for s in k.super_name.iter().chain(k.interfaces.iter()) {
                        let Some(s) = id(s) else { continue };
                        if s == i as u32 || seen.contains(&s) {
                            continue;
                        }
                        seen.push(s);
                        if let Some(sc) = classes.get(s as usize) {
                            stack.push(sc);
                        }
                    }
                }
                seen.sort_unstable();
                seen.into_boxed_slice()
            })
            .collect();
        Supertypes { missing, of }
    }

    /// The id of a class or supertype name, if any class has it.
    fn id(&self, by_name: &FxHashMap<Box<str>, u32>, name: &str) -> Option<u32> {
        by_name
            .get(name)
            .or_else(|| self.missing.get(name))
            .copied()
    }

    fn has(&self, class: u32, sup: u32) -> bool {
        self.of
            .get(class as usize)
            .is_some_and(|s| s.binary_search(&sup).is_ok())
    }
}
