//! `method-consistency`: von Praun and Gross's method consistency (see `method_consistency.md`
//! beside this file), over the lock views and method views of [`crate::whole::views`].
//!
//! For each method view (a method whose dynamic scope synchronizes) and each class whose fields
//! it accesses, the lock views that overlap it must form a chain: their intersections with the
//! method view must be ordered by inclusion, for every pair with at least one view from a thread
//! concurrent to the method's. Reported: only methods that access variables of a subordinate
//! lock view (one in their own dynamic scope), and only the lowest such methods in the call
//! hierarchy.

use crate::analysis::locks::METHOD_SITE;
use crate::explain::{source_path, Diagnostic, Step, StepKind};
use crate::fxhash::{FxHashMap, FxHashSet};
use crate::program::Program;
use crate::rules::RuleId;
use crate::whole::facts::{FieldId, WRITE};
use crate::whole::views::{FieldSet, LockView, Views};

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

/// `lv ∩ vars`, keeping the lock view's kinds.
fn restrict(lv: &LockView, vars: &[FieldId]) -> FieldSet {
    lv.fields
        .iter()
        .filter(|(f, _)| vars.binary_search(f).is_ok())
        .copied()
        .collect()
}

fn subset(a: &FieldSet, b: &FieldSet) -> bool {
    a.iter().all(|x| b.binary_search(x).is_ok())
}

/// Check every method view; returns the diagnostics of the lowest violating methods.
pub fn check(p: &Program, v: &Views) -> Vec<Diagnostic> {
    let mut by_field: FxHashMap<FieldId, Vec<usize>> = FxHashMap::default();
    for (i, lv) in v.lock_views.iter().enumerate() {
        for &(f, _) in &lv.fields {
            by_field.entry(f).or_default().push(i);
        }
    }
    let mut violations: Vec<Violation> = Vec::new();
    type Key = (u32, Vec<FieldId>, Vec<u32>);
    let mut memo: FxHashMap<Key, Option<(usize, usize)>> = FxHashMap::default();
    for n in 0..v.nodes.len() {
        if !v.synchronizes[n] || v.scope(n).is_empty() || v.reached_by[n].is_empty() {
            continue;
        }
        // Partition the method view by the class declaring each field.
        let mut by_class: FxHashMap<u32, Vec<FieldId>> = FxHashMap::default();
        for &(f, _) in v.scope(n) {
            by_class.entry(v.fields.owner(f).0).or_default().push(f);
        }
        let mut classes: Vec<(u32, Vec<FieldId>)> = by_class.into_iter().collect();
        classes.sort_unstable_by_key(|(c, _)| *c);
        for (class, mut vars) in classes {
            vars.sort_unstable();
            // Many methods share a projection (callers inherit their callees' fields): check
            // each distinct (class, fields, threads) once.
            let key = (class, vars, v.reached_by[n].clone());
            let broken = match memo.get(&key) {
                Some(r) => *r,
                None => {
                    let r = chain_break(v, &by_field, &key.1, &key.2);
                    memo.insert(key.clone(), r);
                    r
                }
            };
            if let Some((a, b)) = broken {
                violations.push(Violation {
                    node: n,
                    class,
                    vars: key.1,
                    a,
                    b,
                });
            }
        }
    }
    // Reporting filters, per class with violations, by reachability over the call graph
    // (reverse edges), instead of a walk per violation:
    // - subordinate: the method reaches (or is) a node opening a lock view with fields of the
    //   class (the paper: the method accesses variables in a subordinate lock view);
    // - lowest: no node strictly below it violates for the same class.
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); v.nodes.len()];
    for (a, es) in v.edges.iter().enumerate() {
        for &b in es {
            preds[b].push(a);
        }
    }
    let mut classes: Vec<u32> = violations.iter().map(|x| x.class).collect();
    classes.sort_unstable();
    classes.dedup();
    let mut keep: FxHashSet<(usize, u32)> = FxHashSet::default();
    for &class in &classes {
        let holders: Vec<usize> = (0..v.nodes.len())
            .filter(|&n| {
                v.views_of[n].iter().any(|&lv| {
                    v.lock_views[lv]
                        .fields
                        .iter()
                        .any(|(f, _)| v.fields.owner(*f).0 == class)
                })
            })
            .collect();
        let reaches_view = backwards(&preds, &holders, true);
        let violators: Vec<usize> = violations
            .iter()
            .filter(|x| x.class == class)
            .map(|x| x.node)
            .collect();
        // Nodes with a violating node strictly below them.
        let above_violation = backwards(&preds, &violators, false);
        for &n in &violators {
            if reaches_view[n] && !above_violation[n] {
                keep.insert((n, class));
            }
        }
    }
    let mut reported: FxHashSet<(crate::program::MethodId, u32)> = FxHashSet::default();
    let mut out = Vec::new();
    for x in &violations {
        if !keep.contains(&(x.node, x.class)) || !reported.insert((v.nodes[x.node].method, x.class))
        {
            continue;
        }
        let involved: Vec<FieldId> = {
            let mut f: Vec<FieldId> = v.lock_views[x.a]
                .fields
                .iter()
                .chain(v.lock_views[x.b].fields.iter())
                .map(|(f, _)| *f)
                .filter(|f| x.vars.binary_search(f).is_ok())
                .collect();
            f.sort_unstable();
            f.dedup();
            f
        };
        out.push(explain(p, v, x, &involved));
    }
    out
}

/// The first pair of lock views overlapping `vars` whose intersections with them are not
/// ordered by inclusion, with at least one from a thread concurrent to `threads`.
fn chain_break(
    v: &Views,
    by_field: &FxHashMap<FieldId, Vec<usize>>,
    vars: &[FieldId],
    threads: &[u32],
) -> Option<(usize, usize)> {
    let mut cands: Vec<usize> = vars
        .iter()
        .flat_map(|f| by_field.get(f).into_iter().flatten().copied())
        .collect();
    cands.sort_unstable();
    cands.dedup();
    if cands.len() < 2 {
        return None;
    }
    // Distinct intersections, each with a representative view and whether any view with it
    // comes from a thread concurrent to the method's.
    let mut distinct: Vec<(FieldSet, usize, bool)> = Vec::new();
    for &lv in &cands {
        let inter = restrict(&v.lock_views[lv], vars);
        if inter.is_empty() {
            continue;
        }
        let conc = concurrent(v, threads, &v.reached_by[v.lock_views[lv].node]);
        match distinct.iter_mut().find(|(s, _, _)| *s == inter) {
            Some(d) => {
                if conc && !d.2 {
                    d.1 = lv;
                    d.2 = true;
                }
            }
            None => distinct.push((inter, lv, conc)),
        }
    }
    distinct.iter().enumerate().find_map(|(i, (a, la, ca))| {
        distinct.iter().enumerate().find_map(|(j, (b, lb, cb))| {
            (i < j && (*ca || *cb) && !subset(a, b) && !subset(b, a)).then_some((*la, *lb))
        })
    })
}

/// Nodes that reach one of `targets` over call edges: including the targets themselves when
/// `inclusive`, else only through at least one call.
fn backwards(preds: &[Vec<usize>], targets: &[usize], inclusive: bool) -> Vec<bool> {
    let mut marked = vec![false; preds.len()];
    let mut stack: Vec<usize> = if inclusive {
        targets.to_vec()
    } else {
        targets
            .iter()
            .flat_map(|&t| preds[t].iter().copied())
            .collect()
    };
    while let Some(x) = stack.pop() {
        if !std::mem::replace(&mut marked[x], true) {
            stack.extend(preds[x].iter().copied());
        }
    }
    marked
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
    let touches = |set: &FieldSet| {
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
                v.nodes
                    .iter()
                    .position(|n| n.method == t && n.this_held == c.this_held)
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
        steps.push(Step {
            kind: StepKind::Lock,
            line: acq_line,
            message: format!("lock view {text}: {what}, run by {}", threads.join(", ")),
            file: (file != source_path(class)).then_some(file.clone()),
        });
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
            steps.push(Step {
                kind: StepKind::Access,
                line: lcode.and_then(|c| c.line_of(acc.at)),
                message: format!(
                    "`{}.{fname}` is {kind} here, inside that lock",
                    simple(&owner.name)
                ),
                file: (file != source_path(class)).then_some(file),
            });
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
    }
}
