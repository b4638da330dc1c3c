//! `scan --baseline FILE`: every result gets a `baselineState` by matching it with the results
//! of an earlier SARIF file of ours (see `stalecheck_sarif::baseline`); the baseline's results
//! that nothing matched come back as `absent` (fixed since).

use std::path::Path;

use serde_json::Value;
use stalecheck_sarif::{self as sarif, baseline, read, BaselineState};

/// The tool name our SARIF files carry; results of other tools in a baseline are ignored.
pub const TOOL: &str = "stalecheck";

/// Reads a baseline file.
#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    #[error("cannot read the baseline {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("the baseline {path} is not a usable SARIF file: {source}")]
    Sarif {
        path: String,
        source: read::ReadError,
    },
}

pub fn load(path: &Path) -> Result<Value, BaselineError> {
    let text = std::fs::read_to_string(path).map_err(|source| BaselineError::Io {
        path: path.display().to_string(),
        source,
    })?;
    read::parse_log(&text).map_err(|source| BaselineError::Sarif {
        path: path.display().to_string(),
        source,
    })
}

/// Sets the baseline state of every result and returns the baseline's absent results (with
/// state `absent`). Only the baseline's results of the rules that ran (`rules`) take part: a
/// scan with fewer rules does not report the others' findings as fixed.
pub fn apply(
    results: &mut [sarif::SarifResult],
    base: &Value,
    rules: &[&str],
) -> Vec<sarif::SarifResult> {
    let base_entries: Vec<read::Entry> = read::entries(base)
        .into_iter()
        .filter(|e| e.tool == TOOL && rules.contains(&e.result.rule_id.as_str()))
        .collect();
    let base_keys: Vec<baseline::ResultKey> = base_entries
        .iter()
        .map(|e| read::key_of(&e.tool, &e.result))
        .collect();
    let keys: Vec<baseline::ResultKey> = results.iter().map(|r| read::key_of(TOOL, r)).collect();
    let m = baseline::match_results(&base_keys, &keys);
    for (r, (state, _)) in results.iter_mut().zip(&m.current) {
        r.baseline_state = Some(*state);
    }
    m.absent
        .iter()
        .map(|&i| {
            let mut r = base_entries[i].result.clone();
            r.baseline_state = Some(BaselineState::Absent);
            r
        })
        .collect()
}
