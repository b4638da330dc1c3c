//! The forward dataflow engine over the JVM frame, shared by every analysis.
//!
//! The engine owns the frame's shape: locals and operand stack in slots (a `long`/`double`
//! takes two, both carrying the same value), every opcode's stack effect, stack shuffles
//! (`dup*`, `swap`, `pop*`), local loads and stores (moves), exception edges, joins at merge
//! points and the fixpoint on loops. It also runs the shared lock model ([`super::locks`]):
//! each frame carries the locks it holds and each register a [`Sym`] for lock identity.
//!
//! An [`Analysis`] supplies only the abstract value `V` of a register and three callbacks:
//! [`Analysis::transfer`] for an instruction that consumes values (a *use*) and maybe produces
//! one, [`Analysis::region`] for region entry and exit (applied to every register), and
//! [`Analysis::join`]. Findings are recorded only in a final pass over the fixpoint, so each
//! is recorded once.

use std::collections::BTreeSet;

use crate::fxhash::FxHashMap;

use super::locks::{
    self, CallEffect, CallTarget, Caller, LockId, LockState, RegionCall, Returns, Sym, CALLER_SITE,
    METHOD_SITE,
};
use crate::bytecode::cfg::Cfg;
use crate::bytecode::{Class, Code, Cond, InvokeKind, Method, Op};
use crate::program::Program;

/// A register: the analysis' value and the lock model's symbol.
#[derive(Clone, Debug, PartialEq)]
pub struct Slot<V> {
    pub v: V,
    pub sym: Sym,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Frame<V> {
    pub locals: Vec<Slot<V>>,
    pub stack: Vec<Slot<V>>,
    pub locks: LockState,
}

/// What an instruction does with the values it consumes, as an analysis sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StepKind {
    /// Arithmetic, conversion, comparison, `instanceof`, `invokedynamic`: the result is
    /// computed from the inputs.
    Compute,
    /// A constant, `new`, a new array: the result is fresh.
    Fresh,
    /// A field, static, array element or array length read: the result comes from the heap.
    HeapRead,
    /// A read of a stable field (fixed once its object or class is constructed, see
    /// [`super::sharing`]): not shared mutable state; the value is as old as the object it is
    /// read from (the input, for an instance field).
    StableRead,
    /// Consumes its inputs and produces nothing the analyses track: field and array stores,
    /// `athrow`.
    Sink,
    /// A conditional branch or a switch: its inputs decide where control goes.
    Branch,
    /// A return: the input (if any) leaves the method.
    Return,
    /// `monitorenter`/`monitorexit`: the input is the lock object, not data (no use).
    Lock,
    /// A call: the inputs are the arguments (receiver first). The result depends on `effect`.
    Call(CallEffect),
    /// `iinc`: reads and writes one local.
    Iinc,
    /// The inputs become text (string concatenation, a `StringBuilder`, a formatting or logging
    /// call: see `CallEffect::Format`): formatted into a message, not used as data. The result
    /// is text.
    Format,
}

impl StepKind {
    /// A lock operation: its inputs are lock objects, never a use of shared data
    /// (`monitorenter`/`monitorexit`, `lock()`, `tryLock()`, `unlock()`, `wait()`).
    pub fn is_lock_operation(self) -> bool {
        matches!(
            self,
            StepKind::Lock
                | StepKind::Call(CallEffect::Acquire(_))
                | StepKind::Call(CallEffect::TryAcquire(_))
                | StepKind::Call(CallEffect::Release(_))
                | StepKind::Call(CallEffect::Wait(_))
        )
    }
}

/// The context of one transfer.
pub struct StepCx {
    /// Instruction index.
    pub at: u32,
    pub kind: StepKind,
    /// The region the inputs are used in (for a region call: the callee's region, whose site is
    /// `at`); `None` outside every region.
    pub region: Option<u32>,
    /// The region of the calling frame (differs from `region` only for a region call).
    pub caller_region: Option<u32>,
    /// Whether this is the final, recording pass.
    pub record: bool,
    /// Whether the instruction pushes a result.
    pub produces: bool,
    /// The shared location the instruction reads or writes, as far as the frame names it: a
    /// field through a nameable base (`this.f`, `p.f`, a static), or the object a call is made
    /// on (its receiver's symbol); `Sym::Unknown` when none.
    pub place: Sym,
    /// The instruction overwrites `place` without reading it: a field store, or a call that
    /// replaces the whole value of a thread-safe object (`set`, `lazySet`; not a
    /// read-modify-write such as `addAndGet`, not adding to a collection).
    pub stores: bool,
    /// The object a field access reads or writes through, as the frame names it
    /// (`Sym::Unknown` for anything else).
    pub object: Sym,
    /// The first input is an object whose own lock protects this access: a region call whose
    /// lock is its receiver (a thread-safe object's method, a `synchronized` method of the
    /// object), or a field or array access while the frame holds the object's monitor. That
    /// input identifies the lock; it is not data the instruction uses stale.
    pub receiver_locked: bool,
    /// The first input is the receiver of an instance call.
    pub receiver: bool,
    /// A call that only reads the state of a thread-safe object and takes only references
    /// (`get(key)`, `containsKey(key)`): a lookup of the current state for its arguments.
    pub lookup: bool,
    /// The call is a single-writer publication of `place` (`lazySet`, `setRelease`,
    /// `setOpaque`): the idiom of a thread that owns the value (see `publish` in the data
    /// file).
    pub publishes: bool,
    /// The call adds its argument to the value of `place` held when it runs (`addAndGet`,
    /// `getAndAdd`: see `delta` in the data file): an amount, not a value stored in its place.
    pub adds: bool,
    /// The instruction stores into an object or array this method allocated (no other thread
    /// sees it yet): building a local value, not writing shared state.
    pub local_target: bool,
    /// The lock of `region` (the innermost held), when in one.
    pub lock: Option<LockId>,
    /// The outermost held region `(lock, site)`, when in one: the region that encloses every
    /// other held one (`region` itself when only one is held).
    pub outer: Option<(LockId, u32)>,
    /// A computation whose result a branch tests at once (`lcmp`, `dcmpl` before an `if`): a
    /// comparison, not arithmetic.
    pub compares: bool,
}

/// A region boundary, applied to every register of the frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegionEvent {
    /// A new (non-reentrant) region on `lock` opened by the acquisition at `site`, at
    /// instruction `at`. `call` says why, when the region is one call.
    Enter {
        site: u32,
        at: u32,
        lock: LockId,
        call: Option<RegionCall>,
    },
    /// The region opened at `site` ended at instruction `at` (release, end of a region call,
    /// or the release inside `wait`).
    Exit {
        site: u32,
        at: u32,
        call: Option<RegionCall>,
    },
}

impl RegionEvent {
    pub fn enter(site: u32, at: u32, lock: LockId) -> Self {
        RegionEvent::Enter {
            site,
            at,
            lock,
            call: None,
        }
    }
    pub fn exit(site: u32, at: u32) -> Self {
        RegionEvent::Exit {
            site,
            at,
            call: None,
        }
    }
    /// For a one-call region, why the call is a region.
    pub fn call(&self) -> Option<RegionCall> {
        match self {
            RegionEvent::Enter { call, .. } | RegionEvent::Exit { call, .. } => *call,
        }
    }
}

pub trait Analysis {
    type V: Clone + PartialEq + Default + std::fmt::Debug;

    /// Join at a merge point; `region` is the region of the merged frame.
    fn join(&self, a: &Self::V, b: &Self::V, region: Option<u32>) -> Self::V;

    /// One instruction's effect on values: check the `inputs` it uses, return its result
    /// (ignored when `cx.produces` is false).
    fn transfer(&mut self, cx: &StepCx, inputs: &mut [Self::V]) -> Self::V;

    /// A region boundary: update one register.
    fn region(&mut self, ev: RegionEvent, v: &mut Self::V);

    /// Called in the final (recording) pass before instruction `at` runs, with its frame: for
    /// analyses that collect facts about program points (held locks, receivers) rather than
    /// values.
    fn observe(&mut self, _at: u32, _frame: &Frame<Self::V>) {}

    /// Whether the analysis wants [`Analysis::locks_at`].
    const LOCKS: bool = false;

    /// Called before each instruction of the passes before the recording one (which calls
    /// [`Analysis::observe`] instead) with the locks held there.
    fn locks_at(&mut self, _locks: &LockState) {}

    /// The value of local slot `slot` on entry to the method (parameters, `this` at slot 0 of
    /// an instance method); every other register starts as `V::default()`.
    fn entry_local(&mut self, _slot: usize) -> Self::V {
        Self::V::default()
    }

    /// On the edge where the compare-and-set style call at `site` succeeded (a branch on its
    /// boolean result), applied to every register: the values the call compared with the
    /// current state (its receiver and arguments) were current there.
    fn validated(&mut self, _site: u32, _v: &mut Self::V) {}

    /// Whether the instruction at `at`, just executed, checked values against the current state
    /// (a re-read and compare): then [`Analysis::validated`] with `at` as the site is applied to
    /// every register of the frame after it.
    fn refines(&mut self, _at: u32) -> bool {
        false
    }

    /// Whether the analysis wants [`Analysis::stored`].
    const STORES: bool = false;

    /// After an instruction that overwrites the nameable location `place` (see
    /// [`StepCx::stores`]), applied to every register: this thread has overwritten the location
    /// a value came from; `single_writer` when by a single-writer publication (`lazySet`).
    fn stored(&mut self, _place: Sym, _single_writer: bool, _v: &mut Self::V) {}

    /// Whether the analysis wants [`Analysis::contents`].
    const CONTENTS: bool = false;

    /// An element `stored` into an array this method allocated, applied to every register that
    /// holds the array: a later load of an element gets it from the array's own value (values
    /// kept in a local array, `old[c] = counts[c]; .. counts[c] = old[c] + n;`). Also each
    /// argument of the constructor of an object of a program class this method allocated, on
    /// every register that holds the object: it is made of them (`new Entry(old.hits + 1)`).
    fn contents(&mut self, _array: &mut Self::V, _stored: &Self::V) {}
}

/// An analysis that tracks no values and only looks at program points (held locks, receivers)
/// in the recording pass: run it with [`Observing`].
pub trait Observer {
    fn observe(&mut self, at: u32, frame: &Frame<()>);
}

/// Adapts an [`Observer`] to the engine.
pub struct Observing<'o, O: Observer>(pub &'o mut O);

impl<O: Observer> Analysis for Observing<'_, O> {
    type V = ();

    fn join(&self, _: &(), _: &(), _: Option<u32>) {}
    fn transfer(&mut self, _: &StepCx, _: &mut [()]) {}
    fn region(&mut self, _: RegionEvent, _: &mut ()) {}
    fn observe(&mut self, at: u32, frame: &Frame<()>) {
        self.0.observe(at, frame);
    }
}

/// Two analyses run in one pass over the method: the product of their values. Each sees its own
/// values exactly as if it ran alone.
pub struct Both<A: Analysis, B: Analysis> {
    pub first: A,
    pub second: B,
    buf_a: Vec<A::V>,
    buf_b: Vec<B::V>,
}

impl<A: Analysis, B: Analysis> Both<A, B> {
    pub fn new(first: A, second: B) -> Self {
        Both {
            first,
            second,
            buf_a: Vec::new(),
            buf_b: Vec::new(),
        }
    }
}

impl<A: Analysis, B: Analysis> Analysis for Both<A, B> {
    type V = (A::V, B::V);

    fn join(&self, a: &Self::V, b: &Self::V, region: Option<u32>) -> Self::V {
        (
            self.first.join(&a.0, &b.0, region),
            self.second.join(&a.1, &b.1, region),
        )
    }

    fn transfer(&mut self, cx: &StepCx, inputs: &mut [Self::V]) -> Self::V {
        self.buf_a.clear();
        self.buf_b.clear();
        for (a, b) in inputs.iter() {
            self.buf_a.push(a.clone());
            self.buf_b.push(b.clone());
        }
        let a = self.first.transfer(cx, &mut self.buf_a);
        let b = self.second.transfer(cx, &mut self.buf_b);
        for ((x, y), (a2, b2)) in inputs
            .iter_mut()
            .zip(self.buf_a.drain(..).zip(self.buf_b.drain(..)))
        {
            *x = a2;
            *y = b2;
        }
        (a, b)
    }

    fn region(&mut self, ev: RegionEvent, v: &mut Self::V) {
        self.first.region(ev, &mut v.0);
        self.second.region(ev, &mut v.1);
    }

    fn validated(&mut self, site: u32, v: &mut Self::V) {
        self.first.validated(site, &mut v.0);
        self.second.validated(site, &mut v.1);
    }

    fn refines(&mut self, at: u32) -> bool {
        // Both must be asked (each may have a comparison pending).
        let a = self.first.refines(at);
        let b = self.second.refines(at);
        a || b
    }

    const STORES: bool = A::STORES || B::STORES;

    fn stored(&mut self, place: Sym, single_writer: bool, v: &mut Self::V) {
        self.first.stored(place, single_writer, &mut v.0);
        self.second.stored(place, single_writer, &mut v.1);
    }
}

/// A branch whose edges the engine refines: on the success edge of `tryLock()` the lock is held;
/// on the success edge of a compare-and-set the values it compared are current.
#[derive(Clone, Copy, Debug)]
enum Branch {
    TryLock(LockId),
    Checked(u32),
}

/// Why the engine gave up on a method.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("operand stack underflow at instruction {0}")]
    StackUnderflow(u32),
    #[error("local variable {1} out of range at instruction {0}")]
    BadLocal(u32, u16),
    #[error("operand stacks of different heights meet at instruction {0}")]
    StackMismatch(u32),
    #[error("no fixpoint after {0} iterations")]
    NoFixpoint(usize),
}

/// Everything the engine needs about the method being analysed.
pub struct MethodCx<'a> {
    pub program: &'a Program,
    /// The caller holds the lock of `this` (whole-program analyses run callees in the context
    /// of their call site): acquiring it again in this method is re-entry.
    pub this_held: bool,
    /// Index of `class` in the program.
    pub class_id: u32,
    pub class: &'a Class,
    pub method: &'a Method,
    pub code: &'a Code,
    pub cfg: &'a Cfg,
    /// Locks every caller holds when it calls this method: held on entry, so
    /// acquiring one again is re-entry (see `summary::compute_entry_locks`).
    pub entry_locks: &'a [LockId],
    /// The class's call targets, resolved once for all its methods ([`locks::ClassCalls`]),
    /// when the summaries are final.
    pub calls: Option<&'a locks::ClassCalls>,
}

/// Run `analysis` over method `id` of the program (building its control-flow graph), in the
/// calling context `this_held` (see [`MethodCx::this_held`]). A method without code is a no-op.
pub fn run_method<A: Analysis>(
    program: &Program,
    id: crate::program::MethodId,
    this_held: bool,
    analysis: &mut A,
) -> Result<(), EngineError> {
    let Some(code) = &program.method(id).code else {
        return Ok(());
    };
    run_method_on(program, id, this_held, &Cfg::build(code), analysis)
}

/// [`run_method`] over a control-flow graph the caller built (and asks questions of too).
pub fn run_method_on<A: Analysis>(
    program: &Program,
    id: crate::program::MethodId,
    this_held: bool,
    cfg: &Cfg,
    analysis: &mut A,
) -> Result<(), EngineError> {
    let method = program.method(id);
    let Some(code) = &method.code else {
        return Ok(());
    };
    let cx = MethodCx {
        program,
        this_held,
        class_id: id.class,
        class: program.class(id.class),
        method,
        code,
        cfg,
        entry_locks: program.entry_locks(id),
        calls: None,
    };
    run(&cx, analysis)
}

/// Run `analysis` over the method to a fixpoint, then once more recording findings.
pub fn run<A: Analysis>(cx: &MethodCx<'_>, analysis: &mut A) -> Result<(), EngineError> {
    let nblocks = cx.cfg.blocks.len();
    if nblocks == 0 {
        return Ok(());
    }
    let mut engine = Engine {
        cx,
        trylocks: FxHashMap::default(),
        calls: Vec::new(),
        library: Vec::new(),
        buf: Vec::new(),
    };
    let mut states: Vec<Option<Frame<A::V>>> = vec![None; nblocks];
    let mut entry = engine.entry_frame();
    for (i, l) in entry.locals.iter_mut().enumerate() {
        l.v = analysis.entry_local(i);
    }
    states[0] = Some(entry);
    let rpo = cx.cfg.reverse_post_order();
    let mut rank = vec![0usize; nblocks];
    for (i, &b) in rpo.iter().enumerate() {
        rank[b as usize] = i;
    }
    let mut work: BTreeSet<(usize, u32)> = BTreeSet::new();
    work.insert((rank[0], 0));
    let limit = 64 * nblocks + 1000;
    let mut steps = 0;
    while let Some((_, b)) = work.pop_first() {
        steps += 1;
        if steps > limit {
            return Err(EngineError::NoFixpoint(steps));
        }
        let Some(frame) = states[b as usize].clone() else {
            continue;
        };
        let mut flow_error = None;
        engine.run_block(
            analysis,
            b,
            frame,
            false,
            &mut |a: &A, target, locals, stack, locks| {
                let t = target as usize;
                let changed = match &mut states[t] {
                    slot @ None => {
                        *slot = Some(Frame {
                            locals: locals.to_vec(),
                            stack: stack.to_vec(),
                            locks: locks.clone(),
                        });
                        true
                    }
                    Some(old) => {
                        match join_into(a, old, locals, stack, locks, cx.cfg.blocks[t].start) {
                            Ok(c) => c,
                            Err(e) => {
                                flow_error = Some(e);
                                false
                            }
                        }
                    }
                };
                if changed {
                    work.insert((rank[t], target));
                }
            },
        )?;
        if let Some(e) = flow_error {
            return Err(e);
        }
    }
    for &b in &rpo {
        if let Some(frame) = states[b as usize].clone() {
            engine.run_block(analysis, b, frame, true, &mut |_, _, _, _, _| {})?;
        }
    }
    Ok(())
}

/// Join a flowing frame into a block's state in place; returns whether the state changed.
fn join_into<A: Analysis>(
    a: &A,
    dst: &mut Frame<A::V>,
    locals: &[Slot<A::V>],
    stack: &[Slot<A::V>],
    locks: &LockState,
    at: u32,
) -> Result<bool, EngineError> {
    if dst.stack.len() != stack.len() || dst.locals.len() != locals.len() {
        return Err(EngineError::StackMismatch(at));
    }
    let mut changed = false;
    if dst.locks != *locks {
        let joined = dst.locks.join(locks);
        if joined != dst.locks {
            dst.locks = joined;
            changed = true;
        }
    }
    let region = dst.locks.current();
    for (d, s) in dst
        .locals
        .iter_mut()
        .zip(locals)
        .chain(dst.stack.iter_mut().zip(stack))
    {
        if d.v != s.v {
            let v = a.join(&d.v, &s.v, region);
            if v != d.v {
                d.v = v;
                changed = true;
            }
        }
        if d.sym != s.sym && d.sym != Sym::Unknown {
            d.sym = Sym::Unknown;
            changed = true;
        }
    }
    Ok(changed)
}

/// Where a block's frames flow: `(analysis, target block, locals, stack, locks)`.
type Flow<'f, A> =
    dyn FnMut(&A, u32, &[Slot<<A as Analysis>::V>], &[Slot<<A as Analysis>::V>], &LockState) + 'f;

struct Engine<'a, 'b, V> {
    cx: &'b MethodCx<'a>,
    /// The lock each `tryLock` call site acquires on success.
    trylocks: FxHashMap<u32, LockId>,
    /// Call sites resolved so far, by instruction index.
    calls: Vec<Option<CallTarget>>,
    /// What a method of a thread-safe object does to its state, by call site (computed on first
    /// use; see [`LibraryCall`]).
    library: Vec<Option<LibraryCall>>,
    /// Reused buffer for the inputs of one instruction.
    buf: Vec<V>,
}

/// What a call of a thread-safe object's method does to the object's state: it replaces the
/// whole value (`set`), publishes it as its single writer (`lazySet`), or only looks something
/// up by reference arguments (`get(key)`).
#[derive(Clone, Copy, Debug, Default)]
struct LibraryCall {
    set: bool,
    publish: bool,
    lookup: bool,
    adds: bool,
}

impl<V: Clone + Default> Engine<'_, '_, V> {
    fn entry_frame(&self) -> Frame<V> {
        let m = self.cx.method;
        let n = self.cx.code.max_locals as usize;
        let mut locals = vec![
            Slot {
                v: V::default(),
                sym: Sym::Unknown
            };
            n
        ];
        let params = (m.param_slots() as usize).min(n);
        let first = if m.is_static() { 0 } else { 1 };
        if !m.is_static() && n > 0 {
            locals[0].sym = Sym::This;
        }
        for (i, l) in locals.iter_mut().enumerate().take(params).skip(first) {
            l.sym = Sym::Param(i as u16);
        }
        let mut locks = LockState::default();
        if self.cx.this_held && !m.is_static() {
            locks.acquire(LockId::This, CALLER_SITE);
        }
        for &lock in self.cx.entry_locks {
            locks.acquire(lock, CALLER_SITE);
        }
        if let Some(lock) = locks::method_lock(self.cx.program, self.cx.class, m) {
            locks.acquire(lock, METHOD_SITE);
        }
        Frame {
            locals,
            stack: Vec::new(),
            locks,
        }
    }

    /// Interpret one block, handing every frame that leaves it (to successors and exception
    /// handlers) to `flow`.
    fn run_block<A: Analysis<V = V>>(
        &mut self,
        a: &mut A,
        b: u32,
        mut f: Frame<V>,
        record: bool,
        flow: &mut Flow<'_, A>,
    ) -> Result<(), EngineError> {
        let cfg = self.cx.cfg;
        let block = &cfg.blocks[b as usize];
        let exception = [Slot {
            v: V::default(),
            sym: Sym::Unknown,
        }];
        for i in block.start..block.end {
            for &h in &cfg.handlers_at[i as usize] {
                flow(a, h, &f.locals, &exception, &f.locks);
            }
            if record {
                a.observe(i, &f);
            } else if A::LOCKS {
                a.locks_at(&f.locks);
            }
            let branch = self.step(a, i, &mut f, record)?;
            if i + 1 == block.end {
                let last = &self.cx.code.insns[i as usize].op;
                for &s in &block.succs {
                    if let (Some((branch, success_on_jump)), Op::If { target, .. }) = (branch, last)
                    {
                        let jumps = cfg.block_of[*target as usize] == s;
                        if jumps == success_on_jump {
                            let mut out = f.clone();
                            match branch {
                                Branch::TryLock(lock) => {
                                    if out.locks.acquire(lock, i) {
                                        apply_region(a, &mut out, RegionEvent::enter(i, i, lock));
                                    }
                                }
                                Branch::Checked(site) => {
                                    for r in out.locals.iter_mut().chain(out.stack.iter_mut()) {
                                        a.validated(site, &mut r.v);
                                    }
                                }
                            }
                            flow(a, s, &out.locals, &out.stack, &out.locks);
                            continue;
                        }
                    }
                    flow(a, s, &f.locals, &f.stack, &f.locks);
                }
            }
        }
        Ok(())
    }

    /// Execute instruction `i`. Returns, for a branch on a `tryLock` or compare-and-set result,
    /// what its success edge means and whether the jump is that edge.
    fn step<A: Analysis<V = V>>(
        &mut self,
        a: &mut A,
        i: u32,
        f: &mut Frame<V>,
        record: bool,
    ) -> Result<Option<(Branch, bool)>, EngineError> {
        let code = self.cx.code;
        let class = self.cx.class;
        let op = &code.insns[i as usize].op;
        let region = f.locks.current();
        let (lock, outer) = (f.locks.innermost(), f.locks.outermost());
        let cx = |kind, produces| StepCx {
            at: i,
            kind,
            region,
            caller_region: region,
            record,
            produces,
            place: Sym::Unknown,
            stores: false,
            object: Sym::Unknown,
            receiver_locked: false,
            receiver: false,
            lookup: false,
            publishes: false,
            adds: false,
            local_target: false,
            lock,
            outer,
            compares: false,
        };
        match op {
            Op::Nop | Op::Goto(_) | Op::Ret(_) | Op::CheckCast => {}
            Op::Const(_) | Op::Flag(_) => {
                let n = match op {
                    Op::Const(n) => *n,
                    _ => 1,
                };
                let v = a.transfer(&cx(StepKind::Fresh, true), &mut []);
                push(
                    f,
                    Slot {
                        v,
                        sym: Sym::Value(i),
                    },
                    n,
                );
            }
            Op::ClassLiteral(lit) => {
                let v = a.transfer(&cx(StepKind::Fresh, true), &mut []);
                let hash = code
                    .class_literals
                    .get(*lit as usize)
                    .copied()
                    .unwrap_or_default();
                push(
                    f,
                    Slot {
                        v,
                        sym: Sym::Class(hash),
                    },
                    1,
                );
            }
            Op::Load(idx, n) => {
                for k in 0..*n as u16 {
                    let s = f
                        .locals
                        .get((idx + k) as usize)
                        .cloned()
                        .ok_or(EngineError::BadLocal(i, idx + k))?;
                    f.stack.push(s);
                }
            }
            Op::Store(idx, n) => {
                let n = *n as usize;
                let start = *idx as usize;
                if f.stack.len() < n {
                    return Err(EngineError::StackUnderflow(i));
                }
                if start + n > f.locals.len() {
                    return Err(EngineError::BadLocal(i, *idx));
                }
                let from = f.stack.len() - n;
                for (k, s) in f.stack.drain(from..).enumerate() {
                    f.locals[start + k] = s;
                }
            }
            Op::Iinc(idx) => {
                let l = f
                    .locals
                    .get_mut(*idx as usize)
                    .ok_or(EngineError::BadLocal(i, *idx))?;
                let mut inputs = [l.v.clone()];
                let v = a.transfer(&cx(StepKind::Iinc, true), &mut inputs);
                *l = Slot {
                    v,
                    sym: Sym::Unknown,
                };
            }
            Op::ArrayLoad(n) => {
                let at = self.through(f, 2, Sym::Unknown, false);
                self.simple_at(a, f, i, 2, *n, StepKind::HeapRead, at, record)?
            }
            Op::ArrayStore(n) => {
                let k = 2 + *n as usize;
                let at = self.through(f, k, Sym::Unknown, true);
                // An element stored into an array this method made goes into every register
                // that holds the array: what it holds is in it.
                if A::CONTENTS {
                    let array =
                        (f.stack.len().checked_sub(k).map(|x| f.stack[x].sym)).filter(|s| {
                            matches!(s, Sym::Value(j) if matches!(
                                self.cx.code.insns.get(*j as usize).map(|x| &x.op),
                                Some(Op::NewArray(_))
                            ))
                        });
                    if let (Some(array), Some(stored)) = (array, f.stack.last()) {
                        let stored = stored.v.clone();
                        for s in f.locals.iter_mut().chain(f.stack.iter_mut()) {
                            if s.sym == array {
                                a.contents(&mut s.v, &stored);
                            }
                        }
                    }
                }
                self.simple_at(a, f, i, k, 0, StepKind::Sink, at, record)?
            }
            Op::ArrayLength => {
                // An array's length never changes: as old as the array object read, like a
                // stable field of it (`(i + 1) % forks.length` after a `wait()`).
                let at = self.through(f, 1, Sym::Unknown, false);
                self.simple_at(a, f, i, 1, 1, StepKind::StableRead, at, record)?
            }
            Op::GetField(r) => {
                let object = f.stack.last().map_or(Sym::Unknown, |s| s.sym);
                let base = base_of(object).or_else(|| enclosing(class, object));
                let slots = class.member(*r).ret_slots;
                // A field of an object this method allocated is not shared yet.
                let kind = if self.is_local(object) {
                    StepKind::StableRead
                } else {
                    self.read_kind(*r)
                };
                let place = base.map_or(Sym::FieldOf(*r), |b| Sym::Field(b, *r));
                let at = self.through(f, 1, place, false);
                self.simple_at(a, f, i, 1, slots, kind, at, record)?;
                let sym = match base {
                    // A field holding one part of a read-write lock held in another field.
                    Some(b) => match self.cx.program.rw_lock_part(self.cx.class_id, *r) {
                        Some((rw, write)) => Sym::RwPart(b, rw, write),
                        None => place,
                    },
                    // Through an object the frame cannot name (`a.b.c`): the result of this
                    // read, the same object wherever it is used in the method.
                    None => Sym::Value(i),
                };
                set_top_sym(f, sym, slots);
            }
            Op::GetStatic(r) => {
                let slots = class.member(*r).ret_slots;
                let kind = self.read_kind(*r);
                let place = Sym::Field(locks::Base::Static, *r);
                let at = Access {
                    place,
                    ..Access::NONE
                };
                self.simple_at(a, f, i, 0, slots, kind, at, record)?;
                set_top_sym(f, place, slots);
            }
            Op::PutField(r) => {
                let n = class.member(*r).arg_slots as usize;
                let base = f.stack.len().checked_sub(n + 1).and_then(|k| {
                    base_of(f.stack[k].sym).or_else(|| enclosing(class, f.stack[k].sym))
                });
                let place = base.map_or(Sym::FieldOf(*r), |b| Sym::Field(b, *r));
                let at = self.through(f, n + 1, place, true);
                self.simple_at(a, f, i, 1 + n, 0, StepKind::Sink, at, record)?;
                stored(a, f, place, false);
            }
            Op::PutStatic(r) => {
                let place = Sym::Field(locks::Base::Static, *r);
                let n = class.member(*r).arg_slots as usize;
                let at = Access {
                    place,
                    stores: true,
                    ..Access::NONE
                };
                self.simple_at(a, f, i, n, 0, StepKind::Sink, at, record)?;
                stored(a, f, place, false);
            }
            Op::Invoke(kind, r) => return self.invoke(a, f, i, *kind, *r, record),
            Op::InvokeDynamic(r) => {
                let m = class.member(*r);
                // String concatenation (`StringConcatFactory`) formats; a lambda captures.
                let kind = if matches!(&*m.name, "makeConcatWithConstants" | "makeConcat") {
                    StepKind::Format
                } else {
                    StepKind::Compute
                };
                self.simple(a, f, i, m.arg_slots as usize, m.ret_slots, kind, record)?;
                set_top_sym(f, Sym::Value(i), m.ret_slots);
            }
            Op::New(_) => {
                let v = a.transfer(&cx(StepKind::Fresh, true), &mut []);
                push(
                    f,
                    Slot {
                        v,
                        sym: Sym::Value(i),
                    },
                    1,
                );
            }
            Op::NewArray(dims) => {
                self.simple(a, f, i, *dims as usize, 1, StepKind::Fresh, record)?;
                set_top_sym(f, Sym::Value(i), 1);
            }
            Op::Compute { pop: p, push: q } => {
                // `lcmp` of a stamp a try to lock returned (`if (stamp == 0L) return;`): the
                // comparison is the outcome of the try, nonzero on success.
                let stamp = match f.stack.len().checked_sub(4).map(|k| f.stack[k].sym) {
                    Some(Sym::TryLock(site)) if (*p, *q) == (4, 1) => Some(site),
                    _ => None,
                };
                self.simple(a, f, i, *p as usize, *q, StepKind::Compute, record)?;
                if let (Some(site), Some(top)) = (stamp, f.stack.last_mut()) {
                    top.sym = Sym::TryLock(site);
                }
            }
            Op::Pop => drop_slots(f, 1, i)?,
            Op::Pop2 => drop_slots(f, 2, i)?,
            Op::Dup => shuffle(f, i, 1, &[0, 0])?,
            Op::DupX1 => shuffle(f, i, 2, &[1, 0, 1])?,
            Op::DupX2 => shuffle(f, i, 3, &[2, 0, 1, 2])?,
            Op::Dup2 => shuffle(f, i, 2, &[0, 1, 0, 1])?,
            Op::Dup2X1 => shuffle(f, i, 3, &[1, 2, 0, 1, 2])?,
            Op::Dup2X2 => shuffle(f, i, 4, &[2, 3, 0, 1, 2, 3])?,
            Op::Swap => shuffle(f, i, 2, &[1, 0])?,
            Op::If { pop: p, cond, .. } => {
                let tested = f.stack.last().map(|s| s.sym);
                self.simple(a, f, i, *p as usize, 0, StepKind::Branch, record)?;
                let branch = match (tested, *p) {
                    (Some(Sym::TryLock(site)), 1) => {
                        self.trylocks.get(&site).map(|&l| Branch::TryLock(l))
                    }
                    (Some(Sym::Checked(site)), 1) => Some(Branch::Checked(site)),
                    _ => None,
                };
                if let Some(branch) = branch {
                    match cond {
                        Cond::Zero => return Ok(Some((branch, false))),
                        Cond::NonZero => return Ok(Some((branch, true))),
                        Cond::Null | Cond::NonNull | Cond::Same | Cond::Differ | Cond::Other => {}
                    }
                }
            }
            Op::Jsr(_) => push(
                f,
                Slot {
                    v: V::default(),
                    sym: Sym::Unknown,
                },
                1,
            ),
            Op::Switch(_) => self.simple(a, f, i, 1, 0, StepKind::Branch, record)?,
            Op::Return(n) => self.simple(a, f, i, *n as usize, 0, StepKind::Return, record)?,
            Op::Athrow => self.simple(a, f, i, 1, 0, StepKind::Sink, record)?,
            Op::MonitorEnter => {
                let sym = f.stack.last().map(|s| s.sym).unwrap_or(Sym::Unknown);
                self.simple(a, f, i, 1, 0, StepKind::Lock, record)?;
                let lock = LockId::of(sym, i);
                if f.locks.acquire(lock, i) {
                    apply_region(a, f, RegionEvent::enter(i, i, lock));
                }
            }
            Op::MonitorExit => {
                let sym = f.stack.last().map(|s| s.sym).unwrap_or(Sym::Unknown);
                self.simple(a, f, i, 1, 0, StepKind::Lock, record)?;
                if let Some(site) = f.locks.release(LockId::of(sym, i)) {
                    apply_region(a, f, RegionEvent::exit(site, i));
                }
            }
        }
        Ok(None)
    }

    /// An object this method allocated (or a factory returned): no other thread sees it yet.
    fn is_local(&self, sym: Sym) -> bool {
        let caller = Caller {
            program: self.cx.program,
            class_id: self.cx.class_id,
            class: self.cx.class,
            method: self.cx.method,
        };
        locks::is_local_object(&caller, sym)
    }

    /// How a field read reads: a stable field is not shared mutable state.
    fn read_kind(&self, r: u32) -> StepKind {
        if self.cx.program.is_stable_field(self.cx.class_id, r) {
            StepKind::StableRead
        } else {
            StepKind::HeapRead
        }
    }

    /// Move the top `n` slots' values into the input buffer.
    fn take_inputs(&mut self, f: &mut Frame<V>, n: usize, at: u32) -> Result<(), EngineError> {
        if f.stack.len() < n {
            return Err(EngineError::StackUnderflow(at));
        }
        let from = f.stack.len() - n;
        self.buf.clear();
        self.buf.extend(f.stack.drain(from..).map(|s| s.v));
        Ok(())
    }

    /// Pop `pop` slots as inputs, transfer, push `push` slots of the result.
    #[allow(clippy::too_many_arguments)]
    fn simple<A: Analysis<V = V>>(
        &mut self,
        a: &mut A,
        f: &mut Frame<V>,
        i: u32,
        pop_n: usize,
        push_n: u8,
        kind: StepKind,
        record: bool,
    ) -> Result<(), EngineError> {
        self.simple_at(a, f, i, pop_n, push_n, kind, Access::NONE, record)
    }

    /// How an instruction that reads or writes through the object `k` slots down the stack
    /// touches the heap: `place`, whether it overwrites it, and whether the frame holds that
    /// object's own lock.
    fn through(&self, f: &Frame<V>, k: usize, place: Sym, stores: bool) -> Access {
        let object = f
            .stack
            .len()
            .checked_sub(k)
            .map_or(Sym::Unknown, |j| f.stack[j].sym);
        let caller = Caller {
            program: self.cx.program,
            class_id: self.cx.class_id,
            class: self.cx.class,
            method: self.cx.method,
        };
        Access {
            place,
            stores,
            object,
            receiver_locked: f.locks.holds(LockId::of(object, u32::MAX)),
            local_target: stores && locks::is_local_object(&caller, object),
        }
    }

    /// [`Engine::simple`] for an instruction that reads or writes the heap as `at` says.
    #[allow(clippy::too_many_arguments)]
    fn simple_at<A: Analysis<V = V>>(
        &mut self,
        a: &mut A,
        f: &mut Frame<V>,
        i: u32,
        pop_n: usize,
        push_n: u8,
        kind: StepKind,
        at: Access,
        record: bool,
    ) -> Result<(), EngineError> {
        self.take_inputs(f, pop_n, i)?;
        let region = f.locks.current();
        let cx = StepCx {
            at: i,
            kind,
            region,
            caller_region: region,
            record,
            produces: push_n > 0,
            place: at.place,
            stores: at.stores,
            object: at.object,
            receiver_locked: at.receiver_locked,
            receiver: false,
            lookup: false,
            publishes: false,
            adds: false,
            local_target: at.local_target,
            compares: kind == StepKind::Compute
                && matches!(
                    self.cx.code.insns.get(i as usize + 1).map(|x| &x.op),
                    Some(Op::If { .. })
                ),
            lock: f.locks.innermost(),
            outer: f.locks.outermost(),
        };
        let v = a.transfer(&cx, &mut self.buf);
        if push_n > 0 {
            push(
                f,
                Slot {
                    v,
                    sym: Sym::Unknown,
                },
                push_n,
            );
        }
        if matches!(kind, StepKind::Compute | StepKind::Branch) && a.refines(i) {
            for r in f.locals.iter_mut().chain(f.stack.iter_mut()) {
                a.validated(i, &mut r.v);
            }
        }
        Ok(())
    }

    /// What the thread-safe object's method called at `i` does to its state (cached).
    fn library_call(&mut self, i: u32, r: u32) -> LibraryCall {
        if self.library.is_empty() {
            self.library = vec![None; self.cx.code.insns.len()];
        }
        let ts = &self.cx.program.thread_safe;
        let m = self.cx.class.member(r);
        *self.library[i as usize].get_or_insert_with(|| {
            let set = ts.is_set(&m.name);
            LibraryCall {
                set,
                publish: set && ts.is_publish(&m.name),
                lookup: ts.state_access(&m.name) == locks::STATE_READ
                    && crate::bytecode::reference_params_only(&m.desc),
                adds: ts.is_delta(&m.name, &m.desc),
            }
        })
    }

    fn call_target(&mut self, caller: &Caller<'_>, i: u32, kind: InvokeKind, r: u32) -> CallTarget {
        if self.calls.is_empty() {
            self.calls = vec![None; self.cx.code.insns.len()];
        }
        let slot = &mut self.calls[i as usize];
        *slot.get_or_insert_with(|| locks::resolve_call_in(caller, kind, r, self.cx.calls))
    }

    #[allow(clippy::too_many_arguments)]
    fn invoke<A: Analysis<V = V>>(
        &mut self,
        a: &mut A,
        f: &mut Frame<V>,
        i: u32,
        kind: InvokeKind,
        r: u32,
        record: bool,
    ) -> Result<Option<(Branch, bool)>, EngineError> {
        let m = self.cx.class.member(r);
        let nargs = m.arg_slots as usize + usize::from(kind != InvokeKind::Static);
        if f.stack.len() < nargs {
            return Err(EngineError::StackUnderflow(i));
        }
        let receiver = if kind == InvokeKind::Static {
            Sym::Unknown
        } else {
            f.stack[f.stack.len() - nargs].sym
        };
        let caller = Caller {
            program: self.cx.program,
            class_id: self.cx.class_id,
            class: self.cx.class,
            method: self.cx.method,
        };
        // The arguments of the constructor of an object this method allocated, of one of the
        // program's classes, go into every register that holds it, as an array's elements do
        // (see [`Analysis::contents`]): an object built from values (`new Lease(node,
        // cur.epoch + 1)`) is made of them. (The JDK's constructors are not followed: a number
        // handed to one is most often a capacity, `new StringBuilder(n)`, and a copy
        // constructor's collection, `new HashMap<>(old)`, is left for a later look.)
        if A::CONTENTS && kind == InvokeKind::Special && &*m.name == "<init>" {
            let made_here = matches!(receiver, Sym::Value(j) if matches!(
                self.cx.code.insns.get(j as usize).map(|x| &x.op),
                Some(Op::New(_))
            ));
            if made_here && self.cx.program.class_index(&m.class).is_some() {
                let args: Vec<V> = (f.stack[f.stack.len() + 1 - nargs..].iter())
                    .map(|s| s.v.clone())
                    .collect();
                for s in f.locals.iter_mut().chain(f.stack.iter_mut()) {
                    if s.sym == receiver {
                        for arg in &args {
                            a.contents(&mut s.v, arg);
                        }
                    }
                }
            }
        }
        let target = self.call_target(&caller, i, kind, r);
        // A fluent call's result is the object it was called on (`new StringBuilder().append(a)
        // .append(b)`, `(T) new Stack(..).setChannel(c)`): the same object, fresh or shared as the
        // receiver is.
        let fluent = matches!(
            target,
            CallTarget::Method {
                returns_this: true,
                ..
            }
        ) && receiver != Sym::Unknown;
        let mut effect = locks::call_effect(&caller, target, kind, receiver, i);
        if let CallEffect::Region { lock, returns, .. } = effect {
            if f.locks.holds(lock) {
                // Re-entry of a lock the caller holds: an ordinary call inside the region.
                effect = CallEffect::Plain {
                    returns: match returns {
                        Returns::Nothing => Returns::Shared,
                        r => r,
                    },
                };
            }
        }
        let ret = m.ret_slots;
        self.take_inputs(f, nargs, i)?;
        let produces = ret > 0;
        let region = f.locks.current();
        // The location a call reads or writes: the state of the thread-safe object it is made
        // on. (A method of the program reads whatever its code reads, not "its receiver".)
        // An object read from a field through an object the frame cannot name (`a.b.c.get()`)
        // is named by that field, as a field read through it is (`Sym::FieldOf`): a re-read of
        // the same path reads the same state.
        let place = match effect {
            CallEffect::Region {
                kind: RegionCall::ThreadSafeLibrary | RegionCall::Validating,
                ..
            } => match receiver {
                Sym::Value(j) => match self.cx.code.insns.get(j as usize).map(|x| &x.op) {
                    Some(Op::GetField(fr)) => Sym::FieldOf(*fr),
                    _ => receiver,
                },
                _ => receiver,
            },
            _ => Sym::Unknown,
        };
        let library = match effect {
            CallEffect::Region {
                kind: RegionCall::ThreadSafeLibrary | RegionCall::Validating,
                ..
            } if kind != InvokeKind::Static => self.library_call(i, r),
            _ => LibraryCall::default(),
        };
        let receiver_locked = match effect {
            CallEffect::Region { lock, .. } if kind != InvokeKind::Static => {
                lock == LockId::of(receiver, i)
            }
            _ => false,
        };
        let stores = library.set;
        match effect {
            CallEffect::Region {
                lock, kind: why, ..
            } => {
                // Enter the callee's region before its arguments are used (they are read by
                // the callee), take the result inside it, then leave.
                let enter = RegionEvent::Enter {
                    site: i,
                    at: i,
                    lock,
                    call: Some(why),
                };
                apply_region(a, f, enter);
                for v in self.buf.iter_mut() {
                    a.region(enter, v);
                }
                f.locks.acquire(lock, i);
                let cx = StepCx {
                    at: i,
                    kind: StepKind::Call(effect),
                    region: Some(i),
                    caller_region: region,
                    record,
                    produces,
                    place,
                    stores,
                    object: Sym::Unknown,
                    receiver_locked,
                    receiver: kind != InvokeKind::Static,
                    lookup: why == RegionCall::ThreadSafeLibrary && library.lookup,
                    publishes: library.publish,
                    adds: library.adds,
                    local_target: false,
                    lock: f.locks.innermost(),
                    outer: f.locks.outermost(),
                    compares: false,
                };
                let v = a.transfer(&cx, &mut self.buf);
                if stores {
                    stored(a, f, place, library.publish);
                }
                let boolean = m.desc.ends_with(")Z");
                if produces {
                    // The boolean outcome of a compare-and-set: branches on it validate.
                    let sym = if why == RegionCall::Validating && boolean {
                        Sym::Checked(i)
                    } else if fluent {
                        receiver
                    } else {
                        Sym::Value(i)
                    };
                    push(f, Slot { v, sym }, ret);
                }
                if why == RegionCall::Validating && !boolean {
                    // A conditional update that returns the current value (`putIfAbsent`): the
                    // values it was given are installed, or the result says what is there.
                    for r in f.locals.iter_mut().chain(f.stack.iter_mut()) {
                        a.validated(i, &mut r.v);
                    }
                }
                f.locks.release(lock);
                apply_region(
                    a,
                    f,
                    RegionEvent::Exit {
                        site: i,
                        at: i,
                        call: Some(why),
                    },
                );
            }
            _ => {
                let cx = StepCx {
                    at: i,
                    kind: if effect == CallEffect::Format {
                        StepKind::Format
                    } else {
                        StepKind::Call(effect)
                    },
                    region,
                    caller_region: region,
                    record,
                    produces,
                    place,
                    stores: false,
                    object: Sym::Unknown,
                    receiver_locked: false,
                    receiver: kind != InvokeKind::Static,
                    lookup: false,
                    publishes: false,
                    adds: false,
                    local_target: false,
                    lock: f.locks.innermost(),
                    outer: f.locks.outermost(),
                    compares: false,
                };
                let v = a.transfer(&cx, &mut self.buf);
                let sym = if let CallEffect::TryAcquire(lock) = effect {
                    self.trylocks.insert(i, lock);
                    Sym::TryLock(i)
                } else if fluent {
                    receiver
                } else if matches!(&*m.name, "readLock" | "writeLock") {
                    match receiver {
                        Sym::Field(b, fr) => Sym::RwPart(b, fr, &*m.name == "writeLock"),
                        _ => Sym::Value(i),
                    }
                } else {
                    Sym::Value(i)
                };
                if produces {
                    push(f, Slot { v, sym }, ret);
                }
                match effect {
                    CallEffect::Acquire(lock) => {
                        // Re-entry opens no region.
                        let opened = f.locks.acquire(lock, i);
                        opened.then(|| apply_region(a, f, RegionEvent::enter(i, i, lock)));
                    }
                    CallEffect::Release(lock) => {
                        if let Some(site) = f.locks.release(lock) {
                            apply_region(a, f, RegionEvent::exit(site, i));
                        }
                    }
                    CallEffect::Wait(lock) => {
                        let held = match lock {
                            Some(l) if f.locks.holds(l) => {
                                f.locks.held.iter().rev().find(|h| h.lock == l)
                            }
                            _ => f.locks.held.last(),
                        };
                        if let Some((site, lock)) = held.map(|h| (h.site, h.lock)) {
                            apply_region(a, f, RegionEvent::exit(site, i));
                            apply_region(a, f, RegionEvent::enter(site, i, lock));
                        }
                    }
                    _ => {}
                }
            }
        }
        Ok(None)
    }
}

/// How an instruction touches the heap, for [`StepCx`].
#[derive(Clone, Copy)]
struct Access {
    place: Sym,
    stores: bool,
    object: Sym,
    receiver_locked: bool,
    local_target: bool,
}

impl Access {
    const NONE: Access = Access {
        place: Sym::Unknown,
        stores: false,
        object: Sym::Unknown,
        receiver_locked: false,
        local_target: false,
    };
}

/// [`locks::Base::Outer`] for the enclosing instance an inner class holds in its synthetic
/// `this$N` field, read through `this`.
fn enclosing(class: &crate::bytecode::Class, sym: Sym) -> Option<locks::Base> {
    match sym {
        Sym::Field(locks::Base::This, r) => {
            locks::is_enclosing_field(class, r).then_some(locks::Base::Outer)
        }
        _ => None,
    }
}

/// The base of a field path through a register, when nameable.
fn base_of(sym: Sym) -> Option<locks::Base> {
    match sym {
        Sym::This => Some(locks::Base::This),
        Sym::Param(p) => Some(locks::Base::Param(p)),
        _ => None,
    }
}

/// Tell every register that this thread wrote `place` (for analyses that ask).
fn stored<A: Analysis>(a: &mut A, f: &mut Frame<A::V>, place: Sym, single_writer: bool) {
    if A::STORES && place != Sym::Unknown {
        for s in f.locals.iter_mut().chain(f.stack.iter_mut()) {
            a.stored(place, single_writer, &mut s.v);
        }
    }
}

fn apply_region<A: Analysis>(a: &mut A, f: &mut Frame<A::V>, ev: RegionEvent) {
    for s in f.locals.iter_mut().chain(f.stack.iter_mut()) {
        a.region(ev, &mut s.v);
    }
}

fn push<V: Clone>(f: &mut Frame<V>, s: Slot<V>, n: u8) {
    for _ in 1..n {
        f.stack.push(s.clone());
    }
    if n > 0 {
        f.stack.push(s);
    }
}

fn drop_slots<V>(f: &mut Frame<V>, n: usize, at: u32) -> Result<(), EngineError> {
    if f.stack.len() < n {
        return Err(EngineError::StackUnderflow(at));
    }
    f.stack.truncate(f.stack.len() - n);
    Ok(())
}

fn set_top_sym<V>(f: &mut Frame<V>, sym: Sym, n: u8) {
    let len = f.stack.len();
    for s in f.stack.iter_mut().skip(len.saturating_sub(n as usize)) {
        s.sym = sym;
    }
}

/// Replace the top `n` slots by the slots at `pattern` (indices into the popped top, bottom
/// first): `dup` is `(1, [0, 0])`, `swap` is `(2, [1, 0])`.
fn shuffle<V: Clone>(
    f: &mut Frame<V>,
    at: u32,
    n: usize,
    pattern: &[usize],
) -> Result<(), EngineError> {
    if f.stack.len() < n {
        return Err(EngineError::StackUnderflow(at));
    }
    let base = f.stack.len() - n;
    let mut top: [Option<Slot<V>>; 4] = [None, None, None, None];
    for (k, s) in f.stack.drain(base..).enumerate() {
        top[k] = Some(s);
    }
    for &k in pattern {
        if let Some(s) = &top[k] {
            f.stack.push(s.clone());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffles_follow_the_jvm_spec() {
        let mut f: Frame<u8> = Frame {
            locals: vec![],
            stack: vec![],
            locks: LockState::default(),
        };
        for v in [1u8, 2, 3, 4] {
            f.stack.push(Slot {
                v,
                sym: Sym::Unknown,
            });
        }
        // dup_x1: ..., v2, v1 → ..., v1, v2, v1
        shuffle(&mut f, 0, 2, &[1, 0, 1]).unwrap();
        assert_eq!(
            f.stack.iter().map(|s| s.v).collect::<Vec<_>>(),
            vec![1, 2, 4, 3, 4]
        );
        // dup2_x2: ..., v4, v3, v2, v1 → ..., v2, v1, v4, v3, v2, v1
        shuffle(&mut f, 0, 4, &[2, 3, 0, 1, 2, 3]).unwrap();
        assert_eq!(
            f.stack.iter().map(|s| s.v).collect::<Vec<_>>(),
            vec![1, 3, 4, 2, 4, 3, 4]
        );
        assert!(matches!(
            shuffle(&mut f, 9, 8, &[0]),
            Err(EngineError::StackUnderflow(9))
        ));
    }
}
