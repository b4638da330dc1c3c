//! The summary cache (`--cache DIR`), end to end: a module (the fixtures, and a small program
//! whose findings depend on a dependency's summaries) scanned with a classpath of real archives
//! (a jar compiled here, and the JDK's jmods when the JDK has them) twice with one cache
//! directory gives the same JSON and SARIF bytes, and the same findings as a scan without the
//! cache; a damaged entry is ignored and rebuilt; two scans at once share a directory; the size
//! bound evicts.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{class_entries, compile_sources, fixture_classes, scratch_dir, write_jar};

/// The library the module depends on: its synchronized methods make the module's
/// check-then-act a finding (the summaries of a dependency decide it).
const LIB: &str = r#"package lib;
public class Store {
    private final java.util.Map<String, String> map = new java.util.HashMap<>();
    public synchronized String get(String k) { return map.get(k); }
    public synchronized void put(String k, String v) { map.put(k, v); }
}
"#;

const APP: &str = r#"package app;
public class Names {
    private final lib.Store store = new lib.Store();
    public void remember(String k, String v) {
        if (store.get(k) == null) {
            store.put(k, v);
        }
    }
}
"#;

/// The scanned inputs and the classpath archives, built once per test.
struct Module {
    inputs: Vec<PathBuf>,
    classpath: Vec<PathBuf>,
}

fn module(dir: &Path) -> Module {
    let lib_classes = dir.join("lib-classes");
    compile_sources(
        &dir.join("lib-src"),
        &lib_classes,
        "17",
        &[("lib/Store.java", LIB)],
    );
    let lib_jar = dir.join("store.jar");
    write_jar(&lib_jar, &class_entries(&lib_classes));
    let app_classes = dir.join("app-classes");
    std::fs::create_dir_all(&app_classes).expect("app classes dir");
    let out = Command::new(common::javac())
        .args(["-g", "--release", "17", "-cp"])
        .arg(&lib_classes)
        .arg("-d")
        .arg(&app_classes)
        .arg({
            let src = dir.join("app-src/app/Names.java");
            std::fs::create_dir_all(src.parent().expect("parent")).expect("app src dir");
            std::fs::write(&src, APP).expect("write app source");
            src
        })
        .output()
        .expect("run javac");
    assert!(
        out.status.success(),
        "javac: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut classpath = vec![lib_jar];
    match common::jdk_jmods() {
        Some(jmods) => classpath.extend(
            ["java.logging", "java.prefs", "jdk.httpserver", "java.xml"]
                .iter()
                .map(|m| jmods.join(format!("{m}.jmod")))
                .filter(|p| p.is_file()),
        ),
        None => println!("note: no jmods directory in the JDK; the classpath is one jar"),
    }
    Module {
        inputs: vec![fixture_classes().to_path_buf(), app_classes],
        classpath,
    }
}

/// Runs a scan of `m` with all rules in `cwd` (outputs `out.json` and `out.sarif` there), with
/// `cache_args`; returns the process output (stderr has the cache's timing line).
fn command(m: &Module, cwd: &Path, cache_args: &[&str], format: &str) -> Command {
    let cp = std::env::join_paths(&m.classpath).expect("classpath");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_stalecheck"));
    cmd.current_dir(cwd)
        .args([
            "scan",
            "--rules",
            "all",
            "--no-progress",
            "--lenient",
            "--format",
            format,
        ])
        .args(["--output", &format!("out.{format}")])
        .arg("--classpath")
        .arg(cp)
        .args(cache_args)
        .arg("--")
        .args(&m.inputs)
        .env("STALECHECK_TIMINGS", "1")
        .env_remove("RAYON_NUM_THREADS");
    cmd
}

fn check_ran(o: &Output) {
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "scan failed ({:?}): {}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Scans in both formats; returns (json bytes, sarif bytes, hits of the json run, stderr).
fn scan(m: &Module, cwd: &Path, cache_args: &[&str]) -> (Vec<u8>, Vec<u8>, usize, String) {
    let mut stderr = String::new();
    let mut hits = 0;
    let mut outs = Vec::new();
    for format in ["json", "sarif"] {
        let o = command(m, cwd, cache_args, format)
            .output()
            .expect("run stalecheck");
        check_ran(&o);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        if format == "json" {
            hits = cache_hits(&err);
            stderr = err;
        }
        outs.push(std::fs::read(cwd.join(format!("out.{format}"))).expect("read output"));
    }
    let sarif = outs.pop().expect("sarif");
    let json = outs.pop().expect("json");
    (json, sarif, hits, stderr)
}

/// The hits on the `timings: cache: N hits, ...` line.
fn cache_hits(stderr: &str) -> usize {
    let line = stderr
        .lines()
        .find_map(|l| l.strip_prefix("timings: cache: "))
        .unwrap_or_else(|| panic!("no cache timing line in:\n{stderr}"));
    line.split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .expect("hits")
}

fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|e| e == "entry"));
    v.sort();
    v
}

/// The SARIF log without the invocation's command line (the one thing `--no-cache` changes).
fn without_command_line(sarif: &[u8]) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_slice(sarif).expect("SARIF is JSON");
    for run in v["runs"].as_array_mut().expect("runs") {
        for inv in run["invocations"].as_array_mut().into_iter().flatten() {
            if let Some(o) = inv.as_object_mut() {
                o.remove("commandLine");
                o.remove("arguments");
            }
        }
    }
    v
}

#[test]
fn a_warm_scan_gives_the_same_bytes_as_a_cold_one_and_as_no_cache() {
    let dir = scratch_dir("cache-same");
    let m = module(&dir);
    let cache = dir.join("cache");
    let cache_arg = cache.to_str().expect("utf-8 path");
    let args = ["--cache", cache_arg];

    let (json1, sarif1, hits1, _) = scan(&m, &dir, &args);
    assert_eq!(hits1, 0, "the first scan starts with an empty cache");
    let stored = entries(&cache);
    assert_eq!(
        stored.len(),
        m.classpath.len(),
        "one entry per classpath archive: {stored:?}"
    );
    let report: serde_json::Value = serde_json::from_slice(&json1).expect("json");
    assert!(
        report["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .any(|f| f["class"] == "app.Names"),
        "the module's check-then-act on the dependency is found: {}",
        String::from_utf8_lossy(&json1)
    );

    let (json2, sarif2, hits2, _) = scan(&m, &dir, &args);
    assert_eq!(
        hits2,
        m.classpath.len(),
        "the second scan reads every archive from the cache"
    );
    assert!(
        json1 == json2,
        "the JSON differs between the cold and the warm scan"
    );
    assert!(
        sarif1 == sarif2,
        "the SARIF differs between the cold and the warm scan"
    );

    let (json3, sarif3, hits3, _) = scan(&m, &dir, &["--no-cache"]);
    assert_eq!(hits3, 0);
    assert!(
        json1 == json3,
        "the JSON differs between the cached and the uncached scan"
    );
    assert_eq!(without_command_line(&sarif1), without_command_line(&sarif3));
    assert_eq!(entries(&cache), stored, "--no-cache writes nothing");
}

#[test]
fn a_damaged_entry_is_ignored_and_rebuilt() {
    let dir = scratch_dir("cache-corrupt");
    let m = module(&dir);
    let cache = dir.join("cache");
    let args = ["--cache", cache.to_str().expect("utf-8 path")];
    let (json1, sarif1, _, _) = scan(&m, &dir, &args);
    let stored = entries(&cache);
    let sizes: Vec<u64> = stored
        .iter()
        .map(|p| std::fs::metadata(p).expect("entry").len())
        .collect();
    // One entry cut short, one with a byte changed in the middle, one overwritten with junk.
    let cut = &stored[0];
    let bytes = std::fs::read(cut).expect("read entry");
    std::fs::write(cut, &bytes[..bytes.len() / 2]).expect("truncate");
    if let Some(flip) = stored.get(1) {
        let mut bytes = std::fs::read(flip).expect("read entry");
        let mid = bytes.len() / 2;
        bytes[mid] ^= 0x55;
        std::fs::write(flip, &bytes).expect("flip");
    }
    if let Some(junk) = stored.get(2) {
        std::fs::write(junk, b"not an entry at all").expect("overwrite");
    }

    let (json2, sarif2, hits2, stderr) = scan(&m, &dir, &args);
    let damaged = stored.len().min(3);
    assert_eq!(hits2, stored.len() - damaged, "damaged entries are misses");
    assert!(
        stderr.matches("; rebuilt").count() >= damaged,
        "each damaged entry is noted: {stderr}"
    );
    assert!(
        json1 == json2,
        "the JSON differs after rebuilding damaged entries"
    );
    assert!(
        sarif1 == sarif2,
        "the SARIF differs after rebuilding damaged entries"
    );
    let rebuilt: Vec<u64> = entries(&cache)
        .iter()
        .map(|p| std::fs::metadata(p).expect("entry").len())
        .collect();
    assert_eq!(
        rebuilt, sizes,
        "the damaged entries were written again, whole"
    );
    let (json3, _, hits3, _) = scan(&m, &dir, &args);
    assert_eq!(hits3, stored.len(), "the rebuilt entries are hits");
    assert!(json1 == json3);
}

#[test]
fn two_scans_at_once_share_one_cache() {
    let dir = scratch_dir("cache-shared");
    let m = module(&dir);
    let cache = dir.join("cache");
    let args = ["--cache", cache.to_str().expect("utf-8 path")];
    // The same command line in two working directories, both starting with an empty cache.
    let (a, b) = (dir.join("a"), dir.join("b"));
    for d in [&a, &b] {
        std::fs::create_dir_all(d).expect("work dir");
    }
    let mut concurrent = Vec::new();
    for format in ["json", "sarif"] {
        let first = command(&m, &a, &args, format)
            .spawn()
            .expect("start scan a");
        let second = command(&m, &b, &args, format)
            .spawn()
            .expect("start scan b");
        check_ran(&first.wait_with_output().expect("scan a"));
        check_ran(&second.wait_with_output().expect("scan b"));
        let out_a = std::fs::read(a.join(format!("out.{format}"))).expect("output a");
        let out_b = std::fs::read(b.join(format!("out.{format}"))).expect("output b");
        assert!(!out_a.is_empty());
        if format == "json" {
            assert!(out_a == out_b, "two scans sharing the cache differ");
        }
        concurrent.push((out_a, out_b));
    }
    // Each is the same as a scan alone in its directory (SARIF names the working directory).
    for (d, pick) in [(&a, 0), (&b, 1)] {
        let (json, sarif, hits, _) = scan(&m, d, &args);
        assert_eq!(hits, m.classpath.len());
        let (cj, cs) = (&concurrent[0], &concurrent[1]);
        let (cj, cs) = if pick == 0 {
            (&cj.0, &cs.0)
        } else {
            (&cj.1, &cs.1)
        };
        assert!(
            &json == cj,
            "a concurrent scan's JSON differs from a scan alone"
        );
        assert!(
            &sarif == cs,
            "a concurrent scan's SARIF differs from a scan alone"
        );
    }
    assert_eq!(entries(&cache).len(), m.classpath.len());
    let leftovers: Vec<_> = std::fs::read_dir(&cache)
        .expect("cache dir")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
}

#[test]
fn the_size_bound_evicts_least_recently_used_entries() {
    let dir = scratch_dir("cache-bound");
    let m = module(&dir);
    if m.classpath.len() < 3 {
        println!("skipped: needs the JDK's jmods for entries larger than the bound");
        return;
    }
    let cache = dir.join("cache");
    let unbounded = ["--cache", cache.to_str().expect("utf-8 path")];
    let (json1, _, _, _) = scan(&m, &dir, &unbounded);
    let total: u64 = entries(&cache)
        .iter()
        .map(|p| std::fs::metadata(p).expect("entry").len())
        .sum();
    assert!(
        total > 1 << 20,
        "the entries take more than 1 MiB ({total} bytes)"
    );

    let bounded = [
        "--cache",
        cache.to_str().expect("utf-8 path"),
        "--cache-size",
        "1",
    ];
    let o = command(&m, &dir, &bounded, "json")
        .output()
        .expect("run stalecheck");
    check_ran(&o);
    let after: u64 = entries(&cache)
        .iter()
        .map(|p| std::fs::metadata(p).expect("entry").len())
        .sum();
    // A bounded scan evicts only after it writes: this one had every entry, so the bound applies
    // from the next write on. Make one: a scan whose classpath has one more archive.
    assert_eq!(after, total);
    let extra = dir.join("extra.jar");
    write_jar(&extra, &class_entries(&dir.join("lib-classes")));
    let mut m2 = Module {
        inputs: m.inputs.clone(),
        classpath: m.classpath.clone(),
    };
    m2.classpath.push(extra);
    let o = command(&m2, &dir, &bounded, "json")
        .output()
        .expect("run stalecheck");
    check_ran(&o);
    let stderr = String::from_utf8_lossy(&o.stderr);
    let after: u64 = entries(&cache)
        .iter()
        .map(|p| std::fs::metadata(p).expect("entry").len())
        .sum();
    assert!(
        after <= 1 << 20,
        "the cache holds {after} bytes, over the 1 MiB bound"
    );
    assert!(
        !stderr.contains(" 0 evicted"),
        "the bounded scan evicted entries: {stderr}"
    );
    // Eviction never changes the findings: the scan of the first module is the same.
    let (json2, _, _, _) = scan(&m, &dir, &bounded);
    assert!(json1 == json2, "the JSON differs after eviction");
}

#[test]
fn stalecheck_toml_chooses_the_cache_directory_or_none() {
    let dir = scratch_dir("cache-toml");
    let m = module(&dir);
    let work = dir.join("project");
    std::fs::create_dir_all(&work).expect("project dir");
    std::fs::write(
        work.join("stalecheck.toml"),
        "cache = \"build/cache\"\ncache-size = 64\n",
    )
    .expect("write stalecheck.toml");
    let o = command(&m, &work, &[], "json")
        .output()
        .expect("run stalecheck");
    check_ran(&o);
    assert_eq!(
        entries(&work.join("build/cache")).len(),
        m.classpath.len(),
        "`cache = \"DIR\"` is relative to the file: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    // --cache wins over the file.
    let flag = dir.join("flag-cache");
    let o = command(
        &m,
        &work,
        &["--cache", flag.to_str().expect("utf-8")],
        "json",
    )
    .output()
    .expect("run stalecheck");
    check_ran(&o);
    assert_eq!(entries(&flag).len(), m.classpath.len());

    std::fs::write(work.join("stalecheck.toml"), "cache = false\n").expect("write stalecheck.toml");
    std::fs::remove_dir_all(work.join("build")).expect("remove the cache");
    let o = command(&m, &work, &[], "json")
        .output()
        .expect("run stalecheck");
    check_ran(&o);
    assert_eq!(cache_hits(&String::from_utf8_lossy(&o.stderr)), 0);
    assert!(
        !work.join("build").exists(),
        "`cache = false` wrote a cache"
    );
}
