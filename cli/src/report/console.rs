//! `scan --console gradle|maven`: one compiler-style line per new finding for build logs (the
//! format IDEs turn into links), a one-line hint of what to do, and a summary line. Printed on
//! stdout beside whatever report `--format`/`--output` writes; the plugins forward it.
//!
//! - gradle: `<path>:<line>: <level>: <message> [<rule>]`, then `    hint: <hint>`;
//! - maven: `<level>: <path>:[<line>,<col>] <message> [<rule>]`, then `info:     hint: <hint>`
//!   (the Maven plugin logs the rest of each line at the level its first word names).
//!
//! `<path>` is the absolute path of the source file when it was found under a `--source-root`,
//! else the package-relative path the class file names (`com/acme/Foo.java`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use stalecheck_sarif::BaselineState;

use super::Report;
use crate::explain::Diagnostic;
use crate::rules::Level;

/// The line format of `--console`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// `path:line: warning: message [rule]` (javac's and Gradle's format).
    Gradle,
    /// `warning: path:[line,col] message [rule]` (the Maven compiler plugin's format, with the
    /// level as a word the Maven plugin turns into `[WARNING]`).
    Maven,
}

/// The console lines of a report: each finding to show (not suppressed; with a baseline, new),
/// its hint, and the summary line. `report_path` is where the `--output` report was written;
/// `cwd` makes relative source roots absolute.
pub fn render(
    report: &Report<'_>,
    style: Style,
    report_path: Option<&Path>,
    cwd: Option<&Path>,
) -> String {
    let mut s = String::new();
    let mut sources = super::SourceFiles::default();
    for (i, d) in report.out.diagnostics.iter().enumerate() {
        if !shown(report, i) {
            continue;
        }
        let path = display_path(d, cwd);
        let message = one_line(&d.message);
        let rule = d.rule.code();
        let hint = d.rule.meta().hint;
        let level = d.level.as_str();
        match style {
            Style::Gradle => {
                let place = match d.line {
                    Some(line) => format!("{path}:{line}"),
                    None => path,
                };
                let _ = writeln!(s, "{place}: {level}: {message} [{rule}]");
                let _ = writeln!(s, "    hint: {hint}");
            }
            Style::Maven => {
                let place = match d.line {
                    Some(line) => {
                        let text = d.source.as_deref().and_then(|src| sources.text(src));
                        format!("{path}:[{line},{}]", column(text, line))
                    }
                    None => path,
                };
                let _ = writeln!(s, "{level}: {place} {message} [{rule}]");
                let _ = writeln!(s, "info:     hint: {hint}");
            }
        }
    }
    let _ = writeln!(s, "{}", summary(report, report_path));
    s
}

/// Whether the `i`th finding gets a line: not suppressed and, with a baseline, new.
fn shown(report: &Report<'_>, i: usize) -> bool {
    !report.suppressed(i)
        && (!report.baseline || report.results[i].baseline_state == Some(BaselineState::New))
}

/// The absolute source path when the file was found, else the class file's package path.
fn display_path(d: &Diagnostic, cwd: Option<&Path>) -> String {
    match d.source.as_deref() {
        Some(src) if src.is_absolute() => src.display().to_string(),
        Some(src) => match cwd {
            Some(c) => c.join(src).display().to_string(),
            None => std::path::absolute(src)
                .unwrap_or_else(|_| PathBuf::from(src))
                .display()
                .to_string(),
        },
        None => d.file.clone(),
    }
}

/// The 1-based column of the first character of `line` that is not white space (1 when the
/// source is unknown).
fn column(text: Option<&str>, line: u32) -> usize {
    text.and_then(|t| t.lines().nth((line as usize).checked_sub(1)?))
        .map(|l| l.chars().take_while(|c| c.is_whitespace()).count() + 1)
        .unwrap_or(1)
}

/// The message on one line (white space runs folded).
fn one_line(m: &str) -> String {
    m.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What was found, what is new, what the baseline already had, and where the report is.
pub fn summary(report: &Report<'_>, report_path: Option<&Path>) -> String {
    let counts = report.counts();
    let sum = |f: fn(&super::Counts) -> usize| counts.iter().map(|(_, c)| f(c)).sum::<usize>();
    let total = sum(|c| c.reported);
    let mut levels = [0usize; 3];
    for (i, d) in report.out.diagnostics.iter().enumerate() {
        if !report.suppressed(i) {
            levels[d.level as usize] += 1;
        }
    }
    let mut by_level = Vec::new();
    if levels[Level::Error as usize] > 0 {
        by_level.push(format!("{} error(s)", levels[Level::Error as usize]));
    }
    by_level.push(format!("{} warning(s)", levels[Level::Warning as usize]));
    by_level.push(format!("{} note(s)", levels[Level::Note as usize]));
    let mut line = if report.baseline {
        format!(
            "stalecheck: {total} finding(s): {} new, {} baselined (unchanged), {} absent (fixed since the baseline); {}",
            sum(|c| c.new),
            sum(|c| c.unchanged + c.updated),
            sum(|c| c.fixed),
            by_level.join(", ")
        )
    } else {
        format!("stalecheck: {total} finding(s) ({})", by_level.join(", "))
    };
    let suppressed = sum(|c| c.suppressed);
    if suppressed > 0 {
        let _ = write!(line, "; {suppressed} suppressed");
    }
    let problems = report.out.problems.len();
    if problems > 0 {
        let _ = write!(line, "; {problems} input problem(s)");
    }
    if let Some(p) = report_path {
        let _ = write!(line, "; report: {}", p.display());
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_of_the_first_non_blank() {
        let text = "class A {\n    int x;\n\tint y;\n";
        assert_eq!(column(Some(text), 2), 5);
        assert_eq!(column(Some(text), 3), 2);
        assert_eq!(column(Some(text), 1), 1);
        assert_eq!(column(Some(text), 9), 1);
        assert_eq!(column(None, 2), 1);
        assert_eq!(column(Some(text), 0), 1);
    }

    #[test]
    fn messages_are_one_line() {
        assert_eq!(one_line("a\n  b\tc "), "a b c");
    }
}
