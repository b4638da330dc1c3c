//! The Gradle and Maven plugins' real-build tests, run with the binary under test, so that
//! `cargo test --workspace` runs every test of the repository.
//!
//! Each test runs a plugin's own test script (`gradle-plugin/test/run.sh`,
//! `maven-plugin/test/run.sh`), which builds the plugin, publishes the binary under test
//! (`STALECHECK`, the script's input only) as a Maven artifact with `packaging/publish-binary.sh`
//! into a local repository, and runs real `gradle` / `mvn` builds of fixture projects that resolve
//! it from there, with no `STALECHECK` and no `stalecheck` on their `PATH`. They need `gradle`
//! (Debian's 4.4.1) and `mvn` on the `PATH` (`.ci/run` installs both); without them the tests
//! fail and say what to install. Set `STALECHECK_SKIP_PLUGIN_TESTS=1` to leave them out on
//! purpose (they then print that they did).

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("cli/ has a parent")
        .to_path_buf()
}

fn run_script(script: &str, tool: &str, package: &str) {
    if std::env::var_os("STALECHECK_SKIP_PLUGIN_TESTS").is_some() {
        eprintln!("SKIPPED on request (STALECHECK_SKIP_PLUGIN_TESTS): {script}");
        return;
    }
    let found = Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {tool}"))
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "`{tool}` is not installed: `apt-get install {package}` (or set \
         STALECHECK_SKIP_PLUGIN_TESTS=1 to leave the plugin tests out)"
    );
    let out = Command::new("bash")
        .arg(repo().join(script))
        .env("STALECHECK", env!("CARGO_BIN_EXE_stalecheck"))
        .current_dir(repo())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {script}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{script} failed ({}):\n--- stdout\n{stdout}\n--- stderr\n{stderr}",
        out.status
    );
    // The scripts report each check; make sure they ran some.
    eprintln!("{stdout}");
}

#[test]
fn gradle_plugin_real_builds() {
    run_script("gradle-plugin/test/run.sh", "gradle", "gradle");
}

#[test]
fn maven_plugin_invoker_builds() {
    run_script("maven-plugin/test/run.sh", "mvn", "maven");
}
