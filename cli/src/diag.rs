//! Problems with the input: reported once each, with the path and the reason, and never fatal
//! on their own (the rest of the scan goes on).

use serde::Serialize;

/// How serious an input problem is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Something the user should know, but nothing was lost (e.g. a duplicate class).
    Note,
    /// Part of the input could not be analysed (a corrupt class, a truncated archive, a panic).
    Error,
}

/// One problem with one input, e.g. `app.jar!/com/x/Y.class: truncated class file`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InputProblem {
    pub severity: Severity,
    /// Display path of the input: a file, or `outer.jar!/inner.jar!/entry` inside archives.
    pub path: String,
    /// Why: one sentence, no trailing period.
    pub reason: String,
}

impl InputProblem {
    pub fn error(path: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            severity: Severity::Error,
            path: path.into(),
            reason: reason.into(),
        }
    }
    pub fn note(path: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            severity: Severity::Note,
            path: path.into(),
            reason: reason.into(),
        }
    }
}

impl std::fmt::Display for InputProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.reason)
    }
}
