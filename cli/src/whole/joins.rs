//! Where a program's `main` runs alone: before it starts its first thread, and once it has
//! waited for every thread it started (`join()`, a future's `get()`, a pool's
//! `awaitTermination`). The literature's programs start their workers, join them and then read
//! the results (`rt.stats.summary()` after `for (Thread t : ts) t.join()`); what `main` does
//! there runs beside no other thread of its program, so it is neither a concurrent writer nor
//! a concurrent view of anything the workers do.
//!
//! Only a `main` that starts every thread of its program itself is looked at (a thread started
//! elsewhere, by a helper or by another thread, may outlive every join `main` makes). A start
//! is waited for on a path that passes:
//! - a `join()` (or a future's `get()`/`join()`) of the very object the start made (the same
//!   `new`, kept in a local), outside any loop the start is in;
//! - a loop that joins the elements of the array the start's thread was stored in, or of a
//!   container it was handed to (`for (Thread t : ts) t.join()`, `for (Future<?> f : futures)
//!   f.get()`): past the loop, every element was waited for; inside it, the others still run;
//! - `awaitTermination`/`close` of the pool the task was handed to;
//! - the handing over itself, for a call that returns when the task is done
//!   (`ForkJoinPool.invoke`).
//!
//! A timed `join(millis)` waits for nothing. An exception out of a waiting call (an
//! interrupted `join()`), or out of an instruction that is no call (a local's load in the `try`
//! around the joining loop), is not followed: the programs that catch it go on as if joined.

use crate::analysis::engine::{self, Frame, Observer, Observing};
use crate::analysis::locks::Sym;
use crate::bytecode::cfg::Cfg;
use crate::bytecode::{Code, InvokeKind, Op};
use crate::fxhash::{FxHashMap, FxHashSet};
use crate::program::{MethodId, Program};

/// What waits for a task a method hands to a thread.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Handle {
    /// The thread or future object whose `join()` or `get()` returns once the task has run
    /// (`Sym::Unknown`: none the method names).
    pub object: Sym,
    /// The pool whose `awaitTermination` or `close` waits for it (`Sym::Unknown`: none).
    pub pool: Sym,
    /// The call that hands the task over returns once it has run.
    pub done: bool,
}

impl Handle {
    pub const NONE: Handle = Handle {
        object: Sym::Unknown,
        pool: Sym::Unknown,
        done: false,
    };
}

/// A thread started at instruction `at` of a method, and what waits for it.
#[derive(Debug, Clone, Copy)]
struct Start {
    at: u32,
    handle: Handle,
}

const THREADS: &[&str] = &["java/lang/Thread"];
const FUTURES: &[&str] = &[
    "java/util/concurrent/Future",
    "java/util/concurrent/FutureTask",
    "java/util/concurrent/CompletableFuture",
    "java/util/concurrent/ForkJoinTask",
    "java/util/concurrent/RecursiveTask",
    "java/util/concurrent/RecursiveAction",
];
const JOINABLE_FUTURES: &[&str] = &[
    "java/util/concurrent/CompletableFuture",
    "java/util/concurrent/ForkJoinTask",
    "java/util/concurrent/RecursiveTask",
    "java/util/concurrent/RecursiveAction",
];
const POOLS: &[&str] = &[
    "java/util/concurrent/ExecutorService",
    "java/util/concurrent/AbstractExecutorService",
    "java/util/concurrent/ThreadPoolExecutor",
    "java/util/concurrent/ScheduledExecutorService",
    "java/util/concurrent/ScheduledThreadPoolExecutor",
    "java/util/concurrent/ForkJoinPool",
];

fn is_a(p: &Program, class: &str, supers: &[&str]) -> bool {
    supers.iter().any(|s| p.is_subclass_of(class, s))
}

/// A call that waits: for the object (or pool) it is called on.
struct Wait {
    at: u32,
    pool: bool,
    receiver: Sym,
    /// The instruction that read the receiver out of an array or a container (`aaload`, an
    /// iterator's `next()`), in the same block.
    origin: Option<u32>,
}

struct Waits<'a> {
    p: &'a Program,
    id: MethodId,
    cfg: &'a Cfg,
    /// The array each element read (`aaload`) reads from.
    arrays: FxHashMap<u32, Sym>,
    /// `(array, value)` of each element store.
    stored: Vec<(Sym, Sym)>,
    /// Objects passed to a call (into a container, among others).
    passed: Vec<Sym>,
    waits: Vec<Wait>,
}

impl Observer for Waits<'_> {
    fn observe(&mut self, at: u32, frame: &Frame<()>) {
        let class = self.p.class(self.id.class);
        let Some(code) = &self.p.method(self.id).code else {
            return;
        };
        let depth = frame.stack.len();
        let sym = |below: usize| depth.checked_sub(below).map(|k| frame.stack[k].sym);
        match code.insns[at as usize].op {
            Op::ArrayLoad(1) => {
                if let Some(array) = sym(2) {
                    self.arrays.insert(at, array);
                }
            }
            Op::ArrayStore(1) => {
                if let (Some(array), Some(value)) = (sym(3), sym(1)) {
                    self.stored.push((array, value));
                }
            }
            Op::Invoke(kind, r) => {
                let m = class.member(r);
                let receiver = usize::from(kind != InvokeKind::Static);
                let Some(first) = depth.checked_sub(m.arg_slots as usize + receiver) else {
                    return;
                };
                let args = &frame.stack[first + receiver..];
                self.passed.extend(
                    (args.iter())
                        .map(|s| s.sym)
                        .filter(|s| matches!(s, Sym::Value(_))),
                );
                if kind == InvokeKind::Static {
                    return;
                }
                let p = self.p;
                let pool = match (&*m.name, &*m.desc) {
                    ("join", "()V") if is_a(p, &m.class, THREADS) => false,
                    ("get", "()Ljava/lang/Object;") if is_a(p, &m.class, FUTURES) => false,
                    ("join", "()Ljava/lang/Object;") if is_a(p, &m.class, JOINABLE_FUTURES) => {
                        false
                    }
                    ("awaitTermination", "(JLjava/util/concurrent/TimeUnit;)Z")
                    | ("close", "()V")
                        if is_a(p, &m.class, POOLS) =>
                    {
                        true
                    }
                    _ => return,
                };
                self.waits.push(Wait {
                    at,
                    pool,
                    receiver: frame.stack[first].sym,
                    origin: (!pool).then(|| origin(code, self.cfg, at)).flatten(),
                });
            }
            _ => {}
        }
    }
}

/// The instruction that pushed the receiver of the call at `at` when it read it out of an
/// array or a container, directly or through a local stored earlier in the block (`t =
/// ts[i]; t.join()`, `f = (Future) it.next(); f.get()`).
fn origin(code: &Code, cfg: &Cfg, at: u32) -> Option<u32> {
    let start = cfg.blocks[cfg.block_of[at as usize] as usize].start;
    let before = |k: u32| -> Option<u32> {
        let mut k = k.checked_sub(1).filter(|&k| k >= start)?;
        if matches!(code.insns[k as usize].op, Op::CheckCast) {
            k = k.checked_sub(1).filter(|&k| k >= start)?;
        }
        Some(k)
    };
    let mut k = before(at)?;
    if let Op::Load(local, 1) = code.insns[k as usize].op {
        let store = (start..k)
            .rev()
            .find(|&s| matches!(code.insns[s as usize].op, Op::Store(l, 1) if l == local))?;
        k = before(store)?;
    }
    matches!(code.insns[k as usize].op, Op::ArrayLoad(1) | Op::Invoke(..)).then_some(k)
}

/// Code of the main thread where no other thread of its program runs: the instructions `at`
/// of `method`, by index.
#[derive(Debug, Clone)]
pub struct Alone {
    pub method: MethodId,
    pub at: Vec<bool>,
}

/// A thread the programs start, as [`alone_per_program`] sees it.
pub struct Thread<'a> {
    /// The programs (indices of their `main`s) it belongs to.
    pub programs: &'a [u32],
    pub entries: &'a [MethodId],
    /// Each start: where, and what waits for it.
    pub starts: &'a [((MethodId, u32), Handle)],
}

/// For each program (by index into `mains`): where its main thread runs alone, when one method
/// makes every start of the program's threads (`main` itself, or a method that only the main
/// thread runs and that returns only once it has waited for every thread it started, so that
/// no call of it leaves one running). `callees` gives the methods a method may call (the walk
/// that finds what the started threads run).
pub fn alone_per_program(
    p: &Program,
    mains: &[MethodId],
    threads: &[Thread<'_>],
    callees: impl Fn(MethodId) -> Vec<MethodId>,
) -> Vec<Option<Alone>> {
    let mut out: Vec<Option<Alone>> = vec![None; mains.len()];
    // The one method that makes every start of each program.
    let starter: Vec<Option<MethodId>> = (0..mains.len() as u32)
        .map(|i| {
            let mut sites = (threads.iter())
                .filter(|t| t.programs.contains(&i))
                .flat_map(|t| t.starts.iter().map(|(site, _)| site.0));
            let first = sites.next()?;
            sites.all(|m| m == first).then_some(first)
        })
        .collect();
    let mut candidates: Vec<MethodId> = starter.iter().flatten().copied().collect();
    candidates.sort_unstable();
    candidates.dedup();
    if candidates.is_empty() {
        return out;
    }
    // What the started threads run: no code of the main thread alone.
    let mut run: FxHashSet<MethodId> = FxHashSet::default();
    let mut work: Vec<MethodId> = threads
        .iter()
        .flat_map(|t| t.entries.iter().copied())
        .collect();
    while let Some(m) = work.pop() {
        if run.insert(m) {
            work.extend(callees(m));
        }
    }
    for m in candidates {
        if run.contains(&m) {
            continue;
        }
        let mut programs: Vec<u32> = Vec::new();
        let mut starts: Vec<Start> = Vec::new();
        for t in threads {
            let here: Vec<Start> = (t.starts.iter())
                .filter(|(site, _)| site.0 == m)
                .map(|&(site, handle)| Start { at: site.1, handle })
                .collect();
            if !here.is_empty() {
                programs.extend(t.programs);
                starts.extend(here);
            }
        }
        programs.sort_unstable();
        programs.dedup();
        // Every program that starts a thread here starts all of them here.
        if programs.iter().any(|&k| starter[k as usize] != Some(m)) {
            continue;
        }
        let at = alone_in(p, m, &starts);
        if at.is_empty() || !(mains.contains(&m) || returns_alone(p, m, &at)) {
            continue;
        }
        for k in programs {
            out[k as usize] = Some(Alone {
                method: m,
                at: at.clone(),
            });
        }
    }
    out
}

/// Whether every return of method `m` is where it runs alone: a call of it leaves no thread it
/// started running.
fn returns_alone(p: &Program, m: MethodId, at: &[bool]) -> bool {
    (p.method(m).code.iter())
        .flat_map(|c| c.insns.iter().enumerate())
        .all(|(i, insn)| !matches!(insn.op, Op::Return(_)) || at.get(i).copied().unwrap_or(false))
}

/// The instructions of method `id` (which makes every start in `starts`)
/// where no thread it started runs: reached from no start without passing what waits for it
/// (see the module's documentation). Empty when the method cannot be analysed.
fn alone_in(p: &Program, id: MethodId, starts: &[Start]) -> Vec<bool> {
    let Some(code) = &p.method(id).code else {
        return Vec::new();
    };
    let n = code.insns.len();
    let cfg = Cfg::build(code);
    let mut w = Waits {
        p,
        id,
        cfg: &cfg,
        arrays: FxHashMap::default(),
        stored: Vec::new(),
        passed: Vec::new(),
        waits: Vec::new(),
    };
    if engine::run_method_on(p, id, false, &cfg, &mut Observing(&mut w)).is_err() {
        return Vec::new();
    }
    // Loops: the strongly connected components of the blocks with a cycle.
    let edges: Vec<Vec<usize>> = (cfg.blocks.iter())
        .map(|b| b.succs.iter().map(|&s| s as usize).collect())
        .collect();
    let comp = super::views::tarjan(&edges);
    let mut size = vec![0usize; comp.iter().map(|&c| c + 1).max().unwrap_or(0)];
    for &c in &comp {
        size[c] += 1;
    }
    let loop_of = |at: u32| -> Option<usize> {
        let b = cfg.block_of[at as usize] as usize;
        (size[comp[b]] > 1 || edges[b].contains(&b)).then_some(comp[b])
    };
    let mut reached = vec![false; n];
    for s in starts {
        if s.handle.done {
            continue;
        }
        let h = s.handle;
        let start_loop = loop_of(s.at);
        // Calls that wait for this start, and loops that wait for it (once left).
        let mut stops: Vec<u32> = Vec::new();
        let mut loops: Vec<usize> = Vec::new();
        for wait in &w.waits {
            if wait.pool {
                if h.pool != Sym::Unknown && wait.receiver == h.pool {
                    stops.push(wait.at);
                }
                continue;
            }
            if h.object == Sym::Unknown {
                continue;
            }
            if wait.receiver == h.object {
                // The object one start made: outside the start's loop, only the last one.
                if start_loop.is_none() || start_loop == loop_of(wait.at) {
                    stops.push(wait.at);
                }
                continue;
            }
            let element = wait.origin.is_some_and(|o| {
                match code.insns[o as usize].op {
                    Op::ArrayLoad(_) => w.arrays.get(&o).is_some_and(|&array| {
                        array != Sym::Unknown && w.stored.contains(&(array, h.object))
                    }),
                    // Read back out of a container it was handed to.
                    _ => w.passed.contains(&h.object),
                }
            });
            if let Some(l) = loop_of(wait.at).filter(|&l| element && Some(l) != start_loop) {
                loops.push(l);
            }
        }
        let mut seen = vec![false; n];
        let mut work: Vec<u32> = successors(&cfg, code, s.at).collect();
        while let Some(i) = work.pop() {
            if std::mem::replace(&mut seen[i as usize], true) || stops.contains(&i) {
                continue;
            }
            reached[i as usize] = true;
            if let Some(l) = loop_of(i).filter(|l| loops.contains(l)) {
                // Inside the joining loop the other threads still run; past it, none does.
                for (b, block) in cfg.blocks.iter().enumerate() {
                    if comp[b] == l {
                        for k in block.start..block.end {
                            reached[k as usize] = true;
                            seen[k as usize] = true;
                        }
                    }
                }
                continue;
            }
            work.extend(successors(&cfg, code, i));
        }
    }
    reached.iter().map(|r| !r).collect()
}

/// The instructions that may run right after the one at `at`: the next one in its block, or
/// the first of each successor block; and, for a call or a `throw`, the handlers that cover it
/// (a local's load or an element's read throws only on a bug: `try { for (Thread t : ts)
/// t.join(); } catch (InterruptedException e) { .. }` goes on as joined).
fn successors<'a>(cfg: &'a Cfg, code: &Code, at: u32) -> impl Iterator<Item = u32> + 'a {
    let b = &cfg.blocks[cfg.block_of[at as usize] as usize];
    let next = (at + 1 < b.end).then_some(at + 1);
    let follow = (at + 1 >= b.end && (at as usize) < code.insns.len()).then_some(&b.succs);
    let throws =
        (code.insns.get(at as usize)).is_some_and(|i| matches!(i.op, Op::Invoke(..) | Op::Athrow));
    next.into_iter()
        .chain(
            follow
                .into_iter()
                .flatten()
                .map(|&s| cfg.blocks[s as usize].start),
        )
        .chain(
            (cfg.handlers_at[at as usize].iter())
                .filter(move |_| throws)
                .map(|&h| cfg.blocks[h as usize].start),
        )
}
