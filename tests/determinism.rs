//! Output is deterministic: the same input gives the same bytes with any number of worker
//! threads. Each scan runs all rules (closed and open world) once with `RAYON_NUM_THREADS=1`
//! and once with the default pool (and once with 3 workers, more than this machine's cores, so
//! the work is split differently), and the JSON and SARIF outputs are compared byte for byte.
//! Also: the progress display goes to stderr only, never into the outputs, and `--quiet` and
//! `--no-progress` silence it.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{fixture_classes, scratch_dir};

/// Scans `inputs` with `threads` workers (None: rayon's default) into `out` (`format`).
fn scan(inputs: &[PathBuf], extra: &[&str], format: &str, threads: Option<&str>, out: &Path) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_stalecheck"));
    cmd.args([
        "scan",
        "--rules",
        "all",
        "--no-progress",
        "--lenient",
        "--format",
        format,
    ])
    .arg("--output")
    .arg(out)
    .args(extra)
    .arg("--")
    .args(inputs)
    // The working directory has no stalecheck.toml above it that could change the scan.
    .current_dir(out.parent().expect("output has a directory"))
    .env_remove("RAYON_NUM_THREADS");
    if let Some(n) = threads {
        cmd.env("RAYON_NUM_THREADS", n);
    }
    let o = cmd.output().expect("run stalecheck");
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "scan failed ({:?}): {}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
}

fn check_same(label: &str, inputs: &[PathBuf], extra: &[&str]) {
    let dir = scratch_dir(&format!("determinism-{label}"));
    for format in ["json", "sarif"] {
        let mut outputs = Vec::new();
        // One output path for every run: SARIF records the command line.
        let out = dir.join(format!("out.{format}"));
        for threads in [Some("1"), None, Some("3")] {
            scan(inputs, extra, format, threads, &out);
            let bytes = std::fs::read(&out).expect("read output");
            std::fs::write(
                dir.join(format!("{format}-{}.out", threads.unwrap_or("default"))),
                &bytes,
            )
            .expect("keep output");
            outputs.push((threads, bytes));
        }
        let (_, first) = &outputs[0];
        assert!(!first.is_empty(), "{label}: the {format} output is empty");
        for (threads, bytes) in &outputs[1..] {
            assert!(
                bytes == first,
                "{label} ({format}): the output with RAYON_NUM_THREADS={} differs from the one \
                 with 1 worker (see {})",
                threads.unwrap_or("unset"),
                dir.display()
            );
        }
    }
}

#[test]
fn fixtures_give_the_same_bytes_with_any_number_of_threads() {
    let inputs = vec![fixture_classes().to_path_buf()];
    check_same("fixtures-closed", &inputs, &[]);
    check_same("fixtures-open", &inputs, &["--open-world"]);
}

/// A few of the JDK's modules (a `main` that starts threads, executors, locks), where the
/// whole-program phase has hundreds of nodes to split between workers.
#[test]
fn jdk_modules_give_the_same_bytes_with_any_number_of_threads() {
    let Some(jmods) = common::jdk_jmods() else {
        println!("skipped: no jmods directory in the JDK (install openjdk-17-jdk-headless)");
        return;
    };
    let inputs: Vec<PathBuf> = ["java.logging", "java.prefs", "jdk.jstatd", "jdk.httpserver"]
        .iter()
        .map(|m| jmods.join(format!("{m}.jmod")))
        .filter(|p| p.is_file())
        .collect();
    assert!(
        !inputs.is_empty(),
        "none of the modules is in {}",
        jmods.display()
    );
    check_same("jdk-closed", &inputs, &[]);
    check_same("jdk-open", &inputs, &["--open-world"]);
}

/// Runs a scan of the fixtures into `out` with stderr captured (not a terminal: the plain
/// lines of the progress display), the plain lines due at every event
/// (`STALECHECK_PROGRESS_INTERVAL_MS=0`); returns stderr.
fn scan_with_progress(flags: &[&str], out: &Path) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_stalecheck"))
        .args(["scan", "--rules", "all", "--format", "json", "--output"])
        .arg(out)
        .args(flags)
        .arg(fixture_classes())
        .current_dir(out.parent().expect("output has a directory"))
        .env("STALECHECK_PROGRESS_INTERVAL_MS", "0")
        .output()
        .expect("run stalecheck");
    assert!(matches!(o.status.code(), Some(0 | 1)), "{o:?}");
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn progress_goes_to_stderr_only_and_can_be_silenced() {
    let dir = scratch_dir("progress");
    let shown = dir.join("shown.json");
    let stderr = scan_with_progress(&[], &shown);
    for phase in [
        "parsing",
        "analysing",
        "threads and views",
        "high-level-data-race",
    ] {
        assert!(
            stderr
                .lines()
                .any(|l| l.starts_with(&format!("stalecheck: progress: {phase}"))),
            "no plain progress line for {phase}:\n{stderr}"
        );
    }
    // Plain lines (not a terminal): no carriage return, no escape sequence.
    assert!(
        !stderr.contains('\r') && !stderr.contains('\x1b'),
        "{stderr:?}"
    );
    let quiet = dir.join("quiet.json");
    let stderr_quiet = scan_with_progress(&["--quiet"], &quiet);
    assert!(
        !stderr_quiet.contains("progress") && !stderr_quiet.contains("finding(s)"),
        "--quiet printed: {stderr_quiet}"
    );
    let off = dir.join("off.json");
    let stderr_off = scan_with_progress(&["--no-progress"], &off);
    assert!(!stderr_off.contains("progress:"), "{stderr_off}");
    assert!(
        stderr_off.contains("finding(s)"),
        "the summary line stays: {stderr_off}"
    );
    let bytes = std::fs::read(&shown).expect("read output");
    assert!(!bytes.windows(9).any(|w| w == b"progress:"));
    assert_eq!(bytes, std::fs::read(&quiet).expect("read output"));
    assert_eq!(bytes, std::fs::read(&off).expect("read output"));
}
