//! `--format sarif`: maps diagnostics and problems onto the `stalecheck-sarif` model. The shape
//! is fixed: `logicalLocations[0].fullyQualifiedName` = `pkg.Outer$Inner.method`,
//! `decoratedName` = the JVM descriptor, rule ids from the registry.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use stalecheck_sarif as sarif;
use stalecheck_sarif::{fingerprint, limits};

use super::{Report, RunInfo};
use crate::diag::{InputProblem, Severity};
use crate::explain::{Diagnostic, StepKind};
use crate::pipeline::{ScanOptions, ScanOutput};
use crate::rules::{Level, RULES};

const SRCROOT: &str = "%SRCROOT%";
// No `helpUri` or `informationUri`: the project has no public home yet, and a link that leads
// nowhere is worse than none. The full rule documentation is in each rule's `help`.

fn level(l: Level) -> sarif::Level {
    match l {
        Level::Note => sarif::Level::Note,
        Level::Warning => sarif::Level::Warning,
        Level::Error => sarif::Level::Error,
    }
}

/// The CWE entries our rules relate to (by their `external/cwe/cwe-N` tags).
const CWE: &[(&str, &str, &str)] = &[
    (
        "362",
        "Concurrent Execution using Shared Resource with Improper Synchronization ('Race Condition')",
        "The product contains a code sequence that can run concurrently with other code, and the code sequence requires temporary, exclusive access to a shared resource, but a timing window exists in which the shared resource can be modified by another code sequence that is operating concurrently.",
    ),
    (
        "367",
        "Time-of-check Time-of-use (TOCTOU) Race Condition",
        "The product checks the state of a resource before using that resource, but the resource's state can change between the check and the use in a way that invalidates the results of the check.",
    ),
];
const CWE_TAXONOMY: &str = "CWE";

/// The CWE ids a rule's tags name (`external/cwe/cwe-362` → `362`).
fn cwe_ids(tags: &[&str]) -> Vec<String> {
    tags.iter()
        .filter_map(|t| t.strip_prefix("external/cwe/cwe-"))
        .map(str::to_string)
        .collect()
}

/// The rule documentation as plain text (`help.text`): code fences and bold markers dropped,
/// the rest (already readable as text) kept.
fn markdown_to_text(md: &str) -> String {
    md.lines()
        .filter(|l| !l.trim_start().starts_with("```"))
        .map(|l| l.replace("**", ""))
        .collect::<Vec<_>>()
        .join("\n")
}

fn rules() -> Vec<sarif::ReportingDescriptor> {
    RULES
        .iter()
        .map(|r| sarif::ReportingDescriptor {
            id: r.code.to_string(),
            name: r.name.to_string(),
            short_description: r.short.to_string(),
            full_description: r.full.to_string(),
            help_text: markdown_to_text(r.docs),
            help_markdown: Some(r.docs.to_string()),
            help_uri: None,
            default_level: level(r.level),
            disabled_by_default: !r.default_on,
            tags: r.tags.iter().map(|t| t.to_string()).collect(),
            precision: Some(r.precision.to_string()),
            problem_severity: Some(
                match r.level {
                    Level::Error => "error",
                    Level::Warning => "warning",
                    Level::Note => "recommendation",
                }
                .to_string(),
            ),
            relationships: cwe_ids(r.tags)
                .into_iter()
                .map(|id| sarif::Relationship {
                    target_id: id,
                    taxonomy: CWE_TAXONOMY.to_string(),
                    kinds: vec!["relevant".to_string()],
                })
                .collect(),
        })
        .collect()
}

/// The CWE taxonomy, with the entries the rules relate to.
fn cwe_taxonomy() -> sarif::Taxonomy {
    let used: Vec<String> = RULES.iter().flat_map(|r| cwe_ids(r.tags)).collect();
    sarif::Taxonomy {
        name: CWE_TAXONOMY.to_string(),
        version: Some("4.14".to_string()),
        organization: Some("MITRE".to_string()),
        short_description: Some("The MITRE Common Weakness Enumeration".to_string()),
        information_uri: Some("https://cwe.mitre.org/".to_string()),
        taxa: CWE
            .iter()
            .filter(|(id, _, _)| used.iter().any(|u| u == id))
            .map(|(id, name, desc)| sarif::Taxon {
                id: id.to_string(),
                name: name.to_string(),
                short_description: desc.to_string(),
                help_uri: Some(format!("https://cwe.mitre.org/data/definitions/{id}.html")),
            })
            .collect(),
    }
}

/// The artifact of a package-relative source file found under source root `root`, as
/// `(uri, uriBaseId)`:
/// - under a relative `--source-root` (`src/main/java`): that root joined with the package
///   path, relative to the working directory (`%SRCROOT%`), which is what GitHub code scanning
///   resolves against the repository when the scan runs from its root;
/// - under an absolute root inside the working directory: the same, made relative;
/// - under another absolute root: relative to that root, base id `SRCROOT<n>`.
///
/// A file found under no root has no artifact at all (`None`): a physical location must name a
/// file that exists, so such a location is logical only (the class and method).
fn artifact_of(
    file: &str,
    root: Option<usize>,
    roots: &[PathBuf],
    cwd: Option<&Path>,
) -> Option<(String, Option<String>)> {
    let rel = Path::new(file);
    let i = root?;
    let root_path = roots.get(i)?;
    Some(artifact_under(rel, i, root_path, cwd))
}

fn artifact_under(
    rel: &Path,
    root: usize,
    root_path: &Path,
    cwd: Option<&Path>,
) -> (String, Option<String>) {
    if root_path.is_relative() {
        return (
            sarif::relative_uri(&root_path.join(rel)),
            Some(SRCROOT.to_string()),
        );
    }
    if let Some(under) = cwd.and_then(|c| root_path.strip_prefix(c).ok()) {
        return (
            sarif::relative_uri(&under.join(rel)),
            Some(SRCROOT.to_string()),
        );
    }
    (sarif::relative_uri(rel), Some(root_base_id(root)))
}

/// The source root each file named by a step in another source file is found under (the
/// first root holding it), for the files of `diagnostics`' steps.
fn step_roots(diagnostics: &[Diagnostic], roots: &[PathBuf]) -> HashMap<String, Option<usize>> {
    let mut files: Vec<&str> = diagnostics
        .iter()
        .flat_map(|d| d.steps.iter().filter_map(|s| s.file.as_deref()))
        .collect();
    files.sort_unstable();
    files.dedup();
    files
        .into_iter()
        .map(|f| {
            let root = roots.iter().position(|r| r.join(f).is_file());
            (f.to_string(), root)
        })
        .collect()
}

/// The logical location of a source file whose class is not otherwise known: the top-level
/// class the file is named after (`pkg/Outer.java` → `pkg.Outer`).
fn file_type(file: &str) -> sarif::LogicalLocation {
    let name = file.strip_suffix(".java").unwrap_or(file);
    sarif::LogicalLocation {
        kind: "type".to_string(),
        fully_qualified_name: name.replace('/', "."),
        decorated_name: None,
    }
}

fn root_base_id(i: usize) -> String {
    format!("SRCROOT{i}")
}

/// Replaces the compiler's numbering in synthetic names (`Outer$1`, `lambda$run$0`) by `#`:
/// adding an anonymous class or a lambda elsewhere renumbers the others.
fn normalize(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut chars = name.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == '$' && chars.peek().is_some_and(char::is_ascii_digit) {
            while chars.peek().is_some_and(char::is_ascii_digit) {
                chars.next();
            }
            out.push('#');
        }
    }
    out
}

/// The parts of a diagnostic's `stalecheck/v1` key: rule, class, method and descriptor, and
/// the names the message quotes (the fields and methods it is about); no line, no file.
fn fingerprint_key(d: &Diagnostic) -> Vec<String> {
    let mut key = vec![
        d.rule.code().to_string(),
        normalize(&d.class),
        normalize(&d.method),
        d.descriptor.clone(),
    ];
    key.extend(super::quoted_names(&d.message).into_iter().map(normalize));
    key
}

/// The results of the diagnostics (in order), with fingerprints, line hashes (when the source
/// file was found) and `suppressions` (parallel to the diagnostics).
/// The SARIF result of every finding, with its fingerprints and suppressions. Without `full`
/// (text or JSON output and no baseline to match) only those are filled in: building the
/// locations, messages and code flows of tens of thousands of findings that nobody reads
/// would double the cost of the output.
pub fn results(
    out: &ScanOutput,
    suppressions: Vec<Vec<sarif::Suppression>>,
    roots: &[PathBuf],
    cwd: Option<&Path>,
    full: bool,
) -> Vec<sarif::SarifResult> {
    // Tens of thousands of findings on a large program: built in parallel, in order.
    let keys: Vec<Vec<String>> = out.diagnostics.par_iter().map(fingerprint_key).collect();
    let fingerprints = fingerprint::ordinal_fingerprints(&keys);
    // GitHub's line hashes, once per source file.
    let mut sources: Vec<&Path> = out
        .diagnostics
        .iter()
        .filter(|d| d.line.is_some())
        .filter_map(|d| d.source.as_deref())
        .collect();
    sources.sort_unstable();
    sources.dedup();
    let step_roots = if full {
        step_roots(&out.diagnostics, roots)
    } else {
        HashMap::new()
    };
    let hashes: HashMap<&Path, Vec<String>> = sources
        .into_par_iter()
        .filter_map(|src| {
            let text = std::fs::read_to_string(src).ok()?;
            Some((src, fingerprint::line_hashes(&text)))
        })
        .collect();
    out.diagnostics
        .par_iter()
        .zip(fingerprints)
        .zip(suppressions)
        .map(|((d, fp), supp)| {
            let mut r = if full {
                result(d, roots, cwd, &step_roots)
            } else {
                sarif::SarifResult {
                    rule_id: d.rule.code().to_string(),
                    ..Default::default()
                }
            };
            r.partial_fingerprints
                .insert(fingerprint::STALECHECK_V1.to_string(), fp);
            if let (Some(src), Some(line)) = (d.source.as_deref(), d.line) {
                if let Some(h) = hashes
                    .get(src)
                    .and_then(|l| l.get((line as usize).checked_sub(1)?))
                {
                    r.partial_fingerprints.insert(
                        fingerprint::PRIMARY_LOCATION_LINE_HASH.to_string(),
                        h.clone(),
                    );
                }
            }
            r.suppressions = supp;
            r
        })
        .collect()
}

fn step_kind(k: StepKind) -> &'static str {
    match k {
        StepKind::Read => "read",
        StepKind::Stale => "release",
        StepKind::Use => "use",
        StepKind::Lock => "acquire",
        StepKind::Access => "access",
    }
}

fn result(
    d: &Diagnostic,
    roots: &[PathBuf],
    cwd: Option<&Path>,
    step_roots: &HashMap<String, Option<usize>>,
) -> sarif::SarifResult {
    let (uri, base) = artifact_of(&d.file, d.source_root, roots, cwd).unzip();
    let base = base.flatten();
    let logical = sarif::LogicalLocation {
        kind: "function".to_string(),
        fully_qualified_name: format!("{}.{}", d.class, d.method),
        decorated_name: Some(d.descriptor.clone()),
    };
    let loc = |line: Option<u32>, message: Option<String>| sarif::Location {
        uri: uri.clone(),
        uri_base_id: base.clone(),
        start_line: line,
        logical: Some(logical.clone()),
        message,
    };
    // A step in another file (a lock view of another class): its own artifact, no logical
    // location of the finding's method.
    let step_loc = |s: &crate::explain::Step| match &s.file {
        None => loc(s.line, Some(s.message.clone())),
        Some(f) => {
            let root = step_roots.get(f).copied().flatten();
            match artifact_of(f, root, roots, cwd) {
                Some((u, b)) => sarif::Location {
                    uri: Some(u),
                    uri_base_id: b,
                    start_line: s.line,
                    logical: None,
                    message: Some(s.message.clone()),
                },
                // Not found under any root: the class the file is named after, no file.
                None => sarif::Location {
                    uri: None,
                    uri_base_id: None,
                    start_line: None,
                    logical: Some(file_type(f)),
                    message: Some(s.message.clone()),
                },
            }
        }
    };
    // Every step but the primary use (the last step, at the finding's own location).
    let primary_use = d
        .steps
        .iter()
        .rposition(|s| s.kind == StepKind::Use)
        .filter(|&i| i + 1 == d.steps.len());
    let linked: Vec<&crate::explain::Step> = d
        .steps
        .iter()
        .enumerate()
        .filter(|&(i, _)| Some(i) != primary_use)
        .map(|(_, s)| s)
        .collect();
    let related: Vec<sarif::Location> = linked.iter().map(|s| step_loc(s)).collect();
    let flow_step = |(i, s): (usize, &crate::explain::Step)| sarif::ThreadFlowStep {
        location: step_loc(s),
        kinds: vec![step_kind(s.kind).to_string()],
        nesting_level: Some(0),
        execution_order: Some(i as u32 + 1),
    };
    // One thread flow per thread: the thread that runs the method (all steps); for the
    // whole-program rules, which know the threads, also a concurrent thread running the same
    // critical sections (a second thread, or another instance of the only one) in between.
    let reader = d.threads.first().cloned();
    let mut thread_flows = vec![sarif::ThreadFlow {
        id: Some(reader.clone().unwrap_or_else(|| "reader".to_string())),
        message: Some(format!("the thread running `{}`", d.method)),
        steps: d.steps.iter().enumerate().map(flow_step).collect(),
    }];
    let any_other = d.steps.iter().any(|s| s.other_thread);
    if let Some(first) = reader {
        let other = d
            .threads
            .get(1)
            .cloned()
            .unwrap_or_else(|| format!("{first} (another instance)"));
        let steps: Vec<sarif::ThreadFlowStep> = d
            .steps
            .iter()
            .enumerate()
            .filter(|(_, s)| {
                // The steps the other thread runs itself, when the finding says which.
                if any_other {
                    s.other_thread
                } else {
                    matches!(s.kind, StepKind::Lock | StepKind::Access)
                }
            })
            .map(|(i, s)| sarif::ThreadFlowStep {
                // When it runs them is not known: no place in the execution order.
                execution_order: None,
                ..flow_step((i, s))
            })
            .collect();
        thread_flows.push(sarif::ThreadFlow {
            id: Some(other),
            message: Some(
                "a concurrent thread running the same critical sections in between".to_string(),
            ),
            steps,
        });
    }
    // Link the message to the related locations: "read ... [read](1) ... [went stale](2)".
    // `message.text` is the plain headline (no Markdown escapes) with the links; the Markdown
    // form, brackets escaped, is `message.markdown`.
    let mut message = d.message.clone();
    let mut markdown = sarif::escape_message(&d.message);
    for (i, s) in linked.iter().enumerate() {
        let label = match s.kind {
            StepKind::Read => "read",
            StepKind::Stale => "went stale",
            StepKind::Lock => "lock view",
            StepKind::Access => "access",
            StepKind::Use => "use",
        };
        let link = format!(" [{label}]({})", i + 1);
        message.push_str(&link);
        markdown.push_str(&link);
    }
    let mut properties = std::collections::BTreeMap::new();
    if let Some(age) = d.age {
        properties.insert("age".to_string(), serde_json::json!(age));
    }
    if let Some(evidence) = d.evidence {
        properties.insert("evidence".to_string(), serde_json::json!(evidence));
    }
    sarif::SarifResult {
        rule_id: d.rule.code().to_string(),
        level: level(d.level),
        message,
        markdown: Some(markdown),
        primary: loc(d.line, None),
        related,
        code_flows: vec![sarif::CodeFlow {
            message: Some(match d.rule {
                crate::rules::RuleId::MethodConsistency => {
                    "the method's critical sections, and a concurrent thread's".to_string()
                }
                _ => "the value from its read to its use".to_string(),
            }),
            thread_flows,
        }],
        // From the evidence (see `Diagnostic::rank`); older stale values rank higher.
        rank: d.rank.map(f64::from),
        partial_fingerprints: Default::default(),
        properties,
        baseline_state: None,
        suppressions: Vec::new(),
    }
}

fn notification(p: &InputProblem) -> sarif::Notification {
    sarif::Notification {
        level: match p.severity {
            Severity::Error => sarif::Level::Error,
            Severity::Warning => sarif::Level::Warning,
            Severity::Note => sarif::Level::Note,
        },
        message: format!("{}: {}", p.path, p.reason),
        uri: None,
        descriptor_id: Some("input".to_string()),
    }
}

/// The SARIF log of a report: the rules with the CWE taxonomy, the results (suppressed ones
/// included, marked), the baseline's absent results, and the invocation with every input
/// problem and note.
pub fn log(report: &Report<'_>, opts: &ScanOptions, info: &RunInfo) -> sarif::Log {
    let out = report.out;
    let cwd = info.working_directory.as_deref();
    let mut base_ids = std::collections::BTreeMap::new();
    if let Some(cwd) = cwd {
        base_ids.insert(SRCROOT.to_string(), sarif::dir_uri(cwd));
    }
    // Every absolute root that exists: a step's file may be under one no finding's file is.
    for (i, root) in opts.source_roots.iter().enumerate() {
        if root.is_absolute() && root.is_dir() {
            base_ids.insert(root_base_id(i), sarif::dir_uri(root));
        }
    }
    let mut results = report.results.clone();
    results.extend(report.absent.iter().cloned());
    let run = sarif::Run {
        tool: sarif::Tool {
            name: "stalecheck".to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            information_uri: None,
            rules: rules(),
        },
        results,
        invocation: Some(sarif::Invocation {
            execution_successful: info.execution_successful,
            command_line: Some(info.command_line.join(" ")),
            arguments: info.command_line.iter().skip(1).cloned().collect(),
            working_directory: cwd.map(sarif::dir_uri),
            notifications: out
                .problems
                .iter()
                .map(notification)
                .chain(report.notes.iter().cloned())
                .collect(),
            exit_code: Some(info.exit_code),
        }),
        original_uri_base_ids: base_ids,
        automation_id: info.category.as_deref().map(category_id),
        taxonomies: vec![cwe_taxonomy()],
    };
    sarif::Log::single(run)
}

/// `automationDetails.id` for a category: GitHub takes what comes before the last `/` as the
/// category, so `backend` becomes `backend/` (as GitHub's upload action does).
pub fn category_id(category: &str) -> String {
    if category.ends_with('/') {
        category.to_string()
    } else {
        format!("{category}/")
    }
}

/// The SARIF text of a log, cut to GitHub's limits when beyond them; returns the messages of
/// the cuts (also in the log's notifications).
pub fn render_log(log: &sarif::Log) -> (String, Vec<String>) {
    let text = log.to_string_pretty();
    let too_many = log
        .runs
        .iter()
        .any(|r| r.results.len() > limits::GITHUB.max_results_per_run);
    if !too_many && text.len() <= limits::GITHUB.max_gzipped_bytes {
        return (text, Vec::new());
    }
    let mut v = log.to_json();
    limits::enforce(&mut v, limits::GITHUB)
}

pub fn render(report: &Report<'_>, opts: &ScanOptions, info: &RunInfo) -> (String, Vec<String>) {
    render_log(&log(report, opts, info))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthetic_numbers_are_normalized() {
        assert_eq!(normalize("a.Outer$1"), "a.Outer$#");
        assert_eq!(normalize("a.Outer$12$Inner"), "a.Outer$#$Inner");
        assert_eq!(normalize("lambda$run$0"), "lambda$run$#");
        assert_eq!(normalize("a.Outer$Inner2"), "a.Outer$Inner2");
    }

    #[test]
    fn help_text_is_plain() {
        let t = markdown_to_text("# r\n**Level:** x\n```java\nint a;\n```\n");
        assert_eq!(t, "# r\nLevel: x\nint a;");
    }

    #[test]
    fn categories_end_with_a_slash() {
        assert_eq!(category_id("backend"), "backend/");
        assert_eq!(category_id("a/b/"), "a/b/");
    }

    #[test]
    fn rules_relate_to_cwe() {
        let rs = rules();
        let stale = rs.iter().find(|r| r.id == "stale-value").unwrap();
        let ids: Vec<&str> = stale
            .relationships
            .iter()
            .map(|r| r.target_id.as_str())
            .collect();
        assert_eq!(ids, vec!["362", "367"]);
        let tax = cwe_taxonomy();
        for r in &rs {
            for rel in &r.relationships {
                assert!(
                    tax.taxa.iter().any(|t| t.id == rel.target_id),
                    "{}",
                    rel.target_id
                );
            }
        }
    }
}
