//! Serialization and schema-validation tests for the SARIF writer.
//!
//! Validation runs against the bundled official SARIF 2.1.0 schema; the
//! `validate` feature is enabled for tests by the crate's self
//! dev-dependency.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Value};
use stalecheck_sarif::{
    dir_uri, file_uri, relative_uri, schema_errors, BaselineState, CodeFlow, Invocation, Level,
    Location, Log, LogicalLocation, Notification, Relationship, ReportingDescriptor, Run,
    SarifResult, Suppression, SuppressionKind, Taxon, Taxonomy, ThreadFlow, ThreadFlowStep, Tool,
};

fn method(fqn: &str, descriptor: &str) -> LogicalLocation {
    LogicalLocation {
        decorated_name: Some(descriptor.to_owned()),
        ..LogicalLocation::function(fqn)
    }
}

fn src(path: &str, line: u32) -> Location {
    Location {
        uri: Some(relative_uri(Path::new(path))),
        uri_base_id: Some("SRCROOT".to_owned()),
        start_line: Some(line),
        ..Location::default()
    }
}

fn step(loc: Location, kinds: &[&str], order: u32) -> ThreadFlowStep {
    ThreadFlowStep {
        location: loc,
        kinds: kinds.iter().map(|k| (*k).to_owned()).collect(),
        nesting_level: Some(0),
        execution_order: Some(order),
    }
}

/// A log exercising every part of the model.
fn full_log() -> Log {
    let rules = vec![
        ReportingDescriptor {
            id: "SC0001".into(),
            name: "StaleRead".into(),
            short_description: "Value read under a lock is used after release".into(),
            full_description:
                "A value read while holding a lock is used after the lock is released.".into(),
            help_text: "Re-read the value under the lock.".into(),
            help_markdown: Some("Re-read the value **under** the lock.".into()),
            help_uri: Some("https://example.com/rules/SC0001".into()),
            default_level: Level::Warning,
            disabled_by_default: false,
            tags: vec![
                "concurrency".into(),
                "correctness".into(),
                "concurrency".into(),
            ],
            precision: Some("medium".into()),
            problem_severity: Some("warning".into()),
            relationships: vec![Relationship {
                target_id: "362".into(),
                taxonomy: "CWE".into(),
                kinds: vec!["relevant".into()],
            }],
        },
        ReportingDescriptor {
            id: "SC0002".into(),
            name: "CheckThenAct".into(),
            short_description: "Check-then-act across lock regions".into(),
            default_level: Level::Error,
            disabled_by_default: true,
            ..ReportingDescriptor::default()
        },
    ];

    let mut fingerprints = BTreeMap::new();
    fingerprints.insert("stalecheck/v1".to_owned(), "0123abcd".to_owned());
    let mut properties = BTreeMap::new();
    properties.insert("lock".to_owned(), json!("com.example.Cache.lock"));
    properties.insert("distance".to_owned(), json!(3));

    let read = Location {
        logical: Some(method("com.example.Cache.get", "get(Ljava/lang/String;)I")),
        message: Some("read under lock".into()),
        ..src("com/example/Cache.java", 10)
    };
    let stale_use = Location {
        logical: Some(method("com.example.Cache.get", "get(Ljava/lang/String;)I")),
        ..src("com/example/Cache.java", 14)
    };

    let first = SarifResult {
        rule_id: "SC0002".into(),
        level: Level::Error,
        message: "Value [read here](1) is used after the lock is [released](2).".into(),
        markdown: None,
        primary: stale_use.clone(),
        related: vec![
            read.clone(),
            Location {
                message: Some("lock released".into()),
                ..src("com/example/Cache.java", 12)
            },
        ],
        code_flows: vec![CodeFlow {
            message: Some("interleaving".into()),
            thread_flows: vec![
                ThreadFlow {
                    id: Some("T1".into()),
                    message: Some("reader".into()),
                    steps: vec![
                        step(src("com/example/Cache.java", 9), &["acquire"], 1),
                        step(read.clone(), &["read"], 2),
                        step(src("com/example/Cache.java", 12), &["release"], 3),
                        step(stale_use.clone(), &["use", "use"], 6),
                    ],
                },
                ThreadFlow {
                    id: Some("T2".into()),
                    message: None,
                    steps: vec![
                        step(src("com/example/Cache.java", 20), &["acquire"], 4),
                        step(src("com/example/Cache.java", 21), &["write", "release"], 5),
                    ],
                },
            ],
        }],
        rank: Some(80.0),
        partial_fingerprints: fingerprints,
        properties,
        baseline_state: Some(BaselineState::Updated),
        suppressions: vec![
            Suppression {
                kind: SuppressionKind::External,
                justification: Some("reviewed".into()),
            },
            Suppression {
                kind: SuppressionKind::InSource,
                justification: None,
            },
        ],
    };

    // A result whose rule is not declared, located only logically, with a
    // related location that has nothing at all.
    let second = SarifResult {
        rule_id: "SC9999".into(),
        level: Level::Note,
        message: "Only a logical location.".into(),
        markdown: None,
        primary: Location {
            logical: Some(method("com.example.Gen.run", "run()V")),
            start_line: Some(3), // dropped: no uri
            ..Location::default()
        },
        related: vec![Location::default()],
        ..SarifResult::default()
    };

    // A result with no location at all.
    let third = SarifResult {
        rule_id: "SC0001".into(),
        level: Level::Warning,
        message: "Nowhere in particular.".into(),
        markdown: None,
        ..SarifResult::default()
    };

    let mut base_ids = BTreeMap::new();
    base_ids.insert(
        "SRCROOT".to_owned(),
        dir_uri(Path::new("/work/my project/src")),
    );
    base_ids.insert("CLASSES".to_owned(), "file:///work/classes".to_owned()); // no trailing '/'

    Log::single(Run {
        tool: Tool {
            name: "stalecheck".into(),
            version: "0.1.0".into(),
            information_uri: Some("https://github.com/stalecheck/stalecheck".into()),
            rules,
        },
        results: vec![first, second, third],
        invocation: Some(Invocation {
            execution_successful: true,
            command_line: Some("stalecheck --format sarif app.jar".into()),
            arguments: vec!["--format".into(), "sarif".into(), "app.jar".into()],
            working_directory: Some(dir_uri(Path::new("/work/my project"))),
            notifications: vec![
                Notification {
                    level: Level::Warning,
                    message: "could not parse class".into(),
                    uri: Some(file_uri(Path::new("/work/my project/app.jar"))),
                    descriptor_id: Some("parse-error".into()),
                },
                Notification {
                    level: Level::Note,
                    message: "analysed 12 classes".into(),
                    ..Notification::default()
                },
            ],
            exit_code: Some(1),
        }),
        original_uri_base_ids: base_ids,
        automation_id: Some("stalecheck/ci".into()),
        taxonomies: vec![Taxonomy {
            name: "CWE".into(),
            version: Some("4.14".into()),
            organization: Some("MITRE".into()),
            short_description: Some("Common Weakness Enumeration".into()),
            information_uri: Some("https://cwe.mitre.org/".into()),
            taxa: vec![Taxon {
                id: "362".into(),
                name: "Race Condition".into(),
                short_description: "Concurrent execution ...".into(),
                help_uri: Some("https://cwe.mitre.org/data/definitions/362.html".into()),
            }],
        }],
    })
}

fn assert_valid(log: &Value) {
    let errors = schema_errors(log);
    assert!(
        errors.is_empty(),
        "schema errors:\n{}\nin log:\n{}",
        errors.join("\n"),
        serde_json::to_string_pretty(log).unwrap()
    );
}

#[test]
fn full_log_is_schema_valid() {
    let log = full_log();
    assert_valid(&log.to_json());
    // The streamed output is the same document.
    let streamed: Value = serde_json::from_str(&log.to_string_pretty()).unwrap();
    assert_eq!(streamed, log.to_json());
    assert_valid(&streamed);
}

#[test]
fn empty_logs_are_schema_valid() {
    assert_valid(&Log::default().to_json());
    let run = Run::default();
    let json = Log::single(run).to_json();
    assert_valid(&json);
    // `results` is written even when empty.
    assert_eq!(json["runs"][0]["results"], json!([]));
}

#[test]
fn full_log_has_expected_shape() {
    let v = full_log().to_json();
    assert_eq!(
        v["$schema"],
        "https://json.schemastore.org/sarif-2.1.0.json"
    );
    assert_eq!(v["version"], "2.1.0");
    let run = &v["runs"][0];

    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "stalecheck");
    assert_eq!(driver["version"], "0.1.0");
    assert_eq!(
        driver["informationUri"],
        "https://github.com/stalecheck/stalecheck"
    );
    let rule = &driver["rules"][0];
    assert_eq!(rule["id"], "SC0001");
    assert_eq!(rule["name"], "StaleRead");
    assert_eq!(
        rule["shortDescription"]["text"],
        "Value read under a lock is used after release"
    );
    assert!(rule["fullDescription"]["text"].is_string());
    assert_eq!(rule["help"]["text"], "Re-read the value under the lock.");
    assert_eq!(
        rule["help"]["markdown"],
        "Re-read the value **under** the lock."
    );
    assert_eq!(rule["helpUri"], "https://example.com/rules/SC0001");
    assert_eq!(rule["defaultConfiguration"]["level"], "warning");
    // Enabled by default: SARIF's default, not written.
    assert!(rule["defaultConfiguration"].get("enabled").is_none());
    assert_eq!(
        rule["properties"]["tags"],
        json!(["concurrency", "correctness"])
    );
    assert_eq!(rule["properties"]["precision"], "medium");
    assert_eq!(rule["properties"]["problem.severity"], "warning");
    // Empty fields are omitted; a rule off by default says so.
    let rule2 = &driver["rules"][1];
    assert_eq!(
        rule2,
        &json!({
            "id": "SC0002",
            "name": "CheckThenAct",
            "shortDescription": {"text": "Check-then-act across lock regions"},
            "defaultConfiguration": {"enabled": false, "level": "error"}
        })
    );

    let r = &run["results"][0];
    assert_eq!(r["ruleId"], "SC0002");
    assert_eq!(r["ruleIndex"], 1);
    assert_eq!(r["level"], "error");
    assert_eq!(
        r["message"]["text"],
        "Value [read here](1) is used after the lock is [released](2)."
    );
    assert_eq!(
        r["locations"],
        json!([{
            "physicalLocation": {
                "artifactLocation": {"uri": "com/example/Cache.java", "uriBaseId": "SRCROOT"},
                "region": {"startLine": 14}
            },
            "logicalLocations": [{
                "kind": "function",
                "fullyQualifiedName": "com.example.Cache.get",
                "decoratedName": "get(Ljava/lang/String;)I"
            }]
        }])
    );
    let related = r["relatedLocations"].as_array().unwrap();
    assert_eq!(related.len(), 2);
    assert_eq!(related[0]["id"], 1);
    assert_eq!(related[0]["message"]["text"], "read under lock");
    assert_eq!(related[0]["physicalLocation"]["region"]["startLine"], 10);
    assert_eq!(related[1]["id"], 2);
    assert_eq!(related[1]["message"]["text"], "lock released");
    let flow = &r["codeFlows"][0];
    assert_eq!(flow["message"]["text"], "interleaving");
    let tfs = flow["threadFlows"].as_array().unwrap();
    assert_eq!(tfs.len(), 2);
    assert_eq!(tfs[0]["id"], "T1");
    assert_eq!(tfs[0]["message"]["text"], "reader");
    assert_eq!(tfs[0]["locations"].as_array().unwrap().len(), 4);
    assert_eq!(tfs[0]["locations"][0]["kinds"], json!(["acquire"]));
    assert_eq!(tfs[0]["locations"][3]["kinds"], json!(["use"]));
    assert_eq!(tfs[0]["locations"][3]["executionOrder"], 6);
    assert_eq!(tfs[0]["locations"][3]["nestingLevel"], 0);
    assert_eq!(
        tfs[0]["locations"][1]["location"]["message"]["text"],
        "read under lock"
    );
    assert!(tfs[1].get("message").is_none());
    assert_eq!(tfs[1]["locations"][1]["kinds"], json!(["write", "release"]));
    assert_eq!(r["rank"], 80.0);
    assert_eq!(
        r["partialFingerprints"],
        json!({"stalecheck/v1": "0123abcd"})
    );
    assert_eq!(
        r["properties"],
        json!({"distance": 3, "lock": "com.example.Cache.lock"})
    );

    // Undeclared rule: no ruleIndex. No uri: only logical locations.
    let r2 = &run["results"][1];
    assert!(r2.get("ruleIndex").is_none());
    assert_eq!(
        r2["locations"],
        json!([{"logicalLocations": [{
            "kind": "function",
            "fullyQualifiedName": "com.example.Gen.run",
            "decoratedName": "run()V"
        }]}])
    );
    assert_eq!(r2["relatedLocations"], json!([{"id": 1}]));
    assert!(r2.get("codeFlows").is_none());
    assert!(r2.get("partialFingerprints").is_none());
    assert!(r2.get("properties").is_none());
    assert!(r2.get("rank").is_none());

    let r3 = &run["results"][2];
    assert_eq!(r3["ruleIndex"], 0);
    assert_eq!(r3["locations"], json!([{}]));

    let inv = &run["invocations"][0];
    assert_eq!(inv["executionSuccessful"], true);
    assert_eq!(inv["commandLine"], "stalecheck --format sarif app.jar");
    assert_eq!(inv["arguments"], json!(["--format", "sarif", "app.jar"]));
    assert_eq!(inv["workingDirectory"]["uri"], "file:///work/my%20project/");
    assert_eq!(inv["exitCode"], 1);
    let notes = inv["toolExecutionNotifications"].as_array().unwrap();
    assert_eq!(
        notes[0],
        json!({
            "level": "warning",
            "message": {"text": "could not parse class"},
            "locations": [{"physicalLocation": {"artifactLocation": {
                "uri": "file:///work/my%20project/app.jar"
            }}}],
            "descriptor": {"id": "parse-error"}
        })
    );
    assert_eq!(
        notes[1],
        json!({"level": "note", "message": {"text": "analysed 12 classes"}})
    );

    assert_eq!(
        run["originalUriBaseIds"],
        json!({
            "CLASSES": {"uri": "file:///work/classes/"},
            "SRCROOT": {"uri": "file:///work/my%20project/src/"}
        })
    );
    assert_eq!(run["automationDetails"], json!({"id": "stalecheck/ci"}));

    assert_eq!(
        rule["relationships"],
        json!([{"target": {"id": "362", "toolComponent": {"name": "CWE", "index": 0}}, "kinds": ["relevant"]}])
    );
    assert_eq!(run["taxonomies"][0]["name"], "CWE");
    assert_eq!(run["taxonomies"][0]["taxa"][0]["id"], "362");
    assert_eq!(r["baselineState"], "updated");
    assert_eq!(
        r["suppressions"],
        json!([
            {"kind": "external", "status": "accepted", "justification": "reviewed"},
            {"kind": "inSource", "status": "accepted"}
        ])
    );
    assert!(r2.get("suppressions").is_none() && r2.get("baselineState").is_none());
}

#[test]
fn degenerate_values_are_sanitized_into_valid_sarif() {
    let log = Log::single(Run {
        tool: Tool {
            name: "t".into(),
            ..Tool::default()
        },
        results: vec![SarifResult {
            rule_id: "R".into(),
            message: "m".into(),
            markdown: None,
            primary: Location {
                uri: Some("A.java".into()),
                start_line: Some(0), // unknown line: no region
                ..Location::default()
            },
            code_flows: vec![
                CodeFlow::default(), // no thread flows: dropped
                CodeFlow {
                    message: None,
                    thread_flows: vec![ThreadFlow::default()], // empty: dropped
                },
            ],
            rank: Some(250.0),
            ..SarifResult::default()
        }],
        ..Run::default()
    })
    .to_json();
    assert_valid(&log);
    let r = &log["runs"][0]["results"][0];
    assert_eq!(
        r["locations"][0],
        json!({"physicalLocation": {"artifactLocation": {"uri": "A.java"}}})
    );
    assert!(r.get("codeFlows").is_none());
    assert_eq!(r["rank"], 100.0);

    let nan = Log::single(Run {
        results: vec![SarifResult {
            rank: Some(f64::NAN),
            ..SarifResult::default()
        }],
        ..Run::default()
    })
    .to_json();
    assert!(nan["runs"][0]["results"][0].get("rank").is_none());
}

#[test]
fn broken_logs_are_rejected() {
    let good = full_log().to_json();
    assert_valid(&good);

    let mut bogus_level = good.clone();
    bogus_level["runs"][0]["results"][0]["level"] = json!("bogus");
    let errors = schema_errors(&bogus_level);
    assert!(!errors.is_empty());
    assert!(
        errors
            .iter()
            .any(|e| e.starts_with("/runs/0/results/0/level")),
        "{errors:?}"
    );

    let mut no_message = good.clone();
    no_message["runs"][0]["results"][1]
        .as_object_mut()
        .unwrap()
        .remove("message");
    assert!(!schema_errors(&no_message).is_empty());

    let mut physical_without_artifact = good.clone();
    physical_without_artifact["runs"][0]["results"][0]["locations"][0]["physicalLocation"] =
        json!({"region": {"startLine": 1}});
    assert!(!schema_errors(&physical_without_artifact).is_empty());

    let mut bad_version = good.clone();
    bad_version["version"] = json!("2.0.0");
    assert!(!schema_errors(&bad_version).is_empty());

    let mut unknown_property = good.clone();
    unknown_property["runs"][0]["bogus"] = json!(1);
    assert!(!schema_errors(&unknown_property).is_empty());

    // Formats are checked too: `helpUri` must be an absolute URI.
    let mut relative_help_uri = good;
    relative_help_uri["runs"][0]["tool"]["driver"]["rules"][0]["helpUri"] = json!("not a uri");
    assert!(!schema_errors(&relative_help_uri).is_empty());
}

#[test]
fn output_is_deterministic() {
    let mut first = Vec::new();
    full_log().write_pretty(&mut first).unwrap();
    let mut second = Vec::new();
    full_log().write_pretty(&mut second).unwrap();
    assert_eq!(first, second);
    assert!(first.ends_with(b"}\n"));
    assert_eq!(
        serde_json::to_vec(&full_log().to_json()).unwrap(),
        serde_json::to_vec(&full_log().to_json()).unwrap()
    );
    // Top-level keys come first, in a fixed order.
    let text = String::from_utf8(first).unwrap();
    assert!(text.starts_with("{\n  \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n  \"version\": \"2.1.0\",\n  \"runs\": ["), "{text}");
}

#[cfg(unix)]
#[test]
fn file_uri_percent_encodes_spaces_and_hash() {
    assert_eq!(
        file_uri(Path::new("/home/me/My Project/src/C#Thing.java")),
        "file:///home/me/My%20Project/src/C%23Thing.java"
    );
    assert_eq!(
        dir_uri(Path::new("/home/me/My Project")),
        "file:///home/me/My%20Project/"
    );
    assert_eq!(
        relative_uri(Path::new("pkg/a b/Foo#1.java")),
        "pkg/a%20b/Foo%231.java"
    );
    // Encoded URIs satisfy the schema's `uri` / `uri-reference` formats.
    let log = Log::single(Run {
        tool: Tool {
            name: "t".into(),
            information_uri: Some(file_uri(Path::new("/a b/#c?d[e]"))),
            ..Tool::default()
        },
        results: vec![SarifResult {
            rule_id: "R".into(),
            message: "m".into(),
            markdown: None,
            primary: Location {
                uri: Some(relative_uri(Path::new("x y/[z]#?.java"))),
                ..Location::default()
            },
            ..SarifResult::default()
        }],
        ..Run::default()
    });
    assert_valid(&log.to_json());
}
