//! `--format sarif`: maps diagnostics and problems onto the `stalecheck-sarif` model. The shape
//! is fixed: `logicalLocations[0].fullyQualifiedName` = `pkg.Outer$Inner.method`,
//! `decoratedName` = the JVM descriptor, rule ids from the registry.

use std::path::{Path, PathBuf};

use stalecheck_sarif as sarif;

use super::RunInfo;
use crate::diag::{InputProblem, Severity};
use crate::explain::{Diagnostic, StepKind};
use crate::pipeline::{ScanOptions, ScanOutput};
use crate::rules::{Level, RULES};

const SRCROOT: &str = "%SRCROOT%";
const INFORMATION_URI: &str = "https://github.com/stalecheck/stalecheck";

fn level(l: Level) -> sarif::Level {
    match l {
        Level::Note => sarif::Level::Note,
        Level::Warning => sarif::Level::Warning,
        Level::Error => sarif::Level::Error,
    }
}

fn rules() -> Vec<sarif::ReportingDescriptor> {
    RULES
        .iter()
        .map(|r| sarif::ReportingDescriptor {
            id: r.code.to_string(),
            name: r.name.to_string(),
            short_description: r.short.to_string(),
            full_description: r.full.to_string(),
            help_text: r.docs.to_string(),
            help_markdown: Some(r.docs.to_string()),
            help_uri: Some(format!(
                "{INFORMATION_URI}/blob/main/cli/src/rules/{}.md",
                r.code.replace('-', "_")
            )),
            default_level: level(r.level),
            tags: r.tags.iter().map(|t| t.to_string()).collect(),
            precision: Some(r.precision.to_string()),
            problem_severity: Some(
                if r.level >= Level::Warning {
                    "warning"
                } else {
                    "recommendation"
                }
                .to_string(),
            ),
        })
        .collect()
}

/// The artifact of a diagnostic, as `(uri, uriBaseId)`:
/// - found under a relative `--source-root` (`src/main/java`): that root joined with the
///   package path, relative to the working directory (`%SRCROOT%`), which is what GitHub code
///   scanning resolves against the repository when the scan runs from its root;
/// - found under an absolute root inside the working directory: the same, made relative;
/// - found under another absolute root: relative to that root, base id `SRCROOT<n>`;
/// - not found: the package path from the class file (`pkg/Outer.java`).
fn artifact(d: &Diagnostic, roots: &[PathBuf], cwd: Option<&Path>) -> (String, Option<String>) {
    artifact_of(&d.file, d.source_root, roots, cwd)
}

/// The artifact of a package-relative source file, found (or not) under source root `root`.
fn artifact_of(
    file: &str,
    root: Option<usize>,
    roots: &[PathBuf],
    cwd: Option<&Path>,
) -> (String, Option<String>) {
    let rel = Path::new(file);
    let Some(root_path) = root.and_then(|i| roots.get(i)) else {
        return (sarif::relative_uri(rel), None);
    };
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
    (sarif::relative_uri(rel), root.map(root_base_id))
}

fn root_base_id(i: usize) -> String {
    format!("SRCROOT{i}")
}

fn result(d: &Diagnostic, roots: &[PathBuf], cwd: Option<&Path>) -> sarif::SarifResult {
    let (uri, base) = artifact(d, roots, cwd);
    let logical = sarif::LogicalLocation {
        kind: "function".to_string(),
        fully_qualified_name: format!("{}.{}", d.class, d.method),
        decorated_name: Some(d.descriptor.clone()),
    };
    let loc = |line: Option<u32>, message: Option<String>| sarif::Location {
        uri: Some(uri.clone()),
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
            let (u, b) = artifact_of(f, d.source_root, roots, cwd);
            sarif::Location {
                uri: Some(u),
                uri_base_id: b,
                start_line: s.line,
                logical: None,
                message: Some(s.message.clone()),
            }
        }
    };
    let related: Vec<sarif::Location> = d
        .steps
        .iter()
        .filter(|s| s.kind != StepKind::Use)
        .map(|s| loc(s.line, Some(s.message.clone())))
        .collect();
    let steps = d
        .steps
        .iter()
        .enumerate()
        .map(|(i, s)| sarif::ThreadFlowStep {
            location: step_loc(s),
            kinds: vec![match s.kind {
                StepKind::Read => "read",
                StepKind::Stale => "release",
                StepKind::Use => "use",
                StepKind::Lock => "acquire",
                StepKind::Access => "access",
            }
            .to_string()],
            nesting_level: Some(0),
            execution_order: Some(i as u32 + 1),
        })
        .collect();
    // Link the message to the related locations: "read ... [here](1) ... [stale](2)".
    let mut message = sarif::escape_message(&d.message);
    for (i, s) in d
        .steps
        .iter()
        .filter(|s| s.kind != StepKind::Use)
        .enumerate()
    {
        let label = match s.kind {
            StepKind::Read => "read",
            StepKind::Stale => "went stale",
            StepKind::Lock => "lock view",
            StepKind::Access => "access",
            StepKind::Use => "use",
        };
        message.push_str(&format!(" [{label}]({})", i + 1));
    }
    let mut properties = std::collections::BTreeMap::new();
    if let Some(age) = d.age {
        properties.insert("age".to_string(), serde_json::json!(age));
    }
    sarif::SarifResult {
        rule_id: d.rule.code().to_string(),
        level: level(d.level),
        message,
        primary: loc(d.line, None),
        related,
        code_flows: vec![sarif::CodeFlow {
            message: Some("the value from its read to its use".to_string()),
            thread_flows: vec![sarif::ThreadFlow {
                id: Some("reader".to_string()),
                message: None,
                steps,
            }],
        }],
        // Older stale values rank higher (Burrows and Leino's ordering by age).
        rank: d.age.map(|a| (40.0 + 20.0 * a as f64).min(100.0)),
        partial_fingerprints: Default::default(),
        properties,
    }
}

fn notification(p: &InputProblem) -> sarif::Notification {
    sarif::Notification {
        level: match p.severity {
            Severity::Error => sarif::Level::Error,
            Severity::Note => sarif::Level::Note,
        },
        message: format!("{}: {}", p.path, p.reason),
        uri: None,
        descriptor_id: Some("input".to_string()),
    }
}

pub fn render(out: &ScanOutput, opts: &ScanOptions, info: &RunInfo) -> String {
    let cwd = info.working_directory.as_deref();
    let mut base_ids = std::collections::BTreeMap::new();
    if let Some(cwd) = cwd {
        base_ids.insert(SRCROOT.to_string(), sarif::dir_uri(cwd));
    }
    for (i, root) in opts.source_roots.iter().enumerate() {
        if root.is_absolute() && out.diagnostics.iter().any(|d| d.source_root == Some(i)) {
            base_ids.insert(root_base_id(i), sarif::dir_uri(root));
        }
    }
    let run = sarif::Run {
        tool: sarif::Tool {
            name: "stalecheck".to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            information_uri: Some(INFORMATION_URI.to_string()),
            rules: rules(),
        },
        results: out
            .diagnostics
            .iter()
            .map(|d| result(d, &opts.source_roots, cwd))
            .collect(),
        invocation: Some(sarif::Invocation {
            execution_successful: true,
            command_line: Some(info.command_line.join(" ")),
            arguments: info.command_line.iter().skip(1).cloned().collect(),
            working_directory: cwd.map(sarif::dir_uri),
            notifications: out.problems.iter().map(notification).collect(),
            exit_code: Some(info.exit_code),
        }),
        original_uri_base_ids: base_ids,
        automation_id: None,
    };
    sarif::Log::single(run).to_string_pretty()
}
