//! Output formats and what they share. A finished scan ([`crate::pipeline::ScanOutput`]) goes
//! through [`suppress`] (configured levels, exclusions, suppressions), is turned into SARIF
//! results ([`sarif::results`]: fingerprints, line hashes, suppressions), compared with a
//! baseline ([`baseline`]), and rendered as text, JSON, SARIF or HTML. None of them analyses anything.

pub mod baseline;
pub mod console;
pub mod html;
pub mod json;
pub mod sarif;
pub mod suppress;
pub mod text;

use stalecheck_sarif as sarif_model;

use crate::pipeline::ScanOutput;
use crate::rules::{Level, RULES};

/// The source files of a report's findings, each read once (one that cannot be read is
/// remembered as missing): what the text, console and HTML formats show of the code.
#[derive(Default)]
pub struct SourceFiles(std::collections::HashMap<std::path::PathBuf, Option<String>>);

impl SourceFiles {
    /// The text of the file at `path`, if it can be read.
    pub fn text(&mut self, path: &std::path::Path) -> Option<&str> {
        self.0
            .entry(path.to_path_buf())
            .or_insert_with(|| std::fs::read_to_string(path).ok())
            .as_deref()
    }
}

/// The lines an excerpt of a file of `max` lines shows: each marked line with one line of
/// context either side, in order, each once.
pub fn excerpt_lines(marked: impl IntoIterator<Item = u32>, max: u32) -> Vec<u32> {
    let mut show: Vec<u32> = marked
        .into_iter()
        .flat_map(|l| l.saturating_sub(1).max(1)..=(l + 1).min(max))
        .collect();
    show.sort_unstable();
    show.dedup();
    show
}

/// What the run was asked to do, for formats that record it (SARIF invocations).
pub struct RunInfo {
    pub command_line: Vec<String>,
    pub working_directory: Option<std::path::PathBuf>,
    pub exit_code: i32,
    /// False when an input could not be read (and reading was not lenient): the run failed.
    pub execution_successful: bool,
    /// `automationDetails.id` (`--category`).
    pub category: Option<String>,
}

/// A scan ready to be rendered: the diagnostics (exclusions removed) with, for each, its SARIF
/// result (fingerprints, suppressions, baseline state), the results of the baseline that are
/// gone, and notes about the run (suppressions that matched nothing, ...).
pub struct Report<'a> {
    pub out: &'a ScanOutput,
    /// Parallel to `out.diagnostics`.
    pub results: Vec<sarif_model::SarifResult>,
    /// Whether a baseline was given (then every result has a baseline state).
    pub baseline: bool,
    /// Baseline results no finding matched (state `absent`).
    pub absent: Vec<sarif_model::SarifResult>,
    /// Notes about the run, for `toolExecutionNotifications` and stderr.
    pub notes: Vec<sarif_model::Notification>,
}

impl Report<'_> {
    /// Whether the `i`th finding is suppressed.
    pub fn suppressed(&self, i: usize) -> bool {
        !self.results[i].suppressions.is_empty()
    }

    /// Findings that fail the run: not suppressed, at or above `fail_on`, and (with a
    /// baseline) new.
    pub fn failing(&self, fail_on: Option<Level>) -> usize {
        let Some(min) = fail_on else { return 0 };
        self.out
            .diagnostics
            .iter()
            .enumerate()
            .filter(|(i, d)| {
                d.level >= min
                    && !self.suppressed(*i)
                    && (!self.baseline
                        || self.results[*i].baseline_state == Some(sarif_model::BaselineState::New))
            })
            .count()
    }

    /// Counts per rule, in registry order (rules with nothing to count are left out).
    pub fn counts(&self) -> Vec<(&'static str, Counts)> {
        let mut out = Vec::new();
        for r in RULES {
            let mut c = Counts::default();
            for (i, d) in self.out.diagnostics.iter().enumerate() {
                if d.rule != r.id {
                    continue;
                }
                if self.suppressed(i) {
                    c.suppressed += 1;
                    continue;
                }
                c.reported += 1;
                match self.results[i].baseline_state {
                    Some(sarif_model::BaselineState::New) => c.new += 1,
                    Some(sarif_model::BaselineState::Unchanged) => c.unchanged += 1,
                    Some(sarif_model::BaselineState::Updated) => c.updated += 1,
                    _ => {}
                }
            }
            c.fixed = self.absent.iter().filter(|a| a.rule_id == r.code).count();
            if c != Counts::default() {
                out.push((r.code, c));
            }
        }
        out
    }
}

/// Finding counts of one rule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counts {
    /// Reported (not suppressed).
    pub reported: usize,
    pub suppressed: usize,
    /// With a baseline: new, unchanged, updated (matched, but moved or reworded), fixed.
    pub new: usize,
    pub unchanged: usize,
    pub updated: usize,
    pub fixed: usize,
}

/// The code names a diagnostic's message quotes in backticks (fields, methods, classes), in
/// order, without repeats: what the finding is about, free of line numbers.
pub fn quoted_names(message: &str) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    let mut parts = message.split('`');
    parts.next();
    while let Some(name) = parts.next() {
        if !name.is_empty() && !out.contains(&name) {
            out.push(name);
        }
        parts.next();
    }
    out
}

/// Whether a finding's method is `method` itself or a lambda body written inside it
/// (`lambda$method$0`).
pub fn in_method(finding_method: &str, method: &str) -> bool {
    finding_method == method
        || finding_method
            .strip_prefix("lambda$")
            .and_then(|rest| rest.strip_prefix(method))
            .is_some_and(|rest| rest.starts_with('$'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_in_backticks() {
        assert_eq!(
            quoted_names("field `A.x` read in `get` (line 3) is passed to `f()`; `A.x` again"),
            vec!["A.x", "get", "f()"]
        );
        assert!(quoted_names("no names").is_empty());
    }

    #[test]
    fn lambdas_belong_to_their_method() {
        assert!(in_method("get", "get"));
        assert!(in_method("lambda$get$0", "get"));
        assert!(!in_method("lambda$getAll$0", "get"));
        assert!(!in_method("getAll", "get"));
    }
}
