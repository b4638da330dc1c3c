//! Helpers shared by the end-to-end tests (`tests/fixtures.rs`, `tests/e2e.rs`): where things are,
//! compiling Java with the real `javac`, running the `stalecheck` binary, reading its JSON
//! report, and writing jars.
//!
//! Both test crates include this module (`mod common;`) and use different parts of it.
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::fmt::Write as _;
use std::fs;
use std::io::{Cursor, Write as _};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::Value;

/// The rule ids the scanner knows (the fixtures' markers may name only these).
pub const RULES: [&str; 5] = [
    "stale-value",
    "block-local-atomicity",
    "method-consistency",
    "high-level-data-race",
    "causal-stale-value",
];

/// The two value rules, for tests that read `stale-value` findings (the rule is off by default)
/// next to `causal-stale-value`'s (`--rules VALUE_RULES`).
pub const VALUE_RULES: &str = "stale-value,causal-stale-value";

/// The SARIF/JSON level each rule reports at.
pub fn rule_level(rule: &str) -> Option<&'static str> {
    match rule {
        "stale-value" => Some("warning"),
        "block-local-atomicity" => Some("note"),
        "method-consistency" => Some("warning"),
        "high-level-data-race" => Some("warning"),
        "causal-stale-value" => Some("warning"),
        _ => None,
    }
}

/// Whether a finding's level is its rule's, lowered to a note for weak evidence: a
/// high-level data race between fields that no code relates (`unrelated-update`).
pub fn level_ok(rule: &str, level: &str, evidence: Option<&str>) -> bool {
    rule_level(rule) == Some(level)
        || (rule == "high-level-data-race"
            && level == "note"
            && evidence == Some("unrelated-update"))
        || (rule == "causal-stale-value" && level == "note" && evidence == Some("getter-check"))
}

// ---------------------------------------------------------------------------------------------
// Locations
// ---------------------------------------------------------------------------------------------

/// The repository root (`cli/`'s parent).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("CARGO_MANIFEST_DIR has a parent")
        .to_path_buf()
}

/// `fixtures/src`: the Java fixtures, in packages `fixtures.<topic>`.
pub fn fixtures_src() -> PathBuf {
    repo_root().join("fixtures").join("src")
}

/// A fresh scratch directory under `CARGO_TARGET_TMPDIR`, private to this process.
///
/// The name carries the process id, so that test runners that start one process per test
/// (nextest) do not trample each other; directories left by processes that are gone are swept
/// the first time this is called.
pub fn scratch_dir(label: &str) -> PathBuf {
    static SWEPT: OnceLock<()> = OnceLock::new();
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    SWEPT.get_or_init(|| sweep_dead_scratch_dirs(&root));
    let dir = root.join(format!("{SCRATCH_PREFIX}{label}-{}", std::process::id()));
    if dir.exists() {
        make_writable(&dir);
        fs::remove_dir_all(&dir)
            .unwrap_or_else(|e| panic!("cannot clear scratch dir {}: {e}", dir.display()));
    }
    fs::create_dir_all(&dir)
        .unwrap_or_else(|e| panic!("cannot create scratch dir {}: {e}", dir.display()));
    dir
}

const SCRATCH_PREFIX: &str = "harness-";

fn sweep_dead_scratch_dirs(root: &Path) {
    // Only where liveness can be checked cheaply (Linux); elsewhere old dirs simply stay.
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix(SCRATCH_PREFIX) else {
            continue;
        };
        let Some(pid) = rest.rsplit('-').next().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            make_writable(&entry.path());
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

/// Gives the owner read/write access again to everything under `dir` (a test may have made a
/// file unreadable).
fn make_writable(dir: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        for entry in walkdir::WalkDir::new(dir).into_iter().flatten() {
            if let Ok(meta) = entry.metadata() {
                let mut perms = meta.permissions();
                perms.set_mode(perms.mode() | 0o700);
                let _ = fs::set_permissions(entry.path(), perms);
            }
        }
    }
}

/// All files under `dir` whose name ends with `.{ext}`, sorted.
pub fn files_with_ext(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .map(|e| e.unwrap_or_else(|e| panic!("cannot walk {}: {e}", dir.display())))
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .filter(|p| p.extension() == Some(OsStr::new(ext)))
        .collect();
    files.sort();
    files
}

/// `a/b/C.x` relative to `base`, with `/` separators.
pub fn rel_slash(path: &Path, base: &Path) -> String {
    let rel = path
        .strip_prefix(base)
        .unwrap_or_else(|_| panic!("{} is not under {}", path.display(), base.display()));
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
}

/// Binary class names (`fixtures.lambdas.InnerClassAccess$Worker`) of the `.class` files under
/// `dir`, from their paths (javac -d lays them out by package).
pub fn class_names(dir: &Path) -> BTreeSet<String> {
    files_with_ext(dir, "class")
        .iter()
        .map(|p| {
            rel_slash(p, dir)
                .trim_end_matches(".class")
                .replace('/', ".")
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// javac
// ---------------------------------------------------------------------------------------------

/// `$JAVA_HOME/bin/javac`, else `javac` on `PATH`.
pub fn javac() -> PathBuf {
    static JAVAC: OnceLock<PathBuf> = OnceLock::new();
    JAVAC
        .get_or_init(|| {
            let exe = format!("javac{}", std::env::consts::EXE_SUFFIX);
            if let Some(home) = std::env::var_os("JAVA_HOME") {
                let candidate = Path::new(&home).join("bin").join(&exe);
                if candidate.is_file() {
                    return candidate;
                }
            }
            if let Some(path) = std::env::var_os("PATH") {
                for dir in std::env::split_paths(&path) {
                    let candidate = dir.join(&exe);
                    if candidate.is_file() {
                        return candidate;
                    }
                }
            }
            panic!(
                "javac not found: set JAVA_HOME to a JDK (17 or newer) or put javac on PATH; \
                 the end-to-end tests compile their Java inputs with the real javac"
            )
        })
        .clone()
}

/// The JDK's `jmods` directory (next to `bin/javac`, links resolved), if it has one.
pub fn jdk_jmods() -> Option<PathBuf> {
    let javac = fs::canonicalize(javac()).ok()?;
    let dir = javac.parent()?.parent()?.join("jmods");
    dir.is_dir().then_some(dir)
}

/// Compiles `sources` in one `javac -g --release <release> -d <out>` call; panics with javac's
/// output when it fails.
pub fn compile_java(sources: &[PathBuf], out: &Path, release: &str) {
    assert!(
        !sources.is_empty(),
        "no Java sources to compile into {}",
        out.display()
    );
    fs::create_dir_all(out).unwrap_or_else(|e| panic!("cannot create {}: {e}", out.display()));
    let javac = javac();
    let output = Command::new(&javac)
        .arg("-g")
        .arg("--release")
        .arg(release)
        .arg("-encoding")
        .arg("UTF-8")
        .arg("-d")
        .arg(out)
        .args(sources)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", javac.display()));
    if !output.status.success() {
        panic!(
            "javac failed ({}) compiling {} file(s) into {}:\n{}{}",
            output.status,
            sources.len(),
            out.display(),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

/// Writes `(path relative to src_dir, source text)` files under `src_dir` and compiles them into
/// `out` (one javac call).
pub fn compile_sources(src_dir: &Path, out: &Path, release: &str, files: &[(&str, &str)]) {
    let mut paths = Vec::new();
    for (rel, text) in files {
        let path = src_dir.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        paths.push(path);
    }
    compile_java(&paths, out, release);
}

/// The fixtures (`fixtures/src/**/*.java`) compiled once per test process.
pub fn fixture_classes() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let sources = files_with_ext(&fixtures_src(), "java");
        assert!(
            !sources.is_empty(),
            "no fixtures under {}",
            fixtures_src().display()
        );
        let out = scratch_dir("fixture-classes");
        compile_java(&sources, &out, "17");
        out
    })
}

// ---------------------------------------------------------------------------------------------
// Running stalecheck
// ---------------------------------------------------------------------------------------------

/// The outcome of one run of the binary.
pub struct Run {
    pub cmdline: String,
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// The exit code (panics if the process died from a signal).
    pub fn code(&self) -> i32 {
        self.code
            .unwrap_or_else(|| panic!("stalecheck was killed by a signal\n{}", self.describe()))
    }

    /// Asserts the exit code.
    pub fn expect_code(&self, expected: i32, why: &str) -> &Self {
        assert_eq!(
            self.code(),
            expected,
            "expected exit code {expected} ({why}), got {}\n{}",
            self.code(),
            self.describe()
        );
        self
    }

    /// stdout parsed as JSON.
    pub fn stdout_json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not a JSON document ({e})\n{}", self.describe()))
    }

    /// stdout parsed as the `--format json` report.
    pub fn report(&self) -> Report {
        Report::parse(&self.stdout).unwrap_or_else(|e| panic!("{e}\n{}", self.describe()))
    }

    /// The command line, exit status and stderr (not stdout), for failures whose own message
    /// already shows what matters of stdout.
    pub fn describe_brief(&self) -> String {
        format!(
            "$ {}\nexit code: {:?}\n--- stderr ---\n{}",
            self.cmdline,
            self.code,
            shorten(&self.stderr, 6000)
        )
    }

    /// The command line, exit status and (shortened) output, for failure messages.
    pub fn describe(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "$ {}", self.cmdline);
        let _ = writeln!(s, "exit code: {:?}", self.code);
        let _ = writeln!(s, "--- stdout ---\n{}", shorten(&self.stdout, 6000));
        let _ = writeln!(s, "--- stderr ---\n{}", shorten(&self.stderr, 6000));
        s
    }
}

fn shorten(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut cut = max;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}\n[... {} more bytes]", &text[..cut], text.len() - cut)
}

/// Runs `stalecheck` with `args`.
pub fn stalecheck<I, S>(args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    run_stalecheck(None, args)
}

/// [`stalecheck`] with `cwd` as the working directory (where stalecheck.toml is looked up and
/// relative outputs go).
pub fn stalecheck_in<I, S>(cwd: &Path, args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    run_stalecheck(Some(cwd), args)
}

fn run_stalecheck<I, S>(cwd: Option<&Path>, args: I) -> Run
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let bin = env!("CARGO_BIN_EXE_stalecheck");
    let args: Vec<std::ffi::OsString> = args.into_iter().map(|a| a.as_ref().to_owned()).collect();
    let cmdline = std::iter::once(bin.to_string())
        .chain(args.iter().map(|a| a.to_string_lossy().into_owned()))
        .collect::<Vec<_>>()
        .join(" ");
    let mut command = Command::new(bin);
    if let Some(dir) = cwd {
        command.current_dir(dir);
    }
    let output = command
        .args(&args)
        .env_remove("RUST_LOG")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {bin}: {e}"));
    Run {
        cmdline,
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

// ---------------------------------------------------------------------------------------------
// The `--format json` report
// ---------------------------------------------------------------------------------------------

pub const JSON_SCHEMA_ID: &str = "stalecheck-json/1";

#[derive(Debug, Clone, Deserialize)]
pub struct Report {
    pub schema: String,
    pub tool: Tool,
    pub findings: Vec<Finding>,
    pub problems: Vec<Problem>,
    pub summary: Summary,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Tool {
    pub name: String,
    pub version: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Finding {
    pub rule: String,
    pub level: String,
    pub message: String,
    pub class: String,
    pub method: String,
    pub descriptor: String,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub age: Option<u32>,
    pub steps: Vec<Step>,
    #[serde(default)]
    pub threads: Vec<String>,
    #[serde(default)]
    pub evidence: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Step {
    pub kind: String,
    pub line: Option<u32>,
    pub message: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Problem {
    pub severity: String,
    pub path: String,
    pub reason: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Summary {
    pub classes: u64,
    pub methods: u64,
    pub findings: u64,
}

impl Report {
    /// Parses and checks the document-level invariants (schema id, tool name, summary count).
    pub fn parse(text: &str) -> Result<Report, String> {
        let report: Report = serde_json::from_str(text)
            .map_err(|e| format!("the JSON report does not have the documented shape: {e}"))?;
        if report.schema != JSON_SCHEMA_ID {
            return Err(format!(
                "schema is {:?}, expected {JSON_SCHEMA_ID:?}",
                report.schema
            ));
        }
        if report.tool.name != "stalecheck" || report.tool.version.is_empty() {
            return Err(format!("unexpected tool {:?}", report.tool));
        }
        if report.summary.findings != report.findings.len() as u64 {
            return Err(format!(
                "summary.findings is {} but there are {} findings",
                report.summary.findings,
                report.findings.len()
            ));
        }
        for p in &report.problems {
            if p.severity != "error" && p.severity != "note" && p.severity != "warning" {
                return Err(format!("problem with unknown severity: {p:?}"));
            }
        }
        Ok(report)
    }

    pub fn findings_of(&self, rule: &str) -> Vec<&Finding> {
        self.findings.iter().filter(|f| f.rule == rule).collect()
    }

    /// Problems whose path or reason mentions `needle`.
    pub fn problems_mentioning(&self, needle: &str) -> Vec<&Problem> {
        self.problems
            .iter()
            .filter(|p| p.path.contains(needle) || p.reason.contains(needle))
            .collect()
    }

    /// The exit code the documented contract implies for these findings (input problems aside).
    pub fn implied_exit_code(&self) -> i32 {
        let serious = self
            .findings
            .iter()
            .any(|f| f.level == "warning" || f.level == "error");
        i32::from(serious)
    }
}

impl Finding {
    /// `Class.method descriptor rule @file:line`, for messages.
    pub fn short(&self) -> String {
        format!(
            "{} at {}:{} in {}.{}{}: {}",
            self.rule,
            self.file.as_deref().unwrap_or("?"),
            self.line.map_or("?".to_string(), |l| l.to_string()),
            self.class,
            self.method,
            self.descriptor,
            self.message
        )
    }
}

/// The line of the first line of `source` containing `needle` (1-based).
pub fn line_of(source: &str, needle: &str) -> u32 {
    let index = source
        .lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle:?} not found in the test source"));
    index as u32 + 1
}

// ---------------------------------------------------------------------------------------------
// Jars
// ---------------------------------------------------------------------------------------------

/// A zip archive (jar) in memory. Nested `.jar` entries are stored, everything else deflated,
/// as build tools do.
pub fn jar_bytes(entries: &[(String, Vec<u8>)]) -> Vec<u8> {
    use zip::write::SimpleFileOptions;
    use zip::CompressionMethod;
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (name, data) in entries {
        let method = if name.ends_with(".jar") {
            CompressionMethod::Stored
        } else {
            CompressionMethod::Deflated
        };
        zip.start_file(
            name.as_str(),
            SimpleFileOptions::default().compression_method(method),
        )
        .unwrap_or_else(|e| panic!("cannot add {name} to a jar: {e}"));
        zip.write_all(data).unwrap();
    }
    zip.finish().expect("finish jar").into_inner()
}

/// Writes a jar with `entries` to `path`.
pub fn write_jar(path: &Path, entries: &[(String, Vec<u8>)]) {
    fs::write(path, jar_bytes(entries))
        .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
}

/// `(path inside a jar, bytes)` for every `.class` file under `dir`.
pub fn class_entries(dir: &Path) -> Vec<(String, Vec<u8>)> {
    files_with_ext(dir, "class")
        .into_iter()
        .map(|p| (rel_slash(&p, dir), fs::read(&p).unwrap()))
        .collect()
}
