//! Problems with the input: reported once each, with the path and the reason; the rest of the
//! scan goes on. An input that cannot be read ([`ProblemKind::Input`] at [`Severity::Error`])
//! fails the run (the binary's exit code 2) unless the user asked for lenient reading.

use serde::Serialize;

/// How serious an input problem is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Something the user should know, but nothing was lost (e.g. a duplicate class).
    Note,
    /// Probably not what the user meant, though nothing could not be read: an input without
    /// class files, a source root that does not exist.
    Warning,
    /// Part of the input could not be analysed (a corrupt class, a truncated archive, a panic).
    Error,
}

/// Where a problem comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ProblemKind {
    /// Reading the input: a path, a file, an archive or a class file.
    #[default]
    Input,
    /// The analysis of readable input: a method left out, an internal error contained.
    Analysis,
}

/// One problem with one input, e.g. `app.jar!/com/x/Y.class: truncated class file`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InputProblem {
    pub severity: Severity,
    #[serde(skip)]
    pub kind: ProblemKind,
    /// Display path of the input: a file, or `outer.jar!/inner.jar!/entry` inside archives.
    pub path: String,
    /// Why: one sentence, no trailing period.
    pub reason: String,
}

impl InputProblem {
    /// An input that cannot be read (fails the run unless reading is lenient).
    pub fn error(path: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::new(Severity::Error, ProblemKind::Input, path, reason)
    }
    /// Part of a readable input that could not be analysed (reported; does not fail the run).
    pub fn internal(path: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::new(Severity::Error, ProblemKind::Analysis, path, reason)
    }
    pub fn warning(path: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::new(Severity::Warning, ProblemKind::Input, path, reason)
    }
    pub fn note(path: impl Into<String>, reason: impl Into<String>) -> Self {
        Self::new(Severity::Note, ProblemKind::Input, path, reason)
    }
    fn new(
        severity: Severity,
        kind: ProblemKind,
        path: impl Into<String>,
        reason: impl Into<String>,
    ) -> Self {
        Self {
            severity,
            kind,
            path: path.into(),
            reason: reason.into(),
        }
    }
    /// Whether this is an input that could not be read (what fails a run that is not lenient).
    pub fn is_unreadable_input(&self) -> bool {
        self.severity == Severity::Error && self.kind == ProblemKind::Input
    }
}

impl std::fmt::Display for InputProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.reason)
    }
}
