//! Merging SARIF logs (one per module of a multi-module build) into one log with one run per
//! tool and category: GitHub code scanning rejects a file with several runs of one tool in one
//! category (`automationDetails.id`).
//!
//! Runs of one group are combined: the first run's tool with the rules of the others added,
//! the results of all (`ruleIndex` recomputed, artifact indices shifted), every invocation, the
//! taxonomies, and the base ids. A base id (`%SRCROOT%`) that points at different directories in
//! different runs (each module scanned from its own directory) becomes their common parent, and
//! the relative URIs of each run are prefixed with the way from that parent to the run's own
//! directory; where there is no common parent the run's base id is renamed.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use crate::read;

/// Runs of one tool (name) and category.
type Group<'a> = ((String, Option<String>), Vec<&'a Value>);

/// Merges logs; runs keep the order of their first appearance.
pub fn merge(logs: &[Value]) -> Value {
    let mut groups: Vec<Group<'_>> = Vec::new();
    for log in logs {
        for run in read::runs(log) {
            let key = (
                read::tool_name(run).to_string(),
                read::category(run).map(str::to_string),
            );
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, runs)) => runs.push(run),
                None => groups.push((key, vec![run])),
            }
        }
    }
    let runs: Vec<Value> = groups
        .into_iter()
        .map(|(_, runs)| merge_runs(&runs))
        .collect();
    json!({
        "$schema": crate::SCHEMA_URI,
        "version": crate::SARIF_VERSION,
        "runs": runs,
    })
}

fn array<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

fn merge_runs(runs: &[&Value]) -> Value {
    let mut merged = runs[0].clone();
    if runs.len() == 1 {
        return merged;
    }
    // Rules: the first run's, then those of the others not yet known.
    let mut rules: Vec<Value> = merged
        .pointer("/tool/driver/rules")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut taxonomies: Vec<Value> = array(&merged, "taxonomies").to_vec();
    let mut invocations: Vec<Value> = array(&merged, "invocations").to_vec();
    let mut artifacts: Vec<Value> = array(&merged, "artifacts").to_vec();
    let mut bases: BTreeMap<String, String> = base_ids(runs[0]);
    // Each run's own base URIs, to decide on common parents below.
    let all_bases: Vec<BTreeMap<String, String>> = runs.iter().copied().map(base_ids).collect();
    for (id, uri) in bases.iter_mut() {
        let values: Vec<&str> = all_bases
            .iter()
            .filter_map(|b| b.get(id).map(String::as_str))
            .collect();
        if let Some(parent) = common_parent(&values) {
            *uri = parent;
        }
    }
    let mut results: Vec<Value> = Vec::new();
    for (k, run) in runs.iter().enumerate() {
        let artifact_offset = if k == 0 { 0 } else { artifacts.len() };
        if k > 0 {
            for rule in run
                .pointer("/tool/driver/rules")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let id = rule.get("id").and_then(Value::as_str);
                if !rules
                    .iter()
                    .any(|r| r.get("id").and_then(Value::as_str) == id)
                {
                    rules.push(rule.clone());
                }
            }
            for t in array(run, "taxonomies") {
                let name = t.get("name");
                if !taxonomies.iter().any(|x| x.get("name") == name) {
                    taxonomies.push(t.clone());
                }
            }
            invocations.extend(array(run, "invocations").iter().cloned());
            artifacts.extend(array(run, "artifacts").iter().cloned());
        }
        // How this run's base ids map onto the merged ones.
        let mut rewrite: BTreeMap<String, (String, String)> = BTreeMap::new();
        for (id, uri) in &all_bases[k] {
            match bases.get(id) {
                Some(m) if m == uri => {}
                Some(m) if uri.starts_with(m.as_str()) => {
                    rewrite.insert(id.clone(), (id.clone(), uri[m.len()..].to_string()));
                }
                Some(_) => {
                    let new_id = format!("{id}{k}");
                    bases.insert(new_id.clone(), uri.clone());
                    rewrite.insert(id.clone(), (new_id, String::new()));
                }
                None => {
                    bases.insert(id.clone(), uri.clone());
                }
            }
        }
        for r in array(run, "results") {
            let mut r = r.clone();
            let rule_id = read::rule_id(run, &r).to_string();
            if let Some(obj) = r.as_object_mut() {
                obj.remove("ruleIndex");
                if let Some(i) = rules
                    .iter()
                    .position(|x| x.get("id").and_then(Value::as_str) == Some(rule_id.as_str()))
                {
                    if obj.contains_key("ruleId") || obj.contains_key("rule") {
                        obj.insert("ruleIndex".into(), json!(i));
                    } else {
                        obj.insert("ruleId".into(), json!(rule_id));
                        obj.insert("ruleIndex".into(), json!(i));
                    }
                }
            }
            fix_artifact_locations(&mut r, &rewrite, artifact_offset);
            results.push(r);
        }
    }
    // Relationships point at taxonomies by index: recompute from the names.
    for rule in rules.iter_mut() {
        if let Some(rels) = rule.get_mut("relationships").and_then(Value::as_array_mut) {
            for rel in rels {
                if let Some(tc) = rel.pointer_mut("/target/toolComponent") {
                    let name = tc.get("name").cloned();
                    if let (Some(name), Some(obj)) = (name, tc.as_object_mut()) {
                        obj.remove("index");
                        if let Some(i) =
                            taxonomies.iter().position(|t| t.get("name") == Some(&name))
                        {
                            obj.insert("index".into(), json!(i));
                        }
                    }
                }
            }
        }
    }
    // `read::parse_log` checked that every run is an object with a tool.
    let Some(obj) = merged.as_object_mut() else {
        return merged;
    };
    if let Some(driver) = obj
        .get_mut("tool")
        .and_then(|t| t.get_mut("driver"))
        .and_then(Value::as_object_mut)
    {
        if !rules.is_empty() {
            driver.insert("rules".into(), Value::Array(rules));
        }
    }
    set_array(obj, "taxonomies", taxonomies);
    set_array(obj, "invocations", invocations);
    set_array(obj, "artifacts", artifacts);
    if !bases.is_empty() {
        let m: Map<String, Value> = bases
            .into_iter()
            .map(|(id, uri)| (id, json!({ "uri": uri })))
            .collect();
        obj.insert("originalUriBaseIds".into(), Value::Object(m));
    }
    obj.insert("results".into(), Value::Array(results));
    merged
}

fn set_array(obj: &mut Map<String, Value>, key: &str, v: Vec<Value>) {
    if v.is_empty() {
        obj.remove(key);
    } else {
        obj.insert(key.into(), Value::Array(v));
    }
}

/// `originalUriBaseIds` of a run: id → absolute URI.
fn base_ids(run: &Value) -> BTreeMap<String, String> {
    run.get("originalUriBaseIds")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| Some((k.clone(), v.get("uri")?.as_str()?.to_string())))
                .collect()
        })
        .unwrap_or_default()
}

/// The longest common directory (ending with `/`) of directory URIs, if they share more than
/// the scheme.
fn common_parent(uris: &[&str]) -> Option<String> {
    let first = *uris.first()?;
    let mut len = first.len();
    for u in &uris[1..] {
        len = len.min(
            first
                .bytes()
                .zip(u.bytes())
                .take_while(|(a, b)| a == b)
                .count(),
        );
    }
    let prefix = &first[..len];
    let cut = prefix.rfind('/')? + 1;
    let parent = &first[..cut];
    // `file:///` alone is no common parent worth having.
    (parent.trim_end_matches('/').contains('/') && parent.len() > "file:///".len())
        .then(|| parent.to_string())
}

/// Rewrites every `artifactLocation` inside a result: base ids renamed or URIs prefixed, and
/// artifact indices shifted.
fn fix_artifact_locations(
    v: &mut Value,
    rewrite: &BTreeMap<String, (String, String)>,
    artifact_offset: usize,
) {
    match v {
        Value::Object(obj) => {
            if let Some(Value::Object(al)) = obj.get_mut("artifactLocation") {
                let base = al
                    .get("uriBaseId")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                if let Some((new_id, prefix)) = base.as_deref().and_then(|b| rewrite.get(b)) {
                    al.insert("uriBaseId".into(), json!(new_id));
                    if let Some(uri) = al.get("uri").and_then(Value::as_str) {
                        let uri = format!("{prefix}{uri}");
                        al.insert("uri".into(), json!(uri));
                    }
                }
                if artifact_offset > 0 {
                    if let Some(i) = al.get("index").and_then(Value::as_u64) {
                        al.insert("index".into(), json!(i as usize + artifact_offset));
                    }
                }
            }
            for (_, child) in obj.iter_mut() {
                fix_artifact_locations(child, rewrite, artifact_offset);
            }
        }
        Value::Array(items) => {
            for child in items {
                fix_artifact_locations(child, rewrite, artifact_offset);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(category: Option<&str>, base: &str, rules: &[&str], results: &[(&str, &str)]) -> Value {
        let mut r = json!({
            "tool": {"driver": {"name": "stalecheck", "rules": rules.iter().map(|id| json!({"id": id})).collect::<Vec<_>>()}},
            "invocations": [{"executionSuccessful": true}],
            "originalUriBaseIds": {"%SRCROOT%": {"uri": base}},
            "results": results.iter().map(|(rule, uri)| json!({
                "ruleId": rule,
                "ruleIndex": rules.iter().position(|x| x == rule),
                "message": {"text": "m"},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri, "uriBaseId": "%SRCROOT%"}}}],
            })).collect::<Vec<_>>(),
        });
        if let Some(c) = category {
            r["automationDetails"] = json!({ "id": c });
        }
        r
    }

    fn log(runs: Vec<Value>) -> Value {
        json!({"version": "2.1.0", "runs": runs})
    }

    #[test]
    fn one_run_per_tool_and_category() {
        let a = log(vec![run(
            None,
            "file:///repo/a/",
            &["x", "y"],
            &[("y", "src/A.java")],
        )]);
        let b = log(vec![run(
            None,
            "file:///repo/b/",
            &["y"],
            &[("y", "src/B.java")],
        )]);
        let c = log(vec![run(
            Some("other/"),
            "file:///repo/c/",
            &["y"],
            &[("y", "C.java")],
        )]);
        let m = merge(&[a, b, c]);
        let runs = read::runs(&m);
        assert_eq!(runs.len(), 2);
        let r0 = &runs[0];
        assert_eq!(read::results(r0).len(), 2);
        assert_eq!(r0["invocations"].as_array().unwrap().len(), 2);
        assert_eq!(
            r0["originalUriBaseIds"]["%SRCROOT%"]["uri"],
            "file:///repo/"
        );
        let uris: Vec<&str> = read::results(r0)
            .iter()
            .map(|r| {
                r.pointer("/locations/0/physicalLocation/artifactLocation/uri")
                    .and_then(Value::as_str)
                    .unwrap()
            })
            .collect();
        assert_eq!(uris, vec!["a/src/A.java", "b/src/B.java"]);
        for r in read::results(r0) {
            assert_eq!(
                r["ruleIndex"], 1,
                "rule y is the second of the merged rules"
            );
        }
        assert_eq!(read::category(&runs[1]), Some("other/"));
    }

    #[test]
    fn unrelated_base_directories_are_renamed() {
        let a = log(vec![run(None, "file:///a/", &["y"], &[("y", "A.java")])]);
        let b = log(vec![run(None, "file:///b/", &["y"], &[("y", "B.java")])]);
        let m = merge(&[a, b]);
        let r0 = &read::runs(&m)[0];
        assert_eq!(r0["originalUriBaseIds"]["%SRCROOT%"]["uri"], "file:///a/");
        assert_eq!(r0["originalUriBaseIds"]["%SRCROOT%1"]["uri"], "file:///b/");
        assert_eq!(
            r0.pointer("/results/1/locations/0/physicalLocation/artifactLocation/uriBaseId"),
            Some(&json!("%SRCROOT%1"))
        );
    }
}
