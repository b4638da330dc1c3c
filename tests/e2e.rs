//! End-to-end tests of the `stalecheck` command line: exit codes, output formats and files, bad
//! inputs, archives (nested, multi-release), duplicates, `--classpath`, `--rules`, `--lenient`,
//! `--help`. Inputs are built in `CARGO_TARGET_TMPDIR`; Java classes are compiled with the real
//! javac.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use common::{line_of, stalecheck, Report, Run};

// ---------------------------------------------------------------------------------------------
// Test inputs
// ---------------------------------------------------------------------------------------------

/// block-local-atomicity.md Fig. 2: one stale-value finding (at `// STALE`) and one
/// block-local-atomicity finding (at `// BLA`).
const BUGGY: &str = r#"package e2e;

public class Buggy {
    private final Object lock = new Object();
    private int field;

    public void inc() {
        int tmp;
        synchronized (lock) {
            tmp = field;
        }
        tmp++; // BLA
        synchronized (lock) {
            field = tmp; // STALE
        }
    }
}
"#;

/// The same increment done right: no finding of any rule.
const CLEAN: &str = r#"package e2e;

public class Clean {
    private final Object lock = new Object();
    private int field;

    public void inc() {
        synchronized (lock) {
            int tmp = field;
            tmp++;
            field = tmp;
        }
    }
}
"#;

/// A library class: synchronized accessors (so calls to them are regions) and a buggy method of
/// its own, which must never be reported when the class comes from `--classpath`.
const LIB: &str = r#"package e2e.lib;

public class Lib {
    private final Object lock = new Object();
    private int x;

    public synchronized int getX() {
        return x;
    }

    public synchronized void setX(int v) {
        x = v;
    }

    public void inc() {
        int tmp;
        synchronized (lock) {
            tmp = x;
        }
        tmp++;
        synchronized (lock) {
            x = tmp; // LIB-STALE
        }
    }
}
"#;

/// Uses Lib's synchronized accessors non-atomically (causal-dependencies-hldr.md Fig. 1(b)). Lib's
/// methods are of another class, so for stale-value they are not critical sections (Burrows &
/// Leino's "same abstraction" rule); block-local atomicity reports the sum at `// APP-BLA`, which
/// it can only do when it knows, from the classpath, that getX() takes a lock.
const APP: &str = r#"package e2e.app;

import e2e.lib.Lib;

public class App {
    public void incX(Lib lib, int val) {
        int tmp = lib.getX();
        tmp = tmp + val; // APP-BLA
        lib.setX(tmp);
    }
}
"#;

/// The two versions of a class in a multi-release jar: the base is correct, the Java 11 one buggy.
const VERSIONED_BASE: &str = r#"package e2e.mr;

public class Versioned {
    private int field;

    public synchronized void inc() {
        field = field + 1;
    }
}
"#;

const VERSIONED_11: &str = r#"package e2e.mr;

public class Versioned {
    private final Object lock = new Object();
    private int field;

    public void inc() {
        int tmp;
        synchronized (lock) {
            tmp = field;
        }
        synchronized (lock) {
            field = tmp + 1; // MR-STALE
        }
    }
}
"#;

/// The e2e classes, compiled once per process: `<dir>/e2e/Buggy.class`, `Clean`, `lib/Lib`,
/// `app/App`.
fn e2e_classes() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let src = common::scratch_dir("e2e-src");
        let out = common::scratch_dir("e2e-classes");
        common::compile_sources(
            &src,
            &out,
            "17",
            &[
                ("e2e/Buggy.java", BUGGY),
                ("e2e/Clean.java", CLEAN),
                ("e2e/lib/Lib.java", LIB),
                ("e2e/app/App.java", APP),
            ],
        );
        out
    })
}

/// The bytes of a compiled e2e class, e.g. `e2e/Buggy.class`.
fn class_bytes(rel: &str) -> Vec<u8> {
    let path = e2e_classes().join(rel);
    fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// A class directory under `dir` holding copies of the given compiled classes.
fn class_dir(dir: &Path, name: &str, classes: &[&str]) -> PathBuf {
    let root = dir.join(name);
    for rel in classes {
        let target = root.join(rel);
        fs::create_dir_all(target.parent().unwrap()).unwrap();
        fs::write(&target, class_bytes(rel)).unwrap();
    }
    root
}

const BUGGY_CLASS: &str = "e2e/Buggy.class";
const CLEAN_CLASS: &str = "e2e/Clean.class";

/// Compile one library source (`path` under the source root, no `main`), scan it with
/// `extra`, and check that it was analysed as a library (open world).
fn scan_library(name: &str, path: &str, source: &str, extra: &[&str]) -> (Run, Report) {
    scan_library_of(name, &[(path, source)], extra)
}

/// [`scan_library`] of several sources, each `(path, source)`.
fn scan_library_of(name: &str, sources: &[(&str, &str)], extra: &[&str]) -> (Run, Report) {
    let src = common::scratch_dir(&format!("{name}-src"));
    let lib = common::scratch_dir(&format!("{name}-lib"));
    common::compile_sources(&src, &lib, "17", sources);
    let (run, report) = scan_json(&[&lib], extra);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("json");
    let world = json["summary"]["world"].as_str().unwrap_or_default();
    assert!(
        world.starts_with("open world"),
        "{world}\n{}",
        run.describe()
    );
    (run, report)
}

/// The lines of the findings of `rule` in class `class`.
fn finding_lines(report: &Report, rule: &str, class: &str) -> Vec<u32> {
    (report.findings_of(rule).iter())
        .filter(|f| f.class == class)
        .filter_map(|f| f.line)
        .collect()
}

/// Scan as JSON; every rule unless `extra` names rules (the e2e classes pin the findings of the
/// rules that are off by default too).
fn scan_json(args: &[&Path], extra: &[&str]) -> (Run, Report) {
    let mut argv: Vec<std::ffi::OsString> = vec!["scan".into()];
    argv.extend(args.iter().map(|p| p.as_os_str().to_owned()));
    argv.extend(["--format".into(), "json".into()]);
    if !extra.contains(&"--rules") {
        argv.extend(["--rules".into(), "all".into()]);
    }
    argv.extend(extra.iter().map(Into::into));
    let run = stalecheck(&argv);
    let report = run.report();
    (run, report)
}

/// Asserts that `report` has the two findings of BUGGY, in class e2e.Buggy.
fn assert_buggy_findings(report: &Report, run: &Run) {
    let stale = report.findings_of("stale-value");
    let bla = report.findings_of("block-local-atomicity");
    let at = |findings: &[&common::Finding], line: u32| {
        findings
            .iter()
            .any(|f| f.class == "e2e.Buggy" && f.method == "inc" && f.line == Some(line))
    };
    assert!(
        at(&stale, line_of(BUGGY, "// STALE")),
        "expected a stale-value finding in e2e.Buggy.inc at line {}\n{}",
        line_of(BUGGY, "// STALE"),
        run.describe()
    );
    assert!(
        at(&bla, line_of(BUGGY, "// BLA")),
        "expected a block-local-atomicity finding in e2e.Buggy.inc at line {}\n{}",
        line_of(BUGGY, "// BLA"),
        run.describe()
    );
}

/// Lines of `text` that mention `needle`.
fn lines_mentioning<'a>(text: &'a str, needle: &str) -> Vec<&'a str> {
    text.lines().filter(|l| l.contains(needle)).collect()
}

// ---------------------------------------------------------------------------------------------
// Exit codes and formats
// ---------------------------------------------------------------------------------------------

#[test]
fn buggy_class_is_reported_with_exit_code_1() {
    let dir = common::scratch_dir("e2e-buggy");
    let classes = class_dir(&dir, "classes", &[BUGGY_CLASS]);

    let (run, report) = scan_json(&[&classes], &[]);
    run.expect_code(1, "a stale-value warning was found");
    assert_buggy_findings(&report, &run);
    let stale = &report.findings_of("stale-value")[0];
    assert_eq!(stale.level, "warning", "{}", run.describe());
    assert_eq!(stale.descriptor, "()V", "{}", run.describe());
    assert_eq!(
        stale.file.as_deref(),
        Some("e2e/Buggy.java"),
        "{}",
        run.describe()
    );
    assert_eq!(
        stale.age,
        Some(1),
        "one region entered since the read\n{}",
        run.describe()
    );
    assert_eq!(report.summary.classes, 1, "{}", run.describe());
    assert!(
        report.problems.is_empty(),
        "no input problems expected\n{}",
        run.describe()
    );

    // Text is the default format: findings on stdout.
    let text = stalecheck(["scan".as_ref(), classes.as_os_str()]);
    text.expect_code(1, "same findings in text format");
    for needle in ["stale-value", "Buggy.java"] {
        assert!(
            text.stdout.contains(needle),
            "text output lacks {needle:?}\n{}",
            text.describe()
        );
    }
}

#[test]
fn correct_class_exits_0_without_findings() {
    let dir = common::scratch_dir("e2e-clean");
    let classes = class_dir(&dir, "classes", &[CLEAN_CLASS]);

    let (run, report) = scan_json(&[&classes], &[]);
    run.expect_code(0, "nothing to report");
    assert!(
        report.findings.is_empty(),
        "no findings expected\n{}",
        run.describe()
    );
    assert!(
        report.problems.is_empty(),
        "no input problems expected\n{}",
        run.describe()
    );
    assert_eq!(report.summary.classes, 1, "{}", run.describe());
    assert!(
        report.summary.methods >= 2,
        "<init> and inc\n{}",
        run.describe()
    );

    let text = stalecheck(["scan".as_ref(), classes.as_os_str()]);
    text.expect_code(0, "nothing to report, text format");
    assert!(!text.stdout.contains("stale-value"), "{}", text.describe());
}

#[test]
fn output_file_is_written_and_stdout_stays_empty() {
    let dir = common::scratch_dir("e2e-output");
    let classes = class_dir(&dir, "classes", &[BUGGY_CLASS]);
    for format in ["json", "sarif", "text"] {
        let out = dir.join(format!("report.{format}"));
        let run = stalecheck([
            "scan".as_ref(),
            classes.as_os_str(),
            "--format".as_ref(),
            format.as_ref(),
            "--output".as_ref(),
            out.as_os_str(),
            "--rules".as_ref(),
            "all".as_ref(),
        ]);
        run.expect_code(1, "the findings still decide the exit code");
        assert!(
            run.stdout.trim().is_empty(),
            "with --output nothing goes to stdout ({format})\n{}",
            run.describe()
        );
        let written = fs::read_to_string(&out).unwrap_or_else(|e| {
            panic!(
                "--output {} was not written ({e})\n{}",
                out.display(),
                run.describe()
            )
        });
        match format {
            "json" => assert_buggy_findings(
                &Report::parse(&written).unwrap_or_else(|e| panic!("{e}\n{written}")),
                &run,
            ),
            "sarif" => {
                let log: serde_json::Value = serde_json::from_str(&written).expect("SARIF is JSON");
                let errors = stalecheck_sarif::schema_errors(&log);
                assert!(errors.is_empty(), "invalid SARIF in --output: {errors:?}");
                assert!(
                    log["runs"][0]["results"]
                        .as_array()
                        .is_some_and(|r| !r.is_empty()),
                    "SARIF file has no results\n{written}"
                );
            }
            _ => assert!(
                written.contains("stale-value"),
                "text file lacks the finding\n{written}"
            ),
        }
    }
}

#[test]
fn sarif_is_schema_valid_with_findings_and_input_problems() {
    let dir = common::scratch_dir("e2e-sarif");
    let classes = class_dir(&dir, "classes", &[BUGGY_CLASS]);
    let half = dir.join("half-sarif.class");
    let clean = class_bytes(CLEAN_CLASS);
    fs::write(&half, &clean[..clean.len() / 2]).unwrap();

    let run = stalecheck([
        "scan".as_ref(),
        classes.as_os_str(),
        half.as_os_str(),
        "--rules".as_ref(),
        common::VALUE_RULES.as_ref(),
        "--format".as_ref(),
        "sarif".as_ref(),
    ]);
    run.expect_code(2, "an input that cannot be read fails the run");
    let log = run.stdout_json();
    let errors = stalecheck_sarif::schema_errors(&log);
    assert!(
        errors.is_empty(),
        "invalid SARIF:\n  {}\n{}",
        errors.join("\n  "),
        run.describe()
    );

    let results = log["runs"][0]["results"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let stale: Vec<_> = results
        .iter()
        .filter(|r| r["ruleId"] == "stale-value")
        .collect();
    assert_eq!(stale.len(), 1, "one stale-value result\n{}", run.describe());
    let loc = &stale[0]["locations"][0];
    // No --source-root: the source file is not known, so no physical location (it would name
    // a file that does not exist); the logical location says where.
    assert!(
        loc.get("physicalLocation").is_none(),
        "{loc}\n{}",
        run.describe()
    );
    assert_eq!(
        loc["logicalLocations"][0]["fullyQualifiedName"],
        "e2e.Buggy.inc"
    );
    assert_eq!(loc["logicalLocations"][0]["decoratedName"], "()V");

    let notes = &log["runs"][0]["invocations"][0]["toolExecutionNotifications"];
    let mentioning: Vec<_> = notes
        .as_array()
        .map(|n| {
            n.iter()
                .filter(|n| n.to_string().contains("half-sarif.class"))
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(
        mentioning.len(),
        1,
        "the truncated class must appear once in toolExecutionNotifications\n{}",
        run.describe()
    );
    assert_eq!(mentioning[0]["level"], "error", "{}", run.describe());
    assert_eq!(
        log["runs"][0]["invocations"][0]["executionSuccessful"],
        false,
        "{}",
        run.describe()
    );
    assert_eq!(log["runs"][0]["invocations"][0]["exitCode"], 2);
}

// ---------------------------------------------------------------------------------------------
// Bad inputs
// ---------------------------------------------------------------------------------------------

/// Bad inputs given as arguments next to a directory with the buggy class: each is reported
/// once with its path, the good class is still scanned, and the exit code follows the findings.
#[test]
fn bad_inputs_are_reported_once_each_and_do_not_stop_the_scan() {
    let dir = common::scratch_dir("e2e-bad-inputs");
    let classes = class_dir(&dir, "classes", &[BUGGY_CLASS]);

    let clean = class_bytes(CLEAN_CLASS);
    let half = dir.join("half-of-a-class.class");
    fs::write(&half, &clean[..clean.len() / 2]).unwrap();

    let garbage = dir.join("garbage-bytes.class");
    fs::write(
        &garbage,
        b"this is not a class file, just some text\n".repeat(8),
    )
    .unwrap();

    let jar = common::jar_bytes(&[(CLEAN_CLASS.to_string(), clean.clone())]);
    let truncated_jar = dir.join("truncated-archive.jar");
    fs::write(&truncated_jar, &jar[..jar.len() / 2]).unwrap();

    let empty_dir = dir.join("dir-without-classes");
    fs::create_dir_all(empty_dir.join("sub")).unwrap();
    fs::write(
        empty_dir.join("sub").join("README.txt"),
        "no classes here\n",
    )
    .unwrap();

    let missing = dir.join("no-such-input.jar");

    let bad: [(&Path, &str); 5] = [
        (&half, "half-of-a-class.class"),
        (&garbage, "garbage-bytes.class"),
        (&truncated_jar, "truncated-archive.jar"),
        (&empty_dir, "dir-without-classes"),
        (&missing, "no-such-input.jar"),
    ];
    let mut inputs: Vec<&Path> = vec![&classes];
    inputs.extend(bad.iter().map(|(p, _)| *p));

    // Text format: each problem once on stderr, `path: reason`.
    let mut argv: Vec<&std::ffi::OsStr> = vec!["scan".as_ref()];
    argv.extend(inputs.iter().map(|p| p.as_os_str()));
    let text = stalecheck(&argv);
    text.expect_code(2, "inputs that cannot be read fail the run");
    assert!(
        text.stdout.contains("stale-value"),
        "the good class was not scanned\n{}",
        text.describe()
    );
    for (_, name) in &bad {
        let lines = lines_mentioning(&text.stderr, name);
        assert_eq!(
            lines.len(),
            1,
            "{name} must be reported exactly once on stderr, got {lines:?}\n{}",
            text.describe()
        );
        assert!(
            lines[0].contains(": "),
            "expected `path: reason`, got {:?}",
            lines[0]
        );
    }

    // JSON: the same problems in `problems`, with their paths.
    let (run, report) = scan_json(&inputs, &[]);
    run.expect_code(2, "inputs that cannot be read fail the run");
    assert_buggy_findings(&report, &run);
    for (_, name) in &bad {
        let problems: Vec<_> = report
            .problems
            .iter()
            .filter(|p| p.path.contains(name))
            .collect();
        assert_eq!(
            problems.len(),
            1,
            "{name} must be one problem\n{}",
            run.describe()
        );
    }
    for name in [
        "half-of-a-class.class",
        "garbage-bytes.class",
        "truncated-archive.jar",
        "no-such-input.jar",
    ] {
        let p = report
            .problems
            .iter()
            .find(|p| p.path.contains(name))
            .unwrap();
        assert_eq!(
            p.severity, "error",
            "{name}: input that cannot be read is an error: {p:?}"
        );
        assert!(
            !p.reason.trim().is_empty(),
            "{name}: the problem needs a reason: {p:?}"
        );
    }
    let empty = report.problems_mentioning("dir-without-classes");
    assert_eq!(
        (empty[0].severity.as_str(), empty[0].reason.as_str()),
        ("warning", "no class files found"),
        "an input without classes is a warning"
    );
    let truncated = report.problems_mentioning("truncated-archive.jar");
    assert!(
        truncated[0].reason.starts_with("the archive is truncated"),
        "{:?}",
        truncated[0]
    );

    // --lenient: the same problems as warnings, the exit code from the findings alone.
    let (run, report) = scan_json(&inputs, &["--lenient"]);
    run.expect_code(1, "with --lenient the good class's warning decides");
    assert_buggy_findings(&report, &run);
    assert_eq!(report.problems.len(), bad.len(), "{}", run.describe());
    assert!(
        report.problems.iter().all(|p| p.severity == "warning"),
        "{:?}",
        report.problems
    );
}

/// Corrupt class files inside a scanned directory, beside a good class.
#[test]
fn bad_class_files_beside_a_good_class_in_a_directory() {
    let dir = common::scratch_dir("e2e-bad-beside");
    let classes = class_dir(&dir, "classes", &[BUGGY_CLASS]);
    let clean = class_bytes(CLEAN_CLASS);
    fs::write(
        classes.join("e2e").join("Truncated.class"),
        &clean[..clean.len() / 3],
    )
    .unwrap();
    fs::write(
        classes.join("e2e").join("Noise.class"),
        [0xCA, 0xFE, 0xBA, 0xBE, 0, 0, 0, 61, 0xFF, 0xFF, 1, 2, 3],
    )
    .unwrap();

    let (run, report) = scan_json(&[&classes], &[]);
    run.expect_code(2, "corrupt classes fail the run");
    assert_buggy_findings(&report, &run);
    for name in ["Truncated.class", "Noise.class"] {
        let problems = report.problems_mentioning(name);
        assert_eq!(
            problems.len(),
            1,
            "{name} must be reported once\n{}",
            run.describe()
        );
        assert_eq!(problems[0].severity, "error", "{:?}", problems[0]);
    }
    assert_eq!(
        report.summary.classes,
        1,
        "only the good class was analysed\n{}",
        run.describe()
    );
}

#[test]
fn unreadable_file_is_reported_once() {
    let dir = common::scratch_dir("e2e-unreadable");
    let classes = class_dir(&dir, "classes", &[BUGGY_CLASS]);
    let secret = dir.join("unreadable-input.class");
    fs::write(&secret, class_bytes(CLEAN_CLASS)).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&secret, fs::Permissions::from_mode(0o000)).unwrap();
    }
    if fs::read(&secret).is_ok() {
        println!(
            "note: skipping unreadable_file_is_reported_once: {} is still readable \
             (running as root or on a file system without permissions)",
            secret.display()
        );
        return;
    }
    let (run, report) = scan_json(&[&classes, &secret], &[]);
    run.expect_code(2, "an unreadable file fails the run");
    assert_buggy_findings(&report, &run);
    let problems = report.problems_mentioning("unreadable-input.class");
    assert_eq!(problems.len(), 1, "reported once\n{}", run.describe());
    assert_eq!(problems[0].severity, "error");

    let text = stalecheck(["scan".as_ref(), classes.as_os_str(), secret.as_os_str()]);
    assert_eq!(
        lines_mentioning(&text.stderr, "unreadable-input.class").len(),
        1,
        "{}",
        text.describe()
    );
}

#[test]
fn an_input_that_cannot_be_read_fails_unless_lenient() {
    let dir = common::scratch_dir("e2e-strict");
    let classes = class_dir(&dir, "classes", &[CLEAN_CLASS]);
    let garbage = dir.join("corrupt-input.class");
    fs::write(&garbage, b"\xCA\xFE\xBA\xBEnot really").unwrap();
    let scan = |extra: &[&str]| {
        let mut argv: Vec<&std::ffi::OsStr> = vec![
            "scan".as_ref(),
            classes.as_os_str(),
            garbage.as_os_str(),
            "--no-progress".as_ref(),
        ];
        argv.extend(extra.iter().map(|a| std::ffi::OsStr::new(*a)));
        common::stalecheck_in(&dir, &argv)
    };

    let default = scan(&[]);
    default.expect_code(2, "a corrupt class fails the run by default");
    let lines = lines_mentioning(&default.stderr, "corrupt-input.class");
    assert_eq!(lines.len(), 1, "reported once\n{}", default.describe());
    assert!(lines[0].starts_with("stalecheck: error: "), "{lines:?}");

    let lenient = scan(&["--lenient"]);
    lenient.expect_code(0, "with --lenient the clean class decides");
    let lines = lines_mentioning(&lenient.stderr, "corrupt-input.class");
    assert_eq!(lines.len(), 1, "still reported\n{}", lenient.describe());
    assert!(lines[0].starts_with("stalecheck: warning: "), "{lines:?}");

    // --strict is the default now, kept for older command lines.
    scan(&["--strict"]).expect_code(2, "--strict is the default");
    scan(&["--strict", "--lenient"]).expect_code(2, "--strict and --lenient conflict");

    // `lenient = true` in stalecheck.toml; --strict on the command line wins over it.
    fs::write(dir.join("stalecheck.toml"), "lenient = true\n").unwrap();
    scan(&[]).expect_code(0, "lenient in stalecheck.toml");
    scan(&["--strict"]).expect_code(2, "--strict wins over the file");
    fs::remove_file(dir.join("stalecheck.toml")).unwrap();

    // The SARIF of a failed run says so: executionSuccessful false, an error notification.
    let sarif = dir.join("failed.sarif");
    scan(&["--format", "sarif", "--output", sarif.to_str().unwrap()])
        .expect_code(2, "the report is still written");
    let log: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&sarif).unwrap()).unwrap();
    assert!(stalecheck_sarif::schema_errors(&log).is_empty());
    let inv = &log["runs"][0]["invocations"][0];
    assert_eq!(inv["executionSuccessful"], false);
    let notes: Vec<&serde_json::Value> = inv["toolExecutionNotifications"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| {
            n["message"]["text"]
                .as_str()
                .unwrap_or("")
                .contains("corrupt-input.class")
        })
        .collect();
    assert_eq!(notes.len(), 1, "{inv}");
    assert_eq!(notes[0]["level"], "error");
    assert!(
        notes[0]["message"]["text"]
            .as_str()
            .unwrap()
            .contains("not a valid class file"),
        "the reason: {inv}"
    );
    scan(&[
        "--lenient",
        "--format",
        "sarif",
        "--output",
        sarif.to_str().unwrap(),
    ])
    .expect_code(0, "lenient");
    let log: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&sarif).unwrap()).unwrap();
    assert_eq!(
        log["runs"][0]["invocations"][0]["executionSuccessful"],
        true
    );

    // Good input: nothing changes.
    stalecheck(["scan".as_ref(), classes.as_os_str()]).expect_code(0, "good input and no findings");
}

/// A misspelled path, a truncated jar alone: exit 2 with the path and the reason.
#[test]
fn a_missing_path_or_a_truncated_jar_alone_fails() {
    let dir = common::scratch_dir("e2e-missing");
    let run = stalecheck(["scan", "build/clases/java/main", "--no-progress"]);
    run.expect_code(2, "a misspelled input path");
    assert!(
        run.stderr
            .contains("stalecheck: error: build/clases/java/main: no such file or directory"),
        "{}",
        run.describe()
    );
    let jar = common::jar_bytes(&[(CLEAN_CLASS.to_string(), class_bytes(CLEAN_CLASS))]);
    let cut = dir.join("cut.jar");
    fs::write(&cut, &jar[..jar.len() - 10]).unwrap();
    let run = stalecheck(["scan".as_ref(), cut.as_os_str()]);
    run.expect_code(2, "a truncated jar");
    // Its directory is cut, its one class is whole: scanned, and the archive reported truncated.
    let expected = format!("{}: the archive is truncated", cut.display());
    assert!(run.stderr.contains(&expected), "{}", run.describe());
    assert!(
        run.stdout.contains("in 1 class(es)"),
        "the intact class is scanned\n{}",
        run.describe()
    );
    assert!(!run.stderr.contains("EOCD"), "{}", run.describe());
}

/// An input without classes and a source root that does not exist are warnings: on stderr and
/// in the SARIF at level warning, with the exit code unchanged.
#[test]
fn empty_inputs_and_missing_source_roots_are_warnings() {
    let dir = common::scratch_dir("e2e-empty");
    let classes = class_dir(&dir, "classes", &[CLEAN_CLASS]);
    let empty = dir.join("empty-classes");
    fs::create_dir_all(&empty).unwrap();
    let res_jar = dir.join("resources-only.jar");
    common::write_jar(&res_jar, &[("a.properties".to_string(), b"a=b".to_vec())]);
    let sarif = dir.join("out.sarif");
    let run = stalecheck([
        "scan".as_ref(),
        classes.as_os_str(),
        empty.as_os_str(),
        res_jar.as_os_str(),
        "--source-root".as_ref(),
        dir.join("src/main/jvaa").as_os_str(),
        "--format".as_ref(),
        "sarif".as_ref(),
        "--output".as_ref(),
        sarif.as_os_str(),
    ]);
    run.expect_code(0, "warnings do not change the exit code");
    for name in ["empty-classes", "resources-only.jar", "src/main/jvaa"] {
        let lines = lines_mentioning(&run.stderr, name);
        assert_eq!(lines.len(), 1, "{name}\n{}", run.describe());
        assert!(lines[0].starts_with("stalecheck: warning: "), "{lines:?}");
    }
    let log: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&sarif).unwrap()).unwrap();
    assert!(stalecheck_sarif::schema_errors(&log).is_empty());
    let inv = &log["runs"][0]["invocations"][0];
    assert_eq!(inv["executionSuccessful"], true);
    let notes = inv["toolExecutionNotifications"].as_array().unwrap();
    for name in ["empty-classes", "resources-only.jar", "src/main/jvaa"] {
        let n: Vec<_> = notes
            .iter()
            .filter(|n| n["message"]["text"].as_str().unwrap_or("").contains(name))
            .collect();
        assert_eq!(n.len(), 1, "{name}: {inv}");
        assert_eq!(n[0]["level"], "warning", "{name}: {inv}");
    }
}

// ---------------------------------------------------------------------------------------------
// Archives
// ---------------------------------------------------------------------------------------------

/// What identifies a finding independently of where its class file came from.
type FindingKey = (
    String,
    String,
    String,
    String,
    String,
    Option<String>,
    Option<u32>,
    Option<u32>,
    Vec<(String, Option<u32>)>,
);

fn finding_keys(report: &Report) -> Vec<FindingKey> {
    let mut keys: Vec<FindingKey> = report
        .findings
        .iter()
        .map(|f| {
            (
                f.rule.clone(),
                f.level.clone(),
                f.class.clone(),
                f.method.clone(),
                f.descriptor.clone(),
                f.file.clone(),
                f.line,
                f.age,
                f.steps.iter().map(|s| (s.kind.clone(), s.line)).collect(),
            )
        })
        .collect();
    keys.sort();
    keys
}

#[test]
fn jar_with_nested_jar_gives_the_same_findings_as_the_directory() {
    let classes = common::fixture_classes();
    let dir = common::scratch_dir("e2e-nested-jar");

    // Half of the packages directly in the outer jar, the other half in BOOT-INF/lib/inner.jar.
    let entries = common::class_entries(classes);
    let packages: Vec<String> = {
        let mut p: Vec<String> = entries
            .iter()
            .map(|(name, _)| name.rsplit_once('/').map_or("", |(d, _)| d).to_string())
            .collect();
        p.dedup();
        p
    };
    let inner_packages = &packages[packages.len() / 2..];
    let (inner, outer): (Vec<_>, Vec<_>) = entries.into_iter().partition(|(name, _)| {
        inner_packages
            .iter()
            .any(|p| name.rsplit_once('/').map_or("", |(d, _)| d) == p)
    });
    assert!(!inner.is_empty() && !outer.is_empty());
    let mut outer_entries = vec![(
        "META-INF/MANIFEST.MF".to_string(),
        b"Manifest-Version: 1.0\r\nMain-Class: fixtures.None\r\n\r\n".to_vec(),
    )];
    outer_entries.extend(outer);
    outer_entries.push((
        "BOOT-INF/lib/inner.jar".to_string(),
        common::jar_bytes(&inner),
    ));
    let jar = dir.join("fixtures-app.jar");
    common::write_jar(&jar, &outer_entries);

    // The world is chosen by packaging (a jar without Main-Class is a library, a directory
    // with mains an application): the same world for both, so only loading differs.
    let (dir_run, from_dir) = scan_json(&[classes], &["--world", "application"]);
    let (jar_run, from_jar) = scan_json(&[&jar], &["--world", "application"]);

    // The comparison only means something if both halves have findings.
    let inner_classes: Vec<String> = inner
        .iter()
        .map(|(n, _)| n.trim_end_matches(".class").replace('/', "."))
        .collect();
    assert!(
        from_dir
            .findings
            .iter()
            .any(|f| inner_classes.contains(&f.class))
            && from_dir
                .findings
                .iter()
                .any(|f| !inner_classes.contains(&f.class)),
        "test setup: both the outer and the nested jar should hold classes with findings\n{}",
        dir_run.describe()
    );

    assert_eq!(
        jar_run.code,
        dir_run.code,
        "exit codes differ\n{}\n{}",
        dir_run.describe(),
        jar_run.describe()
    );
    assert_eq!(
        from_jar.summary.classes,
        from_dir.summary.classes,
        "classes scanned from the jar vs. the directory\n{}",
        jar_run.describe()
    );
    let errors: Vec<_> = from_jar
        .problems
        .iter()
        .filter(|p| p.severity == "error")
        .collect();
    assert!(
        errors.is_empty(),
        "input problems in a good jar: {errors:?}"
    );
    let (a, b) = (finding_keys(&from_dir), finding_keys(&from_jar));
    if a != b {
        let only_dir: Vec<_> = a.iter().filter(|k| !b.contains(k)).collect();
        let only_jar: Vec<_> = b.iter().filter(|k| !a.contains(k)).collect();
        panic!(
            "findings differ between the directory and the jar:\n  only from the directory: \
             {only_dir:#?}\n  only from the jar: {only_jar:#?}"
        );
    }
}

#[test]
fn multi_release_jar_uses_the_versioned_class() {
    let dir = common::scratch_dir("e2e-multi-release");
    let base_out = dir.join("base");
    let v11_out = dir.join("v11");
    common::compile_sources(
        &dir.join("src-base"),
        &base_out,
        "17",
        &[("e2e/mr/Versioned.java", VERSIONED_BASE)],
    );
    common::compile_sources(
        &dir.join("src-11"),
        &v11_out,
        "11",
        &[("e2e/mr/Versioned.java", VERSIONED_11)],
    );
    let base = fs::read(base_out.join("e2e/mr/Versioned.class")).unwrap();
    let v11 = fs::read(v11_out.join("e2e/mr/Versioned.class")).unwrap();
    let manifest = b"Manifest-Version: 1.0\r\nMulti-Release: true\r\n\r\n".to_vec();

    // Control: the base version alone is correct.
    let base_jar = dir.join("base-only.jar");
    common::write_jar(
        &base_jar,
        &[
            ("META-INF/MANIFEST.MF".into(), manifest.clone()),
            ("e2e/mr/Versioned.class".into(), base.clone()),
        ],
    );
    let (run, report) = scan_json(&[&base_jar], &[]);
    run.expect_code(0, "the base version is correct");
    assert!(report.findings.is_empty(), "{}", run.describe());

    let mr_jar = dir.join("multi-release.jar");
    common::write_jar(
        &mr_jar,
        &[
            ("META-INF/MANIFEST.MF".into(), manifest),
            ("e2e/mr/Versioned.class".into(), base),
            ("META-INF/versions/11/e2e/mr/Versioned.class".into(), v11),
        ],
    );
    let (run, report) = scan_json(&[&mr_jar], &[]);
    run.expect_code(1, "the versioned (buggy) class overrides the base");
    let stale = report.findings_of("stale-value");
    assert_eq!(stale.len(), 1, "{}", run.describe());
    assert_eq!(stale[0].class, "e2e.mr.Versioned");
    assert_eq!(
        stale[0].line,
        Some(line_of(VERSIONED_11, "// MR-STALE")),
        "{}",
        run.describe()
    );
    assert_eq!(
        report.summary.classes,
        1,
        "the overridden base is not scanned too\n{}",
        run.describe()
    );
}

#[test]
fn duplicate_class_is_scanned_once_with_one_note() {
    let dir = common::scratch_dir("e2e-duplicate");
    let classes = class_dir(&dir, "classes-dir", &[BUGGY_CLASS]);
    let jar = dir.join("dup-copy.jar");
    common::write_jar(&jar, &[(BUGGY_CLASS.to_string(), class_bytes(BUGGY_CLASS))]);

    let (alone_run, alone) = scan_json(&[&classes], &[]);
    alone_run.expect_code(1, "buggy class");

    // The first copy given wins; the note names the ignored one.
    for (inputs, ignored) in [
        ([&classes, &jar], "dup-copy.jar"),
        ([&jar, &classes], "classes-dir"),
    ] {
        let inputs: Vec<&Path> = inputs.iter().map(|p| p.as_path()).collect();
        let (run, report) = scan_json(&inputs, &[]);
        run.expect_code(1, "buggy class; a duplicate is only a note");
        assert_eq!(
            report.summary.classes,
            1,
            "the class is scanned once\n{}",
            run.describe()
        );
        assert_eq!(
            finding_keys(&report),
            finding_keys(&alone),
            "findings must be those of one copy\n{}",
            run.describe()
        );
        assert_eq!(
            report.problems.len(),
            1,
            "exactly one problem: the note\n{}",
            run.describe()
        );
        let note = &report.problems[0];
        assert_eq!(note.severity, "note", "{}", run.describe());
        assert!(
            note.path.contains(ignored) || note.reason.contains(ignored),
            "the note must say which copy ({ignored}) was ignored: {note:?}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------------------------

#[test]
fn classpath_classes_are_never_reported() {
    let dir = common::scratch_dir("e2e-classpath");
    let buggy_cp = class_dir(&dir, "cp-buggy", &[BUGGY_CLASS]);
    let clean = class_dir(&dir, "scan-clean", &[CLEAN_CLASS]);

    // The buggy class only on the classpath: nothing reported.
    let cp_arg = buggy_cp.to_str().unwrap();
    let (run, report) = scan_json(&[&clean], &["--classpath", cp_arg]);
    run.expect_code(0, "the only buggy class is on --classpath");
    assert!(report.findings.is_empty(), "{}", run.describe());
    assert_eq!(
        report.summary.classes,
        1,
        "only scanned classes are counted\n{}",
        run.describe()
    );

    // Classpath classes still inform the analysis of the scanned ones: App calls Lib's
    // synchronized getX(), so its result is a shared value used outside its block; Lib's own
    // bug is not reported.
    let lib = class_dir(&dir, "cp-lib", &["e2e/lib/Lib.class"]);
    let app = class_dir(&dir, "scan-app", &["e2e/app/App.class"]);
    let (lib_run, lib_alone) = scan_json(&[&lib], &[]);
    assert!(
        lib_alone
            .findings
            .iter()
            .any(|f| f.class == "e2e.lib.Lib" && f.rule == "stale-value"),
        "control: Lib scanned directly has a stale value\n{}",
        lib_run.describe()
    );
    let (run, report) = scan_json(&[&app], &["--classpath", lib.to_str().unwrap()]);
    run.expect_code(0, "App's finding is a block-local-atomicity note");
    assert!(
        report.findings.iter().all(|f| f.class == "e2e.app.App"),
        "classpath classes must never be reported\n{}",
        run.describe()
    );
    assert!(
        report
            .findings_of("block-local-atomicity")
            .iter()
            .any(|f| f.line == Some(line_of(APP, "// APP-BLA"))),
        "App.incX uses getX()'s result outside its block (known from the classpath)\n{}",
        run.describe()
    );
    assert_eq!(
        report.summary.classes,
        1,
        "only App is scanned\n{}",
        run.describe()
    );
}

#[test]
fn rules_option_selects_the_rules() {
    let dir = common::scratch_dir("e2e-rules");
    let classes = class_dir(&dir, "classes", &[BUGGY_CLASS]);

    let (run, report) = scan_json(&[&classes], &["--rules", "block-local-atomicity"]);
    run.expect_code(0, "block-local-atomicity findings are notes");
    assert!(!report.findings.is_empty(), "{}", run.describe());
    assert!(
        report
            .findings
            .iter()
            .all(|f| f.rule == "block-local-atomicity"),
        "{}",
        run.describe()
    );

    let (run, report) = scan_json(&[&classes], &["--rules", "stale-value"]);
    run.expect_code(1, "stale-value findings are warnings");
    assert!(!report.findings.is_empty(), "{}", run.describe());
    assert!(
        report.findings.iter().all(|f| f.rule == "stale-value"),
        "{}",
        run.describe()
    );

    let (run, report) = scan_json(
        &[&classes],
        &["--rules", "stale-value,block-local-atomicity"],
    );
    run.expect_code(1, "both rules");
    assert_buggy_findings(&report, &run);
}

/// Without `--rules`, only the default set runs (the rules whose measured precision earned it:
/// `stalecheck rules` marks them); `--rules all` runs every rule, and a level in the `[rules]`
/// table of stalecheck.toml turns one on. SARIF says which rules are off by default.
#[test]
fn default_rule_set_and_rules_all() {
    let dir = common::scratch_dir("e2e-default-rules");
    let classes = class_dir(&dir, "classes", &[BUGGY_CLASS]);
    let scan_in = |cwd: &Path, extra: &[&str]| {
        let mut argv: Vec<std::ffi::OsString> = vec!["scan".into(), classes.clone().into()];
        if !extra.contains(&"--format") {
            argv.extend(["--format".into(), "json".into()]);
        }
        argv.extend(extra.iter().map(Into::into));
        common::stalecheck_in(cwd, &argv)
    };
    let plain = dir.join("plain");
    fs::create_dir_all(&plain).unwrap();
    let run = scan_in(&plain, &[]);
    let report = run.report();
    run.expect_code(1, "the default set has the stale value");
    let rules: std::collections::BTreeSet<&str> =
        report.findings.iter().map(|f| f.rule.as_str()).collect();
    // The stale value is reported by the default rule, with its concurrent writer.
    assert!(rules.contains("causal-stale-value"), "{}", run.describe());
    for off in ["stale-value", "block-local-atomicity"] {
        assert!(
            !rules.contains(off),
            "{off} is off by default\n{}",
            run.describe()
        );
    }

    let run = scan_in(&plain, &["--rules", "all"]);
    assert_buggy_findings(&run.report(), &run);

    let configured = dir.join("configured");
    fs::create_dir_all(&configured).unwrap();
    fs::write(
        configured.join("stalecheck.toml"),
        "[rules]\nstale-value = \"warning\"\nblock-local-atomicity = \"note\"\n",
    )
    .unwrap();
    let run = scan_in(&configured, &[]);
    assert_buggy_findings(&run.report(), &run);

    let run = scan_in(&plain, &["--format", "sarif", "--output", "out.sarif"]);
    let sarif: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(plain.join("out.sarif")).unwrap()).unwrap();
    let rules = sarif["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap_or_else(|| panic!("no rules\n{}", run.describe()));
    for r in rules {
        let enabled = r["defaultConfiguration"]["enabled"]
            .as_bool()
            .unwrap_or(true);
        let id = r["id"].as_str().unwrap_or_default();
        assert_eq!(
            enabled,
            id == "causal-stale-value",
            "defaultConfiguration.enabled of {id}"
        );
    }
}

#[test]
fn unknown_rule_id_is_a_usage_error() {
    let dir = common::scratch_dir("e2e-unknown-rule");
    let classes = class_dir(&dir, "classes", &[BUGGY_CLASS]);
    let run = stalecheck([
        "scan".as_ref(),
        classes.as_os_str(),
        "--rules".as_ref(),
        "stale-value,no-such-rule".as_ref(),
    ]);
    run.expect_code(2, "an unknown rule id is a usage error");
    assert!(
        run.stderr.contains("no-such-rule"),
        "the message must name the unknown rule\n{}",
        run.describe()
    );
    assert!(
        !run.stdout.contains("stale-value:"),
        "no scan output expected\n{}",
        run.describe()
    );
}

#[test]
fn other_usage_errors_exit_2() {
    let dir = common::scratch_dir("e2e-usage");
    let classes = class_dir(&dir, "classes", &[CLEAN_CLASS]);
    let bad_format = stalecheck([
        "scan".as_ref(),
        classes.as_os_str(),
        "--format".as_ref(),
        "yaml".as_ref(),
    ]);
    bad_format.expect_code(2, "unknown --format");
    let bad_flag = stalecheck([
        "scan".as_ref(),
        classes.as_os_str(),
        "--no-such-flag".as_ref(),
    ]);
    bad_flag.expect_code(2, "unknown flag");
}

#[test]
fn help_lists_the_rule_ids() {
    let top = stalecheck(["--help"]);
    top.expect_code(0, "--help succeeds");
    assert!(
        top.stdout.contains("scan"),
        "top-level help mentions the scan command\n{}",
        top.describe()
    );

    let scan = stalecheck(["scan", "--help"]);
    scan.expect_code(0, "scan --help succeeds");
    for rule in common::RULES {
        assert!(
            scan.stdout.contains(rule),
            "scan --help must list rule id {rule:?}\n{}",
            scan.describe()
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Robustness and analysis options
// ---------------------------------------------------------------------------------------------

/// A panic while analysing one method (injected with the test hook `STALECHECK_DEBUG_PANIC`) is
/// reported as an input problem naming the method, and every other method is still analysed.
#[test]
fn a_panic_in_one_method_is_contained_and_reported() {
    let dir = common::scratch_dir("panic");
    let classes = class_dir(&dir, "classes", &[BUGGY_CLASS, "e2e/lib/Lib.class"]);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_stalecheck"))
        // The per-method rules: the injected panic is in their per-method analysis.
        .args([
            "scan",
            classes.to_str().unwrap(),
            "--format",
            "json",
            "--no-progress",
            "--rules",
            "stale-value,block-local-atomicity",
        ])
        .env("STALECHECK_DEBUG_PANIC", "e2e.Buggy.inc")
        .output()
        .expect("run stalecheck");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!("no JSON on stdout ({e})\nstdout:\n{stdout}\nstderr:\n{stderr}")
    });
    let problems = report["problems"].as_array().expect("problems");
    let panics: Vec<&serde_json::Value> = problems
        .iter()
        .filter(|p| {
            p["reason"]
                .as_str()
                .is_some_and(|r| r.contains("internal error while analysing e2e.Buggy.inc"))
        })
        .collect();
    assert_eq!(
        panics.len(),
        1,
        "expected one problem for the panic, got {problems:?}\nstderr:\n{stderr}"
    );
    assert_eq!(panics[0]["severity"], "error");
    let findings = report["findings"].as_array().expect("findings");
    assert!(
        findings.iter().all(|f| f["class"] != "e2e.Buggy"),
        "the panicking method must contribute nothing: {findings:?}"
    );
    assert!(
        findings
            .iter()
            .any(|f| f["class"] == "e2e.lib.Lib" && f["method"] == "inc"),
        "the other class must still be analysed: {findings:?}"
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "Lib's stale value still fails the run\nstderr:\n{stderr}"
    );
}

/// A synchronized method calling another synchronized method of `this` re-enters its lock: no
/// new block, so quiet. The context-insensitive variant assumes every callee lock is distinct,
/// so the returned value belongs to a block of its own and its use is reported.
#[test]
fn context_insensitive_treats_callee_locks_as_distinct() {
    const REENTRANT: &str = r#"package e2e.ci;

public class Reentrant {
    private int x;

    public synchronized int getX() {
        return x;
    }

    public synchronized void bump() {
        int v = getX();
        x = v + 1; // CI-BLA
    }
}
"#;
    let src = common::scratch_dir("ci-src");
    let out = common::scratch_dir("ci-classes");
    common::compile_sources(&src, &out, "17", &[("e2e/ci/Reentrant.java", REENTRANT)]);
    let (run, report) = scan_json(&[&out], &[]);
    assert!(
        report.findings.is_empty(),
        "re-entry must be quiet by default\n{}",
        run.describe()
    );
    assert_eq!(run.code(), 0, "{}", run.describe());

    let (run, report) = scan_json(&[&out], &["--context-insensitive"]);
    let bla = report.findings_of("block-local-atomicity");
    assert!(
        bla.iter()
            .any(|f| f.method == "bump" && f.line == Some(line_of(REENTRANT, "// CI-BLA"))),
        "expected a block-local-atomicity finding at the use of getX()'s result\n{}",
        run.describe()
    );
    assert!(
        report.findings_of("stale-value").is_empty(),
        "no new region before the use\n{}",
        run.describe()
    );
}

/// A counter whose `inc` reads and writes in two critical sections (marked `// {mark}`), in
/// `package`.
fn counter_source(package: &str, mark: &str) -> String {
    format!(
        r#"package {package};

public class Counter {{
    private int n;

    public synchronized int get() {{
        return n;
    }}

    public synchronized void set(int v) {{
        n = v;
    }}

    public void inc() {{
        int v = get(); // {mark}
        set(v + 1);
    }}
}}
"#
    )
}

/// A library (no `main`) is analysed in open world, and the output says so; a program with a
/// `main` that starts threads is analysed in closed world, where an object no second thread
/// touches is quiet.
#[test]
fn whole_program_mode_is_reported_and_used() {
    let library = counter_source("e2e.world", "OPEN-MC");
    let library = library.as_str();
    const PROGRAM: &str = r#"package e2e.world;

public class Single {
    public static void main(String[] args) {
        Counter c = new Counter();
        c.inc();
    }
}
"#;
    let src = common::scratch_dir("world-src");
    let lib = common::scratch_dir("world-lib");
    common::compile_sources(&src, &lib, "17", &[("e2e/world/Counter.java", library)]);
    let (run, report) = scan_json(&[&lib], &["--rules", "method-consistency"]);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("json");
    let world = json["summary"]["world"].as_str().unwrap_or_default();
    assert!(
        world.starts_with("open world"),
        "no entry point: open world, got {world:?}\n{}",
        run.describe()
    );
    let mc = report.findings_of("method-consistency");
    assert!(
        mc.iter()
            .any(|f| f.method == "inc" && f.line == Some(line_of(library, "// OPEN-MC"))),
        "open world: inc is not atomic against concurrent callers\n{}",
        run.describe()
    );
    assert_eq!(run.code(), 1, "{}", run.describe());

    // The same library used by a single-threaded program: closed world, nothing concurrent.
    let src2 = common::scratch_dir("world-src2");
    let prog = common::scratch_dir("world-prog");
    common::compile_sources(
        &src2,
        &prog,
        "17",
        &[
            ("e2e/world/Counter.java", library),
            ("e2e/world/Single.java", PROGRAM),
        ],
    );
    let (run, report) = scan_json(&[&prog], &["--rules", "method-consistency"]);
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("json");
    let world = json["summary"]["world"].as_str().unwrap_or_default();
    assert!(
        world.starts_with("closed world"),
        "a main: closed world, got {world:?}\n{}",
        run.describe()
    );
    assert!(
        report.findings.is_empty(),
        "one thread: nothing concurrent\n{}",
        run.describe()
    );

    // --open-world overrides the entry point.
    let (run, report) = scan_json(&[&prog], &["--rules", "method-consistency", "--open-world"]);
    assert!(
        !report.findings_of("method-consistency").is_empty(),
        "--open-world\n{}",
        run.describe()
    );
}

/// The world comes from the packaging: a jar whose `Main-Class` starts threads is an
/// application whose only program is that main (another main in it is a tool); a jar whose
/// `Main-Class` starts no thread (a version printer) is a library, like a jar without one;
/// `--world` and `world` in stalecheck.toml override it, and a bad `world` is a located error.
#[test]
fn the_world_comes_from_the_jar_and_can_be_overridden() {
    let counter = counter_source("e2e.jarworld", "LIB-MC");
    let counter = counter.as_str();
    const VERSION: &str = r#"package e2e.jarworld;

public class Version {
    public static void main(String[] args) {
        System.out.println("1.0");
    }
}
"#;
    const SERVER: &str = r#"package e2e.jarworld;

public class Server {
    public static void main(String[] args) {
        Counter c = new Counter();
        for (int i = 0; i < 4; i++) {
            new Thread(c::inc).start();
        }
    }
}
"#;
    let src = common::scratch_dir("jarworld-src");
    let out = common::scratch_dir("jarworld-classes");
    common::compile_sources(
        &src,
        &out,
        "17",
        &[
            ("e2e/jarworld/Counter.java", counter),
            ("e2e/jarworld/Version.java", VERSION),
            ("e2e/jarworld/Server.java", SERVER),
        ],
    );
    let classes = common::class_entries(&out);
    let dir = common::scratch_dir("jarworld-jars");
    let jar_with = |name: &str, main: Option<&str>| {
        let mut entries = Vec::new();
        if let Some(m) = main {
            entries.push((
                "META-INF/MANIFEST.MF".to_string(),
                format!("Manifest-Version: 1.0\r\nMain-Class: {m}\r\n\r\n").into_bytes(),
            ));
        }
        entries.extend(classes.iter().cloned());
        let path = dir.join(name);
        common::write_jar(&path, &entries);
        path
    };
    let world_of = |run: &Run| -> String {
        let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("json");
        json["summary"]["world"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    let mc_at_inc = |report: &Report| {
        report
            .findings_of("method-consistency")
            .iter()
            .any(|f| f.method == "inc" && f.line == Some(line_of(counter, "// LIB-MC")))
    };
    let rules = ["--rules", "method-consistency"];

    // No Main-Class: a library, whatever mains it holds.
    let plain = jar_with("plain.jar", None);
    let (run, report) = scan_json(&[&plain], &rules);
    let world = world_of(&run);
    assert!(
        world.starts_with("open world: a library (auto"),
        "{world}\n{}",
        run.describe()
    );
    assert!(
        mc_at_inc(&report),
        "library: inc against any caller\n{}",
        run.describe()
    );

    // A Main-Class that starts no thread: still a library.
    let tool = jar_with("tool.jar", Some("e2e.jarworld.Version"));
    let (run, report) = scan_json(&[&tool], &rules);
    let world = world_of(&run);
    assert!(
        world.starts_with("open world: a library (auto"),
        "{world}\n{}",
        run.describe()
    );
    assert!(mc_at_inc(&report), "{}", run.describe());

    // A Main-Class that starts threads: an application with that one entry point.
    let app = jar_with("app.jar", Some("e2e.jarworld.Server"));
    let (run, report) = scan_json(&[&app], &rules);
    let world = world_of(&run);
    assert!(
        world.starts_with("closed world: an application (auto")
            && world.contains("e2e.jarworld.Server.main")
            && !world.contains("Version"),
        "{world}\n{}",
        run.describe()
    );
    assert!(
        mc_at_inc(&report),
        "the server's threads run inc\n{}",
        run.describe()
    );

    // --world library overrides the Main-Class.
    let (run, _) = scan_json(
        &[&app],
        &["--rules", "method-consistency", "--world", "library"],
    );
    let world = world_of(&run);
    assert!(
        world.starts_with("open world: a library (asked for"),
        "{world}\n{}",
        run.describe()
    );

    // `world` in stalecheck.toml: a library jar taken as an application has its mains as
    // programs; Version starts no thread, Server does.
    let cfg_dir = common::scratch_dir("jarworld-config");
    std::fs::write(cfg_dir.join("stalecheck.toml"), "world = \"application\"\n").unwrap();
    let mut argv: Vec<std::ffi::OsString> = vec!["scan".into(), plain.clone().into()];
    argv.extend(["--format", "json", "--rules", "method-consistency"].map(Into::into));
    argv.extend(["--config".into(), cfg_dir.join("stalecheck.toml").into()]);
    let run = stalecheck(&argv);
    let world = world_of(&run);
    assert!(
        world.starts_with("closed world: an application (asked for")
            && world.contains("e2e.jarworld.Server.main")
            && world.contains("e2e.jarworld.Version.main"),
        "{world}\n{}",
        run.describe()
    );

    // A bad value: located, with help.
    std::fs::write(cfg_dir.join("stalecheck.toml"), "world = \"applicaton\"\n").unwrap();
    let run = stalecheck(&argv);
    assert_eq!(run.code(), 2, "{}", run.describe());
    assert!(
        run.stderr.contains("`applicaton` is not a world") && run.stderr.contains("library"),
        "{}",
        run.describe()
    );
}

/// A legacy synchronized collection (`Stack`, `Vector`, `Hashtable`) held by a class that takes
/// no lock of its own is no evidence, in a library, that callers share it: a parser's stack of
/// open elements is the state of one parse. The same collection in a class that synchronizes
/// is shared by its callers, a static one is every caller's, and in a program whose threads
/// share the holder it is reported whatever the holder does.
#[test]
fn a_legacy_collection_of_a_class_that_takes_no_lock_is_not_shared_by_a_librarys_callers() {
    const PARSE: &str = r#"package e2e.legacy;

import java.util.Stack;

/** The open elements of one parse: a Stack out of habit, not for threads. */
public class ParseContext {
    private final Stack<Object> open = new Stack<>();

    public void push(Object o) {
        open.push(o);
    }

    public void close(Object expected) {
        if (open.peek() == expected) {
            open.pop(); // QUIET-LEGACY
        }
    }
}
"#;
    const SHARED: &str = r#"package e2e.legacy;

import java.util.Stack;

/** A holder that synchronizes: its callers share it, and its stack with it. */
public class SharedContext {
    private final Stack<Object> open = new Stack<>();
    private int depth;

    public synchronized int depth() {
        return depth;
    }

    public void push(Object o) {
        open.push(o);
    }

    public void close(Object expected) {
        if (open.peek() == expected) {
            open.pop(); // SHARED-LEGACY
        }
    }
}
"#;
    const TYPES: &str = r#"package e2e.legacy;

import java.util.Hashtable;

/** One table for the whole process: every caller shares it, whatever this class does. */
public class Types {
    private static final Hashtable<String, Object> KNOWN = new Hashtable<>();

    static Object intern(String name) {
        Object known = KNOWN.get(name);
        if (known == null) {
            known = new Object();
            KNOWN.put(name, known); // STATIC-LEGACY
        }
        return known;
    }
}
"#;
    const INTERPRETER: &str = r#"package e2e.legacy;

/** Runs parses for its callers (it synchronizes: an entry of the open world); each parse has a
 * context of its own. */
public class Interpreter {
    private int runs;

    public synchronized int runs() {
        return runs;
    }

    public void element(ParseContext context, Object o) {
        context.push(o);
        context.close(o);
        Types.intern(o.toString());
    }
}
"#;
    const THREADS: &str = r#"package e2e.legacy;

public class Parsers {
    public static void main(String[] args) {
        ParseContext shared = new ParseContext();
        for (int i = 0; i < 2; i++) {
            new Thread(() -> {
                shared.push("a");
                shared.close("a");
            }).start();
        }
    }
}
"#;
    let src = common::scratch_dir("legacy-src");
    let lib = common::scratch_dir("legacy-lib");
    common::compile_sources(
        &src,
        &lib,
        "17",
        &[
            ("e2e/legacy/ParseContext.java", PARSE),
            ("e2e/legacy/SharedContext.java", SHARED),
            ("e2e/legacy/Interpreter.java", INTERPRETER),
            ("e2e/legacy/Types.java", TYPES),
        ],
    );
    let (run, report) = scan_json(&[&lib], &[]);
    let csv = report.findings_of("causal-stale-value");
    let at = |class: &str, line: u32| {
        csv.iter()
            .any(|f| f.class == class && f.method == "close" && f.line == Some(line))
    };
    let json: serde_json::Value = serde_json::from_str(&run.stdout).expect("json");
    let world = json["summary"]["world"].as_str().unwrap_or_default();
    assert!(
        world.starts_with("open world"),
        "{world}\n{}",
        run.describe()
    );
    assert!(
        !csv.iter().any(|f| f.class == "e2e.legacy.ParseContext"),
        "a library's parse context, reached from an entry, is no shared object\n{}",
        run.describe()
    );
    assert!(
        at(
            "e2e.legacy.SharedContext",
            line_of(SHARED, "// SHARED-LEGACY")
        ),
        "a class that synchronizes shares its stack with its callers\n{}",
        run.describe()
    );
    assert!(
        csv.iter().any(|f| f.class == "e2e.legacy.Types"
            && f.method == "intern"
            && f.line == Some(line_of(TYPES, "// STATIC-LEGACY"))),
        "a static table is every caller's\n{}",
        run.describe()
    );

    // A program whose two threads share one parse context: reported.
    let src2 = common::scratch_dir("legacy-src2");
    let prog = common::scratch_dir("legacy-prog");
    common::compile_sources(
        &src2,
        &prog,
        "17",
        &[
            ("e2e/legacy/ParseContext.java", PARSE),
            ("e2e/legacy/Parsers.java", THREADS),
        ],
    );
    let (run, report) = scan_json(&[&prog], &[]);
    assert!(
        report.findings_of("causal-stale-value").iter().any(|f| {
            f.class == "e2e.legacy.ParseContext"
                && f.method == "close"
                && f.line == Some(line_of(PARSE, "// QUIET-LEGACY"))
        }),
        "two threads share the context: its stack is shared\n{}",
        run.describe()
    );
}

/// The same knowledge for `method-consistency`, where the legacy collection's own code is in
/// the program (the JDK on the classpath): a `Vector` held by a class that takes no lock is the
/// state of one caller in a library, so its two calls are no split sections, and no other
/// caller's view writes it. Held by a class that synchronizes, or shared by a program's two
/// threads, the size check and the add are still two sections.
#[test]
fn a_legacy_collection_the_callers_do_not_share_splits_no_method() {
    let Some(jmods) = common::jdk_jmods() else {
        println!("skipped: no jmods directory in the JDK (install openjdk-17-jdk-headless)");
        return;
    };
    let base = jmods.join("java.base.jmod");
    const NAMES: &str = r#"package e2e.legacymc;

import java.util.Vector;

/** A bounded list of names: a Vector out of habit; the class takes no lock. */
public class Names {
    private final Vector<String> names = new Vector<>();

    public void add(String a) {
        if (names.size() < 10) { // QUIET-NAMES
            names.add(a);
        }
    }
}
"#;
    const REGISTRY: &str = r#"package e2e.legacymc;

import java.util.Vector;

/** The same list in a class that synchronizes: its callers share it. */
public class Registry {
    private final Vector<String> names = new Vector<>();
    private int added;

    public synchronized int added() {
        return added;
    }

    public void add(String a) {
        if (names.size() < 10) { // SHARED-REGISTRY
            names.add(a);
        }
    }

    public void record(Names to, String a) {
        to.add(a);
    }
}
"#;
    const PROGRAM: &str = r#"package e2e.legacymc;

public class Loaders {
    public static void main(String[] args) {
        Names shared = new Names();
        for (int i = 0; i < 2; i++) {
            new Thread(() -> shared.add("a")).start();
        }
    }
}
"#;
    let src = common::scratch_dir("legacymc-src");
    let lib = common::scratch_dir("legacymc-lib");
    common::compile_sources(
        &src,
        &lib,
        "17",
        &[
            ("e2e/legacymc/Names.java", NAMES),
            ("e2e/legacymc/Registry.java", REGISTRY),
        ],
    );
    let cp = base.to_string_lossy().to_string();
    let args = [
        "--rules",
        "method-consistency",
        "--world",
        "library",
        "--classpath",
        cp.as_str(),
    ];
    let (run, report) = scan_json(&[&lib], &args);
    let mc = report.findings_of("method-consistency");
    assert!(
        !mc.iter().any(|f| f.class == "e2e.legacymc.Names"),
        "a library's Vector in a class that takes no lock is one caller's\n{}",
        run.describe()
    );
    assert!(
        mc.iter().any(|f| f.class == "e2e.legacymc.Registry"
            && f.method == "add"
            && f.line == Some(line_of(REGISTRY, "// SHARED-REGISTRY"))),
        "a class that synchronizes shares its Vector with its callers\n{}",
        run.describe()
    );

    // A program whose two threads share one list: reported.
    let src2 = common::scratch_dir("legacymc-src2");
    let prog = common::scratch_dir("legacymc-prog");
    common::compile_sources(
        &src2,
        &prog,
        "17",
        &[
            ("e2e/legacymc/Names.java", NAMES),
            ("e2e/legacymc/Loaders.java", PROGRAM),
        ],
    );
    let (run, report) = scan_json(
        &[&prog],
        &["--rules", "method-consistency", "--classpath", cp.as_str()],
    );
    assert!(
        report
            .findings_of("method-consistency")
            .iter()
            .any(|f| f.class == "e2e.legacymc.Names"
                && f.line == Some(line_of(NAMES, "// QUIET-NAMES"))),
        "two threads share the list: its size check and add are two sections\n{}",
        run.describe()
    );
}

/// In a library, method-consistency is sure of a split only where the method and the concurrent
/// writer are operations of the class whose fields they touch: its unknown callers share its
/// objects. A client in another class that calls two synchronized methods of an object it got
/// from elsewhere splits them only if that object is shared with the writer, which the library
/// does not say: a note (evidence `other-class`). The same client in an application whose
/// threads share the object is a warning.
#[test]
fn a_library_split_is_a_warning_in_its_own_class_and_a_note_in_a_client() {
    const ACCOUNT: &str = r#"package e2e.ownmc;

/** A balance guarded by the account's monitor. */
public class Account {
    private int balance;

    public synchronized int balance() {
        return balance;
    }

    public synchronized void set(int b) {
        balance = b;
    }

    public void deposit(int a) {
        int b = balance(); // OWN-SPLIT
        set(b + a);
    }
}
"#;
    const TELLER: &str = r#"package e2e.ownmc;

/** A client: it gets its accounts from its callers. */
public class Teller {
    private int served;

    public synchronized int served() {
        return served;
    }

    public void pay(Account to, int a) {
        int b = to.balance(); // CLIENT-SPLIT
        to.set(b + a);
    }
}
"#;
    const PROGRAM: &str = r#"package e2e.ownmc;

public class Branch {
    public static void main(String[] args) {
        Account shared = new Account();
        Teller t = new Teller();
        for (int i = 0; i < 2; i++) {
            new Thread(() -> t.pay(shared, 10)).start();
        }
    }
}
"#;
    let src = common::scratch_dir("ownmc-src");
    let lib = common::scratch_dir("ownmc-lib");
    common::compile_sources(
        &src,
        &lib,
        "17",
        &[
            ("e2e/ownmc/Account.java", ACCOUNT),
            ("e2e/ownmc/Teller.java", TELLER),
        ],
    );
    let args = ["--rules", "method-consistency", "--world", "library"];
    let (run, report) = scan_json(&[&lib], &args);
    let mc = report.findings_of("method-consistency");
    let at = |class: &str, line: u32| {
        mc.iter()
            .find(|f| f.class == class && f.line == Some(line))
            .map(|f| (f.level.clone(), f.evidence.clone()))
    };
    assert_eq!(
        at("e2e.ownmc.Account", line_of(ACCOUNT, "// OWN-SPLIT")),
        Some(("warning".to_string(), Some("split-sections".to_string()))),
        "the account's own deposit splits its balance: a warning\n{}",
        run.describe()
    );
    assert_eq!(
        at("e2e.ownmc.Teller", line_of(TELLER, "// CLIENT-SPLIT")),
        Some(("note".to_string(), Some("other-class".to_string()))),
        "a client's split of an account it was handed is a note in a library\n{}",
        run.describe()
    );

    // An application whose two threads share one account through the teller: a warning.
    let src2 = common::scratch_dir("ownmc-src2");
    let prog = common::scratch_dir("ownmc-prog");
    common::compile_sources(
        &src2,
        &prog,
        "17",
        &[
            ("e2e/ownmc/Account.java", ACCOUNT),
            ("e2e/ownmc/Teller.java", TELLER),
            ("e2e/ownmc/Branch.java", PROGRAM),
        ],
    );
    let (run, report) = scan_json(&[&prog], &["--rules", "method-consistency"]);
    assert!(
        report.findings_of("method-consistency").iter().any(|f| {
            f.class == "e2e.ownmc.Teller"
                && f.line == Some(line_of(TELLER, "// CLIENT-SPLIT"))
                && f.level == "warning"
        }),
        "two threads share the account: the teller's split is a warning\n{}",
        run.describe()
    );
}

#[test]
fn a_library_split_only_by_writes_on_other_objects_is_a_note() {
    // The writer is code of the fields' own class, but it writes them only on another object
    // it reaches (a peer held in a field): whether that object is ever the one whose range
    // `span()` reads, the library does not say. Its twin writes its own range: a warning.
    const GAUGE: &str = r#"package e2e.othermc;

/** A range that copies itself to a peer range. */
public class Range {
    private Range peer;
    private int low;
    private int high = 10;

    public synchronized int low() {
        return low;
    }

    public synchronized int high() {
        return high;
    }

    public int span() {
        return high() - low(); // PEER-SPLIT
    }

    public synchronized void link(Range g) {
        peer = g;
    }

    public synchronized void copyToPeer() {
        Range g = peer;
        if (g != null) {
            synchronized (g) {
                g.low = low;
                g.high = high;
            }
        }
    }
}
"#;
    const SETTABLE: &str = r#"package e2e.othermc;

/** A range set as a whole. */
public class SettableRange {
    private int low;
    private int high = 10;

    public synchronized int low() {
        return low;
    }

    public synchronized int high() {
        return high;
    }

    public int span() {
        return high() - low(); // OWN-SPLIT
    }

    public synchronized void set(int l, int h) {
        low = l;
        high = h;
    }
}
"#;
    let src = common::scratch_dir("othermc-src");
    let lib = common::scratch_dir("othermc-lib");
    common::compile_sources(
        &src,
        &lib,
        "17",
        &[
            ("e2e/othermc/Range.java", GAUGE),
            ("e2e/othermc/SettableRange.java", SETTABLE),
        ],
    );
    let args = ["--rules", "method-consistency", "--world", "library"];
    let (run, report) = scan_json(&[&lib], &args);
    let mc = report.findings_of("method-consistency");
    let at = |class: &str, line: u32| {
        mc.iter()
            .find(|f| f.class == class && f.line == Some(line))
            .map(|f| (f.level.clone(), f.evidence.clone()))
    };
    assert_eq!(
        at("e2e.othermc.Range", line_of(GAUGE, "// PEER-SPLIT")),
        Some(("note".to_string(), Some("other-class".to_string()))),
        "a split only by writes on a peer object is a note in a library\n{}",
        run.describe()
    );
    assert_eq!(
        at(
            "e2e.othermc.SettableRange",
            line_of(SETTABLE, "// OWN-SPLIT")
        ),
        Some(("warning".to_string(), Some("split-sections".to_string()))),
        "a split by a writer of the gauge's own range is a warning\n{}",
        run.describe()
    );
}

#[test]
fn a_thread_bodys_own_field_is_no_stale_value_in_a_library() {
    // The value rules' side of the thread body (issue 11's "wrong threads"): a field of a
    // `Thread` subclass that only its run() and the methods only run() calls on `this` read and
    // write is that thread's own, so a look at it is current when a synchronized setter writes
    // it back (`causal-stale-value`, library world: one abstract thread stands for every
    // caller). Twins: a public reset() lets other threads write the field, and a static field
    // is every body's.
    const PEERS: &str = r#"package e2e.bodycsv;

/**
 * A server thread's own state: a peer runs its election loop in its own thread and keeps the
 * leader it made in a field of its own, set through a synchronized setter that only its loop
 * calls.
 */
public final class Peers {
    private Peers() {
    }

    /** The peers a server makes (a class nothing creates has no objects, and no thread). */
    public static Thread[] make() {
        return new Thread[] {new Peer(), new Resettable(), new Shared()};
    }

    static final class Leader {
        void lead() {
        }

        void shutdown() {
        }
    }

    static final class Peer extends Thread {
        private volatile boolean running = true;
        protected Leader leader;

        protected synchronized void setLeader(Leader l) {
            leader = l;
        }

        public void shutdownPeer() {
            running = false;
        }

        // Quiet: only this body sets its own leader.
        @Override
        public void run() {
            while (running) {
                try {
                    setLeader(new Leader());
                    leader.lead();
                } finally {
                    if (leader != null) {
                        leader.shutdown();
                        setLeader(null); // OWN-LEADER
                    }
                }
            }
        }
    }

    static final class Resettable extends Thread {
        private volatile boolean running = true;
        protected Leader leader;

        protected synchronized void setLeader(Leader l) {
            leader = l;
        }

        // Another thread clears the leader.
        public void reset() {
            setLeader(null);
        }

        // Buggy: reset() can clear the leader between the look and the setter.
        @Override
        public void run() {
            while (running) {
                try {
                    setLeader(new Leader());
                } finally {
                    if (leader != null) {
                        leader.shutdown();
                        setLeader(null); // RESET-LEADER
                    }
                }
            }
        }
    }

    static final class Shared extends Thread {
        private volatile boolean running = true;
        protected static Leader leader;

        protected static synchronized void setLeader(Leader l) {
            leader = l;
        }

        // Buggy: every peer's body shares the static leader.
        @Override
        public void run() {
            while (running) {
                try {
                    setLeader(new Leader());
                } finally {
                    if (leader != null) {
                        leader.shutdown();
                        setLeader(null); // SHARED-LEADER
                    }
                }
            }
        }
    }
}
"#;
    let src = common::scratch_dir("bodycsv-src");
    let lib = common::scratch_dir("bodycsv-lib");
    common::compile_sources(&src, &lib, "17", &[("e2e/bodycsv/Peers.java", PEERS)]);
    let args = ["--rules", "causal-stale-value", "--world", "library"];
    let (run, report) = scan_json(&[&lib], &args);
    let csv = report.findings_of("causal-stale-value");
    let at = |class: &str, tag: &str| {
        csv.iter()
            .find(|f| f.class == class && f.line == Some(line_of(PEERS, tag)))
            .map(|f| f.level.clone())
    };
    assert_eq!(
        at("e2e.bodycsv.Peers$Peer", "// OWN-LEADER"),
        None,
        "only the peer's own body writes its leader: quiet\n{}",
        run.describe()
    );
    assert_eq!(
        at("e2e.bodycsv.Peers$Resettable", "// RESET-LEADER"),
        Some("warning".to_string()),
        "reset() lets any caller clear the leader between the look and the setter\n{}",
        run.describe()
    );
    assert_eq!(
        at("e2e.bodycsv.Peers$Shared", "// SHARED-LEADER"),
        Some("warning".to_string()),
        "every body shares the static leader\n{}",
        run.describe()
    );
}

#[test]
fn a_thread_body_is_not_concurrent_with_itself_in_a_library() {
    // A thread runs its body once, on itself: the run() of a Thread subclass is a serial signal
    // of the platform model, so another run() of the same class is no concurrent writer of the
    // fields of its own object (issue 12's wrong threads: a timer's thread, a pool's worker).
    // Twins: a public method other threads call writes the flag between the sections, and a
    // static field that every body shares.
    const BODY: &str = r#"package e2e.body;

import java.util.ArrayDeque;

/**
 * Precision family "wrong-threads": a thread runs its body once, on itself ({@code Thread.start}:
 * "it is never legal to start a thread more than once"). A worker thread takes tasks from its
 * queue while it is open, each look in a critical section of its own, and closes the queue in a
 * last section when its loop ends (the shape of a timer's thread and of a pool's worker). The
 * only writer of {@code open} is that body itself: another worker's body writes its own queue
 * and flag, never this one's, so nothing can run between this body's sections and change them.
 * Quiet for {@code method-consistency}. (Each worker used to count as a concurrent writer of
 * every other worker's fields.)
 *
 * <p>Buggy twins: {@link Reopening}, whose {@code reopen()} is called by other threads and can
 * run between the loop's last look and the body's closing section (the tasks it admits are then
 * cleared unrun); and {@link Counting}, whose bodies count themselves in a static field that all
 * of them share, read in one section and written in another.
 */
public final class ThreadBody {
    private ThreadBody() {
    }

    /** The workers a pool makes (a class nothing creates has no objects, and no thread). */
    public static Thread[] make() {
        return new Thread[] {
            new Worker(), new Reopening(), new Cycling(), new CyclingReopened(), new Counting()
        };
    }

    static final class Worker extends Thread {
        private final Object lock = new Object();
        private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
        private boolean open = true;

        public void submit(Runnable task) {
            synchronized (lock) {
                if (open) {
                    queue.add(task);
                    lock.notifyAll();
                }
            }
        }

        // Quiet: no other thread writes this worker's flag between the loop and the close.
        @Override
        public void run() {
            try {
                loop(); // OWN-BODY
            } finally {
                synchronized (lock) {
                    open = false;
                    queue.clear();
                }
            }
        }

        private void loop() {
            while (true) {
                Runnable next;
                synchronized (lock) {
                    while (queue.isEmpty() && open) {
                        try {
                            lock.wait();
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                    next = queue.poll();
                }
                if (next == null) {
                    return;
                }
                next.run();
            }
        }
    }

    static final class Reopening extends Thread {
        private final Object lock = new Object();
        private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
        private boolean open = true;

        public void submit(Runnable task) {
            synchronized (lock) {
                if (open) {
                    queue.add(task);
                    lock.notifyAll();
                }
            }
        }

        // Another thread reopens the queue: between the loop's last look and the close.
        public void reopen() {
            synchronized (lock) {
                open = true;
            }
        }

        // Buggy: reopen() can run between the loop's last look and the close.
        @Override
        public void run() {
            try {
                loop(); // REOPENED
            } finally {
                synchronized (lock) {
                    open = false;
                    queue.clear();
                }
            }
        }

        private void loop() {
            while (true) {
                Runnable next;
                synchronized (lock) {
                    while (queue.isEmpty() && open) {
                        try {
                            lock.wait();
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                    next = queue.poll();
                }
                if (next == null) {
                    return;
                }
                next.run();
            }
        }
    }

    static final class Cycling extends Thread {
        private final Object lock = new Object();
        private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
        private boolean open = true;

        public void submit(Runnable task) {
            synchronized (lock) {
                if (open) {
                    queue.add(task);
                    lock.notifyAll();
                }
            }
        }

        @Override
        public void run() {
            cycle();
        }

        // Quiet: a helper only this body calls, on itself.
        protected void cycle() {
            try {
                loop(); // OWN-HELPER
            } finally {
                synchronized (lock) {
                    open = false;
                    queue.clear();
                }
            }
        }

        private void loop() {
            while (true) {
                Runnable next;
                synchronized (lock) {
                    while (queue.isEmpty() && open) {
                        try {
                            lock.wait();
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                    next = queue.poll();
                }
                if (next == null) {
                    return;
                }
                next.run();
            }
        }
    }

    static final class CyclingReopened extends Thread {
        private final Object lock = new Object();
        private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
        private boolean open = true;

        public void submit(Runnable task) {
            synchronized (lock) {
                if (open) {
                    queue.add(task);
                    lock.notifyAll();
                }
            }
        }

        // Another thread reopens the queue.
        public void reopen() {
            synchronized (lock) {
                open = true;
            }
        }

        @Override
        public void run() {
            cycle();
        }

        // Buggy: reopen() can run between the helper's loop and its close.
        protected void cycle() {
            try {
                loop(); // HELPER-REOPENED
            } finally {
                synchronized (lock) {
                    open = false;
                    queue.clear();
                }
            }
        }

        private void loop() {
            while (true) {
                Runnable next;
                synchronized (lock) {
                    while (queue.isEmpty() && open) {
                        try {
                            lock.wait();
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                    next = queue.poll();
                }
                if (next == null) {
                    return;
                }
                next.run();
            }
        }
    }

    static final class Counting extends Thread {
        private static final Object LOCK = new Object();
        private static int started;

        // Buggy: every body shares the static count; two of them lose an increment.
        @Override
        public void run() {
            int seen;
            synchronized (LOCK) {
                seen = started; // SHARED-COUNT
            }
            synchronized (LOCK) {
                started = seen + 1;
            }
        }
    }
}
"#;
    let src = common::scratch_dir("body-src");
    let lib = common::scratch_dir("body-lib");
    common::compile_sources(&src, &lib, "17", &[("e2e/body/ThreadBody.java", BODY)]);
    let args = ["--rules", "method-consistency", "--world", "library"];
    let (run, report) = scan_json(&[&lib], &args);
    let mc = report.findings_of("method-consistency");
    let at = |class: &str, tag: &str| {
        mc.iter()
            .find(|f| f.class == class && f.line == Some(line_of(BODY, tag)))
            .map(|f| f.level.clone())
    };
    assert_eq!(
        at("e2e.body.ThreadBody$Worker", "// OWN-BODY"),
        None,
        "only the worker's own body writes its flag: quiet\n{}",
        run.describe()
    );
    assert_eq!(
        at("e2e.body.ThreadBody$Reopening", "// REOPENED"),
        Some("warning".to_string()),
        "reopen() can run between the loop and the close: a warning\n{}",
        run.describe()
    );
    assert_eq!(
        at("e2e.body.ThreadBody$Counting", "// SHARED-COUNT"),
        Some("warning".to_string()),
        "every body shares the static count: a warning\n{}",
        run.describe()
    );
    // The same in a helper only the body calls on itself (`threads::body_owned`).
    assert_eq!(
        at("e2e.body.ThreadBody$Cycling", "// OWN-HELPER"),
        None,
        "a helper only the body runs on its own object: quiet\n{}",
        run.describe()
    );
    assert_eq!(
        at("e2e.body.ThreadBody$CyclingReopened", "// HELPER-REOPENED"),
        Some("warning".to_string()),
        "reopen() can run between the helper's loop and its close: a warning\n{}",
        run.describe()
    );
}

#[test]
fn java_8_synthetic_accessors_read_like_direct_field_accesses() {
    // Before nestmates (Java 11), an inner class reaches its outer class's private fields
    // through static `access$NNN` methods. Compiled for Java 8 and for Java 17, the same
    // source gives the same findings: the worker that claims the queue under the lock and
    // remembers it in a flag stays quiet, the one that acts on a look from an earlier critical
    // section is reported.
    const SEQ: &str = r#"package e2e.access;

import java.util.ArrayDeque;

public class Sequential {
    enum State { IDLE, QUEUED, RUNNING }

    private final ArrayDeque<Runnable> queue = new ArrayDeque<>();
    private State state = State.IDLE;
    private long runs;

    public void execute(Runnable r) {
        synchronized (queue) {
            queue.add(r);
            if (state == State.RUNNING || state == State.QUEUED) {
                return;
            }
            state = State.QUEUED;
        }
        new Thread(new Worker()).start();
        new Thread(new Starter()).start();
    }

    final class Worker implements Runnable {
        public void run() {
            boolean claimed = false;
            while (true) {
                Runnable task;
                synchronized (queue) {
                    if (!claimed) {
                        if (state == State.RUNNING) {
                            return;
                        }
                        runs++;
                        state = State.RUNNING;
                        claimed = true;
                    }
                    task = queue.poll();
                    if (task == null) {
                        state = State.IDLE; // QUIET-CLAIMED
                        return;
                    }
                }
                task.run();
            }
        }
    }

    final class Starter implements Runnable {
        public void run() {
            boolean idle;
            synchronized (queue) {
                idle = state == State.IDLE;
            }
            if (idle) {
                synchronized (queue) {
                    state = State.RUNNING; // TWIN-STALE
                }
            }
        }
    }

    public static void main(String[] args) {
        Sequential s = new Sequential();
        for (int i = 0; i < 2; i++) {
            new Thread(() -> s.execute(() -> { })).start();
        }
    }
}
"#;
    let mut seen = Vec::new();
    for release in ["8", "17"] {
        let src = common::scratch_dir(&format!("access-src-{release}"));
        let out = common::scratch_dir(&format!("access-out-{release}"));
        common::compile_sources(&src, &out, release, &[("e2e/access/Sequential.java", SEQ)]);
        if release == "8" {
            let inner = out.join("e2e/access/Sequential.class");
            let bytes = std::fs::read(&inner).expect("outer class");
            assert!(
                bytes.windows(7).any(|w| w == b"access$"),
                "javac --release 8 makes accessors"
            );
        }
        let (run, report) = scan_json(&[&out], &["--rules", "causal-stale-value"]);
        let csv: Vec<(String, Option<u32>)> = report
            .findings_of("causal-stale-value")
            .iter()
            .map(|f| (f.class.clone(), f.line))
            .collect();
        assert!(
            !csv.contains(&(
                "e2e.access.Sequential$Worker".to_string(),
                Some(line_of(SEQ, "// QUIET-CLAIMED"))
            )),
            "release {release}: the claimed worker is quiet\n{}",
            run.describe()
        );
        assert!(
            csv.contains(&(
                "e2e.access.Sequential$Starter".to_string(),
                Some(line_of(SEQ, "// TWIN-STALE"))
            )),
            "release {release}: the stale look is reported\n{}",
            run.describe()
        );
        seen.push(csv);
    }
    assert_eq!(
        seen[0], seen[1],
        "Java 8 and Java 17 give the same findings"
    );
}

/// `method-consistency` gives one result for one pair of sections, even when the method sees
/// them through the fields of several classes: an inherited method that refreshes under its
/// lock and then reads the subclass's cache by dispatch is not atomic once, whichever provider
/// it runs on; the result names the other class's fields too.
#[test]
fn one_pair_of_sections_seen_through_two_classes_is_one_result() {
    const PROVIDER: &str = r#"package e2e.onecause;

/** Device infos cached by each kind of provider; the list is refreshed under the lock. */
public abstract class Provider {
    private Object[] devices = new Object[0];

    protected abstract Object[] cache();

    protected abstract void setCache(Object[] infos);

    synchronized void refresh() {
        Object[] found = new Object[devices.length + 1];
        setCache(found);
        devices = found;
    }

    public Object[] infos() {
        refresh(); // ONE-CAUSE
        return cache();
    }
}
"#;
    let kind = |k: &str| {
        format!(
            "package e2e.onecause;\n\npublic class {k}Provider extends Provider {{\n    \
             private Object[] cache;\n\n    @Override\n    protected Object[] cache() {{\n        \
             return cache;\n    }}\n\n    @Override\n    protected void setCache(Object[] infos) \
             {{\n        cache = infos;\n    }}\n}}\n"
        )
    };
    let (inp, outp) = (kind("In"), kind("Out"));
    let src = common::scratch_dir("onecause-src");
    let classes = common::scratch_dir("onecause-classes");
    common::compile_sources(
        &src,
        &classes,
        "17",
        &[
            ("e2e/onecause/Provider.java", PROVIDER),
            ("e2e/onecause/InProvider.java", &inp),
            ("e2e/onecause/OutProvider.java", &outp),
        ],
    );
    let (run, report) = scan_json(&[&classes], &["--rules", "method-consistency"]);
    let mc = report.findings_of("method-consistency");
    let line = line_of(PROVIDER, "// ONE-CAUSE");
    let at: Vec<_> = mc
        .iter()
        .filter(|f| f.method == "infos" && f.line == Some(line))
        .collect();
    assert_eq!(at.len(), 1, "one result\n{}", run.describe());
    assert!(
        at[0].message.contains("InProvider") && at[0].message.contains("OutProvider"),
        "the result names both classes' fields: {}",
        at[0].message
    );
}

/// A class whose every object is an object of a confined subclass is confined too: a private
/// base that holds the cursor of a table's key and value iterators is never created on its own,
/// and each of its subclasses is an iterator, which one thread uses at a time. In a library its
/// `hasNext()` (a public method of a class that synchronizes, so an entry of the open world)
/// tests the cursor outside the bucket's lock and moves it inside: quiet. Its twin, the same
/// loop in a base that a task shared through a field of the table extends, is still reported by
/// both rules.
#[test]
fn a_base_class_whose_subclasses_are_all_iterators_holds_no_shared_state() {
    const TABLE: &str = r#"package e2e.confined;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

public final class Table {
    static final class Node {
        final Object key;
        Node next;

        Node(Object key) {
            this.key = key;
        }
    }

    private final Node[] buckets = new Node[16];
    private final Object[] locks = new Object[16];
    private final SweepTask sweeper = new SweepTask();

    public Table() {
        for (int i = 0; i < locks.length; i++) {
            locks[i] = new Object();
        }
    }

    public void put(Object key) {
        int b = (key.hashCode() & 0x7fffffff) % buckets.length;
        synchronized (locks[b]) {
            Node n = new Node(key);
            n.next = buckets[b];
            buckets[b] = n;
        }
    }

    public Iterator<Object> keys() {
        return new Keys();
    }

    public Iterator<Object> values() {
        return new Values();
    }

    public boolean sweep() {
        return sweeper.hasNext();
    }

    private class Cursor {
        final List<Node> current = new ArrayList<>();
        private int bucket;

        public boolean hasNext() {
            while (bucket < buckets.length) { // QUIET-CURSOR
                synchronized (locks[bucket]) {
                    for (Node n = buckets[bucket]; n != null; n = n.next) {
                        current.add(n);
                    }
                    bucket++; // QUIET-CURSOR-WRITE
                    if (!current.isEmpty()) {
                        return true;
                    }
                }
            }
            return false;
        }
    }

    private final class Keys extends Cursor implements Iterator<Object> {
        @Override
        public Object next() {
            return current.remove(current.size() - 1).key;
        }
    }

    private final class Values extends Cursor implements Iterator<Object> {
        @Override
        public Object next() {
            return current.remove(current.size() - 1);
        }
    }

    private class Sweep {
        final List<Node> current = new ArrayList<>();
        private int bucket;

        public boolean hasNext() {
            while (bucket < buckets.length) { // SHARED-SWEEP
                synchronized (locks[bucket]) {
                    for (Node n = buckets[bucket]; n != null; n = n.next) {
                        current.add(n);
                    }
                    bucket++; // SHARED-SWEEP-WRITE
                    if (!current.isEmpty()) {
                        return true;
                    }
                }
            }
            return false;
        }
    }

    private final class SweepTask extends Sweep implements Runnable {
        @Override
        public void run() {
            hasNext();
        }
    }
}
"#;
    let (run, report) = scan_library(
        "confined-base",
        "e2e/confined/Table.java",
        TABLE,
        &["--rules", "all"],
    );
    let at = |rule: &str, class: &str| {
        report
            .findings_of(rule)
            .iter()
            .filter(|f| f.class == class && f.method == "hasNext")
            .filter_map(|f| f.line)
            .collect::<Vec<u32>>()
    };
    for rule in ["causal-stale-value", "method-consistency"] {
        assert!(
            at(rule, "e2e.confined.Table$Cursor").is_empty(),
            "{rule}: the cursor of an iterator's base is the iterating thread's own\n{}",
            run.describe()
        );
    }
    assert!(
        at("causal-stale-value", "e2e.confined.Table$Sweep")
            .contains(&line_of(TABLE, "// SHARED-SWEEP-WRITE")),
        "a cursor in a base a shared task extends is shared\n{}",
        run.describe()
    );
    assert!(
        at("method-consistency", "e2e.confined.Table$Sweep")
            .contains(&line_of(TABLE, "// SHARED-SWEEP")),
        "a cursor in a base a shared task extends is shared\n{}",
        run.describe()
    );
}

#[test]
fn locks_taken_two_ways_and_stamped_locks_hold_their_regions_in_a_library() {
    const STORE: &str = r#"package e2e.locks;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.StampedLock;

public final class PageStore {
    private final ConcurrentHashMap<Integer, Object> pages = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Integer, Object> slots = new ConcurrentHashMap<>();
    private final Lock lock = new ReentrantLock();
    private final Lock spare = new ReentrantLock();
    private final StampedLock stamped = new StampedLock();

    public void add(Object p) {
        lock.lock();
        try {
            pages.put(pages.size(), p);
        } finally {
            lock.unlock();
        }
    }

    public int release(boolean thief) {
        if (thief) {
            if (!lock.tryLock()) {
                return 0;
            }
        } else {
            lock.lock();
        }
        try {
            int n = 0;
            for (int i = pages.size() - 1; i > 0; i--) {
                pages.remove(i); // QUIET-JOINED
                n++;
            }
            return n;
        } finally {
            lock.unlock();
        }
    }

    public int releaseEither(boolean thief) {
        Lock held = thief ? spare : lock;
        if (thief) {
            spare.lock();
        } else {
            lock.lock();
        }
        try {
            int n = 0;
            for (int i = pages.size() - 1; i > 0; i--) {
                pages.remove(i); // BUGGY-EITHER
                n++;
            }
            return n;
        } finally {
            held.unlock();
        }
    }

    public void append(Object p) {
        long s = stamped.writeLock();
        try {
            slots.put(slots.size(), p); // QUIET-STAMPED-APPEND
        } finally {
            stamped.unlockWrite(s);
        }
    }

    public boolean trim() {
        long s = stamped.tryWriteLock();
        if (s == 0L) {
            return false;
        }
        try {
            int n = slots.size();
            if (n > 0) {
                slots.remove(n - 1); // QUIET-STAMPED
            }
            return true;
        } finally {
            stamped.unlock(s);
        }
    }

    public void trimUnchecked() {
        long s = stamped.tryWriteLock();
        try {
            int n = slots.size();
            if (n > 0) {
                slots.remove(n - 1); // BUGGY-UNCHECKED
            }
        } finally {
            if (s != 0L) {
                stamped.unlockWrite(s);
            }
        }
    }
}
"#;
    let (run, report) = scan_library(
        "joined-locks",
        "e2e/locks/PageStore.java",
        STORE,
        &["--rules", "causal-stale-value"],
    );
    let lines = finding_lines(&report, "causal-stale-value", "e2e.locks.PageStore");
    for quiet in [
        "// QUIET-JOINED",
        "// QUIET-STAMPED-APPEND",
        "// QUIET-STAMPED",
    ] {
        assert!(
            !lines.contains(&line_of(STORE, quiet)),
            "{quiet}: the count and the removal are in one critical section\n{}",
            run.describe()
        );
    }
    for buggy in ["// BUGGY-EITHER", "// BUGGY-UNCHECKED"] {
        assert!(
            lines.contains(&line_of(STORE, buggy)),
            "{buggy}: no one lock is held around the count and the removal\n{}",
            run.describe()
        );
    }
}

#[test]
fn a_look_taken_again_after_a_wait_is_read_in_the_critical_section_the_wait_took_up_again() {
    const QUEUE: &str = r#"package e2e.await;

import java.util.Collection;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

public final class SizedQueue {
    static final class Item {
        final String name;
        final int size;

        Item(String name, int size) {
            this.name = name;
            this.size = size;
        }
    }

    private final Lock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    private final Queue<Item> items = new ConcurrentLinkedQueue<>();
    private int bytes;
    private boolean closed;

    public void add(String name, int size) {
        lock.lock();
        try {
            items.add(new Item(name, size));
            bytes += size;
            notEmpty.signalAll();
        } finally {
            lock.unlock();
        }
    }

    public int drainTo(Collection<String> out, int max) {
        int taken = 0;
        Item head;
        lock.lock();
        try {
            while (!closed && ((head = items.peek()) != null || taken == 0)) {
                if (head != null) {
                    if (taken + head.size > max) {
                        break;
                    }
                    items.poll();
                    bytes -= head.size; // QUIET-LOOKED-AGAIN
                    taken += head.size;
                    out.add(head.name);
                } else {
                    try {
                        notEmpty.await();
                    } catch (InterruptedException e) {
                        break;
                    }
                }
            }
            return taken;
        } finally {
            lock.unlock();
        }
    }

    public int behindHead() throws InterruptedException {
        lock.lock();
        try {
            Item head = items.peek();
            while (bytes < 16 && !closed) {
                notEmpty.await();
            }
            int first = head == null ? 0 : head.size;
            return bytes - first; // BUGGY-BEFORE-THE-WAIT
        } finally {
            lock.unlock();
        }
    }
}
"#;
    let (run, report) = scan_library(
        "await-loop",
        "e2e/await/SizedQueue.java",
        QUEUE,
        &["--rules", "high-level-data-race"],
    );
    let lines = finding_lines(&report, "high-level-data-race", "e2e.await.SizedQueue");
    // The head is looked at again at the top of each iteration, after the wait took the lock up
    // again: the look and the byte count are from one critical section.
    assert!(
        !lines.contains(&line_of(QUEUE, "// QUIET-LOOKED-AGAIN")),
        "the head and the byte count are read in one critical section\n{}",
        run.describe()
    );
    // A look taken before the wait, combined with a count read after it: two sections.
    assert!(
        lines.contains(&line_of(QUEUE, "// BUGGY-BEFORE-THE-WAIT")),
        "the head was looked at before the wait gave the lock up\n{}",
        run.describe()
    );
}

#[test]
fn a_plain_collection_under_a_lock_is_shared_by_the_threads_a_program_starts() {
    const REGISTRY: &str = r#"package e2e.contents;

import java.util.HashMap;
import java.util.Map;

public final class Registry {
    private final Map<String, Object> entries = new HashMap<>();
    private final java.util.List<String> names = new java.util.ArrayList<>();

    public synchronized int size() {
        return names.size();
    }

    public synchronized String get(int i) {
        return names.get(i);
    }

    public synchronized void clear() {
        names.clear();
    }

    public String last() {
        int n = size();
        return n > 0 ? get(n - 1) : null; // SIZE-BEFORE
    }

    public Object register(String name) {
        Object e;
        synchronized (this) {
            e = entries.get(name);
        }
        if (e == null) {
            e = new Object();
            synchronized (this) {
                entries.put(name, e); // CHECKED-BEFORE
            }
        }
        return e;
    }
}
"#;
    const APP: &str = r#"package e2e.contents;

public final class App {
    public static void main(String[] args) {
        Registry r = new Registry();
        for (int i = 0; i < 2; i++) {
            new Thread(() -> r.register("x")).start();
            new Thread(r::clear).start();
            new Thread(r::last).start();
        }
    }
}
"#;
    let lines = [
        line_of(REGISTRY, "// CHECKED-BEFORE"),
        line_of(REGISTRY, "// SIZE-BEFORE"),
    ];
    let reported = |with_app: bool| {
        let name = if with_app { "app" } else { "lib" };
        let src = common::scratch_dir(&format!("contents-{name}-src"));
        let out = common::scratch_dir(&format!("contents-{name}-out"));
        let mut files = vec![("e2e/contents/Registry.java", REGISTRY)];
        if with_app {
            files.push(("e2e/contents/App.java", APP));
        }
        common::compile_sources(&src, &out, "17", &files);
        let (run, report) = scan_json(&[&out], &["--rules", "causal-stale-value"]);
        let hits = lines.map(|line| {
            (report.findings_of("causal-stale-value").iter())
                .any(|f| f.class == "e2e.contents.Registry" && f.line == Some(line))
        });
        (hits, run.describe())
    };
    // A library: nothing says its callers share the registry.
    let (hits, describe) = reported(false);
    assert_eq!(
        hits,
        [false, false],
        "a library's plain collections are its callers' own\n{describe}"
    );
    // An application whose threads share one registry: the miss decides the put, and the size
    // decides the read by index through the registry's own synchronized methods.
    let (hits, describe) = reported(true);
    assert_eq!(
        hits,
        [true, true],
        "two started threads share the registry\n{describe}"
    );
}

#[test]
fn a_lock_held_on_the_object_a_call_is_made_on_is_the_callees_own() {
    const FEED: &str = r#"package e2e.handed;

import java.util.Deque;
import java.util.concurrent.ConcurrentLinkedDeque;

public final class Feeds {
    public static class Feed {
        private final Deque<String> queue = new ConcurrentLinkedDeque<>();
        private int sent;

        public void send(String s) {
            queue.add(s);
        }

        public synchronized void flush() {
            fill();
        }

        private void fill() {
            if (!queue.isEmpty()) {
                sent += queue.poll().length(); // QUIET-OUTER-HELD
            }
        }

        public synchronized void close() {
            queue.clear();
        }

        public Runnable listener() {
            return new Listener();
        }

        final class Listener implements Runnable {
            @Override
            public void run() {
                synchronized (Feed.this) {
                    fill();
                }
            }
        }
    }

    public static class LooseFeed {
        private final Deque<String> queue = new ConcurrentLinkedDeque<>();
        private int sent;

        public void send(String s) {
            queue.add(s);
        }

        public synchronized void flush() {
            fill();
        }

        private void fill() {
            if (!queue.isEmpty()) {
                sent += queue.poll().length(); // BUGGY-OWN-MONITOR
            }
        }

        public synchronized void close() {
            queue.clear();
        }

        public Runnable listener() {
            return new Listener();
        }

        final class Listener implements Runnable {
            @Override
            public void run() {
                synchronized (this) {
                    fill();
                }
            }
        }
    }
}
"#;
    let (run, report) = scan_library(
        "handed-lock",
        "e2e/handed/Feeds.java",
        FEED,
        &["--rules", "causal-stale-value"],
    );
    // The listener, an inner class, locks the feed it calls `fill()` on: that is the monitor the
    // feed's own synchronized methods hold, so every taker of the queue holds it.
    let quiet = finding_lines(&report, "causal-stale-value", "e2e.handed.Feeds$Feed");
    assert!(
        !quiet.contains(&line_of(FEED, "// QUIET-OUTER-HELD")),
        "every caller of fill() holds the feed's monitor\n{}",
        run.describe()
    );
    // Its twin's listener locks itself: two takers can both see the last element.
    let buggy = finding_lines(&report, "causal-stale-value", "e2e.handed.Feeds$LooseFeed");
    assert!(
        buggy.contains(&line_of(FEED, "// BUGGY-OWN-MONITOR")),
        "the listener holds its own monitor, not the feed's\n{}",
        run.describe()
    );
}

/// Kotlin compiles an `internal` member public, with the module's name appended to its own
/// (`record$e2e`): only the module's code calls it, so in open world it is no entry of the
/// library's unknown callers. Here nobody in the module records, so no thread writes between
/// the two looks of `Meter.mean()`; its twin's `record` is public, and any caller can.
#[test]
fn a_kotlin_internal_method_is_no_entry_of_the_open_world() {
    const METADATA: &str = r#"package kotlin;

import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;

/** What Kotlin marks its classes with (the real one carries the declarations' metadata). */
@Retention(RetentionPolicy.RUNTIME)
public @interface Metadata {
}
"#;
    const METERS: &str = r#"package e2e.kt;

public final class Meters {
    /** As Kotlin compiles it: `internal fun record(v: Long)`, public with the module's name. */
    @kotlin.Metadata
    public static final class Meter {
        private long count;
        private long total;

        public synchronized long count() {
            return count;
        }

        public synchronized long total() {
            return total;
        }

        public double mean() {
            long c = count(); // QUIET-INTERNAL
            long t = total();
            return c == 0 ? 0 : (double) t / c;
        }

        public synchronized void record$e2e(long v) {
            count++;
            total += v;
        }
    }

    /** The same, its recording public: any caller can record between the two looks. */
    @kotlin.Metadata
    public static final class LooseMeter {
        private long count;
        private long total;

        public synchronized long count() {
            return count;
        }

        public synchronized long total() {
            return total;
        }

        public double mean() {
            long c = count(); // BUGGY-PUBLIC
            long t = total();
            return c == 0 ? 0 : (double) t / c;
        }

        public synchronized void record(long v) {
            count++;
            total += v;
        }
    }
}
"#;
    let (run, report) = scan_library_of(
        "kotlin-internal",
        &[
            ("kotlin/Metadata.java", METADATA),
            ("e2e/kt/Meters.java", METERS),
        ],
        &[],
    );
    for rule in ["method-consistency", "high-level-data-race"] {
        let quiet = finding_lines(&report, rule, "e2e.kt.Meters$Meter");
        assert!(
            quiet.is_empty(),
            "{rule}: only the module calls record$e2e, and it does not\n{}",
            run.describe()
        );
        let buggy = finding_lines(&report, rule, "e2e.kt.Meters$LooseMeter");
        assert!(
            !buggy.is_empty(),
            "{rule}: any caller can record between the looks\n{}",
            run.describe()
        );
    }
    let mc = finding_lines(&report, "method-consistency", "e2e.kt.Meters$LooseMeter");
    assert!(
        mc.contains(&line_of(METERS, "// BUGGY-PUBLIC")),
        "{mc:?}\n{}",
        run.describe()
    );
}

/// A package-private thread class that nothing creates has no objects, so its `run()` is no
/// entry of the open world (dispatch to what exists); the same class created by a public
/// method is one, and its split look is still reported.
#[test]
fn a_class_nothing_creates_is_no_entry_of_the_open_world() {
    const PEER: &str = r#"package e2e.dead;

public class Peer {
    private long epoch;
    private long leader;

    public synchronized long epoch() {
        return epoch;
    }

    public synchronized long leader() {
        return leader;
    }

    public synchronized void elect(long e, long l) {
        epoch = e;
        leader = l;
    }

    volatile long reply;

    /** Left over from an older protocol: nothing creates it. */
    class Responder extends Thread {
        @Override
        public void run() {
            long e;
            synchronized (Peer.this) {
                e = epoch; // QUIET-DEAD
            }
            long l = leader();
            reply = e * 31 + l;
        }
    }

    /** The same reply, made and started by a public method. */
    class Announcer extends Thread {
        @Override
        public void run() {
            long e;
            synchronized (Peer.this) {
                e = epoch; // BUGGY-LIVE
            }
            long l = leader();
            reply = e * 31 + l;
        }
    }

    public void announce() {
        new Announcer().start();
    }
}
"#;
    let (run, report) = scan_library(
        "dead-class",
        "e2e/dead/Peer.java",
        PEER,
        &["--rules", "method-consistency"],
    );
    let quiet = finding_lines(&report, "method-consistency", "e2e.dead.Peer$Responder");
    assert!(
        quiet.is_empty(),
        "nothing creates a Responder, so its run() never runs: {quiet:?}\n{}",
        run.describe()
    );
    let buggy = finding_lines(&report, "method-consistency", "e2e.dead.Peer$Announcer");
    assert!(
        buggy.contains(&line_of(PEER, "// BUGGY-LIVE")),
        "an election can come between the two looks: {buggy:?}\n{}",
        run.describe()
    );
}

/// A library's drain loop that waits on a condition while its thread-safe queue is empty: the
/// wait releases the lock, and the loop condition carries the last round's look at the queue
/// (through the bytes drained so far), but each round looks at the queue again after the wait.
/// What the round combines (the element it takes, the count it lowers) is read in one hold of
/// the lock: no high-level data race. The twin divides the head's size, found after the wait,
/// by a count read before it: two holds, while `add` updates both in one.
#[test]
fn a_loop_that_waits_looks_at_its_queue_again_each_round() {
    const SIZED: &str = r#"package e2e.waits;

import java.util.Collection;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

public class Sized<T> {
    static final class El<T> {
        final T item;
        final int size;
        El(T item, int size) { this.item = item; this.size = size; }
    }

    private final Queue<El<T>> queue = new ConcurrentLinkedQueue<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    private int count;

    public void add(T item, int size) {
        lock.lock();
        try {
            queue.add(new El<>(item, size));
            count += size;
            notEmpty.signalAll();
        } finally {
            lock.unlock();
        }
    }

    public int drain(Collection<T> into) throws InterruptedException {
        int bytes = 0;
        lock.lock();
        try {
            while (bytes == 0) {
                El<T> el = queue.peek();
                if (el != null) {
                    el = queue.poll();
                    count -= el.size; // QUIET
                    bytes += el.size;
                    into.add(el.item);
                } else {
                    notEmpty.await();
                }
            }
            return bytes;
        } finally {
            lock.unlock();
        }
    }

    public double headShare() throws InterruptedException {
        lock.lock();
        try {
            int total = count;
            while (queue.isEmpty()) {
                notEmpty.await();
            }
            El<T> el = queue.peek();
            return (double) el.size / total; // BUGGY
        } finally {
            lock.unlock();
        }
    }
}
"#;
    let (run, report) = scan_library(
        "wait-loop",
        "e2e/waits/Sized.java",
        SIZED,
        &["--rules", "high-level-data-race"],
    );
    let lines = finding_lines(&report, "high-level-data-race", "e2e.waits.Sized");
    assert!(
        !lines.contains(&line_of(SIZED, "// QUIET")),
        "each round takes and counts in one hold of the lock: {lines:?}\n{}",
        run.describe()
    );
    assert!(
        lines.contains(&line_of(SIZED, "// BUGGY")),
        "the count is read before the wait, the head after it: {lines:?}\n{}",
        run.describe()
    );
}

/// A getter's unlocked look deciding an act (`if (!e.hasLeader()) e.claim(me)`) is a note in a
/// library, whose unknown callers may each have an object of their own, and a warning in a
/// program whose threads share the object: the same code, scanned both ways.
#[test]
fn a_getters_look_is_a_note_in_a_library_and_a_warning_in_a_program() {
    const ELECTION: &str = r#"package e2e.getter;

public class Election {
    private volatile String leader;

    public boolean hasLeader() {
        return leader != null;
    }

    public synchronized void claim(String node) {
        leader = node;
    }

    public synchronized void resign(String node) {
        if (node.equals(leader)) {
            leader = null;
        }
    }

    public void lead(String me) {
        if (!hasLeader()) {
            claim(me); // GETTER-LOOK
        }
    }
}
"#;
    const NODES: &str = r#"package e2e.getter;

public class Nodes {
    public static void main(String[] args) {
        Election e = new Election();
        for (int i = 0; i < 2; i++) {
            String me = "node" + i;
            new Thread(() -> {
                e.lead(me);
                e.resign(me);
            }).start();
        }
    }
}
"#;
    let line = line_of(ELECTION, "// GETTER-LOOK");
    let level_at = |report: &common::Report| -> Vec<String> {
        (report.findings_of("causal-stale-value").iter())
            .filter(|f| f.method == "lead" && f.line == Some(line))
            .map(|f| f.level.clone())
            .collect()
    };
    let src = common::scratch_dir("getter-src");
    let lib = common::scratch_dir("getter-lib");
    common::compile_sources(&src, &lib, "17", &[("e2e/getter/Election.java", ELECTION)]);
    let (run, report) = scan_json(&[&lib], &[]);
    assert_eq!(
        level_at(&report),
        vec!["note"],
        "library\n{}",
        run.describe()
    );

    let src2 = common::scratch_dir("getter-src2");
    let prog = common::scratch_dir("getter-prog");
    common::compile_sources(
        &src2,
        &prog,
        "17",
        &[
            ("e2e/getter/Election.java", ELECTION),
            ("e2e/getter/Nodes.java", NODES),
        ],
    );
    let (run, report) = scan_json(&[&prog], &[]);
    assert_eq!(
        level_at(&report),
        vec!["warning"],
        "program\n{}",
        run.describe()
    );
}
