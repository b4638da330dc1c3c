//! Run-time confirmations: the run-time agent's JSON report (`agent/`, `out=FILE`) applied to a
//! SARIF log of stalecheck's findings. A finding whose section (its read to its use, see
//! [`crate::sections`]) the agent saw broken by another thread is confirmed: a result property
//! `stalecheck/confirmed`, rank 100, and a code flow with the two threads of the run. A finding
//! whose section ran under noise without a conflict gets `stalecheck/exercised` (evidence the
//! other way), and the run lists every such section. Pure data: the binary reads and writes.

use serde::Deserialize;
use serde_json::{json, Value};

/// The agent's JSON report (the parts read here).
#[derive(Clone, Debug, Deserialize)]
pub struct AgentReport {
    pub tool: String,
    #[serde(default)]
    pub violations: Vec<Violation>,
    #[serde(default)]
    pub sections: Vec<SectionRun>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Violation {
    pub kind: String,
    pub section: String,
    #[serde(default)]
    pub count: u64,
    pub variable: Value,
    pub owner: Side,
    pub intruder: Intruder,
    #[serde(default)]
    pub finding: Option<FindingRef>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Side {
    pub thread: String,
    pub entry: RunPoint,
    pub end: RunPoint,
    #[serde(default)]
    pub stack: Option<Vec<String>>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct Intruder {
    pub thread: String,
    pub access: String,
    pub location: RunPoint,
    #[serde(default)]
    pub stack: Option<Vec<String>>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct RunPoint {
    pub class: String,
    pub method: String,
    #[serde(default)]
    pub pc: Option<u32>,
    #[serde(default)]
    pub line: Option<u32>,
    #[serde(default)]
    pub file: Option<String>,
}

#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct FindingRef {
    pub rule: String,
    #[serde(default)]
    pub class: Option<String>,
    #[serde(default)]
    pub method: Option<String>,
    #[serde(default)]
    pub descriptor: Option<String>,
    pub file: String,
    #[serde(default)]
    pub line: Option<u32>,
}

#[derive(Clone, Debug, Deserialize)]
pub struct SectionRun {
    pub id: String,
    #[serde(default)]
    pub origin: Option<String>,
    #[serde(default)]
    pub entered: u64,
    #[serde(default)]
    pub noised: u64,
    #[serde(rename = "noisedClean", default)]
    pub noised_clean: u64,
    #[serde(default)]
    pub violations: u64,
    #[serde(default)]
    pub finding: Option<FindingRef>,
}

/// Why an agent report cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfirmError {
    #[error("not JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("not a stalecheck-agent report (tool is `{0}`)")]
    NotAgent(String),
}

pub fn parse_report(text: &str) -> Result<AgentReport, ConfirmError> {
    let r: AgentReport = serde_json::from_str(text)?;
    if r.tool != "stalecheck-agent" {
        return Err(ConfirmError::NotAgent(r.tool));
    }
    Ok(r)
}

/// What applying a report did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub confirmed: usize,
    /// Violations of sections from findings that no result of the log matched.
    pub unmatched: usize,
    /// Sections exercised under noise without a conflict (ids).
    pub exercised: Vec<String>,
}

/// Marks the results of stalecheck's runs in `log` with what the agent saw.
pub fn apply(log: &mut Value, reports: &[AgentReport]) -> Summary {
    let mut summary = Summary::default();
    let exercised: Vec<&SectionRun> = reports
        .iter()
        .flat_map(|r| &r.sections)
        .filter(|s| s.noised_clean > 0 && s.violations == 0)
        .collect();
    summary.exercised = exercised.iter().map(|s| s.id.clone()).collect();
    let mut matched = vec![false; reports.iter().map(|r| r.violations.len()).sum()];
    let Some(runs) = log.get_mut("runs").and_then(Value::as_array_mut) else {
        return summary;
    };
    for run in runs.iter_mut() {
        let tool = run
            .pointer("/tool/driver/name")
            .and_then(Value::as_str)
            .unwrap_or("");
        if tool != "stalecheck" {
            continue;
        }
        if let Some(results) = run.get_mut("results").and_then(Value::as_array_mut) {
            for result in results.iter_mut() {
                let mut confirmed = false;
                for (k, v) in reports.iter().flat_map(|r| &r.violations).enumerate() {
                    let hit = v.finding.as_ref().is_some_and(|f| matches(result, f));
                    if hit && !confirmed {
                        confirm(result, v);
                        confirmed = true;
                    }
                    if hit {
                        matched[k] = true;
                    }
                }
                if confirmed {
                    summary.confirmed += 1;
                    continue;
                }
                if let Some(s) = exercised
                    .iter()
                    .find(|s| s.finding.as_ref().is_some_and(|f| matches(result, f)))
                {
                    props(result).insert(
                        "stalecheck/exercised".into(),
                        json!({"section": s.id, "entered": s.entered, "noised": s.noised}),
                    );
                }
            }
        }
        let list: Vec<Value> = exercised
            .iter()
            .map(|s| json!({"section": s.id, "origin": s.origin, "entered": s.entered, "noised": s.noised}))
            .collect();
        props(run).insert("stalecheck/exercisedSections".into(), Value::Array(list));
    }
    let with_finding = reports
        .iter()
        .flat_map(|r| &r.violations)
        .map(|v| v.finding.is_some());
    summary.unmatched = with_finding
        .zip(&matched)
        .filter(|(f, m)| *f && !**m)
        .count();
    summary
}

fn props(v: &mut Value) -> &mut serde_json::Map<String, Value> {
    let obj = v.as_object_mut().expect("a SARIF object");
    let p = obj
        .entry("properties")
        .or_insert_with(|| Value::Object(Default::default()));
    if !p.is_object() {
        *p = Value::Object(Default::default());
    }
    p.as_object_mut().expect("an object")
}

/// The result is the finding: same rule, and same method (logical location) or same file and
/// line (physical location); where the result has both, both must agree.
fn matches(result: &Value, f: &FindingRef) -> bool {
    if result.get("ruleId").and_then(Value::as_str) != Some(f.rule.as_str()) {
        return false;
    }
    let mut evidence = false;
    if let (Some(logical), Some(class), Some(method)) = (
        result.pointer("/locations/0/logicalLocations/0"),
        &f.class,
        &f.method,
    ) {
        let name = logical.get("fullyQualifiedName").and_then(Value::as_str);
        if name != Some(format!("{class}.{method}").as_str()) {
            return false;
        }
        let decorated = logical.get("decoratedName").and_then(Value::as_str);
        if decorated.is_some() && f.descriptor.is_some() && decorated != f.descriptor.as_deref() {
            return false;
        }
        evidence = true;
    }
    if let Some(loc) = result.pointer("/locations/0/physicalLocation") {
        let uri = loc
            .pointer("/artifactLocation/uri")
            .and_then(Value::as_str)
            .unwrap_or("");
        let line = loc
            .pointer("/region/startLine")
            .and_then(Value::as_u64)
            .map(|l| l as u32);
        if !(uri == f.file || uri.ends_with(&format!("/{}", f.file))) || line != f.line {
            return false;
        }
        evidence = true;
    }
    evidence
}

fn flow_location(p: &RunPoint, text: String) -> Value {
    let mut physical = json!({});
    if let Some(file) = &p.file {
        physical = json!({"artifactLocation": {"uri": file, "uriBaseId": "SRCROOT"}});
        if let Some(line) = p.line {
            physical["region"] = json!({"startLine": line});
        }
    }
    let mut loc = json!({
        "logicalLocations": [{"fullyQualifiedName": format!("{}.{}", p.class, p.method), "kind": "function"}],
        "message": {"text": text},
    });
    if p.file.is_some() {
        loc["physicalLocation"] = physical;
    }
    json!({"location": loc})
}

fn confirm(result: &mut Value, v: &Violation) {
    let var = format!(
        "{}.{}",
        v.variable["class"].as_str().unwrap_or("?"),
        v.variable["field"].as_str().unwrap_or("?")
    );
    let flow = json!({
        "message": {"text": format!(
            "Observed at run time by stalecheck-agent ({} time{}): thread '{}' read {var} and used it; \
             thread '{}' {} it in between",
            v.count,
            if v.count == 1 { "" } else { "s" },
            v.owner.thread,
            v.intruder.thread,
            if v.intruder.access == "write" { "wrote" } else { "read" },
        )},
        "threadFlows": [
            {"id": v.owner.thread, "locations": [
                flow_location(&v.owner.entry, format!("thread '{}' reads {var}", v.owner.thread)),
                flow_location(&v.owner.end, format!("thread '{}' uses the value", v.owner.thread)),
            ]},
            {"id": v.intruder.thread, "locations": [
                flow_location(&v.intruder.location, format!(
                    "thread '{}' {} {var} in between",
                    v.intruder.thread,
                    if v.intruder.access == "write" { "writes" } else { "reads" }
                )),
            ]},
        ],
    });
    let obj = result.as_object_mut().expect("a SARIF result");
    match obj.get_mut("codeFlows").and_then(Value::as_array_mut) {
        Some(flows) => flows.push(flow),
        None => {
            obj.insert("codeFlows".into(), Value::Array(vec![flow]));
        }
    }
    obj.insert("rank".into(), json!(100.0));
    props(result).insert(
        "stalecheck/confirmed".into(),
        json!({
            "by": "stalecheck-agent",
            "kind": v.kind,
            "section": v.section,
            "count": v.count,
            "threads": [v.owner.thread, v.intruder.thread],
            "ownerStack": v.owner.stack,
            "intruderStack": v.intruder.stack,
        }),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(finding_line: u32, clean: bool) -> AgentReport {
        let text = json!({
            "tool": "stalecheck-agent",
            "violations": if clean { json!([]) } else { json!([{
                "kind": "atomicity-violation",
                "section": "stale-value:p.C.m@4-17",
                "count": 3,
                "variable": {"class": "p.C", "field": "f"},
                "owner": {"thread": "t1",
                    "entry": {"class": "p.C", "method": "m", "pc": 4, "line": 10, "file": "p/C.java"},
                    "end": {"class": "p.C", "method": "m", "pc": 17, "line": finding_line, "file": "p/C.java"},
                    "stack": ["p.C.m(C.java:12)"]},
                "intruder": {"thread": "t2", "access": "write",
                    "location": {"class": "p.C", "method": "m", "pc": 17, "line": finding_line, "file": "p/C.java"}},
                "finding": {"rule": "stale-value", "class": "p.C", "method": "m", "descriptor": "()V",
                    "file": "p/C.java", "line": finding_line}
            }]) },
            "sections": [{"id": "stale-value:p.C.m@4-17", "entered": 9, "noised": 2,
                "noisedClean": if clean { 2 } else { 0 }, "violations": if clean { 0 } else { 3 },
                "finding": {"rule": "stale-value", "class": "p.C", "method": "m", "descriptor": "()V",
                    "file": "p/C.java", "line": finding_line}}]
        })
        .to_string();
        parse_report(&text).unwrap()
    }

    fn log() -> Value {
        json!({"version": "2.1.0", "runs": [{
            "tool": {"driver": {"name": "stalecheck"}},
            "results": [{
                "ruleId": "stale-value", "rank": 70.0, "message": {"text": "m"},
                "locations": [{
                    "physicalLocation": {"artifactLocation": {"uri": "src/main/java/p/C.java"},
                        "region": {"startLine": 12}},
                    "logicalLocations": [{"fullyQualifiedName": "p.C.m", "decoratedName": "()V"}]
                }]
            }]
        }]})
    }

    #[test]
    fn a_broken_section_confirms_its_finding() {
        let mut l = log();
        let s = apply(&mut l, &[report(12, false)]);
        assert_eq!(s.confirmed, 1);
        assert_eq!(s.unmatched, 0);
        let r = &l["runs"][0]["results"][0];
        assert_eq!(r["rank"], 100.0);
        assert_eq!(r["properties"]["stalecheck/confirmed"]["count"], 3);
        let flow = &r["codeFlows"][0]["threadFlows"];
        assert_eq!(flow[0]["id"], "t1");
        assert_eq!(flow[1]["id"], "t2");
    }

    #[test]
    fn another_line_or_method_does_not_confirm() {
        let mut l = log();
        let s = apply(&mut l, &[report(13, false)]);
        assert_eq!((s.confirmed, s.unmatched), (0, 1));
        assert_eq!(l["runs"][0]["results"][0]["rank"], 70.0);
        let mut l = log();
        l["runs"][0]["results"][0]["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] =
            json!("p.C.other");
        assert_eq!(apply(&mut l, &[report(12, false)]).confirmed, 0);
    }

    #[test]
    fn a_clean_noised_section_marks_its_finding_exercised() {
        let mut l = log();
        let s = apply(&mut l, &[report(12, true)]);
        assert_eq!(s.confirmed, 0);
        assert_eq!(s.exercised, vec!["stale-value:p.C.m@4-17".to_string()]);
        let r = &l["runs"][0]["results"][0];
        assert_eq!(r["properties"]["stalecheck/exercised"]["noised"], 2);
        assert_eq!(
            l["runs"][0]["properties"]["stalecheck/exercisedSections"][0]["section"],
            "stale-value:p.C.m@4-17"
        );
    }

    #[test]
    fn a_report_of_another_tool_is_refused() {
        assert!(matches!(
            parse_report(r#"{"tool": "other"}"#),
            Err(ConfirmError::NotAgent(_))
        ));
        assert!(parse_report("not json").is_err());
    }
}
