//! Reading SARIF logs back (baselines, `diff`, `merge`): the document is kept as JSON, so that
//! nothing a tool wrote is lost, and the parts matching needs are read out of it.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::baseline::ResultKey;
use crate::{BaselineState, Level, Location, LogicalLocation, SarifResult};

/// Why a SARIF log could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("not JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("not a SARIF log: {0}")]
    Shape(String),
    #[error("SARIF version {0} is not supported (only 2.1.0)")]
    Version(String),
}

/// Parses a SARIF 2.1.0 log, checking the top-level shape (`version`, `runs`).
pub fn parse_log(text: &str) -> Result<Value, ReadError> {
    let v: Value = serde_json::from_str(text)?;
    let Some(obj) = v.as_object() else {
        return Err(ReadError::Shape("the document is not an object".into()));
    };
    match obj.get("version").and_then(Value::as_str) {
        Some(crate::SARIF_VERSION) => {}
        Some(other) => return Err(ReadError::Version(other.to_string())),
        None => return Err(ReadError::Shape("no `version`".into())),
    }
    if !obj.get("runs").is_some_and(Value::is_array) {
        return Err(ReadError::Shape("no `runs` array".into()));
    }
    for (i, run) in runs(&v).iter().enumerate() {
        if run.get("tool").and_then(|t| t.get("driver")).is_none() {
            return Err(ReadError::Shape(format!("run {i} has no `tool.driver`")));
        }
    }
    Ok(v)
}

/// The runs of a log (empty when there are none).
pub fn runs(log: &Value) -> &[Value] {
    log.get("runs")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// The tool name of a run (`tool.driver.name`).
pub fn tool_name(run: &Value) -> &str {
    run.pointer("/tool/driver/name")
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// The category of a run (`automationDetails.id`), if any.
pub fn category(run: &Value) -> Option<&str> {
    run.pointer("/automationDetails/id").and_then(Value::as_str)
}

/// The results of a run.
pub fn results(run: &Value) -> &[Value] {
    run.get("results")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// The rule id of a result: `ruleId`, else `rule.id`, else the id of the rule at `ruleIndex`.
pub fn rule_id<'a>(run: &'a Value, result: &'a Value) -> &'a str {
    if let Some(id) = result
        .get("ruleId")
        .or_else(|| result.pointer("/rule/id"))
        .and_then(Value::as_str)
    {
        return id;
    }
    result
        .get("ruleIndex")
        .and_then(Value::as_u64)
        .and_then(|i| run.pointer(&format!("/tool/driver/rules/{i}/id")))
        .and_then(Value::as_str)
        .unwrap_or("")
}

/// The level of a result (SARIF's default `warning` when absent).
pub fn level(result: &Value) -> Level {
    match result.get("level").and_then(Value::as_str) {
        Some("error") => Level::Error,
        Some("note") => Level::Note,
        Some("none") => Level::None,
        _ => Level::Warning,
    }
}

/// Whether a result is suppressed (a suppression whose status is not `rejected`).
pub fn is_suppressed(result: &Value) -> bool {
    result
        .get("suppressions")
        .and_then(Value::as_array)
        .is_some_and(|s| {
            s.iter()
                .any(|x| x.get("status").and_then(Value::as_str) != Some("rejected"))
        })
}

/// The `baselineState` of a result, if it has one.
pub fn baseline_state(result: &Value) -> Option<BaselineState> {
    result
        .get("baselineState")
        .and_then(Value::as_str)
        .and_then(BaselineState::parse)
}

fn text(v: Option<&Value>) -> String {
    v.and_then(|m| m.get("text"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}

fn location(v: &Value) -> Location {
    let art = v.pointer("/physicalLocation/artifactLocation");
    let logical = v
        .get("logicalLocations")
        .and_then(|l| l.get(0))
        .map(|l| LogicalLocation {
            kind: l
                .get("kind")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            fully_qualified_name: l
                .get("fullyQualifiedName")
                .or_else(|| l.get("name"))
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            decorated_name: l
                .get("decoratedName")
                .and_then(Value::as_str)
                .map(str::to_string),
        });
    Location {
        uri: art
            .and_then(|a| a.get("uri"))
            .and_then(Value::as_str)
            .map(str::to_string),
        uri_base_id: art
            .and_then(|a| a.get("uriBaseId"))
            .and_then(Value::as_str)
            .map(str::to_string),
        start_line: v
            .pointer("/physicalLocation/region/startLine")
            .and_then(Value::as_u64)
            .and_then(|l| u32::try_from(l).ok()),
        logical,
        message: v
            .get("message")
            .and_then(|m| m.get("text"))
            .and_then(Value::as_str)
            .map(str::to_string),
    }
}

/// A result read back into the model, keeping what text reports and matching use (rule,
/// level, message, primary and related locations, fingerprints, rank, properties, baseline
/// state); code flows and suppressions are not read.
pub fn result(run: &Value, r: &Value) -> SarifResult {
    let fingerprints: BTreeMap<String, String> = r
        .get("partialFingerprints")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                .collect()
        })
        .unwrap_or_default();
    SarifResult {
        rule_id: rule_id(run, r).to_string(),
        level: level(r),
        message: text(r.get("message")),
        markdown: r
            .get("message")
            .and_then(|m| m.get("markdown"))
            .and_then(Value::as_str)
            .map(str::to_string),
        primary: r
            .get("locations")
            .and_then(|l| l.get(0))
            .map(location)
            .unwrap_or_default(),
        related: r
            .get("relatedLocations")
            .and_then(Value::as_array)
            .map(|l| l.iter().map(location).collect())
            .unwrap_or_default(),
        code_flows: Vec::new(),
        rank: r.get("rank").and_then(Value::as_f64),
        partial_fingerprints: fingerprints,
        properties: r
            .get("properties")
            .and_then(Value::as_object)
            .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default(),
        baseline_state: baseline_state(r),
        suppressions: Vec::new(),
    }
}

/// The matching key of a model result reported by `tool`.
pub fn key_of(tool: &str, r: &SarifResult) -> ResultKey {
    ResultKey {
        tool: tool.to_string(),
        rule_id: r.rule_id.clone(),
        fingerprints: r
            .partial_fingerprints
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        message: r.message.clone(),
        uri: r.primary.uri.clone(),
        uri_base_id: r.primary.uri_base_id.clone(),
        line: r.primary.start_line,
    }
}

/// One result of a log with where it is.
pub struct Entry {
    pub run: usize,
    pub index: usize,
    pub tool: String,
    pub result: SarifResult,
    pub suppressed: bool,
}

/// Every result of every run of a log, read into the model. Results that were `absent` in the
/// log (kept there as a record of fixed findings) are left out: they are not findings.
pub fn entries(log: &Value) -> Vec<Entry> {
    let mut out = Vec::new();
    for (ri, run) in runs(log).iter().enumerate() {
        let tool = tool_name(run).to_string();
        for (i, r) in results(run).iter().enumerate() {
            if baseline_state(r) == Some(BaselineState::Absent) {
                continue;
            }
            out.push(Entry {
                run: ri,
                index: i,
                tool: tool.clone(),
                result: result(run, r),
                suppressed: is_suppressed(r),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_back_what_the_writer_wrote() {
        let mut fps = BTreeMap::new();
        fps.insert("stalecheck/v1".to_string(), "ab:1".to_string());
        let log = crate::Log::single(crate::Run {
            tool: crate::Tool {
                name: "stalecheck".into(),
                rules: vec![crate::ReportingDescriptor {
                    id: "r".into(),
                    ..Default::default()
                }],
                ..Default::default()
            },
            results: vec![SarifResult {
                rule_id: "r".into(),
                level: Level::Note,
                message: "m [x](1)".into(),
                markdown: None,
                primary: Location {
                    uri: Some("a/B.java".into()),
                    uri_base_id: Some("%SRCROOT%".into()),
                    start_line: Some(4),
                    logical: Some(LogicalLocation::function("a.B.m")),
                    message: None,
                },
                related: vec![Location {
                    uri: Some("a/B.java".into()),
                    start_line: Some(2),
                    message: Some("x".into()),
                    ..Default::default()
                }],
                partial_fingerprints: fps,
                baseline_state: Some(BaselineState::Updated),
                suppressions: vec![crate::Suppression {
                    kind: crate::SuppressionKind::External,
                    justification: Some("ok".into()),
                }],
                ..Default::default()
            }],
            automation_id: Some("cat/".into()),
            ..Default::default()
        });
        let v = parse_log(&log.to_string_pretty()).unwrap();
        let run = &runs(&v)[0];
        assert_eq!(tool_name(run), "stalecheck");
        assert_eq!(category(run), Some("cat/"));
        let es = entries(&v);
        assert_eq!(es.len(), 1);
        assert!(es[0].suppressed);
        let mut back = es[0].result.clone();
        back.suppressions = log.runs[0].results[0].suppressions.clone();
        assert_eq!(back, log.runs[0].results[0]);
    }

    #[test]
    fn rejects_what_is_not_sarif() {
        assert!(matches!(parse_log("{"), Err(ReadError::Json(_))));
        assert!(matches!(parse_log("[]"), Err(ReadError::Shape(_))));
        assert!(matches!(
            parse_log(r#"{"version":"2.0.0","runs":[]}"#),
            Err(ReadError::Version(_))
        ));
        assert!(matches!(
            parse_log(r#"{"version":"2.1.0","runs":[{}]}"#),
            Err(ReadError::Shape(_))
        ));
        let ok = json!({"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x", "rules": [{"id": "R"}]}},
            "results": [{"ruleIndex": 0, "message": {"text": "t"}}]}]});
        let v = parse_log(&ok.to_string()).unwrap();
        assert_eq!(rule_id(&runs(&v)[0], &results(&runs(&v)[0])[0]), "R");
    }
}
