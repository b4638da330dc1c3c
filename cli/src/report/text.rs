//! Text output for people: findings grouped by class, each headline rendered with `miette`,
//! then the steps in execution order (the list the SARIF code flow and the HTML report give)
//! and, when the `.java` file was found under a `--source-root`, the source cut to the lines
//! around the steps.

use std::fmt::Write as _;

use miette::{
    GraphicalReportHandler, GraphicalTheme, MietteDiagnostic, Report as MietteReport, Severity,
};

use super::Report;
use crate::explain::Diagnostic;
use crate::rules::Level;

/// Render the findings (problems are printed separately, to stderr, by the binary). Suppressed
/// findings are left out (the summary counts them); with a baseline each finding says whether
/// it is new, and the findings fixed since are listed at the end.
pub fn render(report: &Report<'_>, color: bool) -> String {
    let out = report.out;
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(100)
        .with_links(false);
    let mut sources = super::SourceFiles::default();
    let mut s = String::new();
    let mut current_class: Option<&str> = None;
    for (i, d) in out.diagnostics.iter().enumerate() {
        if report.suppressed(i) {
            continue;
        }
        if current_class != Some(d.class.as_str()) {
            let _ = writeln!(s, "\n── {} ({})", d.class, d.file);
            current_class = Some(&d.class);
        }
        let text = d.source.as_ref().and_then(|p| sources.text(p));
        let state = report.results[i].baseline_state.map(|st| st.as_str());
        let rendered = to_report(d, state);
        let _ = handler.render_report(&mut s, rendered.as_ref());
        s.push_str(&steps_block(d));
        if let (Some(text), Some(path)) = (text, &d.source) {
            if let Some(x) = excerpt(d, &path.display().to_string(), text) {
                s.push_str(&x);
            }
        }
    }
    if !report.absent.is_empty() {
        let _ = writeln!(s, "\n── fixed since the baseline ({})", report.absent.len());
        for a in &report.absent {
            let place = a
                .primary
                .logical
                .as_ref()
                .map(|l| l.fully_qualified_name.clone())
                .unwrap_or_default();
            let _ = writeln!(
                s,
                "  [absent] {} in {place} ({}:{}): {}",
                a.rule_id,
                a.primary.uri.as_deref().unwrap_or("?"),
                a.primary
                    .start_line
                    .map(|l| l.to_string())
                    .unwrap_or_else(|| "?".into()),
                plain_message(&a.message)
            );
        }
    }
    let _ = writeln!(s, "\n{}", summary_line(report));
    s
}

/// One line: counts per rule (with a baseline: new, unchanged, fixed; and suppressed), classes,
/// methods, input problems.
pub fn summary_line(report: &Report<'_>) -> String {
    let out = report.out;
    let counts = report.counts();
    let shown: usize = counts.iter().map(|(_, c)| c.reported).sum();
    let suppressed: usize = counts.iter().map(|(_, c)| c.suppressed).sum();
    let per_rule: Vec<String> = counts
        .iter()
        .map(|(code, c)| {
            let mut parts = Vec::new();
            if report.baseline {
                parts.push(format!("{} new", c.new));
                parts.push(format!("{} unchanged", c.unchanged + c.updated));
                parts.push(format!("{} fixed", c.fixed));
            } else {
                parts.push(c.reported.to_string());
            }
            if c.suppressed > 0 {
                parts.push(format!("{} suppressed", c.suppressed));
            }
            format!("{code}: {}", parts.join(", "))
        })
        .collect();
    let rules = if per_rule.is_empty() {
        String::new()
    } else {
        format!(" ({})", per_rule.join("; "))
    };
    let baseline = if report.baseline {
        let sum = |f: fn(&super::Counts) -> usize| counts.iter().map(|(_, c)| f(c)).sum::<usize>();
        format!(
            "; baseline: {} new, {} unchanged, {} fixed",
            sum(|c| c.new),
            sum(|c| c.unchanged + c.updated),
            sum(|c| c.fixed)
        )
    } else {
        String::new()
    };
    let suppressed = if suppressed > 0 {
        format!("; {suppressed} suppressed")
    } else {
        String::new()
    };
    let world = out
        .stats
        .world
        .as_ref()
        .map(|w| format!("; threads: {w}"))
        .unwrap_or_default();
    format!(
        "stalecheck: {shown} finding(s){rules} in {} class(es), {} method(s){baseline}{suppressed}; {} input problem(s){world}",
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

fn to_report(d: &Diagnostic, state: Option<&str>) -> MietteReport {
    let location = format!(
        "in {}.{}{} at {}:{}",
        d.class,
        d.method,
        d.descriptor,
        d.file,
        d.line.map(|l| l.to_string()).unwrap_or_else(|| "?".into())
    );
    let message = match state {
        Some(st) => format!("[{st}] {}", d.message),
        None => d.message.clone(),
    };
    // The threads are named once, in the message ("run by ...").
    let diag = MietteDiagnostic::new(message)
        .with_code(d.rule.code())
        .with_severity(severity(d.level))
        .with_help(location);
    MietteReport::new(diag)
}

/// The steps of a finding in execution order (the same list as the SARIF code flow and the
/// HTML report), one a line: `    1. read (line 12) message`.
pub fn steps_block(d: &Diagnostic) -> String {
    let mut s = String::from("    steps, in execution order:\n");
    for (i, st) in d.steps.iter().enumerate() {
        let _ = writeln!(
            s,
            "    {:>2}. {} ({}) {}",
            i + 1,
            st.kind.word(),
            st.place(&d.method),
            st.message
        );
    }
    s
}

/// The source cut to the lines that matter: each step's line with one line of context either
/// side (gaps elided), each step line marked with its number and kind.
fn excerpt(d: &Diagnostic, name: &str, text: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut marks: std::collections::BTreeMap<u32, Vec<String>> = Default::default();
    for (i, st) in d.steps.iter().enumerate() {
        match st.line {
            Some(l) if st.file.is_none() && l >= 1 && (l as usize) <= lines.len() => {
                marks
                    .entry(l)
                    .or_default()
                    .push(format!("{} {}", i + 1, st.kind.word()));
            }
            _ => {}
        }
    }
    if marks.is_empty() {
        return None;
    }
    let show = super::excerpt_lines(marks.keys().copied(), lines.len() as u32);
    let width = show.last().map(|l| l.to_string().len()).unwrap_or(1).max(3);
    let mut s = format!("    {:>width$} ╭─ {name}\n", "");
    let mut prev = 0;
    for l in show {
        if prev != 0 && l > prev + 1 {
            let _ = writeln!(s, "    {:>width$} ┆", "⋮");
        }
        prev = l;
        let code = lines[l as usize - 1].trim_end();
        match marks.get(&l) {
            Some(m) => {
                let _ = writeln!(s, "    {l:>width$} │ {code}   ◀ {}", m.join(", "));
            }
            None => {
                let _ = writeln!(s, "    {l:>width$} │ {code}");
            }
        }
    }
    let _ = writeln!(s, "    {:>width$} ╰─", "");
    Some(s)
}

/// A SARIF message as plain text: the `[text](n)` links to related locations dropped, `\[`,
/// `\]` and `\\` unescaped.
fn plain_message(m: &str) -> String {
    let mut out = String::with_capacity(m.len());
    let mut chars = m.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                if let Some((_, n)) = chars.next() {
                    out.push(n);
                }
            }
            '[' => {
                // A link `[text](digits)`: skip it and the space before it.
                // The link text ends at the first bracket, which must be `]` followed by
                // `(digits)`: `[age 1] [read](1)` is literal text, then a link.
                let rest = &m[i..];
                let link = rest[1..]
                    .find(['[', ']'])
                    .map(|close| close + 1)
                    .filter(|&close| rest[close..].starts_with("]("))
                    .and_then(|close| {
                        let after = &rest[close + 2..];
                        let end = after.find(')')?;
                        (end > 0 && after[..end].bytes().all(|b| b.is_ascii_digit()))
                            .then_some(close + 2 + end + 1)
                    });
                match link {
                    Some(len) => {
                        if out.ends_with(' ') {
                            out.pop();
                        }
                        while chars.peek().is_some_and(|(j, _)| *j < i + len) {
                            chars.next();
                        }
                    }
                    None => out.push(c),
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// `stalecheck diff` as text: the new findings, the fixed ones, the unchanged ones (one line
/// each), and a summary line.
pub fn render_diff(d: &stalecheck_sarif::baseline::LogDiff, failing: usize) -> String {
    use stalecheck_sarif::BaselineState as S;
    fn line(s: &mut String, tag: &str, r: &stalecheck_sarif::SarifResult, suppressed: bool) {
        let place = r
            .primary
            .logical
            .as_ref()
            .map(|l| format!(" in {}", l.fully_qualified_name))
            .unwrap_or_default();
        let _ = writeln!(
            s,
            "  [{tag}] {} {}{place} ({}:{}){}: {}",
            r.level,
            r.rule_id,
            r.primary.uri.as_deref().unwrap_or("?"),
            r.primary
                .start_line
                .map(|l| l.to_string())
                .unwrap_or_else(|| "?".into()),
            if suppressed { " (suppressed)" } else { "" },
            plain_message(&r.message)
        );
    }
    let mut s = String::new();
    let sections: [(&str, &[S]); 2] = [
        ("new", &[S::New]),
        ("unchanged", &[S::Unchanged, S::Updated]),
    ];
    let mut counts = Vec::new();
    for (i, (title, states)) in sections.iter().enumerate() {
        let items: Vec<_> = d
            .head
            .iter()
            .filter(|(_, st)| states.contains(st))
            .collect();
        counts.push(items.len());
        if !items.is_empty() {
            let _ = writeln!(s, "── {title} ({})", items.len());
            for (e, st) in items {
                line(&mut s, st.as_str(), &e.result, e.suppressed);
            }
        }
        if i == 0 && !d.absent.is_empty() {
            let _ = writeln!(s, "── fixed ({})", d.absent.len());
            for e in &d.absent {
                line(&mut s, "fixed", &e.result, e.suppressed);
            }
        }
    }
    let suppressed = d.head.iter().filter(|(e, _)| e.suppressed).count();
    let _ = writeln!(
        s,
        "stalecheck diff: {} new, {} unchanged, {} fixed, {suppressed} suppressed; {failing} new finding(s) fail the check",
        counts[0],
        counts[1],
        d.absent.len()
    );
    s
}

#[cfg(test)]
mod tests {

    #[test]
    fn sarif_messages_read_as_plain_text() {
        assert_eq!(
            super::plain_message(r"value \[age 1\] [read](1) [went stale](2)"),
            "value [age 1]"
        );
        assert_eq!(super::plain_message("a [b] c"), "a [b] c");
        // Unescaped literal brackets before a link (what stalecheck writes now).
        assert_eq!(
            super::plain_message("value [age 1] [read](1) f(int[]) [went stale](2)"),
            "value [age 1] f(int[])"
        );
    }

    #[test]
    fn excerpts_keep_the_step_lines_and_elide_the_rest() {
        use crate::explain::{Diagnostic, Step, StepKind};
        let text: String = (1..=60).map(|i| format!("line{i}\n")).collect();
        let d = Diagnostic {
            rule: crate::rules::RuleId::StaleValue,
            level: crate::rules::Level::Warning,
            message: "m".into(),
            class: "p.C".into(),
            method: "m".into(),
            descriptor: "()V".into(),
            file: "p/C.java".into(),
            source: None,
            source_root: None,
            line: Some(50),
            age: None,
            steps: vec![
                Step::here(StepKind::Read, Some(10), Some(1), "r".into()),
                Step::here(StepKind::Stale, Some(11), Some(2), "s".into()),
                Step::here(StepKind::Use, Some(50), Some(3), "u".into()),
            ],
            threads: Vec::new(),
            evidence: None,
            rank: None,
        };
        let x = super::excerpt(&d, "C.java", &text).unwrap();
        let shown: Vec<&str> = x
            .lines()
            .filter_map(|l| l.split('│').nth(1))
            .map(|c| c.trim().split(' ').next().unwrap())
            .collect();
        assert_eq!(
            shown,
            ["line9", "line10", "line11", "line12", "line49", "line50", "line51"]
        );
        assert!(x.contains("◀ 1 read") && x.contains("◀ 2 stale") && x.contains("◀ 3 use"));
        assert_eq!(x.matches('┆').count(), 1, "one gap: {x}");
        assert!(super::steps_block(&d).contains("     3. use (line 50) u\n"));
    }
}
