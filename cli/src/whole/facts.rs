//! Per-method facts for the whole-program analyses, collected with the shared engine in a
//! calling context: every field access and call with the regions held at it, and the regions
//! the method opens.

use super::fields::FieldTable;
use crate::analysis::engine::{self, Frame};
use crate::analysis::guards::{self, GuardKey};
use crate::analysis::locks::{Base, LockId, Sym, CALLER_SITE};
use crate::bytecode::{InvokeKind, Op};
use crate::program::{MethodId, Program};

/// A field, program-wide (see [`FieldTable`]).
pub type FieldId = u32;
/// Access kinds, as bit flags.
pub const READ: u8 = 1;
pub const WRITE: u8 = 2;

#[derive(Debug, Clone)]
pub struct Access {
    pub at: u32,
    pub field: FieldId,
    pub kind: u8,
    /// Sites of the regions of this method held at the access, outermost first.
    pub held: Box<[u32]>,
    /// A lock every caller holds (the method's entry locks) is held at the access.
    pub caller_held: bool,
    /// The field is the method's own object's (or a static one): of `this` or of an inner
    /// class's enclosing instance, not one of another object the method reaches (a parameter,
    /// a field's value), whose identity with any other object the code does not say.
    pub own: bool,
    /// The field is `this` object's (or a static one): an object of the method's class.
    pub on_this: bool,
}

#[derive(Debug, Clone)]
pub struct CallSite {
    pub at: u32,
    /// Possible callees with code (class-hierarchy analysis, bounded).
    pub targets: Vec<MethodId>,
    pub held: Box<[u32]>,
    /// A lock every caller holds (the method's entry locks) is held at the call.
    pub caller_held: bool,
    /// The locks held at the call as the callee names them (its `this` is the receiver): a
    /// region of the callee on one of them re-enters a lock the caller holds.
    pub held_keys: Vec<LockKey>,
    /// The call is on `this` while this method holds the lock of `this`: the callee runs with
    /// it held (its `synchronized` is re-entry).
    pub this_held: bool,
    /// The receiver is an object this method allocated (`new`, or a factory's fresh result):
    /// no other thread sees it yet, so the callee's sections on it are not shared ones.
    pub fresh_receiver: bool,
    /// For a fresh receiver: the classes whose fields are the object's own (its static class,
    /// the callees' classes and their superclasses). What the callee and its callees access of
    /// them is the unpublished object's state, not shared state.
    pub fresh_classes: Box<[u32]>,
    /// The receiver is a legacy synchronized collection (`Vector`, `Hashtable`) held in an
    /// instance field of a class that takes no lock of its own: in a library, its callers do
    /// not share it ([`crate::whole::threads::callers_share`]), so in open world it is per-call
    /// state like a fresh object (`fresh_classes` then names its classes too).
    pub legacy_receiver: bool,
    /// The call is made on `this`: the callee names the caller's locks of `this` the same way.
    pub on_this: bool,
    /// The call is made on `this` or on the enclosing instance of an inner class's `this`:
    /// the callee's `this` is the caller's object (see [`Access::own`]).
    pub on_own: bool,
    /// The call's result only becomes logged or printed text (`log.debug("{}", getState())`):
    /// what the callee only reads, it reads for a message.
    pub message_only: bool,
}

/// A lock named across methods, in the lock model's own terms ([`GuardKey`]: `this`'s
/// monitor, a field by program field id, a class literal), and whether it is global (a static
/// field, a class literal) rather than relative to the method's `this`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LockKey {
    pub key: GuardKey,
    pub global: bool,
}

impl LockKey {
    /// Whether this lock, named in a method of class `c1`, is `other`, named in a method of
    /// class `c2`: a global lock by its key; a lock relative to `this` by its key, when one
    /// class extends the other (the same object, as the lock model assumes for one field's
    /// lock).
    pub fn same(self, p: &Program, c1: u32, other: LockKey, c2: u32) -> bool {
        if self != other {
            return false;
        }
        if self.global || c1 == c2 {
            return true;
        }
        // A field's lock named in an inner class (through its enclosing instance, `this$0.lock`)
        // and in the class that declares it: the field is that object's.
        let nested = matches!(self.key, GuardKey::Field(..))
            && crate::program::nest(&p.class(c1).name) == crate::program::nest(&p.class(c2).name);
        nested || p.is_subclass_idx(c1, c2) || p.is_subclass_idx(c2, c1)
    }
}

/// The key of a lock held in method `id`, when it can be named across methods.
fn key_of(p: &Program, class: u32, lock: LockId) -> Option<LockKey> {
    let (key, global) = match lock {
        LockId::This => (GuardKey::Own, false),
        LockId::Class(h) => (GuardKey::Class(h), true),
        LockId::Field(base @ (Base::This | Base::Static | Base::Outer), r, part) => (
            GuardKey::Field(guards::field_id(p, class, r)?, part),
            base == Base::Static,
        ),
        _ => return None,
    };
    Some(LockKey { key, global })
}

impl Facts {
    /// The locks held at an access or call with held region `sites` (and the entry locks
    /// when `caller_held`) that can be named across methods.
    pub fn keys_held(&self, sites: &[u32], caller_held: bool) -> Vec<LockKey> {
        let mut out: Vec<LockKey> = sites
            .iter()
            .filter_map(|s| {
                self.region_keys
                    .iter()
                    .find(|(r, _)| r == s)
                    .map(|&(_, k)| k)
            })
            .collect();
        if caller_held {
            out.extend(self.entry_keys.iter().copied());
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The method's regions held inside its region at `site`: those around it and itself,
    /// outermost first (`synchronized (lock)` around `synchronized (this)`), read off what the
    /// region encloses; just `site` when it encloses nothing of this method's own.
    pub fn regions_around(&self, site: u32) -> Vec<u32> {
        (self.accesses.iter().map(|a| &a.held))
            .chain(self.calls.iter().map(|c| &c.held))
            .find_map(|h| Some(h[..=h.iter().position(|&s| s == site)?].to_vec()))
            .unwrap_or_else(|| vec![site])
    }
}

/// What one method does, in one calling context.
#[derive(Debug, Default)]
pub struct Facts {
    pub accesses: Vec<Access>,
    pub calls: Vec<CallSite>,
    /// Acquisition sites of the regions this method opens (not re-entry), in code order.
    pub regions: Vec<u32>,
    /// The lock of each region that can be named across methods (by site).
    pub region_keys: Vec<(u32, LockKey)>,
    /// The locks every caller holds (the method's entry locks) that can be named across
    /// methods: held wherever `caller_held` says so.
    pub entry_keys: Vec<LockKey>,
    /// The locks every caller holds that the method cannot name, named in the callers' class:
    /// held throughout the method.
    pub callers_keys: Vec<(u32, LockKey)>,
    /// The method calls `Object.wait` or `Condition.await*`.
    pub waits: bool,
    /// Analysis of the method failed (left out of the views).
    pub failed: Option<String>,
}

/// Compute the facts of `id` when its caller holds `this` (`this_held`) or not.
pub fn collect(p: &Program, fields: &FieldTable, id: MethodId, this_held: bool) -> Facts {
    let in_initializer = matches!(&*p.method(id).name, "<init>" | "<clinit>");
    let mut c = Collector {
        p,
        fields,
        id,
        in_initializer,
        facts: Facts::default(),
    };
    let mut run = Collecting {
        c: &mut c,
        reads: MessageReads::new(p, id),
    };
    let result = engine::run_method(p, id, this_held, &mut run);
    let mut reads = run.reads;
    reads.finish();
    let mut facts = match result {
        Ok(()) => c.facts,
        Err(e) => Facts {
            failed: Some(e.to_string()),
            ..Facts::default()
        },
    };
    // A field read whose value only becomes logged or printed text decides nothing the method
    // does: a look for a message, no part of any view.
    facts
        .accesses
        .retain(|a| a.kind != READ || !reads.message_only(a.at));
    for c in &mut facts.calls {
        c.message_only = reads.message_only(c.at);
    }
    facts.regions.sort_unstable();
    facts.regions.dedup();
    facts.callers_keys = p
        .callers_locks(id)
        .iter()
        .filter_map(|&(class, lock)| Some((class, key_of(p, class, lock)?)))
        .collect();
    facts
}

/// Whether `sym` is the method's own object: `this`, or the enclosing instance of an inner
/// class's `this` (`this$0`).
fn own_object(class: &crate::bytecode::Class, sym: Sym) -> bool {
    match sym {
        Sym::This => true,
        Sym::Field(Base::This, fr) => crate::analysis::locks::is_enclosing_field(class, fr),
        _ => false,
    }
}

/// Possible callees of a call: the resolved method and, for virtual calls, the bounded set of
/// overriding implementations.
pub fn call_targets(p: &Program, class_id: u32, r: u32, kind: InvokeKind) -> Vec<MethodId> {
    let Some(t) = p.resolved(class_id, r) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if p.method(t).code.is_some() {
        out.push(t);
    }
    if matches!(kind, InvokeKind::Virtual | InvokeKind::Interface) {
        if let Some(impls) = p.implementations_cached(t, crate::program::MAX_IMPLEMENTATIONS) {
            out.extend(impls);
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

struct Collector<'a> {
    p: &'a Program,
    fields: &'a FieldTable,
    id: MethodId,
    in_initializer: bool,
    facts: Facts,
}

impl Collector<'_> {
    fn observe<V>(&mut self, at: u32, frame: &Frame<V>) {
        let class = self.p.class(self.id.class);
        let method = self.p.method(self.id);
        let Some(code) = &method.code else { return };
        let held: Box<[u32]> = frame
            .locks
            .held
            .iter()
            .map(|h| h.site)
            .filter(|&s| s != CALLER_SITE)
            .collect();
        let caller_held = frame.locks.held.iter().any(|h| h.site == CALLER_SITE);
        for h in frame.locks.held.iter().filter(|h| h.site == CALLER_SITE) {
            if let Some(k) = key_of(self.p, self.id.class, h.lock) {
                if !self.facts.entry_keys.contains(&k) {
                    self.facts.entry_keys.push(k);
                }
            }
        }
        for h in frame.locks.held.iter().filter(|h| h.site != CALLER_SITE) {
            self.facts.regions.push(h.site);
            if let Some(k) = key_of(self.p, self.id.class, h.lock) {
                if !self.facts.region_keys.iter().any(|(s, _)| *s == h.site) {
                    self.facts.region_keys.push((h.site, k));
                }
            }
        }
        match code.insns[at as usize].op {
            Op::GetField(r) | Op::GetStatic(r) | Op::PutField(r) | Op::PutStatic(r) => {
                if self.in_initializer {
                    return;
                }
                let m = class.member(r);
                let Some(field) = self.fields.id_of(self.p, &m.class, &m.name) else {
                    return;
                };
                // The object under the value stored (a `long` or `double` takes two slots).
                let wide = matches!(m.desc.as_bytes().first(), Some(b'J' | b'D'));
                let (kind, object) = match code.insns[at as usize].op {
                    Op::GetField(_) => (READ, Some(1)),
                    Op::PutField(_) => (WRITE, Some(if wide { 3 } else { 2 })),
                    Op::GetStatic(_) => (READ, None),
                    _ => (WRITE, None),
                };
                let object = object.map(|depth| {
                    (frame.stack.len().checked_sub(depth))
                        .and_then(|i| frame.stack.get(i))
                        .map_or(Sym::Unknown, |s| s.sym)
                });
                let own = object.is_none_or(|sym| own_object(class, sym));
                let on_this = object.is_none_or(|sym| sym == Sym::This);
                self.facts.accesses.push(Access {
                    at,
                    field,
                    kind,
                    held,
                    caller_held,
                    own,
                    on_this,
                });
            }
            Op::Invoke(kind, r) => {
                let m = class.member(r);
                if &*m.name == "wait" || m.name.starts_with("await") {
                    self.facts.waits = true;
                }
                if &*m.name == "<init>" {
                    // Constructors touch an object no other thread sees yet.
                    return;
                }
                let nargs = m.arg_slots as usize + usize::from(kind != InvokeKind::Static);
                let receiver = if kind == InvokeKind::Static {
                    Sym::Unknown
                } else {
                    frame
                        .stack
                        .len()
                        .checked_sub(nargs)
                        .and_then(|i| frame.stack.get(i))
                        .map_or(Sym::Unknown, |s| s.sym)
                };
                let mut targets = call_targets(self.p, self.id.class, r, kind);
                // Dispatch to what exists: a receiver this method allocated, or read from a
                // field that holds only new objects of known classes, reaches their methods.
                if targets.len() > 1 {
                    let known = self.p.receiver_classes(self.id.class, code, receiver);
                    if let Some(classes) = known {
                        let reached: Vec<MethodId> = classes
                            .iter()
                            .filter_map(|&t| {
                                self.p.resolve(&self.p.class(t).name, &m.name, &m.desc)
                            })
                            .collect();
                        targets.retain(|t| reached.contains(t));
                    }
                }
                if targets.is_empty() {
                    return;
                }
                // The receiver's monitor held at the call: its own `this`, or an object of
                // another class that the caller locks around its calls (a parameter, an object
                // in a field: `synchronized (account) { account.balance(); .. }`). The callee's
                // `synchronized` is re-entry there. Another object of the caller's own class
                // (a parent cache locked around the same method) stays outside: the views do
                // not tell two objects of one class apart, so the callee's fields would count
                // as guarded by a lock that only that other object's callers take.
                let own = self.id.class;
                let other_class = || {
                    (targets.iter()).all(|t| {
                        !self.p.is_subclass_idx(t.class, own)
                            && !self.p.is_subclass_idx(own, t.class)
                    })
                };
                let this_held = LockId::of_object(receiver).is_some_and(|lock| {
                    frame.locks.holds(lock) && (receiver == Sym::This || other_class())
                });
                let fresh_receiver = crate::analysis::locks::is_local_object(
                    &crate::analysis::locks::Caller {
                        program: self.p,
                        class_id: self.id.class,
                        class,
                        method,
                    },
                    receiver,
                );
                let legacy_receiver = match receiver {
                    Sym::Field(Base::This, fr) => {
                        let f = class.member(fr);
                        self.fields
                            .raw_id(self.p, &f.class, &f.name)
                            .is_some_and(|id| {
                                self.fields.is_legacy(id)
                                    && !crate::whole::threads::callers_share(
                                        self.p,
                                        self.fields,
                                        id,
                                        &self.p.config.thread_safe_annotations,
                                    )
                            })
                    }
                    _ => false,
                };
                let fresh_classes = if fresh_receiver || legacy_receiver {
                    own_classes(self.p, &m.class, &targets)
                } else {
                    Box::default()
                };
                // A call on the enclosing instance (`this$0.m()` from an inner class): the
                // callee's `this` is that object, so the locks held on its fields, and its own
                // monitor, are the callee's to name.
                let outer_receiver = receiver != Sym::This && own_object(class, receiver);
                let receiver_lock = LockId::of_object(receiver);
                let held_keys = frame
                    .locks
                    .held
                    .iter()
                    .filter_map(|h| {
                        if outer_receiver && Some(h.lock) == receiver_lock {
                            return Some(LockKey {
                                key: GuardKey::Own,
                                global: false,
                            });
                        }
                        let k = key_of(self.p, self.id.class, h.lock)?;
                        let outer = matches!(h.lock, LockId::Field(Base::Outer, ..));
                        (receiver == Sym::This || k.global || outer_receiver && outer).then_some(k)
                    })
                    .collect();
                self.facts.calls.push(CallSite {
                    at,
                    targets,
                    held,
                    caller_held,
                    held_keys,
                    this_held,
                    fresh_receiver,
                    fresh_classes,
                    legacy_receiver,
                    on_this: receiver == Sym::This,
                    on_own: own_object(class, receiver),
                    message_only: false,
                });
            }
            _ => {}
        }
    }
}

/// The classes whose fields an object of static class `class` holds, as far as the program
/// knows: that class, the classes of the methods `targets` called on it, and their
/// superclasses.
fn own_classes(p: &Program, class: &str, targets: &[MethodId]) -> Box<[u32]> {
    let mut out: Vec<u32> = Vec::new();
    let starts = p
        .class_index(class)
        .into_iter()
        .chain(targets.iter().map(|t| t.class));
    for start in starts {
        let mut at = Some(start);
        while let Some(ci) = at.filter(|ci| !out.contains(ci) && out.len() < 64) {
            out.push(ci);
            at = p
                .class(ci)
                .super_name
                .as_deref()
                .and_then(|s| p.class_index(s));
        }
    }
    out.sort_unstable();
    out.into()
}

/// Which field reads and call results of one method only reach messages: the provenance of
/// every value, as the set of field reads and calls it comes from (the first 64 of the method,
/// one bit each), carried through computations, calls of value types and text (string
/// building, formatting), and used by nothing a log line or a printed line does. Every other
/// use (a store, a branch, a return, an argument, a dereference) makes the reads it comes from
/// data: text that is returned, stored or thrown is data too.
///
/// An array the method makes (also one bit) holds what is stored into it: what becomes of the
/// array becomes of its elements. The arguments of a variable-arity call
/// (`log.debug("{} of {}", n, total)`, `String.format("%d", n)`) reach it in such an array, so
/// values a format or a log line takes that way are messages too; an array kept, returned or
/// handed to other code makes its elements data.
#[derive(Default)]
struct MessageReads {
    /// Bit of each instruction that reads a field, calls a method with a result, or makes an
    /// array (`u8::MAX`: none, or past the first 64).
    bit: Vec<u8>,
    /// The instructions that store into an array.
    array_stores: Vec<u32>,
    /// The bits of the arrays the method makes.
    arrays: u64,
    /// What is stored into each array the method makes, by the array's bit (empty when it
    /// makes none).
    contents: Vec<u64>,
    /// Reads whose value some instruction uses as data.
    used: u64,
    /// Reads and calls whose result the analysis followed (a call of a value type's method or
    /// a message API carries its inputs instead).
    followed: u64,
    /// Reads and calls whose result became text (a discarded result does not).
    formatted: u64,
    /// The instructions of `assert` statements (see [`assert_code`]).
    asserts: Vec<bool>,
}

/// The instructions of a method's `assert` statements: what javac compiles between the test of
/// `$assertionsDisabled` (`getstatic; ifne end`) and `end`. An assertion checks the
/// developer's reasoning and runs only with `-ea`: its reads are looks for a check's message,
/// like a log line's, not part of what the method does with the state.
fn assert_code(p: &Program, id: MethodId) -> Vec<bool> {
    let Some(code) = &p.method(id).code else {
        return Vec::new();
    };
    let class = p.class(id.class);
    let mut out: Vec<bool> = Vec::new();
    for (at, w) in code.insns.windows(2).enumerate() {
        let (Op::GetStatic(r), Op::If { target, .. }) = (&w[0].op, &w[1].op) else {
            continue;
        };
        if &*class.member(*r).name != "$assertionsDisabled" {
            continue;
        }
        let (from, to) = (at + 2, (*target as usize).min(code.insns.len()));
        if from < to {
            out.resize(code.insns.len(), false);
            out[from..to].iter_mut().for_each(|x| *x = true);
        }
    }
    out
}

impl MessageReads {
    fn new(p: &Program, id: MethodId) -> Self {
        let Some(code) = &p.method(id).code else {
            return MessageReads::default();
        };
        let class = p.class(id.class);
        let mut next = 0u8;
        let mut arrays = 0u64;
        let mut array_stores = Vec::new();
        let bit = code
            .insns
            .iter()
            .enumerate()
            .map(|(at, i)| match i.op {
                Op::GetField(_) | Op::GetStatic(_) if next < 64 => {
                    next += 1;
                    next - 1
                }
                Op::Invoke(_, r) if next < 64 && class.member(r).ret_slots > 0 => {
                    next += 1;
                    next - 1
                }
                Op::NewArray(_) if next < 64 => {
                    arrays |= 1 << next;
                    next += 1;
                    next - 1
                }
                Op::ArrayStore(_) => {
                    array_stores.push(at as u32);
                    u8::MAX
                }
                _ => u8::MAX,
            })
            .collect();
        MessageReads {
            bit,
            array_stores,
            arrays,
            contents: if arrays == 0 { Vec::new() } else { vec![0; 64] },
            asserts: assert_code(p, id),
            ..MessageReads::default()
        }
    }

    /// After the run: what became of each array the method made becomes of what it holds (an
    /// array inside an array too).
    fn finish(&mut self) {
        loop {
            let (used, formatted) = (self.used, self.formatted);
            for (a, &held) in self.contents.iter().enumerate() {
                let bit = 1u64 << a;
                if self.used & bit != 0 {
                    self.used |= held;
                }
                if self.formatted & bit != 0 {
                    self.formatted |= held;
                }
            }
            if (used, formatted) == (self.used, self.formatted) {
                break;
            }
        }
    }

    fn message_only(&self, at: u32) -> bool {
        if self.asserts.get(at as usize) == Some(&true) {
            return true;
        }
        match self.bit.get(at as usize) {
            Some(&b) if b != u8::MAX => self.followed & self.formatted & !self.used & (1 << b) != 0,
            _ => false,
        }
    }

    fn transfer(&mut self, cx: &engine::StepCx, inputs: &[u64]) -> u64 {
        use crate::analysis::locks::{CallEffect, Returns};
        use engine::StepKind;
        let from = inputs.iter().fold(0, |a, b| a | b);
        match cx.kind {
            // Text (string building, formatting, logging, printing): the result carries what
            // it is made of to wherever it is used; a log line or a printed one uses nothing.
            StepKind::Format | StepKind::Call(CallEffect::Format) => {
                if cx.record {
                    self.formatted |= from;
                }
                from
            }
            // Computed from the inputs (arithmetic, a value type's method, boxing): the result
            // carries them. A constructor's arguments go into the object it makes, which no
            // value here carries: a use.
            StepKind::Compute
            | StepKind::Call(CallEffect::Plain {
                returns: Returns::Nothing,
            }) if cx.produces || cx.kind == StepKind::Compute => from,
            // A store into an array this method made: the array holds the value (see
            // `finish`); its index is used, and so is any other array it may be.
            StepKind::Sink
                if inputs.len() >= 3
                    && inputs[0] & self.arrays != 0
                    && self.array_stores.binary_search(&cx.at).is_ok() =>
            {
                if cx.record {
                    let held = inputs[2..].iter().fold(0, |a, b| a | b);
                    let mut arrays = inputs[0] & self.arrays;
                    while arrays != 0 {
                        self.contents[arrays.trailing_zeros() as usize] |= held;
                        arrays &= arrays - 1;
                    }
                    self.used |= (inputs[0] & !self.arrays) | inputs[1];
                }
                0
            }
            _ => {
                if cx.record {
                    self.used |= from;
                }
                match self.bit.get(cx.at as usize) {
                    Some(&b) if b != u8::MAX => {
                        if cx.record {
                            self.followed |= 1 << b;
                        }
                        1 << b
                    }
                    _ => 0,
                }
            }
        }
    }
}

/// The facts' run of the engine: the collector sees each program point, the values are the
/// reads they come from.
struct Collecting<'c, 'a> {
    c: &'c mut Collector<'a>,
    reads: MessageReads,
}

impl engine::Analysis for Collecting<'_, '_> {
    type V = u64;

    fn join(&self, a: &u64, b: &u64, _: Option<u32>) -> u64 {
        a | b
    }

    fn transfer(&mut self, cx: &engine::StepCx, inputs: &mut [u64]) -> u64 {
        self.reads.transfer(cx, inputs)
    }

    fn region(&mut self, _: engine::RegionEvent, _: &mut u64) {}

    fn observe(&mut self, at: u32, frame: &Frame<u64>) {
        self.c.observe(at, frame);
    }
}
