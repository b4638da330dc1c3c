//! The run-time agent (`agent/`, issue 16) in a real JVM: the agent is built with Maven
//! (`agent/pom.xml`, ASM from Maven Central shaded in), the programs of `fixtures/agent` are
//! compiled by javac, their sections come from a real `stalecheck scan --sections`, and each
//! program runs under `java -javaagent:...`. Needs `mvn` and `java` on the `PATH` (`.ci/run`
//! installs both); without them the tests fail and say what to install. Set
//! `STALECHECK_SKIP_AGENT_TESTS=1` to leave them out on purpose (they then print that they did).

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

struct Setup {
    jar: PathBuf,
    classes: PathBuf,
    sections: PathBuf,
    dir: PathBuf,
}

fn skipped() -> bool {
    if std::env::var_os("STALECHECK_SKIP_AGENT_TESTS").is_some() {
        eprintln!("SKIPPED on request (STALECHECK_SKIP_AGENT_TESTS): the agent's real-JVM tests");
        return true;
    }
    false
}

fn have(tool: &str) -> bool {
    Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {tool}"))
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Builds the agent jar, compiles the fixtures and writes their sections, once per process.
fn setup() -> &'static Setup {
    static SETUP: OnceLock<Setup> = OnceLock::new();
    SETUP.get_or_init(|| {
        assert!(
            have("mvn"),
            "`mvn` is not installed: `apt-get install maven` (or set STALECHECK_SKIP_AGENT_TESTS=1)"
        );
        assert!(
            have("java"),
            "`java` is not installed: `apt-get install openjdk-17-jdk-headless`"
        );
        let repo = common::repo_root();
        let jar = build_agent(&repo);
        let dir = common::scratch_dir("agent");
        let classes = dir.join("classes");
        let src = repo.join("fixtures").join("agent").join("agentfix");
        let sources = common::files_with_ext(&src, "java");
        common::compile_java(&sources, &classes, "8");
        let sections = dir.join("sections.json");
        let run = common::stalecheck([
            "scan".as_ref(),
            classes.as_os_str(),
            "--sections".as_ref(),
            sections.as_os_str(),
            "--rules".as_ref(),
            common::VALUE_RULES.as_ref(),
            "--no-progress".as_ref(),
        ]);
        assert!(
            run.code() == 1,
            "the scan of the agent fixtures should find the lost update: {}",
            run.describe()
        );
        Setup {
            jar,
            classes,
            sections,
            dir,
        }
    })
}

/// `mvn package` of agent/ (the real build: compiles with --release 8, shades ASM).
pub fn build_agent(repo: &Path) -> PathBuf {
    let out = Command::new("mvn")
        .args(["-B", "-q", "-f"])
        .arg(repo.join("agent").join("pom.xml"))
        .args(["package", "-DskipTests"])
        .output()
        .expect("cannot run mvn");
    assert!(
        out.status.success(),
        "mvn package of agent/ failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let jar = repo
        .join("agent")
        .join("target")
        .join("stalecheck-agent.jar");
    assert!(jar.is_file(), "{} was not built", jar.display());
    jar
}

fn read_json(path: &Path) -> Value {
    let text =
        fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// One JVM run of `agentfix.<main>` with the agent: its stdout lines and its JSON report.
struct Ran {
    lines: Vec<String>,
    report: Value,
    sarif: Value,
    stderr: String,
}

fn run(s: &Setup, main: &str, args: &[&str], opts: &str, label: &str) -> Ran {
    let out_json = s.dir.join(format!("{label}.json"));
    let _ = fs::remove_file(&out_json);
    let agent = format!(
        "-javaagent:{}={opts},out={}",
        s.jar.display(),
        out_json.display()
    );
    let out = Command::new("java")
        .arg(&agent)
        .arg("-cp")
        .arg(&s.classes)
        .arg(format!("agentfix.{main}"))
        .args(args)
        .output()
        .expect("cannot run java");
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(
        out.status.success(),
        "java {agent} agentfix.{main} failed ({}):\n{stderr}",
        out.status
    );
    Ran {
        lines: String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_string)
            .collect(),
        report: read_json(&out_json),
        sarif: read_json(&s.dir.join(format!("{label}.sarif"))),
        stderr,
    }
}

fn sections_opt(s: &Setup) -> String {
    format!("sections={}", s.sections.display())
}

fn violations(r: &Ran) -> &Vec<Value> {
    r.report["violations"].as_array().expect("violations")
}

/// Every round printed `total=T expected=E` with T == E.
fn totals_right(r: &Ran) -> bool {
    r.lines.iter().all(|l| {
        let mut parts = l.split(' ');
        let t = parts.next().and_then(|p| p.strip_prefix("total="));
        let e = parts.next().and_then(|p| p.strip_prefix("expected="));
        t.is_some() && t == e
    })
}

fn section_ids(s: &Setup) -> Vec<String> {
    read_json(&s.sections)["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn sections_file_follows_its_schema_and_names_the_findings() {
    if skipped() {
        return;
    }
    let s = setup();
    let doc = read_json(&s.sections);
    let schema = read_json(
        &common::repo_root()
            .join("docs")
            .join("sections.schema.json"),
    );
    let validator = jsonschema::options()
        .build(&schema)
        .expect("schema compiles");
    let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "sections.json: {errors:?}");
    let secs = doc["sections"].as_array().unwrap();
    // The stale-value finding: the read (line 15) to the write-back (line 19), other threads'
    // reads allowed.
    let sv = secs
        .iter()
        .find(|x| x["origin"] == "stale-value")
        .expect("a stale-value section");
    assert_eq!(sv["variable"]["class"], "agentfix.LostUpdate");
    assert_eq!(sv["variable"]["field"], "balance");
    assert_eq!(sv["entry"]["method"], "deposit");
    assert_eq!(sv["entry"]["line"], 15);
    assert_eq!(sv["ends"][0]["line"], 19);
    assert_eq!(sv["ends"][0]["allowed"], serde_json::json!(["read"]));
    assert_eq!(sv["finding"]["rule"], "stale-value");
    // The seed's bank: `BankTotal += sum` is a load-and-store section.
    assert!(secs.iter().any(|x| x["origin"] == "load-and-store"
        && x["variable"]["field"] == "BankTotal"
        && x["entry"]["class"] == "agentfix.Bank"));
    // A look into a thread-safe map held in a final field, then a put (the finding's check, its
    // act): a section over the field holding the map, nothing allowed.
    let map = secs
        .iter()
        .find(|x| x["variable"]["class"] == "agentfix.Registry" && x["variable"]["field"] == "ids")
        .expect("a section over Registry.ids");
    assert!(map["finding"]["rule"].is_string(), "{map}");
    assert_eq!(map["entry"]["line"], 21);
    assert_eq!(map["ends"][0]["line"], 22);
    assert_eq!(map["ends"][0]["allowed"], serde_json::json!([]));
    // test-and-use: `if (last != null) return last.length();`.
    let tu = secs
        .iter()
        .find(|x| x["origin"] == "test-and-use")
        .expect("a test-and-use section");
    assert_eq!(tu["variable"]["field"], "last");
    assert_eq!(tu["entry"]["line"], 28);
    assert_eq!(tu["ends"][0]["line"], 29);
    // A final field (BankAtomic's AtomicLong) never gets a section.
    assert!(!secs
        .iter()
        .any(|x| x["variable"]["class"] == "agentfix.BankAtomic"));
}

/// Runs `main` `runs` times with noise; returns how many runs reported a violation of a section
/// of `origin`, checking each report on the way.
fn detection_runs(s: &Setup, main: &str, origin: &str, runs: usize) -> usize {
    let ids = section_ids(s);
    let mut detected = 0;
    for i in 0..runs {
        let opts = format!(
            "{},noise=random,permille=100,sleep=1,seed={i}",
            sections_opt(s)
        );
        let r = run(s, main, &["4", "100", "1"], &opts, &format!("{main}-{i}"));
        for v in violations(&r) {
            let id = v["section"].as_str().unwrap();
            assert!(
                ids.iter().any(|x| x == id),
                "a violation of section {id}, which the sections file does not have"
            );
        }
        let hit = violations(&r).iter().find(|v| v["origin"] == origin);
        if let Some(v) = hit {
            detected += 1;
            check_violation(v, main);
            assert!(r.stderr.contains("violation(s) observed"), "{}", r.stderr);
        }
        assert!(
            stalecheck_sarif::schema_errors(&r.sarif).is_empty(),
            "{:?}",
            stalecheck_sarif::schema_errors(&r.sarif)
        );
        let run0 = &r.sarif["runs"][0];
        assert_eq!(run0["tool"]["driver"]["name"], "stalecheck-agent");
        assert_eq!(run0["automationDetails"]["id"], "stalecheck-agent/");
        assert_eq!(
            run0["results"].as_array().unwrap().len(),
            violations(&r).len()
        );
    }
    detected
}

/// A violation names its variable, both threads, both locations (section and intruder) with
/// their stacks.
fn check_violation(v: &Value, main: &str) {
    assert_eq!(v["kind"], "atomicity-violation");
    assert_eq!(v["variable"]["class"], format!("agentfix.{main}"));
    let owner = &v["owner"];
    let intruder = &v["intruder"];
    assert_ne!(owner["thread"], intruder["thread"]);
    for p in [&owner["entry"], &owner["end"], &intruder["location"]] {
        assert_eq!(p["class"], format!("agentfix.{main}"));
        assert_eq!(p["method"], "deposit");
        assert!(p["line"].as_u64().is_some(), "{p}");
        assert_eq!(p["file"], format!("agentfix/{main}.java"));
    }
    for st in [&owner["stack"], &intruder["stack"]] {
        let top = st[0].as_str().expect("a stack");
        assert!(
            top.starts_with(&format!("agentfix.{main}.deposit(")),
            "{top}"
        );
    }
}

#[test]
fn bank_and_lost_update_are_detected_in_95_percent_of_noisy_runs() {
    if skipped() {
        return;
    }
    let s = setup();
    const RUNS: usize = 20;
    let bank = detection_runs(s, "Bank", "load-and-store", RUNS);
    let lost = detection_runs(s, "LostUpdate", "stale-value", RUNS);
    eprintln!("detected: Bank {bank}/{RUNS}, LostUpdate {lost}/{RUNS}");
    assert!(bank * 100 >= RUNS * 95, "Bank: {bank}/{RUNS}");
    assert!(lost * 100 >= RUNS * 95, "LostUpdate: {lost}/{RUNS}");
}

#[test]
fn data_race_on_an_unsynchronized_field_is_detected_in_full_mode() {
    if skipped() {
        return;
    }
    let s = setup();
    const RUNS: usize = 10;
    let mut detected = 0;
    for i in 0..RUNS {
        let r = run(
            s,
            "Race",
            &["200", "1"],
            &format!("mode=full,noise=random,permille=100,sleep=1,seed={i}"),
            &format!("race-{i}"),
        );
        let hit = violations(&r).iter().find(|v| {
            v["kind"] == "data-race"
                && v["variable"]["class"] == "agentfix.Race"
                && v["variable"]["field"] == "last"
        });
        if let Some(v) = hit {
            detected += 1;
            // One side writes (line 19): a read broken by a write, or a write broken by any
            // access.
            let lines = [
                &v["owner"]["entry"]["line"],
                &v["intruder"]["location"]["line"],
            ];
            assert!(lines.contains(&&Value::from(19)), "{v}");
            assert_eq!(v["variable"]["static"], true);
            assert_ne!(v["owner"]["thread"], v["intruder"]["thread"]);
        }
        // Only the program's own field: the JDK and the agent are never instrumented.
        for v in violations(&r) {
            assert!(
                v["variable"]["class"]
                    .as_str()
                    .is_some_and(|c| c.starts_with("agentfix.") || c.starts_with('[')),
                "{v}"
            );
        }
    }
    eprintln!("data race detected in {detected}/{RUNS} runs");
    assert!(detected >= RUNS - 1, "data race: {detected}/{RUNS}");
}

#[test]
fn correct_versions_give_no_report_in_100_rounds() {
    if skipped() {
        return;
    }
    let s = setup();
    // 100 rounds (4 threads, 100 deposits each) in one JVM per program and mode: the agent and
    // its noise run through the same sections 40,000 times per program.
    for main in [
        "BankLocked",
        "LostUpdateLocked",
        "BankConfined",
        "BankAtomic",
    ] {
        for (mode, opts) in [
            (
                "sections",
                format!("{},noise=random,permille=20,sleep=1", sections_opt(s)),
            ),
            (
                "full",
                "mode=full,noise=random,permille=20,sleep=1".to_string(),
            ),
        ] {
            let r = run(
                s,
                main,
                &["4", "100", "100"],
                &opts,
                &format!("{main}-{mode}"),
            );
            assert_eq!(r.lines.len(), 100, "{main}: {:?}", r.lines);
            assert!(totals_right(&r), "{main} ({mode}): {:?}", r.lines);
            assert!(
                violations(&r).is_empty(),
                "{main} ({mode}) is correct, yet: {}",
                serde_json::to_string_pretty(&r.report["violations"]).unwrap()
            );
            // The monitoring was on: sections ran under noise without a conflict (except for the
            // atomic version, whose only field is final: nothing to monitor in sections mode).
            let clean: u64 = r.report["sections"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x["noisedClean"].as_u64().unwrap())
                .sum();
            if main != "BankAtomic" || mode == "full" {
                assert!(clean > 0, "{main} ({mode}): no section ran under noise");
            }
        }
    }
}

#[test]
fn healing_keeps_the_lost_update_total_and_says_what_it_healed() {
    if skipped() {
        return;
    }
    let s = setup();
    let id = section_ids(s)
        .into_iter()
        .find(|x| x.starts_with("stale-value:agentfix.LostUpdate.deposit"))
        .expect("the lost update's section");
    let heal = s.dir.join("heal.txt");
    fs::write(&heal, format!("# sections to heal\n{id}\n")).unwrap();
    let noise = format!("{},noise=random,permille=100,sleep=1", sections_opt(s));
    // Without healing the same runs lose updates (so the check below can fail).
    let unhealed = run(s, "LostUpdate", &["4", "200", "10"], &noise, "unhealed");
    assert!(
        !totals_right(&unhealed),
        "no update was lost without healing: {:?}",
        unhealed.lines
    );
    let healed = run(
        s,
        "LostUpdate",
        &["4", "200", "10"],
        &format!("{noise},heal={}", heal.display()),
        "healed",
    );
    assert!(totals_right(&healed), "healed: {:?}", healed.lines);
    assert!(violations(&healed).is_empty(), "{}", healed.report);
    let sec = healed.report["sections"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["id"] == id.as_str())
        .expect("the healed section in the report");
    assert!(sec["heal"]["healed"].as_u64().unwrap() > 0, "{sec}");
    assert_eq!(sec["heal"]["timeouts"], 0, "{sec}");
    assert_eq!(healed.report["options"]["heal"], true);
}

#[test]
fn a_bad_option_leaves_the_program_running_unmonitored() {
    if skipped() {
        return;
    }
    let s = setup();
    let out = Command::new("java")
        .arg(format!("-javaagent:{}=mode=bogus", s.jar.display()))
        .arg("-cp")
        .arg(&s.classes)
        .args(["agentfix.BankLocked", "2", "10", "1"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("mode must be `sections` or `full`") && err.contains("the agent is off"),
        "{err}"
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "total=20 expected=20"
    );
}

/// The stale-value finding's SARIF result, from a scan (or merge) with `--confirmations`.
fn stale_value_result(log: &Value) -> Value {
    let run = log["runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["tool"]["driver"]["name"] == "stalecheck")
        .expect("stalecheck's run");
    run["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ruleId"] == "stale-value")
        .expect("the stale-value result")
        .clone()
}

#[test]
fn confirmations_mark_the_finding_the_agent_saw_broken() {
    if skipped() {
        return;
    }
    let s = setup();
    let opts = format!("{},noise=random,permille=100,sleep=1", sections_opt(s));
    // Detection is not certain in one run (>= 95%): up to 5 runs until one sees it.
    let mut label = String::new();
    for i in 0..5 {
        label = format!("confirm-{i}");
        let r = run(s, "LostUpdate", &["4", "100", "1"], &opts, &label);
        if violations(&r).iter().any(|v| v["origin"] == "stale-value") {
            break;
        }
    }
    let report = s.dir.join(format!("{label}.json"));
    let src = common::repo_root().join("fixtures").join("agent");
    let sarif = s.dir.join("confirmed.sarif");
    let run = common::stalecheck([
        "scan".as_ref(),
        s.classes.as_os_str(),
        "--source-root".as_ref(),
        src.as_os_str(),
        "--format".as_ref(),
        "sarif".as_ref(),
        "--output".as_ref(),
        sarif.as_os_str(),
        "--confirmations".as_ref(),
        report.as_os_str(),
        "--rules".as_ref(),
        common::VALUE_RULES.as_ref(),
        "--no-progress".as_ref(),
    ]);
    assert_eq!(run.code(), 1, "{}", run.describe());
    let log = read_json(&sarif);
    assert!(
        stalecheck_sarif::schema_errors(&log).is_empty(),
        "{:?}",
        stalecheck_sarif::schema_errors(&log)
    );
    let r = stale_value_result(&log);
    let confirmed = &r["properties"]["stalecheck/confirmed"];
    assert_eq!(confirmed["by"], "stalecheck-agent", "{r}");
    assert_eq!(r["rank"], 100.0);
    let flows = r["codeFlows"].as_array().unwrap();
    let observed = flows.last().unwrap();
    assert_eq!(observed["threadFlows"].as_array().unwrap().len(), 2);
    assert_eq!(
        observed["threadFlows"][0]["locations"][0]["location"]["physicalLocation"]["region"]
            ["startLine"],
        15
    );

    // merge: stalecheck's run and the agent's own run, the finding confirmed.
    let plain = s.dir.join("plain.sarif");
    let scan = common::stalecheck([
        "scan".as_ref(),
        s.classes.as_os_str(),
        "--source-root".as_ref(),
        src.as_os_str(),
        "--format".as_ref(),
        "sarif".as_ref(),
        "--output".as_ref(),
        plain.as_os_str(),
        "--rules".as_ref(),
        common::VALUE_RULES.as_ref(),
        "--no-progress".as_ref(),
    ]);
    assert_eq!(scan.code(), 1, "{}", scan.describe());
    assert!(stale_value_result(&read_json(&plain))["properties"]
        .get("stalecheck/confirmed")
        .is_none());
    let merged = s.dir.join("merged.sarif");
    let agent_sarif = s.dir.join(format!("{label}.sarif"));
    let m = common::stalecheck([
        "merge".as_ref(),
        plain.as_os_str(),
        agent_sarif.as_os_str(),
        "--output".as_ref(),
        merged.as_os_str(),
        "--confirmations".as_ref(),
        report.as_os_str(),
    ]);
    assert_eq!(m.code(), 0, "{}", m.describe());
    let log = read_json(&merged);
    assert!(stalecheck_sarif::schema_errors(&log).is_empty());
    let tools: Vec<&str> = log["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["tool"]["driver"]["name"].as_str().unwrap())
        .collect();
    assert!(
        tools.contains(&"stalecheck") && tools.contains(&"stalecheck-agent"),
        "{tools:?}"
    );
    assert_eq!(stale_value_result(&log)["rank"], 100.0);
}

#[test]
fn a_section_exercised_under_noise_without_a_conflict_is_listed() {
    if skipped() {
        return;
    }
    let s = setup();
    // One depositor: the lost update's section runs under noise, and nothing can break it.
    let r = run(
        s,
        "LostUpdate",
        &["1", "200", "1"],
        &format!("{},noise=random,permille=200,sleep=1", sections_opt(s)),
        "exercised",
    );
    assert!(violations(&r).is_empty());
    assert!(totals_right(&r));
    let sarif = s.dir.join("exercised.sarif.out");
    let report = s.dir.join("exercised.json");
    let run = common::stalecheck([
        "scan".as_ref(),
        s.classes.as_os_str(),
        "--format".as_ref(),
        "sarif".as_ref(),
        "--output".as_ref(),
        sarif.as_os_str(),
        "--confirmations".as_ref(),
        report.as_os_str(),
        "--rules".as_ref(),
        common::VALUE_RULES.as_ref(),
        "--no-progress".as_ref(),
    ]);
    assert_eq!(run.code(), 1, "{}", run.describe());
    assert!(
        run.stderr
            .contains("exercised without a conflict: stale-value:agentfix.LostUpdate"),
        "{}",
        run.describe()
    );
    let log = read_json(&sarif);
    let r = stale_value_result(&log);
    assert!(r["properties"].get("stalecheck/confirmed").is_none());
    assert!(
        r["properties"]["stalecheck/exercised"]["noised"]
            .as_u64()
            .unwrap()
            > 0,
        "{r}"
    );
    let listed = log["runs"][0]["properties"]["stalecheck/exercisedSections"]
        .as_array()
        .unwrap();
    assert!(listed
        .iter()
        .any(|x| x["section"].as_str().unwrap().starts_with("stale-value:")));
}

#[test]
fn test_and_use_broken_by_another_thread_is_detected() {
    if skipped() {
        return;
    }
    let s = setup();
    let opts = format!("{},noise=random,permille=100,sleep=1", sections_opt(s));
    let mut detected = 0;
    const RUNS: usize = 5;
    for i in 0..RUNS {
        let r = run(
            s,
            "Registry",
            &["4", "100"],
            &format!("{opts},seed={i}"),
            &format!("registry-{i}"),
        );
        let hit = violations(&r)
            .iter()
            .find(|v| v["origin"] == "test-and-use" && v["intruder"]["access"] == "write");
        if let Some(v) = hit {
            detected += 1;
            assert_eq!(v["variable"]["field"], "last");
            assert_eq!(v["owner"]["entry"]["line"], 28);
            assert_eq!(v["owner"]["end"]["line"], 29);
        }
    }
    eprintln!("test-and-use detected in {detected}/{RUNS} runs");
    assert!(detected >= RUNS - 1, "test-and-use: {detected}/{RUNS}");
}

/// The `noised` count of the report's section whose id starts with `prefix`.
fn noised(r: &Ran, prefix: &str) -> u64 {
    r.report["sections"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["id"].as_str().unwrap().starts_with(prefix))
        .map_or(0, |x| x["noised"].as_u64().unwrap())
}

#[test]
fn variable_and_location_noise_aim_at_their_targets_only() {
    if skipped() {
        return;
    }
    let s = setup();
    let bank = "load-and-store:agentfix.Bank.deposit";
    let base = format!("{},permille=500,sleep=0", sections_opt(s));
    let cases = [
        ("noise=variable,targets=agentfix.Bank.BankTotal", true),
        ("noise=variable,targets=agentfix.LostUpdate.balance", false),
        ("noise=location,targets=agentfix.Bank.deposit:12", true),
        ("noise=location,targets=agentfix.Bank.main", false),
        ("noise=none", false),
    ];
    for (i, (noise, aimed)) in cases.iter().enumerate() {
        let r = run(
            s,
            "Bank",
            &["2", "200", "1"],
            &format!("{base},{noise}"),
            &format!("aim-{i}"),
        );
        let n = noised(&r, bank);
        assert_eq!(
            n > 0,
            *aimed,
            "{noise}: the bank's section was noised {n} times"
        );
        assert_eq!(
            r.report["options"]["noise"],
            noise.split([',', '=']).nth(1).unwrap()
        );
    }
}
