//! GitHub code scanning's upload limits: at most 25,000 results per run, and at most 10 MB for
//! the gzip-compressed file. Beyond them GitHub rejects the upload (or drops results without a
//! word), so the writer cuts first, least important results first, and says so in a
//! notification of the run's invocation.

use std::io::Write as _;

use serde_json::{json, Value};

use crate::read;
use crate::BaselineState;

/// The limits to respect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub max_results_per_run: usize,
    pub max_gzipped_bytes: usize,
}

/// GitHub code scanning's limits.
pub const GITHUB: Limits = Limits {
    max_results_per_run: 25_000,
    max_gzipped_bytes: 10 * 1000 * 1000,
};

/// Id of the notification that reports a cut (`descriptor.id`).
pub const NOTIFICATION_ID: &str = "github-limits";

/// Size in bytes of `text` compressed with gzip (default level).
pub fn gzipped_size(text: &[u8]) -> usize {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    // Writing to memory cannot fail.
    let _ = enc.write_all(text);
    enc.finish().map(|v| v.len()).unwrap_or(usize::MAX)
}

/// How much a result matters, lowest first: suppressed, absent, then by baseline state
/// (unchanged and updated before new), level and rank.
fn importance(r: &Value) -> (u8, u8, u8, i64) {
    let suppressed = u8::from(!read::is_suppressed(r));
    let state = match read::baseline_state(r) {
        Some(BaselineState::Absent) => 0,
        Some(BaselineState::Unchanged) | Some(BaselineState::Updated) => 1,
        Some(BaselineState::New) | None => 2,
    };
    let level = read::level(r) as u8;
    let rank = r.get("rank").and_then(Value::as_f64).unwrap_or(-1.0);
    (suppressed, state, level, (rank * 1000.0) as i64)
}

/// Keeps the `keep` most important results of `run`, in their order; returns what was left
/// out, per rule id.
fn cut_run(run: &mut Value, keep: usize) -> Vec<(String, usize)> {
    let results = read::results(run);
    if results.len() <= keep {
        return Vec::new();
    }
    let mut order: Vec<usize> = (0..results.len()).collect();
    // Most important first; ties keep document order.
    order.sort_by(|&a, &b| {
        importance(&results[b])
            .cmp(&importance(&results[a]))
            .then(a.cmp(&b))
    });
    let mut kept = vec![false; results.len()];
    for &i in &order[..keep] {
        kept[i] = true;
    }
    let mut dropped: std::collections::BTreeMap<String, usize> = Default::default();
    for (i, r) in results.iter().enumerate() {
        if !kept[i] {
            *dropped
                .entry(read::rule_id(run, r).to_string())
                .or_default() += 1;
        }
    }
    if let Some(Value::Array(rs)) = run.get_mut("results") {
        let mut i = 0;
        rs.retain(|_| {
            i += 1;
            kept[i - 1]
        });
    }
    dropped.into_iter().collect()
}

fn notify(run: &mut Value, message: String) {
    let Some(obj) = run.as_object_mut() else {
        return;
    };
    let invocations = obj
        .entry("invocations")
        .or_insert_with(|| json!([{"executionSuccessful": true}]));
    if invocations.as_array().is_some_and(Vec::is_empty) {
        *invocations = json!([{"executionSuccessful": true}]);
    }
    if let Some(inv) = invocations.get_mut(0).and_then(Value::as_object_mut) {
        let notes = inv
            .entry("toolExecutionNotifications")
            .or_insert_with(|| json!([]));
        if let Some(a) = notes.as_array_mut() {
            a.push(json!({
                "level": "warning",
                "message": {"text": message},
                "descriptor": {"id": NOTIFICATION_ID},
            }));
        }
    }
}

fn describe(dropped: &[(String, usize)]) -> String {
    dropped
        .iter()
        .map(|(rule, n)| format!("{rule}: {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Cuts `log` down to `limits` and returns it serialized (pretty-printed, with a final
/// newline), with one notification per cut run. Returns the messages of the notifications.
pub fn enforce(log: &mut Value, limits: Limits) -> (String, Vec<String>) {
    let mut notes = Vec::new();
    let n_runs = read::runs(log).len();
    for ri in 0..n_runs {
        let Some(run) = log.get_mut("runs").and_then(|r| r.get_mut(ri)) else {
            continue;
        };
        let total = read::results(run).len();
        let dropped = cut_run(run, limits.max_results_per_run);
        if !dropped.is_empty() {
            let n: usize = dropped.iter().map(|(_, n)| n).sum();
            let msg = format!(
                "{n} of {total} results were left out to stay within GitHub code scanning's limit of {} results per run (the least severe first); left out: {}",
                limits.max_results_per_run,
                describe(&dropped)
            );
            notify(run, msg.clone());
            notes.push(msg);
        }
    }
    let mut text = to_pretty(log);
    let mut size = gzipped_size(text.as_bytes());
    let mut rounds = 0;
    while size > limits.max_gzipped_bytes && rounds < 20 {
        rounds += 1;
        // Shrink every run's results in proportion, with a margin.
        let ratio = limits.max_gzipped_bytes as f64 / size as f64 * 0.9;
        let mut changed = false;
        for ri in 0..n_runs {
            let Some(run) = log.get_mut("runs").and_then(|r| r.get_mut(ri)) else {
                continue;
            };
            let total = read::results(run).len();
            if total == 0 {
                continue;
            }
            let keep = ((total as f64) * ratio) as usize;
            let dropped = cut_run(run, keep.min(total.saturating_sub(1)));
            if !dropped.is_empty() {
                changed = true;
                let n: usize = dropped.iter().map(|(_, n)| n).sum();
                let msg = format!(
                    "{n} of {total} results were left out to keep the compressed SARIF file under GitHub code scanning's limit of {} bytes (the least severe first); left out: {}",
                    limits.max_gzipped_bytes,
                    describe(&dropped)
                );
                notify(run, msg.clone());
                notes.push(msg);
            }
        }
        if !changed {
            break;
        }
        text = to_pretty(log);
        size = gzipped_size(text.as_bytes());
    }
    (text, notes)
}

/// The log pretty-printed with a final newline.
pub fn to_pretty(log: &Value) -> String {
    let mut s = serde_json::to_string_pretty(log).unwrap_or_default();
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(n: usize) -> Value {
        let results: Vec<Value> = (0..n)
            .map(|i| {
                json!({
                    "ruleId": if i % 2 == 0 { "a" } else { "b" },
                    "level": if i == 3 { "error" } else { "note" },
                    "message": {"text": format!("finding {i} {}", "x".repeat(i % 7))},
                })
            })
            .collect();
        json!({"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "t"}}, "results": results}]})
    }

    #[test]
    fn cuts_results_beyond_the_count_limit_keeping_the_most_severe() {
        let mut v = log(10);
        let (text, notes) = enforce(
            &mut v,
            Limits {
                max_results_per_run: 4,
                max_gzipped_bytes: usize::MAX,
            },
        );
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("6 of 10"), "{}", notes[0]);
        let rs = read::results(&read::runs(&v)[0]);
        assert_eq!(rs.len(), 4);
        assert!(rs.iter().any(|r| r["level"] == "error"));
        let back: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            back.pointer("/runs/0/invocations/0/toolExecutionNotifications/0/descriptor/id"),
            Some(&json!(NOTIFICATION_ID))
        );
    }

    #[test]
    fn cuts_results_beyond_the_size_limit() {
        let mut v = log(2000);
        let full = gzipped_size(to_pretty(&v).as_bytes());
        let limit = full / 2;
        let (text, notes) = enforce(
            &mut v,
            Limits {
                max_results_per_run: usize::MAX,
                max_gzipped_bytes: limit,
            },
        );
        assert!(!notes.is_empty());
        assert!(gzipped_size(text.as_bytes()) <= limit);
        assert!(read::results(&read::runs(&v)[0]).len() < 2000);
        // Nothing is cut when under both limits.
        let mut small = log(3);
        let (_, none) = enforce(&mut small, GITHUB);
        assert!(none.is_empty());
    }
}
