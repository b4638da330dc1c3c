//! What the configuration and the code say about findings: rule levels from `stalecheck.toml`,
//! excluded classes (their findings are dropped), and suppressions (kept, marked, never failing
//! the run): `[[suppress]]` entries (SARIF kind `external`) and `@SuppressStaleCheck` /
//! `@SuppressFBWarnings` annotations on a class, method or field (kind `inSource`).

use std::collections::BTreeMap;

use stalecheck_sarif as sarif;

use super::{in_method, quoted_names};
use crate::bytecode::{SuppressAnnotation, SuppressTarget};
use crate::config::{class_glob_matches, RuleSetting, SuppressEntry};
use crate::explain::Diagnostic;
use crate::pipeline::ScanOutput;
use crate::rules::RuleId;

/// What to apply.
#[derive(Default)]
pub struct Policy<'a> {
    pub levels: Option<&'a BTreeMap<RuleId, RuleSetting>>,
    pub exclude: &'a [String],
    pub suppress: &'a [SuppressEntry],
}

/// Id of the notification for a `[[suppress]]` entry that matched nothing.
pub const UNUSED_SUPPRESSION: &str = "unused-suppression";

/// Whether a class (dotted) is `owner` or nested in it.
fn in_class(class: &str, owner: &str) -> bool {
    class == owner
        || class
            .strip_prefix(owner)
            .is_some_and(|rest| rest.starts_with('$'))
}

/// Whether the finding is about field `field` (its message names `Owner.field`).
fn about_field(d: &Diagnostic, field: &str) -> bool {
    quoted_names(&d.message)
        .iter()
        .any(|n| n.rsplit('.').next() == Some(field))
}

fn entry_matches(e: &SuppressEntry, d: &Diagnostic) -> bool {
    e.rule.is_none_or(|r| r == d.rule)
        && class_glob_matches(&e.class, &d.class)
        && e.method.as_deref().is_none_or(|m| in_method(&d.method, m))
        && e.field.as_deref().is_none_or(|f| about_field(d, f))
}

fn annotation_matches(class: &str, a: &SuppressAnnotation, d: &Diagnostic) -> bool {
    let rule_ok = a.values.is_empty() || a.values.iter().any(|v| &**v == d.rule.code());
    rule_ok
        && match &a.target {
            SuppressTarget::Class => in_class(&d.class, class),
            SuppressTarget::Method(name, desc) => {
                let exact = d.method == **name && d.descriptor == **desc;
                let lambda_inside = d.method != **name && in_method(&d.method, name);
                d.class == class && (exact || lambda_inside)
            }
            SuppressTarget::Field(name) => in_class(&d.class, class) && about_field(d, name),
        }
}

/// Applies `policy` and the annotations of `out` to its diagnostics: excluded ones are
/// removed, levels set; returns, parallel to the remaining diagnostics, their suppressions, and
/// a notification for each `[[suppress]]` entry that matched nothing.
pub fn apply(
    out: &mut ScanOutput,
    policy: &Policy<'_>,
) -> (Vec<Vec<sarif::Suppression>>, Vec<sarif::Notification>) {
    out.diagnostics.retain(|d| {
        !policy
            .exclude
            .iter()
            .any(|g| class_glob_matches(g, &d.class))
    });
    if let Some(levels) = policy.levels {
        for d in &mut out.diagnostics {
            if let Some(RuleSetting::Level(l)) = levels.get(&d.rule) {
                // The level set is that of findings whose evidence holds; one the rule made a
                // note for want of evidence stays at most a note.
                d.level = if d.level < d.rule.meta().level {
                    (*l).min(d.level)
                } else {
                    *l
                };
            }
        }
    }
    let mut used = vec![false; policy.suppress.len()];
    let suppressions = out
        .diagnostics
        .iter()
        .map(|d| {
            let mut s = Vec::new();
            for (i, e) in policy.suppress.iter().enumerate() {
                if entry_matches(e, d) {
                    used[i] = true;
                    s.push(sarif::Suppression {
                        kind: sarif::SuppressionKind::External,
                        justification: Some(format!("{} ({})", e.reason, e.origin)),
                    });
                }
            }
            for (class, a) in &out.suppressions {
                if annotation_matches(class, a, d) {
                    s.push(sarif::Suppression {
                        kind: sarif::SuppressionKind::InSource,
                        justification: Some(match &a.justification {
                            Some(j) if !j.is_empty() => format!("{j} (@{})", a.annotation),
                            _ => format!("@{}", a.annotation),
                        }),
                    });
                }
            }
            s
        })
        .collect();
    let notes = policy
        .suppress
        .iter()
        .zip(used)
        .filter(|(_, used)| !used)
        .map(|(e, _)| {
            let mut what = format!(
                "{} in {}",
                e.rule.map(|r| r.code()).unwrap_or("any rule"),
                e.class
            );
            if let Some(m) = &e.method {
                what.push_str(&format!(", method {m}"));
            }
            if let Some(f) = &e.field {
                what.push_str(&format!(", field {f}"));
            }
            sarif::Notification {
                level: sarif::Level::Warning,
                message: format!(
                    "{}: the suppression of {what} matched no finding; remove it or fix its pattern",
                    e.origin
                ),
                uri: None,
                descriptor_id: Some(UNUSED_SUPPRESSION.to_string()),
            }
        })
        .collect();
    (suppressions, notes)
}
