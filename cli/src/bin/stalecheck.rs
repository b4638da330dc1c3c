//! The `stalecheck` binary: parses the command line, runs the scan, writes the output, sets the
//! exit code. All analysis lives in the library.
//!
//! Exit codes: 0 no finding at warning level or above; 1 findings at warning level or above
//! (or, with `--strict`, an input problem); 2 usage or configuration error.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};
use miette::{miette, IntoDiagnostic, WrapErr};

use stalecheck::config::{AnalysisConfig, UnknownCalls};
use stalecheck::diag::Severity;
use stalecheck::load::{parse_classpath, Limits};
use stalecheck::pipeline::{scan, ScanOptions, ScanOutput};
use stalecheck::report::{self, RunInfo};
use stalecheck::rules::{Level, RuleId, RULES};

const EXIT_CLEAN: u8 = 0;
const EXIT_FINDINGS: u8 = 1;
const EXIT_USAGE: u8 = 2;

fn rules_help() -> String {
    let mut s = String::from("Rules:\n");
    for r in RULES {
        s.push_str(&format!(
            "  {:<24} [{}] {}\n",
            r.code,
            r.level.as_str(),
            r.short
        ));
    }
    s.push_str(
        "\nExit codes:\n  0  no finding at warning level or above\n  1  findings at warning level or above \
         (with --strict: also any input problem)\n  2  usage or configuration error\n\nRun `stalecheck rules ID` for a rule's documentation.",
    );
    s
}

#[derive(Parser)]
#[command(name = "stalecheck", version, about = "Static checker for atomicity bugs (stale values) in JVM bytecode", after_help = rules_help())]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Scan class directories, class files and archives for stale-value bugs.
    #[command(after_help = rules_help())]
    Scan(ScanArgs),
    /// Print the documentation of one rule, or list the rules.
    Rules {
        /// A rule id, e.g. stale-value.
        id: Option<String>,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Sarif,
    Json,
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
    /// Output format [default: text on a terminal, else text too].
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Write the output to this file instead of stdout.
    #[arg(long, short, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Comma-separated rule ids to run [default: all].
    #[arg(long, value_name = "IDS", value_delimiter = ',')]
    rules: Vec<String>,
    /// Exit with 1 when any input could not be read or parsed.
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
    /// Whole-program rules: treat every public method of a synchronizing class as a concurrent
    /// entry point, even when the program has a `main` (for libraries).
    #[arg(long)]
    open_world: bool,
    /// Never show the progress indicator.
    #[arg(long)]
    no_progress: bool,
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
        Command::Scan(args) => match run_scan(args) {
            Ok(code) => ExitCode::from(code),
            Err(e) => {
                eprintln!("{e:?}");
                ExitCode::from(EXIT_USAGE)
            }
        },
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

fn run_scan(args: ScanArgs) -> miette::Result<u8> {
    let rules = if args.rules.is_empty() {
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
        open_world: args.open_world,
        unknown_calls: match args.unknown_calls {
            UnknownCallsArg::NoLock => UnknownCalls::NoLock,
            UnknownCallsArg::Conservative => UnknownCalls::Conservative,
        },
        ..AnalysisConfig::default()
    };
    if !args.atomic_annotations.is_empty() {
        config.atomic_annotations = args.atomic_annotations.clone();
    }
    let opts = ScanOptions {
        inputs: args.paths.clone(),
        classpath,
        source_roots: args.source_roots.clone(),
        rules,
        config,
        limits: Limits::default(),
    };
    let show_progress = !args.no_progress && std::io::stderr().is_terminal();
    let progress = |done: usize, total: usize| {
        if show_progress {
            eprint!("\rstalecheck: analysed {done}/{total} classes");
            if done == total {
                eprint!("\r\x1b[K");
            }
        }
    };
    let out = scan(&opts, &progress);
    if std::env::var_os("STALECHECK_TIMINGS").is_some() {
        let s = &out.stats;
        eprintln!(
            "timings: load {:?}, parse {:?}, summaries {:?}, analysis {:?}, whole-program {:?}",
            s.load_time, s.parse_time, s.summary_time, s.analysis_time, s.whole_program_time
        );
        for line in &s.profile {
            eprintln!("timings: {line}");
        }
    }

    for p in &out.problems {
        let tag = match p.severity {
            Severity::Error => "error",
            Severity::Note => "note",
        };
        eprintln!("stalecheck: {tag}: {p}");
    }
    let failing = out.diagnostics.iter().any(|d| d.level >= Level::Warning);
    let problem_fails = args.strict && out.problems.iter().any(|p| p.severity == Severity::Error);
    let code = if failing || problem_fails {
        EXIT_FINDINGS
    } else {
        EXIT_CLEAN
    };

    let t_out = std::time::Instant::now();
    let to_terminal = args.output.is_none() && std::io::stdout().is_terminal();
    let rendered = match args.format {
        Format::Text => report::text::render(&out, to_terminal),
        Format::Json => report::json::render(&out, to_terminal),
        Format::Sarif => {
            let info = RunInfo {
                command_line: std::env::args().collect(),
                working_directory: std::env::current_dir().ok(),
                exit_code: code as i32,
            };
            report::sarif::render(&out, &opts, &info)
        }
    };
    write_output(args.output.as_deref(), &rendered)?;
    if std::env::var_os("STALECHECK_TIMINGS").is_some() {
        eprintln!("timings: output {:?}", t_out.elapsed());
    }
    if args.output.is_some() || !matches!(args.format, Format::Text) {
        // Keep a one-line summary for people when the findings went elsewhere.
        if std::io::stderr().is_terminal() || args.output.is_some() {
            eprintln!("{}", summary(&out, args.output.as_deref()));
        }
    }
    Ok(code)
}

fn summary(out: &ScanOutput, output: Option<&std::path::Path>) -> String {
    let line = report::text::summary_line(out);
    match output {
        Some(p) => format!("{line}; report written to {}", p.display()),
        None => line,
    }
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
