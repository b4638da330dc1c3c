//! End-to-end tests of reporting for adoption (issue 5): complete SARIF for GitHub code
//! scanning, baselines and `baselineState`, gating exit codes, `diff`, `merge`,
//! `stalecheck.toml`, suppressions (configured and in the bytecode), and the JSON schema.
//!
//! Every Java input is compiled by the real javac; matching across edits is tested by editing
//! the source, recompiling and scanning again.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::Run;
use serde_json::Value;

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// Runs stalecheck in `dir` (for `stalecheck.toml` lookup and relative paths).
fn run_in(dir: &Path, args: &[&str]) -> Run {
    let bin = env!("CARGO_BIN_EXE_stalecheck");
    let output = Command::new(bin)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {bin}: {e}"));
    Run {
        cmdline: format!("(in {}) stalecheck {}", dir.display(), args.join(" ")),
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn read_json(path: &Path) -> Value {
    let text =
        fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

fn assert_sarif_valid(log: &Value, what: &str) {
    let errors = stalecheck_sarif::schema_errors(log);
    assert!(
        errors.is_empty(),
        "{what}: SARIF schema errors:\n{}",
        errors.join("\n")
    );
}

/// Validates a `--format json` document (or a diff document) against the documented schema
/// in docs/.
fn assert_json_schema(doc: &Value, schema_file: &str) {
    let path = common::repo_root().join("docs").join(schema_file);
    let schema = read_json(&path);
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap_or_else(|e| panic!("{} does not compile: {e}", path.display()));
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "the document does not follow {schema_file}:\n{}\n{}",
        errors.join("\n"),
        serde_json::to_string_pretty(doc).unwrap()
    );
}

fn results(log: &Value) -> Vec<&Value> {
    log["runs"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["results"].as_array().unwrap().iter())
        .collect()
}

fn states(log: &Value) -> Vec<(String, String, String)> {
    let mut v: Vec<(String, String, String)> = results(log)
        .iter()
        .map(|r| {
            (
                r["baselineState"].as_str().unwrap_or("-").to_string(),
                r["ruleId"].as_str().unwrap().to_string(),
                r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"]
                    .as_str()
                    .unwrap_or("")
                    .to_string(),
            )
        })
        .collect();
    v.sort();
    v
}

fn count_state(log: &Value, state: &str) -> usize {
    results(log)
        .iter()
        .filter(|r| r["baselineState"] == state)
        .count()
}

// ---------------------------------------------------------------------------------------------
// The project that evolves: `adopt.Counter` with stale values in `inc`, `add` and a lambda,
// and a package-private `adopt.Helper` with one in `bump`.
// ---------------------------------------------------------------------------------------------

const COUNTER_V1: &str = r#"package adopt;

public class Counter {
    private final Object lock = new Object();
    private int count;
    private int total;

    public void inc() {
        int tmp;
        synchronized (lock) {
            tmp = count;
        }
        synchronized (lock) {
            count = tmp + 1; // STALE-INC
        }
    }

    public void add(int n) {
        int tmp;
        synchronized (lock) {
            tmp = total;
        }
        synchronized (lock) {
            total = tmp + n; // STALE-ADD
        }
    }

    public Runnable doubler() {
        return () -> {
            int t;
            synchronized (lock) {
                t = count;
            }
            synchronized (lock) {
                count = t * 2; // STALE-LAMBDA
            }
        };
    }
}

class Helper {
    private final Object lock = new Object();
    private int hits;

    void bump() {
        int h;
        synchronized (lock) {
            h = hits;
        }
        synchronized (lock) {
            hits = h + 1; // STALE-HELPER
        }
    }
}
"#;

/// v1 with lines shifted (a comment block and blank lines on top, fields spread out).
fn shifted() -> String {
    let mut s = String::from("// Copyright notice\n// added later\n\n\n");
    s.push_str(&COUNTER_V1.replace("    private int total;\n", "\n\n    private int total;\n\n"));
    s
}

/// v1 with `add` moved before `inc` and unrelated code added: a new field, a method with a
/// lambda of its own before `doubler` (which renumbers javac's lambda bodies), an anonymous class.
fn reordered() -> String {
    let inc_start = COUNTER_V1.find("    public void inc()").unwrap();
    let add_start = COUNTER_V1.find("    public void add(").unwrap();
    let doubler_start = COUNTER_V1.find("    public Runnable doubler()").unwrap();
    let inc = &COUNTER_V1[inc_start..add_start];
    let add = &COUNTER_V1[add_start..doubler_start];
    let unrelated = r#"    private String name = "c";

    public Runnable hello() {
        return () -> System.out.println(name);
    }

    public Object anon() {
        return new Object() {
            @Override
            public String toString() {
                return name;
            }
        };
    }

"#;
    format!(
        "{}{}{}{}{}",
        &COUNTER_V1[..inc_start],
        add,
        unrelated,
        inc,
        &COUNTER_V1[doubler_start..]
    )
}

/// v1 with `inc` renamed to `increment`.
fn renamed() -> String {
    COUNTER_V1.replace("public void inc()", "public void increment()")
}

/// v1 with `Helper` moved to a file of its own, and both files under another source root.
fn moved() -> (String, String) {
    let split = COUNTER_V1.find("class Helper").unwrap();
    (
        COUNTER_V1[..split].to_string(),
        format!(
            "package adopt;\n\n// moved here from Counter.java\n{}",
            &COUNTER_V1[split..]
        ),
    )
}

/// Writes the sources under `<dir>/<root>/adopt/` and compiles them into `<dir>/classes`.
fn build(dir: &Path, root: &str, files: &[(&str, &str)]) -> PathBuf {
    let _ = fs::remove_dir_all(dir);
    fs::create_dir_all(dir).unwrap();
    let src = dir.join(root);
    let out = dir.join("classes");
    let files: Vec<(String, &str)> = files
        .iter()
        .map(|(name, text)| (format!("adopt/{name}"), *text))
        .collect();
    let refs: Vec<(&str, &str)> = files.iter().map(|(n, t)| (n.as_str(), *t)).collect();
    common::compile_sources(&src, &out, "17", &refs);
    out
}

/// The value rules, whose findings these tests read.
const VALUE_RULES: [&str; 2] = ["--rules", common::VALUE_RULES];

/// Scans `<dir>/classes` from `dir` with the source root, writing SARIF to `out`, with the
/// value rules unless `extra` names the rules.
fn scan_sarif(dir: &Path, root: &str, out: &Path, extra: &[&str]) -> (Run, Value) {
    let out_s = out.to_str().unwrap();
    let mut args = vec![
        "scan",
        "classes",
        "--source-root",
        root,
        "--format",
        "sarif",
        "--output",
        out_s,
        "--no-progress",
    ];
    if !extra.contains(&"--rules") {
        args.extend_from_slice(&VALUE_RULES);
    }
    args.extend_from_slice(extra);
    let run = run_in(dir, &args);
    let log = read_json(out);
    assert_sarif_valid(&log, &run.cmdline);
    (run, log)
}

/// The baseline of v1, written by `stalecheck baseline`, in a directory of its own.
fn baseline_v1(work: &Path) -> PathBuf {
    let dir = work.join("v1");
    build(&dir, "src", &[("Counter.java", COUNTER_V1)]);
    let baseline = work.join("baseline.sarif");
    let run = run_in(
        &dir,
        &[
            "baseline",
            "classes",
            "--source-root",
            "src",
            "--output",
            baseline.to_str().unwrap(),
            VALUE_RULES[0],
            VALUE_RULES[1],
        ],
    );
    run.expect_code(0, "baseline exits 0 even with findings");
    let log = read_json(&baseline);
    assert_sarif_valid(&log, "baseline");
    let stale: Vec<String> = results(&log)
        .iter()
        .filter(|r| r["ruleId"] == "stale-value")
        .map(|r| {
            r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    for m in [
        "adopt.Counter.inc",
        "adopt.Counter.add",
        "adopt.Helper.bump",
    ] {
        assert!(
            stale.iter().any(|s| s == m),
            "v1 must have a stale-value finding in {m}: {stale:?}\n{}",
            run.describe()
        );
    }
    assert!(
        stale
            .iter()
            .any(|s| s.starts_with("adopt.Counter.lambda$doubler$")),
        "v1 must have a stale-value finding in the lambda of doubler: {stale:?}"
    );
    baseline
}

// ---------------------------------------------------------------------------------------------
// Baselines: matching survives edits; a rename is one new + one absent; gating
// ---------------------------------------------------------------------------------------------

#[test]
fn baseline_matching_survives_line_shifts_reordering_unrelated_code_and_moves() {
    let work = common::scratch_dir("report-baseline-survives");
    let baseline = baseline_v1(&work);
    let b = baseline.to_str().unwrap();
    let n_baseline = results(&read_json(&baseline)).len();

    // Unchanged code: every result unchanged.
    let same = work.join("same");
    build(&same, "src", &[("Counter.java", COUNTER_V1)]);
    let (run, log) = scan_sarif(&same, "src", &same.join("out.sarif"), &["--baseline", b]);
    run.expect_code(0, "no new finding against the baseline");
    assert_eq!(
        count_state(&log, "unchanged"),
        n_baseline,
        "{:?}",
        states(&log)
    );
    assert_eq!(results(&log).len(), n_baseline);

    type Case<'a> = (&'a str, Vec<(&'a str, String)>, &'a str);
    let cases: Vec<Case<'_>> = vec![
        ("shifted", vec![("Counter.java", shifted())], "src"),
        ("reordered", vec![("Counter.java", reordered())], "src"),
        (
            "moved",
            vec![("Counter.java", moved().0), ("Helper.java", moved().1)],
            "src/main/java",
        ),
    ];
    for (name, files, root) in cases {
        let dir = work.join(name);
        let refs: Vec<(&str, &str)> = files.iter().map(|(n, t)| (*n, t.as_str())).collect();
        build(&dir, root, &refs);
        // Without the baseline the findings fail the run ...
        let (plain, _) = scan_sarif(&dir, root, &dir.join("plain.sarif"), &[]);
        plain.expect_code(1, "stale-value findings at warning level");
        // ... with it, nothing is new and nothing is gone.
        let (run, log) = scan_sarif(&dir, root, &dir.join("out.sarif"), &["--baseline", b]);
        assert_eq!(
            count_state(&log, "new"),
            0,
            "{name}: no finding may be new: {:?}\n{}",
            states(&log),
            run.describe()
        );
        assert_eq!(count_state(&log, "absent"), 0, "{name}: {:?}", states(&log));
        assert_eq!(
            count_state(&log, "unchanged") + count_state(&log, "updated"),
            n_baseline,
            "{name}: {:?}",
            states(&log)
        );
        run.expect_code(0, "only new findings fail the run");
        if name != "reordered" {
            // The lines or the file moved: matched, but updated.
            assert!(
                count_state(&log, "updated") > 0,
                "{name}: {:?}",
                states(&log)
            );
        }
    }
}

#[test]
fn a_renamed_method_gives_one_new_and_one_absent_and_fails_the_run() {
    let work = common::scratch_dir("report-baseline-rename");
    let baseline = baseline_v1(&work);
    let b = baseline.to_str().unwrap();
    let dir = work.join("renamed");
    build(&dir, "src", &[("Counter.java", &renamed())]);
    let (run, log) = scan_sarif(&dir, "src", &dir.join("out.sarif"), &["--baseline", b]);
    let new: Vec<_> = states(&log)
        .into_iter()
        .filter(|(s, _, _)| s == "new")
        .collect();
    let absent: Vec<_> = states(&log)
        .into_iter()
        .filter(|(s, _, _)| s == "absent")
        .collect();
    let stale_new: Vec<_> = new.iter().filter(|(_, r, _)| r == "stale-value").collect();
    let stale_absent: Vec<_> = absent
        .iter()
        .filter(|(_, r, _)| r == "stale-value")
        .collect();
    assert_eq!(stale_new.len(), 1, "{:?}", states(&log));
    assert_eq!(stale_new[0].2, "adopt.Counter.increment");
    assert_eq!(stale_absent.len(), 1, "{:?}", states(&log));
    assert_eq!(stale_absent[0].2, "adopt.Counter.inc");
    // Every rule: as many new as absent, all in that method.
    assert_eq!(new.len(), absent.len(), "{:?}", states(&log));
    assert!(new.iter().all(|(_, _, m)| m == "adopt.Counter.increment"));
    run.expect_code(1, "a new warning fails the run");

    // Gating: --fail-on error lets new warnings pass; --fail-on none never fails.
    let (run, _) = scan_sarif(
        &dir,
        "src",
        &dir.join("e.sarif"),
        &["--baseline", b, "--fail-on", "error"],
    );
    run.expect_code(0, "the new finding is a warning, below --fail-on error");
    let (run, _) = scan_sarif(
        &dir,
        "src",
        &dir.join("n.sarif"),
        &["--baseline", b, "--fail-on", "none"],
    );
    run.expect_code(0, "--fail-on none");

    // Text: the state of each finding, the fixed one, and the summary line.
    let text = run_in(
        &dir,
        &[
            "scan",
            "classes",
            "--source-root",
            "src",
            "--baseline",
            b,
            VALUE_RULES[0],
            VALUE_RULES[1],
        ],
    );
    text.expect_code(1, "text output, same gating");
    assert!(
        text.stdout.contains("[new] Stale value"),
        "{}",
        text.describe()
    );
    assert!(text.stdout.contains("[unchanged]") || text.stdout.contains("[updated]"));
    assert!(
        text.stdout
            .contains("[absent] stale-value in adopt.Counter.inc"),
        "{}",
        text.describe()
    );
    let summary = text.stdout.lines().last().unwrap();
    assert!(
        summary.contains("stale-value: 1 new, 3 unchanged, 1 fixed")
            && summary.contains("baseline: "),
        "{summary}"
    );

    // A scan of fewer rules does not call the other rules' baseline findings fixed.
    let only = run_in(
        &dir,
        &["scan", "classes", "--baseline", b, "--rules", "stale-value"],
    );
    let summary = only.stdout.lines().last().unwrap();
    assert!(
        summary.contains("(stale-value: 1 new, 3 unchanged, 1 fixed)")
            && summary.contains("baseline: 1 new, 3 unchanged, 1 fixed"),
        "{summary}"
    );

    // JSON: states, the absent list, counts; valid against the documented schema.
    let json = run_in(
        &dir,
        &[
            "scan",
            "classes",
            "--baseline",
            b,
            "--format",
            "json",
            VALUE_RULES[0],
            VALUE_RULES[1],
        ],
    );
    json.expect_code(1, "json output, same gating");
    let doc: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_json_schema(&doc, "stalecheck-json-1.schema.json");
    let stale_new = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "stale-value" && f["baseline_state"] == "new")
        .count();
    assert_eq!(stale_new, 1);
    assert_eq!(doc["summary"]["fixed"], absent.len());
    assert!(doc["absent"]
        .as_array()
        .unwrap()
        .iter()
        .any(|a| a["location"] == "adopt.Counter.inc"));
}

#[test]
fn baseline_errors_are_usage_errors() {
    let work = common::scratch_dir("report-baseline-errors");
    build(&work, "src", &[("Counter.java", COUNTER_V1)]);
    let run = run_in(&work, &["scan", "classes", "--baseline", "missing.sarif"]);
    run.expect_code(2, "a missing baseline file");
    assert!(run.stderr.contains("missing.sarif"), "{}", run.describe());
    fs::write(work.join("bad.sarif"), "{\"version\": \"2.1.0\"}").unwrap();
    let run = run_in(&work, &["scan", "classes", "--baseline", "bad.sarif"]);
    run.expect_code(2, "a baseline that is not SARIF");
    assert!(run.stderr.contains("bad.sarif"), "{}", run.describe());
    let run = run_in(&work, &["baseline", "classes"]);
    run.expect_code(2, "baseline without --output");
    assert!(run.stderr.contains("--output"), "{}", run.describe());
}

// ---------------------------------------------------------------------------------------------
// diff
// ---------------------------------------------------------------------------------------------

#[test]
fn diff_reports_new_fixed_and_unchanged_and_gates() {
    let work = common::scratch_dir("report-diff");
    let base = baseline_v1(&work);
    let dir = work.join("head");
    build(&dir, "src", &[("Counter.java", &renamed())]);
    let head = dir.join("head.sarif");
    scan_sarif(&dir, "src", &head, &[]);
    let (b, h) = (base.to_str().unwrap(), head.to_str().unwrap());

    let text = run_in(&work, &["diff", b, h]);
    text.expect_code(1, "a new warning");
    assert!(text.stdout.contains("── new ("), "{}", text.describe());
    assert!(text
        .stdout
        .contains("[new] warning stale-value in adopt.Counter.increment"));
    assert!(text
        .stdout
        .contains("[fixed] warning stale-value in adopt.Counter.inc "));
    assert!(text
        .stdout
        .contains("[unchanged] warning stale-value in adopt.Counter.add"));
    // Every rule's finding in the renamed method is new; the warnings among them fail.
    let failing = text
        .stdout
        .lines()
        .filter(|l| l.starts_with("  [new] warning") || l.starts_with("  [new] error"))
        .count();
    assert!(failing >= 1);
    assert!(
        text.stdout
            .contains(&format!("{failing} new finding(s) fail the check")),
        "{}",
        text.stdout
    );
    assert!(
        !text.stdout.contains("](1)"),
        "links are SARIF-only: {}",
        text.stdout
    );

    run_in(&work, &["diff", b, h, "--fail-on", "error"]).expect_code(0, "warnings pass");
    run_in(&work, &["diff", b, b]).expect_code(0, "no change, nothing new");

    let out = work.join("diff.sarif");
    run_in(
        &work,
        &[
            "diff",
            b,
            h,
            "--format",
            "sarif",
            "-o",
            out.to_str().unwrap(),
        ],
    )
    .expect_code(1, "sarif diff, same gating");
    let log = read_json(&out);
    assert_sarif_valid(&log, "diff sarif");
    assert_eq!(log["runs"].as_array().unwrap().len(), 1);
    assert!(count_state(&log, "new") >= 1);
    assert!(count_state(&log, "absent") >= 1);
    assert!(count_state(&log, "unchanged") >= 3);
    assert!(results(&log).iter().all(|r| r["baselineState"].is_string()));

    let json = run_in(&work, &["diff", b, h, "--format", "json"]);
    json.expect_code(1, "json diff");
    let doc: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_json_schema(&doc, "stalecheck-diff-json-1.schema.json");
    assert_eq!(doc["summary"]["failing"], failing);
    assert!(doc["new"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["location"] == "adopt.Counter.increment" && f["rule"] == "stale-value"));

    let run = run_in(&work, &["diff", b, "nope.sarif"]);
    run.expect_code(2, "unreadable head");
}

// ---------------------------------------------------------------------------------------------
// merge
// ---------------------------------------------------------------------------------------------

#[test]
fn merge_makes_one_run_per_tool_and_category() {
    let work = common::scratch_dir("report-merge");
    let a = work.join("module-a");
    let b = work.join("module-b");
    build(&a, "src", &[("Counter.java", COUNTER_V1)]);
    build(&b, "src", &[("Counter.java", &renamed())]);
    let (_, la) = scan_sarif(&a, "src", &a.join("a.sarif"), &[]);
    let (_, lb) = scan_sarif(&b, "src", &b.join("b.sarif"), &[]);
    let (_, lc) = scan_sarif(&b, "src", &b.join("c.sarif"), &["--category", "other"]);
    let merged = work.join("all.sarif");
    let run = run_in(
        &work,
        &[
            "merge",
            a.join("a.sarif").to_str().unwrap(),
            b.join("b.sarif").to_str().unwrap(),
            b.join("c.sarif").to_str().unwrap(),
            "--output",
            merged.to_str().unwrap(),
        ],
    );
    run.expect_code(0, "merge");
    let log = read_json(&merged);
    assert_sarif_valid(&log, "merged");
    let runs = log["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2, "one run without category, one for `other/`");
    assert_eq!(
        runs[0]["results"].as_array().unwrap().len(),
        results(&la).len() + results(&lb).len()
    );
    assert_eq!(runs[1]["automationDetails"]["id"], "other/");
    assert_eq!(
        runs[1]["results"].as_array().unwrap().len(),
        results(&lc).len()
    );
    // Both modules' files stay addressable from the common parent directory.
    let uris: Vec<&str> = runs[0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert!(
        uris.contains(&"module-a/src/adopt/Counter.java"),
        "{uris:?}"
    );
    assert!(
        uris.contains(&"module-b/src/adopt/Counter.java"),
        "{uris:?}"
    );
    assert_eq!(runs[0]["invocations"].as_array().unwrap().len(), 2);
}

// ---------------------------------------------------------------------------------------------
// SARIF for GitHub code scanning
// ---------------------------------------------------------------------------------------------

#[test]
fn sarif_has_what_github_code_scanning_uses() {
    let work = common::scratch_dir("report-sarif-github");
    build(&work, "src", &[("Counter.java", COUNTER_V1)]);
    let out = work.join("out.sarif");
    let (run, log) = scan_sarif(&work, "src", &out, &["--category", "stalecheck"]);
    run.expect_code(1, "findings");
    let run0 = &log["runs"][0];
    assert_eq!(run0["automationDetails"]["id"], "stalecheck/");
    assert!(run0["originalUriBaseIds"]["%SRCROOT%"]["uri"]
        .as_str()
        .unwrap()
        .starts_with("file:///"));
    let inv = &run0["invocations"][0];
    assert_eq!(inv["executionSuccessful"], true);
    assert!(inv["commandLine"].as_str().unwrap().contains("--category"));
    assert!(inv["workingDirectory"]["uri"]
        .as_str()
        .unwrap()
        .ends_with('/'));

    // Rules: help from the rule docs (no helpUri: nothing to link to that exists), tags, CWE
    // relationships to the taxonomy.
    let rules = run0["tool"]["driver"]["rules"].as_array().unwrap();
    let taxonomy = &run0["taxonomies"][0];
    assert_eq!(taxonomy["name"], "CWE");
    for rule in rules {
        let id = rule["id"].as_str().unwrap();
        let doc = run_in(&work, &["rules", id]).stdout;
        assert_eq!(
            rule["help"]["markdown"].as_str().unwrap().trim(),
            doc.trim()
        );
        assert!(rule["help"]["text"].as_str().unwrap().len() > 200);
        assert!(rule.get("helpUri").is_none(), "{rule}");
        let tags: Vec<&str> = rule["properties"]["tags"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap())
            .collect();
        assert!(
            tags.contains(&"concurrency") && tags.contains(&"atomicity"),
            "{tags:?}"
        );
        assert!(tags.contains(&"external/cwe/cwe-362"), "{tags:?}");
        assert!(rule["properties"]["precision"].is_string());
        assert!(rule["properties"]["problem.severity"].is_string());
        for rel in rule["relationships"].as_array().unwrap() {
            let target = rel["target"]["id"].as_str().unwrap();
            assert!(tags.contains(&format!("external/cwe/cwe-{target}").as_str()));
            let idx = rel["target"]["toolComponent"]["index"].as_u64().unwrap() as usize;
            assert_eq!(log["runs"][0]["taxonomies"][idx]["name"], "CWE");
            assert!(taxonomy["taxa"]
                .as_array()
                .unwrap()
                .iter()
                .any(|t| t["id"] == target));
        }
    }
    let stale_rule = rules.iter().find(|r| r["id"] == "stale-value").unwrap();
    assert!(stale_rule["properties"]["tags"]
        .as_array()
        .unwrap()
        .contains(&Value::from("external/cwe/cwe-367")));

    // Results: fingerprints, line hash of the real line, links to related locations, flows.
    let source = fs::read_to_string(work.join("src/adopt/Counter.java")).unwrap();
    let hashes = stalecheck_sarif::fingerprint::line_hashes(&source);
    let stale: Vec<&Value> = results(&log)
        .into_iter()
        .filter(|r| r["ruleId"] == "stale-value")
        .collect();
    assert_eq!(stale.len(), 4);
    let mut fps = Vec::new();
    for r in &stale {
        let fp = r["partialFingerprints"]["stalecheck/v1"].as_str().unwrap();
        fps.push(fp.to_string());
        let line = r["locations"][0]["physicalLocation"]["region"]["startLine"]
            .as_u64()
            .unwrap() as usize;
        assert_eq!(
            r["partialFingerprints"]["primaryLocationLineHash"],
            hashes[line - 1].as_str()
        );
        let msg = r["message"]["text"].as_str().unwrap();
        let related = r["relatedLocations"].as_array().unwrap();
        assert!(!related.is_empty());
        for rel in related {
            let id = rel["id"].as_u64().unwrap();
            assert!(msg.contains(&format!("]({id})")), "{msg} must link to {id}");
        }
        let flows = r["codeFlows"][0]["threadFlows"].as_array().unwrap();
        assert_eq!(flows.len(), 1, "stale-value knows one thread");
        let kinds: Vec<&str> = flows[0]["locations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["kinds"][0].as_str().unwrap())
            .collect();
        assert_eq!(kinds, vec!["read", "release", "use"]);
        assert!(r["rank"].as_f64().unwrap() > 0.0, "rank from the age");
    }
    fps.sort();
    fps.dedup();
    assert_eq!(fps.len(), 4, "fingerprints are distinct");
}

#[test]
fn method_consistency_has_a_thread_flow_per_thread() {
    let work = common::scratch_dir("report-threadflows");
    let src = r#"package mc;

public class Account {
    private int balance;
    private int count;

    public synchronized void deposit(int n) {
        balance += n;
    }

    public synchronized void record() {
        count++;
    }

    public void depositAndRecord(int n) {
        deposit(n);
        record();
    }

    public synchronized int snapshot() {
        return balance + count;
    }

    public static void main(String[] args) throws Exception {
        Account a = new Account();
        Thread t1 = new Thread(() -> a.depositAndRecord(1));
        Thread t2 = new Thread(() -> System.out.println(a.snapshot()));
        t1.start();
        t2.start();
    }
}
"#;
    let out = work.join("classes");
    common::compile_sources(&work.join("src"), &out, "17", &[("mc/Account.java", src)]);
    let sarif = work.join("out.sarif");
    let run = run_in(
        &work,
        &[
            "scan",
            "classes",
            "--rules",
            "method-consistency",
            "--format",
            "sarif",
            "-o",
            sarif.to_str().unwrap(),
        ],
    );
    let log = read_json(&sarif);
    assert_sarif_valid(&log, "method-consistency");
    let mc: Vec<&Value> = results(&log)
        .into_iter()
        .filter(|r| r["ruleId"] == "method-consistency")
        .collect();
    assert!(
        !mc.is_empty(),
        "expected a method-consistency finding\n{}",
        run.describe()
    );
    for r in mc {
        let flows = r["codeFlows"][0]["threadFlows"].as_array().unwrap();
        assert_eq!(
            flows.len(),
            2,
            "the method's thread and a concurrent one: {r}"
        );
        assert_ne!(flows[0]["id"], flows[1]["id"]);
        // Two sections of the method's own class, a started thread writing: 60 + 10.
        assert_eq!(r["rank"], 70.0, "rank from the evidence: {r}");
    }
}

// ---------------------------------------------------------------------------------------------
// stalecheck.toml and suppressions
// ---------------------------------------------------------------------------------------------

/// Annotations as users declare them: class retention (RuntimeInvisibleAnnotations).
const SUPPRESS_ANNOTATION: &str = r#"package adopt;

import java.lang.annotation.*;

@Retention(RetentionPolicy.CLASS)
public @interface SuppressStaleCheck {
    String[] value() default {};
    String justification() default "";
}
"#;

const FB_ANNOTATION: &str = r#"package edu.umd.cs.findbugs.annotations;

import java.lang.annotation.*;

@Retention(RetentionPolicy.CLASS)
public @interface SuppressFBWarnings {
    String[] value() default {};
    String justification() default "";
}
"#;

const ANNOTATED: &str = r#"package adopt;

import edu.umd.cs.findbugs.annotations.SuppressFBWarnings;

public class Annotated {
    private final Object lock = new Object();
    private int a;
    private int b;
    @SuppressStaleCheck(justification = "statistics only")
    private int c;
    private int d;

    @SuppressStaleCheck(value = "stale-value", justification = "a retry loop re-checks it")
    public void method() {
        int t;
        synchronized (lock) { t = a; }
        synchronized (lock) { a = t + 1; } // SUPPRESSED-METHOD
    }

    @SuppressFBWarnings(value = {"IS2_INCONSISTENT_SYNC", "stale-value"}, justification = "reviewed")
    public void spotbugs() {
        int t;
        synchronized (lock) { t = b; }
        synchronized (lock) { b = t + 1; } // SUPPRESSED-FB
    }

    public void field() {
        int t;
        synchronized (lock) { t = c; }
        synchronized (lock) { c = t + 1; } // SUPPRESSED-FIELD
    }

    @SuppressFBWarnings("IS2_INCONSISTENT_SYNC")
    public void otherTool() {
        int t;
        synchronized (lock) { t = d; }
        synchronized (lock) { d = t + 1; } // REPORTED: the annotation names only SpotBugs' pattern
    }
}

@SuppressStaleCheck
class WholeClass {
    private final Object lock = new Object();
    private int x;

    void m() {
        int t;
        synchronized (lock) { t = x; }
        synchronized (lock) { x = t + 1; } // SUPPRESSED-CLASS
    }
}
"#;

fn suppression_project(dir: &Path) {
    let _ = fs::remove_dir_all(dir);
    common::compile_sources(
        &dir.join("src"),
        &dir.join("classes"),
        "17",
        &[
            ("adopt/SuppressStaleCheck.java", SUPPRESS_ANNOTATION),
            (
                "edu/umd/cs/findbugs/annotations/SuppressFBWarnings.java",
                FB_ANNOTATION,
            ),
            ("adopt/Annotated.java", ANNOTATED),
            ("adopt/Counter.java", COUNTER_V1),
        ],
    );
}

fn stale_in(log: &Value, method: &str) -> Vec<Value> {
    results(log)
        .into_iter()
        .filter(|r| {
            r["ruleId"] == "stale-value"
                && r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == method
        })
        .cloned()
        .collect()
}

#[test]
fn in_bytecode_suppressions_are_kept_marked_and_never_fail() {
    let work = common::scratch_dir("report-suppress-bytecode");
    suppression_project(&work);
    // Only Annotated and WholeClass: Counter's findings would fail the run.
    let classes = work.join("classes");
    let out = work.join("out.sarif");
    let run = run_in(
        &work,
        &[
            "scan",
            classes.join("adopt/Annotated.class").to_str().unwrap(),
            classes.join("adopt/WholeClass.class").to_str().unwrap(),
            "--rules",
            "stale-value",
            "--format",
            "sarif",
            "-o",
            out.to_str().unwrap(),
        ],
    );
    let log = read_json(&out);
    assert_sarif_valid(&log, "suppressions");
    for (method, justification) in [
        (
            "adopt.Annotated.method",
            "a retry loop re-checks it (@SuppressStaleCheck)",
        ),
        ("adopt.Annotated.spotbugs", "reviewed (@SuppressFBWarnings)"),
        (
            "adopt.Annotated.field",
            "statistics only (@SuppressStaleCheck)",
        ),
        ("adopt.WholeClass.m", "@SuppressStaleCheck"),
    ] {
        let rs = stale_in(&log, method);
        assert_eq!(rs.len(), 1, "{method}: {}", run.describe());
        let s = &rs[0]["suppressions"][0];
        assert_eq!(s["kind"], "inSource", "{method}");
        assert_eq!(s["status"], "accepted");
        assert_eq!(s["justification"], justification, "{method}");
    }
    let other = stale_in(&log, "adopt.Annotated.otherTool");
    assert_eq!(other.len(), 1);
    assert!(
        other[0].get("suppressions").is_none(),
        "SpotBugs-only values do not suppress ours"
    );
    run.expect_code(1, "the one unsuppressed warning fails the run");

    // Text leaves suppressed findings out and counts them.
    let text = run_in(
        &work,
        &[
            "scan",
            classes.join("adopt/Annotated.class").to_str().unwrap(),
            classes.join("adopt/WholeClass.class").to_str().unwrap(),
            "--rules",
            "stale-value",
        ],
    );
    assert_eq!(
        text.stdout.matches("Stale value").count(),
        1,
        "{}",
        text.stdout
    );
    assert!(text.stdout.contains("otherTool"));
    let summary = text.stdout.lines().last().unwrap();
    assert!(
        summary.contains("stale-value: 1, 4 suppressed"),
        "{summary}"
    );

    // Without the unsuppressed one the run passes.
    let run = run_in(
        &work,
        &[
            "scan",
            classes.join("adopt/WholeClass.class").to_str().unwrap(),
            "--rules",
            "stale-value",
        ],
    );
    run.expect_code(0, "suppressed findings never fail the run");
}

#[test]
fn config_file_sets_rules_levels_exclusions_and_suppressions() {
    let work = common::scratch_dir("report-config");
    suppression_project(&work);
    let toml = r#"# stalecheck.toml
source-roots = ["src"]
exclude = ["adopt.WholeClass"]

[rules]
block-local-atomicity = "off"
stale-value = "error"

[[suppress]]
rule = "stale-value"
class = "adopt.Counter"
method = "add"
reason = "the total is advisory"

[[suppress]]
rule = "stale-value"
class = "adopt.*"
field = "d"
reason = "d is a statistic"

[[suppress]]
rule = "stale-value"
class = "adopt.Nowhere"
reason = "matches nothing"
"#;
    fs::write(work.join("stalecheck.toml"), toml).unwrap();
    // Found from a subdirectory, upwards.
    let sub = work.join("sub").join("dir");
    fs::create_dir_all(&sub).unwrap();
    let out = work.join("out.sarif");
    let classes = work.join("classes");
    let run = run_in(
        &sub,
        &[
            "scan",
            classes.to_str().unwrap(),
            "--format",
            "sarif",
            "-o",
            out.to_str().unwrap(),
        ],
    );
    let log = read_json(&out);
    assert_sarif_valid(&log, "config");
    let all = results(&log);
    assert!(
        all.iter().all(|r| r["ruleId"] != "block-local-atomicity"),
        "rule off"
    );
    assert!(
        all.iter()
            .all(|r| r["ruleId"] != "stale-value" || r["level"] == "error"),
        "level"
    );
    assert!(
        stale_in(&log, "adopt.WholeClass.m").is_empty(),
        "excluded class"
    );
    let add = stale_in(&log, "adopt.Counter.add");
    assert_eq!(add[0]["suppressions"][0]["kind"], "external");
    assert!(add[0]["suppressions"][0]["justification"]
        .as_str()
        .unwrap()
        .starts_with("the total is advisory ("));
    let d = stale_in(&log, "adopt.Annotated.otherTool");
    assert_eq!(d[0]["suppressions"][0]["kind"], "external", "field d");
    assert!(stale_in(&log, "adopt.Counter.inc")[0]
        .get("suppressions")
        .is_none());
    // The unmatched entry: a notification (and a line on stderr).
    let notes = log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
        .as_array()
        .unwrap();
    let unused: Vec<&Value> = notes
        .iter()
        .filter(|n| n["descriptor"]["id"] == "unused-suppression")
        .collect();
    assert_eq!(unused.len(), 1, "{notes:?}");
    assert!(unused[0]["message"]["text"]
        .as_str()
        .unwrap()
        .contains("adopt.Nowhere"));
    assert!(run.stderr.contains("adopt.Nowhere"), "{}", run.describe());
    // The source roots of the file are used: the line hash needs the source.
    assert!(add[0]["partialFingerprints"]["primaryLocationLineHash"].is_string());
    run.expect_code(1, "Counter.inc is an error now");
    let run = run_in(
        &sub,
        &["scan", classes.to_str().unwrap(), "--fail-on", "none"],
    );
    run.expect_code(0, "--fail-on none");

    // --config wins over the file found upwards.
    fs::write(work.join("other.toml"), "[rules]\nstale-value = \"off\"\nblock-local-atomicity = \"off\"\nmethod-consistency = \"off\"\nhigh-level-data-race = \"off\"\ncausal-stale-value = \"off\"\n").unwrap();
    let run = run_in(
        &sub,
        &[
            "scan",
            classes.to_str().unwrap(),
            "--config",
            work.join("other.toml").to_str().unwrap(),
        ],
    );
    run.expect_code(0, "every rule off");
    assert!(
        run.stdout.contains("stalecheck: 0 finding(s)"),
        "{}",
        run.describe()
    );
}

#[test]
fn malformed_config_is_an_error_with_line_and_column() {
    let work = common::scratch_dir("report-config-bad");
    build(&work, "src", &[("Counter.java", COUNTER_V1)]);
    for (text, at, what) in [
        (
            "[rules]\nstale-value = \"loud\"\n",
            "stalecheck.toml:2:15",
            "unknown level `loud`",
        ),
        ("open-world = yes\n", "stalecheck.toml:1:14", ""),
        (
            "[[suppress]]\nrule = \"stale-value\"\nclass = \"adopt.Counter\"\n",
            "stalecheck.toml:1:1",
            "reason",
        ),
        (
            "[rules]\nstale-valu = \"error\"\n",
            "stalecheck.toml:2:1",
            "unknown rule id",
        ),
    ] {
        fs::write(work.join("stalecheck.toml"), text).unwrap();
        let run = run_in(&work, &["scan", "classes"]);
        run.expect_code(2, "malformed stalecheck.toml");
        assert!(
            run.stderr.contains(at) && run.stderr.contains(what),
            "{text:?}: expected {at} and {what:?}\n{}",
            run.describe()
        );
    }
    let run = run_in(&work, &["scan", "classes", "--config", "absent.toml"]);
    run.expect_code(2, "a missing --config file");
    assert!(run.stderr.contains("absent.toml"), "{}", run.describe());
}

// ---------------------------------------------------------------------------------------------
// JSON schema
// ---------------------------------------------------------------------------------------------

#[test]
fn json_output_follows_the_documented_schema() {
    let work = common::scratch_dir("report-json-schema");
    suppression_project(&work);
    fs::write(
        work.join("stalecheck.toml"),
        "[[suppress]]\nrule = \"*\"\nclass = \"adopt.Counter\"\nreason = \"legacy\"\n",
    )
    .unwrap();
    let run = run_in(
        &work,
        &[
            "scan",
            "classes",
            "--format",
            "json",
            "--source-root",
            "src",
            VALUE_RULES[0],
            VALUE_RULES[1],
        ],
    );
    run.expect_code(1, "findings");
    let doc: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_json_schema(&doc, "stalecheck-json-1.schema.json");
    assert!(doc["summary"]["suppressed"].as_u64().unwrap() >= 4);
    assert!(doc.get("absent").is_none(), "no baseline, no absent list");
    let f = &doc["findings"][0];
    assert!(f["fingerprint"].as_str().unwrap().contains(':'));
    // A broken document is rejected by the schema (the test can fail).
    let mut broken = doc.clone();
    broken["findings"][0]["rule"] = Value::from(3);
    let schema = read_json(&common::repo_root().join("docs/stalecheck-json-1.schema.json"));
    assert!(!jsonschema::is_valid(&schema, &broken));
}

// ---------------------------------------------------------------------------------------------
// `scan --console gradle|maven`: compiler-style finding lines for build logs
// ---------------------------------------------------------------------------------------------

/// The finding lines of `--console` output (every line but the hints and the summary).
fn console_findings(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .filter(|l| !l.starts_with("    hint: ") && !l.starts_with("info:     hint: "))
        .filter(|l| !l.starts_with("stalecheck: "))
        .collect()
}

/// The SARIF results without what depends on the command line.
fn results_json(log: &Value) -> Vec<Value> {
    results(log).into_iter().cloned().collect()
}

#[test]
fn console_lines_without_a_baseline_in_both_styles() {
    let work = common::scratch_dir("report-console");
    let dir = work.join("v1");
    build(&dir, "src", &[("Counter.java", COUNTER_V1)]);
    let source = dir.join("src/adopt/Counter.java");
    let abs = source.canonicalize().unwrap_or(source.clone());
    let (plain, plain_log) = scan_sarif(&dir, "src", &dir.join("plain.sarif"), &[]);
    plain.expect_code(1, "v1 has warnings");
    let n = results(&plain_log)
        .iter()
        .filter(|r| r["suppressions"].as_array().is_none_or(|s| s.is_empty()))
        .count();
    assert!(n >= 4, "v1 has at least four findings: {n}");
    // Plain text in `message.text` (no Markdown escapes), Markdown in `message.markdown`.
    for r in results(&plain_log) {
        let text = r["message"]["text"].as_str().unwrap();
        let markdown = r["message"]["markdown"].as_str().unwrap();
        assert!(!text.contains('\\'), "message.text has escapes: {text}");
        if r["ruleId"] == "stale-value" {
            assert!(text.contains("[age 1]"), "{text}");
            assert!(markdown.contains("\\[age 1\\]"), "{markdown}");
        }
        assert!(text.contains("](1)"), "links to related locations: {text}");
    }
    let inc_line = common::line_of(COUNTER_V1, "STALE-INC");

    // Gradle: `path:line: warning: message [rule]`, then the hint.
    let (run, log) = scan_sarif(
        &dir,
        "src",
        &dir.join("gradle.sarif"),
        &["--console", "gradle"],
    );
    run.expect_code(1, "--console does not change the exit code");
    assert_eq!(
        results_json(&log),
        results_json(&plain_log),
        "--console must not change the report\n{}",
        run.describe()
    );
    let lines: Vec<&str> = run.stdout.lines().collect();
    let findings = console_findings(&run.stdout);
    assert_eq!(
        findings.len(),
        n,
        "one line per finding\n{}",
        run.describe()
    );
    let expected = format!(
        "{}:{inc_line}: warning: Stale value: field `Counter.count`",
        abs.display()
    );
    assert!(
        findings.iter().any(|l| l.starts_with(&expected)),
        "expected a line starting with {expected:?}\n{}",
        run.describe()
    );
    for (i, l) in lines.iter().enumerate() {
        if findings.contains(l) {
            assert!(
                l.ends_with("[stale-value]") || l.ends_with("[causal-stale-value]"),
                "{l}"
            );
            assert!(
                lines
                    .get(i + 1)
                    .is_some_and(|h| h.starts_with("    hint: ") && h.len() > 20),
                "each finding line is followed by its hint\n{}",
                run.describe()
            );
        }
    }
    assert!(
        !run.stdout.contains("\\["),
        "no Markdown escapes\n{}",
        run.describe()
    );
    assert_eq!(
        lines.last().copied(),
        Some(
            format!(
                "stalecheck: {n} finding(s) ({n} warning(s), 0 note(s)); report: {}",
                dir.join("gradle.sarif").display()
            )
            .as_str()
        ),
        "the summary line\n{}",
        run.describe()
    );
    assert!(
        !run.stderr.contains("report written to"),
        "with --console the summary is on stdout only\n{}",
        run.describe()
    );

    // Maven: `warning: path:[line,col] message [rule]`, then `info:     hint: ...`.
    let (run, _) = scan_sarif(
        &dir,
        "src",
        &dir.join("maven.sarif"),
        &["--console", "maven"],
    );
    run.expect_code(1, "--console does not change the exit code");
    let col = COUNTER_V1
        .lines()
        .nth(inc_line as usize - 1)
        .map(|l| l.len() - l.trim_start().len() + 1)
        .unwrap();
    let expected = format!(
        "warning: {}:[{inc_line},{col}] Stale value: field `Counter.count`",
        abs.display()
    );
    let findings = console_findings(&run.stdout);
    assert_eq!(findings.len(), n, "{}", run.describe());
    assert!(
        findings.iter().any(|l| l.starts_with(&expected)),
        "expected a line starting with {expected:?}\n{}",
        run.describe()
    );
    assert_eq!(
        run.stdout
            .lines()
            .filter(|l| l.starts_with("info:     hint: "))
            .count(),
        n,
        "{}",
        run.describe()
    );

    // Without a source root: the package path the class file names, never a made-up one.
    let run = run_in(
        &dir,
        &["scan", "classes", "--no-progress", "--console", "gradle"],
    );
    run.expect_code(1, "findings");
    assert!(
        run.stdout
            .lines()
            .any(|l| l.starts_with(&format!("adopt/Counter.java:{inc_line}: warning: "))),
        "{}",
        run.describe()
    );
    assert!(
        !run.stdout.contains("──"),
        "without --output only the console lines are printed\n{}",
        run.describe()
    );
    // --format without --output would mix two outputs on stdout.
    run_in(
        &dir,
        &["scan", "classes", "--format", "sarif", "--console", "maven"],
    )
    .expect_code(2, "--format needs --output with --console");
}

#[test]
fn console_lines_with_a_baseline_show_only_new_findings() {
    let work = common::scratch_dir("report-console-baseline");
    let baseline = baseline_v1(&work);
    let b = baseline.to_str().unwrap();
    let n_baseline = results(&read_json(&baseline)).len();

    // Unchanged code: nothing printed but the summary, exit 0.
    let same = work.join("same");
    build(&same, "src", &[("Counter.java", COUNTER_V1)]);
    let (run, _) = scan_sarif(
        &same,
        "src",
        &same.join("out.sarif"),
        &["--baseline", b, "--console", "maven"],
    );
    run.expect_code(0, "nothing new");
    assert_eq!(
        run.stdout,
        format!(
            "stalecheck: {n_baseline} finding(s): 0 new, {n_baseline} baselined (unchanged), 0 absent (fixed since the baseline); {n_baseline} warning(s), 0 note(s); report: {}\n",
            same.join("out.sarif").display()
        ),
        "{}",
        run.describe()
    );

    // A renamed method: its findings are new (printed), the old ones absent.
    let dir = work.join("renamed");
    let text = renamed();
    build(&dir, "src", &[("Counter.java", &text)]);
    let (run, log) = scan_sarif(
        &dir,
        "src",
        &dir.join("out.sarif"),
        &["--baseline", b, "--console", "gradle"],
    );
    run.expect_code(1, "a new warning");
    let new = count_state(&log, "new");
    let absent = count_state(&log, "absent");
    assert!(new >= 1 && absent >= 1, "{:?}", states(&log));
    let findings = console_findings(&run.stdout);
    assert_eq!(findings.len(), new, "only new findings\n{}", run.describe());
    let line = common::line_of(&text, "STALE-INC");
    assert!(
        findings
            .iter()
            .all(|l| l.contains(&format!("Counter.java:{line}: warning: "))),
        "only the findings of the renamed method\n{}",
        run.describe()
    );
    let total = results(&log).len() - absent;
    assert_eq!(
        run.stdout.lines().last().unwrap_or(""),
        format!(
            "stalecheck: {total} finding(s): {new} new, {} baselined (unchanged), {absent} absent (fixed since the baseline); {total} warning(s), 0 note(s); report: {}",
            total - new,
            dir.join("out.sarif").display()
        ),
        "{}",
        run.describe()
    );
}

// ---------------------------------------------------------------------------------------------
// Locations that lead somewhere: every physical location names a file that exists
// ---------------------------------------------------------------------------------------------

const TWO_ROOTS_COUNTER: &str = r#"package a;

import b.Store;

public class Counter {
    private final Store store = new Store();

    public void inc() {
        int v = store.get();
        store.set(v + 1);
    }

    public static void main(String[] args) {
        Counter c = new Counter();
        new Thread(c::inc).start();
        new Thread(c::inc).start();
        new Thread(new c.Other()::bump).start();
    }
}
"#;

const TWO_ROOTS_STORE: &str = r#"package b;

public class Store {
    private int value;

    public synchronized int get() {
        return value;
    }

    public synchronized void set(int v) {
        value = v;
    }
}
"#;

const TWO_ROOTS_OTHER: &str = r#"package c;

public class Other {
    private final Object lock = new Object();
    private int hits;

    public void bump() {
        int h;
        synchronized (lock) {
            h = hits;
        }
        synchronized (lock) {
            hits = h + 1;
        }
    }
}
"#;

/// Every `artifactLocation` object in `v`, with its JSON path.
fn artifact_locations<'a>(v: &'a Value, path: String, out: &mut Vec<(String, &'a Value)>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                if k == "artifactLocation" {
                    out.push((format!("{path}/{k}"), x));
                }
                artifact_locations(x, format!("{path}/{k}"), out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                artifact_locations(x, format!("{path}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// The local path of a `file:` URI (the test paths need no percent-decoding beyond spaces).
fn file_uri_path(uri: &str) -> PathBuf {
    let rest = uri
        .strip_prefix("file://")
        .unwrap_or_else(|| panic!("not a file URI: {uri}"));
    PathBuf::from(rest.replace("%20", " "))
}

#[test]
fn every_physical_location_names_a_file_that_exists() {
    // Two modules' source roots (one relative to the working directory, one absolute outside
    // it) and a third class whose source is under no root.
    let work = common::scratch_dir("report-locations");
    let repo = work.join("repo");
    let elsewhere = work.join("elsewhere/b/src");
    let nowhere = work.join("nowhere/src");
    fs::create_dir_all(&repo).unwrap();
    let files = [
        (repo.join("a/src"), "a/Counter.java", TWO_ROOTS_COUNTER),
        (elsewhere.clone(), "b/Store.java", TWO_ROOTS_STORE),
        (nowhere.clone(), "c/Other.java", TWO_ROOTS_OTHER),
    ];
    let mut sources = Vec::new();
    for (root, rel, text) in &files {
        let path = root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, text).unwrap();
        sources.push(path);
    }
    common::compile_java(&sources, &repo.join("classes"), "17");
    let out = repo.join("out.sarif");
    let run = run_in(
        &repo,
        &[
            "scan",
            "classes",
            "--rules",
            "all",
            "--source-root",
            "a/src",
            "--source-root",
            elsewhere.to_str().unwrap(),
            "--format",
            "sarif",
            "--output",
            out.to_str().unwrap(),
            "--no-progress",
        ],
    );
    run.expect_code(1, "findings");
    let log = read_json(&out);
    assert_sarif_valid(&log, &run.cmdline);
    let run0 = &log["runs"][0];
    let bases = &run0["originalUriBaseIds"];

    let mut locs = Vec::new();
    artifact_locations(&log, String::new(), &mut locs);
    let mut in_store = 0;
    for (path, loc) in &locs {
        let uri = loc["uri"]
            .as_str()
            .unwrap_or_else(|| panic!("{path}: no uri"));
        let file = match loc["uriBaseId"].as_str() {
            Some(id) => {
                let base = bases[id]["uri"]
                    .as_str()
                    .unwrap_or_else(|| panic!("{path}: base id {id} is not declared"));
                file_uri_path(base).join(uri)
            }
            None if uri.starts_with("file:") => file_uri_path(uri),
            None => repo.join(uri),
        };
        assert!(
            file.is_file(),
            "{path}: {uri} ({}) does not exist\n{}",
            file.display(),
            run.describe()
        );
        in_store += usize::from(uri.ends_with("Store.java"));
    }
    assert!(
        locs.len() >= 5,
        "the findings have physical locations: {locs:?}"
    );
    assert!(
        in_store > 0,
        "a step in the other module's class points at its file: {locs:?}"
    );

    // The class whose source is nowhere: logical locations only, the class and its method.
    let other: Vec<&Value> = results(&log)
        .into_iter()
        .filter(|r| {
            r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == "c.Other.bump"
        })
        .collect();
    assert!(
        !other.is_empty(),
        "c.Other.bump has findings\n{}",
        run.describe()
    );
    for r in &other {
        let loc = &r["locations"][0];
        assert!(loc.get("physicalLocation").is_none(), "{loc}");
        assert_eq!(loc["logicalLocations"][0]["kind"], "function");
        let mut inner = Vec::new();
        artifact_locations(r, String::new(), &mut inner);
        assert!(inner.is_empty(), "no file for c.Other: {inner:?}");
    }

    // Without the second root, the steps in b.Store have no file either (its class instead).
    let out2 = repo.join("out2.sarif");
    let run = run_in(
        &repo,
        &[
            "scan",
            "classes",
            "--rules",
            "all",
            "--source-root",
            "a/src",
            "--format",
            "sarif",
            "--output",
            out2.to_str().unwrap(),
            "--no-progress",
        ],
    );
    run.expect_code(1, "findings");
    let log = read_json(&out2);
    assert_sarif_valid(&log, &run.cmdline);
    let mut locs = Vec::new();
    artifact_locations(&log, String::new(), &mut locs);
    for (path, loc) in &locs {
        let uri = loc["uri"].as_str().unwrap();
        assert!(repo.join(uri).is_file(), "{path}: {uri} does not exist");
    }
    assert!(
        log.to_string()
            .contains(r#""fullyQualifiedName":"b.Store""#),
        "a step in b.Store without its source names the class\n{}",
        run.describe()
    );
}

/// Two pairs, each updated in two critical sections while a reader takes both in one: `lo` and
/// `hi` depend on each other (`hi - lo` bounds the width written back), `a` and `b` do not.
const PAIRS: &str = r#"package evidence;

public final class Pairs {
    private final Object lock = new Object();
    private int lo;
    private int hi = 10;
    private int width = 10;
    private int a;
    private int b;

    void set(int x, int y) {
        synchronized (lock) {
            lo = x;
        }
        synchronized (lock) {
            hi = y;
        }
    }

    void measure() {
        synchronized (lock) {
            width = hi - lo;
        }
    }

    void setBoth(int x, int y) {
        synchronized (lock) {
            a = x;
        }
        synchronized (lock) {
            b = y;
        }
    }

    void copy() {
        synchronized (lock) {
            a = a + 0;
            b = b + 0;
        }
    }

    public static void main(String[] args) {
        Pairs p = new Pairs();
        for (int i = 0; i < 2; i++) {
            new Thread(() -> {
                p.set(1, 2);
                p.measure();
                p.setBoth(3, 4);
                p.copy();
            }).start();
        }
    }
}
"#;

#[test]
fn a_rule_level_set_in_the_config_keeps_weak_evidence_a_note() {
    let work = common::scratch_dir("report-evidence-level");
    let _ = fs::remove_dir_all(&work);
    common::compile_sources(
        &work.join("src"),
        &work.join("classes"),
        "17",
        &[("evidence/Pairs.java", PAIRS)],
    );
    fs::write(
        work.join("stalecheck.toml"),
        "[rules]\nhigh-level-data-race = \"error\"\n",
    )
    .unwrap();
    let out = work.join("out.sarif");
    let classes = work.join("classes");
    run_in(
        &work,
        &[
            "scan",
            classes.to_str().unwrap(),
            "--rules",
            "high-level-data-race",
            "--format",
            "sarif",
            "-o",
            out.to_str().unwrap(),
        ],
    );
    let log = read_json(&out);
    assert_sarif_valid(&log, "evidence levels");
    let level_at = |method: &str| -> Vec<(String, String)> {
        results(&log)
            .into_iter()
            .filter(|r| {
                r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"]
                    == format!("evidence.Pairs.{method}").as_str()
            })
            .map(|r| {
                (
                    r["level"].as_str().unwrap_or("").to_string(),
                    r["properties"]["evidence"]
                        .as_str()
                        .unwrap_or("")
                        .to_string(),
                )
            })
            .collect()
    };
    assert_eq!(
        level_at("set"),
        vec![("error".to_string(), "split-update".to_string())],
        "related fields: the level the config sets; {}",
        serde_json::to_string_pretty(&log).unwrap()
    );
    assert_eq!(
        level_at("setBoth"),
        vec![("note".to_string(), "unrelated-update".to_string())],
        "unrelated fields stay a note"
    );
}
