//! The rules: one file per rule with its documentation beside it (`<rule>.md`), and the one
//! registry of rule metadata ([`RULES`]) that feeds `--help`, the docs and SARIF
//! `tool.driver.rules`.

pub mod block_local_atomicity;
pub mod causal_stale_value;
pub mod high_level_data_race;
pub mod method_consistency;
pub mod stale_value;

use serde::Serialize;

use crate::analysis::engine::{self, Both, EngineError, MethodCx};
use crate::analysis::locks::{self, Caller, LockId, Sym};

/// Rule identifiers. The string ids are fixed and public.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum RuleId {
    #[serde(rename = "stale-value")]
    StaleValue,
    #[serde(rename = "block-local-atomicity")]
    BlockLocalAtomicity,
    #[serde(rename = "method-consistency")]
    MethodConsistency,
    #[serde(rename = "high-level-data-race")]
    HighLevelDataRace,
    #[serde(rename = "causal-stale-value")]
    CausalStaleValue,
}

/// Default severity of a rule's findings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Note,
    Warning,
    Error,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Note => "note",
            Level::Warning => "warning",
            Level::Error => "error",
        }
    }
}

/// Everything the tool says about a rule.
pub struct RuleMeta {
    pub id: RuleId,
    pub code: &'static str,
    /// PascalCase name (SARIF `name`).
    pub name: &'static str,
    pub short: &'static str,
    pub full: &'static str,
    pub level: Level,
    /// Whether a run without `--rules` (or `[rules]` in stalecheck.toml) runs it: the default
    /// set holds the rules whose measured precision meets the bar (bench/precision/README.md);
    /// the others are there to be asked for, like clippy's pedantic group.
    pub default_on: bool,
    /// The rule's documentation (Markdown), from the file beside its code.
    pub docs: &'static str,
    pub tags: &'static [&'static str],
    /// SARIF `properties.precision`, from the measured precision on the corpus of
    /// bench/precision (judged warnings that are real or benign): `high` from 80%, `medium`
    /// from 40%, `low` below; the figures are in each rule's documentation.
    pub precision: &'static str,
    /// What to do about a finding, in one line (the `hint:` line of `scan --console`).
    pub hint: &'static str,
}

pub const RULES: &[RuleMeta] = &[
    RuleMeta {
        id: RuleId::StaleValue,
        code: "stale-value",
        name: "StaleValue",
        short: "A value read inside a critical section is used after another critical section was entered.",
        full: "Burrows and Leino's stale-value error: a value read from shared state while holding a lock \
               is used after the lock was released and a critical section was entered again (a lock, a \
               synchronized or @Atomic call of the same abstraction, a thread-safe library call, or the \
               return from wait()). Other threads may have changed the shared state in between, so the \
               value may be out of date. Ranked by age: the number of critical sections entered since the read.",
        level: Level::Warning,
        default_on: false,
        docs: include_str!("stale_value.md"),
        tags: &["concurrency", "atomicity", "external/cwe/cwe-362", "external/cwe/cwe-367"],
        precision: "low",
        hint: "re-read the value inside the second critical section, or do the read and the write in one critical section",
    },
    RuleMeta {
        id: RuleId::BlockLocalAtomicity,
        code: "block-local-atomicity",
        name: "BlockLocalAtomicity",
        short: "A shared value is used outside the monitor block it was read in.",
        full: "Artho, Havelund and Biere's block-local atomicity: every value read from shared state inside a \
               monitor block must be used in that same block. A use in another block, or after the block \
               ended, operates on a copy that is no longer protected. The strict rule: it also reports \
               snapshots used after the lock is released (for example printed), which the stale-value rule accepts.",
        level: Level::Note,
        default_on: false,
        docs: include_str!("block_local_atomicity.md"),
        tags: &["concurrency", "atomicity", "external/cwe/cwe-362"],
        precision: "low",
        hint: "use the value inside the block that read it, or widen the block to cover the use (a snapshot that is only printed is fine)",
    },
    RuleMeta {
        id: RuleId::MethodConsistency,
        code: "method-consistency",
        name: "MethodConsistency",
        short: "A method accesses shared fields in critical sections whose lock views do not form a chain.",
        full: "von Praun and Gross's method consistency: the fields a method accesses in its dynamic scope \
               (its method view) are protected by locks whose views (the fields accessed under each \
               acquisition) do not nest, in a program where other threads run concurrently. The method \
               then reads or writes related state in separate critical sections, and a concurrent thread \
               can change it in between: the method is not atomic.",
        level: Level::Warning,
        default_on: false,
        docs: include_str!("method_consistency.md"),
        tags: &["concurrency", "atomicity", "external/cwe/cwe-362"],
        precision: "low",
        hint: "protect the fields the method uses together with one lock held across its critical sections",
    },
    RuleMeta {
        id: RuleId::HighLevelDataRace,
        code: "high-level-data-race",
        name: "HighLevelDataRace",
        short: "Related shared fields are accessed in separate critical sections while another thread accesses them together.",
        full: "Artho et al.'s view consistency with read and write views and causal correlation (Teixeira, Lourenço \
               et al.): a thread updates fields in separate critical sections that another thread reads in \
               one (it can observe the intermediate state), or reads and combines in separate critical \
               sections fields that another thread updates in one (the combination mixes old and new \
               state). Read views that do not nest count only when the values are used together (a \
               common correlation in the causal dependency graph).",
        level: Level::Warning,
        default_on: false,
        docs: include_str!("high_level_data_race.md"),
        tags: &["concurrency", "atomicity", "external/cwe/cwe-362"],
        precision: "low",
        hint: "access the related fields together in one critical section, in this thread as in the other",
    },
    RuleMeta {
        id: RuleId::CausalStaleValue,
        code: "causal-stale-value",
        name: "CausalStaleValue",
        short: "A value read in one critical section is written, directly or through a condition, inside another while a concurrent thread writes its source.",
        full: "The stale-value error over the causal dependency graph: a value of a shared variable leaves \
               the atomic region it was read in (returned, copied to a local) and enters another region \
               (or the same one again), where it is written to shared state or decides a write, while \
               another thread writes the variable it came from. Follows values across methods, through \
               conditions (check-then-act) and thread-safe library calls.",
        level: Level::Warning,
        default_on: true,
        docs: include_str!("causal_stale_value.md"),
        tags: &["concurrency", "atomicity", "external/cwe/cwe-362", "external/cwe/cwe-367"],
        precision: "medium",
        hint: "do the read and the write (or the check and the act) in one critical section, or use an atomic update (compareAndSet, compute, merge)",
    },
];

impl RuleId {
    /// Whether the rule looks at the whole program (threads, views) rather than one method.
    pub fn is_whole_program(self) -> bool {
        matches!(
            self,
            RuleId::MethodConsistency | RuleId::HighLevelDataRace | RuleId::CausalStaleValue
        )
    }

    pub fn meta(self) -> &'static RuleMeta {
        // RULES holds every variant, in declaration order.
        &RULES[self as usize]
    }
    pub fn code(self) -> &'static str {
        self.meta().code
    }
    pub fn from_code(code: &str) -> Option<RuleId> {
        RULES.iter().find(|r| r.code == code).map(|r| r.id)
    }
}

/// A finding inside one method, in instruction indices; `crate::explain` turns it into lines
/// and words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub rule: RuleId,
    /// The instruction that uses the stale value.
    pub use_at: u32,
    /// The instruction that read it (a field or array read, or a call that is a region).
    pub read_at: u32,
    /// The acquisition site of the region it was read in (`METHOD_SITE` for a method-level region).
    pub region_site: u32,
    /// Where it went stale: the first region entry after the release (stale-value), or the first
    /// region boundary after the read (block-local atomicity).
    pub boundary_at: Option<u32>,
    /// Critical sections entered since the read (stale-value only).
    pub age: Option<u32>,
    /// Other stale values of the same cause, folded into this finding (see [`collapse`]):
    /// `(read_at, use_at)` of each.
    pub also: Vec<(u32, u32)>,
    /// What makes it a finding (see [`Evidence`]).
    pub evidence: Evidence,
    /// The location the value was read from, and whether it is a thread-safe object's state.
    pub read_place: Option<(Sym, bool)>,
    /// The value was read and used inside one enclosing critical section, still held: its lock,
    /// the location read and whether it is a thread-safe object's state. The finding stands
    /// only if some writer of that location does not hold the lock
    /// ([`crate::analysis::guards`]).
    pub enclosing: Option<(LockId, Sym, bool)>,
    /// The value was read and written back inside one critical section of this lock (a
    /// read-modify-write that looks atomic): a finding only if some writer of the location
    /// holds locks that are all other objects than this one, so the region excludes nothing
    /// (the wrong lock; [`crate::analysis::guards::Writes::other_lock`]).
    /// With the lock, the outermost lock held around it (if another), and the object the value
    /// was written back through.
    pub wrong_lock: Option<(LockId, Option<LockId>, Sym)>,
}

/// What a stale value is used for, from the strongest evidence of a defect to the weakest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Evidence {
    /// Written back where it came from (`x.set(x.get() + 1)`): a lost update.
    WriteBack,
    /// Used on the object it came from: an index or key into it (`v.remove(v.size() - 1)`),
    /// or the stale reference itself dereferenced.
    SameObject,
    /// Used inside a critical section of the lock it was read under (stored, passed).
    SameLock,
    /// Tested: it decides what happens next (check-then-act).
    Decision,
    /// Any other use after the new critical section began (passed on, printed).
    Use,
}

impl Evidence {
    /// The word for reports.
    pub fn word(self) -> &'static str {
        match self {
            Evidence::WriteBack => "write-back",
            Evidence::SameObject => "same-object",
            Evidence::SameLock => "same-lock",
            Evidence::Decision => "decision",
            Evidence::Use => "use",
        }
    }

    /// The SARIF rank for a stale value of this evidence and age: older stale values rank
    /// higher (Burrows and Leino's ordering by age).
    pub fn rank(self, age: Option<u32>) -> u32 {
        let base = match self {
            Evidence::WriteBack => 85,
            Evidence::SameObject => 75,
            Evidence::SameLock => 65,
            Evidence::Decision => 50,
            Evidence::Use => 35,
        };
        let older = age.map_or(0, |a| 5 * a.saturating_sub(1).min(3));
        (base + older).min(100)
    }
}

/// One finding per cause: the findings of a rule in one method that share a use (one statement
/// reading several stale values), or a snapshot (values read in the same critical section that
/// went stale at the same boundary), become one finding: the one used first (in code order)
/// with the others in `also`, oldest age kept.
pub fn collapse(mut findings: Vec<Finding>) -> Vec<Finding> {
    if findings.len() < 2 {
        return findings;
    }
    findings.sort_by_key(|f| (f.rule, f.use_at, f.read_at));
    let mut out: Vec<Finding> = Vec::with_capacity(findings.len());
    for f in findings {
        // A wrong-lock candidate stands or falls on its own variable's writers.
        let same_cause = |g: &Finding| {
            g.rule == f.rule
                && g.wrong_lock.is_none()
                && f.wrong_lock.is_none()
                && (g.use_at == f.use_at
                    || (g.region_site == f.region_site && g.boundary_at == f.boundary_at))
        };
        match out.iter_mut().find(|g| same_cause(g)) {
            Some(g) => {
                g.age = g.age.max(f.age);
                g.evidence = g.evidence.min(f.evidence);
                g.also.push((f.read_at, f.use_at));
                g.also.extend(f.also);
            }
            None => out.push(f),
        }
    }
    out
}

/// Run the enabled rules over one method, in one pass of the engine when both are enabled.
pub fn check_method(cx: &MethodCx<'_>, rules: &[RuleId]) -> Result<Vec<Finding>, EngineError> {
    let rules: Vec<RuleId> = rules
        .iter()
        .copied()
        .filter(|r| !r.is_whole_program())
        .collect();
    let rules = &rules[..];
    let caller = Caller {
        program: cx.program,
        class_id: cx.class_id,
        class: cx.class,
        method: cx.method,
    };
    if !locks::may_enter_region(&caller, cx.calls) {
        // No region, so no shared value: every rule is quiet by construction.
        return Ok(Vec::new());
    }
    let stale = rules.contains(&RuleId::StaleValue);
    let block = rules.contains(&RuleId::BlockLocalAtomicity);
    Ok(collapse(match (stale, block) {
        (true, true) => {
            let mut a = Both::new(
                stale_value::StaleValue::default(),
                block_local_atomicity::BlockLocal::default(),
            );
            engine::run(cx, &mut a)?;
            a.first.settle(cx);
            a.first
                .findings
                .into_iter()
                .chain(a.second.findings)
                .collect()
        }
        (true, false) => {
            let mut a = stale_value::StaleValue::default();
            engine::run(cx, &mut a)?;
            a.settle(cx);
            a.findings
        }
        (false, true) => {
            let mut a = block_local_atomicity::BlockLocal::default();
            engine::run(cx, &mut a)?;
            a.findings
        }
        (false, false) => Vec::new(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_is_in_declaration_order() {
        for (i, r) in RULES.iter().enumerate() {
            assert_eq!(r.id as usize, i, "{} out of order", r.code);
            assert_eq!(RuleId::from_code(r.code), Some(r.id));
            assert!(r.docs.starts_with("# "), "{} docs need a title", r.code);
        }
        assert_eq!(RuleId::from_code("nope"), None);
    }
}
