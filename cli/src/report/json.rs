//! `--format json`: a stable document of our own for scripts. Schema `stalecheck-json/1`,
//! documented in docs/json.md with a JSON Schema (docs/stalecheck-json-1.schema.json) that the
//! tests validate every document against. Fields are only ever added within a schema version.
//!
//! `stalecheck diff --format json` writes the companion document `stalecheck-diff-json/1`.

use rayon::prelude::*;
use serde::Serialize;

use super::{Counts, Report};
use crate::diag::InputProblem;
use crate::explain::Diagnostic;
use crate::pipeline::Stats;
use stalecheck_sarif as sarif;

pub const SCHEMA: &str = "stalecheck-json/1";
pub const DIFF_SCHEMA: &str = "stalecheck-diff-json/1";

#[derive(Serialize)]
struct Tool {
    name: &'static str,
    version: &'static str,
}

const TOOL: Tool = Tool {
    name: "stalecheck",
    version: env!("CARGO_PKG_VERSION"),
};

#[derive(Serialize)]
struct RuleCounts {
    rule: &'static str,
    #[serde(flatten)]
    counts: Counts,
}

#[derive(Serialize)]
struct Summary<'a> {
    #[serde(flatten)]
    stats: &'a Stats,
    /// All findings in `findings`, suppressed ones included.
    findings: usize,
    suppressed: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    new: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    unchanged: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    updated: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fixed: Option<usize>,
    per_rule: Vec<RuleCounts>,
}

#[derive(Serialize)]
struct JsonSuppression<'a> {
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    justification: Option<&'a str>,
}

#[derive(Serialize)]
struct Finding<'a> {
    #[serde(flatten)]
    diagnostic: &'a Diagnostic,
    /// The `stalecheck/v1` fingerprint (line-independent).
    fingerprint: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    baseline_state: Option<&'static str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    suppressions: Vec<JsonSuppression<'a>>,
}

/// A finding read back from SARIF (a baseline's absent ones, and `diff`).
#[derive(Serialize)]
struct SarifFinding<'a> {
    rule: &'a str,
    level: &'static str,
    message: &'a str,
    /// `pkg.Outer$Inner.method`, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    location: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fingerprint: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    baseline_state: Option<&'static str>,
    suppressed: bool,
}

fn sarif_finding(r: &sarif::SarifResult, suppressed: bool) -> SarifFinding<'_> {
    SarifFinding {
        rule: &r.rule_id,
        level: r.level.as_str(),
        message: &r.message,
        location: r
            .primary
            .logical
            .as_ref()
            .map(|l| l.fully_qualified_name.as_str()),
        file: r.primary.uri.as_deref(),
        line: r.primary.start_line,
        fingerprint: r
            .partial_fingerprints
            .get(sarif::fingerprint::STALECHECK_V1)
            .map(String::as_str),
        baseline_state: r.baseline_state.map(sarif::BaselineState::as_str),
        suppressed,
    }
}

#[derive(Serialize)]
struct Note<'a> {
    level: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    message: &'a str,
}

#[derive(Serialize)]
struct Document<'a> {
    schema: &'static str,
    tool: Tool,
    findings: Vec<Finding<'a>>,
    /// With a baseline: the baseline's findings that are gone.
    #[serde(skip_serializing_if = "Option::is_none")]
    absent: Option<Vec<SarifFinding<'a>>>,
    problems: &'a [InputProblem],
    #[serde(skip_serializing_if = "Vec::is_empty")]
    notes: Vec<Note<'a>>,
    summary: Summary<'a>,
}

fn to_text<T: Serialize>(doc: &T, pretty: bool) -> String {
    // Serializing plain data structures cannot fail.
    let text = if pretty {
        serde_json::to_string_pretty(doc)
    } else {
        serde_json::to_string(doc)
    };
    text.unwrap_or_default() + "\n"
}

/// The document, indented when `pretty` (for people), compact otherwise (for scripts: several
/// times faster on large scans).
pub fn render(report: &Report<'_>, pretty: bool) -> String {
    let out = report.out;
    let counts = report.counts();
    let sum = |f: fn(&Counts) -> usize| counts.iter().map(|(_, c)| f(c)).sum::<usize>();
    let baseline = |f: fn(&Counts) -> usize| report.baseline.then(|| sum(f));
    let findings: Vec<Finding<'_>> = out
        .diagnostics
        .iter()
        .zip(&report.results)
        .map(|(d, r)| Finding {
            diagnostic: d,
            fingerprint: r
                .partial_fingerprints
                .get(sarif::fingerprint::STALECHECK_V1)
                .map(String::as_str)
                .unwrap_or(""),
            baseline_state: r.baseline_state.map(sarif::BaselineState::as_str),
            suppressions: r
                .suppressions
                .iter()
                .map(|s| JsonSuppression {
                    kind: match s.kind {
                        sarif::SuppressionKind::InSource => "inSource",
                        sarif::SuppressionKind::External => "external",
                    },
                    justification: s.justification.as_deref(),
                })
                .collect(),
        })
        .collect();
    // Compact output of a large scan: the findings are serialized in parallel and spliced into
    // the document (the order and the bytes are those of serializing them in place).
    let (findings, rendered) = if pretty {
        (findings, None)
    } else {
        let parts: Vec<String> = findings
            .par_iter()
            .map(|f| serde_json::to_string(f).unwrap_or_default())
            .collect();
        (Vec::new(), Some(parts))
    };
    let doc = Document {
        schema: SCHEMA,
        tool: TOOL,
        findings,
        absent: report.baseline.then(|| {
            report
                .absent
                .iter()
                .map(|r| sarif_finding(r, false))
                .collect()
        }),
        problems: &out.problems,
        notes: report
            .notes
            .iter()
            .map(|n| Note {
                level: n.level.as_str(),
                id: n.descriptor_id.as_deref(),
                message: &n.message,
            })
            .collect(),
        summary: Summary {
            stats: &out.stats,
            findings: out.diagnostics.len(),
            suppressed: sum(|c| c.suppressed),
            new: baseline(|c| c.new),
            unchanged: baseline(|c| c.unchanged),
            updated: baseline(|c| c.updated),
            fixed: baseline(|c| c.fixed),
            per_rule: counts
                .into_iter()
                .map(|(rule, counts)| RuleCounts { rule, counts })
                .collect(),
        },
    };
    let text = to_text(&doc, pretty);
    match rendered {
        Some(parts) => splice_findings(text, &parts),
        None => text,
    }
}

/// Put the findings, serialized one by one, into the compact document in place of its empty
/// `findings` array (the first one: only `schema` and `tool`, fixed strings, come before it).
fn splice_findings(text: String, parts: &[String]) -> String {
    const EMPTY: &str = "\"findings\":[]";
    let Some(at) = text.find(EMPTY) else {
        return text;
    };
    let len = parts.iter().map(|p| p.len() + 1).sum::<usize>();
    let mut out = String::with_capacity(text.len() + len);
    out.push_str(&text[..at]);
    out.push_str("\"findings\":[");
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(p);
    }
    out.push(']');
    out.push_str(&text[at + EMPTY.len()..]);
    out
}

#[derive(Serialize)]
struct DiffSummary {
    new: usize,
    unchanged: usize,
    updated: usize,
    fixed: usize,
    suppressed: usize,
    /// New findings at or above `--fail-on` (not suppressed): what fails the run.
    failing: usize,
}

#[derive(Serialize)]
struct DiffDocument<'a> {
    schema: &'static str,
    tool: Tool,
    new: Vec<SarifFinding<'a>>,
    unchanged: Vec<SarifFinding<'a>>,
    fixed: Vec<SarifFinding<'a>>,
    summary: DiffSummary,
}

/// `stalecheck diff --format json`.
pub fn render_diff(d: &sarif::baseline::LogDiff, failing: usize, pretty: bool) -> String {
    use sarif::BaselineState as S;
    let pick = |want: &[S]| {
        d.head
            .iter()
            .filter(|(_, s)| want.contains(s))
            .map(|(e, s)| {
                let mut f = sarif_finding(&e.result, e.suppressed);
                f.baseline_state = Some(s.as_str());
                f
            })
            .collect::<Vec<_>>()
    };
    let count = |s: S| d.head.iter().filter(|(_, x)| *x == s).count();
    let doc = DiffDocument {
        schema: DIFF_SCHEMA,
        tool: TOOL,
        new: pick(&[S::New]),
        unchanged: pick(&[S::Unchanged, S::Updated]),
        fixed: d
            .absent
            .iter()
            .map(|e| {
                let mut f = sarif_finding(&e.result, e.suppressed);
                f.baseline_state = Some(S::Absent.as_str());
                f
            })
            .collect(),
        summary: DiffSummary {
            new: count(S::New),
            unchanged: count(S::Unchanged),
            updated: count(S::Updated),
            fixed: d.absent.len(),
            suppressed: d.head.iter().filter(|(e, _)| e.suppressed).count(),
            failing,
        },
    };
    to_text(&doc, pretty)
}
