//! `method-consistency`: von Praun and Gross's method consistency (see `method_consistency.md`
//! beside this file), over the lock views and method views of [`crate::whole::views`].
//!
//! For each method view (a method whose dynamic scope synchronizes) and each class whose fields
//! it accesses, the lock views that overlap it must form a chain: their intersections with the
//! method view must be ordered by inclusion, for every pair with at least one view from a thread
//! concurrent to the method's. Reported: only methods that access variables of a subordinate
//! lock view (one in their own dynamic scope), and only the lowest such methods in the call
//! hierarchy.

use std::hash::{Hash, Hasher};

use rayon::prelude::*;

use crate::analysis::locks::METHOD_SITE;
use crate::explain::{source_path, Diagnostic, Step, StepKind};
use crate::fxhash::{FxHashMap, FxHashSet};
use crate::program::Program;
use crate::rules::RuleId;
use crate::whole::facts::{FieldId, WRITE};
use crate::whole::views::{FieldSet, Views};

/// One violation before reporting: a method view (node) and the two lock views that break the
/// chain for the fields of one class.
struct Violation {
    node: usize,
    class: u32,
    /// The method view's fields of that class.
    vars: Vec<FieldId>,
    a: usize,
    b: usize,
}

fn concurrent(v: &Views, a: &[u32], b: &[u32]) -> bool {
    a.iter()
        .any(|&x| b.iter().any(|&y| x != y || v.threads[x as usize].many))
}

fn subset(a: &FieldSet, b: &FieldSet) -> bool {
    a.iter().all(|x| b.binary_search(x).is_ok())
}

/// Check every method view; returns the diagnostics of the lowest violating methods of scanned
/// (not `--classpath`) classes.
/// `profile` receives figures about the check (for `STALECHECK_TIMINGS`).
pub fn check(p: &Program, v: &Views, profile: &mut Vec<String>) -> Vec<Diagnostic> {
    let per_class = class_views(v);
    // Violations by class: (node, the two lock views). Kept compact: most are filtered out.
    // Many methods share a projection (callers inherit their callees' fields): each worker
    // checks each distinct (class, fields, threads) once, keyed by a hash, compared on collision.
    type Memo = FxHashMap<u64, Vec<(u32, Vec<FieldId>, u32, Option<(usize, usize)>)>>;
    // The threads reaching a node, as one number per distinct set (open world has thousands of
    // threads: hashing and comparing the lists per class run would dominate the check).
    let mut set_ids: FxHashMap<&[u32], u32> = FxHashMap::default();
    let thread_set: Vec<u32> = v
        .reached_by
        .iter()
        .map(|t| {
            let next = set_ids.len() as u32;
            *set_ids.entry(&t[..]).or_insert(next)
        })
        .collect();
    // Only the violating nodes are kept (4 bytes each: large programs have hundreds of millions
    // of violations, of which a few thousand are reported); the two lock views that break the
    // chain are found again for the reported ones (`chain_break` is a function of the class's
    // fields in the node's scope and its threads, as the memo's key says).
    type Found = FxHashMap<u32, Vec<u32>>;
    let (by_class, memo_keys): (Found, usize) = (0..v.nodes.len())
        .into_par_iter()
        .fold(
            || (Found::default(), Memo::default()),
            |(mut found, mut memo), n| {
                if !v.synchronizes[n] || v.scope(n).is_empty() || v.reached_by[n].is_empty() {
                    return (found, memo);
                }
                // Field ids are contiguous per declaring class: the method view's partition by
                // class is a split of its sorted scope into runs.
                let scope = v.scope(n);
                let threads = &v.reached_by[n];
                let mut start = 0;
                while start < scope.len() {
                    let class = v.fields.owner(scope[start].0).0;
                    let mut end = start + 1;
                    while end < scope.len() && v.fields.owner(scope[end].0).0 == class {
                        end += 1;
                    }
                    let run = &scope[start..end];
                    start = end;
                    let Some(views) = per_class.get(&class).filter(|views| views.len() >= 2) else {
                        continue;
                    };
                    let mut h = crate::fxhash::FxHasher::default();
                    class.hash(&mut h);
                    for (f, _) in run {
                        f.hash(&mut h);
                    }
                    thread_set[n].hash(&mut h);
                    let bucket = memo.entry(crate::fxhash::mix(h.finish())).or_default();
                    let same = |fs: &Vec<FieldId>| {
                        fs.len() == run.len() && fs.iter().zip(run).all(|(a, (b, _))| a == b)
                    };
                    let cached = bucket
                        .iter()
                        .find(|(c, fs, t, _)| *c == class && *t == thread_set[n] && same(fs))
                        .map(|e| e.3);
                    let broken = match cached {
                        Some(r) => r,
                        None => {
                            let vars: Vec<FieldId> = run.iter().map(|(f, _)| *f).collect();
                            let r = chain_break(v, views, &vars, threads);
                            bucket.push((class, vars, thread_set[n], r));
                            r
                        }
                    };
                    if broken.is_some() {
                        found.entry(class).or_default().push(n as u32);
                    }
                }
                (found, memo)
            },
        )
        .map(|(found, memo)| (found, memo.len()))
        .reduce(
            || (Found::default(), 0),
            |(mut a, ka), (b, kb)| {
                for (c, mut list) in b {
                    a.entry(c).or_default().append(&mut list);
                }
                (a, ka + kb)
            },
        );
    let mut by_class = by_class;
    for list in by_class.values_mut() {
        list.sort_unstable();
    }
    let count: usize = by_class.values().map(Vec::len).sum();
    profile.push(format!(
        "method-consistency: {count} violations, {memo_keys} memo keys"
    ));
    // Reporting filters, for all classes with violations at once, by reachability over the call
    // graph (one bit per class, propagated over the components callees first) instead of a walk
    // per violation or per class:
    // - subordinate: the method reaches (or is) a node opening a lock view with fields of the
    //   class (the paper: the method accesses variables in a subordinate lock view);
    // - lowest: no node strictly below it violates for the same class.
    let mut classes: Vec<u32> = by_class.keys().copied().collect();
    classes.sort_unstable();
    let slot_of: FxHashMap<u32, usize> = classes.iter().enumerate().map(|(i, &c)| (c, i)).collect();
    let mut holds = ClassBits::new(v.nodes.len(), classes.len());
    for lv in &v.lock_views {
        for &(f, _) in &lv.fields {
            if let Some(&slot) = slot_of.get(&v.fields.owner(f).0) {
                holds.set(lv.node, slot);
            }
        }
    }
    let mut violates = ClassBits::new(v.nodes.len(), classes.len());
    for (class, list) in &by_class {
        for &n in list {
            violates.set(n as usize, slot_of[class]);
        }
    }
    // Inclusive reach per component: a member holds (violates), or a callee component does.
    let reaches_view = holds.closure(v);
    let reaches_violation = violates.closure(v);
    // Strictly below a node: through at least one call.
    let above_violation = reaches_violation.through_calls(v);
    let mut reported: FxHashSet<(crate::program::MethodId, u32)> = FxHashSet::default();
    let mut out = Vec::new();
    for (slot, &class) in classes.iter().enumerate() {
        let list = &by_class[&class];
        for &n in list {
            let n = n as usize;
            if !reaches_view.get(v.component(n), slot)
                || above_violation.get(n, slot)
                || !reported.insert((v.nodes[n].method, class))
            {
                continue;
            }
            let vars: Vec<FieldId> = v
                .scope(n)
                .iter()
                .map(|(f, _)| *f)
                .filter(|f| v.fields.owner(*f).0 == class)
                .collect();
            let Some((a, b)) = chain_break(v, &per_class[&class], &vars, &v.reached_by[n]) else {
                continue;
            };
            let x = Violation {
                node: n,
                class,
                vars,
                a,
                b,
            };
            let mut involved: Vec<FieldId> = v.lock_views[a]
                .fields
                .iter()
                .chain(v.lock_views[b].fields.iter())
                .map(|(f, _)| *f)
                .filter(|f| x.vars.binary_search(f).is_ok())
                .collect();
            involved.sort_unstable();
            involved.dedup();
            out.push(explain(p, v, &x, &involved));
        }
    }
    out
}

/// The lock views of one class, restricted to its fields: each distinct restriction once,
/// with the lock views that have it.
type ClassViews = Vec<(FieldSet, Vec<usize>)>;

fn class_views(v: &Views) -> FxHashMap<u32, ClassViews> {
    let mut out: FxHashMap<u32, ClassViews> = FxHashMap::default();
    for (i, lv) in v.lock_views.iter().enumerate() {
        let mut start = 0;
        while start < lv.fields.len() {
            let class = v.fields.owner(lv.fields[start].0).0;
            let mut end = start + 1;
            while end < lv.fields.len() && v.fields.owner(lv.fields[end].0).0 == class {
                end += 1;
            }
            let set: FieldSet = lv.fields[start..end].to_vec();
            start = end;
            let views = out.entry(class).or_default();
            match views.iter_mut().find(|(s, _)| *s == set) {
                Some((_, ids)) => ids.push(i),
                None => views.push((set, vec![i])),
            }
        }
    }
    out
}

/// The first pair of lock views overlapping `vars` whose intersections with them are not
/// ordered by inclusion, with at least one from a thread concurrent to `threads`.
fn chain_break(
    v: &Views,
    views: &ClassViews,
    vars: &[FieldId],
    threads: &[u32],
) -> Option<(usize, usize)> {
    let mut distinct: Vec<(FieldSet, usize, bool)> = Vec::new();
    for (set, ids) in views {
        let inter: FieldSet = set
            .iter()
            .filter(|(f, _)| vars.binary_search(f).is_ok())
            .copied()
            .collect();
        if inter.is_empty() {
            continue;
        }
        let conc_id = ids
            .iter()
            .copied()
            .find(|&lv| concurrent(v, threads, &v.reached_by[v.lock_views[lv].node]));
        let (rep, conc) = match conc_id {
            Some(lv) => (lv, true),
            None => (ids[0], false),
        };
        match distinct.iter_mut().find(|(s, _, _)| *s == inter) {
            Some(d) => {
                if conc && !d.2 {
                    d.1 = rep;
                    d.2 = true;
                }
            }
            None => distinct.push((inter, rep, conc)),
        }
    }
    distinct.iter().enumerate().find_map(|(i, (a, la, ca))| {
        distinct.iter().enumerate().find_map(|(j, (b, lb, cb))| {
            (i < j && (*ca || *cb) && !subset(a, b) && !subset(b, a)).then_some((*la, *lb))
        })
    })
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

fn view_text(p: &Program, v: &Views, fields: &FieldSet, vars: &[FieldId]) -> String {
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
    let touches = |set: &[(FieldId, u8)]| {
        set.iter()
            .any(|(fid, _)| involved.binary_search(fid).is_ok())
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
    for &lvi in &[x.a, x.b] {
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
        let text = view_text(p, v, &lv.fields, &x.vars);
        view_descs.push(format!("{text} under {what}"));
        let file = source_path(lc);
        steps.push(
            Step {
                kind: StepKind::Lock,
                line: acq_line,
                // The threads are named once: a lock view run by the method's own threads (the
                // headline's "run by") says so in a word.
                message: if v.reached_by[lv.node] == v.reached_by[x.node] {
                    format!("lock view {text}: {what}, run by the same threads")
                } else {
                    format!("lock view {text}: {what}, run by {}", threads.join(", "))
                },
                file: (file != source_path(class)).then_some(file.clone()),
                at: (lv.site != METHOD_SITE).then_some(lv.site),
                method: (ln.method != node.method)
                    .then(|| format!("{}.{}", simple(&lc.name), lm.name)),
                other_thread: false,
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
                    other_thread: false,
                    pc: None,
                }
                .in_code(lcode),
            );
        }
    }
    let threads: Vec<String> = v.reached_by[x.node]
        .iter()
        .map(|&t| v.threads[t as usize].name.clone())
        .collect();
    let message = format!(
        "Method `{}` is not atomic: it accesses {} of `{}` in separate critical sections whose lock views do not form a chain ({} and {}), so a concurrent thread can change them in between; run by {}",
        method.name,
        names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", "),
        simple(&owner.name),
        view_descs[0],
        view_descs[1],
        threads.join(", ")
    );
    crate::explain::own_offsets(&mut steps, method.code.as_ref());
    Diagnostic {
        rule: RuleId::MethodConsistency,
        level: RuleId::MethodConsistency.meta().level,
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
        evidence: None,
        rank: None,
    }
}
