//! Matching the results of a run against a baseline (an earlier run), for `baselineState`.
//!
//! A result is identified by its rule and a fingerprint: our own line-independent
//! [`STALECHECK_V1`](crate::fingerprint::STALECHECK_V1) when present, else GitHub's
//! [`PRIMARY_LOCATION_LINE_HASH`](crate::fingerprint::PRIMARY_LOCATION_LINE_HASH) with the file,
//! else the file, line and message. Matched results are `unchanged` when their message, file
//! and line are the same, `updated` otherwise (the code moved, or the message changed); the
//! others are `new`, and baseline results left unmatched are `absent`.

use std::collections::HashMap;

use crate::fingerprint::{PRIMARY_LOCATION_LINE_HASH, STALECHECK_V1};
use crate::BaselineState;

/// What matching needs to know of one result.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ResultKey {
    /// Tool that reported it (`tool.driver.name`); results of different tools never match.
    pub tool: String,
    pub rule_id: String,
    /// `partialFingerprints`.
    pub fingerprints: Vec<(String, String)>,
    pub message: String,
    /// Primary location: file URI and base id, and line.
    pub uri: Option<String>,
    pub uri_base_id: Option<String>,
    pub line: Option<u32>,
}

impl ResultKey {
    fn fingerprint(&self, key: &str) -> Option<&str> {
        self.fingerprints
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// The identity used for matching.
    fn identity(&self) -> (String, String, String) {
        let id = if let Some(fp) = self.fingerprint(STALECHECK_V1) {
            format!("{STALECHECK_V1}={fp}")
        } else if let Some(fp) = self.fingerprint(PRIMARY_LOCATION_LINE_HASH) {
            format!(
                "{PRIMARY_LOCATION_LINE_HASH}={fp}@{}",
                self.uri.as_deref().unwrap_or("")
            )
        } else {
            format!(
                "{}:{}:{}",
                self.uri.as_deref().unwrap_or(""),
                self.line.unwrap_or(0),
                self.message
            )
        };
        (self.tool.clone(), self.rule_id.clone(), id)
    }
}

/// The outcome of matching `current` results against `baseline` results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matching {
    /// For each current result, in order: its state and the baseline result it matched.
    pub current: Vec<(BaselineState, Option<usize>)>,
    /// Baseline results no current result matched (`absent`), in baseline order.
    pub absent: Vec<usize>,
}

/// Matches `current` against `baseline` (each baseline result matches at most one current one).
pub fn match_results(baseline: &[ResultKey], current: &[ResultKey]) -> Matching {
    let mut by_identity: HashMap<(String, String, String), Vec<usize>> = HashMap::new();
    for (i, b) in baseline.iter().enumerate().rev() {
        by_identity.entry(b.identity()).or_default().push(i);
    }
    let mut used = vec![false; baseline.len()];
    let states = current
        .iter()
        .map(
            |c| match by_identity.get_mut(&c.identity()).and_then(Vec::pop) {
                Some(i) => {
                    used[i] = true;
                    let b = &baseline[i];
                    // Older logs escaped brackets in `message.text` (`\[age 1\]`).
                    let same = unescaped(&b.message) == unescaped(&c.message)
                        && b.uri == c.uri
                        && b.line == c.line;
                    let state = if same {
                        BaselineState::Unchanged
                    } else {
                        BaselineState::Updated
                    };
                    (state, Some(i))
                }
                None => (BaselineState::New, None),
            },
        )
        .collect();
    Matching {
        current: states,
        absent: (0..baseline.len()).filter(|&i| !used[i]).collect(),
    }
}

/// The outcome of comparing two logs (`diff`): every result of the head log with its state,
/// and the base results that are gone.
pub struct LogDiff {
    pub head: Vec<(crate::read::Entry, BaselineState)>,
    pub absent: Vec<crate::read::Entry>,
}

/// Compares the results of `head` with those of `base` (all runs of each).
pub fn diff_logs(base: &serde_json::Value, head: &serde_json::Value) -> LogDiff {
    let base_entries = crate::read::entries(base);
    let head_entries = crate::read::entries(head);
    let keys = |es: &[crate::read::Entry]| -> Vec<ResultKey> {
        es.iter()
            .map(|e| crate::read::key_of(&e.tool, &e.result))
            .collect()
    };
    let m = match_results(&keys(&base_entries), &keys(&head_entries));
    let mut base_slots: Vec<Option<crate::read::Entry>> =
        base_entries.into_iter().map(Some).collect();
    LogDiff {
        head: head_entries
            .into_iter()
            .zip(m.current)
            .map(|(e, (state, _))| (e, state))
            .collect(),
        absent: m
            .absent
            .iter()
            .filter_map(|&i| base_slots[i].take())
            .collect(),
    }
}

/// `head` with `baselineState` set on each of its results and the absent results of `base`
/// appended (to the run of the same tool and category, else to the first run), each with
/// `baselineState: absent`.
pub fn annotate(
    base: &serde_json::Value,
    head: &serde_json::Value,
    d: &LogDiff,
) -> serde_json::Value {
    use serde_json::{json, Value};
    let mut out = head.clone();
    for (e, state) in &d.head {
        if let Some(r) = out.pointer_mut(&format!("/runs/{}/results/{}", e.run, e.index)) {
            if let Some(obj) = r.as_object_mut() {
                obj.insert("baselineState".into(), json!(state.as_str()));
            }
        }
    }
    let base_runs = crate::read::runs(base);
    for e in &d.absent {
        let Some(base_run) = base_runs.get(e.run) else {
            continue;
        };
        let Some(mut r) = crate::read::results(base_run).get(e.index).cloned() else {
            continue;
        };
        let target = crate::read::runs(&out)
            .iter()
            .position(|run| {
                crate::read::tool_name(run) == crate::read::tool_name(base_run)
                    && crate::read::category(run) == crate::read::category(base_run)
            })
            .unwrap_or(0);
        let Some(run) = out.pointer_mut(&format!("/runs/{target}")) else {
            continue;
        };
        let rule_id = crate::read::rule_id(base_run, &r).to_string();
        let index = run
            .pointer("/tool/driver/rules")
            .and_then(Value::as_array)
            .and_then(|rules| {
                rules
                    .iter()
                    .position(|x| x.get("id").and_then(Value::as_str) == Some(rule_id.as_str()))
            });
        if let Some(obj) = r.as_object_mut() {
            obj.remove("ruleIndex");
            obj.insert("ruleId".into(), json!(rule_id));
            if let Some(i) = index {
                obj.insert("ruleIndex".into(), json!(i));
            }
            obj.insert("baselineState".into(), json!("absent"));
        }
        if let Some(results) = run.get_mut("results").and_then(Value::as_array_mut) {
            results.push(r);
        } else if let Some(obj) = run.as_object_mut() {
            obj.insert("results".into(), json!([r]));
        }
    }
    out
}

/// A message without backslash escapes (`\[` → `[`).
fn unescaped(m: &str) -> std::borrow::Cow<'_, str> {
    if !m.contains('\\') {
        return std::borrow::Cow::Borrowed(m);
    }
    let mut out = String::with_capacity(m.len());
    let mut chars = m.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(rule: &str, fp: Option<&str>, msg: &str, line: u32) -> ResultKey {
        ResultKey {
            tool: "t".into(),
            rule_id: rule.into(),
            fingerprints: fp
                .map(|f| vec![(STALECHECK_V1.to_string(), f.to_string())])
                .unwrap_or_default(),
            message: msg.into(),
            uri: Some("A.java".into()),
            uri_base_id: None,
            line: Some(line),
        }
    }

    #[test]
    fn states() {
        let base = vec![
            key("r", Some("a:1"), "m", 3),
            key("r", Some("b:1"), "m", 5),
            key("r", Some("c:1"), "m", 7),
            key("q", None, "plain", 9),
        ];
        let cur = vec![
            key("r", Some("a:1"), "m", 3), // unchanged
            key("r", Some("b:1"), "m", 6), // moved: updated
            key("r", Some("d:1"), "m", 7), // new
            key("s", Some("c:1"), "m", 7), // other rule: new
            key("q", None, "plain", 9),    // no fingerprint: by place and message
            key("r", Some("a:1"), "m", 3), // a second one: new
        ];
        let m = match_results(&base, &cur);
        use BaselineState::*;
        assert_eq!(
            m.current,
            vec![
                (Unchanged, Some(0)),
                (Updated, Some(1)),
                (New, None),
                (New, None),
                (Unchanged, Some(3)),
                (New, None)
            ]
        );
        assert_eq!(m.absent, vec![2]);
    }
}
