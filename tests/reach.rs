//! The program is the scanned classes and the `--classpath` classes they reach (`reach.rs`):
//! a dependency's class that the scanned code neither names, creates nor calls through its own
//! calls does not change the findings; one it creates, or one that can receive its own call, is
//! followed. Compiled by a real javac, scanned by the binary, packed in real jars.

mod common;

use std::path::{Path, PathBuf};

use common::{class_entries, compile_sources, scratch_dir, stalecheck, write_jar};

/// The dependency: a registry that forwards to a handler it was given.
const HANDLER: &str = r#"package lib;
public interface Handler {
    String handle(String k);
    void store(String k, String v);
}
"#;

const REGISTRY: &str = r#"package lib;
public class Registry {
    private final Handler h;
    public Registry(Handler h) { this.h = h; }
    public String lookup(String k) { return h.handle(k); }
    public void store(String k, String v) { h.store(k, v); }
}
"#;

/// Another archive: a synchronized handler.
const SYNC_HANDLER: &str = r#"package other;
public class SyncHandler implements lib.Handler {
    private final java.util.Map<String, String> m = new java.util.HashMap<>();
    public synchronized String handle(String k) { return m.get(k); }
    public synchronized void store(String k, String v) { m.put(k, v); }
}
"#;

/// Check-then-act through the registry, with a registry the caller gives.
const GIVEN: &str = r#"package app;
public class Use {
    private final lib.Registry r;
    public Use(lib.Registry r) { this.r = r; }
    public void remember(String k, String v) {
        if (r.lookup(k) == null) {
            r.store(k, v);
        }
    }
}
"#;

/// The same, with a registry over the synchronized handler that it creates itself.
const CREATED: &str = r#"package app;
public class Use {
    private final lib.Registry r = new lib.Registry(new other.SyncHandler());
    public void remember(String k, String v) {
        if (r.lookup(k) == null) {
            r.store(k, v);
        }
    }
}
"#;

/// Check-then-act on the handler interface itself: the caller may hand in a SyncHandler.
const OWN_CALL: &str = r#"package app;
public class Use {
    private final lib.Handler h;
    public Use(lib.Handler h) { this.h = h; }
    public void remember(String k, String v) {
        if (h.handle(k) == null) {
            h.store(k, v);
        }
    }
}
"#;

struct Built {
    app: PathBuf,
    lib: PathBuf,
    other: PathBuf,
}

/// Compiles the dependency, the other archive and one version of the scanned class; packs
/// each in its own jar.
fn build(dir: &Path, app: &str) -> Built {
    let classes = dir.join("classes");
    compile_sources(
        &dir.join("src"),
        &classes,
        "17",
        &[
            ("lib/Handler.java", HANDLER),
            ("lib/Registry.java", REGISTRY),
            ("other/SyncHandler.java", SYNC_HANDLER),
            ("app/Use.java", app),
        ],
    );
    let entries = class_entries(&classes);
    let jar = |name: &str, package: &str| {
        let path = dir.join(name);
        let of: Vec<(String, Vec<u8>)> = entries
            .iter()
            .filter(|(p, _)| p.starts_with(package))
            .cloned()
            .collect();
        assert!(!of.is_empty(), "no classes of {package}");
        write_jar(&path, &of);
        path
    };
    Built {
        app: jar("app.jar", "app/"),
        lib: jar("lib.jar", "lib/"),
        other: jar("other.jar", "other/"),
    }
}

/// The findings (rule, line) of scanning the app with all rules and `classpath`.
fn findings(b: &Built, classpath: &[&Path]) -> Vec<(String, Option<u32>)> {
    let cp = std::env::join_paths(classpath).expect("classpath");
    let run = stalecheck([
        "scan".as_ref(),
        "--rules".as_ref(),
        "all".as_ref(),
        "--no-cache".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
        "--no-progress".as_ref(),
        "--classpath".as_ref(),
        cp.as_os_str(),
        "--".as_ref(),
        b.app.as_os_str(),
    ]);
    assert!(matches!(run.code(), 0 | 1), "{}", run.describe());
    run.report()
        .findings
        .iter()
        .map(|f| (f.rule.clone(), f.line))
        .collect()
}

#[test]
fn a_class_the_scanned_code_never_reaches_changes_nothing() {
    let dir = scratch_dir("reach-unreached");
    let b = build(&dir, GIVEN);
    let without = findings(&b, &[&b.lib]);
    // `SyncHandler` implements the dependency's interface, but nothing the scanned code reaches
    // creates one and the scanned code never calls the interface itself: only the registry
    // does, on a handler of unknown implementation. (Before the program was the reached
    // classes, adding the archive made `Use.remember` a finding.)
    let with = findings(&b, &[&b.lib, &b.other]);
    assert_eq!(with, without, "an unrelated archive changed the findings");
}

#[test]
fn an_implementation_the_scanned_code_creates_is_followed_into_the_dependency() {
    let dir = scratch_dir("reach-created");
    let b = build(&dir, CREATED);
    let found = findings(&b, &[&b.lib, &b.other]);
    assert!(
        found.iter().any(|(_, line)| *line == Some(5)),
        "the check-then-act over the created synchronized handler: {found:?}"
    );
}

#[test]
fn an_implementation_of_the_scanned_codes_own_call_is_followed() {
    let dir = scratch_dir("reach-own-call");
    let b = build(&dir, OWN_CALL);
    let found = findings(&b, &[&b.lib, &b.other]);
    assert!(
        found.iter().any(|(_, line)| matches!(line, Some(6 | 7))),
        "a caller may hand in a SyncHandler: {found:?}"
    );
    assert!(
        findings(&b, &[&b.lib]).is_empty(),
        "without an implementation nothing is known of the calls"
    );
}
