//! `high-level-data-race`: view consistency with read and write views and causal correlation
//! (causal-dependencies-hldr.md, Sect. 5.1; see `high_level_data_race.md` beside this file).
//!
//! Views are the region views of [`crate::whole::causal`] (synchronized blocks and methods,
//! `Lock` regions, `@Atomic` methods, one call on a thread-safe object), partitioned by the class
//! declaring their variables. For every pair of concurrent threads `p1`, `p2` (a thread with many
//! instances is concurrent with itself) and every maximal write view `mw` of `p1`, the read views
//! of `p2` overlapping `mw` must form a chain unless the variables of two incomparable overlaps
//! have no common correlation (Definition 8); every maximal read view `mr` of `p1` and the write
//! views of `p2` overlapping it must form a chain (Definition 9). A write violation whose
//! variables no dependency or correlation relates (`CausalGraph::depends`, `correlated`) is a
//! note: nothing in the program shows an invariant between them.
//!
//! A violation is reported in the method of `p2` that executes both views: for reads the method
//! that combines the two values (the correlation's witness), for writes the lowest method that
//! reaches both regions, unless both regions are nested in one region of that method on a lock
//! the reader also takes. Views that no method of the thread executes together are not
//! reported.

use std::hash::{Hash, Hasher};

use rayon::prelude::*;

use crate::analysis::locks::METHOD_SITE;
use crate::explain::{source_path, Diagnostic, Step, StepKind};
use crate::fxhash::{FxHashMap, FxHashSet};
use crate::program::{nest, Program};
use crate::rules::RuleId;
use crate::whole::causal::{self, short_var, CausalGraph, Combine, Var};
use crate::whole::facts::LockKey;
use crate::whole::threads::own_operation;
use crate::whole::views::Views;

/// Most violations examined per class (the rest are the same defect in other shapes).
const MAX_PER_CLASS: usize = 32;

/// One view restricted to a class.
struct ClassView {
    view: usize,
    reads: Vec<Var>,
    writes: Vec<Var>,
    /// Other views with the same accesses to the class, run by the same threads (folded into
    /// this one; a few kept): where the representative cannot be reported, one of them may be.
    also: Vec<usize>,
}

/// Most folded views kept per class view ([`ClassView::also`]).
const MAX_ALSO: usize = 8;

#[derive(Clone, Copy)]
enum Kind {
    /// Read overlaps not forming a chain, with a common correlation of `x` and `y`.
    Read { x: Var, y: Var },
    /// Write overlaps not forming a chain; `related`: two of their variables, one updated in
    /// each section, depend on each other or have a common correlation (else the pair has no
    /// invariant the program shows, and the violation is a note).
    Write { related: bool },
}

#[derive(Clone)]
struct Violation {
    class: u32,
    p1: u32,
    p2: u32,
    /// The maximal view of `p1` (a region view index) and the variables it shares.
    max_view: usize,
    max_vars: Vec<Var>,
    /// The two views of `p2` whose overlaps with it are incomparable.
    a: usize,
    b: usize,
    kind: Kind,
}

fn subset(a: &[Var], b: &[Var]) -> bool {
    a.iter().all(|x| b.binary_search(x).is_ok())
}

fn intersect(a: &[Var], b: &[Var]) -> Vec<Var> {
    a.iter()
        .copied()
        .filter(|x| b.binary_search(x).is_ok())
        .collect()
}

/// Maximal sets among `sets` (each with a representative view), distinct.
fn maximal(sets: &[(Vec<Var>, usize)]) -> Vec<(Vec<Var>, usize)> {
    let mut distinct: Vec<&(Vec<Var>, usize)> =
        sets.iter().filter(|(s, _)| !s.is_empty()).collect();
    distinct.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
    distinct.dedup_by(|a, b| a.0 == b.0);
    let mut out: Vec<(Vec<Var>, usize)> = Vec::new();
    // Largest first: a set is maximal when no set kept so far contains it.
    for (s, i) in distinct {
        if out.iter().any(|(t, _)| t.len() > s.len() && subset(s, t)) {
            continue;
        }
        out.push((s.clone(), *i));
    }
    out
}

/// Distinct non-empty overlaps of `views` (projection `pick`) with `m`, with a representative,
/// smallest first.
fn overlaps<'a>(
    views: impl Iterator<Item = &'a ClassView>,
    m: &[Var],
    pick: impl Fn(&ClassView) -> &Vec<Var>,
) -> Vec<(Vec<Var>, usize)> {
    let mut seen: FxHashSet<Vec<Var>> = FxHashSet::default();
    let mut out: Vec<(Vec<Var>, usize)> = Vec::new();
    for cv in views {
        let o = intersect(pick(cv), m);
        if !o.is_empty() && seen.insert(o.clone()) {
            out.push((o, cv.view));
        }
    }
    out.sort_by(|a, b| a.0.len().cmp(&b.0.len()).then_with(|| a.0.cmp(&b.0)));
    out
}

/// Two overlaps that are not ordered by inclusion and that `may` accept, if any: sorted by size,
/// the overlaps form a chain exactly when each is a subset of the next (that pair first).
fn chain_break(
    ov: &[(Vec<Var>, usize)],
    may: &impl Fn(usize, usize) -> bool,
) -> Option<(usize, usize)> {
    let incomparable =
        |i: usize, j: usize| !subset(&ov[i].0, &ov[j].0) && !subset(&ov[j].0, &ov[i].0);
    (0..ov.len().saturating_sub(1))
        .map(|i| (i, i + 1))
        .find(|&(i, j)| !subset(&ov[i].0, &ov[j].0) && may(i, j))
        .or_else(|| {
            (0..ov.len())
                .flat_map(|i| (i + 1..ov.len()).map(move |j| (i, j)))
                .find(|&(i, j)| incomparable(i, j) && may(i, j))
        })
}

/// An incomparable pair of overlaps whose variables correlate (Definition 8), given the
/// correlated pairs inside the maximal view, that `may` accept.
fn correlated_break(
    ov: &[(Vec<Var>, usize)],
    pairs: &[(Var, Var)],
    may: &impl Fn(usize, usize) -> bool,
) -> Option<(usize, usize, Var, Var)> {
    for &(x, y) in pairs {
        for (i, (a, _)) in ov.iter().enumerate() {
            if a.binary_search(&x).is_err() {
                continue;
            }
            for (j, (b, _)) in ov.iter().enumerate() {
                if i == j || b.binary_search(&y).is_err() {
                    continue;
                }
                if !subset(a, b) && !subset(b, a) && may(i, j) {
                    return Some((i, j, x, y));
                }
            }
        }
    }
    None
}

#[allow(clippy::too_many_arguments)]
fn check_class(
    p: &Program,
    v: &Views,
    encapsulated: &[bool],
    g: &CausalGraph,
    class: u32,
    cviews: &[ClassView],
    corr: &[(Var, Var)],
    deps: &[(Var, Var)],
    out: &mut Vec<Violation>,
) {
    // Threads that run the same views of this class behave alike here: each such group is
    // checked once, through representatives (a program with many entry points, e.g. every
    // `main` of a classpath, has thousands of threads but few distinct groups per class).
    let mut sig_of: FxHashMap<u32, Vec<usize>> = FxHashMap::default();
    for (i, cv) in cviews.iter().enumerate() {
        for &t in v.reached_by[g.views[cv.view].node].iter() {
            sig_of.entry(t).or_default().push(i);
        }
    }
    let mut by_sig: FxHashMap<Vec<usize>, Vec<u32>> = FxHashMap::default();
    for (t, sig) in sig_of {
        by_sig.entry(sig).or_default().push(t);
    }
    let mut groups: Vec<(Vec<usize>, Vec<u32>)> = by_sig
        .into_iter()
        .map(|(sig, mut members)| {
            members.sort_unstable();
            (sig, members)
        })
        .collect();
    groups.sort_unstable_by_key(|(_, members)| members[0]);
    let of = |sig: &[usize]| sig.iter().map(|&i| &cviews[i]).collect::<Vec<_>>();
    // Views of a thread reading (writing) some variable of `m`, each once.
    let mut readers: FxHashMap<Var, Vec<usize>> = FxHashMap::default();
    let mut writers: FxHashMap<Var, Vec<usize>> = FxHashMap::default();
    for (i, cv) in cviews.iter().enumerate() {
        for &x in &cv.reads {
            readers.entry(x).or_default().push(i);
        }
        for &x in &cv.writes {
            writers.entry(x).or_default().push(i);
        }
    }
    // Views made of whole operations of the class: its synchronized methods, and regions of
    // code outside the class's nest whose updates are all to fields that only code of the nest
    // accesses, so the class's own methods made them (each representative and the views
    // folded into it), and regions that update no more than one of its synchronized methods
    // does. Two of them that update a variable in common are complete operations on one
    // object (a synchronized stack's push, then its clear): each leaves the object in a state
    // its own methods made consistent, so the state between them is no half-done update. Two
    // that update different variables (setX(), then setY()) are still the halves of one update.
    let own_nest = nest(&p.class(class).name);
    // A synchronized method of the class, or of a class of its nest (a cache's segment, whose
    // synchronized methods update the entries the cache declares beside it).
    let sync_method = |view: usize| {
        let rv = &g.views[view];
        let of = v.nodes[rv.node].method.class;
        rv.site == METHOD_SITE && (of == class || nest(&p.class(of).name) == own_nest)
    };
    let whole_op = |view: usize, writes: &[Var]| {
        sync_method(view)
            || nest(&p.class(v.nodes[g.views[view].node].method.class).name) != own_nest
                && writes
                    .iter()
                    .all(|&x| encapsulated[causal::var_field(x) as usize])
    };
    // A region whose updates one synchronized method of the class also makes, all of them
    // (a region around a call of it), does no more than that operation.
    let ops: Vec<&[Var]> = cviews
        .iter()
        .filter(|cv| sync_method(cv.view))
        .map(|cv| &cv.writes[..])
        .collect();
    let complete: Vec<bool> = cviews
        .iter()
        .map(|cv| {
            (whole_op(cv.view, &cv.writes) && cv.also.iter().all(|&k| whole_op(k, &cv.writes)))
                || ops.iter().any(|op| subset(&cv.writes, op))
        })
        .collect();
    // The groups running each view (ascending).
    let mut groups_of: Vec<Vec<u32>> = vec![Vec::new(); cviews.len()];
    for (gj, (sig, _)) in groups.iter().enumerate() {
        for &i in sig {
            groups_of[i].push(gj as u32);
        }
    }
    // The maximal write (read) views of each group, in the order they are checked.
    type Maxima = Vec<(Vec<Var>, usize)>;
    let mut maxima: Vec<(Maxima, Maxima)> = Vec::with_capacity(groups.len());
    for (sig, _) in &groups {
        let views1 = of(sig);
        let wsets: Vec<(Vec<Var>, usize)> = views1
            .iter()
            .map(|cv| (cv.writes.clone(), cv.view))
            .collect();
        let rsets: Vec<(Vec<Var>, usize)> = views1
            .iter()
            .map(|cv| (cv.reads.clone(), cv.view))
            .collect();
        maxima.push((maximal(&wsets), maximal(&rsets)));
    }
    // Whether the views of group `gj` overlapping a maximal view `m` break the chain depends on
    // `m` and `gj` alone, not on the group `m` came from: each distinct `m` is checked once
    // against the groups that run at least two views touching it (fewer overlaps cannot
    // break a chain). Cost: distinct maximal views × the views touching them × their groups,
    // instead of every pair of groups × their maximal views.
    // The two views; for reads the correlated pair, for writes whether the pair is related.
    type Breaks = FxHashMap<u32, (usize, usize, Result<(Var, Var), bool>)>;
    let check_m = |m: &[Var], write: bool| -> Breaks {
        let mut found = Breaks::default();
        // Only correlated variables can make read views incompatible (a common correlation).
        // Write views that do not form a chain always break view consistency (Definition 9);
        // the break is related when two of the variables, one updated in each view, depend on
        // each other or have a common correlation.
        let within =
            |&(x, y): &(Var, Var)| m.binary_search(&x).is_ok() && m.binary_search(&y).is_ok();
        let mut pairs: Vec<(Var, Var)> = corr.iter().copied().filter(within).collect();
        if write {
            pairs.extend(deps.iter().copied().filter(within));
        }
        if m.len() < 2 || (!write && pairs.is_empty()) {
            return found;
        }
        let index = if write { &writers } else { &readers };
        let mut touching: Vec<usize> = m
            .iter()
            .filter_map(|x| index.get(x))
            .flatten()
            .copied()
            .collect();
        touching.sort_unstable();
        touching.dedup();
        let mut per_group: FxHashMap<u32, Vec<usize>> = FxHashMap::default();
        for &i in &touching {
            for &gj in &groups_of[i] {
                per_group.entry(gj).or_default().push(i);
            }
        }
        for (gj, ids) in per_group {
            if ids.len() < 2 {
                continue;
            }
            let views = ids.iter().map(|&i| &cviews[i]);
            if write {
                let ov = overlaps(views, m, |cv| &cv.writes);
                // Whether every view with an overlap is a complete operation.
                let whole: Vec<bool> = ov
                    .iter()
                    .map(|(o, _)| {
                        ids.iter()
                            .filter(|&&i| intersect(&cviews[i].writes, m) == *o)
                            .all(|&i| complete[i])
                    })
                    .collect();
                let may = |i: usize, j: usize| {
                    !(whole[i] && whole[j] && !intersect(&ov[i].0, &ov[j].0).is_empty())
                };
                if let Some((i, j, _, _)) = correlated_break(&ov, &pairs, &may) {
                    found.insert(gj, (ov[i].1, ov[j].1, Err(true)));
                } else if let Some((i, j)) = chain_break(&ov, &may) {
                    found.insert(gj, (ov[i].1, ov[j].1, Err(false)));
                }
            } else {
                let ov = overlaps(views, m, |cv| &cv.reads);
                if let Some((i, j, x, y)) = correlated_break(&ov, &pairs, &|_, _| true) {
                    found.insert(gj, (ov[i].1, ov[j].1, Ok((x, y))));
                }
            }
        }
        found
    };
    let mut memo: [FxHashMap<&[Var], Breaks>; 2] = [FxHashMap::default(), FxHashMap::default()];
    for (mw, mr) in &maxima {
        for (write, list) in [(false, mw), (true, mr)] {
            for (m, _) in list {
                if !memo[write as usize].contains_key(&m[..]) {
                    let b = check_m(m, write);
                    memo[write as usize].insert(&m[..], b);
                }
            }
        }
    }
    for (gi, (_, members1)) in groups.iter().enumerate() {
        let (mw, mr) = &maxima[gi];
        // The violations of this group, in the order of the pairwise check: by the other
        // group, then the maximal write views (read overlaps) before the maximal read views
        // (write overlaps), then the maximal view's rank.
        let mut hits: Vec<(u32, bool, usize)> = Vec::new();
        for (write, list) in [(false, mw), (true, mr)] {
            for (k, (m, _)) in list.iter().enumerate() {
                if let Some(b) = memo[write as usize].get(&m[..]) {
                    hits.extend(b.keys().map(|&gj| (gj, write, k)));
                }
            }
        }
        hits.sort_unstable();
        for (gj, write, k) in hits {
            let members2 = &groups[gj as usize].1;
            // A concurrent pair of representatives: two threads of the groups (of one
            // program: a server's threads never run beside a command-line tool's main), or one
            // thread with many instances.
            let conflict =
                |a: u32, b: u32| crate::whole::threads::conflict(&v.threads, a, b, class);
            // (Within one group, `b == a` asks whether the thread runs many instances.)
            let pair = (members1.iter())
                .find_map(|&a| members2.iter().find(|&&b| conflict(a, b)).map(|&b| (a, b)));
            let Some((p1, p2)) = pair else {
                continue;
            };
            let (m, mview) = if write { &mr[k] } else { &mw[k] };
            let (a, b, xy) = memo[write as usize][&m[..]][&gj];
            out.push(Violation {
                class,
                p1,
                p2,
                max_view: *mview,
                max_vars: m.clone(),
                a,
                b,
                kind: match xy {
                    Ok((x, y)) => Kind::Read { x, y },
                    Err(related) => Kind::Write { related },
                },
            });
            if out.len() >= MAX_PER_CLASS {
                return;
            }
        }
    }
}

/// A view's variables without the contents of plain collections ([`causal::CONTENTS`]) and
/// without the `volatile` fields the causal graph follows: the stale values of a plain
/// collection and of a volatile field are `causal-stale-value`'s; this rule relates the fields
/// of the views (as `method-consistency` does) and thread-safe objects.
fn related_vars<'s>(
    fields: &crate::whole::fields::FieldTable,
    s: &'s [Var],
) -> std::borrow::Cow<'s, [Var]> {
    let other = |x: &Var| match causal::var_kind(*x) {
        causal::CONTENTS => true,
        causal::FIELD => !fields.is_tracked(causal::var_field(*x)),
        _ => false,
    };
    if s.iter().any(other) {
        std::borrow::Cow::Owned(s.iter().copied().filter(|x| !other(x)).collect())
    } else {
        std::borrow::Cow::Borrowed(s)
    }
}

/// Check view consistency; returns the diagnostics in scanned classes.
pub fn check(
    p: &Program,
    v: &Views,
    g: &CausalGraph,
    profile: &mut Vec<String>,
) -> Vec<Diagnostic> {
    let t0 = std::time::Instant::now();
    // Partition the views by the class declaring their variables. Field ids are contiguous per
    // class and variables sort by field, so each class is one run of a sorted set. Views with
    // the same accesses to a class, run by the same threads, are one view here (large dynamic
    // scopes repeat the same classes): deduplicated by hash before anything is copied.
    let class_at = |set: &[Var], i: usize| causal::var_class(&v.fields, set[i]);
    let run_end = |set: &[Var], start: usize| {
        let c = class_at(set, start);
        let mut end = start + 1;
        while end < set.len() && class_at(set, end) == c {
            end += 1;
        }
        end
    };
    let mut thread_sets: FxHashMap<&[u32], u32> = FxHashMap::default();
    let mut by_class: FxHashMap<u32, Vec<ClassView>> = FxHashMap::default();
    let mut seen: FxHashMap<(u32, u64), Vec<usize>> = FxHashMap::default();
    // A view equal to an earlier one (reads, writes and threads) adds nothing below: each of
    // its class runs would be found a duplicate. Found in parallel, by hash, before the
    // sequential partition (large programs repeat whole views: the same callee's scope under
    // many locks).
    // Each view's (reads, writes) of the variables this rule relates.
    let vars: Vec<_> = (g.views.iter())
        .map(|rv| {
            (
                related_vars(&v.fields, &rv.reads),
                related_vars(&v.fields, &rv.writes),
            )
        })
        .collect();
    let view_hash: Vec<u64> = (g.views.par_iter().zip(&vars))
        .map(|(rv, (reads, writes))| {
            let mut h = crate::fxhash::FxHasher::default();
            reads.hash(&mut h);
            writes.hash(&mut h);
            v.reached_by[rv.node].hash(&mut h);
            crate::fxhash::mix(h.finish())
        })
        .collect();
    let mut first_of: FxHashMap<u64, Vec<usize>> = FxHashMap::default();
    // The views found equal to each kept one (a few).
    let mut equal_to: FxHashMap<usize, Vec<usize>> = FxHashMap::default();
    let mut repeated = 0usize;
    for (i, rv) in g.views.iter().enumerate() {
        let runners = &v.reached_by[rv.node][..];
        if runners.is_empty() {
            continue;
        }
        let firsts = first_of.entry(view_hash[i]).or_default();
        let same = |k: &usize| vars[*k] == vars[i] && *v.reached_by[g.views[*k].node] == *runners;
        if let Some(&k) = firsts.iter().find(|k| same(k)) {
            repeated += 1;
            let e = equal_to.entry(k).or_default();
            if e.len() < MAX_ALSO {
                e.push(i);
            }
            continue;
        }
        firsts.push(i);
        let next_id = thread_sets.len() as u32;
        let tid = *thread_sets.entry(runners).or_insert(next_id);
        let (r, w) = (&vars[i].0[..], &vars[i].1[..]);
        let (mut a, mut b) = (0, 0);
        loop {
            let ca = (a < r.len()).then(|| class_at(r, a));
            let cb = (b < w.len()).then(|| class_at(w, b));
            let c = match (ca, cb) {
                (Some(x), Some(y)) => x.min(y),
                (Some(x), None) | (None, Some(x)) => x,
                (None, None) => break,
            };
            let reads = if ca == Some(c) {
                let e = run_end(r, a);
                let s = &r[a..e];
                a = e;
                s
            } else {
                &[][..]
            };
            let writes = if cb == Some(c) {
                let e = run_end(w, b);
                let s = &w[b..e];
                b = e;
                s
            } else {
                &[][..]
            };
            let mut h = crate::fxhash::FxHasher::default();
            reads.hash(&mut h);
            writes.hash(&mut h);
            tid.hash(&mut h);
            let list = by_class.entry(c).or_default();
            let bucket = seen.entry((c, crate::fxhash::mix(h.finish()))).or_default();
            let dup = bucket.iter().copied().find(|&k| {
                let cv: &ClassView = &list[k];
                cv.reads == reads
                    && cv.writes == writes
                    && *v.reached_by[g.views[cv.view].node] == *runners
            });
            match dup {
                Some(k) => {
                    if list[k].also.len() < MAX_ALSO {
                        list[k].also.push(i);
                    }
                }
                None => {
                    bucket.push(list.len());
                    list.push(ClassView {
                        view: i,
                        reads: reads.to_vec(),
                        writes: writes.to_vec(),
                        also: Vec::new(),
                    });
                }
            }
        }
    }
    let mut classes: Vec<u32> = by_class
        .iter()
        .filter(|(_, vs)| vs.len() >= 2)
        .map(|(&c, _)| c)
        .collect();
    classes.sort_unstable();
    // Correlated pairs by class (both variables of one class).
    let mut corr: FxHashMap<u32, Vec<(Var, Var)>> = FxHashMap::default();
    for &(x, y) in g.correlated.keys() {
        let c = causal::var_class(&v.fields, x);
        if causal::var_class(&v.fields, y) == c {
            corr.entry(c).or_default().push((x, y));
        }
    }
    for list in corr.values_mut() {
        list.sort_unstable();
    }
    let mut deps: FxHashMap<u32, Vec<(Var, Var)>> = FxHashMap::default();
    for &(x, y) in &g.depends {
        let c = causal::var_class(&v.fields, x);
        if causal::var_class(&v.fields, y) == c {
            deps.entry(c).or_default().push((x, y));
        }
    }
    // Fields that only code of their class's nest accesses (in the views' facts).
    let nest_of = |c: u32| nest(&p.class(c).name);
    let mut encapsulated = vec![true; v.fields.len()];
    for (n, f) in v.facts.iter().enumerate() {
        let at = nest_of(v.nodes[n].method.class);
        for a in &f.accesses {
            let e = &mut encapsulated[a.field as usize];
            if *e && nest_of(v.fields.owner(a.field).0) != at {
                *e = false;
            }
        }
    }
    let violations: Vec<Violation> = classes
        .par_iter()
        .flat_map_iter(|&c| {
            let mut out = Vec::new();
            let pairs = corr.get(&c).map_or(&[][..], |l| &l[..]);
            let dep = deps.get(&c).map_or(&[][..], |l| &l[..]);
            check_class(
                p,
                v,
                &encapsulated,
                g,
                c,
                &by_class[&c],
                pairs,
                dep,
                &mut out,
            );
            out
        })
        .collect();
    profile.push(format!(
        "high-level-data-race: {} classes with views ({repeated} repeated views), {} violations, at {:?}",
        classes.len(),
        violations.len(),
        t0.elapsed()
    ));
    let mut reported: FxHashSet<(crate::program::MethodId, u32)> = FxHashSet::default();
    let mut out = Vec::new();
    // Where each violation is reported does not depend on the others: found in parallel, then
    // kept in order (the first per method and class).
    // Each view a violation names, with the views folded into it: the same update made
    // elsewhere (a method that splits it, beside one whose branches exclude each other).
    let alternatives = |class: u32, view: usize| -> Vec<usize> {
        let mut out = vec![view];
        if let Some(cv) = by_class
            .get(&class)
            .and_then(|l| l.iter().find(|cv| cv.view == view))
        {
            out.extend(cv.also.iter().copied());
        }
        let folded: Vec<usize> = out
            .iter()
            .filter_map(|k| equal_to.get(k))
            .flatten()
            .copied()
            .collect();
        out.extend(folded);
        out
    };
    let located: Vec<Option<Located>> = violations
        .par_iter()
        .map(|x| locate(p, v, g, x, &alternatives))
        .collect();
    for (x, at) in violations.iter().zip(located) {
        let Some((node, witness, pair)) = at else {
            continue;
        };
        let moved;
        let x = match pair {
            Some((a, b)) if (a, b) != (x.a, x.b) => {
                moved = Violation { a, b, ..x.clone() };
                &moved
            }
            _ => x,
        };
        let method = v.nodes[node].method;
        // The method and the other thread's view are two signals of one subscriber, which its
        // contract sends one at a time: the view cannot run between the method's sections.
        if crate::whole::threads::serial_signal(p, method)
            && crate::whole::threads::serial_with(
                p,
                method.class,
                v.nodes[g.views[x.max_view].node].method,
                x.class,
            )
        {
            continue;
        }
        if p.class(method.class).library || !reported.insert((method, x.class)) {
            continue;
        }
        out.push(explain(p, v, g, x, node, witness));
    }
    object_splits(p, v, g, &mut reported, &mut out);
    split_updates(p, v, g, &mut reported, &mut out);
    profile.push(format!(
        "high-level-data-race: {} reported, in {:?}",
        out.len(),
        t0.elapsed()
    ));
    out
}

/// The same field of several objects read in separate critical sections and combined
/// ([`causal::NodeOut::object_splits`]: `total += a.balance` in a loop that enters `synchronized
/// (a)` for each account), while a concurrent thread updates that field of two objects in one
/// critical section ([`causal::NodeOut::multi_writes`]: a transfer). The views are those of
/// objects: the writer's view holds `from.balance` and `to.balance`, the reader's views one
/// each, and between two of them the transfer can move an amount from an object not read yet
/// to one already read (or back), so the combination counts it twice or not at all. A field
/// that no section updates on two objects at once has no such invariant over objects (a
/// striped counter summed stripe by stripe, each stripe updated alone): not reported.
fn object_splits(
    p: &Program,
    v: &Views,
    g: &CausalGraph,
    reported: &mut FxHashSet<(crate::program::MethodId, u32)>,
    out: &mut Vec<Diagnostic>,
) {
    let mut writers: FxHashMap<Var, Vec<(usize, causal::GAccess, causal::GAccess)>> =
        FxHashMap::default();
    for (m, o) in g.outs.iter().enumerate() {
        for &(_, w1, w2) in o.iter().flat_map(|o| &o.multi_writes) {
            writers.entry(w1.var).or_default().push((m, w1, w2));
        }
    }
    if writers.is_empty() {
        return;
    }
    for (n, o) in g.outs.iter().enumerate() {
        let Some(o) = o else { continue };
        let method = v.nodes[n].method;
        if o.object_splits.is_empty() || p.class(method.class).library {
            continue;
        }
        for (c, around) in &o.object_splits {
            let var = c.a.var;
            let class = causal::var_class(&v.fields, var);
            let Some(ws) = writers.get(&var) else {
                continue;
            };
            let conflict =
                |a: u32, b: u32| crate::whole::threads::conflict(&v.threads, a, b, class);
            // A lock held around the whole loop that the writer's section holds too: no
            // update falls between the reads.
            let f = &v.facts[n];
            let keys: Vec<LockKey> = (f.region_keys.iter())
                .filter(|(s, _)| around.contains(s))
                .map(|&(_, k)| k)
                .collect();
            let excluded = |m: usize, site: u32| {
                let wf = &v.facts[m];
                let around_w = wf.regions_around(site);
                let writer = v.nodes[m].method.class;
                (wf.region_keys.iter())
                    .filter(|(s, _)| around_w.contains(s))
                    .any(|&(_, k)| {
                        keys.iter()
                            .any(|&q| same_lock(p, (method.class, q), (writer, k)))
                    })
            };
            let found = ws.iter().find_map(|&(m, w1, w2)| {
                if excluded(m, w1.site) {
                    return None;
                }
                let p1 = (v.reached_by[m].iter())
                    .find(|&&a| v.reached_by[n].iter().any(|&b| conflict(a, b)))?;
                Some((*p1, m, w1, w2))
            });
            let Some((p1, m, w1, w2)) = found else {
                continue;
            };
            if !reported.insert((method, class)) {
                continue;
            }
            out.push(explain_objects(p, v, (n, c), (p1, m, w1, w2)));
        }
    }
}

/// Most write views of each variable tried for a split update (the rest repeat the shape).
const MAX_SPLIT_WRITERS: usize = 16;

/// Two variables of one class that no critical section updates together, which one method
/// updates one after the other, each in its own critical section (`bid.set(..)` then
/// `ask.set(..)`, two synchronized setters called in a row), while a concurrent thread reads
/// them in separate critical sections and hands both to one new object's constructor (a
/// snapshot: [`CausalGraph::gathered`]). View consistency (Definition 9) relates only
/// variables that some view holds together: where no section ever holds the pair, the method
/// that updates both in one run and the reader that gathers them are the evidence that they
/// belong together, and the method's two sections are a split update the reader can see half
/// of. Updates in exclusive branches (never both in one run), made far above the two sections
/// (a common caller more than two calls up), inside one region of the updating method, in a
/// constructor or on an object the method allocated, are not one update of the pair.
fn split_updates(
    p: &Program,
    v: &Views,
    g: &CausalGraph,
    reported: &mut FxHashSet<(crate::program::MethodId, u32)>,
    out: &mut Vec<Diagnostic>,
) {
    // The pairs a reader gathers after reading them in separate sections, both kept by the
    // rule (fields and thread-safe objects), of one class.
    let kept = |x: Var| related_vars(&v.fields, &[x]).len() == 1;
    let mut pairs: Vec<(Var, Var)> = (g.gathered.iter())
        .filter(|((x, y), readers)| {
            x != y
                && causal::var_class(&v.fields, *x) == causal::var_class(&v.fields, *y)
                && kept(*x)
                && kept(*y)
                && readers.iter().any(|(_, c)| c.split)
        })
        .map(|(&k, _)| k)
        .collect();
    if pairs.is_empty() {
        return;
    }
    pairs.sort_unstable();
    let wanted: FxHashSet<Var> = pairs.iter().flat_map(|&(x, y)| [x, y]).collect();
    let mut writers: FxHashMap<Var, Vec<usize>> = FxHashMap::default();
    for (i, rv) in g.views.iter().enumerate() {
        if v.reached_by[rv.node].is_empty() {
            continue;
        }
        for x in rv.writes.iter().filter(|x| wanted.contains(x)) {
            writers.entry(*x).or_default().push(i);
        }
    }
    let mut cfgs: FxHashMap<usize, Option<crate::bytecode::cfg::Cfg>> = FxHashMap::default();
    for (x, y) in pairs {
        let (Some(wx), Some(wy)) = (writers.get(&x), writers.get(&y)) else {
            continue;
        };
        let writes = |view: usize, z: Var| g.views[view].writes.binary_search(&z).is_ok();
        // Some section updates both: view consistency's own case, not a split update.
        if wx.iter().any(|&a| writes(a, y)) {
            continue;
        }
        let class = causal::var_class(&v.fields, x);
        let conflict = |a: u32, b: u32| crate::whole::threads::conflict(&v.threads, a, b, class);
        // The method that makes both updates in one run, with its entries to the two sections.
        let mut update: Option<(usize, usize, usize, u32, u32)> = None;
        'find: for &a in wx.iter().take(MAX_SPLIT_WRITERS) {
            for &b in wy.iter().take(MAX_SPLIT_WRITERS) {
                let Some(n) = common_caller(g, g.views[a].node, g.views[b].node) else {
                    continue;
                };
                let method = p.method(v.nodes[n].method);
                if &*method.name == "<init>" || &*method.name == "<clinit>" {
                    continue;
                }
                // Both sections within two calls of the method.
                let near = |view: usize| {
                    let target = g.views[view].node;
                    v.find_below(n, 3, |k| (k == target).then_some(()))
                        .is_some()
                };
                if !near(a) || !near(b) {
                    continue;
                }
                let (Some(ea), Some(eb)) =
                    (entry_to(v, g, n, a, Some(x)), entry_to(v, g, n, b, Some(y)))
                else {
                    continue;
                };
                if ea == eb {
                    continue;
                }
                if on_fresh_object(v, n, ea, class) || on_fresh_object(v, n, eb, class) {
                    continue;
                }
                // Inside one region of the method: one section after all.
                let (ha, hb) = (held_at(v, g, n, a, Some(ea)), held_at(v, g, n, b, Some(eb)));
                if ha.iter().any(|s| hb.contains(s)) || v.nodes[n].this_held {
                    continue;
                }
                if !one_run(p, v, &mut cfgs, n, (ea, eb)) {
                    continue;
                }
                update = Some((n, a, b, ea, eb));
                break 'find;
            }
        }
        let Some((m, a, b, ea, eb)) = update else {
            continue;
        };
        // The readers: those that gather the pair into one new object.
        for (n, c) in &g.gathered[&(x, y)] {
            if !c.split {
                continue;
            }
            let method = v.nodes[*n].method;
            if p.class(method.class).library || reported.contains(&(method, class)) {
                continue;
            }
            let p1 = (v.reached_by[m].iter())
                .find(|&&t| v.reached_by[*n].iter().any(|&r| conflict(t, r)));
            let Some(&p1) = p1 else {
                continue;
            };
            reported.insert((method, class));
            out.push(explain_split(p, v, g, (*n, c), (p1, m, (a, ea), (b, eb))));
        }
    }
}

/// The finding of [`split_updates`]: the reads of node `n` combined at `c.at`, and thread
/// `p1`'s method `m`, which enters section `a` (updating `c.a`'s variable) at `ea` and
/// section `b` at `eb`.
fn explain_split(
    p: &Program,
    v: &Views,
    g: &CausalGraph,
    (n, c): (usize, &Combine),
    (p1, m, (a, ea), (b, eb)): (u32, usize, (usize, u32), (usize, u32)),
) -> Diagnostic {
    let mid = v.nodes[n].method;
    let class = p.class(mid.class);
    let method = p.method(mid);
    let home = source_path(class);
    let fclass = causal::var_class(&v.fields, c.a.var);
    let writer = v.nodes[m].method;
    let other_class = crate::whole::threads::open_world(&v.threads)
        && !(own_operation(p, mid.class, fclass) && own_operation(p, writer.class, fclass));
    let owner_simple = crate::explain::simple_class(&p.class(fclass).name);
    let (na, nb) = (
        short_var(p, &v.fields, c.a.var),
        short_var(p, &v.fields, c.b.var),
    );
    let p1_name = &v.threads[p1 as usize].name;
    let threads: Vec<String> = v.reached_by[n]
        .iter()
        .map(|&t| v.threads[t as usize].name.clone())
        .collect();
    let wname = format!(
        "{}.{}",
        crate::explain::simple_class(&p.class(writer.class).name),
        p.method(writer).name
    );
    let read = |r: &causal::GAccess| {
        step_at(
            p,
            &home,
            r.loc.method,
            Some(r.loc.at),
            StepKind::Read,
            format!(
                "{} is read here, inside {}",
                causal::describe_var(p, &v.fields, r.var),
                region_words_at(p, v, r.node as usize, r.site)
            ),
        )
    };
    let (ra, rb) = (&g.views[a], &g.views[b]);
    let mut update = step_at(
        p,
        &home,
        writer,
        Some(ea),
        StepKind::Lock,
        format!(
            "the other thread updates `{na}` here, in its own critical section ({}), and `{nb}` at line {} in another ({}): one update of the pair, split",
            region_words_at(p, v, ra.node, ra.site),
            line_in(p, writer, Some(eb)).map_or_else(|| "?".to_string(), |l| l.to_string()),
            region_words_at(p, v, rb.node, rb.site),
        ),
    );
    update.other_thread = true;
    let line = line_in(p, mid, Some(c.at));
    let steps = vec![
        read(&c.a),
        update,
        read(&c.b),
        Step::here(
            StepKind::Use,
            line,
            Some(c.at),
            format!("`{na}` and `{nb}`, read in separate critical sections, are gathered here into one object"),
        ),
    ];
    let message = format!(
        "High-level data race: method `{}` reads `{owner_simple}.{na}` and `{owner_simple}.{nb}` in separate critical sections and gathers them into one object, while {p1_name} updates them one after the other in `{wname}`, each in its own critical section (no critical section updates both); a read between the two updates, or the whole update between the two reads, mixes old and new state; run by {}",
        method.name,
        threads.join(", ")
    );
    let rank = pair_rank(p, v, (other_class, 55), (writer.class, mid.class), p1);
    finding(
        p,
        mid,
        (message, line, steps, threads),
        (other_class, "split-pair", rank),
    )
}

/// The finding of [`object_splits`]: the read of the reporting node `n` combined at `c.at`,
/// and thread `p1`'s update of node `m` (its two writes `w1`, `w2`).
fn explain_objects(
    p: &Program,
    v: &Views,
    (n, c): (usize, &Combine),
    (p1, m, w1, w2): (u32, usize, causal::GAccess, causal::GAccess),
) -> Diagnostic {
    let mid = v.nodes[n].method;
    let class = p.class(mid.class);
    let method = p.method(mid);
    let home = source_path(class);
    let var = c.a.var;
    let fclass = causal::var_class(&v.fields, var);
    let writer = v.nodes[m].method;
    let other_class = crate::whole::threads::open_world(&v.threads)
        && !(own_operation(p, mid.class, fclass) && own_operation(p, writer.class, fclass));
    let evidence = if other_class {
        "other-class"
    } else {
        "split-objects"
    };
    let owner = p.class(fclass);
    let owner_simple = owner.name.rsplit('/').next().unwrap_or(&owner.name);
    let name = short_var(p, &v.fields, var);
    let p1_name = &v.threads[p1 as usize].name;
    let threads: Vec<String> = v.reached_by[n]
        .iter()
        .map(|&t| v.threads[t as usize].name.clone())
        .collect();
    let read_words = region_words_at(p, v, c.a.node as usize, c.a.site);
    let write_words = region_words_at(p, v, m, w1.site);
    let described = causal::describe_var(p, &v.fields, var);
    let mut other = step_at(
        p,
        &home,
        writer,
        Some(w1.loc.at),
        StepKind::Lock,
        format!(
            "the other thread updates `{name}` of two objects in one critical section, here and at line {} ({write_words})",
            line_in(p, writer, Some(w2.loc.at)).map_or_else(|| "?".to_string(), |l| l.to_string())
        ),
    );
    other.other_thread = true;
    let read = |again: bool| {
        step_at(
            p,
            &home,
            c.a.loc.method,
            Some(c.a.loc.at),
            StepKind::Read,
            if again {
                format!("{described} of the next object is read here, in the loop's next round, inside a new acquisition of {read_words}")
            } else {
                format!("{described} of one object is read here, inside {read_words}")
            },
        )
    };
    let line = line_in(p, mid, Some(c.at));
    let steps = vec![
        read(false),
        other,
        read(true),
        Step::here(
            StepKind::Use,
            line,
            Some(c.at),
            format!("the values of `{name}` of several objects, read in separate critical sections, are combined here"),
        ),
    ];
    let message = format!(
        "High-level data race: method `{}` reads `{owner_simple}.{name}` of several objects, each in its own critical section, and combines the values, but {p1_name} updates `{name}` of two objects together in one critical section ({write_words}); between two of the reads it can move state from an object not read yet to one already read, so the combination counts it twice or not at all; run by {}",
        method.name,
        threads.join(", ")
    );
    let rank = pair_rank(
        p,
        v,
        (other_class, 60),
        (c.a.loc.method.class, mid.class),
        p1,
    );
    finding(
        p,
        mid,
        (message, line, steps, threads),
        (other_class, evidence, rank),
    )
}

/// The rank of a finding over a pair of sections: `base` (40 for a note of another class's
/// code), +10 when the sections are entered in code of the reporting method's nest (`code`
/// against `method`), −10 when the other thread `p1` is only some program's `main`.
fn pair_rank(
    p: &Program,
    v: &Views,
    (other_class, base): (bool, u32),
    (code, method): (u32, u32),
    p1: u32,
) -> u32 {
    let nest_of = |c: u32| crate::program::nest(&p.class(c).name);
    let mut rank = if other_class { 40 } else { base };
    if nest_of(code) == nest_of(method) {
        rank += 10;
    }
    if v.threads[p1 as usize].only_main(p) {
        rank -= 10;
    }
    rank
}

/// The finding of a violation reported in method `mid`: a note where `note` says so, the
/// rule's level otherwise; a step of this very method is named by its line alone.
fn finding(
    p: &Program,
    mid: crate::program::MethodId,
    (message, line, mut steps, threads): (String, Option<u32>, Vec<Step>, Vec<String>),
    (note, evidence, rank): (bool, &'static str, u32),
) -> Diagnostic {
    let class = p.class(mid.class);
    let method = p.method(mid);
    let own = format!(
        "{}.{}",
        class.name.rsplit('/').next().unwrap_or(&class.name),
        method.name
    );
    for st in steps.iter_mut() {
        if st.method.as_deref() == Some(own.as_str()) {
            st.method = None;
        }
    }
    crate::explain::own_offsets(&mut steps, method.code.as_ref());
    Diagnostic {
        rule: RuleId::HighLevelDataRace,
        level: if note {
            crate::rules::Level::Note
        } else {
            RuleId::HighLevelDataRace.meta().level
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
        evidence: Some(evidence),
        rank: Some(rank),
    }
}

/// Where a violation is reported: the node, the combination that witnesses a read violation,
/// and for a write violation the two views (the violation's, or views folded into them).
type Located = (usize, Option<Combine>, Option<(usize, usize)>);

/// The method of `p2` that executes both views (and, for reads, the combination).
fn locate(
    p: &Program,
    v: &Views,
    g: &CausalGraph,
    x: &Violation,
    alternatives: &(dyn Fn(u32, usize) -> Vec<usize> + Sync),
) -> Option<Located> {
    match x.kind {
        Kind::Read { x: a, y: b } => {
            // Only a method that takes the pair apart (reads it in separate critical sections)
            // can mix old and new state; one that reads both in one section is atomic.
            // Nor one that reads both inside one region of its own whose lock the writer holds
            // too (two `synchronized (this)` blocks inside `synchronized (lock)`).
            let ws: Vec<&(usize, Combine)> = g
                .correlated
                .get(&(a, b))?
                .iter()
                .filter(|(n, c)| c.split && !read_together(p, v, g, *n, c, x.max_view))
                .collect();
            let (node, c) = ws
                .iter()
                .find(|(n, _)| v.reached_by[*n].contains(&x.p2))
                .or_else(|| ws.first())?;
            Some((*node, Some(*c), None))
        }
        Kind::Write { .. } => {
            // The two updates must both happen in one run of the method: regions in exclusive
            // branches (`if (up) { .. hi = v; } else { .. lo = v; }`) update one field each
            // time, never the pair apart. The violation's own pair first, at the lowest common
            // caller; then pairs of views folded into them that one method enters itself (two
            // regions of its own: a caller high above two unrelated views, or a region whose
            // scope holds the other, is not a split update).
            let (la, lb) = (alternatives(x.class, x.a), alternatives(x.class, x.b));
            let own_pair = |a: usize, b: usize| {
                let (va, vb) = (&g.views[a], &g.views[b]);
                (a, b) == (x.a, x.b) || (va.node == vb.node && va.site != vb.site)
            };
            let mut pairs: Vec<(usize, usize)> = la
                .iter()
                .flat_map(|&a| lb.iter().map(move |&b| (a, b)))
                .filter(|&(a, b)| own_pair(a, b))
                .collect();
            // A pair of one method's own regions before the pair met first at a common caller:
            // the method that makes both updates itself is the one that splits them.
            pairs.sort_by_key(|&(a, b)| (g.views[a].node != g.views[b].node, (a, b) != (x.a, x.b)));
            // The pairs of one node share its control flow graph: built once.
            let mut cfgs: FxHashMap<usize, Option<crate::bytecode::cfg::Cfg>> =
                FxHashMap::default();
            pairs.iter().find_map(|&(a, b)| {
                let n = common_caller(g, g.views[a].node, g.views[b].node)?;
                let (ea, eb) = (entry_to(v, g, n, a, None), entry_to(v, g, n, b, None));
                // An update made by a call on an object the method allocated (`new Worker()
                // .named(n).daemon(d)`) is one of that unpublished object's own fields: not a
                // split update of the object the other thread reads.
                let fresh = |e: Option<u32>| e.is_some_and(|at| on_fresh_object(v, n, at, x.class));
                if fresh(ea) || fresh(eb) {
                    return None;
                }
                if let (Some(ea), Some(eb)) = (ea, eb) {
                    if !one_run(p, v, &mut cfgs, n, (ea, eb)) {
                        return None;
                    }
                }
                if one_section(p, v, g, x, n, (a, ea), (b, eb)) {
                    return None;
                }
                Some((n, None, Some((a, b))))
            })
        }
    }
}

/// Whether the call at `at` of node `n` is made on an object the method allocated whose classes
/// include `class` (`new Worker().named(n).daemon(d)`): an update of that unpublished object's
/// own fields, not of the object another thread reads.
fn on_fresh_object(v: &Views, n: usize, at: u32, class: u32) -> bool {
    (v.facts[n].calls.iter())
        .any(|c| c.at == at && c.fresh_receiver && c.fresh_classes.contains(&class))
}

/// Whether node `n` can reach both `ea` and `eb` in one run (one after the other, not in
/// exclusive branches); the control flow graphs built are kept in `cfgs`.
fn one_run(
    p: &Program,
    v: &Views,
    cfgs: &mut FxHashMap<usize, Option<crate::bytecode::cfg::Cfg>>,
    n: usize,
    (ea, eb): (u32, u32),
) -> bool {
    if ea == eb {
        return true;
    }
    let cfg = cfgs.entry(n).or_insert_with(|| {
        (p.method(v.nodes[n].method).code.as_ref()).map(crate::bytecode::cfg::Cfg::with_local_tests)
    });
    cfg.as_ref()
        .is_none_or(|cfg| cfg.can_follow(ea, eb) || cfg.can_follow(eb, ea))
}

/// Whether the two updates of a write violation, entered from node `n` at `ea` and `eb`, are
/// one critical section after all: both entries are inside one region of `n` (a `synchronized`
/// method whose body calls two thread-safe objects, a `lock()` held across two nested
/// sections, a region that holds the other's entry) or `n` runs with its caller holding the
/// lock of its `this`; and the other thread reads the pair together under that same lock. Then
/// no reader that holds it can see one update without the other; a reader under another lock
/// still can (and is still reported).
fn one_section(
    p: &Program,
    v: &Views,
    g: &CausalGraph,
    x: &Violation,
    n: usize,
    (a, ea): (usize, Option<u32>),
    (b, eb): (usize, Option<u32>),
) -> bool {
    let (ha, hb) = (held_at(v, g, n, a, ea), held_at(v, g, n, b, eb));
    let f = &v.facts[n];
    let mut keys: Vec<LockKey> = ha
        .iter()
        .filter(|s| hb.contains(s))
        .filter_map(|s| f.region_keys.iter().find(|(k, _)| k == s).map(|(_, k)| *k))
        .collect();
    if v.nodes[n].this_held {
        keys.push(OWN);
    }
    if keys.is_empty() {
        return false;
    }
    // One variable updated by each view alone: the pair the reader must see together.
    let oa = intersect(&g.views[a].writes, &x.max_vars);
    let ob = intersect(&g.views[b].writes, &x.max_vars);
    let (Some(&vx), Some(&vy)) = (
        oa.iter().find(|y| ob.binary_search(y).is_err()),
        ob.iter().find(|y| oa.binary_search(y).is_err()),
    ) else {
        return false;
    };
    let writer = v.nodes[n].method.class;
    g.views.iter().any(|w| {
        if !(w.reads.binary_search(&vx).is_ok()
            && w.reads.binary_search(&vy).is_ok()
            && v.reached_by[w.node].contains(&x.p1))
        {
            return false;
        }
        // The reader's lock: its region's, or `this`, which its caller holds.
        let reader = v.nodes[w.node];
        let region = v.facts[w.node]
            .region_keys
            .iter()
            .filter(|(s, _)| *s == w.site)
            .map(|(_, k)| *k);
        let caller = reader.this_held.then_some(OWN);
        region.chain(caller).any(|k| {
            keys.iter()
                .any(|q| same_lock(p, (writer, *q), (reader.method.class, k)))
        })
    })
}

/// Whether the two reads of combination `c` in node `n` are made inside one region of `n` (held
/// at both, one acquisition: not in a loop, in a method that never waits) whose lock the writer's view `w`
/// holds too (its own region's, or one of its method's regions around it): the writer cannot
/// run between the reads.
fn read_together(p: &Program, v: &Views, g: &CausalGraph, n: usize, c: &Combine, w: usize) -> bool {
    let method = v.nodes[n].method;
    // A wait releases the region's lock in the middle of it.
    if c.a.loc.method != method || c.b.loc.method != method || v.facts[n].waits {
        return false;
    }
    let (ha, hb) = (
        held_at(v, g, n, 0, Some(c.a.loc.at)),
        held_at(v, g, n, 0, Some(c.b.loc.at)),
    );
    let f = &v.facts[n];
    // One acquisition: a region no loop enters again between the reads.
    let Some(cfg) = p
        .method(method)
        .code
        .as_ref()
        .map(crate::bytecode::cfg::Cfg::build)
    else {
        return false;
    };
    let keys: Vec<LockKey> = (ha.iter().filter(|s| hb.contains(s) && cfg.runs_once(**s)))
        .filter_map(|s| f.region_keys.iter().find(|(k, _)| k == s).map(|(_, k)| *k))
        .collect();
    if keys.is_empty() {
        return false;
    }
    let wv = &g.views[w];
    let wf = &v.facts[wv.node];
    // The writer's region and those around it.
    let around = wf.regions_around(wv.site);
    let writer = v.nodes[wv.node].method.class;
    (wf.region_keys.iter())
        .filter(|(s, _)| around.contains(s))
        .any(|&(_, k)| {
            keys.iter()
                .any(|&q| same_lock(p, (method.class, q), (writer, k)))
        })
}

/// The lock of `this`, named across methods.
const OWN: LockKey = LockKey {
    key: crate::analysis::guards::GuardKey::Own,
    global: false,
};

/// Whether two locks named across methods (each with the class of the method naming it) are
/// the same ([`LockKey::same`]).
fn same_lock(p: &Program, (c1, k1): (u32, LockKey), (c2, k2): (u32, LockKey)) -> bool {
    k1.same(p, c1, k2, c2)
}

/// The regions of node `n` held where it enters region view `view` (at `at`, an access or a
/// call), outermost first. A region of `n` whose own accesses are all in callees (a
/// `synchronized` method that updates through re-entrant helpers) is held at its entry.
fn held_at(v: &Views, g: &CausalGraph, n: usize, view: usize, at: Option<u32>) -> Vec<u32> {
    let Some(at) = at else {
        let rv = &g.views[view];
        return if rv.node == n {
            vec![rv.site]
        } else {
            Vec::new()
        };
    };
    if let Some(c) = v.facts[n].calls.iter().find(|c| c.at == at) {
        return c.held.to_vec();
    }
    g.outs[n]
        .as_ref()
        .and_then(|o| o.accesses.iter().find(|acc| acc.at == at))
        .map(|acc| acc.held.to_vec())
        .unwrap_or_default()
}

/// A low common caller of two nodes (or the node itself), by bounded breadth-first search up
/// the call graph.
fn common_caller(g: &CausalGraph, a: usize, b: usize) -> Option<usize> {
    if a == b {
        return Some(a);
    }
    const LIMIT: usize = 4096;
    let up = |from: usize| {
        let mut order = vec![from];
        let mut seen: FxHashSet<usize> = FxHashSet::default();
        seen.insert(from);
        let mut i = 0;
        while i < order.len() && order.len() < LIMIT {
            let n = order[i];
            i += 1;
            for &q in &g.preds[n] {
                if seen.insert(q) {
                    order.push(q);
                }
            }
        }
        (order, seen)
    };
    let (_, above_a) = up(a);
    let (order_b, _) = up(b);
    order_b.into_iter().find(|n| above_a.contains(n))
}

/// The instruction of `node` that leads to region view `view`: its own access or acquisition,
/// or the call that reaches it.
fn entry_to(v: &Views, g: &CausalGraph, node: usize, view: usize, var: Option<Var>) -> Option<u32> {
    let rv = &g.views[view];
    if rv.node == node {
        return own_site(g, view, var);
    }
    // A call whose callee is (or reaches, within a few calls) the view's node.
    let f = &v.facts[node];
    let mut best = None;
    for c in &f.calls {
        let reaches = c.targets.iter().any(|&t| {
            v.node_index(crate::whole::views::Node {
                method: t,
                this_held: c.this_held,
            })
            .is_some_and(|cn| {
                v.find_below(cn, 7, |n| (n == rv.node).then_some(()))
                    .is_some()
            })
        });
        if reaches {
            best = Some(best.map_or(c.at, |b: u32| b.min(c.at)));
        }
    }
    best
}

/// Inside a view's own node: the first access to `var` in the region (or the acquisition).
fn own_site(g: &CausalGraph, view: usize, var: Option<Var>) -> Option<u32> {
    let rv = &g.views[view];
    let o = g.outs[rv.node].as_ref();
    let acc = o.and_then(|o| {
        o.accesses
            .iter()
            .filter(|a| a.held.contains(&rv.site) && var.is_none_or(|x| a.var == x))
            .map(|a| a.at)
            .min()
    });
    acc.or((rv.site != crate::analysis::locks::METHOD_SITE).then_some(rv.site))
}

fn line_in(p: &Program, m: crate::program::MethodId, at: Option<u32>) -> Option<u32> {
    let code = p.method(m).code.as_ref()?;
    match at {
        Some(a) if a != crate::analysis::locks::METHOD_SITE => code.line_of(a),
        _ => code.lines.first().map(|l| l.1),
    }
}

fn region_words(p: &Program, v: &Views, g: &CausalGraph, view: usize) -> String {
    let rv = &g.views[view];
    region_words_at(p, v, rv.node, rv.site)
}

fn view_text(p: &Program, v: &Views, g: &CausalGraph, view: usize, vars: &[Var]) -> String {
    let rv = &g.views[view];
    let parts: Vec<String> = vars
        .iter()
        .map(|&x| {
            let r = rv.reads.binary_search(&x).is_ok();
            let w = rv.writes.binary_search(&x).is_ok();
            let k = match (r, w) {
                (true, true) => "rw",
                (false, true) => "w",
                _ => "r",
            };
            format!("{}: {k}", short_var(p, &v.fields, x))
        })
        .collect();
    format!("{{{}}}", parts.join(", "))
}

fn step_at(
    p: &Program,
    home: &str,
    m: crate::program::MethodId,
    at: Option<u32>,
    kind: StepKind,
    message: String,
) -> Step {
    let c = p.class(m.class);
    let file = source_path(c);
    let simple = c.name.rsplit('/').next().unwrap_or(&c.name);
    Step {
        kind,
        line: line_in(p, m, at),
        message,
        file: (file != home).then_some(file),
        at: at.filter(|&a| a != crate::analysis::locks::METHOD_SITE),
        method: Some(format!("{simple}.{}", p.method(m).name)),
        other_thread: false,
        pc: None,
    }
    .in_code(p.method(m).code.as_ref())
}

fn explain(
    p: &Program,
    v: &Views,
    g: &CausalGraph,
    x: &Violation,
    node: usize,
    witness: Option<Combine>,
) -> Diagnostic {
    let mid = v.nodes[node].method;
    let class = p.class(mid.class);
    let method = p.method(mid);
    let home = source_path(class);
    // A write violation between fields that nothing relates is a note.
    let unrelated = matches!(x.kind, Kind::Write { related: false });
    // In a library, the method and the other thread's view are operations of the fields' own
    // class, or the two may not be on one object: a note.
    let other_class = crate::whole::threads::open_world(&v.threads)
        && !(own_operation(p, mid.class, x.class)
            && own_operation(p, v.nodes[g.views[x.max_view].node].method.class, x.class));
    let evidence = match x.kind {
        Kind::Write { related: false } => "unrelated-update",
        _ if other_class => "other-class",
        Kind::Read { .. } => "split-read",
        Kind::Write { related: true } => "split-update",
    };
    let owner = p.class(x.class);
    let owner_simple = owner.name.rsplit('/').next().unwrap_or(&owner.name);
    let p1 = &v.threads[x.p1 as usize].name;
    let threads: Vec<String> = v.reached_by[node]
        .iter()
        .map(|&t| v.threads[t as usize].name.clone())
        .collect();
    let mview = &g.views[x.max_view];
    let mnode = v.nodes[mview.node].method;
    let max_words = region_words(p, v, g, x.max_view);
    let max_text = view_text(p, v, g, x.max_view, &x.max_vars);
    let mut steps = vec![step_at(
        p,
        &home,
        mnode,
        Some(mview.site),
        StepKind::Lock,
        format!("the other thread's maximal view {max_text}: {max_words}"),
    )];
    let (message, line) = match (&x.kind, witness) {
        (Kind::Read { x: a, y: b }, Some(c)) => {
            let (na, nb) = (short_var(p, &v.fields, *a), short_var(p, &v.fields, *b));
            for r in [c.a, c.b] {
                let words = region_words_at(p, v, r.node as usize, r.site);
                steps.push(step_at(
                    p,
                    &home,
                    r.loc.method,
                    Some(r.loc.at),
                    StepKind::Read,
                    format!(
                        "{} is read here, inside {words}",
                        causal::describe_var(p, &v.fields, r.var)
                    ),
                ));
            }
            let line = line_in(p, mid, Some(c.at));
            steps.push(Step::here(
                StepKind::Use,
                line,
                Some(c.at),
                format!(
                    "the values of `{na}` and `{nb}`, read in separate critical sections, are combined here"
                ),
            ));
            (
                format!(
                    "High-level data race: method `{}` reads `{owner_simple}.{na}` and `{owner_simple}.{nb}` in separate critical sections and combines them, but {p1} updates them together in one ({max_words}, view {max_text}); between the two reads it can change both, so the combination mixes old and new state; run by {}",
                    method.name,
                    threads.join(", ")
                ),
                line,
            )
        }
        _ => {
            let mut first: Option<u32> = None;
            for view in [x.a, x.b] {
                let rv = &g.views[view];
                let vars = intersect(&rv.writes, &x.max_vars);
                let var = vars.first().copied();
                let own = own_site(g, view, var);
                let words = region_words(p, v, g, view);
                let names: Vec<String> = vars
                    .iter()
                    .map(|&y| format!("`{}`", short_var(p, &v.fields, y)))
                    .collect();
                steps.push(step_at(
                    p,
                    &home,
                    v.nodes[rv.node].method,
                    own,
                    StepKind::Access,
                    format!("{} written here, inside {words}", names.join(", ")),
                ));
                if let Some(at) = entry_to(v, g, node, view, var) {
                    first = Some(first.map_or(at, |f| f.min(at)));
                }
            }
            let line = line_in(p, mid, first);
            let wa: Vec<String> = intersect(&g.views[x.a].writes, &x.max_vars)
                .iter()
                .map(|&y| format!("`{}`", short_var(p, &v.fields, y)))
                .collect();
            let wb: Vec<String> = intersect(&g.views[x.b].writes, &x.max_vars)
                .iter()
                .map(|&y| format!("`{}`", short_var(p, &v.fields, y)))
                .collect();
            let note = if unrelated {
                "; no code makes one of these fields depend on another, so the intermediate state may break no invariant (a note)"
            } else {
                ""
            };
            (
                format!(
                    "High-level data race: method `{}` updates {} and {} of `{owner_simple}` in separate critical sections, but {p1} reads them together in one ({max_words}, view {max_text}) and can observe the intermediate state; run by {}{note}",
                    method.name,
                    wa.join(", "),
                    wb.join(", "),
                    threads.join(", ")
                ),
                line,
            )
        }
    };
    // In execution order: the other thread's view runs between this method's two critical
    // sections (that is the interleaving that breaks it), so it comes after the first of them.
    if steps.len() > 2 {
        let mut other = steps.remove(0);
        other.other_thread = true;
        steps.insert(1, other);
    }
    finding(
        p,
        mid,
        (message, line, steps, threads),
        (
            unrelated || other_class,
            evidence,
            rank(p, v, g, x, node, evidence),
        ),
    )
}

/// The rank of a violation (SARIF `rank`, higher is surer), from its evidence: a split update
/// of related fields (70) above two reads combined (60) above a note (40: fields nothing
/// relates, or another class's); the method's two sections entered in the code of its own
/// class (not deep in another class's callees) rank higher, and another thread that is only
/// some program's `main` ranks lower.
fn rank(
    p: &Program,
    v: &Views,
    g: &CausalGraph,
    x: &Violation,
    node: usize,
    evidence: &str,
) -> u32 {
    let mut r: u32 = match evidence {
        "split-update" => 70,
        "split-read" => 60,
        _ => 40,
    };
    let nest_of = |n: usize| crate::program::nest(&p.class(v.nodes[n].method.class).name);
    let home = nest_of(node);
    if [x.a, x.b].iter().all(|&k| nest_of(g.views[k].node) == home) {
        r += 10;
    }
    if v.threads[x.p1 as usize].only_main(p) {
        r -= 10;
    }
    r
}

fn region_words_at(p: &Program, v: &Views, node: usize, site: u32) -> String {
    let m = v.nodes[node].method;
    crate::explain::region_words(p, m, site)
}
