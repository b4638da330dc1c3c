//! The thread model: the world (an application or a library), abstract threads, their entry
//! methods, how many instances each stands for, and which program each belongs to.
//!
//! Application (closed world): the entry `main`s (see [`find`]), each a program of its own, and
//! the threads whose start it reaches (a walk over calls, lambdas and started threads):
//! `run()` of `Thread` subclasses that are constructed (when the program starts threads at
//! all); `Runnable`/`Callable`/`Supplier`/`TimerTask`/fork-join task objects, lambdas and
//! method references handed to a thread by the JDK's API ([`TASK_SINKS`]): `Thread`
//! constructors, `Thread.startVirtualThread`, the `Thread.ofVirtual()` and `Thread.ofPlatform()`
//! builders (`start`, `unstarted`) and thread factories (`newThread`), executors (the
//! virtual-thread-per-task one included), completion services, fork/join pools and tasks,
//! `CompletableFuture.*Async` and a completion stage's functions (`thenApply`, `whenComplete`),
//! structured task scopes (`fork`), timers and scheduled executors, and the AWT/Swing event
//! thread; a task a factory method of the program returns is the task it creates. A thread
//! created in a loop, at several sites or in a method that runs more than once, or handed to a
//! pool, stands for many concurrent instances (concurrent with itself). Threads of different
//! programs never run together ([`concurrent`]).
//!
//! Library (open world): every public method of a scanned class that synchronizes (or is
//! annotated `@ThreadSafe`) may be called by many concurrent threads; they form one abstract
//! thread with many instances.

use rayon::prelude::*;

use crate::analysis::engine::{self, Frame, Observer, Observing};
use crate::analysis::locks::Sym;
use crate::bytecode::cfg::Cfg;
use crate::bytecode::{acc, InvokeKind, Op};
use crate::fxhash::{FxHashMap, FxHashSet};
use crate::program::{MethodId, Program};
use crate::whole::fields::FieldTable;
use crate::whole::joins::Handle;

/// One abstract thread.
#[derive(Debug, Clone)]
pub struct AbstractThread {
    pub name: String,
    pub entries: Vec<MethodId>,
    /// Stands for several concurrent instances.
    pub many: bool,
    /// The programs (indices of entry `main`s) the thread belongs to: the main itself, or the
    /// mains from which its start is reachable. Empty: every program (a library's callers and
    /// threads). Threads of different programs never run together.
    pub programs: Vec<u32>,
    /// When its one entry is the `run()` of a subclass of `Thread`, the thread runs on that
    /// object, once (`start()`): the subclass and its superclasses below `Thread`, whose
    /// fields are each instance's own (see [`conflict`]). Empty otherwise.
    pub own: Vec<u32>,
    /// The library's unknown callers (the open world's thread): they share what a class meant
    /// for concurrent use holds, see [`callers_share`].
    pub callers: bool,
    /// For a program's `main` thread: the code where no other thread of its program runs
    /// (before the first start, after the joins: [`super::joins`]), when it is known.
    pub alone: Option<super::joins::Alone>,
}

impl AbstractThread {
    /// Whether the thread is one program's `main` alone (one instance, entered only at `main`):
    /// a writer that may never run beside the code it conflicts with, which ranks lower.
    pub fn only_main(&self, p: &crate::program::Program) -> bool {
        !self.many && self.entries.iter().all(|&m| &*p.method(m).name == "main")
    }

    /// Whether an instance of `self` and one of `other` (the thread at the same index when
    /// `same`) can run at the same time.
    pub fn concurrent_with(&self, other: &AbstractThread, same: bool) -> bool {
        if same {
            return self.many;
        }
        self.programs.is_empty()
            || other.programs.is_empty()
            || self.programs.iter().any(|p| other.programs.contains(p))
    }
}

/// Whether the threads at indices `a` and `b` of `threads` can run at the same time.
pub fn concurrent(threads: &[AbstractThread], a: u32, b: u32) -> bool {
    threads[a as usize].concurrent_with(&threads[b as usize], a == b)
}

/// Whether the threads at indices `a` and `b` can touch one instance of a field declared in
/// class `field_class` at the same time: they are concurrent, unless they are two instances of
/// one thread that runs on its own object (a `Thread` subclass's `run()`) and the field is one
/// of that object's own. Each instance then has its own field: `if (leader != null)
/// setLeader(null);` in a server thread's loop races with no other instance of the loop.
/// (Another thread, or a public method of the subclass that any caller runs, still writes the
/// same object's field.)
pub fn conflict(threads: &[AbstractThread], a: u32, b: u32, field_class: u32) -> bool {
    if a == b && threads[a as usize].own.contains(&field_class) {
        return false;
    }
    concurrent(threads, a, b)
}

/// Whether the library's unknown callers share the state of the thread-safe object held in
/// field `field`: always, except for a legacy synchronized collection (`legacy` in the platform
/// model: `Vector`, `Stack`, `Hashtable`) held in an instance field of a class that takes no
/// lock of its own (nor does a superclass) and is not annotated as thread-safe (a static one is
/// one collection for every caller). Such a collection is synchronized for
/// compatibility, and code holds one out of habit or for its API (a Swing model, a parser's
/// stack, a naming result), not because threads share its holder; a class that synchronizes
/// nothing is no entry of the open world, and its objects are the per-call state of the code
/// that runs it. A concurrent collection (`ConcurrentHashMap`) is chosen for concurrent use and
/// stays shared wherever it is held; in an application, the threads the program starts say who
/// shares what, whatever the collection.
pub fn callers_share(
    p: &Program,
    fields: &FieldTable,
    field: crate::whole::facts::FieldId,
    thread_safe_annotations: &[String],
) -> bool {
    let (holder, index) = fields.owner(field);
    // A static field is one collection for every caller, whatever its class does.
    let is_static =
        p.class(holder).fields[index as usize].access & crate::bytecode::acc::STATIC != 0;
    if !fields.is_legacy(field) || is_static {
        return true;
    }
    let mut class = Some(holder);
    let mut steps = 0;
    while let Some(ci) = class {
        let c = p.class(ci);
        if meant_for_callers(p, c, thread_safe_annotations) {
            return true;
        }
        steps += 1;
        class = c
            .super_name
            .as_deref()
            .and_then(|s| p.class_index(s))
            .filter(|_| steps < 64);
    }
    false
}

/// Whether the threads are a library's unknown callers (open world).
pub fn open_world(threads: &[AbstractThread]) -> bool {
    !threads.is_empty() && threads.iter().all(|t| t.callers)
}

/// Whether code of class `code` operates on the fields of class `owner` as its own: a class of
/// the same nest (an inner class reaches its outer instance's fields), a subclass or a
/// superclass. In a library, two such operations on the fields of one object are what its
/// unknown callers run concurrently on an object they share: the open world's assumption
/// itself. Code of another class reaches the object through others (a client handed it, a
/// chain of fields), and whether two such paths lead to one object the library does not say.
pub fn own_operation(p: &Program, code: u32, owner: u32) -> bool {
    let (a, b) = (&p.class(code).name, &p.class(owner).name);
    crate::program::nest(a) == crate::program::nest(b)
        || p.is_subclass_idx(code, owner)
        || p.is_subclass_idx(owner, code)
}

/// Whether method `m` is a signal that its interface's contract calls serially on one object
/// (`serial` in the platform model: a `Flow.Subscriber`'s or a Reactive Streams subscriber's
/// `onNext`, `onError`, `onComplete`, `onSubscribe`; a `Thread`'s `run()`, which a thread runs
/// once, on itself), an instance method of a class that implements the interface (extends the
/// class). Two such signals never run at once on one subscriber.
pub fn serial_signal(p: &Program, m: MethodId) -> bool {
    let method = p.method(m);
    if method.is_static() {
        return false;
    }
    let class = &p.class(m.class).name;
    p.thread_safe
        .serial_interfaces(&method.name)
        .any(|i| p.is_subclass_of(class, i))
}

/// Whether method `other` and a serial signal of class `signal` are two signals of one
/// subscriber (see [`own_operation`]) on fields of `owner` that are its state (see
/// [`receives`]): the contract sends them one at a time, so neither runs between the
/// other's sections on the same object. Not when `owner` has a static field that is neither
/// final nor volatile: every subscriber (every thread body) shares that one, and two of them
/// run at once.
pub fn serial_with(p: &Program, signal: u32, other: MethodId, owner: u32) -> bool {
    receives(p, signal, owner)
        && receives(p, other.class, owner)
        && own_operation(p, signal, other.class)
        && serial_signal(p, other)
        && !shared_statics(p, owner)
}

/// Whether class `owner` has a static field that is neither final nor volatile: one every
/// subscriber or thread body shares, so two of them touch it at once.
pub fn shared_statics(p: &Program, owner: u32) -> bool {
    use crate::bytecode::acc::{FINAL, STATIC, VOLATILE};
    (p.class(owner).fields.iter()).any(|f| f.access & (STATIC | FINAL | VOLATILE) == STATIC)
}

/// Whether the fields of class `owner` are state of the object that receives the signals of
/// class `signal`: its own fields (`owner` is the class or a supertype), or those of a class
/// declared inside it (a subscriber's linked nodes, a thread's work items). A class declared
/// beside it (another member of the same outer class: an account the threads are handed) is
/// shared between receivers, and is not.
fn receives(p: &Program, signal: u32, owner: u32) -> bool {
    p.is_subclass_idx(signal, owner)
        || p.class(owner)
            .name
            .strip_prefix(&*p.class(signal).name)
            .is_some_and(|rest| rest.starts_with('$'))
}

/// Whether a class is meant for concurrent callers: it synchronizes itself, or carries a
/// thread-safe annotation. Its public methods are the entries of the open world.
fn meant_for_callers(
    p: &Program,
    c: &crate::bytecode::Class,
    thread_safe_annotations: &[String],
) -> bool {
    let annotated = c.annotations.iter().any(|a| {
        (thread_safe_annotations.iter()).any(|n| crate::bytecode::annotation_simple_name(a) == n)
    });
    annotated || crate::analysis::locks::class_synchronizes(p, c)
}

/// [`conflict`] for the variable `var` of the causal graph: two instances of the library's
/// unknown callers do not race on a variable they do not share ([`callers_share`]).
pub fn conflict_on(
    p: &Program,
    threads: &[AbstractThread],
    fields: &FieldTable,
    (a, b): (u32, u32),
    var: crate::whole::causal::Var,
) -> bool {
    use crate::whole::causal::{var_field, var_kind, CONTENTS, STATE};
    let field = var_field(var);
    let callers = threads[a as usize].callers && threads[b as usize].callers;
    if callers
        && var_kind(var) == STATE
        && !callers_share(p, fields, field, &p.config.thread_safe_annotations)
    {
        return false;
    }
    // A plain collection's contents: nothing in a library says that its unknown callers share
    // the object that holds one (a concurrent collection is chosen for concurrent use; a
    // `HashMap` under a lock is as often the per-request or per-configuration state of the
    // caller that made its holder). Only the threads a program starts race on them.
    if callers && var_kind(var) == CONTENTS {
        return false;
    }
    conflict(threads, a, b, fields.owner(field).0)
}

/// For each explored node of `g`: the class whose thread body alone runs it, on the body's
/// own object. A thread body is the `run()` of a subclass of `Thread`, which a thread runs
/// once, on itself (`Thread.start`: never twice); it owns its node, and a node that no thread
/// enters directly and whose every call comes from nodes that body owns, on `this`, is the
/// body's too (a protected setter only its loop calls). `None` for every other node: one a
/// thread enters (a public method of the open world's callers), or one reached from two bodies
/// or from other code. In a library, where one abstract thread stands for every caller, this
/// says which code runs only in the thread of the object it works on.
pub fn body_owned(
    p: &Program,
    g: &crate::whole::views::Graph,
    threads: &[AbstractThread],
) -> Vec<Option<u32>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Own {
        Unknown,
        Body(u32),
        Not,
    }
    let entries: crate::fxhash::FxHashSet<MethodId> = threads
        .iter()
        .flat_map(|t| t.entries.iter().copied())
        .collect();
    let n = g.nodes.len();
    // Who calls each node, and whether every such call is on `this`.
    let mut callers: Vec<Vec<(usize, bool)>> = vec![Vec::new(); n];
    for (m, f) in g.facts.iter().enumerate() {
        for c in &f.calls {
            for k in g.callee_nodes(c) {
                callers[k].push((m, c.on_this));
            }
        }
    }
    let body: Vec<bool> = (g.nodes.iter())
        .map(|node| &*p.method(node.method).name == "run" && !thread_own(p, node.method).is_empty())
        .collect();
    let mut own: Vec<Own> = (0..n)
        .map(|k| {
            let id = g.nodes[k].method;
            if body[k] {
                Own::Body(id.class)
            } else if entries.contains(&id) || callers[k].is_empty() {
                Own::Not
            } else {
                Own::Unknown
            }
        })
        .collect();
    // Down from "unknown" to one body or none, until nothing changes (each node moves at most
    // twice).
    let mut changed = true;
    while changed {
        changed = false;
        for k in 0..n {
            if own[k] == Own::Not || body[k] {
                continue;
            }
            let mut next = Own::Unknown;
            for &(m, on_this) in &callers[k] {
                next = match (next, own[m]) {
                    _ if !on_this => Own::Not,
                    (_, Own::Not) | (Own::Not, _) => Own::Not,
                    (x, Own::Unknown) => x,
                    (Own::Unknown, Own::Body(c)) => Own::Body(c),
                    (Own::Body(a), Own::Body(b)) if a == b => Own::Body(a),
                    _ => Own::Not,
                };
                if next == Own::Not {
                    break;
                }
            }
            if next != own[k] && next != Own::Unknown {
                own[k] = next;
                changed = true;
            }
        }
    }
    own.into_iter()
        .map(|o| match o {
            Own::Body(c) => Some(c),
            _ => None,
        })
        .collect()
}

/// The classes whose instance fields a thread body of class `class` (see [`body_owned`]) has
/// of its own: the class and its superclasses below `Thread`.
pub fn body_classes(p: &Program, class: u32) -> Vec<u32> {
    let c = p.class(class);
    (c.methods.iter().enumerate())
        .find(|(_, m)| &*m.name == "run" && &*m.descriptor == "()V")
        .map(|(mi, _)| {
            thread_own(
                p,
                MethodId {
                    class,
                    method: mi as u32,
                },
            )
        })
        .unwrap_or_default()
}

/// When `id` is the `run()` of a subclass of `Thread` (a thread's entry that runs on its own
/// object): the subclass and its superclasses in the program below `Thread`.
fn thread_own(p: &Program, id: MethodId) -> Vec<u32> {
    let c = p.class(id.class);
    let m = p.method(id);
    if &*m.name != "run"
        || &*m.descriptor != "()V"
        || m.is_static()
        || &*c.name == "java/lang/Thread"
        || !p.is_subclass_of(&c.name, "java/lang/Thread")
    {
        return Vec::new();
    }
    let mut own = vec![id.class];
    let mut at = c;
    while let Some(ci) = at
        .super_name
        .as_deref()
        .filter(|s| *s != "java/lang/Thread")
        .and_then(|s| p.class_index(s))
    {
        if own.contains(&ci) || own.len() > 64 {
            break;
        }
        own.push(ci);
        at = p.class(ci);
    }
    own
}

/// What the user says the scanned code is (`--world`, `world` in `stalecheck.toml`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum WorldChoice {
    /// Decide from the packaging: see [`find`].
    #[default]
    Auto,
    /// A library: its public API is called from many threads.
    Library,
    /// An application: its `main` methods are the programs.
    Application,
}

impl WorldChoice {
    pub fn parse(s: &str) -> Option<WorldChoice> {
        match s {
            "auto" => Some(WorldChoice::Auto),
            "library" => Some(WorldChoice::Library),
            "application" => Some(WorldChoice::Application),
            _ => None,
        }
    }
}

/// The world the whole-program rules analyse, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct World {
    pub application: bool,
    /// Asked for (`--world`, `--open-world`, `world` in `stalecheck.toml`), not decided from
    /// the packaging.
    pub requested: bool,
    /// The entry points used: mains (dotted `Class.main`) or, in a library, how many public
    /// methods.
    pub entries: Vec<String>,
    /// How many threads the code starts (that the entry points reach, in an application).
    pub started: usize,
}

impl World {
    pub fn describe(&self) -> String {
        let why = if self.requested { "asked for" } else { "auto" };
        let started = match self.started {
            0 => String::new(),
            1 => ", and the thread it starts".to_string(),
            n => format!(", and the {n} threads it starts"),
        };
        if self.application {
            let shown: Vec<&str> = self.entries.iter().take(5).map(String::as_str).collect();
            let more = match self.entries.len().saturating_sub(5) {
                0 => String::new(),
                n => format!(" and {n} more"),
            };
            format!(
                "closed world: an application ({why}; entry points {}{more}, each a separate program{started})",
                shown.join(", ")
            )
        } else {
            format!(
                "open world: a library ({why}; {} called by any thread{started})",
                self.entries
                    .first()
                    .map_or("no public method", String::as_str)
            )
        }
    }
}

/// What a call does with the task it is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sink {
    /// Starts one new thread running the task now (`Thread.startVirtualThread`,
    /// `Thread.Builder.start`, `StructuredTaskScope.fork`).
    Starts,
    /// Creates a thread for the task that the program starts later (`new Thread(r)`,
    /// `Thread.Builder.unstarted`, `ThreadFactory.newThread`): counted only when the program
    /// starts threads at all.
    Creates,
    /// Hands the task to a pool or timer that may run it on several threads at once (executors,
    /// `CompletableFuture.*Async`, timers, fork/join).
    Pool,
    /// Hands the task to the one event dispatch thread (`EventQueue.invokeLater`).
    EventThread,
}

const THREAD_BUILDERS: [&str; 3] = [
    "java/lang/Thread$Builder",
    "java/lang/Thread$Builder$OfPlatform",
    "java/lang/Thread$Builder$OfVirtual",
];

/// `CompletableFuture` methods that run a function on the pool (the `*Async` family).
const COMPLETABLE_ASYNC: &[&str] = &[
    "runAsync",
    "supplyAsync",
    "thenApplyAsync",
    "thenAcceptAsync",
    "thenRunAsync",
    "thenCombineAsync",
    "thenAcceptBothAsync",
    "runAfterBothAsync",
    "applyToEitherAsync",
    "acceptEitherAsync",
    "runAfterEitherAsync",
    "thenComposeAsync",
    "whenCompleteAsync",
    "handleAsync",
    "exceptionallyAsync",
    "exceptionallyComposeAsync",
    "completeAsync",
];

/// `CompletionStage` methods whose function runs when the stage completes, in the thread that
/// completes it (a pool's, for a stage an `*Async` call made) or, already complete, in the
/// caller's: tasks like the `*Async` family's, which several stages run at once.
const COMPLETION_STAGES: &[&str] = &[
    "thenApply",
    "thenAccept",
    "thenRun",
    "thenCombine",
    "thenAcceptBoth",
    "runAfterBoth",
    "applyToEither",
    "acceptEither",
    "runAfterEither",
    "thenCompose",
    "whenComplete",
    "handle",
    "exceptionally",
    "exceptionallyCompose",
];

/// Calls that hand a task to another thread, from the JDK's documented API: `(class, method,
/// what happens)`. A call matches when its class is the named one or a subtype of it known to
/// the program. The task is any argument (or, for `ForkJoinTask.fork`, the receiver) that is a
/// task object created or a lambda made in the same method. Tasks handed over inside a
/// collection (`ExecutorService.invokeAll`) are not followed.
const TASK_SINKS: &[(&str, &str, Sink)] = &[
    ("java/lang/Thread", "<init>", Sink::Creates),
    ("java/lang/Thread", "startVirtualThread", Sink::Starts),
    (THREAD_BUILDERS[0], "start", Sink::Starts),
    (THREAD_BUILDERS[1], "start", Sink::Starts),
    (THREAD_BUILDERS[2], "start", Sink::Starts),
    (THREAD_BUILDERS[0], "unstarted", Sink::Creates),
    (THREAD_BUILDERS[1], "unstarted", Sink::Creates),
    (THREAD_BUILDERS[2], "unstarted", Sink::Creates),
    // Also the factories of `Thread.Builder.factory()` and `Executors.*ThreadFactory()`.
    (
        "java/util/concurrent/ThreadFactory",
        "newThread",
        Sink::Creates,
    ),
    ("java/util/concurrent/Executor", "execute", Sink::Pool),
    (
        "java/util/concurrent/ExecutorService",
        "execute",
        Sink::Pool,
    ),
    ("java/util/concurrent/ExecutorService", "submit", Sink::Pool),
    // A collection of tasks, each run on the pool; `invokeAll` returns once all have run.
    (
        "java/util/concurrent/ExecutorService",
        "invokeAll",
        Sink::Pool,
    ),
    (
        "java/util/concurrent/AbstractExecutorService",
        "invokeAll",
        Sink::Pool,
    ),
    (
        "java/util/concurrent/ExecutorService",
        "invokeAny",
        Sink::Pool,
    ),
    (
        "java/util/concurrent/AbstractExecutorService",
        "invokeAny",
        Sink::Pool,
    ),
    (
        "java/util/concurrent/AbstractExecutorService",
        "submit",
        Sink::Pool,
    ),
    (
        "java/util/concurrent/ThreadPoolExecutor",
        "execute",
        Sink::Pool,
    ),
    (
        "java/util/concurrent/ThreadPoolExecutor",
        "submit",
        Sink::Pool,
    ),
    (
        "java/util/concurrent/ScheduledExecutorService",
        "schedule",
        Sink::Pool,
    ),
    (
        "java/util/concurrent/ScheduledExecutorService",
        "scheduleAtFixedRate",
        Sink::Pool,
    ),
    (
        "java/util/concurrent/ScheduledExecutorService",
        "scheduleWithFixedDelay",
        Sink::Pool,
    ),
    (
        "java/util/concurrent/ScheduledThreadPoolExecutor",
        "schedule",
        Sink::Pool,
    ),
    (
        "java/util/concurrent/CompletionService",
        "submit",
        Sink::Pool,
    ),
    (
        "java/util/concurrent/ExecutorCompletionService",
        "submit",
        Sink::Pool,
    ),
    ("java/util/concurrent/ForkJoinPool", "execute", Sink::Pool),
    ("java/util/concurrent/ForkJoinPool", "submit", Sink::Pool),
    ("java/util/concurrent/ForkJoinPool", "invoke", Sink::Pool),
    ("java/util/concurrent/ForkJoinTask", "fork", Sink::Pool),
    // Preview in Java 21 to 25: a class, then an interface; `fork` starts one thread.
    (
        "java/util/concurrent/StructuredTaskScope",
        "fork",
        Sink::Starts,
    ),
    (
        "java/util/concurrent/StructuredTaskScope$ShutdownOnFailure",
        "fork",
        Sink::Starts,
    ),
    (
        "java/util/concurrent/StructuredTaskScope$ShutdownOnSuccess",
        "fork",
        Sink::Starts,
    ),
    ("java/util/Timer", "schedule", Sink::Pool),
    ("java/util/Timer", "scheduleAtFixedRate", Sink::Pool),
    ("java/awt/EventQueue", "invokeLater", Sink::EventThread),
    ("java/awt/EventQueue", "invokeAndWait", Sink::EventThread),
    (
        "javax/swing/SwingUtilities",
        "invokeLater",
        Sink::EventThread,
    ),
    (
        "javax/swing/SwingUtilities",
        "invokeAndWait",
        Sink::EventThread,
    ),
];

/// The sink a call is, if it is one.
fn sink_of(p: &Program, class: &str, name: &str) -> Option<Sink> {
    let stage = matches!(
        class,
        "java/util/concurrent/CompletableFuture" | "java/util/concurrent/CompletionStage"
    );
    if stage && (COMPLETABLE_ASYNC.contains(&name) || COMPLETION_STAGES.contains(&name)) {
        return Some(Sink::Pool);
    }
    TASK_SINKS
        .iter()
        .find(|(c, n, _)| *n == name && p.is_subclass_of(class, c))
        .map(|&(_, _, sink)| sink)
}

/// Task interfaces and the method a thread runs: `(name, descriptor)`.
const TASK_METHODS: &[(&str, &str)] = &[
    ("run", "()V"),
    ("call", "()Ljava/lang/Object;"),
    ("get", "()Ljava/lang/Object;"),
    // `RecursiveTask`, `RecursiveAction`: what `ForkJoinTask.fork` runs.
    ("compute", "()Ljava/lang/Object;"),
    ("compute", "()V"),
];

/// The method a thread runs for a task of class `class` (its first [`TASK_METHODS`] entry),
/// when it has code.
fn task_entry(p: &Program, class: &str) -> Option<MethodId> {
    let entry = TASK_METHODS
        .iter()
        .find_map(|(n, d)| p.resolve(class, n, d))?;
    p.method(entry).code.as_ref()?;
    Some(entry)
}

/// Find the abstract threads, in the world chosen or decided from the packaging.
///
/// The entry points of an application are its `main` methods: a scanned jar's `Main-Class`
/// (its other mains are tools shipped with it), and the mains of scanned class directories and
/// files; the mains in a jar without `Main-Class`, or in a jmod, are not entry points (when an
/// application is asked for, every main is). Each
/// entry point is a program of its own: threads whose start it reaches belong to it, and
/// threads of different programs never run together.
///
/// `Auto` makes an application when there is an entry point, except that a jar's `Main-Class`
/// that starts no thread (a version printer, a command-line tool bundled with a library) leaves
/// the jar a library; otherwise a library: every public method of a class that synchronizes
/// may be called by many threads at once.
pub fn find(
    p: &Program,
    choice: WorldChoice,
    thread_safe_annotations: &[String],
    packages: &[crate::load::Packaging],
) -> (Vec<AbstractThread>, World) {
    let mains = if choice == WorldChoice::Library {
        Vec::new()
    } else {
        // Asked for an application: every main of the scanned classes is a program.
        entry_mains(p, packages, choice == WorldChoice::Application)
    };
    let spawned = if mains.is_empty() {
        Vec::new()
    } else {
        spawned_threads(p)
    };
    // Which spawned threads each main starts.
    let reached: Vec<Vec<bool>> = reach_all(p, &mains, &spawned);
    let application = match choice {
        WorldChoice::Library => false,
        WorldChoice::Application => true,
        WorldChoice::Auto => {
            mains.iter().any(|m| !m.packaged) || reached.iter().flatten().any(|&r| r)
        }
    };
    let requested = choice != WorldChoice::Auto;
    if application && !mains.is_empty() {
        let mut threads = Vec::new();
        let mut programs_of: Vec<Vec<u32>> = vec![Vec::new(); spawned.len()];
        let mut entries = Vec::new();
        for (i, m) in mains.iter().enumerate() {
            let c = p.class(m.id.class);
            entries.push(format!("{}.main", c.dotted_name()));
            threads.push(AbstractThread {
                name: format!("main ({}.main)", c.dotted_name()),
                entries: vec![m.id],
                many: false,
                programs: vec![i as u32],
                own: Vec::new(),
                callers: false,
                alone: None,
            });
            for (t, &r) in reached[i].iter().enumerate() {
                if r {
                    programs_of[t].push(i as u32);
                }
            }
        }
        // Where each main thread runs alone: before its first start, after its joins.
        let mine: Vec<super::joins::Thread<'_>> = (spawned.iter().zip(&programs_of))
            .map(|(s, programs)| super::joins::Thread {
                programs,
                entries: &s.thread.entries,
                starts: &s.starts,
            })
            .collect();
        let ids: Vec<MethodId> = mains.iter().map(|m| m.id).collect();
        let alone = super::joins::alone_per_program(p, &ids, &mine, |m| callees_of(p, m));
        drop(mine);
        for (i, a) in alone.into_iter().enumerate() {
            threads[i].alone = a;
        }
        let mut started = 0;
        for (s, programs) in spawned.into_iter().zip(programs_of) {
            if !programs.is_empty() {
                started += 1;
                threads.push(AbstractThread {
                    programs,
                    ..s.thread
                });
            }
        }
        let world = World {
            application: true,
            requested,
            entries,
            started,
        };
        return (threads, world);
    }
    // The threads a library starts itself are not added: its callers, many at once, already
    // run every public method beside every other (measured: they add no value finding on the
    // precision corpus and double the JDK's whole-program time).
    let threads = open_world_threads(p, thread_safe_annotations);
    let public = threads.first().map_or(0, |t| t.entries.len());
    let world = World {
        application: false,
        requested,
        entries: vec![if choice == WorldChoice::Application {
            format!("no main method found: {public} public methods of synchronizing classes")
        } else {
            format!("{public} public methods of synchronizing classes")
        }],
        started: 0,
    };
    (threads, world)
}

/// An entry `main`, and whether a jar's manifest names it (`Main-Class`).
struct EntryMain {
    id: MethodId,
    packaged: bool,
}

/// The entry mains of the scanned classes (see [`find`]).
fn entry_mains(p: &Program, packages: &[crate::load::Packaging], all: bool) -> Vec<EntryMain> {
    let mut out = Vec::new();
    for (ci, c) in p.classes.iter().enumerate() {
        if c.library {
            continue;
        }
        let package = packages.iter().find(|pk| {
            c.path
                .strip_prefix(&pk.path)
                .is_some_and(|r| r.starts_with("!/"))
        });
        let packaged = match package {
            Some(pk) => {
                if !all && pk.main_class.as_deref() != Some(&*c.name) {
                    continue;
                }
                true
            }
            None => false,
        };
        for (mi, m) in c.methods.iter().enumerate() {
            if m.is_main() && m.code.is_some() {
                out.push(EntryMain {
                    id: MethodId {
                        class: ci as u32,
                        method: mi as u32,
                    },
                    packaged,
                });
            }
        }
    }
    out
}

/// The methods each method may call or make a lambda of (class-hierarchy dispatch), computed
/// once per reachable method (`reach_all`).
fn callees_of(p: &Program, m: MethodId) -> Vec<MethodId> {
    let c = p.class(m.class);
    let Some(code) = &p.method(m).code else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for i in &code.insns {
        match i.op {
            Op::Invoke(kind, r) => out.extend(super::facts::call_targets(p, m.class, r, kind)),
            Op::InvokeDynamic(r) => {
                if let Some((lc, ln, ld)) = c.lambda_impl(r) {
                    out.extend(p.resolve(lc, ln, ld));
                }
            }
            _ => {}
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Which of the `spawned` threads a program starting at `main` starts: a walk over the calls
/// (class-hierarchy dispatch), the lambdas methods make, and the entries of the threads it
/// starts.
/// [`reach`] for every main at once: the methods reachable from any main, where a method
/// that starts a thread also leads to the thread's entries, are condensed into their strongly
/// connected components, and each component gets the set of threads started in it or below
/// it (one bit per thread), callees first. A main starts the threads of its component's set:
/// what one walk per main finds, in one walk and one pass over the component graph.
fn reach_all(p: &Program, mains: &[EntryMain], spawned: &[Started]) -> Vec<Vec<bool>> {
    let mut by_site: crate::fxhash::FxHashMap<MethodId, Vec<usize>> = Default::default();
    for (t, started) in spawned.iter().enumerate() {
        // The methods that start it, each once.
        let mut sites: Vec<MethodId> = started.starts.iter().map(|(s, _)| s.0).collect();
        sites.sort_unstable();
        sites.dedup();
        for s in sites {
            by_site.entry(s).or_default().push(t);
        }
    }
    // The reachable methods, numbered, with their successors.
    let mut index: crate::fxhash::FxHashMap<MethodId, usize> = Default::default();
    let mut methods: Vec<MethodId> = Vec::new();
    let mut edges: Vec<Vec<usize>> = Vec::new();
    let number = |m: MethodId,
                  index: &mut crate::fxhash::FxHashMap<MethodId, usize>,
                  methods: &mut Vec<MethodId>,
                  stack: &mut Vec<usize>| {
        *index.entry(m).or_insert_with(|| {
            methods.push(m);
            stack.push(methods.len() - 1);
            methods.len() - 1
        })
    };
    let mut stack: Vec<usize> = Vec::new();
    for m in mains {
        number(m.id, &mut index, &mut methods, &mut stack);
    }
    while let Some(i) = stack.pop() {
        let m = methods[i];
        let mut next: Vec<MethodId> = callees_of(p, m);
        for &t in by_site.get(&m).map_or(&[][..], Vec::as_slice) {
            next.extend(spawned[t].thread.entries.iter().copied());
        }
        let succ: Vec<usize> = next
            .into_iter()
            .map(|w| number(w, &mut index, &mut methods, &mut stack))
            .collect();
        if edges.len() <= i {
            edges.resize_with(i + 1, Vec::new);
        }
        edges[i] = succ;
    }
    edges.resize_with(methods.len(), Vec::new);
    let comp = super::views::tarjan(&edges);
    let ncomp = comp.iter().map(|&c| c + 1).max().unwrap_or(0);
    let words = spawned.len().div_ceil(64).max(1);
    let mut bits = vec![0u64; ncomp * words];
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); ncomp];
    for (i, &c) in comp.iter().enumerate() {
        members[c].push(i);
    }
    // Components are numbered callees first: every successor's set is complete before its
    // callers' are computed.
    let mut acc = vec![0u64; words];
    for (c, nodes) in members.iter().enumerate() {
        acc.iter_mut().for_each(|w| *w = 0);
        for &i in nodes {
            for &t in by_site.get(&methods[i]).map_or(&[][..], Vec::as_slice) {
                acc[t / 64] |= 1 << (t % 64);
            }
            for &w in &edges[i] {
                let cw = comp[w];
                if cw != c {
                    let below = &bits[cw * words..(cw + 1) * words];
                    acc.iter_mut().zip(below).for_each(|(a, b)| *a |= b);
                }
            }
        }
        bits[c * words..(c + 1) * words].copy_from_slice(&acc);
    }
    mains
        .iter()
        .map(|m| {
            // Every main was numbered first.
            let Some(&i) = index.get(&m.id) else {
                return vec![false; spawned.len()];
            };
            let c = comp[i];
            let row = &bits[c * words..(c + 1) * words];
            (0..spawned.len())
                .map(|t| row[t / 64] & (1 << (t % 64)) != 0)
                .collect()
        })
        .collect()
}

fn open_world_threads(p: &Program, thread_safe_annotations: &[String]) -> Vec<AbstractThread> {
    let mut entries = Vec::new();
    for (ci, c) in p.classes.iter().enumerate() {
        if c.library || c.is_interface() {
            continue;
        }
        if !meant_for_callers(p, c, thread_safe_annotations) {
            continue;
        }
        for (mi, m) in c.methods.iter().enumerate() {
            let public = m.callable_outside(c);
            // An instance method of a class without objects never runs (dispatch to what
            // exists): a package-private thread class that nothing creates.
            if public
                && (m.is_static() || p.may_have_objects(ci as u32))
                && m.code.is_some()
                && !m.name.starts_with('<')
                && m.access & acc::SYNTHETIC == 0
            {
                entries.push(MethodId {
                    class: ci as u32,
                    method: mi as u32,
                });
            }
        }
    }
    if entries.is_empty() {
        return Vec::new();
    }
    // A `Thread` subclass's `run()` stays among them: a thread of its own per subclass makes
    // the views of `high-level-data-race` per thread finer (measured on the precision corpus:
    // 37 more high-level data races, in ZooKeeper, Lucene and Quartz, for one stale value
    // fewer), so the ownership of its object counts in an application's threads alone.
    vec![AbstractThread {
        name: "any caller (open world)".to_string(),
        entries,
        many: true,
        programs: Vec::new(),
        own: Vec::new(),
        callers: true,
        alone: None,
    }]
}

/// A task handed to a thread: its entry method and where it was created.
#[derive(Debug, Clone)]
struct Spawn {
    entry: MethodId,
    site: (MethodId, u32),
    in_loop: bool,
    many: bool,
    label: String,
    /// What waits for it.
    handle: Handle,
}

/// A thread the scanned code starts.
struct Started {
    thread: AbstractThread,
    /// Each start, and what waits for it.
    starts: Vec<((MethodId, u32), Handle)>,
}

/// The threads the scanned code starts, each with the methods that start it.
fn spawned_threads(p: &Program) -> Vec<Started> {
    let mut threads = Vec::new();
    let starts_threads = p.classes.iter().any(|c| {
        c.methods
            .iter()
            .filter_map(|m| m.code.as_ref())
            .any(|code| {
                code.insns.iter().any(|i| match i.op {
                    Op::Invoke(_, r) => {
                        let m = c.member(r);
                        &*m.name == "start"
                            && &*m.desc == "()V"
                            && p.is_subclass_of(&m.class, "java/lang/Thread")
                    }
                    _ => false,
                })
            })
    });
    // Methods that create tasks: found by a linear scan, then a dataflow run for the receivers.
    let candidates: Vec<MethodId> = p
        .classes
        .iter()
        .enumerate()
        .filter(|(_, c)| !c.library)
        .flat_map(|(ci, c)| {
            c.methods.iter().enumerate().filter_map(move |(mi, m)| {
                let code = m.code.as_ref()?;
                let spawns = code.insns.iter().any(|i| match i.op {
                    Op::Invoke(_, r) => {
                        let m = c.member(r);
                        sink_of(p, &m.class, &m.name).is_some()
                            || (&*m.name == "<init>"
                                && p.is_subclass_of(&m.class, "java/lang/Thread"))
                    }
                    _ => false,
                });
                spawns.then_some(MethodId {
                    class: ci as u32,
                    method: mi as u32,
                })
            })
        })
        .collect();
    let mut spawns: Vec<Spawn> = candidates
        .par_iter()
        .flat_map_iter(|&id| spawns_in(p, id, starts_threads))
        .collect();
    // A method that makes a thread and runs more than once makes one each time (a factory
    // `handler(name, registry)` that `main` calls twice): many instances.
    let spawning: FxHashSet<MethodId> = spawns.iter().map(|s| s.site.0).collect();
    let repeated = runs_repeatedly(p, &spawning);
    for s in &mut spawns {
        s.many |= repeated.contains(&s.site.0);
    }
    // Group by entry method: one abstract thread per task entry.
    let mut by_entry: Vec<(MethodId, Vec<Spawn>)> = Vec::new();
    for s in spawns {
        match by_entry.iter_mut().find(|(e, _)| *e == s.entry) {
            Some((_, v)) => v.push(s),
            None => by_entry.push((s.entry, vec![s])),
        }
    }
    for (entry, sites) in by_entry {
        let mut distinct: Vec<(MethodId, u32)> = sites.iter().map(|s| s.site).collect();
        distinct.sort_unstable();
        distinct.dedup();
        let many = distinct.len() > 1 || sites.iter().any(|s| s.in_loop || s.many);
        let label = &sites[0].label;
        let starts = sites.iter().map(|s| (s.site, s.handle)).collect();
        threads.push(Started {
            thread: AbstractThread {
                name: format!("{label}{}", if many { " (many instances)" } else { "" }),
                entries: vec![entry],
                many,
                programs: Vec::new(),
                own: thread_own(p, entry),
                callers: false,
                alone: None,
            },
            starts,
        });
    }
    held_alone(p, &mut threads);
    threads
}

/// The tasks of type `ty` that the program's method called by reference `r` of class `class`
/// makes (lambdas and objects of task classes), with what names them: what a task factory
/// (`Runnable client(TokenBucket b, int n) { return () -> ..; }`) returns. None when the
/// method has no code or cannot return such a task.
fn factory_tasks(
    p: &Program,
    class: u32,
    r: crate::bytecode::RefId,
    ty: &str,
) -> Vec<(MethodId, String)> {
    let Some(target) = p.resolved(class, r) else {
        return Vec::new();
    };
    let m = p.method(target);
    let returns = object_return(&m.descriptor)
        .is_some_and(|t| p.is_subclass_of(t, ty) || p.is_subclass_of(ty, t));
    let Some(code) = m.code.as_ref().filter(|_| returns) else {
        return Vec::new();
    };
    let c = p.class(target.class);
    let mut out: Vec<(MethodId, String)> = Vec::new();
    for insn in &code.insns {
        let found = task_made(p, c, &insn.op).filter(|(_, made, _)| p.is_subclass_of(made, ty));
        if let Some((e, _, what)) = found.filter(|f| !out.iter().any(|o| o.0 == f.0)) {
            out.push((e, what));
        }
    }
    out
}

/// The class of object a method descriptor returns, if it returns one.
fn object_return(desc: &str) -> Option<&str> {
    desc.rsplit(')')
        .next()?
        .strip_prefix('L')?
        .strip_suffix(';')
}

/// The task instruction `op` of class `c` makes, if any: a `new` of a task class, or a lambda
/// (method reference) whose implementation has code. With the entry the thread runs, the type
/// of the task made (the class, or the lambda's interface) and what names it.
fn task_made<'a>(
    p: &Program,
    c: &'a crate::bytecode::Class,
    op: &Op,
) -> Option<(MethodId, &'a str, String)> {
    match *op {
        Op::New(r) => {
            let made = &*c.member(r).class;
            let e = task_entry(p, made)?;
            let what = format!("task {}.{}", made.replace('/', "."), p.method(e).name);
            Some((e, made, what))
        }
        Op::InvokeDynamic(r) => {
            let (lc, ln, ld) = c.lambda_impl(r)?;
            let made = object_return(&c.member(r).desc)?;
            let e = p.resolve(lc, ln, ld)?;
            p.method(e).code.as_ref()?;
            Some((e, made, format!("lambda {}.{ln}", lc.replace('/', "."))))
        }
        _ => None,
    }
}

/// How far up the callers [`runs_repeatedly`] looks.
const REPEAT_DEPTH: usize = 4;

/// Of the methods `of`, those that may run more than once in one program: called from two
/// call sites or more, or from a call site in a loop, or from a method that runs more than
/// once in turn (up to [`REPEAT_DEPTH`] callers up). An entry `main` with no caller runs once.
fn runs_repeatedly(p: &Program, of: &FxHashSet<MethodId>) -> FxHashSet<MethodId> {
    let mut out: FxHashSet<MethodId> = FxHashSet::default();
    let mut level: FxHashSet<MethodId> = of.clone();
    // For each method asked about, the methods below it that it answers for.
    let mut answers: FxHashMap<MethodId, Vec<MethodId>> =
        of.iter().map(|&m| (m, vec![m])).collect();
    for _ in 0..REPEAT_DEPTH {
        if level.is_empty() {
            break;
        }
        // The call sites of the methods of this level: (callee, caller, in a loop).
        let sites: Vec<(MethodId, MethodId, bool)> = p
            .par_classes()
            .enumerate()
            .flat_map_iter(|(ci, c)| {
                let mut found = Vec::new();
                for (mi, m) in c.methods.iter().enumerate() {
                    let Some(code) = &m.code else { continue };
                    let caller = MethodId {
                        class: ci as u32,
                        method: mi as u32,
                    };
                    let mut cfg: Option<Cfg> = None;
                    for (at, i) in code.insns.iter().enumerate() {
                        let Op::Invoke(kind, r) = i.op else { continue };
                        for t in super::facts::call_targets(p, ci as u32, r, kind) {
                            if level.contains(&t) {
                                let cfg = cfg.get_or_insert_with(|| Cfg::build(code));
                                found.push((t, caller, in_loop(cfg, at as u32)));
                            }
                        }
                    }
                }
                found
            })
            .collect();
        let mut count: FxHashMap<MethodId, usize> = FxHashMap::default();
        let mut next: FxHashSet<MethodId> = FxHashSet::default();
        let mut next_answers: FxHashMap<MethodId, Vec<MethodId>> = FxHashMap::default();
        for &(t, caller, looped) in &sites {
            let n = count.entry(t).or_default();
            *n += if looped { 2 } else { 1 };
            if caller != t {
                let below = answers.get(&t).cloned().unwrap_or_default();
                next_answers.entry(caller).or_default().extend(below);
                next.insert(caller);
            }
        }
        for (t, n) in count {
            if n >= 2 {
                out.extend(answers.get(&t).into_iter().flatten().copied());
            }
        }
        // A caller all of whose methods below are known to repeat need not be looked at.
        next.retain(|m| {
            !(next_answers
                .get(m)
                .is_some_and(|a| a.iter().all(|x| out.contains(x))))
        });
        level = next;
        answers = next_answers;
    }
    out
}

/// Whether the instruction at `at` is in a loop of `cfg` (its block reaches itself).
fn in_loop(cfg: &Cfg, at: u32) -> bool {
    let start = cfg.block_of[at as usize];
    let mut seen = vec![false; cfg.blocks.len()];
    let mut stack: Vec<u32> = cfg.blocks[start as usize].succs.clone();
    while let Some(b) = stack.pop() {
        if b == start {
            return true;
        }
        if !std::mem::replace(&mut seen[b as usize], true) {
            stack.extend(cfg.blocks[b as usize].succs.iter().copied());
        }
    }
    false
}

/// Adds to each thread's own classes ([`AbstractThread::own`]) the classes whose every object
/// a thread object holds alone: a field of the thread's class (private or final, every store a
/// new object: [`Program::field_classes`]) that holds objects of a class the program creates
/// nowhere else than in that thread class's constructors, and whose every read is made by the
/// thread class on `this` (or by a program's `main`) and used as the receiver of a call
/// (`mine.set(mine.get() + 1)`), never handed on (returned, passed, stored). Each instance of
/// the thread then has its own such object: a per-thread counter is no state two instances
/// share. (Another thread that calls on it, `main` collecting the counts, still conflicts.)
fn held_alone(p: &Program, threads: &mut [Started]) {
    use crate::fxhash::FxHashMap;
    // (thread, field, class held) for every candidate.
    let mut candidates: Vec<(usize, (u32, u32), u32)> = Vec::new();
    for (t, started) in threads.iter().enumerate() {
        for &ci in &started.thread.own {
            let c = p.class(ci);
            for (fi, f) in c.fields.iter().enumerate() {
                if f.access & acc::STATIC != 0 {
                    continue;
                }
                let field = (ci, fi as u32);
                for &held in p.field_classes(field).unwrap_or(&[]) {
                    if !started.thread.own.contains(&held) {
                        candidates.push((t, field, held));
                    }
                }
            }
        }
    }
    if candidates.is_empty() {
        return;
    }
    // Where the program creates each candidate class, and reads each candidate field.
    let mut made: FxHashMap<u32, Vec<MethodId>> = FxHashMap::default();
    let mut reads: FxHashMap<(u32, u32), Vec<(MethodId, u32)>> = FxHashMap::default();
    for (ci, c) in p.classes.iter().enumerate() {
        for (mi, m) in c.methods.iter().enumerate() {
            let Some(code) = &m.code else { continue };
            let id = MethodId {
                class: ci as u32,
                method: mi as u32,
            };
            for (at, insn) in code.insns.iter().enumerate() {
                match insn.op {
                    Op::New(r) => {
                        if let Some(k) = p.class_index(&c.member(r).class) {
                            if candidates.iter().any(|&(_, _, h)| h == k) {
                                made.entry(k).or_default().push(id);
                            }
                        }
                    }
                    Op::GetField(r) => {
                        if let Some(f) = p.field_ref(ci as u32, r) {
                            if candidates.iter().any(|&(_, g, _)| g == f) {
                                reads.entry(f).or_default().push((id, at as u32));
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    for (t, field, held) in candidates {
        let own = &threads[t].thread.own;
        let made_here = made.get(&held).is_some_and(|sites| {
            (sites.iter())
                .all(|m| own.contains(&m.class) && p.init_only(m.class)[m.method as usize])
        });
        // Read on `this` by the thread's class, or by a program's `main` (the main thread,
        // never an instance of this one: collecting what each worker counted).
        let on_this = |m: MethodId, at: u32| {
            !p.method(m).is_static()
                && (p.method(m).code.as_ref())
                    .and_then(|code| code.insns.get((at as usize).checked_sub(1)?))
                    .is_some_and(|i| matches!(i.op, Op::Load(0, 1)))
        };
        let kept = (reads.get(&field).map_or(&[][..], Vec::as_slice).iter()).all(|&(m, at)| {
            (own.contains(&m.class) && on_this(m, at) || p.method(m).is_main())
                && receiver_only(p, m, at)
        });
        if made_here && kept && !threads[t].thread.own.contains(&held) {
            threads[t].thread.own.push(held);
        }
    }
}

/// Whether the value the instruction at `at` pushes is only the receiver of an instance call
/// made in the same straight run of code (its arguments may compute anything, calls included):
/// not returned, passed, stored or duplicated.
fn receiver_only(p: &Program, m: MethodId, at: u32) -> bool {
    let c = p.class(m.class);
    let Some(code) = &p.method(m).code else {
        return false;
    };
    // The value's depth below the top of the stack.
    let mut depth = 0;
    for insn in code.insns.iter().skip(at as usize + 1) {
        let Some((pop, push)) = c.stack_effect(&insn.op) else {
            return false;
        };
        if depth < pop {
            // Consumed here: as the receiver of an instance call (the deepest slot popped).
            return matches!(insn.op, Op::Invoke(kind, _) if kind != InvokeKind::Static)
                && depth == pop - 1;
        }
        depth = depth + push - pop;
    }
    false
}

/// The tasks a method hands to threads.
fn spawns_in(p: &Program, id: MethodId, starts_threads: bool) -> Vec<Spawn> {
    let Some(code) = &p.method(id).code else {
        return Vec::new();
    };
    let cfg = Cfg::build(code);
    let mut finder = Finder {
        p,
        id,
        cfg: &cfg,
        starts_threads,
        found: Vec::new(),
        read_back: Vec::new(),
    };
    if engine::run_method(p, id, false, &mut Observing(&mut finder)).is_err() {
        return Vec::new();
    }
    let mut found = finder.found;
    // A task read back out of an array or a collection (`new Thread(agents[i])`, `for (Agent a
    // : agents) pool.submit(a)`): the dataflow loses it in the container, but the tasks this
    // method creates of the type the sink takes are what it holds. A class it also hands over
    // directly is left out (that start is found already). Each such start takes the tasks
    // created since the one before it (agents made and started, then clerks made and
    // submitted), or, when none were, all created before it.
    let class = p.class(id.class);
    let direct: Vec<MethodId> = found.iter().map(|s| s.entry).collect();
    let mut read_back = finder.read_back;
    read_back.sort_by_key(|r| r.at);
    read_back.dedup_by_key(|r| r.at);
    // Tasks the method makes: objects of task classes, and lambdas (of the interface they
    // implement), with what names them.
    let mut made: Vec<(u32, MethodId, &str, String)> = Vec::new();
    for (at, insn) in code.insns.iter().enumerate() {
        let at = at as u32;
        if let Op::Invoke(_, r) = insn.op {
            // A call of a task factory of the program makes the tasks it returns.
            if let Some(ty) = object_return(&class.member(r).desc) {
                let tasks = factory_tasks(p, id.class, r, ty).into_iter();
                made.extend(tasks.map(|(e, what)| (at, e, ty, what)));
            }
        } else if let Some((e, ty, what)) = task_made(p, class, &insn.op) {
            made.push((at, e, ty, what));
        }
    }
    made.retain(|(_, e, _, _)| !direct.contains(e));
    let mut previous = 0;
    for r in read_back {
        let of_type = |&&(m, _, made, _): &&(u32, MethodId, &str, String)| {
            m < r.at && p.is_subclass_of(made, &r.ty)
        };
        let since_last = made.iter().filter(of_type).any(|&(m, ..)| m >= previous);
        let from = if since_last { previous } else { 0 };
        previous = r.at;
        let mut entries: Vec<MethodId> = Vec::new();
        for (_, entry, _, what) in made.iter().filter(of_type).filter(|&&(m, ..)| m >= from) {
            if entries.contains(entry) {
                continue;
            }
            entries.push(*entry);
            found.push(Spawn {
                entry: *entry,
                site: (id, r.at),
                in_loop: r.in_loop,
                many: r.many,
                label: format!("{what} (started at {})", r.site),
                handle: r.handle,
            });
        }
    }
    found
}

struct Finder<'a> {
    p: &'a Program,
    id: MethodId,
    cfg: &'a Cfg,
    starts_threads: bool,
    found: Vec<Spawn>,
    /// Task arguments read back out of a container, resolved once the method is seen.
    read_back: Vec<ReadBack>,
}

/// A task argument the dataflow lost in a container (see [`spawns_in`]).
struct ReadBack {
    /// The call that hands it over, and whether it is in a loop.
    at: u32,
    in_loop: bool,
    many: bool,
    /// The class the parameter takes.
    ty: String,
    /// Where the call is, for the thread's name.
    site: String,
    /// What waits for it.
    handle: Handle,
}

impl Finder<'_> {
    /// The entry method of the task a register holds: a `new` of a task class, or a lambda.
    fn task_of(&self, sym: Sym) -> Option<(MethodId, String)> {
        let Sym::Value(at) = sym else { return None };
        let class = self.p.class(self.id.class);
        let code = self.p.method(self.id).code.as_ref()?;
        let op = &code.insns.get(at as usize)?.op;
        task_made(self.p, class, op).map(|(e, _, what)| (e, what))
    }

    fn in_loop(&self, at: u32) -> bool {
        in_loop(self.cfg, at)
    }
}

impl Observer for Finder<'_> {
    fn observe(&mut self, at: u32, frame: &Frame<()>) {
        let class = self.p.class(self.id.class);
        let Some(code) = &self.p.method(self.id).code else {
            return;
        };
        let Op::Invoke(kind, r) = code.insns[at as usize].op else {
            return;
        };
        let m = class.member(r);
        let nargs = m.arg_slots as usize + usize::from(kind != InvokeKind::Static);
        let Some(first) = frame.stack.len().checked_sub(nargs) else {
            return;
        };
        let line = code
            .line_of(at)
            .map(|l| format!(":{l}"))
            .unwrap_or_default();
        let site_label = format!("{}{}", crate::explain::source_path(class), line);
        // `new T()` of a Thread subclass: its run().
        if &*m.name == "<init>"
            && kind == InvokeKind::Special
            && self.starts_threads
            && &*m.class != "java/lang/Thread"
            && self.p.is_subclass_of(&m.class, "java/lang/Thread")
        {
            if let Some(entry) = self
                .p
                .resolve(&m.class, "run", "()V")
                .filter(|&e| self.p.method(e).code.is_some())
            {
                self.found.push(Spawn {
                    entry,
                    site: (self.id, at),
                    in_loop: self.in_loop(at),
                    many: false,
                    label: format!(
                        "thread {}.run (created at {site_label})",
                        m.class.replace('/', ".")
                    ),
                    handle: Handle {
                        object: frame.stack[first].sym,
                        ..Handle::NONE
                    },
                });
            }
            return;
        }
        let Some(sink) = sink_of(self.p, &m.class, &m.name) else {
            return;
        };
        if sink == Sink::Creates && !self.starts_threads {
            return;
        }
        let many = sink == Sink::Pool;
        let receiver = usize::from(kind != InvokeKind::Static);
        // What waits for the task: the thread a constructor makes, the thread or future the
        // call returns, the pool it is handed to.
        let on = if receiver == 1 {
            frame.stack[first].sym
        } else {
            Sym::Unknown
        };
        let handle = match sink {
            Sink::Creates if &*m.name == "<init>" => Handle {
                object: on,
                ..Handle::NONE
            },
            Sink::Starts | Sink::Creates => Handle {
                object: Sym::Value(at),
                ..Handle::NONE
            },
            Sink::Pool => Handle {
                object: Sym::Value(at),
                pool: on,
                done: &*m.name == "invoke" && m.class.contains("ForkJoinPool")
                    || &*m.name == "invokeAll",
            },
            Sink::EventThread => Handle::NONE,
        };
        // A collection of tasks (`invokeAll`): the tasks the method makes of the type the
        // pool takes.
        if matches!(&*m.name, "invokeAll" | "invokeAny") {
            self.read_back.push(ReadBack {
                at,
                in_loop: self.in_loop(at),
                many,
                ty: "java/util/concurrent/Callable".to_string(),
                site: site_label,
                handle,
            });
            return;
        }
        for (k, slot) in frame.stack[first..].iter().enumerate() {
            if let Some((entry, what)) = self.task_of(slot.sym) {
                self.found.push(Spawn {
                    entry,
                    site: (self.id, at),
                    in_loop: self.in_loop(at),
                    many,
                    label: format!("{what} (started at {site_label})"),
                    handle,
                });
                continue;
            }
            // An object parameter whose value came out of an array or a call (an element of a
            // container), or that two paths give different objects: resolved once the whole
            // method is seen (`spawns_in`).
            // The parameter that starts at this stack slot.
            let mut start = 0;
            let param = k.checked_sub(receiver).and_then(|k| {
                crate::bytecode::param_types(&m.desc).find(|t| {
                    let here = start;
                    start += usize::from(crate::bytecode::field_slots(t));
                    here == k
                })
            });
            let Some(ty) = param.and_then(|p| p.strip_prefix('L')?.strip_suffix(';')) else {
                continue;
            };
            // A task a method of the program makes and returns (`pool.submit(client(bucket,
            // 400))`, `new Thread(worker(id))`): the tasks that factory creates of the type
            // the sink takes.
            if let Sym::Value(v) = slot.sym {
                if let Some(&Op::Invoke(_, r)) = code.insns.get(v as usize).map(|i| &i.op) {
                    let made = factory_tasks(self.p, self.id.class, r, ty);
                    for (entry, what) in &made {
                        self.found.push(Spawn {
                            entry: *entry,
                            site: (self.id, at),
                            in_loop: self.in_loop(at),
                            many,
                            label: format!("{what} (started at {site_label})"),
                            handle,
                        });
                    }
                    if !made.is_empty() {
                        continue;
                    }
                }
            }
            let contained = match slot.sym {
                Sym::Unknown => true,
                Sym::Value(v) => matches!(
                    code.insns.get(v as usize).map(|i| &i.op),
                    Some(Op::Invoke(..))
                ),
                _ => false,
            };
            if contained && !matches!(ty, "java/lang/Object" | "java/lang/String") {
                self.read_back.push(ReadBack {
                    at,
                    in_loop: self.in_loop(at),
                    many,
                    ty: ty.to_string(),
                    site: site_label.clone(),
                    handle,
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn thread(many: bool, own: Vec<u32>) -> AbstractThread {
        AbstractThread {
            name: String::new(),
            entries: Vec::new(),
            many,
            programs: Vec::new(),
            own,
            callers: false,
            alone: None,
        }
    }

    #[test]
    fn instances_of_a_thread_on_its_own_object_do_not_share_its_fields() {
        let threads = [thread(true, vec![3, 4]), thread(true, Vec::new())];
        // Two instances of the server thread: each has its own fields of classes 3 and 4.
        assert!(!conflict(&threads, 0, 0, 3));
        assert!(!conflict(&threads, 0, 0, 4));
        // Fields of another class (a shared board) are shared by the instances.
        assert!(conflict(&threads, 0, 0, 7));
        // Another thread touches the same object's fields.
        assert!(conflict(&threads, 0, 1, 3));
        assert!(conflict(&threads, 1, 1, 3));
        // One instance only: never concurrent with itself anyway.
        let one = [thread(false, Vec::new())];
        assert!(!conflict(&one, 0, 0, 3));
    }
}
