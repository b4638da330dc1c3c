//! Java 21 threads: the whole-program fixtures rewritten from `new Thread(r)` to the Java 21
//! ways of starting a thread (`Thread.ofVirtual().start(r)`, `Thread.startVirtualThread(r)`,
//! named builders, `Thread.ofPlatform()`, thread factories) give the same findings as the
//! originals, both compiled by the same javac with `--release 21`.
//!
//! Needs a JDK 21 or newer: looked for in the JVM directory (`/usr/lib/jvm`, or the directory
//! named by `STALECHECK_JVM_DIR`) beside the JDK 17 the other tests use. Without one the test
//! prints why and passes without checking (a fresh machine may only have JDK 17).

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::Report;

/// The `javac` of the newest JDK (21 or newer) in the JVM directory, and its feature version.
fn javac_21_or_newer() -> Option<(PathBuf, u32)> {
    let dir = std::env::var_os("STALECHECK_JVM_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/lib/jvm"));
    let mut best: Option<(PathBuf, u32)> = None;
    for entry in fs::read_dir(&dir).ok()?.flatten() {
        let javac = entry.path().join("bin").join("javac");
        if !javac.is_file() {
            continue;
        }
        let Some(version) = javac_version(&javac) else {
            continue;
        };
        if version >= 21 && best.as_ref().is_none_or(|(_, v)| version > *v) {
            best = Some((javac, version));
        }
    }
    best
}

/// The feature version `javac -version` prints (`javac 25.0.1` → 25).
fn javac_version(javac: &Path) -> Option<u32> {
    let out = Command::new(javac).arg("-version").output().ok()?;
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let version = text.split_whitespace().nth(1)?;
    version.split(['.', '-', '+']).next()?.parse().ok()
}

fn compile(javac: &Path, src: &Path, out: &Path) {
    let sources = common::files_with_ext(src, "java");
    fs::create_dir_all(out).unwrap();
    let output = Command::new(javac)
        .args(["-g", "--release", "21", "-encoding", "UTF-8", "-d"])
        .arg(out)
        .args(&sources)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", javac.display()));
    assert!(
        output.status.success(),
        "javac --release 21 failed on {}:\n{}{}",
        src.display(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// One way of writing a thread start in Java 21: what `new Thread(ARGS).start()` and an
/// unstarted `new Thread(ARGS)` become (`{}` is the task, `{name}` the thread name if given).
struct Style {
    label: &'static str,
    started: &'static str,
    unstarted: &'static str,
}

const STYLES: &[Style] = &[
    Style {
        label: "Thread.ofVirtual().start",
        started: "Thread.ofVirtual(){name}.start({})",
        unstarted: "Thread.ofVirtual(){name}.unstarted({})",
    },
    Style {
        label: "Thread.startVirtualThread / factory",
        started: "Thread.startVirtualThread({})",
        unstarted: "Thread.ofVirtual(){name}.factory().newThread({})",
    },
    Style {
        label: "named virtual builder",
        started: "Thread.ofVirtual().name(\"v\").start({})",
        unstarted: "Thread.ofVirtual().name(\"v\", 0).unstarted({})",
    },
    Style {
        label: "Thread.ofPlatform()",
        started: "Thread.ofPlatform(){name}.start({})",
        unstarted: "Thread.ofPlatform(){name}.unstarted({})",
    },
];

/// The index of the parenthesis closing the one opened just before `from`, skipping string and
/// char literals.
/// The index of the quote that closes the string or character literal opening at `at`.
fn end_of_literal(bytes: &[u8], at: usize) -> usize {
    let quote = bytes[at];
    let mut i = at + 1;
    while i < bytes.len() && bytes[i] != quote {
        i += if bytes[i] == b'\\' { 2 } else { 1 };
    }
    i
}

fn closing_paren(text: &str, from: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut depth = 1;
    let mut i = from;
    while i < bytes.len() {
        match bytes[i] {
            b'"' | b'\'' => i = end_of_literal(bytes, i),
            b'(' | b'{' | b'[' => depth += 1,
            b')' | b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return (bytes[i] == b')').then_some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Splits `args` at its top-level commas.
fn top_level_args(args: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    let bytes = args.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' | b'\'' => i = end_of_literal(bytes, i),
            b'(' | b'{' | b'[' => depth += 1,
            b')' | b'}' | b']' => depth -= 1,
            b',' if depth == 0 => {
                out.push(&args[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    out.push(&args[start..]);
    out
}

/// `source` with every `new Thread(task)` and `new Thread(task, name)` written in `style`; line
/// breaks are kept, so findings keep their lines. Returns the text and how many were rewritten.
fn rewrite(source: &str, style: &Style) -> (String, usize) {
    let mut out = String::new();
    let mut rest = source;
    let mut count = 0;
    while let Some(at) = rest.find("new Thread(") {
        let open = at + "new Thread(".len();
        let Some(close) = closing_paren(rest, open) else {
            break;
        };
        let args = top_level_args(&rest[open..close]);
        let after = &rest[close + 1..];
        let subclass = after.trim_start().starts_with('{');
        let (task, name) = match args.as_slice() {
            [task] if !task.trim().is_empty() => (*task, None),
            [task, name] => (*task, Some(name.trim())),
            _ => ("", None),
        };
        if task.is_empty() || subclass {
            out.push_str(&rest[..open]);
            rest = &rest[open..];
            continue;
        }
        let started = after.starts_with(".start()");
        let template = if started {
            style.started
        } else {
            style.unstarted
        };
        let name = name.map(|n| format!(".name({n})")).unwrap_or_default();
        let call = template.replace("{name}", &name).replace("{}", task);
        out.push_str(&rest[..at]);
        out.push_str(&call);
        rest = if started {
            &after[".start()".len()..]
        } else {
            after
        };
        count += 1;
    }
    out.push_str(rest);
    (out, count)
}

/// Copies `fixtures/src` to `dest`, rewriting the thread starts in `style`; returns how many
/// were rewritten.
fn rewritten_tree(dest: &Path, style: Option<&Style>) -> usize {
    let src = common::fixtures_src();
    let mut total = 0;
    for file in common::files_with_ext(&src, "java") {
        let rel = file.strip_prefix(&src).unwrap();
        let text = fs::read_to_string(&file).unwrap();
        let text = match style {
            Some(style) => {
                let (text, count) = rewrite(&text, style);
                total += count;
                text
            }
            None => text,
        };
        let target = dest.join(rel);
        fs::create_dir_all(target.parent().unwrap()).unwrap();
        fs::write(target, text).unwrap();
    }
    total
}

/// The findings of a scan, keyed by what must not change: rule, class, method, line, age;
/// with how many there are of each.
fn findings(classes: &Path) -> BTreeMap<String, usize> {
    let run = common::stalecheck([
        "scan".as_ref(),
        classes.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
        "--rules".as_ref(),
        "all".as_ref(),
        "--no-progress".as_ref(),
    ]);
    assert!(
        matches!(run.code, Some(0) | Some(1)),
        "scanning {} must exit 0 or 1\n{}",
        classes.display(),
        run.describe()
    );
    let report: Report = run.report();
    let mut out = BTreeMap::new();
    for f in &report.findings {
        let key = format!(
            "{} {}.{}{} line {:?} age {:?}",
            f.rule, f.class, f.method, f.descriptor, f.line, f.age
        );
        *out.entry(key).or_default() += 1;
    }
    out
}

#[test]
fn rewriting_avoids_subclasses_and_keeps_lines() {
    let style = &STYLES[0];
    let source =
        "a(new Thread(() -> {\n  x(1, 2);\n}).start());\nThread t = new Thread(r, \"n\");\n\
                  new Thread() { public void run() {} }.start();\nnew Thread(g, r) {};";
    let (text, count) = rewrite(source, style);
    assert_eq!(count, 2);
    assert_eq!(
        text,
        "a(Thread.ofVirtual().start(() -> {\n  x(1, 2);\n}));\nThread t = Thread.ofVirtual().name(\"n\").unstarted(r);\n\
         new Thread() { public void run() {} }.start();\nnew Thread(g, r) {};"
    );
    assert_eq!(text.lines().count(), source.lines().count());
}

#[test]
fn virtual_thread_fixtures_give_the_same_findings_as_platform_threads() {
    let Some((javac, version)) = javac_21_or_newer() else {
        println!(
            "SKIPPED virtual_thread_fixtures_give_the_same_findings_as_platform_threads: no JDK 21 \
             or newer found in the JVM directory (/usr/lib/jvm, or STALECHECK_JVM_DIR); the Java 21 \
             fixtures need its javac --release 21"
        );
        return;
    };
    println!(
        "compiling with {} (JDK {version}) --release 21",
        javac.display()
    );
    let root = common::scratch_dir("java21");
    let original_src = root.join("platform/src");
    rewritten_tree(&original_src, None);
    let original = root.join("platform/classes");
    compile(&javac, &original_src, &original);
    let want = findings(&original);
    assert!(
        want.keys().any(|k| k.starts_with("high-level-data-race"))
            && want.keys().any(|k| k.starts_with("method-consistency")),
        "the platform-thread fixtures must give whole-program findings: {want:#?}"
    );

    let mut failures = Vec::new();
    for (i, style) in STYLES.iter().enumerate() {
        let src = root.join(format!("style{i}/src"));
        let rewritten = rewritten_tree(&src, Some(style));
        assert!(
            rewritten >= 30,
            "{}: only {rewritten} thread starts rewritten",
            style.label
        );
        let classes = root.join(format!("style{i}/classes"));
        compile(&javac, &src, &classes);
        let got = findings(&classes);
        if got != want {
            let lost: Vec<&String> = want
                .keys()
                .filter(|k| got.get(*k) != want.get(*k))
                .collect();
            let gained: Vec<&String> = got.keys().filter(|k| got.get(*k) != want.get(*k)).collect();
            failures.push(format!(
                "{} ({rewritten} starts rewritten): differs from new Thread(..)\n  \
                 missing or changed: {lost:#?}\n  new or changed: {gained:#?}",
                style.label
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A counter whose `inc` reads and writes in two regions, run by two tasks started by `START`.
const TASKS: &str = r#"package j21;

import java.util.concurrent.*;

public class Tasks {
    static final class Counter {
        private int x;

        synchronized int get() {
            return x;
        }

        synchronized void set(int v) {
            x = v;
        }

        void inc() {
            int t = get();
            set(t + 1);
        }
    }

    public static void main(String[] args) throws Exception {
        Counter c = new Counter();
        START
    }
}
"#;

/// Compiles `TASKS` with `start` in place of `START` and returns its findings.
fn task_findings(
    javac: &Path,
    root: &Path,
    label: &str,
    start: &str,
    extra: &[&str],
) -> BTreeMap<String, usize> {
    let src = root.join(label).join("src");
    let file = src.join("j21/Tasks.java");
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    fs::write(&file, TASKS.replace("START", start)).unwrap();
    let out = root.join(label).join("classes");
    fs::create_dir_all(&out).unwrap();
    let output = Command::new(javac)
        .args(["-g", "-encoding", "UTF-8"])
        .args(extra)
        .arg("-d")
        .arg(&out)
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "javac failed on {label}:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    findings(&out)
}

/// Executors of virtual threads and structured task scopes hand their tasks to threads as the
/// platform-thread versions do.
#[test]
fn virtual_thread_executors_and_task_scopes_give_the_same_findings() {
    let Some((javac, version)) = javac_21_or_newer() else {
        println!(
            "SKIPPED virtual_thread_executors_and_task_scopes_give_the_same_findings: no JDK 21 \
             or newer found in the JVM directory (/usr/lib/jvm, or STALECHECK_JVM_DIR)"
        );
        return;
    };
    let root = common::scratch_dir("java21-tasks");
    let release = ["--release", "21"];
    let task = "() -> c.inc()";
    let two_threads = format!("new Thread({task}).start();\n        new Thread({task}).start();");
    let want = task_findings(&javac, &root, "threads", &two_threads, &release);
    assert!(
        want.keys()
            .any(|k| k.starts_with("method-consistency j21.Tasks$Counter.inc")),
        "the platform version must give its whole-program finding: {want:#?}"
    );
    let pool = |executor: &str| {
        format!(
            "ExecutorService e = {executor};\n        e.submit({task});\n        e.submit({task});"
        )
    };
    let pooled = task_findings(
        &javac,
        &root,
        "cached",
        &pool("Executors.newCachedThreadPool()"),
        &release,
    );
    assert!(!pooled.is_empty(), "the pooled version has findings");
    for (label, executor) in [
        (
            "virtual-executor",
            "Executors.newVirtualThreadPerTaskExecutor()",
        ),
        (
            "factory-executor",
            "Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name(\"w\", 0).factory())",
        ),
    ] {
        let got = task_findings(&javac, &root, label, &pool(executor), &release);
        assert_eq!(got, pooled, "{label}: {executor}");
    }
    // StructuredTaskScope is a preview API whose shape changes from release to release (a
    // class with `new ShutdownOnFailure()` in 21, an interface with `open()` in 25): checked in
    // the shape of JDK 25, with that JDK only.
    if version == 25 {
        let scope = format!(
            "try (var scope = StructuredTaskScope.open()) {{\n            scope.fork({task});\n            \
             scope.fork({task});\n            scope.join();\n        }}"
        );
        let got = task_findings(
            &javac,
            &root,
            "scope",
            &scope,
            &["--release", "25", "--enable-preview"],
        );
        assert_eq!(got, want, "StructuredTaskScope.fork");
    } else {
        println!(
            "SKIPPED the StructuredTaskScope variant: it is written for JDK 25's preview API, \
             and the JDK found is {version}"
        );
    }
}
