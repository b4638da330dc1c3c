//! From paths to diagnostics: load, parse (in parallel), de-duplicate, build the program and
//! its summaries, analyse every scanned method (in parallel, a panic contained to its method),
//! explain. The only I/O is the loader's reading of the inputs and the lookup of source files.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::Serialize;

use crate::analysis::engine::MethodCx;
use crate::analysis::guards::{self, GuardQuery, GuardVar};
use crate::bytecode::cfg::Cfg;
use crate::bytecode::parse::parse_class;
use crate::bytecode::Class;
use crate::cache::deps::Slot;
use crate::config::AnalysisConfig;
use crate::diag::InputProblem;
use crate::explain::{self, explain, Diagnostic};
use crate::fxhash::{FxHashMap, FxHashSet};
use crate::load::{self, Limits};
use crate::program::Program;
use crate::rules::{self, RuleId};
use crate::whole::{threads, views};

pub struct ScanOptions {
    pub inputs: Vec<PathBuf>,
    pub classpath: Vec<PathBuf>,
    pub source_roots: Vec<PathBuf>,
    pub rules: Vec<RuleId>,
    pub config: AnalysisConfig,
    pub limits: Limits,
    /// Build the atomic sections for the run-time agent ([`crate::sections`]).
    pub sections: bool,
    /// The summary cache for `--classpath` archives ([`crate::cache`]); `None`: no cache.
    pub cache: Option<crate::cache::deps::CacheOptions>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Stats {
    /// Classes scanned (reported on).
    pub classes: usize,
    /// Classes from `--classpath`.
    pub library_classes: usize,
    /// Methods with code analysed.
    pub methods: usize,
    #[serde(skip)]
    pub load_time: Duration,
    #[serde(skip)]
    pub parse_time: Duration,
    #[serde(skip)]
    pub summary_time: Duration,
    #[serde(skip)]
    pub analysis_time: Duration,
    #[serde(skip)]
    pub whole_program_time: Duration,
    /// Whole-program rules: how threads were found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub world: Option<String>,
    /// Whole-program rules: the abstract threads.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub threads: Vec<String>,
    /// Figures from inside the phases (sizes, elapsed times), printed by the binary when
    /// `STALECHECK_TIMINGS` is set.
    #[serde(skip)]
    pub profile: Vec<String>,
    /// What the summary cache did (hits, misses, entries rebuilt).
    #[serde(skip)]
    pub cache: crate::cache::deps::CacheReport,
}

pub struct ScanOutput {
    pub diagnostics: Vec<Diagnostic>,
    pub problems: Vec<InputProblem>,
    pub stats: Stats,
    /// Suppression annotations of the scanned classes, with the class's dotted name (applied
    /// by the reports, see `report::suppress`).
    pub suppressions: Vec<(String, crate::bytecode::SuppressAnnotation)>,
    /// The atomic sections for the run-time agent, when asked for.
    pub sections: Option<(crate::sections::SectionsFile, crate::sections::Counts)>,
    /// The analysed program, handed over with the results: freeing a large program (hundreds
    /// of thousands of small allocations) takes a noticeable share of a scan, and a caller about
    /// to exit need not pay it (the binary leaks it).
    pub program: Program,
}

/// What a long scan tells about itself while it runs: which phase, and how far it is. The core
/// only calls these (from any worker thread); the binary decides whether and how to show them.
pub trait Progress: Sync {
    /// A phase begins, with `total` units of work (0 when it cannot say).
    fn phase(&self, name: &'static str, total: usize);
    /// `done` units of the current phase are finished.
    fn advance(&self, done: usize);
}

/// Shows nothing.
pub struct NoProgress;

impl Progress for NoProgress {
    fn phase(&self, _: &'static str, _: usize) {}
    fn advance(&self, _: usize) {}
}

/// Counts finished units of a phase on any thread and reports every `every`-th one.
struct Counter<'a> {
    progress: &'a dyn Progress,
    done: AtomicUsize,
    every: usize,
}

impl<'a> Counter<'a> {
    fn start(progress: &'a dyn Progress, name: &'static str, total: usize) -> Self {
        progress.phase(name, total);
        Counter {
            progress,
            done: AtomicUsize::new(0),
            every: (total / 200).clamp(1, 256),
        }
    }
    fn tick(&self) {
        let n = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if n.is_multiple_of(self.every) {
            self.progress.advance(n);
        }
    }
}

/// Most duplicate-class notes printed one by one; the rest are summed up in one note.
const MAX_DUPLICATE_NOTES: usize = 20;

/// Run a scan, telling `progress` which phase runs and how far it is.
pub fn scan(opts: &ScanOptions, progress: &dyn Progress) -> ScanOutput {
    let mut stats = Stats::default();
    let t0 = Instant::now();
    progress.phase("loading", 0);
    // Loading and parsing, with `--classpath` archives taken from the cache when it has them
    // (the same values as without it: see `cache::deps`).
    let t_parse = std::cell::Cell::new(Duration::ZERO);
    let each = crate::cache::deps::load_and_parse(
        &opts.inputs,
        &opts.classpath,
        &opts.limits,
        opts.cache.as_ref(),
        &|raw| {
            let t = Instant::now();
            let counter = Counter::start(progress, "parsing", raw.len());
            let parsed = raw
                .into_par_iter()
                .with_max_len(crate::PAR_CHUNK)
                .map(|raw| {
                    counter.tick();
                    parse_raw(raw)
                })
                .collect();
            t_parse.set(t.elapsed());
            parsed
        },
        &mut stats.cache,
    );
    let mut problems = Vec::new();
    let mut seen = FxHashSet::default();
    let mut packages = Vec::new();
    let mut parsed: Vec<Result<Slot, InputProblem>> = Vec::new();
    for one in each {
        parsed.extend(one.classes);
        packages.extend(one.packages);
        for problem in one.problems {
            if seen.insert(load::problem_key(&problem)) {
                problems.push(problem);
            }
        }
    }
    for root in &opts.source_roots {
        if !root.is_dir() {
            problems.push(InputProblem::warning(
                root.display().to_string(),
                "source root does not exist or is not a directory; no source file is looked up in it",
            ));
        }
    }
    stats.parse_time = t_parse.get();
    stats.load_time = t0.elapsed().saturating_sub(stats.parse_time);

    let t1 = Instant::now();
    let mut classes: Vec<Slot> = Vec::with_capacity(parsed.len());
    let mut first_seen: FxHashMap<Box<str>, String> = FxHashMap::default();
    let mut duplicates = 0usize;
    for p in parsed {
        match p {
            Err(problem) => problems.push(problem),
            Ok(class) => {
                if class.name().ends_with("module-info") {
                    continue;
                }
                if let Some(first) = first_seen.get(class.name()) {
                    duplicates += 1;
                    if duplicates <= MAX_DUPLICATE_NOTES {
                        problems.push(InputProblem::note(
                            class.path().to_string(),
                            format!(
                                "class {} was already found in {first}; this copy is ignored",
                                crate::bytecode::dotted(class.name())
                            ),
                        ));
                    }
                    continue;
                }
                if let Some(lost) = class.lost() {
                    problems.push(InputProblem::note(
                        class.path().to_string(),
                        lost.to_string(),
                    ));
                }
                first_seen.insert(class.name().into(), class.path().to_string());
                classes.push(class);
            }
        }
    }
    drop(first_seen);
    if duplicates > MAX_DUPLICATE_NOTES {
        problems.push(InputProblem::note(
            "(inputs)",
            format!(
                "{} more classes were found more than once; the first copy of each was used",
                duplicates - MAX_DUPLICATE_NOTES
            ),
        ));
    }
    stats.parse_time += t1.elapsed();
    stats.library_classes = classes.iter().filter(|c| c.library()).count();
    stats.classes = classes.len() - stats.library_classes;
    // The program: the scanned classes and the classpath classes they reach, decoded from the
    // cache layer by layer (the rest of a cached classpath is never decoded).
    let t_reach = Instant::now();
    let classes = reached_classes(classes, &mut problems);
    stats.profile.push(format!(
        "reach: {} of {} classpath classes reached, in {:?}",
        classes.len() - stats.classes,
        stats.library_classes,
        t_reach.elapsed()
    ));

    let suppressions = classes
        .iter()
        .filter(|c| !c.library)
        .flat_map(|c| c.suppress.iter().map(|a| (c.dotted_name(), a.clone())))
        .collect();
    let t2 = Instant::now();
    progress.phase("summaries", 0);
    let mut program = Program::new(classes, opts.config.clone());
    stats.profile.append(&mut program.profile);
    stats.summary_time = t2.elapsed();

    // The per-method rules and the whole-program rules read the same finished model and
    // nothing of each other: run them side by side, so that the serial stretches of the
    // whole-program phase (scopes, lock views, components) leave the other core to the
    // per-method rules. Their timings overlap.
    let whole_wanted = opts.rules.iter().any(|r| r.is_whole_program());
    let (per_method, whole) = rayon::join(
        || per_method_rules(&program, opts, progress),
        || {
            whole_wanted.then(|| {
                let t4 = Instant::now();
                // One panic here must not lose the per-method findings: contain it like a
                // method's.
                let whole = crate::diag::contain_phase(|| {
                    whole_program(&program, opts, &packages, progress)
                });
                (whole, t4.elapsed())
            })
        },
    );
    let mut diagnostics = per_method.diagnostics;
    problems.extend(per_method.problems);
    stats.profile.push(per_method.profile);
    stats.methods = per_method.methods;
    stats.analysis_time = per_method.time;
    if let Some((whole, time)) = whole {
        match whole {
            Ok((found, world, threads, failed, mut profile)) => {
                diagnostics.extend(found);
                stats.profile.append(&mut profile);
                stats.world = Some(world);
                stats.threads = threads;
                problems.extend(failed);
            }
            Err(panic) => problems.push(InputProblem::internal(
                "(whole program)",
                format!("internal error in the whole-program analysis: {panic}; the other rules' findings are kept"),
            )),
        }
        stats.whole_program_time = time;
    }
    progress.phase("explaining", 0);
    if opts.rules.contains(&RuleId::StaleValue) && opts.rules.contains(&RuleId::CausalStaleValue) {
        rules::causal_stale_value::merge_duplicates(&mut diagnostics);
    }

    for d in &mut diagnostics {
        if let Some((i, path)) = find_source(&opts.source_roots, &d.file) {
            d.source = Some(path);
            d.source_root = Some(i);
        }
    }
    diagnostics.sort_by(|a, b| {
        (&a.file, a.line, a.rule, &a.class, &a.method)
            .cmp(&(&b.file, b.line, b.rule, &b.class, &b.method))
    });
    let sections = opts
        .sections
        .then(|| crate::sections::build(&program, &diagnostics));
    ScanOutput {
        diagnostics,
        problems,
        stats,
        suppressions,
        sections,
        program,
    }
}

/// What the per-method rules found: diagnostics that stand after the guard check, problems
/// (methods whose analysis failed), the number of methods analysed, a profile line and the time.
struct PerMethod {
    diagnostics: Vec<Diagnostic>,
    problems: Vec<InputProblem>,
    methods: usize,
    profile: String,
    time: Duration,
}

/// The per-method rules over every scanned class, then the guard check of what they found
/// against the program's writes.
fn per_method_rules(program: &Program, opts: &ScanOptions, progress: &dyn Progress) -> PerMethod {
    let t3 = Instant::now();
    let scanned = program.classes.iter().filter(|c| !c.library).count();
    let counter = Counter::start(progress, "analysing", scanned);
    let methods = AtomicUsize::new(0);
    let mut problems = Vec::new();
    let per_class: Vec<(Vec<Guarded>, Vec<InputProblem>)> = program
        .par_classes()
        .enumerate()
        .filter(|(_, c)| !c.library)
        .map(|(class_id, class)| {
            let out = analyse_class(program, class_id as u32, class, &opts.rules, &methods);
            counter.tick();
            out
        })
        .collect();
    let mut found: Vec<Guarded> = Vec::new();
    for (d, p) in per_class {
        found.extend(d);
        problems.extend(p);
    }
    // A value read and used inside one enclosing critical section stays a finding only if a
    // writer of what it read does not hold that lock.
    let t_guards = Instant::now();
    let vars: FxHashSet<GuardVar> = found
        .iter()
        .flat_map(|(_, q)| q.guard.map(|g| g.var).into_iter().chain(q.var))
        .collect();
    let writes = guards::writes_of(program, &vars);
    let before = found.len();
    let diagnostics: Vec<Diagnostic> = found
        .into_iter()
        .filter(|(_, q)| q.guard.is_none_or(|g| !writes.guarded(&g)))
        // A read-modify-write inside one region stands only where a writer holds other locks.
        .filter_map(|(mut d, q)| {
            let Some(update) = &q.wrong_lock else {
                return Some((d, q));
            };
            let (m, at) = writes.other_lock(program, update)?;
            explain::wrong_lock(&mut d, program, m, at);
            Some((d, q))
        })
        // A look at a queue's head goes stale only when another method takes from it too.
        .filter(|(_, q)| !q.head || q.var.is_some_and(|v| writes.taken_elsewhere(v, q.method)))
        .map(|(mut d, q)| {
            if let (Some(var), Some(e)) = (q.var, d.evidence.as_mut()) {
                let w = if writes.written_elsewhere(var, q.method) {
                    "elsewhere"
                } else {
                    "self"
                };
                *e = Box::leak(format!("{e}/{w}").into_boxed_str());
            }
            d
        })
        .collect();
    let profile = format!(
        "guards: {} variables, {} findings guarded, in {:?}",
        vars.len(),
        before - diagnostics.len(),
        t_guards.elapsed()
    );
    PerMethod {
        diagnostics,
        problems,
        methods: methods.load(Ordering::Relaxed),
        profile,
        time: t3.elapsed(),
    }
}

/// What the whole-program phase returns: diagnostics, the world description, the thread names,
/// methods left out, and profile figures.
type WholeProgram = (
    Vec<Diagnostic>,
    String,
    Vec<String>,
    Vec<InputProblem>,
    Vec<String>,
);

/// The whole-program rules: threads, views, and their checks. Returns the diagnostics (in
/// scanned classes only), the world description, the thread names, and methods left out.
fn whole_program(
    program: &Program,
    opts: &ScanOptions,
    packages: &[crate::load::Packaging],
    progress: &dyn Progress,
) -> WholeProgram {
    progress.phase("threads and views", 0);
    let t_threads = Instant::now();
    let (threads, world) = threads::find(
        program,
        opts.config.world,
        &opts.config.thread_safe_annotations,
        packages,
    );
    let names = threads.iter().map(|t| t.name.clone()).collect();
    if program.fields.owner.len() >= views::MAX_FIELDS {
        // More than a thousand million fields: no scan loads so much (the model alone would
        // take tens of gigabytes), but say so rather than name fields wrongly.
        let problem = InputProblem::internal(
            "(whole program)",
            format!(
                "the whole-program rules were skipped: {} fields are more than they can name ({})",
                program.fields.owner.len(),
                views::MAX_FIELDS
            ),
        );
        return (
            Vec::new(),
            world.describe(),
            names,
            vec![problem],
            Vec::new(),
        );
    }
    let threads_time = t_threads.elapsed();
    let thread_count = threads.len();
    let mc = opts.rules.contains(&RuleId::MethodConsistency);
    let hldr = opts.rules.contains(&RuleId::HighLevelDataRace);
    let csv = opts.rules.contains(&RuleId::CausalStaleValue);
    let (graph, explored) = views::explore(program, &threads);
    // The views over the explored graph and the causal analysis of its nodes need only the
    // graph: side by side, so that the serial stretches of the one (scopes, lock views) leave
    // the other core to the other.
    let t_causal = Instant::now();
    let (mut derived, analysed) = rayon::join(
        || views::complete(&graph, &threads),
        || {
            (mc || hldr || csv).then(|| {
                progress.phase("causal graph", 0);
                crate::whole::causal::analyse_nodes(program, &graph)
            })
        },
    );
    let mut profile = vec![format!("threads: {thread_count} in {threads_time:?}")];
    profile.extend(explored);
    profile.append(&mut derived.profile);
    let views = views::Views::assemble(graph, derived, threads);
    let mut problems = Vec::new();
    for (i, f) in views.facts.iter().enumerate() {
        if let Some(reason) = &f.failed {
            let n = views.nodes[i];
            let c = program.class(n.method.class);
            problems.push(InputProblem::internal(
                c.path.clone(),
                format!(
                    "method {}.{} was left out of the views: {reason}",
                    c.dotted_name(),
                    program.method(n.method).name
                ),
            ));
        }
    }
    let mut found = Vec::new();
    if let Some(analysed) = analysed {
        let mut graph = crate::whole::causal::finish(&views, analysed);
        profile.append(&mut graph.profile);
        profile.push(format!(
            "causal: built in {:?} (beside the views)",
            t_causal.elapsed()
        ));
        // method-consistency, the longest, beside the other two: its serial stretches (the
        // reported methods' explanations) leave a core to them.
        let (mc_found, others) = rayon::join(
            || {
                let mut profile = Vec::new();
                let found = mc.then(|| {
                    progress.phase("method-consistency", 0);
                    let t = Instant::now();
                    let found =
                        rules::method_consistency::check(program, &views, &graph, &mut profile);
                    profile.push(format!("method-consistency: in {:?}", t.elapsed()));
                    found
                });
                (found.unwrap_or_default(), profile)
            },
            || {
                let mut profile = Vec::new();
                let mut found = Vec::new();
                if hldr {
                    progress.phase("high-level-data-race", 0);
                    found.extend(rules::high_level_data_race::check(
                        program,
                        &views,
                        &graph,
                        &mut profile,
                    ));
                }
                if csv {
                    progress.phase("causal-stale-value", 0);
                    found.extend(rules::causal_stale_value::check(
                        program,
                        &views,
                        &graph,
                        &mut profile,
                    ));
                }
                (found, profile)
            },
        );
        for (f, mut p) in [mc_found, others] {
            found.extend(f);
            profile.append(&mut p);
        }
    }
    (found, world.describe(), names, problems, profile)
}

/// What a per-method finding stands on, asked of the program's writes (see [`guards`]): the
/// enclosing lock every writer must not hold, and the variable it read.
#[derive(Clone, Copy)]
struct Pending {
    guard: Option<GuardQuery>,
    var: Option<GuardVar>,
    method: crate::program::MethodId,
    /// The value was a look at a queue's head (`peek`, `isEmpty`).
    head: bool,
    /// A read-modify-write inside one region (see [`crate::rules::Finding::wrong_lock`]): it
    /// stands only if a writer holds other locks alone.
    wrong_lock: Option<guards::UpdateQuery>,
}

type Guarded = (Diagnostic, Pending);

fn analyse_class(
    program: &Program,
    class_id: u32,
    class: &Class,
    rules: &[RuleId],
    methods: &AtomicUsize,
) -> (Vec<Guarded>, Vec<InputProblem>) {
    let mut diags = Vec::new();
    let mut problems = Vec::new();
    // The class's call targets, resolved once for all its methods (the summaries are final).
    let calls = crate::analysis::locks::class_calls(class);
    for (mi, method) in class.methods.iter().enumerate() {
        let Some(code) = &method.code else { continue };
        methods.fetch_add(1, Ordering::Relaxed);
        let result = crate::diag::contain(|| {
            inject_panic(class, method);
            // No region, so no shared value: no control flow graph to build.
            let caller = crate::analysis::locks::Caller {
                program,
                class_id,
                class,
                method,
            };
            if !crate::analysis::locks::may_enter_region(&caller, Some(&calls)) {
                return Ok(Vec::new());
            }
            let cfg = Cfg::build(code);
            let cx = MethodCx {
                program,
                this_held: false,
                class_id,
                class,
                method,
                code,
                cfg: &cfg,
                entry_locks: program.entry_locks(crate::program::MethodId {
                    class: class_id,
                    method: mi as u32,
                }),
                calls: Some(&calls),
            };
            rules::check_method(&cx, rules)
        });
        let where_ = || {
            format!(
                "{}.{}{}",
                class.dotted_name(),
                method.name,
                method.descriptor
            )
        };
        match result {
            Ok(Ok(findings)) => diags.extend(findings.iter().filter_map(|f| {
                let guard = f.enclosing.and_then(|(lock, place, state)| {
                    guards::query(program, class_id, lock, place, state)
                });
                // A read-modify-write inside one region is only a candidate: without a question
                // to ask of the writers it is no finding.
                let wrong_lock = match (f.wrong_lock, f.read_place) {
                    (None, _) => None,
                    (Some((lock, outer, object)), Some((place, state))) => Some(
                        guards::update_query(program, class_id, place, state, object, lock, outer)?,
                    ),
                    (Some(_), None) => return None,
                };
                let pending = Pending {
                    guard,
                    var: f
                        .read_place
                        .and_then(|(place, state)| guards::var_of(program, class_id, place, state)),
                    method: crate::program::MethodId {
                        class: class_id,
                        method: mi as u32,
                    },
                    wrong_lock,
                    head: matches!(
                        code.insns.get(f.read_at as usize).map(|i| &i.op),
                        Some(crate::bytecode::Op::Invoke(_, r))
                            if program.thread_safe.is_head_read(&class.member(*r).name)
                    ),
                };
                Some((explain(class, method, code, f), pending))
            })),
            Ok(Err(e)) => problems.push(InputProblem::internal(
                class.path.clone(),
                format!("method {} was not analysed: {e}", where_()),
            )),
            Err(msg) => {
                problems.push(InputProblem::internal(
                    class.path.clone(),
                    format!(
                        "internal error while analysing {}: {msg} (the rest of the scan went on)",
                        where_()
                    ),
                ));
            }
        }
    }
    (diags, problems)
}

/// The classes the program holds (see [`crate::reach`]), in their order, each decoded.
fn reached_classes(mut slots: Vec<Slot>, problems: &mut Vec<InputProblem>) -> Vec<Class> {
    if slots.iter().all(|s| !s.library()) {
        // No classpath: every class is scanned, and parsed.
        return slots.into_iter().filter_map(Slot::into_class).collect();
    }
    let headers: Vec<_> = slots.par_iter().map(Slot::header).collect();
    let (mut reach, mut layer) = crate::reach::Reach::new(headers);
    let mut failed: Vec<(u32, InputProblem)> = Vec::new();
    let mut next = Vec::new();
    while !layer.is_empty() {
        // Decode the layer in parallel, then look at what it names.
        let decoded: Vec<(u32, Result<Class, InputProblem>)> = layer
            .par_iter()
            .filter_map(|&i| Some((i, slots[i as usize].decode_cached()?)))
            .collect();
        for (i, d) in decoded {
            match d {
                Ok(c) => slots[i as usize] = Slot::Class(c),
                Err(problem) => failed.push((i, problem)),
            }
        }
        for &i in &layer {
            if let Some(c) = slots[i as usize].class() {
                reach.visit(c, &mut next);
            }
        }
        layer = std::mem::take(&mut next);
    }
    failed.sort_by_key(|(i, _)| *i);
    problems.extend(failed.into_iter().map(|(_, p)| p));
    slots
        .into_iter()
        .zip(reach.into_reached())
        .filter_map(|(s, r)| if r { s.into_class() } else { None })
        .collect()
}

/// Parses one loaded class file; a panic in the parser loses only this class, reported once,
/// with nothing printed.
pub(crate) fn parse_raw(raw: load::RawClass) -> Result<Class, InputProblem> {
    let parsed = crate::diag::contain(|| {
        inject_parse_panic(&raw.path);
        parse_class(&raw.bytes, &raw.path, raw.library)
    });
    match parsed {
        Ok(Ok(class)) => Ok(class),
        Ok(Err(e)) => Err(InputProblem::error(
            raw.path.clone(),
            format!("not a valid class file: {e}"),
        )),
        Err(panic) => Err(InputProblem::error(
            raw.path.clone(),
            format!("not a valid class file: the parser failed on it ({panic})"),
        )),
    }
}

/// Fault injection for the end-to-end tests: `STALECHECK_DEBUG_PANIC=pkg.Class.method` makes
/// the analysis of that method panic, to prove a panic is contained to its method.
fn inject_panic(class: &Class, method: &crate::bytecode::Method) {
    if let Some(target) = std::env::var_os("STALECHECK_DEBUG_PANIC") {
        if target.to_string_lossy() == format!("{}.{}", class.dotted_name(), method.name) {
            panic!("injected by STALECHECK_DEBUG_PANIC");
        }
    }
}

/// Fault injection for the end-to-end tests: `STALECHECK_DEBUG_PANIC=parse:SUFFIX` makes the
/// parsing of every class whose path ends with SUFFIX panic, to prove such a panic is reported
/// once and prints nothing.
fn inject_parse_panic(path: &str) {
    if let Some(target) = std::env::var_os("STALECHECK_DEBUG_PANIC") {
        let target = target.to_string_lossy();
        if let Some(suffix) = target.strip_prefix("parse:") {
            if path.ends_with(suffix) {
                panic!("injected by STALECHECK_DEBUG_PANIC");
            }
        }
    }
}

/// The first source root holding `rel`, and the file's path under it.
fn find_source(roots: &[PathBuf], rel: &str) -> Option<(usize, PathBuf)> {
    roots
        .iter()
        .enumerate()
        .map(|(i, r)| (i, r.join(rel)))
        .find(|(_, p)| p.is_file())
}
