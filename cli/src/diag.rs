//! Problems with the input: reported once each, with the path and the reason; the rest of the
//! scan goes on. An input that cannot be read ([`ProblemKind::Input`] at [`Severity::Error`])
//! fails the run (the binary's exit code 2) unless the user asked for lenient reading.

use serde::{Deserialize, Serialize};

/// How serious an input problem is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, Deserialize)]
pub enum ProblemKind {
    /// Reading the input: a path, a file, an archive or a class file.
    #[default]
    Input,
    /// The analysis of readable input: a method left out, an internal error contained.
    Analysis,
}

/// One problem with one input, e.g. `app.jar!/com/x/Y.class: truncated class file`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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

/// Runs `f` and contains a panic in it: `Err(message)` instead of unwinding, and nothing printed
/// (the panic is the caller's to report, once, as a problem). Panics outside such a call, and
/// on other threads, still go to the hook that was installed before (the default one prints).
///
/// The first call installs a process-wide panic hook that stays silent while the panicking
/// thread is inside `contain`, and hands every other panic to the previous hook.
pub fn contain<R>(f: impl FnOnce() -> R) -> Result<R, String> {
    use std::panic::{catch_unwind, AssertUnwindSafe};
    install_quiet_hook();
    QUIET_DEPTH.with(|depth| depth.set(depth.get() + 1));
    let result = catch_unwind(AssertUnwindSafe(f));
    QUIET_DEPTH.with(|depth| depth.set(depth.get() - 1));
    result.map_err(|panic| {
        let message = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_string());
        match LAST_LOCATION.with(|last| last.take()) {
            Some(location) => format!("{message} (at {location})"),
            None => message,
        }
    })
}

/// [`contain`] for a phase that runs on every thread of the pool (its work fans out to rayon's
/// workers, whose panics unwind into `f`): while it runs, a panic on any thread is silent. Only
/// for phases that run alone (the pipeline's phases are sequential).
pub fn contain_phase<R>(f: impl FnOnce() -> R) -> Result<R, String> {
    PHASE_DEPTH.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let result = contain(f);
    PHASE_DEPTH.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    result
}

/// How many [`contain_phase`] calls are running.
static PHASE_DEPTH: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

thread_local! {
    /// How many [`contain`] calls the current thread is inside.
    static QUIET_DEPTH: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
    /// Where the last contained panic of this thread happened.
    static LAST_LOCATION: std::cell::RefCell<Option<String>> =
        const { std::cell::RefCell::new(None) };
}

fn install_quiet_hook() {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let quiet = QUIET_DEPTH.with(|depth| depth.get()) > 0
                || PHASE_DEPTH.load(std::sync::atomic::Ordering::SeqCst) > 0;
            if quiet {
                let location = info
                    .location()
                    .map(|l| format!("{}:{}", l.file(), l.line()));
                LAST_LOCATION.with(|last| *last.borrow_mut() = location);
            } else {
                previous(info);
            }
        }));
    });
}

#[cfg(test)]
mod tests {
    use super::contain;

    #[test]
    fn a_contained_panic_becomes_its_message() {
        assert_eq!(contain(|| 7), Ok(7));
        let err = contain(|| -> u32 { panic!("bad input {}", 3) }).unwrap_err();
        assert!(err.starts_with("bad input 3 (at "), "{err}");
        let err = contain(|| -> u32 { std::panic::panic_any(5u8) }).unwrap_err();
        assert!(err.starts_with("unknown panic"), "{err}");
        // Nested, and the depth is restored after each.
        let outer = contain(|| contain(|| -> u8 { panic!("inner") }).unwrap_err());
        assert!(outer.unwrap().starts_with("inner"));
    }
}
