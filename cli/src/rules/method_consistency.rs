//! `method-consistency`: von Praun and Gross's method consistency (see `method_consistency.md`
//! beside this file), over the lock views and method views of [`crate::whole::views`].
//!
//! For each method view (a method whose dynamic scope synchronizes) and each class whose fields
//! it accesses, the lock views that overlap it must form a chain: their intersections with the
//! method view must be ordered by inclusion, for every pair with at least one view from a thread
//! concurrent to the method's. Reported: only methods that access variables of a subordinate
//! lock view (one in their own dynamic scope), and only the lowest such methods in the call
//! hierarchy.

use rayon::prelude::*;
use std::cell::RefCell;

use crate::analysis::guards::GuardKey;
use crate::analysis::locks::METHOD_SITE;
use crate::bytecode::cfg::Cfg;
use crate::explain::{source_path, Diagnostic, Step, StepKind};
use crate::fxhash::{FxHashMap, FxHashSet};
use crate::program::Program;
use crate::rules::RuleId;
use crate::whole::causal::{CausalGraph, GAccess, Loc};
use crate::whole::facts::{FieldId, LockKey, READ, WRITE};
use crate::whole::threads::own_operation;
use crate::whole::views::{FieldSet, Views};

/// One violation before reporting: a method view (node) and the two lock views that break the
/// chain for the fields of one class.
struct Violation {
    node: usize,
    class: u32,
    /// The method view's fields of that class.
    vars: Vec<FieldId>,
    a: Section,
    b: Section,
    /// A node of a concurrent thread writing one of the involved fields.
    writer: usize,
    /// `b` is not a section of the method but a concurrent thread's lock view that does not
    /// nest with `a` (the method's own sections are split for that thread's update); then the
    /// method's other section that can run before or after `a`, and whether it comes first in
    /// the method.
    foreign: Option<(Section, bool)>,
    /// In a library: the method and the concurrent writer are not both operations of the
    /// fields' class (see [`own_operation`]): a note.
    indirect: bool,
}

/// Whether a thread of `a` and one of `b` can touch one object's fields of `class` at once.
fn concurrent(v: &Views, a: &[u32], b: &[u32], class: u32) -> bool {
    a.iter().any(|&x| {
        b.iter()
            .any(|&y| crate::whole::threads::conflict(&v.threads, x, y, class))
    })
}

/// The serial signal (by its class) that two sections a method enters run in, if any.
type Serial<'a> = dyn Fn(&Entered, &Entered) -> Option<u32> + 'a;

/// Whether the method (a serial signal of class `serial`, when it is one) and node `other` are
/// two signals of one subscriber that its contract calls one at a time, on fields of `owner`
/// that are the subscriber's own ([`crate::whole::threads::serial_signal`]): one cannot run
/// between the other's sections on the same object.
fn serial_pair(p: &Program, v: &Views, serial: Option<u32>, other: usize, owner: u32) -> bool {
    serial.is_some_and(|class| {
        crate::whole::threads::serial_with(p, class, v.nodes[other].method, owner)
            || (v.body_owned(p)[other] == Some(class)
                && crate::whole::threads::body_classes(p, class).contains(&owner)
                && !crate::whole::threads::shared_statics(p, owner))
    })
}

fn subset(a: &FieldSet, b: &FieldSet) -> bool {
    a.iter().all(|x| b.binary_search(x).is_ok())
}

/// Check every method view; returns the diagnostics of the lowest violating methods of scanned
/// (not `--classpath`) classes.
///
/// A method violates for a class when it enters at least two sections with fields of the class
/// (critical sections it or its callees open, and unlocked accesses, each a section of its own)
/// and one of them does not nest with another lock view of those fields: another section it
/// enters, or a lock view of a concurrent thread that writes them (the paper's chain property,
/// asked only of what the method itself runs). A field of the pair must be written by a thread
/// concurrent to the method. A method with one section is atomic whatever other code does.
/// `profile` receives figures about the check (for `STALECHECK_TIMINGS`).
pub fn check(
    p: &Program,
    v: &Views,
    g: &CausalGraph,
    profile: &mut Vec<String>,
) -> Vec<Diagnostic> {
    let per_class = class_views(v);
    // Slots: the distinct restrictions of lock views to a class, then single unlocked accesses.
    let mut slot_sets: Vec<(u32, FieldSet)> = Vec::new();
    let mut lv_slots: Vec<Vec<u32>> = vec![Vec::new(); v.lock_views.len()];
    let mut classes_sorted: Vec<u32> = per_class.keys().copied().collect();
    classes_sorted.sort_unstable();
    for &class in &classes_sorted {
        for (set, ids) in &per_class[&class] {
            let slot = slot_sets.len() as u32;
            slot_sets.push((class, set.clone()));
            for &lv in ids {
                lv_slots[lv].push(slot);
            }
        }
    }
    // An unlocked access counts only for a field some lock view has (the others take no part
    // in the chain), each (field, r/u) one slot.
    // An unlocked access counts only for a field its own class guards: code of the class
    // (or of a class nested in it) accesses it holding a lock. An unlocked access of such a
    // field is a deliberate look outside the lock; one of a field no lock of its class guards
    // is a data race or an object not shared, not a split critical section.
    let mut guarded = vec![false; v.fields.len()];
    for (n, f) in v.facts.iter().enumerate() {
        let class = &p.class(v.nodes[n].method.class).name;
        for a in f.accesses.iter().filter(|a| !is_free(a)) {
            let owner = &p.class(v.fields.owner(a.field).0).name;
            if class == owner
                || class
                    .strip_prefix(&**owner)
                    .is_some_and(|rest| rest.starts_with('$'))
            {
                guarded[a.field as usize] = true;
            }
        }
    }
    let mut free_slot: FxHashMap<(FieldId, u8), u32> = FxHashMap::default();
    for f in &v.facts {
        for a in f
            .accesses
            .iter()
            .filter(|a| is_free(a) && guarded[a.field as usize])
        {
            let k = if a.kind & WRITE != 0 { WRITE } else { READ };
            free_slot.entry((a.field, k)).or_insert_with(|| {
                slot_sets.push((v.fields.owner(a.field).0, vec![(a.field, k)]));
                (slot_sets.len() - 1) as u32
            });
        }
    }
    // The threads writing each field: one number per distinct set of threads reaching a writer
    // (open world has thousands of threads), with a writing node for the explanation.
    let mut set_ids: FxHashMap<&[u32], u32> = FxHashMap::default();
    let thread_set: Vec<u32> = v
        .reached_by
        .iter()
        .map(|t| {
            let next = set_ids.len() as u32;
            *set_ids.entry(&t[..]).or_insert(next)
        })
        .collect();
    let mut sets: Vec<&[u32]> = vec![&[]; set_ids.len()];
    for (s, &i) in &set_ids {
        sets[i as usize] = s;
    }
    // Writers under a lock come first: the one the explanation names is then one that writes
    // inside a critical section, as the breaking view does.
    // Each writer also with the locks it holds at the write: one that holds a lock the method
    // holds across both its sections cannot run between them.
    type Writer = (u32, usize, Vec<NamedLock>);
    let mut writers: FxHashMap<FieldId, Vec<Writer>> = FxHashMap::default();
    // The nodes that are serial signals (see [`serial_pair`]), by their class: a writer that is
    // one stands for itself (another writer with the same threads and locks may not be).
    // Code only a thread body runs on its own object counts as that body's (see
    // [`crate::whole::threads::body_owned`]): a helper its loop calls on `this`.
    let body = v.body_owned(p);
    let serial: Vec<Option<u32>> = (v.nodes.iter().zip(body))
        .map(|(node, &body)| {
            (crate::whole::threads::serial_signal(p, node.method).then_some(node.method.class))
                .or(body)
        })
        .collect();
    for locked in [true, false] {
        for (n, f) in v.facts.iter().enumerate() {
            if v.reached_by[n].is_empty() {
                continue;
            }
            for a in f.accesses.iter().filter(|a| a.kind & WRITE != 0) {
                let is_locked = !a.held.is_empty() || a.caller_held || v.nodes[n].this_held;
                if is_locked != locked {
                    continue;
                }
                let keys = named_held(v, n, &a.held, a.caller_held);
                let list = writers.entry(a.field).or_default();
                if !list
                    .iter()
                    .any(|(s, w, k)| *s == thread_set[n] && *k == keys && serial[*w] == serial[n])
                {
                    list.push((thread_set[n], n, keys));
                }
            }
        }
    }
    // With `local`: only a writer that is an operation of the field's own class (see
    // [`own_operation`]).
    let concurrent_writer = |(threads, serial): (&[u32], Option<u32>),
                             f: FieldId,
                             outer: &[NamedLock],
                             (local, method): (bool, (usize, bool))| {
        let owner = v.fields.owner(f).0;
        writers.get(&f)?.iter().find_map(|(s, w, keys)| {
            (concurrent(v, threads, sets[*s as usize], owner)
                && !serial_pair(p, v, serial, *w, owner)
                && !holds_any(p, keys, outer)
                && (!local || own_writer(p, v, *w, owner))
                && !apart(p, v, method, (*w, f), owner))
            .then_some(*w)
        })
    };
    let near = Near::new(v, &lv_slots, &free_slot);
    // A library: its unknown callers are the threads (see `own_operation`).
    let open = crate::whole::threads::open_world(&v.threads);
    // Fields whose every store is an object their class allocated (`lock = new Object()`): a
    // lock on one of them belongs to its owner object.
    let owned: Vec<bool> = p.fields.owner.iter().map(|&f| p.owns_field(f)).collect();
    type Foreign = Option<(Section, bool)>;
    type Found = FxHashMap<u32, Vec<(usize, (Section, Section), usize, Foreign)>>;
    let by_class: Found = (0..v.nodes.len())
        .into_par_iter()
        .fold(
            || {
                let scratch = (vec![false; slot_sets.len()], vec![0u32; p.classes.len()]);
                (Found::default(), scratch)
            },
            |(mut found, (mut have, mut count)), n| {
                if !v.synchronizes[n] || v.reached_by[n].is_empty() {
                    return (found, (have, count));
                }
                let all = near_sections(
                    v,
                    n,
                    &owned,
                    &lv_slots,
                    &near,
                    &|s| {
                        let (class, set) = &slot_sets[s as usize];
                        (*class, set.iter().any(|&(_, k)| k & WRITE != 0))
                    },
                    &mut have,
                );
                // Only classes with two sections or more are checked (the runs below): leave the
                // others out before sorting (a node can enter thousands of single sections).
                for e in &all {
                    count[e.class as usize] += 1;
                }
                let mut mine: Vec<Entered> = all
                    .iter()
                    .filter(|e| count[e.class as usize] >= 2)
                    .copied()
                    .collect();
                for e in &all {
                    count[e.class as usize] = 0;
                }
                drop(all);
                mine.sort_unstable();
                let threads = &v.reached_by[n];
                let scope = v.scope(n);
                // Control flow graphs, built when a class has two sections: the method's own,
                // and a callee's when two sections come through one call to it.
                let cfgs = RefCell::new(Flows::default());
                // Two sections count together only when they can run in one call and the
                // method links them (see [`linked`]).
                let together = |x: &Entered, y: &Entered| {
                    together(p, v, n, x, y, &cfgs) && linked(p, v, g, n, (x, y), &cfgs)
                };
                let outer = |x: &Entered, y: &Entered| held_across(p, v, n, x, y, &cfgs);
                // The signal two sections run in: the method's own, when it is one, or the one
                // call both come through (a publisher's `s.onNext(x)`).
                let serial_of = |x: &Entered, y: &Entered| {
                    serial[n].or_else(|| {
                        let (a, b) = (x.route[0], y.route[0]);
                        (a != NONE && a == b)
                            .then(|| serial[a.1 as usize])
                            .flatten()
                    })
                };
                let mut start = 0;
                while start < mine.len() {
                    let class = mine[start].class;
                    let mut end = start + 1;
                    while end < mine.len() && mine[end].class == class {
                        end += 1;
                    }
                    let run = &mine[start..end];
                    start = end;
                    if run.len() < 2 {
                        continue;
                    }
                    // At least two sections that can both run in one call of the method: not two
                    // implementations of one call, nor sections in exclusive branches.
                    let sequential = run
                        .iter()
                        .enumerate()
                        .any(|(i, x)| run[i + 1..].iter().any(|y| together(x, y)));
                    if !sequential {
                        continue;
                    }
                    let views = per_class.get(&class);
                    // In a library, a violation with a writer of the fields' own class first:
                    // the one the method is surely concurrent with (see `own_operation`).
                    let search = |local: bool| {
                        entered_break(
                            p,
                            v,
                            &slot_sets,
                            run,
                            views,
                            &concurrent_writer,
                            &together,
                            &outer,
                            (threads, &serial_of),
                            class,
                            (local, n),
                        )
                        .map(|(pair, writer)| (pair, writer, None))
                        .or_else(|| {
                            let (pair, writer, other) = foreign_break(
                                p,
                                v,
                                &slot_sets,
                                run,
                                views?,
                                scope,
                                &together,
                                &outer,
                                (threads, &serial_of),
                                class,
                                (local, n),
                            )?;
                            // The method's other section around its own one: what the
                            // concurrent thread's update falls between.
                            let first = matches!(
                                (pair.0.anchor(v, n), other.anchor(v, n)),
                                (Some(x), Some(y)) if y < x
                            );
                            Some(((pair.0.sec, pair.1), writer, Some((other.sec, first))))
                        })
                    };
                    // Searched again for one of the own class only when the first one found
                    // is another class's (most methods have no violation at all).
                    let own = |node: usize| own_operation(p, v.nodes[node].method.class, class);
                    let hit = search(false);
                    let hit = match hit {
                        Some((_, w, ..)) if open && !own_writer(p, v, w, class) && own(n) => {
                            search(true).or(hit)
                        }
                        _ => hit,
                    };
                    if let Some((pair, writer, foreign)) = hit {
                        found
                            .entry(class)
                            .or_default()
                            .push((n, pair, writer, foreign));
                    }
                }
                (found, (have, count))
            },
        )
        .map(|(found, _)| found)
        .reduce(Found::default, |mut a, b| {
            for (c, mut list) in b {
                a.entry(c).or_default().append(&mut list);
            }
            a
        });
    let mut by_class = by_class;
    for list in by_class.values_mut() {
        list.sort_unstable();
    }
    let count: usize = by_class.values().map(Vec::len).sum();
    profile.push(format!(
        "method-consistency: {count} violations, {} slots",
        slot_sets.len()
    ));
    // Reporting filter, for all classes with violations at once, by reachability over the call
    // graph (one bit per class, propagated over the components callees first): only the lowest
    // violating methods, those with no violating node for the same class strictly below them
    // (a caller enters every section its callee enters, so it violates too).
    let mut classes: Vec<u32> = by_class.keys().copied().collect();
    classes.sort_unstable();
    let slot_of: FxHashMap<u32, usize> = classes.iter().enumerate().map(|(i, &c)| (c, i)).collect();
    let mut violates = ClassBits::new(v.nodes.len(), classes.len());
    for (class, list) in &by_class {
        for &(n, _, _, _) in list {
            violates.set(n, slot_of[class]);
        }
    }
    let reaches_violation = violates.closure(v);
    // Strictly below a node: through at least one call.
    let above_violation = reaches_violation.through_calls(v);
    let mut reported: FxHashSet<(crate::program::MethodId, u32)> = FxHashSet::default();
    // One result per method and line: the same sections seen through the fields of several
    // classes (an inherited method reading two subclasses' fields by dispatch) are one cause;
    // the first result names the further classes' fields too. (Violations at other lines of
    // the method stay results of their own: another place to fix.)
    type ResultKey = (crate::program::MethodId, Option<u32>);
    let mut result_of: FxHashMap<ResultKey, (usize, String)> = FxHashMap::default();
    let mut out: Vec<Diagnostic> = Vec::new();
    for (slot, &class) in classes.iter().enumerate() {
        let list = &by_class[&class];
        let own = |node: usize| own_operation(p, v.nodes[node].method.class, class);
        for &(n, (a, b), writer, foreign) in list {
            if above_violation.get(n, slot) || !reported.insert((v.nodes[n].method, class)) {
                continue;
            }
            let mut involved: Vec<FieldId> = [a, b]
                .iter()
                .flat_map(|&sec| section_fields(v, sec, class))
                .filter(|f| v.fields.owner(*f).0 == class)
                .collect();
            involved.sort_unstable();
            involved.dedup();
            let x = Violation {
                node: n,
                class,
                vars: involved.clone(),
                a,
                b,
                writer,
                foreign,
                // A writer that writes the fields only on other objects than its own, when
                // the method works on its own object: whether the two are one, the library
                // does not say. (A method that reaches the objects through others, as the
                // writer does, meets it on equal terms: the classes decide.)
                indirect: open
                    && !(own(n)
                        && own_operation(p, v.nodes[writer].method.class, class)
                        && (own_writer(p, v, writer, class)
                            || !on_own_object(v, n, class, READ | WRITE))),
            };
            let d = explain(p, v, &x, &involved);
            let what = fields_of(p, v, &x);
            let key = (v.nodes[n].method, d.line);
            match result_of.get_mut(&key) {
                None => {
                    result_of.insert(key, (out.len(), what));
                    out.push(d);
                }
                Some((i, first_what)) => {
                    let first = &mut out[*i];
                    // The result is the warning's, when one of them is.
                    let (primary, secondary, also) = if d.level > first.level {
                        let old = std::mem::replace(first, d);
                        let also = std::mem::replace(first_what, what);
                        (first, old, also)
                    } else {
                        (first, d, what)
                    };
                    merge_into(primary, secondary, &also);
                }
            }
        }
    }
    out
}

/// The fields of violation `x`, for a message: "`a`, `b` of `Class`".
fn fields_of(p: &Program, v: &Views, x: &Violation) -> String {
    let names: Vec<String> = x
        .vars
        .iter()
        .map(|&f| format!("`{}`", v.fields.describe(p, f).1))
        .collect();
    let owner = p.class(x.class).name.rsplit('/').next().unwrap_or_default();
    format!("{} of `{owner}`", names.join(", "))
}

/// Join a further violation `d` of a method at the same line (on the fields `also`) into its
/// result `first`: the message names its fields too (the steps stay those of one pair of
/// sections and its writer).
fn merge_into(first: &mut Diagnostic, d: Diagnostic, also: &str) {
    first.message = format!(
        "{}; it also accesses {also} in separate critical sections",
        first.message
    );
    for t in d.threads {
        if !first.threads.contains(&t) {
            first.threads.push(t);
        }
    }
}

/// A section a method enters: a lock view, or an unlocked access (node, instruction).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Section {
    View(u32),
    Free(u32, u32),
}

/// The fields of one class a section accesses.
fn section_fields(v: &Views, sec: Section, class: u32) -> Vec<FieldId> {
    section_accesses(v, sec, class)
        .into_iter()
        .map(|(f, _)| f)
        .collect()
}

/// The fields of one class a section accesses, each with its access kinds ([`READ`],
/// [`WRITE`]), sorted.
fn section_accesses(v: &Views, sec: Section, class: u32) -> Vec<(FieldId, u8)> {
    let mut out: Vec<(FieldId, u8)> = match sec {
        Section::View(lv) => v.lock_view_part(lv as usize, class).to_vec(),
        Section::Free(n, at) => v.facts[n as usize]
            .accesses
            .iter()
            .filter(|a| a.at == at)
            .map(|a| (a.field, a.kind))
            .collect(),
    };
    out.sort_unstable();
    out.dedup_by(|b, a| {
        a.0 == b.0 && {
            a.1 |= b.1;
            true
        }
    });
    out
}

/// An access outside every critical section, the caller's entry locks included.
fn is_free(a: &crate::whole::facts::Access) -> bool {
    a.held.is_empty() && !a.caller_held
}

/// A section a method enters, with the calls leading to it: `(call site, callee node)` per
/// level (`NONE` past the end).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Entered {
    class: u32,
    slot: u32,
    sec: Section,
    route: Route,
}

/// `(call site, callee node)` per level of calls below the method.
type Route = [(u32, u32); NEAR];

const NONE: (u32, u32) = (u32::MAX, u32::MAX);

impl Entered {
    /// The two sections are reached through different implementations of one call: only one
    /// of them runs (class-hierarchy dispatch offers both, the receiver picks one).
    fn exclusive(&self, other: &Entered) -> bool {
        for (a, b) in self.route.iter().zip(&other.route) {
            if *a == NONE || *b == NONE || a.0 != b.0 {
                return false;
            }
            if a.1 != b.1 {
                return true;
            }
        }
        false
    }
}

impl Entered {
    /// The instruction of method `n` where the section starts: its own acquisition or access,
    /// or the call leading to it (`None` for a `synchronized` method's whole body).
    fn anchor(&self, v: &Views, n: usize) -> Option<u32> {
        self.anchor_at(v, n, 0)
    }

    /// [`Self::anchor`] in node `n`, reached `level` calls down the section's route.
    fn anchor_at(&self, v: &Views, n: usize, level: usize) -> Option<u32> {
        if let Some(&(site, _)) = self.route.get(level).filter(|&&r| r != NONE) {
            return Some(site);
        }
        match self.sec {
            Section::View(lv) => {
                let lv = &v.lock_views[lv as usize];
                (lv.node == n && lv.site != METHOD_SITE).then_some(lv.site)
            }
            Section::Free(m, at) => (m as usize == n).then_some(at),
        }
    }
}

/// The control flow graphs [`together`] looked at (the method's, and callees' that two sections
/// are reached through), and its answers: whether one of two instructions of a node can follow
/// the other.
#[derive(Default)]
struct Flows {
    cfgs: FxHashMap<usize, Option<Cfg>>,
    follows: FxHashMap<(usize, u32, u32), bool>,
}

impl Flows {
    /// The control flow graph of node `n`'s method (`None`: no code), built once.
    fn cfg(&mut self, p: &Program, v: &Views, n: usize) -> Option<&Cfg> {
        self.cfgs
            .entry(n)
            .or_insert_with(|| {
                p.method(v.nodes[n].method)
                    .code
                    .as_ref()
                    .map(Cfg::with_local_tests)
            })
            .as_ref()
    }
}

/// Whether two sections node `n` enters can both run in one call of it: they are not two
/// implementations of one call, and where their routes part (in `n`, or in a callee both reach
/// through the same call) one can follow the other ([`Cfg::can_follow`]: exclusive branches,
/// tests of one flag, are not). A shared call that can run again (in a loop) runs both.
fn together(
    p: &Program,
    v: &Views,
    n: usize,
    x: &Entered,
    y: &Entered,
    flows: &RefCell<Flows>,
) -> bool {
    after(p, v, n, x, y, flows) || after(p, v, n, y, x, flows)
}

/// Whether section `y` can run after section `x` in one call of node `n` (see [`together`]).
fn after(
    p: &Program,
    v: &Views,
    n: usize,
    x: &Entered,
    y: &Entered,
    flows: &RefCell<Flows>,
) -> bool {
    if x.exclusive(y) {
        return false;
    }
    let mut flows = flows.borrow_mut();
    let mut node = n;
    for level in 0..=NEAR {
        let (rx, ry) = match level {
            NEAR => (NONE, NONE),
            _ => (x.route[level], y.route[level]),
        };
        if rx != NONE && rx == ry {
            let Some(cfg) = flows.cfg(p, v, node) else {
                return true;
            };
            if cfg.can_repeat(rx.0) {
                return true;
            }
            node = rx.1 as usize;
            continue;
        }
        let (Some(a), Some(b)) = (x.anchor_at(v, node, level), y.anchor_at(v, node, level)) else {
            return true;
        };
        if let Some(&follows) = flows.follows.get(&(node, a, b)) {
            return follows;
        }
        let Some(cfg) = flows.cfg(p, v, node) else {
            return true;
        };
        let follows = cfg.can_follow(a, b);
        flows.follows.insert((node, a, b), follows);
        return follows;
    }
    true
}

/// Whether the method at node `n` links two sections it enters, so that another thread's
/// update between them matters to it: the causal refinement of causal-dependencies-hldr.md
/// (Definition 8 asks two read views that do not nest for a common correlation before they
/// count), asked of a method's own sections.
///
/// The one pair left unlinked is a *quick look* and the section that looks again: a first
/// section that only reads, whose value the method only tests (`if (window.missing() > 0)`,
/// `if (count.get() >= threshold)`, `if (n == buf.length)`), or a section of the method's own
/// whose values stay in it (`synchronized (this) { c = container; if (c != null) c.add(t); }`:
/// used there, never after it, and deciding nothing about entering the other section,
/// [`NodeOut::escapes`] and [`NodeOut::decided`]), and whose every field the later section
/// accesses again. What the look decided is decided again there, under the lock the writers hold. The look stays
/// linked when its value does more than decide: it reaches a write without being looked at
/// again (the causal graph's flows and [`NodeOut::links`]), is combined with a value of the
/// other section, or is returned; and when the other section writes a field that a later read
/// of the look's fields then sees (double-checked creation returning the field: the state the
/// lock set up, which another thread can undo). Any other look may guard the later section (a
/// `checkClosed()` that throws) or hand it its value, and links it.
///
/// Also unlinked: a critical section of the method's own that writes and whose values all
/// stay in it (no flow, link, combination, return or later use, deciding nothing about the
/// other section, handed to no call inside it: [`NodeOut::handed`]), before a section that
/// reads; where that section reads what the first wrote, only when its values stay in it too
/// (two complete operations in a row: an insert-if-absent, then a check-then-remove).
///
/// Also unlinked: an optimistic install, a first section of the method's own that only reads
/// (a snapshot with its version) and a second that writes only where a fresh read of the
/// version equals the one seen, or where it looks at the snapshot's variable again
/// ([`NodeOut::validated`]), with nothing of the snapshot reaching a write unchecked or
/// combined with the second section's values (but the version and what that section writes).
///
/// A callee's read-only look counts by the fields its result is made of (`Summary::ret_reads`
/// in its region); a look is combined only with a value of the other section.
///
/// Also unlinked: a look before a callee's section that decides each of its writes again
/// (`Summary::self_checked`: `if (b[0] < b[1]) r.narrow()`, whatever the look's value does
/// besides deciding), and a complete update of a callee whose outcome the method does not use,
/// before a section that only reads (the next round's look after `narrow()`).
///
/// Two sections reached through one call are linked when the callee links them (and, for a
/// call in a loop, when both write: the next call's first section follows this one's second).
/// A first section that only stores its fields is not linked to a later critical section that
/// reads each of them again and returns none of them (a setter's store, then the step that
/// applies it). Two sections that both write are otherwise linked, and so is one two calls
/// down (the causal graph follows values one call deep) unless the other is the method's own
/// unlocked look whose value only goes into tests and the deep section reads its fields again;
/// so is everything in a node the causal analysis did not cover.
///
/// [`NodeOut::links`]: crate::whole::causal::NodeOut::links
/// [`NodeOut::escapes`]: crate::whole::causal::NodeOut::escapes
/// [`NodeOut::decided`]: crate::whole::causal::NodeOut::decided
/// [`NodeOut::handed`]: crate::whole::causal::NodeOut::handed
/// [`NodeOut::validated`]: crate::whole::causal::NodeOut::validated
fn linked(
    p: &Program,
    v: &Views,
    g: &CausalGraph,
    n: usize,
    (x, y): (&Entered, &Entered),
    flows: &RefCell<Flows>,
) -> bool {
    // Two sections reached through one call are linked here when the callee links them: what
    // the method does around the call touches neither. A call in a loop also runs the sections
    // of one call after those of the last: a split update (both sections write) stays split
    // across the calls.
    if x.route[0] != NONE && x.route[0] == y.route[0] {
        let inner = |e: &Entered| Entered {
            route: [e.route[1], NONE],
            ..*e
        };
        if linked(
            p,
            v,
            g,
            x.route[0].1 as usize,
            (&inner(x), &inner(y)),
            flows,
        ) {
            return true;
        }
        let writes = |e: &Entered| {
            (section_accesses(v, e.sec, e.class).iter()).any(|&(_, k)| k & WRITE != 0)
        };
        return repeats(p, v, n, x.route[0].0, flows) && writes(x) && writes(y);
    }
    let deep = x.route[1] != NONE || y.route[1] != NONE;
    let (fx, fy) = (
        section_accesses(v, x.sec, x.class),
        section_accesses(v, y.sec, y.class),
    );
    let has = |set: &[(FieldId, u8)], f: FieldId| set.binary_search_by_key(&f, |&(g, _)| g).is_ok();
    // The causal results of the method.
    let Some(o) = g.outs.get(n).and_then(Option::as_ref) else {
        return true;
    };
    let code = p.method(v.nodes[n].method).code.as_ref();
    // A section two calls down is beyond the values the causal graph follows (one call deep):
    // linked, unless the other is the method's own unlocked look whose value goes nowhere but
    // into tests (`Object v = value; if (v == CANCELLED) return; .. complete();`), and the
    // deep section reads each of the look's fields again: the look only decided to go there,
    // and what it decided is decided again under the lock. (Passed on, or only written there,
    // the look stays linked.)
    if deep {
        let looks_again =
            |e: &Entered, look: &[(FieldId, u8)], other: &Entered, then: &[(FieldId, u8)]| {
                matches!(e.sec, Section::Free(m, _) if m as usize == n)
                    && e.route[0] == NONE
                    && e.anchor(v, n)
                        .zip(code)
                        .is_some_and(|(at, code)| crate::analysis::outcome::only_tested(code, at))
                    && look
                        .iter()
                        .all(|&(f, k)| k & WRITE == 0 && has(then, f) && section_reads(v, other, f))
            };
        if !(looks_again(x, &fx, y, &fy) || looks_again(y, &fy, x, &fx)) {
            return true;
        }
    }
    // The other section, a callee's, decides each of its writes again on its own look at what
    // it writes ([`Summary::self_checked`]: `if (lo < hi) { lo++; hi--; }` after the caller
    // read both bounds to decide whether to call it). A look at fields it accesses again, whose
    // value goes into no write, return or combination, only decided to try, whatever else it
    // does with the value (a test of an array's elements): the other section acts on the state
    // as it is then. (A look at a field the callee never reads again, a `checkClosed()` before
    // an insertion, still decides for it.)
    //
    // [`Summary::self_checked`]: crate::whole::causal::Summary::self_checked
    let rechecks = |other: &Entered| {
        let Section::View(lv) = other.sec else {
            return false;
        };
        if other.route[0] == NONE {
            return false;
        }
        let lv = &v.lock_views[lv as usize];
        let Some(s) = g
            .outs
            .get(lv.node)
            .and_then(Option::as_ref)
            .map(|o| &o.summary)
        else {
            return false;
        };
        let mut writes = (s.writes.iter())
            .filter(|w| w.node as usize == lv.node && w.site == lv.site)
            .peekable();
        s.writes.len() < crate::whole::causal::MAX_LIST
            && writes.peek().is_some()
            && writes.all(|w| {
                s.self_checked.contains(w) || s.outcome_checked.iter().any(|(_, o)| o == w)
            })
    };
    let read_only = |set: &[(FieldId, u8)]| set.iter().all(|&(_, k)| k & WRITE == 0);
    // The fields the result of a callee's section is made of (`Summary::ret_reads` in its
    // region), when the section is a callee's own whole region and the result depends on no
    // read outside it.
    let returned_fields = |e: &Entered| -> Option<Vec<FieldId>> {
        let Section::View(lv) = e.sec else {
            return None;
        };
        if e.route[0] == NONE {
            return None;
        }
        let lv = &v.lock_views[lv as usize];
        let s = &g.outs.get(lv.node)?.as_ref()?.summary;
        if s.ret_reads.is_empty()
            || !s.ret_plain.is_empty()
            || s.ret_reads.len() >= crate::whole::causal::MAX_LIST
            || s.ret_reads
                .iter()
                .any(|r| r.node as usize != lv.node || r.site != lv.site)
        {
            return None;
        }
        Some(
            (s.ret_reads.iter())
                .map(|r| crate::whole::causal::var_field(r.var))
                .collect(),
        )
    };
    let quick = |e: &Entered, look: &[(FieldId, u8)], other: &Entered, then: &[(FieldId, u8)]| {
        // A read of the look itself: in its region, or one of its unlocked accesses.
        let ats: Vec<u32> = instances(v, e)
            .iter()
            .filter_map(|i| match i.sec {
                Section::Free(_, at) => Some(at),
                Section::View(_) => None,
            })
            .collect();
        let in_region = |g: &GAccess| access_in_section(v, n, e, g);
        let unlocked_at = |loc: Loc| match e.sec {
            Section::Free(m, _) => {
                loc.method == v.nodes[m as usize].method && ats.contains(&loc.at)
            }
            Section::View(_) => false,
        };
        let used = |g: &GAccess, unlocked: bool| {
            if unlocked {
                unlocked_at(g.loc)
            } else {
                in_region(g)
            }
        };
        // The look's value reaches a write (of its variable or another), is combined with
        // another value, or is returned. Not into the call that leads to a section two calls
        // down that reads the look's fields again (see `deep` above): the look, whose value
        // goes nowhere but into tests, decided only to make that call.
        let deep_entry = (other.route[1] != NONE).then_some(other.route[0].0);
        let again = |f: &crate::whole::causal::Flow| Some(f.entry_at) == deep_entry;
        let acted_on = (o.flows.iter().chain(&o.links))
            .any(|f| used(&f.src, f.unlocked) && !again(f))
            || (o.combines.iter()).any(|c| {
                let in_other = |g: &GAccess| access_in_section(v, n, other, g);
                in_region(&c.a) && in_other(&c.b) || in_region(&c.b) && in_other(&c.a)
            })
            || o.summary.ret_reads.iter().any(in_region)
            || o.summary
                .ret_plain
                .iter()
                .any(|&(_, loc, _)| unlocked_at(loc));
        // Only tested: at once, or the look's value stays inside its own region (used
        // there, or not at all) and decides nothing about entering the other section.
        let tested = e
            .anchor(v, n)
            .zip(code)
            .is_some_and(|(at, code)| crate::analysis::outcome::look_tested(code, at));
        let escaped = o.escapes.iter().any(|&(g, u)| used(&g, u));
        let decided = other.anchor(v, n).is_none_or(|at| {
            o.decided_overflow || (o.decided.iter()).any(|&(a, g, u)| a == at && used(&g, u))
        });
        // (A look in a callee may decide whether the callee returns at all: a `checkOpen()`
        // that throws. Only a look of the method's own is known to stay in its region.)
        let only_decides = tested || e.route[0] == NONE && !escaped && !decided;
        // A callee's read-only section hands the method nothing but its result: the fields
        // it looks at that the result is not made of (a flag that only ended a wait: `while
        // (pending == 0 && !done) wait(); return pending > 0;`) decide nothing here.
        let returned = returned_fields(e);
        let looks_again = (look.iter())
            .filter(|&&(f, _)| returned.as_ref().is_none_or(|r| r.contains(&f)))
            .all(|&(f, _)| has(then, f))
            && (only_decides || rechecks(other));
        // A complete update whose outcome the method ignores: each of its writes decided on
        // its own look, nothing of it reaching a write, a return or the other section (`if
        // (lo < hi) { lo++; hi--; }` called for its effect): the method holds nothing of it
        // that another thread's update could make stale.
        let complete = rechecks(e) && !acted_on && !escaped && !decided;
        // A critical section of the method's own whose values all stay in it: what it
        // reads decides and feeds only what it does under its lock (`synchronized (list) {
        // if (!list.contains(v)) list.add(v); }`), and nothing of it reaches a write, a
        // return, a later decision or the other section. It is one complete operation, as a
        // callee's self-checked update is. Only an update, one that writes under its lock (a
        // field of any class): a section that only reads hands its values on in some way the
        // method does not see (formatted into a caller's builder), or is a quick look.
        let own = match e.sec {
            Section::View(lv) if e.route[0] == NONE => (v.lock_views[lv as usize].parts.iter())
                .any(|&i| v.parts[i as usize].1.iter().any(|&(_, k)| k & WRITE != 0)),
            _ => false,
        };
        let handed = o.handed.iter().any(in_region);
        let stays = own && !acted_on && !escaped && !handed;
        (
            read_only(look) && looks_again && !acted_on,
            complete || stays && !decided,
            stays,
        )
    };
    // An optimistic install: the first section takes a snapshot and only reads, the second
    // compares a version read with it against a fresh read of the version, or looks at the
    // snapshot's variable again, before it writes (`NodeOut::validated`), and nothing of the
    // snapshot reaches a write unchecked or is combined with the second section's values
    // (but the version and what that section writes). Equal versions say nothing changed since
    // the snapshot, so the install acts on current values; a failed check writes nothing of
    // it (and a retry takes a new snapshot). What the method returns of the snapshot alone is
    // one section's consistent view.
    let snapshot = |first: &Entered, look: &[(FieldId, u8)], then: &Entered| {
        let (Section::View(a), Section::View(b)) = (first.sec, then.sec) else {
            return false;
        };
        let (la, lb) = (&v.lock_views[a as usize], &v.lock_views[b as usize]);
        let in_first = |g: &GAccess| access_in_section(v, n, first, g);
        let in_then = |g: &GAccess| access_in_section(v, n, then, g);
        first.route[0] == NONE
            && then.route[0] == NONE
            && la.node == n
            && lb.node == n
            && read_only(look)
            && o.validated.contains(&(la.site, lb.site))
            && !(o.flows.iter().chain(&o.links)).any(|f| !f.unlocked && in_first(&f.src))
            && !(o.combines.iter()).any(|c| {
                // The fresh look at a field the snapshot read too (the version compared) is
                // the check itself; a field the second section writes (a count of installs)
                // takes the snapshot's value only through a write, which the flows above
                // check.
                let written = |f: FieldId| {
                    (lb.parts.iter()).any(|&i| {
                        (v.parts[i as usize].1.iter()).any(|&(g, k)| g == f && k & WRITE != 0)
                    })
                };
                let mixed = |s: &GAccess, t: &GAccess| {
                    let f = crate::whole::causal::var_field(t.var);
                    in_first(s) && in_then(t) && !look.iter().any(|&(g, _)| g == f) && !written(f)
                };
                mixed(&c.a, &c.b) || mixed(&c.b, &c.a)
            })
    };
    if snapshot(x, &fx, y) || snapshot(y, &fy, x) {
        return false;
    }
    let (x_first, y_first) = (after(p, v, n, x, y, flows), after(p, v, n, y, x, flows));
    // A first section that only stores its fields (it reads none of them, so hands nothing on)
    // before a critical section that reads each of them again and returns none of what it
    // reads: the second decides on the state as it is then, under its lock, whoever stored it
    // last (a setter's store, then the step that applies it: `synchronized (this) {
    // maxRequests = n; } promoteAndExecute();`, which reads the limit again). A read after the
    // lock, or one returned, still takes what the first section set up for its own (`tmp =
    // load(); .. return tmp;`), which another thread can replace.
    let stores_then_reads = |e: &Entered, stored: &[(FieldId, u8)], other: &Entered| {
        !deep
            && matches!(other.sec, Section::View(_))
            && !(o.summary.ret_reads.iter()).any(|g| access_in_section(v, n, other, g))
            && stored.iter().all(|&(f, k)| {
                k & WRITE != 0 && !section_reads(v, e, f) && section_reads(v, other, f)
            })
    };
    if x_first && !y_first && stores_then_reads(x, &fx, y)
        || y_first && !x_first && stores_then_reads(y, &fy, x)
    {
        return false;
    }
    // A complete update is unlinked only from a section that reads: two that write stay one
    // split update (`closeWriter(); closed = true;`, which a writer between them sees half
    // done).
    let ((qx, cx, sx), (qy, cy, sy)) = (quick(x, &fx, y, &fy), quick(y, &fy, x, &fx));
    let (cx, cy) = (cx && read_only(&fy), cy && read_only(&fx));
    if x_first && !(qx || cx) || y_first && !(qy || cy) {
        return true;
    }
    // The look's fields read again after the other section wrote them: by any of the unlocked
    // accesses the look stands for (one slot per field and kind: the look before a lock and
    // the read after it are one).
    let sets_up = |w: &[(FieldId, u8)], r: &[(FieldId, u8)]| {
        w.iter().any(|&(f, k)| k & WRITE != 0 && has(r, f))
    };
    let read_after = |first: &Entered, then: &Entered| {
        instances(v, then)
            .iter()
            .any(|t| after(p, v, n, first, t, flows))
    };
    // A complete operation of the method's own sets up what a later section reads only
    // when that section's values leave it (the field it created, returned after the lock):
    // one that reads and acts under its lock alone decides on the state as it is then.
    let (cx, cy) = (cx && (!sx || sy), cy && (!sy || sx));
    sets_up(&fx, &fy) && read_after(x, y) && !cx || sets_up(&fy, &fx) && read_after(y, x) && !cy
}

/// Whether the instruction at `at` of node `n` can run more than once in one call (in a loop).
fn repeats(p: &Program, v: &Views, n: usize, at: u32, flows: &RefCell<Flows>) -> bool {
    (flows.borrow_mut().cfg(p, v, n)).is_none_or(|cfg| cfg.can_repeat(at))
}

/// Whether the causal graph's access `g` (of node `n`'s results) is inside the critical section
/// `e`: in its region, or, for a callee's section, at the call that reaches it (a thread-safe
/// object's synchronized method is a one-call region of the causal graph there). An unlocked
/// access is in none.
fn access_in_section(v: &Views, n: usize, e: &Entered, g: &GAccess) -> bool {
    let Section::View(lv) = e.sec else {
        return false;
    };
    let lv = &v.lock_views[lv as usize];
    let call = (e.route[0] != NONE).then_some(e.route[0].0);
    g.node as usize == lv.node && g.site == lv.site || g.node as usize == n && Some(g.site) == call
}

/// The sections an entered section stands for: itself, or for an unlocked access, every
/// unlocked access of the same node to the same fields with the same kind (they share a slot).
fn instances(v: &Views, e: &Entered) -> Vec<Entered> {
    let Section::Free(m, at) = e.sec else {
        return vec![*e];
    };
    let accesses = &v.facts[m as usize].accesses;
    let key = |at: u32| -> Vec<(FieldId, u8)> {
        let mut k: Vec<(FieldId, u8)> = accesses
            .iter()
            .filter(|a| a.at == at)
            .map(|a| (a.field, a.kind & WRITE))
            .collect();
        k.sort_unstable();
        k
    };
    let mine = key(at);
    let mut ats: Vec<u32> = accesses
        .iter()
        .filter(|a| is_free(a) && a.at != at)
        .map(|a| a.at)
        .collect();
    ats.sort_unstable();
    ats.dedup();
    std::iter::once(*e)
        .chain(
            ats.into_iter()
                .filter(|&a| key(a) == mine)
                .map(|a| Entered {
                    sec: Section::Free(m, a),
                    ..*e
                }),
        )
        .collect()
}

/// How deep in the call tree below a method a critical section still counts as one the method
/// enters: its own, its callees' and theirs (a wrapper around a synchronized method). A section
/// deeper down belongs to an operation the method delegates whole.
const NEAR: usize = 2;

/// The sections node `n` enters within [`NEAR`] calls, one per slot (the nearest first found):
/// the lock views opened there, and the accesses made outside every lock. A callee's critical
/// section on a lock its caller already holds (the same field of the same object, a static
/// lock, a class literal) is re-entry and part of the caller's section: a helper that re-takes
/// the lock its caller holds splits nothing. One on another object's lock is a section of its
/// own even inside the caller's (`dst.append(src)` taking `src`'s lock twice).
#[allow(clippy::too_many_arguments)]
fn near_sections(
    v: &Views,
    n: usize,
    owned: &[bool],
    lv_slots: &[Vec<u32>],
    near: &Near,
    slot_of: &impl Fn(u32) -> (u32, bool),
    have: &mut [bool],
) -> Vec<Entered> {
    let mut out: Vec<Entered> = Vec::new();
    // The sets of locks held around a node, each distinct set numbered once per walk.
    let mut held_sets: Vec<Vec<LockKey>> = vec![Vec::new()];
    let mut held_ids: FxHashMap<Vec<LockKey>, u32> = FxHashMap::default();
    held_ids.insert(Vec::new(), 0);
    let mut seen: FxHashSet<(usize, u32)> = FxHashSet::default();
    // In open world, a legacy collection its holder's callers do not share is per-call state,
    // like a fresh object.
    let open = crate::whole::threads::open_world(&v.threads);
    // On a fresh object, its own monitor and the locks it allocated itself are no other
    // thread's yet.
    let unshared = |k: &LockKey| match k.key {
        GuardKey::Own => !k.global,
        GuardKey::Field(id, _) => !k.global && owned[id as usize],
        _ => false,
    };
    // Each node with the locks held around it (as it names them) and whether any lock is.
    // Also whether the node runs on an object the method just allocated (called on it), and
    // whether its result only becomes a message (what it only reads is a look for a message).
    type Level = (usize, Route, u32, bool, bool, bool);
    let mut level: Vec<Level> = vec![(n, [NONE; NEAR], 0, false, false, false)];
    for depth in 0..=NEAR {
        let mut next = Vec::new();
        for (m, route, held_id, locked, fresh, message) in level {
            if !seen.insert((m, held_id)) {
                continue;
            }
            // One section per slot (the nearest, the first found): a second look with the
            // same view adds no pair that does not nest. `have` marks the slots taken (a
            // scratch table, cleared below for the next node).
            let mut push = |slot: u32, sec: Section| {
                let (class, writes) = slot_of(slot);
                if message && !writes {
                    return;
                }
                if !std::mem::replace(&mut have[slot as usize], true) {
                    out.push(Entered {
                        class,
                        slot,
                        sec,
                        route,
                    })
                }
            };
            let f = &v.facts[m];
            for &lv in &v.views_of[m] {
                let site = v.lock_views[lv].site;
                let held = &held_sets[held_id as usize];
                let reentered = f
                    .region_keys
                    .iter()
                    .any(|(s, k)| *s == site && (held.contains(k) || fresh && unshared(k)));
                if reentered {
                    continue;
                }
                for &s in &lv_slots[lv] {
                    push(s, Section::View(lv as u32));
                }
            }
            if !locked {
                for &(s, at) in &near.free_of[m] {
                    push(s, Section::Free(m as u32, at));
                }
            }
            if depth == NEAR {
                continue;
            }
            for call in &f.calls {
                // A call on an object this method just allocated: no other thread sees that
                // object yet, so the sections on its own monitor and the looks at its fields
                // outside a lock cannot be split; the callee's sections on other objects' locks
                // (an outer instance's, a static one) still count (an iterator that locks its
                // collection).
                let unshared = call.fresh_receiver || (open && call.legacy_receiver);
                let call_locked = locked || !call.held.is_empty() || call.caller_held || unshared;
                // What the callee sees held: the caller's locks it can name, and those held
                // around the caller that it still names the same way (global ones, and all of
                // them for a call on `this`: the callee's `this` is the caller's).
                let mut keys: Vec<LockKey> = call.held_keys.clone();
                keys.extend(
                    held_sets[held_id as usize]
                        .iter()
                        .filter(|k| k.global || call.on_this)
                        .copied(),
                );
                keys.sort_unstable();
                keys.dedup();
                let keys_id = match held_ids.get(&keys) {
                    Some(&id) => id,
                    None => {
                        let id = held_sets.len() as u32;
                        held_ids.insert(keys.clone(), id);
                        held_sets.push(keys);
                        id
                    }
                };
                for &t in &call.targets {
                    if let Some(w) = v.node_index(crate::whole::views::Node {
                        method: t,
                        this_held: call.this_held,
                    }) {
                        // A node that enters no section of its own, nor (one level up from
                        // the last) through its callees, adds nothing to the walk.
                        let useful = if depth + 1 == NEAR {
                            near.sections[w]
                        } else {
                            near.sections[w] || near.below[w]
                        };
                        if !useful {
                            continue;
                        }
                        let mut r = route;
                        r[depth] = (call.at, w as u32);
                        next.push((
                            w,
                            r,
                            keys_id,
                            call_locked,
                            unshared,
                            message || call.message_only,
                        ));
                    }
                }
            }
        }
        level = next;
    }
    for e in &out {
        have[e.slot as usize] = false;
    }
    out
}

/// What [`near_sections`] asks of every node, computed once: its unlocked accesses that are
/// sections (slot, instruction), whether it enters any section itself (a lock view with a slot,
/// or such an access), and whether a callee does.
struct Near {
    free_of: Vec<Vec<(u32, u32)>>,
    sections: Vec<bool>,
    below: Vec<bool>,
}

impl Near {
    fn new(v: &Views, lv_slots: &[Vec<u32>], free_slot: &FxHashMap<(FieldId, u8), u32>) -> Self {
        let free_of: Vec<Vec<(u32, u32)>> = v
            .facts
            .iter()
            .map(|f| {
                f.accesses
                    .iter()
                    .filter(|a| is_free(a))
                    .filter_map(|a| {
                        let k = if a.kind & WRITE != 0 { WRITE } else { READ };
                        free_slot.get(&(a.field, k)).map(|&s| (s, a.at))
                    })
                    .collect()
            })
            .collect();
        let sections: Vec<bool> = (0..v.nodes.len())
            .map(|m| {
                !free_of[m].is_empty() || v.views_of[m].iter().any(|&lv| !lv_slots[lv].is_empty())
            })
            .collect();
        let below = v
            .edges
            .iter()
            .map(|callees| callees.iter().any(|&w| sections[w]))
            .collect();
        Near {
            free_of,
            sections,
            below,
        }
    }
}

fn shares(a: &FieldSet, b: &FieldSet) -> bool {
    a.iter().any(|(f, _)| b.iter().any(|(g, _)| f == g))
}

/// Whether two views conflict: a field in common that one of them writes.
fn conflicts(a: &FieldSet, b: &FieldSet) -> bool {
    a.iter()
        .any(|&(f, k)| b.iter().any(|&(g, l)| f == g && (k | l) & WRITE != 0))
}

/// Two sections the method enters whose views do not nest, over related fields (a field in
/// common, or a lock view of a concurrent thread that writes fields of both), with a field a
/// concurrent thread writes. Returns the pair and the writing node.
#[allow(clippy::too_many_arguments)]
fn entered_break(
    p: &Program,
    v: &Views,
    slot_sets: &[(u32, FieldSet)],
    run: &[Entered],
    views: Option<&ClassViews>,
    concurrent_writer: &impl Fn(
        (&[u32], Option<u32>),
        FieldId,
        &[NamedLock],
        (bool, (usize, bool)),
    ) -> Option<usize>,
    together: &impl Fn(&Entered, &Entered) -> bool,
    outer: &impl Fn(&Entered, &Entered) -> Vec<NamedLock>,
    (threads, serial): (&[u32], &Serial<'_>),
    class: u32,
    (local, n): (bool, usize),
) -> Option<((Section, Section), usize)> {
    // Whether each section is on the method's own object (see `apart`), asked once per section.
    let own: Vec<std::cell::Cell<Option<bool>>> = vec![std::cell::Cell::new(None); run.len()];
    let own_at = |i: usize| {
        own[i].get().unwrap_or_else(|| {
            let o = section_own(v, n, &run[i], Sel::of(v, class));
            own[i].set(Some(o));
            o
        })
    };
    run.iter().enumerate().find_map(|(i, x)| {
        run[i + 1..].iter().enumerate().find_map(|(j, y)| {
            let (sa, ea, sb, eb) = (x.slot, x.sec, y.slot, y.sec);
            let (a, b) = (&slot_sets[sa as usize].1, &slot_sets[sb as usize].1);
            // Two unlocked accesses are a data race, not a split critical section.
            let locked = matches!(ea, Section::View(_)) || matches!(eb, Section::View(_));
            if !locked || subset(a, b) || subset(b, a) || !together(x, y) {
                return None;
            }
            let serial = serial(x, y);
            // Locks held across both sections: a writer that needs one waits for the method.
            let outer = outer(x, y);
            // Both sections on the method's own object (see `apart`): for all the fields of
            // the class, or at least for field `f`, the one a writer writes (a section that
            // also calls a neighbour of the class, whose code does not reach `f`).
            let all_own = own_at(i) && own_at(i + 1 + j);
            let own_for = |f: FieldId| {
                all_own || {
                    let sel = Sel::of(v, class).only(std::slice::from_ref(&f));
                    section_own(v, n, x, sel) && section_own(v, n, y, sel)
                }
            };
            let local_for = |f: FieldId| (local, (n, own_for(f)));
            let writes = |x: &FieldSet| x.iter().any(|&(_, k)| k & WRITE != 0);
            // Two looks that only read are split only for a writer that updates both together.
            if shares(a, b) && (writes(a) || writes(b)) {
                // The writer that breaks the chain writes inside a critical section of its own
                // (a lock view, as the paper defines views): a write without any lock (a
                // setter run at configuration time) is a data race if anything, not a split
                // critical section. And that view conflicts with both sections: one that
                // commutes with either could run before the first or after the second, and
                // the interleaving would be serial (Lipton's reduction).
                let in_view = |f: FieldId| {
                    views.is_some_and(|views| {
                        views.iter().any(|(set, ids)| {
                            set.iter().any(|&(g, k)| g == f && k & WRITE != 0)
                                && conflicts(set, a)
                                && conflicts(set, b)
                                && concurrent_view(
                                    p,
                                    v,
                                    (threads, serial),
                                    ids,
                                    (class, Sel::of(v, class).only(std::slice::from_ref(&f))),
                                    &outer,
                                    local_for(f),
                                )
                                .is_some()
                        })
                    })
                };
                let w = a
                    .iter()
                    .chain(b.iter())
                    .filter(|&&(f, _)| in_view(f))
                    .find_map(|&(f, _)| {
                        concurrent_writer((threads, serial), f, &outer, local_for(f))
                    })?;
                return Some(((ea, eb), w));
            }
            // Fields without one in common are related when a concurrent critical section
            // accesses them together.
            let w = views?.iter().find_map(|(set, ids)| {
                let writes_into = |x: &FieldSet| {
                    set.iter()
                        .any(|&(f, k)| k & WRITE != 0 && x.iter().any(|(g, _)| *g == f))
                };
                // Another thread updates them together (this method may see a mix), or looks at
                // them together while this method updates them apart (it may see the half-done
                // update).
                let together = shares(set, a) && shares(set, b);
                if !together || !(writes_into(a) || writes_into(b) || writes(a) || writes(b)) {
                    return None;
                }
                // It must conflict with both sections (see above), not only look at both.
                if !conflicts(set, a) || !conflicts(set, b) {
                    return None;
                }
                // Apart (see `apart`) over the fields where they conflict.
                let access =
                    |x: &FieldSet, f: FieldId| x.iter().find(|(g, _)| *g == f).map(|e| e.1);
                let conflict: Vec<FieldId> = (set.iter())
                    .filter(|&&(f, k)| {
                        [access(a, f), access(b, f)]
                            .iter()
                            .flatten()
                            .any(|&m| (k | m) & WRITE != 0)
                    })
                    .map(|&(f, _)| f)
                    .collect();
                let sel = Sel::of(v, class).only(&conflict);
                let own = all_own || (section_own(v, n, x, sel) && section_own(v, n, y, sel));
                concurrent_view(
                    p,
                    v,
                    (threads, serial),
                    ids,
                    (class, sel),
                    &outer,
                    (local, (n, own)),
                )
                .map(|lv| v.lock_views[lv].node)
            })?;
            Some(((ea, eb), w))
        })
    })
}

/// The first of lock views `ids` (of `class`) that a thread concurrent to `threads` runs, not
/// under a lock of `outer` (held across the method's sections: that view waits for them);
/// with `local`, only a view of an operation of `class` itself (see [`own_operation`]).
fn concurrent_view(
    p: &Program,
    v: &Views,
    (threads, serial): (&[u32], Option<u32>),
    ids: &[usize],
    (class, sel): (u32, Sel<'_>),
    outer: &[NamedLock],
    (local, method): (bool, (usize, bool)),
) -> Option<usize> {
    ids.iter().copied().find(|&lv| {
        let view = &v.lock_views[lv];
        (!local || own_writer(p, v, view.node, class))
            && concurrent(v, threads, &v.reached_by[view.node], class)
            && !(method.1 && region_apart(p, v, method.0, lv, (class, sel)))
            && !serial_pair(p, v, serial, view.node, class)
            && (outer.is_empty() || !view_holds_any(p, v, view.node, view.site, outer))
    })
}

/// Whether the method at node `n` and the writer at node `w` (its direct writes of field `f`)
/// cannot touch the fields of `class` on one object: the method's sections touch them only on
/// its own object (`own`, see [`section_own`]), the writer writes `f` only on its own, and
/// their code never runs on one object ([`unrelated`]: two subclasses of `class` neither
/// of which extends the other, a `StringBuilder`'s and a `StringBuffer`'s code on
/// `AbstractStringBuilder`'s fields, two protocols' on their base class's; or a superclass's
/// method the other class overrides). Instance fields only (a static one is every object's).
/// A lock view's writer is asked by [`region_apart`].
fn apart(
    p: &Program,
    v: &Views,
    (n, own): (usize, bool),
    (w, f): (usize, FieldId),
    class: u32,
) -> bool {
    own && unrelated(p, v, n, w, class)
        && v.facts[w]
            .accesses
            .iter()
            .filter(|a| a.field == f && a.kind & WRITE != 0)
            .all(|a| a.on_this)
}

/// Whether the method at node `n`, whose sections touch the fields of `class` only on its own
/// object, and the lock view `lv` cannot touch them on one object: the view's
/// region touches them only on its own object too, and their code never runs on one object
/// (see [`apart`]).
fn region_apart(p: &Program, v: &Views, n: usize, lv: usize, sel: (u32, Sel<'_>)) -> bool {
    let view = &v.lock_views[lv];
    unrelated(p, v, n, view.node, sel.0) && region_own(v, view.node, view.site, sel.1, None)
}

/// Whether nodes `n` and `w` run code that never runs on one object of `class`'s: code of two
/// subclasses of `class` neither of which extends the other (classes, not interfaces), or a
/// superclass's method that the other's class overrides without calling it
/// ([`Program::runs_on`]: `JChannel.connect()` never runs on a `ForkChannel`); and `class` has
/// no static field.
fn unrelated(p: &Program, v: &Views, n: usize, w: usize, class: u32) -> bool {
    let (mn, mw) = (v.nodes[n].method, v.nodes[w].method);
    let (a, b) = (mn.class, mw.class);
    let interface = |c: u32| p.class(c).access & crate::bytecode::acc::INTERFACE != 0;
    if a == b
        || interface(a)
        || interface(b)
        || !p.is_subclass_idx(a, class)
        || !p.is_subclass_idx(b, class)
        || (p.is_subclass_idx(a, b) && p.runs_on(mw, a))
        || (p.is_subclass_idx(b, a) && p.runs_on(mn, b))
    {
        return false;
    }
    let (first, end) = v.fields.class_fields(class);
    let fields = &p.class(class).fields;
    !(first..end).any(|f| {
        let (_, i) = v.fields.owner(f);
        fields
            .get(i as usize)
            .is_none_or(|x| x.access & crate::bytecode::acc::STATIC != 0)
    })
}

/// Whether section `e` of the method at node `n` touches the fields of `class` only on the
/// method's own object: it is reached through calls on that object, and its accesses (those
/// of its region, and of the callees it runs there, see [`only_own_object`]) are on `this`.
fn section_own(v: &Views, n: usize, e: &Entered, sel: Sel<'_>) -> bool {
    section_own_apart(v, n, e, None, sel)
}

/// [`section_own`], leaving out of `e`'s region the call through which section `other` is
/// reached when the region encloses it (`synchronized long length() { if (closed) ..;
/// session.execute(req); }`: the region's own look, apart from the other section nested in
/// it).
fn section_own_apart(
    v: &Views,
    n: usize,
    e: &Entered,
    other: Option<&Entered>,
    sel: Sel<'_>,
) -> bool {
    let mut node = n;
    let mut level = 0;
    for &(at, next) in e.route.iter().take_while(|&&r| r != NONE) {
        let Some(c) = v.facts[node].calls.iter().find(|c| c.at == at) else {
            return false;
        };
        if !c.on_this {
            return false;
        }
        node = next as usize;
        level += 1;
    }
    // The call of this node that leads to `other`, when both are reached the same way so far.
    let skip = other
        .filter(|o| o.route[..level] == e.route[..level])
        .and_then(|o| o.route.get(level))
        .filter(|&&r| r != NONE)
        .map(|r| r.0);
    match e.sec {
        Section::Free(m, at) => (v.facts[m as usize].accesses.iter())
            .filter(|a| a.at == at && sel.has(a.field))
            .all(|a| a.on_this),
        Section::View(lv) => {
            let lv = &v.lock_views[lv as usize];
            let skip = skip.filter(|_| lv.node == node);
            region_own(v, lv.node, lv.site, sel, skip)
        }
    }
}

/// Whether the region at `site` of node `n` (the whole method for its `synchronized`) touches
/// the fields of `class` only on its own object: its accesses there on `this`, and the callees
/// it runs there on `this` too (see [`only_own_object`]), or reaching none of the fields. The
/// call at `skip` is left out.
fn region_own(v: &Views, n: usize, site: u32, sel: Sel<'_>, skip: Option<u32>) -> bool {
    let mine = |f: FieldId| sel.has(f);
    let f = &v.facts[n];
    let inside = |held: &[u32]| held_in_region(site, held);
    let accesses = (f.accesses.iter())
        .filter(|a| mine(a.field) && inside(&a.held))
        .all(|a| a.on_this);
    accesses
        && (f.calls.iter())
            .filter(|c| inside(&c.held) && Some(c.at) != skip)
            .all(|c| {
                v.callee_nodes(c).all(|t| {
                    if c.on_this {
                        only_own_object(v, t, sel, READ | WRITE)
                    } else {
                        !reaches_fields(v, t, sel, READ | WRITE)
                    }
                })
            })
}

/// Whether an access or call holding the regions `held` is inside the region at `site` (the
/// whole method for its `synchronized`).
fn held_in_region(site: u32, held: &[u32]) -> bool {
    site == METHOD_SITE || held.contains(&site)
}

/// Whether section `e` reads field `f` (of the section's class): an access of its region, or
/// of the callees it runs there, or the unlocked access it is.
fn section_reads(v: &Views, e: &Entered, f: FieldId) -> bool {
    let only = [f];
    let sel = Sel::of(v, e.class).only(&only);
    match e.sec {
        Section::Free(m, at) => (v.facts[m as usize].accesses.iter())
            .any(|a| a.at == at && a.field == f && a.kind & READ != 0),
        Section::View(lv) => {
            let lv = &v.lock_views[lv as usize];
            let facts = &v.facts[lv.node];
            let inside = |held: &[u32]| held_in_region(lv.site, held);
            (facts.accesses.iter()).any(|a| a.field == f && a.kind & READ != 0 && inside(&a.held))
                || (facts.calls.iter().filter(|c| inside(&c.held)))
                    .any(|c| v.callee_nodes(c).any(|t| reaches_fields(v, t, sel, READ)))
        }
    }
}

/// Whether the scope of node `m` has a field of `class` accessed with `kind`.
fn reaches_fields(v: &Views, m: usize, sel: Sel<'_>, kind: u8) -> bool {
    v.scope(m).iter().any(|&e| {
        sel.has(crate::whole::views::entry_field(e))
            && crate::whole::views::entry_kind(e) & kind != 0
    })
}

/// The fields a question about own objects is asked of: those of a class, or of them only
/// the ones listed (the fields a concurrent view writes).
#[derive(Clone, Copy)]
struct Sel<'a> {
    first: FieldId,
    end: FieldId,
    only: &'a [FieldId],
}

impl<'a> Sel<'a> {
    fn of(v: &Views, class: u32) -> Sel<'a> {
        let (first, end) = v.fields.class_fields(class);
        Sel {
            first,
            end,
            only: &[],
        }
    }

    /// Of those, only `fields`.
    fn only(self, fields: &'a [FieldId]) -> Sel<'a> {
        Sel {
            only: fields,
            ..self
        }
    }

    fn has(&self, f: FieldId) -> bool {
        f >= self.first && f < self.end && (self.only.is_empty() || self.only.contains(&f))
    }
}

/// Whether every access (of `kind`) of node `n` and its callees to the fields of `class` is of
/// `n`'s own object: on `this`, through calls on its own object, down to six calls; a call on
/// another object whose scope has one of the fields, or a chain deeper than that, says no.
fn only_own_object(v: &Views, n: usize, sel: Sel<'_>, kind: u8) -> bool {
    let mine = |f: FieldId| sel.has(f);
    let reaches = |m: usize| reaches_fields(v, m, sel, kind);
    let mut stack = vec![(n, 0u8)];
    let mut seen: FxHashSet<usize> = FxHashSet::default();
    while let Some((m, depth)) = stack.pop() {
        if !seen.insert(m) {
            continue;
        }
        let f = &v.facts[m];
        if f.accesses
            .iter()
            .any(|a| a.kind & kind != 0 && mine(a.field) && !a.on_this)
        {
            return false;
        }
        for c in &f.calls {
            for t in v.callee_nodes(c) {
                if c.on_this && depth < 6 {
                    stack.push((t, depth + 1));
                } else if reaches(t) {
                    return false;
                }
            }
        }
    }
    true
}

/// Whether node `w`, a concurrent writer or the node of a concurrent lock view, is an
/// operation of `class` itself ([`own_operation`]) that writes a field of `class` on its own
/// object: an access of `this` (or of a static field), directly or through calls on `this`
/// (down to six calls, as the explanation follows a writer). A writer that writes the fields
/// only on other objects it reaches (a parent's, a parameter's, a sibling's) may or may not
/// write the method's object: in a library, whose callers say which objects they share, the
/// split is then as unsure as one by another class's code.
fn own_writer(p: &Program, v: &Views, w: usize, class: u32) -> bool {
    own_operation(p, v.nodes[w].method.class, class) && on_own_object(v, w, class, WRITE)
}

/// Whether node `n` accesses (with `kind`: writes) a field of `class` on its own object, or a
/// static one: directly or through calls on its own object, down to six calls.
fn on_own_object(v: &Views, n: usize, class: u32, kind: u8) -> bool {
    let mut stack = vec![(n, 0u8)];
    let mut seen: FxHashSet<usize> = FxHashSet::default();
    while let Some((n, depth)) = stack.pop() {
        if !seen.insert(n) {
            continue;
        }
        let f = &v.facts[n];
        if f.accesses
            .iter()
            .any(|a| a.kind & kind != 0 && a.own && v.fields.owner(a.field).0 == class)
        {
            return true;
        }
        if depth >= 6 {
            continue;
        }
        for c in f.calls.iter().filter(|c| c.on_own) {
            stack.extend(v.callee_nodes(c).map(|m| (m, depth + 1)));
        }
    }
    false
}

/// A lock named across methods, with the class of the method naming it.
type NamedLock = (u32, LockKey);

/// Whether locks `keys` include one of `outer`.
fn holds_any(p: &Program, keys: &[NamedLock], outer: &[NamedLock]) -> bool {
    keys.iter()
        .any(|&(class, k)| outer.iter().any(|&(c, o)| k.same(p, class, o, c)))
}

/// The locks node `n` holds with regions `sites` held (and its entry locks when
/// `caller_held`), named across methods, and the locks all its callers hold that it cannot
/// name.
fn named_held(v: &Views, n: usize, sites: &[u32], caller_held: bool) -> Vec<NamedLock> {
    let f = &v.facts[n];
    let class = v.nodes[n].method.class;
    let mut out: Vec<NamedLock> = (f.keys_held(sites, caller_held).into_iter())
        .map(|k| (class, k))
        .chain(f.callers_keys.iter().copied())
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Whether the region of node `n` at `site` runs under one of the `outer` locks: its own
/// lock, its method's `synchronized`, or a lock every caller holds.
fn view_holds_any(p: &Program, v: &Views, n: usize, site: u32, outer: &[NamedLock]) -> bool {
    holds_any(
        p,
        &named_held(v, n, &region_sites(&v.facts[n], site), true),
        outer,
    )
}

/// The regions held inside the region of a method at `site`: itself, those of the method around
/// it (`synchronized (this)` inside `synchronized (lock)`, read off what it encloses, whose held
/// regions are listed outermost first; none in a method that waits), and the method's
/// `synchronized`.
fn region_sites(f: &crate::whole::facts::Facts, site: u32) -> Vec<u32> {
    // A wait releases the regions around it in the middle of them.
    let mut sites = if f.waits {
        vec![site]
    } else {
        f.regions_around(site)
    };
    if site != METHOD_SITE && f.regions.contains(&METHOD_SITE) && !sites.contains(&METHOD_SITE) {
        sites.push(METHOD_SITE);
    }
    sites
}

/// The locks held across both sections `x` and `y` of node `n`, named across methods: those
/// held at a call both are reached through (down their common route), and, where the routes
/// part, those held at both anchors in one acquisition (a region that cannot be entered again
/// between them), with the method's `synchronized` around its own regions. The callers' locks
/// a node cannot name count too.
fn held_across(
    p: &Program,
    v: &Views,
    n: usize,
    x: &Entered,
    y: &Entered,
    flows: &RefCell<Flows>,
) -> Vec<NamedLock> {
    // The monitor of a method's own object does not cover sections on another object of its
    // own class (had they locked that object, they would be re-entry, not sections): the
    // writer that holds its own object's monitor is then another object's (`dst.append(src)`
    // holds `dst` while `src.clear()` holds `src`). It covers sections on that same object
    // (each under a lock of its own: `synchronized void stop() { stopA(); stopB(); }`), whose
    // writers that hold the monitor wait for the method. One such section is enough, apart
    // from the other nested in it (`synchronized long length() { if (closed) ..;
    // session.execute(this); }`, whose session reads whatever handle it is handed): a writer
    // that holds its own object's monitor conflicts with the look on this object only when
    // it is this object, and then it waits.
    let own = std::cell::OnceCell::new();
    let covers = |node: usize, (class, k): &NamedLock| {
        let mine = v.nodes[node].method.class;
        if k.global || k.key != GuardKey::Own || *class != mine {
            return true;
        }
        !(p.is_subclass_idx(mine, x.class) || p.is_subclass_idx(x.class, mine))
            || (node == n
                && *own.get_or_init(|| {
                    section_own_apart(v, n, x, Some(y), Sel::of(v, x.class))
                        || section_own_apart(v, n, y, Some(x), Sel::of(v, y.class))
                }))
    };
    let mut out: Vec<NamedLock> = Vec::new();
    let mut node = n;
    for level in 0..=NEAR {
        let f = &v.facts[node];
        let (rx, ry) = match level {
            NEAR => (NONE, NONE),
            _ => (x.route[level], y.route[level]),
        };
        if rx != NONE && rx == ry {
            if let Some(c) = f.calls.iter().find(|c| c.at == rx.0) {
                let held = named_held(v, node, &c.held, c.caller_held);
                out.extend(held.into_iter().filter(|l| covers(node, l)));
            }
            node = rx.1 as usize;
            continue;
        }
        // The regions of `node` held in a section: at its anchor (a call or an access), or,
        // for a region of `node` itself, that region (and the method's `synchronized`).
        let held_in = |e: &Entered| -> Option<(Vec<u32>, bool)> {
            let own = match e.sec {
                Section::View(lv) => {
                    let lv = &v.lock_views[lv as usize];
                    let direct = e.route.get(level).is_none_or(|&r| r == NONE);
                    (lv.node == node && direct).then_some(lv.site)
                }
                Section::Free(..) => None,
            };
            if let Some(site) = own {
                return Some((region_sites(f, site), false));
            }
            let at = e.anchor_at(v, node, level)?;
            if let Some(c) = f.calls.iter().find(|c| c.at == at) {
                return Some((c.held.to_vec(), c.caller_held));
            }
            (f.accesses.iter().find(|a| a.at == at)).map(|a| (a.held.to_vec(), a.caller_held))
        };
        let (Some((ha, ca)), Some((hb, cb))) = (held_in(x), held_in(y)) else {
            break;
        };
        let mut sites: Vec<u32> = ha.iter().filter(|s| hb.contains(s)).copied().collect();
        if sites.iter().any(|&s| s != METHOD_SITE) {
            let mut flows = flows.borrow_mut();
            let cfg = flows.cfg(p, v, node);
            sites.retain(|&s| s == METHOD_SITE || cfg.is_some_and(|c| !c.can_repeat(s)));
        }
        let held = named_held(v, node, &sites, ca && cb);
        out.extend(held.into_iter().filter(|l| covers(node, l)));
        break;
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// A section the method enters and a lock view of a concurrent thread that writes a field in
/// common with it, whose views (restricted to the method's fields) do not nest; the concurrent
/// view must also write a field of another section of the method that can run in the same
/// call (its update then falls between two looks of the method at the fields it updates). A
/// section that is the method's only look at those fields is atomic for them, however another
/// thread's view is cut: the method reads them once.
#[allow(clippy::too_many_arguments)]
fn foreign_break(
    p: &Program,
    v: &Views,
    slot_sets: &[(u32, FieldSet)],
    run: &[Entered],
    views: &ClassViews,
    scope: &[u32],
    together: &impl Fn(&Entered, &Entered) -> bool,
    outer: &impl Fn(&Entered, &Entered) -> Vec<NamedLock>,
    (threads, serial): (&[u32], &Serial<'_>),
    class: u32,
    (local, n): (bool, usize),
) -> Option<((Entered, Section), usize, Entered)> {
    views.iter().find_map(|(set, ids)| {
        let inter: FieldSet = set
            .iter()
            .filter(|&&(f, _)| crate::whole::views::scope_has(scope, f))
            .copied()
            .collect();
        if !inter.iter().any(|&(_, k)| k & WRITE != 0) {
            return None;
        }
        // Whether section set `a` looks at a field the concurrent view writes.
        let written = |a: &FieldSet| {
            inter
                .iter()
                .any(|&(f, k)| k & WRITE != 0 && a.iter().any(|(g, _)| *g == f))
        };
        let (own, other) = run.iter().find_map(|e| {
            let a = &slot_sets[e.slot as usize].1;
            if !written(a) || subset(a, &inter) || subset(&inter, a) {
                return None;
            }
            let other = run.iter().find(|o| {
                o.sec != e.sec && together(e, o) && written(&slot_sets[o.slot as usize].1)
            })?;
            Some((*e, *other))
        })?;
        let serial = serial(&own, &other);
        // Apart (see `apart`) over the fields the concurrent view writes: the method's sections
        // touch those only on its own object, whatever they do to others of the class (a
        // protocol that reads its own address and passes an event down to the next protocol).
        let writes: Vec<FieldId> = (inter.iter())
            .filter(|&&(_, k)| k & WRITE != 0)
            .map(|&(f, _)| f)
            .collect();
        let sel = Sel::of(v, class).only(&writes);
        let local = (
            local,
            (
                n,
                section_own(v, n, &own, sel) && section_own(v, n, &other, sel),
            ),
        );
        let lv = concurrent_view(
            p,
            v,
            (threads, serial),
            ids,
            (class, sel),
            &outer(&own, &other),
            local,
        )?;
        Some((
            (own, Section::View(lv as u32)),
            v.lock_views[lv].node,
            other,
        ))
    })
}

/// The lock views of one class, restricted to its fields: each distinct restriction once,
/// with the lock views that have it.
type ClassViews = Vec<(FieldSet, Vec<usize>)>;

fn class_views(v: &Views) -> FxHashMap<u32, ClassViews> {
    // The lock views having each restriction; restrictions are numbered in the order first
    // seen, so each class's list keeps that order.
    let mut having: Vec<Vec<usize>> = vec![Vec::new(); v.parts.len()];
    for (i, lv) in v.lock_views.iter().enumerate() {
        for &part in &lv.parts {
            having[part as usize].push(i);
        }
    }
    let mut out: FxHashMap<u32, ClassViews> = FxHashMap::default();
    for ((class, set), ids) in v.parts.iter().zip(having) {
        out.entry(*class).or_default().push((set.clone(), ids));
    }
    out
}

/// One bit per (row, class with violations): rows are nodes, or components after
/// [`ClassBits::closure`].
struct ClassBits {
    words: usize,
    bits: Vec<u64>,
}

impl ClassBits {
    fn new(rows: usize, classes: usize) -> Self {
        let words = classes.div_ceil(64).max(1);
        ClassBits {
            words,
            bits: vec![0; rows * words],
        }
    }
    fn set(&mut self, row: usize, slot: usize) {
        self.bits[row * self.words + slot / 64] |= 1 << (slot % 64);
    }
    fn get(&self, row: usize, slot: usize) -> bool {
        self.bits[row * self.words + slot / 64] & (1 << (slot % 64)) != 0
    }
    /// Per component: the bits of its member nodes and of every component it calls,
    /// transitively. Components are numbered callees first, so one pass in order suffices.
    fn closure(&self, v: &Views) -> ClassBits {
        let words = self.words;
        let mut out = ClassBits {
            words,
            bits: vec![0; v.components() * words],
        };
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); v.components()];
        for n in 0..v.nodes.len() {
            members[v.component(n)].push(n);
        }
        let mut acc = vec![0u64; words];
        for (c, nodes) in members.iter().enumerate() {
            acc.iter_mut().for_each(|w| *w = 0);
            for &n in nodes {
                let own = &self.bits[n * words..(n + 1) * words];
                acc.iter_mut().zip(own).for_each(|(a, b)| *a |= b);
                for &w in &v.edges[n] {
                    let cw = v.component(w);
                    if cw != c {
                        let below = &out.bits[cw * words..(cw + 1) * words];
                        acc.iter_mut().zip(below).for_each(|(a, b)| *a |= b);
                    }
                }
            }
            out.bits[c * words..(c + 1) * words].copy_from_slice(&acc);
        }
        out
    }
    /// Per node, from per-component bits ([`ClassBits::closure`]): the bits of the components
    /// it calls (what is strictly below the node).
    fn through_calls(&self, v: &Views) -> ClassBits {
        let words = self.words;
        let mut out = ClassBits {
            words,
            bits: vec![0; v.nodes.len() * words],
        };
        for (n, callees) in v.edges.iter().enumerate() {
            let row = &mut out.bits[n * words..(n + 1) * words];
            for &w in callees {
                let c = v.component(w);
                let below = &self.bits[c * words..(c + 1) * words];
                row.iter_mut().zip(below).for_each(|(a, b)| *a |= b);
            }
        }
        out
    }
}

/// The first write of an involved field in node `from` or below it (a few calls deep): the node
/// and the access.
fn first_write<'a>(
    v: &'a Views,
    from: usize,
    involved: &[FieldId],
) -> Option<(usize, &'a crate::whole::facts::Access)> {
    v.find_below(from, 6, |n| {
        v.facts[n]
            .accesses
            .iter()
            .filter(|a| a.kind & WRITE != 0 && involved.binary_search(&a.field).is_ok())
            .min_by_key(|a| a.at)
            .map(|acc| (n, acc))
    })
}

fn view_text(p: &Program, v: &Views, fields: &[(FieldId, u8)], vars: &[FieldId]) -> String {
    let parts: Vec<String> = fields
        .iter()
        .filter(|(f, _)| vars.binary_search(f).is_ok())
        .map(|&(f, k)| {
            format!(
                "{}: {}",
                v.fields.describe(p, f).1,
                if k & WRITE != 0 { "u" } else { "r" }
            )
        })
        .collect();
    format!("{{{}}}", parts.join(", "))
}

fn explain(p: &Program, v: &Views, x: &Violation, involved: &[FieldId]) -> Diagnostic {
    let node = v.nodes[x.node];
    let class = p.class(node.method.class);
    let method = p.method(node.method);
    let code = method.code.as_ref();
    let owner = p.class(x.class);
    let simple = |c: &str| c.rsplit('/').next().unwrap_or(c).to_string();
    // The first instruction of the method touching an involved field, directly or by a call.
    let f = &v.facts[x.node];
    let touches = |set: &[u32]| {
        set.iter().any(|&e| {
            involved
                .binary_search(&crate::whole::views::entry_field(e))
                .is_ok()
        })
    };
    let first_access = f
        .accesses
        .iter()
        .filter(|a| involved.binary_search(&a.field).is_ok())
        .map(|a| a.at)
        .min();
    let first_call = f
        .calls
        .iter()
        .filter(|c| {
            c.targets.iter().any(|&t| {
                v.node_index(crate::whole::views::Node {
                    method: t,
                    this_held: c.this_held,
                })
                .is_some_and(|cn| touches(v.scope(cn)))
            })
        })
        .map(|c| c.at)
        .min();
    let at = match (first_access, first_call) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    let line = at
        .and_then(|i| code.and_then(|c| c.line_of(i)))
        .or_else(|| code.and_then(|c| c.lines.first().map(|l| l.1)));
    let names: Vec<&str> = involved
        .iter()
        .map(|&fid| v.fields.describe(p, fid).1)
        .collect();
    let mut steps = Vec::new();
    let mut view_descs = Vec::new();
    // The method's sections, then (for a foreign break) the concurrent thread's view; the
    // steps are put in execution order below.
    let mut secs = vec![(x.a, false)];
    if let Some((other, _)) = x.foreign {
        secs.push((other, false));
    }
    secs.push((x.b, x.foreign.is_some()));
    // Where each section's steps start.
    let mut starts = Vec::new();
    for &(sec, theirs) in &secs {
        starts.push(steps.len());
        let lvi = match sec {
            Section::View(lv) => lv as usize,
            Section::Free(fnode, at) => {
                let ln = v.nodes[fnode as usize];
                let lc = p.class(ln.method.class);
                let lm = p.method(ln.method);
                let lcode = lm.code.as_ref();
                let Some(acc) = v.facts[fnode as usize].accesses.iter().find(|a| a.at == at) else {
                    continue;
                };
                let (_, fname) = v.fields.describe(p, acc.field);
                let (kind, k) = if acc.kind & WRITE != 0 {
                    ("written", "u")
                } else {
                    ("read", "r")
                };
                view_descs.push(format!(
                    "{{{fname}: {k}}} outside any lock in `{}.{}()`",
                    simple(&lc.name),
                    lm.name
                ));
                let file = source_path(lc);
                steps.push(
                    Step {
                        kind: StepKind::Access,
                        line: lcode.and_then(|c| c.line_of(at)),
                        message: format!(
                            "`{}.{fname}` is {kind} here, outside any critical section",
                            simple(&owner.name)
                        ),
                        file: (file != source_path(class)).then_some(file),
                        at: Some(at),
                        method: (ln.method != node.method)
                            .then(|| format!("{}.{}", simple(&lc.name), lm.name)),
                        other_thread: false,
                        pc: None,
                    }
                    .in_code(lcode),
                );
                continue;
            }
        };
        let lv = &v.lock_views[lvi];
        let ln = v.nodes[lv.node];
        let lc = p.class(ln.method.class);
        let lm = p.method(ln.method);
        let lcode = lm.code.as_ref();
        let acq_line = if lv.site == METHOD_SITE {
            lcode.and_then(|c| c.lines.first().map(|l| l.1))
        } else {
            lcode.and_then(|c| c.line_of(lv.site))
        };
        let what = if lv.site == METHOD_SITE {
            format!("synchronized method `{}.{}()`", simple(&lc.name), lm.name)
        } else {
            format!("the lock taken in `{}.{}()`", simple(&lc.name), lm.name)
        };
        let threads: Vec<&str> = v.reached_by[lv.node]
            .iter()
            .map(|&t| v.threads[t as usize].name.as_str())
            .collect();
        let text = view_text(p, v, v.lock_view_part(lvi, x.class), &x.vars);
        view_descs.push(format!("{text} under {what}"));
        let file = source_path(lc);
        steps.push(
            Step {
                kind: StepKind::Lock,
                line: acq_line,
                // The threads are named once: a lock view run by the method's own threads (the
                // headline's "run by") says so in a word.
                message: match (theirs, v.reached_by[lv.node] == v.reached_by[x.node]) {
                    (true, true) => format!(
                        "a concurrent thread's lock view {text}, which does not nest with the method's: {what}, run by the same threads"
                    ),
                    (true, false) => format!(
                        "a concurrent thread's lock view {text}, which does not nest with the method's: {what}, run by {}",
                        threads.join(", ")
                    ),
                    (false, true) => format!("lock view {text}: {what}, run by the same threads"),
                    (false, false) => {
                        format!("lock view {text}: {what}, run by {}", threads.join(", "))
                    }
                },
                file: (file != source_path(class)).then_some(file.clone()),
                at: (lv.site != METHOD_SITE).then_some(lv.site),
                method: (ln.method != node.method)
                    .then(|| format!("{}.{}", simple(&lc.name), lm.name)),
                other_thread: theirs,
                pc: None,
            }
            .in_code(lcode),
        );
        let facts = &v.facts[lv.node];
        if let Some(acc) = facts
            .accesses
            .iter()
            .filter(|a| a.held.contains(&lv.site) && involved.binary_search(&a.field).is_ok())
            .min_by_key(|a| a.at)
        {
            let (_, fname) = v.fields.describe(p, acc.field);
            let kind = if acc.kind & WRITE != 0 {
                "written"
            } else {
                "read"
            };
            steps.push(
                Step {
                    kind: StepKind::Access,
                    line: lcode.and_then(|c| c.line_of(acc.at)),
                    message: format!(
                        "`{}.{fname}` is {kind} here, inside that lock",
                        simple(&owner.name)
                    ),
                    file: (file != source_path(class)).then_some(file),
                    at: Some(acc.at),
                    method: (ln.method != node.method)
                        .then(|| format!("{}.{}", simple(&lc.name), lm.name)),
                    other_thread: theirs,
                    pc: None,
                }
                .in_code(lcode),
            );
        }
    }
    // The concurrent writer: its first write of an involved field, its own or (written through
    // a callee) the nearest callee's.
    let wn = v.nodes[x.writer];
    let wc = p.class(wn.method.class);
    let wname = format!("{}.{}()", simple(&wc.name), p.method(wn.method).name);
    let mut writer_text = format!("`{wname}`");
    if let Some((cn, acc)) = first_write(v, x.writer, involved) {
        let (_, fname) = v.fields.describe(p, acc.field);
        let cm = v.nodes[cn].method;
        let cc = p.class(cm.class);
        let cmeth = p.method(cm);
        let ccode = cmeth.code.as_ref();
        // A write in a callee is shown there, and the headline keeps its words: the names it
        // quotes key the fingerprint.
        let through = if cn == x.writer {
            let wthreads: Vec<&str> = v.reached_by[x.writer]
                .iter()
                .map(|&t| v.threads[t as usize].name.as_str())
                .collect();
            writer_text = format!(
                "`{wname}` (run by {}) writes `{fname}`",
                wthreads.join(", ")
            );
            String::new()
        } else {
            format!("through `{}.{}()` ", simple(&cc.name), cmeth.name)
        };
        let between = if x.foreign.is_some() {
            "the method's critical sections"
        } else {
            "the two critical sections"
        };
        let file = source_path(cc);
        steps.push(
            Step {
                kind: StepKind::Access,
                line: ccode.and_then(|c| c.line_of(acc.at)),
                message: format!(
                    "another thread can run `{wname}` between {between}: {through}it writes `{}.{fname}` here",
                    simple(&owner.name)
                ),
                file: (file != source_path(class)).then_some(file),
                at: Some(acc.at),
                method: (cm != node.method)
                    .then(|| format!("{}.{}", simple(&cc.name), cmeth.name)),
                other_thread: true,
                pc: None,
            }
            .in_code(ccode),
        );
    }
    // With the method's two sections and a concurrent thread's view: the method's first section,
    // the other thread's view and its write (the interleaving), then the method's second.
    if let (Some((_, other_first)), &[sa, so, st]) = (x.foreign, &starts[..]) {
        // The steps are [own, other, theirs and the write]: split them and put theirs between.
        let mut own = steps.split_off(sa);
        let mut theirs = own.split_off(st - sa);
        let mut other = own.split_off(so - sa);
        if other_first {
            std::mem::swap(&mut own, &mut other);
        }
        steps.append(&mut own);
        steps.append(&mut theirs);
        steps.append(&mut other);
    }
    let threads: Vec<String> = v.reached_by[x.node]
        .iter()
        .map(|&t| v.threads[t as usize].name.clone())
        .collect();
    let fields = names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let message = match (x.foreign, &view_descs[..]) {
        // The method's other section is in the steps, not the headline: the names the headline
        // quotes key the finding's fingerprint, which a baseline matches.
        (Some(_), [own, .., theirs]) => format!(
            "Method `{}` is not atomic: it accesses {fields} of `{}` in separate critical sections, and its lock view {own} does not nest with a concurrent thread's {theirs}, so that thread can change them between the method's sections: {writer_text}; run by {}",
            method.name,
            simple(&owner.name),
            threads.join(", ")
        ),
        _ => format!(
            "Method `{}` is not atomic: it accesses {fields} of `{}` in separate critical sections whose lock views do not form a chain ({}), so a concurrent thread can change them in between: {writer_text}; run by {}",
            method.name,
            simple(&owner.name),
            view_descs.join(" and "),
            threads.join(", ")
        ),
    };
    crate::explain::own_offsets(&mut steps, method.code.as_ref());
    Diagnostic {
        rule: RuleId::MethodConsistency,
        level: if x.indirect {
            crate::rules::Level::Note
        } else {
            RuleId::MethodConsistency.meta().level
        },
        message,
        class: class.dotted_name(),
        method: method.name.to_string(),
        descriptor: method.descriptor.to_string(),
        file: source_path(class),
        source: None,
        source_root: None,
        line,
        age: None,
        steps,
        threads,
        evidence: Some(match (x.indirect, x.foreign.is_some()) {
            (true, _) => "other-class",
            (false, true) => "foreign-view",
            (false, false) => "split-sections",
        }),
        rank: Some(rank(p, v, x)),
    }
}

/// The rank of a violation (SARIF `rank`, higher is surer), from its evidence: two sections of
/// the method itself (60) above a section split by a concurrent thread's view (50); sections
/// entered in the code of the method's own class (not deep in another class's callees) rank
/// higher; a note (the fields of another class) and a writer that is only some program's
/// `main` rank lower. Whether the method writes in its sections does not count: on the corpus
/// (bench/precision) the read-only pairs were the likelier to be worth acting on.
fn rank(p: &Program, v: &Views, x: &Violation) -> u32 {
    let mut r: u32 = if x.foreign.is_some() { 50 } else { 60 };
    // The method's own sections: for a foreign break, `b` is the other thread's.
    let own = [x.a, x.foreign.map_or(x.b, |(other, _)| other)];
    let home = crate::program::nest(&p.class(v.nodes[x.node].method.class).name);
    let at_home = |s: Section| {
        let n = match s {
            Section::View(lv) => v.lock_views[lv as usize].node,
            Section::Free(n, _) => n as usize,
        };
        crate::program::nest(&p.class(v.nodes[n].method.class).name) == home
    };
    if own.iter().all(|&s| at_home(s)) {
        r += 10;
    }
    if x.indirect {
        r -= 20;
    }
    if v.reached_by[x.writer]
        .iter()
        .all(|&t| v.threads[t as usize].only_main(p))
    {
        r -= 10;
    }
    r
}
