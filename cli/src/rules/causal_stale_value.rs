//! `causal-stale-value`: stale values across atomic regions over the causal dependency graph
//! (causal-dependencies-hldr.md, Sect. 5.2; see `causal_stale_value.md` beside this file).
//!
//! The edges of the view-dependency graph (Definition 10) are the [`Flow`]s of
//! [`crate::whole::causal`]: a value of `x` read inside region `m1` leaves it and is written
//! (by data or control dependence) inside region `m2`, another region or the same one entered
//! again. Definition 11: such an edge is a violation only when a thread concurrent with the one
//! running it writes `x` inside one of its regions. Reported at the entry into `m2`, once per
//! value and method.
//!
//! The same defect is often also a `stale-value` finding (the value used after a new region was
//! entered, in one method): [`merge_duplicates`] keeps the `stale-value` one, confirmed.

use crate::analysis::guards::{self, GuardVar};
use crate::explain::{source_path, Diagnostic, Step, StepKind};
use crate::fxhash::{FxHashMap, FxHashSet};
use crate::program::{MethodId, Program};
use crate::rules::RuleId;
use crate::whole::causal::{describe_var, CausalGraph, Flow, Loc, Var};
use crate::whole::facts::WRITE;
use crate::whole::views::Views;

/// Check every flow; returns the diagnostics in scanned classes.
pub fn check(
    p: &Program,
    v: &Views,
    g: &CausalGraph,
    profile: &mut Vec<String>,
) -> Vec<Diagnostic> {
    let t0 = std::time::Instant::now();
    // Of each list below only the first two distinct entries (in the order met) are ever
    // asked (`any m != mid`; the first `b` with `a != b`, or the first when `a` runs many
    // times), so each keeps at most two: constant work per variable and thread instead of a
    // linear `contains` over every thread that writes it.
    fn add<T: PartialEq + Copy>(to: &mut Vec<T>, xs: &[T]) {
        for &x in xs {
            if to.len() >= 2 {
                return;
            }
            if !to.contains(&x) {
                to.push(x);
            }
        }
    }
    // Which threads write each variable inside a region (writes(x, p)), and in which nodes
    // (see `body_alone`).
    let mut writers: FxHashMap<Var, Vec<u32>> = FxHashMap::default();
    let mut writer_nodes: FxHashMap<Var, Vec<usize>> = FxHashMap::default();
    for rv in &g.views {
        for &x in rv.writes.iter() {
            add(writers.entry(x).or_default(), &v.reached_by[rv.node]);
            let nodes = writer_nodes.entry(x).or_default();
            if nodes.len() <= MAX_WRITER_NODES && !nodes.contains(&rv.node) {
                nodes.push(rv.node);
            }
        }
    }
    // Which methods take the head of each queue: only another taker makes a look at the head
    // stale (producers append at the tail). A queue whose head one method alone takes, run by
    // one thread, has one consumer by design (an event loop, a processor thread). And which
    // threads can make each collection smaller (`remove`, `clear`, `poll`): only they make an
    // index checked against its size go out of range (a collection that only grows keeps it
    // valid).
    let mut takers: FxHashMap<Var, Vec<MethodId>> = FxHashMap::default();
    let mut shrinkers: FxHashMap<Var, Vec<u32>> = FxHashMap::default();
    for (n, o) in g.outs.iter().enumerate() {
        let Some(o) = o else { continue };
        let m = v.nodes[n].method;
        for a in o.accesses.iter().filter(|a| a.kind & WRITE != 0) {
            let Some(r) = callee(p, m, a.at) else {
                continue;
            };
            if p.thread_safe.is_head_remove(&r.name, &r.desc) {
                add(takers.entry(a.var).or_default(), &[m]);
            }
            if p.thread_safe.is_shrink(&r.name) {
                add(shrinkers.entry(a.var).or_default(), &v.reached_by[n]);
            }
        }
    }
    // The nodes only a thread body runs on its own object (see `body_alone`).
    let owned = v.body_owned(p);
    let mut flows = 0usize;
    let mut reported: FxHashMap<(MethodId, Option<u32>), (usize, Var)> = FxHashMap::default();
    let mut merged: FxHashSet<(MethodId, Option<u32>, Var)> = FxHashSet::default();
    let mut snapshots: FxHashMap<(MethodId, Loc), usize> = FxHashMap::default();
    let mut out: Vec<Diagnostic> = Vec::new();
    let mut guarded: FxHashMap<GuardVar, guards::Writes> = FxHashMap::default();
    let mut together: FxHashMap<(Var, Var), bool> = FxHashMap::default();
    for (n, o) in g.outs.iter().enumerate() {
        let Some(o) = o else { continue };
        let mid = v.nodes[n].method;
        if o.flows.is_empty() || p.class(mid.class).library {
            continue;
        }
        let runners = &v.reached_by[n];
        // Of several reads of one variable deciding one write, the one nearest to it (read in
        // this method, latest) is the decision acted upon (`p = m.get(src); d = m.get(dst); if
        // (d == null) m.put(dst, ..)`).
        let mut order: Vec<&Flow> = o.flows.iter().collect();
        order.sort_by_key(|f| {
            (
                line_in(p, mid, f.entry_at),
                f.src.var,
                std::cmp::Reverse((f.src.loc.method == mid, f.src.loc.at)),
            )
        });
        for f in order {
            flows += 1;
            let head = |l: Loc, f: &dyn Fn(&str, &str) -> bool| call_is(p, l.method, l.at, f);
            let looks_at_head = head(f.src.loc, &|name, _| {
                p.thread_safe.is_head_read(name) || p.thread_safe.is_size_read(name)
            }) && head(f.dst.loc, &|name, desc| {
                p.thread_safe.is_head_remove(name, desc)
            });
            // One taking method is one consumer only where one thread runs it: a method that
            // the program's own threads run concurrently with itself (workers started in a
            // loop, two threads of one body) is as many consumers as they are.
            let many_consumers = || {
                let started: Vec<u32> = (runners.iter().copied())
                    .filter(|&a| !v.threads[a as usize].callers)
                    .collect();
                let conflict = |a: u32, b: u32| {
                    crate::whole::threads::conflict_on(p, &v.threads, &v.fields, (a, b), f.src.var)
                };
                started
                    .iter()
                    .any(|&a| started.iter().any(|&b| conflict(a, b)))
            };
            if looks_at_head
                && !takers
                    .get(&f.src.var)
                    .is_some_and(|t| t.iter().any(|&m| m != mid))
                && !many_consumers()
            {
                continue;
            }
            // An index is bounded by a look at the size (`size()`, `isEmpty()`), not by another
            // element read; a lookup by key counts on a look that found the key
            // (`containsKey`).
            let by_key = f.index && key_read(p, f);
            if f.index
                && !head(f.src.loc, &|name, desc| {
                    if by_key {
                        p.thread_safe.is_key_test(name) || p.thread_safe.is_key_put(name, desc)
                    } else {
                        p.thread_safe.is_size_read(name)
                    }
                })
            {
                continue;
            }
            // A key this method put itself is counted on for the value it put: another thread's
            // put under the key breaks that as a removal does.
            let put_key = by_key
                && head(f.src.loc, &|name, desc| {
                    p.thread_safe.is_key_put(name, desc)
                });
            let ws = if f.index && !put_key {
                shrinkers.get(&f.src.var)
            } else {
                writers.get(&f.src.var)
            };
            let Some(ws) = ws else {
                continue;
            };
            if !f.index && body_alone(p, v, (owned, &writer_nodes), n, f) {
                continue;
            }
            if f.claim.is_some_and(|y| {
                *together
                    .entry((f.src.var, y))
                    .or_insert_with(|| change_together(p, v, g, f.src.var, y))
            }) {
                continue;
            }
            let writer = runners.iter().find_map(|&a| {
                ws.iter().copied().find(|&b| {
                    crate::whole::threads::conflict_on(p, &v.threads, &v.fields, (a, b), f.src.var)
                })
            });
            let Some(writer) = writer else { continue };
            if !f.unlocked && !f.index && enclosed(p, &mut guarded, mid, f) {
                continue;
            }
            // An index checked against a size is a new shape to the user: reported when the
            // remover is a thread the program starts (or runs many of), not only another
            // program's `main` that may never run beside this one.
            if f.index && v.threads[writer as usize].only_main(p) {
                continue;
            }
            // One finding per line it enters: two reads of one variable (`a[i] > a[j]`) or two
            // callers' snapshots of it are one stale decision (the nearest, above); snapshots
            // of other variables that one statement combines (`high - hd - size`) are one cause
            // too, and join it as further reads (related locations).
            let line = line_in(p, mid, f.entry_at);
            // One snapshot acted on at several lines (`i < v.size()` deciding two `elementAt(i)`
            // calls) is one stale value too: its further uses join the first finding.
            if let Some(&at) = snapshots.get(&(mid, f.src.loc)) {
                if let std::collections::hash_map::Entry::Vacant(e) = reported.entry((mid, line)) {
                    e.insert((at, f.src.var));
                    let extra = explain(p, v, n, f, writer);
                    out[at]
                        .steps
                        .extend(extra.steps.into_iter().filter(|s| s.kind == StepKind::Use));
                }
                continue;
            }
            if let Some(&(at, var)) = reported.get(&(mid, line)) {
                if var != f.src.var && merged.insert((mid, line, f.src.var)) {
                    let extra = explain(p, v, n, f, writer);
                    let first: &mut Diagnostic = &mut out[at];
                    let reads = extra.steps.into_iter().filter(|s| s.kind == StepKind::Read);
                    let k = first
                        .steps
                        .iter()
                        .take_while(|s| s.kind == StepKind::Read)
                        .count();
                    first.steps.splice(k..k, reads);
                }
                continue;
            }
            reported.insert((mid, line), (out.len(), f.src.var));
            snapshots.insert((mid, f.src.loc), out.len());
            out.push(explain(p, v, n, f, writer));
        }
    }
    related_checks(p, v, g, &mut reported, &mut out);
    profile.push(format!(
        "causal-stale-value: {flows} flows, {} reported, in {:?}",
        out.len(),
        t0.elapsed()
    ));
    out
}

/// A stale look at one variable that decides the write of another, where another thread's
/// critical section writes the two together (`if (closed) throw ..; synchronized (lock) {
/// subscribers.add(s); }` against `synchronized (lock) { closed = true; subscribers.clear();
/// }`): the look's variable guards the other, and the section that changes the guard changes
/// what it guards at once, so the write acts on a state that may be gone (a subscriber added to
/// a registry already closed and drained). Reported with evidence `related-check`. Not where
/// the acting section writes the looked-at variable too (its own claim, or a check-then-act on
/// that variable reported as such), nor on a line already reported.
fn related_checks(
    p: &Program,
    v: &Views,
    g: &CausalGraph,
    reported: &mut FxHashMap<(MethodId, Option<u32>), (usize, Var)>,
    out: &mut Vec<Diagnostic>,
) {
    let view_of = |node: u32, site: u32| {
        (g.views.iter()).find(|rv| rv.node == node as usize && rv.site == site)
    };
    let writes =
        |rv: &crate::whole::causal::RegionView, x: Var| rv.writes.binary_search(&x).is_ok();
    for (n, o) in g.outs.iter().enumerate() {
        let Some(o) = o else { continue };
        let mid = v.nodes[n].method;
        if o.links.is_empty() || p.class(mid.class).library {
            continue;
        }
        let runners = &v.reached_by[n];
        for f in &o.links {
            let (x, y) = (f.src.var, f.dst.var);
            if !f.check || f.index || f.require || x == y || f.dst.node as usize != n {
                continue;
            }
            // The guard is a field set once (a lifecycle flag: `closed`, `started`), looked at
            // on the method's own object.
            let once = crate::whole::causal::var_kind(x) == crate::whole::causal::FIELD
                && v.fields.is_once(crate::whole::causal::var_field(x));
            if !once || !own_look(p, f) {
                continue;
            }
            if view_of(f.dst.node, f.dst.site).is_none_or(|rv| writes(rv, x)) {
                continue;
            }
            let joint = || {
                (g.views.iter())
                    .filter(|rv| writes(rv, x) && writes(rv, y))
                    .filter(|rv| !(rv.node == n && rv.site == f.dst.site))
            };
            // Two signals of one subscriber never run at once (a `serial` interface's methods).
            let owner = v.fields.owner(crate::whole::causal::var_field(x)).0;
            let serial = |w: usize| {
                crate::whole::threads::serial_with(p, mid.class, v.nodes[w].method, owner)
            };
            let writer = runners.iter().find_map(|&a| {
                joint().filter(|rv| !serial(rv.node)).find_map(|rv| {
                    v.reached_by[rv.node].iter().copied().find(|&b| {
                        crate::whole::threads::conflict_on(p, &v.threads, &v.fields, (a, b), x)
                    })
                })
            });
            let Some(writer) = writer else { continue };
            let line = line_in(p, mid, f.entry_at);
            if reported.contains_key(&(mid, line)) {
                continue;
            }
            reported.insert((mid, line), (out.len(), x));
            let mut d = explain(p, v, n, f, writer);
            d.evidence = Some("related-check");
            out.push(d);
        }
    }
}

/// Whether the look of flow `f` is at a field of the looking method's own object (`this`, by
/// `aload_0` right before the read) or a static one, or at the state of a thread-safe object:
/// the guard of the object whose state the method changes, not a field of another object it
/// walks to (a list node's `next`).
fn own_look(p: &Program, f: &Flow) -> bool {
    use crate::bytecode::Op;
    if crate::whole::causal::var_kind(f.src.var) != crate::whole::causal::FIELD {
        return true;
    }
    let m = p.method(f.src.loc.method);
    let Some(code) = m.code.as_ref() else {
        return false;
    };
    let at = f.src.loc.at as usize;
    match code.insns.get(at).map(|i| &i.op) {
        Some(Op::GetStatic(_)) => true,
        Some(Op::GetField(_)) => {
            !m.is_static()
                && at
                    .checked_sub(1)
                    .and_then(|k| code.insns.get(k))
                    .is_some_and(|i| matches!(i.op, Op::Load(0, _)))
        }
        _ => false,
    }
}

/// Whether variables `x` and `y` change together: every region that writes `x` writes `y` too,
/// and nothing writes `x` outside a region but a constructor. A current look at `y` in the
/// region that writes `x` then sees whether another thread wrote `x` since a stale look at it
/// ([`crate::whole::causal::Flow::claim`]): the region's claim re-checks the look (`if
/// (closed) return;` before `synchronized (this) { if (state == CLOSED) return; state =
/// CLOSED; closed = true; }`).
fn change_together(p: &Program, v: &Views, g: &CausalGraph, x: Var, y: Var) -> bool {
    use crate::bytecode::{acc, Op};
    let regions = (g.views.iter())
        .filter(|rv| rv.writes.binary_search(&x).is_ok())
        .all(|rv| rv.writes.binary_search(&y).is_ok());
    if !regions || crate::whole::causal::var_kind(x) != crate::whole::causal::FIELD {
        return regions;
    }
    // Each method that stores into the field after construction stores inside a region
    // (its own, or one every caller holds) in some node that runs it.
    let (oc, of) = v.fields.owner(crate::whole::causal::var_field(x));
    let private = p.class(oc).fields[of as usize].access & acc::PRIVATE != 0;
    let nest = crate::program::nest(&p.class(oc).name);
    let locked = |m: MethodId| {
        (0..v.nodes.len()).any(|n| {
            let Some(o) = g.outs[n].as_ref().filter(|_| v.nodes[n].method == m) else {
                return false;
            };
            let mut writes = o
                .accesses
                .iter()
                .filter(|a| a.var == x && a.kind & WRITE != 0);
            writes.clone().next().is_some() && writes.all(|a| !a.held.is_empty())
        })
    };
    p.classes.iter().enumerate().all(|(ci, c)| {
        (private && crate::program::nest(&c.name) != nest)
            || c.methods.iter().enumerate().all(|(mi, m)| {
                let Some(code) = &m.code else { return true };
                let stores = code.insns.iter().any(|i| {
                    matches!(i.op, Op::PutField(r) | Op::PutStatic(r)
                        if p.field_ref(ci as u32, r) == Some((oc, of)))
                });
                let id = MethodId {
                    class: ci as u32,
                    method: mi as u32,
                };
                !stores || matches!(&*m.name, "<init>" | "<clinit>") || locked(id)
            })
    })
}

/// Whether one region of method `mid` encloses flow `f` from its read to where the value enters
/// its second region, on a lock that every write of the variable holds ([`guards::held_across`],
/// [`guards::Writes::guarded`]): no writer runs in between, so the inner regions the value
/// crosses (`synchronized (this)` blocks inside `synchronized (lock)`, a flag lock's try-lock)
/// leave it current. Asked only of a value read in `mid` itself; `writes` keeps each
/// variable's writes.
fn enclosed(
    p: &Program,
    writes: &mut FxHashMap<GuardVar, guards::Writes>,
    mid: MethodId,
    f: &Flow,
) -> bool {
    let kind = crate::whole::causal::var_kind(f.src.var);
    if f.src.loc.method != mid
        || kind == crate::whole::causal::ELEMENTS
        || kind == crate::whole::causal::CONTENTS
    {
        return false;
    }
    let across = guards::held_across(p, mid, f.src.loc.at, f.entry_at);
    let Some(place) = across.place.filter(|_| !across.locks.is_empty()) else {
        return false;
    };
    let state = kind == crate::whole::causal::STATE;
    let queries: Vec<guards::GuardQuery> = (across.locks.iter())
        .filter_map(|&l| guards::query(p, mid.class, l, place, state))
        .collect();
    let Some(var) = queries.first().map(|q| q.var) else {
        return false;
    };
    let w = writes
        .entry(var)
        .or_insert_with(|| guards::writes_of(p, &std::iter::once(var).collect()));
    queries.iter().any(|q| w.guarded(q))
}

/// How many region nodes writing one variable `body_alone` looks at; with more, the variable
/// is taken as written by anyone.
const MAX_WRITER_NODES: usize = 16;

/// Whether flow `f` of node `n` is on a field of the object a thread body runs on, read and
/// written only by code that body alone runs on that object ([`threads::body_owned`]): a
/// `Thread` subclass's `run()` and the methods only it calls on `this`. No other thread writes
/// the field (each other run of the body is on its own object), so the value read is current
/// however many sections it crosses. A static field is every body's; a public or otherwise
/// reachable writer (another thread's `reset()`) makes the field anyone's.
///
/// [`threads::body_owned`]: crate::whole::threads::body_owned
fn body_alone(
    p: &Program,
    v: &Views,
    (owned, writer_nodes): (&[Option<u32>], &FxHashMap<Var, Vec<usize>>),
    n: usize,
    f: &Flow,
) -> bool {
    use crate::whole::causal::{var_field, var_kind, FIELD};
    if var_kind(f.src.var) != FIELD {
        return false;
    }
    let Some(body) = owned[n] else {
        return false;
    };
    let field = var_field(f.src.var);
    let (fc, fi) = v.fields.owner(field);
    if p.class(fc).fields[fi as usize].access & crate::bytecode::acc::STATIC != 0
        || !crate::whole::threads::body_classes(p, body).contains(&fc)
    {
        return false;
    }
    // Every access of the field of kind `kind` in node `k` is on `this`, and the body owns `k`.
    let mine = |k: usize, kind: u8, at: Option<u32>| {
        owned[k] == Some(body)
            && (v.facts[k].accesses.iter())
                .filter(|a| a.field == field && a.kind & kind != 0)
                .filter(|a| at.is_none_or(|at| a.at == at))
                .all(|a| a.on_this)
    };
    // The read: in a node the body owns, on `this`.
    let read_nodes: Vec<usize> = [false, true]
        .iter()
        .filter_map(|&this_held| {
            v.node_index(crate::whole::views::Node {
                method: f.src.loc.method,
                this_held,
            })
        })
        .collect();
    let read_at =
        |k: usize| (v.facts[k].accesses.iter()).any(|a| a.field == field && a.at == f.src.loc.at);
    if read_nodes.is_empty()
        || !read_nodes
            .iter()
            .all(|&k| read_at(k) && mine(k, crate::whole::facts::READ, Some(f.src.loc.at)))
    {
        return false;
    }
    writer_nodes
        .get(&f.src.var)
        .is_some_and(|ws| ws.len() <= MAX_WRITER_NODES && ws.iter().all(|&w| mine(w, WRITE, None)))
}

/// The method the instruction at `at` of method `m` calls, if it is a call.
fn callee(p: &Program, m: MethodId, at: u32) -> Option<&crate::bytecode::MemberRef> {
    match p.method(m).code.as_ref()?.insns.get(at as usize)?.op {
        crate::bytecode::Op::Invoke(_, r) => Some(p.class(m.class).member(r)),
        _ => None,
    }
}

/// Whether the access `f` is decided for is a lookup by key ([`Flow::index`] of `get(k)`).
fn key_read(p: &Program, f: &Flow) -> bool {
    call_is(p, f.dst.loc.method, f.dst.loc.at, |name, desc| {
        p.thread_safe.is_key_read(name, desc)
    })
}

/// Whether the instruction at `at` of method `m` is a call whose name and descriptor satisfy
/// `f`.
fn call_is(p: &Program, m: MethodId, at: u32, f: impl Fn(&str, &str) -> bool) -> bool {
    callee(p, m, at).is_some_and(|r| f(&r.name, &r.desc))
}

fn line_in(p: &Program, m: MethodId, at: u32) -> Option<u32> {
    let code = p.method(m).code.as_ref()?;
    if at == crate::analysis::locks::METHOD_SITE {
        return code.lines.first().map(|l| l.1);
    }
    code.line_of(at)
}

/// The words for region `site` of explored node `node`.
fn region_words(p: &Program, v: &Views, node: u32, site: u32) -> String {
    let m = v.nodes[node as usize].method;
    crate::explain::region_words(p, m, site)
}

fn explain(p: &Program, v: &Views, node: usize, f: &Flow, writer: u32) -> Diagnostic {
    let mid = v.nodes[node].method;
    let class = p.class(mid.class);
    let method = p.method(mid);
    let home = source_path(class);
    let file_of = |m: MethodId| {
        let f = source_path(p.class(m.class));
        (f != home).then_some(f)
    };
    let method_of = |m: MethodId| {
        (m != mid).then(|| {
            let c = p.class(m.class);
            let simple = c.name.rsplit('/').next().unwrap_or(&c.name);
            format!("{simple}.{}", p.method(m).name)
        })
    };
    let site = |at: u32| (at != crate::analysis::locks::METHOD_SITE).then_some(at);
    let what = describe_var(p, &v.fields, f.src.var);
    let r1 = if f.unlocked {
        "no critical section (an unlocked read)".to_string()
    } else {
        region_words(p, v, f.src.node, f.src.site)
    };
    let r2 = region_words(p, v, f.dst.node, f.dst.site);
    let written = describe_var(p, &v.fields, f.dst.var);
    let entry_line = line_in(p, mid, f.entry_at);
    let read_line = line_in(p, f.src.loc.method, f.src.loc.at);
    let write_line = line_in(p, f.dst.loc.method, f.dst.loc.at);
    let writer_name = &v.threads[writer as usize].name;
    let threads: Vec<String> = v.reached_by[node]
        .iter()
        .map(|&t| v.threads[t as usize].name.clone())
        .collect();
    // A key the method put a value under itself, then looks up again.
    let put_key = f.index
        && key_read(p, f)
        && call_is(p, f.src.loc.method, f.src.loc.at, |name, desc| {
            p.thread_safe.is_key_put(name, desc)
        });
    let mut steps = vec![Step {
        kind: StepKind::Read,
        line: read_line,
        message: if put_key {
            format!("a value is put under a key of {what} here, inside {r1}")
        } else if f.unlocked {
            format!("{what} is read here, outside any critical section: its writers hold a lock this read does not")
        } else {
            format!("{what} is read here, inside {r1}")
        },
        file: file_of(f.src.loc.method),
        at: site(f.src.loc.at),
        method: method_of(f.src.loc.method),
        other_thread: false,
        pc: None,
    }
    .in_code(p.method(f.src.loc.method).code.as_ref())];
    if let (Some(at), true) = (f.left_at, f.unlocked) {
        // A getter's look, made holding no lock at the call here.
        let getter = method_of(f.src.loc.method).unwrap_or_default();
        steps.push(Step::here(
            StepKind::Stale,
            line_in(p, mid, at),
            site(at),
            format!("`{getter}()` is called here holding no lock, and its look is open to {writer_name} from then on"),
        ));
    } else if let Some(left) = f.left_at {
        steps.push(Step::here(
            StepKind::Stale,
            line_in(p, mid, left),
            site(left),
            format!("the value leaves {r1} here; {writer_name} may write {what} from now on"),
        ));
    } else if put_key {
        steps.push(Step::here(
            StepKind::Stale,
            read_line,
            site(f.src.loc.at),
            format!("{r1} ends after the put; {writer_name} may put or remove a value under the key from then on"),
        ));
    }
    if f.unlocked && f.enter_site == f.entry_at && f.src.loc.method == mid {
        // Read without the lock and used by a callee's critical section: the value is open to
        // the writer from the read on.
        steps.push(Step::here(
            StepKind::Stale,
            read_line,
            site(f.src.loc.at),
            format!("no lock is held from here until the value is used; {writer_name} may write {what} in between"),
        ));
    }
    if f.enter_site != f.entry_at {
        steps.push(Step::here(
            StepKind::Stale,
            line_in(p, mid, f.enter_site),
            site(f.enter_site),
            format!("{r2} begins here"),
        ));
    }
    let same_place = f.dst.loc.method == mid && f.dst.loc.at == f.entry_at;
    let by_key = f.index && key_read(p, f);
    let use_msg = if put_key {
        format!("the same key of {written} is looked up here, inside {r2}, and the result used untested: another value, or none, if {writer_name} put or removed one in between")
    } else if by_key {
        format!("the decision on it lets a key of {written} be looked up here, inside {r2}, and the result used untested: gone if {writer_name} removed it in between")
    } else if f.index {
        format!("the decision on it lets an index into {written} be used here, inside {r2}: out of range if {writer_name} removed elements in between")
    } else if f.require {
        format!(
            "the value (or a condition on it) lets the call here go ahead; inside {r2} {written} is checked again and the call throws if it changed ({}line {})",
            {
                let wfile = source_path(p.class(f.dst.loc.method.class));
                if wfile != home { format!("{wfile} ") } else { String::new() }
            },
            write_line.map_or("?".to_string(), |l| l.to_string())
        )
    } else if same_place {
        format!("the value (or a condition on it) is written to {written} here, inside {r2}")
    } else {
        let wfile = source_path(p.class(f.dst.loc.method.class));
        format!(
            "the value (or a condition on it) enters {r2} here and is written to {written} there ({}line {})",
            if wfile != home { format!("{wfile} ") } else { String::new() },
            write_line.map_or("?".to_string(), |l| l.to_string())
        )
    };
    steps.push(Step::here(
        StepKind::Use,
        entry_line,
        site(f.entry_at),
        use_msg,
    ));
    if let Some(code) = method.code.as_ref() {
        crate::explain::name_back_edges(code, &mut steps);
    }
    // An unlocked look a getter made, one call away (`if (!e.hasLeader()) e.claim(me)`): the
    // caller's own check. Where the library's unknown callers are the threads it is weaker
    // evidence than a look made here, a note: whether they share the object it is made on the
    // library does not say (per-message and per-command objects one thread uses). Where the
    // program starts the threads that race on it, it is a warning like a look made here.
    let getter = f.unlocked && f.src.loc.method != mid;
    let getter_note = getter
        && (v.threads[writer as usize].callers
            || v.reached_by[node]
                .iter()
                .any(|&t| v.threads[t as usize].callers));
    let read_words = if f.unlocked {
        match method_of(f.src.loc.method) {
            Some(getter) => format!("was read outside any critical section, by `{getter}()`"),
            None => "was read outside any critical section".to_string(),
        }
    } else {
        format!("was read inside {r1}")
    };
    // Each thread named once: when the writer is the only thread running the method, another
    // instance of it is the writer.
    let alone = threads.len() == 1 && threads[0] == *writer_name;
    let who = if alone {
        format!("run by {writer_name}, another instance of which writes {what} concurrently")
    } else {
        format!(
            "{writer_name} writes {what} concurrently; run by {}",
            threads.join(", ")
        )
    };
    let message = if put_key {
        let who = if alone {
            format!("run by {writer_name}, another instance of which can put or remove values under that key concurrently")
        } else {
            format!(
                "{writer_name} can put or remove values under that key concurrently; run by {}",
                threads.join(", ")
            )
        };
        format!(
            "Stale value across critical sections: a value is put under a key of {what} inside {r1} ({}), and the same key is looked up inside {r2} ({}) counting on that value; {who}, so the lookup may give another thread's value, or null",
            read_line.map_or("unknown line".to_string(), |l| format!("line {l}")),
            entry_line.map_or("unknown line".to_string(), |l| format!("line {l}")),
        )
    } else if f.index {
        let who = if alone {
            format!(
                "run by {writer_name}, another instance of which can remove elements concurrently"
            )
        } else {
            format!(
                "{writer_name} can remove elements concurrently; run by {}",
                threads.join(", ")
            )
        };
        let (used, fails) = if by_key {
            (
                "a key of it is looked up",
                "the key may be gone and the lookup give null",
            )
        } else {
            ("an index into it is used", "the index may be out of range")
        };
        format!(
            "Stale value across critical sections: {what} {read_words} ({}), left it, and decides whether {used} inside {r2} ({}); {who}, so {fails} when it is used",
            read_line.map_or("unknown line".to_string(), |l| format!("line {l}")),
            entry_line.map_or("unknown line".to_string(), |l| format!("line {l}")),
        )
    } else if f.require {
        format!(
            "Stale value across critical sections: {what} {read_words} ({}){} and lets the call at {} go ahead, which requires it: inside {r2} ({}) the call checks {written} again and throws if it changed; {who}, so the call may fail",
            read_line.map_or("unknown line".to_string(), |l| format!("line {l}")),
            if f.unlocked { "," } else { ", left it," },
            entry_line.map_or("an unknown line".to_string(), |l| format!("line {l}")),
            write_line.map_or("unknown line".to_string(), |l| format!("line {l}")),
        )
    } else {
        format!(
        "Stale value across critical sections: {what} {read_words} ({}){} and {} written to {written} inside {r2} ({}); {who}, so the value may be out of date when it is used",
        read_line.map_or("unknown line".to_string(), |l| format!("line {l}")),
        if f.unlocked { "," } else { ", left it," },
        if same_place { "is" } else { "enters here to be" },
        write_line.map_or("unknown line".to_string(), |l| format!("line {l}")),
    )
    };
    let message = if getter_note {
        format!("{message} (a note: the unlocked look is a getter's, one call away)")
    } else {
        message
    };
    crate::explain::own_offsets(&mut steps, method.code.as_ref());
    Diagnostic {
        rule: RuleId::CausalStaleValue,
        level: if getter_note {
            crate::rules::Level::Note
        } else {
            RuleId::CausalStaleValue.meta().level
        },
        message,
        class: class.dotted_name(),
        method: method.name.to_string(),
        descriptor: method.descriptor.to_string(),
        file: home,
        source: None,
        source_root: None,
        line: entry_line,
        age: None,
        steps,
        threads,
        evidence: Some(if by_key {
            "key-check"
        } else if getter {
            "getter-check"
        } else if f.index {
            "index-check"
        } else if f.require {
            "precondition"
        } else if f.check {
            "check-then-act"
        } else {
            "lost-update"
        }),
        rank: Some(rank(p, v, f, writer)),
    }
}

/// The rank of an edge: a lost update (the value written back) above a check-then-act (the
/// write decided by it), a value read in this very method above one returned by a callee, and a
/// writer that is another instance of a thread running this code, or a thread other than a
/// program's `main`, above a `main` alone.
fn rank(p: &Program, v: &Views, f: &Flow, writer: u32) -> u32 {
    let mut r = if f.check { 55 } else { 70 };
    if f.src.node == f.dst.node {
        r += 10;
    }
    if !v.threads[writer as usize].only_main(p) {
        r += 10;
    }
    r
}

/// One finding per defect: a `causal-stale-value` finding in the same method and at the same
/// line as a `stale-value` finding is the same stale value, seen intraprocedurally by
/// `stale-value`. The `stale-value` finding is kept (its rule id, age and baseline fingerprint
/// stay stable whether or not the whole-program rules run) and takes the confirmation: the
/// threads, and in its message the concurrent writer. The `causal-stale-value` finding is
/// dropped. `causal-stale-value` therefore reports what `stale-value` does not: values crossing
/// methods, check-then-act through conditions, regions of other classes.
pub fn merge_duplicates(diags: &mut Vec<Diagnostic>) {
    type Key = (String, String, String, Option<u32>);
    let key = |d: &Diagnostic| -> Key {
        (
            d.class.clone(),
            d.method.clone(),
            d.descriptor.clone(),
            d.line,
        )
    };
    // The snapshot a finding is about: its method and its first read step (line, file).
    type Snap = (String, String, String, Option<u32>, Option<String>);
    let snapshot = |d: &Diagnostic| -> Option<Snap> {
        let r = d.steps.iter().find(|s| s.kind == StepKind::Read)?;
        Some((
            d.class.clone(),
            d.method.clone(),
            d.descriptor.clone(),
            r.line,
            r.file.clone(),
        ))
    };
    let stale: FxHashMap<Key, usize> = diags
        .iter()
        .enumerate()
        .filter(|(_, d)| d.rule == RuleId::StaleValue)
        .map(|(i, d)| (key(d), i))
        .collect();
    let snaps: FxHashMap<Snap, usize> = diags
        .iter()
        .enumerate()
        .filter(|(_, d)| d.rule == RuleId::StaleValue)
        .filter_map(|(i, d)| Some((snapshot(d)?, i)))
        .collect();
    // The stale-value finding each causal-stale-value duplicate folds into: the one at the same
    // line, else, for an index read a size check decides, the one about the same snapshot (a
    // loop bound read once, tested by `stale-value` and used as an index by
    // `causal-stale-value`), whose use it adds. A write the snapshot decides elsewhere
    // (check-then-act) stays a finding of its own: another consequence, with its own writer.
    let mut into: Vec<(usize, usize, bool)> = Vec::new();
    for (j, d) in diags.iter().enumerate() {
        if d.rule != RuleId::CausalStaleValue {
            continue;
        }
        if let Some(&i) = stale.get(&key(d)) {
            into.push((j, i, false));
        } else if let Some(&i) = snapshot(d)
            .filter(|_| matches!(d.evidence, Some("index-check" | "key-check")))
            .and_then(|s| snaps.get(&s))
        {
            into.push((j, i, true));
        }
    }
    let mut confirmed: FxHashSet<usize> = FxHashSet::default();
    for &(j, i, other_line) in &into {
        let d = &diags[j];
        // `X writes `f` concurrently` or `X can remove elements concurrently`: who, and what.
        let writer = d
            .message
            .split("; ")
            .find(|part| part.contains(" concurrently"))
            .and_then(|part| {
                let part = part.split(", so ").next().unwrap_or(part);
                match part.split_once(" writes ") {
                    Some((who, _)) => Some(format!("{who} writes it concurrently")),
                    None => part
                        .split_once(" can remove elements")
                        .map(|(who, _)| format!("{who} can remove elements concurrently")),
                }
            })
            .unwrap_or_default();
        let threads = d.threads.clone();
        let uses: Vec<Step> = if other_line {
            d.steps
                .iter()
                .filter(|s| s.kind == StepKind::Use)
                .cloned()
                .collect()
        } else {
            Vec::new()
        };
        let s = &mut diags[i];
        if confirmed.insert(i) && !writer.is_empty() {
            // No back-quoted names: they are part of the baseline fingerprint, which must not
            // depend on which rules ran.
            s.message
                .push_str(&format!(" (confirmed by causal-stale-value: {writer})"));
        }
        if s.threads.is_empty() {
            s.threads = threads;
        }
        // Before the last step: that one is the finding's own use, at its line.
        let last = s.steps.len().saturating_sub(1);
        s.steps.splice(last..last, uses);
    }
    let gone: FxHashSet<usize> = into.iter().map(|&(j, _, _)| j).collect();
    let mut k = 0;
    diags.retain(|_| {
        k += 1;
        !gone.contains(&(k - 1))
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Level;

    fn diag(rule: RuleId, line: u32, age: Option<u32>) -> Diagnostic {
        Diagnostic {
            rule,
            level: Level::Warning,
            message: "m".into(),
            class: "p.C".into(),
            method: "inc".into(),
            descriptor: "()V".into(),
            file: "p/C.java".into(),
            source: None,
            source_root: None,
            line: Some(line),
            age,
            steps: Vec::new(),
            threads: Vec::new(),
            evidence: None,
            rank: None,
        }
    }

    #[test]
    fn merge_keeps_the_stale_value_finding_with_the_confirmation() {
        let mut causal = diag(RuleId::CausalStaleValue, 10, None);
        causal.message = "Stale value ...; thread T writes `C.x` concurrently, so ...".into();
        causal.threads = vec!["thread T".into()];
        let mut d = vec![
            diag(RuleId::StaleValue, 10, Some(2)),
            causal,
            diag(RuleId::StaleValue, 12, Some(1)),
            diag(RuleId::CausalStaleValue, 14, None),
        ];
        merge_duplicates(&mut d);
        let rules: Vec<(RuleId, Option<u32>)> = d.iter().map(|x| (x.rule, x.line)).collect();
        assert_eq!(
            rules,
            vec![
                (RuleId::StaleValue, Some(10)),
                (RuleId::StaleValue, Some(12)),
                (RuleId::CausalStaleValue, Some(14)),
            ]
        );
        assert_eq!(d[0].age, Some(2));
        assert!(d[0]
            .message
            .contains("confirmed by causal-stale-value: thread T"));
        assert!(
            !d[0].message.contains('`'),
            "no quoted name: the fingerprint stays"
        );
        assert_eq!(d[0].threads, vec!["thread T".to_string()]);
        assert!(d[1].threads.is_empty());
    }
}
