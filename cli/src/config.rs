//! Analysis options: what the command line (and later `stalecheck.toml`) can set. Plain data;
//! the analysis core reads it, nothing here does I/O.

/// How calls to methods whose code is not available (neither scanned nor on `--classpath`,
/// or `native`) are modelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum UnknownCalls {
    /// The callee takes no lock; its result is computed from its arguments (and, inside a
    /// region, from shared state). Few false alarms; the default.
    #[default]
    NoLock,
    /// The papers' conservative rule: the callee may take a lock of its own, so it is a region
    /// and its result is a shared value of a fresh block (sound, noisy).
    Conservative,
}

#[derive(Clone, Debug)]
pub struct AnalysisConfig {
    /// Simple names of annotations that make a method an atomic region.
    pub atomic_annotations: Vec<String>,
    /// Block-local atomicity: treat every lock taken by a callee as distinct (the paper's
    /// context-insensitive variant) instead of recognising re-entry of a lock the caller holds.
    pub context_insensitive: bool,
    pub unknown_calls: UnknownCalls,
    /// Whole-program rules: treat public methods of synchronizing classes as concurrent entry
    /// points even when the program has a `main`.
    pub open_world: bool,
    /// Simple names of class annotations that mark a class as meant for concurrent use (open
    /// world entry points).
    pub thread_safe_annotations: Vec<String>,
}

impl Default for AnalysisConfig {
    fn default() -> Self {
        Self {
            atomic_annotations: vec!["Atomic".to_string()],
            open_world: false,
            thread_safe_annotations: vec!["ThreadSafe".to_string()],
            context_insensitive: false,
            unknown_calls: UnknownCalls::NoLock,
        }
    }
}
