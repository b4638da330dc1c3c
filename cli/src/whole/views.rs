//! Lock views and method views (von Praun and Gross), per abstract thread.
//!
//! The program is explored from the threads' entry methods as a graph of `(method, this held
//! by the caller)` nodes, so a callee's `synchronized` is re-entry when its caller already holds
//! the receiver's lock (and then opens no lock view). Each node's facts come from the shared
//! engine. The dynamic scope of a node is its accesses and those of everything it calls (one
//! pass over recursion, as in the paper: cycles share their scope).
//!
//! - A *lock view* is the set of fields read (r) or updated (u: written, or read and written) in
//!   the dynamic scope of one non-reentrant acquisition.
//! - A *method view* is the set of fields accessed in the dynamic scope of a method whose scope
//!   synchronizes; it holds both an r and a u entry for each.

use std::hash::{Hash, Hasher};

use rayon::prelude::*;

use super::facts::{self, Facts, FieldId, READ, WRITE};
use super::fields::FieldTable;
use super::threads::AbstractThread;
use crate::analysis::locks::METHOD_SITE;
use crate::fxhash::{FxHashMap, FxHashSet};
use crate::program::{MethodId, Program};

/// A node of the explored program: a method in a calling context.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Node {
    pub method: MethodId,
    pub this_held: bool,
}

/// A set of fields with access flags, sorted by field.
pub type FieldSet = Vec<(FieldId, u8)>;

/// A dynamic scope: a set of fields with access flags, shared between the components whose
/// scopes are equal (a caller that adds nothing to what its callee touches has its callee's
/// scope). Each entry is one word, `field << 2 | flags` ([`entry`]), so a scope sorted by
/// entry is sorted by field: the scopes of a large program hold hundreds of millions of
/// entries (half the memory of a `(FieldId, u8)` pair).
pub type Scope = std::sync::Arc<[u32]>;

/// Field id ranges `[start, end)` left out of a callee's scope: the fields of a fresh
/// receiver's classes ([`facts::CallSite::fresh_classes`]), empty for none.
pub type Excluded = Box<[(FieldId, FieldId)]>;

/// [`Excluded`] borrowed.
type Ranges<'a> = &'a [(FieldId, FieldId)];

/// The fields of the classes of a call's fresh receiver (or, in `open` world, of a legacy
/// collection its holder's callers do not share), as ranges ([`Excluded`]).
fn excluded(c: &facts::CallSite, fields: &FieldTable, open: bool) -> Excluded {
    if !(c.fresh_receiver || open && c.legacy_receiver) {
        return Excluded::default();
    }
    c.fresh_classes
        .iter()
        .map(|&ci| fields.class_fields(ci))
        .filter(|(a, b)| a < b)
        .collect()
}

fn is_excluded(ranges: &[(FieldId, FieldId)], f: FieldId) -> bool {
    ranges.iter().any(|&(a, b)| a <= f && f < b)
}

/// More field ids than a scope entry can name ([`entry`]); the pipeline checks it before the
/// views are built.
pub const MAX_FIELDS: usize = 1 << 30;

/// The scope entry of a field with flags (`READ`, `WRITE`).
pub fn entry(f: FieldId, k: u8) -> u32 {
    f << 2 | u32::from(k & (READ | WRITE))
}

/// The field of a scope entry.
pub fn entry_field(e: u32) -> FieldId {
    e >> 2
}

/// The flags of a scope entry.
pub fn entry_kind(e: u32) -> u8 {
    (e & 3) as u8
}

/// Whether a scope (sorted) has a field.
pub fn scope_has(scope: &[u32], f: FieldId) -> bool {
    scope.binary_search_by_key(&f, |&e| entry_field(e)).is_ok()
}

/// One lock view.
#[derive(Debug)]
pub struct LockView {
    pub node: usize,
    /// Acquisition site in the node's method (`METHOD_SITE` for a synchronized method).
    pub site: u32,
    /// The view's fields, each once, `READ` (r) or `WRITE` (u), as its restrictions to one
    /// class each: indices into [`Views::parts`], ascending by class (and so by field). Lock
    /// views of a large program hold hundreds of millions of fields, mostly the same
    /// restrictions over and over: each distinct restriction is stored once.
    pub parts: Vec<u32>,
}

/// Everything the method-consistency check needs.
pub struct Views {
    /// The explored program the views are computed over (reached through `Deref`).
    graph: Graph,
    /// Dynamic scope of each strongly connected component, restricted to the fields that occur
    /// in some lock view (no other field can make views overlap); see [`Views::scope`].
    comp_scope: Vec<Scope>,
    /// Component of each node.
    comp: Vec<usize>,
    /// Lock views opened by each node.
    pub views_of: Vec<Vec<usize>>,
    /// The node executes subordinate synchronization: a lock acquisition below its own
    /// `synchronized` (in its body or a callee), or a `wait`. Only such nodes have a method
    /// view (the paper's footnote 1).
    pub synchronizes: Vec<bool>,
    /// Threads reaching each node (indices into `threads`), sorted.
    pub reached_by: Vec<ThreadSet>,
    pub lock_views: Vec<LockView>,
    /// The distinct restrictions of lock views to one class: `(class, fields)`, numbered in
    /// the order first seen (lock views in order, each one's classes ascending).
    pub parts: Vec<(u32, FieldSet)>,
    pub threads: Vec<AbstractThread>,
    /// The explored code only a thread body runs, on its own object, by node
    /// ([`crate::whole::threads::body_owned`]): computed on first use.
    body_owned: std::sync::OnceLock<Vec<Option<u32>>>,
}

/// The explored program: the `(method, caller holds this)` nodes the threads reach, their
/// facts and call edges. What [`explore`] finds; the views are computed over it ([`complete`]),
/// and so is the causal graph's analysis of each node, side by side with them.
pub struct Graph {
    pub nodes: Vec<Node>,
    pub facts: Vec<Facts>,
    /// Callee node indices of each node.
    pub edges: Vec<Vec<usize>>,
    pub fields: FieldTable,
    /// Index of each explored node.
    index: FxHashMap<Node, usize>,
    /// Callees called only on fresh receivers (or, in open world, unshared legacy
    /// collections), with the fields their scopes leave out.
    fresh: Vec<Vec<(usize, Excluded)>>,
    /// The threads are a library's unknown callers.
    open: bool,
}

impl Graph {
    /// The index of an explored node.
    pub fn node_index(&self, n: Node) -> Option<usize> {
        self.index.get(&n).copied()
    }

    /// The nodes a call site of a node calls (its targets in the call's context).
    pub fn callee_nodes<'a>(&'a self, c: &'a facts::CallSite) -> impl Iterator<Item = usize> + 'a {
        c.targets.iter().filter_map(move |&t| {
            self.node_index(Node {
                method: t,
                this_held: c.this_held,
            })
        })
    }
}

/// A [`Views`] is the explored [`Graph`] with the scopes and views computed over it: its nodes,
/// facts and edges are read through it.
impl std::ops::Deref for Views {
    type Target = Graph;
    fn deref(&self) -> &Graph {
        &self.graph
    }
}

/// What [`complete`] computes over a [`Graph`]: everything in [`Views`] but the graph and the
/// threads.
pub struct Derived {
    comp_scope: Vec<Scope>,
    comp: Vec<usize>,
    views_of: Vec<Vec<usize>>,
    synchronizes: Vec<bool>,
    reached_by: Vec<ThreadSet>,
    lock_views: Vec<LockView>,
    parts: Vec<(u32, FieldSet)>,
    /// Figures about the computation (sizes, elapsed times), for `STALECHECK_TIMINGS`.
    pub profile: Vec<String>,
}

impl Views {
    /// The dynamic scope of a node, restricted to fields that occur in lock views (entries:
    /// [`entry_field`], [`entry_kind`]).
    pub fn scope(&self, n: usize) -> &[u32] {
        &self.comp_scope[self.comp[n]]
    }

    /// The strongly connected component (recursion) of a node in the call graph. Components
    /// are numbered callees first: every call goes to the same or a lower number.
    pub fn component(&self, n: usize) -> usize {
        self.comp[n]
    }

    /// The number of components.
    pub fn components(&self) -> usize {
        self.comp_scope.len()
    }

    /// What `f` finds first at node `from` or below it: breadth first over the callees, at most
    /// `levels` levels deep (`from` is the first) and a few thousand nodes.
    pub fn find_below<T>(
        &self,
        from: usize,
        levels: usize,
        mut f: impl FnMut(usize) -> Option<T>,
    ) -> Option<T> {
        let mut seen: FxHashSet<usize> = FxHashSet::default();
        let mut level = vec![from];
        for _ in 0..levels {
            let mut next = Vec::new();
            for n in level {
                if !seen.insert(n) {
                    continue;
                }
                if let Some(found) = f(n) {
                    return Some(found);
                }
                next.extend(self.edges[n].iter().copied());
            }
            if next.is_empty() || seen.len() > 4096 {
                break;
            }
            level = next;
        }
        None
    }

    /// The fields of a lock view, ascending.
    pub fn lock_view_fields(&self, lv: usize) -> impl Iterator<Item = (FieldId, u8)> + '_ {
        self.lock_views[lv]
            .parts
            .iter()
            .flat_map(|&i| self.parts[i as usize].1.iter().copied())
    }

    /// The fields of a lock view of one class (empty when it has none).
    pub fn lock_view_part(&self, lv: usize, class: u32) -> &[(FieldId, u8)] {
        let parts = &self.lock_views[lv].parts;
        parts
            .binary_search_by_key(&class, |&i| self.parts[i as usize].0)
            .map_or(&[], |k| &self.parts[parts[k] as usize].1[..])
    }
}

/// A set of threads (ascending numbers), shared by every node that the same threads reach.
pub type ThreadSet = std::sync::Arc<[u32]>;

impl Views {
    /// The views of `graph` for `threads`, from what [`complete`] computed over it.
    pub fn assemble(graph: Graph, d: Derived, threads: Vec<AbstractThread>) -> Views {
        Views {
            graph,
            comp_scope: d.comp_scope,
            comp: d.comp,
            views_of: d.views_of,
            synchronizes: d.synchronizes,
            reached_by: d.reached_by,
            lock_views: d.lock_views,
            parts: d.parts,
            threads,
            body_owned: std::sync::OnceLock::new(),
        }
    }

    /// The class of the thread body that alone runs each node, on its own object
    /// ([`crate::whole::threads::body_owned`]).
    pub fn body_owned(&self, p: &Program) -> &[Option<u32>] {
        self.body_owned
            .get_or_init(|| crate::whole::threads::body_owned(p, &self.graph, &self.threads))
    }
}

/// Explore the nodes the threads reach, level by level, computing their facts in parallel;
/// returns the graph and its profile line.
pub fn explore(p: &Program, threads: &[AbstractThread]) -> (Graph, Vec<String>) {
    let t0 = std::time::Instant::now();
    let mut profile = Vec::new();
    let fields = FieldTable::new(p);
    // Explore the reachable nodes level by level, computing facts in parallel.
    let mut index: FxHashMap<Node, usize> = FxHashMap::default();
    let mut nodes: Vec<Node> = Vec::new();
    let mut frontier: Vec<Node> = Vec::new();
    for t in threads {
        for &e in &t.entries {
            let n = Node {
                method: e,
                this_held: false,
            };
            if let std::collections::hash_map::Entry::Vacant(e) = index.entry(n) {
                e.insert(nodes.len());
                nodes.push(n);
                frontier.push(n);
            }
        }
    }
    // The main thread's code where no other thread of its program runs (before its first
    // start, after its joins): neither a concurrent access nor a call into what the threads run.
    let alone: FxHashMap<MethodId, &[bool]> = (threads.iter())
        .filter_map(|t| t.alone.as_ref())
        .map(|a| (a.method, &a.at[..]))
        .collect();
    let mut facts: Vec<Facts> = Vec::new();
    while !frontier.is_empty() {
        let computed: Vec<Facts> = frontier
            .par_iter()
            .map(|n| {
                let mut f = facts::collect(p, &fields, n.method, n.this_held);
                if let Some(alone) = alone.get(&n.method) {
                    let here = |at: u32| alone.get(at as usize).copied().unwrap_or(false);
                    f.accesses.retain(|a| !here(a.at));
                    f.calls.retain(|c| !here(c.at));
                }
                f
            })
            .collect();
        let mut next = Vec::new();
        for f in &computed {
            for c in &f.calls {
                for &t in &c.targets {
                    let n = Node {
                        method: t,
                        this_held: c.this_held,
                    };
                    if let std::collections::hash_map::Entry::Vacant(e) = index.entry(n) {
                        e.insert(nodes.len());
                        nodes.push(n);
                        next.push(n);
                    }
                }
            }
        }
        facts.extend(computed);
        frontier = next;
    }
    let edges: Vec<Vec<usize>> = facts
        .iter()
        .map(|f| {
            let mut e: Vec<usize> = f
                .calls
                .iter()
                .flat_map(|c| {
                    c.targets.iter().map(move |&t| Node {
                        method: t,
                        this_held: c.this_held,
                    })
                })
                .filter_map(|n| index.get(&n).copied())
                .collect();
            e.sort_unstable();
            e.dedup();
            e
        })
        .collect();
    // Calls on a fresh receiver: the callee's scope without the object's own fields (an edge
    // that is also a plain call keeps them all). In open world, so are calls on a legacy
    // collection its holder's callers do not share.
    let open = crate::whole::threads::open_world(threads);
    let unshared = |c: &facts::CallSite| c.fresh_receiver || (open && c.legacy_receiver);
    let fresh: Vec<Vec<(usize, Excluded)>> = facts
        .iter()
        .zip(&edges)
        .map(|(f, all_edges)| {
            let plain: FxHashSet<usize> = f
                .calls
                .iter()
                .filter(|c| !unshared(c))
                .flat_map(|c| {
                    c.targets.iter().map(move |&t| Node {
                        method: t,
                        this_held: c.this_held,
                    })
                })
                .filter_map(|n| index.get(&n).copied())
                .collect();
            let mut out: Vec<(usize, Excluded)> = Vec::new();
            if plain.len() == all_edges.len() {
                return out;
            }
            for c in f.calls.iter().filter(|c| unshared(c)) {
                let ex = excluded(c, &fields, open);
                for &t in &c.targets {
                    let node = Node {
                        method: t,
                        this_held: c.this_held,
                    };
                    let Some(w) = index.get(&node).copied().filter(|w| !plain.contains(w)) else {
                        continue;
                    };
                    match out.iter_mut().find(|(x, _)| *x == w) {
                        // Two fresh calls to one callee: what both leave out.
                        Some((_, prev)) => {
                            let both: Excluded =
                                prev.iter().filter(|r| ex.contains(r)).copied().collect();
                            *prev = both;
                        }
                        None => out.push((w, ex.clone())),
                    }
                }
            }
            out
        })
        .collect();
    profile.push(format!(
        "views: {} nodes explored in {:?}",
        nodes.len(),
        t0.elapsed()
    ));
    (
        Graph {
            nodes,
            facts,
            edges,
            fields,
            index,
            fresh,
            open,
        },
        profile,
    )
}

/// The scopes and views over an explored graph (see [`Views`]); its profile lines are timed
/// from its own start.
pub fn complete(g: &Graph, threads: &[AbstractThread]) -> Derived {
    let t0 = std::time::Instant::now();
    let mut profile = Vec::new();
    let Graph {
        nodes,
        facts,
        edges,
        fields,
        index,
        fresh,
        open,
    } = g;
    let open = *open;
    let comp = tarjan(edges);
    // Lock views need the full scope of what is called while a lock is held: compute it for the
    // closure of those callees only.
    let mut under_lock = vec![false; nodes.len()];
    let mut stack: Vec<usize> = Vec::new();
    for f in facts {
        for c in f.calls.iter().filter(|c| !c.held.is_empty()) {
            for &t in &c.targets {
                if let Some(&w) = index.get(&Node {
                    method: t,
                    this_held: c.this_held,
                }) {
                    stack.push(w);
                }
            }
        }
    }
    while let Some(v) = stack.pop() {
        if !std::mem::replace(&mut under_lock[v], true) {
            stack.extend(edges[v].iter().copied());
        }
    }
    let full = scopes(facts, edges, fresh, &comp, &under_lock, None, fields.len());
    let total: usize = full.iter().map(|s| s.len()).sum();
    profile.push(format!(
        "views: scopes under locks ({total} entries, {} stored) at {:?}",
        stored(&full),
        t0.elapsed()
    ));
    let synchronizes = subordinate_sync(facts, edges, &comp);
    let reached_by = reach(threads, index, edges, &comp);
    let node_of = |n: Node| index.get(&n).copied();
    let full_ref = &full;
    let comp_ref = &comp;
    let nfields = fields.len();
    let fields_ref = fields;
    // Lock views in chunks of nodes (computed in parallel, then split into their restrictions
    // to one class in order): only one chunk's full field sets are held at a time.
    let with_regions: Vec<usize> = (0..facts.len())
        .filter(|&i| !facts[i].regions.is_empty())
        .collect();
    let mut lock_views: Vec<LockView> = Vec::new();
    let mut parts = Parts::default();
    let mut entries = 0usize;
    for chunk in with_regions.chunks(256) {
        type Computed = Vec<(u32, FieldSet, Vec<Run>)>;
        let computed: Vec<Computed> = chunk
            .par_iter()
            .map_init(
                || Accumulator::new(nfields),
                |acc, &ni| {
                    let f = &facts[ni];
                    f.regions
                        .iter()
                        .map(|&site| {
                            let (site, set) = lock_view(
                                acc, f, site, &node_of, full_ref, comp_ref, fields_ref, open,
                            );
                            let runs = runs(&set, fields);
                            (site, set, runs)
                        })
                        .collect()
                },
            )
            .collect();
        for (&ni, views) in chunk.iter().zip(computed) {
            for (site, set, runs) in views {
                if set.is_empty() {
                    continue;
                }
                entries += set.len();
                lock_views.push(LockView {
                    node: ni,
                    site,
                    parts: parts.split(&set, &runs),
                });
            }
        }
    }
    let parts = parts.list;
    drop(full);
    profile.push(format!("views: lock views computed at {:?}", t0.elapsed()));
    // Method views only matter on fields of classes whose lock views do not already form a
    // chain among themselves: if all of a class's lock views are ordered by inclusion, so are
    // their intersections with any method view, and no method can break the chain.
    let relevant = contested_fields(&parts, fields);
    profile.push(format!("views: contested fields at {:?}", t0.elapsed()));
    let all = vec![true; nodes.len()];
    let comp_scope = scopes(
        facts,
        edges,
        fresh,
        &comp,
        &all,
        Some(&relevant),
        fields.len(),
    );
    let mut views_of = vec![Vec::new(); nodes.len()];
    for (i, lv) in lock_views.iter().enumerate() {
        views_of[lv.node].push(i);
    }
    profile.push(format!(
        "views: {} lock views ({entries} entries, {} distinct restrictions to a class with {} entries) at {:?}",
        lock_views.len(),
        parts.len(),
        parts.iter().map(|(_, set)| set.len()).sum::<usize>(),
        t0.elapsed()
    ));
    let total: usize = comp_scope.iter().map(|s| s.len()).sum();
    profile.push(format!(
        "views: relevant scopes ({total} entries, {} stored) at {:?}",
        stored(&comp_scope),
        t0.elapsed()
    ));
    Derived {
        comp_scope,
        comp,
        views_of,
        synchronizes,
        reached_by,
        lock_views,
        parts,
        profile,
    }
}

/// Entries of the distinct scopes (each shared scope counted once): what the scopes hold.
fn stored(scopes: &[Scope]) -> usize {
    let mut seen: FxHashSet<*const u32> = FxHashSet::default();
    scopes
        .iter()
        .filter(|s| seen.insert(s.as_ptr()))
        .map(|s| s.len())
        .sum()
}

/// The lock view of one acquisition site: what is accessed while it is held, and the full
/// scopes of the calls made while it is held. Returns the site and the view's fields.
#[allow(clippy::too_many_arguments)]
fn lock_view(
    acc: &mut Accumulator,
    f: &Facts,
    site: u32,
    node_of: &impl Fn(Node) -> Option<usize>,
    full: &[Scope],
    comp: &[usize],
    fields: &FieldTable,
    open: bool,
) -> (u32, FieldSet) {
    let own = f
        .accesses
        .iter()
        .filter(|a| a.held.contains(&site))
        .map(|a| (a.field, a.kind));
    // A call on a fresh receiver brings the callee's scope without the object's own fields.
    let below: Vec<(&Scope, Excluded)> = f
        .calls
        .iter()
        .filter(|c| c.held.contains(&site))
        .flat_map(|c| {
            let ex: Excluded = excluded(c, fields, open);
            c.targets
                .iter()
                .filter_map(move |&t| {
                    node_of(Node {
                        method: t,
                        this_held: c.this_held,
                    })
                })
                .map(move |cn| (&full[comp[cn]], ex.clone()))
        })
        .collect();
    let mut set = acc.union_set(own, below.iter().map(|(s, ex)| (*s, &ex[..])));
    // One entry per field: r when only read, u when written.
    for e in set.iter_mut() {
        e.1 = if e.1 & WRITE != 0 { WRITE } else { READ };
    }
    (site, set)
}

/// The distinct restrictions of lock views to one class, numbered in the order first seen.
#[derive(Default)]
struct Parts {
    list: Vec<(u32, FieldSet)>,
    /// Parts by a hash of their fields (a part's fields name its class).
    ids: FxHashMap<u64, Vec<u32>>,
}

/// A restriction of a view to one class: the class, where it ends in the view's fields, and a
/// hash of its fields.
struct Run {
    class: u32,
    end: usize,
    hash: u64,
}

/// A view's fields (ascending) cut into its restrictions to one class, ascending by class: a
/// class's field ids are contiguous and ascend with the class.
fn runs(set: &[(FieldId, u8)], fields: &FieldTable) -> Vec<Run> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < set.len() {
        let class = fields.owner(set[start].0).0;
        let mut end = start + 1;
        while end < set.len() && fields.owner(set[end].0).0 == class {
            end += 1;
        }
        let mut h = crate::fxhash::FxHasher::default();
        set[start..end].hash(&mut h);
        out.push(Run {
            class,
            end,
            hash: crate::fxhash::mix(h.finish()),
        });
        start = end;
    }
    out
}

impl Parts {
    /// The ids of a view's restrictions ([`runs`]), each new one added.
    fn split(&mut self, set: &[(FieldId, u8)], runs: &[Run]) -> Vec<u32> {
        let mut out = Vec::with_capacity(runs.len());
        let mut start = 0;
        for r in runs {
            let run = &set[start..r.end];
            start = r.end;
            let bucket = self.ids.entry(r.hash).or_default();
            let id = match bucket
                .iter()
                .find(|&&i| self.list[i as usize].1[..] == *run)
            {
                Some(&i) => i,
                None => {
                    let i = self.list.len() as u32;
                    self.list.push((r.class, run.to_vec()));
                    bucket.push(i);
                    i
                }
            };
            out.push(id);
        }
        out
    }
}

/// Fields of the classes whose lock views (restricted to the class) are not totally ordered by
/// inclusion.
///
/// The distinct restrictions of a class form a chain exactly when, sorted by size, each is a
/// subset of the next (two distinct sets of one size never nest), so the check is one pass per
/// class rather than every pair.
fn contested_fields(parts: &[(u32, FieldSet)], fields: &FieldTable) -> Vec<bool> {
    let mut by_class: FxHashMap<u32, Vec<&[(FieldId, u8)]>> = FxHashMap::default();
    for (class, set) in parts {
        by_class.entry(*class).or_default().push(set);
    }
    let mut relevant = vec![false; fields.len()];
    for sets in by_class.values_mut() {
        let subset =
            |a: &[(FieldId, u8)], b: &[(FieldId, u8)]| a.iter().all(|x| b.binary_search(x).is_ok());
        sets.sort_by_key(|s| s.len());
        let chain = sets.windows(2).all(|w| subset(w[0], w[1]));
        if !chain {
            for set in sets.iter() {
                for &(f, _) in set.iter() {
                    relevant[f as usize] = true;
                }
            }
        }
    }
    relevant
}

/// Dynamic scopes per strongly connected component (recursion shares one scope): a component's
/// accesses and its callees'. Only components with a member in `wanted` are computed (`wanted`
/// must be closed under calls); `keep` restricts the fields. `nfields` bounds the field ids.
fn scopes(
    facts: &[Facts],
    edges: &[Vec<usize>],
    fresh: &[Vec<(usize, Excluded)>],
    comp: &[usize],
    wanted: &[bool],
    keep: Option<&[bool]>,
    nfields: usize,
) -> Vec<Scope> {
    let ncomp = comp.iter().copied().max().map_or(0, |m| m + 1);
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); ncomp];
    for (v, &c) in comp.iter().enumerate() {
        if wanted[v] {
            members[c].push(v);
        }
    }
    let kept = |f: FieldId| keep.is_none_or(|k| k[f as usize]);
    // Tarjan numbers components in reverse topological order: callees first. Components on the
    // same level (longest call path below them) do not depend on each other: compute each level
    // in parallel, merging every callee component once.
    let mut level = vec![0u32; ncomp];
    let mut callees: Vec<Vec<usize>> = vec![Vec::new(); ncomp];
    // Callees called only on fresh receivers: merged without the receivers' own fields.
    let mut fresh_callees: Vec<Vec<(usize, Ranges)>> = vec![Vec::new(); ncomp];
    for c in 0..ncomp {
        let is_fresh = |v: usize, w: usize| fresh[v].iter().any(|(x, _)| *x == w);
        let mut cs: Vec<usize> = members[c]
            .iter()
            .flat_map(|&v| edges[v].iter().map(move |&w| (v, w)))
            .filter(|&(v, w)| comp[w] != c && !is_fresh(v, w))
            .map(|(_, w)| comp[w])
            .collect();
        cs.sort_unstable();
        cs.dedup();
        let fc: Vec<(usize, Ranges)> = members[c]
            .iter()
            .flat_map(|&v| fresh[v].iter())
            .map(|(w, ex)| (comp[*w], &ex[..]))
            .filter(|(w, _)| *w != c && cs.binary_search(w).is_err())
            .collect();
        level[c] = cs
            .iter()
            .chain(fc.iter().map(|(w, _)| w))
            .map(|&w| level[w] + 1)
            .max()
            .unwrap_or(0);
        callees[c] = cs;
        fresh_callees[c] = fc;
    }
    let depth = level.iter().copied().max().map_or(0, |m| m as usize + 1);
    let mut by_level: Vec<Vec<usize>> = vec![Vec::new(); depth];
    for c in 0..ncomp {
        if !members[c].is_empty() {
            by_level[level[c] as usize].push(c);
        }
    }
    let empty: Scope = Vec::new().into();
    let mut comp_scope: Vec<Scope> = vec![empty; ncomp];
    // Equal scopes are stored once, whoever computed them (not only a callee's scope handed to
    // its caller): large programs have many components with the same large scope.
    let mut interned: FxHashMap<u64, Vec<Scope>> = FxHashMap::default();
    for comps in &by_level {
        let done = &comp_scope;
        let computed: Vec<(usize, Scope, u64)> = comps
            .par_iter()
            .map_init(
                || Accumulator::new(nfields),
                |acc, &c| {
                    let own = members[c]
                        .iter()
                        .flat_map(|&v| facts[v].accesses.iter())
                        .filter(|a| kept(a.field))
                        .map(|a| (a.field, a.kind));
                    let below = (callees[c].iter().map(|&w| (&done[w], &[][..])))
                        .chain(fresh_callees[c].iter().map(|&(w, ex)| (&done[w], ex)));
                    let set = acc.union(own, below);
                    let mut h = crate::fxhash::FxHasher::default();
                    set.hash(&mut h);
                    (c, set, crate::fxhash::mix(h.finish()))
                },
            )
            .collect();
        for (c, set, h) in computed {
            if set.is_empty() {
                continue;
            }
            let bucket = interned.entry(h).or_default();
            comp_scope[c] = match bucket
                .iter()
                .find(|s| std::sync::Arc::ptr_eq(s, &set) || s[..] == set[..])
            {
                Some(s) => s.clone(),
                None => {
                    bucket.push(set.clone());
                    set
                }
            };
        }
    }
    comp_scope
}

/// A dense union of field sets: a flag byte per field and the list of fields touched, reset
/// after each use. Linear in the sizes of the inputs, however many there are (merging sorted
/// sets pairwise is quadratic in the number of callees).
pub(crate) struct Accumulator {
    flags: Vec<u8>,
    touched: Vec<FieldId>,
    /// The `below` scopes already merged in this union (by address: equal scopes are shared,
    /// and merging one twice adds nothing).
    merged: FxHashSet<usize>,
}

impl Accumulator {
    pub(crate) fn new(nfields: usize) -> Self {
        Accumulator {
            flags: vec![0; nfields],
            touched: Vec::new(),
            merged: FxHashSet::default(),
        }
    }

    fn add(&mut self, f: FieldId, k: u8) {
        let slot = &mut self.flags[f as usize];
        if *slot == 0 {
            self.touched.push(f);
        }
        *slot |= k;
    }

    /// The union of `own` and the `below` scopes, each less the fields of its excluded ranges
    /// ([`Excluded`]: a fresh receiver's own); one of the `below` scopes itself (shared) when
    /// the union equals it.
    fn union<'s, 'e>(
        &mut self,
        own: impl Iterator<Item = (FieldId, u8)>,
        below: impl Iterator<Item = (&'s Scope, &'e [(FieldId, FieldId)])>,
    ) -> Scope {
        let mut largest: Option<&Scope> = None;
        for (f, k) in own {
            self.add(f, k);
        }
        let mut filtered: Vec<(&Scope, &[(FieldId, FieldId)])> = Vec::new();
        for (set, ex) in below {
            if set.is_empty() {
                continue;
            }
            if !ex.is_empty() {
                filtered.push((set, ex));
                continue;
            }
            if !self.merged.insert(set.as_ptr() as usize) {
                continue;
            }
            if largest.is_none_or(|l| l.len() < set.len()) {
                largest = Some(set);
            }
            for &e in set.iter() {
                self.add(entry_field(e), entry_kind(e));
            }
        }
        // A scope merged whole already holds all a filtered merge of it would add.
        for (set, ex) in filtered {
            if self.merged.contains(&(set.as_ptr() as usize)) {
                continue;
            }
            for &e in set.iter() {
                let f = entry_field(e);
                if !is_excluded(ex, f) {
                    self.add(f, entry_kind(e));
                }
            }
        }
        let shared = largest.filter(|l| {
            l.len() == self.touched.len()
                && l.iter()
                    .all(|&e| self.flags[entry_field(e) as usize] == entry_kind(e))
        });
        let out = match shared {
            Some(l) => l.clone(),
            None => {
                self.touched.sort_unstable();
                self.touched
                    .iter()
                    .map(|&f| entry(f, self.flags[f as usize]))
                    .collect()
            }
        };
        for &f in &self.touched {
            self.flags[f as usize] = 0;
        }
        self.touched.clear();
        self.merged.clear();
        out
    }

    /// [`Accumulator::union`] as an owned set.
    pub(crate) fn union_set<'s, 'e>(
        &mut self,
        own: impl Iterator<Item = (FieldId, u8)>,
        below: impl Iterator<Item = (&'s Scope, &'e [(FieldId, FieldId)])>,
    ) -> FieldSet {
        self.union(own, below)
            .iter()
            .map(|&e| (entry_field(e), entry_kind(e)))
            .collect()
    }
}

/// Whether each node synchronizes below its own method-level lock (see
/// [`Views::synchronizes`]).
fn subordinate_sync(facts: &[Facts], edges: &[Vec<usize>], comp: &[usize]) -> Vec<bool> {
    let own = |v: usize| own_subordinate(&facts[v]);
    // `any[v]`: v or a callee takes any lock at all (its own `synchronized` included).
    let ncomp = comp.iter().copied().max().map_or(0, |m| m + 1);
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); ncomp];
    for (v, &c) in comp.iter().enumerate() {
        members[c].push(v);
    }
    let mut comp_any = vec![false; ncomp];
    for c in 0..ncomp {
        comp_any[c] = members[c].iter().any(|&v| {
            !facts[v].regions.is_empty()
                || facts[v].waits
                || edges[v].iter().any(|&w| comp[w] != c && comp_any[comp[w]])
        });
    }
    (0..facts.len())
        .map(|v| own(v) || edges[v].iter().any(|&w| comp_any[comp[w]]))
        .collect()
}

/// A method synchronizes below its own whole-body lock: it waits, opens two regions or more,
/// or opens one that does not cover everything it does (a `synchronized (this)` around the
/// whole body counts like `synchronized`).
fn own_subordinate(f: &Facts) -> bool {
    let own: Vec<u32> = f
        .regions
        .iter()
        .copied()
        .filter(|&s| s != METHOD_SITE)
        .collect();
    match own.len() {
        0 => f.waits,
        1 => {
            f.waits
                || f.accesses.iter().any(|a| !a.held.contains(&own[0]))
                || f.calls.iter().any(|c| !c.held.contains(&own[0]))
        }
        _ => true,
    }
}

/// Tarjan's strongly connected components, iterative. Returns the component of each node,
/// numbered in reverse topological order (a component's successors have smaller numbers).
pub(crate) fn tarjan(edges: &[Vec<usize>]) -> Vec<usize> {
    let n = edges.len();
    const NONE: usize = usize::MAX;
    let mut index = vec![NONE; n];
    let mut low = vec![0; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut comp = vec![NONE; n];
    let mut next_index = 0;
    let mut next_comp = 0;
    for root in 0..n {
        if index[root] != NONE {
            continue;
        }
        let mut call: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next_index;
        low[root] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some(&mut (v, ref mut k)) = call.last_mut() {
            if *k < edges[v].len() {
                let w = edges[v][*k];
                *k += 1;
                if index[w] == NONE {
                    index[w] = next_index;
                    low[w] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    call.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                call.pop();
                if let Some(&(u, _)) = call.last() {
                    low[u] = low[u].min(low[v]);
                }
                if low[v] == index[v] {
                    while let Some(w) = stack.pop() {
                        on_stack[w] = false;
                        comp[w] = next_comp;
                        if w == v {
                            break;
                        }
                    }
                    next_comp += 1;
                }
            }
        }
    }
    comp
}

/// Which threads reach each node: ascending thread numbers, one shared list per distinct set.
///
/// Every member of a component is reached by the same threads, and a component by the threads
/// of its callers' components plus those entering it; so the sets flow over the component DAG
/// once, callers first (components are numbered callees first), each distinct set stored once
/// and each distinct union computed once. Cost: the DAG's edges (a table look-up each) plus
/// the distinct unions, not threads × the explored program.
fn reach(
    threads: &[AbstractThread],
    index: &FxHashMap<Node, usize>,
    edges: &[Vec<usize>],
    comp: &[usize],
) -> Vec<ThreadSet> {
    let ncomp = comp.iter().map(|&c| c + 1).max().unwrap_or(0);
    let mut t = SetTable::default();
    let empty = t.intern(Vec::new());
    // The threads entering each component.
    let mut set_of = vec![empty; ncomp];
    for (ti, th) in threads.iter().enumerate() {
        let single = t.intern(vec![ti as u32]);
        for &e in &th.entries {
            if let Some(&n) = index.get(&Node {
                method: e,
                this_held: false,
            }) {
                let c = comp[n];
                set_of[c] = t.union(set_of[c], single);
            }
        }
    }
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); ncomp];
    for (n, &c) in comp.iter().enumerate() {
        members[c].push(n);
    }
    for c in (0..ncomp).rev() {
        let from = set_of[c];
        if from == empty {
            continue;
        }
        for &n in &members[c] {
            for &w in &edges[n] {
                let cw = comp[w];
                if cw != c {
                    set_of[cw] = t.union(set_of[cw], from);
                }
            }
        }
    }
    comp.iter()
        .map(|&c| t.sets[set_of[c] as usize].clone())
        .collect()
}

/// Distinct thread sets, numbered, and the unions already computed.
#[derive(Default)]
struct SetTable {
    sets: Vec<ThreadSet>,
    ids: FxHashMap<ThreadSet, u32>,
    unions: FxHashMap<(u32, u32), u32>,
}

impl SetTable {
    fn intern(&mut self, set: Vec<u32>) -> u32 {
        let set = ThreadSet::from(set);
        if let Some(&id) = self.ids.get(&set) {
            return id;
        }
        let id = self.sets.len() as u32;
        self.ids.insert(set.clone(), id);
        self.sets.push(set);
        id
    }

    fn union(&mut self, a: u32, b: u32) -> u32 {
        if a == b || self.sets[b as usize].is_empty() {
            return a;
        }
        if self.sets[a as usize].is_empty() {
            return b;
        }
        let key = (a.min(b), a.max(b));
        if let Some(&u) = self.unions.get(&key) {
            return u;
        }
        let (x, y) = (&self.sets[a as usize], &self.sets[b as usize]);
        let mut merged = Vec::with_capacity(x.len() + y.len());
        let (mut i, mut j) = (0, 0);
        while i < x.len() && j < y.len() {
            match x[i].cmp(&y[j]) {
                std::cmp::Ordering::Less => {
                    merged.push(x[i]);
                    i += 1;
                }
                std::cmp::Ordering::Greater => {
                    merged.push(y[j]);
                    j += 1;
                }
                std::cmp::Ordering::Equal => {
                    merged.push(x[i]);
                    i += 1;
                    j += 1;
                }
            }
        }
        merged.extend_from_slice(&x[i..]);
        merged.extend_from_slice(&y[j..]);
        let u = self.intern(merged);
        self.unions.insert(key, u);
        u
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accumulator_unions_and_shares_equal_scopes() {
        let mut acc = Accumulator::new(16);
        let scope =
            |s: &[(FieldId, u8)]| -> Scope { s.iter().map(|&(f, k)| entry(f, k)).collect() };
        let a: Scope = scope(&[(1, READ), (4, WRITE)]);
        let b: Scope = scope(&[(1, WRITE), (2, READ), (9, READ)]);
        let u = acc.union(
            [(4, READ)].into_iter(),
            [(&a, &[][..]), (&b, &[][..])].into_iter(),
        );
        assert_eq!(
            &u[..],
            &scope(&[(1, READ | WRITE), (2, READ), (4, READ | WRITE), (9, READ)])[..]
        );
        assert!(scope_has(&u, 4) && !scope_has(&u, 3));
        // Adding nothing new to the largest callee's scope shares it.
        let same = acc.union(
            [(2, READ)].into_iter(),
            [(&a, &[][..]), (&b, &[][..])].into_iter().skip(1),
        );
        assert!(std::sync::Arc::ptr_eq(&same, &b));
        // A stronger flag is something new.
        let stronger = acc.union([(2, WRITE)].into_iter(), std::iter::once((&b, &[][..])));
        assert!(!std::sync::Arc::ptr_eq(&stronger, &b));
        assert_eq!(
            &stronger[..],
            &scope(&[(1, WRITE), (2, READ | WRITE), (9, READ)])[..]
        );
        // A fresh receiver's own fields are left out of its callee's scope, unless the same
        // scope is also merged whole.
        let fresh = [(0, 2)];
        let without = acc.union(std::iter::empty(), std::iter::once((&b, &fresh[..])));
        assert_eq!(&without[..], &scope(&[(2, READ), (9, READ)])[..]);
        let both = acc.union(
            std::iter::empty(),
            [(&b, &fresh[..]), (&b, &[][..])].into_iter(),
        );
        assert!(std::sync::Arc::ptr_eq(&both, &b));
        // The accumulator is clean after each use.
        let empty = acc.union(std::iter::empty(), std::iter::empty());
        assert!(empty.is_empty());
    }

    /// The thread sets flowed over the component DAG are what one walk per thread finds.
    #[test]
    fn reach_over_components_equals_a_walk_per_thread() {
        // 0 -> 1 -> 2 -> 1 (a cycle), 2 -> 3, 4 -> 3, 5 alone, 6 -> 0; nodes 7.. reached by none.
        let edges: Vec<Vec<usize>> = vec![
            vec![1],
            vec![2],
            vec![1, 3],
            vec![],
            vec![3],
            vec![],
            vec![0],
            vec![8],
            vec![],
        ];
        let node = |i: usize| Node {
            method: MethodId {
                class: i as u32,
                method: 0,
            },
            this_held: false,
        };
        let index: FxHashMap<Node, usize> = (0..edges.len()).map(|i| (node(i), i)).collect();
        let thread = |entries: &[usize]| AbstractThread {
            name: format!("{entries:?}"),
            entries: entries.iter().map(|&e| node(e).method).collect(),
            many: false,
            programs: Vec::new(),
            own: Vec::new(),
            callers: false,
            alone: None,
        };
        let threads = vec![
            thread(&[0]),
            thread(&[4]),
            thread(&[5, 2]),
            thread(&[6]),
            thread(&[]),
        ];
        let comp = tarjan(&edges);
        let got = reach(&threads, &index, &edges, &comp);
        for (n, set) in got.iter().enumerate() {
            let expected: Vec<u32> = threads
                .iter()
                .enumerate()
                .filter(|(_, t)| {
                    let mut seen = vec![false; edges.len()];
                    let mut stack: Vec<usize> =
                        t.entries.iter().map(|m| m.class as usize).collect();
                    while let Some(v) = stack.pop() {
                        if !std::mem::replace(&mut seen[v], true) {
                            stack.extend(edges[v].iter().copied());
                        }
                    }
                    seen[n]
                })
                .map(|(i, _)| i as u32)
                .collect();
            assert_eq!(&set[..], &expected[..], "node {n}");
        }
        // Nodes reached by the same threads share one list.
        assert!(std::sync::Arc::ptr_eq(&got[1], &got[2]));
        assert_eq!(&got[3][..], &[0, 1, 2, 3]);
    }

    #[test]
    fn tarjan_orders_callees_first() {
        // 0 -> 1 -> 2 -> 1 (cycle), 0 -> 3
        let edges = vec![vec![1, 3], vec![2], vec![1], vec![]];
        let c = tarjan(&edges);
        assert_eq!(c[1], c[2]);
        assert!(c[1] < c[0] && c[3] < c[0]);
        assert_ne!(c[3], c[1]);
    }
}
