//! The causal dependency graph of the whole program (causal-dependencies-hldr.md, Sect. 4), for
//! `high-level-data-race`, `causal-stale-value` and `method-consistency`.
//!
//! Variables are locals (per method, the engine's registers) and globals: a field `(class,
//! field)`, the elements of an array held in a field, and the abstract state of a thread-safe
//! object held in a field ([`Var`]). The graph is never materialised as one graph: each explored
//! node (a method in its calling context, from [`Views`]) is analysed once with the shared engine,
//! callees first, and summarised for its callers ([`Summary`], the paper's `spec(meth)`).
//!
//! Inside a method, a register holds the set of *sources* its value depends on (a bitset of at
//! most 64 per method): the method's parameters (`m.p_i`), reads of a global inside an atomic
//! region (the paper's atomic versions), plain reads (outside every region of the method: the
//! caller decides), and reads imported from a callee's return (`m.ret`). Data dependencies follow
//! the values (assignments are register moves, computations join their inputs, heap reads and
//! writes, calls through the callee's summary); control dependencies add the sources of every
//! enclosing condition (post-dominator based control dependence, nested conditions included) to
//! every value defined and every global written. A source also records whether the value has
//! *left* its region (the region was exited since the read): that is the value-dependency edge of
//! Definition 10 when such a value is written inside a region.
//!
//! What the graph answers:
//! - *common correlation* (Definition 2): two reads of different globals combined in one
//!   definition (a computation, a condition, a store, an argument pair a callee combines);
//! - *flows* (Definition 10): a value read in region `m1` leaves it and is written (data or
//!   control) inside region `m2` (another region, or the same one entered again);
//! - *links*: the same edges into a write of another variable, or of a callee further down
//!   (Definition 10's `a2 = (x2, ..)` with `x2 != x1`): not stale values of the written
//!   variable, but what ties two regions of a method together (`method-consistency`);
//! - the region views with read and write accesses (Definition 5), from the lock views of
//!   [`Views`] (dynamic scope included) and the accesses found here: array elements, and
//!   one-call regions on thread-safe objects (`get` reads the state, `put` writes it,
//!   `putIfAbsent` does both; the classification is data in `analysis/thread_safe.txt`).
//!
//! Deviations, for speed and simplicity (documented in the rules' docs): global versions are
//! not carried inside a method (a value written to a field and read back is not followed);
//! recursion (a call inside its own strongly connected component) uses the default summary; at
//! most 64 sources per method and 16 entries per summary list; methods whose code is not
//! available return a value depending on all their arguments.

use rayon::prelude::*;

use super::facts::{FieldId, READ, WRITE};
use super::fields::{FieldTable, IO_PREFIXES};
use super::views::{tarjan, Graph, Node, Views};
use crate::analysis::engine::{self, Analysis, Frame, MethodCx, RegionEvent, StepCx, StepKind};
use crate::analysis::locks::{self, CallEffect, RegionCall, Returns, CALLER_SITE};
use crate::bytecode::cfg::{control_dependence, Cfg, Control};
use crate::bytecode::{Class, Code, Konst, Op};
use crate::fxhash::{FxHashMap, FxHashSet};
use crate::program::{MethodId, Program};

/// A global variable: `field id * 4 + kind` ([`FIELD`], [`ELEMENTS`], [`STATE`], [`CONTENTS`]).
pub type Var = u32;
/// The value of the field.
pub const FIELD: u32 = 0;
/// The elements of the array held in the field.
pub const ELEMENTS: u32 = 1;
/// The abstract state of the thread-safe object held in the field.
pub const STATE: u32 = 2;
/// The contents of the plain collection of the platform held in the field (a `HashMap`, an
/// `ArrayList`: not thread-safe, no region of its own): its methods read and write them where
/// they are called (in the caller's critical section, or outside any), as array accesses read
/// and write an array's [`ELEMENTS`].
pub const CONTENTS: u32 = 3;

pub fn var_of(field: FieldId, kind: u32) -> Var {
    field * 4 + kind
}
pub fn var_field(v: Var) -> FieldId {
    v / 4
}
pub fn var_kind(v: Var) -> u32 {
    v % 4
}

/// Words for a variable: "`Coord.x`", "the elements of `Buf.items`", "the state of `C.map`".
pub fn describe_var(p: &Program, fields: &FieldTable, v: Var) -> String {
    let (class, name) = fields.describe(p, var_field(v));
    let simple = class.rsplit('/').next().unwrap_or(class);
    match var_kind(v) {
        ELEMENTS => format!("the elements of `{simple}.{name}`"),
        STATE => format!("the state of `{simple}.{name}`"),
        CONTENTS => format!("the contents of `{simple}.{name}`"),
        _ => format!("`{simple}.{name}`"),
    }
}

/// The short name of a variable: "x", "items[]", "map".
pub fn short_var(p: &Program, fields: &FieldTable, v: Var) -> String {
    let (_, name) = fields.describe(p, var_field(v));
    match var_kind(v) {
        ELEMENTS => format!("{name}[]"),
        _ => name.to_string(),
    }
}

/// The class declaring a variable's field (views are partitioned by it).
pub fn var_class(fields: &FieldTable, v: Var) -> u32 {
    fields.owner(var_field(v)).0
}

/// A program point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc {
    pub method: MethodId,
    pub at: u32,
}

/// An access to a global inside a region: the variable, the region `(node, site)` and where.
/// For a read the paper's atomic version; for a write the version it defines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GAccess {
    pub var: Var,
    pub node: u32,
    pub site: u32,
    pub loc: Loc,
}

/// A method's specification for its callers (the paper's `spec(meth)`). Parameters are named by
/// their local slot (the receiver is slot 0 of an instance method), which is also the index of
/// the argument slot at a call.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Parameters the return value depends on (bit = slot).
    pub ret_params: u64,
    /// Region reads the return value depends on.
    pub ret_reads: Vec<GAccess>,
    /// Reads outside every region of the method (and its callees) the return value depends on:
    /// inside the caller's region when it holds one. With each, the object read, as in
    /// [`Run::src_on`] (a parameter's slot + 1; 0 unknown).
    pub ret_plain: Vec<(Var, Loc, u8)>,
    /// A parameter flows (data or control) into a write inside a region.
    pub param_writes: Vec<(u8, GAccess)>,
    /// Of [`Self::param_writes`], those a parameter decides only on the way to a test of the
    /// outcome of this method's own update of the variable written, which decides the write
    /// (`if (v == null) { if (map.putIfAbsent(k, t) == null) created = true; } .. if (created)
    /// map.put(k, r)`): a caller's stale look at that variable, passed in, is re-checked.
    pub param_superseded: Vec<(u8, GAccess)>,
    /// Writes reached only where a parameter, as passed in, is of one case of [`Val::flag`]
    /// (`if (force) ref.set(v); else ref.compareAndSet(old, v);`): `(write, slot, case)`. A call
    /// that passes a constant of another case never makes that write.
    pub guarded: Vec<(GAccess, u8, u8)>,
    /// Of [`Self::param_writes`] of its own regions, those a parameter reaches by control
    /// alone: it decides whether the write happens (`if (n > 0) notified = false;` with `n`
    /// computed from the arguments), the value written does not come from it.
    pub param_decides: Vec<(u8, GAccess)>,
    /// Of [`Self::param_writes`] of its own regions, those where a condition compares the
    /// parameter with a fresh look at the variable written, in the write's region, and the
    /// write happens only one way (`if (amount <= highestBid) return false; highestBid =
    /// amount;`): the value is installed only if it still relates so to what is there now, as
    /// a compare-and-set's new value is. A caller's stale value passed in overwrites no update
    /// it did not see.
    pub param_compared: Vec<(u8, GAccess)>,
    /// Of [`Self::param_plain_writes`], those made under a condition that compares the
    /// parameter with a look at the variable written made here (`Segment s2 = segments[i]; if
    /// (s == s2) segments[i] = new Segment(s, n);`): validated as in [`Self::param_compared`]
    /// where a caller's region holds the call (`synchronized (s) { s = resizeIfNeeded(s, i);
    /// .. }`), which makes the look fresh.
    pub param_plain_compared: Vec<(u8, Var, Loc)>,
    /// A parameter flows into a write outside every region of the method.
    pub param_plain_writes: Vec<(u8, Var, Loc, u8)>,
    /// Writes inside regions anywhere in the dynamic scope (a condition of the caller controls
    /// them).
    pub writes: Vec<GAccess>,
    /// Reads by index of a collection in its own regions (`synchronized Object get(int i) {
    /// return items.get(i); }`): a caller's condition on a size read before decides whether the
    /// index is used, as it would on the collection itself.
    pub index_reads: Vec<GAccess>,
    /// Writes outside every region.
    pub plain_writes: Vec<(Var, Loc, u8)>,
    /// Looks of its own regions on which a branch throws one way (`if (!open) throw new
    /// IllegalStateException("closed")`): what the method requires of the variable. A caller's
    /// stale look that decided the call counts on it ([`Flow::require`]).
    pub requires: Vec<GAccess>,
    /// Of [`Self::requires`], those whose branch compares a parameter with the look (`if (end
    /// > count) throw ..`): a caller's stale value passed there counts on it too.
    pub param_requires: Vec<(u8, GAccess)>,
    /// Variables it updates in its own regions, compare-and-sets included.
    pub updated: Vec<Var>,
    /// Variables whose update's outcome it returns (`getAndResetFlag()` returning
    /// `flag.getAndSet(false)`): tested by the caller, a validating update, like a
    /// compare-and-set.
    pub ret_outcome: Vec<Var>,
    /// Writes of its own regions that it decides itself on a look at the same variable
    /// (`if (count > 0) count--`): a caller's earlier check of that variable is re-checked.
    pub self_checked: Vec<GAccess>,
    /// Writes outside every region that it decides itself on a look at the same variable
    /// (`if (seqno > hd) hd = seqno`, here or in a callee): inside a caller's region that look
    /// is a fresh re-check, like [`Self::self_checked`].
    pub plain_checked: Vec<(Var, Loc)>,
    /// Writes of its own regions decided by the outcome of its own update of a variable, with
    /// that variable: the update itself when its outcome is tested (`if
    /// (count.decrementAndGet() < 0) { count.incrementAndGet(); return null; }`), and the writes
    /// a condition on the outcome decides (`head = next` after that test). The update reports
    /// the state as it found it, so a caller's earlier look at the variable is re-checked
    /// (`if (!buf.isEmpty()) buf.take()`), as for [`Self::self_checked`].
    pub outcome_checked: Vec<(Var, GAccess)>,
    /// It returns `null`, `0` or `false` where the outcome of its own update decided (`return
    /// null` when the count it decremented was already zero): a caller that uses the result
    /// untested acts on a failure it did not see.
    pub ret_failure: bool,
    /// Pairs of parameters combined in one definition.
    pub param_pairs: Vec<(u8, u8)>,
    /// Accesses of its own regions made on a field of the object a parameter holds, with that
    /// slot + 1 (`this.count.get()`: slot 0): the caller tells which object its argument is.
    pub bases: Vec<(GAccess, u8)>,
    /// Writes outside every region made by the implementations of a virtual call on a
    /// parameter (`visitor.visit(..)`): `(slot, class of the implementation, variable, where,
    /// re-checked)`. Which of them runs is decided by the object a caller passes: a caller that
    /// passes an object it allocated gets the writes of that class's implementation alone.
    pub dispatched: Vec<(u8, u32, Var, Loc, bool)>,
}

/// Most entries of [`Summary::dispatched`] (one per implementation and write).
const MAX_DISPATCHED: usize = 64;

/// Most entries of each summary list (and flows, combinations per method).
pub(crate) const MAX_LIST: usize = 16;

/// Most entries of [`NodeOut::decided`].
const MAX_DECIDED: usize = 64;

fn push_capped<T: PartialEq>(v: &mut Vec<T>, x: T) {
    if v.len() < MAX_LIST && !v.contains(&x) {
        v.push(x);
    }
}

/// One access of a method to a global, with the regions held at it (own acquisition sites,
/// outermost first; a one-call region on a thread-safe object adds the call's own site).
#[derive(Clone, Debug)]
pub struct Acc {
    pub at: u32,
    pub var: Var,
    pub kind: u8,
    pub held: Box<[u32]>,
}

/// Two reads of different globals combined in one definition at `at` (a common correlation of
/// `a.var` and `b.var`, Definition 2); `a.var < b.var`.
#[derive(Clone, Copy, Debug)]
pub struct Combine {
    pub at: u32,
    pub a: GAccess,
    pub b: GAccess,
    /// The pair was read in separate critical sections: one value left its region before the
    /// other was read, or they left at different places. Both still inside the regions of this
    /// method that were open when they were read (one region, or nested ones; a callee's read
    /// made while this method's region was open stays in it, as it does for a stale value), or
    /// both left together with the one region they were read in: the pair was read in one
    /// critical section, and the combination is consistent. It is still a correlation.
    pub split: bool,
}

/// A value read in one region that left it and is written inside another region (or the same
/// one entered again): an edge of the view-dependency graph (Definition 10).
#[derive(Clone, Copy, Debug)]
pub struct Flow {
    pub src: GAccess,
    /// Where the value left its region, in this method (a release, or the call that returned
    /// it), when known; for an unlocked look made by a getter, the call of the getter.
    pub left_at: Option<u32>,
    pub dst: GAccess,
    /// Where the value enters the second region in this method: the call passing it (or
    /// controlled by it), or the write inside this method's own region.
    pub entry_at: u32,
    /// The acquisition site of that region in this method (the call itself for a call).
    pub enter_site: u32,
    /// The value only decides the write (a condition on it), it is not written: check-then-act
    /// rather than a lost update.
    pub check: bool,
    /// The value was read outside every region (`src.site` is then meaningless): stale as soon
    /// as it is read, since the writers hold a lock the reader does not.
    pub unlocked: bool,
    /// The destination is not a write but an access by index (`v.get(i)`) that the stale
    /// decision allows (`i < v.size()` in an earlier region): it fails when another thread
    /// made the collection smaller in between.
    pub index: bool,
    /// The destination is no write but a callee's own look at the variable, in its region,
    /// that throws when it fails (`if (!open) throw new IllegalStateException()`): the stale
    /// value (or a condition on it) lets the call go ahead counting on what the callee
    /// requires, and the call fails when another thread changed the variable in between.
    pub require: bool,
    /// The write's own region claims it first: a current look there at another variable that
    /// the region writes too decides the write, and leaves without failing the other way (`if
    /// (closed) return; synchronized (this) { if (state == CLOSED) return; state = CLOSED;
    /// closed = true; }`; a look that throws instead fails where the stale look let the call go
    /// ahead). Where every region that writes the flow's variable writes this one too, the two
    /// change together, and the look at this one is the authoritative re-check
    /// (causal-stale-value's `change_together` asks).
    pub claim: Option<Var>,
}

/// What the destination of a [`Run::flow`] is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Edge {
    /// A write in a region of this method or of a callee it calls.
    Write,
    /// A write further down the callees: too far away to be a stale value's evidence, it
    /// links the regions only ([`NodeOut::links`]).
    Deeper,
    /// An access by index that a stale decision allows ([`Flow::index`]); it takes no source
    /// away from later writes.
    Index,
    /// A callee's look that throws when it fails ([`Flow::require`]); it takes no source away
    /// from later writes either.
    Require,
}

impl Edge {
    /// A write of the callee called (`direct`) or one further down.
    fn of(direct: bool) -> Edge {
        if direct {
            Edge::Write
        } else {
            Edge::Deeper
        }
    }
}

/// Everything one node's analysis found.
#[derive(Debug, Default)]
pub struct NodeOut {
    pub summary: Summary,
    pub accesses: Vec<Acc>,
    pub combines: Vec<Combine>,
    /// Reads handed together, as data in separate arguments, to the constructor of one new
    /// object (`new Quote(bid, ask)`): one observation of both, a snapshot, though no
    /// computation combines them (not a correlation of Definition 2; asked only by
    /// `high-level-data-race`'s split pairs).
    pub gathers: Vec<Combine>,
    pub flows: Vec<Flow>,
    /// Edges of the view-dependency graph into a write of *another* variable (the paper's
    /// `(m1, x1, m2)` with `a2 = (x2, ..)`, `x2 != x1`): a value of one variable that left its
    /// region decides or makes a write of another inside a region, with the same validation
    /// as [`Self::flows`] (a fresh look at the variable again supersedes it). Not stale values
    /// of the written variable; they link the two regions (`method-consistency` asks them).
    pub links: Vec<Flow>,
    /// Direct dependencies between globals (Definition 1): a value read from the first (or a
    /// condition on it) written into the second, as a pair in order.
    pub depends: Vec<(Var, Var)>,
    /// Reads whose value this method uses as data once it has left their region (a read
    /// outside every region, `true`: anywhere): passed to a call, stored, returned,
    /// dereferenced or indexed with, not only tested by a branch or formatted into a message.
    /// A read not here was used inside its region, or only to decide.
    pub escapes: Vec<(GAccess, bool)>,
    /// Reads made in a region of this method whose value it hands, still in that region, to a
    /// call as an argument (not as the receiver, not to a lock operation): a value passed on
    /// to code that may keep or publish it (`journal.warn("n", count)`, `out.append(n)`),
    /// where a later section's update can make it stale. A read not here (and not in
    /// [`Self::escapes`]) only decided or fed what the region itself did.
    pub handed: Vec<GAccess>,
    /// Pairs of regions of this method `(snapshot, install)`: a value read in the first that
    /// reaches a write in the second only where a version read together with it is compared
    /// with a fresh read of that version ([`Run::flow`]'s version check), or where the write
    /// is decided by a fresh look at the value's own variable (a re-check): the optimistic
    /// install of a snapshot, current where it is written.
    pub validated: Vec<(u32, u32)>,
    /// Lock operations and calls made outside every region of this method, each with a read
    /// that decides whether it runs (a branch on the read's value, in its region or after it,
    /// that the instruction depends on; `true`: a read outside every region): a later critical
    /// section that a look decides to enter.
    pub decided: Vec<(u32, GAccess, bool)>,
    /// [`Self::decided`] was cut short: more entries than it holds.
    pub decided_overflow: bool,
    /// Reads of one variable made in a region a loop enters again, on an object the loop
    /// changes (not `this`, a parameter or a static field), whose instances of two rounds are
    /// combined as data in one definition (`total += a.balance` in `for (Account a : accounts)
    /// synchronized (a) { .. }`): the last round's value left its section, this round's is
    /// current. The same field of several objects, read in separate critical sections and
    /// combined (`a` and `b` of each [`Combine`] are the one read; `split` is set). With each,
    /// the regions of this method held at the combination that no loop enters again: held
    /// around the whole loop, a writer that takes their lock too cannot run between the reads.
    pub object_splits: Vec<(Combine, Box<[u32]>)>,
    /// Regions of this method that write one variable on two objects (`from.balance -= n;
    /// to.balance += n;` in one section): `(site, first write, second write)`. A reader that
    /// combines the variable over objects read in separate sections sees half of the update.
    pub multi_writes: Vec<(u32, GAccess, GAccess)>,
}

/// A region view with read and write accesses (Definition 5), sorted.
#[derive(Clone, Debug)]
pub struct RegionView {
    pub node: usize,
    pub site: u32,
    /// Sorted; equal lists are shared between views (a large program's lock views repeat the
    /// same hundreds of thousands of variables).
    pub reads: VarList,
    pub writes: VarList,
}

/// A sorted list of variables, shared.
pub type VarList = std::sync::Arc<[Var]>;

/// Equal variable lists stored once.
#[derive(Default)]
struct VarLists {
    by_hash: FxHashMap<u64, Vec<VarList>>,
}

impl VarLists {
    fn intern(&mut self, list: Vec<Var>) -> VarList {
        use std::hash::{Hash, Hasher};
        let mut h = crate::fxhash::FxHasher::default();
        list.hash(&mut h);
        let bucket = self
            .by_hash
            .entry(crate::fxhash::mix(h.finish()))
            .or_default();
        match bucket.iter().find(|l| l[..] == list[..]) {
            Some(l) => l.clone(),
            None => {
                let l: VarList = list.into();
                bucket.push(l.clone());
                l
            }
        }
    }
}

pub struct CausalGraph {
    /// Per node: the analysis result (`None`: not analysed, or failed).
    pub outs: Vec<Option<NodeOut>>,
    /// Region views (lock views with exact reads and writes, and one-call regions on
    /// thread-safe objects).
    pub views: Vec<RegionView>,
    /// Common correlations: each pair of variables, with up to 4 witnesses `(node, combine)`.
    pub correlated: FxHashMap<(Var, Var), Vec<(usize, Combine)>>,
    /// Pairs of variables handed together to one new object's constructor
    /// ([`NodeOut::gathers`]), with up to 4 witnesses each, as for [`Self::correlated`].
    pub gathered: FxHashMap<(Var, Var), Vec<(usize, Combine)>>,
    /// Pairs of variables, in order, one of which is written from a value of (or under a
    /// condition on) the other: the direct correlations of the dependency graph.
    pub depends: FxHashSet<(Var, Var)>,
    /// Callers of each node.
    pub preds: Vec<Vec<usize>>,
    /// Figures for `STALECHECK_TIMINGS`.
    pub profile: Vec<String>,
}

/// The value of a register: the sources it depends on, those of them that left their region,
/// and the field it was read from (for array and thread-safe object references; `fid + 1`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Val {
    src: u64,
    /// The sources that reach it as data: computed from them, not only decided by a condition
    /// on them (a constant stored under `if (x == null)` depends on `x` by control alone).
    data: u64,
    left: u64,
    /// Sources that left, carried also by an instance read again since (one instruction in a
    /// loop reads anew each iteration: the value of `if (size > 0)` in this iteration's region
    /// is current, that of the last iteration, carried by a local, has left).
    again: u64,
    field: u32,
    /// A reference to an object this method allocated (not shared yet, as in the lock model):
    /// its fields and its methods' regions are not shared state.
    local: bool,
    /// Where the object of a [`Val::local`] reference was made (its `new` or the call that
    /// returned it fresh), + 1; 0 unknown. Stored into a field of a shared object, it is
    /// published from there on: every register holding it stops being local
    /// ([`Run::stored`]).
    born: u32,
    /// The class of the object this method allocated (`new C`), as its index + 1; 0 unknown:
    /// a callee's virtual call on it goes to that class's method alone.
    alloc: u32,
    /// A reference read from a field of the object a parameter holds, as its slot + 1 (slot 0:
    /// `this`); 0 unknown. The thread-safe object it is belongs to that object
    /// ([`Run::src_on`]).
    base: u8,
    /// A flag: on every path a constant this method made, and, for each case a branch on it
    /// tells apart ([`NULL`], [`ZERO`]: `0`, `false`, `Boolean.FALSE`; [`NONZERO`]: another
    /// `int`, `true`, `Boolean.TRUE`), the instruction that made that constant ([`NONE`]: no
    /// constant of the case reaches here, [`MANY`]: several). A branch on it goes one way only
    /// where the constant of that case got here, made under its own conditions
    /// ([`Run::taken`]): `if (created)` after `created = true` in one arm decides what the
    /// arm's conditions decided, not what the other arm's did. Up to [`CODES`] constants of the
    /// [`NONZERO`] case made at distinct instructions are kept (from index [`NONZERO`] on), told
    /// apart by value where a branch compares the flag with a constant (`if (action == START)`
    /// after `action = START;` in one arm and `action = SKIP;` in another).
    flag: Option<[u32; FLAG_SLOTS]>,
    /// Sources of which it carries the thread's own instance: read inside the critical section
    /// that then wrote the variable from them (`got = min(need, avail); avail -= got;`, a
    /// read-modify-write under a lock): what it took out, like the result of an atomic
    /// `getAndAdd`, not a snapshot that goes stale ([`Run::stored`]). Only where it is the
    /// thread's own on every path it came by.
    mine: u64,
}

/// Where the instances of a read carried by one value may be ([`Run::define`]): inside their
/// region (`NO_LEFT`) or left at a place, at most two of them; none when they cannot all be in
/// one place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Places([u32; 2]);

impl Places {
    const NONE: u32 = u32::MAX - 2;

    fn one(a: u32) -> Places {
        Places([a, Self::NONE])
    }

    fn two(a: u32, b: u32) -> Places {
        Places([a, b])
    }

    /// The places both may be.
    fn and(self, o: Places) -> Places {
        let mut out = [Self::NONE; 2];
        let mut k = 0;
        for x in self.0 {
            if x != Self::NONE && o.0.contains(&x) && !out.contains(&x) {
                out[k] = x;
                k += 1;
            }
        }
        Places(out)
    }

    fn is_empty(self) -> bool {
        self.0 == [Self::NONE; 2]
    }
}

/// The cases of [`Val::flag`].
const NULL: usize = 0;
const ZERO: usize = 1;
const NONZERO: usize = 2;
/// How many [`NONZERO`] constants made at distinct instructions a [`Val::flag`] keeps.
const CODES: usize = 4;
const FLAG_SLOTS: usize = NONZERO + CODES;
/// No constant of a case; several.
const NONE: u32 = u32::MAX;
const MANY: u32 = u32::MAX - 1;

/// The case of [`Val::flag`] a constant is.
fn case_of(k: Konst) -> usize {
    match k {
        Konst::Null => NULL,
        Konst::Zero => ZERO,
        Konst::NonZero => NONZERO,
    }
}

/// The case of [`Val::flag`] the value a branch tests is in when the branch goes the way
/// `jumps` says; `None` for a value that is only not `null`, or a comparison.
fn case_taken(cond: crate::bytecode::Cond, jumps: bool) -> Option<usize> {
    use crate::bytecode::Cond;
    match (cond, jumps) {
        (Cond::Zero, true) | (Cond::NonZero, false) => Some(ZERO),
        (Cond::Zero, false) | (Cond::NonZero, true) => Some(NONZERO),
        (Cond::Null, true) | (Cond::NonNull, false) => Some(NULL),
        _ => None,
    }
}

/// Whether `class.name` gives a thread's id, unique among live threads (`getId()`,
/// `threadId()`; not its name, which several threads may share).
fn is_thread_id(class: &str, name: &str) -> bool {
    class == "java/lang/Thread" && matches!(name, "getId" | "threadId")
}

/// Whether `class.name` is `Thread.currentThread()`.
fn is_current_thread(class: &str, name: &str) -> bool {
    class == "java/lang/Thread" && name == "currentThread"
}

/// Whether method `t` only returns the calling thread or its id: its code is
/// `Thread.currentThread()`, then at most `getId()` (or `threadId()`) and a boxing `valueOf`,
/// then the return (a `currentThreadId()` helper).
fn returns_me(p: &crate::program::Program, t: crate::program::MethodId) -> bool {
    let (c, m) = (p.class(t.class), p.method(t));
    let Some(code) = &m.code else {
        return false;
    };
    let call = |i: usize| match code.insns.get(i).map(|x| &x.op) {
        Some(&Op::Invoke(kind, r)) => Some((kind, c.member(r))),
        _ => None,
    };
    let n = code.insns.len();
    if !(2..=4).contains(&n) || !matches!(code.insns[n - 1].op, Op::Return(1 | 2)) {
        return false;
    }
    let first = call(0).is_some_and(|(k, mr)| {
        k == crate::bytecode::InvokeKind::Static && is_current_thread(&mr.class, &mr.name)
    });
    let between = (1..n - 1).all(|i| {
        call(i).is_some_and(|(k, mr)| match k {
            crate::bytecode::InvokeKind::Static => &*mr.name == "valueOf" && i == n - 2,
            _ => i == 1 && is_thread_id(&mr.class, &mr.name),
        })
    });
    first && between
}

/// How far after a field read the branch of a bit test on it is ([`Run::bit_test`]): the
/// mask, the `iand` or the helper call, the branch.
const BIT_TEST_SPAN: u32 = 3;

/// Whether method `h` is a helper that tells whether any bit of a mask is set: static, `(II)Z`,
/// its code `(var & mask) != 0` as javac compiles it (`iload_0; iload_1; iand; ifeq L;
/// iconst_1; [goto E | ireturn]; L: iconst_0; ireturn`, or the same with `ifne` and the
/// constants swapped).
fn any_set_helper(p: &crate::program::Program, h: crate::program::MethodId) -> bool {
    use crate::bytecode::{BitFact, Cond, Konst};
    let m = p.method(h);
    let Some(code) = m
        .code
        .as_ref()
        .filter(|_| m.is_static() && &*m.descriptor == "(II)Z")
    else {
        return false;
    };
    let op = |k: u32| code.insns.get(k as usize).map(|i| &i.op);
    let head = matches!(op(0), Some(Op::Load(0, 1)))
        && matches!(op(1), Some(Op::Load(1, 1)))
        && code.bit_fact(2) == Some(BitFact::And);
    let Some(&Op::If {
        pop: 1,
        target,
        cond,
    }) = op(3)
    else {
        return false;
    };
    // The constant a path from `at` returns: pushed, then returned at once or after a jump.
    let returns = |at: u32| match (op(at), op(at + 1)) {
        (Some(&Op::Flag(k)), Some(Op::Return(1))) => Some(k),
        (Some(&Op::Flag(k)), Some(&Op::Goto(e))) if matches!(op(e), Some(Op::Return(1))) => Some(k),
        _ => None,
    };
    let (set, clear) = match cond {
        Cond::Zero => (returns(4), returns(target)),
        Cond::NonZero => (returns(target), returns(4)),
        _ => return false,
    };
    head && set == Some(Konst::NonZero) && clear == Some(Konst::Zero)
}

/// A flag of one constant, made at `at`.
fn flag_of(case: usize, at: u32) -> Option<[u32; FLAG_SLOTS]> {
    let mut f = [NONE; FLAG_SLOTS];
    f[case] = at;
    Some(f)
}

/// The instruction that made the one constant of case `case` of flag `f`: `NONE` where none
/// did, `MANY` where several did.
fn case_site(f: &[u32; FLAG_SLOTS], case: usize) -> u32 {
    if case == NONZERO && f[NONZERO + 1] != NONE {
        MANY
    } else {
        f[case]
    }
}

/// The flag on either of two paths: per case the one instruction that made its constant on
/// both, or `MANY`; up to [`CODES`] [`NONZERO`] constants made at distinct instructions are
/// kept, in the slots from [`NONZERO`] on.
fn join_flags(a: [u32; FLAG_SLOTS], b: [u32; FLAG_SLOTS]) -> [u32; FLAG_SLOTS] {
    let mut out = [NONE; FLAG_SLOTS];
    for k in [NULL, ZERO] {
        out[k] = match (a[k], b[k]) {
            (x, NONE) | (NONE, x) => x,
            (x, y) if x == y => x,
            _ => MANY,
        };
    }
    let mut n = NONZERO;
    for &x in a[NONZERO..].iter().chain(&b[NONZERO..]) {
        if x == NONE || out[NONZERO..n].contains(&x) {
            continue;
        }
        if x == MANY || n == FLAG_SLOTS {
            out[NONZERO..].fill(NONE);
            out[NONZERO] = MANY;
            break;
        }
        out[n] = x;
        n += 1;
    }
    out
}

/// The one constant of flag `f` that `may` lets through, if one alone does (`may` gives `None`
/// where it cannot tell; a site of several constants tells nothing either).
fn one_site(f: &[u32; FLAG_SLOTS], may: impl Fn(u32) -> Option<bool>) -> Option<u32> {
    let mut found = None;
    for &s in f.iter().filter(|&&s| s != NONE) {
        if s >= MANY {
            return None;
        }
        if may(s)? && found.replace(s).is_some() {
            return None;
        }
    }
    found
}

/// The one instruction that made every constant of flag `f`, if one did.
fn only_site(f: &[u32; FLAG_SLOTS]) -> Option<u32> {
    let mut sites = f.iter().filter(|&&s| s != NONE);
    let s = *sites.next()?;
    (s < MANY && sites.next().is_none()).then_some(s)
}

/// A constant as a comparison of a code tells it apart ([`Run::const_key`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Key<'a> {
    Null,
    Int(i32),
    /// An object in a static final field that holds its own class's objects (an enum
    /// constant): by its class and name.
    Static(&'a str, &'a str),
}

impl Val {
    fn or(self, o: Val) -> Val {
        let left = self.left | o.left;
        Val {
            src: self.src | o.src,
            data: self.data | o.data,
            left,
            again: (self.current() | o.current()) & left,
            field: 0,
            local: false,
            born: 0,
            alloc: 0,
            base: 0,
            flag: None,
            mine: self.mine_with(&o),
        }
    }

    /// The value with a new instance of the sources `bit` as data: a read made here, current
    /// even where the value also carries an instance of them that left its region (the last
    /// loop iteration's look, through a condition or an argument: [`Val::again`]).
    fn add_instance(&mut self, bit: u64) {
        self.again |= bit & self.left;
        self.src |= bit;
        self.data |= bit;
    }

    /// The sources that are the thread's own wherever either value carries them.
    fn mine_with(&self, o: &Val) -> u64 {
        let own = |v: &Val| v.mine | !v.src;
        own(self) & own(o) & (self.src | o.src)
    }

    /// The value with only the sources of `m` (as a look, as data, left or read again).
    fn keep(self, m: u64) -> Val {
        Val {
            src: self.src & m,
            data: self.data & m,
            left: self.left & m,
            again: self.again & m,
            ..self
        }
    }

    /// The sources of which it carries an instance that has not left its region.
    fn current(&self) -> u64 {
        (self.src & !self.left) | self.again
    }

    /// The value on either of two paths (`or` combines values on one path): a source that left
    /// is read again only where it is on both paths (or not carried by one at all).
    fn join(&self, o: &Val) -> Val {
        let left = self.left | o.left;
        let again_on = |v: &Val| !v.left | v.current();
        Val {
            src: self.src | o.src,
            data: self.data | o.data,
            left,
            again: left & again_on(self) & again_on(o),
            field: if self.field == o.field { self.field } else { 0 },
            local: self.local && o.local,
            born: if self.born == o.born { self.born } else { 0 },
            alloc: if self.alloc == o.alloc { self.alloc } else { 0 },
            base: if self.base == o.base { self.base } else { 0 },
            mine: self.mine_with(o),
            flag: match (self.flag, o.flag) {
                (Some(a), Some(b)) => Some(join_flags(a, b)),
                _ => None,
            },
        }
    }

    /// The value without the sources it has from the condition `ctl` alone (the implicit flow
    /// of a value computed where that condition holds); data from them is kept.
    fn without_control(self, ctl: Val) -> Val {
        let only_ctl = ctl.src & !self.data;
        Val {
            src: self.src & !only_ctl,
            left: self.left & !only_ctl,
            again: self.again & !only_ctl,
            ..self
        }
    }
}

/// The parameter slot a value is, when it is one parameter as passed in and nothing else (not a
/// value decided by a condition on one).
fn pure_param(v: Val) -> Option<u8> {
    (v.src != 0
        && v.src & !PARAM_MASK == 0
        && v.src.count_ones() == 1
        && v.data == v.src
        && v.alloc == 0)
        .then(|| v.src.trailing_zeros() as u8)
}

/// The object a value is, in [`Run::src_on`]'s terms: a parameter's slot + 1 when it is one
/// parameter as passed in (slot 0: `this`), else 0 (unknown).
fn object_on(v: Val) -> u8 {
    pure_param(v).map_or(0, |slot| slot + 1)
}

fn union(inputs: &[Val]) -> Val {
    inputs.iter().fold(Val::default(), |a, &b| a.or(b))
}

fn bits(mut m: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if m == 0 {
            return None;
        }
        let b = m.trailing_zeros() as usize;
        m &= m - 1;
        Some(b)
    })
}

/// Parameter slots with a source of their own (bits `0..PARAMS`).
const PARAMS: usize = 16;
const PARAM_MASK: u64 = (1 << PARAMS) - 1;
const NO_LEFT: u32 = u32::MAX;
/// [`Run::src_on`] of a source not read yet.
const UNSET: u8 = u8::MAX;

#[derive(Clone, Copy, Debug)]
enum Src {
    Param,
    Atomic(GAccess),
    Plain(Var, Loc),
    /// The outcome of this thread's own update of a variable, at a call site: what a
    /// conditional update, a read-modify-write or a take-out (`putIfAbsent`, `decrementAndGet`,
    /// `poll`) reports about the state it just changed. Current, never stale.
    Outcome(Var, u32),
}

/// One node's analysis.
struct Run<'a> {
    p: &'a Program,
    fields: &'a FieldTable,
    views: &'a Graph,
    outs: &'a [Option<NodeOut>],
    node: u32,
    id: MethodId,
    class: &'a Class,
    code: &'a Code,
    block_of: &'a [u32],
    cfg: &'a Cfg,
    /// Branch instructions each block is control dependent on (transitively).
    ctrl: Vec<Control>,
    /// The guards of this method's waits (`while (count == 0) wait();`, `if (!ready)
    /// await()`): each branch a wait depends on directly, with the blocks its own block
    /// dominates ([`Run::wait_post`]).
    wait_guards: Vec<(u32, Vec<bool>)>,
    /// What the wait guards established at the current instruction, after their region
    /// ([`Run::wait_post`]): a check of every write there.
    post: Val,
    /// Call sites of this node (facts), by instruction.
    calls: FxHashMap<u32, usize>,
    nparams: usize,
    /// The joined operands of each branch.
    branch: FxHashMap<u32, Val>,
    srcs: Vec<Src>,
    keys: FxHashMap<(u32, u32), u8>,
    /// Sources to mark as left when the region at a site is exited.
    exit_mask: FxHashMap<u32, u64>,
    /// Where each own region (by site) is first exited.
    exit_at: FxHashMap<u32, u32>,
    /// Writes of a variable made in an own region, `(instruction, looks, dominated blocks)`:
    /// each is decided by looks at that variable made before it in the region and current
    /// there (`looks`: no release, not even a `wait()`, between them), a test-and-set (`if
    /// (emitting) { ..; return; } emitting = true;`) for the blocks it dominates, see
    /// [`Run::owned_at`].
    region_sets: Vec<(u32, u64, Vec<bool>)>,
    /// The edges of branches, by `(branch, successor)`, from which a write of a looked-at
    /// variable in the look's region is reached on every path (the write is control dependent
    /// on the edge alone), with the looks: owned on that edge wherever it leads, also where a
    /// flag set there carries the decision on ([`Run::owned_at`]).
    owned_edges: FxHashMap<(u32, u32), u64>,
    left_at: [u32; 64],
    atomic: u64,
    /// Sources imported from a callee's return, and the call each came through.
    imported: u64,
    /// Imported sources that are the outcome of the callee's own update: it read the variable
    /// and wrote it too (`if (tryAcquire())`, a test-and-set).
    own_outcome: u64,
    /// The sources the write just transferred took out ([`Val::mine`]): current reads of the
    /// variable it wrote, in its data, inside its region. Set by each transfer, applied to every
    /// register by [`Run::stored`].
    took: u64,
    /// The object a store just published ([`Val::born`]): stored into a field of an object
    /// that is not this method's own, or into a static field. Set by each transfer, applied to
    /// every register by [`Run::stored`].
    publish: u32,
    /// Reads made in this method outside every region, its caller's included.
    unlocked: u64,
    /// Of [`Self::unlocked`], the looks of a getter this method calls holding no lock (see
    /// [`getter`]): evidence only where they decide a write, not as the data written.
    got: u64,
    via: [u32; 64],
    /// Own regions held at the current instruction (on every pass: [`Run::exited`] asks them).
    held: Vec<u32>,
    /// The pairs recorded, once each: `(a, b, split, gathered)` ([`NodeOut::combines`],
    /// [`NodeOut::gathers`]).
    combined: FxHashSet<(Var, Var, bool, bool)>,
    flowed: u64,
    /// Sources that are references this method reads from a field in one of its own regions.
    objects: u64,
    /// The variables this method writes in each of its own regions, `(var, site)` (every pass).
    region_writes: FxHashSet<(Var, u32)>,
    /// The first write of each variable in each own region, `(site, var)`, with the object it
    /// was made on (the receiver's data sources; recording pass): a second write on another
    /// object makes a [`NodeOut::multi_writes`] entry.
    region_objects: FxHashMap<(u32, Var), (u64, GAccess)>,
    /// The sources each compare-and-set style call (by site) compared with the current state.
    checked: FxHashMap<u32, u64>,
    /// The update calls (by site) whose outcome a condition tests (see [`Src::Outcome`]).
    outcome_tested: FxHashSet<u32>,
    /// Keys this method stored a value under (`map.put(k, v)`), `(var, key slot, source,
    /// outermost region site, the put's instruction)`: a look, for the method's own later
    /// lookup of that key ([`Run::key_put_read`]).
    key_puts: Vec<(Var, u16, u64, u32, u32)>,
    /// The object each source read a field of: a parameter's slot + 1 (slot 0: `this`), 0
    /// unknown (or several), [`UNSET`] before its first read.
    src_on: [u8; 64],
    /// Reads made on an object an earlier instance of the same read gave (`event =
    /// event.next`): a walk along a chain, whose next look is no other object's value to
    /// combine with the last.
    walks: u64,
    out: NodeOut,
}

impl Run<'_> {
    fn control(&self, at: u32) -> Val {
        self.control_of(self.block_of[at as usize] as usize, 0)
    }

    /// What a wait's guard established, at `at` after the guard (past the loop or the `if`,
    /// no longer deciding `at` by control): the code after `while (count == 0) wait();` acts on
    /// `count > 0`. Only once the guard's region is left, where nothing re-checks it: an action
    /// in the next critical section (`synchronized (this) { if (count == 0) wait(); }
    /// synchronized (this) { count--; .. }`) is decided by a look another consumer may have made
    /// stale. Inside the region the guard holds, as the monitor's contract says.
    fn wait_post(&self, at: u32) -> Val {
        let block = self.block_of[at as usize];
        let mut post = Val::default();
        for (br, dominated) in &self.wait_guards {
            let after = dominated.get(block as usize).copied().unwrap_or(false)
                && self.block_of[*br as usize] != block
                && !(self.ctrl.get(block as usize)).is_some_and(|c| c.branches.contains(br));
            if let (true, Some(c)) = (after, self.branch.get(br)) {
                post = post.or(*c);
            }
        }
        post.data = 0;
        post
    }

    /// Marks as left the sources of condition `ctl` at `at` (recording pass) whose region is no
    /// longer held there: a test made inside a critical section (`synchronized (this) { if
    /// (map.containsKey(k)) return; }`) decides what follows the section as a look that left
    /// it, as the value would had it been copied out to be tested after the exit. (A value
    /// leaves at the exit through [`Run::region`]; a condition tested inside the region is no
    /// value of any register there.)
    fn exited(&mut self, ctl: &mut Val, at: u32, record: bool) {
        let inside = ctl.src & self.atomic & !ctl.left;
        for b in bits(inside) {
            let Some(o) = self.outer_of(b) else {
                continue;
            };
            if o == CALLER_SITE || self.held.contains(&o) {
                continue;
            }
            ctl.left |= 1 << b;
            ctl.again &= !(1 << b);
            if record && self.left_at[b] == NO_LEFT {
                self.left_at[b] = self.exit_at.get(&o).copied().unwrap_or(at);
            }
        }
    }

    /// [`Self::control`] of a block; `depth`: flags followed to get here ([`Self::taken`]).
    fn control_of(&self, block: usize, depth: u8) -> Val {
        let mut v = Val::default();
        let mut again = 0;
        if let Some(bs) = self.ctrl.get(block) {
            for (b, &edge) in bs.branches.iter().zip(&bs.edges) {
                if let Some(c) = self.branch.get(b) {
                    let mut t = self.taken(*b, edge, *c, depth);
                    let edge_owned = self.owned_edges.get(&(*b, edge)).copied().unwrap_or(0);
                    t.mine |= (edge_owned | self.owned_at(block, t.src)) & t.src;
                    v = v.or(t);
                }
            }
            // The conditions a block depends on are not all on one path (a block after a join
            // depends on the conditions of both arms): a source read again counts only from
            // the one condition every path to the block passes (`if (size > 0)` in this loop
            // iteration, under a loop condition on the last iteration's value).
            if bs.direct == 1 {
                if let (Some(b), Some(&edge)) = (bs.branches.first(), bs.edges.first()) {
                    if let Some(c) = self.branch.get(b) {
                        again = self.taken(*b, edge, *c, depth).current();
                    }
                }
            }
        }
        v.again = v.left & again;
        // A condition reaches what it controls by control alone.
        v.data = 0;
        v
    }

    /// The condition `c` of the branch at `br` as the block reached through its successor
    /// `edge` sees it: when `c` is a flag ([`Val::flag`]) and one constant alone takes the
    /// branch that way, only the conditions under which that constant was made.
    fn taken(&self, br: u32, edge: u32, c: Val, depth: u8) -> Val {
        match self.flag_site(br, edge, &c) {
            Some(site) if depth < 4 => {
                let made = self.control_of(self.block_of[site as usize] as usize, depth + 1);
                let mut v = c.keep(made.src);
                v.mine |= made.mine & v.src;
                v
            }
            _ => c,
        }
    }

    /// The looks among `srcs` that are the thread's own in `block`: a look at a variable inside
    /// a region, followed in that region by a write of the variable ([`Run::region_sets`]) that
    /// every path from the look to `block` goes through. The look and the write are one atomic
    /// step, like a `compareAndSet` or a `getAndSet`: where the write was made, the look is the
    /// outcome of the thread's own update (`if (emitting) { ..; return; } emitting = true; ..
    /// drain();`, also behind a compound test, whose other conditions carry the look too), and
    /// what it decides after the region is the thread's own decision ([`Val::mine`]).
    fn owned_at(&self, block: usize, srcs: u64) -> u64 {
        (self.region_sets.iter())
            .filter(|w| w.2.get(block).copied().unwrap_or(false))
            .fold(0, |m, w| m | (w.1 & srcs))
    }

    /// The region whose exit makes source `b` leave ([`Run::source`]'s `outer`).
    fn outer_of(&self, b: usize) -> Option<u32> {
        let bit = 1u64 << b;
        (self.exit_mask.iter()).find_map(|(&site, &m)| (m & bit != 0).then_some(site))
    }

    /// The sources of `mask` that are looks at `var` read in the region `site`.
    fn looks_in(&self, mask: u64, var: Var, site: u32) -> u64 {
        bits(mask & self.atomic)
            .filter(|&b| {
                self.outer_of(b) == Some(site)
                    && matches!(self.srcs[b], Src::Atomic(g) if g.var == var)
            })
            .fold(0, |m, b| m | 1 << b)
    }

    /// Notes a write of `var` at `at` in the own region `site` ([`Run::region_sets`],
    /// [`Run::owned_edges`]).
    fn note_test_and_set(&mut self, at: u32, var: Var, site: u32) {
        let block = self.block_of[at as usize];
        // The looks made before the write: read here (or through the call) earlier in the
        // write's block, or in a block that dominates it.
        let mut from_blocks: Vec<u32> = Vec::new();
        let looks = bits(self.looks_in(self.control(at).current(), var, site))
            .filter(|&b| {
                let look = match self.srcs[b] {
                    _ if self.via[b] != NO_LEFT => self.via[b],
                    Src::Atomic(g) if g.loc.method == self.id => g.loc.at,
                    _ => return false,
                };
                let from = self.block_of[look as usize];
                let before = if from == block {
                    look < at
                } else {
                    self.cfg.dominates(from, block)
                };
                if before && !from_blocks.contains(&from) {
                    from_blocks.push(from);
                }
                before
            })
            .fold(0, |m, b| m | 1 << b);
        if looks != 0 {
            let known = self.region_sets.iter().position(|w| w.0 == at);
            if known.is_some_and(|i| self.region_sets[i].1 & looks == looks) {
                return self.note_owned_edge(at, var, site);
            }
            // Where the write was made on every path from the looks: the blocks it dominates,
            // and the blocks every path from each look enters through it (the next round of a
            // loop whose test-and-set ends this one: `if (busy) break; busy = true;`).
            let mut through = self.cfg.dominated_by(block);
            let mut from_each = (from_blocks.iter()).map(|&f| self.cfg.passed_from(f, block));
            if let Some(first) = from_each.next() {
                let all = from_each.fold(first, |acc, v| {
                    acc.iter().zip(&v).map(|(a, b)| *a && *b).collect()
                });
                for (t, a) in through.iter_mut().zip(all) {
                    *t = *t || a;
                }
            }
            match known {
                Some(i) => {
                    // Owned where it was for the earlier looks too.
                    let w = &mut self.region_sets[i];
                    w.1 |= looks;
                    for (t, n) in w.2.iter_mut().zip(through) {
                        *t = *t && n;
                    }
                }
                None if self.region_sets.len() < 64 => {
                    (self.region_sets).push((at, looks, through));
                }
                None => {}
            }
        }
        self.note_owned_edge(at, var, site);
    }

    /// [`Run::owned_edges`] for a write of `var` at `at` in the own region `site`.
    fn note_owned_edge(&mut self, at: u32, var: Var, site: u32) {
        let block = self.block_of[at as usize];
        let Some(c) = self.ctrl.get(block as usize).filter(|c| c.direct == 1) else {
            return;
        };
        let (br, edge) = (c.branches[0], c.edges[0]);
        let Some(look) = self.branch.get(&br) else {
            return;
        };
        let m = self.looks_in(look.current(), var, site);
        if m != 0 {
            *self.owned_edges.entry((br, edge)).or_default() |= m;
        }
    }

    /// What the conditional branch at `br` tests, and whether it jumps, when it goes to its
    /// successor `edge` (one successor: not [`crate::bytecode::cfg::EDGES`]).
    fn way(&self, br: u32, edge: u32) -> Option<(crate::bytecode::Cond, bool)> {
        let Op::If { target, cond, .. } = self.code.insns.get(br as usize)?.op else {
            return None;
        };
        (edge != crate::bytecode::cfg::EDGES)
            .then(|| (cond, Some(&edge) == self.block_of.get(target as usize)))
    }

    /// The instruction that made the one constant of flag `c` with which the branch at `br`
    /// goes to its successor `edge`, if one alone does.
    fn flag_site(&self, br: u32, edge: u32, c: &Val) -> Option<u32> {
        use crate::bytecode::Cond;
        let flag = c.flag?;
        if let Some(&Op::Switch(table)) = self.code.insns.get(br as usize).map(|i| &i.op) {
            return self.switch_site(table, edge, &flag);
        }
        let (cond, jumps) = self.way(br, edge)?;
        let site = match (case_taken(cond, jumps), cond) {
            (Some(k), _) => case_site(&flag, k),
            // Not null: a constant of either other case.
            (None, Cond::Null | Cond::NonNull) => match (flag[ZERO], case_site(&flag, NONZERO)) {
                (x, NONE) | (NONE, x) => x,
                _ => MANY,
            },
            // Compared with a constant (`if (action == START)`, or `START == action`, the
            // constant pushed first): the one constant that is that constant, or the one that
            // is not.
            (None, Cond::Same | Cond::Differ) => {
                let k = self.compared_with(br)?;
                let equal = (cond == Cond::Same) == jumps;
                // A constant of unknown value may be either.
                one_site(&flag, |s| {
                    Some(self.const_key(s).is_none_or(|x| (x == k) == equal))
                })?
            }
            _ => return None,
        };
        (site < MANY).then_some(site)
    }

    /// The constant a code is compared with by the two-value branch at `br`: pushed right before
    /// it (`iload; iconst_1; if_icmpne`) or right before the code's own load (`iconst_1; iload;
    /// if_icmpne`), as [`Run::step`] kept the code's flag for the branch.
    fn compared_with(&self, br: u32) -> Option<Key<'_>> {
        let before = br.checked_sub(1)?;
        match self.const_key(before) {
            Some(k) => Some(k),
            None => match self.code.insns.get(before as usize)?.op {
                Op::Load(..) => self.const_key(before.checked_sub(1)?),
                _ => None,
            },
        }
    }

    /// The one constant of flag `f` with which the switch `table` goes to block `edge`: the
    /// one whose value is a case leading there, or, to the default's block, the one that is no
    /// case at all (a constant of unknown value may be either).
    fn switch_site(&self, table: u32, edge: u32, f: &[u32; FLAG_SLOTS]) -> Option<u32> {
        if edge == crate::bytecode::cfg::EDGES {
            return None;
        }
        let targets = self.code.switch_targets(table);
        let keys = self.code.switch_keys(table);
        let block = |t: u32| self.block_of.get(t as usize).copied();
        let to_edge: Vec<i32> = (keys.iter().zip(targets.get(1..)?))
            .filter(|&(_, &t)| block(t) == Some(edge))
            .map(|(&k, _)| k)
            .collect();
        let default = block(*targets.first()?) == Some(edge);
        one_site(f, |s| match self.const_key(s) {
            Some(Key::Int(v)) => Some(to_edge.contains(&v) || (default && !keys.contains(&v))),
            Some(_) => None,
            None => Some(true),
        })
    }

    /// The constant the instruction at `at` pushes, as a comparison tells it apart: `null`, an
    /// `int` whose value the decoder kept ([`crate::bytecode::BitFact::Int`]; `0` and `false`
    /// always), or an enum constant ([`Run::code_constant`]).
    fn const_key(&self, at: u32) -> Option<Key<'_>> {
        use crate::bytecode::{BitFact, Konst};
        match self.code.insns.get(at as usize)?.op {
            Op::Flag(Konst::Null) => Some(Key::Null),
            Op::Flag(Konst::Zero) => Some(Key::Int(0)),
            Op::Flag(Konst::NonZero) => match self.code.bit_fact(at)? {
                BitFact::Int(v) => Some(Key::Int(v)),
                _ => None,
            },
            Op::GetStatic(r) if self.code_constant(r) => {
                let m = self.class.member(r);
                Some(Key::Static(&m.class, &m.name))
            }
            _ => None,
        }
    }

    /// Whether static field reference `r` reads an object that stands for one value of a code:
    /// a static final field of the program that holds its own class's objects (an enum
    /// constant, `Mode.START`), compared by identity.
    fn code_constant(&self, r: crate::bytecode::RefId) -> bool {
        let m = self.class.member(r);
        let own_type =
            m.desc.strip_prefix('L').and_then(|d| d.strip_suffix(';')) == Some(&*m.class);
        own_type
            && (self.p.field_owner(&m.class, &m.name)).is_some_and(|(ci, fi)| {
                let f = &self.p.class(ci).fields[fi as usize];
                f.access & (crate::bytecode::acc::STATIC | crate::bytecode::acc::FINAL)
                    == crate::bytecode::acc::STATIC | crate::bytecode::acc::FINAL
            })
    }

    /// The control sources that count for flows: conditions on values read in this method or
    /// returned by a callee that only queried them (`if (!isLoaded()) load()`). A condition on
    /// the outcome of a callee's own update (`if (tryAcquire()) release()`: it read and wrote
    /// the state) is the thread's own decision, not a snapshot acted upon.
    fn ctl_flow(&self, ctl: Val) -> Val {
        Val {
            src: ctl.src & !self.own_outcome,
            data: 0,
            left: ctl.left & !self.own_outcome,
            again: ctl.again & !self.own_outcome,
            field: 0,
            local: false,
            born: 0,
            alloc: 0,
            base: 0,
            flag: None,
            mine: ctl.mine,
        }
    }

    fn loc(&self, at: u32) -> Loc {
        Loc {
            method: self.id,
            at,
        }
    }

    /// The bit of a source (allocated on first use; 0 when the method has too many).
    /// `outer`: the region whose exit makes the value leave; `None`: it has left already.
    fn source(&mut self, key: (u32, u32), s: Src, outer: Option<u32>) -> u64 {
        if let Some(&b) = self.keys.get(&key) {
            return 1 << b;
        }
        if self.srcs.len() >= 64 {
            return 0;
        }
        let b = self.srcs.len();
        self.srcs.push(s);
        self.keys.insert(key, b as u8);
        let bit = 1u64 << b;
        if key.1 > 0 {
            self.imported |= bit;
            self.via[b] = key.0;
        }
        match s {
            Src::Atomic(_) => {
                self.atomic |= bit;
                if let Some(o) = outer {
                    *self.exit_mask.entry(o).or_default() |= bit;
                }
            }
            Src::Plain(..) | Src::Param | Src::Outcome(..) => {}
        }
        bit
    }

    /// Whether the call at `at` looks up the calling thread's own entry: its one argument, the
    /// key, is the calling thread or its id ([`Run::names_me`]: `map.get(Thread.currentThread())`,
    /// `byId.get(id)` after `long id = currentThreadId();`). No other thread uses that key, so
    /// what the look finds is the thread's own, not a snapshot of shared state (a hand-rolled
    /// `ThreadLocal`).
    fn own_entry(&self, at: u32, inputs: &[Val]) -> bool {
        inputs.len() == 2 && at > 0 && self.names_me(at - 1, 1)
    }

    /// Whether the instruction at `at` pushes the calling thread or its id: `Thread
    /// .currentThread()`, its `getId()` or `threadId()`, boxed or not, a call of a helper that
    /// only returns one of those ([`returns_me`]), or a load of a local every store of which
    /// stores one of those (`depth`: locals still to follow). A value computed from the thread
    /// otherwise (its name, its class loader, an id modulo a count) may be shared by several
    /// threads and is not one.
    fn names_me(&self, at: u32, depth: u8) -> bool {
        let insns = &self.code.insns;
        let Some(op) = insns.get(at as usize).map(|i| &i.op) else {
            return false;
        };
        match *op {
            Op::Invoke(kind, r) => {
                let m = self.class.member(r);
                match kind {
                    crate::bytecode::InvokeKind::Static if &*m.name == "valueOf" => {
                        at > 0 && m.arg_slots <= 2 && self.names_me(at - 1, depth)
                    }
                    crate::bytecode::InvokeKind::Static => {
                        is_current_thread(&m.class, &m.name)
                            || (self.p.resolved(self.id.class, r))
                                .is_some_and(|t| returns_me(self.p, t))
                    }
                    _ => {
                        is_thread_id(&m.class, &m.name)
                            && at > 0
                            && matches!(insns[at as usize - 1].op,
                                Op::Invoke(crate::bytecode::InvokeKind::Static, c)
                                    if { let c = self.class.member(c); is_current_thread(&c.class, &c.name) })
                    }
                }
            }
            Op::Load(slot, _) if depth > 0 => {
                let stores: Vec<usize> = (insns.iter().enumerate())
                    .filter(|(_, x)| matches!(x.op, Op::Store(s, _) if s == slot))
                    .map(|(i, _)| i)
                    .collect();
                !stores.is_empty()
                    && stores
                        .iter()
                        .all(|&i| i > 0 && self.names_me(i as u32 - 1, depth - 1))
            }
            _ => false,
        }
    }

    fn own(site: Option<u32>) -> Option<u32> {
        site.filter(|&s| s != CALLER_SITE)
    }

    /// Sources `mask` read a field of the object in slot `on - 1` (0: unknown).
    fn mark_on(&mut self, mask: u64, on: u8) {
        for b in bits(mask) {
            let cur = &mut self.src_on[b];
            *cur = if *cur == UNSET || *cur == on { on } else { 0 };
        }
    }

    /// Record for the callers that access `g` of an own region is made on the object `on`.
    fn note_on(&mut self, g: GAccess, on: u8) {
        if on != 0 {
            push_capped(&mut self.out.summary.bases, (g, on));
        }
    }

    /// Whether source `b` was read from another object than the one written (`on`): both
    /// known, as different parameters (`this.add(other.samples.get(i))`). The same field of two
    /// objects is one variable; a value of one object's state copied into the other's is not
    /// a stale value of either.
    fn other_object(&self, b: usize, on: u8) -> bool {
        let from = self.src_on[b];
        on != 0 && from != 0 && from != UNSET && from != on
    }

    /// A read of `var` at `at`: atomic inside an own region, else plain.
    fn read(&mut self, at: u32, var: Var, region: Option<u32>, outer: Option<u32>) -> Val {
        match Self::own(region) {
            Some(site) => {
                let g = GAccess {
                    var,
                    node: self.node,
                    site,
                    loc: self.loc(at),
                };
                let bit = self.source((at, 0), Src::Atomic(g), Some(outer.unwrap_or(site)));
                Val {
                    src: bit,
                    data: bit,
                    ..Val::default()
                }
            }
            None => {
                let bit = self.source((at, 0), Src::Plain(var, self.loc(at)), None);
                if region.is_none() {
                    self.unlocked |= bit;
                }
                Val {
                    src: bit,
                    data: bit,
                    ..Val::default()
                }
            }
        }
    }

    fn access(&mut self, at: u32, var: Var, kind: u8, extra: Option<u32>) {
        let mut held = self.held.clone();
        held.extend(extra);
        self.out.accesses.push(Acc {
            at,
            var,
            kind,
            held: held.into(),
        });
    }

    /// A write of `var` a callee makes with no region of its own, in this method's region
    /// `outer` (`synchronized void start() { moveTo(RUNNING); }`): an access of that region
    /// here, so that its view writes `var` ([`region_views`]) where the views' own scopes do
    /// not reach (a `volatile` field, an array's elements, a thread-safe object's state, a
    /// plain collection's contents: what this analysis alone follows).
    fn helper_write(&mut self, at: u32, var: Var, outer: Option<u32>) {
        if followed_only(self.fields, var) && Self::own(outer).is_some() {
            self.access(at, var, WRITE, None);
        }
    }

    /// The definition of a value at `at` (recording pass): two reads of different globals
    /// combine; two parameters combine.
    fn define(&mut self, at: u32, v: Val, written: Option<Var>) {
        self.object_split(at, v, written);
        self.pair_reads(at, v, written, false);
        let ps = v.src & PARAM_MASK;
        if ps.count_ones() >= 2 {
            let ps: Vec<usize> = bits(ps).collect();
            for i in 0..ps.len() {
                for j in i + 1..ps.len() {
                    push_capped(
                        &mut self.out.summary.param_pairs,
                        (ps[i] as u8, ps[j] as u8),
                    );
                }
            }
        }
    }

    /// The pairs of reads of different globals that `v`, defined at `at`, combines: into
    /// [`NodeOut::combines`], or where `gathered` (values only handed together to a new
    /// object's constructor) into [`NodeOut::gathers`].
    fn pair_reads(&mut self, at: u32, v: Val, written: Option<Var>, gathered: bool) {
        let a = v.src & self.atomic;
        if a.count_ones() >= 2 {
            // (read, the call it was imported through, where its instances may be: `NO_LEFT`
            // inside their region, or the place where they left it). An instance that left and
            // was read again since ([`Val::again`]: this iteration's look, in this region) may be
            // either, as for a stale value's decision; several instances of one variable are
            // where all of them may be (nowhere: they left at different places).
            let mut reads: Vec<(GAccess, u32, Places)> = Vec::new();
            // A source the value carries as the thread's own (taken out by a read-modify-write,
            // a test-and-set's look: `Val::mine`) is no snapshot that another thread's update
            // can leave half old.
            for b in bits(a & !self.rechecked_looks_in(v) & !v.mine) {
                if let Src::Atomic(g) = self.srcs[b] {
                    // A plain collection's contents are followed as values (stale across
                    // critical sections), not paired with other fields: the high-level data
                    // races stay those of fields and thread-safe objects.
                    if var_kind(g.var) == CONTENTS {
                        continue;
                    }
                    let bit = 1u64 << b;
                    let places = if v.left & bit == 0 {
                        Places::one(NO_LEFT)
                    } else if v.again & bit != 0 {
                        Places::two(self.left_at[b], NO_LEFT)
                    } else {
                        Places::one(self.left_at[b])
                    };
                    if let Some(r) = reads.iter_mut().find(|r| r.0.var == g.var) {
                        r.2 = r.2.and(places);
                    } else if reads.len() < 8 {
                        reads.push((g, self.via[b], places));
                    }
                }
            }
            for i in 0..reads.len() {
                for j in i + 1..reads.len() {
                    // Both from one callee's return: combined there already (or not at all).
                    if reads[i].1 != NO_LEFT && reads[i].1 == reads[j].1 {
                        continue;
                    }
                    let (x, y) = if reads[i].0.var < reads[j].0.var {
                        (reads[i].0, reads[j].0)
                    } else {
                        (reads[j].0, reads[i].0)
                    };
                    if written == Some(x.var) || written == Some(y.var) {
                        continue;
                    }
                    // Read in separate critical sections: no place where both may be (one
                    // value left its region and the other did not, or they left at different
                    // places). Two values still inside, or that left one region together, were
                    // read in one.
                    let split = reads[i].2.and(reads[j].2).is_empty();
                    let list = if gathered {
                        &mut self.out.gathers
                    } else {
                        &mut self.out.combines
                    };
                    if list.len() < 4 * MAX_LIST
                        && self.combined.insert((x.var, y.var, split, gathered))
                    {
                        list.push(Combine {
                            at,
                            a: x,
                            b: y,
                            split,
                        });
                    }
                }
            }
        }
    }

    /// [`NodeOut::object_splits`] of the definition of `v` at `at`: a read whose instance of
    /// the last round (left its region) and of this round (current) both reach it as data, on
    /// an object the loop changes. Written back to its own variable it is a lost update, the
    /// stale value's (not a combination over objects).
    fn object_split(&mut self, at: u32, v: Val, written: Option<Var>) {
        let both = v.data & v.left & v.again & self.atomic & !v.mine & !self.walks;
        for b in bits(both) {
            let Src::Atomic(g) = self.srcs[b] else {
                continue;
            };
            let kind = var_kind(g.var);
            let field = var_field(g.var);
            let (fc, fi) = self.fields.owner(field);
            let fixed = self.src_on[b] != 0
                || self.p.class(fc).fields[fi as usize].access & crate::bytecode::acc::STATIC != 0;
            if fixed || !(kind == FIELD || kind == STATE) || written == Some(g.var) {
                continue;
            }
            if self.out.object_splits.len() < MAX_LIST
                && !self.out.object_splits.iter().any(|(c, _)| c.a.var == g.var)
            {
                let around: Box<[u32]> = (self.held.iter().copied())
                    .filter(|&h| h != g.site && self.cfg.runs_once(h))
                    .collect();
                let c = Combine {
                    at,
                    a: g,
                    b: g,
                    split: true,
                };
                self.out.object_splits.push((c, around));
            }
        }
    }

    /// A write of `var` at `at` in own region `site` on the object whose data sources are
    /// `object`: with an earlier write of it in that region on another object, an entry of
    /// [`NodeOut::multi_writes`]. Objects told apart by where they come from (two parameters,
    /// two elements taken by different indices); one with no sources is not named.
    fn region_object(&mut self, site: u32, var: Var, object: u64, at: u32) {
        if object == 0 {
            return;
        }
        let g = GAccess {
            var,
            node: self.node,
            site,
            loc: self.loc(at),
        };
        match self.region_objects.get(&(site, var)) {
            None => {
                self.region_objects.insert((site, var), (object, g));
            }
            Some(&(first, w)) => {
                if first != object
                    && self.out.multi_writes.len() < MAX_LIST
                    && !(self.out.multi_writes.iter()).any(|m| m.0 == site && m.1.var == var)
                {
                    self.out.multi_writes.push((site, w, g));
                }
            }
        }
    }

    /// The looks of value `v` that are superseded where it is defined: a look that left its
    /// region and only decides (a condition on it, not data), at a variable that a current look
    /// decides on too (double-checked: `if (!done.get()) synchronized (this) { if (!done.get())
    /// use(ref.get()); }`). The value is made where the fresh look holds, as in a stale value's
    /// re-check ([`Run::flow`]); the old look adds no state of its own to combine.
    fn rechecked_looks_in(&self, v: Val) -> u64 {
        let looks = v.src & self.atomic & !v.data;
        let current = looks & v.current();
        let mut out = 0;
        for b in bits(looks & !current) {
            let var = self.src_var(b);
            if var.is_some() && bits(current).any(|c| self.src_var(c) == var) {
                out |= 1 << b;
            }
        }
        out
    }

    /// A value `v` is written into `dst`, inside a region (recording pass). Only a value of the
    /// variable written makes an edge: the stale value goes back where it came from (a lost
    /// update), or decides a write of the state it was read from (check-then-act). A value of
    /// one variable copied into another is not a stale value of either: it makes a link
    /// ([`NodeOut::links`]), as does any edge into a write further down ([`Edge::Deeper`]).
    ///
    /// A stale value that meets a fresh read of the same variable (the write's region re-reads
    /// it and compares, or decides on the new value too: double-checked) is superseded by it.
    /// `data`: the sources that reach the write as data (the others, through a condition).
    ///
    /// A value this method read outside every region (a check made without the lock, with no
    /// caller holding one either) is stale from the start: it makes an edge into a region that
    /// writes the variable just the same.
    /// `on`: the object written, as in [`Run::src_on`]; `edge`: what the destination is.
    fn flow(
        &mut self,
        v: Val,
        data: u64,
        (dst, on): (GAccess, u8),
        (entry_at, enter_site): (u32, u32),
        edge: Edge,
    ) {
        let v = v.or(self.post);
        // What the thread took out is its own ([`Val::mine`], and an atomic scalar's
        // `Src::Outcome`: `incrementAndGet`, `getAndSet`), to decide on and to hand on. Stored
        // back by this method as the variable's new value in a later region (`n =
        // live.incrementAndGet(); if (n > max) live.set(n - 1);`, `count = n - 1`), it
        // overwrites what other threads stored since, as a snapshot would: a lost update. Not
        // an amount applied to the current value (`addAndGet`, a store that reads the variable
        // afresh), not a callee's store (it may apply the amount to the current value), and
        // not what an update took out leaving the variable empty (`buf =
        // spare.getAndSet(null)`: put back, it is the object returned).
        let (stored_back, outcomes) = if edge == Edge::Write && dst.loc.method == self.id {
            let mine = bits(v.mine & data & v.left & self.atomic)
                .filter(|&b| self.src_var(b) == Some(dst.var))
                .fold(0u64, |m, b| m | 1 << b);
            let outcomes = if self.scalar_store_at(entry_at) {
                bits(v.src & data & !self.atomic & !self.flowed)
                    .filter(|&b| {
                        matches!(self.srcs[b], Src::Outcome(x, at)
                            if x == dst.var && at != entry_at && !self.takes_out(at))
                    })
                    .fold(0u64, |m, b| m | 1 << b)
            } else {
                0
            };
            (mine, outcomes)
        } else {
            (0, 0)
        };
        let stale = (((v.left & self.atomic) | (v.src & self.unlocked))
            & !self.flowed
            & (!v.mine | stored_back))
            | outcomes;
        if stale == 0 {
            return;
        }
        // Fresh reads of each variable: any, and those that decide (a re-check). A decision on
        // a stale value is superseded only by a fresh decision, not by a fresh read that is
        // written (`if (used < limit) synchronized (this) { used++; }` still acts on the
        // unlocked check).
        let fresh = |mask: u64| -> Vec<Var> {
            bits(mask & self.atomic & v.current())
                .filter_map(|b| match self.srcs[b] {
                    Src::Atomic(g) => Some(g.var),
                    _ => None,
                })
                .collect()
        };
        let current = fresh(v.src);
        // A fresh look that decides, also when its value is written too (`instance =
        // singleton; if (instance == null) { ..; singleton = instance; }` under the lock).
        let decides = self.ctl_flow(self.control(entry_at)).src;
        let rechecked = fresh(v.src & (!data | decides));
        // A version that validates the snapshot: a look at another variable read in the same
        // region as the stale source and leaving it at the same place (`seen = version; v =
        // value.clone();`) that decides the write together with a fresh read of that variable
        // (`if (version == seen) value = v;`), in a region of this method that moves the
        // version on too (`version = seen + 1`). Equal versions say nothing was written since
        // the snapshot: it is current, as a compare-and-set's expected value is where it wins.
        let raw_guard = if edge == Edge::Write && dst.node == self.node && stale != 0 {
            self.guards(entry_at)
        } else {
            Val::default()
        };
        let guard = self.ctl_flow(raw_guard);
        // Where control dependence sees no condition of the write at all (a retry loop left
        // only by its success path: `while (true) { seen = version; ..; synchronized (this) {
        // if (version == seen) { ..; return; } } }`), a fresh look of the write's own region on
        // a branch that guards it decides it again: the earlier round's look that led back to
        // the loop is superseded, and so is the stale value the guard compares with the fresh
        // look (`version = seen + 1` there writes what the version still is, plus one). Only
        // there: elsewhere the write's own conditions say what decides it, and a guard's fresh
        // read may only index what does (`for (n = buckets[bucket]; n != null; ..)` before
        // `bucket++`). The look must be of the write's region: the guard's value was recorded
        // at the branch, where a look of an earlier region had not left yet.
        let unseen = self
            .ctrl
            .get(self.block_of[entry_at as usize] as usize)
            .is_some_and(|c| c.branches.is_empty());
        let guarded: Vec<Var> = bits(guard.current() & self.atomic)
            .filter(|&b| unseen && self.outer_of(b) == Some(dst.site))
            .filter_map(|b| match self.srcs[b] {
                Src::Atomic(g) => Some(g.var),
                _ => None,
            })
            .collect();
        // A look that only decided the write (`if (cached == null || cached.version !=
        // version)`, then `if (version == v) cached = s;`) needs no move of the version: what
        // another thread may have done meanwhile is the same act for the same version. Nor
        // does a value written into another variable (a summary of the snapshot cached under
        // the version it was taken at): two installs of one version install the same summary,
        // and overwrite no update of the snapshot's own variable.
        let versioned = |b: usize, src: &GAccess, check: bool| {
            bits(guard.src & guard.left & self.atomic).any(|k| {
                matches!(self.srcs[k], Src::Atomic(g)
                if g.var != src.var
                    && g.node == src.node
                    && g.site == src.site
                    && self.left_at[k] == self.left_at[b]
                    && (check
                        || src.var != dst.var
                        || self.region_writes.contains(&(g.var, dst.site)))
                    && bits(guard.current() & self.atomic).any(|f| {
                        matches!(self.srcs[f], Src::Atomic(h) if h.var == g.var)
                    }))
            })
        };
        let cleared = (edge == Edge::Write)
            .then(|| self.cleared_at(entry_at))
            .flatten();
        // The region's own claim (see [`Flow::claim`]): a current look at another variable
        // that the write's region writes too, made in that region, deciding the write.
        let claim = (edge == Edge::Write && dst.node == self.node)
            .then(|| {
                bits(self.control(entry_at).current() & self.atomic).find_map(|b| {
                    match self.srcs[b] {
                        Src::Atomic(g)
                            if g.var != dst.var
                                && self.outer_of(b) == Some(dst.site)
                                && self.region_writes.contains(&(g.var, dst.site))
                                && !self.fails_by_throwing(entry_at, g.var) =>
                        {
                            Some(g.var)
                        }
                        _ => None,
                    }
                })
            })
            .flatten();
        for b in bits(stale) {
            if self.out.flows.len() >= MAX_LIST {
                break;
            }
            let outcome = match self.srcs[b] {
                Src::Outcome(var, at) if outcomes & (1 << b) != 0 => Some(GAccess {
                    var,
                    node: self.node,
                    site: at,
                    loc: self.loc(at),
                }),
                _ => None,
            };
            let Some((src, unlocked)) = outcome.map(|g| (g, false)).or_else(|| self.read_access(b))
            else {
                continue;
            };
            let check = data & (1 << b) == 0;
            // A getter's look counts where it decides the write here, not as what a callee's
            // write is computed from.
            if self.got & (1 << b) != 0 && decides & (1 << b) == 0 {
                continue;
            }
            let index = edge == Edge::Index;
            let require = edge == Edge::Require;
            // An object read from a field and replaced in the same region (`n = head; head =
            // null;`: the list detached) is taken out, this thread's own, like the element a
            // `poll()` hands over: a decision on it is not a stale look at the field. (Written
            // back as data, it still overwrites what others put there meanwhile.)
            if check
                && self.objects & (1 << b) != 0
                && self.region_writes.contains(&(src.var, src.site))
            {
                continue;
            }
            // A look that the same call made on an earlier round, which only decided to make
            // the call again (`while ((x = unlinkFirst()) == null) notEmpty.await();`): the
            // call looks again at what it acts on.
            if check && self.imported & (1 << b) != 0 && self.via[b] == entry_at {
                continue;
            }
            // A look that saw a one-way variable's last value decides on what no thread can
            // change any more.
            if check && self.terminal_look(b, src.var, entry_at) {
                continue;
            }
            // A clearing write decided only by a look that saw the variable set: whatever another
            // thread stored meanwhile, the variable ends cleared, as a fresh look would have it.
            if check && cleared.is_some_and(|c| self.clears_what_it_saw(b, (entry_at, dst.site), c))
            {
                continue;
            }
            let superseded = if check {
                rechecked.contains(&src.var) || guarded.contains(&src.var)
            } else {
                current.contains(&src.var)
                    || (raw_guard.data & (1 << b) != 0 && guarded.contains(&src.var))
            };
            if !unlocked && src.node == self.node && versioned(b, &src, check) {
                push_capped(&mut self.out.validated, (src.site, dst.site));
                continue;
            }
            // The variable looked at again where the write is decided (`if (version == v)
            // cachedVersion = v;`): validated too.
            if !unlocked
                && src.node == self.node
                && (rechecked.contains(&src.var) || guarded.contains(&src.var))
            {
                push_capped(&mut self.out.validated, (src.site, dst.site));
            }
            if superseded
                || self.other_object(b, on)
                || self.decided_by_outcome(entry_at, b, src.var)
                || (!unlocked && versioned(b, &src, check))
            {
                continue;
            }
            // A field initialized once changes once, under a look of its writer's own: a
            // stale look at it is checked again where it is written ([`FieldTable::is_once`]).
            // It stays a look that decides another variable's write.
            let once = var_kind(src.var) == FIELD && self.fields.is_once(var_field(src.var));
            if once && src.var == dst.var {
                continue;
            }
            // Nor can a look that found it set go stale: only one that found it unset decides
            // on what its one write changes (`if (closed) throw ..;` before a subscriber is
            // added, not `if (!initialized) return;` before the work it enables).
            if once
                && !(check
                    && self.look_went(b, entry_at, false, |cond, jumps| {
                        matches!(case_taken(cond, jumps), Some(ZERO | NULL))
                    }))
            {
                continue;
            }
            let flow = Flow {
                src,
                // An unlocked look a getter made: the call that made it, here.
                left_at: if unlocked {
                    (self.got & (1 << b) != 0).then_some(self.via[b])
                } else {
                    (self.left_at[b] != NO_LEFT).then_some(self.left_at[b])
                },
                dst,
                entry_at,
                enter_site,
                check,
                unlocked,
                index,
                require,
                claim: claim.filter(|_| check),
            };
            if src.var != dst.var || edge == Edge::Deeper {
                if self.out.links.len() < MAX_LIST {
                    self.out.links.push(flow);
                }
                continue;
            }
            if !index && !require {
                self.flowed |= 1 << b;
            }
            self.out.flows.push(flow);
        }
    }

    /// Whether the instruction at `at` stores its argument as an atomic scalar's new value in
    /// place of the old one (`set`, `getAndSet`; not the single writer's `lazySet` idiom, nor a
    /// compare-and-set, which checks what it replaces).
    fn scalar_store_at(&self, at: u32) -> bool {
        let Some(&Op::Invoke(crate::bytecode::InvokeKind::Virtual, r)) =
            self.code.insns.get(at as usize).map(|i| &i.op)
        else {
            return false;
        };
        let m = self.class.member(r);
        let ts = &self.p.thread_safe;
        ts.is_scalar(&m.class)
            && ts.is_scalar_set(&m.name)
            && !ts.is_publish(&m.name)
            && !ts.is_validating(&m.name, &m.desc)
    }

    /// Whether the call at `at` swaps in `null` or zero (`getAndSet(null)`): it takes the value
    /// out and leaves the variable empty.
    fn takes_out(&self, at: u32) -> bool {
        (at as usize).checked_sub(1).is_some_and(|k| {
            matches!(
                crate::analysis::sharing::konst_at(self.class, self.code, k),
                Some(crate::bytecode::Konst::Null | crate::bytecode::Konst::Zero)
            )
        })
    }

    /// The conditions of the branches that guard the instruction at `at`: one way out of the
    /// branch leads only there (its successor, reached from the branch alone, dominates `at`),
    /// also where control dependence sees none (a retry loop left only by the success path:
    /// `while (true) { ..; synchronized (this) { if (version == seen) { ..; return; } } }`), with
    /// the values they compare as data.
    fn guards(&self, at: u32) -> Val {
        let block = self.block_of[at as usize];
        let blocks = &self.cfg.blocks;
        // How many blocks lead to each block.
        let mut preds = vec![0u32; blocks.len()];
        for x in blocks {
            for (k, &s) in x.succs.iter().enumerate() {
                if !x.succs[..k].contains(&s) {
                    preds[s as usize] += 1;
                }
            }
        }
        let mut v = Val::default();
        for (&br, c) in &self.branch {
            let b = self.block_of[br as usize];
            let succs = &blocks[b as usize].succs;
            if succs.len() < 2 {
                continue;
            }
            if succs
                .iter()
                .any(|&s| s != b && preds[s as usize] == 1 && self.cfg.dominates(s, block))
            {
                v = v.or(*c);
            }
        }
        v
    }

    /// Records the sources of `inputs` that a step of kind `kind` uses as data after they left
    /// their region ([`NodeOut::escapes`]). A branch decides on them, arithmetic and formatting
    /// only carry them on to the step that uses the result, and a lock operation's input is a
    /// lock.
    fn escapes(&mut self, kind: StepKind, inputs: &[Val]) {
        let uses = match kind {
            StepKind::Sink | StepKind::Return | StepKind::HeapRead | StepKind::StableRead => true,
            StepKind::Call(_) => !kind.is_lock_operation(),
            _ => false,
        };
        if !uses {
            return;
        }
        let u = union(inputs);
        let stale =
            ((u.left & !u.again & self.atomic) | (u.src & self.unlocked & !self.got)) & u.data;
        for b in bits(stale) {
            if let Some(g) = self.read_access(b) {
                push_capped(&mut self.out.escapes, g);
            }
        }
    }

    /// Records the reads of a region that a call `op` in it takes as arguments
    /// ([`NodeOut::handed`]).
    fn handed(&mut self, kind: StepKind, op: &Op, inputs: &[Val]) {
        if !matches!(kind, StepKind::Call(_)) || kind.is_lock_operation() {
            return;
        }
        let args = match op {
            Op::Invoke(crate::bytecode::InvokeKind::Static, _) => inputs,
            _ => inputs.get(1..).unwrap_or(&[]),
        };
        let u = union(args);
        for b in bits(u.current() & u.data & self.atomic) {
            if let Some((g, false)) = self.read_access(b) {
                push_capped(&mut self.out.handed, g);
            }
        }
    }

    /// Records the reads among the conditions `ctl` of the lock operation or call at `at`, made
    /// outside every region of the method ([`NodeOut::decided`]).
    fn decided(&mut self, at: u32, ctl: Val) {
        let ctl = self.ctl_flow(ctl);
        for b in bits(ctl.src & (self.atomic | self.unlocked)) {
            let Some((g, unlocked)) = self.read_access(b) else {
                continue;
            };
            if self.out.decided.len() >= MAX_DECIDED {
                self.out.decided_overflow = true;
                return;
            }
            if !self.out.decided.contains(&(at, g, unlocked)) {
                self.out.decided.push((at, g, unlocked));
            }
        }
    }

    /// The read that source `b` stands for, and whether it was made outside every region (its
    /// `site` is then meaningless).
    fn read_access(&self, b: usize) -> Option<(GAccess, bool)> {
        match self.srcs[b] {
            Src::Atomic(g) => Some((g, false)),
            Src::Plain(var, loc) => Some((
                GAccess {
                    var,
                    node: self.node,
                    site: u32::MAX,
                    loc,
                },
                true,
            )),
            _ => None,
        }
    }

    /// Whether the conditions on source `b` that the instruction at `at` depends on all test the
    /// value it read, just read (`if (closed)`, `if (!scheduled.get())`), and all go the way of
    /// the one constant every write of the variable stores ([`sharing::OneWay`]): the look saw
    /// the variable's last value, which no thread changes back.
    fn terminal_look(&self, b: usize, var: Var, at: u32) -> bool {
        let one_way = self.p.one_way().get(var_field(var) as usize);
        // Set-only bits of an `int` field, found set (`(state & CLOSED) != 0`).
        let set_only = one_way.map_or(0, |o| o.bits);
        if var_kind(var) == FIELD && set_only != 0 {
            let tested = self.read_at(b).and_then(|r| Some((r, self.bit_test(r)?)));
            if let Some((read_at, _)) = tested.filter(|&(_, m)| m != 0 && m & !set_only == 0) {
                let block = self.block_of[at as usize] as usize;
                let set = |cond, jumps| case_taken(cond, jumps) == Some(NONZERO);
                if self.look_went_from(b, (read_at, BIT_TEST_SPAN), block, false, &set, 2) {
                    return true;
                }
            }
        }
        let last = match var_kind(var) {
            FIELD => one_way.and_then(|o| o.field),
            STATE => one_way.and_then(|o| o.state),
            _ => None,
        };
        let Some(last) = last else {
            return false;
        };
        self.look_went(b, at, false, |cond, jumps| {
            case_taken(cond, jumps) == Some(case_of(last))
        })
    }

    /// The case of the constant the write at `at` stores when it clears its variable: `null`,
    /// `false` or zero pushed right before a field store, before a `set` of an atomic, or before
    /// a call of a plain property setter no subclass replaces (`state.set(null)`, `dirty =
    /// false`, Kotlin's `setUpstreamReader(null)`: [`crate::program::Program::property_accessor`]),
    /// with no path joining in between (the constants a one-way field's writes store:
    /// [`crate::analysis::sharing::konst_at`]).
    fn cleared_at(&self, at: u32) -> Option<usize> {
        let before = (at as usize).checked_sub(1)?;
        if self.block_of.get(before) != self.block_of.get(at as usize) {
            return None;
        }
        let store = match self.code.insns.get(at as usize).map(|i| &i.op)? {
            Op::PutField(_) | Op::PutStatic(_) => true,
            &Op::Invoke(kind, r) if kind != crate::bytecode::InvokeKind::Static => {
                let m = self.class.member(r);
                let ts = &self.p.thread_safe;
                (kind == crate::bytecode::InvokeKind::Virtual
                    && ts.is_scalar(&m.class)
                    && ts.is_scalar_set(&m.name)
                    && m.arg_slots == 1)
                    || self.accessor_at(at).is_some_and(|(get, _)| !get)
            }
            _ => false,
        };
        if !store {
            return None;
        }
        match case_of(crate::analysis::sharing::konst_at(
            self.class, self.code, before,
        )?) {
            NONZERO => None,
            c => Some(c),
        }
    }

    /// Whether the conditions on source `b` that the clearing write at `at` depends on (it
    /// stores the constant of case `cleared`, [`Run::cleared_at`]) all test the value it read,
    /// just read, and all go the way where it was not that constant (`if (dirty) { ..; dirty =
    /// false; }`, `if (state.get() != null) state.set(null)`): whatever another thread stored
    /// meanwhile, the write leaves the variable as a fresh look would have. A value tested at
    /// once is used nowhere else; a look that is kept and used (`n = head; .. process(n); head
    /// = null;`) is no such look, nor is one whose branch reads the variable again on the way to
    /// the write and works on what it finds (`if (standby != null) { standby.close(); standby =
    /// null; }`: a standby handed over in between is cleared unclosed; [`Run::reread_before`];
    /// a re-check in the write's own region, made after the region `site` is entered, is a fresh
    /// look). A setting write (`if (!started) { started = true; .. }`) stays a decision: it
    /// stands for the once-only work the look guards.
    fn clears_what_it_saw(&self, b: usize, (at, site): (u32, u32), cleared: usize) -> bool {
        if self.reread_before(b, at.min(site)) {
            return false;
        }
        self.look_went(b, at, true, |cond, jumps| {
            use crate::bytecode::Cond;
            match cleared {
                ZERO => case_taken(cond, jumps) == Some(NONZERO),
                NULL => matches!((cond, jumps), (Cond::Null, false) | (Cond::NonNull, true)),
                _ => false,
            }
        })
    }

    /// Whether the conditions on source `b` that the instruction at `at` depends on all test the
    /// value it read, right after reading it, and each goes the way `went` accepts. With
    /// `either`, a condition through both of whose ways the instruction is reached (`if (x !=
    /// null || flag)`) passes too: the clearing write it decides leaves what a fresh look would
    /// have (a look that saw the variable clear clears it again, or, if another thread set it
    /// meanwhile, clears that, as a fresh look, which would go the way where it is set, does).
    fn look_went(
        &self,
        b: usize,
        at: u32,
        either: bool,
        went: impl Fn(crate::bytecode::Cond, bool) -> bool,
    ) -> bool {
        let Some(read_at) = self.read_at(b) else {
            return false;
        };
        self.look_went_from(
            b,
            (read_at, 1),
            self.block_of[at as usize] as usize,
            either,
            &went,
            2,
        )
    }

    /// Whether this method reads the variable of source `b` again after the look, in code the
    /// look's block dominates and before instruction `at` (in code order): directly, or through
    /// a plain property getter. A read that only names the monitor entered at `at`
    /// (`synchronized (zsrc) { ..; zsrc = null; }`) works on nothing.
    fn reread_before(&self, b: usize, at: u32) -> bool {
        let var = match self.srcs.get(b) {
            Some(Src::Atomic(g)) => g.var,
            Some(&Src::Plain(var, _)) => var,
            _ => return false,
        };
        let Some(look) = self.read_at(b) else {
            return false;
        };
        let from = self.block_of[look as usize];
        let op = |k: u32| self.code.insns.get(k as usize).map(|i| &i.op);
        let monitor = |k: u32| {
            matches!(op(at), Some(Op::MonitorEnter))
                && (k + 1..at)
                    .all(|j| matches!(op(j), Some(Op::Dup | Op::Store(..) | Op::Load(..))))
        };
        (look + 1..at).filter(|&k| !monitor(k)).any(|k| {
            let same = match op(k) {
                Some(&(Op::GetField(r) | Op::GetStatic(r))) => self.field_var(r).0 == Some(var),
                _ => self.accessor_at(k).is_some_and(|(get, (ci, fi))| {
                    get && var_of(self.fields.class_fields(ci).0 + fi, FIELD) == var
                }),
            };
            same && self.cfg.dominates(from, self.block_of[k as usize])
        })
    }

    /// The plain property accessor no subclass replaces that the instruction at `at` calls, if
    /// it calls one: `(true, field)` for a getter, `(false, field)` for a setter
    /// ([`crate::program::Program::property_accessor`]).
    fn accessor_at(&self, at: u32) -> Option<(bool, (u32, u32))> {
        match self.code.insns.get(at as usize)?.op {
            Op::Invoke(kind, r) if kind != crate::bytecode::InvokeKind::Static => {
                self.p.property_accessor(self.id.class, r)
            }
            _ => None,
        }
    }

    /// Where source `b` was read, when this method read it: itself, or by a call of a plain
    /// property getter no subclass replaces (Kotlin's `getUpstreamReader()`), which returns the
    /// field as it read it ([`crate::program::Program::property_accessor`]).
    fn read_at(&self, b: usize) -> Option<u32> {
        match self.srcs.get(b) {
            Some(Src::Atomic(g)) if g.loc.method == self.id => Some(g.loc.at),
            Some(Src::Plain(_, loc)) if loc.method == self.id => Some(loc.at),
            Some(Src::Atomic(_) | Src::Plain(..)) => {
                let at = *self.via.get(b).filter(|&&at| at != NO_LEFT)?;
                self.accessor_at(at)?.0.then_some(at)
            }
            _ => None,
        }
    }

    /// The mask a bit test right after the field read at `read_at` tests, branching on whether
    /// any of its bits is set: `(state & K) != 0` (`getfield; K; iand; ifeq`), or the same
    /// through a helper of the program that returns that (`anySet(state, K)`: [`any_set_helper`]).
    /// The branch is [`BIT_TEST_SPAN`] instructions after the read.
    fn bit_test(&self, read_at: u32) -> Option<u32> {
        use crate::bytecode::{BitFact, Cond};
        let op = |k: u32| self.code.insns.get(k as usize).map(|i| &i.op);
        if !matches!(op(read_at), Some(Op::GetField(_) | Op::GetStatic(_))) {
            return None;
        }
        let Some(BitFact::Int(mask)) = self.code.bit_fact(read_at + 1) else {
            return None;
        };
        let tests = match op(read_at + 2)? {
            Op::Invoke(crate::bytecode::InvokeKind::Static, r) => {
                (self.p.resolved(self.id.class, *r)).is_some_and(|h| any_set_helper(self.p, h))
            }
            _ => self.code.bit_fact(read_at + 2) == Some(BitFact::And),
        };
        let branch = matches!(
            op(read_at + BIT_TEST_SPAN),
            Some(Op::If {
                pop: 1,
                cond: Cond::Zero | Cond::NonZero,
                ..
            })
        );
        (tests && branch).then_some(mask as u32)
    }

    /// [`Run::look_went`] for the conditions block `block` depends on; `depth`: how many flags
    /// may still be followed to where their constants were made.
    fn look_went_from(
        &self,
        b: usize,
        (read_at, span): (u32, u32),
        block: usize,
        either: bool,
        went: &impl Fn(crate::bytecode::Cond, bool) -> bool,
        depth: u8,
    ) -> bool {
        let Some(bs) = self.ctrl.get(block) else {
            return false;
        };
        let mut tested = false;
        for (&br, &edge) in bs.branches.iter().zip(&bs.edges) {
            // A condition that depends on the look by control alone (one nested in the branch
            // on it: `if (run.get()) { if (once) run.set(false); }`) tests something else.
            // But a flag made of constants under conditions on the look (`clean = failures ==
            // 0 && ..; if (clean) return;`) tested it where the constant that takes this way
            // was made: the look went as those conditions went.
            let Some(c) = self.branch.get(&br) else {
                continue;
            };
            if c.data & (1 << b) == 0 {
                let made = (depth > 0 && c.src & (1 << b) != 0)
                    .then(|| self.flag_site(br, edge, c))
                    .flatten();
                if let Some(site) = made {
                    let at = self.block_of[site as usize] as usize;
                    if self.look_went_from(b, (read_at, span), at, either, went, depth - 1) {
                        tested = true;
                    }
                }
                continue;
            }
            let same_block =
                |i: u32| self.block_of.get(i as usize) == self.block_of.get(br as usize);
            let is_if = matches!(
                self.code.insns.get(br as usize).map(|i| &i.op),
                Some(Op::If { .. })
            );
            let at_once = br == read_at + span && same_block(read_at);
            let local = span == 1 && self.tested_from_local(read_at, br);
            if !is_if || !(at_once || local) {
                return false;
            }
            if edge == crate::bytecode::cfg::EDGES {
                if !either {
                    return false;
                }
                tested = true;
                continue;
            }
            if !self
                .way(br, edge)
                .is_some_and(|(cond, jumps)| went(cond, jumps))
            {
                return false;
            }
            tested = true;
        }
        tested
    }

    /// Whether the value read at `read_at` is stored at once into a local that nothing but
    /// tests uses (`notify = readNotify;` in a section, `if (!notify) ..` after it: every load
    /// of the local goes straight to a branch), and the branch at `br` tests that local: a look
    /// tested later, but used for nothing else, as one tested at once is.
    fn tested_from_local(&self, read_at: u32, br: u32) -> bool {
        let insns = &self.code.insns;
        let op = |i: u32| insns.get(i as usize).map(|x| &x.op);
        let Some(&Op::Store(slot, 1)) = op(read_at + 1) else {
            return false;
        };
        // A plain field's look, and no store to that field before the test (a test-and-set in
        // the look's own section, `was = emitting; if (!was) emitting = true;`, makes the look
        // the outcome of the thread's claim, which a later clear acts upon).
        let field = match op(read_at) {
            Some(&(Op::GetField(r) | Op::GetStatic(r))) => self.class.member(r),
            _ => return false,
        };
        let same = |r: crate::bytecode::RefId| {
            let m = self.class.member(r);
            m.class == field.class && m.name == field.name
        };
        let stored = (read_at + 1..br)
            .any(|i| matches!(op(i), Some(&(Op::PutField(r) | Op::PutStatic(r))) if same(r)));
        if stored {
            return false;
        }
        if self.block_of.get(read_at as usize) != self.block_of.get(read_at as usize + 1) {
            return false;
        }
        // Besides the look, only constants (a default: `boolean notify = false;`).
        let mut looks = 0;
        for (i, x) in insns.iter().enumerate() {
            match x.op {
                Op::Store(s, _) if s == slot => {
                    let konst = i > 0 && matches!(insns[i - 1].op, Op::Flag(_));
                    if !konst {
                        looks += 1;
                    }
                }
                Op::Load(s, _)
                    if s == slot && !matches!(op(i as u32 + 1), Some(Op::If { pop: 1, .. })) =>
                {
                    return false;
                }
                _ => {}
            }
        }
        looks == 1 && br > 0 && matches!(op(br - 1), Some(&Op::Load(s, 1)) if s == slot)
    }

    /// Whether the write at `at` is decided by the outcome of the thread's own update of `var`
    /// made after stale source `b` was read (`if (map.putIfAbsent(k, v) != null) return;`
    /// after a `containsKey(k)` fast path): on the one chain of conditions that leads to it, a
    /// condition tests that outcome and not the stale value. The update found the state as it
    /// is, so the stale decision is superseded. The chain ends where a block depends on
    /// several conditions (paths join there: one of them may bypass the update).
    fn decided_by_outcome(&self, at: u32, b: usize, var: Var) -> bool {
        let mut block = self.block_of[at as usize] as usize;
        for _ in 0..16 {
            let Some(c) = self.ctrl.get(block).filter(|c| c.direct == 1) else {
                return false;
            };
            let br = c.branches[0];
            if let Some(v) = self.branch.get(&br) {
                // A flag set where the outcome decided: the chain goes on from where its
                // constant was made.
                if let Some(site) = c.edges.first().and_then(|&e| self.flag_site(br, e, v)) {
                    block = self.block_of[site as usize] as usize;
                    continue;
                }
                // The outcome of an update of `var`: an atomic one's, or the result of a
                // callee that read the variable again to decide an update of its own (`if
                // (missing() > 0 && advanceChecked())`, where `advanceChecked()` compares both
                // bounds again before it moves one of them): the result reports the state as
                // the update found it.
                let outcome = |o: usize| match self.srcs[o] {
                    Src::Outcome(x, _) => x == var,
                    Src::Atomic(g) => {
                        g.var == var
                            && self.imported & (1 << o) != 0
                            && bits(self.own_outcome).any(|u| self.via[u] == self.via[o])
                    }
                    _ => false,
                };
                if v.data & (1 << b) == 0 && bits(v.data).any(|o| o > b && outcome(o)) {
                    return true;
                }
            }
            block = self.block_of[br as usize] as usize;
        }
        false
    }

    /// Whether a condition that decides the instruction at `at` compares the value of source
    /// `p` with a look at `var` made in the region at `site` and still current there (see
    /// [`Summary::param_compared`]), or, with no `site`, a plain look made in this method (one a
    /// caller's region covers: [`Summary::param_plain_compared`]).
    fn compared_with_fresh(&self, at: u32, p: usize, var: Var, site: Option<u32>) -> bool {
        let Some(bs) = self.ctrl.get(self.block_of[at as usize] as usize) else {
            return false;
        };
        let kind = match site {
            Some(_) => self.atomic,
            None => !self.atomic & !PARAM_MASK,
        };
        bs.branches.iter().any(|br| {
            self.branch.get(br).is_some_and(|c| {
                c.data & (1 << p) != 0
                    && bits(c.current() & c.data & kind).any(|b| {
                        self.src_var(b) == Some(var)
                            && site.is_none_or(|site| self.outer_of(b) == Some(site))
                    })
            })
        })
    }

    /// Whether every condition on a look at `var` that the instruction at `at` depends on
    /// throws the other way (`if (count == 0) throw new NoSuchElementException(); .. count--`):
    /// a look again that only fails, as a `remove()` on an empty queue does. A caller that
    /// looked first (`if (!q.isEmpty()) q.removeHead()`) counts on not failing: its stale look
    /// still decides the write (a look that lets the callee do nothing, or return its failure,
    /// re-checks for the caller).
    fn fails_by_throwing(&self, at: u32, var: Var) -> bool {
        self.throws_otherwise(at, var, Val::current)
    }

    /// Whether every branch the instruction at `at` depends on whose condition looks at `var`
    /// (the sources `looks` picks of it) throws the other way, and there is one.
    fn throws_otherwise(&self, at: u32, var: Var, looks: impl Fn(&Val) -> u64) -> bool {
        let Some(bs) = self.ctrl.get(self.block_of[at as usize] as usize) else {
            return false;
        };
        let blocks = &self.cfg.blocks;
        let mut any = false;
        for (&br, &edge) in bs.branches.iter().zip(&bs.edges) {
            let looks = self.branch.get(&br).is_some_and(|c| {
                bits(looks(c) & self.atomic).any(|b| self.src_var(b) == Some(var))
            });
            if !looks {
                continue;
            }
            if edge == crate::bytecode::cfg::EDGES {
                return false;
            }
            // Every other way out of the branch throws (and there is one).
            let from = self.block_of[br as usize] as usize;
            let mut others = (blocks[from].succs.iter())
                .filter(|&&s| s != edge)
                .peekable();
            if others.peek().is_none() || !others.all(|&o| self.throws(o)) {
                return false;
            }
            any = true;
        }
        any
    }

    /// Whether block `b` ends in a throw, directly or through a few blocks that lead only on.
    fn throws(&self, b: u32) -> bool {
        self.leads_on(b, |x| {
            let last = x.end.saturating_sub(1) as usize;
            matches!(self.code.insns.get(last).map(|i| &i.op), Some(Op::Athrow))
        })
    }

    /// Whether block `b`, or one of the few blocks it leads on to alone (a single successor
    /// each), is one `hit` holds of.
    fn leads_on(&self, mut b: u32, hit: impl Fn(&crate::bytecode::cfg::Block) -> bool) -> bool {
        for _ in 0..4 {
            let Some(x) = self.cfg.blocks.get(b as usize) else {
                return false;
            };
            if hit(x) {
                return true;
            }
            match x.succs[..] {
                [next] => b = next,
                _ => return false,
            }
        }
        false
    }

    /// Whether every branch the instruction at `at` depends on that tests `var` as data (any
    /// instance of it) throws the other way: the method's own look is a check that fails.
    fn fails_fast(&self, at: u32, var: Var) -> bool {
        self.throws_otherwise(at, var, |c| c.data)
    }

    /// Whether this method updates `var` in a region, its own or a callee's (as far as the
    /// analysis has come).
    fn updates(&self, var: Var) -> bool {
        self.region_writes.iter().any(|&(x, _)| x == var)
            || self.out.summary.writes.iter().any(|w| w.var == var)
    }

    /// Whether block `b` (or one of the few it leads on to alone) makes an `AssertionError`:
    /// the throw of an `assert`.
    fn asserts(&self, b: u32) -> bool {
        self.leads_on(b, |x| {
            (x.start..x.end).any(|i| {
                matches!(self.code.insns.get(i as usize).map(|i| &i.op),
                    Some(Op::New(r)) if &*self.class.member(*r).class == "java/lang/AssertionError")
            })
        })
    }

    /// [`Summary::requires`] of the branch at `at`, with operands `u`, inside own region
    /// `site`: one way out throws, the other goes on; the looks it tests are current ones of
    /// this region (read in it, not left).
    fn note_requires(&mut self, at: u32, u: Val, site: u32) {
        let from = self.block_of[at as usize] as usize;
        let succs = &self.cfg.blocks[from].succs;
        let throwing = succs.iter().filter(|&&s| self.throws(s)).count();
        if succs.len() < 2 || throwing == 0 || throwing == succs.len() {
            return;
        }
        // An `assert` states what the code believes, not what it requires of its callers.
        if succs.iter().any(|&s| self.asserts(s)) {
            return;
        }
        // A test made by code the program does not have (`if (anyAreSet(state, CLOSED))`
        // through another library's helper): what it tests of the value is not known.
        if let Some(Op::Invoke(kind, r)) = (at.checked_sub(1))
            .and_then(|i| self.code.insns.get(i as usize))
            .map(|i| &i.op)
        {
            let known = self.p.resolved(self.id.class, *r).is_some()
                || self.class.member(*r).class.starts_with("java/");
            if !known && *kind != crate::bytecode::InvokeKind::Special {
                return;
            }
        }
        // One variable tested (with the arguments it is compared with): a lookup by a key
        // read from another field (`if (!files.containsKey(name)) throw ..`) requires the
        // entry, not the key.
        let looks = u.current() & u.data & self.atomic & !self.imported;
        if looks.count_ones() != 1 {
            return;
        }
        for b in bits(looks) {
            let Src::Atomic(g) = self.srcs[b] else {
                continue;
            };
            if g.node != self.node || g.site != site && self.outer_of(b) != Some(site) {
                continue;
            }
            push_capped(&mut self.out.summary.requires, g);
            for slot in bits(u.data & PARAM_MASK) {
                push_capped(&mut self.out.summary.param_requires, (slot as u8, g));
            }
        }
    }

    /// Whether a condition `ctl` looks at `var` itself (a read of it, in a region or not, or
    /// the outcome of an update of it).
    fn looks_at(&self, ctl: Val, var: Var) -> bool {
        bits(ctl.src).any(|b| self.src_var(b) == Some(var))
    }

    /// Whether a look at `var` made in the current region decides the value `v` written to it
    /// (a condition it was computed under, not an operand: `data` are its operands): the value
    /// is computed again from the state as it is now (`expected = count.get(); if (expected >=
    /// threshold) { ..resize.. } count.set(recounted)`), so a caller's earlier look that only
    /// decided to call is checked again, as by [`Self::looks_at`] of the write's own condition.
    fn decides_value(&self, v: Val, data: u64, var: Var) -> bool {
        self.looks_of(v.current() & self.atomic & !data, var) != 0
    }

    /// The sources of condition `ctl` that look at a variable the callee summary `s` re-checks
    /// before write `w` by testing the outcome of its own update of it
    /// ([`Summary::outcome_checked`]), when `safe` (the call's result, if any, is tested): a
    /// condition to take away with [`Val::without_control`].
    fn rechecked_looks(&self, ctl: Val, s: &Summary, w: &GAccess, safe: bool) -> Val {
        let mut looks = Val::default();
        if safe {
            for &(x, _) in s.outcome_checked.iter().filter(|(_, g)| g == w) {
                looks.src |= self.looks_of(ctl.src, x);
            }
        }
        looks
    }

    /// The value without its sources that look at `var`.
    fn without_looks_at(&self, v: Val, var: Var) -> Val {
        v.keep(!self.looks_of(v.src, var))
    }

    /// The sources of `m` that look at `var`.
    fn looks_of(&self, m: u64, var: Var) -> u64 {
        bits(m)
            .filter(|&b| self.src_var(b) == Some(var))
            .fold(0, |m, b| m | 1 << b)
    }

    /// The variable source `b` is a look at (a read, in a region or not, or an update's
    /// outcome).
    fn src_var(&self, b: usize) -> Option<Var> {
        match self.srcs.get(b) {
            Some(Src::Atomic(g)) => Some(g.var),
            Some(Src::Plain(x, _)) | Some(Src::Outcome(x, _)) => Some(*x),
            _ => None,
        }
    }

    /// Note the parameter, and its case, that write `dst` at `at` is reached only for
    /// ([`Summary::guarded`]): a condition it depends on tests the parameter as passed in,
    /// through one way.
    fn note_guard(&mut self, at: u32, dst: GAccess) {
        let Some(bs) = self.ctrl.get(self.block_of[at as usize] as usize) else {
            return;
        };
        for (&br, &edge) in bs.branches.iter().zip(&bs.edges) {
            let Some(slot) = self.branch.get(&br).and_then(|&c| pure_param(c)) else {
                continue;
            };
            let Some((cond, jumps)) = self.way(br, edge) else {
                continue;
            };
            if let Some(case) = case_taken(cond, jumps) {
                push_capped(&mut self.out.summary.guarded, (dst, slot, case as u8));
                return;
            }
        }
    }

    /// Note the writes of own regions that a condition on the outcome of an update decides
    /// ([`Summary::outcome_checked`]).
    fn note_outcome_checked(&mut self, ctl: Val, dst: GAccess) {
        for b in bits(ctl.src) {
            if let Some(&Src::Outcome(x, _)) = self.srcs.get(b) {
                push_capped(&mut self.out.summary.outcome_checked, (x, dst));
            }
        }
    }

    /// A write of `var` at `at` with value `v` (data and control), inside the own region
    /// `region` or outside every region (recording pass). `checked`: a callee's write outside
    /// its regions that it decides itself on a look at the variable (`if (seqno > hd) hd =
    /// seqno`): made where the call is, that look is as fresh as the write, so no condition of
    /// this method decides it (`v` is then the data alone).
    #[allow(clippy::too_many_arguments)]
    fn write(
        &mut self,
        at: u32,
        var: Var,
        (v, on): (Val, u8),
        data: u64,
        region: Option<u32>,
        loc: Loc,
        checked: bool,
    ) {
        // Decided by a look at the variable itself, or by the region's own claim: a look at
        // another variable that this region writes too (`if (up[f]) { up[f] = false;
        // pending--; }`: the call at floor `f` is claimed first, and the count it keeps goes
        // with the claim), made in this region and current. A caller's earlier look that only
        // decided to try is checked again there.
        let ctl_here = self.control(at);
        let claimed = Self::own(region).is_some_and(|site| {
            bits(ctl_here.current() & self.atomic).any(|b| {
                matches!(self.srcs[b], Src::Atomic(g)
                    if g.var != var
                        && self.outer_of(b) == Some(site)
                        && self.region_writes.contains(&(g.var, site)))
            })
        });
        let checked = checked
            || claimed
            || (self.looks_at(ctl_here, var) || self.decides_value(v, data, var))
                && !self.fails_by_throwing(at, var);
        self.depend(v.src, var);
        match Self::own(region) {
            Some(site) => {
                let dst = GAccess {
                    var,
                    node: self.node,
                    site,
                    loc,
                };
                self.flow(v, data, (dst, on), (at, site), Edge::Write);
                self.note_on(dst, on);
                push_capped(&mut self.out.summary.writes, dst);
                push_capped(&mut self.out.summary.updated, var);
                self.note_guard(at, dst);
                if checked {
                    push_capped(&mut self.out.summary.self_checked, dst);
                }
                self.note_outcome_checked(self.control(at), dst);
                for p in bits(v.src & PARAM_MASK) {
                    push_capped(&mut self.out.summary.param_writes, (p as u8, dst));
                    if data & (1 << p) != 0 && self.compared_with_fresh(at, p, var, Some(site)) {
                        push_capped(&mut self.out.summary.param_compared, (p as u8, dst));
                    }
                    if data & (1 << p) == 0 {
                        push_capped(&mut self.out.summary.param_decides, (p as u8, dst));
                        if self.decided_by_outcome(at, p, var) {
                            push_capped(&mut self.out.summary.param_superseded, (p as u8, dst));
                        }
                    }
                }
            }
            None => {
                push_capped(&mut self.out.summary.plain_writes, (var, loc, on));
                if checked {
                    push_capped(&mut self.out.summary.plain_checked, (var, loc));
                }
                for p in bits(v.src & PARAM_MASK) {
                    push_capped(
                        &mut self.out.summary.param_plain_writes,
                        (p as u8, var, loc, on),
                    );
                    if data & (1 << p) != 0 && self.compared_with_fresh(at, p, var, None) {
                        push_capped(
                            &mut self.out.summary.param_plain_compared,
                            (p as u8, var, loc),
                        );
                    }
                }
            }
        }
    }

    /// Record that `var` is written from (or under a condition on) the globals among `src`. A
    /// plain collection's contents relate no fields (see [`CONTENTS`]).
    fn depend(&mut self, src: u64, var: Var) {
        if var_kind(var) == CONTENTS {
            return;
        }
        for b in bits(src & !PARAM_MASK) {
            let x = match self.srcs.get(b) {
                Some(Src::Atomic(g)) => g.var,
                Some(Src::Plain(x, _)) => *x,
                _ => continue,
            };
            if x == var || var_kind(x) == CONTENTS || self.out.depends.len() >= MAX_LIST {
                continue;
            }
            let pair = (x.min(var), x.max(var));
            if !self.out.depends.contains(&pair) {
                self.out.depends.push(pair);
            }
        }
    }

    /// Defer a plain write made through a virtual call on parameter `slot` to the callers
    /// ([`Summary::dispatched`]).
    fn dispatch(&mut self, at: u32, slot: u8, class: u32, var: Var, loc: Loc, checked: bool) {
        // As a plain write here would be: looked at by this method's own condition too.
        let checked = checked || self.looks_at(self.control(at), var);
        let d = &mut self.out.summary.dispatched;
        let x = (slot, class, var, loc, checked);
        if d.len() < MAX_DISPATCHED && !d.contains(&x) {
            d.push(x);
        }
    }

    fn field_var(&self, r: u32) -> (Option<Var>, u32) {
        let m = self.class.member(r);
        match self.fields.raw_id(self.p, &m.class, &m.name) {
            Some(fid) => (
                self.fields.is_valued(fid).then(|| var_of(fid, FIELD)),
                fid + 1,
            ),
            None => (None, 0),
        }
    }

    /// The elements or state variable of the field a reference was read from.
    fn derived_var(&self, field: u32, kind: u32) -> Option<Var> {
        let fid = field.checked_sub(1)?;
        let (class, _) = self.fields.describe(self.p, fid);
        if IO_PREFIXES.iter().any(|pre| class.starts_with(pre)) {
            return None;
        }
        Some(var_of(fid, kind))
    }

    fn library_call(
        &mut self,
        cx: &StepCx,
        kind: RegionCall,
        returns: Returns,
        inputs: &[Val],
        ctl: Val,
    ) -> Val {
        let Some(Op::Invoke(_, r)) = self.code.insns.get(cx.at as usize).map(|i| i.op.clone())
        else {
            return union(inputs).or(ctl);
        };
        let m = self.class.member(r);
        let name = &m.name;
        let access = self.p.thread_safe.state_access(name);
        let inserts = self.conditional_insert(cx.at, m);
        let var = inputs
            .first()
            .and_then(|recv| self.derived_var(recv.field, STATE));
        let on = inputs.first().map_or(0, |recv| recv.base);
        let data = union(inputs.get(1..).unwrap_or(&[]));
        if kind == RegionCall::Validating {
            *self.checked.entry(cx.at).or_default() |= union(inputs).src;
        }
        let args = data.or(ctl);
        // What the call writes: its arguments, but of an atomic add's amount (`cx.adds`) only
        // what reaches it by a condition. The add applies the amount to the value held now, so
        // a snapshot that reaches it as data loses no update made since
        // (`c.addAndGet(-c.get())`); what decides the call, or the amount, is a stale decision.
        let written = if cx.adds { data.keep(!data.data) } else { data };
        let flowing = written.or(self.ctl_flow(ctl));
        // A snapshot depends on what was asked for (`get(key)`); the outcome of the thread's own
        // update, a view or a compare-and-set's answer is not data of the arguments.
        let mut result = if returns == Returns::Shared {
            args
        } else {
            ctl
        };
        // The value leaves when the outermost region around the call ends: the call's own, or
        // an enclosing one of this method, or never here when the caller holds the lock for the
        // whole method.
        let outer = cx.outer.map(|(_, site)| site);
        if let Some(var) = var {
            if cx.record {
                self.access(cx.at, var, access, Some(cx.at));
            }
            if access & WRITE != 0 && cx.record {
                push_capped(&mut self.out.summary.updated, var);
                let dst = GAccess {
                    var,
                    node: self.node,
                    site: cx.at,
                    loc: self.loc(cx.at),
                };
                // A compare-and-set or a conditional update checks the state it writes: no
                // stale value or stale decision reaches it, here or in a caller. A
                // single-writer publication (`lazySet`) writes the writer's own value.
                if kind != RegionCall::Validating
                    && !inserts
                    && !self.p.thread_safe.is_publish(name)
                {
                    self.flow(
                        flowing,
                        written.data,
                        (dst, on),
                        (cx.at, cx.at),
                        Edge::Write,
                    );
                    self.note_on(dst, on);
                    push_capped(&mut self.out.summary.writes, dst);
                    self.note_guard(cx.at, dst);
                    if self.looks_at(ctl, var) || self.decides_value(written, written.data, var) {
                        push_capped(&mut self.out.summary.self_checked, dst);
                    }
                    self.note_outcome_checked(ctl, dst);
                    // A parameter that is only an atomic add's amount is not written.
                    let args = written.or(ctl);
                    for p in bits(args.src & PARAM_MASK) {
                        push_capped(&mut self.out.summary.param_writes, (p as u8, dst));
                        if args.data & (1 << p) == 0 {
                            push_capped(&mut self.out.summary.param_decides, (p as u8, dst));
                            if self.decided_by_outcome(cx.at, p, var) {
                                push_capped(&mut self.out.summary.param_superseded, (p as u8, dst));
                            }
                        }
                    }
                }
            }
            // A read by index decided by an earlier look at the size (`i < v.size()`, then
            // `v.get(i)`): the decision alone flows (the index need not come from the size).
            // So does a lookup by key whose result nothing tests, after a look that found the
            // key (`containsKey(k)`, then `get(k)`).
            let by_index = m.desc.starts_with("(I");
            if access & WRITE == 0 && cx.record && (by_index || self.key_looked_up(m, cx.at)) {
                self.index_read(var, (cx.at, cx.at), on, ctl, by_index);
                if !by_index {
                    self.key_put_read(var, (cx.at, outer.unwrap_or(cx.at)), on, ctl);
                }
            }
            if access & WRITE != 0 && self.p.thread_safe.is_key_put(name, &m.desc) {
                self.key_put(var, (cx.at, cx.at, outer.unwrap_or(cx.at)), on);
            }
            // Only a snapshot is a source: the result of a read-modify-write (`incrementAndGet`,
            // `putIfAbsent`, `poll`) is the outcome of this thread's own atomic update, and a
            // live view (`iterator()`) is not a snapshot (the shared model, `Returns`).
            if returns == Returns::Shared && cx.produces && !self.own_entry(cx.at, inputs) {
                let g = GAccess {
                    var,
                    node: self.node,
                    site: cx.at,
                    loc: self.loc(cx.at),
                };
                let bit = self.source((cx.at, 0), Src::Atomic(g), Some(outer.unwrap_or(cx.at)));
                self.mark_on(bit, on);
                if cx.record {
                    self.note_on(g, on);
                }
                // Current, even where the arguments or the conditions carry one that left
                // (the last round's look, through a loop condition).
                result.add_instance(bit);
            } else if cx.produces
                && access & WRITE != 0
                && (kind == RegionCall::Validating || returns == Returns::Owned)
            {
                let bit = self.source((cx.at, 0), Src::Outcome(var, cx.at), None);
                result.src |= bit;
                result.data |= bit;
            }
        }
        if cx.record {
            let written = var.filter(|_| access & WRITE != 0);
            self.define(cx.at, result, written);
        }
        result.field = 0;
        result
    }

    /// Whether the call of `m` at `at` looks a value up by key and dereferences it untested
    /// (`get(k).trim()`): it counts on the key being there, as a read by position (`get(int)`)
    /// counts on the index. (A lookup whose `null` the code passes on or tests handles a
    /// missing key.)
    fn key_looked_up(&self, m: &crate::bytecode::MemberRef, at: u32) -> bool {
        self.p.thread_safe.is_key_read(&m.name, &m.desc)
            && (self.dereferenced(at) || self.returned(at))
    }

    /// Whether the value the instruction at `at` produces is returned at once (`return
    /// map.get(k);`, a cast between, also through a local returned after a `finally` that
    /// unlocks): after a look that found the key, the method hands its callers the entry as
    /// found.
    fn returned(&self, at: u32) -> bool {
        let insns = &self.code.insns;
        self.used_next(at, |k| {
            matches!(insns.get(k).map(|i| &i.op), Some(Op::Return(1)))
        })
    }

    /// Whether the value the instruction at `at` produces is dereferenced at once: the
    /// receiver of a call without arguments (`get(k).trim()`, an unboxing `intValue()`), a
    /// field or an array length read of it, also through a local loaded next on the same
    /// straight path (`String t = get(k); t.length()`).
    fn dereferenced(&self, at: u32) -> bool {
        let insns = &self.code.insns;
        self.used_next(at, |k| match insns.get(k).map(|i| &i.op) {
            Some(Op::GetField(_) | Op::ArrayLength | Op::MonitorEnter | Op::Athrow) => true,
            Some(&Op::Invoke(kind, r)) => {
                kind != crate::bytecode::InvokeKind::Static
                    && self.class.member(r).desc.starts_with("()")
            }
            _ => false,
        })
    }

    /// Whether the value the instruction at `at` produces goes at once to an instruction that
    /// `use_at` accepts (by index, past any casts): right after it, or through a local it is
    /// stored into and loaded from next on the same straight path.
    fn used_next(&self, at: u32, use_at: impl Fn(usize) -> bool) -> bool {
        let insns = &self.code.insns;
        let op = |k: usize| insns.get(k).map(|i| &i.op);
        let skip_casts = |mut k: usize| {
            while matches!(op(k), Some(Op::CheckCast)) {
                k += 1;
            }
            k
        };
        let k = skip_casts(at as usize + 1);
        if use_at(k) {
            return true;
        }
        let Some(&Op::Store(slot, _)) = op(k) else {
            return false;
        };
        for j in k + 1..insns.len() {
            match op(j) {
                Some(&Op::Load(s, _)) if s == slot => return use_at(skip_casts(j + 1)),
                Some(&Op::Store(s, _)) if s == slot => return false,
                Some(Op::If { .. } | Op::Goto(_) | Op::Switch(_) | Op::Return(_) | Op::Athrow) => {
                    return false
                }
                _ => {}
            }
        }
        false
    }

    /// A value stored under a key at `at` (`map.put(k, v)`, the key a local no other store
    /// changes), in the region at `site` whose outermost site is `outer`: a look that the key
    /// is there,
    /// for a later lookup of the same key by this method ([`Self::key_put_read`]).
    fn key_put(&mut self, var: Var, (at, site, outer): (u32, u32, u32), on: u8) {
        let Some(slot) = self.key_slot(at, 2) else {
            return;
        };
        let g = GAccess {
            var,
            node: self.node,
            site,
            loc: self.loc(at),
        };
        // Keyed apart from the call's own result (its outcome, at `(at, 0)`).
        let bit = self.source((u32::MAX - at, 0), Src::Atomic(g), Some(outer));
        self.mark_on(bit, on);
        if bit != 0 && !self.key_puts.iter().any(|k| k.2 == bit) {
            self.key_puts.push((var, slot, bit, outer, at));
        }
    }

    /// A lookup of `var` at `at` by a key this method stored a value under in another
    /// critical section (`put(k, v)` ... `get(k).token`, the result used untested): it counts on
    /// the key being there still, as after a look that found it; the put's look flows into the
    /// lookup as its decision ([`Self::index_read`], a key-check).
    fn key_put_read(&mut self, var: Var, (at, outer): (u32, u32), on: u8, ctl: Val) {
        let Some(slot) = self.key_slot(at, 1) else {
            return;
        };
        // Only a put on every path to the lookup, earlier in the same round of a loop (a put
        // of the last round was made under the key that round held).
        let before = |put: u32| {
            let (a, b) = (self.block_of[put as usize], self.block_of[at as usize]);
            if a == b {
                put < at
            } else {
                self.cfg.dominates(a, b)
            }
        };
        let puts: Vec<u64> = (self.key_puts.iter())
            .filter(|k| k.0 == var && k.1 == slot && k.3 != outer && before(k.4))
            .map(|k| k.2)
            .collect();
        for bit in puts {
            let look = Val {
                src: bit,
                left: bit,
                ..Val::default()
            };
            let dst = GAccess {
                var,
                node: self.node,
                site: at,
                loc: self.loc(at),
            };
            self.flow(
                look.or(self.ctl_flow(ctl)),
                0,
                (dst, on),
                (at, at),
                Edge::Index,
            );
        }
    }

    /// The local slot that holds the key of the call at `at`, `depth` slots below the top of the
    /// stack (the last argument is 1), when the arguments above it are simple pushes and the
    /// slot is stored at most once in the method (a parameter, or a local set once).
    fn key_slot(&self, at: u32, depth: i32) -> Option<u16> {
        let insns = &self.code.insns;
        let k = self.class.pushed_by(insns, at as usize, depth)?;
        let Op::Load(slot, 1) = insns[k].op else {
            return None;
        };
        let stores = (insns.iter())
            .filter(|i| matches!(i.op, Op::Store(s, _) if s == slot))
            .count();
        (stores <= 1).then_some(slot)
    }

    /// A read by index of `var` at `at` in the region at `site` (recording pass): the condition
    /// `ctl` on an earlier look at the size decides it (the index need not come from the size),
    /// here and, through [`Summary::index_reads`], in the callers. Without `by_index`, a lookup
    /// by key, decided by a look of this method alone: a callee's own lookup is decided by its
    /// own looks too (`computeIfAbsent(k, ..)`, then `get(k)` under the same lock).
    fn index_read(&mut self, var: Var, (at, site): (u32, u32), on: u8, ctl: Val, by_index: bool) {
        // A read by index that a handler of an index out of range covers (`try { e =
        // list.get(i); } catch (IndexOutOfBoundsException x) { size = list.size(); .. }`):
        // the code expects the index to go stale and handles the read's failure, which
        // re-checks it. (A `finally` or a catch-all handles every failure alike: no sign.)
        let caught = |h: &crate::bytecode::Handler| {
            h.catches == crate::bytecode::Catch::OutOfRange && (h.start..h.end).contains(&at)
        };
        if by_index && self.code.handlers.iter().any(caught) {
            return;
        }
        let dst = GAccess {
            var,
            node: self.node,
            site,
            loc: self.loc(at),
        };
        if by_index {
            push_capped(&mut self.out.summary.index_reads, dst);
        }
        self.flow(self.ctl_flow(ctl), 0, (dst, on), (at, site), Edge::Index);
    }

    /// A call on a plain collection of the platform that a field holds: a read or a write of the
    /// field's [`CONTENTS`] in the critical section the call is made in (the method's own, its
    /// callers', or none: a look made holding no lock is stale from the start, as an unlocked
    /// read of a field is), as an array load or store is of its elements (the method name says
    /// which: [`locks::ThreadSafeList::contents_access`]). `None` for any other call.
    fn collection_call(&mut self, cx: &StepCx, inputs: &[Val], ctl: Val) -> Option<Val> {
        let Some(&Op::Invoke(kind, r)) = self.code.insns.get(cx.at as usize).map(|i| &i.op) else {
            return None;
        };
        let m = self.class.member(r);
        let ts = &self.p.thread_safe;
        // A collection whose code is in the program (the platform's own modules scanned) is
        // analysed through it.
        if kind == crate::bytecode::InvokeKind::Static
            || !ts.is_collection(&m.class)
            || self.p.resolved(self.id.class, r).is_some()
            || locks::is_object_method(&m.name)
        {
            return None;
        }
        let recv = inputs.first()?;
        let var = self.derived_var(recv.field, CONTENTS)?;
        let at = cx.at;
        let access = ts.contents_access(&m.name);
        let (returns, validates) = ts.library_call(&m.name, &m.desc, cx.produces);
        let data = union(inputs.get(1..).unwrap_or(&[]));
        let on = object_on(*recv);
        let mut v = union(inputs).or(ctl);
        if cx.record {
            self.access(at, var, access, None);
        }
        if access & READ != 0 && returns == Returns::Shared && !self.own_entry(at, inputs) {
            v = v.or(self.read(at, var, cx.region, None));
        }
        // A read by index decided by an earlier look at the size, or by key after a look at
        // the key, as on a thread-safe collection.
        if let (0, true, Some(site)) = (access & WRITE, cx.record, Self::own(cx.region)) {
            let by_index = m.desc.starts_with("(I");
            if by_index || self.key_looked_up(m, at) {
                self.index_read(var, (at, site), on, ctl, by_index);
                if !by_index {
                    let outer = cx.outer.map_or(site, |(_, s)| s);
                    self.key_put_read(var, (at, outer), on, ctl);
                }
            }
        }
        if let (true, Some(site)) = (access & WRITE != 0, Self::own(cx.region)) {
            if ts.is_key_put(&m.name, &m.desc) {
                let outer = cx.outer.map_or(site, |(_, s)| s);
                self.key_put(var, (at, site, outer), on);
            }
        }
        if access & WRITE != 0 && cx.record {
            // A checked update (`putIfAbsent`, `remove(k, v)`, a set's tested `add`) decides on
            // the contents it writes: nothing stale reaches it.
            if !validates && !self.conditional_insert(at, m) {
                let w = (data.or(self.ctl_flow(ctl)), on);
                self.write(at, var, w, data.data, cx.region, self.loc(at), false);
            }
            self.define(at, data.or(ctl), Some(var));
        }
        // What an update gives back (the element `pollFirst()` took, or `null` where there was
        // none) is the outcome of this thread's own update, as on a thread-safe collection:
        // tested, it re-checks the contents for a look made before.
        if access & WRITE != 0 && cx.produces && returns == Returns::Owned {
            let bit = self.source((at, 0), Src::Outcome(var, at), None);
            v.src |= bit;
            v.data |= bit;
        }
        // A view (`keySet()`, `values()`, `iterator()`) is the collection seen another way: it
        // keeps the field, so that a change made through it is a change of the contents.
        v.field = if returns == Returns::View {
            recv.field
        } else {
            0
        };
        Some(v)
    }

    /// Whether the call of `m` at `at` is a set's `add` whose result the code tests or returns:
    /// a conditional insert, which decides on the set as it is now and says what it found (a
    /// stale look that led to it acts on nothing stale). Its result ignored, the work done
    /// beside it stands on the stale look alone.
    fn conditional_insert(&self, at: u32, m: &crate::bytecode::MemberRef) -> bool {
        self.p
            .thread_safe
            .is_conditional_insert(&m.class, &m.name, &m.desc)
            && crate::analysis::outcome::result_decides(self.code, at)
    }

    fn call(&mut self, cx: &StepCx, effect: CallEffect, inputs: &[Val], ctl: Val) -> Val {
        // A factory's new object, or the calling thread's own (`ThreadLocal.get()`): as one
        // this method allocated, its fields are not shared state yet.
        let fresh = matches!(
            effect,
            CallEffect::Plain {
                returns: Returns::Fresh
            } | CallEffect::Region {
                returns: Returns::Fresh,
                ..
            }
        );
        // A new, empty object of the platform (`ByteBuffer.allocate(n)`): like `new byte[n]`, it
        // holds none of its arguments.
        let empty = match self.code.insns.get(cx.at as usize).map(|i| &i.op) {
            Some(&Op::Invoke(crate::bytecode::InvokeKind::Static, r)) => {
                let m = self.class.member(r);
                fresh && self.p.thread_safe.is_fresh(&m.class, &m.name)
            }
            _ => false,
        };
        let v = if empty {
            ctl
        } else {
            self.call_effect(cx, effect, inputs, ctl)
        };
        // The platform's `clone()` (`super.clone()`, an array's): a copy, a new object as one
        // this method allocated: its fields are not shared state yet.
        let copy = match self.code.insns.get(cx.at as usize).map(|i| &i.op) {
            Some(&Op::Invoke(kind, r)) => crate::analysis::locks::calls_platform_copy(
                self.p,
                (self.id.class, self.class),
                kind,
                r,
            ),
            _ => false,
        };
        let made = (copy || fresh) && !v.local;
        Val {
            local: v.local || copy || fresh,
            born: if made { cx.at + 1 } else { v.born },
            ..v
        }
    }

    fn call_effect(&mut self, cx: &StepCx, effect: CallEffect, inputs: &[Val], ctl: Val) -> Val {
        // A `Boolean` flag unboxed is the same flag.
        if let (Some(Op::Invoke(_, r)), Some(recv)) = (
            self.code.insns.get(cx.at as usize).map(|i| &i.op),
            inputs.first(),
        ) {
            let m = self.class.member(*r);
            if recv.flag.is_some() && &*m.class == "java/lang/Boolean" && &*m.name == "booleanValue"
            {
                return *recv;
            }
        }
        match effect {
            CallEffect::Acquire(_)
            | CallEffect::TryAcquire(_)
            | CallEffect::Release(_)
            | CallEffect::Wait(_) => return ctl,
            // A thread-safe object this method made: its state is no one else's yet.
            CallEffect::Region {
                kind: RegionCall::ThreadSafeLibrary | RegionCall::Validating,
                ..
            } if inputs.first().is_some_and(|o| o.local) => return union(inputs).or(ctl),
            CallEffect::Region {
                kind: kind @ (RegionCall::ThreadSafeLibrary | RegionCall::Validating),
                returns,
                ..
            } => return self.library_call(cx, kind, returns, inputs, ctl),
            _ => {}
        }
        // A method of an object this method allocated: a local computation (a `StringBuffer`
        // being filled); a builder returning itself stays local.
        let code = self.code;
        if let (Some(recv), Some(Op::Invoke(kind, r))) = (
            inputs.first(),
            code.insns.get(cx.at as usize).map(|i| &i.op),
        ) {
            if *kind != crate::bytecode::InvokeKind::Static && recv.local {
                let m = self.class.member(*r);
                // Values handed in separate arguments to the constructor of one new object
                // (`new Quote(bid, ask)`, a snapshot returned to the caller) are one
                // observation of both: combined there, as by one computation.
                // Data only: a condition the whole construction depends on combines nothing.
                if cx.record && &*m.name == "<init>" {
                    let carrying: Vec<Val> = (inputs[1..].iter())
                        .filter(|a| a.data & self.atomic != 0)
                        .copied()
                        .collect();
                    if carrying.len() >= 2 {
                        let mut u = union(&carrying);
                        u.src &= u.data;
                        self.pair_reads(cx.at, u, None, true);
                    }
                }
                let mut v = union(inputs).or(ctl);
                v.local = m.desc.ends_with(&format!(")L{};", m.class));
                v.born = if v.local { recv.born } else { 0 };
                return v;
            }
        }
        if let Some(v) = self.collection_call(cx, inputs, ctl) {
            return v;
        }
        let outs = self.outs;
        let views = self.views;
        // The callees' summaries, with their nodes: a value read, or written, in a callee's
        // own regions makes an edge here; one a callee took from its own callees is too far
        // away to be evidence (it stays a value, with no source).
        let summaries: Vec<(u32, &Summary)> = self
            .calls
            .get(&cx.at)
            .map(|&ci| {
                let c = &views.facts[self.node as usize].calls[ci];
                c.targets
                    .iter()
                    .filter_map(|&t| {
                        views.node_index(Node {
                            method: t,
                            this_held: c.this_held,
                        })
                    })
                    .filter_map(|n| outs[n].as_ref().map(|o| (n as u32, &o.summary)))
                    .collect()
            })
            .unwrap_or_default();
        if summaries.is_empty() {
            // No code or no summary: the result depends on every argument.
            let v = union(inputs).or(ctl);
            if cx.record && cx.produces {
                self.define(cx.at, v, None);
            }
            return v;
        }
        let outer = Self::own(cx.caller_region);
        // The object a callee's access is made on, in this method's terms: the callee's
        // parameter slot it names, when this method passes one of its own there.
        // `on` names a callee's parameter slot + 1 (0: unknown).
        let object = |on: u8| {
            (usize::from(on).checked_sub(1))
                .and_then(|slot| inputs.get(slot))
                .map_or(0, |a| object_on(*a))
        };
        let on_arg = |s: &Summary, g: &GAccess| -> u8 {
            (s.bases.iter())
                .find(|(x, _)| x == g)
                .map_or(0, |&(_, on)| object(on))
        };
        // Every caller holds a lock around this whole method (an entry lock, or `this` held by
        // the caller) and no region of its own is open at the call: what the callee read in
        // its regions stays inside that enclosing region here, as a library call's snapshot
        // does (its region ends with the outermost one held), and leaves in the caller.
        let enclosed = cx.caller_region == Some(CALLER_SITE);
        let mut result = ctl;
        let mut k = 1u32;
        for &(callee, s) in &summaries {
            for slot in bits(s.ret_params) {
                if let Some(v) = inputs.get(slot) {
                    result = result.or(*v);
                }
            }
            // An object the callee read and overwrote in the same region (`pop()`: the slot
            // read and cleared; `poll()`: the head read and unlinked) is taken out, handed over
            // to this thread like the element a library `poll()` returns: not a snapshot. (A
            // number computed in an update, `addAndGet(0)`, stays one: written back, it loses
            // the updates made in between.)
            let reference =
                (self.p.method(views.nodes[callee as usize].method)).returns_reference();
            let taken = |g: &GAccess| {
                reference
                    && s.writes
                        .iter()
                        .any(|w| w.var == g.var && w.node == g.node && w.site == g.site)
            };
            // Taken out, the object is this thread's whatever else its value was computed from:
            // the array field it was read through (which a growing push replaces) or the index
            // it was found at.
            let handed = s.ret_reads.iter().any(|g| g.node == callee && taken(g));
            for g in s.ret_reads.iter().filter(|g| g.node == callee && !handed) {
                let bit = self.source(
                    (cx.at, k),
                    Src::Atomic(*g),
                    if enclosed { Some(CALLER_SITE) } else { outer },
                );
                self.mark_on(bit, on_arg(s, g));
                if cx.record {
                    self.note_on(*g, on_arg(s, g));
                }
                k += 1;
                // The callee also writes what it read (`tryAcquire()`, `acquire()` that
                // checks a bound and increments): its result reports its own update.
                let updated = s.updated.contains(&g.var);
                if updated {
                    self.own_outcome |= bit;
                }
                // Current, even where the value also carries one that left (the last
                // iteration's, by a condition).
                result.add_instance(bit);
                if outer.is_none() && !enclosed && bit != 0 {
                    result.again &= !bit;
                    result.left |= bit;
                    let b = bit.trailing_zeros() as usize;
                    if self.left_at[b] == NO_LEFT {
                        self.left_at[b] = cx.at;
                    }
                }
            }
            // A getter's look made holding no lock (`boolean hasLeader() { return leader !=
            // null; }`) called holding none either and tested at once (`if
            // (!election.hasLeader())`): the caller's own unlocked check, one call away, as if
            // the field were read here.
            let looked = outer.is_none()
                && !enclosed
                && getter(views, callee as usize)
                && crate::analysis::outcome::result_tested(code, cx.at);
            // The same for a callee with no region of its own called inside this method's
            // region (`synchronized (queue) { task = queue.poll(); }` over a plain deque of the
            // program): an object it read and overwrote there is taken out, this thread's.
            let handed_plain = outer.is_some()
                && reference
                && (s.ret_plain.iter())
                    .any(|&(var, _, _)| (s.plain_writes.iter()).any(|&(w, _, _)| w == var));
            for &(var, loc, on) in s.ret_plain.iter().filter(|_| !handed_plain) {
                let bit = match outer {
                    Some(site) => {
                        let g = GAccess {
                            var,
                            node: self.node,
                            site,
                            loc,
                        };
                        self.source((cx.at, k), Src::Atomic(g), Some(site))
                    }
                    None => self.source((cx.at, k), Src::Plain(var, loc), None),
                };
                k += 1;
                self.mark_on(bit, object(on));
                if looked {
                    self.unlocked |= bit;
                    self.got |= bit;
                }
                result.add_instance(bit);
            }
        }
        // A setter called in this method's region makes a test-and-set through accessors (a
        // nest's before Java 11, Kotlin's properties): noted in every pass, as a field store.
        if let Some(site) = outer {
            for (_, s) in &summaries {
                let params = s.param_plain_writes.iter().map(|&(_, var, _, _)| var);
                for var in params.chain(s.plain_writes.iter().map(|&(var, _, _)| var)) {
                    self.note_test_and_set(cx.at, var, site);
                }
            }
        }
        if cx.record {
            let arg = |k: u8| inputs.get(k as usize).copied().unwrap_or_default();
            let fctl = self.ctl_flow(ctl);
            // The receiver is the object the callee works on, not a value it writes.
            let receiver = usize::from(code.insns.get(cx.at as usize).is_some_and(
                |i| matches!(i.op, Op::Invoke(k, _) if k != crate::bytecode::InvokeKind::Static),
            ));
            // The caller tests what the call returns (`if (getAndReset())`).
            let tested = crate::analysis::outcome::result_tested(code, cx.at);
            // What an update's outcome decided inside the callee is re-checked for this caller
            // when nothing of it comes back untested: a `void` callee, a result the caller
            // tests (`take()` returning null when another thread emptied it), or a callee that
            // returns no `null`, `0` or `false` its outcome decided (`Summary::ret_failure`).
            let outcome_safe = tested
                || code.insns.get(cx.at as usize).is_some_and(|i| {
                    matches!(i.op, Op::Invoke(_, r) if self.class.member(r).desc.ends_with(")V"))
                });
            // A virtual call on a parameter with several implementations, outside every region
            // of this method: its plain writes wait for a caller that knows the receiver's class.
            let virtual_call = code.insns.get(cx.at as usize).is_some_and(|i| {
                matches!(
                    i.op,
                    Op::Invoke(
                        crate::bytecode::InvokeKind::Virtual
                            | crate::bytecode::InvokeKind::Interface,
                        _
                    )
                )
            });
            let dispatch_on = inputs
                .first()
                .filter(|_| virtual_call && summaries.len() > 1 && outer.is_none())
                .and_then(|&r| pure_param(r));
            for &(callee, s) in &summaries {
                // A callee that signals no failure of its update by what it returns.
                let outcome_safe = outcome_safe || !s.ret_failure;
                // A write the callee makes only for a case of a parameter that this call passes
                // a constant of another case for (`setPage(p, old, new, false)`).
                let unreached = |w: &GAccess| {
                    s.guarded.iter().any(|&(g, slot, case)| {
                        g == *w && arg(slot).flag.is_some_and(|f| f[case as usize] == NONE)
                    })
                };
                // The callee looks at the variable again before it writes, or returns the
                // outcome of its update and the caller tests it: the caller's condition decides
                // none of its writes (below), whatever the arguments are.
                let rechecked = |w: &GAccess| {
                    s.self_checked.contains(w) || (tested && s.ret_outcome.contains(&w.var))
                };
                for &(slot, w) in &s.param_writes {
                    if (slot as usize) < receiver || unreached(&w) {
                        continue;
                    }
                    // Installed only if it still relates so to what is there now: a stale value
                    // passed in overwrites nothing it did not see, and decides nothing more.
                    if s.param_compared.contains(&(slot, w)) {
                        push_capped(&mut self.out.summary.writes, w);
                        if let Some(q) = pure_param(arg(slot)) {
                            push_capped(&mut self.out.summary.param_writes, (q, w));
                            push_capped(&mut self.out.summary.param_compared, (q, w));
                        }
                        continue;
                    }
                    let v = arg(slot).or(ctl);
                    // A look at the variable passed in and re-checked by the callee's
                    // update on the way to the write decides nothing.
                    let a = if s.param_superseded.contains(&(slot, w)) {
                        self.without_looks_at(arg(slot), w.var)
                    } else {
                        arg(slot)
                    };
                    // An argument that only decides the write (whether, or which element) is
                    // a condition passed in: the outcome of a callee's own update in it is
                    // this thread's decision ([`Run::ctl_flow`]).
                    let a = if s.param_decides.contains(&(slot, w)) {
                        a.keep(!self.own_outcome)
                    } else {
                        a
                    };
                    // Re-checked: the caller's condition decides nothing, not even as the
                    // implicit flow an argument computed under it carries; nor does an
                    // argument the callee only decides by (`read(buf, pos + n, len - n)`
                    // after a first read: its count tells whether to write, the callee's
                    // own look at the variable tells too).
                    let decided = if rechecked(&w) && s.param_decides.contains(&(slot, w)) {
                        Val::default()
                    } else if rechecked(&w) {
                        a.without_control(ctl)
                    } else {
                        // Looks the callee re-checks by its update's outcome decide nothing.
                        let looks = self.rechecked_looks(fctl, s, &w, outcome_safe);
                        a.or(fctl).without_control(looks)
                    };
                    let dst = (w, on_arg(s, &w));
                    self.note_on(w, dst.1);
                    let edge = Edge::of(w.node == callee);
                    self.flow(decided, arg(slot).data, dst, (cx.at, cx.at), edge);
                    push_capped(&mut self.out.summary.writes, w);
                    for p in bits(v.src & PARAM_MASK) {
                        push_capped(&mut self.out.summary.param_writes, (p as u8, w));
                    }
                }
                // A condition of the caller on a value that left its region decides the
                // callee's own writes (`if (!isLoaded()) load()`: check then act through two
                // calls), unless the callee looks at the variable again before it writes
                // (`take()` that tests for empty itself) or returns the outcome of its update
                // and the caller tests it (a validating update). Writes deeper down are too far
                // away to be evidence.
                for &x in &s.updated {
                    push_capped(&mut self.out.summary.updated, x);
                }
                // A condition on a size read before decides the callee's read by index.
                for &w in &s.index_reads {
                    let dst = (w, on_arg(s, &w));
                    self.flow(fctl, 0, dst, (cx.at, cx.at), Edge::Index);
                }
                // A condition on a look that left its region decides a call that requires
                // what it saw (throws otherwise), or passes a stale value the callee checks so.
                for &w in &s.requires {
                    // A look of the caller's own that fails the same way (`if (isClosed())
                    // throw ..;` before a call that checks again): the early exit of one
                    // failure, not a check the call counts on. And a caller that updates the
                    // variable itself (registers the entry the call requires) claims it.
                    if self.fails_fast(cx.at, w.var) || self.updates(w.var) {
                        continue;
                    }
                    let dst = (w, on_arg(s, &w));
                    self.flow(fctl, 0, dst, (cx.at, cx.at), Edge::Require);
                }
                for &(slot, w) in &s.param_requires {
                    if (slot as usize) < receiver {
                        continue;
                    }
                    if self.updates(w.var) {
                        continue;
                    }
                    // What the thread took or claimed (an index its own update chose, a
                    // read-modify-write's result) is its own, not a snapshot.
                    let a = arg(slot);
                    let a = a.keep(!self.own_outcome & !a.mine);
                    let dst = (w, on_arg(s, &w));
                    self.flow(a, a.data, dst, (cx.at, cx.at), Edge::Require);
                }
                for &w in &s.writes {
                    if unreached(&w) {
                        continue;
                    }
                    // Reached where this method's own parameter is of the case the callee's
                    // was, or where this call is.
                    for &(g, slot, case) in &s.guarded {
                        if g == w {
                            if let Some(q) = pure_param(arg(slot)) {
                                push_capped(&mut self.out.summary.guarded, (w, q, case));
                            }
                        }
                    }
                    self.note_guard(cx.at, w);
                    self.note_on(w, on_arg(s, &w));
                    if !rechecked(&w) {
                        let looks = self.rechecked_looks(fctl, s, &w, outcome_safe);
                        self.flow(
                            fctl.without_control(looks),
                            0,
                            (w, on_arg(s, &w)),
                            (cx.at, cx.at),
                            Edge::of(w.node == callee),
                        );
                    }
                    push_capped(&mut self.out.summary.writes, w);
                }
                // Through a virtual call on a parameter, outside every region: deferred to the
                // caller that knows which implementation runs (its argument's class).
                if let Some(q) = dispatch_on {
                    let class = views.nodes[callee as usize].method.class;
                    let writes = (s.param_plain_writes.iter()).map(|&(_, var, loc, _)| (var, loc));
                    let own = s.plain_writes.iter().map(|&(var, loc, _)| (var, loc));
                    for (var, loc) in writes.chain(own) {
                        let checked = s.plain_checked.contains(&(var, loc));
                        self.dispatch(cx.at, q, class, var, loc, checked);
                    }
                }
                for &(slot, class, var, loc, checked) in &s.dispatched {
                    let a = arg(slot);
                    if a.alloc != 0
                        && !self.p.is_subclass_of(
                            &self.p.class(a.alloc - 1).name,
                            &self.p.class(class).name,
                        )
                    {
                        continue;
                    }
                    match pure_param(a) {
                        Some(q) if outer.is_none() => {
                            self.dispatch(cx.at, q, class, var, loc, checked)
                        }
                        _ => {
                            let v = if checked { Val::default() } else { fctl };
                            self.write(cx.at, var, (v, 0), 0, outer, loc, checked);
                        }
                    }
                }
                for &(slot, var, loc, on) in &s.param_plain_writes {
                    if dispatch_on.is_some() {
                        continue;
                    }
                    // Installed only if it still relates so to what is there now: a stale value
                    // passed in overwrites nothing it did not see, and decides nothing more.
                    let compared =
                        outer.is_some() && s.param_plain_compared.contains(&(slot, var, loc));
                    let checked = compared || s.plain_checked.contains(&(var, loc));
                    // Re-checked: as for the callee's own regions (above), the caller's
                    // condition decides nothing, not even as the implicit flow an argument
                    // computed under it carries.
                    let v = if compared {
                        Val::default()
                    } else if checked {
                        arg(slot).without_control(ctl)
                    } else {
                        arg(slot).or(fctl)
                    };
                    let on = object(on);
                    self.helper_write(cx.at, var, outer);
                    self.write(cx.at, var, (v, on), arg(slot).data, outer, loc, checked);
                }
                for &(var, loc, on) in &s.plain_writes {
                    if dispatch_on.is_some() {
                        continue;
                    }
                    let checked = s.plain_checked.contains(&(var, loc));
                    let v = if checked { Val::default() } else { fctl };
                    self.helper_write(cx.at, var, outer);
                    self.write(cx.at, var, (v, object(on)), 0, outer, loc, checked);
                }
                for &(i, j) in &s.param_pairs {
                    let v = arg(i).or(arg(j));
                    self.define(cx.at, v, None);
                }
            }
            if cx.produces {
                self.define(cx.at, result, None);
            }
        }
        result
    }
}

impl Analysis for Run<'_> {
    type V = Val;

    fn join(&self, a: &Val, b: &Val, _region: Option<u32>) -> Val {
        a.join(b)
    }

    fn entry_local(&mut self, slot: usize) -> Val {
        let src = if slot < self.nparams { 1 << slot } else { 0 };
        Val {
            src,
            data: src,
            ..Val::default()
        }
    }

    fn observe(&mut self, _at: u32, frame: &Frame<Val>) {
        self.locks_at(&frame.locks);
    }

    /// The regions held, on every pass ([`Run::exited`] asks them).
    const LOCKS: bool = true;

    fn locks_at(&mut self, locks: &locks::LockState) {
        self.held.clear();
        self.held.extend(
            (locks.held.iter())
                .map(|h| h.site)
                .filter(|&s| s != CALLER_SITE),
        );
    }

    const STORES: bool = true;
    const CONTENTS: bool = true;

    fn contents(&mut self, array: &mut Val, stored: &Val) {
        // The array this method made holds what went into it: an element loaded from it is a
        // value of the states it was read from (`old[c] = counts[c]` in one region, `counts[c] =
        // old[c] + n` in the next), leaving regions with the array. So does an object it made
        // of what its constructor was handed (`new Lease(node, cur.epoch + 1)`).
        let m = array.or(*stored);
        array.src = m.src;
        array.data = m.data;
        array.left = m.left;
        array.again = m.again;
        array.mine = m.mine;
    }

    fn stored(&mut self, _place: locks::Sym, _single_writer: bool, v: &mut Val) {
        v.mine |= self.took & v.src;
        if self.publish != 0 && v.born == self.publish {
            v.local = false;
        }
    }

    fn validated(&mut self, site: u32, v: &mut Val) {
        // Where the compare-and-set succeeded, the values it compared are current again.
        if let Some(&m) = self.checked.get(&site) {
            v.left &= !m;
            v.again &= !m;
        }
    }

    fn region(&mut self, ev: RegionEvent, v: &mut Val) {
        if let RegionEvent::Exit { site, at, .. } = ev {
            self.exit_at.entry(site).or_insert(at);
            if let Some(&m) = self.exit_mask.get(&site) {
                // The instances read again leave too.
                v.again &= !m;
                let newly = v.src & m & !v.left;
                if newly != 0 {
                    v.left |= newly;
                    for b in bits(newly) {
                        if self.left_at[b] == NO_LEFT {
                            self.left_at[b] = at;
                        }
                    }
                }
            }
        }
    }

    fn transfer(&mut self, cx: &StepCx, inputs: &mut [Val]) -> Val {
        let at = cx.at;
        self.took = 0;
        self.publish = 0;
        let op = self.code.insns[at as usize].op.clone();
        let mut ctl = self.control(at);
        // A condition tested inside a region that is no longer held has left it, on every
        // pass: a value made under it after the exit (a loop counter's `i = 0`) carries the
        // look as left, not as a fresh read that a later condition on it would make again.
        self.exited(&mut ctl, at, cx.record);
        if cx.record {
            self.escapes(cx.kind, inputs);
            self.handed(cx.kind, &op, inputs);
            let entry = matches!(cx.kind, StepKind::Lock | StepKind::Call(_));
            if entry && cx.caller_region.is_none() {
                self.decided(at, ctl);
            }
        }
        // After a wait's guard, its condition decides the writes that follow (as a check: it
        // is no operand of what they compute, and the method enters their sections on every
        // path).
        if !self.wait_guards.is_empty() {
            let mut post = self.wait_post(at);
            self.exited(&mut post, at, cx.record);
            self.post = post.keep(post.left);
        }
        match cx.kind {
            StepKind::Fresh => Val {
                flag: match op {
                    Op::Flag(k) => flag_of(case_of(k), at),
                    _ => None,
                },
                local: matches!(op, Op::New(_)),
                born: if matches!(op, Op::New(_)) { at + 1 } else { 0 },
                alloc: match op {
                    Op::New(r) => self
                        .p
                        .class_index(&self.class.member(r).class)
                        .map_or(0, |c| c + 1),
                    _ => 0,
                },
                ..ctl
            },
            StepKind::Iinc | StepKind::Compute | StepKind::Format => {
                let v = union(inputs).or(ctl);
                // Values formatted into a message are shown, not combined: a mixed pair in a
                // log line decides nothing (no correlation, Definition 2).
                if cx.record && cx.kind != StepKind::Format {
                    self.define(at, v, None);
                }
                v
            }
            StepKind::HeapRead | StepKind::StableRead => match op {
                Op::GetField(r) | Op::GetStatic(r) => {
                    let on_local =
                        matches!(op, Op::GetField(_)) && inputs.first().is_some_and(|o| o.local);
                    let (var, field) = self.field_var(r);
                    let var = var.filter(|_| !on_local);
                    // The object whose field this is, when it is a parameter's (or `this`).
                    let on = match op {
                        Op::GetField(_) => inputs.first().map_or(0, |o| object_on(*o)),
                        _ => 0,
                    };
                    let mut v = ctl;
                    if let Some(var) = var {
                        if cx.record {
                            self.access(at, var, READ, None);
                        }
                        let read = self.read(at, var, cx.region, None);
                        self.mark_on(read.src, on);
                        if let Some(o) = inputs.first() {
                            self.walks |= read.src & o.src;
                        }
                        if let (Some(site), true) = (Self::own(cx.region), cx.record) {
                            let g = GAccess {
                                var,
                                node: self.node,
                                site,
                                loc: self.loc(at),
                            };
                            self.note_on(g, on);
                        }
                        if crate::bytecode::is_reference(&self.class.member(r).desc) {
                            self.objects |= read.src & self.atomic;
                        }
                        v = v.or(read);
                    }
                    // A stable field's value is as old as the object it is read from (`final int
                    // size` of a session read without the lock is that stale session's size).
                    if let (StepKind::StableRead, Op::GetField(_), Some(o)) =
                        (cx.kind, &op, inputs.first())
                    {
                        v = v.or(*o);
                    }
                    v.field = field;
                    v.base = on;
                    // What an object of this method's own holds in a field its class fills
                    // only with new objects (`final AtomicBoolean inUse = new AtomicBoolean()`)
                    // is new too, and published with it.
                    if on_local {
                        let m = self.class.member(r);
                        if (self.p.field_owner(&m.class, &m.name))
                            .is_some_and(|f| self.p.owns_field(f))
                        {
                            v.local = true;
                            v.born = inputs.first().map_or(0, |o| o.born);
                        }
                    }
                    if let Op::GetStatic(r) = op {
                        let m = self.class.member(r);
                        if let Some(k) =
                            crate::analysis::sharing::boolean_constant(&m.class, &m.name)
                        {
                            v.flag = flag_of(case_of(k), at);
                        } else if self.code_constant(r) {
                            v.flag = flag_of(NONZERO, at);
                        }
                    }
                    v
                }
                Op::ArrayLoad(_) => {
                    let arr = inputs.first().map_or(0, |a| a.field);
                    let mut v = union(inputs).or(ctl);
                    if let Some(var) = self.derived_var(arr, ELEMENTS) {
                        if cx.record {
                            self.access(at, var, READ, None);
                        }
                        v = v.or(self.read(at, var, cx.region, None));
                    }
                    v.field = arr;
                    v
                }
                _ => union(inputs).or(ctl),
            },
            StepKind::Sink | StepKind::Branch => {
                match op {
                    Op::PutField(_) if inputs.first().is_some_and(|o| o.local) => {}
                    Op::PutField(r) | Op::PutStatic(r) => {
                        let stored = match op {
                            Op::PutField(_) => inputs.get(1..).unwrap_or(&[]),
                            _ => inputs,
                        };
                        // An object of this method's own stored where others can reach it.
                        if let [o] = stored {
                            if o.local {
                                self.publish = o.born;
                            }
                        }
                        let value = union(stored);
                        let var = self.field_var(r).0;
                        if let (Some(var), Some(site)) = (var, Self::own(cx.region)) {
                            self.region_writes.insert((var, site));
                            self.note_test_and_set(at, var, site);
                            // A read-modify-write in one critical section: what the reads
                            // of the variable it wrote from gave this thread is its own.
                            self.took = bits(value.data & self.atomic & value.current())
                                .filter(|&b| matches!(self.srcs[b], Src::Atomic(g) if g.var == var))
                                .fold(0, |m, b| m | 1 << b);
                        }
                        let on = match op {
                            Op::PutField(_) => inputs.first().map_or(0, |o| object_on(*o)),
                            _ => 0,
                        };
                        if let (Some(var), Some(site), true, Some(o)) =
                            (var, Self::own(cx.region), cx.record, inputs.first())
                        {
                            if matches!(op, Op::PutField(_)) {
                                self.region_object(site, var, o.data, at);
                            }
                        }
                        if let (Some(var), true) = (var, cx.record) {
                            self.access(at, var, WRITE, None);
                            let w = (value.or(self.ctl_flow(ctl)), on);
                            self.write(at, var, w, value.data, cx.region, self.loc(at), false);
                            self.define(at, value.or(ctl), Some(var));
                        }
                    }
                    Op::ArrayStore(_) => {
                        let arr = inputs.first().map_or(0, |a| a.field);
                        let value = union(inputs.get(1..).unwrap_or(&[]));
                        let var = self.derived_var(arr, ELEMENTS);
                        if let (Some(var), Some(site)) = (var, Self::own(cx.region)) {
                            self.region_writes.insert((var, site));
                        }
                        if let (Some(var), true) = (var, cx.record) {
                            self.access(at, var, WRITE, None);
                            // The index says which element is written, as a condition says
                            // whether: it is no value written, and the outcome of a callee's
                            // own update (the slot `acquire()` found free and claimed) is the
                            // thread's own choice of element, not a snapshot.
                            let index = inputs.get(1).copied().unwrap_or_default();
                            let stored = union(inputs.get(2..).unwrap_or(&[]));
                            let w = stored.or(self.ctl_flow(index)).or(self.ctl_flow(ctl));
                            self.write(
                                at,
                                var,
                                (w, 0),
                                stored.data,
                                cx.region,
                                self.loc(at),
                                false,
                            );
                            self.define(at, value.or(ctl), Some(var));
                        }
                    }
                    Op::If { .. } | Op::Switch(_) => {
                        let mut u = union(inputs);
                        match inputs {
                            [only] => u.flag = only.flag,
                            // A code compared with the constant pushed right before it, or
                            // with one pushed before the code (`START == action`).
                            [code, k]
                                if k.flag.as_ref().and_then(only_site) == at.checked_sub(1) =>
                            {
                                u.flag = code.flag;
                            }
                            [k, code]
                                if k.flag.as_ref().and_then(only_site) == at.checked_sub(2)
                                    && matches!(
                                        (at.checked_sub(1))
                                            .and_then(|l| self.code.insns.get(l as usize)),
                                        Some(i) if matches!(i.op, Op::Load(..))
                                    ) =>
                            {
                                u.flag = code.flag;
                            }
                            _ => {}
                        }
                        // Joined over the visits (paths and loop iterations) of the branch.
                        (self.branch.entry(at))
                            .and_modify(|e| *e = e.join(&u))
                            .or_insert(u);
                        if cx.record {
                            self.define(at, u, None);
                            for b in bits(u.data) {
                                if let Src::Outcome(_, site) = self.srcs[b] {
                                    self.outcome_tested.insert(site);
                                }
                            }
                            if let Some(site) = Self::own(cx.region) {
                                self.note_requires(at, u, site);
                            }
                        }
                    }
                    _ => {}
                }
                Val::default()
            }
            StepKind::Return => {
                // A `void` method returns nothing its callers could use: the conditions that
                // lead to one of its `return`s are not a value it hands out.
                if cx.record && !inputs.is_empty() {
                    let mut v = union(inputs).or(ctl);
                    // An object this thread owns (taken out: `poll()`; or new: `create()`) is
                    // handed over whatever decided which one: the look that chose between them
                    // (`if (idle.isEmpty()) return create();`) says nothing a caller can act
                    // on stale by storing the object. Only what reached it as data is returned.
                    let r = inputs[0];
                    let owned =
                        r.local || bits(r.data).any(|b| matches!(self.srcs[b], Src::Outcome(..)));
                    if owned && self.p.method(self.id).returns_reference() {
                        v = Val {
                            src: r.data,
                            data: r.data,
                            ..r
                        };
                    }
                    let nothing = inputs
                        .first()
                        .and_then(|r| r.flag)
                        .is_some_and(|f| f[NULL] != NONE || f[ZERO] != NONE);
                    if nothing && bits(v.src).any(|b| matches!(self.srcs[b], Src::Outcome(..))) {
                        self.out.summary.ret_failure = true;
                    }
                    self.out.summary.ret_params |= v.src & PARAM_MASK;
                    for b in bits(v.src & !PARAM_MASK) {
                        match self.srcs[b] {
                            Src::Atomic(g) => push_capped(&mut self.out.summary.ret_reads, g),
                            Src::Plain(var, loc) => {
                                let on = match self.src_on[b] {
                                    UNSET => 0,
                                    on => on,
                                };
                                push_capped(&mut self.out.summary.ret_plain, (var, loc, on))
                            }
                            Src::Outcome(var, _) => {
                                push_capped(&mut self.out.summary.ret_outcome, var)
                            }
                            Src::Param => {}
                        }
                    }
                }
                Val::default()
            }
            StepKind::Lock => Val::default(),
            StepKind::Call(effect) => self.call(cx, effect, inputs, ctl),
        }
    }
}

/// The member the instruction at `at` calls, if it is a call.
fn call_at<'c>(
    class: &'c crate::bytecode::Class,
    code: &crate::bytecode::Code,
    at: u32,
) -> Option<&'c crate::bytecode::MemberRef> {
    match code.insns.get(at as usize)?.op {
        Op::Invoke(_, r) => Some(class.member(r)),
        _ => None,
    }
}

/// Whether the instruction at `at` removes a map's entry by key (`remove(k)`, giving back the
/// value it removed).
fn removes_by_key(class: &crate::bytecode::Class, code: &crate::bytecode::Code, at: u32) -> bool {
    call_at(class, code, at).is_some_and(|r| {
        &*r.name == "remove" && &*r.desc == "(Ljava/lang/Object;)Ljava/lang/Object;"
    })
}

/// Whether the value the instruction at `at` produces is used for more than a test against
/// `null`: dereferenced, handed to a call, compared or returned (looked into), directly or
/// through the local it is stored in (up to the next store into that local, in code order: a
/// local given another value, `e = map.remove(k)`, holds that one).
fn looked_into(code: &crate::bytecode::Code, at: u32) -> bool {
    let op = |k: usize| code.insns.get(k).map(|i| &i.op);
    let mut k = at as usize + 1;
    while matches!(op(k), Some(Op::CheckCast)) {
        k += 1;
    }
    let null_test = |k: usize| {
        matches!(op(k), Some(Op::If { cond, .. })
            if matches!(cond, crate::bytecode::Cond::Null | crate::bytecode::Cond::NonNull))
    };
    let Some(&Op::Store(slot, _)) = op(k) else {
        return !null_test(k);
    };
    for (j, i) in code.insns.iter().enumerate().skip(k + 1) {
        match i.op {
            Op::Store(s, _) if s == slot => return false,
            Op::Load(s, _) if s == slot => {
                let mut n = j + 1;
                while matches!(op(n), Some(Op::CheckCast)) {
                    n += 1;
                }
                if !null_test(n) {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

/// Analyse one node with the callee summaries computed so far.
fn analyse(
    p: &Program,
    fields: &FieldTable,
    views: &Graph,
    outs: &[Option<NodeOut>],
    node: usize,
) -> Option<NodeOut> {
    let Node { method, this_held } = views.nodes[node];
    let class = p.class(method.class);
    let m = p.method(method);
    let code = m.code.as_ref()?;
    let cfg = Cfg::build(code);
    let cx = MethodCx {
        program: p,
        this_held,
        class_id: method.class,
        class,
        method: m,
        code,
        cfg: &cfg,
        entry_locks: p.entry_locks(method),
        calls: None,
    };
    let calls = views.facts[node]
        .calls
        .iter()
        .enumerate()
        .map(|(i, c)| (c.at, i))
        .collect();
    let nparams = (m.param_slots() as usize).min(PARAMS);
    let mut run = Run {
        p,
        fields,
        views,
        outs,
        node: node as u32,
        id: method,
        class,
        code,
        block_of: &cfg.block_of,
        ctrl: p.with_known(method.class, |known| {
            control_dependence(&cfg, class, code, known)
        }),
        wait_guards: Vec::new(),
        post: Val::default(),
        calls,
        nparams,
        branch: FxHashMap::default(),
        srcs: vec![Src::Param; PARAMS],
        keys: FxHashMap::default(),
        exit_mask: FxHashMap::default(),
        region_objects: FxHashMap::default(),
        walks: 0,
        exit_at: FxHashMap::default(),
        region_sets: Vec::new(),
        owned_edges: FxHashMap::default(),
        cfg: &cfg,
        left_at: [NO_LEFT; 64],
        src_on: [UNSET; 64],
        atomic: 0,
        imported: 0,
        own_outcome: 0,
        took: 0,
        publish: 0,
        unlocked: 0,
        got: 0,
        via: [NO_LEFT; 64],
        held: Vec::new(),
        combined: FxHashSet::default(),
        flowed: 0,
        objects: 0,
        region_writes: FxHashSet::default(),
        checked: FxHashMap::default(),
        outcome_tested: FxHashSet::default(),
        key_puts: Vec::new(),
        out: NodeOut::default(),
    };
    run.wait_guards = locks::wait_sites(p, class, code)
        .flat_map(|w| {
            let c = run.ctrl.get(cfg.block_of[w as usize] as usize);
            c.map_or(&[][..], |c| &c.branches[..c.direct]).to_vec()
        })
        .map(|br| (br, cfg.dominated_by(cfg.block_of[br as usize])))
        .collect();
    engine::run(&cx, &mut run).ok()?;
    // A decision on a stale value that leads to an update whose own outcome the code then
    // tests (`if (q.size() > 0) { r = q.poll(); if (r != null) ... }`, `if (rc.get() > 0) { if
    // (rc.decrementAndGet() == 0) ... }`) acts on what the update reports, not on the stale
    // value: the test handles the state another thread left.
    let tested = std::mem::take(&mut run.outcome_tested);
    // An update whose outcome this method tests re-checks the variable for its callers.
    let own = |w: &GAccess| w.node == node as u32 && w.loc.method == method;
    let updates: Vec<GAccess> = (run.out.summary.writes.iter())
        .filter(|w| own(w) && tested.contains(&w.loc.at))
        .copied()
        .collect();
    for w in updates {
        push_capped(&mut run.out.summary.outcome_checked, (w.var, w));
    }
    // A removal by key says only that an entry was there (`if (map.remove(k) != null)`): it
    // re-checks a look at whether the key was there, not one at what its entry held (`e =
    // map.get(k); if (e.expired()) { if (map.remove(k) != null) .. }` removes whatever entry
    // another thread put meanwhile; `remove(k, e)` is the check).
    let content_look = |f: &Flow| {
        f.src.loc.method == method
            && removes_by_key(class, code, f.dst.loc.at)
            && call_at(class, code, f.src.loc.at)
                .is_some_and(|r| p.thread_safe.is_key_read(&r.name, &r.desc))
            && looked_into(code, f.src.loc.at)
    };
    let untested = |f: &Flow| {
        !(f.check
            && f.dst.node == node as u32
            && f.dst.loc.method == method
            && tested.contains(&f.dst.loc.at))
            || content_look(f)
    };
    run.out.flows.retain(untested);
    run.out.links.retain(untested);
    Some(run.out)
}

/// Whether a method may enter a region itself: a lock of its own, or a call on a thread-safe
/// library object.
fn opens_region(p: &Program, views: &Graph, node: usize) -> bool {
    if !views.facts[node].regions.is_empty() {
        return true;
    }
    let id = views.nodes[node].method;
    let class = p.class(id.class);
    let Some(code) = &p.method(id).code else {
        return false;
    };
    code.insns.iter().any(|i| match i.op {
        Op::Invoke(_, r) => {
            let m = class.member(r);
            p.thread_safe.is_class(&m.class)
                || locks::call_locks_directly(p, m, crate::bytecode::InvokeKind::Virtual)
        }
        Op::GetField(r) | Op::GetStatic(r) => {
            let m = class.member(r);
            p.is_thread_safe_field(&m.class, &m.name)
        }
        _ => false,
    })
}

/// The nodes analysed (see [`analyse_nodes`]): what [`finish`] derives the graph from.
pub struct Analysed {
    outs: Vec<Option<NodeOut>>,
    preds: Vec<Vec<usize>>,
    profile: Vec<String>,
    t0: std::time::Instant,
}

/// Analyse the nodes that matter, callees first: what needs only the explored graph, so that
/// it can run beside the computation of the views over it.
/// Whether variable `x` is one this analysis follows beyond the views' fields: array elements,
/// thread-safe object states, plain collections' contents, and `volatile` fields
/// (`FieldTable::is_valued`).
fn followed_only(fields: &FieldTable, x: Var) -> bool {
    var_kind(x) != FIELD || !fields.is_tracked(var_field(x))
}

/// Whether node `v` is a getter: a method that calls nothing (a leaf of the call graph, with
/// no region of its own: a synchronized one's look is a region's). What it returns of the
/// fields it reads is a look its caller makes, one call away.
fn getter(views: &Graph, v: usize) -> bool {
    views.facts[v].calls.is_empty() && views.facts[v].regions.is_empty()
}

/// Whether method `id` reads a field whose values the causal graph follows
/// ([`FieldTable::is_valued`]).
fn reads_valued(p: &Program, fields: &FieldTable, id: MethodId) -> bool {
    let class = p.class(id.class);
    p.method(id).code.as_ref().is_some_and(|code| {
        code.insns.iter().any(|i| match i.op {
            Op::GetField(r) | Op::GetStatic(r) => {
                let m = class.member(r);
                (fields.raw_id(p, &m.class, &m.name)).is_some_and(|f| fields.is_valued(f))
            }
            _ => false,
        })
    })
}

pub fn analyse_nodes(p: &Program, views: &Graph) -> Analysed {
    let t0 = std::time::Instant::now();
    let n = views.nodes.len();
    let fields = &views.fields;
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (a, es) in views.edges.iter().enumerate() {
        for &b in es {
            preds[b].push(a);
        }
    }
    // Nodes that matter: those whose dynamic scope enters a region (values can leave and enter
    // regions there), and those called inside a region (their reads and writes are the
    // caller's region's).
    let opens: Vec<bool> = (0..n)
        .into_par_iter()
        .with_max_len(crate::PAR_CHUNK)
        .map(|v| opens_region(p, views, v))
        .collect();
    let mut relevant = vec![false; n];
    let mut stack: Vec<usize> = (0..n).filter(|&v| opens[v]).collect();
    while let Some(v) = stack.pop() {
        if !std::mem::replace(&mut relevant[v], true) {
            stack.extend(preds[v].iter().copied());
        }
    }
    // The getters the relevant nodes call (see [`getter`]): what their looks return is a
    // caller's check.
    let getters: Vec<usize> = (0..n)
        .filter(|&v| relevant[v])
        .flat_map(|v| views.edges[v].iter().copied())
        .filter(|&w| {
            !relevant[w] && getter(views, w) && reads_valued(p, fields, views.nodes[w].method)
        })
        .collect();
    for w in getters {
        relevant[w] = true;
    }
    let mut under = vec![false; n];
    for f in &views.facts {
        for c in f.calls.iter().filter(|c| !c.held.is_empty()) {
            for &t in &c.targets {
                if let Some(w) = views.node_index(Node {
                    method: t,
                    this_held: c.this_held,
                }) {
                    stack.push(w);
                }
            }
        }
    }
    while let Some(v) = stack.pop() {
        if !std::mem::replace(&mut under[v], true) {
            stack.extend(views.edges[v].iter().copied());
        }
    }
    for (r, u) in relevant.iter_mut().zip(&under) {
        *r |= *u;
    }
    let count = relevant.iter().filter(|&&r| r).count();
    // Callees first: components in reverse topological order, level by level in parallel.
    let comp = tarjan(&views.edges);
    let ncomp = comp.iter().copied().max().map_or(0, |m| m + 1);
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); ncomp];
    for (v, &c) in comp.iter().enumerate() {
        members[c].push(v);
    }
    let mut level = vec![0u32; ncomp];
    for c in 0..ncomp {
        level[c] = members[c]
            .iter()
            .flat_map(|&v| views.edges[v].iter().map(|&w| comp[w]))
            .filter(|&w| w != c)
            .map(|w| level[w] + 1)
            .max()
            .unwrap_or(0);
    }
    let depth = level.iter().copied().max().map_or(0, |m| m as usize + 1);
    let mut by_level: Vec<Vec<usize>> = vec![Vec::new(); depth];
    for v in 0..n {
        if relevant[v] {
            by_level[level[comp[v]] as usize].push(v);
        }
    }
    let mut outs: Vec<Option<NodeOut>> = (0..n).map(|_| None).collect();
    for nodes in &by_level {
        let done = &outs;
        let computed: Vec<(usize, Option<NodeOut>)> = nodes
            .par_iter()
            .with_max_len(crate::PAR_CHUNK)
            .map(|&v| (v, analyse(p, fields, views, done, v)))
            .collect();
        for (v, o) in computed {
            outs[v] = o;
        }
    }
    let profile = vec![format!(
        "causal: {count} of {n} nodes analysed, at {:?}",
        t0.elapsed()
    )];
    Analysed {
        outs,
        preds,
        profile,
        t0,
    }
}

/// The causal graph from the analysed nodes and the views: region views, correlated and
/// dependent pairs.
pub fn finish(views: &Views, a: Analysed) -> CausalGraph {
    let Analysed {
        outs,
        preds,
        mut profile,
        t0,
    } = a;
    let region_views = region_views(views, &outs);
    let mut correlated: FxHashMap<(Var, Var), Vec<(usize, Combine)>> = FxHashMap::default();
    let mut gathered: FxHashMap<(Var, Var), Vec<(usize, Combine)>> = FxHashMap::default();
    for (v, o) in outs.iter().enumerate() {
        let Some(o) = o else { continue };
        for (list, map) in [(&o.combines, &mut correlated), (&o.gathers, &mut gathered)] {
            for c in list {
                // A few witnesses of each kind: one read in separate critical sections is the
                // one a violation is reported at.
                let w = map.entry((c.a.var, c.b.var)).or_default();
                if w.iter().filter(|(_, o)| o.split == c.split).count() < 4 {
                    w.push((v, *c));
                }
            }
        }
    }
    let depends: FxHashSet<(Var, Var)> = outs
        .iter()
        .flatten()
        .flat_map(|o| o.depends.iter().copied())
        .collect();
    profile.push(format!(
        "causal: {} region views, {} correlated pairs, {} dependent pairs, at {:?}",
        region_views.len(),
        correlated.len(),
        depends.len(),
        t0.elapsed()
    ));
    CausalGraph {
        outs,
        views: region_views,
        correlated,
        gathered,
        depends,
        preds,
        profile,
    }
}

/// The region views: each lock view of [`Views`] (its dynamic scope) with reads and writes told
/// apart where this analysis saw the access itself (a field written in a callee counts as read
/// and written), plus array elements and thread-safe object states accessed in the region, plus
/// one view per one-call region on a thread-safe object.
fn region_views(views: &Views, outs: &[Option<NodeOut>]) -> Vec<RegionView> {
    // In chunks, each interned before the next is computed: only one chunk's lists are held
    // unshared at a time.
    let mut lists = VarLists::default();
    let mut out: Vec<RegionView> = Vec::with_capacity(views.lock_views.len());
    let ids: Vec<usize> = (0..views.lock_views.len()).collect();
    for chunk in ids.chunks(512) {
        let computed: Vec<(usize, u32, Vec<Var>, Vec<Var>)> = chunk
            .par_iter()
            .map(|&lvi| {
                let lv = &views.lock_views[lvi];
                let own: Vec<&Acc> = outs[lv.node]
                    .as_ref()
                    .map(|o| {
                        o.accesses
                            .iter()
                            .filter(|a| a.held.contains(&lv.site))
                            .collect()
                    })
                    .unwrap_or_default();
                let mut reads = Vec::new();
                let mut writes = Vec::new();
                for (f, k) in views.lock_view_fields(lvi) {
                    let var = var_of(f, FIELD);
                    if k & WRITE != 0 {
                        writes.push(var);
                        let own_read = own.iter().any(|a| a.var == var && a.kind & READ != 0);
                        let own_write = own.iter().any(|a| a.var == var && a.kind & WRITE != 0);
                        if own_read || !own_write {
                            reads.push(var);
                        }
                    } else {
                        reads.push(var);
                    }
                }
                for a in own.iter().filter(|a| followed_only(&views.fields, a.var)) {
                    if a.kind & READ != 0 {
                        reads.push(a.var);
                    }
                    if a.kind & WRITE != 0 {
                        writes.push(a.var);
                    }
                }
                reads.sort_unstable();
                reads.dedup();
                writes.sort_unstable();
                writes.dedup();
                (lv.node, lv.site, reads, writes)
            })
            .collect();
        for (node, site, reads, writes) in computed {
            out.push(RegionView {
                node,
                site,
                reads: lists.intern(reads),
                writes: lists.intern(writes),
            });
        }
    }
    drop(lists);
    // Regions that touch no tracked field have no lock view (`views` keeps only those with
    // fields), yet their element and state accesses are writes another region can race with:
    // a synchronized method that only stores into a final array (`slots[i] = owner`).
    let have: FxHashSet<(usize, u32)> = views
        .lock_views
        .iter()
        .map(|lv| (lv.node, lv.site))
        .collect();
    let mut extra: FxHashMap<(usize, u32), (Vec<Var>, Vec<Var>)> = FxHashMap::default();
    for (v, o) in outs.iter().enumerate() {
        let Some(o) = o else { continue };
        for a in o
            .accesses
            .iter()
            .filter(|a| followed_only(&views.fields, a.var))
        {
            for &site in a.held.iter().filter(|&&s| s != a.at) {
                if have.contains(&(v, site)) {
                    continue;
                }
                let e = extra.entry((v, site)).or_default();
                if a.kind & READ != 0 {
                    e.0.push(a.var);
                }
                if a.kind & WRITE != 0 {
                    e.1.push(a.var);
                }
            }
        }
    }
    let mut extra: Vec<_> = extra.into_iter().collect();
    extra.sort_unstable_by_key(|(k, _)| *k);
    for ((node, site), (mut reads, mut writes)) in extra {
        reads.sort_unstable();
        reads.dedup();
        writes.sort_unstable();
        writes.dedup();
        out.push(RegionView {
            node,
            site,
            reads: reads.into(),
            writes: writes.into(),
        });
    }
    for (v, o) in outs.iter().enumerate() {
        let Some(o) = o else { continue };
        for a in o.accesses.iter().filter(|a| var_kind(a.var) == STATE) {
            if a.held.last() != Some(&a.at) {
                continue;
            }
            out.push(RegionView {
                node: v,
                site: a.at,
                reads: if a.kind & READ != 0 {
                    vec![a.var].into()
                } else {
                    Vec::new().into()
                },
                writes: if a.kind & WRITE != 0 {
                    vec![a.var].into()
                } else {
                    Vec::new().into()
                },
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vars_round_trip() {
        let v = var_of(12345, STATE);
        assert_eq!(var_field(v), 12345);
        assert_eq!(var_kind(v), STATE);
    }

    #[test]
    fn a_flag_keeps_the_codes_made_at_distinct_instructions() {
        let one = |case, at| flag_of(case, at).unwrap_or([NONE; FLAG_SLOTS]);
        // `START` at 16, `SKIP` at 28, `QUEUED` at 43, and `false` at 50.
        let f = join_flags(
            join_flags(one(NONZERO, 16), one(NONZERO, 28)),
            one(NONZERO, 43),
        );
        assert_eq!(&f[NONZERO..NONZERO + 3], &[16, 28, 43]);
        assert_eq!(case_site(&f, NONZERO), MANY, "no one site for `!= 0`");
        assert_eq!(only_site(&f), None);
        let g = join_flags(f, one(ZERO, 50));
        assert_eq!(g[ZERO], 50);
        // The same site on both paths counts once.
        assert_eq!(join_flags(f, one(NONZERO, 28)), f);
        assert_eq!(only_site(&one(NONZERO, 7)), Some(7));
        assert_eq!(case_site(&one(NONZERO, 7), NONZERO), 7);
        // More codes than are kept: several, none told apart.
        let many = (0..=CODES as u32).fold(one(NULL, 1), |acc, k| {
            join_flags(acc, one(NONZERO, 100 + k))
        });
        assert_eq!(many[NULL], 1);
        assert_eq!(&many[NONZERO..], &[MANY, NONE, NONE, NONE]);
        assert_eq!(join_flags(many, one(NONZERO, 5))[NONZERO], MANY);
    }

    #[test]
    fn bits_iterates_set_bits() {
        assert_eq!(bits(0b1010_0001).collect::<Vec<_>>(), vec![0, 5, 7]);
    }

    fn val(src: u64, data: u64, left: u64) -> Val {
        Val {
            src,
            data,
            left,
            ..Val::default()
        }
    }

    #[test]
    fn a_source_read_again_on_one_path_is_current() {
        // Last iteration's instance (left) and this iteration's (current), in one value.
        let last = val(0b1, 0b1, 0b1);
        let now = val(0b1, 0b1, 0);
        let both = last.or(now);
        assert_eq!(both.left, 0b1);
        assert_eq!(both.current(), 0b1);
        // Left on its own: not current.
        assert_eq!(last.current(), 0);
    }

    #[test]
    fn a_source_read_again_on_one_of_two_paths_is_not_current() {
        let stale = val(0b1, 0b1, 0b1);
        let again = val(0b1, 0b1, 0b1).or(val(0b1, 0b1, 0));
        assert_eq!(stale.join(&again).current(), 0);
        assert_eq!(again.join(&again).current(), 0b1);
        // A path that does not carry the source at all does not make it stale.
        assert_eq!(again.join(&val(0b10, 0b10, 0)).current() & 0b1, 0b1);
    }

    #[test]
    fn a_pair_is_split_only_where_no_place_holds_both() {
        let (inside, wait, release) = (Places::one(NO_LEFT), 7, 9);
        // Read again after the wait: inside this region, or left at the wait as last time.
        let again = Places::two(wait, NO_LEFT);
        assert!(!again.and(inside).is_empty());
        assert!(!again.and(Places::one(wait)).is_empty());
        assert!(again.and(Places::one(release)).is_empty());
        assert!(Places::one(wait).and(inside).is_empty());
        // Two instances of one variable that left at different places are nowhere together.
        assert!(Places::one(wait).and(Places::one(release)).is_empty());
        assert_eq!(again.and(Places::one(wait)), Places::one(wait));
    }

    #[test]
    fn without_control_keeps_data() {
        let ctl = val(0b110, 0, 0b110);
        // An argument computed from source 2, loaded where the condition on 1 and 2 holds.
        let arg = val(0b111, 0b100, 0b110);
        let v = arg.without_control(ctl);
        assert_eq!(v.src, 0b101);
        assert_eq!(v.left, 0b100);
        assert_eq!(v.data, 0b100);
    }
}
