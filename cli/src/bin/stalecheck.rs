//! The `stalecheck` binary: parses the command line, runs the scan, writes the output, sets the
//! exit code. All analysis lives in the library.
//!
//! Exit codes: 0 no finding at or above `--fail-on` (default warning; with a baseline: no new
//! one); 1 such findings; 2 an input that cannot be read (unless `--lenient`), or a usage or
//! configuration error (bad flag, malformed stalecheck.toml, unreadable baseline).

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};
use miette::{miette, IntoDiagnostic, WrapErr};

use stalecheck::config::{find_config, AnalysisConfig, FileConfig, RuleSetting, UnknownCalls};
use stalecheck::diag::Severity;
use stalecheck::load::{parse_classpath, Limits};
use stalecheck::pipeline::{scan, Progress, ScanOptions};
use stalecheck::report::{self, Report, RunInfo};
use stalecheck::rules::{Level, RuleId, RULES};
use stalecheck::whole::threads::WorldChoice;
use stalecheck_sarif as sarif;

const EXIT_CLEAN: u8 = 0;
const EXIT_FINDINGS: u8 = 1;
/// Usage or configuration error, or an input that cannot be read.
const EXIT_USAGE: u8 = 2;

fn rules_help() -> String {
    let mut s = String::from("Rules:\n");
    for r in RULES {
        s.push_str(&format!(
            "  {:<24} [{}{}] {}\n",
            r.code,
            r.level.as_str(),
            if r.default_on { ", default" } else { "" },
            r.short
        ));
    }
    s.push_str(
        "\nRules marked `default` run when no rule is named; `--rules all` (or a level in the\n\
         [rules] table of stalecheck.toml) turns the others on.\n\nExit codes:\n  0  no finding at or above --fail-on (default warning; with a baseline: no new one)\n  \
         1  such findings\n  \
         2  an input that cannot be read (a missing path, an unreadable file, a corrupt archive or\n     \
         class; the rest is still scanned and reported; --lenient makes these warnings), or a\n     \
         usage or configuration error (bad flag, malformed stalecheck.toml, unreadable baseline)\n\n\
         Run `stalecheck rules ID` for a rule's documentation.",
    );
    s
}

#[derive(Parser)]
#[command(name = "stalecheck", version, about = "Static checker for atomicity bugs (stale values, lost updates, check-then-act, high-level data races) in JVM bytecode", after_help = rules_help())]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Scan class directories, class files and archives for atomicity bugs (the rules below).
    #[command(after_help = rules_help())]
    Scan(ScanArgs),
    /// Scan and write a baseline (a SARIF file) of today's findings: later scans with
    /// `--baseline` fail only on new ones. Same arguments as `scan`; exit 0 unless an error.
    Baseline(ScanArgs),
    /// Compare the SARIF files of a base and a head build (pull requests): new, fixed and
    /// unchanged findings; exit 1 when there are new ones at or above --fail-on.
    Diff(DiffArgs),
    /// Merge SARIF files (one per module) into one with one run per tool and category.
    Merge(MergeArgs),
    /// Print the documentation of one rule, or list the rules.
    Rules {
        /// A rule id, e.g. stale-value.
        id: Option<String>,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Sarif,
    Json,
    /// One self-contained HTML page (scan only).
    Html,
}

/// `--console`: compiler-style finding lines for build logs.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ConsoleArg {
    /// `path:line: warning: message [rule]`, then `    hint: ...`.
    Gradle,
    /// `warning: path:[line,col] message [rule]`, then `info:     hint: ...`.
    Maven,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum FailOn {
    Error,
    Warning,
    Note,
    None,
}

impl FailOn {
    fn level(self) -> Option<Level> {
        match self {
            FailOn::Error => Some(Level::Error),
            FailOn::Warning => Some(Level::Warning),
            FailOn::Note => Some(Level::Note),
            FailOn::None => None,
        }
    }
    fn sarif_level(self) -> Option<sarif::Level> {
        self.level().map(|l| match l {
            Level::Error => sarif::Level::Error,
            Level::Warning => sarif::Level::Warning,
            Level::Note => sarif::Level::Note,
        })
    }
    fn parse(s: &str) -> Option<FailOn> {
        <FailOn as ValueEnum>::from_str(s, false).ok()
    }
}

#[derive(Args)]
struct DiffArgs {
    /// SARIF file of the base build.
    #[arg(value_name = "BASE.sarif")]
    base: PathBuf,
    /// SARIF file of the head build.
    #[arg(value_name = "HEAD.sarif")]
    head: PathBuf,
    /// Output format: text, sarif (the head with `baselineState`), or json.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Write the output to this file instead of stdout.
    #[arg(long, short, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Fail (exit 1) on new findings at or above this level [default: warning].
    #[arg(long, value_enum, value_name = "LEVEL", default_value = "warning")]
    fail_on: FailOn,
}

#[derive(Args)]
struct MergeArgs {
    /// SARIF files to merge.
    #[arg(required = true, value_name = "FILE.sarif")]
    inputs: Vec<PathBuf>,
    /// Where to write the merged SARIF file.
    #[arg(long, short, required = true, value_name = "FILE")]
    output: PathBuf,
    /// The run-time agent's JSON reports (repeatable), applied to stalecheck's runs of the
    /// merged file (see `scan --confirmations`).
    #[arg(long, value_name = "FILE")]
    confirmations: Vec<PathBuf>,
}

#[derive(Clone, Copy, ValueEnum)]
enum WorldArg {
    /// An application when a class directory has a main or a jar's Main-Class starts threads.
    Auto,
    /// The public API of synchronizing classes is called by many threads at once.
    Library,
    /// The main methods are the programs, each with the threads it starts.
    Application,
}

#[derive(Clone, Copy, ValueEnum)]
enum UnknownCallsArg {
    /// Unknown methods take no lock (few false alarms).
    NoLock,
    /// The papers' conservative rule: an unknown method may take a lock of its own.
    Conservative,
}

#[derive(Args)]
struct ScanArgs {
    /// Directories, .class files and archives (.jar, .war, .ear, .zip, .jmod) to scan.
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Dependencies (path-separator list; `@file` reads entries from a file). Used for the class
    /// hierarchy and method summaries; never reported. May be repeated.
    #[arg(long, value_name = "P")]
    classpath: Vec<String>,
    /// Where the `.java` sources live (e.g. src/main/java), for snippets and SARIF paths.
    #[arg(long = "source-root", value_name = "DIR")]
    source_roots: Vec<PathBuf>,
    /// Output format [default: text; sarif for `baseline`].
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Write the output to this file instead of stdout.
    #[arg(long, short, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Also write the HTML report to this file (besides --format/--output; what the plugins
    /// use to write it next to the SARIF file).
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Comma-separated rule ids to run, or `all` [default: the rules marked `default` in
    /// `stalecheck rules`].
    #[arg(long, value_name = "IDS", value_delimiter = ',')]
    rules: Vec<String>,
    /// Inputs that cannot be read (a missing path, an unreadable file, a corrupt archive or
    /// class) are warnings, and the exit code comes from the findings alone [default: they are
    /// errors: exit 2; or `lenient` in stalecheck.toml].
    #[arg(long, conflicts_with = "strict")]
    lenient: bool,
    /// Inputs that cannot be read fail the run (exit 2): the default now; kept so that older
    /// command lines still work.
    #[arg(long)]
    strict: bool,
    /// Block-local atomicity: assume every lock taken by a callee is distinct from the caller's.
    #[arg(long)]
    context_insensitive: bool,
    /// How to model calls to methods whose code is not available.
    #[arg(long, value_enum, default_value = "no-lock")]
    unknown_calls: UnknownCallsArg,
    /// Simple name of an annotation marking atomic methods (repeatable) [default: Atomic].
    #[arg(long = "atomic-annotation", value_name = "NAME")]
    atomic_annotations: Vec<String>,
    /// Whole-program rules: what the scanned code is. `library`: every public method of a
    /// synchronizing class may be called by many threads at once (open world); `application`:
    /// the main methods are the programs, each with the threads it starts (closed world);
    /// `auto`: an application when a class directory has a main, or a jar's Main-Class starts
    /// threads, a library otherwise [default: auto, or `world` in stalecheck.toml].
    #[arg(long, value_enum, value_name = "WORLD")]
    world: Option<WorldArg>,
    /// The same as `--world library`.
    #[arg(long, conflicts_with = "world")]
    open_world: bool,
    /// Never show the progress indicator (on a terminal a live line with the phase and how far
    /// it is; elsewhere, e.g. in CI logs, a plain line every few seconds once a scan has run
    /// for a while).
    #[arg(long)]
    no_progress: bool,
    /// Print nothing on stderr but problems and errors: no progress, no summary line.
    #[arg(long, short)]
    quiet: bool,
    /// The configuration file [default: stalecheck.toml in the working directory or the
    /// nearest parent that has one].
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// A baseline SARIF file (from `stalecheck baseline`): results get a baselineState, and only
    /// new findings fail the run.
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// Fail (exit 1) on findings at or above this level (with a baseline: new ones)
    /// [default: warning, or `fail-on` in stalecheck.toml].
    #[arg(long, value_enum, value_name = "LEVEL")]
    fail_on: Option<FailOn>,
    /// SARIF `automationDetails.id` category, for several analyses of one repository on GitHub
    /// (written as `CAT/`).
    #[arg(long, value_name = "CAT")]
    category: Option<String>,
    /// Print each new finding (not suppressed; with a baseline, new) on stdout as a compiler-style
    /// line with the rule id and a one-line hint, then a summary line, for build logs:
    /// `gradle` = `path:line: warning: message [rule]`, `maven` = `warning: path:[line,col]
    /// message [rule]`. The report of --format goes to --output (without --output only the
    /// console lines are printed).
    #[arg(long, value_enum, value_name = "STYLE")]
    console: Option<ConsoleArg>,
    /// The most memory, in MiB, that loading may hold at one time (archives being read, class
    /// files waiting to be parsed); what does not fit is reported and skipped [default: 1024].
    /// Also `memory-budget` in stalecheck.toml.
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..=stalecheck::config::MAX_MEMORY_BUDGET_MIB))]
    memory_budget: Option<u64>,
    /// Also write the atomic sections for the run-time agent (stalecheck-agent.jar) to this
    /// JSON file (docs/sections.schema.json): the reads and uses of the stale-value findings,
    /// check-then-acts, load-and-store and test-and-use patterns, and the other accesses of their
    /// fields.
    #[arg(long, value_name = "FILE")]
    sections: Option<PathBuf>,
    /// The run-time agent's JSON reports (repeatable): findings it saw broken are marked
    /// confirmed (property, rank 100, the run's thread flow), findings whose section ran under
    /// noise without a conflict are marked exercised. Needs --format sarif.
    #[arg(long, value_name = "FILE")]
    confirmations: Vec<PathBuf>,
    /// The summary cache: what loading and parsing made of each `--classpath` archive, keyed by
    /// its contents, so that the next scan with the same dependencies skips them (the findings
    /// are the same bytes with or without it) [default: $XDG_CACHE_HOME/stalecheck, else
    /// ~/.cache/stalecheck; the plugins pass their build's cache directory].
    #[arg(long, value_name = "DIR", conflicts_with = "no_cache")]
    cache: Option<PathBuf>,
    /// Neither read nor write the summary cache [or `cache = false` in stalecheck.toml; `cache =
    /// "DIR"` there is like --cache DIR].
    #[arg(long)]
    no_cache: bool,
    /// The most the summary cache may hold on disk, in MiB; the least recently used entries go
    /// first [default: 1024, or `cache-size` in stalecheck.toml].
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..))]
    cache_size: Option<u64>,
}

/// Where the summary cache lives when `--cache` does not say: `$XDG_CACHE_HOME/stalecheck`, else
/// `~/.cache/stalecheck` (`%LOCALAPPDATA%\stalecheck` on Windows); none without a home.
fn default_cache_dir() -> Option<PathBuf> {
    let non_empty = |v: &str| {
        std::env::var_os(v)
            .filter(|s| !s.is_empty())
            .map(PathBuf::from)
    };
    if cfg!(windows) {
        return non_empty("LOCALAPPDATA").map(|d| d.join("stalecheck"));
    }
    non_empty("XDG_CACHE_HOME")
        .filter(|d| d.is_absolute())
        .or_else(|| non_empty("HOME").map(|h| h.join(".cache")))
        .map(|d| d.join("stalecheck"))
}

/// The summary cache the scan uses: `--no-cache` (or `cache = false` in stalecheck.toml) none,
/// else `--cache DIR`, else `cache = "DIR"`, else the default directory; `--cache-size`, else
/// `cache-size`, else 1 GiB. None when the test hook that makes parsing panic is set (it must see
/// every class parsed).
fn cache_options(
    args: &ScanArgs,
    file: Option<&FileConfig>,
    classpath: &[PathBuf],
) -> Option<stalecheck::cache::deps::CacheOptions> {
    use stalecheck::config::CacheSetting;
    let setting = file.and_then(|f| f.cache.clone());
    if args.no_cache || std::env::var_os("STALECHECK_DEBUG_PANIC").is_some() {
        return None;
    }
    // Only classpath archives are cached: without one, the executable is not even hashed.
    let archives = classpath.iter().any(|p| {
        p.file_name()
            .is_some_and(|n| stalecheck::load::is_archive_name(&n.to_string_lossy()))
    });
    if !archives {
        return None;
    }
    let dir = match (&args.cache, setting) {
        (Some(dir), _) => dir.clone(),
        (None, Some(CacheSetting::Off)) => return None,
        (None, Some(CacheSetting::Dir(dir))) => dir,
        (None, Some(CacheSetting::On) | None) => default_cache_dir()?,
    };
    let mib = args.cache_size.or(file.and_then(|f| f.cache_size));
    Some(stalecheck::cache::deps::CacheOptions {
        store: stalecheck::cache::Store::new(
            dir,
            mib.map_or(stalecheck::cache::DEFAULT_MAX_BYTES, |m| {
                m.saturating_mul(1 << 20)
            }),
        ),
        build_id: build_id()?,
    })
}

/// Identifies this build of stalecheck for the cache's keys: a hash of the executable (another
/// build may parse or analyse differently, so it never reads this one's entries). `None` when
/// the executable cannot be read: then there is no cache.
fn build_id() -> Option<u128> {
    let exe = std::env::current_exe().ok()?;
    let bytes = std::fs::read(exe).ok()?;
    Some(stalecheck::cache::content_hash(&bytes))
}

/// How the progress of a scan is shown on stderr.
#[derive(Clone, Copy, PartialEq)]
enum ProgressMode {
    Off,
    /// A terminal: one line rewritten in place, cleared at the end.
    Live,
    /// A log (CI, a build tool): plain lines, only once the scan has run for
    /// [`PLAIN_AFTER`], and at most one per [`PLAIN_EVERY`].
    Plain,
}

const LIVE_EVERY: std::time::Duration = std::time::Duration::from_millis(100);
const PLAIN_AFTER: std::time::Duration = std::time::Duration::from_secs(2);
const PLAIN_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

struct ProgressLine {
    mode: ProgressMode,
    /// [`PLAIN_AFTER`] and [`PLAIN_EVERY`], or both `STALECHECK_PROGRESS_INTERVAL_MS` (the
    /// tests' hook: a short scan shows its plain lines).
    plain_after: std::time::Duration,
    plain_every: std::time::Duration,
    start: std::time::Instant,
    state: std::sync::Mutex<ProgressState>,
}

struct ProgressState {
    phase: &'static str,
    total: usize,
    done: usize,
    last: Option<std::time::Instant>,
    live_shown: bool,
}

impl ProgressLine {
    fn new(mode: ProgressMode) -> Self {
        let interval = std::env::var("STALECHECK_PROGRESS_INTERVAL_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .map(std::time::Duration::from_millis);
        ProgressLine {
            mode,
            plain_after: interval.unwrap_or(PLAIN_AFTER),
            plain_every: interval.unwrap_or(PLAIN_EVERY),
            start: std::time::Instant::now(),
            state: std::sync::Mutex::new(ProgressState {
                phase: "starting",
                total: 0,
                done: 0,
                last: None,
                live_shown: false,
            }),
        }
    }

    fn show(&self, st: &mut ProgressState, phase_changed: bool) {
        let now = std::time::Instant::now();
        let since_last = st.last.map(|t| now - t);
        let due = match self.mode {
            ProgressMode::Off => false,
            ProgressMode::Live => phase_changed || since_last.is_none_or(|d| d >= LIVE_EVERY),
            ProgressMode::Plain => {
                now - self.start >= self.plain_after
                    && since_last.is_none_or(|d| d >= self.plain_every)
            }
        };
        if !due {
            return;
        }
        st.last = Some(now);
        let elapsed = (now - self.start).as_secs();
        let amount = if st.total > 0 {
            format!(
                " {}/{} ({}%)",
                st.done,
                st.total,
                st.done * 100 / st.total.max(1)
            )
        } else {
            String::new()
        };
        let mut err = std::io::stderr().lock();
        if self.mode == ProgressMode::Live {
            st.live_shown = true;
            let _ = write!(err, "\r\x1b[Kstalecheck: {}{amount}, {elapsed} s", st.phase);
        } else {
            let _ = writeln!(
                err,
                "stalecheck: progress: {}{amount}, {elapsed} s",
                st.phase
            );
        }
        let _ = err.flush();
    }

    /// Clears the live line (the scan is over).
    fn finish(&self) {
        let st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if st.live_shown {
            eprint!("\r\x1b[K");
        }
    }
}

impl Progress for ProgressLine {
    fn phase(&self, name: &'static str, total: usize) {
        if self.mode == ProgressMode::Off {
            return;
        }
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.phase = name;
        st.total = total;
        st.done = 0;
        self.show(&mut st, true);
    }
    fn advance(&self, done: usize) {
        if self.mode == ProgressMode::Off {
            return;
        }
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.done = st.done.max(done);
        self.show(&mut st, false);
    }
}

fn main() -> ExitCode {
    tune_allocator();
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() {
                EXIT_USAGE
            } else {
                EXIT_CLEAN
            });
        }
    };
    match cli.command {
        Command::Rules { id } => rules_command(id.as_deref()),
        Command::Scan(args) => exit(run_scan(args, false)),
        Command::Baseline(args) => exit(run_scan(args, true)),
        Command::Diff(args) => exit(run_diff(args)),
        Command::Merge(args) => exit(run_merge(args)),
    }
}

fn exit(r: miette::Result<u8>) -> ExitCode {
    match r {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("{e:?}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

fn rules_command(id: Option<&str>) -> ExitCode {
    match id {
        None => {
            println!("{}", rules_help());
            ExitCode::from(EXIT_CLEAN)
        }
        Some(id) => match RuleId::from_code(id) {
            Some(r) => {
                println!("{}", r.meta().docs);
                ExitCode::from(EXIT_CLEAN)
            }
            None => {
                eprintln!("{:?}", unknown_rule(id));
                ExitCode::from(EXIT_USAGE)
            }
        },
    }
}

fn unknown_rule(id: &str) -> miette::Report {
    let known: Vec<&str> = RULES.iter().map(|r| r.code).collect();
    miette!(
        help = format!("known rules: {}", known.join(", ")),
        "unknown rule id `{id}`"
    )
}

/// The configuration file: `--config`, else `stalecheck.toml` found upwards from the working
/// directory.
fn load_config(explicit: Option<&std::path::Path>) -> miette::Result<Option<FileConfig>> {
    let path = match explicit {
        Some(p) => Some(p.to_path_buf()),
        None => std::env::current_dir().ok().and_then(|d| find_config(&d)),
    };
    match path {
        None => Ok(None),
        Some(p) => FileConfig::load(&p)
            .map(Some)
            .map_err(|e| miette::Report::new(*e)),
    }
}

/// Writes the agent's sections file and says what is in it.
fn write_sections(
    path: &std::path::Path,
    file: &stalecheck::sections::SectionsFile,
    counts: &stalecheck::sections::Counts,
) -> miette::Result<()> {
    let text = serde_json::to_string_pretty(file).into_diagnostic()?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .into_diagnostic()
            .wrap_err_with(|| format!("cannot create {}", dir.display()))?;
    }
    std::fs::write(path, text + "\n")
        .into_diagnostic()
        .wrap_err_with(|| format!("cannot write the sections file {}", path.display()))?;
    eprintln!(
        "stalecheck: sections: {} from findings, {} from patterns, {} primitive ({} findings with no \
         section: read not a field in the method, or use in another method) -> {}",
        counts.from_findings,
        counts.patterns,
        counts.primitive,
        counts.skipped_findings,
        path.display()
    );
    Ok(())
}

fn run_scan(args: ScanArgs, baseline_mode: bool) -> miette::Result<u8> {
    let t_start = std::time::Instant::now();
    let file = load_config(args.config.as_deref())?;
    let file_ref = file.as_ref();
    let rules = if args.rules.is_empty() {
        // The default set, plus what stalecheck.toml turns on (a level) or off.
        RULES
            .iter()
            .filter(|r| match file_ref.and_then(|f| f.rules.get(&r.id)) {
                Some(RuleSetting::Off) => false,
                Some(RuleSetting::Level(_)) => true,
                None => r.default_on,
            })
            .map(|r| r.id)
            .collect()
    } else if args.rules.iter().any(|r| r.trim() == "all") {
        RULES.iter().map(|r| r.id).collect()
    } else {
        let mut v = Vec::new();
        for code in args
            .rules
            .iter()
            .map(|s| s.trim())
            .filter(|s| !s.is_empty())
        {
            v.push(RuleId::from_code(code).ok_or_else(|| unknown_rule(code))?);
        }
        v.sort();
        v.dedup();
        v
    };
    let mut classpath = Vec::new();
    for cp in &args.classpath {
        classpath.extend(
            parse_classpath(cp)
                .into_diagnostic()
                .wrap_err("invalid --classpath")?,
        );
    }
    let mut config = AnalysisConfig {
        context_insensitive: args.context_insensitive,
        world: match (args.world, args.open_world) {
            (Some(WorldArg::Auto), _) => WorldChoice::Auto,
            (Some(WorldArg::Library), _) | (None, true) => WorldChoice::Library,
            (Some(WorldArg::Application), _) => WorldChoice::Application,
            (None, false) => file_ref
                .and_then(|f| {
                    f.world.or(f.open_world.map(|o| {
                        if o {
                            WorldChoice::Library
                        } else {
                            WorldChoice::Auto
                        }
                    }))
                })
                .unwrap_or_default(),
        },
        unknown_calls: match args.unknown_calls {
            UnknownCallsArg::NoLock => UnknownCalls::NoLock,
            UnknownCallsArg::Conservative => UnknownCalls::Conservative,
        },
        ..AnalysisConfig::default()
    };
    if !args.atomic_annotations.is_empty() {
        config.atomic_annotations = args.atomic_annotations.clone();
    } else if let Some(a) = file_ref.and_then(|f| f.atomic_annotations.clone()) {
        config.atomic_annotations = a;
    }
    if let Some(f) = file_ref {
        if let Some(a) = &f.thread_safe_annotations {
            config.thread_safe_annotations = a.clone();
        }
        config.thread_safe_classes = f
            .thread_safe_classes
            .iter()
            .map(|c| c.replace('.', "/"))
            .collect();
    }
    let mut source_roots = args.source_roots.clone();
    if let Some(f) = file_ref {
        source_roots.extend(f.source_roots.iter().cloned());
    }
    let fail_on = match (args.fail_on, file_ref.and_then(|f| f.fail_on.as_deref())) {
        (Some(f), _) => f,
        (None, Some(s)) => FailOn::parse(s).unwrap_or(FailOn::Warning),
        (None, None) => FailOn::Warning,
    };
    let category = args
        .category
        .clone()
        .or_else(|| file_ref.and_then(|f| f.category.clone()));
    let format = match (baseline_mode, args.format) {
        (false, f) => f.unwrap_or(Format::Text),
        (true, None | Some(Format::Sarif)) => Format::Sarif,
        (true, Some(_)) => {
            return Err(miette!(
                "`stalecheck baseline` writes SARIF; leave out --format"
            ));
        }
    };
    if args.console.is_some() && args.format.is_some() && args.output.is_none() && !baseline_mode {
        return Err(miette!(
            help = "e.g. --format sarif --output stalecheck.sarif --console gradle",
            "--console prints the findings on stdout; write the --format report with --output"
        ));
    }
    // `baseline` writes to --output, else to the baseline path of stalecheck.toml; `scan`
    // compares with --baseline, else with that path.
    let config_baseline = file_ref.and_then(|f| f.baseline.clone());
    let output = match (baseline_mode, &args.output) {
        (true, None) => Some(config_baseline.clone().ok_or_else(|| {
            miette!(
                help = "e.g. stalecheck baseline build/classes --output stalecheck-baseline.sarif",
                "`stalecheck baseline` needs --output FILE (or `baseline` in stalecheck.toml)"
            )
        })?),
        (_, o) => o.clone(),
    };
    let baseline_path = if baseline_mode {
        None
    } else {
        args.baseline.clone().or(config_baseline)
    };
    let baseline = match &baseline_path {
        None => None,
        Some(p) => Some(report::baseline::load(p).map_err(|e| {
            miette!(
                help = "create one with `stalecheck baseline <scan arguments> --output FILE`",
                "{e}"
            )
        })?),
    };

    let cache = cache_options(&args, file_ref, &classpath);
    let opts = ScanOptions {
        inputs: args.paths.clone(),
        classpath,
        source_roots,
        rules,
        config,
        limits: Limits {
            memory_budget: args
                .memory_budget
                .or(file_ref.and_then(|f| f.memory_budget))
                .map_or(Limits::default().memory_budget, |mib| mib << 20),
            ..Limits::default()
        },
        sections: args.sections.is_some(),
        cache,
    };
    let progress = ProgressLine::new(if args.no_progress || args.quiet {
        ProgressMode::Off
    } else if std::io::stderr().is_terminal() {
        ProgressMode::Live
    } else {
        ProgressMode::Plain
    });
    let t_scan = std::time::Instant::now();
    let mut out = scan(&opts, &progress);
    progress.finish();
    let t_scan_end = std::time::Instant::now();
    if std::env::var_os("STALECHECK_TIMINGS").is_some() {
        eprintln!(
            "timings: total: before the scan {:?}, scan {:?}",
            t_scan - t_start,
            t_scan_end - t_scan
        );
    }
    if std::env::var_os("STALECHECK_TIMINGS").is_some() {
        let s = &out.stats;
        eprintln!(
            "timings: load {:?}, parse {:?}, summaries {:?}, analysis {:?}, whole-program {:?}",
            s.load_time, s.parse_time, s.summary_time, s.analysis_time, s.whole_program_time
        );
        for line in &s.profile {
            eprintln!("timings: {line}");
        }
        let c = &s.cache;
        eprintln!(
            "timings: cache: {} hits, {} misses, {} written, {} evicted; look-up {:?} (hashing the archives {:?}), store {:?}",
            c.hits, c.misses, c.written, c.evicted, c.lookup_time, c.hash_time, c.store_time
        );
    }
    if !args.quiet {
        for (path, why) in &out.stats.cache.corrupt {
            eprintln!("stalecheck: note: the cache entry of {path} {why}; rebuilt");
        }
        for e in &out.stats.cache.write_errors {
            eprintln!("stalecheck: note: {e} (the summary cache is not updated)");
        }
    }

    // --strict (the default) wins over `lenient` in stalecheck.toml.
    let lenient = args.lenient || (!args.strict && file_ref.and_then(|f| f.lenient) == Some(true));
    if lenient {
        for p in &mut out.problems {
            if p.is_unreadable_input() {
                p.severity = Severity::Warning;
            }
        }
    }
    let unreadable = out
        .problems
        .iter()
        .filter(|p| p.is_unreadable_input())
        .count();
    for p in &out.problems {
        let tag = match p.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        };
        eprintln!("stalecheck: {tag}: {p}");
    }
    if let (Some(path), Some((file, counts))) = (&args.sections, &out.sections) {
        write_sections(path, file, counts)?;
    }
    let t_out = std::time::Instant::now();
    let policy = report::suppress::Policy {
        levels: file_ref.map(|f| &f.rules),
        exclude: file_ref.map(|f| f.exclude.as_slice()).unwrap_or(&[]),
        suppress: file_ref.map(|f| f.suppress.as_slice()).unwrap_or(&[]),
    };
    let (suppressions, notes) = report::suppress::apply(&mut out, &policy);
    let t_suppress = t_out.elapsed();
    let cwd = std::env::current_dir().ok();
    let full = baseline.is_some() || format == Format::Sarif;
    let mut results =
        report::sarif::results(&out, suppressions, &opts.source_roots, cwd.as_deref(), full);
    let t_results = t_out.elapsed();
    let absent = match &baseline {
        Some(b) => {
            let ran: Vec<&str> = opts.rules.iter().map(|r| r.code()).collect();
            report::baseline::apply(&mut results, b, &ran)
        }
        None => Vec::new(),
    };
    let rep = Report {
        out: &out,
        results,
        baseline: baseline.is_some(),
        absent,
        notes,
    };
    for n in &rep.notes {
        eprintln!("stalecheck: {}: {}", n.level, n.message);
    }
    let failing = rep.failing(fail_on.level());
    let code = if unreadable > 0 {
        EXIT_USAGE
    } else if baseline_mode {
        EXIT_CLEAN
    } else if failing > 0 {
        EXIT_FINDINGS
    } else {
        EXIT_CLEAN
    };
    if unreadable > 0 {
        eprintln!(
            "stalecheck: error: {unreadable} input(s) could not be read (see above); the rest was \
             scanned and reported. Fix the paths, or pass --lenient to report them as warnings"
        );
    }

    if !args.confirmations.is_empty() && format != Format::Sarif {
        return Err(miette!(
            help = "e.g. --format sarif --output stalecheck.sarif --confirmations agent.json",
            "--confirmations marks SARIF results: use --format sarif"
        ));
    }
    let to_terminal = output.is_none() && std::io::stdout().is_terminal();
    let rendered = match format {
        Format::Text => report::text::render(&rep, to_terminal),
        Format::Json => report::json::render(&rep, to_terminal),
        Format::Html => report::html::render(&rep),
        Format::Sarif => {
            let info = RunInfo {
                command_line: std::env::args().collect(),
                working_directory: cwd.clone(),
                exit_code: code as i32,
                execution_successful: unreadable == 0,
                category,
            };
            let (text, cut) = report::sarif::render(&rep, &opts, &info);
            for c in cut {
                eprintln!("stalecheck: warning: {c}");
            }
            if args.confirmations.is_empty() {
                text
            } else {
                let mut log: serde_json::Value = serde_json::from_str(&text).into_diagnostic()?;
                apply_confirmations(&mut log, &args.confirmations)?;
                serde_json::to_string_pretty(&log).into_diagnostic()? + "\n"
            }
        }
    };
    if let Some(path) = &args.html {
        write_output(Some(path), &report::html::render(&rep))?;
    }
    let t_render = t_out.elapsed();
    // With --console and no --output, stdout gets the console lines only.
    if output.is_some() || args.console.is_none() {
        write_output(output.as_deref(), &rendered)?;
    }
    if let Some(style) = args.console {
        let style = match style {
            ConsoleArg::Gradle => report::console::Style::Gradle,
            ConsoleArg::Maven => report::console::Style::Maven,
        };
        let lines = report::console::render(&rep, style, output.as_deref(), cwd.as_deref());
        write_output(None, &lines)?;
    }
    if std::env::var_os("STALECHECK_TIMINGS").is_some() {
        eprintln!("timings: output {:?}", t_out.elapsed());
        eprintln!(
            "timings: output: suppressions {t_suppress:?}, results and fingerprints {:?}, \
             rendering {:?}, since the scan ended {:?}, since start {:?}",
            t_results - t_suppress,
            t_render - t_results,
            t_scan_end.elapsed(),
            t_start.elapsed()
        );
    }
    if args.console.is_none() && !args.quiet && (output.is_some() || format != Format::Text) {
        // Keep a one-line summary for people when the findings went elsewhere.
        if std::io::stderr().is_terminal() || output.is_some() {
            let line = report::text::summary_line(&rep);
            match &output {
                Some(p) => eprintln!("{line}; report written to {}", p.display()),
                None => eprintln!("{line}"),
            }
        }
    }
    // The process ends here: freeing hundreds of thousands of small allocations one by one
    // would only delay the exit.
    std::mem::forget(rendered);
    std::mem::forget(rep);
    std::mem::forget(out);
    Ok(code)
}

/// Reads the agent's reports and marks stalecheck's results in `log` with them.
fn apply_confirmations(log: &mut serde_json::Value, paths: &[PathBuf]) -> miette::Result<()> {
    if paths.is_empty() {
        return Ok(());
    }
    let mut reports = Vec::new();
    for p in paths {
        let text = std::fs::read_to_string(p)
            .into_diagnostic()
            .wrap_err_with(|| format!("cannot read the agent report {}", p.display()))?;
        reports.push(
            stalecheck::confirm::parse_report(&text)
                .into_diagnostic()
                .wrap_err_with(|| format!("{} is not a usable agent report", p.display()))?,
        );
    }
    let s = stalecheck::confirm::apply(log, &reports);
    eprintln!(
        "stalecheck: confirmations: {} finding(s) observed broken at run time, {} section(s) \
         exercised under noise without a conflict{}",
        s.confirmed,
        s.exercised.len(),
        if s.unmatched > 0 {
            format!(
                ", {} violation(s) of finding sections matched no finding of the log",
                s.unmatched
            )
        } else {
            String::new()
        }
    );
    for id in &s.exercised {
        eprintln!("stalecheck:   exercised without a conflict: {id}");
    }
    Ok(())
}

fn read_sarif(path: &std::path::Path) -> miette::Result<serde_json::Value> {
    let text = std::fs::read_to_string(path)
        .into_diagnostic()
        .wrap_err_with(|| format!("cannot read {}", path.display()))?;
    sarif::read::parse_log(&text)
        .into_diagnostic()
        .wrap_err_with(|| format!("{} is not a usable SARIF file", path.display()))
}

fn run_diff(args: DiffArgs) -> miette::Result<u8> {
    let base = read_sarif(&args.base)?;
    let head = read_sarif(&args.head)?;
    let d = sarif::baseline::diff_logs(&base, &head);
    let min = args.fail_on.sarif_level();
    let failing = d
        .head
        .iter()
        .filter(|(e, st)| {
            *st == sarif::BaselineState::New
                && !e.suppressed
                && min.is_some_and(|m| e.result.level >= m)
        })
        .count();
    let to_terminal = args.output.is_none() && std::io::stdout().is_terminal();
    let rendered = match args.format {
        Format::Html => {
            return Err(miette::miette!(
                help = "for an HTML report with new and baselined findings: stalecheck scan --baseline BASE.sarif --format html",
                "`stalecheck diff` writes text, json or sarif"
            ))
        }
        Format::Text => report::text::render_diff(&d, failing),
        Format::Json => report::json::render_diff(&d, failing, to_terminal),
        Format::Sarif => {
            let mut v = sarif::baseline::annotate(&base, &head, &d);
            let (text, cut) = sarif::limits::enforce(&mut v, sarif::limits::GITHUB);
            for c in cut {
                eprintln!("stalecheck: warning: {c}");
            }
            text
        }
    };
    write_output(args.output.as_deref(), &rendered)?;
    Ok(if failing > 0 {
        EXIT_FINDINGS
    } else {
        EXIT_CLEAN
    })
}

fn run_merge(args: MergeArgs) -> miette::Result<u8> {
    let mut logs = Vec::new();
    for p in &args.inputs {
        logs.push(read_sarif(p)?);
    }
    let mut merged = sarif::merge::merge(&logs);
    apply_confirmations(&mut merged, &args.confirmations)?;
    let (text, cut) = sarif::limits::enforce(&mut merged, sarif::limits::GITHUB);
    for c in cut {
        eprintln!("stalecheck: warning: {c}");
    }
    write_output(Some(&args.output), &text)?;
    eprintln!(
        "stalecheck: merged {} file(s) into {} run(s); written to {}",
        args.inputs.len(),
        sarif::read::runs(&merged).len(),
        args.output.display()
    );
    Ok(EXIT_CLEAN)
}

fn write_output(path: Option<&std::path::Path>, text: &str) -> miette::Result<()> {
    match path {
        Some(p) => {
            if let Some(dir) = p.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir)
                    .into_diagnostic()
                    .wrap_err_with(|| format!("cannot create {}", dir.display()))?;
            }
            std::fs::write(p, text)
                .into_diagnostic()
                .wrap_err_with(|| format!("cannot write {}", p.display()))
        }
        None => {
            let mut stdout = std::io::stdout().lock();
            // A closed pipe (e.g. `| head`) is not an error worth reporting.
            let _ = stdout.write_all(text.as_bytes());
            let _ = stdout.flush();
            Ok(())
        }
    }
}

// The scan allocates many small, short-lived frames on every core; mimalloc's thread-local
// free lists beat glibc's arenas here (measured: see bench/README.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A scan builds its heap once and frees most of it at the end, so memory returned to the OS
/// early only comes back as fresh page faults, and transparent huge pages make every first touch
/// zero 2 MiB. Both cost about a second of system time on the JDK (bench/README.md); turning them
/// off costs a few percent of peak memory.
fn tune_allocator() {
    extern "C" {
        fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
    }
    // `mi_option_purge_delay` in the mimalloc v3 sources libmimalloc-sys 0.1.49 builds
    // (Cargo.lock pins it); -1 means never purge.
    const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;
    // SAFETY: setting a mimalloc option is thread-safe and has no memory effects of its own.
    unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
    #[cfg(target_os = "linux")]
    {
        extern "C" {
            fn prctl(option: std::ffi::c_int, ...) -> std::ffi::c_int;
        }
        const PR_SET_THP_DISABLE: std::ffi::c_int = 41;
        // SAFETY: PR_SET_THP_DISABLE only sets a flag on this process; a failure (old kernel)
        // is harmless and ignored.
        let _ = unsafe {
            prctl(
                PR_SET_THP_DISABLE,
                1 as std::ffi::c_ulong,
                0 as std::ffi::c_ulong,
                0 as std::ffi::c_ulong,
                0 as std::ffi::c_ulong,
            )
        };
    }
}
