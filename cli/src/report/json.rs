//! `--format json`: a stable document of our own for scripts. Schema `stalecheck-json/1`,
//! documented in README.md ("JSON output"). Fields are only ever added within a schema version.

use serde::Serialize;

use crate::diag::InputProblem;
use crate::explain::Diagnostic;
use crate::pipeline::{ScanOutput, Stats};

pub const SCHEMA: &str = "stalecheck-json/1";

#[derive(Serialize)]
struct Tool {
    name: &'static str,
    version: &'static str,
}

#[derive(Serialize)]
struct Summary<'a> {
    #[serde(flatten)]
    stats: &'a Stats,
    findings: usize,
}

#[derive(Serialize)]
struct Document<'a> {
    schema: &'static str,
    tool: Tool,
    findings: &'a [Diagnostic],
    problems: &'a [InputProblem],
    summary: Summary<'a>,
}

/// The document, indented when `pretty` (for people), compact otherwise (for scripts: several
/// times faster on large scans).
pub fn render(out: &ScanOutput, pretty: bool) -> String {
    let doc = Document {
        schema: SCHEMA,
        tool: Tool {
            name: "stalecheck",
            version: env!("CARGO_PKG_VERSION"),
        },
        findings: &out.diagnostics,
        problems: &out.problems,
        summary: Summary {
            stats: &out.stats,
            findings: out.diagnostics.len(),
        },
    };
    // Serializing plain data structures cannot fail.
    let text = if pretty {
        serde_json::to_string_pretty(&doc)
    } else {
        serde_json::to_string(&doc)
    };
    text.unwrap_or_default() + "\n"
}
