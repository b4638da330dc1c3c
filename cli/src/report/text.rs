//! Text output for people: findings grouped by class, each rendered with `miette`, with a
//! source snippet when the `.java` file was found under a `--source-root`, else the class,
//! method and lines.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use miette::{
    GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteDiagnostic, NamedSource, Report,
    Severity,
};

use crate::explain::{Diagnostic, StepKind};
use crate::pipeline::ScanOutput;
use crate::rules::Level;

/// Render the findings (problems are printed separately, to stderr, by the binary).
pub fn render(out: &ScanOutput, color: bool) -> String {
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(100)
        .with_links(false);
    let mut sources: HashMap<PathBuf, Option<String>> = HashMap::new();
    let mut s = String::new();
    let mut current_class: Option<&str> = None;
    for d in &out.diagnostics {
        if current_class != Some(d.class.as_str()) {
            let _ = writeln!(s, "\n── {} ({})", d.class, d.file);
            current_class = Some(&d.class);
        }
        let text = d.source.as_ref().and_then(|p| {
            sources
                .entry(p.clone())
                .or_insert_with(|| std::fs::read_to_string(p).ok())
                .clone()
        });
        let report = to_report(d, text);
        let _ = handler.render_report(&mut s, report.as_ref());
    }
    let _ = writeln!(s, "\n{}", summary_line(out));
    s
}

/// One line: counts per rule and level.
pub fn summary_line(out: &ScanOutput) -> String {
    let mut per_rule: Vec<(&str, usize)> = Vec::new();
    for r in crate::rules::RULES {
        let n = out.diagnostics.iter().filter(|d| d.rule == r.id).count();
        if n > 0 {
            per_rule.push((r.code, n));
        }
    }
    let rules = if per_rule.is_empty() {
        String::new()
    } else {
        format!(
            " ({})",
            per_rule
                .iter()
                .map(|(c, n)| format!("{c}: {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let world = out
        .stats
        .world
        .map(|w| format!("; threads: {w}"))
        .unwrap_or_default();
    format!(
        "stalecheck: {} finding(s){rules} in {} class(es), {} method(s); {} input problem(s){world}",
        out.diagnostics.len(),
        out.stats.classes,
        out.stats.methods,
        out.problems.len()
    )
}

fn severity(l: Level) -> Severity {
    match l {
        Level::Note => Severity::Advice,
        Level::Warning => Severity::Warning,
        Level::Error => Severity::Error,
    }
}

fn to_report(d: &Diagnostic, source: Option<String>) -> Report {
    let location = format!(
        "in {}.{}{} at {}:{}",
        d.class,
        d.method,
        d.descriptor,
        d.file,
        d.line.map(|l| l.to_string()).unwrap_or_else(|| "?".into())
    );
    let mut diag = MietteDiagnostic::new(d.message.clone())
        .with_code(d.rule.code())
        .with_severity(severity(d.level));
    match source {
        Some(text) => {
            let labels = d
                .steps
                .iter()
                .filter(|st| st.file.is_none())
                .filter_map(|st| {
                    let span = line_span(&text, st.line?)?;
                    let label = format!("{}: {}", step_name(st.kind), st.message);
                    Some(if st.kind == StepKind::Use {
                        LabeledSpan::new_primary_with_span(Some(label), span)
                    } else {
                        LabeledSpan::new_with_span(Some(label), span)
                    })
                });
            let mut help = location;
            for st in d.steps.iter().filter(|st| st.file.is_some()) {
                let _ = write!(
                    help,
                    "\n{}:{} {}: {}",
                    st.file.as_deref().unwrap_or(""),
                    st.line.map(|l| l.to_string()).unwrap_or_else(|| "?".into()),
                    step_name(st.kind),
                    st.message
                );
            }
            if !d.threads.is_empty() {
                let _ = write!(help, "\nthreads: {}", d.threads.join("; "));
            }
            diag = diag.with_labels(labels).with_help(help);
            let name = d
                .source
                .as_deref()
                .map(Path::display)
                .map(|p| p.to_string())
                .unwrap_or_else(|| d.file.clone());
            Report::new(diag).with_source_code(NamedSource::new(name, text))
        }
        None => {
            let mut help = location;
            if !d.threads.is_empty() {
                let _ = write!(help, "\nthreads: {}", d.threads.join("; "));
            }
            for st in &d.steps {
                let _ = write!(
                    help,
                    "\n{:>5} {:<5} {}",
                    st.line
                        .map(|l| format!("{l}:"))
                        .unwrap_or_else(|| "?:".into()),
                    step_name(st.kind),
                    st.message
                );
            }
            Report::new(diag.with_help(help))
        }
    }
}

fn step_name(k: StepKind) -> &'static str {
    match k {
        StepKind::Read => "read",
        StepKind::Stale => "stale",
        StepKind::Use => "use",
        StepKind::Lock => "lock",
        StepKind::Access => "access",
    }
}

/// Byte span of a 1-based line, without its indentation and newline.
fn line_span(text: &str, line: u32) -> Option<(usize, usize)> {
    let mut offset = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line as usize {
            let trimmed = l.trim_end_matches(['\n', '\r']);
            let indent = trimmed.len() - trimmed.trim_start().len();
            return Some((offset + indent, trimmed.len() - indent));
        }
        offset += l.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::line_span;

    #[test]
    fn spans_skip_indentation() {
        let t = "a\n    bcd\r\ne";
        assert_eq!(line_span(t, 2), Some((6, 3)));
        assert_eq!(line_span(t, 3), Some((11, 1)));
        assert_eq!(line_span(t, 4), None);
    }
}
